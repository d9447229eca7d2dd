//! QuietOT kernels [Couteau, Devadas, Devadas, Koch, Servan-Schreiber,
//! "QuietOT: Lightweight Oblivious Transfer with a Public-Key Setup",
//! ASIACRYPT 2024, eprint 2024/1079]: bit-sliced Z_3 / Z_6 arithmetic, key
//! evaluation with lookup tables (BIPSW) and XOR-MAJ (GAR), the public
//! input derivation (AES-CTR on the shared seed), the output hash, and the
//! per-key-element computations of the OT-based setup. The protocols are
//! `protocols/quiet_bipsw.otp` and `protocols/quiet_gar.otp`.

pub mod bipsw;
pub mod gar;
pub mod public;
pub mod z3;

pub use public::QuietPublic;
