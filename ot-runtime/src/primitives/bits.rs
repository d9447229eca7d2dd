//! [`Bits`], a packed bit vector with an explicit length, and
//! [`ShapeError`], the error every kernel returns instead of panicking on a
//! length or shape it does not accept.
//!
//! Bit `i` is bit `i % 8` of byte `i / 8` (LSB first), the same order as
//! [`crate::Block::bit`]. Bits at positions `>= len` in the last byte are
//! always zero, so two `Bits` with equal contents have equal bytes.

use crate::Block;
use core::ops::BitXor;
use rand_core::{CryptoRng, RngCore};

/// A length or shape did not match what a kernel or constructor requires.
///
/// Kernels return this instead of panicking, so a malformed message from a
/// peer cannot crash a party.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShapeError {
    /// A buffer had the wrong number of elements.
    #[error("{what}: expected length {expected}, got {actual}")]
    Length {
        /// Which argument was wrong.
        what: &'static str,
        /// The length required.
        expected: usize,
        /// The length given.
        actual: usize,
    },
    /// Bits beyond the declared length were set (non-canonical encoding).
    #[error("{what}: padding bits beyond the declared length are not zero")]
    Padding {
        /// Which argument was wrong.
        what: &'static str,
    },
    /// A matrix shape the operation does not support.
    #[error("{what}: unsupported shape {rows} x {cols}")]
    Shape {
        /// Which argument was wrong.
        what: &'static str,
        /// Rows given.
        rows: usize,
        /// Columns given.
        cols: usize,
    },
    /// An index was out of range.
    #[error("{what}: index {index} out of range (len {len})")]
    Index {
        /// Which argument was wrong.
        what: &'static str,
        /// The index given.
        index: usize,
        /// The valid range is `0..len`.
        len: usize,
    },
}

/// Checks `actual == expected`, producing a [`ShapeError::Length`].
#[inline]
pub(crate) fn check_len(
    what: &'static str,
    expected: usize,
    actual: usize,
) -> Result<(), ShapeError> {
    if expected == actual {
        Ok(())
    } else {
        Err(ShapeError::Length {
            what,
            expected,
            actual,
        })
    }
}

/// A packed vector of `len` bits (choice bits, columns of OT matrices).
///
/// Invariant: bits at positions `>= len` of the last byte are zero.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct Bits {
    bytes: Vec<u8>,
    len: usize,
}

/// Bit vectors hold choice bits and the OT-extension sender's `s` (the
/// bits of Delta): their bytes are wiped when the vector is dropped.
impl Drop for Bits {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(self.bytes.spare_capacity_mut());
        crate::primitives::wipe::wipe_pod(&mut self.bytes);
    }
}

impl Bits {
    /// Overwrites every bit with 0 (the length is kept); see
    /// [`crate::primitives::wipe::Wipe`].
    pub(crate) fn wipe_bytes(&mut self) {
        crate::primitives::wipe::wipe_pod(&mut self.bytes);
    }
}

impl core::fmt::Debug for Bits {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "Bits[{}](", self.len)?;
        for b in self.iter().take(256) {
            f.write_str(if b { "1" } else { "0" })?;
        }
        if self.len > 256 {
            f.write_str("...")?;
        }
        f.write_str(")")
    }
}

impl Bits {
    /// `n` zero bits.
    pub fn zeros(n: usize) -> Bits {
        Bits {
            bytes: vec![0; n.div_ceil(8)],
            len: n,
        }
    }

    /// `n` uniformly random bits from a cryptographic RNG.
    pub fn random<R: RngCore + CryptoRng + ?Sized>(rng: &mut R, n: usize) -> Bits {
        let mut bytes = vec![0u8; n.div_ceil(8)];
        rng.fill_bytes(&mut bytes);
        let mut b = Bits { bytes, len: n };
        b.clear_padding();
        b
    }

    /// Number of bits.
    #[inline]
    pub fn len(&self) -> usize {
        self.len
    }

    /// True if the vector holds no bits.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit `i`.
    ///
    /// # Panics
    /// If `i >= len()`, like slice indexing.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        assert!(
            i < self.len,
            "Bits::get index {i} out of range (len {})",
            self.len
        );
        (self.bytes[i / 8] >> (i % 8)) & 1 == 1
    }

    /// Sets bit `i` to `v`.
    ///
    /// # Panics
    /// If `i >= len()`, like slice indexing.
    #[inline]
    pub fn set(&mut self, i: usize, v: bool) {
        assert!(
            i < self.len,
            "Bits::set index {i} out of range (len {})",
            self.len
        );
        let m = 1u8 << (i % 8);
        let byte = &mut self.bytes[i / 8];
        *byte = (*byte & !m) | ((v as u8) << (i % 8));
    }

    /// Bit `i`, or `None` if out of range (non-panicking variant of [`Bits::get`]).
    #[inline]
    pub fn try_get(&self, i: usize) -> Option<bool> {
        (i < self.len).then(|| (self.bytes[i / 8] >> (i % 8)) & 1 == 1)
    }

    /// The packed bytes (`ceil(len/8)` of them, padding bits zero).
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes
    }

    /// Consumes the vector, returning its packed bytes.
    pub fn into_bytes(mut self) -> Vec<u8> {
        std::mem::take(&mut self.bytes)
    }

    /// Parses `n` bits from packed bytes (e.g. off the wire).
    ///
    /// Errors if `bytes.len() != ceil(n/8)` or if any padding bit is set, so
    /// each bit vector has exactly one encoding.
    pub fn from_bytes(bytes: &[u8], n: usize) -> Result<Bits, ShapeError> {
        check_len("Bits::from_bytes", n.div_ceil(8), bytes.len())?;
        if !n.is_multiple_of(8) {
            let last = bytes[bytes.len() - 1];
            if last >> (n % 8) != 0 {
                return Err(ShapeError::Padding {
                    what: "Bits::from_bytes",
                });
            }
        }
        Ok(Bits {
            bytes: bytes.to_vec(),
            len: n,
        })
    }

    /// Packs a slice of booleans.
    pub fn from_bools(v: &[bool]) -> Bits {
        let mut b = Bits::zeros(v.len());
        for (i, &x) in v.iter().enumerate() {
            b.bytes[i / 8] |= (x as u8) << (i % 8);
        }
        b
    }

    /// Takes the first `n` bits of a block slice (e.g. a PRG output or a
    /// matrix row). Errors if the blocks hold fewer than `n` bits.
    pub fn from_blocks(blocks: &[Block], n: usize) -> Result<Bits, ShapeError> {
        check_len("Bits::from_blocks", n.div_ceil(128), blocks.len())?;
        let bytes = Block::slice_as_bytes(blocks)[..n.div_ceil(8)].to_vec();
        let mut b = Bits { bytes, len: n };
        b.clear_padding();
        Ok(b)
    }

    /// The bits packed into `ceil(len/128)` blocks (zero padded), the layout
    /// of a [`crate::BitMatrix`] row.
    pub fn to_blocks(&self) -> Vec<Block> {
        let mut out = vec![Block::ZERO; self.len.div_ceil(128)];
        Block::slice_as_bytes_mut(&mut out)[..self.bytes.len()].copy_from_slice(&self.bytes);
        out
    }

    /// Iterates over the bits in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = bool> + '_ {
        (0..self.len).map(move |i| (self.bytes[i / 8] >> (i % 8)) & 1 == 1)
    }

    /// Number of set bits.
    pub fn count_ones(&self) -> usize {
        self.bytes.iter().map(|b| b.count_ones() as usize).sum()
    }

    /// XOR of two vectors of the same length; [`ShapeError::Length`] otherwise.
    pub fn xor(&self, other: &Bits) -> Result<Bits, ShapeError> {
        check_len("Bits::xor", self.len, other.len)?;
        Ok(Bits {
            bytes: self
                .bytes
                .iter()
                .zip(&other.bytes)
                .map(|(a, b)| a ^ b)
                .collect(),
            len: self.len,
        })
    }

    /// AND of two vectors of the same length; [`ShapeError::Length`] otherwise.
    pub fn and(&self, other: &Bits) -> Result<Bits, ShapeError> {
        check_len("Bits::and", self.len, other.len)?;
        Ok(Bits {
            bytes: self
                .bytes
                .iter()
                .zip(&other.bytes)
                .map(|(a, b)| a & b)
                .collect(),
            len: self.len,
        })
    }

    /// XORs `other` into `self` in place; [`ShapeError::Length`] on mismatch.
    pub fn xor_assign(&mut self, other: &Bits) -> Result<(), ShapeError> {
        check_len("Bits::xor_assign", self.len, other.len)?;
        for (a, b) in self.bytes.iter_mut().zip(&other.bytes) {
            *a ^= b;
        }
        Ok(())
    }

    /// Appends one bit.
    pub fn push(&mut self, v: bool) {
        if self.len.is_multiple_of(8) {
            self.bytes.push(0);
        }
        self.len += 1;
        self.set(self.len - 1, v);
    }

    /// Shortens or zero-extends to `n` bits.
    pub fn resize(&mut self, n: usize) {
        self.bytes.resize(n.div_ceil(8), 0);
        self.len = n;
        self.clear_padding();
    }

    /// Re-establishes the invariant that bits beyond `len` are zero.
    fn clear_padding(&mut self) {
        if !self.len.is_multiple_of(8) {
            if let Some(last) = self.bytes.last_mut() {
                *last &= (1u8 << (self.len % 8)) - 1;
            }
        }
    }
}

/// `&a ^ &b`: bitwise XOR that never panics.
///
/// The result has length `max(a.len(), b.len())`; the shorter operand is
/// treated as zero-extended, so no bit is silently dropped. Protocol code
/// that needs equal lengths should call [`Bits::xor`], which returns a
/// [`ShapeError`] on mismatch.
impl BitXor for &Bits {
    type Output = Bits;
    fn bitxor(self, rhs: &Bits) -> Bits {
        let (long, short) = if self.len >= rhs.len {
            (self, rhs)
        } else {
            (rhs, self)
        };
        let mut out = long.clone();
        for (a, b) in out.bytes.iter_mut().zip(&short.bytes) {
            *a ^= b;
        }
        out
    }
}

impl FromIterator<bool> for Bits {
    fn from_iter<I: IntoIterator<Item = bool>>(iter: I) -> Bits {
        let mut b = Bits::zeros(0);
        for x in iter {
            b.push(x);
        }
        b
    }
}

/// Constant-time equality of the contents: vectors of different lengths
/// are never equal (the lengths are public, only the bits are compared in
/// constant time). Protocols compare secret check values with it (generated
/// code turns `==` and `!=` on bit vectors into this), so the time taken
/// does not reveal where two vectors first differ. Equal contents have
/// equal bytes because padding bits are always zero.
impl subtle::ConstantTimeEq for Bits {
    fn ct_eq(&self, other: &Bits) -> subtle::Choice {
        let same_len = subtle::Choice::from(u8::from(self.len == other.len));
        same_len & self.bytes.as_slice().ct_eq(other.bytes.as_slice())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn from_bytes_checks() {
        assert!(Bits::from_bytes(&[0xff], 8).is_ok());
        assert!(matches!(
            Bits::from_bytes(&[0xff], 7),
            Err(ShapeError::Padding { .. })
        ));
        assert!(matches!(
            Bits::from_bytes(&[0, 0], 7),
            Err(ShapeError::Length { .. })
        ));
        let b = Bits::from_bools(&[true, false, true]);
        assert_eq!(b.as_bytes(), &[0b101]);
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![true, false, true]);
        let c = Bits::from_bools(&[true]);
        assert_eq!((&b ^ &c).as_bytes(), &[0b100]);
        assert!(b.xor(&c).is_err());
        assert_eq!(Bits::from_blocks(&b.to_blocks(), 3).unwrap(), b);
    }
}
