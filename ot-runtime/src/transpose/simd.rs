//! x86-64 SIMD transpose backends (SSE2, AVX2, AVX-512F/BW).
//!
//! Each tile is `T` source rows by 16 source bytes (128 columns). The 16
//! rows of every 128-bit lane are byte-transposed with a 4-stage
//! `unpack{lo,hi}_{epi8,epi16,epi32,epi64}` network, so vector `j` holds
//! byte `j` of each row; bit `b` of all those bytes is then gathered into a
//! `T`-bit mask (`movemask` / `vptestmb`), which is the 16/32/64-bit chunk
//! of destination row `8j + b` for source rows `r0..r0+T`.
#![allow(unsafe_code)]

use super::{Backend, Job};
use core::arch::x86_64::*;

/// Raw view of a validated [`Job`].
struct Raw {
    src: *const u8,
    ss: usize,
    dst: *mut u8,
    ds: usize,
    cb0: usize,
    cb1: usize,
    ncols: usize,
}

/// Column tiles of the job: `(o, jlo, jhi, full)` where `o` is the byte
/// offset loaded (16 bytes, always inside the row), `[jlo, jhi)` the bytes of
/// the loaded vector to emit, `full` whether all 128 columns are emitted.
fn col_tiles(r: &Raw) -> impl Iterator<Item = (usize, usize, usize, bool)> + '_ {
    (r.cb0..r.cb1).step_by(16).map(move |cb| {
        let o = cb.min(r.ss - 16);
        let jlo = cb - o;
        let jhi = (cb + 16).min(r.cb1) - o;
        let full = o == cb && 8 * (cb - r.cb0 + 16) <= r.ncols;
        (o, jlo, jhi, full)
    })
}

/// Processes source rows `[0, row_end)` (`row_end` a multiple of the tile
/// height of `backend`) of a job that passed `Job::valid`.
pub(super) fn run(backend: Backend, job: &mut Job<'_>, row_end: usize) {
    assert!(job.valid() && row_end <= job.rows && job.src_stride >= 16);
    let raw = Raw {
        src: job.src.as_ptr(),
        ss: job.src_stride,
        dst: job.dst.as_mut_ptr(),
        ds: job.dst_stride,
        cb0: job.col_begin / 8,
        cb1: job.col_end.div_ceil(8),
        ncols: job.col_end - job.col_begin,
    };
    // SAFETY: the caller (`run_job`) only passes a backend whose
    // `is_supported()` returned true. Geometry (asserted above): every load
    // reads 16 bytes at `row * ss + o` with `row < rows` and
    // `o + 16 <= ss`, inside `src` (`rows * ss` bytes); every store writes
    // `T/8` bytes at `c * ds + r0/8` with `c < ncols` and `r0 + T <= rows`,
    // so `r0/8 + T/8 <= ceil(rows/8) <= ds`, inside `dst` (`ncols * ds` bytes).
    unsafe {
        match backend {
            Backend::Sse2 => sse2(&raw, row_end),
            Backend::Avx2 => avx2(&raw, row_end),
            Backend::Avx512 => avx512(&raw, row_end),
            Backend::Scalar => unreachable!("scalar is not a SIMD backend"),
        }
    }
}

/// 16 x 16 byte transpose within each 128-bit lane; `$v` is `[vec; 16]`
/// (vector `i` = row `i`), returns `[vec; 16]` (vector `j` = byte `j`).
macro_rules! byte_transpose16 {
    ($v:expr, $lo8:ident, $hi8:ident, $lo16:ident, $hi16:ident, $lo32:ident, $hi32:ident, $lo64:ident, $hi64:ident) => {{
        let a = $v;
        let mut b = a;
        for p in 0..8 {
            b[2 * p] = $lo8(a[2 * p], a[2 * p + 1]);
            b[2 * p + 1] = $hi8(a[2 * p], a[2 * p + 1]);
        }
        let mut c = b;
        for q in 0..4 {
            for h in 0..2 {
                c[4 * q + 2 * h] = $lo16(b[4 * q + h], b[4 * q + 2 + h]);
                c[4 * q + 2 * h + 1] = $hi16(b[4 * q + h], b[4 * q + 2 + h]);
            }
        }
        let mut d = c;
        for g in 0..2 {
            for cg in 0..4 {
                d[8 * g + 2 * cg] = $lo32(c[8 * g + cg], c[8 * g + 4 + cg]);
                d[8 * g + 2 * cg + 1] = $hi32(c[8 * g + cg], c[8 * g + 4 + cg]);
            }
        }
        let mut e = d;
        for cg in 0..8 {
            e[2 * cg] = $lo64(d[cg], d[8 + cg]);
            e[2 * cg + 1] = $hi64(d[cg], d[8 + cg]);
        }
        e
    }};
}

/// Emits the 8 destination rows of every byte `jj` of a transposed tile.
/// `$bits(v, b)` returns the mask of bit `b`.
macro_rules! emit {
    ($r:expr, $e:expr, $o:expr, $jlo:expr, $jhi:expr, $full:expr, $r0:expr, $ty:ty, $bits:expr) => {{
        let r = $r;
        let e = $e;
        let off = $r0 / 8;
        if $full {
            for jj in 0..16 {
                let base = 8 * ($o + jj - r.cb0);
                for b in 0..8 {
                    let m: $ty = $bits(e[jj], b);
                    core::ptr::write_unaligned(r.dst.add((base + b) * r.ds + off).cast::<$ty>(), m.to_le());
                }
            }
        } else {
            for jj in $jlo..$jhi {
                let base = 8 * ($o + jj - r.cb0);
                for b in 0..8 {
                    let c = base + b;
                    if c < r.ncols {
                        let m: $ty = $bits(e[jj], b);
                        core::ptr::write_unaligned(r.dst.add(c * r.ds + off).cast::<$ty>(), m.to_le());
                    }
                }
            }
        }
    }};
}

#[target_feature(enable = "sse2")]
unsafe fn sse2(r: &Raw, row_end: usize) {
    for (o, jlo, jhi, full) in col_tiles(r) {
        for r0 in (0..row_end).step_by(16) {
            let mut a = [_mm_setzero_si128(); 16];
            for (i, v) in a.iter_mut().enumerate() {
                *v = _mm_loadu_si128(r.src.add((r0 + i) * r.ss + o).cast());
            }
            let e = byte_transpose16!(
                a,
                _mm_unpacklo_epi8,
                _mm_unpackhi_epi8,
                _mm_unpacklo_epi16,
                _mm_unpackhi_epi16,
                _mm_unpacklo_epi32,
                _mm_unpackhi_epi32,
                _mm_unpacklo_epi64,
                _mm_unpackhi_epi64
            );
            // Shift bit b of every byte to the sign bit, then movemask.
            let bits = |v: __m128i, b: usize| -> u16 {
                let s = _mm_sll_epi16(v, _mm_cvtsi32_si128(7 - b as i32));
                _mm_movemask_epi8(s) as u16
            };
            emit!(r, e, o, jlo, jhi, full, r0, u16, bits);
        }
    }
}

#[target_feature(enable = "avx2")]
unsafe fn avx2(r: &Raw, row_end: usize) {
    for (o, jlo, jhi, full) in col_tiles(r) {
        for r0 in (0..row_end).step_by(32) {
            let mut a = [_mm256_setzero_si256(); 16];
            for (i, v) in a.iter_mut().enumerate() {
                let lo = _mm_loadu_si128(r.src.add((r0 + i) * r.ss + o).cast());
                let hi = _mm_loadu_si128(r.src.add((r0 + 16 + i) * r.ss + o).cast());
                *v = _mm256_inserti128_si256::<1>(_mm256_castsi128_si256(lo), hi);
            }
            let e = byte_transpose16!(
                a,
                _mm256_unpacklo_epi8,
                _mm256_unpackhi_epi8,
                _mm256_unpacklo_epi16,
                _mm256_unpackhi_epi16,
                _mm256_unpacklo_epi32,
                _mm256_unpackhi_epi32,
                _mm256_unpacklo_epi64,
                _mm256_unpackhi_epi64
            );
            let bits = |v: __m256i, b: usize| -> u32 {
                let s = _mm256_sll_epi16(v, _mm_cvtsi32_si128(7 - b as i32));
                _mm256_movemask_epi8(s) as u32
            };
            emit!(r, e, o, jlo, jhi, full, r0, u32, bits);
        }
    }
}

#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn avx512(r: &Raw, row_end: usize) {
    let sel: [__m512i; 8] = core::array::from_fn(|b| _mm512_set1_epi8(1 << b));
    for (o, jlo, jhi, full) in col_tiles(r) {
        for r0 in (0..row_end).step_by(64) {
            let mut a = [_mm512_setzero_si512(); 16];
            for (i, v) in a.iter_mut().enumerate() {
                let ld = |l: usize| _mm_loadu_si128(r.src.add((r0 + 16 * l + i) * r.ss + o).cast());
                let mut z = _mm512_castsi128_si512(ld(0));
                z = _mm512_inserti32x4::<1>(z, ld(1));
                z = _mm512_inserti32x4::<2>(z, ld(2));
                z = _mm512_inserti32x4::<3>(z, ld(3));
                *v = z;
            }
            let e = byte_transpose16!(
                a,
                _mm512_unpacklo_epi8,
                _mm512_unpackhi_epi8,
                _mm512_unpacklo_epi16,
                _mm512_unpackhi_epi16,
                _mm512_unpacklo_epi32,
                _mm512_unpackhi_epi32,
                _mm512_unpacklo_epi64,
                _mm512_unpackhi_epi64
            );
            let bits = |v: __m512i, b: usize| -> u64 { _mm512_test_epi8_mask(v, sel[b]) };
            emit!(r, e, o, jlo, jhi, full, r0, u64, bits);
        }
    }
}
