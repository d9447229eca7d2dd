//! Fixed-size wire codec used by generated message encoders and decoders.
//!
//! Every message field of a `.otp` protocol has a type whose encoding has a
//! size known from the protocol parameters alone, so a decoder can check the
//! exact length of a received frame before looking at its contents, and
//! every `read` validates its bytes (canonical scalars, valid points, 0/1
//! booleans, zero padding). Decoding never panics on any input.

use curve25519_dalek::ristretto::CompressedRistretto;

use crate::primitives::ec::{Point, Scalar};
use crate::{Bits, Block};

/// Why received bytes could not be decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WireError {
    /// The input does not have the exact length the type requires.
    #[error("wrong encoded length: expected {expected} bytes, got {got}")]
    Length {
        /// Required length in bytes.
        expected: usize,
        /// Actual length in bytes.
        got: usize,
    },
    /// 32 bytes that are not the canonical encoding of a Ristretto point.
    #[error("invalid Ristretto point encoding")]
    InvalidPoint,
    /// 32 bytes that are not a scalar reduced modulo the group order.
    #[error("non-canonical scalar encoding")]
    NonCanonicalScalar,
    /// A boolean byte other than 0 or 1.
    #[error("invalid boolean byte {0:#04x}")]
    BadBit(u8),
    /// Non-zero padding bits after the last bit of a bit vector.
    #[error("non-zero padding bits in a bit vector")]
    BadPadding,
}

/// A type with a fixed-size, validated binary encoding.
pub trait Wire: Sized {
    /// Encoded size in bytes of one value.
    const SIZE: usize;

    /// Writes exactly `SIZE` bytes into `out`.
    ///
    /// Callers must pass `out.len() == SIZE` (generated code always does);
    /// other lengths are a programming error and may panic.
    fn write(&self, out: &mut [u8]);

    /// Reads a value from exactly `SIZE` bytes, rejecting invalid encodings.
    fn read(bytes: &[u8]) -> Result<Self, WireError>;
}

/// Checks that `bytes` has exactly `expected` bytes.
#[inline]
fn check_len(bytes: &[u8], expected: usize) -> Result<(), WireError> {
    if bytes.len() == expected {
        Ok(())
    } else {
        Err(WireError::Length {
            expected,
            got: bytes.len(),
        })
    }
}

/// A copy of `bytes`, which must be exactly `expected` bytes long: the
/// decoder of fixed-size byte encodings (proofs, zero-padded integers).
pub fn exact_bytes(bytes: &[u8], expected: usize) -> Result<Vec<u8>, WireError> {
    check_len(bytes, expected)?;
    Ok(bytes.to_vec())
}

/// Copies exactly `N` bytes into an array, checking the length.
#[inline]
fn array<const N: usize>(bytes: &[u8]) -> Result<[u8; N], WireError> {
    bytes.try_into().map_err(|_| WireError::Length {
        expected: N,
        got: bytes.len(),
    })
}

impl Wire for Block {
    const SIZE: usize = 16;
    #[inline]
    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_bytes());
    }
    #[inline]
    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        Ok(Block::from_bytes(array(bytes)?))
    }
}

impl Wire for bool {
    const SIZE: usize = 1;
    #[inline]
    fn write(&self, out: &mut [u8]) {
        out[0] = u8::from(*self);
    }
    #[inline]
    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        match array::<1>(bytes)? {
            [0] => Ok(false),
            [1] => Ok(true),
            [b] => Err(WireError::BadBit(b)),
        }
    }
}

impl Wire for u8 {
    const SIZE: usize = 1;
    #[inline]
    fn write(&self, out: &mut [u8]) {
        out[0] = *self;
    }
    #[inline]
    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        let [b] = array::<1>(bytes)?;
        Ok(b)
    }
}

impl Wire for u32 {
    const SIZE: usize = 4;
    #[inline]
    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    #[inline]
    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        Ok(u32::from_le_bytes(array(bytes)?))
    }
}

impl Wire for u64 {
    const SIZE: usize = 8;
    #[inline]
    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.to_le_bytes());
    }
    #[inline]
    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        Ok(u64::from_le_bytes(array(bytes)?))
    }
}

/// Compressed Ristretto encoding (32 bytes); decoding accepts only
/// canonical encodings of group elements.
impl Wire for Point {
    const SIZE: usize = 32;
    #[inline]
    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(self.compress().as_bytes());
    }
    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        CompressedRistretto(array(bytes)?)
            .decompress()
            .ok_or(WireError::InvalidPoint)
    }
}

/// Little-endian canonical encoding (32 bytes); unreduced values are
/// rejected so that every scalar has exactly one encoding.
impl Wire for Scalar {
    const SIZE: usize = 32;
    #[inline]
    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(self.as_bytes());
    }
    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        Option::from(Scalar::from_canonical_bytes(array(bytes)?))
            .ok_or(WireError::NonCanonicalScalar)
    }
}

/// Concatenation of the `N` element encodings.
impl<T: Wire, const N: usize> Wire for [T; N] {
    const SIZE: usize = N * T::SIZE;
    fn write(&self, out: &mut [u8]) {
        if T::SIZE == 0 {
            return;
        }
        for (item, chunk) in self.iter().zip(out.chunks_exact_mut(T::SIZE)) {
            item.write(chunk);
        }
    }
    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        let items = read_vec::<T>(bytes, N)?;
        let got = items.len();
        items.try_into().map_err(|_| WireError::Length {
            expected: Self::SIZE,
            got: got.saturating_mul(T::SIZE),
        })
    }
}

/// Appends the encodings of `items` to `out` (one allocation at most).
pub fn write_slice<T: Wire>(items: &[T], out: &mut Vec<u8>) {
    let start = out.len();
    out.resize(start + items.len() * T::SIZE, 0);
    if T::SIZE == 0 {
        return;
    }
    for (item, chunk) in items.iter().zip(out[start..].chunks_exact_mut(T::SIZE)) {
        item.write(chunk);
    }
}

/// Decodes exactly `n` values from `bytes`, which must be exactly
/// `n * T::SIZE` bytes long.
pub fn read_vec<T: Wire>(bytes: &[u8], n: usize) -> Result<Vec<T>, WireError> {
    check_len(bytes, n.saturating_mul(T::SIZE))?;
    if T::SIZE == 0 {
        return (0..n).map(|_| T::read(&[])).collect();
    }
    bytes.chunks_exact(T::SIZE).map(T::read).collect()
}

/// Appends blocks to `out` with a single memory copy: the fast path of
/// [`write_slice`] for `Block`, producing the same bytes.
pub fn write_blocks(blocks: &[Block], out: &mut Vec<u8>) {
    if cfg!(target_endian = "little") {
        out.extend_from_slice(bytemuck::cast_slice(blocks));
    } else {
        write_slice(blocks, out);
    }
}

/// Decodes exactly `n` blocks with one bulk memory copy (no per-block
/// decoding): the fast path of
/// [`read_vec`] for `Block` (any 16 bytes are a valid block).
pub fn read_blocks(bytes: &[u8], n: usize) -> Result<Vec<Block>, WireError> {
    check_len(bytes, n.saturating_mul(Block::SIZE))?;
    if cfg!(target_endian = "little") {
        let mut blocks = Block::zeroed_vec(n);
        bytemuck::cast_slice_mut::<Block, u8>(&mut blocks).copy_from_slice(bytes);
        Ok(blocks)
    } else {
        read_vec(bytes, n)
    }
}

/// Encoded size in bytes of a bit vector of `n` bits: `ceil(n / 8)`.
#[inline]
pub const fn bits_len(n: usize) -> usize {
    n.div_ceil(8)
}

/// Appends the packed encoding of `bits` (`bits_len(bits.len())` bytes,
/// padding bits zero) to `out`.
pub fn write_bits(bits: &Bits, out: &mut Vec<u8>) {
    let len = bits_len(bits.len());
    let bytes = bits.as_bytes();
    out.extend_from_slice(&bytes[..len.min(bytes.len())]);
    // `Bits` always stores at least `bits_len` bytes; pad defensively.
    out.resize(out.len() + len.saturating_sub(bytes.len()), 0);
}

/// Decodes a bit vector of exactly `n` bits from `bits_len(n)` bytes,
/// rejecting non-zero padding bits (so every vector has one encoding).
pub fn read_bits(bytes: &[u8], n: usize) -> Result<Bits, WireError> {
    check_len(bytes, bits_len(n))?;
    let used = n % 8;
    if used != 0 {
        if let Some(&last) = bytes.last() {
            if last & !((1u8 << used) - 1) != 0 {
                return Err(WireError::BadPadding);
            }
        }
    }
    Bits::from_bytes(bytes, n).map_err(|_| WireError::Length {
        expected: bits_len(n),
        got: bytes.len(),
    })
}

/// Reads a `rows x cols` bit matrix stored as `rows * ceil(cols/128)` blocks
/// (row-major, little-endian); padding bits past `cols` must be zero.
pub fn read_bit_matrix(
    bytes: &[u8],
    rows: usize,
    cols: usize,
) -> Result<crate::BitMatrix, WireError> {
    let blocks = read_blocks(bytes, rows.saturating_mul(cols.div_ceil(128)))?;
    crate::BitMatrix::from_blocks(rows, cols, blocks).map_err(|_| WireError::BadPadding)
}

/// [`read_bit_matrix`] into an existing matrix, reusing its allocation
/// (the decoder of a streamed round calls it once per chunk).
///
/// Same checks and errors as [`read_bit_matrix`]. On success `out` is
/// `rows x cols` with the decoded bits; on error its shape and contents
/// are unspecified (but it stays a valid matrix).
pub fn read_bit_matrix_into(
    bytes: &[u8],
    rows: usize,
    cols: usize,
    out: &mut crate::BitMatrix,
) -> Result<(), WireError> {
    let n = rows.saturating_mul(cols.div_ceil(128));
    check_len(bytes, n.saturating_mul(Block::SIZE))?;
    out.reset(rows, cols);
    Block::slice_as_bytes_mut(out.as_blocks_mut()).copy_from_slice(bytes);
    finish_bit_matrix_in_place(out)
}

/// Values whose wire form is their memory on little-endian targets: a
/// [`Block`] or an array of blocks (16-byte little-endian blocks back to
/// back). Bulk rounds of such values are sent and received without an
/// element-by-element encoding.
pub trait BlockShaped: Wire + bytemuck::Pod {}
impl BlockShaped for Block {}
impl<const N: usize> BlockShaped for [Block; N] where [Block; N]: Wire + bytemuck::Pod {}

/// The wire bytes of `items`, the same as [`write_slice`] produces: a view
/// of their memory on little-endian targets, an encoded copy otherwise.
pub fn block_bytes<T: BlockShaped>(items: &[T]) -> std::borrow::Cow<'_, [u8]> {
    if cfg!(target_endian = "little") {
        std::borrow::Cow::Borrowed(bytemuck::cast_slice(items))
    } else {
        let mut out = Vec::new();
        write_slice(items, &mut out);
        std::borrow::Cow::Owned(out)
    }
}

/// Resizes `out` to `n` values and views its memory as the bytes to
/// receive their wire form into; call [`finish_blocks_in_place`] after.
pub fn blocks_recv_buffer<T: BlockShaped>(out: &mut Vec<T>, n: usize) -> &mut [u8] {
    out.resize(n, T::zeroed());
    bytemuck::cast_slice_mut(&mut out[..])
}

/// Converts values received in place (see [`blocks_recv_buffer`]) from
/// their little-endian wire order; nothing to do on little-endian targets.
pub fn finish_blocks_in_place<T: BlockShaped>(items: &mut [T]) {
    if cfg!(target_endian = "big") {
        for b in bytemuck::cast_slice_mut::<T, Block>(items) {
            *b = Block(u128::from_le(b.0));
        }
    }
}

/// Completes a bit matrix whose storage was filled with its wire bytes in
/// place (a streamed chunk received straight into the matrix with
/// `Channel::recv_into_slice`): converts each block from its little-endian
/// wire order (nothing to do on little-endian targets) and rejects set
/// padding bits, as [`read_bit_matrix`] does.
pub fn finish_bit_matrix_in_place(m: &mut crate::BitMatrix) -> Result<(), WireError> {
    if cfg!(target_endian = "big") {
        for b in m.as_blocks_mut() {
            *b = Block(u128::from_le(b.0));
        }
    }
    let (cols, bpr) = (m.cols(), m.blocks_per_row());
    if !cols.is_multiple_of(128) && bpr > 0 {
        let pad = !((1u128 << (cols % 128)) - 1);
        if m.as_blocks()
            .chunks_exact(bpr)
            .any(|r| r[bpr - 1].0 & pad != 0)
        {
            return Err(WireError::BadPadding);
        }
    }
    Ok(())
}

/// [`read_vec`] into an existing vector, reusing its allocation: `out` is
/// cleared and refilled with exactly `n` values.
///
/// Same checks and errors as [`read_vec`]; on error `out` holds the values
/// decoded before the invalid one.
pub fn read_vec_into<T: Wire>(bytes: &[u8], n: usize, out: &mut Vec<T>) -> Result<(), WireError> {
    check_len(bytes, n.saturating_mul(T::SIZE))?;
    out.clear();
    out.reserve(n);
    if T::SIZE == 0 {
        for _ in 0..n {
            out.push(T::read(&[])?);
        }
        return Ok(());
    }
    for c in bytes.chunks_exact(T::SIZE) {
        out.push(T::read(c)?);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn block_shaped_bytes_round_trip_like_write_slice() {
        let v: Vec<[Block; 2]> = (0..5u128)
            .map(|i| {
                [
                    Block(i * 0x0101_0101_0101_0101_0101_0101_0101_0101),
                    Block(!i),
                ]
            })
            .collect();
        let mut encoded = Vec::new();
        write_slice(&v, &mut encoded);
        assert_eq!(&*block_bytes(&v), &encoded[..]);
        let mut back: Vec<[Block; 2]> = vec![[Block::ONES; 2]; 9];
        blocks_recv_buffer(&mut back, v.len()).copy_from_slice(&encoded);
        finish_blocks_in_place(&mut back);
        assert_eq!(back, v);
        assert_eq!(read_vec::<[Block; 2]>(&encoded, 5).ok(), Some(v));
    }
    use rand_core::OsRng;

    fn round_trip<T: Wire + PartialEq + core::fmt::Debug>(v: T) {
        let mut out = vec![0u8; T::SIZE];
        v.write(&mut out);
        assert_eq!(T::read(&out).unwrap(), v);
        assert!(T::read(&out[..T::SIZE.saturating_sub(1)]).is_err() || T::SIZE == 0);
        let mut longer = out.clone();
        longer.push(0);
        assert_eq!(
            T::read(&longer).unwrap_err(),
            WireError::Length {
                expected: T::SIZE,
                got: T::SIZE + 1
            }
        );
    }

    #[test]
    fn round_trips() {
        round_trip(Block::from_bytes([0xab; 16]));
        round_trip(true);
        round_trip(false);
        round_trip(0xfeu8);
        round_trip(0xdead_beefu32);
        round_trip(u64::MAX - 5);
        round_trip(crate::primitives::ec::random_point(&mut OsRng));
        round_trip(Point::default());
        round_trip(crate::primitives::ec::random_scalar(&mut OsRng));
        round_trip([1u64, 2, 3]);
        round_trip([[true, false], [false, true]]);
        round_trip::<[Block; 0]>([]);
        assert_eq!(<[[u64; 3]; 2]>::SIZE, 48);
    }

    #[test]
    fn fixed_encodings() {
        let mut out = [0u8; 8];
        0x0102_0304_0506_0708u64.write(&mut out);
        assert_eq!(out, [8, 7, 6, 5, 4, 3, 2, 1]);
        let b = Block::from_bytes(core::array::from_fn(|i| i as u8));
        let mut v = Vec::new();
        write_slice(&[b], &mut v);
        assert_eq!(v, (0..16).collect::<Vec<u8>>());
        assert_eq!(bool::read(&[2]), Err(WireError::BadBit(2)));
        assert_eq!(bool::read(&[0xff]), Err(WireError::BadBit(0xff)));
    }

    #[test]
    fn invalid_points_rejected() {
        // Non-canonical field element (p = 2^255 - 19 itself).
        let mut p = [0xffu8; 32];
        p[0] = 0xed;
        p[31] = 0x7f;
        assert_eq!(Point::read(&p), Err(WireError::InvalidPoint));
        // High bit set.
        let mut hi = [0u8; 32];
        hi[31] = 0x80;
        assert_eq!(Point::read(&hi), Err(WireError::InvalidPoint));
        // Negative field element (odd, i.e. low bit set): 1 is not a valid
        // Ristretto encoding.
        let mut one = [0u8; 32];
        one[0] = 1;
        assert_eq!(Point::read(&one), Err(WireError::InvalidPoint));
        // Identity encodes as all zeros and is a valid point.
        assert_eq!(Point::read(&[0u8; 32]), Ok(Point::default()));
    }

    #[test]
    fn non_canonical_scalars_rejected() {
        // The group order l = 2^252 + 27742317777372353535851937790883648493.
        let l: [u8; 32] = [
            0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9,
            0xde, 0x14, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
        ];
        assert_eq!(Scalar::read(&l), Err(WireError::NonCanonicalScalar));
        assert_eq!(
            Scalar::read(&[0xff; 32]),
            Err(WireError::NonCanonicalScalar)
        );
        let mut below = l;
        below[0] -= 1;
        assert_eq!(Scalar::read(&below), Ok(-Scalar::ONE));
    }

    #[test]
    fn vectors_and_blocks() {
        let blocks: Vec<Block> = (0..10u128).map(|i| Block(i * 0x0101_0101 + 7)).collect();
        let mut slow = vec![0xee];
        write_slice(&blocks, &mut slow);
        let mut fast = vec![0xee];
        write_blocks(&blocks, &mut fast);
        assert_eq!(slow, fast);
        assert_eq!(read_vec::<Block>(&fast[1..], 10).unwrap(), blocks);
        assert_eq!(read_blocks(&fast[1..], 10).unwrap(), blocks);
        assert_eq!(
            read_blocks(&fast[1..], 11),
            Err(WireError::Length {
                expected: 176,
                got: 160
            })
        );
        assert_eq!(
            read_vec::<u64>(&[0; 9], 1),
            Err(WireError::Length {
                expected: 8,
                got: 9
            })
        );
        // Huge counts do not overflow.
        assert!(read_vec::<Block>(&[], usize::MAX).is_err());
        assert!(read_blocks(&[], usize::MAX).is_err());
        assert!(read_bits(&[], usize::MAX).is_err());
    }

    #[test]
    fn bits_encoding() {
        let bits = Bits::from_bools(&[true, false, true, true, false, false, false, false, true]);
        assert_eq!(bits_len(9), 2);
        assert_eq!(bits_len(0), 0);
        let mut out = vec![];
        write_bits(&bits, &mut out);
        assert_eq!(out, [0b0000_1101, 0b1]);
        assert_eq!(read_bits(&out, 9).unwrap(), bits);
        assert_eq!(
            read_bits(&[0b0000_1101, 0b11], 9),
            Err(WireError::BadPadding)
        );
        assert_eq!(read_bits(&[0xff], 8).unwrap().count_ones(), 8);
        assert!(matches!(read_bits(&out, 17), Err(WireError::Length { .. })));
        assert_eq!(read_bits(&[], 0).unwrap().len(), 0);
    }

    #[test]
    fn into_readers_match_and_reuse() {
        let m = crate::primitives::prg::prg(Block(9), 3 * 2);
        let mut bytes = Vec::new();
        write_blocks(&m, &mut bytes);
        // 3 x 256: no padding.
        let mut out = crate::BitMatrix::new(128, 4096);
        let cap = out.as_blocks().len();
        read_bit_matrix_into(&bytes, 3, 256, &mut out).unwrap();
        assert_eq!(out, read_bit_matrix(&bytes, 3, 256).unwrap());
        assert!(out.as_blocks().len() <= cap);
        // Padding bits set for 3 x 200: both reject.
        assert_eq!(
            read_bit_matrix_into(&bytes, 3, 200, &mut out),
            Err(WireError::BadPadding)
        );
        assert_eq!(read_bit_matrix(&bytes, 3, 200), Err(WireError::BadPadding));
        assert_eq!(
            read_bit_matrix_into(&bytes[1..], 3, 256, &mut out),
            Err(WireError::Length {
                expected: 96,
                got: 95
            })
        );
        assert!(read_bit_matrix_into(&[], usize::MAX, usize::MAX, &mut out).is_err());
        let mut clean = crate::BitMatrix::new(2, 100);
        clean.set(1, 99, true);
        let mut cb = Vec::new();
        write_blocks(clean.as_blocks(), &mut cb);
        read_bit_matrix_into(&cb, 2, 100, &mut out).unwrap();
        assert_eq!(out, clean);

        let mut v: Vec<u64> = Vec::with_capacity(64);
        let p = v.as_ptr();
        let mut enc = Vec::new();
        write_slice(&[5u64, 6, 7], &mut enc);
        read_vec_into(&enc, 3, &mut v).unwrap();
        assert_eq!(v, read_vec::<u64>(&enc, 3).unwrap());
        assert_eq!(v.as_ptr(), p);
        assert_eq!(
            read_vec_into(&enc, 2, &mut v),
            Err(WireError::Length {
                expected: 16,
                got: 24
            })
        );
        let mut bv: Vec<bool> = Vec::new();
        assert_eq!(
            read_vec_into(&[1, 2], 2, &mut bv),
            Err(WireError::BadBit(2))
        );
        assert_eq!(read_vec_into(&[1, 0], 2, &mut bv), Ok(()));
        assert_eq!(bv, vec![true, false]);
        let mut e: Vec<[u8; 0]> = Vec::new();
        read_vec_into(&[], 4, &mut e).unwrap();
        assert_eq!(e.len(), 4);
        assert!(read_vec_into::<Block>(&[], usize::MAX, &mut Vec::new()).is_err());
    }

    proptest! {
        #[test]
        fn readers_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200), n in 0usize..20) {
            let _ = Block::read(&bytes);
            let _ = bool::read(&bytes);
            let _ = u8::read(&bytes);
            let _ = u32::read(&bytes);
            let _ = u64::read(&bytes);
            let _ = Point::read(&bytes);
            let _ = Scalar::read(&bytes);
            let _ = <[Point; 2]>::read(&bytes);
            let _ = <[[bool; 3]; 2]>::read(&bytes);
            let _ = read_vec::<Block>(&bytes, n);
            let _ = read_vec::<bool>(&bytes, n);
            let _ = read_vec::<Point>(&bytes, n);
            let _ = read_vec::<Scalar>(&bytes, n);
            let _ = read_vec::<[u64; 2]>(&bytes, n);
            let _ = read_blocks(&bytes, n);
            let _ = read_bits(&bytes, n * 8 + n % 8);
            let _ = read_bits(&bytes, bytes.len() * 8 - (n % 8).min(bytes.len() * 8));
        }

        #[test]
        fn exact_sized_inputs_decode_or_reject(bytes in proptest::collection::vec(any::<u8>(), 32)) {
            // Whatever decodes re-encodes to the same bytes (unique encodings).
            if let Ok(p) = Point::read(&bytes) {
                let mut out = [0u8; 32];
                p.write(&mut out);
                prop_assert_eq!(&out[..], &bytes[..]);
            }
            if let Ok(s) = Scalar::read(&bytes) {
                let mut out = [0u8; 32];
                s.write(&mut out);
                prop_assert_eq!(&out[..], &bytes[..]);
            }
            for n in 249..=256 {
                if let Ok(b) = read_bits(&bytes, n) {
                    let mut out = Vec::new();
                    write_bits(&b, &mut out);
                    prop_assert_eq!(&out[..], &bytes[..]);
                }
            }
        }

        #[test]
        fn slices_round_trip(v in proptest::collection::vec(any::<u64>(), 0..50)) {
            let mut out = Vec::new();
            write_slice(&v, &mut out);
            prop_assert_eq!(out.len(), v.len() * 8);
            prop_assert_eq!(read_vec::<u64>(&out, v.len()).unwrap(), v);
        }
    }
}
