//! A channel wrapper that simulates network latency and bandwidth, for
//! benchmarks on a single machine.

use std::thread;
use std::time::{Duration, Instant};

use super::{Channel, ChannelError, ChannelStats};

/// Wraps a channel and slows it down to model a network link.
///
/// - **Bandwidth**: each sent frame occupies the link for
///   `len / bytes_per_second`; sends are serialised on a virtual clock and
///   the sender sleeps until its frame has "left", so a sender cannot
///   exceed the cap on average.
/// - **Latency**: the one-way delay is paid once per incoming *flight*: the
///   first frame received after a send (or the very first frame) is
///   delivered only after sleeping for the latency; later frames of the same
///   flight are not delayed again, because on a real link consecutive
///   messages in one direction are pipelined. Charging it per message would
///   make chunked bulk rounds look far slower than they are.
///
/// Wrap both ends to shape both directions.
#[derive(Debug)]
pub struct ShapedChannel<C> {
    inner: C,
    latency: Duration,
    bytes_per_second: Option<u64>,
    link_free_at: Instant,
    /// Whether the next receive starts a new incoming flight.
    new_flight: bool,
}

impl<C: Channel> ShapedChannel<C> {
    /// Wraps `inner` with a one-way `latency` and an optional bandwidth cap
    /// in bytes per second (`None` = unlimited).
    pub fn new(inner: C, latency: Duration, bytes_per_second: Option<u64>) -> Self {
        ShapedChannel {
            inner,
            latency,
            bytes_per_second: bytes_per_second.filter(|&b| b > 0),
            link_free_at: Instant::now(),
            new_flight: true,
        }
    }

    /// Unwraps the inner channel.
    pub fn into_inner(self) -> C {
        self.inner
    }

    /// Time the link is busy sending `len` bytes.
    fn transmit_time(&self, len: usize) -> Duration {
        match self.bytes_per_second {
            Some(bps) => Duration::from_secs_f64(len as f64 / bps as f64),
            None => Duration::ZERO,
        }
    }

    fn before_send(&mut self, len: usize) {
        self.new_flight = true;
        let now = Instant::now();
        let start = self.link_free_at.max(now);
        self.link_free_at = start + self.transmit_time(len);
        if self.link_free_at > now {
            thread::sleep(self.link_free_at - now);
        }
    }

    fn after_recv(&mut self) {
        if self.new_flight {
            self.new_flight = false;
            if !self.latency.is_zero() {
                thread::sleep(self.latency);
            }
        }
    }
}

impl<C: Channel> Channel for ShapedChannel<C> {
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        self.before_send(msg.len());
        self.inner.send(msg)
    }

    fn send_vec(&mut self, msg: Vec<u8>) -> Result<(), ChannelError> {
        self.before_send(msg.len());
        self.inner.send_vec(msg)
    }

    fn send_blocks(&mut self, blocks: &mut Vec<crate::Block>) -> Result<(), ChannelError> {
        self.before_send(16 * blocks.len());
        self.inner.send_blocks(blocks)
    }

    fn send_pairs(&mut self, pairs: &mut Vec<[crate::Block; 2]>) -> Result<(), ChannelError> {
        self.before_send(32 * pairs.len());
        self.inner.send_pairs(pairs)
    }

    fn frame_buffer(&mut self, capacity: usize) -> Vec<u8> {
        self.inner.frame_buffer(capacity)
    }

    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        self.inner.recv_into(buf, max_len)?;
        self.after_recv();
        Ok(())
    }

    fn stats(&self) -> ChannelStats {
        self.inner.stats()
    }

    fn flush(&mut self) -> Result<(), ChannelError> {
        self.inner.flush()
    }
    fn expect_next_frame(&mut self, len: Option<usize>) {
        self.inner.expect_next_frame(len)
    }

    /// Forwards the notice untouched.
    fn send_notice(&mut self, notice: &super::AbortNotice) -> Result<(), ChannelError> {
        self.inner.send_notice(notice)
    }
}
