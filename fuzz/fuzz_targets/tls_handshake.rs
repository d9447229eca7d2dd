//! The TLS listener fed by a hostile client before any authentication:
//! the client writes arbitrary bytes (record headers announcing any length,
//! truncated or garbage handshake messages) on a real loopback connection
//! and stops writing. `TlsChannel::accept` must refuse it with a typed error
//! (no fuzzer input is a mutually authenticated TLS 1.3 handshake under a
//! CA it never saw) within its handshake deadline, never panic or hang.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ot::runtime::transport::channel::{TestPki, TlsChannel, TlsIdentity, TlsTrust};
use std::io::Write;
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Handshake time-out of the listener under test.
const TIMEOUT: Duration = Duration::from_millis(300);

/// One listener and one PKI for the whole fuzzing run.
fn setup() -> &'static (TcpListener, TlsIdentity, TlsTrust) {
    static SETUP: OnceLock<(TcpListener, TlsIdentity, TlsTrust)> = OnceLock::new();
    SETUP.get_or_init(|| {
        let pki = TestPki::generate(&["party-a"]).expect("test PKI");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let id = pki.identity(0).expect("identity");
        (listener, id, pki.trust().expect("trust"))
    })
}

fuzz_target!(|data: &[u8]| {
    let (listener, id, trust) = setup();
    let addr = listener.local_addr().expect("listener address");
    let mut client = TcpStream::connect(addr).expect("connect loopback");
    // The input fits the socket buffers (at most 16 KiB): written whole
    // before the listener reads.
    let _ = client.write_all(data);
    let _ = client.shutdown(Shutdown::Write);
    let start = Instant::now();
    let res = TlsChannel::accept(listener, id, trust, TIMEOUT);
    assert!(res.is_err(), "a fuzzed client completed the handshake");
    assert!(
        start.elapsed() < TIMEOUT + Duration::from_secs(2),
        "refused only after {:?}",
        start.elapsed()
    );
    drop(client);
});
