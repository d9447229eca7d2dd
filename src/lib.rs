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

mod base_rule;
pub mod delta;
pub mod ext_session;
pub mod ferret_session;
pub mod files;
pub mod oblivious_aes;
mod oprf_adapter;
pub mod oprf_session;
mod orlandi_level;
pub mod registry;
mod softspoken_parties;
pub mod traits;

/// The OPRF / 1-out-of-N OT evaluation of a KKRT or OOS sender's output:
/// shorthands for the methods of its key (`ot::runtime::oprf::OprfKey`).
macro_rules! oprf_sender_output {
    () => {
        impl SenderOutput {
            /// Number of instances `m`.
            pub fn len(&self) -> usize {
                self.key.len()
            }

            /// Whether there are no instances (never, for a completed run).
            pub fn is_empty(&self) -> bool {
                self.key.is_empty()
            }

            /// The sender's value of instance `i` on input `x`:
            /// `H(i, q_i ⊕ (C(x) ∧ s))` [KKRT16, Fig. 2; OOS17]; equals
            /// the receiver's `values[i]` when `x` is its input `i`. `None`
            /// if `i >= m`. (`self.key.eval(i, x)`.)
            pub fn encode(
                &self,
                i: usize,
                x: ::ot::runtime::Block,
            ) -> Option<::ot::runtime::Block> {
                self.key.eval(i, x)
            }

            /// [`encode`](Self::encode) of instance `first + k` on
            /// `inputs[k]`, batched and split over `threads` cores, for the
            /// `k` with `first + k < m`.
            pub fn encode_many(
                &self,
                first: usize,
                inputs: &[::ot::runtime::Block],
                threads: usize,
            ) -> Vec<::ot::runtime::Block> {
                let n = inputs.len().min(self.key.len().saturating_sub(first));
                let mut out = vec![::ot::runtime::Block::ZERO; n];
                self.key.eval_many(first, inputs, threads, &mut out);
                out
            }

            /// [`encode_many`](Self::encode_many) into `out` (a buffer reused
            /// across calls), for the `k < out.len()` with `first + k < m`;
            /// returns how many values it wrote.
            pub fn encode_many_into(
                &self,
                first: usize,
                inputs: &[::ot::runtime::Block],
                out: &mut [::ot::runtime::Block],
                threads: usize,
            ) -> usize {
                self.key.eval_many(first, inputs, threads, out)
            }
        }
    };
}

// One module per file of `protocols/`, documented with the summary of its
// `about` block: `pub mod x { protocol!("protocols/x.otp"); }`, its error
// into `traits::OtError`, and `SHIPPED`, the registry's list
// (`registry::PROTOCOLS`). Adding a protocol is adding its file.
ot_macros::protocol_modules! {
    "protocols"
    extra kkrt {
        oprf_sender_output!();
    }
    extra oos {
        oprf_sender_output!();
    }
    extra orlandi_triple {
        pub use crate::orlandi_level::{params_at_level, AtLevelError};
    }
}

pub use base_rule::UnfitBaseOt;
pub use delta::{DeltaOtPoisoned, DeltaOtReceiver, DeltaOtSender};
pub use ext_session::{ExtReceiver, ExtSender, ExtSessionPoisoned};
pub use ferret_session::{FerretCots, FerretError, FerretReceiver, FerretSender};
pub use oprf_session::{Oprf, OprfBatch, OprfReceiver, OprfSender};
pub use softspoken_parties::AboOt;
pub use traits::{
    AboOtReceiver, AboOtSender, BaseOt, BaseOtKind, BatchedOprfReceiver, BatchedOprfSender,
    CorrelatedOtReceiver, CorrelatedOtSender, OtError, OtExtension, OtReceiver, OtSender,
    RandomOtReceiver, RandomOtSender,
};
