//! Silent random COT (`silent_ot.otp`) end to end: over the in-memory
//! channel for several sizes (with IKNP and SoftSpokenOT random OTs for
//! the trees), over TCP, the COT relation of every output, the
//! pseudorandom-looking choice bits, and truncated or tampered messages.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::silent::params::depth_for;
use ot::runtime::transport::channel::{local_pair_tcp, MemoryChannel, TamperChannel};
use ot::runtime::transport::session::{run_pair, run_pair_over, Party};
use ot::runtime::Block;
use ot::{silent_ot, OtExtension};

type Parties = (
    silent_ot::Sender<silent_ot::sender_state::RunBase>,
    silent_ot::Receiver<silent_ot::receiver_state::RunBase>,
);

fn parties_with(n: usize, depth: usize, ext: fn() -> OtExtension) -> Parties {
    let p = silent_ot::Params::new(n, depth).unwrap();
    let s = silent_ot::Sender::new(
        p,
        silent_ot::SenderInput {},
        Rng::from_entropy(),
        silent_ot::SenderSubs {
            base: Box::new(ext()),
        },
    )
    .unwrap();
    let r = silent_ot::Receiver::new(
        p,
        silent_ot::ReceiverInput {},
        Rng::from_entropy(),
        silent_ot::ReceiverSubs {
            base: Box::new(ext()),
        },
    )
    .unwrap();
    (s, r)
}

fn parties(n: usize) -> Parties {
    parties_with(n, depth_for(n).unwrap(), OtExtension::iknp)
}

/// The COT relation `chosen_i = zeros_i ⊕ choices_i · Δ` for every i, and
/// choice bits that are neither constant nor far from balanced.
fn check(so: &silent_ot::SenderOutput, ro: &silent_ot::ReceiverOutput, n: usize) {
    assert_eq!(so.zeros.len(), n);
    assert_eq!(ro.chosen.len(), n);
    assert_eq!(ro.choices.len(), n);
    assert_ne!(so.delta, Block::ZERO);
    for i in 0..n {
        let want = so.zeros[i] ^ (so.delta & Block::mask(ro.choices.get(i)));
        assert_eq!(ro.chosen[i], want, "OT {i} of {n}");
    }
    if n >= 1000 {
        let ones = ro.choices.count_ones();
        assert!(ones > n * 2 / 5 && ones < n * 3 / 5, "{ones} of {n}");
    }
    // The sender's outputs are not trivially structured.
    if n >= 2 {
        assert_ne!(so.zeros[0], so.zeros[n - 1]);
    }
}

#[test]
fn correlation_holds_for_several_sizes_over_memory() {
    for n in [1usize, 2, 100, 161, 4096, 50_000] {
        let (s, r) = parties(n);
        let (so, ro) = run_pair(s, r);
        check(&so.unwrap(), &ro.unwrap(), n);
    }
}

#[test]
fn a_larger_depth_than_needed_is_accepted() {
    let (s, r) = parties_with(1000, 6, OtExtension::iknp);
    let (so, ro) = run_pair(s, r);
    check(&so.unwrap(), &ro.unwrap(), 1000);
}

#[test]
fn trees_over_softspoken_random_ots() {
    let n = 20_000;
    let (s, r) = parties_with(n, depth_for(n).unwrap(), || OtExtension::softspoken(2));
    let (so, ro) = run_pair(s, r);
    check(&so.unwrap(), &ro.unwrap(), n);
}

#[test]
fn correlation_holds_over_tcp() {
    let n = 30_000;
    let (s, r) = parties(n);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let (so, ro) = run_pair_over(s, r, &mut a, &mut b);
    check(&so.unwrap(), &ro.unwrap(), n);
}

#[test]
fn two_runs_give_independent_outputs() {
    let n = 2000;
    let (s, r) = parties(n);
    let (so1, ro1) = run_pair(s, r);
    let (s, r) = parties(n);
    let (so2, ro2) = run_pair(s, r);
    let (so1, so2) = (so1.unwrap(), so2.unwrap());
    let (ro1, ro2) = (ro1.unwrap(), ro2.unwrap());
    assert_ne!(so1.delta, so2.delta);
    assert_ne!(so1.zeros, so2.zeros);
    assert_ne!(ro1.choices, ro2.choices);
}

#[test]
fn bad_parameters_are_refused() {
    // 400 trees of 2 leaves cover at most 160 OTs.
    assert!(silent_ot::Params::new(161, 1).is_err());
    assert!(silent_ot::Params::new(160, 1).is_ok());
    assert!(silent_ot::Params::new(0, 3).is_err());
    assert!(silent_ot::Params::new(10, 0).is_err());
    assert!(silent_ot::Params::new(10, 21).is_err());
}

/// Runs the parties with the sender's expansion frame (the only frame of
/// at least `min_len` bytes) rewritten by `edit`; returns both results.
fn tampered_both(
    n: usize,
    min_len: usize,
    edit: fn(&mut Vec<u8>),
) -> (
    Result<silent_ot::SenderOutput, silent_ot::Error>,
    Result<silent_ot::ReceiverOutput, silent_ot::Error>,
) {
    let (s, r) = parties(n);
    let (a, b) = MemoryChannel::pair();
    let mut a = TamperChannel::new(a, move |_, f: &mut Vec<u8>| {
        if f.len() >= min_len {
            edit(f)
        }
    });
    let mut b = TamperChannel::new(b, |_, _: &mut Vec<u8>| {});
    std::thread::scope(|sc| {
        let h = sc.spawn(|| s.run_on(&mut a));
        let ro = r.run_on(&mut b);
        (h.join().expect("sender thread"), ro)
    })
}

/// [`tampered_both`], the receiver's result.
fn tampered(
    n: usize,
    min_len: usize,
    edit: fn(&mut Vec<u8>),
) -> Result<silent_ot::ReceiverOutput, silent_ot::Error> {
    tampered_both(n, min_len, edit).1
}

#[test]
fn truncated_expansion_message_is_a_typed_error() {
    let n = 1000;
    let depth = depth_for(n).unwrap();
    // The expansion frame: salt, masked sums and corrections.
    let len = 16 + 32 * 400 * depth + 16 * 400;
    for cut in [1usize, 16, len / 2] {
        let e = tampered(
            n,
            len,
            match cut {
                1 => |f: &mut Vec<u8>| f.truncate(f.len() - 1),
                16 => |f: &mut Vec<u8>| f.truncate(f.len() - 16),
                _ => |f: &mut Vec<u8>| f.truncate(f.len() / 2),
            },
        )
        .expect_err("accepted a truncated expansion message");
        let text = format!("{e:?} {e}");
        assert!(text.contains("expand") || text.contains("Expand"), "{text}");
    }
    // An overlong frame is refused too.
    let e = tampered(n, len, |f| f.extend_from_slice(&[0u8; 16]))
        .expect_err("accepted an overlong expansion message");
    assert!(format!("{e:?}").contains("xpand"), "{e:?}");
}

#[test]
fn a_flipped_correction_breaks_the_relation_without_a_panic() {
    // Semi-honest: no check catches a tampered sum, but the receiver still
    // returns typed outputs of the right shape, and the relation fails.
    let n = 3000;
    let depth = depth_for(n).unwrap();
    let len = 16 + 32 * 400 * depth + 16 * 400;
    let (so, ro) = tampered_both(n, len, |f| {
        let k = f.len() - 8;
        f[k] ^= 1;
    });
    let (so, ro) = (so.unwrap(), ro.expect("a flipped bit has the right length"));
    assert_eq!(ro.chosen.len(), n);
    assert_eq!(ro.choices.len(), n);
    let broken = (0..n)
        .filter(|&i| ro.chosen[i] != so.zeros[i] ^ (so.delta & Block::mask(ro.choices.get(i))))
        .count();
    assert!(broken > 0 && broken < n, "{broken} of {n} broken");
}
