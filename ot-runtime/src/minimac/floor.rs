//! The smallest MiniMac code a statistical security parameter allows.
//!
//! MiniMac's MAC check (DZ13 §3; `protocols/minimac_open.otp`) catches a
//! changed opening because the error it adds must be a nonzero codeword
//! of the code the opened word is checked against: `C = RS[n, k]` (minimum
//! distance `n − k + 1`) or its Schur square `C* = RS[n, 2k − 1]` (on the
//! same evaluation points; Reed–Solomon codes are MDS, so its distance is
//! `d* = n − 2k + 2`); the MAC check's soundness in DZ13 §3 rests on
//! this distance (the error is nonzero in at least `d*` coordinates, and
//! the adversary must guess the MAC key there). With our per-coordinate
//! batching coefficients each of those coordinates is a separate event
//! of probability at most `2/256` (the coefficient vanishing there, or a
//! guessed MAC-key byte; the analysis stated in `minimac_open.otp`), so a
//! forgery passes with probability at most `(2/256)^{d*} = 2^{−7 d*}`
//! (a bound of this implementation, not a figure quoted from DZ13). For the codes `RS[3k, k]` that the dealer
//! makes, `d* = k + 2`: `2^{−21}` at `k = 1`, `2^{−70}` at `k = 8`.
//!
//! A statistical security parameter `sec` (default [`STAT_SEC`] = 40 bits)
//! therefore needs `7 d* ≥ sec`; at `n = 3k` that is `k ≥ ⌈sec / 7⌉ − 2`
//! ([`min_k`]: 4 for 40 bits). Every MiniMac protocol's `Params::new`
//! refuses a smaller code (`requires minimac_code_secure(..)`), as does
//! `otp deal`.
#![forbid(unsafe_code)]

/// The default (and smallest accepted) statistical security parameter in
/// bits: a forged opening passes with probability at most `2^-40`.
pub const STAT_SEC: usize = 40;

/// Bits of security per coordinate of the Schur-square distance:
/// `(2/256)^d = 2^{-7d}` (module docs).
const BITS_PER_COORDINATE: usize = 7;

/// The minimum distance `d* = n − 2k + 2` of the Schur square
/// `RS[n, 2k − 1]` of `RS[n, k]` (0 when `2k − 1 > n`, where the square
/// fills the whole space and catches nothing).
pub fn schur_distance(k: usize, n: usize) -> usize {
    (n + 2).saturating_sub(2 * k).min(n)
}

/// `−log2` of the forging probability bound `(2/256)^{d*}` of the code
/// `RS[n, k]` (module docs).
pub fn forging_bits(k: usize, n: usize) -> usize {
    BITS_PER_COORDINATE.saturating_mul(schur_distance(k, n))
}

/// The smallest `k` (at least 1) with `RS[3k, k]` meeting `sec` bits:
/// `7 (k + 2) ≥ sec`.
pub fn min_k(sec: usize) -> usize {
    sec.div_ceil(BITS_PER_COORDINATE).saturating_sub(2).max(1)
}

/// Whether `RS[n, k]` meets `sec` bits (with `sec` at least
/// [`STAT_SEC`]): the `requires` predicate of every MiniMac protocol.
pub fn code_secure(k: usize, n: usize, sec: usize) -> bool {
    sec >= STAT_SEC && k >= 1 && forging_bits(k, n) >= sec
}

/// Why a code was refused: its forging probability, the security asked
/// for, and the smallest `k` of `RS[3k, k]` that meets it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "{} gives forging probability 2^-{bits}, below the statistical security 2^-{sec}; use k >= {min_k}{}",
    code_name(*k, *n),
    if *n == 3 * *k { "" } else { " with RS[3k, k]" }
)]
pub struct CodeTooSmall {
    /// Message length (slots per value).
    pub k: usize,
    /// Code length.
    pub n: usize,
    /// `−log2` of the forging probability ([`forging_bits`]).
    pub bits: usize,
    /// The statistical security asked for (at least [`STAT_SEC`]).
    pub sec: usize,
    /// The smallest `k` of `RS[3k, k]` meeting `sec` ([`min_k`]).
    pub min_k: usize,
}

/// `k = K` for the dealer's codes `RS[3k, k]`, else the code itself.
fn code_name(k: usize, n: usize) -> String {
    if n == 3 * k {
        format!("k = {k}")
    } else {
        format!("RS[{n}, {k}]")
    }
}

/// [`code_secure`] with the reason: `Err` names the forging probability
/// and the smallest `k` that meets `sec` (raised to [`STAT_SEC`] if
/// smaller).
pub fn check_code(k: usize, n: usize, sec: usize) -> Result<(), CodeTooSmall> {
    let sec = sec.max(STAT_SEC);
    if code_secure(k, n, sec) {
        return Ok(());
    }
    Err(CodeTooSmall {
        k,
        n,
        bits: forging_bits(k, n),
        sec,
        min_k: min_k(sec),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bound_of_the_review() {
        assert_eq!(schur_distance(1, 3), 3);
        assert_eq!(forging_bits(1, 3), 21);
        assert_eq!(forging_bits(8, 24), 70);
        assert_eq!(forging_bits(32, 96), 238);
        assert_eq!(min_k(40), 4);
        assert_eq!(min_k(64), 8);
        assert_eq!(min_k(1), 1);
    }

    #[test]
    fn the_floor_at_40_bits() {
        assert!(!code_secure(3, 9, 40));
        assert!(code_secure(4, 12, 40));
        assert!(code_secure(32, 96, 40));
        assert!(!code_secure(32, 96, 39), "sec below the default is refused");
        assert!(!code_secure(0, 3, 40));
        // A high-rate code of the same length: C* = RS[60, 57], d* = 4.
        assert!(!code_secure(29, 60, 40));
        assert_eq!(schur_distance(40, 60), 0);
    }

    #[test]
    fn the_message_names_the_probability() {
        let e = check_code(2, 6, 40).unwrap_err();
        assert_eq!(
            e.to_string(),
            "k = 2 gives forging probability 2^-28, below the statistical security 2^-40; use k >= 4"
        );
        let e = check_code(29, 60, 40).unwrap_err();
        assert!(e
            .to_string()
            .starts_with("RS[60, 29] gives forging probability 2^-28"));
        assert!(check_code(4, 12, 40).is_ok());
    }
}
