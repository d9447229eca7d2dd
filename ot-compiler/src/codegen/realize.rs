//! `realizes`: per functionality role, a `{Role}Realization` struct that
//! implements the functionality's role trait by running this protocol
//! (parameters from the trait method's arguments or the struct's fields,
//! a fresh RNG forked per run, sub-protocol parties built per run). For the
//! traits of `ot::traits` the impl also has the async twin of the method
//! (`send_random_async`: a boxed future running `run_async`), gated on the
//! runtime's `tokio` feature, so a protocol's async driver runs its
//! sub-protocols asynchronously too.

use super::io::{gate, has_async_twin, Io};
use super::names::{id, path_tokens, rt};
use super::wire::rust_ty;
use crate::ir::*;
use crate::types::Ty;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// `Box<dyn Error + Send + Sync>`: the error type when a functionality
/// declares none.
pub(super) fn boxed_error() -> TokenStream {
    quote!(::std::boxed::Box<dyn ::std::error::Error + ::core::marker::Send + ::core::marker::Sync>)
}

/// The declared error type, or [`boxed_error`].
pub(super) fn error_ty(path: &Option<String>) -> TokenStream {
    match path {
        Some(p) => path_tokens(p, boxed_error()),
        None => boxed_error(),
    }
}

/// How a trait method takes a value of type `t`: `Copy` values by value,
/// vectors as slices, the rest by reference (with lifetime `lt`, if any).
fn arg_ty(t: &Ty, lt: &TokenStream) -> TokenStream {
    match t {
        _ if t.is_copy() => rust_ty(t),
        Ty::Array(e, s) if s.small().is_none() => {
            let e = rust_ty(e);
            quote!(&#lt [#e])
        }
        _ => {
            let t = rust_ty(t);
            quote!(&#lt #t)
        }
    }
}

/// The realization structs and their trait implementations.
pub(super) fn realize_items(ir: &Ir) -> TokenStream {
    let Some(re) = &ir.realizes else {
        return quote!();
    };
    let items = re.roles.iter().map(|rr| realization(ir, re, rr));
    quote!(#(#items)*)
}

/// What the blocking and the async trait method of one realization share:
/// the method's arguments, how they make the protocol's parameters and
/// input, and how the protocol's output is returned.
struct MethodParts {
    /// The role type.
    role: Ident,
    /// Its input struct.
    input: Ident,
    /// The argument names.
    anames: Vec<Ident>,
    /// Each protocol parameter's value.
    pvals: Vec<TokenStream>,
    /// The input struct's field initializers.
    ins: Vec<TokenStream>,
    /// The method's return type and value (from the run's output `__out`).
    ret_ty: TokenStream,
    /// See `ret_ty`.
    ret: TokenStream,
    /// The method's error type.
    err: TokenStream,
    /// Builds this run's sub-protocol parties (if the role has any).
    subs_init: TokenStream,
    /// Passes them to the role's `new`.
    subs_arg: TokenStream,
}

/// The `{Role}Realization` struct of realized role `rr` and its
/// implementation of the functionality's role trait.
fn realization(ir: &Ir, re: &IrRealizes, rr: &RealizedRole) -> TokenStream {
    let rt = rt();
    let boxed = boxed_error();
    let rname = &ir.roles[rr.role];
    let st = format_ident!("{}Realization", rname);
    let (mut fields, pvals) = param_values(ir, re, rr);
    fields.extend(input_struct_fields(ir, re, rr));
    let (subs_field, subs_init, subs_arg) = subs_parts(ir, rr);
    let outs: Vec<_> = rr.outputs.iter().map(|(o, _)| id(o)).collect();
    let otys: Vec<_> = rr.outputs.iter().map(|(_, t)| rust_ty(t)).collect();
    let (ret_ty, ret) = match outs.len() {
        1 => (quote!(#(#otys)*), quote!(#(__out.#outs)*)),
        _ => (quote!((#(#otys),*)), quote!((#(__out.#outs),*))),
    };
    let m = MethodParts {
        role: id(rname),
        input: format_ident!("{}Input", rname),
        anames: rr.args.iter().map(|(a, _)| id(a)).collect(),
        pvals,
        ins: input_fields(rr),
        ret_ty,
        ret,
        err: error_ty(&re.error),
        subs_init,
        subs_arg,
    };
    let atys: Vec<_> = rr.args.iter().map(|(_, t)| arg_ty(t, &quote!())).collect();
    let tpath = path_tokens(&rr.trait_path, quote!(missing_trait));
    let method = format_ident!("{}", rr.method);
    let async_fn = async_method(rr, &m);
    let doc = format!(
        "Role `{rname}` of `{}` ({}) as role `{}` of functionality `{}` (its `realizes` clause): implements `{}` by running the protocol on the given channel, with an RNG forked from `rng` per run.",
        ir.name, ir.location, rr.func_role, re.func, rr.trait_path
    );
    let MethodParts {
        role,
        input,
        anames,
        pvals,
        ins,
        ret_ty,
        ret,
        err,
        subs_init,
        subs_arg,
    } = &m;
    quote! {
        #[doc = #doc]
        pub struct #st<'a> {
            /// The RNG each run forks its randomness from.
            pub rng: &'a mut #rt::primitives::rng::Rng,
            #(#fields)*
            #subs_field
        }
        impl #tpath for #st<'_> {
            fn #method(&mut self, ch: &mut dyn #rt::transport::channel::Channel, #(#anames: #atys),*) -> ::core::result::Result<#ret_ty, #err> {
                let __err = |e: Error| -> #err { <#err as ::core::convert::From<#boxed>>::from(::std::boxed::Box::new(e)) };
                #subs_init
                let rng = self.rng.fork();
                let params = Params::new(#(#pvals),*).map_err(__err)?;
                let input = #input { #(#ins),* };
                #[allow(unused_variables)]
                let __out = #role::new(params, input, rng #subs_arg).map_err(__err)?.run(ch).map_err(__err)?;
                Ok(#ret)
            }
            #async_fn
        }
    }
}

/// The realization struct's parameter fields (for the protocol parameters
/// the trait method does not give) and the value of each parameter.
fn param_values(
    ir: &Ir,
    re: &IrRealizes,
    rr: &RealizedRole,
) -> (Vec<TokenStream>, Vec<TokenStream>) {
    let mut fields = vec![];
    let mut pvals = vec![];
    for (p, src) in ir.params.iter().zip(&rr.params) {
        let n = id(&p.name);
        pvals.push(match src {
            ParamSource::Arg(a) => {
                let a = id(a);
                quote!(#a)
            }
            ParamSource::Len(a) => {
                let a = id(a);
                quote!(#a.len())
            }
            ParamSource::Field => {
                let t = rust_ty(&p.ty);
                let doc = format!(
                    "Parameter `{}` of `{}` (not a parameter of `{}`).",
                    p.name, ir.name, re.func
                );
                fields.push(quote!(#[doc = #doc] pub #n: #t,));
                quote!(self.#n)
            }
        });
    }
    (fields, pvals)
}

/// For a role that makes sub-protocol calls: the realization struct's
/// `subs` field, the statement building one run's parties, and the
/// argument passing them to `new`; else nothing.
fn subs_parts(ir: &Ir, rr: &RealizedRole) -> (TokenStream, TokenStream, TokenStream) {
    let has_subs = ir
        .subs
        .iter()
        .any(|s| s.calls.iter().any(|c| c.role == rr.role));
    if !has_subs {
        return (quote!(), quote!(), quote!());
    }
    let rt = rt();
    let rname = &ir.roles[rr.role];
    let subs_ty = format_ident!("{}Subs", rname);
    let doc = format!("Builds the sub-protocol parties of one run of `{rname}` (called once per run, with the RNG).");
    (
        quote!(#[doc = #doc] pub subs: &'a mut (dyn FnMut(&mut #rt::primitives::rng::Rng) -> #subs_ty + ::core::marker::Send),),
        quote!(let subs = (self.subs)(&mut *self.rng);),
        quote!(, subs),
    )
}

/// The realization struct's fields for the protocol inputs the
/// functionality does not give (cloned into each run).
fn input_struct_fields(ir: &Ir, re: &IrRealizes, rr: &RealizedRole) -> Vec<TokenStream> {
    rr.fields
        .iter()
        .map(|(n, t)| {
            let (n_id, ty) = (id(n), rust_ty(t));
            let doc = format!(
                "Input `{n}` of `{}` (not an input of `{}`): cloned into each run.",
                ir.roles[rr.role], re.func
            );
            quote!(#[doc = #doc] pub #n_id: #ty,)
        })
        .collect()
}

/// The protocol input's field initializers from the method's arguments
/// (copied, or converted to owned values) and the struct's input fields
/// (cloned).
fn input_fields(rr: &RealizedRole) -> Vec<TokenStream> {
    let from_args = rr.inputs.iter().map(|(p, a)| {
        let (p, copy) = (id(p), rr.args.iter().any(|(n, t)| n == a && t.is_copy()));
        let a = id(a);
        if copy {
            quote!(#p: #a)
        } else {
            quote!(#p: ::std::borrow::ToOwned::to_owned(#a))
        }
    });
    let from_fields = rr.fields.iter().map(|(n, _)| {
        let n = id(n);
        quote!(#n: ::core::clone::Clone::clone(&self.#n))
    });
    from_args.chain(from_fields).collect()
}

/// The async twin of the trait method (`{method}_async`, gated on the
/// runtime's `tokio` feature), for the traits that have one.
fn async_method(rr: &RealizedRole, m: &MethodParts) -> TokenStream {
    if !has_async_twin(&rr.trait_path) {
        return quote!();
    }
    let rt = rt();
    let boxed = boxed_error();
    let method_async = Io::Async.method(&format_ident!("{}", rr.method));
    let async_atys: Vec<_> = rr
        .args
        .iter()
        .map(|(_, t)| arg_ty(t, &quote!('__a)))
        .collect();
    let async_doc = format!("The async twin of `{}` (cargo feature `tokio`): runs the protocol's `run_async` on the given async channel.", rr.method);
    let MethodParts {
        role,
        input,
        anames,
        pvals,
        ins,
        ret_ty,
        ret,
        err,
        subs_init,
        subs_arg,
    } = m;
    gate(
        Io::Async,
        quote! {
            #[doc = #async_doc]
            fn #method_async<'__a>(&'__a mut self, ch: &'__a mut dyn #rt::transport::channel::AsyncChannel, #(#anames: #async_atys),*) -> #rt::transport::channel::BoxFuture<'__a, ::core::result::Result<#ret_ty, #err>> {
                let __err = |e: Error| -> #err { <#err as ::core::convert::From<#boxed>>::from(::std::boxed::Box::new(e)) };
                #subs_init
                let rng = self.rng.fork();
                let __role = (|| {
                    let params = Params::new(#(#pvals),*)?;
                    let input = #input { #(#ins),* };
                    #role::new(params, input, rng #subs_arg)
                })();
                ::std::boxed::Box::pin(async move {
                    #[allow(unused_variables)]
                    let __out = __role.map_err(__err)?.run_async(ch).await.map_err(__err)?;
                    Ok(#ret)
                })
            }
        },
    )
}
