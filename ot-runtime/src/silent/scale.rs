//! Lemire's scaling of a chunk of 32-bit words to positions in `0..k`,
//! one flat pass that vectorizes: `p = ⌊r·k / 2^32⌋` for every word `r`,
//! with a flag where `(r·k) mod 2^32 < 2^32 mod k` (the words whose
//! position would not be exactly uniform, refused by [`super::lpn`]).
//!
//! The loop is written once and compiled twice, for the baseline target
//! and with AVX-512F (eight 32×32→64-bit products per instruction), picked
//! at run time by [`crate::primitives::xor`]'s CPU detection (which also honours a
//! forced `--cfg ot_backend`).

#![allow(unsafe_code)]

/// `pos[i] = ⌊words[i]·k / 2^32⌋` and `bad[i] = 1` iff the low half of the
/// product is below `reject`, else 0, over the common length.
pub(super) fn scale(words: &[u32], k: u32, reject: u32, pos: &mut [u32], bad: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if crate::primitives::xor::avx512() {
        // SAFETY: AVX-512F was detected at run time.
        unsafe { avx512::scale(words, k, reject, pos, bad) };
        return;
    }
    scale_words(words, k, reject, pos, bad);
}

#[inline(always)]
fn scale_words(words: &[u32], k: u32, reject: u32, pos: &mut [u32], bad: &mut [u8]) {
    for ((&r, p), b) in words.iter().zip(pos.iter_mut()).zip(bad.iter_mut()) {
        let m = u64::from(r) * u64::from(k);
        *p = (m >> 32) as u32;
        *b = u8::from((m as u32) < reject);
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    /// [`super::scale_words`] compiled with AVX-512F.
    ///
    /// # Safety
    /// The CPU supports AVX-512F.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn scale(
        words: &[u32],
        k: u32,
        reject: u32,
        pos: &mut [u32],
        bad: &mut [u8],
    ) {
        super::scale_words(words, k, reject, pos, bad)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn matches_the_word_by_word_scaling(words in proptest::collection::vec(any::<u32>(), 0..200), k in 1u32..) {
            let reject = ((1u64 << 32) % u64::from(k)) as u32;
            let mut pos = vec![0; words.len()];
            let mut bad = vec![9; words.len()];
            scale(&words, k, reject, &mut pos, &mut bad);
            for (i, &r) in words.iter().enumerate() {
                let m = u64::from(r) * u64::from(k);
                prop_assert_eq!(pos[i], (m >> 32) as u32);
                prop_assert_eq!(bad[i], u8::from((m as u32) < reject));
                prop_assert!(pos[i] < k);
            }
        }
    }
}
