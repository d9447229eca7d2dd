//! Criterion benches of QuietOT (`quiet_bipsw.otp`, `quiet_gar.otp`): the
//! setup (both parties over the in-memory channel, IKNP random OTs) and
//! the zero-round expansion of 2^16 OTs per side, and the local kernels of
//! the conversion to random 1-out-of-2 OT (`quiet_*_rot.otp`). Throughput
//! in OTs.
//!
//! `cargo bench --bench quiet`

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::session::run_pair;
use ot::runtime::Bits;
use ot::{quiet_bipsw, quiet_gar, OtExtension};

const M: usize = 1 << 16;

macro_rules! bench_variant {
    ($c:expr, $module:ident, $name:expr) => {{
        use $module as q;
        let setup = || {
            let p = q::Params::new(1).expect("params");
            let s = q::Sender::new(
                p,
                q::SenderInput {},
                Rng::from_entropy(),
                q::SenderSubs {
                    rot: Box::new(OtExtension::iknp()),
                },
            );
            let r = q::Receiver::new(
                p,
                q::ReceiverInput {},
                Rng::from_entropy(),
                q::ReceiverSubs {
                    rot: Box::new(OtExtension::iknp()),
                },
            );
            let (so, ro) = run_pair(s.expect("sender"), r.expect("receiver"));
            (so.expect("sender setup"), ro.expect("receiver setup"))
        };
        let mut g = $c.benchmark_group($name);
        g.sample_size(10);
        g.bench_function("setup", |b| b.iter(setup));
        let (so, ro) = setup();
        g.throughput(Throughput::Elements(M as u64));
        g.bench_function("sender_expand_2^16", |b| b.iter(|| so.state.expand(0, M)));
        g.bench_function("receiver_expand_2^16", |b| b.iter(|| ro.state.expand(0, M)));
        // The conversion's local kernels (no channel): candidate block
        // hashes, corrections and derandomized pairs / decoded messages.
        let flips = Bits::zeros(M);
        g.bench_function("sender_convert_2^16", |b| {
            b.iter(|| {
                let rs = so.state.rot(0, M);
                (rs.corrections(), rs.pairs(&flips))
            })
        });
        let corr = so.state.rot(0, M).corrections();
        g.bench_function("receiver_convert_2^16", |b| {
            b.iter(|| ro.state.rot(0, M).chosen(&corr))
        });
        g.finish();
    }};
}

fn bench_quiet(c: &mut Criterion) {
    bench_variant!(c, quiet_bipsw, "quiet_bipsw");
    bench_variant!(c, quiet_gar, "quiet_gar");
}

criterion_group!(benches, bench_quiet);
criterion_main!(benches);
