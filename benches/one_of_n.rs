//! Criterion benches of the 1-out-of-N OTs generated from `kkrt.otp` and
//! `oos.otp` at n = 2^16 and 2^20: both parties on two threads over the
//! in-memory channel, one thread per party, the 512 base OTs from an OT
//! extension (IKNP over CO15 / KOS over MR19) inside the iteration, plus one
//! sender evaluation per OT on the receiver's input. Throughput in OTs.
//!
//! `cargo bench --bench one_of_n`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ot::runtime::code::LinearCode;
use ot::runtime::rng::Rng;
use ot::runtime::session::run_pair;
use ot::runtime::Block;
use ot::{kkrt, oos, OtExtension};

/// Inputs below 2^76 (valid choices for BCH(511, 76) too).
fn inputs(n: usize) -> Vec<Block> {
    (0..n as u128)
        .map(|i| Block(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & ((1 << 76) - 1)))
        .collect()
}

fn bench_one_of_n(c: &mut Criterion) {
    let mut g = c.benchmark_group("one_of_n");
    g.sample_size(10);
    let code = LinearCode::bch_511_76();
    for log_n in [16usize, 20] {
        let n = 1 << log_n;
        g.throughput(Throughput::Elements(n as u64));
        let x = inputs(n);
        g.bench_with_input(BenchmarkId::new("kkrt", n), &n, |b, &n| {
            b.iter(|| {
                let p = kkrt::Params::new(n, 1, false).unwrap();
                let subs = kkrt::SenderSubs {
                    base: Box::new(OtExtension::iknp()),
                };
                let s = kkrt::Sender::new(p, kkrt::SenderInput {}, Rng::from_entropy(), subs);
                let subs = kkrt::ReceiverSubs {
                    base: Box::new(OtExtension::iknp()),
                };
                let input = kkrt::ReceiverInput { inputs: x.clone() };
                let r = kkrt::Receiver::new(p, input, Rng::from_entropy(), subs);
                let (so, ro) = run_pair(s.unwrap(), r.unwrap());
                (so.unwrap().encode_many(0, &x, 1), ro.unwrap())
            })
        });
        g.bench_with_input(BenchmarkId::new("oos", n), &n, |b, &n| {
            b.iter(|| {
                let p = oos::Params::new(n, 1, false).unwrap();
                let subs = oos::SenderSubs {
                    base: Box::new(OtExtension::kos()),
                };
                let input = oos::SenderInput { code: code.clone() };
                let s = oos::Sender::new(p, input, Rng::from_entropy(), subs);
                let subs = oos::ReceiverSubs {
                    base: Box::new(OtExtension::kos()),
                };
                let input = oos::ReceiverInput {
                    code: code.clone(),
                    choices: x.clone(),
                };
                let r = oos::Receiver::new(p, input, Rng::from_entropy(), subs);
                let (so, ro) = run_pair(s.unwrap(), r.unwrap());
                (so.unwrap().encode_many(0, &x, 1), ro.unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_one_of_n);
criterion_main!(benches);
