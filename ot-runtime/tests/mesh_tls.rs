//! `TlsMesh`: n parties over mutually authenticated TLS 1.3 links; peers
//! with a certificate from another CA or for another index are refused
//! with typed errors naming them.
#![cfg(feature = "tls")]

use std::time::Duration;

use ot_runtime::transport::channel::{TestPki, TlsIdentity, TlsTrust};
use ot_runtime::transport::mesh::{
    local_tls_mesh, local_tls_mesh_with, party_name, run_parties, Mesh, MeshError, TlsMeshError,
};

/// One all-to-all round of indices, read in arrival order.
fn round(mesh: &mut impl Mesh) -> Result<usize, MeshError> {
    let (me, n) = (mesh.me(), mesh.parties());
    let mut left: Vec<usize> = (0..n).filter(|&j| j != me).collect();
    for &j in &left {
        mesh.send_to(j, &[me as u8])?;
    }
    let mut sum = me;
    let mut buf = Vec::new();
    while !left.is_empty() {
        let from = mesh.recv_any(&left, &mut buf, 1)?;
        left.retain(|&j| j != from);
        sum += buf[0] as usize;
    }
    Ok(sum)
}

#[test]
fn all_to_all_rounds_over_tls() {
    for n in [3, 5] {
        let meshes = local_tls_mesh(n).expect("tls mesh");
        for s in run_parties(meshes, |m| (0..3).map(|_| round(m)).collect::<Vec<_>>()) {
            for r in s {
                assert_eq!(r.unwrap(), n * (n - 1) / 2);
            }
        }
    }
}

#[derive(Clone, Copy)]
enum Bad {
    OtherCa,
    OtherIndex,
}

/// A 3-party mesh where party `bad` presents a bad certificate.
fn with_bad_party(
    bad: usize,
    how: Bad,
) -> Vec<Result<ot_runtime::transport::mesh::TlsMesh, TlsMeshError>> {
    let names: Vec<String> = (0..3).map(party_name).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let pki = TestPki::generate(&names).unwrap();
    let other = TestPki::generate(&names).unwrap();
    let trust: TlsTrust = pki.trust().unwrap();
    let parties = (0..3)
        .map(|i| {
            let id: TlsIdentity = match how {
                Bad::OtherCa if i == bad => other.identity(i).unwrap(),
                Bad::OtherIndex if i == bad => pki.identity((i + 1) % 3).unwrap(),
                _ => pki.identity(i).unwrap(),
            };
            (id, trust.clone())
        })
        .collect();
    local_tls_mesh_with(parties, Duration::from_secs(5))
}

fn assert_refused(
    res: &Result<ot_runtime::transport::mesh::TlsMesh, TlsMeshError>,
    bad: usize,
    how: Bad,
) {
    match (res, how) {
        (Err(TlsMeshError::UntrustedCertificate { peer, .. }), Bad::OtherCa)
        | (Err(TlsMeshError::WrongIdentity { peer, .. }), Bad::OtherIndex) => {
            assert_eq!(*peer, bad)
        }
        (other, _) => panic!(
            "expected a refusal of party {bad}, got {:?}",
            other.as_ref().err()
        ),
    }
}

fn listeners_refused(res: &[Result<ot_runtime::transport::mesh::TlsMesh, TlsMeshError>], how: Bad) {
    let refused = |r: &Result<_, TlsMeshError>| match (r, how) {
        (Err(TlsMeshError::UntrustedCertificate { peer, .. }), Bad::OtherCa)
        | (Err(TlsMeshError::WrongIdentity { peer, .. }), Bad::OtherIndex) => *peer == 0,
        _ => false,
    };
    assert!(
        refused(&res[1]) || refused(&res[2]),
        "{:?}",
        [&res[1], &res[2]].map(|r| r.as_ref().err())
    );
    for r in &res[1..] {
        assert_eq!(r.as_ref().err().and_then(TlsMeshError::peer), Some(0));
    }
}

#[test]
fn listener_with_certificate_from_another_ca_is_refused() {
    let res = with_bad_party(0, Bad::OtherCa);
    // The first dialler to reach party 0 refuses it; party 0 then gives
    // up, so the other may see its connection reset instead.
    listeners_refused(&res, Bad::OtherCa);
}

#[test]
fn dialler_with_certificate_from_another_ca_is_refused() {
    let res = with_bad_party(2, Bad::OtherCa);
    assert_refused(&res[0], 2, Bad::OtherCa);
}

#[test]
fn listener_with_another_partys_certificate_is_refused() {
    let res = with_bad_party(0, Bad::OtherIndex);
    // The first dialler to reach party 0 refuses it; party 0 then gives
    // up, so the other may see its connection reset instead.
    listeners_refused(&res, Bad::OtherIndex);
}

#[test]
fn dialler_with_another_partys_certificate_is_refused() {
    let res = with_bad_party(2, Bad::OtherIndex);
    assert_refused(&res[0], 2, Bad::OtherIndex);
}

/// A client that reaches party 0's port first, sends a valid-looking index
/// claim and then trickles a TLS record does not hold the real parties:
/// each accepted connection has its own handshake thread and deadline, so
/// the mesh is up long before the trickler's handshake would time out.
#[test]
fn trickling_client_does_not_block_the_mesh() {
    use std::io::Write;
    use std::net::{TcpListener, TcpStream};
    use std::thread;
    use std::time::Instant;
    let names: Vec<String> = (0..3).map(party_name).collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let pki = TestPki::generate(&names).unwrap();
    let listeners: Vec<TcpListener> = (0..3)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addrs: Vec<_> = listeners.iter().map(|l| l.local_addr().unwrap()).collect();
    // Queued first on party 0's listener: a claim of index 2, then a
    // record header and one byte per 100 ms.
    let mut trickler = TcpStream::connect(addrs[0]).unwrap();
    let mut claim = b"OTPTLSM1".to_vec();
    claim.extend_from_slice(&2u32.to_le_bytes());
    claim.extend_from_slice(&3u32.to_le_bytes());
    trickler.write_all(&claim).unwrap();
    trickler.write_all(&[0x16, 0x03, 0x01, 0x40, 0x00]).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let stop2 = std::sync::Arc::clone(&stop);
    let t = thread::spawn(move || {
        while !stop2.load(std::sync::atomic::Ordering::Relaxed) && trickler.write_all(&[1]).is_ok()
        {
            thread::sleep(Duration::from_millis(100));
        }
    });
    let timeout = Duration::from_secs(20);
    let start = Instant::now();
    let addrs = &addrs;
    let pki = &pki;
    let meshes: Vec<_> = thread::scope(|s| {
        let handles: Vec<_> = listeners
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                s.spawn(move || {
                    let (id, trust) = (pki.identity(i).unwrap(), pki.trust().unwrap());
                    ot_runtime::transport::mesh::TlsMesh::connect_with_listener(
                        i, l, addrs, &id, &trust, timeout,
                    )
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let took = start.elapsed();
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let meshes: Vec<_> = meshes
        .into_iter()
        .map(|m| m.unwrap_or_else(|e| panic!("set-up failed: {e}")))
        .collect();
    assert!(took < timeout / 2, "the set-up took {took:?}");
    for sum in run_parties(meshes, round) {
        assert_eq!(sum.unwrap(), 3);
    }
    t.join().unwrap();
}
