//! The Orlandi preprocessing (`protocols/orlandi_triple.otp`) end to end
//! over the in-memory mesh: 2, 3 and 9 parties make distilled triples
//! (d = 0 and d = 1) with `c = a·b` whose commitments open (checked by
//! `orlandi_open`), the triples feed `orlandi_mul`; a wrong opening in a
//! bucket's leak-tolerant multiplication is the named abort at every honest
//! party; a tampered `γ` makes every party abort with the subset check's
//! or the Triple Test's named error (also with 1024-bit keys, whose `γ`
//! are unpacked); a key owner that shifts one of its `α` (the attack that
//! would hand it the honest parties' `b`) is the named
//! `BadEncryptionProof` abort at every honest party; a key whose modulus
//! has three prime factors, or an honest key's proof replayed from another
//! session or party, is the named `BadKeyProof` abort at every honest
//! party; a
//! malformed ciphertext is the named `BadCiphertext` abort and a truncated
//! message a typed error, never a panic; a rushing party that spoils its
//! coin opening is the named `BadCoinOpening` abort at every honest party.
//!
//! Most runs use the small parameters `(s, d) = (1, 0)` (a cheater's odds
//! 1/2, level 0 bits), allowed only because the test build has
//! `ot-runtime`'s `insecure-test-levels` feature; the runs at the real
//! level (40 bits, `orlandi_triple::params_at_level`) use one triple.

// Written for both big-integer backends: GMP's (feature `gmp`) arithmetic
// on references yields incomplete values that `Integer::from` completes.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use std::sync::OnceLock;

use ot::runtime::orlandi::level::{min_accepted_sec, LevelError, DEFAULT_SEC, MIN_SEC};
use ot::runtime::orlandi::paillier::blum::{self, KeyProofWire};
use ot::runtime::orlandi::paillier::wire::Ciphertext3072;
use ot::runtime::orlandi::paillier::{Integer, KeySize, PublicKey, SecretKey};
use ot::runtime::orlandi::prep::{key_proof, key_proof_context, public_key, PkWire, TripleKey};
use ot::runtime::orlandi::{deal, Shares};
use ot::runtime::primitives::ec::Scalar;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{run_parties, tamper_party, MemoryMesh, Mesh, TamperMesh};
use ot::runtime::transport::wire::Wire;
use ot::runtime::Block;
use ot::{orlandi_mul, orlandi_open, orlandi_triple};

mod common;
use common::blum_prime;

/// 2048-bit keys (the default size) for up to nine parties, generated once
/// per test binary.
fn keys() -> &'static [SecretKey] {
    static KEYS: OnceLock<Vec<SecretKey>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = Rng::deterministic_for_tests(0x0b1a);
        (0..9)
            .map(|_| {
                TripleKey::generate(&mut rng)
                    .secret()
                    .cloned()
                    .expect("key")
            })
            .collect()
    })
}

/// Two 1024-bit keys (VIFF's size, too small for the packed `γ`), generated
/// once per test binary.
fn small_keys() -> &'static [SecretKey] {
    static KEYS: OnceLock<Vec<SecretKey>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = Rng::deterministic_for_tests(0x5a);
        (0..2)
            .map(|_| SecretKey::generate(KeySize::Bits1024, &mut rng))
            .collect()
    })
}

/// Party `me`'s key: a 1024-bit one for the parties in `small` (the
/// `k`-th of them gets small key `k mod 2`), else the default size.
fn key_for(me: usize, small: &[usize]) -> SecretKey {
    match small.iter().position(|&i| i == me) {
        Some(k) => small_keys()[k % 2].clone(),
        None => keys()[me].clone(),
    }
}

fn session(tag: u8) -> [u8; 16] {
    let mut s = [0x3c; 16];
    s[0] = tag;
    s
}

const M: usize = 3;
/// Subset-check overhead and leak tolerance of the tampering tests.
const S: usize = 1;
const D: usize = 0;
/// The statistical security level those parameters meet: 0 bits (`ε` is
/// 1/2 at `d = 0`), accepted only with the `insecure-test-levels` feature.
const INSECURE: usize = 0;
/// Triple Test pairs opened by the subset check, `s(2d + 1)m`.
const K: usize = S * (2 * D + 1) * M;
/// Raw triples per run, `2(1 + s)(2d + 1)m`.
const G: usize = 2 * (S + 1) * (2 * D + 1) * M;
/// Packed `γ` per run and peer, one per pair of raw triples.
const PAIRS: usize = G / 2;
/// Bytes of a 3072-bit ciphertext.
const CT: usize = 768;

fn triples<Me: Mesh + ?Sized>(
    mesh: &mut Me,
    tag: u8,
) -> Result<orlandi_triple::POutput, orlandi_triple::Error> {
    distilled(mesh, tag, M, D, &[])
}

/// The in-memory mesh of `n` parties with a receive time-out of five
/// minutes: a party verifies every peer's key and range proofs before it
/// answers, which on a loaded two-core machine running the tests in
/// parallel took longer than the default 30 s at nine parties.
fn memory_mesh(n: usize) -> Vec<MemoryMesh> {
    MemoryMesh::new(n)
        .into_iter()
        .map(|m| m.with_timeout(std::time::Duration::from_secs(300)))
        .collect()
}

/// One run making `m` triples with leak tolerance `d`; the parties in
/// `small` use 1024-bit keys ([`key_for`]).
fn distilled<Me: Mesh + ?Sized>(
    mesh: &mut Me,
    tag: u8,
    m: usize,
    d: usize,
    small: &[usize],
) -> Result<orlandi_triple::POutput, orlandi_triple::Error> {
    let params = orlandi_triple::Params::new(mesh.parties(), m, S, d, INSECURE)?;
    run_with(mesh, params, tag, small)
}

/// One run with `params`; the parties in `small` use 1024-bit keys.
fn run_with<Me: Mesh + ?Sized>(
    mesh: &mut Me,
    params: orlandi_triple::Params,
    tag: u8,
    small: &[usize],
) -> Result<orlandi_triple::POutput, orlandi_triple::Error> {
    let input = orlandi_triple::PInput {
        sk: TripleKey::new(key_for(mesh.me(), small)),
    };
    orlandi_triple::P::new(mesh.me(), params, session(tag), input, Rng::from_entropy())?.run(mesh)
}

/// `m` triples for `mesh.parties()` parties at 40 bits.
fn at_level(m: usize, n: usize) -> orlandi_triple::Params {
    orlandi_triple::params_at_level(n, m, DEFAULT_SEC).expect("params")
}

fn open<Me: Mesh + ?Sized>(mesh: &mut Me, v: &Shares, tag: u8) -> Vec<Scalar> {
    let params = orlandi_open::Params::new(mesh.parties(), v.len()).expect("params");
    let input = orlandi_open::PInput { v: v.clone() };
    orlandi_open::P::new(mesh.me(), params, session(tag), input, Rng::from_entropy())
        .and_then(|p| p.run(mesh))
        .expect("open")
        .values
}

/// Runs the preprocessing for `n` parties with leak tolerance `d`, checks
/// that the `m` triples open to products and multiplies with them.
fn triples_feed_the_multiplication(n: usize, m: usize, d: usize) {
    triples_feed_the_multiplication_with(n, m, d, &[]);
}

/// As [`triples_feed_the_multiplication`], the parties in `small` with
/// 1024-bit keys.
fn triples_feed_the_multiplication_with(n: usize, m: usize, d: usize, small: &[usize]) {
    let params = orlandi_triple::Params::new(n, m, S, d, INSECURE).expect("params");
    params_feed_the_multiplication(params, small);
}

/// As [`triples_feed_the_multiplication`], with `params`.
fn params_feed_the_multiplication(params: orlandi_triple::Params, small: &[usize]) {
    let (n, m, d) = (params.n(), params.m(), params.d());
    let xs: Vec<Scalar> = (0..m as u64).map(|k| Scalar::from(k * 1009 + 17)).collect();
    let ys: Vec<Scalar> = (0..m as u64).map(|k| Scalar::from(k * 7 + 3)).collect();
    let mut rng = Rng::from_entropy();
    let (sx, sy) = (deal(&xs, n, &mut rng), deal(&ys, n, &mut rng));
    let outs = run_parties(memory_mesh(n), |mesh| {
        let me = mesh.me();
        let t = run_with(mesh, params, 1, small).expect("triples");
        // The commitments open (orlandi_open checks every sender's
        // opening against them) and c = a·b.
        let abc =
            t.a.concat(&t.b)
                .and_then(|v| v.concat(&t.c))
                .expect("concat");
        let v = open(mesh, &abc, 2);
        for k in 0..m {
            assert_eq!(
                v[k] * v[m + k],
                v[2 * m + k],
                "n = {n}, d = {d}, triple {k}"
            );
        }
        let params = orlandi_mul::Params::new(n, m).expect("params");
        let input = orlandi_mul::PInput {
            x: sx[me].clone(),
            y: sy[me].clone(),
            a: t.a,
            b: t.b,
            c: t.c,
        };
        let z = orlandi_mul::P::new(me, params, session(3), input, Rng::from_entropy())
            .and_then(|p| p.run(mesh))
            .expect("mul")
            .z;
        open(mesh, &z, 4)
    });
    let want: Vec<Scalar> = xs.iter().zip(&ys).map(|(x, y)| x * y).collect();
    for o in outs {
        assert_eq!(o, want, "n = {n}, d = {d}");
    }
}

#[test]
fn triples_open_to_products_and_feed_the_multiplication() {
    for n in [2, 3] {
        triples_feed_the_multiplication(n, M, 0);
    }
}

#[test]
fn triples_distilled_from_buckets_of_three_feed_the_multiplication() {
    triples_feed_the_multiplication(2, 2, 1);
    triples_feed_the_multiplication(3, 1, 1);
}

#[test]
fn nine_parties_make_triples_and_multiply() {
    triples_feed_the_multiplication(9, 1, 0);
}

#[test]
fn bad_parameters_are_a_readable_error() {
    for (s, d) in [(0, 0), (1, 17)] {
        let e = orlandi_triple::Params::new(2, 1, s, d, INSECURE).expect_err("rejected");
        assert!(
            e.to_string().contains(if s == 0 { "s" } else { "d" }),
            "{e}"
        );
    }
    // A packed γ's slot would overflow beyond 2048 parties.
    let e = orlandi_triple::Params::new(2049, 1, 1, 0, INSECURE).expect_err("rejected");
    assert!(e.to_string().contains('n'), "{e}");
    // 2048 parties pass the packing rule, but their keys' fixed-base
    // tables (16 MiB each, `holding` in orlandi_triple.otp) do not fit the
    // memory budget of a machine with less than 64 GiB: refused before any
    // allocation (tests/holding.rs).
    if ot::runtime::transport::limits::memory_budget() < 2048 << 24 {
        let e = orlandi_triple::Params::new(2048, 1, 1, 0, INSECURE).expect_err("over budget");
        assert!(e.to_string().contains("too large"), "{e}");
    }
    assert!(orlandi_triple::Params::new(16, 1, 1, 0, INSECURE).is_ok());
}

#[test]
fn parameters_below_the_level_are_refused() {
    // (1, 0): a cheater keeps its spoiled pair unopened with probability
    // 1/2, far from 2^-40; (4, 13) is just short of it at m = 1 (its
    // ε is about 2^-37.5), (4, 14) reaches it.
    for (m, s, d) in [(1, 1, 0), (10, 64, 0), (1, 4, 13), (10, 1, 9)] {
        let e = orlandi_triple::Params::new(2, m, s, d, DEFAULT_SEC).expect_err("refused");
        assert!(matches!(e, orlandi_triple::Error::Params { .. }), "{e:?}");
        assert!(
            e.to_string()
                .contains("requires orlandi_prep_sound(s, d, m, sec)"),
            "{e}"
        );
    }
    assert!(orlandi_triple::Params::new(2, 1, 4, 14, DEFAULT_SEC).is_ok());
    assert!(orlandi_triple::Params::new(2, 10, 1, 10, DEFAULT_SEC).is_ok());
    // The level derived: the cheapest (s, d) at 40 bits.
    for (m, s, d) in [(1, 4, 14), (10, 1, 10), (30, 1, 7), (1000, 1, 4)] {
        let p = orlandi_triple::params_at_level(3, m, DEFAULT_SEC).expect("params");
        assert_eq!((p.n(), p.m(), p.s(), p.d(), p.sec()), (3, m, s, d, 40));
    }
    // Out of reach, and no triples: typed errors with the reason.
    let e = orlandi_triple::params_at_level(2, 1, 200).expect_err("unreachable");
    assert!(
        matches!(
            e,
            orlandi_triple::AtLevelError::Level(LevelError::Unreachable { .. })
        ),
        "{e:?}"
    );
    assert!(e.to_string().contains("2^-200"), "{e}");
    let e = orlandi_triple::params_at_level(2, 0, DEFAULT_SEC).expect_err("m = 0");
    assert!(e.to_string().contains("m = 0"), "{e}");
    let e = orlandi_triple::params_at_level(2049, 1, DEFAULT_SEC).expect_err("n");
    assert!(
        matches!(e, orlandi_triple::AtLevelError::Params(_)),
        "{e:?}"
    );
    // Levels below 40 bits are the test build's opt-in (the floor itself
    // is tested in ot-runtime's unit tests, built without the feature).
    assert_eq!(
        min_accepted_sec(),
        0,
        "the tests run with insecure-test-levels"
    );
    assert_eq!(MIN_SEC, 40);
}

#[test]
fn triples_at_40_bits_feed_the_multiplication() {
    // m = 1 at 40 bits: s = 4, d = 14, 145 Triple Test pairs for one
    // distilled triple (a bucket of 29).
    params_feed_the_multiplication(at_level(1, 2), &[]);
}

#[test]
fn keys_of_1024_bits_make_unpacked_triples() {
    // Two 768-bit slots do not fit a 1024-bit key's plaintext space: such a
    // key gets two ciphertexts per γ, next to parties whose keys pack.
    triples_feed_the_multiplication_with(2, M, 0, &[0]);
    triples_feed_the_multiplication_with(2, 2, 0, &[0, 1]);
    triples_feed_the_multiplication_with(3, M, 0, &[0, 2]);
}

#[test]
fn a_missing_key_is_the_named_abort() {
    // The default input holds no key: the first check refuses it.
    let outs = run_parties(memory_mesh(2), |mesh| {
        let me = mesh.me();
        let params = orlandi_triple::Params::new(2, 1, S, D, INSECURE).expect("params");
        let sk = if me == 0 {
            TripleKey::default()
        } else {
            TripleKey::new(keys()[me].clone())
        };
        let input = orlandi_triple::PInput { sk };
        orlandi_triple::P::new(me, params, session(12), input, Rng::from_entropy())?.run(mesh)
    });
    match &outs[0] {
        Err(orlandi_triple::Error::OwnKeyUnfit { .. }) => {}
        other => panic!("expected OwnKeyUnfit, got {other:?}"),
    }
    assert!(outs[1].is_err(), "the peer stops with an error");
}

/// Memory meshes for `n` parties where party `who`'s outgoing frames pass
/// through `tamper(to, frame_index, frame)`.
fn tampered<F>(n: usize, who: usize, tamper: F) -> Vec<Box<dyn Mesh + Send>>
where
    F: FnMut(usize, u64, &mut Vec<u8>) + Send + Clone + 'static,
{
    tamper_party(memory_mesh(n), who, tamper)
}

/// Frame indices on every link with n >= 3: 0 the hello, 1 the `gen`
/// broadcast, 2 its digests, 3 the private `gamma` message (with n = 2 a
/// broadcast needs no digests: `gamma` is frame 2).
const GEN_FRAME: u64 = 1;
const GEN_DIGESTS: u64 = 2;
const GAMMA_FRAME: u64 = 3;

/// Replaces the ciphertext at byte `off` of `f` by `f(c) mod n²`.
fn rewrite_ct(f: &mut [u8], off: usize, pk_n: &Integer, op: impl Fn(Integer) -> Integer) {
    let n2 = Integer::from(pk_n * pk_n);
    let c = Ciphertext3072::read(&f[off..off + CT]).expect("length");
    let c = Ciphertext3072::from_integer(&(op(c.to_integer()) % &n2)).expect("fits");
    c.write(&mut f[off..off + CT]);
}

fn assert_all_abort_in_checks(outs: &[Result<orlandi_triple::POutput, orlandi_triple::Error>]) {
    let mut kinds = Vec::new();
    for (i, o) in outs.iter().enumerate() {
        match o {
            Err(orlandi_triple::Error::SubsetCheckFailed { .. }) => kinds.push("subset"),
            Err(orlandi_triple::Error::TripleTestFailed { .. }) => kinds.push("test"),
            other => {
                panic!("party {i}: expected SubsetCheckFailed or TripleTestFailed, got {other:?}")
            }
        }
    }
    kinds.dedup();
    assert_eq!(
        kinds.len(),
        1,
        "every party aborts with the same check: {kinds:?}"
    );
}

#[test]
fn a_tampered_gamma_is_caught_and_every_party_aborts() {
    // P[1]'s γ to P[0] for pair 0 encrypts one more than it should
    // (γ·(1 + n) = Enc(m + 1), the low slot: raw triple 0): c_0 is off by
    // one. If the pair is opened the
    // subset check's a·b = c fails, else the Triple Test: at every party.
    let n = 3;
    let n0 = keys()[0].public().n().clone();
    let meshes = tampered(n, 1, move |to, k, f: &mut Vec<u8>| {
        if k == GAMMA_FRAME && to == 0 && f.len() >= PAIRS * CT {
            let off = f.len() - PAIRS * CT;
            rewrite_ct(f, off, &n0, |c| c.clone() * (Integer::from(&n0) + 1u32));
        }
    });
    let outs = run_parties(meshes, |mesh| triples(&mut **mesh, 5));
    assert_all_abort_in_checks(&outs);
}

#[test]
fn a_tampered_unpacked_gamma_is_caught_and_every_party_aborts() {
    // P[0] has a 1024-bit key, so P[1]'s γ to it is two ciphertexts mod a
    // 2048-bit n², the first in the low 2048 bits of the field; P[1] makes
    // the first of pair 0 encrypt one more (raw triple 0's c is off by one).
    let n = 3;
    let n0 = small_keys()[0].public().n().clone();
    let meshes = tampered(n, 1, move |to, k, f: &mut Vec<u8>| {
        if k == GAMMA_FRAME && to == 0 && f.len() >= PAIRS * CT {
            let off = f.len() - PAIRS * CT;
            let n2 = Integer::from(&n0 * &n0);
            let v = Ciphertext3072::read(&f[off..off + CT])
                .expect("length")
                .to_integer();
            let (lo, hi) = (v.clone().keep_bits(2048), Integer::from(&v >> 2048));
            let lo = lo * (Integer::from(&n0) + 1u32) % &n2;
            let v = Ciphertext3072::from_integer(&(lo + (hi << 2048))).expect("fits");
            v.write(&mut f[off..off + CT]);
        }
    });
    let outs = run_parties(meshes, |mesh| distilled(&mut **mesh, 13, M, D, &[0]));
    assert_all_abort_in_checks(&outs);
}

#[test]
fn a_wrong_reveal_of_an_unpacked_gamma_is_caught_by_its_receiver() {
    // As below, for a receiver P[0] with a 1024-bit key (its γ carry two
    // randomizers in the reveal's one field).
    let (n, reveal) = (2, K * (2 * 104 + 400));
    let meshes = tampered(n, 1, move |to, k, f: &mut Vec<u8>| {
        if to == 0 && k > GAMMA_FRAME && (reveal..=reveal + 32 * n).contains(&f.len()) {
            let off = f.len() - reveal;
            f[off + 2 * 104] ^= 1; // the randomizer of the first γ
        }
    });
    let outs = run_parties(meshes, |mesh| distilled(&mut **mesh, 14, M, D, &[0]));
    match &outs[0] {
        Err(orlandi_triple::Error::BadGamma { party, culprit, .. }) => {
            assert_eq!((*party, *culprit), (0, Some(1)));
        }
        other => panic!("expected BadGamma, got {other:?}"),
    }
}

type Tamper = Box<dyn FnMut(usize, u64, &mut Vec<u8>) + Send>;

/// The attack of the security review: the key owner P[cheat] replaces its
/// α_0 by α_0·(1 + 2^shift·n) mod n², an encryption of a_0 + 2^shift made
/// from its public key alone, so that every γ would decrypt to the correct
/// slots plus b·2^shift and hand it the honest parties' b. Its proof no
/// longer matches (and no proof exists for a plaintext that large): every
/// honest party aborts with `BadEncryptionProof` naming it, before it
/// raises any α to its b. (A real cheater skips its own broadcast check;
/// here the honest parties' digests to it are rewritten to what it
/// expects.) Without the proof check the run goes on (checked by removing
/// it): the shifted α is caught by the subset check only if its pair is
/// opened, and otherwise leaks.
fn shifted_alpha_is_caught(n: usize, cheat: usize, small: &[usize], shift: u32, tag: u8) {
    let nkey = key_for(cheat, small).public().n().clone();
    let meshes = cheating_broadcast(n, cheat, tag, move |f: &mut Vec<u8>| {
        // Encrypted { pk (768 bytes), key_proof, alpha, proof, ... }
        let bump = (Integer::from(&nkey) << shift) + 1u32;
        rewrite_ct(f, ALPHA_OFFSET, &nkey, |c| c * &bump);
    });
    let outs = run_parties(meshes, |mesh| distilled(&mut **mesh, tag, M, D, small));
    all_honest_abort_naming(&outs, cheat, "BadEncryptionProof", |e| match e {
        orlandi_triple::Error::BadEncryptionProof { party, culprit, .. } => {
            Some((*party, *culprit))
        }
        _ => None,
    });
}

/// Bytes of the `pk` field of `gen`.
const PK_BYTES: usize = 2 * 384;
/// Offset of the first `alpha` in the `gen` frame: after `pk` and
/// `key_proof`.
const ALPHA_OFFSET: usize = PK_BYTES + KeyProofWire::SIZE;

/// Memory meshes for `n` parties where P[cheat] rewrites its `gen`
/// broadcast with `rewrite`, the same for every receiver. (A real cheater
/// skips its own broadcast check; here the honest parties' digests to it
/// are rewritten to what it expects, and its digests to them to the
/// altered message's.)
fn cheating_broadcast<F>(n: usize, cheat: usize, tag: u8, rewrite: F) -> Vec<Box<dyn Mesh + Send>>
where
    F: Fn(&mut Vec<u8>) + Send + Clone + 'static,
{
    let s = ot::runtime::transport::mpc::session_block(session(tag));
    let spec = orlandi_triple::SPEC_HASH;
    let honest_view = std::sync::Arc::new(std::sync::Mutex::new(None::<[u8; 32]>));
    memory_mesh(n)
        .into_iter()
        .map(|mesh| -> Box<dyn Mesh + Send> {
            let view = honest_view.clone();
            let rewrite = rewrite.clone();
            let tamper: Tamper = if mesh.me() == cheat {
                let mut digest = None;
                Box::new(move |_, k, f: &mut Vec<u8>| {
                    if k == GEN_FRAME {
                        let own = ot::runtime::transport::mpc::broadcast_digest(
                            &spec, s, "gen", cheat, f,
                        );
                        *view.lock().expect("lock") = Some(own);
                        rewrite(f);
                        digest = Some(ot::runtime::transport::mpc::broadcast_digest(
                            &spec, s, "gen", cheat, f,
                        ));
                    }
                    if let (GEN_DIGESTS, Some(d)) = (k, digest) {
                        f[cheat * 32..(cheat + 1) * 32].copy_from_slice(&d);
                    }
                })
            } else {
                Box::new(move |to, k, f: &mut Vec<u8>| {
                    if let (GEN_DIGESTS, true, Some(d)) =
                        (k, to == cheat, *view.lock().expect("lock"))
                    {
                        f[cheat * 32..(cheat + 1) * 32].copy_from_slice(&d);
                    }
                })
            };
            Box::new(TamperMesh::new(mesh, tamper))
        })
        .collect()
}

/// Every party but `cheat` stops with the abort `name` naming P[cheat]
/// (`fields` gives an error's party and culprit if it is that abort).
fn all_honest_abort_naming(
    outs: &[Result<orlandi_triple::POutput, orlandi_triple::Error>],
    cheat: usize,
    name: &str,
    fields: impl Fn(&orlandi_triple::Error) -> Option<(usize, Option<usize>)>,
) {
    for (i, o) in outs.iter().enumerate().filter(|(i, _)| *i != cheat) {
        match o {
            Err(e) if fields(e).is_some() => {
                assert_eq!(fields(e), Some((i, Some(cheat))), "{e}");
                assert!(e.to_string().contains(&format!("P[{cheat}]")), "{e}");
            }
            other => panic!("party {i}: expected {name}, got {other:?}"),
        }
    }
}

#[test]
fn a_key_owner_shifting_an_alpha_is_caught_by_the_proof_check() {
    // 2048-bit keys, shift 2^1600; 1024-bit key, shift 2^760; n = 2 and 3.
    shifted_alpha_is_caught(2, 1, &[], 1600, 6);
    shifted_alpha_is_caught(3, 2, &[], 1600, 16);
    shifted_alpha_is_caught(2, 0, &[0], 760, 26);
    shifted_alpha_is_caught(3, 1, &[1], 760, 36);
}

/// The same attack at the parameters a user runs: one triple at the 40-bit
/// level (`(s, d) = (4, 14)`, 145 Triple Test pairs), 2048-bit keys.
#[test]
fn a_key_owner_shifting_an_alpha_at_the_40_bit_level_is_caught() {
    let (n, cheat, tag) = (2, 1, 201);
    let nkey = key_for(cheat, &[]).public().n().clone();
    let meshes = cheating_broadcast(n, cheat, tag, move |f: &mut Vec<u8>| {
        let bump = (Integer::from(&nkey) << 1600u32) + 1u32;
        rewrite_ct(f, ALPHA_OFFSET, &nkey, |c| c * &bump);
    });
    let params = at_level(1, n);
    let outs = run_parties(meshes, |mesh| run_with(&mut **mesh, params, tag, &[]));
    all_honest_abort_naming(&outs, cheat, "BadEncryptionProof", |e| match e {
        orlandi_triple::Error::BadEncryptionProof { party, culprit, .. } => {
            Some((*party, *culprit))
        }
        _ => None,
    });
}

/// P[cheat] broadcasts the key `(n, h)` with `proof` in place of its own
/// key and key proof: every honest party aborts with `BadKeyProof` naming
/// it, before it uses the key. Without the key-proof check the run goes on
/// to later checks (verified by removing it: the runs below then end in
/// `BadEncryptionProof`, or for the replayed proof of an honest key in a
/// later abort such as `TripleTestFailed`, never in `BadKeyProof`).
fn bad_key_is_caught(n: usize, cheat: usize, tag: u8, pk: PkWire, proof: KeyProofWire) {
    let meshes = cheating_broadcast(n, cheat, tag, move |f: &mut Vec<u8>| {
        pk.write(&mut f[..PK_BYTES]);
        proof.write(&mut f[PK_BYTES..ALPHA_OFFSET]);
    });
    let outs = run_parties(meshes, |mesh| distilled(&mut **mesh, tag, M, D, &[]));
    all_honest_abort_naming(&outs, cheat, "BadKeyProof", |e| match e {
        orlandi_triple::Error::BadKeyProof { party, culprit, .. } => Some((*party, *culprit)),
        _ => None,
    });
}

#[test]
fn a_modulus_of_three_primes_is_caught_by_the_key_proof() {
    // n = p1·p2·p3 of 2048 bits, h = x² (Jacobi symbol +1, what the
    // verifier expects; −x² would have symbol −1 for three primes 3 mod 4),
    // and the best proof a prover knowing the factors can make (every N-th
    // root, the fourth roots that exist): about half the challenges have
    // no answer. n = 2 and 3.
    let mut rng = Rng::deterministic_for_tests(0x3b);
    let (modulus, factors) = loop {
        let ps: Vec<Integer> = [683, 683, 682]
            .iter()
            .map(|&b| blum_prime(b, &mut rng))
            .collect();
        let n = ps.iter().fold(Integer::from(1), |n, p| n * p);
        if n.significant_bits() == 2048 {
            break (n, ps.into_iter().map(|p| (p, 1)).collect::<Vec<_>>());
        }
    };
    let x = Integer::from(0x1234_5678u32);
    let h = x.square();
    let pk = PkWire::encode(&PublicKey::from_root(modulus.clone(), h.clone()).expect("form"));
    for (n, cheat, tag) in [(2, 1, 40), (3, 0, 41)] {
        let s = ot::runtime::transport::mpc::session_block(session(tag));
        let context = key_proof_context(s, cheat);
        let proof = blum::prove_best_effort(&modulus, &h, &factors, &context, &mut rng);
        bad_key_is_caught(n, cheat, tag, pk.clone(), KeyProofWire::encode(&proof));
    }
}

#[test]
fn an_honest_key_proof_replayed_in_another_session_or_by_another_party_is_caught() {
    // P[cheat]'s own (good) key, with its proof for another session, or
    // another party's proof of the same key in this session.
    for (n, cheat, tag, other_tag, as_party) in [(2, 1, 42, 43, 1), (3, 2, 44, 44, 0)] {
        let sk = TripleKey::new(keys()[cheat].clone());
        let s = ot::runtime::transport::mpc::session_block(session(other_tag));
        let proof = key_proof(&sk, as_party, s, Block::from(0x5eed_u128 + tag as u128));
        bad_key_is_caught(n, cheat, tag, public_key(&sk), proof);
    }
}

#[test]
fn a_wrong_opening_in_a_bucket_multiplication_is_caught_at_every_honest_party() {
    // d = 1: one bucket of three tested triples. P[1] broadcasts a wrong
    // share of F(1) - a_1 in the leak-tolerant multiplication, the same to
    // everyone, and its digest of the altered message (so that the
    // broadcast is consistent): every honest party's opening check fails
    // and names P[1].
    let (n, cheat, tag, d) = (3, 1, 10, 1);
    let lopen = 3 * 2 * (2 * d + 1) * 32;
    let s = ot::runtime::transport::mpc::session_block(session(tag));
    let spec = orlandi_triple::SPEC_HASH;
    // The distill broadcast is the only frame of its length (the frame
    // after it on the same link carries the digests).
    let mut seen: Vec<Option<(u64, [u8; 32])>> = vec![None; n];
    let meshes = tampered(n, cheat, move |to, k, f: &mut Vec<u8>| {
        if k > GAMMA_FRAME && (lopen..lopen + 16).contains(&f.len()) {
            let off = f.len() - lopen;
            f[off..off + 32].copy_from_slice(Scalar::from(0x5eed_u64).as_bytes());
            let d = ot::runtime::transport::mpc::broadcast_digest(&spec, s, "distill", cheat, f);
            seen[to] = Some((k, d));
        } else if let Some((kd, d)) = seen[to] {
            if k == kd + 1 {
                f[cheat * 32..(cheat + 1) * 32].copy_from_slice(&d);
            }
        }
    });
    let outs = run_parties(meshes, |mesh| distilled(&mut **mesh, tag, 1, d, &[]));
    for (i, o) in outs.iter().enumerate().filter(|&(i, _)| i != cheat) {
        match o {
            Err(orlandi_triple::Error::BadOpening { party, culprit, .. }) => {
                assert_eq!((*party, *culprit), (i, Some(cheat)));
            }
            Err(other) => panic!("party {i}: expected BadOpening, got {other}"),
            Ok(_) => panic!("party {i}: expected BadOpening, got triples"),
        }
    }
}

#[test]
fn a_bad_triple_with_d_1_is_caught_at_every_party() {
    // d = 1: P[1]'s γ to P[0] for one raw triple encrypts one more than it
    // should; the triple is either opened by the subset check or lands in
    // a bucket after its Triple Test, which fails: every party aborts.
    let (n, m, d) = (3, 1, 1);
    let pairs = (S + 1) * (2 * d + 1) * m;
    let n0 = keys()[0].public().n().clone();
    let meshes = tampered(n, 1, move |to, k, f: &mut Vec<u8>| {
        if k == GAMMA_FRAME && to == 0 && f.len() >= pairs * CT {
            let off = f.len() - pairs * CT;
            rewrite_ct(f, off, &n0, |c| c.clone() * (Integer::from(&n0) + 1u32));
        }
    });
    let outs = run_parties(meshes, |mesh| distilled(&mut **mesh, 11, m, d, &[]));
    assert_all_abort_in_checks(&outs);
}

#[test]
fn a_malformed_ciphertext_is_the_named_abort() {
    // P[1] sends P[0] a γ of zero bytes (not a unit mod n²).
    let n = 3;
    let meshes = tampered(n, 1, move |to, k, f: &mut Vec<u8>| {
        if k == GAMMA_FRAME && to == 0 && f.len() >= PAIRS * CT {
            let off = f.len() - PAIRS * CT;
            f[off..off + CT].fill(0);
        }
    });
    let outs = run_parties(meshes, |mesh| triples(&mut **mesh, 7));
    match &outs[0] {
        Err(e @ orlandi_triple::Error::BadCiphertext { party, culprit, .. }) => {
            assert_eq!((*party, *culprit), (0, Some(1)));
            assert!(e.to_string().contains("P[1]"), "{e}");
        }
        other => panic!("expected BadCiphertext, got {other:?}"),
    }
    // The others stop with an error (the victim hung up), not a panic.
    assert!(outs[1..].iter().all(Result::is_err));
}

#[test]
fn a_truncated_message_is_a_typed_error() {
    // With two parties the broadcast `gen` needs no consistency check (its
    // only receiver is the other party), so no digest frame comes between
    // it and the gamma frame.
    let n = 2;
    let meshes = tampered(n, 1, move |_, k, f: &mut Vec<u8>| {
        if k == GAMMA_FRAME - 1 {
            f.pop();
        }
    });
    let outs = run_parties(meshes, |mesh| triples(&mut **mesh, 8));
    let Err(e) = &outs[0] else {
        panic!("a truncated message was accepted");
    };
    assert!(e.to_string().contains("gamma"), "{e}");
}

#[test]
fn a_gamma_that_does_not_recompute_is_caught_by_its_receiver() {
    // P[1] reveals a wrong mask d for its first opened γ to P[0]: P[0]'s
    // recomputation in the subset check fails (BadGamma naming P[1]). One
    // reveal per opened pair: two 104-byte slot masks and a 400-byte
    // field of long randomizers.
    let (n, reveal) = (3, K * (2 * 104 + 400));
    let meshes = tampered(n, 1, move |to, k, f: &mut Vec<u8>| {
        if to == 0 && k > GAMMA_FRAME && (reveal..=reveal + 32 * n).contains(&f.len()) {
            let off = f.len() - reveal;
            f[off] ^= 1;
        }
    });
    let outs = run_parties(meshes, |mesh| triples(&mut **mesh, 9));
    match &outs[0] {
        Err(orlandi_triple::Error::BadGamma { party, culprit, .. }) => {
            assert_eq!((*party, *culprit), (0, Some(1)));
        }
        other => panic!("expected BadGamma, got {other:?}"),
    }
}

/// Bytes of the coin opening `CoinOpening { v: Block, rv: Scalar }`, the
/// end of its frame (with n >= 3 the frame starts with the digests of the
/// `product` broadcast, batched with it).
const COIN: usize = 16 + 32;

/// The rushing attack on the coin: P[cheat] waits for the honest coin
/// openings, computes the challenge and, when it would open a pair that
/// P[cheat] spoiled, sends a wrong opening of its own commitment instead
/// (here it always does). Its broadcast is consistent (the same to all,
/// with the digest of what it sent), so every honest party's opening check
/// fails and names it: `BadCoinOpening`, which ends the session (a retry
/// with the same parties would let the cheater repeat until the challenge
/// suits it). Without the check (verified by removing it) nothing names
/// the coin: the cheater's challenge differs from the honest parties', and
/// the run stops later with a `BadOpening` of the subset check.
fn spoiled_coin_opening_is_caught(n: usize, cheat: usize, tag: u8) {
    // With n >= 3 every broadcast is followed by a digest frame (`gen`'s
    // comes before `gamma`); the coin opening is the frame after
    // `product`'s, and its own digests come next.
    let coin_frame = if n == 2 { 4 } else { GAMMA_FRAME + 2 };
    let s = ot::runtime::transport::mpc::session_block(session(tag));
    let spec = orlandi_triple::SPEC_HASH;
    let mut digest = None;
    let meshes = tampered(n, cheat, move |_, k, f: &mut Vec<u8>| {
        if k == coin_frame && f.len() >= COIN {
            let off = f.len() - COIN;
            f[off] ^= 1; // the first byte of v
            digest = Some(ot::runtime::transport::mpc::broadcast_digest(
                &spec,
                s,
                "coin",
                cheat,
                &f[off..],
            ));
        } else if let (true, Some(d)) = (k == coin_frame + 1 && n > 2, digest) {
            f[cheat * 32..(cheat + 1) * 32].copy_from_slice(&d);
        }
    });
    let outs = run_parties(meshes, |mesh| triples(&mut **mesh, tag));
    for (i, o) in outs.iter().enumerate().filter(|&(i, _)| i != cheat) {
        match o {
            Err(e @ orlandi_triple::Error::BadCoinOpening { party, culprit, .. }) => {
                assert_eq!((*party, *culprit), (i, Some(cheat)));
                assert!(e.to_string().contains(&format!("P[{cheat}]")), "{e}");
            }
            Err(other) => panic!("party {i}: expected BadCoinOpening, got {other}"),
            Ok(_) => panic!("party {i}: expected BadCoinOpening, got triples"),
        }
    }
}

#[test]
fn a_rushing_party_spoiling_its_coin_opening_is_caught_at_every_honest_party() {
    spoiled_coin_opening_is_caught(2, 0, 41);
    spoiled_coin_opening_is_caught(3, 1, 42);
}
