//! Ferret's primal-LPN step with a local linear code (Yang, Weng, Lan,
//! Zhang, Wang, "Ferret", CCS 2020, eprint 2020/924, §5, Fig. 8 step 4 and
//! §6 "LPN with a local linear code"): the `N × k` public matrix `A` has
//! [`ROW_WEIGHT`] = 10 ones per row, and the sender's and receiver's
//! length-`N` vectors become
//!
//! - sender: `z_i = v_i ⊕ ⊕_{j ∈ row i} s_j`,
//! - receiver: `y_i = w_i ⊕ ⊕_{j ∈ row i} t_j` and `x_i = e_i ⊕ ⊕_{j ∈
//!   row i} u_j`,
//!
//! for `k` base COTs `t_j = s_j ⊕ u_j·Δ` and the multi-point COT `w = v ⊕
//! e·Δ`: then `y = z ⊕ x·Δ`, and `x = A·u ⊕ e` is an LPN sample with the
//! secret `u` (the base COTs' choice bits) and the regular noise `e`.
//!
//! The matrix: row `i` takes its positions from AES-CTR under the public
//! code seed, stream blocks `3i .. 3i + 3` (twelve 32-bit words); a word
//! `r` becomes the position `⌊r·k / 2^32⌋` unless it falls in the
//! `2^32 mod k` values that would make some positions more likely
//! (Lemire's rejection), so every position is exactly uniform over `0..k`.
//! A row with fewer than ten accepted words among its twelve (probability
//! below `2^-30` per row) takes the rest from a second stream at counter
//! `2^63 + 3i`. Positions are drawn with replacement, as in the paper's
//! analysis of a random `d`-local code; a repeated position cancels.
//! Rows are independent, so any range of rows can be computed on its own
//! (the kernels take the first row's index).
//!
//! Access pattern: `out` is read and written in order; the `k` base values
//! are read at the public positions only. The receiver's noise bits `e_i`
//! are computed per row by a comparison with the punctured index of the
//! row's tree (no access at a secret address).

use crate::primitives::bits::{check_len, ShapeError};
use crate::primitives::prg::Prg;
use crate::{Bits, Block};

/// Ones per row of the local linear code (`d = 10`, Ferret §6).
pub const ROW_WEIGHT: usize = 10;

/// PRG blocks per row (twelve 32-bit words for ten positions).
const BLOCKS_PER_ROW: usize = 3;

/// Rows whose positions are drawn per PRG call (48 KiB of positions and
/// 12 KiB of stream: both stay in L1/L2 while the row sums are formed).
const ROWS_PER_CHUNK: usize = 1024;

/// First counter of the fallback stream for rows with too many rejections.
const FALLBACK_COUNTER: u64 = 1 << 63;

/// 32-bit words per row (three PRG blocks; the first ten are the
/// positions unless one is refused).
const WORDS_PER_ROW: usize = 4 * BLOCKS_PER_ROW;

/// The positions of rows of `A` (a code of `k` columns under one seed),
/// drawn a chunk of rows at a time.
struct Rows {
    prg: Prg,
    seed: Block,
    k: u64,
    /// Words `r` with `(r·k) mod 2^32 < reject` are refused.
    reject: u32,
    stream: Vec<Block>,
    /// The stream's words in row order (used on big-endian targets, where
    /// the blocks' memory order is not the words' order).
    words: Vec<u32>,
    /// Per row, its twelve words scaled; the first ten are its positions.
    pos: Vec<[u32; WORDS_PER_ROW]>,
    /// Per word of the chunk, whether it is refused.
    bad: Vec<u8>,
    /// Rows of the chunk with a refused word among their first ten.
    redo: Vec<usize>,
}

impl Rows {
    fn new(seed: Block, k: usize) -> Rows {
        let k64 = k as u64;
        Rows {
            prg: Prg::new(seed),
            seed,
            k: k64,
            // 2^32 mod k: the count of values that would overfill a bin.
            reject: ((1u64 << 32) % k64) as u32,
            stream: Block::zeroed_vec(ROWS_PER_CHUNK * BLOCKS_PER_ROW),
            words: Vec::new(),
            pos: vec![[0; WORDS_PER_ROW]; ROWS_PER_CHUNK],
            bad: vec![0; ROWS_PER_CHUNK * WORDS_PER_ROW],
            redo: Vec::new(),
        }
    }

    /// Fills `self.pos[..rows]` with the positions of rows `first ..
    /// first + rows`. Fast path: every word of the chunk scaled in one flat
    /// vectorized pass ([`super::scale`]), noting the refused words; the
    /// rare rows with a refused word among their first ten (probability
    /// about `10·k / 2^32` each) are redone word by word.
    fn fill(&mut self, first: usize, rows: usize) {
        self.prg.seek(first as u64 * BLOCKS_PER_ROW as u64);
        let stream = &mut self.stream[..rows * BLOCKS_PER_ROW];
        self.prg.fill(stream);
        let n = rows * WORDS_PER_ROW;
        let words: &[u32] = if cfg!(target_endian = "little") {
            bytemuck::cast_slice(stream)
        } else {
            self.words.clear();
            for b in stream.chunks_exact(BLOCKS_PER_ROW) {
                self.words.extend_from_slice(&row_words(b));
            }
            &self.words
        };
        let (k, reject) = (self.k, self.reject);
        let flat: &mut [u32] = bytemuck::cast_slice_mut(&mut self.pos[..rows]);
        super::scale::scale(words, k as u32, reject, flat, &mut self.bad[..n]);
        self.redo.clear();
        for (r, flags) in self.bad[..n].chunks_exact(WORDS_PER_ROW).enumerate() {
            if flags[..ROW_WEIGHT].iter().any(|&b| b != 0) {
                self.redo.push(r);
            }
        }
        for &r in &self.redo {
            let w = row_words(&stream[r * BLOCKS_PER_ROW..(r + 1) * BLOCKS_PER_ROW]);
            let mut p = [0u32; ROW_WEIGHT];
            let mut got = 0;
            take_words(&w, k, reject, &mut p, &mut got);
            if got < ROW_WEIGHT {
                fallback(self.seed, k, reject, first + r, &mut p, got);
            }
            self.pos[r][..ROW_WEIGHT].copy_from_slice(&p);
        }
    }
}

/// The twelve 32-bit words of a row's three stream blocks, each block's
/// from its least significant bits up (the same on every platform).
#[inline(always)]
fn row_words(b: &[Block]) -> [u32; 4 * BLOCKS_PER_ROW] {
    let mut w = [0u32; 4 * BLOCKS_PER_ROW];
    for (q, x) in w.iter_mut().enumerate() {
        *x = (b[q / 4].0 >> (32 * (q % 4))) as u32;
    }
    w
}

/// Appends the accepted positions of the 32-bit words `words` (in stream
/// order) to `p[*got..]` (up to [`ROW_WEIGHT`]).
fn take_words(words: &[u32], k: u64, reject: u32, p: &mut [u32; ROW_WEIGHT], got: &mut usize) {
    for &w in words {
        let m = u64::from(w) * k;
        if *got < ROW_WEIGHT && (m as u32) >= reject {
            p[*got] = (m >> 32) as u32;
            *got += 1;
        }
    }
}

/// Completes row `row` (`got` positions drawn into `p`) from the fallback
/// stream.
#[cold]
fn fallback(
    seed: Block,
    k: u64,
    reject: u32,
    row: usize,
    p: &mut [u32; ROW_WEIGHT],
    mut got: usize,
) {
    let mut prg = Prg::new_at(seed, FALLBACK_COUNTER + row as u64 * BLOCKS_PER_ROW as u64);
    while got < ROW_WEIGHT {
        let b = prg.next_block().0;
        let w = [
            b as u32,
            (b >> 32) as u32,
            (b >> 64) as u32,
            (b >> 96) as u32,
        ];
        take_words(&w, k, reject, p, &mut got);
    }
}

/// Rows ahead whose base values are prefetched while a row is summed (32
/// measured best with both parties of a two-process run sharing the last
/// level cache; 64 kept more misses in flight than the core tracks).
const PREFETCH_ROWS: usize = 32;

/// `out[r] ^= ⊕_j base[pos[r][j]]` for every row of `out` (positions
/// below `base.len()`), prefetching the reads [`PREFETCH_ROWS`] rows
/// ahead.
#[inline]
fn row_sums(out: &mut [Block], base: &[Block], pos: &[[u32; WORDS_PER_ROW]]) {
    let rows = out.len();
    for (r, o) in out.iter_mut().enumerate() {
        if let Some(ahead) = pos
            .get(r + PREFETCH_ROWS)
            .filter(|_| r + PREFETCH_ROWS < rows)
        {
            for &j in &ahead[..ROW_WEIGHT] {
                super::prefetch::prefetch(&base[j as usize]);
            }
        }
        let mut acc = o.0;
        for &j in &pos[r][..ROW_WEIGHT] {
            acc ^= base[j as usize].0;
        }
        o.0 = acc;
    }
}

/// Checks `1 ≤ k < 2^32`.
fn check_k(what: &'static str, k: usize) -> Result<(), ShapeError> {
    if k == 0 || k > u32::MAX as usize {
        return Err(ShapeError::Shape {
            what,
            rows: k,
            cols: ROW_WEIGHT,
        });
    }
    Ok(())
}

/// The positions of the ones of row `i` of `A` with `k` columns under
/// `seed` (for tests and references; the kernels draw rows in chunks).
///
/// Errors: [`ShapeError::Shape`] unless `1 ≤ k < 2^32`.
pub fn row(seed: Block, k: usize, i: usize) -> Result<[usize; ROW_WEIGHT], ShapeError> {
    check_k("silent::lpn row", k)?;
    let mut rows = Rows::new(seed, k);
    rows.fill(i, 1);
    let mut out = [0usize; ROW_WEIGHT];
    for (o, &p) in out.iter_mut().zip(&rows.pos[0]) {
        *o = p as usize;
    }
    Ok(out)
}

/// Sender: `out[r] ^= ⊕_{j ∈ row first + r} base[j]` for every `r`, with
/// `A` of `base.len()` columns under `seed` (the sender's `z = v ⊕ A·s`
/// when `out` holds `v`, in place).
///
/// Errors: [`ShapeError::Shape`] unless `1 ≤ base.len() < 2^32`.
pub fn try_sender_encode(
    out: &mut [Block],
    base: &[Block],
    seed: Block,
    first: usize,
) -> Result<(), ShapeError> {
    check_k("silent::lpn sender base", base.len())?;
    let mut rows = Rows::new(seed, base.len());
    for (c, chunk) in out.chunks_mut(ROWS_PER_CHUNK).enumerate() {
        rows.fill(first + c * ROWS_PER_CHUNK, chunk.len());
        row_sums(chunk, base, &rows.pos);
    }
    Ok(())
}

/// Receiver: `out[r] ^= ⊕_{j ∈ row} base[j]` and choice bit `r` of the
/// result `e_r ⊕ ⊕_{j ∈ row} choices[j]`, for rows `first + r`, with the
/// noise `e` of one punctured leaf per tree in the interleaved layout
/// (`e_p = 1` iff `p = α_t · trees + t` for `t = p mod trees`, with
/// `trees = alphas.len()`). `out` holds `w`; returns the `x` bits of the
/// rows (`out.len()` of them).
///
/// Errors: [`ShapeError::Shape`] unless `1 ≤ base.len() < 2^32` or with no
/// trees; [`ShapeError::Length`] if `choices` is not one bit per base COT.
pub fn try_receiver_encode(
    out: &mut [Block],
    base: &[Block],
    choices: &Bits,
    alphas: &[usize],
    seed: Block,
    first: usize,
) -> Result<Bits, ShapeError> {
    check_k("silent::lpn receiver base", base.len())?;
    check_len("silent::lpn receiver choices", base.len(), choices.len())?;
    if alphas.is_empty() {
        return Err(ShapeError::Shape {
            what: "silent::lpn receiver trees",
            rows: 0,
            cols: out.len(),
        });
    }
    let trees = alphas.len();
    let u = choices.as_bytes();
    let mut bits = vec![0u8; out.len().div_ceil(8)];
    let mut rows = Rows::new(seed, base.len());
    let (mut t, mut leaf) = (first % trees, first / trees);
    for (c, chunk) in out.chunks_mut(ROWS_PER_CHUNK).enumerate() {
        rows.fill(first + c * ROWS_PER_CHUNK, chunk.len());
        for (r, (o, p)) in chunk.iter_mut().zip(&rows.pos).enumerate() {
            let mut acc = o.0;
            let mut x = u8::from(alphas[t] == leaf);
            for &j in &p[..ROW_WEIGHT] {
                let j = j as usize;
                acc ^= base[j].0;
                x ^= u[j >> 3] >> (j & 7);
            }
            o.0 = acc;
            let i = c * ROWS_PER_CHUNK + r;
            bits[i >> 3] |= (x & 1) << (i & 7);
            t += 1;
            if t == trees {
                t = 0;
                leaf += 1;
            }
        }
    }
    Bits::from_bytes(&bits, out.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scalar reference: the row's positions, one at a time.
    fn reference_row(seed: Block, k: usize, i: usize) -> Vec<usize> {
        let reject = ((1u64 << 32) % k as u64) as u32;
        let mut out = vec![];
        let words = |prg: &mut Prg, n: usize| -> Vec<u32> {
            let mut b = Block::zeroed_vec(n);
            prg.fill(&mut b);
            b.iter()
                .flat_map(|b| (0..4).map(move |q| (b.0 >> (32 * q)) as u32))
                .collect()
        };
        let mut prg = Prg::new_at(seed, 3 * i as u64);
        let mut w = words(&mut prg, 3);
        let mut fallback = Prg::new_at(seed, (1 << 63) + 3 * i as u64);
        loop {
            for r in w {
                let m = u64::from(r) * k as u64;
                if out.len() < ROW_WEIGHT && (m as u32) >= reject {
                    out.push((m >> 32) as usize);
                }
            }
            if out.len() == ROW_WEIGHT {
                return out;
            }
            w = words(&mut fallback, 1);
        }
    }

    #[test]
    fn rows_match_the_reference_and_stay_in_range() {
        for k in [
            1usize,
            2,
            3,
            1000,
            589_760,
            (1 << 31) + 1,
            u32::MAX as usize,
        ] {
            for i in [0usize, 1, 255, 256, 257, 10_000] {
                let r = row(Block(9), k, i).unwrap();
                assert_eq!(r.to_vec(), reference_row(Block(9), k, i), "k {k} row {i}");
                assert!(r.iter().all(|&p| p < k));
            }
        }
    }

    /// The positions are uniform: a chi-square test over the 7 columns of a
    /// small code (6 degrees of freedom; 30 is far in the tail). With
    /// `k = 2^31 + 1` almost half the words are refused, which exercises
    /// the fallback stream in the test above.
    #[test]
    fn positions_are_uniform() {
        let k = 7usize;
        let mut count = [0usize; 7];
        let mut rows = Rows::new(Block(3), k);
        rows.fill(0, ROWS_PER_CHUNK);
        for p in &rows.pos {
            for &j in &p[..ROW_WEIGHT] {
                count[j as usize] += 1;
            }
        }
        let total = (ROWS_PER_CHUNK * ROW_WEIGHT) as f64;
        let chi: f64 = count
            .iter()
            .map(|&c| (c as f64 - total / 7.0).powi(2) / (total / 7.0))
            .sum();
        assert!(chi < 30.0, "{count:?} chi {chi}");
    }

    #[test]
    fn the_correlation_survives_the_encoding() {
        let (k, trees, depth) = (1000usize, 7usize, 5usize);
        let n = trees << depth;
        let mut rng = crate::primitives::rng::Rng::deterministic_for_tests(5);
        let delta = rng.next_block() | Block(1);
        let s: Vec<Block> = (0..k).map(|_| rng.next_block()).collect();
        let u = Bits::random(&mut rng, k);
        let t: Vec<Block> = (0..k)
            .map(|j| s[j] ^ (delta & Block::mask(u.get(j))))
            .collect();
        let alphas: Vec<usize> = (0..trees).map(|i| (i * 5 + 3) % (1 << depth)).collect();
        let v: Vec<Block> = (0..n).map(|_| rng.next_block()).collect();
        let w: Vec<Block> = (0..n)
            .map(|p| {
                let noisy = alphas[p % trees] == p / trees;
                v[p] ^ (delta & Block::mask(noisy))
            })
            .collect();
        // Whole range, and the same range in two pieces.
        let mut z = v.clone();
        try_sender_encode(&mut z, &s, Block(11), 0).unwrap();
        let mut y = w.clone();
        let x = try_receiver_encode(&mut y, &t, &u, &alphas, Block(11), 0).unwrap();
        for i in 0..n {
            assert_eq!(y[i], z[i] ^ (delta & Block::mask(x.get(i))), "row {i}");
            let r = row(Block(11), k, i).unwrap();
            let want = r
                .iter()
                .fold(alphas[i % trees] == i / trees, |a, &j| a ^ u.get(j));
            assert_eq!(x.get(i), want, "bit {i}");
        }
        let cut = 100;
        let mut y2 = w.clone();
        let x1 = try_receiver_encode(&mut y2[..cut], &t, &u, &alphas, Block(11), 0).unwrap();
        let x2 = try_receiver_encode(&mut y2[cut..], &t, &u, &alphas, Block(11), cut).unwrap();
        assert_eq!(y2, y);
        for i in 0..n {
            let b = if i < cut { x1.get(i) } else { x2.get(i - cut) };
            assert_eq!(b, x.get(i));
        }
    }

    #[test]
    fn bad_shapes_are_refused() {
        assert!(try_sender_encode(&mut [Block::ZERO], &[], Block(1), 0).is_err());
        assert!(row(Block(1), 0, 0).is_err());
        let base = [Block::ZERO; 4];
        assert!(try_receiver_encode(
            &mut [Block::ZERO],
            &base,
            &Bits::zeros(3),
            &[0],
            Block(1),
            0
        )
        .is_err());
        assert!(
            try_receiver_encode(&mut [Block::ZERO], &base, &Bits::zeros(4), &[], Block(1), 0)
                .is_err()
        );
    }
}
