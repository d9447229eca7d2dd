//! Errors for a name that resolves to nothing where it is written, told
//! by what the name most likely means: another role's output, a round's
//! field written `round.field`, a parameter that is no length, an input of
//! another role of a functionality.

use super::Checker;
use crate::ast::{Functionality, Ident, IoKind};
use crate::diag::Diagnostic;
use crate::source::Span;

impl Checker<'_> {
    /// The error for output `name` of `role` computed by another role
    /// only (and never sent): at that assignment, which is the mistake.
    pub(super) fn assigned_elsewhere(&self, role: usize, name: &str) -> Option<Diagnostic> {
        if self.is_poisoned(role, name) {
            return None;
        }
        let (other, at) = (0..self.roles.len())
            .filter(|&o| o != role)
            .find_map(|o| self.later[o].get(name).map(|s| (o, *s)))?;
        let (r, o) = (&self.roles[role].name.name, &self.roles[other].name.name);
        Some(
            Diagnostic::error(at, format!("`{name}` is an output of `{r}`, which `{o}` cannot assign"))
                .with_help(format!("compute it in `at {r} {{ {name} = ...; }}`, or compute it at `{o}` under another name and send that to `{r}` in a round")),
        )
    }

    /// The error for `round.field`: a round's fields are read by their names.
    pub(super) fn round_dot_field(&self, name: &str, span: Span) -> Option<Diagnostic> {
        let (round, field) = name.split_once('.')?;
        self.round_names.get(round)?;
        Some(
            Diagnostic::error(
                span,
                format!("unknown value `{name}`: `{round}` is a round, not a sub-protocol call"),
            )
            .with_help(format!(
                "a round delivers its fields under their own names: write `{field}`"
            )),
        )
    }

    /// The error for a name in a length that is not an integer constant
    /// or parameter.
    pub(super) fn not_a_length(&self, n: &str, span: Span) -> Diagnostic {
        if let Some(t) = self.params.get(n) {
            return Diagnostic::error(
                span,
                format!("`{n}` is a `{t}` parameter, but a length is an integer"),
            )
            .with_help(format!("declare it `param {n}: usize;`"));
        }
        let mut names: Vec<String> = self.params.keys().cloned().collect();
        names.extend(self.consts.keys().cloned());
        let declare = format!("declare it: `param {n}: usize requires {n} >= 1;`");
        let help = match crate::diag::did_you_mean(n, names.iter().map(String::as_str)) {
            Some(best) => format!("did you mean `{best}`? Otherwise {declare}"),
            None => declare,
        };
        Diagnostic::error(span, format!("`{n}` is not a constant or parameter; lengths must be built from `const`s, `param`s and numbers")).with_help(help)
    }

    /// The error for `with { fr.field = ... }` naming no input of role `fr`
    /// of `func`: at the role when another role has that input, else at the
    /// field, with the inputs there are.
    pub(super) fn no_such_input(func: &Functionality, fr: &Ident, field: &Ident) -> Diagnostic {
        let inputs_of = |role: &str| -> Vec<String> {
            func.io
                .iter()
                .filter(|io| io.kind == IoKind::Input && io.role.name.name == role)
                .flat_map(|io| io.fields.iter().map(|f| f.name.name.clone()))
                .collect()
        };
        let f = &func.name.name;
        let owner = func
            .roles
            .iter()
            .find(|r| r.name.name != fr.name && inputs_of(&r.name.name).contains(&field.name));
        if let Some(o) = owner {
            let o = &o.name.name;
            return Diagnostic::error(
                fr.span,
                format!(
                    "`{}` is an input of `{o}` of `{f}`, not of `{}`",
                    field.name, fr.name
                ),
            )
            .with_help(format!("write `{o}.{} = ...`", field.name));
        }
        let mine = inputs_of(&fr.name);
        let help = match mine.as_slice() {
            [] => format!("`{}` of `{f}` has no inputs", fr.name),
            _ => match crate::diag::did_you_mean(&field.name, mine.iter().map(String::as_str)) {
                Some(best) => format!("did you mean `{best}`?"),
                None => format!(
                    "the inputs of `{}` are {}",
                    fr.name,
                    mine.iter()
                        .map(|m| format!("`{m}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
        };
        Diagnostic::error(
            field.span,
            format!("`{f}` has no input `{}` for role `{}`", field.name, fr.name),
        )
        .with_help(help)
    }
}
