//! The pure-Rust backend of [`crate::primitives::bignum`] (the default): a signed
//! arbitrary-precision integer with the subset of GMP's `mpz` interface
//! (as `rug` spells it) that Paillier and the Orlandi kernels call, so that
//! the call sites compile unchanged on either backend.
//!
//! * Arithmetic, comparisons, shifts, bits, digits, `gcd`, inverses and
//!   the Jacobi symbol run on `num-bigint`'s `BigInt`: variable time in
//!   the operands' sizes, as GMP's `mpz` functions are.
//! * Every power modulo an odd modulus ([`Integer::pow_mod`],
//!   [`Integer::secure_pow_mod`]) runs on `crypto-bigint`'s boxed
//!   Montgomery form (`BoxedMontyForm::pow_bounded_exp`): the same
//!   sequence of multiplications and constant-time table reads for every
//!   exponent of the stated length, the counterpart of GMP's
//!   `mpz_powm_sec`. `secure_pow_mod` states the exponent's length rounded
//!   up to 64-bit limbs (what `mpz_powm_sec` reveals); `pow_mod`, whose
//!   exponent is public, its exact length. An even modulus (no call site
//!   has one) falls back to `num-bigint`'s variable-time `modpow`.
//! * Primality is the Baillie–PSW test of `crypto-primes` (Miller–Rabin
//!   to base 2 and the strengthened Lucas test of Baillie, Fiori and
//!   Wagstaff 2021), with no known pseudoprime.
//!
//! Operations that GMP would refuse by aborting the process (a zero
//! modulus, the square root of a negative number) return a documented
//! value instead, so that no input reaches a panic here.

use core::cmp::Ordering;
use core::fmt;
use core::ops::{
    Add, AddAssign, BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Div, DivAssign,
    Mul, MulAssign, Neg, Rem, RemAssign, Shl, ShlAssign, Shr, ShrAssign, Sub, SubAssign,
};

use crypto_bigint::modular::{BoxedMontyForm, BoxedMontyParams};
use crypto_bigint::{BoxedUint, Odd};
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer as _;
use num_traits::{One, Signed, ToPrimitive, Zero};
use zeroize::Zeroize;

/// Arbitrary-precision signed integer: plaintexts, ciphertexts,
/// randomizers and key parts of Paillier.
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Integer(BigInt);

/// Digit order of [`Integer::from_digits`] and [`Integer::write_digits`]:
/// least or most significant digit first (each digit in native order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Least significant digit first (the wire encodings' order).
    Lsf,
    /// Most significant digit first.
    Msf,
}

/// Verdict of [`Integer::is_probably_prime`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum IsPrime {
    /// Certainly composite (or below 2).
    No,
    /// Passed the Baillie–PSW test.
    Probably,
    /// Certainly prime (not returned by this backend; kept so that code
    /// written for GMP's three verdicts compiles).
    Yes,
}

/// `pow` with a small public exponent (`x^4`-style checks of the
/// Blum-modulus proof).
pub trait Pow<Rhs> {
    /// The power's type.
    type Output;
    /// `self` to the power `rhs`.
    fn pow(self, rhs: Rhs) -> Self::Output;
}

/// A digit type of [`Integer::from_digits`] and [`Integer::write_digits`]
/// (`u8`, `u16`, `u32`, `u64`).
pub trait Digit: Copy + Default {
    /// Bytes per digit.
    const BYTES: usize;
    /// The digit from its little-endian bytes (`BYTES` of them).
    fn from_le(bytes: &[u8]) -> Self;
    /// The digit's little-endian bytes into `out` (`BYTES` of them).
    fn write_le(self, out: &mut [u8]);
}

macro_rules! digit {
    ($($t:ty),*) => {$(
        impl Digit for $t {
            const BYTES: usize = core::mem::size_of::<$t>();
            fn from_le(bytes: &[u8]) -> Self {
                let mut b = [0u8; core::mem::size_of::<$t>()];
                b.copy_from_slice(bytes);
                <$t>::from_le_bytes(b)
            }
            fn write_le(self, out: &mut [u8]) {
                out.copy_from_slice(&self.to_le_bytes());
            }
        }
    )*};
}
digit!(u8, u16, u32, u64);

impl Integer {
    /// Zero.
    pub fn new() -> Integer {
        Integer(BigInt::zero())
    }

    /// The value's magnitude as 64-bit limbs, least significant first.
    fn limbs(&self) -> Vec<u64> {
        self.0.magnitude().iter_u64_digits().collect()
    }

    /// A non-negative integer from 64-bit limbs, least significant first.
    fn from_limbs(limbs: &[u64]) -> Integer {
        let digits: Vec<u32> = limbs
            .iter()
            .flat_map(|&w| [w as u32, (w >> 32) as u32])
            .collect();
        Integer(BigInt::from_biguint(Sign::Plus, BigUint::new(digits)))
    }

    /// The integer from `digits` (their order by `order`, each digit's
    /// bytes in native order), non-negative.
    pub fn from_digits<T: Digit>(digits: &[T], order: Order) -> Integer {
        let mut bytes = vec![0u8; digits.len() * T::BYTES];
        let mut put = |i: usize, d: &T| d.write_le(&mut bytes[i * T::BYTES..(i + 1) * T::BYTES]);
        match order {
            Order::Lsf => digits.iter().enumerate().for_each(|(i, d)| put(i, d)),
            Order::Msf => digits.iter().rev().enumerate().for_each(|(i, d)| put(i, d)),
        }
        let v = Integer(BigInt::from_bytes_le(Sign::Plus, &bytes));
        bytes.zeroize();
        v
    }

    /// Sets the value to [`Integer::from_digits`] of `digits`.
    pub fn assign_digits<T: Digit>(&mut self, digits: &[T], order: Order) {
        *self = Integer::from_digits(digits, order);
    }

    /// Number of `T` digits of the magnitude (0 for zero).
    pub fn significant_digits<T: Digit>(&self) -> usize {
        (self.significant_bits() as usize).div_ceil(8 * T::BYTES)
    }

    /// Writes the magnitude into `digits` (order by `order`), padded with
    /// zero digits; digits beyond the slice are dropped.
    pub fn write_digits<T: Digit>(&self, digits: &mut [T], order: Order) {
        let mut bytes = self.0.magnitude().to_bytes_le();
        bytes.resize(digits.len() * T::BYTES, 0);
        let get = |i: usize| T::from_le(&bytes[i * T::BYTES..(i + 1) * T::BYTES]);
        let n = digits.len();
        for (i, d) in digits.iter_mut().enumerate() {
            *d = match order {
                Order::Lsf => get(i),
                Order::Msf => get(n - 1 - i),
            };
        }
        bytes.zeroize();
    }

    /// Bits of the magnitude (0 for zero).
    pub fn significant_bits(&self) -> u32 {
        u32::try_from(self.0.bits()).unwrap_or(u32::MAX)
    }

    /// The sign as an ordering against zero.
    pub fn cmp0(&self) -> Ordering {
        match self.0.sign() {
            Sign::Minus => Ordering::Less,
            Sign::NoSign => Ordering::Equal,
            Sign::Plus => Ordering::Greater,
        }
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        self.0.is_zero()
    }

    /// Whether the value is even.
    pub fn is_even(&self) -> bool {
        self.0.is_even()
    }

    /// Whether the value is odd.
    pub fn is_odd(&self) -> bool {
        self.0.is_odd()
    }

    /// The absolute value.
    pub fn abs(self) -> Integer {
        Integer(self.0.abs())
    }

    /// Replaces the value by its absolute value, in place (the limbs are
    /// kept: only the sign changes).
    pub fn abs_mut(&mut self) {
        if self.0.is_negative() {
            let v = core::mem::take(&mut self.0);
            self.0 = -v;
        }
    }

    /// The value modulo `m`, in `0..m` (`m > 0`; 0 when `m` is 0).
    pub fn mod_u(&self, m: u32) -> u32 {
        if m == 0 {
            return 0;
        }
        let r = self.0.mod_floor(&BigInt::from(m));
        r.to_u32().unwrap_or(0)
    }

    /// The low `bits` bits, as a non-negative value (of the two's
    /// complement for a negative one).
    pub fn keep_bits(mut self, bits: u32) -> Integer {
        self.keep_bits_mut(bits);
        self
    }

    /// [`Integer::keep_bits`] in place.
    pub fn keep_bits_mut(&mut self, bits: u32) {
        if !self.0.is_negative() && self.significant_bits() <= bits {
            return;
        }
        let mask = (BigInt::one() << bits) - 1u32;
        self.0 = &self.0 & mask;
    }

    /// Bit `index` (of the two's complement for a negative value).
    pub fn get_bit(&self, index: u32) -> bool {
        self.0.bit(u64::from(index))
    }

    /// Sets bit `index` to `value`, in place.
    pub fn set_bit(&mut self, index: u32, value: bool) -> &mut Integer {
        self.0.set_bit(u64::from(index), value);
        self
    }

    /// The first set bit at `start` or above (None if none; a negative
    /// value's two's complement has infinitely many, the first is found).
    pub fn find_one(&self, start: u32) -> Option<u32> {
        if self.0.is_negative() {
            return (start..=u32::MAX).find(|&i| self.get_bit(i));
        }
        let limbs = self.0.magnitude().iter_u64_digits();
        for (i, limb) in limbs.enumerate().skip((start / 64) as usize) {
            let mut w = limb;
            if i == (start / 64) as usize {
                w &= u64::MAX << (start % 64);
            }
            if w != 0 {
                return u32::try_from(i * 64).ok()?.checked_add(w.trailing_zeros());
            }
        }
        None
    }

    /// Number of set bits (None for a negative value, whose two's
    /// complement has infinitely many).
    pub fn count_ones(&self) -> Option<u32> {
        if self.0.is_negative() {
            return None;
        }
        let ones: u64 = self
            .0
            .magnitude()
            .iter_u64_digits()
            .map(|w| u64::from(w.count_ones()))
            .sum();
        u32::try_from(ones).ok()
    }

    /// The square.
    pub fn square(self) -> Integer {
        Integer(&self.0 * &self.0)
    }

    /// The square of a borrowed value.
    pub fn square_ref(&self) -> Integer {
        Integer(&self.0 * &self.0)
    }

    /// Squares the value in place.
    pub fn square_mut(&mut self) {
        self.0 = &self.0 * &self.0;
    }

    /// The floor of the square root (0 for a negative value).
    pub fn sqrt(self) -> Integer {
        if self.0.is_negative() {
            return Integer::new();
        }
        Integer(self.0.sqrt())
    }

    /// The inverse modulo `m`, in `0..|m|`; `Err(self)` when there is none
    /// (or `m` is 0).
    pub fn invert(self, m: &Integer) -> Result<Integer, Integer> {
        if m.is_zero() {
            return Err(self);
        }
        let modulus = m.0.abs();
        let a = self.0.mod_floor(&modulus);
        match a.modinv(&modulus) {
            Some(inv) => Ok(Integer(inv.mod_floor(&modulus))),
            None => Err(self),
        }
    }

    /// The greatest common divisor (non-negative).
    pub fn gcd(self, other: &Integer) -> Integer {
        Integer(self.0.gcd(&other.0))
    }

    /// The least common multiple (non-negative).
    pub fn lcm(self, other: &Integer) -> Integer {
        Integer(self.0.lcm(&other.0))
    }

    /// The Jacobi symbol `(self / n)` for an odd `n > 0` (0 for any other
    /// `n`, which has none).
    pub fn jacobi(&self, n: &Integer) -> i32 {
        if n.cmp0() != Ordering::Greater || n.is_even() {
            return 0;
        }
        let mut n = n.0.magnitude().clone();
        let mut a = self.0.mod_floor(&BigInt::from(n.clone())).into_parts().1;
        let mut sign = 1;
        while !a.is_zero() {
            let tz = a.trailing_zeros().unwrap_or(0);
            a >>= tz;
            let n8 = (&n % 8u32).to_u32().unwrap_or(0);
            if tz % 2 == 1 && (n8 == 3 || n8 == 5) {
                sign = -sign;
            }
            core::mem::swap(&mut a, &mut n);
            if (&a % 4u32).to_u32() == Some(3) && (&n % 4u32).to_u32() == Some(3) {
                sign = -sign;
            }
            a %= &n;
        }
        if n.is_one() {
            sign
        } else {
            0
        }
    }

    /// `self^e mod m`, in `0..|m|`. A negative `e` raises the inverse
    /// (`Err(self)` when there is none); a zero `m` is `Err(self)`. The
    /// exponent is public: its exact length sets the work.
    pub fn pow_mod(self, e: &Integer, m: &Integer) -> Result<Integer, Integer> {
        self.pow_mod_with(e, m, false)
    }

    /// `self^e mod m` for a secret exponent: the work depends on the
    /// exponent's length in 64-bit limbs only, and on nothing else of it
    /// (Montgomery ladder of fixed windows with constant-time table reads,
    /// `crypto-bigint`). A zero or negative `e`, or a zero `m`, is handled
    /// as [`Integer::pow_mod`] does, returning `self` when it fails.
    pub fn secure_pow_mod(self, e: &Integer, m: &Integer) -> Integer {
        match self.pow_mod_with(e, m, true) {
            Ok(v) | Err(v) => v,
        }
    }

    fn pow_mod_with(self, e: &Integer, m: &Integer, secret: bool) -> Result<Integer, Integer> {
        if m.is_zero() {
            return Err(self);
        }
        let modulus = Integer(m.0.abs());
        let base = if e.cmp0() == Ordering::Less {
            match self.clone().invert(&modulus) {
                Ok(inv) => inv,
                Err(_) => return Err(self),
            }
        } else {
            Integer(self.0.mod_floor(&modulus.0))
        };
        let e_abs = Integer(e.0.abs());
        if modulus.0.is_one() {
            return Ok(Integer::new());
        }
        if modulus.is_even() {
            return Ok(Integer(base.0.modpow(&e_abs.0, &modulus.0)));
        }
        let bits = if secret {
            64 * (e_abs.significant_digits::<u64>() as u32)
        } else {
            e_abs.significant_bits()
        };
        Ok(monty_pow(&base, &e_abs, &modulus, bits, secret))
    }

    /// Whether the value is prime, by the Baillie–PSW test (`reps`, GMP's
    /// count of Miller–Rabin rounds, is not needed: the test has no known
    /// pseudoprime). Negative values and values below 2 are `No`.
    pub fn is_probably_prime(&self, reps: u32) -> IsPrime {
        let _ = reps;
        if self.0 < BigInt::from(2) {
            return IsPrime::No;
        }
        let limbs = self.limbs();
        let precision = 64 * limbs.len() as u32;
        let candidate = BoxedUint::from_words_with_precision(limbs, precision);
        if crypto_primes::is_prime(crypto_primes::Flavor::Any, &candidate) {
            IsPrime::Probably
        } else {
            IsPrime::No
        }
    }

    /// The least prime above the value (2 for values below 2): odd
    /// candidates in turn, those with a factor below 1000 skipped by trial
    /// division, the rest tested by [`Integer::is_probably_prime`].
    pub fn next_prime(self) -> Integer {
        if self.0 < BigInt::from(2) {
            return Integer::from(2);
        }
        let mut c = self + 1u32;
        if c.is_even() {
            if c == 2 {
                return c;
            }
            c += 1u32;
        }
        loop {
            let small = SMALL_PRIMES.iter().find(|&&p| c.mod_u(p) == 0);
            match small {
                Some(&p) if c != p => {}
                _ => {
                    if c.is_probably_prime(0) != IsPrime::No {
                        return c;
                    }
                }
            }
            c += 2u32;
        }
    }

    /// The value as a `u64` when it fits.
    pub fn to_u64(&self) -> Option<u64> {
        self.0.to_u64()
    }

    /// The value as a `u32` when it fits.
    pub fn to_u32(&self) -> Option<u32> {
        self.0.to_u32()
    }

    /// The value as an `f64` (nearest; infinite beyond its range).
    pub fn to_f64(&self) -> f64 {
        self.0.to_f64().unwrap_or(f64::NAN)
    }
}

/// Odd primes below 1000, the trial divisors of [`Integer::next_prime`].
const SMALL_PRIMES: [u32; 167] = {
    let mut out = [0u32; 167];
    let mut n = 3u32;
    let mut k = 0;
    while k < out.len() {
        let mut d = 3;
        let mut prime = true;
        while d * d <= n {
            if n.is_multiple_of(d) {
                prime = false;
                break;
            }
            d += 2;
        }
        if prime {
            out[k] = n;
            k += 1;
        }
        n += 2;
    }
    out
};

/// `base^e mod m` for `0 <= base < m`, `m` odd and above 1, `e >= 0` with
/// at most `bits` bits, in `crypto-bigint`'s Montgomery form: the same
/// squarings, multiplications and constant-time window reads for every
/// exponent of `bits` bits. With `secret`, the Montgomery constants are
/// computed in constant time too (the modulus may be a secret prime or its
/// square). The exponent's limbs are wiped after use.
fn monty_pow(base: &Integer, e: &Integer, m: &Integer, bits: u32, secret: bool) -> Integer {
    let m_limbs = m.limbs();
    let precision = 64 * m_limbs.len() as u32;
    let modulus = BoxedUint::from_words_with_precision(m_limbs, precision);
    let Some(odd) = Odd::new(modulus).into_option() else {
        // Unreachable: the caller passes an odd modulus.
        return Integer(base.0.modpow(&e.0, &m.0));
    };
    let params = if secret {
        BoxedMontyParams::new(odd)
    } else {
        BoxedMontyParams::new_vartime(odd)
    };
    let mut b_limbs = base.limbs();
    let b = BoxedUint::from_words_with_precision(b_limbs.iter().copied(), precision);
    b_limbs.zeroize();
    let mut e_limbs = e.limbs();
    e_limbs.resize(bits.div_ceil(64).max(1) as usize, 0);
    let e_precision = 64 * e_limbs.len() as u32;
    let mut exponent = BoxedUint::from_words_with_precision(e_limbs.iter().copied(), e_precision);
    e_limbs.zeroize();
    let mut form = BoxedMontyForm::new(b, &params);
    let mut power = form.pow_bounded_exp(&exponent, bits);
    exponent.zeroize();
    form.zeroize();
    let mut out = power.retrieve();
    power.zeroize();
    let v = Integer::from_limbs(out.as_words());
    out.zeroize();
    v
}

impl fmt::Display for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::Debug for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0, f)
    }
}

impl fmt::LowerHex for Integer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::LowerHex::fmt(&self.0, f)
    }
}

impl From<&Integer> for Integer {
    fn from(v: &Integer) -> Integer {
        v.clone()
    }
}

macro_rules! from_prim {
    ($($t:ty),*) => {$(
        impl From<$t> for Integer {
            fn from(v: $t) -> Integer {
                Integer(BigInt::from(v))
            }
        }
        impl PartialEq<$t> for Integer {
            fn eq(&self, other: &$t) -> bool {
                self.0 == BigInt::from(*other)
            }
        }
        impl PartialEq<Integer> for $t {
            fn eq(&self, other: &Integer) -> bool {
                other == self
            }
        }
        impl PartialOrd<$t> for Integer {
            fn partial_cmp(&self, other: &$t) -> Option<Ordering> {
                Some(self.0.cmp(&BigInt::from(*other)))
            }
        }
        impl PartialOrd<Integer> for $t {
            fn partial_cmp(&self, other: &Integer) -> Option<Ordering> {
                Some(BigInt::from(*self).cmp(&other.0))
            }
        }
    )*};
}
from_prim!(i32, u32, i64, u64, i128, u128, usize, isize, u8);

/// The binary operators on every pairing of owned and borrowed values,
/// and with primitive integers on either side, as `rug` provides them.
macro_rules! binop {
    ($tr:ident, $m:ident, $atr:ident, $am:ident, $op:tt) => {
        impl $tr<Integer> for Integer {
            type Output = Integer;
            fn $m(self, rhs: Integer) -> Integer {
                Integer(self.0 $op rhs.0)
            }
        }
        impl $tr<&Integer> for Integer {
            type Output = Integer;
            fn $m(self, rhs: &Integer) -> Integer {
                Integer(self.0 $op &rhs.0)
            }
        }
        impl $tr<Integer> for &Integer {
            type Output = Integer;
            fn $m(self, rhs: Integer) -> Integer {
                Integer(&self.0 $op rhs.0)
            }
        }
        impl $tr<&Integer> for &Integer {
            type Output = Integer;
            fn $m(self, rhs: &Integer) -> Integer {
                Integer(&self.0 $op &rhs.0)
            }
        }
        impl $atr<Integer> for Integer {
            fn $am(&mut self, rhs: Integer) {
                let lhs = core::mem::take(&mut self.0);
                self.0 = lhs $op rhs.0;
            }
        }
        impl $atr<&Integer> for Integer {
            fn $am(&mut self, rhs: &Integer) {
                let lhs = core::mem::take(&mut self.0);
                self.0 = lhs $op &rhs.0;
            }
        }
        binop!(@prim $tr, $m, $atr, $am, $op, i32, u32, i64, u64, u128, usize);
    };
    (@prim $tr:ident, $m:ident, $atr:ident, $am:ident, $op:tt, $($t:ty),*) => {$(
        impl $tr<$t> for Integer {
            type Output = Integer;
            fn $m(self, rhs: $t) -> Integer {
                Integer(self.0 $op BigInt::from(rhs))
            }
        }
        impl $tr<$t> for &Integer {
            type Output = Integer;
            fn $m(self, rhs: $t) -> Integer {
                Integer(&self.0 $op BigInt::from(rhs))
            }
        }
        impl $tr<Integer> for $t {
            type Output = Integer;
            fn $m(self, rhs: Integer) -> Integer {
                Integer(BigInt::from(self) $op rhs.0)
            }
        }
        impl $tr<&Integer> for $t {
            type Output = Integer;
            fn $m(self, rhs: &Integer) -> Integer {
                Integer(BigInt::from(self) $op &rhs.0)
            }
        }
        impl $atr<$t> for Integer {
            fn $am(&mut self, rhs: $t) {
                let lhs = core::mem::take(&mut self.0);
                self.0 = lhs $op BigInt::from(rhs);
            }
        }
    )*};
}
binop!(Add, add, AddAssign, add_assign, +);
binop!(Sub, sub, SubAssign, sub_assign, -);
binop!(Mul, mul, MulAssign, mul_assign, *);
binop!(Div, div, DivAssign, div_assign, /);
binop!(Rem, rem, RemAssign, rem_assign, %);

binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Neg for Integer {
    type Output = Integer;
    fn neg(self) -> Integer {
        Integer(-self.0)
    }
}

impl Neg for &Integer {
    type Output = Integer;
    fn neg(self) -> Integer {
        Integer(-&self.0)
    }
}

macro_rules! shifts {
    ($($t:ty),*) => {$(
        impl Shl<$t> for Integer {
            type Output = Integer;
            fn shl(self, s: $t) -> Integer {
                Integer(self.0 << s)
            }
        }
        impl Shl<$t> for &Integer {
            type Output = Integer;
            fn shl(self, s: $t) -> Integer {
                Integer(&self.0 << s)
            }
        }
        impl Shr<$t> for Integer {
            type Output = Integer;
            fn shr(self, s: $t) -> Integer {
                Integer(self.0 >> s)
            }
        }
        impl Shr<$t> for &Integer {
            type Output = Integer;
            fn shr(self, s: $t) -> Integer {
                Integer(&self.0 >> s)
            }
        }
        impl ShlAssign<$t> for Integer {
            fn shl_assign(&mut self, s: $t) {
                self.0 <<= s;
            }
        }
        impl ShrAssign<$t> for Integer {
            fn shr_assign(&mut self, s: $t) {
                self.0 >>= s;
            }
        }
    )*};
}
shifts!(u32, i32, usize);

impl Pow<u32> for Integer {
    type Output = Integer;
    fn pow(self, e: u32) -> Integer {
        Integer(num_traits::Pow::pow(self.0, e))
    }
}

impl Pow<u32> for &Integer {
    type Output = Integer;
    fn pow(self, e: u32) -> Integer {
        Integer(num_traits::Pow::pow(&self.0, e))
    }
}

impl core::iter::Sum for Integer {
    fn sum<I: Iterator<Item = Integer>>(iter: I) -> Integer {
        iter.fold(Integer::new(), |a, b| a + b)
    }
}

impl<'a> core::iter::Sum<&'a Integer> for Integer {
    fn sum<I: Iterator<Item = &'a Integer>>(iter: I) -> Integer {
        iter.fold(Integer::new(), |a, b| a + b)
    }
}

impl core::iter::Product for Integer {
    fn product<I: Iterator<Item = Integer>>(iter: I) -> Integer {
        iter.fold(Integer::from(1), |a, b| a * b)
    }
}

impl core::str::FromStr for Integer {
    type Err = num_bigint::ParseBigIntError;
    fn from_str(s: &str) -> Result<Integer, Self::Err> {
        s.parse().map(Integer)
    }
}
