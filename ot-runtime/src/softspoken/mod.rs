//! The SoftSpokenOT family (`protocols/softspoken*.otp`,
//! `protocols/delta_softspoken*.otp`, `protocols/abo_ot*.otp`): this
//! module's streamed OT-extension kernels, the small-field VOLE they are
//! built from ([`vole`]), the all-but-one OTs that seed it ([`abo`]) and
//! their GGM trees ([`ggm`], which the silent family's single-point COTs
//! also use).
//!
//! Kernels of SoftSpokenOT OT extension [Roy, CRYPTO 2022, eprint
//! 2022/192]: the small-field subspace VOLE of [`crate::softspoken::vole`] turned into
//! the 128-row correlation of IKNP, streamed chunk by chunk like
//! [`crate::otext::stream`] (same calling convention). The protocol flow is
//! `protocols/softspoken.otp` and its variants.
//!
//! With `k` the tree depth and `T = ⌈128 / k⌉` trees (all-but-one OTs,
//! [`crate::softspoken::abo`]), the OT receiver (VOLE sender) knows every leaf and gets
//! `u_t` and `V` (`T·k` rows, row `t·k + b`); the OT sender (VOLE
//! receiver) knows `Δ_t` (its punctured indices) and gets
//! `W = V ⊕ Δ·u` row by row. The receiver sends the corrections
//! `c_t = u_t ⊕ r` (one row per tree: `T` bits per OT instead of IKNP's
//! 128), and the sender's `Q = W ⊕ Δ·c = V ⊕ Δ·r` (eprint 2022/192, §3.2, Fig. 8:
//! subspace VOLE with the repetition code, which is OT extension). The
//! first 128 rows of `V` and `Q` are IKNP's `T` and `Q` with
//! `s = Δ` = bits `0..128` of `(Δ_0, Δ_1, …)` (`Δ_t` little-endian): for
//! `k ∤ 128` the rows past 128 of the last tree are computed and dropped.
//!
//! Communication `T` bits per OT (`k = 2`: 8 bytes, `k = 8`: 2 bytes) for
//! about `2^k / k` PRG blocks per OT and party.

pub mod abo;
pub mod ggm;
pub mod vole;

use zeroize::Zeroize;

use crate::otext::stream::{bits_blocks, bypass_cache, clear_padding, for_parts, prg_keys, PrgKey};
use crate::primitives::span::Span;
use crate::primitives::transpose::{self, Backend};
use crate::primitives::xor::xor_masked_into;
use crate::softspoken::abo::{AboReceiverLeaves, AboSenderLeaves};
use crate::softspoken::vole::{
    sums_tile, Fold, Scratch, Tile, TileCorr, MAX_GROUP_DEPTH, MAX_VOLE_DEPTH, TILE_BLOCKS,
};
use crate::{BitMatrix, Bits, Block};

/// Rows of the OT-extension correlation (κ).
const KAPPA: usize = 128;

/// Number of trees (all-but-one OTs) for depth `k`: `⌈128 / k⌉` (0 for
/// `k = 0`).
pub fn ss_trees(k: usize) -> usize {
    KAPPA
        .checked_div(k)
        .map_or(0, |q| q + usize::from(!KAPPA.is_multiple_of(k)))
}

/// The OT receiver's (VOLE sender's) expanded leaf keys.
#[derive(Clone, Debug, Default)]
pub struct VoleSenderKeys {
    k: usize,
    keys: Vec<PrgKey>,
}

/// The OT sender's (VOLE receiver's) punctured indices (its share `Δ`)
/// and expanded leaf keys, re-indexed by `x ⊕ Δ_t` (key `t·2^k + y` is
/// that of leaf `y ⊕ Δ_t`, so the unknown leaf sits at `y = 0`): the VOLE
/// sender's sums over the re-indexed leaves are `W` directly, and the
/// unknown leaf's PRG row is never expanded.
#[derive(Clone, Default)]
pub struct VoleReceiverKeys {
    k: usize,
    alphas: Vec<usize>,
    keys: Vec<PrgKey>,
}

impl std::fmt::Debug for VoleReceiverKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "VoleReceiverKeys {{ k: {}, trees: {} }}",
            self.k,
            self.alphas.len()
        )
    }
}

impl Drop for VoleReceiverKeys {
    fn drop(&mut self) {
        self.alphas.zeroize();
    }
}

/// Per-batch seeds of reused leaves: [`crate::otext::batch_seeds`]
/// (`AES_leaf((batch, tag))`), so that every batch of a Delta-OT pair
/// expands its own PRG streams from one set of all-but-one OTs.
fn leaf_keys(leaves: &[Block], batch: Option<usize>) -> Vec<PrgKey> {
    match batch {
        Some(b) => prg_keys(&crate::otext::batch_seeds(leaves, b)),
        None => prg_keys(leaves),
    }
}

/// The leaves of every tree re-indexed by `x ⊕ α_t` (`out[t·2^k + y]` =
/// `leaves[t·2^k + (y ⊕ α_t)]`), in constant time: per bit `b` of `α_t`,
/// a masked swap of every pair `(x, x ⊕ 2^b)`, so neither the memory
/// accesses nor the work depend on the secret indices.
fn reindexed(leaves: &[Block], alphas: &[usize], k: usize) -> Vec<Block> {
    let mut out = leaves.to_vec();
    let n = 1usize << k.min(MAX_VOLE_DEPTH);
    for (tree, &a) in out.chunks_exact_mut(n).zip(alphas) {
        for b in 0..k.min(MAX_VOLE_DEPTH) {
            let m = Block::mask((a >> b) & 1 == 1);
            let step = 1usize << b;
            for x in (0..n).filter(|x| x & step == 0) {
                let d = (tree[x] ^ tree[x | step]) & m;
                tree[x] ^= d;
                tree[x | step] ^= d;
            }
        }
    }
    out
}

/// The OT receiver's keys: the PRG keys of its all-but-one-OT leaves.
pub fn ss_sender_keys(leaves: &AboSenderLeaves) -> VoleSenderKeys {
    VoleSenderKeys {
        k: leaves.depth(),
        keys: leaf_keys(leaves.leaves(), None),
    }
}

/// The OT sender's keys (the punctured leaf's key is ignored by the VOLE).
pub fn ss_receiver_keys(leaves: &AboReceiverLeaves) -> VoleReceiverKeys {
    receiver_keys(leaves, None)
}

fn receiver_keys(leaves: &AboReceiverLeaves, batch: Option<usize>) -> VoleReceiverKeys {
    let k = leaves.depth();
    let mut re = reindexed(leaves.leaves(), leaves.alphas(), k);
    let keys = leaf_keys(&re, batch);
    re.iter_mut().for_each(|b| b.0.zeroize());
    VoleReceiverKeys {
        k,
        alphas: leaves.alphas().to_vec(),
        keys,
    }
}

/// [`ss_sender_keys`] for batch `batch` of reused leaves.
pub fn ss_sender_batch_keys(leaves: &AboSenderLeaves, batch: usize) -> VoleSenderKeys {
    VoleSenderKeys {
        k: leaves.depth(),
        keys: leaf_keys(leaves.leaves(), Some(batch)),
    }
}

/// [`ss_receiver_keys`] for batch `batch` of reused leaves.
pub fn ss_receiver_batch_keys(leaves: &AboReceiverLeaves, batch: usize) -> VoleReceiverKeys {
    receiver_keys(leaves, Some(batch))
}

/// The punctured indices from random bits: `α_t` = bits `t·k .. t·k + k`
/// of `bits` (little-endian), `⌈128 / k⌉` trees; bits past the end are 0.
pub fn ss_alphas(bits: &Bits, k: usize) -> Vec<usize> {
    let k = k.min(MAX_VOLE_DEPTH);
    (0..ss_trees(k))
        .map(|t| {
            (0..k).fold(0usize, |a, b| {
                a | (usize::from(bits.try_get(t * k + b).unwrap_or(false)) << b)
            })
        })
        .collect()
}

/// The punctured indices of a chosen Delta (correlated OT): bit `j < 128`
/// of the concatenated `Δ_t` is bit `j` of `delta`, the remaining bits of
/// the last tree (`k ∤ 128`) come from `extra`.
pub fn ss_alphas_for_delta(delta: Block, extra: &Bits, k: usize) -> Vec<usize> {
    let mut bits = Bits::zeros(KAPPA + MAX_VOLE_DEPTH);
    for j in 0..KAPPA {
        bits.set(j, delta.bit(j));
    }
    for j in 0..MAX_VOLE_DEPTH {
        bits.set(KAPPA + j, extra.try_get(j).unwrap_or(false));
    }
    ss_alphas(&bits, k)
}

/// The sender's 128-bit `Δ`: bit `j` is bit `j mod k` of `α_{⌊j / k⌋}`.
pub fn ss_delta(alphas: &[usize], k: usize) -> Block {
    let k = k.clamp(1, MAX_VOLE_DEPTH);
    (0..KAPPA).fold(Block::ZERO, |d, j| {
        let a = alphas.get(j / k).copied().unwrap_or(0);
        d.with_bit(j, (a >> (j % k)) & 1 == 1)
    })
}

/// The `Δ` that the punctured indices of an all-but-one-OT receiver spell
/// ([`ss_delta`] of its indices).
pub fn ss_punctured_delta(punctured: &AboReceiverLeaves) -> Block {
    ss_delta(punctured.alphas(), punctured.depth())
}

/// Domain label of [`ss_session_id`].
const SESSION_DOMAIN: &[u8] = b"ot-runtime/softspoken/session/v1";

/// The session id of one SoftSpokenOT run: SHA-256 of a domain label, the
/// sender's fresh salt, the number of OTs `m` and `k`, truncated to 128
/// bits (its low 64 bits fill the upper half of every TCCR tweak; it keys
/// the consistency check's challenge).
pub fn ss_session_id(salt: Block, m: usize, k: usize) -> Block {
    crate::otext::session_id_with(SESSION_DOMAIN, salt, &[m as u64, k as u64])
}

/// Both parties' keys from all-but-one OTs run in the clear inside one
/// process (roots, punctured indices and base-OT keys drawn from `rng`,
/// `k` clamped to `1..=MAX_VOLE_DEPTH`), with the batch keys of the
/// Delta-OT variant for `Some(batch)`: for tests and benchmarks of the
/// chunk kernels only (one process knows both sides, so nothing is
/// secret; the protocols get their keys from `abo_ot.otp`).
pub fn ss_keys_in_the_clear(
    rng: &mut crate::Rng,
    k: usize,
    batch: Option<usize>,
) -> (VoleSenderKeys, VoleReceiverKeys) {
    use crate::softspoken::abo::{
        abo_choice_bits, abo_masked_sums, abo_receiver_leaves, abo_sender_leaves,
    };
    use rand_core::RngCore;
    let k = k.clamp(1, MAX_VOLE_DEPTH);
    let trees = ss_trees(k);
    let roots: Vec<Block> = (0..trees).map(|_| rng.next_block()).collect();
    let alphas: Vec<usize> = (0..trees)
        .map(|_| rng.next_u32() as usize % (1 << k))
        .collect();
    let base: Vec<[Block; 2]> = (0..trees * k)
        .map(|_| [rng.next_block(), rng.next_block()])
        .collect();
    let choices = abo_choice_bits(&alphas, k);
    let chosen: Vec<Block> = (0..trees * k)
        .map(|i| base[i][usize::from(choices.get(i))])
        .collect();
    let tsid = crate::softspoken::abo::abo_tree_session(rng.next_block(), trees, k);
    let masked = abo_masked_sums(&roots, k, &base, tsid);
    let s = abo_sender_leaves(&roots, k, tsid);
    let r = abo_receiver_leaves(&alphas, k, &masked, &choices, &chosen, tsid);
    match batch {
        Some(b) => (ss_sender_batch_keys(&s, b), ss_receiver_batch_keys(&r, b)),
        None => (ss_sender_keys(&s), ss_receiver_keys(&r)),
    }
}

/// The receiver's VOLE with corrections: columns `span` (clipped to
/// `cols`) of the OT receiver's matrix: rows `0..T·k` are `V` (row `t·k + b` = `⊕_{x_b = 1} G(s_{t,x})`),
/// rows `T·k..T·k + T` the corrections `c_t = u_t ⊕ r`
/// (`u_t = ⊕_x G(s_{t,x})`), computed tile by tile straight into `out`.
/// An invalid key set gives zero rows. `threads > 1` splits the trees
/// (independent VOLEs, each writing its own rows) over that many rayon
/// tasks; the output is the same for every `threads`.
pub fn ss_receiver_vole(
    keys: &VoleSenderKeys,
    r: &Bits,
    cols: usize,
    threads: usize,
    span: Span,
    out: &mut BitMatrix,
) {
    let Span { offset, len } = span;
    let len = len.min(cols.saturating_sub(offset));
    let k = keys.k;
    let ok = (1..=MAX_VOLE_DEPTH).contains(&k) && keys.keys.len().is_multiple_of(1 << k);
    let trees = if ok { keys.keys.len() >> k } else { 0 };
    let rows_v = trees * k;
    out.reset(rows_v + trees, len);
    let bpr = out.blocks_per_row();
    let ob = out.as_blocks_mut();
    if trees == 0 || bpr == 0 {
        return;
    }
    let mut rb = vec![Block::ZERO; bpr];
    bits_blocks(r, offset / 128, &mut rb);
    let (v, u) = ob.split_at_mut(rows_v * bpr);
    let base = offset / 128;
    // Trees per task: whole trees, so every task owns its rows of V and u.
    let per = trees.div_ceil(threads.clamp(1, trees));
    let run = |keys: &[PrgKey], v: &mut [Block], u: &mut [Block]| {
        let mut s = Scratch::new();
        let mut j0 = 0;
        while j0 < bpr {
            let tb = TILE_BLOCKS.min(bpr - j0);
            let mask = Some(&rb[j0..j0 + tb]);
            let tile = Tile {
                counter: base + j0,
                tb,
                bpr,
                j0,
            };
            let fold = Fold { mask, corr: None };
            sums_tile(keys, k, tile, &mut s, u, v, fold);
            j0 += tb;
        }
    };
    if per >= trees {
        run(&keys.keys, v, u);
    } else {
        let run = &run;
        rayon::scope(|sc| {
            let parts = keys
                .keys
                .chunks(per << k)
                .zip(v.chunks_mut(per * k * bpr))
                .zip(u.chunks_mut(per * bpr));
            for ((keys, v), u) in parts {
                sc.spawn(move |_| run(keys, v, u));
            }
        });
    }
    for row in ob.chunks_exact_mut(bpr) {
        clear_padding(row, len);
    }
}

/// The corrections `c` (the last `trees` rows of the matrix of
/// [`ss_receiver_vole`]): the message of SoftSpokenOT's extend round.
/// `vu` is the span's chunk; missing rows are zero.
pub fn ss_corrections(vu: &BitMatrix, trees: usize, span: Span, out: &mut BitMatrix) {
    let w = span.len.min(vu.cols());
    out.reset(trees, w);
    let bpr = vu.blocks_per_row();
    let first = vu.rows().saturating_sub(trees);
    let src = &vu.as_blocks()[first * bpr..];
    let dst = out.as_blocks_mut();
    let n = src.len().min(dst.len());
    dst[..n].copy_from_slice(&src[..n]);
    dst[n..].fill(Block::ZERO);
}

/// The OT sender's per-OT blocks `q_i = t_i ⊕ r_i·Δ`: `c` is the span's
/// chunk of the corrections (`T x len`). Per tile of 32 column blocks, in L1/L2: the VOLE sender's
/// sums over the re-indexed leaves, which are `W` (see
/// [`VoleReceiverKeys`]; the unknown leaf at `y = 0` is skipped), then
/// `Q_{t·k+b} = W_{t·k+b} ⊕ Δ_{t,b}·c_t` for the first 128 rows (a masked
/// row XOR: no branch or access depends on `Δ`), transposed into `out`. Writes `out[i]` for
/// `i < min(out.len(), len, c.cols())`; missing rows of `c` are zero; an
/// invalid key set leaves `out` untouched.
pub fn ss_sender_columns(
    keys: &VoleReceiverKeys,
    c: &BitMatrix,
    threads: usize,
    span: Span,
    out: &mut [Block],
) {
    let Span { offset, len } = span;
    let k = keys.k;
    let n = out.len().min(len).min(c.cols());
    let ok = (1..=MAX_VOLE_DEPTH).contains(&k)
        && keys.keys.len() == keys.alphas.len() << k
        && keys.alphas.len() * k >= KAPPA;
    if n == 0 || !ok {
        return;
    }
    let stream_dst = bypass_cache(out.len());
    let trees = keys.alphas.len();
    let rows_v = trees * k;
    let masks: Vec<u64> = (0..rows_v)
        .map(|j| 0u64.wrapping_sub(((keys.alphas[j / k] >> (j % k)) & 1) as u64))
        .collect();
    let cbpr = c.blocks_per_row();
    let cb = c.as_blocks();
    let backend = Backend::selected();
    let base = offset / 128;
    // For k <= 3 the masked correction is XORed in as the VOLE kernel
    // writes each row of V (no pass over the tile); larger k add it after.
    let fused = k <= MAX_GROUP_DEPTH;
    let tile = TILE_BLOCKS;
    for_parts(&mut out[..n], threads, 128 * tile, |start, part| {
        SENDER_SCRATCH.with_borrow_mut(|(s, u, v)| {
            s.skip_first = true;
            let nb = part.len().div_ceil(128);
            u.resize(trees * tile, Block::ZERO);
            v.resize(rows_v * tile, Block::ZERO);
            let b0 = start / 128;
            let mut b = 0;
            while b < nb {
                let tb = tile.min(nb - b);
                let (u, v) = (&mut u[..trees * tb], &mut v[..rows_v * tb]);
                let corr = TileCorr {
                    c: cb,
                    cbpr,
                    col: b0 + b,
                    masks: &masks,
                };
                let corr = Some(&corr).filter(|_| fused);
                let tile = Tile {
                    counter: base + b0 + b,
                    tb,
                    bpr: tb,
                    j0: 0,
                };
                let fold = Fold { mask: None, corr };
                sums_tile(&keys.keys, k, tile, s, u, v, fold);
                if !fused {
                    for (j, row) in v.chunks_exact_mut(tb).take(KAPPA).enumerate() {
                        let t = j / k;
                        if t < c.rows() {
                            let at = t * cbpr + b0 + b;
                            xor_masked_into(row, &cb[at..at + tb], masks[j]);
                        }
                    }
                }
                let c0 = b * 128;
                let c1 = (c0 + tb * 128).min(part.len());
                let r = transpose::transpose_cols(
                    backend,
                    &v[..KAPPA * tb],
                    KAPPA,
                    tb * 128,
                    0..c1 - c0,
                    &mut part[c0..c1],
                    stream_dst,
                );
                debug_assert!(r.is_ok(), "shapes are consistent");
                b += tb;
            }
        });
    });
}

thread_local! {
    /// The sender's per-thread scratch (VOLE scratch, a tile of `u` and of
    /// `V`), kept across chunks: no allocation or clearing per chunk.
    static SENDER_SCRATCH: std::cell::RefCell<(Scratch, Vec<Block>, Vec<Block>)> =
        std::cell::RefCell::new((Scratch::new(), Vec::new(), Vec::new()));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::whole;
    use crate::Rng;

    /// Both parties' streamed kernels, chunk by chunk, give `q_i = t_i ⊕
    /// r_i·Δ`; the full variants agree with the chunks.
    fn check(k: usize, cols: usize, chunk: usize, batch: Option<usize>) {
        let mut rng = Rng::deterministic_for_tests(100 + k as u64);
        let (sk, rk) = ss_keys_in_the_clear(&mut rng, k, batch);
        let r = Bits::random(&mut rng, cols);
        let delta = ss_delta(&rk.alphas, k);
        let trees = ss_trees(k);
        let mut tcols = Vec::new();
        let mut qcols = Vec::new();
        let (mut vu, mut c) = (BitMatrix::default(), BitMatrix::default());
        let mut off = 0;
        while off < cols {
            let len = chunk.min(cols - off);
            ss_receiver_vole(&sk, &r, cols, 1 + off % 3, Span::new(off, len), &mut vu);
            ss_corrections(&vu, trees, Span::new(off, len), &mut c);
            assert_eq!((c.rows(), c.cols()), (trees, len));
            let mut t = vec![Block::ZERO; len];
            crate::otext::stream::transpose_columns(&vu, 1, Span::new(off, len), &mut t);
            let mut q = vec![Block::ZERO; len];
            ss_sender_columns(&rk, &c, 2, Span::new(off, len), &mut q);
            tcols.extend(t);
            qcols.extend(q);
            off += len;
        }
        for i in 0..cols {
            let want = if r.get(i) { tcols[i] ^ delta } else { tcols[i] };
            assert_eq!(qcols[i], want, "k {k} column {i}");
        }
        // Full variants agree with the chunks.
        let vu = whole::ss_receiver_vole(&sk, &r, cols, 1);
        assert_eq!(whole::transpose_columns(&vu, 1), tcols);
        assert_eq!(
            whole::ss_sender_columns(&rk, &whole::ss_corrections(&vu, trees), 1),
            qcols
        );
    }

    #[test]
    fn correlation_holds_for_every_k() {
        for k in 1..=MAX_VOLE_DEPTH {
            check(k, 1000, 384, None);
            check(k, 129, 128, Some(3));
        }
        check(2, 128 * 70 + 3, 128 * 40, None);
    }

    /// The receiver's VOLE with corrections (the fused `u ⊕ r`) is the same
    /// on every AES backend, for every k, with tails shorter than a
    /// kernel step and several threads.
    #[test]
    fn receiver_vole_agrees_across_backends() {
        let mut rng = Rng::deterministic_for_tests(11);
        for k in 1..=MAX_VOLE_DEPTH {
            let seeds: Vec<Block> = (0..ss_trees(k) << k).map(|_| rng.next_block()).collect();
            let cols = 128 * 33 + 77;
            let r = Bits::random(&mut rng, cols);
            let mut want = None;
            for backend in crate::primitives::aes::AesBackend::available() {
                let Some(keys) = crate::otext::stream::prg_keys_on(&seeds, backend) else {
                    continue;
                };
                let sk = VoleSenderKeys { k, keys };
                let mut got = BitMatrix::default();
                ss_receiver_vole(
                    &sk,
                    &r,
                    cols,
                    1 + k % 3,
                    Span::new(128, cols - 128),
                    &mut got,
                );
                match &want {
                    None => want = Some(got),
                    Some(w) => assert_eq!(&got, w, "k {k} backend {backend:?}"),
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]

        /// The sender's fused kernel (VOLE sums with the masked correction
        /// written in, then the transpose) on every AES backend against the
        /// definition `q_i = t_i ⊕ r_i·Δ`, with `t` the receiver's columns
        /// on the software AES backend (the portable path, whose cube sums
        /// and correction pass are plain slice code): every k, lengths with
        /// partial tiles and steps, chunk offsets and threads.
        #[test]
        fn sender_kernel_matches_definition_on_every_backend(
            k in 1usize..=MAX_VOLE_DEPTH,
            cols in 1usize..(128 * 40),
            off_blocks in 0usize..3,
            threads in 1usize..3,
            seed in proptest::prelude::any::<u64>(),
        ) {
            use crate::primitives::aes::AesBackend;
            use crate::otext::stream::prg_keys_on;
            let mut rng = Rng::deterministic_for_tests(seed);
            let trees = ss_trees(k);
            let leaves: Vec<Block> = (0..trees << k).map(|_| rng.next_block()).collect();
            let alphas: Vec<usize> = (0..trees)
                .map(|_| (rng.next_block().as_u128() as usize) % (1 << k))
                .collect();
            let delta = ss_delta(&alphas, k);
            let off = 128 * off_blocks;
            let total = off + cols;
            let r = Bits::random(&mut rng, total);
            let soft = prg_keys_on(&leaves, AesBackend::Soft).expect("software AES");
            let sk = VoleSenderKeys { k, keys: soft };
            let mut vu = BitMatrix::default();
            ss_receiver_vole(&sk, &r, total, 1, Span::new(off, cols), &mut vu);
            let mut c = BitMatrix::default();
            ss_corrections(&vu, trees, Span::new(off, cols), &mut c);
            let mut t = vec![Block::ZERO; cols];
            crate::otext::stream::transpose_columns(&vu, 1, Span::new(off, cols), &mut t);
            let re = reindexed(&leaves, &alphas, k);
            for backend in AesBackend::available() {
                let Some(keys) = prg_keys_on(&re, backend) else {
                    continue;
                };
                let rk = VoleReceiverKeys { k, alphas: alphas.clone(), keys };
                let mut q = vec![Block(7); cols];
                ss_sender_columns(&rk, &c, threads, Span::new(off, cols), &mut q);
                for i in 0..cols {
                    let want = if r.get(off + i) { t[i] ^ delta } else { t[i] };
                    proptest::prop_assert_eq!(q[i], want, "k {} backend {:?} column {}", k, backend, i);
                }
            }
        }
    }

    #[test]
    fn deltas_and_alphas_agree() {
        let mut rng = Rng::deterministic_for_tests(9);
        for k in 1..=MAX_VOLE_DEPTH {
            let d = rng.next_block();
            let extra = Bits::random(&mut rng, 8);
            let alphas = ss_alphas_for_delta(d, &extra, k);
            assert_eq!(alphas.len(), ss_trees(k));
            assert!(alphas.iter().all(|&a| a < 1 << k));
            assert_eq!(ss_delta(&alphas, k), d);
        }
        assert_eq!(ss_trees(0), 0);
        assert_eq!(ss_trees(3), 43);
        assert_eq!(ss_trees(8), 16);
    }

    #[test]
    fn bad_keys_do_not_panic() {
        let mut out = BitMatrix::default();
        ss_receiver_vole(
            &VoleSenderKeys::default(),
            &Bits::zeros(5),
            300,
            1,
            Span::new(0, 300),
            &mut out,
        );
        assert_eq!(out.rows(), 0);
        let mut q = vec![Block(5); 10];
        ss_sender_columns(
            &VoleReceiverKeys::default(),
            &BitMatrix::new(3, 10),
            1,
            Span::new(0, 10),
            &mut q,
        );
        assert_eq!(q, vec![Block(5); 10]);
    }
}
