//! Criterion benches of the 1-out-of-N OTs generated from `kkrt.otp` and
//! `oos.otp` at n = 2^16 and 2^20: both parties on two threads over the
//! in-memory channel, one thread per party (`kkrt`, `oos`) or two
//! (`kkrt_t2`, `oos_t2`: the `threads` parameter), the 512 base OTs from an
//! OT extension (IKNP over CO15 / KOS over MR19) inside the iteration, plus
//! one sender evaluation per OT on the receiver's input. Throughput in OTs.
//!
//! `rr16`: the approximate K-out-of-N OT of `rr16.otp` with K = N/2 and
//! statistical security 40 over KOS random OTs (base OTs inside the
//! iteration); throughput in messages N. Its bytes per message are printed
//! once (the spec's `comm()` plus the KOS run's).
//!
//! `cargo bench --bench one_of_n`

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};
use ot::runtime::oprf::code::LinearCode;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::session::run_pair;
use ot::runtime::Bits;
use ot::runtime::Block;
use ot::{kkrt, kos, oos, rr16, OtExtension};

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
    for (log_n, threads) in [(16usize, 1usize), (20, 1), (20, 2)] {
        let n = 1 << log_n;
        g.throughput(Throughput::Elements(n as u64));
        let x = inputs(n);
        let suffix = if threads == 1 { "" } else { "_t2" };
        g.bench_with_input(BenchmarkId::new(format!("kkrt{suffix}"), n), &n, |b, &n| {
            b.iter(|| {
                let p = kkrt::Params::new(n, threads, false).unwrap();
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
                (so.unwrap().encode_many(0, &x, threads), ro.unwrap())
            })
        });
        g.bench_with_input(BenchmarkId::new(format!("oos{suffix}"), n), &n, |b, &n| {
            b.iter(|| {
                let p = oos::Params::new(n, threads, false).unwrap();
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
                (so.unwrap().encode_many(0, &x, threads), ro.unwrap())
            })
        });
    }
    for log_n in [16usize, 20] {
        let n = 1 << log_n;
        let k = n / 2;
        let s = ot::runtime::rr16::sizes(n, k, 40).unwrap();
        let p = rr16::Params::new(n, k, 40, s.checked, s.threshold, s.total).unwrap();
        let (c, ext) = (
            rr16::comm(&p),
            kos::comm(&kos::Params::new(s.total, 1, false).unwrap()),
        );
        eprintln!(
            "rr16 n = 2^{log_n}, k = n/2: {} OTs, {} checked, threshold {}, a cheating receiver learns < {}; {:.1} bytes/message (without the 128 base OTs)",
            s.total,
            s.checked,
            s.threshold,
            s.max_learned + 1,
            (c.sender + c.receiver + ext.sender + ext.receiver) as f64 / n as f64
        );
        let mut choices = Bits::zeros(n);
        for j in (0..n).step_by(2) {
            choices.set(j, true);
        }
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("rr16", n), &n, |b, _| {
            b.iter(|| {
                let subs = rr16::SenderSubs {
                    ots: Box::new(OtExtension::kos()),
                };
                let snd = rr16::Sender::new(p, rr16::SenderInput {}, Rng::from_entropy(), subs);
                let subs = rr16::ReceiverSubs {
                    ots: Box::new(OtExtension::kos()),
                };
                let input = rr16::ReceiverInput {
                    choices: choices.clone(),
                };
                let rcv = rr16::Receiver::new(p, input, Rng::from_entropy(), subs);
                let (so, ro) = run_pair(snd.unwrap(), rcv.unwrap());
                (so.unwrap(), ro.unwrap())
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench_one_of_n);
criterion_main!(benches);
