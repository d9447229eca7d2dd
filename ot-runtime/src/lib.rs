//! Kernels, channels and base types that the code generated from `.otp`
//! protocol specifications calls. Nothing in here is a protocol flow: every
//! protocol lives in `protocols/*.otp`.
#![deny(unsafe_code)]
#![warn(missing_docs)]

pub mod abo;
pub mod aes;
pub mod bignum;
pub mod bind;
pub mod bits;
pub mod block;
pub mod code;
pub mod consistency;
pub mod gf128;
pub mod gf256;
pub mod ggm;
pub mod hash;
pub mod limits;
pub mod matrix;
pub mod oprf;
pub mod parallel;
pub mod prg;
pub mod quiet;
pub mod reed_solomon;
pub mod rng;
pub mod rr16;
pub mod softspoken;
pub mod transpose;
pub mod vole;
pub mod wipe;

pub mod channel;
pub mod ec;
pub mod endemic;
pub mod mesh;
pub mod minimac;
pub mod mpc;
pub mod ops;
pub mod orlandi;
pub mod orlandi_distill;
pub mod orlandi_level;
pub mod orlandi_prep;
pub mod orlandi_triple;
pub mod otext;
pub mod paillier;
pub mod paillier_wire;
pub mod pedersen;
pub mod session;
pub mod silent;
/// Streaming ("chunk") kernels of OT extension: each bulk step computed one
/// column range at a time so a chunk stays in cache through the whole chain.
pub mod stream;
pub mod wire;
pub mod xor;

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

pub use bits::Bits;
pub use bits::ShapeError;
pub use block::Block;
pub use channel::{Channel, ChannelError, ChannelStats};
pub use matrix::BitMatrix;
pub use mesh::{Mesh, MeshError};
pub use rng::{Rng, Sample};
pub use wire::{Wire, WireError};
