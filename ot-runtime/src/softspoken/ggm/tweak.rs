//! Position tweaks of the GGM trees: one public 128-bit offset per (tree,
//! level) of a run, derived from the run's session, XORed into the input
//! of the fixed-key correlation-robust hash that expands a node (see the
//! [module documentation](super)).
//!
//! Why: with one fixed public permutation `π` for every tree of every run,
//! an untweaked GGM node `s` expands to the same children wherever it
//! appears, so two equal nodes in different trees, levels or runs (a
//! reused root, or a birthday collision among the many nodes of many runs)
//! give equal subtrees. Guo, Katz, Wang and Yu ("Efficient and Secure
//! Multiparty Computation from Fixed-Key Block Ciphers", S&P 2020, §7)
//! make fixed-key hashes safe for many instances by binding each call to a
//! tweak; here the tweak of a call is its position (session, tree, level),
//! so no two positions share an input offset.
//!
//! Derivation: the offset of level `l` (`1..=depth`) of tree `t` is block
//! `(l − 1) · trees + t` of the AES-CTR stream keyed by the session
//! ([`crate::primitives::prg::Prg`]): distinct positions of one run get distinct
//! offsets (AES is a permutation of the counter), and different sessions
//! get independent-looking ones. The offsets are public (both parties
//! derive them from the public session).

use crate::primitives::bits::ShapeError;
use crate::primitives::prg::Prg;
use crate::Block;

/// The offsets `τ_{l,t}` of one run's trees (public values).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GgmTweaks {
    trees: usize,
    depth: usize,
    offsets: Vec<Block>,
}

impl GgmTweaks {
    /// The offsets of `trees` trees of depth `depth` under `session` (a
    /// value both parties hold, e.g. a hash of a salt sent in clear with
    /// a domain label and the shape; see the module documentation).
    pub fn new(session: Block, trees: usize, depth: usize) -> GgmTweaks {
        let mut offsets = Block::zeroed_vec(trees.saturating_mul(depth));
        Prg::new(session).fill(&mut offsets);
        GgmTweaks {
            trees,
            depth,
            offsets,
        }
    }

    /// The offsets of trees `first .. first + count` of a run of `trees`
    /// trees of depth `depth` under `session`, as the tweaks of `count`
    /// trees: level `l` of tree `g` here is level `l` of tree `first + g`
    /// of [`GgmTweaks::new`]`(session, trees, depth)` (for expanding a
    /// run's trees a group at a time). Trees past `trees` are cut.
    pub fn for_range(
        session: Block,
        trees: usize,
        depth: usize,
        first: usize,
        count: usize,
    ) -> GgmTweaks {
        let count = count.min(trees.saturating_sub(first));
        let mut offsets = Block::zeroed_vec(count.saturating_mul(depth));
        let mut prg = Prg::new(session);
        for (l, level) in offsets.chunks_exact_mut(count.max(1)).enumerate() {
            prg.seek((l * trees + first) as u64);
            prg.fill(level);
        }
        GgmTweaks {
            trees: count,
            depth,
            offsets,
        }
    }

    /// The number of trees.
    pub fn trees(&self) -> usize {
        self.trees
    }

    /// The tree depth.
    pub fn depth(&self) -> usize {
        self.depth
    }

    /// The offsets of level `l` (`1..=depth`), one per tree; empty for a
    /// level out of range.
    pub fn level(&self, l: usize) -> &[Block] {
        if (1..=self.depth).contains(&l) {
            &self.offsets[(l - 1) * self.trees..l * self.trees]
        } else {
            &[]
        }
    }

    /// Checks that these offsets fit `trees` trees of depth `depth`.
    pub(super) fn check(
        &self,
        what: &'static str,
        trees: usize,
        depth: usize,
    ) -> Result<(), ShapeError> {
        if self.trees == trees && self.depth == depth {
            Ok(())
        } else {
            Err(ShapeError::Shape {
                what,
                rows: self.trees,
                cols: self.depth,
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_are_distinct_per_position_and_bind_the_session() {
        let a = GgmTweaks::new(Block(1), 3, 4);
        let mut all: Vec<Block> = (1..=4).flat_map(|l| a.level(l).to_vec()).collect();
        assert_eq!(all.len(), 12);
        all.sort_by_key(|b| b.0);
        all.dedup();
        assert_eq!(all.len(), 12);
        let b = GgmTweaks::new(Block(2), 3, 4);
        assert_ne!(a.level(1), b.level(1));
        assert!(a.level(0).is_empty() && a.level(5).is_empty());
        assert!(a.check("t", 3, 4).is_ok());
        assert!(a.check("t", 3, 5).is_err());
        assert!(a.check("t", 2, 4).is_err());
    }

    #[test]
    fn a_range_holds_the_same_offsets_as_the_whole_run() {
        let all = GgmTweaks::new(Block(5), 10, 3);
        let part = GgmTweaks::for_range(Block(5), 10, 3, 4, 3);
        let tail = GgmTweaks::for_range(Block(5), 10, 3, 8, 5);
        assert_eq!((part.trees(), tail.trees()), (3, 2));
        for l in 1..=3 {
            assert_eq!(part.level(l), &all.level(l)[4..7]);
            assert_eq!(tail.level(l), &all.level(l)[8..10]);
        }
    }
}
