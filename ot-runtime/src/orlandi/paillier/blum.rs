//! A non-interactive proof that a Paillier modulus is well formed: the
//! Paillier–Blum modulus proof `Π^mod` of Canetti, Gennaro, Goldfeder,
//! Makriyannis and Peled, "UC Non-Interactive, Proactive, Threshold ECDSA
//! with Identifiable Aborts", CCS 2020 (eprint 2021/060), Figure 16
//! ("Paillier-Blum Modulus ZK"), built on Goldberg, Reyzin, Sagga and
//! Baldimtsi, "Efficient Noninteractive Certification of RSA Moduli and
//! Beyond", ASIACRYPT 2019. The key owner proves, once per key and
//! session, that its modulus `N` is the product of two distinct primes
//! `p ≡ q ≡ 3 (mod 4)` with `gcd(N, φ(N)) = 1`.
//!
//! **The proof** (Figure 16, made non-interactive by Fiat–Shamir as in the
//! paper):
//! 1. The prover samples `w` with Jacobi symbol `(w/N) = −1`.
//! 2. The challenges `y_1 … y_m ∈ Z_N` ([`CHALLENGES`] `= 128` of them) are
//!    expanded from SHA-256 over a domain label, the caller's context (the
//!    session and the prover's index), `N`, the key's root `h` and `w`.
//! 3. For each `i` the prover answers `z_i = y_i^(N^-1 mod φ(N)) mod N`
//!    (an `N`-th root) and `x_i`, a fourth root of `y'_i = (−1)^(a_i)·
//!    w^(b_i)·y_i mod N` for the one pair of bits `(a_i, b_i)` that makes
//!    `y'_i` a square modulo both primes (for a Blum modulus and `(w/N) =
//!    −1`, exactly one of `±y, ±w·y` is a square, and a square's principal
//!    square root is again a square, so its fourth root exists).
//! 4. The verifier accepts if `N` is odd and not prime, every value is a
//!    unit below `N`, `(w/N) = −1`, and for every `i`: `z_i^N ≡ y_i` and
//!    `x_i^4 ≡ (−1)^(a_i)·w^(b_i)·y_i (mod N)`.
//!
//! **What an accepted proof shows.** If the `N`-th power map is not a
//! permutation of `Z*_N` (`gcd(N, φ(N)) ≠ 1`, which includes every `N`
//! with a square factor `p²`), its image is at most half of `Z*_N`, so each
//! `y_i` has an `N`-th root with probability at most `1/2`. If `N` is
//! square-free with three or more prime factors, or has a prime factor `p
//! ≡ 1 (mod 4)`, the fourth powers have index at least 8 in `Z*_N` and the
//! four cosets `±1, ±w` cover at most half of it, so again each `y_i` is
//! answerable with probability at most `1/2` (GRSB19, the "Paillier-Blum"
//! argument of CGGMP, Figure 16). With `N` odd and not prime, what is left
//! is `N = pq`, `p ≠ q` primes `≡ 3 (mod 4)`, `gcd(N, φ(N)) = 1`.
//!
//! **Soundness of the Fiat–Shamir form, `m = 128`.** The `y_i` are
//! independent random-oracle outputs, so a malformed `N` passes all of them
//! with probability at most `2^-128` per hash query; a cheater grinding `w`
//! (or anything else the hash binds) needs about `2^128` queries, the
//! 128-bit level of the rest of the protocol ([`crate::orlandi::paillier::popk`]'s
//! challenges). A smaller `m` would trade that for speed (the verifier's
//! `m` exponentiations by `N` are its cost) and is not taken.
//!
//! **Zero knowledge** (honest-verifier, in the random-oracle model; the
//! paper's simulator programs the `y_i` as `z_i^N` and `±w^(-b)·x_i^4`).
//! The prover reveals `(a_i, b_i)`, the quadratic characters of `y_i`
//! relative to `w`, which is what Figure 16 sends.
//!
//! **The key's root `h`.** The proof binds `h` (it is hashed) and the
//! verifier checks `(h/N) = +1`, what key generation gives (`h = −x² mod
//! N`, and `(−1/N) = 1` for a Blum `N`). `h` needs no proof beyond that:
//! every receiver computes `h_s = h^N mod N²` itself
//! ([`PublicKey::from_root`]), so `h_s` is an `N`-th power by construction.
//!
//! The prover's exponentiations have secret exponents (derived from `p`,
//! `q`) and use the backend's `secure_pow_mod`, like the decryption; the verifier's
//! are variable-time (public values).

// The call sites are written for both big-integer backends: GMP's
// (feature `gmp`) arithmetic on references yields incomplete values that
// `Integer::from` completes, the pure-Rust backend's yields an `Integer`.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use crate::primitives::bignum::{IsPrime, Order, Pow};
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::{random_below, Integer, PublicKey, SecretKey};
use crate::transport::wire::{Wire, WireError};

/// Challenges `y_i` per proof (Fiat–Shamir soundness `2^-128` per hash
/// query, see the module docs).
pub const CHALLENGES: usize = 128;
/// Bytes of one value on the wire (a 3072-bit modulus, the largest key
/// size; smaller keys' values are zero-padded).
pub const VALUE_BYTES: usize = 384;
/// Bytes of the bit vectors `a` and `b`.
const BITS_BYTES: usize = CHALLENGES / 8;
/// Extra bytes hashed per challenge before reduction modulo `N` (the
/// statistical distance to uniform is below `2^-128`).
const EXTRA_BYTES: usize = 16;

/// Domain label of the challenge hash.
const DOMAIN: &[u8] = b"ot/paillier/blum-modulus/v1";

/// Why a key proof was refused, or could not be decoded. Each refusal
/// names the check of the module docs that failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeyProofError {
    /// An encoding of the wrong length.
    #[error("key proof: expected {expected} bytes, got {got}")]
    Length {
        /// Bytes of [`KeyProofWire`].
        expected: usize,
        /// Bytes received.
        got: usize,
    },
    /// A value (`w`, `x_i` or `z_i`) not in `[1, N)` or sharing a factor
    /// with `N`.
    #[error("key proof: {field}[{index}] is not a unit below N")]
    NotAUnit {
        /// `"w"`, `"x"` or `"z"`.
        field: &'static str,
        /// The value's index (0 for `w`).
        index: usize,
    },
    /// `N` is even or at most 1.
    #[error("key proof: N is even")]
    EvenModulus,
    /// `N` is (probably) prime.
    #[error("key proof: N is prime")]
    PrimeModulus,
    /// `(w/N) ≠ −1`.
    #[error("key proof: w does not have Jacobi symbol -1")]
    WitnessSymbol,
    /// `(h/N) ≠ +1`: not a root key generation makes.
    #[error("key proof: h does not have Jacobi symbol +1")]
    RootSymbol,
    /// `z_i^N ≠ y_i (mod N)`: the `N`-th power map is not shown to be a
    /// permutation.
    #[error("key proof: z[{index}]^N != y[{index}]")]
    NthRoot {
        /// The challenge's index.
        index: usize,
    },
    /// `x_i^4 ≠ (−1)^(a_i)·w^(b_i)·y_i (mod N)`: `N` is not shown to be a
    /// Blum integer with two prime factors.
    #[error("key proof: x[{index}]^4 != (-1)^a w^b y[{index}]")]
    FourthRoot {
        /// The challenge's index.
        index: usize,
    },
}

/// A proof (see the module docs): `w`, the fourth roots `x_i` with their
/// bits `a_i`, `b_i`, and the `N`-th roots `z_i`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyProof {
    w: Integer,
    x: Vec<Integer>,
    a: [u8; BITS_BYTES],
    b: [u8; BITS_BYTES],
    z: Vec<Integer>,
}

/// Bit `i` of a bit vector.
fn bit(v: &[u8; BITS_BYTES], i: usize) -> bool {
    (v[i / 8] >> (i % 8)) & 1 == 1
}

/// Bytes of `v` (non-negative, at most `len` bytes), little-endian,
/// zero-padded.
fn fixed(v: &Integer, len: usize) -> Vec<u8> {
    let mut out = vec![0u8; len];
    if v.cmp0() != core::cmp::Ordering::Less && v.significant_digits::<u8>() <= len {
        v.write_digits(&mut out, Order::Lsf);
    }
    out
}

/// The Fiat–Shamir challenges `y_1 … y_m` of a proof for `(n, h)` with
/// witness `w` in `context`: SHA-256 over the domain label, the context,
/// `n`, `h` and `w` (each length-prefixed) gives a seed; `y_i` is SHA-256
/// of the seed, `i` and a block counter, expanded to `|n| + 128` bits and
/// reduced modulo `n`. Public: the verifier recomputes them (and a test
/// prover that cheats uses them).
pub fn challenges(n: &Integer, h: &Integer, w: &Integer, context: &[u8]) -> Vec<Integer> {
    let nlen = (n.significant_bits() as usize).div_ceil(8);
    let mut hash = Sha256::new();
    for part in [DOMAIN, context] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part);
    }
    hash.update((nlen as u64).to_le_bytes());
    for v in [n, h, w] {
        hash.update(fixed(v, nlen));
    }
    let seed = hash.finalize();
    let want = nlen + EXTRA_BYTES;
    (0..CHALLENGES as u64)
        .map(|i| {
            let mut bytes = Vec::with_capacity(want + 32);
            let mut block = 0u64;
            while bytes.len() < want {
                let mut hb = Sha256::new();
                hb.update(seed);
                hb.update(i.to_le_bytes());
                hb.update(block.to_le_bytes());
                bytes.extend_from_slice(&hb.finalize());
                block += 1;
            }
            bytes.truncate(want);
            let y = Integer::from_digits(&bytes, Order::Lsf);
            if n.cmp0() == core::cmp::Ordering::Greater {
                y % n
            } else {
                y
            }
        })
        .collect()
}

/// `v mod m` in `[0, m)` for `m > 0`.
fn modp(v: &Integer, m: &Integer) -> Integer {
    let r = Integer::from(v % m);
    if r < 0 {
        r + m
    } else {
        r
    }
}

/// Proves that the key's modulus is a Blum integer with `gcd(N, φ(N)) = 1`
/// (the key's primes are `≡ 3 (mod 4)`, which [`SecretKey::generate`] and
/// [`SecretKey::from_primes`] ensure), bound to `context`. `None` if the
/// key is not of that form or a challenge is not a unit (which would
/// factor `N`; probability about `2^-1000` for an honest key).
pub fn prove<R: RngCore + CryptoRng + ?Sized>(
    sk: &SecretKey,
    context: &[u8],
    rng: &mut R,
) -> Option<KeyProof> {
    let (p, q) = (&sk.p, &sk.q);
    let n = sk.pk.n();
    if p.mod_u(4) != 3 || q.mod_u(4) != 3 {
        return None;
    }
    let one = Integer::from(1);
    let pm1 = Integer::from(p - 1u32);
    let qm1 = Integer::from(q - 1u32);
    // N^-1 modulo p − 1 and q − 1 (gcd(N, φ(N)) = 1 by key generation).
    let dp = Integer::from(n % &pm1).invert(&pm1).ok()?;
    let dq = Integer::from(n % &qm1).invert(&qm1).ok()?;
    // Fourth roots of squares: u^(((p+1)/4)^2) for p ≡ 3 (mod 4).
    let ep = (Integer::from(p + 1u32) >> 2u32).square() % &pm1;
    let eq = (Integer::from(q + 1u32) >> 2u32).square() % &qm1;
    let half_p = Integer::from(&pm1 >> 1u32);
    let half_q = Integer::from(&qm1 >> 1u32);
    // Euler's criterion, +1 for a square mod the prime.
    let is_square = |v: &Integer, prime: &Integer, half: &Integer| {
        modp(v, prime).secure_pow_mod(half, prime) == one
    };
    let w = loop {
        let w = random_below(n, rng);
        if w > 1 && w.jacobi(n) == -1 {
            break w;
        }
    };
    let w_sq_p = is_square(&w, p, &half_p);
    let crt = |rp: Integer, rq: Integer| -> Integer {
        // r = rq + q·((rp − rq)·q^{-1} mod p), a multiple of p above q
        // added so that no sign test on secret values is needed.
        let t = (rp + &sk.q_lift - &rq) * &sk.q_inv % p;
        rq + t * q
    };
    let ys = challenges(n, sk.pk.h(), &w, context);
    let answers: Option<Vec<(Integer, bool, bool, Integer)>> = ys
        .par_iter()
        .map(|y| {
            if y.clone().gcd(n) != 1 {
                return None;
            }
            let z = crt(
                modp(y, p).secure_pow_mod(&dp, p),
                modp(y, q).secure_pow_mod(&dq, q),
            );
            let (sp, sq) = (is_square(y, p, &half_p), is_square(y, q, &half_q));
            // (w/p)(w/q) = −1, so w^b fixes the product of the two
            // characters and (−1)^a both of them.
            let b = sp != sq;
            let a = sp == (b && !w_sq_p);
            let mut yy = y.clone();
            if b {
                yy = yy * &w % n;
            }
            if a {
                yy = Integer::from(n - &yy);
            }
            let x = crt(
                modp(&yy, p).secure_pow_mod(&ep, p),
                modp(&yy, q).secure_pow_mod(&eq, q),
            );
            Some((x, a, b, z))
        })
        .collect();
    let answers = answers?;
    let mut proof = KeyProof {
        w,
        x: Vec::with_capacity(CHALLENGES),
        a: [0; BITS_BYTES],
        b: [0; BITS_BYTES],
        z: Vec::with_capacity(CHALLENGES),
    };
    for (i, (x, a, b, z)) in answers.into_iter().enumerate() {
        proof.x.push(x);
        proof.z.push(z);
        proof.a[i / 8] |= u8::from(a) << (i % 8);
        proof.b[i / 8] |= u8::from(b) << (i % 8);
    }
    Some(proof)
}

/// Checks `proof` for the modulus `n` and root `h` in `context` (see the
/// module docs for the checks, in order); `Ok(())` if it is accepted, else
/// the first check that failed.
pub fn verify(
    n: &Integer,
    h: &Integer,
    proof: &KeyProof,
    context: &[u8],
) -> Result<(), KeyProofError> {
    if *n <= 1 || n.is_even() {
        return Err(KeyProofError::EvenModulus);
    }
    if n.is_probably_prime(30) != IsPrime::No {
        return Err(KeyProofError::PrimeModulus);
    }
    check_unit(n, &proof.w, "w", 0)?;
    for (field, values) in [("x", &proof.x), ("z", &proof.z)] {
        if values.len() != CHALLENGES {
            return Err(KeyProofError::NotAUnit {
                field,
                index: values.len(),
            });
        }
        for (i, v) in values.iter().enumerate() {
            check_unit(n, v, field, i)?;
        }
    }
    if proof.w.jacobi(n) != -1 {
        return Err(KeyProofError::WitnessSymbol);
    }
    if h.jacobi(n) != 1 {
        return Err(KeyProofError::RootSymbol);
    }
    let ys = challenges(n, h, &proof.w, context);
    let nth: Vec<bool> = (0..CHALLENGES)
        .into_par_iter()
        .map(|i| proof.z[i].clone().pow_mod(n, n).is_ok_and(|v| v == ys[i]))
        .collect();
    if let Some(index) = nth.iter().position(|ok| !ok) {
        return Err(KeyProofError::NthRoot { index });
    }
    for (i, y) in ys.iter().enumerate() {
        let mut want = y.clone();
        if bit(&proof.b, i) {
            want = want * &proof.w % n;
        }
        if bit(&proof.a, i) {
            want = Integer::from(n - &want);
        }
        let x4 = Integer::from(proof.x[i].square_ref()) % n;
        if Integer::from(x4.square_ref()) % n != want {
            return Err(KeyProofError::FourthRoot { index: i });
        }
    }
    Ok(())
}

/// [`verify`] for a public key (its modulus and root).
pub fn verify_key(pk: &PublicKey, proof: &KeyProof, context: &[u8]) -> Result<(), KeyProofError> {
    verify(pk.n(), pk.h(), proof, context)
}

/// `Ok` if `v` is a unit modulo `n` in `[1, n)`.
fn check_unit(
    n: &Integer,
    v: &Integer,
    field: &'static str,
    index: usize,
) -> Result<(), KeyProofError> {
    if *v <= 0 || v >= n || v.clone().gcd(n) != 1 {
        return Err(KeyProofError::NotAUnit { field, index });
    }
    Ok(())
}

impl KeyProof {
    /// A proof from its parts: `w`, the fourth roots `x`, their bits `a`,
    /// `b` (bit `i` of byte `i / 8`) and the `N`-th roots `z`. For provers
    /// other than [`prove`] (tests of what a cheating prover can make);
    /// [`verify`] refuses wrong shapes.
    pub fn from_parts(
        w: Integer,
        x: Vec<Integer>,
        a: [u8; CHALLENGES / 8],
        b: [u8; CHALLENGES / 8],
        z: Vec<Integer>,
    ) -> KeyProof {
        KeyProof { w, x, a, b, z }
    }
}

/// What a prover that knows the factorization `Π p^e` of an arbitrary odd
/// `n` (the primes and their exponents) can make, for tests of the
/// verifier's checks: `N`-th roots when `gcd(n, λ(n)) = 1` (else `z_i =
/// y_i`, which fails), and fourth roots wherever they exist modulo every
/// prime power with `p ≡ 3 (mod 4)` (else `x_i = 1`; a prime `≡ 1 (mod 4)`
/// gets no root). `w` has Jacobi symbol `−1` and, where it can, quadratic
/// characters that are not all equal, so that `±1, ±w` fall into distinct
/// classes. Not a proof of anything for a malformed `n`.
pub fn prove_best_effort<R: RngCore + CryptoRng + ?Sized>(
    n: &Integer,
    h: &Integer,
    factors: &[(Integer, u32)],
    context: &[u8],
    rng: &mut R,
) -> KeyProof {
    let one = Integer::from(1);
    // Per prime power: (p^e, order of Z*_{p^e}).
    let powers: Vec<(Integer, Integer, Integer)> = factors
        .iter()
        .map(|(p, e)| {
            let pe = Integer::from(p.pow(*e));
            let order = Integer::from(p.pow(e.saturating_sub(1))) * Integer::from(p - 1u32);
            (p.clone(), pe, order)
        })
        .collect();
    let lambda = powers
        .iter()
        .fold(Integer::from(1), |l, (_, _, o)| l.lcm(o));
    let d = Integer::from(n % &lambda).invert(&lambda).ok();
    let square_mod = |v: &Integer, pe: &Integer, order: &Integer| {
        Integer::from(v % pe)
            .pow_mod(&Integer::from(order >> 1u32), pe)
            .is_ok_and(|r| r == one)
    };
    let w = loop {
        let w = random_below(n, rng);
        if w <= 1 || w.jacobi(n) != -1 {
            continue;
        }
        let chars: Vec<bool> = powers
            .iter()
            .map(|(_, pe, o)| square_mod(&w, pe, o))
            .collect();
        if powers.len() < 2 || chars.iter().any(|&c| c != chars[0]) {
            break w;
        }
    };
    let ys = challenges(n, h, &w, context);
    let mut a = [0u8; BITS_BYTES];
    let mut b = [0u8; BITS_BYTES];
    let mut xs = Vec::with_capacity(CHALLENGES);
    let mut zs = Vec::with_capacity(CHALLENGES);
    for (i, y) in ys.iter().enumerate() {
        zs.push(match &d {
            Some(d) => y.clone().pow_mod(d, n).unwrap_or_default(),
            None => y.clone(),
        });
        let mut found = None;
        'combo: for (ai, bi) in [(false, false), (true, false), (false, true), (true, true)] {
            let mut yy = y.clone();
            if bi {
                yy = yy * &w % n;
            }
            if ai {
                yy = Integer::from(n - &yy);
            }
            let mut roots = Vec::new();
            for (p, pe, order) in &powers {
                if p.mod_u(4) != 3 || !square_mod(&yy, pe, order) {
                    continue 'combo;
                }
                // The squares have odd order order/2; 4 is invertible
                // modulo it.
                let half = Integer::from(order >> 1u32);
                let Ok(e4) = Integer::from(4).invert(&half) else {
                    continue 'combo;
                };
                let Ok(r) = Integer::from(&yy % pe).pow_mod(&e4, pe) else {
                    continue 'combo;
                };
                roots.push((r, pe));
            }
            // CRT over the prime powers.
            let mut x = Integer::new();
            let mut m = Integer::from(1);
            for (r, pe) in roots {
                let Ok(inv) = m.clone().invert(pe) else {
                    continue 'combo;
                };
                let t = modp(&((r - &x) * inv), pe);
                x += t * &m;
                m *= pe;
            }
            found = Some((ai, bi, x));
            break;
        }
        let (ai, bi, x) = found.unwrap_or((false, false, Integer::from(1)));
        a[i / 8] |= u8::from(ai) << (i % 8);
        b[i / 8] |= u8::from(bi) << (i % 8);
        xs.push(x);
    }
    KeyProof {
        w,
        x: xs,
        a,
        b,
        z: zs,
    }
}

/// A [`KeyProof`] on the wire, of a fixed size for every key size: `w`,
/// then [`CHALLENGES`] values `x_i`, then as many `z_i` (each
/// [`VALUE_BYTES`] bytes, little-endian, zero-padded), then the bits `a`
/// and `b` (16 bytes each).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeyProofWire(Vec<u8>);

impl Default for KeyProofWire {
    fn default() -> Self {
        KeyProofWire(vec![0; Self::SIZE])
    }
}

impl KeyProofWire {
    /// The encoding of `proof` (all zero, which no verifier accepts, if a
    /// value does not fit [`VALUE_BYTES`] or the shape is wrong).
    pub fn encode(proof: &KeyProof) -> KeyProofWire {
        let fits = proof.x.len() == CHALLENGES
            && proof.z.len() == CHALLENGES
            && core::iter::once(&proof.w)
                .chain(&proof.x)
                .chain(&proof.z)
                .all(|v| {
                    v.cmp0() != core::cmp::Ordering::Less
                        && v.significant_digits::<u8>() <= VALUE_BYTES
                });
        if !fits {
            return KeyProofWire::default();
        }
        let mut out = Vec::with_capacity(Self::SIZE);
        for v in core::iter::once(&proof.w).chain(&proof.x).chain(&proof.z) {
            out.extend_from_slice(&fixed(v, VALUE_BYTES));
        }
        out.extend_from_slice(&proof.a);
        out.extend_from_slice(&proof.b);
        KeyProofWire(out)
    }

    /// The proof for a modulus `n`: every value must be a unit modulo `n`
    /// below `n` (so a zero-padded field of a smaller key has zero
    /// padding). A typed error names the first bad value.
    pub fn decode(&self, n: &Integer) -> Result<KeyProof, KeyProofError> {
        if self.0.len() != Self::SIZE {
            return Err(KeyProofError::Length {
                expected: Self::SIZE,
                got: self.0.len(),
            });
        }
        let (values, bits) = self.0.split_at((1 + 2 * CHALLENGES) * VALUE_BYTES);
        let read = |k: usize| {
            Integer::from_digits(&values[k * VALUE_BYTES..(k + 1) * VALUE_BYTES], Order::Lsf)
        };
        let w = read(0);
        check_unit(n, &w, "w", 0)?;
        let mut x = Vec::with_capacity(CHALLENGES);
        let mut z = Vec::with_capacity(CHALLENGES);
        for i in 0..CHALLENGES {
            let v = read(1 + i);
            check_unit(n, &v, "x", i)?;
            x.push(v);
        }
        for i in 0..CHALLENGES {
            let v = read(1 + CHALLENGES + i);
            check_unit(n, &v, "z", i)?;
            z.push(v);
        }
        let mut a = [0u8; BITS_BYTES];
        let mut b = [0u8; BITS_BYTES];
        a.copy_from_slice(&bits[..BITS_BYTES]);
        b.copy_from_slice(&bits[BITS_BYTES..]);
        Ok(KeyProof { w, x, a, b, z })
    }
}

impl Wire for KeyProofWire {
    const SIZE: usize = (1 + 2 * CHALLENGES) * VALUE_BYTES + 2 * BITS_BYTES;

    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.0);
    }

    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        crate::transport::wire::exact_bytes(bytes, Self::SIZE).map(KeyProofWire)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orlandi::paillier::{random_bits, KeySize};
    use crate::primitives::rng::Rng;

    fn key(size: KeySize, seed: u64) -> SecretKey {
        SecretKey::generate(size, &mut Rng::deterministic_for_tests(seed))
    }

    /// A random prime of `bits` bits (top bit set) with `p mod 4 = r`.
    fn prime(bits: u32, r: u32, rng: &mut Rng) -> Integer {
        loop {
            let mut c = random_bits(bits, rng);
            c.set_bit(bits - 1, true);
            let p = c.next_prime();
            if p.significant_bits() == bits && p.mod_u(4) == r {
                return p;
            }
        }
    }

    /// `h = x² mod n` for a random unit `x`: Jacobi symbol `+1` for every
    /// `n` (key generation's `−x²` has symbol `−1` when `n` is a prime or
    /// has three factors `≡ 3 (mod 4)`, which the root check alone would
    /// catch; the tests aim at the other checks).
    fn root(n: &Integer, rng: &mut Rng) -> Integer {
        loop {
            let x = random_below(n, rng);
            if x > 1 && x.clone().gcd(n) == 1 {
                return x.square() % n;
            }
        }
    }

    /// The best proof for `n = Π p^e` (see [`prove_best_effort`]).
    fn cheat(
        factors: &[(Integer, u32)],
        ctx: &[u8],
        rng: &mut Rng,
    ) -> (Integer, Integer, KeyProof) {
        let n = factors
            .iter()
            .fold(Integer::from(1), |n, (p, e)| n * Integer::from(p.pow(*e)));
        let h = root(&n, rng);
        let proof = prove_best_effort(&n, &h, factors, ctx, rng);
        (n, h, proof)
    }

    #[test]
    fn honest_keys_of_1024_and_2048_bits_verify() {
        let mut rng = Rng::deterministic_for_tests(90);
        for (size, seed) in [(KeySize::Bits1024, 91), (KeySize::Bits2048, 92)] {
            let sk = key(size, seed);
            let proof = prove(&sk, b"ctx", &mut rng).expect("proof");
            let wire = KeyProofWire::encode(&proof);
            let back = wire.decode(sk.public().n()).expect("decode");
            assert_eq!(back, proof);
            assert_eq!(verify_key(sk.public(), &back, b"ctx"), Ok(()), "{size:?}");
        }
    }

    #[test]
    fn the_best_effort_prover_is_honest_on_a_blum_modulus() {
        // The test prover is not weaker than it should be: on a good
        // modulus it makes a proof that verifies.
        let mut rng = Rng::deterministic_for_tests(93);
        let (p, q) = (prime(256, 3, &mut rng), prime(256, 3, &mut rng));
        let (n, h, proof) = cheat(&[(p, 1), (q, 1)], b"ctx", &mut rng);
        assert_eq!(verify(&n, &h, &proof, b"ctx"), Ok(()));
    }

    #[test]
    fn a_modulus_with_three_prime_factors_is_refused() {
        // gcd(N, φ(N)) = 1, so every N-th root exists; half the y have no
        // fourth root of any of ±y, ±w·y.
        let mut rng = Rng::deterministic_for_tests(94);
        let f: Vec<(Integer, u32)> = (0..3).map(|_| (prime(342, 3, &mut rng), 1)).collect();
        let (n, h, proof) = cheat(&f, b"ctx", &mut rng);
        assert!(matches!(
            verify(&n, &h, &proof, b"ctx"),
            Err(KeyProofError::FourthRoot { .. })
        ));
    }

    #[test]
    fn a_prime_modulus_is_refused() {
        // A prime ≡ 3 (mod 4) answers every challenge.
        let mut rng = Rng::deterministic_for_tests(95);
        let p = prime(1024, 3, &mut rng);
        let (n, h, proof) = cheat(&[(p, 1)], b"ctx", &mut rng);
        assert_eq!(
            verify(&n, &h, &proof, b"ctx"),
            Err(KeyProofError::PrimeModulus)
        );
    }

    #[test]
    fn a_modulus_with_a_square_factor_is_refused() {
        // N = p²q, p ≡ q ≡ 3 (mod 4): every fourth root exists (the
        // squares of Z*_{p²} have odd order), but p | φ(N), so most y
        // have no N-th root.
        let mut rng = Rng::deterministic_for_tests(96);
        let (p, q) = (prime(342, 3, &mut rng), prime(684, 3, &mut rng));
        let (n, h, proof) = cheat(&[(p, 2), (q, 1)], b"ctx", &mut rng);
        assert!(matches!(
            verify(&n, &h, &proof, b"ctx"),
            Err(KeyProofError::NthRoot { .. })
        ));
    }

    #[test]
    fn a_prime_factor_of_1_mod_4_is_refused() {
        let mut rng = Rng::deterministic_for_tests(97);
        let (p, q) = (prime(512, 1, &mut rng), prime(512, 3, &mut rng));
        let (n, h, proof) = cheat(&[(p, 1), (q, 1)], b"ctx", &mut rng);
        assert!(matches!(
            verify(&n, &h, &proof, b"ctx"),
            Err(KeyProofError::FourthRoot { .. })
        ));
    }

    #[test]
    fn an_even_modulus_is_refused() {
        // N = 2pq: even (and the N-th power map is not a permutation
        // either, so the parity check is not the only one that catches it).
        let mut rng = Rng::deterministic_for_tests(98);
        let sk = key(KeySize::Bits1024, 99);
        let proof = prove(&sk, b"ctx", &mut rng).expect("proof");
        let n2 = Integer::from(sk.public().n() * 2u32);
        assert_eq!(
            verify(&n2, sk.public().h(), &proof, b"ctx"),
            Err(KeyProofError::EvenModulus)
        );
    }

    #[test]
    fn a_proof_is_bound_to_its_session_party_and_key() {
        let mut rng = Rng::deterministic_for_tests(100);
        let sk = key(KeySize::Bits1024, 101);
        let other = key(KeySize::Bits1024, 102);
        let pk = sk.public();
        let proof = prove(&sk, b"session-1/party-0", &mut rng).expect("proof");
        assert_eq!(verify_key(pk, &proof, b"session-1/party-0"), Ok(()));
        for ctx in [&b"session-2/party-0"[..], b"session-1/party-1"] {
            assert!(matches!(
                verify_key(pk, &proof, ctx),
                Err(KeyProofError::NthRoot { .. })
            ));
        }
        // Another key (modulus), and the same modulus with another root.
        assert!(verify_key(other.public(), &proof, b"session-1/party-0").is_err());
        let h2 = Integer::from(pk.h() * 4u32) % pk.n();
        assert!(matches!(
            verify(pk.n(), &h2, &proof, b"session-1/party-0"),
            Err(KeyProofError::NthRoot { .. })
        ));
    }

    #[test]
    fn tampered_roots_are_refused() {
        let mut rng = Rng::deterministic_for_tests(103);
        let sk = key(KeySize::Bits1024, 104);
        let pk = sk.public();
        let proof = prove(&sk, b"ctx", &mut rng).expect("proof");
        let mut bad = proof.clone();
        bad.x[5] = Integer::from(&bad.x[5] * 3u32) % pk.n();
        assert_eq!(
            verify_key(pk, &bad, b"ctx"),
            Err(KeyProofError::FourthRoot { index: 5 })
        );
        let mut bad = proof.clone();
        bad.a[1] ^= 1; // flips a_8
        assert_eq!(
            verify_key(pk, &bad, b"ctx"),
            Err(KeyProofError::FourthRoot { index: 8 })
        );
        let mut bad = proof.clone();
        bad.z[7] = Integer::from(&bad.z[7] * 3u32) % pk.n();
        assert_eq!(
            verify_key(pk, &bad, b"ctx"),
            Err(KeyProofError::NthRoot { index: 7 })
        );
        // A w of Jacobi symbol +1.
        let mut plus = proof;
        plus.w = Integer::from(4);
        assert_eq!(
            verify_key(pk, &plus, b"ctx"),
            Err(KeyProofError::WitnessSymbol)
        );
    }

    #[test]
    fn a_root_of_jacobi_symbol_minus_one_is_refused() {
        let mut rng = Rng::deterministic_for_tests(105);
        let sk = key(KeySize::Bits1024, 106);
        let pk = sk.public();
        let proof = prove(&sk, b"ctx", &mut rng).expect("proof");
        // −h·w has symbol (+1)(−1) = −1 for the proof's own w.
        let h2: Integer = pk.n() - Integer::from(pk.h() * &proof.w) % pk.n();
        assert_eq!(
            verify(pk.n(), &h2, &proof, b"ctx"),
            Err(KeyProofError::RootSymbol)
        );
    }

    #[test]
    fn junk_on_the_wire_is_a_typed_error() {
        let mut rng = Rng::deterministic_for_tests(107);
        let sk = key(KeySize::Bits1024, 108);
        let n = sk.public().n();
        let proof = prove(&sk, b"", &mut rng).expect("proof");
        let mut bytes = vec![0u8; KeyProofWire::SIZE];
        KeyProofWire::encode(&proof).write(&mut bytes);
        assert!(KeyProofWire::read(&bytes[1..]).is_err());
        assert_eq!(
            KeyProofWire(bytes[1..].to_vec()).decode(n),
            Err(KeyProofError::Length {
                expected: KeyProofWire::SIZE,
                got: KeyProofWire::SIZE - 1
            })
        );
        // All zero: w = 0.
        assert_eq!(
            KeyProofWire::default().decode(n),
            Err(KeyProofError::NotAUnit {
                field: "w",
                index: 0
            })
        );
        // A value past a 1024-bit key's 128 bytes (>= N).
        let mut big = bytes.clone();
        big[VALUE_BYTES * 3 + 200] = 1;
        assert_eq!(
            KeyProofWire::read(&big).expect("read").decode(n),
            Err(KeyProofError::NotAUnit {
                field: "x",
                index: 2
            })
        );
        // z_0 = N itself: not below N.
        let mut at_n = bytes.clone();
        let off = VALUE_BYTES * (1 + CHALLENGES);
        at_n[off..off + VALUE_BYTES].copy_from_slice(&fixed(n, VALUE_BYTES));
        assert_eq!(
            KeyProofWire::read(&at_n).expect("read").decode(n),
            Err(KeyProofError::NotAUnit {
                field: "z",
                index: 0
            })
        );
        // A value sharing the factor p with N.
        let mut shared = bytes;
        shared[VALUE_BYTES..2 * VALUE_BYTES].copy_from_slice(&fixed(&sk.p, VALUE_BYTES));
        assert_eq!(
            KeyProofWire::read(&shared).expect("read").decode(n),
            Err(KeyProofError::NotAUnit {
                field: "x",
                index: 0
            })
        );
        // A proof with a value too long to encode becomes all zero.
        let mut long = proof;
        long.x[0] = Integer::from(1) << (8 * VALUE_BYTES as u32);
        assert_eq!(KeyProofWire::encode(&long), KeyProofWire::default());
    }
}
