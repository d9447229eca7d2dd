//! The AVX2 transpose backend: tiles of 32 rows, `movemask` per bit.

use super::{drive, Raw};
use core::arch::x86_64::*;

/// Transposes source rows `[0, row_end)` of `r` in tiles of 32 rows.
///
/// # Safety
/// The CPU has AVX2; `r` and `row_end` are as [`drive`] requires (checked
/// by [`super::run`]).
#[target_feature(enable = "avx2")]
pub(super) unsafe fn transpose(r: &Raw, row_end: usize) {
    drive(r, row_end, 32, |t| {
        let mut a = [_mm256_setzero_si256(); 16];
        for (i, v) in a.iter_mut().enumerate() {
            let lo = _mm_loadu_si128(t.src.add((t.r0 + i) * t.ss + t.o).cast());
            let hi = _mm_loadu_si128(t.src.add((t.r0 + 16 + i) * t.ss + t.o).cast());
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
        emit!(t, e, u32, bits);
    });
}
