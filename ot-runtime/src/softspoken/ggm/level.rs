//! The level kernel: replaces level `l − 1` of every tree by level `l` in
//! place, in the interleaved (node-major) layout of the [module
//! documentation](super): node `i` of tree `t` at index `i · trees + t`.

use super::GGM_RIGHT_OFFSET;
use crate::primitives::aes::{Op, FIXED_KEY_AES};
use crate::Block;

/// Parents expanded per AES call: the `2 · 256` MMO inputs (8 KiB) stay in
/// L1 between being laid out and being encrypted, and each call is long
/// enough to keep the VAES backend's 32 blocks in flight.
const CHUNK: usize = 256;

/// Lays out the MMO inputs of `parents` (trees `t0..`) with the level's
/// offsets `tweaks` (same trees): `s ⊕ τ` in `left`, `s ⊕ τ ⊕ c_1` in
/// `right`.
#[inline]
pub(super) fn lay_out(
    parents: &[Block],
    tweaks: &[Block],
    left: &mut [Block],
    right: &mut [Block],
) {
    for (((a, b), &p), &w) in left.iter_mut().zip(right).zip(parents).zip(tweaks) {
        *a = p ^ w;
        *b = *a ^ GGM_RIGHT_OFFSET;
    }
}

/// Replaces level `l − 1` (`trees · 2^(l−1)` nodes at the front of `buf`)
/// by level `l`: parent `(i, t)` at `i · trees + t` gets its left child at
/// `2i · trees + t` and its right child at `(2i + 1) · trees + t`, each
/// `H(s ⊕ τ_{l,t} ⊕ c_b)` with `H` the fixed-key MMO hash and `tweaks` the
/// level's offsets `τ_{l,·}` (one per tree). Work runs from the last node
/// row to the first, a chunk's parents all read before its children are
/// stored (the children of row `i ≥ 1` lie at or after `2i · trees`, past
/// every unread parent), so no unread parent is overwritten. Rows of few
/// trees are grouped so that every AES call has up to [`CHUNK`] parents.
pub(super) fn expand_level(buf: &mut [Block], trees: usize, l: usize, tweaks: &[Block]) {
    if trees == 0 {
        return;
    }
    let half = 1usize << (l - 1);
    let mut input = [Block::ZERO; 2 * CHUNK];
    if trees <= CHUNK {
        let rows = CHUNK / trees;
        for i0 in (0..half).step_by(rows).rev() {
            let i1 = (i0 + rows).min(half);
            let parents = &buf[i0 * trees..i1 * trees];
            let scratch = &mut input[..2 * parents.len()];
            for (pair, row) in scratch
                .chunks_exact_mut(2 * trees)
                .zip(parents.chunks_exact(trees))
            {
                let (left, right) = pair.split_at_mut(trees);
                lay_out(row, tweaks, left, right);
            }
            let out = &mut buf[2 * i0 * trees..2 * i1 * trees];
            FIXED_KEY_AES.run(Op::Mmo, Some(scratch), out);
        }
    } else {
        for i in (0..half).rev() {
            for t0 in (0..trees).step_by(CHUNK).rev() {
                let len = CHUNK.min(trees - t0);
                let (left, right) = input.split_at_mut(CHUNK);
                let (left, right) = (&mut left[..len], &mut right[..len]);
                let at = i * trees + t0;
                lay_out(&buf[at..at + len], &tweaks[t0..], left, right);
                let l_at = 2 * i * trees + t0;
                let r_at = l_at + trees;
                FIXED_KEY_AES.run(Op::Mmo, Some(left), &mut buf[l_at..l_at + len]);
                FIXED_KEY_AES.run(Op::Mmo, Some(right), &mut buf[r_at..r_at + len]);
            }
        }
    }
}
