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

/// The tweak context of a batch of row hashes `H(first + i, x_i)` (the OT
/// keys of IKNP/KOS and the OPRF values of KKRT/OOS): the session id whose
/// low 64 bits are every tweak's upper half, which hash (fixed-key AES
/// TCCR, or the SHA-1 random oracle), and the global index of the batch's
/// first row, so the tweaks of the extensions of one session (disjoint
/// index ranges, `protocols/iknp_extend.otp`) never meet. Indices wrap
/// modulo 2^64, which the protocols' parameter checks rule out.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HashTweaks {
    /// The run's session id (a hash output, e.g.
    /// [`crate::otext::session_id`]).
    pub session: Block,
    /// The SHA-1 random oracle instead of fixed-key AES TCCR.
    pub sha1: bool,
    /// Global index of the batch's first row (0 for a one-shot run).
    pub first: usize,
}

impl HashTweaks {
    /// The context of rows `first, first + 1, ...` of `session` (the
    /// intrinsic `hash_tweaks` of `protocols/prelude.otp`).
    pub const fn new(session: Block, sha1: bool, first: usize) -> Self {
        HashTweaks {
            session,
            sha1,
            first,
        }
    }

    /// The 64-bit session half of every tweak: the low half of the
    /// session id.
    #[inline]
    pub const fn session_half(&self) -> u64 {
        self.session.0 as u64
    }

    /// The tweak index of row `at` of the batch: `first + at` mod 2^64.
    #[inline]
    pub const fn index(&self, at: usize) -> u64 {
        (self.first as u64).wrapping_add(at as u64)
    }
}

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
