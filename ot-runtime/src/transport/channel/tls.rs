//! Framed channel over TLS 1.3 with mutual certificate authentication
//! (`rustls`, ring provider), for parties on networks they do not trust.
//!
//! Both parties hold a certificate and key ([`TlsIdentity`]) and trust one
//! certificate authority for their peers ([`TlsTrust`]): the connecting
//! party checks the listener's certificate against the CA and the expected
//! name, the listener requires a client certificate from the same CA. Only
//! TLS 1.3 is offered. The frames are those of [`super::TcpChannel`] (an
//! 8-byte length, then the payload) inside the TLS stream.
//!
//! Threads: after the handshake, a reader thread decrypts incoming records
//! into a plaintext buffer (bounded by the read-ahead limit, after which it
//! stops reading the socket) and a writer thread encrypts and writes queued
//! frames (bounded by the write-queue limit), so both peers may send large
//! messages at once, as over plain TCP. The caller's thread only copies
//! plaintext. A receive fails with [`ChannelError::Timeout`] after the
//! time-out without any incoming byte; a record that fails authentication,
//! or a peer that is not TLS, is [`ChannelError::Io`] with the TLS error.
//!
//! Handshake deadline: the handshake runs before the peer is
//! authenticated, so anyone who reaches the port can try to hold it. It
//! must complete within the time-out plus `received / min_rate` (the bytes
//! the peer has sent, at the minimum rate of [`TlsHandshake`], default
//! 64 KiB/s as on [`super::TcpChannel`]), within an optional absolute
//! deadline, and without a silence longer than the time-out; otherwise it
//! fails with [`TlsSetupError::HandshakeTimeout`]. A client announcing a
//! 16 KiB record and then sending one byte per second is thus refused
//! after about the time-out. [`TlsChannel::accept`] takes one connection;
//! a server for several clients (as [`crate::transport::mesh::TlsMesh`]) runs each
//! accepted connection's handshake on its own thread with its own deadline,
//! so one slow client does not hold the others.
#![forbid(unsafe_code)]

use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, ServerName};
use rustls::server::WebPkiClientVerifier;
use rustls::{ClientConfig, ClientConnection, Connection, RootCertStore, ServerConfig};

use super::{Channel, ChannelError, ChannelStats, StatsCounter};

/// Size of a frame's length prefix.
const HEADER: usize = 8;
/// Plaintext handed to the TLS layer per lock (one full record).
const RECORD: usize = 16 * 1024;
/// Default bound on bytes queued for the writer thread.
const DEFAULT_QUEUE_LIMIT: usize = 64 * 1024 * 1024;
/// Default bound on decrypted bytes held for the caller.
const DEFAULT_READ_AHEAD_LIMIT: usize = 1024 * 1024 * 1024;
/// How often an idle reader thread wakes up, so that a channel that hung up
/// stops reading at its deadline even if the peer neither sends nor hangs up.
const READER_POLL: Duration = Duration::from_millis(100);
/// Default minimum rate of the handshake (as the TCP channel's frames).
const DEFAULT_HANDSHAKE_MIN_RATE: u64 = 64 * 1024;

/// Bounds on the TLS handshake beyond the time-out (see the module docs):
/// the minimum rate at which the peer's handshake bytes earn extra time,
/// and an optional absolute deadline. The handshake may take at most the
/// time-out plus `received / min_rate`, never past the deadline, and may
/// not be silent for longer than the time-out.
#[derive(Clone, Copy, Debug)]
pub struct TlsHandshake {
    min_rate: u64,
    deadline: Option<Instant>,
}

impl Default for TlsHandshake {
    /// 64 KiB/s, no absolute deadline.
    fn default() -> Self {
        TlsHandshake {
            min_rate: DEFAULT_HANDSHAKE_MIN_RATE,
            deadline: None,
        }
    }
}

impl TlsHandshake {
    /// Sets the minimum rate in bytes per second (0: the handshake is
    /// bounded only by the silence time-out and the deadline).
    #[must_use]
    pub fn with_min_rate(mut self, bytes_per_second: u64) -> Self {
        self.min_rate = bytes_per_second;
        self
    }

    /// Sets an absolute deadline the handshake must complete by.
    #[must_use]
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// The minimum rate, in bytes per second.
    pub fn min_rate(&self) -> u64 {
        self.min_rate
    }

    /// The absolute deadline, if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// What the handshake is allowed in all after `received` peer bytes:
    /// the time-out plus `received / min_rate`.
    fn allowed(&self, timeout: Duration, received: u64) -> Duration {
        match self.min_rate {
            0 => Duration::MAX,
            rate => Duration::try_from_secs_f64(received as f64 / rate as f64)
                .map_or(Duration::MAX, |t| timeout.saturating_add(t)),
        }
    }
}

/// Why a TLS channel could not be set up (certificates, keys, handshake).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsSetupError {
    /// A certificate or key file could not be read or parsed.
    #[error("{what}: {reason}")]
    Pem {
        /// Which input (file name or "certificate", "key").
        what: String,
        /// What was wrong with it.
        reason: String,
    },
    /// rustls refused the configuration or the handshake failed (an
    /// untrusted or expired peer certificate, a name mismatch, a peer that
    /// does not speak TLS 1.3).
    #[error("TLS: {0}")]
    Tls(#[from] rustls::Error),
    /// The peer name is not a valid DNS name or IP address.
    #[error("invalid peer name {0:?}")]
    Name(String),
    /// Connecting, accepting or the handshake's I/O failed.
    #[error("I/O: {0}")]
    Io(#[from] io::Error),
    /// The handshake did not complete in time: a silence longer than the
    /// time-out, more than the time-out plus `received / min_rate` in all,
    /// or past the deadline of [`TlsHandshake`] (a trickling, silent or
    /// stalled peer).
    #[error(
        "TLS handshake not complete after {after:?} ({received} bytes from the peer; \
         allowed: the time-out without progress, the time-out plus bytes / {min_rate} B/s \
         in all, and the deadline)"
    )]
    HandshakeTimeout {
        /// Time spent on the handshake.
        after: Duration,
        /// Bytes the peer sent during it.
        received: u64,
        /// The minimum rate in force (bytes per second, 0: none).
        min_rate: u64,
    },
}

/// This party's certificate chain and private key.
pub struct TlsIdentity {
    certs: Vec<CertificateDer<'static>>,
    key: PrivateKeyDer<'static>,
}

impl std::fmt::Debug for TlsIdentity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsIdentity")
            .field("certs", &self.certs.len())
            .finish_non_exhaustive()
    }
}

impl TlsIdentity {
    /// From PEM text: the certificate chain (leaf first) and a PKCS#8,
    /// PKCS#1 or SEC1 private key.
    pub fn from_pem(cert_pem: &[u8], key_pem: &[u8]) -> Result<Self, TlsSetupError> {
        let certs = CertificateDer::pem_slice_iter(cert_pem)
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| pem_error("certificate", e))?;
        if certs.is_empty() {
            return Err(TlsSetupError::Pem {
                what: "certificate".into(),
                reason: "no certificate in the PEM input".into(),
            });
        }
        let key = PrivateKeyDer::from_pem_slice(key_pem).map_err(|e| pem_error("key", e))?;
        Ok(TlsIdentity { certs, key })
    }
}

/// A throwaway certificate authority and one certificate per party name,
/// in PEM, for tests and local trials (a deployment uses certificates from
/// its own CA). Party certificates carry their name as DNS subject
/// alternative name, valid for both TLS client and server authentication.
#[derive(Clone, Debug)]
pub struct TestPki {
    /// The CA certificate (what each party trusts: [`TlsTrust::from_pem`]).
    pub ca_pem: String,
    /// Per party, in the order of the names: (name, certificate PEM, key PEM).
    pub parties: Vec<(String, String, String)>,
}

impl TestPki {
    /// Generates a CA (ECDSA P-256) and a certificate for each name.
    pub fn generate(names: &[&str]) -> Result<TestPki, TlsSetupError> {
        use rcgen::{
            BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, KeyPair,
            KeyUsagePurpose,
        };
        let err = |e: rcgen::Error| TlsSetupError::Pem {
            what: "test certificate".into(),
            reason: e.to_string(),
        };
        let ca_key = KeyPair::generate().map_err(err)?;
        let mut ca = CertificateParams::new(Vec::<String>::new()).map_err(err)?;
        ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca.distinguished_name.push(DnType::CommonName, "ot test CA");
        ca.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca_cert = ca.self_signed(&ca_key).map_err(err)?;
        let mut parties = Vec::with_capacity(names.len());
        for name in names {
            let key = KeyPair::generate().map_err(err)?;
            let mut p = CertificateParams::new(vec![name.to_string()]).map_err(err)?;
            p.distinguished_name.push(DnType::CommonName, *name);
            p.extended_key_usages = vec![
                ExtendedKeyUsagePurpose::ServerAuth,
                ExtendedKeyUsagePurpose::ClientAuth,
            ];
            let cert = p.signed_by(&key, &ca_cert, &ca_key).map_err(err)?;
            parties.push((name.to_string(), cert.pem(), key.serialize_pem()));
        }
        Ok(TestPki {
            ca_pem: ca_cert.pem(),
            parties,
        })
    }

    /// The trust store of this CA.
    pub fn trust(&self) -> Result<TlsTrust, TlsSetupError> {
        TlsTrust::from_pem(self.ca_pem.as_bytes())
    }

    /// The identity of party `i`.
    pub fn identity(&self, i: usize) -> Result<TlsIdentity, TlsSetupError> {
        let (_, cert, key) = self.parties.get(i).ok_or_else(|| TlsSetupError::Pem {
            what: format!("test party {i}"),
            reason: "no such party".into(),
        })?;
        TlsIdentity::from_pem(cert.as_bytes(), key.as_bytes())
    }
}

/// A connected pair over loopback for tests and benchmarks: the first
/// listens as "party-a", the second connects, both under a fresh
/// [`TestPki`].
pub fn local_pair_tls(timeout: Duration) -> Result<(TlsChannel, TlsChannel), TlsSetupError> {
    let pki = TestPki::generate(&["party-a", "party-b"])?;
    let (trust, ida, idb) = (pki.trust()?, pki.identity(0)?, pki.identity(1)?);
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let trust_b = trust.clone();
    let b = thread::spawn(move || TlsChannel::connect(addr, "party-a", &idb, &trust_b, timeout));
    let a = TlsChannel::accept(&listener, &ida, &trust, timeout)?;
    let b = b
        .join()
        .map_err(|_| TlsSetupError::Io(io::Error::other("connecting thread panicked")))??;
    Ok((a, b))
}

/// The certificate authorities a party accepts its peers' certificates from.
#[derive(Clone, Debug)]
pub struct TlsTrust {
    roots: Arc<RootCertStore>,
}

impl TlsTrust {
    /// From the PEM text of one or more CA certificates.
    pub fn from_pem(ca_pem: &[u8]) -> Result<Self, TlsSetupError> {
        let mut roots = RootCertStore::empty();
        for cert in CertificateDer::pem_slice_iter(ca_pem) {
            roots
                .add(cert.map_err(|e| pem_error("CA certificate", e))?)
                .map_err(TlsSetupError::Tls)?;
        }
        if roots.is_empty() {
            return Err(TlsSetupError::Pem {
                what: "CA certificate".into(),
                reason: "no certificate in the PEM input".into(),
            });
        }
        Ok(TlsTrust {
            roots: Arc::new(roots),
        })
    }
}

fn pem_error(what: &str, e: impl std::fmt::Display) -> TlsSetupError {
    TlsSetupError::Pem {
        what: what.into(),
        reason: e.to_string(),
    }
}

fn provider() -> Arc<rustls::crypto::CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The listening party's TLS configuration: its identity, and client
/// certificates required from `trust`.
fn server_config(identity: &TlsIdentity, trust: &TlsTrust) -> Result<ServerConfig, TlsSetupError> {
    let verifier =
        WebPkiClientVerifier::builder_with_provider(Arc::clone(&trust.roots), provider())
            .build()
            .map_err(|e| TlsSetupError::Tls(rustls::Error::General(e.to_string())))?;
    Ok(ServerConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_client_cert_verifier(verifier)
        .with_single_cert(identity.certs.clone(), identity.key.clone_key())?)
}

/// The connecting party's TLS configuration.
fn client_config(identity: &TlsIdentity, trust: &TlsTrust) -> Result<ClientConfig, TlsSetupError> {
    Ok(ClientConfig::builder_with_provider(provider())
        .with_protocol_versions(&[&rustls::version::TLS13])?
        .with_root_certificates(Arc::clone(&trust.roots))
        .with_client_auth_cert(identity.certs.clone(), identity.key.clone_key())?)
}

/// A listener's TLS configuration, built once and shared by the handshake
/// threads of its connections.
#[derive(Clone)]
pub(crate) struct ServerSetup(Arc<ServerConfig>);

impl ServerSetup {
    /// The configuration for `identity`, requiring clients certified by `trust`.
    pub(crate) fn new(identity: &TlsIdentity, trust: &TlsTrust) -> Result<Self, TlsSetupError> {
        Ok(ServerSetup(Arc::new(server_config(identity, trust)?)))
    }
}

/// Whether an I/O error is a socket time-out.
fn is_timeout(kind: io::ErrorKind) -> bool {
    matches!(kind, io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
}

/// Runs the TLS handshake on `stream` under the bounds of the module docs:
/// at most `timeout` without progress, at most `timeout + received /
/// min_rate` in all, never past the deadline. Every socket read and write
/// is armed with what is left, so a trickling peer cannot extend it.
fn handshake(
    stream: &mut TcpStream,
    conn: &mut Connection,
    timeout: Duration,
    limits: &TlsHandshake,
) -> Result<(), TlsSetupError> {
    let start = Instant::now();
    let mut received: u64 = 0;
    let mut progress = start;
    let left = |received: u64, progress: Instant| {
        let now = Instant::now();
        let total = limits
            .allowed(timeout, received)
            .saturating_sub(now.duration_since(start));
        let silence = timeout.saturating_sub(now.duration_since(progress));
        let deadline = limits
            .deadline
            .map_or(Duration::MAX, |d| d.saturating_duration_since(now));
        total.min(silence).min(deadline)
    };
    let expired = |received: u64| TlsSetupError::HandshakeTimeout {
        after: start.elapsed(),
        received,
        min_rate: limits.min_rate,
    };
    loop {
        while conn.wants_write() {
            let l = left(received, progress);
            if l.is_zero() {
                return Err(expired(received));
            }
            stream.set_write_timeout(Some(l))?;
            match conn.write_tls(stream) {
                Ok(_) => progress = Instant::now(),
                Err(e) if is_timeout(e.kind()) || e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e.into()),
            }
        }
        if !conn.is_handshaking() {
            return Ok(());
        }
        let l = left(received, progress);
        if l.is_zero() {
            return Err(expired(received));
        }
        stream.set_read_timeout(Some(l))?;
        match conn.read_tls(stream) {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::UnexpectedEof,
                    "the peer closed the connection during the TLS handshake",
                )
                .into())
            }
            Ok(n) => {
                received = received.saturating_add(n as u64);
                progress = Instant::now();
            }
            Err(e) if is_timeout(e.kind()) || e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e.into()),
        }
        if let Err(e) = conn.process_new_packets() {
            // Tell the peer (best effort: the alert rustls queued), then
            // report the error as rustls' `complete_io` does: InvalidData
            // wrapping the rustls error, whose text names the refusal.
            if let Some(l) = Some(left(received, progress)).filter(|l| !l.is_zero()) {
                let _ = stream.set_write_timeout(Some(l));
                let _ = conn.write_tls(stream);
            }
            return Err(io::Error::new(io::ErrorKind::InvalidData, e).into());
        }
    }
}

/// State shared by the caller, the reader and the writer thread.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// Signalled when plaintext arrives, the writer progresses, or a thread ends.
    cv: Condvar,
}

#[derive(Default)]
struct State {
    /// Decrypted bytes not yet consumed.
    inbound: VecDeque<u8>,
    /// The peer ended the stream (close_notify or end of file).
    eof: bool,
    /// First error of the reader thread.
    read_error: Option<io::Error>,
    /// Bytes queued for the writer and not yet written.
    in_flight: usize,
    /// First error of the writer thread; it has exited.
    write_error: Option<io::Error>,
    writer_done: bool,
    /// The next frame's payload length as announced by the caller
    /// ([`Channel::expect_next_frame`]), which lowers the read-ahead bound.
    expected: Option<usize>,
    /// Set when the channel hangs up: until then the reader reads (and
    /// discards) what the peer still sends, so that the socket is not
    /// closed with unread bytes, which would reset the connection and could
    /// cost the peer our last frames.
    closing_until: Option<Instant>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// Locks the TLS connection (poisoning keeps a usable state: every update
/// is completed before the lock is released or the thread reports an error).
fn lock_conn(conn: &Mutex<Connection>) -> MutexGuard<'_, Connection> {
    conn.lock().unwrap_or_else(|p| p.into_inner())
}

/// Work for the writer thread.
enum Job {
    /// A frame (header and payload) to encrypt and send.
    Frame(Vec<u8>),
    /// TLS output produced by the reader (alerts, post-handshake messages).
    Flush,
    /// The channel is dropped: send close_notify after what is queued, exit.
    Close,
}

/// Encrypts `plain` (may be empty: only pending TLS output) and writes it.
fn write_encrypted(
    conn: &Mutex<Connection>,
    socket: &mut TcpStream,
    plain: &[u8],
    shared: &Shared,
) -> io::Result<()> {
    let mut out = Vec::with_capacity(plain.len().min(RECORD) + 64);
    let mut rest = plain;
    loop {
        let piece = rest.len().min(RECORD);
        {
            let mut c = lock_conn(conn);
            c.writer().write_all(&rest[..piece])?;
            while c.wants_write() {
                c.write_tls(&mut out)?;
            }
        }
        socket.write_all(&out)?;
        out.clear();
        rest = &rest[piece..];
        if piece > 0 {
            let mut st = shared.lock();
            st.in_flight = st.in_flight.saturating_sub(piece);
            drop(st);
            shared.cv.notify_all();
        }
        if rest.is_empty() {
            return Ok(());
        }
    }
}

fn writer_loop(
    conn: Arc<Mutex<Connection>>,
    mut socket: TcpStream,
    jobs: Receiver<Job>,
    shared: Arc<Shared>,
) {
    let res = (|| {
        // The reader holds a sender too (for `Flush`), so the queue does not
        // close when the channel is dropped: `Close` says so.
        for job in jobs {
            match job {
                Job::Frame(bytes) => write_encrypted(&conn, &mut socket, &bytes, &shared)?,
                Job::Flush => write_encrypted(&conn, &mut socket, &[], &shared)?,
                Job::Close => break,
            }
        }
        // The channel was dropped: tell the peer the stream ends here.
        lock_conn(&conn).send_close_notify();
        write_encrypted(&conn, &mut socket, &[], &shared)
    })();
    let mut st = shared.lock();
    if let Err(e) = res {
        st.write_error = Some(e);
    }
    st.writer_done = true;
    drop(st);
    shared.cv.notify_all();
}

fn reader_loop(
    conn: Arc<Mutex<Connection>>,
    mut socket: TcpStream,
    flush: Sender<Job>,
    shared: Arc<Shared>,
    read_ahead_limit: usize,
) {
    let mut raw = vec![0u8; 64 * 1024];
    let mut plain = vec![0u8; 64 * 1024];
    let res: io::Result<()> = (|| loop {
        // Back-pressure: stop reading the socket while the caller has
        // the read-ahead limit's worth of plaintext to consume.
        {
            let st = shared.lock();
            let st = shared
                .cv
                .wait_while(st, |st| {
                    st.closing_until.is_none()
                        && st.inbound.len() >= super::read_ahead_cap(read_ahead_limit, st.expected)
                })
                .unwrap_or_else(|p| p.into_inner());
            drop(st);
        }
        let n = match socket.read(&mut raw) {
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) if super::tcp::is_timeout(e.kind()) => {
                // The socket's read time-out only lets a closing channel's
                // reader give up at its deadline; an idle link is no error.
                match shared.lock().closing_until {
                    Some(until) if Instant::now() >= until => return Ok(()),
                    _ => continue,
                }
            }
            Err(e) => return Err(e),
        };
        if n == 0 {
            return Ok(());
        }
        let mut input = &raw[..n];
        let mut closed = false;
        let mut wants_write = false;
        while !input.is_empty() {
            let mut c = lock_conn(&conn);
            c.read_tls(&mut input)?;
            let io_state = c
                .process_new_packets()
                .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
            closed |= io_state.peer_has_closed();
            wants_write |= c.wants_write();
            loop {
                match c.reader().read(&mut plain) {
                    Ok(0) => break,
                    Ok(k) => {
                        let mut st = shared.lock();
                        if let Some(until) = st.closing_until {
                            if Instant::now() >= until {
                                return Ok(());
                            }
                            continue;
                        }
                        st.inbound.extend(&plain[..k]);
                        drop(st);
                        shared.cv.notify_all();
                    }
                    Err(e) if e.kind() == io::ErrorKind::WouldBlock => break,
                    Err(e) => return Err(e),
                }
            }
        }
        if wants_write {
            let _ = flush.send(Job::Flush);
        }
        if closed {
            return Ok(());
        }
    })();
    let mut st = shared.lock();
    match res {
        Ok(()) => st.eof = true,
        Err(e) => st.read_error = Some(e),
    }
    drop(st);
    shared.cv.notify_all();
}

/// One end of a framed TLS 1.3 connection (see the module docs).
pub struct TlsChannel {
    socket: TcpStream,
    shared: Arc<Shared>,
    jobs: Option<Sender<Job>>,
    reader: Option<JoinHandle<()>>,
    writer: Option<JoinHandle<()>>,
    timeout: Duration,
    queue_limit: usize,
    stats: StatsCounter,
    /// The certificate chain the peer presented (leaf first).
    peer_certs: Vec<CertificateDer<'static>>,
}

impl std::fmt::Debug for TlsChannel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TlsChannel")
            .field("peer", &self.socket.peer_addr().ok())
            .field("stats", &self.stats.get())
            .finish_non_exhaustive()
    }
}

impl TlsChannel {
    /// Connects to `addr` and runs the handshake as the TLS client: the
    /// listener's certificate must chain to `trust` and name `peer_name`;
    /// ours is presented for the listener to check. `timeout` bounds the
    /// connection, the handshake and, afterwards, every silent wait.
    pub fn connect<A: ToSocketAddrs>(
        addr: A,
        peer_name: &str,
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
    ) -> Result<TlsChannel, TlsSetupError> {
        Self::connect_with(
            addr,
            peer_name,
            identity,
            trust,
            timeout,
            &TlsHandshake::default(),
        )
    }

    /// As [`TlsChannel::connect`], with the handshake bounded by `limits`.
    pub fn connect_with<A: ToSocketAddrs>(
        addr: A,
        peer_name: &str,
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
        limits: &TlsHandshake,
    ) -> Result<TlsChannel, TlsSetupError> {
        let mut last = io::Error::new(io::ErrorKind::InvalidInput, "no address to connect to");
        for a in addr.to_socket_addrs()? {
            match TcpStream::connect_timeout(&a, timeout.max(Duration::from_millis(1))) {
                Ok(stream) => {
                    return Self::client_with(stream, peer_name, identity, trust, timeout, limits)
                }
                Err(e) => last = e,
            }
        }
        Err(last.into())
    }

    /// Accepts one connection on `listener` (within `timeout`) and runs the
    /// handshake as the TLS server, requiring a client certificate that
    /// chains to `trust`. The handshake is bounded as in the module docs
    /// (default [`TlsHandshake`]); a refused or slow client is an error of
    /// this call, which serves one connection only.
    pub fn accept(
        listener: &TcpListener,
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
    ) -> Result<TlsChannel, TlsSetupError> {
        Self::accept_with(listener, identity, trust, timeout, &TlsHandshake::default())
    }

    /// As [`TlsChannel::accept`], with the handshake bounded by `limits`.
    pub fn accept_with(
        listener: &TcpListener,
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
        limits: &TlsHandshake,
    ) -> Result<TlsChannel, TlsSetupError> {
        let deadline = Instant::now() + timeout;
        listener.set_nonblocking(true)?;
        let stream = loop {
            match listener.accept() {
                Ok((s, _)) => break Ok(s),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock && Instant::now() < deadline => {
                    thread::sleep(Duration::from_millis(1));
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    break Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        "no connection within the time-out",
                    ))
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        listener.set_nonblocking(false)?;
        let stream = stream?;
        stream.set_nonblocking(false)?;
        Self::server_with(stream, identity, trust, timeout, limits)
    }

    /// The TLS client over an established connection.
    pub fn client(
        stream: TcpStream,
        peer_name: &str,
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
    ) -> Result<TlsChannel, TlsSetupError> {
        let limits = TlsHandshake::default();
        Self::client_with(stream, peer_name, identity, trust, timeout, &limits)
    }

    /// As [`TlsChannel::client`], with the handshake bounded by `limits`.
    pub fn client_with(
        stream: TcpStream,
        peer_name: &str,
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
        limits: &TlsHandshake,
    ) -> Result<TlsChannel, TlsSetupError> {
        let name = ServerName::try_from(peer_name.to_string())
            .map_err(|_| TlsSetupError::Name(peer_name.into()))?;
        let conn = ClientConnection::new(Arc::new(client_config(identity, trust)?), name)?;
        Self::start(stream, conn.into(), timeout, limits)
    }

    /// The TLS server over an established connection.
    pub fn server(
        stream: TcpStream,
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
    ) -> Result<TlsChannel, TlsSetupError> {
        Self::server_with(stream, identity, trust, timeout, &TlsHandshake::default())
    }

    /// As [`TlsChannel::server`], with the handshake bounded by `limits`.
    pub fn server_with(
        stream: TcpStream,
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
        limits: &TlsHandshake,
    ) -> Result<TlsChannel, TlsSetupError> {
        let config = ServerSetup::new(identity, trust)?;
        Self::server_on(stream, &config, timeout, limits)
    }

    /// The TLS server over an established connection with a prepared
    /// configuration (shared by the handshake threads of a listener).
    pub(crate) fn server_on(
        stream: TcpStream,
        setup: &ServerSetup,
        timeout: Duration,
        limits: &TlsHandshake,
    ) -> Result<TlsChannel, TlsSetupError> {
        let conn = rustls::ServerConnection::new(Arc::clone(&setup.0))?;
        Self::start(stream, conn.into(), timeout, limits)
    }

    /// Runs the handshake on the caller's thread, then starts the reader
    /// and writer threads.
    fn start(
        mut stream: TcpStream,
        mut conn: Connection,
        timeout: Duration,
        limits: &TlsHandshake,
    ) -> Result<TlsChannel, TlsSetupError> {
        let timeout = timeout.max(Duration::from_millis(1));
        stream.set_nodelay(true)?;
        handshake(&mut stream, &mut conn, timeout, limits)?;
        stream.set_read_timeout(Some(READER_POLL))?;
        stream.set_write_timeout(None)?;
        let peer_certs = conn
            .peer_certificates()
            .map(|certs| certs.iter().map(|c| c.clone().into_owned()).collect())
            .unwrap_or_default();
        let conn = Arc::new(Mutex::new(conn));
        let shared = Arc::new(Shared::default());
        let (tx, rx) = mpsc::channel();
        let writer = {
            let (conn, socket, shared) =
                (Arc::clone(&conn), stream.try_clone()?, Arc::clone(&shared));
            thread::Builder::new()
                .name("ot-tls-writer".into())
                .spawn(move || writer_loop(conn, socket, rx, shared))?
        };
        let reader = {
            let (socket, shared, flush) = (stream.try_clone()?, Arc::clone(&shared), tx.clone());
            thread::Builder::new()
                .name("ot-tls-reader".into())
                .spawn(move || reader_loop(conn, socket, flush, shared, DEFAULT_READ_AHEAD_LIMIT))?
        };
        Ok(TlsChannel {
            socket: stream,
            shared,
            jobs: Some(tx),
            reader: Some(reader),
            writer: Some(writer),
            timeout,
            queue_limit: DEFAULT_QUEUE_LIMIT,
            stats: StatsCounter::default(),
            peer_certs,
        })
    }

    /// Closes the channel gracefully: sends what is queued and the end of
    /// the stream (close_notify), then reads and discards what the peer
    /// still sends until it hangs up too, waiting at most the time-out.
    ///
    /// Dropping the channel does the same without the wait. Closing a
    /// socket with unread incoming bytes resets the connection, and a reset
    /// can make the peer lose our last frames (e.g. an abort notice) before
    /// it reads them; a short-lived process calls `close` as its last step.
    pub fn close(mut self) {
        self.hang_up();
        self.await_peer_hang_up();
    }

    /// Waits until the reader thread ends: the peer hung up, the link
    /// failed or, once this channel hung up, its time-out passed.
    pub(crate) fn await_peer_hang_up(mut self) {
        if let Some(t) = self.reader.take() {
            let _ = t.join();
        }
    }

    /// Sends what is queued and close_notify (waiting at most the time-out
    /// for the writer), half-closes the socket and lets the reader discard
    /// what the peer still sends, until the peer hangs up or the time-out
    /// has passed. Idempotent.
    pub(crate) fn hang_up(&mut self) {
        let Some(jobs) = self.jobs.take() else {
            return;
        };
        let _ = jobs.send(Job::Close);
        let st = self.shared.lock();
        let (mut st, _) = self
            .shared
            .cv
            .wait_timeout_while(st, self.timeout, |st| !st.writer_done)
            .unwrap_or_else(|p| p.into_inner());
        st.closing_until = Some(Instant::now() + self.timeout);
        // The reader may wait for room in the plaintext buffer: empty it.
        st.inbound = VecDeque::new();
        drop(st);
        self.shared.cv.notify_all();
        // A writer still blocked on a peer that reads nothing fails now.
        let _ = self.socket.shutdown(Shutdown::Write);
        if let Some(t) = self.writer.take() {
            let _ = t.join();
        }
    }

    /// The certificate chain the peer presented in the handshake (leaf
    /// first), already checked against the trusted CA; callers check what
    /// it names (e.g. the party index of a
    /// [`TlsMesh`](crate::transport::mesh::TlsMesh) peer).
    pub fn peer_certificates(&self) -> &[CertificateDer<'static>] {
        &self.peer_certs
    }

    /// Waits up to `wait` until a whole frame can be received without
    /// waiting: its header and payload are decrypted, or its header
    /// announces more than `max_len` (the receive fails at once), or the
    /// stream ended or failed. Consumes nothing.
    pub(crate) fn frame_ready(&self, max_len: usize, wait: Duration) -> bool {
        let ready = |st: &State| {
            if st.inbound.len() >= HEADER {
                let mut header = [0u8; HEADER];
                for (h, b) in header.iter_mut().zip(&st.inbound) {
                    *h = *b;
                }
                let len = u64::from_le_bytes(header);
                return usize::try_from(len).map_or(true, |len| {
                    len > max_len || st.inbound.len() - HEADER >= len
                });
            }
            st.eof || st.read_error.is_some()
        };
        let st = self.shared.lock();
        if ready(&st) || wait.is_zero() {
            return ready(&st);
        }
        let (st, _) = self
            .shared
            .cv
            .wait_timeout_while(st, wait, |st| !ready(st))
            .unwrap_or_else(|p| p.into_inner());
        ready(&st)
    }

    /// Sets how long an operation may go without progress before failing
    /// with [`ChannelError::Timeout`].
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout.max(Duration::from_millis(1));
        self
    }

    /// Waits on the shared state until `done(state)` is `Some`, failing
    /// after the time-out without `progress(state)` changing.
    fn wait<T>(
        &self,
        progress: impl Fn(&State) -> usize,
        mut done: impl FnMut(&mut State) -> Option<Result<T, ChannelError>>,
    ) -> Result<T, ChannelError> {
        let mut st = self.shared.lock();
        let mut last = progress(&st);
        let mut since = Instant::now();
        loop {
            if let Some(r) = done(&mut st) {
                return r;
            }
            let now_progress = progress(&st);
            if now_progress != last {
                last = now_progress;
                since = Instant::now();
            }
            let left = self.timeout.saturating_sub(since.elapsed());
            if left.is_zero() {
                return Err(ChannelError::Timeout {
                    after: self.timeout,
                });
            }
            st = self
                .shared
                .cv
                .wait_timeout(st, left)
                .map(|(g, _)| g)
                .unwrap_or_else(|p| p.into_inner().0);
        }
    }

    /// The error for a stream that ended with `have` of `need` bytes of the
    /// current frame (or header) received.
    fn ended(st: &mut State, need: usize, have: usize, at_boundary: bool) -> ChannelError {
        if let Some(e) = st.read_error.take() {
            return if super::tcp::is_hangup(e.kind()) {
                ChannelError::Closed
            } else {
                ChannelError::Io(e)
            };
        }
        if at_boundary && have == 0 {
            ChannelError::Closed
        } else {
            ChannelError::Truncated {
                expected: need,
                got: have,
            }
        }
    }

    /// The channel error for the writer thread's failure `e`: a peer that
    /// hung up is [`ChannelError::Closed`], as on a TCP channel, so that a
    /// mesh treats a frame sent to a peer that aborted first as lost and
    /// reports what that peer's link then delivers (its notice).
    fn write_failed(e: io::Error) -> ChannelError {
        if super::tcp::is_hangup(e.kind()) {
            ChannelError::Closed
        } else {
            ChannelError::Io(e)
        }
    }

    /// Takes exactly `out.len()` plaintext bytes once they are there.
    fn take_exact(&self, out: &mut [u8], at_boundary: bool) -> Result<(), ChannelError> {
        let need = out.len();
        let mut got = 0;
        self.wait(
            |st| st.inbound.len(),
            |st| {
                let k = (need - got).min(st.inbound.len());
                let (front, back) = st.inbound.as_slices();
                let from_front = k.min(front.len());
                out[got..got + from_front].copy_from_slice(&front[..from_front]);
                out[got + from_front..got + k].copy_from_slice(&back[..k - from_front]);
                st.inbound.drain(..k);
                got += k;
                if k > 0 {
                    self.shared.cv.notify_all();
                }
                if got == need {
                    return Some(Ok(()));
                }
                if st.eof || st.read_error.is_some() {
                    return Some(Err(Self::ended(st, need, got, at_boundary)));
                }
                None
            },
        )
    }

    /// Queues `frame` (header and payload) for the writer thread, waiting
    /// for queue space first.
    fn hand_off(&mut self, frame: Vec<u8>) -> Result<(), ChannelError> {
        let len = frame.len();
        let limit = self.queue_limit;
        self.wait(
            |st| st.in_flight,
            |st| {
                if let Some(e) = st.write_error.take() {
                    return Some(Err(Self::write_failed(e)));
                }
                if st.writer_done {
                    return Some(Err(ChannelError::Closed));
                }
                (st.in_flight == 0 || st.in_flight.saturating_add(len) <= limit).then(|| {
                    st.in_flight += len;
                    Ok(())
                })
            },
        )?;
        let sent = self.jobs.as_ref().map(|j| j.send(Job::Frame(frame)));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(ChannelError::Closed),
        }
    }
}

impl Channel for TlsChannel {
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        let mut frame = Vec::with_capacity(HEADER + msg.len());
        frame.extend_from_slice(&(msg.len() as u64).to_le_bytes());
        frame.extend_from_slice(msg);
        self.hand_off(frame)?;
        self.stats.on_send(msg.len());
        Ok(())
    }

    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        buf.clear();
        let mut header = [0u8; HEADER];
        self.take_exact(&mut header, true)?;
        let announced = u64::from_le_bytes(header);
        if let Some(notice) = super::notice::notice_len(announced) {
            let len = notice?;
            let mut body = vec![0u8; len];
            self.take_exact(&mut body, false)?;
            return Err(ChannelError::PeerAborted(super::AbortNotice::decode(
                &body,
            )?));
        }
        let len = match usize::try_from(announced) {
            Ok(len) if len <= max_len => len,
            _ => {
                return Err(ChannelError::Oversized {
                    len: announced,
                    max: max_len,
                })
            }
        };
        buf.try_reserve_exact(len)
            .map_err(|_| ChannelError::Io(io::ErrorKind::OutOfMemory.into()))?;
        buf.resize(len, 0);
        if let Err(e) = self.take_exact(buf, false) {
            buf.clear();
            return Err(e);
        }
        self.stats.on_recv(len);
        Ok(())
    }

    fn stats(&self) -> ChannelStats {
        self.stats.get()
    }

    /// A frame with [`NOTICE_BIT`](super::notice::NOTICE_BIT) in its
    /// header, after the frames already queued; not counted in the traffic
    /// statistics.
    fn send_notice(&mut self, notice: &super::AbortNotice) -> Result<(), ChannelError> {
        let bytes = notice.encode();
        let mut frame = Vec::with_capacity(HEADER + bytes.len());
        frame.extend_from_slice(&super::notice::notice_header(bytes.len()));
        frame.extend_from_slice(&bytes);
        self.hand_off(frame)
    }

    fn expect_next_frame(&mut self, len: Option<usize>) {
        self.shared.lock().expected = len;
        // A larger bound may let the reader go on.
        self.shared.cv.notify_all();
    }

    /// Waits until every queued frame has been encrypted and written.
    fn flush(&mut self) -> Result<(), ChannelError> {
        self.wait(
            |st| st.in_flight,
            |st| {
                if let Some(e) = st.write_error.take() {
                    return Some(Err(Self::write_failed(e)));
                }
                (st.in_flight == 0).then_some(Ok(()))
            },
        )
    }
}

/// Dropping hangs up ([`TlsChannel::close`]'s first half) and leaves the
/// reader thread to read what the peer still sends until it hangs up too
/// (or the time-out passes), without waiting for it.
impl Drop for TlsChannel {
    fn drop(&mut self) {
        self.hang_up();
    }
}
