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
    let sizes = size_checks(ir);
    quote! {
        /// The most memory one value of the protocol (an input, output,
        /// message field or intermediate value) may take: 64 GiB.
        /// `Params::new` computes every such size from the parameters with
        /// checked arithmetic and refuses parameters that overflow or exceed
        /// it (`Error::TooLarge`), so no run starts that would abort the
        /// process on allocation, and no length computed later wraps.
        pub const MAX_VALUE_BYTES: usize = 1 << 36;
        /// Run-time parameters, validated against the specification's `requires` predicates.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params { #(#pfields),* }
        impl Params {
            /// Builds and validates the parameters.
            #[allow(clippy::all)]
            pub fn new(#(#pargs),*) -> Result<Self, Error> {
                let params = Params { #(#pnames),* };
                #(#requires)*
                #(#sizes)*
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

/// Every value whose size depends on the parameters (inputs, outputs,
/// message fields, computed values of every role; one check per distinct
/// type): its size computed with checked arithmetic against
/// `MAX_VALUE_BYTES`.
fn size_checks(ir: &Ir) -> Vec<TokenStream> {
    use crate::ir::{Event, TStmt};
    use crate::types::{Shape, Ty};
    let mut values: Vec<(String, Ty)> = vec![];
    let mut add = |what: String, t: &Ty| {
        if !values.iter().any(|(_, u)| u == t) {
            values.push((what, t.clone()));
        }
    };
    for (ri, role) in ir.roles.iter().enumerate() {
        for (n, t) in ir.inputs[ri].iter().chain(&ir.outputs[ri]) {
            add(format!("`{n}: {t}` of `{role}`"), t);
        }
    }
    for r in &ir.rounds {
        for (n, t) in &r.fields {
            add(format!("`{n}: {t}` of message `{}`", r.msg), t);
            if let Some(count) = &ir.party_count {
                // What a party receives: one per party.
                let all = Ty::Array(Box::new(t.clone()), Shape::Param(count.clone()));
                add(format!("`{n}: {all}` received in round `{}`", r.name), &all);
            }
        }
    }
    for (ri, events) in ir.events.iter().enumerate() {
        for e in events {
            if let Event::Stmt(TStmt::Assign(n, v)) = e {
                add(format!("`{n}: {}` of `{}`", v.ty, ir.roles[ri]), &v.ty);
            }
        }
    }
    values
        .iter()
        .filter_map(|(what, t)| {
            let mut ps = vec![];
            super::wire::ty_params(t, &mut ps);
            if ps.is_empty() {
                return None;
            }
            let ps = ps.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ");
            let bytes = super::wire::checked_bytes(t);
            Some(quote! {
                match #bytes {
                    Some(__b) if __b <= MAX_VALUE_BYTES => {}
                    __b => return Err(Error::TooLarge { value: #what, params: #ps, bytes: __b, limit: MAX_VALUE_BYTES }),
                }
            })
        })
        .collect()
}
