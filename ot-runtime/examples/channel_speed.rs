//! Bulk throughput of the channel implementations.
//!
//! One party streams 256 MiB to the other as fixed-size frames (256 KiB and
//! 1 MiB), the way OT extension streams its big matrices; the receiver
//! reuses one buffer for every frame (`recv_into`). Printed for
//! - `MemoryChannel`, two threads,
//! - `TcpChannel` over loopback, two threads of one process,
//! - `TcpChannel` over loopback, two processes (the example re-executes
//!   itself with `--child` for the sending party),
//!
//! each with `Channel::send(&[u8])` (borrowed frame), with
//! `Channel::send_vec` of a vector the sender has just allocated and filled
//! (owned frame), and with `send_vec` of a buffer from
//! `Channel::frame_buffer` (owned frame in a recycled buffer), next to a
//! `memcpy` reference measured in the same run.
//!
//! Besides GB/s, each row shows the minor page faults per run (on Linux,
//! from `/proc/self/stat`; both parties, also for two processes), a direct
//! measure of fresh memory being mapped for frames, and much less noisy than
//! time on a shared machine.
//!
//! Run with `cargo run --release -p ot-runtime --example channel_speed`
//! (`--reps N` for the number of timed runs per row, best is reported;
//! `--only memory|threads|processes` for a subset of the transports).

use std::error::Error;
use std::hint::black_box;
use std::net::TcpListener;
use std::process::{Command, ExitCode};
use std::thread;
use std::time::{Duration, Instant};

use ot_runtime::transport::channel::{local_pair_tcp, Channel, MemoryChannel, TcpChannel};

type Res<T> = Result<T, Box<dyn Error + Send + Sync>>;

/// Bytes streamed per timed run.
const TOTAL: usize = 256 << 20;
/// Frame sizes measured.
const FRAMES: [usize; 2] = [256 << 10, 1 << 20];
/// Time-out of the TCP channels (generous: this is a benchmark).
const TIMEOUT: Duration = Duration::from_secs(120);

/// How the sender hands frames to the channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Mode {
    /// `send(&[u8])` of one reused source buffer.
    Borrowed,
    /// `send_vec` of a fresh vector filled from the source buffer, as a
    /// protocol does that produces an owned chunk per frame.
    Owned,
    /// Like `Owned`, but the vector comes from `Channel::frame_buffer`.
    Recycled,
}

/// All modes, in the order printed.
const MODES: [Mode; 3] = [Mode::Borrowed, Mode::Owned, Mode::Recycled];

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Borrowed => "send(&[u8])",
            Mode::Owned => "send_vec",
            Mode::Recycled => "send_vec(frame_buffer)",
        }
    }

    fn arg(self) -> &'static str {
        match self {
            Mode::Borrowed => "borrowed",
            Mode::Owned => "owned",
            Mode::Recycled => "recycled",
        }
    }

    fn parse(s: &str) -> Res<Mode> {
        match s {
            "borrowed" => Ok(Mode::Borrowed),
            "owned" => Ok(Mode::Owned),
            "recycled" => Ok(Mode::Recycled),
            _ => Err(format!("unknown mode {s}").into()),
        }
    }
}

/// Sending party: for each of `reps` runs, waits for the receiver's "go"
/// byte and streams `TOTAL` bytes as `frame`-byte frames. The first byte of
/// frame `i` is `i as u8` so that the receiver can spot misordered or stale
/// frames.
fn sender(ch: &mut dyn Channel, frame: usize, mode: Mode, reps: usize) -> Res<()> {
    let mut src: Vec<u8> = (0..frame).map(|i| (i * 7 + 3) as u8).collect();
    let mut go = Vec::new();
    for _ in 0..reps {
        ch.recv_into(&mut go, 1)?;
        for i in 0..TOTAL / frame {
            src[0] = i as u8;
            match mode {
                Mode::Borrowed => ch.send(&src)?,
                Mode::Owned => ch.send_vec(src.clone())?,
                Mode::Recycled => {
                    let mut v = ch.frame_buffer(frame);
                    v.extend_from_slice(&src);
                    ch.send_vec(v)?;
                }
            }
        }
        ch.flush()?;
    }
    Ok(())
}

/// Minor page faults of this process so far (0 where `/proc` is missing).
fn minor_faults() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; `minflt` is field 10.
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(7))
        .and_then(|f| f.parse().ok())
        .unwrap_or(0)
}

/// Receiving party: returns the best time of `reps` runs, from sending "go"
/// until the last frame has arrived.
fn receiver(ch: &mut dyn Channel, frame: usize, reps: usize) -> Res<Duration> {
    let mut buf = Vec::new();
    let mut best = Duration::MAX;
    let mut sum = 0u64;
    for _ in 0..reps {
        let t = Instant::now();
        ch.send(&[1])?;
        ch.flush()?;
        for i in 0..TOTAL / frame {
            ch.recv_into(&mut buf, frame)?;
            if buf.len() != frame || buf[0] != i as u8 || buf[1] != 10 {
                return Err(format!("frame {i} corrupted").into());
            }
            // Touch one byte per page, as a consumer would read the frame.
            sum += buf.iter().step_by(4096).map(|&b| u64::from(b)).sum::<u64>();
        }
        best = best.min(t.elapsed());
    }
    black_box(sum);
    Ok(best)
}

/// Runs both parties on two threads over the given pair.
fn two_threads<C: Channel + Send + 'static>(
    (mut a, mut b): (C, C),
    frame: usize,
    mode: Mode,
    reps: usize,
) -> Res<(Duration, u64)> {
    let f0 = minor_faults();
    let h = thread::spawn(move || sender(&mut a, frame, mode, reps));
    let t = receiver(&mut b, frame, reps)?;
    h.join().map_err(|_| "sender panicked")??;
    Ok((t, (minor_faults() - f0) / reps as u64))
}

/// Runs the receiver here and the sender in a child process.
/// The child reports its own page faults as one last 8-byte frame.
fn two_processes(frame: usize, mode: Mode, reps: usize) -> Res<(Duration, u64)> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let mut kid = Command::new(std::env::current_exe()?)
        .args([
            "--child",
            &port.to_string(),
            &frame.to_string(),
            mode.arg(),
            &reps.to_string(),
        ])
        .spawn()?;
    let mut ch = TcpChannel::accept(&listener, TIMEOUT)?;
    let f0 = minor_faults();
    let t = receiver(&mut ch, frame, reps)?;
    let mine = minor_faults() - f0;
    let theirs = u64::from_le_bytes(ch.recv(8)?.try_into().map_err(|_| "bad report")?);
    let status = kid.wait()?;
    if !status.success() {
        return Err(format!("sender process failed: {status}").into());
    }
    Ok((t, (mine + theirs) / reps as u64))
}

fn child(args: &[String]) -> Res<()> {
    let port: u16 = args.first().ok_or("missing port")?.parse()?;
    let frame: usize = args.get(1).ok_or("missing frame size")?.parse()?;
    let mode = Mode::parse(args.get(2).ok_or("missing mode")?)?;
    let reps: usize = args.get(3).ok_or("missing reps")?.parse()?;
    let mut ch = TcpChannel::connect(("127.0.0.1", port), TIMEOUT)?;
    let f0 = minor_faults();
    sender(&mut ch, frame, mode, reps)?;
    ch.send(&(minor_faults() - f0).to_le_bytes())?;
    ch.flush()?;
    Ok(())
}

/// Best time to copy `TOTAL` bytes as `chunk`-byte copies from one warm
/// buffer into another (chunk = TOTAL: one big copy between two 256 MiB
/// buffers, i.e. DRAM bandwidth; small chunks: cache-resident copies).
fn memcpy_time(chunk: usize, reps: usize) -> Duration {
    let src = vec![1u8; chunk];
    let mut dst = vec![0u8; chunk];
    let mut best = Duration::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        for _ in 0..TOTAL / chunk {
            dst.copy_from_slice(black_box(&src));
            black_box(&mut dst);
        }
        best = best.min(t.elapsed());
    }
    best
}

fn gbps(t: Duration) -> f64 {
    TOTAL as f64 / t.as_secs_f64() / 1e9
}

fn kib(n: usize) -> String {
    if n >= 1 << 20 {
        format!("{} MiB", n >> 20)
    } else {
        format!("{} KiB", n >> 10)
    }
}

fn run() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        return child(&args[1..]);
    }
    let reps = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse::<usize>().ok())
        .unwrap_or(3)
        .max(1);
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .map_or("", String::as_str);
    let want = |name: &str| only.is_empty() || name.contains(only);

    println!(
        "{} MiB one way per run, best of {reps}; GB/s = 1e9 bytes/s",
        TOTAL >> 20
    );
    println!(
        "{:<44} {:>8} {:>8} {:>10}",
        "transport", "frame", "GB/s", "faults/run"
    );
    for chunk in [256 << 10, 1 << 20, TOTAL] {
        let t = memcpy_time(chunk, reps);
        println!(
            "{:<44} {:>8} {:>8.2}",
            "memcpy (reference)",
            kib(chunk),
            gbps(t)
        );
    }
    for mode in MODES.into_iter().filter(|_| want("memory")) {
        for frame in FRAMES {
            let (t, f) = two_threads(MemoryChannel::pair(), frame, mode, reps)?;
            let name = format!("memory, 2 threads, {}", mode.name());
            println!("{name:<44} {:>8} {:>8.2} {f:>10}", kib(frame), gbps(t));
        }
    }
    for mode in MODES.into_iter().filter(|_| want("tcp threads")) {
        for frame in FRAMES {
            let (a, b) = local_pair_tcp()?;
            let pair = (a.with_timeout(TIMEOUT), b.with_timeout(TIMEOUT));
            let (t, f) = two_threads(pair, frame, mode, reps)?;
            let name = format!("tcp, 2 threads, {}", mode.name());
            println!("{name:<44} {:>8} {:>8.2} {f:>10}", kib(frame), gbps(t));
        }
    }
    for mode in MODES.into_iter().filter(|_| want("tcp processes")) {
        for frame in FRAMES {
            let (t, f) = two_processes(frame, mode, reps)?;
            let name = format!("tcp, 2 processes, {}", mode.name());
            println!("{name:<44} {:>8} {:>8.2} {f:>10}", kib(frame), gbps(t));
        }
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
