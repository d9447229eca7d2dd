//! n-party protocols end to end: coin flipping (`protocols/coin_flip_n.otp`)
//! and the sum of private inputs (`protocols/sum_n.otp`) for n = 2, 3, 5, 9
//! over the in-memory and the TCP mesh; an equivocating broadcaster, a bad
//! commitment opening, and peers of another protocol, session or index.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{
    local_tcp_mesh, run_parties, HelloField, MemoryMesh, Mesh, MeshError, TamperMesh,
};
use ot::{coin_flip_n, sum_n};

const SIZES: [usize; 4] = [2, 3, 5, 9];
const SESSION: [u8; 16] = [0x42; 16];

fn coin_party<M: Mesh + ?Sized>(
    mesh: &mut M,
    session: [u8; 16],
) -> Result<coin_flip_n::POutput, coin_flip_n::Error> {
    let n = mesh.parties();
    let params = coin_flip_n::Params::new(n)?;
    let input = coin_flip_n::PInput {};
    coin_flip_n::P::new(mesh.me(), params, session, input, Rng::from_entropy())?.run(mesh)
}

fn input_of(i: usize) -> u64 {
    (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

fn sum_party<M: Mesh + ?Sized>(mesh: &mut M) -> Result<sum_n::POutput, sum_n::Error> {
    let params = sum_n::Params::new(mesh.parties())?;
    let input = sum_n::PInput {
        x: input_of(mesh.me()),
    };
    sum_n::P::new(mesh.me(), params, SESSION, input, Rng::from_entropy())?.run(mesh)
}

fn assert_coins_agree(outs: Vec<Result<coin_flip_n::POutput, coin_flip_n::Error>>) {
    let coins: Vec<_> = outs
        .into_iter()
        .map(|o| o.expect("coin flip").coin)
        .collect();
    assert!(coins.windows(2).all(|w| w[0] == w[1]), "{coins:?}");
}

fn assert_sum(n: usize, outs: Vec<Result<sum_n::POutput, sum_n::Error>>) {
    let want = (0..n).fold(0u64, |a, i| a.wrapping_add(input_of(i)));
    for o in outs {
        assert_eq!(o.expect("sum").sum, want);
    }
}

#[test]
fn coin_flip_over_memory() {
    for n in SIZES {
        assert_coins_agree(run_parties(MemoryMesh::new(n), |m| coin_party(m, SESSION)));
    }
}

#[test]
fn coin_flip_over_tcp() {
    for n in SIZES {
        let meshes = local_tcp_mesh(n).expect("tcp mesh");
        assert_coins_agree(run_parties(meshes, |m| coin_party(m, SESSION)));
    }
}

#[test]
fn coins_differ_between_runs() {
    let a = run_parties(MemoryMesh::new(3), |m| coin_party(m, SESSION));
    let b = run_parties(MemoryMesh::new(3), |m| coin_party(m, SESSION));
    let coin = |o: &[Result<coin_flip_n::POutput, _>]| o[0].as_ref().map(|c| c.coin).ok();
    assert_ne!(coin(&a), coin(&b));
}

#[test]
fn sum_over_memory() {
    for n in SIZES {
        assert_sum(n, run_parties(MemoryMesh::new(n), sum_party));
    }
}

#[test]
fn sum_over_tcp() {
    for n in SIZES {
        let meshes = local_tcp_mesh(n).expect("tcp mesh");
        assert_sum(n, run_parties(meshes, sum_party));
    }
}

/// Frame indices on every link: 0 the hello, 1 the commitment, 2 the
/// commitments' digests and the opening in one frame (the check is batched
/// with the openings), 3 the openings' digests.
const COMMIT_FRAME: u64 = 1;
const OPEN_FRAME: u64 = 2;
const OPEN_DIGESTS: u64 = 3;

/// Where the opening starts in its frame: after the commitments' digests.
fn open_at(n: usize) -> usize {
    n * 32
}

/// Party `liar` sends a different message of `frame` (starting at byte
/// `at` of the frame) to the peers with an even index than to the others;
/// every honest party must abort naming the round and the liar.
fn equivocate(n: usize, liar: usize, frame: u64, at: usize, round: &str) {
    let meshes: Vec<Box<dyn Mesh + Send>> = MemoryMesh::new(n)
        .into_iter()
        .map(|m| -> Box<dyn Mesh + Send> {
            if m.me() != liar {
                return Box::new(m);
            }
            Box::new(TamperMesh::new(m, move |to, k, f: &mut Vec<u8>| {
                if k == frame && to % 2 == 0 {
                    // Another valid message: the encoding of a different point
                    // (commitment) or value (opening).
                    let other = ot::runtime::primitives::ec::base_mul(
                        ot::runtime::primitives::ec::Scalar::from(7u64),
                    );
                    let bytes = other.compress().to_bytes();
                    f[at..at + 32].copy_from_slice(&bytes);
                }
            }))
        })
        .collect();
    let outs = run_parties(meshes, |m| coin_party(&mut **m, SESSION));
    for (i, o) in outs.iter().enumerate() {
        if i == liar {
            continue;
        }
        match o {
            Err(coin_flip_n::Error::Equivocation {
                party,
                round: r,
                sender,
                ..
            }) => {
                assert_eq!((*party, *r, *sender), (i, round, liar), "party {i}: {o:?}");
                let text = o.as_ref().unwrap_err().to_string();
                assert!(
                    text.contains(round) && text.contains(&format!("P[{liar}]")),
                    "{text}"
                );
            }
            other => panic!("party {i} of {n}: expected Equivocation, got {other:?}"),
        }
    }
}

#[test]
fn equivocating_broadcaster_is_named_by_every_honest_party() {
    for n in [3, 5, 9] {
        equivocate(n, 1, COMMIT_FRAME, 0, "commit");
    }
    equivocate(4, 0, COMMIT_FRAME, 0, "commit");
}

#[test]
fn equivocation_in_the_opening_round_is_caught_before_the_opening_check() {
    equivocate(5, 2, OPEN_FRAME, open_at(5), "open");
}

#[test]
fn bad_opening_names_the_party() {
    let n = 4;
    let cheat = 3;
    let meshes: Vec<Box<dyn Mesh + Send>> = MemoryMesh::new(n)
        .into_iter()
        .map(|m| -> Box<dyn Mesh + Send> {
            if m.me() != cheat {
                return Box::new(m);
            }
            // The same wrong opening value to everyone, and the digest of
            // that message in its broadcast check: consistent, but not what
            // was committed.
            let session = ot::runtime::transport::mpc::session_block(SESSION);
            let mut digest = None;
            Box::new(TamperMesh::new(m, move |_, k, f: &mut Vec<u8>| {
                if k == OPEN_FRAME {
                    let at = open_at(n);
                    f[at] ^= 1;
                    let spec = &coin_flip_n::SPEC_HASH;
                    digest = Some(ot::runtime::transport::mpc::broadcast_digest(
                        spec,
                        session,
                        "open",
                        cheat,
                        &f[at..],
                    ));
                }
                if let (OPEN_DIGESTS, Some(d)) = (k, digest) {
                    f[cheat * 32..(cheat + 1) * 32].copy_from_slice(&d);
                }
            }))
        })
        .collect();
    let outs = run_parties(meshes, |m| coin_party(&mut **m, SESSION));
    for (i, o) in outs.iter().enumerate().filter(|(i, _)| *i != cheat) {
        match o {
            Err(e @ coin_flip_n::Error::BadOpening { party, culprit, .. }) => {
                assert_eq!((*party, *culprit), (i, Some(cheat)));
                assert!(e.to_string().contains("P[3]"), "{e}");
            }
            other => panic!("party {i}: expected BadOpening, got {other:?}"),
        }
    }
}

fn hello_mismatch(err: &coin_flip_n::Error) -> Option<HelloField> {
    match err {
        coin_flip_n::Error::Mesh {
            round: "hello",
            source: MeshError::Mismatch { field, .. },
        } => Some(*field),
        _ => None,
    }
}

#[test]
fn peer_of_another_session_is_refused() {
    let outs = run_parties(MemoryMesh::new(3), |m| {
        let session = if m.me() == 2 { [9; 16] } else { SESSION };
        coin_party(m, session)
    });
    for o in &outs {
        let e = o.as_ref().expect_err("refused");
        assert_eq!(hello_mismatch(e), Some(HelloField::Session), "{e}");
    }
}

#[test]
fn peer_of_another_protocol_is_refused() {
    // Party 2 runs the sum protocol against two coin-flip parties.
    let outs = run_parties(MemoryMesh::new(3), |m| {
        if m.me() == 2 {
            sum_party(m).map(|_| ()).map_err(|e| e.to_string())
        } else {
            match coin_party(m, SESSION) {
                Err(e) => {
                    let field = hello_mismatch(&e);
                    assert!(
                        matches!(field, Some(HelloField::Protocol | HelloField::SpecHash)),
                        "{e}"
                    );
                    Err(e.to_string())
                }
                Ok(_) => Ok(()),
            }
        }
    });
    assert!(outs.iter().all(|o| o.is_err()));
}

#[test]
fn wrong_index_or_count_is_a_typed_error() {
    let params = coin_flip_n::Params::new(3).expect("params");
    let e = coin_flip_n::P::new(
        3,
        params,
        SESSION,
        coin_flip_n::PInput {},
        Rng::from_entropy(),
    )
    .err()
    .expect("index 3 of 3");
    assert!(matches!(
        e,
        coin_flip_n::Error::Party {
            index: 3,
            parties: 3
        }
    ));
    assert!(matches!(
        coin_flip_n::Params::new(1),
        Err(coin_flip_n::Error::Params { .. })
    ));
    // A party built for n = 3 on a mesh of 4.
    let mut meshes = MemoryMesh::new(4);
    let p = coin_flip_n::P::new(
        0,
        params,
        SESSION,
        coin_flip_n::PInput {},
        Rng::from_entropy(),
    )
    .expect("party");
    let e = p.run(&mut meshes[0]).expect_err("mesh of 4");
    assert!(matches!(e, coin_flip_n::Error::Party { .. }), "{e}");
}

#[test]
fn comm_counts_messages_and_checks() {
    let n = 5;
    let params = coin_flip_n::Params::new(n).expect("params");
    let c = coin_flip_n::comm(&params);
    let msgs = coin_flip_n::msgs::Commitment::wire_len(&params)
        + coin_flip_n::msgs::Opening::wire_len(&params);
    assert_eq!(c.check_bytes, 2 * (n - 1) * n * 32);
    assert_eq!(c.per_party, (n - 1) * msgs + c.check_bytes);
    // The commitments' check is batched with the openings (which do not
    // depend on them): commit, check + open, check.
    assert_eq!(c.rounds, 3);
    // The mesh counts exactly these bytes plus the hello.
    let outs = run_parties(MemoryMesh::new(n), |m| {
        coin_party(m, SESSION).expect("run");
        (0..n).map(|p| m.stats(p).bytes_sent).sum::<u64>()
    });
    let hello = run_parties(MemoryMesh::new(n), |m| {
        let h = ot::runtime::transport::mesh::Hello {
            protocol: coin_flip_n::PROTOCOL.into(),
            spec_hash: coin_flip_n::SPEC_HASH,
            params: params.encode(),
            session: SESSION,
        };
        ot::runtime::transport::mesh::handshake(m, &h).expect("hello");
        (0..n).map(|p| m.stats(p).bytes_sent).sum::<u64>()
    });
    for (sent, h) in outs.iter().zip(&hello) {
        assert_eq!(*sent, c.per_party as u64 + h);
    }
}

/// A mesh endpoint that claims another party index in the hello.
struct Impostor<M>(M, usize);

impl<M: Mesh> Mesh for Impostor<M> {
    fn me(&self) -> usize {
        self.1
    }
    fn parties(&self) -> usize {
        self.0.parties()
    }
    fn send_to(&mut self, peer: usize, msg: &[u8]) -> Result<(), MeshError> {
        self.0.send_to(peer, msg)
    }
    fn flush(&mut self) -> Result<(), MeshError> {
        self.0.flush()
    }
    fn recv_from(&mut self, peer: usize, buf: &mut Vec<u8>, max: usize) -> Result<(), MeshError> {
        self.0.recv_from(peer, buf, max)
    }
    fn recv_any(
        &mut self,
        from: &[usize],
        buf: &mut Vec<u8>,
        max: usize,
    ) -> Result<usize, MeshError> {
        self.0.recv_any(from, buf, max)
    }
    fn stats(&self, peer: usize) -> ot::runtime::transport::channel::ChannelStats {
        self.0.stats(peer)
    }
}

#[test]
fn duplicate_party_index_is_refused() {
    // Party 2 claims to be party 1.
    let meshes: Vec<Impostor<MemoryMesh>> = MemoryMesh::new(3)
        .into_iter()
        .map(|m| {
            let claimed = if m.me() == 2 { 1 } else { m.me() };
            Impostor(m, claimed)
        })
        .collect();
    let outs = run_parties(meshes, |m| coin_party(m, SESSION));
    for (i, o) in outs.iter().enumerate() {
        let e = o.as_ref().expect_err("refused");
        if i == 0 {
            // Party 0 hears index 1 on the link of party 2.
            assert_eq!(hello_mismatch(e), Some(HelloField::PartyIndex), "{e}");
        }
        assert!(
            matches!(e, coin_flip_n::Error::Mesh { round: "hello", .. }),
            "party {i}: {e}"
        );
    }
}

mod unchecked {
    ot::protocol! {
        // The sum with its broadcast written `-> all unchecked`.
        protocol SumUnchecked(role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { sum: u64 }
            at P[i] { masks = sample [u64; n]; s = share_u64(x, masks, i); }
            round share: P[i] -> P[j] : Share { s: u64 }
            at P[i] { partial = sum_u64(s); }
            round reveal: P[i] -> all unchecked : Partial { partial: u64 }
            at P[i] { sum = sum_u64(partial); }
        }
    }
}

#[test]
fn unchecked_broadcast_has_no_digest_exchange() {
    let n = 4;
    let params = unchecked::Params::new(n).expect("params");
    assert_eq!(unchecked::comm(&params).check_bytes, 0);
    assert_eq!(unchecked::comm(&params).rounds, 2);
    // A party that sends party 0 another partial sum is not detected: party
    // 0 outputs a different sum, the others the right one.
    let meshes: Vec<Box<dyn Mesh + Send>> = MemoryMesh::new(n)
        .into_iter()
        .map(|m| -> Box<dyn Mesh + Send> {
            if m.me() != 3 {
                return Box::new(m);
            }
            Box::new(TamperMesh::new(m, |to, k, f: &mut Vec<u8>| {
                if to == 0 && k == 2 {
                    f[0] ^= 1;
                }
            }))
        })
        .collect();
    let outs = run_parties(meshes, |m| {
        let m = &mut **m;
        let input = unchecked::PInput {
            x: input_of(m.me()),
        };
        unchecked::P::new(m.me(), params, SESSION, input, Rng::from_entropy())?.run(m)
    });
    let want = (0..n).fold(0u64, |a, i| a.wrapping_add(input_of(i)));
    let sums: Vec<u64> = outs.into_iter().map(|o| o.expect("no abort").sum).collect();
    assert_ne!(sums[0], want);
    assert!(sums[1..].iter().all(|s| *s == want));
}

mod chained {
    ot::protocol! {
        // The second broadcast depends on the first, so the first's
        // consistency check cannot be batched with it.
        protocol Chained(role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { total: u64 }
            round first: P[i] -> all : First { x: u64 }
            at P[i] { y = sum_u64(x); }
            round second: P[i] -> all : Second { y: u64 }
            at P[i] { total = sum_u64(y); }
        }
    }
}

#[test]
fn a_check_is_batched_only_when_the_next_message_is_independent() {
    let n = 3;
    let params = chained::Params::new(n).expect("params");
    assert_eq!(chained::comm(&params).rounds, 4);
    let outs = run_parties(MemoryMesh::new(n), |m| {
        let input = chained::PInput {
            x: input_of(m.me()),
        };
        chained::P::new(m.me(), params, SESSION, input, Rng::from_entropy())?.run(m)
    });
    let sum = (0..n).fold(0u64, |a, i| a.wrapping_add(input_of(i)));
    for o in outs {
        assert_eq!(o.expect("run").total, sum.wrapping_mul(n as u64));
    }
    let sum_params = sum_n::Params::new(n).expect("params");
    // A private round, then the checked broadcast (last: nothing to batch).
    assert_eq!(sum_n::comm(&sum_params).rounds, 3);
}

/// Two coin-flip parties stepped by hand through the generic sans-IO steps
/// (`send::<M>()`, `recv(...)`): the commitments' digests are available
/// after the commitments arrive, the openings are built before the
/// commitments' check (batched), and the check runs before the openings are
/// received.
#[test]
fn coin_flip_by_hand_with_generic_steps() -> Result<(), coin_flip_n::Error> {
    use coin_flip_n::msgs::{Commitment, Opening};
    let params = coin_flip_n::Params::new(2)?;
    let new = |me| {
        coin_flip_n::P::new(
            me,
            params,
            SESSION,
            coin_flip_n::PInput {},
            Rng::from_entropy(),
        )
    };
    let (a, b) = (new(0)?, new(1)?);
    let (ca, a) = a.send::<Commitment>()?;
    let (cb, b) = b.send::<Commitment>()?;
    let (a, b) = (a.recv(vec![(1, cb)])?, b.recv(vec![(0, ca)])?);
    let (da, db) = (a.digests_commit(), b.digests_commit());
    let (oa, a) = a.send::<Opening>()?;
    let (ob, b) = b.send::<Opening>()?;
    let (a, b) = (
        a.check_commit(vec![(1, db)])?,
        b.check_commit(vec![(0, da)])?,
    );
    let (a, b) = (a.recv(vec![(1, ob)])?, b.recv(vec![(0, oa)])?);
    let (da, db) = (a.digests_open(), b.digests_open());
    let (a, b) = (a.check_open(vec![(1, db)])?, b.check_open(vec![(0, da)])?);
    assert_eq!(a.finish()?, b.finish()?);
    Ok(())
}

/// A batched frame (digests, then the next message) cut short is a typed
/// error naming the check and the sender at every peer it reaches.
#[test]
fn truncated_batched_frame_names_the_sender() {
    let (n, cut) = (3, 1);
    let meshes: Vec<Box<dyn Mesh + Send>> = MemoryMesh::new(n)
        .into_iter()
        .map(|m| -> Box<dyn Mesh + Send> {
            if m.me() != cut {
                return Box::new(m);
            }
            Box::new(TamperMesh::new(m, |_, k, f: &mut Vec<u8>| {
                if k == OPEN_FRAME {
                    f.truncate(10);
                }
            }))
        })
        .collect();
    let outs = run_parties(meshes, |m| coin_party(&mut **m, SESSION));
    for (i, o) in outs.iter().enumerate().filter(|(i, _)| *i != cut) {
        match o {
            Err(coin_flip_n::Error::FromPeer { round, peer, .. }) => {
                assert_eq!(
                    (*round, *peer),
                    ("commit (broadcast check)", cut),
                    "party {i}"
                )
            }
            other => panic!("party {i}: expected FromPeer, got {other:?}"),
        }
    }
}
