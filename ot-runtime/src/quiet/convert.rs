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
        let r = reps(self.classes);
        self.index
            .iter()
            .zip(&self.blocks)
            .enumerate()
            .map(|(n, (&c, &h))| {
                let c = usize::from(c);
                let b = self.class(c as u8);
                if c == r[usize::from(b)] {
                    return h;
                }
                // Position of candidate c among the non-representatives.
                let pos = c - usize::from(c > r[0]) - usize::from(c > r[1]);
                corr.get(n * per + pos).map_or(Block::ZERO, |k| h ^ *k)
            })
            .collect()
    }

    fn class(&self, c: u8) -> u8 {
        self.classes.get(usize::from(c)).copied().unwrap_or(0)
    }
}

/// The corrections message of a batch (`count` = `(N − 2) · m`, the
/// message's declared length).
pub fn corrections_n(s: &QuietRotSender, _count: usize) -> Vec<Block> {
    s.corrections()
}

/// The receiver's flip bits for its chosen choice bits `r`.
pub fn flips(r: &QuietRotReceiver, choices: &Bits) -> Bits {
    r.flips(choices)
}

/// The sender's derandomized pairs.
pub fn pairs(s: &QuietRotSender, flips: &Bits) -> Vec<[Block; 2]> {
    s.pairs(flips)
}

/// The receiver's messages `m_{b_n}` (`m` = the batch size).
pub fn chosen_n(r: &QuietRotReceiver, corr: &[Block], _m: usize) -> Vec<Block> {
    r.chosen(corr)
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
