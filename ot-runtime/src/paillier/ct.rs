//! Window tables read without a secret-dependent index or branch: the
//! building block of the Paillier exponentiations with secret exponents
//! ([`super::FixedBase::pow`], [`super::multi_exp`]).
//!
//! A table entry is a residue `v` modulo `m` stored as `v + c·m`, where the
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

use crate::bignum::{Integer, Order};
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

/// Residues modulo one modulus, each stored in `limbs` 64-bit limbs as
/// `v + offset` (see the module docs), one after the other.
#[derive(Clone, Debug)]
pub(crate) struct LimbTable {
    limbs: usize,
    offset: Integer,
    data: Vec<u64>,
}

impl LimbTable {
    /// An empty table for residues modulo `m` (`m > 0`), with room for
    /// `capacity` entries.
    pub(crate) fn new(m: &Integer, capacity: usize) -> LimbTable {
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
            limbs,
            offset,
            data: Vec::with_capacity(capacity * limbs),
        }
    }

    /// Limbs per entry.
    pub(crate) fn limbs(&self) -> usize {
        self.limbs
    }

    /// Appends the residue `v` (`0 ≤ v < m`).
    pub(crate) fn push(&mut self, v: &Integer) {
        let stored = Integer::from(v + &self.offset);
        let at = self.data.len();
        self.data.resize(at + self.limbs, 0);
        stored.write_digits(&mut self.data[at..], Order::Lsf);
    }

    /// Appends `b^0, b^1, …, b^(count−1) mod m` (`m` the table's modulus)
    /// and returns `b^count mod m`.
    pub(crate) fn push_powers(&mut self, b: &Integer, count: usize, m: &Integer) -> Integer {
        let mut b = Integer::from(b % m);
        if b < 0 {
            b += m;
        }
        let mut acc = Integer::from(1) % m;
        for _ in 0..count {
            self.push(&acc);
            acc *= &b;
            acc %= m;
        }
        acc
    }

    /// Entry `i` as stored (`v + offset`).
    pub(crate) fn stored(&self, i: usize) -> Integer {
        Integer::from_digits(&self.data[i * self.limbs..(i + 1) * self.limbs], Order::Lsf)
    }

    /// Number of entries.
    pub(crate) fn len(&self) -> usize {
        self.data.len() / self.limbs
    }

    /// Bytes of the stored entries.
    pub(crate) fn bytes(&self) -> usize {
        self.data.len() * 8
    }

    /// Entry `first + digit` of the `count` entries from `first`, into
    /// `sel` (as stored, `limbs` limbs), by [`ct_select`]; `scratch` holds
    /// [`Self::limbs`] limbs.
    pub(crate) fn select(
        &self,
        first: usize,
        count: usize,
        digit: u64,
        scratch: &mut [u64],
        sel: &mut Integer,
    ) {
        let l = self.limbs;
        let row = &self.data[first * l..(first + count) * l];
        ct_select(count, digit, |i| &row[i * l..(i + 1) * l], scratch);
        sel.assign_digits(scratch, Order::Lsf);
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
            let mut t = LimbTable::new(m, 4);
            let values = [Integer::new(), Integer::from(1), Integer::from(m - 1u32)];
            for v in &values {
                t.push(v);
            }
            assert_eq!(t.len(), values.len());
            let mut scratch = vec![0u64; t.limbs()];
            for (i, v) in values.iter().enumerate() {
                let s = t.stored(i);
                assert_eq!(s.significant_digits::<u64>(), t.limbs(), "modulus {m}");
                assert_eq!(Integer::from(&s % m), *v);
                let mut sel = Integer::new();
                t.select(0, values.len(), i as u64, &mut scratch, &mut sel);
                assert_eq!(sel, s);
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
