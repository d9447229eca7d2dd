//! The Orlandi protocol's online phase end to end (`protocols/orlandi.otp`,
//! `orlandi_input.otp`, `orlandi_mul.otp`): inputs, local linear
//! operations, batched multiplications and openings against the plaintext
//! circuit for n = 2, 3, 5 over the in-memory and the TCP mesh; a tampered
//! opening and a tampered mask opening name the cheater; an equivocating
//! broadcaster is named by every honest party; malformed shares are a typed
//! error. Triples come from the test dealer (`orlandi::deal_triples`).

use ot::runtime::ec::Scalar;
use ot::runtime::mesh::{local_tcp_mesh, run_parties, tamper_party, MemoryMesh, Mesh};
use ot::runtime::orlandi::{deal_triples, Shares};
use ot::runtime::rng::Rng;
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

#[test]
fn a_tampered_opening_names_the_party() {
    let (n, cheat, m) = (4, 2, 5);
    let shares = dealt(n, m);
    // The same wrong share to everyone (and the matching digest in
    // the broadcast check): consistent, but not what was committed.
    let s = ot::runtime::mpc::session_block(session(9));
    let mut digest = None;
    let meshes = tampered(n, cheat, move |_, k, f: &mut Vec<u8>| {
        if k == OPEN_FRAME {
            f[32 * 3] ^= 1; // the low byte of the fourth share
            digest = Some(ot::runtime::mpc::broadcast_digest(
                &orlandi_open::SPEC_HASH,
                s,
                "open",
                cheat,
                f,
            ));
        }
        if let (OPEN_DIGESTS, Some(d)) = (k, digest) {
            f[cheat * 32..(cheat + 1) * 32].copy_from_slice(&d);
        }
    });
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
