//! Three-party multiplication with replicated secret sharing
//! (`protocols/rss_mul.otp`, Araki–Furukawa–Lindell–Nof–Ohara 2016): from
//! additive shares of `x` and `y`, every party opens `x·y` (wrapping), over
//! the in-memory and the TCP mesh; the shares each party receives are
//! masked; other party counts are refused.

use ot::rss_mul;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, MemoryMesh, Mesh};

const SESSION: [u8; 16] = *b"rss-mul-session!";

/// Additive shares of `v` for three parties (the first two fixed masks).
fn shares(v: u64, seed: u64) -> [u64; 3] {
    let a = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    let b = a.rotate_left(17) ^ 0xdead_beef;
    [a, b, v.wrapping_sub(a).wrapping_sub(b)]
}

fn party<M: Mesh + ?Sized>(mesh: &mut M, x: u64, y: u64) -> Result<u64, rss_mul::Error> {
    let i = mesh.me();
    let params = rss_mul::Params::new(mesh.parties())?;
    let input = rss_mul::PInput {
        x: shares(x, 1)[i],
        y: shares(y, 2)[i],
    };
    Ok(
        rss_mul::P::new(i, params, SESSION, input, Rng::from_entropy())?
            .run(mesh)?
            .z,
    )
}

#[test]
fn three_parties_open_the_product_over_memory_and_tcp() {
    for (x, y) in [(6u64, 7u64), (u64::MAX, 3), (1 << 40, 1 << 30), (0, 12345)] {
        let want = x.wrapping_mul(y);
        for z in run_parties(MemoryMesh::new(3), |m| party(m, x, y)) {
            assert_eq!(z.expect("party"), want, "{x} * {y}");
        }
        let tcp = local_tcp_mesh(3).expect("tcp mesh");
        for z in run_parties(tcp, |m| party(m, x, y)) {
            assert_eq!(z.expect("party"), want, "{x} * {y} over TCP");
        }
    }
}

/// Two runs on the same inputs: the product share party 0 sends in the
/// resharing differs between runs (it is masked by a fresh share of zero
/// from the parties' new keys), while the opened product is the same.
/// Without the zero share, `z_0` would be a function of the fixed input
/// shares alone and repeat.
#[test]
fn reshared_products_are_masked_by_fresh_zero_shares() {
    use std::sync::{Arc, Mutex};
    let run = || {
        let sent = Arc::new(Mutex::new(vec![]));
        let log = sent.clone();
        let meshes = ot::runtime::transport::mesh::tamper_party(
            MemoryMesh::new(3),
            0,
            move |to, k, frame: &mut Vec<u8>| {
                // Frame 2 to party 2 (the previous party): the resharing.
                if to == 2 && k == 2 {
                    log.lock().expect("lock").push(frame.clone());
                }
            },
        );
        let outs = run_parties(meshes, |m| party(&mut **m, 6, 7).expect("party"));
        let frame = sent.lock().expect("lock").pop().expect("the reshare frame");
        (outs, frame)
    };
    let (a, fa) = run();
    let (b, fb) = run();
    assert_eq!((a, b), (vec![42; 3], vec![42; 3]));
    assert_eq!(fa.len(), 8);
    assert_ne!(fa, fb, "z_0 repeats across runs: it is not masked");
}

#[test]
fn other_party_counts_are_refused() {
    assert!(rss_mul::Params::new(3).is_ok());
    for n in [2usize, 4, 5] {
        assert!(rss_mul::Params::new(n).is_err(), "n = {n}");
    }
}
