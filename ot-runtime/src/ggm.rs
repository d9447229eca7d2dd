//! GGM trees (puncturable PRF) for the all-but-one OT of SoftSpokenOT
//! (Roy, "SoftSpokenOT: Quieter OT Extension from Small-Field Silent VOLE in
//! the Minicrypt Model", CRYPTO 2022, ePrint 2022/192, Fig. 13): the sender
//! expands a random root into `2^k` leaves with the tree of Goldreich,
//! Goldwasser and Micali (JACM 1986) and, per level, sends the XOR of all
//! left children and the XOR of all right children, each masked by one key
//! of a 1-out-of-2 base OT. A receiver that chose the complement of its
//! punctured index `α` bit by bit learns one sum per level and rebuilds every
//! leaf except leaf `α`.
//!
//! # The length-doubling PRG
//!
//! With `π` = AES under the public [`crate::aes::FIXED_KEY`] and the
//! Matyas–Meyer–Oseas hash `H(x) = π(x) ⊕ x` ([`crate::hash::mmo`]):
//!
//! ```text
//! G(s) = (G_0(s), G_1(s)),   G_b(s) = H(s ⊕ c_b) = π(s ⊕ c_b) ⊕ s ⊕ c_b,
//! c_0 = 0,   c_1 = GGM_RIGHT_OFFSET (a nothing-up-my-sleeve constant).
//! ```
//!
//! Why this is a PRG: `H` is correlation robust in the random-permutation
//! model (Guo, Katz, Wang, Yu, "Efficient and Secure Multiparty Computation
//! from Fixed-Key Block Ciphers", S&P 2020, §7): for a uniform secret `s`
//! and distinct public offsets `c_1, …, c_q`, the values `H(s ⊕ c_i)` are
//! indistinguishable from uniform. Here the offsets are `{0, c_1}`, so both
//! children of a secret node are pseudorandom and independent of it. This is
//! the same shape as the GGM trees of the silent-OT/Ferret implementations
//! (emp-ot's Ferret and libOTe's silent PPRF expand a node `s` to
//! `(π_0(s) ⊕ s, π_1(s) ⊕ s)` with two fixed-key permutations); we derive the
//! second permutation from the first by a public input offset, so one key
//! schedule serves the whole crate. The distinguishing advantage grows with
//! the total number of `π` evaluations `q` roughly as `q² / 2^128` (GKWY20),
//! negligible for any realistic number of trees.
//!
//! Note that `G_0(s)` equals [`crate::hash::mmo`]`(s)`: a protocol that also
//! hashes a GGM node with the plain MMO hash must domain-separate those calls.
//!
//! # Layout and cost
//!
//! Levels are built breadth-first over all trees at once: each level is one
//! batched fixed-key MMO pass (one AES per child node) over the
//! `trees · 2^l` children, issued in chunks of a few hundred blocks that run
//! across tree boundaries, so even the top levels (one node per tree) make
//! full-size calls and the VAES backend keeps 32 blocks in flight. A level
//! lives at the front of the output buffer, tree-major (tree `t`'s `2^l`
//! nodes at `t · 2^l ..`), and the node at index `i` has its children at
//! `2i` (left) and `2i + 1` (right), so the next level is again tree-major
//! and the last level is the leaf array itself: no extra buffer. Expanding a
//! depth-`k` tree costs `2^(k+1) − 2` AES evaluations, i.e. just under two
//! per leaf; the only other work is laying out the inputs `s, s ⊕ c_1` in
//! L1-resident scratch (and, for the sender's sums, one XOR per child).
//!
//! Indices: leaf `α` of a depth-`k` tree is reached by the bits of `α` from
//! the most significant one (level 1) to the least significant one (level
//! `k`); bit value 0 means the left child.

use crate::aes::{Op, FIXED_KEY_AES};
use crate::bits::{check_len, ShapeError};
use crate::Block;

/// The largest depth the GGM kernels accept (`2^20` leaves per tree, 16 MiB
/// per tree of output): SoftSpokenOT uses small depths (its field size is
/// `2^k` with `k` ≈ 2..8), and the bound keeps a malformed depth from a peer
/// from asking for an absurd allocation.
pub const MAX_GGM_DEPTH: usize = 20;

/// The offset `c_1` of the right child, `G_1(s) = H(s ⊕ c_1)`: the 128
/// fractional bits of π that follow the ones used for
/// [`crate::aes::FIXED_KEY`] (`a4093822 299f31d0 082efa98 ec4e6c89`), a
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

/// Parents expanded per AES call: the `2 · 256` interleaved MMO inputs
/// (8 KiB) stay in L1 between being laid out and being encrypted, and each
/// call is long enough to keep the VAES backend's 32 blocks in flight.
const CHUNK: usize = 256;

/// Replaces level `l − 1` (`trees · 2^(l−1)` nodes at the front of `buf`)
/// by level `l`: per chunk of up to [`CHUNK`] parents (chunks run across
/// tree boundaries, so even the top levels make full-size AES calls), the
/// MMO inputs `s, s ⊕ c_1` are laid out interleaved in L1-resident scratch
/// and one batched MMO pass writes `H(s), H(s ⊕ c_1)` straight to the
/// level (parent `i`'s children at `2i` and `2i + 1`). Chunks are processed from the back and a chunk's parents
/// are all read before its children are stored, so no unread parent is
/// overwritten (children of parent `i ≥ i0` land at `2i ≥ i0`). After each
/// chunk, `visit(tree, first, children)` sees, per tree the chunk touches,
/// the new children of that tree's parents `first..` (indices within the
/// tree's level).
fn expand_level(
    buf: &mut [Block],
    trees: usize,
    l: usize,
    mut visit: impl FnMut(usize, usize, &[Block]),
) {
    let half = 1usize << (l - 1);
    let n = trees * half;
    let mut input = [Block::ZERO; 2 * CHUNK];
    for i0 in (0..n).step_by(CHUNK).rev() {
        let len = CHUNK.min(n - i0);
        for (pair, &p) in input[..2 * len].chunks_exact_mut(2).zip(&buf[i0..i0 + len]) {
            pair[0] = p;
            pair[1] = p ^ GGM_RIGHT_OFFSET;
        }
        FIXED_KEY_AES.run(
            Op::Mmo,
            Some(&input[..2 * len]),
            &mut buf[2 * i0..2 * (i0 + len)],
        );
        visit_chunk(buf, half, i0, len, &mut visit);
    }
}

/// Calls `visit` on the children of parents `i0..i0 + len`, split by tree.
fn visit_chunk(
    buf: &[Block],
    half: usize,
    i0: usize,
    len: usize,
    visit: &mut impl FnMut(usize, usize, &[Block]),
) {
    let mut i = i0;
    while i < i0 + len {
        let t = i / half;
        let end = ((t + 1) * half).min(i0 + len);
        visit(t, i % half, &buf[2 * i..2 * end]);
        i = end;
    }
}

/// XOR of the even-indexed (left) and odd-indexed (right) blocks.
#[inline]
fn side_sums(children: &[Block]) -> [Block; 2] {
    // As 64-bit words a pair is (left lo, left hi, right lo, right hi); two
    // pairs per step give independent accumulators the compiler vectorizes.
    let words: &[u64] = bytemuck::cast_slice(children);
    let mut acc = [0u64; 8];
    let mut groups = words.chunks_exact(8);
    for g in &mut groups {
        for (a, &x) in acc.iter_mut().zip(g) {
            *a ^= x;
        }
    }
    for (a, &x) in acc.iter_mut().zip(groups.remainder()) {
        *a ^= x;
    }
    [
        Block::from_u64s(acc[0] ^ acc[4], acc[1] ^ acc[5]),
        Block::from_u64s(acc[2] ^ acc[6], acc[3] ^ acc[7]),
    ]
}

/// Sender side into caller buffers: [`ggm_expand`] writing the leaves into
/// `leaves` (length `roots.len() · 2^depth`) and, when `sums` is given
/// (length `roots.len() · depth`), the level sums of
/// [`ggm_expand_with_sums`]. Reusing the buffers avoids allocating (and
/// page-faulting) a fresh output per call.
///
/// Errors: as [`ggm_expand`], plus [`ShapeError::Length`] for a wrongly
/// sized `leaves` or `sums`.
pub fn ggm_expand_into(
    roots: &[Block],
    depth: usize,
    leaves: &mut [Block],
    mut sums: Option<&mut [[Block; 2]]>,
) -> Result<(), ShapeError> {
    let trees = roots.len();
    let total = leaf_count("ggm::ggm_expand", trees, depth)?;
    check_len("ggm::ggm_expand leaves", total, leaves.len())?;
    if let Some(s) = sums.as_deref_mut() {
        check_len("ggm::ggm_expand sums", trees * depth, s.len())?;
        s.fill([Block::ZERO; 2]);
    }
    leaves[..trees].copy_from_slice(roots);
    for l in 1..=depth {
        match sums.as_deref_mut() {
            Some(s) => expand_level(leaves, trees, l, |t, _, ch| {
                let acc = side_sums(ch);
                let e = &mut s[t * depth + l - 1];
                e[0] ^= acc[0];
                e[1] ^= acc[1];
            }),
            None => expand_level(leaves, trees, l, |_, _, _| {}),
        }
    }
    Ok(())
}

/// Sender side: expands every root of `roots` into a GGM tree of depth
/// `depth` (`0..=`[`MAX_GGM_DEPTH`]) with the PRG of the [module
/// documentation](self), level by level over all trees (one batched AES
/// call per child node), and returns the `roots.len() · 2^depth` leaves,
/// tree-major (tree `t`'s leaves at `t · 2^depth ..`). Depth 0 returns the
/// roots.
///
/// Errors: [`ShapeError::Shape`] (rows = trees, cols = depth) if `depth`
/// exceeds [`MAX_GGM_DEPTH`] or the leaf count overflows `usize`.
pub fn ggm_expand(roots: &[Block], depth: usize) -> Result<Vec<Block>, ShapeError> {
    let mut leaves = Block::zeroed_vec(leaf_count("ggm::ggm_expand", roots.len(), depth)?);
    ggm_expand_into(roots, depth, &mut leaves, None)?;
    Ok(leaves)
}

/// [`ggm_expand`] that also returns the per-level sums the SoftSpokenOT
/// sender transmits (Roy22, Fig. 13, all-but-one OT): `depth` entries per tree,
/// tree-major, entry `t · depth + (l − 1)` for level `l = 1..=depth` being
/// `[XOR of all left children at level l, XOR of all right children]` of
/// tree `t`. In the protocol the sender masks `sums[..][b]` with the base-OT
/// key `b` of level `l`; the receiver obtains the side `1 − α_l` (the side
/// off its path) and feeds it to [`ggm_punctured`].
///
/// Errors as for [`ggm_expand`].
pub fn ggm_expand_with_sums(
    roots: &[Block],
    depth: usize,
) -> Result<(Vec<Block>, Vec<[Block; 2]>), ShapeError> {
    let mut leaves = Block::zeroed_vec(leaf_count("ggm::ggm_expand", roots.len(), depth)?);
    let mut sums = Block::zeroed_pairs(roots.len() * depth);
    ggm_expand_into(roots, depth, &mut leaves, Some(&mut sums))?;
    Ok((leaves, sums))
}

/// Receiver side of the all-but-one OT (Roy22, Fig. 13): rebuilds every leaf of
/// each punctured tree except the punctured one.
///
/// Inputs: `alphas[t]` is tree `t`'s punctured leaf index (`< 2^depth`,
/// most significant bit = level 1); `known_sums[t · depth + (l − 1)]` is,
/// for level `l = 1..=depth`, the XOR of all children at level `l` on the
/// side *off* the path to `α_t`, i.e. `sums[..][1 − α_l]` of
/// [`ggm_expand_with_sums`] where `α_l` is bit `depth − l` of `α_t`.
///
/// Reconstruction, level by level and batched over all trees: the receiver
/// knows every node of level `l − 1` except the one on its path (held as
/// zero); it expands them all in one AES pass; the off-path sibling of its
/// path node at level `l` is the known sum XOR the other same-side children
/// it computed, and the on-path node stays unknown. The XORs and the
/// placement of the sibling are branch-free scans over the whole level, so
/// the memory access pattern does not depend on `α`.
///
/// Output: `alphas.len() · 2^depth` leaves, tree-major, with leaf `α_t` of
/// tree `t` set to [`Block::ZERO`] (the receiver does not know it; callers
/// must not use that slot). A wrong sum at level `l` makes the sibling of
/// that level wrong, and through the sums of the deeper levels every leaf
/// below the on-path node of level `l − 1` (`2^(depth − l + 1) − 1` leaves);
/// the protocol's later consistency check detects this, this function does
/// not (and cannot).
///
/// Errors: [`ShapeError::Shape`] for a depth above [`MAX_GGM_DEPTH`] (or an
/// overflowing leaf count), [`ShapeError::Index`] for an `α ≥ 2^depth`,
/// [`ShapeError::Length`] if `known_sums.len() != alphas.len() · depth`.
pub fn ggm_punctured(
    alphas: &[usize],
    known_sums: &[Block],
    depth: usize,
) -> Result<Vec<Block>, ShapeError> {
    let mut leaves = Block::zeroed_vec(leaf_count("ggm::ggm_punctured", alphas.len(), depth)?);
    ggm_punctured_into(alphas, known_sums, depth, &mut leaves)?;
    Ok(leaves)
}

/// [`ggm_punctured`] writing into a caller buffer of length
/// `alphas.len() · 2^depth` (overwritten entirely); errors as
/// [`ggm_punctured`], plus [`ShapeError::Length`] for a wrongly sized
/// `leaves`.
pub fn ggm_punctured_into(
    alphas: &[usize],
    known_sums: &[Block],
    depth: usize,
    leaves: &mut [Block],
) -> Result<(), ShapeError> {
    let trees = alphas.len();
    let total = leaf_count("ggm::ggm_punctured", trees, depth)?;
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
    // Per tree, the side sums of the children of its known parents.
    let mut acc = vec![[Block::ZERO; 2]; trees];
    for l in 1..=depth {
        acc.fill([Block::ZERO; 2]);
        expand_level(leaves, trees, l, |t, first, ch| {
            // The on-path parent's children are garbage: mask them out.
            let parent = alphas[t] >> (depth - l + 1);
            let a = &mut acc[t];
            for (j, pair) in ch.chunks_exact(2).enumerate() {
                let keep = Block::mask(first + j != parent);
                a[0] ^= pair[0] & keep;
                a[1] ^= pair[1] & keep;
            }
        });
        let w = 1usize << l;
        for (t, tree) in leaves[..trees * w].chunks_exact_mut(w).enumerate() {
            let path = alphas[t] >> (depth - l); // on-path node at level l
            let parent = path >> 1; // on-path node at level l - 1
                                    // The sibling is on the side opposite to the path.
            let right = Block::mask(path & 1 == 1); // the path goes right
            let side = (acc[t][1] & !right) | (acc[t][0] & right);
            let sibling = known_sums[t * depth + l - 1] ^ side;
            let new_left = sibling & right; // zero when the path goes left
            let new_right = sibling & !right; // zero when the path goes right
            for (j, pair) in tree.chunks_exact_mut(2).enumerate() {
                let at = Block::mask(j == parent);
                pair[0] = (pair[0] & !at) | (new_left & at);
                pair[1] = (pair[1] & !at) | (new_right & at);
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hash::mmo;
    use crate::Rng;
    use proptest::prelude::*;

    /// Node-by-node recursive reference: the leaves of one tree.
    fn reference_tree(seed: Block, depth: usize, out: &mut Vec<Block>) {
        if depth == 0 {
            out.push(seed);
            return;
        }
        reference_tree(mmo(seed), depth - 1, out);
        reference_tree(mmo(seed ^ GGM_RIGHT_OFFSET), depth - 1, out);
    }

    /// Reference per-level sums of one tree (levels 1..=depth).
    fn reference_sums(seed: Block, depth: usize) -> Vec<[Block; 2]> {
        let mut level = vec![seed];
        let mut sums = Vec::new();
        for _ in 0..depth {
            let mut next = Vec::new();
            let mut acc = [Block::ZERO; 2];
            for &s in &level {
                let (a, b) = (mmo(s), mmo(s ^ GGM_RIGHT_OFFSET));
                acc[0] ^= a;
                acc[1] ^= b;
                next.push(a);
                next.push(b);
            }
            sums.push(acc);
            level = next;
        }
        sums
    }

    fn random_blocks(rng: &mut Rng, n: usize) -> Vec<Block> {
        let mut v = vec![Block::ZERO; n];
        rng.fill_blocks(&mut v);
        v
    }

    /// The sums the receiver with punctured indices `alphas` learns.
    fn known_for(alphas: &[usize], sums: &[[Block; 2]], depth: usize) -> Vec<Block> {
        let mut known = Vec::new();
        for (t, &a) in alphas.iter().enumerate() {
            for l in 1..=depth {
                let bit = (a >> (depth - l)) & 1;
                known.push(sums[t * depth + l - 1][1 - bit]);
            }
        }
        known
    }

    fn check_receiver(roots: &[Block], alphas: &[usize], depth: usize) {
        let (leaves, sums) = ggm_expand_with_sums(roots, depth).unwrap();
        let known = known_for(alphas, &sums, depth);
        let got = ggm_punctured(alphas, &known, depth).unwrap();
        let w = 1 << depth;
        for (t, &a) in alphas.iter().enumerate() {
            for i in 0..w {
                if i == a {
                    assert_eq!(got[t * w + i], Block::ZERO, "tree {t} alpha {a}");
                } else {
                    assert_eq!(got[t * w + i], leaves[t * w + i], "tree {t} leaf {i}");
                }
            }
        }
    }

    #[test]
    fn ggm_batched_matches_reference() {
        let mut rng = Rng::deterministic_for_tests(1);
        for depth in 0..=10 {
            for trees in 1..5 {
                let roots = random_blocks(&mut rng, trees);
                let (leaves, sums) = ggm_expand_with_sums(&roots, depth).unwrap();
                assert_eq!(leaves, ggm_expand(&roots, depth).unwrap());
                let mut want = Vec::new();
                let mut want_sums = Vec::new();
                for &r in &roots {
                    reference_tree(r, depth, &mut want);
                    want_sums.extend(reference_sums(r, depth));
                }
                assert_eq!(leaves, want, "depth {depth} trees {trees}");
                assert_eq!(sums, want_sums, "depth {depth} trees {trees}");
            }
        }
    }

    #[test]
    fn ggm_depth_zero_is_identity() {
        let roots = [Block(1), Block(2), Block(3)];
        let (leaves, sums) = ggm_expand_with_sums(&roots, 0).unwrap();
        assert_eq!(leaves, roots);
        assert!(sums.is_empty());
        assert_eq!(
            ggm_punctured(&[0, 0], &[], 0).unwrap(),
            vec![Block::ZERO; 2]
        );
        assert_eq!(ggm_expand(&[], 5).unwrap(), vec![]);
    }

    #[test]
    fn ggm_children_are_distinct() {
        // Left and right children of one node differ and differ from it.
        let s = Block(0x1234);
        let l = ggm_expand(&[s], 1).unwrap();
        assert_ne!(l[0], l[1]);
        assert_ne!(l[0], s);
        assert_ne!(l[1], s);
    }

    #[test]
    fn ggm_receiver_every_alpha_small_trees() {
        let mut rng = Rng::deterministic_for_tests(2);
        for depth in 1..=5 {
            let w = 1usize << depth;
            for a in 0..w {
                // Three trees: the punctured one in the middle, others random.
                let roots = random_blocks(&mut rng, 3);
                let alphas = [(a + 1) % w, a, w - 1 - a];
                check_receiver(&roots, &alphas, depth);
            }
        }
    }

    #[test]
    fn ggm_receiver_random_alpha_large_trees() {
        let mut rng = Rng::deterministic_for_tests(3);
        for depth in [8usize, 12] {
            let trees = 4;
            let roots = random_blocks(&mut rng, trees);
            let alphas: Vec<usize> = (0..trees)
                .map(|_| (rng.next_block().lo() as usize) & ((1 << depth) - 1))
                .collect();
            check_receiver(&roots, &alphas, depth);
        }
    }

    #[test]
    fn ggm_max_depth_roundtrip() {
        // Two trees of the largest depth: the receiver agrees with the sender
        // everywhere but α, and the first leaves match the reference.
        let depth = MAX_GGM_DEPTH;
        let roots = [Block(0x5eed), Block(0xfeed)];
        let alphas = [0x9_abcd, (1 << depth) - 1];
        let (leaves, sums) = ggm_expand_with_sums(&roots, depth).unwrap();
        let known = known_for(&alphas, &sums, depth);
        let got = ggm_punctured(&alphas, &known, depth).unwrap();
        let w = 1 << depth;
        for (t, &a) in alphas.iter().enumerate() {
            let tree = t * w..(t + 1) * w;
            assert_eq!(got[tree.start + a], Block::ZERO);
            let diff = got[tree.clone()]
                .iter()
                .zip(&leaves[tree])
                .filter(|(x, y)| x != y)
                .count();
            assert_eq!(diff, 1);
        }
        let mut node = roots[1];
        for l in (0..depth).rev() {
            let right = (alphas[0] >> l) & 1 == 1;
            node = mmo(if right { node ^ GGM_RIGHT_OFFSET } else { node });
        }
        assert_eq!(leaves[w + alphas[0]], node);
    }

    #[test]
    fn ggm_tampered_sum_changes_leaves() {
        let mut rng = Rng::deterministic_for_tests(4);
        let depth = 6;
        let w = 1 << depth;
        let roots = random_blocks(&mut rng, 2);
        let alphas = [37usize, 5];
        let (leaves, sums) = ggm_expand_with_sums(&roots, depth).unwrap();
        let known = known_for(&alphas, &sums, depth);
        for idx in 0..known.len() {
            let mut bad = known.clone();
            bad[idx] ^= Block(1);
            let got = ggm_punctured(&alphas, &bad, depth).unwrap();
            let (t, l) = (idx / depth, idx % depth + 1);
            // The wrong sibling at level l feeds the sibling sums of every
            // deeper level, so exactly the leaves below the on-path node of
            // level l - 1 (except α) are wrong: 2^(depth - l + 1) - 1 of
            // them. Leaves off that subtree and other trees are untouched.
            let shift = depth + 1 - l;
            for i in (0..w).filter(|&i| i != alphas[t]) {
                let below = i >> shift == alphas[t] >> shift;
                assert_eq!(
                    got[t * w + i] != leaves[t * w + i],
                    below,
                    "sum {idx} leaf {i}"
                );
            }
            let wrong = (0..w)
                .filter(|&i| i != alphas[t] && got[t * w + i] != leaves[t * w + i])
                .count();
            assert_eq!(wrong, (1 << shift) - 1, "sum {idx}");
            let other = 1 - t;
            assert_eq!(
                got[other * w..(other + 1) * w],
                ggm_punctured(&alphas, &known, depth).unwrap()[other * w..(other + 1) * w]
            );
        }
    }

    #[test]
    fn ggm_errors() {
        let r = [Block(1)];
        assert!(matches!(
            ggm_expand(&r, MAX_GGM_DEPTH + 1),
            Err(ShapeError::Shape { .. })
        ));
        assert!(matches!(
            ggm_expand_with_sums(&r, 64),
            Err(ShapeError::Shape { .. })
        ));
        assert!(matches!(
            ggm_expand(&[Block(0); 2], usize::MAX),
            Err(ShapeError::Shape { .. })
        ));
        assert!(matches!(
            ggm_punctured(&[0], &[], 21),
            Err(ShapeError::Shape { .. })
        ));
        assert!(matches!(
            ggm_punctured(&[4], &[Block(0); 2], 2),
            Err(ShapeError::Index {
                index: 4,
                len: 4,
                ..
            })
        ));
        assert!(matches!(
            ggm_punctured(&[1], &[], 0),
            Err(ShapeError::Index {
                index: 1,
                len: 1,
                ..
            })
        ));
        assert!(matches!(
            ggm_punctured(&[0, 1], &[Block(0); 3], 2),
            Err(ShapeError::Length {
                expected: 4,
                actual: 3,
                ..
            })
        ));
        assert!(matches!(
            ggm_punctured(&[0], &[Block(0); 3], 2),
            Err(ShapeError::Length { .. })
        ));
    }

    #[test]
    fn ggm_into_variants_reuse_dirty_buffers() {
        let mut rng = Rng::deterministic_for_tests(5);
        let (trees, depth) = (3usize, 9usize);
        let roots = random_blocks(&mut rng, trees);
        let (leaves, sums) = ggm_expand_with_sums(&roots, depth).unwrap();
        let mut buf = random_blocks(&mut rng, trees << depth);
        let mut sbuf = vec![[Block(9); 2]; trees * depth];
        ggm_expand_into(&roots, depth, &mut buf, Some(&mut sbuf)).unwrap();
        assert_eq!(buf, leaves);
        assert_eq!(sbuf, sums);
        let alphas = [3usize, 511, 0];
        let known = known_for(&alphas, &sums, depth);
        let mut rbuf = random_blocks(&mut rng, trees << depth);
        ggm_punctured_into(&alphas, &known, depth, &mut rbuf).unwrap();
        assert_eq!(rbuf, ggm_punctured(&alphas, &known, depth).unwrap());
        assert!(matches!(
            ggm_expand_into(&roots, depth, &mut buf[1..], None),
            Err(ShapeError::Length { .. })
        ));
        assert!(matches!(
            ggm_expand_into(&roots, depth, &mut buf, Some(&mut sbuf[1..])),
            Err(ShapeError::Length { .. })
        ));
        assert!(matches!(
            ggm_punctured_into(&alphas, &known, depth, &mut rbuf[1..]),
            Err(ShapeError::Length { .. })
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn ggm_prop_roundtrip(
            depth in 0usize..=9,
            roots in proptest::collection::vec(any::<u128>(), 1..4),
            alpha_seed in any::<u64>(),
        ) {
            let roots: Vec<Block> = roots.into_iter().map(Block).collect();
            let mut want = Vec::new();
            for &r in &roots {
                reference_tree(r, depth, &mut want);
            }
            prop_assert_eq!(&ggm_expand(&roots, depth).unwrap(), &want);
            let w = 1usize << depth;
            let alphas: Vec<usize> = (0..roots.len())
                .map(|t| (alpha_seed.rotate_left(13 * t as u32) as usize) % w)
                .collect();
            check_receiver(&roots, &alphas, depth);
        }
    }
}
