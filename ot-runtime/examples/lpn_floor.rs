//! A lower bound on the LPN step of one Ferret main batch on this machine:
//! only the ten reads per row from the table of `k` base values and their
//! XOR into the row, at positions from a cheap multiply-shift hash (no AES,
//! no rejection, no prefetching), over `N = 10,805,248` rows. Any primal-LPN
//! kernel for the `d = 10` code at Ferret's main set does at least this
//! memory work, so this time bounds a batch of each party from below.
//!
//! ```text
//! cargo run --release -p ot-runtime --example lpn_floor [-- k]
//! ```
//! Run two copies at once to see both parties of a two-process run
//! sharing the last-level cache. The default `k` is Ferret's 589,760
//! (a 9.4 MB table); `k = 1000` keeps the table in L1.

use std::time::Instant;

use ot_runtime::silent::ferret::EXTEND;
use ot_runtime::Block;

/// Position `q` of row `r`: a multiply-shift hash scaled to `0..k`.
#[inline(always)]
fn position(r: u64, q: u64, k: u64) -> usize {
    let h = (r.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ q.wrapping_mul(0xD1B5_4A32_D192_ED03))
        .wrapping_mul(0xA24B_AED4_963E_E407)
        >> 32;
    ((h * k) >> 32) as usize
}

fn main() {
    let k: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(EXTEND.k)
        .max(1);
    let n = EXTEND.trees << EXTEND.depth;
    let base: Vec<Block> = (0..k)
        .map(|j| Block(j as u128 * 0x1234_5678_9abc + 7))
        .collect();
    let mut out = Block::zeroed_vec(n);
    let mut best = f64::MAX;
    for _ in 0..7 {
        let t = Instant::now();
        for (r, o) in out.iter_mut().enumerate() {
            let mut acc = o.0;
            for q in 0..10 {
                acc ^= base[position(r as u64, q, k as u64)].0;
            }
            o.0 = acc;
        }
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&out);
    println!(
        "k = {k} ({:.1} MB table): {:.1} ms for {n} rows of 10 reads ({:.1} M rows/s)",
        (k * 16) as f64 / 1e6,
        best * 1e3,
        n as f64 / best * 1e-6
    );
}
