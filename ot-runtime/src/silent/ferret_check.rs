//! The consistency check of Ferret's malicious multi-point COT (Yang, Weng,
//! Lan, Zhang, Wang, eprint 2020/924, Fig. 6 "consistency check", batched
//! over the `t` trees of regular noise as in Fig. 7), for
//! `protocols/ferret_extend_malicious.otp`.
//!
//! After the sender's level sums and corrections, the receiver holds `w`
//! with `w_i = v_i` except `w_{p_t} = v_{p_t} ⊕ Δ` at its noisy rows `p_t`.
//! It draws a seed; both expand it to `χ_i ∈ GF(2^128)`, one per row
//! (AES-CTR under a key hashing the seed and the batch's tree session). The
//! receiver sends `x' = Σ_t χ_{p_t} ⊕ x*`, with `x* ∈ GF(2^128)` the choice
//! bits of 128 extra base COTs `y*_j = z*_j ⊕ x*_j·Δ` (bit `j` of `x*` the
//! coefficient of the basis element `X^j`, here `Block(1 << j)`), and keeps
//! `V = Σ_i χ_i w_i ⊕ Σ_j y*_j·X^j`; the sender computes `Y = Σ_i χ_i v_i ⊕
//! Σ_j (z*_j ⊕ x'_j·Δ)·X^j` and sends `H(Y)`; the receiver aborts unless
//! `H(V) = H(Y)`. Honest runs agree: `Σ χ_i w_i = Σ χ_i v_i ⊕ (Σ_t χ_{p_t})·Δ`
//! and `Σ_j y*_j X^j = Σ_j z*_j X^j ⊕ x*·Δ`. The extra COTs mask `Σ_t
//! χ_{p_t}`, which would reveal the noise; the hash keeps a receiver that
//! sends a wrong `x'` (then `Y = V ⊕ δ·Δ` for a `δ` it knows) from learning
//! `Δ`.
//!
//! Sums run over the leaves (low bits cleared, before the LPN step), a
//! group of trees at a time on the receiver's side, while the group is in
//! cache; χ at the receiver's secret rows is an AES evaluation at a secret
//! counter (no secret-dependent memory access).

use subtle::ConstantTimeEq;

use crate::primitives::prg::Prg;
use crate::{primitives::gf128, Bits, Block};

/// Domain label of the challenge key ([`chi_key`]).
const CHI_DOMAIN: &[u8] = b"silentot/ferret-chi";

/// Domain label of the digest of `Y` ([`digest`]).
const DIGEST_DOMAIN: &[u8] = b"silentot/ferret-check";

/// Rows whose `χ` are drawn per PRG call.
const CHI_CHUNK: usize = 4096;

/// The AES key of the `χ_i` stream: SHA-256 over the label
/// `"silentot/ferret-chi"`, the receiver's seed and the tree session,
/// truncated to 128 bits.
pub fn chi_key(seed: Block, tsid: Block) -> Block {
    crate::otext::session_id_with(CHI_DOMAIN, seed, &[tsid.0 as u64, (tsid.0 >> 64) as u64])
}

/// `Σ_r χ_{first + r} · rows[r]` in GF(2^128), `χ_i` block `i` of the
/// AES-CTR stream under `key`.
pub fn weighted_sum(rows: &[Block], key: Block, first: usize) -> Block {
    let mut prg = Prg::new_at(key, first as u64);
    let mut chi = Block::zeroed_vec(CHI_CHUNK.min(rows.len()));
    let mut acc = Block::ZERO;
    for chunk in rows.chunks(CHI_CHUNK) {
        let c = &mut chi[..chunk.len()];
        prg.fill(c);
        acc ^= gf128::inner_product(c, chunk).unwrap_or(Block::ZERO);
    }
    acc
}

/// `χ_i` for one row `i` (an AES evaluation at counter `i`).
pub fn chi_at(key: Block, row: usize) -> Block {
    Prg::new_at(key, row as u64).next_block()
}

/// `Σ_j a_j · X^j` for 128 values `a` (the basis element `X^j` is
/// `Block(1 << j)`); entries past 128 are ignored.
pub fn pack(a: &[Block]) -> Block {
    let basis: Vec<Block> = (0..a.len().min(128)).map(|j| Block(1u128 << j)).collect();
    gf128::inner_product(&basis, &a[..basis.len()]).unwrap_or(Block::ZERO)
}

/// The 128 choice bits `x*` as one field element (bit `j` of the block).
pub fn pack_bits(bits: &Bits) -> Block {
    (0..bits.len().min(128)).fold(Block::ZERO, |acc, j| {
        acc | Block(u128::from(bits.get(j)) << j)
    })
}

/// The sender's `Y = v_sum ⊕ Σ_j z*_j X^j ⊕ x'·Δ` (with `v_sum = Σ χ_i v_i`).
pub fn sender_y(v_sum: Block, check_base: &[Block], x_prime: Block, delta: Block) -> Block {
    v_sum ^ pack(check_base) ^ gf128::mul(x_prime, delta)
}

/// The receiver's `V = w_sum ⊕ Σ_j y*_j X^j` (with `w_sum = Σ χ_i w_i`).
pub fn receiver_v(w_sum: Block, check_chosen: &[Block]) -> Block {
    w_sum ^ pack(check_chosen)
}

/// `H(Y)`: SHA-256 over the label `"silentot/ferret-check"`, `Y` and the
/// tree session, truncated to 128 bits.
pub fn digest(y: Block, tsid: Block) -> Block {
    crate::otext::session_id_with(DIGEST_DOMAIN, y, &[tsid.0 as u64, (tsid.0 >> 64) as u64])
}

/// Whether the receiver's `V` hashes to the sender's digest (compared in
/// constant time).
pub fn digest_matches(v: Block, tsid: Block, theirs: Block) -> bool {
    digest(v, tsid).to_bytes().ct_eq(&theirs.to_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weighted_sums_split_and_match_single_terms() {
        let rows: Vec<Block> = (0..10_000u128)
            .map(|i| Block(i * 0x9e37_79b9 + 5))
            .collect();
        let key = chi_key(Block(3), Block(4));
        let whole = weighted_sum(&rows, key, 0);
        let split = weighted_sum(&rows[..4097], key, 0) ^ weighted_sum(&rows[4097..], key, 4097);
        assert_eq!(whole, split);
        let direct = rows
            .iter()
            .enumerate()
            .fold(Block::ZERO, |a, (i, &r)| a ^ gf128::mul(chi_at(key, i), r));
        assert_eq!(whole, direct);
    }

    #[test]
    fn packing_is_multiplication_by_the_bits() {
        let delta = Block(0x1234_5678_9abc_def0_0fed_cba9_8765_4321);
        let x = Block(0xdead_beef_0000_1111_2222_3333_4444_5555);
        let terms: Vec<Block> = (0..128)
            .map(|j| {
                if x.0 >> j & 1 == 1 {
                    delta
                } else {
                    Block::ZERO
                }
            })
            .collect();
        assert_eq!(pack(&terms), gf128::mul(x, delta));
        let bits = Bits::from_bools(&(0..128).map(|j| x.0 >> j & 1 == 1).collect::<Vec<_>>());
        assert_eq!(pack_bits(&bits), x);
    }
}
