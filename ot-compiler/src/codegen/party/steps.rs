//! The sans-IO step methods of a party: send (one message for every peer,
//! or one per peer in a private round), receive (every other party's
//! message, assembled into arrays indexed by sender), and the broadcast
//! consistency check (digests of what the party received, compared with
//! every peer's).

use super::context::PartyGen;
use super::driver::Drive;
use super::mesh::{check_needed, endpoints, peer};
use crate::codegen::names::{id, rt};
use crate::codegen::wire::{check_shape, shape};
use crate::ir::*;
use crate::plan::party::{check_batched, checked, dealer_sends, fixed, parties, Op, PState};
use crate::types::Ty;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Parts of a step method.
pub(super) struct Parts {
    pub(super) doc: String,
    pub(super) method: Ident,
    /// Generic parameters of the method (`<M: Mesh + ?Sized>`), if any.
    pub(super) generics: TokenStream,
    pub(super) args: TokenStream,
    pub(super) ret: TokenStream,
    pub(super) middle: TokenStream,
    pub(super) result: TokenStream,
}

/// The names a step of a round uses: the round's name, the message type,
/// the method (`send_<round>`, `recv_<round>`), the fields, and one binding per field while a
/// message is taken apart.
struct StepNames<'a>(&'a str, Ident, Ident, Vec<Ident>, Vec<Ident>);

impl PartyGen<'_> {
    fn step_names(&self, r: usize, step: &str) -> StepNames<'_> {
        let rd = &self.ir.rounds[r];
        StepNames(
            &rd.name,
            format_ident!("{}", rd.msg),
            format_ident!("{step}_{}", rd.name),
            rd.fields.iter().map(|(f, _)| id(f)).collect(),
            rd.fields
                .iter()
                .map(|(f, _)| format_ident!("__f_{}", f))
                .collect(),
        )
    }

    /// The step leaving state `si` and its driver statements (None: `Done`).
    pub(super) fn step(&self, si: usize) -> Option<(TokenStream, Drive)> {
        let s = &self.plan.states[si];
        let at = s.op?;
        let next = &self.plan.states[si + 1];
        let op = self.plan.ops[at];
        // A batched check: its digests travel in one frame with the next
        // round's message (digests first), so the check step reads that
        // frame and keeps the message for the receive step.
        let ops = &self.plan.ops;
        let prefix = match (op, s.digests) {
            (Op::Send(_), Some(r)) => Some(format_ident!("digests_{}", self.ir.rounds[r].name)),
            _ => None,
        };
        let carried = match (op, at.checked_sub(1).map(|p| ops[p])) {
            (Op::Check(_), Some(Op::Send(r2))) => Some(r2),
            _ => None,
        };
        let stashed = matches!(op, Op::Recv(_)) && at > 0 && check_batched(ops, at - 1);
        let (parts, drive) = match op {
            Op::Send(r) if fixed(self.ir, r).is_some() => self.fixed_send_parts(r, next, at),
            Op::Recv(r) if fixed(self.ir, r).is_some() => self.fixed_recv_parts(r, next),
            Op::Send(r) => self.send_parts(r, next, prefix.as_ref()),
            Op::Recv(r) => self.recv_parts(r, next, stashed),
            Op::Check(r) => self.check_parts(r, next, carried),
            Op::Sub(k) => self.sub_parts(k, next),
            Op::Stmt(_) => return None,
        };
        let extra = match s.digests {
            Some(r) => self.digests_method(s, r),
            None => quote!(),
        };
        let generic = self.trait_impl(s, next, op);
        let method = self.method(s, next, at, parts, extra);
        let (sends, read) = self.frames(op, stashed, carried);
        let drive = Drive {
            code: drive,
            sends,
            read,
        };
        Some((quote!(#method #generic), drive))
    }

    /// What the driver step of `op` does on the mesh: whether it writes,
    /// and the frame it reads (from which peers, of which exact length).
    /// A receive whose messages a batched check already read reads nothing;
    /// a batched check reads the digests and the carried round's message in
    /// one frame.
    fn frames(
        &self,
        op: Op,
        stashed: bool,
        carried: Option<usize>,
    ) -> (bool, Option<(TokenStream, TokenStream)>) {
        let wire = |r: usize| {
            let m = format_ident!("{}", self.ir.rounds[r].msg);
            quote!(msgs::#m::wire_len(&__s.params))
        };
        let peers = quote!(::core::clone::Clone::clone(&__peers));
        match op {
            Op::Send(_) | Op::Stmt(_) => (matches!(op, Op::Send(_)), None),
            // A sub-protocol's runs lift the announcements and read what
            // they read; the next send announces again.
            Op::Sub(_) => (false, None),
            Op::Recv(_) if stashed => (false, None),
            Op::Recv(r) if fixed(self.ir, r).is_some() => (
                false,
                Some((self.fixed_senders(r, quote!(__s.me)), wire(r))),
            ),
            Op::Recv(r) if matches!(self.ir.rounds[r].party, Some(PartyRound::Ring { .. })) => {
                let Some(PartyRound::Ring { step, inv, .. }) = self.ir.rounds[r].party else {
                    return (false, None);
                };
                let from = ring_source(quote!(__s.me), quote!(__n), step, inv);
                (false, Some((quote!(::std::vec![#from]), wire(r))))
            }
            // A chunked round is read as frames of at most a chunk; the
            // announcement covers all of them (payloads and headers), so a
            // transport reads ahead as much as for the unchunked round.
            Op::Recv(r) => match self.chunk_frame(r) {
                Some(step) => {
                    let w = wire(r);
                    let all = quote!(#w.saturating_add(#w.div_ceil(#step).saturating_mul(8)));
                    (false, Some((peers, all)))
                }
                None => (false, Some((peers, wire(r)))),
            },
            Op::Check(r) => {
                let need = check_needed(self.ir, r);
                let digests = self.digests_len(r);
                match carried {
                    Some(r2) => {
                        let w = wire(r2);
                        (false, Some((peers, quote!(#digests.wrapping_add(#w)))))
                    }
                    // A check skipped at run time (two parties) reads nothing.
                    None => {
                        let from = quote!(if #need { #peers } else { ::std::vec::Vec::new() });
                        (true, Some((from, digests)))
                    }
                }
            }
        }
    }

    /// The `Outgoing`/`Incoming` implementation behind the generic
    /// `send::<M>()`/`recv(...)` for a send or receive step.
    fn trait_impl(&self, s: &PState, next: &PState, op: Op) -> TokenStream {
        let (role, role_mod) = (&self.role, &self.role_mod);
        let cur = Self::state_ident(s);
        let nxt = Self::state_ident(next);
        match op {
            Op::Send(r) => {
                let rd = &self.ir.rounds[r];
                let m = format_ident!("{}", rd.msg);
                let method = format_ident!("send_{}", rd.name);
                let per_peer = rd.party == Some(PartyRound::Private) || fixed(self.ir, r).is_some();
                let out = if per_peer {
                    quote!(::std::vec::Vec<(usize, msgs::#m)>)
                } else {
                    quote!(msgs::#m)
                };
                quote! {
                    impl Outgoing<#role<#role_mod::#cur>> for msgs::#m {
                        type Out = #out;
                        type Next = #role<#role_mod::#nxt>;
                        fn produce(party: #role<#role_mod::#cur>) -> Result<(Self::Out, Self::Next), Error> {
                            party.#method()
                        }
                    }
                }
            }
            Op::Recv(r) => {
                let rd = &self.ir.rounds[r];
                let m = format_ident!("{}", rd.msg);
                let method = format_ident!("recv_{}", rd.name);
                quote! {
                    impl Incoming<#role<#role_mod::#cur>> for msgs::#m {
                        type Next = #role<#role_mod::#nxt>;
                        fn deliver(received: ::std::vec::Vec<(usize, Self)>, party: #role<#role_mod::#cur>) -> Result<Self::Next, Error> {
                            party.#method(received)
                        }
                    }
                }
            }
            _ => quote!(),
        }
    }

    /// A step method of state `s`: destructures the party, runs the
    /// deferred computation, `middle`, the computation up to the next state.
    fn method(
        &self,
        s: &PState,
        next: &PState,
        at: usize,
        p: Parts,
        extra: TokenStream,
    ) -> TokenStream {
        let (role, role_mod) = (&self.role, &self.role_mod);
        let cur = Self::state_ident(s);
        let open = self.open_state(s);
        let prologue = self.stmts_between(s.entry, at);
        let body = self.stmts_between(at + 1, next.entry);
        let Parts {
            doc,
            method,
            generics,
            args,
            ret,
            middle,
            result,
        } = p;
        quote! {
            impl #role<#role_mod::#cur> {
                #[doc = #doc]
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn #method #generics (self #args) -> Result<#ret, Error> {
                    let #role { me, params, mut rng, session, session_id, mut subs, st } = self;
                    let #open = st;
                    #(#prologue)*
                    #middle
                    #(#body)*
                    Ok(#result)
                }
                #extra
            }
        }
    }

    /// The party in the next state, and its type.
    pub(super) fn next_party(&self, next: &PState) -> (TokenStream, TokenStream) {
        let (role, role_mod) = (&self.role, &self.role_mod);
        let n = Self::state_ident(next);
        let st = self.build_state(next);
        (
            quote!(#role { me, params, rng, session, session_id, subs, st: #st }),
            quote!(#role<#role_mod::#n>),
        )
    }

    fn round_doc(&self, r: usize, what: &str) -> String {
        let rd = &self.ir.rounds[r];
        format!(
            "Round `{}` (`{}`): `{}`. {what}",
            rd.name, rd.location, rd.text
        )
    }

    fn send_parts(&self, r: usize, next: &PState, prefix: Option<&Ident>) -> (Parts, TokenStream) {
        let rd = &self.ir.rounds[r];
        let StepNames(_, m, method, names, _) = self.step_names(r, "send");
        let (next_party, next_ty) = self.next_party(next);
        let n = shape(&parties(self.ir));
        let private = rd.party == Some(PartyRound::Private);
        if !private {
            // One message for every receiver: every other party (a
            // broadcast) or the neighbour on the ring.
            let what = match rd.party {
                Some(PartyRound::Ring { step, mul, .. }) => {
                    let to = if mul == 1 {
                        format!("me + {step}")
                    } else {
                        format!("{mul} * me + {step}")
                    };
                    format!("Builds this party's `{}` for its neighbour on the ring of parties (`{to}` modulo `n`).", rd.msg)
                }
                _ => format!(
                    "Builds this party's `{}`, the same for every other party (send it to each).",
                    rd.msg
                ),
            };
            let parts = Parts {
                generics: quote!(),
                doc: self.round_doc(r, &what),
                method: method.clone(),
                args: quote!(),
                ret: quote!((msgs::#m, #next_ty)),
                middle: quote! {
                    let __msg = msgs::#m { #(#names),* };
                    let __own = ::core::clone::Clone::clone(&__msg);
                },
                result: quote!((__msg, #next_party)),
            };
            let drive = match rd.party {
                Some(PartyRound::Ring { step, mul, .. }) => {
                    let to = ring_target(quote!(__s.me), quote!(__n), step, mul);
                    super::driver::send_one(&method, &rd.name, to)
                }
                _ => {
                    let chunk = self.chunk_frame(r);
                    super::driver::send_all(&method, &rd.name, prefix, chunk.as_ref())
                }
            };
            return (parts, drive);
        }
        let checks = rd.fields.iter().map(|(f, t)| {
            let i = id(f);
            let arr = Ty::Array(Box::new(t.clone()), parties(self.ir));
            check_shape(&arr, &quote!(#i), &rd.name, f)
        });
        let parts = Parts {
            generics: quote!(),
            doc: self.round_doc(r, &format!("Builds this party's `{}` for each other party `j` (element `j` of each field), as `(j, message)` pairs.", rd.msg)),
            method: method.clone(),
            args: quote!(),
            ret: quote!((::std::vec::Vec<(usize, msgs::#m)>, #next_ty)),
            middle: quote! {
                #(#checks)*
                let __n = #n;
                let __msgs: ::std::vec::Vec<(usize, msgs::#m)> = (0..__n)
                    .filter(|&__j| __j != me)
                    .map(|__j| (__j, msgs::#m { #( #names: ::core::clone::Clone::clone(&#names[__j]) ),* }))
                    .collect();
                let __own = msgs::#m { #( #names: ::core::clone::Clone::clone(&#names[me]) ),* };
            },
            result: quote!((__msgs, #next_party)),
        };
        let chunk = self.chunk_frame(r);
        (
            parts,
            super::driver::send_each(&method, &rd.name, prefix, chunk.as_ref()),
        )
    }

    /// The payload of a full frame of chunked round `r` (`chunked(by = k)`:
    /// `k` elements of its one array field), in bytes; `None` if the round
    /// is not chunked.
    fn chunk_frame(&self, r: usize) -> Option<TokenStream> {
        let rd = &self.ir.rounds[r];
        let by = shape(rd.chunk_by.as_ref()?);
        let [(_, Ty::Array(elem, _))] = rd.fields.as_slice() else {
            return None;
        };
        let (rt, t) = (rt(), crate::codegen::wire::rust_ty(elem));
        Some(quote!((#by).saturating_mul(<#t as #rt::transport::wire::Wire>::SIZE).max(1)))
    }

    fn recv_parts(&self, r: usize, next: &PState, stashed: bool) -> (Parts, TokenStream) {
        if let Some(PartyRound::Ring { step, inv, .. }) = self.ir.rounds[r].party {
            return self.ring_recv_parts(r, next, (step, inv));
        }
        let rt = rt();
        let StepNames(rn, m, method, names, parts_of) = self.step_names(r, "recv");
        let (next_party, next_ty) = self.next_party(next);
        let n = shape(&parties(self.ir));
        let need = check_needed(self.ir, r);
        let digests = if checked(self.ir, r) {
            quote! {
                let __digests = if #need {
                    __all
                        .iter()
                        .enumerate()
                        .map(|(__j, __m)| {
                            let mut __b = ::std::vec::Vec::new();
                            __m.encode(&params, &mut __b)?;
                            Ok(#rt::transport::mpc::broadcast_digest(&SPEC_HASH, session, #rn, __j, &__b))
                        })
                        .collect::<Result<::std::vec::Vec<_>, Error>>()?
                } else {
                    ::std::vec::Vec::new()
                };
            }
        } else {
            quote!()
        };
        let what = if checked(self.ir, r) {
            "Takes every other party's message as `(sender, message)` pairs; the fields become arrays indexed by sender (this party's own at `me`). The values are used only after the broadcast check (`check_` step)."
        } else {
            "Takes every other party's message as `(sender, message)` pairs; the fields become arrays indexed by sender (this party's own at `me`), then runs the party's local computation up to its next step."
        };
        let middle = quote! {
            let __n = #n;
            let mut __slots: ::std::vec::Vec<::core::option::Option<msgs::#m>> = (0..__n).map(|_| None).collect();
            for (__p, __m) in received {
                if __p >= __n || __p == me || __slots[__p].is_some() {
                    return Err(Error::Delivery { round: #rn, peer: __p });
                }
                __slots[__p] = Some(__m);
            }
            __slots[me] = Some(__own);
            if let Some(__p) = __slots.iter().position(|__s| __s.is_none()) {
                return Err(Error::Delivery { round: #rn, peer: __p });
            }
            let __all: ::std::vec::Vec<msgs::#m> = __slots.into_iter().flatten().collect();
            #digests
            #( let mut #names = ::std::vec::Vec::with_capacity(__n); )*
            for __m in __all {
                let msgs::#m { #( #names: #parts_of ),* } = __m;
                #( #names.push(#parts_of); )*
            }
        };
        let parts = Parts {
            generics: quote!(),
            doc: self.round_doc(r, what),
            method: method.clone(),
            args: quote!(, received: ::std::vec::Vec<(usize, msgs::#m)>),
            ret: next_ty,
            middle,
            result: next_party,
        };
        let chunk = self.chunk_frame(r);
        (
            parts,
            super::driver::recv_all(&m, &method, rn, stashed, chunk.as_ref()),
        )
    }

    /// The receive of a ring round: the one message of the party `step`
    /// places before this one; its fields become that party's values.
    fn ring_recv_parts(
        &self,
        r: usize,
        next: &PState,
        (step, inv): (i64, u64),
    ) -> (Parts, TokenStream) {
        let StepNames(rn, m, method, names, parts_of) = self.step_names(r, "recv");
        let (next_party, next_ty) = self.next_party(next);
        let n = shape(&parties(self.ir));
        let pred = ring_source(quote!(me), quote!(__n), step, inv);
        let middle = quote! {
            let __n = #n;
            let __pred: usize = #pred;
            let mut __got = received.into_iter();
            let __m = match (__got.next(), __got.next()) {
                (Some((__p, __m)), None) if __p == __pred => __m,
                (Some((__p, _)), None) => return Err(Error::Delivery { round: #rn, peer: __p }),
                (Some(_), Some((__p, _))) => return Err(Error::Delivery { round: #rn, peer: __p }),
                (None, _) => return Err(Error::Delivery { round: #rn, peer: __pred }),
            };
            let msgs::#m { #( #names: #parts_of ),* } = __m;
            #( let #names = #parts_of; )*
        };
        let parts = Parts {
            generics: quote!(),
            doc: self.round_doc(r, &format!("Takes the one message of this party's neighbour on the ring (`{}` modulo `n`) as a `(sender, message)` pair; its fields become this party's values, then runs the party's local computation up to its next step.", if inv == 1 { format!("me - {step}") } else { format!("{inv} * (me - {step})") })),
            method: method.clone(),
            args: quote!(, received: ::std::vec::Vec<(usize, msgs::#m)>),
            ret: next_ty,
            middle,
            result: next_party,
        };
        let from = ring_source(quote!(__s.me), quote!(__n), step, inv);
        let from = quote!(::std::vec![#from]);
        (parts, super::driver::recv_from(&m, &method, rn, from))
    }

    /// `digests_<round>`: the frame this party sends every peer in the check.
    fn digests_method(&self, s: &PState, r: usize) -> TokenStream {
        let rd = &self.ir.rounds[r];
        let method = format_ident!("digests_{}", rd.name);
        let cur = Self::state_ident(s);
        let role_mod = &self.role_mod;
        let doc = format!("The broadcast check of round `{}`: the digests of the message each party sent as this party received them (in party order), to send to every other party; empty when the run needs no check (a party's broadcast with two parties: its only receiver is the other party, so there is nobody to equivocate to).", rd.name);
        quote! {
            #[doc = #doc]
            pub fn #method(&self) -> ::std::vec::Vec<u8> {
                let #role_mod::#cur { __digests, .. } = &self.st;
                __digests.concat()
            }
        }
    }

    fn check_parts(&self, r: usize, next: &PState, carried: Option<usize>) -> (Parts, TokenStream) {
        let rt = rt();
        let rd = &self.ir.rounds[r];
        let rn = &rd.name;
        let method = format_ident!("check_{}", rd.name);
        let (next_party, next_ty) = self.next_party(next);
        let n = shape(&parties(self.ir));
        // A fixed sender's broadcast has one digest, of that sender's message.
        let sender = match fixed(self.ir, r) {
            Some(c) => peer(c),
            None => quote!(__j),
        };
        let need = check_needed(self.ir, r);
        let want = self.digests_len(r);
        let middle = quote! {
            let __n = #n;
            let __want = #want;
            let mut __reports: ::std::vec::Vec<::core::option::Option<::std::vec::Vec<u8>>> = (0..__n).map(|_| None).collect();
            for (__p, __d) in received {
                if __p >= __n || __p == me || __reports[__p].is_some() {
                    return Err(Error::Delivery { round: #rn, peer: __p });
                }
                if __d.len() != __want {
                    let __e = Error::Length { round: #rn, expected: __want, got: __d.len() };
                    return Err(Error::FromPeer { round: #rn, peer: __p, source: ::std::boxed::Box::new(__e) });
                }
                __reports[__p] = Some(__d);
            }
            if let Some(__p) = (0..__n).find(|&__p| #need && __p != me && __reports[__p].is_none()) {
                return Err(Error::Delivery { round: #rn, peer: __p });
            }
            for (__j, __mine) in __digests.iter().enumerate() {
                let __at = __j * #rt::transport::mpc::DIGEST_LEN..(__j + 1) * #rt::transport::mpc::DIGEST_LEN;
                for (__p, __d) in __reports.iter().enumerate() {
                    if let Some(__d) = __d {
                        if __d[__at.clone()] != __mine[..] {
                            let __sender: usize = #sender;
                            let __culprit = (__sender == me || __sender == __p).then_some(__p);
                            return Err(Error::Equivocation { party: me, round: #rn, sender: __sender, peer: __p, culprit: __culprit, named_by: None });
                        }
                    }
                }
            }
        };
        let parts = Parts {
            generics: quote!(),
            doc: self.round_doc(r, "Broadcast check (Goldwasser-Lindell broadcast with abort): takes every other party's digests (`digests_` of theirs) as `(sender, frame)` pairs and aborts with `Equivocation` naming the round and the party whose messages differ; then runs the party's local computation up to its next step. A run needs no check when a party's broadcast has one receiver (two parties: the only receiver is the other party, so there is nobody to equivocate to); then the digests are empty, the driver exchanges none (a batched check's frame carries zero digest bytes), and an empty list (or empty digests) is accepted."),
            method: method.clone(),
            args: quote!(, received: ::std::vec::Vec<(usize, ::std::vec::Vec<u8>)>),
            ret: next_ty,
            middle,
            result: next_party,
        };
        let digests = format_ident!("digests_{}", rd.name);
        let carried = carried.map(|r2| format_ident!("{}", self.ir.rounds[r2].msg));
        let check = super::driver::Check {
            digests: &digests,
            method: &method,
            rn,
            carried: carried.as_ref(),
            need,
            len: self.digests_len(r),
        };
        (parts, check.code())
    }

    /// The bytes of the digests of checked round `r` one party sends each
    /// peer (over `__n`): one per sender (one for a fixed sender), none
    /// when the run needs no check.
    fn digests_len(&self, r: usize) -> TokenStream {
        let rt = rt();
        let need = check_needed(self.ir, r);
        let len = match fixed(self.ir, r) {
            Some(_) => quote!(#rt::transport::mpc::DIGEST_LEN),
            None => quote!(#rt::transport::mpc::DIGEST_LEN.wrapping_mul(__n)),
        };
        quote!(if #need { #len } else { 0usize })
    }

    /// The parties a fixed round's receive step expects a message from: the
    /// fixed sender (at every other party), or every other party (at the
    /// fixed receiver); `me` names this party.
    /// (`__n`, the number of parties, is in scope where it is used.)
    fn fixed_senders(&self, r: usize, me: TokenStream) -> TokenStream {
        match self.ir.rounds[r].party {
            Some(PartyRound::Between {
                sender: s,
                receiver: t,
            }) => {
                quote!(if #me == #t { ::std::vec![#s] } else { ::std::vec::Vec::new() })
            }
            Some(PartyRound::ToOne { receiver: c }) => {
                let c = peer(c);
                quote! {
                    if #me == #c { (0..__n).filter(|&__j| __j != #me).collect() } else { ::std::vec::Vec::new() }
                }
            }
            _ => {
                let c = peer(fixed(self.ir, r).unwrap_or_default());
                quote!(if #me == #c { ::std::vec::Vec::new() } else { ::std::vec![#c] })
            }
        }
    }

    /// The send step of a round with one fixed party: `(peer, message)`
    /// pairs, empty at a party that does not send in the round.
    fn fixed_send_parts(&self, r: usize, next: &PState, at: usize) -> (Parts, TokenStream) {
        let rd = &self.ir.rounds[r];
        let sn = self.step_names(r, "send");
        let (next_party, next_ty) = self.next_party(next);
        let (build, what) = self.fixed_send_build(r, &sn, at);
        let StepNames(_, m, method, _, _) = sn;
        // A party that does not send still moves to the next state, with
        // nothing of its own to keep.
        let parts = Parts {
            generics: quote!(),
            doc: self.round_doc(r, &what),
            method: method.clone(),
            args: quote!(),
            ret: quote!((::std::vec::Vec<(usize, msgs::#m)>, #next_ty)),
            middle: quote! {
                let (__msgs, __own): (::std::vec::Vec<(usize, msgs::#m)>, ::core::option::Option<msgs::#m>) = { #build };
            },
            result: quote!((__msgs, #next_party)),
        };
        (
            parts,
            super::driver::send_each(&method, &rd.name, None, None),
        )
    }

    /// Builds the `(peer, message)` pairs of round `r` (`__msgs`) and this
    /// party's own message (`__own`), by who sends to whom; the statements
    /// and the step's doc. `at`: the step's position in the plan.
    fn fixed_send_build(&self, r: usize, sn: &StepNames, at: usize) -> (TokenStream, String) {
        let rd = &self.ir.rounds[r];
        let StepNames(_, m, _, names, _) = sn;
        let n = shape(&parties(self.ir));
        let unwraps = self.unwraps(rd.fields.iter().map(|(f, _)| f), at);
        let none = quote!((::std::vec::Vec::new(), ::core::option::Option::None));
        let dealer = self.ir.dealer.as_deref().unwrap_or_default();
        match rd.party {
            _ if dealer_sends(self.ir, r) => (
                none.clone(),
                format!("`{dealer}` sends round `{}`: nothing to send at a party (an empty list).", rd.name),
            ),
            Some(PartyRound::ToOne { receiver: c }) => (
                {
                    let pc = peer(c);
                    quote! {
                        let __n = #n;
                        let __msg = msgs::#m { #(#names),* };
                        if me == #pc { (::std::vec::Vec::new(), ::core::option::Option::Some(__msg)) } else { (::std::vec![(#pc, __msg)], ::core::option::Option::None) }
                    }
                },
                format!("Builds this party's `{}` for party {c} (nothing at party {c} itself), as `(peer, message)` pairs.", rd.msg),
            ),
            Some(PartyRound::Between { sender: s, receiver: t }) => (
                quote! {
                    if me == #s {
                        #(#unwraps)*
                        (::std::vec![(#t, msgs::#m { #(#names),* })], ::core::option::Option::None)
                    } else {
                        #none
                    }
                },
                format!("At party {s}: builds its `{}` for party {t}, as one `(peer, message)` pair; nothing at the other parties.", rd.msg),
            ),
            Some(PartyRound::FromOne { sender: c }) => self.fixed_send_from_one(r, sn, &unwraps, c),
            _ => {
                let c = fixed(self.ir, r).unwrap_or_default();
                (
                    quote! {
                        if me == #c {
                            #(#unwraps)*
                            let __msg = msgs::#m { #(#names),* };
                            let __msgs = (0..#n).filter(|&__j| __j != me).map(|__j| (__j, ::core::clone::Clone::clone(&__msg))).collect();
                            (__msgs, ::core::option::Option::Some(__msg))
                        } else {
                            #none
                        }
                    },
                    format!("At party {c}: builds its `{}`, the same for every other party, as `(peer, message)` pairs; nothing at the other parties.", rd.msg),
                )
            }
        }
    }

    /// Round `r` from party `c` to every other party: element `j` of each
    /// field goes to party `j`, and `c` keeps its own element; the statements
    /// and the step's doc.
    fn fixed_send_from_one(
        &self,
        r: usize,
        sn: &StepNames,
        unwraps: &[TokenStream],
        c: usize,
    ) -> (TokenStream, String) {
        let rd = &self.ir.rounds[r];
        let StepNames(_, m, _, names, _) = sn;
        let n = shape(&parties(self.ir));
        let none = quote!((::std::vec::Vec::new(), ::core::option::Option::None));
        let checks = rd.fields.iter().map(|(f, t)| {
            let i = id(f);
            let arr = Ty::Array(Box::new(t.clone()), parties(self.ir));
            check_shape(&arr, &quote!(#i), &rd.name, f)
        });
        (
            quote! {
                if me == #c {
                    #(#unwraps)*
                    #(#checks)*
                    let __msgs = (0..#n)
                        .filter(|&__j| __j != me)
                        .map(|__j| (__j, msgs::#m { #( #names: ::core::clone::Clone::clone(&#names[__j]) ),* }))
                        .collect();
                    (__msgs, ::core::option::Option::Some(msgs::#m { #( #names: ::core::clone::Clone::clone(&#names[me]) ),* }))
                } else {
                    #none
                }
            },
            format!("At party {c}: builds its `{}` for each other party `j` (element `j` of each field), as `(j, message)` pairs; nothing at the other parties.", rd.msg),
        )
    }

    /// The receive step of a round with one fixed party: the one message of
    /// a fixed sender (its own at the sender), or, at a fixed receiver, the
    /// array of every party's message (`None` at the other parties).
    fn fixed_recv_parts(&self, r: usize, next: &PState) -> (Parts, TokenStream) {
        let rd = &self.ir.rounds[r];
        let sn = self.step_names(r, "recv");
        let (next_party, next_ty) = self.next_party(next);
        let collect = self.fixed_collect(r, &sn);
        let (middle, what) = match rd.party {
            Some(PartyRound::Between {
                sender: s,
                receiver: t,
            }) => fixed_recv_between(&sn, &collect, s, t),
            Some(PartyRound::ToOne { receiver: c }) => self.fixed_recv_to_one(r, &sn, &collect, c),
            _ => self.fixed_recv_from_one(r, &sn, &collect),
        };
        let StepNames(rn, m, method, _, _) = sn;
        let parts = Parts {
            generics: quote!(),
            doc: self.round_doc(r, &what),
            method: method.clone(),
            args: quote!(, received: ::std::vec::Vec<(usize, msgs::#m)>),
            ret: next_ty,
            middle,
            result: next_party,
        };
        let from = self.fixed_senders(r, quote!(__s.me));
        (parts, super::driver::recv_from(&m, &method, rn, from))
    }

    /// Sorts the `received` messages of round `r` into `__slots` by sender,
    /// failing on a message from a party that does not send to this one, a
    /// second message of one sender, or a missing one.
    fn fixed_collect(&self, r: usize, sn: &StepNames) -> TokenStream {
        let StepNames(rn, m, ..) = sn;
        let n = shape(&parties(self.ir));
        let senders = self.fixed_senders(r, quote!(me));
        let ends = endpoints(self.ir);
        quote! {
            let __n = #n;
            let __from: ::std::vec::Vec<usize> = #senders;
            let mut __slots: ::std::vec::Vec<::core::option::Option<msgs::#m>> = (0..#ends).map(|_| None).collect();
            for (__p, __m) in received {
                if __p >= __slots.len() || !__from.contains(&__p) || __slots[__p].is_some() {
                    return Err(Error::Delivery { round: #rn, peer: __p });
                }
                __slots[__p] = Some(__m);
            }
            if let Some(&__p) = __from.iter().find(|&&__p| __slots[__p].is_none()) {
                return Err(Error::Delivery { round: #rn, peer: __p });
            }
        }
    }

    /// The receive of a round to one fixed party `c` from every other party:
    /// the fields become arrays indexed by sender, held by `c` only; the
    /// statements and the step's doc.
    fn fixed_recv_to_one(
        &self,
        r: usize,
        sn: &StepNames,
        collect: &TokenStream,
        c: usize,
    ) -> (TokenStream, String) {
        let rd = &self.ir.rounds[r];
        let StepNames(rn, m, _, names, parts_of) = sn;
        let cols: Vec<Ident> = rd
            .fields
            .iter()
            .map(|(f, _)| format_ident!("__c_{}", f))
            .collect();
        let pc = peer(c);
        let middle = quote! {
            #collect
            #( let mut #names = ::core::option::Option::None; )*
            if me == #pc {
                __slots[me] = __own;
                let __all: ::std::vec::Vec<msgs::#m> = __slots
                    .into_iter()
                    .collect::<::core::option::Option<_>>()
                    .ok_or(Error::Delivery { round: #rn, peer: me })?;
                #( let mut #cols = ::std::vec::Vec::with_capacity(__n); )*
                for __m in __all {
                    let msgs::#m { #( #names: #parts_of ),* } = __m;
                    #( #cols.push(#parts_of); )*
                }
                #( #names = ::core::option::Option::Some(#cols); )*
            }
        };
        let what = match c {
            DEALER => format!("`{}` receives round `{}`: a party takes no message (an empty list).", self.ir.dealer.as_deref().unwrap_or_default(), rd.name),
            _ => format!("At party {c}: takes every other party's message as `(sender, message)` pairs; the fields become arrays indexed by sender (its own at {c}), held by party {c} only (`None` elsewhere). The other parties take no message (an empty list)."),
        };
        (middle, what)
    }

    /// The receive of a round from one fixed party (or the dealer) to every
    /// other party, with the digest for a checked broadcast: the fields
    /// become values of every party; the statements and the step's doc.
    fn fixed_recv_from_one(
        &self,
        r: usize,
        sn: &StepNames,
        collect: &TokenStream,
    ) -> (TokenStream, String) {
        let rt = rt();
        let StepNames(rn, m, _, names, _) = sn;
        let c = fixed(self.ir, r).unwrap_or_default();
        let pc = peer(c);
        let need = check_needed(self.ir, r);
        let digests = if checked(self.ir, r) {
            quote! {
                let __digests = if #need {
                    let mut __b = ::std::vec::Vec::new();
                    __m.encode(&params, &mut __b)?;
                    ::std::vec![#rt::transport::mpc::broadcast_digest(&SPEC_HASH, session, #rn, #pc, &__b)]
                } else {
                    ::std::vec::Vec::new()
                };
            }
        } else {
            quote!()
        };
        let middle = quote! {
            #collect
            let __m = match __own {
                ::core::option::Option::Some(__m) => __m,
                ::core::option::Option::None => __slots[#pc].take().ok_or(Error::Delivery { round: #rn, peer: #pc })?,
            };
            #digests
            let msgs::#m { #(#names),* } = __m;
        };
        let what = match c {
            DEALER => format!("Takes `{}`'s message as a `(sender, message)` pair (the dealer is mesh endpoint `n`); its fields become values of every party.", self.ir.dealer.as_deref().unwrap_or_default()),
            _ => format!("Takes party {c}'s message as a `(sender, message)` pair (an empty list at party {c}, which keeps its own); its fields become values of every party."),
        };
        (middle, what)
    }
}

/// The receive of a round from party `s` to party `t` only: its fields are
/// held by `t` (`None` elsewhere); the statements and the step's doc.
fn fixed_recv_between(
    sn: &StepNames,
    collect: &TokenStream,
    s: usize,
    t: usize,
) -> (TokenStream, String) {
    let StepNames(rn, m, _, names, parts_of) = sn;
    (
        quote! {
            #collect
            #( let mut #names = ::core::option::Option::None; )*
            if me == #t {
                let __m = __slots[#s].take().ok_or(Error::Delivery { round: #rn, peer: #s })?;
                let msgs::#m { #( #names: #parts_of ),* } = __m;
                #( #names = ::core::option::Option::Some(#parts_of); )*
            }
        },
        format!("At party {t}: takes party {s}'s message as a `(sender, message)` pair; its fields are held by party {t} only (`None` elsewhere). The other parties take no message (an empty list)."),
    )
}

/// The party `step` places after `me` on the ring of `n` parties, as an
/// expression (`|step|` is below the least number of parties, so below `n`).
fn ring_peer(me: TokenStream, n: TokenStream, step: i64) -> TokenStream {
    let c = step.unsigned_abs() as usize;
    if step >= 0 {
        quote!((#me + #c) % #n)
    } else {
        quote!((#me + #n - #c) % #n)
    }
}

/// The party that party `me` sends a ring round to: `me + step` for a
/// rotation, `(mul · me + step) mod n` for an affine map (`n` fixed by
/// the protocol's `requires`, `step` then in `0..n`).
fn ring_target(me: TokenStream, n: TokenStream, step: i64, mul: u64) -> TokenStream {
    if mul == 1 {
        return ring_peer(me, n, step);
    }
    let (a, c) = (mul as usize, step.unsigned_abs() as usize);
    quote!((#a * #me + #c) % #n)
}

/// The party that party `me` receives a ring round from: `me - step` for
/// a rotation, `inv · (me - step) mod n` for an affine map.
fn ring_source(me: TokenStream, n: TokenStream, step: i64, inv: u64) -> TokenStream {
    if inv == 1 {
        return ring_peer(me, n, -step);
    }
    let (b, c) = (inv as usize, step.unsigned_abs() as usize);
    quote!((#b * ((#me + #n - #c % #n) % #n)) % #n)
}
