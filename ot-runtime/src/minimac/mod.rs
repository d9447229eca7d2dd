//! The MiniMac family (`protocols/minimac*.otp`): the share format and its
//! operations, the oblivious AES circuit ([`aes`]), the preprocessing
//! format ([`prep`]) and the Reed–Solomon codes over GF(2^8)
//! ([`reed_solomon`]) the shares are codewords of.
//!
//! MiniMac (Damgård–Zakarias, "Constant-Overhead Secure Computation of
//! Boolean Circuits using Preprocessing", TCC 2013 \[DZ13\]; the
//! implementation study of Damgård–Lauritsen–Toft, eprint 2014/289
//! \[DLT14\]): the share format, its local operations and the kernels of
//! `protocols/minimac_open.otp`, plus the dealer's preprocessing files
//! ([`prep`]).
//!
//! A value is a vector `x ∈ GF(2^8)^k` of `k` SIMD slots. Its
//! representation `[[x]]` (DZ13 §3) is, at party `P_i`, an additive share
//! `y_i` of the codeword `y = C(x)` (a codeword of the Reed–Solomon code
//! `C = RS[n, k]` of [`crate::minimac::reed_solomon`], or of its Schur square `C*`
//! for products) and an additive share `m_i` of the MAC `α ∘ y` under a
//! global MAC key `α ∈ GF(2^8)^n` that no party knows (`P_i` holds a share
//! `α_i`). Addition, multiplication by a public field element and adding a
//! public vector are local ([`Shares`]).
//!
//! Kernels never panic on shapes the protocol did not check first: they
//! truncate, and the `.otp` checks every input with [`shape_ok`] /
//! [`triple_ok`] before use.

#![forbid(unsafe_code)]

pub mod aes;
pub mod floor;
pub mod prep;
pub mod reed_solomon;
mod shares;

pub use shares::{
    check_seed, check_seed_parts, code_is, codeword_shares, in_code, input_delta, input_finish,
    input_ok, mac_commitment, mac_diff, mac_diff_parts, mac_opening_ok, mac_sum_zero, mul_finish,
    mul_masked, open_sum, opened_values, pair_ok, reencode_finish, reencode_masked, shape_ok,
    triple_ok, Codes, Holder, MacKey, Opened, ShareError, Shares,
};
