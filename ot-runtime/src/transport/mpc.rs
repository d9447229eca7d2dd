//! Kernels of the n-party protocols (`role P[n]`): additive secret sharing
//! of `u64` values, the coin-flip output hash, and the digest of a
//! broadcast round that the generated code exchanges to check that every
//! party received the same messages (broadcast with abort in the sense of
//! Goldwasser and Lindell, "Secure Multi-Party Computation without
//! Agreement", J. Cryptology 18(3), 2005: a round is consistent or every
//! honest party aborts).

use sha2::{Digest, Sha256};

use crate::Block;

/// Bytes of a broadcast digest (SHA-256).
pub const DIGEST_LEN: usize = 32;

/// Domain label of [`broadcast_digest`].
const BROADCAST_DOMAIN: &[u8] = b"ot-runtime/mpc/broadcast-digest/v1";

/// Domain label of [`coin_hash`].
const COIN_DOMAIN: &[u8] = b"ot-runtime/mpc/coin-flip/v1";

/// Additive shares of `x` over `Z_{2^64}`, one per party: `masks[j]` for
/// every `j != me`, and `x - sum_{j != me} masks[j]` for `me`, so the
/// shares sum to `x` (wrapping). With uniform `masks`, any `n - 1` shares
/// are uniform and independent of `x`.
pub fn share_u64(x: u64, masks: &[u64], me: usize) -> Vec<u64> {
    let others = masks
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != me)
        .fold(0u64, |acc, (_, m)| acc.wrapping_add(*m));
    let mut shares = masks.to_vec();
    if let Some(own) = shares.get_mut(me) {
        *own = x.wrapping_sub(others);
    }
    shares
}

/// Wrapping sum of `u64` values (reconstruction of additive shares).
pub fn sum_u64(values: &[u64]) -> u64 {
    values.iter().fold(0u64, |acc, v| acc.wrapping_add(*v))
}

/// The output of n-party coin flipping: SHA-256 of a domain label, the
/// session and every party's opened value, truncated to 128 bits. Hashing
/// (rather than XOR) makes the coin uniform even if a party's committed
/// value depends on another's commitment (Pedersen commitments are
/// malleable), as long as one party's value is uniform and unknown when the
/// values were fixed.
pub fn coin_hash(session: Block, values: &[Block]) -> Block {
    let mut h = Sha256::new();
    h.update(COIN_DOMAIN);
    h.update(session.to_bytes());
    h.update((values.len() as u64).to_le_bytes());
    for v in values {
        h.update(v.to_bytes());
    }
    let d = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&d[..16]);
    Block::from_bytes(out)
}

/// The session id of an n-party run as a `Block` (the `session` value of
/// `.otp` expressions).
pub fn session_block(session: [u8; 16]) -> Block {
    Block::from_bytes(session)
}

/// Digest of the message `sender` sent in broadcast round `round` as one
/// party received it (`frame`: the message's encoding), bound to the
/// protocol's spec hash and the session. Parties exchange these after the
/// round; equal digests mean equal messages (collision resistance).
pub fn broadcast_digest(
    spec_hash: &[u8; 32],
    session: Block,
    round: &str,
    sender: usize,
    frame: &[u8],
) -> [u8; DIGEST_LEN] {
    let mut h = Sha256::new();
    h.update(BROADCAST_DOMAIN);
    h.update(spec_hash);
    h.update(session.to_bytes());
    h.update((round.len() as u64).to_le_bytes());
    h.update(round.as_bytes());
    h.update((sender as u64).to_le_bytes());
    h.update((frame.len() as u64).to_le_bytes());
    h.update(frame);
    h.finalize().into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_sum_to_the_input() {
        for n in 2..10 {
            let masks: Vec<u64> = (0..n as u64)
                .map(|j| j.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect();
            for me in 0..n {
                let s = share_u64(u64::MAX - 5, &masks, me);
                assert_eq!(sum_u64(&s), u64::MAX - 5);
                assert!(s.iter().enumerate().all(|(j, v)| j == me || *v == masks[j]));
            }
        }
    }

    #[test]
    fn digests_bind_every_input() {
        let h = [7u8; 32];
        let s = Block::from_u64(1);
        let d = broadcast_digest(&h, s, "open", 2, b"abc");
        assert_ne!(d, broadcast_digest(&h, s, "open", 2, b"abd"));
        assert_ne!(d, broadcast_digest(&h, s, "open", 1, b"abc"));
        assert_ne!(d, broadcast_digest(&h, s, "opem", 2, b"abc"));
        assert_ne!(
            d,
            broadcast_digest(&h, Block::from_u64(2), "open", 2, b"abc")
        );
        assert_ne!(d, broadcast_digest(&[8u8; 32], s, "open", 2, b"abc"));
    }
}
