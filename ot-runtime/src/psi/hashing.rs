//! The public hash functions of the PSI seed [KKRT16, §5]: the three bin
//! hashes `h_0, h_1, h_2` of the cuckoo table and the OPRF input hash
//! `H(i, y)`, both keyed from the seed the receiver sends, so the two
//! parties compute the same functions.
//!
//! Every key is derived from the seed by [`derive`]: the first 16 bytes of
//! SHA-256 over a length-prefixed domain label, the seed and a 64-bit
//! counter, so keys of different uses (bin hashes, input hash, evictions,
//! retries) are independent.

#![forbid(unsafe_code)]

use crate::primitives::aes::{Aes128, FIXED_KEY_AES};
use crate::Block;
use sha2::{Digest, Sha256};

/// Domain label of the bin-hash AES key ([`BinHasher::new`]).
const BIN_HASH_DOMAIN: &[u8] = b"ot-runtime/psi/kkrt16/bin-hash/v1";
/// Domain label of the input hash's session half ([`BinHasher::new`]).
const INPUT_DOMAIN: &[u8] = b"ot-runtime/psi/kkrt16/oprf-input/v1";

/// Bits of the AES output that pick one bin.
const CHUNK_BITS: u32 = 42;
/// Mask of one chunk.
const CHUNK_MASK: u128 = (1 << CHUNK_BITS) - 1;
/// Elements hashed per AES batch.
const BATCH: usize = 256;

/// `SHA-256(len(domain) ‖ domain ‖ seed ‖ le64(counter))`, truncated to
/// 128 bits: the key derivation of every seed-derived key of this module
/// (labels are shorter than 256 bytes).
pub(crate) fn derive(domain: &[u8], seed: Block, counter: u64) -> Block {
    let mut h = Sha256::new();
    h.update([domain.len() as u8]);
    h.update(domain);
    h.update(seed.to_bytes());
    h.update(counter.to_le_bytes());
    let d = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&d[..16]);
    Block::from_bytes(out)
}

/// The hash functions of one PSI seed, expanded once: the bin hashes
/// ([`bin_hashes`]) and the OPRF input hash ([`psi_input`]).
///
/// * Bin hashes: AES under the key
///   `derive("ot-runtime/psi/kkrt16/bin-hash/v1", seed, 0)` (one AES call
///   per element); its 128-bit output is split into three 42-bit chunks
///   (bits `0..42`, `42..84`, `84..126`), chunk `i` reduced into
///   `[0, bins)` by a multiply-high (`c · bins >> 42`), bias at most
///   `bins / 2^42` per bin.
/// * Input hash: the fixed-key AES TCCR hash
///   [`crate::primitives::hash::tccr`] whose session half is the low 64
///   bits of `derive("ot-runtime/psi/kkrt16/oprf-input/v1", seed, 0)`.
#[derive(Clone, Debug)]
pub struct BinHasher {
    aes: Aes128,
    input_session: u64,
    seed: Block,
}

impl BinHasher {
    /// Expands the keys of `seed`.
    pub fn new(seed: Block) -> BinHasher {
        BinHasher {
            aes: Aes128::new(derive(BIN_HASH_DOMAIN, seed, 0)),
            input_session: derive(INPUT_DOMAIN, seed, 0).lo(),
            seed,
        }
    }

    /// The seed the hashes were derived from.
    pub fn seed(&self) -> Block {
        self.seed
    }

    /// The TCCR session half of the input hash [`psi_input`].
    pub fn input_session(&self) -> u64 {
        self.input_session
    }

    /// `out[k] = AES(ys[k])` under the bin-hash key, for
    /// `k < min(ys.len(), out.len())`: the raw bin-hash outputs, which
    /// [`split_bins`] reduces. AES is a permutation, so two elements have
    /// equal outputs iff they are equal.
    pub(crate) fn raw_many(&self, ys: &[Block], out: &mut [Block]) {
        let n = ys.len().min(out.len());
        for (inp, dst) in ys[..n].chunks(BATCH).zip(out[..n].chunks_mut(BATCH)) {
            let r = self.aes.encrypt_blocks_into(inp, dst);
            debug_assert!(r.is_ok(), "equal lengths");
        }
    }

    /// `out[3k + i] = psi_input(self, i, ys[k])` for `i < 3` and every
    /// `k` with `3k + 3 <= out.len()`, `k < ys.len()` (the sender's
    /// inputs: one `π(y)` shared by the three hashes, 4 AES calls per
    /// element instead of 6).
    pub(crate) fn inputs3_many(&self, ys: &[Block], out: &mut [Block]) {
        let n = ys.len().min(out.len() / 3);
        let mut py = [Block::ZERO; BATCH];
        for (inp, dst) in ys[..n]
            .chunks(BATCH)
            .zip(out[..3 * n].chunks_mut(3 * BATCH))
        {
            let py = &mut py[..inp.len()];
            let r = FIXED_KEY_AES.encrypt_blocks_into(inp, py);
            debug_assert!(r.is_ok(), "equal lengths");
            for (d, &p) in dst.chunks_exact_mut(3).zip(py.iter()) {
                for (i, o) in d.iter_mut().enumerate() {
                    *o = p ^ self.tweak(i);
                }
            }
            FIXED_KEY_AES.encrypt_blocks(dst);
            for (d, &p) in dst.chunks_exact_mut(3).zip(py.iter()) {
                for o in d.iter_mut() {
                    *o ^= p;
                }
            }
        }
    }

    /// `out[k] = psi_input(self, which[k], ys[k])` for
    /// `k < min(which.len(), ys.len(), out.len())`, batched (the
    /// receiver's inputs, one hash index per element).
    pub(crate) fn inputs_many(&self, which: &[u8], ys: &[Block], out: &mut [Block]) {
        let n = which.len().min(ys.len()).min(out.len());
        let mut py = [Block::ZERO; BATCH];
        for ((w, inp), dst) in which[..n]
            .chunks(BATCH)
            .zip(ys[..n].chunks(BATCH))
            .zip(out[..n].chunks_mut(BATCH))
        {
            let py = &mut py[..inp.len()];
            let r = FIXED_KEY_AES.encrypt_blocks_into(inp, py);
            debug_assert!(r.is_ok(), "equal lengths");
            for ((o, &p), &i) in dst.iter_mut().zip(py.iter()).zip(w) {
                *o = p ^ self.tweak(usize::from(i));
            }
            FIXED_KEY_AES.encrypt_blocks(dst);
            for (o, &p) in dst.iter_mut().zip(py.iter()) {
                *o ^= p;
            }
        }
    }

    /// The TCCR tweak block of hash index `i`: `(session half, i)`, the
    /// layout of [`crate::primitives::hash::tccr`].
    #[inline]
    fn tweak(&self, i: usize) -> Block {
        Block::from_u64s(i as u64, self.input_session)
    }
}

/// Chunk `i < 3` of a raw bin-hash output reduced into `[0, bins)` (0 when
/// `bins == 0`; `bins` is clamped to `2^32`).
#[inline]
pub(crate) fn split_bins(h: Block, bins: usize) -> [u32; 3] {
    let b = bins.min(1 << 32) as u128;
    core::array::from_fn(|i| {
        let c = (h.0 >> (CHUNK_BITS as usize * i)) & CHUNK_MASK;
        ((c * b) >> CHUNK_BITS) as u32
    })
}

/// The three bins `[h_0(y), h_1(y), h_2(y)]` of `y` among `bins` bins under
/// the hasher's seed (the same function for receiver and sender, see
/// [`BinHasher`]): each `< bins`, not necessarily distinct. With
/// `bins == 0` there is no bin and the result is `[0, 0, 0]`; `bins` above
/// `2^32` is treated as `2^32` (indices are `u32`).
pub fn bin_hashes(hasher: &BinHasher, y: Block, bins: usize) -> [u32; 3] {
    let mut h = [Block::ZERO];
    hasher.raw_many(&[y], &mut h);
    split_bins(h[0], bins)
}

/// The OPRF input of element `y` placed by hash function `i`:
/// `H(i, y) = tccr(session_half, i, y)` [KKRT16, §5: the receiver's input
/// binds the hash index], where `session_half` is
/// [`BinHasher::input_session`], the low 64 bits of a derivation of the
/// seed under the label `"ot-runtime/psi/kkrt16/oprf-input/v1"`. Distinct
/// `i` give distinct inputs for the same `y` (up to a TCCR collision), so
/// an element whose hash functions meet in one bin never gets two equal
/// tags, and a tag matches only under the hash index it was made for.
pub fn psi_input(hasher: &BinHasher, i: usize, y: Block) -> Block {
    crate::primitives::hash::tccr(hasher.input_session, i as u64, y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::hash::tccr;
    use crate::primitives::prg::Prg;

    #[test]
    fn bin_hashes_are_deterministic_in_range_and_seed_dependent() {
        let a = BinHasher::new(Block(1));
        let b = BinHasher::new(Block(2));
        let mut prg = Prg::new(Block(3));
        let mut differ = 0;
        for bins in [1usize, 2, 3, 34, 1000, 1 << 20, 1 << 32, usize::MAX] {
            for _ in 0..200 {
                let y = prg.next_block();
                let h = bin_hashes(&a, y, bins);
                assert_eq!(h, bin_hashes(&BinHasher::new(Block(1)), y, bins));
                assert!(
                    h.iter().all(|&j| (j as u128) < bins as u128),
                    "{h:?} {bins}"
                );
                differ += usize::from(h != bin_hashes(&b, y, bins));
            }
        }
        assert!(differ > 1000, "another seed, other bins: {differ}");
        assert_eq!(bin_hashes(&a, Block(5), 0), [0, 0, 0]);
        assert_eq!(a.seed(), Block(1));
    }

    #[test]
    fn bin_hashes_are_roughly_uniform_and_independent() {
        // Chi-square of each hash over 97 bins, 97 * 400 elements: 96
        // degrees of freedom (mean 96, sd ~14), a bound of 200 is > 7 sd.
        let bins = 97;
        let per = 400;
        for seed in [Block(7), Block(8 << 90)] {
            let h = BinHasher::new(seed);
            let mut prg = Prg::new(seed ^ Block(1));
            let mut counts = [[0u64; 97]; 3];
            let mut same = 0usize;
            for _ in 0..bins * per {
                let j = bin_hashes(&h, prg.next_block(), bins);
                for i in 0..3 {
                    counts[i][j[i] as usize] += 1;
                }
                same += usize::from(j[0] == j[1]) + usize::from(j[1] == j[2]);
            }
            for c in &counts {
                let chi: f64 = c
                    .iter()
                    .map(|&x| (x as f64 - per as f64).powi(2) / per as f64)
                    .sum();
                assert!(chi < 200.0, "chi-square {chi}");
            }
            // Independent hashes meet with probability 1/97 per pair:
            // 2 * 38800 / 97 = 800 expected.
            assert!((600..1000).contains(&same), "{same}");
        }
    }

    #[test]
    fn inputs_are_the_tccr_hash_under_the_derived_session() {
        let h = BinHasher::new(Block(0xabc));
        assert_eq!(
            h.input_session(),
            derive(INPUT_DOMAIN, Block(0xabc), 0).lo()
        );
        assert_ne!(
            h.input_session(),
            BinHasher::new(Block(0xabd)).input_session()
        );
        let mut prg = Prg::new(Block(4));
        let ys: Vec<Block> = (0..600).map(|_| prg.next_block()).collect();
        let mut three = vec![Block::ZERO; 3 * ys.len() + 2];
        h.inputs3_many(&ys, &mut three);
        for (k, &y) in ys.iter().enumerate() {
            for i in 0..3 {
                let e = tccr(h.input_session(), i as u64, y);
                assert_eq!(psi_input(&h, i, y), e);
                assert_eq!(three[3 * k + i], e);
            }
            assert_ne!(psi_input(&h, 0, y), psi_input(&h, 1, y));
            assert_ne!(psi_input(&h, 1, y), psi_input(&h, 2, y));
        }
        let which: Vec<u8> = (0..ys.len()).map(|k| (k % 3) as u8).collect();
        let mut one = vec![Block::ZERO; ys.len()];
        h.inputs_many(&which, &ys, &mut one);
        for (k, &y) in ys.iter().enumerate() {
            assert_eq!(one[k], psi_input(&h, k % 3, y));
        }
        assert_eq!(three[3 * ys.len()..], [Block::ZERO; 2]);
        assert_eq!(
            psi_input(&h, 300, ys[0]),
            tccr(h.input_session(), 300, ys[0])
        );
        let mut raw = vec![Block::ZERO; 3];
        h.raw_many(&ys[..3], &mut raw);
        assert_eq!(split_bins(raw[2], 77), bin_hashes(&h, ys[2], 77));
    }
}
