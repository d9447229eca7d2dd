//! Latency of one all-to-all round over the party meshes: a measurement,
//! not a test (ignored by default; it asserts nothing about time). Run with
//! `cargo test --release -p ot-runtime --test mesh_speed -- --ignored --nocapture`.

use std::time::Instant;

use ot_runtime::transport::mesh::{local_tcp_mesh, run_parties, MemoryMesh, Mesh};

const ITERS: usize = 2000;
const FRAME: usize = 32;

/// Best and median time (µs) of one all-to-all round of `FRAME`-byte
/// frames, as seen by party 0; read with `recv_any` or in index order.
fn round_latency<M: Mesh + Send>(meshes: Vec<M>, any: bool) -> (f64, f64) {
    let times = run_parties(meshes, |m| {
        let (me, n) = (m.me(), m.parties());
        let others: Vec<usize> = (0..n).filter(|&j| j != me).collect();
        let mut buf = Vec::new();
        let mut t = Vec::with_capacity(ITERS);
        for _ in 0..ITERS {
            let start = Instant::now();
            for &j in &others {
                m.send_to(j, &[me as u8; FRAME]).unwrap();
            }
            if any {
                let mut left = others.clone();
                while !left.is_empty() {
                    let p = m.recv_any(&left, &mut buf, FRAME).unwrap();
                    left.retain(|&j| j != p);
                }
            } else {
                for &j in &others {
                    m.recv_from(j, &mut buf, FRAME).unwrap();
                }
            }
            t.push(start.elapsed().as_secs_f64() * 1e6);
        }
        t
    });
    let mut t = times.into_iter().next().unwrap_or_default();
    t.sort_by(f64::total_cmp);
    (t[0], t[t.len() / 2])
}

#[test]
#[ignore = "measurement; run with --ignored --nocapture in a release build"]
fn all_to_all_round_latency() {
    println!(
        "one all-to-all round of {FRAME}-byte frames, {ITERS} rounds, party 0, best / median µs"
    );
    for n in [2, 3, 5, 9] {
        for any in [false, true] {
            let read = if any { "recv_any " } else { "recv_from" };
            let (tb, tm) = round_latency(local_tcp_mesh(n).unwrap(), any);
            let (mb, mm) = round_latency(MemoryMesh::new(n), any);
            println!("n = {n} {read}: tcp {tb:7.1} / {tm:7.1}   memory {mb:7.1} / {mm:7.1}");
        }
    }
}
