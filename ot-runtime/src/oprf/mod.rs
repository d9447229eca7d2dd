//! The 1-out-of-N OT-extension family, KKRT and OOS (`protocols/kkrt*.otp`,
//! `protocols/oos*.otp`): this module's streamed kernels and the codes that
//! replace IKNP's repetition code ([`code`]: KKRT's pseudorandom code and
//! OOS's linear codes).
//!
//! Streamed kernels of the 1-out-of-N OT extensions KKRT [KKRT16, CCS
//! 2016, Fig. 2] and OOS [OOS16, CT-RSA 2017]: IKNP's data path
//! ([`crate::otext::stream`]) widened from 128 to 512 rows, where column `j` of
//! the receiver's matrix is the codeword `C(r_j)` of its input (a
//! [`Code`]) instead of `r_j · 1^128`.
//!
//! With base-OT seeds `k_i^0, k_i^1` (receiver) and `k_i^{s_i}` (sender),
//! `i < 512`:
//!
//! * receiver: `T = G(k^0)`, `u^i = t^i ⊕ G(k_i^1) ⊕ c^i` where `c^i` is
//!   row `i` of the code matrix (column `j` = `C(r_j)`)
//!   ([`code_matrix`]); its output is `H(j, t_j)` over the rows
//!   `t_j` of `T`'s transpose ([`transpose_words`], [`hash_words`]);
//! * sender: `q^i = G(k_i^{s_i}) ⊕ s_i · u^i`, transposed to the rows
//!   `q_j = t_j ⊕ (C(r_j) ∧ s)` ([`masked_words`]); the OPRF is
//!   `F(j, x) = H(j, q_j ⊕ (C(x) ∧ s))` ([`oprf_eval`]).
//!
//! The hash `H(j, w)` of a 512-bit row is the XOR of the fixed-key AES
//! TCCR hashes \[GKWY20\] of its four blocks, block `b` under tweak
//! `(session, 4j + b)` (the sum-of-block-hashes construction libOTe uses
//! for KKRT/OOS: a heuristic instantiation of the papers' random oracle),
//! or, with `sha1`, SHA-1 over a domain label, the session, `j` and `w`
//! (a random oracle as in the papers).
//!
//! The streamed kernels follow the calling convention of
//! [`crate::otext::stream`]: one function each, taking a [`Span`].

#![forbid(unsafe_code)]

pub mod code;
pub mod key;

pub use key::{oprf_eval_at, oprf_instances_valid, OprfCode, OprfKey};

use crate::oprf::code::{Code, LinearCode};
use crate::otext::stream::{
    bits_blocks, clear_padding, for_parts, for_rows, hash_rows_chunk, masked_columns_wide,
    transpose_columns_wide, PrgKey,
};
use crate::primitives::gf128::{self, GfBackend};
pub use crate::primitives::hash::HashTweaks;
use crate::primitives::prg::Prg;
use crate::primitives::span::Span;
use crate::primitives::transpose::{self, Backend};
use crate::primitives::xor::xor_into;
use crate::{primitives::hash, BitMatrix, Bits, Block};
use rayon::prelude::*;
use sha1::Sha1;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// A 512-bit codeword or matrix row of KKRT/OOS: four blocks, bit `b` of
/// block `k` is coordinate `128 k + b`.
pub type Word = [Block; 4];

/// Rows of the KKRT/OOS matrices (the code length, one base OT per row).
pub const WORD_BITS: usize = 512;

/// Words hashed per batch.
const HASH_BATCH: usize = 64;

/// Domain label of [`kkrt_session_id`].
const KKRT_SESSION_DOMAIN: &[u8] = b"ot-runtime/kkrt16/session/v1";
/// Domain label of [`oos_session_id`].
const OOS_SESSION_DOMAIN: &[u8] = b"ot-runtime/oos16/session/v1";
/// Domain label of the SHA-1 row hash.
const SHA1_ROW_DOMAIN: &[u8] = b"ot-runtime/oprf/row-hash/v1";

/// SHA-256 over the length-prefixed `domain`, `salt`, `m` (u64 LE) and
/// `extra`, truncated to 128 bits.
fn session_hash(domain: &[u8], salt: Block, m: usize, extra: &[u8]) -> Block {
    let mut h = Sha256::new();
    h.update([domain.len() as u8]);
    h.update(domain);
    h.update(salt.to_bytes());
    h.update((m as u64).to_le_bytes());
    h.update(extra);
    let d = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&d[..16]);
    Block::from_bytes(out)
}

/// The session id of one KKRT run: SHA-256 over the domain label
/// `"ot-runtime/kkrt16/session/v1"`, the sender's fresh `salt` and `m`.
/// It keys the pseudorandom code ([`crate::oprf::code::PrCode::from_session`])
/// and fills the upper half of every hash tweak.
pub fn kkrt_session_id(salt: Block, m: usize) -> Block {
    session_hash(KKRT_SESSION_DOMAIN, salt, m, &[])
}

/// The session id of one OOS run: as [`kkrt_session_id`] under the label
/// `"ot-runtime/oos16/session/v1"`, with the code's digest
/// ([`LinearCode::digest`]) hashed in, so two parties holding different
/// codes get different challenges and the check fails.
pub fn oos_session_id(salt: Block, m: usize, code: &LinearCode) -> Block {
    session_hash(OOS_SESSION_DOMAIN, salt, m, &code.digest())
}

/// The first 512 bits of `s` as a [`Word`] (bit `i` = `s_i`), missing bits
/// zero: the sender's secret in the layout of the rows.
pub fn bits_word(s: &Bits) -> Word {
    let mut w = [Block::ZERO; 4];
    bits_blocks(s, 0, &mut w);
    w
}

/// A [`Word`] as its 512 bits (bit `i` of the result = bit `i % 128` of
/// block `i / 128`): the inverse of [`bits_word`], for a session that
/// keeps the sender's secret `s` as a word between extensions.
pub fn word_bits(w: &Word) -> Bits {
    Bits::from_blocks(w, WORD_BITS).unwrap_or_else(|_| Bits::zeros(WORD_BITS))
}

/// Receiver's `U` of KKRT/OOS: row `i` is `t^i ⊕ G(seeds[i]) ⊕ c^i`,
/// column `j` of `C` being `code.encode(inputs[j])`. `t` and `inputs` are
/// the span's chunks (column `j` is column `offset + j` of the whole).
/// `out` becomes `t.rows() x min(len, t.cols())`. Rows without a seed take
/// `G = 0`, rows past 512 get no code bits, missing inputs have the zero
/// codeword.
///
/// The codewords of each 128-column group are encoded into a 128 x 512
/// tile and transposed (one tile transpose into 512 row pieces) before the
/// rows are expanded, so every row is written once: PRG, `t` and code
/// pieces fused.
pub fn code_matrix<C: Code>(
    t: &BitMatrix,
    seeds: &[PrgKey],
    code: &C,
    inputs: &[Block],
    threads: usize,
    span: Span,
    out: &mut BitMatrix,
) {
    let w = span.len.min(t.cols());
    out.reset(t.rows(), w);
    let bpr = out.blocks_per_row();
    let rows = CodeRows {
        t,
        seeds,
        code,
        inputs,
    };
    // pieces[g * 512 + i] = block g of row i of the code matrix, in a
    // buffer kept per thread across chunks (a fresh 256 KiB allocation per
    // chunk would be mapped and faulted in every time).
    // (A nested call on the same thread, e.g. from a rayon task run while
    // this one waits, takes a fresh buffer instead.)
    PIECES.with(|cell| {
        let mut fresh = Vec::new();
        let mut held = cell.try_borrow_mut();
        let pieces = match held.as_deref_mut() {
            Ok(p) => p,
            Err(_) => &mut fresh,
        };
        pieces.clear();
        pieces.resize(bpr * WORD_BITS, Block::ZERO);
        rows.fill(threads, Span::new(span.offset, w), pieces, out);
    });
}

std::thread_local! {
    /// The code pieces of [`code_matrix`], reused across chunks.
    static PIECES: core::cell::RefCell<Vec<Block>> = const { core::cell::RefCell::new(Vec::new()) };
}

/// The inputs of [`code_matrix`] over one chunk: the receiver's `T`, its
/// second seeds, the code and the inputs it encodes.
struct CodeRows<'a, C> {
    t: &'a BitMatrix,
    seeds: &'a [PrgKey],
    code: &'a C,
    inputs: &'a [Block],
}

impl<C: Code> CodeRows<'_, C> {
    /// [`code_matrix`] with its pieces buffer (`ceil(w/128) * 512`
    /// blocks, `w = span.len`) and `out` already `t.rows() x w`.
    fn fill(&self, threads: usize, span: Span, pieces: &mut [Block], out: &mut BitMatrix) {
        let CodeRows {
            t,
            seeds,
            code,
            inputs,
        } = *self;
        let Span { offset, len: w } = span;
        let bpr = out.blocks_per_row();
        let backend = Backend::selected();
        for_parts(pieces, threads, WORD_BITS, |start, part| {
            let mut words = [[Block::ZERO; 4]; 128];
            for (k, dst) in part.chunks_exact_mut(WORD_BITS).enumerate() {
                let c0 = (start / WORD_BITS + k) * 128;
                let n = inputs.len().min(w).saturating_sub(c0).min(128);
                words.fill([Block::ZERO; 4]);
                code.encode_many(&inputs[c0..c0 + n], &mut words[..n]);
                let r = transpose::transpose_cols(
                    backend,
                    bytemuck::cast_slice(&words),
                    128,
                    WORD_BITS,
                    0..WORD_BITS,
                    dst,
                    false,
                );
                debug_assert!(r.is_ok(), "a 128 x 512 tile");
            }
        });
        let counter = (offset / 128) as u64;
        let tbpr = t.blocks_per_row();
        let tb = t.as_blocks();
        let pieces = &*pieces;
        for_rows(out.as_blocks_mut(), bpr, threads, |i, row| {
            match seeds.get(i) {
                Some(k) => k.fill(counter, row),
                None => row.fill(Block::ZERO),
            }
            xor_into(row, &tb[i * tbpr..i * tbpr + bpr]);
            if i < WORD_BITS {
                for (g, b) in row.iter_mut().enumerate() {
                    *b ^= pieces[g * WORD_BITS + i];
                }
            }
            clear_padding(row, w);
        });
    }
}

/// The 512-bit columns of a 512-row matrix (the rows `t_j` of KKRT): `t`
/// is the span's chunk; writes `out[j]` (bit `i` = `t[i][j]`) for
/// `j < min(out.len(), len, t.cols())`.
pub fn transpose_words(t: &BitMatrix, threads: usize, span: Span, out: &mut [Word]) {
    transpose_columns_wide(t, threads, span.len, out);
}

/// The sender's rows `q_j` of KKRT/OOS: `Q`'s row `i` is
/// `G(seeds[i]) ⊕ s_i · u^i`, transposed ([KKRT16, Fig. 2]:
/// `q_j = t_j ⊕ (C(r_j) ∧ s)`), over the span (fused expansion, masking
/// and transpose, see [`crate::otext::stream::masked_columns`]); constant
/// time in `s`.
pub fn masked_words(
    seeds: &[PrgKey],
    u: &BitMatrix,
    s: &Bits,
    threads: usize,
    span: Span,
    out: &mut [Word],
) {
    masked_columns_wide(seeds, u, s, threads, span, out);
}

/// SHA-1 row hash: SHA-1 over the length-prefixed label, `session`, `j`
/// (u64 LE) and the 64 bytes of `w`, truncated to 128 bits.
pub(crate) fn sha1_row(session: Block, j: u64, w: &Word) -> Block {
    let mut h = Sha1::new();
    h.update([SHA1_ROW_DOMAIN.len() as u8]);
    h.update(SHA1_ROW_DOMAIN);
    h.update(session.to_bytes());
    h.update(j.to_le_bytes());
    h.update(bytemuck::cast_slice::<Block, u8>(w));
    let d = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&d[..16]);
    Block::from_bytes(out)
}

/// `out[i] = H(t(offset + i), w[i])`, the row hash of the module docs
/// under the tweaks of `tweaks` ([`HashTweaks`]: its session and oracle,
/// row `j` at instance index `first + j`, so the tweaks
/// `(session, 4 (first + j) + b)` of the extensions of one session
/// (`protocols/kkrt_extend.otp`, `protocols/oos_extend.otp`; disjoint
/// index ranges) never meet; the protocols' parameter check rules out the
/// wrap modulo 2^64). `w` is the span's chunk, `count` whole: writes
/// `out[i]` for `i < out.len()` with `i < len`, `i < w.len()` and
/// `offset + i < count`.
pub fn hash_words(
    w: &[Word],
    count: usize,
    tweaks: &HashTweaks,
    threads: usize,
    span: Span,
    out: &mut [Block],
) {
    let (session, sess) = (tweaks.session, tweaks.session_half());
    hash_rows_chunk(w, count, threads, span, out, |at, input, part| {
        let first = tweaks.first.wrapping_add(at);
        if tweaks.sha1 {
            for (k, (o, x)) in part.iter_mut().zip(input).enumerate() {
                *o = sha1_row(session, first.wrapping_add(k) as u64, x);
            }
            return;
        }
        let mut tmp = [Block::ZERO; 4 * HASH_BATCH];
        for (c, (inp, dst)) in input
            .chunks(HASH_BATCH)
            .zip(part.chunks_mut(HASH_BATCH))
            .enumerate()
        {
            let flat: &[Block] = bytemuck::cast_slice(inp);
            let tmp = &mut tmp[..flat.len()];
            let tweak = 4u64.wrapping_mul(first.wrapping_add(c * HASH_BATCH) as u64);
            let r = hash::tccr_many_into(sess, tweak, flat, tmp);
            debug_assert!(r.is_ok(), "equal lengths");
            for (d, h) in dst.iter_mut().zip(tmp.chunks_exact(4)) {
                *d = h[0] ^ h[1] ^ h[2] ^ h[3];
            }
        }
    });
}

/// `q ⊕ (c ∧ key)`, blockwise.
#[inline]
pub(crate) fn mask_word(q: &Word, c: &Word, key: &Word) -> Word {
    core::array::from_fn(|b| q[b] ^ (c[b] & key[b]))
}

/// The sender's OPRF on one input: `F(j, x) = H(j, q_j ⊕ (C(x) ∧ s))`
/// ([KKRT16, Fig. 2]; `key` = `s`, `q` = `q_j`, `session` and `sha1` those
/// of the run). Equals the receiver's output of instance `j` when `x` is
/// its input.
pub fn oprf_eval<C: Code>(
    code: &C,
    key: &Word,
    q: &Word,
    session: Block,
    sha1: bool,
    j: usize,
    x: Block,
) -> Block {
    let w = [mask_word(q, &code.encode(x), key)];
    let mut out = [Block::ZERO];
    let tweaks = HashTweaks::new(session, sha1, j);
    hash_words(&w, 1, &tweaks, 1, Span::whole(1), &mut out);
    out[0]
}

/// [`oprf_eval`] on `inputs[k]` with the sender's row `q[k]` into
/// `out[k]`, for every `k < min(inputs.len(), q.len(), out.len())`, with
/// instance `k` at index `tweaks.first + k` of the session (`q` is the
/// slice of the sender's output from the first instance evaluated, whose
/// index in the session's whole run, including earlier extensions of
/// `protocols/kkrt_extend.otp` and `protocols/oos_extend.otp`, is
/// `tweaks.first`; `out` a buffer the caller may reuse, the rest of it
/// untouched). Batched: the codewords and hashes run 64 inputs per AES
/// call. Returns the number of values written.
pub fn oprf_eval_many<C: Code>(
    code: &C,
    key: &Word,
    q: &[Word],
    tweaks: &HashTweaks,
    inputs: &[Block],
    threads: usize,
    out: &mut [Block],
) -> usize {
    let n = inputs.len().min(q.len()).min(out.len());
    for_parts(&mut out[..n], threads, HASH_BATCH, |start, part| {
        let mut words = [[Block::ZERO; 4]; HASH_BATCH];
        for (c, dst) in part.chunks_mut(HASH_BATCH).enumerate() {
            let j0 = start + c * HASH_BATCH;
            let k = dst.len();
            let words = &mut words[..k];
            code.encode_many(&inputs[j0..j0 + k], words);
            for (w, qj) in words.iter_mut().zip(&q[j0..j0 + k]) {
                *w = mask_word(qj, w, key);
            }
            let at = HashTweaks {
                first: tweaks.first.wrapping_add(j0),
                ..*tweaks
            };
            hash_words(words, k, &at, 1, Span::whole(k), dst);
        }
    });
    n
}

/// The receiver's padded messages of OOS: `choices` followed by `extra`,
/// every message reduced to the code's dimension (the padding messages are
/// random and mask the check values, [`word_row_check`]).
pub fn code_pad_messages(code: &LinearCode, choices: &[Block], extra: &[Block]) -> Vec<Block> {
    let mut w = Vec::with_capacity(choices.len() + extra.len());
    w.extend_from_slice(choices);
    w.extend_from_slice(extra);
    code.reduce_messages(&mut w);
    w
}

/// The first `count` words of `v` (the sender keeps the OPRF rows of the
/// `m` instances; the check columns are dropped), truncated in place.
pub fn first_words(mut v: Vec<Word>, count: usize) -> Vec<Word> {
    v.truncate(count);
    v
}

/// 128-column groups per batch of [`word_row_check`] (4 x 512 row pieces,
/// 32 KiB).
const CHECK_BATCH: usize = 4;

/// Unreduced per-row sums of [`word_row_check`] over the full groups
/// `groups`, each group's 128 words transposed into its 512 row pieces.
fn word_check_acc(
    cols: &[Word],
    groups: core::ops::Range<usize>,
    chi_key: Block,
) -> (Vec<Block>, Vec<Block>) {
    let backend = GfBackend::selected();
    let mut lo = Block::zeroed_vec(WORD_BITS);
    let mut hi = Block::zeroed_vec(WORD_BITS);
    let mut prg = Prg::new_at(chi_key, groups.start as u64);
    let mut chi = [Block::ZERO; CHECK_BATCH];
    let mut pieces = Block::zeroed_vec(CHECK_BATCH * WORD_BITS);
    let mut g = groups.start;
    while g < groups.end {
        let n = (groups.end - g).min(CHECK_BATCH);
        prg.fill(&mut chi[..n]);
        for (k, dst) in pieces.chunks_exact_mut(WORD_BITS).take(n).enumerate() {
            word_group_pieces(&cols[(g + k) * 128..(g + k + 1) * 128], dst);
        }
        let next_end = ((g + n + CHECK_BATCH) * 128).min(groups.end * 128);
        let ahead: &[Block] = bytemuck::cast_slice(&cols[((g + n) * 128).min(next_end)..next_end]);
        gf128::mul_acc_rows_with(
            backend,
            &chi[..n],
            &pieces[..n * WORD_BITS],
            &mut lo,
            &mut hi,
            ahead,
        );
        g += n;
    }
    (lo, hi)
}

/// `pieces[i]` bit `b` = bit `i` of `group[b]` (missing words zero): the
/// 512 row pieces of up to 128 consecutive columns.
fn word_group_pieces(group: &[Word], pieces: &mut [Block]) {
    let mut tile = [[Block::ZERO; 4]; 128];
    let src = if group.len() >= 128 {
        &group[..128]
    } else {
        tile[..group.len()].copy_from_slice(group);
        &tile[..]
    };
    let r = transpose::transpose_cols(
        Backend::selected(),
        bytemuck::cast_slice(src),
        128,
        WORD_BITS,
        0..WORD_BITS,
        pieces,
        false,
    );
    debug_assert!(r.is_ok(), "a 128 x 512 tile");
}

/// Row hashes of the OOS consistency check, the row-wise check of
/// SoftSpokenOT [Roy22, eprint 2022/192, §5] for a 512-row matrix given by
/// its columns (`cols[j]` bit `i` = row `i`, column `j`): 512 blocks,
/// `out[i] = piece(row_i, m) ⊕ Σ_{j < D} χ_j · datapiece_j(row_i)` with
/// `m = count`, `D = ceil(m / 128)`, exactly the conventions (pieces,
/// challenges `χ_j` = block `j` of `Prg::new(chi_key)`) of
/// [`crate::otext::consistency::kos_row_check`], which computes the same for
/// 128-row matrices (the receiver's message rows). Columns `cols` does not
/// hold read as zero. `threads > 1` splits the groups over rayon; the
/// result does not depend on it.
pub fn word_row_check(cols: &[Word], count: usize, chi_key: Block, threads: usize) -> Vec<Block> {
    let avail = count.min(cols.len());
    let full = avail / 128;
    let k = threads.min(full / 16).max(1);
    let per = full.div_ceil(k).max(1);
    let (mut lo, mut hi) = (0..k)
        .into_par_iter()
        .map(|t| {
            let start = (t * per).min(full);
            word_check_acc(cols, start..(start + per).min(full), chi_key)
        })
        .reduce(
            || (Block::zeroed_vec(WORD_BITS), Block::zeroed_vec(WORD_BITS)),
            |(mut a, mut b), (c, d)| {
                xor_into(&mut a, &c);
                xor_into(&mut b, &d);
                (a, b)
            },
        );
    let mut pieces = Block::zeroed_vec(WORD_BITS);
    if avail > full * 128 {
        word_group_pieces(&cols[full * 128..avail], &mut pieces);
        let chi = Prg::new_at(chi_key, full as u64).next_block();
        gf128::mul_acc_rows_with(
            GfBackend::selected(),
            &[chi],
            &pieces,
            &mut lo,
            &mut hi,
            &[],
        );
    }
    let mask = cols.get(count..).unwrap_or(&[]);
    word_group_pieces(&mask[..mask.len().min(128)], &mut pieces);
    (0..WORD_BITS)
        .map(|i| gf128::reduce(lo[i], hi[i]) ^ pieces[i])
        .collect()
}

/// The sender's decision of the OOS check: `q̃_i == t̃_i ⊕ s_i · C(x̃)_i`
/// for every row `i < 512`, where `q̃` is [`word_row_check`] of its rows
/// `q_j`, `t̃` the receiver's of `t_j`, `x̃` the receiver's
/// [`crate::otext::consistency::kos_row_check`] of its messages (message row `l`
/// = bit `l` of every message) and `C(x̃)` = [`LinearCode::encode_blocks`]
/// (`q_j = t_j ⊕ (C(w_j) ∧ s)` and `C` is linear, so an honest run
/// passes). Constant time in `key` (`s`) and the values; false on wrong
/// lengths.
pub fn oos_rows_consistent(
    code: &LinearCode,
    q_rows: &[Block],
    t_rows: &[Block],
    x_rows: &[Block],
    key: &Word,
) -> bool {
    if q_rows.len() != WORD_BITS || t_rows.len() != WORD_BITS {
        return false;
    }
    let cx = code.encode_blocks(&x_rows[..x_rows.len().min(code.dimension())]);
    let mut diff = 0u128;
    for i in 0..WORD_BITS {
        let s_i = Block::mask((key[i / 128].0 >> (i % 128)) & 1 == 1);
        diff |= (q_rows[i] ^ t_rows[i] ^ (cx[i] & s_i)).0;
    }
    bool::from(diff.ct_eq(&0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oprf::code::PrCode;
    use crate::otext::stream::prg_keys;
    use crate::whole;

    fn seeds(n: usize, tag: u128) -> Vec<Block> {
        (0..n as u128).map(|i| Block(i * 0x9e37 + tag)).collect()
    }

    /// Bit `i` of a word.
    fn bit(w: &Word, i: usize) -> bool {
        (w[i / 128].0 >> (i % 128)) & 1 == 1
    }

    #[test]
    fn code_matrix_matches_bitwise_definition() {
        for m in [1usize, 127, 128, 300, 600] {
            let k0 = prg_keys(&seeds(512, 1));
            let k1 = prg_keys(&seeds(512, 2));
            let code = PrCode::from_session(Block(9));
            let inputs: Vec<Block> = (0..m as u128).map(|i| Block(i ^ 0x55)).collect();
            let t = whole::prg_rows(&k0, m, 1);
            let g = whole::prg_rows(&k1, m, 1);
            for threads in [1, 3] {
                let u = whole::code_matrix(&t, &k1, &code, &inputs, threads);
                assert_eq!((u.rows(), u.cols()), (512, m));
                for (j, &x) in inputs.iter().enumerate() {
                    let c = code.encode(x);
                    for i in (0..512).step_by(37) {
                        assert_eq!(u.get(i, j), t.get(i, j) ^ g.get(i, j) ^ bit(&c, i));
                    }
                }
            }
            // Chunked equals whole.
            let whole = whole::code_matrix(&t, &k1, &code, &inputs, 1);
            let mut part = BitMatrix::default();
            let tc = {
                let mut c = BitMatrix::default();
                crate::otext::stream::prg_rows(
                    &k0,
                    m,
                    1,
                    Span::new(128, m.saturating_sub(128)),
                    &mut c,
                );
                c
            };
            if m > 128 {
                code_matrix(
                    &tc,
                    &k1,
                    &code,
                    &inputs[128..],
                    2,
                    Span::new(128, m - 128),
                    &mut part,
                );
                for i in 0..512 {
                    for j in 0..m - 128 {
                        assert_eq!(part.get(i, j), whole.get(i, j + 128));
                    }
                }
            }
        }
    }

    #[test]
    fn sender_rows_are_receiver_rows_plus_masked_code() {
        let m = 700;
        let pairs: Vec<[Block; 2]> = seeds(512, 3)
            .into_iter()
            .zip(seeds(512, 4))
            .map(|(a, b)| [a, b])
            .collect();
        let s = Bits::from_bools(
            &(0..512)
                .map(|i| (i * 7 + i / 3) % 5 < 2)
                .collect::<Vec<_>>(),
        );
        let chosen: Vec<Block> = (0..512).map(|i| pairs[i][s.get(i) as usize]).collect();
        let code = PrCode::from_session(Block(77));
        let inputs: Vec<Block> = (0..m as u128).map(|i| Block(i * 3)).collect();
        let k0 = prg_keys(&pairs.iter().map(|p| p[0]).collect::<Vec<_>>());
        let k1 = prg_keys(&pairs.iter().map(|p| p[1]).collect::<Vec<_>>());
        let t = whole::prg_rows(&k0, m, 1);
        let u = whole::code_matrix(&t, &k1, &code, &inputs, 2);
        let q = whole::masked_words(&prg_keys(&chosen), &u, &s, 2);
        let tw = whole::transpose_words(&t, 2);
        let key = bits_word(&s);
        let sid = Block(5);
        let x = whole::hash_words(&tw, m, &HashTweaks::new(sid, false, 0), 2);
        for j in 0..m {
            assert_eq!(q[j], mask_word(&tw[j], &code.encode(inputs[j]), &key));
            assert_eq!(
                oprf_eval(&code, &key, &q[j], sid, false, j, inputs[j]),
                x[j]
            );
            assert_ne!(
                oprf_eval(&code, &key, &q[j], sid, false, j, Block(1 << 100)),
                x[j]
            );
        }
        let mut evals = vec![Block::ZERO; m + 5];
        assert_eq!(
            oprf_eval_many(
                &code,
                &key,
                &q,
                &HashTweaks::new(sid, false, 0),
                &inputs,
                3,
                &mut evals
            ),
            m
        );
        assert_eq!(evals[..m], x[..]);
        let xs = whole::hash_words(&tw, m, &HashTweaks::new(sid, true, 0), 1);
        assert_eq!(
            oprf_eval(&code, &key, &q[9], sid, true, 9, inputs[9]),
            xs[9]
        );
        assert_ne!(xs[9], x[9]);
    }

    #[test]
    fn hash_words_is_sum_of_block_tccr() {
        let w: Vec<Word> = (0..130u128)
            .map(|i| [Block(i), Block(i + 1), Block(i * 5), Block(!i)])
            .collect();
        let sid = Block(0xabc);
        let h = whole::hash_words(&w, 130, &HashTweaks::new(sid, false, 0), 1);
        for (j, x) in w.iter().enumerate() {
            let e = (0..4).fold(Block::ZERO, |a, b| {
                a ^ hash::tccr(
                    HashTweaks::new(sid, false, 0).session_half(),
                    (4 * j + b) as u64,
                    x[b],
                )
            });
            assert_eq!(h[j], e);
        }
    }

    #[test]
    fn hashes_from_a_starting_index_are_the_global_hashes() {
        let w: Vec<Word> = (0..300u128)
            .map(|i| [Block(i * 3), Block(i + 7), Block(!i), Block(i << 64)])
            .collect();
        let sid = Block(0x5e55);
        for sha1 in [false, true] {
            let whole = whole::hash_words(&w, 300, &HashTweaks::new(sid, sha1, 0), 1);
            // Entries 100.. hashed as a session's second extension.
            let tail = whole::hash_words(&w[100..], 200, &HashTweaks::new(sid, sha1, 100), 2);
            assert_eq!(tail, whole[100..]);
            let mut part = vec![Block::ZERO; 50];
            hash_words(
                &w[150..],
                200,
                &HashTweaks::new(sid, sha1, 100),
                1,
                Span::new(50, 50),
                &mut part,
            );
            assert_eq!(part, whole[150..200]);
            assert_eq!(
                whole::hash_words(&w, 300, &HashTweaks::new(sid, sha1, 0), 1),
                whole
            );
        }
        // The sender's evaluation at global index base + first + k.
        let code = PrCode::from_session(Block(8));
        let key = [Block(0xf0f0), Block(!0), Block(3), Block(1 << 90)];
        let inputs: Vec<Block> = (0..150u128).map(Block).collect();
        let mut out = vec![Block::ZERO; 150];
        let n = oprf_eval_many(
            &code,
            &key,
            &w[20..],
            &HashTweaks::new(sid, false, 1020),
            &inputs,
            2,
            &mut out,
        );
        assert_eq!(n, 150);
        for (k, &x) in inputs.iter().enumerate() {
            let e = oprf_eval(&code, &key, &w[20 + k], sid, false, 1020 + k, x);
            assert_eq!(out[k], e, "instance {k}");
        }
        assert_eq!(word_bits(&key).len(), 512);
        assert_eq!(bits_word(&word_bits(&key)), key);
    }

    #[test]
    fn word_row_check_is_kos_row_check_per_slab() {
        let mut prg = Prg::new(Block(3));
        for (m, extra) in [
            (1usize, 128usize),
            (128, 128),
            (300, 128),
            (2100, 128),
            (200, 5),
        ] {
            let mut cols = vec![[Block::ZERO; 4]; m + extra];
            for w in cols.iter_mut() {
                prg.fill(w);
            }
            let key = Block(0x77);
            for threads in [1, 3] {
                let wide = word_row_check(&cols, m, key, threads);
                for b in 0..4 {
                    let slab: Vec<Block> = cols.iter().map(|w| w[b]).collect();
                    let narrow = crate::otext::consistency::kos_row_check(&slab, m, key, 1);
                    assert_eq!(&wide[128 * b..128 * (b + 1)], &narrow[..], "m {m} slab {b}");
                }
            }
        }
    }

    #[test]
    fn oos_check_accepts_honest_rows_and_rejects_a_non_codeword() {
        let code = LinearCode::bch_511_76();
        let m = 400;
        let mut prg = Prg::new(Block(11));
        let mut raw = vec![Block::ZERO; m + 128];
        prg.fill(&mut raw);
        let w = code_pad_messages(&code, &raw[..m], &raw[m..]);
        let mut key = [Block::ZERO; 4];
        prg.fill(&mut key);
        let mut t = vec![[Block::ZERO; 4]; m + 128];
        for x in t.iter_mut() {
            prg.fill(x);
        }
        let mut q: Vec<Word> = t
            .iter()
            .zip(&w)
            .map(|(tj, &wj)| mask_word(tj, &code.encode(wj), &key))
            .collect();
        let chi = Block(99);
        let x = crate::otext::consistency::kos_row_check(&w, m, chi, 1);
        let tt = word_row_check(&t, m, chi, 1);
        assert!(oos_rows_consistent(
            &code,
            &word_row_check(&q, m, chi, 2),
            &tt,
            &x,
            &key
        ));
        // A column that is not a codeword of the claimed message.
        q[17][1].0 ^= key[1].0 & (1 << 3);
        q[17][1].0 ^= 1 << 3;
        let bad = word_row_check(&q, m, chi, 1);
        let flips = key[1].0 & (1 << 3) == 0;
        assert_eq!(oos_rows_consistent(&code, &bad, &tt, &x, &key), !flips);
        assert!(!oos_rows_consistent(&code, &bad[..511], &tt, &x, &key));
    }
}
