//! Latency of n-party rounds over the TCP mesh on loopback (one thread per
//! party in this process): one checked broadcast round
//! (`examples/broadcast_round.otp`) and the coin flip
//! (`protocols/coin_flip_n.otp`, two checked broadcasts) for n = 2..9, best
//! and median of `--reps` runs, and the bytes each party sends.
//!
//! ```text
//! cargo run --release --example mpc_rounds [-- --reps 200]
//! ```
//! Every run starts with the session hello (one all-to-all exchange), which
//! the generated driver always sends first; the `hello` column times that
//! exchange alone on the same mesh: the limit of the transport. A checked
//! broadcast run is three such exchanges (hello, the message, the digests),
//! the coin flip five; the `÷ limit` columns divide the best time by that
//! many best hellos. Times are party 0's wall clock from a barrier shared by
//! all parties to its output.

use ot::coin_flip_n;
use ot::runtime::mesh::{handshake, local_tcp_mesh, run_parties, Hello, Mesh, TcpMesh};
use ot::runtime::rng::Rng;
use ot::runtime::Block;
use std::sync::Barrier;
use std::time::{Duration, Instant};

mod broadcast {
    ot::protocol!("examples/broadcast_round.otp");
}

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// Runs `f` `reps` times at every party, all parties starting each run
/// together; returns party 0's times and the bytes party 0 sent in one run.
fn time_runs(
    n: usize,
    reps: usize,
    f: impl Fn(&mut TcpMesh, usize) -> Res<()> + Sync,
) -> Res<(Vec<Duration>, u64)> {
    let meshes = local_tcp_mesh(n)?;
    let barrier = Barrier::new(n);
    let sent = |m: &TcpMesh| (0..n).map(|p| m.stats(p).bytes_sent).sum::<u64>();
    let outs = run_parties(meshes, |m| -> Res<(Vec<Duration>, u64)> {
        let mut times = Vec::with_capacity(reps);
        let mut bytes = 0;
        for rep in 0..reps {
            barrier.wait();
            let before = sent(m);
            let t = Instant::now();
            f(m, rep)?;
            times.push(t.elapsed());
            bytes = sent(m) - before;
        }
        Ok((times, bytes))
    });
    let mut first = None;
    for o in outs {
        let o = o?;
        first.get_or_insert(o);
    }
    first.ok_or_else(|| "no parties".into())
}

fn session(rep: usize) -> [u8; 16] {
    let mut s = [0u8; 16];
    s[..8].copy_from_slice(&(rep as u64).to_le_bytes());
    s
}

fn hello_only(m: &mut TcpMesh, rep: usize) -> Res<()> {
    let h = Hello {
        protocol: "hello".into(),
        spec_hash: [0; 32],
        params: vec![],
        session: session(rep),
    };
    handshake(m, &h)?;
    Ok(())
}

fn broadcast_round(m: &mut TcpMesh, rep: usize) -> Res<()> {
    let params = broadcast::Params::new(m.parties())?;
    let input = broadcast::PInput {
        x: Block::from_u64(m.me() as u64),
    };
    let party = broadcast::P::new(m.me(), params, session(rep), input, Rng::from_entropy())?;
    let out = party.run(m)?;
    assert_eq!(out.values.len(), m.parties());
    Ok(())
}

fn coin_flip(m: &mut TcpMesh, rep: usize) -> Res<()> {
    let params = coin_flip_n::Params::new(m.parties())?;
    let input = coin_flip_n::PInput {};
    let party = coin_flip_n::P::new(m.me(), params, session(rep), input, Rng::from_entropy())?;
    party.run(m)?;
    Ok(())
}

fn best_median(mut t: Vec<Duration>) -> (f64, f64) {
    t.sort();
    let us = |d: Duration| d.as_secs_f64() * 1e6;
    (us(t[0]), us(t[t.len() / 2]))
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(200usize);
    println!("n-party rounds over the TCP mesh on loopback (one thread per party), {reps} runs each; times in microseconds (best / median), bytes sent per party per run (hello included)");
    println!(
        "{:>2} | {:>17} | {:>17} {:>7} {:>7} {:>7} | {:>17} {:>7} {:>7} {:>7}",
        "n",
        "hello",
        "broadcast round",
        "bytes",
        "comm",
        "÷ limit",
        "coin flip",
        "bytes",
        "comm",
        "÷ limit"
    );
    for n in 2..=9 {
        let (h, _) = time_runs(n, reps, hello_only)?;
        let (b, b_bytes) = time_runs(n, reps, broadcast_round)?;
        let (c, c_bytes) = time_runs(n, reps, coin_flip)?;
        let b_comm = broadcast::comm(&broadcast::Params::new(n)?).per_party;
        let c_comm = coin_flip_n::comm(&coin_flip_n::Params::new(n)?).per_party;
        let (h, b, c) = (best_median(h), best_median(b), best_median(c));
        let (b_ratio, c_ratio) = (b.0 / (3.0 * h.0), c.0 / (5.0 * h.0));
        println!(
            "{n:>2} | {:>7.0} / {:>7.0} | {:>7.0} / {:>7.0} {b_bytes:>7} {b_comm:>7} {b_ratio:>7.1} | {:>7.0} / {:>7.0} {c_bytes:>7} {c_comm:>7} {c_ratio:>7.1}",
            h.0, h.1, b.0, b.1, c.0, c.1
        );
    }
    println!("`comm`: the protocol's bytes per party from the specification (generated `comm()`, without the hello)");
    Ok(())
}
