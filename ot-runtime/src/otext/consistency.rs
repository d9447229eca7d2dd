//! Kernels of the corrected KOS consistency check: the row-wise check of
//! the revised KOS15 paper ([KOS15, eprint 2015/546, Fig. 10]), which is
//! also the malicious-security check of SoftSpokenOT with `k = 1`
//! ([Roy22, CRYPTO 2022, eprint 2022/192]).
//!
//! # Why a new check
//!
//! The check of the original KOS15 (Fig. 7, removed from this runtime)
//! compresses the *columns*: one random linear combination `Σ χ_k · t_k` of
//! all `m + 128` columns and one scalar `x = Σ r_k · χ_k`. Its security
//! argument was found to have a gap (Roy22); the revised paper and
//! SoftSpokenOT check every *row* separately instead: each of the 128
//! rows of the extension matrix (one per base OT) is compressed with a
//! universal hash over GF(2^128), so a receiver that used a different
//! choice vector in some row is caught by that row's own equation. The
//! receiver reveals one hash per row (128 blocks) and one hash of its
//! choice bits (1 block); the last 128 columns are random padding that
//! mask those hashes.
//!
//! # The check
//!
//! The matrix `T` has 128 rows `i` and `W = m + 128` columns `k`; the
//! receiver's choice bits are `r` (`W` bits, the last 128 random) and the
//! sender holds `Δ` (bit `i` = `s_i`) and `Q` with `q_k = t_k ⊕ r_k · Δ`,
//! i.e. row `i` of `Q` is row `i` of `T` plus `s_i · r`. With `D =
//! ceil(m/128)` and challenges `χ_j` (`j < D`):
//!
//! * receiver: `t̃_i = piece(T_i, m) ⊕ Σ_j χ_j · datapiece_j(T_i)`
//!   ([`kos_row_check`]) for every row, and `x̃ = rpiece(m) ⊕ Σ_j χ_j ·
//!   datapiece_j(r)` ([`kos_choice_check`]);
//! * sender: `q̃_i` = [`kos_row_check`] of its own columns, and accepts iff
//!   `q̃_i = t̃_i ⊕ s_i · x̃` for all `i` ([`kos_rows_consistent`]).
//!
//! The hash is linear, so an honest run always passes. If the receiver
//! used another choice vector `r^(i)` in row `i`, the sender's row hash
//! becomes `t̃_i ⊕ s_i · h(r^(i))`, so row `i` depends on `s_i` through
//! `h(r^(i)) ⊕ h(r)`, which is non-zero except with probability `2^-128`
//! over the challenge (it is a non-constant affine function of the
//! independent `χ_j`, or a non-zero constant if only padding bits differ):
//! to pass, the receiver has to guess `s_i` for every row it cheated in
//! (see the papers for the complete argument). A row with `s_i = 0` does
//! not depend on the choice vector at all, so the check cannot and need
//! not catch cheating there.
//!
//! # Conventions
//!
//! * Columns: `cols[k]` is column `k` of `T`; **bit `i` of `cols[k]` is
//!   `T[i][k]`**. These are the columns [`crate::otext::stream::transpose_columns`]
//!   returns (block `k` has bit `j` = bit `k` of row `j`) and the `q_k` of
//!   [`crate::otext::stream::masked_columns`].
//! * Pieces: `piece(T_i, a)` is the block with bit `b` = `T[i][a + b]`,
//!   `b < 128`. This is the [`crate::BitMatrix`] row layout, so for `a` a
//!   multiple of 128 it is block `a / 128` of row `i` of `T`. Data piece
//!   `j` is `piece(T_i, 128 j)` with the bits of columns `>= m` cleared; the
//!   mask piece is `piece(T_i, m)` (columns `m..m+128`, any alignment).
//! * Choice bits: `rpiece(a)` has bit `b` = `r[a + b]`, the order of
//!   [`crate::otext::bits_block`] (bit `j` of the block is `r[j]`); data
//!   pieces of `r` are likewise cleared from bit `m` on. `Δ` has bit `i` =
//!   `s_i` (`bits_block(s)`).
//! * Field: GF(2^128) as in [`crate::primitives::gf128`] (`x^128 + x^7 + x^2 + x + 1`,
//!   bit `i` = coefficient of `x^i`).
//! * Challenge: `χ_j` is block `j` of the AES-CTR stream
//!   [`Prg::new`]`(chi_key)`; the key comes from [`kos_challenge_key`].
//!
//! # Shapes
//!
//! The functions are total and never panic: a column (or choice bit) that
//! the input does not hold (`cols` shorter than `count + 128`, `r` shorter
//! than `count + 128`, even `count` beyond the input) reads as zero, and
//! input beyond `count + 128` is ignored. The pieces of a missing column
//! are zero on both sides, so an honest pair of calls still agrees; the
//! protocol layer is expected to check shapes before trusting a result.
//!
//! # Cost
//!
//! [`kos_row_check`] transposes each 128-column group into its 128 row
//! pieces with the crate's transpose kernels (the in-register AVX-512 tile
//! kernel where available), eight groups at a time into an L1-resident
//! buffer, multiplies them by `χ_j` with carry-less products accumulated
//! unreduced in 256 bits (VPCLMULQDQ: four rows per instruction; the next
//! eight groups' columns are prefetched meanwhile) and reduces each row
//! once at the end. All of it is data independent (no branch or memory
//! access depends on `T`, `r` or `Δ`).

use crate::primitives::gf128::{self, GfBackend};
use crate::primitives::prg::Prg;
use crate::{primitives::transpose, Bits, Block};
use core::ops::Range;
use rayon::prelude::*;
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

/// Rows of the extension matrix (base OTs) and columns per piece.
const ROWS: usize = 128;

/// 128-column groups transposed per batch before multiplying: 8 groups of
/// 128 row pieces are 16 KiB, half of a small L1 data cache.
const BATCH: usize = 8;

/// Below this many groups (of 128 columns) per thread, splitting the row
/// check costs more than it saves.
const MIN_GROUPS_PER_THREAD: usize = 64;

/// Domain label of [`kos_challenge_key`].
const CHALLENGE_DOMAIN: &[u8] = b"ot-runtime/kos15-fig10/challenge/v1";

/// The key of the challenge stream `χ` of the row-wise KOS check ([KOS15,
/// Fig. 10]) from a jointly chosen `seed` (e.g. a coin toss), the
/// `session` identifier and the number `m` of data columns.
///
/// SHA-256 over, in order: the domain label
/// `"ot-runtime/kos15-fig10/challenge/v1"` prefixed by its length as one
/// byte, the 16 bytes of `session`, the 16 bytes of `seed`
/// ([`Block::to_bytes`]), and `m` as `u64` little-endian; the key is the
/// first 16 bytes of the digest ([`Block::from_bytes`]). Binding the
/// session and the shape makes the challenge of one extension useless in
/// another.
pub fn kos_challenge_key(seed: Block, session: Block, m: usize) -> Block {
    let mut h = Sha256::new();
    h.update([CHALLENGE_DOMAIN.len() as u8]);
    h.update(CHALLENGE_DOMAIN);
    h.update(session.to_bytes());
    h.update(seed.to_bytes());
    h.update((m as u64).to_le_bytes());
    let digest = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    Block::from_bytes(out)
}

/// Row hashes of the row-wise KOS check ([KOS15, Fig. 10]): 128 blocks,
/// `out[i] = piece(T_i, m) ⊕ Σ_{j < D} χ_j · datapiece_j(T_i)` in
/// GF(2^128), where `cols[k]` is column `k` of `T` (bit `i` = `T[i][k]`),
/// `m = count`, `D = ceil(m/128)` and `χ_j` is block `j` of
/// `Prg::new(chi_key)` (see the module docs for pieces and conventions).
///
/// The receiver runs it on its columns `t_k`, the sender on `q_k`. Columns
/// the slice does not hold read as zero; columns past `count + 128` are
/// ignored. `threads > 1` splits the 128-column groups across rayon's
/// global pool in contiguous ranges of at least 64 groups (8192 columns);
/// the unreduced partial sums are XORed before the one reduction per row,
/// so the result does not depend on `threads` (`0` counts as 1).
pub fn kos_row_check(cols: &[Block], count: usize, chi_key: Block, threads: usize) -> Vec<Block> {
    row_check_split(cols, count, chi_key, threads, MIN_GROUPS_PER_THREAD)
}

/// Unreduced per-row sums `Σ χ_j · piece_j` (`hi·x^128 + lo` per row).
struct Acc {
    lo: [Block; ROWS],
    hi: [Block; ROWS],
}

impl Acc {
    fn zero() -> Acc {
        Acc {
            lo: [Block::ZERO; ROWS],
            hi: [Block::ZERO; ROWS],
        }
    }

    fn xor(mut self, other: Acc) -> Acc {
        for (a, b) in self.lo.iter_mut().zip(&other.lo) {
            *a ^= *b;
        }
        for (a, b) in self.hi.iter_mut().zip(&other.hi) {
            *a ^= *b;
        }
        self
    }
}

/// [`kos_row_check`] with at least `min_groups` full groups per thread
/// (tests force splitting small inputs with `min_groups = 1`).
fn row_check_split(
    cols: &[Block],
    count: usize,
    chi_key: Block,
    threads: usize,
    min_groups: usize,
) -> Vec<Block> {
    let backend = GfBackend::selected();
    // Data columns present in the input; the rest read as zero.
    let avail = count.min(cols.len());
    let full = avail / ROWS;
    let k = threads.min(full / min_groups.max(1)).max(1);
    let mut acc = if k == 1 {
        accumulate(cols, 0..full, chi_key, backend)
    } else {
        let per = full.div_ceil(k);
        (0..k)
            .into_par_iter()
            .map(|t| {
                let start = (t * per).min(full);
                accumulate(cols, start..(start + per).min(full), chi_key, backend)
            })
            .reduce(Acc::zero, Acc::xor)
    };
    // The last data group if `count` (or the input) ends inside it: the
    // columns from `avail` on are zero.
    let tail = avail - full * ROWS;
    if tail > 0 {
        let mut group = [Block::ZERO; ROWS];
        group[..tail].copy_from_slice(&cols[full * ROWS..avail]);
        let mut pieces = [Block::ZERO; ROWS];
        transpose_group(&group, &mut pieces);
        let chi = Prg::new_at(chi_key, full as u64).next_block();
        gf128::mul_acc_rows_with(backend, &[chi], &pieces, &mut acc.lo, &mut acc.hi, &[]);
    }
    let mask = mask_pieces(cols, count);
    (0..ROWS)
        .map(|i| gf128::reduce(acc.lo[i], acc.hi[i]) ^ mask[i])
        .collect()
}

/// The 128 row pieces of the 128 columns `count..count + 128` (missing
/// columns zero), at any alignment.
fn mask_pieces(cols: &[Block], count: usize) -> [Block; ROWS] {
    let mut group = [Block::ZERO; ROWS];
    if count < cols.len() {
        let end = count.saturating_add(ROWS).min(cols.len());
        group[..end - count].copy_from_slice(&cols[count..end]);
    }
    let mut pieces = [Block::ZERO; ROWS];
    transpose_group(&group, &mut pieces);
    pieces
}

/// `pieces[i]` bit `b` = bit `i` of `group[b]`: the 128 columns of a group
/// become the 128 row pieces (one 128 x 128 transpose).
fn transpose_group(group: &[Block], pieces: &mut [Block]) {
    let r = transpose::transpose_128_rows_into(group, 1, pieces);
    debug_assert!(r.is_ok(), "a group is 128 columns into 128 pieces");
}

/// Unreduced sums over the full data groups `groups` (group `g` = columns
/// `128 g..128 g + 128`, all present in `cols`), `BATCH` groups at a time:
/// transpose each group into its row pieces, then add `χ_g · piece` to
/// every row's 256-bit accumulator.
fn accumulate(cols: &[Block], groups: Range<usize>, chi_key: Block, backend: GfBackend) -> Acc {
    let mut acc = Acc::zero();
    if groups.is_empty() {
        return acc;
    }
    let mut prg = Prg::new_at(chi_key, groups.start as u64);
    let mut chi = [Block::ZERO; BATCH];
    let mut pieces = Block::zeroed_vec(BATCH * ROWS);
    let mut g = groups.start;
    while g < groups.end {
        let n = (groups.end - g).min(BATCH);
        prg.fill(&mut chi[..n]);
        let src = &cols[g * ROWS..(g + n) * ROWS];
        // The columns of the next batch, fetched during this one's products.
        let next_end = (g + n + BATCH).min(groups.end);
        let next = &cols[(g + n) * ROWS..next_end * ROWS];
        for (group, dst) in src.chunks_exact(ROWS).zip(pieces.chunks_exact_mut(ROWS)) {
            transpose_group(group, dst);
        }
        gf128::mul_acc_rows_with(
            backend,
            &chi[..n],
            &pieces[..n * ROWS],
            &mut acc.lo,
            &mut acc.hi,
            next,
        );
        g += n;
    }
    acc
}

/// Choice hash of the row-wise KOS check ([KOS15, Fig. 10]):
/// `rpiece(m) ⊕ Σ_{j < D} χ_j · datapiece_j(r)` with `m = count`,
/// `D = ceil(m/128)`, data pieces of `r` cleared from bit `m` on and `χ_j`
/// block `j` of `Prg::new(chi_key)` — the receiver's `x̃`, which the sender
/// multiplies by `s_i` in row `i`.
///
/// Constant time with respect to the bits of `r` (masking and carry-less
/// products only; branches depend on lengths alone). Bits `r` does not
/// hold read as zero; bits past `count + 128` are ignored.
pub fn kos_choice_check(r: &Bits, count: usize, chi_key: Block) -> Block {
    const CHUNK: usize = 1024;
    let mut blocks = r.to_blocks();
    let mask = bits_at(&blocks, count);
    let avail = count.min(r.len());
    blocks.truncate(avail.div_ceil(ROWS));
    if !avail.is_multiple_of(ROWS) {
        if let Some(last) = blocks.last_mut() {
            *last &= Block((1u128 << (avail % ROWS)) - 1);
        }
    }
    let mut prg = Prg::new(chi_key);
    let mut chi = [Block::ZERO; CHUNK];
    let mut acc = Block::ZERO;
    for data in blocks.chunks(CHUNK) {
        prg.fill(&mut chi[..data.len()]);
        // Same lengths: never an error. Reduced sums XOR like unreduced.
        acc ^= gf128::inner_product(data, &chi[..data.len()]).unwrap_or(Block::ZERO);
    }
    acc ^ mask
}

/// Bits `a..a + 128` of the bit vector stored in `blocks` (block layout,
/// missing bits zero).
fn bits_at(blocks: &[Block], a: usize) -> Block {
    let (q, s) = (a / ROWS, a % ROWS);
    let get = |j: usize| blocks.get(j).copied().unwrap_or(Block::ZERO);
    if s == 0 {
        get(q)
    } else {
        Block((get(q).0 >> s) | (get(q + 1).0 << (ROWS - s)))
    }
}

/// The sender's decision in the row-wise KOS check ([KOS15, Fig. 10]):
/// `true` iff `q_rows` and `t_rows` both hold 128 blocks and for every row
/// `i`, `q_rows[i] == t_rows[i] ⊕ s_i · x` where `s_i` is bit `i` of
/// `delta` (`q_rows` = [`kos_row_check`] of the sender's columns, `t_rows`
/// and `x` the receiver's [`kos_row_check`] and [`kos_choice_check`]).
///
/// `delta` is the sender's secret: every row is evaluated with
/// branch-free selection ([`subtle`]), differences are ORed together and
/// compared once at the end, so the time does not depend on `delta`,
/// on the blocks, or on which row differs. Only the lengths (public)
/// shortcut the result.
pub fn kos_rows_consistent(q_rows: &[Block], t_rows: &[Block], x: Block, delta: Block) -> bool {
    if q_rows.len() != ROWS || t_rows.len() != ROWS {
        return false;
    }
    let (mut diff_lo, mut diff_hi) = (0u64, 0u64);
    for (i, (q, t)) in q_rows.iter().zip(t_rows).enumerate() {
        let s = Choice::from(((delta.0 >> i) & 1) as u8);
        let sx_lo = u64::conditional_select(&0, &x.lo(), s);
        let sx_hi = u64::conditional_select(&0, &x.hi(), s);
        diff_lo |= q.lo() ^ t.lo() ^ sx_lo;
        diff_hi |= q.hi() ^ t.hi() ^ sx_hi;
    }
    bool::from(diff_lo.ct_eq(&0) & diff_hi.ct_eq(&0))
}

/// Bit-by-bit reference of [`kos_row_check`], written from the definition
/// (each piece assembled bit by bit, products by
/// [`gf128::mul_reference`]). Slow and not constant time; for tests.
/// Groups made only of missing columns are skipped (their pieces are zero).
pub fn kos_row_check_reference(cols: &[Block], count: usize, chi_key: Block) -> Vec<Block> {
    let bit = |i: usize, k: usize| cols.get(k).is_some_and(|c| (c.0 >> i) & 1 == 1);
    // Bits `a..a+128` of row `i`, only columns below `limit`.
    let piece = |i: usize, a: usize, limit: usize| {
        let mut p = 0u128;
        for b in 0..ROWS {
            let k = a.saturating_add(b);
            if k < limit && bit(i, k) {
                p |= 1 << b;
            }
        }
        Block(p)
    };
    let d = count.min(cols.len()).div_ceil(ROWS);
    let chi = crate::primitives::prg::prg(chi_key, d);
    (0..ROWS)
        .map(|i| {
            let mut acc = piece(i, count, usize::MAX);
            for (j, &c) in chi.iter().enumerate() {
                acc ^= gf128::mul_reference(c, piece(i, ROWS * j, count));
            }
            acc
        })
        .collect()
}

/// Bit-by-bit reference of [`kos_choice_check`], written from the
/// definition with [`gf128::mul_reference`]. Slow and not constant time;
/// for tests. Blocks made only of missing bits are skipped (zero pieces).
pub fn kos_choice_check_reference(r: &Bits, count: usize, chi_key: Block) -> Block {
    let piece = |a: usize, limit: usize| {
        let mut p = 0u128;
        for b in 0..ROWS {
            let k = a.saturating_add(b);
            if k < limit && r.try_get(k) == Some(true) {
                p |= 1 << b;
            }
        }
        Block(p)
    };
    let d = count.min(r.len()).div_ceil(ROWS);
    let chi = crate::primitives::prg::prg(chi_key, d);
    let mut acc = piece(count, usize::MAX);
    for (j, &c) in chi.iter().enumerate() {
        acc ^= gf128::mul_reference(c, piece(ROWS * j, count));
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::whole;
    use proptest::prelude::*;

    fn random_blocks(n: usize, seed: u128) -> Vec<Block> {
        crate::primitives::prg::prg(Block(seed ^ 0x0c0ffee), n)
    }

    fn random_bits(n: usize, seed: u128) -> Bits {
        let b = random_blocks(n.div_ceil(128), seed);
        Bits::from_blocks(&b, n).unwrap_or_else(|_| Bits::zeros(n))
    }

    /// `q_k = t_k ⊕ r_k · Δ`.
    fn sender_columns(t: &[Block], r: &Bits, delta: Block) -> Vec<Block> {
        t.iter()
            .enumerate()
            .map(|(k, &c)| c ^ (delta & Block::mask(r.try_get(k) == Some(true))))
            .collect()
    }

    /// One honest extension of `m` columns (plus 128 padding columns).
    struct Run {
        m: usize,
        t: Vec<Block>,
        r: Bits,
        delta: Block,
        key: Block,
    }

    impl Run {
        fn new(m: usize, seed: u128) -> Run {
            let w = m + 128;
            Run {
                m,
                t: random_blocks(w, seed),
                r: random_bits(w, seed + 1),
                delta: random_blocks(1, seed + 2)[0],
                key: kos_challenge_key(Block(seed), Block(7), m),
            }
        }

        /// The sender's verdict when row `i` of `Q` was built with
        /// `r ⊕ e_c` for every `(i, c)` in `cheats` (the receiver's claims
        /// are computed from `T` and the honest `r`).
        fn verdict(&self, cheats: &[(usize, usize)], threads: usize) -> bool {
            let mut q = sender_columns(&self.t, &self.r, self.delta);
            for &(i, c) in cheats {
                // Row i of Q gets s_i · (r ⊕ e_c): flips Q[i][c] iff s_i = 1.
                q[c] ^= Block(1 << i) & self.delta;
            }
            let qr = kos_row_check(&q, self.m, self.key, threads);
            let tr = kos_row_check(&self.t, self.m, self.key, threads);
            let x = kos_choice_check(&self.r, self.m, self.key);
            kos_rows_consistent(&qr, &tr, x, self.delta)
        }
    }

    #[test]
    fn honest_runs_pass() {
        for (n, m) in [1usize, 127, 128, 129, 65539].into_iter().enumerate() {
            let run = Run::new(m, 100 + n as u128);
            for threads in [1, 2, 3] {
                assert!(run.verdict(&[], threads), "m {m} threads {threads}");
            }
        }
    }

    #[test]
    fn fast_matches_reference_on_the_honest_shapes() {
        for (n, m) in [1usize, 127, 128, 129, 65539].into_iter().enumerate() {
            let run = Run::new(m, 200 + n as u128);
            let want = kos_row_check_reference(&run.t, m, run.key);
            for threads in [1, 2] {
                assert_eq!(kos_row_check(&run.t, m, run.key, threads), want, "m {m}");
            }
            assert_eq!(
                kos_choice_check(&run.r, m, run.key),
                kos_choice_check_reference(&run.r, m, run.key),
                "m {m}"
            );
        }
    }

    /// Forced splitting (one group per thread and up) gives the
    /// single-threaded result, including uneven splits.
    #[test]
    fn split_does_not_change_the_result() {
        let m = 128 * 37 + 5;
        let run = Run::new(m, 9);
        let want = row_check_split(&run.t, m, run.key, 1, 1);
        for threads in 2..=8 {
            assert_eq!(row_check_split(&run.t, m, run.key, threads, 1), want);
        }
        assert_eq!(want, kos_row_check_reference(&run.t, m, run.key));
    }

    #[test]
    fn one_inconsistent_row_is_caught() {
        for m in [1usize, 128, 129, 1000] {
            let mut run = Run::new(m, 300 + m as u128);
            for (i, c) in [(0, 0), (127, m - 1), (5, m / 2), (64, m - 1)] {
                run.delta = run.delta.with_bit(i, true);
                assert!(!run.verdict(&[(i, c)], 1), "m {m} row {i} col {c}");
                // With s_i = 0 row i of Q does not depend on r at all: the
                // cheat changes nothing the sender sees.
                run.delta = run.delta.with_bit(i, false);
                assert!(run.verdict(&[(i, c)], 1), "m {m} row {i} col {c}");
            }
        }
    }

    #[test]
    fn several_inconsistent_rows_are_caught() {
        let m = 5000;
        let mut run = Run::new(m, 17);
        let cheats = [(3, 10), (40, 10), (41, 4999), (100, 2000), (127, 0)];
        for &(i, _) in &cheats {
            run.delta = run.delta.with_bit(i, true);
        }
        assert!(!run.verdict(&cheats, 2));
        // Caught as long as one cheating row has s_i = 1.
        for &(i, _) in &cheats[1..] {
            run.delta = run.delta.with_bit(i, false);
        }
        assert!(!run.verdict(&cheats, 1));
        run.delta = run.delta.with_bit(cheats[0].0, false);
        assert!(run.verdict(&cheats, 1));
        // The same flip in every row with s_i = 1 (a consistent but wrong
        // claim) is caught too.
        run.delta = Block::ONES;
        let all: Vec<(usize, usize)> = (0..128).map(|i| (i, 77)).collect();
        assert!(!run.verdict(&all, 1));
    }

    #[test]
    fn inconsistency_in_the_padding_is_caught() {
        for m in [1usize, 128, 129, 4096] {
            let mut run = Run::new(m, 400 + m as u128);
            for (i, c) in [(0, m), (9, m + 1), (127, m + 127), (77, m + 64)] {
                run.delta = run.delta.with_bit(i, true);
                assert!(!run.verdict(&[(i, c)], 1), "m {m} row {i} col {c}");
            }
        }
    }

    #[test]
    fn a_wrong_claim_fails() {
        let run = Run::new(700, 5);
        let q = sender_columns(&run.t, &run.r, run.delta);
        let qr = kos_row_check(&q, run.m, run.key, 1);
        let tr = kos_row_check(&run.t, run.m, run.key, 1);
        let x = kos_choice_check(&run.r, run.m, run.key);
        assert!(kos_rows_consistent(&qr, &tr, x, run.delta));
        for i in [0, 63, 64, 127] {
            for b in [0, 1, 64, 127] {
                let mut bad = tr.clone();
                bad[i] ^= Block(1 << b);
                assert!(!kos_rows_consistent(&qr, &bad, x, run.delta));
            }
        }
        if run.delta != Block::ZERO {
            assert!(!kos_rows_consistent(&qr, &tr, x ^ Block(1), run.delta));
        }
        assert!(!kos_rows_consistent(&qr[..127], &tr[..127], x, run.delta));
        assert!(!kos_rows_consistent(&qr, &tr[..127], x, run.delta));
        assert!(!kos_rows_consistent(&[], &[], x, run.delta));
        // Δ = 0: Q = T, any x is accepted.
        assert!(kos_rows_consistent(&tr, &tr, Block(12345), Block::ZERO));
        // Another challenge key: the receiver's claims no longer match.
        let other = kos_challenge_key(Block(6), Block(7), run.m);
        let tr2 = kos_row_check(&run.t, run.m, other, 1);
        let x2 = kos_choice_check(&run.r, run.m, other);
        assert!(!kos_rows_consistent(&qr, &tr2, x2, run.delta));
    }

    #[test]
    fn challenge_key_is_the_documented_hash() {
        let (seed, session, m) = (Block(0x1234), Block(0xabcd << 70), 1 << 20);
        let mut bytes = vec![35u8];
        bytes.extend_from_slice(b"ot-runtime/kos15-fig10/challenge/v1");
        bytes.extend_from_slice(&session.0.to_le_bytes());
        bytes.extend_from_slice(&seed.0.to_le_bytes());
        bytes.extend_from_slice(&(m as u64).to_le_bytes());
        let d = Sha256::digest(&bytes);
        let want = Block(u128::from_le_bytes(d[..16].try_into().unwrap()));
        assert_eq!(kos_challenge_key(seed, session, m), want);
        let k = kos_challenge_key(seed, session, m);
        assert_ne!(kos_challenge_key(Block(0x1235), session, m), k);
        assert_ne!(kos_challenge_key(seed, Block(1), m), k);
        assert_ne!(kos_challenge_key(seed, session, m + 1), k);
        assert_ne!(kos_challenge_key(session, seed, m), k);
    }

    /// Short inputs, huge counts and zero threads do not panic; missing
    /// columns and bits read as zero.
    #[test]
    fn shape_misuse_reads_missing_input_as_zero() {
        let key = Block(3);
        let t = random_blocks(1000, 1);
        let r = random_bits(1000, 2);
        for count in [0usize, 1, 500, 871, 872, 999, 1000, 5000, usize::MAX] {
            for len in [0usize, 1, 128, 300, 1000] {
                let cols = &t[..len];
                let want = kos_row_check_reference(cols, count, key);
                assert_eq!(kos_row_check(cols, count, key, 0), want, "{count} {len}");
                assert_eq!(row_check_split(cols, count, key, 3, 1), want);
                // Explicit zero columns give the same hashes.
                if count < 2000 {
                    let mut padded = cols.to_vec();
                    padded.resize(count + 128, Block::ZERO);
                    assert_eq!(kos_row_check(&padded, count, key, 1), want);
                }
                let rr = Bits::from_bytes(&r.as_bytes()[..len / 8], len / 8 * 8).unwrap();
                assert_eq!(
                    kos_choice_check(&rr, count, key),
                    kos_choice_check_reference(&rr, count, key),
                    "{count} {len}"
                );
            }
        }
        // Input beyond count + 128 is ignored.
        let long = kos_row_check(&t, 300, key, 1);
        assert_eq!(long, kos_row_check(&t[..428], 300, key, 1));
        let rl = Bits::from_blocks(&random_blocks(8, 4), 1000).unwrap();
        let rs = Bits::from_blocks(&random_blocks(8, 4)[..4], 428).unwrap();
        assert_eq!(
            kos_choice_check(&rl, 300, key),
            kos_choice_check(&rs, 300, key)
        );
    }

    /// A transposed matrix built with the crate's own transpose: column
    /// blocks and BitMatrix rows agree with the documented convention.
    #[test]
    fn pieces_are_bitmatrix_row_blocks() {
        let m = 300;
        let mut tm = crate::BitMatrix::new(128, m + 128);
        let seeds: Vec<Block> = (0..128u128).map(Block).collect();
        crate::primitives::prg::fill_matrix(&seeds, &mut tm).unwrap();
        let cols = whole::transpose_columns(&tm, 1);
        let key = Block(11);
        let chi = crate::primitives::prg::prg(key, 3);
        let out = kos_row_check(&cols, m, key, 1);
        for (i, &o) in out.iter().enumerate() {
            let row = tm.row(i);
            let mut want = bits_at(row, m);
            for (j, &c) in chi.iter().enumerate() {
                let mut p = row[j];
                if j == 2 {
                    p &= Block((1 << (m % 128)) - 1);
                }
                want ^= gf128::mul(c, p);
            }
            assert_eq!(o, want, "row {i}");
        }
    }

    /// End to end with the crate's own types: `T` and `Q` as 128-row
    /// matrices (row `i` of `Q` = row `i` of `T` ⊕ `s_i · r`), their
    /// columns from [`crate::otext::stream::transpose_columns`], `Δ` from
    /// [`crate::otext::bits_block`] of `s`.
    #[test]
    fn conventions_match_the_extension_matrices() {
        let m = 1000;
        let w = m + 128;
        let mut tm = crate::BitMatrix::new(128, w);
        let seeds: Vec<Block> = (0..128u128).map(|i| Block(i + 50)).collect();
        crate::primitives::prg::fill_matrix(&seeds, &mut tm).unwrap();
        let r = random_bits(w, 60);
        let s = random_bits(128, 61);
        let rb = r.to_blocks();
        let mut qm = tm.clone();
        for i in 0..128 {
            if s.get(i) {
                for (q, x) in qm.row_mut(i).iter_mut().zip(&rb) {
                    *q ^= *x;
                }
            }
        }
        let tc = whole::transpose_columns(&tm, 1);
        let qc = whole::transpose_columns(&qm, 1);
        let delta = crate::otext::bits_block(&s);
        assert_eq!(qc, sender_columns(&tc, &r, delta));
        let key = kos_challenge_key(Block(1), Block(2), m);
        let qr = kos_row_check(&qc, m, key, 1);
        let tr = kos_row_check(&tc, m, key, 1);
        let x = kos_choice_check(&r, m, key);
        assert!(kos_rows_consistent(&qr, &tr, x, delta));
        // Row hashes of Q are those of T plus s_i · x.
        for i in 0..128 {
            assert_eq!(qr[i], tr[i] ^ (x & Block::mask(s.get(i))), "row {i}");
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn fast_matches_reference(
            m in 1usize..1000,
            extra in -200isize..200,
            threads in 1usize..=3,
            seed in any::<u64>(),
        ) {
            let len = (m as isize + 128 + extra).max(0) as usize;
            let t = random_blocks(len, seed as u128);
            let r = random_bits(len, seed as u128 + 1);
            let key = Block(u128::from(seed) << 3);
            let want = kos_row_check_reference(&t, m, key);
            prop_assert_eq!(&kos_row_check(&t, m, key, threads), &want);
            prop_assert_eq!(&row_check_split(&t, m, key, threads, 1), &want);
            prop_assert_eq!(
                kos_choice_check(&r, m, key),
                kos_choice_check_reference(&r, m, key)
            );
        }
    }
}
