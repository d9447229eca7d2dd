//! KKRT batched OPRF generated from `protocols/kkrt.otp`: the receiver's
//! values equal the sender's OPRF on the receiver's inputs and differ on
//! other inputs; over memory and TCP, with IKNP-extended and direct base OTs.

mod common;

use common::run_pair_tcp;
use ot::kkrt;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::session::run_pair;
use ot::runtime::Block;
use ot::{BaseOt, BaseOtKind, OtExtension};

fn inputs(m: usize, tag: u128) -> Vec<Block> {
    (0..m as u128)
        .map(|i| Block(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ tag))
        .collect()
}

fn parties(
    m: usize,
    threads: usize,
    sha1: bool,
    extended_base: bool,
) -> (
    kkrt::Sender<kkrt::sender_state::SendSession>,
    kkrt::Receiver<kkrt::receiver_state::AwaitSession>,
    Vec<Block>,
) {
    let p = kkrt::Params::new(m, threads, sha1).unwrap();
    let x = inputs(m, 0xfeed);
    // 512 base OTs: IKNP-extended from 128 CO15 OTs, or 512 CO15 OTs.
    let (sb, rb): (
        Box<dyn ot::RandomOtReceiver + Send>,
        Box<dyn ot::RandomOtSender + Send>,
    ) = if extended_base {
        (Box::new(OtExtension::iknp()), Box::new(OtExtension::iknp()))
    } else {
        (
            Box::new(BaseOt::new(BaseOtKind::Co15)),
            Box::new(BaseOt::new(BaseOtKind::Co15)),
        )
    };
    let s = kkrt::Sender::new(
        p,
        kkrt::SenderInput {},
        Rng::from_entropy(),
        kkrt::SenderSubs { base: sb },
    )
    .unwrap();
    let r = kkrt::Receiver::new(
        p,
        kkrt::ReceiverInput { inputs: x.clone() },
        Rng::from_entropy(),
        kkrt::ReceiverSubs { base: rb },
    )
    .unwrap();
    (s, r, x)
}

/// Every value agrees with `encode` on the receiver's input; sampled
/// instances differ on other inputs and on a neighbour's input.
fn check(so: &kkrt::SenderOutput, values: &[Block], x: &[Block]) {
    let m = x.len();
    assert_eq!((so.len(), values.len()), (m, m));
    assert_eq!(so.encode_many(0, x, 2), values, "batched encode");
    let step = (m / 97).max(1);
    for i in (0..m).step_by(step) {
        assert_eq!(so.encode(i, x[i]), Some(values[i]), "instance {i}");
        assert_ne!(so.encode(i, x[i] ^ Block(1)), Some(values[i]));
        assert_ne!(so.encode(i, Block(!x[i].0)), Some(values[i]));
        if m > 1 {
            assert_ne!(so.encode((i + 1) % m, x[i]), Some(values[i]));
        }
    }
    assert_eq!(so.encode(m, x[0]), None);
    // Partial batches start anywhere.
    if m > 3 {
        assert_eq!(so.encode_many(2, &x[2..], 1), values[2..]);
    }
}

#[test]
fn kkrt_all_sizes_in_memory() {
    for m in [1usize, 127, 128, 129, (1 << 16) + 3] {
        let (s, r, x) = parties(m, 1, false, true);
        let (so, ro) = run_pair(s, r);
        check(&so.unwrap(), &ro.unwrap().values, &x);
    }
}

#[test]
fn kkrt_sha1_threads_and_direct_base_ots() {
    let m = 5000;
    let (s, r, x) = parties(m, 2, true, false);
    let (so, ro) = run_pair(s, r);
    check(&so.unwrap(), &ro.unwrap().values, &x);
}

#[test]
fn kkrt_over_tcp_and_comm_matches_spec() {
    for m in [1usize, 129, (1 << 16) + 3] {
        let (s, r, x) = parties(m, 1, false, true);
        let (so, ro) = run_pair_tcp(|ch| s.run(ch), |ch| r.run(ch));
        check(&so.unwrap(), &ro.unwrap().values, &x);
        // After each side's session binding: 512 rows of ceil(m/128)
        // blocks from the receiver, the salt back.
        let comm = kkrt::comm(&kkrt::Params::new(m, 1, false).unwrap());
        let bind = kkrt::BINDING_BYTES;
        assert_eq!(comm.receiver, bind + 512 * m.div_ceil(128) * 16);
        assert_eq!(comm.sender, bind + 16);
    }
}

#[test]
fn kkrt_equal_inputs_get_equal_codewords_but_distinct_values() {
    // The same input in two instances: values differ (the hash binds j).
    let m = 300;
    let p = kkrt::Params::new(m, 1, false).unwrap();
    let x = vec![Block(42); m];
    let s = kkrt::Sender::new(
        p,
        kkrt::SenderInput {},
        Rng::from_entropy(),
        kkrt::SenderSubs {
            base: Box::new(OtExtension::iknp()),
        },
    )
    .unwrap();
    let r = kkrt::Receiver::new(
        p,
        kkrt::ReceiverInput { inputs: x.clone() },
        Rng::from_entropy(),
        kkrt::ReceiverSubs {
            base: Box::new(OtExtension::iknp()),
        },
    )
    .unwrap();
    let (so, ro) = run_pair(s, r);
    let values = ro.unwrap().values;
    check(&so.unwrap(), &values, &x);
    assert_ne!(values[0], values[1]);
}

#[test]
fn kkrt_bad_parameters_and_inputs_are_typed_errors() {
    assert!(matches!(
        kkrt::Params::new(0, 1, false),
        Err(kkrt::Error::Params {
            requirement: "m >= 1"
        })
    ));
    assert!(matches!(
        kkrt::Params::new(5, 0, false),
        Err(kkrt::Error::Params { .. })
    ));
    let p = kkrt::Params::new(5, 1, false).unwrap();
    let r = kkrt::Receiver::new(
        p,
        kkrt::ReceiverInput {
            inputs: inputs(4, 0),
        },
        Rng::from_entropy(),
        kkrt::ReceiverSubs {
            base: Box::new(OtExtension::iknp()),
        },
    );
    assert!(matches!(
        r,
        Err(kkrt::Error::Shape {
            field: "inputs",
            expected: 5,
            got: 4,
            ..
        })
    ));
}
