//! KKRT16 private set intersection (`protocols/kkrt_psi.otp`) between two
//! parties over TCP loopback, one thread per party: sets of `2^log-n`
//! random 128-bit elements each, half of them shared. Prints the wall
//! time (the receiver's, from `new` to its output: cuckoo hashing, the 512
//! base OTs and their IKNP extension, the OPRF, the sender's tags and the
//! comparison), the bytes each way and per element, and, measured in the
//! same run, the OPRF alone (`kkrt.otp` on the same number of bins) and
//! the runtime's fixed-key AES rate, as the kernel limits the PSI is
//! compared with.
//!
//! ```text
//! cargo run --release --example psi                   # 2^20 x 2^20, one thread per party
//! cargo run --release --example psi -- --log-n 16     # 2^16 x 2^16
//! cargo run --release --example psi -- --threads 2    # kernels split over 2 cores per party
//! cargo run --release --example psi -- --reps 3       # best of 3 runs (default 2)
//! ```

use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::transport::channel::{local_pair_tcp, Channel};
use ot::runtime::{Bits, Block};
use ot::{kkrt_psi, BatchedOprfReceiver, BatchedOprfSender, Oprf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

#[path = "common/rates.rs"]
mod rates;
use rates::aes_blocks_per_second;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// What one run measured.
struct Run {
    time: Duration,
    sent: u64,
    received: u64,
}

/// One PSI run over a fresh TCP pair; checks the receiver's output
/// against `expected`.
fn psi_run(x: &[Block], y: &[Block], threads: usize, expected: &Bits) -> Res<Run> {
    let (mut a, mut b) = local_pair_tcp()?;
    let p = kkrt_psi::Params::new(y.len(), x.len(), threads)?;
    let (sender, receiver) = std::thread::scope(|sc| {
        let h = sc.spawn(move || -> Res<()> {
            let subs = kkrt_psi::SenderSubs {
                oprf: Box::new(Oprf::kkrt().with_threads(threads)),
            };
            let input = kkrt_psi::SenderInput { set: y.to_vec() };
            kkrt_psi::Sender::new(p, input, Rng::from_entropy(), subs)?.run(&mut a)?;
            Ok(())
        });
        let t = Instant::now();
        let r = (|| -> Res<(Bits, Duration)> {
            let subs = kkrt_psi::ReceiverSubs {
                oprf: Box::new(Oprf::kkrt().with_threads(threads)),
            };
            let input = kkrt_psi::ReceiverInput { set: x.to_vec() };
            let out = kkrt_psi::Receiver::new(p, input, Rng::from_entropy(), subs)?.run(&mut b)?;
            Ok((out.member, t.elapsed()))
        })();
        (h.join(), r)
    });
    sender.map_err(|_| "the sender's thread panicked")??;
    let (member, time) = receiver?;
    if &member != expected {
        return Err("the receiver's intersection is wrong".into());
    }
    let st = b.stats();
    Ok(Run {
        time,
        sent: st.bytes_sent,
        received: st.bytes_received,
    })
}

/// The OPRF alone on `m` instances (`kkrt.otp`, base OTs included).
fn oprf_run(m: usize, threads: usize) -> Res<Duration> {
    let (mut a, mut b) = local_pair_tcp()?;
    let mut rng = Rng::from_entropy();
    let inputs: Vec<Block> = (0..m).map(|_| Block::sample(&mut rng)).collect();
    let (s, r) = std::thread::scope(|sc| {
        let h = sc.spawn(move || Oprf::kkrt().with_threads(threads).send_oprf(&mut a, m));
        let t = Instant::now();
        let r = Oprf::kkrt()
            .with_threads(threads)
            .receive_oprf(&mut b, &inputs)
            .map(|v| (v, t.elapsed()));
        (h.join(), r)
    });
    let key = s.map_err(|_| "the OPRF sender's thread panicked")??;
    let (values, time) = r?;
    if key.eval(0, inputs[0]) != values.first().copied() {
        return Err("the OPRF's values are wrong".into());
    }
    Ok(time)
}

/// The value of `--name N` (`2^k` accepted), or `default`.
fn arg(args: &[String], name: &str, default: usize) -> Res<usize> {
    let Some(i) = args.iter().position(|a| a == name) else {
        return Ok(default);
    };
    let v = args
        .get(i + 1)
        .ok_or_else(|| format!("{name} needs a value"))?;
    let n = match v.strip_prefix("2^") {
        Some(e) => 1usize.checked_shl(e.parse()?).ok_or("exponent too large")?,
        None => v.parse()?,
    };
    Ok(n)
}

fn run() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(a) = args
        .iter()
        .find(|a| !a.starts_with("--") && a.parse::<usize>().is_err() && !a.starts_with("2^"))
    {
        return Err(format!("unknown argument `{a}` (see the example's docs)").into());
    }
    let log_n = arg(&args, "--log-n", 20)?;
    let threads = arg(&args, "--threads", 1)?.max(1);
    let reps = arg(&args, "--reps", 2)?.max(1);
    if log_n > 26 {
        return Err("--log-n above 26 does not fit this example's memory budget".into());
    }
    let n = 1usize << log_n;
    let mut rng = Rng::from_entropy();
    // Half of the receiver's elements are the sender's.
    let y: Vec<Block> = (0..n).map(|_| Block::sample(&mut rng)).collect();
    let x: Vec<Block> = (0..n)
        .map(|i| {
            if i % 2 == 0 {
                y[i]
            } else {
                Block::sample(&mut rng)
            }
        })
        .collect();
    let expected = Bits::from_bools(&(0..n).map(|i| i % 2 == 0).collect::<Vec<_>>());
    let aes = aes_blocks_per_second();
    eprintln!("psi: 2^{log_n} x 2^{log_n}, {threads} thread(s) per party, best of {reps} ...");
    let mut best: Option<Run> = None;
    for _ in 0..reps {
        let r = psi_run(&x, &y, threads, &expected)?;
        if best.as_ref().is_none_or(|b| r.time < b.time) {
            best = Some(r);
        }
    }
    let best = best.ok_or("no run")?;
    let bins = ot::runtime::psi::psi_bins(n);
    let mut oprf = Duration::MAX;
    for _ in 0..reps {
        oprf = oprf.min(oprf_run(bins, threads)?);
    }
    let secs = best.time.as_secs_f64();
    let bytes = best.sent + best.received;
    println!("KKRT16 PSI (protocols/kkrt_psi.otp), TCP loopback, {threads} thread(s) per party");
    println!(
        "| sets | time (s) | elements/s | receiver -> sender (MB) | sender -> receiver (MB) | bytes/element | OPRF alone on {bins} bins (s) | PSI / OPRF |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    println!(
        "| 2^{log_n} x 2^{log_n} | {secs:.3} | {:.2} M | {:.1} | {:.1} | {:.1} | {:.3} | {:.2} |",
        n as f64 / secs / 1e6,
        best.sent as f64 / 1e6,
        best.received as f64 / 1e6,
        bytes as f64 / n as f64,
        oprf.as_secs_f64(),
        secs / oprf.as_secs_f64(),
    );
    println!(
        "runtime raw fixed-key AES: {:.1} M blocks/s; the PSI's time is {:.1} AES blocks per element",
        aes / 1e6,
        secs * aes / n as f64
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("psi: {e}");
            ExitCode::from(2)
        }
    }
}
