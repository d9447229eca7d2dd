//! `otp run` for n-party protocols (`role P[n]`): party `--party I` of
//! `--peers a,b,c` joins the TCP mesh (listening on its own address,
//! dialling the lower indices) or, with `--cert`, `--key` and `--peer-ca`
//! (feature `tls`), the TLS mesh whose certificates name `party-<i>`,
//! runs the protocol, then sends every peer a
//! SHA-256 of its output and checks theirs: the shipped n-party protocols
//! give every party the same output. The session id is derived from the
//! protocol and the peer list, so all parties agree on it.

use crate::run::Opts;
use crate::Fail;
use ot::runtime::mesh::{ChannelMesh, Mesh, MeshChannel, TcpMesh};
use ot::runtime::rng::Rng;
use ot::runtime::Block;
use ot::{coin_flip_n, sum_n};
use sha2::{Digest, Sha256};
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

/// The n-party protocols `otp run` knows.
const PROTOCOLS: &str = "coin_flip_n, sum_n";

/// Runs one party.
pub fn run(o: &Opts) -> Result<(), Fail> {
    if !matches!(o.protocol.as_str(), "coin_flip_n" | "sum_n") {
        return Err(Fail(format!(
            "`{}` is not an n-party protocol; n-party: {PROTOCOLS}",
            o.protocol
        )));
    }
    let me = o
        .party
        .ok_or_else(|| Fail("give --party I with --peers".into()))?;
    if o.peers.len() < 2 || me >= o.peers.len() {
        return Err(Fail(format!(
            "--party {me} --peers: need at least 2 addresses and an index below their number ({})",
            o.peers.len()
        )));
    }
    let addrs: Vec<SocketAddr> = o
        .peers
        .iter()
        .map(|p| {
            p.to_socket_addrs()
                .ok()
                .and_then(|mut a| a.next())
                .ok_or_else(|| Fail(format!("cannot resolve peer address `{p}`")))
        })
        .collect::<Result<_, _>>()?;
    let mut h = Sha256::new();
    h.update(b"otp run mesh v1");
    h.update(o.protocol.as_bytes());
    for p in &o.peers {
        h.update((p.len() as u64).to_le_bytes());
        h.update(p.as_bytes());
    }
    let session: [u8; 16] = h.finalize()[..16].try_into().unwrap_or_default();
    let timeout = Duration::from_secs(o.timeout.max(1));
    if o.cert.is_some() || o.key.is_some() || o.peer_ca.is_some() {
        let mesh = tls::connect(o, me, &addrs, timeout)?;
        return run_on(o, session, mesh);
    }
    let mesh = TcpMesh::connect(me, &addrs, timeout).map_err(|e| Fail(format!("mesh: {e}")))?;
    run_on(o, session, mesh)
}

/// Runs the protocol on an established mesh, prints the output and checks
/// it against every peer's.
fn run_on<C: MeshChannel>(
    o: &Opts,
    session: [u8; 16],
    mut mesh: ChannelMesh<C>,
) -> Result<(), Fail> {
    let (me, n) = (mesh.me(), mesh.parties());
    let start = Instant::now();
    let (shown, output): (String, Vec<u8>) = match o.protocol.as_str() {
        "coin_flip_n" => {
            let params = coin_flip_n::Params::new(n).map_err(|e| Fail(e.to_string()))?;
            let out = coin_flip_n::P::new(
                me,
                params,
                session,
                coin_flip_n::PInput {},
                Rng::from_entropy(),
            )
            .and_then(|p| p.run(&mut mesh))
            .map_err(|e| Fail(e.to_string()))?;
            let bytes = Block::slice_as_bytes(&[out.coin]).to_vec();
            (format!("coin = {}", hex(&bytes)), bytes)
        }
        _ => {
            let x = o
                .input
                .ok_or_else(|| Fail("sum_n needs this party's --input".into()))?;
            let params = sum_n::Params::new(n).map_err(|e| Fail(e.to_string()))?;
            let out = sum_n::P::new(
                me,
                params,
                session,
                sum_n::PInput { x },
                Rng::from_entropy(),
            )
            .and_then(|p| p.run(&mut mesh))
            .map_err(|e| Fail(e.to_string()))?;
            (format!("sum = {}", out.sum), out.sum.to_le_bytes().to_vec())
        }
    };
    let secs = start.elapsed().as_secs_f64();
    let sent: u64 = (0..n).map(|j| mesh.stats(j).bytes_sent).sum();
    println!(
        "{} party {me} of {n}: {shown} in {secs:.3} s; sent {sent} bytes",
        o.protocol
    );
    let digest = Sha256::digest(&output);
    for j in (0..n).filter(|&j| j != me) {
        mesh.send_to(j, &digest)
            .map_err(|e| Fail(format!("output check: {e}")))?;
    }
    let mut buf = vec![];
    let mut differ = vec![];
    for j in (0..n).filter(|&j| j != me) {
        mesh.recv_from(j, &mut buf, 32)
            .map_err(|e| Fail(format!("output check: {e}")))?;
        if buf.as_slice() != digest.as_slice() {
            differ.push(j.to_string());
        }
    }
    // Wait for every peer to hang up before the process exits: closing the
    // sockets at exit with frames unread would reset the links and could
    // cost a slower peer our digest.
    mesh.close();
    if differ.is_empty() {
        println!(
            "outputs agree with all {} peer{}",
            n - 1,
            crate::check::plural(n - 1)
        );
        Ok(())
    } else {
        Err(Fail(format!(
            "outputs DISAGREE with part{} {}",
            if differ.len() == 1 { "y" } else { "ies" },
            differ.join(", ")
        )))
    }
}

#[cfg(feature = "tls")]
mod tls {
    //! The n-party mesh over mutually authenticated TLS 1.3.

    use crate::run::Opts;
    use crate::Fail;
    use ot::runtime::mesh::TlsMesh;
    use std::net::SocketAddr;
    use std::time::Duration;

    /// Joins the TLS mesh as party `me`: our certificate must name
    /// `party-<me>`, every peer's `party-<j>`, all from `--peer-ca`.
    pub fn connect(
        o: &Opts,
        me: usize,
        addrs: &[SocketAddr],
        timeout: Duration,
    ) -> Result<TlsMesh, Fail> {
        if o.peer_name.is_some() {
            return Err(Fail(
                "--peer-name is for two parties; in the mesh, party j's certificate must name `party-<j>`".into(),
            ));
        }
        let (id, trust) = crate::run::tls::keys(o)?;
        TlsMesh::connect(me, addrs, &id, &trust, timeout)
            .map_err(|e| Fail(format!("TLS mesh: {e}")))
    }
}

#[cfg(not(feature = "tls"))]
mod tls {
    //! Without feature `tls`: asking for the TLS mesh is an error.

    use crate::run::Opts;
    use crate::Fail;
    use ot::runtime::mesh::TcpMesh;
    use std::net::SocketAddr;
    use std::time::Duration;

    pub fn connect(_: &Opts, _: usize, _: &[SocketAddr], _: Duration) -> Result<TcpMesh, Fail> {
        Err(Fail(
            "this otp was built without TLS: build with `--features tls`".into(),
        ))
    }
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}
