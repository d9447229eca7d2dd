//! The Orlandi protocol's online multiplication over the TCP mesh on
//! loopback (one thread per party in this process), for n = 2 and 3:
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
//! The preprocessing (`protocols/orlandi_triple.otp`, 3072-bit Paillier):
//! milliseconds per output triple of one run making `--triples` triples
//! with `--check` pairs opened by the subset check, for n = 2 and 3, next
//! to the Paillier kernel time per triple and party measured in the same
//! run (the operation mix of the `.otp`: encryptions, `α^b`
//! exponentiations, CRT decryptions, key tables) and their ratio.
//!
//! ```text
//! cargo run --release --example orlandi_bench [-- --reps 50 --batch 2000 --triples 10 --check 2]
//! ```
//! The online rows use triples from the test dealer (`orlandi::deal_triples`)
//! so that they time the multiplication alone.

use ot::runtime::ec::{random_point, random_scalar, Point, Scalar};
use ot::runtime::mesh::{local_tcp_mesh, run_parties, Mesh};
use ot::runtime::orlandi::{deal, deal_triples, Shares};
use ot::runtime::orlandi_prep::TripleKey;
use ot::runtime::paillier::PublicKey;
use ot::runtime::paillier::{Integer, KeySize, SecretKey};
use ot::runtime::pedersen::msm_vartime;
use ot::runtime::rng::Rng;
use ot::{orlandi_mul, orlandi_triple};
use std::sync::Barrier;
use std::time::{Duration, Instant};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

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

/// Party 0's wall-clock time of one preprocessing run making `m` triples
/// with `k` opened pairs (all parties start together).
fn time_triples(keys: &[SecretKey], n: usize, m: usize, k: usize) -> Res<Duration> {
    let barrier = Barrier::new(n);
    let outs = run_parties(local_tcp_mesh(n)?, |mesh| -> Res<Duration> {
        let me = mesh.me();
        let params = orlandi_triple::Params::new(n, m, k)?;
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

/// Seconds per Paillier operation at 3072 bits, measured here.
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

    /// Kernel seconds one party spends in a run of `m` triples, `k` opened
    /// pairs, `n` parties (the `.otp`'s mix: `G = 2(m + k)` raw triples; G
    /// encryptions, (n−1)G gammas of one `α^b` and one encryption, G
    /// decryptions, n key tables; the subset check's 2kn encryptions and
    /// 2k(n−1) gammas).
    fn per_run(&self, n: usize, m: usize, k: usize) -> f64 {
        let (n, g, o) = (n as f64, 2.0 * (m + k) as f64, 2.0 * k as f64);
        let gamma = self.expo + self.enc;
        g * self.enc
            + (n - 1.0) * g * gamma
            + g * self.dec
            + n * self.table
            + o * n * self.enc
            + o * (n - 1.0) * gamma
    }
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
    for n in [2usize, 3] {
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
    let (tm, tk) = (arg("--triples", 10), arg("--check", 2));
    let t = Instant::now();
    let keys: Vec<SecretKey> = (0..3)
        .map(|_| SecretKey::generate(KeySize::Bits3072, &mut rng))
        .collect();
    let keygen = t.elapsed().as_secs_f64() / 3.0;
    let costs = PaillierCosts::measure(&keys[0], &mut rng)?;
    println!();
    println!(
        "Paillier-3072 kernels (this run, one thread): encrypt {:.0}/s, c^b (|b| = 253 bits) {:.0}/s, CRT decrypt {:.0}/s, key table {:.1}/s; key generation {:.2} s per key (once, not per run)",
        1.0 / costs.enc,
        1.0 / costs.expo,
        1.0 / costs.dec,
        1.0 / costs.table,
        keygen
    );
    println!();
    println!(" n | m = {tm}, k = {tk}: ms per triple | triples/s | kernel ms per triple and party | ratio (kernel / measured)");
    for n in [2usize, 3] {
        let run = time_triples(&keys, n, tm, tk)?.as_secs_f64();
        let per = run / tm as f64;
        let kernel = costs.per_run(n, tm, tk) / tm as f64;
        println!(
            " {n} | {:>30.1} | {:>9.1} | {:>30.1} | {:.2}",
            per * 1e3,
            1.0 / per,
            kernel * 1e3,
            kernel / per
        );
    }
    println!();
    println!("VIFF (ACNS 2010, 1024-bit Paillier, lambda = 1): 1.37 s to 1.87 s per triple with 2 parties, 0.95 s to 1.60 s with 3.");
    Ok(())
}
