//! Pedersen commitments with two randomizers,
//! `Com(x; ρ1, ρ2) = x·G + ρ1·H1 + ρ2·H2`, on Ristretto255: the commitment scheme of the Orlandi share
//! format (Jakobsen, Makkes and Nielsen, "Efficient Implementation of the
//! Orlandi Protocol", ACNS 2010: every share carries a homomorphic
//! commitment to the shared value; Pedersen, CRYPTO 1991, for the scheme).
//!
//! `G` is the Ristretto base point; `H1` and `H2` are hashed to the group
//! (SHA-512 into Ristretto's Elligator map, `RistrettoPoint::hash_from_bytes`)
//! from the domain separator [`GENERATOR_DOMAIN`] followed by `"/H1"` or
//! `"/H2"`, so nobody knows a discrete-log relation between `G`, `H1` and
//! `H2`. The scheme is perfectly hiding (for uniform `ρ1`) and
//! computationally binding under discrete log in Ristretto255, and it is
//! additively homomorphic: `Com(x; ρ) + Com(y; σ) = Com(x + y; ρ + σ)`,
//! `c·Com(x; ρ) = Com(c·x; c·ρ)`, which is what makes the Orlandi share
//! operations local.

use std::sync::OnceLock;

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT;
use curve25519_dalek::traits::VartimeMultiscalarMul;

use crate::primitives::ec::{base_mul, point_table, table_mul, Point, PointTable, Scalar};

/// Domain separator of the generators `H1`, `H2` (each hashed from this
/// label followed by `/H1` or `/H2`).
pub const GENERATOR_DOMAIN: &str = "ot-runtime/pedersen/orlandi-generators/v1";

/// The generators `H1`, `H2` with their multiplication tables.
struct Generators {
    h: [Point; 2],
    tables: [PointTable; 2],
}

fn generators() -> &'static Generators {
    static GENS: OnceLock<Generators> = OnceLock::new();
    GENS.get_or_init(|| {
        let h = [b"/H1", b"/H2"].map(|tag| {
            let mut label = GENERATOR_DOMAIN.as_bytes().to_vec();
            label.extend_from_slice(tag);
            Point::hash_from_bytes::<sha2::Sha512>(&label)
        });
        Generators {
            tables: h.map(point_table),
            h,
        }
    })
}

/// The generators `[H1, H2]` (hashed to the group, see the module docs).
pub fn generators_h() -> [Point; 2] {
    generators().h
}

/// `Com(x; ρ1, ρ2) = x·G + ρ1·H1 + ρ2·H2`, constant time (for committing
/// to secret shares), using precomputed tables for all three generators.
pub fn commit(x: Scalar, r1: Scalar, r2: Scalar) -> Point {
    let g = generators();
    base_mul(x) + table_mul(&g.tables[0], r1) + table_mul(&g.tables[1], r2)
}

/// `Com(x; ρ1, ρ2)` in variable time: for values that are public (an
/// opening being checked), about twice as fast as [`commit`].
pub fn commit_vartime(x: Scalar, r1: Scalar, r2: Scalar) -> Point {
    let g = generators();
    Point::vartime_multiscalar_mul([x, r1, r2], [RISTRETTO_BASEPOINT_POINT, g.h[0], g.h[1]])
}

/// `Σ w_k·P_k` in variable time (public scalars and points), by dalek's
/// multiscalar multiplication (Straus or Pippenger by size). Extra entries
/// of the longer slice are ignored.
pub fn msm_vartime(weights: &[Scalar], points: &[Point]) -> Point {
    let n = weights.len().min(points.len());
    Point::vartime_multiscalar_mul(&weights[..n], &points[..n])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::ec::point_mul;

    fn s(v: u64) -> Scalar {
        Scalar::from(v)
    }

    #[test]
    fn commit_matches_the_definition_and_the_vartime_form() {
        let [h1, h2] = generators_h();
        for k in 1..10u64 {
            let (x, r1, r2) = (s(k * 7), s(k * 1_000_003), s(k ^ 0xdead_beef));
            let want = base_mul(x) + point_mul(h1, r1) + point_mul(h2, r2);
            assert_eq!(commit(x, r1, r2), want);
            assert_eq!(commit_vartime(x, r1, r2), want);
        }
    }

    #[test]
    fn commitments_are_homomorphic() {
        let a = commit(s(3), s(5), s(7));
        let b = commit(s(11), s(13), s(17));
        assert_eq!(a + b, commit(s(14), s(18), s(24)));
        assert_eq!(a * s(4), commit(s(12), s(20), s(28)));
        assert_eq!(msm_vartime(&[s(2), s(3)], &[a, b]), a * s(2) + b * s(3));
    }

    #[test]
    fn generators_are_distinct_and_not_the_base_point() {
        let [h1, h2] = generators_h();
        assert_ne!(h1, h2);
        assert_ne!(h1, RISTRETTO_BASEPOINT_POINT);
        assert_ne!(h2, RISTRETTO_BASEPOINT_POINT);
    }
}
