//! Window tables read without a secret-dependent index or branch: the
//! building block of the Paillier exponentiations with secret exponents
//! ([`super::FixedBase::pow`], [`super::multi_exp`]).
//!
//! On the pure-Rust backend (the default) a table over an odd modulus keeps
//! its entries in Montgomery form (`v·R mod m`, `crypto-bigint`), all of
//! the modulus' limb width, and multiplies by constant-time Montgomery
//! multiplication. Otherwise (GMP, or an even modulus):
//! a table entry is a residue `v` modulo `m` stored as `v + c·m`, where the
//! multiple `c·m` of the modulus is chosen once per table so that every
//! stored value has the same number `L` of 64-bit limbs with a non-zero top
//! limb (`c·m ≥ 2^(64(L−1))` and `(c + 1)·m ≤ 2^(64L)`). Read back as a GMP
//! integer, every entry then has the same size, including `1` (`base^0`, the
//! entry of the zero digit, which as a plain GMP integer would be one limb
//! long and make its multiplication visibly faster), and multiplying by it
//! equals multiplying by `v` modulo `m`.
//!
//! An entry is selected by [`ct_select`]: it reads every entry of the row
//! and keeps the wanted one with a mask computed by `subtle`'s
//! constant-time equality (the countermeasure of GMP's own
//! `mpn_sec_tabselect`, written here in safe Rust), so the memory accesses
//! and branches do not depend on the digit. The exponent's digits come
//! from a fixed number of limbs ([`ExpLimbs`]), read at public positions.

// The call sites are written for both big-integer backends: GMP's
// (feature `gmp`) arithmetic on references yields incomplete values that
// `Integer::from` completes, the pure-Rust backend's yields an `Integer`.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use crate::primitives::bignum::{Integer, Order};
use crypto_bigint::modular::{BoxedMontyForm, BoxedMontyParams};
use crypto_bigint::{BoxedUint, Odd};
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

/// Copies into `out` the entry `digit` of the `count` entries that `entry`
/// returns, reading all of them (in order) and keeping the wanted one by
/// masking, with no branch or index that depends on `digit`. A `digit` of
/// `count` or more leaves `out` zero.
pub(crate) fn ct_select<'a>(
    count: usize,
    digit: u64,
    entry: impl Fn(usize) -> &'a [u64],
    out: &mut [u64],
) {
    out.fill(0);
    for i in 0..count {
        let mask = 0u64.wrapping_sub(u64::from((i as u64).ct_eq(&digit).unwrap_u8()));
        for (o, x) in out.iter_mut().zip(entry(i)) {
            *o |= x & mask;
        }
    }
}

/// Whether tables over an odd modulus keep their entries in Montgomery
/// form (`crypto-bigint`'s constant-time Montgomery multiplication) rather
/// than as plain residues multiplied and reduced by the backend's integer
/// arithmetic: on with the pure-Rust backend, whose plain modular
/// multiplication is the slower of the two; off with GMP, whose `mpz`
/// multiplication and division beat it (`examples/bignum_rate.rs`).
const MONTGOMERY_TABLES: bool = !cfg!(feature = "gmp");

/// The arithmetic of one table: residues modulo its modulus, either plain
/// (stored as `v + offset`, see the module docs) or in Montgomery form.
#[derive(Clone, Debug)]
enum Ring {
    Plain {
        modulus: Integer,
        offset: Integer,
        limbs: usize,
    },
    Montgomery {
        params: BoxedMontyParams,
        limbs: usize,
    },
}

/// A running product of table entries ([`LimbTable::one`], the `mul_*`
/// and [`LimbTable::square`] methods, read out by [`LimbTable::finish`]).
/// Montgomery products are wiped when dropped.
pub(crate) enum Acc {
    Plain(Integer),
    Montgomery(BoxedMontyForm),
}

impl Drop for Acc {
    fn drop(&mut self) {
        if let Acc::Montgomery(f) = self {
            f.zeroize();
        }
    }
}

/// `v` (`0 ≤ v < 2^(64·limbs)`) as a `crypto-bigint` integer of `limbs`
/// limbs, through the backend-neutral digit interface; the limb copy is
/// wiped.
fn boxed(v: &Integer, limbs: usize) -> BoxedUint {
    let mut w = vec![0u64; limbs.max(v.significant_digits::<u64>())];
    v.write_digits(&mut w, Order::Lsf);
    let out = BoxedUint::from_words_with_precision(w[..limbs].iter().copied(), 64 * limbs as u32);
    w.zeroize();
    out
}

/// A `crypto-bigint` integer as the backend's integer.
fn unboxed(v: &BoxedUint) -> Integer {
    Integer::from_digits(v.as_words(), Order::Lsf)
}

/// Residues modulo one modulus, each stored in the same number of 64-bit
/// limbs, one after the other: in Montgomery form (pure-Rust backend, odd
/// modulus) or as `v + offset` (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct LimbTable {
    ring: Ring,
    data: Vec<u64>,
}

impl LimbTable {
    /// An empty table for residues modulo `m` (`m > 0`), with room for
    /// `capacity` entries, in the backend's preferred representation.
    pub(crate) fn new(m: &Integer, capacity: usize) -> LimbTable {
        if MONTGOMERY_TABLES && m.is_odd() && *m > 1 {
            let limbs = m.significant_digits::<u64>();
            if let Some(odd) = Odd::new(boxed(m, limbs)).into_option() {
                // The modulus may be secret (a key owner's `p²`): its
                // Montgomery constants are computed in constant time.
                let params = BoxedMontyParams::new(odd);
                return LimbTable {
                    ring: Ring::Montgomery { params, limbs },
                    data: Vec::with_capacity(capacity * limbs),
                };
            }
        }
        LimbTable::new_plain(m, capacity)
    }

    /// [`Self::new`] with plain residues stored as `v + offset`.
    pub(crate) fn new_plain(m: &Integer, capacity: usize) -> LimbTable {
        let mut limbs = m.significant_digits::<u64>().max(1);
        let offset = loop {
            let bits = 64 * limbs as u32;
            let low = Integer::from(1) << (bits - 64);
            // The least c ≥ 1 with c·m ≥ 2^(64(L−1)).
            let c = (Integer::from(&low + m) - 1u32) / m;
            let c = c.max(Integer::from(1));
            if Integer::from(&c + 1u32) * m <= (Integer::from(1) << bits) {
                break c * m;
            }
            limbs += 1;
        };
        LimbTable {
            ring: Ring::Plain {
                modulus: m.clone(),
                offset,
                limbs,
            },
            data: Vec::with_capacity(capacity * limbs),
        }
    }

    /// Limbs per entry.
    pub(crate) fn limbs(&self) -> usize {
        match &self.ring {
            Ring::Plain { limbs, .. } | Ring::Montgomery { limbs, .. } => *limbs,
        }
    }

    /// Whether entries are kept in Montgomery form.
    #[cfg(test)]
    pub(crate) fn is_montgomery(&self) -> bool {
        matches!(self.ring, Ring::Montgomery { .. })
    }

    /// Appends the residue `v` (`0 ≤ v < m`).
    pub(crate) fn push(&mut self, v: &Integer) {
        let at = self.data.len();
        let limbs = self.limbs();
        self.data.resize(at + limbs, 0);
        match &self.ring {
            Ring::Plain { offset, .. } => {
                let stored = Integer::from(v + offset);
                stored.write_digits(&mut self.data[at..], Order::Lsf);
            }
            Ring::Montgomery { params, .. } => {
                let mut f = BoxedMontyForm::new(boxed(v, limbs), params);
                self.data[at..].copy_from_slice(f.as_montgomery().as_words());
                f.zeroize();
            }
        }
    }

    /// Appends `b^0, b^1, …, b^(count−1) mod m` (`m` the table's modulus)
    /// and returns `b^count mod m`.
    pub(crate) fn push_powers(&mut self, b: &Integer, count: usize, m: &Integer) -> Integer {
        let mut b = Integer::from(b % m);
        if b < 0 {
            b += m;
        }
        if let Ring::Montgomery { params, limbs } = &self.ring {
            let base = BoxedMontyForm::new(boxed(&b, *limbs), params);
            let mut acc = BoxedMontyForm::one(params);
            for _ in 0..count {
                self.data.extend_from_slice(acc.as_montgomery().as_words());
                acc = &acc * &base;
            }
            return unboxed(&acc.retrieve());
        }
        let mut acc = Integer::from(1) % m;
        for _ in 0..count {
            self.push(&acc);
            acc *= &b;
            acc %= m;
        }
        acc
    }

    /// Entry `i` as stored (`v + offset`, or the Montgomery form `v·R`).
    pub(crate) fn stored(&self, i: usize) -> Integer {
        let l = self.limbs();
        Integer::from_digits(&self.data[i * l..(i + 1) * l], Order::Lsf)
    }

    /// The residue of entry `i`, in `0..m`.
    pub(crate) fn value(&self, i: usize) -> Integer {
        let l = self.limbs();
        let words = &self.data[i * l..(i + 1) * l];
        match &self.ring {
            Ring::Plain { modulus, .. } => Integer::from(&self.stored(i) % modulus),
            Ring::Montgomery { params, limbs } => {
                let x =
                    BoxedUint::from_words_with_precision(words.iter().copied(), 64 * *limbs as u32);
                unboxed(&BoxedMontyForm::from_montgomery(x, params).retrieve())
            }
        }
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.data.len() / self.limbs()
    }

    /// Bytes of the stored entries.
    pub(crate) fn bytes(&self) -> usize {
        self.data.len() * 8
    }

    /// Overwrites every entry with zeros (one pass of wide volatile
    /// stores) and wipes a plain table's modulus and offset: a key owner's
    /// tables modulo `p²` and `q²` reveal the factors. The Montgomery
    /// constants (the modulus, `R` and `R²` modulo it) sit in
    /// `crypto-bigint`'s shared parameters, out of reach.
    pub(crate) fn wipe(&mut self) {
        crate::primitives::wipe::wipe_pod(&mut self.data);
        if let Ring::Plain {
            modulus, offset, ..
        } = &mut self.ring
        {
            crate::primitives::wipe::Wipe::wipe(modulus);
            crate::primitives::wipe::Wipe::wipe(offset);
        }
    }

    /// The empty product, 1.
    pub(crate) fn one(&self) -> Acc {
        match &self.ring {
            Ring::Plain { .. } => Acc::Plain(Integer::from(1)),
            Ring::Montgomery { params, .. } => Acc::Montgomery(BoxedMontyForm::one(params)),
        }
    }

    /// Multiplies `acc` by the entry held in `limbs` (as stored).
    fn mul_limbs(&self, acc: &mut Acc, limbs: &[u64]) {
        match (&self.ring, acc) {
            (Ring::Plain { modulus, .. }, Acc::Plain(a)) => {
                *a *= Integer::from_digits(limbs, Order::Lsf);
                *a %= modulus;
            }
            (Ring::Montgomery { params, limbs: l }, Acc::Montgomery(a)) => {
                let x = BoxedUint::from_words_with_precision(limbs.iter().copied(), 64 * *l as u32);
                let mut x = BoxedMontyForm::from_montgomery(x, params);
                *a = &*a * &x;
                x.zeroize();
            }
            // An accumulator of another table: unreachable by
            // construction (each caller keeps one table's accumulator).
            _ => {}
        }
    }

    /// Multiplies `acc` by entry `first + digit` of the `count` entries
    /// from `first`, selected by [`ct_select`] into `scratch` ([`Self::limbs`]
    /// limbs): every entry of the row is read, none by a secret index.
    pub(crate) fn mul_selected(
        &self,
        acc: &mut Acc,
        first: usize,
        count: usize,
        digit: u64,
        scratch: &mut [u64],
    ) {
        let l = self.limbs();
        let row = &self.data[first * l..(first + count) * l];
        ct_select(count, digit, |i| &row[i * l..(i + 1) * l], scratch);
        self.mul_limbs(acc, scratch);
    }

    /// Multiplies `acc` by entry `i` read directly (a public index).
    pub(crate) fn mul_entry(&self, acc: &mut Acc, i: usize) {
        let l = self.limbs();
        self.mul_limbs(acc, &self.data[i * l..(i + 1) * l]);
    }

    /// Squares `acc`.
    pub(crate) fn square(&self, acc: &mut Acc) {
        match (&self.ring, acc) {
            (Ring::Plain { modulus, .. }, Acc::Plain(a)) => {
                a.square_mut();
                *a %= modulus;
            }
            (Ring::Montgomery { .. }, Acc::Montgomery(a)) => *a = a.square(),
            _ => {}
        }
    }

    /// The product's residue, in `0..m`.
    pub(crate) fn finish(&self, acc: &Acc) -> Integer {
        match (&self.ring, acc) {
            (Ring::Plain { modulus, .. }, Acc::Plain(a)) => Integer::from(a % modulus),
            (Ring::Montgomery { .. }, Acc::Montgomery(a)) => {
                let mut r = a.retrieve();
                let v = unboxed(&r);
                r.zeroize();
                v
            }
            _ => Integer::new(),
        }
    }
}

/// The low `bits` bits of a non-negative exponent as `⌈bits/64⌉` limbs
/// (least significant first; a negative exponent counts as 0), wiped on
/// drop. Digits are read at public positions, with no branch on their
/// value.
pub(crate) struct ExpLimbs(Vec<u64>);

impl ExpLimbs {
    /// The limbs of `e mod 2^bits` (`e ≥ 0`; else 0).
    pub(crate) fn new(e: &Integer, bits: u32) -> ExpLimbs {
        let mut v = vec![0u64; bits.div_ceil(64) as usize];
        if e.cmp0() == core::cmp::Ordering::Greater {
            let mut all = vec![0u64; e.significant_digits::<u64>()];
            e.write_digits(&mut all, Order::Lsf);
            for (x, y) in v.iter_mut().zip(&all) {
                *x = *y;
            }
            all.zeroize();
        }
        if !bits.is_multiple_of(64) {
            if let Some(top) = v.last_mut() {
                *top &= (1u64 << (bits % 64)) - 1;
            }
        }
        ExpLimbs(v)
    }

    /// Bits `at..at + width` (`width ≤ 32`) as a digit.
    pub(crate) fn digit(&self, at: u32, width: u32) -> u64 {
        let (i, s) = ((at / 64) as usize, at % 64);
        let lo = self.0.get(i).copied().unwrap_or(0) >> s;
        let hi = if s + width > 64 {
            self.0.get(i + 1).copied().unwrap_or(0) << (64 - s)
        } else {
            0
        };
        (lo | hi) & ((1u64 << width) - 1)
    }
}

impl Drop for ExpLimbs {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;

    #[test]
    fn selection_reads_every_entry_once_in_order() {
        let entries: Vec<Vec<u64>> = (0..16u64).map(|i| vec![i * 3 + 1, !i, i << 40]).collect();
        for digit in 0..16u64 {
            let seen = RefCell::new(Vec::new());
            let mut out = [0u64; 3];
            ct_select(
                entries.len(),
                digit,
                |i| {
                    seen.borrow_mut().push(i);
                    &entries[i]
                },
                &mut out,
            );
            assert_eq!(seen.into_inner(), (0..16).collect::<Vec<_>>());
            assert_eq!(out.to_vec(), entries[digit as usize]);
        }
        let mut out = [7u64; 3];
        ct_select(entries.len(), 16, |i| &entries[i], &mut out);
        assert_eq!(out, [0; 3]);
    }

    #[test]
    fn entries_have_one_length_and_the_same_residue() {
        // Moduli just below and at limb boundaries, and a 4096-bit one.
        let moduli = [
            Integer::from(3),
            (Integer::from(1) << 64) - 59u32,
            (Integer::from(1) << 63) + 25u32,
            (Integer::from(1) << 4095) + 1u32,
            (Integer::from(1) << 4096) - 3u32,
        ];
        for m in &moduli {
            for plain in [true, false] {
                let mut t = if plain {
                    LimbTable::new_plain(m, 4)
                } else {
                    LimbTable::new(m, 4)
                };
                let values = [Integer::new(), Integer::from(1), Integer::from(m - 1u32)];
                for v in &values {
                    t.push(v);
                }
                assert_eq!(t.len(), values.len());
                let mut scratch = vec![0u64; t.limbs()];
                for (i, v) in values.iter().enumerate() {
                    if !t.is_montgomery() {
                        let s = t.stored(i);
                        assert_eq!(s.significant_digits::<u64>(), t.limbs(), "modulus {m}");
                        assert_eq!(Integer::from(&s % m), *v);
                    }
                    assert_eq!(t.value(i), *v, "modulus {m}");
                    // Selecting entry i and multiplying 1 by it gives v.
                    let mut acc = t.one();
                    t.mul_selected(&mut acc, 0, values.len(), i as u64, &mut scratch);
                    assert_eq!(t.finish(&acc), *v);
                    let mut acc = t.one();
                    t.mul_entry(&mut acc, i);
                    t.square(&mut acc);
                    assert_eq!(t.finish(&acc), Integer::from(v * v) % m);
                }
            }
        }
    }

    #[test]
    fn digits_cross_limb_boundaries() {
        let e = (Integer::from(0b1011) << 62) + 0b110u32;
        let x = ExpLimbs::new(&e, 70);
        assert_eq!(x.digit(0, 3), 0b110);
        assert_eq!(x.digit(62, 4), 0b1011);
        assert_eq!(x.digit(60, 5), 0b01100);
        assert_eq!(x.digit(68, 4), 0, "beyond the bound");
        assert_eq!(ExpLimbs::new(&Integer::from(-5), 64).digit(0, 8), 0);
        // Bits above the bound are dropped.
        assert_eq!(ExpLimbs::new(&Integer::from(0xff), 4).digit(0, 8), 0xf);
    }
}
