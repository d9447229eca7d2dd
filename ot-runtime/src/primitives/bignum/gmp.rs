//! The GMP backend of [`crate::primitives::bignum`]: `rug`'s integer and its helper
//! types, re-exported under the names the crate uses, so that every
//! Paillier call site goes through one module rather than naming `rug`.

/// Arbitrary-precision signed integer (GMP's `mpz_t`): plaintexts,
/// ciphertexts, randomizers and key parts of Paillier.
pub use rug::Integer;

/// Digit order of [`Integer::from_digits`] and [`Integer::write_digits`]
/// (the wire encodings use least significant first).
pub use rug::integer::Order;

/// Verdict of [`Integer::is_probably_prime`] (`No`, `Probably`, `Yes`).
pub use rug::integer::IsPrime;

/// `pow` with a small public exponent (the Blum-modulus proof's
/// `x^4`-style checks).
pub use rug::ops::Pow;
