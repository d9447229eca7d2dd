//! `realizes`: checks that a two-party protocol's parameters, inputs and
//! outputs match the functionality it claims, and records how each of the
//! functionality's role traits is implemented by running the protocol.

use super::{Checker, R};
use crate::ast::{DoStmt, ExprKind, FuncImpl, Functionality, Ident, IoKind};
use crate::diag::{suggest, Diagnostic};
use crate::ir::{Ir, IrRealizes, ParamSource, RealizedRole};
use crate::source::Span;
use crate::types::{Shape, Ty};
use std::collections::HashMap;

/// Checks `realizes` clause `r` against the checked protocol `ir`.
pub(super) fn check(ck: &Checker, r: &DoStmt, ir: &mut Ir) -> R<()> {
    let fname = &r.func.name;
    let Some(func) = ck.scope.functionalities.get(fname.as_str()).copied() else {
        let names: Vec<String> = ck.scope.functionalities.keys().cloned().collect();
        return Err(
            Diagnostic::error(r.func.span, format!("unknown functionality `{fname}`"))
                .with_help(suggest(fname, "functionality", &names)),
        );
    };
    let mismatch = |span: Span, what: String| {
        Diagnostic::error(
            span,
            format!("`{}` does not realize `{fname}`: {what}", ir.name),
        )
    };
    let froles: Vec<String> = func.roles.iter().map(|x| x.name.name.clone()).collect();
    // Role mapping: every functionality role onto a distinct protocol role.
    let mut map: HashMap<String, usize> = HashMap::new();
    for (fr, pr) in &r.roles {
        if !froles.contains(&fr.name) {
            return Err(
                Diagnostic::error(fr.span, format!("`{fname}` has no role `{}`", fr.name))
                    .with_help(suggest(&fr.name, "role", &froles)),
            );
        }
        let Some(pi) = ir.roles.iter().position(|x| *x == pr.name.name) else {
            return Err(Diagnostic::error(
                pr.name.span,
                format!("`{}` has no role `{}`", ir.name, pr.name.name),
            )
            .with_help(suggest(&pr.name.name, "role", &ir.roles)));
        };
        if map.values().any(|&m| m == pi) || map.insert(fr.name.clone(), pi).is_some() {
            return Err(Diagnostic::error(
                pr.name.span,
                format!(
                    "each role of `{fname}` must be mapped onto a different role of `{}`",
                    ir.name
                ),
            ));
        }
    }
    if let Some(fr) = froles.iter().find(|f| !map.contains_key(*f)) {
        return Err(
            Diagnostic::error(r.span, format!("role `{fr}` of `{fname}` is not mapped")).with_help(
                format!("add `{fr} = <role of {}>` to the role mapping", ir.name),
            ),
        );
    }
    // Parameters: functionality parameter -> protocol parameter.
    let mut pmap: HashMap<String, String> = HashMap::new();
    for (fp, e) in &r.params {
        let Some(decl) = func.params.iter().find(|p| p.name.name == fp.name) else {
            let names: Vec<String> = func.params.iter().map(|p| p.name.name.clone()).collect();
            return Err(Diagnostic::error(
                fp.span,
                format!("`{fname}` has no parameter `{}`", fp.name),
            )
            .with_help(suggest(&fp.name, "parameter", &names)));
        };
        let ExprKind::Var(pp) = &e.kind else {
            return Err(Diagnostic::error(
                e.span,
                format!(
                    "`realizes` binds functionality parameter `{}` to a parameter of `{}` by name",
                    fp.name, ir.name
                ),
            ));
        };
        let want = ck.ty(&decl.ty, None)?;
        match ir.params.iter().find(|p| &p.name == pp) {
            Some(p) if p.ty == want => {}
            Some(p) => {
                return Err(mismatch(
                    e.span,
                    format!("parameter `{pp}` is `{}`, `{}` is `{want}`", p.ty, fp.name),
                ))
            }
            None => {
                let names: Vec<String> = ir.params.iter().map(|p| p.name.clone()).collect();
                return Err(Diagnostic::error(
                    e.span,
                    format!("`{}` has no parameter `{pp}`", ir.name),
                )
                .with_help(suggest(pp, "parameter", &names)));
            }
        }
        pmap.insert(fp.name.clone(), pp.clone());
    }
    for p in &func.params {
        if pmap.contains_key(&p.name.name) {
            continue;
        }
        if !ir.params.iter().any(|q| q.name == p.name.name) {
            return Err(mismatch(
                r.span,
                format!("functionality parameter `{}` is not bound", p.name.name),
            )
            .with_help(format!(
                "write `realizes {fname}[{} = <param of {}>](...)`",
                p.name.name, ir.name
            )));
        }
        pmap.insert(p.name.name.clone(), p.name.name.clone());
    }
    let subst = |n: &str| pmap.get(n).map(|p| Shape::Param(p.clone()));
    // Inputs and outputs, by `with { FRole.field = field }` or by name.
    let mut iomap: HashMap<(String, String), (String, Span)> = HashMap::new();
    for (fr, field, e) in &r.inputs {
        let ExprKind::Var(pf) = &e.kind else {
            return Err(Diagnostic::error(
                e.span,
                format!(
                    "`with` maps a field of `{fname}` to an input or output of `{}` by name",
                    ir.name
                ),
            ));
        };
        if !func.io.iter().any(|io| {
            io.role.name.name == fr.name && io.fields.iter().any(|f| f.name.name == field.name)
        }) {
            return Err(Diagnostic::error(
                field.span,
                format!(
                    "`{fname}` has no input or output `{}.{}`",
                    fr.name, field.name
                ),
            ));
        }
        iomap.insert((fr.name.clone(), field.name.clone()), (pf.clone(), e.span));
    }
    let mut roles = vec![];
    for fr in &froles {
        roles.push(realized_role(
            ck, r, func, fr, map[fr], &iomap, &subst, &pmap, ir,
        )?);
    }
    ir.realizes = Some(IrRealizes {
        func: fname.clone(),
        error: func.error.clone(),
        roles,
    });
    Ok(())
}

/// One functionality role `fr` run as protocol role `role`.
#[allow(clippy::too_many_arguments)]
fn realized_role(
    ck: &Checker,
    r: &DoStmt,
    func: &Functionality,
    fr: &str,
    role: usize,
    iomap: &HashMap<(String, String), (String, Span)>,
    subst: &dyn Fn(&str) -> Option<Shape>,
    pmap: &HashMap<String, String>,
    ir: &Ir,
) -> R<RealizedRole> {
    let fname = &func.name.name;
    let rname = &ir.roles[role];
    let mismatch = |span: Span, what: String| {
        Diagnostic::error(
            span,
            format!("`{}` does not realize `{fname}`: {what}", ir.name),
        )
    };
    let matched = |kind: IoKind, have: &[(String, Ty)]| -> R<Vec<(String, String, Ty)>> {
        let word = if kind == IoKind::Input {
            "input"
        } else {
            "output"
        };
        let mut out = vec![];
        for io in func
            .io
            .iter()
            .filter(|io| io.kind == kind && io.role.name.name == fr)
        {
            for f in &io.fields {
                let want = ck.ty(&f.ty, Some(subst))?;
                let key = (fr.to_string(), f.name.name.clone());
                let (pf, span) = iomap
                    .get(&key)
                    .cloned()
                    .unwrap_or((f.name.name.clone(), r.func.span));
                match have.iter().find(|(n, _)| *n == pf) {
                    Some((_, t)) if *t == want => out.push((f.name.name.clone(), pf, want)),
                    Some((_, t)) => {
                        return Err(mismatch(
                            span,
                            format!("{word} `{pf}` of `{rname}` is `{t}`, but {word} `{fr}.{}` of `{fname}` is `{want}`", f.name.name),
                        )
                        .with_help(format!("declare `{word} {rname} {{ {pf}: {want} }}`, or realize another functionality")))
                    }
                    None => {
                        let names: Vec<String> = have.iter().map(|(n, _)| n.clone()).collect();
                        return Err(mismatch(
                            span,
                            format!("`{rname}` has no {word} `{pf}` for {word} `{fr}.{}: {want}` of `{fname}`", f.name.name),
                        )
                        .with_help(format!(
                            "map it with `with {{ {fr}.{} = <{word} of {rname}> }}` ({})",
                            f.name.name,
                            if names.is_empty() { format!("`{rname}` has no {word}s") } else { format!("`{rname}` has {}", names.join(", ")) }
                        )));
                    }
                }
            }
        }
        Ok(out)
    };
    let inputs = matched(IoKind::Input, &ir.inputs[role])?;
    let outputs = matched(IoKind::Output, &ir.outputs[role])?;
    if let Some((n, t)) = ir.inputs[role]
        .iter()
        .find(|(n, _)| !inputs.iter().any(|(_, p, _)| p == n))
    {
        return Err(mismatch(
            r.func.span,
            format!("input `{n}: {t}` of `{rname}` is not an input of `{fname}`'s `{fr}`"),
        ));
    }
    let (imp, trait_path, method) = role_impl(func, fr, r.func.span)?;
    let mut args = vec![];
    for a in &imp.args {
        let found = match func.params.iter().find(|p| p.name.name == a.name) {
            Some(p) => Some(ck.ty(&p.ty, None)?),
            None => inputs
                .iter()
                .find(|(f, _, _)| *f == a.name)
                .map(|x| x.2.clone()),
        };
        args.push((
            a.name.clone(),
            found.ok_or_else(|| not_an_arg(func, fr, a))?,
        ));
    }
    let mut params = vec![];
    for p in &ir.params {
        let fp = pmap
            .iter()
            .find(|(_, q)| **q == p.name)
            .map(|(f, _)| f.clone());
        params.push(match fp {
            None => ParamSource::Field,
            Some(fp) if args.iter().any(|(a, _)| *a == fp) => ParamSource::Arg(fp),
            Some(fp) => {
                let len_of = args.iter().find(|(_, t)| {
                    matches!(t, Ty::Bits(Shape::Param(q)) | Ty::Array(_, Shape::Param(q)) if *q == p.name)
                });
                match len_of {
                    Some((a, _)) => ParamSource::Len(a.clone()),
                    None => {
                        return Err(mismatch(
                            imp.span,
                            format!("the trait method of `{fr}` is given neither parameter `{fp}` nor an input whose length is `{fp}`"),
                        ))
                    }
                }
            }
        });
    }
    Ok(RealizedRole {
        role,
        func_role: fr.to_string(),
        trait_path: trait_path.to_string(),
        method: method.to_string(),
        args,
        params,
        inputs: inputs.into_iter().map(|(f, p, _)| (p, f)).collect(),
        outputs: outputs.into_iter().map(|(_, p, t)| (p, t)).collect(),
    })
}

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
