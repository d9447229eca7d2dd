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

use crate::primitives::backend::{self, Feature, Level};
use crate::primitives::bits::{check_len, ShapeError};
use crate::Block;
use aes::cipher::KeyInit;
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
        backend::Backend::is_supported(self)
    }

    /// All backends this CPU supports, slowest first.
    pub fn available() -> Vec<AesBackend> {
        [AesBackend::Soft, AesBackend::AesNi, AesBackend::Vaes512]
            .into_iter()
            .filter(|b| b.is_supported())
            .collect()
    }

    /// The backend used by [`Aes128::new`]: the fastest supported one, capped
    /// by `--cfg ot_backend=...` ([`backend::select`]). Detected once and
    /// cached.
    pub fn selected() -> AesBackend {
        static SEL: OnceLock<AesBackend> = OnceLock::new();
        *SEL.get_or_init(backend::select)
    }
}

impl backend::Backend for AesBackend {
    const FASTEST_FIRST: &'static [Self] =
        &[AesBackend::Vaes512, AesBackend::AesNi, AesBackend::Soft];

    fn level(self) -> Level {
        match self {
            AesBackend::Soft => Level::Scalar,
            AesBackend::AesNi => Level::Sse2,
            AesBackend::Vaes512 => Level::Avx512,
        }
    }

    fn features(self) -> &'static [Feature] {
        match self {
            AesBackend::Soft => &[],
            AesBackend::AesNi => &[Feature::Aes],
            AesBackend::Vaes512 => &[Feature::Aes, Feature::Vaes, Feature::Avx512f],
        }
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
            AesBackend::AesNi => Inner::Ni(aesni::expand(key)),
            #[cfg(target_arch = "x86_64")]
            AesBackend::Vaes512 => Inner::Vaes(aesni::expand(key)),
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
            Inner::Soft(c) => soft::run(c, op, input, out),
            #[cfg(target_arch = "x86_64")]
            Inner::Ni(rk) => aesni::run(rk, op, input, out),
            #[cfg(target_arch = "x86_64")]
            Inner::Vaes(rk) => vaes512::run(rk, op, input, out),
        }
    }
}

/// AES-NI backend (128-bit registers, 8 blocks in flight) and the AES-NI key
/// schedule shared with the VAES backend.
#[cfg(target_arch = "x86_64")]
mod aesni;
/// `soft` backend: the RustCrypto `aes` crate.
mod soft;

/// VAES-512 backend: 8 zmm registers x 4 blocks = 32 blocks in flight; the
/// tail uses masked loads/stores so there is a single code path.
#[cfg(target_arch = "x86_64")]
mod vaes512;

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
