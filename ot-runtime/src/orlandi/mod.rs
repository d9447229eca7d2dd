//! The Orlandi family (`protocols/orlandi*.otp`): this module's share
//! format and local operations, its commitments ([`pedersen`]), and the
//! preprocessing's kernels: Paillier encryption with its proofs and wire
//! encodings ([`paillier`]), Triple Generation ([`triple`]), the subset
//! check and Triple Test ([`prep`]), distillation ([`distill`]) and the
//! parameters at a security level ([`level`]).
//!
//! The Orlandi share format and its local operations (kernels of
//! `protocols/orlandi*.otp`).
//!
//! A value `x ∈ Z_p` (`p` the Ristretto255 group order) is shared additively,
//! `x = Σ_j x_j`, and every share carries a homomorphic commitment
//! (Jakobsen, Makkes and Nielsen, "Efficient Implementation of the Orlandi
//! Protocol", ACNS 2010, slide "High level Description": a share is `(s_i,
//! C)`). Party `P_i` holds `(x_i, ρ_i1, ρ_i2)` and, for every party `j`, the
//! commitment `C_j = Com(x_j; ρ_j1, ρ_j2)` of that party's share
//! ([`crate::orlandi::pedersen`]); the commitment to `x` is `C = Σ_j C_j`. VIFF
//! keeps only `C`; keeping the `n` per-party commitments costs `n` points
//! per value but lets an opening be checked party by party, so a wrong
//! opening aborts naming the party that sent it (binding of Pedersen
//! commitments: the honest parties agree on every `C_j`, by the checked
//! broadcast that created it and the public linear operations since).
//!
//! Addition, subtraction, multiplication by a public constant and adding a
//! public constant (to `P_0`'s share, and `c·G` to `C_0`) are local. The
//! kernels called from `.otp` files take values whose shapes the protocol
//! has checked first ([`shape_ok`]); on mismatched inputs they truncate and
//! never panic.

pub mod distill;
pub mod level;
pub mod paillier;
pub mod pedersen;
pub mod prep;
pub mod triple;

use std::sync::{Arc, OnceLock};

use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT;
use curve25519_dalek::traits::VartimeMultiscalarMul;
use rand_core::{CryptoRng, RngCore};
use rayon::prelude::*;

use crate::orlandi::pedersen::{commit, commit_vartime, msm_vartime};
use crate::primitives::ec::{random_scalar, Point, Scalar};
use crate::primitives::prg::Prg;
use crate::Block;

/// Why shares cannot be combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShareError {
    /// Two batches (or a batch and a list of constants) of different lengths.
    #[error("Orlandi shares: batch lengths differ ({left} and {right})")]
    Length {
        /// Length of the left operand.
        left: usize,
        /// Length of the right operand.
        right: usize,
    },
    /// Shares held by different parties, or of different party counts.
    #[error(
        "Orlandi shares: party P[{left}] of {left_n} and P[{right}] of {right_n} do not match"
    )]
    Party {
        /// Index of the left operand's holder.
        left: usize,
        /// Party count of the left operand.
        left_n: usize,
        /// Index of the right operand's holder.
        right: usize,
        /// Party count of the right operand.
        right_n: usize,
    },
    /// A batch whose parts (values, randomizers, per-party commitments) do
    /// not have one length, or whose holder index is out of range.
    #[error("Orlandi shares: malformed batch")]
    Malformed,
}

/// One party's shares of a batch of `len()` values: its additive shares
/// `x`, the commitment randomness `ρ1`, `ρ2`, and every party's commitment
/// `coms[j][k] = Com(x_jk; ρ_jk1, ρ_jk2)`. The default is an empty batch
/// of no parties.
///
/// The commitments of a product ([`mul_finish`]) are kept *deferred*, as
/// public linear combinations of commitments computed before
/// (`Coms::Deferred`): a batched opening check ([`openings_ok`]) folds
/// them into its one multiscalar multiplication, and anything else that
/// needs the points computes them once (cached, shared by clones).
#[derive(Clone, Debug, Default)]
pub struct Shares {
    me: usize,
    x: Vec<Scalar>,
    r1: Vec<Scalar>,
    r2: Vec<Scalar>,
    coms: Coms,
}

impl PartialEq for Shares {
    fn eq(&self, other: &Shares) -> bool {
        self.me == other.me
            && self.x == other.x
            && self.r1 == other.r1
            && self.r2 == other.r2
            && self.pts() == other.pts()
    }
}

impl Eq for Shares {}

/// Every party's commitments of a batch: computed points, or deferred.
#[derive(Clone, Debug)]
enum Coms {
    /// `coms[j][k]`: party `j`'s commitment of value `k`.
    Points(Vec<Vec<Point>>),
    /// Public linear combinations of earlier commitments.
    Deferred(Arc<Deferred>),
}

impl Default for Coms {
    fn default() -> Coms {
        Coms::Points(Vec::new())
    }
}

/// Most scaled terms a deferred batch keeps; an operation that would make
/// more computes the points instead.
const MAX_TERMS: usize = 6;

/// Deferred commitments of `n` parties' shares of `m` values: party `j`'s
/// commitment of value `k` is `base[j][k] + Σ_t coef_t[k]·points_t[j][k]`,
/// plus `g0[k]·G` for `j = 0` (the public constants a product subtracts).
#[derive(Debug)]
struct Deferred {
    base: Vec<Vec<Point>>,
    terms: Vec<(Vec<Scalar>, Vec<Vec<Point>>)>,
    g0: Vec<Scalar>,
    points: OnceLock<Vec<Vec<Point>>>,
}

impl Deferred {
    /// Deferred commitments from their parts, shared behind an `Arc`.
    fn coms(
        base: Vec<Vec<Point>>,
        terms: Vec<(Vec<Scalar>, Vec<Vec<Point>>)>,
        g0: Vec<Scalar>,
    ) -> Coms {
        Coms::Deferred(Arc::new(Deferred {
            base,
            terms,
            g0,
            points: OnceLock::new(),
        }))
    }

    /// The points: per party and value one variable-time multiscalar
    /// multiplication (Straus) over the scaled terms, split across threads.
    fn points(&self) -> &Vec<Vec<Point>> {
        self.points.get_or_init(|| {
            self.base
                .iter()
                .enumerate()
                .map(|(j, base)| {
                    (0..base.len())
                        .into_par_iter()
                        .with_min_len(32)
                        .map(|k| {
                            let g = (j == 0).then(|| (self.g0[k], RISTRETTO_BASEPOINT_POINT));
                            let (s, p): (Vec<Scalar>, Vec<Point>) = self
                                .terms
                                .iter()
                                .map(|(c, pts)| (c[k], pts[j][k]))
                                .chain(g)
                                .unzip();
                            base[k] + Point::vartime_multiscalar_mul(s, p)
                        })
                        .collect()
                })
                .collect()
        })
    }

    /// `-self`: the base points negated, the coefficients negated.
    fn neg(&self) -> Deferred {
        Deferred {
            base: self
                .base
                .iter()
                .map(|row| row.iter().map(|p| -p).collect())
                .collect(),
            terms: self
                .terms
                .iter()
                .map(|(c, p)| (c.iter().map(|c| -c).collect(), p.clone()))
                .collect(),
            g0: self.g0.iter().map(|c| -c).collect(),
            points: OnceLock::new(),
        }
    }
}

/// Elementwise `a + b` of two per-party point tables.
fn add_points(a: &[Vec<Point>], b: &[Vec<Point>]) -> Vec<Vec<Point>> {
    a.iter()
        .zip(b)
        .map(|(a, b)| a.iter().zip(b).map(|(u, v)| u + v).collect())
        .collect()
}

/// The additive shares and the commitment randomness are wiped when a
/// batch is dropped (the commitments are public).
impl Drop for Shares {
    fn drop(&mut self) {
        use crate::primitives::wipe::Wipe;
        self.x.wipe();
        self.r1.wipe();
        self.r2.wipe();
    }
}

impl Shares {
    /// Party `me`'s shares from their parts (`coms[j][k]`: the commitment of
    /// party `j`'s share of value `k`). Every part must have one length and
    /// `me < coms.len()`.
    pub fn new(
        me: usize,
        x: Vec<Scalar>,
        r1: Vec<Scalar>,
        r2: Vec<Scalar>,
        coms: Vec<Vec<Point>>,
    ) -> Result<Shares, ShareError> {
        let m = x.len();
        let ok =
            r1.len() == m && r2.len() == m && me < coms.len() && coms.iter().all(|c| c.len() == m);
        if !ok {
            return Err(ShareError::Malformed);
        }
        Ok(Shares {
            me,
            x,
            r1,
            r2,
            coms: Coms::Points(coms),
        })
    }

    /// Every party's commitments as points (deferred ones computed once).
    fn pts(&self) -> &[Vec<Point>] {
        match &self.coms {
            Coms::Points(p) => p,
            Coms::Deferred(d) => d.points(),
        }
    }

    /// Number of shared values.
    pub fn len(&self) -> usize {
        self.x.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Index of the party holding these shares.
    pub fn me(&self) -> usize {
        self.me
    }

    /// Number of parties.
    pub fn parties(&self) -> usize {
        match &self.coms {
            Coms::Points(p) => p.len(),
            Coms::Deferred(d) => d.base.len(),
        }
    }

    /// This party's additive shares.
    pub fn values(&self) -> &[Scalar] {
        &self.x
    }

    /// This party's commitment randomness `(ρ1, ρ2)`.
    pub fn randomness(&self) -> (&[Scalar], &[Scalar]) {
        (&self.r1, &self.r2)
    }

    /// The commitments of party `j`'s shares (`None` if `j` is out of range).
    pub fn commitments(&self, j: usize) -> Option<&[Point]> {
        self.pts().get(j).map(Vec::as_slice)
    }

    /// The commitment `C = Σ_j C_j` to value `k` itself.
    pub fn joint_commitment(&self, k: usize) -> Option<Point> {
        self.pts().iter().map(|c| c.get(k).copied()).sum()
    }

    /// Whether this party's own commitments open to its shares (a local
    /// consistency check of a batch received from elsewhere).
    pub fn own_commitments_match(&self) -> bool {
        let coms = self.pts();
        let own = &coms[self.me.min(coms.len().saturating_sub(1))];
        own.len() == self.len()
            && (0..self.len()).all(|k| commit_vartime(self.x[k], self.r1[k], self.r2[k]) == own[k])
    }

    fn same_parties(&self, other: &Shares) -> Result<(), ShareError> {
        if self.me != other.me || self.parties() != other.parties() {
            return Err(ShareError::Party {
                left: self.me,
                left_n: self.parties(),
                right: other.me,
                right_n: other.parties(),
            });
        }
        Ok(())
    }

    fn same_layout(&self, other: &Shares) -> Result<(), ShareError> {
        self.same_parties(other)?;
        if self.len() != other.len() {
            return Err(ShareError::Length {
                left: self.len(),
                right: other.len(),
            });
        }
        Ok(())
    }

    /// Applies `fs` to each scalar part and `fp` to each party's
    /// commitments.
    fn map_parts(
        &self,
        fs: impl Fn(&[Scalar]) -> Vec<Scalar>,
        fp: impl Fn(&[Point]) -> Vec<Point>,
    ) -> Shares {
        Shares {
            me: self.me,
            x: fs(&self.x),
            r1: fs(&self.r1),
            r2: fs(&self.r2),
            coms: Coms::Points(self.pts().iter().map(|row| fp(row)).collect()),
        }
    }

    /// Combines the parts of two batches: `fs` on each scalar part, `fp` on
    /// each party's commitments.
    fn combine(
        &self,
        other: &Shares,
        fs: impl Fn(&[Scalar], &[Scalar]) -> Vec<Scalar>,
        fp: impl Fn(&[Point], &[Point]) -> Vec<Point>,
    ) -> Shares {
        Shares {
            me: self.me,
            x: fs(&self.x, &other.x),
            r1: fs(&self.r1, &other.r1),
            r2: fs(&self.r2, &other.r2),
            coms: Coms::Points(
                self.pts()
                    .iter()
                    .zip(other.pts())
                    .map(|(a, b)| fp(a, b))
                    .collect(),
            ),
        }
    }

    /// Elementwise `f` on the scalar parts and `g` on the commitments.
    fn zip_with(
        &self,
        other: &Shares,
        f: impl Fn(Scalar, Scalar) -> Scalar,
        g: impl Fn(Point, Point) -> Point,
    ) -> Shares {
        self.combine(
            other,
            |a, b| a.iter().zip(b).map(|(u, v)| f(*u, *v)).collect(),
            |a, b| a.iter().zip(b).map(|(u, v)| g(*u, *v)).collect(),
        )
    }

    /// `[x + y]`, elementwise (local). Deferred commitments stay deferred
    /// (their terms are joined) up to `MAX_TERMS` terms.
    pub fn add(&self, other: &Shares) -> Result<Shares, ShareError> {
        self.same_layout(other)?;
        Ok(match self.add_deferred(other) {
            Some(coms) => {
                let mut out = self.zip_with_scalars(other, |a, b| a + b);
                out.coms = coms;
                out
            }
            None => self.zip_with(other, |a, b| a + b, |a, b| a + b),
        })
    }

    /// `[x − y]`, elementwise (local); deferred as in [`Shares::add`].
    pub fn sub(&self, other: &Shares) -> Result<Shares, ShareError> {
        self.same_layout(other)?;
        let neg = match (&self.coms, &other.coms) {
            (Coms::Points(_), Coms::Points(_)) => {
                return Ok(self.zip_with(other, |a, b| a - b, |a, b| a - b))
            }
            (_, Coms::Deferred(d)) => Coms::Deferred(Arc::new(d.neg())),
            (_, Coms::Points(p)) => Coms::Points(
                p.iter()
                    .map(|row| row.iter().map(|q| -q).collect())
                    .collect(),
            ),
        };
        let mut minus = other.clone();
        minus.coms = neg;
        Ok(match self.add_deferred(&minus) {
            Some(coms) => {
                let mut out = self.zip_with_scalars(other, |a, b| a - b);
                out.coms = coms;
                out
            }
            None => self.zip_with(other, |a, b| a - b, |a, b| a - b),
        })
    }

    /// The scalar parts of `self` and `other` combined elementwise by `f`
    /// (no commitments).
    fn zip_with_scalars(&self, other: &Shares, f: impl Fn(Scalar, Scalar) -> Scalar) -> Shares {
        let z = |a: &[Scalar], b: &[Scalar]| a.iter().zip(b).map(|(u, v)| f(*u, *v)).collect();
        Shares {
            me: self.me,
            x: z(&self.x, &other.x),
            r1: z(&self.r1, &other.r1),
            r2: z(&self.r2, &other.r2),
            coms: Coms::default(),
        }
    }

    /// The deferred commitments of `self + other` when at least one of
    /// them is deferred and the sum has at most [`MAX_TERMS`] terms
    /// (point operands join the base, with one addition per point).
    fn add_deferred(&self, other: &Shares) -> Option<Coms> {
        match (&self.coms, &other.coms) {
            (Coms::Points(p), Coms::Deferred(d)) | (Coms::Deferred(d), Coms::Points(p)) => Some(
                Deferred::coms(add_points(&d.base, p), d.terms.clone(), d.g0.clone()),
            ),
            (Coms::Deferred(a), Coms::Deferred(b))
                if a.terms.len() + b.terms.len() <= MAX_TERMS =>
            {
                Some(Deferred::coms(
                    add_points(&a.base, &b.base),
                    [a.terms.clone(), b.terms.clone()].concat(),
                    a.g0.iter().zip(&b.g0).map(|(u, v)| u + v).collect(),
                ))
            }
            _ => None,
        }
    }

    /// `[c·x]` for one public constant `c` (local).
    pub fn scale(&self, c: Scalar) -> Shares {
        self.map_parts(
            |v| v.iter().map(|a| c * a).collect(),
            |row| row.iter().map(|p| p * c).collect(),
        )
    }

    /// `[x + c]` for public constants `c` (one per value): `P_0` adds `c_k`
    /// to its share and everyone adds `c_k·G` to `C_0` (local).
    pub fn add_public(&self, c: &[Scalar]) -> Result<Shares, ShareError> {
        if c.len() != self.len() {
            return Err(ShareError::Length {
                left: self.len(),
                right: c.len(),
            });
        }
        let mut out = self.clone();
        if self.me == 0 {
            out.x.iter_mut().zip(c).for_each(|(x, c)| *x += c);
        }
        match &mut out.coms {
            Coms::Points(p) => {
                if let Some(c0) = p.first_mut() {
                    c0.iter_mut()
                        .zip(c)
                        .for_each(|(p, c)| *p += RISTRETTO_BASEPOINT_POINT * c);
                }
            }
            Coms::Deferred(d) => {
                let g0 = d.g0.iter().zip(c).map(|(g, c)| g + c).collect();
                out.coms = Deferred::coms(d.base.clone(), d.terms.clone(), g0);
            }
        }
        Ok(out)
    }

    /// `[c_k·x_k]` for one public constant per value (local); `None` if
    /// the lengths differ.
    pub fn scale_each(&self, c: &[Scalar]) -> Option<Shares> {
        if c.len() != self.len() {
            return None;
        }
        Some(self.map_parts(
            |v| v.iter().zip(c).map(|(a, c)| a * c).collect(),
            |row| row.iter().zip(c).map(|(p, c)| p * c).collect(),
        ))
    }

    /// The values at `idx`, in that order (`None` if an index is out of
    /// range).
    pub fn select(&self, idx: &[usize]) -> Option<Shares> {
        if idx.iter().any(|&k| k >= self.len()) {
            return None;
        }
        Some(self.map_parts(
            |v| idx.iter().map(|&k| v[k]).collect(),
            |row| idx.iter().map(|&k| row[k]).collect(),
        ))
    }

    /// Public linear combinations (local): value `k` of the result is
    /// `Σ_(l, w) ∈ rows[k] w·x_l`, on the shares, the randomness and every
    /// party's commitments (one variable-time multiscalar multiplication
    /// per value and party, on public weights). `None` if an index is out
    /// of range.
    pub fn linear(&self, rows: &[Vec<(usize, Scalar)>]) -> Option<Shares> {
        if rows.iter().flatten().any(|&(l, _)| l >= self.len()) {
            return None;
        }
        let lin = |v: &[Scalar]| -> Vec<Scalar> {
            rows.iter()
                .map(|row| row.iter().map(|&(l, w)| w * v[l]).sum())
                .collect()
        };
        let coms = self
            .pts()
            .iter()
            .map(|c| {
                rows.par_iter()
                    .map(|row| {
                        Point::vartime_multiscalar_mul(
                            row.iter().map(|&(_, w)| w),
                            row.iter().map(|&(l, _)| c[l]),
                        )
                    })
                    .collect()
            })
            .collect();
        Some(Shares {
            me: self.me,
            x: lin(&self.x),
            r1: lin(&self.r1),
            r2: lin(&self.r2),
            coms: Coms::Points(coms),
        })
    }

    /// The values of `self` followed by those of `other`.
    pub fn concat(&self, other: &Shares) -> Result<Shares, ShareError> {
        self.same_parties(other)?;
        Ok(self.combine(other, |a, b| [a, b].concat(), |a, b| [a, b].concat()))
    }

    /// Values `start..start + len` (`None` if out of range).
    pub fn slice(&self, start: usize, len: usize) -> Option<Shares> {
        let end = start.checked_add(len)?;
        if end > self.len() {
            return None;
        }
        Some(self.map_parts(|v| v[start..end].to_vec(), |c| c[start..end].to_vec()))
    }
}

/// Whether `s` is party `me`'s batch of `m` values among `n` parties. The
/// protocols check this on their inputs before any round, so the other
/// kernels never see mismatched shapes.
pub fn shape_ok(s: &Shares, me: usize, n: usize, m: usize) -> bool {
    s.me == me && s.parties() == n && s.len() == m
}

/// What party `P_i` broadcasts to open a batch: `x_i ‖ ρ_i1 ‖ ρ_i2`
/// (`3·len` scalars; the `count` argument only names the length).
pub fn opening(s: &Shares, _count: usize) -> Vec<Scalar> {
    [s.x.as_slice(), &s.r1, &s.r2].concat()
}

/// Batch-verification weights: `m` 128-bit scalars from the PRG keyed by
/// a seed the verifier sampled after receiving the openings. Every sender's
/// check uses the same weights, so the joint check ([`openings_ok`]) is
/// the sum of the per-sender ones ([`opening_ok`]).
fn weights(seed: Block, m: usize) -> Vec<Scalar> {
    let mut prg = Prg::new(seed);
    (0..m)
        .map(|_| Scalar::from(prg.next_block().as_u128()))
        .collect()
}

/// `Σ_k w_k·v_k`.
fn dot(w: &[Scalar], v: &[Scalar]) -> Scalar {
    w.iter().zip(v).map(|(a, b)| a * b).sum()
}

/// `Σ_k s_k·P_k` in variable time (public data), one Pippenger
/// multiscalar multiplication per thread on a share of the terms.
fn msm_par(s: &[Scalar], p: &[Point]) -> Point {
    let chunk = s
        .len()
        .div_ceil(rayon::current_num_threads().max(1))
        .max(256);
    s.par_chunks(chunk)
        .zip(p.par_chunks(chunk))
        .map(|(s, p)| msm_vartime(s, p))
        .sum()
}

/// One row of a per-party point table: party `j`'s points, or (`None`)
/// the joint `Σ_j P_jk` of each value.
fn row(table: &[Vec<Point>], party: Option<usize>) -> Vec<Point> {
    match party {
        Some(j) => table.get(j).cloned().unwrap_or_default(),
        None => table
            .iter()
            .skip(1)
            .fold(table.first().cloned().unwrap_or_default(), |acc, r| {
                acc.iter().zip(r).map(|(a, b)| a + b).collect()
            }),
    }
}

/// `Σ_k w_k·C_k` over the batch, for party `j`'s commitments `C_jk`
/// (`party = Some(j)`) or the joint `C_k = Σ_j C_jk` (`None`). Deferred
/// commitments ([`mul_finish`]) enter as their terms: `Σ_k w_k·(B_k + Σ_t
/// c_tk·P_tk + g_k·G)` is one multiscalar multiplication over `B`, every
/// `P_t` (scalars `w_k·c_tk`) and `G`, with no point computed per value.
fn weighted_commitment(s: &Shares, w: &[Scalar], party: Option<usize>) -> Point {
    match &s.coms {
        Coms::Points(p) => msm_par(w, &row(p, party)),
        Coms::Deferred(d) => {
            let mut sc = w.to_vec();
            let mut pt = row(&d.base, party);
            for (c, p) in &d.terms {
                sc.extend(w.iter().zip(c).map(|(w, c)| w * c));
                pt.extend(row(p, party));
            }
            if party.is_none_or(|j| j == 0) {
                sc.push(dot(w, &d.g0));
                pt.push(RISTRETTO_BASEPOINT_POINT);
            }
            msm_par(&sc, &pt)
        }
    }
}

/// Whether `opening = x ‖ ρ1 ‖ ρ2` (`3m` scalars for `w.len() = m`)
/// matches `Σ_k w_k·C_k = target`: `Com(Σ w_k x_k; Σ w_k ρ_k1, Σ w_k ρ_k2)
/// = target`.
fn combination_matches(opening: &[Scalar], w: &[Scalar], target: Point) -> bool {
    let m = w.len();
    if opening.len() != 3 * m {
        return false;
    }
    let (x, rest) = opening.split_at(m);
    let (r1, r2) = rest.split_at(m);
    commit_vartime(dot(w, x), dot(w, r1), dot(w, r2)) == target
}

/// Whether an opening `x ‖ ρ1 ‖ ρ2` matches the commitments `coms`, as one
/// random linear combination (see [`opening_ok`]).
fn openings_match(coms: &[Point], opening: &[Scalar], seed: Block) -> bool {
    let w = weights(seed, coms.len());
    combination_matches(opening, &w, msm_par(&w, coms))
}

/// The batched open check of party `j`'s broadcast opening `x_j ‖ ρ_j1 ‖
/// ρ_j2` of the batch `s` against `j`'s commitments: `Com(Σ w_k x_jk; Σ w_k
/// ρ_jk1, Σ w_k ρ_jk2) = Σ w_k C_jk` with 128-bit weights from `seed`
/// (sampled by the verifier after the openings arrived). If any value's
/// opening is wrong the equation fails except with probability at most
/// `2^-128` (for fixed other weights, at most one `w_k < 2^128` cancels a
/// non-zero difference in the group of prime order `p > 2^252`): the
/// small-exponent batch test of Bellare, Garay and Rabin, "Fast Batch
/// Verification for Modular Exponentiation and Digital Signatures",
/// EUROCRYPT 1998, §3.3, applied to Pedersen commitments. `false` names
/// `P_j` as the cheater. The `.otp` calls it only when the joint check
/// [`openings_ok`] failed, to find the sender.
pub fn opening_ok(s: &Shares, j: usize, opening: &[Scalar], seed: Block) -> bool {
    j < s.parties() && {
        let w = weights(seed, s.len());
        combination_matches(opening, &w, weighted_commitment(s, &w, Some(j)))
    }
}

/// The joint batched open check of every party's opening of `s`:
/// `Com(Σ_j Σ_k w_k x_jk; …) = Σ_k w_k C_k` with the joint commitments
/// `C_k = Σ_j C_jk`, one multiscalar multiplication for the whole round
/// (whatever `n`), with deferred product commitments folded in as their
/// terms (`weighted_commitment`). With the weights of [`opening_ok`] both
/// sides are the sums over `j` of the per-sender sides, so if every sender
/// passes its check this one passes: a failure here always has a sender to
/// name. If it passes, every opened value `Σ_j x_jk` is the committed one
/// except with probability `2^-128` (binding of Pedersen commitments and
/// the batch test, as in [`opening_ok`]); corrupt parties whose individual
/// openings err by amounts that cancel in the sum change no output (the
/// check of Orlandi's open, which VIFF runs on `C = Σ_j C_j` only).
pub fn openings_ok(s: &Shares, openings: &[Vec<Scalar>], seed: Block) -> bool {
    let m = s.len();
    if openings.len() != s.parties() || openings.iter().any(|o| o.len() != 3 * m) {
        return false;
    }
    let sum: Vec<Scalar> = (0..3 * m)
        .map(|i| openings.iter().map(|o| o[i]).sum())
        .collect();
    let w = weights(seed, m);
    combination_matches(&sum, &w, weighted_commitment(s, &w, None))
}

/// The opened values `Σ_j x_jk` for `k < count`, from every party's
/// opening (`x_j ‖ ρ_j1 ‖ ρ_j2`).
pub fn open_values(openings: &[Vec<Scalar>], count: usize) -> Vec<Scalar> {
    (0..count)
        .map(|k| openings.iter().filter_map(|o| o.get(k)).sum())
        .collect()
}

/// `[x − a] ‖ [y − b]`: the batch a multiplication opens (`d` then `e`).
pub fn mul_masked(x: &Shares, y: &Shares, a: &Shares, b: &Shares) -> Shares {
    let d = x.zip_with(a, |u, v| u - v, |u, v| u - v);
    let e = y.zip_with(b, |u, v| u - v, |u, v| u - v);
    d.concat(&e).unwrap_or(d)
}

/// `[z] = e·[x] + d·[y] − d·e + [c]` for every value, with `opened = d ‖ e`
/// the opened `x − a` and `y − b` (the online multiplication of the slides,
/// "Online Multiplication": `z = xy` when `c = ab`). The public `d·e` is
/// subtracted from `P_0`'s share and `d·e·G` from `C_0`. The commitments
/// `C_z = e·C_x + d·C_y + C_c (− de·G)` are deferred: kept as these
/// coefficients on the points of `x`, `y` and `c`, so an opening of `z`
/// checks them inside its one multiscalar multiplication
/// ([`openings_ok`]); any other use computes them once.
pub fn mul_finish(x: &Shares, y: &Shares, c: &Shares, opened: &[Scalar]) -> Shares {
    let m = x.len().min(y.len()).min(c.len()).min(opened.len() / 2);
    let (d, e) = (&opened[..m], &opened[m..2 * m]);
    let lin = |xv: &[Scalar], yv: &[Scalar], cv: &[Scalar], sub_de: bool| -> Vec<Scalar> {
        (0..m)
            .map(|k| {
                let z = e[k] * xv[k] + d[k] * yv[k] + cv[k];
                if sub_de {
                    z - d[k] * e[k]
                } else {
                    z
                }
            })
            .collect()
    };
    let cut = |s: &Shares| -> Vec<Vec<Point>> { s.pts().iter().map(|r| r[..m].to_vec()).collect() };
    let coms = Deferred::coms(
        cut(c),
        vec![(e.to_vec(), cut(x)), (d.to_vec(), cut(y))],
        d.iter().zip(e).map(|(d, e)| -(d * e)).collect(),
    );
    Shares {
        me: x.me,
        x: lin(&x.x, &y.x, &c.x, x.me == 0),
        r1: lin(&x.r1, &y.r1, &c.r1, false),
        r2: lin(&x.r2, &y.r2, &c.r2, false),
        coms,
    }
}

/// Commitments `Com(r_k; ρ_k1, ρ_k2)` to `count` values laid out as `mask =
/// r ‖ ρ1 ‖ ρ2` (`3·count` scalars): a party's commitments to its shares of
/// the input masks.
pub fn mask_commitments(mask: &[Scalar], count: usize) -> Vec<Point> {
    if mask.len() < 3 * count {
        return Vec::new();
    }
    (0..count)
        .into_par_iter()
        .with_min_len(32)
        .map(|k| commit(mask[k], mask[count + k], mask[2 * count + k]))
        .collect()
}

/// The private openings of a party's mask shares, one per inputter: element
/// `j` is `r ‖ ρ1 ‖ ρ2` of the values `j·m..(j+1)·m` (party `j`'s masks).
pub fn mask_openings(mask: &[Scalar], n: usize, m: usize) -> Vec<Vec<Scalar>> {
    let nm = n * m;
    if mask.len() < 3 * nm {
        return vec![Vec::new(); n];
    }
    (0..n)
        .map(|j| {
            let part = |base: usize| &mask[base + j * m..base + (j + 1) * m];
            [part(0), part(nm), part(2 * nm)].concat()
        })
        .collect()
}

/// The inputter's check of party `j`'s opening of its masks: `opening` (3m
/// scalars) against `coms` (the `n·m` commitments `j` broadcast), values
/// `me·m..(me+1)·m`. Batched as in [`opening_ok`].
pub fn mask_opening_ok(
    opening: &[Scalar],
    coms: &[Point],
    me: usize,
    m: usize,
    seed: Block,
) -> bool {
    coms.get(me * m..(me + 1) * m)
        .is_some_and(|c| openings_match(c, opening, seed))
}

/// The inputter's broadcast `Δ_k = x_k − r_k` with `r_k = Σ_j r_jk` the
/// opened mask (input by a random shared mask: the slides' input step,
/// VIFF's `shift`).
pub fn input_delta(x: &[Scalar], openings: &[Vec<Scalar>]) -> Vec<Scalar> {
    let r = open_values(openings, x.len());
    x.iter().zip(&r).map(|(x, r)| x - r).collect()
}

/// Party `me`'s shares of every party's inputs (value `j·m + k` is party
/// `j`'s `k`-th input): the mask shares plus the public `Δ` (added to
/// `P_0`'s share and, as `Δ·G`, to `C_0`).
pub fn input_shares(
    me: usize,
    mask: &[Scalar],
    coms: &[Vec<Point>],
    deltas: &[Vec<Scalar>],
    m: usize,
) -> Shares {
    let n = coms.len();
    let nm = n * m;
    let part = |base: usize| mask.get(base..base + nm).unwrap_or(&[]).to_vec();
    let masked = Shares {
        me,
        x: part(0),
        r1: part(nm),
        r2: part(2 * nm),
        coms: Coms::Points(coms.to_vec()),
    };
    let delta: Vec<Scalar> = (0..n)
        .flat_map(|j| {
            let d = deltas.get(j).map(Vec::as_slice).unwrap_or(&[]);
            (0..m).map(move |k| d.get(k).copied().unwrap_or(Scalar::ZERO))
        })
        .collect();
    masked.add_public(&delta).unwrap_or(masked)
}

/// Test and benchmark dealer: shares of `values` for `n` parties, as a
/// trusted party would hand them out. **Not a protocol**: whoever runs it
/// knows every share. The online phase's tests and benchmarks use it for
/// triples; real triples come from the preprocessing.
pub fn deal<R: RngCore + CryptoRng + ?Sized>(
    values: &[Scalar],
    n: usize,
    rng: &mut R,
) -> Vec<Shares> {
    let m = values.len();
    let mut parts: Vec<[Vec<Scalar>; 3]> = (0..n)
        .map(|_| std::array::from_fn(|_| (0..m).map(|_| random_scalar(rng)).collect()))
        .collect();
    // Fix P_0's share so that the shares sum to the value.
    for k in 0..m {
        let others: Scalar = parts.iter().skip(1).map(|p| p[0][k]).sum();
        parts[0][0][k] = values[k] - others;
    }
    let coms: Vec<Vec<Point>> = parts
        .iter()
        .map(|[x, r1, r2]| (0..m).map(|k| commit(x[k], r1[k], r2[k])).collect())
        .collect();
    parts
        .into_iter()
        .enumerate()
        .map(|(me, [x, r1, r2])| Shares {
            me,
            x,
            r1,
            r2,
            coms: Coms::Points(coms.clone()),
        })
        .collect()
}

/// Test and benchmark dealer of `m` multiplication triples `(a, b, c = ab)`
/// for `n` parties (see [`deal`]: a trusted dealer, not a protocol).
/// Element `i` is party `i`'s `[a, b, c]`.
pub fn deal_triples<R: RngCore + CryptoRng + ?Sized>(
    n: usize,
    m: usize,
    rng: &mut R,
) -> Vec<[Shares; 3]> {
    let a: Vec<Scalar> = (0..m).map(|_| random_scalar(rng)).collect();
    let b: Vec<Scalar> = (0..m).map(|_| random_scalar(rng)).collect();
    let c: Vec<Scalar> = a.iter().zip(&b).map(|(a, b)| a * b).collect();
    let (sa, sb, sc) = (deal(&a, n, rng), deal(&b, n, rng), deal(&c, n, rng));
    sa.into_iter()
        .zip(sb)
        .zip(sc)
        .map(|((a, b), c)| [a, b, c])
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::rng::Rng;

    fn open_locally(parties: &[Shares]) -> Vec<Scalar> {
        let openings: Vec<Vec<Scalar>> = parties.iter().map(|s| opening(s, s.len())).collect();
        for s in parties {
            assert!(openings_ok(s, &openings, Block::from_u64s(8, 1)));
            for (j, o) in openings.iter().enumerate() {
                assert!(opening_ok(s, j, o, Block::from_u64s(9, j as u64)));
            }
        }
        open_values(&openings, parties[0].len())
    }

    /// Every party's shares of the products `x·y` with dealt triples `t`
    /// (the openings checked locally), and the opened `d ‖ e`.
    fn products(sx: &[Shares], sy: &[Shares], t: &[[Shares; 3]]) -> (Vec<Shares>, Vec<Scalar>) {
        let masked: Vec<Shares> = (0..sx.len())
            .map(|i| mul_masked(&sx[i], &sy[i], &t[i][0], &t[i][1]))
            .collect();
        let de = open_locally(&masked);
        let z = (0..sx.len())
            .map(|i| mul_finish(&sx[i], &sy[i], &t[i][2], &de))
            .collect();
        (z, de)
    }

    /// The points of `s` computed from scratch (a copy with its deferred
    /// commitments forced).
    fn forced(s: &Shares) -> Vec<Vec<Point>> {
        s.pts().to_vec()
    }

    #[test]
    fn deferred_product_commitments_are_checked_and_blame_the_sender() {
        let mut rng = Rng::deterministic_for_tests(5);
        let m = 12;
        let xs: Vec<Scalar> = (0..m).map(|_| random_scalar(&mut rng)).collect();
        let ys: Vec<Scalar> = (0..m).map(|_| random_scalar(&mut rng)).collect();
        let n = 3;
        let (sx, sy) = (deal(&xs, n, &mut rng), deal(&ys, n, &mut rng));
        let t = deal_triples(n, m, &mut rng);
        let (z, de) = products(&sx, &sy, &t);
        assert!(matches!(z[0].coms, Coms::Deferred(_)));
        // The deferred points are e·C_x + d·C_y + C_c (− de·G for P_0).
        let (d, e) = (&de[..m], &de[m..]);
        for j in 0..n {
            for k in 0..m {
                let mut want =
                    sx[0].pts()[j][k] * e[k] + sy[0].pts()[j][k] * d[k] + t[0][2].pts()[j][k];
                if j == 0 {
                    want -= RISTRETTO_BASEPOINT_POINT * (d[k] * e[k]);
                }
                assert_eq!(z[1].pts()[j][k], want);
            }
        }
        // Deferred add/sub/add_public agree with the computed points, and
        // products open to x·y (every check run on deferred commitments).
        let fresh: Vec<Shares> = (0..n)
            .map(|i| mul_finish(&sx[i], &sy[i], &t[i][2], &de))
            .collect();
        let sum = fresh[2].add(&fresh[2]).unwrap().sub(&sx[2]).unwrap();
        assert!(matches!(sum.coms, Coms::Deferred(_)));
        let mut plain = fresh[2].clone();
        plain.coms = Coms::Points(forced(&fresh[2]));
        let want = plain.add(&plain).unwrap().sub(&sx[2]).unwrap();
        assert_eq!(forced(&sum), forced(&want));
        let shifted = fresh[2].add_public(&xs).unwrap();
        assert_eq!(forced(&shifted), forced(&plain.add_public(&xs).unwrap()));
        let want: Vec<Scalar> = xs.iter().zip(&ys).map(|(x, y)| x * y).collect();
        assert_eq!(open_locally(&fresh), want);
        // A wrong opening of a product fails the joint check, and the
        // per-sender check (same weights) names exactly that sender.
        let mut openings: Vec<Vec<Scalar>> = fresh.iter().map(|s| opening(s, m)).collect();
        openings[1][2 * m + 5] += Scalar::ONE;
        let seed = Block::from_u64s(6, 7);
        for s in &fresh {
            assert!(!openings_ok(s, &openings, seed));
            let bad: Vec<usize> = (0..n)
                .filter(|&j| !opening_ok(s, j, &openings[j], seed))
                .collect();
            assert_eq!(bad, vec![1]);
        }
    }

    #[test]
    fn dealt_shares_open_to_the_values_and_linear_ops_are_local() {
        let mut rng = Rng::deterministic_for_tests(1);
        let xs: Vec<Scalar> = (1..6u64).map(Scalar::from).collect();
        let ys: Vec<Scalar> = (10..15u64).map(Scalar::from).collect();
        for n in [2, 3, 5] {
            let sx = deal(&xs, n, &mut rng);
            let sy = deal(&ys, n, &mut rng);
            assert!(sx.iter().all(Shares::own_commitments_match));
            assert_eq!(open_locally(&sx), xs);
            let c = Scalar::from(7u64);
            let lin: Vec<Shares> = sx
                .iter()
                .zip(&sy)
                .map(|(x, y)| x.add(y).unwrap().scale(c).add_public(&ys).unwrap())
                .collect();
            let want: Vec<Scalar> = xs.iter().zip(&ys).map(|(x, y)| (x + y) * c + y).collect();
            assert_eq!(open_locally(&lin), want);
        }
    }

    #[test]
    fn a_wrong_opening_fails_the_batched_check() {
        let mut rng = Rng::deterministic_for_tests(2);
        let xs: Vec<Scalar> = (0..40u64).map(Scalar::from).collect();
        let s = deal(&xs, 3, &mut rng);
        for field in 0..3 {
            let mut o = opening(&s[1], 40);
            o[field * 40 + 17] += Scalar::ONE;
            assert!(!opening_ok(&s[0], 1, &o, Block::from_u64s(3, 4)));
        }
        assert!(!opening_ok(&s[0], 1, &opening(&s[1], 40)[1..], Block::ZERO));
        assert!(!opening_ok(&s[0], 7, &opening(&s[1], 40), Block::ZERO));
    }

    #[test]
    fn multiplication_with_a_dealt_triple() {
        let mut rng = Rng::deterministic_for_tests(3);
        let m = 9;
        let xs: Vec<Scalar> = (0..m as u64).map(|k| Scalar::from(k * 31 + 5)).collect();
        let ys: Vec<Scalar> = (0..m as u64).map(|k| Scalar::from(k * 77 + 1)).collect();
        for n in [2, 3, 5] {
            let (sx, sy) = (deal(&xs, n, &mut rng), deal(&ys, n, &mut rng));
            let t = deal_triples(n, m, &mut rng);
            let (z, _) = products(&sx, &sy, &t);
            let want: Vec<Scalar> = xs.iter().zip(&ys).map(|(x, y)| x * y).collect();
            assert_eq!(open_locally(&z), want);
        }
    }

    #[test]
    fn mismatched_operands_are_typed_errors() {
        let mut rng = Rng::deterministic_for_tests(4);
        let a = deal(&[Scalar::ONE; 3], 2, &mut rng);
        let b = deal(&[Scalar::ONE; 2], 2, &mut rng);
        assert_eq!(
            a[0].add(&b[0]),
            Err(ShareError::Length { left: 3, right: 2 })
        );
        assert!(matches!(a[0].sub(&a[1]), Err(ShareError::Party { .. })));
        assert!(a[0].add_public(&[Scalar::ONE]).is_err());
        assert!(a[0].slice(2, 2).is_none());
        assert_eq!(a[0].slice(1, 2).map(|s| s.len()), Some(2));
        assert!(Shares::new(0, vec![Scalar::ONE], vec![], vec![], vec![vec![]]).is_err());
    }
}
