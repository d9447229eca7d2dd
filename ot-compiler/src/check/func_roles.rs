//! How a functionality role is implemented (its `impl Role = path(args);`
//! line) and the error for an argument that is not one of its parameters;
//! shared by `do` calls and `realizes`.

use super::scope::R;
use crate::ast::{FuncImpl, Functionality, Ident};
use crate::diag::Diagnostic;
use crate::source::Span;

/// The `impl Role = path::Trait::method(args);` of functionality role `fr`,
/// with its trait path and method name (an error at `at` if it has none).
pub(super) fn role_impl<'f>(
    func: &'f Functionality,
    fr: &str,
    at: Span,
) -> R<(&'f FuncImpl, &'f str, &'f str)> {
    let fname = &func.name.name;
    let Some(imp) = func.impls.iter().find(|i| i.role.name == fr) else {
        return Err(Diagnostic::error(
            at,
            format!("functionality `{fname}` declares no implementation for its role `{fr}`"),
        )
        .with_help(format!(
            "add `impl {fr} = path::Trait::method(args);` to `functionality {fname}`"
        )));
    };
    let Some((trait_path, method)) = imp.path.rsplit_once("::") else {
        return Err(Diagnostic::error(
            imp.span,
            format!(
                "`{}` must be a trait method path `path::Trait::method`",
                imp.path
            ),
        ));
    };
    Ok((imp, trait_path, method))
}

/// An `impl` argument that names neither a parameter of the functionality
/// nor an input of role `fr`.
pub(super) fn not_an_arg(func: &Functionality, fr: &str, a: &Ident) -> Diagnostic {
    Diagnostic::error(
        a.span,
        format!(
            "`{}` is neither a parameter of `{}` nor an input of its role `{fr}`",
            a.name, func.name.name
        ),
    )
}
