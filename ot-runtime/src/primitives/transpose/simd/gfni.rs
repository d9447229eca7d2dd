//! Whole 128 x 128 tiles transposed in registers (AVX-512F/BW, VBMI and
//! GFNI): the fast path of the AVX-512 backend for jobs whose geometry
//! allows it.

use super::super::Job;
use core::arch::x86_64::*;

/// Transposes the first `ntiles` whole 128-column tiles of a validated job
/// whose row count is a multiple of 128, with [`gfni_tiles`].
///
/// # Panics
/// If the geometry does not allow it (the caller checks first) or the CPU
/// lacks the features ([`gfni_supported`]).
pub(in crate::primitives::transpose) fn run_tiles(job: &mut Job<'_>, ntiles: usize) {
    let cb0 = job.col_begin / 8;
    assert!(
        gfni_supported()
            && job.valid()
            && job.rows.is_multiple_of(128)
            && 128 * ntiles <= job.col_end - job.col_begin
            && cb0 + 16 * ntiles <= job.src_stride
            && job.rows / 8 <= job.dst_stride
    );
    // One contiguous output run (128 source rows, 16-byte destination
    // rows): it may bypass the cache when the caller asked for it.
    let stream = job.stream_dst
        && job.rows == 128
        && job.dst_stride == 16
        && (job.dst.as_ptr() as usize).is_multiple_of(16);
    for r0 in (0..job.rows).step_by(128) {
        // SAFETY: features checked above. Source: rows r0..r0+128 <= rows,
        // bytes cb0 .. cb0 + 16 ntiles <= src_stride, inside `src`
        // (`rows * src_stride` bytes, `Job::valid`). Destination: rows
        // c < 128 ntiles <= ncols, bytes r0/8 .. r0/8 + 16 <= rows/8 <=
        // dst_stride, inside `dst` (`ncols * dst_stride` bytes); `src` and
        // `dst` are distinct borrows. Streaming: `dst` is 16-byte aligned
        // and the run is `2048 ntiles` contiguous bytes (dst_stride 16).
        unsafe {
            let src = job.src.as_ptr().add(r0 * job.src_stride + cb0);
            let dst = job.dst.as_mut_ptr().add(r0 / 8);
            if stream {
                gfni_tiles_streamed(src, job.src_stride, ntiles, dst);
            } else {
                gfni_tiles::<Plain>(
                    src,
                    job.src_stride,
                    ntiles,
                    &mut Plain {
                        dst,
                        ds: job.dst_stride,
                    },
                );
            }
        }
    }
}

/// Whether the in-register 128 x 128 tile kernel ([`gfni_tiles`]) can run:
/// AVX-512F/BW for the registers, VBMI for `vpermt2b`, GFNI for
/// `vgf2p8affineqb`. Detected once and cached.
pub(in crate::primitives::transpose) fn gfni_supported() -> bool {
    use crate::primitives::backend::{has, Feature};
    has(&[
        Feature::Avx512f,
        Feature::Avx512bw,
        Feature::Avx512vbmi,
        Feature::Gfni,
    ])
}

/// Labels of the 14 "bit address" bits of a 128 x 128 tile, for deriving
/// the byte-permutation tables of [`gfni_tile`]: `C0 + i` is bit `i` of the
/// column, `R0 + i` bit `i` of the row. A source tile is 128 rows of 16
/// bytes (byte `(r, col / 8)`, bit `col % 8`), the destination 128 rows of
/// 16 bytes (byte `(col, r / 8)`, bit `r % 8`).
const C0: u8 = 0;
/// First row-bit label (see [`C0`]).
const R0: u8 = 7;

/// What the 6 bits of a byte position `p` in a zmm register mean: bit `i`
/// of `p` is the value of label `.0[i]`, complemented when `.1[i]` is set.
type Layout = ([u8; 6], [bool; 6]);

/// The `vpermb` index that rearranges a register from layout `from` to
/// layout `to` (both over the same six labels): byte `p` of the result is
/// the source byte whose labels have the values `p` has under `to`.
const fn perm_table(from: Layout, to: Layout) -> [u8; 64] {
    let mut out = [0u8; 64];
    let mut p = 0;
    while p < 64 {
        let mut q = 0u8;
        let mut i = 0;
        while i < 6 {
            // Where label `from.0[i]` sits in `to`.
            let mut j = 0;
            while to.0[j] != from.0[i] {
                j += 1;
            }
            let v = ((p >> j) & 1 == 1) ^ to.1[j] ^ from.1[i];
            q |= (v as u8) << i;
            i += 1;
        }
        out[p] = q;
        p += 1;
    }
    out
}

/// Layout of a loaded register (four source rows): bytes `c3..c6` of a
/// row, rows `r0, r1` (register index = `r2..r6`; bit in byte = `c0..c2`).
const LOAD: Layout = ([C0 + 3, C0 + 4, C0 + 5, C0 + 6, R0, R0 + 1], [false; 6]);
/// Before the first exchange: row bits `r0, r1` complemented in the
/// byte-in-qword bits (`vgf2p8affineqb` reads matrix rows in reverse
/// order), `c6` where `r2` will come in.
const PRE: Layout = (
    [R0, R0 + 1, C0 + 6, C0 + 3, C0 + 4, C0 + 5],
    [true, true, false, false, false, false],
);
/// Before the final permutation: `c0, c1` (byte in qword after the 8 x 8
/// bit transposes), `r3..r6` brought in by the exchanges.
const POST: Layout = ([C0, C0 + 1, R0 + 3, R0 + 4, R0 + 5, R0 + 6], [false; 6]);
/// Stored register: four destination rows `c0, c1` of 16 bytes `r3..r6`.
const STORE: Layout = ([R0 + 3, R0 + 4, R0 + 5, R0 + 6, C0, C0 + 1], [false; 6]);

/// `vpermb` index from [`LOAD`] to [`PRE`].
static PERM_PRE: [u8; 64] = perm_table(LOAD, PRE);
/// `vpermb` index from [`POST`] to [`STORE`].
static PERM_STORE: [u8; 64] = perm_table(POST, STORE);

/// 64-byte aligned staging area: [`STAGE_TILES`] tiles, each 128 rows x 16
/// bytes contiguous.
#[repr(C, align(64))]
struct StageBuf([u8; 2048 * STAGE_TILES]);

/// Tiles per staged group: 8 tiles = 16 KiB, half of L1.
const STAGE_TILES: usize = 8;

/// Where [`gfni_tile`] puts its 32 result registers. Register `k` of tile
/// `t` (`k < 32`, in increasing order) holds destination rows
/// `128 t + 4 k .. 128 t + 4 k + 4` of the run, 16 bytes each.
trait TileSink {
    /// Stores register `k` of tile `t`.
    ///
    /// # Safety
    /// The sink's destination bytes for these rows must be writable; the
    /// caller has the tile kernel's target features.
    unsafe fn put(&mut self, t: usize, k: usize, v: __m512i);
}

/// Plain stores: destination row `c` at `dst + c * ds`.
struct Plain {
    dst: *mut u8,
    ds: usize,
}

impl TileSink for Plain {
    #[inline(always)]
    unsafe fn put(&mut self, t: usize, k: usize, v: __m512i) {
        let row = 128 * t + 4 * k;
        let dst = self.dst;
        let ds = self.ds;
        if ds == 16 {
            // SAFETY (whole block): the caller's contract covers rows
            // `row .. row + 4` at `dst + row * ds`, 16 bytes each.
            // A masked store with an opaque all-ones mask: LLVM turns
            // 16 plain contiguous stores into a spill of the registers and
            // a `memcpy` call.
            let all: __mmask8 = core::hint::black_box(0xff);
            _mm512_mask_storeu_epi64(dst.add(row * 16).cast(), all, v);
        } else {
            let d = |i: usize| dst.add((row + i) * ds).cast::<__m128i>();
            _mm_storeu_si128(d(0), _mm512_castsi512_si128(v));
            _mm_storeu_si128(d(1), _mm512_extracti32x4_epi32::<1>(v));
            _mm_storeu_si128(d(2), _mm512_extracti32x4_epi32::<2>(v));
            _mm_storeu_si128(d(3), _mm512_extracti32x4_epi32::<3>(v));
        }
    }
}

/// Non-temporal stores of one contiguous run of tiles starting at `dst`,
/// which is `64 - 8 SHIFT` bytes past a cache-line boundary (`SHIFT` in
/// 1..=8; 8: aligned). Every full cache line of the run is written once
/// with a streaming store, assembled from two consecutive registers
/// (`valignq`); only the partial lines at the two ends of the run get
/// plain (masked) stores, so no line mixes both kinds except at run ends.
struct Streamed<const SHIFT: i32> {
    dst: *mut u8,
    prev: __m512i,
}

impl<const SHIFT: i32> TileSink for Streamed<SHIFT> {
    #[inline(always)]
    unsafe fn put(&mut self, t: usize, k: usize, v: __m512i) {
        // Register index in the run; its bytes are dst[64 i .. 64 i + 64].
        let i = 32 * t + k;
        if SHIFT == 8 {
            _mm512_stream_si512(self.dst.add(64 * i).cast(), v);
        } else {
            let head = 8 * SHIFT as usize;
            if i == 0 {
                // Bytes 0..head end at the first line boundary.
                _mm512_mask_storeu_epi64(self.dst.cast(), (1u8 << SHIFT) - 1, v);
            } else {
                // Line = previous register's last 64 - head bytes, then
                // this register's first `head` bytes.
                let line = _mm512_alignr_epi64::<SHIFT>(v, self.prev);
                _mm512_stream_si512(self.dst.add(head + 64 * (i - 1)).cast(), line);
            }
            self.prev = v;
        }
    }
}

impl<const SHIFT: i32> Streamed<SHIFT> {
    /// Writes the bytes after the last full line (the tail of the run's
    /// last register) and orders the streaming stores before anything
    /// that follows (`sfence`), so the run can be handed to another thread.
    ///
    /// # Safety
    /// `put` was called for every register of `ntiles` tiles.
    #[inline(always)]
    unsafe fn finish(self, ntiles: usize) {
        if SHIFT != 8 && ntiles > 0 {
            let last = 32 * ntiles - 1;
            _mm512_mask_storeu_epi64(
                self.dst.add(64 * last).cast(),
                !((1u8 << SHIFT) - 1),
                self.prev,
            );
        }
        _mm_sfence();
    }
}

/// [`gfni_tiles`] for a contiguous destination run (`ds == 16`) written
/// with non-temporal stores ([`Streamed`]): for outputs far larger than
/// the caches, this saves reading every destination line before it is
/// overwritten.
///
/// # Safety
/// As [`gfni_tiles`] with `ds == 16`, and `dst` 16-byte aligned.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
unsafe fn gfni_tiles_streamed(src: *const u8, ss: usize, ntiles: usize, dst: *mut u8) {
    macro_rules! run {
        ($shift:literal) => {{
            let mut sink = Streamed::<$shift> {
                dst,
                prev: _mm512_setzero_si512(),
            };
            gfni_tiles(src, ss, ntiles, &mut sink);
            sink.finish(ntiles);
        }};
    }
    match dst as usize % 64 {
        0 => run!(8),
        16 => run!(6),
        32 => run!(4),
        _ => run!(2),
    }
}

/// Transposes `ntiles` consecutive 128 x 128 tiles: tile `t` is 16 bytes at
/// `src + 16 t + j * ss` for rows `j < 128`; column `i` of tile `t` goes to
/// `sink` as destination row `128 t + i`.
///
/// Unless the source rows are already contiguous (`ss == 16`, one 2 KiB
/// tile after another), groups of [`STAGE_TILES`] tiles are first copied
/// into an L1 buffer, tile by tile, so that the kernel loads four rows per
/// 64-byte load (no lane inserts) and each source cache line is read once
/// even when rows are a power of two apart (same cache set). Four tiles at
/// a time are staged with 64-byte loads and stores (a 4 x 4 transpose of
/// 128-bit lanes per four rows), the rest with 16-byte copies.
///
/// # Safety
/// [`gfni_supported`] must be true; every source byte
/// `src + j * ss + b` (`j < 128`, `b < 16 ntiles`) must be readable and
/// every destination byte of the sink's rows `c < 128 ntiles` writable,
/// not overlapping the source.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
unsafe fn gfni_tiles<S: TileSink>(src: *const u8, ss: usize, ntiles: usize, sink: &mut S) {
    if ss == 16 {
        for t in 0..ntiles {
            gfni_tile(src.add(2048 * t), t, sink);
        }
        return;
    }
    let mut buf = core::mem::MaybeUninit::<StageBuf>::uninit();
    let b = buf.as_mut_ptr().cast::<u8>();
    let mut t0 = 0;
    while t0 < ntiles {
        let n = STAGE_TILES.min(ntiles - t0);
        // Whole groups of four tiles: four rows of 64 bytes (four tiles
        // each) per step, 4 x 4 transposed by 128-bit lanes, so every
        // staged register holds four rows of one tile (one 64-byte store
        // instead of four 16-byte copies).
        let quads = n / 4;
        for q in 0..quads {
            for j in (0..128).step_by(4) {
                let row = |k: usize| src.add((j + k) * ss + 16 * (t0 + 4 * q)).cast::<__m512i>();
                let (r0, r1) = (_mm512_loadu_si512(row(0)), _mm512_loadu_si512(row(1)));
                let (r2, r3) = (_mm512_loadu_si512(row(2)), _mm512_loadu_si512(row(3)));
                let a = _mm512_shuffle_i64x2::<0x44>(r0, r1);
                let c = _mm512_shuffle_i64x2::<0x44>(r2, r3);
                let bb = _mm512_shuffle_i64x2::<0xee>(r0, r1);
                let d = _mm512_shuffle_i64x2::<0xee>(r2, r3);
                let at = |t: usize| b.add(2048 * (4 * q + t) + 16 * j).cast::<__m512i>();
                _mm512_storeu_si512(at(0), _mm512_shuffle_i64x2::<0x88>(a, c));
                _mm512_storeu_si512(at(1), _mm512_shuffle_i64x2::<0xdd>(a, c));
                _mm512_storeu_si512(at(2), _mm512_shuffle_i64x2::<0x88>(bb, d));
                _mm512_storeu_si512(at(3), _mm512_shuffle_i64x2::<0xdd>(bb, d));
            }
        }
        for j in 0..128 {
            let row = src.add(j * ss + 16 * t0);
            for t in 4 * quads..n {
                core::ptr::copy_nonoverlapping(row.add(16 * t), b.add(2048 * t + 16 * j), 16);
            }
        }
        for t in 0..n {
            // Every byte of staged tile t was written just above.
            gfni_tile(b.add(2048 * t), t0 + t, sink);
        }
        t0 += n;
    }
}

/// One 128 x 128 tile given as 128 contiguous rows of 16 bytes, in zmm
/// registers: the tile is a permutation of its 14 address bits (see
/// [`C0`]), done as five exchanges of a register-index bit with a
/// byte-position bit, one 8 x 8 bit transpose per qword and two in-register
/// byte permutations, with no two-source byte permute (`vpermt2b` costs two
/// cycles, every step here one or half of one):
///
/// 1. `vpermb` to [`PRE`]; exchange `r2` (register bit 0) with `c6`
///    (dword in qword: `vpsllq`/`vpsrlq` + masked blend);
/// 2. `vgf2p8affineqb` with the unit-vector operand: each qword, as an
///    8 x 8 bit matrix, is transposed (`c0..c2` become the byte in qword,
///    `r0..r2` the bit in byte);
/// 3. exchange `r3` with `c2` (shift + blend), `r4` with `c3`
///    (`vpunpck{l,h}qdq`), `r5` with `c4` (`vpermt2q`), `r6` with `c5`
///    (`vshufi64x2`);
/// 4. `vpermb` to [`STORE`]: four whole destination rows per register.
///
/// Steps 1-3 up to `r5` keep `r6` fixed, so they run on 16 registers at a
/// time (rows with `r6 = 0`, then `r6 = 1`) into `mid`; the `r6` exchange
/// and step 4 run on the registers with `c6 = 0`, then `c6 = 1`, which
/// hold destination rows `0..64` and `64..128`: registers reach the sink
/// in increasing order.
///
/// # Safety
/// [`gfni_supported`]; `src` readable for 2048 bytes; the sink's rows
/// `128 t .. 128 t + 128` writable.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
#[inline]
unsafe fn gfni_tile<S: TileSink>(src: *const u8, t: usize, sink: &mut S) {
    let lo = gfni_tile_half(src);
    let hi = gfni_tile_half(src.add(1024));
    // Index bits are now (c6, c2, c3, c4, r6); bytes are POST but with c5
    // where r6 goes.
    let store = _mm512_loadu_si512(PERM_STORE.as_ptr().cast());
    for h in 0..2 {
        // Registers with c6 = h: destination rows 64 h .. 64 h + 64.
        let mut y = [_mm512_setzero_si512(); 16];
        for i in 0..8 {
            let (a, b) = (lo[2 * i + h], hi[2 * i + h]);
            // r6 <-> c5 (index bit 4): 256-bit halves.
            y[i] = _mm512_permutexvar_epi8(store, _mm512_shuffle_i64x2::<0x44>(a, b));
            y[i + 8] = _mm512_permutexvar_epi8(store, _mm512_shuffle_i64x2::<0xee>(a, b));
        }
        // y[j] has index bits (c2, c3, c4, c5) = j: destination rows
        // 64 h + 4 j .. + 4.
        for (j, v) in y.iter().enumerate() {
            sink.put(t, 16 * h + j, *v);
        }
    }
}

/// Steps 1-3 of [`gfni_tile`] up to the `r5` exchange for the 16 registers
/// (64 source rows) at `src`: register `i` of the result has index bits
/// `(c6, c2, c3, c4)` = `i`.
///
/// # Safety
/// [`gfni_supported`]; `src` readable for 1024 bytes.
#[target_feature(enable = "avx512f,avx512bw,avx512vbmi,gfni")]
#[inline]
unsafe fn gfni_tile_half(src: *const u8) -> [__m512i; 16] {
    // Byte i of every qword = 1 << i: the affine step then yields the
    // transposed 8 x 8 bit matrix of the data operand.
    let unit = _mm512_set1_epi64(0x8040_2010_0804_0201u64 as i64);
    let pre = _mm512_loadu_si512(PERM_PRE.as_ptr().cast());
    let lanes_lo = _mm512_setr_epi64(0, 1, 8, 9, 4, 5, 12, 13);
    let lanes_hi = _mm512_setr_epi64(2, 3, 10, 11, 6, 7, 14, 15);
    // Upper dword of every qword.
    const HI32: __mmask16 = 0xaaaa;
    // Register i: rows 4 i .. 4 i + 4; index bits r2..r5.
    let mut x = [_mm512_setzero_si512(); 16];
    for i in 0..8 {
        // r2 <-> c6, r2 complemented in the byte position (see PRE).
        let a = _mm512_permutexvar_epi8(pre, _mm512_loadu_si512(src.add(128 * i).cast()));
        let b = _mm512_permutexvar_epi8(pre, _mm512_loadu_si512(src.add(128 * i + 64).cast()));
        let l = _mm512_mask_blend_epi32(HI32, b, _mm512_slli_epi64::<32>(a));
        let h = _mm512_mask_blend_epi32(HI32, _mm512_srli_epi64::<32>(b), a);
        x[2 * i] = _mm512_gf2p8affine_epi64_epi8::<0>(unit, l);
        x[2 * i + 1] = _mm512_gf2p8affine_epi64_epi8::<0>(unit, h);
    }
    // r3 <-> c2 (index bit 1).
    for j in 0..8 {
        let i = (j & 1) | ((j & 6) << 1);
        let (a, b) = (x[i], x[i + 2]);
        x[i] = _mm512_mask_blend_epi32(HI32, a, _mm512_slli_epi64::<32>(b));
        x[i + 2] = _mm512_mask_blend_epi32(HI32, _mm512_srli_epi64::<32>(a), b);
    }
    // r4 <-> c3 (index bit 2): qword in lane.
    for j in 0..8 {
        let i = (j & 3) | ((j & 4) << 1);
        let (a, b) = (x[i], x[i + 4]);
        x[i] = _mm512_unpacklo_epi64(a, b);
        x[i + 4] = _mm512_unpackhi_epi64(a, b);
    }
    // r5 <-> c4 (index bit 3): lane bit 0.
    for i in 0..8 {
        let (a, b) = (x[i], x[i + 8]);
        x[i] = _mm512_permutex2var_epi64(a, lanes_lo, b);
        x[i + 8] = _mm512_permutex2var_epi64(a, lanes_hi, b);
    }
    x
}
