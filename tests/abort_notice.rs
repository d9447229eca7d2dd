//! Abort notices (`Mesh::notify_abort`, `MeshError::PeerAborted`): when a
//! cheating party makes one honest party abort, the other honest parties
//! must report the cheater (`Error::blamed`) and which party told them
//! (`Error::reported_by`), not "channel closed by peer" from the honest
//! party that aborted first.
//!
//! The sweep: three parties over the TCP mesh, one cheater, every frame
//! the cheater sends (hello included), sent garbled to one honest party, to
//! the other or to both (a flipped first or last byte, a byte cut off or
//! added), in `sum_n`, `coin_flip_n`, Orlandi and MiniMac openings; and a
//! cheater that equivocates in every broadcast frame. Every honest party
//! that fails must blame the cheater, except where the failed check cannot
//! tell who cheated (a MAC or codeword check of the sum of all shares):
//! then every honest party blames no one. No honest party is ever blamed.

use ot::files::{PartyPrepFile, PrepStoreFile};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ot::runtime::minimac::floor::STAT_SEC;
use ot::runtime::minimac::prep::{deal, PrepParams, PrepStore};
use ot::runtime::orlandi::Shares as OrlandiShares;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::AbortNotice;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, Mesh, TamperMesh};
use ot::{coin_flip_n, minimac_open, orlandi_open, sum_n};

mod common;

const N: usize = 3;
const SESSION: [u8; 16] = [0x5a; 16];

/// What a test needs of a generated n-party error.
trait Blame: std::fmt::Debug {
    fn blamed(&self) -> Option<usize>;
    fn reported_by(&self) -> Option<usize>;
    fn suspects(&self) -> Vec<usize>;
}

macro_rules! blame {
    ($($m:ident),*) => {$(
        impl Blame for $m::Error {
            fn blamed(&self) -> Option<usize> {
                $m::Error::blamed(self)
            }
            fn reported_by(&self) -> Option<usize> {
                $m::Error::reported_by(self)
            }
            fn suspects(&self) -> Vec<usize> {
                $m::Error::suspects(self)
            }
        }
    )*};
}
blame!(sum_n, coin_flip_n, orlandi_open, minimac_open);

/// How one party's run ended.
type Outcome = Result<(), Box<dyn Blame + Send>>;

/// A party's run of one protocol over a mesh.
type Party<'a> = dyn Fn(&mut dyn Mesh, usize) -> Outcome + Sync + 'a;

fn sum_party(mesh: &mut dyn Mesh, _run: usize) -> Outcome {
    let mut go = || -> Result<_, sum_n::Error> {
        let params = sum_n::Params::new(mesh.parties())?;
        let input = sum_n::PInput { x: 7 };
        sum_n::P::new(mesh.me(), params, SESSION, input, Rng::from_entropy())?.run(mesh)
    };
    go().map(drop).map_err(|e| Box::new(e) as _)
}

fn coin_party(mesh: &mut dyn Mesh, _run: usize) -> Outcome {
    let mut go = || -> Result<_, coin_flip_n::Error> {
        let params = coin_flip_n::Params::new(mesh.parties())?;
        let input = coin_flip_n::PInput {};
        coin_flip_n::P::new(mesh.me(), params, SESSION, input, Rng::from_entropy())?.run(mesh)
    };
    go().map(drop).map_err(|e| Box::new(e) as _)
}

/// Orlandi shares of two values, dealt the same at every party.
fn orlandi_shares() -> Vec<OrlandiShares> {
    let vals = [3u64, 5].map(ot::runtime::primitives::ec::Scalar::from);
    ot::runtime::orlandi::deal(&vals, N, &mut Rng::deterministic_for_tests(1))
}

fn orlandi_party(shares: &[OrlandiShares]) -> impl Fn(&mut dyn Mesh, usize) -> Outcome + Sync + '_ {
    move |mesh, _run| {
        let mut go = || -> Result<_, orlandi_open::Error> {
            let v = shares[mesh.me()].clone();
            let params = orlandi_open::Params::new(mesh.parties(), v.len())?;
            let input = orlandi_open::PInput { v };
            orlandi_open::P::new(mesh.me(), params, SESSION, input, Rng::from_entropy())?.run(mesh)
        };
        go().map(drop).map_err(|e| Box::new(e) as _)
    }
}

const K: usize = 20;
const LEN: usize = 60;

fn minimac_params() -> PrepParams {
    PrepParams {
        parties: N,
        k: K,
        n: LEN,
    }
}

/// The dealer's MiniMac files with `runs` random values, one per run.
fn minimac_files(runs: usize) -> Vec<PathBuf> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "abort-notice-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let mut rng = Rng::deterministic_for_tests(77);
    deal(minimac_params(), 3, runs, 0, &mut rng)
        .unwrap()
        .iter()
        .map(|p| p.write_to(&dir).unwrap())
        .collect()
}

fn minimac_party(files: &[PathBuf]) -> impl Fn(&mut dyn Mesh, usize) -> Outcome + Sync + '_ {
    move |mesh, _run| {
        let me = mesh.me();
        // Each run takes the next random value of every party's store.
        let mut store = PrepStore::open(&files[me], me, minimac_params()).unwrap();
        let v = store.take_randoms(1).unwrap();
        let go = || -> Result<_, minimac_open::Error> {
            let p = minimac_open::Params::new(mesh.parties(), v.len(), K, LEN, STAT_SEC)?;
            let input = minimac_open::PInput { v };
            minimac_open::P::new(me, p, SESSION, input, Rng::from_entropy())?.run(mesh)
        };
        go().map(drop).map_err(|e| Box::new(e) as _)
    }
}

/// How the cheater garbles a frame.
#[derive(Clone, Copy, Debug)]
enum Garble {
    FlipFirst,
    FlipLast,
    Cut,
    Extend,
}

const GARBLES: [Garble; 4] = [
    Garble::FlipFirst,
    Garble::FlipLast,
    Garble::Cut,
    Garble::Extend,
];

fn garble(how: Garble, f: &mut Vec<u8>) {
    match how {
        Garble::FlipFirst if !f.is_empty() => f[0] ^= 0x41,
        Garble::FlipLast if !f.is_empty() => *f.last_mut().unwrap() ^= 0x41,
        Garble::Cut => {
            f.pop();
        }
        _ => f.push(0xa5),
    }
}

/// The outcome of one run, as the test tallies it.
#[derive(Debug, Default)]
struct Tally {
    runs: usize,
    /// Runs where every honest party failed and blamed the cheater.
    named: usize,
    /// Runs where every honest party failed and blamed no one (a check of
    /// the sum of all shares).
    anonymous: usize,
    /// Runs where an honest party failed without blaming anyone, having
    /// narrowed the cheater to two suspects (an inconsistent broadcast:
    /// the sender equivocated or the reporter lied).
    two_suspects: usize,
    /// Runs where one honest party finished and another failed.
    split: usize,
    /// Runs where nobody failed (the garbled byte was legitimately the
    /// cheater's to choose, e.g. its own share).
    passed: usize,
}

/// Runs `party` at every index of a fresh three-party TCP mesh, party
/// `cheat`'s outgoing frames passing through `tamper`; returns the honest
/// parties' results.
fn run_with<F>(party: &Party<'_>, run: usize, cheat: usize, tamper: F) -> Vec<(usize, Outcome)>
where
    F: FnMut(usize, u64, &mut Vec<u8>) + Send + 'static,
{
    let mut tamper = Some(tamper);
    let meshes: Vec<Box<dyn Mesh + Send>> = local_tcp_mesh(N)
        .unwrap()
        .into_iter()
        .map(|m| -> Box<dyn Mesh + Send> {
            match (m.me() == cheat).then(|| tamper.take()).flatten() {
                Some(t) => Box::new(TamperMesh::new(m, t)),
                None => Box::new(m),
            }
        })
        .collect();
    run_parties(meshes, |m| party(&mut **m, run))
        .into_iter()
        .enumerate()
        .filter(|&(i, _)| i != cheat)
        .collect()
}

/// Checks one run's honest results and counts it in `tally`.
fn judge(what: &str, cheat: usize, outs: Vec<(usize, Outcome)>, tally: &mut Tally) {
    tally.runs += 1;
    let errs: Vec<_> = outs
        .iter()
        .filter_map(|(i, o)| o.as_ref().err().map(|e| (*i, e)))
        .collect();
    if errs.is_empty() {
        tally.passed += 1;
        return;
    }
    if errs.len() < outs.len() {
        // Abort without unanimity: a cheater can make one honest party
        // abort in the last round while another finishes.
        tally.split += 1;
    }
    let blamed: Vec<_> = errs.iter().map(|(_, e)| e.blamed()).collect();
    for (i, e) in &errs {
        assert!(
            matches!(e.blamed(), Some(c) if c == cheat) || e.blamed().is_none(),
            "{what}: honest party {i} blames an honest party: {e:?}"
        );
        let suspects = e.suspects();
        assert!(
            suspects.is_empty() || suspects.contains(&cheat),
            "{what}: honest party {i} suspects only honest parties: {e:?}"
        );
        if let Some(r) = e.reported_by() {
            assert_ne!(r, *i, "{what}: party {i} reports its own notice");
        }
    }
    if blamed.iter().all(|b| *b == Some(cheat)) {
        tally.named += 1;
    } else {
        // Blaming no one is right only where a party's own check could not
        // tell who cheated (a check of the sum of all shares, or a
        // broadcast whose sender and reporter disagree: two suspects).
        assert!(
            errs.iter()
                .any(|(_, e)| e.reported_by().is_none() && e.blamed().is_none()),
            "{what}: nobody is blamed but no party failed a check itself: {errs:?}"
        );
        if errs.iter().any(|(_, e)| e.suspects().len() == 2) {
            tally.two_suspects += 1;
        } else {
            tally.anonymous += 1;
        }
    }
}

/// How many frames party `who` sends each peer in an honest run.
fn frames_sent(party: &Party<'_>, who: usize) -> u64 {
    let count = Arc::new(Mutex::new(0u64));
    let c = Arc::clone(&count);
    let outs = run_with(party, 0, who, move |to, k, _f: &mut Vec<u8>| {
        if to == (who + 1) % N {
            let mut c = c.lock().unwrap();
            *c = (*c).max(k + 1);
        }
    });
    for (_, o) in outs {
        assert!(o.is_ok(), "honest run failed: {o:?}");
    }
    let n = *count.lock().unwrap();
    n
}

/// The garbage sweep of one protocol: every frame of the cheater, to one
/// honest party, the other or both, garbled every way; then each frame
/// sent to one party only unchanged and to the other flipped
/// (equivocation).
fn sweep(name: &str, party: &Party<'_>, cheat: usize, first_run: usize) -> (Tally, usize) {
    let frames = frames_sent(party, cheat);
    assert!(frames >= 2, "{name}: {frames} frames");
    let honest: Vec<usize> = (0..N).filter(|&i| i != cheat).collect();
    let targets = [vec![honest[0]], vec![honest[1]], honest.clone()];
    let mut tally = Tally::default();
    let mut run = first_run;
    for k in 0..frames {
        for to in &targets {
            for how in GARBLES {
                run += 1;
                let what = format!("{name}: P[{cheat}] {how:?} frame {k} to {to:?}");
                let to = to.clone();
                let outs = run_with(party, run, cheat, move |peer, i, f: &mut Vec<u8>| {
                    if i == k && to.contains(&peer) {
                        garble(how, f);
                    }
                });
                judge(&what, cheat, outs, &mut tally);
            }
        }
    }
    (tally, run)
}

fn report(name: &str, t: &Tally) {
    eprintln!(
        "{name}: {} runs: {} named the cheater at every failing honest party, {} narrowed it to two suspects, {} blamed no one (check of a sum), {} finished; {} with one honest party finished and one failed",
        t.runs, t.named, t.two_suspects, t.anonymous, t.passed, t.split
    );
}

#[test]
fn every_honest_party_names_a_garbling_cheater() {
    let shares = orlandi_shares();
    let orlandi = orlandi_party(&shares);
    let files = minimac_files(400);
    let minimac = minimac_party(&files);
    let protocols: [(&str, &Party<'_>); 4] = [
        ("sum_n", &sum_party),
        ("coin_flip_n", &coin_party),
        ("orlandi_open", &orlandi),
        ("minimac_open", &minimac),
    ];
    for (name, party) in protocols {
        let mut run = 0;
        let mut all = Tally::default();
        for cheat in [0, 2] {
            let (t, last) = sweep(name, party, cheat, run);
            run = last;
            all.runs += t.runs;
            all.named += t.named;
            all.anonymous += t.anonymous;
            all.passed += t.passed;
            all.two_suspects += t.two_suspects;
            all.split += t.split;
        }
        report(name, &all);
        assert!(all.named > 0, "{name}: the cheater was never named");
        if name != "minimac_open" {
            // Every check of these protocols names the party whose value
            // failed it.
            assert_eq!(all.anonymous, 0, "{name}");
        }
    }
}

#[test]
fn every_honest_party_names_an_equivocating_cheater() {
    let shares = orlandi_shares();
    let orlandi = orlandi_party(&shares);
    let protocols: [(&str, &Party<'_>); 3] = [
        ("sum_n", &sum_party),
        ("coin_flip_n", &coin_party),
        ("orlandi_open", &orlandi),
    ];
    for (name, party) in protocols {
        let cheat = 1;
        let frames = frames_sent(party, cheat);
        let mut tally = Tally::default();
        // Frame 0 is the hello; from frame 1 on, a different message to
        // party 2 than to party 0 (the same length, another value).
        for k in 1..frames {
            let outs = run_with(party, 0, cheat, move |peer, i, f: &mut Vec<u8>| {
                if i == k && peer == 2 {
                    garble(Garble::FlipLast, f);
                }
            });
            judge(&format!("{name}: frame {k}"), cheat, outs, &mut tally);
        }
        report(&format!("{name} equivocation"), &tally);
        assert_eq!(tally.anonymous, 0, "{name}");
        assert!(tally.named + tally.two_suspects > 0, "{name}");
    }
}

/// A notice is a claim, not evidence: a party that sends a notice blaming
/// an honest party is reported as the one making the claim.
#[test]
fn a_forged_notice_is_reported_with_its_sender() {
    let liar = 2;
    let meshes = local_tcp_mesh(N).unwrap();
    let outs = run_parties(meshes, |m| {
        if m.me() == liar {
            m.notify_abort(&AbortNotice::new("commit", "made up", &[0]));
            return None;
        }
        Some(coin_party(m, 0))
    });
    for (i, o) in outs.into_iter().enumerate().filter(|(i, _)| *i != liar) {
        let e = o.unwrap().unwrap_err();
        assert_eq!(e.reported_by(), Some(liar), "party {i}: {e:?}");
        // Party 0 knows the claim is false; party 1 can only repeat it.
        let want = if i == 0 { None } else { Some(0) };
        assert_eq!(e.blamed(), want, "party {i}: {e:?}");
    }
}

/// The notice reaches a peer after the frames sent before it.
#[test]
fn a_notice_follows_the_frames_sent_before_it() {
    common::notice_follows_last_frame(local_tcp_mesh(2).unwrap());
}
