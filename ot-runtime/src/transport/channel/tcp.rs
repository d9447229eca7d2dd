//! Length-prefixed frames over TCP, with a background writer thread.

use std::io::{self, IoSlice, IoSliceMut, Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream, ToSocketAddrs};
use std::sync::mpsc::{self, Sender, TryRecvError};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use super::notice::{self, AbortNotice};
use super::pool::{BlockPool, BufferPool, PairPool, RECYCLE_MIN};
use super::{Channel, ChannelError, ChannelStats, StatsCounter};
use crate::Block;

/// Size of the length prefix of each frame.
const HEADER: usize = 8;

/// The length prefix of a frame of `len` payload bytes.
fn frame_header(len: usize) -> [u8; HEADER] {
    (len as u64).to_le_bytes()
}
/// Size of the writer's coalescing buffer for small frames; it is written
/// out whenever it holds this many bytes (or the queue runs empty).
const COALESCE: usize = 64 * 1024;
/// Payloads of at least this many bytes are not copied into the coalescing
/// buffer: they are written to the socket straight from their own buffer
/// (one vectored write together with whatever is coalesced and the header),
/// which then goes back to the send pool for reuse.
const DIRECT: usize = RECYCLE_MIN;
/// Most buffer capacity the send pool keeps: spent payload buffers returned
/// by the writer thread, reused by [`Channel::send`] for the next large
/// frame. As large as the default writer queue, so that a bulk transfer that
/// keeps the queue full does not allocate afresh on every run.
const POOL_BYTES: usize = 64 * 1024 * 1024;
/// Granularity of one socket read into the read-ahead buffer.
const READ_CHUNK: usize = 64 * 1024;
/// Default receive / no-progress time-out.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// Default bound on bytes queued for the writer thread.
const DEFAULT_QUEUE_LIMIT: usize = 64 * 1024 * 1024;
/// Default bound on the read-ahead buffer while a send waits for queue
/// space (see [`TcpChannel::with_read_ahead_limit`]).
const DEFAULT_READ_AHEAD_LIMIT: usize = 1024 * 1024 * 1024;
/// Default minimum transfer rate once a frame has started (64 KiB/s).
const DEFAULT_MIN_RATE: u64 = 64 * 1024;
/// Send buffer of loopback connections (see `TcpChannel::from_stream`).
#[cfg(target_os = "linux")]
const LOOPBACK_SNDBUF: usize = 256 * 1024;
/// Poll interval while waiting for the writer thread.
const POLL: Duration = Duration::from_millis(1);

/// State shared between a [`TcpChannel`] and its writer thread.
#[derive(Debug, Default)]
struct WriterState {
    /// Bytes handed to the writer and not yet written to the socket.
    in_flight: usize,
    /// First write error, reported by the next send or flush.
    error: Option<io::Error>,
    /// The writer thread has exited.
    done: bool,
}

#[derive(Debug)]
struct WriterShared {
    state: Mutex<WriterState>,
    cv: Condvar,
    /// Spent payload buffers, put by the writer, taken by `send`.
    pool: BufferPool,
    /// Spent block chunks, put by the writer, taken by `send_blocks`.
    blocks: BlockPool,
    /// Spent block-pair chunks, put by the writer, taken by `send_pairs`.
    pairs: PairPool,
}

impl WriterShared {
    fn new() -> Self {
        WriterShared {
            state: Mutex::default(),
            cv: Condvar::new(),
            pool: BufferPool::new(POOL_BYTES),
            blocks: BlockPool::new(POOL_BYTES),
            pairs: PairPool::new(POOL_BYTES),
        }
    }

    /// Locks the state; a poisoned lock (the writer panicked) still holds
    /// consistent counters, so it is used as is.
    fn lock(&self) -> MutexGuard<'_, WriterState> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// One frame queued for the writer thread.
#[derive(Debug)]
struct Frame {
    header: [u8; HEADER],
    payload: Payload,
    /// Leading bytes of the header and payload that the caller already
    /// wrote itself (see [`TcpChannel::write_now`]).
    written: usize,
}

impl Frame {
    /// The header's and the payload's bytes not written yet.
    fn rest(&self) -> (&[u8], &[u8]) {
        unwritten(&self.header, self.payload.bytes(), self.written)
    }
}

/// What is left of a frame (`header`, `payload`) after its first `written`
/// bytes.
fn unwritten<'a>(header: &'a [u8], payload: &'a [u8], written: usize) -> (&'a [u8], &'a [u8]) {
    (
        &header[written.min(header.len())..],
        &payload[written.saturating_sub(header.len()).min(payload.len())..],
    )
}

/// A queued frame's payload: bytes, or the storage of a block chunk handed
/// over by [`Channel::send_blocks`] (written as its bytes, then kept for
/// the next such chunk).
#[derive(Debug)]
enum Payload {
    Bytes(Vec<u8>),
    Blocks(Vec<Block>),
    Pairs(Vec<[Block; 2]>),
}

impl Payload {
    fn bytes(&self) -> &[u8] {
        match self {
            Payload::Bytes(b) => b,
            Payload::Blocks(b) => Block::slice_as_bytes(b),
            Payload::Pairs(p) => bytemuck::cast_slice(p),
        }
    }

    /// Returns the spent buffer to its pool.
    fn recycle(self, shared: &WriterShared) {
        match self {
            Payload::Bytes(b) => shared.pool.put(b),
            Payload::Blocks(b) => shared.blocks.put(b),
            Payload::Pairs(p) => shared.pairs.put(p),
        }
    }
}

/// Body of the writer thread: writes queued frames in order until the
/// sender is dropped or a write fails.
///
/// Small frames queued back to back are coalesced into one buffer, written
/// out when the queue runs empty or it holds [`COALESCE`] bytes. A large
/// payload (at least [`DIRECT`] bytes) is written straight from its own
/// buffer, in one vectored write with the coalesced bytes and its header
/// (so no extra copy and no separate tiny packet for the header), then
/// handed to the send pool. Bytes count as no longer in flight as soon as
/// a write call has passed them to the socket.
fn writer_loop(mut stream: TcpStream, rx: mpsc::Receiver<Frame>, shared: Arc<WriterShared>) {
    let mut pending: Vec<u8> = Vec::with_capacity(COALESCE + DIRECT);
    let res: io::Result<()> = (|| loop {
        let frame = match rx.try_recv() {
            Ok(frame) => frame,
            Err(TryRecvError::Empty) => {
                write_pending(&mut stream, &mut pending, &shared)?;
                match rx.recv() {
                    Ok(frame) => frame,
                    Err(_) => return Ok(()),
                }
            }
            Err(TryRecvError::Disconnected) => return Ok(()),
        };
        if frame.written == 0 && frame.payload.bytes().len() < DIRECT {
            pending.extend_from_slice(&frame.header);
            pending.extend_from_slice(frame.payload.bytes());
            if pending.len() >= COALESCE {
                write_pending(&mut stream, &mut pending, &shared)?;
            }
        } else {
            let (header, payload) = frame.rest();
            let mut slices = [
                IoSlice::new(&pending),
                IoSlice::new(header),
                IoSlice::new(payload),
            ];
            let last = write_accounted(&mut stream, &mut slices, &shared)?;
            pending.clear();
            // Into the pool before the last bytes are accounted: a sender
            // woken by that (or returning from `flush`) finds it there.
            frame.payload.recycle(&shared);
            account(&shared, last);
        }
    })();
    let res = res.and_then(|()| write_pending(&mut stream, &mut pending, &shared));
    let mut st = shared.lock();
    if let Err(e) = res {
        st.error = Some(e);
    }
    st.done = true;
    drop(st);
    shared.cv.notify_all();
}

/// Writes out the coalesced small frames.
fn write_pending(
    stream: &mut TcpStream,
    pending: &mut Vec<u8>,
    shared: &WriterShared,
) -> io::Result<()> {
    if !pending.is_empty() {
        let last = write_accounted(stream, &mut [IoSlice::new(pending)], shared)?;
        pending.clear();
        account(shared, last);
    }
    Ok(())
}

/// Subtracts `n` written bytes from the in-flight count and wakes waiters.
fn account(shared: &WriterShared, n: usize) {
    if n == 0 {
        return;
    }
    let mut st = shared.lock();
    st.in_flight = st.in_flight.saturating_sub(n);
    drop(st);
    shared.cv.notify_all();
}

/// Writes all of `slices` to the socket. What each write call passed on is
/// subtracted from the in-flight count right away (so a waiting sender sees
/// progress even during one huge frame), except for the last call: its byte
/// count is returned for the caller to [`account`] once it is done with the
/// buffers.
fn write_accounted(
    stream: &mut TcpStream,
    mut slices: &mut [IoSlice<'_>],
    shared: &WriterShared,
) -> io::Result<usize> {
    IoSlice::advance_slices(&mut slices, 0);
    let mut last = 0;
    while !slices.is_empty() {
        let n = match stream.write_vectored(slices) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        IoSlice::advance_slices(&mut slices, n);
        account(shared, last);
        last = n;
    }
    Ok(last)
}

/// Whether an I/O error means the peer went away.
pub(crate) fn is_hangup(kind: io::ErrorKind) -> bool {
    matches!(
        kind,
        io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe
            | io::ErrorKind::UnexpectedEof
    )
}

/// Whether an I/O error is a read time-out (`WouldBlock` on Unix,
/// `TimedOut` on Windows).
pub(crate) fn is_timeout(kind: io::ErrorKind) -> bool {
    matches!(kind, io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut)
}

/// One end of a framed TCP connection.
///
/// Wire format: each frame is an 8-byte little-endian `u64` payload length
/// followed by the payload. A `u64` (rather than `u32`) lets one frame carry
/// more than 4 GiB if a protocol ever wants to; the receiver's `max_len` is
/// what bounds allocation.
///
/// Writing: when nothing is queued for the writer thread, a frame is first
/// written on the calling thread with a non-blocking send (Linux), and a
/// frame the socket takes whole is done there: no copy, no hand-off (on a
/// local link, where the peer reads as fast as we write, that is every
/// bulk chunk). Whatever the socket does not take is handed to a writer
/// thread as an owned buffer
/// (copied once by [`Channel::send`], not at all by [`Channel::send_vec`],
/// nor by [`Channel::send_blocks`] for chunks of 16 KiB or more, whose
/// caller gets a spent chunk buffer back in exchange).
/// The writer coalesces small frames that are queued back to back into a
/// 64 KiB buffer and writes it out as soon as its queue runs empty, so
/// frames are never held back waiting for an explicit flush, while bursts of
/// small frames still cost few system calls. Payloads of 16 KiB or more are
/// written straight from their buffer (no coalescing copy), and the spent
/// buffer is kept (up to 64 MiB in all) for [`Channel::send`] to copy a later
/// large frame into, so a bulk transfer does not allocate, and page-fault,
/// a fresh buffer per frame. The writer thread lets a party
/// keep sending while the peer is also sending, and receive while its own
/// big message is still going out. [`Channel::flush`] waits until every
/// queued byte has been written to the socket (on loopback the socket holds
/// about 512 KiB, so flushing more needs the peer to be reading).
///
/// Reading: small frames are served from a read-ahead buffer; the bulk of a
/// large frame is read from the socket straight into the caller's buffer of
/// [`Channel::recv_into`] (with [`Channel::recv_into_slice`] and nothing
/// read ahead, all of it: header and payload in one vectored read), whose allocation is reused (and, as long as its
/// length already covers the frame, not even zero-filled again), so a
/// receive loop with one reused buffer neither allocates nor copies twice.
///
/// Deadlock freedom: the writer queue is bounded (64 MiB by default). A send
/// or flush that has to wait for queue space is woken as soon as the writer
/// makes progress; when the writer is stuck (the peer is not reading), the
/// calling thread drains the socket into its read-ahead buffer, so two
/// peers that both send a lot before receiving still make progress (up to
/// 1 GiB of read-ahead by default, [`TcpChannel::with_read_ahead_limit`]).
/// A single frame larger than the limit is always accepted when the queue
/// is empty.
///
/// Hostile peers: reading ahead is not progress of a send, so a peer that
/// floods us while never reading fails the send with
/// [`ChannelError::Timeout`] after the time-out, having made us buffer at
/// most the read-ahead limit. Once a frame's header has arrived, its payload
/// must arrive at the minimum rate ([`TcpChannel::with_min_rate`], default
/// 64 KiB/s: at most the time-out plus `len / rate`), and a blocked send
/// must drain at that rate, else [`ChannelError::TooSlow`]; a session
/// deadline ([`TcpChannel::with_deadline`]) bounds everything else.
///
/// `TCP_NODELAY` is set. On a loopback connection (Linux) the congestion
/// control is switched to Reno (a pacing one such as BBR only adds timer
/// work on a local link) and the send buffer is set to 256 KiB, so that
/// data is transmitted by the writer thread rather than from the peer's
/// acknowledgements (measured: Delta-IKNP at 2^24 over loopback, median
/// run 0.102–0.123 s instead of 0.118–0.173 s). A receive fails with [`ChannelError::Timeout`] after
/// the configured time-out (default 30 s) without any incoming byte, with
/// [`ChannelError::Closed`] if the peer closed the connection at a frame
/// boundary and with [`ChannelError::Truncated`] if it closed mid-frame.
/// Dropping the channel waits (up to the time-out) for queued frames to
/// reach the socket, unless a send or flush has already timed out waiting
/// for the peer to read.
#[derive(Debug)]
pub struct TcpChannel {
    /// The socket, used for reads on the calling thread.
    stream: TcpStream,
    /// Read-ahead buffer (fully initialised, reused across reads);
    /// `rbuf[rpos..rend]` is received but unconsumed.
    rbuf: Vec<u8>,
    rpos: usize,
    rend: usize,
    /// The peer closed its sending side (read returned 0).
    eof: bool,
    /// Queue to the writer thread; `None` once shut down.
    tx: Option<Sender<Frame>>,
    shared: Arc<WriterShared>,
    thread: Option<JoinHandle<()>>,
    timeout: Duration,
    /// Read time-out currently set on the socket (to avoid syscalls).
    current_rto: Option<Duration>,
    queue_limit: usize,
    /// Most bytes read ahead while a send waits for queue space.
    read_ahead_limit: usize,
    /// The next frame's payload length as announced by the caller
    /// ([`Channel::expect_next_frame`]), which lowers the read-ahead bound.
    expected: Option<usize>,
    /// Minimum transfer rate in bytes per second once a transfer has
    /// started (0: none).
    min_rate: u64,
    /// Session deadline: every operation fails after it.
    deadline: Option<Instant>,
    /// A wait for the writer failed (time-out, deadline, too slow): the
    /// peer is not reading, so dropping the channel does not wait again.
    writer_stuck: bool,
    stats: StatsCounter,
}

/// A transfer in progress (a frame being received, a wait for the writer
/// to drain), with the time it may take under the minimum rate.
#[derive(Clone, Copy, Debug)]
struct Transfer {
    /// Bytes it has to move.
    len: usize,
    /// The time it is allowed (time-out plus `len / min_rate`).
    allowed: Duration,
    /// When that time is up; `None` without a minimum rate.
    until: Option<Instant>,
}

impl TcpChannel {
    /// Connects to `addr` (trying each resolved address), giving up on an
    /// address after `timeout`, which also becomes the channel's time-out
    /// (see [`TcpChannel::with_timeout`]).
    pub fn connect<A: ToSocketAddrs>(addr: A, timeout: Duration) -> io::Result<TcpChannel> {
        let mut last = io::Error::new(io::ErrorKind::InvalidInput, "no address to connect to");
        for a in addr.to_socket_addrs()? {
            match TcpStream::connect_timeout(&a, clamp(timeout)) {
                Ok(stream) => return Self::from_stream(stream).map(|c| c.with_timeout(timeout)),
                Err(e) => last = e,
            }
        }
        Err(last)
    }

    /// Accepts one connection on `listener`, failing with
    /// [`io::ErrorKind::TimedOut`] if none arrives within `timeout`, which
    /// also becomes the channel's time-out (see [`TcpChannel::with_timeout`]).
    pub fn accept(listener: &TcpListener, timeout: Duration) -> io::Result<TcpChannel> {
        let deadline = Instant::now() + timeout;
        listener.set_nonblocking(true)?;
        let res = loop {
            match listener.accept() {
                Ok((stream, _)) => break Ok(stream),
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {
                    if Instant::now() >= deadline {
                        break Err(io::Error::new(
                            io::ErrorKind::TimedOut,
                            "no connection within the time-out",
                        ));
                    }
                    thread::sleep(POLL);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => break Err(e),
            }
        };
        listener.set_nonblocking(false)?;
        let stream = res?;
        stream.set_nonblocking(false)?;
        Ok(Self::from_stream(stream)?.with_timeout(timeout))
    }

    /// Wraps an established connection: sets `TCP_NODELAY` and starts the
    /// writer thread. The receive time-out is the default 30 s.
    pub fn from_stream(stream: TcpStream) -> io::Result<TcpChannel> {
        stream.set_nodelay(true)?;
        #[cfg(target_os = "linux")]
        if stream.peer_addr().is_ok_and(|a| a.ip().is_loopback()) {
            let sock = socket2::SockRef::from(&stream);
            // Best effort: a pacing congestion control (BBR, the default on
            // some systems) arms a timer per burst, pure CPU cost on a
            // loss-free local link; Reno is always permitted and never paces.
            let _ = sock.set_tcp_congestion(b"reno");
            // A small send buffer (the kernel doubles it): little data waits
            // in our socket for the peer's window, so our writer thread
            // transmits it when it writes, instead of the peer's receive
            // path transmitting it for us from its acknowledgements, which
            // kept the (slower) receiving process busy. Loopback has no
            // bandwidth-delay product to cover.
            let _ = sock.set_send_buffer_size(LOOPBACK_SNDBUF);
        }
        let write_half = stream.try_clone()?;
        let shared = Arc::new(WriterShared::new());
        let (tx, rx) = mpsc::channel();
        let thread_shared = Arc::clone(&shared);
        let thread = thread::Builder::new()
            .name("ot-tcp-writer".into())
            .spawn(move || writer_loop(write_half, rx, thread_shared))?;
        Ok(TcpChannel {
            stream,
            rbuf: Vec::new(),
            rpos: 0,
            rend: 0,
            eof: false,
            tx: Some(tx),
            shared,
            thread: Some(thread),
            timeout: DEFAULT_TIMEOUT,
            current_rto: None,
            queue_limit: DEFAULT_QUEUE_LIMIT,
            read_ahead_limit: DEFAULT_READ_AHEAD_LIMIT,
            expected: None,
            min_rate: DEFAULT_MIN_RATE,
            deadline: None,
            writer_stuck: false,
            stats: StatsCounter::default(),
        })
    }

    /// Sets how long an operation may go without progress (no byte read,
    /// no byte written) before failing with [`ChannelError::Timeout`].
    /// A zero time-out is treated as 1 ms.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.set_timeout(timeout);
        self
    }

    /// Changes the time-out in place (see [`TcpChannel::with_timeout`]).
    pub fn set_timeout(&mut self, timeout: Duration) {
        self.timeout = clamp(timeout);
    }

    /// Sets how many bytes may be queued for the writer thread before a
    /// send waits (while draining incoming data). Bounds memory of a fast
    /// sender on a slow link.
    #[must_use]
    pub fn with_write_queue_limit(mut self, bytes: usize) -> Self {
        self.queue_limit = bytes;
        self
    }

    /// Sets the minimum transfer rate, in bytes per second, that a frame
    /// must keep once its header has arrived (and a blocked send once it
    /// waits for the peer to read): moving `len` bytes may take at most the
    /// time-out plus `len / rate`, else [`ChannelError::TooSlow`]. The
    /// time-out alone measures silence, so without this a peer sending one
    /// byte per second would hold a party indefinitely. Default 64 KiB/s
    /// (512 kbit/s); 0 disables the bound.
    #[must_use]
    pub fn with_min_rate(mut self, bytes_per_second: u64) -> Self {
        self.min_rate = bytes_per_second;
        self
    }

    /// Sets a deadline for the whole session: any send, receive or flush
    /// still waiting at `deadline` fails with
    /// [`ChannelError::DeadlineExceeded`] (and none starts after it).
    #[must_use]
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.set_deadline(Some(deadline));
        self
    }

    /// Sets or clears the session deadline in place (see
    /// [`TcpChannel::with_deadline`]).
    pub fn set_deadline(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Sets how many bytes a send that waits for queue space may read ahead
    /// from the peer (default 1 GiB). Reading ahead lets two peers that
    /// both send a lot before receiving make progress; it does not count as
    /// progress of the send, so a peer that floods us and never reads what
    /// we send is cut off by the time-out, having made us buffer at most
    /// this much plus one read (64 KiB). A caller that announces its next
    /// frame ([`Channel::expect_next_frame`], as generated drivers do)
    /// lowers the bound to that frame plus [`super::READ_AHEAD_SLACK`].
    #[must_use]
    pub fn with_read_ahead_limit(mut self, bytes: usize) -> Self {
        self.read_ahead_limit = bytes;
        self
    }

    /// Bytes currently held in the read-ahead buffer (allocated, not only
    /// unconsumed), for tests of the memory bound.
    #[cfg(test)]
    pub(crate) fn read_ahead_capacity(&self) -> usize {
        self.rbuf.len()
    }

    /// Spare payload buffers held for reuse: count and total capacity.
    #[cfg(test)]
    pub(super) fn pool_held(&self) -> (usize, usize) {
        self.shared.pool.held()
    }

    /// The socket's congestion control algorithm and send buffer size (for
    /// tests).
    #[cfg(all(test, target_os = "linux"))]
    pub(super) fn socket_tuning(&self) -> io::Result<(Vec<u8>, usize)> {
        let sock = socket2::SockRef::from(&self.stream);
        Ok((sock.tcp_congestion()?, sock.send_buffer_size()?))
    }

    /// Address of the peer.
    pub fn peer_addr(&self) -> io::Result<std::net::SocketAddr> {
        self.stream.peer_addr()
    }

    /// Sets the socket's read time-out, skipping the syscall if unchanged.
    fn set_rto(&mut self, d: Duration) -> io::Result<()> {
        if self.current_rto != Some(d) {
            self.stream.set_read_timeout(Some(d))?;
            self.current_rto = Some(d);
        }
        Ok(())
    }

    /// Starts a transfer of `len` bytes now.
    fn transfer(&self, len: usize) -> Transfer {
        let allowed = match self.min_rate {
            0 => Duration::MAX,
            // Beyond `Duration`'s range (absurd lengths or rates) means no bound.
            rate => Duration::try_from_secs_f64(len as f64 / rate as f64)
                .map_or(Duration::MAX, |t| self.timeout.saturating_add(t)),
        };
        Transfer {
            len,
            allowed,
            until: Instant::now().checked_add(allowed),
        }
    }

    /// The error for a transfer (or a silent wait, `t = None`) that ran out
    /// of time with `done` bytes moved: the session deadline, the minimum
    /// rate or the time-out, whichever has passed.
    fn expired(&self, t: Option<&Transfer>, done: usize) -> ChannelError {
        let now = Instant::now();
        if self.deadline.is_some_and(|d| now >= d) {
            return ChannelError::DeadlineExceeded;
        }
        match t {
            Some(t) if t.until.is_some_and(|u| now >= u) => ChannelError::TooSlow {
                len: t.len,
                done,
                after: t.allowed,
                min_rate: self.min_rate,
            },
            _ => ChannelError::Timeout {
                after: self.timeout,
            },
        }
    }

    /// Sets the socket's read time-out for the next read: the time-out,
    /// shortened to what is left of the session deadline and of the
    /// transfer `t`. Fails if either has already passed. The socket option
    /// changes (a syscall) only in the last time-out before a deadline.
    fn arm_read(&mut self, t: Option<&Transfer>, done: usize) -> Result<(), ChannelError> {
        let now = Instant::now();
        let ends = [self.deadline, t.and_then(|t| t.until)];
        let mut rto = self.timeout;
        for end in ends.into_iter().flatten() {
            match end.checked_duration_since(now) {
                Some(left) if !left.is_zero() => rto = rto.min(left),
                _ => return Err(self.expired(t, done)),
            }
        }
        Ok(self.set_rto(clamp(rto))?)
    }

    /// Fails once the session deadline has passed.
    fn check_deadline(&self) -> Result<(), ChannelError> {
        match self.deadline {
            Some(d) if Instant::now() >= d => Err(ChannelError::DeadlineExceeded),
            _ => Ok(()),
        }
    }

    /// Unconsumed bytes in the read-ahead buffer.
    fn buffered(&self) -> usize {
        self.rend - self.rpos
    }

    /// One `read` from the socket appended to the read-ahead buffer. Returns
    /// the number of bytes read (0 at end of stream, which sets `eof`).
    fn read_more(&mut self) -> io::Result<usize> {
        if self.rpos == self.rend {
            self.rpos = 0;
            self.rend = 0;
            if self.rbuf.len() > 16 * READ_CHUNK {
                // Give back memory of a past read-ahead burst.
                self.rbuf.truncate(READ_CHUNK);
                self.rbuf.shrink_to_fit();
            }
        } else if self.rpos >= READ_CHUNK {
            self.rbuf.copy_within(self.rpos..self.rend, 0);
            self.rend -= self.rpos;
            self.rpos = 0;
        }
        if self.rbuf.len() - self.rend < READ_CHUNK {
            self.rbuf.resize(self.rend + READ_CHUNK, 0);
        }
        let res = loop {
            match self.stream.read(&mut self.rbuf[self.rend..]) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => break other,
            }
        };
        self.rend += *res.as_ref().unwrap_or(&0);
        if matches!(res, Ok(0)) {
            self.eof = true;
        }
        res
    }

    /// Takes the writer's first error, if any, as a channel error.
    fn writer_failed(st: &mut WriterState) -> Option<ChannelError> {
        if let Some(e) = st.error.take() {
            return Some(if is_hangup(e.kind()) {
                ChannelError::Closed
            } else {
                ChannelError::Io(e)
            });
        }
        st.done.then_some(ChannelError::Closed)
    }

    /// Waits until `ready(in_flight)` holds. The writer thread wakes us as
    /// soon as it passes bytes to the socket. Only when it has made no
    /// progress for [`POLL`] (the peer is not reading: it may itself be
    /// blocked sending to us) is the socket drained into the read-ahead
    /// buffer (up to the read-ahead limit), so that two peers sending at
    /// once cannot deadlock. Only the writer's progress counts: reading
    /// ahead does not, so a peer that floods us and never reads fails the
    /// wait after the time-out. Fails also when the writer drains slower
    /// than the minimum rate allows ([`ChannelError::TooSlow`]) and at the
    /// session deadline.
    fn wait_writer(&mut self, ready: impl Fn(usize) -> bool) -> Result<(), ChannelError> {
        let res = self.wait_writer_inner(ready);
        if matches!(
            res,
            Err(ChannelError::Timeout { .. }
                | ChannelError::TooSlow { .. }
                | ChannelError::DeadlineExceeded)
        ) {
            self.writer_stuck = true;
        }
        res
    }

    /// [`TcpChannel::wait_writer`] without the bookkeeping of failures.
    fn wait_writer_inner(&mut self, ready: impl Fn(usize) -> bool) -> Result<(), ChannelError> {
        let shared = Arc::clone(&self.shared);
        let mut last_progress = Instant::now();
        let mut last_in_flight = usize::MAX;
        let start_in_flight = shared.lock().in_flight;
        let drain = self.transfer(start_in_flight);
        loop {
            let stalled = {
                let mut st = shared.lock();
                if let Some(err) = Self::writer_failed(&mut st) {
                    return Err(err);
                }
                if ready(st.in_flight) {
                    return Ok(());
                }
                if st.in_flight != last_in_flight {
                    last_in_flight = st.in_flight;
                    last_progress = Instant::now();
                }
                let (st, wait) = shared
                    .cv
                    .wait_timeout(st, POLL)
                    .map_err(|_| ChannelError::Closed)?;
                wait.timed_out() && st.in_flight == last_in_flight && !ready(st.in_flight)
            };
            let now = Instant::now();
            let passed = |end: Option<Instant>| end.is_some_and(|e| now >= e);
            if last_progress.elapsed() > self.timeout
                || passed(self.deadline)
                || passed(drain.until)
            {
                let drained = start_in_flight.saturating_sub(last_in_flight);
                return Err(self.expired(Some(&drain), drained));
            }
            let cap = super::read_ahead_cap(self.read_ahead_limit, self.expected);
            if stalled && !self.eof && self.buffered() < cap {
                self.set_rto(POLL)?;
                match self.read_more() {
                    Ok(_) => {}
                    Err(e) if is_timeout(e.kind()) => {}
                    // The peer may have reset after sending; what we
                    // already buffered stays readable, the writer will
                    // report the failure.
                    Err(e) if is_hangup(e.kind()) => self.eof = true,
                    Err(e) => return Err(ChannelError::Io(e)),
                }
            }
        }
    }

    /// Starts a frame with payload `bytes`: waits for queue space, then
    /// writes what the socket takes right now ([`TcpChannel::write_now`]).
    /// Returns how many leading bytes of the frame (header first) went out;
    /// the caller queues the rest with [`TcpChannel::queue_rest`] unless
    /// that is all of it ([`HEADER`] + `bytes.len()`).
    fn start_frame(&mut self, bytes: &[u8]) -> Result<usize, ChannelError> {
        self.start_frame_with(frame_header(bytes.len()), bytes)
    }

    /// As [`TcpChannel::start_frame`] with the frame header `header` (a
    /// protocol frame's, or a notice's).
    fn start_frame_with(
        &mut self,
        header: [u8; HEADER],
        bytes: &[u8],
    ) -> Result<usize, ChannelError> {
        self.check_deadline()?;
        let len = HEADER + bytes.len();
        let limit = self.queue_limit;
        self.wait_writer(|in_flight| in_flight == 0 || in_flight.saturating_add(len) <= limit)?;
        Ok(self.write_now(&header, bytes))
    }

    /// Queues the rest of a frame begun by [`TcpChannel::start_frame`]
    /// (`written` of its bytes went out) for the writer thread; `payload` is
    /// the frame's whole payload, made only now, so that the writer has had
    /// the chance to return a spent buffer to its pool.
    fn queue_rest(&mut self, payload: Payload, written: usize) -> Result<(), ChannelError> {
        let header = frame_header(payload.bytes().len());
        self.queue_rest_with(header, payload, written)
    }

    /// As [`TcpChannel::queue_rest`] with the frame header `header`.
    fn queue_rest_with(
        &mut self,
        header: [u8; HEADER],
        payload: Payload,
        written: usize,
    ) -> Result<(), ChannelError> {
        let queued = HEADER + payload.bytes().len() - written;
        let frame = Frame {
            header,
            payload,
            written,
        };
        self.shared.lock().in_flight += queued;
        let sent = self.tx.as_ref().map(|tx| tx.send(frame));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => {
                let mut st = self.shared.lock();
                st.in_flight = st.in_flight.saturating_sub(queued);
                Err(Self::writer_failed(&mut st).unwrap_or(ChannelError::Closed))
            }
        }
    }

    /// Writes as much of a frame as the socket takes right now, on the
    /// calling thread and without blocking, when nothing is queued for the
    /// writer thread (so nothing may go out before it); returns the number
    /// of leading bytes written (header first), which the writer thread
    /// then skips. On a local link the socket usually takes a whole chunk:
    /// the frame then costs no hand-off to the writer thread (no wake-up,
    /// no context switch on a busy core). A full socket or an error leaves
    /// the rest to the writer thread, which blocks or reports the error as
    /// before.
    #[cfg(target_os = "linux")]
    fn write_now(&self, header: &[u8], payload: &[u8]) -> usize {
        if self.shared.lock().in_flight != 0 {
            return 0;
        }
        let sock = socket2::SockRef::from(&self.stream);
        let mut done = 0;
        loop {
            let (h, p) = unwritten(header, payload, done);
            if h.is_empty() && p.is_empty() {
                return done;
            }
            let slices = [IoSlice::new(h), IoSlice::new(p)];
            match sock.send_vectored_with_flags(&slices, libc::MSG_DONTWAIT | libc::MSG_NOSIGNAL) {
                Ok(0) => return done,
                Ok(n) => done += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(_) => return done,
            }
        }
    }

    /// Without a non-blocking send, every frame goes through the writer
    /// thread.
    #[cfg(not(target_os = "linux"))]
    fn write_now(&self, _header: &[u8], _payload: &[u8]) -> usize {
        0
    }

    /// Fills the read-ahead buffer to at least `n` bytes, stopping early at
    /// end of stream; within the time of transfer `t` (`done` of its bytes
    /// already received), or as a silent wait bounded by the time-out.
    fn fill(&mut self, n: usize, t: Option<&Transfer>, done: usize) -> Result<(), ChannelError> {
        while self.buffered() < n && !self.eof {
            self.arm_read(t, done + self.buffered())?;
            match self.read_more() {
                Ok(_) => {}
                Err(e) if is_timeout(e.kind()) => {
                    return Err(self.expired(t, done + self.buffered()))
                }
                Err(e) if is_hangup(e.kind()) => self.eof = true,
                Err(e) => return Err(ChannelError::Io(e)),
            }
        }
        Ok(())
    }

    /// Reads from the socket (bypassing the read-ahead buffer, which must
    /// be empty) until `out` is full or the stream ends, within the time of
    /// transfer `t` (`done` of its bytes already received); returns the
    /// number of bytes read, less than `out.len()` only at end of stream.
    fn read_direct(
        &mut self,
        out: &mut [u8],
        t: &Transfer,
        done: usize,
    ) -> Result<usize, ChannelError> {
        debug_assert_eq!(self.buffered(), 0);
        let mut got = 0;
        while got < out.len() && !self.eof {
            self.arm_read(Some(t), done + got)?;
            match self.stream.read(&mut out[got..]) {
                Ok(0) => self.eof = true,
                Ok(n) => got += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) if is_timeout(e.kind()) => return Err(self.expired(Some(t), done + got)),
                Err(e) if is_hangup(e.kind()) => self.eof = true,
                Err(e) => return Err(ChannelError::Io(e)),
            }
        }
        Ok(got)
    }

    /// Receives one frame into `buf` (see [`Channel::recv_into`]); on
    /// success `buf` holds exactly the frame, on failure its contents are
    /// unspecified (the caller clears it).
    fn recv_frame(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        let len = self.recv_header(max_len)?;
        // Size `buf` to the frame, reusing its allocation; only a part
        // beyond its current length is zero-filled (and then overwritten).
        if buf.len() < len {
            buf.try_reserve_exact(len - buf.len())
                .map_err(|_| ChannelError::Io(io::ErrorKind::OutOfMemory.into()))?;
            buf.resize(len, 0);
        } else {
            buf.truncate(len);
        }
        self.recv_payload(buf, 0)
    }

    /// Reads and checks the next frame's length header (at most `max_len`).
    fn recv_header(&mut self, max_len: usize) -> Result<usize, ChannelError> {
        self.check_deadline()?;
        self.fill(HEADER, None, 0)?;
        let have = self.buffered();
        if have < HEADER {
            return Err(if have == 0 {
                ChannelError::Closed
            } else {
                ChannelError::Truncated {
                    expected: HEADER,
                    got: have,
                }
            });
        }
        let mut header = [0u8; HEADER];
        header.copy_from_slice(&self.rbuf[self.rpos..self.rpos + HEADER]);
        let announced = u64::from_le_bytes(header);
        if let Some(notice) = notice::notice_len(announced) {
            self.rpos += HEADER;
            return Err(match notice {
                Ok(len) => self.recv_notice(len),
                Err(e) => e,
            });
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
        self.rpos += HEADER;
        Ok(len)
    }

    /// Reads the payload of an abort notice (its header was read) and
    /// returns what the receive reports: [`ChannelError::PeerAborted`], or
    /// why the notice is not one.
    fn recv_notice(&mut self, len: usize) -> ChannelError {
        let t = self.transfer(len);
        if let Err(e) = self.fill(len, Some(&t), 0) {
            return e;
        }
        let got = self.buffered();
        if got < len {
            return ChannelError::Truncated { expected: len, got };
        }
        let res = AbortNotice::decode(&self.rbuf[self.rpos..self.rpos + len]);
        self.rpos += len;
        match res {
            Ok(n) => ChannelError::PeerAborted(n),
            Err(e) => e,
        }
    }

    /// Receives one frame of at most `out.len()` bytes into `out` (see
    /// [`Channel::recv_into_slice`]). A large destination with nothing read
    /// ahead is filled by one vectored read of the header and as much of
    /// the payload as has arrived, straight into `out`, instead of reading
    /// up to [`READ_CHUNK`] bytes into the read-ahead buffer and copying
    /// them out. Bytes beyond the frame (the next frame's) go back to the
    /// read-ahead buffer, and so does everything read if the frame is
    /// oversized, so the channel's state is that of the plain path.
    fn recv_slice(&mut self, out: &mut [u8]) -> Result<usize, ChannelError> {
        if self.buffered() > 0 || self.eof || out.len() < READ_CHUNK {
            let len = self.recv_header(out.len())?;
            self.recv_payload(&mut out[..len], 0)?;
            return Ok(len);
        }
        self.check_deadline()?;
        self.arm_read(None, 0)?;
        let mut header = [0u8; HEADER];
        let res = loop {
            let mut bufs = [IoSliceMut::new(&mut header), IoSliceMut::new(out)];
            match self.stream.read_vectored(&mut bufs) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => break other,
            }
        };
        let n = match res {
            Ok(n) => n,
            Err(e) if is_timeout(e.kind()) => return Err(self.expired(None, 0)),
            Err(e) if is_hangup(e.kind()) => 0,
            Err(e) => return Err(ChannelError::Io(e)),
        };
        if n < HEADER {
            // End of stream or a partial header: the plain path finishes
            // the header (or reports the end).
            self.eof |= n == 0;
            self.unread(&[&header[..n]]);
            let len = self.recv_header(out.len())?;
            self.recv_payload(&mut out[..len], 0)?;
            return Ok(len);
        }
        let got = n - HEADER;
        let len = match usize::try_from(u64::from_le_bytes(header)) {
            Ok(len) if len <= out.len() => len,
            _ => {
                self.unread(&[&header, &out[..got]]);
                return self.recv_header(out.len());
            }
        };
        if got > len {
            self.unread(&[&out[len..got]]);
        }
        self.recv_payload(&mut out[..len], got.min(len))?;
        Ok(len)
    }

    /// Puts bytes read past what the caller took back into the (empty)
    /// read-ahead buffer.
    fn unread(&mut self, parts: &[&[u8]]) {
        debug_assert_eq!(self.buffered(), 0);
        self.rpos = 0;
        self.rend = 0;
        for p in parts {
            if self.rbuf.len() < self.rend + p.len() {
                self.rbuf.resize(self.rend + p.len(), 0);
            }
            self.rbuf[self.rend..self.rend + p.len()].copy_from_slice(p);
            self.rend += p.len();
        }
    }

    /// Reads a frame's payload (whose header was read) into all of `buf`,
    /// whose first `got` bytes already hold it.
    fn recv_payload(&mut self, buf: &mut [u8], got: usize) -> Result<(), ChannelError> {
        let len = buf.len();
        let t = self.transfer(len);
        let take = (len - got).min(self.buffered());
        buf[got..got + take].copy_from_slice(&self.rbuf[self.rpos..self.rpos + take]);
        self.rpos += take;
        let mut got = got + take;

        let rest = len - got;
        if rest >= READ_CHUNK {
            // Large frame: read the rest straight into the caller's buffer.
            got += self.read_direct(&mut buf[got..], &t, got)?;
        } else if rest > 0 {
            self.fill(rest, Some(&t), got)?;
            let take = rest.min(self.buffered());
            buf[got..got + take].copy_from_slice(&self.rbuf[self.rpos..self.rpos + take]);
            self.rpos += take;
            got += take;
        }
        if got < len {
            return Err(ChannelError::Truncated { expected: len, got });
        }
        self.stats.on_recv(len);
        Ok(())
    }
}

/// Socket time-outs must be non-zero.
fn clamp(d: Duration) -> Duration {
    d.max(Duration::from_millis(1))
}

impl Channel for TcpChannel {
    /// A frame the socket takes at once is written from `msg` itself;
    /// otherwise it is copied (into a recycled buffer) for the writer
    /// thread.
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        let written = self.start_frame(msg)?;
        if written < HEADER + msg.len() {
            let payload = Payload::Bytes(self.shared.pool.copy_of(msg));
            self.queue_rest(payload, written)?;
        }
        self.stats.on_send(msg.len());
        Ok(())
    }

    fn send_vec(&mut self, msg: Vec<u8>) -> Result<(), ChannelError> {
        let len = msg.len();
        let written = self.start_frame(&msg)?;
        if written < HEADER + len {
            self.queue_rest(Payload::Bytes(msg), written)?;
        } else {
            Payload::Bytes(msg).recycle(&self.shared);
        }
        self.stats.on_send(len);
        Ok(())
    }

    /// A frame the socket takes at once is written from `blocks`, which
    /// keeps its storage; otherwise a large chunk is handed to the writer
    /// thread as it is (no copy) and `blocks` gets a spent chunk buffer of
    /// the same length back.
    fn send_blocks(&mut self, blocks: &mut Vec<Block>) -> Result<(), ChannelError> {
        let len = 16 * blocks.len();
        if len < DIRECT {
            return self.send(Block::slice_as_bytes(blocks));
        }
        let written = self.start_frame(Block::slice_as_bytes(blocks))?;
        if written < HEADER + len {
            let n = blocks.len();
            let mut spare = self.shared.blocks.take(n).unwrap_or_default();
            spare.resize(n, Block::ZERO);
            self.queue_rest(Payload::Blocks(core::mem::replace(blocks, spare)), written)?;
        }
        self.stats.on_send(len);
        Ok(())
    }

    /// As [`TcpChannel::send_blocks`](Channel::send_blocks) for block
    /// pairs: a large chunk the socket does not take at once goes to the
    /// writer thread as it is, and `pairs` gets a spent pair chunk back.
    fn send_pairs(&mut self, pairs: &mut Vec<[Block; 2]>) -> Result<(), ChannelError> {
        let len = 32 * pairs.len();
        if len < DIRECT || cfg!(target_endian = "big") {
            return self.send(&crate::transport::wire::block_bytes(pairs));
        }
        let written = self.start_frame(bytemuck::cast_slice(pairs))?;
        if written < HEADER + len {
            let n = pairs.len();
            let mut spare = self.shared.pairs.take(n).unwrap_or_default();
            spare.resize(n, [Block::ZERO; 2]);
            self.queue_rest(Payload::Pairs(core::mem::replace(pairs, spare)), written)?;
        }
        self.stats.on_send(len);
        Ok(())
    }

    fn frame_buffer(&mut self, capacity: usize) -> Vec<u8> {
        self.shared
            .pool
            .take(capacity)
            .unwrap_or_else(|| Vec::with_capacity(capacity))
    }

    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        // `buf` is not cleared up front: `recv_frame` resizes it to the
        // frame, reusing its initialised bytes; on failure it ends empty.
        let res = self.recv_frame(buf, max_len);
        if res.is_err() {
            buf.clear();
        }
        res
    }

    fn recv_into_slice(&mut self, out: &mut [u8]) -> Result<usize, ChannelError> {
        self.recv_slice(out)
    }

    fn stats(&self) -> ChannelStats {
        self.stats.get()
    }

    /// Waits until every queued frame is written to the socket (draining
    /// incoming data meanwhile). Not needed for delivery: the writer thread
    /// sends queued frames on its own.
    fn flush(&mut self) -> Result<(), ChannelError> {
        self.wait_writer(|in_flight| in_flight == 0)
    }

    /// A frame with [`notice::NOTICE_BIT`] in its header, after the frames
    /// already queued; not counted in the traffic statistics.
    fn send_notice(&mut self, notice: &AbortNotice) -> Result<(), ChannelError> {
        let bytes = notice.encode();
        let header = notice::notice_header(bytes.len());
        let written = self.start_frame_with(header, &bytes)?;
        if written < HEADER + bytes.len() {
            self.queue_rest_with(header, Payload::Bytes(bytes), written)?;
        }
        Ok(())
    }

    fn expect_next_frame(&mut self, len: Option<usize>) {
        self.expected = len;
    }
}

impl Drop for TcpChannel {
    fn drop(&mut self) {
        // Closing the queue makes the writer exit after the queued frames.
        drop(self.tx.take());
        // The writer finishes its queue and exits; give it the time-out,
        // then unblock it by shutting the socket down.
        // After a send already waited out its time-out, waiting again would
        // only double the time a failed session takes to end.
        let patience = if self.writer_stuck {
            Duration::ZERO
        } else {
            self.timeout
        };
        let st = self.shared.lock();
        let (st, _) = match self
            .shared
            .cv
            .wait_timeout_while(st, patience, |st| !st.done)
        {
            Ok(r) => r,
            Err(p) => p.into_inner(),
        };
        let done = st.done;
        drop(st);
        if !done {
            let _ = self.stream.shutdown(Shutdown::Both);
        }
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Creates a connected pair of [`TcpChannel`]s over the loopback interface
/// (binds `127.0.0.1:0`, connects, accepts), for tests and benchmarks.
pub fn local_pair_tcp() -> io::Result<(TcpChannel, TcpChannel)> {
    let listener = TcpListener::bind(("127.0.0.1", 0))?;
    let addr = listener.local_addr()?;
    let client = TcpStream::connect(addr)?;
    let (server, _) = listener.accept()?;
    Ok((
        TcpChannel::from_stream(server)?,
        TcpChannel::from_stream(client)?,
    ))
}
