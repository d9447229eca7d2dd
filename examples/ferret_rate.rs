//! Ferret's silent random COT between two parties over TCP loopback, one
//! thread per party: for each requested size, a fresh pair at the sets
//! `ferret::levels_for` picks runs its set-up and the batches the request
//! needs (whole batches, then `finish`: a prefix batch of as many trees as
//! the rest needs, keeping no base for another batch), timed from the
//! first byte to the last output, with the bytes both directions carried
//! per delivered COT (at least the requested number) and the runtime's raw
//! AES rate in the same run.
//!
//! ```text
//! cargo run --release --example ferret_rate [-- --log-n 20,24 --reps 3]
//! ```

use std::time::Instant;

use ot::runtime::transport::channel::{local_pair_tcp, Channel};
use ot::{FerretReceiver, FerretSender};

#[path = "common/rates.rs"]
mod rates;
use rates::aes_blocks_per_second;

/// One pair delivering at least `n` COTs: (seconds, COTs, bytes both ways).
fn one(n: usize) -> (f64, usize, u64) {
    let (mut a, mut b) = local_pair_tcp().expect("loopback TCP");
    let (setup, main) = ot::runtime::silent::ferret::levels_for(n);
    let s = FerretSender::new().with_levels(setup, main);
    let r = FerretReceiver::new().with_levels(setup, main);
    let (mut s, mut r) = (s.expect("published sets"), r.expect("published sets"));
    let t = Instant::now();
    let (got, _) = std::thread::scope(|sc| {
        let h = sc.spawn(|| {
            let mut got = 0;
            while n - got > s.batch_len() {
                got += s.extend(&mut a).expect("sender").len();
            }
            got + s.finish(&mut a, n - got).expect("sender").len()
        });
        let mut got = 0;
        while n - got > r.batch_len() {
            got += r.extend(&mut b).expect("receiver").1.len();
        }
        got += r.finish(&mut b, n - got).expect("receiver").1.len();
        (got, h.join().expect("sender thread"))
    });
    let secs = t.elapsed().as_secs_f64();
    (secs, got, a.stats().bytes_sent + b.stats().bytes_sent)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let flag = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let sizes: Vec<u32> = flag("--log-n")
        .unwrap_or_else(|| "20,24".into())
        .split(',')
        .filter_map(|x| x.parse().ok())
        .collect();
    let reps: usize = flag("--reps").and_then(|x| x.parse().ok()).unwrap_or(3);
    let aes = aes_blocks_per_second();
    println!(
        "raw AES ({}): {:.0} M blocks/s; one main batch delivers {} COTs",
        ot::runtime::primitives::aes::backend_name(),
        aes * 1e-6,
        FerretSender::new().batch_len()
    );
    println!("| requested | delivered | best s | median s | M COT/s best / median | bytes/COT | COT/s over AES blocks/s |");
    println!("|---|---|---|---|---|---|---|");
    for log in sizes {
        let n = 1usize << log;
        let mut runs: Vec<(f64, usize, u64)> = (0..reps).map(|_| one(n)).collect();
        runs.sort_by(|x, y| x.0.total_cmp(&y.0));
        let (best, got, bytes) = runs[0];
        let median = runs[runs.len() / 2].0;
        println!(
            "| 2^{log} | {got} | {best:.3} | {median:.3} | {:.1} / {:.1} | {:.4} | {:.4} |",
            got as f64 / best * 1e-6,
            got as f64 / median * 1e-6,
            bytes as f64 / got as f64,
            got as f64 / best / aes
        );
    }
}
