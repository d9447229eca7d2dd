//! Paillier kernels of the Orlandi preprocessing's Triple Generation
//! (Jakobsen, Makkes and Nielsen, ACNS 2010, slide "Preprocessing is Slow
//! in Python", steps 2b and 3a). Party `P_i` publishes `α_i = Enc_i(a_i)`
//! under its own key; every other party `P_j` answers with
//! `γ_ij = α_i^{b_j} · Enc_i(d_ij; fresh)`, `d_ij` uniform in `[0, p³)`;
//! `P_i` decrypts the product of the `γ_ij` once and sets
//! `c_i = a_i·b_i + Dec(Π_j γ_ij) − Σ_j d_ji mod p` (the `d_ji` being the
//! masks it used in its own answers), so that `Σ_i c_i = (Σ a_i)(Σ b_i)`.
//!
//! Unlike VIFF (which multiplies by `Enc(1; 1)^d = g^d`, with no fresh
//! randomness), `γ` carries a fresh short randomizer, so it hides `b_j`
//! from `P_i` statistically (the mask `d` has `2·|p|` bits more than
//! `a_i·b_j`) and computationally in the randomizer. The protocol flow
//! (broadcast of `α_i` with commitments, the private `γ`, the subset check
//! and the Triple Test) is `protocols/orlandi_triple.otp`, which calls
//! these kernels through [`crate::orlandi_prep`].
//!
//! No simultaneous multi-exponentiation is needed: `Enc(d; α')` is one
//! fixed-base table product, and only `α_i^{b_j}` (a 253-bit exponent) is a
//! variable-base exponentiation.

use rand_core::{CryptoRng, RngCore};
use rug::integer::Order;
use rug::ops::Pow;

use crate::ec::Scalar;
use crate::paillier::{random_below, Ciphertext, Integer, PaillierError, PublicKey, SecretKey};

/// The Ristretto group order `p` as an integer.
pub fn group_order() -> Integer {
    // p = 2^252 + 27742317777372353535851937790883648493
    let tail: Integer = "27742317777372353535851937790883648493"
        .parse()
        .unwrap_or_default();
    (Integer::from(1) << 252) + tail
}

/// A scalar as the integer in `[0, p)`.
pub fn scalar_to_integer(s: &Scalar) -> Integer {
    Integer::from_digits(s.as_bytes(), Order::Lsf)
}

/// An integer reduced modulo `p`, as a scalar.
pub fn integer_to_scalar(v: &Integer) -> Scalar {
    let p = group_order();
    let mut r = Integer::from(v % &p);
    if r < 0 {
        r += &p;
    }
    let mut bytes = [0u8; 32];
    if r.significant_digits::<u8>() <= 32 {
        r.write_digits(&mut bytes, Order::Lsf);
    }
    Scalar::from_bytes_mod_order(bytes)
}

/// A mask `d` uniform in `[0, p³)` (the slides' `d_{i,j} ∈ Z_{p³}`).
pub fn random_mask<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Integer {
    random_below(&group_order().pow(3u32), rng)
}

/// Whether the key's plaintext space holds the sum the decrypting party
/// computes for `parties` parties without wrapping: `n > (parties − 1)·(p² + p³)`
/// (the slides' "encrypted computation could overflow, require N >> p").
pub fn key_fits(pk: &PublicKey, parties: usize) -> bool {
    let p = group_order();
    let bound = (Integer::from(&p * &p) + p.clone().pow(3u32)) * parties.saturating_sub(1) as u64;
    *pk.n() > bound
}

/// `γ = α^b · Enc(d; α')` under the receiver's key `pk` with a fresh short
/// randomizer `α'` (step 2b): an encryption of `a·b + d` for `α = Enc(a)`.
pub fn gamma(
    pk: &PublicKey,
    alpha: &Ciphertext,
    b: &Scalar,
    d: &Integer,
    randomizer: &Integer,
) -> Result<Ciphertext, PaillierError> {
    let masked = pk.encrypt_with_alpha(d, randomizer)?;
    Ok(pk.add(&pk.mul_plain(alpha, &scalar_to_integer(b)), &masked))
}

/// `c_i = a_i·b_i + Dec(Π_j γ_ij) − Σ_j d_ji mod p` (step 3a, one CRT
/// decryption for all the `γ` received).
pub fn product_share(
    sk: &SecretKey,
    gammas: &[Ciphertext],
    a: &Scalar,
    b: &Scalar,
    masks_sent: &[Integer],
) -> Scalar {
    let pk = sk.public();
    let mut acc: Option<Ciphertext> = None;
    for g in gammas {
        acc = Some(match acc {
            Some(c) => pk.add(&c, g),
            None => g.clone(),
        });
    }
    let received = acc.map(|c| sk.decrypt(&c)).unwrap_or_default();
    let sent: Integer = masks_sent.iter().sum();
    a * b + integer_to_scalar(&(received - sent))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ec::random_scalar;
    use crate::paillier::KeySize;
    use crate::rng::Rng;

    #[test]
    fn conversions_round_trip() {
        let mut rng = Rng::deterministic_for_tests(5);
        for _ in 0..20 {
            let s = random_scalar(&mut rng);
            assert_eq!(integer_to_scalar(&scalar_to_integer(&s)), s);
        }
        assert_eq!(integer_to_scalar(&group_order()), Scalar::ZERO);
        assert_eq!(integer_to_scalar(&Integer::from(-1)), -Scalar::ONE);
    }

    #[test]
    fn three_parties_get_shares_of_the_product() {
        let n = 3;
        let mut rng = Rng::deterministic_for_tests(6);
        let keys: Vec<SecretKey> = (0..n)
            .map(|_| SecretKey::generate(KeySize::Bits1024, &mut rng))
            .collect();
        assert!(keys.iter().all(|k| key_fits(k.public(), n)));
        let a: Vec<Scalar> = (0..n).map(|_| random_scalar(&mut rng)).collect();
        let b: Vec<Scalar> = (0..n).map(|_| random_scalar(&mut rng)).collect();
        let alphas: Vec<Ciphertext> = (0..n)
            .map(|i| {
                keys[i]
                    .public()
                    .encrypt(&scalar_to_integer(&a[i]), &mut rng)
                    .expect("enc")
                    .0
            })
            .collect();
        // d[j][i]: the mask P_j uses in its answer to P_i.
        let d: Vec<Vec<Integer>> = (0..n)
            .map(|_| (0..n).map(|_| random_mask(&mut rng)).collect())
            .collect();
        let c: Vec<Scalar> = (0..n)
            .map(|i| {
                let pk = keys[i].public();
                let gammas: Vec<Ciphertext> = (0..n)
                    .filter(|&j| j != i)
                    .map(|j| {
                        let r = pk.random_alpha(&mut rng);
                        gamma(pk, &alphas[i], &b[j], &d[j][i], &r).expect("gamma")
                    })
                    .collect();
                let sent: Vec<Integer> = (0..n)
                    .filter(|&j| j != i)
                    .map(|j| d[i][j].clone())
                    .collect();
                product_share(&keys[i], &gammas, &a[i], &b[i], &sent)
            })
            .collect();
        let sum = |v: &[Scalar]| v.iter().sum::<Scalar>();
        assert_eq!(sum(&c), sum(&a) * sum(&b));
    }
}
