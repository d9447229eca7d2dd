//! The small-field VOLE kernels of SoftSpokenOT [Roy22, §3.1, Fig. 7]
//! (eprint 2022/192): from the `2^k` leaf seeds of each all-but-one OT
//! ([`crate::softspoken::ggm`]), the PRG rows of the leaves are summed into a VOLE over
//! `F_2` with a global key in `F_2^k`.
//!
//! Per tree `t` of depth `k` (leaf `x` in `0..2^k` read as a vector of
//! `F_2^k`, bit `b` of `x` = coordinate `b`), with `G(s)` the PRG row of
//! seed `s` (the AES-CTR stream of [`crate::primitives::prg`], as
//! [`crate::otext::stream::prg_rows`] produces it):
//!
//! * the VOLE sender (it knows every leaf) gets `u_t = ⊕_x G(s_{t,x})` and
//!   `V_{t,b} = ⊕_{x : x_b = 1} G(s_{t,x})` for `b < k`;
//! * the VOLE receiver (it knows `Δ_t` and every leaf except `x = Δ_t`)
//!   gets `W_{t,b} = ⊕_{x ≠ Δ_t : (x ⊕ Δ_t)_b = 1} G(s_{t,x})`,
//!
//! so that `W_{t,b} = V_{t,b} ⊕ Δ_{t,b} · u_t`: the `k` rows are the
//! coordinates of `Σ_x x·G(s_x)` and `Σ_x (x ⊕ Δ)·G(s_x)` of [Roy22, §3.1],
//! and the punctured leaf never matters because its coefficient
//! `Δ_t ⊕ Δ_t` is zero.
//!
//! This is where SoftSpoken spends its `2^k / k` PRG work per OT, so the
//! kernels are streamed like those of [`crate::otext::stream`] (same chunk
//! convention: a [`Span`] of columns, PRG counter `span.offset / 128`)
//! and tiled by 32 column blocks; within a tile, groups of up to 8 leaves
//! of a tree are expanded and summed in registers by the fused kernel of
//! `fused` (the leaves' PRG outputs never reach memory), and the group
//! sums continue along the cube schedule of [`vole_sender`].

use crate::otext::stream::PrgKey;
use crate::primitives::bits::{check_len, ShapeError};
use crate::primitives::span::Span;
use crate::primitives::xor::{xor_into, xor_masked_into};
use crate::{BitMatrix, Block};

/// Largest supported tree depth `k` (SoftSpoken's largest practical
/// parameter: `2^k / k = 32` PRG blocks per OT at `k = 8`).
pub const MAX_VOLE_DEPTH: usize = 8;

mod fused;

pub(crate) use fused::MAX_GROUP_DEPTH;
use fused::{group_sums, put, Group};

/// The OT sender's correction of one tile for [`sums_tile`]: rows
/// `t·k + b` of `V` get `c_t & masks[t·k + b]` ([Roy22, Fig. 8]:
/// `Q = W ⊕ Δ·c`, `masks` all ones where the bit of `Δ` is set), with row
/// `t` of `c` at `c[t·cbpr + col ..][..tb]` for `t < c.len() / cbpr`
/// (missing rows read as zero).
pub(crate) struct TileCorr<'a> {
    pub(crate) c: &'a [Block],
    pub(crate) cbpr: usize,
    pub(crate) col: usize,
    pub(crate) masks: &'a [u64],
}

/// Column blocks per tile: 32 blocks (512 bytes a row); the `k` partial
/// sums of the cross-group schedule (at most 4 KiB) stay in L1.
pub(crate) const TILE_BLOCKS: usize = 32;

/// Checks `k` and the leaf count; the number of trees.
pub(crate) fn check_shape(
    what: &'static str,
    leaves: usize,
    k: usize,
) -> Result<usize, ShapeError> {
    if k == 0 || k > MAX_VOLE_DEPTH || !leaves.is_multiple_of(1 << k) {
        return Err(ShapeError::Shape {
            what,
            rows: leaves,
            cols: k,
        });
    }
    Ok(leaves >> k)
}

/// Reusable per-call scratch: the current group sum, the pending left
/// partial sums of the cross-group schedule and the portable path's rows.
pub(crate) struct Scratch {
    node: Vec<Block>,
    stack: Vec<Block>,
    rows: Vec<Block>,
    /// Leaf 0 of every tree is known to be unused (its coefficient is 0 in
    /// every `V_b`): its PRG row is taken as zero instead of expanded.
    pub(crate) skip_first: bool,
}

impl Scratch {
    /// Empty scratch (grown on first use).
    pub(crate) fn new() -> Scratch {
        Scratch {
            node: Vec::new(),
            stack: Vec::new(),
            rows: Vec::new(),
            skip_first: false,
        }
    }
}

/// Where one tile of [`sums_tile`] sits: stream blocks
/// `counter..counter + tb` of every leaf, written to columns (blocks)
/// `j0..j0 + tb` of outputs with `bpr` blocks a row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Tile {
    /// The tile's first AES-CTR stream block.
    pub(crate) counter: usize,
    /// The tile's width in blocks.
    pub(crate) tb: usize,
    /// Blocks per output row.
    pub(crate) bpr: usize,
    /// The tile's first block in an output row.
    pub(crate) j0: usize,
}

/// What [`sums_tile`] folds into the tile's outputs as it writes them.
#[derive(Clone, Copy, Default)]
pub(crate) struct Fold<'a> {
    /// The tile's `tb` blocks XORed into every `u_t`.
    pub(crate) mask: Option<&'a [Block]>,
    /// The masked corrections XORed into every `V` row.
    pub(crate) corr: Option<&'a TileCorr<'a>>,
}

/// One tile (see [`Tile`]) of every tree: `u_t = ⊕_x G(s_x)`
/// and `V_{t,b} = ⊕_{x_b = 1} G(s_x)` (overwritten: the tile's previous
/// contents do not matter). Per tree, groups of `2^g` leaves
/// (`g = min(k, 3)`) go through the fused kernel ([`fused`]: AES and the
/// first `g` cube levels in registers, `V_b` for `b < g` accumulated in
/// place); the group sums continue along the cube as a binary counter
/// (levels `g..k`). With `fold.mask` (the tile's `tb` blocks), every
/// `u_t` is written as `u_t ⊕ mask` (the receiver's corrections
/// `u_t ⊕ r`). With `fold.corr` and `k <= MAX_GROUP_DEPTH` (one group a tree), every `V` row is
/// written with its masked correction XORed in (see [`TileCorr`]); for
/// larger `k`, `corr` is ignored.
pub(crate) fn sums_tile(
    leaves: &[PrgKey],
    k: usize,
    tile: Tile,
    s: &mut Scratch,
    u: &mut [Block],
    v: &mut [Block],
    fold: Fold<'_>,
) {
    let Tile {
        counter,
        tb,
        bpr,
        j0,
    } = tile;
    let Fold { mask, corr } = fold;
    let g = k.min(MAX_GROUP_DEPTH);
    let gl = 1usize << g;
    let ctr = counter as u64;
    s.stack.resize(k * tb, Block::ZERO);
    s.node.resize(tb, Block::ZERO);
    for (gi, gkeys) in leaves.chunks_exact(gl).enumerate() {
        let leaf = gi * gl;
        let t = leaf >> k;
        let pos = leaf & ((1 << k) - 1);
        let vt = &mut v[t * k * bpr..(t + 1) * k * bpr];
        {
            // The first group of a tree stores its V_b, later ones add.
            let mut rows: [&mut [Block]; MAX_GROUP_DEPTH] = Default::default();
            for (slot, row) in rows.iter_mut().zip(vt.chunks_exact_mut(bpr)) {
                *slot = &mut row[j0..j0 + tb];
            }
            let node = if g == k {
                &mut u[t * bpr + j0..][..tb]
            } else {
                &mut s.node[..]
            };
            let grp = Group {
                keys: gkeys,
                counter: ctr,
                skip_first: s.skip_first && pos == 0,
                first: pos == 0,
                mask: if g == k { mask } else { None },
                corr: corr.filter(|_| g == k).and_then(|tc| {
                    let row = tc.c.get(t * tc.cbpr + tc.col..)?.get(..tb)?;
                    let mut m = [0u64; MAX_GROUP_DEPTH];
                    for (b, mb) in m.iter_mut().enumerate().take(g) {
                        *mb = tc.masks.get(t * k + b).copied().unwrap_or(0);
                    }
                    Some((row, m))
                }),
            };
            group_sums(&grp, node, &mut rows[..g], &mut s.rows);
        }
        if g == k {
            continue;
        }
        // Across the groups of a tree: a binary counter over their sums.
        // An even node waits on the stack of its level; an odd one adds
        // into V of its level, absorbs its left sibling and carries one
        // level up; the level-k node is `u_t`.
        let node = &mut s.node[..];
        let (mut level, mut idx) = (g, pos >> g);
        loop {
            if level == k {
                let ut = &mut u[t * bpr + j0..][..tb];
                ut.copy_from_slice(node);
                if let Some(m) = mask {
                    xor_into(ut, m);
                }
                break;
            }
            let pending = &mut s.stack[level * tb..(level + 1) * tb];
            if idx & 1 == 0 {
                pending.copy_from_slice(node);
                break;
            }
            // The first odd node of a level is its first contribution.
            put(&mut vt[level * bpr + j0..][..tb], node, idx == 1);
            xor_into(node, pending);
            level += 1;
            idx >>= 1;
        }
    }
}

/// Clears the bits past `cols` in the last block of every row.
fn clear_padding(m: &mut BitMatrix) {
    let cols = m.cols();
    if cols.is_multiple_of(128) {
        return;
    }
    let bpr = m.blocks_per_row();
    let mask = Block((1u128 << (cols % 128)) - 1);
    for row in m.as_blocks_mut().chunks_mut(bpr) {
        if let Some(last) = row.last_mut() {
            *last &= mask;
        }
    }
}

/// The shared driver: tile by tile, the sender's sums of every tree into
/// `u` (`trees x len`) and `v` (`trees * k x len`), then
/// `finish(u, v, bpr, j0, tb)` post-processes the tile's columns
/// `j0..j0 + tb` (the receiver's correction).
fn sums_chunk(
    leaves: &[PrgKey],
    k: usize,
    span: Span,
    u: &mut BitMatrix,
    v: &mut BitMatrix,
    mut finish: impl FnMut(&[Block], &mut [Block], usize, usize, usize),
) {
    let Span { offset, len } = span;
    let trees = leaves.len() >> k;
    u.reset(trees, len);
    v.reset(trees * k, len);
    let bpr = u.blocks_per_row();
    let base = offset / 128;
    let mut s = Scratch::new();
    let (ub, vb) = (u.as_blocks_mut(), v.as_blocks_mut());
    let mut j0 = 0;
    while j0 < bpr {
        let tb = TILE_BLOCKS.min(bpr - j0);
        let counter = base.saturating_add(j0);
        let tile = Tile {
            counter,
            tb,
            bpr,
            j0,
        };
        sums_tile(leaves, k, tile, &mut s, ub, vb, Fold::default());
        finish(ub, vb, bpr, j0, tb);
        j0 += tb;
    }
    clear_padding(u);
    clear_padding(v);
}

/// The VOLE sender's chunk [Roy22, §3.1, Fig. 7]:
/// columns `span` of `u` (`trees x len`, row `t` =
/// `⊕_x G(s_{t,x})`) and `V` (`trees * k x len`, row `t * k + b` =
/// `⊕_{x : x_b = 1} G(s_{t,x})`), where `leaves[t * 2^k + x]` is the key of
/// `s_{t,x}` (tree-major, as [`crate::softspoken::ggm::ggm_expand`] lays out leaves).
/// Both outputs are reset to their shapes (allocations reused) and fully
/// written, padding zero; the PRG starts at stream block `offset / 128`
/// (the chunk convention of [`crate::otext::stream`]).
///
/// Schedule: each leaf's chunk of its stream is produced once, in tiles of
/// 32 column blocks, and summed along the cube: at level `b` the two
/// halves of every `(b+1)`-subcube (leaves agreeing on bits `> b`) are
/// combined, the right half (`x_b = 1`) added into `V_b` and into the
/// left, whose sum moves up a level. Each of the `2^k − 1` internal nodes
/// costs two XORs (right half into `V_b`, right into left), `2^(k+1) − 2`
/// per tree against `(k/2 + 1)·2^k` for adding every leaf into `u` and its
/// `V_b`s. The first `g = min(k, 3)` levels run in registers, fused with
/// the AES-CTR of the group's `2^g` leaves (16 AES chains in flight on
/// VAES, see `fused`); only the group's `u_g` and its `g` partial `V_b`
/// rows are written. The group sums continue as a binary counter over
/// 32-block rows in L1 (an even node waits on a per-level stack until its
/// odd sibling arrives), `2^(k−g+1) − 2` row XORs per tree. For `k <= 3`
/// a tree is one group: its outputs are written once, straight from
/// registers.
///
/// Errors (nothing written): `k` outside `1..=MAX_VOLE_DEPTH` or
/// `leaves.len()` not a multiple of `2^k`.
pub fn vole_sender(
    leaves: &[PrgKey],
    k: usize,
    span: Span,
    u: &mut BitMatrix,
    v: &mut BitMatrix,
) -> Result<(), ShapeError> {
    check_shape("vole::vole_sender leaves / k", leaves.len(), k)?;
    sums_chunk(leaves, k, span, u, v, |_, _, _, _, _| {});
    Ok(())
}

/// The VOLE receiver's chunk [Roy22, §3.1, Fig. 7]: columns `span`
/// of `W` (`trees * k x len`, row `t * k + b` =
/// `⊕_{x ≠ Δ_t : (x ⊕ Δ_t)_b = 1} G(s_{t,x})`), with `leaves` laid out as
/// for [`vole_sender`] and `deltas[t] = Δ_t`. The key at the
/// punctured position `t * 2^k + Δ_t` is ignored (it may be the key of
/// the zero seed that [`crate::softspoken::ggm::ggm_punctured`] puts there). `w` is
/// reset and fully written, padding zero.
///
/// Schedule: the sender's schedule runs on the leaves as they are, giving
/// `(u', V')` with an arbitrary row `R` in place of `G(s_{t,Δ_t})`; then
/// `W_b = V'_b ⊕ Δ_b · u'` (one masked row XOR per `b`), because the
/// unknown row enters `V'_b` and `Δ_b · u'` with the same coefficient
/// `Δ_b` and cancels. Unlike re-indexing the leaves by `x ⊕ Δ_t`, this
/// keeps the memory access pattern and the work independent of the
/// secret `Δ_t` (the conditional XOR is [`xor_masked_into`]).
///
/// Errors (nothing written): as [`vole_sender`], and
/// `deltas.len()` ≠ the number of trees or some `Δ_t ≥ 2^k`.
pub fn vole_receiver(
    leaves: &[PrgKey],
    k: usize,
    deltas: &[usize],
    span: Span,
    w: &mut BitMatrix,
) -> Result<(), ShapeError> {
    let trees = check_shape("vole::vole_receiver leaves / k", leaves.len(), k)?;
    check_len("vole::vole_receiver deltas", trees, deltas.len())?;
    if let Some(&d) = deltas.iter().find(|&&d| d >> k != 0) {
        return Err(ShapeError::Index {
            what: "vole::vole_receiver delta",
            index: d,
            len: 1 << k,
        });
    }
    let mut u = BitMatrix::default();
    sums_chunk(leaves, k, span, &mut u, w, |ub, wb, bpr, j0, tb| {
        for (t, &d) in deltas.iter().enumerate() {
            let ut = &ub[t * bpr + j0..][..tb];
            for b in 0..k {
                let mask = 0u64.wrapping_sub(((d >> b) & 1) as u64);
                xor_masked_into(&mut wb[(t * k + b) * bpr + j0..][..tb], ut, mask);
            }
        }
    });
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`vole_sender`] over the whole width `cols`.
    fn sender_whole(
        leaves: &[PrgKey],
        k: usize,
        cols: usize,
    ) -> Result<(BitMatrix, BitMatrix), ShapeError> {
        let (mut u, mut v) = (BitMatrix::default(), BitMatrix::default());
        vole_sender(leaves, k, Span::whole(cols), &mut u, &mut v)?;
        Ok((u, v))
    }

    /// [`vole_receiver`] over the whole width `cols`.
    fn receiver_whole(
        leaves: &[PrgKey],
        k: usize,
        deltas: &[usize],
        cols: usize,
    ) -> Result<BitMatrix, ShapeError> {
        let mut w = BitMatrix::default();
        vole_receiver(leaves, k, deltas, Span::whole(cols), &mut w)?;
        Ok(w)
    }
    use crate::otext::stream::{prg_keys, prg_keys_on};
    use crate::primitives::aes::AesBackend;
    use crate::primitives::prg::Prg;
    use crate::{Bits, Rng};
    use proptest::prelude::*;
    use rand_core::RngCore;

    fn random_seeds(rng: &mut Rng, n: usize) -> Vec<Block> {
        let mut v = vec![Block::ZERO; n];
        rng.fill_blocks(&mut v);
        v
    }

    /// Straight from the definitions, bit by bit.
    fn reference(
        seeds: &[Block],
        k: usize,
        deltas: &[usize],
        cols: usize,
    ) -> (BitMatrix, BitMatrix, BitMatrix) {
        let trees = seeds.len() >> k;
        let rows: Vec<Bits> = seeds.iter().map(|&s| Prg::new(s).fill_bits(cols)).collect();
        let mut u = BitMatrix::new(trees, cols);
        let mut v = BitMatrix::new(trees * k, cols);
        let mut w = BitMatrix::new(trees * k, cols);
        for t in 0..trees {
            for x in 0..1usize << k {
                let row = &rows[(t << k) + x];
                for c in 0..cols {
                    if !row.get(c) {
                        continue;
                    }
                    u.set(t, c, !u.get(t, c));
                    for b in 0..k {
                        if (x >> b) & 1 == 1 {
                            v.set(t * k + b, c, !v.get(t * k + b, c));
                        }
                        if x != deltas[t] && ((x ^ deltas[t]) >> b) & 1 == 1 {
                            w.set(t * k + b, c, !w.get(t * k + b, c));
                        }
                    }
                }
            }
        }
        (u, v, w)
    }

    /// Random chunk boundaries (multiples of 128) covering `0..cols`.
    fn splits(rng: &mut Rng, cols: usize) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut off = 0;
        while off < cols {
            let blocks = 1 + (rng.next_u32() as usize % 40);
            let len = (blocks * 128).min(cols - off);
            out.push((off, len));
            off += len;
        }
        out
    }

    /// [`check_on`] with every AES backend this CPU has (VAES, AES-NI:
    /// the fused kernels; soft: the portable path).
    fn check(rng: &mut Rng, k: usize, trees: usize, cols: usize) {
        for backend in AesBackend::available() {
            check_on(rng, k, trees, cols, backend);
        }
    }

    /// Checks the kernels on `backend` against the reference, full and
    /// chunked, with the punctured key replaced by the zero seed's and by
    /// garbage.
    fn check_on(rng: &mut Rng, k: usize, trees: usize, cols: usize, backend: AesBackend) {
        let keys_of = |s: &[Block]| prg_keys_on(s, backend).unwrap_or_else(|| prg_keys(s));
        let seeds = random_seeds(rng, trees << k);
        let deltas: Vec<usize> = (0..trees)
            .map(|_| rng.next_u32() as usize % (1 << k))
            .collect();
        let (ru, rv, rw) = reference(&seeds, k, &deltas, cols);
        let keys = keys_of(&seeds);
        let (u, v) = sender_whole(&keys, k, cols).unwrap();
        assert_eq!(u, ru, "u k={k} trees={trees} cols={cols}");
        assert_eq!(v, rv, "V k={k} trees={trees} cols={cols}");

        let mut punct = seeds.clone();
        for (t, &d) in deltas.iter().enumerate() {
            punct[(t << k) + d] = if t % 2 == 0 {
                Block::ZERO
            } else {
                rng.next_block()
            };
        }
        let pkeys = keys_of(&punct);
        let w = receiver_whole(&pkeys, k, &deltas, cols).unwrap();
        assert_eq!(w, rw, "W k={k} trees={trees} cols={cols}");

        // W = V ⊕ Δ·u.
        for (t, &d) in deltas.iter().enumerate() {
            for b in 0..k {
                let mut want = v.row_bits(t * k + b);
                if (d >> b) & 1 == 1 {
                    want = &want ^ &u.row_bits(t);
                }
                assert_eq!(w.row_bits(t * k + b), want, "identity t={t} b={b}");
            }
        }

        // Chunks, concatenated, are the full width.
        let (mut cu, mut cv, mut cw) = Default::default();
        for (off, len) in splits(rng, cols) {
            vole_sender(&keys, k, Span::new(off, len), &mut cu, &mut cv).unwrap();
            vole_receiver(&pkeys, k, &deltas, Span::new(off, len), &mut cw).unwrap();
            for (chunk, full) in [(&cu, &u), (&cv, &v), (&cw, &w)] {
                assert_eq!((chunk.rows(), chunk.cols()), (full.rows(), len));
                let fresh = BitMatrix::from_blocks(chunk.rows(), len, chunk.as_blocks().to_vec());
                assert!(fresh.is_ok(), "padding bits set");
                for r in 0..chunk.rows() {
                    for c in 0..len {
                        assert_eq!(chunk.get(r, c), full.get(r, off + c), "chunk {off}+{c}");
                    }
                }
            }
        }
    }

    #[test]
    fn vole_matches_reference() {
        let mut rng = Rng::deterministic_for_tests(7);
        for k in 1..=MAX_VOLE_DEPTH {
            for trees in 1..3 {
                let cols = 1 + rng.next_u32() as usize % 1500;
                check(&mut rng, k, trees, cols);
            }
        }
        // Exact multiples, a single column and many tiles.
        check(&mut rng, 5, 2, 128);
        check(&mut rng, 3, 1, 1);
        check(&mut rng, 2, 3, 128 * 70 + 5);
        // Groups of 16 leaves spanning several trees (k < 4), many groups.
        check(&mut rng, 1, 21, 300);
        check(&mut rng, 2, 9, 4200);
        check(&mut rng, 3, 5, 257);
        check(&mut rng, 4, 3, 640);
    }

    #[test]
    fn vole_empty_shapes() {
        let (u, v) = sender_whole(&[], 3, 100).unwrap();
        assert_eq!((u.rows(), v.rows(), u.cols()), (0, 0, 100));
        let keys = prg_keys(&[Block::ZERO; 4]);
        let (u, v) = sender_whole(&keys, 2, 0).unwrap();
        assert_eq!((u.rows(), u.cols(), v.rows(), v.cols()), (1, 0, 2, 0));
        let w = receiver_whole(&keys, 2, &[3], 0).unwrap();
        assert_eq!((w.rows(), w.cols()), (2, 0));
    }

    #[test]
    fn vole_bad_shapes_are_errors() {
        let keys = prg_keys(&[Block::ZERO; 8]);
        let (mut u, mut v, mut w) = Default::default();
        assert!(matches!(
            sender_whole(&keys, 0, 10),
            Err(ShapeError::Shape { .. })
        ));
        assert!(matches!(
            sender_whole(&keys, 9, 10),
            Err(ShapeError::Shape { .. })
        ));
        assert!(sender_whole(&keys, usize::MAX, 10).is_err());
        assert!(matches!(
            sender_whole(&keys[..6], 2, 10),
            Err(ShapeError::Shape { .. })
        ));
        assert!(vole_sender(&keys[..7], 1, Span::new(128, 5), &mut u, &mut v).is_err());
        assert!(receiver_whole(&keys, 0, &[], 10).is_err());
        assert!(receiver_whole(&keys, 9, &[0], 10).is_err());
        assert!(receiver_whole(&keys[..5], 2, &[0], 10).is_err());
        assert!(matches!(
            receiver_whole(&keys, 2, &[0], 10),
            Err(ShapeError::Length { .. })
        ));
        assert!(matches!(
            receiver_whole(&keys, 2, &[0, 1, 2], 10),
            Err(ShapeError::Length { .. })
        ));
        assert!(matches!(
            receiver_whole(&keys, 2, &[0, 4], 10),
            Err(ShapeError::Index { index: 4, .. })
        ));
        assert!(receiver_whole(&keys, 3, &[usize::MAX], 10).is_err());
        assert!(vole_receiver(&keys, 1, &[0, 1, 2, 2], Span::new(0, 9), &mut w).is_err());
        assert!(vole_receiver(&keys, 1, &[0, 1, 1, 1], Span::new(256, 9), &mut w).is_ok());
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(24))]
        #[test]
        fn vole_prop_random_shapes(
            k in 1usize..=MAX_VOLE_DEPTH,
            trees in 1usize..7,
            cols in 0usize..700,
            seed in any::<u64>(),
        ) {
            let mut rng = Rng::deterministic_for_tests(seed);
            check(&mut rng, k, trees, cols);
        }

        /// Every k on every backend, including tails shorter than a
        /// kernel step and chunks starting mid-stream.
        #[test]
        fn vole_prop_every_k_every_backend(
            seed in any::<u64>(),
            cols in 1usize..400,
        ) {
            let mut rng = Rng::deterministic_for_tests(seed);
            for k in 1..=MAX_VOLE_DEPTH {
                check(&mut rng, k, 1 + (seed as usize % 2), cols);
            }
        }

        #[test]
        fn vole_prop_shape_errors_never_panic(
            n in 0usize..40,
            k in 0usize..12,
            deltas in proptest::collection::vec(0usize..300, 0..5),
            offset in 0usize..1000,
            len in 0usize..300,
        ) {
            let keys = prg_keys(&vec![Block::ZERO; n]);
            let (mut u, mut v, mut w) = Default::default();
            let ok = (1..=MAX_VOLE_DEPTH).contains(&k) && n % (1 << k) == 0;
            prop_assert_eq!(vole_sender(&keys, k, Span::new(offset, len), &mut u, &mut v).is_ok(), ok);
            let rok = ok && deltas.len() == n >> k && deltas.iter().all(|&d| d < 1 << k);
            prop_assert_eq!(vole_receiver(&keys, k, &deltas, Span::new(offset, len), &mut w).is_ok(), rok);
        }
    }
}
