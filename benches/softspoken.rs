//! Criterion benches of SoftSpokenOT [Roy, CRYPTO 2022, eprint 2022/192]
//! generated from `protocols/softspoken*.otp` and `delta_softspoken*.otp`,
//! next to the AES limit of the same runtime in the same run:
//!
//! * `aes/ctr`: raw AES-CTR blocks of one key (throughput in blocks; the
//!   kernel limit, `2^k · ⌈128 / k⌉ / 128` blocks per OT for the OT
//!   receiver's VOLE);
//! * `softspoken_kernels`: one 16384-OT chunk of the receiver's VOLE with
//!   corrections and of the sender's VOLE + Delta correction + transpose,
//!   k = 2, 4, 8 (throughput in OTs);
//! * `softspoken`: whole protocols at n = 2^20, both parties on two threads
//!   over the in-memory channel, one thread per party, k = 2, 4, 8:
//!   semi-honest and malicious random OT, and correlated OT (Delta-OT,
//!   semi-honest and malicious, the batch after the all-but-one OTs).
//!
//! `cargo bench --bench softspoken` (criterion prints OTs/s and blocks/s;
//! the ratio of a kernel's time per OT to the AES time of its blocks is
//! its distance from AES speed).

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ot::runtime::primitives::aes::Aes128;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::softspoken::{
    ss_corrections, ss_keys_in_the_clear, ss_receiver_vole, ss_sender_columns, ss_trees,
};
use ot::runtime::transport::channel::{Channel, MemoryChannel};
use ot::runtime::Span;
use ot::runtime::{BitMatrix, Bits, Block};
use ot::{
    BaseOtKind, CorrelatedOtReceiver, CorrelatedOtSender, DeltaOtReceiver, DeltaOtSender,
    OtExtension, RandomOtReceiver, RandomOtSender,
};

/// OTs per streamed chunk (the `CHUNK` of `softspoken.otp`).
const CHUNK: usize = 16384;

/// Runs the two parties on two threads over a memory channel.
fn pair<S: Send, R: Send>(
    s: impl FnOnce(&mut dyn Channel) -> S + Send,
    r: impl FnOnce(&mut dyn Channel) -> R + Send,
) -> (S, R) {
    let (mut a, mut b) = MemoryChannel::pair();
    std::thread::scope(|sc| {
        let h = sc.spawn(move || r(&mut b));
        (s(&mut a), h.join().expect("receiver thread"))
    })
}

fn bench_aes(c: &mut Criterion) {
    let mut g = c.benchmark_group("aes");
    let mut rng = Rng::deterministic_for_tests(1);
    let aes = Aes128::new(rng.next_block());
    let mut blocks = vec![Block::ZERO; 4096];
    g.throughput(Throughput::Elements(blocks.len() as u64));
    g.bench_function(
        format!("ctr/{}", ot::runtime::primitives::aes::backend_name()),
        |b| b.iter(|| aes.ctr(0, &mut blocks)),
    );
    g.finish();
}

fn bench_kernels(c: &mut Criterion) {
    let mut g = c.benchmark_group("softspoken_kernels");
    g.throughput(Throughput::Elements(CHUNK as u64));
    let mut rng = Rng::deterministic_for_tests(2);
    for k in [2usize, 4, 8] {
        let trees = ss_trees(k);
        let (sk, rk) = ss_keys_in_the_clear(&mut rng, k, None);
        let r = Bits::random(&mut rng, CHUNK);
        let (mut vu, mut cc) = (BitMatrix::default(), BitMatrix::default());
        ss_receiver_vole(&sk, &r, CHUNK, 1, Span::new(0, CHUNK), &mut vu);
        ss_corrections(&vu, trees, Span::new(0, CHUNK), &mut cc);
        let mut q = vec![Block::ZERO; CHUNK];
        g.bench_with_input(BenchmarkId::new("receiver_vole", k), &k, |b, _| {
            b.iter(|| ss_receiver_vole(&sk, &r, CHUNK, 1, Span::new(0, CHUNK), &mut vu))
        });
        g.bench_with_input(BenchmarkId::new("sender_columns", k), &k, |b, _| {
            b.iter(|| ss_sender_columns(&rk, &cc, 1, Span::new(0, CHUNK), &mut q))
        });
    }
    g.finish();
}

fn bench_protocols(c: &mut Criterion) {
    let mut g = c.benchmark_group("softspoken");
    g.sample_size(10);
    let n = 1usize << 20;
    g.throughput(Throughput::Elements(n as u64));
    let r = Bits::random(&mut Rng::from_entropy(), n);
    for k in [2usize, 4, 8] {
        for malicious in [false, true] {
            let ext = move || {
                let e = if malicious {
                    OtExtension::softspoken_malicious(k)
                } else {
                    OtExtension::softspoken(k)
                };
                e.with_semi_honest_base_insecure(BaseOtKind::Co15)
            };
            let name = if malicious {
                "malicious_random"
            } else {
                "random"
            };
            g.bench_with_input(BenchmarkId::new(name, k), &k, |b, _| {
                b.iter(|| {
                    let (y, x) = pair(
                        |ch| ext().send_random(ch, n),
                        |ch| ext().receive_random(ch, &r),
                    );
                    (y.expect("sender"), x.expect("receiver"))
                })
            });
            // Correlated OT: the all-but-one OTs once, then the timed batch.
            let name = if malicious {
                "malicious_correlated"
            } else {
                "correlated"
            };
            g.bench_with_input(BenchmarkId::new(name, k), &k, |b, _| {
                b.iter_custom(|iters| {
                    let (mut a, mut bch) = MemoryChannel::pair();
                    let delta = Block(0x05ee_d0fd_e17a);
                    std::thread::scope(|sc| {
                        let r = &r;
                        let h = sc.spawn(move || {
                            let mut p = if malicious {
                                DeltaOtReceiver::softspoken_malicious(k)
                            } else {
                                DeltaOtReceiver::softspoken(k)
                            }
                            .with_semi_honest_base_insecure(BaseOtKind::Co15);
                            for _ in 0..=iters {
                                p.receive_correlated(&mut bch, r).expect("receiver");
                            }
                        });
                        let mut p = if malicious {
                            DeltaOtSender::softspoken_malicious(k, delta)
                        } else {
                            DeltaOtSender::softspoken(k, delta)
                        }
                        .with_semi_honest_base_insecure(BaseOtKind::Co15);
                        // The first batch runs the all-but-one OTs.
                        p.send_correlated(&mut a, n).expect("sender");
                        let start = std::time::Instant::now();
                        for _ in 0..iters {
                            p.send_correlated(&mut a, n).expect("sender");
                        }
                        let t = start.elapsed();
                        h.join().expect("receiver thread");
                        t
                    })
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, bench_aes, bench_kernels, bench_protocols);
criterion_main!(benches);
