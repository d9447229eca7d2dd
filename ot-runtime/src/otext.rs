//! Small kernels of IKNP/KOS-style OT extension that run once per batch
//! rather than per chunk, called as `.otp` intrinsics (see
//! `protocols/prelude.otp`): packing the base-OT choice bits, padding the
//! receiver's choice bits, the KOS check value `x` and field product, and
//! dropping the padding columns. The bulk kernels, which run chunk by chunk
//! inside streamed rounds, are in [`crate::stream`].
//!
//! The functions are total: every output is sized from the inputs, so none
//! of them can fail or panic on a shape it does not expect.

use crate::prg::Prg;
use crate::{Bits, Block};

/// Number of base OTs / matrix rows (the computational security parameter).
pub const KAPPA: usize = 128;

/// 128 bits as one block (bit `j` of the block is `s[j]`); extra bits are ignored.
pub fn bits_block(s: &Bits) -> Block {
    s.to_blocks().first().copied().unwrap_or(Block::ZERO)
}

/// A block as 128 bits.
pub fn block_bits(b: Block) -> Bits {
    Bits::from_blocks(&[b], KAPPA).unwrap_or_else(|_| Bits::zeros(KAPPA))
}

/// `r` followed by `extra` (the KOS receiver pads its choice bits with
/// random bits that mask the correlation check).
pub fn concat_bits(r: &Bits, extra: &Bits) -> Bits {
    let mut out = r.clone();
    for b in extra.iter() {
        out.push(b);
    }
    out
}

/// Product in GF(2^128).
pub fn gf_mul(a: Block, b: Block) -> Block {
    crate::gf128::mul(a, b)
}

/// The first `count` blocks of `v`, reusing its buffer (a `move`
/// parameter: Delta-OT outputs are the first `m` columns, the KOS padding
/// columns are dropped without a copy).
pub fn first_blocks(mut v: Vec<Block>, count: usize) -> Vec<Block> {
    v.truncate(count);
    v
}

/// `Σ_{r_i = 1} χ_i` with `χ = PRG(seed)` expanded in batches (the KOS check
/// value `x`), in constant time with respect to `r`.
pub fn gf_masked_sum_seeded(r: &Bits, seed: Block) -> Block {
    let mut prg = Prg::new(seed);
    let mut chi = [Block::ZERO; 1024];
    let mut acc = Block::ZERO;
    let n = r.len();
    let mut i = 0;
    while i < n {
        let k = (n - i).min(1024);
        prg.fill(&mut chi[..k]);
        for (j, c) in chi[..k].iter().enumerate() {
            let bit = i + j;
            let byte = r.as_bytes()[bit / 8];
            let mask = 0u128.wrapping_sub(u128::from((byte >> (bit % 8)) & 1));
            acc ^= Block(c.0 & mask);
        }
        i += k;
    }
    acc
}
