//! Every generated message decoder on arbitrary bytes: a decoder returns a
//! typed error naming its protocol, or a message that re-encodes to exactly
//! the bytes it came from. The first input byte picks the message, the next
//! two the size parameter (1..=512; also SoftSpokenOT's k = 1..=8), the rest
//! is the frame.
#![no_main]

use libfuzzer_sys::fuzz_target;

/// Decodes `frame` as `$proto::msgs::$msg` under `$params` and checks the
/// decoder's contract.
macro_rules! check {
    ($proto:ident, $msg:ident, $params:expr, $frame:expr) => {{
        let params = $params;
        match ot::$proto::msgs::$msg::decode($frame, &params) {
            Ok(msg) => {
                let mut out = Vec::new();
                msg.encode(&params, &mut out)
                    .expect("a decoded message re-encodes");
                assert_eq!(out, $frame, "decode then encode is the identity");
            }
            Err(e) => assert!(e.to_string().contains(ot::$proto::PROTOCOL)),
        }
    }};
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 3 {
        return;
    }
    let which = data[0];
    let n = usize::from(u16::from_le_bytes([data[1], data[2]]) % 512) + 1;
    let frame = &data[3..];
    let ext = |m| ot::iknp::Params::new(m, 1, false).expect("valid parameters");
    let kos = |m| ot::kos::Params::new(m, 1, false).expect("valid parameters");
    let kos_chosen = |m| ot::kos_chosen::Params::new(m, 1, false).expect("valid parameters");
    let iknp_chosen = |m| ot::iknp_chosen::Params::new(m, 1, false).expect("valid parameters");
    let delta = |m| ot::delta_kos::Params::new(m, 1, 0).expect("valid parameters");
    let delta_iknp = |m| ot::delta_iknp::Params::new(m, 1, 0).expect("valid parameters");
    let k = n % 8 + 1;
    let ss = |m| ot::softspoken::Params::new(k, m, 1, false).expect("valid parameters");
    // Malicious SoftSpokenOT needs k dividing 128 (its Params::new refuses
    // other k).
    let k_mal = [1, 2, 4, 8][n % 4];
    let ss_mal =
        |m| ot::softspoken_malicious::Params::new(k_mal, m, 1, false).expect("valid parameters");
    let abo = |t| ot::abo_ot::Params::new(t, k).expect("valid parameters");
    let abo_mal = |t| ot::abo_ot_malicious::Params::new(t, k).expect("valid parameters");
    let kkrt = |m| ot::kkrt::Params::new(m, 1, false).expect("valid parameters");
    let oos = |m| ot::oos::Params::new(m, 1, false).expect("valid parameters");
    match which % 36 {
        0 => check!(co15, Setup, ot::co15::Params::new(n).unwrap(), frame),
        1 => check!(co15, ChooseLo, ot::co15::Params::new(n).unwrap(), frame),
        2 => check!(co15, ChooseHi, ot::co15::Params::new(n).unwrap(), frame),
        3 => check!(np00, Setup, ot::np00::Params::new(n).unwrap(), frame),
        4 => check!(np00, ChooseLo, ot::np00::Params::new(n).unwrap(), frame),
        5 => check!(np00, ChooseHi, ot::np00::Params::new(n).unwrap(), frame),
        6 => check!(mr19, Setup, ot::mr19::Params::new(n).unwrap(), frame),
        7 => check!(mr19, ChooseLo, ot::mr19::Params::new(n).unwrap(), frame),
        8 => check!(mr19, ChooseHi, ot::mr19::Params::new(n).unwrap(), frame),
        9 => check!(
            co15_chosen,
            Masked,
            ot::co15_chosen::Params::new(n).unwrap(),
            frame
        ),
        10 => check!(
            np00_chosen,
            Masked,
            ot::np00_chosen::Params::new(n).unwrap(),
            frame
        ),
        11 => check!(
            mr19_chosen,
            Masked,
            ot::mr19_chosen::Params::new(n).unwrap(),
            frame
        ),
        12 => check!(iknp, Session, ext(n), frame),
        13 => check!(iknp, Extend, ext(n), frame),
        14 => check!(kos, Extend, kos(n), frame),
        15 => check!(kos, Challenge, kos(n), frame),
        16 => check!(kos, CorrelationCheck, kos(n), frame),
        17 => check!(iknp_chosen, Masked, iknp_chosen(n), frame),
        18 => check!(kos_chosen, Masked, kos_chosen(n), frame),
        19 => check!(delta_iknp, Extend, delta_iknp(n), frame),
        20 => check!(delta_kos, Session, delta(n), frame),
        21 => check!(delta_kos, Challenge, delta(n), frame),
        22 => check!(delta_kos, CorrelationCheck, delta(n), frame),
        23 => check!(delta_kos, Extend, delta(n), frame),
        24 => check!(softspoken, Session, ss(n), frame),
        25 => check!(softspoken, Extend, ss(n), frame),
        26 => check!(softspoken_malicious, Challenge, ss_mal(n), frame),
        27 => check!(softspoken_malicious, CorrelationCheck, ss_mal(n), frame),
        28 => check!(abo_ot, LevelSums, abo(n % 128 + 1), frame),
        29 => check!(abo_ot_malicious, Proof, abo_mal(n % 128 + 1), frame),
        30 => check!(kkrt, Session, kkrt(n), frame),
        31 => check!(kkrt, Extend, kkrt(n), frame),
        32 => check!(oos, Extend, oos(n), frame),
        33 => check!(oos, Challenge, oos(n), frame),
        34 => check!(oos, CorrelationCheck, oos(n), frame),
        _ => check!(softspoken_malicious, Extend, ss_mal(n), frame),
    }
});
