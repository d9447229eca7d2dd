//! GFNI backend: `vgf2p8mulb` (`_mm512_gf2p8mul_epi8`) multiplies 64 pairs
//! of bytes modulo 0x11B, the AES polynomial; the tail of a slice is one
//! masked load and store (AVX-512BW), so short codewords stay vectorized.
#![allow(unsafe_code)]

use std::arch::x86_64::*;

/// `dst[t] = a[t] · b[t]` (equal lengths). Callers select this backend
/// only after `Backend::Gfni.is_supported()`.
pub fn mul_slices(dst: &mut [u8], a: &[u8], b: &[u8]) {
    debug_assert!(super::Backend::Gfni.is_supported());
    // SAFETY: `Backend::usable` only dispatches here when GFNI, AVX-512F and
    // AVX-512BW were detected at run time.
    unsafe { mul_slices_gfni(dst, a, b) }
}

/// `dst[t] ^= c · src[t]` (equal lengths), same precondition.
pub fn mul_add(dst: &mut [u8], c: u8, src: &[u8]) {
    debug_assert!(super::Backend::Gfni.is_supported());
    // SAFETY: as in `mul_slices`.
    unsafe { mul_add_gfni(dst, c, src) }
}

/// The byte mask of the first `rest` (< 64) lanes.
#[inline]
fn tail_mask(rest: usize) -> __mmask64 {
    (1u64 << rest) - 1
}

#[target_feature(enable = "gfni,avx512f,avx512bw")]
unsafe fn mul_slices_gfni(dst: &mut [u8], a: &[u8], b: &[u8]) {
    let len = dst.len().min(a.len()).min(b.len());
    let whole = len / 64 * 64;
    for t in (0..whole).step_by(64) {
        // SAFETY: t + 64 <= len <= each slice's length; unaligned loads
        // and stores.
        unsafe {
            let x = _mm512_loadu_si512(a.as_ptr().add(t).cast());
            let y = _mm512_loadu_si512(b.as_ptr().add(t).cast());
            _mm512_storeu_si512(dst.as_mut_ptr().add(t).cast(), _mm512_gf2p8mul_epi8(x, y));
        }
    }
    if whole < len {
        let m = tail_mask(len - whole);
        // SAFETY: masked loads/stores touch only the lanes whole..len,
        // which are inside every slice (masked-off lanes are not accessed).
        unsafe {
            let x = _mm512_maskz_loadu_epi8(m, a.as_ptr().add(whole).cast());
            let y = _mm512_maskz_loadu_epi8(m, b.as_ptr().add(whole).cast());
            _mm512_mask_storeu_epi8(
                dst.as_mut_ptr().add(whole).cast(),
                m,
                _mm512_gf2p8mul_epi8(x, y),
            );
        }
    }
}

#[target_feature(enable = "gfni,avx512f,avx512bw")]
unsafe fn mul_add_gfni(dst: &mut [u8], c: u8, src: &[u8]) {
    let len = dst.len().min(src.len());
    let whole = len / 64 * 64;
    let k = _mm512_set1_epi8(c as i8);
    for t in (0..whole).step_by(64) {
        // SAFETY: t + 64 <= len <= both slices' lengths; unaligned loads
        // and stores.
        unsafe {
            let x = _mm512_loadu_si512(src.as_ptr().add(t).cast());
            let d = _mm512_loadu_si512(dst.as_ptr().add(t).cast());
            let p = _mm512_xor_si512(d, _mm512_gf2p8mul_epi8(x, k));
            _mm512_storeu_si512(dst.as_mut_ptr().add(t).cast(), p);
        }
    }
    if whole < len {
        let m = tail_mask(len - whole);
        // SAFETY: as in `mul_slices_gfni`, only lanes whole..len are touched.
        unsafe {
            let x = _mm512_maskz_loadu_epi8(m, src.as_ptr().add(whole).cast());
            let d = _mm512_maskz_loadu_epi8(m, dst.as_ptr().add(whole).cast());
            let p = _mm512_xor_si512(d, _mm512_gf2p8mul_epi8(x, k));
            _mm512_mask_storeu_epi8(dst.as_mut_ptr().add(whole).cast(), m, p);
        }
    }
}

/// `out[r·cols..][..cols] ^= Σ_i a[r·inner + i] · b[i·cols..][..cols]`
/// (a matrix product accumulated into `out`; shapes checked by the
/// caller), same precondition as [`mul_slices`].
pub fn mat_mul_add(out: &mut [u8], a: &[u8], b: &[u8], inner: usize, cols: usize) {
    debug_assert!(super::Backend::Gfni.is_supported());
    // SAFETY: as in `mul_slices`.
    unsafe { mat_mul_add_gfni(out, a, b, inner, cols) }
}

/// `dst[t] ^= Σ_i a_i[t] · b_i[t]` (every slice at least `dst.len()`
/// long, checked by the caller), same precondition as [`mul_slices`].
pub fn schur_sum_add(dst: &mut [u8], pairs: &[(&[u8], &[u8])]) {
    debug_assert!(super::Backend::Gfni.is_supported());
    // SAFETY: as in `mul_slices`.
    unsafe { schur_sum_add_gfni(dst, pairs) }
}

#[target_feature(enable = "gfni,avx512f,avx512bw")]
unsafe fn mat_mul_add_gfni(out: &mut [u8], a: &[u8], b: &[u8], inner: usize, cols: usize) {
    let rows = out.len() / cols.max(1);
    for r in 0..rows.min(a.len() / inner.max(1)) {
        let coef = &a[r * inner..(r + 1) * inner];
        for c in (0..cols).step_by(64) {
            let m = if cols - c >= 64 {
                !0u64
            } else {
                tail_mask(cols - c)
            };
            let o = r * cols + c;
            // SAFETY: lanes c..min(c + 64, cols) of row r of `out` and of
            // rows 0..inner of `b` are in bounds (the caller checked
            // out.len() >= rows·cols, b.len() >= inner·cols); masked-off
            // lanes are not accessed.
            unsafe {
                let mut acc = _mm512_maskz_loadu_epi8(m, out.as_ptr().add(o).cast());
                for (i, &ci) in coef.iter().enumerate() {
                    let x = _mm512_maskz_loadu_epi8(m, b.as_ptr().add(i * cols + c).cast());
                    let k = _mm512_set1_epi8(ci as i8);
                    acc = _mm512_xor_si512(acc, _mm512_gf2p8mul_epi8(x, k));
                }
                _mm512_mask_storeu_epi8(out.as_mut_ptr().add(o).cast(), m, acc);
            }
        }
    }
}

#[target_feature(enable = "gfni,avx512f,avx512bw")]
unsafe fn schur_sum_add_gfni(dst: &mut [u8], pairs: &[(&[u8], &[u8])]) {
    let len = dst.len();
    for c in (0..len).step_by(64) {
        let m = if len - c >= 64 {
            !0u64
        } else {
            tail_mask(len - c)
        };
        // SAFETY: lanes c..min(c + 64, len) are inside `dst` and inside
        // every `a_i`, `b_i` (the caller checked their lengths); masked-off
        // lanes are not accessed.
        unsafe {
            let mut acc = _mm512_maskz_loadu_epi8(m, dst.as_ptr().add(c).cast());
            for (x, y) in pairs {
                let x = _mm512_maskz_loadu_epi8(m, x.as_ptr().add(c).cast());
                let y = _mm512_maskz_loadu_epi8(m, y.as_ptr().add(c).cast());
                acc = _mm512_xor_si512(acc, _mm512_gf2p8mul_epi8(x, y));
            }
            _mm512_mask_storeu_epi8(dst.as_mut_ptr().add(c).cast(), m, acc);
        }
    }
}

/// Asks the CPU to start loading the cache lines of `b` into its caches
/// (`prefetcht0` on each line; a hint: no effect on any result).
#[inline]
pub fn prefetch(b: &[u8]) {
    let p = b.as_ptr();
    let mut o = 0;
    while o < b.len() {
        // SAFETY: `p + o` lies inside `b`; a prefetch never faults and
        // changes no architectural state.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.add(o).cast()) };
        o += 64;
    }
    if let Some(last) = b.len().checked_sub(1) {
        // SAFETY: as above (the last byte of `b`, whose line the loop may
        // have missed when `b` is not line-aligned).
        unsafe { _mm_prefetch::<_MM_HINT_T0>(p.add(last).cast()) };
    }
}
