//! Rounds to a neighbour on the ring of parties (`P[i] -> P[(i + c) % n]`
//! and `P[i] -> P[(i + n - c) % n]`): every party sends one message and
//! receives one, from the party `c` places before (after) it. Over the
//! in-memory and the TCP mesh, with the located errors for indices that are
//! not rotations of the parties.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, MemoryMesh, Mesh};

const SESSION: [u8; 16] = *b"ring-of-parties!";

mod ring {
    ot::protocol! {
        protocol RingPass(role P[n]) {
            about {
                family = "MPC";
                security = "semi-honest";
                proof = "test protocol";
                summary = "Every party passes a value to its neighbours on the ring, one and two places on, and one place back.";
            }
            param n: usize requires n >= 3;
            input P[i] { x: u64 }
            output P[i] { left: u64, right: u64, two_left: u64 }
            at P[i] { a = x; b = x + 1000; c = x + 2000; }
            round next: P[i] -> P[(i + 1) % n] : Next { a: u64 }
            round back: P[i] -> P[(i + n - 1) % n] : Back { b: u64 }
            round skip: P[i] -> P[(i + 2) % n] : Skip { c: u64 }
            at P[i] { left = a; right = b; two_left = c; }
        }
    }
}

fn party<M: Mesh + ?Sized>(mesh: &mut M) -> Result<ring::POutput, ring::Error> {
    let n = mesh.parties();
    let i = mesh.me();
    let params = ring::Params::new(n)?;
    let input = ring::PInput { x: 10 * i as u64 };
    ring::P::new(i, params, SESSION, input, Rng::from_entropy())?.run(mesh)
}

fn assert_ring(n: usize, outs: Vec<Result<ring::POutput, ring::Error>>) {
    let x = |i: usize| 10 * (i % n) as u64;
    for (i, o) in outs.into_iter().enumerate() {
        let o = o.expect("party");
        assert_eq!(o.left, x(i + n - 1), "party {i} of {n}");
        assert_eq!(o.right, x(i + 1) + 1000, "party {i} of {n}");
        assert_eq!(o.two_left, x(i + n - 2) + 2000, "party {i} of {n}");
    }
}

#[test]
fn values_move_around_the_ring_over_memory_and_tcp() {
    for n in [3usize, 4, 7] {
        assert_ring(n, run_parties(MemoryMesh::new(n), party));
        assert_ring(n, run_parties(local_tcp_mesh(n).expect("tcp mesh"), party));
    }
}

/// One frame per ring round and peer: a party sends to two neighbours
/// (next and skip go ahead, back goes behind), so its link to the party
/// after it carries the hello and one frame.
#[test]
fn a_ring_round_sends_one_message_per_party() {
    let n = 5;
    let stats = run_parties(MemoryMesh::new(n), |m| {
        party(m).expect("party");
        (0..n).map(|p| m.stats(p).messages_sent).collect::<Vec<_>>()
    });
    for (i, s) in stats.iter().enumerate() {
        let sent: u64 = s.iter().sum();
        // The hello to each of n - 1 peers, then 3 ring messages.
        assert_eq!(sent, (n - 1) as u64 + 3, "party {i}: {s:?}");
    }
    let comm = ring::comm(&ring::Params::new(n).expect("params"));
    assert_eq!(comm.per_party, 3 * 8, "{comm:?}");
}

#[test]
fn indices_that_are_not_rotations_are_refused() {
    let base = "protocol X(role P[n]) {\n    param n: usize requires n >= 3;\n    input P[i] { x: u64 }\n    output P[i] { y: u64 }\n    ROUND\n    at P[i] { y = x; }\n}\n";
    let cases = [
        (
            "round r: P[i] -> P[(i + 3) % n] : M { x: u64 }",
            "is the sender itself when n divides 3",
        ),
        (
            "round r: P[i] -> P[(2 * i) % n] : M { x: u64 }",
            "is a permutation of the parties only for some numbers of parties",
        ),
        (
            "round r: P[i] -> P[(i * i) % n] : M { x: u64 }",
            "is not a rotation of the parties",
        ),
        (
            "round r: P[i] -> P[(i + 1) % 4] : M { x: u64 }",
            "a ring index is taken modulo the number of parties",
        ),
        ("round r: P[i] -> P[i + 1] : M { x: u64 }", "P[(i + 1) % n]"),
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (round, want) in cases {
        let text = base.replace("ROUND", round);
        match ot_compiler::compile_str("x.otp", &text, root) {
            Ok(_) => panic!("compiled:\n{text}"),
            Err(f) => {
                let r = f.render();
                assert!(r.contains(want) && r.contains("x.otp:5:"), "{r}");
            }
        }
    }
}

mod pairs {
    ot::protocol! {
        protocol PairSwap(role P[n]) {
            about {
                family = "MPC";
                security = "semi-honest";
                proof = "test protocol";
                summary = "Four parties swap values in pairs through an affine map of the party index.";
            }
            param n: usize requires n == 4;
            input P[i] { x: u64 }
            output P[i] { got: u64 }
            at P[i] { a = x; }
            round swap: P[i] -> P[(3 * i + 1) % n] : Swap { a: u64 }
            at P[i] { got = a; }
        }
    }
}

/// With the party count fixed (`requires n == 4`), `P[(3 * i + 1) % n]`
/// is accepted: 3 is prime to 4 and no party is its own image, so the
/// parties swap in pairs (0 <-> 1, 2 <-> 3); each receives from the
/// inverse map, `3 * (j - 1) mod 4`. Over memory and TCP.
#[test]
fn an_affine_map_of_a_fixed_party_count_runs() {
    let party = |mesh: &mut dyn Mesh| -> Result<pairs::POutput, pairs::Error> {
        let i = mesh.me();
        let params = pairs::Params::new(mesh.parties())?;
        let input = pairs::PInput { x: 100 + i as u64 };
        pairs::P::new(i, params, SESSION, input, Rng::from_entropy())?.run(mesh)
    };
    let want = [101, 100, 103, 102];
    for outs in [
        run_parties(MemoryMesh::new(4), |m| party(m)),
        run_parties(local_tcp_mesh(4).expect("tcp mesh"), |m| party(m)),
    ] {
        let got: Vec<u64> = outs.into_iter().map(|o| o.expect("party").got).collect();
        assert_eq!(got, want);
    }
    assert!(pairs::Params::new(5).is_err(), "the count is fixed");
}

/// The affine maps that are not permutations without fixed points, or
/// whose party count is not fixed, are located errors saying why.
#[test]
fn affine_maps_that_are_not_derangements_are_refused() {
    let base = "protocol X(role P[n]) {\n    param n: usize requires COUNT;\n    input P[i] { x: u64 }\n    output P[i] { y: u64 }\n    ROUND\n    at P[i] { y = x; }\n}\n";
    let cases = [
        ("n == 4", "P[(2 * i + 1) % n]", "2 and 4 share a factor"),
        ("n == 4", "P[(3 * i) % n]", "makes `P[0]` send to itself"),
        (
            "n == 5",
            "P[(2 * i + 1) % n]",
            "makes `P[4]` send to itself",
        ),
        ("n >= 3", "P[(3 * i + 1) % n]", "fix the number of parties"),
    ];
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    for (count, to, want) in cases {
        let text = base
            .replace("COUNT", count)
            .replace("ROUND", &format!("round r: P[i] -> {to} : M {{ x: u64 }}"));
        match ot_compiler::compile_str("x.otp", &text, root) {
            Ok(_) => panic!("compiled:\n{text}"),
            Err(f) => {
                let r = f.render();
                assert!(r.contains(want) && r.contains("x.otp:5:"), "{r}");
            }
        }
    }
}
