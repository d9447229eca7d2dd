//! Session binding of two-party protocols: parties that disagree on the
//! protocol, its parameters or their roles get `PeerMismatch` on both sides
//! (over memory and TCP), never `Ok` with wrong outputs; a tampered binding
//! is the same error; the binding's bytes are in `comm()`.

mod common;

use common::{choices, run_pair_tcp, run_tampered};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::bind::{is_binding, peer_mismatch, Mismatch};
use ot::runtime::transport::channel::TamperChannel;
use ot::runtime::transport::channel::{Channel, MemoryChannel};
use ot::runtime::Block;
use ot::{OtExtension, OtSender, RandomOtReceiver, RandomOtSender};

/// One party: runs on a channel, its outputs dropped.
type Party = Box<dyn FnOnce(&mut dyn Channel) -> Result<(), ot::OtError> + Send>;

/// Runs the pair `make` builds over memory (each side drops its end when it
/// returns), then over TCP, and asserts that both sides name `want`.
fn both_refuse(make: impl Fn() -> (Party, Party), want: Mismatch) {
    let name = |r: Result<(), ot::OtError>| match r {
        Ok(()) => panic!("a mismatched pair returned Ok"),
        Err(e) => peer_mismatch(&e),
    };
    let (s, r) = make();
    let (so, ro) = run_tampered(s, r, |_, _| {});
    assert_eq!((name(so), name(ro)), (Some(want), Some(want)), "memory");
    let (s, r) = make();
    let (so, ro) = run_pair_tcp(s, r);
    assert_eq!((name(so), name(ro)), (Some(want), Some(want)), "tcp");
}

/// A random-OT sender of `n` OTs with the extension `ext` builds.
fn random_sender(ext: fn() -> OtExtension, n: usize) -> Party {
    Box::new(move |ch| ext().send_random(ch, n).map(drop))
}

/// A random-OT receiver of `n` OTs with the extension `ext` builds.
fn random_receiver(ext: fn() -> OtExtension, n: usize) -> Party {
    Box::new(move |ch| ext().receive_random(ch, &choices(n)).map(drop))
}

/// A Delta-KOS sender of `n` correlated OTs.
fn delta_kos_sender(n: usize) -> Party {
    Box::new(move |ch| {
        use ot::CorrelatedOtSender;
        let delta = Block::from(0x1234u128);
        OtExtension::kos()
            .delta_sender(delta)
            .send_correlated(ch, n)
            .map(drop)
    })
}

/// A chosen-message KOS sender of `n` OTs.
fn kos_chosen_sender(n: usize) -> Party {
    Box::new(move |ch| {
        let msgs = vec![[Block::from(1u128), Block::from(2u128)]; n];
        OtExtension::kos().send(ch, &msgs)
    })
}

/// The pairs of issue 15 that used to finish with `Ok` and mismatched
/// outputs, two senders, and IKNP over CO15 against IKNP over NP00 (the
/// outer bindings agree; the base OTs' own do not, found in
/// `Error::SubProtocol`'s chain).
#[test]
fn mismatched_pairs_are_refused_on_both_sides() {
    use OtExtension as E;
    let np00 = || E::iknp().with_base(ot::BaseOtKind::Np00).unwrap();
    let sha1 = || E::iknp().with_sha1(true);
    let m = Mismatch::Params;
    both_refuse(
        || (random_sender(sha1, 256), random_receiver(E::iknp, 256)),
        m,
    );
    both_refuse(
        || (random_sender(E::iknp, 256), random_receiver(E::iknp, 384)),
        m,
    );
    let m = Mismatch::Protocol;
    both_refuse(|| (delta_kos_sender(256), random_receiver(E::kos, 256)), m);
    both_refuse(|| (kos_chosen_sender(256), random_receiver(E::kos, 256)), m);
    both_refuse(
        || (random_sender(E::iknp, 256), random_receiver(np00, 256)),
        m,
    );
    let m = Mismatch::Role;
    both_refuse(
        || (random_sender(E::iknp, 256), random_sender(E::iknp, 256)),
        m,
    );
}

#[test]
fn threads_are_not_bound() {
    let (so, ro) = run_tampered(
        |ch| OtExtension::iknp().with_threads(2).send_random(ch, 256),
        |ch| {
            let c = choices(256);
            OtExtension::iknp().receive_random(ch, &c).map(|x| (x, c))
        },
        |_, _| {},
    );
    let (y, (x, c)) = (so.unwrap(), ro.unwrap());
    for i in 0..256 {
        assert_eq!(x[i], y[i][c.get(i) as usize]);
    }
}

/// Every byte of the receiver's binding flipped in turn: the sender, which
/// receives it, names the mismatch (never `Ok`). The receiver saw an intact
/// binding; in CO15 its last step is a send, so it may finish before it
/// could learn that the sender refused (as for any check of the peer's).
#[test]
fn a_tampered_binding_is_a_peer_mismatch() {
    let p = ot::co15::Params::new(4).unwrap();
    let len = ot::co15::BINDING_BYTES;
    for at in 0..len {
        let (mut a, b) = MemoryChannel::pair();
        let mut b = TamperChannel::every_frame(b, move |i, f: &mut Vec<u8>| {
            if i == 0 {
                assert!(is_binding(f) && f.len() == len);
                f[at] ^= 0x01;
            }
        });
        let (so, ro) = std::thread::scope(|sc| {
            let h = sc.spawn(move || {
                let input = ot::co15::ReceiverInput {
                    choices: choices(4),
                };
                ot::co15::Receiver::new(p, input, Rng::from_entropy())?.run(&mut b)
            });
            let s = ot::co15::Sender::new(p, ot::co15::SenderInput {}, Rng::from_entropy());
            let so = s.and_then(|s| s.run(&mut a));
            drop(a);
            (so, h.join().unwrap())
        });
        assert!(
            matches!(so, Err(ot::co15::Error::PeerMismatch { .. })),
            "byte {at}: {so:?}"
        );
        drop(ro);
    }
}

/// `comm()` counts the binding: a matched run sends exactly `comm()` bytes
/// each way, of which `BINDING_BYTES` are the binding frame.
#[test]
fn comm_counts_the_binding() {
    let p = ot::co15::Params::new(8).unwrap();
    let (mut a, mut b) = MemoryChannel::pair();
    let (so, ro) = std::thread::scope(|sc| {
        let h = sc.spawn(|| {
            let input = ot::co15::ReceiverInput {
                choices: choices(8),
            };
            ot::co15::Receiver::new(p, input, Rng::from_entropy())
                .unwrap()
                .run(&mut b)
        });
        let s = ot::co15::Sender::new(p, ot::co15::SenderInput {}, Rng::from_entropy()).unwrap();
        (s.run(&mut a), h.join().unwrap())
    });
    so.unwrap();
    ro.unwrap();
    let c = ot::co15::comm(&p);
    assert_eq!(a.stats().bytes_sent, c.sender as u64);
    assert_eq!(a.stats().bytes_received, c.receiver as u64);
    assert_eq!(
        ot::co15::BINDING_BYTES,
        ot::runtime::transport::bind::frame_len("Co15".len(), 8)
    );
}
