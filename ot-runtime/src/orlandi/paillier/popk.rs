//! A batched zero-knowledge proof of plaintext knowledge with a range
//! bound for Paillier ciphertexts with DJN-form randomizers: the prover,
//! who owns the key, shows for a batch of `u ≤` [`MAX_BATCH`] ciphertexts
//! `K_i = (1 + n)^(x_i·2^σ)·h_s^(r_i) mod n²` (a public shift `σ`) that it
//! knows integers `x_i, r_i` with `|x_i| < 2^`[`PROVEN_BITS`], while the
//! honest witnesses are `0 ≤ x_i < 2^`[`WITNESS_BITS`].
//!
//! **The proof.** The amortized Σ-protocol of Cramer and Damgård ("On the
//! Amortized Complexity of Zero-Knowledge Protocols", CRYPTO 2009; full
//! version with Keller, J. Cryptology 27(3), 2014), instantiated for the
//! group homomorphism `f(x, r) = (1 + n)^(x·2^σ)·h_s^r` from `Z²` to
//! `Z*_{n²}` in the form SPDZ uses for its ZKPoPK (Damgård, Pastro,
//! Smart, Zakarias, CRYPTO 2012, Fig. 9; the matrix `M_e` below), made
//! non-interactive by Fiat–Shamir:
//! 1. The prover samples `V = u + 127` masks `y_k < 2^`[`MASK_BITS`] and
//!    `y'_k < 2^(ρ + 87)` (`ρ` the key's randomizer bits) and computes
//!    `A_k = f(y_k, y'_k)`.
//! 2. The challenge `e ∈ {0,1}^128` is the first 128 bits of SHA-256 over
//!    a domain label, the caller's context (session, prover, batch index),
//!    `σ`, `u`, the key (`n` and the root `h` of `h_s`), every `K_i` and
//!    every `A_k`.
//! 3. `M_e` is the `V × u` matrix with `M_e[k][i] = e_(k−i)` for `0 ≤ k − i
//!    < 128` and 0 elsewhere; the prover answers `z = y + M_e·x` and `z' =
//!    y' + M_e·r` over the integers.
//! 4. The verifier requires `0 ≤ z_k < 2^`[`RESPONSE_BITS`] and `0 ≤ z'_k <
//!    2^(ρ + 88)`, recomputes `A_k = f(z_k, z'_k)·(Π_i K_i^(M_e[k][i]))^-1`
//!    and accepts if the hash of step 2 over these `A_k` is `e`. The proof
//!    sends `(e, z, z')`, not the `A_k` (the usual compression of a
//!    Fiat–Shamir proof).
//!
//! **Soundness (special soundness, the extraction bound).** Two accepting
//! answers `(z, z')`, `(ẑ, ẑ')` to challenges `e ≠ ê` for the same `A`
//! give `f(z_k − ẑ_k, z'_k − ẑ'_k) = Π_i K_i^((M_e − M_ê)[k][i])`. Let `j`
//! be the largest index with `e_j ≠ ê_j`. Row `k = j + i` of `M_e − M_ê`
//! has `±1` in column `i`, zeros in the columns before `i` (their indices
//! exceed `j`) and entries in `{−1, 0, 1}` after it: the rows `j … j + u −
//! 1` form an upper-triangular system with `±1` on the diagonal, so back
//! substitution (from column `u − 1` down) gives integers `x_i, r_i` with
//! `K_i = f(x_i, r_i)` exactly, dividing by `±1` only. Each step adds at
//! most the sum of the later `|x|`, so `|x_i| < 2^(RESPONSE_BITS + u − 1 −
//! i) ≤ 2^PROVEN_BITS`. No setup, no assumption on the key: the
//! extraction divides by `±1` and holds for any modulus `n` and any unit
//! `h_s`. A cheating prover succeeds with probability about `q·2^-128`
//! after `q` hash queries (Fiat–Shamir of a special-sound Σ-protocol with
//! 128-bit challenges, in the random-oracle model). The bound is loose
//! (the `2^(u−1)` factor; Baum, Damgård, Larsen and Nielsen, CRYPTO 2016,
//! tighten it), which the Orlandi preprocessing absorbs in its plaintext
//! space (`crate::orlandi::triple`).
//!
//! **Zero knowledge (honest verifier, statistical).** Each `z_k` is `y_k`
//! plus a sum of at most 128 witnesses below `2^253`, that is less than
//! `2^260`; `y_k` is uniform below `2^340`, so `z_k`'s distribution is
//! within `2^-80` of one independent of the witnesses; the same holds for
//! `z'_k` (`2^(ρ+7)` against `2^(ρ+87)`). The simulator picks `z, z'` and
//! `e` and programs the random oracle.
//!
//! The prover's exponentiations are the key owner's CRT encryptions
//! (secret masks, side-channel silent like every secret exponent of
//! [`crate::orlandi::paillier`]); the verifier's are variable-time (public values).

// The call sites are written for both big-integer backends: GMP's
// (feature `gmp`) arithmetic on references yields incomplete values that
// `Integer::from` completes, the pure-Rust backend's yields an `Integer`.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use crate::primitives::bignum::Order;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::{random_bits, Ciphertext, Integer, PublicKey, SecretKey};
use crate::transport::wire::{Wire, WireError};

/// Bits of the challenge (Fiat–Shamir: a cheating prover needs about
/// `2^128` hash evaluations).
pub const CHALLENGE_BITS: usize = 128;
/// Most ciphertexts in one proof (the extraction bound grows by one bit
/// per ciphertext of the batch).
pub const MAX_BATCH: usize = 128;
/// Bits of an honest witness `x` (a share modulo the Ristretto order
/// `p < 2^253`).
pub const WITNESS_BITS: u32 = 253;
/// Statistical zero-knowledge slack, in bits.
pub const ZK_BITS: u32 = 80;
/// Bits of the masks `y_k`: `WITNESS_BITS + 7 + ZK_BITS` (a response adds
/// at most 128 = `2^7` witnesses).
pub const MASK_BITS: u32 = WITNESS_BITS + 7 + ZK_BITS;
/// Exclusive bound, in bits, of an accepted response `z_k`.
pub const RESPONSE_BITS: u32 = MASK_BITS + 1;
/// What an accepted proof shows: `|x_i| < 2^PROVEN_BITS` for every
/// ciphertext of the batch (`RESPONSE_BITS + MAX_BATCH − 1`, see the
/// module docs).
pub const PROVEN_BITS: u32 = RESPONSE_BITS + MAX_BATCH as u32 - 1;
/// Rows of a proof of `u` ciphertexts: `u + 127`.
pub fn rows(u: usize) -> usize {
    u + CHALLENGE_BITS - 1
}
/// Most rows of a proof ([`MAX_BATCH`] ciphertexts).
pub const MAX_ROWS: usize = MAX_BATCH + CHALLENGE_BITS - 1;
/// Bytes of a response `z_k` on the wire.
const Z_BYTES: usize = (RESPONSE_BITS as usize).div_ceil(8);
/// Bytes of a response `z'_k` on the wire: a 3072-bit key's randomizers
/// have 1536 bits, so `z'_k < 2^1624`.
const ZR_BYTES: usize = 204;
/// Bits of the randomizer masks beyond the key's randomizer bits.
const ZR_EXTRA_BITS: u32 = 7 + ZK_BITS;

/// Domain label of the challenge hash.
const DOMAIN: &[u8] = b"ot/paillier/popk/v1";

/// A proof: the challenge and the responses (see the module docs).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Proof {
    e: [u8; CHALLENGE_BITS / 8],
    z: Vec<Integer>,
    zr: Vec<Integer>,
}

/// Bit `k` of the challenge.
fn bit(e: &[u8; CHALLENGE_BITS / 8], k: usize) -> bool {
    (e[k / 8] >> (k % 8)) & 1 == 1
}

/// Bytes of a value of at most `len` bytes, little-endian, zero-padded.
fn fixed(v: &Integer, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    if v.cmp0() != core::cmp::Ordering::Less && v.significant_digits::<u8>() <= len {
        v.write_digits(&mut out, Order::Lsf);
    }
    out
}

/// The Fiat–Shamir challenge over the statement and the first messages.
fn challenge(
    pk: &PublicKey,
    shift: u32,
    cts: &[Ciphertext],
    a: &[Integer],
    context: &[u8],
) -> [u8; CHALLENGE_BITS / 8] {
    let len = pk.ciphertext_len();
    let nlen = (pk.n().significant_bits() as usize).div_ceil(8);
    let mut h = Sha256::new();
    for part in [DOMAIN, context] {
        h.update((part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.update(shift.to_le_bytes());
    h.update((cts.len() as u64).to_le_bytes());
    h.update((nlen as u64).to_le_bytes());
    h.update(fixed(pk.n(), nlen));
    h.update(fixed(pk.h(), nlen));
    for c in cts {
        h.update(fixed(c.as_integer(), len));
    }
    for a in a {
        h.update(fixed(a, len));
    }
    let digest = h.finalize();
    let mut e = [0u8; CHALLENGE_BITS / 8];
    e.copy_from_slice(&digest[..CHALLENGE_BITS / 8]);
    e
}

/// `Σ_i M_e[k][i]·v_i` over the integers.
fn row_sum(e: &[u8; CHALLENGE_BITS / 8], k: usize, v: &[Integer]) -> Integer {
    let lo = k.saturating_sub(CHALLENGE_BITS - 1);
    (lo..v.len().min(k + 1))
        .filter(|&i| bit(e, k - i))
        .map(|i| &v[i])
        .sum()
}

/// Proves that `cts[i] = (1 + n)^(xs[i]·2^shift)·h_s^(rs[i])` under the
/// prover's own key, for `1 ≤ cts.len() ≤ MAX_BATCH` honest witnesses
/// (`0 ≤ x < 2^WITNESS_BITS`, `0 ≤ r < 2^ρ`). `None` if the lengths
/// differ, the batch is empty or too large, or a mask does not encrypt
/// (the shifted mask must stay below `n`). The witnesses are not checked:
/// a proof of out-of-range witnesses is simply refused by [`verify`].
pub fn prove<R: RngCore + CryptoRng + ?Sized>(
    sk: &SecretKey,
    shift: u32,
    cts: &[Ciphertext],
    xs: &[Integer],
    rs: &[Integer],
    context: &[u8],
    rng: &mut R,
) -> Option<Proof> {
    let u = cts.len();
    if u == 0 || u > MAX_BATCH || xs.len() != u || rs.len() != u {
        return None;
    }
    let pk = sk.public();
    let zr_bits = pk.randomizer_bits() + ZR_EXTRA_BITS;
    let v = rows(u);
    let y: Vec<Integer> = (0..v).map(|_| random_bits(MASK_BITS, rng)).collect();
    let yr: Vec<Integer> = (0..v).map(|_| random_bits(zr_bits, rng)).collect();
    let a: Vec<Integer> = y
        .par_iter()
        .zip(yr.par_iter())
        .map(|(y, yr)| {
            sk.encrypt_with_exponent(&Integer::from(y << shift), yr, zr_bits)
                .ok()
                .map(|c| c.as_integer().clone())
        })
        .collect::<Option<_>>()?;
    let e = challenge(pk, shift, cts, &a, context);
    let z = (0..v).map(|k| &y[k] + row_sum(&e, k, xs)).collect();
    let zr = (0..v).map(|k| &yr[k] + row_sum(&e, k, rs)).collect();
    Some(Proof { e, z, zr })
}

/// Whether `proof` shows that every ciphertext of `cts` (`1 ≤ u ≤
/// MAX_BATCH`, each a unit modulo `n²`) encrypts `x·2^shift` with `|x| <
/// 2^PROVEN_BITS` under `pk`, for this `context` (see the module docs).
pub fn verify(
    pk: &PublicKey,
    shift: u32,
    cts: &[Ciphertext],
    proof: &Proof,
    context: &[u8],
) -> bool {
    let u = cts.len();
    let v = rows(u);
    if u == 0 || u > MAX_BATCH || proof.z.len() != v || proof.zr.len() != v {
        return false;
    }
    let zr_bits = pk.randomizer_bits() + ZR_EXTRA_BITS + 1;
    let in_range = |x: &Integer, bits: u32| {
        x.cmp0() != core::cmp::Ordering::Less && x.significant_bits() <= bits
    };
    if !proof.z.iter().all(|z| in_range(z, RESPONSE_BITS))
        || !proof.zr.iter().all(|z| in_range(z, zr_bits))
        || zr_bits > pk.table_bits()
    {
        return false;
    }
    let n2 = pk.n_squared();
    let parts: Option<Vec<(Integer, Integer)>> = (0..v)
        .into_par_iter()
        .map(|k| {
            let f = pk.encrypt_public(&Integer::from(&proof.z[k] << shift), &proof.zr[k])?;
            let lo = k.saturating_sub(CHALLENGE_BITS - 1);
            let mut prod = Integer::from(1);
            for i in (lo..u.min(k + 1)).filter(|&i| bit(&proof.e, k - i)) {
                prod *= cts[i].as_integer();
                prod %= n2;
            }
            Some((f, prod))
        })
        .collect();
    let Some(parts) = parts else {
        return false;
    };
    let (fs, prods): (Vec<Integer>, Vec<Integer>) = parts.into_iter().unzip();
    let Some(invs) = batch_invert(&prods, n2) else {
        return false;
    };
    let a: Vec<Integer> = fs
        .into_par_iter()
        .zip(invs.into_par_iter())
        .map(|(f, inv)| f * inv % n2)
        .collect();
    challenge(pk, shift, cts, &a, context) == proof.e
}

/// The inverses of `values` modulo `m` with one inversion (Montgomery's
/// trick: prefix products, the inverse of the whole product, then two
/// multiplications per value walking back), `None` if some value has no
/// inverse (exactly when their product has none). A modular inverse costs
/// hundreds of multiplications at these sizes (about 1 ms modulo a
/// 4096-bit `n²` on the pure-Rust backend), so a proof of `v` rows pays
/// one instead of `v`. The values are public (a verifier's).
fn batch_invert(values: &[Integer], m: &Integer) -> Option<Vec<Integer>> {
    let mut prefix = Vec::with_capacity(values.len());
    let mut acc = Integer::from(1) % m;
    for x in values {
        acc = Integer::from(&acc * x) % m;
        prefix.push(acc.clone());
    }
    let mut inv = acc.invert(m).ok()?;
    let mut out = vec![Integer::new(); values.len()];
    for i in (0..values.len()).rev() {
        out[i] = match i {
            0 => inv.clone(),
            _ => Integer::from(&inv * &prefix[i - 1]) % m,
        };
        inv = Integer::from(&inv * &values[i]) % m;
    }
    Some(out)
}

/// A [`Proof`] on the wire, of a fixed size for any batch and key size
/// (rows beyond the batch's are zero): the challenge, then
/// [`MAX_ROWS`] responses `z_k` and `MAX_ROWS` responses `z'_k`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ProofWire(Vec<u8>);

impl ProofWire {
    /// The encoding of `proof` (all zero, which no verifier accepts, if it
    /// has more than [`MAX_ROWS`] rows or a response too long to encode).
    pub fn encode(proof: &Proof) -> ProofWire {
        let mut out = vec![0u8; Self::SIZE];
        let fits = proof.z.len() <= MAX_ROWS
            && proof.z.len() == proof.zr.len()
            && proof
                .z
                .iter()
                .all(|z| z.significant_digits::<u8>() <= Z_BYTES)
            && proof
                .zr
                .iter()
                .all(|z| z.significant_digits::<u8>() <= ZR_BYTES);
        if !fits {
            return ProofWire(out);
        }
        out[..CHALLENGE_BITS / 8].copy_from_slice(&proof.e);
        let (z, zr) = out[CHALLENGE_BITS / 8..].split_at_mut(MAX_ROWS * Z_BYTES);
        for (v, o) in proof.z.iter().zip(z.chunks_exact_mut(Z_BYTES)) {
            o.copy_from_slice(&fixed(v, Z_BYTES));
        }
        for (v, o) in proof.zr.iter().zip(zr.chunks_exact_mut(ZR_BYTES)) {
            o.copy_from_slice(&fixed(v, ZR_BYTES));
        }
        ProofWire(out)
    }

    /// The proof of a batch of `u` ciphertexts, `None` if `u` is out of
    /// range or a row past the batch's is not zero.
    pub fn decode(&self, u: usize) -> Option<Proof> {
        if u == 0 || u > MAX_BATCH || self.0.len() != Self::SIZE {
            return None;
        }
        let v = rows(u);
        let mut e = [0u8; CHALLENGE_BITS / 8];
        e.copy_from_slice(&self.0[..CHALLENGE_BITS / 8]);
        let (z, zr) = self.0[CHALLENGE_BITS / 8..].split_at(MAX_ROWS * Z_BYTES);
        let unused_zero =
            z[v * Z_BYTES..].iter().all(|&b| b == 0) && zr[v * ZR_BYTES..].iter().all(|&b| b == 0);
        if !unused_zero {
            return None;
        }
        let read = |chunk: &[u8]| Integer::from_digits(chunk, Order::Lsf);
        Some(Proof {
            e,
            z: z.chunks_exact(Z_BYTES).take(v).map(read).collect(),
            zr: zr.chunks_exact(ZR_BYTES).take(v).map(read).collect(),
        })
    }
}

impl Wire for ProofWire {
    const SIZE: usize = CHALLENGE_BITS / 8 + MAX_ROWS * (Z_BYTES + ZR_BYTES);

    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.0);
    }

    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        crate::transport::wire::exact_bytes(bytes, Self::SIZE).map(ProofWire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orlandi::paillier::KeySize;
    use crate::primitives::rng::Rng;

    #[test]
    fn batch_inverses_match_single_ones_and_refuse_a_non_unit() {
        let m = Integer::from(1_000_000_007u64) * Integer::from(998_244_353u64);
        let values: Vec<Integer> = (1..40u64).map(|i| Integer::from(i * 7_919 + 3)).collect();
        let invs = batch_invert(&values, &m).expect("all units");
        for (x, inv) in values.iter().zip(&invs) {
            assert_eq!(x.clone().invert(&m).ok().as_ref(), Some(inv));
        }
        assert_eq!(batch_invert(&[], &m), Some(vec![]));
        let mut bad = values.clone();
        bad[17] = Integer::from(998_244_353u64) * 5u32;
        assert_eq!(batch_invert(&bad, &m), None);
    }

    /// A batch of `u` honest encryptions `Enc(x·2^shift; r)` with their
    /// witnesses, `x` below `2^bits`.
    fn batch(
        sk: &SecretKey,
        u: usize,
        shift: u32,
        bits: u32,
        rng: &mut Rng,
    ) -> (Vec<Ciphertext>, Vec<Integer>, Vec<Integer>) {
        let pk = sk.public();
        let xs: Vec<Integer> = (0..u).map(|_| random_bits(bits, rng)).collect();
        let rs: Vec<Integer> = (0..u).map(|_| pk.random_alpha(rng)).collect();
        let cts = xs
            .iter()
            .zip(&rs)
            .map(|(x, r)| {
                sk.encrypt_with_alpha(&Integer::from(x << shift), r)
                    .expect("enc")
            })
            .collect();
        (cts, xs, rs)
    }

    fn key(bits: KeySize, seed: u64) -> SecretKey {
        SecretKey::generate(bits, &mut Rng::deterministic_for_tests(seed))
    }

    #[test]
    fn honest_batches_verify_for_every_size_and_shift() {
        let mut rng = Rng::deterministic_for_tests(70);
        let sk = key(KeySize::Bits1024, 71);
        for (u, shift) in [(1, 0), (2, 0), (5, 0), (MAX_BATCH, 0), (3, 400)] {
            let (cts, xs, rs) = batch(&sk, u, shift, WITNESS_BITS, &mut rng);
            let proof = prove(&sk, shift, &cts, &xs, &rs, b"ctx", &mut rng).expect("proof");
            let wire = ProofWire::encode(&proof);
            let back = wire.decode(u).expect("decode");
            assert_eq!(back, proof);
            assert!(verify(sk.public(), shift, &cts, &back, b"ctx"), "u = {u}");
        }
    }

    #[test]
    fn a_plaintext_out_of_range_is_refused() {
        // The attack on the Orlandi preprocessing: an encryption of
        // a + 2^760 (1024-bit key) or a + 2^1600 (2048-bit key). The prover
        // runs the honest algorithm on the true (large) witness; its
        // responses exceed the bound, and the verifier refuses. Without the
        // range check the same proof verifies (checked by removing it).
        let mut rng = Rng::deterministic_for_tests(72);
        for (size, shift_bits) in [(KeySize::Bits1024, 760u32), (KeySize::Bits2048, 1600)] {
            let sk = key(size, 73 + shift_bits as u64);
            let (mut cts, mut xs, rs) = batch(&sk, 4, 0, WITNESS_BITS, &mut rng);
            xs[2] += Integer::from(1) << shift_bits;
            cts[2] = sk.encrypt_with_alpha(&xs[2], &rs[2]).expect("enc");
            let proof = prove(&sk, 0, &cts, &xs, &rs, b"ctx", &mut rng).expect("proof");
            assert!(!verify(sk.public(), 0, &cts, &proof, b"ctx"), "{size:?}");
            // A witness just past the response bound fails too.
            xs[2] = Integer::from(1) << (RESPONSE_BITS + 1);
            cts[2] = sk.encrypt_with_alpha(&xs[2], &rs[2]).expect("enc");
            let proof = prove(&sk, 0, &cts, &xs, &rs, b"ctx", &mut rng).expect("proof");
            assert!(!verify(sk.public(), 0, &cts, &proof, b"ctx"));
        }
    }

    #[test]
    fn a_proof_is_bound_to_its_statement_and_context() {
        let mut rng = Rng::deterministic_for_tests(74);
        let sk = key(KeySize::Bits1024, 75);
        let other = key(KeySize::Bits1024, 76);
        let (cts, xs, rs) = batch(&sk, 6, 0, WITNESS_BITS, &mut rng);
        let proof = prove(&sk, 0, &cts, &xs, &rs, b"session-1", &mut rng).expect("proof");
        let pk = sk.public();
        assert!(verify(pk, 0, &cts, &proof, b"session-1"));
        assert!(!verify(pk, 0, &cts, &proof, b"session-2"), "context");
        assert!(!verify(pk, 1, &cts, &proof, b"session-1"), "shift");
        assert!(
            !verify(other.public(), 0, &cts, &proof, b"session-1"),
            "key"
        );
        assert!(!verify(pk, 0, &cts[..5], &proof, b"session-1"), "batch");
        let mut swapped = cts.clone();
        swapped.swap(0, 1);
        assert!(!verify(pk, 0, &swapped, &proof, b"session-1"), "order");
        let mut shifted = cts.clone();
        // α·(1 + 2^400·n): an encryption of x + 2^400 made from the public
        // key alone.
        let n = pk.n();
        let bump = (Integer::from(n << 400u32) + 1u32) % pk.n_squared();
        shifted[3] = pk
            .ciphertext(bump * shifted[3].as_integer() % pk.n_squared())
            .expect("unit");
        assert!(
            !verify(pk, 0, &shifted, &proof, b"session-1"),
            "shifted ciphertext"
        );
        for field in 0..3 {
            let mut bad = proof.clone();
            match field {
                0 => bad.e[3] ^= 4,
                1 => bad.z[7] += 1u32,
                _ => bad.zr[9] += 1u32,
            }
            assert!(!verify(pk, 0, &cts, &bad, b"session-1"), "field {field}");
        }
        // Malformed shapes are refusals, not panics.
        let mut short = proof.clone();
        short.z.pop();
        assert!(!verify(pk, 0, &cts, &short, b"session-1"));
        assert!(!verify(pk, 0, &[], &proof, b"session-1"));
        let mut negative = proof.clone();
        negative.z[0] = Integer::from(-1);
        assert!(!verify(pk, 0, &cts, &negative, b"session-1"));
    }

    #[test]
    fn wire_form_refuses_junk_past_the_batch() {
        let mut rng = Rng::deterministic_for_tests(77);
        let sk = key(KeySize::Bits1024, 78);
        let (cts, xs, rs) = batch(&sk, 2, 0, WITNESS_BITS, &mut rng);
        let proof = prove(&sk, 0, &cts, &xs, &rs, b"", &mut rng).expect("proof");
        let wire = ProofWire::encode(&proof);
        let mut bytes = vec![0u8; ProofWire::SIZE];
        wire.write(&mut bytes);
        *bytes.last_mut().expect("bytes") = 1;
        let junk = ProofWire::read(&bytes).expect("read");
        assert!(junk.decode(2).is_none());
        assert!(wire.decode(0).is_none() && wire.decode(MAX_BATCH + 1).is_none());
        assert!(ProofWire::read(&bytes[1..]).is_err());
        // A proof with a response too long to encode becomes all zero,
        // which does not verify.
        let mut long = proof.clone();
        long.z[0] = Integer::from(1) << (8 * Z_BYTES as u32);
        let zero = ProofWire::encode(&long).decode(2).expect("decode");
        assert!(!verify(sk.public(), 0, &cts, &zero, b""));
    }
}
