//! Helpers shared by the integration tests (each test crate uses a part).
#![allow(dead_code)]

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{Channel, MemoryChannel, TamperChannel};
use ot::runtime::transport::session::run_pair;
use ot::runtime::{Bits, Block};
use ot::traits::{RandomOtReceiver, RandomOtSender};
use ot::{delta_base, BaseOt, BaseOtKind, OtError};

/// A CO15 base-OT party (one frame from the base-OT sender, which keeps
/// the frame indices of the tampering tests simple).
pub fn co15_base() -> Box<BaseOt> {
    Box::new(BaseOt::new(BaseOtKind::Co15))
}

/// A base-OT "sender" that hands out equal keys (what a cheating base-OT
/// receiver would aim for), and the matching receiver; neither talks.
pub struct EqualKeys;

impl RandomOtSender for EqualKeys {
    fn send_random(&mut self, _: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError> {
        Ok((0..n)
            .map(|j| [Block(j as u128), Block(j as u128)])
            .collect())
    }
}

impl RandomOtReceiver for EqualKeys {
    fn receive_random(&mut self, _: &mut dyn Channel, c: &Bits) -> Result<Vec<Block>, OtError> {
        Ok((0..c.len()).map(|j| Block(j as u128)).collect())
    }
}

/// `m` random choice bits.
pub fn choices(m: usize) -> Bits {
    Bits::random(&mut Rng::from_entropy(), m)
}

/// The base OTs of a Delta-OT pair for `delta` (`delta_base.otp` over
/// CO15): the sender's seeds and the receiver's key pairs.
pub fn delta_bases(delta: Block) -> (Vec<Block>, Vec<[Block; 2]>) {
    let p = delta_base::Params::new().unwrap();
    let s = delta_base::Sender::new(
        p,
        delta_base::SenderInput { delta },
        Rng::from_entropy(),
        delta_base::SenderSubs { base: co15_base() },
    )
    .unwrap();
    let rc = delta_base::Receiver::new(
        p,
        delta_base::ReceiverInput {},
        Rng::from_entropy(),
        delta_base::ReceiverSubs { base: co15_base() },
    )
    .unwrap();
    let (so, ro) = run_pair(s, rc);
    (so.unwrap().base_chosen, ro.unwrap().base_keys)
}

/// Runs `sender` and `receiver` on two threads over a memory channel whose
/// receiver side passes every outgoing frame through `tamper`; each side
/// drops its end when it returns, so an abort on one side is a hang-up,
/// not a hang, for the other.
pub fn run_tampered<S, R>(
    sender: impl FnOnce(&mut dyn Channel) -> S + Send,
    receiver: impl FnOnce(&mut dyn Channel) -> R + Send,
    tamper: impl FnMut(usize, &mut Vec<u8>) + Send,
) -> (S, R)
where
    S: Send,
    R: Send,
{
    let (mut a, b) = MemoryChannel::pair();
    let mut b = TamperChannel::new(b, tamper);
    std::thread::scope(|sc| {
        let h = sc.spawn(move || receiver(&mut b));
        let so = sender(&mut a);
        drop(a);
        (so, h.join().unwrap())
    })
}

/// Runs two parties on two threads over a TCP loopback connection (the
/// sender on a spawned thread) and returns both results.
pub fn run_pair_tcp<S, R>(
    sender: impl FnOnce(&mut dyn Channel) -> S + Send,
    receiver: impl FnOnce(&mut dyn Channel) -> R,
) -> (S, R)
where
    S: Send,
{
    let (mut a, mut b) = ot::runtime::transport::channel::local_pair_tcp().unwrap();
    std::thread::scope(|sc| {
        let h = sc.spawn(move || sender(&mut a));
        let ro = receiver(&mut b);
        (h.join().unwrap(), ro)
    })
}

/// Two-party mesh check of abort notices: party 0 sends one frame, then a
/// notice blaming itself; party 1 must read the frame, then get
/// `MeshError::PeerAborted` with that notice (and blame party 0).
pub fn notice_follows_last_frame<M>(meshes: Vec<M>)
where
    M: ot::runtime::transport::mesh::Mesh + Send,
{
    use ot::runtime::transport::channel::AbortNotice;
    use ot::runtime::transport::mesh::{run_parties, MeshError};
    let notice = AbortNotice::new("r", "why", &[0]);
    let outs = run_parties(meshes, |m| {
        if m.me() == 0 {
            m.send_to(1, b"last words").unwrap();
            m.notify_abort(&notice);
            return Ok(Vec::new());
        }
        let mut buf = Vec::new();
        m.recv_from(0, &mut buf, 64)?;
        let got = buf.clone();
        m.recv_from(0, &mut buf, 64).map(|()| got)
    });
    match &outs[1] {
        Err(MeshError::PeerAborted {
            peer: 0,
            notice: got,
            blamed: Some(0),
        }) => assert_eq!(got, &notice),
        other => panic!("{other:?}"),
    }
}

/// A random prime of `bits` bits (top two bits set), `3 mod 4`: a Blum
/// prime, for Paillier keys built from known factors.
pub fn blum_prime(bits: u32, rng: &mut Rng) -> ot::runtime::orlandi::paillier::Integer {
    loop {
        let mut c = ot::runtime::orlandi::paillier::random_bits(bits, rng);
        c.set_bit(bits - 1, true);
        c.set_bit(bits - 2, true);
        let p = c.next_prime();
        if p.significant_bits() == bits && p.mod_u(4) == 3 {
            return p;
        }
    }
}
