//! The dual-LPN compression with an Expand-Accumulate code (Boyle,
//! Couteau, Gilboa, Ishai, Kohl, Resch, Scholl, CRYPTO 2022, eprint
//! 2022/1014): the EA code's generator `G = B·A ∈ F_2^{n×N}` (`B` a sparse
//! expander with [`EXPANDER_WEIGHT`] ones per row, `A` the `N × N`
//! accumulator) is the compressing matrix `H` of dual LPN
//! (BCGIKRS19 §4): `x = H·e` for the sparse noise `e`, `H·v` and `H·w`
//! for the COT vectors.
//!
//! `H·y` is computed in two passes: the accumulation `a_j = y_0 ⊕ … ⊕ y_j`
//! (in place, one sequential pass), then, per output `i`, the XOR of `a`
//! at the [`EXPANDER_WEIGHT`] positions of row `i` of `B`. The positions
//! are uniform in `0..N` (with replacement; a repeated position cancels,
//! which happens with probability below `w²/2N` per row), drawn from
//! AES-CTR under the public code seed: row `i` takes counter blocks
//! `6i .. 6i + 6` (the first 11 of their 12 64-bit words) and maps a word
//! `r` to `⌊r · N / 2^64⌋` (bias at most `N / 2^64`).
//!
//! For the receiver's choice bits `x = H·e` with regular noise in the
//! interleaved layout of [`super::spcot`] (tree `t`'s noisy coordinate at
//! `α_t · t_count + t`), the accumulated bits `(A·e)_p` (the parity of the
//! noisy coordinates at or below `p`) are built as a bit vector in one
//! constant-time pass over the `N` coordinates (one comparison each), then
//! read at the public expander positions ([`regular_noise_choices`]).
//!
//! The order matters: `H = B·A` accumulates first, so `(A·e)_p` mixes the
//! noise of every tree whose noisy coordinate can lie at or below `p`. In
//! the interleaved layout that is every tree, each with its noisy
//! coordinate uniform over the whole range; the tests below compute, from
//! the public code of a run, the exact bias of every choice bit implied by
//! the noise structure, for this layout and for the contiguous one (each
//! tree in one block of `2^h` coordinates), which gives a sum of squared
//! biases of about `n · 3^−11`.

use zeroize::Zeroize;

use super::params::{EXPANDER_WEIGHT, MAX_DEPTH};
use super::spcot::{ReceiverTrees, SenderTrees};
use crate::primitives::bits::ShapeError;
use crate::primitives::prg::Prg;
use crate::{Bits, Block};

/// PRG blocks per expander row (12 words, the first [`EXPANDER_WEIGHT`]
/// used).
const BLOCKS_PER_ROW: usize = 6;

/// Rows whose positions are drawn per PRG call.
const ROWS_PER_CHUNK: usize = 512;

/// Maps a uniform 64-bit word to `0..len` (`⌊r · len / 2^64⌋`).
#[inline]
fn scale(r: u64, len: usize) -> usize {
    ((u128::from(r) * len as u128) >> 64) as usize
}

/// Calls `f(row, positions)` for the rows `0..n` of the expander `B` of
/// code length `len` under `seed`, in order.
pub(super) fn for_each_row(
    seed: Block,
    len: usize,
    n: usize,
    mut f: impl FnMut(usize, &[usize; EXPANDER_WEIGHT]),
) {
    let mut prg = Prg::new(seed);
    let mut buf = Block::zeroed_vec(ROWS_PER_CHUNK * BLOCKS_PER_ROW);
    for first in (0..n).step_by(ROWS_PER_CHUNK) {
        let rows = ROWS_PER_CHUNK.min(n - first);
        let r = &mut buf[..rows * BLOCKS_PER_ROW];
        prg.fill(r);
        for (k, blocks) in r.chunks_exact(BLOCKS_PER_ROW).enumerate() {
            let mut pos = [0usize; EXPANDER_WEIGHT];
            for (p, word) in pos
                .iter_mut()
                .zip(blocks.iter().flat_map(|b| [b.lo(), b.hi()]))
            {
                *p = scale(word, len);
            }
            f(first + k, &pos);
        }
    }
}

/// The positions of the ones of row `i` of `B` (for tests and the scalar
/// reference; the kernels stream the rows).
pub fn expander_row(seed: Block, len: usize, i: usize) -> [usize; EXPANDER_WEIGHT] {
    let mut prg = Prg::new_at(seed, (i * BLOCKS_PER_ROW) as u64);
    let mut blocks = [Block::ZERO; BLOCKS_PER_ROW];
    prg.fill(&mut blocks);
    let mut pos = [0usize; EXPANDER_WEIGHT];
    for (p, word) in pos
        .iter_mut()
        .zip(blocks.iter().flat_map(|b| [b.lo(), b.hi()]))
    {
        *p = scale(word, len);
    }
    pos
}

/// Checks `n ≥ 1` and `len ≥ 1` (a code of length `len` compressing to `n`).
fn check_shape(what: &'static str, n: usize, len: usize) -> Result<(), ShapeError> {
    if n == 0 || len == 0 {
        return Err(ShapeError::Shape {
            what,
            rows: n,
            cols: len,
        });
    }
    Ok(())
}

/// `H·y` for a vector of blocks, consuming `y` (accumulated in place,
/// then wiped): the output has `n` blocks.
///
/// Errors: [`ShapeError::Shape`] if `n` or `y.len()` is zero.
pub fn try_compress(mut y: Vec<Block>, seed: Block, n: usize) -> Result<Vec<Block>, ShapeError> {
    check_shape("silent::ea compress", n, y.len())?;
    let mut acc = Block::ZERO;
    for b in y.iter_mut() {
        acc ^= *b;
        *b = acc;
    }
    let mut out = Block::zeroed_vec(n);
    for_each_row(seed, y.len(), n, |i, pos| {
        out[i] = pos.iter().fold(Block::ZERO, |a, &p| a ^ y[p]);
    });
    y.iter_mut().for_each(|b| b.0.zeroize());
    Ok(out)
}

/// `H·e` for a bit vector `e` (any noise shape): the accumulated bits,
/// then the row parities. The protocol uses [`regular_noise_choices`],
/// which needs no length-`N` buffer; this is its general reference.
///
/// Errors: [`ShapeError::Shape`] if `n` or `e.len()` is zero.
pub fn try_compress_bits(e: &Bits, seed: Block, n: usize) -> Result<Bits, ShapeError> {
    check_shape("silent::ea compress bits", n, e.len())?;
    let mut acc = Bits::zeros(e.len());
    let mut parity = false;
    for (j, bit) in e.iter().enumerate() {
        parity ^= bit;
        acc.set(j, parity);
    }
    let mut out = Bits::zeros(n);
    for_each_row(seed, e.len(), n, |i, pos| {
        out.set(i, pos.iter().fold(false, |a, &p| a ^ acc.get(p)));
    });
    Ok(out)
}

/// `(A·e)` for the regular noise `e` in the interleaved layout, as 64-bit
/// words (bit `p` of the vector at bit `p mod 64` of word `⌊p / 64⌋`): bit
/// `p = j · trees + t` is the parity of the trees whose noisy coordinate
/// `α_u · trees + u` is at most `p`. One pass over every coordinate in
/// order with a branch-free comparison `α_t == j` (the memory access
/// pattern does not depend on `α`). The caller wipes the result.
fn accumulated_noise(alphas: &[usize], depth: usize) -> Vec<u64> {
    let len = alphas.len() << depth;
    let mut words = vec![0u64; len.div_ceil(64)];
    let (mut parity, mut word, mut p) = (0u64, 0u64, 0usize);
    for j in 0..1usize << depth {
        for &a in alphas {
            parity ^= u64::from(a == j);
            word |= parity << (p & 63);
            p += 1;
            if p & 63 == 0 {
                words[(p >> 6) - 1] = word;
                word = 0;
            }
        }
    }
    if p & 63 != 0 {
        words[p >> 6] = word;
    }
    words
}

/// `x = H·e` for the regular noise `e` with one noisy coordinate per tree
/// at `α_t · trees + t` (the interleaved layout,
/// [`super::spcot::noise_coordinate`]): the accumulated bits
/// (`accumulated_noise`, wiped after use), then per output the XOR of
/// the bits at the row's public positions.
///
/// Errors: [`ShapeError::Shape`] for a depth outside `1..=MAX_DEPTH`, no
/// trees or `n = 0`; [`ShapeError::Index`] for an `α ≥ 2^depth`.
pub fn try_regular_noise_choices(
    alphas: &[usize],
    depth: usize,
    seed: Block,
    n: usize,
) -> Result<Bits, ShapeError> {
    if !(1..=MAX_DEPTH).contains(&depth) {
        return Err(ShapeError::Shape {
            what: "silent::ea regular noise depth",
            rows: alphas.len(),
            cols: depth,
        });
    }
    let width = 1usize << depth;
    if let Some(&a) = alphas.iter().find(|&&a| a >= width) {
        return Err(ShapeError::Index {
            what: "silent::ea regular noise alpha",
            index: a,
            len: width,
        });
    }
    let len = alphas.len() << depth;
    check_shape("silent::ea regular noise", n, len)?;
    let mut acc = accumulated_noise(alphas, depth);
    let mut out = Bits::zeros(n);
    for_each_row(seed, len, n, |i, pos| {
        let bit = pos.iter().fold(0u64, |b, &p| b ^ (acc[p >> 6] >> (p & 63)));
        out.set(i, bit & 1 == 1);
    });
    acc.zeroize();
    Ok(out)
}

/// The sender's COTs `z = H·v` (consumes the trees).
pub fn sender_compress(trees: SenderTrees, seed: Block, n: usize) -> Vec<Block> {
    try_compress(trees.into_leaves(), seed, n).unwrap_or_default()
}

/// The receiver's COTs `y = H·w` (consumes the trees).
pub fn receiver_compress(trees: ReceiverTrees, seed: Block, n: usize) -> Vec<Block> {
    try_compress(trees.into_leaves(), seed, n).unwrap_or_default()
}

/// The receiver's choice bits `x = H·e` for the protocol (indices already
/// reduced modulo `2^depth`); an invalid shape gives no bits.
pub fn regular_noise_choices(alphas: &[usize], depth: usize, seed: Block, n: usize) -> Bits {
    try_regular_noise_choices(alphas, depth, seed, n).unwrap_or_else(|_| Bits::zeros(0))
}

#[cfg(test)]
mod tests {
    use super::super::spcot::noise_coordinate;
    use super::*;
    use proptest::prelude::*;

    /// The scalar reference: row by row from [`expander_row`], each
    /// accumulated coordinate recomputed from scratch.
    fn reference(y: &[Block], seed: Block, n: usize) -> Vec<Block> {
        (0..n)
            .map(|i| {
                expander_row(seed, y.len(), i)
                    .iter()
                    .fold(Block::ZERO, |a, &p| {
                        a ^ y[..=p].iter().fold(Block::ZERO, |s, &x| s ^ x)
                    })
            })
            .collect()
    }

    fn vector(len: usize, s: u64) -> Vec<Block> {
        crate::primitives::prg::prg(Block(u128::from(s) << 1 | 1), len)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(32))]
        #[test]
        fn compress_matches_the_reference(len in 1usize..300, n in 1usize..1200, s in any::<u64>()) {
            let y = vector(len, s);
            let seed = Block(u128::from(s) ^ 0x55);
            prop_assert_eq!(try_compress(y.clone(), seed, n).unwrap(), reference(&y, seed, n));
        }

        #[test]
        fn bits_match_the_block_kernel(len in 1usize..300, n in 1usize..700, s in any::<u64>()) {
            // H·e on bits equals H·(e as 0/1 blocks) read back as bits.
            let e = Bits::from_blocks(&vector(len.div_ceil(128), s), len).unwrap();
            let as_blocks: Vec<Block> = e.iter().map(|b| Block(u128::from(b))).collect();
            let seed = Block(7);
            let x = try_compress_bits(&e, seed, n).unwrap();
            let xb = try_compress(as_blocks, seed, n).unwrap();
            for (i, b) in xb.iter().enumerate() {
                prop_assert_eq!(x.get(i), *b == Block(1));
            }
        }

        #[test]
        fn regular_choices_match_the_general_kernel(
            trees in 1usize..9, depth in 1usize..7, n in 1usize..600, s in any::<u64>()
        ) {
            let w = 1usize << depth;
            let alphas: Vec<usize> = vector(trees, s).iter().map(|b| b.lo() as usize % w).collect();
            let mut e = Bits::zeros(trees * w);
            for (t, &a) in alphas.iter().enumerate() {
                e.set(noise_coordinate(t, a, trees), true);
            }
            let seed = Block(u128::from(s));
            prop_assert_eq!(
                try_regular_noise_choices(&alphas, depth, seed, n).unwrap(),
                try_compress_bits(&e, seed, n).unwrap()
            );
        }

        /// The COT identity survives the compression: with `w = v ⊕ e·Δ`,
        /// `H·w = H·v ⊕ (H·e)·Δ`.
        #[test]
        fn correlation_holds_after_compression(trees in 1usize..6, depth in 1usize..6, s in any::<u64>()) {
            let w = 1usize << depth;
            let len = trees * w;
            let n = (len / 5).max(1);
            let v = vector(len, s);
            let delta = Block(u128::from(s).wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
            let alphas: Vec<usize> = vector(trees, !s).iter().map(|b| b.lo() as usize % w).collect();
            let mut wv = v.clone();
            for (t, &a) in alphas.iter().enumerate() {
                wv[noise_coordinate(t, a, trees)] ^= delta;
            }
            let seed = Block(3);
            let z = try_compress(v, seed, n).unwrap();
            let y = try_compress(wv, seed, n).unwrap();
            let x = try_regular_noise_choices(&alphas, depth, seed, n).unwrap();
            for (i, (yi, zi)) in y.iter().zip(&z).enumerate() {
                prop_assert_eq!(*yi, *zi ^ (delta & Block::mask(x.get(i))));
            }
        }
    }

    #[test]
    fn positions_are_in_range_and_spread() {
        let len = 1000;
        let mut hits = vec![0u32; len];
        for i in 0..2000 {
            for p in expander_row(Block(1), len, i) {
                hits[p] += 1;
            }
        }
        // 22 000 draws over 1000 cells: every cell is hit (a cell is
        // missed with probability e^-22).
        assert!(hits.iter().all(|&h| h > 0));
        assert_eq!(scale(u64::MAX, len), len - 1);
        assert_eq!(scale(0, len), 0);
    }

    #[test]
    fn bad_shapes_are_errors() {
        assert!(try_compress(Vec::new(), Block(0), 3).is_err());
        assert!(try_compress(vec![Block(1)], Block(0), 0).is_err());
        assert!(try_compress_bits(&Bits::zeros(0), Block(0), 3).is_err());
        assert!(try_regular_noise_choices(&[1], 0, Block(0), 3).is_err());
        assert!(try_regular_noise_choices(&[4], 2, Block(0), 3).is_err());
        assert!(try_regular_noise_choices(&[], 2, Block(0), 3).is_err());
        assert_eq!(regular_noise_choices(&[4], 2, Block(0), 3).len(), 0);
    }
}
