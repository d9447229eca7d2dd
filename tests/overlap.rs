//! A receive step whose state has work that does not read the message
//! (computation after the role's previous send) runs that work first and
//! only then reads: `recv_x_with(read)` calls `read` after it, so over a
//! channel the work overlaps the peer's instead of following the receive
//! (the generated blocking driver reads through it). `recv_x(msg)` stays
//! the sans-IO form.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::MemoryChannel;
use ot::runtime::Block;
use std::cell::Cell;

mod overlap {
    ot::protocol! {
        protocol Overlap(role A, role B) {
            input  A { x: Block, y: Block }
            output A { z: Block }
            output B { seen: Block }
            round ask: A -> B : Ask { x: Block }
            at A { check !(x == y) else abort SameBlocks; }
            at B { w = !x; seen = x; }
            round answer: B -> A : Answer { w: Block }
            at A { z = w ^ y; }
        }
    }
}

fn parties(
    x: Block,
    y: Block,
) -> (
    overlap::A<overlap::a_state::SendAsk>,
    overlap::B<overlap::b_state::AwaitAsk>,
) {
    let p = overlap::Params::new().unwrap();
    let a = overlap::A::new(p, overlap::AInput { x, y }, Rng::from_entropy()).unwrap();
    let b = overlap::B::new(p, overlap::BInput {}, Rng::from_entropy()).unwrap();
    (a, b)
}

#[test]
fn the_driver_reads_after_the_work_and_gets_the_same_output() {
    let (x, y) = (Block(3), Block(10));
    let (a, b) = parties(x, y);
    let (mut ca, mut cb) = MemoryChannel::pair();
    let (ra, rb) = std::thread::scope(|s| {
        let h = s.spawn(move || b.run(&mut cb));
        (a.run(&mut ca), h.join().unwrap())
    });
    assert_eq!(ra.unwrap().z, !x ^ y);
    assert_eq!(rb.unwrap().seen, x);
}

#[test]
fn the_work_runs_before_read_is_called_and_its_abort_skips_the_read() {
    // A failing check in the work before the receive: the step aborts and
    // never asks for the message.
    let (a, b) = parties(Block(7), Block(7));
    let (ask, a) = a.send_ask().unwrap();
    let b = b.recv_ask(ask).unwrap();
    let (answer, _b) = b.send_answer().unwrap();
    let asked = Cell::new(false);
    let r = a.recv_answer_with(|_| {
        asked.set(true);
        Ok(answer)
    });
    assert!(
        matches!(r, Err(overlap::Error::SameBlocks { .. })),
        "{:?}",
        r.err()
    );
    assert!(!asked.get(), "the message was read before the work's check");

    // Passing check: read once, same result as the plain step.
    let (x, y) = (Block(1), Block(2));
    for with in [true, false] {
        let (a, b) = parties(x, y);
        let (ask, a) = a.send_ask().unwrap();
        let (answer, _b) = b.recv_ask(ask).unwrap().send_answer().unwrap();
        let calls = Cell::new(0);
        let done = if with {
            a.recv_answer_with(|_| {
                calls.set(calls.get() + 1);
                Ok(answer)
            })
        } else {
            calls.set(1);
            a.recv_answer(answer)
        };
        assert_eq!(calls.get(), 1);
        assert_eq!(done.unwrap().finish().unwrap().z, !x ^ y);
    }
}
