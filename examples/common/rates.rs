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
