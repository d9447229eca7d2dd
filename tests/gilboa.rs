//! Gilboa's OT-based multiplication, written in `examples/gilboa.otp`
//! with the language's integers (u64 arithmetic, shifts, casts, `sum`,
//! `bits`) and the shipped chosen 1-out-of-2 OT (CO15) as sub-protocol:
//! the parties' shares add up to a·b mod 2^64, over the in-memory channel.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::session::run_pair;
use ot::{BaseOt, BaseOtKind};
use rand_core::RngCore;

mod gilboa {
    ot::protocol!("examples/gilboa.otp");
}

/// Runs the protocol on `a` and `b`; returns Alice's and Bob's shares.
fn shares(a: u64, b: u64) -> (u64, u64) {
    let params = gilboa::Params::new().unwrap();
    let alice = gilboa::Alice::new(
        params,
        gilboa::AliceInput { a },
        Rng::from_entropy(),
        gilboa::AliceSubs {
            ot: Box::new(BaseOt::new(BaseOtKind::Co15)),
        },
    )
    .unwrap();
    let bob = gilboa::Bob::new(
        params,
        gilboa::BobInput { b },
        Rng::from_entropy(),
        gilboa::BobSubs {
            ot: Box::new(BaseOt::new(BaseOtKind::Co15)),
        },
    )
    .unwrap();
    let (za, zb) = run_pair(alice, bob);
    (za.unwrap().z, zb.unwrap().z)
}

#[test]
fn shares_add_up_to_the_product_on_edge_inputs() {
    let edges = [0, 1, 2, u64::MAX - 1, u64::MAX, 1 << 63];
    for &a in &edges {
        for &b in &edges {
            let (za, zb) = shares(a, b);
            assert_eq!(za.wrapping_add(zb), a.wrapping_mul(b), "a = {a}, b = {b}");
        }
    }
}

#[test]
fn shares_add_up_to_the_product_on_random_inputs() {
    let mut rng = Rng::from_entropy();
    for _ in 0..8 {
        let (a, b) = (rng.next_u64(), rng.next_u64());
        let (za, zb) = shares(a, b);
        assert_eq!(za.wrapping_add(zb), a.wrapping_mul(b), "a = {a}, b = {b}");
    }
}

#[test]
fn a_share_alone_is_not_the_product() {
    // Alice's share is masked by fresh randomness: two runs differ.
    let (a1, _) = shares(3, 5);
    let (a2, _) = shares(3, 5);
    assert_ne!(a1, a2);
}
