//! Checking an n-party protocol (`role P[n]`): every party runs the same
//! projection with its own index bound to the block's variable (`at P[i]`),
//! rounds are broadcasts (`P[i] -> all`) or private all-to-all rounds
//! (`P[i] -> P[j]`), and a value received in a round is the array of what
//! each party sent (`x[j]` is `P[j]`'s). The knowledge check keeps the two
//! ends of a round apart: inside a round, what `P[i]` computes for its
//! message is not known to `P[j]` unless the round sends it.

use super::{item_context, line_ref, Checker, Var, R};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::source::Span;
use crate::types::{Shape, Ty};
use std::collections::BTreeSet;

/// The name every party's session id has in expressions (a `Block`).
pub(super) const SESSION: &str = "session";

/// Checks an n-party protocol whose roles are `roles` (one party array).
pub(super) fn check(proto: &Protocol, ck: &mut Checker, items: &[Item], ir: &mut Ir) -> R<()> {
    let count = party_count(proto, &ck.roles)?;
    ck.env[0].insert(
        SESSION.to_string(),
        Var {
            ty: Ty::Block,
            span: proto.name.span,
            used: true,
            exported: false,
        },
    );
    ck.party_min = items
        .iter()
        .find_map(|item| match item {
            Item::Param(p) if p.name.name == count.name => p.requires.as_ref(),
            _ => None,
        })
        .and_then(|e| least_count(ck.src.snippet(e.span), &count.name))
        .unwrap_or(2);
    for item in items {
        if let Item::Round(r) = item {
            for f in &r.fields {
                let d = (f.name.name.clone(), r.name.name.clone(), r.name.span);
                ck.party_deliveries.push(d);
            }
        }
    }
    for item in items {
        ck.party_item(item, ir)
            .map_err(|d| d.with_context(item_context(proto, item)))?;
        if let Item::Param(p) = item {
            if p.name.name == count.name {
                ck.party_count_param(p, &count)?;
                ir.party_count = Some(count.name.clone());
            }
        }
    }
    if ir.party_count.is_none() {
        return Err(Diagnostic::error(
            count.span,
            format!("the number of parties `{}` must be a parameter", count.name),
        )
        .with_help(format!(
            "declare `param {}: usize requires {} >= 2;` in the protocol",
            count.name, count.name
        )));
    }
    Ok(())
}

/// The single party array and the name of its count.
fn party_count(proto: &Protocol, roles: &[RoleDecl]) -> R<Ident> {
    if let Some(other) = roles.iter().find(|r| r.count.is_none()) {
        let party = roles.iter().find(|r| r.count.is_some());
        let pname = party.map(|p| p.name.name.as_str()).unwrap_or("P");
        return Err(Diagnostic::error(
            other.name.span,
            format!(
                "role `{}` next to the party array `{pname}`: an n-party protocol has exactly one role, `role {pname}[n]`",
                other.name.name
            ),
        )
        .with_help(format!("let a party of `{pname}` play `{}` (for example `P[0]`'s values), or write a two-party protocol", other.name.name)));
    }
    if roles.len() != 1 {
        return Err(Diagnostic::error(
            roles[1].name.span,
            format!(
                "protocol `{}` declares two party arrays; it may have one",
                proto.name.name
            ),
        ));
    }
    let Some(count) = &roles[0].count else {
        return Err(Diagnostic::error(proto.name.span, "no party array"));
    };
    match &count.kind {
        ExprKind::Var(v) => Ok(Ident {
            name: v.clone(),
            span: count.span,
        }),
        _ => Err(Diagnostic::error(
            count.span,
            "the number of parties must be a parameter name, as in `role P[n]`",
        )
        .with_help("declare `param n: usize requires n >= 2;` and write `role P[n]`")),
    }
}

/// The least party count a `requires` text allows: `k` from `n >= k` or
/// `k + 1` from `n > k` (the largest such bound in a conjunction).
fn least_count(text: &str, count: &str) -> Option<u128> {
    let text: String = text.split_whitespace().collect();
    let mut least = None;
    for (op, add) in [(">=", 0), (">", 1)] {
        let pat = format!("{count}{op}");
        for (at, _) in text.match_indices(&pat) {
            let before = text[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let digits: String = text[at + pat.len()..]
                .chars()
                .take_while(|c| c.is_ascii_digit())
                .collect();
            if let Ok(k) = digits.parse::<u128>() {
                least = least.max(Some(k + add));
            }
        }
    }
    least
}

/// The index variable of a party reference `P[i]`; `min` is the least
/// number of parties the protocol allows (for the error on a fixed index).
pub(super) fn party_var(r: &RoleRef, min: u128) -> R<Ident> {
    let Some(ix) = &r.index else {
        return Err(Diagnostic::error(
            r.name.span,
            format!(
                "`{}` is a party array: name the party as `{}[i]`",
                r.name.name, r.name.name
            ),
        ));
    };
    let p = &r.name.name;
    match &ix.kind {
        ExprKind::Var(v) => Ok(Ident {
            name: v.clone(),
            span: ix.span,
        }),
        ExprKind::Int(k) if *k >= min => Err(Diagnostic::error(
            ix.span,
            format!("party index out of range: `{p}[{k}]` is not a party when there are {min} (the protocol allows {min} or more)"),
        )
        .with_help(format!("parties are `{p}[0]` to `{p}[n - 1]`: use an index below {min}, or require more parties (`requires n >= {}`)", k + 1))),
        ExprKind::Int(k) => Err(Diagnostic::error(
            ix.span,
            format!("`{p}[{k}]` names one fixed party; an n-party protocol is written once for every party, `{p}[i]` (rounds and blocks of a fixed party are not supported)"),
        )
        .with_help(format!("write `{p}[i]` and use its own index `i` in expressions; a value only `{p}[{k}]` should contribute can be selected by index after a broadcast, as `x[{k}]`"))),
        _ => Err(Diagnostic::error(
            ix.span,
            "a party index must be a variable naming the party, as in `P[i]`",
        )),
    }
}

impl Checker<'_> {
    /// The party count parameter must be a `usize`; parties need at least 2.
    fn party_count_param(&self, p: &ParamDecl, count: &Ident) -> R<()> {
        if self.params.get(&count.name) != Some(&Ty::Usize) {
            return Err(Diagnostic::error(
                p.ty.span,
                format!("the number of parties `{}` must be a `usize`", count.name),
            ));
        }
        let least = p
            .requires
            .as_ref()
            .and_then(|e| least_count(self.src.snippet(e.span), &count.name));
        if least.is_none_or(|k| k < 2) {
            return Err(Diagnostic::error(
                p.name.span,
                format!(
                    "the number of parties `{}` needs `requires {} >= 2`",
                    count.name, count.name
                ),
            )
            .with_help(format!(
                "write `param {}: usize requires {} >= 2;`",
                count.name, count.name
            )));
        }
        Ok(())
    }

    /// One item of an n-party protocol.
    fn party_item(&mut self, item: &Item, ir: &mut Ir) -> R<()> {
        match item {
            Item::Const(c) => self.const_item(c, ir),
            Item::Param(p) => self.param_item(p, ir),
            Item::Io(io) => {
                party_var(&io.role, self.party_min)?;
                self.io_item(io, ir)
            }
            Item::At(block) => self.party_block(block, ir),
            Item::Round(r) => self.party_round(r, ir),
            Item::Do(d) => self.do_stmt(d, ir),
            Item::Insert(ins) => Err(Diagnostic::error(
                ins.span,
                "`insert` must appear directly in a protocol that `extends` another",
            )),
        }
    }

    /// `at P[i] { ... }`: every party's computation, `i` its own index.
    fn party_block(&mut self, block: &AtBlock, ir: &mut Ir) -> R<()> {
        let v = party_var(&block.role, self.party_min)?;
        self.role(&block.role)?;
        self.party_vars.push(v.name);
        let res = self.at_block(block, ir);
        self.party_vars.pop();
        res
    }

    /// `round name: P[i] -> all | P[j] : Msg { fields } { at P[i] {...} at P[j] {...} }`
    fn party_round(&mut self, r: &Round, ir: &mut Ir) -> R<()> {
        self.round_names_fresh(r)?;
        if let Some(e) = &r.chunk_by {
            return Err(Diagnostic::error(e.span, "n-party rounds are not chunked")
                .with_help("remove `chunked(by = ...)`"));
        }
        let from = party_var(&r.from, self.party_min)?;
        self.role(&r.from)?;
        let kind = match &r.to {
            Target::All(_) => PartyRound::Broadcast {
                checked: r.unchecked.is_none(),
            },
            Target::Role(t) => {
                let to = party_var(t, self.party_min)?;
                self.role(t)?;
                if to.name == from.name {
                    let p = &r.from.name.name;
                    return Err(Diagnostic::error(r.span, format!("round `{}` sends `{}` from `{p}[{}]` to itself, so the message is never received", r.name.name, r.msg.name, from.name))
                        .with_help(format!("name the receiver with another index, `{}[j]`: every party sends to every other party", r.from.name.name)));
                }
                PartyRound::Private
            }
        };
        // The sender's side (its index is `from`) runs before the send.
        let mut own = BTreeSet::new();
        for b in &r.body {
            if party_var(&b.role, self.party_min)?.name == from.name {
                own.extend(self.block_defs(b));
                self.party_block(b, ir)?;
            }
        }
        let fields = self.party_fields(r, kind, &from)?;
        let round_idx = ir.rounds.len();
        self.party_receive(r, &fields);
        self.received_unused.push((round_idx, 0, r.span));
        let mut round = self.ir_round(r, 0, 0, fields)?;
        round.party = Some(kind);
        ir.rounds.push(round);
        ir.events[0].push(Event::Send(round_idx));
        ir.events[0].push(Event::Recv(round_idx));
        for b in &r.body {
            let v = party_var(&b.role, self.party_min)?;
            if v.name != from.name {
                self.not_sent(b, &own, &from, &v, r)?;
                self.party_block(b, ir)?;
            }
        }
        Ok(())
    }

    /// The names a block assigns.
    fn block_defs(&self, b: &AtBlock) -> Vec<String> {
        b.stmts
            .iter()
            .filter_map(|s| match s {
                Stmt::Assign { name, .. } => Some(name.name.clone()),
                _ => None,
            })
            .collect()
    }

    /// A receiver's block of a round may not use what the sender computed
    /// for the round (other than through the message).
    fn not_sent(
        &self,
        b: &AtBlock,
        own: &BTreeSet<String>,
        from: &Ident,
        to: &Ident,
        r: &Round,
    ) -> R<()> {
        let sent: BTreeSet<&str> = r.fields.iter().map(|f| f.name.name.as_str()).collect();
        for s in &b.stmts {
            let e = match s {
                Stmt::Assign { value, .. } => value,
                Stmt::Check { cond, .. } => cond,
            };
            if let Some((name, span)) = mentions_any(e, own, &sent) {
                let p = &r.from.name.name;
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "`{name}` is a value of `{p}[{}]` (computed for round `{}`); `{p}[{}]` cannot use it because the round does not send it",
                        from.name, r.name.name, to.name
                    ),
                )
                .with_help(format!(
                    "add `{name}` to the fields of `{}`, or compute it at `{p}[{}]` from what it received",
                    r.msg.name, to.name
                )));
            }
        }
        Ok(())
    }

    /// The fields every party sends, with their declared (per-message)
    /// types; in a private round the sender's value is an array indexed by
    /// the receiver.
    fn party_fields(&mut self, r: &Round, kind: PartyRound, from: &Ident) -> R<Vec<(String, Ty)>> {
        let n = self.party_shape();
        let mut fields = vec![];
        for f in &r.fields {
            if fields.iter().any(|(x, _): &(String, Ty)| x == &f.name.name) {
                return Err(Diagnostic::error(
                    f.name.span,
                    format!(
                        "duplicate field `{}` in message `{}` of round `{}`",
                        f.name.name, r.msg.name, r.name.name
                    ),
                ));
            }
            let declared = self.ty(&f.ty, None)?;
            let want = match kind {
                PartyRound::Private => Ty::Array(Box::new(declared.clone()), n.clone()),
                PartyRound::Broadcast { .. } => declared.clone(),
            };
            let have = self.party_sent_value(r, f, from)?;
            if have != want {
                let what = match kind {
                    PartyRound::Private => format!("one `{declared}` per receiver, `{want}`"),
                    PartyRound::Broadcast { .. } => format!("`{want}`"),
                };
                return Err(Diagnostic::error(f.ty.span, format!("shape mismatch: field `{}` of `{}` needs {what}, but `{}[{}]` has `{}: {have}`", f.name.name, r.msg.name, r.from.name.name, from.name, f.name.name)));
            }
            fields.push((f.name.name.clone(), declared));
        }
        Ok(fields)
    }

    /// The type of the value a party sends as field `f`.
    fn party_sent_value(&mut self, r: &Round, f: &Field, from: &Ident) -> R<Ty> {
        if let Some(v) = self.env[0].get_mut(&f.name.name) {
            v.exported = true;
            return Ok(v.ty.clone());
        }
        // A round not checked yet (the current one is) that delivers it.
        let later = self.party_deliveries.iter().find(|(field, round, _)| {
            field == &f.name.name && !self.round_names.contains_key(round)
        });
        if let Some((_, later, lspan)) = later {
            let l = line_ref(self.src, f.name.span, *lspan);
            let p = &r.from.name.name;
            return Err(Diagnostic::error(f.name.span, format!(
                "n-party deadlock: every party `{p}[{}]` must send `{}` in round `{}`, but receives it only later, in round `{later}` ({l})",
                from.name, f.name.name, r.name.name))
                .with_help(format!("all parties would wait for round `{later}` while every other party waits for round `{}`; move round `{later}` before round `{}`", r.name.name, r.name.name)));
        }
        Err(self.unknown_value(0, &f.name.name, f.name.span, "send"))
    }

    /// After the round, each field names the array of what every party sent.
    fn party_receive(&mut self, r: &Round, fields: &[(String, Ty)]) {
        let n = self.party_shape();
        for (name, ty) in fields {
            let span = super::field_span(r, name);
            self.env[0].insert(
                name.clone(),
                Var {
                    ty: Ty::Array(Box::new(ty.clone()), n.clone()),
                    span,
                    used: false,
                    exported: false,
                },
            );
        }
    }

    /// The number of parties as a shape.
    fn party_shape(&self) -> Shape {
        let name = self.roles[0]
            .count
            .as_ref()
            .map(|e| self.src.snippet(e.span).trim().to_string())
            .unwrap_or_default();
        Shape::Param(name)
    }
}

/// The first name of `own` (not in `sent`) that `e` reads.
fn mentions_any<'a>(
    e: &'a Expr,
    own: &BTreeSet<String>,
    sent: &BTreeSet<&str>,
) -> Option<(&'a str, Span)> {
    let sub: Vec<&Expr> = match &e.kind {
        ExprKind::Var(v) if own.contains(v) && !sent.contains(v.as_str()) => {
            return Some((v.as_str(), e.span))
        }
        ExprKind::Member(a, _) | ExprKind::Unary(_, a) => vec![a],
        ExprKind::Index(a, b) | ExprKind::Binary(_, a, b) => vec![a, b],
        ExprKind::Call(_, args) | ExprKind::Array(args) => args.iter().collect(),
        ExprKind::Comprehension { body, lo, hi, .. } => vec![body, lo, hi],
        _ => vec![],
    };
    sub.into_iter().find_map(|x| mentions_any(x, own, sent))
}
