//! A mesh made of n-1 two-party channels, with arrival-order receives.

use std::net::{Shutdown, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::Arc;
use std::thread;
use std::time::Duration;

use super::{Mesh, MeshError};
use crate::channel::{Channel, ChannelError, ChannelStats, StatsCounter};

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
    /// The default just receives: channels whose receive cannot be woken
    /// this way are woken by the mesh closing their transport instead (as
    /// [`TcpMesh`](super::TcpMesh) does with its sockets).
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
}

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
    /// A handle on the link's socket, shut down for reading when the mesh is
    /// dropped while a reader thread waits on it.
    socket: Option<TcpStream>,
}

/// A [`Mesh`] made of one two-party [`MeshChannel`] per peer.
///
/// [`MemoryMesh`](super::MemoryMesh) and [`TcpMesh`](super::TcpMesh) are
/// this type over [`MemoryChannel`](crate::channel::MemoryChannel) and
/// [`TcpChannel`](crate::channel::TcpChannel); other channels (e.g. shaped
/// ones, for latency experiments) can be assembled with
/// [`ChannelMesh::from_channels`].
///
/// [`Mesh::send_to`] and [`Mesh::recv_from`] call the peer's channel
/// directly on the caller's thread. [`Mesh::recv_any`] hands each candidate
/// channel to a reader thread of its link (started on first use, one per
/// link) for one receive and returns whichever frame arrives first; the
/// other links keep their one frame in progress (at most one per link, of
/// at most the `max_len` it was asked with) for the next receive from them.
/// A send to a link whose reader thread is still receiving waits for that
/// receive to finish: under the round discipline (a round's frames are all
/// sent before any is read) that frame is on its way.
///
/// Dropping the mesh drops every channel (so the peers see a hang-up once
/// the frames already sent are read); a reader thread still receiving is
/// woken (the link's socket is shut down for reading, or the channel's
/// [`MeshChannel::recv_stoppable`] gives up) and exits.
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

    /// Records the socket of the link to `peer`, to wake its reader thread
    /// when the mesh is dropped.
    #[allow(dead_code)] // TEMP: used by the TCP mesh
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
        let seq = self.next_seq;
        self.next_seq += 1;
        if let Some(Some(link)) = self.links.get_mut(done.peer) {
            link.chan = Some(done.chan);
            link.pending = Some(Arrived {
                seq,
                frame: done.buf,
                res: done.res,
            });
        }
        Ok(())
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

    /// Hands the pending frame of `peer` to the caller in `buf`.
    fn deliver(&mut self, peer: usize, buf: &mut Vec<u8>, max_len: usize) -> Result<(), MeshError> {
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
            Err(source) => Err(MeshError::Peer { peer, source }),
        }
    }
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
        let (chan, stats, _) = self.home(peer)?;
        chan.send(msg)
            .map_err(|source| MeshError::Peer { peer, source })?;
        stats.on_send(msg.len());
        Ok(())
    }

    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> Result<(), MeshError> {
        let (chan, stats, _) = self.home(peer)?;
        let len = msg.len();
        chan.send_vec(msg)
            .map_err(|source| MeshError::Peer { peer, source })?;
        stats.on_send(len);
        Ok(())
    }

    /// Flushes every link not busy with a receive (a link's reader thread
    /// holds its channel only until the peer's next frame is in).
    fn flush(&mut self) -> Result<(), MeshError> {
        for (peer, link) in self.links.iter_mut().enumerate() {
            if let Some(chan) = link.as_mut().and_then(|l| l.chan.as_mut()) {
                chan.flush()
                    .map_err(|source| MeshError::Peer { peer, source })?;
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
        let (chan, stats, pending) = self.home(peer)?;
        if pending {
            return self.deliver(peer, buf, max_len);
        }
        match chan.recv_into(buf, max_len) {
            Ok(()) => {
                stats.on_recv(buf.len());
                Ok(())
            }
            Err(source) => Err(MeshError::Peer { peer, source }),
        }
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
}

impl<C: MeshChannel> Drop for ChannelMesh<C> {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        for link in self.links.iter().flatten() {
            if let (None, Some(socket)) = (&link.chan, &link.socket) {
                // Wakes the reader thread (its read returns end of stream);
                // frames still queued for sending go out before the
                // channel, dropped by that thread, closes the socket.
                let _ = socket.shutdown(Shutdown::Read);
            }
        }
    }
}
