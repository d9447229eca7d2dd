//! The correlated GGM tree of the half-tree construction (Guo, Yang, Wang,
//! Zhang, Xie, Liu, Zhao, "Half-Tree: Halving the Cost of Tree Expansion
//! in COT and DPF", EUROCRYPT 2023, eprint 2022/1431, §3): one hash per
//! parent instead of two, and every level of a tree XORs to the sender's
//! `Δ`, so one block per level reaches the receiver instead of two.
//!
//! # The tree
//!
//! Level 1 of tree `t` is `(s_t, s_t ⊕ Δ)` for a fresh secret seed `s_t`;
//! a node `x` of level `l − 1 ≥ 1` has the children
//!
//! ```text
//! left  = H_τ(x) = π(σ(x) ⊕ τ_{l,t}) ⊕ σ(x) ⊕ τ_{l,t},
//! right = x ⊕ left,
//! ```
//!
//! with `π` the fixed-key AES of the crate, `σ(x_h ‖ x_l) = (x_h ⊕ x_l) ‖
//! x_h` over the two 64-bit halves (a linear orthomorphism: `σ` and `x ↦
//! σ(x) ⊕ x` are both permutations) and `τ_{l,t}` the public offset of
//! that level and tree ([`super::GgmTweaks`]). So each level's two children
//! XOR to their parent, each level of a tree XORs to `Δ`, and with
//! `K_l^0` the XOR of level `l`'s left children, its right children XOR
//! to `K_l^1 = K_l^0 ⊕ Δ`.
//!
//! Why this is secure: `H(x) = π(σ(x)) ⊕ σ(x)` is circular correlation
//! robust in the random-permutation model (Guo, Katz, Wang, Yu, S&P 2020,
//! §7.2), which is what the half-tree paper's proof of the correlated tree
//! needs (§3–4 there). The offset only shifts the input by a public value:
//! `H_τ(x) = H(x ⊕ σ^{-1}(τ))`, so a query to the tweaked hash is a query
//! to `H` the adversary could make itself, and the bound is unchanged; what
//! the offset adds is as for [`crate::softspoken::ggm`]: equal nodes at two positions
//! give different children.
//!
//! # The receiver
//!
//! Who holds `K_l^{b_l}` for the side `b_l` off its path (one block per
//! level, e.g. `K_l^0 ⊕ q_l` unmasked with its COT `q_l ⊕ b_l·Δ`) rebuilds
//! every leaf but its punctured one, like the receiver of the standard tree
//! ([`super::ggm_punctured_interleaved_into`], the same branch-free scans).
//! The punctured leaf is `v_α = Δ ⊕ ⊕_{j≠α} v_j`, so a receiver that needs
//! `v_α ⊕ Δ` (a COT) gets it as the XOR of the others with no further
//! message.
//!
//! Layout: the interleaved (node-major) layout of [`crate::softspoken::ggm`], node `i`
//! of tree `t` at `i · trees + t`.

use zeroize::Zeroize;

use super::{leaf_count, punctured_into, GgmTweaks, Kind};
use crate::primitives::aes::{Op, FIXED_KEY_AES};
use crate::primitives::bits::{check_len, ShapeError};
use crate::Block;

/// Parents hashed per AES call (as [`super::level`]'s chunk: the inputs
/// stay in L1, and the VAES backend keeps its 32 blocks in flight).
const CHUNK: usize = 256;

/// `σ(x_h ‖ x_l) = (x_h ⊕ x_l) ‖ x_h` over the 64-bit halves.
#[inline(always)]
pub(super) fn sigma(x: Block) -> Block {
    let (h, l) = ((x.0 >> 64) as u64, x.0 as u64);
    Block(u128::from(h ^ l) << 64 | u128::from(h))
}

/// The hash inputs `σ(x) ⊕ τ` of `parents` with the level's `tweaks`.
#[inline]
fn lay_out(parents: &[Block], tweaks: &[Block], input: &mut [Block]) {
    for ((i, &p), &w) in input.iter_mut().zip(parents).zip(tweaks) {
        *i = sigma(p) ^ w;
    }
}

/// Writes the children of one chunk of parents: `left` (their hashes) to
/// `buf[l_at..]`, `parents ⊕ left` to `buf[r_at..]`.
#[inline]
fn put_children(buf: &mut [Block], l_at: usize, r_at: usize, parents: &[Block], left: &[Block]) {
    let len = parents.len();
    buf[l_at..l_at + len].copy_from_slice(left);
    for ((o, &h), &p) in buf[r_at..r_at + len].iter_mut().zip(left).zip(parents) {
        *o = h ^ p;
    }
}

/// Replaces level `l − 1 ≥ 1` (`trees · 2^(l−1)` nodes at the front of
/// `buf`) by level `l` of the correlated tree: parent `(i, t)` gets its
/// left child `H_τ(x)` at `2i · trees + t` and its right child `x ⊕
/// H_τ(x)` at `(2i + 1) · trees + t`. As [`super::level::expand_level`],
/// from the last parent row to the first, a chunk's parents copied before
/// its children are stored, so no unread parent is overwritten; the copies
/// (secret nodes) are wiped.
pub(super) fn expand_level(buf: &mut [Block], trees: usize, l: usize, tweaks: &[Block]) {
    if trees == 0 || l < 2 {
        return;
    }
    let rows = 1usize << (l - 1);
    let mut par = [Block::ZERO; CHUNK];
    let mut input = [Block::ZERO; CHUNK];
    let mut left = [Block::ZERO; CHUNK];
    if trees <= CHUNK {
        let per = CHUNK / trees;
        for i0 in (0..rows).step_by(per).rev() {
            let i1 = (i0 + per).min(rows);
            let len = (i1 - i0) * trees;
            par[..len].copy_from_slice(&buf[i0 * trees..i1 * trees]);
            for (inp, p) in input[..len]
                .chunks_exact_mut(trees)
                .zip(par[..len].chunks_exact(trees))
            {
                lay_out(p, tweaks, inp);
            }
            FIXED_KEY_AES.run(Op::Mmo, Some(&input[..len]), &mut left[..len]);
            for (r, (h, p)) in left[..len]
                .chunks_exact(trees)
                .zip(par[..len].chunks_exact(trees))
                .enumerate()
            {
                let at = 2 * (i0 + r) * trees;
                put_children(buf, at, at + trees, p, h);
            }
        }
    } else {
        for i in (0..rows).rev() {
            for t0 in (0..trees).step_by(CHUNK).rev() {
                let len = CHUNK.min(trees - t0);
                let at = i * trees + t0;
                par[..len].copy_from_slice(&buf[at..at + len]);
                lay_out(&par[..len], &tweaks[t0..t0 + len], &mut input[..len]);
                FIXED_KEY_AES.run(Op::Mmo, Some(&input[..len]), &mut left[..len]);
                let l_at = 2 * i * trees + t0;
                put_children(buf, l_at, l_at + trees, &par[..len], &left[..len]);
            }
        }
    }
    for b in par.iter_mut().chain(&mut input).chain(&mut left) {
        b.0.zeroize();
    }
}

/// The children of a zero parent at level `l ≥ 2` of each tree: `H_τ(0)`
/// on both sides (`0 ⊕ H_τ(0)`), into `out[t]` and `out[trees + t]`; zero
/// at level 1, whose nodes are not hashed from a parent.
pub(super) fn children_of_zero(l: usize, tweaks: &[Block], out: &mut [Block]) {
    let trees = tweaks.len();
    if l < 2 {
        out[..2 * trees].fill(Block::ZERO);
        return;
    }
    let input: Vec<Block> = tweaks.iter().map(|&w| sigma(Block::ZERO) ^ w).collect();
    FIXED_KEY_AES.run(Op::Mmo, Some(&input), &mut out[..trees]);
    out.copy_within(..trees, trees);
}

/// Sender side, interleaved layout: the correlated trees of `seeds` under
/// `delta` (depth `1..=`[`super::MAX_GGM_DEPTH`]), leaf `j` of tree `t` at
/// `leaves[j · trees + t]` (length `seeds.len() · 2^depth`, overwritten
/// entirely), and `left_sums[t · depth + (l − 1)]` = `K_l^0` of tree `t`,
/// the XOR of its left children at level `l` (the right ones XOR to `K_l^0
/// ⊕ Δ`). Every tree's leaves XOR to `Δ`.
///
/// Errors: [`ShapeError::Shape`] for a depth of 0 or above
/// [`super::MAX_GGM_DEPTH`] or tweaks of another shape;
/// [`ShapeError::Length`] for a wrongly sized `leaves` or `left_sums`.
pub fn cggm_expand_interleaved_into(
    seeds: &[Block],
    delta: Block,
    depth: usize,
    tweaks: &GgmTweaks,
    leaves: &mut [Block],
    left_sums: &mut [Block],
) -> Result<(), ShapeError> {
    let trees = seeds.len();
    let total = leaf_count("ggm::cggm_expand", trees, depth)?;
    if depth == 0 {
        return Err(ShapeError::Shape {
            what: "ggm::cggm_expand depth",
            rows: trees,
            cols: depth,
        });
    }
    tweaks.check("ggm::cggm_expand tweaks", trees, depth)?;
    check_len("ggm::cggm_expand leaves", total, leaves.len())?;
    check_len("ggm::cggm_expand sums", trees * depth, left_sums.len())?;
    let (first, second) = leaves[..2 * trees].split_at_mut(trees);
    first.copy_from_slice(seeds);
    for ((r, &s), k) in second
        .iter_mut()
        .zip(seeds)
        .zip(left_sums.iter_mut().step_by(depth))
    {
        *r = s ^ delta;
        *k = s;
    }
    for l in 2..=depth {
        expand_level(leaves, trees, l, tweaks.level(l));
        let mut sums = crate::primitives::xor::period_sums(&leaves[..trees << l], 2 * trees);
        for (t, s) in sums[..trees].iter().enumerate() {
            left_sums[t * depth + l - 1] = *s;
        }
        sums.iter_mut().for_each(|b| b.0.zeroize());
    }
    Ok(())
}

/// Receiver side, interleaved layout: every leaf of each correlated tree
/// except the punctured one, from `known_sums[t · depth + (l − 1)]` =
/// `K_l^{b}` of tree `t` for the side `b` off its path (`b` the complement
/// of bit `depth − l` of `alphas[t]`). Leaf `α_t` of tree `t` is left zero;
/// the others are the sender's. Wrong sums give wrong leaves (below the
/// level of the first wrong one), never an error.
///
/// Errors: as [`super::ggm_punctured_interleaved_into`], and
/// [`ShapeError::Shape`] for depth 0.
pub fn cggm_punctured_interleaved_into(
    alphas: &[usize],
    known_sums: &[Block],
    depth: usize,
    tweaks: &GgmTweaks,
    leaves: &mut [Block],
) -> Result<(), ShapeError> {
    if depth == 0 {
        return Err(ShapeError::Shape {
            what: "ggm::cggm_punctured depth",
            rows: alphas.len(),
            cols: depth,
        });
    }
    punctured_into(Kind::Correlated, alphas, known_sums, depth, tweaks, leaves)
}

#[cfg(test)]
mod tests {
    use super::super::{leaf_count, MAX_GGM_DEPTH};
    use super::*;
    use crate::primitives::hash::mmo;
    use crate::Rng;
    use proptest::prelude::*;

    /// Node-by-node reference of tree `t`: its leaves in order and `K_l^0`
    /// for levels `1..=depth`, with `H_τ(x) = MMO(σ(x) ⊕ τ)` written out.
    fn reference_tree(
        tw: &GgmTweaks,
        t: usize,
        seed: Block,
        delta: Block,
    ) -> (Vec<Block>, Vec<Block>) {
        let mut level = vec![seed, seed ^ delta];
        let mut k0 = vec![seed];
        for l in 2..=tw.depth() {
            let next: Vec<Block> = level
                .iter()
                .flat_map(|&x| {
                    let h = mmo(sigma(x) ^ tw.level(l)[t]);
                    [h, x ^ h]
                })
                .collect();
            k0.push(next.iter().step_by(2).fold(Block::ZERO, |a, &b| a ^ b));
            level = next;
        }
        (level, k0)
    }

    fn blocks(rng: &mut Rng, n: usize) -> Vec<Block> {
        let mut v = vec![Block::ZERO; n];
        rng.fill_blocks(&mut v);
        v
    }

    /// The sender's leaves (interleaved) and left sums.
    fn expand(
        seeds: &[Block],
        delta: Block,
        depth: usize,
        tw: &GgmTweaks,
    ) -> (Vec<Block>, Vec<Block>) {
        let mut leaves = vec![Block::ZERO; leaf_count("t", seeds.len(), depth).unwrap()];
        let mut k0 = vec![Block::ZERO; seeds.len() * depth];
        cggm_expand_interleaved_into(seeds, delta, depth, tw, &mut leaves, &mut k0).unwrap();
        (leaves, k0)
    }

    /// `K_l^b` off the path to each `α` (`b` the complement of its bit).
    fn known_for(alphas: &[usize], k0: &[Block], delta: Block, depth: usize) -> Vec<Block> {
        let mut known = Vec::new();
        for (t, &a) in alphas.iter().enumerate() {
            for l in 1..=depth {
                let off = 1 - ((a >> (depth - l)) & 1);
                known.push(k0[t * depth + l - 1] ^ (delta & Block::mask(off == 1)));
            }
        }
        known
    }

    #[test]
    fn the_interleaved_trees_match_the_node_by_node_reference() {
        let mut rng = Rng::deterministic_for_tests(31);
        // 300 trees take the kernel's path for rows wider than one chunk.
        for (trees, depth) in [(1, 1), (1, 2), (3, 5), (4, 10), (7, 3), (300, 3)] {
            let (seeds, delta) = (blocks(&mut rng, trees), rng.next_block());
            let tw = GgmTweaks::new(Block(9), trees, depth);
            let (leaves, k0) = expand(&seeds, delta, depth, &tw);
            for (t, &s) in seeds.iter().enumerate() {
                let (want, want_k0) = reference_tree(&tw, t, s, delta);
                for (j, w) in want.iter().enumerate() {
                    assert_eq!(
                        leaves[j * trees + t],
                        *w,
                        "{trees}x{depth} tree {t} leaf {j}"
                    );
                }
                assert_eq!(&k0[t * depth..(t + 1) * depth], &want_k0[..]);
                // Every tree's leaves XOR to Delta.
                let sum = want.iter().fold(Block::ZERO, |a, &b| a ^ b);
                assert_eq!(sum, delta);
            }
        }
    }

    #[test]
    fn the_receiver_rebuilds_every_leaf_but_the_punctured_one() {
        let mut rng = Rng::deterministic_for_tests(32);
        for depth in 1..=6 {
            let w = 1usize << depth;
            // Every alpha of three trees, shifted per tree.
            for a0 in 0..w {
                let trees = 3;
                let alphas: Vec<usize> = (0..trees).map(|t| (a0 + 5 * t) % w).collect();
                let (seeds, delta) = (blocks(&mut rng, trees), rng.next_block());
                let tw = GgmTweaks::new(Block(10), trees, depth);
                let (leaves, k0) = expand(&seeds, delta, depth, &tw);
                let known = known_for(&alphas, &k0, delta, depth);
                let mut got = vec![Block(1); trees << depth];
                cggm_punctured_interleaved_into(&alphas, &known, depth, &tw, &mut got).unwrap();
                for (t, &a) in alphas.iter().enumerate() {
                    for j in 0..w {
                        let want = if j == a {
                            Block::ZERO
                        } else {
                            leaves[j * trees + t]
                        };
                        assert_eq!(got[j * trees + t], want, "depth {depth} tree {t} leaf {j}");
                    }
                }
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        /// A wrong sum at level `l` changes exactly the leaves below the
        /// on-path node of level `l − 1` other than the punctured one, and
        /// no leaf of another tree.
        #[test]
        fn a_wrong_sum_spoils_the_subtree_below_it(
            depth in 1usize..8, level in 1usize..8, alpha in any::<usize>(), flip in 1u128..,
        ) {
            let level = level.min(depth);
            let trees = 2;
            let w = 1usize << depth;
            let alphas = [alpha % w, (alpha / w) % w];
            let mut rng = Rng::deterministic_for_tests(33);
            let (seeds, delta) = (blocks(&mut rng, trees), rng.next_block());
            let tw = GgmTweaks::new(Block(11), trees, depth);
            let (leaves, k0) = expand(&seeds, delta, depth, &tw);
            let mut known = known_for(&alphas, &k0, delta, depth);
            known[level - 1] ^= Block(flip);
            let mut got = vec![Block::ZERO; trees << depth];
            cggm_punctured_interleaved_into(&alphas, &known, depth, &tw, &mut got).unwrap();
            let span = depth - level + 1; // leaves below the level-(l−1) path node
            let (a, mut wrong) = (alphas[0], 0);
            for j in 0..w {
                let want = if j == a { Block::ZERO } else { leaves[j * trees] };
                let bad = got[j * trees] != want;
                prop_assert_eq!(bad, j != a && j >> span == a >> span, "leaf {}", j);
                wrong += usize::from(bad);
                let other = if j == alphas[1] { Block::ZERO } else { leaves[j * trees + 1] };
                prop_assert_eq!(got[j * trees + 1], other);
            }
            prop_assert_eq!(wrong, (1usize << span) - 1);
        }
    }

    #[test]
    fn shapes_are_checked() {
        let tw = GgmTweaks::new(Block(1), 2, 3);
        let mut leaves = vec![Block::ZERO; 16];
        let mut k0 = vec![Block::ZERO; 6];
        let seeds = [Block(1), Block(2)];
        assert!(
            cggm_expand_interleaved_into(&seeds, Block(3), 3, &tw, &mut leaves, &mut k0).is_ok()
        );
        assert!(
            cggm_expand_interleaved_into(&seeds, Block(3), 3, &tw, &mut leaves[..15], &mut k0)
                .is_err()
        );
        assert!(
            cggm_expand_interleaved_into(&seeds, Block(3), 3, &tw, &mut leaves, &mut k0[..5])
                .is_err()
        );
        assert!(cggm_expand_interleaved_into(
            &seeds[..1],
            Block(3),
            3,
            &tw,
            &mut leaves[..8],
            &mut k0[..3]
        )
        .is_err());
        let tw0 = GgmTweaks::new(Block(1), 2, 0);
        assert!(
            cggm_expand_interleaved_into(&seeds, Block(3), 0, &tw0, &mut leaves[..2], &mut [])
                .is_err()
        );
        assert!(cggm_punctured_interleaved_into(&[0, 1], &[], 0, &tw0, &mut leaves[..2]).is_err());
        let twd = GgmTweaks::new(Block(1), 1, MAX_GGM_DEPTH + 1);
        assert!(cggm_punctured_interleaved_into(
            &[0],
            &[Block::ZERO; 21],
            MAX_GGM_DEPTH + 1,
            &twd,
            &mut leaves
        )
        .is_err());
        // An alpha out of range.
        assert!(cggm_punctured_interleaved_into(&[8, 0], &k0, 3, &tw, &mut leaves).is_err());
    }
}
