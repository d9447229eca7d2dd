//! The sender's side of KKRT16 PSI [KKRT16, §5]: for every element `y` of
//! its (shuffled) set and every hash index `i < 3`, the OPRF value
//! `F(h_i(y), H(i, y))` at the bin `h_i(y)` the receiver would have put
//! `y` into with `h_i`, truncated to a 96-bit [`PsiTag`].

#![forbid(unsafe_code)]

use super::hashing::{split_bins, BinHasher};
use super::{HASHES, MAX_BINS};
use crate::oprf::OprfKey;
use crate::otext::stream::for_parts;
use crate::transport::wire::{Wire, WireError};
use crate::Block;

/// Sender elements per batch (`3 ×` as many OPRF evaluations per
/// [`OprfKey::eval_at`] call).
const BATCH: usize = 1024;

/// A tag: an OPRF value truncated to 12 bytes (96 bits), what the sender
/// sends per element and hash index. 96 bits keep the false-positive
/// probability of a run below `3 · n_s · n_r · 2^-96` (see
/// [`crate::psi`]).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct PsiTag(pub [u8; 12]);

impl PsiTag {
    /// The tag of an OPRF value: the first 12 bytes of `b.to_bytes()`.
    #[inline]
    pub fn of(b: Block) -> PsiTag {
        let bytes = b.to_bytes();
        let mut t = [0u8; 12];
        t.copy_from_slice(&bytes[..12]);
        PsiTag(t)
    }

    /// The first 8 bytes, little-endian: the receiver's lookup key
    /// (pseudorandom for an OPRF value).
    #[inline]
    pub(crate) fn key(&self) -> u64 {
        let mut k = [0u8; 8];
        k.copy_from_slice(&self.0[..8]);
        u64::from_le_bytes(k)
    }
}

/// The 12 bytes as they are; every 12-byte string is a tag.
impl Wire for PsiTag {
    const SIZE: usize = 12;
    #[inline]
    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.0);
    }
    #[inline]
    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        let t: [u8; 12] = bytes.try_into().map_err(|_| WireError::Length {
            expected: 12,
            got: bytes.len(),
        })?;
        Ok(PsiTag(t))
    }
}

/// The sender's tags [KKRT16, §5]: `out[3k + i] =
/// PsiTag::of(F(h_i(y_k), psi_input(seed, i, y_k)))` for `y_k = set[k]`,
/// `i < 3`, with `h_i` the bin hashes of `seed` ([`crate::psi::bin_hashes`])
/// and `F` the OPRF key. The number of bins is `key.len()` (one OPRF
/// instance per bin), so it always agrees with the key; with an empty key
/// (no bins), or more than [`MAX_BINS`] instances, every tag is
/// `PsiTag::default()`. `set` is the sender's set after
/// [`crate::psi::shuffle_blocks`]. Length `3 · set.len()`.
///
/// Batched: the bin hashes, the input hashes and the OPRF evaluations of
/// 1024 elements per call, with buffers allocated once per thread. With
/// `threads > 1` the set is split over that many rayon tasks; with
/// `threads <= 1` it runs on the caller's thread. The result does not
/// depend on `threads`.
pub fn psi_sender_tags(key: &OprfKey, set: &[Block], seed: Block, threads: usize) -> Vec<PsiTag> {
    let mut out = vec![PsiTag::default(); HASHES * set.len()];
    let bins = key.len();
    if bins == 0 || bins > MAX_BINS {
        return out;
    }
    let hasher = BinHasher::new(seed);
    for_parts(&mut out, threads, HASHES * BATCH, |start, part| {
        let first = start / HASHES;
        let ys = &set[first..first + part.len() / HASHES];
        let mut raw = vec![Block::ZERO; BATCH];
        let mut idx = vec![0u32; HASHES * BATCH];
        let mut inputs = vec![Block::ZERO; HASHES * BATCH];
        let mut values = vec![Block::ZERO; HASHES * BATCH];
        for (ys, dst) in ys.chunks(BATCH).zip(part.chunks_mut(HASHES * BATCH)) {
            let m = ys.len();
            hasher.raw_many(ys, &mut raw[..m]);
            for (ix, &h) in idx.chunks_exact_mut(HASHES).zip(&raw[..m]) {
                ix.copy_from_slice(&split_bins(h, bins));
            }
            hasher.inputs3_many(ys, &mut inputs[..HASHES * m]);
            let done = key.eval_at(
                &idx[..HASHES * m],
                &inputs[..HASHES * m],
                &mut values[..HASHES * m],
            );
            debug_assert_eq!(done, Some(HASHES * m), "bins < key.len()");
            if done.is_none() {
                continue;
            }
            for (t, &v) in dst.iter_mut().zip(&values[..HASHES * m]) {
                *t = PsiTag::of(v);
            }
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_are_the_first_twelve_bytes_and_round_trip_on_the_wire() {
        let b = Block(0x0f0e_0d0c_0b0a_0908_0706_0504_0302_0100);
        let t = PsiTag::of(b);
        assert_eq!(t.0, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
        assert_eq!(t.key(), b.lo());
        let mut buf = [0u8; PsiTag::SIZE];
        t.write(&mut buf);
        assert_eq!(PsiTag::read(&buf), Ok(t));
        assert_eq!(PsiTag::read(&[0xff; 12]), Ok(PsiTag([0xff; 12])));
        for len in [0, 11, 13, 16] {
            assert_eq!(
                PsiTag::read(&vec![0u8; len]),
                Err(WireError::Length {
                    expected: 12,
                    got: len
                })
            );
        }
        assert_eq!(PsiTag::SIZE, 12);
    }
}
