//! The async drivers (`run_async`, cargo feature `tokio`) of every shipped
//! two-party protocol, over `tokio::io::duplex` and over TCP loopback, and
//! an async party against a blocking one over TCP in both directions.
//!
//! Each protocol's parties are built from fixed seeds, so the blocking
//! driver over the in-memory channel gives the reference outputs: every
//! async run must give exactly those (compared through `Debug`), and the
//! reference outputs are checked as the blocking tests check them (the OT
//! correlation, the OPRF values, ...). Sub-protocol calls (`do base:
//! RandomOt`) run through the async functionality methods.

use ot::runtime::oprf::code::LinearCode;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{
    duplex_pair, local_pair_tokio_tcp, AsyncChannel, TcpChannel, TokioChannel,
};
use ot::runtime::transport::session::{run_pair, AsyncParty, DualOf, Party, PartyResult};
use ot::runtime::{Bits, Block};
use ot::*;
use std::fmt::Debug;
use std::time::Duration;

fn rng(seed: u64) -> Rng {
    Rng::deterministic_for_tests(seed)
}

fn base(seed: u64) -> Box<BaseOt> {
    Box::new(BaseOt::with_rng(BaseOtKind::Co15, rng(seed)))
}

fn ext(seed: u64) -> Box<OtExtension> {
    Box::new(OtExtension::iknp().with_rng(rng(seed)))
}

fn bits(seed: u64, n: usize) -> Bits {
    Bits::random(&mut rng(seed), n)
}

fn blocks(seed: u64, n: usize) -> Vec<Block> {
    let mut r = rng(seed);
    (0..n).map(|_| r.next_block()).collect()
}

/// Inputs of OOS: messages of the BCH(511, 76) code (76 bits).
fn code_messages(seed: u64, n: usize) -> Vec<Block> {
    let mask = (1u128 << 76) - 1;
    blocks(seed, n)
        .into_iter()
        .map(|b| Block(b.0 & mask))
        .collect()
}

fn pairs(seed: u64, n: usize) -> Vec<[Block; 2]> {
    let b = blocks(seed, 2 * n);
    b.chunks(2).map(|c| [c[0], c[1]]).collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_io()
        .build()
        .unwrap()
}

type Outs<S, R> = (<S as Party>::Output, <R as Party>::Output);

/// Runs a pair built by `make` five ways (blocking in memory as the
/// reference; async over duplex; async over TCP, each party its own task;
/// async sender with blocking receiver and blocking sender with async
/// receiver, over TCP) and checks every run gives the reference outputs,
/// which it returns.
fn all_ways<S, R>(make: impl Fn() -> (S, R)) -> Outs<S, R>
where
    S: AsyncParty + Send + 'static,
    R: AsyncParty + DualOf<S> + Send + 'static,
    S::Output: Debug + Send + 'static,
    R::Output: Debug + Send + 'static,
    S::Error: Debug + Send + 'static,
    R::Error: Debug + Send + 'static,
{
    let (s, r) = make();
    let (so, ro) = run_pair(s, r);
    let (so, ro) = (so.unwrap(), ro.unwrap());
    let want = format!("{so:?} / {ro:?}");
    let same = |how: &str, a: Result<S::Output, S::Error>, b: Result<R::Output, R::Error>| {
        let got = format!("{:?} / {:?}", a.unwrap(), b.unwrap());
        assert!(got == want, "{how}: outputs differ from the blocking run's");
    };
    let rt = runtime();

    // Async over an in-memory duplex (a small buffer: writers wait).
    let (s, r) = make();
    let (a, b) = rt.block_on(async {
        let (mut ca, mut cb) = duplex_pair(16 * 1024);
        tokio::join!(s.run_on_async(&mut ca), r.run_on_async(&mut cb))
    });
    same("duplex", a, b);

    // Async over TCP, each party a task of the multi-threaded runtime.
    let (s, r) = make();
    let (a, b) = rt.block_on(async {
        let (mut ca, mut cb) = local_pair_tokio_tcp().await.unwrap();
        let hs = tokio::spawn(async move { s.run_on_async(&mut ca).await });
        let hr = tokio::spawn(async move { r.run_on_async(&mut cb).await });
        (hs.await.unwrap(), hr.await.unwrap())
    });
    same("tcp", a, b);

    // An async sender against a blocking receiver, and the other way round.
    let (s, r) = make();
    let (a, b) = mixed(&rt, s, r);
    same("async sender, blocking receiver", a, b);
    let (s, r) = make();
    let (b, a) = mixed(&rt, r, s);
    same("blocking sender, async receiver", a, b);
    (so, ro)
}

/// `x` async (a tokio TCP client) against `y` blocking (a `TcpChannel`
/// server on a thread).
fn mixed<X, Y>(rt: &tokio::runtime::Runtime, x: X, y: Y) -> (PartyResult<X>, PartyResult<Y>)
where
    X: AsyncParty + Send,
    Y: Party + Send,
    X::Output: Send,
    X::Error: Send,
    Y::Output: Send,
    Y::Error: Send,
{
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::scope(|sc| {
        let h = sc.spawn(move || {
            let mut ch = TcpChannel::accept(&listener, Duration::from_secs(60)).unwrap();
            y.run_on(&mut ch)
        });
        let a = rt.block_on(async {
            let mut ch = TokioChannel::connect(addr).await.unwrap();
            let out = x.run_on_async(&mut ch).await;
            // Keep the connection until the blocking peer is done reading.
            AsyncChannel::flush(&mut ch).await.unwrap();
            out
        });
        (a, h.join().unwrap())
    })
}

/// Random OT: the receiver holds the message of its choice, not the other.
fn check_rot(y: &[[Block; 2]], x: &[Block], r: &Bits) {
    assert_eq!(y.len(), r.len());
    assert_eq!(x.len(), r.len());
    for i in 0..r.len() {
        let b = usize::from(r.get(i));
        assert_eq!(x[i], y[i][b], "OT {i}");
        assert_ne!(x[i], y[i][1 - b], "OT {i}");
    }
}

/// Chosen OT: the receiver gets the chosen payload.
fn check_chosen(payload: &[[Block; 2]], x: &[Block], r: &Bits) {
    for i in 0..r.len() {
        assert_eq!(x[i], payload[i][usize::from(r.get(i))], "OT {i}");
    }
}

/// Correlated OT: `chosen = zeros ^ r * delta`.
fn check_cot(zeros: &[Block], chosen: &[Block], r: &Bits, delta: Block) {
    for i in 0..r.len() {
        let want = if r.get(i) { zeros[i] ^ delta } else { zeros[i] };
        assert_eq!(chosen[i], want, "OT {i}");
    }
}

macro_rules! base_ot_test {
    ($name:ident, $m:ident) => {
        #[test]
        fn $name() {
            let n = 40;
            let c = bits(1, n);
            let (so, ro) = all_ways(|| {
                let p = $m::Params::new(n).unwrap();
                let s = $m::Sender::new(p, $m::SenderInput {}, rng(2)).unwrap();
                let input = $m::ReceiverInput { choices: c.clone() };
                (s, $m::Receiver::new(p, input, rng(3)).unwrap())
            });
            check_rot(&so.messages, &ro.chosen, &c);
        }
    };
}
base_ot_test!(co15_async, co15);
base_ot_test!(np00_async, np00);
base_ot_test!(mr19_async, mr19);

macro_rules! chosen_base_test {
    ($name:ident, $m:ident) => {
        #[test]
        fn $name() {
            let n = 40;
            let (c, payload) = (bits(1, n), pairs(4, n));
            let (_, ro) = all_ways(|| {
                let p = $m::Params::new(n).unwrap();
                let si = $m::SenderInput {
                    payload: payload.clone(),
                };
                let s = $m::Sender::new(p, si, rng(2)).unwrap();
                let input = $m::ReceiverInput { choices: c.clone() };
                (s, $m::Receiver::new(p, input, rng(3)).unwrap())
            });
            check_chosen(&payload, &ro.received, &c);
        }
    };
}
chosen_base_test!(co15_chosen_async, co15_chosen);
chosen_base_test!(np00_chosen_async, np00_chosen);
chosen_base_test!(mr19_chosen_async, mr19_chosen);

/// IKNP-shaped random OT extensions (`Params::new(m, threads, sha1)`).
macro_rules! ext_test {
    ($name:ident, $m:ident) => {
        #[test]
        fn $name() {
            // Several chunks, a partial last one.
            let m = 3 * 4096 + 77;
            let r = bits(1, m);
            let (so, ro) = all_ways(|| {
                let p = $m::Params::new(m, 1, false).unwrap();
                let subs = $m::SenderSubs { base: base(5) };
                let s = $m::Sender::new(p, $m::SenderInput {}, rng(2), subs).unwrap();
                let input = $m::ReceiverInput { r: r.clone() };
                let subs = $m::ReceiverSubs { base: base(6) };
                (s, $m::Receiver::new(p, input, rng(3), subs).unwrap())
            });
            check_rot(&so.y, &ro.x, &r);
        }
    };
}
ext_test!(iknp_async, iknp);
ext_test!(kos_async, kos);

macro_rules! ext_chosen_test {
    ($name:ident, $m:ident) => {
        #[test]
        fn $name() {
            let m = 4096 + 5;
            let (r, payload) = (bits(1, m), pairs(4, m));
            let (_, ro) = all_ways(|| {
                let p = $m::Params::new(m, 1, false).unwrap();
                let si = $m::SenderInput {
                    payload: payload.clone(),
                };
                let subs = $m::SenderSubs { base: base(5) };
                let s = $m::Sender::new(p, si, rng(2), subs).unwrap();
                let input = $m::ReceiverInput { r: r.clone() };
                let subs = $m::ReceiverSubs { base: base(6) };
                (s, $m::Receiver::new(p, input, rng(3), subs).unwrap())
            });
            check_chosen(&payload, &ro.received, &r);
        }
    };
}
ext_chosen_test!(iknp_chosen_async, iknp_chosen);
ext_chosen_test!(kos_chosen_async, kos_chosen);

#[test]
fn iknp_setup_and_extend_async() {
    let (so, ro) = all_ways(|| {
        let p = iknp_setup::Params::new().unwrap();
        let s = iknp_setup::SenderInput {};
        let s = iknp_setup::Sender::new(p, s, rng(2), iknp_setup::SenderSubs { base: base(5) });
        let r = iknp_setup::ReceiverInput {};
        let r = iknp_setup::Receiver::new(p, r, rng(3), iknp_setup::ReceiverSubs { base: base(6) });
        (s.unwrap(), r.unwrap())
    });
    assert_eq!(so.sid, ro.sid);
    let m = 2 * 4096 + 1;
    let r = bits(1, m);
    macro_rules! extend {
        ($m:ident) => {{
            let (eso, ero) = all_ways(|| {
                let p = $m::Params::new(m, 1, false, so.sid, 0).unwrap();
                let si = $m::SenderInput {
                    delta: so.delta,
                    base_chosen: so.base_chosen.clone(),
                };
                let ri = $m::ReceiverInput {
                    r: r.clone(),
                    base_keys: ro.base_keys.clone(),
                };
                let s = $m::Sender::new(p, si, rng(7)).unwrap();
                (s, $m::Receiver::new(p, ri, rng(8)).unwrap())
            });
            check_rot(&eso.y, &ero.x, &r);
        }};
    }
    extend!(iknp_extend);
    extend!(kos_extend);
}

#[test]
fn delta_base_iknp_kos_async() {
    let delta = blocks(9, 1)[0];
    let (so, ro) = all_ways(|| {
        let p = delta_base::Params::new().unwrap();
        let si = delta_base::SenderInput { delta };
        let s = delta_base::Sender::new(p, si, rng(2), delta_base::SenderSubs { base: base(5) });
        let ri = delta_base::ReceiverInput {};
        let r =
            delta_base::Receiver::new(p, ri, rng(3), delta_base::ReceiverSubs { base: base(6) });
        (s.unwrap(), r.unwrap())
    });
    let m = 4096 + 300;
    let r = bits(1, m);
    macro_rules! delta_ot {
        ($m:ident) => {{
            let (dso, dro) = all_ways(|| {
                let p = $m::Params::new(m, 1, 0).unwrap();
                let si = $m::SenderInput {
                    delta,
                    base_chosen: so.base_chosen.clone(),
                };
                let ri = $m::ReceiverInput {
                    r: r.clone(),
                    base_keys: ro.base_keys.clone(),
                };
                let s = $m::Sender::new(p, si, rng(7)).unwrap();
                (s, $m::Receiver::new(p, ri, rng(8)).unwrap())
            });
            check_cot(&dso.zeros, &dro.chosen, &r, delta);
        }};
    }
    delta_ot!(delta_iknp);
    delta_ot!(delta_kos);
}

/// The OPRF outputs: the sender's encoding of the receiver's input is the
/// receiver's value, and of another input is not.
macro_rules! check_oprf {
    ($so:expr, $ro:expr, $inputs:expr) => {{
        for (i, x) in $inputs.iter().enumerate() {
            assert_eq!($so.encode(i, *x), Some($ro.values[i]), "instance {i}");
            let other = *x ^ Block::from(1u128);
            assert_ne!($so.encode(i, other), Some($ro.values[i]), "instance {i}");
        }
    }};
}

#[test]
fn kkrt_async() {
    let m = 1000;
    let x = blocks(1, m);
    let (so, ro) = all_ways(|| {
        let p = kkrt::Params::new(m, 1, false).unwrap();
        let s = kkrt::Sender::new(
            p,
            kkrt::SenderInput {},
            rng(2),
            kkrt::SenderSubs { base: base(5) },
        );
        let ri = kkrt::ReceiverInput { inputs: x.clone() };
        let r = kkrt::Receiver::new(p, ri, rng(3), kkrt::ReceiverSubs { base: base(6) });
        (s.unwrap(), r.unwrap())
    });
    check_oprf!(so, ro, x);
}

/// PSI over the `Oprf` functionality: `ot::Oprf::kkrt()`'s async twin
/// runs `kkrt.otp`'s async driver inside `kkrt_psi.otp`'s.
#[test]
fn kkrt_psi_async() {
    let y = blocks(7, 300);
    let x: Vec<Block> = (0..200)
        .map(|i| if i % 2 == 0 { y[i] } else { Block(i as u128) })
        .collect();
    let (_, ro) = all_ways(|| {
        let p = kkrt_psi::Params::new(y.len(), x.len(), 1).unwrap();
        let si = kkrt_psi::SenderInput { set: y.clone() };
        let subs = kkrt_psi::SenderSubs {
            oprf: Box::new(ot::Oprf::kkrt()),
        };
        let s = kkrt_psi::Sender::new(p, si, rng(2), subs);
        let ri = kkrt_psi::ReceiverInput { set: x.clone() };
        let subs = kkrt_psi::ReceiverSubs {
            oprf: Box::new(ot::Oprf::kkrt()),
        };
        let r = kkrt_psi::Receiver::new(p, ri, rng(3), subs);
        (s.unwrap(), r.unwrap())
    });
    for e in 0..x.len() {
        assert_eq!(ro.member.get(e), e % 2 == 0, "element {e}");
    }
}

#[test]
fn oos_async() {
    let m = 600;
    let x = code_messages(1, m);
    let (so, ro) = all_ways(|| {
        let p = oos::Params::new(m, 1, false).unwrap();
        let si = oos::SenderInput {
            code: LinearCode::bch_511_76(),
        };
        let s = oos::Sender::new(p, si, rng(2), oos::SenderSubs { base: base(5) });
        let ri = oos::ReceiverInput {
            code: LinearCode::bch_511_76(),
            choices: x.clone(),
        };
        let r = oos::Receiver::new(p, ri, rng(3), oos::ReceiverSubs { base: base(6) });
        (s.unwrap(), r.unwrap())
    });
    check_oprf!(so, ro, x);
}

#[test]
fn kkrt_and_oos_setup_and_extend_async() {
    let (so, ro) = all_ways(|| {
        let p = kkrt_setup::Params::new().unwrap();
        let s = kkrt_setup::SenderInput {};
        let s = kkrt_setup::Sender::new(p, s, rng(2), kkrt_setup::SenderSubs { base: base(5) });
        let r = kkrt_setup::ReceiverInput {};
        let r = kkrt_setup::Receiver::new(p, r, rng(3), kkrt_setup::ReceiverSubs { base: base(6) });
        (s.unwrap(), r.unwrap())
    });
    assert_eq!(so.sid, ro.sid);
    let m = 700;
    let x = code_messages(1, m);
    let (eso, ero) = all_ways(|| {
        let p = kkrt_extend::Params::new(m, 1, false, so.sid, 0).unwrap();
        let si = kkrt_extend::SenderInput {
            key: so.key,
            base_chosen: so.base_chosen.clone(),
        };
        let ri = kkrt_extend::ReceiverInput {
            inputs: x.clone(),
            base_keys: ro.base_keys.clone(),
        };
        let s = kkrt_extend::Sender::new(p, si, rng(7)).unwrap();
        (s, kkrt_extend::Receiver::new(p, ri, rng(8)).unwrap())
    });
    assert_eq!(eso.q.len(), m);
    assert_eq!(ero.values.len(), m);
    let (oso, oro) = all_ways(|| {
        let p = oos_extend::Params::new(m, 1, false, so.sid, 0).unwrap();
        let si = oos_extend::SenderInput {
            code: LinearCode::bch_511_76(),
            key: so.key,
            base_chosen: so.base_chosen.clone(),
        };
        let ri = oos_extend::ReceiverInput {
            code: LinearCode::bch_511_76(),
            choices: x.clone(),
            base_keys: ro.base_keys.clone(),
        };
        let s = oos_extend::Sender::new(p, si, rng(7)).unwrap();
        (s, oos_extend::Receiver::new(p, ri, rng(8)).unwrap())
    });
    assert_eq!(oso.q.len(), m);
    assert_eq!(oro.values.len(), m);
}

#[test]
fn rr16_async() {
    let (n, k, stat) = (1000, 100, 40);
    let sz = ot::runtime::rr16::sizes(n, k, stat).unwrap();
    let mut c = Bits::zeros(n);
    for j in 0..k {
        c.set(j * n / k, true);
    }
    let (so, ro) = all_ways(|| {
        let p = rr16::Params::new(n, k, stat, sz.checked, sz.threshold, sz.total).unwrap();
        let s = rr16::Sender::new(
            p,
            rr16::SenderInput {},
            rng(2),
            rr16::SenderSubs { ots: ext(5) },
        );
        let ri = rr16::ReceiverInput { choices: c.clone() };
        let r = rr16::Receiver::new(p, ri, rng(3), rr16::ReceiverSubs { ots: ext(6) });
        (s.unwrap(), r.unwrap())
    });
    for i in 0..n {
        if c.get(i) {
            assert_eq!(ro.values[i], so.messages[i], "position {i}");
        } else {
            assert_ne!(ro.values[i], so.messages[i], "position {i}");
        }
    }
}

fn abo(malicious: bool, seed: u64) -> Box<AboOt> {
    let a = if malicious {
        AboOt::malicious()
    } else {
        AboOt::semi_honest()
    };
    Box::new(
        a.with_semi_honest_base_insecure(BaseOtKind::Co15)
            .with_rng(rng(seed)),
    )
}

macro_rules! abo_test {
    ($name:ident, $m:ident) => {
        #[test]
        fn $name() {
            let (trees, k) = (5, 3);
            let alphas: Vec<usize> = (0..trees).map(|t| (3 * t + 1) % (1 << k)).collect();
            let (so, ro) = all_ways(|| {
                let p = $m::Params::new(trees, k).unwrap();
                let subs = $m::SenderSubs { base: base(5) };
                let s = $m::Sender::new(p, $m::SenderInput {}, rng(2), subs);
                let ri = $m::ReceiverInput {
                    alphas: alphas.clone(),
                };
                let r = $m::Receiver::new(p, ri, rng(3), $m::ReceiverSubs { base: base(6) });
                (s.unwrap(), r.unwrap())
            });
            assert_eq!(ro.punctured.alphas(), &alphas[..]);
            let n = 1 << k;
            for (t, &a) in alphas.iter().enumerate() {
                for x in 0..n {
                    let (sv, rv) = (
                        so.leaves.leaves()[t * n + x],
                        ro.punctured.leaves()[t * n + x],
                    );
                    assert_eq!(sv == rv, x != a, "tree {t} leaf {x}");
                }
            }
        }
    };
}
abo_test!(abo_ot_async, abo_ot);
abo_test!(abo_ot_malicious_async, abo_ot_malicious);

macro_rules! softspoken_test {
    ($name:ident, $m:ident, $mal:expr) => {
        #[test]
        fn $name() {
            let m = 4096 + 11;
            let r = bits(1, m);
            let (so, ro) = all_ways(|| {
                let p = $m::Params::new(4, m, 1, false).unwrap();
                let subs = $m::SenderSubs { abo: abo($mal, 5) };
                let s = $m::Sender::new(p, $m::SenderInput {}, rng(2), subs).unwrap();
                let input = $m::ReceiverInput { r: r.clone() };
                let subs = $m::ReceiverSubs { abo: abo($mal, 6) };
                (s, $m::Receiver::new(p, input, rng(3), subs).unwrap())
            });
            check_rot(&so.y, &ro.x, &r);
        }
    };
}
softspoken_test!(softspoken_async, softspoken, false);
softspoken_test!(softspoken_malicious_async, softspoken_malicious, true);

macro_rules! softspoken_chosen_test {
    ($name:ident, $m:ident, $mal:expr) => {
        #[test]
        fn $name() {
            let m = 1000;
            let (r, payload) = (bits(1, m), pairs(4, m));
            let (_, ro) = all_ways(|| {
                let p = $m::Params::new(4, m, 1, false).unwrap();
                let si = $m::SenderInput {
                    payload: payload.clone(),
                };
                let subs = $m::SenderSubs { abo: abo($mal, 5) };
                let s = $m::Sender::new(p, si, rng(2), subs).unwrap();
                let input = $m::ReceiverInput { r: r.clone() };
                let subs = $m::ReceiverSubs { abo: abo($mal, 6) };
                (s, $m::Receiver::new(p, input, rng(3), subs).unwrap())
            });
            check_chosen(&payload, &ro.received, &r);
        }
    };
}
softspoken_chosen_test!(softspoken_chosen_async, softspoken_chosen, false);
softspoken_chosen_test!(
    softspoken_malicious_chosen_async,
    softspoken_malicious_chosen,
    true
);

#[test]
fn delta_softspoken_async() {
    let (k, delta) = (4, blocks(9, 1)[0]);
    let (so, ro) = all_ways(|| {
        let p = delta_softspoken_base::Params::new(k).unwrap();
        let si = delta_softspoken_base::SenderInput { delta };
        let subs = delta_softspoken_base::SenderSubs { abo: abo(false, 5) };
        let s = delta_softspoken_base::Sender::new(p, si, rng(2), subs);
        let ri = delta_softspoken_base::ReceiverInput {};
        let subs = delta_softspoken_base::ReceiverSubs { abo: abo(false, 6) };
        let r = delta_softspoken_base::Receiver::new(p, ri, rng(3), subs);
        (s.unwrap(), r.unwrap())
    });
    let m = 4096 + 9;
    let r = bits(1, m);
    macro_rules! delta_ot {
        ($m:ident) => {{
            let (dso, dro) = all_ways(|| {
                let p = $m::Params::new(k, m, 1, 0).unwrap();
                let si = $m::SenderInput {
                    punctured: so.punctured.clone(),
                };
                let ri = $m::ReceiverInput {
                    r: r.clone(),
                    leaves: ro.leaves.clone(),
                };
                let s = $m::Sender::new(p, si, rng(7)).unwrap();
                (s, $m::Receiver::new(p, ri, rng(8)).unwrap())
            });
            check_cot(&dso.zeros, &dro.chosen, &r, delta);
        }};
    }
    delta_ot!(delta_softspoken);
    delta_ot!(delta_softspoken_malicious);
}

macro_rules! quiet_test {
    ($name:ident, $m:ident, $rot:ident) => {
        #[test]
        fn $name() {
            let m = 300;
            let (so, ro) = all_ways(|| {
                let p = $m::Params::new(m).unwrap();
                let s = $m::Sender::new(
                    p,
                    $m::SenderInput {},
                    rng(2),
                    $m::SenderSubs { rot: ext(5) },
                );
                let r = $m::Receiver::new(
                    p,
                    $m::ReceiverInput {},
                    rng(3),
                    $m::ReceiverSubs { rot: ext(6) },
                );
                (s.unwrap(), r.unwrap())
            });
            assert_eq!(so.ots.bits.len(), m);
            assert_eq!(ro.ots.bits.len(), m);
            let r = bits(1, m);
            let (so, ro) = all_ways(|| {
                let p = $rot::Params::new(m).unwrap();
                let s = $rot::Sender::new(
                    p,
                    $rot::SenderInput {},
                    rng(2),
                    $rot::SenderSubs { rot: ext(5) },
                );
                let ri = $rot::ReceiverInput { r: r.clone() };
                let r = $rot::Receiver::new(p, ri, rng(3), $rot::ReceiverSubs { rot: ext(6) });
                (s.unwrap(), r.unwrap())
            });
            check_rot(&so.y, &ro.x, &r);
        }
    };
}
quiet_test!(quiet_bipsw_async, quiet_bipsw, quiet_bipsw_rot);
quiet_test!(quiet_gar_async, quiet_gar, quiet_gar_rot);

/// A peer that runs another protocol is refused by the async driver with
/// the same typed error as by the blocking one.
#[test]
fn async_binding_refuses_another_protocol() {
    let rt = runtime();
    let n = 8;
    let s = co15::Sender::new(co15::Params::new(n).unwrap(), co15::SenderInput {}, rng(1)).unwrap();
    let p = np00::Params::new(n).unwrap();
    let ri = np00::ReceiverInput {
        choices: bits(1, n),
    };
    let r = np00::Receiver::new(p, ri, rng(2)).unwrap();
    let (a, b) = rt.block_on(async {
        let (mut ca, mut cb) = duplex_pair(1024);
        tokio::join!(s.run_async(&mut ca), r.run_async(&mut cb))
    });
    assert!(matches!(a, Err(co15::Error::PeerMismatch { .. })), "{a:?}");
    assert!(matches!(b, Err(np00::Error::PeerMismatch { .. })), "{b:?}");
}

/// The async channel's frames: bounded receives, typed errors for a frame
/// that is too long, a hang-up between frames and one inside a frame, and
/// payload byte counters; a blocking `TcpChannel` reads its frames.
#[test]
fn tokio_channel_frames_and_errors() {
    use ot::runtime::transport::channel::{Channel, ChannelError};
    use tokio::io::AsyncWriteExt;
    let rt = runtime();
    rt.block_on(async {
        let (mut a, mut b) = duplex_pair(64);
        // Larger than the duplex buffer and than the write buffer.
        let big = vec![7u8; 100_000];
        let send = async {
            a.send(b"hello").await.unwrap();
            a.send(&big).await.unwrap();
            a.send(&[1, 2, 3]).await.unwrap();
            a.flush().await.unwrap();
            a
        };
        let recv = async {
            let mut buf = vec![];
            b.recv_into(&mut buf, 5).await.unwrap();
            assert_eq!(buf, b"hello");
            let mut out = vec![0u8; 200_000];
            assert_eq!(b.recv_into_slice(&mut out).await.unwrap(), big.len());
            assert!(out[..big.len()] == big[..]);
            let err = b.recv_into(&mut buf, 2).await.unwrap_err();
            assert!(
                matches!(err, ChannelError::Oversized { len: 3, max: 2 }),
                "{err:?}"
            );
            b
        };
        let (a, b) = tokio::join!(send, recv);
        assert_eq!(a.stats().bytes_sent, 5 + 100_000 + 3);
        assert_eq!(a.stats().messages_sent, 3);
        assert_eq!(b.stats().bytes_received, 5 + 100_000);
        drop((a, b));
        // A peer that hangs up between frames: closed.
        let (a, mut b) = duplex_pair(64);
        drop(a);
        let err = b.recv_into(&mut vec![], 10).await.unwrap_err();
        assert!(matches!(err, ChannelError::Closed), "{err:?}");

        // A peer that hangs up inside a frame: truncated, not a hang.
        let (x, y) = tokio::io::duplex(1024);
        let mut y = TokioChannel::new(y);
        let mut x = x;
        x.write_all(&10u64.to_le_bytes()).await.unwrap();
        x.write_all(b"abc").await.unwrap();
        drop(x);
        let err = y.recv_into(&mut vec![], 100).await.unwrap_err();
        assert!(
            matches!(
                err,
                ChannelError::Truncated {
                    expected: 10,
                    got: 3
                }
            ),
            "{err:?}"
        );
    });

    // A blocking TcpChannel reads the async channel's frames and answers.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::scope(|sc| {
        let h = sc.spawn(move || {
            let mut ch = TcpChannel::accept(&listener, Duration::from_secs(60)).unwrap();
            let got = ch.recv(1 << 20).unwrap();
            ch.send(&got[..4]).unwrap();
            ch.flush().unwrap();
            got.len()
        });
        let back = rt.block_on(async {
            let mut ch = TokioChannel::connect(addr).await.unwrap();
            ch.send(&[9u8; 70_000]).await.unwrap();
            let mut buf = vec![];
            ch.recv_into(&mut buf, 4).await.unwrap();
            buf
        });
        assert_eq!(back, [9u8; 4]);
        assert_eq!(h.join().unwrap(), 70_000);
    });
}

/// The async driver moves exactly the frames and bytes of the blocking one
/// (the binding, IKNP's rounds, the base OTs' rounds), and the
/// specification's `comm` bounds what IKNP itself sends.
#[test]
fn async_traffic_matches_blocking() {
    use ot::runtime::transport::channel::{Channel, MemoryChannel};
    use ot::runtime::transport::session::run_pair_over;
    let m = 5000;
    let p = iknp::Params::new(m, 1, false).unwrap();
    let make = || {
        let s = iknp::SenderSubs { base: base(5) };
        let s = iknp::Sender::new(p, iknp::SenderInput {}, rng(2), s).unwrap();
        let ri = iknp::ReceiverInput { r: bits(1, m) };
        let r = iknp::ReceiverSubs { base: base(6) };
        (s, iknp::Receiver::new(p, ri, rng(3), r).unwrap())
    };
    let (s, r) = make();
    let (mut ma, mut mb) = MemoryChannel::pair();
    let (a, b) = run_pair_over(s, r, &mut ma, &mut mb);
    a.unwrap();
    b.unwrap();
    let (s, r) = make();
    let (ta, tb) = runtime().block_on(async {
        let (mut ca, mut cb) = local_pair_tokio_tcp().await.unwrap();
        let (a, b) = tokio::join!(s.run_async(&mut ca), r.run_async(&mut cb));
        a.unwrap();
        b.unwrap();
        (ca.stats(), cb.stats())
    });
    assert_eq!(ta, ma.stats());
    assert_eq!(tb, mb.stats());
    let comm = iknp::comm(&p);
    assert!(tb.bytes_sent >= comm.receiver as u64);
    assert!(ta.bytes_sent >= comm.sender as u64);
}

/// `OtExtension::silent()` has no async version (the Ferret session is
/// blocking): its async twins fail with an error that says so, before
/// anything is sent.
#[test]
fn a_silent_configuration_refuses_the_async_twins() {
    use ot::traits::{RandomOtReceiver, RandomOtSender};
    let rt = runtime();
    let (a, b) = rt.block_on(async {
        let (mut ca, mut cb) = duplex_pair(1024);
        let (mut s, mut r) = (OtExtension::silent(), OtExtension::silent());
        let c = bits(3, 8);
        let a = s.send_random_async(&mut ca, 8).await.map(|_| ());
        let b = r.receive_random_async(&mut cb, &c).await.map(|_| ());
        (a, b)
    });
    for e in [a.unwrap_err(), b.unwrap_err()] {
        assert!(format!("{e}").contains("no async version"), "{e}");
    }
}
