//! Unit tests of the channel mesh over memory links.

use std::time::Duration;

use super::*;
use crate::transport::channel::ChannelError;

fn hello() -> Hello {
    Hello {
        protocol: "Test".into(),
        spec_hash: [1; 32],
        params: vec![4, 2],
        session: [5; 16],
    }
}

#[test]
fn memory_mesh_exchanges_all_to_all() {
    for n in [1, 2, 3, 5] {
        let got = run_parties(MemoryMesh::new(n), |m| {
            handshake(m, &hello())?;
            let me = m.me();
            for j in (0..n).filter(|&j| j != me) {
                m.send_to(j, &[me as u8, j as u8])?;
            }
            let mut buf = Vec::new();
            let mut seen = vec![];
            for j in (0..n).filter(|&j| j != me) {
                m.recv_from(j, &mut buf, 2)?;
                seen.push(buf.clone());
            }
            Ok::<_, MeshError>(seen)
        });
        for (i, r) in got.into_iter().enumerate() {
            let want: Vec<Vec<u8>> = (0..n)
                .filter(|&j| j != i)
                .map(|j| vec![j as u8, i as u8])
                .collect();
            assert_eq!(r.unwrap(), want);
        }
    }
}

#[test]
fn recv_any_returns_each_peer_once_then_recv_from_takes_the_rest() {
    let res = run_parties(MemoryMesh::new(4), |m| {
        let me = m.me();
        let others: Vec<usize> = (0..4).filter(|&j| j != me).collect();
        for round in 0..3u8 {
            for &j in &others {
                m.send_vec_to(j, vec![round, me as u8])?;
            }
            let mut left = others.clone();
            let mut buf = Vec::new();
            // Half by arrival order, the rest by index.
            let p = m.recv_any(&left, &mut buf, 8)?;
            assert_eq!(buf, [round, p as u8]);
            left.retain(|&j| j != p);
            for &j in &left {
                m.recv_from(j, &mut buf, 8)?;
                assert_eq!(buf, [round, j as u8]);
            }
        }
        Ok::<_, MeshError>(m.stats((me + 1) % 4))
    });
    for s in res {
        let s = s.unwrap();
        assert_eq!((s.messages_sent, s.messages_received), (3, 3));
        assert_eq!((s.bytes_sent, s.bytes_received), (6, 6));
    }
}

#[test]
fn pending_frame_is_checked_against_the_new_max_len() {
    let mut ms = MemoryMesh::new(3);
    let mut m0 = ms.remove(0);
    // The frames come after `recv_any` started, so both links' reader
    // threads receive one: the one not returned stays pending.
    let senders = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(50));
        ms[0].send_to(0, &[1; 10]).unwrap();
        ms[1].send_to(0, &[2; 10]).unwrap();
        ms
    });
    let mut buf = Vec::new();
    let first = m0.recv_any(&[1, 2], &mut buf, 16).unwrap();
    let other = 3 - first;
    let _ms = senders.join().unwrap();
    // Wait until the other link's reader thread has its frame in.
    std::thread::sleep(Duration::from_millis(50));
    let err = m0.recv_from(other, &mut buf, 2).unwrap_err();
    assert_eq!(err.peer(), Some(other));
    assert!(
        matches!(
            err,
            MeshError::Peer {
                source: ChannelError::Oversized { len: 10, max: 2 },
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn hang_up_and_time_out_name_the_peer() {
    let mut ms: Vec<_> = MemoryMesh::new(3)
        .into_iter()
        .map(|m| m.with_timeout(Duration::from_millis(100)))
        .collect();
    let m2 = ms.pop().unwrap();
    drop(m2);
    // A send to the hung-up peer is not an error (nor counted); the next
    // receive from it is.
    ms[0].send_to(2, b"lost").unwrap();
    ms[0].send_vec_to(2, b"lost".to_vec()).unwrap();
    assert_eq!(ms[0].stats(2).messages_sent, 0);
    let mut buf = Vec::new();
    let err = ms[0].recv_any(&[1, 2], &mut buf, 8).unwrap_err();
    assert_eq!(err.peer(), Some(2));
    assert!(
        matches!(
            err,
            MeshError::Peer {
                source: ChannelError::Closed,
                ..
            }
        ),
        "{err:?}"
    );
    let err = ms[0].recv_from(1, &mut buf, 8).unwrap_err();
    assert_eq!(err.peer(), Some(1));
    assert!(
        matches!(
            err,
            MeshError::Peer {
                source: ChannelError::Timeout { .. },
                ..
            }
        ),
        "{err:?}"
    );
    assert_eq!(err.peer(), Some(1));
}

#[test]
fn bad_peer_indices_are_setup_errors() {
    let mut m = MemoryMesh::new(2).remove(0);
    let mut buf = Vec::new();
    for err in [
        m.send_to(0, b"x").unwrap_err(),
        m.send_to(2, b"x").unwrap_err(),
        m.recv_from(7, &mut buf, 1).unwrap_err(),
        m.recv_any(&[], &mut buf, 1).unwrap_err(),
    ] {
        assert!(matches!(err, MeshError::Setup { .. }), "{err:?}");
    }
}

#[test]
fn tamper_mesh_rewrites_per_peer() {
    let mut ms = MemoryMesh::new(3);
    let m2 = ms.pop().unwrap();
    let m1 = ms.pop().unwrap();
    let m0 = ms.pop().unwrap();
    let mut t = TamperMesh::new(m0, |to, i, f: &mut Vec<u8>| {
        if to == 2 && i == 1 {
            f[0] ^= 0xff;
        }
    });
    for _ in 0..2 {
        t.send_to(1, &[7]).unwrap();
        t.send_to(2, &[7]).unwrap();
    }
    let mut buf = Vec::new();
    for (mut m, want) in [(m1, [7, 7]), (m2, [7, 0xf8])] {
        for w in want {
            m.recv_from(0, &mut buf, 1).unwrap();
            assert_eq!(buf, [w]);
        }
    }
    assert_eq!(t.stats(2).bytes_sent, 2);
}

#[test]
fn a_peer_that_aborts_first_does_not_hide_its_mismatch() {
    // Party 2 may finish (refusing party 0) before party 1 sends its hello:
    // party 1 must still report party 2's hello, not the hang-up.
    for _ in 0..100 {
        let res = run_parties(MemoryMesh::new(3), |m| {
            let mut h = hello();
            if m.me() == 2 {
                h.session[0] ^= 1;
            }
            handshake(m, &h)
        });
        for (me, peer) in [(0, 2), (1, 2), (2, 0)] {
            assert!(
                matches!(res[me], Err(MeshError::Mismatch { peer: p, field: HelloField::Session }) if p == peer),
                "{res:?}"
            );
        }
    }
}

#[test]
fn shaped_channels_make_a_mesh() {
    use crate::transport::channel::{MemoryChannel, ShapedChannel};
    let (a, b) = MemoryChannel::pair();
    let shape = |c| Some(ShapedChannel::new(c, Duration::from_millis(5), None));
    let t = Duration::from_secs(5);
    let meshes = vec![
        ChannelMesh::from_channels(0, vec![None, shape(a)], t).unwrap(),
        ChannelMesh::from_channels(1, vec![shape(b), None], t).unwrap(),
    ];
    let got = run_parties(meshes, |m| {
        let peer = 1 - m.me();
        m.send_to(peer, &[m.me() as u8]).unwrap();
        let mut buf = Vec::new();
        m.recv_any(&[peer], &mut buf, 1).unwrap();
        buf[0]
    });
    assert_eq!(got, [1, 0]);
}

/// A peer that floods one link of a TCP mesh and never reads what we send
/// (issue 15, item 1): our flush fails with the time-out, and what the
/// link read ahead meanwhile stays within the frame announced for it
/// ([`Mesh::expect_next_frame`], through [`announce_reads`] as generated
/// drivers call it) plus the slack and one socket read; without the
/// announcement, the link's configured read-ahead limit is what bounds it.
#[test]
fn tcp_mesh_flood_read_ahead_is_bounded_by_the_announced_frame() {
    use crate::transport::channel::{TcpChannel, READ_AHEAD_SLACK};
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::time::Instant;

    let announced = 1000;
    let bound = announced + 8 + READ_AHEAD_SLACK + 2 * (64 << 10);
    let flooded = |announce: bool| -> usize {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let mut raw = TcpStream::connect(listener.local_addr().unwrap()).unwrap();
        let timeout = Duration::from_millis(400);
        let ch = TcpChannel::accept(&listener, timeout)
            .unwrap()
            .with_write_queue_limit(1 << 20)
            .with_read_ahead_limit(8 << 20);
        let mut mesh = ChannelMesh::from_channels(0, vec![None, Some(ch)], timeout).unwrap();
        if announce {
            announce_reads(&mut mesh, &[(vec![1], announced)]);
        }
        let flood = std::thread::spawn(move || {
            let junk = vec![0x5a; 1 << 16];
            while raw.write_all(&junk).is_ok() {}
        });
        let start = Instant::now();
        let frame = vec![7u8; 1 << 20];
        let err = loop {
            if let Err(e) = mesh.send_to(1, &frame).and_then(|()| mesh.flush()) {
                break e;
            }
            assert!(start.elapsed() < Duration::from_secs(20), "never failed");
        };
        assert!(
            matches!(
                err,
                MeshError::Peer {
                    peer: 1,
                    source: ChannelError::Timeout { .. }
                }
            ),
            "{err:?}"
        );
        let held = mesh.read_ahead_of(1);
        drop(mesh);
        flood.join().unwrap();
        held
    };
    let with = flooded(true);
    assert!(with <= bound, "read ahead {with} bytes, bound {bound}");
    let without = flooded(false);
    assert!(
        without > bound,
        "without an announcement only the configured limit bounds the read-ahead ({without} bytes)"
    );
}
