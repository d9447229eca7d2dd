//! Kernels of KKRT16 private set intersection [Kolesnikov, Kumaresan,
//! Rosulek, Trieu, "Efficient Batched Oblivious PRF with Applications to
//! Private Set Intersection", CCS 2016, eprint 2016/799, §5]: the hashing
//! and comparison steps around a batched OPRF ([`crate::oprf`]). The
//! message flow (seed, OPRF run, tags) is the `.otp` protocol that calls
//! these kernels; nothing here sends or receives.
//!
//! (The links below are written out in full: this module's docs are read
//! together with its one-line doc in `lib.rs`, in the crate's scope.)
//!
//! With a receiver set `X` (`n_r` elements) and a sender set `Y` (`n_s`
//! elements) of 128-bit blocks ([`crate::Block`]):
//!
//! 1. the receiver samples a seed and builds a cuckoo table of `X` with
//!    [`crate::psi::HASHES`] = 3 hash functions `h_0, h_1, h_2`
//!    ([`crate::psi::hashing`]) into [`crate::psi::psi_bins`]`(n_r)` bins
//!    ([`crate::psi::cuckoo_table`]); it sends the table's seed
//!    ([`crate::psi::CuckooTable::seed`]);
//! 2. the OPRF input of bin `j` is `H(i, x)` ([`crate::psi::psi_input`])
//!    for the element `x` that `h_i` placed there, a fixed dummy for an
//!    empty bin ([`crate::psi::cuckoo_inputs`]); after the batched OPRF
//!    the receiver holds `F(j, input_j)` and the sender the key `F`
//!    ([`crate::oprf::OprfKey`]);
//! 3. the sender shuffles `Y` ([`crate::psi::shuffle_blocks`]) and sends,
//!    for every element `y` and `i < 3`, the 96-bit tag
//!    ([`crate::psi::PsiTag`]) of `F(h_i(y), H(i, y))`
//!    ([`crate::psi::psi_sender_tags`]);
//! 4. the receiver keeps the elements whose OPRF value's tag is among the
//!    sender's tags of the same hash index
//!    ([`crate::psi::psi_intersect`]).
//!
//! Where KKRT16 keeps a small stash for the elements that do not fit
//! (after Pinkas–Schneider–Segev–Zohner), this table has none: a failed
//! insertion is retried from scratch under a fresh seed derived from the
//! sampled one ([`crate::psi::cuckoo_table`]).
//!
//! # Statistical notes
//!
//! * False positives: an element of `X \ Y` is reported only if the
//!   96-bit tag of its OPRF value equals one of the sender's tags (or the
//!   OPRF or the input hash `H` collides, both negligible: a collision of
//!   KKRT's 512-bit pseudorandom code or of the 128-bit hashes). With
//!   pseudorandom OPRF outputs, the probability of any false positive in a
//!   run is at most `3 · n_s · n_r · 2^-96` (a union bound over the pairs
//!   of a receiver value and a sender tag; the hash-index check makes the
//!   real count `n_s · n_r` pairs). A bound of `2^-40` therefore needs
//!   `log2(n_s) + log2(n_r) <= 54`.
//! * Hashing failures: see [`crate::psi::psi_bins`] and
//!   [`crate::psi::cuckoo_table`].

#![forbid(unsafe_code)]

pub mod cuckoo;
pub mod hashing;
pub mod intersect;
mod rand;
pub mod shuffle;
pub mod tags;

#[cfg(test)]
mod tests;

use crate::Block;
pub use cuckoo::{cuckoo_inputs, cuckoo_ok, cuckoo_seed, cuckoo_table, CuckooTable};
pub use hashing::{bin_hashes, psi_input, BinHasher};
pub use intersect::{psi_index, psi_intersect, psi_lookup, PsiIndex};
pub use shuffle::shuffle_blocks;
pub use tags::{psi_sender_tags, PsiTag};

/// The number of hash functions of the cuckoo table (and of tags per
/// sender element): 3, as in KKRT16 §5 and the parameter choice of
/// [`psi_bins`].
pub const HASHES: usize = 3;

/// The largest number of bins a table may have: bin indices are `u32`
/// (the OPRF's instance indices, [`crate::oprf::OprfKey::eval_at`]) and
/// `u32::MAX` marks an empty bin. [`cuckoo_table`] fails cleanly beyond.
pub const MAX_BINS: usize = u32::MAX as usize;

/// The number of bins of the receiver's cuckoo table for a set of `n`
/// elements: exactly `(127 n + 99) / 100 + 32`, i.e. `ceil(1.27 n) + 32`.
///
/// `1.27 n` bins for 3 hash functions without a stash is the parameter
/// choice of Pinkas–Schneider–Segev–Zohner ("Phasing: Private Set
/// Intersection using Permutation-based Hashing", USENIX Security 2015)
/// and Pinkas–Schneider–Tkachenko–Yanai ("Efficient Circuit-based PSI
/// with Linear Communication", EUROCRYPT 2019), whose experiments put the
/// failure probability of such a table at about `2^-40`; the `+ 32` bins
/// are our margin for small sets, where those extrapolations say least.
/// A failure is retried with a fresh seed ([`cuckoo_table`]), which the
/// sender sees only as the final seed, so it costs time, not correctness.
/// Saturates instead of overflowing.
pub fn psi_bins(n: usize) -> usize {
    let b = (127 * n as u128).div_ceil(100) + 32;
    usize::try_from(b).unwrap_or(usize::MAX)
}

/// [`cuckoo_inputs`] with the length the protocol declares: exactly
/// `bins` entries, the bin count the protocol built the table with
/// (`protocols/kkrt_psi.otp` passes the same expression to both); a table
/// of another bin count gives `bins` zeros rather than a vector of a
/// length the protocol does not expect.
pub fn cuckoo_bin_inputs(table: &CuckooTable, set: &[Block], bins: usize) -> Vec<Block> {
    if table.bins() != bins {
        return vec![Block::ZERO; bins];
    }
    cuckoo_inputs(table, set)
}
