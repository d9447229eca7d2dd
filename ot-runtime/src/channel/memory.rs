//! In-process channel pair over `std::sync::mpsc`.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::Duration;

use super::pool::BufferPool;
use super::{Channel, ChannelError, ChannelStats, StatsCounter};

/// Default receive time-out of a [`MemoryChannel`].
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Most buffer capacity each direction's recycling pool keeps.
const POOL_BYTES: usize = 16 * 1024 * 1024;

/// One end of an in-memory channel pair, for tests and single-process
/// benchmarks.
///
/// Frames are `Vec<u8>` moved through an unbounded queue: sending never
/// blocks (so two parties may send at the same time without deadlock), a
/// sent slice is copied exactly once, and [`Channel::send_vec`] and
/// receiving move the buffer without copying. Dropping one end makes the
/// other end's receive return [`ChannelError::Closed`] once the frames
/// already sent are consumed.
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
    tx: Sender<Vec<u8>>,
    rx: Receiver<Vec<u8>>,
    /// Spare buffers our peer gave back; our `send` copies into them.
    spare: Arc<BufferPool>,
    /// The peer's pool, where our replaced receive buffers go.
    peer_spare: Arc<BufferPool>,
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
        let end = |tx, rx, spare: &Arc<BufferPool>, peer_spare: &Arc<BufferPool>| MemoryChannel {
            tx,
            rx,
            spare: Arc::clone(spare),
            peer_spare: Arc::clone(peer_spare),
            timeout: DEFAULT_TIMEOUT,
            stats: StatsCounter::default(),
        };
        (
            end(tx_a, rx_a, &pool_a, &pool_b),
            end(tx_b, rx_b, &pool_b, &pool_a),
        )
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
        self.tx.send(msg).map_err(|_| ChannelError::Closed)?;
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
        let frame = match self.rx.recv_timeout(self.timeout) {
            Ok(frame) => frame,
            Err(RecvTimeoutError::Timeout) => {
                return Err(ChannelError::Timeout {
                    after: self.timeout,
                })
            }
            Err(RecvTimeoutError::Disconnected) => return Err(ChannelError::Closed),
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
}
