//! End-to-end tests of the Masny–Rindal endemic OT generated from
//! `protocols/mr19.otp` and `protocols/mr19_chosen.otp`: correctness over
//! in-memory and TCP channels (directly and through `ot::BaseOt`), tampered
//! and identity points from either side, and KOS over its default base OT.

use std::collections::HashSet;

use ot::runtime::primitives::ec::Point;
use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::transport::channel::{local_pair_tcp, Channel, MemoryChannel, TamperChannel};
use ot::runtime::transport::session::{run_pair, run_pair_over};
use ot::runtime::{Bits, Block};
use ot::{kos, mr19, mr19_chosen, BaseOt, BaseOtKind};

fn choices(n: usize, seed: u64) -> Bits {
    let mut rng = Rng::deterministic_for_tests(seed);
    Bits::random(&mut rng, n)
}

fn payload(n: usize) -> Vec<[Block; 2]> {
    let mut rng = Rng::from_entropy();
    (0..n)
        .map(|_| [Block::sample(&mut rng), Block::sample(&mut rng)])
        .collect()
}

/// The receiver holds the sender's key of its choice, not the other one,
/// and no two keys of the run coincide.
fn check_random_ot(messages: &[[Block; 2]], chosen: &[Block], c: &Bits) {
    assert_eq!(messages.len(), c.len());
    assert_eq!(chosen.len(), c.len());
    for i in 0..c.len() {
        let b = usize::from(c.get(i));
        assert_eq!(chosen[i], messages[i][b], "OT {i}: wrong key");
        assert_ne!(chosen[i], messages[i][1 - b], "OT {i}: both keys equal");
    }
    let distinct: HashSet<u128> = messages
        .iter()
        .flat_map(|m| m.iter().map(|k| k.as_u128()))
        .collect();
    assert_eq!(distinct.len(), 2 * c.len(), "keys of different OTs collide");
}

fn pair(
    n: usize,
    c: &Bits,
) -> (
    mr19::Sender<mr19::sender_state::SendSetup>,
    mr19::Receiver<mr19::receiver_state::AwaitSetup>,
) {
    let p = mr19::Params::new(n).unwrap();
    let s = mr19::Sender::new(p, mr19::SenderInput {}, Rng::from_entropy()).unwrap();
    let r = mr19::Receiver::new(
        p,
        mr19::ReceiverInput { choices: c.clone() },
        Rng::from_entropy(),
    )
    .unwrap();
    (s, r)
}

#[test]
fn random_ot_in_memory_all_sizes() {
    for n in [1usize, 2, 3, 128, 1000] {
        let c = choices(n, n as u64);
        let (s, r) = pair(n, &c);
        let (so, ro) = run_pair(s, r);
        check_random_ot(&so.unwrap().messages, &ro.unwrap().chosen, &c);
    }
}

#[test]
fn all_zero_and_all_one_choices() {
    for bit in [false, true] {
        let n = 17;
        let c = Bits::from_bools(&[bit; 17]);
        let (s, r) = pair(n, &c);
        let (so, ro) = run_pair(s, r);
        check_random_ot(&so.unwrap().messages, &ro.unwrap().chosen, &c);
    }
}

#[test]
fn chosen_message_ot() {
    for n in [1usize, 3, 100] {
        let c = choices(n, 3 + n as u64);
        let data = payload(n);
        let p = mr19_chosen::Params::new(n).unwrap();
        let s = mr19_chosen::Sender::new(
            p,
            mr19_chosen::SenderInput {
                payload: data.clone(),
            },
            Rng::from_entropy(),
        )
        .unwrap();
        let r = mr19_chosen::Receiver::new(
            p,
            mr19_chosen::ReceiverInput { choices: c.clone() },
            Rng::from_entropy(),
        )
        .unwrap();
        let (so, ro) = run_pair(s, r);
        so.unwrap();
        let got = ro.unwrap().received;
        assert_eq!(got.len(), n);
        for i in 0..n {
            assert_eq!(got[i], data[i][usize::from(c.get(i))], "OT {i}");
        }
    }
}

#[test]
fn over_tcp_and_comm_matches_spec() {
    let n = 128;
    let c = choices(n, 1);
    let (s, r) = pair(n, &c);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let (so, ro) = run_pair_over(s, r, &mut a, &mut b);
    check_random_ot(&so.unwrap().messages, &ro.unwrap().chosen, &c);
    let comm = mr19::comm(&mr19::Params::new(n).unwrap());
    // Each side's session binding, then its messages.
    assert_eq!(comm.sender, mr19::BINDING_BYTES + 16 + 32);
    assert_eq!(comm.receiver, mr19::BINDING_BYTES + 64 * n);
    assert_eq!(a.stats().bytes_sent as usize, comm.sender);
    assert_eq!(b.stats().bytes_sent as usize, comm.receiver);
}

#[test]
fn base_ot_traits_over_tcp() {
    use ot::{OtReceiver, OtSender, RandomOtReceiver, RandomOtSender};
    let n = 130;
    let c = choices(n, 2);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    // Random OT, then chosen-message OT, on the same connection.
    let data = payload(n);
    let (m, k, got) = std::thread::scope(|sc| {
        let h = sc.spawn(|| {
            let mut s = BaseOt::new(BaseOtKind::Mr19);
            let m = s.send_random(&mut a, n)?;
            s.send(&mut a, &data)?;
            Ok::<_, ot::OtError>(m)
        });
        let mut r = BaseOt::new(BaseOtKind::Mr19);
        let k = r.receive_random(&mut b, &c).unwrap();
        let got = r.receive(&mut b, &c).unwrap();
        (h.join().unwrap().unwrap(), k, got)
    });
    check_random_ot(&m, &k, &c);
    for i in 0..n {
        assert_eq!(got[i], data[i][usize::from(c.get(i))], "OT {i}");
    }
}

#[test]
fn malformed_point_from_the_receiver_is_a_typed_decode_error() {
    let n = 8;
    // (message index, byte to corrupt, round, field): the last byte of the
    // first point of each field; 0xff there makes the encoding
    // non-canonical (at least 2^255).
    let cases = [
        (0usize, 31usize, "choose_lo", "r0_lo"),
        (0, 32 * (n / 2) + 31, "choose_lo", "r1_lo"),
        (1, 31, "choose_hi", "r0_hi"),
        (1, 32 * (n - n / 2) + 31, "choose_hi", "r1_hi"),
    ];
    for (msg_index, byte, round, field) in cases {
        let c = choices(n, 8);
        let (s, r) = pair(n, &c);
        let (mut a, b) = MemoryChannel::pair();
        let mut b = TamperChannel::new(b, move |i: usize, msg: &mut Vec<u8>| {
            if i == msg_index {
                msg[byte] = 0xff;
            }
        });
        let (so, ro) = std::thread::scope(|sc| {
            let h = sc.spawn(|| r.run(&mut b));
            let so = s.run(&mut a);
            drop(a);
            (so, h.join().unwrap())
        });
        match so {
            Err(mr19::Error::Decode {
                round: r, field: f, ..
            }) if r == round && f == field => {}
            other => panic!(
                "expected a decode error in round {round}, field {field}, got {:?}",
                other.err()
            ),
        }
        // The receiver finishes, or sees the sender hang up while it still
        // sends: no panic, no hang.
        assert!(
            matches!(ro, Ok(_) | Err(mr19::Error::Channel { .. })),
            "{:?}",
            ro.err()
        );
    }
}

#[test]
fn identity_a_is_the_named_abort() {
    let n = 5;
    let c = choices(n, 6);
    let (s, r) = pair(n, &c);
    let (a, mut b) = MemoryChannel::pair();
    // The sender's first message is salt (16 bytes) then A (32 bytes):
    // replace A by the identity's encoding, 32 zero bytes.
    let mut a = TamperChannel::new(a, |i: usize, msg: &mut Vec<u8>| {
        if i == 0 {
            msg[16..48].fill(0);
        }
    });
    let (so, ro) = std::thread::scope(|sc| {
        let h = sc.spawn(|| s.run(&mut a));
        let ro = r.run(&mut b);
        drop(b);
        (h.join().unwrap(), ro)
    });
    match ro {
        Err(mr19::Error::IdentityPoint {
            role: "Receiver", ..
        }) => {}
        other => panic!("expected IdentityPoint, got {:?}", other.err()),
    }
    // The sender sees the receiver hang up: a typed channel error.
    assert!(
        matches!(
            so,
            Err(mr19::Error::Channel {
                round: "choose_lo",
                ..
            })
        ),
        "{so:?}"
    );
}

#[test]
fn identity_b_is_the_sender_abort() {
    // A receiver that sets r0 = -H_G(salt, 0, 1, r1) makes B^0 the identity
    // (a public key): the sender must abort with IdentityPoint.
    let n = 4;
    let p = mr19::Params::new(n).unwrap();
    let s = mr19::Sender::new(p, mr19::SenderInput {}, Rng::from_entropy()).unwrap();
    let (setup, s) = s.send_setup().unwrap();
    let mut rng = Rng::from_entropy();
    let r1: Vec<Point> = (0..n / 2)
        .map(|_| ot::runtime::primitives::ec::random_point(&mut rng))
        .collect();
    let h = ot::runtime::otext::endemic::hash_to_group(setup.salt, 0, true, &r1);
    let mut r0: Vec<Point> = (0..n / 2)
        .map(|_| ot::runtime::primitives::ec::random_point(&mut rng))
        .collect();
    r0[1] = -h[1];
    let msg = mr19::msgs::ChooseLo {
        r0_lo: r0,
        r1_lo: r1,
    };
    match s.recv_choose_lo(msg) {
        Err(mr19::Error::IdentityPoint { role: "Sender", .. }) => {}
        other => panic!("expected IdentityPoint, got {:?}", other.err()),
    }
}

#[test]
fn truncated_message_is_a_length_error() {
    let n = 6;
    let c = choices(n, 9);
    let (_, r) = pair(n, &c);
    let (mut a, mut b) = MemoryChannel::pair();
    // A sender's session binding, then a short setup.
    let p = mr19::Params::new(n).unwrap();
    ot::runtime::transport::bind::Binding::new(mr19::PROTOCOL, mr19::SPEC_HASH, p.encode(), 0)
        .send(&mut a)
        .unwrap();
    a.send(&[7u8; 40]).unwrap();
    match r.run(&mut b) {
        Err(mr19::Error::Length {
            round: "setup",
            expected: 48,
            got: 40,
        }) => {}
        other => panic!("expected a length error, got {:?}", other.err()),
    }
}

#[test]
fn kos_runs_over_its_default_base_mr19() {
    use ot::{OtExtension, RandomOtReceiver, RandomOtSender};
    let m = 300;
    let r = choices(m, 10);
    // Default KOS on both sides.
    let (mut a, mut b) = MemoryChannel::pair();
    let (y, x) = std::thread::scope(|sc| {
        let h = sc.spawn(|| OtExtension::kos().send_random(&mut a, m));
        let x = OtExtension::kos().receive_random(&mut b, &r);
        (h.join().unwrap().unwrap(), x.unwrap())
    });
    for i in 0..m {
        let c = usize::from(r.get(i));
        assert_eq!(x[i], y[i][c], "OT {i}");
        assert_ne!(x[i], y[i][1 - c], "OT {i}");
    }
    // The default is MR19: a default KOS sender interoperates with a KOS
    // receiver whose base OT is explicitly MR19 (over TCP).
    let p = kos::Params::new(m, 1, false).unwrap();
    let rc = kos::Receiver::new(
        p,
        kos::ReceiverInput { r: r.clone() },
        Rng::from_entropy(),
        kos::ReceiverSubs {
            base: Box::new(BaseOt::new(BaseOtKind::Mr19)),
        },
    )
    .unwrap();
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let (y, x) = std::thread::scope(|sc| {
        let h = sc.spawn(|| OtExtension::kos().send_random(&mut a, m));
        let x = rc.run(&mut b);
        (h.join().unwrap().unwrap(), x.unwrap().x)
    });
    for i in 0..m {
        assert_eq!(x[i], y[i][usize::from(r.get(i))], "OT {i}");
    }
}

/// Every MR19 message decoder fed random bytes returns `Ok` (and then
/// re-encodes to the same bytes) or a typed `Err`, never panics.
macro_rules! fuzz_decoder {
    ($name:ident, $proto:ident, $msg:ident) => {
        proptest::proptest! {
            #![proptest_config(proptest::prelude::ProptestConfig::with_cases(128))]
            #[test]
            fn $name(
                n in 1usize..24,
                bytes in proptest::collection::vec(proptest::prelude::any::<u8>(), 0..1600),
                exact in proptest::prelude::any::<bool>(),
            ) {
                let params = ot::$proto::Params::new(n).unwrap();
                let want = ot::$proto::msgs::$msg::wire_len(&params);
                let mut bytes = bytes;
                if exact {
                    bytes.resize(want, 0x5a);
                }
                match ot::$proto::msgs::$msg::decode(&bytes, &params) {
                    Ok(m) => {
                        let mut out = Vec::new();
                        m.encode(&params, &mut out).unwrap();
                        proptest::prop_assert_eq!(out, bytes);
                    }
                    Err(e) => {
                        let text = e.to_string();
                        proptest::prop_assert!(text.contains(ot::$proto::PROTOCOL), "{}", text);
                        proptest::prop_assert!(text.contains("round"), "{}", text);
                    }
                }
            }
        }
    };
}

fuzz_decoder!(fuzz_setup, mr19, Setup);
fuzz_decoder!(fuzz_choose_lo, mr19, ChooseLo);
fuzz_decoder!(fuzz_choose_hi, mr19, ChooseHi);
fuzz_decoder!(fuzz_chosen_masked, mr19_chosen, Masked);
