//! The TCP channel's framing fed by a hostile peer: the peer writes
//! arbitrary bytes (headers announcing any length, truncated frames) on a
//! real loopback connection and hangs up. The receiver must return frames no
//! longer than its bound, then a typed error (closed, truncated, oversized),
//! never panic or buffer more than the bound. A header with the notice bit
//! set is an abort notice: it ends the stream as `PeerAborted` (well formed)
//! or `BadNotice` (malformed). The first input byte picks the
//! receive bound (up to 64 KiB), the rest is the byte stream.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ot::runtime::transport::channel::{Channel, ChannelError, TcpChannel};
use std::io::Write;
use std::net::{TcpListener, TcpStream};
use std::sync::OnceLock;
use std::time::Duration;

/// One listener for the whole fuzzing run.
fn listener() -> &'static TcpListener {
    static LISTENER: OnceLock<TcpListener> = OnceLock::new();
    LISTENER.get_or_init(|| TcpListener::bind("127.0.0.1:0").expect("bind loopback"))
}

fuzz_target!(|data: &[u8]| {
    let [bound, stream @ ..] = data else {
        return;
    };
    let max_len = 1usize << (bound % 17);
    let addr = listener().local_addr().expect("listener address");
    let mut peer = TcpStream::connect(addr).expect("connect loopback");
    let (ours, _) = listener().accept().expect("accept loopback");
    peer.write_all(stream)
        .expect("the peer's bytes fit the socket buffers");
    drop(peer);
    let mut ch = TcpChannel::from_stream(ours)
        .expect("channel from a connected stream")
        .with_timeout(Duration::from_secs(5));
    let mut buf = Vec::new();
    let mut consumed = 0usize;
    loop {
        match ch.recv_into(&mut buf, max_len) {
            Ok(()) => {
                assert!(buf.len() <= max_len, "frame longer than the bound");
                consumed += 8 + buf.len();
                assert!(consumed <= stream.len(), "more frames than bytes sent");
            }
            Err(ChannelError::Closed)
            | Err(ChannelError::Truncated { .. })
            | Err(ChannelError::Oversized { .. })
            | Err(ChannelError::PeerAborted(_))
            | Err(ChannelError::BadNotice { .. }) => break,
            Err(e) => panic!("unexpected error from a closed peer: {e}"),
        }
    }
});
