//! The protocol's run-time parameters (`Params`, validated against the
//! `requires` predicates) and its communication cost (`Comm`, `comm`).

use super::expr::ExprGen;
use super::names::{id, snake};
use super::wire::rust_ty;
use crate::ir::Ir;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// `Params` with its constructor (checking every `requires`) and getters.
pub(super) fn params_items(ir: &Ir, eg: &ExprGen) -> TokenStream {
    let pfields: Vec<TokenStream> = ir
        .params
        .iter()
        .map(|p| {
            let n = id(&p.name);
            let t = rust_ty(&p.ty);
            quote!(#n: #t)
        })
        .collect();
    let pargs = pfields.clone();
    let pnames: Vec<Ident> = ir.params.iter().map(|p| id(&p.name)).collect();
    let pgetters = ir.params.iter().map(|p| {
        let n = id(&p.name);
        let t = rust_ty(&p.ty);
        let doc = format!("The parameter `{}`.", p.name);
        quote!(#[doc = #doc] pub fn #n(&self) -> #t { self.#n })
    });
    let requires = ir
        .params
        .iter()
        .filter_map(|p| p.requires.as_ref())
        .map(|(e, text)| {
            let c = eg.owned(e);
            quote!(if !(#c) { return Err(Error::Params { requirement: #text }); })
        });
    quote! {
        /// Run-time parameters, validated against the specification's `requires` predicates.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params { #(#pfields),* }
        impl Params {
            /// Builds and validates the parameters.
            #[allow(clippy::all)]
            pub fn new(#(#pargs),*) -> Result<Self, Error> {
                let params = Params { #(#pnames),* };
                #(#requires)*
                Ok(params)
            }
            #(#pgetters)*
        }
    }
}

/// `Comm` (bytes each role sends, from the message lengths) and `comm`.
pub(super) fn comm_items(ir: &Ir) -> TokenStream {
    let comm_fields: Vec<Ident> = ir
        .roles
        .iter()
        .map(|r| format_ident!("{}", snake(r)))
        .collect();
    let comm_sums = (0..ir.roles.len()).map(|ri| {
        let parts = ir.rounds.iter().filter(|r| r.from == ri).map(|r| {
            let m = format_ident!("{}", r.msg);
            quote!(msgs::#m::wire_len(params))
        });
        quote!(0usize #(.wrapping_add(#parts))*)
    });
    let comm_docs = ir
        .roles
        .iter()
        .map(|r| format!("Bytes of protocol messages sent by `{r}` (frame headers not included)."));
    quote! {
        /// Bytes each role sends, derived from the specification.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Comm { #( #[doc = #comm_docs] pub #comm_fields: usize, )* }
        /// Communication of one run with these parameters.
        pub fn comm(params: &Params) -> Comm { Comm { #( #comm_fields: #comm_sums, )* } }
    }
}
