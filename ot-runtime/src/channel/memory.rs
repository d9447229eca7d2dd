//! In-process channel pair over `std::sync::mpsc`.

use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::time::Duration;

use super::{Channel, ChannelError, ChannelStats, StatsCounter};

/// Default receive time-out of a [`MemoryChannel`].
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);

/// One end of an in-memory channel pair, for tests and single-process
/// benchmarks.
///
/// Frames are `Vec<u8>` moved through an unbounded queue: sending never
/// blocks (so two parties may send at the same time without deadlock), a
/// sent slice is copied exactly once, and [`Channel::send_vec`] and
/// receiving move the buffer without copying. Dropping one end makes the
/// other end's receive return [`ChannelError::Closed`] once the frames
/// already sent are consumed.
#[derive(Debug)]
pub struct MemoryChannel {
    tx: Sender<Vec<u8>>,
    rx: Receiver<Vec<u8>>,
    timeout: Duration,
    stats: StatsCounter,
}

impl MemoryChannel {
    /// Creates two connected ends with the default receive time-out (30 s).
    pub fn pair() -> (MemoryChannel, MemoryChannel) {
        let (tx_a, rx_b) = mpsc::channel();
        let (tx_b, rx_a) = mpsc::channel();
        let end = |tx, rx| MemoryChannel {
            tx,
            rx,
            timeout: DEFAULT_TIMEOUT,
            stats: StatsCounter::default(),
        };
        (end(tx_a, rx_a), end(tx_b, rx_b))
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
        self.send_vec(msg.to_vec())
    }

    fn send_vec(&mut self, msg: Vec<u8>) -> Result<(), ChannelError> {
        let len = msg.len();
        self.tx.send(msg).map_err(|_| ChannelError::Closed)?;
        self.stats.on_send(len);
        Ok(())
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
            return Err(ChannelError::Oversized {
                len: frame.len() as u64,
                max: max_len,
            });
        }
        self.stats.on_recv(frame.len());
        *buf = frame;
        Ok(())
    }

    fn recv(&mut self, max_len: usize) -> Result<Vec<u8>, ChannelError> {
        let mut buf = Vec::new();
        self.recv_into(&mut buf, max_len)?;
        Ok(buf)
    }

    fn stats(&self) -> ChannelStats {
        self.stats.get()
    }
}
