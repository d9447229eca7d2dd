//! QuietOT (`quiet_bipsw.otp`, `quiet_gar.otp`) end to end: the setup over
//! IKNP random OTs on memory and TCP channels, the dealer relation of the
//! keys, the OT relation of every expanded OT, and malformed setups.

#![allow(clippy::needless_range_loop)] // index loops mirror the relations they check
use ot::runtime::primitives::rng::Rng;
use ot::runtime::quiet::z3::Z6;
use ot::runtime::quiet::{bipsw, gar};
use ot::runtime::transport::channel::{local_pair_tcp, MemoryChannel, TamperChannel};
use ot::runtime::transport::session::{run_pair, run_pair_over};
use ot::{quiet_bipsw, quiet_gar, OtExtension};

fn bipsw_parties(
    m: usize,
) -> (
    quiet_bipsw::Sender<quiet_bipsw::sender_state::RunRot>,
    quiet_bipsw::Receiver<quiet_bipsw::receiver_state::RunRot>,
) {
    let p = quiet_bipsw::Params::new(m).unwrap();
    let s = quiet_bipsw::Sender::new(
        p,
        quiet_bipsw::SenderInput {},
        Rng::from_entropy(),
        quiet_bipsw::SenderSubs {
            rot: Box::new(OtExtension::iknp()),
        },
    )
    .unwrap();
    let r = quiet_bipsw::Receiver::new(
        p,
        quiet_bipsw::ReceiverInput {},
        Rng::from_entropy(),
        quiet_bipsw::ReceiverSubs {
            rot: Box::new(OtExtension::iknp()),
        },
    )
    .unwrap();
    (s, r)
}

fn check_bipsw(so: &quiet_bipsw::SenderOutput, ro: &quiet_bipsw::ReceiverOutput, m: usize) {
    // The receiver's key is the dealer's: csk_i = msk_i + z_i * Delta.
    let delta = bipsw::delta_from_blocks(&so.delta);
    let zv = bipsw::z_values(&ro.z);
    for i in 0..bipsw::KEY_LEN {
        let want: Z6 = so.msk.elements()[i] + delta.scale(zv[i]);
        assert_eq!(ro.csk.elements()[i], want, "key element {i}");
    }
    assert_eq!(so.ots.bits.len(), m);
    assert_eq!(ro.ots.bits.len(), m);
    for n in 0..m {
        let c = ro.ots.index[n];
        assert!(c < 6);
        assert_eq!(ro.ots.bits[n], (so.ots.bits[n] >> c) & 1, "OT {n}");
    }
    // Further OTs expand locally from the states.
    let (s2, r2) = (
        so.state.expand(m as u64, 100),
        ro.state.expand(m as u64, 100),
    );
    for n in 0..100 {
        assert_eq!(r2.bits[n], (s2.bits[n] >> r2.index[n]) & 1);
    }
}

#[test]
fn bipsw_over_memory() {
    let m = 5000;
    let (s, r) = bipsw_parties(m);
    let (so, ro) = run_pair(s, r);
    check_bipsw(&so.unwrap(), &ro.unwrap(), m);
}

#[test]
fn bipsw_over_tcp() {
    let m = 1000;
    let (s, r) = bipsw_parties(m);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let (so, ro) = run_pair_over(s, r, &mut a, &mut b);
    check_bipsw(&so.unwrap(), &ro.unwrap(), m);
}

fn gar_parties(
    m: usize,
) -> (
    quiet_gar::Sender<quiet_gar::sender_state::RunRot>,
    quiet_gar::Receiver<quiet_gar::receiver_state::RunRot>,
) {
    let p = quiet_gar::Params::new(m).unwrap();
    let s = quiet_gar::Sender::new(
        p,
        quiet_gar::SenderInput {},
        Rng::from_entropy(),
        quiet_gar::SenderSubs {
            rot: Box::new(OtExtension::iknp()),
        },
    )
    .unwrap();
    let r = quiet_gar::Receiver::new(
        p,
        quiet_gar::ReceiverInput {},
        Rng::from_entropy(),
        quiet_gar::ReceiverSubs {
            rot: Box::new(OtExtension::iknp()),
        },
    )
    .unwrap();
    (s, r)
}

fn check_gar(so: &quiet_gar::SenderOutput, ro: &quiet_gar::ReceiverOutput, m: usize) {
    let delta = gar::delta_from_blocks(&so.delta);
    for i in 0..gar::KEY_LEN {
        let b = ro.z.get(i);
        let mut x = so.msk.xor_part()[i];
        if b {
            for (xt, dt) in x.iter_mut().zip(delta.xor) {
                *xt ^= dt;
            }
        }
        assert_eq!(ro.csk.xor_part()[i], x, "xor part {i}");
        let mj: Vec<u8> = (0..gar::DIM)
            .map(|j| (so.msk.maj_part()[i][j] + u8::from(b) * delta.maj[j]) % 16)
            .collect();
        assert_eq!(ro.csk.maj_part()[i].to_vec(), mj, "maj part {i}");
    }
    for n in 0..m {
        let c = ro.ots.index[n];
        assert!(c < 32);
        assert_eq!(
            u32::from(ro.ots.bits[n]),
            (so.ots.bits[n] >> c) & 1,
            "OT {n}"
        );
    }
}

#[test]
fn gar_over_memory() {
    let m = 3000;
    let (s, r) = gar_parties(m);
    let (so, ro) = run_pair(s, r);
    check_gar(&so.unwrap(), &ro.unwrap(), m);
}

#[test]
fn gar_over_tcp() {
    let m = 1000;
    let (s, r) = gar_parties(m);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let (so, ro) = run_pair_over(s, r, &mut a, &mut b);
    check_gar(&so.unwrap(), &ro.unwrap(), m);
}

/// Runs the parties with the sender's setup frame (the one carrying the
/// corrections, at least `min_len` bytes) rewritten by `edit`.
fn tampered<S, R>(s: S, r: R, min_len: usize, edit: fn(&mut Vec<u8>)) -> (bool, String)
where
    S: ot::runtime::transport::session::Party + Send,
    R: ot::runtime::transport::session::DualOf<S> + Send,
    S::Output: Send,
    S::Error: Send,
    R::Error: std::fmt::Debug,
{
    let (a, b) = MemoryChannel::pair();
    let mut a = TamperChannel::new(a, move |_, f: &mut Vec<u8>| {
        if f.len() >= min_len {
            edit(f)
        }
    });
    let mut b = TamperChannel::new(b, |_, _: &mut Vec<u8>| {});
    let (_, ro) = std::thread::scope(|sc| {
        let h = sc.spawn(|| s.run_on(&mut a));
        let ro = r.run_on(&mut b);
        (h.join().map(|_| ()), ro)
    });
    match ro {
        Ok(_) => (false, String::new()),
        Err(e) => (true, format!("{e:?}")),
    }
}

#[test]
fn bipsw_malformed_corrections_abort() {
    let (s, r) = bipsw_parties(10);
    // The last element's weight-2 correction: plane h all ones, l all zeros.
    let (failed, e) = tampered(s, r, 5 * 768 * 16, |f| {
        let n = f.len();
        f[n - 32..n - 16].fill(0xff);
        f[n - 16..].fill(0);
    });
    assert!(failed && e.contains("MalformedSetup"), "{e}");
}

#[test]
fn gar_malformed_corrections_abort() {
    let (s, r) = gar_parties(10);
    // The last element's second XOR block: its unused upper half set.
    let (failed, e) = tampered(s, r, 8 * 2048 * 16, |f| {
        let n = f.len();
        f[n - 104..n - 96].fill(0xff);
    });
    assert!(failed && e.contains("MalformedSetup"), "{e}");
}

#[test]
fn truncated_setup_message_is_a_typed_error() {
    let (s, r) = bipsw_parties(10);
    let (failed, e) = tampered(s, r, 5 * 768 * 16, |f| f.truncate(f.len() - 16));
    assert!(failed, "accepted a truncated setup");
    assert!(e.contains("setup") || e.contains("Setup"), "{e}");
    let (s, r) = gar_parties(10);
    let (failed, e) = tampered(s, r, 8 * 2048 * 16, |f| f.truncate(100));
    assert!(
        failed && (e.contains("setup") || e.contains("Setup")),
        "{e}"
    );
}
