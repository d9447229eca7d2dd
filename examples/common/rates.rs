//! Kernel limits the benchmark examples measure in the same run as their
//! protocols, to print each figure as a share of its limit (included by
//! `#[path = "common/rates.rs"] mod rates;`).

use ot::runtime::Block;
use std::time::Instant;

/// Raw AES throughput of the runtime (blocks/s), single core: 16 passes
/// over 2^16 blocks, best of 20.
pub fn aes_blocks_per_second() -> f64 {
    let aes = ot::runtime::primitives::aes::Aes128::new(Block(0x0123_4567_89ab_cdef));
    let mut buf = vec![Block::ZERO; 1 << 16];
    let mut best = f64::MAX;
    for _ in 0..20 {
        let t = Instant::now();
        for _ in 0..16 {
            aes.encrypt_blocks(&mut buf);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&buf);
    (16 * buf.len()) as f64 / best
}

/// Carry-less GF(2^128) multiply-adds per second of the runtime (its
/// inner product, the malicious checks' arithmetic: the KOS and
/// SoftSpokenOT row checks do one per OT and party), single core: 16
/// inner products of 2^16 blocks, best of 20.
#[allow(dead_code)] // `ot_table` prints it; the other examples include this file too
pub fn gf128_mul_adds_per_second() -> f64 {
    let a: Vec<Block> = (0..1u128 << 16)
        .map(|i| Block(i.wrapping_mul(0x9e37_79b9_7f4a_7c15)))
        .collect();
    let b: Vec<Block> = a.iter().map(|x| Block(x.0.rotate_left(17))).collect();
    let mut best = f64::MAX;
    let mut acc = Block::ZERO;
    for _ in 0..20 {
        let t = Instant::now();
        for _ in 0..16 {
            acc ^= ot::runtime::primitives::gf128::inner_product(&a, &b).unwrap_or(Block::ZERO);
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(acc);
    (16 * a.len()) as f64 / best
}
