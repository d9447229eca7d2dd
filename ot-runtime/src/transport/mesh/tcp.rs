//! The TCP mesh: party `i` listens on its own address of a peers list,
//! dials every lower index and accepts every higher one.

use std::io::{self, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

use super::net::{accept_before, connect_retrying};
use super::{ChannelMesh, HelloField, MeshChannel, MeshError};
use crate::transport::channel::TcpChannel;

/// First bytes of the transport hello: names the format and its version.
const MAGIC: [u8; 8] = *b"OTPMESH1";
/// Transport hello: magic, then the sender's index and n (`u32` LE each).
const TRANSPORT_HELLO: usize = 16;
/// Time-out of the meshes [`local_tcp_mesh`] builds.
const LOCAL_TIMEOUT: Duration = Duration::from_secs(30);

/// One party's endpoint of a TCP mesh: a [`ChannelMesh`] of
/// [`TcpChannel`]s, one connection per peer.
///
/// Set-up ([`TcpMesh::connect`]): party `me` listens on `peers[me]`, dials
/// every party `j < me` at `peers[j]` (retrying until the time-out while
/// that party is not listening yet) and accepts a connection from every
/// party `j > me`. On each connection both ends first send a 16-byte
/// *transport hello* (magic, own index, n) and read the other's, which maps
/// accepted connections to party indices. Refused, as typed errors naming
/// the peer: another n ([`MeshError::Mismatch`] with
/// [`HelloField::PartyCount`]), a dialled peer that is not the party we
/// meant to reach ([`HelloField::PartyIndex`]), and, as
/// [`MeshError::Setup`], an index out of range, a duplicate index (two
/// connections, or a connection claiming our own index), a connection from
/// a lower index, or a byte stream that is no transport hello. The session
/// hello ([`super::handshake`]) follows on top.
///
/// Memory and time-outs are those of [`TcpChannel`] per link (64 MiB write
/// queue, bounded read-ahead, every receive bounded by its `max_len`), plus
/// the one frame a link may hold for [`Mesh::recv_any`](super::Mesh::recv_any).
/// `timeout` bounds the whole set-up and is then each channel's no-progress
/// time-out.
pub type TcpMesh = ChannelMesh<TcpChannel>;

/// A [`TcpChannel`] blocked in a receive on a reader thread is woken by the
/// mesh shutting its socket down for reading.
impl MeshChannel for TcpChannel {}

impl ChannelMesh<TcpChannel> {
    /// Joins the mesh as party `me` of `peers.len()` parties: listens on
    /// `peers[me]` and connects to the others (see [`TcpMesh`]).
    pub fn connect(
        me: usize,
        peers: &[SocketAddr],
        timeout: Duration,
    ) -> Result<TcpMesh, MeshError> {
        let addr = own_address(me, peers)?;
        let listener = TcpListener::bind(addr)
            .map_err(|e| MeshError::setup(None, format!("cannot listen on {addr}: {e}")))?;
        Self::connect_with_listener(me, listener, peers, timeout)
    }

    /// As [`TcpMesh::connect`], with an already-bound listener for our own
    /// address (`peers[me]` is then not used; tests bind port 0 first).
    pub fn connect_with_listener(
        me: usize,
        listener: TcpListener,
        peers: &[SocketAddr],
        timeout: Duration,
    ) -> Result<TcpMesh, MeshError> {
        own_address(me, peers)?;
        let deadline = Instant::now() + timeout;
        let n = peers.len();
        let mut streams: Vec<Option<TcpStream>> = (0..n).map(|_| None).collect();
        for (j, slot) in streams.iter_mut().enumerate().take(me) {
            *slot = Some(dial(me, n, j, peers[j], deadline)?);
        }
        accept_all(me, n, &listener, deadline, &mut streams)?;

        let mut sockets = Vec::with_capacity(n);
        let mut channels = Vec::with_capacity(n);
        for (j, stream) in streams.into_iter().enumerate() {
            let chan = match stream {
                Some(stream) => {
                    let failed = |e: io::Error| MeshError::setup(j, format!("connection: {e}"));
                    sockets.push((j, stream.try_clone().map_err(failed)?));
                    let chan = TcpChannel::from_stream(stream).map_err(failed)?;
                    Some(chan.with_timeout(timeout))
                }
                None => None,
            };
            channels.push(chan);
        }
        let mut mesh = ChannelMesh::from_channels(me, channels, timeout)?;
        for (j, socket) in sockets {
            mesh.set_socket(j, socket);
        }
        Ok(mesh)
    }
}

/// Checks `me` against the peers list and returns our own address.
fn own_address(me: usize, peers: &[SocketAddr]) -> Result<SocketAddr, MeshError> {
    peers.get(me).copied().ok_or_else(|| {
        MeshError::setup(
            None,
            format!("party index {me} out of range for {} peers", peers.len()),
        )
    })
}

/// Connects to party `j` at `addr` (retrying while it is not listening yet)
/// and checks that it is party `j` of `n`.
fn dial(
    me: usize,
    n: usize,
    j: usize,
    addr: SocketAddr,
    deadline: Instant,
) -> Result<TcpStream, MeshError> {
    let stream = connect_retrying(addr, deadline)
        .map_err(|e| MeshError::setup(j, format!("cannot connect to party {j} at {addr}: {e}")))?;
    let (their_me, their_n) = exchange(&stream, me, n, deadline)
        .map_err(|e| MeshError::setup(j, format!("transport hello with {addr}: {e}")))?;
    if their_n != n {
        return Err(MeshError::Mismatch {
            peer: j,
            field: HelloField::PartyCount,
        });
    }
    if their_me != j {
        return Err(MeshError::Mismatch {
            peer: j,
            field: HelloField::PartyIndex,
        });
    }
    Ok(stream)
}

/// Accepts a connection from every party `j > me`, filing each under the
/// index its transport hello states.
fn accept_all(
    me: usize,
    n: usize,
    listener: &TcpListener,
    deadline: Instant,
    streams: &mut [Option<TcpStream>],
) -> Result<(), MeshError> {
    let listen_err = |e: io::Error| MeshError::setup(None, format!("listener: {e}"));
    listener.set_nonblocking(true).map_err(listen_err)?;
    while let Some(missing) = (me + 1..n).find(|&j| streams[j].is_none()) {
        let Some((stream, addr)) = accept_before(listener, deadline).map_err(listen_err)? else {
            let waiting: Vec<usize> = (me + 1..n).filter(|&j| streams[j].is_none()).collect();
            return Err(MeshError::setup(
                missing,
                format!("parties {waiting:?} did not connect within the time-out"),
            ));
        };
        let hello_err =
            |e: io::Error| MeshError::setup(None, format!("transport hello from {addr}: {e}"));
        let (their_me, their_n) = exchange(&stream, me, n, deadline).map_err(hello_err)?;
        if their_n != n {
            return Err(MeshError::Mismatch {
                peer: their_me,
                field: HelloField::PartyCount,
            });
        }
        let refuse = |peer: Option<usize>, why: String| Err(MeshError::setup(peer, why));
        match streams.get(their_me) {
            None => {
                return refuse(
                    None,
                    format!("the peer at {addr} claims party index {their_me}, out of range for {n} parties"),
                )
            }
            Some(_) if their_me == me => {
                return refuse(
                    Some(me),
                    format!("duplicate party index: the peer at {addr} claims our own index {me}"),
                )
            }
            Some(Some(_)) => {
                return refuse(
                    Some(their_me),
                    format!("duplicate party index: a second connection (from {addr}) claims index {their_me}"),
                )
            }
            Some(None) if their_me < me => {
                return refuse(
                    Some(their_me),
                    format!("party {their_me} (at {addr}) connected to us, but lower indices are dialled, not accepted: do the peers lists agree?"),
                )
            }
            Some(None) => streams[their_me] = Some(stream),
        }
    }
    listener.set_nonblocking(false).map_err(listen_err)
}

/// Sends our transport hello on `stream` and reads the peer's: returns the
/// peer's index and n. Leaves the socket without time-outs.
fn exchange(
    stream: &TcpStream,
    me: usize,
    n: usize,
    deadline: Instant,
) -> io::Result<(usize, usize)> {
    let left = deadline
        .saturating_duration_since(Instant::now())
        .max(Duration::from_millis(1));
    stream.set_read_timeout(Some(left))?;
    stream.set_write_timeout(Some(left))?;
    let field = |v: usize| {
        u32::try_from(v)
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "index or n exceeds u32"))
    };
    let mut ours = [0u8; TRANSPORT_HELLO];
    ours[..8].copy_from_slice(&MAGIC);
    ours[8..12].copy_from_slice(&field(me)?.to_le_bytes());
    ours[12..].copy_from_slice(&field(n)?.to_le_bytes());
    let mut s = stream;
    s.write_all(&ours)?;
    let mut theirs = [0u8; TRANSPORT_HELLO];
    s.read_exact(&mut theirs)?;
    stream.set_read_timeout(None)?;
    stream.set_write_timeout(None)?;
    if theirs[..8] != MAGIC {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            "not a mesh peer (bad transport hello magic or version)",
        ));
    }
    let word = |at: usize| {
        let mut w = [0u8; 4];
        w.copy_from_slice(&theirs[at..at + 4]);
        u32::from_le_bytes(w) as usize
    };
    Ok((word(8), word(12)))
}

/// Builds the `n` endpoints of a TCP mesh over the loopback interface in
/// this process (listeners on `127.0.0.1`, ports chosen by the OS; set-up
/// runs on one thread per party), party `i` at position `i`; for tests and
/// benchmarks. Time-out 30 s.
pub fn local_tcp_mesh(n: usize) -> io::Result<Vec<TcpMesh>> {
    let listeners = (0..n)
        .map(|_| TcpListener::bind(("127.0.0.1", 0)))
        .collect::<io::Result<Vec<_>>>()?;
    let addrs = listeners
        .iter()
        .map(TcpListener::local_addr)
        .collect::<io::Result<Vec<_>>>()?;
    let addrs = &addrs;
    thread::scope(|s| {
        let handles: Vec<_> = listeners
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                s.spawn(move || TcpMesh::connect_with_listener(i, l, addrs, LOCAL_TIMEOUT))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| match h.join() {
                Ok(res) => res.map_err(io::Error::other),
                Err(p) => std::panic::resume_unwind(p),
            })
            .collect()
    })
}
