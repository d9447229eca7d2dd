//! The run-wide memory bound of `Params::new` (issue 15, item 3): besides
//! each value, the sum of what one role holds at once (its live values,
//! the step's temporaries and frames, a chunked round's per-chunk buffers)
//! must fit the memory budget (`ot::runtime::transport::limits`). One test function:
//! the budget is a process-wide setting.

use ot::runtime::transport::channel::MemoryChannel;
use ot::runtime::transport::limits;
use ot::runtime::{Bits, Rng};
use ot::{iknp, OtExtension, RandomOtReceiver, RandomOtSender};

/// Three values of `16 m` bytes alive at once in `A` (its input, the
/// copy sent and its frame), each alone at most the budget.
mod wide {
    ot::protocol! {
        protocol Wide(role A, role B) {
            param m: usize;
            input  A { x: BitMatrix[m, 128] }
            output B { z: BitMatrix[m, 128] }
            round one: A -> B : One { u: BitMatrix[m, 128] } { at A { u = x; } }
            at B { z = u; }
        }
    }
}

const MIB: usize = 1 << 20;

#[test]
fn params_refuse_what_a_role_holds_at_once_beyond_the_budget() {
    // A sum past usize::MAX is `TooLarge` without a figure, not a wrap to
    // a small number: with an unlimited budget each value (16 m bytes, just
    // over a third of usize::MAX) passes alone; three together overflow.
    let old = limits::set_memory_budget(usize::MAX);
    let m = usize::MAX / 16 / 3 + 1;
    match wide::Params::new(m) {
        Err(
            e @ wide::Error::TooLarge {
                value, bytes: None, ..
            },
        ) => {
            assert!(value.starts_with("the values `"), "{value}");
            assert!(value.contains("holds at once"), "{value}");
            assert!(e.to_string().contains("overflows usize"), "{e}");
        }
        other => panic!("expected TooLarge (overflow) for m = {m}: {other:?}"),
    }
    let p = wide::Params::new(m / 2).expect("a third of the sum fits");
    let peak = p.peak_memory().expect("sizes depend on m");
    assert!(
        peak.bytes.is_some_and(|b| b >= 3 * 16 * (m / 2)),
        "{peak:?}"
    );

    // IKNP under a 4 MiB budget. At 2^17 OTs the largest value, the
    // sender's outputs `y` (32 bytes per OT), is exactly the budget, and
    // so passes the per-value check; with the chunk buffers of `extend`
    // the sender holds more at once: refused, with the figure.
    limits::set_memory_budget(4 * MIB);
    let big = 1 << 17;
    match iknp::Params::new(big, 1, false) {
        Err(
            e @ iknp::Error::TooLarge {
                value,
                bytes,
                limit,
                ..
            },
        ) => {
            assert_eq!(
                value,
                "the values `Sender` holds at once (chunked round `extend`)"
            );
            assert_eq!(limit, 4 * MIB);
            assert!(bytes.is_some_and(|b| b > 4 * MIB), "{bytes:?}");
            let text = e.to_string();
            assert!(text.contains("parameter `m` too large"), "{text}");
            assert!(
                text.contains(&format!("would take {} bytes", bytes.unwrap_or(0))),
                "{text}"
            );
            assert!(text.contains("memory budget of 4194304 bytes"), "{text}");
        }
        other => panic!("expected the run-wide bound to refuse m = {big}: {other:?}"),
    }
    // Through the high-level API: refused before any message.
    let (mut ch, peer) = MemoryChannel::pair();
    let err = OtExtension::iknp()
        .send_random(&mut ch, big)
        .expect_err("refused");
    assert!(err.to_string().contains("holds at once"), "{err}");
    drop(peer);

    // At 2^16 OTs the bound fits, and the run completes under the budget.
    let small = 1 << 16;
    let p = iknp::Params::new(small, 1, false).expect("fits the budget");
    let peak = p.peak_memory().expect("sizes depend on m");
    assert!(
        peak.bytes.is_some_and(|b| b > small * 32 && b <= 4 * MIB),
        "{peak:?}"
    );
    let choices = Bits::random(&mut Rng::from_entropy(), small);
    let (mut a, mut b) = MemoryChannel::pair();
    let (sent, received) = std::thread::scope(|sc| {
        let sender = sc.spawn(move || OtExtension::iknp().send_random(&mut a, small));
        let received = OtExtension::iknp().receive_random(&mut b, &choices);
        (sender.join().expect("sender thread"), received)
    });
    let (sent, received) = (sent.expect("sender"), received.expect("receiver"));
    assert_eq!(sent.len(), small);
    for (j, x) in received.iter().enumerate() {
        assert_eq!(*x, sent[j][choices.get(j) as usize], "OT {j}");
    }
    limits::set_memory_budget(0);
    assert_eq!(limits::memory_budget(), old);
}
