//! The malicious consistency checks' kernels, timed alone (included by
//! `ot_table` with `#[path = "common/checks.rs"] mod checks;`): per side,
//! one thread, the runtime functions the generated code calls for the
//! check, on buffers of the shape a run of the row hands them. Beside the
//! time, the number of GF(2^128) multiply-adds the check needs by its
//! definition, so that `ot_table` can print the time against the
//! multiply-add rate it measures in the same run.

use ot::runtime::oprf::code::LinearCode;
use ot::runtime::oprf::{oos_rows_consistent, word_row_check, Word};
use ot::runtime::otext::consistency::{
    kos_challenge_key, kos_choice_check, kos_row_check, kos_rows_consistent,
};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::silent::{ferret, ferret_check};
use ot::runtime::{Bits, Block};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Rows of the KOS / SoftSpokenOT extension matrix, data columns per
/// challenge `χ_j` (one 128-column piece per row and challenge).
const ROWS: usize = 128;

/// Rows of the KKRT / OOS matrix.
const WORD_ROWS: usize = 512;

/// Padding columns (KOS, SoftSpokenOT, OOS) and extra base COTs (Ferret)
/// of the checks.
const EXTRA: usize = 128;

/// The check a malicious row runs, by the shape of its kernels' input.
#[derive(Clone, Debug, PartialEq)]
pub enum Check {
    /// The row-wise KOS check (`kos.otp`, and every protocol that extends
    /// it or copies its rounds: Delta-KOS, chosen-message KOS, KOS extend,
    /// malicious SoftSpokenOT and its Delta-OT) over `m` data columns plus
    /// 128 padding columns. Sender: `kos_challenge_key`, `kos_row_check`
    /// of its columns `q`, `kos_rows_consistent`; receiver:
    /// `kos_challenge_key`, `kos_choice_check`, `kos_row_check` of `t`.
    Kos { m: usize },
    /// OOS's row-wise check (`oos.otp`) over `m` instances: sender
    /// `word_row_check` of its 512-row columns and `oos_rows_consistent`;
    /// receiver `kos_row_check` of its padded messages and
    /// `word_row_check` of its own 512-row columns.
    Oos { m: usize },
    /// Ferret's check (`ferret_extend_malicious.otp`), per batch
    /// `(trees, depth)` of the run: both sides sum `χ_i · leaf_i` over the
    /// batch's `trees << depth` leaves (`ferret_check::weighted_sum`; the
    /// receiver's runs inside its tree pass, on leaves still in cache,
    /// timed here on leaves from memory like the sender's), the receiver
    /// adds `χ` at its noise positions (`ferret::noise_chi_sum`) and both
    /// pack 128 extra COTs; plus the KOS-style check of the set-up's
    /// malicious SoftSpokenOT over `setup` COTs.
    Ferret {
        batches: Vec<(usize, usize)>,
        setup: usize,
    },
}

/// One check's kernels, measured: `[sender, receiver]`.
#[derive(Clone, Copy, Debug)]
pub struct Cost {
    /// The best pass's time of each side's kernels.
    pub time: [Duration; 2],
    /// GF(2^128) multiply-adds by the check's definition.
    pub mul_adds: [u64; 2],
}

impl Check {
    /// GF(2^128) multiply-adds `[sender, receiver]` the check needs by its
    /// definition: per row of the matrix one per challenge `χ_j`, i.e. per
    /// 128-column piece (`D = ceil(m / 128)` of them): `128 D` for a
    /// 128-row matrix (one per OT), `512 D` for OOS's 512-row matrix; the
    /// receiver's choice hash (KOS) `D` more; Ferret one per leaf per side
    /// plus the 128 extra COTs each side packs (`Σ_j a_j · X^j`) and the
    /// sender's `x' · Δ`.
    pub fn mul_adds(&self) -> [u64; 2] {
        let pieces = |m: usize| m.div_ceil(ROWS) as u64;
        match self {
            Check::Kos { m } => {
                let d = pieces(*m);
                [ROWS as u64 * d, ROWS as u64 * d + d]
            }
            Check::Oos { m } => {
                let d = pieces(*m);
                [WORD_ROWS as u64 * d, (ROWS + WORD_ROWS) as u64 * d]
            }
            Check::Ferret { batches, setup } => {
                let [mut s, mut r] = Check::Kos { m: *setup }.mul_adds();
                for &(trees, depth) in batches {
                    let leaves = (trees << depth) as u64;
                    s += leaves + EXTRA as u64 + 1;
                    r += leaves + EXTRA as u64;
                }
                [s, r]
            }
        }
    }

    /// Times the check's kernels, one thread, each side alone: `passes`
    /// passes over buffers of the row's shape (filled before the clock,
    /// every page written), the best pass per side. The kernels do not
    /// branch on the data, so its values do not matter.
    pub fn measure(&self, passes: usize) -> Cost {
        let mut best = [Duration::MAX; 2];
        match self {
            Check::Kos { m } => {
                let cols = filled_blocks(m + EXTRA, 1);
                let r = Bits::random(&mut Rng::from_entropy(), m + EXTRA);
                for _ in 0..passes.max(1) {
                    let t = kos_sides(&cols, &r, *m);
                    best = [best[0].min(t[0]), best[1].min(t[1])];
                }
            }
            Check::Oos { m } => {
                let w = filled_blocks(m + EXTRA, 2);
                let words: Vec<Word> = (0..(m + EXTRA) as u128)
                    .map(|i| [0, 1, 2, 3].map(|j| pattern(4 * i + j, 3)))
                    .collect();
                let code = LinearCode::bch_511_76();
                for _ in 0..passes.max(1) {
                    let t = oos_sides(&code, &w, &words, *m);
                    best = [best[0].min(t[0]), best[1].min(t[1])];
                }
            }
            Check::Ferret { batches, setup } => {
                let most = batches.iter().map(|&(t, d)| t << d).max().unwrap_or(0);
                let leaves = filled_blocks(most, 4);
                let setup_cols = filled_blocks(setup + EXTRA, 5);
                let r = Bits::random(&mut Rng::from_entropy(), setup + EXTRA);
                for _ in 0..passes.max(1) {
                    let mut t = kos_sides(&setup_cols, &r, *setup);
                    for &(trees, depth) in batches {
                        let b = ferret_sides(&leaves[..trees << depth], trees, depth);
                        t = [t[0] + b[0], t[1] + b[1]];
                    }
                    best = [best[0].min(t[0]), best[1].min(t[1])];
                }
            }
        }
        Cost {
            time: best,
            mul_adds: self.mul_adds(),
        }
    }
}

/// Block `i` of a fixed pattern per `seed`.
fn pattern(i: u128, seed: u128) -> Block {
    Block((i ^ (seed << 100)).wrapping_mul(0x9e37_79b9_7f4a_7c15_f39c_c060_5ced_c835))
}

/// `len` blocks of [`pattern`], every page written.
fn filled_blocks(len: usize, seed: u128) -> Vec<Block> {
    (0..len as u128).map(|i| pattern(i, seed)).collect()
}

/// One pass of the KOS check's kernels, `[sender, receiver]`, the
/// receiver's first (the sender's decision needs its answer). Both run on
/// the same columns: each side's time is its own.
fn kos_sides(cols: &[Block], r: &Bits, m: usize) -> [Duration; 2] {
    let (seed, sid, delta) = (Block(0x5eed), Block(0x51d), Block(0xde17a));
    let t = Instant::now();
    let key = kos_challenge_key(seed, sid, m);
    let x = kos_choice_check(r, m, key);
    let t_rows = kos_row_check(cols, m, key, 1);
    let receiver = t.elapsed();
    let t = Instant::now();
    let key = kos_challenge_key(seed, sid, m);
    let q_rows = kos_row_check(cols, m, key, 1);
    black_box(kos_rows_consistent(&q_rows, &t_rows, x, delta));
    [t.elapsed(), receiver]
}

/// One pass of OOS's check kernels, `[sender, receiver]`.
fn oos_sides(code: &LinearCode, w: &[Block], words: &[Word], m: usize) -> [Duration; 2] {
    let (seed, sid) = (Block(0x5eed), Block(0x51d));
    let t = Instant::now();
    let key = kos_challenge_key(seed, sid, m);
    let x_rows = kos_row_check(w, m, key, 1);
    let t_rows = word_row_check(words, m, key, 1);
    let receiver = t.elapsed();
    let t = Instant::now();
    let key = kos_challenge_key(seed, sid, m);
    let q_rows = word_row_check(words, m, key, 1);
    let s: Word = [Block(1), Block(2), Block(3), Block(4)];
    black_box(oos_rows_consistent(code, &q_rows, &t_rows, &x_rows, &s));
    [t.elapsed(), receiver]
}

/// One pass of one Ferret batch's check kernels over its `leaves`,
/// `[sender, receiver]`.
fn ferret_sides(leaves: &[Block], trees: usize, depth: usize) -> [Duration; 2] {
    let (seed, tsid, delta) = (Block(0x5eed), Block(0x751d), Block(0xde17b));
    let extra = filled_blocks(EXTRA, 6);
    let alphas: Vec<usize> = (0..trees).map(|t| (t * 37) % (1 << depth)).collect();
    let t = Instant::now();
    let chi = ferret_check::chi_key(seed, tsid);
    let x_prime = ferret::noise_chi_sum(&alphas, depth, chi);
    let w_sum = ferret_check::weighted_sum(leaves, chi, 0);
    let v = ferret_check::receiver_v(w_sum, &extra);
    let receiver = t.elapsed();
    let t = Instant::now();
    let chi = ferret_check::chi_key(seed, tsid);
    let v_sum = ferret_check::weighted_sum(leaves, chi, 0);
    let y = ferret_check::sender_y(v_sum, &extra, x_prime, delta);
    let digest = ferret_check::digest(y, tsid);
    let sender = t.elapsed();
    let t = Instant::now();
    black_box(ferret_check::digest_matches(v, tsid, digest));
    [sender, receiver + t.elapsed()]
}
