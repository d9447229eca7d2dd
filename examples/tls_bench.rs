//! OT extension over TLS 1.3 against plain TCP on loopback: IKNP and KOS
//! random OT, one thread per party, both parties in this process.
//!
//! ```sh
//! cargo run --release --features tls --example tls_bench [-- --log-n 24 --reps 3]
//! ```
//!
//! Prints M OT/s over each transport, the TLS/TCP ratio, and the raw
//! throughput of each channel (one 256 MiB stream of 256 KiB frames) so the
//! cost of the encryption itself is visible next to the protocols'.

use std::thread;
use std::time::{Duration, Instant};

use ot::runtime::channel::{local_pair_tcp, local_pair_tls, Channel};
use ot::runtime::Bits;
use ot::{OtExtension, RandomOtReceiver, RandomOtSender};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Best time of `reps` runs of `n` random OTs (IKNP or KOS).
fn time_ot<C: Channel + Send>(
    a: &mut C,
    b: &mut C,
    malicious: bool,
    n: usize,
    reps: usize,
) -> Res<f64> {
    let choices = Bits::random(&mut ot::runtime::rng::Rng::from_entropy(), n);
    let ext = || {
        if malicious {
            OtExtension::kos()
        } else {
            OtExtension::iknp()
        }
    };
    let mut best = f64::MAX;
    for _ in 0..reps + 1 {
        let start = Instant::now();
        thread::scope(|s| -> Res<()> {
            let h = s.spawn(|| ext().send_random(a, n).map(drop));
            ext().receive_random(b, &choices)?;
            h.join().map_err(|_| "sender panicked")??;
            Ok(())
        })?;
        best = best.min(start.elapsed().as_secs_f64());
    }
    Ok(best)
}

/// Raw channel throughput in MB/s: 1024 frames of 256 KiB one way.
fn stream_mb_per_s<C: Channel + Send>(a: &mut C, b: &mut C) -> Res<f64> {
    let frame = vec![0x5a; 256 << 10];
    let start = Instant::now();
    thread::scope(|s| -> Res<()> {
        let h = s.spawn(|| -> Result<(), ot::runtime::channel::ChannelError> {
            for _ in 0..1024 {
                a.send(&frame)?;
            }
            a.flush()
        });
        let mut buf = Vec::new();
        for _ in 0..1024 {
            b.recv_into(&mut buf, 256 << 10)?;
        }
        h.join().map_err(|_| "sender panicked")??;
        Ok(())
    })?;
    Ok(256.0 * 1.048576 / start.elapsed().as_secs_f64())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str, default: usize| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let log_n = get("--log-n", 24);
    let reps = get("--reps", 3);
    let n = 1usize << log_n;
    let (mut ta, mut tb) = local_pair_tcp()?;
    let (mut sa, mut sb) = local_pair_tls(Duration::from_secs(30))?;
    println!("Random OT over loopback, n = 2^{log_n}, 1 thread per party, best of {reps}");
    println!(
        "{:<6} {:>14} {:>14} {:>10}",
        "", "TCP M OT/s", "TLS M OT/s", "TLS/TCP"
    );
    for (name, malicious) in [("IKNP", false), ("KOS", true)] {
        let tcp = time_ot(&mut ta, &mut tb, malicious, n, reps)?;
        let tls = time_ot(&mut sa, &mut sb, malicious, n, reps)?;
        println!(
            "{name:<6} {:>14.1} {:>14.1} {:>10.2}",
            n as f64 / tcp / 1e6,
            n as f64 / tls / 1e6,
            tcp / tls
        );
    }
    let tcp = stream_mb_per_s(&mut ta, &mut tb)?;
    let tls = stream_mb_per_s(&mut sa, &mut sb)?;
    println!(
        "raw stream of 256 KiB frames: TCP {tcp:.0} MB/s, TLS {tls:.0} MB/s ({:.2})",
        tls / tcp
    );
    Ok(())
}
