//! A channel wrapper that rewrites outgoing frames, to test that malicious
//! security checks catch a cheating peer.

use super::{Channel, ChannelError, ChannelStats};

/// Wraps a channel and passes every outgoing frame through a closure before
/// sending it.
///
/// The closure gets the zero-based index of the message and the frame
/// itself, which it may modify freely: flip a byte, truncate, extend or
/// clear it. [`TamperChannel::new`] counts protocol messages only: session
/// binding frames ([`crate::transport::bind`], which every two-party run and every
/// sub-protocol run sends first) pass untouched and take no index, so an
/// index names the same message whichever base OT runs inside;
/// [`TamperChannel::every_frame`] counts and hands over every frame,
/// bindings included. Received frames are not touched. [`Channel::stats`]
/// reports the inner channel's counters, i.e. what was actually sent.
pub struct TamperChannel<C, F> {
    inner: C,
    tamper: F,
    next_index: usize,
    bindings_too: bool,
}

impl<C, F> TamperChannel<C, F>
where
    C: Channel,
    F: FnMut(usize, &mut Vec<u8>),
{
    /// Wraps `inner`, applying `tamper` to each outgoing protocol message
    /// (session binding frames pass untouched and are not counted).
    pub fn new(inner: C, tamper: F) -> Self {
        TamperChannel {
            inner,
            tamper,
            next_index: 0,
            bindings_too: false,
        }
    }

    /// Wraps `inner`, applying `tamper` to every outgoing frame, session
    /// bindings included (to tamper with a binding).
    pub fn every_frame(inner: C, tamper: F) -> Self {
        TamperChannel {
            bindings_too: true,
            ..Self::new(inner, tamper)
        }
    }

    /// Unwraps the inner channel.
    pub fn into_inner(self) -> C {
        self.inner
    }

    /// The inner channel.
    pub fn inner(&self) -> &C {
        &self.inner
    }
}

impl<C, F> std::fmt::Debug for TamperChannel<C, F>
where
    C: std::fmt::Debug,
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TamperChannel")
            .field("inner", &self.inner)
            .field("next_index", &self.next_index)
            .finish_non_exhaustive()
    }
}

impl<C, F> Channel for TamperChannel<C, F>
where
    C: Channel,
    F: FnMut(usize, &mut Vec<u8>),
{
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        let mut frame = self.inner.frame_buffer(msg.len());
        frame.extend_from_slice(msg);
        self.send_vec(frame)
    }

    fn send_vec(&mut self, mut msg: Vec<u8>) -> Result<(), ChannelError> {
        if !self.bindings_too && crate::transport::bind::is_binding(&msg) {
            return self.inner.send_vec(msg);
        }
        let index = self.next_index;
        self.next_index += 1;
        (self.tamper)(index, &mut msg);
        self.inner.send_vec(msg)
    }

    fn frame_buffer(&mut self, capacity: usize) -> Vec<u8> {
        self.inner.frame_buffer(capacity)
    }

    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        self.inner.recv_into(buf, max_len)
    }

    fn recv(&mut self, max_len: usize) -> Result<Vec<u8>, ChannelError> {
        self.inner.recv(max_len)
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
