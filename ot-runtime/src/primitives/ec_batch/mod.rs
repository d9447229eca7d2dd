//! Batched variable-base multiplication on Ristretto255, eight points at a
//! time on AVX-512 IFMA: one secret scalar times many points (the base-OT
//! senders) or a secret scalar per lane times one point (the receivers).
//!
//! A base-OT sender multiplies every point the receiver sent by its one
//! secret scalar (MR19: `a·B^0_i` and `a·B^1_i` for every OT; CO15: `a·B_i`
//! and `a·(B_i − A)`), and a receiver multiplies the sender's point `A` by
//! a scalar per OT. dalek's run-time selected backend does one point at a
//! time (AVX2, four field elements of one point per register; its IFMA
//! backend needs a build that targets the CPU); here eight points share the
//! registers, one per lane, with 52-bit multiply-adds (modules `field` and
//! `curve`). The result is what the key derivations hash, the encoding
//! `enc(2·P)` of each product (see [`crate::otext::endemic`]), so the
//! points never go back to dalek's type.
//!
//! Without AVX-512 IFMA (or with `--cfg ot_backend` below `avx512`) the
//! same functions run on dalek (`double_and_compress_batch` of the
//! products). Both paths give the same bytes (tested against each other).

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
        if let Some(out) = ifma_path(s, points, None) {
            return out;
        }
    }
    portable(s, points, None)
}

/// Per point two encodings, interleaved: `enc(2·s·P_i)` then
/// `enc(2·s·(P_i - q))`, in constant time in `s` and the points.
///
/// The CO15 sender's two Diffie–Hellman values per OT, `a·B_i` and
/// `a·(B_i - A)` [CO15, Fig. 1], for one multiplication per OT: the second
/// is the first minus `a·A`, subtracted on the lanes before encoding.
pub fn mul_doubled_encoding_pairs(s: Scalar, points: &[Point], q: Point) -> DoubledEncodings {
    #[cfg(target_arch = "x86_64")]
    if ifma() {
        if let Some(out) = ifma_path(s, points, Some(q)) {
            return out;
        }
    }
    portable(s, points, Some(q))
}

/// `enc(2·s_i·q)` for every scalar of `scalars`, in constant time in the
/// scalars and `q`.
///
/// A base-OT receiver's Diffie–Hellman values `x_i·A` (CO15) or `b_i·A`
/// (MR19): one point, a secret scalar per OT. On the lanes each lane has
/// its own scalar; elsewhere dalek multiplies through a table of `q`'s
/// multiples built once.
pub fn mul_each_doubled_encodings(scalars: &[Scalar], q: Point) -> DoubledEncodings {
    #[cfg(target_arch = "x86_64")]
    if ifma() {
        if let Some(out) = ifma_each(scalars, q) {
            return out;
        }
    }
    portable_each(scalars, q)
}

/// The reference path of [`mul_each_doubled_encodings`].
fn portable_each(scalars: &[Scalar], q: Point) -> DoubledEncodings {
    if scalars.is_empty() {
        return DoubledEncodings::default();
    }
    let table = curve25519_dalek::ristretto::RistrettoBasepointTable::create(&q);
    let products: Vec<Point> = scalars.iter().map(|s| &table * s).collect();
    let encs = Point::double_and_compress_batch(&products);
    DoubledEncodings(encs.iter().map(CompressedRistretto::to_bytes).collect())
}

/// The two batches one after the other (the `.otp` intrinsic
/// `concat_encodings`).
pub fn concat(a: &DoubledEncodings, b: &DoubledEncodings) -> DoubledEncodings {
    a.concat(b)
}

/// The reference path: dalek's multiplication and batch encoding (with
/// `q`, each product followed by the product minus `s·q`).
fn portable(s: Scalar, points: &[Point], q: Option<Point>) -> DoubledEncodings {
    if points.is_empty() {
        return DoubledEncodings::default();
    }
    let products: Vec<Point> = match q {
        None => points.iter().map(|p| p * s).collect(),
        Some(q) => {
            let sq = q * s;
            points
                .iter()
                .flat_map(|p| {
                    let sp = p * s;
                    [sp, sp - sq]
                })
                .collect()
        }
    };
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
/// With `q`, the encodings come in pairs as in [`mul_doubled_encoding_pairs`].
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn ifma_path(s: Scalar, points: &[Point], q: Option<Point>) -> Option<DoubledEncodings> {
    if points.is_empty() {
        return Some(DoubledEncodings::default());
    }
    // enc(2·P_i) for every point, and enc(2·s·q) last (one shared inversion).
    let sq = q.map(|q| q * s);
    let doubled = Point::double_and_compress_batch(points.iter().chain(sq.as_ref()));
    let (encs, offset) = doubled.split_at(points.len());
    let encs: Vec<[u8; 32]> = encs.iter().map(CompressedRistretto::to_bytes).collect();
    let offset = offset.first().map(CompressedRistretto::to_bytes);
    let mut digits = curve::radix16(&s.to_bytes());
    let mut per_lane: [[i64; field::LANES]; 64] =
        std::array::from_fn(|i| [digits[i]; field::LANES]);
    let per_point = if offset.is_some() { 2 } else { 1 };
    let mut out = Vec::with_capacity(points.len() * per_point);
    // SAFETY: `ifma()` found AVX-512F and AVX-512 IFMA on this CPU.
    let ok = unsafe { lanes::mul_encoded(&encs, &per_lane, offset.as_ref(), &mut out) };
    // The digits are the secret scalar's.
    crate::primitives::wipe::wipe_pod(&mut digits[..]);
    crate::primitives::wipe::wipe_pod(&mut per_lane[..]);
    ok.then_some(DoubledEncodings(out))
}

/// The IFMA path of [`mul_each_doubled_encodings`], or `None` if `q`'s
/// encoding did not decode (it cannot: dalek made it).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
fn ifma_each(scalars: &[Scalar], q: Point) -> Option<DoubledEncodings> {
    if scalars.is_empty() {
        return Some(DoubledEncodings::default());
    }
    let q2 = Point::double_and_compress_batch([&q])
        .first()
        .map(CompressedRistretto::to_bytes)?;
    let mut out = Vec::with_capacity(scalars.len());
    // SAFETY: `ifma()` found AVX-512F and AVX-512 IFMA on this CPU.
    let ok = unsafe { lanes::mul_each(&q2, scalars, &mut out) };
    ok.then_some(DoubledEncodings(out))
}

/// The lane-parallel steps of [`ifma_path`] and [`ifma_each`], in one
/// `target_feature` context.
#[cfg(target_arch = "x86_64")]
mod lanes {
    #![allow(unsafe_code)]

    use super::curve::{radix16, Point8};
    use super::field::{bytes_from_limbs, limbs_from_bytes, Fe, LANES};
    use crate::primitives::ec::Scalar;

    /// Whether 32 bytes are a canonical field element: bit 255 clear and
    /// the value below p.
    pub(super) fn canonical_bytes(b: &[u8; 32]) -> bool {
        let l = limbs_from_bytes(b);
        let mask = (1u64 << 51) - 1;
        let above_p = l[0] >= mask - 18 && l[1..].iter().all(|&x| x == mask);
        b[31] >> 7 == 0 && !above_p
    }

    /// Eight encodings decoded; also the lanes that did not decode.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) fn decode(encs: &[[u8; 32]; LANES]) -> (Point8, u8) {
        let canonical = encs
            .iter()
            .enumerate()
            .fold(0u8, |m, (j, e)| m | (u8::from(canonical_bytes(e)) << j));
        let s = Fe::from_limbs(&encs.map(|e| limbs_from_bytes(&e)));
        Point8::decode(&s, canonical)
    }

    /// Decodes the encodings eight at a time, multiplies lane `j` by the
    /// scalar whose signed radix-16 digits are `digits[..][j]` and appends
    /// the products' encodings to `out`; with `offset` (an encoding of
    /// `Q`), each product `R` is followed by `R - Q`. `false` if an input
    /// did not decode (`out` then holds a part of the batch).
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) unsafe fn mul_encoded(
        encs: &[[u8; 32]],
        digits: &[[i64; LANES]; 64],
        offset: Option<&[u8; 32]>,
        out: &mut Vec<[u8; 32]>,
    ) -> bool {
        let offset = match offset {
            Some(q) => {
                let (q, invalid) = decode(&[*q; LANES]);
                if invalid != 0 {
                    return false;
                }
                Some(q)
            }
            None => None,
        };
        for chunk in encs.chunks(LANES) {
            let mut lanes = [chunk[0]; LANES];
            lanes[..chunk.len()].copy_from_slice(chunk);
            let (points, invalid) = decode(&lanes);
            if invalid != 0 {
                return false;
            }
            let products = points.mul_digits(digits);
            let encoded = products.encode().to_limbs().map(bytes_from_limbs);
            match &offset {
                None => out.extend_from_slice(&encoded[..chunk.len()]),
                Some(q) => {
                    let less = products.sub(q).encode().to_limbs().map(bytes_from_limbs);
                    for (a, b) in encoded.iter().zip(&less).take(chunk.len()) {
                        out.extend_from_slice(&[*a, *b]);
                    }
                }
            }
        }
        true
    }

    /// Decodes `q` (an encoding of `Q`) into every lane, multiplies it by
    /// the scalars eight at a time (lane `j` by its own) and appends the
    /// products' encodings to `out`. `false` if `q` did not decode.
    ///
    /// # Safety
    /// The CPU supports AVX-512F and AVX-512 IFMA.
    #[target_feature(enable = "avx512f,avx512ifma")]
    pub(super) unsafe fn mul_each(
        q: &[u8; 32],
        scalars: &[Scalar],
        out: &mut Vec<[u8; 32]>,
    ) -> bool {
        let (point, invalid) = decode(&[*q; LANES]);
        if invalid != 0 {
            return false;
        }
        let mut digits = [[0i64; LANES]; 64];
        for chunk in scalars.chunks(LANES) {
            for (j, s) in chunk.iter().enumerate() {
                let mut lane = radix16(&s.to_bytes());
                for (row, d) in digits.iter_mut().zip(lane) {
                    row[j] = d;
                }
                crate::primitives::wipe::wipe_pod(&mut lane[..]);
            }
            let encoded = point
                .mul_digits(&digits)
                .encode()
                .to_limbs()
                .map(bytes_from_limbs);
            out.extend_from_slice(&encoded[..chunk.len()]);
        }
        // The digits are the secret scalars'.
        crate::primitives::wipe::wipe_pod(&mut digits[..]);
        true
    }
}

#[cfg(test)]
mod tests;
