//! Streaming ("chunk") kernels of IKNP/KOS OT extension.
//!
//! The OT-extension data path is a chain of column-parallel steps over the
//! 128 x m matrices of [IKNP03, Fig. 1] / [KOS15, Fig. 7]: expand the base-OT
//! seeds (`prg_rows`), form the receiver's `u^j = t^j ⊕ G(k_j^1) ⊕ r`
//! (`xor_prg_choice`), transpose to the per-OT rows `t_i` / `q_i`
//! (`transpose_columns`, fused with expansion and masking on the sender as
//! `masked_columns`), and hash them into OT keys (`hash_blocks`,
//! `hash_block_pairs`). The protocol compiler runs a streamed round chunk by
//! chunk, so that a 128 x m matrix is never materialized and each chunk
//! (128 x 16384..65536 columns, 256 KiB..1 MiB) stays in L2 through the
//! whole chain.
//!
//! # Calling convention
//!
//! Every kernel is one function `f(args, span, out)` (a [`Span`], see
//! [`crate::primitives::span`]) computing columns (elements)
//! `span.offset..span.offset + span.len` of its whole result into `out`;
//! `span.offset` is a multiple of 128 (a 128-column block: the PRG counter
//! and the bit offset into a [`Bits`] argument are whole blocks; other
//! offsets are rounded down to a block for those two uses). The hashes
//! take their session, oracle and first index as one [`HashTweaks`].
//!
//! * A streamed matrix argument is its chunk (`rows x len` [`BitMatrix`],
//!   column `i` = column `offset + i` of the whole); a streamed slice
//!   argument is its chunk (element `i` = element `offset + i`) and may be
//!   shorter than `len`: only what is there is processed.
//! * [`Bits`] and all other arguments are whole (indexed `offset + i`).
//! * A [`BitMatrix`] output is reset to `rows x len` (reusing its
//!   allocation) and fully written, padding bits zero. A slice output is
//!   clipped (`out.len() <= len`): `out[i]` = element `offset + i` of the
//!   result for each `i < out.len()` that the result has; positions past
//!   the end of the result (past the streamed inputs) are left untouched.
//!   A [`Block`] output of a GF(2)-linear reduction accumulates
//!   (`*out ^=` the contribution of the chunk).
//! * The whole result is one call over [`Span::whole`] of the full width.
//!
//! Kernels are total: no shape panics; missing seeds, rows or bits
//! contribute zero. `threads > 1` splits the work over that many rayon
//! tasks; results are identical for every `threads`.

use crate::primitives::aes::Aes128;
pub use crate::primitives::hash::HashTweaks;
use crate::primitives::prg::Prg;
use crate::primitives::span::Span;
use crate::primitives::transpose::{self, Backend};
use crate::primitives::xor::{self, xor3_into, xor_masked_into};
use crate::{primitives::gf128, primitives::hash, BitMatrix, Bits, Block};

/// Rows of the OT-extension matrices (the security parameter κ).
const KAPPA: usize = 128;

/// Column blocks per tile of [`masked_columns`]: 128 rows x 32
/// blocks (64 KiB, L2) lets the AES-CTR expansion run 32 blocks per call,
/// the width of the VAES kernel (shorter calls waste its lanes).
const TILE_BLOCKS: usize = 32;

/// Blocks per batch of the hashes (an L1-sized temporary).
const HASH_BATCH: usize = 256;

/// Destinations with more than this many blocks still to be written
/// (4 MiB, four times a core's L2 cache) are written with non-temporal
/// stores by the transposing kernels: such an output cannot stay in cache
/// anyway, and streaming stores save reading every destination line from
/// memory before overwriting it. Smaller ones (a reused chunk buffer that
/// the next stage reads at once, the tail of an output) use plain stores.
const BYPASS_CACHE_BLOCKS: usize = 1 << 18;

/// Whether a chunk kernel whose destination slice has `remaining` blocks
/// (the rest of the array from the chunk on; see the chunk-variant
/// convention in `protocols/prelude.otp`) bypasses the cache.
pub(crate) fn bypass_cache(remaining: usize) -> bool {
    remaining > BYPASS_CACHE_BLOCKS
}

/// Clears the bits past `cols` in the last block of a row.
pub(crate) fn clear_padding(row: &mut [Block], cols: usize) {
    if !cols.is_multiple_of(128) {
        if let Some(last) = row.last_mut() {
            *last &= Block((1u128 << (cols % 128)) - 1);
        }
    }
}

/// Blocks `first..first + out.len()` of a bit vector (bits `128 first..`),
/// zero past its end: `r`'s bytes copied straight into blocks.
pub(crate) fn bits_blocks(r: &Bits, first: usize, out: &mut [Block]) {
    out.fill(Block::ZERO);
    let bytes = r.as_bytes();
    let start = first.saturating_mul(16).min(bytes.len());
    let end = first
        .saturating_add(out.len())
        .saturating_mul(16)
        .min(bytes.len());
    Block::slice_as_bytes_mut(out)[..end - start].copy_from_slice(&bytes[start..end]);
}

/// Runs `f(row_index, row)` over the rows (`bpr` blocks each) of `data`,
/// split into `threads` contiguous groups of rows.
pub(crate) fn for_rows(
    data: &mut [Block],
    bpr: usize,
    threads: usize,
    f: impl Fn(usize, &mut [Block]) + Sync,
) {
    if bpr == 0 || data.is_empty() {
        return;
    }
    let rows = data.len() / bpr;
    if threads <= 1 || rows < 2 {
        for (j, row) in data.chunks_mut(bpr).enumerate() {
            f(j, row);
        }
        return;
    }
    let per = rows.div_ceil(threads);
    let f = &f;
    rayon::scope(|sc| {
        for (g, group) in data.chunks_mut(per * bpr).enumerate() {
            sc.spawn(move |_| {
                for (k, row) in group.chunks_mut(bpr).enumerate() {
                    f(g * per + k, row);
                }
            });
        }
    });
}

/// Runs `f(start, part)` over `out` split into `threads` contiguous parts
/// whose starts are multiples of `align` (`start` = index of `part[0]`).
pub(crate) fn for_parts<T: Send>(
    out: &mut [T],
    threads: usize,
    align: usize,
    f: impl Fn(usize, &mut [T]) + Sync,
) {
    let n = out.len();
    let per = n.div_ceil(threads.max(1)).div_ceil(align).max(1) * align;
    if threads <= 1 || n <= per {
        f(0, out);
        return;
    }
    let f = &f;
    rayon::scope(|sc| {
        for (g, part) in out.chunks_mut(per).enumerate() {
            sc.spawn(move |_| f(g * per, part));
        }
    });
}

/// A PRG seed with its AES key schedule expanded once ([`prg_keys`]).
///
/// A streamed kernel restarts every row's AES-CTR stream at each chunk; with
/// the schedules expanded once per batch instead of once per row and chunk,
/// the 128 key expansions per chunk (about a third of the AES work of a
/// 16384-column chunk) disappear. The stream is that of [`Prg::new`].
///
/// The schedule of a base-OT seed is secret: it is wiped when the key is
/// dropped ([`Aes128`] zeroizes its round keys on every backend, the `aes`
/// crate's through its `zeroize` feature), and `Debug` does not print it.
#[derive(Clone, Debug)]
pub struct PrgKey(Aes128);

impl PrgKey {
    /// Stream blocks `counter..counter + out.len()` of the seed's PRG.
    pub(crate) fn fill(&self, counter: u64, out: &mut [Block]) {
        self.0.ctr(counter, out);
    }

    /// The AES instance of the stream (its round keys feed the fused
    /// multi-key kernels of [`crate::softspoken::vole`]).
    pub(crate) fn aes(&self) -> &Aes128 {
        &self.0
    }
}

/// The expanded PRG keys of `seeds` (for [`prg_rows`], [`xor_prg_choice`]
/// and [`masked_columns`]), computed once before a stream.
pub fn prg_keys(seeds: &[Block]) -> Vec<PrgKey> {
    seeds.iter().map(|&s| PrgKey(Aes128::new(s))).collect()
}

/// [`prg_keys`] pinned to one AES backend (`None` if this CPU lacks it),
/// to test the multi-key kernels' backends against each other.
#[cfg(test)]
pub(crate) fn prg_keys_on(
    seeds: &[Block],
    backend: crate::primitives::aes::AesBackend,
) -> Option<Vec<PrgKey>> {
    seeds
        .iter()
        .map(|&s| Aes128::with_backend(s, backend).map(PrgKey))
        .collect()
}

/// `T` of IKNP: row `j` is the first `cols` bits of `G(seeds[j])`, the
/// AES-CTR PRG of [`crate::primitives::prg`] ([IKNP03, Fig. 1], the receiver's
/// `t^j = G(k_j^0)`). Columns `span` (its `len` clipped to
/// `cols - offset`) into `out` (`seeds.len()` rows): row `j` is stream
/// blocks `offset/128..` of `Prg::new_at(seeds[j], offset/128)`, produced by
/// the batched AES-CTR fill over the whole row.
pub fn prg_rows(seeds: &[PrgKey], cols: usize, threads: usize, span: Span, out: &mut BitMatrix) {
    let Span { offset, len } = span;
    let len = len.min(cols.saturating_sub(offset));
    out.reset(seeds.len(), len);
    let bpr = out.blocks_per_row();
    let counter = (offset / 128) as u64;
    for_rows(out.as_blocks_mut(), bpr, threads, |j, row| {
        seeds[j].fill(counter, row);
        clear_padding(row, len);
    });
}

/// The IKNP receiver's `U`: row `j` is `t^j ⊕ G(seeds[j]) ⊕ r`
/// ([IKNP03, Fig. 1]: `u^j = t^j ⊕ G(k_j^1) ⊕ r`; [KOS15, Fig. 7] with `r`
/// padded by the check columns). `t` is the span's chunk of `T` (its
/// columns are columns `offset..` of the whole), `r` is whole. `out`
/// becomes `t.rows() x min(len, t.cols())`. Rows without a seed take
/// `G = 0`; bits of `r` past its end are zero. `r`'s blocks are XORed
/// directly (the offset is a whole number of blocks), fused with the PRG
/// output.
pub fn xor_prg_choice(
    t: &BitMatrix,
    seeds: &[PrgKey],
    r: &Bits,
    threads: usize,
    span: Span,
    out: &mut BitMatrix,
) {
    let Span { offset, len } = span;
    let w = len.min(t.cols());
    out.reset(t.rows(), w);
    let bpr = out.blocks_per_row();
    let mut rb = vec![Block::ZERO; bpr];
    bits_blocks(r, offset / 128, &mut rb);
    let counter = (offset / 128) as u64;
    let tbpr = t.blocks_per_row();
    let tb = t.as_blocks();
    for_rows(out.as_blocks_mut(), bpr, threads, |j, row| {
        match seeds.get(j) {
            Some(k) => k.fill(counter, row),
            None => row.fill(Block::ZERO),
        }
        let trow = &tb[j * tbpr..j * tbpr + bpr];
        xor3_into(row, trow, &rb);
        clear_padding(row, w);
    });
}

/// Columns of a 128-row matrix as blocks, the rows `t_i` of IKNP's
/// transposed matrix: `t` is the span's chunk; writes `out[i]` = column
/// `i` of `t` (bit `j` of `out[i]` = `t[j][i]`) for
/// `i < min(out.len(), len, t.cols())`. Rows past 128 are ignored, missing
/// rows read as zero. Whole 128 x 128 tiles use the in-register AVX-512
/// kernel when available (see [`crate::primitives::transpose`]).
pub fn transpose_columns(t: &BitMatrix, threads: usize, span: Span, out: &mut [Block]) {
    transpose_columns_wide(t, threads, span.len, out);
}

/// [`transpose_columns`] for columns of any whole number of blocks:
/// `W` is `Block` (128 rows) or `[Block; k]` (`128 k` rows, e.g. the
/// 512-row matrices of KKRT/OOS, [`crate::oprf`]). Rows past `W`'s width
/// are ignored, missing rows read as zero.
pub(crate) fn transpose_columns_wide<W: bytemuck::Pod + Send>(
    t: &BitMatrix,
    threads: usize,
    len: usize,
    out: &mut [W],
) {
    let rows = core::mem::size_of::<W>() * 8;
    let stream_dst = bypass_cache(out.len() * rows / 128);
    let n = out.len().min(len).min(t.cols());
    let out = &mut out[..n];
    if n == 0 {
        return;
    }
    let padded;
    let t = if t.rows() >= rows {
        // Rows past `rows` (SoftSpokenOT's corrections and dropped rows)
        // are ignored: the transpose reads the first `rows` rows in place.
        t
    } else {
        // Rare shape: copy the first `rows` rows, zero-extended.
        let mut m = BitMatrix::new(rows, t.cols());
        let k = t.rows().min(rows) * t.blocks_per_row();
        m.as_blocks_mut()[..k].copy_from_slice(&t.as_blocks()[..k]);
        padded = m;
        &padded
    };
    let backend = Backend::selected();
    for_parts(out, threads, 128, |start, part| {
        let r = transpose::transpose_cols(
            backend,
            &t.as_blocks()[..rows * t.blocks_per_row()],
            rows,
            t.cols(),
            start..start + part.len(),
            bytemuck::cast_slice_mut(part),
            stream_dst,
        );
        debug_assert!(r.is_ok(), "shapes are consistent");
    });
}

/// The IKNP sender's columns `q_i` of `Q`, where row `j` of `Q` is
/// `G(seeds[j]) ⊕ s_j · u^j` ([IKNP03, Fig. 1]: `q^j = t^j ⊕ s_j · r`, so
/// `q_i = t_i ⊕ r_i · s`; [KOS15, Fig. 7]). `u` is the span's chunk of
/// `U`; writes `out[i]` = column `offset + i` of `Q` for
/// `i < min(out.len(), len, u.cols())`.
///
/// Fused: each tile of 128 rows x `TILE_BLOCKS` (32) blocks is expanded (AES-CTR
/// at stream block `offset/128 + ...`), masked with `u` where `s_j = 1`
/// and transposed straight into `out` while it is cache-resident, so `Q`
/// is never materialized. Missing seeds, rows of `u` or bits of `s`
/// contribute zero; rows past 128 are ignored.
pub fn masked_columns(
    seeds: &[PrgKey],
    u: &BitMatrix,
    s: &Bits,
    threads: usize,
    span: Span,
    out: &mut [Block],
) {
    masked_columns_wide(seeds, u, s, threads, span, out);
}

/// [`masked_columns`] for columns of any whole number of blocks: `W`
/// is `Block` (128 rows) or `[Block; k]` (`128 k` rows, the 512-row
/// matrices of KKRT/OOS, [`crate::oprf`]); rows past `W`'s width are
/// ignored.
pub(crate) fn masked_columns_wide<W: bytemuck::Pod + Send>(
    seeds: &[PrgKey],
    u: &BitMatrix,
    s: &Bits,
    threads: usize,
    span: Span,
    out: &mut [W],
) {
    let Span { offset, len } = span;
    let rows = core::mem::size_of::<W>() * 8;
    let stream_dst = bypass_cache(out.len() * rows / 128);
    let n = out.len().min(len).min(u.cols());
    let out = &mut out[..n];
    let masked: Vec<bool> = (0..rows)
        .map(|j| j < u.rows() && s.try_get(j).unwrap_or(false))
        .collect();
    let ubpr = u.blocks_per_row();
    let counter0 = (offset / 128) as u64;
    let backend = Backend::selected();
    // 128-row matrices take tiles of TILE_BLOCKS column blocks; wider ones
    // proportionally fewer, so a tile stays 64 KiB.
    let tile_blocks = (TILE_BLOCKS * KAPPA / rows).max(1);
    let work = |start: usize, out: &mut [W]| {
        let b_lo = start / 128;
        let nb = out.len().div_ceil(128);
        let mut tile = vec![Block::ZERO; rows * tile_blocks.min(nb)];
        let mut b = 0;
        while b < nb {
            let cb = tile_blocks.min(nb - b);
            let tile = &mut tile[..rows * cb];
            for (j, row) in tile.chunks_exact_mut(cb).enumerate() {
                match seeds.get(j) {
                    Some(k) => k.fill(counter0 + (b_lo + b) as u64, row),
                    None => row.fill(Block::ZERO),
                }
                // Every row of `u` is XORed in, masked by `s_j`: no branch
                // or skipped work depends on the secret `s`.
                if j < u.rows() {
                    let ub = &u.as_blocks()[j * ubpr + b_lo + b..j * ubpr + b_lo + b + cb];
                    xor_masked_into(row, ub, 0u64.wrapping_sub(u64::from(masked[j])));
                }
            }
            let c0 = b * 128;
            let c1 = (c0 + cb * 128).min(out.len());
            let r = transpose::transpose_cols(
                backend,
                tile,
                rows,
                cb * 128,
                0..c1 - c0,
                bytemuck::cast_slice_mut(&mut out[c0..c1]),
                stream_dst,
            );
            debug_assert!(r.is_ok(), "shapes are consistent");
            b += cb;
        }
    };
    for_parts(out, threads, 128, work);
}

/// `out[i] = H(t(offset + i), cols[i])` with `H` the fixed-key AES TCCR
/// hash of [`crate::primitives::hash`] or, when `tweaks.sha1`, the SHA-1
/// random oracle, and `t(j) = (session, first + j)` the tweak of row `j`
/// ([`HashTweaks`]): the receiver's OT keys `H(i, t_i)` of [IKNP03,
/// Fig. 1]. The tweak's upper half carries the session, so two runs never
/// hash under the same tweak; `first` places an extension of a session
/// that extends many times (`protocols/iknp_extend.otp`) at its global
/// indices. `cols` is the span's chunk; `count` whole: writes `out[i]` for
/// `i < out.len()` with `i < len`, `i < cols.len()` and
/// `offset + i < count`.
pub fn hash_blocks(
    cols: &[Block],
    count: usize,
    tweaks: &HashTweaks,
    threads: usize,
    span: Span,
    out: &mut [Block],
) {
    let sess = tweaks.session_half();
    let sha1 = tweaks.sha1;
    // An output far larger than the caches is hashed into an L1 buffer and
    // copied out with streaming stores, as in `hash_block_pairs`.
    let stream = !sha1 && bypass_cache(out.len());
    hash_rows_chunk(cols, count, threads, span, out, |at, input, part| {
        if stream {
            let mut buf = [Block::ZERO; HASH_BATCH];
            for (c, (inp, dst)) in input
                .chunks(HASH_BATCH)
                .zip(part.chunks_mut(HASH_BATCH))
                .enumerate()
            {
                let tweak = tweaks.index(at + c * HASH_BATCH);
                let done = &mut buf[..dst.len()];
                let r = hash::tccr_many_into(sess, tweak, inp, done);
                debug_assert!(r.is_ok(), "lengths are equal");
                xor::copy_bypassing_cache(dst, done);
            }
            return;
        }
        let tweak = tweaks.index(at);
        let r = if sha1 {
            hash::sha1_ro_many_into(sess, tweak, input, part)
        } else {
            hash::tccr_many_into(sess, tweak, input, part)
        };
        debug_assert!(r.is_ok(), "lengths are equal");
    });
}

/// The driver of the row hashes ([`hash_blocks`],
/// [`crate::oprf::hash_words`]): clips the chunk (`i < out.len()`,
/// `i < len`, `i < rows.len()`, `offset + i < count`) and runs
/// `f(first, rows, out)` over `threads` parts, `first` the index of the
/// part's first row in the whole.
pub(crate) fn hash_rows_chunk<W: Sync>(
    rows: &[W],
    count: usize,
    threads: usize,
    span: Span,
    out: &mut [Block],
    f: impl Fn(usize, &[W], &mut [Block]) + Sync,
) {
    let Span { offset, len } = span;
    let n = out
        .len()
        .min(len)
        .min(rows.len())
        .min(count.saturating_sub(offset));
    let (src, out) = (&rows[..n], &mut out[..n]);
    for_parts(out, threads, HASH_BATCH, |start, part| {
        f(offset + start, &src[start..start + part.len()], part)
    });
}

/// The IKNP sender's two keys per OT, `[H(t(j), q_j), H(t(j), q_j ⊕ Δ)]`
/// ([IKNP03, Fig. 1] with `Δ = s`), under the tweaks of [`hash_blocks`]:
/// `q` is the span's chunk; writes `out[i]` for row `j = offset + i`, for
/// `i < out.len()` with `i < len`, `i < q.len()`, `offset + i < count`.
pub fn hash_block_pairs(
    q: &[Block],
    delta: Block,
    count: usize,
    tweaks: &HashTweaks,
    threads: usize,
    span: Span,
    out: &mut [[Block; 2]],
) {
    let Span { offset, len } = span;
    let sess = tweaks.session_half();
    // An output far larger than the caches (`out` is the rest of the array
    // from the chunk on) is written with non-temporal stores.
    let stream = bypass_cache(out.len().saturating_mul(2));
    let n = out
        .len()
        .min(len)
        .min(q.len())
        .min(count.saturating_sub(offset));
    let (src, out) = (&q[..n], &mut out[..n]);
    if !tweaks.sha1 {
        // Both keys of a batch of OTs written in place (or, for a large
        // output, into an L1 buffer copied out with streaming stores), then
        // hashed in one AES pass with a tweak per pair
        // (`hash::tccr_pairs_in_place`).
        for_parts(out, threads, HASH_BATCH, |start, part| {
            let input = &src[start..start + part.len()];
            let mut buf = [[Block::ZERO; 2]; HASH_BATCH];
            for (c, (inp, dst)) in input
                .chunks(HASH_BATCH)
                .zip(part.chunks_mut(HASH_BATCH))
                .enumerate()
            {
                let tweak = tweaks.index(offset + start + c * HASH_BATCH);
                let pairs = if stream {
                    &mut buf[..dst.len()]
                } else {
                    &mut *dst
                };
                crate::primitives::xor::pairs_with_delta_into(pairs, inp, delta);
                hash::tccr_pairs_in_place(sess, tweak, pairs);
                if stream {
                    let done = buf[..dst.len()].as_flattened();
                    xor::copy_bypassing_cache(dst.as_flattened_mut(), done);
                }
            }
        });
        return;
    }
    for_parts(out, threads, HASH_BATCH, |start, part| {
        let mut x1 = [Block::ZERO; HASH_BATCH];
        let mut h0 = [Block::ZERO; HASH_BATCH];
        let mut h1 = [Block::ZERO; HASH_BATCH];
        let input = &src[start..start + part.len()];
        for (c, (inp, dst)) in input
            .chunks(HASH_BATCH)
            .zip(part.chunks_mut(HASH_BATCH))
            .enumerate()
        {
            let k = inp.len();
            let tweak = tweaks.index(offset + start + c * HASH_BATCH);
            for (d, x) in x1[..k].iter_mut().zip(inp) {
                *d = *x ^ delta;
            }
            let r = hash::sha1_ro_many_into(sess, tweak, inp, &mut h0[..k])
                .and(hash::sha1_ro_many_into(sess, tweak, &x1[..k], &mut h1[..k]));
            debug_assert!(r.is_ok(), "lengths are equal");
            for ((d, a), b) in dst.iter_mut().zip(&h0[..k]).zip(&h1[..k]) {
                *d = [*a, *b];
            }
        }
    });
}

/// `Σ χ_i · a[i]` in GF(2^128) with `χ` the AES-CTR stream of
/// `Prg::new(seed)`: the KOS check values `t = Σ χ_i t_i` and
/// `q = Σ χ_i q_i` ([KOS15, Fig. 7]) without materializing `χ`. `a` is
/// the span's chunk; `*out ^= Σ_i χ_{offset+i} · a[i]` over
/// `i < min(len, a.len())` (the sum is GF(2)-linear, so the chunks'
/// contributions XOR to the whole).
pub fn gf_inner_seeded(a: &[Block], seed: Block, span: Span, out: &mut Block) {
    let Span { offset, len } = span;
    let a = &a[..len.min(a.len())];
    let mut prg = Prg::new_at(seed, offset as u64);
    let mut chi = [Block::ZERO; 1024];
    let mut acc = Block::ZERO;
    for part in a.chunks(1024) {
        let c = &mut chi[..part.len()];
        prg.fill(c);
        acc ^= gf128::inner_product(part, c).unwrap_or(Block::ZERO);
    }
    *out ^= acc;
}

/// `out[i] = payload[i] ⊕ keys[i]` componentwise (derandomization, sender
/// side): `payload` and `keys` are the span's chunks; writes `out[i]` for
/// `i < out.len()` with `i < len` and `i` within both.
pub fn mask_pairs(payload: &[[Block; 2]], keys: &[[Block; 2]], span: Span, out: &mut [[Block; 2]]) {
    let n = out.len().min(span.len).min(payload.len()).min(keys.len());
    crate::primitives::xor::xor_of_into(
        out[..n].as_flattened_mut(),
        payload[..n].as_flattened(),
        keys[..n].as_flattened(),
    );
}

/// `out[i] = masked[i][r_{offset+i}] ⊕ keys[i]` with a branch-free
/// select ([`crate::primitives::ops::pick`]; derandomization, receiver
/// side): `masked` and `keys` are the span's chunks, `r` whole; writes
/// `out[i]` for `i < out.len()` with `i < len` and `i` within both chunks;
/// bits past `r`'s end read as zero.
pub fn unmask_chosen(
    masked: &[[Block; 2]],
    keys: &[Block],
    r: &Bits,
    span: Span,
    out: &mut [Block],
) {
    let Span { offset, len } = span;
    let n = out.len().min(len).min(masked.len()).min(keys.len());
    crate::primitives::xor::select_xor_into(
        &mut out[..n],
        &masked[..n],
        &keys[..n],
        r.as_bytes(),
        offset,
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::whole;
    use proptest::prelude::*;

    fn blocks(n: usize, seed: u128) -> Vec<Block> {
        crate::primitives::prg::prg(Block(seed ^ 0x5eed), n)
    }

    fn bits(n: usize, seed: u128) -> Bits {
        let mut p = Prg::new(Block(seed ^ 0xb175));
        p.fill_bits(n)
    }

    fn matrix(rows: usize, cols: usize, seed: u128) -> BitMatrix {
        let s: Vec<Block> = (0..rows as u128).map(|i| Block(seed ^ (i << 70))).collect();
        whole::prg_rows(&prg_keys(&s), cols, 1)
    }

    /// The hashes of an extension at global index `first` are those of one
    /// long run at positions `first..`, for both hashes and both oracles.
    #[test]
    fn hashes_from_an_offset_continue_the_global_index() {
        let (first, n) = (1000, 300);
        let all = blocks(first + n, 9);
        let (tail, delta, sid) = (&all[first..], Block(77), Block(5));
        for sha1 in [false, true] {
            let whole = whole::hash_blocks(&all, first + n, &HashTweaks::new(sid, sha1, 0), 2);
            assert_eq!(
                whole::hash_blocks(tail, n, &HashTweaks::new(sid, sha1, first), 2),
                whole[first..]
            );
            let pairs =
                whole::hash_block_pairs(&all, delta, first + n, &HashTweaks::new(sid, sha1, 0), 2);
            let from =
                whole::hash_block_pairs(tail, delta, n, &HashTweaks::new(sid, sha1, first), 2);
            assert_eq!(from, pairs[first..]);
            assert_ne!(
                whole::hash_blocks(tail, n, &HashTweaks::new(sid, sha1, first + 1), 2),
                whole[first..]
            );
        }
    }

    /// Bit `c` of the PRG stream of `seed`, bit by bit.
    fn prg_bit(seed: Block, c: usize) -> bool {
        let mut p = Prg::new_at(seed, (c / 128) as u64);
        p.next_block().bit(c % 128)
    }

    /// A random split of `0..w` into chunks whose lengths are multiples of
    /// 128 except the last.
    fn split(w: usize, cuts: &[usize]) -> Vec<(usize, usize)> {
        let mut v = Vec::new();
        let mut off = 0;
        let mut k = 0;
        while off < w {
            let blocks = 1 + cuts.get(k).copied().unwrap_or(3) % 5;
            let len = (128 * blocks).min(w - off);
            v.push((off, len));
            off += len;
            k += 1;
        }
        v
    }

    /// Columns `off..off + len` of `m` as a matrix (the chunk argument).
    fn sub(m: &BitMatrix, off: usize, len: usize) -> BitMatrix {
        let mut s = BitMatrix::new(m.rows(), len);
        for r in 0..m.rows() {
            for c in 0..len {
                s.set(r, c, m.get(r, off + c));
            }
        }
        s
    }

    /// Joins chunk matrices side by side.
    fn join(parts: &[BitMatrix], rows: usize) -> BitMatrix {
        let w = parts.iter().map(BitMatrix::cols).sum();
        let mut m = BitMatrix::new(rows, w);
        let mut off = 0;
        for p in parts {
            assert_eq!(p.rows(), rows);
            for r in 0..rows {
                for c in 0..p.cols() {
                    m.set(r, off + c, p.get(r, c));
                }
            }
            off += p.cols();
        }
        m
    }

    fn padding_clear(m: &BitMatrix) -> bool {
        BitMatrix::from_blocks(m.rows(), m.cols(), m.as_blocks().to_vec()).is_ok()
    }

    const WIDTHS: [usize; 7] = [0, 1, 127, 128, 129, 1000, 4097];

    #[test]
    fn prg_rows_reference_and_chunks() {
        for w in WIDTHS {
            let seeds = blocks(5, w as u128);
            let full = whole::prg_rows(&prg_keys(&seeds), w, 1);
            assert_eq!((full.rows(), full.cols()), (5, w));
            for (j, &seed) in seeds.iter().enumerate() {
                for c in (0..w).step_by(37) {
                    assert_eq!(full.get(j, c), prg_bit(seed, c));
                }
            }
            assert_eq!(whole::prg_rows(&prg_keys(&seeds), w, 3), full);
            let mut out = BitMatrix::new(200, 9999); // stale, larger buffer
            let parts: Vec<BitMatrix> = split(w, &[2, 0, 4, 1])
                .into_iter()
                .map(|(o, l)| {
                    // The last chunk asks for more than is left: clipped.
                    let ask = if o + l == w { l + 128 } else { l };
                    prg_rows(&prg_keys(&seeds), w, 2, Span::new(o, ask), &mut out);
                    assert!(padding_clear(&out));
                    out.clone()
                })
                .collect();
            assert_eq!(join(&parts, 5), full);
        }
        let mut out = BitMatrix::new(1, 1);
        prg_rows(
            &prg_keys(&[Block(1)]),
            100,
            1,
            Span::new(256, 128),
            &mut out,
        );
        assert_eq!((out.rows(), out.cols()), (1, 0));
    }

    #[test]
    fn xor_prg_choice_reference_and_chunks() {
        for w in WIDTHS {
            for rows in [128, 3] {
                let t = matrix(rows, w, 7);
                let seeds = blocks(rows.min(100), 8); // rows >= 100 have no seed
                let r = bits(w.saturating_sub(5), 9); // short r: zero-extended
                let full = whole::xor_prg_choice(&t, &prg_keys(&seeds), &r, 1);
                assert_eq!((full.rows(), full.cols()), (rows, w));
                for j in (0..rows).step_by(7) {
                    for c in (0..w).step_by(13) {
                        let g = seeds.get(j).is_some_and(|&s| prg_bit(s, c));
                        let rb = r.try_get(c).unwrap_or(false);
                        assert_eq!(full.get(j, c), t.get(j, c) ^ g ^ rb, "{w} {j} {c}");
                    }
                }
                assert_eq!(whole::xor_prg_choice(&t, &prg_keys(&seeds), &r, 3), full);
                let mut out = BitMatrix::default();
                let parts: Vec<BitMatrix> = split(w, &[1, 3, 0])
                    .into_iter()
                    .map(|(o, l)| {
                        xor_prg_choice(
                            &sub(&t, o, l),
                            &prg_keys(&seeds),
                            &r,
                            3,
                            Span::new(o, l),
                            &mut out,
                        );
                        assert!(padding_clear(&out));
                        out.clone()
                    })
                    .collect();
                assert_eq!(join(&parts, rows), full);
            }
        }
    }

    fn naive_columns(m: &BitMatrix, n: usize) -> Vec<Block> {
        (0..n)
            .map(|i| {
                let mut b = 0u128;
                for j in 0..m.rows().min(128) {
                    b |= u128::from(m.get(j, i)) << j;
                }
                Block(b)
            })
            .collect()
    }

    #[test]
    fn transpose_columns_reference_and_chunks() {
        for w in WIDTHS.into_iter().chain([128 * 40 + 3]) {
            for rows in [128, 130, 5, 0] {
                let t = matrix(rows, w, w as u128 + 1);
                let full = whole::transpose_columns(&t, 1);
                assert_eq!(full, naive_columns(&t, w), "{rows} x {w}");
                assert_eq!(whole::transpose_columns(&t, 3), full);
                let mut joined = Vec::new();
                for (o, l) in split(w, &[4, 4, 2, 0, 1]) {
                    let mut out = vec![Block(7); l];
                    transpose_columns(&sub(&t, o, l), 2, Span::new(o, l), &mut out);
                    joined.extend(out);
                }
                assert_eq!(joined, full);
            }
        }
    }

    /// `hash_block_pairs` into the rest of a large output (past
    /// [`BYPASS_CACHE_BLOCKS`] blocks to go it writes through an L1 buffer
    /// with streaming stores) gives the same pairs as exact-size chunks,
    /// and touches nothing past the chunk.
    /// `(offset, len)` chunks of `0..w` of the uneven sizes 16384, 1000,
    /// 333 in turn, the last one cut at `w`.
    fn uneven_spans(w: usize) -> Vec<(usize, usize)> {
        let mut spans = Vec::new();
        let mut o = 0;
        for l in std::iter::repeat([16384usize, 1000, 333]).flatten() {
            if o >= w {
                break;
            }
            let l = l.min(w - o);
            spans.push((o, l));
            o += l;
        }
        spans
    }

    #[test]
    fn hash_pairs_into_a_large_output_equal_exact_chunks() {
        let w = BYPASS_CACHE_BLOCKS / 2 + 3 * HASH_BATCH + 7;
        let q = blocks(w, 21);
        let delta = Block(0x77);
        let tw = HashTweaks::new(Block(9), false, 0);
        let sentinel = [Block(0x5a5a); 2];
        let mut tail = vec![sentinel; w + 2];
        let mut exact = Vec::new();
        for (o, l) in uneven_spans(w) {
            hash_block_pairs(
                &q[o..o + l],
                delta,
                w,
                &tw,
                1,
                Span::new(o, l),
                &mut tail[o..w],
            );
            let mut out = vec![[Block::ZERO; 2]; l];
            hash_block_pairs(&q[o..o + l], delta, w, &tw, 1, Span::new(o, l), &mut out);
            exact.extend(out);
        }
        assert_eq!(tail[..w], exact[..]);
        assert_eq!(tail[w..], [sentinel; 2]);
        assert!(
            bypass_cache(2 * w),
            "the first chunks take the streaming path"
        );
    }

    /// The same for the receiver's hashes: into the rest of a large output
    /// (streaming stores through an L1 buffer) they equal exact-size chunks
    /// (plain stores), and nothing past the chunk is touched.
    #[test]
    fn hash_blocks_into_a_large_output_equal_exact_chunks() {
        let w = BYPASS_CACHE_BLOCKS + 3 * HASH_BATCH + 7;
        let t = blocks(w, 22);
        let tw = HashTweaks::new(Block(9), false, 0);
        let sentinel = Block(0x5a5a);
        let mut tail = vec![sentinel; w + 2];
        let mut exact = Vec::new();
        for (o, l) in uneven_spans(w) {
            hash_blocks(&t[o..o + l], w, &tw, 2, Span::new(o, l), &mut tail[o..w]);
            let mut out = vec![Block::ZERO; l];
            hash_blocks(&t[o..o + l], w, &tw, 1, Span::new(o, l), &mut out);
            exact.extend(out);
        }
        assert_eq!(tail[..w], exact[..]);
        assert_eq!(tail[w..], [sentinel; 2]);
        assert!(bypass_cache(w), "the first chunks take the streaming path");
    }

    /// The chunk convention for outputs assembled in place: given the rest
    /// of the destination from the chunk on, a kernel writes exactly its
    /// chunk. Past [`BYPASS_CACHE_BLOCKS`] remaining blocks the transposing
    /// kernels switch to non-temporal stores; the result must equal chunks
    /// written with plain stores into exact-size buffers, and nothing past
    /// the end of the array may be touched.
    #[test]
    fn destination_tails_give_the_same_columns_as_exact_chunks() {
        let w = BYPASS_CACHE_BLOCKS + 128 * 40 + 5;
        let t = whole::prg_rows(&prg_keys(&blocks(128, 11)), w, 1);
        let s = bits(128, 12);
        let seeds = prg_keys(&blocks(128, 13));
        let sentinel = Block(0x5a5a);
        let mut tail_t = vec![sentinel; w + 3];
        let mut tail_q = vec![sentinel; w + 3];
        let (mut exact_t, mut exact_q) = (Vec::new(), Vec::new());
        let sizes = [16384, 8192 + 128, 384, 32768];
        let mut chunks = Vec::new();
        let mut o = 0;
        while o < w {
            let l = sizes[chunks.len() % sizes.len()].min(w - o);
            chunks.push((o, l));
            o += l;
        }
        for (o, l) in chunks {
            let chunk = sub(&t, o, l);
            transpose_columns(&chunk, 1, Span::new(o, l), &mut tail_t[o..w]);
            masked_columns(&seeds, &chunk, &s, 1, Span::new(o, l), &mut tail_q[o..w]);
            let mut out = vec![Block::ZERO; l];
            transpose_columns(&chunk, 1, Span::new(o, l), &mut out);
            exact_t.extend_from_slice(&out);
            masked_columns(&seeds, &chunk, &s, 1, Span::new(o, l), &mut out);
            exact_q.extend_from_slice(&out);
        }
        assert!(tail_t[w..]
            .iter()
            .chain(&tail_q[w..])
            .all(|&b| b == sentinel));
        assert_eq!(&tail_t[..w], &exact_t[..]);
        assert_eq!(&tail_q[..w], &exact_q[..]);
        assert_eq!(exact_t[..300], naive_columns(&sub(&t, 0, 300), 300)[..]);
    }

    #[test]
    fn masked_columns_reference_and_chunks() {
        for w in WIDTHS.into_iter().chain([128 * 70 + 9]) {
            let u = matrix(128, w, 3);
            let s = bits(128, 4);
            let seeds = blocks(128, 5);
            let full = whole::masked_columns(&prg_keys(&seeds), &u, &s, 1);
            // Naive Q with BitMatrix::get.
            let mut q = BitMatrix::new(128, w);
            for (j, &seed) in seeds.iter().enumerate() {
                for c in 0..w {
                    q.set(j, c, prg_bit(seed, c) ^ (s.get(j) & u.get(j, c)));
                }
            }
            assert_eq!(full, naive_columns(&q, w), "{w}");
            assert_eq!(whole::masked_columns(&prg_keys(&seeds), &u, &s, 3), full);
            let mut joined = Vec::new();
            for (o, l) in split(w, &[0, 4, 3, 1]) {
                let mut out = vec![Block(9); l];
                masked_columns(
                    &prg_keys(&seeds),
                    &sub(&u, o, l),
                    &s,
                    3,
                    Span::new(o, l),
                    &mut out,
                );
                joined.extend(out);
            }
            assert_eq!(joined, full);
        }
        // Missing seeds, rows of u and bits of s contribute zero.
        let w = 300;
        let u = matrix(60, w, 1);
        let s = bits(70, 2);
        let seeds = blocks(90, 3);
        let got = whole::masked_columns(&prg_keys(&seeds), &u, &s, 2);
        let mut q = BitMatrix::new(128, w);
        for j in 0..128 {
            for c in 0..w {
                let g = seeds.get(j).is_some_and(|&k| prg_bit(k, c));
                let m = j < 60 && s.try_get(j).unwrap_or(false) && u.get(j, c);
                q.set(j, c, g ^ m);
            }
        }
        assert_eq!(got, naive_columns(&q, w));
    }

    #[test]
    fn hashes_match_reference_and_chunks() {
        for n in [0, 1, 127, 129, 1000] {
            let cols = blocks(n, 11);
            let delta = Block(0xde17a);
            let sid = Block(0x5e55_1011 << 64 | 0x1d);
            for sha1 in [false, true] {
                for count in [n, n / 2, n + 5] {
                    let h = whole::hash_blocks(&cols, count, &HashTweaks::new(sid, sha1, 0), 1);
                    assert_eq!(
                        whole::hash_blocks(&cols, count, &HashTweaks::new(sid, sha1, 0), 3),
                        h
                    );
                    let p = whole::hash_block_pairs(
                        &cols,
                        delta,
                        count,
                        &HashTweaks::new(sid, sha1, 0),
                        1,
                    );
                    assert_eq!(
                        whole::hash_block_pairs(
                            &cols,
                            delta,
                            count,
                            &HashTweaks::new(sid, sha1, 0),
                            3
                        ),
                        p
                    );
                    let k = count.min(n);
                    for i in (0..k).step_by(17) {
                        let (a, b) = if sha1 {
                            (
                                hash::sha1_ro(0x1d, i as u64, cols[i]),
                                hash::sha1_ro(0x1d, i as u64, cols[i] ^ delta),
                            )
                        } else {
                            (
                                hash::tccr(0x1d, i as u64, cols[i]),
                                hash::tccr(0x1d, i as u64, cols[i] ^ delta),
                            )
                        };
                        assert_eq!((h[i], p[i]), (a, [a, b]));
                    }
                    let (mut hj, mut pj) = (Vec::new(), Vec::new());
                    for (o, l) in split(n, &[1, 2, 3]) {
                        let mut out = vec![Block(1); l];
                        hash_blocks(
                            &cols[o..o + l],
                            count,
                            &HashTweaks::new(sid, sha1, 0),
                            2,
                            Span::new(o, l),
                            &mut out,
                        );
                        let mut outp = vec![[Block(1); 2]; l];
                        let c = &cols[o..o + l];
                        hash_block_pairs(
                            c,
                            delta,
                            count,
                            &HashTweaks::new(sid, sha1, 0),
                            2,
                            Span::new(o, l),
                            &mut outp,
                        );
                        let keep = l.min(count.saturating_sub(o));
                        assert!(out[keep..].iter().all(|&b| b == Block(1)));
                        hj.extend_from_slice(&out[..keep]);
                        pj.extend_from_slice(&outp[..keep]);
                    }
                    assert_eq!((hj, pj), (h, p));
                }
            }
        }
    }

    #[test]
    fn small_kernels_and_chunks() {
        let n = 1000;
        let v = blocks(n, 1);
        let pay: Vec<[Block; 2]> = blocks(2 * n, 2).chunks(2).map(|c| [c[0], c[1]]).collect();
        let keys: Vec<[Block; 2]> = blocks(2 * n, 3).chunks(2).map(|c| [c[0], c[1]]).collect();
        let r = bits(n - 10, 4);
        let seed = Block(42);
        let gi = whole::gf_inner_seeded(&v, seed);
        let chi = crate::primitives::prg::prg(seed, n);
        assert_eq!(
            gi,
            crate::primitives::gf128::inner_product(&v, &chi).unwrap()
        );
        let mp = whole::mask_pairs(&pay, &keys);
        let um = whole::unmask_chosen(&mp, &v, &r);
        for i in (0..n).step_by(31) {
            let b = r.try_get(i).unwrap_or(false);
            assert_eq!(um[i], mp[i][usize::from(b)] ^ v[i]);
        }
        let (mut mj, mut uj) = (Vec::new(), Vec::new());
        let mut acc = Block::ZERO;
        for (o, l) in split(n, &[2, 0, 1]) {
            gf_inner_seeded(&v[o..o + l], seed, Span::new(o, l), &mut acc);
            let mut m = vec![[Block::ZERO; 2]; l];
            mask_pairs(&pay[o..o + l], &keys[o..o + l], Span::new(o, l), &mut m);
            mj.extend(m);
            let mut u = vec![Block::ZERO; l];
            unmask_chosen(&mp[o..o + l], &v[o..o + l], &r, Span::new(o, l), &mut u);
            uj.extend(u);
        }
        assert_eq!(acc, gi);
        assert_eq!((mj, uj), (mp, um));
    }

    #[test]
    fn short_inputs_and_clipped_outputs() {
        // Slices shorter than len: only what is there; the rest untouched.
        let v = blocks(100, 5);
        let mut out = vec![Block(1); 128];
        hash_blocks(
            &v,
            1 << 20,
            &HashTweaks::new(Block(7), false, 0),
            2,
            Span::new(256, 128),
            &mut out,
        );
        assert_eq!(
            out[..100],
            whole::hash_blocks(&v, 100, &HashTweaks::new(Block(7), false, 0), 1)[..]
                .iter()
                .enumerate()
                .map(|(i, _)| hash::tccr(7, 256 + i as u64, v[i]))
                .collect::<Vec<_>>()[..]
        );
        assert!(out[100..].iter().all(|&b| b == Block(1)));
        // Clipped outputs: out shorter than len.
        let t = matrix(128, 1024, 6);
        let full = whole::transpose_columns(&t, 1);
        let mut small = vec![Block::ZERO; 200];
        transpose_columns(&t, 3, Span::new(0, 1024), &mut small);
        assert_eq!(small, full[..200].to_vec());
        let u = matrix(128, 1024, 7);
        let (seeds, s) = (blocks(128, 8), bits(128, 9));
        let mfull = whole::masked_columns(&prg_keys(&seeds), &u, &s, 1);
        let mut small = vec![Block::ZERO; 300];
        masked_columns(&prg_keys(&seeds), &u, &s, 2, Span::new(0, 1024), &mut small);
        assert_eq!(small, mfull[..300].to_vec());
        // out longer than the chunk's matrix: the extra is untouched.
        let mut long = vec![Block(5); 1100];
        transpose_columns(&t, 1, Span::new(0, 1100), &mut long);
        assert_eq!(long[..1024], full[..]);
        assert!(long[1024..].iter().all(|&b| b == Block(5)));
        // Degenerate shapes never panic.
        let empty = BitMatrix::default();
        let mut m = BitMatrix::default();
        xor_prg_choice(&empty, &[], &Bits::zeros(0), 4, Span::new(128, 128), &mut m);
        prg_rows(&[], 0, 4, Span::new(0, 128), &mut m);
        assert!(whole::masked_columns(&[], &empty, &Bits::zeros(0), 2).is_empty());
        assert!(whole::transpose_columns(&empty, 2).is_empty());
        let mut acc = Block::ZERO;
        gf_inner_seeded(&[], Block(1), Span::new(0, 128), &mut acc);
        assert_eq!(acc, Block::ZERO);
        assert!(whole::unmask_chosen(&[[Block(1); 2]], &[], &Bits::zeros(0)).is_empty());
        let mut o = [Block::ZERO; 1];
        unmask_chosen(
            &[[Block(1), Block(2)]],
            &[Block(4)],
            &Bits::zeros(0),
            Span::new(usize::MAX, 1),
            &mut o,
        );
        assert_eq!(o[0], Block(5));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn random_splits_join_to_full(
            w in 0usize..3000,
            cuts in proptest::collection::vec(0usize..40, 0..30),
            seed in any::<u64>(),
            threads in 1usize..4,
        ) {
            let seed = u128::from(seed);
            let cut = |k: usize| cuts.get(k).copied().unwrap_or(1);
            let mut chunks = Vec::new();
            let mut off = 0;
            while off < w {
                let len = (128 * (1 + cut(chunks.len()) % 20)).min(w - off);
                chunks.push((off, len));
                off += len;
            }
            let seeds = blocks(128, seed);
            let t = whole::prg_rows(&prg_keys(&seeds), w, threads);
            let s = bits(128, seed + 1);
            let r = bits(w, seed + 2);
            let u = whole::xor_prg_choice(&t, &prg_keys(&blocks(128, seed + 3)), &r, threads);
            let cols = whole::transpose_columns(&t, threads);
            let q = whole::masked_columns(&prg_keys(&seeds), &u, &s, threads);
            let h = whole::hash_blocks(&q, w, &HashTweaks::new(Block(seed), false, 0), threads);
            let hp = whole::hash_block_pairs(&q, Block(seed), w, &HashTweaks::new(Block(3), false, 0), threads);
            let (mut tj, mut uj) = (Vec::new(), Vec::new());
            let (mut cj, mut qj, mut hj, mut pj) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
            let mut m = BitMatrix::default();
            for &(o, l) in &chunks {
                prg_rows(&prg_keys(&seeds), w, threads, Span::new(o, l), &mut m);
                tj.push(m.clone());
                xor_prg_choice(&sub(&t, o, l), &prg_keys(&blocks(128, seed + 3)), &r, threads, Span::new(o, l), &mut m);
                uj.push(m.clone());
                let mut c = vec![Block::ZERO; l];
                transpose_columns(&sub(&t, o, l), threads, Span::new(o, l), &mut c);
                cj.extend_from_slice(&c);
                masked_columns(&prg_keys(&seeds), &sub(&u, o, l), &s, threads, Span::new(o, l), &mut c);
                qj.extend_from_slice(&c);
                let mut hh = vec![Block::ZERO; l];
                hash_blocks(&q[o..o + l], w, &HashTweaks::new(Block(seed), false, 0), threads, Span::new(o, l), &mut hh);
                hj.extend(hh);
                let mut pp = vec![[Block::ZERO; 2]; l];
                hash_block_pairs(&q[o..o + l], Block(seed), w, &HashTweaks::new(Block(3), false, 0), threads, Span::new(o, l), &mut pp);
                pj.extend(pp);
            }
            prop_assert_eq!(join(&tj, 128), t.clone());
            prop_assert_eq!(join(&uj, 128), u);
            prop_assert_eq!(&cj, &cols);
            prop_assert_eq!(cols, naive_columns(&t, w));
            prop_assert_eq!(qj, q);
            prop_assert_eq!(hj, h);
            prop_assert_eq!(pj, hp);
        }
    }
}
