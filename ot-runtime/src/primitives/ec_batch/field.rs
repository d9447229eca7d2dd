//! Eight elements of GF(2^255 - 19) at once, one per 64-bit lane of five
//! AVX-512 registers, multiplied with the 52-bit integer fused
//! multiply-adds of AVX-512 IFMA (`vpmadd52luq` / `vpmadd52huq`).
//!
//! An element is five limbs in radix 2^51 (`x = Σ l_k 2^(51 k)`), each
//! limb in its own register, so lane `j` of the five registers is element
//! `j`. Every operation returns limbs below 2^52 (in fact below
//! 2^51 + 2^18), the input range of the 52-bit multipliers; values are
//! reduced to their canonical form only where a bit of them is needed
//! ([`Fe::canonical`]). Nothing here branches on or indexes by a value.
//!
//! Why radix 2^51 on 52-bit multipliers: a limb product `a_i b_j < 2^104`
//! comes back as its low 52 bits (weight `2^(51(i+j))`) and its high
//! bits (weight `2^(51(i+j)+52)`, i.e. twice a unit of the next column),
//! and the columns past the fifth fold back with `2^255 = 19`, all within
//! 64 bits (see [`Fe::mul`]).

#![allow(unsafe_code)]

use std::arch::x86_64::{
    __m512i, __mmask8, _mm512_add_epi64, _mm512_and_si512, _mm512_cmpeq_epi64_mask,
    _mm512_loadu_si512, _mm512_madd52hi_epu64, _mm512_madd52lo_epu64, _mm512_mask_blend_epi64,
    _mm512_set1_epi64, _mm512_setzero_si512, _mm512_slli_epi64, _mm512_srli_epi64,
    _mm512_storeu_si512, _mm512_sub_epi64, _mm512_test_epi64_mask,
};

/// Lanes per register.
pub(super) const LANES: usize = 8;

const MASK51: u64 = (1 << 51) - 1;

/// Eight field elements (lane `j` of each limb register is element `j`).
#[derive(Clone, Copy)]
pub(super) struct Fe(pub(super) [__m512i; 5]);

/// The limbs of `2p`, added before a subtraction so no limb goes negative.
const TWO_P: [u64; 5] = [
    (1 << 52) - 38,
    (1 << 52) - 2,
    (1 << 52) - 2,
    (1 << 52) - 2,
    (1 << 52) - 2,
];

/// `d = -121665/121666`, the curve constant of edwards25519.
pub(super) const D: [u64; 5] = [
    929955233495203,
    466365720129213,
    1662059464998953,
    2033849074728123,
    1442794654840575,
];
/// `2d`, the constant of the cached form of a point.
pub(super) const D2: [u64; 5] = [
    1859910466990425,
    932731440258426,
    1072319116312658,
    1815898335770999,
    633789495995903,
];
/// The square root of -1 that RFC 9496 fixes (`SQRT_M1`).
pub(super) const SQRT_M1: [u64; 5] = [
    1718705420411056,
    234908883556509,
    2233514472574048,
    2117202627021982,
    765476049583133,
];
/// `1/sqrt(a - d)` with `a = -1`, RFC 9496's `INVSQRT_A_MINUS_D`.
pub(super) const INVSQRT_A_MINUS_D: [u64; 5] = [
    278908739862762,
    821645201101625,
    8113234426968,
    1777959178193151,
    2118520810568447,
];

/// Limbs of one element from its 32-byte little-endian encoding (bit 255
/// ignored).
pub(super) fn limbs_from_bytes(b: &[u8; 32]) -> [u64; 5] {
    let word = |i: usize| {
        let mut w = [0u8; 8];
        w.copy_from_slice(&b[i * 8..i * 8 + 8]);
        u64::from_le_bytes(w)
    };
    let w = [word(0), word(1), word(2), word(3)];
    [
        w[0] & MASK51,
        ((w[0] >> 51) | (w[1] << 13)) & MASK51,
        ((w[1] >> 38) | (w[2] << 26)) & MASK51,
        ((w[2] >> 25) | (w[3] << 39)) & MASK51,
        (w[3] >> 12) & MASK51,
    ]
}

/// The 32-byte little-endian encoding of canonical limbs (each below 2^51,
/// value below p).
pub(super) fn bytes_from_limbs(l: [u64; 5]) -> [u8; 32] {
    let w = [
        l[0] | (l[1] << 51),
        (l[1] >> 13) | (l[2] << 38),
        (l[2] >> 26) | (l[3] << 25),
        (l[3] >> 39) | (l[4] << 12),
    ];
    let mut out = [0u8; 32];
    for (chunk, word) in out.chunks_exact_mut(8).zip(w) {
        chunk.copy_from_slice(&word.to_le_bytes());
    }
    out
}

/// The eight lanes of a register.
#[target_feature(enable = "avx512f")]
pub(super) fn lanes(v: __m512i) -> [u64; LANES] {
    let mut out = [0u64; LANES];
    // SAFETY: `out` is 64 writable bytes; the unaligned store needs only
    // AVX-512F, which every caller of this module has checked.
    unsafe { _mm512_storeu_si512(out.as_mut_ptr().cast(), v) };
    out
}

/// A register holding `lanes`.
#[target_feature(enable = "avx512f")]
pub(super) fn from_lanes(lanes: &[u64; LANES]) -> __m512i {
    // SAFETY: `lanes` is 64 readable bytes; the unaligned load needs only
    // AVX-512F, which every caller of this module has checked.
    unsafe { _mm512_loadu_si512(lanes.as_ptr().cast()) }
}

impl Fe {
    /// Eight elements from their limbs (`limbs[j]` is element `j`).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn from_limbs(limbs: &[[u64; 5]; LANES]) -> Fe {
        let mut regs = [_mm512_setzero_si512(); 5];
        for (k, reg) in regs.iter_mut().enumerate() {
            let column: [u64; LANES] = std::array::from_fn(|j| limbs[j][k]);
            *reg = from_lanes(&column);
        }
        Fe(regs)
    }

    /// The same constant in every lane.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn splat(limbs: [u64; 5]) -> Fe {
        Fe(limbs.map(|l| _mm512_set1_epi64(l as i64)))
    }

    /// Zero in every lane.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn zero() -> Fe {
        Fe::splat([0; 5])
    }

    /// One in every lane.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn one() -> Fe {
        Fe::splat([1, 0, 0, 0, 0])
    }

    /// One carry step in parallel on every limb: limbs below 2^64 come
    /// out below 2^51 + 2^13 (the lowest below 2^51 + 19·2^13), the value
    /// unchanged modulo p.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn carry(z: [__m512i; 5]) -> Fe {
        let mask = _mm512_set1_epi64(MASK51 as i64);
        let c = z.map(|v| _mm512_srli_epi64::<51>(v));
        let l = z.map(|v| _mm512_and_si512(v, mask));
        let nineteen = _mm512_set1_epi64(19);
        Fe([
            // c[4] < 2^13, so 19·c[4] fits the multiplier's 52 bits.
            _mm512_madd52lo_epu64(l[0], c[4], nineteen),
            _mm512_add_epi64(l[1], c[0]),
            _mm512_add_epi64(l[2], c[1]),
            _mm512_add_epi64(l[3], c[2]),
            _mm512_add_epi64(l[4], c[3]),
        ])
    }

    /// `self + other`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn add(&self, other: &Fe) -> Fe {
        Fe::carry(std::array::from_fn(|k| {
            _mm512_add_epi64(self.0[k], other.0[k])
        }))
    }

    /// `self - other`, as `self + 2p - other` so that no limb goes
    /// negative (both inputs' limbs are below `2p`'s).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn sub(&self, other: &Fe) -> Fe {
        Fe::carry(std::array::from_fn(|k| {
            let biased = _mm512_add_epi64(self.0[k], _mm512_set1_epi64(TWO_P[k] as i64));
            _mm512_sub_epi64(biased, other.0[k])
        }))
    }

    /// `-self`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn neg(&self) -> Fe {
        Fe::zero().sub(self)
    }

    /// `self · other`.
    ///
    /// Bounds: limbs below 2^52 give products below 2^104; a column sums
    /// at most five low halves (< 2^52 each) and five doubled high halves
    /// (< 2^53 each), so below 2^56; folding a column past the fifth back
    /// with the factor 19 stays below 2^61, and one [`Fe::carry`] brings
    /// every limb below 2^52 again.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn mul(&self, other: &Fe) -> Fe {
        let (a, b) = (&self.0, &other.0);
        let zero = _mm512_setzero_si512();
        let mut lo = [zero; 9];
        let mut hi = [zero; 10];
        for i in 0..5 {
            for j in 0..5 {
                lo[i + j] = _mm512_madd52lo_epu64(lo[i + j], a[i], b[j]);
                hi[i + j + 1] = _mm512_madd52hi_epu64(hi[i + j + 1], a[i], b[j]);
            }
        }
        Fe::fold(lo, hi)
    }

    /// `self²`, with each cross product computed once and doubled.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn square(&self) -> Fe {
        let a = &self.0;
        let zero = _mm512_setzero_si512();
        let mut lo = [zero; 9];
        let mut hi = [zero; 10];
        for i in 0..5 {
            for j in i + 1..5 {
                lo[i + j] = _mm512_madd52lo_epu64(lo[i + j], a[i], a[j]);
                hi[i + j + 1] = _mm512_madd52hi_epu64(hi[i + j + 1], a[i], a[j]);
            }
        }
        for l in lo.iter_mut() {
            *l = _mm512_slli_epi64::<1>(*l);
        }
        for h in hi.iter_mut() {
            *h = _mm512_slli_epi64::<1>(*h);
        }
        for i in 0..5 {
            lo[2 * i] = _mm512_madd52lo_epu64(lo[2 * i], a[i], a[i]);
            hi[2 * i + 1] = _mm512_madd52hi_epu64(hi[2 * i + 1], a[i], a[i]);
        }
        Fe::fold(lo, hi)
    }

    /// The columns `lo[k] + 2·hi[k]` (weight `2^(51 k)`) reduced to five
    /// limbs: columns 5..9 fold into 0..4 times 19 (`2^255 = 19 mod p`).
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn fold(lo: [__m512i; 9], hi: [__m512i; 10]) -> Fe {
        let column = |k: usize| {
            let h = _mm512_slli_epi64::<1>(hi[k]);
            if k < 9 {
                _mm512_add_epi64(lo[k], h)
            } else {
                h
            }
        };
        let times19 = |x: __m512i| {
            let x3 = _mm512_add_epi64(x, _mm512_slli_epi64::<1>(x));
            _mm512_add_epi64(x3, _mm512_slli_epi64::<4>(x))
        };
        Fe::carry(std::array::from_fn(|k| {
            _mm512_add_epi64(column(k), times19(column(k + 5)))
        }))
    }

    /// `self^(2^k)`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn pow2k(&self, k: u32) -> Fe {
        let mut x = *self;
        for _ in 0..k {
            x = x.square();
        }
        x
    }

    /// `(self^(2^250 - 1), self^11)`, the common start of inversion and
    /// square roots (an addition chain of 254 squarings and 11
    /// multiplications).
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn pow22501(&self) -> (Fe, Fe) {
        let t0 = self.square();
        let t1 = t0.pow2k(2);
        let t2 = self.mul(&t1);
        let t3 = t0.mul(&t2);
        let t4 = t3.square();
        let t5 = t2.mul(&t4);
        let t7 = t5.pow2k(5).mul(&t5);
        let t9 = t7.pow2k(10).mul(&t7);
        let t11 = t9.pow2k(20).mul(&t9);
        let t13 = t11.pow2k(10).mul(&t7);
        let t15 = t13.pow2k(50).mul(&t13);
        let t17 = t15.pow2k(100).mul(&t15);
        let t19 = t17.pow2k(50).mul(&t13);
        (t19, t3)
    }

    /// `self^((p - 5) / 8) = self^(2^252 - 3)`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn pow_p58(&self) -> Fe {
        let (t19, _) = self.pow22501();
        t19.pow2k(2).mul(self)
    }

    /// The canonical limbs (each below 2^51, value below p).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn canonical(&self) -> [__m512i; 5] {
        let l = Fe::carry(Fe::carry(self.0).0).0;
        let mask = _mm512_set1_epi64(MASK51 as i64);
        // q = 1 exactly when the value is at least p: add 19 and see
        // whether it carries out of bit 255.
        let mut q = _mm512_srli_epi64::<51>(_mm512_add_epi64(l[0], _mm512_set1_epi64(19)));
        for limb in &l[1..] {
            q = _mm512_srli_epi64::<51>(_mm512_add_epi64(*limb, q));
        }
        let nineteen = _mm512_set1_epi64(19);
        let mut out = l;
        out[0] = _mm512_madd52lo_epu64(out[0], q, nineteen);
        for k in 0..4 {
            let c = _mm512_srli_epi64::<51>(out[k]);
            out[k] = _mm512_and_si512(out[k], mask);
            out[k + 1] = _mm512_add_epi64(out[k + 1], c);
        }
        out[4] = _mm512_and_si512(out[4], mask);
        out
    }

    /// Lanes whose element is "negative" (odd canonical value, RFC 9496).
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn is_negative(&self) -> __mmask8 {
        _mm512_test_epi64_mask(self.canonical()[0], _mm512_set1_epi64(1))
    }

    /// Lanes where `self == other`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn equals(&self, other: &Fe) -> __mmask8 {
        let (a, b) = (self.canonical(), other.canonical());
        (0..5).fold(0xff, |m, k| m & _mm512_cmpeq_epi64_mask(a[k], b[k]))
    }

    /// Lanes where `self == 0`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn is_zero(&self) -> __mmask8 {
        self.equals(&Fe::zero())
    }

    /// Per lane, `if_set` where `mask` has the lane's bit, else `self`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn select(&self, mask: __mmask8, if_set: &Fe) -> Fe {
        Fe(std::array::from_fn(|k| {
            _mm512_mask_blend_epi64(mask, self.0[k], if_set.0[k])
        }))
    }

    /// `|self|`: the element or its negation, whichever is non-negative.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn abs(&self) -> Fe {
        self.select(self.is_negative(), &self.neg())
    }

    /// RFC 9496's `SQRT_RATIO_M1(u, v)`: lanes where `u/v` is a square
    /// (or `u = 0`), and per lane the non-negative square root of `u/v`,
    /// or of `i·u/v` where `u/v` is not a square.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn sqrt_ratio_i(u: &Fe, v: &Fe) -> (__mmask8, Fe) {
        let v3 = v.square().mul(v);
        let v7 = v3.square().mul(v);
        let r = u.mul(&v3).mul(&u.mul(&v7).pow_p58());
        let check = v.mul(&r.square());
        let u_neg = u.neg();
        let correct = check.equals(u);
        let flipped = check.equals(&u_neg);
        let flipped_i = check.equals(&u_neg.mul(&Fe::splat(SQRT_M1)));
        let r = r.select(flipped | flipped_i, &r.mul(&Fe::splat(SQRT_M1)));
        (correct | flipped, r.abs())
    }

    /// Per lane, the canonical limbs.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn to_limbs(self) -> [[u64; 5]; LANES] {
        let regs = self.canonical().map(|v| lanes(v));
        std::array::from_fn(|j| std::array::from_fn(|k| regs[k][j]))
    }
}
