//! `TlsChannel`: frames over TLS 1.3 with mutual certificate authentication.
#![cfg(feature = "tls")]

use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

use ot_runtime::transport::channel::TestPki;
use ot_runtime::transport::channel::{
    Channel, ChannelError, TcpChannel, TlsChannel, TlsHandshake, TlsIdentity, TlsSetupError,
    TlsTrust,
};

/// A party's certificate and key, in PEM.
type PemPair = (String, String);

/// A CA and certificates for the given party names: (CA PEM, [(cert PEM, key PEM)]).
fn pki(names: &[&str]) -> (String, Vec<PemPair>) {
    let pki = TestPki::generate(names).unwrap();
    let parties = pki.parties.into_iter().map(|(_, c, k)| (c, k)).collect();
    (pki.ca_pem, parties)
}

fn identity(p: &PemPair) -> TlsIdentity {
    TlsIdentity::from_pem(p.0.as_bytes(), p.1.as_bytes()).unwrap()
}

const T: Duration = Duration::from_secs(10);

/// A connected pair: `a` listens (certificate "party-a"), `b` connects.
fn pair() -> (TlsChannel, TlsChannel) {
    ot_runtime::transport::channel::local_pair_tls(T).unwrap()
}

fn pattern(seed: usize, len: usize) -> Vec<u8> {
    (0..len)
        .map(|i| (i.wrapping_mul(31) ^ seed) as u8)
        .collect()
}

#[test]
fn frames_round_trip_both_ways() {
    let (mut a, mut b) = pair();
    let sizes = [0, 1, 7, 8, 16 * 1024 - 3, 16 * 1024, 100_000, 4 << 20];
    for (i, &n) in sizes.iter().enumerate() {
        a.send(&pattern(i, n)).unwrap();
        b.send(&pattern(i + 100, n)).unwrap();
    }
    let mut buf = Vec::new();
    for (i, &n) in sizes.iter().enumerate() {
        b.recv_into(&mut buf, 4 << 20).unwrap();
        assert_eq!(buf, pattern(i, n));
        a.recv_into(&mut buf, 4 << 20).unwrap();
        assert_eq!(buf, pattern(i + 100, n));
    }
    assert_eq!(a.stats().bytes_sent, sizes.iter().sum::<usize>() as u64);
    assert_eq!(b.stats().bytes_received, a.stats().bytes_sent);
}

#[test]
fn both_sending_much_before_receiving_do_not_deadlock() {
    let (mut a, mut b) = pair();
    let chunk = pattern(3, 1 << 20);
    let total = 96;
    let h = thread::spawn(move || {
        for _ in 0..total {
            b.send(&chunk).unwrap();
        }
        let mut buf = Vec::new();
        for _ in 0..total {
            b.recv_into(&mut buf, 1 << 20).unwrap();
        }
        b
    });
    let chunk = pattern(3, 1 << 20);
    for _ in 0..total {
        a.send(&chunk).unwrap();
    }
    let mut buf = Vec::new();
    for _ in 0..total {
        a.recv_into(&mut buf, 1 << 20).unwrap();
        assert_eq!(buf, chunk);
    }
    drop(h.join().unwrap());
}

#[test]
fn oversized_frame_and_hangup_are_typed() {
    let (mut a, mut b) = pair();
    a.send(&[1; 1000]).unwrap();
    assert!(matches!(
        b.recv(999),
        Err(ChannelError::Oversized {
            len: 1000,
            max: 999
        })
    ));
    let (mut a, mut b) = pair();
    a.send(b"last").unwrap();
    drop(a);
    assert_eq!(b.recv(16).unwrap(), b"last");
    assert!(matches!(b.recv(16), Err(ChannelError::Closed)));
}

/// Sending to a peer that hung up is `Closed` (as on a TCP channel), not
/// an I/O error: a mesh counts such a frame as lost and reports what the
/// peer's link delivers instead, e.g. the abort notice it sent first.
#[test]
fn send_to_a_peer_that_hung_up_is_closed() {
    // A dropped channel reads what its peer still sends for its time-out,
    // then closes its socket: a short one here.
    let (mut a, b) =
        ot_runtime::transport::channel::local_pair_tls(Duration::from_millis(200)).unwrap();
    drop(b);
    let frame = [7u8; 64 * 1024];
    let until = std::time::Instant::now() + Duration::from_secs(5);
    let err = loop {
        let res = a.send(&frame).and_then(|()| a.flush());
        match res {
            Ok(()) if std::time::Instant::now() < until => thread::sleep(Duration::from_millis(5)),
            Ok(()) => panic!("sends to a dropped peer kept succeeding"),
            Err(e) => break e,
        }
    };
    assert!(matches!(err, ChannelError::Closed), "{err:?}");
}

/// A dropped channel hangs up gracefully: frames it sent arrive even when
/// the peer reads them only after sending to it more than it read (a socket
/// closed with unread bytes would reset the link and drop them).
#[test]
fn frames_sent_before_a_drop_survive_the_peers_late_sends() {
    let (mut a, mut b) = pair();
    // Holds b's reader after about READ_AHEAD_SLACK bytes, so a's last
    // frame waits in the sockets' buffers rather than in b's plaintext.
    b.expect_next_frame(Some(16));
    a.send(&[1; 16]).unwrap();
    a.send(&pattern(5, 512 << 10)).unwrap();
    a.send(b"last").unwrap();
    a.flush().unwrap();
    drop(a);
    for _ in 0..8 {
        let _ = b.send(&[9; 64 << 10]);
    }
    thread::sleep(Duration::from_millis(300));
    assert_eq!(b.recv(16).unwrap(), [1; 16]);
    b.expect_next_frame(None);
    assert_eq!(b.recv(1 << 20).unwrap(), pattern(5, 512 << 10));
    assert_eq!(b.recv(16).unwrap(), b"last");
    assert!(matches!(b.recv(16), Err(ChannelError::Closed)));
}

#[test]
fn silent_peer_times_out() {
    let (a, b) = pair();
    let mut b = b.with_timeout(Duration::from_millis(200));
    assert!(matches!(b.recv(16), Err(ChannelError::Timeout { .. })));
    drop(a);
}

/// A listener whose certificate comes from another CA, or names another
/// party, is refused by the connecting party; a client certificate from
/// another CA is refused by the listener.
#[test]
fn untrusted_or_misnamed_peers_are_refused() {
    let (ca, ids) = pki(&["party-a", "party-b"]);
    let (_, strangers) = pki(&["party-a", "party-b"]);
    let trust = TlsTrust::from_pem(ca.as_bytes()).unwrap();
    let cases: [(&PemPair, &PemPair, &str); 3] = [
        (&strangers[0], &ids[1], "party-a"), // server from another CA
        (&ids[0], &strangers[1], "party-a"), // client from another CA
        (&ids[0], &ids[1], "party-c"),       // server is not who the client expects
    ];
    for (server_id, client_id, name) in cases {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let (sid, cid) = (identity(server_id), identity(client_id));
        let (t1, t2) = (trust.clone(), trust.clone());
        let name = name.to_string();
        let c = thread::spawn(move || TlsChannel::connect(addr, &name, &cid, &t1, T).map(drop));
        let s = TlsChannel::accept(&listener, &sid, &t2, T).map(drop);
        let c = c.join().unwrap();
        assert!(
            s.is_err() || c.is_err(),
            "a handshake with an untrusted peer succeeded"
        );
        let text = format!("{:?} {:?}", s.err(), c.err());
        assert!(
            text.contains("certificate") || text.contains("Certificate") || text.contains("alert"),
            "{text}"
        );
    }
}

/// A peer that speaks plain TCP framing instead of TLS is an error of the
/// handshake, not a hang.
#[test]
fn plaintext_peer_is_refused() {
    let (ca, ids) = pki(&["party-a"]);
    let trust = TlsTrust::from_pem(ca.as_bytes()).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let plain = thread::spawn(move || {
        let mut ch = TcpChannel::from_stream(TcpStream::connect(addr).unwrap()).unwrap();
        let _ = ch.send(b"not a TLS client hello, just a frame");
        let _ = ch.recv(1 << 20);
    });
    let err = TlsChannel::accept(
        &listener,
        &identity(&ids[0]),
        &trust,
        Duration::from_secs(3),
    );
    assert!(err.is_err());
    plain.join().unwrap();
}

#[test]
fn malformed_pem_is_a_typed_error() {
    assert!(TlsIdentity::from_pem(b"no pem here", b"nor here").is_err());
    assert!(TlsTrust::from_pem(
        b"-----BEGIN CERTIFICATE-----\nnot base64!\n-----END CERTIFICATE-----\n"
    )
    .is_err());
    assert!(TlsTrust::from_pem(b"").is_err());
}

/// What a hostile client or server sends before the handshake can be
/// authenticated.
#[derive(Clone, Copy, Debug)]
enum Stall {
    /// A record header announcing 16 KiB, then one byte every 100 ms.
    Trickle,
    /// A record header, then nothing.
    Silent,
    /// Garbage at full speed, never a valid record (read by rustls as a
    /// record header announcing too much: refused at once).
    Garbage,
}

/// Plays `how` on `stream` until the other end hangs up (or 30 s).
fn stall(mut stream: TcpStream, how: Stall) {
    use std::io::Write;
    let start = std::time::Instant::now();
    let _ = stream.write_all(&[0x16, 0x03, 0x01, 0x40, 0x00]);
    while start.elapsed() < Duration::from_secs(30) {
        let ok = match how {
            Stall::Trickle => {
                thread::sleep(Duration::from_millis(100));
                stream.write_all(&[0x01]).is_ok()
            }
            Stall::Silent => {
                thread::sleep(Duration::from_millis(100));
                stream.peek(&mut [0u8; 1]).map_or(true, |n| n > 0) // until EOF
            }
            Stall::Garbage => stream.write_all(&[0xff; 4096]).is_ok(),
        };
        if !ok {
            return;
        }
    }
}

const SHORT: Duration = Duration::from_millis(1500);

/// The time-out plus the rate allowance (a few hundred bytes at 64 KiB/s:
/// milliseconds) plus scheduling slack on a loaded machine.
fn bound() -> Duration {
    SHORT + Duration::from_millis(1500)
}

/// A client that announces a 16 KiB record and trickles it (or goes
/// silent, or sends garbage) is refused by `accept` within the time-out
/// plus the rate allowance, not after one time-out per byte.
#[test]
fn stalling_client_is_refused_by_the_handshake_deadline() {
    let (ca, ids) = pki(&["party-a"]);
    let trust = TlsTrust::from_pem(ca.as_bytes()).unwrap();
    for how in [Stall::Trickle, Stall::Silent, Stall::Garbage] {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let client = thread::spawn(move || stall(TcpStream::connect(addr).unwrap(), how));
        let start = std::time::Instant::now();
        let res = TlsChannel::accept(&listener, &identity(&ids[0]), &trust, SHORT);
        let took = start.elapsed();
        assert!(res.is_err(), "{how:?}: accepted");
        assert!(took < bound(), "{how:?}: refused only after {took:?}");
        if !matches!(how, Stall::Garbage) {
            assert!(
                matches!(res, Err(TlsSetupError::HandshakeTimeout { .. })),
                "{how:?}: {:?}",
                res.err()
            );
        }
        drop(listener);
        client.join().unwrap();
    }
}

/// The client end has the same bound: a listener that answers the client
/// hello with a trickle (or silence) is refused within the time-out.
#[test]
fn stalling_server_is_refused_by_the_handshake_deadline() {
    let (ca, ids) = pki(&["party-a", "party-b"]);
    let trust = TlsTrust::from_pem(ca.as_bytes()).unwrap();
    for how in [Stall::Trickle, Stall::Silent] {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        let server = thread::spawn(move || stall(listener.accept().unwrap().0, how));
        let start = std::time::Instant::now();
        let res = TlsChannel::connect(addr, "party-a", &identity(&ids[1]), &trust, SHORT);
        let took = start.elapsed();
        assert!(
            matches!(res, Err(TlsSetupError::HandshakeTimeout { .. })),
            "{how:?}: {:?}",
            res.err()
        );
        assert!(took < bound(), "{how:?}: refused only after {took:?}");
        server.join().unwrap();
    }
}

/// The minimum rate and the deadline are the caller's: with a deadline
/// shorter than the time-out, the deadline refuses first.
#[test]
fn handshake_deadline_is_configurable() {
    let (ca, ids) = pki(&["party-a"]);
    let trust = TlsTrust::from_pem(ca.as_bytes()).unwrap();
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let client = thread::spawn(move || stall(TcpStream::connect(addr).unwrap(), Stall::Trickle));
    let start = std::time::Instant::now();
    let limits = TlsHandshake::default()
        .with_min_rate(1)
        .with_deadline(start + Duration::from_millis(500));
    let res = TlsChannel::accept_with(&listener, &identity(&ids[0]), &trust, T, &limits);
    let took = start.elapsed();
    assert!(matches!(res, Err(TlsSetupError::HandshakeTimeout { .. })));
    assert!(took < Duration::from_secs(3), "refused only after {took:?}");
    drop(listener);
    client.join().unwrap();
}
