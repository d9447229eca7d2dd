//! The sans-IO step methods of a party: send (one message for every peer,
//! or one per peer in a private round), receive (every other party's
//! message, assembled into arrays indexed by sender), and the broadcast
//! consistency check (digests of what the party received, compared with
//! every peer's).

use super::analysis::{check_batched, checked, parties, Op, PState};
use super::PartyGen;
use crate::codegen::names::{id, rt};
use crate::codegen::wire::{check_shape, shape};
use crate::ir::*;
use crate::types::Ty;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Parts of a step method.
struct Parts {
    doc: String,
    method: Ident,
    args: TokenStream,
    ret: TokenStream,
    middle: TokenStream,
    result: TokenStream,
}

impl PartyGen<'_> {
    /// The step leaving state `si` and its driver statements (None: `Done`).
    pub(super) fn step(&self, si: usize) -> Option<(TokenStream, TokenStream)> {
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
            Op::Send(r) => self.send_parts(r, next, prefix.as_ref()),
            Op::Recv(r) => self.recv_parts(r, next, stashed),
            Op::Check(r) => self.check_parts(r, next, carried),
            Op::Stmt(_) => return None,
        };
        let extra = match s.digests {
            Some(r) => self.digests_method(s, r),
            None => quote!(),
        };
        let generic = self.trait_impl(s, next, op);
        let method = self.method(s, next, at, parts, extra);
        Some((quote!(#method #generic), drive))
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
                let out = if rd.party == Some(PartyRound::Private) {
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
            args,
            ret,
            middle,
            result,
        } = p;
        quote! {
            impl #role<#role_mod::#cur> {
                #[doc = #doc]
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn #method(self #args) -> Result<#ret, Error> {
                    let #role { me, params, mut rng, session, session_id, st } = self;
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
    fn next_party(&self, next: &PState) -> (TokenStream, TokenStream) {
        let (role, role_mod) = (&self.role, &self.role_mod);
        let n = Self::state_ident(next);
        let st = self.build_state(next);
        (
            quote!(#role { me, params, rng, session, session_id, st: #st }),
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
        let m = format_ident!("{}", rd.msg);
        let method = format_ident!("send_{}", rd.name);
        let (next_party, next_ty) = self.next_party(next);
        let n = shape(&parties(self.ir));
        let names: Vec<Ident> = rd.fields.iter().map(|(f, _)| id(f)).collect();
        let private = rd.party == Some(PartyRound::Private);
        if !private {
            let parts = Parts {
                doc: self.round_doc(r, &format!("Builds this party's `{}`, the same for every other party (send it to each).", rd.msg)),
                method: method.clone(),
                args: quote!(),
                ret: quote!((msgs::#m, #next_ty)),
                middle: quote! {
                    let __msg = msgs::#m { #(#names),* };
                    let __own = ::core::clone::Clone::clone(&__msg);
                },
                result: quote!((__msg, #next_party)),
            };
            return (parts, super::driver::send_all(&method, &rd.name, prefix));
        }
        let checks = rd.fields.iter().map(|(f, t)| {
            let i = id(f);
            let arr = Ty::Array(Box::new(t.clone()), parties(self.ir));
            check_shape(&arr, &quote!(#i), &rd.name, f)
        });
        let parts = Parts {
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
        (parts, super::driver::send_each(&method, &rd.name, prefix))
    }

    fn recv_parts(&self, r: usize, next: &PState, stashed: bool) -> (Parts, TokenStream) {
        let rt = rt();
        let rd = &self.ir.rounds[r];
        let rn = &rd.name;
        let m = format_ident!("{}", rd.msg);
        let method = format_ident!("recv_{}", rd.name);
        let (next_party, next_ty) = self.next_party(next);
        let n = shape(&parties(self.ir));
        let names: Vec<Ident> = rd.fields.iter().map(|(f, _)| id(f)).collect();
        let parts_of: Vec<Ident> = rd
            .fields
            .iter()
            .map(|(f, _)| format_ident!("__f_{}", f))
            .collect();
        let digests = if checked(self.ir, r) {
            quote! {
                let __digests = __all
                    .iter()
                    .enumerate()
                    .map(|(__j, __m)| {
                        let mut __b = ::std::vec::Vec::new();
                        __m.encode(&params, &mut __b)?;
                        Ok(#rt::mpc::broadcast_digest(&SPEC_HASH, session, #rn, __j, &__b))
                    })
                    .collect::<Result<::std::vec::Vec<_>, Error>>()?;
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
            doc: self.round_doc(r, what),
            method: method.clone(),
            args: quote!(, received: ::std::vec::Vec<(usize, msgs::#m)>),
            ret: next_ty,
            middle,
            result: next_party,
        };
        (parts, super::driver::recv_all(&m, &method, rn, stashed))
    }

    /// `digests_<round>`: the frame this party sends every peer in the check.
    fn digests_method(&self, s: &PState, r: usize) -> TokenStream {
        let rd = &self.ir.rounds[r];
        let method = format_ident!("digests_{}", rd.name);
        let cur = Self::state_ident(s);
        let role_mod = &self.role_mod;
        let doc = format!("The broadcast check of round `{}`: the digests of the message each party sent as this party received them (in party order), to send to every other party.", rd.name);
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
        let middle = quote! {
            let __n = #n;
            let __want = __n.wrapping_mul(#rt::mpc::DIGEST_LEN);
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
            if let Some(__p) = (0..__n).find(|&__p| __p != me && __reports[__p].is_none()) {
                return Err(Error::Delivery { round: #rn, peer: __p });
            }
            for (__j, __mine) in __digests.iter().enumerate() {
                let __at = __j * #rt::mpc::DIGEST_LEN..(__j + 1) * #rt::mpc::DIGEST_LEN;
                for (__p, __d) in __reports.iter().enumerate() {
                    if let Some(__d) = __d {
                        if __d[__at.clone()] != __mine[..] {
                            return Err(Error::Equivocation { party: me, round: #rn, sender: __j, peer: __p });
                        }
                    }
                }
            }
        };
        let parts = Parts {
            doc: self.round_doc(r, "Broadcast check (Goldwasser-Lindell broadcast with abort): takes every other party's digests (`digests_` of theirs) as `(sender, frame)` pairs and aborts with `Equivocation` naming the round and the party whose messages differ; then runs the party's local computation up to its next step."),
            method: method.clone(),
            args: quote!(, received: ::std::vec::Vec<(usize, ::std::vec::Vec<u8>)>),
            ret: next_ty,
            middle,
            result: next_party,
        };
        let digests = format_ident!("digests_{}", rd.name);
        let carried = carried.map(|r2| format_ident!("{}", self.ir.rounds[r2].msg));
        (
            parts,
            super::driver::check(&digests, &method, rn, carried.as_ref()),
        )
    }
}
