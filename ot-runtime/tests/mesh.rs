//! Party meshes end to end: all-to-all and broadcast rounds for n = 2, 3,
//! 5, 9 over the in-memory and the TCP mesh, the session handshake, the TCP
//! transport hello, and every link failure named by its peer.

use std::io::Write;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use ot_runtime::transport::channel::ChannelError;
use ot_runtime::transport::mesh::{
    handshake, local_tcp_mesh, run_parties, Hello, HelloField, MemoryMesh, Mesh, MeshError,
    TamperMesh, TcpMesh,
};

const SIZES: [usize; 4] = [2, 3, 5, 9];
const ROUNDS: usize = 3;
const SHORT: Duration = Duration::from_millis(300);

fn hello() -> Hello {
    Hello {
        protocol: "MeshTest".into(),
        spec_hash: [0x5a; 32],
        params: vec![1, 0, 0, 0],
        session: [0x11; 16],
    }
}

fn tcp(n: usize) -> Vec<TcpMesh> {
    local_tcp_mesh(n).expect("local TCP mesh")
}

/// The 8-byte value party `from` sends party `to` in all-to-all round `r`.
fn value(r: usize, from: usize, to: usize) -> [u8; 8] {
    (((r * 100 + from) * 100 + to) as u64).to_le_bytes()
}

/// Per party: handshake, then for each round an all-to-all exchange (read
/// in arrival order) followed by a broadcast from party `r % n`. Returns
/// the stats of every link after checking every received frame.
fn exchange_rounds<M: Mesh>(m: &mut M) -> Result<Vec<ot_runtime::ChannelStats>, MeshError> {
    handshake(m, &hello())?;
    let (me, n) = (m.me(), m.parties());
    let others: Vec<usize> = (0..n).filter(|&j| j != me).collect();
    let mut buf = Vec::new();
    for r in 0..ROUNDS {
        for &j in &others {
            m.send_to(j, &value(r, me, j))?;
        }
        let mut left = others.clone();
        while !left.is_empty() {
            let from = m.recv_any(&left, &mut buf, 8)?;
            assert!(left.contains(&from));
            left.retain(|&j| j != from);
            assert_eq!(buf, value(r, from, me), "round {r}, at {me} from {from}");
        }
        let root = r % n;
        let msg = vec![r as u8; 100 + r];
        if me == root {
            for &j in &others {
                m.send_vec_to(j, msg.clone())?;
            }
            m.flush()?;
        } else {
            m.recv_from(root, &mut buf, 1024)?;
            assert_eq!(buf, msg);
        }
    }
    Ok((0..n).map(|j| m.stats(j)).collect())
}

/// Checks the results of [`exchange_rounds`]: per-peer byte and frame
/// counts as the rounds predict (including the hello frames).
fn check_stats(n: usize, results: Vec<Result<Vec<ot_runtime::ChannelStats>, MeshError>>) {
    for (me, res) in results.into_iter().enumerate() {
        let stats = res.unwrap_or_else(|e| panic!("n = {n}, party {me}: {e}"));
        // Hello frame: magic, n, index, name length, spec hash, params
        // length and session (70 bytes) plus name and parameters.
        let h = hello();
        let hello_len = (70 + h.protocol.len() + h.params.len()) as u64;
        for (j, s) in stats.iter().enumerate() {
            if j == me {
                assert_eq!(*s, Default::default());
                continue;
            }
            let bcast = |root: usize| -> (u64, u64) {
                let rs: Vec<usize> = (0..ROUNDS).filter(|r| r % n == root).collect();
                (rs.len() as u64, rs.iter().map(|&r| 100 + r as u64).sum())
            };
            let (sent_frames, sent_bytes) = bcast(me);
            let (recv_frames, recv_bytes) = bcast(j);
            let rounds = ROUNDS as u64;
            assert_eq!(
                s.messages_sent,
                1 + rounds + sent_frames,
                "n = {n}, {me} -> {j}"
            );
            assert_eq!(
                s.messages_received,
                1 + rounds + recv_frames,
                "n = {n}, {me} <- {j}"
            );
            assert_eq!(s.bytes_sent, hello_len + 8 * rounds + sent_bytes);
            assert_eq!(s.bytes_received, hello_len + 8 * rounds + recv_bytes);
        }
    }
}

#[test]
fn memory_mesh_all_to_all_and_broadcast() {
    for n in SIZES {
        check_stats(n, run_parties(MemoryMesh::new(n), exchange_rounds));
    }
}

#[test]
fn tcp_mesh_all_to_all_and_broadcast() {
    for n in SIZES {
        check_stats(n, run_parties(tcp(n), exchange_rounds));
    }
}

/// Party `n - 1` sends its frame of a round late; `recv_any` at party 0
/// returns the others first.
fn arrival_order<M: Mesh + Send>(meshes: Vec<M>) {
    let n = meshes.len();
    let order = run_parties(meshes, |m| {
        let me = m.me();
        if me == n - 1 {
            thread::sleep(SHORT);
        }
        if me != 0 {
            m.send_to(0, &[me as u8])?;
            return Ok(vec![]);
        }
        let mut left: Vec<usize> = (1..n).collect();
        let mut order = vec![];
        let mut buf = Vec::new();
        while !left.is_empty() {
            let p = m.recv_any(&left, &mut buf, 1)?;
            assert_eq!(buf, [p as u8]);
            left.retain(|&j| j != p);
            order.push(p);
        }
        Ok::<_, MeshError>(order)
    });
    let order = order.into_iter().next().unwrap().unwrap();
    assert_eq!(order.last(), Some(&(n - 1)), "{order:?}");
}

#[test]
fn recv_any_follows_arrival_order() {
    arrival_order(MemoryMesh::new(4));
    arrival_order(tcp(4));
}

/// Changes a party's hello, or sets bytes (where non-zero) of its hello
/// frame from offset 8 on (party count, then party index).
type Alter = fn(&mut Vec<u8>, &mut Hello);

/// Party 2 of 3 sends `alter`ed hellos: parties 0 and 1 must refuse it
/// with `field`, party 2 must refuse party 0.
fn refuse_hello<M: Mesh + Send>(
    meshes: Vec<M>,
    field: HelloField,
    alter: fn(&mut Vec<u8>, &mut Hello),
) {
    let res = run_parties(meshes, |m| {
        let mut h = hello();
        if m.me() == 2 {
            let mut frame_edit = Vec::new();
            alter(&mut frame_edit, &mut h);
            // Wire layout of the hello frame: magic (8), n (u32), index (u32), ...
            let mut t = TamperMesh::new(&mut *m, |_, i, f: &mut Vec<u8>| {
                if i == 0 {
                    for (k, b) in frame_edit.iter().enumerate() {
                        if *b != 0 {
                            f[8 + k] = *b;
                        }
                    }
                }
            });
            return handshake(&mut t, &h);
        }
        handshake(m, &h)
    });
    let hello_altered = {
        let mut h = hello();
        alter(&mut Vec::new(), &mut h);
        h != hello()
    };
    for (me, r) in res.into_iter().enumerate() {
        // Only a party whose own hello differs sees a mismatch in return.
        if me == 2 && !hello_altered {
            continue;
        }
        let want_peer = if me == 2 { 0 } else { 2 };
        match r {
            Err(MeshError::Mismatch { peer, field: f }) => {
                assert_eq!((peer, f), (want_peer, field), "party {me}")
            }
            other => panic!(
                "{}: party {me}: expected a {field:?} mismatch, got {other:?}",
                std::any::type_name::<M>()
            ),
        }
    }
}

#[test]
fn handshake_refuses_each_differing_field_naming_the_peer() {
    let cases: [(HelloField, Alter); 6] = [
        (HelloField::Protocol, |_, h| h.protocol = "Other".into()),
        (HelloField::SpecHash, |_, h| h.spec_hash[7] ^= 1),
        (HelloField::Params, |_, h| h.params.push(0)),
        (HelloField::Session, |_, h| h.session[0] ^= 1),
        // n = 4 instead of 3.
        (HelloField::PartyCount, |f, _| *f = vec![4]),
        // Index 1 instead of 2: a duplicate.
        (HelloField::PartyIndex, |f, _| *f = vec![0, 0, 0, 0, 1]),
    ];
    for (field, alter) in cases {
        refuse_hello(MemoryMesh::new(3), field, alter);
        refuse_hello(tcp(3), field, alter);
    }
}

/// The channel error of a [`MeshError::Peer`] naming `peer`.
fn peer_error(err: &MeshError, peer: usize) -> &ChannelError {
    match err {
        MeshError::Peer { peer: p, source } if *p == peer => source,
        other => panic!("expected a link error naming party {peer}, got {other}"),
    }
}

/// Binds `n` loopback listeners; returns them with their addresses.
fn listeners(n: usize) -> (Vec<TcpListener>, Vec<SocketAddr>) {
    let ls: Vec<TcpListener> = (0..n)
        .map(|_| TcpListener::bind(("127.0.0.1", 0)).unwrap())
        .collect();
    let addrs = ls.iter().map(|l| l.local_addr().unwrap()).collect();
    (ls, addrs)
}

#[test]
fn tcp_refuses_another_party_count() {
    let (mut ls, addrs) = listeners(3);
    let (l1, l0) = (ls.remove(1), ls.remove(0));
    // Party 1 believes in 4 parties.
    let mut wrong = addrs.clone();
    wrong.push(addrs[2]);
    let rogue =
        thread::spawn(move || TcpMesh::connect_with_listener(1, l1, &wrong, SHORT).map(drop));
    let err = TcpMesh::connect_with_listener(0, l0, &addrs, SHORT * 10).unwrap_err();
    assert!(
        matches!(
            err,
            MeshError::Mismatch {
                peer: 1,
                field: HelloField::PartyCount
            }
        ),
        "{err}"
    );
    let err = rogue.join().unwrap().unwrap_err();
    assert!(
        matches!(
            err,
            MeshError::Mismatch {
                peer: 0,
                field: HelloField::PartyCount
            }
        ),
        "{err}"
    );
}

#[test]
fn tcp_refuses_a_duplicate_index() {
    let (mut ls, addrs) = listeners(4);
    let l0 = ls.remove(0);
    // Two processes both configured as party 1 (with their own listeners).
    let rogues: Vec<_> = [ls.remove(0), ls.remove(0)]
        .into_iter()
        .map(|l| {
            let addrs = addrs[..3].to_vec();
            thread::spawn(move || TcpMesh::connect_with_listener(1, l, &addrs, SHORT).map(drop))
        })
        .collect();
    let err = TcpMesh::connect_with_listener(0, l0, &addrs[..3], SHORT * 10).unwrap_err();
    assert!(
        matches!(err, MeshError::Setup { peer: Some(1), .. }),
        "{err}"
    );
    assert!(err.to_string().contains("duplicate"), "{err}");
    for r in rogues {
        assert!(r.join().unwrap().is_err());
    }
}

/// A hand-made peer: connects to `addr`, sends `bytes` (e.g. a forged
/// transport hello and frames) and keeps the connection for `hold`.
fn raw_peer(addr: SocketAddr, bytes: Vec<u8>, hold: Duration) -> thread::JoinHandle<()> {
    thread::spawn(move || {
        let mut s = TcpStream::connect(addr).unwrap();
        s.write_all(&bytes).unwrap();
        thread::sleep(hold);
    })
}

/// A transport hello claiming index `me` of `n`.
fn transport_hello(me: u32, n: u32) -> Vec<u8> {
    let mut v = b"OTPMESH1".to_vec();
    v.extend_from_slice(&me.to_le_bytes());
    v.extend_from_slice(&n.to_le_bytes());
    v
}

#[test]
fn tcp_refuses_out_of_range_index_and_non_mesh_peers() {
    for (bytes, what) in [
        (transport_hello(7, 3), "out of range"),
        (b"GET / HTTP/1.1\r\n".to_vec(), "not a mesh peer"),
    ] {
        let (mut ls, addrs) = listeners(3);
        let peer = raw_peer(addrs[0], bytes, SHORT);
        let err = TcpMesh::connect_with_listener(0, ls.remove(0), &addrs, SHORT * 10).unwrap_err();
        assert!(matches!(err, MeshError::Setup { .. }), "{err}");
        assert!(err.to_string().contains(what), "{err}");
        peer.join().unwrap();
    }
}

/// Party 0 of 2 with a hand-made party 1 that sends `frames` after a valid
/// transport hello, then hangs up; returns party 0's error on receiving.
fn link_failure(frames: &[u8], hold: Duration) -> MeshError {
    let (mut ls, addrs) = listeners(2);
    let mut bytes = transport_hello(1, 2);
    bytes.extend_from_slice(frames);
    let peer = raw_peer(addrs[0], bytes, hold);
    let mut m = TcpMesh::connect_with_listener(0, ls.remove(0), &addrs, SHORT).unwrap();
    let mut buf = Vec::new();
    let err = m.recv_from(1, &mut buf, 64).unwrap_err();
    peer.join().unwrap();
    err
}

#[test]
fn tcp_link_failures_name_the_peer() {
    let mut frame = 100u64.to_le_bytes().to_vec();
    frame.extend_from_slice(&[0; 10]);
    let err = link_failure(&frame, Duration::ZERO);
    assert!(
        matches!(
            peer_error(&err, 1),
            ChannelError::Oversized { len: 100, max: 64 }
        ),
        "{err}"
    );
    let mut frame = 50u64.to_le_bytes().to_vec();
    frame.extend_from_slice(&[0; 10]);
    let err = link_failure(&frame, Duration::ZERO);
    assert!(
        matches!(
            peer_error(&err, 1),
            ChannelError::Truncated {
                expected: 50,
                got: 10
            }
        ),
        "{err}"
    );
    let err = link_failure(&[], Duration::ZERO);
    assert!(matches!(peer_error(&err, 1), ChannelError::Closed), "{err}");
    let err = link_failure(&[], SHORT * 3);
    assert!(
        matches!(peer_error(&err, 1), ChannelError::Timeout { .. }),
        "{err}"
    );
}

/// Party `n - 1` sends its frame of a round to party 0 only and hangs up:
/// every other party gets `Closed` naming it, party 0 gets the frame and
/// then `Closed`.
fn hang_up_mid_round<M: Mesh + Send>(meshes: Vec<M>) {
    let n = meshes.len();
    let quitter = n - 1;
    let res = run_parties(meshes, |m| {
        let me = m.me();
        if me == quitter {
            m.send_to(0, b"last words")?;
            m.flush()?;
            return Ok(());
        }
        let mut buf = Vec::new();
        if me == 0 {
            m.recv_from(quitter, &mut buf, 64)?;
            assert_eq!(buf, b"last words");
        }
        let others: Vec<usize> = (0..n).filter(|&j| j != me).collect();
        for &j in others.iter().filter(|&&j| j != quitter) {
            m.send_to(j, b"hi")?;
        }
        // Arrival order: the honest peers' frames and the hang-up.
        let mut left = others;
        while !left.is_empty() {
            let p = m.recv_any(&left, &mut buf, 64)?;
            left.retain(|&j| j != p);
        }
        Ok::<_, MeshError>(())
    });
    for (me, r) in res.into_iter().enumerate() {
        if me == quitter {
            r.unwrap();
        } else {
            let err = r.unwrap_err();
            assert!(
                matches!(err, MeshError::Peer { peer, source: ChannelError::Closed } if peer == quitter),
                "party {me}: {err}"
            );
        }
    }
}

#[test]
fn peer_hang_up_mid_round_names_the_peer() {
    for n in [2, 3, 5] {
        hang_up_mid_round(MemoryMesh::new(n));
        hang_up_mid_round(tcp(n));
    }
}

/// Party 0 drops its mesh while `recv_any` left a read in progress on the
/// link to party 2: party 2 sees the hang-up at once (not a time-out).
fn drop_with_read_in_progress<M: Mesh + Send>(mut meshes: Vec<M>) {
    let mut m2 = meshes.pop().unwrap();
    let mut m1 = meshes.pop().unwrap();
    let mut m0 = meshes.pop().unwrap();
    m1.send_to(0, b"x").unwrap();
    let mut buf = Vec::new();
    assert_eq!(m0.recv_any(&[1, 2], &mut buf, 8).unwrap(), 1);
    drop(m0);
    let err = m2.recv_from(0, &mut buf, 8).unwrap_err();
    assert!(matches!(peer_error(&err, 0), ChannelError::Closed), "{err}");
}

#[test]
fn dropping_a_mesh_releases_links_being_read() {
    drop_with_read_in_progress(MemoryMesh::new(3));
    drop_with_read_in_progress(tcp(3));
}

#[test]
fn oversized_frames_name_the_peer() {
    for meshes in [
        MemoryMesh::new(3)
            .into_iter()
            .map(|m| Box::new(m) as Box<dyn Mesh + Send>)
            .collect::<Vec<_>>(),
        tcp(3)
            .into_iter()
            .map(|m| Box::new(m) as Box<dyn Mesh + Send>)
            .collect(),
    ] {
        let res = run_parties(meshes, |m| {
            let me = m.me();
            if me != 0 {
                m.send_to(0, &vec![me as u8; 10 * me])?;
                return Ok(vec![]);
            }
            let mut buf = Vec::new();
            let mut errs = vec![];
            for j in [1, 2] {
                errs.push(m.recv_from(j, &mut buf, 15).err().map(|e| e.peer()));
            }
            Ok::<_, MeshError>(errs)
        });
        assert_eq!(res[0].as_ref().unwrap(), &[None, Some(Some(2))]);
    }
}

/// Party 0 broadcasts through a [`TamperMesh`] that changes the frame for
/// the last party only: an equivocation, as the checked-broadcast tests of
/// the protocols use it. Every receiver gets its own version, and the
/// counters show what was actually sent.
fn equivocate<M: Mesh + Send>(meshes: Vec<M>) {
    let n = meshes.len();
    let got = run_parties(meshes, |m| {
        let mut buf = Vec::new();
        if m.me() == 0 {
            let mut t = TamperMesh::new(&mut *m, |to, i, f: &mut Vec<u8>| {
                if to == n - 1 && i == 0 {
                    f.push(0xee);
                }
            });
            for j in 1..n {
                t.send_to(j, b"value")?;
            }
            assert_eq!(t.stats(n - 1).bytes_sent, 6);
            assert_eq!(t.stats(1).bytes_sent, 5);
        } else {
            m.recv_from(0, &mut buf, 16)?;
        }
        Ok::<_, MeshError>(buf)
    });
    for (me, r) in got.into_iter().enumerate().skip(1) {
        let want: &[u8] = if me == n - 1 { b"value\xee" } else { b"value" };
        assert_eq!(r.unwrap(), want, "party {me}");
    }
}

#[test]
fn tamper_mesh_equivocates_per_peer() {
    equivocate(MemoryMesh::new(3));
    equivocate(tcp(3));
}

/// Every party sends 4 MiB to every other before reading any: far more
/// than socket buffers hold, so this deadlocks unless sends never wait for
/// the peer to read.
fn bulk_round<M: Mesh + Send>(meshes: Vec<M>) {
    const LEN: usize = 4 << 20;
    let res = run_parties(meshes, |m| {
        let (me, n) = (m.me(), m.parties());
        let others: Vec<usize> = (0..n).filter(|&j| j != me).collect();
        for &j in &others {
            m.send_vec_to(j, vec![(me * 16 + j) as u8; LEN])?;
        }
        let mut left = others;
        let mut buf = Vec::new();
        while !left.is_empty() {
            let p = m.recv_any(&left, &mut buf, LEN)?;
            left.retain(|&j| j != p);
            assert!(buf.len() == LEN && buf.iter().all(|&b| b == (p * 16 + me) as u8));
        }
        Ok::<_, MeshError>(())
    });
    for r in res {
        r.unwrap();
    }
}

#[test]
fn bulk_rounds_do_not_deadlock() {
    bulk_round(MemoryMesh::new(5));
    bulk_round(tcp(5));
}
