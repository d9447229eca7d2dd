//! KKRT and OOS sessions that run the base OTs once and extend many times
//! (`kkrt_setup.otp`, then `kkrt_extend.otp` / `oos_extend.otp` per
//! extension, through `ot::Oprf`): in every extension, over memory and
//! TCP, the receiver's values equal the sender's `encode` at the global
//! index and differ on other inputs; no value repeats across extensions
//! (the same inputs are used in each); each extension sends exactly
//! `comm()` of the extension protocol (no base OTs); mismatched counters
//! are refused with `PeerMismatch { Params }` on both sides; an overflowing
//! counter is refused by `Params::new`; and a tampered second OOS
//! extension is caught by the named check, after which the session
//! refuses further use.

mod common;

use std::collections::HashSet;

use common::{run_pair_tcp, run_tampered};
use ot::runtime::oprf::code::LinearCode;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::bind::{peer_mismatch, Mismatch};
use ot::runtime::transport::channel::Channel;
use ot::runtime::transport::session::run_pair;
use ot::runtime::Block;
use ot::{kkrt_extend, kkrt_setup, oos_extend, ExtSessionPoisoned, Oprf, OtExtension};

/// The sizes of the three extensions of every session test.
const SIZES: [usize; 3] = [1, 127, (1 << 16) + 3];

/// Inputs below 2^76 (OOS choices for BCH(511, 76)); the same prefix in
/// every extension, so a reused PRG output or tweak would show as a
/// repeated value.
fn inputs(n: usize) -> Vec<Block> {
    (0..n as u128)
        .map(|i| Block(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & ((1 << 76) - 1)))
        .collect()
}

/// Bytes each role sends in one extension of `n` instances at counter
/// `first`: `comm()` of the extension protocol.
fn extend_comm(oos: bool, sha1: bool, n: usize, first: usize) -> (u64, u64) {
    let sid = Block::ZERO;
    let c = if oos {
        let c = oos_extend::comm(&oos_extend::Params::new(n, 1, sha1, sid, first).unwrap());
        (c.sender, c.receiver)
    } else {
        let c = kkrt_extend::comm(&kkrt_extend::Params::new(n, 1, sha1, sid, first).unwrap());
        (c.sender, c.receiver)
    };
    (c.0 as u64, c.1 as u64)
}

/// Sets up a session and extends it once per size. The sender (which in
/// the test knows the receiver's inputs) evaluates every instance on the
/// receiver's input and checks sampled instances against other inputs,
/// then hands the batch back (`recycle`); it checks each extension's
/// bytes against `comm()`. The values must agree with the receiver's and
/// never repeat across the session.
fn session_extends(oprf: fn() -> Oprf, oos: bool, sha1: bool, tcp: bool) {
    let sender = |ch: &mut dyn Channel| {
        let mut s = oprf().setup_sender(ch).unwrap();
        let mut evals = Vec::new();
        for &n in &SIZES {
            let (first, before) = (s.extended().unwrap(), ch.stats());
            let batch = s.extend(ch, n).unwrap();
            let after = ch.stats();
            let (cs, cr) = extend_comm(oos, sha1, n, first);
            assert_eq!(after.bytes_sent - before.bytes_sent, cs, "n = {n}");
            assert_eq!(after.bytes_received - before.bytes_received, cr, "n = {n}");
            assert_eq!((batch.first(), batch.len()), (first, n));
            let x = inputs(n);
            let e = batch.encode_many(0, &x, 2);
            for i in (0..n).step_by((n / 61).max(1)) {
                assert_eq!(batch.encode(i, x[i]), Some(e[i]), "instance {i}");
                assert_ne!(batch.encode(i, x[i] ^ Block(1)), Some(e[i]));
                if i + 1 < n {
                    assert_ne!(batch.encode(i + 1, x[i]), Some(e[i]));
                }
            }
            assert_eq!(batch.encode(n, x[0]), None);
            if n > 3 {
                assert_eq!(batch.encode_many(2, &x[2..], 1), e[2..]);
            }
            evals.push(e);
            // The next extension writes into this batch's buffer.
            s.recycle(batch);
        }
        assert_eq!(s.extended(), Some(SIZES.iter().sum()));
        evals
    };
    let receiver = |ch: &mut dyn Channel| {
        let mut r = oprf().setup_receiver(ch).unwrap();
        let mut outs = Vec::new();
        for &n in &SIZES {
            let v = r.extend(ch, &inputs(n)).unwrap();
            outs.push(v.clone());
            r.recycle(v);
        }
        outs
    };
    let (evals, values) = if tcp {
        run_pair_tcp(sender, receiver)
    } else {
        run_tampered(sender, receiver, |_, _| {})
    };
    let mut seen = HashSet::new();
    for ((e, v), &n) in evals.iter().zip(&values).zip(&SIZES) {
        assert_eq!((e.len(), v.len()), (n, n));
        assert_eq!(e, v, "the sender's encode is the receiver's value");
        assert!(
            v.iter().all(|b| seen.insert(b.as_u128())),
            "a repeated value"
        );
    }
}

#[test]
fn kkrt_session_extends_three_times_in_memory() {
    session_extends(Oprf::kkrt, false, false, false);
}

#[test]
fn kkrt_session_extends_three_times_over_tcp() {
    session_extends(Oprf::kkrt, false, false, true);
}

#[test]
fn kkrt_session_with_sha1_and_threads_extends() {
    session_extends(
        || Oprf::kkrt().with_sha1(true).with_threads(2),
        false,
        true,
        false,
    );
}

#[test]
fn oos_session_extends_three_times_in_memory() {
    session_extends(Oprf::oos, true, false, false);
}

#[test]
fn oos_session_extends_three_times_over_tcp() {
    session_extends(Oprf::oos, true, false, true);
}

/// The outputs of one setup (`kkrt_setup.otp` over IKNP-extended base OTs).
fn setup() -> (kkrt_setup::SenderOutput, kkrt_setup::ReceiverOutput) {
    let p = kkrt_setup::Params::new().unwrap();
    let s = kkrt_setup::Sender::new(
        p,
        kkrt_setup::SenderInput {},
        Rng::from_entropy(),
        kkrt_setup::SenderSubs {
            base: Box::new(OtExtension::iknp()),
        },
    )
    .unwrap();
    let r = kkrt_setup::Receiver::new(
        p,
        kkrt_setup::ReceiverInput {},
        Rng::from_entropy(),
        kkrt_setup::ReceiverSubs {
            base: Box::new(OtExtension::iknp()),
        },
    )
    .unwrap();
    let (so, ro) = run_pair(s, r);
    (so.unwrap(), ro.unwrap())
}

/// One KKRT or OOS extension from the given setup outputs with each side's
/// own counter; returns what each side's binding check says.
fn extend_pair(
    (so, ro): &(kkrt_setup::SenderOutput, kkrt_setup::ReceiverOutput),
    oos: bool,
    (sender_first, receiver_first): (usize, usize),
) -> (Option<Mismatch>, Option<Mismatch>) {
    let n = 200;
    if oos {
        use oos_extend as m;
        let code = LinearCode::bch_511_76();
        let s = m::Sender::new(
            m::Params::new(n, 1, false, so.sid, sender_first).unwrap(),
            m::SenderInput {
                code: code.clone(),
                key: so.key,
                base_chosen: so.base_chosen.clone(),
            },
            Rng::from_entropy(),
        )
        .unwrap();
        let r = m::Receiver::new(
            m::Params::new(n, 1, false, ro.sid, receiver_first).unwrap(),
            m::ReceiverInput {
                code,
                choices: inputs(n),
                base_keys: ro.base_keys.clone(),
            },
            Rng::from_entropy(),
        )
        .unwrap();
        let (so, ro) = run_pair(s, r);
        let name = |e: Option<m::Error>| e.and_then(|e| peer_mismatch(&e));
        (name(so.err()), name(ro.err()))
    } else {
        use kkrt_extend as m;
        let s = m::Sender::new(
            m::Params::new(n, 1, false, so.sid, sender_first).unwrap(),
            m::SenderInput {
                key: so.key,
                base_chosen: so.base_chosen.clone(),
            },
            Rng::from_entropy(),
        )
        .unwrap();
        let r = m::Receiver::new(
            m::Params::new(n, 1, false, ro.sid, receiver_first).unwrap(),
            m::ReceiverInput {
                inputs: inputs(n),
                base_keys: ro.base_keys.clone(),
            },
            Rng::from_entropy(),
        )
        .unwrap();
        let (so, ro) = run_pair(s, r);
        let name = |e: Option<m::Error>| e.and_then(|e| peer_mismatch(&e));
        (name(so.err()), name(ro.err()))
    }
}

/// A sender and receiver whose counters differ are refused by the session
/// binding on both sides, for KKRT and OOS; equal counters run.
#[test]
fn mismatched_counters_are_peer_mismatch() {
    let pair = setup();
    let both = Some(Mismatch::Params);
    for oos in [false, true] {
        assert_eq!(extend_pair(&pair, oos, (200, 200)), (None, None));
        assert_eq!(extend_pair(&pair, oos, (0, 200)), (both, both));
        assert_eq!(extend_pair(&pair, oos, (400, 200)), (both, both));
    }
}

/// A counter whose tweaks 4 (first + m) would pass 2^64 is refused by
/// `Params::new`; one just below is accepted.
#[test]
fn overflowing_counter_is_refused() {
    let sid = Block::ZERO;
    let top = usize::MAX / 4;
    for first in [top - 9, usize::MAX - 5, usize::MAX / 2] {
        assert!(kkrt_extend::Params::new(10, 1, false, sid, first).is_err());
        assert!(oos_extend::Params::new(10, 1, false, sid, first).is_err());
    }
    assert!(kkrt_extend::Params::new(10, 1, false, sid, top - 10).is_ok());
    assert!(oos_extend::Params::new(10, 1, false, sid, top - 10).is_ok());
}

/// A receiver whose second extension's matrix has column 5 flipped in
/// rows 0..64 (a column that is no codeword: BCH(511, 76) has minimum
/// distance at least 171) is caught by that extension's check with
/// `CorrelationCheckFailed`; the sender then refuses every further call.
#[test]
fn oos_tampered_second_extension_aborts_and_poisons() {
    let n = 1000;
    // One chunk of `u`: 512 rows of n + 128 columns.
    let row_bytes = 16 * (n + 128usize).div_ceil(128);
    let mut seen = 0;
    let (so, _) = run_tampered(
        |ch| {
            let mut s = Oprf::oos().setup_sender(ch).unwrap();
            s.extend(ch, n).expect("the first extension is untouched");
            let err = s.extend(ch, n).err();
            let again = s.extend(ch, n).err();
            (err, again, s.is_poisoned(), s.extended())
        },
        |ch| {
            let mut r = Oprf::oos().setup_receiver(ch)?;
            r.extend(ch, &inputs(n))?;
            r.extend(ch, &inputs(n))
        },
        move |_, msg| {
            if msg.len() == 512 * row_bytes {
                seen += 1;
                if seen == 2 {
                    for row in 0..64 {
                        msg[row * row_bytes] ^= 1 << 5;
                    }
                }
            }
        },
    );
    let (err, again, poisoned, extended) = so;
    let err = err.expect("the tampered extension must fail");
    assert!(
        matches!(
            err.0.downcast_ref::<oos_extend::Error>(),
            Some(oos_extend::Error::CorrelationCheckFailed { .. })
        ),
        "{err}"
    );
    assert!(poisoned);
    assert_eq!(extended, None);
    let again = again.expect("a poisoned session refuses");
    assert_eq!(
        again.0.downcast_ref::<ExtSessionPoisoned>(),
        Some(&ExtSessionPoisoned::Failed)
    );
}

/// An OOS receiver's choice outside the code's range is refused before
/// anything is sent, and poisons only that party.
#[test]
fn oos_choice_out_of_range_is_a_typed_error() {
    let (_, r) = run_tampered(
        |ch| {
            let mut s = Oprf::oos().setup_sender(ch).unwrap();
            s.extend(ch, 3).err().is_some()
        },
        |ch| {
            let mut r = Oprf::oos().setup_receiver(ch).unwrap();
            let err = r
                .extend(ch, &[Block(1), Block(1 << 100), Block(2)])
                .err()
                .unwrap();
            (err, r.is_poisoned())
        },
        |_, _| {},
    );
    assert!(
        matches!(
            r.0 .0.downcast_ref::<oos_extend::Error>(),
            Some(oos_extend::Error::ChoiceOutOfRange { .. })
        ),
        "{}",
        r.0
    );
    assert!(r.1);
}
