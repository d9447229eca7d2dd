//! The Orlandi protocol's online multiplication over the TCP mesh on
//! loopback (one thread per party in this process), for n = 2..9 (the
//! seed's first table):
//! latency of one multiplication (`protocols/orlandi_mul.otp` with m = 1,
//! best and median of `--reps` runs; each run is the session hello, the
//! checked broadcast of d and e, and its digest exchange) and throughput of
//! one batched run of `--batch` products. In the same run it measures the
//! kernels that bound them: the two-point variable-time multiscalar
//! multiplication per product and party commitment (each party computes n
//! per product), and Paillier encryptions (2048-bit, short randomizer) and
//! CRT decryptions per second, the operations of the preprocessing.
//!
//!
//! The preprocessing (`protocols/orlandi_triple.otp`, Paillier keys of
//! `--bits` bits, default 2048; the seed's second table): seconds per run and per triple of Random
//! Triple making `M`
//! triples with parameters `s` and `d`, for n in `--parties` (default 2,
//! 3, 9), s in `--s` (default 1, 21), M in `--m` (default 5, 10, 30), next
//! to the Paillier kernel time per run and party measured in the same run
//! (the operation mix of the `.otp`: encryptions, `α^b` exponentiations,
//! CRT decryptions, key tables) and their ratio. Rows whose estimated
//! kernel time exceeds `--budget` seconds (default 120) are skipped and
//! say so.
//!
//! ```text
//! cargo run --release --example orlandi_bench [-- --reps 50 --batch 2000 --online 2,3,4,5,6,7,8,9 --parties 2,3,9 --s 1,21 --m 5,10,30 --d 0 --bits 2048 --budget 120]
//! ```
//! The online rows use triples from the test dealer (`orlandi::deal_triples`)
//! so that they time the multiplication alone.

use ot::runtime::ec::{random_point, random_scalar, Point, Scalar};
use ot::runtime::mesh::{local_tcp_mesh, run_parties, Mesh};
use ot::runtime::orlandi::{deal, deal_triples, Shares};
use ot::runtime::orlandi_prep::{peer_keys, PkWire, TripleKey};
use ot::runtime::paillier::PublicKey;
use ot::runtime::paillier::{Integer, KeySize, SecretKey};
use ot::runtime::pedersen::msm_vartime;
use ot::runtime::rng::Rng;
use ot::{orlandi_mul, orlandi_triple};
use std::sync::Barrier;
use std::time::{Duration, Instant};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// A comma-separated list argument.
fn list(name: &str, default: &[usize]) -> Vec<usize> {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.split(',').filter_map(|x| x.parse().ok()).collect())
        .unwrap_or_else(|| default.to_vec())
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Every party's `[x, y, a, b, c]` for `count` runs of `m` products.
fn material(n: usize, m: usize, count: usize) -> Vec<Vec<[Shares; 5]>> {
    let mut rng = Rng::from_entropy();
    let mut per_party: Vec<Vec<[Shares; 5]>> = vec![Vec::new(); n];
    for _ in 0..count {
        let v: Vec<Scalar> = (0..m).map(|_| random_scalar(&mut rng)).collect();
        let (x, y) = (deal(&v, n, &mut rng), deal(&v, n, &mut rng));
        let t = deal_triples(n, m, &mut rng);
        for (i, [a, b, c]) in t.into_iter().enumerate() {
            per_party[i].push([x[i].clone(), y[i].clone(), a, b, c]);
        }
    }
    per_party
}

fn mul_run<M: Mesh + ?Sized>(mesh: &mut M, s: &[Shares; 5], rep: usize) -> Res<()> {
    let [x, y, a, b, c] = s.clone();
    let params = orlandi_mul::Params::new(mesh.parties(), x.len())?;
    let mut session = [0u8; 16];
    session[..8].copy_from_slice(&(rep as u64).to_le_bytes());
    session[8..].copy_from_slice(&(x.len() as u64).to_le_bytes());
    let input = orlandi_mul::PInput { x, y, a, b, c };
    orlandi_mul::P::new(mesh.me(), params, session, input, Rng::from_entropy())?.run(mesh)?;
    Ok(())
}

/// Party 0's wall-clock time of each run (all parties start together).
fn time_muls(n: usize, m: usize, reps: usize) -> Res<Vec<Duration>> {
    let mat = material(n, m, reps);
    let barrier = Barrier::new(n);
    let outs = run_parties(local_tcp_mesh(n)?, |mesh| -> Res<Vec<Duration>> {
        let me = mesh.me();
        let mut times = Vec::with_capacity(reps);
        for (rep, s) in mat[me].iter().enumerate() {
            barrier.wait();
            let t = Instant::now();
            mul_run(mesh, s, rep)?;
            times.push(t.elapsed());
        }
        Ok(times)
    });
    let mut first = None;
    for o in outs {
        first.get_or_insert(o?);
    }
    first.ok_or_else(|| "no parties".into())
}

/// Party 0's wall-clock time of one Random Triple run making `m` triples
/// with parameters `s`, `d` (all parties start together).
fn time_triples(keys: &[SecretKey], n: usize, m: usize, s: usize, d: usize) -> Res<Duration> {
    let barrier = Barrier::new(n);
    let outs = run_parties(local_tcp_mesh(n)?, |mesh| -> Res<Duration> {
        let me = mesh.me();
        let params = orlandi_triple::Params::new(n, m, s, d)?;
        let input = orlandi_triple::PInput {
            sk: TripleKey::new(keys[me].clone()),
        };
        let p = orlandi_triple::P::new(me, params, [0x77; 16], input, Rng::from_entropy())?;
        barrier.wait();
        let t = Instant::now();
        p.run(mesh)?;
        Ok(t.elapsed())
    });
    let mut first = None;
    for o in outs {
        first.get_or_insert(o?);
    }
    first.ok_or_else(|| "no parties".into())
}

/// Seconds per Paillier operation at the keys' size, measured here.
struct PaillierCosts {
    enc: f64,
    expo: f64,
    dec: f64,
    table: f64,
}

impl PaillierCosts {
    fn measure(sk: &SecretKey, rng: &mut Rng) -> Res<PaillierCosts> {
        let pk = sk.public();
        let m = Integer::from(123_456_789u64);
        let (c, _) = pk.encrypt(&m, rng)?;
        let b = Integer::from(1u32) << 252;
        let per = |r: f64| 1.0 / r;
        Ok(PaillierCosts {
            enc: per(rate(100, || {
                std::hint::black_box(pk.encrypt(&m, rng).ok());
            })),
            expo: per(rate(100, || {
                std::hint::black_box(pk.mul_plain(&c, &b));
            })),
            dec: per(rate(50, || {
                std::hint::black_box(sk.decrypt(&c));
            })),
            table: per(rate(3, || {
                std::hint::black_box(PublicKey::from_parts(pk.n().clone(), pk.h_s().clone()).ok());
            })),
        })
    }

    /// Kernel seconds one party spends in a run of `m` triples with
    /// parameters `s`, `d`, `n` parties ([`mix`] per run; key tables are
    /// cached across runs, built before timing, and not counted).
    fn per_run(&self, n: usize, m: usize, s: usize, d: usize) -> f64 {
        let [enc, expo, dec] = mix(n, m, s, d);
        enc * self.enc + expo * self.expo + dec * self.dec
    }
}

/// Paillier operations one party performs in a run (encryptions, `c^b`
/// exponentiations, CRT decryptions), from the `.otp`: `K = (2d + 1)m`
/// kept and `k = sK` opened pairs, `G = 2(K + k)` raw triples; G
/// encryptions (α), (n−1)G gammas of one `c^b` and one encryption, G
/// decryptions; the subset check's 2kn re-encryptions and 2k(n−1)
/// recomputed gammas. The commitment arithmetic is not counted.
fn mix(n: usize, m: usize, s: usize, d: usize) -> [f64; 3] {
    let kept = (2 * d + 1) * m;
    let k = s * kept;
    let (n, g, o) = (n as f64, 2.0 * (kept + k) as f64, 2.0 * k as f64);
    let gammas = (n - 1.0) * (g + o);
    [g + o * n + gammas, gammas, g]
}

/// Operations per second of `f` run `count` times.
fn rate(count: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..count {
        f();
    }
    count as f64 / t.elapsed().as_secs_f64()
}

fn main() -> Res<()> {
    let reps = arg("--reps", 50);
    let batch = arg("--batch", 2000);
    let mut rng = Rng::from_entropy();

    // Kernels.
    let pts: Vec<Point> = (0..2).map(|_| random_point(&mut rng)).collect();
    let sc: Vec<Scalar> = (0..2).map(|_| random_scalar(&mut rng)).collect();
    let msm2 = rate(4000, || {
        std::hint::black_box(msm_vartime(&sc, &pts));
    });
    let sk = SecretKey::generate(KeySize::Bits2048, &mut rng);
    let pk = sk.public();
    let m = Integer::from(123_456_789u64);
    let enc = rate(200, || {
        std::hint::black_box(pk.encrypt(&m, &mut rng).ok());
    });
    let (c, _) = pk.encrypt(&m, &mut rng)?;
    let dec = rate(100, || {
        std::hint::black_box(sk.decrypt(&c));
    });
    let b = Integer::from(1u32) << 252;
    let expo = rate(200, || {
        std::hint::black_box(pk.mul_plain(&c, &b));
    });
    println!("kernels (this run): 2-point vartime MSM {msm2:.0}/s; Paillier-2048 encrypt {enc:.0}/s, CRT decrypt {dec:.0}/s, c^b (|b| = 253 bits) {expo:.0}/s");
    println!();
    println!(" n | 1 mul: best ms | median ms | batch {batch}: mul/s | kernel limit mul/s | ratio");
    for n in list("--online", &[2, 3, 4, 5, 6, 7, 8, 9]) {
        let mut t = time_muls(n, 1, reps)?;
        t.sort();
        let best = t.first().copied().unwrap_or_default();
        let median = t.get(t.len() / 2).copied().unwrap_or_default();
        let tb = time_muls(n, batch, 1)?;
        let per_s = batch as f64 / tb[0].as_secs_f64();
        // Each party computes n two-point MSMs per product (one per party's
        // commitment); the parties share the machine's cores.
        let limit = msm2 / n as f64;
        println!(
            " {n} | {:>14.3} | {:>9.3} | {:>17.0} | {:>18.0} | {:.2}",
            best.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            per_s,
            limit,
            per_s / limit
        );
    }
    println!();
    println!("VIFF (ACNS 2010, 1 GHz Opteron, LAN): 27.4 ms per online multiplication with 2 parties, 15.9 ms with 3.");

    // Preprocessing.
    let parties = list("--parties", &[2, 3, 9]);
    let (ss, ms, d) = (
        list("--s", &[1, 21]),
        list("--m", &[5, 10, 30]),
        arg("--d", 0),
    );
    let budget = arg("--budget", 120) as f64;
    let nkeys = parties.iter().copied().max().unwrap_or(2);
    let bits = arg("--bits", 2048);
    let size = match bits {
        1024 => KeySize::Bits1024,
        3072 => KeySize::Bits3072,
        _ => KeySize::Bits2048,
    };
    let t = Instant::now();
    let keys: Vec<SecretKey> = (0..nkeys)
        .map(|_| SecretKey::generate(size, &mut rng))
        .collect();
    let keygen = t.elapsed().as_secs_f64() / nkeys as f64;
    let costs = PaillierCosts::measure(&keys[0], &mut rng)?;
    // Build every key's fixed-base table once (the protocol caches them per
    // key, as a long-running party would have them).
    let wires: Vec<PkWire> = keys.iter().map(|k| PkWire::encode(k.public())).collect();
    std::hint::black_box(peer_keys(&wires));
    println!();
    println!(
        "Paillier-{} kernels (this run, one thread): encrypt {:.0}/s, c^b (|b| = 253 bits) {:.0}/s, CRT decrypt {:.0}/s, key table {:.1}/s; key generation {:.2} s per key (once, not per run)",
        size.bits(),
        1.0 / costs.enc,
        1.0 / costs.expo,
        1.0 / costs.dec,
        1.0 / costs.table,
        keygen
    );
    println!();
    let [e, x, dd] = mix(2, 1, 1, 0);
    println!("Paillier operations per output triple and party, n = 2, s = 1, d = 0: {e} encryptions, {x} c^b, {dd} CRT decryptions");
    println!(" n |  s |  M | d | s per run | s per triple | triples/s | kernel s per run and party | ratio (kernel / measured)");
    for &n in &parties {
        for &s in &ss {
            for &m in &ms {
                let kernel = costs.per_run(n, m, s, d);
                // The parties share two cores: n parties' kernel work runs
                // on at most 2 at a time.
                if kernel * n as f64 / 2.0 > budget {
                    println!(
                        " {n} | {s:>2} | {m:>2} | {d} | skipped: estimated {:.0} s over --budget",
                        kernel * n as f64 / 2.0
                    );
                    continue;
                }
                let run = time_triples(&keys, n, m, s, d)?.as_secs_f64();
                println!(
                    " {n} | {s:>2} | {m:>2} | {d} | {:>9.3} | {:>12.4} | {:>9.1} | {:>26.3} | {:.2}",
                    run,
                    run / m as f64,
                    m as f64 / run,
                    kernel,
                    kernel / run
                );
            }
        }
    }
    println!();
    println!("VIFF (ACNS 2010, 1024-bit Paillier, s per triple, s = 1 / 21): 2 parties 1.872, 1.511, 1.370 / 20.959, 16.560, 16.453 s; 3 parties 1.598, 0.952, 1.059 / 16.931, 15.981, 15.269 s; 9 parties 2.238, 1.799, 1.794 / 31.901, 32.572, 37.545 s (M = 5, 10, 30).");
    Ok(())
}
