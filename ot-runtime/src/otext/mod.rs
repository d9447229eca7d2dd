//! The IKNP/KOS OT-extension family (`protocols/iknp*.otp`, `kos*.otp`,
//! `delta_iknp.otp`, `delta_kos.otp`, the `cot_*` conversions) and the
//! base OTs it starts from: this module's per-batch kernels, the
//! chunk-by-chunk bulk kernels ([`stream`]), the KOS consistency check
//! ([`consistency`]) and the Masny–Rindal base OT ([`endemic`],
//! `protocols/mr19*.otp`). The 1-out-of-N and SoftSpokenOT families reuse
//! [`stream`]'s calling convention and some of its kernels.
//!
//! Small kernels of IKNP/KOS-style OT extension that run once per batch
//! rather than per chunk, called as `.otp` intrinsics (see
//! `protocols/prelude.otp`): packing the base-OT choice bits, padding the
//! receiver's choice bits, a seeded masked sum and the field product,
//! dropping the padding columns, the session id, the base-key sanity check
//! and per-batch seeds of reused base OTs. The bulk kernels, which run chunk by chunk
//! inside streamed rounds, are in [`crate::otext::stream`].
//!
//! The functions are total: every output is sized from the inputs, so none
//! of them can fail or panic on a shape it does not expect.

pub mod consistency;
pub mod endemic;
pub mod stream;

use crate::primitives::prg::Prg;
use crate::{Bits, Block};

/// Number of base OTs / matrix rows (the computational security parameter).
pub const KAPPA: usize = 128;

/// 128 bits as one block (bit `j` of the block is `s[j]`); extra bits are ignored.
pub fn bits_block(s: &Bits) -> Block {
    s.to_blocks().first().copied().unwrap_or(Block::ZERO)
}

/// A block as 128 bits.
pub fn block_bits(b: Block) -> Bits {
    Bits::from_blocks(&[b], KAPPA).unwrap_or_else(|_| Bits::zeros(KAPPA))
}

/// `r` followed by `extra` (the KOS receiver pads its choice bits with
/// random bits that mask the correlation check).
pub fn concat_bits(r: &Bits, extra: &Bits) -> Bits {
    let mut out = r.clone();
    for b in extra.iter() {
        out.push(b);
    }
    out
}

/// Product in GF(2^128).
pub fn gf_mul(a: Block, b: Block) -> Block {
    crate::primitives::gf128::mul(a, b)
}

/// The first `count` blocks of `v`, reusing its buffer (a `move`
/// parameter: Delta-OT outputs are the first `m` columns, the KOS padding
/// columns are dropped without a copy).
pub fn first_blocks(mut v: Vec<Block>, count: usize) -> Vec<Block> {
    v.truncate(count);
    v
}

/// `Σ_{r_i = 1} χ_i` with `χ = PRG(seed)` expanded in batches (a masked
/// sum of a seeded random combination, as in the column check of Delta-OT
/// correlations), in constant time with respect to `r`.
pub fn gf_masked_sum_seeded(r: &Bits, seed: Block) -> Block {
    let mut prg = Prg::new(seed);
    let mut chi = [Block::ZERO; 1024];
    let mut acc = Block::ZERO;
    let n = r.len();
    let mut i = 0;
    while i < n {
        let k = (n - i).min(1024);
        prg.fill(&mut chi[..k]);
        for (j, c) in chi[..k].iter().enumerate() {
            let bit = i + j;
            let byte = r.as_bytes()[bit / 8];
            let mask = 0u128.wrapping_sub(u128::from((byte >> (bit % 8)) & 1));
            acc ^= Block(c.0 & mask);
        }
        i += k;
    }
    acc
}

/// Domain label of [`session_id`].
const SESSION_DOMAIN: &[u8] = b"ot-runtime/ot-extension/session/v1";

/// The session id of one OT-extension run: SHA-256 over a domain label,
/// the fresh `salt` the extension sender sent in the run's first message,
/// and the number of OTs `m`, truncated to 128 bits. Every hash the run
/// keys carries it: the TCCR tweaks' upper half (`stream::hash_blocks`),
/// the consistency check's challenge (`consistency::kos_challenge_key`).
pub fn session_id(salt: Block, m: usize) -> Block {
    session_id_with(SESSION_DOMAIN, salt, &[m as u64])
}

/// SHA-256 over a length-prefixed domain label, `salt` and `fields`
/// (little-endian), truncated to 128 bits: the session id of a protocol
/// with its own label and parameters (e.g. SoftSpokenOT's, which also
/// binds `k`).
pub fn session_id_with(domain: &[u8], salt: Block, fields: &[u64]) -> Block {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update([domain.len() as u8]);
    h.update(domain);
    h.update(salt.to_bytes());
    for f in fields {
        h.update(f.to_le_bytes());
    }
    let d = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&d[..16]);
    Block::from_bytes(out)
}

/// Whether the two keys of every base OT differ. The OT-extension receiver
/// (the base-OT sender) refuses base OTs with `k_0 == k_1`: with equal keys
/// row j of `u` would be its choice vector in the clear (defence in depth;
/// the base OTs' key hashes already bind the branch bit). Scans every pair
/// without an early exit; only the verdict is public.
pub fn base_keys_distinct(messages: &[[Block; 2]]) -> bool {
    messages
        .iter()
        .fold(true, |ok, [k0, k1]| ok & (k0.as_u128() != k1.as_u128()))
}

/// Domain constant in the high half of the input block of
/// [`batch_seeds`] (ASCII "deltabat"): keeps the derivation apart from the
/// AES-CTR stream of the same seed, whose counters have a zero high half.
const BATCH_SEED_TAG: u64 = u64::from_be_bytes(*b"deltabat");

/// Per-batch PRG seeds from base-OT seeds that are reused across batches
/// (a stateful Delta-OT party extends many times from one set of base OTs):
/// `seed'_j = AES_{seed_j}((tag, batch))`, a PRF of each base seed at the
/// batch index. Both parties derive the same seeds for the same batch, and
/// a batch index is never reused by an honest party, so no two batches
/// share a PRG stream (which would put `r ⊕ r'` in the clear).
pub fn batch_seeds(seeds: &[Block], batch: usize) -> Vec<Block> {
    let input = Block::from_u64s(batch as u64, BATCH_SEED_TAG);
    seeds
        .iter()
        .map(|&s| crate::primitives::aes::Aes128::new(s).encrypt_block(input))
        .collect()
}

/// [`batch_seeds`] for both seeds of every base OT (the OT-extension
/// receiver's side).
pub fn batch_seed_pairs(seeds: &[[Block; 2]], batch: usize) -> Vec<[Block; 2]> {
    let input = Block::from_u64s(batch as u64, BATCH_SEED_TAG);
    seeds
        .iter()
        .map(|&[a, b]| {
            [
                crate::primitives::aes::Aes128::new(a).encrypt_block(input),
                crate::primitives::aes::Aes128::new(b).encrypt_block(input),
            ]
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn session_ids_separate_salts_and_sizes() {
        let a = session_id(Block(1), 100);
        assert_eq!(a, session_id(Block(1), 100));
        assert_ne!(a, session_id(Block(2), 100));
        assert_ne!(a, session_id(Block(1), 101));
    }

    #[test]
    fn equal_base_keys_are_detected_anywhere() {
        let mut keys: Vec<[Block; 2]> = (0..128u128).map(|j| [Block(j), Block(j + 1000)]).collect();
        assert!(base_keys_distinct(&keys));
        keys[77][1] = keys[77][0];
        assert!(!base_keys_distinct(&keys));
        assert!(base_keys_distinct(&[]));
    }

    #[test]
    fn batch_seeds_agree_between_roles_and_differ_between_batches() {
        let pairs: Vec<[Block; 2]> = (0..128u128)
            .map(|j| [Block(3 * j), Block(3 * j + 1)])
            .collect();
        let zeros: Vec<Block> = pairs.iter().map(|p| p[0]).collect();
        for batch in [0, 1, 1 << 40] {
            let both = batch_seed_pairs(&pairs, batch);
            let one = batch_seeds(&zeros, batch);
            assert!(both.iter().zip(&one).all(|(p, z)| p[0] == *z));
        }
        assert_ne!(batch_seeds(&zeros, 0), batch_seeds(&zeros, 1));
        // The derived seed is not the seed's own PRG output block.
        let prg0 = crate::primitives::prg::prg(zeros[5], 1)[0];
        assert_ne!(batch_seeds(&zeros, 0)[5], prg0);
    }
}
