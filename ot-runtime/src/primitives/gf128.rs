//! Arithmetic in GF(2^128) for the KOS/ALSZ consistency checks.
//!
//! # Convention
//!
//! The field is GF(2)`[x]` / (x^128 + x^7 + x^2 + x + 1) in the "natural"
//! (non-reflected) bit order used by KOS and libOTe: bit `i` of
//! [`Block::as_u128`] is the coefficient of x^i. So `Block(2)` is `x`, and
//! `x^127 · x = x^7 + x^2 + x + 1 = Block(0x87)`. This is *not* the
//! bit-reflected GHASH convention; `mul(a, b)` equals
//! `reflect(ghash_mul(reflect(a), reflect(b)))` where `reflect` reverses the
//! 128 bits — the tests use that identity to check against the GCM test
//! vector, plus a bitwise schoolbook reference and field identities.
//!
//! # Backends
//!
//! `portable` (constant-time shift-and-mask carry-less multiply), `pclmul`
//! (PCLMULQDQ on 128-bit registers), `vpclmul512` (VPCLMULQDQ on 512-bit
//! registers, 4 products per instruction, used for [`inner_product`] and
//! the row accumulation of [`crate::otext::consistency::kos_row_check`]).
//! Inner products and row accumulations sum the unreduced 256-bit products
//! and reduce once at the end (lazy reduction). Selection follows `--cfg ot_backend`
//! like the other kernels (`scalar` → portable, `sse2`/`avx2` → pclmul,
//! `avx512` → vpclmul512).

use crate::primitives::bits::{check_len, ShapeError};
use crate::{Bits, Block};
use std::sync::OnceLock;

/// A GF(2^128) implementation strategy (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GfBackend {
    /// Constant-time portable code.
    Portable,
    /// PCLMULQDQ, one product at a time.
    Pclmul,
    /// VPCLMULQDQ + AVX-512F/BW, four products per instruction.
    Vpclmul512,
}

impl GfBackend {
    /// Short name for logs and benchmarks.
    pub fn name(self) -> &'static str {
        match self {
            GfBackend::Portable => "portable",
            GfBackend::Pclmul => "pclmul",
            GfBackend::Vpclmul512 => "vpclmul512",
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        match self {
            GfBackend::Portable => true,
            #[cfg(target_arch = "x86_64")]
            GfBackend::Pclmul => std::arch::is_x86_feature_detected!("pclmulqdq"),
            #[cfg(target_arch = "x86_64")]
            GfBackend::Vpclmul512 => {
                std::arch::is_x86_feature_detected!("pclmulqdq")
                    && std::arch::is_x86_feature_detected!("vpclmulqdq")
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// All backends this CPU supports, slowest first.
    pub fn available() -> Vec<GfBackend> {
        [
            GfBackend::Portable,
            GfBackend::Pclmul,
            GfBackend::Vpclmul512,
        ]
        .into_iter()
        .filter(|b| b.is_supported())
        .collect()
    }

    /// The backend used by [`mul`] and [`inner_product`] (detected once).
    pub fn selected() -> GfBackend {
        static SEL: OnceLock<GfBackend> = OnceLock::new();
        *SEL.get_or_init(|| {
            let cap = if cfg!(ot_backend = "scalar") {
                GfBackend::Portable
            } else if cfg!(any(ot_backend = "sse2", ot_backend = "avx2")) {
                GfBackend::Pclmul
            } else {
                GfBackend::Vpclmul512
            };
            let order = [
                GfBackend::Vpclmul512,
                GfBackend::Pclmul,
                GfBackend::Portable,
            ];
            let start = order.iter().position(|&b| b == cap).unwrap_or(0);
            order[start..]
                .iter()
                .copied()
                .find(|b| b.is_supported())
                .unwrap_or(GfBackend::Portable)
        })
    }
}

/// Name of the GF(2^128) backend selected on this machine.
pub fn backend_name() -> &'static str {
    GfBackend::selected().name()
}

/// Constant-time 64 x 64 -> 128 carry-less multiply.
#[inline]
fn clmul64_portable(a: u64, b: u64) -> u128 {
    let a = a as u128;
    let mut r = 0u128;
    for i in 0..64 {
        r ^= (a << i) & 0u128.wrapping_sub(((b >> i) & 1) as u128);
    }
    r
}

/// Unreduced 256-bit carry-less product `a · b` as `(low, high)` halves
/// (portable, constant time).
pub fn clmul128(a: Block, b: Block) -> (Block, Block) {
    let (a0, a1, b0, b1) = (a.lo(), a.hi(), b.lo(), b.hi());
    let lo = clmul64_portable(a0, b0);
    let hi = clmul64_portable(a1, b1);
    let mid = clmul64_portable(a0, b1) ^ clmul64_portable(a1, b0);
    (Block(lo ^ (mid << 64)), Block(hi ^ (mid >> 64)))
}

/// Reduces the 256-bit polynomial `hi · x^128 + lo` modulo
/// x^128 + x^7 + x^2 + x + 1.
pub fn reduce(lo: Block, hi: Block) -> Block {
    let h = hi.0;
    // h·x^128 ≡ h·(x^7 + x^2 + x + 1); the shifted-out bits (degree >= 128)
    // are folded once more, and that fold fits in 128 bits.
    let t = h ^ (h << 1) ^ (h << 2) ^ (h << 7);
    let o = (h >> 127) ^ (h >> 126) ^ (h >> 121);
    Block(lo.0 ^ t ^ o ^ (o << 1) ^ (o << 2) ^ (o << 7))
}

/// Product in GF(2^128) (fastest backend).
#[inline]
pub fn mul(a: Block, b: Block) -> Block {
    mul_with(GfBackend::selected(), a, b)
}

/// Product with a specific backend (portable if unsupported).
pub fn mul_with(backend: GfBackend, a: Block, b: Block) -> Block {
    match backend {
        #[cfg(target_arch = "x86_64")]
        GfBackend::Pclmul | GfBackend::Vpclmul512 if backend.is_supported() => x86::mul(a, b),
        _ => {
            let (lo, hi) = clmul128(a, b);
            reduce(lo, hi)
        }
    }
}

/// Bitwise schoolbook reference: `a · b` by shift-and-add with reduction at
/// every step (slow; for tests).
pub fn mul_reference(a: Block, b: Block) -> Block {
    let (mut a, mut r) = (a.0, 0u128);
    for i in 0..128 {
        if (b.0 >> i) & 1 == 1 {
            r ^= a;
        }
        let carry = a >> 127;
        a <<= 1;
        if carry == 1 {
            a ^= 0x87;
        }
    }
    Block(r)
}

/// `x^e` by square-and-multiply (used by tests and for inverses).
pub fn pow(mut x: Block, mut e: u128) -> Block {
    let mut r = Block(1);
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, x);
        }
        x = mul(x, x);
        e >>= 1;
    }
    r
}

/// Multiplicative inverse `a^(2^128 - 2)` (zero maps to zero).
pub fn inverse(a: Block) -> Block {
    pow(a, u128::MAX - 1)
}

/// `Σ a[i] · b[i]` in GF(2^128) with one final reduction; [`ShapeError`]
/// if the lengths differ.
pub fn inner_product(a: &[Block], b: &[Block]) -> Result<Block, ShapeError> {
    inner_product_with(GfBackend::selected(), a, b)
}

/// [`inner_product`] with a specific backend (portable if unsupported).
pub fn inner_product_with(
    backend: GfBackend,
    a: &[Block],
    b: &[Block],
) -> Result<Block, ShapeError> {
    check_len("gf128::inner_product", a.len(), b.len())?;
    let (lo, hi) = match backend {
        #[cfg(target_arch = "x86_64")]
        GfBackend::Pclmul if backend.is_supported() => x86::inner_pclmul(a, b),
        #[cfg(target_arch = "x86_64")]
        GfBackend::Vpclmul512 if backend.is_supported() => x86::inner_vpclmul(a, b),
        _ => a
            .iter()
            .zip(b)
            .fold((Block::ZERO, Block::ZERO), |(l, h), (&x, &y)| {
                let (pl, ph) = clmul128(x, y);
                (l ^ pl, h ^ ph)
            }),
    };
    Ok(reduce(lo, hi))
}

/// `Σ_{i : bits[i] = 1} blocks[i]` computed in constant time (the receiver
/// side of the KOS check, where one factor is a bit); [`ShapeError`] if
/// the lengths differ.
pub fn masked_sum(bits: &Bits, blocks: &[Block]) -> Result<Block, ShapeError> {
    check_len("gf128::masked_sum", bits.len(), blocks.len())?;
    let mut acc = Block::ZERO;
    for (chunk, byte) in blocks.chunks(8).zip(bits.as_bytes()) {
        for (k, &x) in chunk.iter().enumerate() {
            acc ^= x & Block::mask((byte >> k) & 1 == 1);
        }
    }
    Ok(acc)
}

/// Lazy-reduction accumulation of scaled rows, the inner loop of the
/// row-wise KOS check ([`crate::otext::consistency`]): for every group
/// `g < c.len()` and row `i < rows` (`rows = lo.len()`),
/// `(lo[i], hi[i]) ^= clmul128(c[g], x[g * rows + i])`, i.e. the unreduced
/// 256-bit sum `Σ_g c[g] · x[g·rows + i]` is added to row `i`'s accumulator
/// (`hi[i]·x^128 + lo[i]`). Nothing is reduced; callers [`reduce`] each row
/// once at the end. Total: rows are `min(lo.len(), hi.len())`, groups are
/// those `x` holds completely.
///
/// `ahead` is memory the caller reads next: the SIMD backends prefetch its
/// cache lines while the products run, so that a stream from DRAM keeps
/// flowing during the arithmetic (a hint only; it never changes the result).
pub(crate) fn mul_acc_rows_with(
    backend: GfBackend,
    c: &[Block],
    x: &[Block],
    lo: &mut [Block],
    hi: &mut [Block],
    ahead: &[Block],
) {
    let rows = lo.len().min(hi.len());
    if rows == 0 {
        return;
    }
    let groups = c.len().min(x.len() / rows);
    let (c, x) = (&c[..groups], &x[..groups * rows]);
    let (lo, hi) = (&mut lo[..rows], &mut hi[..rows]);
    match backend {
        #[cfg(target_arch = "x86_64")]
        GfBackend::Pclmul if backend.is_supported() => {
            x86::mul_acc_rows_pclmul(c, x, lo, hi, ahead)
        }
        #[cfg(target_arch = "x86_64")]
        GfBackend::Vpclmul512 if backend.is_supported() => {
            x86::mul_acc_rows_vpclmul(c, x, lo, hi, ahead)
        }
        _ => {
            let _ = ahead;
            for (&cg, xg) in c.iter().zip(x.chunks_exact(rows)) {
                for ((l, h), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(xg) {
                    let (pl, ph) = clmul128(cg, v);
                    *l ^= pl;
                    *h ^= ph;
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    #![allow(unsafe_code)]
    use crate::Block;
    use core::arch::x86_64::*;

    #[inline(always)]
    fn to_m(b: Block) -> __m128i {
        // SAFETY: 16 bytes of plain data to 16 bytes of plain data.
        unsafe { core::mem::transmute::<u128, __m128i>(b.0) }
    }

    #[inline(always)]
    fn from_m(m: __m128i) -> Block {
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
    fn prefetch(blocks: &[Block], i: usize) {
        if let Some(b) = blocks.get(i) {
            // SAFETY: a prefetch is a hint that never faults or changes
            // memory; the address is that of a live element anyway.
            // (SSE is part of the x86-64 baseline.)
            unsafe { _mm_prefetch::<_MM_HINT_T0>((b as *const Block).cast()) };
        }
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
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every backend against the portable accumulation, for row counts
    /// around the 4- and 8-row SIMD passes and any number of groups, on
    /// top of non-zero accumulators.
    #[test]
    fn mul_acc_rows_backends_agree() {
        for rows in [1usize, 3, 4, 5, 8, 12, 13, 128] {
            for groups in [0usize, 1, 2, 7, 9] {
                let c = crate::primitives::prg::prg(Block(rows as u128), groups);
                let x = crate::primitives::prg::prg(Block(1000 + groups as u128), groups * rows);
                let init = crate::primitives::prg::prg(Block(7), 2 * rows);
                let (mut lo, mut hi) = (init[..rows].to_vec(), init[rows..].to_vec());
                for (g, &cg) in c.iter().enumerate() {
                    for i in 0..rows {
                        let (pl, ph) = clmul128(cg, x[g * rows + i]);
                        lo[i] ^= pl;
                        hi[i] ^= ph;
                    }
                }
                for be in GfBackend::available() {
                    let (mut l, mut h) = (init[..rows].to_vec(), init[rows..].to_vec());
                    mul_acc_rows_with(be, &c, &x, &mut l, &mut h, &x);
                    assert_eq!((&l, &h), (&lo, &hi), "{be:?} rows {rows} groups {groups}");
                }
            }
        }
    }

    /// Mismatched shapes are cut to what every slice holds.
    #[test]
    fn mul_acc_rows_is_total() {
        let c = [Block(3), Block(5)];
        let x = [Block(7); 5];
        for be in GfBackend::available() {
            let (mut l, mut h) = (vec![Block::ZERO; 4], vec![Block::ZERO; 2]);
            mul_acc_rows_with(be, &c, &x, &mut l, &mut h, &x);
            // Rows = 2, groups = min(2, 5 / 2) = 2.
            let (pl, ph) = clmul128(Block(3), Block(7));
            let (ql, qh) = clmul128(Block(5), Block(7));
            assert_eq!(l, [pl ^ ql, pl ^ ql, Block::ZERO, Block::ZERO]);
            assert_eq!(h, [ph ^ qh, ph ^ qh]);
            mul_acc_rows_with(be, &c, &x, &mut [], &mut [], &[]);
        }
    }
}
