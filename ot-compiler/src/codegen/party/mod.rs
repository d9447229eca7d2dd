//! Code generation for n-party protocols (`role P[n]`): one party type
//! `P<State>` carrying its index `me` and the parameters (with `n`), a
//! typestate per step, sans-IO step methods taking and producing per-peer
//! messages, the broadcast consistency check (digests exchanged after every
//! checked `-> all` round), and a blocking driver over an
//! `ot_runtime::mesh::Mesh` that sends the session hello with its first
//! round and checks each peer's before using anything from it.
//!
//! The broadcast check is a run-time decision: a party's broadcast with
//! two parties has one receiver, the other party, so there is nobody its
//! sender could have sent another message to, and the check (digests and
//! their exchange) is skipped; the dealer's broadcast reaches every party
//! and is always checked (`mesh::check_needed`).

mod dealer;
mod driver;
mod errors;
mod mesh;
mod steps;

use super::expr::ExprGen;
use super::names::{id, rt};
use super::secret::{held_ty_optional, take_out, take_out_optional, unwrap_copy, wrap_values};
use crate::case::snake;
use crate::ir::*;
use crate::plan::party::{self as schedule, Op, PState, Plan};
use crate::types::Ty;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeSet;

/// Generates the items of an n-party protocol module.
pub(super) fn generate(ir: &Ir, plan: &crate::plan::Plan) -> TokenStream {
    let eg = ExprGen::new(ir);
    let g = PartyGen::new(ir, &eg, plan);
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
        quote!(.wrapping_add(__peers.wrapping_mul(msgs::#m::wire_len(params))))
    });
    let digests = (0..ir.rounds.len())
        .filter(|&k| schedule::checked(ir, k))
        .map(|k| {
            let need = mesh::check_needed(ir, k);
            quote!(.wrapping_add(if #need { __peers.wrapping_mul(__n).wrapping_mul(#rt::mpc::DIGEST_LEN) } else { 0 }))
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
        _ if ir.dealer.is_some() => quote!(if me == __n { 0 } else { __peers.wrapping_mul(#msg) }),
        _ => quote!(__peers.wrapping_mul(#msg)),
    };
    let need = mesh::check_needed(ir, k);
    let digests = match r.party {
        _ if !schedule::checked(ir, k) => quote!(0usize),
        _ if ir.dealer.is_some() && schedule::checked(ir, k) => {
            let d = match r.party {
                Some(PartyRound::FixedBroadcast { .. }) => {
                    quote!(__peers.wrapping_mul(#rt::mpc::DIGEST_LEN))
                }
                _ => quote!(__peers.wrapping_mul(__n).wrapping_mul(#rt::mpc::DIGEST_LEN)),
            };
            quote!(if me == __n { 0 } else { #d })
        }
        Some(PartyRound::FixedBroadcast { .. }) => {
            quote!(__peers.wrapping_mul(#rt::mpc::DIGEST_LEN))
        }
        _ => quote!(__peers.wrapping_mul(__n).wrapping_mul(#rt::mpc::DIGEST_LEN)),
    };
    (sent, quote!(if #need { #digests } else { 0usize }))
}

/// How the flow note names fixed party `c` (`0`, or the dealer).
fn fixed_text(ir: &Ir, c: usize) -> String {
    match c {
        DEALER => ir.dealer.clone().unwrap_or_default(),
        _ => format!("{}[{c}]", ir.roles[0]),
    }
}

/// The secret values of the parties (`dealer`: of the dealer), by the rule
/// of `codegen::secret`.
fn role_secrets(ir: &Ir, dealer: bool) -> BTreeSet<String> {
    crate::plan::secrets::secrets(ir, &schedule::value_types(ir, dealer))
}

/// A state's fields as a pattern that opens it: the secret ones bound
/// `mut` (a secret may be moved out of its wrapper).
fn open_fields<'n>(
    secrets: &BTreeSet<String>,
    names: impl Iterator<Item = &'n String>,
) -> Vec<TokenStream> {
    names
        .map(|v| {
            let i = id(v);
            match secrets.contains(v) {
                true => quote!(mut #i),
                false => quote!(#i),
            }
        })
        .collect()
}

/// The outputs of a role, out of the wrappers of its secrets (from here
/// they are the caller's); `optional(name)`: an output held as an `Option`.
fn output_values(
    secrets: &BTreeSet<String>,
    outputs: &[(String, Ty)],
    optional: &dyn Fn(&str) -> bool,
) -> Vec<TokenStream> {
    outputs
        .iter()
        .map(|(n, t)| match (secrets.contains(n), optional(n)) {
            (true, true) => take_out_optional(n, t),
            (true, false) => take_out(n, t),
            _ => {
                let i = id(n);
                quote!(#i)
            }
        })
        .collect()
}

/// One statement of role `role` with the values `live` after it; a check
/// names the party that aborted (`me`) and the culprit of a per-party check.
fn stmt_code(
    eg: &ExprGen,
    role: &str,
    s: &TStmt,
    live: &std::collections::BTreeSet<String>,
) -> TokenStream {
    match s {
        TStmt::Assign(..) => eg.stmt_live(s, role, &|n| live.contains(n)),
        TStmt::Check(cond, abort, text) => {
            let c = eg.owned(cond);
            let a = id(abort);
            if matches!(cond.ty, Ty::Array(..)) {
                quote! {
                    let __ok: ::std::vec::Vec<bool> = ::core::iter::IntoIterator::into_iter(#c).collect();
                    if let Some(__j) = __ok.iter().position(|b| !*b) {
                        return Err(Error::#a { party: me, culprit: Some(__j), check: #text });
                    }
                }
            } else {
                quote!(if !(#c) { return Err(Error::#a { party: me, culprit: None, check: #text }); })
            }
        }
    }
}

/// The start of a `new` (of a party or the dealer): the session block from
/// the session id, the inputs taken apart (the secret ones wrapped, `wrap`)
/// and checked, the computation before the first round.
fn start(
    input: &Ident,
    (names, wrap): (&[Ident], TokenStream),
    checks: &[TokenStream],
    init: &[TokenStream],
) -> TokenStream {
    let rt = rt();
    quote! {
        let mut rng = rng;
        let session_id = session;
        let session = #rt::mpc::session_block(session);
        let #input { #(#names),* } = input;
        #wrap
        #(#checks)*
        #(#init)*
    }
}

/// Fields of an input or output struct: names, Rust types, doc lines.
type IoFields = (Vec<Ident>, Vec<TokenStream>, Vec<String>);

/// `{role}Input` and `{role}Output` of `who` (for the doc lines).
fn io_items(role: &str, who: &str, ins: IoFields, outs: IoFields) -> TokenStream {
    let input = format_ident!("{role}Input");
    let output = format_ident!("{role}Output");
    let (in_names, in_tys, in_docs) = ins;
    let (out_names, out_tys, out_docs) = outs;
    let input_doc = format!("Inputs of {who}.");
    let output_doc = format!("Outputs of {who}.");
    quote! {
        #[doc = #input_doc]
        #[derive(Clone, Debug, Default)]
        pub struct #input { #( #[doc = #in_docs] pub #in_names: #in_tys, )* }
        #[doc = #output_doc]
        #[derive(Clone, Debug, PartialEq)]
        pub struct #output { #( #[doc = #out_docs] pub #out_names: #out_tys, )* }
    }
}

/// Code generation for the party.
pub(super) struct PartyGen<'a> {
    ir: &'a Ir,
    eg: &'a ExprGen,
    plan: Plan,
    role: Ident,
    role_mod: Ident,
    /// The parties' secret values (held in wiping wrappers, see `secret`).
    secrets: BTreeSet<String>,
}

impl<'a> PartyGen<'a> {
    fn new(ir: &'a Ir, eg: &'a ExprGen, plan: &crate::plan::Plan) -> Self {
        PartyGen {
            ir,
            eg,
            plan: plan.party.clone().unwrap_or_else(|| schedule::plan(ir)),
            role: id(&ir.roles[0]),
            role_mod: format_ident!("{}_state", snake(&ir.roles[0])),
            secrets: role_secrets(ir, false),
        }
    }

    fn pname(&self) -> &'a str {
        &self.ir.roles[0]
    }

    /// The state struct's name.
    fn state_ident(s: &PState) -> Ident {
        format_ident!("{}", s.name)
    }

    /// Extra fields a state carries besides values: the own message while
    /// waiting for a round, the digests while checking one.
    fn extra_fields(&self, s: &PState) -> Vec<(Ident, TokenStream)> {
        let mut out = vec![];
        if let Some(r) = s.own {
            let m = format_ident!("{}", self.ir.rounds[r].msg);
            let t = match schedule::fixed(self.ir, r) {
                Some(_) => quote!(::core::option::Option<msgs::#m>),
                None => quote!(msgs::#m),
            };
            out.push((format_ident!("__own"), t));
        }
        if s.digests.is_some() {
            let rt = rt();
            out.push((
                format_ident!("__digests"),
                quote!(::std::vec::Vec<[u8; #rt::mpc::DIGEST_LEN]>),
            ));
        }
        out
    }

    /// The expression building state `s` from the values in scope.
    fn build_state(&self, s: &PState) -> TokenStream {
        let role_mod = &self.role_mod;
        let n = Self::state_ident(s);
        let fns = s
            .vars
            .iter()
            .map(|(v, _)| id(v))
            .chain(self.extra_fields(s).into_iter().map(|(f, _)| f));
        quote!(#role_mod::#n { #(#fns),* })
    }

    /// Pattern destructuring state `s` (its secrets bound `mut`).
    fn open_state(&self, s: &PState) -> TokenStream {
        let role_mod = &self.role_mod;
        let n = Self::state_ident(s);
        let fns = open_fields(&self.secrets, s.vars.iter().map(|(v, _)| v));
        let extra = self.extra_fields(s).into_iter().map(|(f, _)| f);
        quote!(#role_mod::#n { #(#fns,)* #(#extra),* })
    }

    fn state_structs(&self) -> TokenStream {
        let structs = self.plan.states.iter().map(|s| {
            let n = Self::state_ident(s);
            let doc = &s.doc;
            let (mut fns, mut fts): (Vec<Ident>, Vec<TokenStream>) = s
                .vars
                .iter()
                .map(|(v, t)| {
                    let held =
                        held_ty_optional(self.secrets.contains(v), s.held.contains_key(v), t);
                    (id(v), held)
                })
                .unzip();
            for (f, t) in self.extra_fields(s) {
                fns.push(f);
                fts.push(t);
            }
            quote!(#[doc = #doc] pub struct #n { #( pub(super) #fns: #fts, )* })
        });
        quote!(#(#structs)*)
    }

    /// The statements of operations `from..to` (local computation and checks).
    fn stmts_between(&self, from: usize, to: usize) -> Vec<TokenStream> {
        (from..to)
            .filter_map(|i| match self.plan.ops[i] {
                Op::Stmt(k) => match &self.ir.events[0][k] {
                    Event::Stmt(s) => Some(match self.ir.party_fixed.stmts.get(&k) {
                        Some(&c) => self.fixed_stmt(s, i, c),
                        None => self.stmt(s, i),
                    }),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// A statement of the fixed party `c` (`at P[c]`): run only at `c`, on
    /// its own values; the value it defines is `Some` there, `None` elsewhere.
    fn fixed_stmt(&self, s: &TStmt, i: usize, c: usize) -> TokenStream {
        let mut reads = std::collections::BTreeSet::new();
        let (TStmt::Assign(_, e) | TStmt::Check(e, _, _)) = s;
        e.locals(&mut reads);
        let unwraps = self.unwraps(reads.iter(), i);
        let inner = self.stmt(s, i);
        match s {
            TStmt::Assign(n, e) => {
                let t = held_ty_optional(self.secrets.contains(n), true, &e.ty);
                let n = id(n);
                quote! {
                    let #n: #t = if me == #c {
                        #(#unwraps)*
                        #inner
                        ::core::option::Option::Some(#n)
                    } else {
                        ::core::option::Option::None
                    };
                }
            }
            TStmt::Check(..) => quote!(if me == #c { #(#unwraps)* #inner }),
        }
    }

    /// Inside a fixed party's code: its own copies of the values among
    /// `names` that it holds (as `Option`s) before operation `i`.
    fn unwraps<'n>(&self, names: impl Iterator<Item = &'n String>, i: usize) -> Vec<TokenStream> {
        names
            .filter(|n| self.plan.held[i].contains_key(*n))
            .map(|n| {
                let v = id(n);
                let held = quote!(#v.as_ref().ok_or(Error::NotHeld { party: me, value: #n })?);
                unwrap_copy(self.secrets.contains(n), n, held)
            })
            .collect()
    }

    /// One statement; a check names the party (and the culprit of a
    /// per-party check).
    fn stmt(&self, s: &TStmt, i: usize) -> TokenStream {
        stmt_code(self.eg, self.pname(), s, &self.plan.live_out[i])
    }

    fn io_structs(&self) -> TokenStream {
        let (p, pname) = (self.pname(), &self.ir.name);
        let fields = |list: &[(String, Ty)], fixed: &std::collections::BTreeMap<String, usize>| {
            let names: Vec<Ident> = list.iter().map(|(n, _)| id(n)).collect();
            let tys: Vec<TokenStream> = list
                .iter()
                .map(|(n, t)| held_ty_optional(false, fixed.contains_key(n), t))
                .collect();
            let docs: Vec<String> = list
                .iter()
                .map(|(n, t)| match fixed.get(n) {
                    Some(c) => format!("`{n}: {t}` of `{p}[{c}]` only: `Some` at party {c}, `None` at every other party."),
                    None => format!("`{n}: {t}`"),
                })
                .collect();
            (names, tys, docs)
        };
        let fixed = &self.ir.party_fixed;
        io_items(
            p,
            &format!("a party `{p}[me]` in `{pname}`"),
            fields(&self.ir.inputs[0], &fixed.inputs),
            fields(&self.ir.outputs[0], &fixed.outputs),
        )
    }

    /// `new`: checks the index and inputs, runs the computation before the
    /// first communication.
    fn new_fn(&self) -> TokenStream {
        let rt = rt();
        let (role, p) = (&self.role, self.pname());
        let input = format_ident!("{}Input", p);
        let inputs = &self.ir.inputs[0];
        let first = &self.plan.states[0];
        let init = self.stmts_between(0, first.entry);
        let state = self.build_state(first);
        let (in_names, in_checks) = self.input_checks(inputs);
        let fixed = &self.ir.party_fixed.inputs;
        let wrap = wrap_values(&self.secrets, inputs.iter().map(|(n, _)| n), &|n| {
            fixed.contains_key(n)
        });
        let n = super::wire::shape(&schedule::parties(self.ir));
        let prologue = start(&input, (&in_names, wrap), &in_checks, &init);
        let doc = format!("Starts party `{p}[me]` of session `session` (the same 16 bytes at every party, fresh for every run): checks its index and inputs and runs its local computation up to its first round.");
        quote! {
            #[doc = #doc]
            #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
            pub fn new(me: usize, params: Params, session: [u8; 16], input: #input, rng: #rt::rng::Rng) -> Result<Self, Error> {
                let __n = #n;
                if me >= __n {
                    return Err(Error::Party { index: me, parties: __n });
                }
                #prologue
                Ok(#role { me, params, rng, session, session_id, st: #state })
            }
        }
    }

    /// The shape checks of the inputs; an input of one fixed party must be
    /// given (`Some`) at that party and only there.
    fn input_checks(&self, inputs: &[(String, Ty)]) -> (Vec<Ident>, Vec<TokenStream>) {
        let (names, mut checks) = super::wire::input_checks(inputs);
        for (k, (n, _)) in inputs.iter().enumerate() {
            let Some(&c) = self.ir.party_fixed.inputs.get(n) else {
                continue;
            };
            let v = id(n);
            let check = std::mem::take(&mut checks[k]);
            checks[k] = quote! {
                if #v.is_some() != (me == #c) {
                    return Err(Error::FixedInput { party: me, holder: #c, input: #n });
                }
                if let ::core::option::Option::Some(#v) = &#v {
                    #check
                }
            };
        }
        (names, checks)
    }

    fn finish_impl(&self) -> TokenStream {
        let (role, role_mod) = (&self.role, &self.role_mod);
        let output = format_ident!("{}Output", self.pname());
        let Some(last) = self.plan.states.last() else {
            return quote!();
        };
        let open = self.open_state(last);
        let stmts = self.stmts_between(last.entry, self.plan.ops.len());
        let end = &self.plan.held[self.plan.ops.len()];
        let outputs = &self.ir.outputs[0];
        let vals = output_values(&self.secrets, outputs, &|n| end.contains_key(n));
        let outs = outputs.iter().zip(vals).map(|((n, _), val)| {
            let v = id(n);
            match self.ir.party_fixed.outputs.get(n) {
                Some(c) if !end.contains_key(n) => quote!(#v: if me == #c { ::core::option::Option::Some(#val) } else { ::core::option::Option::None }),
                _ => quote!(#v: #val),
            }
        });
        quote! {
            impl #role<#role_mod::Done> {
                /// The party's outputs, after its last local computation; a
                /// failing check is its abort.
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn finish(self) -> Result<#output, Error> {
                    let #role { me, params, mut rng, session, session_id, st } = self;
                    let #open = st;
                    #(#stmts)*
                    Ok(#output { #(#outs),* })
                }
            }
        }
    }

    /// Every item of the party.
    fn party_items(&self) -> TokenStream {
        let rt = rt();
        let (role, role_mod, p, pname) = (&self.role, &self.role_mod, self.pname(), &self.ir.name);
        let io = self.io_structs();
        let states = self.state_structs();
        let new_fn = self.new_fn();
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
            #[doc = concat!("States of a party `", #p, "[me]`.")]
            pub mod #role_mod {
                #[allow(unused_imports)]
                use super::*;
                #states
            }
            #[doc = #doc]
            #[must_use = "a protocol party does nothing until its next step is called"]
            pub struct #role<S> { me: usize, params: Params, rng: #rt::rng::Rng, session: #rt::Block, session_id: [u8; 16], st: S }
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
