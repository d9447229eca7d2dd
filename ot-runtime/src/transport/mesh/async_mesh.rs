//! Async meshes (cargo feature `tokio`): the [`AsyncMesh`] trait that the
//! generated n-party async drivers (`run_async`) talk through, and
//! [`TokioMesh`], its implementation over one tokio byte stream per peer
//! (in memory over `tokio::io::duplex`, [`memory_tokio_mesh`], or TCP,
//! [`local_tokio_tcp_mesh`] and [`TokioMesh::from_streams`] for streams you
//! connect yourself).
//!
//! Frames are those of the blocking TCP mesh: an 8-byte little-endian
//! payload length, then the payload.
//!
//! A generated driver writes all of a round's frames before it reads any.
//! So that two parties writing large frames to each other never wait on
//! each other's socket buffers, every link of a [`TokioMesh`] has a writer
//! task (spawned on the current tokio runtime) that drains a queue of
//! frames: [`AsyncMesh::send_to`] only queues, and reads proceed while the
//! frames are written. A round's frames are held until written, which the
//! protocol's memory budget already counts (they are its messages).
//!
//! A party whose run fails tells its peers, as over the blocking meshes:
//! [`AsyncMesh::notify_abort`] queues an [`AbortNotice`] (the frame format
//! of the TCP channels' notices) behind the frames already sent, and a
//! peer that reads it reports [`MeshError::PeerAborted`] naming the culprit
//! on the notice's word. Differences from the blocking meshes:
//! [`AsyncMesh::recv_any`] reads the peers in the order given rather than
//! in arrival order, and there is no read-ahead bound to announce (the
//! reader reads only what the driver asks for). Time-outs are the
//! caller's: wrap the driver's future in `tokio::time::timeout`.

use super::{Hello, MeshError, MAX_HELLO};
use crate::transport::channel::notice::{notice_header, notice_len};
use crate::transport::channel::{AbortNotice, BoxFuture, ChannelError, ChannelStats, StatsCounter};
use std::io;
use std::sync::{Arc, Mutex};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadHalf};
use tokio::sync::mpsc;

/// Size of the length prefix of each frame.
const HEADER: usize = 8;

/// The async twin of [`Mesh`](super::Mesh): party `me` of `parties`, with a
/// reliable, ordered, framed link to every other party, whose operations
/// are futures (boxed, so the trait is dyn-compatible, like
/// [`AsyncChannel`](crate::transport::channel::AsyncChannel)).
pub trait AsyncMesh: Send {
    /// This party's index, 0-based (`P[me]`).
    fn me(&self) -> usize;

    /// Number of parties n.
    fn parties(&self) -> usize;

    /// Sends one frame to `peer` (may queue; never waits for the peer to
    /// read it).
    fn send_to<'a>(
        &'a mut self,
        peer: usize,
        msg: &'a [u8],
    ) -> BoxFuture<'a, Result<(), MeshError>>;

    /// As [`AsyncMesh::send_to`], taking an owned buffer; the default
    /// sends `&msg`.
    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> BoxFuture<'_, Result<(), MeshError>> {
        Box::pin(async move { self.send_to(peer, &msg).await })
    }

    /// Surfaces a failed write to any peer (the frames go out on their
    /// own).
    fn flush(&mut self) -> BoxFuture<'_, Result<(), MeshError>>;

    /// Receives the next frame from `peer` into `buf` (cleared first), at
    /// most `max_len` bytes (else [`ChannelError::Oversized`] in a
    /// [`MeshError::Peer`]).
    fn recv_from<'a>(
        &'a mut self,
        peer: usize,
        buf: &'a mut Vec<u8>,
        max_len: usize,
    ) -> BoxFuture<'a, Result<(), MeshError>>;

    /// Receives the next frame from one peer of `from` and returns that
    /// peer; the default reads the first peer of `from` (`from` must not
    /// be empty: else [`MeshError::Setup`]).
    fn recv_any<'a>(
        &'a mut self,
        from: &'a [usize],
        buf: &'a mut Vec<u8>,
        max_len: usize,
    ) -> BoxFuture<'a, Result<usize, MeshError>> {
        Box::pin(async move {
            let Some(&peer) = from.first() else {
                return Err(MeshError::setup(None, "recv_any from no peer"));
            };
            self.recv_from(peer, buf, max_len).await?;
            Ok(peer)
        })
    }

    /// Traffic counters of the link to `peer` (all zero for an index with
    /// no link).
    fn stats(&self, peer: usize) -> ChannelStats;

    /// Tells every peer, best effort, that this party aborts (`notice`:
    /// round, reason, suspects), after the frames already sent; a peer
    /// still reading from this party then reports
    /// [`MeshError::PeerAborted`]. Never fails; the default sends nothing.
    fn notify_abort<'a>(&'a mut self, notice: &'a AbortNotice) -> BoxFuture<'a, ()> {
        let _ = notice;
        Box::pin(async {})
    }
}

impl<M: AsyncMesh + ?Sized> AsyncMesh for &mut M {
    fn me(&self) -> usize {
        (**self).me()
    }
    fn parties(&self) -> usize {
        (**self).parties()
    }
    fn send_to<'a>(
        &'a mut self,
        peer: usize,
        msg: &'a [u8],
    ) -> BoxFuture<'a, Result<(), MeshError>> {
        (**self).send_to(peer, msg)
    }
    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> BoxFuture<'_, Result<(), MeshError>> {
        (**self).send_vec_to(peer, msg)
    }
    fn flush(&mut self) -> BoxFuture<'_, Result<(), MeshError>> {
        (**self).flush()
    }
    fn recv_from<'a>(
        &'a mut self,
        peer: usize,
        buf: &'a mut Vec<u8>,
        max_len: usize,
    ) -> BoxFuture<'a, Result<(), MeshError>> {
        (**self).recv_from(peer, buf, max_len)
    }
    fn recv_any<'a>(
        &'a mut self,
        from: &'a [usize],
        buf: &'a mut Vec<u8>,
        max_len: usize,
    ) -> BoxFuture<'a, Result<usize, MeshError>> {
        (**self).recv_any(from, buf, max_len)
    }
    fn stats(&self, peer: usize) -> ChannelStats {
        (**self).stats(peer)
    }
    fn notify_abort<'a>(&'a mut self, notice: &'a AbortNotice) -> BoxFuture<'a, ()> {
        (**self).notify_abort(notice)
    }
}

/// What a link's writer task writes: a frame, or an abort notice (its own
/// header, [`notice_header`]).
enum Outgoing {
    Frame(Vec<u8>),
    Notice(Vec<u8>),
}

/// The first write error of a link's writer task, if any.
type WriteError = Arc<Mutex<Option<io::ErrorKind>>>;

/// One link of a [`TokioMesh`]: its read half, the queue of its writer
/// task, the writer's first error and the traffic counters.
struct Link<S> {
    reader: ReadHalf<S>,
    queue: mpsc::UnboundedSender<Outgoing>,
    failed: WriteError,
    stats: StatsCounter,
}

/// Party `me` of a mesh over tokio byte streams `S` (one per peer), with a
/// writer task per link (see the module docs).
pub struct TokioMesh<S> {
    me: usize,
    links: Vec<Option<Link<S>>>,
}

impl<S> core::fmt::Debug for TokioMesh<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "TokioMesh {{ me: {}, parties: {} }}",
            self.me,
            self.links.len()
        )
    }
}

impl<S: AsyncRead + AsyncWrite + Send + 'static> TokioMesh<S> {
    /// Party `me` with `streams[p]` its connection to party `p` (`None` at
    /// `me`, `Some` everywhere else). Spawns one writer task per link on
    /// the current tokio runtime: outside one, [`MeshError::Setup`].
    pub fn from_streams(me: usize, streams: Vec<Option<S>>) -> Result<Self, MeshError> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| MeshError::setup(None, "an async mesh needs a tokio runtime"))?;
        if me >= streams.len() {
            return Err(MeshError::setup(None, "party index out of range"));
        }
        let mut links = Vec::with_capacity(streams.len());
        for (p, s) in streams.into_iter().enumerate() {
            match (p == me, s) {
                (true, None) => links.push(None),
                (true, Some(_)) => return Err(MeshError::setup(p, "a link to itself")),
                (false, None) => return Err(MeshError::setup(p, "no link to this peer")),
                (false, Some(s)) => links.push(Some(Link::spawn(&runtime, s))),
            }
        }
        Ok(TokioMesh { me, links })
    }

    fn link(&mut self, peer: usize) -> Result<&mut Link<S>, MeshError> {
        self.links
            .get_mut(peer)
            .and_then(Option::as_mut)
            .ok_or_else(|| MeshError::setup(peer, "no link to this peer"))
    }
}

impl<S: AsyncRead + AsyncWrite + Send + 'static> Link<S> {
    /// Splits `stream` and spawns the writer task of its write half.
    fn spawn(runtime: &tokio::runtime::Handle, stream: S) -> Link<S> {
        let (reader, mut writer) = tokio::io::split(stream);
        let (queue, mut frames) = mpsc::unbounded_channel::<Outgoing>();
        let failed: WriteError = Arc::default();
        let slot = failed.clone();
        runtime.spawn(async move {
            while let Some(out) = frames.recv().await {
                let (header, frame) = match out {
                    Outgoing::Frame(f) => ((f.len() as u64).to_le_bytes(), f),
                    Outgoing::Notice(n) => (notice_header(n.len()), n),
                };
                let res = match writer.write_all(&header).await {
                    Ok(()) => writer.write_all(&frame).await,
                    Err(e) => Err(e),
                };
                if let Err(e) = res.and(Ok(())) {
                    if let Ok(mut s) = slot.lock() {
                        s.get_or_insert(e.kind());
                    }
                    return;
                }
                if frames.is_empty() {
                    if let Err(e) = writer.flush().await {
                        if let Ok(mut s) = slot.lock() {
                            s.get_or_insert(e.kind());
                        }
                        return;
                    }
                }
            }
            let _ = writer.shutdown().await;
        });
        Link {
            reader,
            queue,
            failed,
            stats: StatsCounter::default(),
        }
    }

    /// The writer's first error, as a channel error.
    fn write_error(&self) -> Option<ChannelError> {
        let kind = (*self.failed.lock().ok()?)?;
        Some(if crate::transport::channel::is_hangup(kind) {
            ChannelError::Closed
        } else {
            ChannelError::Io(io::Error::from(kind))
        })
    }

    async fn read_full(&mut self, out: &mut [u8], frame: usize) -> Result<(), ChannelError> {
        let mut got = 0;
        while got < out.len() {
            let n = match self.reader.read(&mut out[got..]).await {
                Ok(n) => n,
                Err(e) if crate::transport::channel::is_hangup(e.kind()) => 0,
                Err(e) => return Err(ChannelError::Io(e)),
            };
            if n == 0 {
                return Err(if got == 0 && frame == 0 {
                    ChannelError::Closed
                } else {
                    ChannelError::Truncated {
                        expected: frame.max(HEADER),
                        got,
                    }
                });
            }
            got += n;
        }
        Ok(())
    }

    async fn recv(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        buf.clear();
        let mut header = [0u8; HEADER];
        self.read_full(&mut header, 0).await?;
        let announced = u64::from_le_bytes(header);
        if let Some(len) = notice_len(announced) {
            let len = len?;
            let mut body = vec![0u8; len];
            self.read_full(&mut body, len).await?;
            return Err(ChannelError::PeerAborted(AbortNotice::decode(&body)?));
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
        buf.resize(len, 0);
        self.read_full(buf, len).await?;
        self.stats.on_recv(len);
        Ok(())
    }
}

impl<S: AsyncRead + AsyncWrite + Send + 'static> AsyncMesh for TokioMesh<S> {
    fn me(&self) -> usize {
        self.me
    }

    fn parties(&self) -> usize {
        self.links.len()
    }

    fn send_to<'a>(
        &'a mut self,
        peer: usize,
        msg: &'a [u8],
    ) -> BoxFuture<'a, Result<(), MeshError>> {
        let msg = msg.to_vec();
        self.send_vec_to(peer, msg)
    }

    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> BoxFuture<'_, Result<(), MeshError>> {
        Box::pin(async move {
            let link = self.link(peer)?;
            if let Some(source) = link.write_error() {
                return Err(MeshError::Peer { peer, source });
            }
            let len = msg.len();
            link.queue
                .send(Outgoing::Frame(msg))
                .map_err(|_| MeshError::Peer {
                    peer,
                    source: ChannelError::Closed,
                })?;
            link.stats.on_send(len);
            Ok(())
        })
    }

    fn flush(&mut self) -> BoxFuture<'_, Result<(), MeshError>> {
        Box::pin(async move {
            for (peer, link) in self.links.iter().enumerate() {
                if let Some(source) = link.as_ref().and_then(Link::write_error) {
                    return Err(MeshError::Peer { peer, source });
                }
            }
            Ok(())
        })
    }

    fn recv_from<'a>(
        &'a mut self,
        peer: usize,
        buf: &'a mut Vec<u8>,
        max_len: usize,
    ) -> BoxFuture<'a, Result<(), MeshError>> {
        Box::pin(async move {
            let me = self.me;
            let link = self.link(peer)?;
            link.recv(buf, max_len)
                .await
                .map_err(|source| MeshError::from_link(me, peer, source))
        })
    }

    fn stats(&self, peer: usize) -> ChannelStats {
        self.links
            .get(peer)
            .and_then(Option::as_ref)
            .map(|l| l.stats.get())
            .unwrap_or_default()
    }

    fn notify_abort<'a>(&'a mut self, notice: &'a AbortNotice) -> BoxFuture<'a, ()> {
        let bytes = notice.encode();
        for link in self.links.iter().flatten() {
            let _ = link.queue.send(Outgoing::Notice(bytes.clone()));
        }
        Box::pin(async {})
    }
}

/// Every pair `i < j` of `n` parties.
fn pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(move |i| (i + 1..n).map(move |j| (i, j)))
}

/// `n` parties in memory, linked pairwise by `tokio::io::duplex` streams
/// (each direction buffering `buffer` bytes); must be called inside a
/// tokio runtime (the writer tasks are spawned on it).
pub fn memory_tokio_mesh(
    n: usize,
    buffer: usize,
) -> Result<Vec<TokioMesh<tokio::io::DuplexStream>>, MeshError> {
    let mut streams: Vec<Vec<Option<tokio::io::DuplexStream>>> =
        (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
    for (i, j) in pairs(n) {
        let (a, b) = tokio::io::duplex(buffer.max(1));
        streams[i][j] = Some(a);
        streams[j][i] = Some(b);
    }
    streams
        .into_iter()
        .enumerate()
        .map(|(me, s)| TokioMesh::from_streams(me, s))
        .collect()
}

/// `n` parties over TCP on the loopback interface (one connection per
/// pair: party `j > i` connects to a listener of party `i`).
pub async fn local_tokio_tcp_mesh(n: usize) -> io::Result<Vec<TokioMesh<tokio::net::TcpStream>>> {
    let mut streams: Vec<Vec<Option<tokio::net::TcpStream>>> =
        (0..n).map(|_| (0..n).map(|_| None).collect()).collect();
    for (i, j) in pairs(n) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let addr = listener.local_addr()?;
        // The connection completes in the listener's backlog.
        let b = tokio::net::TcpStream::connect(addr).await?;
        let (a, _) = listener.accept().await?;
        a.set_nodelay(true)?;
        b.set_nodelay(true)?;
        streams[i][j] = Some(a);
        streams[j][i] = Some(b);
    }
    streams
        .into_iter()
        .enumerate()
        .map(|(me, s)| TokioMesh::from_streams(me, s).map_err(io::Error::other))
        .collect()
}

/// The session hello of an async driver, checked eagerly: sends our hello
/// ([`Hello`] with [`AsyncMesh::me`] and [`AsyncMesh::parties`]) to every
/// peer, then reads and compares every peer's before the first round (the
/// blocking drivers check it lazily, [`super::Greeting`]; the binding is
/// the same: a peer whose hello differs is [`MeshError::Mismatch`], a
/// frame that is not a hello [`MeshError::Setup`]).
pub async fn handshake_async<M: AsyncMesh + ?Sized>(
    mesh: &mut M,
    hello: &Hello,
) -> Result<(), MeshError> {
    let (me, n) = (mesh.me(), mesh.parties());
    let (ours, frame) = super::hello::stated(hello, me, n)?;
    for peer in (0..n).filter(|&p| p != me) {
        mesh.send_to(peer, &frame).await?;
    }
    mesh.flush().await?;
    let mut buf = Vec::new();
    for peer in (0..n).filter(|&p| p != me) {
        mesh.recv_from(peer, &mut buf, MAX_HELLO).await?;
        let theirs = super::hello::Stated::decode(&buf).map_err(|e| MeshError::setup(peer, e))?;
        if let Some(field) = ours.first_difference(&theirs, peer) {
            return Err(MeshError::Mismatch { peer, field });
        }
    }
    Ok(())
}
