//! The 128-bit [`Block`]: the unit every kernel (AES, PRG, hashes, transpose,
//! GF(2^128)) works on.
//!
//! A `Block` is a `#[repr(transparent)]` wrapper over `u128`, so a `&[Block]`
//! can be viewed as bytes without copying ([`Block::slice_as_bytes`]) and
//! SIMD backends can load it directly.
//!
//! # Byte and bit order
//!
//! The byte representation is little-endian: [`Block::to_bytes`] equals
//! `u128::to_le_bytes`. Bit `i` ([`Block::bit`]) is bit `i` of the `u128`,
//! i.e. bit `i % 8` of byte `i / 8`. This matches the bit order of
//! [`crate::Bits`] and [`crate::BitMatrix`] rows, so row `j` of a
//! transposed matrix holds column `j` bit by bit.

use core::fmt;
use core::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

/// A 128-bit value (AES block, GF(2^128) element, one row of a 128-column bit
/// matrix). `#[repr(transparent)]` over `u128`; plain old data.
#[derive(
    Copy, Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord, bytemuck::Pod, bytemuck::Zeroable,
)]
#[repr(transparent)]
pub struct Block(pub u128);

impl Block {
    /// The all-zero block.
    pub const ZERO: Block = Block(0);
    /// The all-one block (every one of the 128 bits set).
    pub const ONES: Block = Block(u128::MAX);

    /// Builds a block from its 16-byte little-endian representation.
    #[inline(always)]
    pub const fn from_bytes(bytes: [u8; 16]) -> Block {
        Block(u128::from_le_bytes(bytes))
    }

    /// Returns the 16-byte little-endian representation (the bytes AES sees).
    #[inline(always)]
    pub const fn to_bytes(self) -> [u8; 16] {
        self.0.to_le_bytes()
    }

    /// Returns the block as a `u128` (bit `i` of the block is bit `i` of the
    /// integer).
    #[inline(always)]
    pub const fn as_u128(self) -> u128 {
        self.0
    }

    /// Zero-extends a `u64` into the low 64 bits (used for counters and
    /// hash tweaks).
    #[inline(always)]
    pub const fn from_u64(x: u64) -> Block {
        Block(x as u128)
    }

    /// Builds a block from its low and high 64-bit halves.
    #[inline(always)]
    pub const fn from_u64s(lo: u64, hi: u64) -> Block {
        Block((hi as u128) << 64 | lo as u128)
    }

    /// The low 64 bits (bits 0..64).
    #[inline(always)]
    pub const fn lo(self) -> u64 {
        self.0 as u64
    }

    /// The high 64 bits (bits 64..128).
    #[inline(always)]
    pub const fn hi(self) -> u64 {
        (self.0 >> 64) as u64
    }

    /// Bit `i` of the block (bit `i % 8` of byte `i / 8`).
    ///
    /// # Panics
    /// If `i >= 128`, like an out-of-range slice index.
    #[inline(always)]
    pub const fn bit(self, i: usize) -> bool {
        assert!(i < 128, "Block::bit index out of range");
        (self.0 >> i) & 1 == 1
    }

    /// Returns a copy of the block with bit `i` set to `v`.
    ///
    /// # Panics
    /// If `i >= 128`, like an out-of-range slice index.
    #[inline(always)]
    pub const fn with_bit(self, i: usize, v: bool) -> Block {
        assert!(i < 128, "Block::with_bit index out of range");
        Block((self.0 & !(1u128 << i)) | ((v as u128) << i))
    }

    /// `Block::ONES` if `b`, else `Block::ZERO`; branch-free, used to select
    /// correlations (`Δ & choice`) in constant time.
    #[inline(always)]
    pub const fn mask(b: bool) -> Block {
        Block(0u128.wrapping_sub(b as u128))
    }

    /// Number of set bits.
    #[inline(always)]
    pub const fn count_ones(self) -> u32 {
        self.0.count_ones()
    }

    /// `n` zero blocks from zeroed allocation (`calloc`): large buffers get
    /// fresh zero pages from the OS without a `memset` pass, so the only
    /// pass over the memory is the kernel's write of the result. (For
    /// `vec![Block::ZERO; n]` Rust cannot know the pattern is all zero bits
    /// and writes every element first.)
    /// Large buffers are backed by huge pages where the system allows
    /// ([`crate::primitives::huge_pages`]).
    pub fn zeroed_vec(n: usize) -> Vec<Block> {
        let v = bytemuck::allocation::cast_vec(vec![0u128; n]);
        crate::primitives::huge_pages::advise(&v);
        v
    }

    /// `n` zero pairs of blocks, allocated like [`Block::zeroed_vec`].
    pub fn zeroed_pairs(n: usize) -> Vec<[Block; 2]> {
        let v = bytemuck::allocation::cast_vec(vec![[0u128; 2]; n]);
        crate::primitives::huge_pages::advise(&v);
        v
    }

    /// Zero-copy view of a block slice as its bytes (each block little-endian).
    #[inline(always)]
    pub fn slice_as_bytes(blocks: &[Block]) -> &[u8] {
        bytemuck::cast_slice(blocks)
    }

    /// Zero-copy mutable view of a block slice as bytes.
    #[inline(always)]
    pub fn slice_as_bytes_mut(blocks: &mut [Block]) -> &mut [u8] {
        bytemuck::cast_slice_mut(blocks)
    }

    /// Copies bytes into blocks (little-endian per block). Returns `None`
    /// unless `bytes.len()` is a multiple of 16 (the bytes may be unaligned,
    /// so this copies rather than casts).
    pub fn vec_from_bytes(bytes: &[u8]) -> Option<Vec<Block>> {
        if !bytes.len().is_multiple_of(16) {
            return None;
        }
        Some(
            bytes
                .chunks_exact(16)
                .map(|c| {
                    let mut a = [0u8; 16];
                    a.copy_from_slice(c);
                    Block::from_bytes(a)
                })
                .collect(),
        )
    }
}

impl fmt::Debug for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Block({:032x})", self.0)
    }
}

impl fmt::Display for Block {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:032x}", self.0)
    }
}

impl From<u128> for Block {
    #[inline(always)]
    fn from(x: u128) -> Block {
        Block(x)
    }
}

impl From<Block> for u128 {
    #[inline(always)]
    fn from(b: Block) -> u128 {
        b.0
    }
}

impl From<[u8; 16]> for Block {
    #[inline(always)]
    fn from(b: [u8; 16]) -> Block {
        Block::from_bytes(b)
    }
}

impl From<Block> for [u8; 16] {
    #[inline(always)]
    fn from(b: Block) -> [u8; 16] {
        b.to_bytes()
    }
}

macro_rules! binop {
    ($tr:ident, $f:ident, $atr:ident, $af:ident, $op:tt) => {
        impl $tr for Block {
            type Output = Block;
            #[inline(always)]
            fn $f(self, rhs: Block) -> Block {
                Block(self.0 $op rhs.0)
            }
        }
        impl $tr<&Block> for Block {
            type Output = Block;
            #[inline(always)]
            fn $f(self, rhs: &Block) -> Block {
                Block(self.0 $op rhs.0)
            }
        }
        impl $atr for Block {
            #[inline(always)]
            fn $af(&mut self, rhs: Block) {
                self.0 = self.0 $op rhs.0;
            }
        }
        impl $atr<&Block> for Block {
            #[inline(always)]
            fn $af(&mut self, rhs: &Block) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}
binop!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);
binop!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
binop!(BitOr, bitor, BitOrAssign, bitor_assign, |);

impl Not for Block {
    type Output = Block;
    #[inline(always)]
    fn not(self) -> Block {
        Block(!self.0)
    }
}

/// Constant-time equality: the time taken does not depend on where (or
/// whether) the blocks differ. Protocols compare secret check values with it
/// (the KOS correlation check `check_q == check_t ^ x * delta`: generated
/// code turns `==` and `!=` on blocks into this), since an early-exit `==`
/// would leak through timing how much of a forged value was right.
impl subtle::ConstantTimeEq for Block {
    #[inline]
    fn ct_eq(&self, other: &Block) -> subtle::Choice {
        self.0.ct_eq(&other.0)
    }
}

/// `Block::ZERO` (the `Default`) is the all-zero bit pattern, so blocks and
/// block slices holding secrets (keys, seeds, keystream) can be wiped with
/// `zeroize::Zeroize`.
impl zeroize::DefaultIsZeroes for Block {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_roundtrip_and_bits() {
        let mut b = [0u8; 16];
        b[0] = 0b10;
        b[15] = 0x80;
        let x = Block::from_bytes(b);
        assert!(x.bit(1) && x.bit(127) && !x.bit(0));
        assert_eq!(x.to_bytes(), b);
        assert_eq!(Block::slice_as_bytes(&[x]), &b);
        assert_eq!(Block::from_u64s(1, 2), Block((2u128 << 64) | 1));
        assert_eq!(Block::mask(true), Block::ONES);
        assert_eq!(Block::ZERO.with_bit(5, true), Block(32));
    }
}
