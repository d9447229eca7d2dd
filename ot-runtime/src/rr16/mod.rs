//! The RR16 family (`protocols/rr16.otp`), one module: the kernels of the
//! cut-and-choose approximate K-out-of-N OT, in a folder like every other
//! protocol family's kernels.
//!
//! Kernels of the approximate K-out-of-N OT of \[RR16\] (Rindal, Rosulek,
//! "Improved Private Set Intersection against Malicious Adversaries",
//! EUROCRYPT 2017, eprint 2016/746, §4: the cut-and-choose over random OTs
//! of the malicious PSI protocol): the receiver's choice bits, the
//! sender's checked set, the opening and its check, the receiver's
//! assignment of the unopened OTs to the N messages and its check, and the
//! parameter bounds. The protocol flow is `protocols/rr16.otp`.
//!
//! Sizes: `total` random OTs, `checked` of them opened, at most
//! `threshold` ones allowed among the opened. The honest receiver picks
//! exactly `k + threshold` ones, so passing the check leaves it at least
//! `k` unopened ones; `total = n + checked + threshold` leaves it at least
//! `n - k` unopened zeros. The number of ones `X` in the checked set is
//! hypergeometric; [`sizes_sound`] bounds, exactly up to floating-point
//! error (with a conservative fallback), both the honest receiver's failure
//! probability and the probability that a cheating receiver passes and
//! still holds more than [`max_learned`] unopened ones.
#![forbid(unsafe_code)]

use crate::primitives::prg::Prg;
use crate::{Bits, Block};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Domain label of the checked-set derivation ([`checked_set`]).
const CHECKED_DOMAIN: &[u8] = b"ot-runtime/rr16/checked-set/v1";

/// Largest statistical security parameter accepted.
pub const MAX_STAT: usize = 128;

/// Smallest statistical security parameter accepted: a cheating receiver
/// learns more than [`max_learned`] messages, or an honest one aborts,
/// with probability up to `2^-stat`, and below `2^-40` that is no longer a
/// negligible event over a deployment's many runs.
pub const MIN_STAT: usize = 40;

/// `ln(n!)`: exact sum below 32, Stirling's series (error below 1e-13)
/// above.
fn ln_factorial(n: u64) -> f64 {
    if n < 32 {
        return (2..=n).map(|i| (i as f64).ln()).sum();
    }
    let x = n as f64;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x)
        - 1.0 / (360.0 * x * x * x)
        + 1.0 / (1260.0 * x.powi(5))
}

/// `ln C(a, b)` (`b <= a`).
fn ln_choose(a: u64, b: u64) -> f64 {
    ln_factorial(a) - ln_factorial(b) - ln_factorial(a - b)
}

/// `ln Pr[X = x]` for `X` hypergeometric: `draws` of `pop` items, `good`
/// of them marked; `None` outside the support.
fn ln_hyper(pop: u64, good: u64, draws: u64, x: u64) -> Option<f64> {
    if x > good || x > draws || draws - x > pop - good {
        return None;
    }
    Some(ln_choose(good, x) + ln_choose(pop - good, draws - x) - ln_choose(pop, draws))
}

/// Relative size below which further tail terms are dropped.
const TAIL_CUTOFF: f64 = -80.0;

/// `log2 Pr[X > theta]` (`upper`) or `log2 Pr[X <= theta]` (`!upper`),
/// summed from `theta` away from the mode while the terms fall; when
/// `theta` is on the wrong side of the mode the tail is not small and `0`
/// (probability 1) is returned, which only ever makes the bound weaker.
fn log2_tail(pop: u64, good: u64, draws: u64, theta: u64, upper: bool) -> f64 {
    if good > pop || draws > pop {
        return 0.0;
    }
    // Mode of the hypergeometric distribution.
    let mode = ((draws + 1) as f64 * (good + 1) as f64 / (pop + 2) as f64).floor() as u64;
    let lo = draws.saturating_sub(pop - good);
    let hi = good.min(draws);
    let (mut x, end) = if upper {
        if theta >= hi {
            return f64::NEG_INFINITY;
        }
        if theta < mode {
            return 0.0;
        }
        (theta + 1, hi)
    } else {
        if theta < lo {
            return f64::NEG_INFINITY;
        }
        if theta >= mode {
            return 0.0;
        }
        (theta, lo)
    };
    let Some(first) = ln_hyper(pop, good, draws, x) else {
        return 0.0;
    };
    // Sum exp(term - first) with the ratio recurrence of neighbouring terms.
    let (mut rel, mut sum) = (0.0f64, 1.0f64);
    loop {
        if x == end || rel < TAIL_CUTOFF {
            break;
        }
        let (g, d, b) = (good as f64, draws as f64, (pop - good) as f64);
        let xf = x as f64;
        rel += if upper {
            ((g - xf) * (d - xf) / ((xf + 1.0) * (b - d + xf + 1.0))).ln()
        } else {
            (xf * (b - d + xf) / ((g - xf + 1.0) * (d - xf + 1.0))).ln()
        };
        x = if upper { x + 1 } else { x - 1 };
        sum += rel.exp();
    }
    ((first + sum.ln()) / std::f64::consts::LN_2).min(0.0)
}

/// The largest number of unopened ones a cheating receiver can hold with
/// probability above `2^-stat` of passing the check (`total` OTs, `checked`
/// opened, at most `threshold` ones accepted among them). A receiver with
/// `T` ones passes and keeps more than `K'` iff `X <= min(threshold,
/// T - K' - 1)`, most likely at `T = K' + threshold + 1`; the result is the
/// least `K'` for which that probability is at most `2^-stat`.
pub fn max_learned(total: usize, checked: usize, threshold: usize, stat: usize) -> usize {
    let (t, c, th) = (total as u64, checked as u64, threshold as u64);
    let bad = |kp: u64| {
        let ones = kp + th + 1;
        ones <= t && log2_tail(t, ones, c, th, false) > -(stat as f64)
    };
    // Least K' in [0, total] with !bad(K') (bad is monotone: more ones
    // make passing less likely).
    least_passing(0, t, bad) as usize
}

/// The least `x` in `lo..=hi` with `!fails(x)`, for `fails` true below
/// some point and false from it on (`hi` if none passes earlier).
fn least_passing(mut lo: u64, mut hi: u64, fails: impl Fn(u64) -> bool) -> u64 {
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if fails(mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `log2` of the honest receiver's failure probability: more than
/// `threshold` of its `k + threshold` ones in the checked set.
pub fn log2_honest_failure(k: usize, total: usize, checked: usize, threshold: usize) -> f64 {
    log2_tail(
        total as u64,
        (k + threshold) as u64,
        checked as u64,
        threshold as u64,
        true,
    )
}

/// Whether the sizes are consistent and sound for `n` messages of which
/// the honest receiver chooses up to `k`, at statistical security `stat`:
/// `total = n + checked + threshold < 2^32`, the honest receiver fails with
/// probability at most `2^-stat`, and a cheating receiver is held below
/// `n` messages ([`max_learned`] `< n`) except with probability `2^-stat`.
pub fn sizes_sound(
    n: usize,
    k: usize,
    stat: usize,
    total: usize,
    checked: usize,
    threshold: usize,
) -> bool {
    let consistent = n
        .checked_add(checked)
        .and_then(|v| v.checked_add(threshold))
        == Some(total);
    // Indices are kept as u32 by the sampling kernels.
    consistent
        && total <= u32::MAX as usize
        && k <= n
        && (MIN_STAT..=MAX_STAT).contains(&stat)
        && log2_honest_failure(k, total, checked, threshold) <= -(stat as f64)
        && max_learned(total, checked, threshold, stat) < n
}

/// Sizes of one RR16 run, from [`sizes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sizes {
    /// Random OTs run (`n + checked + threshold`).
    pub total: usize,
    /// OTs opened by the cut-and-choose.
    pub checked: usize,
    /// Most ones accepted among the opened OTs.
    pub threshold: usize,
    /// Most messages a cheating receiver learns, except with probability
    /// `2^-stat` ([`max_learned`]).
    pub max_learned: usize,
}

/// Why [`sizes`] found no parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SizesError {
    /// `n` is zero or `k` is zero or larger than `n`.
    BadCounts,
    /// `stat` is below [`MIN_STAT`] or above [`MAX_STAT`].
    BadStat,
    /// No checked fraction keeps a cheating receiver below `n` messages:
    /// `k` is too close to `n` for this `stat`.
    NoSoundSizes,
    /// `n` is so large that `total` would not stay below `2^32` (the
    /// sampling kernels keep indices as `u32`).
    TooLarge,
}

impl std::fmt::Display for SizesError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SizesError::BadCounts => "rr16: need 1 <= k <= n",
            SizesError::BadStat => "rr16: need 40 <= stat <= 128 (the statistical security in bits)",
            SizesError::NoSoundSizes => {
                "rr16: k is too close to n: no cut-and-choose keeps a cheating receiver below n messages"
            }
            SizesError::TooLarge => "rr16: n too large: the total number of OTs must stay below 2^32",
        })
    }
}

impl std::error::Error for SizesError {}

/// Checked fractions tried by [`sizes`], in 1/64ths.
const FRACTIONS: [u64; 7] = [4, 6, 8, 12, 16, 24, 32];

/// Sizes for `n` messages, `k` chosen, statistical security `stat`: for
/// each checked fraction `f` (1/16 .. 1/2) the least `threshold` with an
/// honest failure below `2^-stat`, `total = ceil((n + threshold) / (1 -
/// f))`; the smallest fraction whose bound [`max_learned`] is at most
/// `max(2k, k + stat)` and below `n` is taken (a factor-2 approximation,
/// what the PSI application needs), else the fraction with the tightest
/// bound below `n`.
pub fn sizes(n: usize, k: usize, stat: usize) -> Result<Sizes, SizesError> {
    if n == 0 || k == 0 || k > n {
        return Err(SizesError::BadCounts);
    }
    if !(MIN_STAT..=MAX_STAT).contains(&stat) {
        return Err(SizesError::BadStat);
    }
    if n > u32::MAX as usize {
        return Err(SizesError::TooLarge);
    }
    let mut best: Option<Sizes> = None;
    for f in FRACTIONS {
        // Checked arithmetic (in u128, n < 2^32 and th below 2^35): a
        // total that would not fit is `usize::MAX`, which no layout passes.
        let layout = |th: usize| {
            let total = ((n as u128 + th as u128) * 64).div_ceil(u128::from(64 - f));
            let total = usize::try_from(total).unwrap_or(usize::MAX);
            (total, total.saturating_sub(n).saturating_sub(th))
        };
        let fails = |th: usize| {
            let (total, checked) = layout(th);
            total > u32::MAX as usize || log2_honest_failure(k, total, checked, th) > -(stat as f64)
        };
        // Doubling then bisection for the least passing threshold.
        let mut hi = 1usize;
        while fails(hi) {
            hi *= 2;
            if hi > 4 * n + 64 * stat + 64 {
                break;
            }
        }
        if fails(hi) {
            continue;
        }
        let lo = least_passing(0, hi as u64, |th| fails(th as usize)) as usize;
        let (total, checked) = layout(lo);
        let s = Sizes {
            total,
            checked,
            threshold: lo,
            max_learned: max_learned(total, checked, lo, stat),
        };
        if s.max_learned >= n {
            continue;
        }
        if s.max_learned <= (2 * k).max(k + stat) {
            return Ok(s);
        }
        if best.is_none_or(|b| s.max_learned < b.max_learned) {
            best = Some(s);
        }
    }
    best.ok_or(SizesError::NoSoundSizes)
}

/// Whether `choices` has at most `k` ones (the honest receiver's input).
pub fn at_most_ones(choices: &Bits, k: usize) -> bool {
    choices.count_ones() <= k
}

/// The receiver's choice bits: exactly `ones` of `total` set, at positions
/// uniform given `seed` (a partial Fisher–Yates shuffle driven by AES-CTR
/// under `seed`). `ones > total` sets every bit.
pub fn choice_bits(seed: Block, total: usize, ones: usize) -> Bits {
    let mut draws = Draws::new(seed);
    let mut bits = Bits::zeros(total);
    let picked = sample_distinct(&mut draws, total, ones.min(total));
    for i in picked {
        bits.set(i, true);
    }
    bits
}

/// 64-bit draws from AES-CTR, 64 blocks (128 draws) per refill.
struct Draws {
    prg: Prg,
    buf: [Block; 64],
    pos: usize,
}

impl Draws {
    fn new(seed: Block) -> Draws {
        Draws {
            prg: Prg::new(seed),
            buf: [Block::ZERO; 64],
            pos: 128,
        }
    }

    fn next_u64(&mut self) -> u64 {
        if self.pos == 128 {
            self.prg.fill(&mut self.buf);
            self.pos = 0;
        }
        let b = self.buf[self.pos / 2].as_u128();
        self.pos += 1;
        (b >> (64 * (self.pos & 1))) as u64
    }

    /// Uniform integer below `bound` (> 0): Lemire's multiply-and-shift
    /// with rejection (a division only in the rare rejection branch).
    fn below(&mut self, bound: u64) -> u64 {
        let mut m = u128::from(self.next_u64()) * u128::from(bound);
        if (m as u64) < bound {
            let floor = bound.wrapping_neg() % bound;
            while (m as u64) < floor {
                m = u128::from(self.next_u64()) * u128::from(bound);
            }
        }
        (m >> 64) as u64
    }
}

/// `count` distinct indices below `total`, uniform (Floyd's algorithm when
/// sparse, a partial shuffle when dense).
fn sample_distinct(draws: &mut Draws, total: usize, count: usize) -> Vec<usize> {
    if count * 4 < total {
        let mut seen = std::collections::HashSet::with_capacity(count * 2);
        let mut out = Vec::with_capacity(count);
        for j in total - count..total {
            let r = draws.below(j as u64 + 1) as usize;
            let v = if seen.insert(r) { r } else { j };
            if v == j {
                seen.insert(j);
            }
            out.push(v);
        }
        out
    } else {
        // u32 indices halve the memory the random swaps touch.
        let mut idx: Vec<u32> = (0..total as u32).collect();
        for i in 0..count {
            let j = i + draws.below((total - i) as u64) as usize;
            idx.swap(i, j);
        }
        idx[..count].iter().map(|&i| i as usize).collect()
    }
}

/// The checked set: `checked` distinct OT indices below `total`, uniform
/// given the sender's `seed`, sorted. The PRG key is SHA-256 over the
/// domain label `"ot-runtime/rr16/checked-set/v1"`, the seed and the sizes.
pub fn checked_set(seed: Block, total: usize, checked: usize) -> Vec<u64> {
    let mut h = Sha256::new();
    h.update([CHECKED_DOMAIN.len() as u8]);
    h.update(CHECKED_DOMAIN);
    h.update(seed.to_bytes());
    h.update((total as u64).to_le_bytes());
    h.update((checked as u64).to_le_bytes());
    let d = h.finalize();
    let mut key = [0u8; 16];
    key.copy_from_slice(&d[..16]);
    let mut draws = Draws::new(Block::from_bytes(key));
    let mut set: Vec<u64> = sample_distinct(&mut draws, total, checked.min(total))
        .into_iter()
        .map(|i| i as u64)
        .collect();
    set.sort_unstable();
    set
}

/// The receiver's choice bits at the checked indices.
pub fn open_bits(bits: &Bits, set: &[u64]) -> Bits {
    let mut out = Bits::zeros(set.len());
    for (j, &i) in set.iter().enumerate() {
        out.set(j, bits.try_get(i as usize).unwrap_or(false));
    }
    out
}

/// The receiver's proof for the opened zeros: the XOR of its OT outputs
/// `m_{i,0}` over the checked `i` with `b_i = 0` (only a receiver that
/// chose 0 there knows them).
pub fn open_proof(chosen: &[Block], bits: &Bits, set: &[u64]) -> Block {
    set.iter()
        .filter(|&&i| !bits.try_get(i as usize).unwrap_or(true))
        .filter_map(|&i| chosen.get(i as usize))
        .fold(Block::ZERO, |acc, &m| acc ^ m)
}

/// Sender: the opening is well formed and the proof equals the XOR of
/// `m_{i,0}` over the checked `i` claimed 0 (constant-time comparison).
pub fn opening_valid(messages: &[[Block; 2]], set: &[u64], opened: &Bits, proof: Block) -> bool {
    if opened.len() != set.len() || set.iter().any(|&i| i as usize >= messages.len()) {
        return false;
    }
    let expect = set
        .iter()
        .zip(opened.iter())
        .filter(|(_, b)| !b)
        .fold(Block::ZERO, |acc, (&i, _)| acc ^ messages[i as usize][0]);
    bool::from(expect.to_bytes().ct_eq(&proof.to_bytes()))
}

/// The unopened OT indices with choice bit `bit`, in increasing order.
fn unopened_with(bits: &Bits, set: &[u64], bit: bool) -> Vec<u32> {
    let mut opened = set.iter().peekable();
    let mut out = Vec::new();
    for i in 0..bits.len() {
        if opened.peek().is_some_and(|&&o| o as usize == i) {
            opened.next();
            continue;
        }
        if bits.get(i) == bit {
            out.push(i as u32);
        }
    }
    out
}

/// Whether the unopened OTs hold enough ones for the chosen positions and
/// enough zeros for the others (fails for an honest receiver with
/// probability at most `2^-stat`).
pub fn assignable(bits: &Bits, set: &[u64], choices: &Bits) -> bool {
    let want = choices.count_ones();
    unopened_with(bits, set, true).len() >= want
        && unopened_with(bits, set, false).len() >= choices.len() - want
}

/// Entries per bucket of [`shuffle`] (128 KiB of `u32`: cache-resident).
const BUCKET: usize = 1 << 15;

/// A uniformly random permutation of `v` by the Rao–Sandelius method:
/// each entry goes to a uniform random bucket, each bucket is shuffled by
/// Fisher–Yates, and the buckets are concatenated. Conditioned on the
/// bucket sizes the partition is uniform and so is each bucket's order,
/// hence the whole; its random accesses stay within a bucket.
fn shuffle(draws: &mut Draws, v: Vec<u32>) -> Vec<u32> {
    let buckets = v.len().div_ceil(BUCKET).max(1);
    let mut parts: Vec<Vec<u32>> = (0..buckets)
        .map(|_| Vec::with_capacity(v.len() / buckets + v.len() / buckets / 8 + 16))
        .collect();
    for x in v {
        parts[draws.below(buckets as u64) as usize].push(x);
    }
    let mut out = Vec::with_capacity(parts.iter().map(Vec::len).sum());
    for mut part in parts {
        for i in (1..part.len()).rev() {
            let j = draws.below(i as u64 + 1) as usize;
            part.swap(i, j);
        }
        out.extend_from_slice(&part);
    }
    out
}

/// The receiver's injection of the `n` positions into the unopened OTs:
/// chosen positions to OTs with choice 1, the others to OTs with choice 0,
/// taken in order from a uniform shuffle of each pool (`shuffle`, PRG
/// under `seed`), so the map is a uniform injection into the unopened OTs
/// whatever the choices. Positions that cannot be served get index
/// `u64::MAX` (see [`assignable`]).
pub fn assign(bits: &Bits, set: &[u64], choices: &Bits, seed: Block) -> Vec<u64> {
    let mut draws = Draws::new(seed);
    let zeros = shuffle(&mut draws, unopened_with(bits, set, false));
    let ones = shuffle(&mut draws, unopened_with(bits, set, true));
    let mut next = [zeros.into_iter(), ones.into_iter()];
    choices
        .iter()
        .map(|c| next[usize::from(c)].next().map_or(u64::MAX, u64::from))
        .collect()
}

/// Sender: the map is injective into the OTs below `total` and avoids the
/// checked set.
pub fn assignment_valid(perm: &[u64], set: &[u64], total: usize) -> bool {
    let mut used = Bits::zeros(total);
    for &i in set {
        match used.try_get(i as usize) {
            Some(false) => used.set(i as usize, true),
            _ => return false,
        }
    }
    for &i in perm {
        match used.try_get(i as usize) {
            Some(false) => used.set(i as usize, true),
            _ => return false,
        }
    }
    true
}

/// Sender's messages: `m_{perm[j], 1}` for each position `j` (zero for an
/// index out of range; the sender checks the map first).
pub fn sender_messages(messages: &[[Block; 2]], perm: &[u64]) -> Vec<Block> {
    perm.iter()
        .map(|&i| messages.get(i as usize).map_or(Block::ZERO, |m| m[1]))
        .collect()
}

/// Receiver's values: its OT output at `perm[j]` for the chosen positions,
/// zero elsewhere.
pub fn receiver_values(chosen: &[Block], perm: &[u64], choices: &Bits) -> Vec<Block> {
    perm.iter()
        .zip(choices.iter())
        .map(|(&i, c)| match (c, chosen.get(i as usize)) {
            (true, Some(&m)) => m,
            _ => Block::ZERO,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Exact hypergeometric tail by direct summation (small sizes).
    fn exact_tail(pop: u64, good: u64, draws: u64, theta: u64, upper: bool) -> f64 {
        let p: f64 = (0..=draws)
            .filter(|&x| if upper { x > theta } else { x <= theta })
            .filter_map(|x| ln_hyper(pop, good, draws, x))
            .map(f64::exp)
            .sum();
        p.log2()
    }

    #[test]
    fn tails_match_direct_sums() {
        for (pop, good, draws, theta) in [
            (200u64, 60u64, 50u64, 25u64),
            (500, 100, 80, 30),
            (1000, 300, 100, 5),
        ] {
            for upper in [true, false] {
                let got = log2_tail(pop, good, draws, theta, upper);
                let want = exact_tail(pop, good, draws, theta, upper);
                if got < 0.0 {
                    assert!(
                        (got - want).abs() < 1e-6,
                        "{pop} {good} {draws} {theta} {upper}: {got} vs {want}"
                    );
                } else {
                    assert!(want > -3.0, "fallback only near the mode");
                }
            }
        }
    }

    #[test]
    fn sizes_are_sound_and_tight_enough() {
        for (n, k) in [
            (1000usize, 100usize),
            (1 << 16, 1 << 12),
            (1 << 20, 1 << 10),
        ] {
            let s = sizes(n, k, 40).unwrap();
            assert!(
                sizes_sound(n, k, 40, s.total, s.checked, s.threshold),
                "{s:?}"
            );
            assert!(s.max_learned >= k && s.max_learned < n, "{s:?}");
            // One less threshold makes the honest receiver fail too often.
            if s.threshold > 0 {
                assert!(!sizes_sound(
                    n,
                    k,
                    40,
                    s.total - 1,
                    s.checked,
                    s.threshold - 1
                ));
            }
        }
        assert_eq!(sizes(10, 11, 40), Err(SizesError::BadCounts));
        assert_eq!(sizes(10, 0, 40), Err(SizesError::BadCounts));
        assert_eq!(sizes(10, 5, 0), Err(SizesError::BadStat));
        assert_eq!(sizes(1000, 100, 39), Err(SizesError::BadStat));
        assert_eq!(sizes(10, 10, 40), Err(SizesError::NoSoundSizes));
    }

    #[test]
    fn bounded_draws_stay_in_range_and_cover_it() {
        let mut d = Draws::new(Block(11));
        let mut seen = [0usize; 7];
        for _ in 0..7000 {
            seen[d.below(7) as usize] += 1;
        }
        assert!(seen.iter().all(|&c| c > 800 && c < 1200), "{seen:?}");
        assert_eq!(d.below(1), 0);
    }

    #[test]
    fn shuffle_is_a_permutation_and_moves_entries() {
        let mut d = Draws::new(Block(12));
        let v: Vec<u32> = (0..(3 * BUCKET as u32 + 5)).collect();
        let mut w = shuffle(&mut d, v.clone());
        assert_ne!(w, v);
        w.sort_unstable();
        assert_eq!(w, v);
        // Small inputs: every position of 3 entries is reached.
        let mut firsts = [0usize; 3];
        for _ in 0..300 {
            firsts[shuffle(&mut d, vec![0, 1, 2])[0] as usize] += 1;
        }
        assert!(firsts.iter().all(|&c| c > 60), "{firsts:?}");
    }

    #[test]
    fn choice_bits_and_sets_have_exact_counts() {
        let b = choice_bits(Block(7), 1000, 300);
        assert_eq!(b.count_ones(), 300);
        let s = checked_set(Block(9), 1000, 100);
        assert_eq!(s.len(), 100);
        assert!(s.windows(2).all(|w| w[0] < w[1]) && s[99] < 1000);
        let dense = checked_set(Block(9), 100, 90);
        assert_eq!(dense.len(), 90);
    }

    #[test]
    fn assignment_is_valid_and_serves_choices() {
        let (total, n) = (400usize, 200usize);
        let bits = choice_bits(Block(1), total, 150);
        let set = checked_set(Block(2), total, 40);
        let mut choices = Bits::zeros(n);
        for i in (0..n).step_by(3) {
            choices.set(i, true);
        }
        assert!(assignable(&bits, &set, &choices));
        let perm = assign(&bits, &set, &choices, Block(3));
        assert!(assignment_valid(&perm, &set, total));
        for (j, &i) in perm.iter().enumerate() {
            assert_eq!(bits.get(i as usize), choices.get(j));
        }
        let mut dup = perm.clone();
        dup[1] = dup[0];
        assert!(!assignment_valid(&dup, &set, total));
        let mut opened = perm.clone();
        opened[0] = set[0];
        assert!(!assignment_valid(&opened, &set, total));
    }

    #[test]
    fn opening_proof_checks_zeros() {
        let total = 64;
        let msgs: Vec<[Block; 2]> = (0..total as u128)
            .map(|i| [Block(2 * i + 1), Block(2 * i + 2)])
            .collect();
        let bits = choice_bits(Block(5), total, 20);
        let chosen: Vec<Block> = (0..total)
            .map(|i| msgs[i][usize::from(bits.get(i))])
            .collect();
        let set = checked_set(Block(6), total, 16);
        let opened = open_bits(&bits, &set);
        let proof = open_proof(&chosen, &bits, &set);
        assert!(opening_valid(&msgs, &set, &opened, proof));
        // Claiming a one as a zero: the receiver does not know m_{i,0}.
        if let Some(j) = (0..set.len()).find(|&j| opened.get(j)) {
            let mut lie = opened.clone();
            lie.set(j, false);
            let forged = proof ^ chosen[set[j] as usize];
            assert!(!opening_valid(&msgs, &set, &lie, forged));
        }
    }
}
