//! Per-operation cost of the Ristretto kernels the base OTs use.
//! `cargo run --release -p ot-runtime --example ec_speed`
use ot_runtime::primitives::ec::*;
use ot_runtime::primitives::ec_batch;
use ot_runtime::primitives::rng::Rng;
use std::hint::black_box;
use std::time::Instant;

fn time<F: FnMut()>(name: &str, reps: usize, mut f: F) {
    let t = Instant::now();
    for _ in 0..reps {
        f();
    }
    println!(
        "{name:<28} {:>9.2} us",
        t.elapsed().as_secs_f64() * 1e6 / reps as f64
    );
}

fn main() {
    let mut rng = Rng::from_entropy();
    let s = random_scalar(&mut rng);
    let p = random_point(&mut rng);
    let t = point_table(p);
    time("dalek mul_base", 2000, || {
        black_box(Point::mul_base(black_box(&s)));
    });
    time("base_mul (precomputed)", 2000, || {
        black_box(base_mul(black_box(s)));
    });
    time("point_mul (variable base)", 2000, || {
        black_box(point_mul(black_box(p), black_box(s)));
    });
    time("table_mul", 2000, || {
        black_box(table_mul(&t, black_box(s)));
    });
    time("point_table", 200, || {
        black_box(point_table(black_box(p)));
    });
    time("compress", 2000, || {
        black_box(black_box(p).compress());
    });
    time("ro_point (3 compressions)", 2000, || {
        black_box(ro_point(7, black_box(p), p, p));
    });
    time("random_scalar", 2000, || {
        black_box(random_scalar(&mut rng));
    });
    // The base-OT sender's batch: one scalar times 256 points, encoded as
    // the key derivation hashes them; per point, batched lanes (AVX-512
    // IFMA where the CPU has it) against dalek one point at a time.
    let points: Vec<Point> = (0..256).map(|_| random_point(&mut rng)).collect();
    let per_point = |name: &str, f: &mut dyn FnMut()| {
        let reps = 20;
        let t = Instant::now();
        for _ in 0..reps {
            f();
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / (reps * points.len()) as f64;
        println!("{name:<28} {us:>9.2} us per point");
    };
    per_point("mul + encode, batched", &mut || {
        black_box(ec_batch::mul_doubled_encodings(black_box(s), &points));
    });
    per_point("mul + encode, dalek", &mut || {
        let products: Vec<Point> = points.iter().map(|q| q * s).collect();
        black_box(Point::double_and_compress_batch(&products));
    });
}
