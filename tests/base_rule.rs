//! A malicious extension refuses the semi-honest base OTs CO15 and NP00
//! (`with_base` returns `UnfitBaseOt`), unless the caller opts out with
//! `with_semi_honest_base_insecure`; semi-honest extensions take any base.

mod common;

use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::transport::channel::{Channel, MemoryChannel};
use ot::runtime::Block;
use ot::{
    AboOt, BaseOtKind, DeltaOtReceiver, DeltaOtSender, Oprf, OtExtension, RandomOtReceiver,
    RandomOtSender, UnfitBaseOt,
};

const SEMI_HONEST: [BaseOtKind; 2] = [BaseOtKind::Co15, BaseOtKind::Np00];

/// The refusal of `base`, with the extension it names.
fn refused<T>(r: Result<T, UnfitBaseOt>, base: BaseOtKind, extension: &str) {
    let e = r
        .err()
        .unwrap_or_else(|| panic!("{base:?} accepted by {extension}"));
    assert_eq!(e.base, base);
    assert_eq!(e.extension, extension);
    let msg = e.to_string();
    assert!(msg.contains("not a base for malicious"), "{msg}");
    assert!(msg.contains("with_semi_honest_base_insecure"), "{msg}");
}

#[test]
fn malicious_extensions_refuse_semi_honest_base_ots() {
    let delta = Block::sample(&mut Rng::from_entropy());
    for base in SEMI_HONEST {
        refused(OtExtension::kos().with_base(base), base, "KOS");
        refused(
            OtExtension::softspoken_malicious(2).with_base(base),
            base,
            "SoftSpokenOT",
        );
        refused(DeltaOtSender::kos(delta).with_base(base), base, "Delta-KOS");
        refused(DeltaOtReceiver::kos().with_base(base), base, "Delta-KOS");
        refused(
            DeltaOtSender::softspoken_malicious(4, delta).with_base(base),
            base,
            "SoftSpokenOT Delta-OT",
        );
        refused(
            DeltaOtReceiver::softspoken_malicious(4).with_base(base),
            base,
            "SoftSpokenOT Delta-OT",
        );
        refused(
            AboOt::malicious().with_base(base),
            base,
            "all-but-one OT (Fig. 14)",
        );
        refused(Oprf::oos().with_base(base), base, "OOS");
    }
}

#[test]
fn malicious_extensions_take_mr19_and_semi_honest_ones_take_any_base() {
    let delta = Block::sample(&mut Rng::from_entropy());
    assert!(OtExtension::kos().with_base(BaseOtKind::Mr19).is_ok());
    assert!(DeltaOtSender::kos(delta)
        .with_base(BaseOtKind::Mr19)
        .is_ok());
    assert!(AboOt::malicious().with_base(BaseOtKind::Mr19).is_ok());
    assert!(Oprf::oos().with_base(BaseOtKind::Mr19).is_ok());
    for base in [BaseOtKind::Co15, BaseOtKind::Np00, BaseOtKind::Mr19] {
        assert!(OtExtension::iknp().with_base(base).is_ok());
        assert!(OtExtension::softspoken(2).with_base(base).is_ok());
        assert!(DeltaOtSender::iknp(delta).with_base(base).is_ok());
        assert!(DeltaOtReceiver::softspoken(2).with_base(base).is_ok());
        assert!(AboOt::semi_honest().with_base(base).is_ok());
        assert!(Oprf::kkrt().with_base(base).is_ok());
    }
}

/// A KKRT builder given CO15 and then an OOS code is refused at setup,
/// before anything is sent.
#[test]
fn a_code_set_after_the_base_is_refused_at_setup() {
    let mut oprf = Oprf::kkrt()
        .with_base(BaseOtKind::Co15)
        .unwrap()
        .with_code(ot::runtime::oprf::code::LinearCode::bch_511_76());
    let (mut a, _b) = MemoryChannel::pair();
    let err = oprf.setup_sender(&mut a).err().expect("refused");
    let e = err.0.downcast_ref::<UnfitBaseOt>().expect("typed");
    assert_eq!(e.base, BaseOtKind::Co15);
    assert_eq!(a.stats().bytes_sent, 0);
}

/// The opt-out runs KOS over CO15 end to end.
#[test]
fn the_insecure_opt_out_runs() {
    let n = 200;
    let r = common::choices(n);
    let mk = || OtExtension::kos().with_semi_honest_base_insecure(BaseOtKind::Co15);
    let (mut a, mut b) = MemoryChannel::pair();
    let (y, x) = std::thread::scope(|sc| {
        let h = sc.spawn(|| mk().send_random(&mut a, n));
        let x = mk().receive_random(&mut b, &r);
        (h.join().unwrap().unwrap(), x.unwrap())
    });
    for i in 0..n {
        assert_eq!(x[i], y[i][usize::from(r.get(i))]);
    }
}
