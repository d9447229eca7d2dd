//! Criterion benches of whole protocols generated from their `.otp` files:
//! base OTs (128 OTs) and the OT-extension family at n = 2^16 and 2^20,
//! both parties on two threads over the in-memory channel, one thread per
//! party. Throughput is reported in OTs (elements).
//!
//! `cargo bench --bench protocols`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::transport::session::run_pair;
use ot::runtime::{Bits, Block};
use ot::{co15, delta_base, delta_iknp, delta_kos, iknp, kos, np00, BaseOt, BaseOtKind};

fn base() -> Box<BaseOt> {
    Box::new(BaseOt::new(BaseOtKind::Co15))
}

/// The base OTs of a Delta-OT pair for `delta` (`delta_base.otp`).
fn delta_bases(delta: Block) -> (Vec<Block>, Vec<[Block; 2]>) {
    let p = delta_base::Params::new().unwrap();
    let s = delta_base::Sender::new(
        p,
        delta_base::SenderInput { delta },
        Rng::from_entropy(),
        delta_base::SenderSubs { base: base() },
    )
    .unwrap();
    let rc = delta_base::Receiver::new(
        p,
        delta_base::ReceiverInput {},
        Rng::from_entropy(),
        delta_base::ReceiverSubs { base: base() },
    )
    .unwrap();
    let (a, b) = run_pair(s, rc);
    (a.unwrap().base_chosen, b.unwrap().base_keys)
}

fn bench_base_ot(c: &mut Criterion) {
    let mut g = c.benchmark_group("base_ot");
    g.sample_size(20);
    let n = 128;
    g.throughput(Throughput::Elements(n as u64));
    let r = Bits::random(&mut Rng::from_entropy(), n);
    g.bench_function("co15/128", |b| {
        b.iter(|| {
            let p = co15::Params::new(n).unwrap();
            let s = co15::Sender::new(p, co15::SenderInput {}, Rng::from_entropy()).unwrap();
            let rc = co15::Receiver::new(
                p,
                co15::ReceiverInput { choices: r.clone() },
                Rng::from_entropy(),
            )
            .unwrap();
            let (a, b) = run_pair(s, rc);
            (a.unwrap(), b.unwrap())
        })
    });
    g.bench_function("np00/128", |b| {
        b.iter(|| {
            let p = np00::Params::new(n).unwrap();
            let s = np00::Sender::new(p, np00::SenderInput {}, Rng::from_entropy()).unwrap();
            let rc = np00::Receiver::new(
                p,
                np00::ReceiverInput { choices: r.clone() },
                Rng::from_entropy(),
            )
            .unwrap();
            let (a, b) = run_pair(s, rc);
            (a.unwrap(), b.unwrap())
        })
    });
    g.finish();
}

fn bench_extension(c: &mut Criterion) {
    let mut g = c.benchmark_group("ot_extension");
    g.sample_size(10);
    for log_n in [16usize, 20] {
        let n = 1 << log_n;
        g.throughput(Throughput::Elements(n as u64));
        let r = Bits::random(&mut Rng::from_entropy(), n);
        let delta = Block::sample(&mut Rng::from_entropy());
        g.bench_with_input(BenchmarkId::new("iknp", n), &n, |b, &n| {
            b.iter(|| {
                let p = iknp::Params::new(n, 1, false).unwrap();
                let s = iknp::Sender::new(
                    p,
                    iknp::SenderInput {},
                    Rng::from_entropy(),
                    iknp::SenderSubs { base: base() },
                )
                .unwrap();
                let rc = iknp::Receiver::new(
                    p,
                    iknp::ReceiverInput { r: r.clone() },
                    Rng::from_entropy(),
                    iknp::ReceiverSubs { base: base() },
                )
                .unwrap();
                let (a, b) = run_pair(s, rc);
                (a.unwrap(), b.unwrap())
            })
        });
        g.bench_with_input(BenchmarkId::new("kos", n), &n, |b, &n| {
            b.iter(|| {
                let p = kos::Params::new(n, 1, false).unwrap();
                let s = kos::Sender::new(
                    p,
                    kos::SenderInput {},
                    Rng::from_entropy(),
                    kos::SenderSubs { base: base() },
                )
                .unwrap();
                let rc = kos::Receiver::new(
                    p,
                    kos::ReceiverInput { r: r.clone() },
                    Rng::from_entropy(),
                    kos::ReceiverSubs { base: base() },
                )
                .unwrap();
                let (a, b) = run_pair(s, rc);
                (a.unwrap(), b.unwrap())
            })
        });
        // Delta-OT: one batch per iteration from base OTs run once (what a
        // stateful `DeltaOtSender` does after its first call).
        let bases = delta_bases(delta);
        let mut batch = 0;
        g.bench_with_input(BenchmarkId::new("delta_iknp", n), &n, |b, &n| {
            b.iter(|| {
                batch += 1;
                let p = delta_iknp::Params::new(n, 1, batch).unwrap();
                let s = delta_iknp::Sender::new(
                    p,
                    delta_iknp::SenderInput {
                        delta,
                        base_chosen: bases.0.clone(),
                    },
                    Rng::from_entropy(),
                )
                .unwrap();
                let rc = delta_iknp::Receiver::new(
                    p,
                    delta_iknp::ReceiverInput {
                        r: r.clone(),
                        base_keys: bases.1.clone(),
                    },
                    Rng::from_entropy(),
                )
                .unwrap();
                let (a, b) = run_pair(s, rc);
                (a.unwrap(), b.unwrap())
            })
        });
        g.bench_with_input(BenchmarkId::new("delta_kos", n), &n, |b, &n| {
            b.iter(|| {
                batch += 1;
                let p = delta_kos::Params::new(n, 1, batch).unwrap();
                let s = delta_kos::Sender::new(
                    p,
                    delta_kos::SenderInput {
                        delta,
                        base_chosen: bases.0.clone(),
                    },
                    Rng::from_entropy(),
                )
                .unwrap();
                let rc = delta_kos::Receiver::new(
                    p,
                    delta_kos::ReceiverInput {
                        r: r.clone(),
                        base_keys: bases.1.clone(),
                    },
                    Rng::from_entropy(),
                )
                .unwrap();
                let (a, b) = run_pair(s, rc);
                (a.unwrap(), b.unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_base_ot, bench_extension);
criterion_main!(benches);
