//! Fixed-size wire encodings of Paillier values for `.otp` message fields.
//!
//! A message field needs a [`Wire`] type whose size is known at compile
//! time, but a Paillier ciphertext's length depends on the key. The Orlandi
//! preprocessing (`protocols/orlandi_triple.otp`) therefore fixes the
//! modulus size per protocol: 3072 bits, the RSA/factoring size that NIST
//! SP 800-57 Part 1 (Rev. 5, Table 2) rates at 128-bit security, matching
//! Ristretto255's ~128-bit discrete-log security (2048 bits would be rated
//! 112 bits). Aliases for 2048 bits exist so that a protocol can switch with
//! a one-line change of its `extern type` lines.
//!
//! Every value travels as an unsigned little-endian integer of exactly `N`
//! bytes ([`WireUint`]). [`Wire::read`] only checks the length; whether the
//! bytes are a valid ciphertext (a unit modulo `n²` of the sender's key), a
//! well-formed key, or a mask in range is checked by intrinsics the `.otp`
//! calls in `check` lines, so that a malformed value is a named abort of
//! the protocol rather than a decoding error without context.

// The call sites are written for both big-integer backends: GMP's
// (feature `gmp`) arithmetic on references yields incomplete values that
// `Integer::from` completes, the pure-Rust backend's yields an `Integer`.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use crate::primitives::bignum::Order;

use crate::orlandi::paillier::{Ciphertext, Integer, PublicKey};
use crate::transport::wire::{Wire, WireError};

/// An unsigned integer encoded as exactly `N` little-endian bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireUint<const N: usize>(Vec<u8>);

impl<const N: usize> Default for WireUint<N> {
    fn default() -> Self {
        WireUint(vec![0; N])
    }
}

impl<const N: usize> WireUint<N> {
    /// The encoding of `v`, or `None` if `v` is negative or needs more than
    /// `N` bytes.
    pub fn from_integer(v: &Integer) -> Option<Self> {
        if *v < 0 || v.significant_digits::<u8>() > N {
            return None;
        }
        let mut out = vec![0u8; N];
        v.write_digits(&mut out, Order::Lsf);
        Some(WireUint(out))
    }

    /// The encoding of `v`, zero if it does not fit (callers encode values
    /// whose size they bounded).
    pub fn from_integer_or_zero(v: &Integer) -> Self {
        Self::from_integer(v).unwrap_or_default()
    }

    /// The encoded integer.
    pub fn to_integer(&self) -> Integer {
        Integer::from_digits(&self.0, Order::Lsf)
    }

    /// The raw bytes (exactly `N`).
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// Mutable raw bytes (tests tamper with encoded values).
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        &mut self.0
    }
}

impl<const N: usize> Wire for WireUint<N> {
    const SIZE: usize = N;

    fn write(&self, out: &mut [u8]) {
        out.copy_from_slice(&self.0);
    }

    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        crate::transport::wire::exact_bytes(bytes, N).map(WireUint)
    }
}

/// Bytes of `n` for a 3072-bit modulus.
pub const N3072_BYTES: usize = 384;

/// A ciphertext under a 3072-bit key (an element of `Z*_{n²}`, 768 bytes).
pub type Ciphertext3072 = WireUint<{ 2 * N3072_BYTES }>;
/// A short DJN randomizer of a 3072-bit key (`⌈3072/2⌉` bits, 192 bytes).
pub type Nonce3072 = WireUint<{ N3072_BYTES / 2 }>;
/// A ciphertext under a 2048-bit key (512 bytes).
pub type Ciphertext2048 = WireUint<512>;
/// A short DJN randomizer of a 2048-bit key (128 bytes).
pub type Nonce2048 = WireUint<128>;
/// A Triple Generation mask `d ∈ [0, 2^808)` (101 bytes used of 104, see
/// `crate::orlandi::triple::MASK_BITS`).
pub type Mask = WireUint<104>;
/// Long randomizers of up to 3200 bits (the joined fresh randomizers of a
/// `γ`: `k + 80` bits each, two for a 1024-bit key, see
/// [`PublicKey::long_randomizer_bits`]).
pub type LongNonce = WireUint<400>;

/// A Paillier public key `(n, h)` of a fixed modulus size: `NB` bytes of
/// `n`, then `NB` bytes of the root `h` of `h_s = h^n mod n²` (both
/// little-endian; the receiver computes `h_s`, so it is an `n`-th power by
/// construction, see [`PublicKey::from_root`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WirePublicKey<const NB: usize> {
    n: WireUint<NB>,
    h: WireUint<NB>,
}

impl<const NB: usize> Default for WirePublicKey<NB> {
    fn default() -> Self {
        WirePublicKey {
            n: WireUint::default(),
            h: WireUint::default(),
        }
    }
}

impl<const NB: usize> WirePublicKey<NB> {
    /// The encoding of `pk` (all zero if its modulus needs more than `NB`
    /// bytes; a shorter modulus is zero-padded and only
    /// [`Self::decode_sized`] accepts it).
    pub fn encode(pk: &PublicKey) -> Self {
        match (
            WireUint::from_integer(pk.n()),
            WireUint::from_integer(pk.h()),
        ) {
            (Some(n), Some(h)) => WirePublicKey { n, h },
            _ => Self::default(),
        }
    }

    /// The key, if it is well formed: `n` odd with exactly `8·NB` bits and
    /// `h` a unit modulo `n` other than 1 (see [`PublicKey::from_root`]).
    /// This cannot show that `n` is a product of two primes: the key's
    /// owner proves that separately ([`crate::orlandi::paillier::blum`]).
    pub fn decode(&self) -> Option<PublicKey> {
        self.decode_sized(&[8 * NB as u32])
    }

    /// Like [`Self::decode`], for a key whose modulus has one of the bit
    /// lengths `allowed` (each at most `8·NB`): a field of this type then
    /// carries keys of several sizes, zero-padded to its capacity.
    pub fn decode_sized(&self, allowed: &[u32]) -> Option<PublicKey> {
        let n = self.n.to_integer();
        let bits = n.significant_bits();
        if !allowed.contains(&bits) || bits as usize > 8 * NB {
            return None;
        }
        PublicKey::from_root(n, self.h.to_integer()).ok()
    }
}

impl<const NB: usize> Wire for WirePublicKey<NB> {
    const SIZE: usize = 2 * NB;

    fn write(&self, out: &mut [u8]) {
        out[..NB].copy_from_slice(self.n.as_bytes());
        out[NB..].copy_from_slice(self.h.as_bytes());
    }

    fn read(bytes: &[u8]) -> Result<Self, WireError> {
        if bytes.len() != 2 * NB {
            return Err(WireError::Length {
                expected: 2 * NB,
                got: bytes.len(),
            });
        }
        Ok(WirePublicKey {
            n: WireUint::read(&bytes[..NB])?,
            h: WireUint::read(&bytes[NB..])?,
        })
    }
}

/// A 3072-bit public key on the wire (768 bytes).
pub type PublicKey3072 = WirePublicKey<N3072_BYTES>;
/// A 2048-bit public key on the wire (512 bytes).
pub type PublicKey2048 = WirePublicKey<256>;

/// The ciphertext encoded in `w` under `pk`, if it is one: the value must
/// be a unit modulo `n²` ([`PublicKey::ciphertext`]).
pub fn ciphertext<const N: usize>(pk: &PublicKey, w: &WireUint<N>) -> Option<Ciphertext> {
    if N != pk.ciphertext_len() {
        return None;
    }
    pk.ciphertext(w.to_integer()).ok()
}

/// Like [`ciphertext`], for a field of capacity `N` bytes that carries
/// ciphertexts of keys up to that size, zero-padded: the value must be a
/// unit modulo `n²` of `pk` (so below `n²`).
pub fn ciphertext_padded<const N: usize>(pk: &PublicKey, w: &WireUint<N>) -> Option<Ciphertext> {
    if N < pk.ciphertext_len() {
        return None;
    }
    pk.ciphertext(w.to_integer()).ok()
}

/// The encoding of a ciphertext (zero if it does not fit `N` bytes, which
/// fails [`ciphertext`]).
pub fn encode_ciphertext<const N: usize>(c: &Ciphertext) -> WireUint<N> {
    WireUint::from_integer_or_zero(c.as_integer())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orlandi::paillier::{KeySize, SecretKey};
    use crate::primitives::rng::Rng;

    #[test]
    fn keys_and_ciphertexts_round_trip_and_malformed_ones_are_refused() {
        let mut rng = Rng::deterministic_for_tests(31);
        let sk = SecretKey::generate(KeySize::Bits1024, &mut rng);
        let pk = sk.public();
        let w = WirePublicKey::<128>::encode(pk);
        let mut buf = vec![0u8; WirePublicKey::<128>::SIZE];
        w.write(&mut buf);
        let back = WirePublicKey::<128>::read(&buf)
            .expect("read")
            .decode()
            .expect("key");
        assert_eq!((back.n(), back.h_s()), (pk.n(), pk.h_s()));
        // In a field of larger capacity the key is zero-padded: only a
        // decoder that allows its size accepts it; a larger key does not
        // fit a smaller field.
        let wide = WirePublicKey::<256>::encode(pk);
        assert!(wide.decode().is_none());
        assert!(wide.decode_sized(&[2048]).is_none());
        let back = wide.decode_sized(&[1024, 2048]).expect("key");
        assert_eq!((back.n(), back.h_s()), (pk.n(), pk.h_s()));
        let big = SecretKey::generate(KeySize::Bits2048, &mut rng);
        assert!(WirePublicKey::<128>::encode(big.public())
            .decode()
            .is_none());
        // h = 1 and an even n are refused.
        let mut bad = buf.clone();
        bad[128..].fill(0);
        bad[128] = 1;
        assert!(WirePublicKey::<128>::read(&bad)
            .expect("read")
            .decode()
            .is_none());
        let mut even = buf.clone();
        even[0] &= 0xfe;
        assert!(WirePublicKey::<128>::read(&even)
            .expect("read")
            .decode()
            .is_none());
        // Ciphertexts: a real one passes, zero and n (not units) do not.
        let (c, _) = pk.encrypt(&Integer::from(5u32), &mut rng).expect("enc");
        let wc: WireUint<256> = encode_ciphertext(&c);
        assert_eq!(ciphertext(pk, &wc), Some(c.clone()));
        assert!(ciphertext(pk, &WireUint::<256>::default()).is_none());
        let n_as_ct = WireUint::<256>::from_integer(pk.n()).expect("fits");
        assert!(ciphertext(pk, &n_as_ct).is_none());
        // A ciphertext of the wrong size for the key.
        assert!(ciphertext(pk, &WireUint::<255>::default()).is_none());
        // Zero-padded in a larger field: only the padded decoder takes it,
        // and it still refuses values that are not units below n².
        let padded: WireUint<512> = encode_ciphertext(&c);
        assert!(ciphertext(pk, &padded).is_none());
        assert_eq!(ciphertext_padded(pk, &padded), Some(c));
        assert!(ciphertext_padded(pk, &WireUint::<255>::default()).is_none());
        let n2 = WireUint::<512>::from_integer(&Integer::from(pk.n() * pk.n())).expect("fits");
        assert!(ciphertext_padded(pk, &n2).is_none());
    }

    #[test]
    fn uint_round_trips_and_refuses_what_does_not_fit() {
        let v = Integer::from(0x1234_5678u32);
        let w = WireUint::<8>::from_integer(&v).expect("fits");
        let mut buf = [0u8; 8];
        w.write(&mut buf);
        assert_eq!(WireUint::<8>::read(&buf).expect("read").to_integer(), v);
        assert!(WireUint::<2>::from_integer(&v).is_none());
        assert!(WireUint::<8>::from_integer(&Integer::from(-1)).is_none());
        assert!(matches!(
            WireUint::<8>::read(&buf[..7]),
            Err(WireError::Length {
                expected: 8,
                got: 7
            })
        ));
    }
}
