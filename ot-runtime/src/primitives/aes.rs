//! Fixed-key and keyed AES-128 with batch APIs.
//!
//! [`Aes128`] encrypts many independent blocks per call, which is what the
//! PRG (AES-CTR, [`crate::primitives::prg`]) and the correlation-robust hashes
//! ([`crate::primitives::hash`]) need. Three backends, chosen once at run time:
//!
//! * `vaes512`: hand-written VAES + AVX-512F, 32 blocks (8 zmm registers)
//!   in flight; the `aes` crate 0.8 stops at 128-bit AES-NI.
//! * `aesni`: hand-written AES-NI, 8 blocks in flight, AES-NI key schedule.
//! * `soft`: the RustCrypto `aes` crate (its own AES-NI detection or its
//!   constant-time bitsliced software implementation).
//!
//! All backends compute standard AES-128 (FIPS-197) on the little-endian
//! bytes of each [`Block`] ([`Block::to_bytes`]); tests check every backend
//! against the `aes` crate and the FIPS-197 C.1 vector.
//!
//! Forcing: `--cfg ot_backend="scalar"` selects `soft`, `"sse2"`/`"avx2"`
//! select `aesni`, `"avx512"` selects `vaes512` (each only if the CPU has it;
//! otherwise the best supported backend below it).

use crate::primitives::bits::{check_len, ShapeError};
use crate::Block;
use aes::cipher::{BlockEncrypt, KeyInit};
use std::sync::OnceLock;
use zeroize::Zeroize;

/// An AES implementation strategy (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum AesBackend {
    /// The RustCrypto `aes` crate, block by block through an 8-block buffer.
    Soft,
    /// Hand-written AES-NI, 8 blocks in flight.
    AesNi,
    /// Hand-written VAES on 512-bit registers, 32 blocks in flight.
    Vaes512,
}

impl AesBackend {
    /// Short name for logs and benchmarks.
    pub fn name(self) -> &'static str {
        match self {
            AesBackend::Soft => "soft",
            AesBackend::AesNi => "aesni",
            AesBackend::Vaes512 => "vaes512",
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        match self {
            AesBackend::Soft => true,
            #[cfg(target_arch = "x86_64")]
            AesBackend::AesNi => std::arch::is_x86_feature_detected!("aes"),
            #[cfg(target_arch = "x86_64")]
            AesBackend::Vaes512 => {
                std::arch::is_x86_feature_detected!("aes")
                    && std::arch::is_x86_feature_detected!("vaes")
                    && std::arch::is_x86_feature_detected!("avx512f")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
    }

    /// All backends this CPU supports, slowest first.
    pub fn available() -> Vec<AesBackend> {
        [AesBackend::Soft, AesBackend::AesNi, AesBackend::Vaes512]
            .into_iter()
            .filter(|b| b.is_supported())
            .collect()
    }

    /// The backend used by [`Aes128::new`]: the fastest supported one, capped
    /// by `--cfg ot_backend=...`. Detected once and cached.
    pub fn selected() -> AesBackend {
        static SEL: OnceLock<AesBackend> = OnceLock::new();
        *SEL.get_or_init(|| {
            let cap = if cfg!(ot_backend = "scalar") {
                AesBackend::Soft
            } else if cfg!(any(ot_backend = "sse2", ot_backend = "avx2")) {
                AesBackend::AesNi
            } else {
                AesBackend::Vaes512
            };
            let order = [AesBackend::Vaes512, AesBackend::AesNi, AesBackend::Soft];
            let start = order.iter().position(|&b| b == cap).unwrap_or(0);
            order[start..]
                .iter()
                .copied()
                .find(|b| b.is_supported())
                .unwrap_or(AesBackend::Soft)
        })
    }
}

/// Name of the AES backend [`Aes128::new`] uses on this machine.
pub fn backend_name() -> &'static str {
    AesBackend::selected().name()
}

/// The fused operations every backend implements in one pass over memory.
#[derive(Copy, Clone, Debug)]
pub(crate) enum Op {
    /// `y = E(x)`.
    Ecb,
    /// `y_i = E(start + i)` (counter in the low 64 bits, wrapping); input ignored.
    Ctr(u64),
    /// `y = E(x) ^ x` (Matyas–Meyer–Oseas).
    Mmo,
    /// `y_i = E(E(x_i) ^ tw_i) ^ E(x_i)` (TCCR of Guo–Katz–Wang–Yu) with the
    /// tweak `tw_i` = `(session, t + i)`: the index `t + i` (wrapping) in the
    /// low 64 bits, the session in the high 64 bits. Fields: `(t, session)`.
    Tccr(u64, u64),
    /// TCCR over pairs of blocks sharing a tweak: `y_i = E(E(x_i) ^
    /// (session, t + i/2)) ^ E(x_i)` (the two keys of one OT, `H(i, q_i)` and
    /// `H(i, q_i ^ Δ)`, hashed in place in the output's layout).
    TccrPairs(u64, u64),
}

#[derive(Clone)]
enum Inner {
    Soft(Box<aes::Aes128>),
    #[cfg(target_arch = "x86_64")]
    Ni([Block; 11]),
    #[cfg(target_arch = "x86_64")]
    Vaes([Block; 11]),
}

impl Drop for Inner {
    /// Wipes the round keys: keyed instances expand secret PRG seeds (base-OT
    /// outputs). The `Soft` schedule is wiped by the `aes` crate itself (its
    /// `zeroize` feature) when the box is dropped.
    fn drop(&mut self) {
        match self {
            Inner::Soft(_) => {}
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(rk) | Inner::Vaes(rk) => rk.zeroize(),
        }
    }
}

/// AES-128 with a fixed key schedule and batched encryption.
///
/// The expanded key is wiped when the value is dropped (every backend: the
/// hand-written backends' round keys by this crate, the `aes` crate's
/// schedule by its `zeroize` feature), since keyed instances hold secret PRG
/// seeds. Clones are independent copies and are wiped separately.
#[derive(Clone)]
pub struct Aes128 {
    inner: Inner,
}

impl core::fmt::Debug for Aes128 {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never print round keys: PRG keys are secret seeds.
        write!(f, "Aes128({})", self.backend().name())
    }
}

impl Aes128 {
    /// Expands `key` (its 16 little-endian bytes are the AES key) using the
    /// selected backend.
    pub fn new(key: Block) -> Aes128 {
        Self::build(key, AesBackend::selected())
    }

    /// Like [`Aes128::new`] but pinned to `backend`; `None` if this CPU does
    /// not support it. Used to test backends against each other.
    pub fn with_backend(key: Block, backend: AesBackend) -> Option<Aes128> {
        backend.is_supported().then(|| Self::build(key, backend))
    }

    fn build(key: Block, backend: AesBackend) -> Aes128 {
        let inner = match backend {
            #[cfg(target_arch = "x86_64")]
            AesBackend::AesNi => Inner::Ni(ni::expand(key)),
            #[cfg(target_arch = "x86_64")]
            AesBackend::Vaes512 => Inner::Vaes(ni::expand(key)),
            _ => Inner::Soft(Box::new(aes::Aes128::new(&key.to_bytes().into()))),
        };
        Aes128 { inner }
    }

    /// The backend this instance runs on.
    pub fn backend(&self) -> AesBackend {
        match self.inner {
            Inner::Soft(_) => AesBackend::Soft,
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(_) => AesBackend::AesNi,
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes(_) => AesBackend::Vaes512,
        }
    }

    /// Encrypts one block (use the batch calls for throughput).
    #[inline]
    pub fn encrypt_block(&self, x: Block) -> Block {
        let mut b = [x];
        self.run(Op::Ecb, None, &mut b);
        b[0]
    }

    /// Encrypts every block of `blocks` in place (ECB over independent blocks).
    pub fn encrypt_blocks(&self, blocks: &mut [Block]) {
        self.run(Op::Ecb, None, blocks);
    }

    /// `output[i] = E(input[i])`; [`ShapeError`] if lengths differ.
    pub fn encrypt_blocks_into(
        &self,
        input: &[Block],
        output: &mut [Block],
    ) -> Result<(), ShapeError> {
        check_len("Aes128::encrypt_blocks_into", input.len(), output.len())?;
        self.run(Op::Ecb, Some(input), output);
        Ok(())
    }

    /// Counter mode keystream: `out[i] = E(Block::from_u64(start + i))`
    /// (the counter wraps modulo 2^64; the high 64 bits are zero).
    pub fn ctr(&self, start: u64, out: &mut [Block]) {
        self.run(Op::Ctr(start), None, out);
    }

    /// In place `x = E(x) ^ x` (Matyas–Meyer–Oseas; with a fixed public key
    /// this is the correlation-robust hash `π(x) ⊕ x`).
    pub fn mmo_blocks(&self, blocks: &mut [Block]) {
        self.run(Op::Mmo, None, blocks);
    }

    /// In place `x_i = E(E(x_i) ⊕ tw_i) ⊕ E(x_i)` with the tweak block
    /// `tw_i = session · 2^64 + (tweak_start + i mod 2^64)`: the tweakable
    /// circular correlation-robust hash of Guo–Katz–Wang–Yu (S&P 2020). The
    /// session in the upper half keeps tweaks of different protocol runs
    /// apart under the one public key (multi-instance security, GKWY20 §7).
    pub fn tccr_blocks(&self, session: u64, tweak_start: u64, blocks: &mut [Block]) {
        self.run(Op::Tccr(tweak_start, session), None, blocks);
    }

    /// [`Aes128::tccr_blocks`] with each tweak shared by two consecutive
    /// blocks: block `i` uses index `tweak_start + i / 2` (both keys of one OT).
    pub fn tccr_pair_blocks(&self, session: u64, tweak_start: u64, blocks: &mut [Block]) {
        self.run(Op::TccrPairs(tweak_start, session), None, blocks);
    }

    /// The expanded round keys and backend when this instance runs on a
    /// hand-written backend (AES-NI or VAES), for fused multi-key kernels
    /// that keep several keys' streams in registers (the SoftSpokenOT
    /// VOLE sums of [`crate::softspoken::vole`]); `None` on the portable backend.
    pub(crate) fn round_keys(&self) -> Option<(AesBackend, &[Block; 11])> {
        match &self.inner {
            Inner::Soft(_) => None,
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(rk) => Some((AesBackend::AesNi, rk)),
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes(rk) => Some((AesBackend::Vaes512, rk)),
        }
    }

    /// Runs `op` from `input` (or in place when `None`) into `out`.
    /// Callers guarantee `input.len() == out.len()`.
    pub(crate) fn run(&self, op: Op, input: Option<&[Block]>, out: &mut [Block]) {
        debug_assert!(input.is_none_or(|i| i.len() == out.len()));
        match &self.inner {
            Inner::Soft(c) => soft_run(c, op, input, out),
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(rk) => ni::run(rk, op, input, out),
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes(rk) => vaes::run(rk, op, input, out),
        }
    }
}

/// Portable path through the `aes` crate, 8 blocks per call.
fn soft_run(c: &aes::Aes128, op: Op, input: Option<&[Block]>, out: &mut [Block]) {
    let enc = |v: &mut [Block]| {
        let mut buf = [aes::Block::default(); 8];
        for (g, b) in buf.iter_mut().zip(v.iter()) {
            g.copy_from_slice(&b.to_bytes());
        }
        c.encrypt_blocks(&mut buf[..v.len()]);
        for (g, b) in buf.iter().zip(v.iter_mut()) {
            let mut a = [0u8; 16];
            a.copy_from_slice(g);
            *b = Block::from_bytes(a);
        }
    };
    let n = out.len();
    let mut i = 0;
    while i < n {
        let k = (n - i).min(8);
        let mut x = [Block::ZERO; 8];
        match input {
            Some(inp) => x[..k].copy_from_slice(&inp[i..i + k]),
            None => x[..k].copy_from_slice(&out[i..i + k]),
        }
        let orig = x;
        let tweak = |s: u64, j: usize| Block::from_u64(s.wrapping_add((i + j) as u64));
        match op {
            Op::Ecb => enc(&mut x[..k]),
            Op::Ctr(s) => {
                for (j, v) in x[..k].iter_mut().enumerate() {
                    *v = tweak(s, j);
                }
                enc(&mut x[..k]);
            }
            Op::Mmo => {
                enc(&mut x[..k]);
                for j in 0..k {
                    x[j] ^= orig[j];
                }
            }
            Op::Tccr(t, session) | Op::TccrPairs(t, session) => {
                let shift = u32::from(matches!(op, Op::TccrPairs(..)));
                enc(&mut x[..k]);
                let y = x;
                for (j, v) in x[..k].iter_mut().enumerate() {
                    *v ^= Block::from_u64s(t.wrapping_add(((i + j) >> shift) as u64), session);
                }
                enc(&mut x[..k]);
                for j in 0..k {
                    x[j] ^= y[j];
                }
            }
        }
        out[i..i + k].copy_from_slice(&x[..k]);
        i += k;
    }
}

/// AES-NI backend (128-bit registers, 8 blocks in flight) and the AES-NI key
/// schedule shared with the VAES backend.
#[cfg(target_arch = "x86_64")]
mod ni {
    #![allow(unsafe_code)]
    use super::Op;
    use crate::Block;
    use core::arch::x86_64::*;

    /// Expands an AES-128 key with `aeskeygenassist` (constant time).
    pub(super) fn expand(key: Block) -> [Block; 11] {
        // SAFETY: only called for backends whose `is_supported()` checked AES-NI.
        unsafe { expand_impl(key) }
    }

    #[target_feature(enable = "aes,sse2")]
    unsafe fn expand_impl(key: Block) -> [Block; 11] {
        macro_rules! step {
            ($prev:expr, $rcon:literal) => {{
                let p = $prev;
                let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(p));
                let p = _mm_xor_si128(p, _mm_slli_si128::<4>(p));
                let p = _mm_xor_si128(p, _mm_slli_si128::<4>(p));
                let p = _mm_xor_si128(p, _mm_slli_si128::<4>(p));
                _mm_xor_si128(p, t)
            }};
        }
        let k0 = to_m(key);
        let k1 = step!(k0, 0x01);
        let k2 = step!(k1, 0x02);
        let k3 = step!(k2, 0x04);
        let k4 = step!(k3, 0x08);
        let k5 = step!(k4, 0x10);
        let k6 = step!(k5, 0x20);
        let k7 = step!(k6, 0x40);
        let k8 = step!(k7, 0x80);
        let k9 = step!(k8, 0x1b);
        let k10 = step!(k9, 0x36);
        [k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10].map(from_m)
    }

    #[inline(always)]
    fn to_m(b: Block) -> __m128i {
        // SAFETY: `Block` and `__m128i` are both 16 plain bytes; transmute of
        // plain data is a bit copy. The byte order is preserved (little-endian).
        unsafe { core::mem::transmute::<u128, __m128i>(b.0) }
    }

    #[inline(always)]
    fn from_m(m: __m128i) -> Block {
        // SAFETY: as in `to_m`.
        Block(unsafe { core::mem::transmute::<__m128i, u128>(m) })
    }

    pub(super) fn run(rk: &[Block; 11], op: Op, input: Option<&[Block]>, out: &mut [Block]) {
        let n = out.len();
        let dst = out.as_mut_ptr();
        let src = input.map_or(dst as *const Block, |i| i.as_ptr());
        // SAFETY: an `Inner::Ni` is only built after `is_supported()` checked
        // AES-NI; `src` and `dst` are valid for `n` blocks (input length was
        // checked by the caller), and `src` may equal `dst` because every
        // block is read before it is written.
        unsafe { run_impl(rk, op, src, dst, n) }
    }

    #[target_feature(enable = "aes,sse2")]
    unsafe fn run_impl(rk: &[Block; 11], op: Op, src: *const Block, dst: *mut Block, n: usize) {
        let k: [__m128i; 11] = rk.map(to_m);
        macro_rules! enc {
            ($x:expr) => {{
                for v in $x.iter_mut() {
                    *v = _mm_xor_si128(*v, k[0]);
                }
                for r in 1..10 {
                    for v in $x.iter_mut() {
                        *v = _mm_aesenc_si128(*v, k[r]);
                    }
                }
                for v in $x.iter_mut() {
                    *v = _mm_aesenclast_si128(*v, k[10]);
                }
            }};
        }
        macro_rules! body {
            ($w:literal, $i:expr) => {{
                let i = $i;
                let mut x = [_mm_setzero_si128(); $w];
                match op {
                    Op::Ctr(s) => {
                        for (j, v) in x.iter_mut().enumerate() {
                            *v = _mm_set_epi64x(0, s.wrapping_add((i + j) as u64) as i64);
                        }
                        enc!(x);
                    }
                    Op::Ecb => {
                        for (j, v) in x.iter_mut().enumerate() {
                            *v = _mm_loadu_si128(src.add(i + j).cast());
                        }
                        enc!(x);
                    }
                    Op::Mmo => {
                        for (j, v) in x.iter_mut().enumerate() {
                            *v = _mm_loadu_si128(src.add(i + j).cast());
                        }
                        let orig = x;
                        enc!(x);
                        for j in 0..$w {
                            x[j] = _mm_xor_si128(x[j], orig[j]);
                        }
                    }
                    Op::Tccr(t, session) | Op::TccrPairs(t, session) => {
                        let shift = u32::from(matches!(op, Op::TccrPairs(..)));
                        for (j, v) in x.iter_mut().enumerate() {
                            *v = _mm_loadu_si128(src.add(i + j).cast());
                        }
                        enc!(x);
                        let y = x;
                        for (j, v) in x.iter_mut().enumerate() {
                            let tw = _mm_set_epi64x(
                                session as i64,
                                t.wrapping_add(((i + j) >> shift) as u64) as i64,
                            );
                            *v = _mm_xor_si128(*v, tw);
                        }
                        enc!(x);
                        for j in 0..$w {
                            x[j] = _mm_xor_si128(x[j], y[j]);
                        }
                    }
                }
                for (j, v) in x.iter().enumerate() {
                    _mm_storeu_si128(dst.add(i + j).cast(), *v);
                }
            }};
        }
        let mut i = 0;
        while i + 8 <= n {
            body!(8, i);
            i += 8;
        }
        while i < n {
            body!(1, i);
            i += 1;
        }
    }
}

/// VAES-512 backend: 8 zmm registers x 4 blocks = 32 blocks in flight; the
/// tail uses masked loads/stores so there is a single code path.
#[cfg(target_arch = "x86_64")]
mod vaes {
    #![allow(unsafe_code)]
    use super::Op;
    use crate::Block;
    use core::arch::x86_64::*;

    pub(super) fn run(rk: &[Block; 11], op: Op, input: Option<&[Block]>, out: &mut [Block]) {
        let n = out.len();
        let dst = out.as_mut_ptr();
        let src = input.map_or(dst as *const Block, |i| i.as_ptr());
        // SAFETY: an `Inner::Vaes` is only built after `is_supported()`
        // checked VAES and AVX-512F; `src`/`dst` are valid for `n` blocks and
        // every access below is either in bounds or masked to in-bounds lanes;
        // `src == dst` is fine because each block is read before written.
        unsafe { run_impl(rk, op, src, dst, n) }
    }

    #[target_feature(enable = "vaes,avx512f")]
    unsafe fn run_impl(rk: &[Block; 11], op: Op, src: *const Block, dst: *mut Block, n: usize) {
        let mut k = [_mm512_setzero_si512(); 11];
        for (kk, r) in k.iter_mut().zip(rk.iter()) {
            let x = _mm_loadu_si128((r as *const Block).cast());
            *kk = _mm512_broadcast_i32x4(x);
        }
        // Lane offsets (0,1,2,3) in the low qword of each 128-bit lane.
        let lane = _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0);
        let four = _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4);
        let pair_lane = _mm512_set_epi64(0, 1, 0, 1, 0, 0, 0, 0);
        let two = _mm512_set_epi64(0, 2, 0, 2, 0, 2, 0, 2);
        macro_rules! enc {
            ($x:expr) => {{
                for v in $x.iter_mut() {
                    *v = _mm512_xor_si512(*v, k[0]);
                }
                for r in 1..10 {
                    for v in $x.iter_mut() {
                        *v = _mm512_aesenc_epi128(*v, k[r]);
                    }
                }
                for v in $x.iter_mut() {
                    *v = _mm512_aesenclast_epi128(*v, k[10]);
                }
            }};
        }
        // `ld(j)` / `st(j, v)` access group j (4 blocks) of the current chunk.
        macro_rules! body {
            ($i:expr, $ld:expr, $st:expr) => {{
                let i: usize = $i;
                let mut x = [_mm512_setzero_si512(); 8];
                let counters = |base: u64| {
                    let mut c = [_mm512_setzero_si512(); 8];
                    let mut v = _mm512_add_epi64(
                        _mm512_set1_epi64(base.wrapping_add(i as u64) as i64),
                        lane,
                    );
                    v = _mm512_and_si512(v, _mm512_set_epi64(0, -1, 0, -1, 0, -1, 0, -1));
                    for cc in c.iter_mut() {
                        *cc = v;
                        v = _mm512_add_epi64(v, four);
                    }
                    c
                };
                // Tweaks of `Op::TccrPairs`: block i + b gets base + (i + b) / 2
                // (`i` is a multiple of 32), i.e. lanes (0, 0, 1, 1) + 2 per register.
                let pair_counters = |base: u64| {
                    let mut c = [_mm512_setzero_si512(); 8];
                    let mut v = _mm512_add_epi64(
                        _mm512_set1_epi64(base.wrapping_add((i / 2) as u64) as i64),
                        pair_lane,
                    );
                    v = _mm512_and_si512(v, _mm512_set_epi64(0, -1, 0, -1, 0, -1, 0, -1));
                    for cc in c.iter_mut() {
                        *cc = v;
                        v = _mm512_add_epi64(v, two);
                    }
                    c
                };
                match op {
                    Op::Ctr(s) => {
                        x = counters(s);
                        enc!(x);
                    }
                    Op::Ecb => {
                        for (j, v) in x.iter_mut().enumerate() {
                            *v = $ld(j);
                        }
                        enc!(x);
                    }
                    Op::Mmo => {
                        for (j, v) in x.iter_mut().enumerate() {
                            *v = $ld(j);
                        }
                        let orig = x;
                        enc!(x);
                        for j in 0..8 {
                            x[j] = _mm512_xor_si512(x[j], orig[j]);
                        }
                    }
                    Op::Tccr(t, session) | Op::TccrPairs(t, session) => {
                        for (j, v) in x.iter_mut().enumerate() {
                            *v = $ld(j);
                        }
                        enc!(x);
                        let y = x;
                        let tw = match op {
                            Op::TccrPairs(..) => pair_counters(t),
                            _ => counters(t),
                        };
                        // The session fills the high qword of every lane.
                        let s = session as i64;
                        let sess = _mm512_set_epi64(s, 0, s, 0, s, 0, s, 0);
                        for j in 0..8 {
                            x[j] = _mm512_xor_si512(_mm512_xor_si512(x[j], tw[j]), sess);
                        }
                        enc!(x);
                        for j in 0..8 {
                            x[j] = _mm512_xor_si512(x[j], y[j]);
                        }
                    }
                }
                for (j, v) in x.iter().enumerate() {
                    $st(j, *v);
                }
            }};
        }
        let mut i = 0;
        while i + 32 <= n {
            body!(
                i,
                |j: usize| _mm512_loadu_si512(src.add(i + 4 * j).cast()),
                |j: usize, v| _mm512_storeu_si512(dst.add(i + 4 * j).cast(), v)
            );
            i += 32;
        }
        if i < n {
            let rem = n - i;
            // Two qwords per block: mask for group j covers blocks
            // [4j, 4j+4) of the remaining `rem`.
            let mask = |j: usize| -> __mmask8 {
                let cnt = rem.saturating_sub(4 * j).min(4);
                ((1u16 << (2 * cnt)) - 1) as u8
            };
            body!(
                i,
                |j: usize| _mm512_maskz_loadu_epi64(mask(j), src.add(i + 4 * j).cast()),
                |j: usize, v| _mm512_mask_storeu_epi64(dst.add(i + 4 * j).cast(), mask(j), v)
            );
        }
    }
}

/// The fixed public AES key used by the correlation-robust hashes: the first
/// 128 fractional bits of π (`243f6a88 85a308d3 13198a2e 03707344`), a
/// nothing-up-my-sleeve constant.
pub const FIXED_KEY: Block = Block(0x243f_6a88_85a3_08d3_1319_8a2e_0370_7344);

/// Lazily expanded fixed-key AES instance (see [`FIXED_KEY_AES`]).
pub struct FixedKeyAes {
    cell: OnceLock<Aes128>,
}

impl core::ops::Deref for FixedKeyAes {
    type Target = Aes128;
    #[inline]
    fn deref(&self) -> &Aes128 {
        self.cell.get_or_init(|| Aes128::new(FIXED_KEY))
    }
}

/// AES under [`FIXED_KEY`], expanded once on first use (through a
/// `std::sync::OnceLock`) and shared by all threads. It models the random
/// permutation `π` of the fixed-key hashes.
pub static FIXED_KEY_AES: FixedKeyAes = FixedKeyAes {
    cell: OnceLock::new(),
};
