//! `otp bench`: runs both roles of shipped random-OT protocols in this
//! process (two threads, over an in-memory channel or TCP loopback) and
//! prints protocol, security, time, OT/s, bytes/OT and the ratio to the
//! fixed-key AES throughput measured in the same run (the kernel limit the
//! OT extensions hash with). Every run's outputs are checked: the
//! receiver's OT `i` must equal the sender's message `r_i`.

use crate::params::value_of;
use crate::Fail;
use indicatif::{ProgressBar, ProgressStyle};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{local_pair_tcp, Channel, MemoryChannel};
use ot::runtime::{Bits, Block};
use ot::traits::{BaseOt, BaseOtKind, OtExtension, RandomOtReceiver, RandomOtSender};
use serde_json::json;
use std::time::{Duration, Instant};

/// A sender and a receiver of one protocol.
pub type Parties = (
    Box<dyn RandomOtSender + Send>,
    Box<dyn RandomOtReceiver + Send>,
);

/// A shipped protocol as `bench` and `run` run it.
pub struct Entry {
    /// Name on the command line.
    pub name: &'static str,
    /// At most this many OTs per bench run (the public-key base OTs are slow).
    max_ots: usize,
    /// Builds both parties with this many worker threads each.
    pub parties: fn(threads: usize) -> Parties,
}

fn base(kind: BaseOtKind) -> Parties {
    (Box::new(BaseOt::new(kind)), Box::new(BaseOt::new(kind)))
}

fn ext(make: fn() -> OtExtension, threads: usize) -> Parties {
    (
        Box::new(make().with_threads(threads)),
        Box::new(make().with_threads(threads)),
    )
}

const BASE_MAX: usize = 1 << 12;

const ENTRIES: &[Entry] = &[
    Entry {
        name: "co15",
        max_ots: BASE_MAX,
        parties: |_| base(BaseOtKind::Co15),
    },
    Entry {
        name: "np00",
        max_ots: BASE_MAX,
        parties: |_| base(BaseOtKind::Np00),
    },
    Entry {
        name: "mr19",
        max_ots: BASE_MAX,
        parties: |_| base(BaseOtKind::Mr19),
    },
    Entry {
        name: "iknp",
        max_ots: usize::MAX,
        parties: |t| ext(OtExtension::iknp, t),
    },
    Entry {
        name: "kos",
        max_ots: usize::MAX,
        parties: |t| ext(OtExtension::kos, t),
    },
    Entry {
        name: "softspoken",
        max_ots: usize::MAX,
        parties: |t| ext(|| OtExtension::softspoken(8), t),
    },
    Entry {
        name: "softspoken_malicious",
        max_ots: usize::MAX,
        parties: |t| ext(|| OtExtension::softspoken_malicious(8), t),
    },
];

impl Entry {
    /// `malicious` or `semi-honest`, from the registry entry of the `.otp`
    /// file the entry runs (`ot::registry`).
    pub fn security(&self) -> &'static str {
        match ot::registry::find(self.name).map(|a| a.malicious()) {
            Some(true) => "malicious",
            Some(false) => "semi-honest",
            None => "unregistered",
        }
    }
}

/// The shipped protocol called `name`.
pub fn entry(name: &str) -> Result<&'static Entry, Fail> {
    ENTRIES.iter().find(|e| e.name == name).ok_or_else(|| {
        let names: Vec<&str> = ENTRIES.iter().map(|e| e.name).collect();
        Fail(format!(
            "unknown protocol `{name}`; shipped: {}",
            names.join(", ")
        ))
    })
}

/// The most OTs one run takes: the outputs are held in memory (32 bytes
/// per OT at the sender), so more would exhaust it rather than measure.
const MAX_OTS: usize = 1 << 30;

/// `--ots`: a positive count up to 2^30 (`2^20`, `1<<20`, `1000`).
pub fn ots_count(ots: &str) -> Result<usize, Fail> {
    value_of(ots)
        .ok()
        .and_then(|v| usize::try_from(v).ok())
        .filter(|&v| v > 0 && v <= MAX_OTS)
        .ok_or_else(|| {
            Fail(format!(
                "bad --ots `{ots}`: write a count from 1 to 2^30, e.g. 2^20"
            ))
        })
}

/// One measured run.
struct Row {
    name: &'static str,
    security: &'static str,
    ots: usize,
    seconds: f64,
    bytes: u64,
}

/// Runs `otp bench`.
pub fn run(
    protocols: &[String],
    ots: &str,
    threads: usize,
    tcp: bool,
    json: bool,
) -> Result<(), Fail> {
    let n = ots_count(ots)?;
    if threads == 0 {
        return Err(Fail("--threads must be at least 1".into()));
    }
    let chosen: Vec<&Entry> = if protocols.is_empty() {
        ENTRIES.iter().collect()
    } else {
        protocols
            .iter()
            .map(|p| {
                ENTRIES.iter().find(|e| e.name == p).ok_or_else(|| {
                    let names: Vec<&str> = ENTRIES.iter().map(|e| e.name).collect();
                    Fail(format!(
                        "unknown protocol `{p}`; shipped: {}",
                        names.join(", ")
                    ))
                })
            })
            .collect::<Result<_, _>>()?
    };
    let aes = aes_blocks_per_second();
    let mut rows = vec![];
    for e in chosen {
        let count = n.min(e.max_ots);
        let bar = spinner(format!("{} ({count} OTs)", e.name));
        let row = measure(e, count, threads, tcp);
        bar.finish_and_clear();
        rows.push(row.map_err(|err| Fail(format!("{}: {err}", e.name)))?);
    }
    let transport = if tcp { "TCP loopback" } else { "in memory" };
    if json {
        let rs: Vec<_> = rows
            .iter()
            .map(|r| {
                json!({
                    "protocol": r.name, "security": r.security, "ots": r.ots,
                    "seconds": r.seconds, "ots_per_second": r.ots as f64 / r.seconds,
                    "bytes_per_ot": r.bytes as f64 / r.ots as f64,
                    "ratio_to_aes": r.ots as f64 / r.seconds / aes,
                })
            })
            .collect();
        let v = json!({"transport": transport, "threads": threads, "aes_blocks_per_second": aes, "runs": rs});
        println!("{v:#}");
        return Ok(());
    }
    println!(
        "{transport}, {threads} thread{} per party; fixed-key AES: {:.1} M blocks/s",
        crate::check::plural(threads),
        aes / 1e6
    );
    println!(
        "{:<22} {:<12} {:>10} {:>10} {:>12} {:>10} {:>10}",
        "protocol", "security", "OTs", "time", "OT/s", "bytes/OT", "OT/AES"
    );
    for r in &rows {
        let rate = r.ots as f64 / r.seconds;
        println!(
            "{:<22} {:<12} {:>10} {:>9.3}s {:>12.0} {:>10.2} {:>10.2e}",
            r.name,
            r.security,
            r.ots,
            r.seconds,
            rate,
            r.bytes as f64 / r.ots as f64,
            rate / aes
        );
    }
    Ok(())
}

/// A spinner on a terminal (indicatif hides it otherwise), shown once a
/// run has taken a second.
fn spinner(msg: String) -> ProgressBar {
    let bar = ProgressBar::new_spinner().with_message(msg);
    if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
        bar.set_style(style);
    }
    bar.enable_steady_tick(Duration::from_millis(1000));
    bar
}

fn measure(e: &Entry, n: usize, threads: usize, tcp: bool) -> Result<Row, String> {
    let (mut a, mut b): (Box<dyn Channel + Send>, Box<dyn Channel + Send>) = if tcp {
        let (a, b) = local_pair_tcp().map_err(|e| format!("TCP loopback: {e}"))?;
        (Box::new(a), Box::new(b))
    } else {
        let (a, b) = MemoryChannel::pair();
        (Box::new(a), Box::new(b))
    };
    let (mut sender, mut receiver) = (e.parties)(threads);
    let choices = Bits::random(&mut Rng::from_entropy(), n);
    let start = Instant::now();
    let (y, x) = std::thread::scope(|s| {
        let h = s.spawn(move || sender.send_random(&mut *a, n).map(|y| (y, a)));
        let x = receiver.receive_random(&mut *b, &choices);
        (h.join(), x)
    });
    let seconds = start.elapsed().as_secs_f64();
    let (y, a) = y
        .map_err(|_| "the sender thread failed".to_string())?
        .map_err(|e| e.to_string())?;
    let x = x.map_err(|e| e.to_string())?;
    let ok = x.len() == n
        && y.len() == n
        && x.iter()
            .zip(&y)
            .enumerate()
            .all(|(i, (xi, yi))| *xi == yi[usize::from(choices.get(i))]);
    if !ok {
        return Err("the receiver's outputs do not match the sender's messages".into());
    }
    let s = a.stats();
    Ok(Row {
        name: e.name,
        security: e.security(),
        ots: n,
        seconds,
        bytes: s.bytes_sent + s.bytes_received,
    })
}

/// Fixed-key AES blocks per second on this machine (best of 20 batches).
fn aes_blocks_per_second() -> f64 {
    let aes = ot::runtime::primitives::aes::Aes128::new(Block::from(7u128));
    let mut buf = vec![Block::ZERO; 1 << 14];
    let mut best = f64::MAX;
    for _ in 0..20 {
        let t = Instant::now();
        aes.encrypt_blocks(&mut buf);
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&buf);
    buf.len() as f64 / best.max(1e-9)
}

#[cfg(test)]
mod tests {
    use super::ENTRIES;

    #[test]
    fn every_entry_runs_a_registered_protocol() {
        for e in ENTRIES {
            let about = ot::registry::find(e.name);
            assert!(
                about.is_some(),
                "`{}` is not a protocol of the registry",
                e.name
            );
            assert_ne!(e.security(), "unregistered");
        }
        assert_eq!(
            ENTRIES
                .iter()
                .find(|e| e.name == "kos")
                .map(|e| e.security()),
            Some("malicious")
        );
    }
}
