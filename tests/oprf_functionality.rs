//! The prelude's `Oprf` functionality realized by `protocols/kkrt.otp` and
//! `protocols/oos.otp` (`realizes Oprf`): the generated
//! `SenderRealization` / `ReceiverRealization` run through the traits
//! `ot::BatchedOprfSender` / `ot::BatchedOprfReceiver` (trait objects, as
//! a protocol's `do oprf: Oprf[...]` call holds them), over memory and
//! TCP. OOS's code, an input the functionality does not give, is a field
//! of its realizations.

use ot::runtime::oprf::code::LinearCode;
use ot::runtime::oprf::OprfKey;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{local_pair_tcp, Channel, MemoryChannel};
use ot::runtime::Block;
use ot::{kkrt, oos, BatchedOprfReceiver, BatchedOprfSender, OtError, OtExtension};

/// Runs sender `s` and receiver `r` on the pair `(a, b)`, each in its own
/// thread; checks that the receiver's values are the key's OPRF of its
/// inputs and that other inputs give other values; returns the key.
fn run(
    s: &mut (dyn BatchedOprfSender + Send),
    r: &mut (dyn BatchedOprfReceiver + Send),
    a: &mut (dyn Channel + Send),
    b: &mut (dyn Channel + Send),
    inputs: &[Block],
) -> Result<(OprfKey, Vec<Block>), OtError> {
    let m = inputs.len();
    let (key, values) = std::thread::scope(|sc| {
        let h = sc.spawn(move || s.send_oprf(a, m));
        let values = r.receive_oprf(b, inputs);
        (h.join().expect("sender thread"), values)
    });
    Ok((key?, values?))
}

fn check(key: &OprfKey, values: &[Block], inputs: &[Block]) {
    assert_eq!(key.len(), inputs.len());
    for (j, (v, x)) in values.iter().zip(inputs).enumerate() {
        assert_eq!(key.eval(j, *x), Some(*v), "instance {j}");
        assert_ne!(
            key.eval(j, *x ^ Block(1)),
            Some(*v),
            "instance {j}, another input"
        );
    }
    let idx: Vec<u32> = (0..inputs.len() as u32).rev().collect();
    let xs: Vec<Block> = idx.iter().map(|&j| inputs[j as usize]).collect();
    let at = ot::runtime::oprf::oprf_eval_at(key, &idx, &xs);
    for (&j, v) in idx.iter().zip(&at) {
        assert_eq!(*v, values[j as usize]);
    }
}

fn kkrt_parties<'a>(
    rng_s: &'a mut Rng,
    rng_r: &'a mut Rng,
    subs_s: &'a mut (dyn FnMut(&mut Rng) -> kkrt::SenderSubs + Send),
    subs_r: &'a mut (dyn FnMut(&mut Rng) -> kkrt::ReceiverSubs + Send),
) -> (kkrt::SenderRealization<'a>, kkrt::ReceiverRealization<'a>) {
    (
        kkrt::SenderRealization {
            rng: rng_s,
            threads: 1,
            sha1: false,
            subs: subs_s,
        },
        kkrt::ReceiverRealization {
            rng: rng_r,
            threads: 1,
            sha1: false,
            subs: subs_r,
        },
    )
}

#[test]
fn kkrt_realizes_the_oprf_functionality_over_memory_and_tcp() {
    let (mut rs, mut rr) = (Rng::from_entropy(), Rng::from_entropy());
    let mut ss = |_: &mut Rng| kkrt::SenderSubs {
        base: Box::new(OtExtension::iknp()),
    };
    let mut sr = |_: &mut Rng| kkrt::ReceiverSubs {
        base: Box::new(OtExtension::iknp()),
    };
    let (mut s, mut r) = kkrt_parties(&mut rs, &mut rr, &mut ss, &mut sr);
    let inputs: Vec<Block> = (0..1000u128)
        .map(|i| Block(i * 0x1_0000_0001 + 5))
        .collect();
    let (mut a, mut b) = MemoryChannel::pair();
    let (key, values) = run(&mut s, &mut r, &mut a, &mut b, &inputs).unwrap();
    check(&key, &values, &inputs);
    // The realization runs again (a fresh RNG fork and fresh base OTs per
    // run): another key.
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let (key2, values2) = run(&mut s, &mut r, &mut a, &mut b, &inputs[..7]).unwrap();
    check(&key2, &values2, &inputs[..7]);
    assert_ne!(values2[0], values[0]);
}

#[test]
fn oos_realizes_the_oprf_functionality_with_its_code_as_a_field() {
    let code = LinearCode::bch_511_76();
    let (mut rs, mut rr) = (Rng::from_entropy(), Rng::from_entropy());
    let mut ss = |_: &mut Rng| oos::SenderSubs {
        base: Box::new(OtExtension::kos()),
    };
    let mut sr = |_: &mut Rng| oos::ReceiverSubs {
        base: Box::new(OtExtension::kos()),
    };
    let mut s = oos::SenderRealization {
        rng: &mut rs,
        threads: 2,
        sha1: false,
        code: code.clone(),
        subs: &mut ss,
    };
    let mut r = oos::ReceiverRealization {
        rng: &mut rr,
        threads: 2,
        sha1: false,
        code: code.clone(),
        subs: &mut sr,
    };
    // Choices below 2^76, the code's messages.
    let inputs: Vec<Block> = (0..300u128)
        .map(|i| Block((i * 0x9e37_79b9) & ((1 << 76) - 1)))
        .collect();
    let (mut a, mut b) = MemoryChannel::pair();
    let (key, values) = run(&mut s, &mut r, &mut a, &mut b, &inputs).unwrap();
    check(&key, &values, &inputs);
    // A choice outside the code's messages: the receiver's typed abort,
    // carried in the functionality's error.
    let bad = vec![Block(1 << 100)];
    let (mut a, mut b) = MemoryChannel::pair();
    let err = std::thread::scope(|sc| {
        sc.spawn(|| {
            let _ = s.send_oprf(&mut a, 1);
        });
        let e = r.receive_oprf(&mut b, &bad).unwrap_err();
        drop(b);
        e
    });
    assert!(
        matches!(
            err.0.downcast_ref::<oos::Error>(),
            Some(oos::Error::ChoiceOutOfRange { .. })
        ),
        "{err}"
    );
}

/// `ot::Oprf`, the owned adapter a protocol's `{Role}Subs` holds: one run
/// of `kkrt.otp` or `oos.otp`, base OTs included, per call.
#[test]
fn the_oprf_adapter_runs_kkrt_and_oos_as_the_functionality() {
    let inputs: Vec<Block> = (0..500u128).map(|i| Block(i * 3 + 1)).collect();
    for (mut s, mut r) in [
        (ot::Oprf::kkrt(), ot::Oprf::kkrt()),
        (
            ot::Oprf::oos().with_threads(2),
            ot::Oprf::oos().with_threads(2),
        ),
    ] {
        let (mut a, mut b) = MemoryChannel::pair();
        let (key, values) = run(&mut s, &mut r, &mut a, &mut b, &inputs).unwrap();
        check(&key, &values, &inputs);
    }
    // An empty batch is a typed error, not a run.
    let (mut a, _b) = MemoryChannel::pair();
    assert!(ot::Oprf::kkrt().send_oprf(&mut a, 0).is_err());
}
