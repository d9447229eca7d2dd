//! The checker's entry: expands `extends` (with `insert` and `omit`), checks
//! the protocol's items with a `Checker` (two-party or n-party), its
//! `about` block and `realizes`, and returns the [`Ir`].

use super::scope::{Scope, CASCADE, R};
use super::{about, nparty, omit, realize};
use super::{item_context, Checker};
use crate::ast::*;
use crate::diag::{suggest, Diagnostic};
use crate::ir::*;
use crate::source::SourceMap;
use std::collections::HashSet;

/// Flattens `extends` and `insert` into one item list.
/// A protocol without `extends` is returned as it is (not copied).
pub fn expand<'p>(
    proto: &'p Protocol,
    scope: &Scope,
    depth: usize,
) -> R<(Vec<RoleDecl>, std::borrow::Cow<'p, [Item]>)> {
    let Some(base_name) = &proto.extends else {
        reject_derived_items(proto)?;
        return Ok((
            proto.roles.clone(),
            std::borrow::Cow::Borrowed(&proto.items),
        ));
    };
    if depth > 16 {
        return Err(Diagnostic::error(
            base_name.span,
            "`extends` chain is too deep (a protocol extends itself?)",
        ));
    }
    let base = base_protocol(proto, scope, base_name)?;
    let (base_roles, items) = expand(base, scope, depth + 1)?;
    let mut items = items.into_owned();
    let roles = if proto.roles.is_empty() {
        base_roles
    } else {
        proto.roles.clone()
    };
    // `omit` applies to the base, before anything is inserted or added.
    let mut omitted = vec![];
    for item in &proto.items {
        if let Item::Omit(o) = item {
            omitted.extend(omit::apply(&mut items, o, base_name)?);
        }
    }
    for item in &proto.items {
        add_derived_item(&mut items, item, base_name)?;
    }
    omit::check_unused(&items, proto.realizes.as_ref(), &omitted)?;
    Ok((roles, items.into()))
}

/// Errors on an `insert` or `omit` in a protocol that extends nothing.
fn reject_derived_items(proto: &Protocol) -> R<()> {
    if let Some(Item::Insert(ins)) = proto.items.iter().find(|i| matches!(i, Item::Insert(_))) {
        return Err(Diagnostic::error(ins.span, format!("`insert` is only allowed in a protocol that `extends` another; `{}` extends nothing", proto.name.name))
            .with_help(format!("write `protocol {} extends Base {{ ... }}`", proto.name.name)));
    }
    if let Some(Item::Omit(o)) = proto.items.iter().find(|i| matches!(i, Item::Omit(_))) {
        return Err(Diagnostic::error(
            o.span,
            format!(
                "`omit` is only allowed in a protocol that `extends` another; `{}` extends nothing",
                proto.name.name
            ),
        )
        .with_help(format!(
            "write `protocol {} extends Base {{ ... }}`, or delete what you would omit",
            proto.name.name
        )));
    }
    Ok(())
}

/// The protocol `proto` extends, or the error for an unknown one.
fn base_protocol<'s>(proto: &Protocol, scope: &Scope<'s>, base_name: &Ident) -> R<&'s Protocol> {
    let Some(base) = scope.protocols.get(&base_name.name) else {
        let names: Vec<String> = scope
            .protocols
            .keys()
            .filter(|n| **n != proto.name.name)
            .cloned()
            .collect();
        let help = match crate::diag::did_you_mean(&base_name.name, names.iter().map(String::as_str)) {
            Some(best) => format!("did you mean `{best}`?"),
            None => format!(
                "a protocol of another file must be imported first: `import \"{}.otp\";` (the path is relative to this file)",
                crate::case::snake(&base_name.name)
            ),
        };
        return Err(Diagnostic::error(
            base_name.span,
            format!("unknown base protocol `{}`", base_name.name),
        )
        .with_help(help));
    };
    Ok(base)
}

/// A derived `const` overriding a base `const` must keep its type: the
/// base computes with it.
fn same_const_type(base: &ConstDecl, derived: &ConstDecl, base_name: &Ident) -> R<()> {
    let name = |t: &Type| match &t.kind {
        TypeKind::Named(n, args) if args.is_empty() => Some(n.name.clone()),
        _ => None,
    };
    match (name(&base.ty), name(&derived.ty)) {
        (Some(b), Some(d)) if b != d => Err(Diagnostic::error(
            derived.ty.span,
            format!(
                "`{}` is a `{b}` constant of `{}`, which computes with it; an override cannot change its type to `{d}`",
                derived.name.name, base_name.name
            ),
        )
        .with_help(format!(
            "declare it `const {}: {b} = ...;`",
            derived.name.name
        ))),
        _ => Ok(()),
    }
}

/// Adds one item of a derived protocol to its base's (already omitted)
/// items: inserts `insert` items at their anchor, overrides a base `const`
/// or `param` of the same name in place, and appends anything else.
fn add_derived_item(items: &mut Vec<Item>, item: &Item, base_name: &Ident) -> R<()> {
    match item {
        Item::Omit(_) => {}
        Item::Insert(ins) => insert_items(items, ins, base_name)?,
        // A derived `const` with the name of a base `const` overrides its value in place.
        Item::Const(c)
            if items
                .iter()
                .any(|it| matches!(it, Item::Const(b) if b.name.name == c.name.name)) =>
        {
            for it in items.iter_mut() {
                if let Item::Const(b) = it {
                    if b.name.name == c.name.name {
                        same_const_type(b, c, base_name)?;
                        *it = Item::Const(c.clone());
                    }
                }
            }
        }
        // A derived `param` with the name of a base `param` replaces it
        // in place: the derived protocol restates (and so may tighten)
        // its `requires`, e.g. a parameter rule only the variant has.
        Item::Param(p)
            if items
                .iter()
                .any(|it| matches!(it, Item::Param(b) if b.name.name == p.name.name)) =>
        {
            for it in items.iter_mut() {
                if matches!(it, Item::Param(b) if b.name.name == p.name.name) {
                    *it = Item::Param(p.clone());
                }
            }
        }
        other => items.push(other.clone()),
    }
    Ok(())
}

/// Inserts the items of `ins` before or after its anchor: a round, a call,
/// or a value (whose `at` block is split at the statement computing it).
fn insert_items(items: &mut Vec<Item>, ins: &Insert, base_name: &Ident) -> R<()> {
    let mut pos = items.iter().position(|it| match it {
        Item::Round(r) => r.name.name == ins.anchor.name,
        Item::Do(d) => d.name.name == ins.anchor.name,
        _ => false,
    });
    // Otherwise the anchor may be a value: the `at` block computing it
    // is split at that statement, and the items go between the halves.
    if pos.is_none() {
        pos = split_at_value(items, &ins.anchor.name, ins.after);
    }
    let Some(pos) = pos else {
        let names: Vec<String> = items
            .iter()
            .filter_map(|it| match it {
                Item::Round(r) => Some(r.name.name.clone()),
                Item::Do(d) => Some(d.name.name.clone()),
                _ => None,
            })
            .collect();
        return Err(Diagnostic::error(
            ins.anchor.span,
            format!(
                "`{}` has no round, call or value named `{}` to insert {} ",
                base_name.name,
                ins.anchor.name,
                if ins.after { "after" } else { "before" }
            )
            .trim_end()
            .to_string(),
        )
        .with_help(suggest(&ins.anchor.name, "anchor", &names)));
    };
    let at = if ins.after { pos + 1 } else { pos };
    // Statements attached to the anchor round's body stay with it.
    for (k, it) in ins.items.iter().enumerate() {
        items.insert(at + k, it.clone());
    }
    Ok(())
}

/// Checks one protocol; returns its IR and warnings. Every error carries a
/// note naming the protocol (and the round or block it is in).
///
/// Errors are recovered per item and per statement: every independent
/// error is returned (in source order; the caller caps them at
/// [`MAX_ERRORS`](super::scope::MAX_ERRORS)); a use of a
/// value whose definition failed is not reported again.
pub fn check_protocol(
    proto: &Protocol,
    scope: &Scope,
    src: &SourceMap,
) -> Result<(Ir, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut errors = vec![];
    let ok = check_protocol_inner(proto, scope, src, &mut errors);
    if let Err(d) = ok.as_ref() {
        errors.push(d.clone());
    }
    // Follow-on errors dropped here; the caller caps the count.
    errors.retain(|d| d.message != CASCADE);
    errors.sort_by_key(|d| (d.span.file, d.span.start));
    let errors: Vec<Diagnostic> = errors
        .into_iter()
        .map(|d| d.with_context(format!("in protocol `{}`", proto.name.name)))
        .collect();
    match ok {
        Ok(done) if errors.is_empty() => Ok(done),
        _ => Err(errors),
    }
}

fn check_protocol_inner(
    proto: &Protocol,
    scope: &Scope,
    src: &SourceMap,
    errors: &mut Vec<Diagnostic>,
) -> R<(Ir, Vec<Diagnostic>)> {
    let about = match proto.about.as_ref().map(about::check) {
        Some(Err(mut errs)) => {
            errors.append(&mut errs);
            None
        }
        Some(Ok(a)) => Some(a),
        None => None,
    };
    let (mut roles, items) = expand(proto, scope, 0)?;
    check_roles_declared(proto, &roles)?;
    check_party_count_declared(&roles, &items)?;
    // In an n-party protocol the party array is role 0 (a named role next to
    // it, the dealer, comes after it whatever the declaration order).
    if roles.iter().any(|r| r.count.is_some()) {
        roles.sort_by_key(|r| r.count.is_none());
    }
    let mut ck = Checker::new(src, scope, roles);
    let mut ir = ck.new_ir(proto);
    ir.about = about;
    if ck.roles.iter().any(|r| r.count.is_some()) {
        if let Some(r) = &proto.realizes {
            return Err(Diagnostic::error(
                r.span,
                "`realizes` is supported for two-party protocols only",
            ));
        }
        ck.scan_ahead(&items);
        let done = nparty::check(proto, &mut ck, &items, &mut ir);
        errors.append(&mut ck.pending);
        done?;
        record_intrinsics(&mut ir, scope);
        ck.check_outputs()?;
        errors.append(&mut ck.pending);
        if !errors.is_empty() {
            return Ok((ir, vec![]));
        }
        ck.check_received_used(&ir, &|_| false)?;
        ck.warn_unused(&ir);
        return Ok((ir, ck.warnings));
    }
    if ck.roles.len() != 2 {
        ir.unsupported = Some((proto.name.span, format!("protocol `{}` has {} roles; code generation supports exactly two single-party roles", proto.name.name, ck.roles.len())));
    }
    ck.scan_ahead(&items);
    let mut failed = Failed::default();
    for item in items.iter() {
        let done = ck.item(item, &mut ir);
        let mut errs = std::mem::take(&mut ck.pending);
        if let Err(d) = done {
            ck.poison_item(item);
            errs.push(d);
        }
        if !errs.is_empty() {
            failed.add(&ck, item);
        }
        errors.extend(
            errs.into_iter()
                .map(|d| d.with_context(item_context(proto, item))),
        );
    }
    ck.check_outputs()?;
    if !ck.pending.is_empty() {
        failed.decls = true;
    }
    errors.append(&mut ck.pending);
    if !errors.is_empty() {
        errors.extend(checks_despite_errors(&ck, proto, &mut ir, &failed));
        return Ok((ir, vec![]));
    }
    if let Some(r) = &proto.realizes {
        realize::check(&ck, r, &mut ir)
            .map_err(|d| d.with_context(format!("in `realizes {}`", r.func.name)))?;
    }
    record_intrinsics(&mut ir, scope);
    ck.check_received_used(&ir, &|_| false)?;
    ck.warn_unused(&ir);
    Ok((ir, ck.warnings))
}

/// What the items that failed may have left incomplete: the roles whose
/// computations or receipts may be missing, and whether a declaration
/// (constant, parameter, input or output) or a sub-protocol call failed.
#[derive(Default)]
struct Failed {
    roles: HashSet<usize>,
    decls: bool,
}

impl Failed {
    /// Records that `item` failed (or holds a failed statement).
    fn add(&mut self, ck: &Checker, item: &Item) {
        let mut refs: Vec<&RoleRef> = vec![];
        match item {
            Item::At(b) => refs.push(&b.role),
            Item::Round(r) => {
                refs.push(&r.from);
                match &r.to {
                    Target::Role(t) => refs.push(t),
                    Target::All(_) => self.decls = true,
                }
                refs.extend(r.body.iter().map(|b| &b.role));
            }
            _ => self.decls = true,
        }
        for r in refs {
            match ck.role(r) {
                Ok(i) => {
                    self.roles.insert(i);
                }
                Err(_) => self.decls = true,
            }
        }
    }

    /// Whether the uses of role `role`'s values may be incomplete.
    fn role(&self, role: usize) -> bool {
        self.decls || self.roles.contains(&role)
    }
}

/// The checks over the whole protocol that do not depend on what failed,
/// after some items failed: `realizes` (which compares the declarations)
/// when every declaration checked, and the rounds whose receiver never
/// reads the message when every computation of the receiver checked.
fn checks_despite_errors(
    ck: &Checker,
    proto: &Protocol,
    ir: &mut Ir,
    failed: &Failed,
) -> Vec<Diagnostic> {
    let mut out = vec![];
    if let (Some(r), false) = (&proto.realizes, failed.decls) {
        if let Err(d) = realize::check(ck, r, ir) {
            out.push(d.with_context(format!("in `realizes {}`", r.func.name)));
        }
    }
    if let Err(d) = ck.check_received_used(ir, &|to| failed.role(to)) {
        out.push(d);
    }
    out
}

/// A protocol needs roles, each declared once.
fn check_roles_declared(proto: &Protocol, roles: &[RoleDecl]) -> R<()> {
    if roles.is_empty() {
        return Err(Diagnostic::error(
            proto.name.span,
            format!("protocol `{}` declares no roles", proto.name.name),
        )
        .with_help("write `protocol Name(role Sender, role Receiver) { ... }`"));
    }
    let mut seen = HashSet::new();
    for r in roles {
        if !seen.insert(r.name.name.clone()) {
            return Err(Diagnostic::error(
                r.name.span,
                format!("role `{}` is declared twice", r.name.name),
            )
            .with_help("give each role a distinct name (`role Sender, role Receiver`)"));
        }
    }
    Ok(())
}

/// The number of parties of `role P[n]` must be a declared `const` or
/// `param`.
fn check_party_count_declared(roles: &[RoleDecl], items: &[Item]) -> R<()> {
    for r in roles {
        let Some(Expr {
            kind: ExprKind::Var(n),
            span,
        }) = &r.count
        else {
            continue;
        };
        let declared = items.iter().any(|it| match it {
            Item::Param(p) => p.name.name == *n,
            Item::Const(c) => c.name.name == *n,
            _ => false,
        });
        if !declared {
            return Err(Diagnostic::error(
                *span,
                format!(
                    "the number of parties `{n}` of `role {}[{n}]` is not declared",
                    r.name.name
                ),
            )
            .with_help(format!("declare it: `param {n}: usize requires {n} >= 2;`")));
        }
    }
    Ok(())
}

/// The Rust paths, `move` parameters and streamed kernels (`chunked`) of
/// the intrinsics.
fn record_intrinsics(ir: &mut Ir, scope: &Scope) {
    ir.intrinsic_paths = scope
        .intrinsics
        .values()
        .map(|i| (i.name.name.clone(), i.path.clone()))
        .collect();
    ir.moved_args = scope
        .intrinsics
        .values()
        .filter(|i| i.moves.iter().any(|m| *m))
        .map(|i| (i.name.name.clone(), i.moves.clone()))
        .collect();
    ir.chunk_paths = scope
        .intrinsics
        .values()
        .filter_map(|i| i.chunk.clone().map(|c| (i.name.name.clone(), c)))
        .collect();
}

/// Splits the last top-level `at` block that assigns `name` right after
/// (or before) that statement and returns the index at which items can be
/// inserted "after"/"before" the value, in the convention of the caller
/// (`pos + 1` for after, `pos` for before).
fn split_at_value(items: &mut Vec<Item>, name: &str, after: bool) -> Option<usize> {
    let (idx, k) = items
        .iter()
        .enumerate()
        .rev()
        .find_map(|(i, it)| match it {
            Item::At(b) => b
                .stmts
                .iter()
                .rposition(|st| matches!(st, Stmt::Assign { name: n, .. } if n.name == name))
                .map(|k| (i, k)),
            _ => None,
        })?;
    let Item::At(block) = items[idx].clone() else {
        return None;
    };
    let cut = if after { k + 1 } else { k };
    let first = AtBlock {
        stmts: block.stmts[..cut].to_vec(),
        ..block.clone()
    };
    let second = AtBlock {
        stmts: block.stmts[cut..].to_vec(),
        ..block
    };
    items[idx] = Item::At(first);
    items.insert(idx + 1, Item::At(second));
    // "after" inserts at pos + 1 = idx + 1 (between the halves); "before" at pos = idx + 1.
    Some(if after { idx } else { idx + 1 })
}
