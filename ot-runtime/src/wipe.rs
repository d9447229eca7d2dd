//! Wiping secret values in place (issue 15, item 7).
//!
//! [`Wipe::wipe`] overwrites a value's secret contents with zeros through
//! `zeroize` (volatile writes the optimizer keeps), leaving a valid value
//! of the same shape. The runtime's containers of secrets wipe themselves
//! when dropped: [`Bits`], the MPC shares ([`crate::orlandi::Shares`]:
//! additive shares and commitment randomness; [`crate::minimac::Shares`]:
//! codeword and MAC shares; the MAC key share of a
//! [`crate::minimac::Holder`] when its last holder goes), and Paillier
//! secret keys ([`crate::paillier::SecretKey`]: the factors, their
//! squares and the CRT constants). Values of foreign or `Copy` types
//! (`Block`, `Scalar`, `Vec<Block>`, `u64`, and `BitMatrix`, which has no
//! drop hook so that bulk matrices handed to the user cost no pass) are
//! wiped by their owner: [`Wipe`] wipes one explicitly, and [`Wiped`] wipes
//! one when it goes out of scope. Protocols generated from a `.otp` hold
//! every secret value of a two-party role (not a message field, of such a
//! type) in a [`Wiped`], in their states and step locals alike.

use crate::ec::Scalar;
use crate::{BitMatrix, Bits, Block};
use zeroize::Zeroize;

/// A value whose secret contents can be overwritten in place.
pub trait Wipe {
    /// Overwrites the value's contents with zeros (its shape, e.g. a
    /// vector's length, is kept).
    fn wipe(&mut self);
}

macro_rules! wipe_zeroize {
    ($($t:ty),*) => {$(
        impl Wipe for $t {
            fn wipe(&mut self) {
                self.zeroize();
            }
        }
    )*};
}
wipe_zeroize!(u8, u16, u32, u64, u128, usize, i64, bool, Block, Scalar);

impl<T: Wipe> Wipe for [T] {
    fn wipe(&mut self) {
        self.iter_mut().for_each(Wipe::wipe);
    }
}

impl<T: Wipe, const N: usize> Wipe for [T; N] {
    fn wipe(&mut self) {
        self.as_mut_slice().wipe();
    }
}

impl<T: Wipe> Wipe for Vec<T> {
    fn wipe(&mut self) {
        self.as_mut_slice().wipe();
    }
}

impl<T: Wipe> Wipe for Option<T> {
    fn wipe(&mut self) {
        if let Some(v) = self {
            v.wipe();
        }
    }
}

/// A GMP integer is wiped by clearing its set bits one by one: GMP clears
/// a bit in place in the integer's limbs, so every limb in use is
/// overwritten with zero before the size drops to 0 (assigning 0 would
/// only reset the size and leave the limbs in memory). Out of reach
/// without `unsafe`: limbs of the allocation beyond the current size (left
/// by an earlier, larger value held in the same integer) and GMP's own
/// temporaries during arithmetic, which it frees unwiped.
impl Wipe for rug::Integer {
    fn wipe(&mut self) {
        if self.cmp0() == core::cmp::Ordering::Less {
            self.abs_mut();
        }
        let mut from = 0;
        while let Some(i) = self.find_one(from) {
            self.set_bit(i, false);
            from = i.saturating_add(1);
        }
    }
}

impl Wipe for Bits {
    fn wipe(&mut self) {
        self.wipe_bytes();
    }
}

impl Wipe for BitMatrix {
    fn wipe(&mut self) {
        self.wipe_blocks();
    }
}

/// Owns a value and wipes it when dropped (also on an early return or an
/// error), for values of types without a drop hook of their own:
/// `let key = Wiped(sample_scalar(rng));`, then `key.0` (or `*key`).
#[derive(Debug, Default)]
pub struct Wiped<T: Wipe>(pub T);

impl<T: Wipe> Drop for Wiped<T> {
    fn drop(&mut self) {
        self.0.wipe();
    }
}

impl<T: Wipe + Default> Wiped<T> {
    /// Wipes the value and hands it back, zeroed, with its allocation (a
    /// buffer kept for reuse by a later run).
    pub fn into_wiped(mut self) -> T {
        self.0.wipe();
        core::mem::take(&mut self.0)
    }
}

impl<T: Wipe> core::ops::Deref for Wiped<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: Wipe> core::ops::DerefMut for Wiped<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wipe_zeroes_in_place_and_keeps_the_shape() {
        let mut v = vec![Block::from(7u128); 3];
        v.wipe();
        assert_eq!(v, vec![Block::from(0u128); 3]);
        let mut s = [Scalar::from(5u64); 2];
        s.wipe();
        assert_eq!(s, [Scalar::ZERO; 2]);
        let mut o = Some(vec![1u64, 2]);
        o.wipe();
        assert_eq!(o, Some(vec![0, 0]));
        let mut b = Bits::from_bools(&[true, false, true]);
        b.wipe();
        assert_eq!((b.len(), b.get(0), b.get(2)), (3, false, false));
        let mut x: rug::Integer = rug::Integer::from(-0x1234_5678_9abc_def0_i64) << 300;
        x.wipe();
        assert_eq!(x, 0);
        let mut m = BitMatrix::new(2, 130);
        m.set(1, 129, true);
        m.wipe();
        assert_eq!(m, BitMatrix::new(2, 130));
    }

    #[test]
    fn wiped_wipes_on_drop() {
        struct Probe<'a>(&'a std::cell::Cell<u32>);
        impl Wipe for Probe<'_> {
            fn wipe(&mut self) {
                self.0.set(self.0.get() + 1);
            }
        }
        let calls = std::cell::Cell::new(0);
        {
            let w = Wiped(Probe(&calls));
            let _ = &*w;
        }
        assert_eq!(calls.get(), 1);
    }
}
