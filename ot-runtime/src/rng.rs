//! Randomness: [`Rng`], an AES-CTR CSPRNG seeded from the OS (or from a
//! block, for reproducible tests), and the [`Sample`] trait the generated
//! protocol code uses for `sample x: T`.

use crate::prg::Prg;
use crate::Block;
use rand_core::{CryptoRng, RngCore, SeedableRng};

const BUF: usize = 16;

/// Cryptographically secure RNG: AES-128-CTR keyed with a 128-bit seed.
///
/// Its output is the byte stream of [`Prg`] for the seed; every method
/// (`fill_bytes`, `next_u64`, [`Rng::fill_blocks`], ...) consumes that
/// stream in order, so two `Rng`s with the same seed and the same calls give
/// the same values. Bulk block requests bypass the internal buffer.
#[derive(Clone)]
pub struct Rng {
    prg: Prg,
    buf: [Block; BUF],
    /// Bytes of `buf` already consumed (`BUF * 16` = empty).
    pos: usize,
}

impl core::fmt::Debug for Rng {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Rng(..)")
    }
}

impl Rng {
    /// A generator seeded with 128 bits from the operating system
    /// (`getrandom` via `rand_core::OsRng`).
    ///
    /// # Panics
    /// If the OS randomness source fails (unrecoverable for a crypto library).
    pub fn from_entropy() -> Rng {
        Self::try_from_entropy().expect("OS randomness source failed")
    }

    /// Like [`Rng::from_entropy`] but returns the OS error.
    pub fn try_from_entropy() -> Result<Rng, rand_core::Error> {
        let mut seed = [0u8; 16];
        rand_core::OsRng.try_fill_bytes(&mut seed)?;
        Ok(Rng::from_block(Block::from_bytes(seed)))
    }

    /// A deterministic generator for `seed` (tests, derived randomness).
    pub fn from_block(seed: Block) -> Rng {
        Rng {
            prg: Prg::new(seed),
            buf: [Block::ZERO; BUF],
            pos: BUF * 16,
        }
    }

    /// Fills `out` with the next `16 * out.len()` stream bytes.
    pub fn fill_blocks(&mut self, out: &mut [Block]) {
        if !self.pos.is_multiple_of(16) {
            self.fill_bytes(Block::slice_as_bytes_mut(out));
            return;
        }
        let avail = (BUF * 16 - self.pos) / 16;
        let k = avail.min(out.len());
        let start = self.pos / 16;
        out[..k].copy_from_slice(&self.buf[start..start + k]);
        self.pos += 16 * k;
        self.prg.fill(&mut out[k..]);
    }

    /// The next block of the stream.
    pub fn next_block(&mut self) -> Block {
        let mut b = [Block::ZERO];
        self.fill_blocks(&mut b);
        b[0]
    }

    fn refill(&mut self) {
        self.prg.fill(&mut self.buf);
        self.pos = 0;
    }
}

impl RngCore for Rng {
    fn next_u32(&mut self) -> u32 {
        let mut b = [0u8; 4];
        self.fill_bytes(&mut b);
        u32::from_le_bytes(b)
    }

    fn next_u64(&mut self) -> u64 {
        let mut b = [0u8; 8];
        self.fill_bytes(&mut b);
        u64::from_le_bytes(b)
    }

    fn fill_bytes(&mut self, dest: &mut [u8]) {
        let mut done = 0;
        while done < dest.len() {
            if self.pos == BUF * 16 {
                self.refill();
            }
            let bytes = Block::slice_as_bytes(&self.buf);
            let k = (BUF * 16 - self.pos).min(dest.len() - done);
            dest[done..done + k].copy_from_slice(&bytes[self.pos..self.pos + k]);
            self.pos += k;
            done += k;
        }
    }

    fn try_fill_bytes(&mut self, dest: &mut [u8]) -> Result<(), rand_core::Error> {
        self.fill_bytes(dest);
        Ok(())
    }
}

impl CryptoRng for Rng {}

impl SeedableRng for Rng {
    type Seed = [u8; 16];

    fn from_seed(seed: [u8; 16]) -> Rng {
        Rng::from_block(Block::from_bytes(seed))
    }
}

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
