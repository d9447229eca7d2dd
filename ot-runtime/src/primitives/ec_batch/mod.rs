//! Batched variable-base multiplication on Ristretto255: one secret scalar
//! times many points, eight points per AVX-512 IFMA register lane set.
//!
//! A base-OT sender multiplies every point the receiver sent by its one
//! secret scalar (MR19: `a·B^0_i` and `a·B^1_i` for every OT). dalek's
//! run-time selected backend does one point at a time (AVX2, four field
//! elements of one point per register; its IFMA backend needs a build that
//! targets the CPU); here eight points share the registers, one per
//! lane, with 52-bit multiply-adds (modules `field` and `curve`). The result is
//! what the key derivation hashes, the encoding `enc(2·s·P_i)` (see
//! [`crate::otext::endemic`]), so the points never go back to dalek's
//! type.
//!
//! Without AVX-512 IFMA (or with `--cfg ot_backend` below `avx512`) the
//! same function runs on dalek: `double_and_compress_batch` of `s·P_i`.
//! Both paths give the same bytes (tested against each other).

#[cfg(target_arch = "x86_64")]
mod curve;
#[cfg(target_arch = "x86_64")]
mod field;

use curve25519_dalek::ristretto::CompressedRistretto;

use crate::primitives::ec::{Point, Scalar};

/// The encodings `enc(2·s·P_i)` of a batch of secret Diffie–Hellman
/// values `s·P_i`, as dalek's `double_and_compress_batch` would give them
/// (doubling is a bijection of the prime-order group, so the encoding is
/// injective). Wiped on drop: they are the material of OT keys.
#[derive(Clone, Default)]
pub struct DoubledEncodings(Vec<[u8; 32]>);

impl std::fmt::Debug for DoubledEncodings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "DoubledEncodings({} points, redacted)", self.0.len())
    }
}

impl Drop for DoubledEncodings {
    fn drop(&mut self) {
        crate::primitives::wipe::wipe_pod(&mut self.0[..]);
    }
}

impl DoubledEncodings {
    /// How many encodings the batch holds.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The `i`-th encoding, if there is one.
    pub fn get(&self, i: usize) -> Option<&[u8; 32]> {
        self.0.get(i)
    }

    /// The encodings of `self`'s batch followed by `other`'s.
    pub fn concat(&self, other: &DoubledEncodings) -> DoubledEncodings {
        let mut all = Vec::with_capacity(self.0.len() + other.0.len());
        all.extend_from_slice(&self.0);
        all.extend_from_slice(&other.0);
        DoubledEncodings(all)
    }
}

/// `enc(2·s·P_i)` for every point of `points` (see [`DoubledEncodings`]),
/// in constant time in `s` and the points.
///
/// This is `[s * P_i for i]` followed by the shared-inversion encoding of
/// the key derivation, fused so that the fast path never builds dalek
/// points: it encodes `2·P_i` with dalek's batch encoding, decodes the
/// bytes into its own lanes (RFC 9496), multiplies and encodes there.
pub fn mul_doubled_encodings(s: Scalar, points: &[Point]) -> DoubledEncodings {
    #[cfg(target_arch = "x86_64")]
    if ifma() {
        if let Some(out) = ifma_path(s, points) {
            return out;
        }
    }
    portable(s, points)
}

/// The two batches one after the other (the `.otp` intrinsic
/// `concat_encodings`).
pub fn concat(a: &DoubledEncodings, b: &DoubledEncodings) -> DoubledEncodings {
    a.concat(b)
}

/// The reference path: dalek's multiplication and batch encoding.
fn portable(s: Scalar, points: &[Point]) -> DoubledEncodings {
    if points.is_empty() {
        return DoubledEncodings::default();
    }
    let products: Vec<Point> = points.iter().map(|p| p * s).collect();
    let encs = Point::double_and_compress_batch(&products);
    DoubledEncodings(encs.iter().map(CompressedRistretto::to_bytes).collect())
}

/// Whether the IFMA path may run: the CPU has AVX-512F and IFMA, and the
/// `--cfg ot_backend` cap allows AVX-512.
#[cfg(target_arch = "x86_64")]
pub(crate) fn ifma() -> bool {
    use crate::primitives::backend::{allows, has, Feature, Level};
    allows(Level::Avx512) && has(&[Feature::Avx512f, Feature::Avx512ifma])
}

/// The IFMA path, or `None` if a lane's decoding failed (it cannot: the
/// bytes come from dalek's encoder; the reference path then answers).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn ifma_path(s: Scalar, points: &[Point]) -> Option<DoubledEncodings> {
    if points.is_empty() {
        return Some(DoubledEncodings::default());
    }
    let doubled = Point::double_and_compress_batch(points);
    let mut digits = curve::radix16(&s.to_bytes());
    let mut per_lane: [[i64; field::LANES]; 64] =
        std::array::from_fn(|i| [digits[i]; field::LANES]);
    let mut out = Vec::with_capacity(points.len());
    for chunk in doubled.chunks(field::LANES) {
        let mut encs = [*chunk[0].as_bytes(); field::LANES];
        for (slot, enc) in encs.iter_mut().zip(chunk) {
            *slot = enc.to_bytes();
        }
        // SAFETY: `ifma()` found AVX-512F and AVX-512 IFMA on this CPU.
        let (products, failed) = unsafe { lanes::mul_encoded(&encs, &per_lane) };
        if failed {
            return None;
        }
        out.extend_from_slice(&products[..chunk.len()]);
    }
    // The digits are the secret scalar's.
    crate::primitives::wipe::wipe_pod(&mut digits[..]);
    crate::primitives::wipe::wipe_pod(&mut per_lane[..]);
    Some(DoubledEncodings(out))
}

/// The lane-parallel steps of [`ifma_path`], in one `target_feature`
/// context.
#[cfg(target_arch = "x86_64")]
mod lanes {
    #![allow(unsafe_code)]

    use super::curve::Point8;
    use super::field::{bytes_from_limbs, limbs_from_bytes, Fe, LANES};

    /// Whether 32 bytes are a canonical field element: bit 255 clear and
    /// the value below p.
    fn canonical_bytes(b: &[u8; 32]) -> bool {
        let l = limbs_from_bytes(b);
        let mask = (1u64 << 51) - 1;
        let above_p = l[0] >= mask - 18 && l[1..].iter().all(|&x| x == mask);
        b[31] >> 7 == 0 && !above_p
    }

    /// Decodes eight encodings, multiplies lane `j` by the scalar whose
    /// signed radix-16 digits are `digits[..][j]` and encodes the
    /// products; `true` if a lane's input did not decode.
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) unsafe fn mul_encoded(
        encs: &[[u8; 32]; LANES],
        digits: &[[i64; LANES]; 64],
    ) -> ([[u8; 32]; LANES], bool) {
        let canonical = encs
            .iter()
            .enumerate()
            .fold(0u8, |m, (j, e)| m | (u8::from(canonical_bytes(e)) << j));
        let s = Fe::from_limbs(&encs.map(|e| limbs_from_bytes(&e)));
        let (points, invalid) = Point8::decode(&s, canonical);
        let encoded = points.mul_digits(digits).encode().to_limbs();
        (encoded.map(bytes_from_limbs), invalid != 0)
    }
}

#[cfg(test)]
mod tests;
