//! The AVX-512F/BW transpose backend: tiles of 64 rows, `vptestmb` per bit.

use super::{drive, Raw};
use core::arch::x86_64::*;

/// Transposes source rows `[0, row_end)` of `r` in tiles of 64 rows.
///
/// # Safety
/// The CPU has AVX-512F and AVX-512BW; `r` and `row_end` are as [`drive`] requires (checked
/// by [`super::run`]).
#[target_feature(enable = "avx512f,avx512bw")]
pub(super) unsafe fn transpose(r: &Raw, row_end: usize) {
    let mut sel = [_mm512_setzero_si512(); 8];
    for (b, v) in sel.iter_mut().enumerate() {
        *v = _mm512_set1_epi8(1 << b);
    }
    drive(r, row_end, 64, |t| {
        let mut a = [_mm512_setzero_si512(); 16];
        for (i, v) in a.iter_mut().enumerate() {
            let ld = |l: usize| _mm_loadu_si128(t.src.add((t.r0 + 16 * l + i) * t.ss + t.o).cast());
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
        emit!(t, e, u64, bits);
    });
}
