//! Conversion of QuietOT's random 1-out-of-N OTs (N = 6 for BIPSW, 32 for
//! GAR) into standard random 1-out-of-2 OTs of blocks.
//!
//! The expansion gives the sender N candidate values per OT and the
//! receiver one of them, at its index `c`. The index itself is a *linear*
//! function of the public input under the receiver's secret `z` (BIPSW:
//! `c mod 2` over Z_2 and `c mod 3` over Z_3; GAR: the parity over Z_2 and
//! a sum), so neither `c` nor any linear piece of it may serve as a choice
//! bit: whoever sees a few hundred such bits (e.g. through a
//! derandomization with known choices) solves for `z`. The choice bit is
//! the weak PRF's output on the input, i.e. the *rounding* of `c`, which is
//! the nonlinear map the CPRF's constraint is built on [QuietOT, eprint
//! 2024/1079, §4–§5: the PCF outputs `H(F(msk, x) + j·Δ)` and the
//! receiver's predicate value is `wPRF(z, x)`]:
//!
//! * BIPSW (the mod-2/mod-3 weak PRF of Boneh–Ishai–Passelègue–Sahai–Wu,
//!   TCC 2018): `b = ((c mod 2) + (c mod 3)) mod 2`, i.e. `b = 1` iff
//!   `c ∈ {3, 4, 5}` (class table [`BIPSW_CLASSES`]);
//! * GAR (XOR-MAJ): `c = 16·p + w`, `b = p ⊕ [w ≥ 8]` (the parity of the 5
//!   XOR bits plus the majority of the 15 MAJ bits; [`GAR_CLASSES`]).
//!
//! The sender cannot give both candidates of one class the same value
//! without a message, so the sender's two random messages are the hashes of
//! one representative candidate per class (`m_b = h_{rep(b)}`, the first
//! `j` of class `b`), and one message of `N − 2` blocks per OT carries the
//! corrections `h_j ⊕ h_{rep(class(j))}` of the other candidates: the
//! receiver turns its `h_c` into `m_{class(c)}`. This is the folklore
//! reduction of an OT of a function of the choice to a 1-out-of-N OT (one
//! one-time pad per candidate), with the representatives' pads omitted;
//! the choice is then derandomized as in Beaver, "Precomputing Oblivious
//! Transfer", CRYPTO 1995. The receiver learns
//! nothing about `m_{1−b}`: every candidate of the other class has a hash
//! it cannot compute (it only knows `F(msk, x) + c·Δ`, not `Δ`), and the
//! corrections of that class give only differences of those hashes.
//!
//! The hashes are `AES_conv(u) ⊕ u` of the same polynomial hash `u` as the
//! PCF bits, under a separate session key
//! ([`super::public::QuietPublic::finish_blocks`]).
#![forbid(unsafe_code)]

use crate::primitives::span::Span;
use crate::{Bits, Block};

/// Class (choice bit) of each BIPSW candidate `c ∈ 0..6`:
/// `((c mod 2) + (c mod 3)) mod 2`.
pub const BIPSW_CLASSES: [u8; 6] = bipsw_classes();
/// Class (choice bit) of each GAR candidate `c = 16·p + w`: `p ⊕ [w ≥ 8]`.
pub const GAR_CLASSES: [u8; 32] = gar_classes();

const fn bipsw_classes() -> [u8; 6] {
    let mut t = [0u8; 6];
    let mut c = 0;
    while c < 6 {
        t[c] = ((c % 2 + c % 3) % 2) as u8;
        c += 1;
    }
    t
}

const fn gar_classes() -> [u8; 32] {
    let mut t = [0u8; 32];
    let mut c = 0;
    while c < 32 {
        t[c] = ((c / 16) ^ ((c % 16 >= 8) as usize)) as u8;
        c += 1;
    }
    t
}

/// The representative candidate of each class: the first `j` in it.
fn reps(classes: &[u8]) -> [usize; 2] {
    let first = |b: u8| classes.iter().position(|&c| c == b).unwrap_or(0);
    [first(0), first(1)]
}

/// The sender's side of a batch: the hashes of all candidates.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuietRotSender {
    classes: &'static [u8],
    first: u64,
    /// `classes.len()` hashes per OT, OT-major.
    blocks: Vec<Block>,
}

impl QuietRotSender {
    /// The batch of OTs `first ..` whose candidate hashes are `blocks`
    /// (`classes.len()` per OT).
    pub fn new(classes: &'static [u8], first: u64, blocks: Vec<Block>) -> QuietRotSender {
        QuietRotSender {
            classes,
            first,
            blocks,
        }
    }

    /// Number of OTs.
    pub fn len(&self) -> usize {
        self.blocks.len() / self.classes.len().max(1)
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Index of the first OT.
    pub fn first(&self) -> u64 {
        self.first
    }

    /// The random messages `(m_0, m_1) = (h_{rep(0)}, h_{rep(1)})` of each OT
    /// before derandomization of the choice.
    pub fn messages(&self) -> Vec<[Block; 2]> {
        let [r0, r1] = reps(self.classes);
        self.candidates().map(|h| [h[r0], h[r1]]).collect()
    }

    /// The corrections `h_j ⊕ h_{rep(class(j))}` of every non-representative
    /// candidate, `N − 2` per OT in order of `j`.
    pub fn corrections(&self) -> Vec<Block> {
        let r = reps(self.classes);
        let mut out = Vec::with_capacity(self.len() * self.classes.len().saturating_sub(2));
        for h in self.candidates() {
            for (j, &b) in self.classes.iter().enumerate() {
                let rep = h[r[usize::from(b)]];
                if j != r[usize::from(b)] {
                    out.push(h[j] ^ rep);
                }
            }
        }
        out
    }

    /// The derandomized pairs: OT `n`'s messages swapped when the receiver's
    /// flip bit `d_n = r_n ⊕ b_n` is set, so that `y_n[r_n] = m_{b_n}`
    /// (missing flip bits count as 0).
    pub fn pairs(&self, flips: &Bits) -> Vec<[Block; 2]> {
        let mut out = self.messages();
        for (n, p) in out.iter_mut().enumerate() {
            if flips.try_get(n) == Some(true) {
                p.swap(0, 1);
            }
        }
        out
    }

    /// One row of `N = classes.len()` blocks per OT into `out`: the
    /// derandomized pair (as [`Self::pairs`], flip bit `d_{first + k}` for
    /// row `k`), then the `N − 2` corrections (as [`Self::corrections`]).
    /// A chunk of the streamed conversion computes this once, so the
    /// candidates are hashed once for both the message and the output.
    pub fn rows_into<R: BlockRow>(&self, flips: &Bits, out: &mut [R]) {
        let r = reps(self.classes);
        let first = usize::try_from(self.first).unwrap_or(usize::MAX);
        for (k, (h, row)) in self.candidates().zip(out.iter_mut()).enumerate() {
            let flip = first.checked_add(k).and_then(|n| flips.try_get(n)) == Some(true);
            let (a, b) = (h[r[0]], h[r[1]]);
            let corrections = self
                .classes
                .iter()
                .enumerate()
                .filter(|&(j, &c)| j != r[usize::from(c)])
                .map(|(j, &c)| h[j] ^ h[r[usize::from(c)]]);
            let pair = if flip { [b, a] } else { [a, b] };
            for (d, v) in row
                .blocks_mut()
                .iter_mut()
                .zip(pair.into_iter().chain(corrections))
            {
                *d = v;
            }
        }
    }

    fn candidates(&self) -> impl Iterator<Item = &[Block]> {
        self.blocks.chunks_exact(self.classes.len().max(1))
    }
}

/// The receiver's side of a batch: its index and candidate hash per OT.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuietRotReceiver {
    classes: &'static [u8],
    first: u64,
    index: Vec<u8>,
    blocks: Vec<Block>,
}

impl QuietRotReceiver {
    /// The batch of OTs `first ..` with indices `index` and hashes `blocks`.
    pub fn new(
        classes: &'static [u8],
        first: u64,
        index: Vec<u8>,
        blocks: Vec<Block>,
    ) -> QuietRotReceiver {
        QuietRotReceiver {
            classes,
            first,
            index,
            blocks,
        }
    }

    /// Number of OTs.
    pub fn len(&self) -> usize {
        self.index.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// Index of the first OT.
    pub fn first(&self) -> u64 {
        self.first
    }

    /// The receiver's indices `c_n` (the PCF's 1-out-of-N choices).
    pub fn index(&self) -> &[u8] {
        &self.index
    }

    /// The random choice bits `b_n = class(c_n)` (the weak PRF's outputs).
    pub fn choices(&self) -> Bits {
        let v: Vec<bool> = self.index.iter().map(|&c| self.class(c) == 1).collect();
        Bits::from_bools(&v)
    }

    /// The flip bits `d_n = r_n ⊕ b_n` that derandomize the choice to `r`
    /// (Beaver's derandomization; missing bits of `r` count as 0).
    pub fn flips(&self, r: &Bits) -> Bits {
        let v: Vec<bool> = self
            .index
            .iter()
            .enumerate()
            .map(|(n, &c)| (self.class(c) == 1) ^ (r.try_get(n) == Some(true)))
            .collect();
        Bits::from_bools(&v)
    }

    /// `m_{b_n}` of each OT from the sender's corrections (`N − 2` blocks per
    /// OT; a short message yields zero blocks for the OTs it misses, but the
    /// protocol's message type fixes its length).
    pub fn chosen(&self, corr: &[Block]) -> Vec<Block> {
        let per = self.classes.len().saturating_sub(2).max(1);
        (0..self.len())
            .map(|n| self.chosen_one(n, corr.get(n * per..(n + 1) * per).unwrap_or(&[])))
            .collect()
    }

    /// `m_{b_n}` of OT `n` (counted from [`Self::first`]) from its row of
    /// `N − 2` corrections (a missing correction yields a zero block).
    pub fn chosen_one(&self, n: usize, corr: &[Block]) -> Block {
        let (Some(&c), Some(&h)) = (self.index.get(n), self.blocks.get(n)) else {
            return Block::ZERO;
        };
        let r = reps(self.classes);
        let c = usize::from(c);
        if c == r[usize::from(self.class(c as u8))] {
            return h;
        }
        // Position of candidate c among the non-representatives.
        let pos = c - usize::from(c > r[0]) - usize::from(c > r[1]);
        corr.get(pos).map_or(Block::ZERO, |k| h ^ *k)
    }

    fn class(&self, c: u8) -> u8 {
        self.classes.get(usize::from(c)).copied().unwrap_or(0)
    }
}

/// The receiver's flip bits for its chosen choice bits `r`.
pub fn flips(r: &QuietRotReceiver, choices: &Bits) -> Bits {
    r.flips(choices)
}

// ---- Streamed conversion (the `convert` round, chunk by chunk) ----
//
// The sender hashes the candidates of a chunk of OTs once into rows of
// `N` blocks (`[m_{d}, m_{1-d}, corrections...]`, see
// [`QuietRotSender::rows_into`]); the round's message takes the corrections
// and the sender's output the pairs. Chunk variants follow the convention
// of the streamed kernels: the same arguments with streamed values as their
// chunk, then `offset, len` and the output slice, of which the first
// `min(len, out.len())` entries are written.

/// A fixed-size row of blocks as a message carries it: `[Block; N]`, or
/// `[[Block; H]; 2]` for rows longer than the language's inline arrays (at
/// most 16 entries), e.g. GAR's 32-block rows and 30 corrections.
pub trait BlockRow: Copy {
    /// The all-zero row.
    const ZERO: Self;
    /// The row's blocks in order.
    fn blocks(&self) -> &[Block];
    /// The row's blocks in order, writable.
    fn blocks_mut(&mut self) -> &mut [Block];
}

impl<const N: usize> BlockRow for [Block; N] {
    const ZERO: Self = [Block::ZERO; N];
    fn blocks(&self) -> &[Block] {
        self
    }
    fn blocks_mut(&mut self) -> &mut [Block] {
        self
    }
}

impl<const H: usize> BlockRow for [[Block; H]; 2] {
    const ZERO: Self = [[Block::ZERO; H]; 2];
    fn blocks(&self) -> &[Block] {
        self.as_flattened()
    }
    fn blocks_mut(&mut self) -> &mut [Block] {
        self.as_flattened_mut()
    }
}

/// The corrections of every row of the span's chunk `rows`: its blocks
/// from the third on.
pub fn row_corrections<R: BlockRow, F: BlockRow>(rows: &[R], span: Span, out: &mut [F]) {
    let len = span.len;
    for (o, row) in out.iter_mut().take(len).zip(rows) {
        for (d, s) in o.blocks_mut().iter_mut().zip(row.blocks().iter().skip(2)) {
            *d = *s;
        }
    }
}

/// The derandomized pairs of every row of the span's chunk `rows`: its
/// first two blocks.
pub fn row_pairs<R: BlockRow>(rows: &[R], span: Span, out: &mut [[Block; 2]]) {
    let len = span.len;
    for (o, row) in out.iter_mut().take(len).zip(rows) {
        for (d, s) in o.iter_mut().zip(row.blocks()) {
            *d = *s;
        }
    }
}

/// The receiver's messages `m_{b_n}` of the OTs of `span` (of `m`) from
/// the sender's rows of `N − 2` corrections, `fix` (the span's chunk of
/// the message).
pub fn chosen_rows<F: BlockRow>(
    r: &QuietRotReceiver,
    fix: &[F],
    m: usize,
    span: Span,
    out: &mut [Block],
) {
    let Span { offset, len } = span;
    let _ = m;
    for (k, (o, row)) in out.iter_mut().take(len).zip(fix).enumerate() {
        *o = offset
            .checked_add(k)
            .map_or(Block::ZERO, |n| r.chosen_one(n, row.blocks()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::whole;

    #[test]
    fn classes_are_the_weak_prf_roundings() {
        assert_eq!(BIPSW_CLASSES, [0, 0, 0, 1, 1, 1]);
        for (c, &b) in GAR_CLASSES.iter().enumerate() {
            let (p, w) = (c / 16, c % 16);
            assert_eq!(b, (p ^ usize::from(w >= 8)) as u8);
        }
        assert_eq!(reps(&BIPSW_CLASSES), [0, 3]);
        assert_eq!(reps(&GAR_CLASSES), [0, 8]);
    }

    /// Synthetic batch of `m` OTs: candidate hashes from a counter, the
    /// receiver's index `c_n = n mod N` and its hash `h_{c_n}`.
    fn batch(classes: &'static [u8], m: usize) -> (QuietRotSender, QuietRotReceiver) {
        let n = classes.len();
        let blocks: Vec<Block> = (0..m * n)
            .map(|i| Block::from_u64s((i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15), !(i as u64)))
            .collect();
        let index: Vec<u8> = (0..m).map(|k| (k % n) as u8).collect();
        let own = index
            .iter()
            .enumerate()
            .map(|(k, &c)| blocks[k * n + usize::from(c)])
            .collect();
        (
            QuietRotSender::new(classes, 0, blocks),
            QuietRotReceiver::new(classes, 0, index, own),
        )
    }

    /// The streamed rows, split into chunks as the `convert` round does,
    /// give the same pairs and corrections as the whole-batch functions,
    /// and the receiver decodes `y_n[r_n]` from them, for the 6-block and
    /// the two-halves 32-block row layouts.
    #[test]
    fn streamed_rows_match_whole_batch_conversion() {
        fn check<R: BlockRow, F: BlockRow>(classes: &'static [u8]) {
            let m = 77;
            let (s, r) = batch(classes, m);
            let flips = Bits::from_bools(&(0..m).map(|k| k % 3 == 1).collect::<Vec<_>>());
            let mut rows = vec![R::ZERO; m];
            for off in (0..m).step_by(16) {
                let len = (m - off).min(16);
                let blocks = s.blocks[off * classes.len()..(off + len) * classes.len()].to_vec();
                let chunk = QuietRotSender::new(classes, off as u64, blocks);
                chunk.rows_into(&flips, &mut rows[off..off + len]);
            }
            let fix: Vec<F> = whole::row_corrections(&rows);
            let flat: Vec<Block> = fix.iter().flat_map(|f| f.blocks().to_vec()).collect();
            assert_eq!(flat, s.corrections());
            assert_eq!(whole::row_pairs(&rows), s.pairs(&flips));
            let mut x = vec![Block::ZERO; m];
            for off in (0..m).step_by(16) {
                let len = (m - off).min(16);
                chosen_rows(
                    &r,
                    &fix[off..off + len],
                    m,
                    Span::new(off, len),
                    &mut x[off..],
                );
            }
            assert_eq!(x, whole::chosen_rows(&r, &fix, m));
            let (pairs, b) = (s.messages(), r.choices());
            for k in 0..m {
                assert_eq!(x[k], pairs[k][usize::from(b.get(k))], "OT {k}");
            }
        }
        check::<[Block; 6], [Block; 4]>(&BIPSW_CLASSES);
        check::<[[Block; 16]; 2], [[Block; 15]; 2]>(&GAR_CLASSES);
    }
}
