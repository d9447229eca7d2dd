//! MiniMac online phase timings: one multiplication of m values (k = 85
//! slots each, RS[255, 85]) followed by the opening of the products, for
//! 2 and 3 players over the TCP mesh on loopback, with preprocessing from
//! the dealer's files; the GF(2^8) kernel rate of the same run for
//! comparison.
//!
//! `cargo run --release --example minimac_bench [-- --reps 20]`

use ot::files::{PartyPrepFile, PrepStoreFile};
use std::time::{Duration, Instant};

use ot::runtime::minimac::floor::STAT_SEC;
use ot::runtime::minimac::prep::{deal, PrepParams, PrepStore};
use ot::runtime::primitives::gf256::{mul_slices, Backend};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, Mesh};
use ot::{minimac_mul, minimac_open};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const K: usize = 85;
const N: usize = 255;

/// One multiplication of `m` values and the opening of the products.
fn mul_open<M: Mesh + ?Sized>(mesh: &mut M, store: &mut PrepStore, m: usize, tag: u8) -> Res<()> {
    let r = store.take_randoms(2 * m)?;
    let [a, b, c] = store.take_triples(m)?;
    let (x, y) = (r.slice(0, m).ok_or("slice")?, r.slice(m, m).ok_or("slice")?);
    let p = minimac_mul::Params::new(mesh.parties(), m, K, N, STAT_SEC)?;
    let input = minimac_mul::PInput { x, y, a, b, c };
    let z = minimac_mul::P::new(mesh.me(), p, [tag; 16], input, Rng::from_entropy())?
        .run(mesh)?
        .z;
    let p = minimac_open::Params::new(mesh.parties(), m, K, N, STAT_SEC)?;
    let input = minimac_open::PInput { v: z };
    minimac_open::P::new(mesh.me(), p, [tag ^ 0x80; 16], input, Rng::from_entropy())?.run(mesh)?;
    Ok(())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let reps: usize = args
        .iter()
        .position(|a| a == "--reps")
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(20);
    let dir = std::env::temp_dir().join(format!("minimac-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    println!("MiniMac online phase, RS[{N}, {K}], TCP mesh on loopback, {reps} runs per row");
    println!(
        "(one run: multiply m values of {K} slots, then open the products: 2 x 3 broadcast rounds)"
    );
    for n in [2usize, 3] {
        for m in [1usize, 16, 256] {
            let params = PrepParams {
                parties: n,
                k: K,
                n: N,
            };
            let need = reps + 1;
            let files: Vec<_> = deal(params, 1, 2 * m * need, m * need, &mut Rng::from_entropy())?
                .iter()
                .map(|p| p.write_to(&dir))
                .collect::<Result<_, _>>()?;
            let times = run_parties(local_tcp_mesh(n)?, |mesh| -> Res<Vec<Duration>> {
                let me = mesh.me();
                let mut store = PrepStore::open(&files[me], me, params)?;
                mul_open(mesh, &mut store, m, 0)?; // warm-up
                (0..reps)
                    .map(|r| {
                        let t = Instant::now();
                        mul_open(mesh, &mut store, m, r as u8 + 1)?;
                        Ok(t.elapsed())
                    })
                    .collect()
            });
            let mut t = times.into_iter().next().ok_or("no party")??;
            t.sort();
            let med = t[t.len() / 2];
            let slots = (m * K) as f64;
            println!(
                "n = {n}  m = {m:>3}  best {:>8.3} ms  median {:>8.3} ms  {:>8.2} µs per value  {:>6.0} k slot-products/s",
                t[0].as_secs_f64() * 1e3,
                med.as_secs_f64() * 1e3,
                med.as_secs_f64() * 1e6 / m as f64,
                slots / med.as_secs_f64() / 1e3
            );
            for f in &files {
                let _ = std::fs::remove_file(f);
                let mut r = f.as_os_str().to_owned();
                r.push(".consumed");
                let _ = std::fs::remove_file(r);
            }
        }
    }
    let (a, b) = (vec![7u8; 1 << 16], vec![9u8; 1 << 16]);
    let mut d = vec![0u8; 1 << 16];
    let t = Instant::now();
    let mut calls: u64 = 0;
    while t.elapsed() < Duration::from_millis(200) {
        mul_slices(&mut d, &a, &b);
        calls += 1;
    }
    println!(
        "kernel: GF(2^8) Schur products ({}) {:.0} M mul/s",
        Backend::detect().name(),
        (calls << 16) as f64 / t.elapsed().as_secs_f64() / 1e6
    );
    let _ = std::fs::remove_dir(&dir);
    Ok(())
}
