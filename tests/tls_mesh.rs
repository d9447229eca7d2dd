//! n-party protocols (`coin_flip_n`, `sum_n`) over the TLS mesh (feature
//! `tls`): each link TLS 1.3 with certificates naming the party indices.
#![cfg(feature = "tls")]

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tls_mesh, run_parties, Mesh};
use ot::{coin_flip_n, sum_n};

mod common;

const SESSION: [u8; 16] = [0x24; 16];

fn input_of(i: usize) -> u64 {
    (i as u64 + 3).wrapping_mul(0x9e37_79b9_7f4a_7c15)
}

#[test]
fn coin_flip_and_sum_over_tls() {
    for n in [3, 5] {
        let coins = run_parties(local_tls_mesh(n).expect("tls mesh"), |m| {
            let params = coin_flip_n::Params::new(m.parties())?;
            coin_flip_n::P::new(
                m.me(),
                params,
                SESSION,
                coin_flip_n::PInput {},
                Rng::from_entropy(),
            )?
            .run(m)
        });
        let coins: Vec<_> = coins
            .into_iter()
            .map(|o| o.expect("coin flip").coin)
            .collect();
        assert!(coins.windows(2).all(|w| w[0] == w[1]), "{coins:?}");

        let sums = run_parties(local_tls_mesh(n).expect("tls mesh"), |m| {
            let params = sum_n::Params::new(m.parties())?;
            let input = sum_n::PInput {
                x: input_of(m.me()),
            };
            sum_n::P::new(m.me(), params, SESSION, input, Rng::from_entropy())?.run(m)
        });
        let want = (0..n).fold(0u64, |a, i| a.wrapping_add(input_of(i)));
        for s in sums {
            assert_eq!(s.expect("sum").sum, want);
        }
    }
}

/// An abort notice crosses a TLS link after the frames sent before it, and
/// a peer waiting on an aborting party of a real run names the culprit.
#[test]
fn abort_notices_cross_tls_links() {
    use ot::runtime::transport::mesh::TamperMesh;
    common::notice_follows_last_frame(local_tls_mesh(2).expect("tls mesh"));

    // Party 2 garbles its commitment to party 0 only: party 1 learns of it
    // from party 0's notice.
    let meshes: Vec<Box<dyn Mesh + Send>> = local_tls_mesh(3)
        .expect("tls mesh")
        .into_iter()
        .map(|m| -> Box<dyn Mesh + Send> {
            if m.me() != 2 {
                return Box::new(m);
            }
            Box::new(TamperMesh::new(m, |to, k, f: &mut Vec<u8>| {
                if to == 0 && k == 1 {
                    f.push(0);
                }
            }))
        })
        .collect();
    let outs = run_parties(meshes, |m| {
        let params = coin_flip_n::Params::new(m.parties())?;
        let input = coin_flip_n::PInput {};
        coin_flip_n::P::new(m.me(), params, SESSION, input, Rng::from_entropy())?.run(&mut **m)
    });
    for (i, o) in outs.iter().enumerate().take(2) {
        let e = o.as_ref().unwrap_err();
        assert_eq!(e.blamed(), Some(2), "party {i}: {e:?}");
    }
    assert_eq!(outs[1].as_ref().unwrap_err().reported_by(), Some(0));
}
