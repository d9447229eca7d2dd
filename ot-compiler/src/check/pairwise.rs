//! A two-party sub-protocol between every pair of parties of an n-party
//! protocol: `do cot: RandomOt[n = m](Sender = P[i], Receiver = P[j]) with
//! { ... };`. Every party runs the functionality's first role once with
//! each other party as the second, and the second role once with each other
//! party as the first (one run per ordered pair). An input is the party's
//! own value, the same in each of its runs; an output `call.field: T` of
//! either role becomes `call.field: [T; n]` at every party, element `p`
//! being the output of its run with party `p` (its own element is the
//! type's default).

use super::nparty::PartyIx;
use super::scope::R;
use super::{Checker, SubBinding};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::types::Ty;
use std::collections::HashMap;

impl Checker<'_> {
    /// Whether the call maps a role onto the party array (`P[i]`): then it
    /// must be a call between every pair of parties.
    pub(super) fn is_pairwise(&self, d: &DoStmt) -> bool {
        d.roles.iter().any(|(_, pr)| {
            self.role(pr)
                .map(|p| self.roles[p].count.is_some())
                .unwrap_or(false)
        })
    }

    /// The role map of a pairwise call: both roles of a two-role
    /// functionality on the party array, under two different index
    /// variables (`Sender = P[i], Receiver = P[j]`). Functionality role ->
    /// the party array's role index.
    pub(super) fn pairwise_role_map(
        &self,
        d: &DoStmt,
        func: &Functionality,
    ) -> R<(Vec<String>, HashMap<String, usize>)> {
        let froles: Vec<String> = func.roles.iter().map(|r| r.name.name.clone()).collect();
        let p = self
            .roles
            .iter()
            .position(|r| r.count.is_some())
            .unwrap_or(0);
        let pname = self.roles[p].name.name.clone();
        let shape_help = format!(
            "map the two roles of `{}` to `{pname}[i]` and `{pname}[j]`: every party then runs it with every other party, once in each role",
            func.name.name
        );
        if let Some(dealer) = self.dealer_name() {
            return Err(Diagnostic::error(
                d.span,
                format!("a sub-protocol between every pair of parties cannot run in a protocol with the single role `{dealer}`"),
            )
            .with_help("run it in a protocol of the party array alone, and the dealer's rounds in another"));
        }
        if froles.len() != 2 {
            return Err(Diagnostic::error(
                d.func.span,
                format!(
                    "`{}` has {} roles; a call between every pair of parties runs a two-party functionality",
                    func.name.name,
                    froles.len()
                ),
            ));
        }
        let mut map: HashMap<String, usize> = HashMap::new();
        let mut vars: Vec<(String, &RoleRef)> = vec![];
        for (fr, pr) in &d.roles {
            if !froles.contains(&fr.name) {
                return Err(super::no_such_role(func, fr, &froles));
            }
            if self.role(pr)? != p {
                return Err(Diagnostic::error(
                    pr.name.span,
                    format!(
                        "role mapping mismatch: `{}` is mapped to `{}`, the other role to the party array `{pname}`",
                        fr.name, pr.name.name
                    ),
                )
                .with_help(shape_help));
            }
            if pr.index.is_none() {
                return Err(self.party_array_mapped(func, fr, pr, p));
            }
            match self.ix(pr)? {
                PartyIx::Var(v) => vars.push((v.name, pr)),
                PartyIx::Fixed(_) => {
                    return Err(Diagnostic::error(
                        pr.index.as_ref().map(|e| e.span).unwrap_or(pr.name.span),
                        format!(
                            "a sub-protocol runs between every pair of parties, not with one fixed party: `{}` is mapped to one party",
                            fr.name
                        ),
                    )
                    .with_help(shape_help))
                }
            }
            if map.insert(fr.name.clone(), p).is_some() {
                return Err(Diagnostic::error(
                    fr.span,
                    format!("role `{}` of `{}` is mapped twice", fr.name, func.name.name),
                ));
            }
        }
        if let [(a, _), (b, second)] = vars.as_slice() {
            if a == b {
                return Err(Diagnostic::error(
                    second.index.as_ref().map(|e| e.span).unwrap_or(second.name.span),
                    format!("role mapping mismatch: both roles of `{}` are mapped to `{pname}[{a}]`, the same party", func.name.name),
                )
                .with_help(shape_help));
            }
        }
        Self::check_all_mapped(d, func, &froles, &map)?;
        Ok((froles, map))
    }

    /// The inputs of a pairwise call are every party's own values: one held
    /// by a single fixed party (`at P[0]`) is a located error.
    pub(super) fn pairwise_inputs_held(&self, d: &DoStmt) -> R<()> {
        let every = PartyIx::Var(Ident {
            name: "i".into(),
            span: d.span,
        });
        for (_, _, e) in &d.inputs {
            self.not_held(e, &self.party_held, &every, "")?;
        }
        Ok(())
    }

    /// Defines the outputs of a pairwise call at the party array: every
    /// output `call.field: T` of either role as `call.field: [T; n]`. Two
    /// roles with an output of the same name are an error (the arrays
    /// would clash). Functionality role -> its outputs (array types).
    pub(super) fn pairwise_outputs(
        &mut self,
        d: &DoStmt,
        b: &SubBinding,
    ) -> R<HashMap<String, Vec<(String, Ty)>>> {
        let subst = |name: &str| b.pvals.get(name).cloned();
        let n = self.party_shape();
        let mut outputs: HashMap<String, Vec<(String, Ty)>> = HashMap::new();
        let mut seen: HashMap<String, String> = HashMap::new();
        for io in b.func.io.iter().filter(|io| io.kind == IoKind::Output) {
            let Some(&role) = b.map.get(&io.role.name.name) else {
                continue;
            };
            for f in &io.fields {
                let fr = io.role.name.name.clone();
                if let Some(other) = seen.insert(f.name.name.clone(), fr.clone()) {
                    return Err(Diagnostic::error(
                        d.name.span,
                        format!(
                            "`{}` gives both `{other}` and `{fr}` an output `{}`: between every pair of parties, each party holds both, and `{}.{}` would name two values",
                            b.func.name.name, f.name.name, d.name.name, f.name.name
                        ),
                    )
                    .with_help("give the functionality's outputs different names"));
                }
                let ty = self.ty(&f.ty, Some(&subst))?;
                if let Some(ext) = extern_in(&ty) {
                    return Err(Diagnostic::error(
                        d.name.span,
                        format!(
                            "output `{}` of `{}` has the extern type `{ext}`: between every pair of parties it becomes an array indexed by the peer, whose element at the party's own index is a built-in type's default value, which an extern type does not have",
                            f.name.name, b.func.name.name
                        ),
                    )
                    .with_help("run this functionality in a two-party protocol, or give it outputs of built-in types"));
                }
                let ty = Ty::Array(Box::new(ty), n.clone());
                let name = format!("{}.{}", d.name.name, f.name.name);
                let ident = Ident {
                    name: name.clone(),
                    span: d.name.span,
                };
                self.define(role, &ident, ty.clone())?;
                outputs.entry(fr).or_default().push((name, ty));
            }
        }
        Ok(outputs)
    }
}

/// The name of an extern type `t` is or holds, if any.
fn extern_in(t: &Ty) -> Option<&str> {
    match t {
        Ty::Extern(name, _) => Some(name),
        Ty::Array(e, _) => extern_in(e),
        _ => None,
    }
}
