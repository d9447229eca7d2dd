//! Randomness: [`Rng`], the CSPRNG every protocol party draws from, and the
//! [`Sample`] trait the generated protocol code uses for `sample x: T`.
//!
//! # Getting an `Rng`
//!
//! * [`Rng::from_entropy`] / [`Rng::try_from_entropy`]: a fresh generator
//!   keyed with 32 bytes from the operating system. Use one per application
//!   (or per thread) as the root of all randomness.
//! * [`Rng::fork`]: a child generator for one protocol run (or sub-protocol),
//!   derived from its parent. Every run gets its own stream this way; two
//!   runs never share one.
//! * [`Rng::deterministic_for_tests`]: a reproducible generator from a small
//!   integer. **Insecure**: for tests and benchmarks only.
//!
//! There is deliberately no `Clone`, no `rand_core::SeedableRng` and no
//! constructor from a caller-chosen key: copying or re-seeding a generator
//! would let two protocol runs consume the same randomness, which breaks the
//! security of every OT built on it (e.g. equal ephemeral scalars in two
//! base-OT runs reveal the receiver's choices). A generated role takes its
//! `Rng` by value, so a stream handed to one run cannot be handed to another.
//!
//! # Stream definition
//!
//! The state is an AES-256 key `k` (32 bytes) and two counters. Every AES
//! input is a 128-bit integer encoded little-endian; its top bit (bit 127)
//! is a domain tag:
//!
//! * output stream (tag 0): block `i = 0, 1, 2, ...` of the output is
//!   `AES-256_k(i)`. `fill_bytes`, `next_u32`, `next_u64`,
//!   [`Rng::fill_blocks`] and [`Rng::next_block`] all consume this one byte
//!   stream in call order (a `u32`/`u64` is read little-endian; blocks are
//!   written as [`Block::slice_as_bytes_mut`] views them), so the split of
//!   requests into calls does not change the bytes delivered.
//! * fork keys (tag 1): the key of the `j`-th child (`j = 0, 1, ...`) is
//!   `AES-256_k(2^127 + 2j) || AES-256_k(2^127 + 2j + 1)`.
//!
//! The two ranges never overlap, so a child's key is never a value the
//! parent hands out (domain separation), forking does not shift the
//! parent's output stream, and distinct children get distinct keys (AES is
//! a permutation). Under the PRF assumption on AES-256 the parent's output
//! and all child keys are independent uniform strings. The counters cover
//! `2^127` output blocks and `2^126` forks, far beyond any run.
//!
//! # Why AES-256-CTR
//!
//! The `aes` crate is already the toolkit's block cipher (AES-NI when the
//! CPU has it, a constant-time bitsliced implementation otherwise) and wipes
//! its key schedules on drop; a 256-bit key gives the generator a 256-bit
//! seed without a second primitive or dependency.

use crate::Block;
use aes::cipher::consts::U16;
use aes::cipher::inout::InOutBuf;
use aes::cipher::{BlockEncrypt, KeyInit};
use aes::Aes256Enc;
use rand_core::{CryptoRng, RngCore};
use zeroize::{Zeroize, Zeroizing};

/// Bytes of keystream buffered for small requests (32 AES blocks, so one
/// refill runs the cipher's 8-block pipeline four times).
const BUF_BYTES: usize = 32 * 16;
/// Blocks encrypted per pass of a bulk request: counters are written and
/// encrypted while the chunk is still in L1 cache.
const CHUNK_BYTES: usize = 256 * 16;
/// Domain tag of fork-key counters (bit 127 of the AES input).
const FORK_TAG: u128 = 1 << 127;
/// Output-stream counters stay below the fork range.
const OUTPUT_MASK: u128 = FORK_TAG - 1;
/// Fork indices `j` stay below `2^126` so that `2j + 1 < 2^127`.
const FORK_MASK: u128 = (1 << 126) - 1;
/// Label hashed with the seed of [`Rng::deterministic_for_tests`].
const TEST_LABEL: &[u8] = b"ot-runtime Rng::deterministic_for_tests v1";

/// Cryptographically secure RNG: AES-256 in counter mode with a 256-bit key
/// and a buffered keystream (see the [module docs](self) for the exact
/// stream and the fork derivation).
///
/// Not `Clone` and not re-seedable, so a stream cannot be duplicated; use
/// [`Rng::fork`] to give each protocol run its own generator. The state
/// (key schedule, counters, buffered keystream) lives in one heap
/// allocation, so moving an `Rng` (generated roles move theirs at every
/// step) copies a pointer rather than key material, and it is wiped when the
/// `Rng` is dropped.
pub struct Rng {
    st: Box<State>,
}

/// The secret state of an [`Rng`].
struct State {
    /// AES-256 encryption key schedule; the `aes` crate's `zeroize` feature
    /// wipes it on drop.
    aes: Aes256Enc,
    /// Index of the next output-stream block not yet encrypted.
    next: u128,
    /// Index of the next fork.
    forks: u128,
    /// Keystream blocks `next - 32 .. next` (once the first refill ran).
    buf: [u8; BUF_BYTES],
    /// Bytes of `buf` already consumed (`BUF_BYTES` = empty).
    pos: usize,
}

impl Drop for State {
    fn drop(&mut self) {
        // `aes` wipes itself when it is dropped right after this.
        self.buf.zeroize();
        self.next.zeroize();
        self.forks.zeroize();
        self.pos.zeroize();
    }
}

impl State {
    /// Copies buffered keystream into the front of `dest`; returns the
    /// number of bytes copied.
    fn take_buffered(&mut self, dest: &mut [u8]) -> usize {
        let k = (BUF_BYTES - self.pos).min(dest.len());
        dest[..k].copy_from_slice(&self.buf[self.pos..self.pos + k]);
        self.pos += k;
        k
    }

    /// Refills the buffer with the next 32 output blocks.
    fn refill(&mut self) {
        keystream(&self.aes, &mut self.next, &mut self.buf);
        self.pos = 0;
    }
}

/// Writes the next `out.len() / 16` output-stream blocks of `aes`, starting
/// at counter `*next`, into `out` (whose length is a multiple of 16), and
/// advances `*next`.
fn keystream(aes: &Aes256Enc, next: &mut u128, out: &mut [u8]) {
    debug_assert!(out.len().is_multiple_of(16));
    for chunk in out.chunks_mut(CHUNK_BYTES) {
        let lo = *next as u64;
        let hi = ((*next >> 64) as u64).to_le_bytes();
        let n = (chunk.len() / 16) as u64;
        if lo.checked_add(n).is_some() {
            // Common case: no carry into the high half within the chunk.
            for (k, b) in chunk.chunks_exact_mut(16).enumerate() {
                b[..8].copy_from_slice(&lo.wrapping_add(k as u64).to_le_bytes());
                b[8..].copy_from_slice(&hi);
            }
            *next = next.wrapping_add(u128::from(n)) & OUTPUT_MASK;
        } else {
            for b in chunk.chunks_exact_mut(16) {
                b.copy_from_slice(&next.to_le_bytes());
                *next = next.wrapping_add(1) & OUTPUT_MASK;
            }
        }
        let (blocks, _) = InOutBuf::from(chunk).into_chunks::<U16>();
        aes.encrypt_blocks_inout(blocks);
    }
}

impl core::fmt::Debug for Rng {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Never print the key or buffered output.
        f.write_str("Rng(..)")
    }
}

impl Rng {
    /// A generator keyed with 32 bytes from the operating system
    /// (`getrandom` via `rand_core::OsRng`): the root generator of an
    /// application.
    ///
    /// # Panics
    /// If the OS randomness source fails (nothing secure can be done without
    /// it); use [`Rng::try_from_entropy`] to handle that case.
    pub fn from_entropy() -> Rng {
        Self::try_from_entropy().expect("OS randomness source failed")
    }

    /// Like [`Rng::from_entropy`] but returns the OS error instead of
    /// panicking.
    pub fn try_from_entropy() -> Result<Rng, rand_core::Error> {
        let mut key = Zeroizing::new([0u8; 32]);
        rand_core::OsRng.try_fill_bytes(&mut key[..])?;
        Ok(Rng::from_key(&key))
    }

    /// A child generator for one protocol run (or one sub-protocol): keyed
    /// with 32 fresh bytes of this generator's fork range, see the
    /// [module docs](self).
    ///
    /// Children of one parent differ from each other and from the parent's
    /// continued output; forking does not change the parent's output
    /// stream. Forking a [`Rng::deterministic_for_tests`] generator gives
    /// reproducible children.
    pub fn fork(&mut self) -> Rng {
        let st = &mut *self.st;
        let j = st.forks;
        st.forks = j.wrapping_add(1) & FORK_MASK;
        let mut key = Zeroizing::new([0u8; 32]);
        key[..16].copy_from_slice(&(FORK_TAG | (j << 1)).to_le_bytes());
        key[16..].copy_from_slice(&(FORK_TAG | (j << 1) | 1).to_le_bytes());
        let (blocks, _) = InOutBuf::from(&mut key[..]).into_chunks::<U16>();
        st.aes.encrypt_blocks_inout(blocks);
        Rng::from_key(&key)
    }

    /// **Insecure**: a reproducible generator determined by the small
    /// integer `seed`, for tests and benchmarks only.
    ///
    /// Anyone who can guess `seed` (64 bits at most, usually a tiny
    /// constant) can predict every value it produces, so it must never key
    /// a real protocol run. The key is `SHA-256(label || seed)` (label
    /// `"ot-runtime Rng::deterministic_for_tests v1"`, `seed` as 8
    /// little-endian bytes), so the stream is stable across versions and
    /// platforms with the same label.
    pub fn deterministic_for_tests(seed: u64) -> Rng {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        h.update(TEST_LABEL);
        h.update(seed.to_le_bytes());
        let mut key = Zeroizing::new([0u8; 32]);
        key.copy_from_slice(&h.finalize());
        Rng::from_key(&key)
    }

    /// The generator with AES-256 key `key`, at the start of its stream.
    fn from_key(key: &[u8; 32]) -> Rng {
        Rng {
            st: Box::new(State {
                aes: Aes256Enc::new(key.into()),
                next: 0,
                forks: 0,
                buf: [0; BUF_BYTES],
                pos: BUF_BYTES,
            }),
        }
    }

    /// Fills `out` with the next `16 * out.len()` stream bytes (the bytes
    /// [`Block::slice_as_bytes_mut`] of `out` views). Large requests are
    /// encrypted in place in `out`, many blocks per cipher call.
    pub fn fill_blocks(&mut self, out: &mut [Block]) {
        self.fill_bytes(Block::slice_as_bytes_mut(out));
    }

    /// The next block of the stream (16 bytes).
    pub fn next_block(&mut self) -> Block {
        let mut b = [Block::ZERO];
        self.fill_blocks(&mut b);
        b[0]
    }
}

impl RngCore for Rng {
    /// The next 4 stream bytes, little-endian.
    fn next_u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        self.fill_bytes(&mut b);
        u32::from_le_bytes(b)
    }

    /// The next 8 stream bytes, little-endian.
    fn next_u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        self.fill_bytes(&mut b);
        u64::from_le_bytes(b)
    }

    /// The next `dest.len()` stream bytes: first what the buffer holds, then
    /// (for requests of at least 512 bytes) whole blocks encrypted directly
    /// into `dest`, then a refilled buffer for the rest.
    fn fill_bytes(&mut self, dest: &mut [u8]) {
        let st = &mut *self.st;
        let n = st.take_buffered(dest);
        let rest = &mut dest[n..];
        if rest.is_empty() {
            return;
        }
        // The buffer is empty now: its blocks all precede `next`.
        let direct = if rest.len() >= BUF_BYTES {
            rest.len() - rest.len() % 16
        } else {
            0
        };
        let (bulk, tail) = rest.split_at_mut(direct);
        keystream(&st.aes, &mut st.next, bulk);
        if !tail.is_empty() {
            st.refill();
            st.take_buffered(tail);
        }
    }

    /// [`RngCore::fill_bytes`]; never fails.
    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

/// AES-256-CTR under a uniformly random key is a cryptographically secure
/// generator (for [`Rng::deterministic_for_tests`] the key is not secret).
impl CryptoRng for Rng {}

/// Dropping an `Rng` wipes its key schedule, counters and buffered output.
impl zeroize::ZeroizeOnDrop for Rng {}

/// Types that can be drawn uniformly at random (`sample x: T` in `.otp`).
pub trait Sample: Sized {
    /// A uniformly random value.
    fn sample<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Self;
}

impl Sample for Block {
    fn sample<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> Block {
        let mut b = [0u8; 16];
        rng.fill_bytes(&mut b);
        Block::from_bytes(b)
    }
}

impl Sample for bool {
    fn sample<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> bool {
        rng.next_u32() & 1 == 1
    }
}

impl Sample for u64 {
    fn sample<R: RngCore + CryptoRng + ?Sized>(rng: &mut R) -> u64 {
        rng.next_u64()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `AES-256_key(i)` for each counter `i`, one block at a time.
    fn model(key: &[u8; 32], counters: &[u128]) -> Vec<u8> {
        let aes = Aes256Enc::new(key.into());
        let mut out = Vec::new();
        for &i in counters {
            let mut b = aes::Block::from(i.to_le_bytes());
            aes.encrypt_block(&mut b);
            out.extend_from_slice(&b);
        }
        out
    }

    /// Counters far beyond any real run (the carry into the high half and
    /// the wrap below the fork range) follow the per-block definition.
    #[test]
    fn counter_carry_and_wrap() {
        let key = [7u8; 32];
        for start in [u128::from(u64::MAX) - 2, OUTPUT_MASK - 2] {
            let mut rng = Rng::from_key(&key);
            rng.st.next = start;
            let mut got = vec![0u8; 16 * 600];
            rng.fill_bytes(&mut got);
            let counters: Vec<u128> = (0..600u128)
                .map(|k| start.wrapping_add(k) & OUTPUT_MASK)
                .collect();
            assert!(counters.iter().all(|c| c & FORK_TAG == 0));
            assert_eq!(got, model(&key, &counters));
        }
    }

    /// The fork index wraps below `2^126`, so fork inputs stay tagged.
    #[test]
    fn fork_index_wraps() {
        let key = [9u8; 32];
        let mut rng = Rng::from_key(&key);
        rng.st.forks = FORK_MASK;
        let mut last = rng.fork();
        let mut first = rng.fork();
        assert_eq!(rng.st.forks, 1);
        let k_last = model(
            &key,
            &[FORK_TAG | (FORK_MASK << 1), FORK_TAG | (FORK_MASK << 1) | 1],
        );
        let k_first = model(&key, &[FORK_TAG, FORK_TAG | 1]);
        let mut a = [0u8; 32];
        last.fill_bytes(&mut a);
        assert_eq!(a.to_vec(), model(&k_last.try_into().unwrap(), &[0, 1]));
        first.fill_bytes(&mut a);
        assert_eq!(a.to_vec(), model(&k_first.try_into().unwrap(), &[0, 1]));
    }
}
