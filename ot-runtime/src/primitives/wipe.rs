//! Wiping secret values in place (issue 15, item 7).
//!
//! [`Wipe::wipe`] overwrites a value's secret contents with zeros through
//! `zeroize` (volatile writes the optimizer keeps), leaving a valid value
//! of the same shape; slices, arrays and vectors of plain old data are
//! wiped in one pass of 16-byte volatile stores, or of non-temporal stores
//! from [`STREAMED_WIPE`] bytes on ([`wipe_pod`]). The
//! runtime's containers of secrets wipe themselves
//! when dropped: [`Bits`], the MPC shares ([`crate::orlandi::Shares`]:
//! additive shares and commitment randomness; [`crate::minimac::Shares`]:
//! codeword and MAC shares; the MAC key share of a
//! [`crate::minimac::Holder`] when its last holder goes), and Paillier
//! secret keys ([`crate::orlandi::paillier::SecretKey`]: the factors, their
//! squares and the CRT constants). Values of foreign or `Copy` types
//! (`Block`, `Scalar`, `Vec<Block>`, `u64`, and `BitMatrix`, which has no
//! drop hook so that bulk matrices handed to the user cost no pass) are
//! wiped by their owner: [`Wipe`] wipes one explicitly, and [`Wiped`] wipes
//! one when it goes out of scope. Protocols generated from a `.otp` hold
//! every secret value of a role, two-party or n-party (not a message
//! field, of such a type) in a [`Wiped`], in their states and step
//! locals alike.

use crate::primitives::ec::Scalar;
use crate::{BitMatrix, Bits, Block};
use zeroize::Zeroize;

/// A value whose secret contents can be overwritten in place.
pub trait Wipe {
    /// Overwrites the value's contents with zeros (its shape, e.g. a
    /// vector's length, is kept).
    fn wipe(&mut self);

    /// Overwrites every value of `items` with zeros, as [`Wipe::wipe`] on
    /// each does (the default). Types of plain old data (integers,
    /// [`Block`], and arrays of these) override it to clear the slice's
    /// bytes in one pass of wide stores ([`wipe_pod`]), so that slices,
    /// arrays and vectors of them are wiped in bulk rather than value by
    /// value.
    fn wipe_slice(items: &mut [Self])
    where
        Self: Sized,
    {
        items.iter_mut().for_each(Wipe::wipe);
    }
}

/// The widest store the target makes in one instruction without `unsafe`
/// or a run-time feature check: a 16-byte SSE2 register on x86 (a
/// volatile write of it is one aligned 16-byte store), 16 bytes as an
/// integer elsewhere.
#[cfg(target_arch = "x86_64")]
type Word = core::arch::x86_64::__m128i;
#[cfg(target_arch = "x86")]
type Word = core::arch::x86::__m128i;
#[cfg(not(any(target_arch = "x86_64", target_arch = "x86")))]
type Word = u128;

/// Overwrites the bytes of a slice of plain old data with zeros: one
/// volatile store per 16 bytes on the aligned middle (`zeroize` on each
/// 16-byte word), one per byte on the unaligned ends (fewer than 16 bytes
/// each), then a compiler fence, so that neither the optimizer nor a
/// reordering drops or delays a store past the end of the wipe. The
/// slice's length is kept. Per byte this executes about a twelfth of the
/// instructions of a `memset` whose `rep stos` counts one per byte, and
/// 0.6 times those of a volatile store per [`Block`] (two 8-byte stores
/// and the loop).
///
/// A slice of at least [`STREAMED_WIPE`] bytes is cleared with
/// non-temporal stores instead ([`crate::primitives::xor::zero_bypassing_cache`]:
/// no line is read from memory before it is overwritten, and the optimizer
/// is made to keep every store), at about half the memory traffic.
pub fn wipe_pod<T: bytemuck::Pod>(items: &mut [T]) {
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(items);
    if bytes.len() >= STREAMED_WIPE {
        let (head, mid, tail) = bytemuck::pod_align_to_mut::<u8, Block>(bytes);
        head.iter_mut().for_each(Zeroize::zeroize);
        crate::primitives::xor::zero_bypassing_cache(mid);
        tail.iter_mut().for_each(Zeroize::zeroize);
        core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
        return;
    }
    let (head, mid, tail) = bytemuck::pod_align_to_mut::<u8, Word>(bytes);
    head.iter_mut().for_each(Zeroize::zeroize);
    mid.iter_mut().for_each(Zeroize::zeroize);
    tail.iter_mut().for_each(Zeroize::zeroize);
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

/// The size from which [`wipe_pod`] bypasses the caches: about the L2 cache
/// of one core, beyond which the data being wiped is mostly in memory.
pub const STREAMED_WIPE: usize = 1 << 20;

/// Plain old data: a value is wiped by one volatile store of zero, a slice
/// of values by [`wipe_pod`].
macro_rules! wipe_pod {
    ($($t:ty),*) => {$(
        impl Wipe for $t {
            fn wipe(&mut self) {
                self.zeroize();
            }
            fn wipe_slice(items: &mut [Self]) {
                wipe_pod(items);
            }
        }
    )*};
}
wipe_pod!(u8, u16, u32, u64, u128, usize, i64, Block);

/// Types that are not plain old data (`bool` has invalid bit patterns, a
/// `Scalar` is a foreign type) are wiped value by value.
macro_rules! wipe_zeroize {
    ($($t:ty),*) => {$(
        impl Wipe for $t {
            fn wipe(&mut self) {
                self.zeroize();
            }
        }
    )*};
}
wipe_zeroize!(bool, Scalar);

impl<T: Wipe> Wipe for [T] {
    fn wipe(&mut self) {
        T::wipe_slice(self);
    }
}

/// An array is wiped as the slice of its values, and a slice of arrays as
/// the flat slice of all their values (one pass over `[[Block; 2]]`).
impl<T: Wipe, const N: usize> Wipe for [T; N] {
    fn wipe(&mut self) {
        T::wipe_slice(self);
    }
    fn wipe_slice(items: &mut [Self]) {
        T::wipe_slice(items.as_flattened_mut());
    }
}

impl<T: Wipe> Wipe for Vec<T> {
    fn wipe(&mut self) {
        T::wipe_slice(self);
    }
}

impl<T: Wipe> Wipe for Option<T> {
    fn wipe(&mut self) {
        if let Some(v) = self {
            v.wipe();
        }
    }
}

/// A big integer (either backend) is wiped by clearing its set bits one by
/// one, lowest first: `num-bigint` and GMP clear a bit in place in the
/// integer's limbs, so every limb in use is overwritten with zero before
/// the size drops to 0 (assigning 0 would only reset the size and leave
/// the limbs in memory). Out of reach without `unsafe`: limbs of the
/// allocation beyond the current size (left by an earlier, larger value
/// held in the same integer) and the backend's own temporaries during
/// arithmetic, which it frees unwiped.
impl Wipe for crate::primitives::bignum::Integer {
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

    /// The value, not wiped: for handing it to an owner that wipes it
    /// later ([`crate::transport::session::Scratch::put_secret`]).
    pub fn into_unwiped(mut self) -> T {
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
        let mut x: crate::primitives::bignum::Integer =
            crate::primitives::bignum::Integer::from(-0x1234_5678_9abc_def0_i64) << 300;
        x.wipe();
        assert_eq!(x, 0);
        let mut m = BitMatrix::new(2, 130);
        m.set(1, 129, true);
        m.wipe();
        assert_eq!(m, BitMatrix::new(2, 130));
    }

    #[test]
    fn bulk_wipes_clear_every_byte_and_keep_the_shape() {
        // Every start offset and length around a 16-byte word: the
        // unaligned ends and the wide middle, and nothing outside the slice.
        let mut buf: Vec<u8> = (1..=200).collect();
        for start in 0..20 {
            for len in [0, 1, 15, 16, 17, 31, 33, 64, 100, 150] {
                buf.iter_mut().zip(1..=200u8).for_each(|(b, v)| *b = v);
                buf[start..start + len].wipe();
                assert!(buf[start..start + len].iter().all(|&b| b == 0));
                assert!(buf[..start].iter().zip(1u8..).all(|(&b, v)| b == v));
                let after = start + len;
                let mut kept = buf[after..].iter().zip(after as u8 + 1..);
                assert!(kept.all(|(&b, v)| b == v), "{start} {len}");
            }
        }
        let mut pairs = vec![[Block::from(u128::MAX), Block::from(3u128)]; 5];
        pairs.wipe();
        assert_eq!(pairs, vec![[Block::from(0u128); 2]; 5]);
        let mut words = [u64::MAX; 7];
        words.wipe();
        assert_eq!(words, [0; 7]);
        let mut nested = vec![vec![9u16; 3], vec![], vec![7u16; 40]];
        nested.wipe();
        assert_eq!(nested, vec![vec![0u16; 3], vec![], vec![0u16; 40]]);
        let mut grid = vec![[[5u32; 3]; 2]; 4];
        grid.wipe();
        assert_eq!(grid, vec![[[0u32; 3]; 2]; 4]);
        let mut flags = vec![true; 9];
        flags.wipe();
        assert_eq!(flags, vec![false; 9]);
        let mut bits = Bits::from_bools(&[true; 300]);
        bits.wipe();
        assert_eq!((bits.len(), (0..300).any(|i| bits.get(i))), (300, false));
        let mut blocks = vec![Block::from(1u128); 3];
        wipe_pod(&mut blocks[1..]);
        assert_eq!(blocks, [1u128, 0, 0].map(Block::from));
    }

    /// Slices from the streamed size on, at unaligned starts and ends,
    /// are cleared whole and nothing around them is touched.
    #[test]
    fn streamed_wipes_clear_every_byte_and_nothing_else() {
        let mut buf = vec![0xa5u8; STREAMED_WIPE + 64];
        for (start, len) in [
            (0, STREAMED_WIPE),
            (3, STREAMED_WIPE + 5),
            (17, STREAMED_WIPE + 30),
        ] {
            buf.iter_mut().for_each(|b| *b = 0xa5);
            buf[start..start + len].wipe();
            assert!(
                buf[start..start + len].iter().all(|&b| b == 0),
                "{start} {len}"
            );
            assert!(buf[..start].iter().all(|&b| b == 0xa5));
            assert!(buf[start + len..].iter().all(|&b| b == 0xa5));
        }
        let mut pairs = vec![[Block::from(u128::MAX); 2]; STREAMED_WIPE / 32 + 1];
        pairs.wipe();
        assert!(pairs.iter().flatten().all(|&b| b == Block::ZERO));
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
