//! Generated n-party drivers announce, before writing each round, the frame
//! they read next on every link (`Mesh::expect_next_frame`, issue 15 item
//! 1), so that a TCP or TLS link buffers at most that frame plus a small
//! slack when a peer floods it instead of reading. This test records, per
//! link, what the drivers announce and what they receive, over the
//! in-memory and the TCP mesh, for protocols with every kind of round:
//! broadcasts with their digest exchange (batched and not), private
//! rounds, rounds of one fixed party, a dealer's rounds, and the session
//! hello; and checks every announcement against the frame that arrives.

use ot::files::{PartyPrepFile, PrepStoreFile};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use ot::runtime::minimac::floor::STAT_SEC;
use ot::runtime::minimac::prep::{deal, PrepParams, PrepStore};
use ot::runtime::orlandi::deal_triples;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::ChannelStats;
use ot::runtime::transport::mesh::{
    local_tcp_mesh, run_parties, tamper_party, MemoryMesh, Mesh, MeshError,
};
use ot::{
    beaver_dealer, coin_flip_n, minimac_mul, minimac_open, open_to_one, orlandi_mul, orlandi_open,
    sum_n,
};

mod dealer_rounds {
    ot::protocol!("tests/otp/dealer_rounds.otp");
}

/// What one party saw on one link, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    Announce(Option<usize>),
    Recv(usize),
}

/// A mesh that records, per peer, the announcements and the lengths of the
/// frames received.
struct Recording<M> {
    inner: M,
    log: Vec<Vec<Event>>,
}

impl<M: Mesh> Recording<M> {
    fn new(inner: M) -> Self {
        let n = inner.parties();
        Recording {
            inner,
            log: vec![Vec::new(); n],
        }
    }
}

impl<M: Mesh> Mesh for Recording<M> {
    fn me(&self) -> usize {
        self.inner.me()
    }
    fn parties(&self) -> usize {
        self.inner.parties()
    }
    fn send_to(&mut self, peer: usize, msg: &[u8]) -> Result<(), MeshError> {
        self.inner.send_to(peer, msg)
    }
    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> Result<(), MeshError> {
        self.inner.send_vec_to(peer, msg)
    }
    fn flush(&mut self) -> Result<(), MeshError> {
        self.inner.flush()
    }
    fn recv_from(&mut self, peer: usize, buf: &mut Vec<u8>, max: usize) -> Result<(), MeshError> {
        self.inner.recv_from(peer, buf, max)?;
        self.log[peer].push(Event::Recv(buf.len()));
        Ok(())
    }
    fn recv_any(
        &mut self,
        from: &[usize],
        buf: &mut Vec<u8>,
        max: usize,
    ) -> Result<usize, MeshError> {
        let p = self.inner.recv_any(from, buf, max)?;
        self.log[p].push(Event::Recv(buf.len()));
        Ok(p)
    }
    fn stats(&self, peer: usize) -> ChannelStats {
        self.inner.stats(peer)
    }
    fn expect_next_frame(&mut self, peer: usize, len: Option<usize>) {
        self.log[peer].push(Event::Announce(len));
        self.inner.expect_next_frame(peer, len);
    }
}

/// Checks one link's log: every frame received was announced with its
/// exact length before it (by the announcement in force when it came, not
/// changed in between), nothing arrives after `Some(0)` ("nothing more on
/// this link"), and the run ends by lifting the announcement (`None`).
/// Returns how many frames were checked.
fn check_link(log: &[Event], who: &str) -> usize {
    let mut current: Option<usize> = None;
    let mut taken = true;
    let mut checked = 0;
    for (i, e) in log.iter().enumerate() {
        match *e {
            Event::Announce(a) => {
                if let (Some(l), false) = (current, taken) {
                    if l > 0 && a.is_some() {
                        assert_eq!(
                            a,
                            Some(l),
                            "{who}: announcement changed before frame {i} came ({log:?})"
                        );
                    }
                }
                if current == Some(0) {
                    assert!(
                        a.is_none_or(|l| l == 0),
                        "{who}: more announced after `nothing more` ({log:?})"
                    );
                }
                current = a;
                taken = false;
            }
            Event::Recv(len) => {
                assert!(
                    !taken,
                    "{who}: frame {i} of {len} bytes received without a new announcement ({log:?})"
                );
                assert_eq!(current, Some(len), "{who}: frame {i} ({log:?})");
                assert!(len > 0, "{who}: empty frame");
                taken = true;
                checked += 1;
            }
        }
    }
    assert_eq!(
        log.last(),
        Some(&Event::Announce(None)),
        "{who}: not lifted at the end ({log:?})"
    );
    checked
}

/// Checks every link of every endpoint; at least one protocol frame (not
/// just the hello) per link is announced and checked.
fn check_all(name: &str, logs: &[Vec<Vec<Event>>]) {
    for (me, links) in logs.iter().enumerate() {
        for (p, log) in links.iter().enumerate() {
            if p == me {
                assert!(log.is_empty());
                continue;
            }
            let who = format!("{name}, endpoint {me}, link to {p}");
            let checked = check_link(log, &who);
            assert!(checked >= 1, "{who}: nothing checked");
        }
    }
}

/// A recorded endpoint of either mesh.
type Endpoint = Recording<Box<dyn Mesh + Send>>;

/// Both meshes of `n` endpoints, recorded.
fn meshes(n: usize) -> [(String, Vec<Endpoint>); 2] {
    let boxed = |v: Vec<Box<dyn Mesh + Send>>| v.into_iter().map(Recording::new).collect();
    let mem = MemoryMesh::new(n)
        .into_iter()
        .map(|m| Box::new(m) as Box<dyn Mesh + Send>)
        .collect();
    let tcp = local_tcp_mesh(n)
        .expect("tcp mesh")
        .into_iter()
        .map(|m| Box::new(m) as Box<dyn Mesh + Send>)
        .collect();
    [
        (format!("memory n = {n}"), boxed(mem)),
        (format!("tcp n = {n}"), boxed(tcp)),
    ]
}

/// Runs `f` at every endpoint of both meshes and checks every link.
fn announced<F>(name: &str, endpoints: impl Fn(usize) -> usize, f: F)
where
    F: Fn(&mut Endpoint, usize) + Sync,
{
    for n in [2, 3] {
        for (mesh_name, ms) in meshes(endpoints(n)) {
            let logs = run_parties(ms, |m| {
                f(m, n);
                std::mem::take(&mut m.log)
            });
            check_all(&format!("{name} over {mesh_name}"), &logs);
        }
    }
}

const SESSION: [u8; 16] = [0x41; 16];

#[test]
fn broadcast_and_private_rounds_are_announced() {
    // Sum: a private round, then a checked broadcast.
    announced(
        "sum_n",
        |n| n,
        |m, n| {
            let params = sum_n::Params::new(n).unwrap();
            let input = sum_n::PInput {
                x: m.me() as u64 + 1,
            };
            let out = sum_n::P::new(m.me(), params, SESSION, input, Rng::from_entropy())
                .and_then(|p| p.run(m))
                .expect("sum");
            assert_eq!(out.sum, (1..=n as u64).sum::<u64>());
        },
    );
    // Coin flip: a broadcast whose check is batched with the next round.
    announced(
        "coin_flip_n",
        |n| n,
        |m, n| {
            let (params, rng) = (coin_flip_n::Params::new(n).unwrap(), Rng::from_entropy());
            let party = coin_flip_n::P::new(m.me(), params, SESSION, Default::default(), rng);
            party.and_then(|p| p.run(m)).expect("coin flip");
        },
    );
}

#[test]
fn rounds_of_one_fixed_party_are_announced() {
    announced(
        "open_to_one",
        |n| n,
        |m, n| {
            let me = m.me();
            let params = open_to_one::Params::new(n).unwrap();
            let input = open_to_one::PInput {
                secret: (me == 0).then_some(99),
                x: me as u64,
            };
            let out = open_to_one::P::new(me, params, SESSION, input, Rng::from_entropy())
                .and_then(|p| p.run(m))
                .expect("open to one");
            if me == 0 {
                assert_eq!(out.total, Some(99 + (0..n as u64).sum::<u64>()));
            }
        },
    );
}

#[test]
fn dealer_rounds_are_announced() {
    announced(
        "beaver_dealer",
        |n| n + 1,
        |m, n| {
            let params = beaver_dealer::Params::new(n).unwrap();
            if m.me() == n {
                beaver_dealer::Dealer::new(
                    params,
                    SESSION,
                    Default::default(),
                    Rng::from_entropy(),
                )
                .and_then(|d| d.run(m))
                .expect("dealer");
                return;
            }
            let input = beaver_dealer::PInput { x: 3, y: 5 };
            beaver_dealer::P::new(m.me(), params, SESSION, input, Rng::from_entropy())
                .and_then(|p| p.run(m))
                .expect("party");
        },
    );
    // Every kind of dealer round: a checked broadcast, every party to the
    // dealer, the dealer to every party.
    announced(
        "dealer_rounds",
        |n| n + 1,
        |m, n| {
            let params = dealer_rounds::Params::new(n).unwrap();
            if m.me() == n {
                let input = dealer_rounds::DealerInput { seed: 7 };
                dealer_rounds::Dealer::new(params, SESSION, input, Rng::from_entropy())
                    .and_then(|d| d.run(m))
                    .expect("dealer");
                return;
            }
            let input = dealer_rounds::PInput { x: m.me() as u64 };
            let out = dealer_rounds::P::new(m.me(), params, SESSION, input, Rng::from_entropy())
                .and_then(|p| p.run(m))
                .expect("party");
            assert_eq!(out.announced, 8);
        },
    );
}

#[test]
fn orlandi_multiplication_is_announced() {
    let len = 4;
    for n in [2, 3] {
        let mut rng = Rng::from_entropy();
        let (xy, t) = (
            deal_triples(n, len, &mut rng),
            deal_triples(n, len, &mut rng),
        );
        for (mesh_name, ms) in meshes(n) {
            let logs = run_parties(ms, |m| {
                let me = m.me();
                let [x, y, _] = xy[me].clone();
                let [a, b, c] = t[me].clone();
                let params = orlandi_mul::Params::new(n, len).unwrap();
                let input = orlandi_mul::PInput { x, y, a, b, c };
                let z = orlandi_mul::P::new(me, params, SESSION, input, Rng::from_entropy())
                    .and_then(|p| p.run(m))
                    .expect("mul")
                    .z;
                let params = orlandi_open::Params::new(n, len).unwrap();
                let input = orlandi_open::PInput { v: z };
                orlandi_open::P::new(me, params, [0x42; 16], input, Rng::from_entropy())
                    .and_then(|p| p.run(m))
                    .expect("open");
                std::mem::take(&mut m.log)
            });
            check_all(&format!("orlandi_mul + open over {mesh_name}"), &logs);
        }
    }
}

/// A fresh directory under the system temporary directory.
fn temp_dir() -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let d = std::env::temp_dir().join(format!(
        "announce-mesh-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn minimac_multiplication_is_announced() {
    let (k, len, m_vals) = (20, 60, 2);
    for n in [2, 3] {
        let prep = PrepParams {
            parties: n,
            k,
            n: len,
        };
        for (mesh_name, ms) in meshes(n) {
            let dir = temp_dir();
            let mut rng = Rng::deterministic_for_tests(n as u64);
            let files: Vec<PathBuf> = deal(prep, 7, 2 * m_vals, m_vals, &mut rng)
                .unwrap()
                .iter()
                .map(|p| p.write_to(&dir).unwrap())
                .collect();
            let logs = run_parties(ms, |m| {
                let me = m.me();
                let mut store = PrepStore::open(&files[me], me, prep).unwrap();
                let r = store.take_randoms(2 * m_vals).unwrap();
                let (x, y) = (
                    r.slice(0, m_vals).unwrap(),
                    r.slice(m_vals, m_vals).unwrap(),
                );
                let [a, b, c] = store.take_triples(m_vals).unwrap();
                let params = minimac_mul::Params::new(n, m_vals, k, len, STAT_SEC).unwrap();
                let input = minimac_mul::PInput { x, y, a, b, c };
                let z = minimac_mul::P::new(me, params, SESSION, input, Rng::from_entropy())
                    .and_then(|p| p.run(m))
                    .expect("mul")
                    .z;
                let params = minimac_open::Params::new(n, m_vals, k, len, STAT_SEC).unwrap();
                let input = minimac_open::PInput { v: z };
                minimac_open::P::new(me, params, [0x43; 16], input, Rng::from_entropy())
                    .and_then(|p| p.run(m))
                    .expect("open");
                std::mem::take(&mut m.log)
            });
            std::fs::remove_dir_all(&dir).ok();
            check_all(&format!("minimac_mul + open over {mesh_name}"), &logs);
        }
    }
}

/// A run that fails still lifts every announcement: party 1 of the sum
/// sends party 0 other frames than party 2, and the honest parties abort
/// at the broadcast check, after announcing protocol frames.
#[test]
fn a_failed_run_lifts_its_announcements() {
    let meshes = tamper_party(MemoryMesh::new(3), 1, |to, k, f: &mut Vec<u8>| {
        if to == 0 && k >= 1 {
            if let Some(b) = f.last_mut() {
                *b ^= 1;
            }
        }
    });
    let logs = run_parties(meshes.into_iter().map(Recording::new).collect(), |m| {
        let me = m.me();
        let params = sum_n::Params::new(3).unwrap();
        let input = sum_n::PInput { x: 1 };
        let r =
            sum_n::P::new(me, params, SESSION, input, Rng::from_entropy()).and_then(|p| p.run(m));
        if me != 1 {
            assert!(
                matches!(r, Err(sum_n::Error::Equivocation { .. })),
                "party {me}: {r:?}"
            );
        }
        std::mem::take(&mut m.log)
    });
    for me in [0, 2] {
        for (p, log) in logs[me].iter().enumerate().filter(|&(p, _)| p != me) {
            let announced = log
                .iter()
                .filter(|e| matches!(e, Event::Announce(Some(_))))
                .count();
            assert!(announced >= 2, "party {me}, link {p}: {log:?}");
            assert_eq!(
                log.last(),
                Some(&Event::Announce(None)),
                "party {me}, link {p}: {log:?}"
            );
        }
    }
}
