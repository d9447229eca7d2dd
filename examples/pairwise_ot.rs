//! Two-party sub-protocols between every pair of parties
//! (`tests/otp/pairwise_ot.otp`: `do ot: RandomOt[n = m](Sender = P[i],
//! Receiver = P[j])`), with actively secure OT extension (KOS over MR19
//! base OTs, `OtExtension::kos()`) as every run: for n = 2, 3, 4, 6 parties
//! over the TCP mesh on loopback (one thread per party in this process, so
//! n threads share the machine's cores), `m` random OTs per ordered pair.
//!
//! ```text
//! cargo run --release --example pairwise_ot [-- --log-m 16 --reps 5]
//! ```
//! Prints, per n, party 0's best and median wall clock from a barrier shared
//! by all parties to its output, the runs of the round-robin tournament
//! (`n − 1` rounds, `n` for an odd n; each pair runs both directions), all
//! parties' random OTs per second (`n·(n − 1)·m` OTs), and party 0's bytes
//! sent and received.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, Mesh};
use ot::traits::{OtExtension, RandomOtReceiver, RandomOtSender};
use std::sync::Barrier;
use std::time::{Duration, Instant};

mod pairwise {
    ot::protocol!("tests/otp/pairwise_ot.otp");
}

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// One KOS instance per other party and role.
fn subs(n: usize) -> pairwise::PSubs {
    pairwise::PSubs {
        ot_sender: (1..n)
            .map(|_| Box::new(OtExtension::kos()) as Box<dyn RandomOtSender + Send>)
            .collect(),
        ot_receiver: (1..n)
            .map(|_| Box::new(OtExtension::kos()) as Box<dyn RandomOtReceiver + Send>)
            .collect(),
    }
}

/// One run for `n` parties: party 0's time and bytes (sent, received).
fn run(n: usize, m: usize) -> Res<(Duration, u64, u64)> {
    let meshes = local_tcp_mesh(n)?;
    let barrier = Barrier::new(n);
    let outs = run_parties(meshes, |mesh| -> Res<(Duration, u64, u64)> {
        let me = mesh.me();
        let params = pairwise::Params::new(n, m)?;
        let input = pairwise::PInput { x: me as u64 };
        let party = pairwise::P::new(me, params, [9; 16], input, Rng::from_entropy(), subs(n))?;
        barrier.wait();
        let t = Instant::now();
        let out = party.run(mesh)?;
        let took = t.elapsed();
        if out.chosen.len() != n {
            return Err("wrong output shape".into());
        }
        let (sent, got) = (0..n)
            .filter(|&p| p != me)
            .map(|p| mesh.stats(p))
            .fold((0, 0), |(s, g), st| {
                (s + st.bytes_sent, g + st.bytes_received)
            });
        Ok((took, sent, got))
    });
    let mut outs = outs.into_iter();
    let first = outs.next().ok_or("no party")??;
    for o in outs {
        o?;
    }
    Ok(first)
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let get = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|v| v.parse::<usize>().ok())
    };
    let log_m = get("--log-m").unwrap_or(16).clamp(7, 22);
    let reps = get("--reps").unwrap_or(5).max(1);
    let m = 1usize << log_m;
    println!("random OTs per ordered pair: 2^{log_m}; KOS over MR19 per run; TCP mesh on loopback, one thread per party; best and median of {reps}");
    println!(
        "{:>3} {:>7} {:>12} {:>12} {:>14} {:>22}",
        "n", "rounds", "best ms", "median ms", "M OT/s (all)", "party 0 sent / got MB"
    );
    for n in [2usize, 3, 4, 6] {
        let mut times = vec![];
        let mut bytes = (0, 0);
        for _ in 0..reps {
            let (t, s, g) = run(n, m)?;
            times.push(t);
            bytes = (s, g);
        }
        times.sort();
        let (best, median) = (times[0], times[times.len() / 2]);
        let rounds = if n % 2 == 0 { n - 1 } else { n };
        let ots = (n * (n - 1) * m) as f64;
        println!(
            "{:>3} {:>7} {:>12.2} {:>12.2} {:>14.2} {:>10.2} / {:<10.2}",
            n,
            rounds,
            best.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            ots / best.as_secs_f64() / 1e6,
            bytes.0 as f64 / 1e6,
            bytes.1 as f64 / 1e6
        );
    }
    Ok(())
}
