//! Ferret's silent random COT (`ferret_extend.otp` and the stateful
//! `ot::FerretSender` / `ot::FerretReceiver`) end to end: batches over
//! the in-memory channel and TCP, the COT relation of every output, the
//! choice bits in the low bits, bootstrapping from reserved outputs, the
//! batch counter in the session binding, refused parameter sets, and
//! truncated or tampered messages.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::silent::ferret::{Level, EXTEND, SETUP};
use ot::runtime::transport::channel::{local_pair_tcp, Channel, MemoryChannel, TamperChannel};
use ot::runtime::{Bits, Block};
use ot::{ferret_extend, ferret_extend_malicious, FerretCots, FerretReceiver, FerretSender};

/// Small insecure sets (accepted because the workspace's tests enable
/// `insecure-test-levels`): set-up 640 outputs from 260 base COTs, main
/// 1,920 outputs from 380.
const SMALL_SETUP: Level = Level {
    trees: 40,
    depth: 4,
    k: 100,
};
const SMALL: Level = Level {
    trees: 30,
    depth: 6,
    k: 200,
};

fn small_pair(seed: u64) -> (FerretSender, FerretReceiver) {
    let s = FerretSender::with_rng(Rng::deterministic_for_tests(seed))
        .with_levels(SMALL_SETUP, SMALL)
        .unwrap();
    let r = FerretReceiver::with_rng(Rng::deterministic_for_tests(seed + 1000))
        .with_levels(SMALL_SETUP, SMALL)
        .unwrap();
    (s, r)
}

type Batch = (FerretCots, (Bits, FerretCots));

/// Runs `batches` calls of both parties over `a` / `b`.
fn run(
    s: &mut FerretSender,
    r: &mut FerretReceiver,
    a: &mut (dyn Channel + Send),
    b: &mut (dyn Channel + Send),
    batches: usize,
) -> Vec<Batch> {
    std::thread::scope(|sc| {
        let h = sc.spawn(move || {
            (0..batches)
                .map(|_| s.extend(a).unwrap())
                .collect::<Vec<_>>()
        });
        let ro: Vec<_> = (0..batches).map(|_| r.extend(b).unwrap()).collect();
        h.join()
            .expect("sender thread")
            .into_iter()
            .zip(ro)
            .collect()
    })
}

/// `y_i = z_i ⊕ x_i·Δ` for every output, the low-bit conventions, and
/// choice bits that are neither constant nor far from balanced.
fn check(delta: Block, z: &[Block], x: &Bits, y: &[Block]) {
    assert_eq!(delta.0 & 1, 1);
    assert_eq!((z.len(), y.len(), x.len()), (y.len(), z.len(), z.len()));
    for i in 0..z.len() {
        assert_eq!(
            y[i],
            z[i] ^ (delta & Block::mask(x.get(i))),
            "OT {i} of {}",
            z.len()
        );
        assert_eq!(z[i].0 & 1, 0);
        assert_eq!(y[i].0 & 1 == 1, x.get(i));
    }
    let ones = x.count_ones();
    assert!(
        ones * 5 > z.len() * 2 && ones * 5 < z.len() * 3,
        "{ones} of {}",
        z.len()
    );
}

#[test]
fn batches_bootstrap_from_their_own_outputs_over_memory() {
    let (mut s, mut r) = small_pair(1);
    let (mut a, mut b) = MemoryChannel::pair();
    let out = run(&mut s, &mut r, &mut a, &mut b, 3);
    assert_eq!(s.batch_len(), 1920 - 380);
    for (z, (x, y)) in &out {
        assert_eq!(z.len(), s.batch_len());
        check(s.delta(), z, x, y);
    }
    assert_ne!(out[0].0[..], out[1].0[..]);
    assert_ne!(out[1].1 .0, out[2].1 .0);
}

#[test]
fn batches_run_over_tcp() {
    let (mut s, mut r) = small_pair(2);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    for (z, (x, y)) in run(&mut s, &mut r, &mut a, &mut b, 2) {
        check(s.delta(), &z, &x, &y);
    }
}

/// Ferret's published sets, one set-up and one main batch (10,198,341
/// COTs), every output checked.
#[test]
fn the_published_sets_run_end_to_end() {
    let mut s = FerretSender::with_rng(Rng::deterministic_for_tests(3));
    let mut r = FerretReceiver::with_rng(Rng::deterministic_for_tests(4));
    let (mut a, mut b) = MemoryChannel::pair();
    let out = run(&mut s, &mut r, &mut a, &mut b, 1);
    let (z, (x, y)) = &out[0];
    assert_eq!(z.len(), EXTEND.outputs().unwrap() - EXTEND.reserved());
    check(s.delta(), z, x, y);
}

#[test]
fn parameter_sets_are_checked() {
    assert!(FerretSender::new().with_levels(SETUP, EXTEND).is_ok());
    // The set-up batch must cover the main set's base COTs.
    let big = Level {
        trees: 100,
        depth: 6,
        k: 2000,
    };
    let e = FerretSender::new()
        .with_levels(SMALL_SETUP, big)
        .err()
        .unwrap();
    assert!(e.to_string().contains("parameter sets refused"), "{e}");
    assert!(FerretReceiver::new().with_levels(SMALL_SETUP, big).is_err());
    // The batch protocol's own parameters.
    let n = 30 << 6;
    assert!(ferret_extend::Params::new(30, 6, 200, n, 0).is_ok());
    assert!(ferret_extend::Params::new(30, 6, 200, n + 1, 0).is_err());
    assert!(ferret_extend::Params::new(30, 0, 200, n, 0).is_err());
    assert!(ferret_extend::Params::new(30, 6, 0, n, 0).is_err());
    // k + t·h above N.
    assert!(ferret_extend::Params::new(2, 2, 8, 8, 0).is_err());
}

/// Base COTs for one small batch of `ferret_extend.otp` directly.
fn batch_parties(
    sender_batch: usize,
    receiver_batch: usize,
    delta: Block,
) -> (
    ferret_extend::Sender<ferret_extend::sender_state::SendExpand>,
    ferret_extend::Receiver<ferret_extend::receiver_state::AwaitExpand>,
) {
    let l = SMALL;
    let mut rng = Rng::deterministic_for_tests(9);
    let r = l.reserved();
    let zeros: Vec<Block> = (0..r).map(|_| rng.next_block()).collect();
    let choices = Bits::random(&mut rng, r);
    let chosen: Vec<Block> = (0..r)
        .map(|j| zeros[j] ^ (delta & Block::mask(choices.get(j))))
        .collect();
    let bits = |from: usize, len: usize| {
        Bits::from_bools(
            &(from..from + len)
                .map(|i| choices.get(i))
                .collect::<Vec<_>>(),
        )
    };
    let n = l.outputs().unwrap();
    let s = ferret_extend::Sender::new(
        ferret_extend::Params::new(l.trees, l.depth, l.k, n, sender_batch).unwrap(),
        ferret_extend::SenderInput {
            delta,
            lpn_base: zeros[..l.k].to_vec(),
            tree_base: zeros[l.k..].to_vec(),
        },
        Rng::deterministic_for_tests(10),
    )
    .unwrap();
    let rc = ferret_extend::Receiver::new(
        ferret_extend::Params::new(l.trees, l.depth, l.k, n, receiver_batch).unwrap(),
        ferret_extend::ReceiverInput {
            lpn_choices: bits(0, l.k),
            lpn_chosen: chosen[..l.k].to_vec(),
            tree_choices: bits(l.k, r - l.k),
            tree_chosen: chosen[l.k..].to_vec(),
        },
        Rng::deterministic_for_tests(11),
    )
    .unwrap();
    (s, rc)
}

type Outcome = (
    Result<ferret_extend::SenderOutput, ferret_extend::Error>,
    Result<ferret_extend::ReceiverOutput, ferret_extend::Error>,
);

/// One batch with the sender's frames rewritten by `edit`.
fn tampered(sb: usize, rb: usize, delta: Block, edit: fn(&mut Vec<u8>)) -> Outcome {
    let (s, r) = batch_parties(sb, rb, delta);
    let (a, b) = MemoryChannel::pair();
    let mut a = TamperChannel::new(a, move |_, f: &mut Vec<u8>| edit(f));
    let mut b = TamperChannel::new(b, |_, _: &mut Vec<u8>| {});
    std::thread::scope(|sc| {
        let h = sc.spawn(|| s.run(&mut a));
        let ro = r.run(&mut b);
        (h.join().expect("sender thread"), ro)
    })
}

const DELTA: Block = Block(0x1234_5678_9abc_def1);

#[test]
fn one_batch_protocol_run_gives_the_correlation() {
    let (so, ro) = tampered(0, 0, DELTA, |_| {});
    let (so, ro) = (so.unwrap(), ro.unwrap());
    check(DELTA, &so.zeros, &ro.choices, &ro.chosen);
}

#[test]
fn parties_at_different_batches_are_refused_by_the_binding() {
    let (so, ro) = tampered(3, 4, DELTA, |_| {});
    let text = format!("{:?} {:?}", so.err(), ro.err());
    assert!(
        text.contains("PeerMismatch") || text.contains("mismatch"),
        "{text}"
    );
}

#[test]
fn a_delta_without_its_low_bit_is_refused_before_anything_is_sent() {
    let l = SMALL;
    let e = ferret_extend::Sender::new(
        ferret_extend::Params::new(l.trees, l.depth, l.k, l.outputs().unwrap(), 0).unwrap(),
        ferret_extend::SenderInput {
            delta: Block(DELTA.0 & !1),
            lpn_base: vec![Block::ZERO; l.k],
            tree_base: vec![Block::ZERO; l.trees * l.depth],
        },
        Rng::deterministic_for_tests(12),
    )
    .err()
    .expect("accepted an even Delta");
    assert!(format!("{e:?}").contains("DeltaLowBitClear"), "{e:?}");
}

/// The expansion frame: salt and one masked sum per tree level.
const FRAME: usize = 16 + 16 * 30 * 6;

#[test]
fn a_truncated_or_overlong_expansion_message_is_a_typed_error() {
    fn cut(f: &mut Vec<u8>) {
        if f.len() >= FRAME {
            f.truncate(f.len() - 1);
        }
    }
    fn grow(f: &mut Vec<u8>) {
        if f.len() >= FRAME {
            f.extend_from_slice(&[0; 16]);
        }
    }
    for edit in [cut as fn(&mut Vec<u8>), grow] {
        let e = tampered(0, 0, DELTA, edit)
            .1
            .expect_err("accepted a bad frame");
        assert!(format!("{e:?} {e}").contains("xpand"), "{e:?}");
    }
}

#[test]
fn a_flipped_level_sum_breaks_the_relation_without_a_panic() {
    // Semi-honest: no check catches it, but the outputs keep their shape.
    // The last 16 bytes are the last tree's deepest level: two leaves.
    let (so, ro) = tampered(0, 0, DELTA, |f| {
        if f.len() >= FRAME {
            let k = f.len() - 8;
            f[k] ^= 1;
        }
    });
    let (so, ro) = (so.unwrap(), ro.unwrap());
    let n = so.zeros.len();
    let broken = (0..n)
        .filter(|&i| ro.chosen[i] != so.zeros[i] ^ (DELTA & Block::mask(ro.choices.get(i))))
        .count();
    assert!(broken > 0 && broken < n, "{broken} of {n}");
}

// ---- the malicious variant (ferret_extend_malicious.otp) ----

fn small_malicious_pair(seed: u64) -> (FerretSender, FerretReceiver) {
    let s = FerretSender::with_rng(Rng::deterministic_for_tests(seed))
        .with_check()
        .with_levels(SMALL_SETUP, SMALL)
        .unwrap();
    let r = FerretReceiver::with_rng(Rng::deterministic_for_tests(seed + 1000))
        .with_check()
        .with_levels(SMALL_SETUP, SMALL)
        .unwrap();
    (s, r)
}

#[test]
fn malicious_batches_bootstrap_over_memory_and_tcp() {
    let (mut s, mut r) = small_malicious_pair(21);
    assert_eq!(s.batch_len(), 1920 - 380 - 128);
    let (mut a, mut b) = MemoryChannel::pair();
    for (z, (x, y)) in run(&mut s, &mut r, &mut a, &mut b, 3) {
        assert_eq!(z.len(), s.batch_len());
        check(s.delta(), &z, &x, &y);
    }
    let (mut s, mut r) = small_malicious_pair(22);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    for (z, (x, y)) in run(&mut s, &mut r, &mut a, &mut b, 2) {
        check(s.delta(), &z, &x, &y);
    }
}

/// The published main set with the check, one batch, every output checked.
#[test]
fn the_malicious_variant_runs_at_the_published_sets() {
    let mut s = FerretSender::with_rng(Rng::deterministic_for_tests(23)).with_check();
    let mut r = FerretReceiver::with_rng(Rng::deterministic_for_tests(24)).with_check();
    let (mut a, mut b) = MemoryChannel::pair();
    let out = run(&mut s, &mut r, &mut a, &mut b, 1);
    let (z, (x, y)) = &out[0];
    assert_eq!(z.len(), EXTEND.outputs().unwrap() - EXTEND.reserved() - 128);
    check(s.delta(), z, x, y);
}

type MalOutcome = (
    Result<ferret_extend_malicious::SenderOutput, ferret_extend_malicious::Error>,
    Result<ferret_extend_malicious::ReceiverOutput, ferret_extend_malicious::Error>,
);

/// One malicious batch at the small set with the sender's frames rewritten
/// by `edit_s` and the receiver's by `edit_r`.
fn malicious_run(edit_s: fn(&mut Vec<u8>), edit_r: fn(&mut Vec<u8>)) -> MalOutcome {
    use ferret_extend_malicious as m;
    let l = SMALL;
    let mut rng = Rng::deterministic_for_tests(31);
    let r = l.reserved() + 128;
    let zeros: Vec<Block> = (0..r).map(|_| rng.next_block()).collect();
    let choices = Bits::random(&mut rng, r);
    let chosen: Vec<Block> = (0..r)
        .map(|j| zeros[j] ^ (DELTA & Block::mask(choices.get(j))))
        .collect();
    let bits = |from: usize, len: usize| {
        Bits::from_bools(
            &(from..from + len)
                .map(|i| choices.get(i))
                .collect::<Vec<_>>(),
        )
    };
    let (k, th) = (l.k, l.trees * l.depth);
    let params = m::Params::new(l.trees, l.depth, l.k, l.outputs().unwrap(), 0).unwrap();
    let s = m::Sender::new(
        params,
        m::SenderInput {
            delta: DELTA,
            lpn_base: zeros[..k].to_vec(),
            tree_base: zeros[k..k + th].to_vec(),
            check_base: zeros[k + th..].to_vec(),
        },
        Rng::deterministic_for_tests(32),
    )
    .unwrap();
    let rc = m::Receiver::new(
        params,
        m::ReceiverInput {
            lpn_choices: bits(0, k),
            lpn_chosen: chosen[..k].to_vec(),
            tree_choices: bits(k, th),
            tree_chosen: chosen[k..k + th].to_vec(),
            check_choices: bits(k + th, 128),
            check_chosen: chosen[k + th..].to_vec(),
        },
        Rng::deterministic_for_tests(33),
    )
    .unwrap();
    let (a, b) = MemoryChannel::pair();
    let mut a = TamperChannel::new(a, move |_, f: &mut Vec<u8>| edit_s(f));
    let mut b = TamperChannel::new(b, move |_, f: &mut Vec<u8>| edit_r(f));
    std::thread::scope(|sc| {
        let h = sc.spawn(|| s.run(&mut a));
        let ro = rc.run(&mut b);
        (h.join().expect("sender thread"), ro)
    })
}

fn untouched(_: &mut Vec<u8>) {}

fn assert_caught(o: MalOutcome) {
    let e = o.1.expect_err("the receiver accepted a cheating sender");
    assert!(format!("{e:?}").contains("ConsistencyCheckFailed"), "{e:?}");
}

#[test]
fn an_honest_malicious_batch_gives_the_correlation() {
    let (so, ro) = malicious_run(untouched, untouched);
    let (so, ro) = (so.unwrap(), ro.unwrap());
    check(DELTA, &so.zeros, &ro.choices, &ro.chosen);
}

/// A sender that flips a bit of one tree's correction is caught by the
/// check (the semi-honest batch outputs wrong COTs instead, test above).
#[test]
fn a_flipped_correction_is_caught_by_the_check() {
    assert_caught(malicious_run(
        |f| {
            if f.len() >= FRAME {
                let k = f.len() - 8;
                f[k] ^= 1;
            }
        },
        untouched,
    ));
}

/// A flipped bit in a masked level sum (tree 0, level 1: a whole subtree
/// of wrong leaves) is caught.
#[test]
fn a_flipped_level_sum_is_caught_by_the_check() {
    assert_caught(malicious_run(
        |f| {
            if f.len() >= FRAME {
                let k = f.len() - 16 * 30 - 32 * 180 + 3;
                f[k] ^= 0x10;
            }
        },
        untouched,
    ));
}

/// Both sums of one level swapped consistently (a sender that "guesses"
/// the receiver's path bit): caught unless the guess is right for the
/// receiver's choice; here the masks differ, so it is caught.
#[test]
fn a_sender_swapping_a_levels_sums_is_caught() {
    assert_caught(malicious_run(
        |f| {
            if f.len() >= FRAME {
                let at = f.len() - 16 * 30 - 32 * 180 + 32 * 7;
                let (l, r) = f[at..at + 32].split_at_mut(16);
                l.swap_with_slice(r);
            }
        },
        untouched,
    ));
}

/// A wrong digest is refused.
#[test]
fn a_tampered_digest_is_caught() {
    assert_caught(malicious_run(
        |f| {
            if f.len() < FRAME && f.len() >= 16 {
                let k = f.len() - 1;
                f[k] ^= 0x80;
            }
        },
        untouched,
    ));
}

// ---- random OT from the COTs (cot_random_ot.otp) ----

#[test]
fn random_ots_span_batches_and_give_the_chosen_message() {
    use ot::traits::{RandomOtReceiver, RandomOtSender};
    for malicious in [false, true] {
        let (mut s, mut r) = if malicious {
            small_malicious_pair(51)
        } else {
            small_pair(51)
        };
        let (mut a, mut b) = MemoryChannel::pair();
        // 1,000 then 3,000 OTs: the second call needs two more batches.
        for n in [1000usize, 3000] {
            let mut rng = Rng::deterministic_for_tests(n as u64);
            let c = Bits::random(&mut rng, n);
            let (pairs, got) = std::thread::scope(|sc| {
                let h = sc.spawn(|| s.send_random(&mut a, n).unwrap());
                let got = r.receive_random(&mut b, &c).unwrap();
                (h.join().expect("sender"), got)
            });
            assert_eq!((pairs.len(), got.len()), (n, n));
            for j in 0..n {
                assert_eq!(got[j], pairs[j][usize::from(c.get(j))], "OT {j}");
                assert_ne!(pairs[j][0], pairs[j][1]);
            }
        }
    }
}

/// Chosen-message OT (`cot_chosen_ot.otp`) and correlated OT with chosen
/// bits (`cot_chosen_bits.otp`) from the same pair, interleaved with
/// random OTs, across batch boundaries.
#[test]
fn chosen_message_and_chosen_bit_ots_from_the_cots() {
    use ot::traits::{
        CorrelatedOtReceiver, CorrelatedOtSender, OtReceiver, OtSender, RandomOtReceiver,
        RandomOtSender,
    };
    let (mut s, mut r) = small_pair(61);
    let (mut a, mut b) = MemoryChannel::pair();
    let mut rng = Rng::deterministic_for_tests(62);
    for n in [700usize, 1300, 2000] {
        let c = Bits::random(&mut rng, n);
        let msgs: Vec<[Block; 2]> = (0..n)
            .map(|_| [rng.next_block(), rng.next_block()])
            .collect();
        let (zs, (got, ys)) = std::thread::scope(|sc| {
            let h = sc.spawn(|| {
                s.send(&mut a, &msgs).unwrap();
                let z = s.send_correlated(&mut a, n).unwrap();
                let _ = s.send_random(&mut a, 10).unwrap();
                z
            });
            let got = r.receive(&mut b, &c).unwrap();
            let y = r.receive_correlated(&mut b, &c).unwrap();
            let _ = r.receive_random(&mut b, &Bits::zeros(10)).unwrap();
            (h.join().expect("sender"), (got, y))
        });
        let delta = CorrelatedOtSender::delta(&s);
        for j in 0..n {
            assert_eq!(got[j], msgs[j][usize::from(c.get(j))], "chosen OT {j}");
            assert_eq!(
                ys[j],
                zs[j] ^ (delta & Block::mask(c.get(j))),
                "chosen-bit COT {j}"
            );
        }
    }
}

/// `y_i = z_i ⊕ x_i·Δ` and the low-bit conventions, for batches too
/// small for [`check`]'s balance test.
fn check_relation(delta: Block, z: &[Block], x: &Bits, y: &[Block]) {
    assert_eq!((z.len(), y.len(), x.len()), (y.len(), z.len(), z.len()));
    for i in 0..z.len() {
        assert_eq!(y[i], z[i] ^ (delta & Block::mask(x.get(i))), "OT {i}");
        assert_eq!(z[i].0 & 1, 0);
        assert_eq!(y[i].0 & 1 == 1, x.get(i));
    }
}

/// A call that wants fewer COTs than a batch runs a prefix of the main set
/// (fewer trees): at least the COTs wanted and fewer than a whole batch,
/// the relation on every output, and the next batches (prefix or whole)
/// bootstrap from it; both variants.
#[test]
fn a_call_for_fewer_cots_runs_a_prefix_batch() {
    for malicious in [false, true] {
        let (mut s, mut r) = if malicious {
            small_malicious_pair(61)
        } else {
            small_pair(61)
        };
        let full = s.batch_len();
        let (mut a, mut b) = MemoryChannel::pair();
        for wanted in [1usize, 500, usize::MAX, 700, full] {
            let (z, (x, y)) = std::thread::scope(|sc| {
                let h = sc.spawn(|| s.extend_for(&mut a, wanted).unwrap());
                let got = r.extend_for(&mut b, wanted).unwrap();
                (h.join().expect("sender"), got)
            });
            assert!(z.len() >= wanted.min(full), "{wanted}: {}", z.len());
            if wanted < full {
                assert!(z.len() < full, "{wanted}: {} of {full}", z.len());
                // The smallest prefix: one tree fewer would not cover it.
                assert!(
                    z.len() < wanted + (1 << SMALL.depth),
                    "{wanted}: {}",
                    z.len()
                );
            } else {
                assert_eq!(z.len(), full);
            }
            check_relation(s.delta(), &z, &x, &y);
        }
    }
}

/// The trees of a batch are a parameter of the batch protocol: parties
/// that ask for different prefixes are refused by the session binding.
#[test]
fn parties_asking_for_different_prefixes_are_refused() {
    let (mut s, mut r) = small_pair(62);
    let (mut a, mut b) = MemoryChannel::pair();
    let (so, ro) = std::thread::scope(|sc| {
        let h = sc.spawn(|| s.extend_for(&mut a, 100).map(|_| ()));
        let got = r.extend_for(&mut b, 900).map(|_| ());
        (h.join().expect("sender"), got)
    });
    let text = format!("{:?} {:?}", so.err(), ro.err());
    assert!(
        text.contains("PeerMismatch") || text.contains("mismatch"),
        "{text}"
    );
}

/// The last batch of a session keeps no base: its trees cover only what
/// is wanted, every output is returned, and the parties refuse further
/// calls with `Finished`; both variants, also as the first call.
#[test]
fn a_finishing_batch_keeps_no_base_and_ends_the_session() {
    for (malicious, first) in [(false, false), (true, false), (false, true)] {
        let (mut s, mut r) = if malicious {
            small_malicious_pair(63)
        } else {
            small_pair(63)
        };
        let (mut a, mut b) = MemoryChannel::pair();
        let wanted = 700;
        if !first {
            run(&mut s, &mut r, &mut a, &mut b, 1);
        }
        let (z, (x, y)) = std::thread::scope(|sc| {
            let h = sc.spawn(|| s.finish(&mut a, wanted).unwrap());
            let got = r.finish(&mut b, wanted).unwrap();
            (h.join().expect("sender"), got)
        });
        // No base kept: the outputs are the prefix's whole batch, fewer
        // than one more tree's width beyond what was wanted.
        assert!(
            z.len() >= wanted && z.len() < wanted + (1 << SMALL.depth),
            "{}",
            z.len()
        );
        check_relation(s.delta(), &z, &x, &y);
        let e = s.extend(&mut a).expect_err("a finished sender ran again");
        assert!(format!("{e}").contains("finish"), "{e}");
        let e = r.extend(&mut b).expect_err("a finished receiver ran again");
        assert!(format!("{e}").contains("finish"), "{e}");
    }
}

/// `OtExtension::silent()` (and its malicious twin): each call of the
/// random and chosen OT traits is a one-shot Ferret session at the
/// published sets, over memory and TCP; the receiver gets the message of
/// its choice.
#[test]
fn ot_extension_silent_runs_random_and_chosen_ots() {
    use ot::traits::{OtReceiver, OtSender, RandomOtReceiver, RandomOtSender};
    use ot::OtExtension;
    for malicious in [false, true] {
        let make = || {
            if malicious {
                OtExtension::silent_malicious()
            } else {
                OtExtension::silent()
            }
        };
        let (mut s, mut r) = (make(), make());
        let n = 3000;
        let c = Bits::random(&mut Rng::deterministic_for_tests(64), n);
        let (mut a, mut b) = MemoryChannel::pair();
        let (pairs, got) = std::thread::scope(|sc| {
            let h = sc.spawn(|| s.send_random(&mut a, n).unwrap());
            let got = r.receive_random(&mut b, &c).unwrap();
            (h.join().expect("sender"), got)
        });
        for j in 0..n {
            assert_eq!(got[j], pairs[j][usize::from(c.get(j))], "OT {j}");
            assert_ne!(pairs[j][0], pairs[j][1]);
        }
        let messages: Vec<[Block; 2]> = (0..n as u128)
            .map(|j| [Block(2 * j + 7), Block(2 * j + 8)])
            .collect();
        let (mut a, mut b) = local_pair_tcp().unwrap();
        let got = std::thread::scope(|sc| {
            let h = sc.spawn(|| s.send(&mut a, &messages).unwrap());
            let got = r.receive(&mut b, &c).unwrap();
            h.join().expect("sender");
            got
        });
        for j in 0..n {
            assert_eq!(got[j], messages[j][usize::from(c.get(j))], "OT {j}");
        }
    }
}

/// A silent configuration serves as any protocol's `RandomOt`
/// sub-protocol: here the trees of the dual-LPN `silent_ot.otp`.
#[test]
fn ot_extension_silent_plugs_into_a_random_ot_sub_protocol() {
    use ot::runtime::silent::params::depth_for;
    use ot::OtExtension;
    let n = 2000;
    let p = ot::silent_ot::Params::new(n, depth_for(n).unwrap()).unwrap();
    let s = ot::silent_ot::Sender::new(
        p,
        ot::silent_ot::SenderInput {},
        Rng::deterministic_for_tests(65),
        ot::silent_ot::SenderSubs {
            base: Box::new(OtExtension::silent()),
        },
    )
    .unwrap();
    let r = ot::silent_ot::Receiver::new(
        p,
        ot::silent_ot::ReceiverInput {},
        Rng::deterministic_for_tests(66),
        ot::silent_ot::ReceiverSubs {
            base: Box::new(OtExtension::silent()),
        },
    )
    .unwrap();
    let (so, ro) = ot::runtime::transport::session::run_pair(s, r);
    let (out, theirs) = (so.unwrap(), ro.unwrap());
    for i in 0..n {
        let want = if theirs.choices.get(i) {
            out.zeros[i] ^ out.delta
        } else {
            out.zeros[i]
        };
        assert_eq!(theirs.chosen[i], want, "COT {i}");
    }
}
