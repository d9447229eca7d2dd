//! Generated drivers announce, before each send, the frame their role
//! receives next (`Channel::expect_next_frame`, issue 15 item 1), so that a
//! TCP or TLS channel buffers at most that frame plus a small slack when a
//! peer floods instead of reading. A wrong announcement would not break a
//! run (it only bounds read-ahead), so this test records what the drivers
//! announce and checks it against the frames that actually arrive.

use std::sync::{Arc, Mutex};

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{Channel, ChannelError, ChannelStats, MemoryChannel};
use ot::runtime::{Bits, Block};
use ot::{BaseOt, BaseOtKind, OtExtension, OtReceiver, OtSender, RandomOtReceiver, RandomOtSender};

/// What one role's channel saw, in order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Event {
    Announce(Option<usize>),
    Recv(usize),
}

/// A memory channel that records announcements and received frame lengths.
struct Recording {
    inner: MemoryChannel,
    log: Arc<Mutex<Vec<Event>>>,
}

impl Recording {
    fn push(&self, e: Event) {
        self.log.lock().unwrap().push(e);
    }
}

impl Channel for Recording {
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        self.inner.send(msg)
    }
    fn send_vec(&mut self, msg: Vec<u8>) -> Result<(), ChannelError> {
        self.inner.send_vec(msg)
    }
    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        self.inner.recv_into(buf, max_len)?;
        self.push(Event::Recv(buf.len()));
        Ok(())
    }
    fn recv_into_slice(&mut self, out: &mut [u8]) -> Result<usize, ChannelError> {
        let n = self.inner.recv_into_slice(out)?;
        self.push(Event::Recv(n));
        Ok(n)
    }
    fn stats(&self) -> ChannelStats {
        self.inner.stats()
    }
    fn expect_next_frame(&mut self, len: Option<usize>) {
        self.push(Event::Announce(len));
    }
}

type Log = Arc<Mutex<Vec<Event>>>;

fn pair() -> (Recording, Recording, Log, Log) {
    let (a, b) = MemoryChannel::pair();
    let (la, lb) = (Log::default(), Log::default());
    (
        Recording {
            inner: a,
            log: la.clone(),
        },
        Recording {
            inner: b,
            log: lb.clone(),
        },
        la,
        lb,
    )
}

/// Every announcement of a non-zero frame is followed, before the next
/// announcement, by at most one relevant frame: the first frame received
/// after it, which must have exactly the announced length. (`None` lifts
/// the bound at the end of a run.) (An
/// announcement of 0 — "nothing more in this protocol" — may be followed
/// by frames of an enclosing protocol that announces nothing before
/// reading, so it is not checked here.) Returns how many were checked.
fn check(log: &[Event], who: &str) -> usize {
    let mut checked = 0;
    for (i, e) in log.iter().enumerate() {
        let Event::Announce(Some(len)) = *e else {
            continue;
        };
        if len == 0 {
            continue;
        }
        let next = log.get(i + 1).map(|e| match e {
            Event::Recv(n) => Ok(*n),
            Event::Announce(a) => Err(*a),
        });
        match next {
            Some(Ok(n)) => {
                assert_eq!(n, len, "{who}: announced {len}, received {n} (log {log:?})");
                checked += 1;
            }
            // A second send before the announced frame arrives: it is
            // announced again.
            Some(Err(a)) => {
                assert_eq!(a, Some(len), "{who}: announcement changed before receiving")
            }
            None => panic!("{who}: announced a frame of {len} bytes that never came"),
        }
    }
    checked
}

fn choices(n: usize) -> Bits {
    Bits::random(&mut Rng::from_entropy(), n)
}

/// Runs a random-OT sender and receiver; returns both logs.
fn random_ot(
    mut sender: impl RandomOtSender + Send,
    mut receiver: impl RandomOtReceiver,
    n: usize,
) -> (Vec<Event>, Vec<Event>) {
    let (mut a, mut b, la, lb) = pair();
    let r = choices(n);
    std::thread::scope(|sc| {
        let h = sc.spawn(move || sender.send_random(&mut a, n).unwrap());
        receiver.receive_random(&mut b, &r).unwrap();
        h.join().unwrap();
    });
    let (la, lb) = (la.lock().unwrap().clone(), lb.lock().unwrap().clone());
    (la, lb)
}

#[test]
fn ot_extension_drivers_announce_the_frames_they_receive() {
    let mut total = 0;
    for (name, s, r) in [
        ("iknp", OtExtension::iknp(), OtExtension::iknp()),
        ("kos", OtExtension::kos(), OtExtension::kos()),
        (
            "softspoken k=2",
            OtExtension::softspoken(2),
            OtExtension::softspoken(2),
        ),
        (
            "softspoken malicious k=4",
            OtExtension::softspoken_malicious(4),
            OtExtension::softspoken_malicious(4),
        ),
    ] {
        let (ls, lr) = random_ot(s, r, 1000);
        assert!(
            ls.iter()
                .chain(&lr)
                .any(|e| matches!(e, Event::Announce(_))),
            "{name}: no announcement"
        );
        // Each run ends by lifting its announcement.
        assert_eq!(ls.last(), Some(&Event::Announce(None)), "{name} sender");
        assert_eq!(lr.last(), Some(&Event::Announce(None)), "{name} receiver");
        total += check(&ls, &format!("{name} sender")) + check(&lr, &format!("{name} receiver"));
    }
    assert!(total >= 8, "only {total} announcements checked");
}

#[test]
fn base_ot_and_chosen_message_drivers_announce_exactly() {
    let mut total = 0;
    for kind in [BaseOtKind::Co15, BaseOtKind::Np00] {
        let (ls, lr) = random_ot(BaseOt::new(kind), BaseOt::new(kind), 128);
        total +=
            check(&ls, &format!("{kind:?} sender")) + check(&lr, &format!("{kind:?} receiver"));
    }
    // Chosen messages over KOS: the sender's correction frame is announced.
    let (mut a, mut b, la, lb) = pair();
    let n = 300;
    let msgs: Vec<[Block; 2]> = (0..n as u128)
        .map(|i| [Block::from(2 * i), Block::from(2 * i + 1)])
        .collect();
    let r = choices(n);
    std::thread::scope(|sc| {
        let h = sc.spawn(|| OtExtension::kos().send(&mut a, &msgs).unwrap());
        let got = OtExtension::kos().receive(&mut b, &r).unwrap();
        h.join().unwrap();
        for (i, g) in got.iter().enumerate() {
            assert_eq!(*g, msgs[i][usize::from(r.get(i))]);
        }
    });
    total += check(&la.lock().unwrap(), "kos chosen sender");
    total += check(&lb.lock().unwrap(), "kos chosen receiver");
    assert!(total >= 4, "only {total} announcements checked");
}
