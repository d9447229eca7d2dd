//! The `pclmul` GF(2^128) backend: PCLMULQDQ on 128-bit registers, one
//! product at a time, and the register helpers and reduction shared with
//! [`super::vpclmul512`].
#![allow(unsafe_code)]
use crate::Block;
use core::arch::x86_64::*;

#[inline(always)]
pub(super) fn to_m(b: Block) -> __m128i {
    // SAFETY: 16 bytes of plain data to 16 bytes of plain data.
    unsafe { core::mem::transmute::<u128, __m128i>(b.0) }
}

#[inline(always)]
pub(super) fn from_m(m: __m128i) -> Block {
    // SAFETY: 16 bytes of plain data to 16 bytes of plain data.
    Block(unsafe { core::mem::transmute::<__m128i, u128>(m) })
}

pub(super) fn mul(a: Block, b: Block) -> Block {
    // SAFETY: callers checked `GfBackend::is_supported` (PCLMULQDQ).
    unsafe { mul_impl(a, b) }
}

#[target_feature(enable = "pclmulqdq,sse2")]
unsafe fn mul_impl(a: Block, b: Block) -> Block {
    let (a, b) = (to_m(a), to_m(b));
    let lo = _mm_clmulepi64_si128::<0x00>(a, b);
    let hi = _mm_clmulepi64_si128::<0x11>(a, b);
    let mid = _mm_xor_si128(
        _mm_clmulepi64_si128::<0x01>(a, b),
        _mm_clmulepi64_si128::<0x10>(a, b),
    );
    let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
    let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
    reduce_m(lo, hi)
}

/// PCLMUL reduction of `hi·x^128 + lo` by x^128 + x^7 + x^2 + x + 1:
/// fold the top 64 bits (x^192·h1 ≡ x^64·h1·0x87), then the next 64.
#[inline]
#[target_feature(enable = "pclmulqdq,sse2")]
unsafe fn reduce_m(lo: __m128i, hi: __m128i) -> Block {
    let poly = _mm_set_epi64x(0, 0x87);
    let t = _mm_clmulepi64_si128::<0x01>(hi, poly);
    let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(t));
    let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(t));
    let u = _mm_clmulepi64_si128::<0x00>(hi, poly);
    from_m(_mm_xor_si128(lo, u))
}

pub(super) fn inner_pclmul(a: &[Block], b: &[Block]) -> (Block, Block) {
    // SAFETY: callers checked PCLMULQDQ support; slices are only read
    // through safe indexing inside.
    unsafe { inner_pclmul_impl(a, b) }
}

#[target_feature(enable = "pclmulqdq,sse2")]
unsafe fn inner_pclmul_impl(a: &[Block], b: &[Block]) -> (Block, Block) {
    let (mut lo, mut hi, mut mid) = (
        _mm_setzero_si128(),
        _mm_setzero_si128(),
        _mm_setzero_si128(),
    );
    for (&x, &y) in a.iter().zip(b) {
        let (x, y) = (to_m(x), to_m(y));
        lo = _mm_xor_si128(lo, _mm_clmulepi64_si128::<0x00>(x, y));
        hi = _mm_xor_si128(hi, _mm_clmulepi64_si128::<0x11>(x, y));
        mid = _mm_xor_si128(mid, _mm_clmulepi64_si128::<0x01>(x, y));
        mid = _mm_xor_si128(mid, _mm_clmulepi64_si128::<0x10>(x, y));
    }
    let lo = _mm_xor_si128(lo, _mm_slli_si128::<8>(mid));
    let hi = _mm_xor_si128(hi, _mm_srli_si128::<8>(mid));
    (from_m(lo), from_m(hi))
}

pub(super) fn mul_acc_rows_pclmul(
    c: &[Block],
    x: &[Block],
    lo: &mut [Block],
    hi: &mut [Block],
    ahead: &[Block],
) {
    // SAFETY: callers checked PCLMULQDQ support; slices are only
    // accessed through safe indexing inside (prefetches do not access
    // memory).
    unsafe { mul_acc_rows_pclmul_impl(c, x, lo, hi, ahead) }
}

/// One row at a time: `lo`, `hi` and the middle term stay in registers
/// over all groups; the lines of `ahead` are prefetched row by row.
#[target_feature(enable = "pclmulqdq,sse2")]
unsafe fn mul_acc_rows_pclmul_impl(
    c: &[Block],
    x: &[Block],
    lo: &mut [Block],
    hi: &mut [Block],
    ahead: &[Block],
) {
    let rows = lo.len().min(hi.len());
    let lines = ahead.len().div_ceil(4);
    for i in 0..rows {
        for line in lines * i / rows..lines * (i + 1) / rows {
            prefetch(ahead, 4 * line);
        }
        let (mut l, mut h, mut m) = (
            _mm_setzero_si128(),
            _mm_setzero_si128(),
            _mm_setzero_si128(),
        );
        for (g, &cg) in c.iter().enumerate() {
            let (a, b) = (to_m(cg), to_m(x[g * rows + i]));
            l = _mm_xor_si128(l, _mm_clmulepi64_si128::<0x00>(a, b));
            h = _mm_xor_si128(h, _mm_clmulepi64_si128::<0x11>(a, b));
            m = _mm_xor_si128(m, _mm_clmulepi64_si128::<0x01>(a, b));
            m = _mm_xor_si128(m, _mm_clmulepi64_si128::<0x10>(a, b));
        }
        l = _mm_xor_si128(l, _mm_slli_si128::<8>(m));
        h = _mm_xor_si128(h, _mm_srli_si128::<8>(m));
        lo[i] ^= from_m(l);
        hi[i] ^= from_m(h);
    }
}

/// Prefetches the cache line holding `blocks[i]` (nothing if `i` is
/// out of range).
#[inline(always)]
pub(super) fn prefetch(blocks: &[Block], i: usize) {
    if let Some(b) = blocks.get(i) {
        // SAFETY: a prefetch is a hint that never faults or changes
        // memory; the address is that of a live element anyway.
        // (SSE is part of the x86-64 baseline.)
        unsafe { _mm_prefetch::<_MM_HINT_T0>((b as *const Block).cast()) };
    }
}
