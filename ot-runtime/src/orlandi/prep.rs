//! Kernels of the Orlandi preprocessing, `protocols/orlandi_triple.otp`:
//! Triple Generation with Paillier (Jakobsen, Makkes and Nielsen, ACNS
//! 2010, slides "Triple Test and Triple Generation" and "Preprocessing is
//! Slow in Python"), the random-subset check and the Triple Test (slide
//! "Random Triple Generation"; Damgård and Orlandi, CRYPTO 2010). The
//! message flow and every check live in the `.otp`; these functions are the
//! local computations it calls.
//!
//! Layout. A run generates `count = 2·(m + k)` raw triples, numbered
//! `t`; pair `p` is the raw triples `2p` (kept) and `2p + 1` (sacrificed in
//! its Triple Test). Under a key that packs (2048 or 3072 bits), raw
//! triple `t` sits in slot `t mod 2` of its pair's packed `γ`
//! ([`crate::orlandi::triple`]): its `α_t` encrypts `a_t·2^(820·(t mod
//! 2))`, and one `γ` per pair and peer answers both; under a 1024-bit key
//! `α_t` encrypts `a_t` and the pair's `γ` is two ciphertexts in the same
//! wire field. A party's secrets are `a ‖ b ‖ ρ1 ‖ ρ2` (the share
//! layout of [`crate::orlandi::mask_commitments`], `2·count` values), its
//! shares of the raw triples one [`Shares`] batch `a ‖ b ‖ c` of
//! `3·count` values. The challenge ([`Challenge`]) opens `k` pairs and
//! tests the other `m`, whose kept triples go to the distillation
//! ([`crate::orlandi::distill`]) in bucket order.
//!
//! Randomness. Scalars are sampled in the `.otp`; the Paillier randomizers
//! and the masks `d` are expanded from a seed sampled in the `.otp`, by
//! AES-CTR at a lane per (party, triple), so that a party can re-derive and
//! reveal the ones of an opened triple.
//!
//! Kernels take inputs whose shapes the protocol fixed; on mismatched
//! inputs they return empty or failing values and never panic.

use std::collections::HashMap;

use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use crate::orlandi::paillier::blum::{self, KeyProofWire};
use crate::orlandi::paillier::popk::{self, ProofWire};
use crate::orlandi::paillier::wire::{
    ciphertext_padded as ciphertext, encode_ciphertext, Ciphertext3072, LongNonce, Mask, Nonce3072,
    PublicKey3072,
};
use crate::orlandi::paillier::{Ciphertext, Integer, KeySize, PublicKey, SecretKey};
use crate::orlandi::pedersen::commit;
use crate::orlandi::triple::{
    decode_gamma, encode_gamma, gamma, gamma_parts, in_slot, join_randomizers, key_fits,
    product_share, random_mask, scalar_to_integer, slot_of, split_randomizers, MASK_BITS, SLOTS,
    SLOT_BITS,
};
use crate::orlandi::{mask_commitments, mul_finish, mul_masked, Shares};
use crate::primitives::ec::{Point, Scalar};
use crate::primitives::prg::Prg;
use crate::transport::wire::{Wire, WireError};
use crate::Block;

/// Modulus sizes a party's Paillier key may have (each party picks its
/// own; [`TripleKey::generate`] makes the default, 2048 bits). 1024-bit
/// keys (VIFF's size) are too small for the packed `γ` and get the
/// unpacked one ([`crate::orlandi::triple::packs`]).
pub const KEY_BITS: [u32; 3] = [1024, 2048, 3072];
/// A ciphertext on the wire: a field of 3072-bit capacity (a message field
/// needs a compile-time size), smaller keys' ciphertexts zero-padded.
pub type CtWire = Ciphertext3072;
/// A short randomizer on the wire (3072-bit capacity, zero-padded).
pub type NonceWire = Nonce3072;
/// A public key on the wire (3072-bit capacity, zero-padded).
pub type PkWire = PublicKey3072;

/// Domain label of the challenge expansion.
const CHALLENGE_DOMAIN: &[u8] = b"ot-runtime/orlandi-triple/challenge/v1";
/// Stream blocks reserved per lane of a seeded expansion.
const LANE_BLOCKS: u64 = 1 << 16;

/// AES-CTR stream at one lane of a seed, as a `rand_core` generator (the
/// expansion of a seed the `.otp` sampled).
struct Lane(Prg);

impl Lane {
    fn new(seed: Block, lane: u64) -> Lane {
        Lane(Prg::new_at(seed, lane.wrapping_mul(LANE_BLOCKS)))
    }
}

impl RngCore for Lane {
    fn next_u32(&mut self) -> u32 {
        self.next_u64() as u32
    }
    fn next_u64(&mut self) -> u64 {
        self.0.next_block().as_u128() as u64
    }
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        self.0.fill_bytes(dest);
    }
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.0.fill_bytes(dest);
        Ok(())
    }
}

impl CryptoRng for Lane {}

/// One party's secrets of a run: its shares `a ‖ b ‖ ρ1 ‖ ρ2` of the raw
/// triples' `a` and `b`, the randomizers and ciphertexts `α_t = Enc(a_t;
/// R_t)` under its own key, and (after [`products`]) its `c` shares with
/// their randomness `ρc1 ‖ ρc2`.
#[derive(Clone, Debug, Default)]
pub struct Generated {
    me: usize,
    pk: Option<PublicKey>,
    count: usize,
    ab: Vec<Scalar>,
    nonces: Vec<Integer>,
    alpha: Vec<Ciphertext>,
    c: Vec<Scalar>,
    rc: Vec<Scalar>,
}

impl Generated {
    fn a(&self, t: usize) -> Scalar {
        self.ab.get(t).copied().unwrap_or_default()
    }
    fn b(&self, t: usize) -> Scalar {
        self.ab.get(self.count + t).copied().unwrap_or_default()
    }
}

/// A party's own Paillier key, the input of `orlandi_triple.otp` (the
/// default, no key, fails the protocol's first check). Generate it once
/// (a modulus of one of the [`KEY_BITS`] sizes) and reuse it across runs.
#[derive(Clone, Debug, Default)]
pub struct TripleKey(Option<SecretKey>);

impl TripleKey {
    /// The input holding `sk`.
    pub fn new(sk: SecretKey) -> TripleKey {
        TripleKey(Some(sk))
    }

    /// A fresh key of the default size, 2048 bits (key generation takes a
    /// second or more).
    pub fn generate<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> TripleKey {
        TripleKey::generate_sized(KeySize::default(), rng)
    }

    /// A fresh key of `size` (3072 bits matches Ristretto255's 128-bit
    /// level; 1024 is VIFF's benchmark size and below today's advice).
    pub fn generate_sized<R: RngCore + CryptoRng + ?Sized>(
        size: KeySize,
        rng: &mut R,
    ) -> TripleKey {
        TripleKey::new(SecretKey::generate(size, rng))
    }

    /// The secret key, if any.
    pub fn secret(&self) -> Option<&SecretKey> {
        self.0.as_ref()
    }
}

impl From<SecretKey> for TripleKey {
    fn from(sk: SecretKey) -> TripleKey {
        TripleKey::new(sk)
    }
}

/// Whether the party's own key has one of the [`KEY_BITS`] sizes and a
/// plaintext space large enough for `parties` (no wrap-around,
/// [`key_fits`]).
pub fn key_ok(sk: &TripleKey, parties: usize) -> bool {
    sk.secret().is_some_and(|sk| {
        KEY_BITS.contains(&sk.public().n().significant_bits()) && key_fits(sk.public(), parties)
    })
}

/// The party's public key on the wire.
pub fn public_key(sk: &TripleKey) -> PkWire {
    sk.secret()
        .map(|sk| PkWire::encode(sk.public()))
        .unwrap_or_default()
}

/// A proof that a key's modulus is well formed, on the wire
/// ([`crate::orlandi::paillier::blum`], the Paillier–Blum modulus proof of CGGMP,
/// eprint 2021/060, Figure 16).
pub type PaillierKeyProof = KeyProofWire;

/// The context a key proof is bound to: a domain label, the session and
/// the prover (the modulus, the key's root and the proof's `w` are hashed
/// by [`blum`] itself). Public so that a test can make the best proof a
/// cheating prover can for a malformed modulus
/// ([`blum::prove_best_effort`]).
pub fn key_proof_context(session: Block, prover: usize) -> Vec<u8> {
    let mut c = b"orlandi/triple/key".to_vec();
    c.extend_from_slice(&session.to_bytes());
    c.extend_from_slice(&(prover as u64).to_le_bytes());
    c
}

/// Triple Generation, step 1: the party's proof that its modulus is the
/// product of two distinct primes `≡ 3 (mod 4)` with `gcd(N, φ(N)) = 1`
/// ([`blum::prove`], 128 challenges), bound to the session and the party;
/// randomness from lane 0 of `seed`. All zero (refused by every peer) if
/// there is no key or it is not a Blum modulus.
pub fn key_proof(sk: &TripleKey, me: usize, session: Block, seed: Block) -> PaillierKeyProof {
    sk.secret()
        .and_then(|sk| blum::prove(sk, &key_proof_context(session, me), &mut Lane::new(seed, 0)))
        .map(|p| KeyProofWire::encode(&p))
        .unwrap_or_default()
}

/// Whether party `j`'s key proof is accepted for its broadcast key in this
/// session ([`blum::verify_key`]; the `.otp` aborts with `BadKeyProof`
/// otherwise, before any ciphertext under the key is used). Nothing to
/// check for `j == me`.
pub fn key_proof_ok(
    keys: &PeerKeys,
    me: usize,
    j: usize,
    proof: &PaillierKeyProof,
    session: Block,
) -> bool {
    if j == me {
        return true;
    }
    keys.get(j).is_some_and(|pk| {
        proof
            .decode(pk.n())
            .and_then(|p| blum::verify_key(pk, &p, &key_proof_context(session, j)))
            .is_ok()
    })
}

/// Step 1 of Triple Generation: from the sampled secrets (`a ‖ b ‖ ρ1 ‖ ρ2`,
/// `6·count` scalars) and a seed for the Paillier randomizers, the
/// encryptions `α_t = Enc(a_t·2^(820·(t mod 2)); R_t)` under the party's
/// own key (by CRT, [`SecretKey::encrypt_with_alpha`]: the party knows its
/// factors).
pub fn generate(
    sk: &TripleKey,
    me: usize,
    secrets: &[Scalar],
    seed: Block,
    count: usize,
) -> Generated {
    let Some(sk) = sk.secret() else {
        return Generated::default();
    };
    if secrets.len() != 6 * count || !count.is_multiple_of(SLOTS) {
        return Generated::default();
    }
    let pk = sk.public();
    let enc: Vec<Option<(Integer, Ciphertext)>> = (0..count)
        .into_par_iter()
        .map(|t| {
            let r = pk.random_alpha(&mut Lane::new(seed, t as u64));
            let c = sk.encrypt_with_alpha(&slotted(pk, &secrets[t], t), &r);
            c.ok().map(|c| (r, c))
        })
        .collect();
    let (nonces, alpha) = enc.into_iter().flatten().unzip();
    Generated {
        me,
        pk: Some(pk.clone()),
        count,
        ab: secrets.to_vec(),
        nonces,
        alpha,
        c: Vec::new(),
        rc: Vec::new(),
    }
}

/// The plaintext of `α_t` under `pk`: `a_t` shifted into its slot (`t mod
/// 2` for a key that packs, else 0).
fn slotted(pk: &PublicKey, a: &Scalar, t: usize) -> Integer {
    in_slot(&scalar_to_integer(a), slot_of(pk, t))
}

/// The party's `α_t` on the wire.
pub fn alphas(g: &Generated, _count: usize) -> Vec<CtWire> {
    g.alpha.iter().map(encode_ciphertext).collect()
}

/// A proof of plaintext knowledge with a range bound on the wire
/// ([`crate::orlandi::paillier::popk`]), one per batch of `α`.
pub type PaillierProof = ProofWire;

/// The batches of a party's `α` that one proof covers, in proof order:
/// proof `q` covers raw triples `t = 2p + c` for `c = q mod 2` and the
/// pairs `p` of chunk `q / 2` (chunks of [`popk::MAX_BATCH`] pairs), so the
/// `α` of a batch share one slot shift (`c·SLOT_BITS` under a key that
/// packs, 0 otherwise). `2·⌈pairs/128⌉` batches.
fn proof_batches(pairs: usize) -> Vec<(usize, Vec<usize>)> {
    (0..pairs.div_ceil(popk::MAX_BATCH))
        .flat_map(|chunk| {
            let lo = chunk * popk::MAX_BATCH;
            let hi = (lo + popk::MAX_BATCH).min(pairs);
            (0..SLOTS).map(move |c| (c, (lo..hi).map(|p| SLOTS * p + c).collect()))
        })
        .collect()
}

/// The slot shift, in bits, of class `c`'s plaintexts under `pk`.
fn class_shift(pk: &PublicKey, c: usize) -> u32 {
    SLOT_BITS * slot_of(pk, c) as u32
}

/// The context a proof is bound to: a domain label, the session, the
/// prover, the proof's index and the run's pair count (the statement, key
/// and ciphertexts are hashed by [`popk`] itself).
fn proof_context(session: Block, prover: usize, q: usize, pairs: usize) -> Vec<u8> {
    let mut c = b"orlandi/triple/alpha".to_vec();
    c.extend_from_slice(&session.to_bytes());
    for v in [prover, q, pairs] {
        c.extend_from_slice(&(v as u64).to_le_bytes());
    }
    c
}

/// Triple Generation, step 1: the party's proofs that it knows the
/// plaintext of each of its `α_t` and that it is small (`|a| <
/// 2^`[`popk::PROVEN_BITS`]), batched as `proof_batches`, bound to the
/// session and the party (Fiat–Shamir, [`popk`]). Every receiver checks
/// them ([`alpha_proofs_ok`]) before it raises an `α` to its secret `b`.
pub fn alpha_proofs(
    sk: &TripleKey,
    g: &Generated,
    session: Block,
    proof_seed: Block,
    pairs: usize,
) -> Vec<PaillierProof> {
    let batches = proof_batches(pairs);
    let (Some(sk), true) = (sk.secret(), g.alpha.len() == SLOTS * pairs) else {
        return vec![PaillierProof::default(); batches.len()];
    };
    let pk = sk.public();
    batches
        .par_iter()
        .enumerate()
        .map(|(q, (c, ts))| {
            let cts: Vec<Ciphertext> = ts.iter().map(|&t| g.alpha[t].clone()).collect();
            let xs: Vec<Integer> = ts.iter().map(|&t| scalar_to_integer(&g.a(t))).collect();
            let rs: Vec<Integer> = ts.iter().map(|&t| g.nonces[t].clone()).collect();
            let mut rng = Lane::new(proof_seed, q as u64);
            let context = proof_context(session, g.me, q, pairs);
            popk::prove(sk, class_shift(pk, *c), &cts, &xs, &rs, &context, &mut rng)
                .map(|p| ProofWire::encode(&p))
                .unwrap_or_default()
        })
        .collect()
}

/// Whether party `j`'s proofs show that every one of its `α` encrypts a
/// small plaintext in its slot (see [`alpha_proofs`]; the `.otp` aborts
/// with `BadEncryptionProof` otherwise). Nothing to check for `j == me`.
pub fn alpha_proofs_ok(
    keys: &PeerKeys,
    me: usize,
    j: usize,
    alpha_j: &[CtWire],
    proofs_j: &[PaillierProof],
    session: Block,
) -> bool {
    if j == me {
        return true;
    }
    let Some(pk) = keys.get(j) else {
        return false;
    };
    let pairs = alpha_j.len() / SLOTS;
    let batches = proof_batches(pairs);
    if alpha_j.len() != SLOTS * pairs || proofs_j.len() != batches.len() {
        return false;
    }
    batches.par_iter().enumerate().all(|(q, (c, ts))| {
        let cts: Option<Vec<Ciphertext>> = ts
            .iter()
            .map(|&t| alpha_j.get(t).and_then(|a| ciphertext(pk, a)))
            .collect();
        let context = proof_context(session, j, q, pairs);
        match (cts, proofs_j[q].decode(ts.len())) {
            (Some(cts), Some(proof)) => {
                popk::verify(pk, class_shift(pk, *c), &cts, &proof, &context)
            }
            _ => false,
        }
    })
}

/// The commitments `A_t ‖ B_t` to the party's shares of `a` and `b`.
pub fn commit_ab(g: &Generated, count: usize) -> Vec<Point> {
    mask_commitments(&g.ab, 2 * count)
}

/// Every party's public key as received (`None`: malformed).
#[derive(Clone, Debug, Default)]
pub struct PeerKeys(Vec<Option<PublicKey>>);

impl PeerKeys {
    fn get(&self, j: usize) -> Option<&PublicKey> {
        self.0.get(j).and_then(Option::as_ref)
    }
}

/// Keys decoded in earlier runs, by the SHA-256 of their encoding: a key's
/// fixed-base table takes longer to build than many of its encryptions, and
/// parties reuse their keys across runs.
static KEY_CACHE: std::sync::OnceLock<std::sync::Mutex<HashMap<[u8; 32], PublicKey>>> =
    std::sync::OnceLock::new();
/// Keys kept in [`KEY_CACHE`] before it is emptied (bounds its memory: a
/// 2048-bit key's table is about 7 MB, a 3072-bit one about 16 MB).
const KEY_CACHE_MAX: usize = 16;

/// The key encoded in `k` (see [`peer_keys`]), from the cache if it was
/// decoded before.
fn decode_cached(k: &PkWire) -> Option<PublicKey> {
    let mut bytes = vec![0u8; PkWire::SIZE];
    k.write(&mut bytes);
    let id: [u8; 32] = Sha256::digest(&bytes).into();
    let cache = KEY_CACHE.get_or_init(Default::default);
    if let Some(pk) = cache.lock().ok().and_then(|c| c.get(&id).cloned()) {
        return Some(pk);
    }
    let pk = k.decode_sized(&KEY_BITS)?;
    if let Ok(mut c) = cache.lock() {
        if c.len() >= KEY_CACHE_MAX {
            c.clear();
        }
        c.insert(id, pk.clone());
    }
    Some(pk)
}

/// Decodes every party's broadcast key (fixed-base tables included; keys
/// seen in earlier runs of this process come from a cache).
pub fn peer_keys(pks: &[PkWire]) -> PeerKeys {
    PeerKeys(pks.par_iter().map(decode_cached).collect())
}

/// Whether party `j`'s key is well formed, of one of the [`KEY_BITS`]
/// sizes and large enough for `parties` (see
/// [`crate::orlandi::paillier::wire::WirePublicKey::decode`]
/// for what this cannot show; [`key_proof_ok`] shows the rest).
pub fn peer_key_ok(keys: &PeerKeys, j: usize, parties: usize) -> bool {
    keys.get(j).is_some_and(|k| key_fits(k, parties))
}

/// Whether every value in `cts` is a ciphertext under party `j`'s key (a
/// unit modulo `n_j²`).
pub fn ciphertexts_ok(keys: &PeerKeys, j: usize, cts: &[CtWire]) -> bool {
    keys.get(j)
        .is_some_and(|pk| cts.par_iter().all(|c| ciphertext(pk, c).is_some()))
}

/// Whether the `γ` that party `j` sent are ciphertexts under this party's
/// key (one or two per `γ`, [`decode_gamma`]; nothing to check for `j ==
/// me`).
pub fn incoming_ok(keys: &PeerKeys, me: usize, j: usize, cts: &[CtWire]) -> bool {
    j == me
        || keys.get(me).is_some_and(|pk| {
            cts.par_iter()
                .all(|c| decode_gamma(pk, &c.to_integer()).is_some())
        })
}

/// The slot masks `d_s` and fresh randomizers `R'` (one per ciphertext of
/// the `γ`, [`gamma_parts`]) of the `γ` that this party sends party `j` for
/// pair `p` (lane `j·pairs + p` of `gseed`).
fn gamma_randomness(
    pk: &PublicKey,
    gseed: Block,
    j: usize,
    p: usize,
    pairs: usize,
) -> (Vec<Integer>, Vec<Integer>) {
    let mut rng = Lane::new(gseed, (j * pairs + p) as u64);
    let d = (0..SLOTS).map(|_| random_mask(&mut rng)).collect();
    let r = (0..gamma_parts(pk))
        .map(|_| pk.random_long_randomizer(&mut rng))
        .collect();
    (d, r)
}

/// The slot masks alone (drawn first, so they do not depend on the key).
fn gamma_masks(gseed: Block, j: usize, p: usize, pairs: usize) -> Vec<Integer> {
    let mut rng = Lane::new(gseed, (j * pairs + p) as u64);
    (0..SLOTS).map(|_| random_mask(&mut rng)).collect()
}

/// The ciphertexts `α_{2p}, α_{2p+1}` of pair `p` in `alpha` under `pk`.
fn pair_alphas(pk: &PublicKey, alpha: &[CtWire], p: usize) -> Option<Vec<Ciphertext>> {
    (0..SLOTS)
        .map(|s| alpha.get(SLOTS * p + s).and_then(|a| ciphertext(pk, a)))
        .collect()
}

/// Step 2 of Triple Generation: for every other party `j` and pair `p`,
/// one packed `γ_jp = α_{j,2p}^{b_2p} · α_{j,2p+1}^{b_2p+1} · Enc_j(d_0 +
/// d_1·2^820; R')` with `d_s` uniform below `2^MASK_BITS` and a fresh long
/// randomizer `R'` (VIFF multiplies by `Enc(1; 1)^d = g^d`, without fresh
/// randomness); under a key that does not pack, the two ciphertexts
/// `α_{j,t}^{b_t}·Enc_j(d_s; R'_s)` in one field ([`encode_gamma`]).
/// Element `j` goes to party `j`; the own element is empty-valued and not
/// sent.
pub fn gammas(
    keys: &PeerKeys,
    alpha: &[Vec<CtWire>],
    g: &Generated,
    gseed: Block,
    me: usize,
    pairs: usize,
) -> Vec<Vec<CtWire>> {
    (0..alpha.len())
        .map(|j| {
            let (Some(pk), false) = (keys.get(j), j == me) else {
                return vec![CtWire::default(); pairs];
            };
            (0..pairs)
                .into_par_iter()
                .map(|p| {
                    let (d, r) = gamma_randomness(pk, gseed, j, p, pairs);
                    let b = [g.b(SLOTS * p), g.b(SLOTS * p + 1)];
                    pair_alphas(pk, &alpha[j], p)
                        .and_then(|a| gamma(pk, &a, &b, &d, &r).ok())
                        .map(|c| CtWire::from_integer_or_zero(&encode_gamma(pk, &c)))
                        .unwrap_or_default()
                })
                .collect()
        })
        .collect()
}

/// Step 3 of Triple Generation: `c_t = a_t·b_t + slot_t(Dec(Π_j γ_jp)) −
/// Σ_j d_jt` for both raw triples `t` of each pair `p` (one CRT decryption
/// per pair; `d_jt` the slot masks this party used towards `j`), with the
/// sampled randomness `ρc1 ‖ ρc2` (`2·count`) of its commitments.
pub fn products(
    g: &Generated,
    sk: &TripleKey,
    gamma_in: &[Vec<CtWire>],
    gseed: Block,
    me: usize,
    rc: &[Scalar],
) -> Generated {
    let Some(sk) = sk.secret() else {
        return g.clone();
    };
    let pk = sk.public();
    let pairs = g.count / SLOTS;
    let c: Vec<Vec<Scalar>> = (0..pairs)
        .into_par_iter()
        .map(|p| {
            let others = (0..gamma_in.len()).filter(|&j| j != me);
            let received: Vec<Vec<Ciphertext>> = others
                .clone()
                .filter_map(|j| {
                    gamma_in[j]
                        .get(p)
                        .and_then(|w| decode_gamma(pk, &w.to_integer()))
                })
                .collect();
            let sent: Vec<Vec<Integer>> = others.map(|j| gamma_masks(gseed, j, p, pairs)).collect();
            let t = SLOTS * p;
            let a = [g.a(t), g.a(t + 1)];
            let b = [g.b(t), g.b(t + 1)];
            product_share(sk, &received, &a, &b, &sent)
        })
        .collect();
    let c = c.concat();
    Generated {
        c,
        rc: rc.to_vec(),
        ..g.clone()
    }
}

/// The commitments `C_t = Com(c_t; ρc1_t, ρc2_t)`.
pub fn commit_c(g: &Generated, count: usize) -> Vec<Point> {
    if g.c.len() != count || g.rc.len() != 2 * count {
        return Vec::new();
    }
    (0..count)
        .into_par_iter()
        .map(|t| commit(g.c[t], g.rc[t], g.rc[count + t]))
        .collect()
}

/// The party's shares `a ‖ b ‖ c` of the raw triples in the online phase's
/// format, with every party's broadcast commitments (`com_ab[j]`,
/// `com_c[j]`).
pub fn shares(
    me: usize,
    g: &Generated,
    com_ab: &[Vec<Point>],
    com_c: &[Vec<Point>],
    count: usize,
) -> Shares {
    let part = |v: &[Scalar], r: std::ops::Range<usize>| v.get(r).unwrap_or(&[]).to_vec();
    let (n2, n4) = (2 * count, 4 * count);
    let x = [part(&g.ab, 0..n2), g.c.clone()].concat();
    let r1 = [part(&g.ab, n2..n2 + n2), part(&g.rc, 0..count)].concat();
    let r2 = [part(&g.ab, n4..n4 + n2), part(&g.rc, count..n2)].concat();
    let coms = com_ab
        .iter()
        .zip(com_c)
        .map(|(ab, c)| [ab.as_slice(), c].concat())
        .collect();
    Shares::new(me, x, r1, r2, coms).unwrap_or_default()
}

/// The public outcome of the coin flip: which `k` of the `m + k` pairs are
/// opened (in increasing order), which `m` are tested and kept, in bucket
/// order (the distillation's bucket `q` of size `w` is kept pairs
/// `q·w..(q + 1)·w`), and the Triple Test's random `r` of each kept pair.
#[derive(Clone, Debug, Default)]
pub struct Challenge {
    opened: Vec<usize>,
    kept: Vec<usize>,
    r: Vec<Scalar>,
}

impl Challenge {
    /// Raw triples of the opened pairs: `2p, 2p + 1` for each.
    fn opened_triples(&self) -> Vec<usize> {
        self.opened
            .iter()
            .flat_map(|&p| [2 * p, 2 * p + 1])
            .collect()
    }

    /// The pairs kept for output (tested by the Triple Test), in bucket
    /// order.
    pub fn kept(&self) -> &[usize] {
        &self.kept
    }

    /// The pairs opened by the subset check.
    pub fn opened(&self) -> &[usize] {
        &self.opened
    }
}

/// Expands the coin `H(session, v_0..v_{n−1})` into the challenge: an AES
/// key `SHA-256(label ‖ session ‖ coin ‖ m ‖ k)`, a Fisher–Yates shuffle of
/// the `m + k` pairs (the first `k` are opened; a 128-bit draw reduced
/// modulo `i + 1`, bias below `2^-64`; the other `m`, in shuffled order,
/// are the kept pairs in bucket order: a uniform bucket assignment) and one
/// `r` per kept pair (64 bytes reduced modulo `p`).
pub fn challenge(session: Block, coin: Block, m: usize, k: usize) -> Challenge {
    let mut h = Sha256::new();
    h.update(CHALLENGE_DOMAIN);
    h.update(session.to_bytes());
    h.update(coin.to_bytes());
    h.update((m as u64).to_le_bytes());
    h.update((k as u64).to_le_bytes());
    let d = h.finalize();
    let mut key = [0u8; 16];
    key.copy_from_slice(&d[..16]);
    let mut prg = Prg::new(Block::from_bytes(key));
    let total = m + k;
    let mut perm: Vec<usize> = (0..total).collect();
    for i in (1..total).rev() {
        let j = (prg.next_block().as_u128() % (i as u128 + 1)) as usize;
        perm.swap(i, j);
    }
    let mut opened = perm[..k.min(total)].to_vec();
    let kept = perm[k.min(total)..].to_vec();
    opened.sort_unstable();
    let r = kept
        .iter()
        .map(|_| {
            let mut wide = [0u8; 64];
            prg.fill_bytes(&mut wide);
            Scalar::from_bytes_mod_order_wide(&wide)
        })
        .collect();
    Challenge { opened, kept, r }
}

/// The shares of the opened raw triples, `a ‖ b ‖ c` (`6·k` values), that
/// every party reveals in the subset check.
pub fn opened(s: &Shares, ch: &Challenge, count: usize) -> Shares {
    let t = ch.opened_triples();
    let idx: Vec<usize> = (0..3)
        .flat_map(|part| t.iter().map(move |&t| part * count + t))
        .collect();
    s.select(&idx).unwrap_or_default()
}

/// The randomizers `R_t` of the party's `α_t` for the opened raw triples.
pub fn alpha_nonces(g: &Generated, ch: &Challenge, _k: usize) -> Vec<NonceWire> {
    ch.opened_triples()
        .iter()
        .map(|&t| {
            g.nonces
                .get(t)
                .map(NonceWire::from_integer_or_zero)
                .unwrap_or_default()
        })
        .collect()
}

/// For every party `j` other than `me`, `f(j, p)` for every opened pair
/// `p` (the default for `j == me`, which is not sent).
fn per_opened<T: Default>(
    ch: &Challenge,
    parties: usize,
    me: usize,
    f: impl Fn(usize, usize) -> T,
) -> Vec<Vec<T>> {
    (0..parties)
        .map(|j| {
            ch.opened
                .iter()
                .map(|&p| if j == me { T::default() } else { f(j, p) })
                .collect()
        })
        .collect()
}

/// What a party reveals of one `γ` it sent for an opened pair: the slot
/// masks `d_0`, `d_1` and the randomizer `R'` (both `R'_0`, `R'_1` of an
/// unpacked `γ`, joined by [`join_randomizers`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GammaReveal {
    d: [Mask; SLOTS],
    r: LongNonce,
}

impl Wire for GammaReveal {
    const SIZE: usize = SLOTS * Mask::SIZE + LongNonce::SIZE;

    fn write(&self, out: &mut [u8]) {
        let (d, r) = out.split_at_mut(SLOTS * Mask::SIZE);
        for (d, out) in self.d.iter().zip(d.chunks_exact_mut(Mask::SIZE)) {
            d.write(out);
        }
        self.r.write(r);
    }

    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        if bytes.len() != Self::SIZE {
            return Err(WireError::Length {
                expected: Self::SIZE,
                got: bytes.len(),
            });
        }
        let (d, r) = bytes.split_at(SLOTS * Mask::SIZE);
        Ok(GammaReveal {
            d: [Mask::read(&d[..Mask::SIZE])?, Mask::read(&d[Mask::SIZE..])?],
            r: LongNonce::read(r)?,
        })
    }
}

/// For every party `j`, the slot masks `d_s` and randomizers `R'` of this
/// party's `γ` to `j` for the opened pairs.
pub fn gamma_reveals(
    keys: &PeerKeys,
    gseed: Block,
    ch: &Challenge,
    parties: usize,
    me: usize,
    count: usize,
    _k: usize,
) -> Vec<Vec<GammaReveal>> {
    let pairs = count / SLOTS;
    per_opened(ch, parties, me, |j, p| {
        keys.get(j)
            .map(|pk| {
                let (d, r) = gamma_randomness(pk, gseed, j, p, pairs);
                GammaReveal {
                    d: [
                        Mask::from_integer_or_zero(&d[0]),
                        Mask::from_integer_or_zero(&d[1]),
                    ],
                    r: LongNonce::from_integer_or_zero(&join_randomizers(pk, &r)),
                }
            })
            .unwrap_or_default()
    })
}

/// Subset check, party `j`'s encryptions: `α_jt = Enc_j(a_jt·2^(820·(t
/// mod 2)); R_jt)` (`Enc_j(a_jt; R_jt)` under a key that does not pack)
/// for every opened raw triple (VIFF's check 1), with
/// `a_jt` from `j`'s revealed opening (`a ‖ b ‖ c ‖ ρ1 ‖ ρ2`). Nothing to
/// check for `j == me` (the party's own encryptions).
pub fn alpha_ok(
    keys: &PeerKeys,
    me: usize,
    j: usize,
    alpha_j: &[CtWire],
    rev_j: &[Scalar],
    nonces_j: &[NonceWire],
    ch: &Challenge,
) -> bool {
    if j == me {
        return true;
    }
    let Some(pk) = keys.get(j) else {
        return false;
    };
    let t = ch.opened_triples();
    if nonces_j.len() != t.len() || rev_j.len() < t.len() {
        return false;
    }
    t.par_iter().enumerate().all(|(q, &t)| {
        let r = nonces_j[q].to_integer();
        if r.significant_bits() > pk.randomizer_bits() {
            return false;
        }
        let want = pk.encrypt_with_alpha(&slotted(pk, &rev_j[q], t), &r);
        let got = alpha_j.get(t).and_then(|a| ciphertext(pk, a));
        matches!((want, got), (Ok(w), Some(g)) if w == g)
    })
}

/// Subset check, products: `a·b = c` for every opened raw triple, from
/// the opened values `a ‖ b ‖ c` (`6·k`) (VIFF's check 3).
pub fn products_ok(values: &[Scalar], k: usize) -> bool {
    let q = 2 * k;
    values.len() == 3 * q && (0..q).all(|i| values[i] * values[q + i] == values[2 * q + i])
}

/// Subset check, this party's incoming `γ` from party `j` (VIFF's checks 4
/// and 5): each opened pair's `γ` recomputes from `j`'s revealed `b` of
/// both its triples, the slot masks `d_s` (each below `2^MASK_BITS`) and the
/// randomizer `R'`. Nothing to check for `j == me`.
pub fn gamma_ok(
    g: &Generated,
    j: usize,
    gamma_j: &[CtWire],
    rev_j: &[Scalar],
    reveal_j: &[GammaReveal],
    ch: &Challenge,
) -> bool {
    if j == g.me {
        return true;
    }
    let Some(pk) = g.pk.as_ref() else {
        return false;
    };
    let q = SLOTS * ch.opened.len();
    if rev_j.len() < 2 * q || reveal_j.len() != ch.opened.len() {
        return false;
    }
    ch.opened.par_iter().enumerate().all(|(i, &p)| {
        let d: Vec<Integer> = reveal_j[i].d.iter().map(Mask::to_integer).collect();
        let Some(r) = split_randomizers(pk, &reveal_j[i].r.to_integer()) else {
            return false;
        };
        if d.iter().any(|d| d.significant_bits() > MASK_BITS) {
            return false;
        }
        // b of the pair's two opened triples (opened_triples order).
        let b = &rev_j[q + SLOTS * i..q + SLOTS * (i + 1)];
        let alphas = g.alpha.get(SLOTS * p..SLOTS * (p + 1));
        let want = alphas.and_then(|a| gamma(pk, a, b, &d, &r).ok());
        let got = gamma_j
            .get(p)
            .and_then(|c| decode_gamma(pk, &c.to_integer()));
        matches!((want, got), (Some(w), Some(g)) if w == g)
    })
}

/// The kept pairs' `[a1], [b1], [c1]` and the sacrificed triples scaled
/// for the Triple Test, `r[a2], r[b2], r²[c2]`.
fn test_parts(s: &Shares, ch: &Challenge, count: usize) -> Option<[Shares; 6]> {
    let sel = |part: usize, off: usize| -> Option<Shares> {
        let idx: Vec<usize> = ch
            .kept
            .iter()
            .map(|&p| part * count + 2 * p + off)
            .collect();
        s.select(&idx)
    };
    let r2: Vec<Scalar> = ch.r.iter().map(|r| r * r).collect();
    Some([
        sel(0, 0)?,
        sel(1, 0)?,
        sel(2, 0)?,
        sel(0, 1)?.scale_each(&ch.r)?,
        sel(1, 1)?.scale_each(&ch.r)?,
        sel(2, 1)?.scale_each(&r2)?,
    ])
}

/// Triple Test, first half: the shares of `ε = a1 − r·a2` and `δ = b1 −
/// r·b2` of every kept pair (`2·m` values), to be opened (the online
/// multiplication of `[a1]·[b1]` with the triple `(r[a2], r[b2], r²[c2])`).
pub fn test_masked(s: &Shares, ch: &Challenge, count: usize) -> Shares {
    match test_parts(s, ch, count) {
        Some([a1, b1, _, ra2, rb2, _]) => mul_masked(&a1, &b1, &ra2, &rb2),
        None => Shares::default(),
    }
}

/// Triple Test, second half: `[c1] − [a1·b1]` computed with the opened
/// `ε ‖ δ`; it opens to `(c1 − a1b1) − r²(c2 − a2b2)`, zero for good
/// triples.
pub fn test_zero(s: &Shares, ch: &Challenge, count: usize, opened: &[Scalar]) -> Shares {
    match test_parts(s, ch, count) {
        Some([a1, b1, c1, _, _, rc2]) => {
            let z = mul_finish(&a1, &b1, &rc2, opened);
            c1.sub(&z).unwrap_or_default()
        }
        None => Shares::default(),
    }
}

/// Whether every opened Triple Test value is zero.
pub fn all_zero(values: &[Scalar]) -> bool {
    values.iter().all(|v| *v == Scalar::ZERO)
}

/// Part `which` (0: `a`, 1: `b`, 2: `c`) of the kept pairs' first triples
/// (`m` values, in bucket order): the tested triples the distillation
/// consumes.
pub fn output(s: &Shares, ch: &Challenge, count: usize, which: usize) -> Shares {
    let idx: Vec<usize> = ch.kept.iter().map(|&p| which * count + 2 * p).collect();
    s.select(&idx).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn challenge_splits_the_pairs_and_depends_on_the_coin() {
        let s = Block::from_u64s(1, 2);
        let c = challenge(s, Block::from_u64s(3, 4), 7, 3);
        let mut all = [c.opened.clone(), c.kept.clone()].concat();
        all.sort_unstable();
        assert_eq!(all, (0..10).collect::<Vec<_>>());
        assert_eq!((c.opened.len(), c.kept.len(), c.r.len()), (3, 7, 7));
        let d = challenge(s, Block::from_u64s(3, 5), 7, 3);
        assert_ne!(c.r, d.r);
    }

    #[test]
    fn products_check_refuses_a_wrong_product() {
        let v = |x: u64| Scalar::from(x);
        let good = [v(2), v(3), v(5), v(7), v(10), v(21)];
        assert!(products_ok(&good, 1));
        let mut bad = good;
        bad[5] += Scalar::ONE;
        assert!(!products_ok(&bad, 1));
        assert!(!products_ok(&good[..5], 1));
    }
}
