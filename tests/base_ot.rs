//! End-to-end tests of the base OTs generated from `protocols/co15.otp` and
//! `protocols/np00.otp`: correctness over in-memory and TCP channels,
//! tampered points, hang-ups and truncated frames.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::bind::Binding;
use ot::runtime::transport::channel::{local_pair_tcp, Channel, MemoryChannel, TamperChannel};
use ot::runtime::transport::session::run_pair;
use ot::runtime::{Bits, Block};
use ot::{co15, co15_chosen, np00, np00_chosen};

fn choices(n: usize, seed: u64) -> Bits {
    let mut rng = Rng::deterministic_for_tests(seed);
    Bits::random(&mut rng, n)
}

fn check_random_ot(messages: &[[Block; 2]], chosen: &[Block], c: &Bits) {
    assert_eq!(messages.len(), c.len());
    assert_eq!(chosen.len(), c.len());
    for i in 0..c.len() {
        let b = usize::from(c.get(i));
        assert_eq!(
            chosen[i], messages[i][b],
            "OT {i}: receiver got the wrong message"
        );
        assert_ne!(chosen[i], messages[i][1 - b], "OT {i}: both messages equal");
    }
}

#[test]
fn co15_in_memory_all_sizes() {
    for n in [1usize, 2, 127, 128, 129] {
        let c = choices(n, n as u64);
        let p = co15::Params::new(n).unwrap();
        let s = co15::Sender::new(p, co15::SenderInput {}, Rng::from_entropy()).unwrap();
        let r = co15::Receiver::new(
            p,
            co15::ReceiverInput { choices: c.clone() },
            Rng::from_entropy(),
        )
        .unwrap();
        let (so, ro) = run_pair(s, r);
        check_random_ot(&so.unwrap().messages, &ro.unwrap().chosen, &c);
    }
}

#[test]
fn np00_in_memory_all_sizes() {
    for n in [1usize, 3, 128, 129] {
        let c = choices(n, 7 + n as u64);
        let p = np00::Params::new(n).unwrap();
        let s = np00::Sender::new(p, np00::SenderInput {}, Rng::from_entropy()).unwrap();
        let r = np00::Receiver::new(
            p,
            np00::ReceiverInput { choices: c.clone() },
            Rng::from_entropy(),
        )
        .unwrap();
        let (so, ro) = run_pair(s, r);
        check_random_ot(&so.unwrap().messages, &ro.unwrap().chosen, &c);
    }
}

#[test]
fn co15_over_tcp_and_comm_matches_spec() {
    let n = 128;
    let c = choices(n, 1);
    let p = co15::Params::new(n).unwrap();
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let s = co15::Sender::new(p, co15::SenderInput {}, Rng::from_entropy()).unwrap();
    let r = co15::Receiver::new(
        p,
        co15::ReceiverInput { choices: c.clone() },
        Rng::from_entropy(),
    )
    .unwrap();
    let (so, ro) = std::thread::scope(|sc| {
        let h = sc.spawn(|| s.run(&mut a));
        let ro = r.run(&mut b);
        (h.join().unwrap(), ro)
    });
    check_random_ot(&so.unwrap().messages, &ro.unwrap().chosen, &c);
    let comm = co15::comm(&p);
    // The session binding, then setup: the session salt and A.
    assert_eq!(comm.sender, co15::BINDING_BYTES + 16 + 32);
    assert_eq!(comm.receiver, co15::BINDING_BYTES + 32 * n);
    assert_eq!(a.stats().bytes_sent as usize, comm.sender);
    assert_eq!(b.stats().bytes_sent as usize, comm.receiver);
}

#[test]
fn np00_over_tcp() {
    let n = 129;
    let c = choices(n, 2);
    let p = np00::Params::new(n).unwrap();
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let s = np00::Sender::new(p, np00::SenderInput {}, Rng::from_entropy()).unwrap();
    let r = np00::Receiver::new(
        p,
        np00::ReceiverInput { choices: c.clone() },
        Rng::from_entropy(),
    )
    .unwrap();
    let (so, ro) = std::thread::scope(|sc| {
        let h = sc.spawn(|| s.run(&mut a));
        let ro = r.run(&mut b);
        (h.join().unwrap(), ro)
    });
    check_random_ot(&so.unwrap().messages, &ro.unwrap().chosen, &c);
}

#[test]
fn chosen_message_ot_both_protocols() {
    let n = 100;
    let c = choices(n, 3);
    let mut rng = Rng::from_entropy();
    let payload: Vec<[Block; 2]> = (0..n)
        .map(|_| {
            [
                ot::runtime::primitives::rng::Sample::sample(&mut rng),
                ot::runtime::primitives::rng::Sample::sample(&mut rng),
            ]
        })
        .collect();
    let p = co15_chosen::Params::new(n).unwrap();
    let s = co15_chosen::Sender::new(
        p,
        co15_chosen::SenderInput {
            payload: payload.clone(),
        },
        Rng::from_entropy(),
    )
    .unwrap();
    let r = co15_chosen::Receiver::new(
        p,
        co15_chosen::ReceiverInput { choices: c.clone() },
        Rng::from_entropy(),
    )
    .unwrap();
    let (so, ro) = run_pair(s, r);
    so.unwrap();
    let got = ro.unwrap().received;
    for i in 0..n {
        assert_eq!(got[i], payload[i][usize::from(c.get(i))]);
    }
    let p = np00_chosen::Params::new(n).unwrap();
    let s = np00_chosen::Sender::new(
        p,
        np00_chosen::SenderInput {
            payload: payload.clone(),
        },
        Rng::from_entropy(),
    )
    .unwrap();
    let r = np00_chosen::Receiver::new(
        p,
        np00_chosen::ReceiverInput { choices: c.clone() },
        Rng::from_entropy(),
    )
    .unwrap();
    let (so, ro) = run_pair(s, r);
    so.unwrap();
    let got = ro.unwrap().received;
    for i in 0..n {
        assert_eq!(got[i], payload[i][usize::from(c.get(i))]);
    }
}

#[test]
fn traits_run_both_base_ots() {
    use ot::{BaseOt, BaseOtKind, RandomOtReceiver, RandomOtSender};
    for kind in [BaseOtKind::Co15, BaseOtKind::Np00] {
        let c = choices(40, 4);
        let (mut a, mut b) = MemoryChannel::pair();
        let (m, k) = std::thread::scope(|sc| {
            let h = sc.spawn(|| BaseOt::new(kind).send_random(&mut a, 40));
            let k = BaseOt::new(kind).receive_random(&mut b, &c);
            (h.join().unwrap().unwrap(), k.unwrap())
        });
        check_random_ot(&m, &k, &c);
    }
}

#[test]
fn sans_io_steps_match_driver() {
    // Drive both roles by hand through the typestate API, with the generic send/recv.
    let n = 5;
    let c = choices(n, 5);
    let p = co15::Params::new(n).unwrap();
    let s = co15::Sender::new(p, co15::SenderInput {}, Rng::from_entropy()).unwrap();
    let r = co15::Receiver::new(
        p,
        co15::ReceiverInput { choices: c.clone() },
        Rng::from_entropy(),
    )
    .unwrap();
    let (setup, s): (co15::msgs::Setup, _) = s.send().unwrap();
    let r = r.recv(setup).unwrap();
    let (lo, r) = r.send_choose_lo().unwrap();
    let s = s.recv(lo).unwrap();
    let (hi, r): (co15::msgs::ChooseHi, _) = r.send().unwrap();
    let s = s.recv_choose_hi(hi).unwrap();
    check_random_ot(
        &s.finish().unwrap().messages,
        &r.finish().unwrap().chosen,
        &c,
    );
}

#[test]
fn identity_point_is_the_named_abort() {
    // A sender that sends the identity as A: the receiver must abort with IdentityPoint.
    let n = 4;
    let p = co15::Params::new(n).unwrap();
    let r = co15::Receiver::new(
        p,
        co15::ReceiverInput {
            choices: choices(n, 6),
        },
        Rng::from_entropy(),
    )
    .unwrap();
    let setup = co15::msgs::Setup {
        salt: ot::runtime::Block::ZERO,
        big_a: ot::runtime::primitives::ec::Point::default(),
    };
    match r.recv_setup(setup) {
        Err(co15::Error::IdentityPoint {
            role: "Receiver", ..
        }) => {}
        other => panic!("expected IdentityPoint abort, got {:?}", other.err()),
    }
}

#[test]
fn tampered_point_is_a_typed_decode_error() {
    let n = 8;
    let c = choices(n, 8);
    let p = co15::Params::new(n).unwrap();
    let (a, mut b) = MemoryChannel::pair();
    // Corrupt the sender's first message (salt, A): set A's last byte so it
    // is not a valid encoding.
    let mut a = TamperChannel::new(a, |i: usize, msg: &mut Vec<u8>| {
        if i == 0 {
            msg[16 + 31] = 0xff;
        }
    });
    let s = co15::Sender::new(p, co15::SenderInput {}, Rng::from_entropy()).unwrap();
    let r =
        co15::Receiver::new(p, co15::ReceiverInput { choices: c }, Rng::from_entropy()).unwrap();
    let (so, ro) = std::thread::scope(|sc| {
        let h = sc.spawn(|| s.run(&mut a));
        let ro = r.run(&mut b);
        drop(b);
        (h.join().unwrap(), ro)
    });
    match ro {
        Err(co15::Error::Decode {
            round: "setup",
            field: "big_a",
            ..
        }) => {}
        other => panic!(
            "expected a decode error naming round and field, got {:?}",
            other.err()
        ),
    }
    // The sender sees the receiver hang up: a typed channel error, not a hang.
    assert!(
        matches!(
            so,
            Err(co15::Error::Channel {
                round: "choose_lo",
                ..
            })
        ),
        "{so:?}"
    );
}

#[test]
fn truncated_and_oversized_messages_are_rejected() {
    let n = 3;
    let p = co15::Params::new(n).unwrap();
    let r = co15::Receiver::new(
        p,
        co15::ReceiverInput {
            choices: choices(n, 9),
        },
        Rng::from_entropy(),
    )
    .unwrap();
    let (mut a, mut b) = MemoryChannel::pair();
    // A sender's session binding, then a malformed setup.
    let binding = Binding::new(co15::PROTOCOL, co15::SPEC_HASH, p.encode(), 0);
    binding.send(&mut a).unwrap();
    a.send(&[1u8; 10]).unwrap();
    match r.run(&mut b) {
        Err(co15::Error::Length {
            round: "setup",
            expected: 48,
            got: 10,
        }) => {}
        other => panic!("expected a length error, got {:?}", other.err()),
    }
    let r = co15::Receiver::new(
        p,
        co15::ReceiverInput {
            choices: choices(n, 9),
        },
        Rng::from_entropy(),
    )
    .unwrap();
    binding.send(&mut a).unwrap();
    a.send(&[1u8; 1000]).unwrap();
    assert!(matches!(
        r.run(&mut b),
        Err(co15::Error::Channel { round: "setup", .. })
    ));
}

#[test]
fn wrong_input_shape_and_params_are_typed_errors() {
    assert!(matches!(
        co15::Params::new(0),
        Err(co15::Error::Params {
            requirement: "n >= 1"
        })
    ));
    let p = co15::Params::new(4).unwrap();
    let r = co15::Receiver::new(
        p,
        co15::ReceiverInput {
            choices: choices(5, 1),
        },
        Rng::from_entropy(),
    );
    assert!(matches!(
        r,
        Err(co15::Error::Shape {
            round: "input",
            field: "choices",
            expected: 4,
            got: 5
        })
    ));
}
