//! The public parameters of a QuietOT session and the output hash.
//!
//! QuietOT's expansion is local: both parties derive the same public
//! pseudorandom inputs `x_n` from a shared seed and hash their key
//! evaluations [QuietOT, eprint 2024/1079, §4 (the PCF from a CPRF:
//! outputs `H(x, F(k, x) + j·Δ)`)]. Here the seed and a salt chosen in the
//! setup are expanded by SHA-256 under a per-variant domain label into
//! three keys: the AES-CTR key of the inputs, the key of a GF(2^128)
//! polynomial hash, and the AES key of the output hash. The output hash is
//! `H(u) = lsb(AES_k(u) ⊕ u)` (Matyas–Meyer–Oseas under the session key)
//! of the polynomial hash `u` of (OT index, the OT's own input, every
//! coordinate of the candidate value), so each output binds the domain
//! label, the session, the OT and its input.
#![forbid(unsafe_code)]

use crate::primitives::aes::Aes128;
use crate::primitives::gf128;
use crate::Block;

/// Number of powers of the polynomial-hash key kept (the longest hash
/// input, GAR's, has 12 blocks).
pub const MAX_HASH_BLOCKS: usize = 16;

/// Expanded public parameters of one QuietOT session.
#[derive(Clone, Debug)]
pub struct QuietPublic {
    /// AES-CTR key schedule of the public inputs.
    pub inputs: Aes128,
    /// `powers[i] = k^(i+1)` for the polynomial-hash key `k`.
    pub powers: [Block; MAX_HASH_BLOCKS],
    /// Key schedule of the output hash.
    pub out: Aes128,
    /// Key schedule of the block hash of the conversion to 1-out-of-2 OT
    /// (a separate key, so converted blocks and PCF bits are independent).
    pub conv: Aes128,
    /// The 128-bit session id (what the keys were derived from).
    pub session: Block,
}

impl QuietPublic {
    /// Parameters for `label` (a domain label such as `b"quietot/bipsw"`)
    /// from the shared `seed` and `salt` and the key length.
    pub fn derive(label: &[u8], seed: Block, salt: Block, key_len: u64) -> QuietPublic {
        let session = crate::otext::session_id_with(label, seed, &[salt.lo(), salt.hi(), key_len]);
        let sub = |i: u64| crate::otext::session_id_with(label, session, &[key_len, i]);
        let k = sub(2);
        let mut powers = [Block::ZERO; MAX_HASH_BLOCKS];
        let mut p = k;
        for slot in powers.iter_mut() {
            *slot = p;
            p = gf128::mul(p, k);
        }
        QuietPublic {
            inputs: Aes128::new(sub(1)),
            powers,
            out: Aes128::new(sub(3)),
            conv: Aes128::new(sub(4)),
            session,
        }
    }

    /// The polynomial hash `Σ b_i · k^(len − i)` of `blocks` (at most
    /// [`MAX_HASH_BLOCKS`]; further blocks are ignored).
    pub fn poly(&self, blocks: &[Block]) -> Block {
        let n = blocks.len().min(MAX_HASH_BLOCKS);
        let mut acc = Block::ZERO;
        for (i, b) in blocks[..n].iter().enumerate() {
            acc ^= gf128::mul(*b, self.powers[n - 1 - i]);
        }
        acc
    }

    /// Batched terms: `out[i] = Σ_g x[g·rows + i] · k^(top − g + 1)` with
    /// `rows = out.len()` (`x` group-major: the blocks at distance `top − g`
    /// from the end of `rows` hash inputs). Unreduced products on the
    /// (V)PCLMULQDQ backend, one reduction per row.
    pub fn poly_rows(&self, x: &[Block], top: usize, out: &mut [Block]) {
        let rows = out.len();
        if rows == 0 {
            return;
        }
        let groups = (x.len() / rows).min(top + 1).min(MAX_HASH_BLOCKS);
        let c: Vec<Block> = (0..groups).map(|g| self.powers[top - g]).collect();
        let mut lo = vec![Block::ZERO; rows];
        let mut hi = vec![Block::ZERO; rows];
        gf128::mul_acc_rows_with(gf128::GfBackend::selected(), &c, x, &mut lo, &mut hi, &[]);
        for ((o, l), h) in out.iter_mut().zip(lo).zip(hi) {
            *o = gf128::reduce(l, h);
        }
    }

    /// `b · k^(e+1)` (the term of a block at distance `e` from the end).
    #[inline]
    pub fn term(&self, b: Block, e: usize) -> Block {
        gf128::mul(b, self.powers[e])
    }

    /// The output bits `lsb(AES(u) ⊕ u)` of the hashes `u` (in place: each
    /// block is replaced by its full MMO output; the caller keeps bit 0).
    pub fn finish(&self, u: &mut [Block]) {
        self.out.mmo_blocks(u);
    }

    /// The 128-bit hashes `AES_conv(u) ⊕ u` of the conversion to random
    /// 1-out-of-2 OT (in place), under the session's conversion key.
    pub fn finish_blocks(&self, u: &mut [Block]) {
        self.conv.mmo_blocks(u);
    }
}

/// The sender's OTs of a batch: bit `j` of `bits[k]` is the message `s[j]`
/// of OT `first + k` (`W = u8` for BIPSW's six, `u32` for GAR's 32).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuietSenderOts<W> {
    /// Index of the first OT (its `n`).
    pub first: u64,
    /// The message bits of each OT.
    pub bits: Vec<W>,
}

/// Whether the `m` OTs that a QuietOT run returns fit the memory budget
/// ([`crate::transport::limits::memory_budget`]): the sender's `m` words of
/// `sender_word` bytes ([`QuietSenderOts`]) and the receiver's index and
/// bit per OT ([`QuietReceiverOts`]), each alone. `Params::new` of
/// `quiet_bipsw` and `quiet_gar` requires it, since these outputs are
/// extern types whose heap the generated size checks (by `size_of`) do
/// not see; without it a huge `m` would abort the process on allocation
/// after the base OTs.
pub fn ots_fit_budget(m: usize, sender_word: usize) -> bool {
    let budget = crate::transport::limits::memory_budget();
    let fits = |bytes: Option<usize>| bytes.is_some_and(|b| b <= budget);
    fits(m.checked_mul(sender_word)) && fits(m.checked_mul(2))
}

/// The receiver's OTs of a batch: its index `c` and the bit `s[c]` per OT.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct QuietReceiverOts {
    /// Index of the first OT (its `n`).
    pub first: u64,
    /// The receiver's index `c` of each OT.
    pub index: Vec<u8>,
    /// `s[c]` (0 or 1) of each OT.
    pub bits: Vec<u8>,
}

/// The receiver's expansion loop shared by both variants and both outputs
/// (PCF bits, converted blocks): for each batch of at most `batch` OTs
/// starting at OT `n0 = first + off`, `fill(n0, index, u)` writes the
/// indices and hash inputs, then `finish(off, u)` consumes the hashes.
fn receiver_batches(
    first: u64,
    batch: usize,
    index: &mut [u8],
    mut fill: impl FnMut(u64, &mut [u8], &mut [Block]),
    mut finish: impl FnMut(usize, &mut [Block]),
) {
    let mut u = vec![Block::ZERO; batch];
    for (bi, ic) in index.chunks_mut(batch).enumerate() {
        let off = bi * batch;
        let u = &mut u[..ic.len()];
        fill(first.wrapping_add(off as u64), ic, u);
        finish(off, u);
    }
}

/// The sender's batch sink of the PCF bits: bit `j` of `out[off + k]` is
/// `lsb(H(u[n·k + j]))` (`n` candidates per OT).
pub(crate) fn bits_sink<'a, W>(
    pp: &'a QuietPublic,
    n: usize,
    out: &'a mut [W],
) -> impl FnMut(usize, &mut [Block]) + 'a
where
    W: Copy + Default + From<u8> + core::ops::BitOr<Output = W> + core::ops::Shl<usize, Output = W>,
{
    move |off, u| {
        pp.finish(u);
        for (o, cand) in out[off..].iter_mut().zip(u.chunks_exact(n)) {
            let mut v = W::default();
            for (j, h) in cand.iter().enumerate() {
                v = v | (W::from((h.0 & 1) as u8) << j);
            }
            *o = v;
        }
    }
}

/// The sender's batch sink of the conversion: the 128-bit hashes of the
/// `n` candidates of OT `off + k` into `blocks[n·(off + k) ..]`.
pub(crate) fn blocks_sink<'a>(
    pp: &'a QuietPublic,
    n: usize,
    blocks: &'a mut [Block],
) -> impl FnMut(usize, &mut [Block]) + 'a {
    move |off, u| {
        pp.finish_blocks(u);
        blocks[n * off..n * off + u.len()].copy_from_slice(u);
    }
}

/// [`receiver_batches`] for the conversion: the receiver's indices and the
/// 128-bit hashes of its candidates for `count` OTs from `first`.
pub(crate) fn receiver_blocks(
    pp: &QuietPublic,
    first: u64,
    count: usize,
    batch: usize,
    fill: impl FnMut(u64, &mut [u8], &mut [Block]),
) -> (Vec<u8>, Vec<Block>) {
    let mut index = vec![0u8; count];
    let mut blocks = vec![Block::ZERO; count];
    receiver_batches(
        first,
        batch,
        &mut index,
        fill,
        blocks_sink(pp, 1, &mut blocks),
    );
    (index, blocks)
}

/// [`receiver_batches`] with the PCF output bits `lsb(H(u))` into `out`.
pub(crate) fn receiver_bits(
    pp: &QuietPublic,
    batch: usize,
    out: &mut QuietReceiverOts,
    fill: impl FnMut(u64, &mut [u8], &mut [Block]),
) {
    let count = out.index.len().min(out.bits.len());
    let bits = &mut out.bits[..count];
    receiver_batches(out.first, batch, &mut out.index[..count], fill, |off, u| {
        pp.finish(u);
        for (o, h) in bits[off..].iter_mut().zip(u.iter()) {
            *o = (h.0 & 1) as u8;
        }
    });
}

impl QuietReceiverOts {
    /// `count` zeroed OTs starting at `first`.
    pub fn zeroed(first: u64, count: usize) -> QuietReceiverOts {
        QuietReceiverOts {
            first,
            index: vec![0; count],
            bits: vec![0; count],
        }
    }
}
