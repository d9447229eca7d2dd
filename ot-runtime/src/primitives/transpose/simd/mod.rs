//! x86-64 SIMD transpose backends, one file each: [`sse2`], [`avx2`],
//! [`avx512`] (AVX-512F/BW) and [`gfni`] (whole 128 x 128 tiles in
//! registers with AVX-512 VBMI and GFNI); this module holds what the first
//! three share (the tile walker [`drive`] and the byte-transpose network).
//!
//! Each tile is `T` source rows by 16 source bytes (128 columns). The 16
//! rows of every 128-bit lane are byte-transposed with a 4-stage
//! `unpack{lo,hi}_{epi8,epi16,epi32,epi64}` network, so vector `j` holds
//! byte `j` of each row; bit `b` of all those bytes is then gathered into a
//! `T`-bit mask (`movemask` / `vptestmb`), which is the 16/32/64-bit chunk
//! of destination row `8j + b` for source rows `r0..r0+T`.
#![allow(unsafe_code)]

use super::{Backend, Job};

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

/// Processes source rows `[0, row_end)` (`row_end` a multiple of the tile
/// height of `backend`) of a job that passed `Job::valid`.
pub(in crate::primitives::transpose) fn run(backend: Backend, job: &mut Job<'_>, row_end: usize) {
    assert!(
        job.valid()
            && row_end <= job.rows
            && row_end.is_multiple_of(backend.tile_rows())
            && job.src_stride >= 16
    );
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
    // `is_supported()` returned true. Geometry (asserted above): `drive`
    // reads 16 bytes at `row * ss + o` with `row < row_end <= rows` and
    // `o + 16 <= ss` (directly, or from its staging copy of such bytes) and
    // writes `T/8` bytes at `c * ds + r0/8` with `c < ncols` and
    // `r0 + T <= rows`, so `r0/8 + T/8 <= ceil(rows/8) <= ds`; both stay
    // inside `src` (`rows * ss` bytes) and `dst` (`ncols * ds` bytes).
    unsafe {
        match backend {
            Backend::Sse2 => sse2::transpose(&raw, row_end),
            Backend::Avx2 => avx2::transpose(&raw, row_end),
            Backend::Avx512 => avx512::transpose(&raw, row_end),
            Backend::Scalar => unreachable!("scalar is not a SIMD backend"),
        }
    }
}

/// Source rows per staged block (a multiple of every tile height).
const RG: usize = 256;
/// Staging budget in bytes (`rows x bytes` per block), about half of L1.
const STAGE: usize = 32 * 1024;

/// One tile: source rows `r0..r0+T` at byte offset `o` of a block with row
/// stride `ss`; loaded bytes `[jlo, jhi)` are emitted; destination row of
/// (byte `jlo`, bit 0) starts at `dst`, rows `ds` bytes apart; only the first
/// `limit` destination rows exist (`full`: all 128 exist).
struct Tile {
    src: *const u8,
    ss: usize,
    o: usize,
    r0: usize,
    jlo: usize,
    jhi: usize,
    full: bool,
    dst: *mut u8,
    ds: usize,
    limit: usize,
}

/// Walks the job in blocks of `RG` rows x `cg` bytes. Long source rows are
/// first copied into a contiguous buffer and long destination rows are
/// assembled in one: rows that are a power-of-two number of bytes apart
/// all map to the same cache set, and walking 64-128 of them at once would
/// thrash L1/L2 (this costs 3x on 128 x 2^20).
///
/// # Safety
/// `r` must describe a validated job and `row_end` must be a multiple of `t`
/// not above the row count; `tile` must only access memory as a `Tile`
/// describes (`t` rows of 16 bytes at `o`, `t/8`-byte stores at
/// `dst + k*ds` for `k < limit`).
#[inline(always)]
unsafe fn drive(r: &Raw, row_end: usize, t: usize, mut tile: impl FnMut(&Tile)) {
    // Block shape: long source rows are staged `cg` bytes at a time (at
    // least one cache line, more when the matrix is short, e.g. 128 x m);
    // short source rows (m x 128) are not staged and instead use tall
    // blocks so each destination row is written in long runs.
    let (rg_len, cg) = if r.ss > 64 {
        let rg_len = row_end.clamp(64, RG);
        (rg_len, (STAGE / rg_len).clamp(64, 512) / 16 * 16)
    } else {
        ((STAGE / r.ss).clamp(64, 4096) / 64 * 64, 64)
    };
    let stage_in = r.ss > cg;
    let stage_out = r.ds > 64;
    let mut ibuf = if stage_in {
        vec![0u8; rg_len * cg]
    } else {
        Vec::new()
    };
    let mut obuf = if stage_out {
        vec![0u8; 8 * cg.max(r.ss) * (rg_len / 8)]
    } else {
        Vec::new()
    };
    let mut gs = r.cb0;
    while gs < r.cb1 {
        let ge = if stage_in {
            (gs + cg).min(r.cb1)
        } else {
            r.cb1
        };
        let gcol = 8 * (gs - r.cb0);
        let glimit = r.ncols - gcol;
        let mut rg = 0;
        while rg < row_end {
            let rge = (rg + rg_len).min(row_end);
            let (sbase, sstride) = if stage_in {
                let w = (gs + cg).min(r.ss) - gs;
                for i in rg..rge {
                    core::ptr::copy_nonoverlapping(
                        r.src.add(i * r.ss + gs),
                        ibuf.as_mut_ptr().add((i - rg) * cg),
                        w,
                    );
                }
                (ibuf.as_ptr(), cg)
            } else {
                (r.src.add(rg * r.ss), r.ss)
            };
            let (obase, ostride, off0) = if stage_out {
                (obuf.as_mut_ptr(), rg_len / 8, 0)
            } else {
                (r.dst.add(gcol * r.ds), r.ds, rg / 8)
            };
            for r0 in (0..rge - rg).step_by(t) {
                let mut cb = gs;
                while cb < ge {
                    let (o, jlo, jhi) = if stage_in {
                        (cb - gs, 0, (ge - cb).min(16))
                    } else {
                        let o = cb.min(r.ss - 16);
                        (o, cb - o, (cb + 16).min(ge) - o)
                    };
                    let cstart = 8 * (cb - gs);
                    tile(&Tile {
                        src: sbase,
                        ss: sstride,
                        o,
                        r0,
                        jlo,
                        jhi,
                        full: jhi - jlo == 16 && cstart + 128 <= glimit,
                        dst: obase.add(cstart * ostride + off0 + r0 / 8),
                        ds: ostride,
                        limit: glimit - cstart,
                    });
                    cb += 16;
                }
            }
            if stage_out {
                let n = (rge - rg) / 8;
                for c in 0..(8 * (ge - gs)).min(glimit) {
                    core::ptr::copy_nonoverlapping(
                        obuf.as_ptr().add(c * (rg_len / 8)),
                        r.dst.add((gcol + c) * r.ds + rg / 8),
                        n,
                    );
                }
            }
            rg = rge;
        }
        gs = ge;
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

/// Emits the 8 destination rows of every loaded byte `jj` of a tile;
/// `$bits(v, b)` returns the mask of bit `b`.
macro_rules! emit {
    ($t:expr, $e:expr, $ty:ty, $bits:expr) => {{
        let t: &$crate::primitives::transpose::simd::Tile = $t;
        let e = $e;
        if t.full {
            for jj in 0..16 {
                for b in 0..8 {
                    let m: $ty = $bits(e[jj], b);
                    core::ptr::write_unaligned(
                        t.dst.add((8 * jj + b) * t.ds).cast::<$ty>(),
                        m.to_le(),
                    );
                }
            }
        } else {
            for jj in t.jlo..t.jhi {
                for b in 0..8 {
                    let c = 8 * (jj - t.jlo) + b;
                    if c < t.limit {
                        let m: $ty = $bits(e[jj], b);
                        core::ptr::write_unaligned(t.dst.add(c * t.ds).cast::<$ty>(), m.to_le());
                    }
                }
            }
        }
    }};
}

mod avx2;
mod avx512;
mod gfni;
mod sse2;

pub(in crate::primitives::transpose) use gfni::{gfni_supported, run_tiles};
