//! Paillier kernels of the Orlandi preprocessing's Triple Generation
//! (Jakobsen, Makkes and Nielsen, ACNS 2010, slide "Preprocessing is Slow
//! in Python", steps 2b and 3a). Party `P_i` publishes `α_i = Enc_i(a_i)`
//! under its own key, with a proof that it knows the plaintext and that it
//! is small ([`crate::orlandi::paillier::popk`]: `|a_i| < 2^468`); every other party
//! `P_j` verifies the proof and answers with `γ_ij = α_i^{b_j} ·
//! Enc_i(d_ij; R')`, `d_ij` uniform below `2^`[`MASK_BITS`]; `P_i`
//! decrypts the product of the `γ_ij` once and sets `c_i = a_i·b_i +
//! Dec(Π_j γ_ij) − Σ_j d_ji mod p` (the `d_ji` being the masks it used in
//! its own answers), so that `Σ_i c_i = (Σ a_i)(Σ b_i)`.
//!
//! **What `γ` shows the key owner, even a malicious one** (the argument
//! the proof and the sizes here are chosen for). The proof gives integers
//! `x, r` with `α = (1 + n)^x·h_s^r` and `|x| < 2^468`, for any modulus
//! `n` (it extracts by dividing by `±1`), and `h_s = h^n` is computed by
//! the receiver from the key's root `h` ([`PublicKey::from_root`]). So
//! `γ = (1 + n)^(x·b + d)·h_s^(r·b + R')`: its randomness part is `h_s` to
//! the power `r·b + R'`, and the fresh `R'` is *long* (`k + 80` bits,
//! [`PublicKey::long_randomizer_bits`]), which makes `h_s^(r·b + R')`
//! within `2^-80` of uniform in `⟨h_s⟩` whatever `r`, `b` and the order of
//! `h_s` (below `n`) are. Its plaintext part is `x·b + d` with `|x·b| <
//! 2^721` and `d` uniform below `2^808`: within `2^-87` of a value that does
//! not depend on `b`. Hence `γ` is, up to `2^-79`, a function of values
//! independent of `b_j`, and the key owner learns nothing of `b_j`, even
//! with a malformed key (no proof of key well-formedness is needed for
//! this; a malformed key only hurts its owner's own privacy; the keys are
//! nonetheless proven well formed, [`crate::orlandi::paillier::blum`], so that every
//! accepted key is a Paillier modulus `n = pq` as the papers assume). For
//! the same reason the no-small-factor proof `Π^fac` of CGGMP (eprint
//! 2021/060) is not needed: a small factor of `n` would let its owner
//! reduce an honest party's values modulo it only if the honest party sent
//! a response mixing its secret over `n` (CGGMP's `Π^aff-g`, whose
//! verifier owns the key); here the only proofs over a key are its
//! owner's ([`crate::orlandi::paillier::popk`], sound for any modulus), and `γ` is
//! the statistical argument above. The attack
//! this closes: an `α` shifted by `2^1600` (made from the public key
//! alone) decrypted `γ` to `a·b + d + 2^1600·b`, the high bits giving `b`
//! away; and with a short DJN randomizer, a key owner choosing `n` with
//! smooth `p − 1` could solve the discrete logarithm of the randomness part
//! for `b`. VIFF multiplies by `Enc(1; 1)^d = g^d`, with no randomness.
//!
//! **Two raw triples per `γ`** (slot packing, as VIFF-era Paillier
//! implementations pack several `Z_p` values into one plaintext). The
//! plaintext space of a 2048-bit key holds two slots of [`SLOT_BITS`]
//! (820) bits: `P_i` encrypts the second triple of a pair already shifted,
//! `α' = Enc_i(a'·2^820)` (its proof is for the shifted form), and `P_j`
//! answers both triples of the pair with one `γ = α^b·α'^{b'}·Enc_i(d +
//! d'·2^820; R')` (a two-base simultaneous exponentiation,
//! [`crate::orlandi::paillier::multi_exp`]), so `P_i` decrypts `(a·b + d) + (a'·b' +
//! d')·2^820` once for both. Slack argument for honest parties: each slot
//! sums, over the `n − 1` other parties, `a·b + d < p² + 2^808`, so a slot
//! stays below `2^11·2^809 = 2^820` for `n ≤` [`MAX_PARTIES`] (the `.otp`
//! requires it) and nothing carries into the next slot; the packed value
//! stays below `n` when `n > 2^820·(n_parties − 1)(p² + 2^808)`. Both
//! triples of a pair are opened or kept together by the subset check, so
//! revealing a `γ`'s masks never touches a kept triple.
//!
//! **Keys too small to pack** (1024 bits, VIFF's size: two 820-bit slots
//! need more than 1640 bits). Whether a key packs is decided by its size
//! alone ([`packs`]: `n > 2^820·(MAX_PARTIES − 1)(p² + 2^808)`, true for
//! 2048 and 3072 bits). A key that does not pack gets the unpacked `γ` of
//! the slides: both `α` of a pair encrypt `a` itself (slot 0), and the
//! answer to a pair is two ciphertexts `γ_s = α_s^{b_s}·Enc(d_s; R'_s)`,
//! each with its own fresh long randomizer and mask, decrypted separately;
//! it fits when `n > (n_parties − 1)(p² + 2^808)` ([`key_fits`]: about
//! `2^820` for 2048 parties, so every 1024-bit key). Both ciphertexts
//! travel in the one wire field of a packed `γ` (two 2048-bit ciphertexts
//! in a field of 6144-bit capacity, [`encode_gamma`]), so the message flow
//! does not depend on the key.

// The call sites are written for both big-integer backends: GMP's
// (feature `gmp`) arithmetic on references yields incomplete values that
// `Integer::from` completes, the pure-Rust backend's yields an `Integer`.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use crate::primitives::bignum::Order;
use rand_core::{CryptoRng, RngCore};

use crate::orlandi::paillier::{
    multi_exp, Ciphertext, Integer, PaillierError, PublicKey, SecretKey,
};
use crate::primitives::ec::Scalar;

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

/// Bits of a mask `d`: the proven bound on a peer's `α` plaintext
/// ([`crate::orlandi::paillier::popk::PROVEN_BITS`], 468) plus the 253 bits of a
/// share `b` plus 87 bits of statistical hiding. The slides draw `d` from
/// `Z_{p³}`, which hides `a·b` only for `a < p`; a malicious key owner's
/// `a` is bounded by its proof alone, so the mask covers that bound.
pub const MASK_BITS: u32 = crate::orlandi::paillier::popk::PROVEN_BITS + 253 + 87;

/// A mask `d` uniform in `[0, 2^MASK_BITS)`.
pub fn random_mask<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Integer {
    crate::orlandi::paillier::random_bits(MASK_BITS, rng)
}

/// Bits of one slot of a packed `γ` plaintext (see the module docs).
pub const SLOT_BITS: u32 = MASK_BITS + 12;
/// Raw triples (slots) per `γ`: the two triples of a Triple Test pair.
pub const SLOTS: usize = 2;
/// Most parties for which a slot cannot overflow: `(n − 1)(p² + 2^808) <
/// 2^820` needs `n − 1 < 2^11`.
pub const MAX_PARTIES: usize = 2048;

/// The exclusive bound `(parties − 1)(p² + 2^MASK_BITS)` of one slot's
/// plaintext when every party is honest.
fn slot_bound(parties: usize) -> Integer {
    let p = group_order();
    (Integer::from(&p * &p) + (Integer::from(1) << MASK_BITS)) * parties.saturating_sub(1) as u64
}

/// Whether the key's plaintext space holds the sum the decrypting party
/// computes for `parties` parties without wrapping (the slides' "encrypted
/// computation could overflow, require N >> p"): a slot below
/// `2^SLOT_BITS` and `n > (parties − 1)(p² + 2^MASK_BITS)`; a key that [`packs`]
/// holds two slots for any allowed `parties`.
pub fn key_fits(pk: &PublicKey, parties: usize) -> bool {
    let slot = slot_bound(parties);
    parties <= MAX_PARTIES && slot.significant_bits() <= SLOT_BITS && *pk.n() > slot
}

/// Whether the key packs two raw triples into one `γ` (its size alone
/// decides: `n > 2^SLOT_BITS·(MAX_PARTIES − 1)(p² + 2^MASK_BITS)`, true for 2048-
/// and 3072-bit keys, false for 1024-bit ones; see the module docs).
pub fn packs(pk: &PublicKey) -> bool {
    *pk.n() > (slot_bound(MAX_PARTIES) << SLOT_BITS)
}

/// Ciphertexts per `γ` under `pk`: 1 packed, [`SLOTS`] unpacked.
pub fn gamma_parts(pk: &PublicKey) -> usize {
    if packs(pk) {
        1
    } else {
        SLOTS
    }
}

/// The slot of raw triple `t` in a plaintext under `pk`: `t mod 2` for a
/// key that packs, else 0.
pub fn slot_of(pk: &PublicKey, t: usize) -> usize {
    if packs(pk) {
        t % SLOTS
    } else {
        0
    }
}

/// `v·2^(SLOT_BITS·slot)`: a value placed in its slot.
pub fn in_slot(v: &Integer, slot: usize) -> Integer {
    Integer::from(v << (SLOT_BITS * slot as u32))
}

/// The packed mask `Σ_s d_s·2^(SLOT_BITS·s)` of a `γ`.
pub fn packed_mask(d: &[Integer]) -> Integer {
    d.iter()
        .enumerate()
        .fold(Integer::new(), |acc, (s, d)| acc + in_slot(d, s))
}

/// The `γ` answering one pair under the receiver's key `pk` (step 2b), with
/// fresh short randomizers `randomizers` (one per ciphertext,
/// [`gamma_parts`]): for a key that [`packs`], the one ciphertext `Π_s
/// α_s^{b_s} · Enc(Σ_s d_s·2^(820s); R')` (the `α_s` encrypt `a_s` already
/// shifted into slot `s`; the powers are one simultaneous
/// multi-exponentiation), an encryption of `Σ_s (a_s·b_s + d_s)·2^(820s)`;
/// otherwise one ciphertext `α_s^{b_s}·Enc(d_s; R'_s)` per raw triple.
pub fn gamma(
    pk: &PublicKey,
    alphas: &[Ciphertext],
    b: &[Scalar],
    d: &[Integer],
    randomizers: &[Integer],
) -> Result<Vec<Ciphertext>, PaillierError> {
    let parts = gamma_parts(pk);
    if alphas.len() != b.len()
        || alphas.is_empty()
        || alphas.len() > SLOTS
        || randomizers.len() != parts
        || (parts > 1 && d.len() != alphas.len())
    {
        return Err(PaillierError::PlaintextRange);
    }
    let long = pk.long_randomizer_bits();
    if parts == 1 {
        let masked = pk.encrypt_with_exponent(&packed_mask(d), &randomizers[0], long)?;
        let bases: Vec<Integer> = alphas.iter().map(|c| c.as_integer().clone()).collect();
        let exps: Vec<Integer> = b.iter().map(scalar_to_integer).collect();
        let bits = group_order().significant_bits();
        let power =
            multi_exp(&bases, &exps, bits, pk.n_squared()).ok_or(PaillierError::PlaintextRange)?;
        return Ok(vec![pk.add(&pk.ciphertext(power)?, &masked)]);
    }
    alphas
        .iter()
        .zip(b)
        .zip(d.iter().zip(randomizers))
        .map(|((a, b), (d, r))| {
            let masked = pk.encrypt_with_exponent(d, r, long)?;
            Ok(pk.add(&pk.mul_plain(a, &scalar_to_integer(b)), &masked))
        })
        .collect()
}

/// The randomizers of a `γ` as one integer `Σ_s R'_s·2^(r·s)` (`r` the
/// key's randomizer bits): what a party reveals of them.
pub fn join_randomizers(pk: &PublicKey, r: &[Integer]) -> Integer {
    let bits = pk.long_randomizer_bits();
    r.iter().enumerate().fold(Integer::new(), |acc, (s, r)| {
        acc + Integer::from(r << (bits * s as u32))
    })
}

/// The [`gamma_parts`] randomizers joined by [`join_randomizers`], or
/// `None` if `v` has more bits than they can have.
pub fn split_randomizers(pk: &PublicKey, v: &Integer) -> Option<Vec<Integer>> {
    let (bits, parts) = (pk.long_randomizer_bits(), gamma_parts(pk));
    if v.significant_bits() > bits * parts as u32 {
        return None;
    }
    Some(
        (0..parts)
            .map(|s| Integer::from(v >> (bits * s as u32)).keep_bits(bits))
            .collect(),
    )
}

/// A `γ`'s ciphertexts as one integer: `Σ_q c_q·2^(8·L·q)` with `L` the
/// key's ciphertext length in bytes (one term for a key that packs).
pub fn encode_gamma(pk: &PublicKey, cts: &[Ciphertext]) -> Integer {
    let bits = 8 * pk.ciphertext_len() as u32;
    cts.iter().enumerate().fold(Integer::new(), |acc, (q, c)| {
        acc + Integer::from(c.as_integer() << (bits * q as u32))
    })
}

/// The [`gamma_parts`] ciphertexts in `v` ([`encode_gamma`]), if each is a
/// ciphertext under `pk` (a unit modulo `n²`) and nothing is left over.
pub fn decode_gamma(pk: &PublicKey, v: &Integer) -> Option<Vec<Ciphertext>> {
    let (bits, parts) = (8 * pk.ciphertext_len() as u32, gamma_parts(pk));
    if v.significant_bits() > bits * parts as u32 {
        return None;
    }
    (0..parts)
        .map(|q| {
            pk.ciphertext(Integer::from(v >> (bits * q as u32)).keep_bits(bits))
                .ok()
        })
        .collect()
}

/// `c_s = a_s·b_s + slot_s(Dec(Π_j γ_ij)) − Σ_j d_ji,s mod p` for each slot
/// `s` of a pair (step 3a; `gammas[j]` the ciphertexts of one `γ` received,
/// [`gamma_parts`] each; `masks_sent[j]` the slot masks this party used
/// towards party `j`). A key that packs decrypts the product of all the `γ`
/// once for both triples; otherwise each triple's product is decrypted
/// once.
pub fn product_share(
    sk: &SecretKey,
    gammas: &[Vec<Ciphertext>],
    a: &[Scalar],
    b: &[Scalar],
    masks_sent: &[Vec<Integer>],
) -> Vec<Scalar> {
    let pk = sk.public();
    let parts = gamma_parts(pk);
    let received: Vec<Integer> = (0..parts)
        .map(|q| {
            let mut acc: Option<Ciphertext> = None;
            for g in gammas.iter().filter_map(|g| g.get(q)) {
                acc = Some(match acc {
                    Some(c) => pk.add(&c, g),
                    None => g.clone(),
                });
            }
            acc.map(|c| sk.decrypt(&c)).unwrap_or_default()
        })
        .collect();
    (0..a.len().min(b.len()))
        .map(|s| {
            let slot = if parts == 1 {
                Integer::from(&received[0] >> (SLOT_BITS * s as u32)).keep_bits(SLOT_BITS)
            } else {
                received.get(s).cloned().unwrap_or_default()
            };
            let sent: Integer = masks_sent.iter().filter_map(|d| d.get(s)).sum();
            a[s] * b[s] + integer_to_scalar(&(slot - sent))
        })
        .collect()
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::orlandi::paillier::KeySize;
    use crate::primitives::ec::random_scalar;
    use crate::primitives::rng::Rng;

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
    fn three_parties_get_shares_of_packed_and_unpacked_products() {
        let n = 3;
        let mut rng = Rng::deterministic_for_tests(6);
        let big = SecretKey::generate(KeySize::Bits2048, &mut rng);
        let small = SecretKey::generate(KeySize::Bits1024, &mut rng);
        assert!(key_fits(big.public(), n) && packs(big.public()));
        assert!(key_fits(small.public(), n), "unpacked γ fits 1024 bits");
        assert!(!packs(small.public()), "two slots do not fit 1024 bits");
        assert!(key_fits(small.public(), MAX_PARTIES));
        assert!(!key_fits(big.public(), MAX_PARTIES + 1));
        for sizes in [[&big, &big, &big], [&small, &big, &small]] {
            let keys: Vec<&SecretKey> = sizes.to_vec();
            // Two raw triples (one pair) per party; a[i][s], b[i][s].
            let draw = |rng: &mut Rng| -> Vec<Vec<Scalar>> {
                (0..n)
                    .map(|_| (0..SLOTS).map(|_| random_scalar(rng)).collect())
                    .collect()
            };
            let (a, b) = (draw(&mut rng), draw(&mut rng));
            // α of raw triple s encrypts a in its slot (s for a key that
            // packs, else 0).
            let alphas: Vec<Vec<Ciphertext>> = (0..n)
                .map(|i| {
                    let pk = keys[i].public();
                    (0..SLOTS)
                        .map(|s| {
                            let pt = in_slot(&scalar_to_integer(&a[i][s]), slot_of(pk, s));
                            pk.encrypt(&pt, &mut rng).expect("enc").0
                        })
                        .collect()
                })
                .collect();
            // d[j][i][s]: the slot-s mask P_j uses in its answer to P_i.
            let d: Vec<Vec<Vec<Integer>>> = (0..n)
                .map(|_| {
                    (0..n)
                        .map(|_| (0..SLOTS).map(|_| random_mask(&mut rng)).collect())
                        .collect()
                })
                .collect();
            let c: Vec<Vec<Scalar>> = (0..n)
                .map(|i| {
                    let pk = keys[i].public();
                    let gammas: Vec<Vec<Ciphertext>> = (0..n)
                        .filter(|&j| j != i)
                        .map(|j| {
                            let r: Vec<Integer> = (0..gamma_parts(pk))
                                .map(|_| pk.random_long_randomizer(&mut rng))
                                .collect();
                            let g = gamma(pk, &alphas[i], &b[j], &d[j][i], &r).expect("gamma");
                            // Through the wire form and back.
                            assert_eq!(g.len(), gamma_parts(pk));
                            let back = decode_gamma(pk, &encode_gamma(pk, &g)).expect("decode");
                            assert_eq!(back, g);
                            let joined = join_randomizers(pk, &r);
                            assert_eq!(split_randomizers(pk, &joined), Some(r));
                            back
                        })
                        .collect();
                    let sent: Vec<Vec<Integer>> = (0..n)
                        .filter(|&j| j != i)
                        .map(|j| d[i][j].clone())
                        .collect();
                    product_share(keys[i], &gammas, &a[i], &b[i], &sent)
                })
                .collect();
            for s in 0..SLOTS {
                let sum = |v: &[Vec<Scalar>]| v.iter().map(|x| x[s]).sum::<Scalar>();
                assert_eq!(sum(&c), sum(&a) * sum(&b), "slot {s}");
            }
        }
        // Mismatched slot or randomizer counts are an error, not a panic.
        let pk = big.public();
        let alphas: Vec<Ciphertext> = (0..SLOTS)
            .map(|_| pk.encrypt(&Integer::from(1), &mut rng).expect("enc").0)
            .collect();
        let b = [Scalar::ONE; SLOTS];
        let d = [Integer::from(1), Integer::from(2)];
        assert!(gamma(pk, &alphas, &b[..1], &d, &[Integer::from(1)]).is_err());
        assert!(gamma(pk, &alphas, &b, &d, &[]).is_err());
        // A γ with an extra part, or a non-unit part, does not decode.
        let spk = small.public();
        let wide = Integer::from(1) << (8 * spk.ciphertext_len() as u32 * 2);
        assert!(decode_gamma(spk, &wide).is_none());
        assert!(decode_gamma(spk, &Integer::new()).is_none());
    }
}
