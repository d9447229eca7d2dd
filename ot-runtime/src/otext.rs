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
