//! Code generation for n-party protocols (`role P[n]`): one party type
//! `P<State>` carrying its index `me` and the parameters (with `n`), a
//! typestate per step, sans-IO step methods taking and producing per-peer
//! messages, the broadcast consistency check (digests exchanged after every
//! checked `-> all` round), and a blocking driver over an
//! `ot_runtime::transport::mesh::Mesh` that sends the session hello with its first
//! round and checks each peer's before using anything from it.
//!
//! The broadcast check is a run-time decision: a party's broadcast with
//! two parties has one receiver, the other party, so there is nobody its
//! sender could have sent another message to, and the check (digests and
//! their exchange) is skipped; the dealer's broadcast reaches every party
//! and is always checked (`mesh::check_needed`).

mod context;
mod dealer;
mod driver;
mod errors;
mod mesh;
mod pairwise;
mod steps;

use super::expr::ExprGen;
use super::names::rt;
use crate::ir::*;
use crate::plan::party::{self as schedule, Op};
use context::PartyGen;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// Generates the items of an n-party protocol module.
pub(super) fn generate(
    ir: &Ir,
    plan: &crate::plan::Plan,
    schedule: &crate::plan::party::Plan,
) -> TokenStream {
    let eg = ExprGen::new(ir);
    let g = PartyGen::new(ir, &eg, schedule);
    let header = super::header::header_items(ir);
    let params = super::params::params_items(ir, plan, &eg);
    let encode = super::params::params_encode(ir);
    let comm = comm_items(ir);
    let msgs = super::messages::messages_module(ir);
    let errors = errors::error_items(ir);
    // Expressions of the parties read their secrets through their wrappers.
    eg.set_secrets(Some(g.secrets.clone()));
    let party = g.party_items();
    let dealer = dealer::dealer_items(ir, &eg);
    eg.set_secrets(None);
    let traits = step_traits(ir);
    let hash = super::header::spec_hash_item(ir);
    quote! {
        #header
        #hash
        #params
        #encode
        #comm
        #msgs
        #errors
        #traits
        #party
        #dealer
    }
}

/// The `Outgoing`/`Incoming` traits behind the party's generic `send` and
/// `recv`, with the rustc diagnostic for a step out of order (the message
/// a state does not send or expect).
fn step_traits(ir: &Ir) -> TokenStream {
    let pname = &ir.name;
    let p = &ir.roles[0];
    let flow: Vec<String> = ir
        .rounds
        .iter()
        .map(|r| {
            let (from, to) = match r.party {
                Some(PartyRound::Private) => (format!("{p}[i]"), format!("{p}[j]")),
                Some(PartyRound::FixedBroadcast { sender, .. }) => {
                    (fixed_text(ir, sender), "all".into())
                }
                Some(PartyRound::FromOne { sender }) => (fixed_text(ir, sender), format!("{p}[j]")),
                Some(PartyRound::ToOne { receiver }) => {
                    (format!("{p}[j]"), fixed_text(ir, receiver))
                }
                Some(PartyRound::Between { sender, receiver }) => {
                    (fixed_text(ir, sender), fixed_text(ir, receiver))
                }
                Some(PartyRound::Ring { step, mul, .. }) => {
                    (format!("{p}[i]"), ring_text(p, step, mul))
                }
                _ => (format!("{p}[i]"), "all".into()),
            };
            format!("round `{}`: {from} -> {to} : {}", r.name, r.msg)
        })
        .collect();
    let note = format!(
        "every party of `{pname}` runs {}, each checked broadcast followed by its digest exchange",
        flow.join("; then ")
    );
    let send_msg = format!("protocol `{pname}`: `{{R}}` does not send `{{Self}}` in this state");
    let recv_msg = format!("protocol `{pname}`: `{{R}}` cannot receive `{{Self}}` in this state");
    quote! {
        #[doc = "A message that party state `R` sends (implemented only for the message of that state's round), so `party.send::<M>()` type-checks exactly when the round order allows it."]
        #[diagnostic::on_unimplemented(message = #send_msg, label = "this state does not send this message", note = #note)]
        pub trait Outgoing<R>: Sized {
            /// What the step returns to write: the message, or one per peer in a private round.
            type Out;
            /// The party after the step.
            type Next;
            /// Runs the send step of `party`.
            fn produce(party: R) -> Result<(Self::Out, Self::Next), Error>;
        }
        #[doc = "A message that party state `R` receives from every other party (implemented only for the message that state waits for)."]
        #[diagnostic::on_unimplemented(message = #recv_msg, label = "this state does not expect this message", note = #note)]
        pub trait Incoming<R>: Sized {
            /// The party after the step.
            type Next;
            /// Runs the receive step of `party` with every other party's message.
            fn deliver(received: ::std::vec::Vec<(usize, Self)>, party: R) -> Result<Self::Next, Error>;
        }
    }
}

/// `Comm` and `comm`: bytes each party sends, from the specification.
fn comm_items(ir: &Ir) -> TokenStream {
    let n = super::wire::shape(&schedule::parties(ir));
    let any_fixed =
        (0..ir.rounds.len()).any(|k| schedule::fixed(ir, k).is_some()) || ir.dealer.is_some();
    let exchanges = check_exchanges(ir);
    let comm_body = if any_fixed {
        fixed_comm_body(ir, &n, &exchanges)
    } else {
        uniform_comm_body(ir, &n, &exchanges)
    };
    let comm = if any_fixed {
        quote! {
            let __n = #n;
            (0..__n).map(|me| comm_of(params, me)).max_by_key(|c| c.per_party).unwrap_or_else(|| comm_of(params, 0))
        }
    } else {
        quote!(comm_of(params, 0))
    };
    quote! {
        /// Bytes one party sends in a run, derived from the specification
        /// (frame headers and the session hello not included).
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Comm {
            /// Bytes each party sends in total (to all peers), including the digests of the broadcast checks.
            pub per_party: usize,
            /// Of these, the digests of the broadcast consistency checks (none with two parties, where a party's broadcast has one receiver and needs no check).
            pub check_bytes: usize,
            /// Message exchanges (flights: every party writes, then reads): the rounds, plus one for each broadcast check not batched with the next round's messages when the run needs it (not with two parties). The session hello travels with the first flight and costs none.
            pub rounds: usize,
        }
        /// Communication of party `me` in one run with these parameters (the
        /// same for every party unless a round has one fixed sender or receiver).
        #[allow(clippy::all)]
        pub fn comm_of(params: &Params, me: usize) -> Comm {
            #comm_body
        }
        /// Communication of one run with these parameters: of the party that
        /// sends the most (every party's, unless a round has one fixed
        /// sender or receiver; see `comm_of`).
        pub fn comm(params: &Params) -> Comm {
            #comm
        }
    }
}

/// The flights the broadcast checks add to `Comm::rounds`: one term per
/// check not batched with the next round's messages (when the run needs it).
fn check_exchanges(ir: &Ir) -> Vec<TokenStream> {
    let ops = schedule::ops(ir);
    // An unbatched check costs a flight when the run needs it.
    (0..ops.len())
        .filter_map(|c| match ops[c] {
            Op::Check(r) if !schedule::check_batched(&ops, c) => {
                let need = mesh::check_needed(ir, r);
                Some(quote!(.wrapping_add(usize::from(#need))))
            }
            _ => None,
        })
        .collect()
}

/// The body of `comm_of` when a round has one fixed sender or receiver (or
/// there is a dealer): summed round by round for party `me`.
fn fixed_comm_body(ir: &Ir, n: &TokenStream, exchanges: &[TokenStream]) -> TokenStream {
    let dealer_flights = (0..ir.rounds.len())
        .filter(|&k| schedule::dealer_sends(ir, k) || schedule::dealer_receives(ir, k))
        .count();
    let dealer_rounds = match ir.dealer {
        Some(_) => quote! {
            if me == __n {
                return Comm { per_party, check_bytes, rounds: #dealer_flights };
            }
        },
        None => quote!(),
    };
    let (sent, digests): (Vec<_>, Vec<_>) =
        (0..ir.rounds.len()).map(|k| round_bytes(ir, k)).unzip();
    quote! {
        let __n = #n;
        let __peers = __n.saturating_sub(1);
        let check_bytes = 0usize #(.wrapping_add(#digests))*;
        let per_party = 0usize #(.wrapping_add(#sent))*.wrapping_add(check_bytes);
        #dealer_rounds
        Comm { per_party, check_bytes, rounds: ROUNDS #(#exchanges)* }
    }
}

/// The body of `comm_of` when every party sends the same: each round's
/// message to every peer, and the digests of the checked broadcasts.
fn uniform_comm_body(ir: &Ir, n: &TokenStream, exchanges: &[TokenStream]) -> TokenStream {
    let rt = rt();
    let msgs = ir.rounds.iter().map(|r| {
        let m = format_ident!("{}", r.msg);
        match r.party {
            // One message, to the neighbour on the ring.
            Some(PartyRound::Ring { .. }) => quote!(.wrapping_add(msgs::#m::wire_len(params))),
            _ => quote!(.wrapping_add(__peers.wrapping_mul(msgs::#m::wire_len(params)))),
        }
    });
    let digests = (0..ir.rounds.len())
        .filter(|&k| schedule::checked(ir, k))
        .map(|k| {
            let need = mesh::check_needed(ir, k);
            quote!(.wrapping_add(if #need { __peers.wrapping_mul(__n).wrapping_mul(#rt::transport::mpc::DIGEST_LEN) } else { 0 }))
        });
    quote! {
        let _ = me;
        let __n = #n;
        let __peers = __n.saturating_sub(1);
        let check_bytes = 0usize #(#digests)*;
        let per_party = 0usize #(#msgs)*.wrapping_add(check_bytes);
        Comm { per_party, check_bytes, rounds: ROUNDS #(#exchanges)* }
    }
}

/// Bytes party `me` sends in round `k` (its messages, and the digests of a
/// checked broadcast), as a term added to `per_party`; and the digests alone.
fn round_bytes(ir: &Ir, k: usize) -> (TokenStream, TokenStream) {
    let rt = rt();
    let r = &ir.rounds[k];
    let m = format_ident!("{}", r.msg);
    let msg = quote!(msgs::#m::wire_len(params));
    let sent = match r.party {
        Some(
            PartyRound::FixedBroadcast { sender: DEALER, .. }
            | PartyRound::FromOne { sender: DEALER },
        ) => {
            quote!(if me == __n { __n.wrapping_mul(#msg) } else { 0 })
        }
        Some(PartyRound::ToOne { receiver: DEALER }) => quote!(if me == __n { 0 } else { #msg }),
        Some(PartyRound::FixedBroadcast { sender: c, .. } | PartyRound::FromOne { sender: c }) => {
            quote!(if me == #c { __peers.wrapping_mul(#msg) } else { 0 })
        }
        Some(PartyRound::ToOne { receiver: c }) => quote!(if me == #c { 0 } else { #msg }),
        Some(PartyRound::Between { sender: s, .. }) => quote!(if me == #s { #msg } else { 0 }),
        // One message, to the neighbour on the ring.
        Some(PartyRound::Ring { .. }) if ir.dealer.is_some() => {
            quote!(if me == __n { 0 } else { #msg })
        }
        Some(PartyRound::Ring { .. }) => msg.clone(),
        _ if ir.dealer.is_some() => quote!(if me == __n { 0 } else { __peers.wrapping_mul(#msg) }),
        _ => quote!(__peers.wrapping_mul(#msg)),
    };
    let need = mesh::check_needed(ir, k);
    let digests = match r.party {
        _ if !schedule::checked(ir, k) => quote!(0usize),
        _ if ir.dealer.is_some() && schedule::checked(ir, k) => {
            let d = match r.party {
                Some(PartyRound::FixedBroadcast { .. }) => {
                    quote!(__peers.wrapping_mul(#rt::transport::mpc::DIGEST_LEN))
                }
                _ => {
                    quote!(__peers.wrapping_mul(__n).wrapping_mul(#rt::transport::mpc::DIGEST_LEN))
                }
            };
            quote!(if me == __n { 0 } else { #d })
        }
        Some(PartyRound::FixedBroadcast { .. }) => {
            quote!(__peers.wrapping_mul(#rt::transport::mpc::DIGEST_LEN))
        }
        _ => quote!(__peers.wrapping_mul(__n).wrapping_mul(#rt::transport::mpc::DIGEST_LEN)),
    };
    (sent, quote!(if #need { #digests } else { 0usize }))
}

/// The receiver of a ring round as written: `P[(i + 1) % n]`.
pub(crate) fn ring_text(p: &str, step: i64, mul: u64) -> String {
    match step {
        s if mul != 1 => format!("{p}[({mul} * i + {s}) % n]"),
        s if s >= 0 => format!("{p}[(i + {s}) % n]"),
        s => format!("{p}[(i + n - {}) % n]", s.unsigned_abs()),
    }
}

/// How the flow note names fixed party `c` (`0`, or the dealer).
fn fixed_text(ir: &Ir, c: usize) -> String {
    match c {
        DEALER => ir.dealer.clone().unwrap_or_default(),
        _ => format!("{}[{c}]", ir.roles[0]),
    }
}

impl PartyGen<'_> {
    /// Every item of the party.
    fn party_items(&self) -> TokenStream {
        let rt = rt();
        let (role, role_mod, p, pname) = (&self.role, &self.role_mod, self.pname(), &self.ir.name);
        let io = self.io_structs();
        let states = self.state_structs();
        let new_fn = self.new_fn();
        let (subs_def, _, _) = self.subs_struct();
        let subs_ty = format_ident!("{}Subs", p);
        let first = Self::state_ident(&self.plan.states[0]);
        let mut steps = vec![];
        let mut driver = vec![];
        for si in 0..self.plan.states.len() {
            if let Some((code, drive)) = self.step(si) {
                steps.push(code);
                driver.push(drive);
            }
        }
        let run_fn = driver::run_fn(self, driver);
        let finish = self.finish_impl();
        let doc = format!("A party `{p}[me]` of `{pname}` (`{}`), as a typestate: each method performs one step of the round flow and returns the party in its next state. Every party runs the same steps; `me` is its index and `n` (a parameter) the number of parties.", self.ir.location);
        quote! {
            #io
            #subs_def
            #[doc = concat!("States of a party `", #p, "[me]`.")]
            pub mod #role_mod {
                #[allow(unused_imports)]
                use super::*;
                #states
            }
            #[doc = #doc]
            #[must_use = "a protocol party does nothing until its next step is called"]
            pub struct #role<S> { me: usize, params: Params, rng: #rt::primitives::rng::Rng, session: #rt::Block, session_id: [u8; 16], subs: #subs_ty, st: S }
            impl<S> #role<S> {
                /// This party's index (`P[me]`).
                pub fn me(&self) -> usize { self.me }
                /// The agreed parameters.
                pub fn params(&self) -> &Params { &self.params }
                /// The send step of this state, named by its message type
                /// (`party.send::<msgs::M>()`): as the `send_<round>` method;
                /// a message this state does not send is a compile error.
                pub fn send<M: Outgoing<Self>>(self) -> Result<(M::Out, M::Next), Error> {
                    M::produce(self)
                }
                /// The receive step of this state, given every other party's
                /// message as `(sender, message)` pairs: as the `recv_<round>`
                /// method; a message this state does not expect is a compile error.
                pub fn recv<M: Incoming<Self>>(self, received: ::std::vec::Vec<(usize, M)>) -> Result<M::Next, Error> {
                    M::deliver(received, self)
                }
            }
            impl #role<#role_mod::#first> {
                #new_fn
                #run_fn
            }
            #(#steps)*
            #finish
        }
    }
}
