//! Three-party replicated secret sharing over `Z_{2^64}` (Araki,
//! Furukawa, Lindell, Nof and Ohara, "High-Throughput Semi-Honest Secure
//! Three-Party Computation with an Honest Majority", CCS 2016, eprint
//! 2016/768): the kernels of its correlated randomness (§2.2). The message
//! flow (replication of additive shares, multiplication, resharing to the
//! neighbour, opening) is `protocols/rss_mul.otp`.

#![forbid(unsafe_code)]

use crate::primitives::aes::Aes128;
use crate::Block;

/// The PRF's domain label (the high half of its input block).
const PRF_DOMAIN: u64 = u64::from_le_bytes(*b"rss/prf1");

/// `F_k(sid, j)`: the low 64 bits of AES under key `k` of the block
/// `(j, domain) ⊕ sid`, a pseudorandom function of the session `sid` and
/// the index `j` for a uniform key `k`.
pub fn prf_u64(key: Block, session: Block, index: u64) -> u64 {
    Aes128::new(key)
        .encrypt_block(Block::from_u64s(index, PRF_DOMAIN) ^ session)
        .lo()
}

/// Party `i`'s share of zero for index `j` [AFLNO16, §2.2]:
/// `α_i = F_{k_i}(sid, j) − F_{k_{i+1}}(sid, j)` (wrapping), with `own` =
/// `k_i` its key and `next` = `k_{i+1}` the key it received from the next
/// party. Around the ring the three `α_i` sum to zero, and to a party that
/// lacks `k_i` (`P[i + 1]` holds `k_{i+1}` and `k_{i+2}`, not `k_i`),
/// `α_i` is pseudorandom.
pub fn zero_share_u64(own: Block, next: Block, session: Block, index: u64) -> u64 {
    prf_u64(own, session, index).wrapping_sub(prf_u64(next, session, index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_shares_around_the_ring_sum_to_zero() {
        let keys = [Block(11), Block(22 << 70), Block(!33)];
        let sid = Block(0x5e55);
        for j in 0..4 {
            let sum = (0..3).fold(0u64, |a, i| {
                a.wrapping_add(zero_share_u64(keys[i], keys[(i + 1) % 3], sid, j))
            });
            assert_eq!(sum, 0);
            assert_ne!(zero_share_u64(keys[0], keys[1], sid, j), 0);
        }
    }

    #[test]
    fn the_prf_depends_on_key_session_and_index() {
        let (k, s) = (Block(1), Block(2));
        let v = prf_u64(k, s, 0);
        assert_eq!(v, prf_u64(k, s, 0));
        assert_ne!(v, prf_u64(Block(3), s, 0));
        assert_ne!(v, prf_u64(k, Block(4), 0));
        assert_ne!(v, prf_u64(k, s, 1));
    }
}
