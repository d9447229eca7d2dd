//! TCP channel: framing, error cases and simultaneous bulk sends.

use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use ot_runtime::transport::channel::{local_pair_tcp, Channel, ChannelError, TcpChannel};

/// A channel whose peer is a raw socket, to forge malformed frames.
fn raw_peer() -> (TcpChannel, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let raw = TcpStream::connect(addr).unwrap();
    let ch = TcpChannel::accept(&listener, Duration::from_secs(5)).unwrap();
    (ch, raw)
}

#[test]
fn round_trip_sizes_and_stats() {
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let sizes = [0usize, 1, 7, 100, 65_535, 65_536, 70_000, 1 << 20, 3];
    let msgs: Vec<Vec<u8>> = sizes
        .iter()
        .map(|&n| (0..n).map(|i| (i * 31 + n) as u8).collect())
        .collect();
    let to_send = msgs.clone();
    let sender = thread::spawn(move || {
        for (i, m) in to_send.into_iter().enumerate() {
            if i % 2 == 0 {
                a.send(&m).unwrap();
            } else {
                a.send_vec(m).unwrap();
            }
        }
        a.flush().unwrap();
        assert_eq!(a.recv(4).unwrap(), b"done");
        a
    });
    let mut buf = Vec::new();
    for m in &msgs {
        b.recv_into(&mut buf, 1 << 20).unwrap();
        assert_eq!(&buf, m);
    }
    b.send(b"done").unwrap();
    let a = sender.join().unwrap();

    let total: u64 = sizes.iter().map(|&n| n as u64).sum();
    let sa = a.stats();
    assert_eq!(sa.bytes_sent, total);
    assert_eq!(sa.messages_sent, sizes.len() as u64);
    assert_eq!(sa.bytes_received, 4);
    assert_eq!(sa.rounds, 2);
    let sb = b.stats();
    assert_eq!(sb.bytes_received, total);
    assert_eq!(sb.messages_received, sizes.len() as u64);
    assert_eq!(sb.rounds, 2);
}

#[test]
fn ping_pong_many_rounds() {
    let (a, b) = local_pair_tcp().unwrap();
    let peer = thread::spawn(move || {
        let mut b = b;
        for _ in 0..500 {
            let m = b.recv(8).unwrap();
            b.send(&m).unwrap();
        }
    });
    let mut a = a;
    let start = Instant::now();
    for i in 0..500u64 {
        a.send(&i.to_le_bytes()).unwrap();
        assert_eq!(a.recv(8).unwrap(), i.to_le_bytes());
    }
    peer.join().unwrap();
    // Small frames are flushed on receive: no Nagle / delayed-ACK stalls.
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(a.stats().rounds, 1000);
}

#[test]
fn peer_hangup_is_closed() {
    let (mut a, mut b) = local_pair_tcp().unwrap();
    b.send(b"bye").unwrap();
    drop(b);
    assert_eq!(a.recv(3).unwrap(), b"bye");
    let start = Instant::now();
    assert!(matches!(a.recv(3), Err(ChannelError::Closed)));
    assert!(start.elapsed() < Duration::from_secs(5));
}

#[test]
fn truncated_frame() {
    let (mut ch, mut raw) = raw_peer();
    raw.write_all(&100u64.to_le_bytes()).unwrap();
    raw.write_all(&[5; 10]).unwrap();
    drop(raw);
    match ch.recv(1000) {
        Err(ChannelError::Truncated {
            expected: 100,
            got: 10,
        }) => {}
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn truncated_large_frame() {
    let (mut ch, mut raw) = raw_peer();
    let writer = thread::spawn(move || {
        raw.write_all(&(1u64 << 21).to_le_bytes()).unwrap();
        raw.write_all(&vec![5; 1 << 20]).unwrap();
    });
    match ch.recv(1 << 22) {
        Err(ChannelError::Truncated { expected, got }) => {
            assert_eq!((expected, got), (1 << 21, 1 << 20));
        }
        other => panic!("unexpected {other:?}"),
    }
    writer.join().unwrap();
}

#[test]
fn truncated_header() {
    let (mut ch, mut raw) = raw_peer();
    raw.write_all(&[1, 2, 3]).unwrap();
    drop(raw);
    match ch.recv(1000) {
        Err(ChannelError::Truncated {
            expected: 8,
            got: 3,
        }) => {}
        other => panic!("unexpected {other:?}"),
    }
}

#[test]
fn oversized_header_rejected_without_allocating() {
    let (mut ch, mut raw) = raw_peer();
    // Announces 2^62 bytes: allocating it would abort the process.
    raw.write_all(&(1u64 << 62).to_le_bytes()).unwrap();
    let mut buf = Vec::new();
    match ch.recv_into(&mut buf, 1 << 20) {
        Err(ChannelError::Oversized { len, max }) => {
            assert_eq!(len, 1 << 62);
            assert_eq!(max, 1 << 20);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(buf.capacity() < 1 << 20);

    // Even when the caller accepts anything, u64::MAX cannot be allocated
    // and is an error, not an abort.
    let (mut ch2, mut raw2) = raw_peer();
    raw2.write_all(&u64::MAX.to_le_bytes()).unwrap();
    assert!(ch2.recv(usize::MAX).is_err());
}

#[test]
fn timeout_within_configured_time() {
    let (ch, _raw) = raw_peer();
    let mut ch = ch.with_timeout(Duration::from_millis(200));
    let start = Instant::now();
    match ch.recv(10) {
        Err(ChannelError::Timeout { after }) => assert_eq!(after, Duration::from_millis(200)),
        other => panic!("unexpected {other:?}"),
    }
    let t = start.elapsed();
    assert!(
        t >= Duration::from_millis(190) && t < Duration::from_secs(3),
        "{t:?}"
    );
}

#[test]
fn accept_times_out() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let start = Instant::now();
    let err = TcpChannel::accept(&listener, Duration::from_millis(100)).unwrap_err();
    assert_eq!(err.kind(), std::io::ErrorKind::TimedOut);
    assert!(start.elapsed() < Duration::from_secs(3));
}

#[test]
fn connect_and_accept() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let client = thread::spawn(move || {
        let mut c = TcpChannel::connect(addr, Duration::from_secs(5)).unwrap();
        c.send(b"hi").unwrap();
        c.flush().unwrap();
        c.recv(2).unwrap()
    });
    let mut s = TcpChannel::accept(&listener, Duration::from_secs(5)).unwrap();
    assert_eq!(s.recv(2).unwrap(), b"hi");
    s.send(b"yo").unwrap();
    s.flush().unwrap();
    assert_eq!(client.join().unwrap(), b"yo");
}

/// Both parties send before receiving; returns what each received.
fn exchange(
    mut a: TcpChannel,
    mut b: TcpChannel,
    frames: usize,
    frame_len: usize,
    owned: bool,
) -> (u64, u64) {
    fn party(ch: &mut TcpChannel, frames: usize, frame_len: usize, owned: bool, tag: u8) -> u64 {
        let msg: Vec<u8> = (0..frame_len).map(|i| (i as u8) ^ tag).collect();
        for _ in 0..frames {
            if owned {
                ch.send_vec(msg.clone()).unwrap();
            } else {
                ch.send(&msg).unwrap();
            }
        }
        // The peer's message (its tag is `tag ^ 0xff`).
        let expected: Vec<u8> = msg.iter().map(|x| x ^ 0xff).collect();
        let mut got = 0;
        let mut buf = Vec::new();
        for _ in 0..frames {
            ch.recv_into(&mut buf, frame_len).unwrap();
            assert_eq!(buf.len(), frame_len);
            assert!(buf == expected);
            got += buf.len() as u64;
        }
        got
    }
    let start = Instant::now();
    let tb = thread::spawn(move || party(&mut b, frames, frame_len, owned, 0xff));
    let ga = party(&mut a, frames, frame_len, owned, 0);
    let gb = tb.join().unwrap();
    assert!(start.elapsed() < Duration::from_secs(60));
    (ga, gb)
}

#[test]
fn both_send_64_mib_simultaneously() {
    let (a, b) = local_pair_tcp().unwrap();
    let n = 64 << 20;
    assert_eq!(exchange(a, b, 1, n, false), (n as u64, n as u64));
}

#[test]
fn both_send_many_frames_past_the_queue_limit() {
    // A 1 MiB writer queue forces senders to wait while draining the socket.
    let (a, b) = local_pair_tcp().unwrap();
    let a = a.with_write_queue_limit(1 << 20);
    let b = b.with_write_queue_limit(1 << 20);
    let (ga, gb) = exchange(a, b, 64, 1 << 20, true);
    assert_eq!((ga, gb), (64 << 20, 64 << 20));

    // Many small coalesced frames.
    let (a, b) = local_pair_tcp().unwrap();
    let a = a.with_write_queue_limit(1 << 16);
    let b = b.with_write_queue_limit(1 << 16);
    let (ga, gb) = exchange(a, b, 20_000, 1000, false);
    assert_eq!((ga, gb), (20_000_000, 20_000_000));
}

#[test]
fn dyn_tcp_channel() {
    let (a, b) = local_pair_tcp().unwrap();
    let mut a: Box<dyn Channel + Send> = Box::new(a);
    let mut b: Box<dyn Channel + Send> = Box::new(b);
    a.send(b"x").unwrap();
    a.flush().unwrap();
    assert_eq!(b.recv(1).unwrap(), b"x");
}

#[test]
fn drop_does_not_hang_when_peer_never_reads() {
    let (a, b) = local_pair_tcp().unwrap();
    let mut a = a.with_timeout(Duration::from_millis(200));
    a.send_vec(vec![0; 64 << 20]).unwrap();
    // Flushing cannot complete while the peer does not read: time-out.
    assert!(matches!(a.flush(), Err(ChannelError::Timeout { .. })));
    let start = Instant::now();
    drop(a);
    assert!(start.elapsed() < Duration::from_secs(5));
    drop(b);
}

#[test]
fn send_after_peer_hangup_fails() {
    let (mut a, b) = local_pair_tcp().unwrap();
    drop(b);
    // The first writes may still be accepted by the kernel; within a few
    // frames the reset is reported as `Closed`, never a panic or hang.
    let start = Instant::now();
    let mut failed = false;
    for _ in 0..1000 {
        if a.send(&[0; 1024]).and_then(|()| a.flush()).is_err() {
            failed = true;
            break;
        }
        thread::sleep(Duration::from_millis(1));
    }
    assert!(failed);
    assert!(start.elapsed() < Duration::from_secs(10));
}
