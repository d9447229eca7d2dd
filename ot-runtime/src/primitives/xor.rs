//! XOR of block slices, the glue between the streamed kernels' AES and
//! transpose passes (`u^j = t^j ⊕ G(k_j^1) ⊕ r`, `q^j = G(k_j) ⊕ s_j u^j`).
//!
//! The loops are written once over 64-bit words (a `u128` loop is not
//! vectorized) and compiled twice: for the baseline target (SSE2, 16 bytes
//! per operation) and with AVX-512F enabled (64 bytes), picked at run time
//! by CPU detection, so a build without `target-cpu=native` still gets the
//! wide registers.

#![allow(unsafe_code)]

use zeroize::Zeroize;

use crate::Block;

/// Copies `src` into `dst` (over the common length) with non-temporal
/// stores on x86-64 (SSE2 `movntdq`, one per block: every [`Block`] is
/// 16-byte aligned), then orders them (`sfence`). For outputs far larger
/// than the caches: each destination line is written without being read
/// from memory first, and the data does not evict what the kernel is
/// working on. Plain copy elsewhere and under a forced scalar backend.
pub fn copy_bypassing_cache(dst: &mut [Block], src: &[Block]) {
    let n = dst.len().min(src.len());
    #[cfg(target_arch = "x86_64")]
    {
        use crate::primitives::backend::{allows, Level};
        const _: () = assert!(core::mem::align_of::<Block>() == 16);
        if avx512() {
            // SAFETY: AVX-512F was detected at run time.
            unsafe { avx512::copy_streaming(&mut dst[..n], &src[..n]) };
            return;
        }
        if allows(Level::Sse2) {
            use core::arch::x86_64::{__m128i, _mm_loadu_si128, _mm_sfence, _mm_stream_si128};
            for (d, s) in dst[..n].iter_mut().zip(&src[..n]) {
                // SAFETY: SSE2 is part of the x86-64 baseline; `d` is a
                // valid, writable `Block`, 16-byte aligned (checked above
                // at compile time), and `s` a readable one.
                unsafe {
                    let v = _mm_loadu_si128((s as *const Block).cast::<__m128i>());
                    _mm_stream_si128((d as *mut Block).cast::<__m128i>(), v);
                }
            }
            // SAFETY: SSE (baseline on x86-64); orders the streaming stores
            // before every later store.
            unsafe { _mm_sfence() };
            return;
        }
    }
    dst[..n].copy_from_slice(&src[..n]);
}

/// Overwrites `dst` with zeros through non-temporal stores on x86-64
/// (SSE2 `movntdq`, as [`copy_bypassing_cache`]), then orders them
/// (`sfence`) and hands the slice to [`core::hint::black_box`], so that the
/// optimizer must assume the zeros are read and keeps every store. For
/// wiping secrets far larger than the caches: a line is written without
/// being read from memory first, which halves the memory traffic of a
/// plain or volatile store. Volatile stores elsewhere and under a forced
/// scalar backend.
pub fn zero_bypassing_cache(dst: &mut [Block]) {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::primitives::backend::{allows, Level};
        if allows(Level::Sse2) {
            use core::arch::x86_64::{__m128i, _mm_setzero_si128, _mm_sfence, _mm_stream_si128};
            for d in dst.iter_mut() {
                // SAFETY: SSE2 is part of the x86-64 baseline; `d` is a
                // valid, writable `Block`, 16-byte aligned (its type's
                // alignment, asserted in `copy_bypassing_cache`).
                unsafe {
                    _mm_stream_si128((d as *mut Block).cast::<__m128i>(), _mm_setzero_si128())
                };
            }
            // SAFETY: SSE (baseline on x86-64); orders the streaming stores
            // before every later store.
            unsafe { _mm_sfence() };
            core::hint::black_box(&*dst);
            return;
        }
    }
    dst.iter_mut().for_each(Zeroize::zeroize);
}

/// `dst[i] ^= a[i]` over the common length.
pub fn xor_into(dst: &mut [Block], a: &[Block]) {
    let n = dst.len().min(a.len());
    let (d, a) = (words_mut(&mut dst[..n]), words(&a[..n]));
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::xor2(d, a) };
        return;
    }
    xor2(d, a);
}

/// `dst[i] ^= a[i] ^ b[i]` over the common length.
pub fn xor3_into(dst: &mut [Block], a: &[Block], b: &[Block]) {
    let n = dst.len().min(a.len()).min(b.len());
    let (d, a, b) = (words_mut(&mut dst[..n]), words(&a[..n]), words(&b[..n]));
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::xor3(d, a, b) };
        return;
    }
    xor3(d, a, b);
}

/// `dst[i] = a[i] ^ b[i]` over the common length (the destination is
/// written, not read: e.g. a masked copy of a payload).
pub fn xor_of_into(dst: &mut [Block], a: &[Block], b: &[Block]) {
    let n = dst.len().min(a.len()).min(b.len());
    let (d, a, b) = (words_mut(&mut dst[..n]), words(&a[..n]), words(&b[..n]));
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::xor_of(d, a, b) };
        return;
    }
    xor_of(d, a, b);
}

/// `dst[i] = [src[i], src[i] ^ delta]` over the common length: the two
/// inputs of an IKNP-style sender's hashes (`q_i` and `q_i ⊕ s`), built
/// with wide registers rather than a block at a time.
pub fn pairs_with_delta_into(dst: &mut [[Block; 2]], src: &[Block], delta: Block) {
    let n = dst.len().min(src.len());
    let d = bytemuck::cast_slice_mut::<[Block; 2], u64>(&mut dst[..n]);
    let s = words(&src[..n]);
    // The words of `delta` in memory order, as `words` splits the blocks.
    let [lo, hi] = bytemuck::cast::<Block, [u64; 2]>(delta);
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::pairs_with(d, s, lo, hi) };
        return;
    }
    pairs_with(d, s, lo, hi);
}

/// `out[i] = pairs[i][c_i] ^ keys[i]` over the common length, where `c_i`
/// is bit `first_bit + i` of `bits` (packed LSB first, as
/// [`crate::Bits::as_bytes`]; bits past its end read as zero), selected
/// without a data-dependent branch or index: each choice bit becomes an
/// all-ones or all-zero mask. The receiver's side of derandomized OT.
pub fn select_xor_into(
    out: &mut [Block],
    pairs: &[[Block; 2]],
    keys: &[Block],
    bits: &[u8],
    first_bit: usize,
) {
    let n = out.len().min(pairs.len()).min(keys.len());
    // Up to the first whole byte of choice bits one at a time, then eight
    // selections per byte.
    let head = ((8 - first_bit % 8) % 8).min(n);
    for i in 0..head {
        let bit = first_bit.checked_add(i).is_some_and(|b| bit_at(bits, b));
        out[i] = crate::primitives::ops::pick(bit, &pairs[i]) ^ keys[i];
    }
    let (out, pairs, keys) = (&mut out[head..n], &pairs[head..n], &keys[head..n]);
    // `first_bit + head` is a multiple of 8 (or `head` is all of `n`).
    let first_byte = first_bit / 8 + (first_bit % 8 + head) / 8;
    let (o, p, k) = (
        words_mut(out),
        bytemuck::cast_slice::<[Block; 2], u64>(pairs),
        words(keys),
    );
    let bytes = bits.get(first_byte..).unwrap_or(&[]);
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::select_xor(o, p, k, bytes) };
        return;
    }
    select_xor(o, p, k, bytes);
}

/// Bit `i` of `bits` (LSB first), zero past the end.
fn bit_at(bits: &[u8], i: usize) -> bool {
    bits.get(i / 8).is_some_and(|b| (b >> (i % 8)) & 1 == 1)
}

/// `acc[j] ^= src[c·w + j]` for every chunk `c` of `w = acc.len()` blocks
/// of `src` (a shorter last chunk folds into the front of `acc`): the
/// column sums of `src` laid out as rows of `w` blocks, in one pass. With
/// `acc` a multiple of a period `p` long, folding `acc` itself by `p`
/// afterwards gives the sums by residue modulo `p` (the GGM level sums of
/// interleaved trees). An empty `acc` leaves everything as is.
pub fn xor_fold_into(acc: &mut [Block], src: &[Block]) {
    if acc.is_empty() {
        return;
    }
    let w = acc.len();
    let d = words_mut(acc);
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::fold(d, src, w) };
        return;
    }
    fold(d, src, w);
}

/// Blocks per row of [`period_sums`]'s accumulator (at least one period).
const FOLD_BLOCKS: usize = 64;

/// `out[j] = ⊕_{i ≡ j (mod period)} src[i]`, `period` entries: one wide
/// folding pass ([`xor_fold_into`]) into an accumulator a whole number of
/// periods long, then a fold of the accumulator by the period (the level
/// sums of interleaved GGM trees, a group's per-tree leaf sums). The
/// accumulator is wiped (the sums may be secret). A zero period gives
/// nothing.
pub fn period_sums(src: &[Block], period: usize) -> Vec<Block> {
    if period == 0 {
        return Vec::new();
    }
    let mut acc = Block::zeroed_vec(period * (FOLD_BLOCKS / period).max(1));
    xor_fold_into(&mut acc, src);
    let mut out = vec![Block::ZERO; period];
    for row in acc.chunks_exact(period) {
        xor_into(&mut out, row);
    }
    acc.iter_mut().for_each(|b| b.0.zeroize());
    out
}

#[inline(always)]
fn fold(d: &mut [u64], src: &[Block], w: usize) {
    for chunk in src.chunks(w) {
        xor2(&mut d[..2 * chunk.len()], words(chunk));
    }
}

/// Clears the least significant bit of every block (the choice-bit
/// convention of silent OT's outputs), over 64-bit words so that it
/// vectorizes.
pub fn clear_low_bits(dst: &mut [Block]) {
    let d = words_mut(dst);
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::clear_low(d) };
        return;
    }
    clear_low(d);
}

#[inline(always)]
fn clear_low(d: &mut [u64]) {
    // The word holding the block's low bit (the first on little-endian).
    let low = usize::from(cfg!(target_endian = "big"));
    for w in d.chunks_exact_mut(2) {
        w[low] &= !1;
    }
}

/// `dst[i] ^= a[i] & mask` over the common length, where `mask` is all
/// ones or zero: a conditional XOR that does the same work either way, for
/// a condition that must not show in the timing (a secret bit, such as the
/// IKNP sender's `s_j`).
pub fn xor_masked_into(dst: &mut [Block], a: &[Block], mask: u64) {
    let n = dst.len().min(a.len());
    let (d, a) = (words_mut(&mut dst[..n]), words(&a[..n]));
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::xor_masked(d, a, mask) };
        return;
    }
    xor_masked(d, a, mask);
}

/// Byte-table lookups of 512-bit rows: `out[j]` = XOR over `t < ntab` of
/// `tables[256 t + byte_t(inputs[j])]`, `byte_t` the `t`-th byte of the
/// block's little-endian bytes (`ntab <= 16`; entries missing from
/// `tables` read as zero). The encoder of a linear code from per-byte
/// tables of its generator rows ([`crate::oprf::code::LinearCode`]): one 64-byte
/// load and XOR per byte, a single AVX-512 instruction each where the CPU
/// has it. The table indices are the inputs (public codes, but secret
/// messages): the access pattern depends on them, as in every table-based
/// encoder; the runtime's threat model leaves cache-timing side channels
/// of co-located processes out of scope for the receiver's choices.
pub fn table_lookup_xor(tables: &[[u64; 8]], ntab: usize, inputs: &[Block], out: &mut [[u64; 8]]) {
    let ntab = ntab.min(16).min(tables.len() / 256);
    let tables = &tables[..256 * ntab];
    #[cfg(target_arch = "x86_64")]
    if avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::table_lookup(tables, ntab, inputs, out) };
        return;
    }
    table_lookup(tables, ntab, inputs, out);
}

#[inline(always)]
fn table_lookup(tables: &[[u64; 8]], ntab: usize, inputs: &[Block], out: &mut [[u64; 8]]) {
    for (x, o) in inputs.iter().zip(out.iter_mut()) {
        let bytes = x.to_bytes();
        let mut acc = [0u64; 8];
        for (t, &b) in bytes[..ntab].iter().enumerate() {
            let e = &tables[256 * t + b as usize];
            for (a, v) in acc.iter_mut().zip(e) {
                *a ^= *v;
            }
        }
        *o = acc;
    }
}

fn words(b: &[Block]) -> &[u64] {
    bytemuck::cast_slice(b)
}

fn words_mut(b: &mut [Block]) -> &mut [u64] {
    bytemuck::cast_slice_mut(b)
}

#[inline(always)]
fn xor2(d: &mut [u64], a: &[u64]) {
    for (x, y) in d.iter_mut().zip(a) {
        *x ^= *y;
    }
}

#[inline(always)]
fn xor3(d: &mut [u64], a: &[u64], b: &[u64]) {
    for ((x, y), z) in d.iter_mut().zip(a).zip(b) {
        *x ^= *y ^ *z;
    }
}

#[inline(always)]
fn xor_of(d: &mut [u64], a: &[u64], b: &[u64]) {
    for ((x, y), z) in d.iter_mut().zip(a).zip(b) {
        *x = *y ^ *z;
    }
}

/// [`pairs_with_delta_into`] on words: four per pair, two per source block.
#[inline(always)]
fn pairs_with(d: &mut [u64], s: &[u64], lo: u64, hi: u64) {
    for (d, s) in d.chunks_exact_mut(4).zip(s.chunks_exact(2)) {
        d[0] = s[0];
        d[1] = s[1];
        d[2] = s[0] ^ lo;
        d[3] = s[1] ^ hi;
    }
}

/// [`select_xor_into`] from a byte boundary: `o`, `k` two words per
/// block, `p` four per pair, `bytes[j]` the choices of blocks `8j..8j+8`.
#[inline(always)]
fn select_xor(o: &mut [u64], p: &[u64], k: &[u64], bytes: &[u8]) {
    for (j, ((o, p), k)) in o
        .chunks_mut(16)
        .zip(p.chunks(32))
        .zip(k.chunks(16))
        .enumerate()
    {
        let byte = u64::from(bytes.get(j).copied().unwrap_or(0));
        for (t, ((o, p), k)) in o
            .chunks_exact_mut(2)
            .zip(p.chunks_exact(4))
            .zip(k.chunks_exact(2))
            .enumerate()
        {
            let mask = 0u64.wrapping_sub((byte >> t) & 1);
            o[0] = ((p[0] & !mask) | (p[2] & mask)) ^ k[0];
            o[1] = ((p[1] & !mask) | (p[3] & mask)) ^ k[1];
        }
    }
}

#[inline(always)]
fn xor_masked(d: &mut [u64], a: &[u64], mask: u64) {
    for (x, y) in d.iter_mut().zip(a) {
        *x ^= *y & mask;
    }
}

/// Whether the AVX-512 versions can run (detected once, cached); shared
/// by the other word loops compiled twice the same way
/// (`silent::scale`).
#[cfg(target_arch = "x86_64")]
pub(crate) fn avx512() -> bool {
    // A forced narrower backend (`--cfg ot_backend`, as CI runs the
    // runtime's tests once per backend) takes the baseline loop.
    use crate::primitives::backend::{allows, has, Feature, Level};
    allows(Level::Avx512) && has(&[Feature::Avx512f])
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    /// [`super::xor2`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn xor2(d: &mut [u64], a: &[u64]) {
        super::xor2(d, a)
    }

    /// [`super::fold`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn fold(d: &mut [u64], src: &[crate::Block], w: usize) {
        super::fold(d, src, w)
    }

    /// [`super::clear_low`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn clear_low(d: &mut [u64]) {
        super::clear_low(d)
    }

    /// [`super::xor3`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn xor3(d: &mut [u64], a: &[u64], b: &[u64]) {
        super::xor3(d, a, b)
    }

    /// [`super::xor_of`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn xor_of(d: &mut [u64], a: &[u64], b: &[u64]) {
        super::xor_of(d, a, b)
    }

    /// [`super::copy_bypassing_cache`] with 64-byte non-temporal stores on
    /// the 64-byte aligned middle of `dst` (16-byte ones on its ends), then
    /// `sfence`. `dst` and `src` have the same length.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn copy_streaming(dst: &mut [crate::Block], src: &[crate::Block]) {
        use core::arch::x86_64::{
            __m128i, __m512i, _mm512_loadu_si512, _mm512_stream_si512, _mm_loadu_si128, _mm_sfence,
            _mm_stream_si128,
        };
        let n = dst.len().min(src.len());
        // Blocks before the first 64-byte boundary of `dst` (0 to 3;
        // `align_offset` counts elements).
        let head = dst.as_ptr().align_offset(64).min(n);
        let body = (n - head) / 4 * 4;
        let one = |d: &mut crate::Block, s: &crate::Block| {
            // SAFETY: SSE2 (baseline); `d` is a writable, 16-byte aligned
            // `Block`, `s` a readable one.
            unsafe {
                let v = _mm_loadu_si128((s as *const crate::Block).cast::<__m128i>());
                _mm_stream_si128((d as *mut crate::Block).cast::<__m128i>(), v);
            }
        };
        for (d, s) in dst[..head].iter_mut().zip(&src[..head]) {
            one(d, s);
        }
        for (d, s) in dst[head..head + body]
            .chunks_exact_mut(4)
            .zip(src[head..head + body].chunks_exact(4))
        {
            // SAFETY: AVX-512F is enabled; `d` is four writable blocks
            // starting at a 64-byte boundary (`head` skipped to it), `s`
            // four readable ones (unaligned load).
            unsafe {
                let v = _mm512_loadu_si512(s.as_ptr().cast::<__m512i>());
                _mm512_stream_si512(d.as_mut_ptr().cast::<__m512i>(), v);
            }
        }
        for (d, s) in dst[head + body..n].iter_mut().zip(&src[head + body..n]) {
            one(d, s);
        }
        // Orders the streaming stores before every later store (SSE, which
        // this function's enabled features include).
        _mm_sfence();
    }

    /// [`super::pairs_with`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn pairs_with(d: &mut [u64], s: &[u64], lo: u64, hi: u64) {
        super::pairs_with(d, s, lo, hi)
    }

    /// [`super::select_xor`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn select_xor(o: &mut [u64], p: &[u64], k: &[u64], bytes: &[u8]) {
        super::select_xor(o, p, k, bytes)
    }

    /// [`super::xor_masked`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn xor_masked(d: &mut [u64], a: &[u64], mask: u64) {
        super::xor_masked(d, a, mask)
    }

    /// [`super::table_lookup`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn table_lookup(
        tables: &[[u64; 8]],
        ntab: usize,
        inputs: &[crate::Block],
        out: &mut [[u64; 8]],
    ) {
        super::table_lookup(tables, ntab, inputs, out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn the_cache_bypassing_zeroing_clears_every_block() {
        for n in [0usize, 1, 7, 1000] {
            let mut dst: Vec<Block> = (0..n as u128 + 3).map(|i| Block(i + 1)).collect();
            zero_bypassing_cache(&mut dst[1..n + 1]);
            assert_eq!(dst[0], Block(1));
            assert!(dst[1..n + 1].iter().all(|&b| b == Block::ZERO));
            assert_eq!(dst[n + 1], Block(n as u128 + 2));
        }
    }

    #[test]
    fn the_cache_bypassing_copy_copies_the_common_length() {
        let src: Vec<Block> = (0..1000u128).map(|i| Block(i * 0x9e37_79b9)).collect();
        // Every start modulo the 64-byte line (the wide path's aligned
        // middle and narrow ends) and short lengths around four blocks.
        for start in 0..4 {
            for n in [0usize, 1, 3, 4, 5, 9, 100] {
                let mut dst = vec![Block(5); 120];
                copy_bypassing_cache(&mut dst[start..start + n], &src[..n]);
                assert_eq!(dst[start..start + n], src[..n], "{start} {n}");
                assert!(dst[..start]
                    .iter()
                    .chain(&dst[start + n..])
                    .all(|&b| b == Block(5)));
            }
        }
        for n in [0usize, 1, 7, 1000] {
            let mut dst = vec![Block(5); 1003];
            copy_bypassing_cache(&mut dst[..n.max(1) + 2], &src[..n]);
            assert_eq!(dst[..n], src[..n]);
            assert!(
                dst[n..].iter().all(|&b| b == Block(5)),
                "past the common length"
            );
        }
    }

    proptest! {
        /// The word-wise kernels against the definition, at every bit
        /// offset and length (including bits past the end of `bits`).
        #[test]
        fn select_and_xor_of_match_the_definition(
            v in proptest::collection::vec(any::<(u128, u128, u128)>(), 0..200),
            bits in proptest::collection::vec(any::<u8>(), 0..30),
            first in 0usize..40,
            cut in 0usize..3,
        ) {
            let pairs: Vec<[Block; 2]> = v.iter().map(|t| [Block(t.0), Block(t.1)]).collect();
            let keys: Vec<Block> = v.iter().skip(cut).map(|t| Block(t.2)).collect();
            let mut out = vec![Block(7); v.len() + 1];
            select_xor_into(&mut out, &pairs, &keys, &bits, first);
            let n = keys.len();
            for i in 0..n {
                let c = bits.get((first + i) / 8).is_some_and(|b| (b >> ((first + i) % 8)) & 1 == 1);
                prop_assert_eq!(out[i], pairs[i][usize::from(c)] ^ keys[i], "entry {}", i);
            }
            prop_assert!(out[n..].iter().all(|&b| b == Block(7)));
            let flat: Vec<Block> = pairs.iter().flatten().copied().collect();
            let mut x = vec![Block(9); flat.len() + 1];
            x[..].copy_from_slice(&[flat.clone(), vec![Block(9)]].concat());
            xor_of_into(&mut x, &flat, &flat.iter().rev().copied().collect::<Vec<_>>());
            for i in 0..flat.len() {
                prop_assert_eq!(x[i], flat[i] ^ flat[flat.len() - 1 - i]);
            }
            prop_assert_eq!(x[flat.len()], Block(9));
            let delta = keys.first().copied().unwrap_or(Block(3));
            let mut pd = vec![[Block(1); 2]; flat.len() + 1];
            pairs_with_delta_into(&mut pd, &flat, delta);
            for i in 0..flat.len() {
                prop_assert_eq!(pd[i], [flat[i], flat[i] ^ delta]);
            }
            prop_assert_eq!(pd[flat.len()], [Block(1); 2]);
        }

        #[test]
        fn matches_the_blockwise_xor(v in proptest::collection::vec(any::<(u128, u128, u128)>(), 0..300), cut in 0usize..5, on in any::<bool>()) {
            let d0: Vec<Block> = v.iter().map(|t| Block(t.0)).collect();
            let a: Vec<Block> = v.iter().map(|t| Block(t.1)).collect();
            let b: Vec<Block> = v.iter().skip(cut).map(|t| Block(t.2)).collect();
            let mut d2 = d0.clone();
            xor_into(&mut d2, &a);
            let mut d3 = d0.clone();
            xor3_into(&mut d3, &a, &b);
            let mut dm = d0.clone();
            xor_masked_into(&mut dm, &b, 0u64.wrapping_sub(u64::from(on)));
            for i in 0..d0.len() {
                prop_assert_eq!(d2[i], d0[i] ^ a[i]);
                let masked = if on && i < b.len() { d0[i] ^ b[i] } else { d0[i] };
                prop_assert_eq!(dm[i], masked);
                let want = if i < b.len() { d0[i] ^ a[i] ^ b[i] } else { d0[i] };
                prop_assert_eq!(d3[i], want);
            }
        }

        #[test]
        fn fold_gives_the_column_sums(v in proptest::collection::vec(any::<u128>(), 0..300), w in 0usize..40) {
            let src: Vec<Block> = v.iter().map(|&x| Block(x)).collect();
            let mut acc: Vec<Block> = (0..w).map(|j| Block(j as u128 * 3 + 1)).collect();
            let mut want = acc.clone();
            for (i, &x) in src.iter().enumerate() {
                if w > 0 {
                    want[i % w] ^= x;
                }
            }
            xor_fold_into(&mut acc, &src);
            prop_assert_eq!(acc, want);
            let sums = period_sums(&src, w);
            let mut by_residue = vec![Block::ZERO; w];
            for (i, &x) in src.iter().enumerate() {
                if w > 0 {
                    by_residue[i % w] ^= x;
                }
            }
            prop_assert_eq!(sums, by_residue);
            let mut cleared = src.clone();
            clear_low_bits(&mut cleared);
            for (c, s) in cleared.iter().zip(&src) {
                prop_assert_eq!(c.0, s.0 & !1);
            }
        }
    }
}
