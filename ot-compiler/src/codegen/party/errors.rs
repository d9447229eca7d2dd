//! The `Error` enum of an n-party protocol: one variant per `abort` (naming
//! the party that aborted and, for a per-party check, the party whose value
//! failed), the broadcast consistency failure (naming round and sender),
//! and parameter, codec and mesh failures naming the round and peer.

use crate::codegen::names::{id, rt};
use crate::ir::Ir;
use proc_macro2::TokenStream;
use quote::quote;

/// `Error`, `Display` and `std::error::Error`.
pub(super) fn error_items(ir: &Ir) -> TokenStream {
    let enum_item = error_enum(ir);
    let display = display_impl(ir);
    let methods = error_methods(ir);
    quote! {
        #enum_item
        #display
        #methods
        impl ::std::error::Error for Error {
            fn source(&self) -> Option<&(dyn ::std::error::Error + 'static)> {
                match self {
                    Error::Decode { source, .. } => Some(source),
                    Error::FromPeer { source, .. } => Some(&**source),
                    Error::Mesh { source, .. } => Some(source),
                    Error::SubProtocol { source, .. } => Some(&**source),
                    _ => None,
                }
            }
        }
    }
}

/// The `Error` enum: one variant per `abort`, then the fixed ones.
fn error_enum(ir: &Ir) -> TokenStream {
    let rt = rt();
    let abort_variants = ir.aborts.iter().map(|(n, text)| {
        let v = id(n);
        let doc = format!("The check `{text}` failed: a party cheated or sent inconsistent data.");
        quote!(#[doc = #doc] #v {
            #[doc = "The party that aborted."] party: usize,
            #[doc = "For a check of one condition per party, the party whose value failed it."] culprit: ::core::option::Option<usize>,
            #[doc = "The failed check (`file:line: text`)."] check: &'static str })
    });
    let common = crate::codegen::errors::common_variants();
    let sub_err = crate::codegen::errors::sub_error_ty(ir);
    quote! {
        /// Everything that can go wrong in a run; checks in the specification become variants.
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum Error {
            #(#abort_variants,)*
            /// The consistency check of a broadcast round failed: `sender`'s
            /// message as this party received it differs from what `peer`
            /// reports receiving (broadcast with abort).
            Equivocation { /// The party that aborted.
                party: usize, /// Round.
                round: &'static str, /// The party whose messages differ.
                sender: usize, /// The party that reported the other message.
                peer: usize, /// The one of `sender` and `peer` that this party blames:
                /// set when the message is its own or `sender` contradicts itself
                /// (certain), or after the run when the other suspect's abort
                /// notice names it (`named_by`; a claim, not evidence).
                culprit: ::core::option::Option<usize>, /// The suspect whose notice named `culprit`.
                named_by: ::core::option::Option<usize> },
            /// An input of one fixed party (`input P[0] { .. }`) was given
            /// (`Some`) to another party, or not given to that party.
            FixedInput { /// The party started.
                party: usize, /// The party the input belongs to.
                holder: usize, /// The input.
                input: &'static str },
            /// A value of one fixed party is missing at that party (cannot
            /// happen in a run started by `new`; reported instead of a panic).
            NotHeld { /// The party.
                party: usize, /// The value.
                value: &'static str },
            /// The party index or the mesh does not fit the parameters.
            Party { /// The index.
                index: usize, /// The number of parties.
                parties: usize },
            #common
            /// A message from `peer` is malformed (its length or a field).
            FromPeer { /// Round.
                round: &'static str, /// The sending party.
                peer: usize, /// What is wrong with it.
                source: ::std::boxed::Box<Error> },
            /// A sub-protocol run between this party and `peer` (a `do`
            /// call between every pair of parties) failed: its typed error.
            SubProtocol { /// Call name.
                call: &'static str, /// The other party of the failed run.
                peer: usize, /// The error of the functionality's role trait.
                source: #sub_err },
            /// `new` was given a wrong number of sub-protocol
            /// implementations: one per other party is needed.
            Subs { /// The field of the `Subs` struct.
                field: &'static str, /// How many are needed (`n - 1`).
                expected: usize, /// How many were given.
                got: usize },
            /// The messages of a round do not come from every other party exactly once.
            Delivery { /// Round.
                round: &'static str, /// The offending party index.
                peer: usize },
            /// The mesh failed (hang-up, time-out, oversized frame, or a
            /// peer of another protocol, session or index at the hello).
            Mesh { /// Round (`hello` for the session hello).
                round: &'static str, /// Why (names the peer).
                source: #rt::transport::mesh::MeshError },
        }
    }
}

/// `Display` for `Error`: each variant in words, naming the protocol,
/// parties and rounds.
fn display_impl(ir: &Ir) -> TokenStream {
    let pname = &ir.name;
    let p = &ir.roles[0];
    let abort_display = ir.aborts.iter().map(|(n, _)| {
        let v = id(n);
        let with = format!("{pname}: `{p}[{{}}]` aborted with {n}: the value of `{p}[{{}}]` fails the check at {{}}");
        let without = format!("{pname}: `{p}[{{}}]` aborted with {n}: check failed at {{}}");
        quote!(Error::#v { party, culprit, check } => match culprit {
            Some(c) => write!(f, #with, party, c, check),
            None => write!(f, #without, party, check),
        })
    });
    let equivocation = format!("{pname}: `{p}[{{}}]` aborted: round `{{}}` is inconsistent, `{p}[{{}}]` sent different messages to different parties (`{p}[{{}}]` reports another one)");
    let named_after = format!("; `{p}[{{}}]`'s abort notice names `{p}[{{}}]`");
    let delivery = format!("{pname}: round `{{}}`: expected one message from each other party, got a wrong one from `{p}[{{}}]`");
    let from_peer = format!("{pname}: round `{{}}`: the message of `{p}[{{}}]`: {{}}");
    let party_fmt = format!("{pname}: party index {{}} of {{}} parties does not fit (the index must be below the number of parties, and the mesh must be this party's endpoint of a mesh of that many parties)");
    let fixed_input = format!("{pname}: `{p}[{{}}]` was started with a wrong input `{{}}`: it belongs to `{p}[{{}}]` only, so it is `Some` at party {{}} and `None` at every other party");
    let not_held = format!("{pname}: `{p}[{{}}]` does not hold its value `{{}}`");
    let common_display = crate::codegen::errors::common_display(pname);
    let sub_fmt = format!("{pname}: sub-protocol `{{}}` with `{p}[{{}}]` failed: {{}}");
    quote! {
        impl ::core::fmt::Display for Error {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {
                    #(#abort_display,)*
                    Error::Equivocation { party, round, sender, peer, culprit, named_by } => {
                        write!(f, #equivocation, party, round, sender, peer)?;
                        match (culprit, named_by) {
                            (Some(c), Some(by)) => write!(f, #named_after, by, c),
                            _ => Ok(()),
                        }
                    }
                    #common_display
                    Error::Party { index, parties } => write!(f, #party_fmt, index, parties),
                    Error::FixedInput { party, holder, input } => write!(f, #fixed_input, party, input, holder, holder),
                    Error::NotHeld { party, value } => write!(f, #not_held, party, value),
                    Error::FromPeer { round, peer, source } => write!(f, #from_peer, round, peer, source),
                    Error::Delivery { round, peer } => write!(f, #delivery, round, peer),
                    Error::Mesh { round, source } => write!(f, "{}: round `{}`: {}", #pname, round, source),
                    Error::SubProtocol { call, peer, source } => write!(f, #sub_fmt, call, peer, source),
                    Error::Subs { field, expected, got } => write!(f, "{}: `{}` holds {} sub-protocol implementations, one per other party ({}) needed", #pname, field, got, expected),
                }
            }
        }
    }
}

/// `impl Error`: `blamed`, `suspects`, `reported_by`, `round` and `notice`.
fn error_methods(ir: &Ir) -> TokenStream {
    let rt = rt();
    let blame = blame_methods(ir);
    quote! {
        impl Error {
            #blame

            /// The round the error arose in, where it names one (`hello`
            /// for the session hello).
            pub fn round(&self) -> ::core::option::Option<&'static str> {
                match self {
                    Error::Equivocation { round, .. }
                    | Error::FromPeer { round, .. }
                    | Error::Delivery { round, .. }
                    | Error::Mesh { round, .. }
                    | Error::Alloc { round, .. }
                    | Error::Shape { round, .. }
                    | Error::Length { round, .. }
                    | Error::Decode { round, .. }
                    | Error::SubProtocol { call: round, .. } => Some(round),
                    _ => None,
                }
            }

            /// The abort notice this party sends its peers when a run
            /// fails with this error (`Mesh::notify_abort`): round,
            /// reason (this error in words) and [`Error::suspects`].
            pub fn notice(&self) -> #rt::transport::channel::AbortNotice {
                #rt::transport::channel::AbortNotice::new(self.round().unwrap_or(""), &::std::string::ToString::to_string(self), &self.suspects())
            }
        }
    }
}

/// `blamed`, `suspects` and `reported_by` of `Error`: who is responsible
/// for an error, as far as this party can tell.
fn blame_methods(ir: &Ir) -> TokenStream {
    let abort_names: Vec<_> = ir.aborts.iter().map(|(n, _)| id(n)).collect();
    quote! {
        /// The party this party holds responsible: for a failed check
        /// of one party's value that party (`None` for a check that
        /// cannot tell who cheated); for an inconsistent broadcast the
        /// reporter if the message is this party's own or the sender
        /// if it contradicts itself, else `None` (either the sender
        /// equivocated or the reporter lied: [`Error::suspects`] names
        /// both); for a malformed, missing or surplus
        /// message, a hang-up without notice, a silent link or a
        /// different hello, that peer; for a peer's abort notice, the
        /// party the notice blames (a claim of the party
        /// [`Error::reported_by`] names, not evidence). `None` for
        /// errors of this party's own making (parameters, inputs,
        /// memory, a mesh of the wrong size). Also sent to every peer
        /// in this party's abort notice when a run fails.
        pub fn blamed(&self) -> ::core::option::Option<usize> {
            match self {
                #(Error::#abort_names { culprit, .. } => *culprit,)*
                Error::Equivocation { culprit, .. } => *culprit,
                Error::FromPeer { peer, .. } | Error::Delivery { peer, .. } | Error::SubProtocol { peer, .. } => Some(*peer),
                Error::Mesh { source, .. } => source.blamed(),
                _ => None,
            }
        }

        /// The parties one of which cheated, as far as this party can
        /// tell: [`Error::blamed`] if it names one, the sender and the
        /// reporter of an inconsistent broadcast it cannot decide
        /// between, else none. Sent in this party's abort notice, so
        /// that a peer that is one of two suspects blames the other.
        pub fn suspects(&self) -> ::std::vec::Vec<usize> {
            match (self, self.blamed()) {
                (_, Some(c)) => ::std::vec![c],
                (Error::Equivocation { sender, peer, .. }, None) => ::std::vec![*sender, *peer],
                _ => ::std::vec::Vec::new(),
            }
        }

        /// For an error that is a peer's abort notice
        /// (`MeshError::PeerAborted`), the peer that sent it, and for
        /// an inconsistent broadcast resolved by the other suspect's
        /// notice, that suspect: the party whose claim
        /// [`Error::blamed`] reports.
        pub fn reported_by(&self) -> ::core::option::Option<usize> {
            match self {
                Error::Mesh { source, .. } => source.reported_by(),
                Error::Equivocation { named_by, .. } => *named_by,
                _ => None,
            }
        }
    }
}
