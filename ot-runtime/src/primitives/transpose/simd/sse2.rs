//! The SSE2 transpose backend: tiles of 16 rows, `movemask` per bit.

use super::{drive, Raw};
use core::arch::x86_64::*;

/// Transposes source rows `[0, row_end)` of `r` in tiles of 16 rows.
///
/// # Safety
/// The CPU has SSE2; `r` and `row_end` are as [`drive`] requires (checked
/// by [`super::run`]).
#[target_feature(enable = "sse2")]
pub(super) unsafe fn transpose(r: &Raw, row_end: usize) {
    drive(r, row_end, 16, |t| {
        let mut a = [_mm_setzero_si128(); 16];
        for (i, v) in a.iter_mut().enumerate() {
            *v = _mm_loadu_si128(t.src.add((t.r0 + i) * t.ss + t.o).cast());
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
        emit!(t, e, u16, bits);
    });
}
