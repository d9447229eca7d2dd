//! Criterion benchmarks of the kernels, next to `memcpy` and the raw `aes`
//! crate on the same buffer size. Run: `cargo bench -p ot-runtime --bench kernels`.

use aes::cipher::{BlockEncrypt, KeyInit};
use criterion::{black_box, criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ot_runtime::{
    primitives::gf128, primitives::hash, primitives::parallel, primitives::prg::Prg,
    primitives::transpose, BitMatrix, Block,
};
use ot_runtime::{HashTweaks, Span};

const AES_BLOCKS: usize = 1 << 14; // 256 KiB: L2-resident, measures compute

fn aes_like(c: &mut Criterion) {
    let mut g = c.benchmark_group("aes_like");
    g.throughput(Throughput::Bytes((AES_BLOCKS * 16) as u64));
    let src = vec![Block(7); AES_BLOCKS];
    let mut buf = vec![Block::ZERO; AES_BLOCKS];
    g.bench_function("memcpy", |b| {
        b.iter(|| buf.copy_from_slice(black_box(&src)))
    });
    let raw = aes::Aes128::new(&[3u8; 16].into());
    let mut raw_buf = vec![aes::Block::default(); AES_BLOCKS];
    g.bench_function("aes_crate_encrypt_blocks", |b| {
        b.iter(|| raw.encrypt_blocks(black_box(&mut raw_buf)))
    });
    let ours = ot_runtime::primitives::aes::Aes128::new(Block(3));
    g.bench_function(
        BenchmarkId::new("aes128_encrypt_blocks", ours.backend().name()),
        |b| b.iter(|| ours.encrypt_blocks(black_box(&mut buf))),
    );
    let mut prg = Prg::new(Block(9));
    g.bench_function("prg_fill", |b| b.iter(|| prg.fill(black_box(&mut buf))));
    g.bench_function("mmo_many", |b| {
        b.iter(|| hash::mmo_many(black_box(&mut buf)))
    });
    g.bench_function("tccr_many", |b| {
        b.iter(|| hash::tccr_many(0, 0, black_box(&mut buf)))
    });
    g.finish();
}

fn transposes(c: &mut Criterion) {
    let m = 1 << 20;
    let mut g = c.benchmark_group("transpose_128x2^20");
    g.throughput(Throughput::Bytes((128 * m / 8) as u64));
    g.sample_size(20);
    let mut mat = BitMatrix::new(128, m);
    let seeds: Vec<Block> = (0..128u128).map(Block).collect();
    ot_runtime::primitives::prg::fill_matrix(&seeds, &mut mat).unwrap();
    let src = mat.as_blocks().to_vec();
    let mut dst = vec![Block::ZERO; m];
    g.bench_function("memcpy", |b| {
        b.iter(|| dst.copy_from_slice(black_box(&src)))
    });
    for be in transpose::Backend::available() {
        g.bench_function(BenchmarkId::new("128xm", be.name()), |b| {
            b.iter(|| black_box(transpose::transpose_with(be, &mat)))
        });
    }
    g.bench_function("128xm_into_selected", |b| {
        b.iter(|| transpose::transpose_128xm_into(black_box(&src), m, &mut dst).unwrap())
    });
    let cols = dst.clone();
    let mut back = vec![Block::ZERO; m];
    g.bench_function("mx128_into_selected", |b| {
        b.iter(|| transpose::transpose_mx128_into(black_box(&cols), &mut back).unwrap())
    });
    g.bench_function("128xm_parallel_2", |b| {
        b.iter(|| parallel::transpose_128xm(black_box(&src), m, 2).unwrap())
    });
    g.finish();
}

fn gf(c: &mut Criterion) {
    let n = 1 << 20;
    let mut g = c.benchmark_group("gf128_inner_product_2^20");
    g.throughput(Throughput::Bytes((2 * n * 16) as u64));
    g.sample_size(20);
    let a = ot_runtime::primitives::prg::prg(Block(1), n);
    let bb = ot_runtime::primitives::prg::prg(Block(2), n);
    for be in gf128::GfBackend::available() {
        if be == gf128::GfBackend::Portable {
            continue; // ~100x slower; not a deployment target on x86-64
        }
        g.bench_function(be.name(), |b| {
            b.iter(|| gf128::inner_product_with(be, black_box(&a), &bb).unwrap())
        });
    }
    g.finish();
}

/// The streamed OT-extension kernels on one L2-resident 128 x 16384 chunk.
fn stream_chunk(c: &mut Criterion) {
    use ot_runtime::{otext::stream, Bits};
    let n = 1 << 14;
    let mut g = c.benchmark_group("stream_chunk_128x16384");
    g.throughput(Throughput::Elements(n as u64));
    let seeds: Vec<Block> = (0..128u128).map(Block).collect();
    let seeds1: Vec<Block> = (0..128u128).map(|i| Block(i + 1000)).collect();
    let (keys, keys1) = (stream::prg_keys(&seeds), stream::prg_keys(&seeds1));
    let (mut t, mut u) = (BitMatrix::default(), BitMatrix::default());
    stream::prg_rows(&keys, n, 1, Span::whole(n), &mut t);
    let r = Bits::random(&mut rand_core::OsRng, n);
    let s = Bits::random(&mut rand_core::OsRng, 128);
    stream::xor_prg_choice(&t, &keys1, &r, 1, Span::whole(n), &mut u);
    let mut mu = BitMatrix::default();
    let mut cols = vec![Block::ZERO; n];
    let mut m = BitMatrix::default();
    let mut h = vec![Block::ZERO; n];
    let mut hp = vec![[Block::ZERO; 2]; n];
    g.bench_function("transpose_columns", |b| {
        b.iter(|| stream::transpose_columns(black_box(&t), 1, Span::new(0, n), &mut cols))
    });
    g.bench_function("prg_rows", |b| {
        b.iter(|| stream::prg_rows(black_box(&keys), n, 1, Span::new(0, n), &mut m))
    });
    g.bench_function("masked_columns", |b| {
        b.iter(|| stream::masked_columns(black_box(&keys), &u, &s, 1, Span::new(0, n), &mut cols))
    });
    g.bench_function("receiver_chain", |b| {
        b.iter(|| {
            stream::prg_rows(black_box(&keys), n, 1, Span::new(0, n), &mut m);
            stream::xor_prg_choice(&m, &keys1, &r, 1, Span::new(0, n), &mut mu);
            stream::transpose_columns(&m, 1, Span::new(0, n), &mut cols);
            stream::hash_blocks(
                &cols,
                n,
                &HashTweaks::new(Block(9), false, 0),
                1,
                Span::new(0, n),
                &mut h,
            );
        })
    });
    g.bench_function("sender_chain", |b| {
        b.iter(|| {
            stream::masked_columns(black_box(&keys), &u, &s, 1, Span::new(0, n), &mut cols);
            stream::hash_block_pairs(
                &cols,
                Block(5),
                n,
                &HashTweaks::new(Block(9), false, 0),
                1,
                Span::new(0, n),
                &mut hp,
            );
        })
    });
    g.finish();
}

criterion_group!(benches, aes_like, transposes, gf, stream_chunk);
criterion_main!(benches);
