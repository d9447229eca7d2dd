//! Rounds and steps of one fixed party (`protocols/open_to_one.otp`):
//! `P[0] -> all` (a checked broadcast by one sender), `P[j] -> P[0]`
//! (everyone to one), `P[0] -> P[j]` (one to everyone), `at P[0]`, and
//! `input`/`output` of `P[0]` only, for n = 2, 3, 5 over the memory and the
//! TCP mesh; an equivocating fixed broadcaster; inputs given to the wrong
//! party; the bytes each party sends.

use ot::open_to_one::{self, Error, POutput};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, tamper_party, MemoryMesh, Mesh};

const SIZES: [usize; 3] = [2, 3, 5];
const SESSION: [u8; 16] = [0x17; 16];
const SECRET: u64 = 0xdead_beef_0bad_f00d;

fn x_of(i: usize) -> u64 {
    (i as u64 + 3).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

fn input(me: usize) -> open_to_one::PInput {
    open_to_one::PInput {
        secret: (me == 0).then_some(SECRET),
        x: x_of(me),
    }
}

fn party<M: Mesh + ?Sized>(mesh: &mut M) -> Result<POutput, Error> {
    let params = open_to_one::Params::new(mesh.parties())?;
    let me = mesh.me();
    open_to_one::P::new(me, params, SESSION, input(me), Rng::from_entropy())?.run(mesh)
}

/// P[0] outputs the secret plus every input, and only P[0] does; everyone
/// got the same masked secret; the dealt shares sum to P[0]'s total.
fn assert_opened(n: usize, outs: Vec<Result<POutput, Error>>) {
    let outs: Vec<POutput> = outs.into_iter().map(|o| o.expect("run")).collect();
    let want = (0..n).fold(SECRET, |a, i| a.wrapping_add(x_of(i)));
    assert_eq!(outs[0].total, Some(want), "n = {n}");
    assert!(outs[1..].iter().all(|o| o.total.is_none()));
    assert!(outs.windows(2).all(|w| w[0].masked == w[1].masked));
    assert_ne!(outs[0].masked, SECRET);
    let dealt = outs.iter().fold(0u64, |a, o| a.wrapping_add(o.share));
    assert_eq!(dealt, want);
}

/// Runs `open_to_one` for every size over the meshes `make(n)` builds.
fn open_for_every_size<M: Mesh + Send>(make: impl Fn(usize) -> Vec<M>) {
    for n in SIZES {
        assert_opened(n, run_parties(make(n), party));
    }
}

#[test]
fn open_to_one_over_memory() {
    open_for_every_size(MemoryMesh::new);
}

#[test]
fn open_to_one_over_tcp() {
    open_for_every_size(|n| local_tcp_mesh(n).expect("tcp mesh"));
}

/// P[0] sends the peers with an even index another masked secret (frame 1
/// on each link, after the hello): every party aborts naming round
/// `announce` and P[0].
#[test]
fn equivocating_fixed_broadcaster_is_named() {
    for n in [3, 5] {
        let meshes = tamper_party(MemoryMesh::new(n), 0, |to, k, f: &mut Vec<u8>| {
            if k == 1 && to % 2 == 0 {
                f[0] ^= 1;
            }
        });
        let outs = run_parties(meshes, |m| party(&mut **m));
        for (i, o) in outs.iter().enumerate() {
            match o {
                Err(Error::Equivocation {
                    party,
                    round,
                    sender,
                    ..
                }) => assert_eq!((*party, *round, *sender), (i, "announce", 0)),
                other => panic!("party {i} of {n}: expected Equivocation, got {other:?}"),
            }
        }
    }
}

/// The input of P[0] must be given to P[0], and only to it.
#[test]
fn fixed_input_at_the_wrong_party_is_refused() {
    let params = open_to_one::Params::new(3).expect("params");
    let missing = open_to_one::PInput { secret: None, x: 1 };
    let r = open_to_one::P::new(0, params, SESSION, missing, Rng::from_entropy());
    assert!(matches!(
        r,
        Err(Error::FixedInput {
            party: 0,
            holder: 0,
            input: "secret"
        })
    ));
    let extra = open_to_one::PInput {
        secret: Some(5),
        x: 1,
    };
    let r = open_to_one::P::new(2, params, SESSION, extra, Rng::from_entropy());
    let text = r.err().expect("refused").to_string();
    assert!(text.contains("`secret`") && text.contains("P[0]"), "{text}");
}

/// `comm_of(params, me)` is what party `me` sends (the mesh counts it, plus
/// the hello); `comm` is the most any party sends.
#[test]
fn comm_of_counts_each_partys_bytes() {
    let n = 4;
    let params = open_to_one::Params::new(n).expect("params");
    let sent = run_parties(MemoryMesh::new(n), |m| {
        party(m).expect("run");
        (0..n).map(|p| m.stats(p).bytes_sent).sum::<u64>()
    });
    // The session hello to each peer: magic, n, index, the protocol name
    // (with its length), spec hash, parameters (with their length), session.
    let hello = (n - 1)
        * (8 + 4 + 4 + 2 + open_to_one::PROTOCOL.len() + 32 + 4 + params.encode().len() + 16);
    for (me, s) in sent.iter().enumerate() {
        let c = open_to_one::comm_of(&params, me);
        assert_eq!(*s, (c.per_party + hello) as u64, "party {me}");
        // One digest of P[0]'s announcement to each peer.
        assert_eq!(c.check_bytes, (n - 1) * 32);
    }
    let most = (0..n)
        .map(|me| open_to_one::comm_of(&params, me).per_party)
        .max();
    assert_eq!(Some(open_to_one::comm(&params).per_party), most);
    // announce, its check, share, open, deal.
    assert_eq!(open_to_one::comm(&params).rounds, 5);
}

/// One round of two parties stepped by hand through the generic
/// `send::<M>()`/`recv`: checks how many messages each sends, delivers them,
/// and rebinds the two parties to their next states.
macro_rules! round2 {
    ($p0:ident, $p1:ident, $m:ty, $sends:expr) => {
        let ((o0, $p0), (o1, $p1)) = ($p0.send::<$m>()?, $p1.send::<$m>()?);
        assert_eq!((o0.len(), o1.len()), $sends);
        let (mut to0, mut to1) = (Vec::new(), Vec::new());
        for (from, (to, m)) in o0
            .into_iter()
            .map(|x| (0, x))
            .chain(o1.into_iter().map(|x| (1, x)))
        {
            match to {
                0 => to0.push((from, m)),
                _ => to1.push((from, m)),
            }
        }
        let ($p0, $p1) = ($p0.recv(to0)?, $p1.recv(to1)?);
    };
}

/// Two parties stepped by hand: in a round of one fixed party, a party
/// that takes no part sends nothing and receives an empty list.
#[test]
fn fixed_rounds_stepped_by_hand() -> Result<(), Error> {
    use open_to_one::msgs;
    let params = open_to_one::Params::new(2)?;
    let new = |me| open_to_one::P::new(me, params, SESSION, input(me), Rng::from_entropy());
    let (p0, p1) = (new(0)?, new(1)?);
    // announce: P[0] -> all, then its check.
    round2!(p0, p1, msgs::Masked, (1, 0));
    let (d0, d1) = (p0.digests_announce(), p1.digests_announce());
    let (p0, p1) = (
        p0.check_announce(vec![(1, d1)])?,
        p1.check_announce(vec![(0, d0)])?,
    );
    round2!(p0, p1, msgs::Share, (1, 1));
    // open: P[j] -> P[0]; deal: P[0] -> P[j].
    round2!(p0, p1, msgs::Partial, (0, 1));
    round2!(p0, p1, msgs::Deal, (1, 0));
    assert_opened(2, vec![p0.finish(), p1.finish()]);
    Ok(())
}

/// In a round of one fixed party, a missing message from the sender, or a
/// message from a party that does not send, is `Error::Delivery`.
#[test]
fn fixed_round_deliveries_are_checked() -> Result<(), Error> {
    use open_to_one::msgs;
    let params = open_to_one::Params::new(2)?;
    let new = |me| open_to_one::P::new(me, params, SESSION, input(me), Rng::from_entropy());
    let (mut o0, p0) = new(0)?.send::<msgs::Masked>()?;
    let (_, p1) = new(1)?.send::<msgs::Masked>()?;
    let missing = p1.recv::<msgs::Masked>(vec![]);
    assert!(matches!(
        missing,
        Err(Error::Delivery {
            round: "announce",
            peer: 0
        })
    ));
    let (_, m) = o0.pop().expect("P[0] sends to P[1]");
    let extra = p0.recv(vec![(1, m)]);
    assert!(matches!(
        extra,
        Err(Error::Delivery {
            round: "announce",
            peer: 1
        })
    ));
    Ok(())
}

/// A fixed party named by a `const`, a per-party check at that party, an
/// unchecked broadcast by it, and an output of that party computed by every
/// party.
mod audit {
    ot::protocol!("tests/otp/audit.otp");
}

fn audit_party<M: Mesh + ?Sized>(mesh: &mut M, x: u64) -> Result<audit::POutput, audit::Error> {
    let params = audit::Params::new(mesh.parties())?;
    let input = audit::PInput { x };
    audit::P::new(mesh.me(), params, SESSION, input, Rng::from_entropy())?.run(mesh)
}

#[test]
fn a_const_fixed_party_checks_each_partys_value() {
    let n = 3;
    let outs = run_parties(MemoryMesh::new(n), |m| audit_party(m, x_of(m.me())));
    let twice = 2 * (0..n).fold(0u64, |a, i| a.wrapping_add(x_of(i).wrapping_add(1)));
    for (i, o) in outs.into_iter().enumerate() {
        let o = o.expect("run");
        assert_eq!(o.pick, x_of(i).wrapping_add(1).wrapping_add(twice));
        assert_eq!(o.total, (i == 1).then_some(twice));
    }
    // Party 2's value fails P[1]'s check, which names it.
    let outs = run_parties(MemoryMesh::new(n), |m| {
        let x = if m.me() == 2 { u64::MAX } else { 5 };
        audit_party(m, x)
    });
    assert!(matches!(
        outs[1],
        Err(audit::Error::ZeroShare {
            party: 1,
            culprit: Some(2),
            ..
        })
    ));
}

/// A round from one fixed party to another (`P[0] -> P[1]`): only P[1]
/// receives it and holds the value; the others neither send nor wait.
mod relay {
    ot::protocol!("tests/otp/relay.otp");
}

fn relay_party<M: Mesh + ?Sized>(mesh: &mut M) -> Result<relay::POutput, relay::Error> {
    let params = relay::Params::new(mesh.parties())?;
    let me = mesh.me();
    let input = relay::PInput {
        secret: (me == 0).then_some(SECRET),
        x: x_of(me),
    };
    relay::P::new(me, params, SESSION, input, Rng::from_entropy())?.run(mesh)
}

#[test]
fn a_round_between_two_fixed_parties() {
    for (n, tcp) in SIZES.into_iter().flat_map(|n| [(n, false), (n, true)]) {
        let outs = match tcp {
            true => run_parties(local_tcp_mesh(n).expect("tcp mesh"), relay_party),
            false => run_parties(MemoryMesh::new(n), relay_party),
        };
        let sum = (0..n).fold(0u64, |a, i| a.wrapping_add(x_of(i)));
        for (i, o) in outs.into_iter().enumerate() {
            let o = o.expect("run");
            let got = (i == 1).then_some(SECRET.wrapping_add(1).wrapping_mul(2));
            assert_eq!((o.got, o.sum), (got, sum), "n = {n}, party {i}");
        }
        // P[0] sends its 8 bytes to P[1] only.
        let params = relay::Params::new(n).expect("params");
        let (c0, c1) = (relay::comm_of(&params, 0), relay::comm_of(&params, 1));
        assert_eq!(c0.per_party, c1.per_party + 8);
    }
}
