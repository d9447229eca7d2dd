//! Parameters of silent OT: the Expand-Accumulate code and the regular
//! noise weight.
//!
//! Code: the Expand-Accumulate (EA) code of Boyle et al., CRYPTO 2022
//! (eprint 2022/1014), used as the compressing matrix `H = B·A ∈ F_2^{n×N}`
//! of dual LPN, with code length `N ≥ SCALER · n` (rate 1/5) and expander
//! row weight [`EXPANDER_WEIGHT`] = 11. This is the "fast but more
//! conservative" EA configuration of libOTe's silent OT (`ExAcc11`), which
//! takes the conjectured relative minimum distance of the EA code family
//! at these settings as `δ = 0.1` ([`MIN_DIST_RATIO`]; see "Assumption"
//! below for what that conjecture does and does not give).
//!
//! Noise: regular, one noisy coordinate per GGM tree (BCGIKRS19 §4;
//! Ferret §6), laid out interleaved: tree `u`'s leaf `j` is coordinate
//! `j·t + u` ([`super::spcot::noise_coordinate`]), so every tree's noisy
//! coordinate is uniform over the whole code (up to a shift below `t`).
//! The weight rule: against linear tests, a noise of regular weight `t`
//! over a code with relative distance `δ` is taken to leave a bias of at
//! most `(1 − 2δ)^t`, so `t = ⌈−κ / log2(1 − 2δ)⌉`; with `κ = 128` and
//! `δ = 0.1` that is 397.6, rounded up to a multiple of 8: [`NOISE_WEIGHT`]
//! = 400 trees (libOTe's parameter rule).
//!
//! # Assumption, and what the parameters are argued from
//!
//! Assumption: dual LPN with regular noise for the EA code as built: given
//! the public `H = B·A` (uniform expander positions, weight 11, rate 1/5),
//! `H·e` is pseudorandom for `e` with one uniform noisy coordinate per tree
//! in the interleaved layout. No published proof covers this construction
//! for all attacks; what is and is not argued:
//!
//! - Covered, linear tests whose codeword is made of few intervals (single
//!   outputs, sums of few outputs). In the linear-test framework (the
//!   analysis of the EA paper, BCGIKRS22, and of Silver, Couteau, Rindal,
//!   Raghuraman, CRYPTO 2021), a test `u` has bias `Π_u |1 − 2 w_u / 2^h|`
//!   under regular noise, with `w_u` the weight of the codeword `c = uᵀH`
//!   on tree `u`'s coordinates. `H = B·A` accumulates, so `c` is a union of
//!   intervals; interleaving puts `|c| / t ± m` of an `m`-interval codeword
//!   on every tree, which is the bias of noise spread evenly over the code.
//!   The contiguous layout (one block per tree) broke exactly this: every
//!   output's codeword has its 11 interval ends in at most 11 blocks, the
//!   other trees contribute nothing, and the outputs had a public bias with
//!   a sum of squares of about `n·3^−11` (7.5 at `2^20`). The regression
//!   test (`silent::noise_bias`) computes the exact bias of every output
//!   of a run from its public code, for both layouts.
//! - Not covered: (a) the weight rule treats every codeword as heavy on
//!   every tree; nothing proves that for linear tests with many intervals.
//!   (b) The conjectured distance `δ = 0.1` does not hold for single
//!   outputs of this code: an output's codeword weight is a sum of 6 of
//!   the 12 spacings of its 11 uniform positions (about Beta(6, 6) as a
//!   fraction of `N`), below `0.1·N` for about 3 outputs in 10^4, so the
//!   lightest of `2^20` outputs has weight about `0.03·N` and a public bias
//!   near `e^{−2t·0.03}` ≈ `2^−35`, independent of the noise layout (the
//!   regression test prints the largest bias of its runs). A
//!   "128 bits against linear tests" claim therefore does not hold for
//!   this code at these sizes; the bias of the most biased choice bit of
//!   a run is the measured figure. (c) Attacks that exploit the regular
//!   structure beyond linear tests (e.g. the algebraic attacks on regular
//!   syndrome decoding of Briaud and Øygarden, Eurocrypt 2023) are not
//!   analyzed for these parameters.
//!
//! Silver codes are not used (broken: Raghuraman, Rindal, Tanguy, CRYPTO
//! 2023, eprint 2023/882).

/// The target `κ` of the noise-weight rule (the rule's input, not a proven
/// security level; see the module documentation).
pub const SECURITY_BITS: u32 = 128;

/// Code length over output length (rate `1/SCALER` of the EA code).
pub const SCALER: usize = 5;

/// Row weight of the EA expander `B` (ones per output coordinate).
pub const EXPANDER_WEIGHT: usize = 11;

/// Conjectured relative minimum distance of the EA code with rate 1/5 and
/// expander weight 11 (see the module documentation).
pub const MIN_DIST_RATIO: f64 = 0.1;

/// Regular noise weight `t`, the number of GGM trees (see
/// [`regular_noise_weight`]; a unit test pins it to the formula).
pub const NOISE_WEIGHT: usize = 400;

/// Largest tree depth the protocol accepts (`2^20` leaves per tree, so at
/// most `400 · 2^20 / 5 ≈ 8.4 · 10^7` OTs per run).
pub const MAX_DEPTH: usize = 20;

/// Regular noise weight for `bits` of security against linear tests over a
/// code with relative minimum distance `min_dist_ratio` (in `(0, 1/2)`):
/// the smallest `t` with `(1 − 2δ)^t ≤ 2^−bits`, truncated as in libOTe's
/// parameter choice, then rounded up to a multiple of 8 (and at least 40).
/// `None` for a ratio outside `(0, 1/2)`.
pub fn regular_noise_weight(min_dist_ratio: f64, bits: u32) -> Option<usize> {
    if !(min_dist_ratio > 0.0 && min_dist_ratio < 0.5) {
        return None;
    }
    let per_point = -(1.0 - 2.0 * min_dist_ratio).log2();
    let t = ((f64::from(bits) / per_point) as usize).max(40);
    Some(t.div_ceil(8) * 8)
}

/// The smallest tree depth `h` with `NOISE_WEIGHT · 2^h ≥ SCALER · n`
/// (the code length `N = NOISE_WEIGHT · 2^h` is then at least five times
/// the output size): the `depth` parameter of `silent_ot.otp` for `n`
/// OTs. `None` if `n` is 0 or needs more than [`MAX_DEPTH`].
pub fn depth_for(n: usize) -> Option<usize> {
    if n == 0 {
        return None;
    }
    let need = n.checked_mul(SCALER)?;
    (1..=MAX_DEPTH).find(|&h| NOISE_WEIGHT << h >= need)
}

/// Whether `(n, depth)` is a valid parameter pair: `n ≥ 1`,
/// `1 ≤ depth ≤ MAX_DEPTH` and `NOISE_WEIGHT · 2^depth ≥ SCALER · n`.
pub fn params_valid(n: usize, depth: usize) -> bool {
    n >= 1
        && (1..=MAX_DEPTH).contains(&depth)
        && n.checked_mul(SCALER)
            .is_some_and(|need| NOISE_WEIGHT << depth >= need)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn noise_weight_follows_the_linear_test_bound() {
        assert_eq!(
            regular_noise_weight(MIN_DIST_RATIO, SECURITY_BITS),
            Some(NOISE_WEIGHT)
        );
        // The bias bound holds for the chosen weight.
        let bias_bits = -(NOISE_WEIGHT as f64) * (1.0 - 2.0 * MIN_DIST_RATIO).log2();
        assert!(bias_bits >= 128.0, "{bias_bits}");
        assert_eq!(regular_noise_weight(0.0, 128), None);
        assert_eq!(regular_noise_weight(0.5, 128), None);
        assert_eq!(regular_noise_weight(0.45, 10), Some(40));
    }

    #[test]
    fn depth_is_the_smallest_that_fits_five_times_n() {
        assert_eq!(depth_for(0), None);
        assert_eq!(depth_for(1), Some(1));
        assert_eq!(depth_for(160), Some(1)); // 800 ≥ 800
        assert_eq!(depth_for(161), Some(2));
        let d = depth_for(1 << 20).unwrap();
        assert_eq!(d, 14);
        assert!(params_valid(1 << 20, d));
        assert!(!params_valid(1 << 20, d - 1));
        assert!(!params_valid(0, 3));
        assert!(!params_valid(10, 0));
        assert!(!params_valid(10, MAX_DEPTH + 1));
        assert_eq!(depth_for(usize::MAX), None);
        assert_eq!(depth_for(NOISE_WEIGHT << MAX_DEPTH), None);
    }
}
