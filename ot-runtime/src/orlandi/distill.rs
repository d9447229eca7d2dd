//! Kernels of the Orlandi preprocessing's distillation
//! (`protocols/orlandi_triple.otp`, steps 7–8): Damgård and Orlandi's
//! Random Triple protocol (CRYPTO 2010) turns each bucket of `2d + 1`
//! tested triples into one triple with its leak-tolerant multiplication.
//! For fresh random shared `x, y` and coefficients `f_1..f_d`, `g_1..g_d`,
//! `F(j) = x + Σ_i f_i·j^i` and `G(j) = y + Σ_i g_i·j^i` are multiplied at
//! the points `j = 1..2d+1` with one triple each (the online
//! multiplication, `orlandi_mul.otp`), and `[xy] = Σ_j δ_j·[F(j)G(j)]`
//! with `δ_j` the Lagrange coefficients at 0. Any `d` of the points are
//! independent of `x` and `y`, so up to `d` leaky triples per bucket do not
//! leak the output. The flow and checks live in the `.otp`.
//!
//! Layout of the random values (`2(d + 1)·m` per party): `x` (m) ‖ `y` (m)
//! ‖ `f` (`d·m`, bucket-major: `f_{q,i}` at `q·d + i − 1`) ‖ `g` (likewise).
//! Evaluations are bucket-major: point `j` of bucket `q` at
//! `q·(2d + 1) + j − 1`, matching the bucket order of the kept triples
//! ([`crate::orlandi::prep::output`]).
//!
//! Kernels take inputs whose shapes the protocol fixed; on mismatched
//! inputs they return empty values and never panic.

use crate::orlandi::Shares;
use crate::primitives::ec::{Point, Scalar};

/// Party `me`'s shares of `count` random values from its sampled
/// `secrets = x ‖ ρ1 ‖ ρ2` (`3·count` scalars, committed to in the
/// protocol's first broadcast) and every party's broadcast commitments.
pub fn random_shares(me: usize, secrets: &[Scalar], coms: &[Vec<Point>], count: usize) -> Shares {
    if secrets.len() != 3 * count {
        return Shares::default();
    }
    let part = |k: usize| secrets[k * count..(k + 1) * count].to_vec();
    Shares::new(me, part(0), part(1), part(2), coms.to_vec()).unwrap_or_default()
}

/// `F(j)` (`which = 0`) or `G(j)` (`which = 1`) at `j = 1..2d+1` for each of
/// the `m` buckets (`(2d + 1)·m` values, bucket-major).
pub fn points(r: &Shares, d: usize, m: usize, which: usize) -> Shares {
    let w = 2 * d + 1;
    let (base, coef) = (which * m, 2 * m + which * d * m);
    let rows: Vec<Vec<(usize, Scalar)>> = (0..m * w)
        .map(|k| {
            let (q, j) = (k / w, Scalar::from((k % w + 1) as u64));
            let mut row = vec![(base + q, Scalar::ONE)];
            let mut pow = Scalar::ONE;
            for i in 0..d {
                pow *= j;
                row.push((coef + q * d + i, pow));
            }
            row
        })
        .collect();
    if r.len() != 2 * (d + 1) * m {
        return Shares::default();
    }
    r.linear(&rows).unwrap_or_default()
}

/// The shared inputs `x` (`which = 0`) or `y` (`which = 1`) of the `m`
/// buckets: the distilled triples' `a` and `b`.
pub fn input(r: &Shares, m: usize, which: usize) -> Shares {
    r.slice(which * m, m).unwrap_or_default()
}

/// The Lagrange coefficients at 0 of the points `1..=w`:
/// `δ_j = Π_{k ≠ j} k / (k − j)`.
pub fn lagrange_at_zero(w: usize) -> Vec<Scalar> {
    (1..=w as u64)
        .map(|j| {
            let (mut num, mut den) = (Scalar::ONE, Scalar::ONE);
            for k in (1..=w as u64).filter(|&k| k != j) {
                num *= Scalar::from(k);
                den *= Scalar::from(k) - Scalar::from(j);
            }
            num * den.invert()
        })
        .collect()
}

/// `[H(0)] = Σ_j δ_j·[H(j)]` per bucket, from the `(2d + 1)·m` products
/// `H(j) = F(j)·G(j)`: the distilled triples' `c = xy` (`m` values).
pub fn at_zero(h: &Shares, d: usize, m: usize) -> Shares {
    let w = 2 * d + 1;
    if h.len() != w * m {
        return Shares::default();
    }
    let delta = lagrange_at_zero(w);
    let rows: Vec<Vec<(usize, Scalar)>> = (0..m)
        .map(|q| (0..w).map(|j| (q * w + j, delta[j])).collect())
        .collect();
    h.linear(&rows).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orlandi::deal;
    use crate::primitives::rng::Rng;

    /// Sum of every party's shares.
    fn reveal(parts: &[Shares]) -> Vec<Scalar> {
        (0..parts[0].len())
            .map(|k| parts.iter().map(|s| s.values()[k]).sum())
            .collect()
    }

    #[test]
    fn lagrange_interpolates_a_quadratic_at_zero() {
        // H(j) = 5 + 3j + 2j^2 at 1, 2, 3: H(0) = 5.
        let delta = lagrange_at_zero(3);
        let h = |j: u64| Scalar::from(5 + 3 * j + 2 * j * j);
        let z: Scalar = (1..=3).map(|j| delta[j as usize - 1] * h(j)).sum();
        assert_eq!(z, Scalar::from(5u64));
        assert_eq!(lagrange_at_zero(1), vec![Scalar::ONE]);
    }

    #[test]
    fn distilling_plaintext_products_gives_xy_and_commitments_follow() {
        let (n, d, m) = (3, 2, 4);
        let mut rng = Rng::deterministic_for_tests(7);
        let vals: Vec<Scalar> = (0..2 * (d + 1) * m)
            .map(|k| Scalar::from(11 * k as u64 + 1))
            .collect();
        let r = deal(&vals, n, &mut rng);
        let f: Vec<Shares> = r.iter().map(|s| points(s, d, m, 0)).collect();
        let g: Vec<Shares> = r.iter().map(|s| points(s, d, m, 1)).collect();
        assert!(f.iter().all(Shares::own_commitments_match));
        // H(j) = F(j)G(j) in the clear, re-dealt, then interpolated.
        let hv: Vec<Scalar> = reveal(&f)
            .iter()
            .zip(reveal(&g))
            .map(|(a, b)| a * b)
            .collect();
        let h = deal(&hv, n, &mut rng);
        let z: Vec<Shares> = h.iter().map(|s| at_zero(s, d, m)).collect();
        assert!(z.iter().all(Shares::own_commitments_match));
        let (x, y) = (reveal(&input_all(&r, m, 0)), reveal(&input_all(&r, m, 1)));
        let want: Vec<Scalar> = x.iter().zip(&y).map(|(a, b)| a * b).collect();
        assert_eq!(reveal(&z), want);
        assert_eq!(points(&r[0], d, m + 1, 0), Shares::default());
    }

    fn input_all(r: &[Shares], m: usize, which: usize) -> Vec<Shares> {
        r.iter().map(|s| input(s, m, which)).collect()
    }
}
