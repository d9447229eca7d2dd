//! IKNP OT extension generated from `protocols/iknp.otp`, over CO15 base OTs.

use ot::iknp;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::local_pair_tcp;
use ot::runtime::transport::session::run_pair;
use ot::runtime::{Bits, Block};
use ot::{BaseOt, BaseOtKind};

fn parties(
    m: usize,
    sha1: bool,
    base: BaseOtKind,
) -> (
    iknp::Sender<iknp::sender_state::SendSession>,
    iknp::Receiver<iknp::receiver_state::AwaitSession>,
    Bits,
) {
    let p = iknp::Params::new(m, 1, sha1).unwrap();
    let r = Bits::random(&mut Rng::from_entropy(), m);
    let s = iknp::Sender::new(
        p,
        iknp::SenderInput {},
        Rng::from_entropy(),
        iknp::SenderSubs {
            base: Box::new(BaseOt::new(base)),
        },
    )
    .unwrap();
    let rc = iknp::Receiver::new(
        p,
        iknp::ReceiverInput { r: r.clone() },
        Rng::from_entropy(),
        iknp::ReceiverSubs {
            base: Box::new(BaseOt::new(base)),
        },
    )
    .unwrap();
    (s, rc, r)
}

fn check(y: &[[Block; 2]], x: &[Block], r: &Bits) {
    assert_eq!(y.len(), r.len());
    for i in 0..r.len() {
        let b = usize::from(r.get(i));
        assert_eq!(x[i], y[i][b], "OT {i}");
        assert_ne!(x[i], y[i][1 - b], "OT {i}");
    }
}

#[test]
fn iknp_random_ot_all_sizes_in_memory() {
    for m in [1usize, 127, 128, 129, (1 << 16) + 3] {
        for sha1 in [false, true] {
            let (s, rc, r) = parties(m, sha1, BaseOtKind::Co15);
            let (so, ro) = run_pair(s, rc);
            check(&so.unwrap().y, &ro.unwrap().x, &r);
        }
    }
}

#[test]
fn iknp_over_tcp_with_np00_base() {
    let m = 1000;
    let (s, rc, r) = parties(m, false, BaseOtKind::Np00);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let (so, ro) = std::thread::scope(|sc| {
        let h = sc.spawn(|| s.run(&mut a));
        let ro = rc.run(&mut b);
        (h.join().unwrap(), ro)
    });
    check(&so.unwrap().y, &ro.unwrap().x, &r);
    let comm = iknp::comm(&iknp::Params::new(m, 1, false).unwrap());
    // The session binding and the extension round: KAPPA rows of
    // ceil(m/128) blocks.
    assert_eq!(
        comm.receiver,
        iknp::BINDING_BYTES + 128 * m.div_ceil(128) * 16
    );
}

/// `threads` is a tuning parameter: any value runs, on at most as many
/// threads as the batch has work for (issue 37 item 2).
#[test]
fn iknp_with_usize_max_threads_runs_bounded() {
    let m = 300;
    let p = iknp::Params::new(m, usize::MAX, false).unwrap();
    let r = Bits::random(&mut Rng::from_entropy(), m);
    let s = iknp::Sender::new(
        p,
        iknp::SenderInput {},
        Rng::from_entropy(),
        iknp::SenderSubs {
            base: Box::new(BaseOt::new(BaseOtKind::Co15)),
        },
    )
    .unwrap();
    let rc = iknp::Receiver::new(
        p,
        iknp::ReceiverInput { r: r.clone() },
        Rng::from_entropy(),
        iknp::ReceiverSubs {
            base: Box::new(BaseOt::new(BaseOtKind::Co15)),
        },
    )
    .unwrap();
    let (so, ro) = run_pair(s, rc);
    check(&so.unwrap().y, &ro.unwrap().x, &r);
}
