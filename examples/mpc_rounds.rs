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
//! exchange alone on the same mesh: the limit of the transport. A run is
//! `comm().rounds + 1` such exchanges (the hello, then every round and every
//! broadcast check not batched with the next round's messages): three for
//! the checked broadcast (hello, the message, the digests), four for the
//! coin flip (hello, commitments, their digests sent with the openings, the
//! openings' digests); the `÷ limit` columns divide the best time by that
//! many best hellos. Times are party 0's wall clock from a barrier shared by
//! all parties to its output.

use ot::coin_flip_n;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{handshake, local_tcp_mesh, run_parties, Hello, Mesh, TcpMesh};
use ot::runtime::Block;
use std::sync::Barrier;
use std::time::{Duration, Instant};

mod broadcast {
    ot::protocol!("examples/broadcast_round.otp");
}

/// Two checked broadcasts whose second message does not depend on the
/// first: the first's digests go out with the second's messages.
mod batched {
    ot::protocol! {
        protocol TwoBroadcasts(role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: Block, z: Block }
            output P[i] { out: Block }
            round first: P[i] -> all : First { x: Block }
            round second: P[i] -> all : Second { z: Block }
            at P[i] { out = coin_hash(coin_hash(session, x), z); }
        }
    }
}

/// The same two broadcasts, the second message computed from the first
/// round's values: its digest exchange is a flight of its own.
mod chained {
    ot::protocol! {
        protocol TwoBroadcastsChained(role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: Block }
            output P[i] { out: Block }
            round first: P[i] -> all : First { x: Block }
            at P[i] { z = coin_hash(session, x); }
            round second: P[i] -> all : Second { z: Block }
            at P[i] { out = coin_hash(session, z); }
        }
    }
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

fn two_batched(m: &mut TcpMesh, rep: usize) -> Res<()> {
    let params = batched::Params::new(m.parties())?;
    let x = Block::from_u64(m.me() as u64);
    let input = batched::PInput { x, z: x };
    batched::P::new(m.me(), params, session(rep), input, Rng::from_entropy())?.run(m)?;
    Ok(())
}

fn two_chained(m: &mut TcpMesh, rep: usize) -> Res<()> {
    let params = chained::Params::new(m.parties())?;
    let input = chained::PInput {
        x: Block::from_u64(m.me() as u64),
    };
    chained::P::new(m.me(), params, session(rep), input, Rng::from_entropy())?.run(m)?;
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
        let b_comm = broadcast::comm(&broadcast::Params::new(n)?);
        let c_comm = coin_flip_n::comm(&coin_flip_n::Params::new(n)?);
        let (h, b, c) = (best_median(h), best_median(b), best_median(c));
        let flights = |rounds: usize| (rounds + 1) as f64 * h.0;
        let (b_ratio, c_ratio) = (b.0 / flights(b_comm.rounds), c.0 / flights(c_comm.rounds));
        let (b_comm, c_comm) = (b_comm.per_party, c_comm.per_party);
        println!(
            "{n:>2} | {:>7.0} / {:>7.0} | {:>7.0} / {:>7.0} {b_bytes:>7} {b_comm:>7} {b_ratio:>7.1} | {:>7.0} / {:>7.0} {c_bytes:>7} {c_comm:>7} {c_ratio:>7.1}",
            h.0, h.1, b.0, b.1, c.0, c.1
        );
    }
    println!("`comm`: the protocol's bytes per party from the specification (generated `comm()`, without the hello)");
    println!();
    println!("two checked broadcasts, the second message independent of the first (its check batched with it: 3 flights after the hello) or computed from it (4 flights); times in microseconds (best / median)");
    println!(
        "{:>2} | {:>17} | {:>17} | {:>9}",
        "n", "batched", "not batched", "median ÷"
    );
    for n in 2..=9 {
        let (b, _) = time_runs(n, reps, two_batched)?;
        let (c, _) = time_runs(n, reps, two_chained)?;
        let rounds = (
            batched::comm(&batched::Params::new(n)?).rounds,
            chained::comm(&chained::Params::new(n)?).rounds,
        );
        assert_eq!(rounds, (3, 4));
        let (b, c) = (best_median(b), best_median(c));
        println!(
            "{n:>2} | {:>7.0} / {:>7.0} | {:>7.0} / {:>7.0} | {:>9.2}",
            b.0,
            b.1,
            c.0,
            c.1,
            b.1 / c.1
        );
    }
    Ok(())
}
