//! AVX-512 backend of the BIPSW table evaluation (see
//! [`super::bipsw::BipswTables::eval`]): each table entry is loaded as three
//! 128-bit registers (the Z_2 half and the two Z_3 planes) and added with
//! `vpternlogd` (AVX-512VL), so one Z_6^128 addition is five vector
//! instructions instead of sixteen 64-bit ones. Four independent
//! accumulators keep the three-instruction dependency chain of the Z_3
//! addition off the critical path.
#![allow(unsafe_code)]

use super::bipsw::{INPUT_BLOCKS, KEY_LEN};
use super::z3::{Z3, Z6};
use crate::Block;
use core::arch::x86_64::*;

/// Whether this CPU can run the backend (AVX-512F and AVX-512VL).
pub fn is_supported() -> bool {
    crate::primitives::backend::Backend::is_supported(super::bipsw::EvalBackend::Avx512)
}

/// `F(k, x)` from the 8-bit-chunk tables. Callers dispatch here only after
/// [`is_supported`].
pub fn eval(tables: &[[Z6; 256]], x: &[Block; INPUT_BLOCKS]) -> Z6 {
    assert!(tables.len() == KEY_LEN / 8 && is_supported());
    // SAFETY: AVX-512F and AVX-512VL were detected just above, and there is
    // one table per input byte (checked above).
    unsafe { eval_avx512(tables, x) }
}

/// One accumulator: `[two, h, l]`.
#[derive(Copy, Clone)]
struct Acc([__m128i; 3]);

impl Acc {
    #[inline(always)]
    fn zero() -> Acc {
        // SAFETY: SSE2 is part of the x86_64 baseline.
        unsafe { Acc([_mm_setzero_si128(); 3]) }
    }

    /// `self + [bt, bh, bl]` (Z_2: XOR; Z_3: the formulas of [`Z3`]'s `Add`:
    /// `h = (l ^ bh) & (h ^ bl)`, `l = (l ^ bl) | (h ^ bl ^ bh)`).
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    unsafe fn add(self, bt: __m128i, bh: __m128i, bl: __m128i) -> Acc {
        let [t2, h, l] = self.0;
        let t = _mm_xor_si128(h, bl);
        // (A ^ B) & C = 0x28, (A ^ B ^ C) = 0x96, (A ^ B) | C = 0xBE.
        let nh = _mm_ternarylogic_epi32::<0x28>(l, bh, t);
        let nl = _mm_ternarylogic_epi32::<0xBE>(l, bl, _mm_xor_si128(t, bh));
        Acc([_mm_xor_si128(t2, bt), nh, nl])
    }

    /// `self + b` for another accumulator.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    unsafe fn add_acc(self, b: Acc) -> Acc {
        let [bt, bh, bl] = b.0;
        // SAFETY: the caller enabled the same features.
        unsafe { self.add(bt, bh, bl) }
    }

    /// `self + e` for a table entry.
    #[inline]
    #[target_feature(enable = "avx512f,avx512vl")]
    unsafe fn add_entry(self, e: &Z6) -> Acc {
        let p = e as *const Z6 as *const __m128i;
        // SAFETY: `Z6` is `repr(C, align(16))` with three `u128` fields, so
        // `p`, `p + 1`, `p + 2` are aligned 16-byte reads inside `*e`.
        unsafe {
            self.add(
                _mm_load_si128(p),
                _mm_load_si128(p.add(1)),
                _mm_load_si128(p.add(2)),
            )
        }
    }

    /// The accumulator as a `Z6`.
    fn get(self) -> Z6 {
        let u = |v: __m128i| -> u128 { bytemuck::cast(v) };
        Z6 {
            two: u(self.0[0]),
            three: Z3 {
                h: u(self.0[1]),
                l: u(self.0[2]),
            },
        }
    }
}

#[target_feature(enable = "avx512f,avx512vl")]
unsafe fn eval_avx512(tables: &[[Z6; 256]], x: &[Block; INPUT_BLOCKS]) -> Z6 {
    let bytes: &[u8; 16 * INPUT_BLOCKS] = bytemuck::cast_ref(x);
    let mut acc = [Acc::zero(); 4];
    for (t, v) in tables.chunks_exact(4).zip(bytes.chunks_exact(4)) {
        for a in 0..4 {
            // SAFETY: the features are enabled on this function.
            acc[a] = unsafe { acc[a].add_entry(&t[a][usize::from(v[a])]) };
        }
    }
    let [a0, a1, a2, a3] = acc;
    // SAFETY: the features are enabled on this function.
    unsafe { a0.add_acc(a1).add_acc(a2.add_acc(a3)) }.get()
}
