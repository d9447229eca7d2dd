//! The `vpclmul512` GF(2^128) backend: VPCLMULQDQ on 512-bit registers,
//! four products per instruction, for inner products and row
//! accumulations (single products use [`super::pclmul`]).
#![allow(unsafe_code)]
use super::pclmul::{from_m, mul_acc_rows_pclmul, prefetch};
use crate::Block;
use core::arch::x86_64::*;
pub(super) fn inner_vpclmul(a: &[Block], b: &[Block]) -> (Block, Block) {
    let n = a.len().min(b.len());
    // SAFETY: callers checked VPCLMULQDQ + AVX-512F/BW support; both
    // pointers are valid for `n` blocks and every load is in bounds or
    // masked to in-bounds lanes.
    unsafe { inner_vpclmul_impl(a.as_ptr(), b.as_ptr(), n) }
}

// AVX-512BW for the final 128-bit lane byte shifts (`vpslldq` on zmm).
#[target_feature(enable = "vpclmulqdq,avx512f,avx512bw,pclmulqdq")]
unsafe fn inner_vpclmul_impl(a: *const Block, b: *const Block, n: usize) -> (Block, Block) {
    const U: usize = 4; // zmm pairs per iteration = 16 blocks
    let z = _mm512_setzero_si512();
    let (mut lo, mut hi, mut m1, mut m2) = ([z; U], [z; U], [z; U], [z; U]);
    let mut i = 0;
    while i + 4 * U <= n {
        for u in 0..U {
            let x = _mm512_loadu_si512(a.add(i + 4 * u).cast());
            let y = _mm512_loadu_si512(b.add(i + 4 * u).cast());
            lo[u] = _mm512_xor_si512(lo[u], _mm512_clmulepi64_epi128::<0x00>(x, y));
            hi[u] = _mm512_xor_si512(hi[u], _mm512_clmulepi64_epi128::<0x11>(x, y));
            m1[u] = _mm512_xor_si512(m1[u], _mm512_clmulepi64_epi128::<0x01>(x, y));
            m2[u] = _mm512_xor_si512(m2[u], _mm512_clmulepi64_epi128::<0x10>(x, y));
        }
        i += 4 * U;
    }
    while i < n {
        let cnt = (n - i).min(4);
        let mask = ((1u16 << (2 * cnt)) - 1) as u8;
        let x = _mm512_maskz_loadu_epi64(mask, a.add(i).cast());
        let y = _mm512_maskz_loadu_epi64(mask, b.add(i).cast());
        lo[0] = _mm512_xor_si512(lo[0], _mm512_clmulepi64_epi128::<0x00>(x, y));
        hi[0] = _mm512_xor_si512(hi[0], _mm512_clmulepi64_epi128::<0x11>(x, y));
        m1[0] = _mm512_xor_si512(m1[0], _mm512_clmulepi64_epi128::<0x01>(x, y));
        m2[0] = _mm512_xor_si512(m2[0], _mm512_clmulepi64_epi128::<0x10>(x, y));
        i += cnt;
    }
    for u in 1..U {
        lo[0] = _mm512_xor_si512(lo[0], lo[u]);
        hi[0] = _mm512_xor_si512(hi[0], hi[u]);
        m1[0] = _mm512_xor_si512(m1[0], m1[u]);
        m2[0] = _mm512_xor_si512(m2[0], m2[u]);
    }
    let mid = _mm512_xor_si512(m1[0], m2[0]);
    let lo = _mm512_xor_si512(lo[0], _mm512_bslli_epi128::<8>(mid));
    let hi = _mm512_xor_si512(hi[0], _mm512_bsrli_epi128::<8>(mid));
    let fold = |v: __m512i| -> __m128i {
        let a = _mm_xor_si128(
            _mm512_extracti32x4_epi32::<0>(v),
            _mm512_extracti32x4_epi32::<1>(v),
        );
        let b = _mm_xor_si128(
            _mm512_extracti32x4_epi32::<2>(v),
            _mm512_extracti32x4_epi32::<3>(v),
        );
        _mm_xor_si128(a, b)
    };
    (from_m(fold(lo)), from_m(fold(hi)))
}

pub(super) fn mul_acc_rows_vpclmul(
    c: &[Block],
    x: &[Block],
    lo: &mut [Block],
    hi: &mut [Block],
    ahead: &[Block],
) {
    let rows = lo.len().min(hi.len());
    let groups = c.len().min(x.len() / rows.max(1));
    let quads = rows / 4 * 4;
    let lines = ahead.len().div_ceil(4);
    let passes = quads.div_ceil(8).max(1);
    let mut i = 0;
    let mut pass = 0;
    while i < quads {
        let u = if i + 8 <= quads { 2 } else { 1 };
        for line in lines * pass / passes..lines * (pass + 1) / passes {
            prefetch(ahead, 4 * line);
        }
        // SAFETY: callers checked VPCLMULQDQ + AVX-512F/BW support.
        // Reads: `c` blocks `< groups <= c.len()`; `x` blocks
        // `g * rows + i + r` with `g < groups`, `r < 4u`, `i + 4u <=
        // quads <= rows`, so below `groups * rows <= x.len()`. Writes:
        // `lo`/`hi` blocks `i .. i + 4u <= rows`, which both hold; `x`
        // and `c` are shared borrows and `lo`, `hi` distinct exclusive
        // ones, so nothing aliases.
        unsafe {
            let (xp, lp, hp) = (
                x.as_ptr().add(i),
                lo.as_mut_ptr().add(i),
                hi.as_mut_ptr().add(i),
            );
            if u == 2 {
                acc_pass::<2>(c.as_ptr(), groups, xp, rows, lp, hp);
            } else {
                acc_pass::<1>(c.as_ptr(), groups, xp, rows, lp, hp);
            }
        }
        i += 4 * u;
        pass += 1;
    }
    if quads < rows {
        let tail: Vec<Block> = (0..groups)
            .flat_map(|g| x[g * rows + quads..(g + 1) * rows].iter().copied())
            .collect();
        mul_acc_rows_pclmul(
            &c[..groups],
            &tail,
            &mut lo[quads..rows],
            &mut hi[quads..rows],
            &[],
        );
    }
}

/// Rows `0..4U` relative to `x`, `lo`, `hi` (row `r` of group `g` at
/// `x + g * rows + r`) over all groups: per lane the four 64 x 64
/// products go to three accumulators held in registers (`lo`, `hi`,
/// middle), two groups per step so that every accumulator takes two
/// products in one three-way XOR (`vpternlogq`); folded and added to
/// memory once at the end.
#[inline]
#[target_feature(enable = "vpclmulqdq,avx512f,avx512bw,pclmulqdq")]
unsafe fn acc_pass<const U: usize>(
    c: *const Block,
    groups: usize,
    x: *const Block,
    rows: usize,
    lo: *mut Block,
    hi: *mut Block,
) {
    let z = _mm512_setzero_si512();
    let (mut l, mut h, mut m) = ([z; U], [z; U], [z; U]);
    let mut g = 0;
    while g + 2 <= groups {
        let ca = _mm512_broadcast_i32x4(_mm_loadu_si128(c.add(g).cast()));
        let cb = _mm512_broadcast_i32x4(_mm_loadu_si128(c.add(g + 1).cast()));
        let (ra, rb) = (x.add(g * rows), x.add((g + 1) * rows));
        for k in 0..U {
            let a = _mm512_loadu_si512(ra.add(4 * k).cast());
            let b = _mm512_loadu_si512(rb.add(4 * k).cast());
            l[k] = xor3(
                l[k],
                _mm512_clmulepi64_epi128::<0x00>(a, ca),
                _mm512_clmulepi64_epi128::<0x00>(b, cb),
            );
            h[k] = xor3(
                h[k],
                _mm512_clmulepi64_epi128::<0x11>(a, ca),
                _mm512_clmulepi64_epi128::<0x11>(b, cb),
            );
            m[k] = xor3(
                m[k],
                _mm512_clmulepi64_epi128::<0x01>(a, ca),
                _mm512_clmulepi64_epi128::<0x10>(a, ca),
            );
            m[k] = xor3(
                m[k],
                _mm512_clmulepi64_epi128::<0x01>(b, cb),
                _mm512_clmulepi64_epi128::<0x10>(b, cb),
            );
        }
        g += 2;
    }
    if g < groups {
        let ca = _mm512_broadcast_i32x4(_mm_loadu_si128(c.add(g).cast()));
        let ra = x.add(g * rows);
        for k in 0..U {
            let a = _mm512_loadu_si512(ra.add(4 * k).cast());
            l[k] = _mm512_xor_si512(l[k], _mm512_clmulepi64_epi128::<0x00>(a, ca));
            h[k] = _mm512_xor_si512(h[k], _mm512_clmulepi64_epi128::<0x11>(a, ca));
            m[k] = xor3(
                m[k],
                _mm512_clmulepi64_epi128::<0x01>(a, ca),
                _mm512_clmulepi64_epi128::<0x10>(a, ca),
            );
        }
    }
    for k in 0..U {
        let nl = _mm512_xor_si512(l[k], _mm512_bslli_epi128::<8>(m[k]));
        let nh = _mm512_xor_si512(h[k], _mm512_bsrli_epi128::<8>(m[k]));
        let pl = lo.add(4 * k).cast::<__m512i>();
        let ph = hi.add(4 * k).cast::<__m512i>();
        _mm512_storeu_si512(pl, _mm512_xor_si512(_mm512_loadu_si512(pl), nl));
        _mm512_storeu_si512(ph, _mm512_xor_si512(_mm512_loadu_si512(ph), nh));
    }
}

/// `a ⊕ b ⊕ c` in one instruction.
#[inline]
#[target_feature(enable = "avx512f")]
fn xor3(a: __m512i, b: __m512i, c: __m512i) -> __m512i {
    _mm512_ternarylogic_epi64::<0x96>(a, b, c)
}
