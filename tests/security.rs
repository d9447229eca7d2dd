//! Reproductions of the attacks the security review found, now refused:
//! the NP00 equal-keys receiver, an extension sender forcing equal base
//! keys, and retrying a Delta after a failed check.

mod common;

use std::sync::{Arc, Mutex};

use common::{run_tampered, EqualKeys};

use ot::runtime::primitives::ec::{halve, Point};
use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::transport::channel::{Channel, MemoryChannel, TamperChannel};
use ot::runtime::{Bits, Block};
use ot::{
    delta_base, iknp, kos, np00, silent_ot, CorrelatedOtReceiver, CorrelatedOtSender,
    DeltaOtPoisoned, DeltaOtReceiver, DeltaOtSender,
};

fn choices(n: usize) -> Bits {
    Bits::random(&mut Rng::from_entropy(), n)
}

/// [NP01 §3.1] with the branch bit hashed: a receiver that sends
/// `PK_0 = C / 2` (so `PK_1 = C − PK_0 = PK_0`) used to get `k_0 == k_1`.
/// Now the sender's two keys of every OT differ.
#[test]
fn np00_receiver_sending_half_of_c_no_longer_gets_equal_keys() {
    let n = 9;
    let p = np00::Params::new(n).unwrap();
    let setup: Arc<Mutex<Option<Vec<u8>>>> = Arc::default();
    let seen = setup.clone();
    let (a, b) = MemoryChannel::pair();
    // The sender's first frame: salt (16 bytes), C (32), R (32).
    let mut a = TamperChannel::new(a, move |i: usize, msg: &mut Vec<u8>| {
        if i == 0 {
            *seen.lock().unwrap() = Some(msg.clone());
        }
    });
    // The receiver replaces every PK_0 in choose_lo (frame 0) and
    // choose_hi (frame 1) with C / 2.
    let mut b = TamperChannel::new(b, move |i: usize, msg: &mut Vec<u8>| {
        if i <= 1 {
            let frame = setup.lock().unwrap().clone().unwrap();
            let c: Point = np00::msgs::Setup::decode(&frame, &p).unwrap().big_c;
            let half = halve(c);
            assert_eq!(c - half, half, "PK_1 = C - PK_0 equals PK_0");
            for chunk in msg.chunks_mut(32) {
                chunk.copy_from_slice(half.compress().as_bytes());
            }
        }
    });
    let s = np00::Sender::new(p, np00::SenderInput {}, Rng::from_entropy()).unwrap();
    let r = np00::Receiver::new(
        p,
        np00::ReceiverInput {
            choices: choices(n),
        },
        Rng::from_entropy(),
    )
    .unwrap();
    let (so, _ro) = std::thread::scope(|sc| {
        let h = sc.spawn(move || s.run(&mut a));
        let ro = r.run(&mut b);
        (h.join().unwrap(), ro)
    });
    let messages = so.unwrap().messages;
    for (i, [k0, k1]) in messages.iter().enumerate() {
        assert_ne!(k0, k1, "OT {i}: equal keys");
    }
    let distinct: std::collections::HashSet<_> = messages.iter().flatten().collect();
    assert_eq!(distinct.len(), 2 * n, "keys of different OTs differ too");
}

/// OT extension's receiver refuses base OTs with `k_0 == k_1` (with them,
/// row j of `u` would be its choice bits in the clear), for IKNP, KOS and
/// the Delta-OT base phase.
#[test]
fn equal_base_keys_are_refused_with_the_named_error() {
    let m = 300;
    let p = iknp::Params::new(m, 1, false).unwrap();
    let (_, ro) = run_tampered(
        |ch| {
            iknp::Sender::new(
                p,
                iknp::SenderInput {},
                Rng::from_entropy(),
                iknp::SenderSubs {
                    base: Box::new(EqualKeys),
                },
            )
            .unwrap()
            .run(ch)
        },
        |ch| {
            iknp::Receiver::new(
                p,
                iknp::ReceiverInput { r: choices(m) },
                Rng::from_entropy(),
                iknp::ReceiverSubs {
                    base: Box::new(EqualKeys),
                },
            )
            .unwrap()
            .run(ch)
        },
        |_, _| {},
    );
    assert!(
        matches!(ro, Err(iknp::Error::EqualBaseKeys { .. })),
        "{:?}",
        ro.err()
    );

    let p = kos::Params::new(m, 1, false).unwrap();
    let (_, ro) = run_tampered(
        |ch| {
            kos::Sender::new(
                p,
                kos::SenderInput {},
                Rng::from_entropy(),
                kos::SenderSubs {
                    base: Box::new(EqualKeys),
                },
            )
            .unwrap()
            .run(ch)
        },
        |ch| {
            kos::Receiver::new(
                p,
                kos::ReceiverInput { r: choices(m) },
                Rng::from_entropy(),
                kos::ReceiverSubs {
                    base: Box::new(EqualKeys),
                },
            )
            .unwrap()
            .run(ch)
        },
        |_, _| {},
    );
    assert!(matches!(ro, Err(kos::Error::EqualBaseKeys { .. })));

    let p = delta_base::Params::new().unwrap();
    let (_, ro) = run_tampered(
        |ch| {
            delta_base::Sender::new(
                p,
                delta_base::SenderInput { delta: Block(5) },
                Rng::from_entropy(),
                delta_base::SenderSubs {
                    base: Box::new(EqualKeys),
                },
            )
            .unwrap()
            .run(ch)
        },
        |ch| {
            delta_base::Receiver::new(
                p,
                delta_base::ReceiverInput {},
                Rng::from_entropy(),
                delta_base::ReceiverSubs {
                    base: Box::new(EqualKeys),
                },
            )
            .unwrap()
            .run(ch)
        },
        |_, _| {},
    );
    assert!(matches!(ro, Err(delta_base::Error::EqualBaseKeys { .. })));
}

/// Silent OT's sender refuses random OTs with `k_0 == k_1` for its trees:
/// the masked level sums `[L ⊕ k_0, R ⊕ k_1]` would give the receiver
/// `L ⊕ R`, hence both sums, its punctured leaf and, with the correction,
/// Delta.
#[test]
fn silent_ot_refuses_equal_base_keys() {
    let n = 1000;
    let depth = ot::runtime::silent::params::depth_for(n).unwrap();
    let p = silent_ot::Params::new(n, depth).unwrap();
    let (so, _) = run_tampered(
        |ch| {
            silent_ot::Sender::new(
                p,
                silent_ot::SenderInput {},
                Rng::from_entropy(),
                silent_ot::SenderSubs {
                    base: Box::new(EqualKeys),
                },
            )
            .unwrap()
            .run(ch)
        },
        |ch| {
            silent_ot::Receiver::new(
                p,
                silent_ot::ReceiverInput {},
                Rng::from_entropy(),
                silent_ot::ReceiverSubs {
                    base: Box::new(EqualKeys),
                },
            )
            .unwrap()
            .run(ch)
        },
        |_, _| {},
    );
    assert!(
        matches!(so, Err(silent_ot::Error::EqualBaseKeys { .. })),
        "{:?}",
        so.err()
    );
}

/// A Delta-OT sender extends many batches from one set of base OTs, and
/// after a failed consistency check refuses every further batch with
/// `DeltaOtPoisoned` (so guesses at bits of Delta cannot accumulate).
#[test]
fn delta_sender_refuses_use_after_a_failed_check() {
    let m: usize = 600;
    let delta = Block::sample(&mut Rng::from_entropy());
    let mut sender = DeltaOtSender::kos(delta).with_semi_honest_base_insecure(ot::BaseOtKind::Co15);
    let mut receiver = DeltaOtReceiver::kos().with_semi_honest_base_insecure(ot::BaseOtKind::Co15);
    let (mut a, b) = MemoryChannel::pair();
    // Receiver frames: base-OT setup (0); batch 1: extend (1), check (2);
    // batch 2: extend (3). Batch 2's u gets inconsistent choice bits.
    let row_bytes = 16 * (m + 128).div_ceil(128);
    let mut b = TamperChannel::new(b, move |i: usize, msg: &mut Vec<u8>| {
        if i == 3 {
            for row in 0..128 {
                msg[row * row_bytes] ^= 1;
            }
        }
    });
    let r = choices(m);
    // Batch 1: honest.
    let (z, t) = std::thread::scope(|sc| {
        let h = sc.spawn(|| sender.send_correlated(&mut a, m));
        let t = receiver.receive_correlated(&mut b, &r);
        (h.join().unwrap().unwrap(), t.unwrap())
    });
    for i in 0..m {
        assert_eq!(t[i], if r.get(i) { z[i] ^ delta } else { z[i] });
    }
    // Batch 2: the check fails on the sender's side.
    let (zs, _) = std::thread::scope(|sc| {
        let h = sc.spawn(|| {
            let out = sender.send_correlated(&mut a, m);
            drop(a);
            out
        });
        let t = receiver.receive_correlated(&mut b, &r);
        (h.join().unwrap(), t)
    });
    let err = zs.unwrap_err();
    assert!(
        err.0
            .downcast_ref::<ot::delta_kos::Error>()
            .is_some_and(|e| matches!(e, ot::delta_kos::Error::CorrelationCheckFailed { .. })),
        "{err}"
    );
    assert!(sender.is_poisoned());
    // Batch 3: refused before touching any channel.
    let (mut c, _d) = MemoryChannel::pair();
    let err = sender.send_correlated(&mut c, m).unwrap_err();
    assert!(err.0.downcast_ref::<DeltaOtPoisoned>().is_some(), "{err}");
    assert_eq!(c.stats().bytes_sent, 0);
    assert_eq!(sender.delta(), delta);
}
