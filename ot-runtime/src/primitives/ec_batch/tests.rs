//! The IFMA lanes against references: field arithmetic against big
//! integers modulo p, decoding and encoding against dalek's, and the
//! batched multiplication against dalek's multiply-then-encode, at every
//! batch length around the lane count.

use super::*;
use crate::primitives::ec::{random_point, random_scalar};
use crate::primitives::rng::Rng as TestRng;
use curve25519_dalek::traits::Identity;

#[test]
fn both_paths_agree_on_random_batches_of_every_length_near_the_lanes() {
    let mut rng = TestRng::deterministic_for_tests(7);
    for n in (0..=17).chain([31, 64]) {
        let s = random_scalar(&mut rng);
        let points: Vec<Point> = (0..n).map(|_| random_point(&mut rng)).collect();
        let fast = mul_doubled_encodings(s, &points);
        let reference = portable(s, &points, None);
        assert_eq!(fast.0, reference.0, "n = {n}");
        assert_eq!(fast.len(), n);
        // The lanes answered themselves (no fallback to the reference).
        #[cfg(target_arch = "x86_64")]
        if ifma() {
            let lanes = ifma_path(s, &points, None).map(|d| d.0.clone());
            assert_eq!(lanes, Some(reference.0.clone()), "n = {n}");
        }
        // The pairs: the products and the products minus s·q.
        let q = random_point(&mut rng);
        let pairs = mul_doubled_encoding_pairs(s, &points, q);
        assert_eq!(pairs.0, portable(s, &points, Some(q)).0, "pairs, n = {n}");
        assert_eq!(pairs.len(), 2 * n);
        for (i, p) in points.iter().enumerate() {
            let want = Point::double_and_compress_batch([&(p * s), &((p - q) * s)]);
            assert_eq!(pairs.get(2 * i), Some(want[0].as_bytes()));
            assert_eq!(pairs.get(2 * i + 1), Some(want[1].as_bytes()));
        }
        #[cfg(target_arch = "x86_64")]
        if ifma() {
            let lanes = ifma_path(s, &points, Some(q)).map(|d| d.0.clone());
            assert_eq!(lanes, Some(pairs.0.clone()), "pairs, n = {n}");
        }
    }
}

#[test]
fn edge_scalars_and_points_match_the_reference() {
    let mut rng = TestRng::deterministic_for_tests(8);
    let minus_one = -Scalar::ONE;
    let mut points: Vec<Point> = vec![
        Point::identity(),
        crate::primitives::ec::base_mul(Scalar::ONE),
    ];
    points.extend((0..6).map(|_| random_point(&mut rng)));
    points.push(-points[1]);
    for s in [
        Scalar::ZERO,
        Scalar::ONE,
        minus_one,
        Scalar::from(16u64),
        Scalar::from(8u64),
    ] {
        assert_eq!(
            mul_doubled_encodings(s, &points).0,
            portable(s, &points, None).0
        );
        // q equal to a point of the batch gives the identity's encoding.
        let q = points[2];
        let pairs = mul_doubled_encoding_pairs(s, &points, q);
        assert_eq!(pairs.0, portable(s, &points, Some(q)).0);
        assert_eq!(pairs.get(5), Some(&[0u8; 32]));
    }
}

#[test]
fn many_scalars_times_one_point_match_the_reference() {
    let mut rng = TestRng::deterministic_for_tests(10);
    let q = random_point(&mut rng);
    for n in (0..=17).chain([64]) {
        let mut scalars: Vec<Scalar> = (0..n).map(|_| random_scalar(&mut rng)).collect();
        if n > 3 {
            scalars[1] = Scalar::ZERO;
            scalars[2] = -Scalar::ONE;
        }
        let products: Vec<Point> = scalars.iter().map(|s| q * s).collect();
        let want: Vec<[u8; 32]> = if products.is_empty() {
            Vec::new()
        } else {
            Point::double_and_compress_batch(&products)
                .iter()
                .map(CompressedRistretto::to_bytes)
                .collect()
        };
        assert_eq!(mul_each_doubled_encodings(&scalars, q).0, want, "n = {n}");
        assert_eq!(portable_each(&scalars, q).0, want, "n = {n}");
        #[cfg(target_arch = "x86_64")]
        if ifma() {
            assert_eq!(
                ifma_each(&scalars, q).map(|d| d.0.clone()),
                Some(want),
                "n = {n}"
            );
        }
    }
}

#[test]
fn concat_keeps_the_order() {
    let mut rng = TestRng::deterministic_for_tests(9);
    let s = random_scalar(&mut rng);
    let points: Vec<Point> = (0..5).map(|_| random_point(&mut rng)).collect();
    let whole = mul_doubled_encodings(s, &points);
    let parts = concat(
        &mul_doubled_encodings(s, &points[..2]),
        &mul_doubled_encodings(s, &points[2..]),
    );
    assert_eq!(whole.0, parts.0);
    assert_eq!(whole.get(4), parts.get(4));
    assert!(whole.get(5).is_none());
    assert_eq!(format!("{whole:?}"), "DoubledEncodings(5 points, redacted)");
}

#[cfg(target_arch = "x86_64")]
mod lanes_against_references {
    use super::super::curve::{radix16, Point8};
    use super::super::field::{bytes_from_limbs, limbs_from_bytes, Fe, LANES};
    use super::*;
    use num_bigint::BigUint;
    use proptest::prelude::*;

    fn p() -> BigUint {
        (BigUint::from(1u8) << 255u32) - BigUint::from(19u8)
    }

    fn value(l: &[u64; 5]) -> BigUint {
        l.iter().rev().fold(BigUint::from(0u8), |acc, &x| {
            (acc << 51u32) + BigUint::from(x)
        })
    }

    fn limbs_of(v: &BigUint) -> [u64; 5] {
        let mask = BigUint::from((1u64 << 51) - 1);
        std::array::from_fn(|k| {
            let limb = (v >> (51 * k)) & &mask;
            limb.to_u64_digits().first().copied().unwrap_or(0)
        })
    }

    /// Limbs below the bound every operation's output keeps (2^51 + 2^18:
    /// the lowest limb takes 19 times the top carry), so inputs cover the
    /// non-canonical range the lanes really see.
    fn loose_limbs() -> impl Strategy<Value = [[u64; 5]; LANES]> {
        proptest::array::uniform8(proptest::array::uniform5(0u64..(1 << 51) + (1 << 18)))
    }

    #[allow(unsafe_code)]
    fn check_op(
        a: &[[u64; 5]; LANES],
        b: &[[u64; 5]; LANES],
        op: impl Fn(&Fe, &Fe) -> Fe,
        reference: impl Fn(&BigUint, &BigUint) -> BigUint,
    ) -> Result<(), TestCaseError> {
        if !ifma() {
            return Ok(());
        }
        // SAFETY: `ifma()` found AVX-512F and IFMA.
        let got = unsafe { on_lanes_unchecked(a, b, op) };
        for j in 0..LANES {
            let want = reference(&value(&a[j]), &value(&b[j])) % p();
            prop_assert_eq!(&got[j], &want, "lane {}", j);
            prop_assert!(got[j] < p());
        }
        Ok(())
    }

    /// Runs `f` on eight elements given as (possibly non-canonical) limbs
    /// and returns the canonical results as numbers.
    ///
    /// # Safety
    /// The CPU supports AVX-512F and IFMA.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn on_lanes_unchecked(
        a: &[[u64; 5]; LANES],
        b: &[[u64; 5]; LANES],
        f: impl Fn(&Fe, &Fe) -> Fe,
    ) -> Vec<BigUint> {
        let out = Fe::to_limbs(f(&Fe::from_limbs(a), &Fe::from_limbs(b)));
        out.iter().map(value).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]

        #[test]
        fn mul_matches_big_integers(a in loose_limbs(), b in loose_limbs()) {
            // SAFETY (closure): run inside `on_lanes_unchecked`.
            #[allow(unsafe_code)]
            check_op(&a, &b, |x, y| unsafe { x.mul(y) }, |x, y| x * y)?;
        }

        #[test]
        fn square_matches_big_integers(a in loose_limbs()) {
            #[allow(unsafe_code)]
            check_op(&a, &a, |x, _| unsafe { x.square() }, |x, _| x * x)?;
        }

        #[test]
        fn add_and_sub_match_big_integers(a in loose_limbs(), b in loose_limbs()) {
            #[allow(unsafe_code)]
            check_op(&a, &b, |x, y| unsafe { x.add(y) }, |x, y| x + y)?;
            #[allow(unsafe_code)]
            check_op(&a, &b, |x, y| unsafe { x.sub(y) }, |x, y| x + p() * 4u8 - y)?;
        }

        #[test]
        fn sqrt_ratio_matches_its_definition(a in loose_limbs(), b in loose_limbs()) {
            // r² · v equals u (or -u, i·u, -i·u where u/v is no square).
            #[allow(unsafe_code)]
            check_op(&a, &b, |u, v| unsafe {
                let (_, r) = Fe::sqrt_ratio_i(u, v);
                v.mul(&r.square())
            }, |u, v| {
                let p = p();
                let u = u % &p;
                let v = v % &p;
                if v == BigUint::from(0u8) { return BigUint::from(0u8); }
                let i = value(&super::super::field::SQRT_M1);
                let neg_u = (&p - &u) % &p;
                let candidates = [u.clone(), neg_u.clone(), (&i * &u) % &p, (&i * &neg_u) % &p];
                // Which one is a square ratio decides; the test takes the
                // first candidate the lanes can have produced.
                let sq = |x: &BigUint| x.modpow(&((&p - 1u8) >> 1u32), &p) != &p - 1u8;
                let inv_v = v.modpow(&(&p - 2u8), &p);
                candidates.into_iter().find(|c| sq(&((c * &inv_v) % &p))).unwrap_or_default()
            })?;
        }
    }

    #[test]
    fn limbs_round_trip_through_bytes() {
        let mut rng = TestRng::deterministic_for_tests(3);
        for _ in 0..32 {
            let mut b = random_point(&mut rng).compress().to_bytes();
            b[31] &= 0x7f;
            assert_eq!(bytes_from_limbs(limbs_from_bytes(&b)), b);
            assert_eq!(
                limbs_of(&value(&limbs_from_bytes(&b))),
                limbs_from_bytes(&b)
            );
        }
    }

    #[test]
    fn radix16_digits_sum_to_the_scalar() {
        let mut rng = TestRng::deterministic_for_tests(4);
        for s in (0..16)
            .map(|_| random_scalar(&mut rng))
            .chain([-Scalar::ONE, Scalar::ZERO])
        {
            let digits = radix16(&s.to_bytes());
            assert!(digits.iter().all(|d| (-8..=8).contains(d)));
            let sum = digits.iter().rev().fold(Scalar::ZERO, |acc, &d| {
                let term = if d < 0 {
                    -Scalar::from(d.unsigned_abs())
                } else {
                    Scalar::from(d as u64)
                };
                acc * Scalar::from(16u64) + term
            });
            assert_eq!(sum, s);
        }
    }

    /// Decode then encode on the lanes; `true` per lane that failed.
    #[allow(unsafe_code)]
    #[target_feature(enable = "avx512f,avx512ifma")]
    unsafe fn round_trip(encs: &[[u8; 32]; LANES]) -> ([[u8; 32]; LANES], u8) {
        let s = Fe::from_limbs(&encs.map(|e| limbs_from_bytes(&e)));
        let (points, invalid) = Point8::decode(&s, 0xff);
        (points.encode().to_limbs().map(bytes_from_limbs), invalid)
    }

    #[test]
    #[allow(unsafe_code)]
    fn decoding_then_encoding_gives_dalek_s_bytes_back() {
        if !ifma() {
            return;
        }
        let mut rng = TestRng::deterministic_for_tests(5);
        for _ in 0..4 {
            let encs: [[u8; 32]; LANES] =
                std::array::from_fn(|_| random_point(&mut rng).compress().to_bytes());
            // SAFETY: `ifma()` found AVX-512F and IFMA.
            let (back, invalid) = unsafe { round_trip(&encs) };
            assert_eq!(invalid, 0);
            assert_eq!(back, encs);
        }
    }

    #[test]
    #[allow(unsafe_code)]
    fn invalid_encodings_are_reported_per_lane() {
        if !ifma() {
            return;
        }
        let mut rng = TestRng::deterministic_for_tests(6);
        let mut encs: [[u8; 32]; LANES] =
            std::array::from_fn(|_| random_point(&mut rng).compress().to_bytes());
        // Lane 1: a negative s (odd); lane 4: a non-square, found by
        // trying small values dalek refuses.
        encs[1][0] |= 1;
        let refused = (2u8..)
            .map(|v| {
                let mut b = [0u8; 32];
                b[0] = 2 * v;
                b
            })
            .find(|b| CompressedRistretto(*b).decompress().is_none())
            .unwrap_or([2; 32]);
        encs[4] = refused;
        // SAFETY: `ifma()` found AVX-512F and IFMA.
        let (_, invalid) = unsafe { round_trip(&encs) };
        assert_eq!(invalid, 0b0001_0010);
        // The bytes check of `lanes::mul_encoded` catches values >= p.
        let mut above_p = [0xffu8; 32];
        above_p[0] = 0xee;
        above_p[31] = 0x7f;
        assert!(!super::super::lanes::canonical_bytes(&above_p));
        let digits = [[1i64; LANES]; 64];
        let mut batch = encs.to_vec();
        batch[1] = encs[0];
        batch[4] = above_p;
        let mut out = Vec::new();
        // SAFETY: `ifma()` found AVX-512F and IFMA.
        let ok = unsafe { super::super::lanes::mul_encoded(&batch, &digits, None, &mut out) };
        assert!(!ok);
        // A bad offset is refused too.
        batch[4] = encs[0];
        // SAFETY: `ifma()` found AVX-512F and IFMA.
        let ok =
            unsafe { super::super::lanes::mul_encoded(&batch, &digits, Some(&above_p), &mut out) };
        assert!(!ok);
    }
}
