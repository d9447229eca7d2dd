//! Command-line flags and timing shared by the runtime's rate examples
//! (`bignum_rate`, `multiexp_rate`).

use std::time::Instant;

/// The value after `name` on the command line, parsed.
pub fn flag<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::args()
        .skip_while(|a| a != name)
        .nth(1)?
        .parse()
        .ok()
}

/// Microseconds per call of `f`, run for about `secs` seconds (at least
/// once).
pub fn micros(secs: f64, mut f: impl FnMut()) -> f64 {
    let start = Instant::now();
    let mut calls = 0usize;
    loop {
        f();
        calls += 1;
        if start.elapsed().as_secs_f64() >= secs {
            break;
        }
    }
    start.elapsed().as_secs_f64() * 1e6 / calls as f64
}
