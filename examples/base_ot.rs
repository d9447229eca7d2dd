//! Base-OT benchmark: time for 128 and 1024 random OTs with CO15, NP00 and
//! MR19,
//! and the bytes sent each way, over TCP loopback between two processes
//! (default) or two threads over the in-memory channel (`--memory`).
//!
//! ```text
//! cargo run --release --example base_ot            # two processes, TCP loopback
//! cargo run --release --example base_ot -- --memory
//! ```
//! Reported time: wall clock of the sender from the start of the protocol
//! (connection already open) to its output, best and median of `--reps` runs.
//!
//! The same run measures the group operations the sender cannot avoid
//! (Ristretto via curve25519-dalek, its run-time selected backend): per
//! received point a decompression and a variable-base multiplication by
//! the sender's secret (CO15, NP00: one; MR19: two points per OT, each also
//! hashed to the group; CO15 and MR19 multiply in batches of eight on
//! AVX-512 IFMA).
//! Their sum over `n` OTs is the sender's arithmetic
//! floor, printed beside each row with the ratio of the best time to it.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{Channel, MemoryChannel, TcpChannel};
use ot::runtime::{Bits, Block};
use std::net::TcpListener;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

#[derive(Clone, Copy)]
enum Proto {
    Co15,
    Np00,
    Mr19,
}

impl Proto {
    fn name(self) -> &'static str {
        match self {
            Proto::Co15 => "CO15",
            Proto::Np00 => "NP00",
            Proto::Mr19 => "MR19",
        }
    }
    fn parse(s: &str) -> Option<Proto> {
        match s {
            "co15" => Some(Proto::Co15),
            "np00" => Some(Proto::Np00),
            "mr19" => Some(Proto::Mr19),
            _ => None,
        }
    }
    fn arg(self) -> &'static str {
        match self {
            Proto::Co15 => "co15",
            Proto::Np00 => "np00",
            Proto::Mr19 => "mr19",
        }
    }
}

type Res<T> = Result<T, Box<dyn std::error::Error>>;

fn sender(p: Proto, n: usize, ch: &mut dyn Channel) -> Res<()> {
    let rng = Rng::from_entropy();
    match p {
        Proto::Co15 => {
            ot::co15::Sender::new(ot::co15::Params::new(n)?, ot::co15::SenderInput {}, rng)?
                .run(ch)?;
        }
        Proto::Np00 => {
            ot::np00::Sender::new(ot::np00::Params::new(n)?, ot::np00::SenderInput {}, rng)?
                .run(ch)?;
        }
        Proto::Mr19 => {
            ot::mr19::Sender::new(ot::mr19::Params::new(n)?, ot::mr19::SenderInput {}, rng)?
                .run(ch)?;
        }
    }
    Ok(())
}

fn receiver(p: Proto, n: usize, ch: &mut dyn Channel) -> Res<()> {
    let mut rng = Rng::from_entropy();
    let choices = Bits::random(&mut rng, n);
    match p {
        Proto::Co15 => {
            ot::co15::Receiver::new(
                ot::co15::Params::new(n)?,
                ot::co15::ReceiverInput { choices },
                rng,
            )?
            .run(ch)?;
        }
        Proto::Np00 => {
            ot::np00::Receiver::new(
                ot::np00::Params::new(n)?,
                ot::np00::ReceiverInput { choices },
                rng,
            )?
            .run(ch)?;
        }
        Proto::Mr19 => {
            ot::mr19::Receiver::new(
                ot::mr19::Params::new(n)?,
                ot::mr19::ReceiverInput { choices },
                rng,
            )?
            .run(ch)?;
        }
    }
    Ok(())
}

fn comm(p: Proto, n: usize) -> Res<(usize, usize)> {
    Ok(match p {
        Proto::Co15 => {
            let c = ot::co15::comm(&ot::co15::Params::new(n)?);
            (c.sender, c.receiver)
        }
        Proto::Np00 => {
            let c = ot::np00::comm(&ot::np00::Params::new(n)?);
            (c.sender, c.receiver)
        }
        Proto::Mr19 => {
            let c = ot::mr19::comm(&ot::mr19::Params::new(n)?);
            (c.sender, c.receiver)
        }
    })
}

/// Child process: the receiver, connecting to the parent's port, `reps` runs.
fn child(args: &[String]) -> Res<()> {
    let p = Proto::parse(&args[0]).ok_or("bad protocol")?;
    let n: usize = args[1].parse()?;
    let port: u16 = args[2].parse()?;
    let reps: usize = args[3].parse()?;
    let mut ch = TcpChannel::connect(("127.0.0.1", port), Duration::from_secs(30))?;
    for _ in 0..reps {
        receiver(p, n, &mut ch)?;
    }
    Ok(())
}

fn measure(p: Proto, n: usize, reps: usize, memory: bool) -> Res<(Vec<Duration>, u64, u64)> {
    let mut times = vec![];
    if memory {
        let (mut a, mut b) = MemoryChannel::pair();
        std::thread::scope(|s| -> Res<()> {
            let h = s.spawn(move || -> Result<(), String> {
                for _ in 0..reps {
                    receiver(p, n, &mut b).map_err(|e| e.to_string())?;
                }
                Ok(())
            });
            for _ in 0..reps {
                let t = Instant::now();
                sender(p, n, &mut a)?;
                times.push(t.elapsed());
            }
            h.join().map_err(|_| "receiver thread panicked")??;
            Ok(())
        })?;
        let st = a.stats();
        return Ok((
            times,
            st.bytes_sent / reps as u64,
            st.bytes_received / reps as u64,
        ));
    }
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let exe = std::env::current_exe()?;
    let mut kid = Command::new(exe)
        .args([
            "--child",
            p.arg(),
            &n.to_string(),
            &port.to_string(),
            &reps.to_string(),
        ])
        .spawn()?;
    let mut ch = TcpChannel::accept(&listener, Duration::from_secs(30))?;
    for _ in 0..reps {
        let t = Instant::now();
        sender(p, n, &mut ch)?;
        times.push(t.elapsed());
    }
    let status = kid.wait()?;
    if !status.success() {
        return Err(format!("receiver process failed: {status}").into());
    }
    let st = ch.stats();
    Ok((
        times,
        st.bytes_sent / reps as u64,
        st.bytes_received / reps as u64,
    ))
}

fn run() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        return child(&args[1..]);
    }
    let memory = args.iter().any(|a| a == "--memory");
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(10usize);
    println!("Base OT, random 128-bit messages, {} ({} runs each; sender wall clock from protocol start to output)", if memory { "two threads, in-memory channel" } else { "two processes, TCP loopback" }, reps);
    let ops = GroupOps::measure();
    println!(
        "group operations (same run, best of 5 x 1024): variable-base mul {:.1} us (batched, one scalar: {:.1} us; with the product minus a fixed point: {:.1} us), decompress {:.1} us, hash to group {:.1} us, fixed-base mul {:.1} us",
        ops.var_mul * 1e6,
        ops.batched_mul * 1e6,
        ops.batched_pair * 1e6,
        ops.decompress * 1e6,
        ops.hash * 1e6,
        ops.base_mul * 1e6
    );
    println!(
        "{:<6} {:>6} {:>10} {:>10} {:>14} {:>14} {:>10} {:>12} {:>8}",
        "proto",
        "n",
        "best ms",
        "median ms",
        "bytes S->R",
        "bytes R->S",
        "spec ok",
        "floor ms",
        "x floor"
    );
    for p in [Proto::Co15, Proto::Np00, Proto::Mr19] {
        for n in [128usize, 1024] {
            let (mut times, sent, recv) = measure(p, n, reps, memory)?;
            times.sort();
            let (cs, cr) = comm(p, n)?;
            let ok = sent as usize == cs && recv as usize == cr;
            let floor = ops.sender_floor(p, n);
            let best = times[0].as_secs_f64();
            println!(
                "{:<6} {:>6} {:>10.3} {:>10.3} {:>14} {:>14} {:>10} {:>12.3} {:>8.2}",
                p.name(),
                n,
                best * 1e3,
                times[times.len() / 2].as_secs_f64() * 1e3,
                sent,
                recv,
                if ok { "yes" } else { "NO" },
                floor * 1e3,
                best / floor
            );
        }
    }
    Ok(())
}

/// Seconds per group operation, measured in this run.
struct GroupOps {
    var_mul: f64,
    /// Per point, one scalar times a batch with the key derivation's
    /// encoding (`ec_batch::mul_doubled_encodings`, MR19's sender).
    batched_mul: f64,
    /// Per point, the same with the product minus a fixed point encoded
    /// too (`ec_batch::mul_doubled_encoding_pairs`, CO15's sender).
    batched_pair: f64,
    decompress: f64,
    hash: f64,
    base_mul: f64,
}

impl GroupOps {
    /// Best of 5 batches of 1024 of each operation.
    fn measure() -> GroupOps {
        use ot::runtime::primitives::ec::{base_mul, point_mul, random_point, random_scalar};
        use ot::runtime::transport::wire::Wire;
        const N: usize = 1024;
        let mut rng = Rng::from_entropy();
        let a = random_scalar(&mut rng);
        let points: Vec<_> = (0..N).map(|_| random_point(&mut rng)).collect();
        let bytes: Vec<[u8; 32]> = points
            .iter()
            .map(|p| {
                let mut b = [0u8; 32];
                p.write(&mut b);
                b
            })
            .collect();
        let best = |f: &mut dyn FnMut()| {
            (0..5)
                .map(|_| {
                    let t = Instant::now();
                    f();
                    t.elapsed().as_secs_f64() / N as f64
                })
                .fold(f64::MAX, f64::min)
        };
        let var_mul = best(&mut || {
            for p in &points {
                std::hint::black_box(point_mul(*p, a));
            }
        });
        let batched_mul = best(&mut || {
            std::hint::black_box(ot::runtime::primitives::ec_batch::mul_doubled_encodings(
                a, &points,
            ));
        });
        let batched_pair = best(&mut || {
            std::hint::black_box(
                ot::runtime::primitives::ec_batch::mul_doubled_encoding_pairs(
                    a, &points, points[0],
                ),
            );
        });
        let decompress = best(&mut || {
            for b in &bytes {
                std::hint::black_box(<ot::runtime::primitives::ec::Point as Wire>::read(b).ok());
            }
        });
        let hash = best(&mut || {
            std::hint::black_box(ot::runtime::otext::endemic::hash_to_group(
                Block::ZERO,
                0,
                false,
                &points,
            ));
        });
        let base_mul = best(&mut || {
            for _ in 0..N {
                std::hint::black_box(base_mul(a));
            }
        });
        GroupOps {
            var_mul,
            batched_mul,
            batched_pair,
            decompress,
            hash,
            base_mul,
        }
    }

    /// The sender's unavoidable arithmetic for `n` OTs of `p`: one
    /// fixed-base multiplication (its public key), then per received point
    /// a decompression and a multiplication by its secret (CO15: batched,
    /// with its second value per OT); MR19 receives two points per OT,
    /// hashes each to the group and multiplies them in batches.
    fn sender_floor(&self, p: Proto, n: usize) -> f64 {
        let per_ot = match p {
            Proto::Co15 => self.decompress + self.batched_pair,
            Proto::Np00 => self.decompress + self.var_mul,
            Proto::Mr19 => 2.0 * (self.decompress + self.batched_mul + self.hash),
        };
        self.base_mul + n as f64 * per_ot
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
