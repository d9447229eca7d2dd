//! Kernels of the Masny–Rindal endemic OT (MR19) (`protocols/mr19.otp`):
//! the random oracle into the group that links the receiver's two points,
//! and the derivation of the 128-bit OT keys from the Diffie–Hellman
//! values. The message flow and what each role computes live in the
//! `.otp` file; these functions only hash, in batches.
//!
//! Batching matters because hashing a point needs its 32-byte encoding, and
//! one compression costs a field inversion (about as much as a quarter of
//! a variable-base multiplication). Every kernel here encodes a whole batch
//! with dalek's `double_and_compress_batch`, which shares one inversion
//! among all points and encodes `2·P` rather than `P`: doubling is a
//! bijection of the prime-order group, so the encoding is still injective,
//! and both roles use the same encoding of the same points.
//!
//! Every input is length-prefixed or of fixed length (label length byte,
//! 16-byte salt, 32-byte points, `u64` little-endian index, one byte for a
//! slot bit), so distinct inputs never hash the same string.

use curve25519_dalek::ristretto::CompressedRistretto;
use curve25519_dalek::traits::Identity;
use sha2::{Digest, Sha256, Sha512};

use crate::primitives::ec::Point;
use crate::primitives::ec_batch::DoubledEncodings;
use crate::{Bits, Block};

/// Domain label of the random oracle into the group, [`hash_to_group`].
const HASH_TO_GROUP_DOMAIN: &[u8] = b"ot-runtime/mr19/hash-to-group/v1";
/// Domain label of the key derivation, [`key_pairs`] and [`keys`].
const KEY_DOMAIN: &[u8] = b"ot-runtime/mr19/key/v1";

/// The batch's encodings `enc(2·P)` with one shared field inversion (an
/// empty batch gives an empty vector).
fn encode_batch<'a, I>(points: I) -> Vec<CompressedRistretto>
where
    I: IntoIterator<Item = &'a Point>,
{
    let points: Vec<&Point> = points.into_iter().collect();
    if points.is_empty() {
        return Vec::new();
    }
    Point::double_and_compress_batch(points)
}

/// Starts a hash with the length-prefixed domain label and the salt, the
/// prefix shared by every entry of a batch (cloned per entry).
fn prefix<D: Digest>(domain: &[u8], salt: Block) -> D {
    let mut h = D::new();
    h.update([domain.len() as u8]);
    h.update(domain);
    h.update(salt.to_bytes());
    h
}

/// Random oracle into the group over a batch with one slot for all
/// entries: `out[j] = H_G(salt, offset + j, slot, points[j])`.
///
/// This is the MR19 sender's side: it recomputes `B^0_i = r0_i + H_G(salt,
/// i, 1, r1_i)` and `B^1_i = r1_i + H_G(salt, i, 0, r0_i)` from the two
/// points the receiver sent. `offset` is the index of the batch's first
/// OT, so a batch split into parts hashes exactly as the whole would.
pub fn hash_to_group(salt: Block, offset: usize, slot: bool, points: &[Point]) -> Vec<Point> {
    hash_to_group_inner(salt, offset, points, |_| slot)
}

/// Random oracle into the group over a batch with one slot per entry:
/// `out[j] = H_G(salt, offset + j, slots[j], points[j])`.
///
/// This is the MR19 receiver's side, whose slot `1 - c_i` depends on its
/// secret choice bit: the bit only enters the hash input as one byte (no
/// branch or memory access depends on it), and the output point is
/// computed the same way whatever its value. Entries beyond the shorter of
/// `slots` and `points` are not produced (the generated code passes equal
/// lengths).
pub fn hash_to_group_slots(
    salt: Block,
    offset: usize,
    slots: &[bool],
    points: &[Point],
) -> Vec<Point> {
    let points = &points[..points.len().min(slots.len())];
    hash_to_group_inner(salt, offset, points, |j| slots[j])
}

/// `H_G(salt, i, slot, P)`: SHA-512 over the label, the salt, `i` as `u64`
/// little-endian, the slot byte and `enc(2·P)`, mapped to a uniformly
/// distributed point by dalek's `from_uniform_bytes` (two Elligator maps
/// added), so nobody knows its discrete logarithm.
fn hash_to_group_inner(
    salt: Block,
    offset: usize,
    points: &[Point],
    slot: impl Fn(usize) -> bool,
) -> Vec<Point> {
    let start = prefix::<Sha512>(HASH_TO_GROUP_DOMAIN, salt);
    encode_batch(points)
        .iter()
        .enumerate()
        .map(|(j, enc)| {
            let mut h = start.clone();
            h.update((offset.wrapping_add(j) as u64).to_le_bytes());
            h.update([u8::from(slot(j))]);
            h.update(enc.as_bytes());
            Point::from_hash(h)
        })
        .collect()
}

/// Whether any point of the batch is the group identity. The MR19 sender
/// aborts on an identity `B^b_i`: its key would be a public value.
pub fn any_identity(points: &[Point]) -> bool {
    points.contains(&Point::identity())
}

/// `H(label, salt, enc(A), i, b, enc(2·r0_i), enc(2·r1_i), enc(2·dh_i))`
/// with SHA-256 truncated to 128 bits.
fn key(start: &Sha256, i: usize, b: bool, encs: [&[u8; 32]; 3]) -> Block {
    let mut h = start.clone();
    h.update((i as u64).to_le_bytes());
    h.update([u8::from(b)]);
    for e in encs {
        h.update(e);
    }
    let digest = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    Block::from_bytes(out)
}

/// The key-hash prefix: label, salt and the sender's `A` (plain encoding).
fn key_prefix(salt: Block, big_a: Point) -> Sha256 {
    let mut h = prefix::<Sha256>(KEY_DOMAIN, salt);
    h.update(big_a.compress().as_bytes());
    h
}

/// The MR19 sender's two keys per OT: `out[i][b] = H(label, salt, A, i, b,
/// r0_i, r1_i, dh_b[i])` where `dh_b[i] = a·B^b_i`, given as its encoding
/// `enc(2·a·B^b_i)` ([`mul_doubled_encodings`], which multiplies and
/// encodes a whole batch at once). Hashing the transcript (`salt`, `A`,
/// both of the receiver's points) and the branch bit `b` binds each key to
/// its session, its OT and its side, so no two keys of a run can coincide
/// even when a cheating receiver repeats points. The receiver's points of
/// the batch are encoded with one shared inversion. The batch is as long
/// as the shortest input (the generated code passes equal lengths).
///
/// [`mul_doubled_encodings`]: crate::primitives::ec_batch::mul_doubled_encodings
pub fn key_pairs(
    salt: Block,
    big_a: Point,
    r0: &[Point],
    r1: &[Point],
    dh0: &DoubledEncodings,
    dh1: &DoubledEncodings,
) -> Vec<[Block; 2]> {
    let n = r0.len().min(r1.len()).min(dh0.len()).min(dh1.len());
    let (r0, r1) = (&r0[..n], &r1[..n]);
    let encs = encode_batch(r0.iter().chain(r1));
    let (e_r0, e_r1) = encs.split_at(n);
    let start = key_prefix(salt, big_a);
    (0..n)
        .map(|i| {
            let side = |b: bool, dh: &DoubledEncodings| {
                let dh = dh.get(i).map_or([0; 32], |e| *e);
                key(&start, i, b, [e_r0[i].as_bytes(), e_r1[i].as_bytes(), &dh])
            };
            [side(false, dh0), side(true, dh1)]
        })
        .collect()
}

/// The MR19 receiver's key per OT: `out[i] = H(label, salt, A, i, c_i, r0_i,
/// r1_i, dh[i])` with `dh[i] = b_i·A = a·B_i`, given as its encoding
/// `enc(2·b_i·A)` ([`mul_each_doubled_encodings`]), equal to the sender's
/// key of side `c_i`. The secret choice bit only enters the hash input as
/// one byte. The batch is as long as the shortest input (the generated
/// code passes equal lengths).
///
/// [`mul_each_doubled_encodings`]: crate::primitives::ec_batch::mul_each_doubled_encodings
pub fn keys(
    salt: Block,
    big_a: Point,
    choices: &Bits,
    r0: &[Point],
    r1: &[Point],
    dh: &DoubledEncodings,
) -> Vec<Block> {
    let n = choices.len().min(r0.len()).min(r1.len()).min(dh.len());
    let (r0, r1) = (&r0[..n], &r1[..n]);
    let encs = encode_batch(r0.iter().chain(r1));
    let (e_r0, e_r1) = encs.split_at(n);
    let start = key_prefix(salt, big_a);
    choices
        .iter()
        .take(n)
        .enumerate()
        .map(|(i, c)| {
            let dh = dh.get(i).map_or([0; 32], |e| *e);
            key(&start, i, c, [e_r0[i].as_bytes(), e_r1[i].as_bytes(), &dh])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::ec::{base_mul, random_point, random_scalar};
    use crate::primitives::ec_batch::{mul_doubled_encodings, mul_each_doubled_encodings};
    use crate::primitives::rng::Rng;

    fn rng() -> Rng {
        Rng::deterministic_for_tests(706)
    }

    #[test]
    fn batch_hash_to_group_matches_entrywise_and_offsets() {
        let mut rng = rng();
        let pts: Vec<Point> = (0..9).map(|_| random_point(&mut rng)).collect();
        let salt = Block::from_u64(5);
        let whole = hash_to_group(salt, 0, true, &pts);
        // Split into parts with offsets: same values.
        let mut parts = hash_to_group(salt, 0, true, &pts[..4]);
        parts.extend(hash_to_group(salt, 4, true, &pts[4..]));
        assert_eq!(whole, parts);
        // Per-entry slots agree with the fixed-slot form.
        assert_eq!(hash_to_group_slots(salt, 0, &[true; 9], &pts), whole);
        // The slot, the index, the salt and the point all change the output.
        let other_slot = hash_to_group(salt, 0, false, &pts);
        let other_salt = hash_to_group(Block::from_u64(6), 0, true, &pts);
        let shifted = hash_to_group(salt, 1, true, &pts);
        for j in 0..pts.len() {
            assert_ne!(whole[j], other_slot[j]);
            assert_ne!(whole[j], other_salt[j]);
            assert_ne!(whole[j], shifted[j]);
            assert!(!any_identity(&[whole[j]]));
        }
        assert_ne!(whole[0], whole[1]);
        assert!(hash_to_group(salt, 0, true, &[]).is_empty());
        assert!(hash_to_group_slots(salt, 0, &[true], &pts).len() == 1);
    }

    #[test]
    fn any_identity_finds_the_identity() {
        let mut rng = rng();
        let mut pts: Vec<Point> = (0..5).map(|_| random_point(&mut rng)).collect();
        assert!(!any_identity(&pts));
        assert!(!any_identity(&[]));
        pts[3] = Point::identity();
        assert!(any_identity(&pts));
    }

    #[test]
    fn receiver_key_equals_sender_key_of_its_choice() {
        let mut rng = rng();
        let n = 7;
        let a = random_scalar(&mut rng);
        let big_a = base_mul(a);
        let salt = Block::from_u64(9);
        let r0: Vec<Point> = (0..n).map(|_| random_point(&mut rng)).collect();
        let r1: Vec<Point> = (0..n).map(|_| random_point(&mut rng)).collect();
        let bs: Vec<_> = (0..n).map(|_| random_scalar(&mut rng)).collect();
        let choices = Bits::random(&mut rng, n);
        // The receiver's DH value b·A equals a·B for B = b·G on its side;
        // the other side gets an unrelated point.
        // The sender multiplies B^0_i and B^1_i by a on the batched path.
        let dh_c = mul_each_doubled_encodings(&bs, big_a);
        let other: Vec<Point> = (0..n).map(|_| random_point(&mut rng)).collect();
        let (big_b0, big_b1): (Vec<Point>, Vec<Point>) = (0..n)
            .map(|i| {
                if choices.get(i) {
                    (other[i], base_mul(bs[i]))
                } else {
                    (base_mul(bs[i]), other[i])
                }
            })
            .unzip();
        let dh0 = mul_doubled_encodings(a, &big_b0);
        let dh1 = mul_doubled_encodings(a, &big_b1);
        let pairs = key_pairs(salt, big_a, &r0, &r1, &dh0, &dh1);
        let got = keys(salt, big_a, &choices, &r0, &r1, &dh_c);
        for i in 0..n {
            let c = usize::from(choices.get(i));
            assert_eq!(got[i], pairs[i][c]);
            assert_ne!(got[i], pairs[i][1 - c]);
        }
        // Same DH value on both sides still gives two different keys (the
        // branch bit is hashed), and different indices differ.
        let same = key_pairs(salt, big_a, &r0, &r1, &dh0, &dh0);
        assert_ne!(same[0][0], same[0][1]);
        assert_ne!(same[0][0], same[1][0]);
        let none = DoubledEncodings::default();
        assert!(key_pairs(salt, big_a, &[], &[], &none, &none).is_empty());
    }
}
