//! Checking an n-party protocol (`role P[n]`): every party runs the same
//! projection with its own index bound to the block's variable (`at P[i]`),
//! rounds are broadcasts (`P[i] -> all`) or private all-to-all rounds
//! (`P[i] -> P[j]`), and a value received in a round is the array of what
//! each party sent (`x[j]` is `P[j]`'s). The knowledge check keeps the two
//! ends of a round apart: inside a round, what `P[i]` computes for its
//! message is not known to `P[j]` unless the round sends it.

use super::omit::omit_misplaced;
use super::scope::R;
use super::{item_context, line_ref, Checker, Var};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::source::Span;
use crate::types::{Shape, Ty};
use std::collections::{BTreeSet, HashMap};

/// The name every party's session id has in expressions (a `Block`).
pub(super) const SESSION: &str = "session";

/// Checks an n-party protocol whose roles are `roles` (one party array).
pub(super) fn check(proto: &Protocol, ck: &mut Checker, items: &[Item], ir: &mut Ir) -> R<()> {
    let count = party_count(proto, &ck.roles)?;
    ir.dealer = ck.dealer_name().map(str::to_string);
    ck.env[0].insert(
        SESSION.to_string(),
        Var {
            ty: Ty::Block,
            span: proto.name.span,
            used: true,
            exported: false,
        },
    );
    let requires = items
        .iter()
        .find_map(|item| match item {
            Item::Param(p) if p.name.name == count.name => p.requires.as_ref(),
            _ => None,
        })
        .map(|e| ck.src.snippet(e.span).to_string());
    ck.party_min = requires
        .as_deref()
        .and_then(|t| least_count(t, &count.name))
        .unwrap_or(2);
    ck.party_exact = requires
        .as_deref()
        .and_then(|t| exact_count(t, &count.name));
    for item in items {
        if let Item::Round(r) = item {
            for f in &r.fields {
                let d = (f.name.name.clone(), r.name.name.clone(), r.name.span);
                ck.party_deliveries.push(d);
            }
        }
    }
    // Constants first (in their order), so that a fixed party index may
    // name one declared further down (`P[ROOT]`).
    let (consts, rest): (Vec<&Item>, Vec<&Item>) =
        items.iter().partition(|i| matches!(i, Item::Const(_)));
    for item in consts.into_iter().chain(rest) {
        ck.party_item(item, ir)
            .map_err(|d| d.with_context(item_context(proto, item)))?;
        if let Item::Param(p) = item {
            if p.name.name == count.name {
                ck.party_count_param(p, &count)?;
                ir.party_count = Some(count.name.clone());
            }
        }
    }
    ck.party_outputs(items)?;
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

/// The single party array (role 0; at most one named role, the dealer,
/// next to it) and the name of its count.
fn party_count(proto: &Protocol, roles: &[RoleDecl]) -> R<Ident> {
    let named: Vec<&RoleDecl> = roles.iter().filter(|r| r.count.is_none()).collect();
    if let Some(other) = named.get(1) {
        let pname = &roles[0].name.name;
        return Err(Diagnostic::error(
            other.name.span,
            format!(
                "role `{}` is a second named role next to the party array `{pname}`: an n-party protocol may have one (a dealer), `role {}, role {pname}[n]`",
                other.name.name, named[0].name.name
            ),
        )
        .with_help(format!("let the named role `{}` or a party of `{pname}` play `{}`", named[0].name.name, other.name.name)));
    }
    if roles.len() - named.len() != 1 {
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
/// `n == k` (the latter unless the text has a `||`), `k + 1` from
/// `n > k` (the largest such bound in a conjunction).
fn least_count(text: &str, count: &str) -> Option<u128> {
    let text: String = text.split_whitespace().collect();
    let mut least = None;
    // `n == K` bounds `n` below too, unless it is one alternative of `||`.
    let exact = (!text.contains("||")).then_some(("==", 0));
    for (op, add) in [(">=", 0), (">", 1)].into_iter().chain(exact) {
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

/// `K` when the count's `requires` text fixes it (`n == K`, not one
/// alternative of `||`).
fn exact_count(text: &str, count: &str) -> Option<u64> {
    let text: String = text.split_whitespace().collect();
    if text.contains("||") {
        return None;
    }
    let pat = format!("{count}==");
    text.match_indices(&pat).find_map(|(at, _)| {
        let before = text[..at].chars().next_back();
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
            return None;
        }
        let digits: String = text[at + pat.len()..]
            .chars()
            .take_while(|c| c.is_ascii_digit())
            .collect();
        digits.parse().ok()
    })
}

/// The inverse of `a` modulo `k` (`None` if they share a factor).
fn inverse_mod(a: u64, k: u64) -> Option<u64> {
    (1..k.max(2)).find(|&x| (u128::from(a) * u128::from(x)) % u128::from(k) == 1 % u128::from(k))
}

/// How a party reference names its party.
#[derive(Clone, Debug)]
pub(super) enum PartyIx {
    /// `P[i]`: every party, `i` its own index.
    Var(Ident),
    /// `P[0]`, `P[ROOT]`: one fixed party (the index is in range for the
    /// least number of parties the protocol allows).
    Fixed(usize),
}

impl PartyIx {
    /// Whether two references name the same party (the same variable or index).
    fn same(&self, other: &PartyIx) -> bool {
        match (self, other) {
            (PartyIx::Var(a), PartyIx::Var(b)) => a.name == b.name,
            (PartyIx::Fixed(a), PartyIx::Fixed(b)) => a == b,
            _ => false,
        }
    }

    /// The index as written in messages (`i`, `0`).
    fn text(&self) -> String {
        match self {
            PartyIx::Var(v) => v.name.clone(),
            PartyIx::Fixed(c) => c.to_string(),
        }
    }
}

/// The party a reference `P[i]` or `P[0]` names; `min` is the least number
/// of parties the protocol allows (a fixed index must exist for it), and
/// `consts` the protocol's constants (`P[ROOT]`).
pub(super) fn party_ix(r: &RoleRef, min: u128, consts: &HashMap<String, (Ty, u128)>) -> R<PartyIx> {
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
    let k = match &ix.kind {
        ExprKind::Var(v) => match consts.get(v) {
            Some((_, k)) => *k,
            None => {
                return Ok(PartyIx::Var(Ident {
                    name: v.clone(),
                    span: ix.span,
                }))
            }
        },
        ExprKind::Int(k) => *k,
        _ => {
            return Err(Diagnostic::error(
                ix.span,
                "a party index must be a variable naming every party (`P[i]`) or a constant naming one (`P[0]`)",
            )
            .with_help(format!("to send to every other party write `{p}[i] -> {p}[j]`; a round may send to a neighbour on the ring of parties: `round r: {p}[i] -> {p}[(i + 1) % n] : ...` or `{p}[(i + n - 1) % n]`; anywhere else name the party `{p}[i]` or `{p}[0]`")))
        }
    };
    if k >= min {
        return Err(Diagnostic::error(
            ix.span,
            format!("party index out of range: `{p}[{k}]` is not a party when there are {min} (the protocol allows {min} or more)"),
        )
        .with_help(format!("parties are `{p}[0]` to `{p}[n - 1]`: use an index below {min}, or require more parties (`requires n >= {}`)", k + 1)));
    }
    Ok(PartyIx::Fixed(k as usize))
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

    /// The party a reference names (see [`party_ix`]); the named role next
    /// to the party array (the dealer) is the fixed party [`DEALER`].
    pub(super) fn ix(&self, r: &RoleRef) -> R<PartyIx> {
        self.role(r)?;
        if Some(r.name.name.as_str()) != self.dealer_name() {
            self.not_a_param_index(r)?;
            return party_ix(r, self.party_min, &self.consts);
        }
        match &r.index {
            Some(ix) => Err(Diagnostic::error(
                ix.span,
                format!(
                    "`{0}` is a single role, not a party array: write `{0}`",
                    r.name.name
                ),
            )),
            None => Ok(PartyIx::Fixed(DEALER)),
        }
    }

    /// `P[n]` with a parameter `n`: not a variable naming every party
    /// (it would hide the parameter), nor one fixed party.
    fn not_a_param_index(&self, r: &RoleRef) -> R<()> {
        let Some(Expr {
            kind: ExprKind::Var(v),
            span,
        }) = &r.index
        else {
            return Ok(());
        };
        if !self.params.contains_key(v) {
            return Ok(());
        }
        let p = &r.name.name;
        Err(Diagnostic::error(
            *span,
            format!("`{p}[{v}]`: `{v}` is a parameter, not a party; the parties are `{p}[0]` to `{p}[{v} - 1]`"),
        )
        .with_help(format!("name one fixed party with a constant index (`{p}[0]`), or every party with a variable of its own (`{p}[i]`)")))
    }

    /// The named role next to the party array (`role Dealer, role P[n]`).
    pub(super) fn dealer_name(&self) -> Option<&str> {
        self.roles
            .get(1)
            .filter(|r| r.count.is_none())
            .map(|r| r.name.name.as_str())
    }

    /// A party reference as the user writes it: `P[i]`, `P[0]`, `Dealer`.
    fn who(&self, ix: &PartyIx) -> String {
        match ix {
            PartyIx::Fixed(DEALER) => self.dealer_name().unwrap_or("Dealer").to_string(),
            _ => format!("{}[{}]", self.roles[0].name.name, ix.text()),
        }
    }

    /// One item of an n-party protocol.
    fn party_item(&mut self, item: &Item, ir: &mut Ir) -> R<()> {
        match item {
            Item::Const(c) => self.const_item(c, ir),
            Item::Param(p) => self.param_item(p, ir),
            Item::Io(io) => {
                let ix = self.ix(&io.role)?;
                self.io_item(io, ir)?;
                if let PartyIx::Fixed(c) = ix {
                    for f in &io.fields {
                        let name = f.name.name.clone();
                        match io.kind {
                            IoKind::Input => {
                                self.party_held.insert(name.clone(), c);
                                ir.party_fixed.inputs.insert(name, c);
                            }
                            IoKind::Output => {
                                ir.party_fixed.outputs.insert(name, c);
                            }
                        }
                    }
                }
                Ok(())
            }
            Item::At(block) => self.party_block(block, ir),
            Item::Round(r) => self.party_round(r, ir),
            Item::Do(d) => self.do_stmt(d, ir),
            Item::Insert(ins) => Err(Diagnostic::error(
                ins.span,
                "`insert` must appear directly in a protocol that `extends` another",
            )),
            Item::Omit(o) => Err(omit_misplaced(o)),
        }
    }

    /// `at P[i] { ... }`: every party's computation, `i` its own index;
    /// `at P[0] { ... }`: the computation of one fixed party, whose results
    /// only it holds.
    fn party_block(&mut self, block: &AtBlock, ir: &mut Ir) -> R<()> {
        let ix = self.ix(&block.role)?;
        self.role(&block.role)?;
        self.held_reads(block, &ix)?;
        let start = ir.events[0].len();
        let res = match &ix {
            PartyIx::Var(v) => {
                self.party_vars.push(v.name.clone());
                let res = self.at_block(block, ir);
                self.party_vars.pop();
                res
            }
            PartyIx::Fixed(_) => self.at_block(block, ir),
        };
        res?;
        for d in self.block_defs(block) {
            match ix {
                PartyIx::Fixed(c) => self.party_held.insert(d, c),
                PartyIx::Var(_) => self.party_held.remove(&d),
            };
        }
        if let PartyIx::Fixed(c) = ix {
            for k in start..ir.events[0].len() {
                ir.party_fixed.stmts.insert(k, c);
            }
        }
        Ok(())
    }

    /// A block may read a value held by one fixed party only at that party.
    fn held_reads(&self, block: &AtBlock, at: &PartyIx) -> R<()> {
        let mut held = self.party_held.clone();
        for s in &block.stmts {
            let e = match s {
                Stmt::Assign { value, .. } => value,
                Stmt::Check { cond, .. } => cond,
            };
            self.not_held(e, &held, at, &block.role.name.name)?;
            if let Stmt::Assign { name, .. } = s {
                match at {
                    PartyIx::Fixed(c) => held.insert(name.name.clone(), *c),
                    PartyIx::Var(_) => held.remove(&name.name),
                };
            }
        }
        Ok(())
    }

    /// The located error for a value of a fixed party read by another; the
    /// dealer reads only its own values (its inputs, what `at Dealer`
    /// computes, what it receives).
    pub(super) fn not_held(
        &self,
        e: &Expr,
        held: &HashMap<String, usize>,
        at: &PartyIx,
        _p: &str,
    ) -> R<()> {
        let mut foreign: BTreeSet<String> = held
            .iter()
            .filter(|(_, c)| !matches!(at, PartyIx::Fixed(k) if k == *c))
            .map(|(n, _)| n.clone())
            .collect();
        if matches!(at, PartyIx::Fixed(DEALER)) {
            let parties = self.env[0]
                .keys()
                .filter(|n| !held.contains_key(*n) && n.as_str() != SESSION);
            foreign.extend(parties.cloned());
        }
        let Some((name, span)) = mentions_any(e, &foreign, &BTreeSet::new()) else {
            return Ok(());
        };
        let ty = self.env[0]
            .get(name)
            .map_or("T".to_string(), |v| v.ty.to_string());
        let here = self.who(at);
        let Some(&c) = held.get(name) else {
            let p = &self.roles[0].name.name;
            return Err(Diagnostic::error(
                span,
                format!("`{name}` is a value of the parties `{p}` (their input, computed in `at {p}[i]`, or received by them); `{here}` cannot use it because no round sends it"),
            )
            .with_help(format!("send it first, e.g. `round r: {p}[i] -> {here} : M {{ {name}: {ty} }}`")));
        };
        let owner = self.who(&PartyIx::Fixed(c));
        Err(Diagnostic::error(
            span,
            format!(
                "`{name}` is a value of `{owner}` only (its input, computed in `at {owner}`, or received by it alone); `{here}` cannot use it because no round sends it"
            ),
        )
        .with_help(format!(
            "send it first, e.g. `round r: {owner} -> all : M {{ {name}: {ty} }}`, or use it in `at {owner} {{ ... }}`"
        )))
    }

    /// `round name: P[i] -> all | P[j] : Msg { fields } { at P[i] {...} at P[j] {...} }`,
    /// or with one fixed party: `P[0] -> all`, `P[0] -> P[j]`, `P[j] -> P[0]`.
    fn party_round(&mut self, r: &Round, ir: &mut Ir) -> R<()> {
        self.round_names_fresh(r)?;
        let from = self.ix(&r.from)?;
        self.role(&r.from)?;
        let kind = self.round_kind(r, &from)?;
        // The sender's side runs before the send.
        let mut own = BTreeSet::new();
        for b in &r.body {
            if self.ix(&b.role)?.same(&from) {
                own.extend(self.block_defs(b));
                self.party_block(b, ir)?;
            }
        }
        let fields = self.party_fields(r, kind, &from)?;
        if let Some(by) = &r.chunk_by {
            self.party_chunked(r, kind, &fields, by)?;
        }
        let round_idx = ir.rounds.len();
        self.party_receive(r, kind, &fields);
        self.received_unused.push((round_idx, 0, r.span));
        let mut round = self.ir_round(r, 0, 0, fields)?;
        round.party = Some(kind);
        ir.rounds.push(round);
        ir.events[0].push(Event::Send(round_idx));
        ir.events[0].push(Event::Recv(round_idx));
        for b in &r.body {
            let v = self.ix(&b.role)?;
            if !v.same(&from) {
                self.not_sent(b, &own, &from, &v, r)?;
                self.party_block(b, ir)?;
            }
        }
        Ok(())
    }

    /// `chunked(by = ...)` on an n-party round: a round of every party
    /// (broadcast or private) carrying one array of fixed-size elements,
    /// sent in frames of `by` elements (a positive constant).
    fn party_chunked(
        &self,
        r: &Round,
        kind: PartyRound,
        fields: &[(String, Ty)],
        by: &Expr,
    ) -> R<()> {
        if !matches!(kind, PartyRound::Broadcast { .. } | PartyRound::Private) {
            return Err(Diagnostic::error(
                by.span,
                format!("round `{}` is sent by one party or the dealer; only a round of every party (`P[i] -> all` or `P[i] -> P[j]`) is chunked", r.name.name),
            )
            .with_help("remove `chunked(by = ...)`"));
        }
        let chunkable = match fields {
            [(_, Ty::Array(elem, _))] => elem.is_fixed_wire(),
            _ => false,
        };
        if !chunkable {
            let got: Vec<String> = fields.iter().map(|(n, t)| format!("`{n}: {t}`")).collect();
            return Err(Diagnostic::error(
                r.chunked.unwrap_or(by.span),
                format!("chunked round `{}` carries {}; a chunked n-party round carries one array `[T; n]` of fixed-size elements", r.name.name, got.join(", ")),
            )
            .with_help("send the other values in their own round"));
        }
        match self.shape(by)?.lit() {
            Some(v) if v > 0 => Ok(()),
            _ => Err(Diagnostic::error(
                by.span,
                format!(
                    "chunk size of round `{}` must be a positive constant",
                    r.name.name
                ),
            )
            .with_help("write e.g. `chunked(by = 4096)`")),
        }
    }

    /// The receiver `P[(i + c) % n]` or `P[(i + n - c) % n]` of a round sent
    /// by every party `P[i]`: its offset `c` or `-c` on the ring of parties
    /// (`None` for any other receiver). `c` is a positive constant below the
    /// least number of parties, so the receiver is never the sender and
    /// every party receives exactly one message: the map is a rotation of
    /// the parties, a permutation for every `n`.
    fn ring_step(&self, t: &RoleRef, from: &PartyIx) -> R<Option<PartyRound>> {
        let (PartyIx::Var(i), Some(ix)) = (from, &t.index) else {
            return Ok(None);
        };
        let Some(n) = self.roles[0]
            .count
            .as_ref()
            .map(|e| self.src.snippet(e.span).trim().to_string())
        else {
            return Ok(None);
        };
        let ExprKind::Binary(BinOp::Rem, lhs, m) = &ix.kind else {
            return Ok(None);
        };
        let is = |e: &Expr, name: &str| matches!(&e.kind, ExprKind::Var(v) if v == name);
        if !is(m, &n) {
            return Err(Diagnostic::error(
                m.span,
                format!("a ring index is taken modulo the number of parties: write `% {n}`"),
            )
            .with_help(format!("e.g. `{}[({} + 1) % {n}]`", t.name.name, i.name)));
        }
        let konst = |e: &Expr| match &e.kind {
            ExprKind::Int(k) => Some(*k),
            ExprKind::Var(v) => self.consts.get(v).map(|(_, k)| *k),
            _ => None,
        };
        use ExprKind::Binary as B;
        if let Some(affine) = self.affine_step(t, i, ix, lhs, &n)? {
            return Ok(Some(affine));
        }
        let step = match &lhs.kind {
            // i + c, c + i
            B(BinOp::Add, a, c) if is(a, &i.name) => konst(c).map(|c| (c, 1)),
            B(BinOp::Add, c, a) if is(a, &i.name) && !is(c, &n) => konst(c).map(|c| (c, 1)),
            // i + n - c, n + i - c
            B(BinOp::Sub, a, c) => match &a.kind {
                B(BinOp::Add, x, y)
                    if (is(x, &i.name) && is(y, &n)) || (is(x, &n) && is(y, &i.name)) =>
                {
                    konst(c).map(|c| (c, -1))
                }
                _ => None,
            },
            // i + (n - c), i - c + n
            B(BinOp::Add, a, b) => match (&a.kind, &b.kind) {
                (ExprKind::Var(v), B(BinOp::Sub, x, c)) if v == &i.name && is(x, &n) => {
                    konst(c).map(|c| (c, -1))
                }
                (B(BinOp::Sub, x, c), ExprKind::Var(v)) if v == &n && is(x, &i.name) => {
                    konst(c).map(|c| (c, -1))
                }
                _ => None,
            },
            _ => None,
        };
        let Some((c, sign)) = step else {
            return Err(Diagnostic::error(
                ix.span,
                format!("party index `{}` is not a rotation of the parties", self.src.snippet(ix.span).trim()),
            )
            .with_help(format!("a round of every party may send to the party `c` places after or before it: `{p}[({i} + c) % {n}]` or `{p}[({i} + {n} - c) % {n}]`, `c` a constant", p = t.name.name, i = i.name)));
        };
        if c == 0 || c >= self.party_min {
            return Err(Diagnostic::error(
                ix.span,
                format!("`{}` is the sender itself when {n} divides {c}", self.src.snippet(ix.span).trim()),
            )
            .with_help(format!("use an offset from 1 to {}, the least number of parties minus one, or require more parties (`requires {n} >= {}`)", self.party_min.saturating_sub(1), c + 1)));
        }
        let c = i64::try_from(c).map_err(|_| Diagnostic::error(ix.span, "offset too large"))?;
        Ok(Some(PartyRound::Ring {
            step: sign * c,
            mul: 1,
            inv: 1,
        }))
    }

    /// The receiver `P[(a * i + c) % n]` (or `(i * a + c)`, `(a * i)`) of a
    /// round sent by every party, `a >= 2` a constant: accepted when
    /// `requires n == K` fixes the count, `a` is prime to `K` and no party
    /// is its own image, so the map is a permutation of the parties in
    /// which nobody sends to itself; `None` when `lhs` is not of that form.
    fn affine_step(
        &self,
        t: &RoleRef,
        i: &Ident,
        ix: &Expr,
        lhs: &Expr,
        n: &str,
    ) -> R<Option<PartyRound>> {
        use ExprKind::Binary as B;
        let konst = |e: &Expr| match &e.kind {
            ExprKind::Int(k) => Some(*k),
            ExprKind::Var(v) => self.consts.get(v).map(|(_, k)| *k),
            _ => None,
        };
        let is_i = |e: &Expr| matches!(&e.kind, ExprKind::Var(v) if v == &i.name);
        let times = |e: &Expr| match &e.kind {
            B(BinOp::Mul, a, x) if is_i(x) => konst(a),
            B(BinOp::Mul, x, a) if is_i(a) => konst(x),
            _ => None,
        };
        let (a, c) = match &lhs.kind {
            B(BinOp::Add, m, c) => match (times(m), konst(c)) {
                (Some(a), Some(c)) => (a, c),
                _ => return Ok(None),
            },
            _ => match times(lhs) {
                Some(a) => (a, 0),
                None => return Ok(None),
            },
        };
        let text = self.src.snippet(ix.span).trim().to_string();
        let p = &t.name.name;
        let Some(k) = self.party_exact else {
            return Err(Diagnostic::error(
                ix.span,
                format!("`{text}` is a permutation of the parties only for some numbers of parties"),
            )
            .with_help(format!("fix the number of parties (`requires {n} == 5`, say) so the compiler can check it, or use a rotation `{p}[({} + c) % {n}]`", i.name)));
        };
        let to_u64 = |v: u128| u64::try_from(v % u128::from(k)).unwrap_or(0);
        let (a, c) = (to_u64(a), to_u64(c));
        let Some(inv) = inverse_mod(a, k) else {
            return Err(Diagnostic::error(
                ix.span,
                format!("`{text}` is not a permutation of the {k} parties: {a} and {k} share a factor, so two parties would send to one"),
            )
            .with_help(format!("use a multiplier prime to {k}")));
        };
        if let Some(x) = (0..k).find(|&x| {
            (u128::from(a) * u128::from(x) + u128::from(c)) % u128::from(k) == u128::from(x)
        }) {
            return Err(Diagnostic::error(
                ix.span,
                format!("`{text}` makes `{p}[{x}]` send to itself (of {k} parties)"),
            )
            .with_help("change the offset so that no party is its own image"));
        }
        let step = i64::try_from(c).map_err(|_| Diagnostic::error(ix.span, "offset too large"))?;
        Ok(Some(PartyRound::Ring { step, mul: a, inv }))
    }

    /// What kind of n-party round `r` (sent by `from`) is.
    fn round_kind(&self, r: &Round, from: &PartyIx) -> R<PartyRound> {
        let p = &r.from.name.name;
        let t = match &r.to {
            Target::All(_) => {
                let checked = r.unchecked.is_none();
                return Ok(match from {
                    PartyIx::Var(_) => PartyRound::Broadcast { checked },
                    PartyIx::Fixed(c) => PartyRound::FixedBroadcast {
                        sender: *c,
                        checked,
                    },
                });
            }
            Target::Role(t) => t,
        };
        self.role(t)?;
        if let Some(ring) = self.ring_step(t, from)? {
            return Ok(ring);
        }
        let to = self.ix(t)?;
        self.role(t)?;
        let dealer = |x: &PartyIx| matches!(x, PartyIx::Fixed(DEALER));
        match (from, &to) {
            _ if to.same(from) && dealer(from) => Err(Diagnostic::error(r.span, format!("round `{}` sends `{}` from `{p}` to itself, so the message is never received", r.name.name, r.msg.name))
                .with_help(format!("`{p}` sends to the parties: `{p} -> P[j]` (each its own element) or `{p} -> all` (the same value)"))),
            _ if to.same(from) => Err(Diagnostic::error(r.span, format!("round `{}` sends `{}` from `{p}[{}]` to itself, so the message is never received", r.name.name, r.msg.name, from.text()))
                .with_help(format!("name the receiver with another index, `{p}[j]`: every party sends to every other party"))),
            (PartyIx::Fixed(_), PartyIx::Fixed(_)) if dealer(from) || dealer(&to) => {
                let (a, b) = (self.who(from), self.who(&to));
                let d = self.dealer_name().unwrap_or("Dealer");
                Err(Diagnostic::error(r.span, format!("round `{}` goes from `{a}` to one party, `{b}`; a round of `{d}` involves every party on the other side", r.name.name))
                    .with_help(format!("write `{d} -> P[j]`, `{d} -> all` or `P[j] -> {d}` and let the other parties ignore the value")))
            }
            (PartyIx::Var(_), PartyIx::Var(_)) => Ok(PartyRound::Private),
            (PartyIx::Fixed(c), PartyIx::Var(_)) => Ok(PartyRound::FromOne { sender: *c }),
            (PartyIx::Var(_), PartyIx::Fixed(c)) => Ok(PartyRound::ToOne { receiver: *c }),
            (PartyIx::Fixed(a), PartyIx::Fixed(b)) => Ok(PartyRound::Between { sender: *a, receiver: *b }),
        }
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
        from: &PartyIx,
        to: &PartyIx,
        r: &Round,
    ) -> R<()> {
        let sent: BTreeSet<&str> = r.fields.iter().map(|f| f.name.name.as_str()).collect();
        for s in &b.stmts {
            let e = match s {
                Stmt::Assign { value, .. } => value,
                Stmt::Check { cond, .. } => cond,
            };
            if let Some((name, span)) = mentions_any(e, own, &sent) {
                let (a, b) = (self.who(from), self.who(to));
                return Err(Diagnostic::error(
                    span,
                    format!(
                        "`{name}` is a value of `{a}` (computed for round `{}`); `{b}` cannot use it because the round does not send it",
                        r.name.name
                    ),
                )
                .with_help(format!(
                    "add `{name}` to the fields of `{}`, or compute it at `{b}` from what it received",
                    r.msg.name
                )));
            }
        }
        Ok(())
    }

    /// The fields every sending party sends, with their declared
    /// (per-message) types; where a party sends each receiver its own
    /// message, the sender's value is an array indexed by the receiver.
    fn party_fields(
        &mut self,
        r: &Round,
        kind: PartyRound,
        from: &PartyIx,
    ) -> R<Vec<(String, Ty)>> {
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
            let per_receiver = matches!(kind, PartyRound::Private | PartyRound::FromOne { .. });
            let want = if per_receiver {
                Ty::Array(Box::new(declared.clone()), n.clone())
            } else {
                declared.clone()
            };
            let have = self.party_sent_value(r, f, from)?;
            if have != want {
                let what = if per_receiver {
                    format!("one `{declared}` per receiver, `{want}`")
                } else {
                    format!("`{want}`")
                };
                return Err(Diagnostic::error(f.ty.span, format!("shape mismatch: field `{}` of `{}` needs {what}, but `{}` has `{}: {have}`", f.name.name, r.msg.name, self.who(from), f.name.name)));
            }
            let e = Expr {
                kind: ExprKind::Var(f.name.name.clone()),
                span: f.name.span,
            };
            self.not_held(&e, &self.party_held, from, &r.from.name.name)?;
            fields.push((f.name.name.clone(), declared));
        }
        Ok(fields)
    }

    /// The type of the value a party sends as field `f`.
    fn party_sent_value(&mut self, r: &Round, f: &Field, from: &PartyIx) -> R<Ty> {
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
            return Err(Diagnostic::error(f.name.span, format!(
                "n-party deadlock: every party `{}` must send `{}` in round `{}`, but receives it only later, in round `{later}` ({l})",
                self.who(from), f.name.name, r.name.name))
                .with_help(format!("all parties would wait for round `{later}` while every other party waits for round `{}`; move round `{later}` before round `{}`", r.name.name, r.name.name)));
        }
        Err(self.unknown_value(0, &f.name.name, f.name.span, "send"))
    }

    /// After the round, each field names what the receivers hold: the array
    /// of what every party sent (all-to-all rounds, and at the receiver of
    /// `P[j] -> P[0]`), or the one value a fixed party sent.
    fn party_receive(&mut self, r: &Round, kind: PartyRound, fields: &[(String, Ty)]) {
        let n = self.party_shape();
        for (name, ty) in fields {
            let span = super::field_span(r, name);
            let ty = match kind {
                PartyRound::FixedBroadcast { .. }
                | PartyRound::FromOne { .. }
                | PartyRound::Between { .. }
                | PartyRound::Ring { .. } => ty.clone(),
                _ => Ty::Array(Box::new(ty.clone()), n.clone()),
            };
            match kind {
                PartyRound::ToOne { receiver } | PartyRound::Between { receiver, .. } => {
                    self.party_held.insert(name.clone(), receiver)
                }
                _ => self.party_held.remove(name),
            };
            self.env[0].insert(
                name.clone(),
                Var {
                    ty,
                    span,
                    used: false,
                    exported: false,
                },
            );
        }
    }

    /// Outputs of every party may not be values held by one fixed party;
    /// outputs of a fixed party may not be another's.
    fn party_outputs(&self, items: &[Item]) -> R<()> {
        for item in items {
            let Item::Io(io) = item else { continue };
            if io.kind != IoKind::Output {
                continue;
            }
            let at = self.ix(&io.role)?;
            for f in &io.fields {
                let e = Expr {
                    kind: ExprKind::Var(f.name.name.clone()),
                    span: f.name.span,
                };
                self.not_held(&e, &self.party_held, &at, &io.role.name.name)?;
            }
        }
        Ok(())
    }

    /// The number of parties as a shape.
    pub(super) fn party_shape(&self) -> Shape {
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
