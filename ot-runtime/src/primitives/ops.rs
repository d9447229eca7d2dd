//! Small value operations exposed as `.otp` intrinsics.

use crate::Block;
use subtle::ConstantTimeEq;

/// `if_true` when `b`, else `if_false`, without a data-dependent branch.
pub fn block_select(b: bool, if_false: Block, if_true: Block) -> Block {
    let mask = 0u128.wrapping_sub(u128::from(b));
    Block::from((if_false.as_u128() & !mask) | (if_true.as_u128() & mask))
}

/// `pair[b]`, without a data-dependent branch.
pub fn pick(b: bool, pair: &[Block; 2]) -> Block {
    block_select(b, pair[0], pair[1])
}

/// `a == b` in constant time (for [`Block`], [`crate::Bits`] and anything
/// else with a `subtle::ConstantTimeEq` impl). Generated protocol code
/// compares blocks and bit vectors with this, so checks on secret values
/// (correlation checks, MAC tags) do not leak through timing where the
/// values first differ.
#[inline]
pub fn ct_eq<T: ConstantTimeEq + ?Sized>(a: &T, b: &T) -> bool {
    bool::from(a.ct_eq(b))
}
