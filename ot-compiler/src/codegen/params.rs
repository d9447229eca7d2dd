//! The protocol's run-time parameters (`Params`, validated against the
//! `requires` predicates) and its communication cost (`Comm`, `comm`).

use super::expr::ExprGen;
use super::names::id;
use super::wire::rust_ty;
use crate::case::snake;
use crate::ir::Ir;
use crate::plan::Plan;
use crate::types::Ty;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// `Params` with its constructor (checking every `requires`) and getters.
pub(super) fn params_items(ir: &Ir, plan: &Plan, eg: &ExprGen) -> TokenStream {
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
            // `usize` arithmetic in a requirement is checked: an overflow
            // fails the requirement instead of wrapping past it.
            let c = eg.checked(e, text);
            quote!(if !(#c) { return Err(Error::Params { requirement: #text }); })
        });
    let sizes = size_checks(ir);
    let (peak, peak_check) = super::peak::peak_items(&plan.footprint);
    let rt = super::names::rt();
    let budget = if sizes.is_empty() && peak_check.is_empty() {
        quote!()
    } else {
        quote!(let __budget = #rt::transport::limits::memory_budget();)
    };
    quote! {
        /// Run-time parameters, validated against the specification's `requires` predicates.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params { #(#pfields),* }
        impl Params {
            /// Builds and validates the parameters: every `requires`, then
            /// the size of every value of the protocol (an input, output,
            /// message field or intermediate value), computed with checked
            /// arithmetic against the memory budget
            /// (`ot_runtime::transport::limits::memory_budget`, by default half of
            /// physical memory): parameters whose sizes overflow or exceed
            /// it are `Error::TooLarge`, so no run starts that would abort
            /// the process on allocation, and no length computed later wraps;
            /// then the bound of what each role holds at once
            /// (`peak_memory`: the values alive together at each point of
            /// its run) against the same budget.
            #[allow(clippy::all)]
            pub fn new(#(#pargs),*) -> Result<Self, Error> {
                let params = Params { #(#pnames),* };
                #(#requires)*
                #budget
                #(#sizes)*
                #peak_check
                Ok(params)
            }
            #peak
            #(#pgetters)*
        }
    }
}

/// The parameters a session binds: all but those marked `tuning`.
fn bound_params(ir: &Ir) -> impl Iterator<Item = &crate::ir::IrParam> {
    ir.params.iter().filter(|p| !p.tuning)
}

/// `Params::encode`: the canonical encoding the session binding (two
/// parties) and the session hello (n parties) carry.
pub(super) fn params_encode(ir: &Ir) -> TokenStream {
    let parts = bound_params(ir).map(|p| {
        let n = id(&p.name);
        match p.ty {
            Ty::Bit => quote!(out.push(self.#n as u8);),
            Ty::Block | Ty::Seed => quote!(out.extend_from_slice(&self.#n.to_bytes());),
            _ => quote!(out.extend_from_slice(&(self.#n as u64).to_le_bytes());),
        }
    });
    quote! {
        impl Params {
            /// The canonical encoding of the parameters that a session binds
            /// (each in declaration order, integers as 8 bytes little-endian;
            /// parameters marked `tuning` are left out).
            pub fn encode(&self) -> ::std::vec::Vec<u8> {
                let mut out = ::std::vec::Vec::new();
                #(#parts)*
                out
            }
        }
    }
}

/// `Comm` (bytes each role sends, from the message lengths, plus its
/// session binding) and `comm`.
pub(super) fn comm_items(ir: &Ir, plan: &Plan) -> TokenStream {
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
        quote!(BINDING_BYTES #(.wrapping_add(#parts))*)
    });
    let comm_docs = ir.roles.iter().map(|r| {
        format!("Bytes sent by `{r}`: its protocol messages and its session binding (`BINDING_BYTES`; frame headers not included).")
    });
    let rt = super::names::rt();
    let name_len = ir.name.len();
    let params_len = plan.params_len;
    quote! {
        /// Bytes of the session binding each role sends before its first
        /// message (protocol name, `SPEC_HASH`, `Params::encode`, role),
        /// included in `comm`.
        pub const BINDING_BYTES: usize = #rt::transport::bind::frame_len(#name_len, #params_len);
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
/// the memory budget (`__budget` in `Params::new`).
fn size_checks(ir: &Ir) -> Vec<TokenStream> {
    use crate::ir::{Event, TExpr, TExprKind, TStmt};
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
    let is_param = |p: &str| ir.params.iter().any(|q| q.name == p);
    let mut lengths: Vec<(String, Shape)> = vec![];
    for (ri, events) in ir.events.iter().enumerate() {
        let role = &ir.roles[ri];
        for e in events {
            if let Event::Stmt(TStmt::Assign(n, v)) = e {
                add(format!("`{n}: {}` of `{role}`", v.ty), &v.ty);
            }
        }
        // Every intermediate value and length an expression computes.
        let mut exprs: Vec<&TExpr> = vec![];
        for e in events {
            match e {
                Event::Stmt(TStmt::Assign(_, v) | TStmt::Check(v, _, _)) => exprs.push(v),
                Event::Stream(st) => {
                    exprs.extend(st.before.iter().chain(&st.after).map(|s| &s.call))
                }
                Event::Sub(k) => {
                    for c in ir.subs[*k].calls.iter().filter(|c| c.role == ri) {
                        exprs.extend(&c.args);
                        for (n, t) in &c.outputs {
                            add(format!("`{n}: {t}` of `{role}`"), t);
                        }
                    }
                }
                Event::Send(_) | Event::Recv(_) => {}
            }
        }
        for x in exprs {
            x.visit(&mut |x: &TExpr| match &x.kind {
                TExprKind::Shape(sh) => {
                    if !lengths.iter().any(|(_, l)| l == sh) {
                        lengths.push((
                            format!("the length `{sh}` computed by `{role}`"),
                            sh.clone(),
                        ));
                    }
                }
                _ => add(format!("a value `{}` computed by `{role}`", x.ty), &x.ty),
            });
        }
    }
    let length_checks = lengths.iter().filter_map(|(what, sh)| {
        let mut ps = vec![];
        sh.params_into(&mut ps);
        let ps = param_list(&ps, &is_param)?;
        let n = super::wire::checked_shape(sh);
        Some(quote! {
            if (#n).is_none() {
                return Err(Error::TooLarge { value: #what, params: #ps, bytes: None, limit: __budget });
            }
        })
    });
    let length_checks: Vec<TokenStream> = length_checks.collect();
    let role_totals = role_io_totals(ir, &is_param);
    values
        .iter()
        .filter_map(|(what, t)| {
            let mut ps = vec![];
            t.params_into(&mut ps);
            let ps = param_list(&ps, &is_param)?;
            let bytes = super::wire::checked_bytes(t);
            Some(quote! {
                match #bytes {
                    Some(__b) if __b <= __budget => {}
                    __b => return Err(Error::TooLarge { value: #what, params: #ps, bytes: __b, limit: __budget }),
                }
            })
        })
        .chain(length_checks)
        .chain(role_totals)
        .collect()
}

/// Per role, its inputs and outputs together (they are alive at the same
/// time: the inputs are borrowed for the whole run and the outputs are
/// returned at its end) against the memory budget, after the per-value
/// checks so that a single oversized value is named as such. Only for a
/// role with at least two sizes that depend on the parameters (one is
/// already checked alone).
fn role_io_totals(ir: &Ir, is_param: &dyn Fn(&str) -> bool) -> Vec<TokenStream> {
    let mut checks = vec![];
    for (ri, role) in ir.roles.iter().enumerate() {
        let mut ps = vec![];
        let sizes: Vec<TokenStream> = ir.inputs[ri]
            .iter()
            .chain(&ir.outputs[ri])
            .filter(|(_, t)| {
                let mut own = vec![];
                t.params_into(&mut own);
                let depends = param_list(&own, is_param).is_some();
                if depends {
                    ps.extend(own);
                }
                depends
            })
            .map(|(_, t)| super::wire::checked_bytes(t))
            .collect();
        if sizes.len() < 2 {
            continue;
        }
        ps.sort();
        ps.dedup();
        let Some(ps) = param_list(&ps, is_param) else {
            continue;
        };
        let what = format!("the inputs and outputs of `{role}` together");
        checks.push(quote! {
            let __total = [#(#sizes),*]
                .into_iter()
                .try_fold(0usize, |__acc, __b| __acc.checked_add(__b?));
            match __total {
                Some(__b) if __b <= __budget => {}
                __b => return Err(Error::TooLarge { value: #what, params: #ps, bytes: __b, limit: __budget }),
            }
        });
    }
    checks
}

/// The parameters a size depends on, as text for `Error::TooLarge`; `None`
/// when it depends on none, or on a signature's unbound shape name (not a
/// run-time value).
fn param_list(ps: &[String], is_param: &dyn Fn(&str) -> bool) -> Option<String> {
    if ps.is_empty() || !ps.iter().all(|p| is_param(p)) {
        return None;
    }
    Some(
        ps.iter()
            .map(|p| format!("`{p}`"))
            .collect::<Vec<_>>()
            .join(", "),
    )
}
