//! The Orlandi preprocessing's parameters `(s, d)` from a statistical
//! security level: the bound that ties the subset-check overhead `s` and
//! the leak tolerance `d` of Random Triple (Damgård and Orlandi, CRYPTO
//! 2010 \[DO10\], its Random Triple protocol; the JMN10 slides "Random
//! Triple Generation": `κM` Triple Tests, "κ > 1 is an overhead factor
//! depending on s", a random subset checked, the rest distilled) to the
//! number of outputs `m` and a level of `sec` bits
//! (`protocols/orlandi_triple.otp`, whose `Params::new` refuses
//! parameters below the level through [`sound`]).
//!
//! # The event bounded
//!
//! A run makes `P = K + k` Triple Test pairs: `K = (2d + 1)m` kept and
//! `k = sK` opened by the subset check. The coin (opened after every
//! triple is committed) picks the opened pairs by a uniform shuffle and
//! orders the kept ones, also uniformly, into `m` buckets of `2d + 1`
//! (`orlandi_prep::challenge`). A cheater *spoils* a pair when it deviates
//! in it in a way the subset check catches if the pair is opened (the check
//! recomputes the whole transcript of an opened pair), for instance the
//! deliberate overflow of a `γ` that leaks one predicate of an honest
//! party's `a`. Spoiled pairs that are kept and carry a wrong product are
//! caught by the Triple Test; what is left is leakage, and an output stays
//! private while at most `d` of its bucket's `2d + 1` triples leak. The
//! per-run failure is therefore: no spoiled pair is opened, and some bucket
//! receives at least `d + 1` spoiled triples.
//!
//! # The bound
//!
//! Let the cheater spoil `t` pairs (fixed before the coin is known: every
//! triple is committed first; see the `.otp` header for why an aborted run
//! must never be retried, which would let the choice depend on the coin).
//!
//! - *Escape.* The `k` opened pairs are a uniform `k`-subset of the `P`, so
//!   all `t` spoiled pairs are kept with probability
//!   `H(t) = C(P − t, k) / C(P, k) = ∏_{i=0}^{t−1} (K − i)/(P − i)`
//!   (`0` when `t > K`).
//! - *Bucketing.* Given that, the kept order is a uniform permutation of the
//!   `K` kept pairs. A given set of `d + 1` spoiled triples lands in one
//!   given bucket (`2d + 1` places) with probability
//!   `∏_{i=0}^{d} (2d + 1 − i)/(K − i)`; by the union bound over the `m`
//!   buckets and the `C(t, d + 1)` subsets, some bucket receives at least
//!   `d + 1` of them with probability at most
//!   `B(t) = m · C(t, d + 1) · ∏_{i=0}^{d} (2d + 1 − i)/(K − i)`
//!   (`0` for `t ≤ d`; exact at `t = d + 1`, where the buckets' events are
//!   disjoint).
//! - The cheater chooses `t` (a random `t` does no better than the best
//!   fixed one), so a run fails with probability at most
//!   `ε(s, d, m) = max_{t ≥ 1} H(t) · min(1, B(t))`.
//!
//! With `d = 0`, `B(t) = t ≥ 1` and `ε = H(1) = 1/(s + 1)`: no `s ≤ 64`
//! reaches even 7 bits, so every level of [`MIN_SEC`] or more needs
//! `d ≥ 1`. With one output (`m = 1`) the bucket is all of the kept pairs
//! and `ε = H(d + 1)`.
//!
//! # Computing it
//!
//! [`failure_log2`] works in `log2`, one factor at a time (no factorial,
//! no overflow), `t` from 1 up to `K`. It stops early when `H(t)` alone is
//! below the largest term so far: `H` decreases in `t` and every later term
//! is at most `H(t)`, so none can be larger. Because `H` at least halves at
//! each step (`(K − i)/(P − i) ≤ 1/(s + 1)`), that happens after about
//! `−log2` of the term at `t = d + 1` steps (below 300 for the protocol's
//! `m ≤ 100000`). Each floating-point step carries an error bound
//! that is added to the result, so the returned value is never below the
//! true `log2 ε` (rounded towards the larger `ε`).
//!
//! [`params_for`] picks the cheapest `(s, d)` (fewest raw triples per
//! output, `(s + 1)(2d + 1)`, then the smaller `d`) with `s ≤ 64` and
//! `d ≤ 16` that reaches the level: at 40 bits `(4, 14)` for `m = 1`,
//! `(1, 10)` for `m = 10`, `(1, 6)` for `m = 100`, `(1, 4)` for
//! `m = 1000` and `(1, 3)` for `m = 10000`.
//!
//! # Levels below 40 bits
//!
//! [`sound`] and [`params_for`] refuse levels below [`MIN_SEC`]. The cargo
//! feature `insecure-test-levels` lowers the floor to 0 bits, so that the
//! end-to-end tests can run small parameters such as `(s, d) = (1, 0)`
//! (`ε = 1/2`) quickly. It exists for this workspace's tests alone (the
//! facade enables it in its dev-dependencies only, so neither the library
//! nor the `otp` command built for use has it); the parameters must still
//! meet the level asked for, and the level is part of the session's
//! parameters, so every party sees it.
#![forbid(unsafe_code)]

/// The smallest statistical security level in bits that [`sound`] and
/// [`params_for`] accept (without the `insecure-test-levels` feature): a
/// cheater breaks the privacy of some output of a run with probability at
/// most `2^-40`.
pub const MIN_SEC: usize = 40;

/// The level the facade derives parameters at by default (bits).
pub const DEFAULT_SEC: usize = 40;

/// The largest subset-check overhead `s` the protocol accepts.
pub const MAX_S: usize = 64;

/// The largest leak tolerance `d` the protocol accepts.
pub const MAX_D: usize = 16;

/// Whether this build has the `insecure-test-levels` feature, which lowers
/// the floor of accepted levels from [`MIN_SEC`] to 0 (for tests only).
pub const INSECURE_TEST_LEVELS: bool = cfg!(feature = "insecure-test-levels");

/// The smallest level accepted in this build: [`MIN_SEC`], or 0 with the
/// `insecure-test-levels` feature.
pub const fn min_accepted_sec() -> usize {
    if INSECURE_TEST_LEVELS {
        0
    } else {
        MIN_SEC
    }
}

/// Why no parameters were derived ([`params_for`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LevelError {
    /// The level asked for is below the floor ([`MIN_SEC`] bits, unless the
    /// build has the `insecure-test-levels` feature).
    #[error("statistical security level of {sec} bits is below the floor of {min} bits")]
    BelowFloor {
        /// The level asked for, in bits.
        sec: usize,
        /// The smallest accepted level ([`min_accepted_sec`]).
        min: usize,
    },
    /// No triples asked for: `m = 0`.
    #[error("m = 0: no triples to make")]
    NoTriples,
    /// No `s <= 64`, `d <= 16` reaches the level for this `m`.
    #[error("no s <= {MAX_S}, d <= {MAX_D} reaches 2^-{sec} with m = {m}")]
    Unreachable {
        /// Triples asked for.
        m: usize,
        /// The level asked for, in bits.
        sec: usize,
    },
}

/// Relative error allowed per floating-point step: the integer-to-float
/// conversions and the division of a ratio (one rounding each), `log2`
/// (within a few ulps) and the addition to the running sum. Generous on
/// purpose: it moves the result by far less than a bit.
const SLACK: f64 = 16.0 * f64::EPSILON;

/// A sum of `log2` factors with an upper bound on its rounding error.
#[derive(Clone, Copy, Debug)]
struct Log2Sum {
    value: f64,
    err: f64,
}

impl Log2Sum {
    /// The empty product: `log2 1 = 0`.
    const ONE: Log2Sum = Log2Sum {
        value: 0.0,
        err: 0.0,
    };

    /// Multiplies by `num / den` (both non-zero).
    fn times(&mut self, num: usize, den: usize) {
        let term = (num as f64 / den as f64).log2();
        self.value += term;
        self.err += SLACK * (term.abs() + self.value.abs() + 1.0);
    }

    /// An upper bound on the exact `log2` of the product.
    fn upper(&self) -> f64 {
        self.value + self.err
    }
}

/// `K = (2d + 1)m` kept and `P = (s + 1)K` pairs, or `None` on overflow.
fn pair_counts(s: usize, d: usize, m: usize) -> Option<(usize, usize)> {
    let kept = d.checked_mul(2)?.checked_add(1)?.checked_mul(m)?;
    let all = s.checked_add(1)?.checked_mul(kept)?;
    Some((kept, all))
}

/// `log2 ε(s, d, m)`, rounded up: the `log2` of the probability that a
/// cheater spoils pairs that all escape the subset check and puts more than
/// `d` of them in one bucket (module docs: `ε = max_t H(t)·min(1, B(t))`).
/// `0` (certain failure) when there is nothing to check (`s = 0`), no
/// triple (`m = 0`) or the pair count overflows.
pub fn failure_log2(s: usize, d: usize, m: usize) -> f64 {
    let Some((kept, all)) = pair_counts(s, d, m) else {
        return 0.0;
    };
    if s == 0 || m == 0 {
        // Nothing is opened (or nothing kept): the cheater spoils every
        // pair unseen and fills a bucket.
        return 0.0;
    }
    let size = 2 * d + 1;
    // log2 of B's factor independent of t: m · ∏_{i=0}^{d} (2d+1−i)/(K−i).
    let mut bucket = Log2Sum::ONE;
    bucket.times(m, 1);
    for i in 0..=d {
        bucket.times(size - i, kept - i);
    }
    let mut escape = Log2Sum::ONE;
    // log2 C(t, d + 1), from t = d + 1 on.
    let mut subsets = Log2Sum::ONE;
    let mut best = f64::NEG_INFINITY;
    for t in 1..=kept {
        escape.times(kept - (t - 1), all - (t - 1));
        if escape.upper() < best {
            break;
        }
        if t <= d {
            continue;
        }
        if t > d + 1 {
            subsets.times(t, t - d - 1);
        }
        let b = bucket.upper() + subsets.upper();
        let term = escape.upper() + b.min(0.0);
        let term = term + SLACK * (term.abs() + 1.0);
        best = best.max(term);
    }
    best.min(0.0)
}

/// Whether `(s, d)` makes `m` triples at a level of `sec` bits: `sec` is at
/// least the floor ([`MIN_SEC`], see [`min_accepted_sec`]) and
/// `ε(s, d, m) ≤ 2^-sec` ([`failure_log2`]). The `requires` of the
/// protocol's `sec` parameter.
pub fn sound(s: usize, d: usize, m: usize, sec: usize) -> bool {
    sec >= min_accepted_sec() && s >= 1 && m >= 1 && failure_log2(s, d, m) <= -(sec as f64)
}

/// The cheapest `(s, d)` that makes `m` triples at a level of `sec` bits:
/// the fewest raw triples per output, `(s + 1)(2d + 1)` (Triple Test pairs
/// per output; each pair is two raw triples), ties to the smaller `d`, with
/// `1 ≤ s ≤ 64` and `d ≤ 16`. Errors: a level below the floor, `m = 0`,
/// or no such pair reaching the level.
pub fn params_for(m: usize, sec: usize) -> Result<(usize, usize), LevelError> {
    let min = min_accepted_sec();
    if sec < min {
        return Err(LevelError::BelowFloor { sec, min });
    }
    if m == 0 {
        return Err(LevelError::NoTriples);
    }
    let mut candidates: Vec<(usize, usize, usize)> = (1..=MAX_S)
        .flat_map(|s| (0..=MAX_D).map(move |d| ((s + 1) * (2 * d + 1), d, s)))
        .collect();
    candidates.sort_unstable();
    candidates
        .into_iter()
        .find(|&(_, d, s)| sound(s, d, m, sec))
        .map(|(_, d, s)| (s, d))
        .ok_or(LevelError::Unreachable { m, sec })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orlandi::prep::challenge;
    use crate::Block;

    /// `log2 H(t)`, directly.
    fn log2_escape(s: usize, d: usize, m: usize, t: usize) -> f64 {
        let (kept, all) = pair_counts(s, d, m).expect("small");
        if t > kept {
            return f64::NEG_INFINITY;
        }
        (0..t)
            .map(|i| ((kept - i) as f64 / (all - i) as f64).log2())
            .sum()
    }

    /// `B(t)`, directly (as a probability, small parameters only).
    fn bucket_bound(d: usize, m: usize, t: usize) -> f64 {
        let kept = (2 * d + 1) * m;
        if t <= d {
            return 0.0;
        }
        let binom: f64 = (0..=d).map(|i| (t - i) as f64 / (i + 1) as f64).product();
        let place: f64 = (0..=d)
            .map(|i| (2 * d + 1 - i) as f64 / (kept - i) as f64)
            .product();
        m as f64 * binom * place
    }

    /// `ε` by the definition, every `t` from 1 to `K`.
    fn eps_direct(s: usize, d: usize, m: usize) -> f64 {
        let kept = (2 * d + 1) * m;
        (1..=kept)
            .map(|t| log2_escape(s, d, m, t).exp2() * bucket_bound(d, m, t).min(1.0))
            .fold(0.0, f64::max)
    }

    #[test]
    fn known_values() {
        // d = 0: ε = 1/(s + 1), whatever m.
        for m in [1, 5, 100] {
            assert!((failure_log2(1, 0, m) + 1.0).abs() < 1e-9);
            assert!((failure_log2(21, 0, m) + 22f64.log2()).abs() < 1e-9);
        }
        // m = 1: ε = H(d + 1) = ∏_{i≤d} (2d+1−i)/((s+1)(2d+1)−i).
        let h: f64 = (0..2)
            .map(|i| ((3 - i) as f64 / (6 - i) as f64).log2())
            .sum();
        assert!((failure_log2(1, 1, 1) - h).abs() < 1e-9, "{h}");
        // Rounded up, never down.
        assert!(failure_log2(1, 0, 1) >= -1.0);
        // Nothing checked, nothing made.
        assert_eq!(failure_log2(0, 3, 10), 0.0);
        assert_eq!(failure_log2(4, 3, 0), 0.0);
        assert_eq!(failure_log2(usize::MAX, 3, usize::MAX), 0.0);
    }

    #[test]
    fn the_bound_matches_its_definition() {
        for s in 1..=4 {
            for d in 0..=3 {
                for m in [1, 2, 3, 7] {
                    let want = eps_direct(s, d, m).log2();
                    let got = failure_log2(s, d, m);
                    assert!(got >= want - 1e-12, "({s}, {d}, {m}): {got} < {want}");
                    assert!(got <= want + 1e-9, "({s}, {d}, {m}): {got} > {want}");
                }
            }
        }
    }

    #[test]
    fn monotone_in_s_and_d() {
        for m in [1, 10, 1000] {
            for d in 0..=MAX_D {
                for s in 1..MAX_S {
                    assert!(
                        failure_log2(s + 1, d, m) <= failure_log2(s, d, m),
                        "s: {s} {d} {m}"
                    );
                }
            }
            for s in 1..=MAX_S {
                for d in 0..MAX_D {
                    assert!(
                        failure_log2(s, d + 1, m) <= failure_log2(s, d, m),
                        "d: {s} {d} {m}"
                    );
                }
            }
        }
    }

    #[test]
    fn derived_parameters_at_40_bits() {
        assert_eq!(params_for(1, 40), Ok((4, 14)));
        assert_eq!(params_for(10, 40), Ok((1, 10)));
        assert_eq!(params_for(30, 40), Ok((1, 7)));
        assert_eq!(params_for(100, 40), Ok((1, 6)));
        assert_eq!(params_for(1000, 40), Ok((1, 4)));
        assert_eq!(params_for(10000, 40), Ok((1, 3)));
        assert_eq!(params_for(100000, 40), Ok((1, 3)));
        for m in [1, 2, 3, 10, 30, 100, 1000, 10000] {
            let (s, d) = params_for(m, 40).expect("reachable");
            assert!(sound(s, d, m, 40));
            assert!(failure_log2(s, d, m) <= -40.0);
            // Nothing cheaper is sound.
            let cost = (s + 1) * (2 * d + 1);
            for s2 in 1..=MAX_S {
                for d2 in 0..=MAX_D {
                    let c2 = (s2 + 1) * (2 * d2 + 1);
                    if c2 < cost || (c2 == cost && d2 < d) {
                        assert!(
                            !sound(s2, d2, m, 40),
                            "({s2}, {d2}) beats ({s}, {d}) at m = {m}"
                        );
                    }
                }
            }
        }
        // Higher levels cost more, and some are out of reach.
        let (s, d) = params_for(1, 80).expect("reachable");
        assert!((s + 1) * (2 * d + 1) > 145);
        assert_eq!(
            params_for(1, 200),
            Err(LevelError::Unreachable { m: 1, sec: 200 })
        );
        assert_eq!(params_for(0, 40), Err(LevelError::NoTriples));
    }

    #[test]
    fn levels_below_the_floor() {
        if INSECURE_TEST_LEVELS {
            assert_eq!(min_accepted_sec(), 0);
            assert!(sound(1, 0, 3, 0));
            assert_eq!(params_for(3, 0), Ok((1, 0)));
            assert!(!sound(1, 0, 3, 1), "1/2, rounded up, is not below 2^-1");
        } else {
            assert_eq!(min_accepted_sec(), MIN_SEC);
            for sec in [0, 1, 39] {
                assert!(!sound(64, 16, 1000, sec), "{sec}");
                assert_eq!(
                    params_for(10, sec),
                    Err(LevelError::BelowFloor { sec, min: 40 })
                );
            }
            assert!(!sound(1, 0, 3, 0));
        }
        assert!(sound(64, 16, 1000, 40));
        assert!(!sound(1, 0, 1, 40));
        assert!(!sound(0, 16, 1, 40));
    }

    /// All `k`-subsets of `0..n` as bit masks.
    fn subsets(n: usize, k: usize) -> Vec<u32> {
        (0u32..1 << n)
            .filter(|x| x.count_ones() as usize == k)
            .collect()
    }

    /// All permutations of `0..n`.
    fn permutations(n: usize) -> Vec<Vec<usize>> {
        if n == 0 {
            return vec![Vec::new()];
        }
        let mut out = Vec::new();
        for p in permutations(n - 1) {
            for pos in 0..=p.len() {
                let mut q = p.clone();
                q.insert(pos, n - 1);
                out.push(q);
            }
        }
        out
    }

    #[test]
    fn escape_and_bucketing_by_exact_enumeration() {
        // H(t): the fraction of k-subsets of the P pairs that miss the t
        // spoiled ones (pairs 0..t), for every t.
        for (s, d, m) in [(1, 0, 3), (1, 1, 2), (2, 1, 1), (3, 0, 4), (1, 2, 1)] {
            let (kept, all) = pair_counts(s, d, m).unwrap();
            let opened = subsets(all, all - kept);
            for t in 1..=kept + 1 {
                let spoiled = (1u32 << t) - 1;
                let miss = opened.iter().filter(|&&o| o & spoiled == 0).count();
                let exact = miss as f64 / opened.len() as f64;
                let h = log2_escape(s, d, m, t).exp2();
                assert!((exact - h).abs() < 1e-12, "H({t}) at ({s}, {d}, {m})");
            }
        }
        // B(t): over all orders of the K kept pairs (bucket q is places
        // q(2d+1)..(q+1)(2d+1)), the fraction where some bucket holds more
        // than d of the spoiled pairs 0..t; at most B(t), and equal to it
        // at t = d + 1.
        for (d, m) in [(0, 4), (1, 2), (1, 3), (2, 1), (3, 1)] {
            let size = 2 * d + 1;
            let kept = size * m;
            let orders = permutations(kept);
            for t in 1..=kept {
                let bad = orders
                    .iter()
                    .filter(|p| {
                        p.chunks(size)
                            .any(|b| b.iter().filter(|&&x| x < t).count() > d)
                    })
                    .count();
                let exact = bad as f64 / orders.len() as f64;
                let b = bucket_bound(d, m, t);
                assert!(exact <= b + 1e-12, "B({t}) at ({d}, {m}): {exact} > {b}");
                if t == d + 1 {
                    assert!((exact - b).abs() < 1e-12, "B({t}) exact at ({d}, {m})");
                }
            }
        }
    }

    #[test]
    fn the_protocols_challenge_meets_the_bound() {
        // The real challenge (orlandi_prep::challenge) over many coins: the
        // cheater spoils t pairs; the run fails when none is opened and some
        // bucket of kept pairs holds more than d. Its frequency stays below
        // ε (with a margin for sampling: 4000 runs).
        let session = Block::from_u64s(7, 8);
        for (s, d, m, t) in [(1, 0, 2, 1), (1, 1, 2, 2), (1, 1, 1, 2), (2, 1, 2, 3)] {
            let (kept, _) = pair_counts(s, d, m).unwrap();
            let runs = 4000u64;
            let mut fail = 0u64;
            let mut escape = 0u64;
            for r in 0..runs {
                let ch = challenge(session, Block::from_u64s(r, 1), kept, s * kept);
                if ch.opened().iter().any(|&p| p < t) {
                    continue;
                }
                escape += 1;
                if ch
                    .kept()
                    .chunks(2 * d + 1)
                    .any(|b| b.iter().filter(|&&p| p < t).count() > d)
                {
                    fail += 1;
                }
            }
            let h = log2_escape(s, d, m, t).exp2();
            let freq = escape as f64 / runs as f64;
            // Four standard deviations of a binomial frequency.
            let sd = (h * (1.0 - h) / runs as f64).sqrt();
            assert!((freq - h).abs() <= 4.0 * sd + 1e-9, "H({t}): {freq} vs {h}");
            let eps = failure_log2(s, d, m).exp2();
            let sd = (eps * (1.0 - eps) / runs as f64).sqrt();
            let f = fail as f64 / runs as f64;
            assert!(f <= eps + 4.0 * sd, "({s}, {d}, {m}, {t}): {f} > {eps}");
        }
    }
}
