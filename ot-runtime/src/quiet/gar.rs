//! QuietOT with the GAR (XOR-MAJ) weak PRF: kernels of the expansion and
//! the setup.
//!
//! [QuietOT, eprint 2024/1079, §5.2 (the CPRF from the XOR-MAJ predicate of
//! Goldreich's PRG, following Applebaum–Raykov)]: the input of OT `n` is a
//! public set of 5 + 15 distinct indices in `0..2048`; the key has, per
//! index, a Z_2^192 part and a Z_16^192 part; `Δ = (Δ_x, Δ_m)`. The
//! constrained key of `z ∈ {0,1}^2048` is `csk_i = msk_i + z_i·Δ` (XOR on
//! the first part, addition mod 16 on the second). Evaluating `X = ⊕_{i ∈
//! S_xor} k_i` and `M = Σ_{i ∈ S_maj} k_i mod 16` gives, for the
//! constrained key, `X ⊕ p·Δ_x` and `M + w·Δ_m` with `p` the parity of `z`
//! on `S_xor` and `w ∈ 0..16` the number of ones of `z` on `S_maj` (the
//! state of the XOR-MAJ predicate before rounding). The sender's 32
//! outputs are `s[16p + w] = H(n, S, X ⊕ p·Δ_x, M + w·Δ_m)`, the receiver's
//! `(c = 16p + w, H(n, S, X', M'))`: a random 1-out-of-32 OT of bits (§4).
//!
//! Setup: one random 1-out-of-2 OT per key element with choice bit `z_i`,
//! derandomized into a correlated OT by one correction of eight blocks.
#![forbid(unsafe_code)]

use super::convert::{QuietRotReceiver, QuietRotSender};
use super::public::{
    bits_sink, blocks_sink, receiver_bits, receiver_blocks, QuietPublic, QuietReceiverOts,
    QuietSenderOts,
};
use crate::primitives::prg::Prg;
use crate::primitives::span::Span;
use crate::{Bits, Block};

/// Key length (number of key elements) [QuietOT §6.1, parameter set 1].
pub const KEY_LEN: usize = 2048;
/// Indices under XOR per input.
pub const XOR_LEN: usize = 5;
/// Indices under MAJ per input.
pub const MAJ_LEN: usize = 15;
/// Coordinates of a key element (Z_2^192 and Z_16^192).
pub const DIM: usize = 192;
/// Blocks of `Δ` and of one setup correction: 2 (XOR part) + 6 (nibbles).
pub const ELEM_BLOCKS: usize = 8;
/// Blocks of the setup corrections.
pub const CORRECTION_BLOCKS: usize = ELEM_BLOCKS * KEY_LEN;
/// Domain label of the session keys.
pub const LABEL: &[u8] = b"quietot/gar";
/// AES-CTR blocks per input (32 candidate indices).
const INPUT_CTR_BLOCKS: u64 = 4;
/// OTs processed per batch.
const BATCH: usize = 32;

/// The public input of one OT: distinct indices, 5 under XOR then 15 under MAJ.
pub type GarInput = [u16; XOR_LEN + MAJ_LEN];

/// A GAR key (master or constrained).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GarKey {
    xor: Vec<[u64; 3]>,
    maj: Vec<[u8; DIM]>,
}

/// One evaluation: the XOR part and the MAJ part (values mod 16).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GarValue {
    /// 192 bits.
    pub xor: [u64; 3],
    /// 192 values in `0..16`.
    pub maj: [u8; DIM],
}

impl GarKey {
    /// A key from its parts; `None` unless both have [`KEY_LEN`] elements
    /// and every MAJ value is below 16.
    pub fn from_parts(xor: Vec<[u64; 3]>, maj: Vec<[u8; DIM]>) -> Option<GarKey> {
        (xor.len() == KEY_LEN
            && maj.len() == KEY_LEN
            && maj.iter().all(|r| r.iter().all(|&v| v < 16)))
        .then_some(GarKey { xor, maj })
    }

    /// The XOR parts of the key elements.
    pub fn xor_part(&self) -> &[[u64; 3]] {
        &self.xor
    }

    /// The MAJ parts of the key elements.
    pub fn maj_part(&self) -> &[[u8; DIM]] {
        &self.maj
    }

    /// Evaluation on an input (indices must be below [`KEY_LEN`]; larger
    /// ones are taken mod [`KEY_LEN`]).
    #[inline]
    pub fn eval(&self, s: &GarInput) -> GarValue {
        let mut xor = [0u64; 3];
        for &i in &s[..XOR_LEN] {
            let r = &self.xor[i as usize % KEY_LEN];
            for t in 0..3 {
                xor[t] ^= r[t];
            }
        }
        let mut maj = [0u8; DIM];
        for &i in &s[XOR_LEN..] {
            let r = &self.maj[i as usize % KEY_LEN];
            for (a, b) in maj.iter_mut().zip(r.iter()) {
                *a = a.wrapping_add(*b);
            }
        }
        for a in maj.iter_mut() {
            *a &= 15;
        }
        GarValue { xor, maj }
    }
}

/// The input of OT `n` from its four AES-CTR blocks `4n .. 4n + 3`: the
/// 11-bit values of their 32 little-endian u16, first 20 distinct ones;
/// in the (negligibly rare) case that 32 are not enough, further blocks
/// come from the counter range `2^63 + 16n ..`.
pub fn input(pp: &QuietPublic, n: u64, first_blocks: &[Block; 4]) -> GarInput {
    let mut out = [0u16; XOR_LEN + MAJ_LEN];
    let mut len = 0;
    let mut take = |blocks: &[Block], len: &mut usize| {
        for b in blocks {
            for c in b.to_bytes().chunks_exact(2) {
                let v = u16::from_le_bytes([c[0], c[1]]) & (KEY_LEN as u16 - 1);
                if *len < out.len() && !out[..*len].contains(&v) {
                    out[*len] = v;
                    *len += 1;
                }
            }
        }
    };
    take(first_blocks, &mut len);
    let mut extra = 0u64;
    while len < XOR_LEN + MAJ_LEN {
        let mut b = [Block::ZERO];
        pp.inputs.ctr(
            (1u64 << 63)
                .wrapping_add(n.wrapping_mul(16))
                .wrapping_add(extra),
            &mut b,
        );
        take(&b, &mut len);
        extra += 1;
    }
    out
}

/// The inputs of OTs `first, first + 1, ...` into `out`.
pub fn inputs(pp: &QuietPublic, first: u64, out: &mut [GarInput]) {
    let mut ctr = vec![[Block::ZERO; 4]; out.len()];
    pp.inputs.ctr(
        first.wrapping_mul(INPUT_CTR_BLOCKS),
        bytemuck::cast_slice_mut(&mut ctr),
    );
    for (k, (o, c)) in out.iter_mut().zip(&ctr).enumerate() {
        *o = input(pp, first.wrapping_add(k as u64), c);
    }
}

/// Packs 192 values mod 16 into six blocks of nibbles (coordinate `2b` in
/// the low nibble of byte `b`).
pub fn pack_nibbles(v: &[u8; DIM]) -> [Block; 6] {
    let mut bytes = [0u8; 96];
    for (b, pair) in bytes.iter_mut().zip(v.chunks_exact(2)) {
        *b = (pair[0] & 15) | (pair[1] << 4);
    }
    let mut out = [Block::ZERO; 6];
    for (o, c) in out.iter_mut().zip(bytes.chunks_exact(16)) {
        let mut a = [0u8; 16];
        a.copy_from_slice(c);
        *o = Block::from_bytes(a);
    }
    out
}

/// Unpacks six blocks of nibbles.
pub fn unpack_nibbles(b: &[Block]) -> [u8; DIM] {
    let mut v = [0u8; DIM];
    for (i, blk) in b.iter().take(6).enumerate() {
        for (k, byte) in blk.to_bytes().iter().enumerate() {
            v[32 * i + 2 * k] = byte & 15;
            v[32 * i + 2 * k + 1] = byte >> 4;
        }
    }
    v
}

/// Nibble-wise addition mod 16 of packed blocks (SWAR).
#[inline(always)]
fn nib_add(a: u128, b: u128) -> u128 {
    const LOW: u128 = 0x7777_7777_7777_7777_7777_7777_7777_7777;
    ((a & LOW) + (b & LOW)) ^ ((a ^ b) & !LOW)
}

/// Nibble-wise difference mod 16 of packed blocks.
fn nib_sub(a: u128, b: u128) -> u128 {
    // a - b = a + (~b + 1) nibble-wise.
    const ONES: u128 = 0x1111_1111_1111_1111_1111_1111_1111_1111;
    nib_add(a, nib_add(!b, ONES))
}

/// The first six hash-input blocks of OT `n`: `n`, its indices (three
/// blocks of little-endian u16) and the XOR part `X` (two blocks).
fn head_blocks(n: u64, s: &GarInput, x: &[u64; 3]) -> [Block; 6] {
    let mut bytes = [0u8; 48];
    for (c, v) in bytes.chunks_exact_mut(2).zip(s.iter()) {
        c.copy_from_slice(&v.to_le_bytes());
    }
    let mut out = [Block::ZERO; 6];
    out[0] = Block::from_u64(n);
    for (o, c) in out[1..4].iter_mut().zip(bytes.chunks_exact(16)) {
        let mut a = [0u8; 16];
        a.copy_from_slice(c);
        *o = Block::from_bytes(a);
    }
    out[4] = Block::from_u64s(x[0], x[1]);
    out[5] = Block::from_u64(x[2]);
    out
}

#[inline]
fn xor_terms(pp: &QuietPublic, x: &[u64; 3]) -> Block {
    pp.term(Block::from_u64s(x[0], x[1]), 7) ^ pp.term(Block::from_u64(x[2]), 6)
}

/// The output hash input of one candidate (reference: the polynomial hash
/// of `[n, indices (3 blocks), X (2 blocks), M (6 blocks of nibbles)]`).
pub fn hash_input_reference(pp: &QuietPublic, n: u64, s: &GarInput, v: &GarValue) -> Block {
    let mut blocks = head_blocks(n, s, &v.xor).to_vec();
    blocks.extend_from_slice(&pack_nibbles(&v.maj));
    pp.poly(&blocks)
}

/// `Δ` of GAR.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GarDelta {
    /// `Δ_x` (192 bits).
    pub xor: [u64; 3],
    /// `Δ_m` (192 values mod 16).
    pub maj: [u8; DIM],
}

/// `Δ` from its [`ELEM_BLOCKS`] blocks (XOR low, XOR high, six nibble blocks).
pub fn delta_from_blocks(d: &[Block]) -> GarDelta {
    let g = |i: usize| d.get(i).copied().unwrap_or_default();
    GarDelta {
        xor: [g(0).lo(), g(0).hi(), g(1).lo()],
        maj: unpack_nibbles(&(2..8).map(g).collect::<Vec<_>>()),
    }
}

/// A uniform `Δ` from a fresh `seed`, as [`ELEM_BLOCKS`] blocks.
pub fn delta_blocks(seed: Block) -> [Block; ELEM_BLOCKS] {
    expand_elem(seed)
}

/// `G(k)`: eight AES-CTR blocks of seed `k`, the second with its upper
/// 64 bits cleared (a key element or `Δ`, as blocks).
fn expand_elem(k: Block) -> [Block; ELEM_BLOCKS] {
    let mut b = [Block::ZERO; ELEM_BLOCKS];
    Prg::new(k).fill(&mut b);
    b[1] = Block::from_u64(b[1].lo());
    b
}

fn elem_from_blocks(b: &[Block; ELEM_BLOCKS]) -> ([u64; 3], [u8; DIM]) {
    ([b[0].lo(), b[0].hi(), b[1].lo()], unpack_nibbles(&b[2..]))
}

/// The sender's expansion state.
#[derive(Clone, Debug)]
pub struct GarSender {
    key: GarKey,
    delta: GarDelta,
    pp: QuietPublic,
}

/// The sender's OTs: 32 message bits per OT.
pub type GarSenderOts = QuietSenderOts<u32>;
/// The receiver's OTs: `c_n = 16·parity + count` and `s_n[c_n]`.
pub type GarReceiverOts = QuietReceiverOts;

impl GarSender {
    /// The state for master key `key`, `Δ` and the session.
    pub fn new(key: GarKey, delta: GarDelta, pp: QuietPublic) -> GarSender {
        GarSender { key, delta, pp }
    }

    /// The session's public parameters.
    pub fn public(&self) -> &QuietPublic {
        &self.pp
    }

    /// OTs `first .. first + count`.
    pub fn expand(&self, first: u64, count: usize) -> GarSenderOts {
        let mut bits = vec![0u32; count];
        self.expand_into(first, &mut bits);
        GarSenderOts { first, bits }
    }

    /// [`GarSender::expand`] into `out`.
    pub fn expand_into(&self, first: u64, out: &mut [u32]) {
        self.hashes(first, out.len(), bits_sink(&self.pp, 32, out));
    }

    /// The sender's half of the conversion to random 1-out-of-2 OT for OTs
    /// `first .. first + count`: the 128-bit hashes of all 32 candidates
    /// (see [`super::convert`]).
    pub fn rot(&self, first: u64, count: usize) -> QuietRotSender {
        let mut blocks = vec![Block::ZERO; 32 * count];
        self.hashes(first, count, blocks_sink(&self.pp, 32, &mut blocks));
        QuietRotSender::new(&super::convert::GAR_CLASSES, first, blocks)
    }

    /// The hash inputs `u` of the 32 candidates of OTs `first .. first +
    /// count`, batch by batch: `sink(offset, u)` gets `32 · rows` blocks
    /// (candidate `j` of OT `first + offset + k` at `32k + j`).
    fn hashes(&self, first: u64, count: usize, mut sink: impl FnMut(usize, &mut [Block])) {
        let pp = &self.pp;
        let dx = xor_terms(pp, &self.delta.xor);
        let dm = pack_nibbles(&self.delta.maj);
        let mut ins = [[0u16; XOR_LEN + MAJ_LEN]; BATCH];
        // Group-major hash inputs of a batch: [n, indices, X] per OT (six
        // blocks), and the six nibble blocks of each of its 16 MAJ candidates.
        let mut common = vec![Block::ZERO; 6 * BATCH];
        let mut majs = vec![Block::ZERO; 6 * 16 * BATCH];
        let mut hc = vec![Block::ZERO; BATCH];
        let mut hm = vec![Block::ZERO; 16 * BATCH];
        let mut u = vec![Block::ZERO; 32 * BATCH];
        for off in (0..count).step_by(BATCH) {
            let rows = (count - off).min(BATCH);
            let n0 = first.wrapping_add(off as u64);
            let ins = &mut ins[..rows];
            inputs(pp, n0, ins);
            for (k, s) in ins.iter().enumerate() {
                let v = self.key.eval(s);
                let head = head_blocks(n0.wrapping_add(k as u64), s, &v.xor);
                for (g, b) in head.iter().enumerate() {
                    common[g * rows + k] = *b;
                }
                let mut m = pack_nibbles(&v.maj);
                for w in 0..16 {
                    for (g, b) in m.iter().enumerate() {
                        majs[g * 16 * rows + 16 * k + w] = *b;
                    }
                    for (a, d) in m.iter_mut().zip(&dm) {
                        *a = Block(nib_add(a.0, d.0));
                    }
                }
            }
            pp.poly_rows(&common[..6 * rows], 11, &mut hc[..rows]);
            pp.poly_rows(&majs[..6 * 16 * rows], 5, &mut hm[..16 * rows]);
            for k in 0..rows {
                for w in 0..16 {
                    let t = hc[k] ^ hm[16 * k + w];
                    u[32 * k + w] = t;
                    u[32 * k + 16 + w] = t ^ dx;
                }
            }
            sink(off, &mut u[..32 * rows]);
        }
    }
}

/// The receiver's expansion state.
#[derive(Clone, Debug)]
pub struct GarReceiver {
    key: GarKey,
    z: Vec<u8>,
    pp: QuietPublic,
}

impl GarReceiver {
    /// The state for constrained key `key`, its `z` (the setup choice bits)
    /// and the session.
    pub fn new(key: GarKey, z: &Bits, pp: QuietPublic) -> GarReceiver {
        let z = (0..KEY_LEN)
            .map(|i| u8::from(z.try_get(i) == Some(true)))
            .collect();
        GarReceiver { key, z, pp }
    }

    /// The session's public parameters.
    pub fn public(&self) -> &QuietPublic {
        &self.pp
    }

    /// `c = 16·(⊕_{S_xor} z) + Σ_{S_maj} z`.
    #[inline]
    pub fn index(&self, s: &GarInput) -> u8 {
        let z = |i: &u16| self.z[*i as usize % KEY_LEN];
        let p = s[..XOR_LEN].iter().map(z).fold(0, |a, b| a ^ b);
        let w: u8 = s[XOR_LEN..].iter().map(z).sum();
        16 * p + w
    }

    /// OTs `first .. first + count`.
    pub fn expand(&self, first: u64, count: usize) -> GarReceiverOts {
        let mut out = QuietReceiverOts::zeroed(first, count);
        receiver_bits(&self.pp, BATCH, &mut out, self.filler());
        out
    }

    /// The receiver's half of the conversion to random 1-out-of-2 OT for
    /// OTs `first .. first + count`: its indices and the 128-bit hashes of
    /// its candidates (see [`super::convert`]).
    pub fn rot(&self, first: u64, count: usize) -> QuietRotReceiver {
        let (index, blocks) = receiver_blocks(&self.pp, first, count, BATCH, self.filler());
        QuietRotReceiver::new(&super::convert::GAR_CLASSES, first, index, blocks)
    }

    /// The batch filler: indices `c` and hash inputs of OTs `n0 ..`.
    fn filler(&self) -> impl FnMut(u64, &mut [u8], &mut [Block]) + '_ {
        let pp = &self.pp;
        let mut ins = [[0u16; XOR_LEN + MAJ_LEN]; BATCH];
        move |n0, ic, u| {
            let ins = &mut ins[..ic.len()];
            inputs(pp, n0, ins);
            for (k, s) in ins.iter().enumerate() {
                let v = self.key.eval(s);
                let mut blocks = head_blocks(n0.wrapping_add(k as u64), s, &v.xor).to_vec();
                blocks.extend_from_slice(&pack_nibbles(&v.maj));
                u[k] = pp.poly(&blocks);
                ic[k] = self.index(s);
            }
        }
    }
}

// ---- Setup kernels ----

/// The receiver's secret `z ∈ {0,1}^2048` (the setup OTs' choice bits).
pub fn choices(seed: Block) -> Bits {
    choices_n(seed, KEY_LEN)
}

/// [`choices`] as the intrinsic of `quiet_gar.otp` (`n` is [`KEY_LEN`],
/// fixed by the checker; other values give the same bits).
pub fn choices_n(seed: Block, _n: usize) -> Bits {
    Prg::new(seed).fill_bits(KEY_LEN)
}

/// The sender's master key: `msk_i = G(k0)` of random OT `i`.
pub fn master_key(messages: &[[Block; 2]]) -> GarKey {
    let (xor, maj) = (0..KEY_LEN)
        .map(|i| {
            elem_from_blocks(&expand_elem(
                messages.get(i).copied().unwrap_or_default()[0],
            ))
        })
        .unzip();
    GarKey { xor, maj }
}

/// The sender's corrections, eight blocks per OT `i`: `G(k0) ⊕ G(k1) ⊕ Δ_x`
/// (two blocks) and `G(k1) − G(k0) − Δ_m` nibble-wise (six blocks), so that
/// a receiver with choice bit `b` holds `G(k0) + b·Δ`.
pub fn corrections(messages: &[[Block; 2]], delta: &[Block]) -> Vec<Block> {
    corrections_n(messages, delta, CORRECTION_BLOCKS)
}

/// [`corrections`] as the intrinsic of `quiet_gar.otp` (`count` is
/// [`CORRECTION_BLOCKS`], fixed by the checker).
pub fn corrections_n(messages: &[[Block; 2]], delta: &[Block], _count: usize) -> Vec<Block> {
    let d = |i: usize| delta.get(i).copied().unwrap_or_default();
    let mut out = Vec::with_capacity(CORRECTION_BLOCKS);
    for i in 0..KEY_LEN {
        let k = messages.get(i).copied().unwrap_or_default();
        let (g0, g1) = (expand_elem(k[0]), expand_elem(k[1]));
        out.push(g0[0] ^ g1[0] ^ d(0));
        out.push(g0[1] ^ g1[1] ^ d(1));
        for t in 2..ELEM_BLOCKS {
            out.push(Block(nib_sub(nib_sub(g1[t].0, g0[t].0), d(t).0)));
        }
    }
    out
}

/// Whether a received correction vector is well formed (length, and the
/// unused upper half of each element's second XOR block zero).
pub fn corrections_valid(corr: &[Block]) -> bool {
    corr.len() == CORRECTION_BLOCKS && corr.chunks_exact(ELEM_BLOCKS).all(|c| c[1].hi() == 0)
}

/// The receiver's constrained key `csk_i = msk_i + z_i·Δ`.
pub fn constrained_key(chosen: &[Block], z: &Bits, corr: &[Block]) -> GarKey {
    let (xor, maj) = (0..KEY_LEN)
        .map(|i| {
            let mut g = expand_elem(chosen.get(i).copied().unwrap_or_default());
            if z.try_get(i) == Some(true) {
                let c = |t: usize| corr.get(ELEM_BLOCKS * i + t).copied().unwrap_or_default();
                g[0] ^= c(0);
                g[1] ^= c(1);
                for (t, gt) in g.iter_mut().enumerate().skip(2) {
                    *gt = Block(nib_sub(gt.0, c(t).0));
                }
            }
            elem_from_blocks(&g)
        })
        .unzip();
    GarKey { xor, maj }
}

// ---- Intrinsics of `quiet_gar.otp` (the expansion phase) ----

/// The session's public parameters from the setup's seed and salt.
pub fn public(seed: Block, salt: Block) -> QuietPublic {
    QuietPublic::derive(LABEL, seed, salt, KEY_LEN as u64)
}

/// The sender's expansion state (`msk`, `Δ`, the session).
pub fn sender(msk: &GarKey, delta: &[Block], pp: &QuietPublic) -> GarSender {
    GarSender::new(msk.clone(), delta_from_blocks(delta), pp.clone())
}

/// The receiver's expansion state (`csk`, `z`, the session).
pub fn receiver(csk: &GarKey, z: &Bits, pp: &QuietPublic) -> GarReceiver {
    GarReceiver::new(csk.clone(), z, pp.clone())
}

/// The sender's first `m` OTs.
pub fn sender_ots(state: &GarSender, m: usize) -> GarSenderOts {
    state.expand(0, m)
}

/// The receiver's first `m` OTs.
pub fn receiver_ots(state: &GarReceiver, m: usize) -> GarReceiverOts {
    state.expand(0, m)
}

/// The sender's rows of the streamed conversion of `m` OTs (from OT 0):
/// per OT the pair derandomized by the receiver's flip bits, then the
/// 30 corrections ([`QuietRotSender::rows_into`]), for the OTs of `span`,
/// whose candidates are hashed here and nowhere else.
pub fn rot_rows(
    state: &GarSender,
    flips: &Bits,
    m: usize,
    span: Span,
    out: &mut [[[Block; 16]; 2]],
) {
    let Span { offset, len } = span;
    let len = len.min(out.len()).min(m.saturating_sub(offset));
    if len > 0 {
        let chunk = state.rot(offset as u64, len);
        chunk.rows_into(flips, &mut out[..len]);
    }
}

/// The receiver's half of the conversion of `m` OTs (from OT 0).
pub fn rot_receiver(state: &GarReceiver, m: usize) -> QuietRotReceiver {
    state.rot(0, m)
}
