//! Pseudorandom generator: AES-128 in counter mode keyed by a 128-bit seed.
//!
//! Stream definition (stable, both parties of an OT extension rely on it):
//! block `i` of the stream for seed `s` is `AES_s(Block::from_u64(i))`,
//! `i = 0, 1, 2, ...`. Bits are taken from the stream in [`Block`] bit
//! order, so [`Prg::fill_bits`] of `n` bits and [`Prg::fill_matrix_row`] of a
//! row with `n` columns produce the same bits.

use crate::primitives::aes::{Aes128, Op};
use crate::primitives::bits::{check_len, ShapeError};
use crate::{BitMatrix, Bits, Block};

/// An AES-CTR stream from a 128-bit seed. Clone it to replay the stream.
///
/// The seed is only held as its expanded AES key schedule, which is wiped
/// when the `Prg` (and each clone) is dropped ([`Aes128`] zeroizes its round
/// keys on every backend, the `aes` crate's through its `zeroize` feature):
/// seeds of OT extension are base-OT outputs and must not outlive the run.
#[derive(Clone, Debug)]
pub struct Prg {
    aes: Aes128,
    counter: u64,
}

impl Prg {
    /// A generator whose stream is determined by `seed` (the AES key).
    pub fn new(seed: Block) -> Prg {
        Prg {
            aes: Aes128::new(seed),
            counter: 0,
        }
    }

    /// Like [`Prg::new`] but starting at stream block `counter` (used to split
    /// one stream across threads).
    pub fn new_at(seed: Block, counter: u64) -> Prg {
        Prg {
            aes: Aes128::new(seed),
            counter,
        }
    }

    /// Index of the next stream block.
    pub fn counter(&self) -> u64 {
        self.counter
    }

    /// Jumps to stream block `counter`.
    pub fn seek(&mut self, counter: u64) {
        self.counter = counter;
    }

    /// Fills `out` with the next `out.len()` stream blocks.
    pub fn fill(&mut self, out: &mut [Block]) {
        self.aes.run(Op::Ctr(self.counter), None, out);
        self.counter = self.counter.wrapping_add(out.len() as u64);
    }

    /// The next stream block.
    pub fn next_block(&mut self) -> Block {
        let mut b = [Block::ZERO];
        self.fill(&mut b);
        b[0]
    }

    /// Fills `out` with stream bytes. Consumes `ceil(len/16)` blocks; the
    /// unused tail of the last block is discarded.
    pub fn fill_bytes(&mut self, out: &mut [u8]) {
        let mut tmp = [Block::ZERO; 64];
        for chunk in out.chunks_mut(64 * 16) {
            let nb = chunk.len().div_ceil(16);
            self.fill(&mut tmp[..nb]);
            chunk.copy_from_slice(&Block::slice_as_bytes(&tmp[..nb])[..chunk.len()]);
        }
    }

    /// The next `n` pseudorandom bits (consumes `ceil(n/128)` blocks).
    pub fn fill_bits(&mut self, n: usize) -> Bits {
        let mut blocks = vec![Block::ZERO; n.div_ceil(128)];
        self.fill(&mut blocks);
        Bits::from_blocks(&blocks, n).expect("ceil(n/128) blocks hold n bits")
    }

    /// Overwrites row `row` of `m` with the next `m.cols()` bits (consumes
    /// `m.blocks_per_row()` blocks; padding bits are cleared).
    pub fn fill_matrix_row(&mut self, m: &mut BitMatrix, row: usize) -> Result<(), ShapeError> {
        if row >= m.rows() {
            return Err(ShapeError::Index {
                what: "Prg::fill_matrix_row",
                index: row,
                len: m.rows(),
            });
        }
        let cols = m.cols();
        let r = m.row_mut(row);
        self.fill(r);
        clear_row_padding(r, cols);
        Ok(())
    }
}

/// Zeroes the bits at positions `>= cols` of a row.
pub(crate) fn clear_row_padding(row: &mut [Block], cols: usize) {
    if !cols.is_multiple_of(128) {
        if let Some(last) = row.last_mut() {
            *last &= Block((1u128 << (cols % 128)) - 1);
        }
    }
}

/// The first `n_blocks` blocks of the stream of `seed`.
pub fn prg(seed: Block, n_blocks: usize) -> Vec<Block> {
    let mut v = Block::zeroed_vec(n_blocks);
    Prg::new(seed).fill(&mut v);
    v
}

/// Expands one seed per row: row `i` of `m` becomes the first `m.cols()`
/// bits of the stream of `seeds[i]` (the 128 x m matrix of IKNP/KOS).
/// Errors unless `seeds.len() == m.rows()`.
pub fn fill_matrix(seeds: &[Block], m: &mut BitMatrix) -> Result<(), ShapeError> {
    check_len("prg::fill_matrix seeds", m.rows(), seeds.len())?;
    for (i, &s) in seeds.iter().enumerate() {
        Prg::new(s).fill_matrix_row(m, i)?;
    }
    Ok(())
}
