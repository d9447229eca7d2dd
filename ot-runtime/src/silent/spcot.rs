//! Multi-point correlated OT with regular noise from GGM-tree single-point
//! COTs: Ferret (Yang, Weng, Lan, Zhang, Wang, CCS 2020, eprint 2020/924),
//! Fig. 6 (semi-honest SPCOT) and §6 (regular noise: the `t` noisy
//! coordinates lie one in each interval of `2^h` coordinates, so the
//! multi-point COT is `t` independent SPCOTs side by side), following the
//! PCG of BCGIKRS19 (CCS 2019, §4).
//!
//! Layout (interleaved): leaf `j` of tree `i` is coordinate `j · t + i` of
//! the length-`N = t · 2^h` vectors ([`noise_coordinate`]), so the punctured
//! leaf `α_i` is the noisy coordinate `α_i · t + i` and every tree spreads
//! over the whole vector with stride `t`. [`crate::softspoken::ggm`] produces this
//! layout directly (node-major levels), at no cost. The layout matters for
//! the compression ([`super::ea`]): the accumulator makes coordinate `p` of
//! `A·e` the parity of the noisy coordinates `≤ p`; with each tree in one
//! contiguous block (the tree-major layout) that parity depends on one tree
//! only and is biased near block edges, and every choice bit of the EA code
//! XORs eleven such bits, a bias anyone computes from the public code (a
//! sum of squared biases of about `n · 3^−11` over the `n` outputs). With
//! the interleaved layout every tree's noisy coordinate is uniform over
//! the whole range (to within `t` coordinates), so an accumulated bit mixes
//! all `t` trees; `tests` in [`super::ea`] computes the exact bias of every
//! choice bit of a run for both layouts.
//!
//! Per tree, the sender (holding `Δ`) expands a random root into leaves
//! `v` (under the run's GGM position tweaks, [`crate::softspoken::ggm::GgmTweaks`],
//! keyed by the tree session [`super::silent_tree_session`]) and, per level `l`, masks the XOR of the left children and the XOR
//! of the right children with the two messages of random OT `i·h + l − 1`;
//! the receiver chose the complement of bit `l` of `α_i` (most significant
//! first), learns the sum off its path and rebuilds every leaf but `α_i`
//! (`crate::softspoken::ggm::ggm_punctured_into`). The sender also sends
//! `d_i = Δ ⊕ ⊕_j v_j` (Fig. 6, the last message, with `β = 1` since the
//! COT is over `F_2`), so the receiver sets `w_α = d_i ⊕ ⊕_{j≠α} w_j =
//! v_α ⊕ Δ`. Then `w = v ⊕ e·Δ` with `e` the unit vector at `α_i`.
//!
//! The random OTs are used once each as one-time pads of the level sums.
//! Semi-honest security (Ferret Thm. 3, first part): the receiver sees
//! one level sum per level, the sums off its path, which determine the
//! leaves off `α` and nothing about `v_α` (GGM puncturability); `d_i` is
//! `Δ` masked by `v_α`. The sender sees nothing from the receiver beyond
//! the random-OT sub-protocol.

use zeroize::Zeroize;

use super::params::MAX_DEPTH;
use crate::primitives::bits::ShapeError;
use crate::{softspoken::ggm, Bits, Block};

/// The sender's trees: every leaf `v` (interleaved, [`noise_coordinate`])
/// and the unmasked level sums. Wiped on drop; `Debug` prints the shape only.
#[derive(Clone, Default)]
pub struct SenderTrees {
    depth: usize,
    leaves: Vec<Block>,
    sums: Vec<[Block; 2]>,
}

/// The receiver's trees after the punctured evaluation and the
/// correction: `w = v ⊕ e·Δ` (interleaved) and the punctured indices.
/// Wiped on drop; `Debug` prints the shape only.
#[derive(Clone, Default)]
pub struct ReceiverTrees {
    depth: usize,
    alphas: Vec<usize>,
    leaves: Vec<Block>,
}

impl SenderTrees {
    /// The tree depth `h`.
    pub fn depth(&self) -> usize {
        self.depth
    }
    /// The sender's vector `v` (length `trees · 2^depth`).
    pub fn leaves(&self) -> &[Block] {
        &self.leaves
    }
    /// Moves the vector `v` out (the compression consumes it in place).
    pub fn into_leaves(mut self) -> Vec<Block> {
        core::mem::take(&mut self.leaves)
    }
}

impl ReceiverTrees {
    /// The tree depth `h`.
    pub fn depth(&self) -> usize {
        self.depth
    }
    /// The punctured index of every tree.
    pub fn alphas(&self) -> &[usize] {
        &self.alphas
    }
    /// The receiver's vector `w = v ⊕ e·Δ`.
    pub fn leaves(&self) -> &[Block] {
        &self.leaves
    }
    /// Moves the vector `w` out (the compression consumes it in place).
    pub fn into_leaves(mut self) -> Vec<Block> {
        core::mem::take(&mut self.leaves)
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

impl core::fmt::Debug for ReceiverTrees {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "ReceiverTrees {{ depth: {}, leaves: {} }}",
            self.depth,
            self.leaves.len()
        )
    }
}

impl Drop for SenderTrees {
    fn drop(&mut self) {
        self.leaves.iter_mut().for_each(|b| b.0.zeroize());
        self.sums.iter_mut().flatten().for_each(|b| b.0.zeroize());
    }
}

impl Drop for ReceiverTrees {
    fn drop(&mut self) {
        self.leaves.iter_mut().for_each(|b| b.0.zeroize());
        self.alphas.zeroize();
    }
}

/// The code coordinate of leaf `leaf` of tree `tree` out of `trees`: `leaf ·
/// trees + tree` (the interleaved layout of the module documentation; the
/// noisy coordinate of tree `tree` is `noise_coordinate(tree, α, trees)`).
pub fn noise_coordinate(tree: usize, leaf: usize, trees: usize) -> usize {
    leaf * trees + tree
}

/// Checks `1 ≤ depth ≤ MAX_DEPTH`.
fn check_depth(what: &'static str, trees: usize, depth: usize) -> Result<(), ShapeError> {
    if (1..=MAX_DEPTH).contains(&depth) {
        Ok(())
    } else {
        Err(ShapeError::Shape {
            what,
            rows: trees,
            cols: depth,
        })
    }
}

/// The receiver's random-OT choice bits: bit `i·h + l − 1` is the
/// complement of bit `h − l` of `α_i` (level `l`, most significant first),
/// so it learns the level sum on the side off its path. Indices are taken
/// modulo `2^depth`.
pub fn choice_bits(alphas: &[usize], depth: usize) -> Bits {
    let mut out = Bits::zeros(alphas.len() * depth);
    let mut i = 0;
    for &a in alphas {
        for shift in (0..depth).rev() {
            out.set(i, a >> shift & 1 == 0);
            i += 1;
        }
    }
    out
}

/// Sender, step 1 (Fig. 6): expands every root into a GGM tree of depth
/// `depth` with [`ggm::ggm_expand_interleaved_into`] (fixed-key AES, level
/// by level over all trees at once, under the position tweaks of the tree
/// session `tsid`) and keeps the per-level sums.
///
/// Errors: [`ShapeError::Shape`] for a depth outside `1..=MAX_DEPTH`.
pub fn try_sender_expand(
    roots: &[Block],
    depth: usize,
    tsid: Block,
) -> Result<SenderTrees, ShapeError> {
    check_depth("silent::spcot sender depth", roots.len(), depth)?;
    let tweaks = ggm::GgmTweaks::new(tsid, roots.len(), depth);
    let mut leaves = Block::zeroed_vec(roots.len() << depth);
    let mut sums = Block::zeroed_pairs(roots.len() * depth);
    ggm::ggm_expand_interleaved_into(roots, depth, &tweaks, &mut leaves, Some(&mut sums))?;
    Ok(SenderTrees {
        depth,
        leaves,
        sums,
    })
}

/// [`try_sender_expand`] for the protocol, which has validated `depth` in
/// its parameters: an invalid depth gives empty trees (and then wrongly
/// sized messages the peer refuses).
pub fn sender_expand(roots: &[Block], depth: usize, tsid: Block) -> SenderTrees {
    try_sender_expand(roots, depth, tsid).unwrap_or_default()
}

/// Sender, step 2: the level sums masked with the random-OT messages,
/// entry `i·h + l − 1` being `[L ⊕ m_0, R ⊕ m_1]` (Fig. 6). Entries
/// without a message (a short `base`) are zero.
pub fn masked_sums(trees: &SenderTrees, base: &[[Block; 2]]) -> Vec<[Block; 2]> {
    let mut out = Block::zeroed_pairs(trees.sums.len());
    for ((o, s), m) in out.iter_mut().zip(&trees.sums).zip(base) {
        *o = [s[0] ^ m[0], s[1] ^ m[1]];
    }
    out
}

/// Per tree, the XOR of its leaves in the interleaved `leaves` (`trees`
/// per row).
fn tree_sums(leaves: &[Block], trees: usize) -> Vec<Block> {
    let mut acc = Block::zeroed_vec(trees);
    for row in leaves.chunks_exact(trees.max(1)) {
        for (a, &x) in acc.iter_mut().zip(row) {
            *a ^= x;
        }
    }
    acc
}

/// Sender, step 3: per tree, `d_i = Δ ⊕ ⊕_j v_j` (Fig. 6, with `β = 1`),
/// `count` entries (the protocol's tree count; trees of another number
/// give zero entries or are cut, and the receiver's output is wrong).
pub fn corrections(trees: &SenderTrees, delta: Block, count: usize) -> Vec<Block> {
    let n = trees.leaves.len() >> trees.depth;
    let mut out = Block::zeroed_vec(count);
    for (o, s) in out.iter_mut().zip(tree_sums(&trees.leaves, n)) {
        *o = s ^ delta;
    }
    out
}

/// Receiver, step 1 (Fig. 6): the level sums it chose,
/// `masked[j][c_j] ⊕ chosen[j]` (the side selected in constant time).
/// The output is as long as the shortest input.
pub fn unmask_sums(masked: &[[Block; 2]], choices: &Bits, chosen: &[Block]) -> Vec<Block> {
    masked
        .iter()
        .zip(chosen)
        .enumerate()
        .map(|(j, (m, &key))| {
            let right = Block::mask(choices.try_get(j).unwrap_or(false));
            ((m[0] & !right) | (m[1] & right)) ^ key
        })
        .collect()
}

/// Receiver, step 2 (Fig. 6): rebuilds every leaf but `α_i` from the
/// known level sums ([`unmask_sums`]) with
/// [`ggm::ggm_punctured_interleaved_into`] under the sender's tweaks (tree
/// session `tsid`), and sets leaf `α_i` to `d_i ⊕ ⊕_{j≠α_i} w_j` by a
/// branch-free scan (the access pattern does not depend on `α`). The
/// result is `w = v ⊕ e·Δ`.
///
/// Errors: [`ShapeError`] for a depth outside `1..=MAX_DEPTH`, an index
/// `α ≥ 2^depth`, or lengths that do not match `alphas.len()` and `depth`.
pub fn try_receiver_trees(
    alphas: &[usize],
    depth: usize,
    known: &[Block],
    corr: &[Block],
    tsid: Block,
) -> Result<ReceiverTrees, ShapeError> {
    let trees = alphas.len();
    check_depth("silent::spcot receiver depth", trees, depth)?;
    crate::primitives::bits::check_len("silent::spcot corrections", trees, corr.len())?;
    let tweaks = ggm::GgmTweaks::new(tsid, trees, depth);
    let mut leaves = Block::zeroed_vec(trees << depth);
    ggm::ggm_punctured_interleaved_into(alphas, known, depth, &tweaks, &mut leaves)?;
    // Leaf α is zero here, so the XOR of a tree is ⊕_{j≠α} w_j.
    let mut missing = tree_sums(&leaves, trees);
    for (m, &d) in missing.iter_mut().zip(corr) {
        *m ^= d;
    }
    for (j, row) in leaves.chunks_exact_mut(trees.max(1)).enumerate() {
        for ((leaf, &a), &m) in row.iter_mut().zip(alphas).zip(&missing) {
            *leaf ^= m & Block::mask(j == a);
        }
    }
    missing.iter_mut().for_each(|b| b.0.zeroize());
    Ok(ReceiverTrees {
        depth,
        alphas: alphas.to_vec(),
        leaves,
    })
}

/// [`try_receiver_trees`] for the protocol: the message lengths are fixed
/// by the message types and the indices are reduced modulo `2^depth` in
/// the `.otp`, so an error only follows an invalid depth; it gives empty
/// trees.
pub fn receiver_trees(
    alphas: &[usize],
    depth: usize,
    known: &[Block],
    corr: &[Block],
    tsid: Block,
) -> ReceiverTrees {
    try_receiver_trees(alphas, depth, known, corr, tsid).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The tree session of the tests.
    const TSID: Block = Block(0x7515);

    /// Plays the SPCOT with ideal random OTs from the seed `s`.
    fn play(trees: usize, depth: usize, s: u64) -> (SenderTrees, ReceiverTrees, Block) {
        let mut prg = crate::primitives::prg::Prg::new(Block(u128::from(s) + 1));
        let roots: Vec<Block> = (0..trees).map(|_| prg.next_block()).collect();
        let alphas: Vec<usize> = (0..trees)
            .map(|_| (prg.next_block().lo() as usize) & ((1 << depth) - 1))
            .collect();
        let delta = prg.next_block();
        let base: Vec<[Block; 2]> = (0..trees * depth)
            .map(|_| [prg.next_block(), prg.next_block()])
            .collect();
        let choices = choice_bits(&alphas, depth);
        let chosen: Vec<Block> = (0..trees * depth)
            .map(|j| base[j][usize::from(choices.get(j))])
            .collect();
        let st = try_sender_expand(&roots, depth, TSID).unwrap();
        let masked = masked_sums(&st, &base);
        let corr = corrections(&st, delta, trees);
        let rt = try_receiver_trees(
            &alphas,
            depth,
            &unmask_sums(&masked, &choices, &chosen),
            &corr,
            TSID,
        )
        .unwrap();
        (st, rt, delta)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// The defining identities: the punctured evaluation equals the full
        /// one off the punctured point, and `w = v ⊕ e·Δ` everywhere.
        #[test]
        fn receiver_gets_v_plus_e_delta(trees in 1usize..6, depth in 1usize..8, s in any::<u64>()) {
            let (st, rt, delta) = play(trees, depth, s);
            let w = 1usize << depth;
            prop_assert_eq!(st.leaves().len(), trees * w);
            prop_assert_eq!(rt.leaves().len(), trees * w);
            for t in 0..trees {
                for j in 0..w {
                    let e = rt.alphas()[t] == j;
                    let c = noise_coordinate(t, j, trees);
                    let want = st.leaves()[c] ^ (delta & Block::mask(e));
                    prop_assert_eq!(rt.leaves()[c], want, "tree {} leaf {}", t, j);
                }
            }
        }
    }

    #[test]
    fn leaves_are_the_ggm_expansion_of_the_roots() {
        // The scalar reference: two trees, node by node with the PRG of
        // crate::softspoken::ggm (G_b(s) = mmo(s ⊕ τ_{l,t} ⊕ c_b)), leaf j of tree t
        // at coordinate 2j + t.
        let roots = [Block(0x1234_5678), Block(0x9abc)];
        let st = try_sender_expand(&roots, 3, TSID).unwrap();
        let tweaks = ggm::GgmTweaks::new(TSID, 2, 3);
        for (t, &root) in roots.iter().enumerate() {
            let mut level = vec![root];
            for l in 1..=3 {
                level = level
                    .iter()
                    .flat_map(|&s| {
                        let x = s ^ tweaks.level(l)[t];
                        [
                            crate::primitives::hash::mmo(x),
                            crate::primitives::hash::mmo(x ^ ggm::GGM_RIGHT_OFFSET),
                        ]
                    })
                    .collect();
            }
            for (j, &leaf) in level.iter().enumerate() {
                assert_eq!(st.leaves()[noise_coordinate(t, j, 2)], leaf);
                assert_eq!(noise_coordinate(t, j, 2), 2 * j + t);
            }
        }
    }

    #[test]
    fn choice_bits_are_the_complemented_path() {
        let c = choice_bits(&[0b101, 0b010], 3);
        let got: Vec<bool> = c.iter().collect();
        assert_eq!(got, [false, true, false, true, false, true]);
    }

    #[test]
    fn a_wrong_correction_only_moves_the_punctured_leaf() {
        let (alphas, depth) = (vec![5usize, 0, 15], 4);
        let roots = [Block(1), Block(2), Block(3)];
        let base: Vec<[Block; 2]> = (0..12u128)
            .map(|j| [Block(2 * j), Block(2 * j + 1)])
            .collect();
        let choices = choice_bits(&alphas, depth);
        let chosen: Vec<Block> = (0..12)
            .map(|j| base[j][usize::from(choices.get(j))])
            .collect();
        let st = try_sender_expand(&roots, depth, TSID).unwrap();
        let masked = masked_sums(&st, &base);
        let corr = corrections(&st, Block(99), 3);
        let known = unmask_sums(&masked, &choices, &chosen);
        let good = try_receiver_trees(&alphas, depth, &known, &corr, TSID).unwrap();
        let mut bad_corr = corr.clone();
        bad_corr[1] ^= Block(0xff);
        let bad = try_receiver_trees(&alphas, depth, &known, &bad_corr, TSID).unwrap();
        for (i, (g, b)) in good.leaves().iter().zip(bad.leaves()).enumerate() {
            let flipped = i == noise_coordinate(1, alphas[1], 3);
            assert_eq!(
                *g ^ *b,
                if flipped { Block(0xff) } else { Block::ZERO },
                "leaf {i}"
            );
        }
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(try_sender_expand(&[Block(1)], 0, TSID).is_err());
        assert!(try_sender_expand(&[Block(1)], MAX_DEPTH + 1, TSID).is_err());
        assert_eq!(sender_expand(&[Block(1)], 0, TSID).leaves().len(), 0);
        let known = [Block(0); 2];
        let z = [Block(0)];
        assert!(try_receiver_trees(&[1], 2, &known[..1], &z, TSID).is_err());
        assert!(try_receiver_trees(&[1], 2, &known, &[], TSID).is_err());
        assert!(try_receiver_trees(&[4], 2, &known, &z, TSID).is_err());
        assert!(try_receiver_trees(&[1], 0, &[], &z, TSID).is_err());
        assert!(try_receiver_trees(&[1], 2, &known, &z, TSID).is_ok());
        assert_eq!(receiver_trees(&[4], 2, &known, &z, TSID).leaves().len(), 0);
    }

    #[test]
    fn another_tree_session_breaks_the_relation() {
        // The receiver must expand under the sender's tweaks: with another
        // tree session its rebuilt leaves are not the sender's.
        let (alphas, depth) = (vec![2usize, 7], 3);
        let roots = [Block(4), Block(5)];
        let base: Vec<[Block; 2]> = (0..6u128)
            .map(|j| [Block(2 * j), Block(2 * j + 1)])
            .collect();
        let choices = choice_bits(&alphas, depth);
        let chosen: Vec<Block> = (0..6)
            .map(|j| base[j][usize::from(choices.get(j))])
            .collect();
        let st = try_sender_expand(&roots, depth, TSID).unwrap();
        let known = unmask_sums(&masked_sums(&st, &base), &choices, &chosen);
        let corr = corrections(&st, Block(99), 2);
        let other = try_receiver_trees(&alphas, depth, &known, &corr, Block(1)).unwrap();
        let same = try_receiver_trees(&alphas, depth, &known, &corr, TSID).unwrap();
        let differ = |rt: &ReceiverTrees| {
            (0..16)
                .filter(|&c| rt.leaves()[c] != st.leaves()[c])
                .count()
        };
        assert_eq!(differ(&same), 2);
        assert!(differ(&other) > 8);
    }
}
