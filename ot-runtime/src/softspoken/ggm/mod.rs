//! GGM trees (puncturable PRF) for the all-but-one OT of SoftSpokenOT
//! (Roy, "SoftSpokenOT: Quieter OT Extension from Small-Field Silent VOLE in
//! the Minicrypt Model", CRYPTO 2022, ePrint 2022/192, Fig. 13) and the
//! single-point COTs of silent OT (Ferret, eprint 2020/924, Fig. 6): the
//! sender expands a random root into `2^k` leaves with the tree of
//! Goldreich, Goldwasser and Micali (JACM 1986) and, per level, sends the
//! XOR of all left children and the XOR of all right children, each masked
//! by one key of a 1-out-of-2 base OT. A receiver that chose the complement
//! of its punctured index `α` bit by bit learns one sum per level and
//! rebuilds every leaf except leaf `α`.
//!
//! # The length-doubling PRG, tweaked by position
//!
//! With `π` = AES under the public [`crate::primitives::aes::FIXED_KEY`] and the
//! Matyas–Meyer–Oseas hash `H(x) = π(x) ⊕ x` ([`crate::primitives::hash::mmo`]), a node
//! `s` of level `l − 1` of tree `t` has the children
//!
//! ```text
//! G_b(s) = H(s ⊕ τ_{l,t} ⊕ c_b) = π(s ⊕ τ_{l,t} ⊕ c_b) ⊕ s ⊕ τ_{l,t} ⊕ c_b,
//! c_0 = 0,   c_1 = GGM_RIGHT_OFFSET (a nothing-up-my-sleeve constant),
//! ```
//!
//! with `τ_{l,t}` the public offset of that level and tree in the run
//! ([`GgmTweaks`], derived from the run's session).
//!
//! Why this is a PRG: `H` is correlation robust in the random-permutation
//! model (Guo, Katz, Wang, Yu, "Efficient and Secure Multiparty Computation
//! from Fixed-Key Block Ciphers", S&P 2020, §7): for a uniform secret `s`
//! and distinct public offsets `c_1, …, c_q`, the values `H(s ⊕ c_i)` are
//! indistinguishable from uniform. Here the offsets of one node are
//! `{τ, τ ⊕ c_1}`, so both children of a secret node are pseudorandom and
//! independent of it. The distinguishing advantage grows with the total
//! number of `π` evaluations `q` and the adversary's own evaluations `p`
//! roughly as `(q² + q·p) / 2^128` (GKWY20); the tweak does not remove that
//! term (a guess of a secret node is a guess under any offset).
//!
//! What the tweak adds (defence in depth for many instances, the concern
//! GKWY20 §7 answers with tweaks): the input offset is distinct for every
//! (session, tree, level), so equal nodes at two positions (a reused root,
//! or a birthday collision among the nodes of many trees and runs) do not
//! give equal subtrees, and an untweaked evaluation elsewhere in the crate
//! (`G_0(s)` would otherwise equal [`crate::primitives::hash::mmo`]`(s)`) never
//! coincides with a tree's except by chance. It costs one XOR per child.
//! This is the shape of the GGM trees of the silent-OT/Ferret
//! implementations (two fixed-key permutations, here one permutation and
//! public input offsets, so one key schedule serves the whole crate).
//!
//! # Layout and cost
//!
//! Levels are built breadth-first over all trees at once, in the
//! interleaved (node-major) layout: node `i` of tree `t` at index
//! `i · trees + t`, so that node `i`'s children are rows `2i` and `2i + 1`
//! and the last level puts leaf `j` of tree `t` at `j · trees + t`. That
//! is the noise layout silent OT needs (every tree spread over the whole
//! code, see [`crate::silent::spcot`]), produced for free by the level
//! order. Each level is one batched fixed-key MMO pass (one AES per child
//! node) in chunks of a few hundred blocks (rows of few trees grouped), so
//! even the top levels make full-size calls and the VAES backend keeps 32
//! blocks in flight. A level lives at the front of the output buffer and
//! the last level is the leaf array itself: no extra buffer. Expanding a
//! depth-`k` tree costs `2^(k+1) − 2` AES evaluations, just under two per
//! leaf. The tree-major functions ([`ggm_expand`], [`ggm_punctured`],
//! tree `t`'s leaves at `t · 2^k ..`) transpose the result, for the small
//! trees of the all-but-one OT.
//!
//! Indices: leaf `α` of a depth-`k` tree is reached by the bits of `α` from
//! the most significant one (level 1) to the least significant one (level
//! `k`); bit value 0 means the left child.

mod half;
mod level;
mod tweak;

pub use half::{cggm_expand_interleaved_into, cggm_punctured_interleaved_into};
pub use tweak::GgmTweaks;

use zeroize::Zeroize;

use crate::primitives::bits::{check_len, ShapeError};
use crate::Block;
use level::expand_level;

/// The largest depth the GGM kernels accept (`2^20` leaves per tree, 16 MiB
/// per tree of output): SoftSpokenOT uses small depths (its field size is
/// `2^k` with `k` ≈ 2..8), silent OT at most 20, and the bound keeps a
/// malformed depth from a peer from asking for an absurd allocation.
pub const MAX_GGM_DEPTH: usize = 20;

/// The offset `c_1` of the right child, `G_1(s) = H(s ⊕ τ ⊕ c_1)`: the 128
/// fractional bits of π that follow the ones used for
/// [`crate::primitives::aes::FIXED_KEY`] (`a4093822 299f31d0 082efa98 ec4e6c89`), a
/// nothing-up-my-sleeve nonzero constant. The left offset `c_0` is zero.
pub const GGM_RIGHT_OFFSET: Block = Block(0xa409_3822_299f_31d0_082e_fa98_ec4e_6c89);

/// Checks the depth and returns `trees · 2^depth`, the number of leaves.
fn leaf_count(what: &'static str, trees: usize, depth: usize) -> Result<usize, ShapeError> {
    if depth > MAX_GGM_DEPTH {
        return Err(ShapeError::Shape {
            what,
            rows: trees,
            cols: depth,
        });
    }
    trees.checked_mul(1usize << depth).ok_or(ShapeError::Shape {
        what,
        rows: trees,
        cols: depth,
    })
}

/// Sender side, interleaved layout: expands every root of `roots` into a
/// GGM tree of depth `depth` (`0..=`[`MAX_GGM_DEPTH`]) with the tweaked PRG
/// of the [module documentation](self), level by level over all trees,
/// writing leaf `j` of tree `t` to `leaves[j · trees + t]` (length
/// `roots.len() · 2^depth`, overwritten entirely). When `sums` is given
/// (length `roots.len() · depth`), entry `t · depth + (l − 1)` becomes
/// `[XOR of all left children at level l, XOR of all right children]` of
/// tree `t`, the values the sender masks with the base-OT keys of level
/// `l` (Roy22 Fig. 13, Ferret Fig. 6). Depth 0 copies the roots.
///
/// Errors: [`ShapeError::Shape`] if `depth` exceeds [`MAX_GGM_DEPTH`], the
/// leaf count overflows `usize`, or `tweaks` is not for `roots.len()`
/// trees of depth `depth`; [`ShapeError::Length`] for a wrongly sized
/// `leaves` or `sums`.
pub fn ggm_expand_interleaved_into(
    roots: &[Block],
    depth: usize,
    tweaks: &GgmTweaks,
    leaves: &mut [Block],
    mut sums: Option<&mut [[Block; 2]]>,
) -> Result<(), ShapeError> {
    let trees = roots.len();
    let total = leaf_count("ggm::ggm_expand", trees, depth)?;
    tweaks.check("ggm::ggm_expand tweaks", trees, depth)?;
    check_len("ggm::ggm_expand leaves", total, leaves.len())?;
    if let Some(s) = sums.as_deref_mut() {
        check_len("ggm::ggm_expand sums", trees * depth, s.len())?;
    }
    leaves[..trees].copy_from_slice(roots);
    for l in 1..=depth {
        expand_level(leaves, trees, l, tweaks.level(l));
        if let Some(s) = sums.as_deref_mut() {
            level_sums(&leaves[..trees << l], trees, |t, pair| {
                s[t * depth + l - 1] = pair
            });
        }
    }
    Ok(())
}

/// Calls `put(t, [left, right])` with tree `t`'s sums over `level` (rows
/// of `trees` nodes, left children on even rows, a whole number of row
/// pairs), by [`crate::primitives::xor::period_sums`] with the period of a row pair.
fn level_sums(level: &[Block], trees: usize, mut put: impl FnMut(usize, [Block; 2])) {
    let mut sums = crate::primitives::xor::period_sums(level, 2 * trees);
    for t in 0..trees {
        put(t, [sums[t], sums[trees + t]]);
    }
    sums.iter_mut().for_each(|b| b.0.zeroize());
}

/// Receiver side, interleaved layout (Roy22 Fig. 13, Ferret Fig. 6):
/// rebuilds every leaf of each punctured tree except the punctured one.
///
/// Inputs: `alphas[t]` is tree `t`'s punctured leaf index (`< 2^depth`,
/// most significant bit = level 1); `known_sums[t · depth + (l − 1)]` is,
/// for level `l = 1..=depth`, the XOR of all children at level `l` on the
/// side *off* the path to `α_t`, i.e. entry `[1 − α_l]` of the sums of
/// [`ggm_expand_interleaved_into`] where `α_l` is bit `depth − l` of `α_t`;
/// `tweaks` are the sender's.
///
/// Reconstruction, level by level and batched over all trees: the receiver
/// knows every node of level `l − 1` except the one on its path (held as
/// zero); it expands them all in one AES pass; the off-path sibling of its
/// path node at level `l` is the known sum XOR the other same-side children
/// it computed, and the on-path node stays unknown. The XORs and the
/// placement of the sibling are branch-free scans over the whole level, so
/// the memory access pattern does not depend on `α`.
///
/// Output: leaf `j` of tree `t` at `leaves[j · trees + t]` (length
/// `alphas.len() · 2^depth`, overwritten entirely), with leaf `α_t` of tree
/// `t` set to [`Block::ZERO`] (the receiver does not know it; callers must
/// not use that slot). A wrong sum at level `l` makes the sibling of that
/// level wrong, and through the sums of the deeper levels every leaf below
/// the on-path node of level `l − 1` (`2^(depth − l + 1) − 1` leaves); a
/// protocol's later consistency check may detect this, this function does
/// not (and cannot).
///
/// Errors: [`ShapeError::Shape`] for a depth above [`MAX_GGM_DEPTH`] (or an
/// overflowing leaf count) or tweaks of another shape,
/// [`ShapeError::Index`] for an `α ≥ 2^depth`, [`ShapeError::Length`] if
/// `known_sums.len() != alphas.len() · depth` or `leaves` has another
/// length.
pub fn ggm_punctured_interleaved_into(
    alphas: &[usize],
    known_sums: &[Block],
    depth: usize,
    tweaks: &GgmTweaks,
    leaves: &mut [Block],
) -> Result<(), ShapeError> {
    punctured_into(Kind::Ggm, alphas, known_sums, depth, tweaks, leaves)
}

/// Which tree a receiver rebuilds: the standard one of this module or the
/// correlated one of [`half`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ggm,
    Correlated,
}

impl Kind {
    /// Level `l` of every tree from level `l − 1`, in place.
    fn expand(self, buf: &mut [Block], trees: usize, l: usize, tweaks: &[Block]) {
        match self {
            Kind::Ggm => expand_level(buf, trees, l, tweaks),
            // Level 1 of a correlated tree is not hashed from the root: the
            // receiver holds both of its nodes as zero until placed.
            Kind::Correlated if l == 1 => buf[..2 * trees].fill(Block::ZERO),
            Kind::Correlated => half::expand_level(buf, trees, l, tweaks),
        }
    }

    /// The children of a zero parent at level `l` (left in `out[t]`, right
    /// in `out[trees + t]`).
    fn children_of_zero(self, l: usize, tweaks: &[Block], out: &mut [Block]) {
        match self {
            Kind::Ggm => level_children_of_zero(tweaks, out),
            Kind::Correlated => half::children_of_zero(l, tweaks, out),
        }
    }
}

/// The receiver of [`ggm_punctured_interleaved_into`] for either tree.
fn punctured_into(
    kind: Kind,
    alphas: &[usize],
    known_sums: &[Block],
    depth: usize,
    tweaks: &GgmTweaks,
    leaves: &mut [Block],
) -> Result<(), ShapeError> {
    let trees = alphas.len();
    let total = leaf_count("ggm::ggm_punctured", trees, depth)?;
    tweaks.check("ggm::ggm_punctured tweaks", trees, depth)?;
    let width = 1usize << depth;
    check_len("ggm::ggm_punctured leaves", total, leaves.len())?;
    check_len(
        "ggm::ggm_punctured known_sums",
        trees * depth,
        known_sums.len(),
    )?;
    if let Some(&a) = alphas.iter().find(|&&a| a >= width) {
        return Err(ShapeError::Index {
            what: "ggm::ggm_punctured alpha",
            index: a,
            len: width,
        });
    }
    // Level 0: the (unknown) root of every tree is represented by zero.
    leaves[..trees].fill(Block::ZERO);
    // Per tree, the side sums of the children of its known parents, the
    // on-path parent, and the new children of that parent.
    let mut acc = Block::zeroed_pairs(trees);
    let mut parent = vec![0usize; trees];
    let mut fresh = Block::zeroed_pairs(trees);
    let mut garbage = Block::zeroed_vec(2 * trees);
    for l in 1..=depth {
        for (p, &a) in parent.iter_mut().zip(alphas) {
            *p = a >> (depth - l + 1);
        }
        kind.expand(leaves, trees, l, tweaks.level(l));
        // Every tree's on-path parent is held as zero, so its two (garbage)
        // children are the hashes of the level's bare offsets: the sums
        // over the known parents are the whole level's sums XOR those,
        // with no access at the secret position.
        kind.children_of_zero(l, tweaks.level(l), &mut garbage);
        level_sums(&leaves[..trees << l], trees, |t, pair| {
            acc[t] = [pair[0] ^ garbage[t], pair[1] ^ garbage[trees + t]];
        });
        for (t, f) in fresh.iter_mut().enumerate() {
            let path = alphas[t] >> (depth - l); // on-path node at level l
            let right = Block::mask(path & 1 == 1); // the path goes right
                                                    // The sibling is on the side opposite to the path.
            let side = (acc[t][1] & !right) | (acc[t][0] & right);
            let sibling = known_sums[t * depth + l - 1] ^ side;
            *f = [sibling & right, sibling & !right];
        }
        // Place the new children of every tree's on-path parent.
        for (i, pair) in leaves[..trees << l].chunks_exact_mut(2 * trees).enumerate() {
            let (left, right) = pair.split_at_mut(trees);
            for (((x, y), &p), f) in left.iter_mut().zip(right).zip(&parent).zip(&fresh) {
                let at = Block::mask(i == p);
                *x = (*x & !at) | (f[0] & at);
                *y = (*y & !at) | (f[1] & at);
            }
        }
    }
    acc.iter_mut().flatten().for_each(|b| b.0.zeroize());
    fresh.iter_mut().flatten().for_each(|b| b.0.zeroize());
    Ok(())
}

/// The children of a zero parent at one level, for each tree: `H(τ_t)`
/// into `out[t]` and `H(τ_t ⊕ c_1)` into `out[trees + t]` (the MMO hash of
/// [`expand_level`], `tweaks` the level's offsets, `out` twice as long).
fn level_children_of_zero(tweaks: &[Block], out: &mut [Block]) {
    let trees = tweaks.len();
    let mut input = Block::zeroed_vec(2 * trees);
    let (left, right) = input.split_at_mut(trees);
    level::lay_out(&vec![Block::ZERO; trees], tweaks, left, right);
    crate::primitives::aes::FIXED_KEY_AES.run(
        crate::primitives::aes::Op::Mmo,
        Some(&input),
        &mut out[..2 * trees],
    );
}

/// Reorders interleaved leaves (`j · trees + t`) to tree-major
/// (`t · 2^depth + j`), wiping the interleaved copy (leaves are secret).
fn to_tree_major(mut interleaved: Vec<Block>, trees: usize, depth: usize) -> Vec<Block> {
    let width = 1usize << depth;
    let mut out = Block::zeroed_vec(interleaved.len());
    for (j, row) in interleaved.chunks_exact(trees.max(1)).enumerate() {
        for (t, &x) in row.iter().enumerate() {
            out[t * width + j] = x;
        }
    }
    interleaved.iter_mut().for_each(|b| b.0.zeroize());
    out
}

/// Sender side, tree-major: [`ggm_expand_interleaved_into`] returning the
/// `roots.len() · 2^depth` leaves with tree `t`'s leaves at `t · 2^depth ..`
/// (the all-but-one OT's layout). Errors as
/// [`ggm_expand_interleaved_into`].
pub fn ggm_expand(
    roots: &[Block],
    depth: usize,
    tweaks: &GgmTweaks,
) -> Result<Vec<Block>, ShapeError> {
    Ok(ggm_expand_with_sums(roots, depth, tweaks)?.0)
}

/// [`ggm_expand`] that also returns the per-level sums the sender masks
/// (Roy22, Fig. 13): `depth` entries per tree, entry `t · depth + (l − 1)`
/// being `[XOR of all left children at level l, XOR of all right
/// children]` of tree `t`. The receiver obtains the side `1 − α_l` (the
/// side off its path) and feeds it to [`ggm_punctured`].
///
/// Errors as for [`ggm_expand_interleaved_into`].
pub fn ggm_expand_with_sums(
    roots: &[Block],
    depth: usize,
    tweaks: &GgmTweaks,
) -> Result<(Vec<Block>, Vec<[Block; 2]>), ShapeError> {
    let mut leaves = Block::zeroed_vec(leaf_count("ggm::ggm_expand", roots.len(), depth)?);
    let mut sums = Block::zeroed_pairs(roots.len() * depth);
    ggm_expand_interleaved_into(roots, depth, tweaks, &mut leaves, Some(&mut sums))?;
    Ok((to_tree_major(leaves, roots.len(), depth), sums))
}

/// Receiver side, tree-major: [`ggm_punctured_interleaved_into`] returning
/// the leaves with tree `t`'s at `t · 2^depth ..` (zero at `α_t`). Errors
/// as [`ggm_punctured_interleaved_into`].
pub fn ggm_punctured(
    alphas: &[usize],
    known_sums: &[Block],
    depth: usize,
    tweaks: &GgmTweaks,
) -> Result<Vec<Block>, ShapeError> {
    let mut leaves = Block::zeroed_vec(leaf_count("ggm::ggm_punctured", alphas.len(), depth)?);
    ggm_punctured_interleaved_into(alphas, known_sums, depth, tweaks, &mut leaves)?;
    Ok(to_tree_major(leaves, alphas.len(), depth))
}

#[cfg(test)]
mod tests;
