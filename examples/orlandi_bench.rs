//! The Orlandi protocol's online multiplication over the TCP mesh on
//! loopback (one thread per party in this process), for n = 2..9 (the
//! seed's first table):
//! latency of one multiplication (`protocols/orlandi_mul.otp` with m = 1,
//! best and median of `--reps` runs; each run is the session hello, the
//! checked broadcast of d and e, and its digest exchange) and throughput of
//! one batched run of `--batch` products, alone and followed by an
//! opening of the products (`protocols/orlandi_open.otp`, whose batched check
//! consumes the products' deferred commitments). In the same run it
//! measures the kernels that bound them: the Pippenger multiscalar
//! multiplication of the batched checks (2 points per product in the
//! multiplication, 3 more in the opening), and Paillier encryptions
//! (short randomizer) and CRT decryptions per second, the operations of
//! the preprocessing.
//!
//!
//! The preprocessing (`protocols/orlandi_triple.otp`, Paillier keys of
//! `--bits` bits, default 2048, 1024 for VIFF's size with unpacked `γ`;
//! the seed's second table): seconds per run and per triple of Random
//! Triple making `M` triples with the cheapest parameters `s` and `d` for
//! a statistical security level of `--sec` bits (default 40, the floor;
//! `orlandi_triple::params_at_level`, printed in each row), for n in
//! `--parties` (default 2, 3, 9) and M in `--m` (default 5, 10, 30), next
//! to the Paillier kernel time per run and party measured in the same run
//! (the operation mix of the `.otp`: own-key and peer-key encryptions,
//! two-base `α^b·α'^{b'}` multi-exponentiations, CRT decryptions) and
//! their ratio, and the time to prove and verify one key's modulus proof
//! (`paillier::blum`). `--online ""` skips the online table; `--kernel-reps`
//! (default 100) sets the calls per kernel measurement. Rows whose estimated
//! kernel time exceeds `--budget` seconds (default 120) are skipped and
//! say so.
//!
//! ```text
//! cargo run --release --example orlandi_bench [-- --reps 50 --batch 2000 --online 2,3,4,5,6,7,8,9 --parties 2,3,9 --m 5,10,30 --sec 40 --bits 1024|2048|3072 --budget 120 --kernel-reps 100]
//! ```
//! The online rows use triples from the test dealer (`orlandi::deal_triples`)
//! so that they time the multiplication alone.

// Written for both big-integer backends: GMP's (feature `gmp`) arithmetic
// on references yields incomplete values that `Integer::from` completes.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use ot::runtime::orlandi::level::DEFAULT_SEC;
use ot::runtime::orlandi::paillier::{blum, PublicKey};
use ot::runtime::orlandi::paillier::{multi_exp, random_bits, Integer, KeySize, SecretKey};
use ot::runtime::orlandi::pedersen::msm_vartime;
use ot::runtime::orlandi::prep::{peer_keys, PkWire, TripleKey};
use ot::runtime::orlandi::triple::packs;
use ot::runtime::orlandi::{deal, deal_triples, Shares};
use ot::runtime::primitives::ec::{random_point, random_scalar, Point, Scalar};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, Mesh};
use ot::{orlandi_mul, orlandi_open, orlandi_triple};
use rand_core::RngCore;
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

/// One run of `orlandi_mul` (then, with `open`, one `orlandi_open` of the
/// products, whose check consumes their deferred commitments).
fn mul_run<M: Mesh + ?Sized>(mesh: &mut M, s: &[Shares; 5], rep: usize, open: bool) -> Res<()> {
    let [x, y, a, b, c] = s.clone();
    let m = x.len();
    let params = orlandi_mul::Params::new(mesh.parties(), m)?;
    let mut session = [0u8; 16];
    session[..8].copy_from_slice(&(rep as u64).to_le_bytes());
    session[8..].copy_from_slice(&(m as u64).to_le_bytes());
    let input = orlandi_mul::PInput { x, y, a, b, c };
    let z = orlandi_mul::P::new(mesh.me(), params, session, input, Rng::from_entropy())?
        .run(mesh)?
        .z;
    if open {
        session[15] ^= 0x80;
        let params = orlandi_open::Params::new(mesh.parties(), m)?;
        let input = orlandi_open::PInput { v: z };
        orlandi_open::P::new(mesh.me(), params, session, input, Rng::from_entropy())?.run(mesh)?;
    }
    Ok(())
}

/// Party 0's wall-clock time of each run (all parties start together).
fn time_muls(n: usize, m: usize, reps: usize, open: bool) -> Res<Vec<Duration>> {
    let mat = material(n, m, reps);
    let barrier = Barrier::new(n);
    let outs = run_parties(local_tcp_mesh(n)?, |mesh| -> Res<Vec<Duration>> {
        let me = mesh.me();
        let mut times = Vec::with_capacity(reps);
        for (rep, s) in mat[me].iter().enumerate() {
            barrier.wait();
            let t = Instant::now();
            mul_run(mesh, s, rep, open)?;
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

/// Party 0's wall-clock time of one Random Triple run with parameters
/// `params` (all parties start together).
fn time_triples(keys: &[SecretKey], params: orlandi_triple::Params) -> Res<Duration> {
    let n = params.n();
    let barrier = Barrier::new(n);
    let outs = run_parties(local_tcp_mesh(n)?, |mesh| -> Res<Duration> {
        let me = mesh.me();
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

/// Seconds per Paillier operation at the keys' size, measured here (each
/// over `reps` calls; `--kernel-reps`, default 100).
struct PaillierCosts {
    enc_own: f64,
    enc: f64,
    mexp: f64,
    pow: f64,
    dec: f64,
    table: f64,
    packs: bool,
}

impl PaillierCosts {
    fn measure(sk: &SecretKey, rng: &mut Rng, reps: usize) -> Res<PaillierCosts> {
        let pk = sk.public();
        let m = Integer::from(123_456_789u64);
        let (c, alpha) = pk.encrypt(&m, rng)?;
        let bases = [
            c.as_integer().clone(),
            pk.encrypt(&m, rng)?.0.as_integer().clone(),
        ];
        let exps = [random_bits(253, rng), random_bits(253, rng)];
        let per = |r: f64| 1.0 / r;
        Ok(PaillierCosts {
            enc_own: per(rate(reps, || {
                std::hint::black_box(sk.encrypt_with_alpha(&m, &alpha).ok());
            })),
            enc: per(rate(reps, || {
                std::hint::black_box(pk.encrypt(&m, rng).ok());
            })),
            mexp: per(rate(reps, || {
                std::hint::black_box(multi_exp(&bases, &exps, 253, pk.n_squared()));
            })),
            pow: per(rate(reps, || {
                std::hint::black_box(pk.mul_plain(&c, &exps[0]));
            })),
            dec: per(rate(reps.div_ceil(2), || {
                std::hint::black_box(sk.decrypt(&c));
            })),
            table: per(rate(reps.div_ceil(30), || {
                std::hint::black_box(PublicKey::from_root(pk.n().clone(), pk.h().clone()).ok());
            })),
            packs: packs(pk),
        })
    }

    /// Kernel seconds one party spends in a run of `m` triples with
    /// parameters `s`, `d`, `n` parties ([`mix`] per run; key tables are
    /// cached across runs, built before timing, and not counted).
    fn per_run(&self, n: usize, m: usize, s: usize, d: usize) -> f64 {
        let [own, enc, mexp, pow, dec] = mix(n, m, s, d, self.packs);
        own * self.enc_own + enc * self.enc + mexp * self.mexp + pow * self.pow + dec * self.dec
    }
}

/// Paillier operations one party performs in a run (own-key CRT
/// encryptions, encryptions under a peer's key, two-base `c^b·c'^{b'}`
/// multi-exponentiations, one-base `c^b`, CRT decryptions), from the
/// `.otp`: `K = (2d + 1)m` kept and `k = sK` opened pairs, `P = K + k`
/// pairs of raw triples, `G = 2P`; G own-key encryptions (α); (n−1)P
/// gammas sent and k(n−1) recomputed, with keys that pack each one
/// multi-exponentiation and one encryption (P decryptions), with keys that
/// do not (1024 bits) two `c^b` and two encryptions (2P decryptions); the
/// subset check's 2k(n−1) re-encryptions of the peers' α. The commitment
/// arithmetic is not counted.
fn mix(n: usize, m: usize, s: usize, d: usize, packed: bool) -> [f64; 5] {
    let kept = (2 * d + 1) * m;
    let k = s * kept;
    let (n, p, o) = (n as f64, (kept + k) as f64, k as f64);
    let gammas = (n - 1.0) * (p + o);
    if packed {
        [2.0 * p, gammas + 2.0 * o * (n - 1.0), gammas, 0.0, p]
    } else {
        [
            2.0 * p,
            2.0 * gammas + 2.0 * o * (n - 1.0),
            0.0,
            2.0 * gammas,
            2.0 * p,
        ]
    }
}

/// Seconds to prove and to verify the key's modulus proof
/// (`paillier::blum`), each the mean of `reps` calls.
fn key_proof_costs(sk: &SecretKey, rng: &mut Rng, reps: usize) -> Res<(f64, f64)> {
    let ctx = b"orlandi_bench";
    let t = Instant::now();
    let mut proof = None;
    for _ in 0..reps {
        proof = blum::prove(sk, ctx, rng);
    }
    let prove_s = t.elapsed().as_secs_f64() / reps as f64;
    let proof = proof.ok_or("no key proof")?;
    let t = Instant::now();
    for _ in 0..reps {
        blum::verify_key(sk.public(), &proof, ctx)?;
    }
    Ok((prove_s, t.elapsed().as_secs_f64() / reps as f64))
}

/// Operations per second of `f` run `count` times.
fn rate(count: usize, mut f: impl FnMut()) -> f64 {
    let t = Instant::now();
    for _ in 0..count {
        f();
    }
    count as f64 / t.elapsed().as_secs_f64()
}

/// The online multiplication rows for `n` in `online`, with the kernel
/// limit of the same run.
fn online_table(online: &[usize], reps: usize, batch: usize, rng: &mut Rng) -> Res<()> {
    // Per product and party, the commitment arithmetic is: in the
    // multiplication's joint batched check, 2 points (C_d, C_e; 128-bit
    // weights) of one large multiscalar multiplication; in the later
    // opening's check, the 3 points its deferred commitment is made of (C_x,
    // C_y with full-size coefficients, C_c with a 128-bit weight). Measured
    // as one Pippenger MSM of that shape over `batch` products, one thread.
    let pts: Vec<Point> = (0..5 * batch).map(|_| random_point(rng)).collect();
    let short =
        |rng: &mut Rng| Scalar::from(rng.next_u64() as u128 | ((rng.next_u64() as u128) << 64));
    // The first 3·batch weights are 128-bit (C_d, C_e, then C_c), the last
    // 2·batch full-size (C_x, C_y).
    let sc: Vec<Scalar> = (0..5 * batch)
        .map(|i| {
            if i < 3 * batch {
                short(rng)
            } else {
                random_scalar(rng)
            }
        })
        .collect();
    let msm_rate = |k: usize| {
        batch as f64
            * rate(8, || {
                std::hint::black_box(msm_vartime(&sc[..k * batch], &pts[..k * batch]));
            })
    };
    let (mul_limit, full_limit) = (msm_rate(2), msm_rate(5));
    let two: Vec<Point> = pts[..2].to_vec();
    let msm2 = rate(4000, || {
        std::hint::black_box(msm_vartime(&sc[5 * batch - 2..], &two));
    });
    println!("kernels (this run, one thread): Pippenger MSM of the batched checks: {mul_limit:.0} products/s (2 points each, multiplication), {full_limit:.0} products/s (5 points each, multiplication + opening); 2-point vartime MSM {msm2:.0}/s (the former per-party commitment of a product)");
    println!();
    println!(" n | 1 mul: best ms | median ms | batch {batch}: mul/s | kernel limit | ratio | batch {batch} mul + open: mul/s | kernel limit | ratio");
    for &n in online {
        let mut t = time_muls(n, 1, reps, false)?;
        t.sort();
        let best = t.first().copied().unwrap_or_default();
        let median = t.get(t.len() / 2).copied().unwrap_or_default();
        let per_s = |open| -> Res<f64> {
            Ok(batch as f64 / time_muls(n, batch, 1, open)?[0].as_secs_f64())
        };
        let (mul_s, full_s) = (per_s(false)?, per_s(true)?);
        println!(
            " {n} | {:>14.3} | {:>9.3} | {:>17.0} | {:>12.0} | {:.2} | {:>21.0} | {:>12.0} | {:.2}",
            best.as_secs_f64() * 1e3,
            median.as_secs_f64() * 1e3,
            mul_s,
            mul_limit,
            mul_s / mul_limit,
            full_s,
            full_limit,
            full_s / full_limit
        );
    }
    println!();
    println!("VIFF (ACNS 2010, 1 GHz Opteron, LAN): 27.4 ms per online multiplication with 2 parties, 15.9 ms with 3.");
    Ok(())
}

fn main() -> Res<()> {
    let reps = arg("--reps", 50);
    let batch = arg("--batch", 2000);
    let mut rng = Rng::from_entropy();

    let online = list("--online", &[2, 3, 4, 5, 6, 7, 8, 9]);
    if !online.is_empty() {
        online_table(&online, reps, batch, &mut rng)?;
    }

    // Preprocessing.
    let parties = list("--parties", &[2, 3, 9]);
    let (ms, sec) = (list("--m", &[5, 10, 30]), arg("--sec", DEFAULT_SEC));
    let budget = arg("--budget", 120) as f64;
    let nkeys = parties.iter().copied().max().unwrap_or(2);
    let bits = arg("--bits", 2048);
    // 1024-bit keys (VIFF's size) are too small for the packed gammas and
    // run unpacked.
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
    let costs = PaillierCosts::measure(&keys[0], &mut rng, arg("--kernel-reps", 100))?;
    // Build every key's fixed-base table once (the protocol caches them per
    // key, as a long-running party would have them).
    let wires: Vec<PkWire> = keys.iter().map(|k| PkWire::encode(k.public())).collect();
    std::hint::black_box(peer_keys(&wires));
    println!();
    println!(
        "Paillier-{} kernels (this run, one thread; γ {}): own-key CRT encrypt {:.0}/s, encrypt {:.0}/s, c^b·c'^b' (|b| = 253 bits, Straus) {:.0}/s, c^b {:.0}/s, CRT decrypt {:.0}/s, key table {:.1}/s; key generation {:.2} s per key (once, not per run)",
        size.bits(),
        if costs.packs { "packed" } else { "unpacked" },
        1.0 / costs.enc_own,
        1.0 / costs.enc,
        1.0 / costs.mexp,
        1.0 / costs.pow,
        1.0 / costs.dec,
        1.0 / costs.table,
        keygen
    );
    let (prove_s, verify_s) = key_proof_costs(&keys[0], &mut rng, 3)?;
    println!(
        "Paillier-Blum key proof ({} challenges, rayon over the cores; once per key and run): prove {:.3} s, verify {:.3} s per peer key",
        blum::CHALLENGES,
        prove_s,
        verify_s
    );
    println!();
    println!("Parameters for 2^-{sec} (orlandi_triple::params_at_level: the cheapest s, d; (s + 1)(2d + 1) Triple Test pairs per output triple):");
    for &m in &ms {
        let p = orlandi_triple::params_at_level(2, m, sec)?;
        let (s, d) = (p.s(), p.d());
        let [o, e, x, pw, dd] = mix(2, m, s, d, costs.packs).map(|v| v / m as f64);
        println!(
            " M = {m}: s = {s}, d = {d}, {} pairs per triple; per output triple and party at n = 2: {o} own-key encryptions, {e} encryptions, {x} two-base multi-exponentiations, {pw} c^b, {dd} CRT decryptions ({:.1} ms)",
            (s + 1) * (2 * d + 1),
            costs.per_run(2, m, s, d) * 1e3 / m as f64
        );
    }
    println!(" n |  s |  M |  d | s per run | s per triple | triples/s | kernel s per run and party | ratio (kernel / measured)");
    for &n in &parties {
        for &m in &ms {
            let params = orlandi_triple::params_at_level(n, m, sec)?;
            let (s, d) = (params.s(), params.d());
            let kernel = costs.per_run(n, m, s, d);
            // The parties share two cores: n parties' kernel work runs
            // on at most 2 at a time.
            if kernel * n as f64 / 2.0 > budget {
                println!(
                    " {n} | {s:>2} | {m:>2} | {d:>2} | skipped: estimated {:.0} s over --budget",
                    kernel * n as f64 / 2.0
                );
                continue;
            }
            let run = time_triples(&keys, params)?.as_secs_f64();
            println!(
                " {n} | {s:>2} | {m:>2} | {d:>2} | {:>9.3} | {:>12.4} | {:>9.2} | {:>26.3} | {:.2}",
                run,
                run / m as f64,
                m as f64 / run,
                kernel,
                kernel / run
            );
        }
    }
    println!();
    println!("VIFF (ACNS 2010, 1024-bit Paillier, s per triple, s = 1 / 21, most likely VIFF's lambda with its default d = 0, so 2 / 22 pairs per triple and no leak tolerance): 2 parties 1.872, 1.511, 1.370 / 20.959, 16.560, 16.453 s; 3 parties 1.598, 0.952, 1.059 / 16.931, 15.981, 15.269 s; 9 parties 2.238, 1.799, 1.794 / 31.901, 32.572, 37.545 s (M = 5, 10, 30).");
    Ok(())
}
