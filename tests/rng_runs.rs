//! Two protocol runs never share a random stream: a `BaseOt` forks a fresh
//! generator for every run, and parties built from forks of one parent get
//! different streams. Observed on the wire: the frames each party sends in
//! a CO15 run (recorded by a `TamperChannel` that leaves them unchanged).

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{MemoryChannel, TamperChannel};
use ot::runtime::{Bits, Block};
use ot::{BaseOt, BaseOtKind, RandomOtReceiver, RandomOtSender};

/// The frames sent by the sender and by the receiver in one run.
#[derive(Debug, PartialEq, Eq)]
struct Transcript {
    sender: Vec<Vec<u8>>,
    receiver: Vec<Vec<u8>>,
}

/// Runs one batch of random OTs (one per choice bit) between `s` and `r`
/// over an in-memory channel pair, checks the outputs and records what
/// each side sent.
fn run(s: &mut BaseOt, r: &mut BaseOt, choices: &Bits) -> Transcript {
    let (ca, cb) = MemoryChannel::pair();
    let (mut sent_s, mut sent_r) = (Vec::new(), Vec::new());
    let (so, ro) = {
        let mut ca = TamperChannel::new(ca, |_, frame: &mut Vec<u8>| sent_s.push(frame.clone()));
        let mut cb = TamperChannel::new(cb, |_, frame: &mut Vec<u8>| sent_r.push(frame.clone()));
        std::thread::scope(|sc| {
            let h = sc.spawn(|| s.send_random(&mut ca, choices.len()));
            let ro = r.receive_random(&mut cb, choices);
            (h.join().unwrap(), ro)
        })
    };
    let (messages, chosen): (Vec<[Block; 2]>, Vec<Block>) = (so.unwrap(), ro.unwrap());
    for (i, (m, c)) in messages.iter().zip(&chosen).enumerate() {
        assert_eq!(*c, m[usize::from(choices.get(i))], "OT {i}");
    }
    assert!(!sent_s.is_empty() && !sent_r.is_empty());
    Transcript {
        sender: sent_s,
        receiver: sent_r,
    }
}

fn choices() -> Bits {
    Bits::random(&mut Rng::deterministic_for_tests(1), 8)
}

fn co15(rng: Rng) -> BaseOt {
    BaseOt::with_rng(BaseOtKind::Co15, rng)
}

/// Both parties' frames differ (every frame carries fresh group elements).
fn assert_independent(a: &Transcript, b: &Transcript) {
    assert_eq!(a.sender.len(), b.sender.len());
    assert_eq!(a.receiver.len(), b.receiver.len());
    for (x, y) in a.sender.iter().zip(&b.sender) {
        assert_ne!(x, y, "sender frames repeat across runs");
    }
    for (x, y) in a.receiver.iter().zip(&b.receiver) {
        assert_ne!(x, y, "receiver frames repeat across runs");
    }
}

#[test]
fn one_base_ot_used_twice_runs_two_streams() {
    let c = choices();
    let mut s = co15(Rng::deterministic_for_tests(7));
    let mut r = co15(Rng::deterministic_for_tests(7));
    let first = run(&mut s, &mut r, &c);
    let second = run(&mut s, &mut r, &c);
    assert_independent(&first, &second);

    // The difference comes from the per-run forks, not from fresh OS
    // randomness: parties with the same test seed replay both runs
    // exactly (which is why that constructor is for tests only).
    let mut s2 = co15(Rng::deterministic_for_tests(7));
    let mut r2 = co15(Rng::deterministic_for_tests(7));
    assert_eq!(run(&mut s2, &mut r2, &c), first);
    assert_eq!(run(&mut s2, &mut r2, &c), second);
}

#[test]
fn parties_from_two_forks_run_two_streams() {
    let c = choices();
    let mut parent = Rng::deterministic_for_tests(7);
    let mut s1 = co15(parent.fork());
    let mut s2 = co15(parent.fork());
    let mut r1 = co15(parent.fork());
    let mut r2 = co15(parent.fork());
    let a = run(&mut s1, &mut r1, &c);
    let b = run(&mut s2, &mut r2, &c);
    assert_independent(&a, &b);
    // Nor does either run replay the parent's own parties' first run.
    let plain = run(
        &mut co15(Rng::deterministic_for_tests(7)),
        &mut co15(Rng::deterministic_for_tests(7)),
        &c,
    );
    assert_independent(&a, &plain);
    assert_independent(&b, &plain);
}
