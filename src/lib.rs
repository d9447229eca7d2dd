//! Oblivious transfer and secure computation protocols written as `.otp`
//! round specifications and compiled by [`protocol!`] into typed
//! sender/receiver code over the hand-optimized [`runtime`].
//!
//! Each module below is generated from the `.otp` file it names; nothing in
//! this crate hand-writes a protocol flow. The [`traits`] give every OT
//! protocol one interface.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate self as ot;

pub use ot_macros::protocol;
pub use ot_runtime as runtime;

pub mod delta;
pub mod traits;

/// Chou–Orlandi "simplest OT" base OT, generated from `protocols/co15.otp`.
pub mod co15 {
    crate::protocol!("protocols/co15.otp");
}

/// Chosen-message OT over CO15 (derandomized), from `protocols/co15_chosen.otp`.
pub mod co15_chosen {
    crate::protocol!("protocols/co15_chosen.otp");
}

/// Masny–Rindal endemic OT (malicious-safe base OT), generated from `protocols/mr19.otp`.
pub mod mr19 {
    crate::protocol!("protocols/mr19.otp");
}

/// Chosen-message OT over MR19 (derandomized), from `protocols/mr19_chosen.otp`.
pub mod mr19_chosen {
    crate::protocol!("protocols/mr19_chosen.otp");
}

/// Naor–Pinkas base OT, generated from `protocols/np00.otp`.
pub mod np00 {
    crate::protocol!("protocols/np00.otp");
}

/// Chosen-message OT over NP00 (derandomized), from `protocols/np00_chosen.otp`.
pub mod np00_chosen {
    crate::protocol!("protocols/np00_chosen.otp");
}

/// IKNP semi-honest OT extension, generated from `protocols/iknp.otp`.
pub mod iknp {
    crate::protocol!("protocols/iknp.otp");
}

/// Chosen-message OT over IKNP (derandomized), from `protocols/iknp_chosen.otp`.
pub mod iknp_chosen {
    crate::protocol!("protocols/iknp_chosen.otp");
}

/// KOS malicious OT extension (extends IKNP), from `protocols/kos.otp`.
pub mod kos {
    crate::protocol!("protocols/kos.otp");
}

/// Chosen-message OT over KOS (derandomized), from `protocols/kos_chosen.otp`.
pub mod kos_chosen {
    crate::protocol!("protocols/kos_chosen.otp");
}

/// Delta-OT (correlated OT) from IKNP, from `protocols/delta_iknp.otp`.
pub mod delta_iknp {
    crate::protocol!("protocols/delta_iknp.otp");
}

/// Base phase of a Delta-OT pair (the base OTs, run once per Delta), from `protocols/delta_base.otp`.
pub mod delta_base {
    crate::protocol!("protocols/delta_base.otp");
}

/// Malicious Delta-OT (extends Delta-IKNP with the corrected KOS check), from `protocols/delta_kos.otp`.
pub mod delta_kos {
    crate::protocol!("protocols/delta_kos.otp");
}

/// n-party coin flipping with Pedersen commitments and checked broadcasts,
/// generated from `protocols/coin_flip_n.otp` (`role P[n]`).
pub mod coin_flip_n {
    crate::protocol!("protocols/coin_flip_n.otp");
}
/// n-party sum of private `u64` inputs by additive secret sharing (private
/// rounds, then a checked broadcast), generated from `protocols/sum_n.otp`.
pub mod sum_n {
    crate::protocol!("protocols/sum_n.otp");
}

pub use delta::{DeltaOtPoisoned, DeltaOtReceiver, DeltaOtSender};
pub use traits::{
    BaseOt, BaseOtKind, CorrelatedOtReceiver, CorrelatedOtSender, OtError, OtExtension, OtReceiver,
    OtSender, RandomOtReceiver, RandomOtSender,
};
