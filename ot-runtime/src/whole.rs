//! The whole results of the streamed kernels, for the unit tests that
//! compare chunked runs with them: one call over [`Span::whole`], sized as
//! the kernel's clipping rule gives (the generated code sizes them from
//! the result's `.otp` type instead).

use crate::oprf::{self, code::Code, Word};
use crate::otext::stream::{self, HashTweaks, PrgKey};
use crate::primitives::span::Span;
use crate::quiet::convert::{self, BlockRow, QuietRotReceiver};
use crate::softspoken::{self, VoleReceiverKeys, VoleSenderKeys};
use crate::{BitMatrix, Bits, Block};

pub(crate) fn prg_rows(seeds: &[PrgKey], cols: usize, threads: usize) -> BitMatrix {
    let mut out = BitMatrix::default();
    stream::prg_rows(seeds, cols, threads, Span::whole(cols), &mut out);
    out
}

pub(crate) fn xor_prg_choice(
    t: &BitMatrix,
    seeds: &[PrgKey],
    r: &Bits,
    threads: usize,
) -> BitMatrix {
    let mut out = BitMatrix::default();
    stream::xor_prg_choice(t, seeds, r, threads, Span::whole(t.cols()), &mut out);
    out
}

pub(crate) fn transpose_columns(t: &BitMatrix, threads: usize) -> Vec<Block> {
    Span::whole(t.cols()).collect(|span, out| stream::transpose_columns(t, threads, span, out))
}

pub(crate) fn masked_columns(
    seeds: &[PrgKey],
    u: &BitMatrix,
    s: &Bits,
    threads: usize,
) -> Vec<Block> {
    Span::whole(u.cols())
        .collect(|span, out| stream::masked_columns(seeds, u, s, threads, span, out))
}

pub(crate) fn hash_blocks(
    cols: &[Block],
    count: usize,
    tweaks: &HashTweaks,
    threads: usize,
) -> Vec<Block> {
    let n = count.min(cols.len());
    Span::whole(n).collect(|span, out| stream::hash_blocks(cols, count, tweaks, threads, span, out))
}

pub(crate) fn hash_block_pairs(
    q: &[Block],
    delta: Block,
    count: usize,
    tweaks: &HashTweaks,
    threads: usize,
) -> Vec<[Block; 2]> {
    let n = count.min(q.len());
    Span::whole(n)
        .collect(|span, out| stream::hash_block_pairs(q, delta, count, tweaks, threads, span, out))
}

pub(crate) fn gf_inner_seeded(a: &[Block], seed: Block) -> Block {
    let mut acc = Block::ZERO;
    stream::gf_inner_seeded(a, seed, Span::whole(a.len()), &mut acc);
    acc
}

pub(crate) fn mask_pairs(payload: &[[Block; 2]], keys: &[[Block; 2]]) -> Vec<[Block; 2]> {
    let n = payload.len().min(keys.len());
    Span::whole(n).collect(|span, out| stream::mask_pairs(payload, keys, span, out))
}

pub(crate) fn unmask_chosen(masked: &[[Block; 2]], keys: &[Block], r: &Bits) -> Vec<Block> {
    let n = masked.len().min(keys.len());
    Span::whole(n).collect(|span, out| stream::unmask_chosen(masked, keys, r, span, out))
}

pub(crate) fn code_matrix<C: Code>(
    t: &BitMatrix,
    seeds: &[PrgKey],
    code: &C,
    inputs: &[Block],
    threads: usize,
) -> BitMatrix {
    let mut out = BitMatrix::default();
    oprf::code_matrix(
        t,
        seeds,
        code,
        inputs,
        threads,
        Span::whole(t.cols()),
        &mut out,
    );
    out
}

pub(crate) fn transpose_words(t: &BitMatrix, threads: usize) -> Vec<Word> {
    Span::whole(t.cols()).collect(|span, out| oprf::transpose_words(t, threads, span, out))
}

pub(crate) fn masked_words(seeds: &[PrgKey], u: &BitMatrix, s: &Bits, threads: usize) -> Vec<Word> {
    Span::whole(u.cols()).collect(|span, out| oprf::masked_words(seeds, u, s, threads, span, out))
}

pub(crate) fn hash_words(
    w: &[Word],
    count: usize,
    tweaks: &HashTweaks,
    threads: usize,
) -> Vec<Block> {
    let n = count.min(w.len());
    Span::whole(n).collect(|span, out| oprf::hash_words(w, count, tweaks, threads, span, out))
}

pub(crate) fn ss_receiver_vole(
    keys: &VoleSenderKeys,
    r: &Bits,
    cols: usize,
    threads: usize,
) -> BitMatrix {
    let mut out = BitMatrix::default();
    softspoken::ss_receiver_vole(keys, r, cols, threads, Span::whole(cols), &mut out);
    out
}

pub(crate) fn ss_corrections(vu: &BitMatrix, trees: usize) -> BitMatrix {
    let mut out = BitMatrix::default();
    softspoken::ss_corrections(vu, trees, Span::whole(vu.cols()), &mut out);
    out
}

pub(crate) fn ss_sender_columns(
    keys: &VoleReceiverKeys,
    c: &BitMatrix,
    threads: usize,
) -> Vec<Block> {
    Span::whole(c.cols())
        .collect(|span, out| softspoken::ss_sender_columns(keys, c, threads, span, out))
}

pub(crate) fn row_corrections<R: BlockRow, F: BlockRow>(rows: &[R]) -> Vec<F> {
    let mut out = vec![F::ZERO; rows.len()];
    convert::row_corrections(rows, Span::whole(rows.len()), &mut out);
    out
}

pub(crate) fn row_pairs<R: BlockRow>(rows: &[R]) -> Vec<[Block; 2]> {
    Span::whole(rows.len()).collect(|span, out| convert::row_pairs(rows, span, out))
}

pub(crate) fn chosen_rows<F: BlockRow>(r: &QuietRotReceiver, fix: &[F], m: usize) -> Vec<Block> {
    Span::whole(m).collect(|span, out| convert::chosen_rows(r, fix, m, span, out))
}
