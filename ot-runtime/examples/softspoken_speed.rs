//! Per-chunk cost of SoftSpokenOT's streamed kernels (one chunk of 16384
//! OTs, in cache, best of 200), for k = 2, 4, 8: the receiver's VOLE with
//! corrections (`ss_receiver_vole_chunk`), extracting the corrections, the
//! transpose of V's first 128 rows, and the sender's fused VOLE + Delta
//! correction + transpose (`ss_sender_columns_chunk`); then the bare PRG of
//! 256 rows (the k = 2 leaves) as the AES floor.
//!
//! ```text
//! cargo run --release -p ot-runtime --example softspoken_speed
//! ```

use ot_runtime::abo::*;
use ot_runtime::softspoken::*;
use ot_runtime::stream::*;
use ot_runtime::{BitMatrix, Bits, Block, Rng};
use std::time::Instant;
/// Prints ns per OT of each kernel.
fn main() {
    let mut rng = Rng::deterministic_for_tests(1);
    let len = 16384usize;
    for k in [2usize, 4, 8] {
        let trees = ss_trees(k);
        let roots: Vec<Block> = (0..trees).map(|_| rng.next_block()).collect();
        let alphas: Vec<usize> = (0..trees).map(|t| (t * 7) % (1 << k)).collect();
        let base: Vec<[Block; 2]> = (0..trees * k)
            .map(|_| [rng.next_block(), rng.next_block()])
            .collect();
        let ch = abo_choice_bits(&alphas, k);
        let chosen: Vec<Block> = (0..trees * k)
            .map(|i| base[i][usize::from(ch.get(i))])
            .collect();
        let masked = abo_masked_sums(&roots, k, &base);
        let sk = ss_sender_keys(&abo_sender_leaves(&roots, k));
        let rk = ss_receiver_keys(&abo_receiver_leaves(&alphas, k, &masked, &ch, &chosen));
        let r = Bits::random(&mut rng, len);
        let (mut vu, mut c) = (BitMatrix::default(), BitMatrix::default());
        let mut t = vec![Block::ZERO; len];
        let mut q = vec![Block::ZERO; len];
        let mut best = [f64::MAX; 4];
        for _ in 0..200 {
            let a = Instant::now();
            ss_receiver_vole_chunk(&sk, &r, len, 1, 0, len, &mut vu);
            let b = Instant::now();
            ss_corrections_chunk(&vu, trees, 0, len, &mut c);
            let cc = Instant::now();
            transpose_columns_chunk(&vu, 1, 0, len, &mut t);
            let d = Instant::now();
            ss_sender_columns_chunk(&rk, &c, 1, 0, len, &mut q);
            let e = Instant::now();
            for (i, x) in [b - a, cc - b, d - cc, e - d].iter().enumerate() {
                best[i] = best[i].min(x.as_secs_f64() * 1e9 / len as f64);
            }
        }
        println!(
            "k={k}: recv vole {:.2} ns/OT, corrections {:.2}, transpose {:.2}, sender {:.2}",
            best[0], best[1], best[2], best[3]
        );
    }
    let seeds: Vec<Block> = (0..256).map(|_| rng.next_block()).collect();
    let keys = prg_keys(&seeds);
    let mut best = f64::MAX;
    let mut m = BitMatrix::default();
    for _ in 0..200 {
        let a = Instant::now();
        prg_rows_chunk(&keys, len, 1, 0, len, &mut m);
        best = best.min(a.elapsed().as_secs_f64() * 1e9 / len as f64);
    }
    println!("prg 256 rows (= k=2 leaves) {best:.2} ns/OT");
}
