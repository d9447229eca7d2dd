//! The sender's random permutation of its set before it sends the tags
//! [KKRT16, §5]: the tags' order then says nothing about the order of the
//! sender's input, so the receiver learns which of its elements are in the
//! intersection and nothing about their positions in the sender's set.

#![forbid(unsafe_code)]

use super::rand::Words;
use crate::Block;

/// A uniformly random permutation of `v` under `seed` (which the sender
/// samples fresh per run): Fisher–Yates, position `k` swapped with a
/// uniform position in `[0, k]` for `k = len - 1` down to `1`, each index
/// drawn exactly uniformly from the 64-bit words of `Prg::new(seed)`
/// ([`crate::primitives::prg::Prg`]) by multiply-high with rejection.
/// Deterministic per seed; returns a new vector.
pub fn shuffle_blocks(v: &[Block], seed: Block) -> Vec<Block> {
    let mut out = v.to_vec();
    let mut words = Words::new(seed);
    for k in (1..out.len()).rev() {
        let j = words.below(k as u64 + 1) as usize;
        out.swap(k, j);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn items(n: u128) -> Vec<Block> {
        (0..n).map(|i| Block(i * 0x1234_5678_9abc + 7)).collect()
    }

    #[test]
    fn a_shuffle_is_a_deterministic_permutation() {
        let v = items(1000);
        let s = shuffle_blocks(&v, Block(1));
        let mut sorted = s.clone();
        sorted.sort_by_key(|b| b.0);
        assert_eq!(sorted, v);
        assert_eq!(s, shuffle_blocks(&v, Block(1)));
        let t = shuffle_blocks(&v, Block(2));
        assert_ne!(s, t);
        assert_ne!(s, v);
        let fixed = s.iter().zip(&v).filter(|(a, b)| a == b).count();
        assert!(fixed < 10, "about one fixed point expected: {fixed}");
        assert!(shuffle_blocks(&[], Block(1)).is_empty());
        assert_eq!(shuffle_blocks(&[Block(4)], Block(1)), vec![Block(4)]);
    }

    #[test]
    fn every_order_of_three_is_reached_about_equally() {
        let v = items(3);
        let mut counts = std::collections::HashMap::new();
        for s in 0..6000u128 {
            *counts.entry(shuffle_blocks(&v, Block(s))).or_insert(0u32) += 1;
        }
        assert_eq!(counts.len(), 6, "all 3! orders");
        assert!(
            counts.values().all(|&c| (850..1150).contains(&c)),
            "{counts:?}"
        );
        // Every element reaches every position of a longer vector.
        let v = items(8);
        let mut seen = [[false; 8]; 8];
        for s in 0..400u128 {
            for (p, x) in shuffle_blocks(&v, Block(s << 70)).iter().enumerate() {
                seen[v.iter().position(|y| y == x).unwrap()][p] = true;
            }
        }
        assert!(seen.iter().flatten().all(|&b| b));
    }
}
