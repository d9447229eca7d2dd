//! QuietOT kernels [Couteau, Devadas, Devadas, Koch, Servan-Schreiber,
//! "QuietOT: Lightweight Oblivious Transfer with a Public-Key Setup",
//! ASIACRYPT 2024, eprint 2024/1079]: bit-sliced Z_3 / Z_6 arithmetic, key
//! evaluation with lookup tables (BIPSW) and XOR-MAJ (GAR), the public
//! input derivation (AES-CTR on the shared seed), the output hash, and the
//! per-key-element computations of the OT-based setup, and the conversion
//! to random 1-out-of-2 OT ([`convert`]). The protocols are
//! `protocols/quiet_bipsw.otp`, `protocols/quiet_gar.otp` and their
//! conversions `protocols/quiet_bipsw_rot.otp`, `protocols/quiet_gar_rot.otp`.

pub mod bipsw;
#[cfg(target_arch = "x86_64")]
mod bipsw_avx512;
pub mod convert;
pub mod gar;
pub mod public;
pub mod z3;

pub use public::QuietPublic;
