//! RR16 approximate K-out-of-N OT generated from `protocols/rr16.otp`:
//! the receiver learns exactly the messages of its chosen set, over memory
//! and TCP; every invalid parameter combination is a typed error; a
//! cheating receiver (too many ones, a one hidden as a zero, a forged
//! proof, a non-injective assignment) gets the named abort.

mod common;

use common::{run_pair_tcp, run_tampered};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::rr16::{sizes, Sizes};
use ot::runtime::transport::channel::Channel;
use ot::runtime::transport::session::run_pair;
use ot::runtime::{Bits, Block};
use ot::{rr16, OtError, OtExtension, RandomOtReceiver};

/// `(n, k, stat, checked, threshold, total)`, as `Params::new` takes them.
type Sizes6 = (usize, usize, usize, usize, usize, usize);

fn params(n: usize, k: usize, stat: usize) -> (rr16::Params, Sizes) {
    let s = sizes(n, k, stat).unwrap();
    let p = rr16::Params::new(n, k, stat, s.checked, s.threshold, s.total).unwrap();
    (p, s)
}

/// `k` chosen positions spread over `n`.
fn chosen_set(n: usize, k: usize) -> Bits {
    let mut c = Bits::zeros(n);
    for j in 0..k {
        c.set(j * n / k, true);
    }
    c
}

fn parties_with(
    p: rr16::Params,
    choices: &Bits,
    receiver_ots: Box<dyn RandomOtReceiver + Send>,
) -> (
    rr16::Sender<rr16::sender_state::RunOts>,
    rr16::Receiver<rr16::receiver_state::RunOts>,
) {
    let s = rr16::Sender::new(
        p,
        rr16::SenderInput {},
        Rng::from_entropy(),
        rr16::SenderSubs {
            ots: Box::new(OtExtension::kos()),
        },
    )
    .unwrap();
    let r = rr16::Receiver::new(
        p,
        rr16::ReceiverInput {
            choices: choices.clone(),
        },
        Rng::from_entropy(),
        rr16::ReceiverSubs { ots: receiver_ots },
    )
    .unwrap();
    (s, r)
}

fn parties(
    p: rr16::Params,
    choices: &Bits,
) -> (
    rr16::Sender<rr16::sender_state::RunOts>,
    rr16::Receiver<rr16::receiver_state::RunOts>,
) {
    parties_with(p, choices, Box::new(OtExtension::kos()))
}

/// The receiver holds the sender's message exactly at its chosen
/// positions; the messages are distinct (fresh random OT outputs).
fn check(so: &rr16::SenderOutput, values: &[Block], choices: &Bits, s: &Sizes) {
    let n = choices.len();
    assert_eq!((so.messages.len(), values.len()), (n, n));
    for (j, (v, m)) in values.iter().zip(&so.messages).enumerate() {
        if choices.get(j) {
            assert_eq!(v, m, "chosen position {j}");
        } else {
            assert_ne!(v, m, "unchosen position {j}");
        }
    }
    let mut sorted: Vec<u128> = so.messages.iter().map(|b| b.0).collect();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), n);
    assert_eq!(so.max_learned, s.max_learned);
}

#[test]
fn rr16_learns_exactly_the_chosen_set_in_memory() {
    for (n, k, chosen) in [
        (1000usize, 100usize, 100usize),
        (1000, 100, 37),
        (4096, 64, 64),
    ] {
        let (p, s) = params(n, k, 40);
        let c = chosen_set(n, chosen);
        let (snd, rcv) = parties(p, &c);
        let (so, ro) = run_pair(snd, rcv);
        check(&so.unwrap(), &ro.unwrap().values, &c, &s);
    }
}

#[test]
fn rr16_over_tcp_and_comm_matches_spec() {
    let (n, k) = (1 << 14, 1 << 10);
    let (p, s) = params(n, k, 40);
    let c = chosen_set(n, k);
    let (snd, rcv) = parties(p, &c);
    let (so, ro) = run_pair_tcp(|ch| snd.run(ch), |ch| rcv.run(ch));
    check(&so.unwrap(), &ro.unwrap().values, &c, &s);
    // Our rounds only: each side's session binding; the seed; the opening
    // (bits + proof) and the map.
    let comm = rr16::comm(&p);
    let bind = rr16::BINDING_BYTES;
    assert_eq!(comm.sender, bind + 16);
    assert_eq!(comm.receiver, bind + s.checked.div_ceil(8) + 16 + 8 * n);
}

#[test]
fn rr16_bad_parameters_are_typed_errors() {
    let s = sizes(1000, 100, 40).unwrap();
    let bad = |r: Result<rr16::Params, rr16::Error>, needle: &str| match r {
        Err(rr16::Error::Params { requirement }) => {
            assert!(requirement.contains(needle), "{requirement} vs {needle}");
            let shown = rr16::Error::Params { requirement }.to_string();
            assert!(shown.contains("requires"), "{shown}");
        }
        other => panic!("expected a parameter error for `{needle}`, got {other:?}"),
    };
    let (c, th, t) = (s.checked, s.threshold, s.total);
    // (n, k, stat, checked, threshold, total) and the requirement it breaks.
    let cases: [(Sizes6, &str); 12] = [
        ((0, 0, 40, 1, 0, 1), "n >= 1"),
        ((1000, 0, 40, c, th, t), "k >= 1"),
        // K > N.
        ((1000, 1001, 40, c, th, t), "k <= n"),
        ((1000, 100, 39, c, th, t), "stat >= 40"),
        ((1000, 100, 129, c, th, t), "stat <= 128"),
        // No checked OTs; a threshold beyond the OTs.
        ((1000, 100, 40, 0, th, t), "checked >= 1"),
        ((1000, 100, 40, 10, 2000, 3010), "threshold < n + checked"),
        // total inconsistent with n + checked + threshold.
        ((1000, 100, 40, c, th, t + 1), "total =="),
        // A threshold too small: the honest receiver would abort too often.
        ((1000, 100, 40, c, th - 1, t - 1), "rr16_sizes_sound"),
        // Higher statistical security than the sizes were computed for.
        ((1000, 100, 80, c, th, t), "rr16_sizes_sound"),
        // k = n: a cheating receiver could not be held below n messages.
        ((1000, 1000, 40, c, th, t), "rr16_sizes_sound"),
        // Too few checked OTs for the threshold (soundness fails).
        ((1000, 100, 40, 1, th, 1001 + th), "rr16_sizes_sound"),
    ];
    for ((n, k, stat, checked, threshold, total), needle) in cases {
        bad(
            rr16::Params::new(n, k, stat, checked, threshold, total),
            needle,
        );
    }
    assert!(sizes(1000, 1000, 40).is_err());
}

#[test]
fn rr16_receiver_with_too_many_choices_refuses() {
    let (p, _) = params(1000, 100, 40);
    let r = rr16::Receiver::new(
        p,
        rr16::ReceiverInput {
            choices: chosen_set(1000, 101),
        },
        Rng::from_entropy(),
        rr16::ReceiverSubs {
            ots: Box::new(OtExtension::kos()),
        },
    );
    match r {
        Err(rr16::Error::TooManyChoices {
            role: "Receiver", ..
        }) => {}
        Err(e) => panic!("expected TooManyChoices, got {e}"),
        Ok(_) => panic!("101 choices accepted with k = 100"),
    }
}

/// A cheating receiver's OT: runs the real OT with every choice bit set
/// to one (it asks for all `m_{i,1}`), whatever the protocol passes.
struct AllOnes(OtExtension);

impl RandomOtReceiver for AllOnes {
    fn receive_random(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError> {
        let ones = Bits::from_bools(&vec![true; choices.len()]);
        self.0.receive_random(ch, &ones)
    }
}

fn assert_sender_abort(so: Result<rr16::SenderOutput, rr16::Error>, want: &str) {
    let got = match so {
        Ok(_) => panic!("{want}: the check passed"),
        Err(e) => e,
    };
    let name = match &got {
        rr16::Error::TooManyOnes { role: "Sender", .. } => "TooManyOnes",
        rr16::Error::OpeningMismatch { role: "Sender", .. } => "OpeningMismatch",
        rr16::Error::BadAssignment { role: "Sender", .. } => "BadAssignment",
        _ => "",
    };
    assert_eq!(name, want, "got {got}");
}

#[test]
fn rr16_catches_a_receiver_with_too_many_ones() {
    // Ones in every OT, and an opening that admits them all (so the proof,
    // over no zeros, is 0 and valid): more than `threshold` ones opened.
    let (p, s) = params(1000, 100, 40);
    let c = chosen_set(1000, 100);
    let (snd, rcv) = parties_with(p, &c, Box::new(AllOnes(OtExtension::kos())));
    let open_len = s.checked.div_ceil(8) + 16;
    let checked = s.checked;
    let (so, _ro) = run_tampered(
        |ch| snd.run(ch),
        |ch| rcv.run(ch),
        move |_, frame: &mut Vec<u8>| {
            if frame.len() == open_len {
                for i in 0..checked {
                    frame[i / 8] |= 1 << (i % 8);
                }
                for b in &mut frame[checked.div_ceil(8)..] {
                    *b = 0;
                }
            }
        },
    );
    assert_sender_abort(so, "TooManyOnes");
}

#[test]
fn rr16_catches_a_one_hidden_as_a_zero() {
    // The receiver's OTs all chose 1, its opening claims the honest zeros:
    // it cannot know the m_{i,0} its proof must sum.
    let (p, _) = params(1000, 100, 40);
    let c = chosen_set(1000, 100);
    let (snd, rcv) = parties_with(p, &c, Box::new(AllOnes(OtExtension::kos())));
    let (so, _ro) = run_pair(snd, rcv);
    assert_sender_abort(so, "OpeningMismatch");
}

#[test]
fn rr16_catches_a_forged_proof_and_a_bad_assignment() {
    let (n, k) = (1000, 100);
    let (p, s) = params(n, k, 40);
    let open_len = s.checked.div_ceil(8) + 16;
    let c = chosen_set(n, k);
    let (snd, rcv) = parties(p, &c);
    let (so, _ro) = run_tampered(
        |ch| snd.run(ch),
        |ch| rcv.run(ch),
        move |_, frame: &mut Vec<u8>| {
            if frame.len() == open_len {
                frame[open_len - 1] ^= 1;
            }
        },
    );
    assert_sender_abort(so, "OpeningMismatch");

    // Position 1 mapped to the OT of position 0 (two messages from one OT).
    let (snd, rcv) = parties(p, &c);
    let (so, _ro) = run_tampered(
        |ch| snd.run(ch),
        |ch| rcv.run(ch),
        move |_, frame: &mut Vec<u8>| {
            if frame.len() == 8 * n {
                let first: Vec<u8> = frame[..8].to_vec();
                frame[8..16].copy_from_slice(&first);
            }
        },
    );
    assert_sender_abort(so, "BadAssignment");
}
