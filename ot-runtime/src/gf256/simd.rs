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
