//! Message exchanges of generated n-party drivers: the session hello rides
//! with the first round (no flight of its own, checked before anything
//! from the peer is used), and with two parties a broadcast needs no
//! consistency check (its only receiver is the other party), so no digest
//! frame is sent; with three parties the digests are still exchanged and an
//! equivocating broadcaster is still caught (see also `tests/multiparty.rs`,
//! whose equivocation tests run with n = 3, 4, 5 and 9).

use ot::coin_flip_n;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{
    run_parties, HelloField, MemoryMesh, Mesh, MeshError, TamperMesh,
};

const SESSION: [u8; 16] = [0x51; 16];

fn coin_party<M: Mesh + ?Sized>(
    mesh: &mut M,
    session: [u8; 16],
) -> Result<coin_flip_n::POutput, coin_flip_n::Error> {
    let params = coin_flip_n::Params::new(mesh.parties())?;
    let input = coin_flip_n::PInput {};
    coin_flip_n::P::new(mesh.me(), params, session, input, Rng::from_entropy())?.run(mesh)
}

/// Per link, as seen by each party: (frames sent, frames received, flights).
fn link_counts(n: usize) -> Vec<Vec<(u64, u64, u64)>> {
    run_parties(MemoryMesh::new(n), |m| {
        coin_party(m, SESSION).expect("coin flip");
        let me = m.me();
        (0..n)
            .filter(|&p| p != me)
            .map(|p| {
                let s = m.stats(p);
                (s.messages_sent, s.messages_received, s.rounds)
            })
            .collect()
    })
}

/// Every link of a coin flip among `n` carries `frames` frames each way in
/// `exchanges` exchanges (every exchange is a flight out and a flight in).
fn assert_links(n: usize, frames: u64, exchanges: usize) {
    for party in link_counts(n) {
        for (sent, received, flights) in party {
            assert_eq!((sent, received), (frames, frames), "n = {n}");
            assert_eq!(flights, 2 * exchanges as u64, "n = {n}");
        }
    }
}

#[test]
fn two_parties_send_no_digest_frames() {
    // Coin flip: commit, open. Per link with n = 2: the hello, the
    // commitment and the opening, in two exchanges (hello + commitment,
    // opening); no digest frame, no digest exchange.
    let params = coin_flip_n::Params::new(2).expect("params");
    let c = coin_flip_n::comm(&params);
    assert_eq!(c.check_bytes, 0);
    assert_eq!(c.rounds, 2);
    let opening = coin_flip_n::msgs::Opening::wire_len(&params);
    let commitment = coin_flip_n::msgs::Commitment::wire_len(&params);
    assert_eq!(c.per_party, opening + commitment);
    assert_links(2, 3, c.rounds);
}

#[test]
fn three_parties_still_exchange_digests() {
    // n = 3: the hello, the commitment, the commitments' digests with the
    // opening (batched), and the openings' digests, in three exchanges.
    let params = coin_flip_n::Params::new(3).expect("params");
    let c = coin_flip_n::comm(&params);
    assert_eq!(c.check_bytes, 2 * 2 * 3 * 32);
    assert_eq!(c.rounds, 3);
    assert_links(3, 4, c.rounds);
}

#[test]
fn three_parties_catch_an_equivocating_broadcaster() {
    // Party 1 sends party 0 another commitment than party 2 (frame 1 on
    // each link: after the hello).
    let meshes: Vec<Box<dyn Mesh + Send>> = MemoryMesh::new(3)
        .into_iter()
        .map(|m| -> Box<dyn Mesh + Send> {
            if m.me() != 1 {
                return Box::new(m);
            }
            Box::new(TamperMesh::new(m, |to, k, f: &mut Vec<u8>| {
                if k == 1 && to == 0 {
                    let other = ot::runtime::primitives::ec::base_mul(
                        ot::runtime::primitives::ec::Scalar::from(7u64),
                    );
                    f[..32].copy_from_slice(&other.compress().to_bytes());
                }
            }))
        })
        .collect();
    let outs = run_parties(meshes, |m| coin_party(&mut **m, SESSION));
    for i in [0, 2] {
        match &outs[i] {
            Err(coin_flip_n::Error::Equivocation { sender: 1, .. }) => {}
            other => panic!("party {i}: expected Equivocation, got {other:?}"),
        }
    }
}

/// The field of a hello mismatch reported in round `hello`.
fn hello_field<E: std::fmt::Debug>(e: &E, mesh: Option<&MeshError>) -> HelloField {
    match mesh {
        Some(MeshError::Mismatch { field, .. }) => *field,
        _ => panic!("expected a hello mismatch, got {e:?}"),
    }
}

fn coin_hello(e: &coin_flip_n::Error) -> HelloField {
    match e {
        coin_flip_n::Error::Mesh {
            round: "hello",
            source,
        } => hello_field(e, Some(source)),
        _ => hello_field(e, None),
    }
}

#[test]
fn mismatched_peer_with_the_hello_in_the_first_flight_is_refused_on_both_sides() {
    for n in [2, 3] {
        let outs = run_parties(MemoryMesh::new(n), |m| {
            let session = if m.me() == n - 1 { [9; 16] } else { SESSION };
            coin_party(m, session)
        });
        for (i, o) in outs.iter().enumerate() {
            let e = o.as_ref().expect_err("no output with a mismatched peer");
            assert_eq!(coin_hello(e), HelloField::Session, "n = {n}, party {i}");
        }
    }
}

#[test]
fn first_round_data_of_a_mismatched_peer_is_not_used() {
    // Party 1 runs another session and sends a malformed (truncated)
    // commitment with its hello: party 0 refuses it on the hello, before it
    // decodes the commitment.
    let meshes: Vec<Box<dyn Mesh + Send>> = MemoryMesh::new(2)
        .into_iter()
        .map(|m| -> Box<dyn Mesh + Send> {
            if m.me() != 1 {
                return Box::new(m);
            }
            Box::new(TamperMesh::new(m, |_, k, f: &mut Vec<u8>| {
                if k == 1 {
                    f.truncate(3);
                }
            }))
        })
        .collect();
    let outs = run_parties(meshes, |m| {
        let session = if m.me() == 1 { [9; 16] } else { SESSION };
        coin_party(&mut **m, session)
    });
    for o in &outs {
        let e = o.as_ref().expect_err("refused");
        assert_eq!(coin_hello(e), HelloField::Session, "{e}");
    }
}

mod gather {
    ot::protocol! {
        // Every party sends P[0] its input; only P[0] receives anything, so
        // P[1] and P[2] hear nothing from each other but their hellos.
        protocol GatherAtZero(role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[0] { total: u64 }
            round give: P[j] -> P[0] : Give { x: u64 }
            at P[0] { total = sum_u64(x); }
        }
    }
}

fn gather_party<M: Mesh + ?Sized>(
    m: &mut M,
    session: [u8; 16],
) -> Result<gather::POutput, gather::Error> {
    let params = gather::Params::new(m.parties())?;
    let input = gather::PInput { x: m.me() as u64 };
    gather::P::new(m.me(), params, session, input, Rng::from_entropy())?.run(m)
}

#[test]
fn hellos_of_silent_links_are_checked_before_the_output() {
    // Agreeing parties: P[0] gets the total; a run with no mismatch works.
    let outs = run_parties(MemoryMesh::new(3), |m| gather_party(m, SESSION));
    assert_eq!(outs[0].as_ref().expect("run").total, Some(3));
    // P[2] of another session: P[1] receives no protocol frame from it, yet
    // refuses it (the hello is read before the output), and so does every
    // other party.
    let outs = run_parties(MemoryMesh::new(3), |m| {
        let session = if m.me() == 2 { [9; 16] } else { SESSION };
        gather_party(m, session)
    });
    for (i, o) in outs.iter().enumerate() {
        match o {
            Err(
                e @ gather::Error::Mesh {
                    round: "hello",
                    source,
                },
            ) => assert_eq!(hello_field(e, Some(source)), HelloField::Session),
            other => panic!("party {i}: expected a hello mismatch, got {other:?}"),
        }
    }
}
