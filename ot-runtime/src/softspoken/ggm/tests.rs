//! Tests of the GGM kernels against a node-by-node reference.

use super::*;
use crate::primitives::hash::mmo;
use crate::Rng;
use proptest::prelude::*;

/// The tweaks of the tests: session 7.
fn tw(trees: usize, depth: usize) -> GgmTweaks {
    GgmTweaks::new(Block(7), trees, depth)
}

/// The children of node `s` of tree `t` at level `l` (node by node).
fn children(tweaks: &GgmTweaks, t: usize, l: usize, s: Block) -> [Block; 2] {
    let x = s ^ tweaks.level(l)[t];
    [mmo(x), mmo(x ^ GGM_RIGHT_OFFSET)]
}

/// Node-by-node reference: the leaves of tree `t` (in order) and its
/// per-level sums (levels 1..=depth).
fn reference_tree(tweaks: &GgmTweaks, t: usize, root: Block) -> (Vec<Block>, Vec<[Block; 2]>) {
    let mut level = vec![root];
    let mut sums = Vec::new();
    for l in 1..=tweaks.depth() {
        let next: Vec<Block> = level
            .iter()
            .flat_map(|&s| children(tweaks, t, l, s))
            .collect();
        let mut acc = [Block::ZERO; 2];
        for pair in next.chunks_exact(2) {
            acc[0] ^= pair[0];
            acc[1] ^= pair[1];
        }
        sums.push(acc);
        level = next;
    }
    (level, sums)
}

/// The tree-major leaves and sums of every root, node by node.
fn reference(tweaks: &GgmTweaks, roots: &[Block]) -> (Vec<Block>, Vec<[Block; 2]>) {
    let mut leaves = Vec::new();
    let mut sums = Vec::new();
    for (t, &r) in roots.iter().enumerate() {
        let (l, s) = reference_tree(tweaks, t, r);
        leaves.extend(l);
        sums.extend(s);
    }
    (leaves, sums)
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
    let tweaks = tw(roots.len(), depth);
    let (leaves, sums) = ggm_expand_with_sums(roots, depth, &tweaks).unwrap();
    let known = known_for(alphas, &sums, depth);
    let got = ggm_punctured(alphas, &known, depth, &tweaks).unwrap();
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
            let tweaks = tw(trees, depth);
            let (leaves, sums) = ggm_expand_with_sums(&roots, depth, &tweaks).unwrap();
            assert_eq!(leaves, ggm_expand(&roots, depth, &tweaks).unwrap());
            let (want, want_sums) = reference(&tweaks, &roots);
            assert_eq!(leaves, want, "depth {depth} trees {trees}");
            assert_eq!(sums, want_sums, "depth {depth} trees {trees}");
        }
    }
}

#[test]
fn interleaved_layout_puts_leaf_j_of_tree_t_at_j_trees_plus_t() {
    // Tree counts below, at and above the AES chunk (both level paths).
    let mut rng = Rng::deterministic_for_tests(6);
    for (trees, depth) in [(3usize, 5usize), (256, 3), (300, 4), (600, 2)] {
        let roots = random_blocks(&mut rng, trees);
        let tweaks = tw(trees, depth);
        let (want, want_sums) = reference(&tweaks, &roots);
        let mut leaves = random_blocks(&mut rng, trees << depth);
        let mut sums = vec![[Block(9); 2]; trees * depth];
        ggm_expand_interleaved_into(&roots, depth, &tweaks, &mut leaves, Some(&mut sums)).unwrap();
        let w = 1 << depth;
        for t in 0..trees {
            for j in 0..w {
                assert_eq!(leaves[j * trees + t], want[t * w + j], "{trees} trees");
            }
        }
        assert_eq!(sums, want_sums, "{trees} trees");
        let alphas: Vec<usize> = (0..trees).map(|t| (t * 7 + 3) % w).collect();
        let known = known_for(&alphas, &sums, depth);
        let mut got = random_blocks(&mut rng, trees << depth);
        ggm_punctured_interleaved_into(&alphas, &known, depth, &tweaks, &mut got).unwrap();
        for t in 0..trees {
            for j in 0..w {
                let want = if j == alphas[t] {
                    Block::ZERO
                } else {
                    leaves[j * trees + t]
                };
                assert_eq!(got[j * trees + t], want, "{trees} trees, tree {t} leaf {j}");
            }
        }
    }
}

#[test]
fn the_expansion_binds_session_tree_and_level() {
    // Equal roots in two trees give unrelated trees; another session gives
    // other leaves; no leaf equals the untweaked MMO expansion.
    let depth = 3;
    let roots = [Block(5), Block(5)];
    let a = ggm_expand(&roots, depth, &tw(2, depth)).unwrap();
    assert!(a[..8].iter().all(|x| !a[8..].contains(x)));
    let b = ggm_expand(&roots, depth, &GgmTweaks::new(Block(8), 2, depth)).unwrap();
    assert!(a.iter().zip(&b).all(|(x, y)| x != y));
    let mut plain = vec![Block(5)];
    for _ in 0..depth {
        plain = plain
            .iter()
            .flat_map(|&s| [mmo(s), mmo(s ^ GGM_RIGHT_OFFSET)])
            .collect();
    }
    assert!(plain.iter().all(|x| !a.contains(x)));
}

#[test]
fn ggm_depth_zero_is_identity() {
    let roots = [Block(1), Block(2), Block(3)];
    let (leaves, sums) = ggm_expand_with_sums(&roots, 0, &tw(3, 0)).unwrap();
    assert_eq!(leaves, roots);
    assert!(sums.is_empty());
    assert_eq!(
        ggm_punctured(&[0, 0], &[], 0, &tw(2, 0)).unwrap(),
        vec![Block::ZERO; 2]
    );
    assert_eq!(ggm_expand(&[], 5, &tw(0, 5)).unwrap(), vec![]);
}

#[test]
fn ggm_children_are_distinct() {
    // Left and right children of one node differ and differ from it.
    let s = Block(0x1234);
    let l = ggm_expand(&[s], 1, &tw(1, 1)).unwrap();
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
    // everywhere but α, and a leaf matches the node-by-node path.
    let depth = MAX_GGM_DEPTH;
    let roots = [Block(0x5eed), Block(0xfeed)];
    let alphas = [0x9_abcd, (1 << depth) - 1];
    let tweaks = tw(2, depth);
    let (leaves, sums) = ggm_expand_with_sums(&roots, depth, &tweaks).unwrap();
    let known = known_for(&alphas, &sums, depth);
    let got = ggm_punctured(&alphas, &known, depth, &tweaks).unwrap();
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
    for l in 1..=depth {
        let right = (alphas[0] >> (depth - l)) & 1;
        node = children(&tweaks, 1, l, node)[right];
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
    let tweaks = tw(2, depth);
    let (leaves, sums) = ggm_expand_with_sums(&roots, depth, &tweaks).unwrap();
    let known = known_for(&alphas, &sums, depth);
    let honest = ggm_punctured(&alphas, &known, depth, &tweaks).unwrap();
    for idx in 0..known.len() {
        let mut bad = known.clone();
        bad[idx] ^= Block(1);
        let got = ggm_punctured(&alphas, &bad, depth, &tweaks).unwrap();
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
            honest[other * w..(other + 1) * w]
        );
    }
}

#[test]
fn ggm_errors() {
    let r = [Block(1)];
    assert!(matches!(
        ggm_expand(&r, MAX_GGM_DEPTH + 1, &tw(1, MAX_GGM_DEPTH + 1)),
        Err(ShapeError::Shape { .. })
    ));
    assert!(matches!(
        ggm_expand_with_sums(&r, 64, &tw(1, 3)),
        Err(ShapeError::Shape { .. })
    ));
    assert!(matches!(
        ggm_expand(&[Block(0); 2], usize::MAX, &tw(2, 1)),
        Err(ShapeError::Shape { .. })
    ));
    // Tweaks of another shape.
    assert!(matches!(
        ggm_expand(&r, 3, &tw(1, 4)),
        Err(ShapeError::Shape { .. })
    ));
    assert!(matches!(
        ggm_punctured(&[0], &[Block(0); 3], 3, &tw(2, 3)),
        Err(ShapeError::Shape { .. })
    ));
    assert!(matches!(
        ggm_punctured(&[0], &[], 21, &tw(1, 21)),
        Err(ShapeError::Shape { .. })
    ));
    assert!(matches!(
        ggm_punctured(&[4], &[Block(0); 2], 2, &tw(1, 2)),
        Err(ShapeError::Index {
            index: 4,
            len: 4,
            ..
        })
    ));
    assert!(matches!(
        ggm_punctured(&[1], &[], 0, &tw(1, 0)),
        Err(ShapeError::Index {
            index: 1,
            len: 1,
            ..
        })
    ));
    assert!(matches!(
        ggm_punctured(&[0, 1], &[Block(0); 3], 2, &tw(2, 2)),
        Err(ShapeError::Length {
            expected: 4,
            actual: 3,
            ..
        })
    ));
    assert!(matches!(
        ggm_punctured(&[0], &[Block(0); 3], 2, &tw(1, 2)),
        Err(ShapeError::Length { .. })
    ));
    let mut short = vec![Block::ZERO; 3];
    assert!(matches!(
        ggm_expand_interleaved_into(&r, 2, &tw(1, 2), &mut short, None),
        Err(ShapeError::Length { .. })
    ));
    let mut leaves = vec![Block::ZERO; 4];
    assert!(matches!(
        ggm_expand_interleaved_into(
            &r,
            2,
            &tw(1, 2),
            &mut leaves,
            Some(&mut [[Block::ZERO; 2]; 1])
        ),
        Err(ShapeError::Length { .. })
    ));
    assert!(matches!(
        ggm_punctured_interleaved_into(&[0], &[Block(0); 2], 2, &tw(1, 2), &mut short),
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
        let tweaks = tw(roots.len(), depth);
        prop_assert_eq!(&ggm_expand(&roots, depth, &tweaks).unwrap(), &reference(&tweaks, &roots).0);
        let w = 1usize << depth;
        let alphas: Vec<usize> = (0..roots.len())
            .map(|t| (alpha_seed.rotate_left(13 * t as u32) as usize) % w)
            .collect();
        check_receiver(&roots, &alphas, depth);
    }
}
