//! IKNP, KOS, Delta-IKNP and Delta-KOS generated from their `.otp` files,
//! end to end over in-memory and TCP channels; hang-ups, truncated and
//! oversized extension messages. The corrected KOS check against cheating
//! receivers is tested in `tests/kos_check.rs`.

use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::transport::channel::{local_pair_tcp, Channel, MemoryChannel, TamperChannel};
use ot::runtime::transport::session::{run_pair, run_pair_over};
use ot::runtime::{Bits, Block};
mod common;

use common::delta_bases;
use ot::{delta_iknp, delta_kos, kos, BaseOt, BaseOtKind};

const SIZES: [usize; 5] = [1, 127, 128, 129, (1 << 16) + 3];

fn choices(m: usize) -> Bits {
    Bits::random(&mut Rng::from_entropy(), m)
}

fn base() -> Box<BaseOt> {
    Box::new(BaseOt::new(BaseOtKind::Co15))
}

fn check_random(y: &[[Block; 2]], x: &[Block], r: &Bits) {
    assert_eq!((y.len(), x.len()), (r.len(), r.len()));
    for i in 0..r.len() {
        let b = usize::from(r.get(i));
        assert_eq!(x[i], y[i][b], "OT {i}");
        assert_ne!(x[i], y[i][1 - b], "OT {i}");
    }
}

fn check_delta(z: &[Block], t: &[Block], r: &Bits, delta: Block) {
    assert_eq!((z.len(), t.len()), (r.len(), r.len()));
    for i in 0..r.len() {
        let want = if r.get(i) { z[i] ^ delta } else { z[i] };
        assert_eq!(t[i], want, "Delta-OT {i}");
    }
}

fn kos_pair(
    m: usize,
    sha1: bool,
) -> (
    kos::Sender<kos::sender_state::SendSession>,
    kos::Receiver<kos::receiver_state::AwaitSession>,
    Bits,
) {
    let p = kos::Params::new(m, 1, sha1).unwrap();
    let r = choices(m);
    let s = kos::Sender::new(
        p,
        kos::SenderInput {},
        Rng::from_entropy(),
        kos::SenderSubs { base: base() },
    )
    .unwrap();
    let rc = kos::Receiver::new(
        p,
        kos::ReceiverInput { r: r.clone() },
        Rng::from_entropy(),
        kos::ReceiverSubs { base: base() },
    )
    .unwrap();
    (s, rc, r)
}

#[test]
fn kos_random_ot_all_sizes() {
    for m in SIZES {
        for sha1 in [false, true] {
            let (s, rc, r) = kos_pair(m, sha1);
            let (so, ro) = run_pair(s, rc);
            check_random(&so.unwrap().y, &ro.unwrap().x, &r);
        }
    }
}

/// Sender and receiver of a Delta-OT extension module (`delta_iknp` or
/// `delta_kos`) for batch `batch` of `m` OTs with `delta` and choice bits
/// `r`, over the base OTs `bases` of `delta`.
macro_rules! delta_pair {
    ($module:ident, $m:expr, $delta:expr, $r:expr, $bases:expr, $batch:expr, $threads:expr) => {{
        let p = $module::Params::new($m, $threads, $batch).unwrap();
        let s = $module::Sender::new(
            p,
            $module::SenderInput {
                delta: $delta,
                base_chosen: $bases.0.clone(),
            },
            Rng::from_entropy(),
        )
        .unwrap();
        let rc = $module::Receiver::new(
            p,
            $module::ReceiverInput {
                r: $r.clone(),
                base_keys: $bases.1.clone(),
            },
            Rng::from_entropy(),
        )
        .unwrap();
        (s, rc)
    }};
    ($module:ident, $m:expr, $delta:expr, $r:expr, $bases:expr, $batch:expr) => {
        delta_pair!($module, $m, $delta, $r, $bases, $batch, 1)
    };
}

#[test]
fn delta_iknp_and_delta_kos_all_sizes() {
    let delta = Block::sample(&mut Rng::from_entropy());
    let bases = delta_bases(delta);
    for (batch, m) in SIZES.into_iter().enumerate() {
        let r = choices(m);
        let (s, rc) = delta_pair!(delta_iknp, m, delta, r, bases, batch);
        let (so, ro) = run_pair(s, rc);
        check_delta(&so.unwrap().zeros, &ro.unwrap().chosen, &r, delta);
        let (s, rc) = delta_pair!(delta_kos, m, delta, r, bases, batch);
        let (so, ro) = run_pair(s, rc);
        check_delta(&so.unwrap().zeros, &ro.unwrap().chosen, &r, delta);
    }
}

/// Outputs larger than the caches are written with non-temporal stores by
/// the transposing kernels (past 4 MiB still to write): a batch well past
/// that, over TCP (where the receiver's chunks are handed to the writer
/// thread without a copy), must still give correct correlations, for the
/// plain (Delta-IKNP) and the checked (Delta-KOS) protocol.
#[test]
fn large_delta_batches_over_tcp() {
    let m = (1 << 18) + 16384 * 3 + 77;
    let delta = Block::sample(&mut Rng::from_entropy());
    let r = choices(m);
    let bases = delta_bases(delta);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let (s, rc) = delta_pair!(delta_iknp, m, delta, r, bases, 0);
    let (so, ro) = run_pair_over(s, rc, &mut a, &mut b);
    check_delta(&so.unwrap().zeros, &ro.unwrap().chosen, &r, delta);
    let (s, rc) = delta_pair!(delta_kos, m, delta, r, bases, 1);
    let (so, ro) = run_pair_over(s, rc, &mut a, &mut b);
    check_delta(&so.unwrap().zeros, &ro.unwrap().chosen, &r, delta);
}

#[test]
fn kos_over_tcp() {
    let (s, rc, r) = kos_pair(5000, false);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let (so, ro) = run_pair_over(s, rc, &mut a, &mut b);
    check_random(&so.unwrap().y, &ro.unwrap().x, &r);
}

/// Index of the receiver's `extend` message on the shared channel: CO15
/// base OTs first (the extension receiver is the base-OT sender: 1 message).
const EXTEND_MSG: usize = 1;

#[test]
fn truncated_oversized_and_hang_up_are_typed_errors() {
    // Truncated u.
    let (s, rc, _) = kos_pair(300, false);
    let (mut a, b) = MemoryChannel::pair();
    let mut b = TamperChannel::new(b, |i: usize, msg: &mut Vec<u8>| {
        if i == EXTEND_MSG {
            msg.truncate(msg.len() / 2);
        }
    });
    let so = std::thread::scope(|sc| {
        let h = sc.spawn(move || rc.run(&mut b));
        let so = s.run(&mut a);
        drop(a);
        let _ = h.join().unwrap();
        so
    });
    assert!(
        matches!(
            so,
            Err(kos::Error::Length {
                round: "extend",
                ..
            })
        ),
        "{so:?}"
    );

    // Oversized u.
    let (s, rc, _) = kos_pair(300, false);
    let (mut a, b) = MemoryChannel::pair();
    let mut b = TamperChannel::new(b, |i: usize, msg: &mut Vec<u8>| {
        if i == EXTEND_MSG {
            msg.extend_from_slice(&[0u8; 4096]);
        }
    });
    let so = std::thread::scope(|sc| {
        let h = sc.spawn(move || rc.run(&mut b));
        let so = s.run(&mut a);
        drop(a);
        let _ = h.join().unwrap();
        so
    });
    assert!(
        matches!(
            so,
            Err(kos::Error::Channel {
                round: "extend",
                ..
            })
        ),
        "{so:?}"
    );

    // The receiver hangs up after the base OTs.
    let (s, rc, _) = kos_pair(300, false);
    let (mut a, mut b) = MemoryChannel::pair();
    let so = std::thread::scope(|sc| {
        let h = sc.spawn(move || {
            let params = kos::Params::new(300, 1, false).unwrap();
            // The session bindings (ours out, the sender's in), as `run` does.
            ot::runtime::transport::bind::Binding::new(
                kos::PROTOCOL,
                kos::SPEC_HASH,
                params.encode(),
                1,
            )
            .send(&mut b)
            .unwrap();
            let _binding = b.recv(1 << 16).unwrap();
            let session = kos::msgs::Session::decode(&b.recv(1 << 10).unwrap(), &params).unwrap();
            let rc = rc.recv_session(session).unwrap().run_base(&mut b).unwrap();
            drop(b);
            drop(rc);
        });
        let so = s.run(&mut a);
        h.join().unwrap();
        so
    });
    assert!(matches!(so, Err(kos::Error::Channel { .. })), "{so:?}");
    let _ = a.stats();
}

#[test]
fn threads_parameter_gives_correct_outputs() {
    // The same protocol with the bulk kernels split over 3 workers per party.
    for m in [129usize, 5000, (1 << 15) + 77] {
        let p = kos::Params::new(m, 3, false).unwrap();
        let r = choices(m);
        let s = kos::Sender::new(
            p,
            kos::SenderInput {},
            Rng::from_entropy(),
            kos::SenderSubs { base: base() },
        )
        .unwrap();
        let rc = kos::Receiver::new(
            p,
            kos::ReceiverInput { r: r.clone() },
            Rng::from_entropy(),
            kos::ReceiverSubs { base: base() },
        )
        .unwrap();
        let (so, ro) = run_pair(s, rc);
        check_random(&so.unwrap().y, &ro.unwrap().x, &r);
        let delta = Block::sample(&mut Rng::from_entropy());
        let bases = delta_bases(delta);
        let (s, rc) = delta_pair!(delta_iknp, m, delta, r, bases, 0, 2);
        let (so, ro) = run_pair(s, rc);
        check_delta(&so.unwrap().zeros, &ro.unwrap().chosen, &r, delta);
    }
    assert!(matches!(
        kos::Params::new(10, 0, false),
        Err(kos::Error::Params {
            requirement: "threads >= 1"
        })
    ));
}

#[test]
fn chosen_message_kos_all_sizes() {
    use ot::kos_chosen;
    for m in SIZES {
        let payload: Vec<[Block; 2]> = (0..m as u128).map(|i| [Block(i), Block(!i)]).collect();
        let r = choices(m);
        let p = kos_chosen::Params::new(m, 1, false).unwrap();
        let s = kos_chosen::Sender::new(
            p,
            kos_chosen::SenderInput {
                payload: payload.clone(),
            },
            Rng::from_entropy(),
            kos_chosen::SenderSubs { base: base() },
        )
        .unwrap();
        let rc = kos_chosen::Receiver::new(
            p,
            kos_chosen::ReceiverInput { r: r.clone() },
            Rng::from_entropy(),
            kos_chosen::ReceiverSubs { base: base() },
        )
        .unwrap();
        let (so, ro) = run_pair(s, rc);
        so.unwrap();
        let got = ro.unwrap().received;
        for (i, (g, pair)) in got.iter().zip(&payload).enumerate() {
            assert_eq!(*g, pair[usize::from(r.get(i))], "m={m} OT {i}");
        }
        assert_eq!(got.len(), m);
    }
}

#[test]
fn chosen_message_iknp_all_sizes() {
    use ot::iknp_chosen;
    for m in SIZES {
        let mut rng = Rng::from_entropy();
        let payload: Vec<[Block; 2]> = (0..m)
            .map(|_| [Block::sample(&mut rng), Block::sample(&mut rng)])
            .collect();
        let r = choices(m);
        let p = iknp_chosen::Params::new(m, 1, false).unwrap();
        let s = iknp_chosen::Sender::new(
            p,
            iknp_chosen::SenderInput {
                payload: payload.clone(),
            },
            Rng::from_entropy(),
            iknp_chosen::SenderSubs { base: base() },
        )
        .unwrap();
        let rc = iknp_chosen::Receiver::new(
            p,
            iknp_chosen::ReceiverInput { r: r.clone() },
            Rng::from_entropy(),
            iknp_chosen::ReceiverSubs { base: base() },
        )
        .unwrap();
        let (so, ro) = run_pair(s, rc);
        so.unwrap();
        let got = ro.unwrap().received;
        assert_eq!(got.len(), m);
        for i in 0..m {
            assert_eq!(got[i], payload[i][usize::from(r.get(i))], "m={m} OT {i}");
        }
    }
}

#[test]
fn common_traits_run_every_extension_protocol() {
    use ot::{
        CorrelatedOtReceiver, CorrelatedOtSender, OtExtension, OtReceiver, OtSender,
        RandomOtReceiver, RandomOtSender,
    };
    let m = 1000;
    for malicious in [false, true] {
        let make = || {
            if malicious {
                OtExtension::kos()
            } else {
                OtExtension::iknp()
            }
        };
        let r = choices(m);
        // Random OT.
        let (mut a, mut b) = MemoryChannel::pair();
        let (y, x) = std::thread::scope(|sc| {
            let h = sc.spawn(|| make().with_sha1(true).send_random(&mut a, m));
            let x = make().with_sha1(true).receive_random(&mut b, &r);
            (h.join().unwrap().unwrap(), x.unwrap())
        });
        check_random(&y, &x, &r);
        // Chosen-message OT.
        let mut rng = Rng::from_entropy();
        let payload: Vec<[Block; 2]> = (0..m)
            .map(|_| [Block::sample(&mut rng), Block::sample(&mut rng)])
            .collect();
        let (mut a, mut b) = MemoryChannel::pair();
        let got = std::thread::scope(|sc| {
            let h = sc.spawn(|| make().with_threads(2).send(&mut a, &payload));
            let got = make().with_threads(2).receive(&mut b, &r);
            h.join().unwrap().unwrap();
            got.unwrap()
        });
        for i in 0..m {
            assert_eq!(got[i], payload[i][usize::from(r.get(i))]);
        }
        // Correlated OT: stateful parties, several batches under one Delta.
        let delta = Block::sample(&mut rng);
        let mut sender = make()
            .with_semi_honest_base_insecure(BaseOtKind::Np00)
            .delta_sender(delta);
        let mut receiver = make()
            .with_semi_honest_base_insecure(BaseOtKind::Np00)
            .delta_receiver();
        assert_eq!(sender.delta(), delta);
        let (mut a, mut b) = MemoryChannel::pair();
        let mut sent = Vec::new();
        for n in [m, m, 77] {
            let r = choices(n);
            let before = b.stats().bytes_sent;
            let (z, t) = std::thread::scope(|sc| {
                let h = sc.spawn(|| sender.send_correlated(&mut a, n));
                let t = receiver.receive_correlated(&mut b, &r);
                (h.join().unwrap().unwrap(), t.unwrap())
            });
            check_delta(&z, &t, &r, delta);
            sent.push(b.stats().bytes_sent - before);
        }
        // The base OTs run once: the second batch of the same size sends
        // only the extension (the receiver is the base-OT sender).
        assert!(sent[1] < sent[0], "{sent:?}");
    }
}

/// A second run handed the first run's outputs writes into the same
/// buffers (the streamed outputs and KOS's kept columns) and is correct.
#[test]
fn reused_outputs_keep_their_buffers_and_stay_correct() {
    let m = 5000;
    let (s, rc, r) = kos_pair(m, false);
    let (so, ro) = run_pair(s, rc);
    let (so, ro) = (so.unwrap(), ro.unwrap());
    check_random(&so.y, &ro.x, &r);
    // `q` (sender) and `tc` (receiver) outlive the stream for the check.
    assert_eq!((so.scratch_buffers(), ro.scratch_buffers()), (1, 1));
    let (y_ptr, x_ptr) = (so.y.as_ptr(), ro.x.as_ptr());
    let (s, rc, r) = kos_pair(m, false);
    let (so2, ro2) = run_pair(s.reuse_outputs(so), rc.reuse_outputs(ro));
    let (so2, ro2) = (so2.unwrap(), ro2.unwrap());
    check_random(&so2.y, &ro2.x, &r);
    assert_eq!((so2.y.as_ptr(), ro2.x.as_ptr()), (y_ptr, x_ptr));
    assert_eq!((so2.scratch_buffers(), ro2.scratch_buffers()), (1, 1));

    // Delta-IKNP: the columns are assembled in the output buffers, and a
    // buffer of another size is resized.
    let delta = Block::sample(&mut Rng::from_entropy());
    let bases = delta_bases(delta);
    let mut previous: Option<(delta_iknp::SenderOutput, delta_iknp::ReceiverOutput)> = None;
    for (batch, m) in [3000, 3000, 200].into_iter().enumerate() {
        let r = choices(m);
        let (mut s, mut rc) = delta_pair!(delta_iknp, m, delta, r, bases, batch);
        let mut ptrs = None;
        if let Some((so, ro)) = previous.take() {
            ptrs = Some((so.zeros.as_ptr(), ro.chosen.as_ptr()));
            s = s.reuse_outputs(so);
            rc = rc.reuse_outputs(ro);
        }
        let (so, ro) = run_pair(s, rc);
        let (so, ro) = (so.unwrap(), ro.unwrap());
        check_delta(&so.zeros, &ro.chosen, &r, delta);
        if let Some(p) = ptrs {
            assert_eq!(p, (so.zeros.as_ptr(), ro.chosen.as_ptr()), "m = {m}");
        }
        previous = Some((so, ro));
    }
}
