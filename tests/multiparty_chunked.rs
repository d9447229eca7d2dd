//! Chunked rounds in n-party protocols (`chunked(by = k)` on a round of
//! every party): a broadcast and a private round of `[u64; m]` arrays sent
//! as frames of `k` elements, over the in-memory and the TCP mesh. The
//! frame count must match the chunking, the outputs must be right, and a
//! chunk frame of the wrong length is a typed error naming the round and
//! the peer.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, tamper_party, MemoryMesh, Mesh};

const SESSION: [u8; 16] = *b"chunked-n-party!";

mod chunked {
    ot::protocol! {
        protocol ChunkedVectors(role P[n]) {
            about {
                family = "MPC";
                security = "semi-honest";
                proof = "test protocol";
                summary = "Element-wise sums of every party's vector (a chunked broadcast) and of the vectors each party sends each other party (a chunked private round).";
            }
            param n: usize requires n >= 2;
            param m: usize requires m >= 1;
            input P[i] { x: [u64; m], y: [[u64; m]; n] }
            output P[i] { total: [u64; m], got: [u64; m] }

            round share: P[i] -> all : Vector { x: [u64; m] } chunked(by = 100)
            round deal: P[i] -> P[j] : Private { y: [u64; m] } chunked(by = 64)
            at P[i] {
                total = [sum_u64([x[j][k] for j in 0..n]) for k in 0..m];
                got = [sum_u64([y[j][k] for j in 0..n]) for k in 0..m];
            }
        }
    }
}

/// Party `i`'s vector: `x[k] = 1000 i + k`; what it sends party `j`:
/// `y[j][k] = 10 i + j + k`.
fn input(i: usize, n: usize, m: usize) -> chunked::PInput {
    chunked::PInput {
        x: (0..m).map(|k| (1000 * i + k) as u64).collect(),
        y: (0..n)
            .map(|j| (0..m).map(|k| (10 * i + j + k) as u64).collect())
            .collect(),
    }
}

fn party<M: Mesh + ?Sized>(mesh: &mut M, m: usize) -> Result<chunked::POutput, chunked::Error> {
    let n = mesh.parties();
    let params = chunked::Params::new(n, m)?;
    let i = mesh.me();
    chunked::P::new(i, params, SESSION, input(i, n, m), Rng::from_entropy())?.run(mesh)
}

fn assert_right(n: usize, m: usize, outs: Vec<Result<chunked::POutput, chunked::Error>>) {
    for (me, o) in outs.into_iter().enumerate() {
        let o = o.expect("party");
        let total: Vec<u64> = (0..m)
            .map(|k| (0..n).map(|i| (1000 * i + k) as u64).sum())
            .collect();
        let got: Vec<u64> = (0..m)
            .map(|k| (0..n).map(|i| (10 * i + me + k) as u64).sum())
            .collect();
        assert_eq!(o.total, total, "party {me}, n = {n}, m = {m}");
        assert_eq!(o.got, got, "party {me}, n = {n}, m = {m}");
    }
}

#[test]
fn chunked_rounds_over_the_memory_and_tcp_meshes() {
    for (n, m) in [(2usize, 1usize), (3, 1000), (3, 1050), (4, 64)] {
        assert_right(n, m, run_parties(MemoryMesh::new(n), |mesh| party(mesh, m)));
        let tcp = local_tcp_mesh(n).expect("tcp mesh");
        assert_right(n, m, run_parties(tcp, |mesh| party(mesh, m)));
    }
}

/// Every chunk is its own frame: per peer, the hello, `ceil(m / 100)`
/// frames of the broadcast, the broadcast check's digests, and
/// `ceil(m / 64)` frames of the private round; the payload is unchanged.
#[test]
fn every_chunk_is_one_frame() {
    let (n, m) = (3usize, 1050usize);
    let stats = run_parties(MemoryMesh::new(n), |mesh| {
        party(mesh, m).expect("party");
        mesh.stats((mesh.me() + 1) % n)
    });
    let frames = 1 + m.div_ceil(100) + 1 + m.div_ceil(64);
    for s in stats {
        assert_eq!(s.messages_sent as usize, frames, "{s:?}");
        assert_eq!(s.messages_received as usize, frames, "{s:?}");
    }
}

/// A chunk frame one byte short is `Error::Length` from that peer, in the
/// round it belongs to, at every party that reads it.
#[test]
fn a_short_chunk_is_a_typed_error_naming_the_round() {
    let (n, m) = (3usize, 1000usize);
    // Frame 0 to each peer is the hello; frames 1.. are the broadcast's chunks.
    let meshes = tamper_party(MemoryMesh::new(n), 1, |_, k, frame: &mut Vec<u8>| {
        if k == 3 {
            frame.pop();
        }
    });
    let outs = run_parties(meshes, |mesh| party(mesh, m));
    for (me, o) in outs.iter().enumerate().filter(|(me, _)| *me != 1) {
        match o {
            Err(chunked::Error::FromPeer {
                round: "share",
                peer: 1,
                source,
            }) => assert!(
                matches!(
                    **source,
                    chunked::Error::Length {
                        round: "share",
                        expected: 800,
                        got: 799
                    }
                ),
                "{source:?}"
            ),
            other => panic!("party {me}: {other:?}"),
        }
    }
}

/// The checker refuses what a chunked n-party round cannot carry.
#[test]
fn chunked_n_party_rounds_that_cannot_be_are_refused() {
    let base = "protocol X(role P[n]) {\n    param n: usize requires n >= 2;\n    input P[i] { x: u64 }\n    output P[i] { y: [u64; n] }\n    ROUND\n    at P[i] { y = x; }\n}\n";
    let cases = [
        (
            "round r: P[i] -> all : M { x: u64 } chunked(by = 8)",
            "a chunked n-party round carries one array",
        ),
        (
            "round r: P[0] -> all : M { x: u64 } chunked(by = 8)",
            "only a round of every party",
        ),
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (round, want) in cases {
        let text = base.replace("ROUND", round);
        match ot_compiler::compile_str("x.otp", &text, root) {
            Ok(_) => panic!("compiled:\n{text}"),
            Err(f) => {
                let r = f.render();
                assert!(r.contains(want), "{r}");
                assert!(r.contains("x.otp:5:"), "{r}");
            }
        }
    }
}
