//! Signature checks of intrinsics, located at their `.otp` declaration.
//!
//! An intrinsic names a Rust function by path (`intrinsic f(x: Block) ->
//! Block = ::my_crate::f;`). If the path does not exist or the function
//! does not take what the declaration says, rustc reports it where the
//! generated code calls the function, which is the `protocol!` invocation,
//! with no `.otp` line. So for every distinct way the protocol calls an
//! intrinsic (the Rust types of the arguments it passes and of the result
//! it expects) one check function makes exactly that call:
//!
//! ```text
//! fn __otp_check_0(a0: &Vec<Block>, a1: usize) -> Block { ::my_crate::f(a0, a1) }
//! ```
//!
//! The check is as strict as the generated call, no more: arguments are
//! passed as the call passes them (scalars by value, arrays, bit vectors
//! and extern values by reference, `move` parameters by value), so deref
//! and unsize coercions (`&Vec<T>` to `&[T]`) and generic kernels are
//! accepted exactly where the call accepts them.
//!
//! Each check is expanded from a `macro_rules!` macro named after the
//! intrinsic and its declaration, so a rustc error inside it ends with
//! "this error originates in the macro
//! `otp_intrinsic_f_declared_at_my_otp_line_3`", and the item's doc
//! comment holds `file:line:col`. For the inline form `protocol! { ... }` the macro crate
//! spans the check at the declaration itself (see [`Located`]).

use super::names::path_tokens;
use super::wire::rust_ty;
use crate::ir::*;
use crate::source::{SourceMap, Span};
use crate::types::Ty;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// Generated items that belong to one place of the `.otp` source: the
/// `protocol!` macro appends them to the module and, when the source is the
/// macro's own tokens (the inline form), gives them the span of the token
/// at `span`, so rustc's message points at that line.
pub struct Located {
    /// The place in the sources.
    pub span: Span,
    /// The items.
    pub tokens: TokenStream,
}

/// One way the protocol calls an intrinsic: its name, how each argument is
/// passed (`move`, by value, by reference) with its type, and the result type.
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct CallShape {
    name: String,
    args: Vec<(Passing, String)>,
    ret: String,
    /// For a streamed kernel (`chunked`): the type of its `out` argument
    /// (it takes `span, out` after the arguments and returns nothing).
    out: Option<String>,
}

#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Passing {
    Value,
    Ref,
}

/// The signature-check items of every intrinsic the protocol calls, each
/// located at the intrinsic's declaration (`decls`: declaration span by
/// intrinsic name).
pub fn intrinsic_checks(ir: &Ir, decls: &BTreeMap<String, Span>, src: &SourceMap) -> Vec<Located> {
    let mut shapes = BTreeSet::new();
    for_each_expr(ir, &mut |e| collect(ir, e, &mut shapes));
    let mut by_name: BTreeMap<&str, Vec<&CallShape>> = BTreeMap::new();
    for s in &shapes {
        by_name.entry(&s.name).or_default().push(s);
    }
    let mut counter = 0usize;
    by_name
        .into_iter()
        .filter_map(|(name, shapes)| {
            let span = *decls.get(name)?;
            let path = ir.intrinsic_paths.get(name)?;
            let (line, col) = src.line_col(span.file, span.start);
            let file = &src.file(span.file).name;
            let mac = macro_name(name, file, line);
            let doc = format!(
                "Intrinsic `{name}` ({file}:{line}:{col}): its Rust function `{path}` called as the protocol calls it."
            );
            let mut fns = vec![];
            for s in shapes {
                counter += 1;
                fns.push(check_fn(s, path, counter));
            }
            let tokens = quote! {
                #[doc = #doc]
                #[allow(dead_code, non_snake_case, clippy::all)]
                const _: () = {
                    macro_rules! #mac { () => { #(#fns)* }; }
                    #mac!();
                };
            };
            Some(Located { span, tokens })
        })
        .collect()
}

/// `otp_intrinsic_<name>_declared_at_<file name>_line_<line>`, every
/// character that cannot be in an identifier replaced by `_`.
fn macro_name(name: &str, file: &str, line: usize) -> Ident {
    let base = file.rsplit(['/', '\\']).next().unwrap_or(file);
    let text = format!("otp_intrinsic_{name}_declared_at_{base}_line_{line}");
    let text: String = text
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    format_ident!("{}", text)
}

fn check_fn(s: &CallShape, path: &str, k: usize) -> TokenStream {
    let f = format_ident!("__otp_check_{}", k);
    let path = path_tokens(path, quote!(missing_path));
    let names: Vec<Ident> = (0..s.args.len()).map(|i| format_ident!("a{}", i)).collect();
    let params = s.args.iter().zip(&names).map(|((p, t), n)| {
        let t: TokenStream = t.parse().unwrap_or_default();
        match p {
            Passing::Value => quote!(#n: #t),
            Passing::Ref => quote!(#n: &#t),
        }
    });
    if let Some(out) = &s.out {
        let out: TokenStream = out.parse().unwrap_or_default();
        return quote! {
            fn #f(#(#params,)* span: ::ot::runtime::Span, out: &mut #out) { #path(#(#names,)* span, out) }
        };
    }
    let ret: TokenStream = s.ret.parse().unwrap_or_default();
    quote! {
        fn #f(#(#params),*) -> #ret { #path(#(#names),*) }
    }
}

/// Records the shape of every intrinsic call in `e` (not the built-ins).
fn collect(ir: &Ir, e: &TExpr, out: &mut BTreeSet<CallShape>) {
    e.visit(&mut |e| {
        let TExprKind::Call(name, args) = &e.kind else {
            return;
        };
        if name.starts_with(crate::ir::BUILTIN_PREFIX) {
            return;
        }
        let moves = ir.moved_args.get(name);
        let args = args
            .iter()
            .enumerate()
            .map(|(k, a)| {
                let moved = moves.and_then(|m| m.get(k)).copied().unwrap_or(false);
                // As `ExprGen::arg` passes it.
                let by_value = moved || (a.ty.is_copy() && !matches!(a.ty, Ty::Array(..)));
                let p = if by_value {
                    Passing::Value
                } else {
                    Passing::Ref
                };
                (p, rust_ty(&a.ty).to_string())
            })
            .collect();
        out.insert(CallShape {
            name: name.clone(),
            args,
            ret: rust_ty(&e.ty).to_string(),
            out: ir
                .chunk_paths
                .contains_key(name)
                .then(|| super::kernel_call::streamed_out(&e.ty).to_string()),
        });
    });
}

/// Calls `f` on every top-level expression of the protocol: statements,
/// stream stages, sub-protocol arguments and `requires` predicates.
fn for_each_expr(ir: &Ir, f: &mut dyn FnMut(&TExpr)) {
    for ev in ir.events.iter().flatten() {
        match ev {
            Event::Stmt(TStmt::Assign(_, e) | TStmt::Check(e, _, _)) => f(e),
            Event::Stream(st) => st.before.iter().chain(&st.after).for_each(|s| f(&s.call)),
            _ => {}
        }
    }
    for sub in &ir.subs {
        sub.calls.iter().flat_map(|c| &c.args).for_each(&mut *f);
    }
    for p in &ir.params {
        if let Some((e, _)) = &p.requires {
            f(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    fn checks_of(src: &str) -> String {
        let c = crate::compile_str("p.otp", src, Path::new("."))
            .unwrap_or_else(|f| panic!("{}", f.render()));
        let text: Vec<String> = c
            .located
            .iter()
            .map(|l| l.tokens.to_string())
            .filter(|t| t.contains("otp_intrinsic_"))
            .collect();
        text.join("\n")
    }

    /// One check per distinct call shape, passing arguments as the
    /// generated call does: scalars by value, a `Vec` array by reference,
    /// a `move` parameter by value; the result typed as declared; the
    /// macro named after the intrinsic and its declaration line.
    #[test]
    fn checks_follow_the_calling_convention() {
        let src = "intrinsic f(x: Block, v: [Block; m]) -> Block = ::k::f;\n\
                   intrinsic g(v: move [Block; m]) -> [Block; m] = ::k::g;\n\
                   protocol P(role A, role B) {\n    param m: usize requires m >= 1;\n    input A { a: Block, xs: [Block; m] }\n    output B { y: Block }\n    at A { b = f(a, xs); c = f(b, xs); w = g(xs); d = f(c, w); }\n    round r: A -> B : M { d: Block }\n    at B { y = d; }\n}\n";
        let t = checks_of(src);
        let vec = "& :: std :: vec :: Vec < :: ot :: runtime :: Block >";
        // `f` is called three times with one shape: one check.
        assert_eq!(t.matches(":: k :: f (a0 , a1)").count(), 1, "{t}");
        assert!(
            t.contains(&format!("a0 : :: ot :: runtime :: Block , a1 : {vec}")),
            "{t}"
        );
        assert!(
            t.contains(
                "a0 : :: std :: vec :: Vec < :: ot :: runtime :: Block >) -> :: std :: vec :: Vec"
            ),
            "{t}"
        );
        assert!(
            t.contains("otp_intrinsic_f_declared_at_p_otp_line_1"),
            "{t}"
        );
        assert!(
            t.contains("otp_intrinsic_g_declared_at_p_otp_line_2"),
            "{t}"
        );
        assert!(t.contains("p.otp:1:11"), "{t}");
    }

    /// Intrinsics that are declared but never called get no check (the
    /// prelude declares many that a protocol does not use).
    #[test]
    fn only_called_intrinsics_are_checked() {
        let src = "intrinsic f(x: Block) -> Block = ::k::f;\n\
                   protocol P(role A, role B) {\n    input A { a: Block }\n    output B { y: Block }\n    round r: A -> B : M { a: Block }\n    at B { y = a; }\n}\n";
        assert_eq!(checks_of(src), "");
    }
}
