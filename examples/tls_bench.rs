//! OT extension over TLS 1.3 against plain TCP on loopback: IKNP and KOS
//! random OT, one thread per party, both parties in this process.
//!
//! ```sh
//! cargo run --release --features tls --example tls_bench [-- --log-n 24 --reps 3]
//! ```
//!
//! Prints M OT/s over each transport, the TLS/TCP ratio, and the raw
//! throughput of each channel (one 256 MiB stream of 256 KiB frames) so the
//! cost of the encryption itself is visible next to the protocols'. Then
//! the n-party coin flip (`protocols/coin_flip_n.otp`: two checked
//! broadcasts) over the TCP mesh and the TLS mesh for n = 3 and 9, one
//! thread per party: latency best / median of `--mesh-reps` runs (default
//! 50), the session hello included.

use std::thread;
use std::time::{Duration, Instant};

use ot::coin_flip_n;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{local_pair_tcp, local_pair_tls, Channel};
use ot::runtime::transport::mesh::{local_tcp_mesh, local_tls_mesh, run_parties, Mesh};
use ot::runtime::Bits;
use ot::{OtExtension, RandomOtReceiver, RandomOtSender};
use std::sync::Barrier;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// Best time of `reps` runs of `n` random OTs (IKNP or KOS).
fn time_ot<C: Channel + Send>(
    a: &mut C,
    b: &mut C,
    malicious: bool,
    n: usize,
    reps: usize,
) -> Res<f64> {
    let choices = Bits::random(&mut ot::runtime::primitives::rng::Rng::from_entropy(), n);
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
        let h = s.spawn(
            || -> Result<(), ot::runtime::transport::channel::ChannelError> {
                for _ in 0..1024 {
                    a.send(&frame)?;
                }
                a.flush()
            },
        );
        let mut buf = Vec::new();
        for _ in 0..1024 {
            b.recv_into(&mut buf, 256 << 10)?;
        }
        h.join().map_err(|_| "sender panicked")??;
        Ok(())
    })?;
    Ok(256.0 * 1.048576 / start.elapsed().as_secs_f64())
}

/// Party 0's coin-flip latency in microseconds (best, median) over `reps`
/// runs, all parties starting each run together.
fn coin_flip_latency<M: Mesh + Send>(meshes: Vec<M>, reps: usize) -> Res<(f64, f64)> {
    let n = meshes.len();
    let barrier = Barrier::new(n);
    let outs = run_parties(meshes, |m| -> Result<Vec<Duration>, String> {
        let params = coin_flip_n::Params::new(n).map_err(|e| e.to_string())?;
        let mut times = Vec::with_capacity(reps);
        for rep in 0..reps {
            let mut session = [0u8; 16];
            session[..8].copy_from_slice(&(rep as u64).to_le_bytes());
            barrier.wait();
            let start = Instant::now();
            coin_flip_n::P::new(
                m.me(),
                params,
                session,
                coin_flip_n::PInput {},
                Rng::from_entropy(),
            )
            .and_then(|p| p.run(m))
            .map_err(|e| e.to_string())?;
            times.push(start.elapsed());
        }
        Ok(times)
    });
    let mut first = None;
    for o in outs {
        first.get_or_insert(o?);
    }
    let mut t = first.ok_or("no parties")?;
    t.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    Ok((us(t[0]), us(t[t.len() / 2])))
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
    let mesh_reps = get("--mesh-reps", 50).max(1);
    println!("n-party coin flip (two checked broadcasts), one thread per party, {mesh_reps} runs: microseconds best / median");
    println!(
        "{:>2} {:>19} {:>19} {:>14}",
        "n", "TCP mesh", "TLS mesh", "TLS/TCP median"
    );
    for parties in [3, 9] {
        let tcp = coin_flip_latency(local_tcp_mesh(parties)?, mesh_reps)?;
        let tls = coin_flip_latency(local_tls_mesh(parties)?, mesh_reps)?;
        println!(
            "{parties:>2} {:>8.0} / {:>8.0} {:>8.0} / {:>8.0} {:>14.2}",
            tcp.0,
            tcp.1,
            tls.0,
            tls.1,
            tls.1 / tcp.1
        );
    }
    Ok(())
}
