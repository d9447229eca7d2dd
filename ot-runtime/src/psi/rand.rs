//! Unbiased bounded integers from a seeded PRG: the eviction choices of
//! the cuckoo table and the swaps of the shuffle.

#![forbid(unsafe_code)]

use crate::primitives::prg::Prg;
use crate::Block;

/// Stream blocks fetched per refill.
const REFILL: usize = 32;

/// 64-bit words of the AES-CTR stream of a seed ([`Prg::new`]), in stream
/// order (the low then the high half of each block), buffered.
pub(crate) struct Words {
    prg: Prg,
    buf: [Block; REFILL],
    /// Next unread word (`2 * REFILL` = empty).
    pos: usize,
}

impl Words {
    /// The words of `Prg::new(seed)`.
    pub(crate) fn new(seed: Block) -> Words {
        Words {
            prg: Prg::new(seed),
            buf: [Block::ZERO; REFILL],
            pos: 2 * REFILL,
        }
    }

    /// The next word.
    #[inline]
    pub(crate) fn next_u64(&mut self) -> u64 {
        if self.pos == 2 * REFILL {
            self.prg.fill(&mut self.buf);
            self.pos = 0;
        }
        let b = self.buf[self.pos / 2];
        let w = if self.pos.is_multiple_of(2) {
            b.lo()
        } else {
            b.hi()
        };
        self.pos += 1;
        w
    }

    /// A uniform integer in `[0, s)` (0 when `s == 0`): Lemire's
    /// multiply-high with rejection ("Fast Random Integer Generation in an
    /// Interval", 2019), exactly uniform.
    #[inline]
    pub(crate) fn below(&mut self, s: u64) -> u64 {
        if s == 0 {
            return 0;
        }
        let mut m = u128::from(self.next_u64()) * u128::from(s);
        if (m as u64) < s {
            let t = s.wrapping_neg() % s;
            while (m as u64) < t {
                m = u128::from(self.next_u64()) * u128::from(s);
            }
        }
        (m >> 64) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_follow_the_prg_stream_and_below_is_in_range_and_uniform() {
        let mut w = Words::new(Block(9));
        let stream = crate::primitives::prg::prg(Block(9), 40);
        for b in &stream {
            assert_eq!(w.next_u64(), b.lo());
            assert_eq!(w.next_u64(), b.hi());
        }
        let mut counts = [0u32; 3];
        for _ in 0..30_000 {
            counts[w.below(3) as usize] += 1;
        }
        assert!(
            counts.iter().all(|&c| (9_500..10_500).contains(&c)),
            "{counts:?}"
        );
        assert_eq!(w.below(0), 0);
        assert_eq!(w.below(1), 0);
        assert!(w.below(u64::MAX) < u64::MAX);
    }
}
