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
    if !cols.is_multiple_of(128) {
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
pub fn hash_blocks(cols: &[Block], count: usize, sha1: bool, threads: usize) -> Vec<Block> {
    if !sha1 {
        return hash_blocks_fast(cols, count, threads);
    }
    let mut out = cols[..count.min(cols.len())].to_vec();
    if sha1 {
        hash::sha1_ro_many(0, &mut out);
    } else {
        hash::tccr_many(0, &mut out);
    }
    out
}

/// The sender's two keys for the first `count` OTs: `[H(i, q_i), H(i, q_i ⊕ Δ)]`.
pub fn hash_block_pairs(
    q: &[Block],
    delta: Block,
    count: usize,
    sha1: bool,
    threads: usize,
) -> Vec<[Block; 2]> {
    if !sha1 {
        return hash_block_pairs_fast(q, delta, count, threads);
    }
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

/// The first `count` blocks of `v`, reusing its buffer (a `move`
/// parameter: Delta-OT outputs are the first `m` columns, the KOS padding
/// columns are dropped without a copy).
pub fn first_blocks(mut v: Vec<Block>, count: usize) -> Vec<Block> {
    v.truncate(count);
    v
}

/// `out[i] = payload[i] ⊕ keys[i]` componentwise (derandomization, sender side).
pub fn mask_pairs(payload: &[[Block; 2]], keys: &[[Block; 2]]) -> Vec<[Block; 2]> {
    payload
        .iter()
        .zip(keys)
        .map(|(p, k)| [p[0] ^ k[0], p[1] ^ k[1]])
        .collect()
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

/// Columns per tile of the fused kernels: a 128 x 1024-bit tile (16 KiB)
/// and its 1024 transposed columns stay in L1 while they are combined.
const TILE_BLOCKS: usize = 8;

/// Block `k` of a bit vector (bits `128k..128k+128`, zero past its end).
fn bits_block_at(r: &Bits, k: usize) -> Block {
    let bytes = r.as_bytes();
    let start = k.saturating_mul(16).min(bytes.len());
    let end = (start + 16).min(bytes.len());
    let mut b = [0u8; 16];
    b[..end - start].copy_from_slice(&bytes[start..end]);
    Block::from_bytes(b)
}

/// The receiver's `U` without storing `T`: row `j` is
/// `G(k0_j) ⊕ G(k1_j) ⊕ r` over `cols` columns. `T`'s columns are
/// recomputed after sending by [`prg_columns`], so the receiver sends `U` as
/// early as possible and never holds both matrices. Rows are split over
/// `threads` workers (rayon) when `threads > 1`.
pub fn prg_xor_pair(
    k0: &[Block],
    k1: &[Block],
    r: &Bits,
    cols: usize,
    threads: usize,
) -> BitMatrix {
    prg_xor_pair_chunk(k0, k1, r, cols, threads, 0, cols)
}

/// Columns `offset..offset + len` of [`prg_xor_pair`] (`offset` a multiple
/// of 128): the chunk variant used to stream the `extend` round.
pub fn prg_xor_pair_chunk(
    k0: &[Block],
    k1: &[Block],
    r: &Bits,
    cols: usize,
    threads: usize,
    offset: usize,
    len: usize,
) -> BitMatrix {
    let rows = k0.len().min(k1.len());
    let len = len.min(cols.saturating_sub(offset));
    let mut u = BitMatrix::new(rows, len);
    let bpr = len.div_ceil(128);
    if bpr == 0 {
        return u;
    }
    let b0 = offset / 128;
    let fill_row = |j: usize, row: &mut [Block]| {
        let mut tmp = [Block::ZERO; 64];
        let mut g0 = Prg::new_at(k0[j], b0 as u64);
        let mut g1 = Prg::new_at(k1[j], b0 as u64);
        for (c, chunk) in row.chunks_mut(64).enumerate() {
            let t = &mut tmp[..chunk.len()];
            g0.fill(chunk);
            g1.fill(t);
            for (k, (d, x)) in chunk.iter_mut().zip(t.iter()).enumerate() {
                *d ^= *x ^ bits_block_at(r, b0 + c * 64 + k);
            }
        }
        clear_padding(row, len);
    };
    let data = &mut u.as_blocks_mut()[..rows * bpr];
    if threads <= 1 {
        for (j, row) in data.chunks_mut(bpr).enumerate() {
            fill_row(j, row);
        }
    } else {
        let per = rows.div_ceil(threads).max(1);
        rayon::scope(|sc| {
            for (g, group) in data.chunks_mut(per * bpr).enumerate() {
                let fill_row = &fill_row;
                sc.spawn(move |_| {
                    for (k, row) in group.chunks_mut(bpr).enumerate() {
                        fill_row(g * per + k, row);
                    }
                });
            }
        });
    }
    u
}

/// Columns `offset..offset + len` of the sender's `Q` given the chunk
/// `u_chunk` of `U` for those columns (`offset` a multiple of 128): the
/// chunk variant of [`masked_columns`] used to consume the streamed round.
pub fn masked_columns_chunk(
    seeds: &[Block],
    u_chunk: &BitMatrix,
    s: &Bits,
    threads: usize,
    offset: usize,
    len: usize,
) -> Vec<Block> {
    masked_columns_impl(
        seeds,
        Some(u_chunk),
        Some(s),
        len.min(u_chunk.cols()),
        threads,
        (offset / 128) as u64,
    )
}

/// Columns of `T = G(k0)` (128 rows, `cols` columns), expanded and
/// transposed one L1-sized tile at a time.
pub fn prg_columns(k0: &[Block], cols: usize, threads: usize) -> Vec<Block> {
    masked_columns_impl(k0, None, None, cols, threads, 0)
}

/// Columns of the sender's `Q` (row `j` = `G(k_j) ⊕ s_j·u_j`), fused:
/// expansion, masking and transposition one L1-sized tile at a time, so the
/// 128 x m matrix `Q` is never materialized.
pub fn masked_columns(seeds: &[Block], u: &BitMatrix, s: &Bits, threads: usize) -> Vec<Block> {
    masked_columns_impl(seeds, Some(u), Some(s), u.cols(), threads, 0)
}

fn masked_columns_impl(
    seeds: &[Block],
    u: Option<&BitMatrix>,
    s: Option<&Bits>,
    cols: usize,
    threads: usize,
    counter0: u64,
) -> Vec<Block> {
    let mut out = Block::zeroed_vec(cols);
    if seeds.len() != KAPPA {
        // Not the 128-row case: take the simple path.
        let mut m = BitMatrix::new(seeds.len(), cols);
        for (j, &k) in seeds.iter().enumerate() {
            let row = m.row_mut(j);
            Prg::new_at(k, counter0).fill(row);
            if let (Some(u), Some(s)) = (u, s) {
                if s.try_get(j).unwrap_or(false) {
                    for (d, x) in row.iter_mut().zip(u.row(j)) {
                        *d ^= *x;
                    }
                }
            }
            clear_padding(row, cols);
        }
        return columns(&m);
    }
    let masked: Vec<bool> = (0..KAPPA)
        .map(|j| s.and_then(|s| s.try_get(j)).unwrap_or(false))
        .collect();
    let bpr = cols.div_ceil(128);
    // Each worker owns a contiguous range of 128-column blocks and the matching output columns.
    let work = |b_lo: usize, b_hi: usize, out: &mut [Block]| {
        let mut prgs: Vec<Prg> = seeds
            .iter()
            .map(|&k| Prg::new_at(k, counter0 + b_lo as u64))
            .collect();
        let mut tile = vec![Block::ZERO; KAPPA * TILE_BLOCKS];
        let mut b0 = b_lo;
        while b0 < b_hi {
            let cb = TILE_BLOCKS.min(b_hi - b0);
            let ncols = (cols - b0 * 128).min(cb * 128);
            for j in 0..KAPPA {
                let row = &mut tile[j * cb..(j + 1) * cb];
                prgs[j].fill(row);
                if masked[j] {
                    if let Some(u) = u {
                        for (d, x) in row.iter_mut().zip(&u.row(j)[b0..b0 + cb]) {
                            *d ^= *x;
                        }
                    }
                }
            }
            let off = (b0 - b_lo) * 128;
            let dst = &mut out[off..off + ncols];
            if transpose::transpose_128xm_into(&tile[..KAPPA * cb], ncols, dst).is_err() {
                // Unreachable with the shapes above; fall back to the bit-by-bit path.
                for (i, d) in dst.iter_mut().enumerate() {
                    let mut b = 0u128;
                    for j in 0..KAPPA {
                        b |= ((tile[j * cb + i / 128].0 >> (i % 128)) & 1) << j;
                    }
                    *d = Block(b);
                }
            }
            b0 += cb;
        }
    };
    if threads <= 1 || bpr < 2 * TILE_BLOCKS {
        work(0, bpr, &mut out);
    } else {
        let per = bpr.div_ceil(threads).max(1);
        rayon::scope(|sc| {
            for (g, chunk) in out.chunks_mut(per * 128).enumerate() {
                let work = &work;
                let b_lo = g * per;
                let b_hi = (b_lo + per).min(bpr);
                sc.spawn(move |_| work(b_lo, b_hi, chunk));
            }
        });
    }
    out
}

/// TCCR over a slice into an output slice with tweaks `tweak_start + i`,
/// in L1-sized batches (no temporary of the input's size).
fn tccr_chunked(tweak_start: u64, input: &[Block], xor_in: Block, out: &mut [Block]) {
    let mut tmp = [Block::ZERO; 256];
    for (c, (src, dst)) in input.chunks(256).zip(out.chunks_mut(256)).enumerate() {
        let t = &mut tmp[..src.len()];
        for (d, s) in t.iter_mut().zip(src) {
            *d = *s ^ xor_in;
        }
        let _ = hash::tccr_many_into(tweak_start + (c * 256) as u64, t, dst);
    }
}

/// [`hash_blocks`] without intermediate copies (AES path), split over
/// `threads` workers when `threads > 1`.
pub fn hash_blocks_fast(cols: &[Block], count: usize, threads: usize) -> Vec<Block> {
    let n = count.min(cols.len());
    let mut out = Block::zeroed_vec(n);
    let per = n.div_ceil(threads.max(1)).max(256);
    if threads <= 1 || n <= per {
        tccr_chunked(0, &cols[..n], Block::ZERO, &mut out);
    } else {
        rayon::scope(|sc| {
            for (g, (src, dst)) in cols[..n].chunks(per).zip(out.chunks_mut(per)).enumerate() {
                sc.spawn(move |_| tccr_chunked((g * per) as u64, src, Block::ZERO, dst));
            }
        });
    }
    out
}

/// [`hash_block_pairs`] without intermediate copies (AES path), split over
/// `threads` workers when `threads > 1`.
pub fn hash_block_pairs_fast(
    q: &[Block],
    delta: Block,
    count: usize,
    threads: usize,
) -> Vec<[Block; 2]> {
    let n = count.min(q.len());
    let mut out = Block::zeroed_pairs(n);
    let pairs = |start: usize, src: &[Block], dst: &mut [[Block; 2]]| {
        let mut h0 = [Block::ZERO; 256];
        let mut h1 = [Block::ZERO; 256];
        for (c, (src, dst)) in src.chunks(256).zip(dst.chunks_mut(256)).enumerate() {
            let k = src.len();
            let tweak = (start + c * 256) as u64;
            tccr_chunked(tweak, src, Block::ZERO, &mut h0[..k]);
            tccr_chunked(tweak, src, delta, &mut h1[..k]);
            for (i, d) in dst.iter_mut().enumerate() {
                *d = [h0[i], h1[i]];
            }
        }
    };
    let per = n.div_ceil(threads.max(1)).max(256);
    if threads <= 1 || n <= per {
        pairs(0, &q[..n], &mut out);
    } else {
        rayon::scope(|sc| {
            for (g, (src, dst)) in q[..n].chunks(per).zip(out.chunks_mut(per)).enumerate() {
                let pairs = &pairs;
                sc.spawn(move |_| pairs(g * per, src, dst));
            }
        });
    }
    out
}

/// `Σ χ_i · a[i]` in GF(2^128) with `χ = PRG(seed)` expanded in L1-sized
/// batches (the KOS check values `t` and `q` without materializing `χ`).
pub fn gf_inner_seeded(a: &[Block], seed: Block) -> Block {
    let mut prg = Prg::new(seed);
    let mut chi = [Block::ZERO; 1024];
    let mut acc = Block::ZERO;
    for part in a.chunks(1024) {
        let c = &mut chi[..part.len()];
        prg.fill(c);
        acc ^= crate::gf128::inner_product(part, c).unwrap_or(Block::ZERO);
    }
    acc
}

/// `Σ_{r_i = 1} χ_i` with `χ = PRG(seed)` expanded in batches (the KOS check
/// value `x`), in constant time with respect to `r`.
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

/// Entries `offset..offset + len` of [`mask_pairs`] (chunk variant, to stream
/// the derandomization round).
pub fn mask_pairs_chunk(
    payload: &[[Block; 2]],
    keys: &[[Block; 2]],
    offset: usize,
    len: usize,
) -> Vec<[Block; 2]> {
    let end = (offset + len).min(payload.len()).min(keys.len());
    let start = offset.min(end);
    mask_pairs(&payload[start..end], &keys[start..end])
}

/// [`unmask_chosen`] for entries `offset..offset + len`, given only that
/// chunk of `masked` (chunk variant, consuming the streamed round).
pub fn unmask_chosen_chunk(
    masked_chunk: &[[Block; 2]],
    keys: &[Block],
    r: &Bits,
    offset: usize,
    len: usize,
) -> Vec<Block> {
    masked_chunk
        .iter()
        .take(len)
        .enumerate()
        .map(|(i, m)| {
            let k = keys.get(offset + i).copied().unwrap_or(Block::ZERO);
            crate::ops::pick(r.try_get(offset + i).unwrap_or(false), m) ^ k
        })
        .collect()
}
