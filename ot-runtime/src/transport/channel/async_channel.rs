//! Async channels (cargo feature `tokio`): the [`AsyncChannel`] trait that
//! the generated async drivers (`run_async`) talk through, and
//! [`TokioChannel`], its implementation over any tokio byte stream
//! (`tokio::net::TcpStream`, `tokio::io::duplex`, a TLS stream, ...).
//!
//! The frames are those of [`TcpChannel`](super::TcpChannel): an 8-byte
//! little-endian payload length, then the payload. A [`TokioChannel`] over
//! TCP therefore talks to a blocking [`TcpChannel`](super::TcpChannel) peer,
//! and an async party to a blocking one (the generated drivers send the same
//! frames in the same order).
//!
//! Methods return boxed futures ([`BoxFuture`]) so that the trait is
//! dyn-compatible: sub-protocol calls and streamed rounds take
//! `&mut dyn AsyncChannel`, like the blocking steps take `&mut dyn Channel`.
//! One allocation per frame is small next to a frame's I/O (bulk rounds send
//! chunks of tens of kilobytes).
//!
//! Time-outs are the caller's: wrap a driver's future in
//! `tokio::time::timeout`, which drops it (and with it the channel's state)
//! when it expires.

use super::{ChannelError, ChannelStats, StatsCounter};
use std::future::Future;
use std::io;
use std::pin::Pin;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};

/// A boxed, `Send` future borrowing for `'a` (what [`AsyncChannel`] methods
/// and the async functionality traits return).
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Size of the length prefix of each frame (as [`TcpChannel`](super::TcpChannel)).
const HEADER: usize = 8;

/// Frames up to this size are gathered in the write buffer; larger ones are
/// written straight from the caller's slice (no copy).
const WRITE_BUFFER: usize = 64 * 1024;

/// The async twin of [`Channel`](super::Channel): a reliable, ordered,
/// framed two-party channel whose operations are futures.
///
/// Each `send` produces exactly one frame and each receive consumes exactly
/// one, bounded by a caller-supplied maximum length (a longer frame is
/// [`ChannelError::Oversized`], rejected from its header). Sends may be
/// buffered until [`AsyncChannel::flush`] or the next receive.
pub trait AsyncChannel: Send {
    /// Sends one message as one frame (may buffer).
    fn send<'a>(&'a mut self, msg: &'a [u8]) -> BoxFuture<'a, Result<(), ChannelError>>;

    /// Sends one owned message as one frame; the default sends `&msg`.
    fn send_vec(&mut self, msg: Vec<u8>) -> BoxFuture<'_, Result<(), ChannelError>> {
        Box::pin(async move { self.send(&msg).await })
    }

    /// Receives the next frame into `buf` (cleared first); a frame longer
    /// than `max_len` is [`ChannelError::Oversized`].
    fn recv_into<'a>(
        &'a mut self,
        buf: &'a mut Vec<u8>,
        max_len: usize,
    ) -> BoxFuture<'a, Result<(), ChannelError>>;

    /// Receives the next frame into the front of `out` and returns its
    /// length; a frame longer than `out` is [`ChannelError::Oversized`].
    fn recv_into_slice<'a>(
        &'a mut self,
        out: &'a mut [u8],
    ) -> BoxFuture<'a, Result<usize, ChannelError>>;

    /// Writes buffered frames to the transport.
    fn flush(&mut self) -> BoxFuture<'_, Result<(), ChannelError>>;

    /// Bytes, messages and rounds so far (payload bytes, as
    /// [`Channel::stats`](super::Channel::stats)).
    fn stats(&self) -> ChannelStats;
}

/// An `AsyncChannel` impl for a pointer type `$t` to a channel `C`,
/// forwarding every method.
macro_rules! forward_async_channel {
    ($t:ty) => {
        impl<C: AsyncChannel + ?Sized> AsyncChannel for $t {
            fn send<'a>(&'a mut self, msg: &'a [u8]) -> BoxFuture<'a, Result<(), ChannelError>> {
                (**self).send(msg)
            }
            fn send_vec(&mut self, msg: Vec<u8>) -> BoxFuture<'_, Result<(), ChannelError>> {
                (**self).send_vec(msg)
            }
            fn recv_into<'a>(
                &'a mut self,
                buf: &'a mut Vec<u8>,
                max_len: usize,
            ) -> BoxFuture<'a, Result<(), ChannelError>> {
                (**self).recv_into(buf, max_len)
            }
            fn recv_into_slice<'a>(
                &'a mut self,
                out: &'a mut [u8],
            ) -> BoxFuture<'a, Result<usize, ChannelError>> {
                (**self).recv_into_slice(out)
            }
            fn flush(&mut self) -> BoxFuture<'_, Result<(), ChannelError>> {
                (**self).flush()
            }
            fn stats(&self) -> ChannelStats {
                (**self).stats()
            }
        }
    };
}

forward_async_channel!(&mut C);
// Boxed async channels (`Box<dyn AsyncChannel>`) are async channels, so a
// transport can be chosen at run time.
forward_async_channel!(Box<C>);

/// Length-prefixed frames over a tokio byte stream `S` (the frame format of
/// [`TcpChannel`](super::TcpChannel), so either end may be blocking).
///
/// Small frames are gathered in a 64 KiB write buffer and written on
/// [`AsyncChannel::flush`], before a receive, or when the buffer is full;
/// larger frames are written from the caller's slice. A write waits for the
/// peer to read (the transport's back-pressure), so memory stays bounded by
/// the buffer plus one frame.
#[derive(Debug)]
pub struct TokioChannel<S> {
    io: S,
    wbuf: Vec<u8>,
    stats: StatsCounter,
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send> TokioChannel<S> {
    /// Frames over `io`.
    pub fn new(io: S) -> Self {
        TokioChannel {
            io,
            wbuf: Vec::new(),
            stats: StatsCounter::default(),
        }
    }

    /// The underlying stream (frames still in the write buffer are dropped:
    /// flush first).
    pub fn into_inner(self) -> S {
        self.io
    }

    async fn write_buffered(&mut self) -> Result<(), ChannelError> {
        if !self.wbuf.is_empty() {
            self.io.write_all(&self.wbuf).await.map_err(write_err)?;
            self.wbuf.clear();
        }
        Ok(())
    }

    async fn send_frame(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        self.wbuf
            .extend_from_slice(&(msg.len() as u64).to_le_bytes());
        if msg.len() < WRITE_BUFFER {
            self.wbuf.extend_from_slice(msg);
            if self.wbuf.len() >= WRITE_BUFFER {
                self.write_buffered().await?;
            }
        } else {
            self.write_buffered().await?;
            self.io.write_all(msg).await.map_err(write_err)?;
        }
        self.stats.on_send(msg.len());
        Ok(())
    }

    async fn flush_frames(&mut self) -> Result<(), ChannelError> {
        self.write_buffered().await?;
        self.io.flush().await.map_err(write_err)
    }

    /// Reads exactly `out.len()` bytes; a hang-up after `done` bytes of a
    /// frame of `frame` bytes is [`ChannelError::Truncated`] (or
    /// [`ChannelError::Closed`] at a frame boundary).
    async fn read_full(
        &mut self,
        out: &mut [u8],
        done: usize,
        frame: usize,
    ) -> Result<(), ChannelError> {
        let mut got = 0;
        while got < out.len() {
            let n = self.io.read(&mut out[got..]).await.map_err(|e| {
                if super::tcp::is_hangup(e.kind()) {
                    hangup(done + got, frame)
                } else {
                    ChannelError::Io(e)
                }
            })?;
            if n == 0 {
                return Err(hangup(done + got, frame));
            }
            got += n;
        }
        Ok(())
    }

    /// Flushes our frames, then reads the next header (at most `max_len`).
    async fn recv_header(&mut self, max_len: usize) -> Result<usize, ChannelError> {
        self.flush_frames().await?;
        let mut header = [0u8; HEADER];
        self.read_full(&mut header, 0, 0).await?;
        let announced = u64::from_le_bytes(header);
        match usize::try_from(announced) {
            Ok(len) if len <= max_len => Ok(len),
            _ => Err(ChannelError::Oversized {
                len: announced,
                max: max_len,
            }),
        }
    }

    async fn recv_frame(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        buf.clear();
        let len = self.recv_header(max_len).await?;
        buf.resize(len, 0);
        self.read_full(buf, 0, len).await?;
        self.stats.on_recv(len);
        Ok(())
    }

    async fn recv_slice(&mut self, out: &mut [u8]) -> Result<usize, ChannelError> {
        let len = self.recv_header(out.len()).await?;
        self.read_full(&mut out[..len], 0, len).await?;
        self.stats.on_recv(len);
        Ok(len)
    }
}

/// A hang-up `done` bytes into a frame of `frame` bytes (or its header).
fn hangup(done: usize, frame: usize) -> ChannelError {
    if done == 0 && frame == 0 {
        ChannelError::Closed
    } else {
        ChannelError::Truncated {
            expected: frame.max(HEADER),
            got: done,
        }
    }
}

/// A failed write: a hang-up is [`ChannelError::Closed`].
fn write_err(e: io::Error) -> ChannelError {
    if super::tcp::is_hangup(e.kind()) {
        ChannelError::Closed
    } else {
        ChannelError::Io(e)
    }
}

impl<S: AsyncRead + AsyncWrite + Unpin + Send> AsyncChannel for TokioChannel<S> {
    fn send<'a>(&'a mut self, msg: &'a [u8]) -> BoxFuture<'a, Result<(), ChannelError>> {
        Box::pin(self.send_frame(msg))
    }
    fn recv_into<'a>(
        &'a mut self,
        buf: &'a mut Vec<u8>,
        max_len: usize,
    ) -> BoxFuture<'a, Result<(), ChannelError>> {
        Box::pin(self.recv_frame(buf, max_len))
    }
    fn recv_into_slice<'a>(
        &'a mut self,
        out: &'a mut [u8],
    ) -> BoxFuture<'a, Result<usize, ChannelError>> {
        Box::pin(self.recv_slice(out))
    }
    fn flush(&mut self) -> BoxFuture<'_, Result<(), ChannelError>> {
        Box::pin(self.flush_frames())
    }
    fn stats(&self) -> ChannelStats {
        self.stats.get()
    }
}

impl TokioChannel<tokio::net::TcpStream> {
    /// Connects to `addr` (Nagle's algorithm off: frames go out on flush).
    pub async fn connect<A: tokio::net::ToSocketAddrs>(addr: A) -> io::Result<Self> {
        let s = tokio::net::TcpStream::connect(addr).await?;
        s.set_nodelay(true)?;
        Ok(TokioChannel::new(s))
    }

    /// Accepts one connection on `listener` (Nagle's algorithm off).
    pub async fn accept(listener: &tokio::net::TcpListener) -> io::Result<Self> {
        let (s, _) = listener.accept().await?;
        s.set_nodelay(true)?;
        Ok(TokioChannel::new(s))
    }
}

/// Two connected in-memory channels over `tokio::io::duplex`, each direction
/// buffering at most `max_buf_size` bytes (a writer waits beyond that).
pub fn duplex_pair(
    max_buf_size: usize,
) -> (
    TokioChannel<tokio::io::DuplexStream>,
    TokioChannel<tokio::io::DuplexStream>,
) {
    let (a, b) = tokio::io::duplex(max_buf_size);
    (TokioChannel::new(a), TokioChannel::new(b))
}

/// Two connected channels over TCP on the loopback interface (a listener on
/// an ephemeral port, one connection).
pub async fn local_pair_tokio_tcp() -> io::Result<(
    TokioChannel<tokio::net::TcpStream>,
    TokioChannel<tokio::net::TcpStream>,
)> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    // The connection completes in the listener's backlog before `accept`.
    let b = TokioChannel::connect(addr).await?;
    let a = TokioChannel::accept(&listener).await?;
    Ok((a, b))
}
