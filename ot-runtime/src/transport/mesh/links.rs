//! A mesh made of n-1 two-party channels, with arrival-order receives.

use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use super::{Mesh, MeshError};
use crate::transport::channel::{
    AbortNotice, Channel, ChannelError, ChannelStats, ShapedChannel, StatsCounter,
};

/// A two-party channel that can serve as one link of a [`ChannelMesh`].
///
/// The mesh may move the channel to a reader thread of its own for one
/// receive (that is how [`Mesh::recv_any`] sees frames in arrival order),
/// hence `Send + 'static`.
pub trait MeshChannel: Channel + Send + 'static {
    /// Receives one frame as [`Channel::recv_into`] on a reader thread,
    /// giving up within a short while once `stop` is set (the mesh was
    /// dropped). `timeout` is the link's receive time-out.
    ///
    /// The default just receives: such a channel's reader thread ends when
    /// the peer answers our hang-up with its own (as on a
    /// [`TcpMesh`](super::TcpMesh)) or at the time-out.
    fn recv_stoppable(
        &mut self,
        buf: &mut Vec<u8>,
        max_len: usize,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<(), ChannelError> {
        let _ = (timeout, stop);
        self.recv_into(buf, max_len)
    }

    /// Receives a frame only if one is there already, without waiting:
    /// `None` if there is none (or the channel cannot tell). `timeout` is the
    /// link's receive time-out. The default cannot tell.
    fn try_recv_now(
        &mut self,
        buf: &mut Vec<u8>,
        max_len: usize,
        timeout: Duration,
    ) -> Option<Result<(), ChannelError>> {
        let _ = (buf, max_len, timeout);
        None
    }

    /// Hangs up on the peer without waiting for it, as the first step of
    /// [`ChannelMesh::close`] on a link that has no socket of its own to
    /// close (a TCP link's socket is half-closed and drained instead). The
    /// default does nothing: the channel is closed when it is dropped.
    fn hang_up(&mut self) {}

    /// Waits until the peer hung up too (at most the link's time-out), as
    /// the last step of [`ChannelMesh::close`], after every link hung up.
    /// The default just drops the channel.
    fn await_peer_hang_up(self)
    where
        Self: Sized,
    {
    }
}

/// Shaped channels (added latency and bandwidth cap) make meshes for
/// network experiments: [`ChannelMesh::from_channels`] over
/// [`ShapedChannel`]s of memory or TCP channels.
impl<C: Channel + Send + 'static> MeshChannel for ShapedChannel<C> {}

/// One receive handed to a link's reader thread.
struct Job<C> {
    chan: C,
    buf: Vec<u8>,
    max_len: usize,
    timeout: Duration,
}

/// A finished receive, with the channel coming home.
struct Done<C> {
    peer: usize,
    chan: C,
    buf: Vec<u8>,
    res: Result<(), ChannelError>,
}

/// A frame (or error) a reader thread received and nobody took yet.
struct Arrived {
    /// Arrival number, for ordering among links.
    seq: u64,
    frame: Vec<u8>,
    res: Result<(), ChannelError>,
}

/// A link's channel, its counters and whether it has a frame pending.
type HomeLink<'a, C> = (&'a mut C, &'a mut StatsCounter, bool);

/// The link to one peer.
struct Link<C> {
    /// The channel, `None` while a reader thread receives on it.
    chan: Option<C>,
    /// Jobs for this link's reader thread, started on first use.
    jobs: Option<Sender<Job<C>>>,
    /// At most one frame received ahead (see the module docs).
    pending: Option<Arrived>,
    /// A spare receive buffer (the caller's previous one).
    spare: Vec<u8>,
    stats: StatsCounter,
    /// A handle on the link's socket (TCP links), to close it gracefully
    /// when the mesh is dropped.
    socket: Option<TcpStream>,
    /// An announcement ([`Mesh::expect_next_frame`]) made while a reader
    /// thread held the channel, applied when it comes home.
    announced: Option<Option<usize>>,
}

/// A [`Mesh`] made of one two-party [`MeshChannel`] per peer.
///
/// [`MemoryMesh`](super::MemoryMesh) and [`TcpMesh`](super::TcpMesh) are
/// this type over [`MemoryChannel`](crate::transport::channel::MemoryChannel) and
/// [`TcpChannel`](crate::transport::channel::TcpChannel); other channels (e.g. shaped
/// ones, for latency experiments) can be assembled with
/// [`ChannelMesh::from_channels`].
///
/// [`Mesh::send_to`] and [`Mesh::recv_from`] call the peer's channel
/// directly on the caller's thread. [`Mesh::recv_any`] takes a frame that
/// is there already ([`MeshChannel::try_recv_now`]; a TCP link's socket is
/// peeked) on the caller's thread too, yielding the processor a few times
/// between looks; if there is none it hands each
/// candidate channel to a reader thread of its link (started on first use,
/// one per link) for one receive and returns whichever frame arrives first; the
/// other links keep their one frame in progress (at most one per link, of
/// at most the `max_len` it was asked with) for the next receive from them.
/// A send to a link whose reader thread is still receiving waits for that
/// receive to finish: under the round discipline (a round's frames are all
/// sent before any is read) that frame is on its way.
///
/// Dropping the mesh hangs up on every peer; each peer sees the hang-up
/// ([`ChannelError::Closed`]) after the frames already sent to it. TCP links
/// are closed gracefully: shut down for writing once our frames are out,
/// then read (discarding) until the peer hangs up too, on a background
/// thread, because closing a socket with unread incoming data resets the
/// connection and a reset discards the peer's unread frames; a party that
/// aborts therefore never makes its peers lose its last messages (e.g. the
/// hash that makes them abort too). A reader thread still receiving when
/// the mesh is dropped drains its link the same way ([`MeshChannel::recv_stoppable`]
/// lets in-memory links give up at once).
pub struct ChannelMesh<C: MeshChannel> {
    me: usize,
    links: Vec<Option<Link<C>>>,
    done_tx: Sender<Done<C>>,
    done_rx: Receiver<Done<C>>,
    next_seq: u64,
    timeout: Duration,
    stop: Arc<AtomicBool>,
}

impl<C: MeshChannel> std::fmt::Debug for ChannelMesh<C> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChannelMesh")
            .field("me", &self.me)
            .field("parties", &self.links.len())
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

impl<C: MeshChannel> ChannelMesh<C> {
    /// Assembles party `me`'s mesh from its channels: `channels[j]` is the
    /// channel to party `j` (`None` at `me`, `Some` everywhere else), so
    /// `channels.len()` is the number of parties. `timeout` is the
    /// channels' receive time-out (used to bound a reader thread's wait).
    pub fn from_channels(
        me: usize,
        channels: Vec<Option<C>>,
        timeout: Duration,
    ) -> Result<Self, MeshError> {
        if me >= channels.len() {
            return Err(MeshError::setup(
                None,
                format!(
                    "party index {me} out of range for {} parties",
                    channels.len()
                ),
            ));
        }
        let mut links = Vec::with_capacity(channels.len());
        for (j, chan) in channels.into_iter().enumerate() {
            links.push(match (j == me, chan) {
                (true, None) => None,
                (false, Some(chan)) => Some(Link {
                    chan: Some(chan),
                    jobs: None,
                    pending: None,
                    spare: Vec::new(),
                    stats: StatsCounter::default(),
                    socket: None,
                    announced: None,
                }),
                (true, Some(_)) => return Err(MeshError::setup(j, "a channel to ourselves")),
                (false, None) => return Err(MeshError::setup(j, "no channel to this party")),
            });
        }
        let (done_tx, done_rx) = mpsc::channel();
        Ok(ChannelMesh {
            me,
            links,
            done_tx,
            done_rx,
            next_seq: 0,
            timeout,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Records the socket of the link to `peer`, to close it gracefully when
    /// the mesh is dropped.
    pub(super) fn set_socket(&mut self, peer: usize, socket: TcpStream) {
        if let Some(Some(link)) = self.links.get_mut(peer) {
            link.socket = Some(socket);
        }
    }

    /// Applies `f` to every channel (all are at home right after assembly).
    pub(super) fn for_each_channel(&mut self, mut f: impl FnMut(&mut C)) {
        for chan in self
            .links
            .iter_mut()
            .flatten()
            .filter_map(|l| l.chan.as_mut())
        {
            f(chan);
        }
    }

    /// Sets the time-out the reader threads bound their waits with.
    pub(super) fn set_mesh_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }

    /// The link to `peer`, or a setup error if there is none.
    fn link(&mut self, peer: usize) -> Result<&mut Link<C>, MeshError> {
        let n = self.links.len();
        match self.links.get_mut(peer) {
            Some(Some(link)) => Ok(link),
            _ => Err(MeshError::setup(
                peer,
                format!(
                    "no link to party {peer} (parties 0..{n}, this is {})",
                    self.me
                ),
            )),
        }
    }

    /// Takes one finished receive from the reader threads and files it as
    /// its link's pending frame.
    fn absorb_one(&mut self) -> Result<(), MeshError> {
        let done = self
            .done_rx
            .recv()
            .map_err(|_| MeshError::setup(None, "mesh reader threads are gone"))?;
        self.file(done);
        Ok(())
    }

    /// Files a finished receive of a reader thread as its link's pending
    /// frame, the channel back at home.
    fn file(&mut self, done: Done<C>) {
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(Some(link)) = self.links.get_mut(done.peer) {
            let mut chan = done.chan;
            if let Some(len) = link.announced.take() {
                chan.expect_next_frame(len);
            }
            link.chan = Some(chan);
            link.pending = Some(Arrived {
                seq,
                frame: done.buf,
                res: done.res,
            });
        }
    }

    /// The link to `peer` with its channel at home (waiting for a reader
    /// thread to bring it back): channel, counters and pending frame.
    fn home(&mut self, peer: usize) -> Result<HomeLink<'_, C>, MeshError> {
        while self.link(peer)?.chan.is_none() {
            self.absorb_one()?;
        }
        match self.links.get_mut(peer) {
            Some(Some(Link {
                chan: Some(chan),
                stats,
                pending,
                ..
            })) => Ok((chan, stats, pending.is_some())),
            _ => Err(MeshError::setup(peer, "link lost")),
        }
    }

    /// Hands the channel to `peer` to its reader thread for one receive.
    fn dispatch(&mut self, peer: usize, max_len: usize) -> Result<(), MeshError> {
        let me = self.me;
        let (done, stop, timeout) = (self.done_tx.clone(), Arc::clone(&self.stop), self.timeout);

        let link = self.link(peer)?;
        if link.jobs.is_none() {
            let (tx, rx) = mpsc::channel::<Job<C>>();
            thread::Builder::new()
                .name("ot-mesh-reader".into())
                .spawn(move || reader_loop(peer, &rx, &done, &stop))
                .map_err(|e| MeshError::setup(peer, format!("cannot start reader thread: {e}")))?;
            link.jobs = Some(tx);
        }
        // Everything sent to this peer reaches the socket before the reader
        // takes the channel: no frame of ours waits in it if the mesh is
        // dropped meanwhile (see `Drop`).
        if let Some(chan) = link.chan.as_mut() {
            chan.flush()
                .map_err(|source| MeshError::from_link(me, peer, source))?;
        }
        let (Some(chan), Some(jobs)) = (link.chan.take(), link.jobs.as_ref()) else {
            return Ok(());
        };
        let buf = std::mem::take(&mut link.spare);
        if let Err(mpsc::SendError(job)) = jobs.send(Job {
            chan,
            buf,
            max_len,
            timeout,
        }) {
            link.chan = Some(job.chan);
            return Err(MeshError::setup(peer, "reader thread is gone"));
        }
        Ok(())
    }

    /// Receives from `peer` on the calling thread if a frame is there
    /// already (see [`readable`], [`MeshChannel::try_recv_now`]); `None` if
    /// not, or if the link is busy or has a frame pending.
    fn try_now(
        &mut self,
        peer: usize,
        buf: &mut Vec<u8>,
        max_len: usize,
    ) -> Option<Result<(), MeshError>> {
        let timeout = self.timeout;
        let me = self.me;
        let link = self.links.get_mut(peer)?.as_mut()?;
        if link.pending.is_some() {
            return None;
        }
        let chan = link.chan.as_mut()?;
        let res = match &link.socket {
            Some(socket) => readable(socket).then(|| chan.recv_into(buf, max_len)),
            None => chan.try_recv_now(buf, max_len, timeout),
        }?;
        Some(outcome(
            me,
            res,
            Dir::Received,
            peer,
            &mut link.stats,
            buf.len(),
        ))
    }

    /// Hands the pending frame of `peer` to the caller in `buf`.
    fn deliver(&mut self, peer: usize, buf: &mut Vec<u8>, max_len: usize) -> Result<(), MeshError> {
        let me = self.me;
        let link = self.link(peer)?;
        let Some(Arrived { mut frame, res, .. }) = link.pending.take() else {
            return Ok(());
        };
        buf.clear();
        let res = match res {
            Ok(()) if frame.len() > max_len => Err(ChannelError::Oversized {
                len: frame.len() as u64,
                max: max_len,
            }),
            other => other,
        };
        match res {
            Ok(()) => {
                std::mem::swap(buf, &mut frame);
                link.stats.on_recv(buf.len());
                frame.clear();
                link.spare = frame;
                Ok(())
            }
            Err(source) => Err(MeshError::from_link(me, peer, source)),
        }
    }
}

/// The longest [`Mesh::notify_abort`] waits for links busy with a receive
/// to come home, so that their peers get the notice too.
pub const NOTICE_WAIT: Duration = Duration::from_secs(2);

/// How often `recv_any` yields the processor and looks again for a frame
/// that is there already before it hands the links to reader threads.
const YIELDS: usize = 16;

/// Which way a frame went, for [`outcome`].
#[derive(Clone, Copy)]
enum Dir {
    Sent,
    Received,
}

/// The outcome of sending or receiving a frame of `len` bytes on party
/// `me`'s link to `peer`, counted in `stats` if it succeeded.
///
/// A send to a peer that hung up is not an error: its frame is lost (as one
/// written into the socket buffer of a connection the peer closed), and the
/// hang-up is reported by the next receive from that peer. So what a party
/// reports is what its receives show, e.g. the failed check of a peer that
/// aborted first, not an incidental hang-up.
fn outcome(
    me: usize,
    res: Result<(), ChannelError>,
    dir: Dir,
    peer: usize,
    stats: &mut StatsCounter,
    len: usize,
) -> Result<(), MeshError> {
    match (res, dir) {
        (Ok(()), Dir::Sent) => stats.on_send(len),
        (Ok(()), Dir::Received) => stats.on_recv(len),
        (Err(ChannelError::Closed), Dir::Sent) => {}
        (Err(source), _) => return Err(MeshError::from_link(me, peer, source)),
    }
    Ok(())
}

/// Whether the socket has incoming bytes (or end of stream, or an error)
/// right now, checked without consuming or waiting. Bytes already in the
/// channel's read-ahead buffer are not seen: such a frame is then taken by
/// a reader thread, which finds it at once.
#[cfg(target_os = "linux")]
fn readable(socket: &TcpStream) -> bool {
    let mut byte = [std::mem::MaybeUninit::uninit()];
    let sock = socket2::SockRef::from(socket);
    match sock.recv_with_flags(&mut byte, libc::MSG_PEEK | libc::MSG_DONTWAIT) {
        Ok(_) => true,
        Err(e) => !matches!(
            e.kind(),
            std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
        ),
    }
}

/// Elsewhere the check is not made: every receive of `recv_any` goes
/// through a reader thread.
#[cfg(not(target_os = "linux"))]
fn readable(_socket: &TcpStream) -> bool {
    false
}

/// Body of a link's reader thread: one receive per job, until the mesh is
/// dropped.
fn reader_loop<C: MeshChannel>(
    peer: usize,
    jobs: &Receiver<Job<C>>,
    done: &Sender<Done<C>>,
    stop: &AtomicBool,
) {
    while let Ok(Job {
        mut chan,
        mut buf,
        max_len,
        timeout,
    }) = jobs.recv()
    {
        let res = chan.recv_stoppable(&mut buf, max_len, timeout, stop);
        if stop.load(Ordering::Relaxed) {
            // The mesh is gone: read what the peer still sends until it
            // hangs up, so that closing does not reset the connection.
            drain(&mut chan, timeout, stop);
            break;
        }
        if done
            .send(Done {
                peer,
                chan,
                buf,
                res,
            })
            .is_err()
        {
            break;
        }
    }
}

impl<C: MeshChannel> Mesh for ChannelMesh<C> {
    fn me(&self) -> usize {
        self.me
    }

    fn parties(&self) -> usize {
        self.links.len()
    }

    fn send_to(&mut self, peer: usize, msg: &[u8]) -> Result<(), MeshError> {
        let me = self.me;
        let (chan, stats, _) = self.home(peer)?;
        outcome(me, chan.send(msg), Dir::Sent, peer, stats, msg.len())
    }

    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> Result<(), MeshError> {
        let me = self.me;
        let (chan, stats, _) = self.home(peer)?;
        let len = msg.len();
        outcome(me, chan.send_vec(msg), Dir::Sent, peer, stats, len)
    }

    /// Flushes every link not busy with a receive (a link's reader thread
    /// holds its channel only until the peer's next frame is in).
    fn flush(&mut self) -> Result<(), MeshError> {
        let me = self.me;
        for (peer, link) in self.links.iter_mut().enumerate() {
            if let Some(chan) = link.as_mut().and_then(|l| l.chan.as_mut()) {
                chan.flush()
                    .map_err(|source| MeshError::from_link(me, peer, source))?;
            }
        }
        Ok(())
    }

    fn recv_from(
        &mut self,
        peer: usize,
        buf: &mut Vec<u8>,
        max_len: usize,
    ) -> Result<(), MeshError> {
        let me = self.me;
        let (chan, stats, pending) = self.home(peer)?;
        if pending {
            return self.deliver(peer, buf, max_len);
        }
        outcome(
            me,
            chan.recv_into(buf, max_len),
            Dir::Received,
            peer,
            stats,
            buf.len(),
        )
    }

    fn recv_any(
        &mut self,
        from: &[usize],
        buf: &mut Vec<u8>,
        max_len: usize,
    ) -> Result<usize, MeshError> {
        match from {
            [] => return Err(MeshError::setup(None, "recv_any from no peer")),
            [peer] => return self.recv_from(*peer, buf, max_len).map(|()| *peer),
            _ => {}
        }
        for &peer in from {
            self.link(peer)?;
        }
        let mut asked = false;
        loop {
            let first = from
                .iter()
                .filter_map(|&p| Some((self.links.get(p)?.as_ref()?.pending.as_ref()?.seq, p)))
                .min();
            if let Some((_, peer)) = first {
                return self.deliver(peer, buf, max_len).map(|()| peer);
            }
            if !asked {
                // A frame that is there already is taken at once, without
                // a hand-off to a reader thread; before handing off, the
                // peers (likely about to send) get the processor a few times.
                for attempt in 0..=YIELDS {
                    for &peer in from {
                        if let Some(res) = self.try_now(peer, buf, max_len) {
                            return res.map(|()| peer);
                        }
                    }
                    if attempt < YIELDS {
                        thread::yield_now();
                    }
                }
                for &peer in from {
                    let link = self.link(peer)?;
                    if link.chan.is_some() && link.pending.is_none() {
                        self.dispatch(peer, max_len)?;
                    }
                }
                asked = true;
            }
            self.absorb_one()?;
        }
    }

    fn stats(&self, peer: usize) -> ChannelStats {
        match self.links.get(peer) {
            Some(Some(link)) => link.stats.get(),
            _ => ChannelStats::default(),
        }
    }

    /// Reads from each peer of `from` (discarding its frames, each of at
    /// most [`DRAIN_MAX`] bytes) until its abort notice arrives, its link
    /// fails or `wait` (at most the link time-out) has passed in all.
    fn await_notices(&mut self, from: &[usize], wait: Duration) -> Vec<(usize, AbortNotice)> {
        let until = Instant::now() + wait.min(self.timeout);
        let me = self.me;
        let mut left: Vec<usize> = Vec::new();
        for &p in from {
            if p != me && matches!(self.links.get(p), Some(Some(_))) && !left.contains(&p) {
                left.push(p);
            }
        }
        let mut found = Vec::new();
        let mut buf = Vec::new();
        while !left.is_empty() {
            let mut i = 0;
            while i < left.len() {
                let p = left[i];
                let arrived = matches!(self.links.get(p), Some(Some(l)) if l.pending.is_some());
                let keep = !arrived
                    || match self.deliver(p, &mut buf, DRAIN_MAX) {
                        Ok(()) => true,
                        Err(MeshError::PeerAborted { peer, notice, .. }) => {
                            found.push((peer, notice));
                            false
                        }
                        Err(_) => false,
                    };
                let idle = matches!(self.links.get(p), Some(Some(l)) if l.chan.is_some() && l.pending.is_none());
                if keep && idle && self.dispatch(p, DRAIN_MAX).is_err() {
                    left.swap_remove(i);
                } else if keep {
                    i += 1;
                } else {
                    left.swap_remove(i);
                }
            }
            let rest = until.saturating_duration_since(Instant::now());
            if left.is_empty() || rest.is_zero() {
                break;
            }
            match self.done_rx.recv_timeout(rest) {
                Ok(done) => self.file(done),
                Err(_) => break,
            }
        }
        found
    }

    /// Sends the notice on every link ([`Channel::send_notice`], after the
    /// frames already sent). A link whose channel a reader thread holds
    /// (a receive from that peer in progress) is waited for at most
    /// [`NOTICE_WAIT`] (or the link time-out, if shorter) in all: an honest
    /// peer's frame is on its way under the round discipline, and a peer
    /// that sends nothing gets no notice. Nothing is flushed: the frames go
    /// out on their own and when the mesh is closed.
    fn notify_abort(&mut self, notice: &AbortNotice) {
        let until = Instant::now() + NOTICE_WAIT.min(self.timeout);
        while self.links.iter().flatten().any(|l| l.chan.is_none()) {
            let left = until.saturating_duration_since(Instant::now());
            match self.done_rx.recv_timeout(left) {
                Ok(done) if !left.is_zero() => self.file(done),
                Ok(done) => {
                    self.file(done);
                    break;
                }
                Err(_) => break,
            }
        }
        for link in self.links.iter_mut().flatten() {
            if let Some(chan) = link.chan.as_mut() {
                let _ = chan.send_notice(notice);
            }
        }
    }

    /// Passes the announcement to the link's channel; while a reader
    /// thread holds the channel, it is kept and applied when the channel
    /// comes home (before any send on the link can run).
    fn expect_next_frame(&mut self, peer: usize, len: Option<usize>) {
        if let Some(Some(link)) = self.links.get_mut(peer) {
            match link.chan.as_mut() {
                Some(chan) => chan.expect_next_frame(len),
                None => link.announced = Some(len),
            }
        }
    }
}

/// Largest frame read (and discarded) while draining a link being closed,
/// or while [`Mesh::await_notices`] waits for a peer's notice.
pub const DRAIN_MAX: usize = 64 * 1024 * 1024;

/// Receives and discards frames until the peer hangs up (or anything else
/// ends the receive: a time-out, an oversized frame, `stop` for channels
/// that heed it).
fn drain<C: MeshChannel>(chan: &mut C, timeout: Duration, stop: &AtomicBool) {
    let mut buf = Vec::new();
    while chan
        .recv_stoppable(&mut buf, DRAIN_MAX, timeout, stop)
        .is_ok()
    {}
}

/// Closes TCP links gracefully: our queued frames go out, then our end of
/// each connection is shut down for writing (the peer sees the hang-up
/// after reading them), then the peer's remaining frames are read until it
/// hangs up too. Closing a socket with unread incoming data would instead
/// reset the connection, and a reset makes the peer's kernel drop the frames
/// of ours it has not read yet.
fn linger<C: MeshChannel>(mut links: Vec<(C, TcpStream)>, timeout: Duration, stop: &AtomicBool) {
    for (chan, socket) in &mut links {
        let _ = chan.flush();
        let _ = socket.shutdown(Shutdown::Write);
    }
    for (chan, _) in &mut links {
        drain(chan, timeout, stop);
    }
}

#[cfg(test)]
impl ChannelMesh<crate::transport::channel::TcpChannel> {
    /// Bytes the TCP link to `peer` holds read ahead (0 while a reader
    /// thread has the channel), for tests of the memory bound.
    pub(super) fn read_ahead_of(&self, peer: usize) -> usize {
        match self.links.get(peer) {
            Some(Some(Link {
                chan: Some(chan), ..
            })) => chan.read_ahead_capacity(),
            _ => 0,
        }
    }
}

impl<C: MeshChannel> ChannelMesh<C> {
    /// Hangs up on every peer and waits until each has hung up too (or the
    /// link's receive time-out passes), on the calling thread.
    ///
    /// Dropping a mesh does the same on a background thread, which is cut
    /// short if the process exits right after: its sockets are then closed
    /// with unread data, the connections are reset, and a peer loses our
    /// last frames if it has not read them yet. A short-lived process (a
    /// command-line party) calls `close` as its last step instead.
    pub fn close(mut self) {
        // Every link hangs up before any waits for its peer: a party
        // waiting on one link before hanging up on the next could wait on
        // a peer that waits on it.
        let (tcp, others) = self.hang_up();
        linger(tcp, self.timeout, &AtomicBool::new(false));
        for chan in others {
            chan.await_peer_hang_up();
        }
    }

    /// Stops the reader threads, hangs up on every link, and returns the
    /// TCP links still to be drained and the other links (which hung up
    /// through [`MeshChannel::hang_up`]) still to be waited for.
    fn hang_up(&mut self) -> (Vec<(C, TcpStream)>, Vec<C>) {
        self.stop.store(true, Ordering::Relaxed);
        // Channels that reader threads already gave back are closed here.
        while let Ok(done) = self.done_rx.try_recv() {
            if let Some(Some(link)) = self.links.get_mut(done.peer) {
                link.chan = Some(done.chan);
            }
        }
        let (mut tcp, mut others) = (Vec::new(), Vec::new());
        for link in self.links.iter_mut().flatten() {
            match (link.chan.take(), link.socket.take()) {
                (Some(chan), Some(socket)) => tcp.push((chan, socket)),
                (Some(mut chan), None) => {
                    chan.hang_up();
                    others.push(chan);
                }
                // A reader thread holds the channel, whose frames were all
                // written before (`dispatch` flushes): hang up now; that
                // thread drains the link once its receive returns.
                (None, Some(socket)) => {
                    let _ = socket.shutdown(Shutdown::Write);
                }
                _ => {}
            }
        }
        (tcp, others)
    }
}

/// Dropping hangs up on every peer (see [`ChannelMesh`]); TCP links are
/// closed gracefully on a background thread (see `linger`;
/// [`ChannelMesh::close`] waits for it instead).
impl<C: MeshChannel> Drop for ChannelMesh<C> {
    fn drop(&mut self) {
        // The other links are dropped here, without waiting for their peers.
        let (tcp, _others) = self.hang_up();
        if !tcp.is_empty() {
            let (timeout, stop) = (self.timeout, Arc::clone(&self.stop));
            let spawned = thread::Builder::new()
                .name("ot-mesh-close".into())
                .spawn(move || linger(tcp, timeout, &stop));
            // Without a thread, the channels are simply dropped.
            drop(spawned);
        }
    }
}
