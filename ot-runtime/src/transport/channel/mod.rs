//! Message channels between two parties.
//!
//! Every protocol generated from a `.otp` specification talks to its peer
//! through the [`Channel`] trait: a reliable, ordered stream of *frames*
//! (one frame per protocol message or message chunk). Receiving is always
//! bounded by a caller-supplied maximum length, so a malicious or broken
//! peer can never make us allocate more than the protocol allows, and every
//! failure (hang-up, time-out, truncation, oversize) is a typed
//! [`ChannelError`] rather than a panic or a hang.
//!
//! Implementations:
//! - [`MemoryChannel`]: an in-process pair over `std::sync::mpsc`, for tests
//!   and single-process benchmarks.
//! - [`TcpChannel`]: length-prefixed frames over TCP with a background writer
//!   thread, so that both peers may send large messages at the same time.
//! - [`TamperChannel`]: rewrites outgoing frames, to test malicious-security
//!   checks.
//! - [`ShapedChannel`]: adds latency and a bandwidth cap, for benchmarks.
//! - `TlsChannel` (cargo feature `tls`): the same frames over TLS 1.3 with
//!   mutual certificate authentication, for untrusted networks.
//! - `AsyncChannel` and `TokioChannel` (cargo feature `tokio`): the async
//!   twin of [`Channel`] that generated `run_async` drivers use, with the
//!   frames of [`TcpChannel`] over any tokio byte stream.
//!
//! After any error other than [`ChannelError::Timeout`] returned by a
//! `recv` that consumed nothing, the channel's framing may be out of step
//! with the peer: treat it as broken and drop it.

#[cfg(feature = "tokio")]
pub mod async_channel;
mod memory;
pub mod notice;
mod pool;
mod shaped;
mod tamper;
mod tcp;
#[cfg(feature = "tls")]
pub mod tls;

#[cfg(feature = "tokio")]
pub use async_channel::{duplex_pair, local_pair_tokio_tcp, AsyncChannel, BoxFuture, TokioChannel};
pub use memory::MemoryChannel;
pub use notice::AbortNotice;
pub use shaped::ShapedChannel;
pub use tamper::TamperChannel;
#[cfg(feature = "tokio")]
pub(crate) use tcp::is_hangup;
pub use tcp::{local_pair_tcp, TcpChannel};
#[cfg(feature = "tls")]
pub use tls::{
    local_pair_tls, TestPki, TlsChannel, TlsHandshake, TlsIdentity, TlsSetupError, TlsTrust,
};

use std::time::Duration;

/// Why a channel operation failed.
///
/// Generated protocol code wraps this in its own `Error::Channel` variant,
/// naming the protocol, round and field that was being sent or received.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChannelError {
    /// The peer hung up (closed its end) before or between frames.
    #[error("channel closed by peer")]
    Closed,
    /// No progress was possible for the configured time-out.
    #[error("channel operation timed out after {after:?}")]
    Timeout {
        /// The time-out that expired.
        after: Duration,
    },
    /// The peer announced (or sent) a frame longer than the receiver allows.
    /// The frame body is not buffered.
    #[error("frame of {len} bytes exceeds the maximum of {max} bytes")]
    Oversized {
        /// Length announced by the peer.
        len: u64,
        /// Maximum the receiver accepted.
        max: usize,
    },
    /// The peer closed the connection in the middle of a frame.
    #[error("peer closed mid-frame: expected {expected} bytes, got {got}")]
    Truncated {
        /// Bytes the frame (or its header) should have had.
        expected: usize,
        /// Bytes actually received before the connection closed.
        got: usize,
    },
    /// A frame (or the send of one) progressed, but slower than the
    /// channel's minimum transfer rate allows: a peer trickling bytes cannot
    /// hold a party for longer than the time-out plus `len / min_rate`.
    #[error("transfer of {len} bytes too slow: {done} bytes after {after:?} (minimum {min_rate} bytes/s)")]
    TooSlow {
        /// Bytes the frame (receive) or the wait (send) had to move.
        len: usize,
        /// Bytes moved before the deadline passed.
        done: usize,
        /// Time allowed: the time-out plus `len / min_rate`.
        after: Duration,
        /// The configured minimum rate.
        min_rate: u64,
    },
    /// The session deadline set on the channel has passed.
    #[error("session deadline passed")]
    DeadlineExceeded,
    /// The peer aborted and said so with an [`AbortNotice`] (round, reason,
    /// whom it blames) before hanging up. A notice is the peer's claim,
    /// not evidence (see [`notice`]).
    #[error("peer {0}")]
    PeerAborted(AbortNotice),
    /// The peer sent a malformed abort notice (see [`AbortNotice::decode`]).
    #[error("malformed abort notice: {reason}")]
    BadNotice {
        /// What is wrong with it.
        reason: &'static str,
    },
    /// Any other I/O failure of the underlying transport.
    #[error("channel I/O error: {0}")]
    Io(#[from] std::io::Error),
}

/// Traffic counters of one endpoint of a channel.
///
/// Byte counts are *payload* bytes: framing headers added by a transport
/// (the 8-byte length prefix of [`TcpChannel`]) are not counted, so that
/// every transport reports the same numbers for the same protocol run and
/// they can be compared with the communication a `.otp` specification
/// predicts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ChannelStats {
    /// Payload bytes sent.
    pub bytes_sent: u64,
    /// Payload bytes received.
    pub bytes_received: u64,
    /// Frames sent.
    pub messages_sent: u64,
    /// Frames received.
    pub messages_received: u64,
    /// Communication rounds as seen from this endpoint: the number of
    /// *flights* of consecutive messages in the same direction, i.e. the
    /// number of direction changes between sending and receiving plus one
    /// (zero before the first message). Two endpoints of one run may differ
    /// by one, e.g. when one party sends first.
    pub rounds: u64,
}

/// Last direction seen by a [`StatsCounter`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Direction {
    Sent,
    Received,
}

/// Helper that maintains [`ChannelStats`] for channel implementations.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct StatsCounter {
    stats: ChannelStats,
    last: Option<Direction>,
}

impl StatsCounter {
    /// Records one sent frame of `len` payload bytes.
    pub(crate) fn on_send(&mut self, len: usize) {
        self.stats.bytes_sent += len as u64;
        self.stats.messages_sent += 1;
        self.turn(Direction::Sent);
    }

    /// Records one received frame of `len` payload bytes.
    pub(crate) fn on_recv(&mut self, len: usize) {
        self.stats.bytes_received += len as u64;
        self.stats.messages_received += 1;
        self.turn(Direction::Received);
    }

    fn turn(&mut self, dir: Direction) {
        if self.last != Some(dir) {
            self.stats.rounds += 1;
            self.last = Some(dir);
        }
    }

    /// The counters so far.
    pub(crate) fn get(&self) -> ChannelStats {
        self.stats
    }
}

/// A reliable, ordered, framed, two-party message channel.
///
/// This is the only transport interface that generated protocol code uses.
/// Each `send` produces exactly one frame and each `recv_into` consumes
/// exactly one frame, so message boundaries are preserved.
pub trait Channel {
    /// Sends one message as one frame.
    ///
    /// May buffer: call [`Channel::flush`] to force buffered frames out
    /// (receiving flushes implicitly).
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError>;

    /// Sends one message that the caller already owns as one frame.
    ///
    /// Transports that need an owned buffer (in-memory queues, a writer
    /// thread) override this to avoid copying `msg`; the default copies
    /// nothing extra beyond what [`Channel::send`] does.
    fn send_vec(&mut self, msg: Vec<u8>) -> Result<(), ChannelError> {
        self.send(&msg)
    }

    /// Sends the bytes of `blocks` (as [`crate::Block::slice_as_bytes`]) as one
    /// frame, possibly taking the buffer: on return `blocks` has the same
    /// length but unspecified contents, and the caller overwrites them
    /// before any other use.
    ///
    /// For chunks of bulk data computed in place (a streamed bit matrix):
    /// [`TcpChannel`] hands the chunk's own storage to its writer thread
    /// (no copy) and gives back a spent chunk buffer of the same size. The
    /// default sends with [`Channel::send`] and leaves `blocks` unchanged.
    fn send_blocks(&mut self, blocks: &mut Vec<crate::Block>) -> Result<(), ChannelError> {
        self.send(crate::Block::slice_as_bytes(blocks))
    }

    /// As [`Channel::send_blocks`], for a chunk of block pairs (the two
    /// messages of chosen-message OTs, masked): sends their bytes (each
    /// pair's first block, then its second, as
    /// [`crate::transport::wire::block_bytes`]) as one frame, possibly
    /// taking the buffer; on return `pairs` has the same length but
    /// unspecified contents. [`TcpChannel`] hands the chunk's own storage
    /// to its writer thread (no copy). The default sends with
    /// [`Channel::send`] and leaves `pairs` unchanged.
    fn send_pairs(&mut self, pairs: &mut Vec<[crate::Block; 2]>) -> Result<(), ChannelError> {
        self.send(&crate::transport::wire::block_bytes(pairs))
    }

    /// An empty buffer with room for at least `capacity` bytes, for the
    /// caller to fill and pass to [`Channel::send_vec`].
    ///
    /// Transports that recycle spent frame buffers ([`MemoryChannel`],
    /// [`TcpChannel`]) hand out one of those when it is large enough, so a
    /// sender that builds each chunk of a bulk message in an owned buffer
    /// does not allocate (and page-fault) a fresh one per frame. The buffer
    /// is empty (`len() == 0`); nothing of an earlier frame is observable.
    /// The default allocates.
    fn frame_buffer(&mut self, capacity: usize) -> Vec<u8> {
        Vec::with_capacity(capacity)
    }

    /// Receives the next frame into `buf` (cleared first).
    ///
    /// A frame longer than `max_len` yields [`ChannelError::Oversized`]; it is
    /// rejected from its length header (or, for in-memory frames, before
    /// being handed out) and never buffered whole.
    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError>;

    /// Receives the next frame into a fresh vector; see [`Channel::recv_into`].
    fn recv(&mut self, max_len: usize) -> Result<Vec<u8>, ChannelError> {
        let mut buf = Vec::new();
        self.recv_into(&mut buf, max_len)?;
        Ok(buf)
    }

    /// Receives the next frame into the front of `out` and returns its
    /// length; a frame longer than `out` is [`ChannelError::Oversized`].
    ///
    /// For bulk data received straight into its destination (a chunk of a
    /// bit matrix): [`TcpChannel`] reads the payload from the socket into
    /// `out` without an intermediate buffer. The default receives into a
    /// temporary vector and copies.
    fn recv_into_slice(&mut self, out: &mut [u8]) -> Result<usize, ChannelError> {
        let mut buf = Vec::new();
        self.recv_into(&mut buf, out.len())?;
        out[..buf.len()].copy_from_slice(&buf);
        Ok(buf.len())
    }

    /// Bytes, messages and rounds so far (see [`ChannelStats`]).
    fn stats(&self) -> ChannelStats;

    /// Forces buffered outgoing frames to the transport (no-op for memory).
    fn flush(&mut self) -> Result<(), ChannelError> {
        Ok(())
    }

    /// Announces the payload length of the next frame the caller will
    /// receive (`None`: not known), so that a transport that reads ahead
    /// buffers at most that frame plus [`READ_AHEAD_SLACK`] rather than
    /// its configured read-ahead limit (issue 15, item 1).
    ///
    /// [`TcpChannel`] reads ahead only while a send waits for a peer that
    /// is not reading (two peers that both send before receiving), and
    /// `TlsChannel`'s reader thread decrypts ahead of the caller: with an
    /// announcement, a peer that floods us and never reads makes us buffer
    /// at most the frame we expect plus the slack before our send times
    /// out. Generated drivers announce before each send the frame their
    /// role receives next (in a two-party protocol a peer sends nothing
    /// else before reading ours). The announcement stays in force until
    /// the next one. A too-small announcement only reduces read-ahead;
    /// receiving works whatever was announced. The default ignores it.
    fn expect_next_frame(&mut self, len: Option<usize>) {
        let _ = len;
    }

    /// Sends an [`AbortNotice`] after the frames already sent, out of band
    /// of the protocol's frames: the peer's next receive that reaches it
    /// fails with [`ChannelError::PeerAborted`]. Best effort: call it when
    /// aborting, just before hanging up; an error only means the notice may
    /// not arrive. [`MemoryChannel`], [`TcpChannel`] and `TlsChannel` send
    /// it (wrappers forward it); the default sends nothing.
    fn send_notice(&mut self, notice: &AbortNotice) -> Result<(), ChannelError> {
        let _ = notice;
        Ok(())
    }
}

/// What a transport may buffer beyond an announced next frame
/// ([`Channel::expect_next_frame`]): room for its header, a session
/// binding and one socket read.
pub const READ_AHEAD_SLACK: usize = 128 << 10;

/// The read-ahead bound under an announcement: the announced frame and its
/// header plus [`READ_AHEAD_SLACK`], never above the configured `limit`.
pub(crate) fn read_ahead_cap(limit: usize, expected: Option<usize>) -> usize {
    match expected {
        Some(len) => limit.min(len.saturating_add(8 + READ_AHEAD_SLACK)),
        None => limit,
    }
}

impl<C: Channel + ?Sized> Channel for &mut C {
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        (**self).send(msg)
    }
    fn send_vec(&mut self, msg: Vec<u8>) -> Result<(), ChannelError> {
        (**self).send_vec(msg)
    }
    fn send_blocks(&mut self, blocks: &mut Vec<crate::Block>) -> Result<(), ChannelError> {
        (**self).send_blocks(blocks)
    }
    fn send_pairs(&mut self, pairs: &mut Vec<[crate::Block; 2]>) -> Result<(), ChannelError> {
        (**self).send_pairs(pairs)
    }
    fn frame_buffer(&mut self, capacity: usize) -> Vec<u8> {
        (**self).frame_buffer(capacity)
    }
    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        (**self).recv_into(buf, max_len)
    }
    fn recv(&mut self, max_len: usize) -> Result<Vec<u8>, ChannelError> {
        (**self).recv(max_len)
    }
    fn recv_into_slice(&mut self, out: &mut [u8]) -> Result<usize, ChannelError> {
        (**self).recv_into_slice(out)
    }
    fn stats(&self) -> ChannelStats {
        (**self).stats()
    }
    fn flush(&mut self) -> Result<(), ChannelError> {
        (**self).flush()
    }
    fn expect_next_frame(&mut self, len: Option<usize>) {
        (**self).expect_next_frame(len)
    }
    fn send_notice(&mut self, notice: &AbortNotice) -> Result<(), ChannelError> {
        (**self).send_notice(notice)
    }
}

/// Boxed channels (e.g. `Box<dyn Channel + Send>`) are channels, so a
/// transport can be chosen at run time.
impl<C: Channel + ?Sized> Channel for Box<C> {
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        (**self).send(msg)
    }
    fn send_vec(&mut self, msg: Vec<u8>) -> Result<(), ChannelError> {
        (**self).send_vec(msg)
    }
    fn send_blocks(&mut self, blocks: &mut Vec<crate::Block>) -> Result<(), ChannelError> {
        (**self).send_blocks(blocks)
    }
    fn send_pairs(&mut self, pairs: &mut Vec<[crate::Block; 2]>) -> Result<(), ChannelError> {
        (**self).send_pairs(pairs)
    }
    fn frame_buffer(&mut self, capacity: usize) -> Vec<u8> {
        (**self).frame_buffer(capacity)
    }
    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        (**self).recv_into(buf, max_len)
    }
    fn recv(&mut self, max_len: usize) -> Result<Vec<u8>, ChannelError> {
        (**self).recv(max_len)
    }
    fn recv_into_slice(&mut self, out: &mut [u8]) -> Result<usize, ChannelError> {
        (**self).recv_into_slice(out)
    }
    fn stats(&self) -> ChannelStats {
        (**self).stats()
    }
    fn flush(&mut self) -> Result<(), ChannelError> {
        (**self).flush()
    }
    fn expect_next_frame(&mut self, len: Option<usize>) {
        (**self).expect_next_frame(len)
    }
    fn send_notice(&mut self, notice: &AbortNotice) -> Result<(), ChannelError> {
        (**self).send_notice(notice)
    }
}

#[cfg(test)]
mod tests;
