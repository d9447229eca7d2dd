//! `otp run`: one party of a shipped random-OT protocol across machines.
//!
//! Either side listens (`--listen ADDR`) or connects (`--connect ADDR`,
//! retried until `--timeout` while the peer is not up yet), over plain TCP
//! (for trusted networks and benchmarks) or, built with feature `tls`,
//! over TLS 1.3 with mutual certificate authentication (`--cert`, `--key`,
//! `--peer-ca`). The parties first exchange a hello (this command's version,
//! protocol, number of OTs and role) and refuse a peer that differs. After
//! the run the receiver sends its choice bits and a SHA-256 of its outputs;
//! the sender hashes its messages selected by those bits and both report
//! whether the hashes agree. This reveals the (random, discarded) choice
//! bits: `otp run` tests a deployment, its outputs are not for use.

use crate::bench::{entry, ots_count};
use crate::Fail;
use clap::ValueEnum;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{Channel, TcpChannel};
use ot::runtime::{Bits, Block};
use sha2::{Digest, Sha256};
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// The two roles of an OT.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Role {
    /// Holds the message pairs.
    Sender,
    /// Holds the choice bits and learns one message of each pair.
    Receiver,
}

/// What `otp run` was asked.
#[derive(clap::Args)]
pub struct Opts {
    /// Protocol: co15, np00, mr19, iknp, kos, softspoken, softspoken_malicious;
    /// n-party: coin_flip_n, sum_n, beaver_dealer, orlandi_triple, minimac_aes.
    pub protocol: String,
    /// This side's role (two-party protocols).
    #[arg(long, value_enum)]
    pub role: Option<Role>,
    /// n-party protocols (coin_flip_n, sum_n, beaver_dealer, orlandi_triple,
    /// minimac_aes): this party's index into --peers.
    #[arg(long, value_name = "I")]
    pub party: Option<usize>,
    /// beaver_dealer: run the trusted dealer instead of a party; its address
    /// is the last of --peers.
    #[arg(long)]
    pub dealer: bool,
    /// n-party protocols: every party's address, in index order (ours is
    /// where we listen), e.g. a:7000,b:7000,c:7000.
    #[arg(long, value_delimiter = ',', value_name = "ADDRS")]
    pub peers: Vec<String>,
    /// sum_n: this party's input x; beaver_dealer: this party's additive
    /// shares x,y of the two factors (u64, mod 2^64); minimac_aes, party 0
    /// only: the plaintext blocks (32 hex digits each).
    #[arg(long, value_delimiter = ',', value_name = "VALUES")]
    pub input: Vec<String>,
    /// minimac_aes, party 0: read the plaintext blocks from this file
    /// instead of --input (32 hex digits each, separated by white space or
    /// commas; for batches too long for a command line).
    #[arg(long, value_name = "FILE")]
    pub input_file: Option<PathBuf>,
    /// minimac_aes: this party's preprocessing file (from `otp deal
    /// minimac_aes`).
    #[arg(long, value_name = "FILE")]
    pub prep: Option<PathBuf>,
    /// minimac_aes: this party's XOR share of the AES-128 key (32 hex digits).
    #[arg(long, value_name = "HEX")]
    pub key_share: Option<String>,
    /// minimac_aes: the number of blocks party 0 encrypts (required at the
    /// other parties; at party 0 the number of --input blocks).
    #[arg(long, value_name = "B")]
    pub blocks: Option<usize>,
    /// minimac_aes: skip the check after the run (which reveals the key
    /// shares, the plaintexts and the ciphertexts to every party).
    #[arg(long)]
    pub no_check: bool,
    /// orlandi_triple: how many multiplication triples to make (its s and d
    /// are derived for 40-bit statistical security; larger batches cost
    /// less per triple).
    #[arg(long, default_value_t = 4, value_name = "M")]
    pub triples: usize,
    /// orlandi_triple: this party's Paillier key size (1024, 2048 or 3072).
    #[arg(long, default_value_t = 2048, value_name = "BITS")]
    pub key_bits: u32,
    /// Wait for the peer on this address (e.g. 0.0.0.0:7000).
    #[arg(long, value_name = "ADDR")]
    pub listen: Option<String>,
    /// Connect to the peer at this address (retried until --timeout).
    #[arg(long, value_name = "ADDR")]
    pub connect: Option<String>,
    /// Number of OTs (both sides must agree).
    #[arg(long, default_value = "2^20")]
    pub ots: String,
    /// Worker threads for the bulk kernels.
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Seconds to wait for the peer and for each message.
    #[arg(long, default_value_t = 30)]
    pub timeout: u64,
    /// TLS: this party's certificate chain (PEM).
    #[arg(long, value_name = "PEM")]
    pub cert: Option<PathBuf>,
    /// TLS: this party's private key (PEM).
    #[arg(long, value_name = "PEM")]
    pub key: Option<PathBuf>,
    /// TLS: the CA certificate the peer's certificate must chain to (PEM).
    #[arg(long, value_name = "PEM")]
    pub peer_ca: Option<PathBuf>,
    /// TLS, connecting side: the name the listener's certificate must
    /// carry (default: the host part of --connect).
    #[arg(long, value_name = "NAME")]
    #[cfg_attr(not(feature = "tls"), allow(dead_code))]
    pub peer_name: Option<String>,
}

/// The hello: this command's wire version, protocol, OTs and role.
const HELLO: &[u8] = b"otp run v1";

/// Runs `otp run`.
pub fn run(o: &Opts) -> Result<(), Fail> {
    if o.party.is_some() || o.dealer || !o.peers.is_empty() {
        return crate::run_mesh::run(o);
    }
    let e = entry(&o.protocol)?;
    let role = o.role.ok_or_else(|| {
        Fail(
            "give --role sender|receiver (or --party I --peers ADDRS for an n-party protocol)"
                .into(),
        )
    })?;
    let n = ots_count(&o.ots)?;
    if o.threads == 0 {
        return Err(Fail("--threads must be at least 1".into()));
    }
    let timeout = Duration::from_secs(o.timeout.max(1));
    let mut ch = connect(o, timeout)?;
    let hello = |role: Role| {
        let mut h = HELLO.to_vec();
        h.push(0);
        h.extend_from_slice(e.name.as_bytes());
        h.push(0);
        h.extend_from_slice(&(n as u64).to_le_bytes());
        h.push(role as u8);
        h
    };
    let peer_role = match role {
        Role::Sender => Role::Receiver,
        Role::Receiver => Role::Sender,
    };
    ch.send(&hello(role))
        .map_err(|err| Fail(format!("hello: {err}")))?;
    let got = ch.recv(256).map_err(|err| Fail(format!("hello: {err}")))?;
    if got != hello(peer_role) {
        return Err(Fail(format!(
            "the peer runs something else: it sent {}; this side runs `{}` as {:?} with {n} OTs",
            describe_hello(&got),
            e.name,
            role
        )));
    }
    let (mut sender, mut receiver) = (e.parties)(o.threads);
    let start = Instant::now();
    let verdict = match role {
        Role::Sender => {
            let y = sender
                .send_random(&mut *ch, n)
                .map_err(|err| Fail(format!("{}: {err}", e.name)))?;
            let secs = start.elapsed().as_secs_f64();
            report(e.name, "sender", n, secs, &*ch);
            let msg = ch
                .recv(n.div_ceil(8) + 32)
                .map_err(|err| Fail(format!("check: {err}")))?;
            let (bits, digest) = msg.split_at(msg.len().saturating_sub(32));
            let choices = Bits::from_bytes(bits, n).map_err(|err| Fail(format!("check: {err}")))?;
            let chosen: Vec<Block> = (0..n).map(|i| y[i][usize::from(choices.get(i))]).collect();
            let ok = Sha256::digest(Block::slice_as_bytes(&chosen)).as_slice() == digest;
            ch.send(&[u8::from(ok)])
                .map_err(|err| Fail(format!("check: {err}")))?;
            ok
        }
        Role::Receiver => {
            let choices = Bits::random(&mut Rng::from_entropy(), n);
            let x = receiver
                .receive_random(&mut *ch, &choices)
                .map_err(|err| Fail(format!("{}: {err}", e.name)))?;
            let secs = start.elapsed().as_secs_f64();
            report(e.name, "receiver", n, secs, &*ch);
            let mut msg = choices.as_bytes().to_vec();
            msg.extend_from_slice(&Sha256::digest(Block::slice_as_bytes(&x)));
            ch.send(&msg).map_err(|err| Fail(format!("check: {err}")))?;
            let v = ch.recv(1).map_err(|err| Fail(format!("check: {err}")))?;
            v == [1]
        }
    };
    if verdict {
        println!("outputs agree: SHA-256 of the receiver's outputs matches the sender's messages at its choices");
        Ok(())
    } else {
        Err(Fail(
            "outputs DISAGREE: the receiver's outputs do not match the sender's messages".into(),
        ))
    }
}

fn describe_hello(got: &[u8]) -> String {
    let parts: Vec<&[u8]> = got.splitn(3, |b| *b == 0).collect();
    match parts.as_slice() {
        [v, name, rest] if rest.len() == 9 && *v == HELLO => {
            let n = u64::from_le_bytes(rest[..8].try_into().unwrap_or_default());
            let role = if rest[8] == Role::Sender as u8 {
                "Sender"
            } else {
                "Receiver"
            };
            format!("`{}` as {role} with {n} OTs", String::from_utf8_lossy(name))
        }
        [v, ..] => format!("a hello of `{}`", String::from_utf8_lossy(v)),
        _ => "something else".into(),
    }
}

fn report(name: &str, role: &str, n: usize, secs: f64, ch: &dyn Channel) {
    let s = ch.stats();
    println!(
        "{name} {role}: {n} OTs in {secs:.3} s ({:.0} OT/s); sent {} bytes, received {} bytes ({:.2} bytes/OT)",
        n as f64 / secs.max(1e-9),
        s.bytes_sent,
        s.bytes_received,
        (s.bytes_sent + s.bytes_received) as f64 / n as f64
    );
}

/// The channel to the peer: listen or connect, over TCP or TLS.
fn connect(o: &Opts, timeout: Duration) -> Result<Box<dyn Channel + Send>, Fail> {
    let tls = o.cert.is_some() || o.key.is_some() || o.peer_ca.is_some();
    match (&o.listen, &o.connect) {
        (Some(addr), None) => {
            let l = TcpListener::bind(addr)
                .map_err(|err| Fail(format!("cannot listen on `{addr}`: {err}")))?;
            if let Ok(a) = l.local_addr() {
                eprintln!("listening on {a}");
            }
            if tls {
                return tls::accept(o, &l, timeout);
            }
            let ch = TcpChannel::accept(&l, timeout)
                .map_err(|err| Fail(format!("no peer on `{addr}`: {err}")))?;
            Ok(Box::new(ch))
        }
        (None, Some(addr)) => {
            let deadline = Instant::now() + timeout;
            loop {
                let r = if tls {
                    tls::connect(o, addr, timeout)
                } else {
                    TcpChannel::connect(addr.as_str(), timeout)
                        .map(|c| Box::new(c) as Box<dyn Channel + Send>)
                        .map_err(|err| (err.kind(), format!("cannot connect to `{addr}`: {err}")))
                };
                match r {
                    Ok(ch) => return Ok(ch),
                    // The peer may not be listening yet: retry until the time-out.
                    Err((ErrorKind::ConnectionRefused, _)) if Instant::now() < deadline => {
                        std::thread::sleep(Duration::from_millis(100))
                    }
                    Err((_, msg)) => return Err(Fail(msg)),
                }
            }
        }
        _ => Err(Fail(
            "give exactly one of --listen ADDR and --connect ADDR".into(),
        )),
    }
}

#[cfg(feature = "tls")]
pub mod tls {
    //! TLS 1.3 channels with mutual certificate authentication.

    use super::Opts;
    use crate::Fail;
    use ot::files::{TlsIdentityFile, TlsTrustFile};
    use ot::runtime::transport::channel::{
        Channel, TlsChannel, TlsIdentity, TlsSetupError, TlsTrust,
    };
    use std::io::ErrorKind;
    use std::net::TcpListener;
    use std::time::Duration;

    /// This party's identity and the CA it trusts, from `--cert`, `--key`
    /// and `--peer-ca`.
    pub fn keys(o: &Opts) -> Result<(TlsIdentity, TlsTrust), Fail> {
        let (Some(cert), Some(key), Some(ca)) = (&o.cert, &o.key, &o.peer_ca) else {
            return Err(Fail("TLS needs all of --cert, --key and --peer-ca".into()));
        };
        let id = TlsIdentity::from_pem_files(cert, key)
            .map_err(|e| Fail(format!("bad certificate or key: {e}")))?;
        let trust = TlsTrust::from_pem_file(ca).map_err(|e| Fail(format!("bad --peer-ca: {e}")))?;
        Ok((id, trust))
    }

    /// Accepts one TLS connection.
    pub fn accept(
        o: &Opts,
        l: &TcpListener,
        timeout: Duration,
    ) -> Result<Box<dyn Channel + Send>, Fail> {
        let (id, trust) = keys(o)?;
        let ch =
            TlsChannel::accept(l, &id, &trust, timeout).map_err(|e| Fail(format!("TLS: {e}")))?;
        Ok(Box::new(ch))
    }

    /// Connects over TLS; the error's kind says whether to retry.
    pub fn connect(
        o: &Opts,
        addr: &str,
        timeout: Duration,
    ) -> Result<Box<dyn Channel + Send>, (ErrorKind, String)> {
        let (id, trust) = keys(o).map_err(|f| (ErrorKind::InvalidInput, f.0))?;
        let host = addr.rsplit_once(':').map(|(h, _)| h).unwrap_or(addr);
        let name = o.peer_name.as_deref().unwrap_or(host);
        match TlsChannel::connect(addr, name, &id, &trust, timeout) {
            Ok(ch) => Ok(Box::new(ch)),
            Err(TlsSetupError::Io(e)) => {
                Err((e.kind(), format!("cannot connect to `{addr}`: {e}")))
            }
            Err(e) => Err((ErrorKind::Other, format!("TLS: {e}"))),
        }
    }
}

#[cfg(not(feature = "tls"))]
mod tls {
    //! Without feature `tls`: asking for TLS is an error.

    use super::Opts;
    use crate::Fail;
    use ot::runtime::transport::channel::Channel;
    use std::io::ErrorKind;
    use std::net::TcpListener;
    use std::time::Duration;

    const NO_TLS: &str = "this otp was built without TLS: build with `--features tls`";

    /// Refuses.
    pub fn accept(_: &Opts, _: &TcpListener, _: Duration) -> Result<Box<dyn Channel + Send>, Fail> {
        Err(Fail(NO_TLS.into()))
    }

    /// Refuses.
    pub fn connect(
        _: &Opts,
        _: &str,
        _: Duration,
    ) -> Result<Box<dyn Channel + Send>, (ErrorKind, String)> {
        Err((ErrorKind::Unsupported, NO_TLS.into()))
    }
}
