//! Socket set-up shared by the TCP and TLS meshes: dialling a peer that
//! may not be listening yet, and accepting the next connection before a
//! deadline.

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::thread;
use std::time::{Duration, Instant};

/// Pause between attempts to reach a peer that is not listening yet.
const RETRY: Duration = Duration::from_millis(10);
/// Pause between polls of a non-blocking listener.
pub(super) const ACCEPT_POLL: Duration = Duration::from_millis(1);

/// Connects to `addr`, retrying while the peer is starting up (refused,
/// reset, timed-out connects) until `deadline`; the last error otherwise.
pub(super) fn connect_retrying(addr: SocketAddr, deadline: Instant) -> io::Result<TcpStream> {
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match TcpStream::connect_timeout(&addr, left.max(RETRY)) {
            Ok(stream) => return Ok(stream),
            Err(e) if Instant::now() + RETRY < deadline && retryable(e.kind()) => {
                thread::sleep(RETRY)
            }
            Err(e) => return Err(e),
        }
    }
}

/// Whether a failed connect may succeed later (the peer is starting up).
fn retryable(kind: io::ErrorKind) -> bool {
    matches!(
        kind,
        io::ErrorKind::ConnectionRefused
            | io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::TimedOut
            | io::ErrorKind::Interrupted
    )
}

/// Waits for the next connection on a non-blocking `listener` and returns
/// it in blocking mode; `None` once `deadline` has passed.
pub(super) fn accept_before(
    listener: &TcpListener,
    deadline: Instant,
) -> io::Result<Option<(TcpStream, SocketAddr)>> {
    loop {
        match listener.accept() {
            Ok((stream, addr)) => {
                stream.set_nonblocking(false)?;
                return Ok(Some((stream, addr)));
            }
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::WouldBlock | io::ErrorKind::Interrupted
                ) =>
            {
                if Instant::now() >= deadline {
                    return Ok(None);
                }
                thread::sleep(ACCEPT_POLL);
            }
            Err(e) => return Err(e),
        }
    }
}

/// The next connection on a non-blocking `listener` if one is waiting
/// (in blocking mode), else `None` at once.
#[cfg(feature = "tls")]
pub(super) fn accept_now(listener: &TcpListener) -> io::Result<Option<(TcpStream, SocketAddr)>> {
    loop {
        match listener.accept() {
            Ok((stream, addr)) => {
                stream.set_nonblocking(false)?;
                return Ok(Some((stream, addr)));
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) if e.kind() == io::ErrorKind::WouldBlock => return Ok(None),
            Err(e) => return Err(e),
        }
    }
}
