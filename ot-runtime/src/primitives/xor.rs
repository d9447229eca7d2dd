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
    fn the_cache_bypassing_copy_copies_the_common_length() {
        let src: Vec<Block> = (0..1000u128).map(|i| Block(i * 0x9e37_79b9)).collect();
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
