//! `omit name;` in a protocol that `extends` another: the base's round,
//! `do` call, statements assigning a value and output field of that name
//! are left out of the expanded protocol, so a variant does not compute
//! (or send) what it does not need. Omitting a name the base does not
//! declare, or something the remaining protocol still uses, is an error at
//! the `omit`.

use crate::ast::*;
use crate::diag::{suggest, Diagnostic};

type R<T> = Result<T, Diagnostic>;

/// What one omitted name removed: the values that are gone with it (the
/// name itself, and the fields of an omitted round).
pub(super) struct Omitted {
    /// The name as written in `omit`.
    pub name: Ident,
    /// Values no longer defined by the base, and for whom (`None`: any
    /// role; a round's fields: its receiver).
    pub values: Vec<(String, Option<String>)>,
}

/// Removes from the (expanded) base `items` everything `omit` names.
pub(super) fn apply(items: &mut Vec<Item>, omit: &Omit, base: &Ident) -> R<Vec<Omitted>> {
    let mut out = vec![];
    for name in &omit.names {
        let n = name.name.as_str();
        let mut values = vec![(n.to_string(), None)];
        let mut found = false;
        items.retain_mut(|it| match it {
            Item::Round(r) if r.name.name == n => {
                found = true;
                let to = match &r.to {
                    Target::Role(t) => Some(t.name.name.clone()),
                    Target::All(_) => None,
                };
                values.extend(r.fields.iter().map(|f| (f.name.name.clone(), to.clone())));
                for b in &r.body {
                    let role = Some(b.role.name.name.clone());
                    values.extend(
                        b.stmts
                            .iter()
                            .filter_map(assigned)
                            .map(|v| (v, role.clone())),
                    );
                }
                false
            }
            Item::Do(d) if d.name.name == n => {
                found = true;
                false
            }
            Item::At(b) => {
                found |= drop_assign(b, n);
                !b.stmts.is_empty()
            }
            Item::Round(r) => {
                for b in &mut r.body {
                    found |= drop_assign(b, n);
                }
                r.body.retain(|b| !b.stmts.is_empty());
                true
            }
            Item::Io(io) if io.kind == IoKind::Output => {
                let before = io.fields.len();
                io.fields.retain(|f| f.name.name != n);
                found |= io.fields.len() != before;
                !io.fields.is_empty()
            }
            _ => true,
        });
        if !found {
            return Err(Diagnostic::error(
                name.span,
                format!(
                    "`{}` has no round, call, value or output named `{n}` to omit",
                    base.name
                ),
            )
            .with_help(suggest(n, "name", &omittable(items))));
        }
        out.push(Omitted {
            name: name.clone(),
            values,
        });
    }
    Ok(out)
}

/// Removes the statements of `b` assigning `name`; whether there were any.
fn drop_assign(b: &mut AtBlock, name: &str) -> bool {
    let before = b.stmts.len();
    b.stmts.retain(|s| assigned(s) != Some(name.to_string()));
    b.stmts.len() != before
}

fn assigned(s: &Stmt) -> Option<String> {
    match s {
        Stmt::Assign { name, .. } => Some(name.name.clone()),
        Stmt::Check { .. } => None,
    }
}

/// The names `omit` accepts in `items`, for "did you mean".
fn omittable(items: &[Item]) -> Vec<String> {
    let mut names = vec![];
    for it in items {
        match it {
            Item::Round(r) => {
                names.push(r.name.name.clone());
                for b in &r.body {
                    names.extend(b.stmts.iter().filter_map(assigned));
                }
            }
            Item::Do(d) => names.push(d.name.name.clone()),
            Item::At(b) => names.extend(b.stmts.iter().filter_map(assigned)),
            Item::Io(io) if io.kind == IoKind::Output => {
                names.extend(io.fields.iter().map(|f| f.name.name.clone()))
            }
            _ => {}
        }
    }
    names.sort();
    names.dedup();
    names
}

/// After the derived protocol's items are merged: an omitted value that
/// nothing defines again but something still uses is an error at its
/// `omit`, naming the user.
pub(super) fn check_unused(
    items: &[Item],
    realizes: Option<&DoStmt>,
    omitted: &[Omitted],
) -> R<()> {
    for o in omitted {
        for (v, role) in &o.values {
            let role = role.as_deref();
            if defines(items, v, role) {
                continue;
            }
            let Some(user) = user_of(items, realizes, v, role) else {
                continue;
            };
            let what = if v == &o.name.name {
                format!("`{v}` is omitted")
            } else {
                format!("`{v}` (of the omitted `{}`) is gone", o.name.name)
            };
            return Err(Diagnostic::error(
                o.name.span,
                format!("{what}, but {user} still uses it"),
            )
            .with_help(if v == &o.name.name {
                format!("omit what uses `{v}` too (add it to this `omit`), or define `{v}` again")
            } else {
                format!(
                    "omit what uses `{v}` too (add it to this `omit`), define `{v}` again, or keep `{}`",
                    o.name.name
                )
            }));
        }
    }
    Ok(())
}

/// Whether role `role` is `want` (`None`: any role).
fn is(role: &RoleRef, want: Option<&str>) -> bool {
    want.is_none_or(|w| role.name.name == w)
}

/// Whether some item defines the value `v` (again) for `role`.
fn defines(items: &[Item], v: &str, role: Option<&str>) -> bool {
    let block = |b: &AtBlock| {
        is(&b.role, role) && b.stmts.iter().any(|s| assigned(s).as_deref() == Some(v))
    };
    let to = |t: &Target| match t {
        Target::Role(t) => is(t, role),
        Target::All(_) => true,
    };
    items.iter().any(|it| match it {
        Item::At(b) => block(b),
        Item::Round(r) => {
            (to(&r.to) && r.fields.iter().any(|f| f.name.name == v)) || r.body.iter().any(block)
        }
        Item::Do(d) => d.name.name == v,
        Item::Io(io) => {
            io.kind == IoKind::Input
                && is(&io.role, role)
                && io.fields.iter().any(|f| f.name.name == v)
        }
        Item::Const(c) => c.name.name == v,
        Item::Param(p) => p.name.name == v,
        Item::Insert(_) | Item::Omit(_) => false,
    })
}

/// Who still uses `v`, in words (`the statement assigning \`y\``), if anyone.
fn user_of(
    items: &[Item],
    realizes: Option<&DoStmt>,
    v: &str,
    role: Option<&str>,
) -> Option<String> {
    let block = |b: &AtBlock| {
        if !is(&b.role, role) {
            return None;
        }
        b.stmts.iter().find_map(|s| match s {
            Stmt::Assign { name, value } if mentions(value, v) => Some(format!(
                "the statement assigning `{}` at `{}`",
                name.name, b.role.name.name
            )),
            Stmt::Check { cond, abort, .. } if mentions(cond, v) => Some(format!(
                "the check aborting with `{}` at `{}`",
                abort.name, b.role.name.name
            )),
            _ => None,
        })
    };
    let call = |d: &DoStmt| {
        d.params.iter().map(|(_, e)| e).any(|e| mentions(e, v))
            || d.inputs.iter().any(|(_, _, e)| mentions(e, v))
    };
    for it in items {
        let user = match it {
            Item::At(b) => block(b),
            Item::Round(r) => (is(&r.from, role) && r.fields.iter().any(|f| f.name.name == v))
                .then(|| format!("round `{}` (it sends `{v}`)", r.name.name))
                .or_else(|| r.body.iter().find_map(block)),
            Item::Do(d) => call(d).then(|| format!("the call `{}`", d.name.name)),
            Item::Io(io) if io.kind == IoKind::Output && is(&io.role, role) => io
                .fields
                .iter()
                .any(|f| f.name.name == v)
                .then(|| format!("the output of `{}`", io.role.name.name)),
            _ => None,
        };
        if user.is_some() {
            return user;
        }
    }
    realizes
        .filter(|d| call(d))
        .map(|d| format!("`realizes {}`", d.func.name))
}

/// Whether `e` reads the value `v` (a variable, or a call's output `v.x`).
/// Iterative: expressions may be long operator chains.
fn mentions(e: &Expr, v: &str) -> bool {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        match &e.kind {
            ExprKind::Var(n) if n == v => return true,
            ExprKind::Member(a, _) | ExprKind::Unary(_, a) | ExprKind::Cast(a, _) => stack.push(a),
            ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => {
                stack.push(a);
                stack.push(b);
            }
            ExprKind::Call(_, args) | ExprKind::Array(args) => stack.extend(args),
            ExprKind::Comprehension { body, lo, hi, .. } => {
                stack.push(body);
                stack.push(lo);
                stack.push(hi);
            }
            _ => {}
        }
    }
    false
}

/// `omit` inside an `insert` body.
pub(super) fn omit_misplaced(o: &Omit) -> Diagnostic {
    Diagnostic::error(
        o.span,
        "`omit` must appear directly in a protocol that `extends` another",
    )
    .with_help("move it out of the `insert` body")
}
