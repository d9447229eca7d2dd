//! The Orlandi preprocessing (`protocols/orlandi_triple.otp`) end to end
//! over the in-memory mesh: 2 and 3 parties make triples with `c = a·b`
//! whose commitments open (checked by `orlandi_open`), the triples feed
//! `orlandi_mul`; a tampered `γ` and a party whose encryption disagrees
//! with its commitment (it lies about its share `a_i`) make every party
//! abort with the subset check's or the Triple Test's named error; a
//! malformed ciphertext is the named `BadCiphertext` abort and a truncated
//! message a typed error, never a panic.

use std::sync::OnceLock;

use ot::runtime::ec::Scalar;
use ot::runtime::mesh::{run_parties, tamper_party, MemoryMesh, Mesh, TamperMesh};
use ot::runtime::orlandi::{deal, Shares};
use ot::runtime::orlandi_prep::TripleKey;
use ot::runtime::paillier::{Integer, SecretKey};
use ot::runtime::paillier_wire::Ciphertext3072;
use ot::runtime::rng::Rng;
use ot::runtime::wire::Wire;
use ot::{orlandi_mul, orlandi_open, orlandi_triple};

/// 3072-bit keys for up to three parties, generated once per test binary.
fn keys() -> &'static [SecretKey] {
    static KEYS: OnceLock<Vec<SecretKey>> = OnceLock::new();
    KEYS.get_or_init(|| {
        let mut rng = Rng::deterministic_for_tests(0x0b1a);
        (0..3)
            .map(|_| {
                TripleKey::generate(&mut rng)
                    .secret()
                    .cloned()
                    .expect("key")
            })
            .collect()
    })
}

fn session(tag: u8) -> [u8; 16] {
    let mut s = [0x3c; 16];
    s[0] = tag;
    s
}

const M: usize = 3;
const K: usize = 2;
/// Raw triples per run, `2(m + k)`.
const G: usize = 2 * (M + K);
/// Bytes of a 3072-bit ciphertext.
const CT: usize = 768;

fn triples<Me: Mesh + ?Sized>(
    mesh: &mut Me,
    tag: u8,
) -> Result<orlandi_triple::POutput, orlandi_triple::Error> {
    let params = orlandi_triple::Params::new(mesh.parties(), M, K)?;
    let input = orlandi_triple::PInput {
        sk: TripleKey::new(keys()[mesh.me()].clone()),
    };
    orlandi_triple::P::new(mesh.me(), params, session(tag), input, Rng::from_entropy())?.run(mesh)
}

fn open<Me: Mesh + ?Sized>(mesh: &mut Me, v: &Shares, tag: u8) -> Vec<Scalar> {
    let params = orlandi_open::Params::new(mesh.parties(), v.len()).expect("params");
    let input = orlandi_open::PInput { v: v.clone() };
    orlandi_open::P::new(mesh.me(), params, session(tag), input, Rng::from_entropy())
        .and_then(|p| p.run(mesh))
        .expect("open")
        .values
}

#[test]
fn triples_open_to_products_and_feed_the_multiplication() {
    for n in [2, 3] {
        let xs: Vec<Scalar> = (0..M as u64).map(|k| Scalar::from(k * 1009 + 17)).collect();
        let ys: Vec<Scalar> = (0..M as u64).map(|k| Scalar::from(k * 7 + 3)).collect();
        let mut rng = Rng::from_entropy();
        let (sx, sy) = (deal(&xs, n, &mut rng), deal(&ys, n, &mut rng));
        let outs = run_parties(MemoryMesh::new(n), |mesh| {
            let me = mesh.me();
            let t = triples(mesh, 1).expect("triples");
            // The commitments open (orlandi_open checks every sender's
            // opening against them) and c = a·b.
            let abc =
                t.a.concat(&t.b)
                    .and_then(|v| v.concat(&t.c))
                    .expect("concat");
            let v = open(mesh, &abc, 2);
            for k in 0..M {
                assert_eq!(v[k] * v[M + k], v[2 * M + k], "n = {n}, triple {k}");
            }
            let params = orlandi_mul::Params::new(n, M).expect("params");
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
            assert_eq!(o, want, "n = {n}");
        }
    }
}

/// Memory meshes for `n` parties where party `who`'s outgoing frames pass
/// through `tamper(to, frame_index, frame)`.
fn tampered<F>(n: usize, who: usize, tamper: F) -> Vec<Box<dyn Mesh + Send>>
where
    F: FnMut(usize, u64, &mut Vec<u8>) + Send + Clone + 'static,
{
    tamper_party(MemoryMesh::new(n), who, tamper)
}

/// Frame indices on every link: 0 the hello, 1 the `gen` broadcast, 2 its
/// digests, 3 the private `gamma` message.
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
    // P[1]'s γ to P[0] for raw triple 0 encrypts one more than it should
    // (γ·(1 + n) = Enc(m + 1)): c_0 is off by one. If the pair is opened the
    // subset check's a·b = c fails, else the Triple Test: at every party.
    let n = 3;
    let n0 = keys()[0].public().n().clone();
    let meshes = tampered(n, 1, move |to, k, f: &mut Vec<u8>| {
        if k == GAMMA_FRAME && to == 0 && f.len() >= G * CT {
            let off = f.len() - G * CT;
            rewrite_ct(f, off, &n0, |c| c.clone() * (Integer::from(&n0) + 1u32));
        }
    });
    let outs = run_parties(meshes, |mesh| triples(&mut **mesh, 5));
    assert_all_abort_in_checks(&outs);
}

type Tamper = Box<dyn FnMut(usize, u64, &mut Vec<u8>) + Send>;

#[test]
fn a_party_whose_encryption_disagrees_with_its_commitment_is_caught() {
    // P[2] broadcasts α_0 = Enc(a_0 + 1) while A_0 commits to a_0 (the same
    // to everyone, with the matching digest): it lies about its share. A
    // real cheater skips its own broadcast check; here the honest parties'
    // digests to P[2] are rewritten to what P[2] expects, so that it goes on.
    let (n, cheat, tag) = (3, 2, 6);
    let n2key = keys()[cheat].public().n().clone();
    let s = ot::runtime::mpc::session_block(session(tag));
    let spec = orlandi_triple::SPEC_HASH;
    let honest_view = std::sync::Arc::new(std::sync::Mutex::new(None::<[u8; 32]>));
    let meshes: Vec<Box<dyn Mesh + Send>> = MemoryMesh::new(n)
        .into_iter()
        .map(|mesh| -> Box<dyn Mesh + Send> {
            let view = honest_view.clone();
            let n2key = n2key.clone();
            let tamper: Tamper = if mesh.me() == cheat {
                let mut digest = None;
                Box::new(move |_, k, f: &mut Vec<u8>| {
                    if k == GEN_FRAME {
                        let own = ot::runtime::mpc::broadcast_digest(&spec, s, "gen", cheat, f);
                        *view.lock().expect("lock") = Some(own);
                        // Encrypted { pk (1152 bytes), alpha, ... }
                        rewrite_ct(f, 3 * 384, &n2key, |c| c * (Integer::from(&n2key) + 1u32));
                        digest = Some(ot::runtime::mpc::broadcast_digest(
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
        .collect();
    let outs = run_parties(meshes, |mesh| triples(&mut **mesh, tag));
    assert_all_abort_in_checks(&outs);
}

#[test]
fn a_malformed_ciphertext_is_the_named_abort() {
    // P[1] sends P[0] a γ of zero bytes (not a unit mod n²).
    let n = 3;
    let meshes = tampered(n, 1, move |to, k, f: &mut Vec<u8>| {
        if k == GAMMA_FRAME && to == 0 && f.len() >= G * CT {
            let off = f.len() - G * CT;
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
    let n = 2;
    let meshes = tampered(n, 1, move |_, k, f: &mut Vec<u8>| {
        if k == GAMMA_FRAME {
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
    // recomputation in the subset check fails (BadGamma naming P[1]).
    let (n, reveal) = (3, 2 * K * (96 + 192));
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
