//! OT-extension sessions that run the base OTs once and extend many times
//! (`iknp_setup.otp`, then `iknp_extend.otp` / `kos_extend.otp` per
//! extension; Delta-OT through `ot::DeltaOtSender`): correct OTs in every
//! extension over memory and TCP, outputs of different extensions
//! independent, exactly `comm()` of the extension protocol per extension
//! (no base OTs), mismatched counters or setups refused with
//! `PeerMismatch`, and a tampered matrix in a later KOS extension caught by
//! the named abort, after which the session refuses further use.

mod common;

use std::collections::HashSet;

use common::{choices, co15_base, delta_bases, run_pair_tcp, run_tampered};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::bind::{peer_mismatch, Mismatch};
use ot::runtime::transport::channel::Channel;
use ot::runtime::transport::session::run_pair;
use ot::runtime::{Bits, Block};
use ot::{
    delta_iknp, iknp_extend, iknp_setup, kos_extend, CorrelatedOtReceiver, CorrelatedOtSender,
    DeltaOtReceiver, DeltaOtSender, ExtSessionPoisoned, OtExtension,
};

/// The sizes of the three extensions of every session test.
const SIZES: [usize; 3] = [1, 127, (1 << 16) + 3];

/// Bytes each role sends in one extension of `n` OTs: `comm()` of the
/// extension protocol (`malicious`: KOS) at counter `first`.
fn extend_comm(malicious: bool, sha1: bool, n: usize, first: usize) -> (u64, u64) {
    let sid = Block::from(0u128);
    if malicious {
        let c = kos_extend::comm(&kos_extend::Params::new(n, 1, sha1, sid, first).unwrap());
        (c.sender as u64, c.receiver as u64)
    } else {
        let c = iknp_extend::comm(&iknp_extend::Params::new(n, 1, sha1, sid, first).unwrap());
        (c.sender as u64, c.receiver as u64)
    }
}

/// Sets up a session with `ext` and extends it once per size; checks each
/// extension's OTs, that each sends exactly `comm()` of the extension
/// protocol, and that no output block repeats across the session.
fn session_extends(ext: fn() -> OtExtension, malicious: bool, sha1: bool, tcp: bool) {
    let rs: Vec<Bits> = SIZES.iter().map(|&n| choices(n)).collect();
    let sender = |ch: &mut dyn Channel| {
        let mut s = ext().setup_sender(ch).unwrap();
        let mut outs = Vec::new();
        for &n in &SIZES {
            let (first, before) = (s.extended().unwrap(), ch.stats());
            outs.push(s.extend(ch, n).unwrap());
            // The next extension writes into a (differently sized) buffer.
            s.recycle(outs[outs.len() - 1].clone());
            let after = ch.stats();
            let (cs, cr) = extend_comm(malicious, sha1, n, first);
            assert_eq!(
                after.bytes_sent - before.bytes_sent,
                cs,
                "sender bytes, n = {n}"
            );
            assert_eq!(after.bytes_received - before.bytes_received, cr, "n = {n}");
        }
        assert_eq!(s.extended(), Some(SIZES.iter().sum()));
        outs
    };
    let receiver = |ch: &mut dyn Channel| {
        let mut r = ext().setup_receiver(ch).unwrap();
        let mut outs = Vec::new();
        for c in &rs {
            outs.push(r.extend(ch, c).unwrap());
            r.recycle(outs[outs.len() - 1].clone());
        }
        outs
    };
    let (ys, xs) = if tcp {
        run_pair_tcp(sender, receiver)
    } else {
        run_tampered(sender, receiver, |_, _| {})
    };
    let mut seen = HashSet::new();
    for ((y, x), r) in ys.iter().zip(&xs).zip(&rs) {
        assert_eq!((y.len(), x.len()), (r.len(), r.len()));
        for i in 0..r.len() {
            assert_eq!(x[i], y[i][r.get(i) as usize], "OT {i} of {}", r.len());
            assert!(seen.insert(y[i][0].as_u128()) && seen.insert(y[i][1].as_u128()));
        }
    }
}

#[test]
fn iknp_session_extends_three_times_in_memory() {
    session_extends(OtExtension::iknp, false, false, false);
}

#[test]
fn iknp_session_extends_three_times_over_tcp() {
    session_extends(OtExtension::iknp, false, false, true);
}

#[test]
fn iknp_session_with_sha1_extends() {
    session_extends(|| OtExtension::iknp().with_sha1(true), false, true, false);
}

#[test]
fn kos_session_extends_three_times_in_memory() {
    session_extends(OtExtension::kos, true, false, false);
}

#[test]
fn kos_session_extends_three_times_over_tcp() {
    session_extends(OtExtension::kos, true, false, true);
}

/// Two extensions of the same size from one setup with the same choice
/// bits: neither the sender's keys nor the receiver's outputs repeat, in
/// place or shifted.
#[test]
fn equal_extensions_give_independent_outputs() {
    let n = 300;
    let r = choices(n);
    let (ys, xs) = run_tampered(
        |ch| {
            let mut s = OtExtension::iknp().setup_sender(ch).unwrap();
            [s.extend(ch, n).unwrap(), s.extend(ch, n).unwrap()]
        },
        |ch| {
            let mut rc = OtExtension::iknp().setup_receiver(ch).unwrap();
            [rc.extend(ch, &r).unwrap(), rc.extend(ch, &r).unwrap()]
        },
        |_, _| {},
    );
    let first: HashSet<u128> = xs[0].iter().map(|b| b.as_u128()).collect();
    assert!(xs[1].iter().all(|b| !first.contains(&b.as_u128())));
    let keys: HashSet<u128> = ys[0].iter().flatten().map(|b| b.as_u128()).collect();
    assert!(ys[1].iter().flatten().all(|b| !keys.contains(&b.as_u128())));
}

/// The outputs of one setup (`iknp_setup.otp` over CO15).
fn setup() -> (iknp_setup::SenderOutput, iknp_setup::ReceiverOutput) {
    let p = iknp_setup::Params::new().unwrap();
    let s = iknp_setup::Sender::new(
        p,
        iknp_setup::SenderInput {},
        Rng::from_entropy(),
        iknp_setup::SenderSubs { base: co15_base() },
    )
    .unwrap();
    let r = iknp_setup::Receiver::new(
        p,
        iknp_setup::ReceiverInput {},
        Rng::from_entropy(),
        iknp_setup::ReceiverSubs { base: co15_base() },
    )
    .unwrap();
    let (so, ro) = run_pair(s, r);
    (so.unwrap(), ro.unwrap())
}

/// One IKNP extension from the given setup outputs, with each side's own
/// counter and session id; returns what each side's binding check says.
fn extend_pair(
    (so, ro): &(iknp_setup::SenderOutput, iknp_setup::ReceiverOutput),
    (sender_first, receiver_first): (usize, usize),
    receiver_sid: Block,
) -> (Option<Mismatch>, Option<Mismatch>) {
    let n = 200;
    let ps = iknp_extend::Params::new(n, 1, false, so.sid, sender_first).unwrap();
    let pr = iknp_extend::Params::new(n, 1, false, receiver_sid, receiver_first).unwrap();
    let s = iknp_extend::Sender::new(
        ps,
        iknp_extend::SenderInput {
            delta: so.delta,
            base_chosen: so.base_chosen.clone(),
        },
        Rng::from_entropy(),
    )
    .unwrap();
    let r = iknp_extend::Receiver::new(
        pr,
        iknp_extend::ReceiverInput {
            r: choices(n),
            base_keys: ro.base_keys.clone(),
        },
        Rng::from_entropy(),
    )
    .unwrap();
    let (so, ro) = run_pair(s, r);
    let name = |e: Option<iknp_extend::Error>| e.and_then(|e| peer_mismatch(&e));
    (name(so.err()), name(ro.err()))
}

/// A sender and receiver whose counters differ, or whose session ids come
/// from different setups, are refused by the session binding on both
/// sides; equal counters run.
#[test]
fn mismatched_counters_and_setups_are_peer_mismatch() {
    let pair = setup();
    assert_eq!(extend_pair(&pair, (200, 200), pair.1.sid), (None, None));
    let both = Some(Mismatch::Params);
    assert_eq!(extend_pair(&pair, (0, 200), pair.1.sid), (both, both));
    assert_eq!(extend_pair(&pair, (400, 200), pair.1.sid), (both, both));
    let other = setup();
    assert_eq!(extend_pair(&pair, (0, 0), other.1.sid), (both, both));
}

/// A counter whose range would pass 2^64 is refused by `Params::new`.
#[test]
fn overflowing_counter_is_refused() {
    let sid = Block::from(0u128);
    assert!(iknp_extend::Params::new(10, 1, false, sid, usize::MAX - 5).is_err());
    assert!(kos_extend::Params::new(10, 1, false, sid, usize::MAX - 10).is_ok());
}

/// The receiver's frames with CO15 base OTs: the base-OT sender's message
/// (0), then per KOS extension `extend` and `correlation`.
const SECOND_EXTEND: usize = 3;

/// A receiver that flips choice bits in 64 rows of one column of the
/// second extension's matrix (an inconsistent correction) is caught by
/// that extension's check; the sender then refuses every further call.
#[test]
fn kos_tampered_second_extension_aborts_and_poisons() {
    let n = 1000;
    let row_bytes = 16 * (n + 128usize).div_ceil(128);
    let (so, _) = run_tampered(
        |ch| {
            let mut ext = OtExtension::kos().with_semi_honest_base_insecure(ot::BaseOtKind::Co15);
            let mut s = ext.setup_sender(ch).unwrap();
            s.extend(ch, n).expect("the first extension is untouched");
            let err = s.extend(ch, n).err();
            let again = s.extend(ch, n).err();
            (err, again, s.is_poisoned())
        },
        |ch| {
            let mut ext = OtExtension::kos().with_semi_honest_base_insecure(ot::BaseOtKind::Co15);
            let mut r = ext.setup_receiver(ch)?;
            r.extend(ch, &choices(n))?;
            r.extend(ch, &choices(n))
        },
        move |i, msg| {
            if i == SECOND_EXTEND {
                for row in 0..64 {
                    msg[row * row_bytes + 5] ^= 1 << 3;
                }
            }
        },
    );
    let (err, again, poisoned) = so;
    let err = err.expect("the tampered extension must fail");
    assert!(
        matches!(
            err.0.downcast_ref::<kos_extend::Error>(),
            Some(kos_extend::Error::CorrelationCheckFailed { .. })
        ),
        "{err}"
    );
    assert!(poisoned);
    let again = again.expect("a poisoned session refuses");
    assert_eq!(
        again.0.downcast_ref::<ExtSessionPoisoned>(),
        Some(&ExtSessionPoisoned::Failed)
    );
}

/// Sessions run IKNP or KOS: a SoftSpokenOT configuration is refused
/// before anything is sent.
#[test]
fn softspoken_sessions_are_unsupported() {
    let (mut a, _b) = ot::runtime::transport::channel::MemoryChannel::pair();
    let err = OtExtension::softspoken(4)
        .setup_sender(&mut a)
        .err()
        .unwrap();
    assert_eq!(
        err.0.downcast_ref::<ExtSessionPoisoned>(),
        Some(&ExtSessionPoisoned::Unsupported)
    );
}

/// Delta-OT parties extend many times from one base phase (batch index
/// as the counter): correct correlations for every size, over TCP.
#[test]
fn delta_ot_extends_three_times_over_tcp() {
    let delta = Block::from(0xdead_beef_u128 << 64 | 7);
    let rs: Vec<Bits> = SIZES.iter().map(|&n| choices(n)).collect();
    let (zs, ts) = run_pair_tcp(
        |ch| {
            let mut s =
                DeltaOtSender::kos(delta).with_semi_honest_base_insecure(ot::BaseOtKind::Co15);
            SIZES
                .iter()
                .map(|&n| s.send_correlated(ch, n).unwrap())
                .collect::<Vec<_>>()
        },
        |ch| {
            let mut r = DeltaOtReceiver::kos().with_semi_honest_base_insecure(ot::BaseOtKind::Co15);
            rs.iter()
                .map(|c| r.receive_correlated(ch, c).unwrap())
                .collect::<Vec<_>>()
        },
    );
    let mut seen = HashSet::new();
    for ((z, t), r) in zs.iter().zip(&ts).zip(&rs) {
        for i in 0..r.len() {
            assert_eq!(t[i], if r.get(i) { z[i] ^ delta } else { z[i] });
            assert!(seen.insert(z[i].as_u128()));
        }
    }
}

/// Random-choice correlated OT (`receive_random_correlated`): the
/// receiver's own bits satisfy the Delta relation with the sender's zeros,
/// batch after batch, and are fresh and balanced (not constant, not the
/// same from one batch to the next).
#[test]
fn delta_ot_random_choices_hold_the_relation_and_are_fresh() {
    let delta = Block::from(0x1234_5678_u128 << 64 | 1);
    let n = 1 << 14;
    let (zs, outs) = run_pair_tcp(
        |ch| {
            let mut s =
                DeltaOtSender::kos(delta).with_semi_honest_base_insecure(ot::BaseOtKind::Co15);
            (0..2)
                .map(|_| s.send_correlated(ch, n).unwrap())
                .collect::<Vec<_>>()
        },
        |ch| {
            let mut r = DeltaOtReceiver::kos().with_semi_honest_base_insecure(ot::BaseOtKind::Co15);
            (0..2)
                .map(|_| r.receive_random_correlated(ch, n).unwrap())
                .collect::<Vec<_>>()
        },
    );
    for (z, (bits, t)) in zs.iter().zip(&outs) {
        assert_eq!(bits.len(), n);
        for i in 0..n {
            assert_eq!(t[i], if bits.get(i) { z[i] ^ delta } else { z[i] });
        }
        let ones = (0..n).filter(|&i| bits.get(i)).count();
        // Binomial(2^14, 1/2): 8192 ± 64 (1 sigma); ± 800 is > 12 sigma.
        assert!(ones.abs_diff(n / 2) < 800, "{ones} ones of {n}");
    }
    assert_ne!(outs[0].0, outs[1].0, "the same choices twice");
}

/// Delta-OT batches whose indices differ are refused with `PeerMismatch`.
#[test]
fn delta_ot_mismatched_batches_are_peer_mismatch() {
    let delta = Block::from(99u128);
    let (base_chosen, base_keys) = delta_bases(delta);
    let n = 100;
    let s = delta_iknp::Sender::new(
        delta_iknp::Params::new(n, 1, 1).unwrap(),
        delta_iknp::SenderInput { delta, base_chosen },
        Rng::from_entropy(),
    )
    .unwrap();
    let r = delta_iknp::Receiver::new(
        delta_iknp::Params::new(n, 1, 2).unwrap(),
        delta_iknp::ReceiverInput {
            r: choices(n),
            base_keys,
        },
        Rng::from_entropy(),
    )
    .unwrap();
    let (so, ro) = run_pair(s, r);
    let both = Some(Mismatch::Params);
    let name = |e: Option<delta_iknp::Error>| e.and_then(|e| peer_mismatch(&e));
    assert_eq!((name(so.err()), name(ro.err())), (both, both));
}

/// Index parameters accept any value without allocating by it (issue 37
/// item 2): an IKNP extension at counter 2^40 and a Delta-OT batch at index
/// `usize::MAX` run like any other, with correct outputs.
#[test]
fn huge_counters_and_batch_indices_run_bounded() {
    let pair = setup();
    let first = 1usize << 40;
    assert_eq!(extend_pair(&pair, (first, first), pair.1.sid), (None, None));
    let delta = Block::from(0x5eed_u128 | 1);
    let (base_chosen, base_keys) = delta_bases(delta);
    let n = 100;
    let r = choices(n);
    let p = delta_iknp::Params::new(n, usize::MAX, usize::MAX).unwrap();
    let s = delta_iknp::Sender::new(
        p,
        delta_iknp::SenderInput { delta, base_chosen },
        Rng::from_entropy(),
    )
    .unwrap();
    let rc = delta_iknp::Receiver::new(
        p,
        delta_iknp::ReceiverInput {
            r: r.clone(),
            base_keys,
        },
        Rng::from_entropy(),
    )
    .unwrap();
    let (so, ro) = run_pair(s, rc);
    let (so, ro) = (so.unwrap(), ro.unwrap());
    for i in 0..n {
        let want = if r.get(i) {
            so.zeros[i] ^ delta
        } else {
            so.zeros[i]
        };
        assert_eq!(ro.chosen[i], want, "OT {i}");
    }
}
