//! Huge parameters are refused by `Params::new` with a typed error naming
//! the parameter (issue 15, item 3): no base OT runs, nothing is allocated,
//! no length wraps. The limit is the run-time memory budget
//! (`ot::runtime::transport::limits`). `send_random(ch, 1 << 40)` would need 32 TiB of
//! outputs; `usize::MAX` overflows every size computed from it.

use ot::runtime::transport::channel::{Channel, MemoryChannel};
use ot::runtime::transport::limits::{self, memory_budget};
use ot::{iknp, kos, OtExtension, RandomOtSender};

/// One input and one output of the same size, for the budget of a role's
/// inputs and outputs together.
mod io_total {
    ot::protocol! {
        protocol IoTotal(role A, role B) {
            param m: usize;
            input  A { x: Bits[m] }
            output A { y: Bits[m] }
            output B { z: Bits[m] }
            at A { y = x ^ x; }
            round go: A -> B : Go { w: Bits[m] } { at A { w = x; } }
            at B { z = w; }
        }
    }
}

fn too_large(e: &(dyn std::error::Error + 'static)) -> String {
    let text = e.to_string();
    assert!(text.contains("parameter `m` too large"), "{text}");
    text
}

#[test]
fn iknp_and_kos_params_refuse_huge_batches() {
    for m in [1usize << 40, usize::MAX, usize::MAX - 127] {
        match iknp::Params::new(m, 1, false) {
            Err(e @ iknp::Error::TooLarge { params: "`m`", .. }) => {
                too_large(&e);
            }
            other => panic!("iknp m = {m}: {other:?}"),
        }
        match kos::Params::new(m, 1, false) {
            Err(e @ kos::Error::TooLarge { params: "`m`", .. }) => {
                too_large(&e);
            }
            other => panic!("kos m = {m}: {other:?}"),
        }
    }
    // 2^40 fits usize: the error gives the size and the limit.
    let Err(iknp::Error::TooLarge { bytes, limit, .. }) = iknp::Params::new(1 << 40, 1, false)
    else {
        panic!("expected TooLarge")
    };
    assert!(bytes.is_some_and(|b| b > limit) && limit == memory_budget());
    // usize::MAX overflows (KOS's m + EXTRA columns no longer wrap).
    let Err(kos::Error::TooLarge { bytes, .. }) = kos::Params::new(usize::MAX, 1, false) else {
        panic!("expected TooLarge")
    };
    assert_eq!(bytes, None);
    // Ordinary sizes are unaffected.
    assert!(iknp::Params::new(1 << 20, 1, false).is_ok());
    assert!(kos::Params::new(1 << 20, 1, false).is_ok());
    // The budget is a run-time setting (default: half of physical memory),
    // and the error carries the figures.
    assert_eq!(memory_budget(), limits::default_memory_budget());
    let old = limits::set_memory_budget(1 << 20);
    let Err(e @ iknp::Error::TooLarge { bytes, limit, .. }) = iknp::Params::new(1 << 16, 1, false)
    else {
        panic!("expected TooLarge under a 1 MiB budget")
    };
    assert_eq!(limit, 1 << 20);
    assert!(bytes.is_some_and(|b| b > 1 << 20));
    assert!(
        e.to_string().contains("memory budget of 1048576 bytes"),
        "{e}"
    );
    assert!(iknp::Params::new(1 << 10, 1, false).is_ok());
    // Each value fits the budget, a role's inputs and outputs together do
    // not (checked in this test, which owns the process-wide budget).
    let m = 8 << 20;
    let Err(e @ io_total::Error::TooLarge { value, bytes, .. }) = io_total::Params::new(m) else {
        panic!("expected TooLarge for the inputs and outputs together")
    };
    assert_eq!(value, "the inputs and outputs of `A` together");
    assert_eq!(bytes, Some(2 << 20));
    assert!(e.to_string().contains("more than the memory budget"), "{e}");
    // At half of it the inputs and outputs together fit, but not what `A`
    // holds at once (`x`, `y`, the copy `w` it sends and its frame: four
    // values of 512 KiB), the run-wide bound; at an eighth all fits.
    match io_total::Params::new(m / 2) {
        Err(io_total::Error::TooLarge { value, bytes, .. }) => {
            assert!(value.contains("`A` holds at once"), "{value}");
            assert_eq!(bytes, Some(4 << 19));
        }
        other => panic!("expected the run-wide bound to refuse: {other:?}"),
    }
    assert!(io_total::Params::new(m / 8).is_ok());
    limits::set_memory_budget(0);
    assert_eq!(memory_budget(), old);
    assert!(iknp::Params::new(1 << 16, 1, false).is_ok());
}

#[test]
fn send_random_with_huge_n_is_a_typed_error_before_any_message() {
    for n in [1usize << 40, usize::MAX] {
        for (name, mut ext) in [("iknp", OtExtension::iknp()), ("kos", OtExtension::kos())] {
            let (mut ch, peer) = MemoryChannel::pair();
            let err = ext.send_random(&mut ch, n).expect_err("refused");
            too_large(&*err.0);
            assert_eq!(ch.stats().bytes_sent, 0, "{name}: nothing sent");
            drop(peer);
        }
    }
}
