//! The TLS mesh (feature `tls`): the TCP mesh's set-up, with every link a
//! mutually authenticated TLS 1.3 [`TlsChannel`] whose certificates name
//! the party indices.
#![forbid(unsafe_code)]

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

use rustls::pki_types::ServerName;
use rustls::{CertificateError, Error as RustlsError};

use super::net::{accept_now, connect_retrying, ACCEPT_POLL};
use super::{ChannelMesh, MeshChannel, MeshError};
use crate::transport::channel::tls::ServerSetup;
use crate::transport::channel::{
    Channel, ChannelError, TestPki, TlsChannel, TlsHandshake, TlsIdentity, TlsSetupError, TlsTrust,
};

/// First bytes of a dialler's index claim: names the format and version.
const CLAIM_MAGIC: [u8; 8] = *b"OTPTLSM1";
/// Index claim: magic, then the dialler's index and n (`u32` LE each).
const CLAIM: usize = 16;
/// How often a reader thread waiting on a TLS link looks whether the mesh
/// was dropped.
const STOP_POLL: Duration = Duration::from_millis(20);
/// Time-out of the meshes [`local_tls_mesh`] builds.
const LOCAL_TIMEOUT: Duration = Duration::from_secs(30);

/// One party's endpoint of a TLS mesh: a [`ChannelMesh`] of
/// [`TlsChannel`]s, one TLS 1.3 connection per peer, both ends
/// authenticated by certificates from the CA in the parties' [`TlsTrust`].
///
/// Party identities: party `i`'s certificate names it by the DNS subject
/// alternative name [`party_name`]`(i)`, i.e. `party-<i>` (what
/// [`TestPki::generate`] makes for the names `party-0`, `party-1`, ...; a
/// deployment's CA issues the same names).
///
/// Set-up ([`TlsMesh::connect`]), as [`TcpMesh`](super::TcpMesh): party
/// `me` listens on `peers[me]`, dials every party `j < me` (retrying while
/// it is not listening yet) and accepts a connection from every `j > me`.
/// - Dialling `j`, party `me` first sends a 16-byte plaintext *index claim*
///   (magic, `me`, n), then runs the TLS handshake as client with server
///   name `party-<j>`: the listener's certificate must chain to the CA and
///   name `party-<j>`; ours is presented.
/// - Accepting, party `me` reads the claim (refusing a malformed one, an
///   index out of range or not above `me`, a duplicate, another n), runs the
///   handshake as server requiring a client certificate from the CA, then
///   checks that the certificate names `party-<k>` for the claimed `k`.
///
/// A refused peer is a [`TlsMeshError`] naming it, before any protocol
/// message: [`TlsMeshError::UntrustedCertificate`] for a certificate from
/// another CA (or otherwise invalid), [`TlsMeshError::WrongIdentity`] for
/// a valid certificate that names another party. The claim is in plaintext
/// only to name the peer in such errors; it is trusted only once the
/// certificate confirms it. The session hello ([`super::handshake`]) then
/// runs inside the TLS links as on any mesh.
///
/// Set-up time: each accepted connection's claim and TLS handshake run on
/// a thread of their own, bounded by the set-up deadline (and the
/// handshake by the minimum rate of [`TlsHandshake`]), so a slow, silent
/// or trickling client does not hold the parties that connect after it.
///
/// Memory and time-outs are those of [`TlsChannel`] per link, plus the one
/// frame a link may hold for [`Mesh::recv_any`](super::Mesh::recv_any).
/// `timeout` bounds the whole set-up and is then each channel's
/// no-progress time-out. Dropping the mesh closes each link with a TLS
/// close_notify after the frames already queued on it (see [`TlsChannel`]).
pub type TlsMesh = ChannelMesh<TlsChannel>;

/// The DNS name that party `i`'s certificate carries as subject alternative
/// name: `party-<i>`.
pub fn party_name(i: usize) -> String {
    format!("party-{i}")
}

/// Why a party could not join a [`TlsMesh`]; the certificate errors name
/// the peer they concern.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TlsMeshError {
    /// The peer's certificate does not chain to the trusted CA (another
    /// CA, a self-signed certificate) or is otherwise invalid (expired, not
    /// for TLS client/server authentication).
    #[error("party {peer}: certificate refused: {reason}")]
    UntrustedCertificate {
        /// The party the certificate was presented for.
        peer: usize,
        /// What rustls found wrong with it.
        reason: String,
    },
    /// The peer's certificate is valid but does not name the party it
    /// claims to be (or we dialled): it is another party's.
    #[error("party {peer}: certificate does not name {}: {reason}", party_name(*.peer))]
    WrongIdentity {
        /// The party index claimed by (or dialled at) the peer.
        peer: usize,
        /// What rustls found wrong with it.
        reason: String,
    },
    /// The TLS handshake with the peer failed otherwise (the peer refused
    /// our certificate, hung up, or does not speak TLS 1.3).
    #[error("party {peer}: TLS handshake: {source}")]
    Handshake {
        /// The party the handshake was with.
        peer: usize,
        /// The failure.
        source: TlsSetupError,
    },
    /// A failure of the mesh set-up itself (listen, connect, a malformed or
    /// out-of-range index claim, a duplicate index, a time-out).
    #[error(transparent)]
    Mesh(#[from] MeshError),
}

impl TlsMeshError {
    /// The peer the error names, if any.
    pub fn peer(&self) -> Option<usize> {
        match self {
            TlsMeshError::UntrustedCertificate { peer, .. }
            | TlsMeshError::WrongIdentity { peer, .. }
            | TlsMeshError::Handshake { peer, .. } => Some(*peer),
            TlsMeshError::Mesh(e) => e.peer(),
        }
    }

    /// Classifies a failed handshake with `peer` by the rustls error in it.
    fn handshake(peer: usize, source: TlsSetupError) -> Self {
        let tls = match &source {
            TlsSetupError::Tls(e) => Some(e),
            TlsSetupError::Io(e) => e.get_ref().and_then(|e| e.downcast_ref::<RustlsError>()),
            _ => None,
        };
        match tls {
            Some(RustlsError::InvalidCertificate(e)) => Self::certificate(peer, e),
            _ => TlsMeshError::Handshake { peer, source },
        }
    }

    /// A refused certificate of `peer`: of another party, or untrusted.
    fn certificate(peer: usize, e: &CertificateError) -> Self {
        let reason = e.to_string();
        match e {
            CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. } => {
                TlsMeshError::WrongIdentity { peer, reason }
            }
            _ => TlsMeshError::UntrustedCertificate { peer, reason },
        }
    }
}

/// A [`TlsMeshError`] as a [`MeshError::Setup`] naming the same peer, for
/// callers that handle every mesh the same way.
impl From<TlsMeshError> for MeshError {
    fn from(e: TlsMeshError) -> Self {
        match e {
            TlsMeshError::Mesh(e) => e,
            other => MeshError::setup(other.peer(), other.to_string()),
        }
    }
}

/// Receives on a TLS link look at the decrypted plaintext the channel's
/// own reader thread keeps (its socket carries TLS records, not frames).
impl MeshChannel for TlsChannel {
    /// Waits in slices of 20 ms for a whole frame, checking `stop` between
    /// them; nothing is consumed until the frame is there, so giving up is
    /// safe. Gives up with [`ChannelError::Closed`] once `stop` is set.
    fn recv_stoppable(
        &mut self,
        buf: &mut Vec<u8>,
        max_len: usize,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<(), ChannelError> {
        let start = Instant::now();
        loop {
            let left = timeout.saturating_sub(start.elapsed());
            if self.frame_ready(max_len, left.min(STOP_POLL)) {
                return self.recv_into(buf, max_len);
            }
            if stop.load(Ordering::Relaxed) {
                return Err(ChannelError::Closed);
            }
            if left.is_zero() {
                return Err(ChannelError::Timeout { after: timeout });
            }
        }
    }

    /// Receives if a whole frame is decrypted already (or the receive
    /// fails at once: oversized, hung up).
    fn try_recv_now(
        &mut self,
        buf: &mut Vec<u8>,
        max_len: usize,
        _timeout: Duration,
    ) -> Option<Result<(), ChannelError>> {
        self.frame_ready(max_len, Duration::ZERO)
            .then(|| self.recv_into(buf, max_len))
    }

    /// Sends close_notify and half-closes ([`TlsChannel::close`]).
    fn hang_up(&mut self) {
        TlsChannel::hang_up(self)
    }

    /// Waits for the peer's hang-up ([`TlsChannel::close`]).
    fn await_peer_hang_up(self) {
        TlsChannel::await_peer_hang_up(self)
    }
}

impl ChannelMesh<TlsChannel> {
    /// Joins the TLS mesh as party `me` of `peers.len()` parties: listens on
    /// `peers[me]` and connects to the others (see [`TlsMesh`]), presenting
    /// `identity` (which should name [`party_name`]`(me)`) and accepting
    /// peers certified by `trust`.
    pub fn connect(
        me: usize,
        peers: &[SocketAddr],
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
    ) -> Result<TlsMesh, TlsMeshError> {
        let addr = *peers.get(me).ok_or_else(|| out_of_range(me, peers.len()))?;
        let listener = TcpListener::bind(addr)
            .map_err(|e| MeshError::setup(None, format!("cannot listen on {addr}: {e}")))?;
        Self::connect_with_listener(me, listener, peers, identity, trust, timeout)
    }

    /// As [`TlsMesh::connect`], with an already-bound listener for our own
    /// address (`peers[me]` is then not used; tests bind port 0 first).
    pub fn connect_with_listener(
        me: usize,
        listener: TcpListener,
        peers: &[SocketAddr],
        identity: &TlsIdentity,
        trust: &TlsTrust,
        timeout: Duration,
    ) -> Result<TlsMesh, TlsMeshError> {
        let n = peers.len();
        if me >= n {
            return Err(out_of_range(me, n).into());
        }
        let deadline = Instant::now() + timeout;
        let limits = TlsHandshake::default().with_deadline(deadline);
        let mut channels: Vec<Option<TlsChannel>> = (0..n).map(|_| None).collect();
        for (j, slot) in channels.iter_mut().enumerate().take(me) {
            let stream = dial(me, n, j, peers[j], deadline)?;
            let chan =
                TlsChannel::client_with(stream, &party_name(j), identity, trust, timeout, &limits)
                    .map_err(|e| TlsMeshError::handshake(j, e))?;
            *slot = Some(chan.with_timeout(timeout));
        }
        let setup = ServerSetup::new(identity, trust)
            .map_err(|e| MeshError::setup(None, format!("TLS configuration: {e}")))?;
        let listen_err = |e: io::Error| MeshError::setup(None, format!("listener: {e}"));
        listener.set_nonblocking(true).map_err(listen_err)?;
        // Each accepted connection's claim and handshake run on a thread of
        // their own, bounded by the set-up deadline, so one slow or silent
        // client does not hold the others; results come back here.
        let (done_tx, done_rx) = mpsc::channel::<Result<(usize, TlsChannel), TlsMeshError>>();
        while let Some(missing) = (me + 1..n).find(|&j| channels[j].is_none()) {
            while let Ok(res) = done_rx.try_recv() {
                let (k, chan) = res?;
                if channels[k].is_some() {
                    return Err(MeshError::setup(k, format!("duplicate party index {k}")).into());
                }
                channels[k] = Some(chan.with_timeout(timeout));
            }
            if (me + 1..n).all(|j| channels[j].is_some()) {
                break;
            }
            match accept_now(&listener).map_err(listen_err)? {
                Some((stream, addr)) => {
                    let (setup, tx) = (setup.clone(), done_tx.clone());
                    let spawned =
                        thread::Builder::new()
                            .name("ot-tls-accept".into())
                            .spawn(move || {
                                let _ =
                                    tx.send(serve(stream, addr, me, n, &setup, timeout, &limits));
                            });
                    spawned.map_err(|e| MeshError::setup(None, format!("thread: {e}")))?;
                }
                None if Instant::now() >= deadline => {
                    let waiting: Vec<usize> =
                        (me + 1..n).filter(|&j| channels[j].is_none()).collect();
                    return Err(MeshError::setup(
                        missing,
                        format!("parties {waiting:?} did not connect within the time-out"),
                    )
                    .into());
                }
                None => thread::sleep(ACCEPT_POLL),
            }
        }
        listener.set_nonblocking(false).map_err(listen_err)?;
        Ok(ChannelMesh::from_channels(me, channels, timeout)?)
    }
}

/// One accepted connection: reads its index claim, runs the TLS handshake
/// as server and checks the certificate names the claimed party.
fn serve(
    stream: TcpStream,
    addr: SocketAddr,
    me: usize,
    n: usize,
    setup: &ServerSetup,
    timeout: Duration,
    limits: &TlsHandshake,
) -> Result<(usize, TlsChannel), TlsMeshError> {
    let deadline = limits
        .deadline()
        .unwrap_or_else(|| Instant::now() + timeout);
    let k = read_claim(&stream, me, n, deadline)
        .map_err(|e| MeshError::setup(None, format!("index claim from {addr}: {e}")))?;
    let chan = TlsChannel::server_on(stream, setup, timeout, limits)
        .map_err(|e| TlsMeshError::handshake(k, e))?;
    check_names(&chan, k)?;
    Ok((k, chan))
}

/// The time left until `deadline` (at least a millisecond).
fn left(deadline: Instant) -> Duration {
    deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1))
}

fn out_of_range(me: usize, n: usize) -> MeshError {
    MeshError::setup(None, format!("party index {me} out of range for {n} peers"))
}

/// Connects to party `j` at `addr` (retrying while it is not listening
/// yet) and sends our index claim.
fn dial(
    me: usize,
    n: usize,
    j: usize,
    addr: SocketAddr,
    deadline: Instant,
) -> Result<TcpStream, MeshError> {
    let failed =
        |e: io::Error| MeshError::setup(j, format!("cannot connect to party {j} at {addr}: {e}"));
    let mut stream = connect_retrying(addr, deadline).map_err(failed)?;
    let word = |v: usize| u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes();
    let mut claim = [0u8; CLAIM];
    claim[..8].copy_from_slice(&CLAIM_MAGIC);
    claim[8..12].copy_from_slice(&word(me));
    claim[12..].copy_from_slice(&word(n));
    stream
        .set_write_timeout(Some(left(deadline)))
        .and_then(|()| stream.write_all(&claim))
        .map_err(failed)?;
    Ok(stream)
}

/// Reads an accepted connection's index claim (all of it before
/// `deadline`: every read is armed with what is left, so a trickling
/// client cannot extend it) and checks it: the right magic and n, an index
/// above `me` and in range (duplicates are refused when the link is placed).
fn read_claim(stream: &TcpStream, me: usize, n: usize, deadline: Instant) -> io::Result<usize> {
    let invalid = |why: String| io::Error::new(io::ErrorKind::InvalidData, why);
    let mut claim = [0u8; CLAIM];
    let mut got = 0;
    while got < CLAIM {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                format!("{got} of {CLAIM} bytes within the set-up time-out"),
            ));
        }
        stream.set_read_timeout(Some(left))?;
        match (&mut &*stream).read(&mut claim[got..]) {
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(k) => got += k,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock
                        | io::ErrorKind::TimedOut
                        | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Err(e),
        }
    }
    stream.set_read_timeout(None)?;
    if claim[..8] != CLAIM_MAGIC {
        return Err(invalid("not a TLS mesh peer (bad magic or version)".into()));
    }
    let word = |at: usize| {
        let mut w = [0u8; 4];
        w.copy_from_slice(&claim[at..at + 4]);
        u32::from_le_bytes(w) as usize
    };
    let (k, their_n) = (word(8), word(12));
    if their_n != n {
        return Err(invalid(format!(
            "the peer claiming index {k} has n = {their_n}, not {n}"
        )));
    }
    if k >= n {
        Err(invalid(format!("index {k} out of range for {n} parties")))
    } else if k <= me {
        Err(invalid(format!(
            "index {k} is not above ours ({me}): lower indices are dialled, not accepted"
        )))
    } else {
        Ok(k)
    }
}

/// Checks that the certificate party `k` presented names `party-<k>`.
fn check_names(chan: &TlsChannel, k: usize) -> Result<(), TlsMeshError> {
    let leaf =
        chan.peer_certificates()
            .first()
            .ok_or_else(|| TlsMeshError::UntrustedCertificate {
                peer: k,
                reason: "no certificate presented".into(),
            })?;
    let name =
        ServerName::try_from(party_name(k)).map_err(|e| MeshError::setup(k, e.to_string()))?;
    let checked = rustls::server::ParsedCertificate::try_from(leaf)
        .and_then(|cert| rustls::client::verify_server_name(&cert, &name));
    match checked {
        Ok(()) => Ok(()),
        Err(RustlsError::InvalidCertificate(e)) => Err(TlsMeshError::certificate(k, &e)),
        Err(e) => Err(TlsMeshError::UntrustedCertificate {
            peer: k,
            reason: e.to_string(),
        }),
    }
}

/// Builds the `n` endpoints of a TLS mesh over the loopback interface in
/// this process under a fresh [`TestPki`] (certificates `party-0` ..
/// `party-<n-1>`), party `i` at position `i`; for tests and benchmarks.
/// Time-out 30 s.
pub fn local_tls_mesh(n: usize) -> Result<Vec<TlsMesh>, TlsMeshError> {
    let names: Vec<String> = (0..n).map(party_name).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let setup = |e: TlsSetupError| MeshError::setup(None, format!("test PKI: {e}"));
    let pki = TestPki::generate(&names).map_err(setup)?;
    let trust = pki.trust().map_err(setup)?;
    let parties = (0..n)
        .map(|i| Ok((pki.identity(i).map_err(setup)?, trust.clone())))
        .collect::<Result<Vec<_>, TlsMeshError>>()?;
    local_tls_mesh_with(parties, LOCAL_TIMEOUT)
        .into_iter()
        .collect()
}

/// Builds a TLS mesh over the loopback interface in this process where
/// party `i` presents `parties[i].0` and trusts `parties[i].1` (set-up runs
/// on one thread per party); returns each party's outcome, for tests of
/// refused peers (a certificate from another CA or for another index).
pub fn local_tls_mesh_with(
    parties: Vec<(TlsIdentity, TlsTrust)>,
    timeout: Duration,
) -> Vec<Result<TlsMesh, TlsMeshError>> {
    let listeners: Vec<io::Result<TcpListener>> = parties
        .iter()
        .map(|_| TcpListener::bind(("127.0.0.1", 0)))
        .collect();
    let addrs: io::Result<Vec<SocketAddr>> = listeners
        .iter()
        .map(|l| {
            l.as_ref()
                .map_err(|e| io::Error::new(e.kind(), e.to_string()))?
                .local_addr()
        })
        .collect();
    let addrs = match addrs {
        Ok(addrs) => addrs,
        Err(e) => {
            let err = || MeshError::setup(None, format!("cannot listen on loopback: {e}")).into();
            return parties.iter().map(|_| Err(err())).collect();
        }
    };
    let addrs = &addrs;
    thread::scope(|s| {
        let handles: Vec<_> = listeners
            .into_iter()
            .zip(parties)
            .enumerate()
            .map(|(i, (l, (id, trust)))| {
                s.spawn(move || {
                    let l = l.map_err(|e| MeshError::setup(None, format!("listener: {e}")))?;
                    TlsMesh::connect_with_listener(i, l, addrs, &id, &trust, timeout)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}
