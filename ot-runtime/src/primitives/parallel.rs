//! Multi-threaded variants of the bulk kernels for large batches.
//!
//! Every function takes `threads`: with `threads <= 1` (or a batch too small
//! to be worth splitting) it runs the single-threaded kernel inline and
//! never touches rayon; otherwise the batch is cut into `threads` contiguous
//! chunks executed on rayon's global pool. Results are bit-for-bit identical
//! to the single-threaded kernels (tests check this).

use crate::primitives::aes::{Aes128, Op, FIXED_KEY_AES};
use crate::primitives::bits::{check_len, ShapeError};
use crate::primitives::prg::{clear_row_padding, Prg};
use crate::primitives::transpose::{self, Backend};
use crate::{primitives::gf128, BitMatrix, Block};
use rayon::prelude::*;

/// Below this many blocks per thread, splitting costs more than it saves.
const MIN_BLOCKS_PER_THREAD: usize = 4096;

/// Effective number of chunks for `n` items.
fn split(n: usize, threads: usize, min: usize) -> usize {
    threads.min(n / min.max(1)).max(1)
}

/// Chunk length for `n` items in `k` chunks, rounded up to a multiple of `align`.
fn chunk_len(n: usize, k: usize, align: usize) -> usize {
    n.div_ceil(k).div_ceil(align).max(1) * align
}

/// Fills `out` with blocks `counter_start..` of the PRG stream of `seed`
/// (same output as [`Prg::new_at`] + [`Prg::fill`]).
pub fn prg_fill(seed: Block, counter_start: u64, out: &mut [Block], threads: usize) {
    let k = split(out.len(), threads, MIN_BLOCKS_PER_THREAD);
    let aes = Aes128::new(seed);
    if k == 1 {
        aes.ctr(counter_start, out);
        return;
    }
    let cl = chunk_len(out.len(), k, 32);
    out.par_chunks_mut(cl).enumerate().for_each(|(i, c)| {
        aes.ctr(counter_start.wrapping_add((i * cl) as u64), c);
    });
}

/// The first `n_blocks` blocks of the PRG stream of `seed` (same as
/// [`crate::primitives::prg::prg`]).
pub fn prg(seed: Block, n_blocks: usize, threads: usize) -> Vec<Block> {
    let mut v = Block::zeroed_vec(n_blocks);
    prg_fill(seed, 0, &mut v, threads);
    v
}

/// Parallel [`crate::primitives::prg::fill_matrix`]: row `i` of `m` = first `m.cols()`
/// bits of the stream of `seeds[i]` (rows are split across threads).
pub fn fill_matrix(seeds: &[Block], m: &mut BitMatrix, threads: usize) -> Result<(), ShapeError> {
    check_len("parallel::fill_matrix seeds", m.rows(), seeds.len())?;
    let (bpr, cols) = (m.blocks_per_row(), m.cols());
    if threads <= 1 || bpr == 0 || m.rows() < 2 {
        return crate::primitives::prg::fill_matrix(seeds, m);
    }
    m.as_blocks_mut()
        .par_chunks_mut(bpr)
        .zip(seeds.par_iter())
        .with_min_len(1)
        .for_each(|(row, &s)| {
            Prg::new(s).fill(row);
            clear_row_padding(row, cols);
        });
    Ok(())
}

fn fixed_key_op(op: impl Fn(usize) -> Op + Sync, blocks: &mut [Block], threads: usize) {
    let k = split(blocks.len(), threads, MIN_BLOCKS_PER_THREAD);
    let aes = &*FIXED_KEY_AES;
    if k == 1 {
        aes.run(op(0), None, blocks);
        return;
    }
    let cl = chunk_len(blocks.len(), k, 32);
    blocks
        .par_chunks_mut(cl)
        .enumerate()
        .for_each(|(i, c)| aes.run(op(i * cl), None, c));
}

/// Parallel [`crate::primitives::hash::tccr_many`] (block `j` uses tweak
/// `(session, tweak_start + j)`).
pub fn tccr_many(session: u64, tweak_start: u64, blocks: &mut [Block], threads: usize) {
    fixed_key_op(
        |off| Op::Tccr(tweak_start.wrapping_add(off as u64), session),
        blocks,
        threads,
    );
}

/// Parallel [`crate::primitives::hash::mmo_many`].
pub fn mmo_many(blocks: &mut [Block], threads: usize) {
    fixed_key_op(|_| Op::Mmo, blocks, threads);
}

/// Parallel transpose over source-column chunks (same result as
/// [`crate::primitives::transpose::transpose`]).
pub fn transpose(m: &BitMatrix, threads: usize) -> BitMatrix {
    let mut out = BitMatrix::new(m.cols(), m.rows());
    transpose_cols_par(
        m.as_blocks(),
        m.rows(),
        m.cols(),
        out.as_blocks_mut(),
        threads,
    )
    .expect("BitMatrix shapes are consistent");
    out
}

/// Parallel [`crate::primitives::transpose::transpose_128xm`].
pub fn transpose_128xm(src: &[Block], m: usize, threads: usize) -> Result<Vec<Block>, ShapeError> {
    let mut out = Block::zeroed_vec(m);
    transpose_cols_par(src, 128, m, &mut out, threads)?;
    Ok(out)
}

/// Parallel [`crate::primitives::transpose::transpose_mx128`].
pub fn transpose_mx128(src: &[Block], threads: usize) -> Vec<Block> {
    let mut out = Block::zeroed_vec(128 * src.len().div_ceil(128));
    transpose_cols_par(src, src.len(), 128, &mut out, threads).expect("shapes are consistent");
    out
}

fn transpose_cols_par(
    src: &[Block],
    rows: usize,
    cols: usize,
    dst: &mut [Block],
    threads: usize,
) -> Result<(), ShapeError> {
    let backend = Backend::selected();
    let dbpr = rows.div_ceil(128);
    // Split source columns (= destination rows); 128-column chunks when
    // there are enough, else byte (8-column) granularity.
    let k = split(rows * cols / 128, threads, MIN_BLOCKS_PER_THREAD);
    if k == 1 || dbpr == 0 {
        return transpose::transpose_cols(backend, src, rows, cols, 0..cols, dst, false);
    }
    let align = if cols >= 128 * k { 128 } else { 8 };
    let cl = chunk_len(cols, k, align);
    check_len("transpose destination", cols * dbpr, dst.len())?;
    check_len("transpose source", rows * cols.div_ceil(128), src.len())?;
    dst.par_chunks_mut(cl * dbpr)
        .enumerate()
        .try_for_each(|(i, d)| {
            let c0 = i * cl;
            transpose::transpose_cols(backend, src, rows, cols, c0..(c0 + cl).min(cols), d, false)
        })
}

/// Parallel [`crate::primitives::gf128::inner_product`] (partial sums XORed; the
/// reduction is linear so the result is identical).
pub fn inner_product(a: &[Block], b: &[Block], threads: usize) -> Result<Block, ShapeError> {
    check_len("parallel::inner_product", a.len(), b.len())?;
    let k = split(a.len(), threads, MIN_BLOCKS_PER_THREAD);
    if k == 1 {
        return gf128::inner_product(a, b);
    }
    let cl = chunk_len(a.len(), k, 16);
    a.par_chunks(cl)
        .zip(b.par_chunks(cl))
        .map(|(x, y)| gf128::inner_product(x, y))
        .try_reduce(|| Block::ZERO, |p, q| Ok(p ^ q))
}
