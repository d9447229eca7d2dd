//! Correlation-robust hashes built from fixed-key AES, and a SHA-1 random
//! oracle.
//!
//! With `π` = AES under the public [`crate::primitives::aes::FIXED_KEY`]:
//!
//! * MMO: `H(x) = π(x) ⊕ x`.
//! * TCCR (Guo, Katz, Wang, Yu, "Efficient and Secure Multiparty
//!   Computation from Fixed-Key Block Ciphers", S&P 2020):
//!   `H(i, x) = π(π(x) ⊕ i) ⊕ π(x)`, with the tweak block `i` made of a
//!   64-bit session (high half) and a 64-bit index (low half,
//!   [`Block::from_u64s`]). The session separates protocol runs that share
//!   the public key (GKWY20's multi-instance bound degrades with the number
//!   of hash calls per tweak); the batch functions hash element `j` under
//!   index `tweak_start + j` (wrapping mod 2^64) of the given session.
//! * SHA-1 random oracle: `H(i, x) = SHA1(le64(session) ‖ le64(i) ‖
//!   bytes(x))[0..16]`, the slow column of the libOTe comparison table.
//!
//! In-place and input/output variants exist; the input/output ones return
//! [`ShapeError`] on a length mismatch instead of panicking.

use crate::primitives::aes::{Op, FIXED_KEY_AES};
use crate::primitives::bits::{check_len, ShapeError};
use crate::Block;
use sha1::{Digest, Sha1};

/// `π(x) ⊕ x` under the fixed key.
#[inline]
pub fn mmo(x: Block) -> Block {
    let mut b = [x];
    mmo_many(&mut b);
    b[0]
}

/// MMO hash of every block, in place.
pub fn mmo_many(blocks: &mut [Block]) {
    FIXED_KEY_AES.run(Op::Mmo, None, blocks);
}

/// `output[j] = mmo(input[j])`.
pub fn mmo_many_into(input: &[Block], output: &mut [Block]) -> Result<(), ShapeError> {
    check_len("hash::mmo_many_into", input.len(), output.len())?;
    FIXED_KEY_AES.run(Op::Mmo, Some(input), output);
    Ok(())
}

/// `π(π(x) ⊕ (session, tweak)) ⊕ π(x)` under the fixed key.
#[inline]
pub fn tccr(session: u64, tweak: u64, x: Block) -> Block {
    let mut b = [x];
    tccr_many(session, tweak, &mut b);
    b[0]
}

/// TCCR hash of every block in place; block `j` uses tweak
/// `(session, tweak_start + j)`.
pub fn tccr_many(session: u64, tweak_start: u64, blocks: &mut [Block]) {
    FIXED_KEY_AES.run(Op::Tccr(tweak_start, session), None, blocks);
}

/// TCCR of both blocks of every pair in place, pair `k` with tweak
/// `(session, tweak_start + k)`: `[H(t + k, a), H(t + k, b)]` (the sender's
/// two OT keys of IKNP/KOS, hashed in the output's own layout in one pass).
pub fn tccr_pairs_in_place(session: u64, tweak_start: u64, pairs: &mut [[Block; 2]]) {
    FIXED_KEY_AES.tccr_pair_blocks(session, tweak_start, bytemuck::cast_slice_mut(pairs));
}

/// `output[j] = tccr(session, tweak_start + j, input[j])`.
pub fn tccr_many_into(
    session: u64,
    tweak_start: u64,
    input: &[Block],
    output: &mut [Block],
) -> Result<(), ShapeError> {
    check_len("hash::tccr_many_into", input.len(), output.len())?;
    FIXED_KEY_AES.run(Op::Tccr(tweak_start, session), Some(input), output);
    Ok(())
}

/// SHA-1 of arbitrary bytes (20-byte digest).
pub fn sha1(data: &[u8]) -> [u8; 20] {
    Sha1::digest(data).into()
}

/// Random-oracle hash `SHA1(le64(session) ‖ le64(tweak) ‖ bytes(x))`
/// truncated to 128 bits.
pub fn sha1_ro(session: u64, tweak: u64, x: Block) -> Block {
    let mut h = Sha1::new();
    h.update(session.to_le_bytes());
    h.update(tweak.to_le_bytes());
    h.update(x.to_bytes());
    let d = h.finalize();
    let mut out = [0u8; 16];
    out.copy_from_slice(&d[..16]);
    Block::from_bytes(out)
}

/// [`sha1_ro`] of every block in place; block `j` uses tweak `tweak_start + j`.
pub fn sha1_ro_many(session: u64, tweak_start: u64, blocks: &mut [Block]) {
    for (j, b) in blocks.iter_mut().enumerate() {
        *b = sha1_ro(session, tweak_start.wrapping_add(j as u64), *b);
    }
}

/// `output[j] = sha1_ro(session, tweak_start + j, input[j])`.
pub fn sha1_ro_many_into(
    session: u64,
    tweak_start: u64,
    input: &[Block],
    output: &mut [Block],
) -> Result<(), ShapeError> {
    check_len("hash::sha1_ro_many_into", input.len(), output.len())?;
    for (j, (o, &x)) in output.iter_mut().zip(input).enumerate() {
        *o = sha1_ro(session, tweak_start.wrapping_add(j as u64), x);
    }
    Ok(())
}

/// Which hash an OT extension uses to break correlations (lets a protocol
/// take it as a parameter, e.g. to reproduce the AES and SHA1 columns of the
/// libOTe table).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, Default)]
pub enum CrHash {
    /// [`mmo_many`] (ignores the tweak; only correlation robust).
    Mmo,
    /// [`tccr_many`] (the default: tweakable circular correlation robust).
    #[default]
    Tccr,
    /// [`sha1_ro_many`] (random oracle).
    Sha1,
}

impl CrHash {
    /// Hashes every block in place; block `j` uses tweak
    /// `(session, tweak_start + j)`.
    pub fn hash_many(self, session: u64, tweak_start: u64, blocks: &mut [Block]) {
        match self {
            CrHash::Mmo => mmo_many(blocks),
            CrHash::Tccr => tccr_many(session, tweak_start, blocks),
            CrHash::Sha1 => sha1_ro_many(session, tweak_start, blocks),
        }
    }
}
