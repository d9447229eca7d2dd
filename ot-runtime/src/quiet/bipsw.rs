//! QuietOT with the BIPSW weak PRF: kernels of the expansion and the setup.
//!
//! [QuietOT, eprint 2024/1079, §5.1 (the CPRF for inner-product
//! constraints over Z_6 from the BIPSW wPRF of Boneh–Ishai–Passelègue–
//! Sahai–Wu, TCC 2018)]: a master key `msk ∈ (Z_6^128)^768` and `Δ ∈
//! Z_6^128`; the constrained key of `z ∈ Z_6^768` is `csk_i = msk_i + z_i·Δ`.
//! On a public input `x ∈ {0,1}^768` both evaluate `F(k, x) = Σ_{x_i = 1}
//! k_i`, so `F(csk, x) = F(msk, x) + c·Δ` with `c = <x, z> mod 6`. The
//! sender's six outputs are `s[j] = H(n, x, F(msk, x) + j·Δ)` and the
//! receiver's is `(c, H(n, x, F(csk, x)))`: a random 1-out-of-6 OT of bits
//! (§4, the PCF for OT from a CPRF).
//!
//! Evaluation uses per-key lookup tables over chunks of [`CHUNK_BITS`] input
//! bits (`T_b[v] = Σ_{bit t of v} k_{8b+t}`): 96 lookups of one 48-byte
//! entry per OT in tables of 1.2 MiB that stay in the L2/L3 cache (the
//! chunk size was chosen by measurement, see the book's QuietOT
//! chapter). The Z_3 half is bit-sliced ([`super::z3`]).
//!
//! Setup (no trusted dealer): per key element three random 1-out-of-2 OTs
//! with the receiver's choice bits `a_i = z_i mod 2` and the one-hot
//! encoding `(c1_i, c2_i)` of `z_i mod 3`, each derandomized into a
//! correlated OT by one correction (Gilboa's product sharing): see
//! [`corrections`] and [`constrained_key`].
#![forbid(unsafe_code)]

use super::convert::{QuietRotReceiver, QuietRotSender};
use super::public::{
    bits_sink, blocks_sink, receiver_bits, receiver_blocks, QuietPublic, QuietReceiverOts,
    QuietSenderOts,
};
use super::z3::{Z3, Z6};
use crate::primitives::backend::{self, Feature, Level};
use crate::primitives::prg::Prg;
use crate::primitives::span::Span;
use crate::{Bits, Block};
use core::ops::{Add, Sub};

/// Key length (number of key elements, bits of an input) [QuietOT §6.1].
pub const KEY_LEN: usize = 768;
/// Blocks of one public input `x_n`.
pub const INPUT_BLOCKS: usize = KEY_LEN / 128;
/// Input bits per lookup table.
pub const CHUNK_BITS: usize = 8;
/// Random 1-out-of-2 OTs of the setup: three per key element.
pub const SETUP_OTS: usize = 3 * KEY_LEN;
/// Blocks of the setup corrections: five per key element.
pub const CORRECTION_BLOCKS: usize = 5 * KEY_LEN;
/// Domain label of the session keys.
pub const LABEL: &[u8] = b"quietot/bipsw";
/// OTs processed per batch (inputs, lookups and hashes stay in L1).
const BATCH: usize = 64;

/// A BIPSW key (master or constrained): [`KEY_LEN`] elements of Z_6^128.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BipswKey {
    elems: Vec<Z6>,
}

impl BipswKey {
    /// A key from its elements; `None` unless there are [`KEY_LEN`] valid ones.
    pub fn from_elements(elems: Vec<Z6>) -> Option<BipswKey> {
        (elems.len() == KEY_LEN && elems.iter().all(|e| e.three.is_valid()))
            .then_some(BipswKey { elems })
    }

    /// The key elements.
    pub fn elements(&self) -> &[Z6] {
        &self.elems
    }

    /// `F(k, x) = Σ_{x_i = 1} k_i`, bit by bit (the scalar reference).
    pub fn eval_reference(&self, x: &[Block; INPUT_BLOCKS]) -> Z6 {
        let mut y = Z6::ZERO;
        for (i, e) in self.elems.iter().enumerate() {
            if x[i / 128].bit(i % 128) {
                y = y.add(*e);
            }
        }
        y
    }
}

/// The lookup tables of one key (see the module docs).
#[derive(Clone, Debug)]
pub struct BipswTables {
    tables: Vec<[Z6; 1 << CHUNK_BITS]>,
}

impl BipswTables {
    /// Tables of `key`: `KEY_LEN / CHUNK_BITS` tables of `2^CHUNK_BITS` sums.
    pub fn new(key: &BipswKey) -> BipswTables {
        let size: usize = 1 << CHUNK_BITS;
        let mut tables = vec![[Z6::ZERO; 1 << CHUNK_BITS]; KEY_LEN / CHUNK_BITS];
        for (b, table) in tables.iter_mut().enumerate() {
            for v in 1..size {
                let low = v.trailing_zeros() as usize;
                table[v] = table[v & (v - 1)].add(key.elems[b * CHUNK_BITS + low]);
            }
        }
        BipswTables { tables }
    }

    /// `F(k, x)` by table lookups on the backend [`EvalBackend::selected`].
    #[inline]
    pub fn eval(&self, x: &[Block; INPUT_BLOCKS]) -> Z6 {
        self.eval_with(EvalBackend::selected(), x)
    }

    /// [`BipswTables::eval`] on a chosen backend (an unsupported one falls
    /// back to the scalar path).
    #[inline]
    pub fn eval_with(&self, backend: EvalBackend, x: &[Block; INPUT_BLOCKS]) -> Z6 {
        match backend {
            #[cfg(target_arch = "x86_64")]
            EvalBackend::Avx512 if backend.is_supported() => {
                super::bipsw_avx512::eval(&self.tables, x)
            }
            _ => self.eval_scalar(x),
        }
    }

    /// The scalar path: two independent accumulators, so that the
    /// dependency chains of the mod-3 additions overlap.
    fn eval_scalar(&self, x: &[Block; INPUT_BLOCKS]) -> Z6 {
        let bytes: &[u8; 16 * INPUT_BLOCKS] = bytemuck::cast_ref(x);
        let (mut a, mut b) = (Z6::ZERO, Z6::ZERO);
        for (t, v) in self.tables.chunks_exact(2).zip(bytes.chunks_exact(2)) {
            a = a + t[0][usize::from(v[0])];
            b = b + t[1][usize::from(v[1])];
        }
        a + b
    }
}

/// An implementation of the table evaluation [`BipswTables::eval`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum EvalBackend {
    /// 64-bit integer operations (the reference path, any CPU).
    Scalar,
    /// 128-bit loads and `vpternlogd` additions (AVX-512F and AVX-512VL).
    Avx512,
}

impl EvalBackend {
    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        backend::Backend::is_supported(self)
    }

    /// The fastest supported backend, detected once; `--cfg
    /// ot_backend="scalar"`, `"sse2"` or `"avx2"` forces the scalar path
    /// ([`backend::select`]).
    pub fn selected() -> EvalBackend {
        static SEL: std::sync::OnceLock<EvalBackend> = std::sync::OnceLock::new();
        *SEL.get_or_init(backend::select)
    }
}

impl backend::Backend for EvalBackend {
    const FASTEST_FIRST: &'static [Self] = &[EvalBackend::Avx512, EvalBackend::Scalar];

    fn level(self) -> Level {
        match self {
            EvalBackend::Scalar => Level::Scalar,
            EvalBackend::Avx512 => Level::Avx512,
        }
    }

    fn features(self) -> &'static [Feature] {
        match self {
            EvalBackend::Scalar => &[],
            EvalBackend::Avx512 => &[Feature::Avx512f, Feature::Avx512vl],
        }
    }
}

/// The public inputs `x_n` for `n = first, first + 1, ...`: blocks
/// `6n .. 6n + 5` of the session's AES-CTR stream.
pub fn inputs(pp: &QuietPublic, first: u64, out: &mut [[Block; INPUT_BLOCKS]]) {
    let flat: &mut [Block] = bytemuck::cast_slice_mut(out);
    pp.inputs.ctr(first.wrapping_mul(INPUT_BLOCKS as u64), flat);
}

/// The output hash input of one candidate value `v` of OT `n` (reference:
/// the polynomial hash of `[n, x_0..x_5, v.two, v.three.h, v.three.l]`).
pub fn hash_input_reference(pp: &QuietPublic, n: u64, x: &[Block; INPUT_BLOCKS], v: Z6) -> Block {
    let mut blocks = vec![Block::from_u64(n)];
    blocks.extend_from_slice(x);
    blocks.extend_from_slice(&[Block(v.two), Block(v.three.h), Block(v.three.l)]);
    pp.poly(&blocks)
}

/// The sender's expansion state: its tables, `Δ` and the session.
#[derive(Clone, Debug)]
pub struct BipswSender {
    tables: BipswTables,
    delta: Z6,
    pp: QuietPublic,
}

/// The sender's OTs: six message bits per OT.
pub type BipswSenderOts = QuietSenderOts<u8>;
/// The receiver's OTs: `c_n = <x_n, z> mod 6` and `s_n[c_n]`.
pub type BipswReceiverOts = QuietReceiverOts;

impl BipswSender {
    /// The state for master key `key`, `Δ` and the session.
    pub fn new(key: &BipswKey, delta: Z6, pp: QuietPublic) -> BipswSender {
        BipswSender {
            tables: BipswTables::new(key),
            delta,
            pp,
        }
    }

    /// The session's public parameters.
    pub fn public(&self) -> &QuietPublic {
        &self.pp
    }

    /// OTs `first .. first + count` (zero rounds: local computation only).
    pub fn expand(&self, first: u64, count: usize) -> BipswSenderOts {
        let mut bits = vec![0u8; count];
        self.expand_into(first, &mut bits);
        BipswSenderOts { first, bits }
    }

    /// [`BipswSender::expand`] into `out` (OT `first + i` into `out[i]`).
    pub fn expand_into(&self, first: u64, out: &mut [u8]) {
        self.hashes(first, out.len(), bits_sink(&self.pp, 6, out));
    }

    /// The sender's half of the conversion to random 1-out-of-2 OT for OTs
    /// `first .. first + count`: the 128-bit hashes of all six candidates
    /// (see [`super::convert`]).
    pub fn rot(&self, first: u64, count: usize) -> QuietRotSender {
        let mut blocks = vec![Block::ZERO; 6 * count];
        self.hashes(first, count, blocks_sink(&self.pp, 6, &mut blocks));
        QuietRotSender::new(&super::convert::BIPSW_CLASSES, first, blocks)
    }

    /// The hash inputs `u` of the six candidates of OTs `first .. first +
    /// count`, batch by batch: `sink(offset, u)` gets `6 · rows` blocks
    /// (candidate `j` of OT `first + offset + k` at `6k + j`).
    fn hashes(&self, first: u64, count: usize, mut sink: impl FnMut(usize, &mut [Block])) {
        let pp = &self.pp;
        let d2 = pp.term(Block(self.delta.two), 2);
        let mut xs = [[Block::ZERO; INPUT_BLOCKS]; BATCH];
        // Group-major hash inputs of a batch: [n, x_0..x_5] per OT, then the
        // Z_2 halves, then the Z_3 planes of the three candidates mod 3.
        let mut common = vec![Block::ZERO; (1 + INPUT_BLOCKS) * BATCH];
        let mut twos = vec![Block::ZERO; BATCH];
        let mut threes = vec![Block::ZERO; 2 * 3 * BATCH];
        let (mut hc, mut h2, mut h3) = (
            vec![Block::ZERO; BATCH],
            vec![Block::ZERO; BATCH],
            vec![Block::ZERO; 3 * BATCH],
        );
        let mut u = [Block::ZERO; 6 * BATCH];
        for off in (0..count).step_by(BATCH) {
            let rows = (count - off).min(BATCH);
            let n0 = first.wrapping_add(off as u64);
            let xs = &mut xs[..rows];
            inputs(pp, n0, xs);
            for (k, x) in xs.iter().enumerate() {
                let y = self.tables.eval(x);
                common[k] = Block::from_u64(n0.wrapping_add(k as u64));
                for (g, b) in x.iter().enumerate() {
                    common[(1 + g) * rows + k] = *b;
                }
                twos[k] = Block(y.two);
                let mut t = y.three;
                for c in 0..3 {
                    threes[3 * k + c] = Block(t.h);
                    threes[3 * rows + 3 * k + c] = Block(t.l);
                    t = t + self.delta.three;
                }
            }
            pp.poly_rows(
                &common[..(1 + INPUT_BLOCKS) * rows],
                3 + INPUT_BLOCKS,
                &mut hc[..rows],
            );
            pp.poly_rows(&twos[..rows], 2, &mut h2[..rows]);
            pp.poly_rows(&threes[..6 * rows], 1, &mut h3[..3 * rows]);
            for k in 0..rows {
                let base = hc[k] ^ h2[k];
                for j in 0..6 {
                    let two = if j % 2 == 1 { base ^ d2 } else { base };
                    u[6 * k + j] = two ^ h3[3 * k + j % 3];
                }
            }
            sink(off, &mut u[..6 * rows]);
        }
    }
}

/// The receiver's expansion state: its tables, `z` and the session.
#[derive(Clone, Debug)]
pub struct BipswReceiver {
    tables: BipswTables,
    /// `z mod 2`, then the one-hot planes of `z mod 3` (value 1, value 2),
    /// each as the six blocks of a 768-bit mask.
    masks: [[u128; INPUT_BLOCKS]; 3],
    pp: QuietPublic,
}

impl BipswReceiver {
    /// The state for constrained key `key`, the setup choice bits (`z`,
    /// see [`choices`]) and the session.
    pub fn new(key: &BipswKey, choices: &Bits, pp: QuietPublic) -> BipswReceiver {
        let mut masks = [[0u128; INPUT_BLOCKS]; 3];
        for (p, plane) in masks.iter_mut().enumerate() {
            for (i, w) in plane.iter_mut().enumerate() {
                for t in 0..128 {
                    let idx = p * KEY_LEN + i * 128 + t;
                    if choices.try_get(idx) == Some(true) {
                        *w |= 1 << t;
                    }
                }
            }
        }
        BipswReceiver {
            tables: BipswTables::new(key),
            masks,
            pp,
        }
    }

    /// The session's public parameters.
    pub fn public(&self) -> &QuietPublic {
        &self.pp
    }

    /// `c = <x, z> mod 6` from the masks of `z`.
    #[inline]
    fn index(&self, x: &[Block; INPUT_BLOCKS]) -> u8 {
        let mut cnt = [0u32; 3];
        for (p, plane) in self.masks.iter().enumerate() {
            for (m, b) in plane.iter().zip(x) {
                cnt[p] += (m & b.0).count_ones();
            }
        }
        let a = cnt[0] % 2;
        let t = (cnt[1] + 2 * cnt[2]) % 3;
        // CRT: the c in 0..6 with c = a mod 2, c = t mod 3.
        ((3 * a + 4 * t) % 6) as u8
    }

    /// OTs `first .. first + count`.
    pub fn expand(&self, first: u64, count: usize) -> BipswReceiverOts {
        let mut out = QuietReceiverOts::zeroed(first, count);
        receiver_bits(&self.pp, BATCH, &mut out, self.filler());
        out
    }

    /// The receiver's half of the conversion to random 1-out-of-2 OT for
    /// OTs `first .. first + count`: its indices and the 128-bit hashes of
    /// its candidates (see [`super::convert`]).
    pub fn rot(&self, first: u64, count: usize) -> QuietRotReceiver {
        let (index, blocks) = receiver_blocks(&self.pp, first, count, BATCH, self.filler());
        QuietRotReceiver::new(&super::convert::BIPSW_CLASSES, first, index, blocks)
    }

    /// The batch filler: indices `c` and hash inputs of OTs `n0 ..`.
    fn filler(&self) -> impl FnMut(u64, &mut [u8], &mut [Block]) + '_ {
        let pp = &self.pp;
        let mut xs = [[Block::ZERO; INPUT_BLOCKS]; BATCH];
        let mut blocks = vec![Block::ZERO; (4 + INPUT_BLOCKS) * BATCH];
        move |n0, ic, u| {
            let rows = ic.len();
            let xs = &mut xs[..rows];
            inputs(pp, n0, xs);
            for (k, x) in xs.iter().enumerate() {
                let y = self.tables.eval(x);
                blocks[k] = Block::from_u64(n0.wrapping_add(k as u64));
                for (g, b) in x.iter().enumerate() {
                    blocks[(1 + g) * rows + k] = *b;
                }
                blocks[(1 + INPUT_BLOCKS) * rows + k] = Block(y.two);
                blocks[(2 + INPUT_BLOCKS) * rows + k] = Block(y.three.h);
                blocks[(3 + INPUT_BLOCKS) * rows + k] = Block(y.three.l);
                ic[k] = self.index(x);
            }
            pp.poly_rows(&blocks[..(4 + INPUT_BLOCKS) * rows], 3 + INPUT_BLOCKS, u);
        }
    }
}

// ---- Setup kernels ----

/// Uniform values mod 3 from an AES-CTR stream (bytes below 255, mod 3).
fn trits(prg: &mut Prg, out: &mut [u8]) {
    let mut buf = [0u8; 64];
    let mut filled = 0;
    while filled < out.len() {
        prg.fill_bytes(&mut buf);
        for &b in buf.iter().filter(|&&b| b < 255) {
            if filled == out.len() {
                break;
            }
            out[filled] = b % 3;
            filled += 1;
        }
    }
}

/// A uniform element of Z_3^128 from `seed` (AES-CTR, rejection sampling).
pub fn g3(seed: Block) -> Z3 {
    let mut v = [0u8; 128];
    trits(&mut Prg::new(seed), &mut v);
    Z3::from_values(&v)
}

/// `Δ ∈ Z_6^128` as `[two, h, l]` blocks, uniform, from a fresh `seed`.
pub fn delta_blocks(seed: Block) -> [Block; 3] {
    let mut prg = Prg::new(seed);
    let two = prg.next_block();
    let mut v = [0u8; 128];
    trits(&mut prg, &mut v);
    let t = Z3::from_values(&v);
    [two, Block(t.h), Block(t.l)]
}

/// `Δ` from its blocks (an invalid Z_3 coordinate is read as produced).
pub fn delta_from_blocks(d: &[Block; 3]) -> Z6 {
    Z6 {
        two: d[0].0,
        three: Z3 {
            h: d[1].0,
            l: d[2].0,
        },
    }
}

/// The receiver's secret `z ∈ Z_6^768`, uniform, as the choice bits of the
/// setup OTs: bits `0..768` are `z_i mod 2`, bits `768..1536` are `[z_i = 1
/// mod 3]`, bits `1536..2304` are `[z_i = 2 mod 3]` (never both set).
pub fn choices(seed: Block) -> Bits {
    choices_n(seed, SETUP_OTS)
}

/// [`choices`] as the intrinsic of `quiet_bipsw.otp` (whose checker fixes
/// `setup_ots` to [`SETUP_OTS`]; other values give the same bits).
pub fn choices_n(seed: Block, _setup_ots: usize) -> Bits {
    let mut prg = Prg::new(seed);
    let a = prg.fill_bits(KEY_LEN);
    let mut t = vec![0u8; KEY_LEN];
    trits(&mut prg, &mut t);
    let mut out = Bits::zeros(SETUP_OTS);
    for (i, &ti) in t.iter().enumerate() {
        out.set(i, a.get(i));
        out.set(KEY_LEN + i, ti == 1);
        out.set(2 * KEY_LEN + i, ti == 2);
    }
    out
}

/// `z_i ∈ 0..6` from the setup choice bits (see [`choices`]).
pub fn z_values(choices: &Bits) -> Vec<u8> {
    (0..KEY_LEN)
        .map(|i| {
            let a = u8::from(choices.try_get(i) == Some(true));
            let t = u8::from(choices.try_get(KEY_LEN + i) == Some(true))
                + 2 * u8::from(choices.try_get(2 * KEY_LEN + i) == Some(true));
            (3 * a + 4 * t) % 6
        })
        .collect()
}

/// Whether the choice bits encode some `z` (never both one-hot bits set).
pub fn choices_valid(choices: &Bits) -> bool {
    choices.len() == SETUP_OTS
        && (0..KEY_LEN).all(|i| !(choices.get(KEY_LEN + i) && choices.get(2 * KEY_LEN + i)))
}

/// The sender's master key from its random-OT keys: `msk_i` has Z_2 half
/// `k0` of OT `i` and Z_3 half `G3(k0)` of OT `768 + i` plus `G3(k0)` of
/// OT `1536 + i`. (Missing OTs read as zero keys; the checker fixes the
/// length.)
pub fn master_key(messages: &[[Block; 2]]) -> BipswKey {
    let k = |j: usize| messages.get(j).copied().unwrap_or_default();
    let elems = (0..KEY_LEN)
        .map(|i| Z6 {
            two: k(i)[0].0,
            three: g3(k(KEY_LEN + i)[0]).add(g3(k(2 * KEY_LEN + i)[0])),
        })
        .collect();
    BipswKey { elems }
}

/// The sender's setup corrections (five blocks per key element `i`):
/// `k0 ⊕ k1 ⊕ Δ_2` of OT `i`, then for OT `768 + i` (weight 1) and OT
/// `1536 + i` (weight 2) the Z_3 planes of `G3(k1) − G3(k0) − w·Δ_3`. A
/// receiver with choice bit `b` then holds `G(k_b) − b·d = G(k0) + b·w·Δ`.
pub fn corrections(messages: &[[Block; 2]], delta: &[Block; 3]) -> Vec<Block> {
    corrections_n(messages, delta, CORRECTION_BLOCKS)
}

/// [`corrections`] as the intrinsic of `quiet_bipsw.otp` (`count` is
/// [`CORRECTION_BLOCKS`], fixed by the checker).
pub fn corrections_n(messages: &[[Block; 2]], delta: &[Block; 3], _count: usize) -> Vec<Block> {
    let d = delta_from_blocks(delta);
    let k = |j: usize| messages.get(j).copied().unwrap_or_default();
    let mut out = Vec::with_capacity(CORRECTION_BLOCKS);
    for i in 0..KEY_LEN {
        out.push(k(i)[0] ^ k(i)[1] ^ Block(d.two));
        for (w, j) in [(1u8, KEY_LEN + i), (2, 2 * KEY_LEN + i)] {
            let c = g3(k(j)[1]).sub(g3(k(j)[0])).sub(d.three.scale(w));
            out.extend_from_slice(&c.to_blocks());
        }
    }
    out
}

/// Whether a received correction vector is well formed: its length and
/// every Z_3 plane pair a valid encoding.
pub fn corrections_valid(corr: &[Block]) -> bool {
    corr.len() == CORRECTION_BLOCKS
        && corr.chunks_exact(5).all(|c| {
            Z3::from_blocks([c[1], c[2]]).is_valid() && Z3::from_blocks([c[3], c[4]]).is_valid()
        })
}

/// The receiver's constrained key `csk_i = msk_i + z_i·Δ` from its chosen
/// random-OT keys, its choice bits and the sender's corrections.
pub fn constrained_key(chosen: &[Block], choices: &Bits, corr: &[Block]) -> BipswKey {
    let k = |j: usize| chosen.get(j).copied().unwrap_or_default();
    let b = |j: usize| choices.try_get(j) == Some(true);
    let c = |j: usize| corr.get(j).copied().unwrap_or_default();
    let elems = (0..KEY_LEN)
        .map(|i| {
            let mut two = k(i).0;
            if b(i) {
                two ^= c(5 * i).0;
            }
            let mut three = Z3::ZERO;
            for (t, j) in [(0usize, KEY_LEN + i), (1, 2 * KEY_LEN + i)] {
                let mut v = g3(k(j));
                if b(j) {
                    v = v.sub(Z3::from_blocks([
                        c(5 * i + 1 + 2 * t),
                        c(5 * i + 2 + 2 * t),
                    ]));
                }
                three = three.add(v);
            }
            Z6 { two, three }
        })
        .collect();
    BipswKey { elems }
}

// ---- Intrinsics of `quiet_bipsw.otp` (the expansion phase) ----

/// The session's public parameters from the setup's seed and salt.
pub fn public(seed: Block, salt: Block) -> QuietPublic {
    QuietPublic::derive(LABEL, seed, salt, KEY_LEN as u64)
}

/// The sender's expansion state (tables of `msk`, `Δ`, the session).
pub fn sender(msk: &BipswKey, delta: &[Block; 3], pp: &QuietPublic) -> BipswSender {
    BipswSender::new(msk, delta_from_blocks(delta), pp.clone())
}

/// The receiver's expansion state (tables of `csk`, `z`, the session).
pub fn receiver(csk: &BipswKey, choices: &Bits, pp: &QuietPublic) -> BipswReceiver {
    BipswReceiver::new(csk, choices, pp.clone())
}

/// The sender's first `m` OTs.
pub fn sender_ots(state: &BipswSender, m: usize) -> BipswSenderOts {
    state.expand(0, m)
}

/// The receiver's first `m` OTs.
pub fn receiver_ots(state: &BipswReceiver, m: usize) -> BipswReceiverOts {
    state.expand(0, m)
}

/// The sender's rows of the streamed conversion of `m` OTs (from OT 0):
/// per OT the pair derandomized by the receiver's flip bits, then the
/// 4 corrections ([`QuietRotSender::rows_into`]), for the OTs of `span`,
/// whose candidates are hashed here and nowhere else.
pub fn rot_rows(state: &BipswSender, flips: &Bits, m: usize, span: Span, out: &mut [[Block; 6]]) {
    let Span { offset, len } = span;
    let len = len.min(out.len()).min(m.saturating_sub(offset));
    if len > 0 {
        let chunk = state.rot(offset as u64, len);
        chunk.rows_into(flips, &mut out[..len]);
    }
}

/// The receiver's half of the conversion of `m` OTs (from OT 0).
pub fn rot_receiver(state: &BipswReceiver, m: usize) -> QuietRotReceiver {
    state.rot(0, m)
}
