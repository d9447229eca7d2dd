//! Fused kernels of IKNP-style OT extension, called as `.otp` intrinsics
//! (see `protocols/prelude.otp`). Each one is a data-parallel step over the
//! 128 x m bit matrices of [IKNP03, Fig. 1] / [KOS15, Fig. 7]; the message
//! flow that uses them lives in `protocols/iknp.otp` and its variants.
//!
//! The functions are total: every output is sized from the inputs, which
//! the generated code has already checked against the specification's
//! shapes, so none of them can fail or panic on a shape it does not expect.

use crate::prg::Prg;
use crate::{hash, transpose, BitMatrix, Bits, Block};

/// Number of base OTs / matrix rows (the computational security parameter).
pub const KAPPA: usize = 128;

/// Clears the bits past `cols` in the last block of a row.
fn clear_padding(row: &mut [Block], cols: usize) {
    if cols % 128 != 0 {
        if let Some(last) = row.last_mut() {
            *last &= Block((1u128 << (cols % 128)) - 1);
        }
    }
}

/// `T`: row `j` is the first `cols` bits of `PRG(seeds[j])`.
pub fn prg_matrix(seeds: &[Block], cols: usize) -> BitMatrix {
    let mut m = BitMatrix::new(seeds.len(), cols);
    for (j, &s) in seeds.iter().enumerate() {
        let row = m.row_mut(j);
        Prg::new(s).fill(row);
        clear_padding(row, cols);
    }
    m
}

/// The receiver's `U`: row `j` is `t_j ⊕ PRG(seeds[j]) ⊕ r` (IKNP's
/// `u^j = t^j ⊕ G(k_j^1) ⊕ r`). Rows beyond `seeds.len()` or bits beyond
/// `r.len()` are taken as zero.
pub fn prg_xor_rows(t: &BitMatrix, seeds: &[Block], r: &Bits) -> BitMatrix {
    let cols = t.cols();
    let mut u = BitMatrix::new(t.rows(), cols);
    let r_blocks = r.to_blocks();
    for j in 0..t.rows() {
        let row = u.row_mut(j);
        if let Some(&s) = seeds.get(j) {
            Prg::new(s).fill(row);
        }
        for ((dst, src), k) in row.iter_mut().zip(t.row(j)).zip(0..) {
            *dst ^= *src ^ r_blocks.get(k).copied().unwrap_or(Block::ZERO);
        }
        clear_padding(row, cols);
    }
    u
}

/// The sender's `Q`: row `j` is `PRG(seeds[j]) ⊕ s_j·u_j` (IKNP's
/// `q^j = G(k_j^{s_j}) ⊕ s_j·u^j = t^j ⊕ s_j·r`).
pub fn prg_masked_xor(seeds: &[Block], u: &BitMatrix, s: &Bits) -> BitMatrix {
    let cols = u.cols();
    let mut q = BitMatrix::new(u.rows(), cols);
    for j in 0..u.rows() {
        let row = q.row_mut(j);
        if let Some(&seed) = seeds.get(j) {
            Prg::new(seed).fill(row);
        }
        if s.try_get(j).unwrap_or(false) {
            for (dst, src) in row.iter_mut().zip(u.row(j)) {
                *dst ^= *src;
            }
        }
        clear_padding(row, cols);
    }
    q
}

/// The first `count` columns of a 128-row matrix as blocks (the rows
/// `t_i`/`q_i` of IKNP's transposed matrix); see [`columns`]. The extra
/// columns KOS adds for its check are dropped without a copy.
pub fn columns_first(m: &BitMatrix, count: usize) -> Vec<Block> {
    let mut c = columns(m);
    c.truncate(count);
    c
}

/// Columns of a 128-row matrix as blocks: `out[i]` = column `i` (the rows
/// `t_i`/`q_i` of IKNP's transposed matrix). Other row counts give the
/// columns of the first 128 rows (missing rows read as zero).
pub fn columns(m: &BitMatrix) -> Vec<Block> {
    let cols = m.cols();
    if m.rows() == KAPPA {
        if let Ok(v) = transpose::transpose_128xm(m.as_blocks(), cols) {
            return v;
        }
    }
    (0..cols)
        .map(|i| {
            let mut b = 0u128;
            for j in 0..m.rows().min(KAPPA) {
                b |= u128::from(m.get(j, i)) << j;
            }
            Block(b)
        })
        .collect()
}

/// 128 bits as one block (bit `j` of the block is `s[j]`); extra bits are ignored.
pub fn bits_block(s: &Bits) -> Block {
    s.to_blocks().first().copied().unwrap_or(Block::ZERO)
}

/// A block as 128 bits.
pub fn block_bits(b: Block) -> Bits {
    Bits::from_blocks(&[b], KAPPA).unwrap_or_else(|_| Bits::zeros(KAPPA))
}

/// Hash of every column: `out[i] = H(i, t_i)`, with `H` the fixed-key AES
/// TCCR hash [GKWY20] or, when `sha1` is set, the SHA-1 random oracle (the
/// "SHA1" column of libOTe's table).
pub fn hash_columns(t: &BitMatrix, sha1: bool) -> Vec<Block> {
    let mut cols = columns(t);
    if sha1 {
        hash::sha1_ro_many(0, &mut cols);
    } else {
        hash::tccr_many(0, &mut cols);
    }
    cols
}

/// The sender's two keys per OT: `[H(i, q_i), H(i, q_i ⊕ Δ)]`.
pub fn hash_column_pairs(q: &BitMatrix, delta: Block, sha1: bool) -> Vec<[Block; 2]> {
    let q0 = columns(q);
    let mut q1: Vec<Block> = q0.iter().map(|&x| x ^ delta).collect();
    let mut q0 = q0;
    if sha1 {
        hash::sha1_ro_many(0, &mut q0);
        hash::sha1_ro_many(0, &mut q1);
    } else {
        hash::tccr_many(0, &mut q0);
        hash::tccr_many(0, &mut q1);
    }
    q0.into_iter().zip(q1).map(|(a, b)| [a, b]).collect()
}

/// `out[i] = H(i, cols[i])` for the first `count` columns (TCCR, or SHA-1 when `sha1`).
pub fn hash_blocks(cols: &[Block], count: usize, sha1: bool) -> Vec<Block> {
    let mut out = cols[..count.min(cols.len())].to_vec();
    if sha1 {
        hash::sha1_ro_many(0, &mut out);
    } else {
        hash::tccr_many(0, &mut out);
    }
    out
}

/// The sender's two keys for the first `count` OTs: `[H(i, q_i), H(i, q_i ⊕ Δ)]`.
pub fn hash_block_pairs(q: &[Block], delta: Block, count: usize, sha1: bool) -> Vec<[Block; 2]> {
    let q = &q[..count.min(q.len())];
    let mut h0 = q.to_vec();
    let mut h1: Vec<Block> = q.iter().map(|&x| x ^ delta).collect();
    if sha1 {
        hash::sha1_ro_many(0, &mut h0);
        hash::sha1_ro_many(0, &mut h1);
    } else {
        hash::tccr_many(0, &mut h0);
        hash::tccr_many(0, &mut h1);
    }
    h0.into_iter().zip(h1).map(|(a, b)| [a, b]).collect()
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

/// `n` challenge blocks expanded from a seed with the AES-CTR PRG.
pub fn expand_seed(seed: Block, n: usize) -> Vec<Block> {
    crate::prg::prg(seed, n)
}

/// `Σ a[i] · b[i]` in GF(2^128) over the common length (the KOS check
/// values `t = Σ χ_i t_i` and `q = Σ χ_i q_i` [KOS15, Fig. 7]).
pub fn gf_inner(a: &[Block], b: &[Block]) -> Block {
    let n = a.len().min(b.len());
    crate::gf128::inner_product(&a[..n], &b[..n]).unwrap_or(Block::ZERO)
}

/// `Σ_{r_i = 1} χ_i` in GF(2^128) over the common length (the KOS check value `x`).
pub fn gf_masked_sum(r: &Bits, chi: &[Block]) -> Block {
    let n = r.len().min(chi.len());
    let mut acc = Block::ZERO;
    for (i, c) in chi[..n].iter().enumerate() {
        let mask = 0u128.wrapping_sub(u128::from(r.get(i)));
        acc ^= Block(c.0 & mask);
    }
    acc
}

/// Product in GF(2^128).
pub fn gf_mul(a: Block, b: Block) -> Block {
    crate::gf128::mul(a, b)
}

/// The first `count` blocks of `v` (a copy: Delta-OT outputs are the first
/// `m` columns; the KOS padding columns stay with the check).
pub fn first_blocks(v: &[Block], count: usize) -> Vec<Block> {
    v[..count.min(v.len())].to_vec()
}

/// `out[i] = payload[i] ⊕ keys[i]` componentwise (derandomization, sender side).
pub fn mask_pairs(payload: &[[Block; 2]], keys: &[[Block; 2]]) -> Vec<[Block; 2]> {
    payload.iter().zip(keys).map(|(p, k)| [p[0] ^ k[0], p[1] ^ k[1]]).collect()
}

/// `out[i] = masked[i][r_i] ⊕ key[i]`, selecting without a branch on `r_i`
/// (derandomization, receiver side).
pub fn unmask_chosen(masked: &[[Block; 2]], keys: &[Block], r: &Bits) -> Vec<Block> {
    masked
        .iter()
        .zip(keys)
        .enumerate()
        .map(|(i, (m, k))| crate::ops::pick(r.try_get(i).unwrap_or(false), m) ^ *k)
        .collect()
}
