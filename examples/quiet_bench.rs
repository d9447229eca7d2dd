//! QuietOT figures: setup (time, bytes) over a memory channel, then the
//! zero-round expansion of 2^20 OTs per variant, sender and receiver side
//! separately, one thread each, beside the AES-128 blocks/s of this core
//! (the kernel limit) in the same run.
//!
//! Rates are per CPU second of the measuring thread (from the kernel's
//! per-thread accounting where available, else wall time), the metric of
//! the reference implementation; on a loaded machine wall-clock rates are
//! lower. Run: `cargo run --release --example quiet_bench [log2 m]`.

use ot::runtime::primitives::aes::Aes128;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{Channel, MemoryChannel};
use ot::runtime::transport::session::run_pair_over;
use ot::runtime::Block;
use ot::{quiet_bipsw, quiet_gar, OtExtension};
use std::time::Instant;

/// CPU time of this thread in seconds (`/proc/thread-self/schedstat`), or
/// `None` where that file does not exist.
fn cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let ns: f64 = s.split_whitespace().next()?.parse().ok()?;
    Some(ns / 1e9)
}

/// Seconds (CPU time if available, else wall) that `f` takes, and its result.
fn timed<T>(f: impl FnOnce() -> T) -> (f64, T) {
    let (c0, w0) = (cpu_seconds(), Instant::now());
    let out = f();
    let secs = match (c0, cpu_seconds()) {
        (Some(a), Some(b)) if b > a => b - a,
        _ => w0.elapsed().as_secs_f64(),
    };
    (secs, out)
}

fn aes_blocks_per_s() -> f64 {
    let aes = Aes128::new(Block(1));
    let mut buf = vec![Block::ZERO; 1 << 14];
    let (s, _) = timed(|| {
        for i in 0..256u64 {
            aes.ctr(i << 14, &mut buf);
        }
    });
    (256usize << 14) as f64 / s
}

fn main() {
    let log_m: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(20);
    let m = 1usize << log_m;
    let aes = aes_blocks_per_s();
    println!("AES-128 (this core): {:.0} M blocks/s", aes / 1e6);
    println!("| variant | setup ms | setup bytes | sender M OT/s | receiver M OT/s | sender OTs per 1000 AES blocks |");
    println!("|---|---|---|---|---|---|");

    variant!(quiet_bipsw, "QuietOT-BIPSW", m, aes);
    variant!(quiet_gar, "QuietOT-GAR", m, aes);
}

/// Runs the setup of `$module` (with IKNP random OTs, m = 1) over a memory
/// channel, then times the local expansion of `$m` OTs on each side and
/// checks every OT against the sender's messages.
macro_rules! variant {
    ($module:ident, $name:expr, $m:expr, $aes:expr) => {{
        use $module as q;
        let (mut a, mut b) = MemoryChannel::pair();
        let p = q::Params::new(1).expect("params");
        let subs = || Box::new(OtExtension::iknp());
        let s = q::Sender::new(
            p,
            q::SenderInput {},
            Rng::from_entropy(),
            q::SenderSubs { rot: subs() },
        );
        let r = q::Receiver::new(
            p,
            q::ReceiverInput {},
            Rng::from_entropy(),
            q::ReceiverSubs { rot: subs() },
        );
        let t = Instant::now();
        let (so, ro) = run_pair_over(s.expect("sender"), r.expect("receiver"), &mut a, &mut b);
        let setup_ms = t.elapsed().as_secs_f64() * 1e3;
        let bytes = a.stats().bytes_sent + b.stats().bytes_sent;
        let (so, ro) = (so.expect("sender setup"), ro.expect("receiver setup"));
        let (ts, sots) = timed(|| so.state.expand(0, $m));
        let (tr, rots) = timed(|| ro.state.expand(0, $m));
        assert!((0..$m)
            .all(|n| u32::from(rots.bits[n]) == (u32::from(sots.bits[n]) >> rots.index[n]) & 1));
        row($name, setup_ms, bytes, $m, ts, tr, $aes);
    }};
}
use variant;

fn row(name: &str, setup_ms: f64, bytes: u64, m: usize, ts: f64, tr: f64, aes: f64) {
    let (rs, rr) = (m as f64 / ts, m as f64 / tr);
    println!(
        "| {name} | {setup_ms:.1} | {bytes} | {:.2} | {:.2} | {:.2} |",
        rs / 1e6,
        rr / 1e6,
        1000.0 * rs / aes
    );
}
