//! MiniMac online phase end to end (`protocols/minimac_open.otp`,
//! `protocols/minimac_mul.otp`) over the in-memory and the TCP mesh for 2
//! and 3 players, with the dealer's preprocessing files
//! (`ot::runtime::minimac::prep`): products and linear combinations against
//! the plaintext; a party that adds an error to a share or a MAC before
//! opening is caught and every party returns the named abort; bad
//! preprocessing files are typed errors and material is never handed out
//! twice. Re-encoding (`protocols/minimac_reencode.otp`) and input
//! (`protocols/minimac_input.otp`): products re-encoded and multiplied
//! again, every party's inputs, and cheating in both.

use ot::files::{PartyPrepFile, PrepStoreFile};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use ot::runtime::minimac::floor::STAT_SEC;
use ot::runtime::minimac::prep::{deal, deal_counts, Counts, PrepError, PrepParams, PrepStore};
use ot::runtime::minimac::{Codes, Opened, Shares};
use ot::runtime::primitives::gf256::mul;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, MemoryMesh, Mesh};
use ot::{minimac_input, minimac_mul, minimac_open, minimac_reencode};

const K: usize = 20;
const LEN: usize = 60;

/// A fresh directory under the system temporary directory.
fn temp_dir(tag: &str) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "minimac-test-{}-{}-{}",
        std::process::id(),
        tag,
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn params(parties: usize) -> PrepParams {
    PrepParams {
        parties,
        k: K,
        n: LEN,
    }
}

/// The dealer's files for `parties` players.
fn files(dir: &Path, parties: usize, randoms: usize, triples: usize) -> Vec<PathBuf> {
    let mut rng = Rng::deterministic_for_tests(parties as u64);
    deal(params(parties), 7, randoms, triples, &mut rng)
        .unwrap()
        .iter()
        .map(|p| p.write_to(dir).unwrap())
        .collect()
}

/// The dealer's files with every kind of material.
fn files_with(dir: &Path, parties: usize, counts: Counts) -> Vec<PathBuf> {
    let mut rng = Rng::deterministic_for_tests(parties as u64 + 100);
    deal_counts(params(parties), 8, counts, &mut rng)
        .unwrap()
        .iter()
        .map(|p| p.write_to(dir).unwrap())
        .collect()
}

fn session(tag: u8) -> [u8; 16] {
    let mut s = [0x3c; 16];
    s[0] = tag;
    s
}

fn open<M: Mesh + ?Sized>(
    mesh: &mut M,
    v: &Shares,
    tag: u8,
) -> Result<Opened, minimac_open::Error> {
    let p = minimac_open::Params::new(mesh.parties(), v.len(), K, LEN, STAT_SEC)?;
    let input = minimac_open::PInput { v: v.clone() };
    Ok(
        minimac_open::P::new(mesh.me(), p, session(tag), input, Rng::from_entropy())?
            .run(mesh)?
            .values,
    )
}

fn mul_shares<M: Mesh + ?Sized>(
    mesh: &mut M,
    x: &Shares,
    y: &Shares,
    t: [Shares; 3],
    tag: u8,
) -> Result<Shares, minimac_mul::Error> {
    let p = minimac_mul::Params::new(mesh.parties(), x.len(), K, LEN, STAT_SEC)?;
    let [a, b, c] = t;
    let input = minimac_mul::PInput {
        x: x.clone(),
        y: y.clone(),
        a,
        b,
        c,
    };
    Ok(
        minimac_mul::P::new(mesh.me(), p, session(tag), input, Rng::from_entropy())?
            .run(mesh)?
            .z,
    )
}

fn reencode<M: Mesh + ?Sized>(
    mesh: &mut M,
    x: &Shares,
    pairs: [Shares; 2],
    tag: u8,
) -> Result<Shares, minimac_reencode::Error> {
    let p = minimac_reencode::Params::new(mesh.parties(), x.len(), K, LEN, STAT_SEC)?;
    let [r, rs] = pairs;
    let input = minimac_reencode::PInput {
        x: x.clone(),
        r,
        rs,
    };
    Ok(
        minimac_reencode::P::new(mesh.me(), p, session(tag), input, Rng::from_entropy())?
            .run(mesh)?
            .y,
    )
}

/// Party `me`'s `m` inputs in the test circuits: value `t`, slot `s` is
/// `31·me + 7·t + s + 1`.
fn inputs_of(me: usize, m: usize) -> Vec<u8> {
    (0..m * K)
        .map(|i| (31 * me + 7 * (i / K) + i % K + 1) as u8)
        .collect()
}

fn input<M: Mesh + ?Sized>(
    mesh: &mut M,
    store: &mut PrepStore,
    x: Vec<u8>,
    m: usize,
) -> Res<Shares> {
    let (masks, own) = store.take_inputs(m)?;
    let p = minimac_input::Params::new(mesh.parties(), m, K, LEN, STAT_SEC)?;
    let input = minimac_input::PInput { x, masks, own };
    Ok(
        minimac_input::P::new(mesh.me(), p, session(20), input, Rng::from_entropy())?
            .run(mesh)?
            .shares,
    )
}

/// Every party inputs `m` values; `w = (x·y re-encoded)·u` with `x`, `y`,
/// `u` the inputs of parties 0, 1 and the last one. Opens the inputs and `w`.
fn reencode_circuit<M: Mesh + ?Sized>(
    mesh: &mut M,
    files: &[PathBuf],
    m: usize,
) -> Res<[Opened; 2]> {
    let (me, n) = (mesh.me(), mesh.parties());
    let mut store = PrepStore::open(&files[me], me, params(n))?;
    let v = input(mesh, &mut store, inputs_of(me, m), m)?;
    let (x, y, u) = (
        v.slice(0, m).unwrap(),
        v.slice(m, m).unwrap(),
        v.slice((n - 1) * m, m).unwrap(),
    );
    let z = mul_shares(mesh, &x, &y, store.take_triples(m)?, 21)?;
    let z = reencode(mesh, &z, store.take_pairs(m)?, 22)?;
    let w = mul_shares(mesh, &z, &u, store.take_triples(m)?, 23)?;
    Ok([open(mesh, &v, 24)?, open(mesh, &w, 25)?])
}

fn check_reencode_circuit(outs: Vec<Res<[Opened; 2]>>, n: usize, m: usize) {
    let outs: Vec<[Opened; 2]> = outs.into_iter().map(|o| o.unwrap()).collect();
    for o in &outs {
        assert_eq!(o, &outs[0], "every party opens the same values");
    }
    let [v, w] = &outs[0];
    for j in 0..n {
        let want = inputs_of(j, m);
        for t in 0..m {
            assert_eq!(
                v[j * m + t],
                want[t * K..(t + 1) * K],
                "input {t} of party {j}"
            );
        }
    }
    for t in 0..m {
        for s in 0..K {
            let xy = mul(v[t][s], v[m + t][s]);
            assert_eq!(w[t][s], mul(xy, v[(n - 1) * m + t][s]), "slot {s} of w_{t}");
        }
    }
}

fn reencode_counts(m: usize) -> Counts {
    Counts {
        randoms: 4,
        triples: 2 * m,
        pairs: m,
        inputs: m,
        ..Counts::default()
    }
}

#[test]
fn inputs_and_reencoded_products_over_the_memory_mesh() {
    for n in [2, 3] {
        let f = files_with(&temp_dir("re-mem"), n, reencode_counts(3));
        let outs = run_parties(MemoryMesh::new(n), |mesh| reencode_circuit(mesh, &f, 3));
        check_reencode_circuit(outs, n, 3);
    }
}

#[test]
fn inputs_and_reencoded_products_over_tcp() {
    for n in [2, 3] {
        let f = files_with(&temp_dir("re-tcp"), n, reencode_counts(2));
        let outs = run_parties(local_tcp_mesh(n).unwrap(), |mesh| {
            reencode_circuit(mesh, &f, 2)
        });
        check_reencode_circuit(outs, n, 2);
    }
}

#[test]
fn a_cheating_reencoder_is_caught_by_every_party() {
    for n in [2, 3] {
        for (how, who) in [
            (Cheat::NonCodeword, 0),
            (Cheat::Codeword, n - 1),
            (Cheat::Mac, 1),
        ] {
            let f = files_with(&temp_dir("cheat-re"), n, reencode_counts(2));
            let outs = run_parties(MemoryMesh::new(n), |mesh| {
                let me = mesh.me();
                let (mut store, r) = randoms(&f, me, n, 4);
                let (x, y) = (r.slice(0, 2).unwrap(), r.slice(2, 2).unwrap());
                let mut z = mul_shares(mesh, &x, &y, store.take_triples(2).unwrap(), 30).unwrap();
                if me == who {
                    cheat(&mut z, how);
                }
                reencode(mesh, &z, store.take_pairs(2).unwrap(), 31)
            });
            assert_named_abort(how, outs);
        }
    }
}

#[test]
fn a_cheating_inputter_is_caught_at_the_next_opening() {
    for n in [2, 3] {
        let f = files_with(&temp_dir("cheat-in"), n, reencode_counts(2));
        let outs = run_parties(MemoryMesh::new(n), |mesh| -> Res<Opened> {
            let me = mesh.me();
            let mut store = PrepStore::open(&f[me], me, params(n))?;
            let (mut masks, own) = store.take_inputs(2)?;
            if me == 0 {
                // Its own mask's MAC share, changed before entering input.
                cheat(&mut masks, Cheat::Mac);
            }
            let p = minimac_input::Params::new(n, 2, K, LEN, STAT_SEC)?;
            let x = inputs_of(me, 2);
            let input = minimac_input::PInput { x, masks, own };
            let v = minimac_input::P::new(me, p, session(32), input, Rng::from_entropy())?
                .run(mesh)?
                .shares;
            Ok(open(mesh, &v, 33)?)
        });
        for o in outs {
            let e = o.expect_err("no party may output");
            assert!(
                matches!(
                    e.downcast_ref::<minimac_open::Error>(),
                    Some(minimac_open::Error::MacCheckFailed { .. })
                ),
                "expected MacCheckFailed, got {e:?}"
            );
        }
    }
}

#[test]
fn input_shapes_are_checked_before_any_message() {
    let f = files_with(&temp_dir("in-shape"), 2, reencode_counts(2));
    let outs = run_parties(MemoryMesh::new(2), |mesh| {
        let me = mesh.me();
        let mut store = PrepStore::open(&f[me], me, params(2)).unwrap();
        let (masks, own) = store.take_inputs(2).unwrap();
        // The masks of one value short (the slots' shapes are the
        // generated code's `Shape` checks).
        let masks = masks.slice(0, 3).unwrap();
        let x = inputs_of(me, 2);
        let p = minimac_input::Params::new(2, 2, K, LEN, STAT_SEC).unwrap();
        let input = minimac_input::PInput { x, masks, own };
        minimac_input::P::new(me, p, session(34), input, Rng::from_entropy())?.run(mesh)
    });
    for o in outs {
        assert!(
            matches!(o, Err(minimac_input::Error::BadShares { .. })),
            "{o:?}"
        );
    }
}

/// Party `me`'s store and `m` random values from it.
fn randoms(f: &[PathBuf], me: usize, n: usize, m: usize) -> (PrepStore, Shares) {
    let mut store = PrepStore::open(&f[me], me, params(n)).unwrap();
    let r = store.take_randoms(m).unwrap();
    (store, r)
}

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Opened x, y, x∘y and 3·(x + y) + c for m random x, y.
fn circuit<M: Mesh + ?Sized>(mesh: &mut M, files: &[PathBuf], m: usize) -> Res<[Opened; 4]> {
    let me = mesh.me();
    let mut store = PrepStore::open(&files[me], me, params(mesh.parties()))?;
    let r = store.take_randoms(2 * m)?;
    let (x, y) = (r.slice(0, m).unwrap(), r.slice(m, m).unwrap());
    let z = mul_shares(mesh, &x, &y, store.take_triples(m)?, 1)?;
    let c: Vec<Vec<u8>> = (0..m).map(|l| vec![l as u8 + 1; K]).collect();
    let lin = x.add(&y)?.scale(3).add_public(&c)?;
    Ok([
        open(mesh, &x, 2)?,
        open(mesh, &y, 3)?,
        open(mesh, &z, 4)?,
        open(mesh, &lin, 5)?,
    ])
}

fn check_circuit(outs: Vec<Res<[Opened; 4]>>, m: usize) {
    let outs: Vec<[Opened; 4]> = outs.into_iter().map(|o| o.unwrap()).collect();
    let [x, y, z, lin] = &outs[0];
    for o in &outs {
        assert_eq!(o, &outs[0], "every party opens the same values");
    }
    assert_eq!(x.len(), m);
    for l in 0..m {
        for s in 0..K {
            assert_eq!(
                z[l][s],
                mul(x[l][s], y[l][s]),
                "product slot {s} of value {l}"
            );
            assert_eq!(
                lin[l][s],
                mul(3, x[l][s] ^ y[l][s]) ^ (l as u8 + 1),
                "linear slot {s}"
            );
        }
    }
}

#[test]
fn products_and_linear_combinations_over_the_memory_mesh() {
    for n in [2, 3] {
        let dir = temp_dir("mem");
        let f = files(&dir, n, 20, 10);
        check_circuit(
            run_parties(MemoryMesh::new(n), |mesh| circuit(mesh, &f, 5)),
            5,
        );
    }
}

#[test]
fn products_and_linear_combinations_over_tcp() {
    for n in [2, 3] {
        let dir = temp_dir("tcp");
        let f = files(&dir, n, 20, 10);
        check_circuit(
            run_parties(local_tcp_mesh(n).unwrap(), |mesh| circuit(mesh, &f, 4)),
            4,
        );
    }
}

/// How a cheating party changes its shares of value 0 before opening.
#[derive(Clone, Copy)]
enum Cheat {
    /// Adds a non-codeword error to its codeword share.
    NonCodeword,
    /// Adds a nonzero codeword to its codeword share (keeps it in the code).
    Codeword,
    /// Adds an error to every coordinate of one MAC word of its share.
    Mac,
}

/// Every party returned the abort `how` must cause: `NotACodeword` for a
/// non-codeword error, `MacCheckFailed` otherwise.
fn assert_named_abort<T: std::fmt::Debug, E: std::fmt::Debug>(how: Cheat, outs: Vec<Result<T, E>>) {
    let want = match how {
        Cheat::NonCodeword => "Err(NotACodeword",
        Cheat::Codeword | Cheat::Mac => "Err(MacCheckFailed",
    };
    for o in outs {
        let got = format!("{o:?}");
        assert!(got.starts_with(want), "expected {want}, got {got}");
    }
}

fn cheat(v: &mut Shares, how: Cheat) {
    let e = Codes::get(K, LEN).unwrap().base.encode(&[9u8; K]);
    let (x, mac) = v.parts_mut();
    match how {
        Cheat::NonCodeword => x[3] ^= 0x40,
        Cheat::Codeword => x[..LEN].iter_mut().zip(&e).for_each(|(a, b)| *a ^= b),
        // Every coordinate of the first MAC word: a single coordinate's
        // error passes the check's random combination with probability
        // 2^-8 (by design, and harmless: no value changes).
        Cheat::Mac => mac[..LEN].iter_mut().for_each(|b| *b ^= 1),
    }
}

#[test]
fn a_cheating_opener_is_caught_by_every_party() {
    for n in [2, 3] {
        for (how, who) in [
            (Cheat::NonCodeword, 0),
            (Cheat::Codeword, n - 1),
            (Cheat::Mac, 1),
        ] {
            let dir = temp_dir("cheat");
            let f = files(&dir, n, 4, 0);
            let outs = run_parties(MemoryMesh::new(n), |mesh| {
                let me = mesh.me();
                let (_store, mut v) = randoms(&f, me, n, 3);
                if me == who {
                    cheat(&mut v, how);
                }
                open(mesh, &v, 9)
            });
            assert_named_abort(how, outs);
        }
    }
}

#[test]
fn a_cheating_multiplier_is_caught_by_every_party() {
    for n in [2, 3] {
        let dir = temp_dir("cheat-mul");
        let f = files(&dir, n, 4, 2);
        let outs = run_parties(MemoryMesh::new(n), |mesh| {
            let me = mesh.me();
            let (mut store, r) = randoms(&f, me, n, 4);
            let (mut x, y) = (r.slice(0, 2).unwrap(), r.slice(2, 2).unwrap());
            if me == 1 {
                cheat(&mut x, Cheat::Codeword);
            }
            mul_shares(mesh, &x, &y, store.take_triples(2).unwrap(), 11)
        });
        for o in outs {
            assert!(
                matches!(o, Err(minimac_mul::Error::MacCheckFailed { .. })),
                "expected MacCheckFailed, got {o:?}"
            );
        }
    }
}

#[test]
fn malformed_shares_are_refused_before_any_message() {
    let dir = temp_dir("shape");
    let f = files(&dir, 2, 4, 0);
    let outs = run_parties(MemoryMesh::new(2), |mesh| {
        let (_store, v) = randoms(&f, mesh.me(), 2, 2);
        // Claims 3 values but holds 2.
        let p = minimac_open::Params::new(2, 3, K, LEN, STAT_SEC).unwrap();
        let input = minimac_open::PInput { v };
        minimac_open::P::new(mesh.me(), p, session(1), input, Rng::from_entropy())?.run(mesh)
    });
    for o in outs {
        assert!(
            matches!(o, Err(minimac_open::Error::BadShares { .. })),
            "{o:?}"
        );
    }
}

#[test]
fn bad_preprocessing_files_are_typed_errors() {
    let dir = temp_dir("files");
    let f = files(&dir, 3, 4, 2);
    // Another party's file.
    let e = PrepStore::open(&f[1], 0, params(3)).unwrap_err();
    assert!(
        matches!(
            e,
            PrepError::WrongParty {
                expected: 0,
                found: 1
            }
        ),
        "{e}"
    );
    // Another parameter set.
    let e = PrepStore::open(
        &f[0],
        0,
        PrepParams {
            parties: 3,
            k: 21,
            n: LEN,
        },
    )
    .unwrap_err();
    assert!(matches!(e, PrepError::WrongParams { .. }), "{e}");
    let e = PrepStore::open(&f[0], 0, params(2)).unwrap_err();
    assert!(matches!(e, PrepError::WrongParams { .. }), "{e}");
    // Truncated, at every kind of place, and a flipped byte.
    let bytes = std::fs::read(&f[2]).unwrap();
    for cut in [0, 20, 47, 48, 63, 64, 100, bytes.len() - 1] {
        let p = dir.join(format!("cut-{cut}.prep"));
        std::fs::write(&p, &bytes[..cut]).unwrap();
        let e = PrepStore::open(&p, 2, params(3)).unwrap_err();
        assert!(matches!(e, PrepError::Truncated { .. }), "cut {cut}: {e}");
    }
    let mut bad = bytes.clone();
    bad[200] ^= 1;
    let p = dir.join("flipped.prep");
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        PrepStore::open(&p, 2, params(3)),
        Err(PrepError::Truncated { .. })
    ));
    let mut bad = bytes.clone();
    bad[0] = b'X';
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        PrepStore::open(&p, 2, params(3)),
        Err(PrepError::BadMagic)
    ));
    // A later version, and the previous one (3: explicit shares only,
    // no share mode).
    for v in [9u8, 3] {
        let mut bad = bytes.clone();
        bad[8] = v;
        std::fs::write(&p, &bad).unwrap();
        let e = PrepStore::open(&p, 2, params(3)).unwrap_err();
        assert!(
            matches!(e, PrepError::Version { found } if found == u16::from(v)),
            "{e}"
        );
    }
    // A share mode this build does not know.
    let mut bad = bytes;
    bad[18] = 7;
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        PrepStore::open(&p, 2, params(3)),
        Err(PrepError::Truncated { .. })
    ));
}

#[test]
fn consumed_material_is_never_handed_out_again() {
    let dir = temp_dir("consume");
    let f = files(&dir, 2, 4, 2);
    let mut s = PrepStore::open(&f[0], 0, params(2)).unwrap();
    let first = s.take_randoms(3).unwrap();
    let e = s.take_randoms(2).unwrap_err();
    assert!(
        matches!(
            e,
            PrepError::Exhausted {
                wanted: 2,
                left: 1,
                ..
            }
        ),
        "{e}"
    );
    drop(s);
    // A later load starts after what was taken.
    let mut s = PrepStore::open(&f[0], 0, params(2)).unwrap();
    assert_eq!((s.randoms_left(), s.triples_left()), (1, 2));
    let last = s.take_randoms(1).unwrap();
    assert_ne!(first.slice(0, 1).unwrap(), last);
    let _ = s.take_triples(2).unwrap();
    assert!(matches!(
        s.take_triples(1),
        Err(PrepError::Exhausted { .. })
    ));
    drop(s);
    let e = PrepStore::open(&f[0], 0, params(2)).unwrap_err();
    assert!(matches!(e, PrepError::Consumed { batch: 7 }), "{e}");
    // Pairs and input masks, too.
    let f = files_with(&dir, 2, reencode_counts(2));
    let mut s = PrepStore::open(&f[1], 1, params(2)).unwrap();
    let [r, rs] = s.take_pairs(1).unwrap();
    assert!(!r.is_square() && rs.is_square() && r.len() == 1);
    let (masks, own) = s.take_inputs(2).unwrap();
    assert_eq!((masks.len(), own.len()), (4, 2 * K));
    drop(s);
    let mut s = PrepStore::open(&f[1], 1, params(2)).unwrap();
    assert_eq!(
        s.left(),
        Counts {
            pairs: 1,
            inputs: 0,
            ..reencode_counts(2)
        }
    );
    assert!(matches!(s.take_inputs(1), Err(PrepError::Exhausted { .. })));
    assert!(matches!(s.take_pairs(2), Err(PrepError::Exhausted { .. })));
    // The other party's record is its own.
    assert_eq!(
        PrepStore::open(&f[1], 1, params(2)).unwrap().randoms_left(),
        4
    );
}

/// The code-size floor (`ot::runtime::minimac::floor`): every MiniMac
/// protocol's `Params::new` refuses RS[3k, k] with 7(k + 2) < sec (k < 4
/// at 40 bits), a statistical security below 40, and a high-rate code
/// whose Schur square is too close (RS[60, 29]: d* = 4).
#[test]
fn params_refuse_codes_below_the_floor() {
    macro_rules! floor {
        ($($m:ident),*) => {$(
            for (k, len, sec) in [(1, 3, STAT_SEC), (2, 6, STAT_SEC), (3, 9, STAT_SEC), (29, 60, STAT_SEC), (8, 24, 80), (K, LEN, 39)] {
                assert!(
                    matches!($m::Params::new(2, 1, k, len, sec), Err($m::Error::Params { .. })),
                    "{}: RS[{len}, {k}] at {sec} bits accepted", stringify!($m)
                );
            }
            for (k, len, sec) in [(4, 12, STAT_SEC), (K, LEN, STAT_SEC), (10, 30, 80)] {
                assert!($m::Params::new(2, 1, k, len, sec).is_ok(), "{}: RS[{len}, {k}]", stringify!($m));
            }
        )*};
    }
    floor!(minimac_open, minimac_mul, minimac_reencode, minimac_input);
}

/// Shares of another code than the parameters' (here RS[60, 29], whose
/// square has distance 4, under parameters for RS[60, 20]) are refused
/// with `BadShares` (`minimac_code_is`): the floor binds the shares.
#[test]
fn shares_of_a_weaker_code_than_the_params_are_refused() {
    let dir = temp_dir("weak-code");
    let weak = PrepParams {
        parties: 2,
        k: 29,
        n: LEN,
    };
    let mut rng = Rng::deterministic_for_tests(29);
    let f: Vec<PathBuf> = deal(weak, 9, 2, 0, &mut rng)
        .unwrap()
        .iter()
        .map(|p| p.write_to(&dir).unwrap())
        .collect();
    let outs = run_parties(MemoryMesh::new(2), |mesh| {
        let me = mesh.me();
        let mut store = PrepStore::open(&f[me], me, weak).unwrap();
        let v = store.take_randoms(2).unwrap();
        let p = minimac_open::Params::new(2, 2, K, LEN, STAT_SEC).unwrap();
        let input = minimac_open::PInput { v };
        minimac_open::P::new(me, p, session(1), input, Rng::from_entropy())?.run(mesh)
    });
    for o in outs {
        assert!(
            matches!(o, Err(minimac_open::Error::BadShares { .. })),
            "{o:?}"
        );
    }
}
