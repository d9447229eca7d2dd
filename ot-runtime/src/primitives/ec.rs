//! Ristretto group operations used as `.otp` intrinsics (base OT, Pedersen
//! commitments).
//!
//! The group is Ristretto255 from `curve25519-dalek`: a prime-order group,
//! so there are no cofactor pitfalls and every valid encoding is a group
//! element. Functions take and return small `Copy` values by value, which
//! is what the code generator emits for intrinsic calls.

use curve25519_dalek::traits::Identity;
use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};
use subtle::{Choice, ConditionallySelectable};

use crate::Block;

/// A Ristretto255 group element.
pub use curve25519_dalek::ristretto::RistrettoPoint as Point;
/// A scalar modulo the Ristretto255 group order.
pub use curve25519_dalek::scalar::Scalar;

/// `s * G` for the standard base point, using dalek's precomputed base point
/// table (about half the cost of a variable-base multiplication; see
/// `cargo run --release -p ot-runtime --example ec_speed`).
#[inline]
pub fn base_mul(s: Scalar) -> Point {
    Point::mul_base(&s)
}

/// `s * p` (variable base, constant time).
#[inline]
pub fn point_mul(p: Point, s: Scalar) -> Point {
    p * s
}

/// `a + b`.
#[inline]
pub fn point_add(a: Point, b: Point) -> Point {
    a + b
}

/// `a - b`.
#[inline]
pub fn point_sub(a: Point, b: Point) -> Point {
    a - b
}

/// Returns `if_true` if `bit` is set, else `if_false`, without a
/// data-dependent branch or memory access (the choice bit of an OT receiver
/// is secret).
#[inline]
pub fn point_select(bit: bool, if_false: Point, if_true: Point) -> Point {
    Point::conditional_select(&if_false, &if_true, Choice::from(u8::from(bit)))
}

/// Whether `p` is the group identity (constant-time comparison). Protocols
/// use it to reject degenerate points sent by a malicious peer.
#[inline]
pub fn is_identity(p: Point) -> bool {
    p == Point::identity()
}

/// A uniformly random scalar. This is what `sample Scalar` in a `.otp`
/// specification compiles to (`Sample` cannot be implemented for the foreign
/// `Scalar` type).
pub fn random_scalar<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Scalar {
    Scalar::random(&mut &mut *rng)
}

/// A uniformly random group element with unknown discrete logarithm. This
/// is what `sample Point` compiles to.
pub fn random_point<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Point {
    Point::random(&mut &mut *rng)
}

/// Domain label of [`hash_point`].
const HASH_POINT_DOMAIN: &[u8] = b"ot-runtime/ec/hash_point/v1";
/// Domain label of [`ro_point`].
const RO_POINT_DOMAIN: &[u8] = b"ot-runtime/ec/ro_point/v1";

/// Starts a SHA-256 hash with a length-prefixed domain label and the tweak.
fn domain_hasher(domain: &[u8], tweak: usize) -> Sha256 {
    let mut h = Sha256::new();
    h.update([domain.len() as u8]);
    h.update(domain);
    h.update((tweak as u64).to_le_bytes());
    h
}

/// Truncates a SHA-256 digest to a 128-bit block (first 16 bytes).
fn finish_block(h: Sha256) -> Block {
    let digest = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&digest[..16]);
    Block::from_bytes(out)
}

/// Random oracle `H(tweak, p)` to a 128-bit block: SHA-256 over a domain
/// label, the tweak as `u64` little-endian and the compressed point,
/// truncated to 16 bytes. Used to derive OT keys from Diffie–Hellman
/// values; the tweak (usually the OT index) makes each key independent.
pub fn hash_point(tweak: usize, p: Point) -> Block {
    let mut h = domain_hasher(HASH_POINT_DOMAIN, tweak);
    h.update(p.compress().as_bytes());
    finish_block(h)
}

/// Random oracle `H(tweak, a, b, c)` to a 128-bit block, domain-separated
/// from [`hash_point`]. Used where the key must be bound to the transcript
/// (e.g. CO15 hashes the sender's and receiver's points with the shared
/// value).
pub fn ro_point(tweak: usize, a: Point, b: Point, c: Point) -> Block {
    let mut h = domain_hasher(RO_POINT_DOMAIN, tweak);
    for p in [a, b, c] {
        h.update(p.compress().as_bytes());
    }
    finish_block(h)
}

/// A precomputed multiplication table for one point: `table_mul` is then
/// several times faster than [`point_mul`]. Worth it when one point is
/// multiplied by many scalars (the CO15 receiver computes `x_i * A` for every OT).
#[derive(Clone)]
pub struct PointTable(curve25519_dalek::ristretto::RistrettoBasepointTable);

impl std::fmt::Debug for PointTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PointTable(..)")
    }
}

/// Builds the table of `p`.
pub fn point_table(p: Point) -> PointTable {
    PointTable(curve25519_dalek::ristretto::RistrettoBasepointTable::create(&p))
}

/// `s * p` where `table = point_table(p)` (constant time).
pub fn table_mul(table: &PointTable, s: Scalar) -> Point {
    &s * &table.0
}

/// Domain label of [`hash_points`].
const HASH_POINTS_DOMAIN: &[u8] = b"ot-runtime/ec/hash_points/v1";

/// Random oracle over a batch: `out[i] = H(context, i, 2·points[i])`, with
/// SHA-256 truncated to 128 bits. The doubling lets all points be
/// compressed with one shared field inversion (dalek's
/// `double_and_compress_batch`), which makes hashing a batch of
/// Diffie–Hellman values several times cheaper than one compression each;
/// doubling is injective on the prime-order group, so nothing is lost.
/// `context` (compressed once) binds every key to the session, e.g. the
/// CO15 sender's `A`.
pub fn hash_points(context: Point, points: &[Point]) -> Vec<Block> {
    let ctx = context.compress();
    let mut prefix = Sha256::new();
    prefix.update([HASH_POINTS_DOMAIN.len() as u8]);
    prefix.update(HASH_POINTS_DOMAIN);
    prefix.update(ctx.as_bytes());
    Point::double_and_compress_batch(points)
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let mut h = prefix.clone();
            h.update((i as u64).to_le_bytes());
            h.update(c.as_bytes());
            finish_block(h)
        })
        .collect()
}

/// Domain label of the second Pedersen generator.
const PEDERSEN_H_DOMAIN: &[u8] = b"ot-runtime/ec/pedersen-h/v1";

/// The second Pedersen generator `H`, hashed to the group (nobody knows its
/// discrete log with respect to the base point).
fn pedersen_h() -> Point {
    static H: std::sync::OnceLock<Point> = std::sync::OnceLock::new();
    *H.get_or_init(|| Point::hash_from_bytes::<sha2::Sha512>(PEDERSEN_H_DOMAIN))
}

/// Pedersen commitment `v·G + r·H` to a 128-bit value `v` with opening `r`:
/// perfectly hiding for uniform `r`, binding under discrete log.
pub fn commit(value: Block, opening: Scalar) -> Point {
    base_mul(Scalar::from(value.as_u128())) + table_mul(pedersen_h_table(), opening)
}

/// The table of `H` (built once): `r·H` by table costs about what `r·G`
/// does, a third of a variable-base multiplication, which matters when
/// every party of an n-party coin flip verifies n openings.
fn pedersen_h_table() -> &'static PointTable {
    static T: std::sync::OnceLock<PointTable> = std::sync::OnceLock::new();
    T.get_or_init(|| point_table(pedersen_h()))
}

/// `a` followed by `b` (joins the halves of a batch that was sent in parts).
pub fn concat_points(a: &[Point], b: &[Point]) -> Vec<Point> {
    let mut v = Vec::with_capacity(a.len() + b.len());
    v.extend_from_slice(a);
    v.extend_from_slice(b);
    v
}

/// Domain label of the NP00 key derivation ([`np00_sender_keys`]).
const NP00_KEY_DOMAIN: &[u8] = b"ot-runtime/np00/key/v2";
/// Domain label of the CO15 key derivation ([`co15_sender_keys`]).
const CO15_KEY_DOMAIN: &[u8] = b"ot-runtime/co15/key/v2";

/// Hashes one base-OT key per `(i, branch)` pair: SHA-256 over a
/// length-prefixed `domain`, the session `salt`, the compressed `context`
/// points (the sender's public points), then per OT the compressed
/// `per_ot` points of OT `i` (the receiver's message), `i` as `u64` LE,
/// the branch bit and the Diffie–Hellman value, truncated to 128 bits.
///
/// All compressions go through one `double_and_compress_batch` (one field
/// inversion for the whole batch; doubling is injective on the prime-order
/// group). `dh[k]` is the value of OT `k % n` for branch `branches(k)`:
/// `n` per-OT rows of points and `dh.len()` keys in total.
fn base_ot_keys(
    domain: &[u8],
    salt: Block,
    context: &[Point],
    per_ot: &[&[Point]],
    dh: &[Point],
    branch: impl Fn(usize) -> bool,
) -> Vec<Block> {
    base_ot_keys_of(domain, salt, context, per_ot, Dh::Points(dh), branch)
}

/// The Diffie–Hellman values of [`base_ot_keys_of`]: points, or their
/// encodings `enc(2·P)` already made ([`crate::primitives::ec_batch`]).
enum Dh<'a> {
    Points(&'a [Point]),
    Encoded(Vec<&'a [u8; 32]>),
}

/// [`base_ot_keys`] with the Diffie–Hellman values as points or as
/// their encodings (the same bytes the points would be encoded to).
fn base_ot_keys_of(
    domain: &[u8],
    salt: Block,
    context: &[Point],
    per_ot: &[&[Point]],
    dh: Dh<'_>,
    branch: impl Fn(usize) -> bool,
) -> Vec<Block> {
    let n = per_ot.first().map_or(0, |p| p.len());
    let n = per_ot.iter().map(|p| p.len()).fold(n, usize::min);
    let mut all = Vec::with_capacity(context.len() + per_ot.len() * n);
    all.extend_from_slice(context);
    for p in per_ot {
        all.extend_from_slice(&p[..n]);
    }
    if let Dh::Points(points) = &dh {
        all.extend_from_slice(points);
    }
    let comp = Point::double_and_compress_batch(&all);
    let (ctx, rest) = comp.split_at(context.len());
    let (rows, dhc) = rest.split_at(per_ot.len() * n);
    let dhc: Vec<&[u8; 32]> = match dh {
        Dh::Points(_) => dhc.iter().map(|c| c.as_bytes()).collect(),
        Dh::Encoded(encs) => encs,
    };
    let mut prefix = Sha256::new();
    prefix.update([domain.len() as u8]);
    prefix.update(domain);
    prefix.update(salt.to_bytes());
    for c in ctx {
        prefix.update(c.as_bytes());
    }
    if n == 0 {
        return Vec::new();
    }
    dhc.iter()
        .enumerate()
        .map(|(k, d)| {
            let i = k % n;
            let mut h = prefix.clone();
            for r in 0..per_ot.len() {
                h.update(rows[r * n + i].as_bytes());
            }
            h.update((i as u64).to_le_bytes());
            h.update([u8::from(branch(k))]);
            h.update(d);
            finish_block(h)
        })
        .collect()
}

/// Pairs up `[k_0 for every OT] ++ [k_1 for every OT]` as `[k_0, k_1]` per OT.
fn pair_keys(keys: Vec<Block>, n: usize) -> Vec<[Block; 2]> {
    let (k0, k1) = keys.split_at(n.min(keys.len()));
    k0.iter().zip(k1).map(|(&a, &b)| [a, b]).collect()
}

/// The NP00 sender's keys [NP01, §3.1]: `k_b = H(salt, C, R, PK_0,i,
/// PK_1,i, i, b, PK_b,i^r)` for `b` in {0, 1}, with `PK_1,i = C − PK_0,i`,
/// `dh0[i] = r·PK_0,i` and `dh1[i] = r·PK_1,i`. Hashing the branch bit and
/// both public keys keeps the two keys independent even if a malicious
/// receiver makes `PK_0,i = PK_1,i` (by sending `PK_0 = C / 2`), and the
/// salt binds the keys to this session.
pub fn np00_sender_keys(
    salt: Block,
    big_c: Point,
    big_r: Point,
    pk0: &[Point],
    dh0: &[Point],
    dh1: &[Point],
) -> Vec<[Block; 2]> {
    let n = pk0.len().min(dh0.len()).min(dh1.len());
    let pk1: Vec<Point> = pk0[..n].iter().map(|&p| big_c - p).collect();
    let dh: Vec<Point> = dh0[..n].iter().chain(&dh1[..n]).copied().collect();
    let keys = base_ot_keys(
        NP00_KEY_DOMAIN,
        salt,
        &[big_c, big_r],
        &[&pk0[..n], &pk1],
        &dh,
        |k| k >= n,
    );
    pair_keys(keys, n)
}

/// The NP00 receiver's key of its choice, the same hash as
/// [`np00_sender_keys`] with `b = choices[i]` and `dh[i] = k_i·R`.
pub fn np00_receiver_keys(
    salt: Block,
    big_c: Point,
    big_r: Point,
    pk0: &[Point],
    dh: &[Point],
    choices: &crate::Bits,
) -> Vec<Block> {
    let n = pk0.len().min(dh.len());
    let pk1: Vec<Point> = pk0[..n].iter().map(|&p| big_c - p).collect();
    base_ot_keys(
        NP00_KEY_DOMAIN,
        salt,
        &[big_c, big_r],
        &[&pk0[..n], &pk1],
        &dh[..n],
        |i| choices.try_get(i).unwrap_or(false),
    )
}

/// The CO15 sender's keys [CO15, Fig. 1]: `k_b = H(salt, A, B_i, i, b,
/// dh_b[i])` with `dh0[i] = a·B_i` and `dh1[i] = a·(B_i − A)`: the hash
/// binds the session, both parties' points, the index and the branch bit.
/// `dh` holds the two values' encodings per OT, interleaved, as
/// [`mul_doubled_encoding_pairs`](crate::primitives::ec_batch::mul_doubled_encoding_pairs)`(a,
/// B, A)` makes them (one multiplication per OT).
pub fn co15_sender_keys(
    salt: Block,
    big_a: Point,
    big_b: &[Point],
    dh: &crate::primitives::ec_batch::DoubledEncodings,
) -> Vec<[Block; 2]> {
    let n = big_b.len().min(dh.len() / 2);
    let encs: Option<Vec<&[u8; 32]>> = (0..2)
        .flat_map(|b| (0..n).map(move |i| dh.get(2 * i + b)))
        .collect();
    let encs = encs.unwrap_or_default();
    let keys = base_ot_keys_of(
        CO15_KEY_DOMAIN,
        salt,
        &[big_a],
        &[&big_b[..n]],
        Dh::Encoded(encs),
        |k| k >= n,
    );
    pair_keys(keys, n)
}

/// The CO15 receiver's key of its choice: [`co15_sender_keys`]'s hash with
/// `b = choices[i]` and `dh[i] = x_i·A`, given as its encoding `enc(2·x_i·A)`
/// ([`mul_each_doubled_encodings`](crate::primitives::ec_batch::mul_each_doubled_encodings)).
pub fn co15_receiver_keys(
    salt: Block,
    big_a: Point,
    big_b: &[Point],
    dh: &crate::primitives::ec_batch::DoubledEncodings,
    choices: &crate::Bits,
) -> Vec<Block> {
    let n = big_b.len().min(dh.len());
    let encs: Option<Vec<&[u8; 32]>> = (0..n).map(|i| dh.get(i)).collect();
    base_ot_keys_of(
        CO15_KEY_DOMAIN,
        salt,
        &[big_a],
        &[&big_b[..n]],
        Dh::Encoded(encs.unwrap_or_default()),
        |i| choices.try_get(i).unwrap_or(false),
    )
}

/// The group element `p / 2` (`p · 2^{-1}`): what a malicious NP00 receiver
/// sends as `PK_0 = C / 2` to make `PK_1 = C − PK_0 = PK_0`. Exposed for the
/// tests that reproduce that attack.
pub fn halve(p: Point) -> Point {
    p * Scalar::from(2u8).invert()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_by_table_matches_the_definition() {
        for k in 1..20u64 {
            let v = Block::from_u64s(k.wrapping_mul(0x9e37_79b9_7f4a_7c15), k);
            let r = Scalar::from(k * 1_000_003);
            let want = base_mul(Scalar::from(v.as_u128())) + pedersen_h() * r;
            assert_eq!(commit(v, r), want);
        }
    }
}
