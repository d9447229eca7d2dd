//! `realizes`: checks that a two-party protocol's parameters, inputs and
//! outputs match the functionality it claims, and records how each of the
//! functionality's role traits is implemented by running the protocol.

use super::func_roles::{not_an_arg, role_impl};
use super::scope::R;
use super::Checker;
use crate::ast::{DoStmt, ExprKind, FuncImpl, Functionality, IoKind};
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
    let froles: Vec<String> = func.roles.iter().map(|x| x.name.name.clone()).collect();
    let map = role_map(r, &froles, ir)?;
    let pmap = param_map(ck, r, func, ir)?;
    let iomap = io_map(r, func, ir)?;
    let rz = Realizing {
        ck,
        r,
        func,
        ir,
        pmap,
        iomap,
    };
    let mut roles = vec![];
    for fr in &froles {
        roles.push(rz.realized_role(fr, map[fr])?);
    }
    ir.realizes = Some(IrRealizes {
        func: fname.clone(),
        error: func.error.clone(),
        roles,
    });
    Ok(())
}

/// The error "`ir` does not realize `fname`: `what`".
fn mismatch(ir: &Ir, fname: &str, span: Span, what: String) -> Diagnostic {
    Diagnostic::error(
        span,
        format!("`{}` does not realize `{fname}`: {what}", ir.name),
    )
}

/// The role mapping of `realizes` clause `r`: every functionality role
/// onto a distinct protocol role (functionality role -> role index).
fn role_map(r: &DoStmt, froles: &[String], ir: &Ir) -> R<HashMap<String, usize>> {
    let fname = &r.func.name;
    let mut map: HashMap<String, usize> = HashMap::new();
    for (fr, pr) in &r.roles {
        if !froles.contains(&fr.name) {
            return Err(
                Diagnostic::error(fr.span, format!("`{fname}` has no role `{}`", fr.name))
                    .with_help(suggest(&fr.name, "role", froles)),
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
    Ok(map)
}

/// The parameters of `realizes` clause `r`: functionality parameter ->
/// protocol parameter, bound explicitly or by name, with matching types.
fn param_map(
    ck: &Checker,
    r: &DoStmt,
    func: &Functionality,
    ir: &Ir,
) -> R<HashMap<String, String>> {
    let fname = &r.func.name;
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
                    ir,
                    fname,
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
            return Err(unbound_param(ck, r, p, ir)?);
        }
        pmap.insert(p.name.name.clone(), p.name.name.clone());
    }
    Ok(pmap)
}

/// The error for functionality parameter `p` that `realizes` clause `r`
/// neither binds nor finds by name: at the functionality's name, with the
/// binding to write (the protocol's parameters of the same type).
fn unbound_param(ck: &Checker, r: &DoStmt, p: &crate::ast::ParamDecl, ir: &Ir) -> R<Diagnostic> {
    let (fname, fp) = (&r.func.name, &p.name.name);
    let want = ck.ty(&p.ty, None)?;
    let same: Vec<&str> = ir
        .params
        .iter()
        .filter(|q| q.ty == want)
        .map(|q| q.name.as_str())
        .collect();
    let help = match same.as_slice() {
        [] => format!(
            "declare `param {fp}: {want}` in `{}`, which has no `{want}` parameter to bind",
            ir.name
        ),
        [one] => format!("write `realizes {fname}[{fp} = {one}](...)`"),
        many => format!(
            "write `realizes {fname}[{fp} = <param>](...)` with one of {}",
            many.iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    Ok(mismatch(
        ir,
        fname,
        r.func.span,
        format!("functionality parameter `{fp}` is not bound"),
    )
    .with_help(help))
}

/// The `with { FRole.field = field }` mappings of `realizes` clause `r`:
/// (functionality role, field) -> (protocol field, where it is mapped).
fn io_map(
    r: &DoStmt,
    func: &Functionality,
    ir: &Ir,
) -> R<HashMap<(String, String), (String, Span)>> {
    let fname = &r.func.name;
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
    Ok(iomap)
}

/// A `realizes` clause being checked against its protocol, with the
/// functionality's parameters and fields mapped onto the protocol's.
struct Realizing<'c, 'a> {
    /// The checker (for resolving types).
    ck: &'c Checker<'a>,
    /// The clause.
    r: &'c DoStmt,
    /// The functionality it names.
    func: &'c Functionality,
    /// The checked protocol.
    ir: &'c Ir,
    /// Functionality parameter -> protocol parameter.
    pmap: HashMap<String, String>,
    /// (functionality role, field) -> (protocol field, where it is mapped).
    iomap: HashMap<(String, String), (String, Span)>,
}

impl Realizing<'_, '_> {
    /// The error "the protocol does not realize the functionality: `what`".
    fn mismatch(&self, span: Span, what: String) -> Diagnostic {
        mismatch(self.ir, &self.func.name.name, span, what)
    }

    /// One functionality role `fr` run as protocol role `role`.
    fn realized_role(&self, fr: &str, role: usize) -> R<RealizedRole> {
        let (func, ir, r) = (self.func, self.ir, self.r);
        let fname = &func.name.name;
        let rname = &ir.roles[role];
        let inputs = self.matched(fr, role, IoKind::Input, &ir.inputs[role])?;
        let outputs = self.matched(fr, role, IoKind::Output, &ir.outputs[role])?;
        // An input the functionality does not give (OOS's code) is a
        // field of the realization struct, like a parameter the trait
        // method does not give.
        let fields: Vec<(String, Ty)> = ir.inputs[role]
            .iter()
            .filter(|(n, _)| !inputs.iter().any(|(_, p, _)| p == n))
            .cloned()
            .collect();
        if let Some((n, _)) = fields.iter().find(|(n, _)| n == "subs") {
            return Err(self.mismatch(
                r.func.span,
                format!("input `{n}` of `{rname}` is not an input of `{fname}`'s `{fr}`, so it would be a field of the realization struct, whose field `{n}` is reserved (rename the input)"),
            ));
        }
        let (imp, trait_path, method) = role_impl(func, fr, r.func.span)?;
        let args = self.method_args(fr, imp, &inputs)?;
        let params = self.param_sources(fr, imp, &args)?;
        Ok(RealizedRole {
            role,
            func_role: fr.to_string(),
            trait_path: trait_path.to_string(),
            method: method.to_string(),
            args,
            params,
            inputs: inputs.into_iter().map(|(f, p, _)| (p, f)).collect(),
            fields,
            outputs: outputs.into_iter().map(|(_, p, t)| (p, t)).collect(),
        })
    }

    /// Matches the inputs or outputs (`kind`) of functionality role `fr`
    /// with those of protocol role `role` (`have`), by mapping or by name:
    /// (functionality field, protocol field, type) in declaration order.
    fn matched(
        &self,
        fr: &str,
        role: usize,
        kind: IoKind,
        have: &[(String, Ty)],
    ) -> R<Vec<(String, String, Ty)>> {
        let fname = &self.func.name.name;
        let rname = &self.ir.roles[role];
        let pmap = &self.pmap;
        let subst = |n: &str| pmap.get(n).map(|p| Shape::Param(p.clone()));
        let word = if kind == IoKind::Input {
            "input"
        } else {
            "output"
        };
        let mut out = vec![];
        for io in self
            .func
            .io
            .iter()
            .filter(|io| io.kind == kind && io.role.name.name == fr)
        {
            for f in &io.fields {
                let want = self.ck.ty(&f.ty, Some(&subst))?;
                let key = (fr.to_string(), f.name.name.clone());
                let (pf, span) = self
                    .iomap
                    .get(&key)
                    .cloned()
                    .unwrap_or((f.name.name.clone(), self.r.func.span));
                match have.iter().find(|(n, _)| *n == pf) {
                    Some((_, t)) if *t == want => out.push((f.name.name.clone(), pf, want)),
                    Some((_, t)) => {
                        return Err(self.mismatch(
                            span,
                            format!("{word} `{pf}` of `{rname}` is `{t}`, but {word} `{fr}.{}` of `{fname}` is `{want}`", f.name.name),
                        )
                        .with_help(format!("declare `{word} {rname} {{ {pf}: {want} }}`, or realize another functionality")))
                    }
                    None => {
                        let names: Vec<String> = have.iter().map(|(n, _)| n.clone()).collect();
                        let mapped = self.iomap.contains_key(&key);
                        let help = missing_io_help(word, rname, (fr, &f.name.name), (&pf, &want), (&names, mapped));
                        return Err(self.mismatch(
                            span,
                            format!("`{rname}` has no {word} `{pf}` for {word} `{fr}.{}: {want}` of `{fname}`", f.name.name),
                        )
                        .with_help(help));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The arguments of role `fr`'s trait method, with their types: each a
    /// functionality parameter or one of the role's matched `inputs`.
    fn method_args(
        &self,
        fr: &str,
        imp: &FuncImpl,
        inputs: &[(String, String, Ty)],
    ) -> R<Vec<(String, Ty)>> {
        let func = self.func;
        let mut args = vec![];
        for a in &imp.args {
            let found = match func.params.iter().find(|p| p.name.name == a.name) {
                Some(p) => Some(self.ck.ty(&p.ty, None)?),
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
        Ok(args)
    }

    /// Where each protocol parameter comes from when role `fr` runs through
    /// its trait method: a field, a method argument, or an argument's length.
    fn param_sources(
        &self,
        fr: &str,
        imp: &FuncImpl,
        args: &[(String, Ty)],
    ) -> R<Vec<ParamSource>> {
        let mut params = vec![];
        for p in &self.ir.params {
            let fp = self
                .pmap
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
                            return Err(self.mismatch(
                                imp.span,
                                format!("the trait method of `{fr}` is given neither parameter `{fp}` nor an input whose length is `{fp}`"),
                            ))
                        }
                    }
                }
            });
        }
        Ok(params)
    }
}

/// The fix for a functionality field `(fr, field)` that protocol role
/// `rname` has no `word` (input or output) `pf: want` for: a name mapped
/// explicitly with `with` that is not declared gets "did you mean"; an
/// unmapped one gets the declaration to add, or a mapping to another of
/// the role's `names`.
fn missing_io_help(
    word: &str,
    rname: &str,
    (fr, field): (&str, &str),
    (pf, want): (&str, &Ty),
    (names, mapped): (&[String], bool),
) -> String {
    match names {
        // The only one there is: what the mapping meant.
        [only] if mapped => return format!("did you mean `{only}`?"),
        [_, ..] if mapped => return suggest(pf, word, names),
        _ => {}
    }
    let others = if names.is_empty() {
        format!("`{rname}` has no {word}s")
    } else {
        format!(
            "`{rname}` has {}",
            names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    format!(
        "declare `{word} {rname} {{ {pf}: {want} }}`, or map another {word} with `with {{ {fr}.{field} = <{word} of {rname}> }}` ({others})"
    )
}
