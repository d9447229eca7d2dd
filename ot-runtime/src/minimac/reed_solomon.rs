//! Systematic Reed–Solomon codes over GF(2^8), their Schur (component-wise)
//! products and membership tests: the codes of MiniMac (Damgård–Zakarias,
//! "Constant-Overhead Secure Computation of Boolean Circuits using
//! Preprocessing", TCC 2013, §2: a linear `[n, k, d]` code `C` whose
//! Schur square `C* = span{x ∘ y : x, y ∈ C}` still has large distance;
//! Damgård–Lauritsen–Toft, eprint 2014/289, use Reed–Solomon codes with
//! k = 85, n = 255).
//!
//! `RS[n, k]` here evaluates a polynomial `p` of degree `< k` at the field
//! points `0, 1, …, n−1` (as bytes, so `n ≤ 256`); it is systematic: the
//! message `m` is `(p(0), …, p(k−1))`, the codeword `(p(0), …, p(n−1))`.
//! The Schur product of two codewords evaluates `p·q` (degree `≤ 2k−2`),
//! so `C* = RS[n, 2k−1]` on the same points (a code of distance
//! `n − 2k + 2`) and its systematic part is the slot-wise product of the
//! messages. Encoding is the product of the message with a precomputed `k × (n−k)`
//! Lagrange matrix ([`crate::primitives::gf256::mat_mul_add`], GFNI when available),
//! for one message or many at once ([`ReedSolomon::encode_many`]).
#![forbid(unsafe_code)]

use crate::primitives::gf256::{inv, mat_mul_add, mul, mul_slices};

/// Why a code cannot be built.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodeError {
    /// Not `1 <= k <= n <= 256`.
    #[error("Reed-Solomon code: need 1 <= k <= n <= 256, got k = {k}, n = {n}")]
    Params {
        /// Message length.
        k: usize,
        /// Code length.
        n: usize,
    },
    /// The Schur square `RS[n, 2k − 1]` does not fit (`2k − 1 > n`).
    #[error("Reed-Solomon code: the Schur square of [n = {n}, k = {k}] needs 2k - 1 <= n")]
    NoSquare {
        /// Message length.
        k: usize,
        /// Code length.
        n: usize,
    },
}

/// A systematic Reed–Solomon code `RS[n, k]` over GF(2^8) (module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReedSolomon {
    k: usize,
    n: usize,
    /// Row `i` (length `n − k`): the Lagrange basis polynomial `L_i` of the
    /// points `0..k` evaluated at the points `k..n`.
    lagrange: Vec<u8>,
}

impl Default for ReedSolomon {
    /// The trivial code `RS[1, 1]`.
    fn default() -> ReedSolomon {
        ReedSolomon {
            k: 1,
            n: 1,
            lagrange: Vec::new(),
        }
    }
}

impl ReedSolomon {
    /// `RS[n, k]` on the points `0..n`.
    pub fn new(k: usize, n: usize) -> Result<ReedSolomon, CodeError> {
        if k == 0 || k > n || n > 256 {
            return Err(CodeError::Params { k, n });
        }
        let r = n - k;
        // Barycentric weights w_i = 1 / prod_{t != i} (x_i - x_t) over the
        // message points; L_i(x) = w_i * prod_t (x - x_t) / (x - x_i).
        let w: Vec<u8> = (0..k)
            .map(|i| {
                let d = (0..k)
                    .filter(|&t| t != i)
                    .fold(1u8, |acc, t| mul(acc, (i ^ t) as u8));
                inv(d)
            })
            .collect();
        let mut lagrange = vec![0u8; k * r];
        for j in k..n {
            let all = (0..k).fold(1u8, |acc, t| mul(acc, (j ^ t) as u8));
            for i in 0..k {
                lagrange[i * r + (j - k)] = mul(mul(w[i], all), inv((j ^ i) as u8));
            }
        }
        Ok(ReedSolomon { k, n, lagrange })
    }

    /// Message length `k`.
    pub fn k(&self) -> usize {
        self.k
    }

    /// Code length `n`.
    pub fn n(&self) -> usize {
        self.n
    }

    /// Minimum distance `n − k + 1` (RS codes are MDS).
    pub fn distance(&self) -> usize {
        self.n - self.k + 1
    }

    /// The Schur-square code `C* = RS[n, 2k − 1]` (module docs).
    pub fn square(&self) -> Result<ReedSolomon, CodeError> {
        if 2 * self.k - 1 > self.n {
            return Err(CodeError::NoSquare {
                k: self.k,
                n: self.n,
            });
        }
        ReedSolomon::new(2 * self.k - 1, self.n)
    }

    /// Writes the codeword of `msg` (`k` bytes) into `out` (`n` bytes):
    /// `out[..k] = msg`, `out[k..]` the redundancy. Shorter slices are
    /// treated as zero-padded / truncated.
    pub fn encode_into(&self, msg: &[u8], out: &mut [u8]) {
        let (k, r) = (self.k, self.n - self.k);
        let len = self.n.min(out.len());
        let out = &mut out[..len];
        let m = msg.len().min(k).min(out.len());
        out.fill(0);
        out[..m].copy_from_slice(&msg[..m]);
        if out.len() < self.n {
            return;
        }
        let (sys, red) = out.split_at_mut(k);
        mat_mul_add(red, sys, &self.lagrange, k, r);
    }

    /// The codewords of `msgs.len() / k` messages (`k` bytes each,
    /// concatenated) into `out` (`n` bytes each): one matrix product for
    /// the whole batch. Messages beyond `out`'s capacity are skipped.
    pub fn encode_many(&self, msgs: &[u8], out: &mut [u8]) {
        let (k, n, r) = (self.k, self.n, self.n - self.k);
        let count = (msgs.len() / k).min(out.len() / n);
        if r == 0 {
            out[..count * n].copy_from_slice(&msgs[..count * k]);
            return;
        }
        let mut red = vec![0u8; count * r];
        mat_mul_add(&mut red, &msgs[..count * k], &self.lagrange, k, r);
        for ((w, m), q) in out.chunks_mut(n).zip(msgs.chunks(k)).zip(red.chunks(r)) {
            w[..k].copy_from_slice(m);
            w[k..].copy_from_slice(&q[..r]);
        }
    }

    /// Row `i < k` of the redundancy matrix: the `n − k` redundancy
    /// coordinates of the codeword of the `i`-th unit message (so the
    /// codeword of `m` has redundancy `Σ_i m_i · row(i)`). Empty for `i ≥ k`.
    pub fn redundancy_row(&self, i: usize) -> &[u8] {
        let r = self.n - self.k;
        self.lagrange.get(i * r..(i + 1) * r).unwrap_or(&[])
    }

    /// The codeword of `msg` as a new vector.
    pub fn encode(&self, msg: &[u8]) -> Vec<u8> {
        let mut out = vec![0u8; self.n];
        self.encode_into(msg, &mut out);
        out
    }

    /// Whether `word` (`n` bytes) is a codeword: its redundancy equals the
    /// re-encoding of its systematic part.
    pub fn contains(&self, word: &[u8]) -> bool {
        word.len() == self.n && self.encode(&word[..self.k]) == word
    }

    /// Whether every `n`-byte word of `words` is a codeword (and
    /// `words.len()` a multiple of `n`): [`ReedSolomon::contains`] for a
    /// whole batch, re-encoding the systematic parts as one matrix
    /// product (no allocation per word).
    pub fn contains_all(&self, words: &[u8]) -> bool {
        let (k, n, r) = (self.k, self.n, self.n - self.k);
        if !words.len().is_multiple_of(n) {
            return false;
        }
        let count = words.len() / n;
        let mut sys = Vec::with_capacity(count * k);
        for w in words.chunks_exact(n) {
            sys.extend_from_slice(&w[..k]);
        }
        let mut red = vec![0u8; count * r];
        mat_mul_add(&mut red, &sys, &self.lagrange, k, r);
        words
            .chunks_exact(n)
            .zip(red.chunks_exact(r.max(1)))
            .all(|(w, q)| w[k..] == q[..r])
    }
}

/// The Schur product `a ∘ b` (component-wise) into `out`.
pub fn schur_into(a: &[u8], b: &[u8], out: &mut [u8]) {
    mul_slices(out, a, b);
}

/// The Schur product `a ∘ b` as a new vector (length: the shorter input).
pub fn schur(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = vec![0u8; a.len().min(b.len())];
    schur_into(a, b, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`ReedSolomon::contains_all`] agrees with [`ReedSolomon::contains`]
    /// word by word: codewords pass, one changed byte in any word fails,
    /// a length that is not a multiple of `n` fails.
    #[test]
    fn contains_all_is_contains_of_every_word() {
        let c = ReedSolomon::new(7, 20).unwrap();
        let msgs: Vec<u8> = (0..5 * 7).map(|i| (i * 37 + 11) as u8).collect();
        let mut words = vec![0u8; 5 * 20];
        c.encode_many(&msgs, &mut words);
        assert!(c.contains_all(&words));
        assert!(c.contains_all(&[]));
        assert!(!c.contains_all(&words[..99]));
        for at in [0, 6, 7, 45, 99] {
            let mut bad = words.clone();
            bad[at] ^= 0x40;
            assert!(!c.contains_all(&bad), "byte {at}");
            assert!(!bad.chunks(20).all(|w| c.contains(w)));
        }
    }

    /// Evaluates the interpolating polynomial of `msg` (points 0..k) at `x`
    /// by plain Lagrange interpolation: an independent reference.
    fn eval(msg: &[u8], x: u8) -> u8 {
        let k = msg.len();
        let mut acc = 0u8;
        for (i, &m) in msg.iter().enumerate() {
            let mut num = 1u8;
            let mut den = 1u8;
            for t in 0..k {
                if t != i {
                    num = mul(num, x ^ t as u8);
                    den = mul(den, (i ^ t) as u8);
                }
            }
            acc ^= mul(m, mul(num, inv(den)));
        }
        acc
    }

    #[test]
    fn bad_parameters_are_typed_errors() {
        assert_eq!(
            ReedSolomon::new(0, 10),
            Err(CodeError::Params { k: 0, n: 10 })
        );
        assert_eq!(
            ReedSolomon::new(11, 10),
            Err(CodeError::Params { k: 11, n: 10 })
        );
        assert_eq!(
            ReedSolomon::new(2, 257),
            Err(CodeError::Params { k: 2, n: 257 })
        );
        let c = ReedSolomon::new(86, 170).unwrap();
        assert_eq!(c.square(), Err(CodeError::NoSquare { k: 86, n: 170 }));
        assert_eq!(
            ReedSolomon::new(85, 255).unwrap().square().unwrap().k(),
            169
        );
    }

    #[test]
    fn a_single_error_leaves_both_codes() {
        let c = ReedSolomon::new(85, 255).unwrap();
        let sq = c.square().unwrap();
        let mut w = c.encode(&[7u8; 85]);
        assert!(c.contains(&w) && sq.contains(&w));
        w[200] ^= 1;
        assert!(!c.contains(&w) && !sq.contains(&w));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        #[test]
        fn codewords_are_systematic_evaluations(
            (k, n, msg) in (1usize..40).prop_flat_map(|k| (Just(k), k..64usize, proptest::collection::vec(any::<u8>(), k)))
        ) {
            let c = ReedSolomon::new(k, n).unwrap();
            let w = c.encode(&msg);
            prop_assert_eq!(&w[..k], &msg[..]);
            for (j, &v) in w.iter().enumerate() {
                prop_assert_eq!(v, eval(&msg, j as u8));
            }
            prop_assert!(c.contains(&w));
            // The batch encoder agrees with one-at-a-time encoding.
            let two: Vec<u8> = msg.iter().chain(msg.iter().rev()).copied().collect();
            let mut many = vec![0u8; 2 * n];
            c.encode_many(&two, &mut many);
            prop_assert_eq!(&many[..n], &w[..]);
            prop_assert_eq!(&many[n..], &c.encode(&two[k..])[..]);
        }

        #[test]
        fn schur_products_lie_in_the_square_code(
            a in proptest::collection::vec(any::<u8>(), 20),
            b in proptest::collection::vec(any::<u8>(), 20),
            e in 1u8..=255, pos in 0usize..60,
        ) {
            let c = ReedSolomon::new(20, 60).unwrap();
            let sq = c.square().unwrap();
            let p = schur(&c.encode(&a), &c.encode(&b));
            prop_assert!(sq.contains(&p));
            // Its systematic part is the slot-wise product of the messages.
            prop_assert_eq!(&p[..20], &schur(&a, &b)[..]);
            let mut bad = p.clone();
            bad[pos] ^= e;
            prop_assert!(!sq.contains(&bad));
        }
    }
}
