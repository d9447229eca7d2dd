//! [`BitMatrix`]: a row-major bit matrix whose rows are padded to whole
//! 128-bit [`Block`]s, the shape OT extension works with (128 x m before the
//! transpose, m x 128 after it).
//!
//! Padding bits (columns `>= cols` of each row) are kept zero by every
//! method except [`BitMatrix::row_mut`] / [`BitMatrix::as_blocks_mut`], which
//! hand out raw storage; the transpose never reads padding columns, so
//! garbage there cannot leak into results.

use crate::primitives::bits::{check_len, ShapeError};
use crate::{Bits, Block};

/// A `rows x cols` bit matrix stored row-major; each row occupies
/// `ceil(cols/128)` blocks.
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct BitMatrix {
    data: Vec<Block>,
    rows: usize,
    cols: usize,
    bpr: usize,
}

impl core::fmt::Debug for BitMatrix {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "BitMatrix({} x {})", self.rows, self.cols)
    }
}

impl BitMatrix {
    /// Overwrites every bit with 0 (the shape is kept); see
    /// [`crate::primitives::wipe::Wipe`].
    pub(crate) fn wipe_blocks(&mut self) {
        crate::primitives::wipe::wipe_pod(&mut self.data);
    }

    /// An all-zero `rows x cols` matrix.
    pub fn new(rows: usize, cols: usize) -> BitMatrix {
        let bpr = cols.div_ceil(128);
        BitMatrix {
            data: Block::zeroed_vec(rows * bpr),
            rows,
            cols,
            bpr,
        }
    }

    /// Wraps existing row-major storage (`rows * ceil(cols/128)` blocks).
    ///
    /// Errors on a wrong length or if a padding bit is set.
    pub fn from_blocks(
        rows: usize,
        cols: usize,
        data: Vec<Block>,
    ) -> Result<BitMatrix, ShapeError> {
        let bpr = cols.div_ceil(128);
        check_len("BitMatrix::from_blocks", rows * bpr, data.len())?;
        let m = BitMatrix {
            data,
            rows,
            cols,
            bpr,
        };
        if !cols.is_multiple_of(128) {
            let pad = !((1u128 << (cols % 128)) - 1);
            if (0..rows).any(|r| m.data[r * bpr + bpr - 1].0 & pad != 0) {
                return Err(ShapeError::Padding {
                    what: "BitMatrix::from_blocks",
                });
            }
        }
        Ok(m)
    }

    /// Reshapes to `rows x cols`, reusing the allocation (it only grows,
    /// never shrinks): the buffer of a streamed kernel's output chunk is
    /// reset once per chunk instead of reallocated.
    ///
    /// The contents afterwards are unspecified (stale values of the
    /// previous shape, or zero where the buffer grew) but always
    /// initialized memory; callers overwrite every block, including the
    /// padding bits, which they must leave zero.
    pub fn reset(&mut self, rows: usize, cols: usize) {
        let bpr = cols.div_ceil(128);
        let n = rows.saturating_mul(bpr);
        self.data.truncate(n);
        self.data.resize(n, Block::ZERO);
        self.rows = rows;
        self.cols = cols;
        self.bpr = bpr;
    }

    /// Builds a matrix whose rows are the given bit vectors (all of length `cols`).
    pub fn from_rows(rows: &[Bits], cols: usize) -> Result<BitMatrix, ShapeError> {
        let mut m = BitMatrix::new(rows.len(), cols);
        for (i, r) in rows.iter().enumerate() {
            m.set_row_bits(i, r)?;
        }
        Ok(m)
    }

    /// Number of rows.
    #[inline]
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Number of columns (bits per row, excluding padding).
    #[inline]
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Blocks per row: `ceil(cols/128)`.
    #[inline]
    pub fn blocks_per_row(&self) -> usize {
        self.bpr
    }

    /// Row `i` as blocks.
    ///
    /// # Panics
    /// If `i >= rows()`, like slice indexing.
    #[inline]
    pub fn row(&self, i: usize) -> &[Block] {
        assert!(i < self.rows, "BitMatrix::row index out of range");
        &self.data[i * self.bpr..(i + 1) * self.bpr]
    }

    /// Row `i` as mutable blocks. The caller must leave padding bits zero.
    ///
    /// # Panics
    /// If `i >= rows()`, like slice indexing.
    #[inline]
    pub fn row_mut(&mut self, i: usize) -> &mut [Block] {
        assert!(i < self.rows, "BitMatrix::row_mut index out of range");
        &mut self.data[i * self.bpr..(i + 1) * self.bpr]
    }

    /// Row `i` copied into a [`Bits`] of length `cols()`.
    ///
    /// # Panics
    /// If `i >= rows()`.
    pub fn row_bits(&self, i: usize) -> Bits {
        Bits::from_blocks(self.row(i), self.cols).expect("row has ceil(cols/128) blocks")
    }

    /// Overwrites row `i` with `bits` (length must be `cols()`).
    pub fn set_row_bits(&mut self, i: usize, bits: &Bits) -> Result<(), ShapeError> {
        if i >= self.rows {
            return Err(ShapeError::Index {
                what: "BitMatrix::set_row_bits",
                index: i,
                len: self.rows,
            });
        }
        check_len("BitMatrix::set_row_bits", self.cols, bits.len())?;
        self.row_mut(i).copy_from_slice(&bits.to_blocks());
        Ok(())
    }

    /// All storage, row-major.
    #[inline]
    pub fn as_blocks(&self) -> &[Block] {
        &self.data
    }

    /// All storage, row-major, mutable. The caller must leave padding bits zero.
    #[inline]
    pub fn as_blocks_mut(&mut self) -> &mut [Block] {
        &mut self.data
    }

    /// Lends the storage vector to `f`, which may replace it by another
    /// vector (a channel that takes ownership of a sent chunk swaps in a
    /// spare buffer, see `Channel::send_blocks`). Afterwards the shape is
    /// unchanged (the length is restored, zero-filling if it shrank) but,
    /// as after [`BitMatrix::as_blocks_mut`], the contents are unspecified
    /// until the caller overwrites them.
    pub fn lend_storage<R>(&mut self, f: impl FnOnce(&mut Vec<Block>) -> R) -> R {
        let r = f(&mut self.data);
        self.data.resize(self.rows * self.bpr, Block::ZERO);
        r
    }

    /// Consumes the matrix, returning its row-major storage.
    pub fn into_blocks(self) -> Vec<Block> {
        self.data
    }

    /// Bit at row `r`, column `c`.
    ///
    /// # Panics
    /// If `r >= rows()` or `c >= cols()`.
    #[inline]
    pub fn get(&self, r: usize, c: usize) -> bool {
        assert!(
            r < self.rows && c < self.cols,
            "BitMatrix::get index out of range"
        );
        self.data[r * self.bpr + c / 128].bit(c % 128)
    }

    /// Sets the bit at row `r`, column `c`.
    ///
    /// # Panics
    /// If `r >= rows()` or `c >= cols()`.
    #[inline]
    pub fn set(&mut self, r: usize, c: usize, v: bool) {
        assert!(
            r < self.rows && c < self.cols,
            "BitMatrix::set index out of range"
        );
        let b = &mut self.data[r * self.bpr + c / 128];
        *b = b.with_bit(c % 128, v);
    }

    /// Clears the padding bits of every row (restores the invariant after
    /// raw writes through [`BitMatrix::row_mut`]).
    pub fn clear_padding(&mut self) {
        if !self.cols.is_multiple_of(128) && self.bpr > 0 {
            let keep = Block((1u128 << (self.cols % 128)) - 1);
            for r in 0..self.rows {
                self.data[r * self.bpr + self.bpr - 1] &= keep;
            }
        }
    }

    /// The transpose (`cols x rows`), computed with the fastest available
    /// backend (see [`crate::primitives::transpose`]).
    pub fn transpose(&self) -> BitMatrix {
        crate::primitives::transpose::transpose(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reset_reshapes_and_reuses() {
        let mut m = BitMatrix::new(128, 1000);
        let cap = m.data.capacity();
        m.reset(3, 129);
        assert_eq!((m.rows(), m.cols(), m.blocks_per_row()), (3, 129, 2));
        assert_eq!(m.as_blocks().len(), 6);
        m.reset(128, 256);
        assert_eq!(m.as_blocks().len(), 256);
        assert_eq!(m.data.capacity(), cap);
        m.reset(0, 0);
        assert!(m.as_blocks().is_empty());
    }
}
