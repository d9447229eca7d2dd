//! One party of a chosen-message OT session over TCP, as a process of its
//! own: the harness of the network fault tests (`tests/network/run`), and a
//! minimal two-machine example.
//!
//! ```text
//! net_party sender   --connect 10.77.0.2:7000 [options]
//! net_party receiver --listen 0.0.0.0:7000    [options]
//! options: --n N (OTs, default 65536)  --seed S (default 1)
//!          --protocol kos|iknp (default kos)  --timeout-ms T (default 3000)
//!          --out FILE (written only after a successful session)
//! ```
//!
//! Both parties derive the test inputs from `--seed`: the sender's message
//! pairs and the receiver's choice bits, so the receiver checks every output
//! itself. Exit codes: 0 success (outputs checked), 3 the session failed
//! with a typed error (printed on stderr as `error: ...`), 2 bad usage.
#![forbid(unsafe_code)]

use std::net::{SocketAddr, TcpListener};
use std::process::ExitCode;
use std::time::{Duration, Instant};

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::TcpChannel;
use ot::runtime::{Bits, Block};
use ot::{OtExtension, OtReceiver, OtSender};
use rand_core::RngCore;

/// Parsed command line.
struct Options {
    sender: bool,
    addr: SocketAddr,
    n: usize,
    seed: u64,
    malicious: bool,
    timeout: Duration,
    out: Option<String>,
}

fn parse(args: &[String]) -> Result<Options, String> {
    let role = args.first().ok_or("missing role: sender or receiver")?;
    let sender = match role.as_str() {
        "sender" => true,
        "receiver" => false,
        other => return Err(format!("unknown role {other:?}: sender or receiver")),
    };
    let value = |flag: &str| -> Option<&String> {
        let i = args.iter().position(|a| a == flag)?;
        args.get(i + 1)
    };
    let addr_flag = if sender { "--connect" } else { "--listen" };
    let addr = value(addr_flag)
        .ok_or(format!("{role} needs {addr_flag} HOST:PORT"))?
        .parse()
        .map_err(|e| format!("{addr_flag}: {e}"))?;
    let number = |flag: &str, default: u64| -> Result<u64, String> {
        value(flag).map_or(Ok(default), |v| {
            v.parse().map_err(|e| format!("{flag} {v:?}: {e}"))
        })
    };
    let malicious = match value("--protocol").map(String::as_str) {
        None | Some("kos") => true,
        Some("iknp") => false,
        Some(other) => return Err(format!("--protocol {other:?}: kos or iknp")),
    };
    Ok(Options {
        sender,
        addr,
        n: usize::try_from(number("--n", 1 << 16)?).map_err(|e| e.to_string())?,
        seed: number("--seed", 1)?,
        malicious,
        timeout: Duration::from_millis(number("--timeout-ms", 3000)?),
        out: value("--out").cloned(),
    })
}

/// The sender's message pairs for `seed`.
fn messages(seed: u64, n: usize) -> Vec<[Block; 2]> {
    let mut rng = Rng::deterministic_for_tests(seed);
    let mut block = || {
        let mut b = [0u8; 16];
        rng.fill_bytes(&mut b);
        Block::from(b)
    };
    (0..n).map(|_| [block(), block()]).collect()
}

/// The receiver's choice bits for `seed`.
fn choices(seed: u64, n: usize) -> Bits {
    Bits::random(&mut Rng::deterministic_for_tests(seed ^ 0x5eed), n)
}

/// Connects, retrying while the listener is not up yet, for at most `timeout`.
fn connect(addr: SocketAddr, timeout: Duration) -> std::io::Result<TcpChannel> {
    let start = Instant::now();
    loop {
        match TcpChannel::connect(addr, timeout) {
            Ok(ch) => return Ok(ch),
            Err(e) if start.elapsed() < timeout => {
                let _ = e;
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(e),
        }
    }
}

/// Runs the session; `Ok` carries the line to print and write.
fn run(o: &Options) -> Result<String, String> {
    let mut ext = if o.malicious {
        OtExtension::kos()
    } else {
        OtExtension::iknp()
    };
    let started = Instant::now();
    if o.sender {
        let mut ch = connect(o.addr, o.timeout).map_err(|e| format!("connect: {e}"))?;
        let m = messages(o.seed, o.n);
        ext.send(&mut ch, &m).map_err(|e| e.to_string())?;
        Ok(format!("sent {} OTs in {:?}", o.n, started.elapsed()))
    } else {
        let listener = TcpListener::bind(o.addr).map_err(|e| format!("listen: {e}"))?;
        let mut ch = TcpChannel::accept(&listener, o.timeout * 10)
            .map_err(|e| format!("accept: {e}"))?
            .with_timeout(o.timeout);
        let c = choices(o.seed, o.n);
        let got = ext.receive(&mut ch, &c).map_err(|e| e.to_string())?;
        let m = messages(o.seed, o.n);
        let wrong = (0..o.n)
            .filter(|&i| got[i] != m[i][usize::from(c.get(i))])
            .count();
        if wrong > 0 {
            return Err(format!("{wrong} of {} outputs are wrong", o.n));
        }
        Ok(format!(
            "received {} OTs in {:?}, all checked",
            o.n,
            started.elapsed()
        ))
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let o = match parse(&args) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("net_party: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&o) {
        Ok(line) => {
            println!("{line}");
            if let Some(path) = &o.out {
                // Written whole, then renamed: a failed or killed session
                // never leaves a partial output file.
                let tmp = format!("{path}.partial");
                if let Err(e) = std::fs::write(&tmp, format!("{line}\n"))
                    .and_then(|()| std::fs::rename(&tmp, path))
                {
                    eprintln!("error: writing {path}: {e}");
                    return ExitCode::from(3);
                }
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(3)
        }
    }
}
