//! The Orlandi protocol's online phase end to end (`protocols/orlandi_open.otp`,
//! `orlandi_input.otp`, `orlandi_mul.otp`): inputs, local linear
//! operations, batched multiplications and openings against the plaintext
//! circuit for n = 2, 3, 5 over the in-memory and the TCP mesh; a tampered
//! opening and a tampered mask opening name the cheater; an equivocating
//! broadcaster is named by every honest party; malformed shares are a typed
//! error. Triples come from the test dealer (`orlandi::deal_triples`).

use ot::runtime::orlandi::{deal_triples, Shares};
use ot::runtime::primitives::ec::Scalar;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, tamper_party, MemoryMesh, Mesh};
use ot::{orlandi_input, orlandi_mul, orlandi_open};

/// One session id per protocol run of a test (never reused).
fn session(tag: u8) -> [u8; 16] {
    let mut s = [0x5a; 16];
    s[0] = tag;
    s
}

fn input<M: Mesh + ?Sized>(
    mesh: &mut M,
    x: Vec<Scalar>,
    tag: u8,
) -> Result<Shares, orlandi_input::Error> {
    let params = orlandi_input::Params::new(mesh.parties(), x.len())?;
    let input = orlandi_input::PInput { x };
    let p = orlandi_input::P::new(mesh.me(), params, session(tag), input, Rng::from_entropy())?;
    Ok(p.run(mesh)?.shares)
}

fn mul<M: Mesh + ?Sized>(
    mesh: &mut M,
    x: &Shares,
    y: &Shares,
    t: &[Shares; 3],
    tag: u8,
) -> Result<Shares, orlandi_mul::Error> {
    let params = orlandi_mul::Params::new(mesh.parties(), x.len())?;
    let [a, b, c] = t.clone();
    let input = orlandi_mul::PInput {
        x: x.clone(),
        y: y.clone(),
        a,
        b,
        c,
    };
    let p = orlandi_mul::P::new(mesh.me(), params, session(tag), input, Rng::from_entropy())?;
    Ok(p.run(mesh)?.z)
}

fn open<M: Mesh + ?Sized>(
    mesh: &mut M,
    v: &Shares,
    tag: u8,
) -> Result<Vec<Scalar>, orlandi_open::Error> {
    let params = orlandi_open::Params::new(mesh.parties(), v.len())?;
    let input = orlandi_open::PInput { v: v.clone() };
    let p = orlandi_open::P::new(mesh.me(), params, session(tag), input, Rng::from_entropy())?;
    Ok(p.run(mesh)?.values)
}

/// Party `i`'s `k`-th private input.
fn value(i: usize, k: usize) -> Scalar {
    Scalar::from((i as u64 + 3) * 1_000_003 + k as u64 * 7919)
}

const M: usize = 6;

/// The circuit every party runs: inputs `x` (P[0]'s) and `y` (P[1]'s),
/// `z = x·y`, `w = 3·z + x − y + 5`, `u = w·z`; opens `z` and `u`.
fn circuit<M2: Mesh + ?Sized>(mesh: &mut M2, triples: &[[Shares; 3]; 2]) -> Vec<Scalar> {
    let me = mesh.me();
    let xs: Vec<Scalar> = (0..M).map(|k| value(me, k)).collect();
    let all = input(mesh, xs, 1).expect("input");
    let x = all.slice(0, M).expect("x");
    let y = all.slice(M, M).expect("y");
    let z = mul(mesh, &x, &y, &triples[0], 2).expect("mul 1");
    let w = z
        .scale(Scalar::from(3u64))
        .add(&x)
        .and_then(|v| v.sub(&y))
        .and_then(|v| v.add_public(&[Scalar::from(5u64); M]))
        .expect("linear");
    let u = mul(mesh, &w, &z, &triples[1], 3).expect("mul 2");
    let both = z.concat(&u).expect("concat");
    open(mesh, &both, 4).expect("open")
}

fn plaintext() -> Vec<Scalar> {
    let (x, y): (Vec<Scalar>, Vec<Scalar>) = (0..M).map(|k| (value(0, k), value(1, k))).unzip();
    let z: Vec<Scalar> = x.iter().zip(&y).map(|(a, b)| a * b).collect();
    let u: Vec<Scalar> = (0..M)
        .map(|k| (Scalar::from(3u64) * z[k] + x[k] - y[k] + Scalar::from(5u64)) * z[k])
        .collect();
    [z, u].concat()
}

/// Per party, its two triple batches (a dealer's output, split by party).
fn triples(n: usize) -> Vec<[[Shares; 3]; 2]> {
    let mut rng = Rng::from_entropy();
    let t1 = deal_triples(n, M, &mut rng);
    let t2 = deal_triples(n, M, &mut rng);
    t1.into_iter().zip(t2).map(|(a, b)| [a, b]).collect()
}

#[test]
fn circuit_over_memory_matches_plaintext() {
    for n in [2, 3, 5] {
        let t = triples(n);
        let outs = run_parties(MemoryMesh::new(n), |m| circuit(m, &t[m.me()]));
        for o in outs {
            assert_eq!(o, plaintext(), "n = {n}");
        }
    }
}

#[test]
fn circuit_over_tcp_matches_plaintext() {
    for n in [2, 3, 5] {
        let t = triples(n);
        let meshes = local_tcp_mesh(n).expect("tcp mesh");
        let outs = run_parties(meshes, |m| circuit(m, &t[m.me()]));
        for o in outs {
            assert_eq!(o, plaintext(), "n = {n}");
        }
    }
}

/// Frames on every link of a one-round protocol: the hello, the opening,
/// the digests of the checked broadcast.
const OPEN_FRAME: u64 = 1;
const OPEN_DIGESTS: u64 = 2;

/// Shares of `m` known values for every party (through the dealer).
fn dealt(n: usize, m: usize) -> Vec<Shares> {
    let vals: Vec<Scalar> = (0..m as u64).map(Scalar::from).collect();
    ot::runtime::orlandi::deal(&vals, n, &mut Rng::from_entropy())
}

/// Memory meshes for `n` parties where party `who`'s outgoing frames pass
/// through `tamper(to, frame_index, frame)`.
fn tampered<F>(n: usize, who: usize, tamper: F) -> Vec<Box<dyn Mesh + Send>>
where
    F: FnMut(usize, u64, &mut Vec<u8>) + Send + Clone + 'static,
{
    tamper_party(MemoryMesh::new(n), who, tamper)
}

/// Memory meshes where party `cheat` flips byte `byte` of its opening
/// (frame 1 of a one-round protocol `spec` under session `tag`) for
/// everyone, with the matching digest in the broadcast check: consistent,
/// but not what was committed.
fn wrong_opening(
    n: usize,
    cheat: usize,
    byte: usize,
    spec: &'static [u8; 32],
    tag: u8,
) -> Vec<Box<dyn Mesh + Send>> {
    let s = ot::runtime::transport::mpc::session_block(session(tag));
    let mut digest = None;
    tampered(n, cheat, move |_, k, f: &mut Vec<u8>| {
        if k == OPEN_FRAME {
            f[byte] ^= 1;
            digest = Some(ot::runtime::transport::mpc::broadcast_digest(
                spec, s, "open", cheat, f,
            ));
        }
        if let (OPEN_DIGESTS, Some(d)) = (k, digest) {
            f[cheat * 32..(cheat + 1) * 32].copy_from_slice(&d);
        }
    })
}

#[test]
fn a_tampered_opening_names_the_party() {
    let (n, cheat, m) = (4, 2, 5);
    let shares = dealt(n, m);
    // The low byte of the fourth share.
    let meshes = wrong_opening(n, cheat, 32 * 3, &orlandi_open::SPEC_HASH, 9);
    let outs = run_parties(meshes, |mesh| {
        let me = mesh.me();
        open(&mut **mesh, &shares[me], 9)
    });
    for (i, o) in outs.iter().enumerate().filter(|(i, _)| *i != cheat) {
        match o {
            Err(e @ orlandi_open::Error::BadOpening { party, culprit, .. }) => {
                assert_eq!((*party, *culprit), (i, Some(cheat)));
                assert!(e.to_string().contains("P[2]"), "{e}");
            }
            other => panic!("party {i}: expected BadOpening, got {other:?}"),
        }
    }
}

#[test]
fn a_tampered_opening_of_products_names_the_party() {
    // Products keep their commitments deferred (coefficients on those of
    // x, y, c); the joint batched check of their opening still fails and
    // the per-sender fallback names the cheater at every honest party.
    let (n, cheat, m) = (3, 1, 7);
    let (x, y) = (dealt(n, m), dealt(n, m));
    let t = deal_triples(n, m, &mut Rng::from_entropy());
    let masked: Vec<Shares> = (0..n)
        .map(|i| ot::runtime::orlandi::mul_masked(&x[i], &y[i], &t[i][0], &t[i][1]))
        .collect();
    let openings: Vec<Vec<Scalar>> = masked
        .iter()
        .map(|s| ot::runtime::orlandi::opening(s, 2 * m))
        .collect();
    let de = ot::runtime::orlandi::open_values(&openings, 2 * m);
    let z: Vec<Shares> = (0..n)
        .map(|i| ot::runtime::orlandi::mul_finish(&x[i], &y[i], &t[i][2], &de))
        .collect();
    // The honest run opens x·y.
    let outs = run_parties(MemoryMesh::new(n), |mesh| {
        let me = mesh.me();
        open(mesh, &z[me], 14)
    });
    let want: Vec<Scalar> = (0..m as u64).map(|k| Scalar::from(k * k)).collect();
    for o in outs {
        assert_eq!(o.expect("open"), want);
    }
    // A flipped bit in the randomness ρ1 of the third product.
    let meshes = wrong_opening(n, cheat, 32 * (m + 2), &orlandi_open::SPEC_HASH, 15);
    let outs = run_parties(meshes, |mesh| {
        let me = mesh.me();
        open(&mut **mesh, &z[me], 15)
    });
    assert_named(&outs, cheat, |e| match e {
        orlandi_open::Error::BadOpening { party, culprit, .. } => Some((*party, *culprit)),
        _ => None,
    });
}

/// Every honest party (all but `cheat`) fails with the error `named` maps
/// to `(party, culprit)`, naming itself and `cheat`.
fn assert_named<T: std::fmt::Debug, E: std::fmt::Debug>(
    outs: &[Result<T, E>],
    cheat: usize,
    named: impl Fn(&E) -> Option<(usize, Option<usize>)>,
) {
    for (i, o) in outs.iter().enumerate().filter(|(i, _)| *i != cheat) {
        match o {
            Err(e) => assert_eq!(named(e), Some((i, Some(cheat))), "party {i}: {e:?}"),
            Ok(v) => panic!("party {i}: expected the named abort, got {v:?}"),
        }
    }
}

#[test]
fn a_tampered_masked_opening_in_a_multiplication_names_the_party() {
    let (n, cheat, m) = (3, 2, 4);
    let (x, y) = (dealt(n, m), dealt(n, m));
    let t = deal_triples(n, m, &mut Rng::from_entropy());
    // e of the second product (values d ‖ e, then ρ1, ρ2).
    let meshes = wrong_opening(n, cheat, 32 * (m + 1), &orlandi_mul::SPEC_HASH, 16);
    let outs = run_parties(meshes, |mesh| {
        let me = mesh.me();
        mul(&mut **mesh, &x[me], &y[me], &t[me], 16)
    });
    assert_named(&outs, cheat, |e| match e {
        orlandi_mul::Error::BadOpening { party, culprit, .. } => Some((*party, *culprit)),
        _ => None,
    });
}

#[test]
fn an_equivocating_opener_is_named_by_every_honest_party() {
    let (n, liar, m) = (5, 1, 3);
    let shares = dealt(n, m);
    let meshes = tampered(n, liar, move |to, k, f: &mut Vec<u8>| {
        if k == OPEN_FRAME && to % 2 == 0 {
            f[0] ^= 1;
        }
    });
    let outs = run_parties(meshes, |mesh| {
        let me = mesh.me();
        open(&mut **mesh, &shares[me], 10)
    });
    for (i, o) in outs.iter().enumerate().filter(|(i, _)| *i != liar) {
        match o {
            Err(orlandi_open::Error::Equivocation {
                party,
                round,
                sender,
                ..
            }) => assert_eq!((*party, *round, *sender), (i, "open", liar)),
            other => panic!("party {i}: expected Equivocation, got {other:?}"),
        }
    }
}

#[test]
fn a_tampered_mask_opening_names_the_sender() {
    // Frames of the input protocol: 0 hello, 1 commitments, 2 their
    // digests (n of 32 bytes) batched with the private mask opening.
    let (n, cheat, inputter) = (3, 1, 0);
    let meshes = tampered(n, cheat, move |to, k, f: &mut Vec<u8>| {
        if k == 2 && to == inputter {
            f[n * 32] ^= 1;
        }
    });
    let outs = run_parties(meshes, |mesh| {
        let me = mesh.me();
        input(&mut **mesh, vec![value(me, 0), value(me, 1)], 11)
    });
    match &outs[inputter] {
        Err(e @ orlandi_input::Error::BadMaskOpening { party, culprit, .. }) => {
            assert_eq!((*party, *culprit), (inputter, Some(cheat)));
            assert!(e.to_string().contains("P[1]"), "{e}");
        }
        other => panic!("expected BadMaskOpening, got {other:?}"),
    }
}

#[test]
fn a_triple_with_c_not_ab_shifts_the_product() {
    // The online phase trusts its triples (their check is the
    // preprocessing's job): a triple with c != ab passes every opening
    // check and yields xy + (c - ab). This documents why triples must be
    // tested before use.
    let n = 2;
    let mut t = triples(n);
    let bump = ot::runtime::orlandi::deal(&[Scalar::ONE; M], n, &mut Rng::from_entropy());
    for (i, b) in bump.iter().enumerate() {
        t[i][0][2] = t[i][0][2].add(b).expect("same layout");
    }
    let outs = run_parties(MemoryMesh::new(n), |m| circuit(m, &t[m.me()]));
    let want = plaintext();
    for o in outs {
        assert_eq!(o[0], want[0] + Scalar::ONE);
    }
}

#[test]
fn malformed_shares_are_a_typed_error() {
    let shares = dealt(3, 4);
    let outs = run_parties(MemoryMesh::new(3), |mesh| {
        // Party 0 passes a batch of the wrong length for m = 4.
        let v = if mesh.me() == 0 {
            shares[0].slice(0, 3).expect("slice")
        } else {
            shares[mesh.me()].clone()
        };
        let params = orlandi_open::Params::new(3, 4).expect("params");
        let input = orlandi_open::PInput { v };
        orlandi_open::P::new(mesh.me(), params, session(12), input, Rng::from_entropy())
            .and_then(|p| p.run(mesh))
            .map(|o| o.values)
    });
    assert!(
        matches!(outs[0], Err(orlandi_open::Error::BadShares { .. })),
        "{:?}",
        outs[0]
    );
    // Shares of another party are refused too, before any message.
    let params = orlandi_open::Params::new(3, 4).expect("params");
    let input = orlandi_open::PInput {
        v: shares[1].clone(),
    };
    let e = orlandi_open::P::new(0, params, session(13), input, Rng::from_entropy())
        .err()
        .expect("refused");
    assert!(matches!(e, orlandi_open::Error::BadShares { .. }), "{e}");
}
