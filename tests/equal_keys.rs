//! Every protocol that holds both keys of its base (or setup) OTs refuses
//! keys that coincide, with the named abort `EqualBaseKeys`: the
//! all-but-one OT of SoftSpokenOT (semi-honest and with the sender's
//! proof), QuietOT's two setups and RR16's cut-and-choose. The provider
//! [`common::EqualKeys`] stands for a cheating base-OT peer (or a broken
//! base OT) that makes `k_0 == k_1`. IKNP, KOS and the Delta-OT base phase
//! are covered by `tests/security.rs`.

mod common;

use common::{run_tampered, EqualKeys};

use ot::runtime::primitives::rng::Rng;
use ot::runtime::rr16::sizes;
use ot::runtime::Bits;
use ot::{abo_ot, abo_ot_malicious, quiet_bipsw, quiet_gar, rr16};

/// Runs protocol module `$m` (params `$p`) over a memory channel with
/// [`EqualKeys`] as both roles' sub-protocol `$sub` and the receiver's
/// input `$input`; asserts the sender's `EqualBaseKeys` and that the
/// receiver sees it hang up.
macro_rules! refuses_equal_keys {
    ($m:ident, $p:expr, $sub:ident, $input:expr) => {{
        let p = $p;
        let input = $input;
        let (s, r) = run_tampered(
            move |ch| {
                let subs = $m::SenderSubs {
                    $sub: Box::new(EqualKeys),
                };
                $m::Sender::new(p, $m::SenderInput {}, Rng::from_entropy(), subs)?.run(ch)
            },
            move |ch| {
                let subs = $m::ReceiverSubs {
                    $sub: Box::new(EqualKeys),
                };
                $m::Receiver::new(p, input, Rng::from_entropy(), subs)?.run(ch)
            },
            |_, _| {},
        );
        assert!(
            matches!(s, Err($m::Error::EqualBaseKeys { .. })),
            "{}: {:?}",
            stringify!($m),
            s.err()
        );
        assert!(r.is_err(), "the receiver sees the sender hang up");
    }};
}

/// [Roy22, Fig. 13] with `k_0 == k_1`: the receiver could unmask both
/// level sums and rebuild its punctured leaf (in SoftSpokenOT: the
/// extension receiver's choices). The ABO sender refuses.
#[test]
fn abo_sender_refuses_equal_base_keys() {
    let alphas = vec![0, 5, 15];
    refuses_equal_keys!(
        abo_ot,
        abo_ot::Params::new(3, 4).unwrap(),
        base,
        abo_ot::ReceiverInput { alphas }
    );
}

/// The same check in `abo_ot_malicious.otp` (it extends `abo_ot.otp`).
#[test]
fn malicious_abo_sender_refuses_equal_base_keys() {
    let alphas = vec![1, 6];
    refuses_equal_keys!(
        abo_ot_malicious,
        abo_ot_malicious::Params::new(2, 3).unwrap(),
        base,
        abo_ot_malicious::ReceiverInput { alphas }
    );
}

/// QuietOT-BIPSW's setup: with `k_0 == k_1` the Z_2 correction is Delta's
/// Z_2 part in the clear.
#[test]
fn quiet_bipsw_sender_refuses_equal_setup_keys() {
    refuses_equal_keys!(
        quiet_bipsw,
        quiet_bipsw::Params::new(8).unwrap(),
        rot,
        quiet_bipsw::ReceiverInput {}
    );
}

/// QuietOT-GAR's setup: with `k_0 == k_1` the correction is Delta.
#[test]
fn quiet_gar_sender_refuses_equal_setup_keys() {
    refuses_equal_keys!(
        quiet_gar,
        quiet_gar::Params::new(8).unwrap(),
        rot,
        quiet_gar::ReceiverInput {}
    );
}

/// RR16 [RR16 §4]: with `m_{i,0} == m_{i,1}` the receiver knows both
/// messages of OT i, whatever it chose.
#[test]
fn rr16_sender_refuses_equal_random_ot_messages() {
    let (n, k, stat) = (1000, 100, 40);
    let z = sizes(n, k, stat).unwrap();
    let mut choices = Bits::zeros(n);
    choices.set(3, true);
    refuses_equal_keys!(
        rr16,
        rr16::Params::new(n, k, stat, z.checked, z.threshold, z.total).unwrap(),
        ots,
        rr16::ReceiverInput { choices }
    );
}
