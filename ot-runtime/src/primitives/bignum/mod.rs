//! The big-integer type of Paillier encryption (`paillier`, `paillier_wire`,
//! the Orlandi triple kernels): the one place that names the backend, so
//! that the rest of the crate names `crate::primitives::bignum::Integer` and a backend
//! is chosen here without touching the call sites.
//!
//! Two backends with one interface (the subset of GMP's `mpz` operations,
//! as `rug` names them, that the call sites use):
//!
//! * [`pure`], the default: pure Rust (`num-bigint` for arithmetic,
//!   `crypto-bigint`'s constant-time Montgomery form for every modular
//!   power with an odd modulus, `crypto-primes` for primality). No C
//!   library, no m4; builds wherever Rust does.
//! * `gmp` (cargo feature `gmp`): GMP through `rug`, built from source.
//!
//! The module exposes the integer type and the few helper types its
//! methods take or return (digit order, primality verdict, the `Pow`
//! trait), under the names the call sites use. The book's Orlandi chapter
//! measures the two side by side.

#[cfg(feature = "gmp")]
pub mod gmp;
pub mod pure;

#[cfg(feature = "gmp")]
pub use gmp::{Integer, IsPrime, Order, Pow};
#[cfg(not(feature = "gmp"))]
pub use pure::{Integer, IsPrime, Order, Pow};
