//! Kernels of semi-honest silent random correlated OT by the PCG approach
//! with dual LPN [Boyle, Couteau, Gilboa, Ishai, Kohl, Rindal, Scholl,
//! "Efficient Two-Round OT Extension and Silent Non-Interactive Secure
//! Computation", CCS 2019, eprint 2019/1159, §4 and Fig. 4 (the COT
//! generator from a multi-point function secret sharing and a compressing
//! matrix `H`)]. The message flow is `protocols/silent_ot.otp`; this module
//! only holds kernels.
//!
//! The pieces, one file each:
//!
//! - [`params`]: the code (Expand-Accumulate, rate 1/5, expander weight
//!   11), the regular noise weight (libOTe's linear-test rule; what it
//!   does and does not cover is stated there), and the tree depth for a
//!   given output size.
//! - [`spcot`]: the multi-point correlated OT with regular noise: `t`
//!   single-point COTs, each a GGM-tree puncturable PRF over `2^h` leaves
//!   (Yang, Weng, Lan, Zhang, Wang, "Ferret", CCS 2020, eprint 2020/924,
//!   Fig. 6 (semi-honest SPCOT) and §6 (regular noise: one point per
//!   interval, so MPCOT is `t` independent SPCOTs)), in the interleaved
//!   layout (leaf `j` of tree `i` at coordinate `j·t + i`, so every tree
//!   spreads over the whole code). The tree kernels are [`crate::softspoken::ggm`]
//!   (fixed-key AES, level by level over all trees, position tweaks keyed
//!   by [`silent_tree_session`]).
//! - [`ea`]: the dual-LPN compression `x = H·e` with the Expand-Accumulate
//!   code of Boyle, Couteau, Gilboa, Ishai, Kohl, Resch, Scholl,
//!   "Correlated Pseudorandomness from Expand-Accumulate Codes", CRYPTO 2022,
//!   eprint 2022/1014: `H = B·A` with `A` the accumulator (prefix XOR) and
//!   `B` a sparse random expander with fixed row weight.
//!
//! Correlation: after the multi-point COT the sender holds `v ∈ F_{2^128}^N`
//! and `Δ`, the receiver the regular-weight-`t` noise `e ∈ F_2^N` and
//! `w = v ⊕ e·Δ`. `H` is linear, so with `x = H·e`, `z = H·v`, `y = H·w`:
//! `y = z ⊕ x·Δ`, `n` random COTs whose choice bits `x` are pseudorandom
//! under the dual-LPN assumption for `H` (the LPN assumption for the EA
//! code).

pub mod convert;
pub mod ea;
pub mod ferret;
pub mod ferret_check;
pub mod lpn;
#[cfg(test)]
mod noise_bias;
pub mod params;
pub mod pool;
mod prefetch;
mod scale;
pub mod spcot;

use crate::Block;

/// Domain label of the code seed ([`silent_code_seed`]).
const CODE_SEED_DOMAIN: &[u8] = b"silentot/ea-code";

/// Domain label of the tree session ([`silent_tree_session`]).
const TREE_SESSION_DOMAIN: &[u8] = b"silentot/ggm-tweak";

/// The seed of the run's expander `B`: SHA-256 over the domain label
/// `"silentot/ea-code"`, the sender's fresh salt (the run's session), the
/// output size `n`, the tree depth and the noise weight, truncated to 128
/// bits. The code is public (both parties derive it); binding the session
/// gives every run its own code.
pub fn silent_code_seed(salt: Block, n: usize, depth: usize) -> Block {
    crate::otext::session_id_with(
        CODE_SEED_DOMAIN,
        salt,
        &[n as u64, depth as u64, params::NOISE_WEIGHT as u64],
    )
}

/// The tree session of a run, which keys the GGM position tweaks
/// ([`crate::softspoken::ggm::GgmTweaks`]; defence in depth for many instances of the
/// fixed-key hash, Guo, Katz, Wang, Yu, S&P 2020, §7): SHA-256 over its own
/// domain label `"silentot/ggm-tweak"`, the sender's fresh salt, `n`, the
/// depth and the tree count, truncated to 128 bits. Public, like the code
/// seed, and independent of it (another label).
pub fn silent_tree_session(salt: Block, n: usize, depth: usize) -> Block {
    crate::otext::session_id_with(
        TREE_SESSION_DOMAIN,
        salt,
        &[n as u64, depth as u64, params::NOISE_WEIGHT as u64],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_seeds_bind_salt_and_shape() {
        let a = silent_code_seed(Block(7), 1000, 4);
        assert_eq!(a, silent_code_seed(Block(7), 1000, 4));
        assert_ne!(a, silent_code_seed(Block(8), 1000, 4));
        assert_ne!(a, silent_code_seed(Block(7), 1001, 4));
        assert_ne!(a, silent_code_seed(Block(7), 1000, 5));
        let t = silent_tree_session(Block(7), 1000, 4);
        assert_ne!(a, t);
        assert_ne!(t, silent_tree_session(Block(8), 1000, 4));
        assert_ne!(t, silent_tree_session(Block(7), 1000, 5));
    }
}
