//! Regression test of the noise layout (test only): from the public code of
//! a run (the expander positions derived from the code seed), the exact
//! bias of every choice bit `x_i = H·e` implied by the regular-noise
//! structure, and the sum of squared biases over all `n` outputs.
//!
//! With the expander row `i` at positions `p_1..p_11`, `x_i = ⊕_k (A·e)_{p_k}`
//! and `(A·e)_p = ⊕_t [c_t ≤ p]` for the noisy coordinates `c_t`, so
//! `x_i = ⊕_t #{k : c_t ≤ p_k}` and, the trees being independent with
//! `α_t` uniform, the bias is `E[(−1)^{x_i}] = Π_t b_t` with
//! `b_t = 2^−h Σ_α (−1)^{#{k : L(t, α) ≤ p_k}}` for the layout `L`. Both
//! layouts are increasing in `α`, so with `m_k = #{α : L(t, α) ≤ p_k}`
//! sorted, `b_t` is an alternating sum of the gaps between the `m_k`.
//!
//! A sum of squared biases `S` is what a distinguisher that weighs every
//! output by its public bias exploits (its advantage over `n` outputs grows
//! like `√S`). The contiguous layout (tree `t` on `t·2^h .. (t+1)·2^h`) makes
//! `b_t = 1` for every tree that no position hits and `|1 − 2(o+1)/2^h|`
//! for a position at offset `o`, so `S ≈ n · 3^−11`; the interleaved layout
//! as built ([`super::spcot::noise_coordinate`]) mixes every tree into every
//! accumulated bit.

use super::ea::{for_each_row, try_regular_noise_choices};
use super::params::{depth_for, EXPANDER_WEIGHT, NOISE_WEIGHT};
use super::silent_code_seed;
use super::spcot::noise_coordinate;
use crate::Block;

/// A noise layout: leaf `α` of tree `t` at coordinate `L(t, α)`.
#[derive(Clone, Copy, Debug)]
enum Layout {
    /// `α · trees + t` (as built).
    Interleaved { trees: usize, width: usize },
    /// `t · 2^h + α` (the layout before the fix).
    Contiguous { trees: usize, width: usize },
}

/// Squared biases below this are counted as this (an upper bound): the
/// product over the remaining trees only shrinks.
const FLOOR: f64 = 1.0 / (1u128 << 100) as f64;

impl Layout {
    fn trees(self) -> usize {
        match self {
            Layout::Interleaved { trees, .. } | Layout::Contiguous { trees, .. } => trees,
        }
    }

    fn width(self) -> usize {
        match self {
            Layout::Interleaved { width, .. } | Layout::Contiguous { width, .. } => width,
        }
    }

    /// `#{α : L(t, α) ≤ p}`.
    fn count_le(self, t: usize, p: usize) -> usize {
        match self {
            Layout::Interleaved { trees, width } => {
                let (q, r) = (p / trees, p % trees);
                (q + usize::from(r >= t)).min(width)
            }
            Layout::Contiguous { width, .. } => (p + 1).saturating_sub(t * width).min(width),
        }
    }

    /// The squared bias of the choice bit of expander row `pos` (floored at
    /// [`FLOOR`]).
    fn squared_bias(self, pos: &[usize; EXPANDER_WEIGHT]) -> f64 {
        let width = self.width();
        let mut sq = 1.0f64;
        let mut m = [0usize; EXPANDER_WEIGHT];
        for t in 0..self.trees() {
            for (c, &p) in m.iter_mut().zip(pos) {
                *c = self.count_le(t, p);
            }
            m.sort_unstable();
            // α in [m_(i), m_(i+1)) is at or below 11 − i positions.
            let mut sum = 0i64;
            let mut prev = 0usize;
            for (i, &c) in m.iter().chain(&[width]).enumerate() {
                let sign = if (EXPANDER_WEIGHT - i).is_multiple_of(2) {
                    1
                } else {
                    -1
                };
                sum += sign * (c - prev) as i64;
                prev = c;
            }
            let b = sum as f64 / width as f64;
            sq *= b * b;
            if sq < FLOOR {
                return FLOOR;
            }
        }
        sq
    }
}

/// The sum of squared biases over the first `rows` outputs of the run with
/// code seed `seed`, scaled to all `n` outputs, and the largest bias.
fn bias_sum(layout: Layout, seed: Block, n: usize, rows: usize) -> (f64, f64) {
    let len = layout.trees() * layout.width();
    let (mut sum, mut max) = (0.0f64, 0.0f64);
    for_each_row(seed, len, rows, |_, pos| {
        let sq = layout.squared_bias(pos);
        sum += sq;
        max = max.max(sq);
    });
    (sum * n as f64 / rows as f64, max.sqrt())
}

/// A run's shape and code seed at `n` outputs (the protocol's depth).
fn run_shape(n: usize, salt: u128) -> (usize, usize, Block) {
    let depth = depth_for(n).unwrap();
    (
        1usize << depth,
        depth,
        silent_code_seed(Block(salt), n, depth),
    )
}

#[test]
fn the_closed_form_counts_the_built_layout() {
    // Layout::Interleaved is the kernels' layout: its count agrees with a
    // direct count over spcot::noise_coordinate.
    for (trees, depth) in [(3usize, 4usize), (NOISE_WEIGHT, 3)] {
        let width = 1usize << depth;
        let layout = Layout::Interleaved { trees, width };
        for t in 0..trees {
            for p in (0..trees * width).step_by(7) {
                let direct = (0..width)
                    .filter(|&a| noise_coordinate(t, a, trees) <= p)
                    .count();
                assert_eq!(layout.count_le(t, p), direct, "tree {t} p {p}");
            }
        }
    }
}

#[test]
fn choice_bits_of_the_interleaved_layout_have_negligible_bias() {
    // Every output of a run at n = 2^20, exactly (up to the floor).
    let n = 1usize << 20;
    for salt in [1u128, 2] {
        let (width, _, seed) = run_shape(n, salt);
        let layout = Layout::Interleaved {
            trees: NOISE_WEIGHT,
            width,
        };
        let (sum, max) = bias_sum(layout, seed, n, n);
        eprintln!(
            "interleaved, salt {salt}: sum of squared biases 2^{:.1}, largest bias 2^{:.1}",
            sum.log2(),
            max.log2()
        );
        assert!(sum < 2f64.powi(-20), "sum of squared biases {sum:e}");
    }
}

#[test]
fn choice_bits_of_the_contiguous_layout_are_biased() {
    // The layout before the fix: about n · 3^-11 (5.9 at 2^20), estimated
    // from the first 2^13 outputs.
    let n = 1usize << 20;
    let (width, _, seed) = run_shape(n, 1);
    let layout = Layout::Contiguous {
        trees: NOISE_WEIGHT,
        width,
    };
    let (sum, max) = bias_sum(layout, seed, n, 1 << 13);
    let expect = n as f64 / 3f64.powi(11);
    eprintln!(
        "contiguous: sum of squared biases {sum:.2} (n·3^-11 = {expect:.2}), largest bias {max:.3}"
    );
    assert!(sum > expect / 2.0 && sum < expect * 2.0, "{sum}");
}

/// The exact sum of squared biases of the choice bits as the kernel
/// [`try_regular_noise_choices`] computes them (whatever layout it builds):
/// `H` is linear, so `x(α) = ⊕_t f_t(α_t)` and changing tree `t`'s index
/// alone from 0 to `a` flips `f_t(a) ⊕ f_t(0)`; `|b_t|` of output `i` is
/// the mean of `(−1)` to those flips over all `a`, and the squared bias
/// the product of `b_t²` over the trees.
fn kernel_bias_sum(n: usize, salt: u128) -> f64 {
    let (width, depth, seed) = run_shape(n, salt);
    let mut alphas = vec![0usize; NOISE_WEIGHT];
    let x0 = try_regular_noise_choices(&alphas, depth, seed, n).unwrap();
    let (mut sq, mut sums) = (vec![1.0f64; n], vec![0i64; n]);
    for t in 0..NOISE_WEIGHT {
        sums.fill(0);
        for a in 0..width {
            alphas[t] = a;
            let x = try_regular_noise_choices(&alphas, depth, seed, n).unwrap();
            for (i, s) in sums.iter_mut().enumerate() {
                *s += if x.get(i) == x0.get(i) { 1 } else { -1 };
            }
        }
        alphas[t] = 0;
        for (q, &s) in sq.iter_mut().zip(&sums) {
            let b = s as f64 / width as f64;
            *q *= b * b;
        }
    }
    sq.iter().sum()
}

#[test]
fn choice_bits_of_the_kernel_have_negligible_bias() {
    // End to end through the choice-bit kernel at n = 2^10 (every output,
    // every tree, every index): the contiguous layout gives about
    // n · 3^-11 = 0.006 here, the interleaved one below 2^-20.
    let n = 1usize << 10;
    let sum = kernel_bias_sum(n, 5);
    eprintln!("kernel at n = 2^10: sum of squared biases {sum:e}");
    assert!(sum < 2f64.powi(-20), "sum of squared biases {sum:e}");
}
