//! GF(2^8) multiplies per second for every backend (Schur products of 64 KiB
//! slices and constant-factor axpys) and Reed–Solomon encodings per second
//! for MiniMac's code RS[255, 85] and its Schur square.
//!
//! `cargo run --release -p ot-runtime --example gf256_rate`

use std::hint::black_box;
use std::time::Instant;

use ot_runtime::minimac::reed_solomon::ReedSolomon;
use ot_runtime::primitives::gf256::{mul_add_with, mul_slices_with, Backend};

/// Runs `f` (which does `per_call` operations) for about 0.3 s; returns ops/s.
fn rate(per_call: usize, mut f: impl FnMut()) -> f64 {
    f();
    let start = Instant::now();
    let mut calls = 0usize;
    while start.elapsed().as_secs_f64() < 0.3 {
        for _ in 0..16 {
            f();
        }
        calls += 16;
    }
    (calls * per_call) as f64 / start.elapsed().as_secs_f64()
}

fn main() {
    const LEN: usize = 1 << 16;
    let a: Vec<u8> = (0..LEN).map(|i| (i * 7 + 3) as u8).collect();
    let b: Vec<u8> = (0..LEN).map(|i| (i * 13 + 1) as u8).collect();
    let mut d = vec![0u8; LEN];
    println!(
        "GF(2^8) multiplies/s (slices of {LEN} bytes; detected backend: {})",
        Backend::detect().name()
    );
    let table = rate(LEN, || {
        mul_slices_with(Backend::Table, black_box(&mut d), &a, &b)
    });
    for backend in Backend::ALL {
        if !backend.is_supported() {
            println!("  {:6}  not supported on this CPU", backend.name());
            continue;
        }
        let schur = rate(LEN, || mul_slices_with(backend, black_box(&mut d), &a, &b));
        let axpy = rate(LEN, || mul_add_with(backend, black_box(&mut d), 0x57, &a));
        println!(
            "  {:6}  Schur {:>10.1} M mul/s ({:>6.2}x table)   axpy {:>10.1} M mul/s",
            backend.name(),
            schur / 1e6,
            schur / table,
            axpy / 1e6
        );
    }
    let code = ReedSolomon::new(85, 255).expect("RS[255, 85]");
    let square = code.square().expect("RS[255, 169]");
    let msg: Vec<u8> = (0..85u8).collect();
    let mut out = vec![0u8; 255];
    let enc = rate(1, || code.encode_into(black_box(&msg), &mut out));
    let sq = rate(1, || {
        black_box(square.contains(black_box(&out)));
    });
    println!(
        "RS[255, 85] encodings/s: {:.0} ({:.1} M mul/s)",
        enc,
        enc * 85.0 * 170.0 / 1e6
    );
    println!("RS[255, 169] membership tests/s: {:.0}", sq);
}
