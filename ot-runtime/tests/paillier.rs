//! Paillier on GMP (`ot_runtime::paillier`): known answers on small keys,
//! decryption of encryptions and the homomorphisms (proptest, 1024-bit
//! key), one 2048-bit round trip, and malformed ciphertexts as typed errors;
//! the exponentiation kernels (Straus multi-exponentiation, fixed-base
//! tables, the key owner's CRT encryption) against `pow_mod` (proptest).

use std::sync::OnceLock;

use ot_runtime::paillier::{multi_exp, FixedBase, KeySize, PaillierError, SecretKey};
use ot_runtime::rng::Rng;
use proptest::prelude::*;
use rug::Integer;

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
    let sk = small(13, 17);
    let c = sk
        .public()
        .encrypt_with_r(&Integer::from(5), &Integer::from(3))
        .expect("enc");
    assert_eq!(*c.as_integer(), 11657);
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
        // k = 0 is outside `mpz_powm_sec`'s domain: handled apart.
        prop_assert_eq!(sk.decrypt(&pk.mul_plain(&ca, &Integer::new())), Integer::new());
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
            .map(|limbs| Integer::from_digits(limbs, rug::integer::Order::Lsf))
            .collect();
        let naive = bases.iter().zip(&exps).fold(Integer::from(1), |acc, (b, e)| {
            acc * b.clone().pow_mod(e, n2).expect("pow") % n2
        });
        prop_assert_eq!(multi_exp(&bases, &exps, n2), Some(naive));
    }

    #[test]
    fn fixed_base_and_crt_encryption_match_the_reference(e in any::<[u64; 16]>(), m in any::<u128>(), w in 1u32..9) {
        let sk = key();
        let pk = sk.public();
        let e = Integer::from_digits(&e, rug::integer::Order::Lsf).keep_bits(pk.randomizer_bits());
        let t = FixedBase::new(pk.h_s(), pk.n_squared(), pk.randomizer_bits(), w);
        prop_assert_eq!(t.pow(&e, pk.n_squared()), pk.h_s().clone().pow_mod(&e, pk.n_squared()).expect("pow"));
        let m = Integer::from(m);
        prop_assert_eq!(sk.encrypt_with_alpha(&m, &e), pk.encrypt_with_alpha(&m, &e));
    }
}
