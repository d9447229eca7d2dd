//! Quick single-core throughput report of every kernel and the `Rng`, next to memcpy and
//! the raw `aes` crate, and of the streamed OT-extension chain on one
//! 128 x 16384 chunk (`--chunk-only` stops after that section;
//! `--row-check-only` runs only the KOS row-check section, `--ggm-only` only
//! the GGM-tree section, `--vole-only` only the subspace-VOLE section).
//! Run: `cargo run --release -p ot-runtime --example kernel_speed`.

use aes::cipher::{BlockEncrypt, KeyInit};
use ot_runtime::{
    primitives::gf128, primitives::hash, primitives::parallel, primitives::prg::Prg,
    primitives::transpose, BitMatrix, Block,
};
use ot_runtime::{HashTweaks, Span};
use std::hint::black_box;
use std::time::{Duration, Instant};

/// Best time of `reps` runs of `f` (after one warm-up).
fn best(reps: usize, mut f: impl FnMut()) -> Duration {
    f();
    (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed()
        })
        .min()
        .unwrap()
}

fn report(name: &str, blocks: usize, bytes: usize, d: Duration, aes_bps: Option<f64>) -> f64 {
    let s = d.as_secs_f64();
    let bps = blocks as f64 / s;
    let ratio = aes_bps
        .map(|a| format!("{:6.1}% of raw aes", 100.0 * bps / a))
        .unwrap_or_default();
    println!(
        "{name:<34} {:>8.1} Mblocks/s {:>6.2} ns/block {:>7.2} GB/s  {ratio}",
        bps / 1e6,
        1e9 / bps,
        bytes as f64 / s / 1e9
    );
    bps
}

fn main() {
    println!(
        "backends: aes={} transpose={} gf128={}",
        ot_runtime::primitives::aes::backend_name(),
        transpose::backend_name(),
        gf128::backend_name()
    );
    if std::env::args().any(|x| x == "--row-check-only") {
        row_check_section(1 << 20, None);
        return;
    }
    if std::env::args().any(|x| x == "--ggm-only") {
        ggm_section();
        return;
    }
    if std::env::args().any(|x| x == "--vole-only") {
        vole_section();
        return;
    }
    let n = 1 << 14;
    let reps = 200;
    let src = vec![Block(5); n];
    let mut buf = vec![Block::ZERO; n];
    println!("-- {n} blocks ({} KiB), single core", n * 16 / 1024);
    let d = best(reps, || buf.copy_from_slice(black_box(&src)));
    report("memcpy", n, n * 16, d, None);
    let raw = aes::Aes128::new(&[1u8; 16].into());
    let mut raw_buf = vec![aes::Block::default(); n];
    let d = best(reps, || raw.encrypt_blocks(black_box(&mut raw_buf)));
    let a = report("aes crate encrypt_blocks", n, n * 16, d, None);
    let ours = ot_runtime::primitives::aes::Aes128::new(Block(1));
    let d = best(reps, || ours.encrypt_blocks(black_box(&mut buf)));
    report(
        &format!("Aes128::encrypt_blocks ({})", ours.backend().name()),
        n,
        n * 16,
        d,
        Some(a),
    );
    let mut prg = Prg::new(Block(2));
    let d = best(reps, || prg.fill(black_box(&mut buf)));
    report("prg fill", n, n * 16, d, Some(a));
    let raw256 = aes::Aes256Enc::new(&[1u8; 32].into());
    let d = best(reps, || raw256.encrypt_blocks(black_box(&mut raw_buf)));
    report("aes crate AES-256 encrypt_blocks", n, n * 16, d, Some(a));
    let mut rng = ot_runtime::Rng::from_entropy();
    let d = best(reps, || rng.fill_blocks(black_box(&mut buf)));
    report("rng fill_blocks", n, n * 16, d, Some(a));
    let mut b32 = [0u8; 32];
    let d = best(reps, || {
        for _ in 0..n / 2 {
            rand_core::RngCore::fill_bytes(&mut rng, black_box(&mut b32));
        }
    });
    report("rng fill_bytes, 32 B per call", n, n * 16, d, Some(a));
    let d = best(reps, || hash::mmo_many(black_box(&mut buf)));
    report("mmo_many", n, n * 16, d, Some(a));
    let d = best(reps, || hash::tccr_many(0, 0, black_box(&mut buf)));
    report("tccr_many (2 AES per block)", n, n * 16, d, Some(a));
    let mut small = vec![Block::ZERO; 1 << 10];
    let d = best(20, || hash::sha1_ro_many(0, 0, black_box(&mut small)));
    report("sha1_ro_many", 1 << 10, 1 << 14, d, Some(a));

    chunk_section(a);
    if std::env::args().any(|x| x == "--chunk-only") {
        return;
    }

    let m = 1 << 20;
    println!("-- transpose 128 x 2^20 ({} MiB)", (m * 16) >> 20);
    let mut mat = BitMatrix::new(128, m);
    let seeds: Vec<Block> = (0..128u128).map(Block).collect();
    ot_runtime::primitives::prg::fill_matrix(&seeds, &mut mat).unwrap();
    let msrc = mat.as_blocks().to_vec();
    let mut mdst = vec![Block::ZERO; m];
    let d = best(20, || mdst.copy_from_slice(black_box(&msrc)));
    let mc = report("memcpy 16 MiB", m, m * 16, d, None);
    for be in transpose::Backend::available() {
        let d = best(10, || {
            black_box(transpose::transpose_with(be, &mat));
        });
        report(&format!("128xm {} (alloc)", be.name()), m, m * 16, d, None);
    }
    let d = best(20, || {
        transpose::transpose_128xm_into(black_box(&msrc), m, &mut mdst).unwrap()
    });
    let t = report("128xm_into (selected)", m, m * 16, d, None);
    println!("{:<34} {:.2}", "  ratio to memcpy", t / mc);
    let cols = mdst.clone();
    let mut back = vec![Block::ZERO; m];
    let d = best(20, || {
        transpose::transpose_mx128_into(black_box(&cols), &mut back).unwrap()
    });
    report("mx128_into (selected)", m, m * 16, d, None);
    let d = best(20, || {
        black_box(parallel::transpose_128xm(&msrc, m, 2).unwrap());
    });
    report("128xm parallel, 2 threads (alloc)", m, m * 16, d, None);

    println!("-- GF(2^128) inner product of 2^20 blocks");
    let x = ot_runtime::primitives::prg::prg(Block(3), m);
    let y = ot_runtime::primitives::prg::prg(Block(4), m);
    for be in gf128::GfBackend::available() {
        let reps = if be == gf128::GfBackend::Portable {
            1
        } else {
            20
        };
        let d = best(reps, || {
            black_box(gf128::inner_product_with(be, &x, &y).unwrap());
        });
        report(
            &format!("inner_product {}", be.name()),
            m,
            2 * m * 16,
            d,
            None,
        );
    }
    let xs = &x[..1 << 13];
    let ys = &y[..1 << 13];
    let d = best(200, || {
        black_box(gf128::inner_product(black_box(xs), ys).unwrap());
    });
    let clmul = report(
        "inner_product 2^13 (L1/L2-resident)",
        1 << 13,
        1 << 18,
        d,
        None,
    );
    row_check_section(m, Some(clmul));
    ggm_section();
    vole_section();
}

/// The row-wise KOS check ([KOS15, Fig. 10]) over 2^20 data columns plus
/// the 128 padding columns, single core, in ns per column; next to it the
/// two steps it is made of, run alone over the same columns (one 128 x 128
/// tile transpose per 128 columns, one carry-less product per column), and
/// the column-wise check of Fig. 7 it replaces.
fn row_check_section(m: usize, clmul_bps: Option<f64>) {
    use ot_runtime::{otext::consistency, Bits};
    println!("-- KOS15 Fig. 10 row check, 2^20 + 128 columns (1 block = 1 column)");
    let cols = ot_runtime::primitives::prg::prg(Block(6), m + 128);
    let key = consistency::kos_challenge_key(Block(1), Block(2), m);
    let d = best(10, || {
        black_box(consistency::kos_row_check(black_box(&cols), m, key, 1));
    });
    let rc = report("kos_row_check", m, m * 16, d, None);
    let mut pieces = [Block::ZERO; 128];
    let d = best(10, || {
        for g in black_box(&cols[..m]).chunks_exact(128) {
            transpose::transpose_128_rows_into(g, 1, &mut pieces).unwrap();
            black_box(&pieces);
        }
    });
    let tr = report("  128x128 tile transposes alone", m, m * 16, d, None);
    if let Some(clmul_bps) = clmul_bps {
        let bound = 1e9 / tr + 1e9 / clmul_bps;
        println!(
            "{:<34} {:>6.2} ns/column (transpose + 1 clmul, L1 figure above)",
            "  sum of the two steps", bound
        );
        println!(
            "{:<34} {:.2}x",
            "  row check / sum of the steps",
            1e9 / rc / bound
        );
    }
    let d = best(10, || {
        black_box(consistency::kos_row_check(black_box(&cols), m, key, 2));
    });
    report("kos_row_check, 2 threads", m, m * 16, d, None);
    let r = Bits::random(&mut rand_core::OsRng, m + 128);
    let d = best(20, || {
        black_box(consistency::kos_choice_check(black_box(&r), m, key));
    });
    report("kos_choice_check", m, m / 8, d, None);
}

/// The streamed OT-extension data path on one 128 x 16384 chunk (256 KiB,
/// L2-resident), single core.
fn chunk_section(aes_bps: f64) {
    use ot_runtime::{otext::stream, Bits};
    let n = 1 << 14;
    let reps = 300;
    println!(
        "-- stream chunk 128 x {n} ({} KiB), single core",
        n * 16 / 1024
    );
    let seeds: Vec<Block> = (0..128u128).map(|i| Block(i * 0x9e37 + 1)).collect();
    let seeds1: Vec<Block> = (0..128u128).map(|i| Block(i * 0x7f4a + 5)).collect();
    let (keys, keys1) = (stream::prg_keys(&seeds), stream::prg_keys(&seeds1));
    let mut t = BitMatrix::default();
    stream::prg_rows(&keys, n, 1, Span::whole(n), &mut t);
    let mut cols = vec![Block::ZERO; n];
    let d = best(reps, || {
        transpose::transpose_128_rows_into(black_box(t.as_blocks()), n / 128, &mut cols).unwrap()
    });
    report("transpose 128 x 16384", n, n * 16, d, None);
    let tiles = t.as_blocks().to_vec();
    let d = best(reps, || {
        for (src, dst) in tiles.chunks(128).zip(cols.chunks_mut(128)) {
            transpose::transpose_128_rows_into(black_box(src), 1, dst).unwrap();
        }
    });
    report("  128 x 128 tiles, contiguous", n, n * 16, d, None);
    let mut out = BitMatrix::new(128, n);
    let d = best(reps, || {
        stream::prg_rows(black_box(&keys), n, 1, Span::new(0, n), &mut out)
    });
    report("prg_rows", n, n * 16, d, Some(aes_bps));
    let r = Bits::random(&mut rand_core::OsRng, n);
    let d = best(reps, || {
        stream::xor_prg_choice(black_box(&t), &keys1, &r, 1, Span::new(0, n), &mut out)
    });
    report("xor_prg_choice", n, n * 16, d, Some(aes_bps));
    let u = out.clone();
    let s = Bits::random(&mut rand_core::OsRng, 128);
    let d = best(reps, || {
        stream::masked_columns(black_box(&keys), &u, &s, 1, Span::new(0, n), &mut cols)
    });
    report("masked_columns", n, n * 16, d, Some(aes_bps));
    let mut h = vec![Block::ZERO; n];
    let d = best(reps, || {
        stream::hash_blocks(
            black_box(&cols),
            n,
            &HashTweaks::new(Block(9), false, 0),
            1,
            Span::new(0, n),
            &mut h,
        )
    });
    report("hash_blocks (tccr)", n, n * 16, d, Some(aes_bps));
    let mut hp = vec![[Block::ZERO; 2]; n];
    let d = best(reps, || {
        stream::hash_block_pairs(
            black_box(&cols),
            Block(77),
            n,
            &HashTweaks::new(Block(9), false, 0),
            1,
            Span::new(0, n),
            &mut hp,
        )
    });
    report("hash_block_pairs (tccr)", n, n * 32, d, Some(aes_bps));
    let mut tm = BitMatrix::new(128, n);
    let d = best(reps, || {
        stream::prg_rows(black_box(&keys), n, 1, Span::new(0, n), &mut tm);
        stream::xor_prg_choice(&tm, &keys1, &r, 1, Span::new(0, n), &mut out);
        stream::transpose_columns(&tm, 1, Span::new(0, n), &mut cols);
        stream::hash_blocks(
            &cols,
            n,
            &HashTweaks::new(Block(9), false, 0),
            1,
            Span::new(0, n),
            &mut h,
        );
    });
    chain(
        "receiver chain: prg_rows+xor_prg_choice+transpose+hash",
        n,
        d,
    );
    let d = best(reps, || {
        stream::masked_columns(black_box(&keys), &u, &s, 1, Span::new(0, n), &mut cols);
        stream::hash_block_pairs(
            &cols,
            Block(77),
            n,
            &HashTweaks::new(Block(9), false, 0),
            1,
            Span::new(0, n),
            &mut hp,
        );
    });
    chain("sender chain: masked_columns+hash_block_pairs", n, d);
    big_output_section(&t, &keys, &u, &s);
}

/// The chunk transposes writing one 2^24-column output (256 MiB, far
/// larger than the caches) chunk after chunk, as the Delta-OT roles do:
/// given exact chunk slices they use plain stores, given the rest of the
/// array (the convention for in-place outputs) they stream past the cache.
/// Best of 3 passes over an output touched once before.
fn big_output_section(
    t: &BitMatrix,
    keys: &[ot_runtime::otext::stream::PrgKey],
    u: &BitMatrix,
    s: &ot_runtime::Bits,
) {
    use ot_runtime::otext::stream;
    let n = t.cols();
    let total = 1usize << 24;
    let mut big = vec![Block::ZERO; total];
    println!(
        "-- chunk after chunk into a {} MiB output",
        (total * 16) >> 20
    );
    for (name, streamed) in [("plain stores", false), ("streaming stores", true)] {
        let d = best(3, || {
            for off in (0..total).step_by(n) {
                let end = if streamed { total } else { off + n };
                stream::transpose_columns(black_box(t), 1, Span::new(off, n), &mut big[off..end]);
            }
        });
        report(&format!("transpose, {name}"), total, total * 16, d, None);
        let d = best(3, || {
            for off in (0..total).step_by(n) {
                let end = if streamed { total } else { off + n };
                stream::masked_columns(
                    black_box(keys),
                    u,
                    s,
                    1,
                    Span::new(off, n),
                    &mut big[off..end],
                );
            }
        });
        report(
            &format!("masked_columns, {name}"),
            total,
            total * 16,
            d,
            None,
        );
    }
}

/// Prints a whole chain's throughput in million OTs (columns) per second.
fn chain(name: &str, ots: usize, d: Duration) {
    let s = d.as_secs_f64();
    println!(
        "{name:<56} {:>7.1} M OT/s {:>6.2} ns/OT",
        ots as f64 / s / 1e6,
        1e9 * s / ots as f64
    );
}

/// GGM trees of SoftSpokenOT's all-but-one OT ([`ot_runtime::softspoken::ggm`]): 64
/// trees of depth 8 expanded level by level (batched fixed-key AES over all
/// trees, one AES per child node: `2^9 - 2` per tree, just under two per
/// leaf), in ns per leaf and ns per AES evaluation next to the fixed-key AES
/// ns per block of the same run; the sender with its level sums and the
/// punctured receiver alongside, allocating and into reused buffers.
fn ggm_section() {
    use ot_runtime::softspoken::ggm;
    let (trees, depth) = (64usize, 8usize);
    let leaves = trees << depth;
    let nodes = trees * ((2usize << depth) - 2);
    println!("-- GGM trees: {trees} trees of depth {depth} ({leaves} leaves), single core");
    let fk = &*ot_runtime::primitives::aes::FIXED_KEY_AES;
    let mut buf = vec![Block(7); leaves];
    let d = best(200, || fk.encrypt_blocks(black_box(&mut buf)));
    let aes_ns = d.as_secs_f64() * 1e9 / leaves as f64;
    println!(
        "{:<34} {aes_ns:>6.2} ns/block ({})",
        "fixed-key AES encrypt_blocks",
        fk.backend().name()
    );
    let roots: Vec<Block> = (0..trees as u128)
        .map(|i| Block(i * 0x9e37_79b9 + 1))
        .collect();
    let line = |name: &str, d: Duration| {
        let ns = d.as_secs_f64() * 1e9 / leaves as f64;
        let per_node = d.as_secs_f64() * 1e9 / nodes as f64;
        println!(
            "{name:<34} {ns:>6.2} ns/leaf = {:.2} AES; {per_node:.2} ns per AES call = {:.2} AES",
            ns / aes_ns,
            per_node / aes_ns
        );
    };
    let tweaks = ggm::GgmTweaks::new(Block(3), trees, depth);
    let d = best(200, || {
        black_box(ggm::ggm_expand(black_box(&roots), depth, &tweaks).unwrap());
    });
    line("ggm_expand (tree-major)", d);
    let d = best(200, || {
        black_box(ggm::ggm_expand_with_sums(black_box(&roots), depth, &tweaks).unwrap());
    });
    line("ggm_expand_with_sums (tree-major)", d);
    let mut out = vec![Block::ZERO; leaves];
    let d = best(200, || {
        ggm::ggm_expand_interleaved_into(black_box(&roots), depth, &tweaks, &mut out, None)
            .unwrap();
    });
    line("ggm_expand_interleaved_into", d);
    let mut sums = vec![[Block::ZERO; 2]; trees * depth];
    let d = best(200, || {
        ggm::ggm_expand_interleaved_into(
            black_box(&roots),
            depth,
            &tweaks,
            &mut out,
            Some(&mut sums),
        )
        .unwrap();
    });
    line("  ... with sums", d);
    let alphas: Vec<usize> = (0..trees).map(|t| (t * 37) % (1 << depth)).collect();
    let known: Vec<Block> = alphas
        .iter()
        .enumerate()
        .flat_map(|(t, &a)| {
            let sums = &sums;
            (1..=depth).map(move |l| sums[t * depth + l - 1][1 - ((a >> (depth - l)) & 1)])
        })
        .collect();
    let d = best(200, || {
        black_box(ggm::ggm_punctured(black_box(&alphas), &known, depth, &tweaks).unwrap());
    });
    line("ggm_punctured (tree-major)", d);
    let d = best(200, || {
        ggm::ggm_punctured_interleaved_into(black_box(&alphas), &known, depth, &tweaks, &mut out)
            .unwrap();
    });
    line("ggm_punctured_interleaved_into", d);
}

/// SoftSpokenOT's subspace VOLE ([`ot_runtime::softspoken::vole`]) on one chunk of
/// 16384 columns, single core: 64 trees of depth 2 and 16 trees of depth 8
/// (256 and 4096 leaves, one PRG row each), in ns per column and ns per PRG
/// block, next to the runtime's PRG alone over the same keys and width
/// (`prg_rows`, the AES-CTR part of the kernel) from the same run.
fn vole_section() {
    use ot_runtime::{otext::stream, softspoken::vole};
    let cols = 1 << 14;
    let blocks_per_row = cols / 128;
    println!("-- subspace VOLE: one chunk of {cols} columns, single core");
    for (trees, k) in [(64usize, 2usize), (16, 8)] {
        let seeds: Vec<Block> = (0..(trees << k) as u128)
            .map(|i| Block(i * 0x9e37_79b9 + 3))
            .collect();
        let keys = stream::prg_keys(&seeds);
        let prg_blocks = (trees << k) * blocks_per_row;
        let mut rows = BitMatrix::default();
        let d = best(50, || {
            stream::prg_rows(black_box(&keys), cols, 1, Span::new(0, cols), &mut rows);
        });
        let prg_ns = d.as_secs_f64() * 1e9 / prg_blocks as f64;
        let line = |name: &str, d: Duration| {
            let s = d.as_secs_f64() * 1e9;
            let per_block = s / prg_blocks as f64;
            println!(
                "{name:<34} {:>7.1} ns/column {per_block:>6.3} ns/PRG block = {:.2} PRG",
                s / cols as f64,
                per_block / prg_ns
            );
        };
        println!("{trees} trees, k = {k}: {prg_blocks} PRG blocks");
        line("  prg_rows (PRG alone)", d);
        let (mut u, mut v) = (BitMatrix::default(), BitMatrix::default());
        let d = best(50, || {
            vole::vole_sender(black_box(&keys), k, Span::whole(cols), &mut u, &mut v).unwrap();
        });
        line("  vole_sender", d);
        let deltas: Vec<usize> = (0..trees).map(|t| (t * 37) % (1 << k)).collect();
        let mut w = BitMatrix::default();
        let d = best(50, || {
            vole::vole_receiver(black_box(&keys), k, &deltas, Span::whole(cols), &mut w).unwrap();
        });
        line("  vole_receiver", d);
    }
}
