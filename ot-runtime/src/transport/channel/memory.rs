//! In-process channel pair over `std::sync::mpsc`.

use std::collections::VecDeque;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use super::pool::BufferPool;
use super::{AbortNotice, Channel, ChannelError, ChannelStats, StatsCounter};

/// Default receive time-out of a [`MemoryChannel`].
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Most buffer capacity each direction's recycling pool keeps.
const POOL_BYTES: usize = 16 * 1024 * 1024;
/// Default bound on the bytes sent and not yet received, per direction.
const DEFAULT_QUEUE_LIMIT: usize = 64 * 1024 * 1024;
/// How often a sender waiting for queue space looks for incoming frames.
const POLL: Duration = Duration::from_millis(1);

/// Bytes sent in one direction and not yet taken by the receiving end, with
/// a condition variable the receiving end signals when it takes a frame.
#[derive(Debug, Default)]
struct Queued {
    bytes: Mutex<usize>,
    cv: Condvar,
}

impl Queued {
    fn add(&self, n: usize) {
        *self.bytes.lock().unwrap_or_else(|p| p.into_inner()) += n;
    }

    fn sub(&self, n: usize) {
        let mut b = self.bytes.lock().unwrap_or_else(|p| p.into_inner());
        *b = b.saturating_sub(n);
        drop(b);
        self.cv.notify_all();
    }
}
/// One item of a link's queue: a protocol frame, or an abort notice
/// ([`Channel::send_notice`]), which no frame can be mistaken for.
#[derive(Debug)]
enum Item {
    Frame(Vec<u8>),
    Notice(AbortNotice),
}

/// One end of an in-memory channel pair, for tests and single-process
/// benchmarks.
///
/// Frames are `Vec<u8>` moved through a queue bounded in bytes (64 MiB per
/// direction by default, [`MemoryChannel::with_queue_limit`]): a sender that
/// would exceed it waits until the peer has taken enough, so a producer
/// that outruns its consumer holds a bounded buffer, not the whole message.
/// While it waits it moves the frames its peer sent into its own backlog,
/// so two parties sending at the same time never deadlock (the TCP channel
/// does the same). A sent slice is copied exactly once, and
/// [`Channel::send_vec`] and receiving move the buffer without copying.
/// Dropping one end makes the other end's receive return
/// [`ChannelError::Closed`] once the frames already sent are consumed.
///
/// Buffer recycling: when [`Channel::recv_into`] replaces the caller's
/// buffer by the received frame, the caller's old buffer (if it is large)
/// goes back to the sending end, and [`Channel::send`] copies the next large
/// slice into such a recycled buffer instead of a fresh allocation. A bulk
/// transfer with a reused receive buffer thus circulates a few buffers
/// without allocating (and page-faulting) per frame. Each direction keeps at
/// most 16 MiB of spare buffers.
#[derive(Debug)]
pub struct MemoryChannel {
    tx: Sender<Item>,
    rx: Receiver<Item>,
    /// Spare buffers our peer gave back; our `send` copies into them.
    spare: Arc<BufferPool>,
    /// The peer's pool, where our replaced receive buffers go.
    peer_spare: Arc<BufferPool>,
    /// Bytes we sent that the peer has not taken yet.
    outgoing: Arc<Queued>,
    /// Bytes the peer sent that we have not taken yet.
    incoming: Arc<Queued>,
    /// Frames taken from the queue while waiting to send, not yet received.
    backlog: VecDeque<Item>,
    queue_limit: usize,
    timeout: Duration,
    stats: StatsCounter,
}

impl MemoryChannel {
    /// Creates two connected ends with the default receive time-out (30 s).
    pub fn pair() -> (MemoryChannel, MemoryChannel) {
        let (tx_a, rx_b) = mpsc::channel();
        let (tx_b, rx_a) = mpsc::channel();
        let pool_a = Arc::new(BufferPool::new(POOL_BYTES));
        let pool_b = Arc::new(BufferPool::new(POOL_BYTES));
        let (a_to_b, b_to_a) = (Arc::new(Queued::default()), Arc::new(Queued::default()));
        let end = |tx,
                   rx,
                   spare: &Arc<BufferPool>,
                   peer_spare: &Arc<BufferPool>,
                   out: &Arc<Queued>,
                   inc: &Arc<Queued>| {
            MemoryChannel {
                tx,
                rx,
                spare: Arc::clone(spare),
                peer_spare: Arc::clone(peer_spare),
                outgoing: Arc::clone(out),
                incoming: Arc::clone(inc),
                backlog: VecDeque::new(),
                queue_limit: DEFAULT_QUEUE_LIMIT,
                timeout: DEFAULT_TIMEOUT,
                stats: StatsCounter::default(),
            }
        };
        (
            end(tx_a, rx_a, &pool_a, &pool_b, &a_to_b, &b_to_a),
            end(tx_b, rx_b, &pool_b, &pool_a, &b_to_a, &a_to_b),
        )
    }

    /// Sets how many bytes this end may have sent and the peer not yet
    /// received before a send waits (default 64 MiB). A single larger frame
    /// is still sent, once the queue is empty.
    #[must_use]
    pub fn with_queue_limit(mut self, bytes: usize) -> Self {
        self.queue_limit = bytes;
        self
    }

    /// Bytes this end sent that the peer has not taken yet.
    #[cfg(test)]
    pub(super) fn queued(&self) -> usize {
        *self
            .outgoing
            .bytes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// Takes the next frame: from the backlog first, else from the queue.
    fn take_frame(&mut self, wait: Option<Duration>) -> Result<Option<Item>, ChannelError> {
        match self.backlog.pop_front() {
            Some(f) => Ok(Some(f)),
            None => self.take_queued(wait),
        }
    }

    /// Takes one frame from the queue itself (not the backlog), counting it
    /// as received by this end.
    fn take_queued(&mut self, wait: Option<Duration>) -> Result<Option<Item>, ChannelError> {
        let frame = match wait {
            Some(t) => match self.rx.recv_timeout(t) {
                Ok(f) => f,
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => return Err(ChannelError::Closed),
            },
            None => match self.rx.try_recv() {
                Ok(f) => f,
                Err(TryRecvError::Empty) => return Ok(None),
                Err(TryRecvError::Disconnected) => return Err(ChannelError::Closed),
            },
        };
        if let Item::Frame(f) = &frame {
            self.incoming.sub(f.len());
        }
        Ok(Some(frame))
    }

    /// Waits until a frame of `len` bytes fits the queue bound, moving the
    /// peer's frames into the backlog meanwhile (see the type's docs).
    fn wait_for_space(&mut self, len: usize) -> Result<(), ChannelError> {
        let start = Instant::now();
        loop {
            {
                let q = self
                    .outgoing
                    .bytes
                    .lock()
                    .unwrap_or_else(|p| p.into_inner());
                if *q == 0 || q.saturating_add(len) <= self.queue_limit {
                    return Ok(());
                }
                let _ = self.outgoing.cv.wait_timeout(q, POLL);
            }
            // Drain what the peer sent, so that it can make progress too.
            while let Some(f) = self.take_queued(None)? {
                self.backlog.push_back(f);
            }
            if start.elapsed() > self.timeout {
                return Err(ChannelError::Timeout {
                    after: self.timeout,
                });
            }
        }
    }

    /// Sets how long a receive waits for a frame before it fails with
    /// [`ChannelError::Timeout`], so a stuck peer is reported, not waited on
    /// forever.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// Changes the receive time-out in place (see [`MemoryChannel::with_timeout`]).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = timeout;
    }
}

impl Channel for MemoryChannel {
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        let frame = self.spare.copy_of(msg);
        self.send_vec(frame)
    }

    fn send_vec(&mut self, msg: Vec<u8>) -> Result<(), ChannelError> {
        let len = msg.len();
        self.wait_for_space(len)?;
        self.outgoing.add(len);
        if self.tx.send(Item::Frame(msg)).is_err() {
            self.outgoing.sub(len);
            return Err(ChannelError::Closed);
        }
        self.stats.on_send(len);
        Ok(())
    }

    fn frame_buffer(&mut self, capacity: usize) -> Vec<u8> {
        self.spare
            .take(capacity)
            .unwrap_or_else(|| Vec::with_capacity(capacity))
    }

    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        buf.clear();
        let frame = match self.take_frame(Some(self.timeout))? {
            Some(Item::Frame(frame)) => frame,
            Some(Item::Notice(notice)) => return Err(ChannelError::PeerAborted(notice)),
            None => {
                return Err(ChannelError::Timeout {
                    after: self.timeout,
                })
            }
        };
        if frame.len() > max_len {
            let len = frame.len() as u64;
            // Never handed out, but its allocation can still be reused.
            self.peer_spare.put(frame);
            return Err(ChannelError::Oversized { len, max: max_len });
        }
        self.stats.on_recv(frame.len());
        let old = std::mem::replace(buf, frame);
        self.peer_spare.put(old);
        Ok(())
    }

    fn recv(&mut self, max_len: usize) -> Result<Vec<u8>, ChannelError> {
        let mut buf = Vec::new();
        self.recv_into(&mut buf, max_len)?;
        Ok(buf)
    }

    fn recv_into_slice(&mut self, out: &mut [u8]) -> Result<usize, ChannelError> {
        let mut frame = Vec::new();
        self.recv_into(&mut frame, out.len())?;
        let len = frame.len();
        out[..len].copy_from_slice(&frame);
        self.peer_spare.put(frame);
        Ok(len)
    }

    fn stats(&self) -> ChannelStats {
        self.stats.get()
    }

    /// Queues the notice after the frames already sent (it takes no queue
    /// space: at most one per abort). A peer that hung up is not an error.
    fn send_notice(&mut self, notice: &AbortNotice) -> Result<(), ChannelError> {
        let _ = self.tx.send(Item::Notice(notice.clone()));
        Ok(())
    }
}
