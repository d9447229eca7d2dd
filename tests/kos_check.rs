//! The corrected KOS consistency check [KOS15 revised, eprint 2015/546,
//! Fig. 10] against receivers that cheat through a tampering channel: KOS
//! random OT, KOS chosen-message OT and Delta-KOS; inconsistent choice bits
//! in one row, in several rows and in the padding columns.

mod common;

use common::{choices, co15_base as base, delta_bases, run_tampered};
use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::{Bits, Block};
use ot::{delta_kos, kos, kos_chosen};

/// Index of the receiver's (first) `extend` frame on its channel: the
/// CO15 base OTs come first (the extension receiver is the base-OT sender:
/// one frame).
const EXTEND_MSG: usize = 1;

/// Padding columns of the KOS family (`const EXTRA` in kos.otp).
const EXTRA: usize = 128;

/// Flips bit `col` of `u` in each of `rows`: the receiver then behaves as
/// if it used the other choice bit for OT `col` in those rows only.
fn flip(m: usize, rows: Vec<usize>, col: usize) -> impl FnMut(usize, &mut Vec<u8>) + Send {
    let row_bytes = 16 * (m + EXTRA).div_ceil(128);
    move |i, msg| {
        if i == EXTEND_MSG {
            for &row in &rows {
                msg[row * row_bytes + col / 8] ^= 1 << (col % 8);
            }
        }
    }
}

fn kos_run(
    m: usize,
    r: Bits,
    tamper: impl FnMut(usize, &mut Vec<u8>) + Send,
) -> (
    Result<kos::SenderOutput, kos::Error>,
    Result<kos::ReceiverOutput, kos::Error>,
) {
    let p = kos::Params::new(m, 1, false).unwrap();
    run_tampered(
        |ch| {
            kos::Sender::new(
                p,
                kos::SenderInput {},
                Rng::from_entropy(),
                kos::SenderSubs { base: base() },
            )?
            .run(ch)
        },
        |ch| {
            kos::Receiver::new(
                p,
                kos::ReceiverInput { r },
                Rng::from_entropy(),
                kos::ReceiverSubs { base: base() },
            )?
            .run(ch)
        },
        tamper,
    )
}

fn assert_kos_abort(so: Result<kos::SenderOutput, kos::Error>, what: &str) {
    match so {
        Err(kos::Error::CorrelationCheckFailed { role: "Sender", .. }) => {}
        other => panic!(
            "{what}: expected CorrelationCheckFailed, got {:?}",
            other.err()
        ),
    }
}

/// Inconsistent choice bits in 64 rows of one column (a data column or a
/// padding column): the check fails unless all 64 of those rows have
/// `s_j = 0` (probability 2^-64).
#[test]
fn kos_catches_several_inconsistent_rows_in_data_and_padding_columns() {
    for m in [200usize, 4096] {
        for col in [0usize, 3, m - 1, m, m + 5, m + EXTRA - 1] {
            let (so, _) = kos_run(m, choices(m), flip(m, (0..64).collect(), col));
            assert_kos_abort(so, &format!("m={m} col={col}"));
        }
    }
    // Rows spread over the matrix, several columns at once.
    let m = 1000;
    let (so, _) = kos_run(m, choices(m), move |i, msg| {
        for col in [10, 500, m + 64] {
            flip(m, (0..128).step_by(3).collect(), col)(i, msg);
        }
    });
    assert_kos_abort(so, "spread rows");
}

/// One inconsistent row j is caught exactly when the sender's `s_j = 1`
/// (when `s_j = 0` the sender's row ignores `u^j`, and the outputs stay
/// correct): the selective-failure leakage the functionality allows.
/// Over 24 runs both outcomes must occur, and a run that passes must give
/// correct outputs.
#[test]
fn kos_one_inconsistent_row_is_caught_when_it_matters() {
    let m = 300;
    let (mut aborted, mut passed) = (0, 0);
    for run in 0..24 {
        let r = choices(m);
        let (so, ro) = kos_run(m, r.clone(), flip(m, vec![run % 128], 17));
        match so {
            Err(kos::Error::CorrelationCheckFailed { .. }) => aborted += 1,
            Ok(so) => {
                let x = ro.unwrap().x;
                for (i, (xi, yi)) in x.iter().zip(&so.y).enumerate() {
                    assert_eq!(*xi, yi[usize::from(r.get(i))], "run {run} OT {i}");
                }
                passed += 1;
            }
            Err(e) => panic!("run {run}: {e}"),
        }
    }
    assert!(
        aborted > 0 && passed > 0,
        "aborted {aborted}, passed {passed}"
    );
}

#[test]
fn kos_chosen_catches_inconsistent_rows() {
    let m = 700;
    for col in [1usize, m + 9] {
        let p = kos_chosen::Params::new(m, 1, false).unwrap();
        let payload = vec![[Block(1), Block(2)]; m];
        let r = choices(m);
        let (so, _ro) = run_tampered(
            |ch| {
                kos_chosen::Sender::new(
                    p,
                    kos_chosen::SenderInput { payload },
                    Rng::from_entropy(),
                    kos_chosen::SenderSubs { base: base() },
                )?
                .run(ch)
            },
            |ch| {
                kos_chosen::Receiver::new(
                    p,
                    kos_chosen::ReceiverInput { r },
                    Rng::from_entropy(),
                    kos_chosen::ReceiverSubs { base: base() },
                )?
                .run(ch)
            },
            flip(m, (0..64).collect(), col),
        );
        assert!(
            matches!(so, Err(kos_chosen::Error::CorrelationCheckFailed { .. })),
            "col {col}: {:?}",
            so.err()
        );
    }
}

/// One Delta-KOS batch whose `extend` frame (the first frame on the
/// receiver's channel: the base OTs ran before) goes through `tamper`.
fn delta_kos_run(
    m: usize,
    delta: Block,
    r: &Bits,
    tamper: impl FnMut(usize, &mut Vec<u8>) + Send,
) -> (
    Result<delta_kos::SenderOutput, delta_kos::Error>,
    Result<delta_kos::ReceiverOutput, delta_kos::Error>,
) {
    let (chosen, keys) = delta_bases(delta);
    let p = delta_kos::Params::new(m, 1, 0).unwrap();
    let mut tamper = tamper;
    run_tampered(
        |ch| {
            delta_kos::Sender::new(
                p,
                delta_kos::SenderInput {
                    delta,
                    base_chosen: chosen,
                },
                Rng::from_entropy(),
            )?
            .run(ch)
        },
        |ch| {
            delta_kos::Receiver::new(
                p,
                delta_kos::ReceiverInput {
                    r: r.clone(),
                    base_keys: keys,
                },
                Rng::from_entropy(),
            )?
            .run(ch)
        },
        // No base-OT frame here: the extend frame is frame 0.
        move |i, msg| tamper(i + EXTEND_MSG, msg),
    )
}

/// With Delta known, a single inconsistent row is deterministic: caught iff
/// the row's bit of Delta is 1; otherwise the correlation is intact.
#[test]
fn delta_kos_one_row_several_rows_and_padding() {
    let m = 1000;
    // Bit 1 of Delta set, bit 0 clear, bits 2.. random.
    let delta = Block(Block::sample(&mut Rng::from_entropy()).as_u128() & !1 | 2);
    let r = choices(m);
    // Row 1 (Delta bit 1): caught, in a data column and a padding column.
    for col in [40, m + 3] {
        let (so, _) = delta_kos_run(m, delta, &r, flip(m, vec![1], col));
        assert!(
            matches!(so, Err(delta_kos::Error::CorrelationCheckFailed { .. })),
            "row 1 col {col}: {:?}",
            so.err()
        );
    }
    // Row 0 (Delta bit 0): the sender's row ignores u^0; the outputs hold.
    let (so, ro) = delta_kos_run(m, delta, &r, flip(m, vec![0], 40));
    let (z, t) = (so.unwrap().zeros, ro.unwrap().chosen);
    for i in 0..m {
        assert_eq!(t[i], if r.get(i) { z[i] ^ delta } else { z[i] });
    }
    // Several rows, one of them with its Delta bit set.
    let (so, _) = delta_kos_run(m, delta, &r, flip(m, vec![0, 1, 64, 127], 999));
    assert!(matches!(
        so,
        Err(delta_kos::Error::CorrelationCheckFailed { .. })
    ));
    // Honest batches pass for every size.
    for m in [1usize, 127, 128, 129, (1 << 16) + 3] {
        let r = choices(m);
        let (so, ro) = delta_kos_run(m, delta, &r, |_, _| {});
        let (z, t) = (so.unwrap().zeros, ro.unwrap().chosen);
        for i in (0..m).step_by(7) {
            assert_eq!(t[i], if r.get(i) { z[i] ^ delta } else { z[i] });
        }
    }
}

/// A tampered check value (the receiver's t~ for one row) is caught too.
#[test]
fn kos_tampered_check_values_abort() {
    let m = 500;
    // Receiver frames: base setup (0), extend (1), correlation (2).
    let (so, _) = kos_run(m, choices(m), |i, msg| {
        if i == 2 {
            msg[16 + 5] ^= 4;
        }
    });
    assert_kos_abort(so, "tampered t~");
    let (so, _) = kos_run(m, choices(m), |i, msg| {
        if i == 2 {
            msg[0] ^= 1;
        }
    });
    // Flipping x~ is caught unless s is all zero.
    assert_kos_abort(so, "tampered x~");
}
