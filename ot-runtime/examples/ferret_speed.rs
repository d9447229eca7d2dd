//! Rates of one Ferret batch's kernels (`silent::ferret`), single thread,
//! beside raw fixed-key AES of the same runtime: the sender's expansion
//! (GGM trees a group at a time, level sums, corrections), its LPN step,
//! and the receiver's fused punctured expansion and LPN step, each for
//! the standard GGM trees (the malicious variant's) and the half trees
//! (`ferret_extend.otp`'s).
//!
//! ```text
//! cargo run --release -p ot-runtime --example ferret_speed [-- trees depth k reps]
//! ```
//! Without arguments: Ferret's main-iteration set (1319 trees of depth 13,
//! k = 589,760). Other sets need the `insecure-test-levels` feature only in
//! the protocol; the kernels run any shape.

use std::time::Instant;

use ot_runtime::silent::ferret::{self, EXTEND};
use ot_runtime::silent::pool;
use ot_runtime::{Bits, Block};

/// The best of `reps` runs of `f`, in seconds. Outputs go back to the
/// buffer pool, as a session's do, so later runs take warm pages.
fn best<T>(reps: usize, mut f: impl FnMut() -> T) -> f64 {
    let mut best = f64::MAX;
    for _ in 0..reps {
        let t = Instant::now();
        std::hint::black_box(f());
        best = best.min(t.elapsed().as_secs_f64());
    }
    best
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let trees = *args.first().unwrap_or(&EXTEND.trees);
    let depth = *args.get(1).unwrap_or(&EXTEND.depth);
    let k = *args.get(2).unwrap_or(&EXTEND.k);
    let reps = *args.get(3).unwrap_or(&3);
    let n = trees << depth;
    let usable = n - (k + trees * depth);
    let (tsid, seed, delta) = (Block(77), Block(78), Block(0x5555_1234 | 1));

    let aes = ot_runtime::primitives::aes::Aes128::new(Block(0x0123_4567_89ab_cdef));
    let mut buf = Block::zeroed_vec(1 << 16);
    let t_aes = best(20, || aes.encrypt_blocks(&mut buf)) / buf.len() as f64;
    println!(
        "AES ({}): {:.0} M blocks/s",
        ot_runtime::primitives::aes::backend_name(),
        1e-6 / t_aes
    );

    let roots: Vec<Block> = (0..trees).map(|i| Block(i as u128 * 0x9e37 + 1)).collect();
    let base: Vec<Block> = (0..k + trees * depth)
        .map(|j| Block(j as u128 * 0x1234_5678_9abc + 7))
        .collect();
    let report = |what: &str, t: f64| {
        println!(
            "{what}: {:.1} ms, {:.1} M rows/s ({:.1} M usable OT/s), {:.2} AES per row",
            t * 1e3,
            n as f64 / t * 1e-6,
            usable as f64 / t * 1e-6,
            t / t_aes / n as f64
        )
    };
    let t = best(reps, || ferret::sender_expand(&roots, depth, tsid));
    report("sender expand", t);
    let t = best(reps, || {
        let st = ferret::sender_expand(&roots, depth, tsid);
        let m = ferret::masked_sums(&st, &base[k..], delta, tsid);
        let c = ferret::corrections(&st, delta, trees);
        (st, m, c)
    });
    report("sender expand + messages", t);
    let t = best(reps, || {
        let st = ferret::sender_expand(&roots, depth, tsid);
        pool::give(ferret::sender_encode(st, &base[..k], seed, n))
    });
    report("sender expand + LPN", t);
    let st = ferret::sender_expand(&roots, depth, tsid);
    let masked = ferret::masked_sums(&st, &base[k..], delta, tsid);
    let corr = ferret::corrections(&st, delta, trees);
    let tree_choices = Bits::zeros(trees * depth);
    let alphas = ferret::receiver_alphas(&tree_choices, depth, trees);
    let t = best(reps, || {
        let known = ferret::unmask_sums(&masked, &tree_choices, &base[k..], tsid);
        let trees = ferret::Punctured::standard(&alphas, depth, &known, &corr, tsid);
        pool::give(ferret::receiver_encode(
            &trees,
            &base[..k],
            &Bits::zeros(k),
            seed,
            n,
        ))
    });
    report("receiver punctured expand + LPN", t);

    let t = best(reps, || {
        ferret::sender_expand_half(&roots, delta, depth, tsid)
    });
    report("half tree: sender expand", t);
    let t = best(reps, || {
        let st = ferret::sender_expand_half(&roots, delta, depth, tsid);
        let m = ferret::half_masks(&st, &base[k..]);
        (st, m)
    });
    report("half tree: sender expand + messages", t);
    let t = best(reps, || {
        let st = ferret::sender_expand_half(&roots, delta, depth, tsid);
        pool::give(ferret::sender_encode(st, &base[..k], seed, n))
    });
    report("half tree: sender expand + LPN", t);
    let st = ferret::sender_expand_half(&roots, delta, depth, tsid);
    let masked = ferret::half_masks(&st, &base[k..]);
    let t = best(reps, || {
        let known = ferret::half_unmask(&masked, &base[k..]);
        let trees = ferret::Punctured::half(&alphas, depth, &known, tsid);
        pool::give(ferret::receiver_encode(
            &trees,
            &base[..k],
            &Bits::zeros(k),
            seed,
            n,
        ))
    });
    report("half tree: receiver punctured expand + LPN", t);
}
