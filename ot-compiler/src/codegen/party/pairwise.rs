//! Two-party sub-protocols between every pair of parties (`do cot:
//! RandomOt[..](Sender = P[i], Receiver = P[j])`): the party's `Subs`
//! struct (one implementation of each functionality role per other party,
//! given to `new`) and the step `run_<call>(mesh)`.
//!
//! **Order.** The runs follow a round-robin tournament
//! (`ot_runtime::transport::mesh::round_robin_partner`): in each of its
//! rounds every party meets at most one other party, and with it runs the
//! functionality twice, first the lower index in the first role, then the
//! higher. The pairs of a round are disjoint and run at once, so the runs
//! take `n - 1` rounds (`n` for an odd `n`), not one per pair. No run waits
//! forever on another: order the runs by round, then pair; every party runs
//! its runs in that order, so the earliest unfinished run has both its
//! parties past all their earlier runs, and so both are in it. Frames of one
//! link belong to the runs of one pair, which both ends run in the same
//! order.

use super::context::PartyGen;
use super::steps::Parts;
use crate::case::snake;
use crate::codegen::names::{id, path_tokens, rt};
use crate::codegen::secret::wrap_values;
use crate::codegen::wire::{check_shape, rust_ty, shape};
use crate::ir::*;
use crate::plan::party::{parties, PState};
use crate::types::Ty;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The `Subs` field holding the implementations of `call`'s functionality
/// role `func_role` (one per other party): `cot_sender`.
fn field(sub: &IrSub, call: &SubCall) -> Ident {
    format_ident!("{}_{}", sub.name, snake(&call.func_role))
}

impl PartyGen<'_> {
    /// The calls between every pair of parties.
    fn pairwise_subs(&self) -> impl Iterator<Item = &IrSub> {
        self.ir.subs.iter().filter(|s| s.pairwise)
    }

    /// Whether the protocol runs a sub-protocol between every pair.
    pub(super) fn has_pairwise(&self) -> bool {
        self.pairwise_subs().next().is_some()
    }

    /// The `Subs` struct, the argument it adds to `new` (none when the
    /// protocol has no pairwise call) and the expression initialising the
    /// party's `subs` field.
    pub(super) fn subs_struct(&self) -> (TokenStream, TokenStream, TokenStream) {
        let p = self.pname();
        let ty = format_ident!("{}Subs", p);
        let mut fields = vec![];
        let mut docs = vec![];
        let mut traits = vec![];
        for sub in self.pairwise_subs() {
            for call in &sub.calls {
                fields.push(field(sub, call));
                traits.push(path_tokens(&call.trait_path, quote!(missing_trait)));
                docs.push(format!(
                    "Runs role `{}` of `{}` for call `{}`: one implementation per other party, in increasing order of the party index (`n - 1` of them; the one at position `k` serves party `k` below `me` and `k + 1` from `me` on).",
                    call.func_role, sub.func, sub.name
                ));
            }
        }
        let doc = match fields.is_empty() {
            true => format!("The sub-protocol implementations of `{p}[me]`: none (the protocol calls no sub-protocol between pairs of parties)."),
            false => format!("The sub-protocol implementations of `{p}[me]`: for each call between every pair of parties, one implementation of each functionality role per other party (a fresh instance each, e.g. a base-OT or OT-extension protocol of this crate)."),
        };
        let def = quote! {
            #[doc = #doc]
            pub struct #ty { #( #[doc = #docs] pub #fields: ::std::vec::Vec<::std::boxed::Box<dyn #traits + ::core::marker::Send>>, )* }
        };
        match fields.is_empty() {
            true => (def, quote!(), quote!(#ty {})),
            false => {
                let names: Vec<String> = fields.iter().map(Ident::to_string).collect();
                let init = quote!({
                    #(
                        if subs.#fields.len() != __n.saturating_sub(1) {
                            return Err(Error::Subs { field: #names, expected: __n.saturating_sub(1), got: subs.#fields.len() });
                        }
                    )*
                    subs
                });
                (def, quote!(, subs: #ty), init)
            }
        }
    }

    /// The step running pairwise call `k` (see the module docs for the
    /// order), and its driver statement.
    pub(super) fn sub_parts(&self, k: usize, next: &PState) -> (Parts, TokenStream) {
        let rt = rt();
        let sub = &self.ir.subs[k];
        let n = shape(&parties(self.ir));
        let method = format_ident!("run_{}", sub.name);
        let (next_party, next_ty) = self.next_party(next);
        let (first, second) = match sub.calls.as_slice() {
            [a, b] => (self.run_with_peer(sub, a), self.run_with_peer(sub, b)),
            _ => (quote!(), quote!()),
        };
        let (slots_init, assemble) = self.output_slots(sub);
        let middle = quote! {
            let __n = #n;
            if mesh.me() != me || mesh.parties() != __n {
                return Err(Error::Party { index: mesh.me(), parties: mesh.parties() });
            }
            // The sub-protocol's frames are its own: no announced bound.
            for __p in (0..__n).filter(|&__p| __p != me) {
                mesh.expect_next_frame(__p, ::core::option::Option::None);
            }
            #slots_init
            // A round-robin tournament: in each round every party meets at
            // most one other (`partner`, none for a round with the dummy
            // party `__n` of an odd count), the pairs of a round run at once.
            let __m = if __n % 2 == 0 { __n - 1 } else { __n };
            for __r in 0..__m {
                let __peer = #rt::transport::mesh::round_robin_partner(me, __n, __r);
                if __peer >= __n {
                    continue;
                }
                let (__lo, __hi) = if me < __peer { (me, __peer) } else { (__peer, me) };
                for __first in [__lo, __hi] {
                    if me == __first {
                        #first
                    } else {
                        #second
                    }
                }
            }
            #assemble
        };
        let doc = format!(
            "Sub-protocol call `{}`: runs `{}` with every other party over its link of the mesh, in both roles, in the rounds of a round-robin tournament every party follows (`round_robin_partner`: in each round at most one peer, the pairs of a round running at once; with a peer, first the lower index in the functionality's first role, then the higher), then `{}[me]`'s local computation up to its next step. Output `{}.f` is the array of the runs' outputs indexed by the peer (the element at `me` is the default value). Bytes the runs send are not in `comm()`.",
            sub.name,
            sub.func,
            self.pname(),
            sub.name
        );
        let parts = Parts {
            doc,
            method: method.clone(),
            args: quote!(, mesh: &mut M),
            generics: quote!(<M: #rt::transport::mesh::Mesh + ?::core::marker::Sized>),
            ret: next_ty,
            middle,
            result: next_party,
        };
        (parts, quote!(let __s = __s.#method(&mut *mesh)?;))
    }

    /// One run of `call`'s role with the peer `__peer` (in scope), its
    /// outputs checked and stored at that peer's element (`__slots_*`).
    fn run_with_peer(&self, sub: &IrSub, call: &SubCall) -> TokenStream {
        let rt = rt();
        let sub_err = crate::codegen::errors::sub_error_ty(self.ir);
        let call_name = sub.name.as_str();
        let f = field(sub, call);
        let tpath = path_tokens(&call.trait_path, quote!(missing_trait));
        let fmethod = format_ident!("{}", call.method);
        let args: Vec<TokenStream> = call.args.iter().map(|a| self.eg.arg(a)).collect();
        let outs: Vec<Ident> = call
            .outputs
            .iter()
            .map(|(n, _)| format_ident!("__o_{}", id(n)))
            .collect();
        let bind = match outs.len() {
            1 => quote!(let #(#outs)* = __out;),
            _ => quote!(let (#(#outs),*) = __out;),
        };
        let store = call.outputs.iter().zip(&outs).map(|((name, t), o)| {
            let slots = format_ident!("__slots_{}", id(name));
            let check = check_shape(element(t), &quote!(#o), call_name, name);
            quote! {
                #check
                #slots[__peer] = ::core::option::Option::Some(#o);
            }
        });
        quote! {
            let __slot = if __peer < me { __peer } else { __peer - 1 };
            let __have = subs.#f.len();
            let __imp = subs.#f.get_mut(__slot).ok_or(Error::Subs { field: ::core::stringify!(#f), expected: __n.saturating_sub(1), got: __have })?;
            let mut __link = #rt::transport::mesh::PeerChannel::new(&mut *mesh, __peer);
            let __out = #tpath::#fmethod(&mut **__imp, &mut __link, #(#args),*)
                .map_err(|e| {
                    let source: #sub_err = ::core::convert::Into::into(e);
                    // The peer aborted (its notice came on the link): report
                    // its notice as any other, not the run as its fault.
                    match #rt::transport::mesh::abort_notice_in(&*source) {
                        ::core::option::Option::Some(__notice) => Error::Mesh {
                            round: #call_name,
                            source: #rt::transport::mesh::MeshError::PeerAborted {
                                peer: __peer,
                                blamed: __notice.blamed_at(me),
                                notice: ::core::clone::Clone::clone(__notice),
                            },
                        },
                        ::core::option::Option::None => Error::SubProtocol { call: #call_name, peer: __peer, source },
                    }
                })?;
            #bind
            #(#store)*
        }
    }

    /// The per-peer slots of a pairwise call's outputs (before the runs),
    /// and the outputs assembled from them (after), the secret ones wrapped.
    fn output_slots(&self, sub: &IrSub) -> (TokenStream, TokenStream) {
        let outputs: Vec<(&String, &Ty)> = sub
            .calls
            .iter()
            .flat_map(|c| c.outputs.iter().map(|(n, t)| (n, t)))
            .collect();
        let init = outputs.iter().map(|(name, t)| {
            let slots = format_ident!("__slots_{}", id(name));
            let elem = rust_ty(element(t));
            quote!(let mut #slots: ::std::vec::Vec<::core::option::Option<#elem>> = (0..__n).map(|_| ::core::option::Option::None).collect();)
        });
        let assemble = outputs.iter().map(|(name, _)| {
            let slots = format_ident!("__slots_{}", id(name));
            let v = id(name);
            quote!(let #v: ::std::vec::Vec<_> = #slots.into_iter().map(::core::option::Option::unwrap_or_default).collect();)
        });
        let wrap = wrap_values(&self.secrets, outputs.iter().map(|(n, _)| *n), &|_| false);
        (quote!(#(#init)*), quote!(#(#assemble)* #wrap))
    }
}

/// The type of one run's output: the element of the per-peer array.
fn element(t: &Ty) -> &Ty {
    match t {
        Ty::Array(e, _) => e,
        t => t,
    }
}
