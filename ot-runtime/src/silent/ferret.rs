//! Kernels of one batch of Ferret's random COT (Yang, Weng, Lan, Zhang,
//! Wang, "Ferret: Fast Extension for coRRElated oT with small
//! communication", CCS 2020, eprint 2020/924): the multi-point COT with
//! regular noise (Fig. 6 SPCOT per tree, §6 regular noise), then the
//! primal-LPN step with a local linear code ([`super::lpn`], Fig. 8 step 4).
//! The message flow is `protocols/ferret_extend.otp` (and
//! `ferret_extend_malicious.otp`, whose check is [`super::ferret_check`]).
//!
//! A batch consumes `R = k + t·h` base COTs under the sender's `Δ` (the
//! first `k` for the LPN secret, the last `t·h` for the trees' level keys)
//! and produces `N = t·2^h` COTs under the same `Δ`; a session keeps the
//! last `R` outputs as the next batch's base COTs (Ferret §5,
//! bootstrapping).
//!
//! # The choice bit in the low bit
//!
//! The sender's `Δ` has its least significant bit set. The sender clears
//! the low bit of its base values `s_j` and of its leaves `v_i`; the
//! receiver sets the low bit of its base value `t_j` to its choice bit
//! `u_j` (then `t_j = s_j ⊕ u_j·Δ` still holds) and clears its off-path
//! leaves' low bits the same way. So the sender's outputs `z_i` have a zero
//! low bit and the receiver's `y_i = z_i ⊕ x_i·Δ` carries its choice bit
//! `x_i` as its low bit: the LPN step computes the choice bits for free,
//! with no access at a secret address. (The convention of emp-ot's Ferret
//! and of point-and-permute garbling; the sender's outputs have 127 random
//! bits, `Δ` has 127 secret bits.)
//!
//! # Layout
//!
//! Trees are expanded a group of [`group_size`] trees at a time (about
//! 512 KiB of leaves, in L2), each group with the interleaved kernel of
//! [`crate::softspoken::ggm`]: leaf `j` of tree `first + g` of a group of `G` trees is
//! row `first·2^h + j·G + g`. For the LPN step the order of the rows is
//! irrelevant (the rows of the public matrix are independent and
//! identically distributed), so any fixed layout gives the same
//! distribution as Ferret's one-interval-per-tree regular noise.
//!
//! # Level keys from COTs
//!
//! Tree `i`'s level `l` uses base COT `k + i·h + l − 1` (Fig. 6 with COT).
//! With the standard trees (`ferret_extend_malicious.otp`) the sender's
//! keys are `H(z)` and `H(z ⊕ Δ)` with `H` the tweakable
//! correlation-robust hash (`crate::primitives::hash::tccr`, session the batch's tree
//! session, tweak the COT's index), the receiver gets `H(y) = H(z ⊕ c·Δ)`
//! for its random choice bit `c`, and its punctured index `α_i` is defined
//! by those bits: bit `l` (level `l`, most significant first) is `¬c`, so
//! it learns the level sum off its path. `α` is uniform because the choice
//! bits are.
//!
//! # The half tree
//!
//! `ferret_extend.otp` expands correlated trees instead
//! ([`ggm::cggm_expand_interleaved_into`], Guo et al., "Half-Tree",
//! EUROCRYPT 2023, §3–4): one hash per parent, and every level of a tree
//! XORs to `Δ`, so the sender sends one block per level, `K_l^0 ⊕ z`
//! ([`half_masks`]; the receiver's `z ⊕ c·Δ` unmasks `K_l^c`, the side off
//! its path, [`half_unmask`]), and no correction: a tree's leaves XOR to
//! `Δ`, so the receiver's punctured leaf is `1 ⊕ ⊕_{j≠α} w_j` over its
//! low-bit-cleared leaves ([`Punctured::half`], [`try_receiver_encode`]). Half the bytes
//! and half the AES of the standard trees; the malicious variant keeps the
//! standard trees, for which Ferret's check is proven.

use zeroize::Zeroize;

use super::lpn;
use super::params::MAX_DEPTH;
use crate::primitives::bits::{check_len, ShapeError};
use crate::{softspoken::ggm, Bits, Block};

/// A parameter set `(t, h, k)`: `t` trees of depth `h` (regular noise of
/// weight `t` over `N = t·2^h` samples) and an LPN secret of `k` bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    /// GGM trees, the noise weight `t`.
    pub trees: usize,
    /// Tree depth `h` (`2^h` samples per noisy coordinate).
    pub depth: usize,
    /// LPN dimension `k` (base COTs for the secret).
    pub k: usize,
}

/// Ferret's main-iteration parameters for 128-bit security with regular
/// noise (eprint 2020/924, Table 2): `N = 10,805,248`, `k = 589,760`,
/// `t = 1,319` (`h = 13`); `R = 606,907` base COTs per batch.
pub const EXTEND: Level = Level {
    trees: 1319,
    depth: 13,
    k: 589_760,
};

/// Ferret's set-up parameters (eprint 2020/924, Table 2): `N = 642,048`,
/// `k = 19,870`, `t = 2,508` (`h = 8`); its `N` covers [`EXTEND`]'s `R`.
pub const SETUP: Level = Level {
    trees: 2508,
    depth: 8,
    k: 19_870,
};

/// Whether this build has `ot-runtime`'s `insecure-test-levels` feature,
/// under which [`level_ok`] also accepts small insecure sets (for tests).
pub const INSECURE_TEST_LEVELS: bool = cfg!(feature = "insecure-test-levels");

impl Level {
    /// The outputs of a batch, `N = t·2^h` (`None` on overflow).
    pub fn outputs(&self) -> Option<usize> {
        self.trees
            .checked_mul(1usize.checked_shl(self.depth as u32)?)
    }

    /// Base COTs a batch consumes, `R = k + t·h`.
    pub fn reserved(&self) -> usize {
        self.k.saturating_add(self.trees.saturating_mul(self.depth))
    }

    /// The same set with its first `trees` trees only (a *prefix*: the
    /// same `k` and depth, fewer noisy blocks).
    pub fn prefix(&self, trees: usize) -> Level {
        Level { trees, ..*self }
    }

    /// The trees of the smallest prefix of this set whose batch gives at
    /// least `wanted` outputs beyond `keep` (the base COTs the next batch
    /// takes from it) and covers its own base (`k + t·h ≤ t·2^h`, plus
    /// `extra` base COTs such as the malicious check's 128), capped at
    /// this set's `trees`. Both parties of a batch compute it alike.
    pub fn prefix_trees(&self, wanted: usize, keep: usize, extra: usize) -> usize {
        let width = 1usize.checked_shl(self.depth as u32).unwrap_or(usize::MAX);
        let covers = |t: usize| {
            let l = self.prefix(t);
            l.outputs().is_some_and(|n| {
                n >= l.reserved().saturating_add(extra) && n >= keep.saturating_add(wanted)
            })
        };
        // Start from the count the outputs alone need, then step up
        // (the base term grows by `depth` per tree, far below `2^depth`).
        let mut t = keep.saturating_add(wanted).div_ceil(width).max(1);
        while t < self.trees && !covers(t) {
            t += 1;
        }
        t.min(self.trees)
    }
}

/// The (set-up, main) sets for a session that produces about `n` COTs:
/// [`SETUP`] for both while `n` is at most four small batches (its 318 KB
/// table of LPN base values stays in cache, so small batches are faster
/// there, at about 0.4 bytes per COT), [`EXTEND`] as the main set above
/// (about 0.05 bytes per COT at `2^24`).
pub fn levels_for(n: usize) -> (Level, Level) {
    let small = SETUP.outputs().unwrap_or(0) - SETUP.reserved();
    if n <= 4 * small {
        (SETUP, SETUP)
    } else {
        (SETUP, EXTEND)
    }
}

/// Whether `(trees, depth, k)` is a parameter set a batch may run: one of
/// Ferret's published sets ([`EXTEND`], [`SETUP`]) or a prefix of one
/// (its `k` and depth, fewer trees, `k + t·h ≤ N`), or, with the
/// `insecure-test-levels` feature only, any shape with `1 ≤ depth ≤ 20`,
/// `1 ≤ k < 2^32` and `k + t·h ≤ N` (no security claimed).
///
/// Why a prefix is as secure as its set: the rows of `A` are independent
/// and each tree is one block of the regular noise, so a batch of `t' <
/// t` trees is distributed exactly as the first `t'·2^h` rows of a batch
/// of the published set. Any attack on the smaller instance is an attack
/// on the published one that ignores its other rows (LPN gets no easier
/// with fewer samples at the same dimension and noise rate).
pub fn level_ok(trees: usize, depth: usize, k: usize) -> bool {
    let l = Level { trees, depth, k };
    if l == EXTEND || l == SETUP {
        return true;
    }
    let prefix_of = |set: Level| {
        depth == set.depth
            && k == set.k
            && (1..set.trees).contains(&trees)
            && l.outputs().is_some_and(|n| l.reserved() <= n)
    };
    if prefix_of(EXTEND) || prefix_of(SETUP) {
        return true;
    }
    INSECURE_TEST_LEVELS
        && trees >= 1
        && (1..=MAX_DEPTH).contains(&depth)
        && (1..=u32::MAX as usize).contains(&k)
        && l.outputs().is_some_and(|n| l.reserved() <= n)
}

/// Whether `Δ` has its low bit set (the choice-bit convention of the
/// module documentation).
pub fn delta_ok(delta: Block) -> bool {
    delta.0 & 1 == 1
}

/// Domain label of the code seed ([`code_seed`]).
const CODE_DOMAIN: &[u8] = b"silentot/ferret-code";

/// Domain label of the tree session ([`tree_session`]).
const TREE_DOMAIN: &[u8] = b"silentot/ferret-tree";

/// The seed of a batch's public matrix `A`: SHA-256 over the domain label
/// `"silentot/ferret-code"`, the sender's fresh salt, the batch index and
/// the parameter set, truncated to 128 bits.
pub fn code_seed(salt: Block, batch: usize, trees: usize, depth: usize, k: usize) -> Block {
    crate::otext::session_id_with(
        CODE_DOMAIN,
        salt,
        &[batch as u64, trees as u64, depth as u64, k as u64],
    )
}

/// The seed of a malicious batch's public matrix `A`, which the receiver
/// needs before the sender's message (it computes `A·t` while the sender
/// expands): as [`code_seed`] without a salt (label, batch, set). LPN's
/// matrix is public and may be fixed in advance (Ferret fixes one); what
/// every batch draws anew is the secret `u` and the noise `e`.
pub fn fixed_code_seed(batch: usize, trees: usize, depth: usize, k: usize) -> Block {
    code_seed(Block::ZERO, batch, trees, depth, k)
}

/// The tree session of a batch (keys the GGM position tweaks and the
/// level-key hash): as [`code_seed`] under its own label
/// `"silentot/ferret-tree"`.
pub fn tree_session(salt: Block, batch: usize, trees: usize, depth: usize, k: usize) -> Block {
    crate::otext::session_id_with(
        TREE_DOMAIN,
        salt,
        &[batch as u64, trees as u64, depth as u64, k as u64],
    )
}

/// Trees expanded together: about `2^15` leaves (512 KiB) per group.
pub fn group_size(depth: usize) -> usize {
    (1usize << 15 >> depth.min(15)).max(1)
}

/// The row of leaf `leaf` of tree `tree` (out of `trees`, depth `depth`):
/// the group layout of the module documentation.
pub fn row_of(tree: usize, leaf: usize, trees: usize, depth: usize) -> usize {
    let g = group_size(depth);
    let first = tree / g * g;
    let width = g.min(trees - first);
    (first << depth) + leaf * width + (tree - first)
}

/// The sender's trees after expansion: every leaf (low bit cleared, in
/// the group layout) and the unmasked level sums. Wiped on drop.
#[derive(Default)]
pub struct SenderTrees {
    depth: usize,
    leaves: Vec<Block>,
    sums: Vec<[Block; 2]>,
}

impl Drop for SenderTrees {
    fn drop(&mut self) {
        super::pool::give(core::mem::take(&mut self.leaves));
        self.sums.iter_mut().flatten().for_each(|b| b.0.zeroize());
    }
}

impl core::fmt::Debug for SenderTrees {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "SenderTrees {{ depth: {}, leaves: {} }}",
            self.depth,
            self.leaves.len()
        )
    }
}

/// Checks `1 ≤ depth ≤ MAX_DEPTH` and at least one tree.
fn check_shape(what: &'static str, trees: usize, depth: usize) -> Result<(), ShapeError> {
    if trees == 0 || !(1..=MAX_DEPTH).contains(&depth) {
        return Err(ShapeError::Shape {
            what,
            rows: trees,
            cols: depth,
        });
    }
    Ok(())
}

/// The group ranges `(first, count)` of `trees` trees.
fn groups(trees: usize, depth: usize) -> impl Iterator<Item = (usize, usize)> {
    let g = group_size(depth);
    (0..trees)
        .step_by(g)
        .map(move |first| (first, g.min(trees - first)))
}

/// Sender, step 1 (Fig. 6): expands every root into a GGM tree of depth
/// `depth` a group at a time ([`ggm::ggm_expand_interleaved_into`] under
/// the tweaks of the tree session `tsid`), keeps the level sums, and
/// clears the leaves' low bits.
///
/// Errors: [`ShapeError::Shape`] with no roots or a depth outside
/// `1..=MAX_DEPTH`.
pub fn try_sender_expand(
    roots: &[Block],
    depth: usize,
    tsid: Block,
) -> Result<SenderTrees, ShapeError> {
    expand_with(roots, depth, tsid, None)
}

/// Sender, step 1 with the half tree (module documentation, "The half
/// tree"): the correlated trees of [`ggm::cggm_expand_interleaved_into`]
/// under `delta` from the seeds `roots`, a group at a time; the sums kept
/// are `[K_l^0, K_l^0 ⊕ Δ]`; the leaves' low bits are cleared. Errors as
/// [`try_sender_expand`].
pub fn try_sender_expand_half(
    roots: &[Block],
    delta: Block,
    depth: usize,
    tsid: Block,
) -> Result<SenderTrees, ShapeError> {
    expand_with(roots, depth, tsid, Some(delta))
}

/// The expansion of [`try_sender_expand`] (`delta` `None`) or
/// [`try_sender_expand_half`].
fn expand_with(
    roots: &[Block],
    depth: usize,
    tsid: Block,
    delta: Option<Block>,
) -> Result<SenderTrees, ShapeError> {
    let trees = roots.len();
    check_shape("silent::ferret sender trees", trees, depth)?;
    // Built first, so that an error drops (and wipes) what was expanded.
    let mut st = SenderTrees {
        depth,
        leaves: super::pool::take(trees << depth),
        sums: Block::zeroed_pairs(trees * depth),
    };
    let mut left = Block::zeroed_vec(group_size(depth).min(trees) * depth);
    for (first, count) in groups(trees, depth) {
        let tweaks = ggm::GgmTweaks::for_range(tsid, trees, depth, first, count);
        let out = &mut st.leaves[first << depth..(first + count) << depth];
        let s = &mut st.sums[first * depth..(first + count) * depth];
        let seeds = &roots[first..first + count];
        match delta {
            None => ggm::ggm_expand_interleaved_into(seeds, depth, &tweaks, out, Some(s))?,
            Some(d) => {
                let k0 = &mut left[..count * depth];
                ggm::cggm_expand_interleaved_into(seeds, d, depth, &tweaks, out, k0)?;
                for (pair, &k) in s.iter_mut().zip(k0.iter()) {
                    *pair = [k, k ^ d];
                }
            }
        }
        crate::primitives::xor::clear_low_bits(out);
    }
    left.iter_mut().for_each(|b| b.0.zeroize());
    Ok(st)
}

/// [`try_sender_expand`] for the protocol (its parameters are checked by
/// [`level_ok`]): a bad shape gives empty trees and wrongly sized
/// messages, which the peer refuses.
pub fn sender_expand(roots: &[Block], depth: usize, tsid: Block) -> SenderTrees {
    try_sender_expand(roots, depth, tsid).unwrap_or_default()
}

/// [`try_sender_expand_half`] for the protocol (as [`sender_expand`]).
pub fn sender_expand_half(roots: &[Block], delta: Block, depth: usize, tsid: Block) -> SenderTrees {
    try_sender_expand_half(roots, delta, depth, tsid).unwrap_or_default()
}

/// The 64-bit session of the level-key hash, from the tree session.
fn key_session(tsid: Block) -> u64 {
    tsid.0 as u64
}

/// Sender, step 2 (Fig. 6 with COT): per tree `i` and level `l`, the sums
/// `[L ⊕ H(z), R ⊕ H(z ⊕ Δ)]` with `z` the sender's value of base COT
/// `i·h + l − 1` of `keys` (the batch's tree COTs) and `H` the TCCR hash at
/// that index. Entries past the shorter input are zero.
pub fn masked_sums(
    trees: &SenderTrees,
    keys: &[Block],
    delta: Block,
    tsid: Block,
) -> Vec<[Block; 2]> {
    let mut pairs: Vec<[Block; 2]> = keys.iter().map(|&z| [z, z ^ delta]).collect();
    crate::primitives::hash::tccr_pairs_in_place(key_session(tsid), 0, &mut pairs);
    let mut out = Block::zeroed_pairs(trees.sums.len());
    for ((o, s), m) in out.iter_mut().zip(&trees.sums).zip(&pairs) {
        *o = [s[0] ^ m[0], s[1] ^ m[1]];
    }
    pairs.iter_mut().flatten().for_each(|b| b.0.zeroize());
    out
}

/// Sender, step 2 with the half tree: per tree `i` and level `l`, `K_l^0 ⊕
/// z` with `z` the sender's value of base COT `i·h + l − 1` of `keys` (one
/// block per level; the receiver's `z ⊕ c·Δ` unmasks `K_l^c`, the side its
/// choice bit `c` names, which is the side off its path). Entries past the
/// shorter input are zero.
pub fn half_masks(trees: &SenderTrees, keys: &[Block]) -> Vec<Block> {
    let mut out = Block::zeroed_vec(trees.sums.len());
    for ((o, s), &z) in out.iter_mut().zip(&trees.sums).zip(keys) {
        *o = s[0] ^ z;
    }
    out
}

/// Sender, step 3: per tree, `d_i = Δ ⊕ ⊕_j v_j` over its (low-bit
/// cleared) leaves, `trees` entries.
pub fn corrections(trees: &SenderTrees, delta: Block, count: usize) -> Vec<Block> {
    let mut out = vec![delta; count];
    let depth = trees.depth;
    if trees.leaves.is_empty() || Some(trees.leaves.len()) != count.checked_shl(depth as u32) {
        // Trees of another shape (which the protocol's types rule out).
        return out;
    }
    for (first, g) in groups(count, depth) {
        let leaves = &trees.leaves[first << depth..(first + g) << depth];
        // Rows of `g` leaves, one per tree.
        let mut sums = crate::primitives::xor::period_sums(leaves, g);
        for (o, s) in out[first..first + g].iter_mut().zip(&sums) {
            *o ^= *s;
        }
        sums.iter_mut().for_each(|b| b.0.zeroize());
    }
    out
}

/// Sender, step 4 (Fig. 8, the LPN step): `z = v ⊕ A·s` in place over the
/// leaves, with `s` the batch's first `k` base values (low bits cleared
/// here) and `A` the local code under `seed`; consumes the trees. The low
/// bit of every output is zero. `n` is the protocol's `trees · 2^depth`
/// (any other value, which its parameters rule out, gives `n` zeros).
pub fn sender_encode(mut trees: SenderTrees, base: &[Block], seed: Block, n: usize) -> Vec<Block> {
    if trees.leaves.len() != n {
        return Block::zeroed_vec(n);
    }
    let mut s: Vec<Block> = base.iter().map(|b| Block(b.0 & !1)).collect();
    let mut out = core::mem::take(&mut trees.leaves);
    if !s.is_empty() {
        let _ = lpn::try_sender_encode(&mut out, &s, seed, 0);
    }
    s.iter_mut().for_each(|b| b.0.zeroize());
    out
}

/// The receiver's LPN base values `t_j` with their low bits set to the
/// choice bits `u_j` (so `t_j = s_j ⊕ u_j·Δ` still holds for the sender's
/// low-bit-cleared `s_j`, Δ's low bit being 1); the caller wipes them.
fn with_choice_bits(base: &[Block], choices: &Bits) -> Vec<Block> {
    base.iter()
        .enumerate()
        .map(|(j, b)| Block(b.0 & !1 | u128::from(choices.get(j))))
        .collect()
}

/// Receiver: the punctured indices defined by its random choice bits of
/// the tree COTs: bit `l` of `α_i` (most significant first) is the
/// complement of choice bit `i·h + l − 1`. `trees` entries.
pub fn receiver_alphas(choices: &Bits, depth: usize, trees: usize) -> Vec<usize> {
    (0..trees)
        .map(|i| {
            (0..depth).fold(0usize, |a, l| {
                a << 1 | usize::from(!choices.try_get(i * depth + l).unwrap_or(false))
            })
        })
        .collect()
}

/// Receiver: the level sums off its paths, `masked[j][c_j] ⊕ H(y_j)` (the
/// side selected in constant time), for its tree COTs `chosen` with choice
/// bits `choices`.
pub fn unmask_sums(
    masked: &[[Block; 2]],
    choices: &Bits,
    chosen: &[Block],
    tsid: Block,
) -> Vec<Block> {
    let mut keys = chosen.to_vec();
    crate::primitives::hash::tccr_many(key_session(tsid), 0, &mut keys);
    let out = super::spcot::unmask_sums(masked, choices, &keys);
    keys.iter_mut().for_each(|b| b.0.zeroize());
    out
}

/// Receiver with the half tree: the level sums off its paths, `masked[j] ⊕
/// y_j = K^{c_j}` for its tree COTs `chosen` (choice bits `c_j`).
pub fn half_unmask(masked: &[Block], chosen: &[Block]) -> Vec<Block> {
    masked.iter().zip(chosen).map(|(&m, &y)| m ^ y).collect()
}

/// What the receiver knows of the sender's GGM trees after the expand
/// round: its punctured index `α_i` per tree, the depth, the level sums
/// off its paths and, for standard trees, the sender's per-tree
/// corrections (half trees need none), with the batch's tree session
/// `tsid` (the sender's tweaks). The context of the receiver's fused
/// encode ([`try_receiver_encode`]); a copy of the small per-tree values
/// (`trees · (depth + 2)` words, against `trees · 2^depth` leaves),
/// wiped on drop.
#[derive(Clone, Default)]
pub struct Punctured {
    alphas: Vec<usize>,
    depth: usize,
    known: Vec<Block>,
    corr: Option<Vec<Block>>,
    tsid: Block,
}

impl core::fmt::Debug for Punctured {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let kind = if self.corr.is_some() {
            "standard"
        } else {
            "half"
        };
        write!(
            f,
            "Punctured {{ {kind}, trees: {}, depth: {} }}",
            self.alphas.len(),
            self.depth
        )
    }
}

impl Drop for Punctured {
    fn drop(&mut self) {
        self.alphas.iter_mut().for_each(|a| a.zeroize());
        self.known.iter_mut().for_each(|b| b.0.zeroize());
        if let Some(c) = &mut self.corr {
            c.iter_mut().for_each(|b| b.0.zeroize());
        }
    }
}

impl Punctured {
    /// Standard GGM trees ([Ferret, Fig. 6]): rebuilt by
    /// [`ggm::ggm_punctured_interleaved_into`] from the level sums `known`
    /// ([`unmask_sums`]); leaf `α_i` is `d_i ⊕ ⊕_{j≠α_i} w_j` with `d_i =
    /// corr[i]` the sender's correction.
    pub fn standard(
        alphas: &[usize],
        depth: usize,
        known: &[Block],
        corr: &[Block],
        tsid: Block,
    ) -> Punctured {
        Punctured {
            alphas: alphas.to_vec(),
            depth,
            known: known.to_vec(),
            corr: Some(corr.to_vec()),
            tsid,
        }
    }

    /// Correlated (half) trees: rebuilt by
    /// [`ggm::cggm_punctured_interleaved_into`] from the unmasked sums
    /// `known` ([`half_unmask`]); leaf `α_i` is `1 ⊕ ⊕_{j≠α_i} w_j` (a
    /// correlated tree's leaves XOR to `Δ`, whose low bit is 1; the
    /// others' low bits are cleared), so no correction is sent.
    pub fn half(alphas: &[usize], depth: usize, known: &[Block], tsid: Block) -> Punctured {
        Punctured {
            alphas: alphas.to_vec(),
            depth,
            known: known.to_vec(),
            corr: None,
            tsid,
        }
    }

    /// Rebuilds one group's punctured leaves and completes leaf `α` of
    /// each tree (`first` the group's first tree).
    fn rebuild_group(
        &self,
        first: usize,
        tweaks: &ggm::GgmTweaks,
        leaves: &mut [Block],
    ) -> Result<(), ShapeError> {
        let (depth, g) = (self.depth, leaves.len() >> self.depth);
        let a = &self.alphas[first..first + g];
        let sums = &self.known[first * depth..(first + g) * depth];
        match &self.corr {
            Some(corr) => {
                ggm::ggm_punctured_interleaved_into(a, sums, depth, tweaks, leaves)?;
                complete_group(leaves, a, &corr[first..first + g]);
            }
            None => {
                ggm::cggm_punctured_interleaved_into(a, sums, depth, tweaks, leaves)?;
                complete_group(leaves, a, &vec![Block(1); g]);
            }
        }
        Ok(())
    }
}

/// The LPN step's secret, as the receiver holds it: its base values
/// `base`, their choice bits, and the seed of the batch's local linear
/// code ([`super::lpn`]).
#[derive(Clone, Copy, Debug)]
pub struct LpnInput<'a> {
    /// The receiver's first `k` base COT values `t_j`.
    pub base: &'a [Block],
    /// Their choice bits `u_j`.
    pub choices: &'a Bits,
    /// The code's seed ([`code_seed`] or [`fixed_code_seed`]).
    pub seed: Block,
}

/// Receiver, steps 2 and 4 fused a group of trees at a time: rebuilds
/// every leaf but `α_i` of the trees of `trees` ([`Punctured`], under the
/// sender's tweaks), clears the low bits, completes leaf `α_i` by a
/// branch-free scan, then adds `A·t` to the group's rows while they are in
/// cache, with `t` the batch's first `k` base values whose low bits are
/// set to the choice bits `u` ([`LpnInput`]). Returns `y = w ⊕ A·t`, whose
/// low bits are the receiver's choice bits.
///
/// Errors: [`ShapeError`] for a bad depth or `α`, or lengths that do not
/// match the number of trees, `depth` and `lpn.base.len()`.
pub fn try_receiver_encode(trees: &Punctured, lpn: LpnInput<'_>) -> Result<Vec<Block>, ShapeError> {
    receiver_encode_with(trees, lpn, None).map(|(out, _)| out)
}

/// [`try_receiver_encode`] for the protocol: the message lengths are
/// fixed by the message types and the indices come from
/// [`receiver_alphas`], so an error only follows a bad shape; it gives an
/// output of `n` zeros (as does an `n` other than `trees · 2^depth`).
pub fn receiver_encode(
    trees: &Punctured,
    base: &[Block],
    base_choices: &Bits,
    seed: Block,
    n: usize,
) -> Vec<Block> {
    let lpn = LpnInput {
        base,
        choices: base_choices,
        seed,
    };
    match try_receiver_encode(trees, lpn) {
        Ok(out) if out.len() == n => out,
        _ => Block::zeroed_vec(n),
    }
}

/// The fused pass of [`try_receiver_encode`] and
/// [`receiver_encode_checked`]: per group of trees, rebuild the leaves
/// `w`, add `Σ χ_i w_i` under `chi` if given (before the LPN step
/// overwrites them), then add `A·t` while the group is in cache.
fn receiver_encode_with(
    trees: &Punctured,
    lpn: LpnInput<'_>,
    chi: Option<Block>,
) -> Result<(Vec<Block>, Block), ShapeError> {
    let (count, depth) = (trees.alphas.len(), trees.depth);
    check_shape("silent::ferret receiver trees", count, depth)?;
    if let Some(corr) = &trees.corr {
        check_len("silent::ferret corrections", count, corr.len())?;
    }
    check_len(
        "silent::ferret level sums",
        count * depth,
        trees.known.len(),
    )?;
    check_len(
        "silent::ferret base choices",
        lpn.base.len(),
        lpn.choices.len(),
    )?;
    let mut t = with_choice_bits(lpn.base, lpn.choices);
    let mut out = super::pool::take(count << depth);
    let mut w_sum = Block::ZERO;
    let result = (|| {
        for (first, g) in groups(count, depth) {
            let tweaks = ggm::GgmTweaks::for_range(trees.tsid, count, depth, first, g);
            let rows = first << depth..(first + g) << depth;
            let leaves = &mut out[rows.clone()];
            trees.rebuild_group(first, &tweaks, leaves)?;
            if let Some(chi) = chi {
                w_sum ^= super::ferret_check::weighted_sum(leaves, chi, rows.start);
            }
            lpn::try_sender_encode(leaves, &t, lpn.seed, rows.start)?;
        }
        Ok(())
    })();
    t.iter_mut().for_each(|b| b.0.zeroize());
    if let Err(e) = result {
        super::pool::give(out);
        w_sum.0.zeroize();
        return Err(e);
    }
    Ok((out, w_sum))
}

/// The receiver's outputs of a malicious batch before its check: `y` and
/// `Σ_i χ_i w_i`. Wiped (and the buffer recycled) on drop unless the
/// output is taken.
#[derive(Default)]
pub struct ReceiverRun {
    out: Vec<Block>,
    w_sum: Block,
}

impl ReceiverRun {
    /// The run of a refused shape: `n` zero outputs and a zero sum.
    fn zeros(n: usize) -> ReceiverRun {
        ReceiverRun {
            out: Block::zeroed_vec(n),
            w_sum: Block::ZERO,
        }
    }
}

impl Drop for ReceiverRun {
    fn drop(&mut self) {
        super::pool::give(core::mem::take(&mut self.out));
        self.w_sum.0.zeroize();
    }
}

impl core::fmt::Debug for ReceiverRun {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "ReceiverRun {{ rows: {} }}", self.out.len())
    }
}

/// Receiver of a malicious batch, steps 2 and 4 fused as
/// [`try_receiver_encode`] (its trees, then `A·t` a group at a time while
/// the group is in cache, with the salt-free [`fixed_code_seed`]), adding
/// each group's `Σ χ_i w_i` under the challenge key `chi` before its LPN
/// step overwrites the leaves. Returns `y = w ⊕ A·t` and the sum, kept
/// until the check passes. An error (a bad shape, which the protocol's
/// types rule out), or `n` other than `trees · 2^depth`, gives `n` zero
/// outputs and a zero sum, which the check refuses.
pub fn receiver_encode_checked(
    trees: &Punctured,
    base: &[Block],
    base_choices: &Bits,
    seed: Block,
    chi: Block,
    n: usize,
) -> ReceiverRun {
    let lpn = LpnInput {
        base,
        choices: base_choices,
        seed,
    };
    match receiver_encode_with(trees, lpn, Some(chi)) {
        Ok((out, w_sum)) if out.len() == n => ReceiverRun { out, w_sum },
        Ok((out, mut w_sum)) => {
            super::pool::give(out);
            w_sum.0.zeroize();
            ReceiverRun::zeros(n)
        }
        Err(_) => ReceiverRun::zeros(n),
    }
}

/// One group's punctured leaves (interleaved over the group's `a.len()`
/// trees, leaf `α` zero): clears the low bits and sets each tree's leaf
/// `α` to `d ⊕ ⊕_{j≠α} w_j` by a branch-free scan.
fn complete_group(leaves: &mut [Block], a: &[usize], corr: &[Block]) {
    let g = a.len();
    crate::primitives::xor::clear_low_bits(leaves);
    let mut missing = crate::primitives::xor::period_sums(leaves, g);
    for (m, &c) in missing.iter_mut().zip(corr) {
        *m ^= c;
    }
    for (j, row) in leaves.chunks_exact_mut(g).enumerate() {
        for ((leaf, &al), &m) in row.iter_mut().zip(a).zip(&missing) {
            *leaf ^= m & Block::mask(j == al);
        }
    }
    missing.iter_mut().for_each(|b| b.0.zeroize());
}

/// `Σ_i χ_i w_i` of a malicious batch's receiver run.
pub fn run_w_sum(run: &ReceiverRun) -> Block {
    run.w_sum
}

/// The receiver's outputs `y`, once its check has passed; `n` blocks.
pub fn run_output(mut run: ReceiverRun, n: usize) -> Vec<Block> {
    let out = core::mem::take(&mut run.out);
    if out.len() == n {
        out
    } else {
        Block::zeroed_vec(n)
    }
}

/// The sender's `Σ_i χ_i v_i` over its (low-bit cleared) leaves.
pub fn sender_check_sum(trees: &SenderTrees, chi: Block) -> Block {
    super::ferret_check::weighted_sum(&trees.leaves, chi, 0)
}

/// The receiver's `Σ_t χ_{p_t}` over its noisy rows `p_t` ([`row_of`] of
/// tree `t`'s punctured leaf), each an AES evaluation at a secret counter.
pub fn noise_chi_sum(alphas: &[usize], depth: usize, chi: Block) -> Block {
    let trees = alphas.len();
    alphas.iter().enumerate().fold(Block::ZERO, |acc, (t, &a)| {
        let mask = 1usize
            .checked_shl(depth as u32)
            .map_or(usize::MAX, |w| w - 1);
        acc ^ super::ferret_check::chi_at(chi, row_of(t, a & mask, trees, depth))
    })
}

/// The low bits of `blocks` (the receiver's choice bits).
pub fn low_bits(blocks: &[Block]) -> Bits {
    let mut bytes = vec![0u8; blocks.len().div_ceil(8)];
    for (byte, chunk) in bytes.iter_mut().zip(blocks.chunks(8)) {
        for (i, b) in chunk.iter().enumerate() {
            *byte |= ((b.0 & 1) as u8) << i;
        }
    }
    Bits::from_bytes(&bytes, blocks.len()).unwrap_or_else(|_| Bits::zeros(blocks.len()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lpn<'a>(base: &'a [Block], choices: &'a Bits, seed: Block) -> LpnInput<'a> {
        LpnInput {
            base,
            choices,
            seed,
        }
    }
    use crate::primitives::rng::Rng;

    /// One batch through the kernels, both roles, as the protocols run
    /// them, with the standard trees or (`half`) the correlated ones:
    /// every output satisfies `y = z ⊕ x·Δ` with `x` the low bit.
    fn batch_of(
        half: bool,
        trees: usize,
        depth: usize,
        k: usize,
    ) -> (Vec<Block>, Vec<Block>, Block, Vec<usize>) {
        let mut rng = Rng::deterministic_for_tests(3);
        let delta = rng.next_block() | Block(1);
        let r = k + trees * depth;
        let zeros: Vec<Block> = (0..r).map(|_| rng.next_block()).collect();
        let choices = Bits::random(&mut rng, r);
        let chosen: Vec<Block> = (0..r)
            .map(|j| zeros[j] ^ (delta & Block::mask(choices.get(j))))
            .collect();
        let (tsid, seed) = (Block(21), Block(22));
        let roots: Vec<Block> = (0..trees).map(|_| rng.next_block()).collect();
        let st = if half {
            try_sender_expand_half(&roots, delta, depth, tsid).unwrap()
        } else {
            try_sender_expand(&roots, depth, tsid).unwrap()
        };
        let masked = masked_sums(&st, &zeros[k..], delta, tsid);
        let half_masked = half_masks(&st, &zeros[k..]);
        let corr = corrections(&st, delta, trees);
        let z = sender_encode(st, &zeros[..k], seed, trees << depth);

        let mut tree_choices = Bits::zeros(trees * depth);
        for j in 0..trees * depth {
            tree_choices.set(j, choices.get(k + j));
        }
        let alphas = receiver_alphas(&tree_choices, depth, trees);
        let mut base_choices = Bits::zeros(k);
        for j in 0..k {
            base_choices.set(j, choices.get(j));
        }
        let y = if half {
            let known = half_unmask(&half_masked, &chosen[k..]);
            let (t, c) = (&chosen[..k], &base_choices);
            try_receiver_encode(
                &Punctured::half(&alphas, depth, &known, tsid),
                lpn(t, c, seed),
            )
            .unwrap()
        } else {
            let known = unmask_sums(&masked, &tree_choices, &chosen[k..], tsid);
            let (t, c) = (&chosen[..k], &base_choices);
            try_receiver_encode(
                &Punctured::standard(&alphas, depth, &known, &corr, tsid),
                lpn(t, c, seed),
            )
            .unwrap()
        };
        (z, y, delta, alphas)
    }

    #[test]
    fn a_batch_gives_correlated_ots_with_the_choice_in_the_low_bit() {
        let sets = [(1, 1, 1), (5, 3, 7), (9, 12, 300), (130, 8, 500)];
        for ((trees, depth, k), half) in sets.into_iter().flat_map(|s| [(s, false), (s, true)]) {
            let (z, y, delta, alphas) = batch_of(half, trees, depth, k);
            assert_eq!(z.len(), trees << depth);
            assert_eq!(y.len(), z.len());
            let x = low_bits(&y);
            for i in 0..z.len() {
                assert_eq!(z[i].0 & 1, 0);
                assert_eq!(
                    y[i],
                    z[i] ^ (delta & Block::mask(x.get(i))),
                    "row {i} of {trees}x{depth}"
                );
            }
            // The noise lies where the layout says.
            for (t, &a) in alphas.iter().enumerate() {
                assert!(a < 1 << depth);
                let _ = row_of(t, a, trees, depth);
            }
            if z.len() >= 4096 {
                let ones = x.count_ones();
                assert!(ones * 5 > 2 * z.len() && ones * 5 < 3 * z.len(), "{ones}");
            }
        }
    }

    /// Without the LPN step (`k` base values all zero, so `A·s = 0`), the
    /// receiver's low bits are the noise exactly: one per tree, at
    /// [`row_of`] of its punctured leaf.
    #[test]
    fn the_noise_is_one_row_per_tree_at_its_punctured_leaf() {
        let (trees, depth) = (11, 6);
        let mut rng = Rng::deterministic_for_tests(8);
        let delta = rng.next_block() | Block(1);
        let keys: Vec<Block> = (0..trees * depth).map(|_| rng.next_block()).collect();
        let choices = Bits::random(&mut rng, trees * depth);
        let chosen: Vec<Block> = (0..trees * depth)
            .map(|j| keys[j] ^ (delta & Block::mask(choices.get(j))))
            .collect();
        let roots: Vec<Block> = (0..trees).map(|_| rng.next_block()).collect();
        let st = try_sender_expand(&roots, depth, Block(4)).unwrap();
        let masked = masked_sums(&st, &keys, delta, Block(4));
        let corr = corrections(&st, delta, trees);
        let alphas = receiver_alphas(&choices, depth, trees);
        let known = unmask_sums(&masked, &choices, &chosen, Block(4));
        let zero = [Block::ZERO];
        let y = try_receiver_encode(
            &Punctured::standard(&alphas, depth, &known, &corr, Block(4)),
            lpn(&zero, &Bits::zeros(1), Block(5)),
        )
        .unwrap();
        let x = low_bits(&y);
        let mut want = vec![false; trees << depth];
        for (t, &a) in alphas.iter().enumerate() {
            want[row_of(t, a, trees, depth)] = true;
        }
        assert_eq!(x.iter().collect::<Vec<_>>(), want);
    }

    /// The malicious receiver's checked pass (the check's sum taken per
    /// group before its LPN step) gives the unchecked pass's outputs, and
    /// the check's values agree: `V = Y` for an honest pair.
    #[test]
    fn the_checked_path_matches_and_the_check_values_agree() {
        let (trees, depth, k) = (9usize, 7usize, 300usize);
        let mut rng = Rng::deterministic_for_tests(17);
        let delta = rng.next_block() | Block(1);
        let r = k + trees * depth + 128;
        let zeros: Vec<Block> = (0..r).map(|_| rng.next_block()).collect();
        let choices = Bits::random(&mut rng, r);
        let chosen: Vec<Block> = (0..r)
            .map(|j| zeros[j] ^ (delta & Block::mask(choices.get(j))))
            .collect();
        let bits = |from: usize, len: usize| {
            Bits::from_bools(
                &(from..from + len)
                    .map(|i| choices.get(i))
                    .collect::<Vec<_>>(),
            )
        };
        let th = trees * depth;
        let (tsid, seed) = (Block(41), Block(42));
        let roots: Vec<Block> = (0..trees).map(|_| rng.next_block()).collect();
        let st = try_sender_expand(&roots, depth, tsid).unwrap();
        let masked = masked_sums(&st, &zeros[k..k + th], delta, tsid);
        let corr = corrections(&st, delta, trees);
        let tc = bits(k, th);
        let alphas = receiver_alphas(&tc, depth, trees);
        let known = unmask_sums(&masked, &tc, &chosen[k..k + th], tsid);
        let fused = try_receiver_encode(
            &Punctured::standard(&alphas, depth, &known, &corr, tsid),
            lpn(&chosen[..k], &bits(0, k), seed),
        )
        .unwrap();
        let chi = super::super::ferret_check::chi_key(Block(43), tsid);
        let run = receiver_encode_checked(
            &Punctured::standard(&alphas, depth, &known, &corr, tsid),
            &chosen[..k],
            &bits(0, k),
            seed,
            chi,
            trees << depth,
        );
        let cc = bits(k + th, 128);
        let x_prime =
            noise_chi_sum(&alphas, depth, chi) ^ super::super::ferret_check::pack_bits(&cc);
        let v = super::super::ferret_check::receiver_v(run_w_sum(&run), &chosen[k + th..]);
        let y = super::super::ferret_check::sender_y(
            sender_check_sum(&st, chi),
            &zeros[k + th..],
            x_prime,
            delta,
        );
        assert_eq!(v, y);
        assert_eq!(run_output(run, trees << depth), fused);
    }

    /// Ferret's two published sets run; other shapes only in test builds.
    #[test]
    fn published_levels_are_accepted_and_others_need_the_test_feature() {
        assert!(level_ok(EXTEND.trees, EXTEND.depth, EXTEND.k));
        assert!(level_ok(SETUP.trees, SETUP.depth, SETUP.k));
        // Prefixes: fewer trees at the same depth and k, down to the
        // smallest that covers its own base; never more trees.
        assert!(level_ok(EXTEND.trees - 1, EXTEND.depth, EXTEND.k));
        assert!(level_ok(73, EXTEND.depth, EXTEND.k)); // 73·8192 ≥ 589,760 + 73·13
        assert!(!level_ok(72, EXTEND.depth, EXTEND.k) || INSECURE_TEST_LEVELS);
        assert!(level_ok(100, SETUP.depth, SETUP.k));
        assert!(!level_ok(EXTEND.trees + 1, EXTEND.depth, EXTEND.k) || INSECURE_TEST_LEVELS);
        assert!(!level_ok(EXTEND.trees, EXTEND.depth, EXTEND.k - 1) || INSECURE_TEST_LEVELS);
        assert_eq!(EXTEND.outputs(), Some(10_805_248));
        assert_eq!(EXTEND.reserved(), 606_907);
        assert!(SETUP.outputs().unwrap() >= EXTEND.reserved());
        assert_eq!(level_ok(5, 3, 7), INSECURE_TEST_LEVELS);
        assert!(!level_ok(0, 3, 7));
        assert!(!level_ok(5, 0, 7));
        assert!(!level_ok(1, 1, 5)); // k + t·h > N
    }

    /// The smallest prefix that delivers what is wanted beyond the kept
    /// base, capped at the whole set.
    #[test]
    fn prefix_trees_deliver_what_is_wanted() {
        let keep = EXTEND.reserved();
        for wanted in [
            0,
            1,
            8192,
            1 << 20,
            6_578_875,
            EXTEND.outputs().unwrap() - keep,
        ] {
            let t = EXTEND.prefix_trees(wanted, keep, 0);
            let l = EXTEND.prefix(t);
            assert!(level_ok(l.trees, l.depth, l.k), "{wanted}: {t}");
            let n = l.outputs().unwrap();
            assert!(n >= keep + wanted && n >= l.reserved(), "{wanted}: {t}");
            // One tree fewer would not do (unless at the floor).
            let fewer = EXTEND.prefix(t - 1).outputs().unwrap();
            assert!(fewer < keep + wanted || fewer < EXTEND.prefix(t - 1).reserved());
        }
        assert_eq!(EXTEND.prefix_trees(usize::MAX / 2, keep, 0), EXTEND.trees);
        // 2^24 after one main batch: 878 of 1319 trees.
        assert_eq!(EXTEND.prefix_trees(6_578_875, keep, 0), 878);
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert!(try_sender_expand(&[], 3, Block(1)).is_err());
        assert!(try_sender_expand(&[Block(1)], 0, Block(1)).is_err());
        let base = [Block(1)];
        let c = Bits::zeros(1);
        assert!(try_receiver_encode(
            &Punctured::standard(&[0], 2, &[Block(0); 2], &[], Block(1)),
            lpn(&base, &c, Block(1))
        )
        .is_err());
        assert!(try_receiver_encode(
            &Punctured::standard(&[0], 2, &[Block(0); 1], &[Block(0)], Block(1)),
            lpn(&base, &c, Block(1))
        )
        .is_err());
        assert!(try_receiver_encode(
            &Punctured::standard(&[4], 2, &[Block(0); 2], &[Block(0)], Block(1)),
            lpn(&base, &c, Block(1))
        )
        .is_err());
    }
}
