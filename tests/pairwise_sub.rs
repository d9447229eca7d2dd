//! A two-party sub-protocol between every pair of parties of an n-party
//! protocol (`tests/otp/pairwise_ot.otp`: `do ot: RandomOt[..](Sender =
//! P[i], Receiver = P[j])` between two rounds), with actively secure OT
//! extension (KOS) as each run's implementation, for n = 2, 3, 4 over the
//! memory and the TCP mesh: every ordered pair's outputs hold the OT
//! relation, the runs of different pairs are independent, the rounds
//! around the call still run; a wrong number of implementations, a peer
//! that tampers with a run, and the generated API.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, tamper_party, MemoryMesh, Mesh};
use ot::runtime::Block;
use ot::traits::{OtExtension, RandomOtReceiver, RandomOtSender};

mod pairwise {
    ot::protocol!("tests/otp/pairwise_ot.otp");
}
use pairwise::{Error, POutput, PSubs};

const SESSION: [u8; 16] = [0x5a; 16];
const M: usize = 300;

/// One KOS instance per other party and role.
fn subs(n: usize) -> PSubs {
    let sender = (1..n)
        .map(|_| Box::new(OtExtension::kos()) as Box<dyn RandomOtSender + Send>)
        .collect();
    let receiver = (1..n)
        .map(|_| Box::new(OtExtension::kos()) as Box<dyn RandomOtReceiver + Send>)
        .collect();
    PSubs {
        ot_sender: sender,
        ot_receiver: receiver,
    }
}

fn party<M2: Mesh + ?Sized>(mesh: &mut M2) -> Result<POutput, Error> {
    let n = mesh.parties();
    let params = pairwise::Params::new(n, M)?;
    let me = mesh.me();
    let input = pairwise::PInput { x: me as u64 + 10 };
    pairwise::P::new(me, params, SESSION, input, Rng::from_entropy(), subs(n))?.run(mesh)
}

/// For every ordered pair (s, r): r's `chosen[s]` is s's `sent[r]` at r's
/// choice bits, and not at the other; the rounds around the call ran.
fn assert_relations(n: usize, outs: Vec<Result<POutput, Error>>) {
    let outs: Vec<POutput> = outs.into_iter().map(|o| o.expect("run")).collect();
    let sum: u64 = (0..n as u64).map(|i| i + 10).sum();
    for (s, so) in outs.iter().enumerate() {
        assert_eq!(so.total, n as u64 * (sum + 1), "rounds around the call");
        for (r, ro) in outs.iter().enumerate().filter(|&(r, _)| r != s) {
            let (sent, chosen) = (&so.sent[r], &ro.chosen[s]);
            assert_eq!((sent.len(), chosen.len()), (M, M), "n = {n}, {s} -> {r}");
            for k in 0..M {
                let b = usize::from(ro.choices.get(k));
                assert_eq!(chosen[k], sent[k][b], "n = {n}, {s} -> {r}, OT {k}");
                assert_ne!(chosen[k], sent[k][1 - b], "n = {n}, {s} -> {r}, OT {k}");
            }
        }
        // The element at the party's own index is the default.
        assert!(so.sent[s].is_empty() && so.chosen[s].is_empty());
    }
    // Different pairs' runs are independent: no two senders' first pairs agree.
    let firsts: Vec<[Block; 2]> = (0..n)
        .flat_map(|s| (0..n).filter(move |&r| r != s).map(move |r| (s, r)))
        .map(|(s, r)| outs[s].sent[r][0])
        .collect();
    for (a, x) in firsts.iter().enumerate() {
        assert!(
            firsts[a + 1..].iter().all(|y| y != x),
            "two runs share keys"
        );
    }
}

#[test]
fn every_pair_runs_the_ot_over_memory() {
    for n in [2, 3, 4] {
        assert_relations(n, run_parties(MemoryMesh::new(n), party));
    }
}

#[test]
fn every_pair_runs_the_ot_over_tcp() {
    for n in [2, 3] {
        assert_relations(n, run_parties(local_tcp_mesh(n).expect("tcp mesh"), party));
    }
}

/// `new` refuses a wrong number of implementations, naming the field.
#[test]
fn one_implementation_per_other_party_is_required() {
    let params = pairwise::Params::new(3, M).expect("params");
    let input = pairwise::PInput { x: 1 };
    let mut s = subs(3);
    s.ot_receiver.pop();
    let err = pairwise::P::new(0, params, SESSION, input, Rng::from_entropy(), s)
        .err()
        .expect("refused");
    assert!(
        matches!(
            err,
            Error::Subs {
                field: "ot_receiver",
                expected: 2,
                got: 1
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("ot_receiver"), "{err}");
}

/// Three parties over the memory mesh, `cheater` flipping the last bit of
/// every frame it sends `victim` after the hello and the first round (so
/// inside their OT runs).
fn tampered_runs(cheater: usize, victim: usize) -> Vec<Result<POutput, Error>> {
    let meshes = tamper_party(
        MemoryMesh::new(3),
        cheater,
        move |to, k, f: &mut Vec<u8>| {
            if to == victim && k >= 2 && !f.is_empty() {
                let last = f.len() - 1;
                f[last] ^= 1;
            }
        },
    );
    run_parties(meshes, |m| party(&mut **m))
}

/// Party 2 flips a bit of every frame it sends party 0 after the rounds'
/// first frames (inside its OT runs with party 0): party 0's run with party
/// 2 fails (KOS's check, or a malformed message), named as the
/// sub-protocol with party 2; the run never returns wrong output.
#[test]
fn a_tampered_run_is_the_sub_protocols_error_naming_the_peer() {
    let outs = tampered_runs(2, 0);
    match &outs[0] {
        Err(
            e @ Error::SubProtocol {
                call: "ot",
                peer: 2,
                ..
            },
        ) => {
            assert_eq!(e.blamed(), Some(2));
            assert!(
                e.to_string().contains("sub-protocol `ot` with `P[2]`"),
                "{e}"
            );
        }
        other => panic!("party 0: {other:?}"),
    }
}

/// Party 1 tampers with its runs with party 2 (frames to party 2), the
/// first round of the tournament for three parties (`round_robin_partner`:
/// 1 with 2, then 0 with 2, then 0 with 1). Party 2 aborts blaming party 1
/// and tells everyone; party 0, waiting for its run with party 2, reports
/// party 2's notice and blames party 1 (not party 2, the honest party whose
/// run it was waiting for).
#[test]
fn a_peers_abort_during_the_runs_is_its_notice_not_its_fault() {
    let outs = tampered_runs(1, 2);
    match &outs[2] {
        Err(e @ Error::SubProtocol { peer: 1, .. }) => assert_eq!(e.blamed(), Some(1)),
        other => panic!("party 2: {other:?}"),
    }
    match &outs[0] {
        Err(e @ Error::Mesh { round: "ot", .. }) => {
            assert_eq!(e.reported_by(), Some(2), "{e}");
            assert_eq!(e.blamed(), Some(1), "{e}");
        }
        other => panic!("party 0: {other:?}"),
    }
}
