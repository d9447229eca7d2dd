//! Paillier on GMP (`ot_runtime::orlandi::paillier`): known answers on small keys,
//! decryption of encryptions and the homomorphisms (proptest, 1024-bit
//! key), one 2048-bit round trip, and malformed ciphertexts as typed errors;
//! the side-channel silent exponentiation kernels (Straus
//! multi-exponentiation, fixed-base tables, the key owner's CRT encryption,
//! `mul_plain`) against `pow_mod` (proptest, and fixed edge cases:
//! exponent 0, all-ones digits, single top bits, the bound's limits).

// Written for both big-integer backends: GMP's (feature `gmp`) arithmetic
// on references yields incomplete values that `Integer::from` completes.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use std::sync::OnceLock;

use ot_runtime::orlandi::paillier::{
    multi_exp, Ciphertext, FixedBase, KeySize, PaillierError, PublicKey, SecretKey,
};
use ot_runtime::primitives::bignum::{Integer, Order};
use ot_runtime::primitives::rng::Rng;
use proptest::prelude::*;

fn key() -> &'static SecretKey {
    static K: OnceLock<SecretKey> = OnceLock::new();
    K.get_or_init(|| SecretKey::generate(KeySize::Bits1024, &mut Rng::deterministic_for_tests(7)))
}

fn small(p: u64, q: u64) -> SecretKey {
    SecretKey::from_primes(p.into(), q.into(), &mut Rng::deterministic_for_tests(1)).expect("key")
}

#[test]
fn known_answers_on_small_keys() {
    // (1 + m·n)·r^n mod n², computed independently.
    let sk = small(11, 19);
    let c = sk
        .public()
        .encrypt_with_r(&Integer::from(5), &Integer::from(3))
        .expect("enc");
    assert_eq!(*c.as_integer(), 8617);
    assert_eq!(sk.decrypt(&c), 5);

    let sk = small(1_000_003, 999_983);
    assert_eq!(*sk.public().n(), 999_985_999_949u64);
    let c = sk
        .public()
        .encrypt_with_r(&Integer::from(123_456_789), &Integer::from(987_654_321))
        .expect("enc");
    let want: Integer = "829501897890584577626938".parse().expect("int");
    assert_eq!(*c.as_integer(), want);
    assert_eq!(sk.decrypt(&c), 123_456_789);
}

#[test]
fn short_randomizer_is_h_s_to_the_alpha() {
    let pk = key().public();
    let alpha = Integer::from(0x1234_5678_9abc_def0u64) << 400;
    let c = pk
        .encrypt_with_alpha(&Integer::from(42), &alpha)
        .expect("enc");
    let r = pk
        .h_s()
        .clone()
        .pow_mod(&alpha, pk.n_squared())
        .expect("pow");
    let want = (Integer::from(pk.n() * 42u32) + 1u32) * r % pk.n_squared();
    assert_eq!(*c.as_integer(), want);
    assert_eq!(key().decrypt(&c), 42);
}

#[test]
fn a_2048_bit_key_round_trips() {
    let mut rng = Rng::from_entropy();
    let sk = SecretKey::generate(KeySize::default(), &mut rng);
    assert_eq!(sk.public().n().significant_bits(), 2048);
    let m = Integer::from(sk.public().n() - 12345u32);
    let (c, _) = sk.public().encrypt(&m, &mut rng).expect("enc");
    assert_eq!(sk.decrypt(&c), m);
    let bytes = sk.public().to_bytes(&c);
    assert_eq!(bytes.len(), 512);
    assert_eq!(sk.public().ciphertext_from_bytes(&bytes), Ok(c));
}

#[test]
fn malformed_ciphertexts_and_plaintexts_are_typed_errors() {
    let sk = small(1_000_003, 999_983);
    let pk = sk.public();
    let len = pk.ciphertext_len();
    assert_eq!(
        pk.ciphertext_from_bytes(&vec![1; len + 1]),
        Err(PaillierError::Length {
            expected: len,
            got: len + 1
        })
    );
    assert_eq!(
        pk.ciphertext_from_bytes(&vec![0; len]),
        Err(PaillierError::NotAUnit)
    );
    assert_eq!(
        pk.ciphertext_from_bytes(&vec![0xff; len]),
        Err(PaillierError::NotAUnit)
    );
    assert_eq!(
        pk.ciphertext(Integer::from(1_000_003u64 * 5)),
        Err(PaillierError::NotAUnit)
    );
    assert_eq!(
        pk.ciphertext(pk.n_squared().clone()),
        Err(PaillierError::NotAUnit)
    );
    assert!(pk.ciphertext(Integer::from(2)).is_ok());
    let mut rng = Rng::from_entropy();
    assert_eq!(
        pk.encrypt(pk.n(), &mut rng).err(),
        Some(PaillierError::PlaintextRange)
    );
    assert_eq!(
        pk.encrypt(&Integer::from(-1), &mut rng).err(),
        Some(PaillierError::PlaintextRange)
    );
    assert!(matches!(
        SecretKey::from_primes(Integer::from(15), Integer::from(17), &mut rng),
        Err(PaillierError::BadKey(_))
    ));
    // Primes that are not 3 mod 4 make no Blum modulus (paillier::blum).
    assert_eq!(
        SecretKey::from_primes(Integer::from(13), Integer::from(19), &mut rng).err(),
        Some(PaillierError::BadKey("p or q is not 3 mod 4"))
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    #[test]
    fn decryption_inverts_encryption_and_homomorphisms_hold(a in any::<u128>(), b in any::<u128>(), k in any::<u64>()) {
        let sk = key();
        let pk = sk.public();
        let mut rng = Rng::from_entropy();
        let (a, b, k) = (Integer::from(a), Integer::from(b), Integer::from(k));
        let (ca, _) = pk.encrypt(&a, &mut rng).expect("enc");
        let (cb, _) = pk.encrypt(&b, &mut rng).expect("enc");
        prop_assert_eq!(sk.decrypt(&ca), a.clone());
        prop_assert_eq!(sk.decrypt(&pk.add(&ca, &cb)), Integer::from(&a + &b));
        prop_assert_eq!(sk.decrypt(&pk.mul_plain(&ca, &k)), Integer::from(&a * &k));
        // k = 0 goes through the same constant-time path.
        prop_assert_eq!(sk.decrypt(&pk.mul_plain(&ca, &Integer::new())), Integer::new());
        prop_assert_eq!(pk.mul_plain(&ca, &k), Ciphertext::from_reference(pk, &ca, &k));
        prop_assert_eq!(sk.decrypt(&pk.add_plain(&ca, &k)), Integer::from(&a + &k));
        let bytes = pk.to_bytes(&ca);
        prop_assert_eq!(pk.ciphertext_from_bytes(&bytes), Ok(ca));
    }

    #[test]
    fn multi_exp_is_the_product_of_powers(
        bases in proptest::collection::vec(any::<u128>(), 0..5),
        exps in proptest::collection::vec(proptest::collection::vec(any::<u64>(), 0..5), 5),
    ) {
        let n2 = key().public().n_squared();
        let k = bases.len();
        let bases: Vec<Integer> = bases.into_iter().map(|b| Integer::from(b) * 0x1_0000_0001u64 + 2u32).collect();
        // Exponents of 0 to 256 bits (253 bits is Triple Generation's).
        let exps: Vec<Integer> = exps[..k]
            .iter()
            .map(|limbs| Integer::from_digits(limbs, Order::Lsf))
            .collect();
        let naive = bases.iter().zip(&exps).fold(Integer::from(1), |acc, (b, e)| {
            acc * b.clone().pow_mod(e, n2).expect("pow") % n2
        });
        prop_assert_eq!(multi_exp(&bases, &exps, 256, n2), Some(naive.clone()));
        // A looser bound gives the same product (more leading zero digits).
        prop_assert_eq!(multi_exp(&bases, &exps, 301, n2), Some(naive));
    }

    #[test]
    fn fixed_base_and_crt_encryption_match_the_reference(e in any::<[u64; 16]>(), m in any::<u128>(), w in 1u32..9) {
        let sk = key();
        let pk = sk.public();
        let e = Integer::from_digits(&e, Order::Lsf).keep_bits(pk.randomizer_bits());
        let t = FixedBase::new(pk.h_s(), pk.n_squared(), pk.randomizer_bits(), w);
        prop_assert_eq!(t.pow(&e, pk.n_squared()), pk.h_s().clone().pow_mod(&e, pk.n_squared()).expect("pow"));
        let m = Integer::from(m);
        prop_assert_eq!(sk.encrypt_with_alpha(&m, &e), pk.encrypt_with_alpha(&m, &e));
    }
}

/// `c^k mod n²` by GMP's `pow_mod` (the reference for `mul_plain`).
trait Reference {
    fn from_reference(pk: &PublicKey, c: &Ciphertext, k: &Integer) -> Ciphertext;
}

impl Reference for Ciphertext {
    fn from_reference(pk: &PublicKey, c: &Ciphertext, k: &Integer) -> Ciphertext {
        let v = c
            .as_integer()
            .clone()
            .pow_mod(k, pk.n_squared())
            .expect("pow");
        pk.ciphertext(v).expect("unit")
    }
}

/// Exponents that stress the digit handling: 0, all ones (every digit the
/// table's last entry), single bits at the top and at window and limb
/// boundaries, alternating patterns, and the bound itself.
fn edge_exponents(bits: u32) -> Vec<Integer> {
    let ones = (Integer::from(1) << bits) - 1u32;
    let mut v = vec![
        Integer::new(),
        Integer::from(1),
        ones.clone(),
        Integer::from(1) << (bits - 1),
        Integer::from(&ones >> 1),
        Integer::from(&ones ^ 1u32),
        &ones ^ (Integer::from(1) << (bits - 1)),
    ];
    for at in [3u32, 4, 5, 63, 64, 65, 127, 128, 252] {
        if at < bits {
            v.push(Integer::from(1) << at);
            v.push(&ones ^ (Integer::from(1) << at));
        }
    }
    let mut alt = Integer::new();
    for i in (0..bits).step_by(2) {
        alt.set_bit(i, true);
    }
    v.push(Integer::from(&ones ^ &alt));
    v.push(alt);
    v
}

#[test]
fn secret_exponentiations_match_pow_mod_on_edge_exponents() {
    let sk = key();
    let pk = sk.public();
    let n2 = pk.n_squared();
    let mut rng = Rng::deterministic_for_tests(11);
    let c = pk.encrypt(&Integer::from(77), &mut rng).expect("enc").0;
    let d = pk.encrypt(&Integer::from(78), &mut rng).expect("enc").0;
    let pow = |b: &Integer, e: &Integer| b.clone().pow_mod(e, n2).expect("pow");
    // Triple Generation's bound (253 bits) and a limb-aligned one.
    for bits in [253u32, 256] {
        let es = edge_exponents(bits);
        for e in &es {
            for f in [&es[0], &es[2], e] {
                let bases = [c.as_integer().clone(), d.as_integer().clone()];
                let want = pow(&bases[0], e) * pow(&bases[1], f) % n2;
                let exps = [e.clone(), f.clone()];
                assert_eq!(
                    multi_exp(&bases, &exps, bits, n2),
                    Some(want),
                    "{e:x}, {f:x}"
                );
            }
            assert_eq!(pk.mul_plain(&c, e), Ciphertext::from_reference(pk, &c, e));
        }
    }
    // The short randomizers: the public key's table and the CRT halves.
    for e in edge_exponents(pk.randomizer_bits()) {
        let want = pow(pk.h_s(), &e);
        let m = Integer::from(5);
        let enc = pk.encrypt_with_alpha(&m, &e).expect("enc");
        let g = (Integer::from(pk.n() * 5u32) + 1u32) * &want % n2;
        assert_eq!(*enc.as_integer(), g, "{e:x}");
        assert_eq!(sk.encrypt_with_alpha(&m, &e), Ok(enc));
    }
}

#[test]
fn secret_multi_exp_refuses_bad_input() {
    let n2 = key().public().n_squared();
    let b = [Integer::from(3), Integer::from(5)];
    let long = Integer::from(1) << 253u32;
    assert_eq!(multi_exp(&b, &[Integer::from(1)], 253, n2), None);
    assert_eq!(
        multi_exp(&b[..1], std::slice::from_ref(&long), 253, n2),
        None
    );
    assert_eq!(multi_exp(&b[..1], &[Integer::from(-1)], 253, n2), None);
    assert_eq!(
        multi_exp(&b[..1], &[Integer::from(1)], 253, &Integer::new()),
        None
    );
    assert_eq!(
        multi_exp(&b[..1], std::slice::from_ref(&long), 254, n2),
        Some(Integer::from(3).pow_mod(&long, n2).expect("pow"))
    );
    assert_eq!(
        multi_exp(&[], &[] as &[Integer], 253, n2),
        Some(Integer::from(1))
    );
    // A modulus of one: every product is 0.
    assert_eq!(
        multi_exp(
            &b,
            &[Integer::from(2), Integer::from(3)],
            8,
            &Integer::from(1)
        ),
        Some(Integer::new())
    );
}

#[test]
fn fixed_base_covers_small_moduli_and_windows() {
    // Table entries of every limb-length regime (the stored offset) and
    // windows that do and do not divide the exponent size.
    for m in [
        Integer::from(1_000_003u64 * 999_983),
        (Integer::from(1) << 127u32) - 1u32,
    ] {
        let b = Integer::from(12345u32);
        for w in [1u32, 3, 5, 8] {
            let t = FixedBase::new(&b, &m, 61, w);
            for e in edge_exponents(61) {
                assert_eq!(t.pow(&e, &m), b.clone().pow_mod(&e, &m).expect("pow"));
            }
        }
    }
}
