//! Every generated message decoder fed random bytes: it must return `Ok` or a
//! typed `Err`, never panic, whatever the length and content.

use proptest::prelude::*;

macro_rules! fuzz_decoder {
    ($name:ident, $proto:ident, $msg:ident) => {
        proptest! {
            #![proptest_config(ProptestConfig::with_cases(256))]
            #[test]
            fn $name(n in 1usize..40, bytes in proptest::collection::vec(any::<u8>(), 0..1400), exact in any::<bool>()) {
                let params = ot::$proto::Params::new(n).unwrap();
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
fuzz_decoder!(co15_choose, co15, Choose);
fuzz_decoder!(np00_setup, np00, Setup);
fuzz_decoder!(np00_choose, np00, Choose);
fuzz_decoder!(co15_chosen_masked, co15_chosen, Masked);
fuzz_decoder!(np00_chosen_masked, np00_chosen, Masked);

/// Valid points must round-trip through the generated codec.
#[test]
fn valid_messages_round_trip() {
    use ot::runtime::ec::{base_mul, random_scalar};
    use ot::runtime::rng::Rng;
    let mut rng = Rng::from_entropy();
    let params = ot::co15::Params::new(3).unwrap();
    let m = ot::co15::msgs::Choose { big_b: (0..3).map(|_| base_mul(random_scalar(&mut rng))).collect() };
    let mut out = Vec::new();
    m.encode(&params, &mut out).unwrap();
    assert_eq!(out.len(), 96);
    assert_eq!(ot::co15::msgs::Choose::decode(&out, &params).unwrap(), m);
    // A message whose vector length disagrees with the parameters is refused before anything is written.
    let short = ot::co15::msgs::Choose { big_b: vec![] };
    let mut out = Vec::new();
    assert!(matches!(short.encode(&params, &mut out), Err(ot::co15::Error::Shape { round: "choose", field: "big_b", expected: 3, got: 0 })));
    assert!(out.is_empty());
}
