//! Kernels, channels and base types that the code generated from `.otp`
//! protocol specifications calls. Nothing in here is a protocol flow: every
//! protocol lives in `protocols/*.otp`.
//!
//! The crate has three floors, each a folder, and a module on one floor
//! names only its own floor and those below it:
//!
//! * [`primitives`]: the shapes (`Block`, `Bits`, `BitMatrix`) and building
//!   blocks (AES, GF(2^128), GF(2^8), transposition, PRG, hashes, RNG,
//!   Ristretto, big integers, wiping, slice XOR, multi-threaded batches).
//!   The SIMD primitives choose their CPU backend once through one helper,
//!   [`primitives::backend`], which also applies the
//!   `--cfg ot_backend="scalar|sse2|avx2|avx512"` override.
//! * [`transport`]: two-party channels, n-party meshes, the fixed-size wire
//!   codec, session binding and glue, the n-party broadcast digests and the
//!   memory budget.
//! * One folder per protocol family's kernels: [`otext`] (IKNP/KOS and the
//!   MR19 base OT), [`oprf`] (KKRT/OOS 1-out-of-N), [`softspoken`]
//!   (SoftSpokenOT, its VOLE, all-but-one OT and GGM trees), [`silent`]
//!   (Ferret / dual-LPN silent OT), [`quiet`] (QuietOT), [`rr16`] (RR16
//!   K-out-of-N), [`orlandi`] (Orlandi shares, Pedersen, Paillier and the
//!   preprocessing) and [`minimac`] (MiniMac shares, Reed–Solomon codes,
//!   the preprocessing format).
//!
//! The runtime does no file I/O for its callers: the MiniMac preprocessing
//! is encoded to and decoded from bytes or `Write` here, and the facade
//! (`ot::files`) reads and writes the files, their consumption records,
//! linear-code files and TLS PEM files. (The default memory budget reads
//! the machine's memory size from `/proc`, see [`transport::limits`].)
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod primitives;
pub mod transport;

pub mod minimac;
pub mod oprf;
pub mod orlandi;
pub mod otext;
/// KKRT16 private set intersection: cuckoo hashing, tags and comparison.
pub mod psi;
pub mod quiet;
pub mod rr16;
pub mod rss;
pub mod silent;
pub mod softspoken;

#[cfg(test)]
pub(crate) mod whole;

/// Expands to its input when this crate is built with the `tokio` feature
/// and to nothing otherwise: generated protocol code wraps its async items
/// (`run_async`, async step twins, async functionality methods) in it, so
/// they compile only where the runtime has async channels (a proc macro
/// cannot see the user crate's features) and cost nothing otherwise.
#[cfg(feature = "tokio")]
#[macro_export]
#[doc(hidden)]
macro_rules! __if_tokio {
    ($($t:tt)*) => { $($t)* };
}

/// See the `tokio` variant: without the feature, async items vanish.
#[cfg(not(feature = "tokio"))]
#[macro_export]
#[doc(hidden)]
macro_rules! __if_tokio {
    ($($t:tt)*) => {};
}

pub use primitives::bits::Bits;
pub use primitives::bits::ShapeError;
pub use primitives::block::Block;
pub use primitives::hash::HashTweaks;
pub use primitives::matrix::BitMatrix;
pub use primitives::rng::{Rng, Sample};
pub use primitives::span::Span;
pub use transport::channel::{Channel, ChannelError, ChannelStats};
pub use transport::mesh::{Mesh, MeshError};
pub use transport::wire::{Wire, WireError};
