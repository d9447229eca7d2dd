//! KKRT16 PSI generated from `protocols/kkrt_psi.otp`, composed with its
//! OPRF through the prelude's `Oprf` functionality: the receiver's output
//! is exactly the intersection (sizes 1 to 2^14, duplicates, over memory
//! and TCP); the OPRF is any `BatchedOprfSender` / `BatchedOprfReceiver`
//! (`ot::Oprf::kkrt()`, or an ideal OPRF written here); the sender's tags
//! come in an order independent of its input order (the shuffle); OOS's
//! linear code cannot carry the PSI's 128-bit OPRF inputs (a typed
//! sub-protocol error).

use ot::runtime::oprf::code::PrCode;
use ot::runtime::oprf::OprfKey;
use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::psi::{bin_hashes, psi_input, BinHasher, PsiTag};
use ot::runtime::transport::channel::{local_pair_tcp, Channel, ChannelStats, MemoryChannel};
use ot::runtime::{Bits, Block};
use ot::{kkrt_psi, BatchedOprfReceiver, BatchedOprfSender, Oprf, OtError};
use std::sync::{Arc, Condvar, Mutex};

type Subs = (kkrt_psi::SenderSubs, kkrt_psi::ReceiverSubs);

fn kkrt_subs() -> Subs {
    (
        kkrt_psi::SenderSubs {
            oprf: Box::new(Oprf::kkrt()),
        },
        kkrt_psi::ReceiverSubs {
            oprf: Box::new(Oprf::kkrt()),
        },
    )
}

/// Runs the PSI of receiver set `x` and sender set `y` on `(a, b)`.
fn psi(
    x: &[Block],
    y: &[Block],
    subs: Subs,
    a: &mut (dyn Channel + Send),
    b: &mut (dyn Channel + Send),
) -> Result<Bits, kkrt_psi::Error> {
    let p = kkrt_psi::Params::new(y.len(), x.len(), 1)?;
    let (ss, rs) = subs;
    let (s, r) = std::thread::scope(|sc| {
        let h = sc.spawn(move || {
            let input = kkrt_psi::SenderInput { set: y.to_vec() };
            kkrt_psi::Sender::new(p, input, Rng::from_entropy(), ss)?.run(a)
        });
        let input = kkrt_psi::ReceiverInput { set: x.to_vec() };
        let r = kkrt_psi::Receiver::new(p, input, Rng::from_entropy(), rs).and_then(|r| r.run(b));
        (h.join().expect("sender thread"), r)
    });
    s?;
    Ok(r?.member)
}

/// Sets with a known intersection: `x[e]` is in `y` iff `e % 3 != 1`
/// (and duplicates of a shared element in `x` when `dup`).
fn sets(nr: usize, ns: usize, dup: bool) -> (Vec<Block>, Vec<Block>, Bits) {
    let mut rng = Rng::from_entropy();
    let mut y: Vec<Block> = (0..ns).map(|_| Block::sample(&mut rng)).collect();
    let mut x = Vec::with_capacity(nr);
    let mut expect = vec![];
    for e in 0..nr {
        let shared = e % 3 != 1 && e / 3 < ns;
        if shared {
            x.push(y[(e * 7) % ns]);
        } else {
            x.push(Block::sample(&mut rng));
        }
        expect.push(shared);
    }
    if dup && nr >= 3 {
        x[nr - 1] = x[0];
        expect[nr - 1] = expect[0];
    }
    // The sender's order says nothing: reverse it.
    y.reverse();
    (x, y, Bits::from_bools(&expect))
}

#[test]
fn the_intersection_over_memory_at_several_sizes() {
    for (nr, ns, dup) in [
        (1, 1, false),
        (5, 1, false),
        (1, 9, false),
        (100, 50, true),
        (3000, 5000, true),
    ] {
        let (x, y, expect) = sets(nr, ns, dup);
        let (mut a, mut b) = MemoryChannel::pair();
        let got = psi(&x, &y, kkrt_subs(), &mut a, &mut b).unwrap();
        assert_eq!(got, expect, "nr {nr} ns {ns}");
    }
}

#[test]
fn the_intersection_over_tcp_and_the_bytes_of_the_tags() {
    let (x, y, expect) = sets(1 << 14, 1 << 14, false);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let got = psi(&x, &y, kkrt_subs(), &mut a, &mut b).unwrap();
    assert_eq!(got, expect);
    assert_eq!(got.count_ones(), expect.count_ones());
    // The sender sent the tags, 3 x 12 bytes per element, and its OPRF's
    // messages; the bound is the tags and a 64-byte OPRF row per bin.
    let st: ChannelStats = a.stats();
    let tags = 36 * y.len() as u64;
    let bins = ot::runtime::psi::psi_bins(x.len()) as u64;
    assert!(st.bytes_sent > tags, "{st:?}");
    let recv: ChannelStats = b.stats();
    assert!(recv.bytes_sent > 64 * bins, "{recv:?}");
}

/// An ideal OPRF (a trusted party in-process): the sender's key is made
/// here and handed to the receiver through shared memory, nothing goes
/// over the channel. Plugged in through the functionality's traits.
#[derive(Clone, Default)]
struct IdealOprf {
    key: Arc<(Mutex<Option<OprfKey>>, Condvar)>,
}

impl BatchedOprfSender for IdealOprf {
    fn send_oprf(&mut self, _: &mut dyn Channel, m: usize) -> Result<OprfKey, OtError> {
        let mut rng = Rng::from_entropy();
        let q: Vec<[Block; 4]> = (0..m)
            .map(|_| core::array::from_fn(|_| Block::sample(&mut rng)))
            .collect();
        let s: [Block; 4] = core::array::from_fn(|_| Block::sample(&mut rng));
        let sid = Block::sample(&mut rng);
        let key = OprfKey::pseudorandom(q, &s, sid, &PrCode::from_session(sid), false);
        let (slot, cv) = &*self.key;
        *slot.lock().map_err(|_| OtError("poisoned".into()))? = Some(key.clone());
        cv.notify_all();
        Ok(key)
    }
}

impl BatchedOprfReceiver for IdealOprf {
    fn receive_oprf(
        &mut self,
        _: &mut dyn Channel,
        inputs: &[Block],
    ) -> Result<Vec<Block>, OtError> {
        let (slot, cv) = &*self.key;
        let mut g = slot.lock().map_err(|_| OtError("poisoned".into()))?;
        while g.is_none() {
            g = cv.wait(g).map_err(|_| OtError("poisoned".into()))?;
        }
        let key = g.as_ref().ok_or_else(|| OtError("no key".into()))?;
        Ok((0..inputs.len())
            .map(|j| key.eval(j, inputs[j]).unwrap_or_default())
            .collect())
    }
}

/// A channel that keeps a copy of every frame it sends.
struct Recording<C> {
    inner: C,
    sent: Vec<Vec<u8>>,
}

impl<C: Channel> Channel for Recording<C> {
    fn send(&mut self, frame: &[u8]) -> Result<(), ot::runtime::ChannelError> {
        self.sent.push(frame.to_vec());
        self.inner.send(frame)
    }
    fn recv_into(
        &mut self,
        buf: &mut Vec<u8>,
        max_len: usize,
    ) -> Result<(), ot::runtime::ChannelError> {
        self.inner.recv_into(buf, max_len)
    }
    fn stats(&self) -> ChannelStats {
        self.inner.stats()
    }
}

#[test]
fn a_user_written_oprf_plugs_in_and_the_tags_follow_a_shuffled_order() {
    // The receiver holds only the sender's first element y[0].
    let mut rng = Rng::from_entropy();
    let y: Vec<Block> = (0..64).map(|_| Block::sample(&mut rng)).collect();
    let x = vec![y[0]];
    let mut positions = std::collections::BTreeSet::new();
    for _ in 0..8 {
        let ideal = IdealOprf::default();
        let subs = (
            kkrt_psi::SenderSubs {
                oprf: Box::new(ideal.clone()),
            },
            kkrt_psi::ReceiverSubs {
                oprf: Box::new(ideal.clone()),
            },
        );
        let (a, b) = MemoryChannel::pair();
        let mut a = Recording {
            inner: a,
            sent: vec![],
        };
        let mut b = Recording {
            inner: b,
            sent: vec![],
        };
        let got = psi(&x, &y, subs, &mut a, &mut b).unwrap();
        assert!(got.get(0), "y[0] is in the intersection");
        // Recompute y[0]'s three tags with the ideal key and the hash
        // seed the receiver sent, and find them among the sender's tags.
        let key = ideal.key.0.lock().unwrap().clone().unwrap();
        let seed_frame = b
            .sent
            .iter()
            .find(|f| f.len() == 16)
            .expect("the hash seed");
        let seed = Block::from_bytes(seed_frame[..16].try_into().unwrap());
        let hasher = BinHasher::new(seed);
        let bins = key.len();
        let tags_frame = a.sent.last().expect("the tags");
        assert_eq!(tags_frame.len(), 36 * y.len());
        let hs = bin_hashes(&hasher, y[0], bins);
        for (i, &h) in hs.iter().enumerate() {
            let want = PsiTag::of(key.eval(h as usize, psi_input(&hasher, i, y[0])).unwrap());
            let at = tags_frame
                .chunks_exact(12)
                .position(|t| t == want.0)
                .expect("y[0]'s tag is sent");
            assert_eq!(at % 3, i, "tag of hash {i} at its residue");
            positions.insert(at / 3);
        }
    }
    // Without the sender's shuffle y[0]'s tags would always be the first
    // three (position 0 in all 8 runs); shuffled, the chance of one
    // position in 8 runs of 64 elements is 64^-7.
    assert!(positions.len() > 1, "{positions:?}");
}

#[test]
fn oos_cannot_carry_the_psi_inputs_and_says_so() {
    let (x, y, _) = sets(10, 10, false);
    let subs = (
        kkrt_psi::SenderSubs {
            oprf: Box::new(Oprf::oos()),
        },
        kkrt_psi::ReceiverSubs {
            oprf: Box::new(Oprf::oos()),
        },
    );
    // Each party owns its end, so the receiver's failure closes the
    // channel and the sender stops at once.
    let (a, b) = MemoryChannel::pair();
    let p = kkrt_psi::Params::new(y.len(), x.len(), 1).unwrap();
    let (ss, rs) = subs;
    let sender = std::thread::spawn(move || {
        let mut a = a;
        let input = kkrt_psi::SenderInput { set: y };
        kkrt_psi::Sender::new(p, input, Rng::from_entropy(), ss)?.run(&mut a)
    });
    let err = {
        let mut b = b;
        let input = kkrt_psi::ReceiverInput { set: x };
        kkrt_psi::Receiver::new(p, input, Rng::from_entropy(), rs)
            .and_then(|r| r.run(&mut b))
            .unwrap_err()
    };
    assert!(
        sender.join().unwrap().is_err(),
        "the sender sees the closed channel"
    );
    let text = format!("{err}");
    assert!(
        matches!(&err, kkrt_psi::Error::SubProtocol { call: "oprf", .. }),
        "{text}"
    );
}

#[test]
fn bad_sizes_are_typed_errors() {
    assert!(kkrt_psi::Params::new(0, 5, 1).is_err());
    assert!(kkrt_psi::Params::new(5, 0, 1).is_err());
    assert!(
        kkrt_psi::Params::new(1 << 30, 1 << 30, 1).is_err(),
        "n_s n_r above 2^54"
    );
    let big = kkrt_psi::Params::new(1 << 24, 1 << 24, 1);
    assert!(big.is_ok(), "{big:?}");
    // A set of another size than the parameters say.
    let p = kkrt_psi::Params::new(3, 4, 1).unwrap();
    let r = kkrt_psi::Receiver::new(
        p,
        kkrt_psi::ReceiverInput {
            set: vec![Block(1); 3],
        },
        Rng::from_entropy(),
        kkrt_subs().1,
    );
    assert!(r.is_err());
}
