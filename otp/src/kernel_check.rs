//! `otp check`'s check of intrinsic declarations against the runtime,
//! without rustc: every intrinsic in scope (the prelude's, the file's and
//! its imports') whose Rust path starts with `::ot::runtime::` (or
//! `ot::runtime::`) must name a function of the runtime's table
//! ([`crate::kernels`]) taking as many arguments as the generated code
//! passes: `path(arg, ..)` with one argument per declared parameter, or
//! for a `chunked` intrinsic `path(args.., span, out)`, two more. A path
//! may name a method (it takes `self`): the call's first argument is then
//! the receiver (`Type::method(&code, &messages)`), so the declaration's
//! first parameter must be it; a declaration passing only the method's
//! other parameters is a "takes `self`" error. Paths elsewhere are left to
//! rustc, and so are the types.

use crate::check::plural;
use crate::kernels::{split, Kernel, Table};
use ot_compiler::ast::IntrinsicDecl;
use ot_compiler::diag::Diagnostic;

/// The prefixes of the runtime's paths.
const PREFIXES: [&str; 2] = ["::ot::runtime::", "ot::runtime::"];

/// The errors of the intrinsic declarations `decls` against the runtime's
/// table (none when the table is empty: the runtime's sources were not
/// found when `otp` was built).
pub fn check(decls: &[IntrinsicDecl]) -> Vec<Diagnostic> {
    check_with(&Table::RUNTIME, decls)
}

/// [`check`] against `table`.
pub fn check_with(table: &Table, decls: &[IntrinsicDecl]) -> Vec<Diagnostic> {
    if table.is_empty() {
        return vec![];
    }
    decls.iter().filter_map(|d| check_decl(table, d)).collect()
}

/// The path under the runtime's root that `path` names: (the prefix as
/// written, the path after it, `::`-separated, generic arguments dropped).
/// `None` for a path outside the runtime.
pub fn in_runtime(path: &str) -> Option<(&'static str, String)> {
    let parsed = syn::parse_str::<syn::Path>(path).ok()?;
    let segs: Vec<String> = parsed
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let prefix = if parsed.leading_colon.is_some() {
        PREFIXES[0]
    } else {
        PREFIXES[1]
    };
    match segs.as_slice() {
        [ot, runtime, rest @ ..] if ot == "ot" && runtime == "runtime" => {
            Some((prefix, rest.join("::")))
        }
        _ => None,
    }
}

/// The error of one declaration, if any.
fn check_decl(table: &Table, d: &IntrinsicDecl) -> Option<Diagnostic> {
    let (prefix, rel) = in_runtime(&d.path)?;
    let found = table.at(&rel);
    let path = &d.path;
    if found.is_empty() {
        if table.is_opaque(&rel) {
            return None;
        }
        let msg = format!("`{path}` is not a function of the runtime");
        return Some(
            Diagnostic::error(d.path_span, msg).with_help(missing_help(table, prefix, &rel)),
        );
    }
    let n = d.params.len();
    let chunked = d.chunk.is_some();
    let passed = if chunked { n + 2 } else { n };
    if found.iter().any(|k| args(k) == passed) {
        return None;
    }
    if let Some(m) = found.iter().find(|k| k.takes_self && k.params == passed) {
        let msg = format!(
            "`{path}` takes `self`: called as `{path}(args)`, a method gets the receiver as the first argument, and the declaration passes {passed} argument{} where the method takes `self` and {} more",
            plural(passed),
            m.params
        );
        return Some(Diagnostic::error(d.path_span, msg).with_help(
            "declare the receiver as the intrinsic's first parameter, or bind the intrinsic to a free function (or an associated function without `self`)",
        ));
    }
    let mut takes: Vec<usize> = found.iter().map(args).collect();
    takes.sort_unstable();
    takes.dedup();
    let takes_text = takes
        .iter()
        .map(usize::to_string)
        .collect::<Vec<_>>()
        .join(" or ");
    let receiver = if found.iter().all(|k| k.takes_self) {
        " (`self` first)"
    } else {
        ""
    };
    let mut msg = format!(
        "`{path}` takes {takes_text} argument{}{receiver}, the declaration passes {passed}",
        if takes == [1] { "" } else { "s" }
    );
    if chunked {
        msg.push_str(&format!(
            " (chunked: {n} parameter{} + span and out)",
            plural(n)
        ));
    }
    Some(Diagnostic::error(d.path_span, msg).with_help(arity_help(chunked, n, &takes)))
}

/// The arguments a call of `k` as `path(args)` passes: a method's
/// receiver first, then its parameters.
fn args(k: &Kernel) -> usize {
    k.params + usize::from(k.takes_self)
}

/// Help for a path that names no function: a close path, else the names
/// of its module, else where paths are checked against.
fn missing_help(table: &Table, prefix: &str, rel: &str) -> String {
    if let Some(best) = table.did_you_mean(rel) {
        return format!("did you mean `{prefix}{best}`?");
    }
    let (module, _) = split(rel);
    let names = table.names_in(module);
    let shown = format!("{prefix}{module}");
    let shown = shown.trim_end_matches("::");
    if names.is_empty() {
        return format!("the runtime has no public function under `{shown}`");
    }
    let list: Vec<String> = names.iter().take(12).map(|n| format!("`{n}`")).collect();
    let more = if names.len() > 12 { ", ..." } else { "" };
    format!("the functions of `{shown}`: {}{more}", list.join(", "))
}

/// Help for an arity mismatch: how the generated code calls the function,
/// and `chunked` added or dropped when that would match.
fn arity_help(chunked: bool, n: usize, takes: &[usize]) -> String {
    if chunked {
        if takes.contains(&n) {
            return "a `chunked` intrinsic is called as `path(args.., span, out)`, but this function takes only the declared parameters: drop `chunked`".into();
        }
        return "a `chunked` intrinsic is called as `path(args.., span, out)`: one argument per declared parameter, then the chunk's span and the output".into();
    }
    if takes.contains(&(n + 2)) {
        return "the function takes two more arguments: a streamed kernel (`path(args.., span, out)`) is declared `chunked`".into();
    }
    "an intrinsic is called as `path(args..)`, one argument per declared parameter".into()
}

#[cfg(test)]
mod tests {
    use super::{check_with, in_runtime};
    use crate::kernels::{Kernel, Table};

    static TABLE: &[Kernel] = &[
        Kernel {
            path: "Code::in_range",
            params: 1,
            takes_self: true,
        },
        Kernel {
            path: "otext::gf_mul",
            params: 2,
            takes_self: false,
        },
    ];

    /// The messages of the errors of `decls` (`.otp` intrinsic declarations).
    fn errors(decls: &str) -> Vec<String> {
        let file = ot_compiler::parse::parse_file(decls, 0).expect("parses");
        let table = Table {
            kernels: TABLE,
            opaque: &["ec::Point"],
        };
        check_with(&table, &file.intrinsics)
            .into_iter()
            .map(|d| d.message)
            .collect()
    }

    #[test]
    fn runtime_prefixes() {
        assert_eq!(
            in_runtime("::ot::runtime::psi::cuckoo_table"),
            Some(("::ot::runtime::", "psi::cuckoo_table".to_string()))
        );
        assert_eq!(
            in_runtime("ot::runtime::HashTweaks::new"),
            Some(("ot::runtime::", "HashTweaks::new".to_string()))
        );
        assert_eq!(in_runtime("::my_crate::f"), None);
        assert_eq!(in_runtime("crate::ot::runtime::f"), None);
        assert_eq!(in_runtime("::ot::runtimes::f"), None);
        assert_eq!(in_runtime("not a path"), None);
    }

    #[test]
    fn receivers_count_as_the_first_argument() {
        assert!(
            errors("intrinsic a(c: Block, m: Block) -> Bit = ::ot::runtime::Code::in_range;")
                .is_empty()
        );
        let e = errors("intrinsic a(m: Block) -> Bit = ::ot::runtime::Code::in_range;");
        assert_eq!(e.len(), 1);
        assert!(e[0].contains("takes `self`"), "{e:?}");
        let e = errors(
            "intrinsic a(c: Block, m: Block, x: Block) -> Bit = ::ot::runtime::Code::in_range;",
        );
        assert!(
            e[0].contains("takes 2 arguments (`self` first), the declaration passes 3"),
            "{e:?}"
        );
    }

    #[test]
    fn opaque_paths_and_an_empty_table_are_not_checked() {
        assert!(
            errors("intrinsic a(x: Block) -> Block = ::ot::runtime::ec::Point::identity;")
                .is_empty()
        );
        let file = ot_compiler::parse::parse_file(
            "intrinsic a(x: Block) -> Block = ::ot::runtime::nope;",
            0,
        )
        .expect("parses");
        let empty = Table {
            kernels: &[],
            opaque: &[],
        };
        assert!(check_with(&empty, &file.intrinsics).is_empty());
        assert_eq!(
            errors("intrinsic a(x: Block) -> Block = ::ot::runtime::nope;").len(),
            1
        );
    }
}
