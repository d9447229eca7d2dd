//! MiniMac online phase end to end (`protocols/minimac.otp`,
//! `protocols/minimac_mul.otp`) over the in-memory and the TCP mesh for 2
//! and 3 players, with the dealer's preprocessing files
//! (`ot::runtime::minimac::prep`): products and linear combinations against
//! the plaintext; a party that adds an error to a share or a MAC before
//! opening is caught and every party returns the named abort; bad
//! preprocessing files are typed errors and material is never handed out
//! twice.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use ot::runtime::gf256::mul;
use ot::runtime::mesh::{local_tcp_mesh, run_parties, MemoryMesh, Mesh};
use ot::runtime::minimac::prep::{deal, PrepError, PrepParams, PrepStore};
use ot::runtime::minimac::{Codes, Opened, Shares};
use ot::runtime::rng::Rng;
use ot::{minimac_mul, minimac_open};

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
    let p = minimac_open::Params::new(mesh.parties(), v.len(), LEN)?;
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
    let p = minimac_mul::Params::new(mesh.parties(), x.len(), LEN)?;
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
    /// Adds an error to its MAC share.
    Mac,
}

fn cheat(v: &mut Shares, how: Cheat) {
    let e = Codes::get(K, LEN).unwrap().base.encode(&[9u8; K]);
    let (x, mac) = v.parts_mut();
    match how {
        Cheat::NonCodeword => x[3] ^= 0x40,
        Cheat::Codeword => x[..LEN].iter_mut().zip(&e).for_each(|(a, b)| *a ^= b),
        Cheat::Mac => mac[LEN - 1] ^= 1,
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
            for o in outs {
                match (how, o) {
                    (Cheat::NonCodeword, Err(minimac_open::Error::NotACodeword { .. })) => {}
                    (
                        Cheat::Codeword | Cheat::Mac,
                        Err(minimac_open::Error::MacCheckFailed { .. }),
                    ) => {}
                    (_, other) => panic!("expected the named abort, got {other:?}"),
                }
            }
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
        let p = minimac_open::Params::new(2, 3, LEN).unwrap();
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
    for cut in [0, 20, 47, 48, 100, bytes.len() - 1] {
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
    let mut bad = bytes;
    bad[8] = 9;
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        PrepStore::open(&p, 2, params(3)),
        Err(PrepError::Version { found: 9 })
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
    // The other party's record is its own.
    assert_eq!(
        PrepStore::open(&f[1], 1, params(2)).unwrap().randoms_left(),
        4
    );
}
