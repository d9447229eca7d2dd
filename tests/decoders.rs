//! Every generated message decoder fed random bytes: it must return `Ok` or a
//! typed `Err`, never panic, whatever the length and content.

use proptest::prelude::*;

macro_rules! fuzz_decoder {
    ($name:ident, $proto:ident, $msg:ident) => {
        fuzz_decoder!($name, $proto, $msg, |n| ot::$proto::Params::new(n).unwrap());
    };
    // `$params` builds the protocol's parameters from the size `$n`.
    ($name:ident, $proto:ident, $msg:ident, |$n:ident| $params:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]
            #[test]
            fn $name(n in 1usize..40, bytes in proptest::collection::vec(any::<u8>(), 0..1400), exact in any::<bool>()) {
                let params = {
                    let $n = n;
                    $params
                };
                let want = ot::$proto::msgs::$msg::wire_len(&params);
                // Half of the cases have exactly the right length, so the field decoders run.
                let mut bytes = bytes;
                if exact {
                    bytes.resize(want, 0x5a);
                }
                match ot::$proto::msgs::$msg::decode(&bytes, &params) {
                    Ok(m) => {
                        // A message that decodes re-encodes to the same bytes.
                        let mut out = Vec::new();
                        m.encode(&params, &mut out).unwrap();
                        prop_assert_eq!(out, bytes);
                    }
                    Err(e) => {
                        let text = e.to_string();
                        prop_assert!(text.contains(ot::$proto::PROTOCOL), "{}", text);
                        prop_assert!(text.contains("round"), "{}", text);
                    }
                }
            }
        }
    };
}

fuzz_decoder!(co15_setup, co15, Setup);
fuzz_decoder!(co15_choose_lo, co15, ChooseLo);
fuzz_decoder!(co15_choose_hi, co15, ChooseHi);
fuzz_decoder!(np00_setup, np00, Setup);
fuzz_decoder!(np00_choose_lo, np00, ChooseLo);
fuzz_decoder!(np00_choose_hi, np00, ChooseHi);
fuzz_decoder!(co15_chosen_masked, co15_chosen, Masked);
fuzz_decoder!(np00_chosen_masked, np00_chosen, Masked);
fuzz_decoder!(kkrt_extend, kkrt, Extend, |n| ot::kkrt::Params::new(
    n, 1, false
)
.unwrap());
fuzz_decoder!(oos_extend, oos, Extend, |n| ot::oos::Params::new(
    n, 1, false
)
.unwrap());
fuzz_decoder!(oos_correlation, oos, CorrelationCheck, |n| {
    ot::oos::Params::new(n, 1, false).unwrap()
});

/// Valid points must round-trip through the generated codec.
#[test]
fn valid_messages_round_trip() {
    use ot::runtime::primitives::ec::{base_mul, random_scalar};
    use ot::runtime::primitives::rng::Rng;
    let mut rng = Rng::from_entropy();
    let params = ot::np00::Params::new(7).unwrap();
    let m = ot::np00::msgs::ChooseHi {
        pk0_hi: (0..4).map(|_| base_mul(random_scalar(&mut rng))).collect(),
    };
    let mut out = Vec::new();
    m.encode(&params, &mut out).unwrap();
    assert_eq!(out.len(), 128);
    assert_eq!(ot::np00::msgs::ChooseHi::decode(&out, &params).unwrap(), m);
    // A message whose vector length disagrees with the parameters is refused before anything is written.
    let short = ot::np00::msgs::ChooseHi { pk0_hi: vec![] };
    let mut out = Vec::new();
    assert!(matches!(
        short.encode(&params, &mut out),
        Err(ot::np00::Error::Shape {
            round: "choose_hi",
            field: "pk0_hi",
            expected: 4,
            got: 0
        })
    ));
    assert!(out.is_empty());
}

macro_rules! fuzz_decoder_with {
    ($name:ident, $proto:ident, $msg:ident, |$n:ident| $params:expr) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(128))]
            #[test]
            fn $name($n in 1usize..300, bytes in proptest::collection::vec(any::<u8>(), 0..12000), exact in any::<bool>()) {
                let params = $params;
                let want = ot::$proto::msgs::$msg::wire_len(&params);
                let mut bytes = bytes;
                if exact {
                    bytes.resize(want, 0x5a);
                }
                match ot::$proto::msgs::$msg::decode(&bytes, &params) {
                    Ok(m) => {
                        let mut out = Vec::new();
                        m.encode(&params, &mut out).unwrap();
                        prop_assert_eq!(out, bytes);
                    }
                    Err(e) => {
                        let text = e.to_string();
                        prop_assert!(text.contains(ot::$proto::PROTOCOL), "{}", text);
                    }
                }
            }
        }
    };
}

fuzz_decoder_with!(iknp_extend, iknp, Extend, |n| ot::iknp::Params::new(
    n, 1, false
)
.unwrap());
fuzz_decoder_with!(kos_extend, kos, Extend, |n| ot::kos::Params::new(
    n, 1, false
)
.unwrap());
fuzz_decoder_with!(iknp_session, iknp, Session, |n| ot::iknp::Params::new(
    n, 1, false
)
.unwrap());
fuzz_decoder_with!(kos_challenge, kos, Challenge, |n| ot::kos::Params::new(
    n, 1, false
)
.unwrap());
fuzz_decoder_with!(kos_correlation, kos, CorrelationCheck, |n| {
    ot::kos::Params::new(n, 1, false).unwrap()
});
fuzz_decoder_with!(delta_kos_extend, delta_kos, Extend, |n| {
    ot::delta_kos::Params::new(n, 1, 0).unwrap()
});
fuzz_decoder_with!(delta_kos_correlation, delta_kos, CorrelationCheck, |n| {
    ot::delta_kos::Params::new(n, 1, 3).unwrap()
});
fuzz_decoder_with!(iknp_chosen_masked, iknp_chosen, Masked, |n| {
    ot::iknp_chosen::Params::new(n, 1, false).unwrap()
});
