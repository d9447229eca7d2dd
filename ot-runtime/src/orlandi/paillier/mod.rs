//! Paillier encryption on big integers ([`crate::primitives::bignum`]: pure Rust by
//! default, GMP with the `gmp` feature): the
//! additively homomorphic scheme of the Orlandi protocol's triple generation
//! (Jakobsen, Makkes and Nielsen, ACNS 2010, slides "Efficient Paillier is
//! required" and "Preprocessing is Slow in Python"; Paillier, EUROCRYPT
//! 1999).
//!
//! * `g = n + 1`, so `g^m = 1 + m·n mod n²` costs one multiplication.
//! * Encryption with a short fixed-base randomizer in the style of Damgård,
//!   Jurik and Nielsen ("A generalization of Paillier's public-key system
//!   with applications to electronic voting", Int. J. Inf. Secur. 9, 2010,
//!   §4): the public key carries `h_s = (−x²)^n mod n²` for a random `x`,
//!   and `Enc(m; α) = (1 + m·n)·h_s^α mod n²` with `α` of `⌈k/2⌉` bits (`k`
//!   the modulus size), computed from a precomputed table of `h_s`
//!   ([`FixedBase`], windows of [`FIXED_BASE_WINDOW`] bits: `⌈k/2⌉ / 5`
//!   multiplications and no squarings; the key owner's
//!   [`SecretKey::encrypt_with_alpha`] uses the table's CRT halves).
//!   Semantic security then rests on DCR **plus** the assumption of that
//!   paper that `h_s^α` for a `⌈k/2⌉`-bit `α` is indistinguishable from a
//!   random element of the subgroup `h_s` generates; a caller that wants DCR
//!   alone uses the full randomizer, [`PublicKey::encrypt_with_r`], the
//!   textbook `(1 + m·n)·r^n`.
//! * [`multi_exp`]: simultaneous multi-exponentiation (Straus) for products
//!   of powers such as Triple Generation's `α^b·α'^{b'}`.
//! * CRT decryption: `c^{p−1} mod p²` and `c^{q−1} mod q²`, then
//!   recombination (half-size exponents modulo quarter-size moduli).
//! * Homomorphic addition `c1·c2`, addition of a plaintext, and
//!   multiplication by a plaintext `c^k`, all mod `n²`.
//! * Key generation makes Blum moduli (`p ≡ q ≡ 3 (mod 4)`, `p ≠ q`,
//!   `gcd(n, φ(n)) = 1`), so that the owner can prove its modulus well
//!   formed ([`blum`], the Paillier–Blum modulus proof of CGGMP, eprint
//!   2021/060, Figure 16).
//!
//! **Secret exponents, side-channel silent in this code.** Every
//! exponentiation whose exponent is secret runs the same sequence of
//! operations and memory accesses for every exponent of the same public
//! bound: the decryption's `p − 1`, `q − 1` by the backend's
//! `secure_pow_mod` (`crypto-bigint`'s constant-time Montgomery
//! exponentiation, or GMP's `mpz_powm_sec`); the
//! short randomizers `h_s^α` ([`FixedBase::pow`], also the key owner's
//! CRT halves) and the shares `b` in Triple Generation's `γ`
//! ([`multi_exp`], [`PublicKey::mul_plain`]) by window tables whose entry
//! is selected by reading every entry of the row with a constant-time mask
//! (no table index and no branch on a digit; zero digits are multiplied
//! like any other, by entries of one limb length), and the CRT
//! recombinations add a multiple of the modulus instead of testing a sign.
//! On the pure-Rust backend the tables hold Montgomery forms and multiply
//! in constant time (`ct`). With GMP, what is left is GMP's `mpz`
//! multiplication and division, whose time can
//! depend on the operands' values (carry handling, quotient corrections)
//! and, negligibly, on their lengths (a residue shorter than the modulus by
//! a whole 64-bit limb: probability about `2^-64`); GMP's `mpn_sec_*`
//! arithmetic would close that but needs `unsafe` FFI, which this crate
//! keeps out of its non-SIMD code. Measured price
//! (`examples/multiexp_rate.rs`, 2048-bit keys): the packed `γ` costs the
//! same as the former table lookup (the silent alternative, two
//! `powm_sec`, costs 1.8x), a randomizer about 1.7x the former variable-time
//! window-7 table (window 5 is now the fastest: the selection reads the
//! whole table once per exponentiation).
//!
//! Malformed ciphertexts (out of range, not a unit, wrong length) are a
//! typed [`PaillierError`], never a panic.

// The call sites are written for both big-integer backends: GMP's
// (feature `gmp`) arithmetic on references yields incomplete values that
// `Integer::from` completes, the pure-Rust backend's yields an `Integer`.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use std::sync::Arc;

use crate::primitives::bignum::Order;
use rand_core::{CryptoRng, RngCore};
use zeroize::Zeroize;

pub mod blum;
mod ct;
pub mod popk;
pub mod wire;
/// Big integers (`crate::primitives::bignum::Integer`): plaintexts, randomizers and
/// key parts.
pub use crate::primitives::bignum::Integer;

/// Window width of the key's fixed-base table of `h_s` (bits per table
/// row); see [`FixedBase`] for the trade-off.
pub const FIXED_BASE_WINDOW: u32 = 5;
/// Bits of `h_s` exponents a key's table covers beyond the modulus size:
/// long randomizers (`k + 80` bits) and proof responses (`⌈k/2⌉ + 88`
/// bits, `paillier::popk`).
pub const LONG_EXTRA_BITS: u32 = 96;
/// Window width of [`multi_exp`] (bits per base and step).
const STRAUS_WINDOW: u32 = 4;

/// Modulus sizes supported.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum KeySize {
    /// 1024-bit `n` (the VIFF benchmarks' size; below today's recommendations).
    Bits1024,
    /// 2048-bit `n` (default).
    #[default]
    Bits2048,
    /// 3072-bit `n`.
    Bits3072,
}

impl KeySize {
    /// Bits of the modulus `n`.
    pub fn bits(self) -> u32 {
        match self {
            KeySize::Bits1024 => 1024,
            KeySize::Bits2048 => 2048,
            KeySize::Bits3072 => 3072,
        }
    }
}

/// Why a Paillier operation failed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PaillierError {
    /// A ciphertext encoding of the wrong length for this key.
    #[error("Paillier ciphertext: expected {expected} bytes, got {got}")]
    Length {
        /// Bytes of `n²` for this key.
        expected: usize,
        /// Bytes received.
        got: usize,
    },
    /// A ciphertext that is not a unit modulo `n²` (zero, `≥ n²`, or sharing
    /// a factor with `n`).
    #[error("Paillier ciphertext is not an element of Z*_(n^2)")]
    NotAUnit,
    /// A plaintext outside `[0, n)`.
    #[error("Paillier plaintext out of range [0, n)")]
    PlaintextRange,
    /// Primes that do not make a valid key.
    #[error("Paillier key: {0}")]
    BadKey(&'static str),
}

/// Fixed-base windowed exponentiation (the "fixed-base windowing" of
/// Menezes, van Oorschot and Vanstone, Handbook of Applied Cryptography,
/// §14.6.3, in its table form): `rows[i][d] = base^(d·2^(w·i))` for every
/// `w`-bit digit `d`, so `base^e` is the product of one entry per digit of
/// `e`: `⌈bits/w⌉` multiplications and no squarings, for a table of
/// `2^w·⌈bits/w⌉` entries.
///
/// The exponent is secret where it is used (the short randomizers `α`), so
/// [`Self::pow`] is side-channel silent in this code: each row's entry is
/// selected by reading every entry of the row with a constant-time mask
/// (no index or branch on a digit), and every digit, zero included, costs
/// one multiplication and one reduction by an entry of the same limb length
/// (Montgomery forms of one width on the pure-Rust backend, multiplied in
/// constant time; with GMP, entries stored as `v + c·m`, see the `ct`
/// submodule, and GMP's `mpz` multiplication and division remain, which
/// are not constant time in general: see `SECURITY.md`). With `w` = [`FIXED_BASE_WINDOW`] and
/// 1024-bit exponents (the short randomizers of a 2048-bit key) that is
/// 205 multiplications modulo `n²` reading 3.4 MB of the table; a key's
/// table covers `k + 96`-bit exponents (long randomizers and proof
/// responses, about 7 MB for a 2048-bit key, built once per key), and
/// [`Self::pow_bits`] reads only the rows a shorter exponent needs; the
/// window balances the multiplications against the scan, which reads the
/// rows once per exponentiation (`examples/multiexp_rate.rs` prints the
/// trade-off).
#[derive(Clone, Debug)]
pub struct FixedBase {
    table: ct::LimbTable,
    rows: u32,
    window: u32,
}

impl FixedBase {
    /// The table of `base` modulo `modulus` (`modulus > 0`) for exponents
    /// of up to `exp_bits` bits, `window` bits per row (clamped to 1..=12).
    pub fn new(base: &Integer, modulus: &Integer, exp_bits: u32, window: u32) -> FixedBase {
        let window = window.clamp(1, 12);
        let rows = exp_bits.div_ceil(window).max(1);
        let mut table = ct::LimbTable::new(modulus, (rows as usize) << window);
        let mut b = base.clone();
        for _ in 0..rows {
            // Returns b^(2^window): the next row's base.
            b = table.push_powers(&b, 1 << window, modulus);
        }
        FixedBase {
            table,
            rows,
            window,
        }
    }

    /// The same table with every entry reduced modulo `m` (a divisor of
    /// the table's modulus: the CRT halves of a key's table).
    fn reduced(&self, m: &Integer) -> FixedBase {
        let mut table = ct::LimbTable::new(m, self.table.len());
        for i in 0..self.table.len() {
            let mut v = self.table.value(i);
            v %= m;
            table.push(&v);
            crate::primitives::wipe::Wipe::wipe(&mut v);
        }
        FixedBase {
            table,
            rows: self.rows,
            window: self.window,
        }
    }

    /// Largest exponent size, in bits, the table covers.
    pub fn exp_bits(&self) -> u32 {
        self.rows * self.window
    }

    /// Bytes of the table's entries.
    pub fn table_bytes(&self) -> usize {
        self.table.bytes()
    }

    /// `base^e mod modulus` for `0 ≤ e < 2^exp_bits`; larger exponents are
    /// reduced to their low [`Self::exp_bits`] bits (callers sample within
    /// range) and a negative one counts as 0. `modulus` must be the
    /// table's. The same sequence of operations for every `e` (see the
    /// type's docs).
    pub fn pow(&self, e: &Integer, modulus: &Integer) -> Integer {
        self.pow_bits(e, self.exp_bits(), modulus)
    }

    /// [`Self::pow`] for an exponent of at most `bits` bits (a public
    /// bound, clamped to [`Self::exp_bits`]): only the table's first
    /// `⌈bits/w⌉` rows are read, so a short exponent costs what a table of
    /// its own size would (higher bits of `e` are ignored). The same
    /// sequence of operations for every `e` of the bound.
    pub fn pow_bits(&self, e: &Integer, bits: u32, modulus: &Integer) -> Integer {
        let rows = bits.div_ceil(self.window).clamp(1, self.rows);
        let e = ct::ExpLimbs::new(e, rows * self.window);
        let per_row = 1usize << self.window;
        let _ = modulus; // the table's own, which it holds
        let mut scratch = vec![0u64; self.table.limbs()];
        let mut acc = self.table.one();
        for row in 0..rows {
            let d = e.digit(row * self.window, self.window);
            self.table
                .mul_selected(&mut acc, row as usize * per_row, per_row, d, &mut scratch);
        }
        scratch.zeroize();
        self.table.finish(&acc)
    }

    /// `base^e mod modulus` for a **public** exponent `0 ≤ e <
    /// 2^exp_bits` (a verifier's response in a proof): each digit's entry
    /// is read directly (no scan of the row) and zero digits are skipped,
    /// so time depends on `e`. `None` for a negative or too long `e`.
    pub fn pow_public(&self, e: &Integer, modulus: &Integer) -> Option<Integer> {
        if e.cmp0() == core::cmp::Ordering::Less || e.significant_bits() > self.exp_bits() {
            return None;
        }
        let _ = modulus; // the table's own, which it holds
        let per_row = 1usize << self.window;
        let mut acc = self.table.one();
        for row in 0..e.significant_bits().div_ceil(self.window) {
            let mut d = 0usize;
            for b in 0..self.window {
                if e.get_bit(row * self.window + b) {
                    d |= 1 << b;
                }
            }
            if d != 0 {
                self.table.mul_entry(&mut acc, row as usize * per_row + d);
            }
        }
        Some(self.table.finish(&acc))
    }
}

/// `Π_i bases[i]^exps[i] mod modulus` for secret exponents of at most
/// `bits` bits, by simultaneous multi-exponentiation (Straus' interleaved
/// windows, the k-base form of "Shamir's trick": Handbook of Applied
/// Cryptography, §14.6.1, Algorithm 14.88 with 4-bit digits): one shared
/// chain of squarings for all bases, so `k` exponents of `b` bits cost `b`
/// squarings, `k·⌈b/4⌉` multiplications and `15k` for the tables, against
/// `k·b` squarings for `k` separate exponentiations.
///
/// Side-channel silent in this code, like [`FixedBase::pow`]: the windows
/// run over the public bound `bits` (not the exponents' lengths), every
/// digit, zero included, costs one multiplication by a table entry of the
/// same limb length, and the entry is selected by reading all 16 entries
/// of the base's table with a constant-time mask; with GMP its `mpz`
/// multiplication and division remain (see `SECURITY.md`). `None` if the
/// lengths differ, `modulus ≤ 0`, or an exponent is negative or longer than
/// `bits` bits (checks of the inputs' validity, not of secret digits).
pub fn multi_exp(
    bases: &[Integer],
    exps: &[Integer],
    bits: u32,
    modulus: &Integer,
) -> Option<Integer> {
    if bases.len() != exps.len()
        || modulus.cmp0() != core::cmp::Ordering::Greater
        || exps
            .iter()
            .any(|e| e.cmp0() == core::cmp::Ordering::Less || e.significant_bits() > bits)
    {
        return None;
    }
    let w = STRAUS_WINDOW;
    let per_base = 1usize << w;
    let mut table = ct::LimbTable::new(modulus, bases.len() * per_base);
    for b in bases {
        table.push_powers(b, per_base, modulus);
    }
    let exps: Vec<ct::ExpLimbs> = exps.iter().map(|e| ct::ExpLimbs::new(e, bits)).collect();
    let mut scratch = vec![0u64; table.limbs()];
    let mut acc = table.one();
    let windows = bits.div_ceil(w);
    for win in (0..windows).rev() {
        if win + 1 < windows {
            for _ in 0..w {
                table.square(&mut acc);
            }
        }
        for (i, e) in exps.iter().enumerate() {
            let d = e.digit(win * w, w);
            table.mul_selected(&mut acc, i * per_base, per_base, d, &mut scratch);
        }
    }
    scratch.zeroize();
    Some(table.finish(&acc))
}

/// A Paillier public key `(n, h)` with `h_s = h^n mod n²` and the
/// fixed-base table of `h_s` (shared: cloning a key does not copy the
/// table). The key carries the root `h`, not only `h_s`, so that whoever
/// receives it knows `h_s` is an `n`-th power (it computes `h_s` itself):
/// every randomizer `h_s^r` then lies in the subgroup `⟨h_s⟩` of `n`-th
/// powers, which the Orlandi preprocessing's masking argument needs
/// (`crate::orlandi::triple`).
#[derive(Clone, Debug)]
pub struct PublicKey {
    n: Integer,
    n2: Integer,
    h: Integer,
    hs: Integer,
    table: Arc<FixedBase>,
    bits: u32,
}

/// The CRT halves of a key's fixed-base table (`h_s mod p²`, `h_s mod
/// q²`) and `(q²)^{-1} mod p²`: the key owner's encryptions at half size.
#[derive(Clone, Debug)]
struct CrtTables {
    p2: FixedBase,
    q2: FixedBase,
    q2_inv: Integer,
}

/// The tables modulo `p²` and `q²` (about 3.5 MB each for a 2048-bit key)
/// give away the factors: wiped when the last clone of the key goes.
impl Drop for CrtTables {
    fn drop(&mut self) {
        self.p2.table.wipe();
        self.q2.table.wipe();
        crate::primitives::wipe::Wipe::wipe(&mut self.q2_inv);
    }
}

/// A Paillier secret key (the factors of `n` and the CRT constants).
#[derive(Clone, Debug)]
pub struct SecretKey {
    pk: PublicKey,
    p: Integer,
    q: Integer,
    p2: Integer,
    q2: Integer,
    /// `(L_p(g^{p−1} mod p²))^{-1} mod p = (−q)^{-1} mod p` for `g = n + 1`.
    hp: Integer,
    /// `(−p)^{-1} mod q`.
    hq: Integer,
    /// `q^{-1} mod p`.
    q_inv: Integer,
    /// The least multiple of `p` above `q` (`mp + q_lift − mq > 0`).
    q_lift: Integer,
    /// The least multiple of `p²` above `q²`.
    q2_lift: Integer,
    crt: Arc<CrtTables>,
}

/// A Paillier ciphertext, an element of `Z*_{n²}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ciphertext(Integer);

impl Ciphertext {
    /// The ciphertext as an integer in `[1, n²)`.
    pub fn as_integer(&self) -> &Integer {
        &self.0
    }
}

/// A uniform integer in `[0, bound)` (64 extra bits, then reduced: the
/// statistical distance to uniform is below `2^-64`).
pub fn random_below<R: RngCore + CryptoRng + ?Sized>(bound: &Integer, rng: &mut R) -> Integer {
    let bytes = (bound.significant_bits() as usize).div_ceil(8) + 8;
    let mut buf = vec![0u8; bytes];
    rng.fill_bytes(&mut buf);
    Integer::from_digits(&buf, Order::Lsf) % bound
}

/// A uniform integer of at most `bits` bits.
pub fn random_bits<R: RngCore + CryptoRng + ?Sized>(bits: u32, rng: &mut R) -> Integer {
    let mut buf = vec![0u8; (bits as usize).div_ceil(8)];
    rng.fill_bytes(&mut buf);
    let mut v = Integer::from_digits(&buf, Order::Lsf);
    v.keep_bits_mut(bits);
    v
}

/// A random prime `p ≡ 3 (mod 4)` of exactly `bits` bits with the top two
/// bits set (so the product of two has exactly `2·bits` bits; `p ≡ 3 (mod
/// 4)` makes the modulus a Blum integer, which its owner proves with
/// [`blum`]).
fn random_prime<R: RngCore + CryptoRng + ?Sized>(bits: u32, rng: &mut R) -> Integer {
    loop {
        let mut c = random_bits(bits, rng);
        c.set_bit(bits - 1, true);
        c.set_bit(bits - 2, true);
        c.set_bit(0, true);
        let p = c.next_prime();
        if p.significant_bits() == bits && p.mod_u(4) == 3 {
            return p;
        }
    }
}

impl PublicKey {
    fn new<R: RngCore + CryptoRng + ?Sized>(n: Integer, rng: &mut R) -> PublicKey {
        let n2 = n.clone().square();
        // h = −x² mod n for a random unit x; h_s = h^n mod n².
        let x = loop {
            let x = random_below(&n, rng);
            if x > 1 && x.clone().gcd(&n) == 1 {
                break x;
            }
        };
        let h = (n.clone() - x.square() % &n) % &n;
        PublicKey::with_root(n, n2, h)
    }

    /// A public key received from a peer, from its modulus `n` (odd,
    /// greater than 1) and its root `h` (a unit modulo `n` other than 1);
    /// `h_s = h^n mod n²` is computed here. This is what can be checked
    /// without a proof; it does not show that `n` is an RSA modulus, which
    /// its owner proves with [`blum`] (a malformed modulus can only hurt
    /// the privacy of values encrypted under it, and the Orlandi
    /// preprocessing's masking does not rely on it:
    /// `crate::orlandi::triple`).
    pub fn from_root(n: Integer, h: Integer) -> Result<PublicKey, PaillierError> {
        if n <= 1 || n.is_even() {
            return Err(PaillierError::BadKey("n must be odd and greater than 1"));
        }
        if h <= 1 || h >= n || h.clone().gcd(&n) != 1 {
            return Err(PaillierError::BadKey("h must be a unit mod n other than 1"));
        }
        let n2 = n.clone().square();
        Ok(PublicKey::with_root(n, n2, h))
    }

    fn with_root(n: Integer, n2: Integer, h: Integer) -> PublicKey {
        let bits = n.significant_bits();
        let hs = h
            .clone()
            .pow_mod(&n, &n2)
            .unwrap_or_else(|_| Integer::from(1));
        let table = Arc::new(FixedBase::new(
            &hs,
            &n2,
            bits + LONG_EXTRA_BITS,
            FIXED_BASE_WINDOW,
        ));
        PublicKey {
            n,
            n2,
            h,
            hs,
            table,
            bits,
        }
    }

    /// The modulus `n`.
    pub fn n(&self) -> &Integer {
        &self.n
    }

    /// `n²`, the ciphertext modulus.
    pub fn n_squared(&self) -> &Integer {
        &self.n2
    }

    /// The DJN base `h_s = (−x²)^n mod n²`.
    pub fn h_s(&self) -> &Integer {
        &self.hs
    }

    /// The root `h = −x² mod n` of `h_s` (`h_s = h^n mod n²`).
    pub fn h(&self) -> &Integer {
        &self.h
    }

    /// Bits of a long randomizer (`k + 80`): `h_s^r` for `r` uniform below
    /// `2^(k+80)` is within statistical distance `2^-80` of uniform in
    /// `⟨h_s⟩`, whose order is below `n < 2^k`, whatever the key's
    /// structure (no assumption on the key owner).
    pub fn long_randomizer_bits(&self) -> u32 {
        self.bits + 80
    }

    /// Largest exponent of `h_s` the key's table covers (`k + 96` bits).
    pub fn table_bits(&self) -> u32 {
        self.table.exp_bits()
    }

    /// A fresh long randomizer ([`Self::long_randomizer_bits`] bits).
    pub fn random_long_randomizer<R: RngCore + CryptoRng + ?Sized>(&self, rng: &mut R) -> Integer {
        random_bits(self.long_randomizer_bits(), rng)
    }

    /// `Enc(m; r) = (1 + m·n)·h_s^r mod n²` for a secret `r` of at most
    /// `bits` bits (at most [`Self::table_bits`]), side-channel silent in
    /// `r` like [`FixedBase::pow_bits`].
    pub fn encrypt_with_exponent(
        &self,
        m: &Integer,
        r: &Integer,
        bits: u32,
    ) -> Result<Ciphertext, PaillierError> {
        self.check_plain(m)?;
        if bits > self.table_bits() {
            return Err(PaillierError::PlaintextRange);
        }
        let rr = self.table.pow_bits(r, bits, &self.n2);
        Ok(Ciphertext(self.g_pow(m) * rr % &self.n2))
    }

    /// `(1 + m·n)·h_s^r mod n²` for **public** `m ≥ 0` and `0 ≤ r <
    /// 2^table_bits` (a proof verifier's recomputation; variable time).
    pub fn encrypt_public(&self, m: &Integer, r: &Integer) -> Option<Integer> {
        if m.cmp0() == core::cmp::Ordering::Less {
            return None;
        }
        let rr = self.table.pow_public(r, &self.n2)?;
        Some(self.g_pow(&Integer::from(m % &self.n)) * rr % &self.n2)
    }

    /// Bits of the short randomizer `α` (`⌈k/2⌉`).
    pub fn randomizer_bits(&self) -> u32 {
        self.bits.div_ceil(2)
    }

    /// Bytes of a ciphertext encoding (of `n²`).
    pub fn ciphertext_len(&self) -> usize {
        (self.n2.significant_bits() as usize).div_ceil(8)
    }

    fn check_plain(&self, m: &Integer) -> Result<(), PaillierError> {
        if *m < 0 || *m >= self.n {
            return Err(PaillierError::PlaintextRange);
        }
        Ok(())
    }

    /// `(1 + m·n) mod n²`.
    fn g_pow(&self, m: &Integer) -> Integer {
        (Integer::from(m * &self.n) + 1u32) % &self.n2
    }

    /// A fresh short randomizer `α` (`⌈k/2⌉` bits).
    pub fn random_alpha<R: RngCore + CryptoRng + ?Sized>(&self, rng: &mut R) -> Integer {
        random_bits(self.randomizer_bits(), rng)
    }

    /// `Enc(m; α) = (1 + m·n)·h_s^α mod n²` (DJN-style short randomizer,
    /// fixed-base table). `α` must have at most [`Self::randomizer_bits`]
    /// bits; higher bits are ignored.
    pub fn encrypt_with_alpha(
        &self,
        m: &Integer,
        alpha: &Integer,
    ) -> Result<Ciphertext, PaillierError> {
        self.encrypt_with_exponent(m, alpha, self.randomizer_bits())
    }

    /// `Enc(m)` with a fresh short randomizer; returns it with the ciphertext
    /// (a party that may have to prove its encryption keeps `α`).
    pub fn encrypt<R: RngCore + CryptoRng + ?Sized>(
        &self,
        m: &Integer,
        rng: &mut R,
    ) -> Result<(Ciphertext, Integer), PaillierError> {
        let alpha = self.random_alpha(rng);
        Ok((self.encrypt_with_alpha(m, &alpha)?, alpha))
    }

    /// Textbook `Enc(m; r) = (1 + m·n)·r^n mod n²` for a unit `r` mod `n`.
    pub fn encrypt_with_r(&self, m: &Integer, r: &Integer) -> Result<Ciphertext, PaillierError> {
        self.check_plain(m)?;
        let rn = r
            .clone()
            .pow_mod(&self.n, &self.n2)
            .map_err(|_| PaillierError::NotAUnit)?;
        Ok(Ciphertext(self.g_pow(m) * rn % &self.n2))
    }

    /// `Enc(m1 + m2)` from `Enc(m1)`, `Enc(m2)`: `c1·c2 mod n²`.
    pub fn add(&self, c1: &Ciphertext, c2: &Ciphertext) -> Ciphertext {
        Ciphertext(Integer::from(&c1.0 * &c2.0) % &self.n2)
    }

    /// `Enc(m + k)` from `Enc(m)` and a plaintext `k`.
    pub fn add_plain(&self, c: &Ciphertext, k: &Integer) -> Ciphertext {
        let k = Integer::from(k % &self.n);
        let k = if k < 0 { k + &self.n } else { k };
        Ciphertext(self.g_pow(&k) * &c.0 % &self.n2)
    }

    /// `Enc(k·m)` from `Enc(m)` and a non-negative plaintext `k`: `c^k mod n²`
    /// (`Enc(0)` = 1 for a negative `k`).
    ///
    /// `k` is secret where it is used (a party's share `b` in Triple
    /// Generation's unpacked `γ`), so the power is the side-channel silent
    /// [`multi_exp`] with one base over the limbs of `k` (only `k`'s length
    /// in 64-bit limbs, which the backend's representation shows, sets the
    /// number of steps; `k = 0` takes the same steps as any other `k` of
    /// that length).
    pub fn mul_plain(&self, c: &Ciphertext, k: &Integer) -> Ciphertext {
        let bits = 64 * k.significant_digits::<u64>() as u32;
        let power = multi_exp(
            core::slice::from_ref(&c.0),
            core::slice::from_ref(k),
            bits,
            &self.n2,
        );
        Ciphertext(power.unwrap_or_else(|| Integer::from(1)))
    }

    /// Encodes a ciphertext as exactly [`Self::ciphertext_len`] bytes,
    /// little-endian.
    pub fn to_bytes(&self, c: &Ciphertext) -> Vec<u8> {
        let mut out = vec![0u8; self.ciphertext_len()];
        if c.0.significant_digits::<u8>() <= out.len() {
            c.0.write_digits(&mut out, Order::Lsf);
        }
        out
    }

    /// Decodes and validates a ciphertext: exactly
    /// [`Self::ciphertext_len`] bytes, a value in `[1, n²)` coprime to `n`.
    pub fn ciphertext_from_bytes(&self, bytes: &[u8]) -> Result<Ciphertext, PaillierError> {
        if bytes.len() != self.ciphertext_len() {
            return Err(PaillierError::Length {
                expected: self.ciphertext_len(),
                got: bytes.len(),
            });
        }
        self.ciphertext(Integer::from_digits(bytes, Order::Lsf))
    }

    /// Validates an integer as a ciphertext of this key.
    pub fn ciphertext(&self, c: Integer) -> Result<Ciphertext, PaillierError> {
        if c <= 0 || c >= self.n2 || c.clone().gcd(&self.n) != 1 {
            return Err(PaillierError::NotAUnit);
        }
        Ok(Ciphertext(c))
    }
}

/// The factors, their squares and the CRT constants are wiped when the key
/// is dropped (see [`crate::primitives::wipe`] for what wiping a big integer reaches).
impl Drop for SecretKey {
    fn drop(&mut self) {
        use crate::primitives::wipe::Wipe;
        for v in [
            &mut self.p,
            &mut self.q,
            &mut self.p2,
            &mut self.q2,
            &mut self.hp,
            &mut self.hq,
            &mut self.q_inv,
            &mut self.q_lift,
            &mut self.q2_lift,
        ] {
            v.wipe();
        }
    }
}

impl SecretKey {
    /// A fresh key pair with a modulus of `size` bits.
    pub fn generate<R: RngCore + CryptoRng + ?Sized>(size: KeySize, rng: &mut R) -> SecretKey {
        let half = size.bits() / 2;
        loop {
            let p = random_prime(half, rng);
            let q = random_prime(half, rng);
            if let Ok(sk) = SecretKey::from_primes(p, q, rng) {
                return sk;
            }
        }
    }

    /// The key of the primes `p`, `q`: distinct primes `≡ 3 (mod 4)` (a
    /// Blum modulus, what [`blum::prove`] shows to the key's receivers)
    /// with `gcd(pq, (p−1)(q−1)) = 1`.
    pub fn from_primes<R: RngCore + CryptoRng + ?Sized>(
        p: Integer,
        q: Integer,
        rng: &mut R,
    ) -> Result<SecretKey, PaillierError> {
        use crate::primitives::bignum::IsPrime;
        if p == q {
            return Err(PaillierError::BadKey("p = q"));
        }
        if p.is_probably_prime(30) == IsPrime::No || q.is_probably_prime(30) == IsPrime::No {
            return Err(PaillierError::BadKey("p or q is not prime"));
        }
        if p.mod_u(4) != 3 || q.mod_u(4) != 3 {
            return Err(PaillierError::BadKey("p or q is not 3 mod 4"));
        }
        let n = Integer::from(&p * &q);
        let phi = Integer::from(&p - 1u32) * Integer::from(&q - 1u32);
        if n.clone().gcd(&phi) != 1 {
            return Err(PaillierError::BadKey("gcd(n, phi(n)) != 1"));
        }
        let inv =
            |a: Integer, m: &Integer| a.invert(m).map_err(|_| PaillierError::BadKey("no inverse"));
        let hp = inv(Integer::from(&p - &q) - &p, &p)?; // −q mod p
        let hq = inv(Integer::from(&q - &p) - &q, &q)?; // −p mod q
        let q_inv = inv(q.clone(), &p)?;
        let p2 = p.clone().square();
        let q2 = q.clone().square();
        let q_lift = (Integer::from(&q / &p) + 1u32) * &p;
        let q2_lift = (Integer::from(&q2 / &p2) + 1u32) * &p2;
        let pk = PublicKey::new(n, rng);
        let crt = Arc::new(CrtTables {
            p2: pk.table.reduced(&p2),
            q2: pk.table.reduced(&q2),
            q2_inv: inv(q2.clone(), &p2)?,
        });
        Ok(SecretKey {
            pk,
            p,
            q,
            p2,
            q2,
            hp,
            hq,
            q_inv,
            q_lift,
            q2_lift,
            crt,
        })
    }

    /// The public key.
    pub fn public(&self) -> &PublicKey {
        &self.pk
    }

    /// `Enc(m; α)` under the own key, equal to
    /// [`PublicKey::encrypt_with_alpha`] but computed by CRT: `h_s^α` modulo
    /// `p²` and `q²` from the reduced tables (half-size products), then
    /// recombined modulo `n²`.
    pub fn encrypt_with_alpha(
        &self,
        m: &Integer,
        alpha: &Integer,
    ) -> Result<Ciphertext, PaillierError> {
        self.encrypt_with_exponent(m, alpha, self.pk.randomizer_bits())
    }

    /// [`PublicKey::encrypt_with_exponent`] by CRT (the key owner's
    /// encryptions with exponents of up to `bits` bits, e.g. a proof's
    /// masks).
    pub fn encrypt_with_exponent(
        &self,
        m: &Integer,
        alpha: &Integer,
        bits: u32,
    ) -> Result<Ciphertext, PaillierError> {
        let pk = &self.pk;
        pk.check_plain(m)?;
        if bits > pk.table_bits() {
            return Err(PaillierError::PlaintextRange);
        }
        let rp = self.crt.p2.pow_bits(alpha, bits, &self.p2);
        let rq = self.crt.q2.pow_bits(alpha, bits, &self.q2);
        // r = rq + q²·((rp − rq)·(q²)^{-1} mod p²), with a multiple of p²
        // above q² added so that no sign test on secret values is needed.
        let t = (rp + &self.q2_lift - &rq) * &self.crt.q2_inv % &self.p2;
        let r = rq + t * &self.q2;
        Ok(Ciphertext(pk.g_pow(m) * r % &pk.n2))
    }

    /// `m mod prime` from `c`: `L(c^{prime−1} mod prime²)·h mod prime`.
    ///
    /// The exponent `prime − 1` is the secret key itself, the same in every
    /// decryption, so a timing or cache trace of a variable-time `powm`
    /// over many decryptions would reveal it: the power is the backend's
    /// `secure_pow_mod` (time and memory accesses independent of the
    /// exponent; `prime²` is odd): `crypto-bigint`'s Montgomery
    /// exponentiation, or GMP's `mpz_powm_sec`, about 1.5x its plain
    /// `powm` (`ot-runtime/examples/multiexp_rate.rs`).
    fn decrypt_mod(c: &Integer, prime: &Integer, prime2: &Integer, h: &Integer) -> Integer {
        let e = Integer::from(prime - 1u32);
        let u = Integer::from(c % prime2).secure_pow_mod(&e, prime2);
        let l = (u - 1u32) / prime;
        l * h % prime
    }

    /// `Dec(c)` in `[0, n)` by CRT (two half-size exponentiations).
    pub fn decrypt(&self, c: &Ciphertext) -> Integer {
        let mp = Self::decrypt_mod(&c.0, &self.p, &self.p2, &self.hp);
        let mq = Self::decrypt_mod(&c.0, &self.q, &self.q2, &self.hq);
        // m = mq + q·((mp − mq)·q^{-1} mod p), with a multiple of p above
        // q added (no sign test on the secret residues).
        let t = (mp + &self.q_lift - &mq) * &self.q_inv % &self.p;
        mq + t * &self.q
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixed_base_matches_pow_mod() {
        let m = Integer::from(1_000_003u32) * 999_983u32;
        let b = Integer::from(12345u32);
        let t = FixedBase::new(&b, &m, 40, 5);
        for e in [
            0u64,
            1,
            31,
            32,
            33,
            1 << 39,
            (1 << 40) - 1,
            0x0012_3456_789a,
        ] {
            let e = Integer::from(e);
            assert_eq!(t.pow(&e, &m), b.clone().pow_mod(&e, &m).unwrap());
        }
    }
}
