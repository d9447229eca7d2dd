//! Eight Ristretto255 points at once on the lanes of [`Fe`]: decoding and
//! encoding (RFC 9496, §4.3.1 and §4.3.2), the twisted Edwards group law
//! in extended coordinates (Hisil–Wong–Carter–Dawson, "Twisted Edwards
//! Curves Revisited", ASIACRYPT 2008, with `a = -1`: the unified addition
//! with `k = 2d` and the doubling that does not read `T`, the formulas the
//! Explicit-Formulas Database lists as add-2008-hwcd-3 and dbl-2008-hwcd) and
//! a variable-base multiplication with a scalar per lane (signed radix-16
//! digits, a table of eight multiples per lane read by a masked scan).
//! No branch or memory address depends on a point or a scalar.

use std::arch::x86_64::{
    __m512i, __mmask8, _mm512_abs_epi64, _mm512_cmpeq_epi64_mask, _mm512_cmplt_epi64_mask,
    _mm512_set1_epi64, _mm512_setzero_si512,
};

use super::field::{from_lanes, Fe, D, D2, INVSQRT_A_MINUS_D, LANES, SQRT_M1};

/// Eight points in extended coordinates: `x = X/Z`, `y = Y/Z`, `XY = ZT`.
#[derive(Clone, Copy)]
pub(super) struct Point8 {
    x: Fe,
    y: Fe,
    z: Fe,
    t: Fe,
}

/// Eight points in the cached form `(Y + X, Y - X, 2Z, 2d·T)` that an
/// addition takes as its second operand.
#[derive(Clone, Copy)]
struct Cached8 {
    y_plus_x: Fe,
    y_minus_x: Fe,
    z2: Fe,
    t2d: Fe,
}

impl Point8 {
    /// The identity `(0, 1, 1, 0)` in every lane.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn identity() -> Point8 {
        Point8 {
            x: Fe::zero(),
            y: Fe::one(),
            z: Fe::one(),
            t: Fe::zero(),
        }
    }

    /// RFC 9496 §4.3.1 on eight encodings (`s` holds their field
    /// elements): the points, and the lanes whose encoding was invalid
    /// (non-canonical or negative `s`, non-square, negative `t` or zero
    /// `y`). `canonical` marks the lanes whose bytes were below p with bit
    /// 255 clear, which the caller checked on the bytes.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn decode(s: &Fe, canonical: __mmask8) -> (Point8, __mmask8) {
        let one = Fe::one();
        let ss = s.square();
        let u1 = one.sub(&ss);
        let u2 = one.add(&ss);
        let u2_sqr = u2.square();
        let v = Fe::splat(D).mul(&u1.square()).neg().sub(&u2_sqr);
        let (was_square, invsqrt) = Fe::sqrt_ratio_i(&one, &v.mul(&u2_sqr));
        let den_x = invsqrt.mul(&u2);
        let den_y = invsqrt.mul(&den_x).mul(&v);
        let x = s.add(s).mul(&den_x).abs();
        let y = u1.mul(&den_y);
        let t = x.mul(&y);
        let valid = canonical & !s.is_negative() & was_square & !t.is_negative() & !y.is_zero();
        let point = Point8 { x, y, z: one, t };
        (point, !valid)
    }

    /// RFC 9496 §4.3.2: the canonical field element `s` of each lane's
    /// encoding.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn encode(&self) -> Fe {
        let Point8 { x, y, z, t } = *self;
        let u1 = z.add(&y).mul(&z.sub(&y));
        let u2 = x.mul(&y);
        let (_, invsqrt) = Fe::sqrt_ratio_i(&Fe::one(), &u1.mul(&u2.square()));
        let den1 = invsqrt.mul(&u1);
        let den2 = invsqrt.mul(&u2);
        let z_inv = den1.mul(&den2).mul(&t);
        let sqrt_m1 = Fe::splat(SQRT_M1);
        let ix0 = x.mul(&sqrt_m1);
        let iy0 = y.mul(&sqrt_m1);
        let enchanted = den1.mul(&Fe::splat(INVSQRT_A_MINUS_D));
        let rotate = t.mul(&z_inv).is_negative();
        let x = x.select(rotate, &iy0);
        let y = y.select(rotate, &ix0);
        let den_inv = den2.select(rotate, &enchanted);
        let y = y.select(x.mul(&z_inv).is_negative(), &y.neg());
        den_inv.mul(&z.sub(&y)).abs()
    }

    /// `2·self`; `with_t` computes `T` too (only an addition reads it).
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn double(&self, with_t: bool) -> Point8 {
        let a = self.x.square();
        let b = self.y.square();
        let c = self.z.square();
        let c = c.add(&c);
        let h = a.add(&b);
        let e = h.sub(&self.x.add(&self.y).square());
        let g = a.sub(&b);
        let f = c.add(&g);
        Point8 {
            x: e.mul(&f),
            y: g.mul(&h),
            z: f.mul(&g),
            t: if with_t { e.mul(&h) } else { Fe::zero() },
        }
    }

    /// `self + other` (the unified formula, so also for equal points).
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn add_cached(&self, other: &Cached8) -> Point8 {
        let a = self.y.sub(&self.x).mul(&other.y_minus_x);
        let b = self.y.add(&self.x).mul(&other.y_plus_x);
        let c = self.t.mul(&other.t2d);
        let d = self.z.mul(&other.z2);
        let e = b.sub(&a);
        let f = d.sub(&c);
        let g = d.add(&c);
        let h = b.add(&a);
        Point8 {
            x: e.mul(&f),
            y: g.mul(&h),
            z: f.mul(&g),
            t: e.mul(&h),
        }
    }

    /// `self - other`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn sub(&self, other: &Point8) -> Point8 {
        let negated = Point8 {
            x: other.x.neg(),
            y: other.y,
            z: other.z,
            t: other.t.neg(),
        };
        self.add_cached(&negated.cached())
    }

    /// The cached form of `self`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn cached(&self) -> Cached8 {
        Cached8 {
            y_plus_x: self.y.add(&self.x),
            y_minus_x: self.y.sub(&self.x),
            z2: self.z.add(&self.z),
            t2d: self.t.mul(&Fe::splat(D2)),
        }
    }

    /// `digits`-weighted multiple of each lane's point: lane `j` gets
    /// `Σ_i digits[i][j] 16^i · P_j` with every digit in `[-8, 8]`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn mul_digits(&self, digits: &[[i64; LANES]; 64]) -> Point8 {
        let base = self.cached();
        let mut table = [base; 8];
        let mut multiple = *self;
        for entry in table.iter_mut().skip(1) {
            multiple = multiple.add_cached(&base);
            *entry = multiple.cached();
        }
        let mut acc = Point8::identity();
        for (i, column) in digits.iter().enumerate().rev() {
            if i != 63 {
                acc = acc.double(false).double(false).double(false).double(true);
            }
            let lanes_digits: [u64; LANES] = column.map(|d| d as u64);
            acc = acc.add_cached(&Cached8::select(&table, from_lanes(&lanes_digits)));
        }
        acc
    }
}

impl Cached8 {
    /// The identity in cached form, `(1, 1, 2, 0)`.
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn identity() -> Cached8 {
        Cached8 {
            y_plus_x: Fe::one(),
            y_minus_x: Fe::one(),
            z2: Fe::splat([2, 0, 0, 0, 0]),
            t2d: Fe::zero(),
        }
    }

    /// Per lane `digit·P` from the lane's `table` of `P, 2P, ..., 8P`
    /// (`digit` in `[-8, 8]`): every entry is read and masked in, and a
    /// negative digit negates the result (swap `Y ± X`, negate `2d·T`).
    #[target_feature(enable = "avx512f,avx512ifma")]
    fn select(table: &[Cached8; 8], digit: __m512i) -> Cached8 {
        let magnitude = _mm512_abs_epi64(digit);
        let mut out = Cached8::identity();
        for (j, entry) in table.iter().enumerate() {
            let hit = _mm512_cmpeq_epi64_mask(magnitude, _mm512_set1_epi64(j as i64 + 1));
            out = Cached8 {
                y_plus_x: out.y_plus_x.select(hit, &entry.y_plus_x),
                y_minus_x: out.y_minus_x.select(hit, &entry.y_minus_x),
                z2: out.z2.select(hit, &entry.z2),
                t2d: out.t2d.select(hit, &entry.t2d),
            };
        }
        let negative = _mm512_cmplt_epi64_mask(digit, _mm512_setzero_si512());
        Cached8 {
            y_plus_x: out.y_plus_x.select(negative, &out.y_minus_x),
            y_minus_x: out.y_minus_x.select(negative, &out.y_plus_x),
            z2: out.z2,
            t2d: out.t2d.select(negative, &out.t2d.neg()),
        }
    }
}

/// The signed radix-16 digits of a scalar below 2^255 (little-endian
/// bytes): 64 digits in `[-8, 8)`, the last in `[-8, 8]`, with
/// `Σ d_i 16^i` equal to the scalar.
pub(super) fn radix16(bytes: &[u8; 32]) -> [i64; 64] {
    let mut digits = [0i64; 64];
    for (i, byte) in bytes.iter().enumerate() {
        digits[2 * i] = i64::from(byte & 15);
        digits[2 * i + 1] = i64::from(byte >> 4);
    }
    for i in 0..63 {
        let carry = (digits[i] + 8) >> 4;
        digits[i] -= carry << 4;
        digits[i + 1] += carry;
    }
    digits
}
