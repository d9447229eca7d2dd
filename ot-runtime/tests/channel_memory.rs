//! In-memory channel and the channel wrappers.

use std::thread;
use std::time::{Duration, Instant};

use ot_runtime::transport::channel::{
    Channel, ChannelError, ChannelStats, MemoryChannel, ShapedChannel, TamperChannel,
};

#[test]
fn round_trip_and_stats() {
    let (mut a, mut b) = MemoryChannel::pair();
    a.send(b"hello").unwrap();
    a.send_vec(vec![7; 1000]).unwrap();
    a.send(&[]).unwrap();
    assert_eq!(b.recv(5).unwrap(), b"hello");
    let mut buf = vec![1, 2, 3];
    b.recv_into(&mut buf, 1000).unwrap();
    assert_eq!(buf, vec![7; 1000]);
    b.recv_into(&mut buf, 0).unwrap();
    assert!(buf.is_empty());
    b.send(b"back").unwrap();
    assert_eq!(a.recv(usize::MAX).unwrap(), b"back");

    assert_eq!(
        a.stats(),
        ChannelStats {
            bytes_sent: 1005,
            bytes_received: 4,
            messages_sent: 3,
            messages_received: 1,
            rounds: 2,
        }
    );
    assert_eq!(
        b.stats(),
        ChannelStats {
            bytes_sent: 4,
            bytes_received: 1005,
            messages_sent: 1,
            messages_received: 3,
            rounds: 2,
        }
    );
}

#[test]
fn rounds_count_direction_changes() {
    let (mut a, mut b) = MemoryChannel::pair();
    assert_eq!(a.stats().rounds, 0);
    for i in 0..3u8 {
        a.send(&[i]).unwrap();
        a.send(&[i]).unwrap();
        b.recv(1).unwrap();
        b.recv(1).unwrap();
        b.send(&[i]).unwrap();
        a.recv(1).unwrap();
    }
    assert_eq!(a.stats().rounds, 6);
    assert_eq!(b.stats().rounds, 6);
}

#[test]
fn peer_hangup_is_closed() {
    let (mut a, b) = MemoryChannel::pair();
    let (c, mut d) = MemoryChannel::pair();
    drop(b);
    assert!(matches!(a.recv(10), Err(ChannelError::Closed)));
    assert!(matches!(a.send(b"x"), Err(ChannelError::Closed)));
    // Frames sent before the hang-up are still delivered.
    let mut c = c;
    c.send(b"last").unwrap();
    drop(c);
    assert_eq!(d.recv(10).unwrap(), b"last");
    assert!(matches!(d.recv(10), Err(ChannelError::Closed)));
}

#[test]
fn oversized_frame_rejected() {
    let (mut a, mut b) = MemoryChannel::pair();
    a.send(&[0; 11]).unwrap();
    match b.recv(10) {
        Err(ChannelError::Oversized { len: 11, max: 10 }) => {}
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(b.stats().messages_received, 0);
}

#[test]
fn timeout_within_configured_time() {
    let (_a, b) = MemoryChannel::pair();
    let mut b = b.with_timeout(Duration::from_millis(100));
    let start = Instant::now();
    match b.recv(10) {
        Err(ChannelError::Timeout { after }) => assert_eq!(after, Duration::from_millis(100)),
        other => panic!("unexpected {other:?}"),
    }
    let elapsed = start.elapsed();
    assert!(elapsed >= Duration::from_millis(100));
    assert!(elapsed < Duration::from_secs(5), "{elapsed:?}");
}

#[test]
fn threads_and_dyn_channels() {
    let (a, b) = MemoryChannel::pair();
    let mut a: Box<dyn Channel + Send> = Box::new(a);
    let peer = thread::spawn(move || {
        let mut b = b;
        let r: &mut MemoryChannel = &mut b;
        for _ in 0..100 {
            let m = Channel::recv(&mut &mut *r, 8).unwrap();
            r.send(&m).unwrap();
        }
    });
    for i in 0..100u64 {
        a.send(&i.to_le_bytes()).unwrap();
        assert_eq!(a.recv(8).unwrap(), i.to_le_bytes());
    }
    peer.join().unwrap();
    assert_eq!(a.stats().rounds, 200);
}

#[test]
fn tamper_rewrites_outgoing_frames() {
    let (a, mut b) = MemoryChannel::pair();
    let mut a = TamperChannel::new(a, |i, msg: &mut Vec<u8>| match i {
        0 => msg[0] ^= 1,
        1 => msg.truncate(1),
        2 => msg.push(9),
        _ => {}
    });
    for _ in 0..4 {
        a.send(&[10, 20]).unwrap();
    }
    assert_eq!(b.recv(8).unwrap(), [11, 20]);
    assert_eq!(b.recv(8).unwrap(), [10]);
    assert_eq!(b.recv(8).unwrap(), [10, 20, 9]);
    assert_eq!(b.recv(8).unwrap(), [10, 20]);
    b.send(b"ok").unwrap();
    assert_eq!(a.recv(8).unwrap(), b"ok");
    // Stats are those of what was actually sent.
    assert_eq!(a.stats().bytes_sent, 2 + 1 + 3 + 2);
}

#[test]
fn shaped_adds_latency_per_flight_and_caps_bandwidth() {
    let (a, b) = MemoryChannel::pair();
    let latency = Duration::from_millis(150);
    let mut a = ShapedChannel::new(a, latency, Some(1_000_000));
    let mut b = ShapedChannel::new(b, latency, None);

    // 100 kB at 1 MB/s takes at least 100 ms on a's side.
    let start = Instant::now();
    a.send(&vec![0; 50_000]).unwrap();
    a.send_vec(vec![0; 50_000]).unwrap();
    assert!(start.elapsed() >= Duration::from_millis(95));

    // One flight of two frames pays the latency once.
    let start = Instant::now();
    b.recv(50_000).unwrap();
    b.recv(50_000).unwrap();
    let t = start.elapsed();
    // Charged per frame it would be at least twice the latency.
    assert!(t >= latency && t < latency * 2, "{t:?}");

    b.send(b"x").unwrap();
    let start = Instant::now();
    a.recv(1).unwrap();
    assert!(start.elapsed() >= latency);
    assert_eq!(a.stats().bytes_sent, 100_000);
    let _ = a.into_inner();
}
