//! A named role next to the party array (`role Dealer, role P[n]`): the
//! Beaver-triple multiplication with a trusted dealer
//! (`protocols/beaver_dealer.otp`) and every kind of dealer round and step
//! (`tests/otp/dealer_rounds.otp`: `Dealer -> all`, `P[i] -> Dealer`,
//! `Dealer -> P[j]`, `at Dealer`, `input`/`output Dealer`) for n = 2, 3, 5
//! over the memory and the TCP mesh of n + 1 endpoints (the dealer is
//! endpoint n); the bytes each endpoint sends (`comm_of`); a dealer or a
//! party at the wrong endpoint; an equivocating dealer; steps by hand.

use ot::beaver_dealer;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, tamper_party, MemoryMesh, Mesh};

mod dealer_rounds {
    ot::protocol!("tests/otp/dealer_rounds.otp");
}

const SIZES: [usize; 3] = [2, 3, 5];
const SESSION: [u8; 16] = [0x5a; 16];
const SEED: u64 = 0x0123_4567_89ab_cdef;

fn share(i: usize, salt: u64) -> u64 {
    (i as u64 + salt).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

/// What an endpoint of the Beaver mesh ends with: the dealer's (empty)
/// output, or a party's share of the product.
#[derive(Debug)]
enum Out<D, P> {
    Dealer(D),
    Party(P),
}

fn beaver<M: Mesh + ?Sized>(
    mesh: &mut M,
) -> Out<
    Result<beaver_dealer::DealerOutput, beaver_dealer::Error>,
    Result<beaver_dealer::POutput, beaver_dealer::Error>,
> {
    let n = mesh.parties() - 1;
    let params = beaver_dealer::Params::new(n).expect("params");
    let me = mesh.me();
    if me == n {
        let d =
            beaver_dealer::Dealer::new(params, SESSION, Default::default(), Rng::from_entropy());
        return Out::Dealer(d.and_then(|d| d.run(mesh)));
    }
    let input = beaver_dealer::PInput {
        x: share(me, 1),
        y: share(me, 7),
    };
    let p = beaver_dealer::P::new(me, params, SESSION, input, Rng::from_entropy());
    Out::Party(p.and_then(|p| p.run(mesh)))
}

/// The parties' shares of the product add up to x * y over Z_2^64.
fn assert_product<D: std::fmt::Debug, E: std::fmt::Debug>(
    n: usize,
    outs: Vec<Out<Result<D, E>, Result<beaver_dealer::POutput, E>>>,
) {
    let (x, y) = (0..n).fold((0u64, 0u64), |(x, y), i| {
        (x.wrapping_add(share(i, 1)), y.wrapping_add(share(i, 7)))
    });
    let mut z = 0u64;
    for (k, o) in outs.into_iter().enumerate() {
        match o {
            Out::Dealer(d) => assert!(k == n && d.is_ok(), "dealer: {d:?}"),
            Out::Party(p) => z = z.wrapping_add(p.expect("party").z),
        }
    }
    assert_eq!(z, x.wrapping_mul(y), "n = {n}");
}

/// The n + 1 endpoints of a memory or a TCP mesh (threads of this process).
fn endpoints(n: usize, tcp: bool) -> Vec<Box<dyn Mesh + Send>> {
    let boxed = |m| -> Box<dyn Mesh + Send> { m };
    match tcp {
        true => local_tcp_mesh(n + 1)
            .expect("tcp mesh")
            .into_iter()
            .map(|m| boxed(Box::new(m)))
            .collect(),
        false => MemoryMesh::new(n + 1)
            .into_iter()
            .map(|m| boxed(Box::new(m)))
            .collect(),
    }
}

#[test]
fn beaver_multiplication_over_memory_and_tcp() {
    for (n, tcp) in SIZES.into_iter().flat_map(|n| [(n, false), (n, true)]) {
        assert_product(n, run_parties(endpoints(n, tcp), |m| beaver(&mut **m)));
    }
}

type DOut = Out<
    Result<dealer_rounds::DealerOutput, dealer_rounds::Error>,
    Result<dealer_rounds::POutput, dealer_rounds::Error>,
>;

fn rounds<M: Mesh + ?Sized>(mesh: &mut M) -> DOut {
    let n = mesh.parties() - 1;
    let params = dealer_rounds::Params::new(n).expect("params");
    let me = mesh.me();
    if me == n {
        let input = dealer_rounds::DealerInput { seed: SEED };
        let d = dealer_rounds::Dealer::new(params, SESSION, input, Rng::from_entropy());
        return Out::Dealer(d.and_then(|d| d.run(mesh)));
    }
    let input = dealer_rounds::PInput { x: share(me, 3) };
    let p = dealer_rounds::P::new(me, params, SESSION, input, Rng::from_entropy());
    Out::Party(p.and_then(|p| p.run(mesh)))
}

/// Every party got the dealer's announcement; the dealer summed what every
/// party reported; each party got back its own element.
fn assert_rounds(n: usize, outs: Vec<DOut>) {
    let v = SEED.wrapping_add(1);
    let w = |i: usize| share(i, 3).wrapping_add(v);
    for (k, o) in outs.into_iter().enumerate() {
        match o {
            Out::Dealer(d) => {
                let total = (0..n).fold(0u64, |a, i| a.wrapping_add(w(i)));
                assert_eq!(d.expect("dealer").total, total, "n = {n}");
            }
            Out::Party(p) => {
                let p = p.expect("party");
                assert_eq!((p.announced, p.back), (v, w(k).wrapping_mul(2)), "n = {n}");
            }
        }
    }
}

#[test]
fn dealer_rounds_over_memory_and_tcp() {
    for (n, tcp) in SIZES.into_iter().flat_map(|n| [(n, false), (n, true)]) {
        assert_rounds(n, run_parties(endpoints(n, tcp), |m| rounds(&mut **m)));
    }
}

/// `comm_of(params, me)` is what endpoint `me` sends (the mesh counts it,
/// plus the hello to each of its n peers), for the dealer (`me = n`) too.
#[test]
fn comm_of_counts_the_dealer() {
    for n in SIZES {
        let params = dealer_rounds::Params::new(n).expect("params");
        let sent = run_parties(MemoryMesh::new(n + 1), |m| {
            let ok = match rounds(m) {
                Out::Dealer(d) => d.is_ok(),
                Out::Party(p) => p.is_ok(),
            };
            assert!(ok);
            (0..=n).map(|p| m.stats(p).bytes_sent).sum::<u64>()
        });
        let hello = n
            * (8 + 4 + 4 + 2 + dealer_rounds::PROTOCOL.len() + 32 + 4 + params.encode().len() + 16);
        for (me, s) in sent.iter().enumerate() {
            let c = dealer_rounds::comm_of(&params, me);
            assert_eq!(*s, (c.per_party + hello) as u64, "n = {n}, endpoint {me}");
        }
        // The dealer: its announcement and one reply to each party (8 bytes
        // each), no digests; three flights (announce, report, reply).
        let d = dealer_rounds::comm_of(&params, n);
        assert_eq!((d.per_party, d.check_bytes, d.rounds), (16 * n, 0, 3));
        // A party: its report, and one digest of the announcement per peer.
        let p = dealer_rounds::comm_of(&params, 0);
        assert_eq!(
            (p.per_party, p.check_bytes),
            (8 + 32 * (n - 1), 32 * (n - 1))
        );
    }
}

/// The dealer runs only at endpoint n of a mesh of n + 1; a party only
/// below n: anything else is `Error::Party` before any frame is sent.
#[test]
fn wrong_endpoint_is_refused() {
    let n = 3;
    let params = beaver_dealer::Params::new(n).expect("params");
    let mut meshes = MemoryMesh::new(n + 1);
    let d = beaver_dealer::Dealer::new(params, SESSION, Default::default(), Rng::from_entropy());
    let r = d.expect("dealer").run(&mut meshes[0]);
    assert!(
        matches!(
            r,
            Err(beaver_dealer::Error::Party {
                index: 0,
                parties: 4
            })
        ),
        "{r:?}"
    );
    let p = beaver_dealer::P::new(n, params, SESSION, Default::default(), Rng::from_entropy());
    assert!(matches!(
        p,
        Err(beaver_dealer::Error::Party {
            index: 3,
            parties: 3
        })
    ));
    // A party on a mesh without a dealer endpoint.
    let mut small = MemoryMesh::new(n);
    let p = beaver_dealer::P::new(0, params, SESSION, Default::default(), Rng::from_entropy());
    let r = p.expect("party").run(&mut small[0]);
    assert!(
        matches!(r, Err(beaver_dealer::Error::Party { .. })),
        "{r:?}"
    );
}

/// The dealer sends the parties with an even index another announcement
/// (frame 1 on each link, after the hello): every party aborts naming round
/// `announce` and the dealer (sender n).
#[test]
fn equivocating_dealer_is_named() {
    for n in [3, 5] {
        let meshes = tamper_party(MemoryMesh::new(n + 1), n, |to, k, f: &mut Vec<u8>| {
            if k == 1 && to % 2 == 0 {
                f[0] ^= 1;
            }
        });
        let outs = run_parties(meshes, |m| rounds(&mut **m));
        for (i, o) in outs.into_iter().enumerate() {
            match o {
                Out::Dealer(d) => assert!(d.is_err(), "the parties abort, so the dealer fails"),
                Out::Party(Err(dealer_rounds::Error::Equivocation {
                    party,
                    round,
                    sender,
                    ..
                })) => {
                    assert_eq!((party, round, sender), (i, "announce", n))
                }
                Out::Party(other) => {
                    panic!("party {i} of {n}: expected Equivocation, got {other:?}")
                }
            }
        }
    }
}

/// Two parties and the dealer stepped by hand (sans-IO): a party sends
/// nothing in a round of the dealer and receives the dealer's message from
/// endpoint n; the dealer gets every party's report.
#[test]
fn dealer_rounds_stepped_by_hand() -> Result<(), dealer_rounds::Error> {
    let n = 2;
    let params = dealer_rounds::Params::new(n)?;
    let dealer = dealer_rounds::Dealer::new(
        params,
        SESSION,
        dealer_rounds::DealerInput { seed: SEED },
        Rng::from_entropy(),
    )?;
    let new = |me| {
        let input = dealer_rounds::PInput { x: share(me, 3) };
        dealer_rounds::P::new(me, params, SESSION, input, Rng::from_entropy())
    };
    let (p0, p1) = (new(0)?, new(1)?);
    // announce: Dealer -> all, then the parties' digest exchange.
    let (out, dealer) = dealer.send_announce()?;
    assert_eq!(out.iter().map(|(j, _)| *j).collect::<Vec<_>>(), vec![0, 1]);
    let ((o0, p0), (o1, p1)) = (p0.send_announce()?, p1.send_announce()?);
    assert!(o0.is_empty() && o1.is_empty());
    let mut to = out.into_iter().map(|(_, m)| vec![(n, m)]);
    let p0 = p0.recv_announce(to.next().expect("to P[0]"))?;
    let p1 = p1.recv_announce(to.next().expect("to P[1]"))?;
    let (d0, d1) = (p0.digests_announce(), p1.digests_announce());
    let (p0, p1) = (
        p0.check_announce(vec![(1, d1)])?,
        p1.check_announce(vec![(0, d0)])?,
    );
    // report: P[i] -> Dealer.
    let ((mut r0, p0), (mut r1, p1)) = (p0.send_report()?, p1.send_report()?);
    let (r0, r1) = (r0.pop().expect("report"), r1.pop().expect("report"));
    assert_eq!((r0.0, r1.0), (n, n));
    let (p0, p1) = (p0.recv_report(vec![])?, p1.recv_report(vec![])?);
    let dealer = dealer.recv_report(vec![(1, r1.1), (0, r0.1)])?;
    // reply: Dealer -> P[j].
    let (out, dealer) = dealer.send_reply()?;
    let ((_, p0), (_, p1)) = (p0.send_reply()?, p1.send_reply()?);
    let mut to = out.into_iter().map(|(_, m)| vec![(n, m)]);
    let p0 = p0.recv_reply(to.next().expect("to P[0]"))?;
    let p1 = p1.recv_reply(to.next().expect("to P[1]"))?;
    let outs = vec![
        Out::Party(p0.finish()),
        Out::Party(p1.finish()),
        Out::Dealer(dealer.finish()),
    ];
    assert_rounds(n, outs);
    Ok(())
}

/// A report missing at the dealer, or one from the dealer's own index, is
/// `Error::Delivery`.
#[test]
fn dealer_deliveries_are_checked() -> Result<(), dealer_rounds::Error> {
    let params = dealer_rounds::Params::new(2)?;
    let input = dealer_rounds::DealerInput { seed: SEED };
    let (_, dealer) =
        dealer_rounds::Dealer::new(params, SESSION, input, Rng::from_entropy())?.send_announce()?;
    let r = dealer.recv_report(vec![]);
    assert!(matches!(
        r,
        Err(dealer_rounds::Error::Delivery {
            round: "report",
            peer: 0
        })
    ));
    Ok(())
}
