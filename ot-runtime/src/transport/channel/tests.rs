//! Tests of buffer reuse in the channels: exact round trips with a reused
//! receive buffer, no leaking of one frame's bytes into another through
//! recycled buffers, and the error cases on the reuse paths.

use std::collections::HashSet;
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use super::*;
use crate::{BitMatrix, Block};

/// Frame sizes of the round-trip tests: empty, tiny, medium (coalesced vs
/// direct), large, and sizes that shrink and grow again so that recycled
/// and reused buffers are both larger and smaller than the next frame.
const SIZES: [usize; 12] = [
    0,
    1,
    100 << 10,
    1 << 20,
    3 << 20,
    1,
    100 << 10,
    0,
    3 << 20,
    1 << 20,
    1 << 20,
    100 << 10,
];

/// A pattern unique to frame `index` (every byte depends on the index, and
/// no frame is a prefix of another).
fn pattern(index: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| {
            (i as u64)
                .wrapping_mul(0x9e37_79b9)
                .wrapping_add(index as u64 * 101) as u8
        })
        .map(|b| b ^ (index as u8).rotate_left(3))
        .collect()
}

/// Sends `SIZES` from `tx` (alternating `send` and `send_vec`), receives
/// them on `rx` with one reused buffer and checks every byte and the change
/// of the stats (one more flight on each side).
fn round_trip<C: Channel + Send + 'static>(mut tx: C, mut rx: C) -> (C, C) {
    let (tx0, rx0) = (tx.stats(), rx.stats());
    let sender = thread::spawn(move || {
        for (i, &n) in SIZES.iter().enumerate() {
            let m = pattern(i, n);
            if i % 2 == 0 {
                tx.send(&m).unwrap();
            } else {
                tx.send_vec(m).unwrap();
            }
        }
        tx.flush().unwrap();
        tx
    });
    let mut buf = Vec::new();
    for (i, &n) in SIZES.iter().enumerate() {
        rx.recv_into(&mut buf, 3 << 20).unwrap();
        assert_eq!(buf.len(), n, "frame {i}");
        assert!(buf == pattern(i, n), "frame {i} corrupted");
    }
    let tx = sender.join().unwrap();
    let total: u64 = SIZES.iter().map(|&n| n as u64).sum();
    let frames = SIZES.len() as u64;
    let delta = |now: ChannelStats, then: ChannelStats| ChannelStats {
        bytes_sent: now.bytes_sent - then.bytes_sent,
        bytes_received: now.bytes_received - then.bytes_received,
        messages_sent: now.messages_sent - then.messages_sent,
        messages_received: now.messages_received - then.messages_received,
        rounds: now.rounds - then.rounds,
    };
    assert_eq!(
        delta(tx.stats(), tx0),
        ChannelStats {
            bytes_sent: total,
            bytes_received: 0,
            messages_sent: frames,
            messages_received: 0,
            rounds: 1,
        }
    );
    assert_eq!(
        delta(rx.stats(), rx0),
        ChannelStats {
            bytes_sent: 0,
            bytes_received: total,
            messages_sent: 0,
            messages_received: frames,
            rounds: 1,
        }
    );
    (tx, rx)
}

#[test]
fn memory_varying_sizes_round_trip() {
    let (a, b) = MemoryChannel::pair();
    let (a, b) = round_trip(a, b);
    // Back the other way, then again, on the same pair: recycled buffers.
    let (b, a) = round_trip(b, a);
    round_trip(a, b);
}

#[test]
fn tcp_varying_sizes_round_trip() {
    let (a, b) = local_pair_tcp().unwrap();
    let (a, b) = round_trip(a, b);
    // A second pass reuses the payload buffers returned by the writer.
    assert!(a.pool_held().0 > 0);
    let (b, a) = round_trip(b, a);
    round_trip(a, b);
}

/// Many frames of shrinking and growing sizes, each with its own pattern,
/// through recycled buffers: a frame must never show bytes of an earlier one
/// (e.g. a recycled 1 MiB buffer carrying a 100 KiB frame must not expose
/// the rest).
fn no_leak<C: Channel>(a: &mut C, b: &mut C) {
    let mut buf = Vec::new();
    let sizes = [
        1 << 20,
        100 << 10,
        17 << 10,
        (1 << 20) - 1,
        64 << 10,
        1 << 20,
    ];
    for round in 0..20 {
        for (j, &n) in sizes.iter().enumerate() {
            let index = round * sizes.len() + j;
            let m = pattern(index, n);
            a.send(&m).unwrap();
            b.recv_into(&mut buf, 1 << 20).unwrap();
            assert_eq!(buf.len(), n);
            assert!(buf == m, "frame {index} corrupted");
        }
    }
}

#[test]
fn memory_recycling_never_leaks() {
    let (mut a, mut b) = MemoryChannel::pair();
    no_leak(&mut a, &mut b);
}

#[test]
fn tcp_recycling_never_leaks() {
    let (mut a, mut b) = local_pair_tcp().unwrap();
    no_leak(&mut a, &mut b);
}

#[test]
fn memory_steady_state_circulates_few_buffers() {
    let (mut a, mut b) = MemoryChannel::pair();
    let mut buf = Vec::new();
    let mut seen = HashSet::new();
    for i in 0..100 {
        a.send(&pattern(i, 256 << 10)).unwrap();
        b.recv_into(&mut buf, 1 << 20).unwrap();
        assert!(buf == pattern(i, 256 << 10));
        seen.insert(buf.as_ptr() as usize);
    }
    // Without recycling every frame would be a fresh allocation (the
    // allocator may reuse addresses, but the pool must, deterministically).
    assert!(seen.len() <= 3, "{} distinct buffers", seen.len());
    // `send_vec` still moves the caller's buffer.
    let v = pattern(1000, 300 << 10);
    let ptr = v.as_ptr() as usize;
    a.send_vec(v).unwrap();
    b.recv_into(&mut buf, 1 << 20).unwrap();
    assert_eq!(buf.as_ptr() as usize, ptr);
}

#[test]
fn tcp_receive_reuses_buffer_and_send_reuses_payloads() {
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let mut buf = Vec::new();
    let mut ptrs = HashSet::new();
    // Frames that fit in the loopback socket's buffers (a flush waits for
    // the socket to take every byte, and nobody reads until it returns).
    for i in 0..20 {
        a.send(&pattern(i, 256 << 10)).unwrap();
        // The writer hands the payload to the pool before `flush` returns.
        a.flush().unwrap();
        b.recv_into(&mut buf, 1 << 20).unwrap();
        assert!(buf == pattern(i, 256 << 10));
        ptrs.insert(buf.as_ptr() as usize);
    }
    // The receive buffer is sized once and then reused in place.
    assert_eq!(ptrs.len(), 1);
    a.flush().unwrap();
    // Sent one at a time: a frame the socket took whole was written from
    // the caller's slice (no copy, no buffer); otherwise the writer
    // returned its payload copy before the next send, which took it again,
    // so at most one buffer served all frames.
    let held = a.pool_held();
    assert!(held == (0, 0) || held == (1, 256 << 10), "{held:?}");
    // Smaller frames leave a reused buffer's allocation alone.
    a.send(&pattern(99, 100 << 10)).unwrap();
    b.recv_into(&mut buf, 1 << 20).unwrap();
    assert!(buf == pattern(99, 100 << 10));
    assert_eq!(ptrs.len(), 1);
    assert!(ptrs.contains(&(buf.as_ptr() as usize)));
}

/// `frame_buffer` hands out recycled buffers, empty, and frames built in
/// them arrive intact.
fn frame_buffers<C: Channel>(a: &mut C, b: &mut C) {
    let mut buf = Vec::new();
    for i in 0..10 {
        let mut f = a.frame_buffer(300 << 10);
        assert!(f.is_empty() && f.capacity() >= 300 << 10);
        f.extend_from_slice(&pattern(i, 200 << 10 | i));
        a.send_vec(f).unwrap();
        a.flush().unwrap();
        b.recv_into(&mut buf, 1 << 20).unwrap();
        assert!(buf == pattern(i, 200 << 10 | i), "frame {i}");
    }
    // Small requests are plain allocations.
    assert!(a.frame_buffer(10).is_empty());
}

#[test]
fn memory_frame_buffers_are_recycled() {
    let (mut a, mut b) = MemoryChannel::pair();
    frame_buffers(&mut a, &mut b);
    let mut f = a.frame_buffer(300 << 10);
    let ptr = f.as_ptr() as usize;
    f.push(1);
    a.send_vec(f).unwrap();
    let mut buf = Vec::new();
    b.recv_into(&mut buf, 10).unwrap();
    assert_eq!(buf, [1]);
    // Spent buffers come back: the allocation is handed out again.
    let mut seen = false;
    for _ in 0..3 {
        let f = a.frame_buffer(300 << 10);
        seen |= f.as_ptr() as usize == ptr;
        a.send_vec(f).unwrap();
        b.recv_into(&mut buf, 10).unwrap();
    }
    assert!(seen);
}

#[test]
fn tcp_frame_buffers_are_recycled() {
    let (mut a, mut b) = local_pair_tcp().unwrap();
    frame_buffers(&mut a, &mut b);
    assert!(a.pool_held().0 >= 1);
    let f = a.frame_buffer(300 << 10);
    assert!(f.is_empty() && f.capacity() >= 300 << 10);
    assert_eq!(a.pool_held().0, 0);
}

#[test]
fn memory_oversized_after_reuse() {
    let (mut a, mut b) = MemoryChannel::pair();
    let mut buf = Vec::new();
    a.send(&pattern(0, 1 << 20)).unwrap();
    b.recv_into(&mut buf, 1 << 20).unwrap();
    a.send(&pattern(1, (1 << 20) + 1)).unwrap();
    match b.recv_into(&mut buf, 1 << 20) {
        Err(ChannelError::Oversized { len, max }) => {
            assert_eq!((len, max), ((1 << 20) + 1, 1 << 20));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(buf.is_empty());
    // The channel still works, and the stats count only delivered frames.
    a.send(&pattern(2, 5000)).unwrap();
    b.recv_into(&mut buf, 1 << 20).unwrap();
    assert!(buf == pattern(2, 5000));
    assert_eq!(b.stats().messages_received, 2);
    assert_eq!(b.stats().bytes_received, (1 << 20) + 5000);
}

/// A channel whose peer is a raw socket, to forge frames.
fn raw_peer(timeout: Duration) -> (TcpChannel, TcpStream) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let raw = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
    let ch = TcpChannel::accept(&listener, timeout).unwrap();
    (ch, raw)
}

#[test]
fn tcp_oversized_after_reuse() {
    let (mut ch, mut raw) = raw_peer(Duration::from_secs(10));
    // A thread, as more than the socket buffers hold is written.
    let writer = thread::spawn(move || {
        let first = pattern(0, 1 << 20);
        raw.write_all(&(first.len() as u64).to_le_bytes()).unwrap();
        raw.write_all(&first).unwrap();
        raw.write_all(&((1u64 << 20) + 1).to_le_bytes()).unwrap();
        raw
    });
    let mut buf = Vec::new();
    ch.recv_into(&mut buf, 1 << 20).unwrap();
    assert!(buf == pattern(0, 1 << 20));
    match ch.recv_into(&mut buf, 1 << 20) {
        Err(ChannelError::Oversized { len, max }) => {
            assert_eq!((len, max), ((1 << 20) + 1, 1 << 20));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(buf.is_empty());
    assert_eq!(ch.stats().messages_received, 1);
    assert_eq!(ch.stats().bytes_received, 1 << 20);
    drop(writer.join().unwrap());
}

#[test]
fn tcp_hangup_mid_large_frame_into_reused_buffer() {
    let (mut ch, mut raw) = raw_peer(Duration::from_secs(10));
    let first = pattern(0, 3 << 20);
    let writer = thread::spawn(move || {
        raw.write_all(&(first.len() as u64).to_le_bytes()).unwrap();
        raw.write_all(&first).unwrap();
        // Second frame: announced 3 MiB, 1.5 MiB sent, then hang-up.
        raw.write_all(&(3u64 << 20).to_le_bytes()).unwrap();
        raw.write_all(&pattern(1, 3 << 19)).unwrap();
    });
    let mut buf = Vec::new();
    ch.recv_into(&mut buf, 3 << 20).unwrap();
    assert!(buf == pattern(0, 3 << 20));
    match ch.recv_into(&mut buf, 3 << 20) {
        Err(ChannelError::Truncated { expected, got }) => {
            assert_eq!((expected, got), (3 << 20, 3 << 19));
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(buf.is_empty());
    writer.join().unwrap();
    assert!(matches!(
        ch.recv_into(&mut buf, 3 << 20),
        Err(ChannelError::Closed)
    ));
    assert_eq!(ch.stats().messages_received, 1);
}

#[test]
fn tcp_hangup_mid_small_frame_into_reused_buffer() {
    let (mut ch, mut raw) = raw_peer(Duration::from_secs(10));
    raw.write_all(&5000u64.to_le_bytes()).unwrap();
    raw.write_all(&pattern(0, 5000)).unwrap();
    raw.write_all(&3000u64.to_le_bytes()).unwrap();
    raw.write_all(&pattern(1, 1000)).unwrap();
    drop(raw);
    let mut buf = Vec::new();
    ch.recv_into(&mut buf, 5000).unwrap();
    assert!(buf == pattern(0, 5000));
    match ch.recv_into(&mut buf, 5000) {
        Err(ChannelError::Truncated {
            expected: 3000,
            got: 1000,
        }) => {}
        other => panic!("unexpected {other:?}"),
    }
    assert!(buf.is_empty());
}

#[test]
fn tcp_timeout_mid_large_frame() {
    let (mut ch, mut raw) = raw_peer(Duration::from_millis(200));
    // Half a frame, then silence (the socket stays open until the end).
    let writer = thread::spawn(move || {
        raw.write_all(&(2u64 << 20).to_le_bytes()).unwrap();
        raw.write_all(&pattern(0, 1 << 20)).unwrap();
        raw
    });
    let mut buf = vec![1; 10];
    match ch.recv_into(&mut buf, 2 << 20) {
        Err(ChannelError::Timeout { after }) => assert_eq!(after, Duration::from_millis(200)),
        other => panic!("unexpected {other:?}"),
    }
    assert!(buf.is_empty());
    drop(writer.join().unwrap());
}

#[test]
fn memory_hangup_is_closed_after_reuse() {
    let (mut a, mut b) = MemoryChannel::pair();
    let mut buf = Vec::new();
    a.send(&pattern(0, 1 << 20)).unwrap();
    drop(a);
    b.recv_into(&mut buf, 1 << 20).unwrap();
    assert!(buf == pattern(0, 1 << 20));
    assert!(matches!(
        b.recv_into(&mut buf, 1 << 20),
        Err(ChannelError::Closed)
    ));
    assert!(buf.is_empty());
}

#[test]
fn memory_queue_is_bounded_and_waits_for_the_consumer() {
    let (a, mut b) = MemoryChannel::pair();
    let mut a = a.with_queue_limit(1 << 20);
    let frame = vec![7u8; 256 * 1024];
    let producer = std::thread::spawn(move || {
        let mut most = 0;
        for _ in 0..64 {
            a.send(&frame).unwrap();
            most = most.max(a.queued());
        }
        (most, a)
    });
    std::thread::sleep(Duration::from_millis(50));
    let mut buf = Vec::new();
    for _ in 0..64 {
        b.recv_into(&mut buf, 1 << 20).unwrap();
        assert!(buf.len() == 256 * 1024 && buf.iter().all(|&x| x == 7));
    }
    let (most, a) = producer.join().unwrap();
    assert!(most <= 1 << 20, "{most} bytes queued");
    assert_eq!(a.queued(), 0);
}

#[test]
fn memory_both_ends_sending_past_the_bound_do_not_deadlock() {
    let (a, b) = MemoryChannel::pair();
    let (mut a, mut b) = (a.with_queue_limit(1 << 20), b.with_queue_limit(1 << 20));
    let run = |ch: &mut MemoryChannel, tag: u8| {
        for i in 0..32u8 {
            ch.send(&vec![tag ^ i; 256 * 1024]).unwrap();
        }
        let mut buf = Vec::new();
        for i in 0..32u8 {
            ch.recv_into(&mut buf, 1 << 20).unwrap();
            assert!(buf.iter().all(|&x| x == (tag ^ 0xff) ^ i), "frame {i}");
        }
    };
    std::thread::scope(|s| {
        let h = s.spawn(|| run(&mut a, 0x00));
        run(&mut b, 0xff);
        h.join().unwrap();
    });
}

#[test]
fn memory_send_to_a_dropped_peer_is_closed_not_a_hang() {
    let (a, b) = MemoryChannel::pair();
    let mut a = a
        .with_queue_limit(1024)
        .with_timeout(Duration::from_secs(5));
    a.send(&[1u8; 1024]).unwrap();
    drop(b);
    let t = std::time::Instant::now();
    assert!(matches!(a.send(&[2u8; 1024]), Err(ChannelError::Closed)));
    assert!(t.elapsed() < Duration::from_secs(2));
}

/// Chunks of `T` (`width` bytes each, little-endian blocks) sent with
/// `send` (`send_blocks`, `send_pairs`) arrive as their bytes, interleaved
/// with ordinary frames in order; the caller's vector keeps its length (its
/// contents are the caller's to overwrite). Small chunks (below the
/// direct-write size) and large ones. Returns the addresses of the buffers
/// the caller held after each send.
fn lent_chunks<C: Channel, T>(
    a: &mut C,
    b: &mut C,
    width: usize,
    from_bytes: impl Fn(&[u8]) -> T,
    send: impl Fn(&mut C, &mut Vec<T>) -> Result<(), ChannelError>,
) -> HashSet<usize> {
    let mut held = HashSet::new();
    let mut chunk: Vec<T> = Vec::new();
    let mut buf = Vec::new();
    for i in 0..12 {
        let n = if i % 4 == 3 {
            7
        } else {
            (256 << 10) / width + i
        };
        let want = pattern(i, width * n);
        chunk.clear();
        chunk.extend(want.chunks_exact(width).map(&from_bytes));
        send(a, &mut chunk).unwrap();
        assert_eq!(chunk.len(), n, "chunk {i} keeps its length");
        held.insert(chunk.as_ptr() as usize);
        a.send(&pattern(100 + i, 5)).unwrap();
        a.flush().unwrap();
        b.recv_into(&mut buf, 1 << 20).unwrap();
        assert!(buf == want, "chunk {i}");
        b.recv_into(&mut buf, 1 << 20).unwrap();
        assert!(buf == pattern(100 + i, 5), "frame after chunk {i}");
    }
    held
}

/// A block from 16 little-endian bytes.
fn block_of(x: &[u8]) -> Block {
    Block::from_bytes(x.try_into().unwrap())
}

/// `send_blocks` chunks (see [`lent_chunks`]).
fn block_chunks<C: Channel>(a: &mut C, b: &mut C) -> HashSet<usize> {
    lent_chunks(a, b, 16, block_of, |c: &mut C, v| c.send_blocks(v))
}

#[test]
fn memory_send_blocks_round_trip() {
    let (mut a, mut b) = MemoryChannel::pair();
    block_chunks(&mut a, &mut b);
}

#[test]
fn tcp_send_blocks_hands_over_and_recycles_chunk_buffers() {
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let held = block_chunks(&mut a, &mut b);
    // Large chunks are handed to the writer and a spent chunk comes back:
    // after the first exchanges the same few allocations circulate.
    assert!(held.len() < 8, "{} distinct chunk buffers", held.len());
}

/// `send_pairs` chunks: each pair's first block, then its second (see
/// [`lent_chunks`]).
fn pair_chunks<C: Channel>(a: &mut C, b: &mut C) -> HashSet<usize> {
    let pair = |p: &[u8]| [block_of(&p[..16]), block_of(&p[16..])];
    lent_chunks(a, b, 32, pair, |c: &mut C, v| c.send_pairs(v))
}

#[test]
fn memory_send_pairs_round_trip() {
    let (mut a, mut b) = MemoryChannel::pair();
    pair_chunks(&mut a, &mut b);
}

#[test]
fn tcp_send_pairs_hands_over_and_recycles_chunk_buffers() {
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let held = pair_chunks(&mut a, &mut b);
    assert!(held.len() < 8, "{} distinct chunk buffers", held.len());
    // A chunk far larger than any socket buffer takes at once (32 MiB,
    // nobody reading): its storage goes to the writer, a spare comes back.
    let mut big = vec![[Block::from(3u128), Block::from(4u128)]; 1 << 20];
    let before = big.as_ptr() as usize;
    a.send_pairs(&mut big).unwrap();
    assert_eq!(big.len(), 1 << 20);
    assert_ne!(
        big.as_ptr() as usize,
        before,
        "the chunk was handed over, not copied"
    );
    let got = b.recv(32 << 20).unwrap();
    assert_eq!(got.len(), 32 << 20);
    let pair = [Block::from(3u128).to_bytes(), Block::from(4u128).to_bytes()].concat();
    assert!(got[..32] == pair[..] && got[got.len() - 32..] == pair[..]);
}

/// A chunk lent out of a matrix comes back with the matrix's shape.
#[test]
fn matrix_storage_lent_to_send_blocks_keeps_the_shape() {
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let mut m = BitMatrix::new(128, 16384);
    m.as_blocks_mut()[5] = Block(77);
    m.lend_storage(|v| a.send_blocks(v)).unwrap();
    a.flush().unwrap();
    assert_eq!(
        (m.rows(), m.cols(), m.as_blocks().len()),
        (128, 16384, 128 * 128)
    );
    let got = b.recv(1 << 20).unwrap();
    assert_eq!(&got[80..96], &Block(77).to_bytes());
    // A lender that shrinks the vector still leaves a consistent matrix.
    m.lend_storage(|v| v.truncate(3));
    assert_eq!(m.as_blocks().len(), 128 * 128);
}

/// Loopback connections do not use a pacing congestion control (Reno is
/// always permitted, so the switch cannot fail for lack of privileges) and
/// keep a small send buffer (256 KiB, which the kernel doubles).
#[cfg(target_os = "linux")]
#[test]
fn tcp_loopback_socket_tuning() {
    let (a, b) = local_pair_tcp().unwrap();
    for ch in [a, b] {
        let (cc, sndbuf) = ch.socket_tuning().unwrap();
        assert!(cc.starts_with(b"reno"), "{}", String::from_utf8_lossy(&cc));
        assert!((256 << 10..=512 << 10).contains(&sndbuf), "{sndbuf}");
    }
}

/// Floods `ch` from `raw` while sending on `ch` until a send fails: the
/// failure must be the time-out, within 10 s (reading ahead is not
/// progress). Returns the flooding thread, which ends once `ch` is dropped.
fn flood_until_send_times_out(ch: &mut TcpChannel, mut raw: TcpStream) -> thread::JoinHandle<()> {
    let flood = thread::spawn(move || {
        let junk = vec![0x5a; 1 << 16];
        while raw.write_all(&junk).is_ok() {}
    });
    let start = Instant::now();
    let err = loop {
        if let Err(e) = ch.send(&pattern(0, 1 << 20)) {
            break e;
        }
        assert!(
            start.elapsed() < Duration::from_secs(20),
            "the send never failed"
        );
    };
    assert!(matches!(err, ChannelError::Timeout { .. }), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(10));
    flood
}

/// A peer that floods us and never reads what we send: the send fails with
/// the time-out (reading ahead is not progress), and what we buffered
/// stays within the read-ahead limit.
#[test]
fn tcp_flood_while_not_reading_times_out_with_bounded_read_ahead() {
    let (ch, raw) = raw_peer(Duration::from_millis(400));
    let limit = 4 << 20;
    let mut ch = ch
        .with_write_queue_limit(1 << 20)
        .with_read_ahead_limit(limit);
    let flood = flood_until_send_times_out(&mut ch, raw);
    assert!(
        ch.read_ahead_capacity() <= limit + 2 * (64 << 10),
        "read ahead {} bytes",
        ch.read_ahead_capacity()
    );
    drop(ch);
    flood.join().unwrap();
}

/// The same flood against a channel whose caller announced its next frame
/// (as generated drivers do): the default 1 GiB read-ahead limit is not
/// what bounds it; the buffer stays within the announced frame plus the
/// slack and one read.
#[test]
fn tcp_flood_read_ahead_is_bounded_by_the_announced_frame() {
    let (ch, raw) = raw_peer(Duration::from_millis(400));
    let mut ch = ch.with_write_queue_limit(1 << 20);
    ch.expect_next_frame(Some(1000));
    let flood = flood_until_send_times_out(&mut ch, raw);
    let bound = 1000 + 8 + super::READ_AHEAD_SLACK + 2 * (64 << 10);
    assert!(
        ch.read_ahead_capacity() <= bound,
        "read ahead {} bytes, bound {bound}",
        ch.read_ahead_capacity()
    );
    drop(ch);
    flood.join().unwrap();
}

#[test]
fn read_ahead_cap_follows_the_announcement() {
    use super::{read_ahead_cap, READ_AHEAD_SLACK};
    assert_eq!(read_ahead_cap(1 << 30, None), 1 << 30);
    assert_eq!(read_ahead_cap(1 << 30, Some(0)), 8 + READ_AHEAD_SLACK);
    assert_eq!(read_ahead_cap(1 << 30, Some(100)), 108 + READ_AHEAD_SLACK);
    // Never above the configured limit, and no overflow.
    assert_eq!(read_ahead_cap(4096, Some(1 << 20)), 4096);
    assert_eq!(read_ahead_cap(usize::MAX, Some(usize::MAX)), usize::MAX);
}

/// A peer that sends a valid header, then one byte every 20 ms: the frame
/// fails with `TooSlow` once the time-out plus `len / min_rate` has passed,
/// although no single gap reaches the time-out.
#[test]
fn tcp_trickling_peer_is_too_slow() {
    let (ch, mut raw) = raw_peer(Duration::from_millis(300));
    let mut ch = ch.with_min_rate(1 << 20);
    let trickle = thread::spawn(move || {
        raw.write_all(&(1u64 << 20).to_le_bytes()).unwrap();
        while raw.write_all(&[7]).is_ok() {
            thread::sleep(Duration::from_millis(20));
        }
    });
    let start = Instant::now();
    let mut buf = Vec::new();
    match ch.recv_into(&mut buf, 1 << 20) {
        Err(ChannelError::TooSlow {
            len,
            done,
            after,
            min_rate,
        }) => {
            assert_eq!((len, min_rate), (1 << 20, 1 << 20));
            assert!(done > 0 && done < 1 << 20);
            assert_eq!(after, Duration::from_millis(1300));
        }
        other => panic!("unexpected {other:?}"),
    }
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(1300) && took < Duration::from_secs(5),
        "{took:?}"
    );
    assert!(buf.is_empty());
    drop(ch);
    trickle.join().unwrap();
}

/// The session deadline ends a wait that the time-out would allow, and
/// refuses later operations.
#[test]
fn tcp_session_deadline() {
    let (ch, raw) = raw_peer(Duration::from_secs(30));
    let mut ch = ch.with_deadline(Instant::now() + Duration::from_millis(200));
    let start = Instant::now();
    assert!(matches!(ch.recv(16), Err(ChannelError::DeadlineExceeded)));
    assert!(start.elapsed() < Duration::from_secs(5));
    assert!(matches!(
        ch.send(b"late"),
        Err(ChannelError::DeadlineExceeded)
    ));
    ch.set_deadline(None);
    ch.send(b"on time").unwrap();
    drop(raw);
}

/// Frames received with `recv_into_slice` into a destination larger than
/// each of them: header and payload come in one vectored read, and bytes of
/// the following frames that arrive with it are kept for the next receive.
/// The sizes cross the direct-read threshold both ways; the peer writes
/// everything before the first receive, so the reads do pick up several
/// frames at once.
#[test]
fn tcp_recv_into_slice_keeps_bytes_of_the_next_frames() {
    let sizes = [200 << 10, 5, 64 << 10, 0, 70 << 10, 128 << 10, 3, 1 << 20];
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let sender = thread::spawn(move || {
        for (i, &n) in sizes.iter().enumerate() {
            a.send(&pattern(i, n)).unwrap();
        }
        a.flush().unwrap();
        a
    });
    // Let the frames pile up in the socket first.
    thread::sleep(Duration::from_millis(50));
    let mut out = vec![0xee_u8; 2 << 20];
    for (i, &n) in sizes.iter().enumerate() {
        let len = b.recv_into_slice(&mut out).unwrap();
        assert_eq!(len, n, "frame {i}");
        assert!(out[..len] == pattern(i, n)[..], "frame {i} corrupted");
    }
    assert_eq!(b.stats().bytes_received, sizes.iter().sum::<usize>() as u64);
    drop(sender.join().unwrap());
}

/// An oversized frame read by the vectored path fails as on the plain
/// path, and so does every retry (its header stays first); a frame that
/// fits, sent after it, is not lost.
#[test]
fn tcp_recv_into_slice_oversized_frame() {
    let (mut ch, mut raw) = raw_peer(Duration::from_secs(10));
    let big = pattern(7, 300 << 10);
    let mut bytes = (big.len() as u64).to_le_bytes().to_vec();
    bytes.extend_from_slice(&big);
    raw.write_all(&bytes).unwrap();
    raw.flush().unwrap();
    thread::sleep(Duration::from_millis(20));
    let mut out = vec![0u8; 256 << 10];
    for _ in 0..2 {
        match ch.recv_into_slice(&mut out) {
            Err(ChannelError::Oversized { len, max }) => {
                assert_eq!((len, max), (300 << 10, 256 << 10));
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    // The whole frame is still there for a larger destination.
    let mut larger = vec![0u8; 512 << 10];
    assert_eq!(ch.recv_into_slice(&mut larger).unwrap(), big.len());
    assert!(larger[..big.len()] == big[..]);
}

/// The vectored read's end cases: a peer that closes at a frame boundary
/// gives `Closed`, one that closes inside the header `Truncated`, and a
/// header split across two writes still frames the payload correctly.
#[test]
fn tcp_recv_into_slice_split_and_truncated_headers() {
    let mut out = vec![0u8; 256 << 10];
    let (mut ch, raw) = raw_peer(Duration::from_secs(10));
    drop(raw);
    assert!(matches!(
        ch.recv_into_slice(&mut out),
        Err(ChannelError::Closed)
    ));

    let (mut ch, mut raw) = raw_peer(Duration::from_secs(10));
    raw.write_all(&[1, 2, 3]).unwrap();
    drop(raw);
    match ch.recv_into_slice(&mut out) {
        Err(ChannelError::Truncated { expected, got }) => assert_eq!((expected, got), (8, 3)),
        other => panic!("unexpected {other:?}"),
    }

    let (mut ch, mut raw) = raw_peer(Duration::from_secs(10));
    let payload = pattern(3, 100 << 10);
    let header = (payload.len() as u64).to_le_bytes();
    let writer = thread::spawn(move || {
        raw.write_all(&header[..5]).unwrap();
        raw.flush().unwrap();
        thread::sleep(Duration::from_millis(30));
        raw.write_all(&header[5..]).unwrap();
        raw.write_all(&payload).unwrap();
        raw
    });
    assert_eq!(ch.recv_into_slice(&mut out).unwrap(), 100 << 10);
    assert!(out[..100 << 10] == pattern(3, 100 << 10)[..]);
    drop(writer.join().unwrap());
}

/// Frames larger than the socket takes at once, sent while the peer is not
/// reading: the calling thread writes what fits, the writer thread the
/// rest, and small frames queued after them still arrive after them, every
/// byte intact, whichever send path each frame took.
#[test]
fn tcp_partly_written_frames_stay_in_order() {
    let (mut a, mut b) = local_pair_tcp().unwrap();
    let sizes = [4 << 20, 10, 3 << 20, 100 << 10, 1, 2 << 20];
    let sender = thread::spawn(move || {
        for (i, &n) in sizes.iter().enumerate() {
            let m = pattern(i, n);
            match i % 3 {
                0 => {
                    let mut v = vec![Block::ZERO; n / 16];
                    Block::slice_as_bytes_mut(&mut v).copy_from_slice(&m);
                    a.send_blocks(&mut v).unwrap();
                }
                1 => a.send(&m).unwrap(),
                _ => a.send_vec(m).unwrap(),
            }
        }
        a.flush().unwrap();
        a
    });
    thread::sleep(Duration::from_millis(50));
    let mut buf = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        b.recv_into(&mut buf, 8 << 20).unwrap();
        assert!(buf == pattern(i, n), "frame {i}");
    }
    let a = sender.join().unwrap();
    assert_eq!(a.stats().bytes_sent, sizes.iter().sum::<usize>() as u64);
}

/// An abort notice arrives after the frames sent before it, over memory and
/// TCP, and is not counted as payload.
#[test]
fn notices_follow_earlier_frames() {
    let notice = AbortNotice::new("round", "why", &[2]);
    let check = |a: &mut dyn Channel, b: &mut dyn Channel| {
        a.send(b"before").unwrap();
        a.send_notice(&notice).unwrap();
        a.flush().unwrap();
        assert_eq!(b.recv(16).unwrap(), b"before");
        match b.recv(16) {
            Err(ChannelError::PeerAborted(n)) => assert_eq!(n, notice),
            other => panic!("{other:?}"),
        }
        assert_eq!(a.stats().bytes_sent, 6);
    };
    let (mut a, mut b) = MemoryChannel::pair();
    check(&mut a, &mut b);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    check(&mut a, &mut b);
}

/// A TCP frame marked as a notice whose body is not one, or that is longer
/// than a notice can be, is a typed error.
#[test]
fn malformed_tcp_notices_are_refused() {
    for (len, body) in [(3u64, vec![9u8, 0, 0]), (1 << 20, vec![])] {
        let (mut chan, mut raw) = raw_peer(Duration::from_secs(5));
        raw.write_all(&(len | notice::NOTICE_BIT).to_le_bytes())
            .unwrap();
        raw.write_all(&body).unwrap();
        match chan.recv(16) {
            Err(ChannelError::BadNotice { .. }) => {}
            other => panic!("{other:?}"),
        }
    }
}
