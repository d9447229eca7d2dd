//! The `.otp` integers end to end (`tests/otp/arith.otp`): wrapping u64/u32
//! arithmetic, shifts, casts, `select`/`bit`/`sum`/`xor`, and `Params::new`
//! refusing parameters whose arithmetic overflows (no silent wrapping).

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::session::run_pair;

mod arith {
    ot::protocol!("tests/otp/arith.otp");
}

fn run(m: usize, n: usize, k: usize, x: u64) -> arith::BOutput {
    let p = arith::Params::new(m, n, k).unwrap();
    let a = arith::A::new(p, arith::AInput { x }, Rng::from_entropy()).unwrap();
    let b = arith::B::new(p, arith::BInput {}, Rng::from_entropy()).unwrap();
    let (ra, rb) = run_pair(a, b);
    ra.unwrap();
    rb.unwrap()
}

/// The same computation in Rust.
fn model(m: usize, n: usize, k: usize, x: u64) -> (u64, usize, u32) {
    let s = (0..m as u64)
        .fold(0u64, |acc, j| acc.wrapping_add(j.wrapping_mul(x)))
        .wrapping_add((n as u64 + 1).wrapping_mul(x));
    let sel = if x & 1 == 1 { 7 } else { 9 };
    let t = (x >> 1) ^ (x << 63) ^ x.wrapping_neg() ^ sel;
    let w = u32::from(x as u8).wrapping_add(u32::MAX);
    (s ^ t, m / k + m % k, w)
}

#[test]
fn integer_arithmetic_matches_rust() {
    for x in [0, 1, 2, 0xdead_beef, u64::MAX] {
        for (m, n, k) in [(0, 0, 1), (10, 5, 3), (1000, 2, 7)] {
            let out = run(m, n, k, x);
            assert_eq!((out.y, out.q, out.mixed), model(m, n, k, x), "x = {x}");
        }
    }
}

#[test]
fn overflowing_requirement_is_a_params_error() {
    // m * 4 wraps to 4 in 64-bit arithmetic; it must fail, not pass.
    let m = (1usize << 62) + 1;
    match arith::Params::new(m, 1, 1) {
        Err(arith::Error::Params { requirement }) => assert_eq!(requirement, "m * 4 <= 4000"),
        other => panic!("{other:?}"),
    }
    assert!(arith::Params::new(1000, 1, 1).is_ok());
    assert!(matches!(
        arith::Params::new(10, 1, 0),
        Err(arith::Error::Params { .. })
    ));
}

#[test]
fn overflowing_length_is_refused_before_the_run() {
    // `[x for j in 0..n + 1]` is never stored, but its length overflows.
    match arith::Params::new(1, usize::MAX, 1) {
        Err(arith::Error::TooLarge {
            params,
            bytes: None,
            ..
        }) => assert_eq!(params, "`n`"),
        other => panic!("{other:?}"),
    }
}
