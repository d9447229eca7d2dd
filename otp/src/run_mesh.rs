//! `otp run` for n-party protocols (`role P[n]`, and a dealer next to
//! them): party `--party I` of `--peers a,b,c` (or the dealer, `--dealer`,
//! whose address is the last of `--peers`) joins the TCP mesh (listening on
//! its own address, dialling the lower indices) or, with `--cert`, `--key`
//! and `--peer-ca` (feature `tls`), the TLS mesh whose certificates name
//! `party-<i>` (the dealer's names `party-<n>`), runs the protocol, then
//! checks the result with the other parties:
//!
//! * `coin_flip_n`, `sum_n`: every party has the same output; each sends
//!   every other party a SHA-256 of it and checks theirs.
//! * `beaver_dealer`: the parties exchange their input shares and output
//!   shares and check that the outputs add up to the product of the
//!   inputs' sums (this reveals the inputs: a deployment test).
//! * `orlandi_triple`: the parties open the triples they made with
//!   `orlandi_open` (whose openings are checked against the commitments)
//!   and check `c = a·b` for each (this spends the triples).
//! * `minimac_aes` ([`minimac`]): unless `--no-check`, the parties exchange
//!   their key shares, party 0 sends the others its plaintexts and
//!   ciphertexts, and every party checks them against AES-128 under the
//!   combined key (this reveals the key: a deployment test).
//!
//! The session id is derived from the protocol and the peer list, so all
//! parties agree on it.

use crate::run::Opts;
use crate::Fail;
use ot::runtime::orlandi::level::DEFAULT_SEC;
use ot::runtime::orlandi::paillier::KeySize;
use ot::runtime::orlandi::prep::TripleKey;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{ChannelMesh, Mesh, MeshChannel, TcpMesh};
use ot::runtime::Block;
use ot::{beaver_dealer, coin_flip_n, orlandi_open, orlandi_triple, sum_n};
use sha2::{Digest, Sha256};
use std::net::{SocketAddr, ToSocketAddrs};
use std::time::{Duration, Instant};

mod minimac;

/// The n-party protocols `otp run` can feed inputs to (each has its own
/// inputs and outputs below); whether one has a dealer is the registry's
/// (`ot::registry`).
const RUNNABLE: &[&str] = &[
    "coin_flip_n",
    "sum_n",
    "beaver_dealer",
    "orlandi_triple",
    "minimac_aes",
];

/// The endpoint this process runs, resolved from the options.
struct Endpoint {
    /// Index in the mesh (the dealer's is the number of parties).
    me: usize,
    /// Number of parties, the dealer not counted.
    parties: usize,
    /// Whether this endpoint is the dealer.
    dealer: bool,
}

/// Checks the protocol name, `--party`/`--dealer` and `--peers`.
fn endpoint(o: &Opts) -> Result<Endpoint, Fail> {
    let about = ot::registry::find(&o.protocol).filter(|_| RUNNABLE.contains(&o.protocol.as_str()));
    let with_dealer = match about.map(|a| a.parties) {
        Some(ot::registry::Parties::Many { dealer }) => dealer,
        _ => {
            return Err(Fail(format!(
                "`{}` is not an n-party protocol; n-party: {}",
                o.protocol,
                RUNNABLE.join(", ")
            )))
        }
    };
    if o.dealer && !with_dealer {
        return Err(Fail(format!(
            "`{}` has no dealer; --dealer is for beaver_dealer",
            o.protocol
        )));
    }
    let endpoints = o.peers.len();
    let parties = endpoints.saturating_sub(usize::from(with_dealer));
    if o.dealer {
        if o.party.is_some() {
            return Err(Fail("give either --party I or --dealer, not both".into()));
        }
        if parties < 2 {
            return Err(Fail(format!(
                "--dealer --peers: need at least 2 party addresses and the dealer's last ({endpoints} given)"
            )));
        }
        return Ok(Endpoint {
            me: parties,
            parties,
            dealer: true,
        });
    }
    let me = o.party.ok_or_else(|| {
        Fail(if with_dealer {
            "give --party I (or --dealer) with --peers".into()
        } else {
            "give --party I with --peers".into()
        })
    })?;
    if parties < 2 || me >= parties {
        return Err(Fail(if with_dealer {
            format!("--party {me} --peers: need at least 2 party addresses, then the dealer's, and an index below the number of parties ({parties})")
        } else {
            format!("--party {me} --peers: need at least 2 addresses and an index below their number ({endpoints})")
        }));
    }
    Ok(Endpoint {
        me,
        parties,
        dealer: false,
    })
}

/// Checks the protocol's own options before anything connects.
fn options(o: &Opts, at: &Endpoint) -> Result<(), Fail> {
    let inputs = o.input.len();
    if o.protocol != "minimac_aes" {
        numbers(o)?;
    }
    match o.protocol.as_str() {
        "sum_n" if inputs != 1 => Err(Fail("sum_n needs this party's --input X".into())),
        "beaver_dealer" if !at.dealer && inputs != 2 => Err(Fail(
            "beaver_dealer needs this party's shares of both factors: --input X,Y".into(),
        )),
        "orlandi_triple" => {
            key_size(o.key_bits)?;
            orlandi_triple::params_at_level(at.parties, o.triples, DEFAULT_SEC)
                .map(drop)
                .map_err(|e| Fail(format!("--triples {}: {e}", o.triples)))
        }
        "beaver_dealer" if at.dealer && inputs != 0 => {
            Err(Fail("the dealer of beaver_dealer takes no --input".into()))
        }
        "coin_flip_n" if inputs != 0 => Err(Fail("coin_flip_n takes no --input".into())),
        _ => Ok(()),
    }
}

/// The `--input` values as u64s (sum_n, beaver_dealer).
fn numbers(o: &Opts) -> Result<Vec<u64>, Fail> {
    o.input
        .iter()
        .map(|v| {
            v.parse()
                .map_err(|_| Fail(format!("bad --input `{v}`: a u64 expected")))
        })
        .collect()
}

/// The Paillier key size `--key-bits` names.
fn key_size(bits: u32) -> Result<KeySize, Fail> {
    // 1024-bit keys are too small for two packed slots and run unpacked.
    match bits {
        1024 => Ok(KeySize::Bits1024),
        2048 => Ok(KeySize::Bits2048),
        3072 => Ok(KeySize::Bits3072),
        b => Err(Fail(format!(
            "--key-bits {b}: the preprocessing's Paillier key sizes are 1024, 2048 and 3072"
        ))),
    }
}

/// Runs one party (or the dealer).
pub fn run(o: &Opts) -> Result<(), Fail> {
    let at = endpoint(o)?;
    options(o, &at)?;
    let prepared = minimac::prepare(o, &at)?;
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
        let mesh = tls::connect(o, at.me, &addrs, timeout)?;
        return run_on(o, &at, session, mesh, prepared);
    }
    let mesh = TcpMesh::connect(at.me, &addrs, timeout).map_err(|e| Fail(format!("mesh: {e}")))?;
    run_on(o, &at, session, mesh, prepared)
}

/// What a party ends with: a line to print and the bytes every party must
/// agree on (`None`: no comparison, as after `minimac_aes --no-check`).
struct Outcome {
    shown: String,
    agreed: Option<Vec<u8>>,
}

/// Runs the protocol on an established mesh, prints the result and checks
/// it against every other party's.
fn run_on<C: MeshChannel>(
    o: &Opts,
    at: &Endpoint,
    session: [u8; 16],
    mut mesh: ChannelMesh<C>,
    prepared: Option<minimac::Prepared>,
) -> Result<(), Fail> {
    let start = Instant::now();
    let outcome = match (o.protocol.as_str(), prepared) {
        (_, Some(p)) => match minimac::run(o, at, session, &mut mesh, p) {
            Ok(outcome) => outcome,
            Err(e) => {
                // Hang up gracefully, so the peers read our last frames
                // (our hello, when it is what they refuse) before the reset.
                mesh.close();
                return Err(e);
            }
        },
        ("coin_flip_n", None) => coin(at, session, &mut mesh)?,
        ("sum_n", None) => sum(o, at, session, &mut mesh)?,
        ("beaver_dealer", None) if at.dealer => {
            deal(at, session, &mut mesh)?;
            let secs = start.elapsed().as_secs_f64();
            println!(
                "beaver_dealer dealer of {} parties: dealt in {secs:.3} s; sent {} bytes",
                at.parties,
                sent(&mesh)
            );
            mesh.close();
            return Ok(());
        }
        ("beaver_dealer", None) => beaver(o, at, session, &mut mesh)?,
        _ => triples(o, at, session, &mut mesh, start)?,
    };
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{} party {} of {}: {} in {secs:.3} s; sent {} bytes",
        o.protocol,
        at.me,
        at.parties,
        outcome.shown,
        sent(&mesh)
    );
    let Some(agreed) = outcome.agreed else {
        mesh.close();
        return Ok(());
    };
    let differ = compare(at, &mut mesh, &agreed)?;
    // Wait for every peer to hang up before the process exits: closing the
    // sockets at exit with frames unread would reset the links and could
    // cost a slower peer our digest.
    mesh.close();
    if differ.is_empty() {
        println!(
            "outputs agree with all {} peer{}",
            at.parties - 1,
            crate::check::plural(at.parties - 1)
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

/// Bytes this endpoint sent over the whole mesh.
fn sent<C: MeshChannel>(mesh: &ChannelMesh<C>) -> u64 {
    (0..mesh.parties()).map(|j| mesh.stats(j).bytes_sent).sum()
}

/// The other parties (never the dealer).
fn others(at: &Endpoint) -> impl Iterator<Item = usize> + '_ {
    (0..at.parties).filter(move |&j| j != at.me)
}

/// Sends `bytes` to every other party and returns what each sent, in
/// party order (ours left out).
fn exchange<C: MeshChannel>(
    at: &Endpoint,
    mesh: &mut ChannelMesh<C>,
    bytes: &[u8],
    what: &str,
) -> Result<Vec<(usize, Vec<u8>)>, Fail> {
    for j in others(at) {
        mesh.send_to(j, bytes)
            .map_err(|e| Fail(format!("{what}: {e}")))?;
    }
    let mut got = vec![];
    for j in others(at) {
        let mut buf = vec![];
        mesh.recv_from(j, &mut buf, bytes.len())
            .map_err(|e| Fail(format!("{what}: {e}")))?;
        if buf.len() != bytes.len() {
            return Err(Fail(format!(
                "{what}: party {j} sent {} bytes, expected {}",
                buf.len(),
                bytes.len()
            )));
        }
        got.push((j, buf));
    }
    Ok(got)
}

/// Compares a SHA-256 of `agreed` with every other party's: the parties
/// whose digest differs.
fn compare<C: MeshChannel>(
    at: &Endpoint,
    mesh: &mut ChannelMesh<C>,
    agreed: &[u8],
) -> Result<Vec<String>, Fail> {
    let digest = Sha256::digest(agreed);
    Ok(exchange(at, mesh, &digest, "output check")?
        .into_iter()
        .filter(|(_, d)| d.as_slice() != digest.as_slice())
        .map(|(j, _)| j.to_string())
        .collect())
}

fn coin<C: MeshChannel>(
    at: &Endpoint,
    session: [u8; 16],
    mesh: &mut ChannelMesh<C>,
) -> Result<Outcome, Fail> {
    let params = coin_flip_n::Params::new(at.parties).map_err(|e| Fail(e.to_string()))?;
    let out = coin_flip_n::P::new(
        at.me,
        params,
        session,
        coin_flip_n::PInput {},
        Rng::from_entropy(),
    )
    .and_then(|p| p.run(mesh))
    .map_err(|e| Fail(e.to_string()))?;
    let bytes = Block::slice_as_bytes(&[out.coin]).to_vec();
    Ok(Outcome {
        shown: format!("coin = {}", hex(&bytes)),
        agreed: Some(bytes),
    })
}

fn sum<C: MeshChannel>(
    o: &Opts,
    at: &Endpoint,
    session: [u8; 16],
    mesh: &mut ChannelMesh<C>,
) -> Result<Outcome, Fail> {
    let [x] = numbers(o)?[..] else {
        return Err(Fail("sum_n needs this party's --input X".into()));
    };
    let params = sum_n::Params::new(at.parties).map_err(|e| Fail(e.to_string()))?;
    let out = sum_n::P::new(
        at.me,
        params,
        session,
        sum_n::PInput { x },
        Rng::from_entropy(),
    )
    .and_then(|p| p.run(mesh))
    .map_err(|e| Fail(e.to_string()))?;
    Ok(Outcome {
        shown: format!("sum = {}", out.sum),
        agreed: Some(out.sum.to_le_bytes().to_vec()),
    })
}

/// The dealer of `beaver_dealer`: deals one triple.
fn deal<C: MeshChannel>(
    at: &Endpoint,
    session: [u8; 16],
    mesh: &mut ChannelMesh<C>,
) -> Result<(), Fail> {
    let params = beaver_dealer::Params::new(at.parties).map_err(|e| Fail(e.to_string()))?;
    beaver_dealer::Dealer::new(params, session, Default::default(), Rng::from_entropy())
        .and_then(|d| d.run(mesh))
        .map(drop)
        .map_err(|e| Fail(e.to_string()))
}

/// A party of `beaver_dealer`; afterwards the parties reveal their input
/// and output shares to each other and check `Σz = (Σx)(Σy)` mod 2^64.
fn beaver<C: MeshChannel>(
    o: &Opts,
    at: &Endpoint,
    session: [u8; 16],
    mesh: &mut ChannelMesh<C>,
) -> Result<Outcome, Fail> {
    let [x, y] = numbers(o)?[..] else {
        return Err(Fail(
            "beaver_dealer needs this party's shares of both factors: --input X,Y".into(),
        ));
    };
    let params = beaver_dealer::Params::new(at.parties).map_err(|e| Fail(e.to_string()))?;
    let out = beaver_dealer::P::new(
        at.me,
        params,
        session,
        beaver_dealer::PInput { x, y },
        Rng::from_entropy(),
    )
    .and_then(|p| p.run(mesh))
    .map_err(|e| Fail(e.to_string()))?;
    let mine: Vec<u8> = [x, y, out.z].iter().flat_map(|v| v.to_le_bytes()).collect();
    let (mut sx, mut sy, mut sz) = (x, y, out.z);
    for (_, b) in exchange(at, mesh, &mine, "product check")? {
        let word = |k: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&b[8 * k..8 * k + 8]);
            u64::from_le_bytes(w)
        };
        sx = sx.wrapping_add(word(0));
        sy = sy.wrapping_add(word(1));
        sz = sz.wrapping_add(word(2));
    }
    if sz != sx.wrapping_mul(sy) {
        return Err(Fail(format!(
            "the output shares add up to {sz}, not x·y = {sx}·{sy} mod 2^64"
        )));
    }
    Ok(Outcome {
        shown: format!("x·y = {sz} (x = {sx}, y = {sy}, checked)"),
        agreed: Some(sz.to_le_bytes().to_vec()),
    })
}

/// `orlandi_triple` with this party's fresh Paillier key, then
/// `orlandi_open` of every triple and the check `c = a·b`.
fn triples<C: MeshChannel>(
    o: &Opts,
    at: &Endpoint,
    session: [u8; 16],
    mesh: &mut ChannelMesh<C>,
    start: Instant,
) -> Result<Outcome, Fail> {
    let size = key_size(o.key_bits)?;
    let m = o.triples;
    let params = orlandi_triple::params_at_level(at.parties, m, DEFAULT_SEC)
        .map_err(|e| Fail(e.to_string()))?;
    let (s, d) = (params.s(), params.d());
    let mut rng = Rng::from_entropy();
    let sk = TripleKey::generate_sized(size, &mut rng);
    let keygen = start.elapsed().as_secs_f64();
    let made = Instant::now();
    let t = orlandi_triple::P::new(at.me, params, session, orlandi_triple::PInput { sk }, rng)
        .and_then(|p| p.run(mesh))
        .map_err(|e| Fail(e.to_string()))?;
    let secs = made.elapsed().as_secs_f64();
    let abc =
        t.a.concat(&t.b)
            .and_then(|v| v.concat(&t.c))
            .map_err(|e| Fail(format!("triples: {e}")))?;
    let mut open_session = session;
    open_session[0] ^= 0x5a;
    let params =
        orlandi_open::Params::new(at.parties, abc.len()).map_err(|e| Fail(e.to_string()))?;
    let values = orlandi_open::P::new(
        at.me,
        params,
        open_session,
        orlandi_open::PInput { v: abc },
        Rng::from_entropy(),
    )
    .and_then(|p| p.run(mesh))
    .map_err(|e| Fail(format!("opening the triples: {e}")))?
    .values;
    let (a, rest) = values.split_at(m);
    let (b, c) = rest.split_at(m);
    if let Some(k) = (0..m).find(|&k| c[k] != a[k] * b[k]) {
        return Err(Fail(format!("triple {k} opened with c != a·b")));
    }
    let agreed: Vec<u8> = values.iter().flat_map(|v| v.to_bytes()).collect();
    Ok(Outcome {
        shown: format!(
            "{m} triples opened, c = a·b for all (made in {secs:.3} s: {:.1} triples/s at s = {s}, d = {d} for {DEFAULT_SEC}-bit statistical security; {}-bit key made in {keygen:.1} s)",
            m as f64 / secs,
            o.key_bits
        ),
        agreed: Some(agreed),
    })
}

#[cfg(feature = "tls")]
mod tls {
    //! The n-party mesh over mutually authenticated TLS 1.3.

    use crate::run::Opts;
    use crate::Fail;
    use ot::runtime::transport::mesh::TlsMesh;
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
    use ot::runtime::transport::mesh::TcpMesh;
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

#[cfg(test)]
mod registry_tests {
    use super::RUNNABLE;
    use ot::registry::Parties;

    #[test]
    fn every_runnable_protocol_is_an_n_party_protocol_of_the_registry() {
        for name in RUNNABLE {
            let about =
                ot::registry::find(name).unwrap_or_else(|| panic!("`{name}` is not registered"));
            assert!(
                matches!(about.parties, Parties::Many { .. }),
                "`{name}` is not n-party"
            );
        }
        let beaver = ot::registry::find("beaver_dealer").map(|a| a.parties);
        assert_eq!(beaver, Some(Parties::Many { dealer: true }));
    }
}
