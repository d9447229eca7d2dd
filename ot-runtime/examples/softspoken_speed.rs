//! Per-chunk cost of SoftSpokenOT's streamed kernels (one chunk of 16384
//! OTs, in cache, best of `iters`), for each `k` given (default 2, 4, 8):
//! the receiver's VOLE with corrections (`ss_receiver_vole`),
//! extracting the corrections, the transpose of V's first 128 rows, and the
//! sender's fused VOLE + Delta correction + transpose
//! (`ss_sender_columns`); then the AES limit of the same run: raw
//! AES-CTR blocks/s of one key, and the PRG of `2^k · ⌈128 / k⌉` leaf rows
//! (the AES work of the receiver's VOLE), with the ratio of each kernel to
//! that AES floor.
//!
//! ```text
//! cargo run --release -p ot-runtime --example softspoken_speed [-- k... [--iters N] [--only KERNEL]]
//! ```
//!
//! Before them, the 128 x 128 tile transpose alone (ns per tile, in cache).
//!
//! `--only recv|corrections|transpose|sender|prg|aes|tiles` repeats only that
//! kernel `--iters` times (the others run once): the difference of the
//! instruction counts of two runs with different `--iters`, divided by
//! the difference times 16384, is the kernel's instructions per OT.

use ot_runtime::otext::stream::*;
use ot_runtime::primitives::aes::Aes128;
use ot_runtime::softspoken::*;
use ot_runtime::Span;
use ot_runtime::{BitMatrix, Bits, Block, Rng};
use std::time::Instant;

/// OTs per chunk (the `CHUNK` of `protocols/softspoken.otp`).
const LEN: usize = 16384;

/// Best time of `iters` runs of `f`, in ns per OT of one chunk.
fn best_ns(iters: usize, mut f: impl FnMut()) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..iters {
        let a = Instant::now();
        f();
        best = best.min(a.elapsed().as_secs_f64() * 1e9 / LEN as f64);
    }
    best
}

/// Prints ns per OT of each kernel and the AES floor.
fn main() {
    let mut ks = Vec::new();
    let mut iters = 200usize;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        if a == "--iters" {
            iters = args.next().and_then(|v| v.parse().ok()).unwrap_or(iters);
        } else if a == "--only" {
            only = args.next();
        } else if let Ok(k) = a.parse::<usize>() {
            ks.push(k);
        }
    }
    if ks.is_empty() {
        ks = vec![2, 4, 8];
    }
    let iters = iters.max(1);
    // With `--only NAME`, the other kernels run once (their figures are
    // then single-run): instruction counts of two runs with different
    // `--iters` differ by the named kernel's work only.
    let its = |name: &str| match &only {
        Some(o) if o != name => 1,
        _ => iters,
    };
    let mut rng = Rng::deterministic_for_tests(1);
    // Raw AES: one key, 4096 counter blocks per call.
    let aes = Aes128::new(rng.next_block());
    let mut blocks = vec![Block::ZERO; 4096];
    let aes_ns = best_ns(its("aes"), || aes.ctr(0, &mut blocks)) * LEN as f64 / blocks.len() as f64;
    println!(
        "aes ctr ({}): {:.1} M blocks/s ({aes_ns:.3} ns/block)",
        ot_runtime::primitives::aes::backend_name(),
        1e3 / aes_ns
    );
    // The 128 x 128 tile transpose alone, in cache: one contiguous tile
    // (no staging), then 128 rows of 8 and of 128 tiles (the receiver's
    // chunk layout: rows 2 KiB apart, staged through L1).
    for (stride, reps) in [(1usize, 4000usize), (8, 1000), (128, 100)] {
        let src: Vec<Block> = (0..128 * stride).map(|_| rng.next_block()).collect();
        let mut dst = vec![Block::ZERO; 128 * stride];
        let backend = ot_runtime::primitives::transpose::Backend::selected();
        let n = if its("tiles") == 1 { 1 } else { reps };
        let per_tile = best_ns(n, || {
            let r = ot_runtime::primitives::transpose::transpose_128_rows_with(
                backend, &src, stride, &mut dst,
            );
            debug_assert!(r.is_ok());
        }) * LEN as f64
            / stride as f64;
        println!(
            "transpose ({}), rows of {stride} tiles: {per_tile:.0} ns per 128 x 128 tile",
            backend.name()
        );
    }
    for k in ks {
        let trees = ss_trees(k);
        let (sk, rk) = ss_keys_in_the_clear(&mut rng, k, None);
        let r = Bits::random(&mut rng, LEN);
        let (mut vu, mut c) = (BitMatrix::default(), BitMatrix::default());
        let mut t = vec![Block::ZERO; LEN];
        let mut q = vec![Block::ZERO; LEN];
        // Fill once so the chained kernels see real inputs.
        ss_receiver_vole(&sk, &r, LEN, 1, Span::new(0, LEN), &mut vu);
        ss_corrections(&vu, trees, Span::new(0, LEN), &mut c);
        let recv = best_ns(its("recv"), || {
            ss_receiver_vole(&sk, &r, LEN, 1, Span::new(0, LEN), &mut vu)
        });
        let corr = best_ns(its("corrections"), || {
            ss_corrections(&vu, trees, Span::new(0, LEN), &mut c)
        });
        let tr = best_ns(its("transpose"), || {
            transpose_columns(&vu, 1, Span::new(0, LEN), &mut t)
        });
        let send = best_ns(its("sender"), || {
            ss_sender_columns(&rk, &c, 1, Span::new(0, LEN), &mut q)
        });
        // The AES floor: the PRG of every leaf row, one batched call per row.
        let seeds: Vec<Block> = (0..trees << k).map(|_| rng.next_block()).collect();
        let keys = prg_keys(&seeds);
        let mut m = BitMatrix::default();
        let prg = best_ns(its("prg"), || {
            prg_rows(&keys, LEN, 1, Span::new(0, LEN), &mut m)
        });
        let floor = aes_ns * (trees << k) as f64 / 128.0;
        println!(
            "k={k}: recv vole {recv:.2} ns/OT, corrections {corr:.2}, transpose {tr:.2}, \
             sender {send:.2}; prg of {} leaf rows {prg:.2}, AES floor {floor:.2} \
             (recv vole / floor = {:.2}, sender / floor = {:.2})",
            trees << k,
            recv / floor,
            send / floor
        );
    }
}
