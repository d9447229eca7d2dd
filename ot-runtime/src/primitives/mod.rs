//! The bottom floor: the data types and building blocks every protocol
//! family's kernels are made of, with no knowledge of any protocol or of
//! the transport. [`block`], [`bits`] and [`matrix`] are the shapes the
//! kernels work on; [`aes`], [`gf128`], [`gf256`] and [`transpose`] are the
//! SIMD primitives, each with one file per CPU backend and choosing it
//! through [`backend`] (run-time detection and the `--cfg ot_backend` cap
//! in one place); [`prg`], [`hash`] and [`rng`] are the symmetric-key
//! randomness and hashing built on AES; [`ec`], [`ec_batch`] and
//! [`bignum`] are the public-key arithmetic (Ristretto255, one scalar
//! times a batch of points on AVX-512 IFMA lanes, big integers); [`wipe`] erases
//! secrets; [`xor`], [`ops`] and [`parallel`] are small generic helpers
//! (slice XOR, `.otp` value intrinsics, multi-threaded batch variants);
//! [`span`] is the context every streamed kernel takes (which entries of
//! its whole result one call computes).
//! They sit together so that a protocol family's folder only names this
//! floor and the transport, never another family's internals for a basic
//! operation.

pub mod aes;
pub mod backend;
pub mod bignum;
pub mod bits;
pub mod block;
pub mod ec;
pub mod ec_batch;
pub mod gf128;
pub mod gf256;
pub mod hash;
pub mod huge_pages;
pub mod matrix;
pub mod ops;
pub mod parallel;
pub mod prg;
pub mod rng;
pub mod span;
pub mod transpose;
pub mod wipe;
pub mod xor;
