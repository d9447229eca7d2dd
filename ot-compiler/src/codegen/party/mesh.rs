//! Mesh terms of the n-party code: the endpoints, a fixed party's index and
//! when a checked broadcast's consistency check runs, as expressions over
//! `__n` (the number of parties).

use crate::ir::{Ir, PartyRound, DEALER};
use proc_macro2::TokenStream;
use quote::quote;

/// Whether checked broadcast round `r` needs its consistency check in a
/// run, as a run-time condition over `__n` (the number of parties): only
/// when the broadcast has two receivers or more. A party's broadcast is
/// received by the `n - 1` other parties, so with `n == 2` its only
/// receiver is the other party and there is nobody it could have sent
/// another message to: the check (digests and their exchange) is skipped.
/// The dealer's broadcast reaches all `n` parties and is always checked.
pub(super) fn check_needed(ir: &Ir, r: usize) -> TokenStream {
    match ir.rounds[r].party {
        Some(PartyRound::FixedBroadcast { sender: DEALER, .. }) => quote!((__n > 1)),
        _ => quote!((__n > 2)),
    }
}

/// The mesh endpoints: the parties, and the dealer after them (as a term
/// over `__n`, the number of parties).
pub(super) fn endpoints(ir: &Ir) -> TokenStream {
    match ir.dealer {
        Some(_) => quote!(__n.wrapping_add(1)),
        None => quote!(__n),
    }
}

/// The mesh index of fixed party `c` (the dealer's is `n`, as `__n`).
pub(super) fn peer(c: usize) -> TokenStream {
    match c {
        DEALER => quote!(__n),
        _ => quote!(#c),
    }
}
