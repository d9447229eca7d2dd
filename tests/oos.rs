//! OOS malicious 1-out-of-N OT generated from `protocols/oos.otp`, over
//! BCH(511, 76): outputs agree with the sender's evaluation on the
//! receiver's choice and differ elsewhere (memory and TCP); a receiver
//! whose columns are not codewords, or whose check values are tampered
//! with, is caught with `CorrelationCheckFailed`; bad inputs are typed
//! errors.

mod common;

use common::{run_pair_tcp, run_tampered};
use ot::oos;
use ot::runtime::oprf::code::{CodeError, LinearCode};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::session::run_pair;
use ot::runtime::Block;
use ot::{BaseOt, BaseOtKind, OtExtension};

/// Choices below 2^76.
fn choices(m: usize) -> Vec<Block> {
    (0..m as u128)
        .map(|i| Block(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & ((1 << 76) - 1)))
        .collect()
}

type Parties = (
    oos::Sender<oos::sender_state::SendSession>,
    oos::Receiver<oos::receiver_state::AwaitSession>,
);

fn parties(
    m: usize,
    threads: usize,
    sha1: bool,
    receiver_code: LinearCode,
    w: &[Block],
) -> Parties {
    let p = oos::Params::new(m, threads, sha1).unwrap();
    let s = oos::Sender::new(
        p,
        oos::SenderInput {
            code: LinearCode::bch_511_76(),
        },
        Rng::from_entropy(),
        oos::SenderSubs {
            base: Box::new(OtExtension::kos()),
        },
    )
    .unwrap();
    let r = oos::Receiver::new(
        p,
        oos::ReceiverInput {
            code: receiver_code,
            choices: w.to_vec(),
        },
        Rng::from_entropy(),
        oos::ReceiverSubs {
            base: Box::new(OtExtension::kos()),
        },
    )
    .unwrap();
    (s, r)
}

fn check(so: &oos::SenderOutput, values: &[Block], w: &[Block]) {
    let m = w.len();
    assert_eq!((so.len(), values.len()), (m, m));
    assert_eq!(so.encode_many(0, w, 2), values, "batched encode");
    for i in (0..m).step_by((m / 97).max(1)) {
        assert_eq!(so.encode(i, w[i]), Some(values[i]), "instance {i}");
        assert_ne!(so.encode(i, w[i] ^ Block(1 << 75)), Some(values[i]));
        assert_ne!(so.encode(i, w[i] ^ Block(1)), Some(values[i]));
    }
    assert_eq!(so.encode(m, w[0]), None);
}

#[test]
fn oos_all_sizes_in_memory() {
    for m in [1usize, 127, 128, 129, (1 << 16) + 3] {
        let w = choices(m);
        let (s, r) = parties(m, 1, false, LinearCode::bch_511_76(), &w);
        let (so, ro) = run_pair(s, r);
        check(&so.unwrap(), &ro.unwrap().values, &w);
    }
}

#[test]
fn oos_sha1_threads_and_mr19_base_ots() {
    let m = 3000;
    let w = choices(m);
    let p = oos::Params::new(m, 2, true).unwrap();
    let code = LinearCode::bch_511_76();
    let s = oos::Sender::new(
        p,
        oos::SenderInput { code: code.clone() },
        Rng::from_entropy(),
        oos::SenderSubs {
            base: Box::new(BaseOt::new(BaseOtKind::Mr19)),
        },
    )
    .unwrap();
    let r = oos::Receiver::new(
        p,
        oos::ReceiverInput {
            code,
            choices: w.clone(),
        },
        Rng::from_entropy(),
        oos::ReceiverSubs {
            base: Box::new(BaseOt::new(BaseOtKind::Mr19)),
        },
    )
    .unwrap();
    let (so, ro) = run_pair(s, r);
    check(&so.unwrap(), &ro.unwrap().values, &w);
}

#[test]
fn oos_over_tcp_and_comm_matches_spec() {
    for m in [1usize, 129, (1 << 16) + 3] {
        let w = choices(m);
        let (s, r) = parties(m, 1, false, LinearCode::bch_511_76(), &w);
        let (so, ro) = run_pair_tcp(|ch| s.run(ch), |ch| r.run(ch));
        check(&so.unwrap(), &ro.unwrap().values, &w);
        let comm = oos::comm(&oos::Params::new(m, 1, false).unwrap());
        // After each side's session binding: u, 512 rows of
        // ceil((m + 128)/128) blocks; the check: 128 + 512 blocks.
        let bind = oos::BINDING_BYTES;
        assert_eq!(
            comm.receiver,
            bind + 512 * (m + 128).div_ceil(128) * 16 + 640 * 16
        );
        assert_eq!(comm.sender, bind + 32);
    }
}

/// Bytes of one full `extend` chunk: 512 rows x 4096 columns.
const FULL_CHUNK: usize = 512 * 4096 / 8;

fn assert_abort(so: Result<oos::SenderOutput, oos::Error>, what: &str) {
    match so {
        Err(oos::Error::CorrelationCheckFailed { role: "Sender", .. }) => {}
        Err(e) => panic!("{what}: expected CorrelationCheckFailed, got {e}"),
        Ok(_) => panic!("{what}: the check passed"),
    }
}

#[test]
fn oos_catches_columns_that_are_not_codewords() {
    // The receiver's first chunk of `u`, with column 5 of rows 0..64 flipped
    // on the wire: that column is C(w_5) plus a weight-64 error, no codeword
    // (distance >= 171); the check fails unless s is 0 on all 64 rows.
    let m = 10_000;
    let w = choices(m);
    let (s, r) = parties(m, 1, false, LinearCode::bch_511_76(), &w);
    let mut done = false;
    let (so, _ro) = run_tampered(
        |ch| s.run(ch),
        |ch| r.run(ch),
        move |_, frame: &mut Vec<u8>| {
            if !done && frame.len() == FULL_CHUNK {
                let row_bytes = FULL_CHUNK / 512;
                for i in 0..64 {
                    frame[i * row_bytes] ^= 1 << 5;
                }
                done = true;
            }
        },
    );
    assert_abort(so, "non-codeword column");
}

#[test]
fn oos_catches_tampered_check_values() {
    let m = 1000;
    let check_len = 640 * 16;
    for (pos, what) in [(5usize, "x~"), (128 * 16 + 300, "t~")] {
        let w = choices(m);
        let (s, r) = parties(m, 1, false, LinearCode::bch_511_76(), &w);
        let (so, _ro) = run_tampered(
            |ch| s.run(ch),
            |ch| r.run(ch),
            move |_, frame: &mut Vec<u8>| {
                if frame.len() == check_len {
                    frame[pos] ^= 0x10;
                }
            },
        );
        assert_abort(so, what);
    }
}

#[test]
fn oos_parties_with_different_codes_abort() {
    // Same dimension, another code: the session ids (which hash the code)
    // differ, so the challenges do and the check fails.
    let other = LinearCode::parse(
        &LinearCode::bch_511_76()
            .to_text()
            .lines()
            .map(|l| format!("{}1", &l[..510]))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let m = 500;
    let w = choices(m);
    let (s, r) = parties(m, 1, false, other, &w);
    let (so, _ro) = run_pair(s, r);
    assert_abort(so, "different codes");
}

#[test]
fn oos_bad_inputs_are_typed_errors() {
    // A choice outside the code's 2^76 messages: refused before sending.
    let p = oos::Params::new(3, 1, false).unwrap();
    let r = oos::Receiver::new(
        p,
        oos::ReceiverInput {
            code: LinearCode::bch_511_76(),
            choices: vec![Block(1), Block(1 << 76), Block(2)],
        },
        Rng::from_entropy(),
        oos::ReceiverSubs {
            base: Box::new(OtExtension::kos()),
        },
    );
    assert!(matches!(
        r,
        Err(oos::Error::ChoiceOutOfRange {
            role: "Receiver",
            ..
        })
    ));
    assert!(matches!(
        oos::Params::new(0, 1, false),
        Err(oos::Error::Params { .. })
    ));
    // Malformed generator matrices.
    assert_eq!(
        LinearCode::parse("101\n10\n").unwrap_err(),
        CodeError::RowLength {
            line: 2,
            expected: 3,
            got: 2
        }
    );
    let e = LinearCode::parse("10a\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "linear code: line 1, column 3: unexpected character 'a' (rows are 0s and 1s)"
    );
    // A code of dimension 8 takes choices below 2^8.
    let small = LinearCode::parse(
        &(0..8)
            .map(|l| {
                (0..64)
                    .map(|i| {
                        if i / 8 == l || (i + l) % 7 == 0 {
                            '1'
                        } else {
                            '0'
                        }
                    })
                    .collect::<String>()
            })
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    assert!(small.messages_in_range(&[Block(255)]));
    assert!(!small.messages_in_range(&[Block(256)]));
}

#[test]
fn oos_with_a_small_loaded_code() {
    // Any code from its generator matrix: the [511, 76] BCH code read back
    // from text runs the protocol like the built-in one.
    let code = LinearCode::parse(&LinearCode::bch_511_76().to_text()).unwrap();
    let m = 1000;
    let w = choices(m);
    let (s, r) = parties(m, 1, false, code, &w);
    let (so, ro) = run_pair(s, r);
    check(&so.unwrap(), &ro.unwrap().values, &w);
}
