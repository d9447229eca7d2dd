//! The big-integer type of Paillier encryption (`paillier`, `paillier_wire`,
//! the Orlandi triple kernels): the one place that names the backend, so
//! that the rest of the crate names `crate::bignum::Integer` and a backend
//! can be swapped behind this module without touching the call sites.
//!
//! The backend today is GMP (through `rug`), see [`gmp`]. The module
//! exposes the integer type and the few helper types its methods take or
//! return (digit order, primality verdict, the `Pow` trait), under the
//! names the call sites use.

pub mod gmp;

pub use gmp::{Integer, IsPrime, Order, Pow};
