//! The checker: name resolution, types and symbolic shapes, the knowledge
//! check (every value is used only by a role that owns it, only after it is
//! computed or received), projection onto roles, sub-protocol role mapping,
//! and warnings for unused values. Produces the [`Ir`] that codegen emits.

use crate::ast::*;
use crate::diag::{suggest, Diagnostic};
use crate::ir::*;
use crate::source::{SourceMap, Span};
use crate::types::{Shape, Ty, BUILTIN_TYPES};
use std::collections::{BTreeMap, HashMap, HashSet};

mod about;
mod chunked;
mod func_roles;
mod int_rules;
mod ints;
mod items;
mod nparty;
mod omit;
mod pairwise;
pub mod protocol;
mod realize;
pub mod scope;
mod type_help;
mod unknown;

use func_roles::{not_an_arg, role_impl};
use int_rules::literal_range;
use omit::omit_misplaced;
use scope::{Scope, CASCADE, R};

/// Names of a signature or functionality bound to shapes while resolving a type.
type Subst<'s> = Option<&'s dyn Fn(&str) -> Option<Shape>>;

#[derive(Clone, Debug)]
struct Var {
    ty: Ty,
    span: Span,
    used: bool,
    /// Sent in a round or returned as output (counts as a use).
    exported: bool,
}

struct Checker<'a> {
    src: &'a SourceMap,
    scope: &'a Scope<'a>,
    roles: Vec<RoleDecl>,
    consts: HashMap<String, (Ty, u128)>,
    params: HashMap<String, Ty>,
    env: Vec<BTreeMap<String, Var>>,
    /// Future receipts per role: name -> (round name, span).
    future: Vec<HashMap<String, (String, Span)>>,
    /// Every value each role computes somewhere (`at` blocks, round bodies):
    /// name -> where, for "used before it is computed".
    later: Vec<HashMap<String, Span>>,
    index_vars: Vec<String>,
    warnings: Vec<Diagnostic>,
    /// The `holding` bounds of the calls of the statement being checked,
    /// in the order the calls complete (the outermost last).
    heaps_seen: Vec<Shape>,
    /// Rounds declared so far: name -> where.
    round_names: HashMap<String, Span>,
    /// Message names used so far: name -> where.
    msg_names: HashMap<String, Span>,
    /// Declared outputs (checked once every item is).
    outputs_decl: Vec<(usize, Field)>,
    /// Declared inputs: (role environment, name).
    inputs_decl: HashSet<(usize, String)>,
    /// Rounds to check for a receiver that never reads the message:
    /// (round index, receiving role, span).
    received_unused: Vec<(usize, usize, Span)>,
    /// In an n-party protocol, the index variables naming the party whose
    /// block is being checked (`at P[i]`: `i`, the party's own index).
    party_vars: Vec<String>,
    /// In an n-party protocol, every (field, round, where) a round delivers,
    /// in order (for the deadlock check).
    party_deliveries: Vec<(String, String, Span)>,
    /// In an n-party protocol, the least number of parties its `requires`
    /// allows (`requires n >= k`).
    party_min: u128,
    /// In an n-party protocol whose `requires` fixes the count
    /// (`requires n == K`): `K`.
    party_exact: Option<u64>,
    /// In an n-party protocol, the values held by one fixed party only
    /// (computed in `at P[0]`, its input, or received by it alone): name ->
    /// that party's index.
    party_held: HashMap<String, usize>,
    /// Parameters whose `requires` proves them non-zero (divisors).
    nonzero_params: HashSet<String>,
    /// Each parameter's `requires` as written (for help lines).
    param_requires: HashMap<String, String>,
    /// Errors of statements recovered from inside the current item.
    pending: Vec<Diagnostic>,
    /// Values whose definition failed: (role environment, name), role
    /// `usize::MAX` for constants, parameters and sub-protocol calls.
    poisoned: HashSet<(usize, String)>,
    /// (sender, receiver) of rounds that failed: the receiver's uses of the
    /// sender's values may have been meant for them, so are not reported.
    failed_links: HashSet<(usize, usize)>,
}

/// The note an error inside `item` carries: which round or block it is in.
fn item_context(proto: &Protocol, item: &Item) -> String {
    match item {
        Item::Round(r) => {
            let to = match &r.to {
                Target::Role(t) => t.name.name.clone(),
                Target::All(_) => "all".to_string(),
            };
            format!(
                "in round `{}` ({} -> {to} : {}) of protocol `{}`",
                r.name.name, r.from.name.name, r.msg.name, proto.name.name
            )
        }
        Item::At(b) => format!(
            "in `at {}` of protocol `{}`",
            b.role.name.name, proto.name.name
        ),
        Item::Do(d) => format!(
            "in sub-protocol call `{}` of protocol `{}`",
            d.name.name, proto.name.name
        ),
        _ => format!("in protocol `{}`", proto.name.name),
    }
}

impl<'a> Checker<'a> {
    fn new(src: &'a SourceMap, scope: &'a Scope<'a>, roles: Vec<RoleDecl>) -> Self {
        Checker {
            src,
            scope,
            env: vec![BTreeMap::new(); roles.len()],
            future: vec![HashMap::new(); roles.len()],
            later: vec![HashMap::new(); roles.len()],
            roles,
            consts: HashMap::new(),
            params: HashMap::new(),
            index_vars: vec![],
            warnings: vec![],
            round_names: HashMap::new(),
            msg_names: HashMap::new(),
            outputs_decl: vec![],
            inputs_decl: HashSet::new(),
            received_unused: vec![],
            party_vars: vec![],
            party_deliveries: vec![],
            party_min: 2,
            party_exact: None,
            party_held: HashMap::new(),
            nonzero_params: HashSet::new(),
            param_requires: HashMap::new(),
            pending: vec![],
            poisoned: HashSet::new(),
            failed_links: HashSet::new(),
            heaps_seen: vec![],
        }
    }

    /// The IR before any item is checked.
    fn new_ir(&self, proto: &Protocol) -> Ir {
        let src = self.src;
        let (line, _) = src.line_col(proto.name.span.file, proto.name.span.start);
        let n = self.roles.len();
        Ir {
            name: proto.name.name.clone(),
            roles: self.roles.iter().map(|r| r.name.name.clone()).collect(),
            consts: vec![],
            params: vec![],
            inputs: vec![vec![]; n],
            outputs: vec![vec![]; n],
            rounds: vec![],
            subs: vec![],
            events: vec![vec![]; n],
            aborts: vec![],
            files: vec![],
            location: format!("{}:{line}", src.file(proto.name.span.file).name),
            chunk_paths: BTreeMap::new(),
            heaps: vec![],
            moved_args: BTreeMap::new(),
            intrinsic_paths: BTreeMap::new(),
            unsupported: None,
            party_count: None,
            party_fixed: FixedParties::default(),
            dealer: None,
            spec_hash: [0; 32],
            realizes: None,
            about: None,
        }
    }

    /// Pass 0: future receipts (for "used before receipt" and deadlock
    /// errors) and computations (for "used before it is computed").
    fn scan_ahead(&mut self, items: &[Item]) {
        for item in items {
            let blocks: Vec<&AtBlock> = match item {
                Item::At(b) => vec![b],
                Item::Round(r) => r.body.iter().collect(),
                _ => vec![],
            };
            for b in blocks {
                if let Ok(role) = self.role(&b.role) {
                    for st in &b.stmts {
                        if let Stmt::Assign { name, .. } = st {
                            self.later[role]
                                .entry(name.name.clone())
                                .or_insert(name.span);
                        }
                    }
                }
            }
            if let Item::Round(r) = item {
                if let Some(to) = self.target_roles(&r.to) {
                    for t in to {
                        for f in &r.fields {
                            self.future[t]
                                .entry(f.name.name.clone())
                                .or_insert((r.name.name.clone(), r.name.span));
                        }
                    }
                }
            }
        }
    }

    /// Checks one item of the (expanded) protocol, in order.
    fn item(&mut self, item: &Item, ir: &mut Ir) -> R<()> {
        match item {
            Item::Const(c) => self.const_item(c, ir),
            Item::Param(p) => self.param_item(p, ir),
            Item::Io(io) => self.io_item(io, ir),
            Item::At(block) => self.at_block(block, ir),
            Item::Round(r) => self.round_item(r, ir),
            Item::Do(d) => self.do_stmt(d, ir),
            Item::Insert(ins) => Err(Diagnostic::error(
                ins.span,
                "`insert` must appear directly in a protocol that `extends` another",
            )),
            Item::Omit(o) => Err(omit_misplaced(o)),
        }
    }

    /// Outputs must be defined with the declared types.
    fn check_outputs(&mut self) -> R<()> {
        for (role, f) in std::mem::take(&mut self.outputs_decl) {
            if self.is_poisoned(role, &f.name.name) {
                continue;
            }
            let declared = self.ty(&f.ty, None)?;
            match self.env[role].get_mut(&f.name.name) {
                Some(v) => {
                    v.exported = true;
                    if v.ty != declared {
                        // Same element type: the shape is what differs, and the
                        // declaration is the likely fix. Another element type
                        // (`Point` for `Block`) is more often a computation
                        // that forgot a conversion.
                        let same = element_ty(&declared) == element_ty(&v.ty);
                        let (span, help) = if same {
                            (
                                f.ty.span,
                                format!("declare it as `{}: {}`", f.name.name, v.ty),
                            )
                        } else {
                            let (got, want) = (element_ty(&v.ty), element_ty(&declared));
                            let how =
                                type_help::conversion(self.scope, got, want).unwrap_or_else(|| {
                                    "convert with an intrinsic, e.g. a hash".to_string()
                                });
                            (v.span, format!("compute a `{declared}` (the computation gives `{got}` where `{want}` is declared: {how}), or declare it as `{}: {}`", f.name.name, v.ty))
                        };
                        let d = Diagnostic::error(span, format!("shape mismatch: output `{}` of `{}` is declared `{declared}`, but is computed as `{}`", f.name.name, self.roles[role].name.name, v.ty))
                            .with_help(help);
                        self.pending.push(d);
                    }
                }
                None => {
                    let d = self
                        .assigned_elsewhere(role, &f.name.name)
                        .unwrap_or_else(|| {
                            self.unknown_value(role, &f.name.name, f.name.span, "return")
                        });
                    self.pending.push(d);
                }
            }
        }
        Ok(())
    }

    /// A round whose message the receiver never reads is an error (rounds
    /// to a receiver for which `skip` holds are not checked).
    fn check_received_used(&self, ir: &Ir, skip: &dyn Fn(usize) -> bool) -> R<()> {
        for &(idx, to, span) in &self.received_unused {
            if skip(to) {
                continue;
            }
            let round = &ir.rounds[idx];
            let any_used = round.fields.iter().any(|(n, _)| {
                self.env[to]
                    .get(n)
                    .map(|v| v.used || v.exported)
                    .unwrap_or(false)
            });
            if !any_used && !round.fields.is_empty() {
                let names: Vec<&str> = round.fields.iter().map(|(n, _)| n.as_str()).collect();
                let (from, to) = (&ir.roles[round.from], &ir.roles[to]);
                return Err(Diagnostic::error(span, format!("round `{}` sends `{} {{ {} }}` to `{to}`, but `{to}` never uses it: no computation receives the message", round.name, round.msg, names.join(", ")))
                    .with_context(format!("in round `{}` ({from} -> {to} : {}) of protocol `{}`", round.name, round.msg, ir.name))
                    .with_help(format!("use {} at `{to}` after this round, return {} as an output of `{to}`, or remove the round", names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(" or "), if names.len() == 1 { "it" } else { "one" })));
            }
        }
        Ok(())
    }

    /// Warnings for values never used (unless named `_...`).
    fn warn_unused(&mut self, ir: &Ir) {
        for (role, env) in self.env.iter().enumerate() {
            for (name, v) in env {
                if !v.used && !v.exported {
                    let here = &ir.roles[role];
                    // A value named like another role's output: most likely
                    // an attempt to compute that output here.
                    let owner = (0..ir.roles.len()).find(|&r| {
                        r != role
                            && ir
                                .outputs
                                .get(r)
                                .is_some_and(|os| os.iter().any(|(o, _)| o == name))
                    });
                    let (message, help) = match owner {
                        Some(r) => (
                            format!("value `{name}` at `{here}` is never used: `{name}` is an output of `{}`, which `{here}` cannot assign", ir.roles[r]),
                            format!("compute the output at its role, `at {} {{ {name} = ...; }}` (from what `{here}` sends it), or rename this value", ir.roles[r]),
                        ),
                        None => (
                            format!("value `{name}` at `{here}` is never used"),
                            "remove it, or prefix a deliberate leftover with `_`".to_string(),
                        ),
                    };
                    self.warnings
                        .push(Diagnostic::warning(v.span, message).with_help(help));
                }
            }
        }
        let src = self.src;
        self.warnings
            .retain(|w| !src.snippet(w.span).starts_with('_'));
    }
}

/// The element type of a (nested) array type; the type itself otherwise.
fn element_ty(ty: &Ty) -> &Ty {
    match ty {
        Ty::Array(elem, _) => element_ty(elem),
        _ => ty,
    }
}

/// Where field `name` of round `r` is declared.
fn field_span(r: &Round, name: &str) -> Span {
    r.fields
        .iter()
        .find(|f| f.name.name == name)
        .map(|f| f.name.span)
        .unwrap_or(r.span)
}

/// Where `there` is, as seen from a diagnostic at `here`: `line 7` in the
/// same file, `protocols/co15.otp:7` in another (an `extends` base).
fn line_ref(src: &SourceMap, here: Span, there: Span) -> String {
    let (l, _) = src.line_col(there.file, there.start);
    if here.file == there.file {
        format!("line {l}")
    } else {
        format!("{}:{l}", src.file(there.file).name)
    }
}

impl<'a> Checker<'a> {
    /// Marks a value whose definition failed, so its uses are not reported.
    fn poison(&mut self, role: usize, name: &str) {
        self.poisoned.insert((role, name.to_string()));
    }

    /// Whether `name` (at `role`) is a value whose definition failed.
    fn is_poisoned(&self, role: usize, name: &str) -> bool {
        let call = name.split_once('.').map(|(c, _)| c).unwrap_or(name);
        self.poisoned.contains(&(role, name.to_string()))
            || self.poisoned.contains(&(usize::MAX, call.to_string()))
    }

    /// After `item` failed: everything it would have defined, for every
    /// role (the failure may be in the roles themselves).
    fn poison_item(&mut self, item: &Item) {
        let roles = 0..self.roles.len();
        let mut names: Vec<&str> = vec![];
        match item {
            Item::Const(c) => self.poison(usize::MAX, &c.name.name),
            Item::Param(p) => self.poison(usize::MAX, &p.name.name),
            Item::Do(d) => self.poison(usize::MAX, &d.name.name),
            Item::Io(io) => names.extend(io.fields.iter().map(|f| f.name.name.as_str())),
            Item::At(b) => names.extend(b.stmts.iter().filter_map(Stmt::assigned)),
            Item::Round(r) => {
                if let (Ok(from), Some(to)) = (self.role(&r.from), self.target_roles(&r.to)) {
                    self.failed_links.extend(to.into_iter().map(|t| (from, t)));
                }
                names.extend(r.fields.iter().map(|f| f.name.name.as_str()));
                for b in &r.body {
                    names.extend(b.stmts.iter().filter_map(Stmt::assigned));
                }
            }
            Item::Insert(_) | Item::Omit(_) => {}
        }
        for role in roles {
            for n in &names {
                self.poison(role, n);
            }
        }
    }

    fn role_names(&self) -> Vec<String> {
        self.roles.iter().map(|r| r.name.name.clone()).collect()
    }

    /// The environment and event list of a role: its own in a two-party
    /// protocol; in an n-party protocol every role shares the first (values
    /// of one party or of the dealer are told apart by `party_held`).
    fn env_role(&self, role: usize) -> usize {
        match self.roles.iter().any(|r| r.count.is_some()) {
            true => 0,
            false => role,
        }
    }

    fn role(&self, r: &RoleRef) -> R<usize> {
        match self.roles.iter().position(|d| d.name.name == r.name.name) {
            Some(i) => Ok(i),
            None => Err(
                Diagnostic::error(r.name.span, format!("unknown role `{}`", r.name.name))
                    .with_help(suggest(&r.name.name, "role", &self.role_names())),
            ),
        }
    }

    fn target_roles(&self, t: &Target) -> Option<Vec<usize>> {
        match t {
            Target::Role(r) => self.role(r).ok().map(|i| vec![i]),
            Target::All(_) => Some((0..self.roles.len()).collect()),
        }
    }

    fn fresh_global(&self, name: &Ident) -> R<()> {
        if self.consts.contains_key(&name.name) || self.params.contains_key(&name.name) {
            return Err(Diagnostic::error(
                name.span,
                format!("`{}` is already declared", name.name),
            )
            .with_help("declare it once, or give the second one another name"));
        }
        Ok(())
    }

    fn define(&mut self, role: usize, name: &Ident, ty: Ty) -> R<()> {
        if self.consts.contains_key(&name.name) || self.params.contains_key(&name.name) {
            return Err(Diagnostic::error(
                name.span,
                format!(
                    "`{}` is a constant or parameter; values cannot reuse its name",
                    name.name
                ),
            ));
        }
        if RUST_KEYWORDS.contains(&name.name.as_str()) {
            return Err(Diagnostic::error(
                name.span,
                format!("`{}` is a Rust keyword and cannot name a value", name.name),
            )
            .with_help(format!("use `{}_` instead", name.name)));
        }
        if let Some(prev) = self.env[role].get(&name.name) {
            let l = line_ref(self.src, name.span, prev.span);
            if self.inputs_decl.contains(&(role, name.name.clone())) {
                return Err(Diagnostic::error(
                    name.span,
                    format!(
                        "`{}` is an input of `{}` ({l}); inputs cannot be assigned",
                        name.name, self.roles[role].name.name
                    ),
                )
                .with_help(format!(
                    "give the computed value a new name (`{}2 = ...;`) and use that",
                    name.name
                )));
            }
            return Err(Diagnostic::error(
                name.span,
                format!(
                    "`{}` is already defined at `{}` ({l}); values are assigned once",
                    name.name, self.roles[role].name.name
                ),
            )
            .with_help("choose a new name"));
        }
        self.env[role].insert(
            name.name.clone(),
            Var {
                ty,
                span: name.span,
                used: false,
                exported: false,
            },
        );
        Ok(())
    }

    /// The error for a name a role does not know (yet). `verb` is what the
    /// role tries to do with it: "use", "send" or "return".
    fn unknown_value(&self, role: usize, name: &str, span: Span, verb: &str) -> Diagnostic {
        if self.is_poisoned(role, name) {
            return Diagnostic::error(span, CASCADE);
        }
        let rname = &self.roles[role].name.name;
        let verbs = match verb {
            "send" => "sends",
            "return" => "returns",
            _ => "uses",
        };
        if let Some((round, rspan)) = self.future[role].get(name) {
            let l = line_ref(self.src, span, *rspan);
            return Diagnostic::error(
                span,
                format!("`{rname}` {verbs} `{name}` before receiving it in round `{round}` ({l})"),
            )
            .with_help(format!(
                "move this after round `{round}`, or move round `{round}` earlier"
            ));
        }
        if let Some(def) = self.later[role].get(name) {
            let l = line_ref(self.src, span, *def);
            return Diagnostic::error(
                span,
                format!("`{rname}` {verbs} `{name}` before computing it ({l})"),
            )
            .with_help(format!(
                "move the computation of `{name}` ({l}) before this point"
            ));
        }
        for (other, env) in self.env.iter().enumerate() {
            if other != role && (env.contains_key(name) || self.later[other].contains_key(name)) {
                if self.failed_links.contains(&(other, role)) {
                    return Diagnostic::error(span, CASCADE);
                }
                let oname = &self.roles[other].name.name;
                return Diagnostic::error(span, format!("`{name}` belongs to `{oname}`; `{rname}` cannot {verb} it because no round sends it to `{rname}`"))
                    .with_help(format!("send it in a round `{oname} -> {rname}`, or compute it in `at {rname} {{ ... }}`"));
            }
        }
        if let Some(d) = self.round_dot_field(name, span) {
            return d;
        }
        let mut cands: Vec<String> = self.env[role].keys().cloned().collect();
        if verb == "return" {
            let help = match crate::diag::did_you_mean(name, cands.iter().map(String::as_str)) {
                Some(best) => format!("did you mean `{best}`? Otherwise assign it in `at {rname} {{ {name} = ...; }}`"),
                None => format!("assign it in `at {rname} {{ {name} = ...; }}`, or remove it from `output {rname}`"),
            };
            return Diagnostic::error(
                span,
                format!("output `{name}` of `{rname}` is never computed"),
            )
            .with_help(help);
        }
        cands.extend(self.params.keys().cloned());
        cands.extend(self.consts.keys().cloned());
        let help = match crate::diag::did_you_mean(name, cands.iter().map(String::as_str)) {
            Some(best) if verb == "send" => format!("did you mean `{best}`? Otherwise compute it before this round: `at {rname} {{ {name} = ...; }}`"),
            Some(best) => format!("did you mean `{best}`?"),
            None if verb == "send" => format!("compute it before this round: `at {rname} {{ {name} = ...; }}`"),
            None => format!("define it first (`at {rname} {{ {name} = ...; }}`), declare it as an `input {rname}`, or receive it in a round"),
        };
        let mut known: Vec<&str> = self.env[role]
            .keys()
            .map(String::as_str)
            .filter(|k| !k.contains('.'))
            .collect();
        known.sort_unstable();
        let help = if help.starts_with("did you mean") || known.is_empty() || known.len() > 10 {
            help
        } else {
            format!(
                "{help}; `{rname}` knows {}",
                known
                    .iter()
                    .map(|k| format!("`{k}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        // A one-letter name or a word for "my index" in `at P[i]`: the
        // party's own index, or a receiver's index outside its round.
        let index_like = name.len() == 1
            || [
                "me", "my", "self", "id", "idx", "index", "rank", "party", "pid", "this",
            ]
            .contains(&name);
        let help = match self.party_vars.last() {
            Some(i) if index_like && !help.starts_with("did you mean") => format!("{help}. `{i}` is this party's index (`at {rname}[{i}]`); a private round `{rname}[{i}] -> {rname}[j]` sends entry `j` of an array of one value per party, so compute the whole array here"),
            _ => help,
        };
        Diagnostic::error(span, format!("unknown value `{name}` at `{rname}`")).with_help(help)
    }

    /// Checks a block statement by statement: a failed statement's error is
    /// kept (in `pending`) and the rest of the block is still checked.
    fn at_block(&mut self, block: &AtBlock, ir: &mut Ir) -> R<()> {
        let role = self.env_role(self.role(&block.role)?);
        for s in &block.stmts {
            if let Err(d) = self.stmt(role, s, ir) {
                if let Some(name) = s.assigned() {
                    self.poison(role, name);
                }
                self.pending.push(d);
            }
        }
        Ok(())
    }

    fn stmt(&mut self, role: usize, s: &Stmt, ir: &mut Ir) -> R<()> {
        {
            match s {
                Stmt::Assign { name, value } => {
                    self.heaps_seen.clear();
                    let t = self.expr(role, value)?;
                    self.define(role, name, t.ty.clone())?;
                    let st = TStmt::Assign(name.name.clone(), t);
                    self.record_heaps(ir, &st);
                    ir.events[role].push(Event::Stmt(st));
                }
                Stmt::Check { cond, abort, span } => {
                    self.heaps_seen.clear();
                    let t = self.expr(role, cond)?;
                    // An n-party check may test one condition per party
                    // (`[c(j) for j in 0..n]`); a failure names the party.
                    let per_party = self.roles.iter().any(|r| r.count.is_some())
                        && matches!(&t.ty, Ty::Array(e, _) if **e == Ty::Bit);
                    if t.ty != Ty::Bit && !per_party {
                        return Err(Diagnostic::error(
                            cond.span,
                            format!("`check` needs a condition (a `Bit`), found `{}`", t.ty),
                        )
                        .with_help(type_help::check_condition(&t.ty)));
                    }
                    let (l, _) = self.src.line_col(span.file, span.start);
                    let text = format!(
                        "{}:{l}: {}",
                        self.src.file(span.file).name,
                        self.src.snippet(*span)
                    );
                    if !abort
                        .name
                        .chars()
                        .next()
                        .map(char::is_uppercase)
                        .unwrap_or(false)
                    {
                        return Err(Diagnostic::error(abort.span, format!("abort names become error variants and must start with an upper-case letter: `{}`", abort.name)));
                    }
                    if RESERVED_ERRORS.contains(&abort.name.as_str()) {
                        return Err(Diagnostic::error(
                            abort.span,
                            format!("`{}` is a built-in error variant", abort.name),
                        )
                        .with_help("choose another abort name"));
                    }
                    if !ir.aborts.iter().any(|(n, _)| n == &abort.name) {
                        ir.aborts.push((abort.name.clone(), text.clone()));
                    }
                    let st = TStmt::Check(t, abort.name.clone(), text);
                    self.record_heaps(ir, &st);
                    ir.events[role].push(Event::Stmt(st));
                }
            }
        }
        Ok(())
    }

    fn do_stmt(&mut self, d: &DoStmt, ir: &mut Ir) -> R<()> {
        let func = self.functionality(&d.func)?;
        let pairwise = self.is_pairwise(d);
        let (froles, map) = match pairwise {
            true => self.pairwise_role_map(d, func)?,
            false => self.sub_role_map(d, func)?,
        };
        if pairwise {
            self.pairwise_inputs_held(d)?;
        }
        let pvals = self.sub_params(d, func)?;
        let b = SubBinding {
            func,
            froles,
            map,
            pvals,
        };
        let inputs = self.sub_inputs(d, &b)?;
        let mut outputs = match pairwise {
            true => self.pairwise_outputs(d, &b)?,
            false => self.sub_outputs(d, &b)?,
        };
        let calls = Self::sub_calls(d, &b, &inputs, &mut outputs)?;
        let idx = ir.subs.len();
        ir.subs.push(IrSub {
            name: d.name.name.clone(),
            func: func.name.name.clone(),
            span: d.span,
            calls,
            error: func.error.clone(),
            pairwise,
        });
        for r in 0..self.roles.len() {
            if b.map.values().any(|&m| m == r) {
                ir.events[r].push(Event::Sub(idx));
            }
        }
        Ok(())
    }

    /// The functionality a `do` statement names, or the error for an unknown one.
    fn functionality(&self, name: &Ident) -> R<&'a Functionality> {
        let Some(func) = self.scope.functionalities.get(&name.name).copied() else {
            if self.scope.broken.contains(&name.name) {
                return Err(Diagnostic::error(name.span, CASCADE));
            }
            let names: Vec<String> = self.scope.functionalities.keys().cloned().collect();
            let help = match self.scope.protocols.get(&name.name) {
                Some(p) => match &p.realizes {
                    Some(r) => format!("`{}` is a protocol; a `do` call names the functionality it realizes: `{}`", name.name, r.func.name),
                    None => format!("`{}` is a protocol; a `do` call names a functionality (a protocol that `realizes` it runs it): {}", name.name, names.join(", ")),
                },
                None => suggest(&name.name, "functionality", &names),
            };
            return Err(Diagnostic::error(
                name.span,
                format!("unknown functionality `{}`", name.name),
            )
            .with_help(help));
        };
        Ok(func)
    }

    /// Maps each role of the functionality to a protocol role: the
    /// functionality's role names, and role name -> protocol role index.
    fn sub_role_map(
        &self,
        d: &DoStmt,
        func: &Functionality,
    ) -> R<(Vec<String>, HashMap<String, usize>)> {
        let froles: Vec<String> = func.roles.iter().map(|r| r.name.name.clone()).collect();
        let mut map: HashMap<String, usize> = HashMap::new();
        let mut used: HashMap<usize, String> = HashMap::new();
        for (fr, pr) in &d.roles {
            if !froles.contains(&fr.name) {
                return Err(no_such_role(func, fr, &froles));
            }
            let p = self.role(pr)?;
            if self.roles[p].count.is_some() {
                return Err(self.party_array_mapped(func, fr, pr, p));
            }
            if map.insert(fr.name.clone(), p).is_some() {
                return Err(Diagnostic::error(
                    fr.span,
                    format!("role `{}` of `{}` is mapped twice", fr.name, func.name.name),
                ));
            }
            if let Some(other) = used.insert(p, fr.name.clone()) {
                return Err(Diagnostic::error(
                    pr.name.span,
                    format!(
                        "role mapping mismatch: both `{other}` and `{}` of `{}` are mapped to `{}`",
                        fr.name, func.name.name, pr.name.name
                    ),
                )
                .with_help(format!(
                    "map each role of `{}` ({}) to a different role of this protocol",
                    func.name.name,
                    froles.join(", ")
                )));
            }
        }
        Self::check_all_mapped(d, func, &froles, &map)?;
        Ok((froles, map))
    }

    /// The error for a functionality role `fr` mapped to the party array `pr`
    /// (protocol role `p`).
    pub(super) fn party_array_mapped(
        &self,
        func: &Functionality,
        fr: &Ident,
        pr: &RoleRef,
        p: usize,
    ) -> Diagnostic {
        Diagnostic::error(
            pr.name.span,
            format!(
                "role mapping mismatch: `{}` is a party array (`role {}[{}]`), but role `{}` of `{}` is one party",
                pr.name.name,
                pr.name.name,
                self.roles[p].count.as_ref().map(|c| self.src.snippet(c.span)).unwrap_or("n"),
                fr.name,
                func.name.name
            ),
        )
        .with_help(format!(
            "`{0}` is a two-party functionality: to run it between every pair of parties, map its roles to `{1}[i]` and `{1}[j]`; or run it between two named roles of a two-party protocol",
            func.name.name, pr.name.name
        ))
    }

    /// Binds the functionality's parameters to the shapes the call passes,
    /// checking each literal against the parameter's `requires`.
    fn sub_params(&self, d: &DoStmt, func: &Functionality) -> R<HashMap<String, Shape>> {
        let mut pvals: HashMap<String, Shape> = HashMap::new();
        for (pn, e) in &d.params {
            let Some(decl) = func.params.iter().find(|p| p.name.name == pn.name) else {
                let names: Vec<String> = func.params.iter().map(|p| p.name.name.clone()).collect();
                return Err(Diagnostic::error(
                    pn.span,
                    format!("`{}` has no parameter `{}`", func.name.name, pn.name),
                )
                .with_help(suggest(&pn.name, "parameter", &names)));
            };
            let sh = self.shape(e)?;
            if let (Some(v), Some(req)) = (sh.lit(), &decl.requires) {
                let mut env = HashMap::new();
                env.insert(pn.name.clone(), v);
                if let Some(0) = eval_with(req, &env) {
                    return Err(Diagnostic::error(
                        e.span,
                        format!(
                            "`{}` requires `{}`, which does not hold for `{}` = {v}",
                            func.name.name,
                            self.src.snippet(req.span),
                            pn.name
                        ),
                    )
                    .with_help(format!(
                        "pass a value of `{}` that satisfies the requirement",
                        pn.name
                    )));
                }
            }
            pvals.insert(pn.name.clone(), sh);
        }
        for p in &func.params {
            if !pvals.contains_key(&p.name.name) {
                return Err(Diagnostic::error(
                    d.func.span,
                    format!(
                        "missing parameter `{}` of `{}`",
                        p.name.name, func.name.name
                    ),
                )
                .with_help(format!("write `{}[{} = ...]`", func.name.name, p.name.name)));
            }
        }
        Ok(pvals)
    }

    /// Checks the call's input bindings against the functionality's inputs:
    /// (functionality role, field) -> the checked value.
    fn sub_inputs(&mut self, d: &DoStmt, b: &SubBinding) -> R<HashMap<(String, String), TExpr>> {
        let func = b.func;
        let subst = |name: &str| b.pvals.get(name).cloned();
        let mut inputs: HashMap<(String, String), TExpr> = HashMap::new();
        for (fr, field, e) in &d.inputs {
            let Some(&role) = b.map.get(&fr.name) else {
                return Err(Diagnostic::error(
                    fr.span,
                    format!("`{}` has no role `{}`", func.name.name, fr.name),
                )
                .with_help(suggest(&fr.name, "role", &b.froles)));
            };
            let decl = func
                .io
                .iter()
                .filter(|io| io.kind == IoKind::Input && io.role.name.name == fr.name)
                .flat_map(|io| io.fields.iter())
                .find(|f| f.name.name == field.name);
            let Some(decl) = decl else {
                return Err(Self::no_such_input(func, fr, field));
            };
            let want = self.ty(&decl.ty, Some(&subst))?;
            let t = self.expr(role, e)?;
            if t.ty != want {
                return Err(Diagnostic::error(
                    e.span,
                    format!(
                        "shape mismatch: input `{}.{}` of `{}` must be `{want}`, found `{}`",
                        fr.name, field.name, func.name.name, t.ty
                    ),
                ));
            }
            inputs.insert((fr.name.clone(), field.name.clone()), t);
        }
        Self::check_all_inputs(d, func, &inputs)?;
        Ok(inputs)
    }

    /// Defines the functionality's outputs as `name.field` values of the
    /// mapped roles: functionality role -> its outputs in declaration order.
    fn sub_outputs(&mut self, d: &DoStmt, b: &SubBinding) -> R<HashMap<String, Vec<(String, Ty)>>> {
        let subst = |name: &str| b.pvals.get(name).cloned();
        let mut outputs: HashMap<String, Vec<(String, Ty)>> = HashMap::new();
        for io in b.func.io.iter().filter(|io| io.kind == IoKind::Output) {
            let Some(&role) = b.map.get(&io.role.name.name) else {
                continue;
            };
            for f in &io.fields {
                let ty = self.ty(&f.ty, Some(&subst))?;
                let name = format!("{}.{}", d.name.name, f.name.name);
                let ident = Ident {
                    name: name.clone(),
                    span: d.name.span,
                };
                self.define(role, &ident, ty.clone())?;
                outputs
                    .entry(io.role.name.name.clone())
                    .or_default()
                    .push((name, ty));
            }
        }
        Ok(outputs)
    }

    /// Errors unless every role of the functionality is mapped.
    fn check_all_mapped(
        d: &DoStmt,
        func: &Functionality,
        froles: &[String],
        map: &HashMap<String, usize>,
    ) -> R<()> {
        for fr in froles {
            if !map.contains_key(fr) {
                return Err(Diagnostic::error(
                    d.func.span,
                    format!(
                        "role mapping mismatch: role `{fr}` of `{}` is not mapped",
                        func.name.name
                    ),
                )
                .with_help(format!(
                    "add `{fr} = <role>` to the call; `{}` has roles {}",
                    func.name.name,
                    froles.join(", ")
                )));
            }
        }
        Ok(())
    }

    /// Errors unless the call binds every input of the functionality.
    fn check_all_inputs(
        d: &DoStmt,
        func: &Functionality,
        inputs: &HashMap<(String, String), TExpr>,
    ) -> R<()> {
        for io in func.io.iter().filter(|io| io.kind == IoKind::Input) {
            for f in &io.fields {
                if !inputs.contains_key(&(io.role.name.name.clone(), f.name.name.clone())) {
                    return Err(Diagnostic::error(
                        d.span,
                        format!(
                            "missing input `{}.{}` of `{}`",
                            io.role.name.name, f.name.name, func.name.name
                        ),
                    )
                    .with_help(format!(
                        "add `with {{ {}.{} = <value> }}` to the call",
                        io.role.name.name, f.name.name
                    )));
                }
            }
        }
        Ok(())
    }

    /// How each role of a `do` statement is run: the functionality's
    /// `impl Role = Trait::method(args);` with its arguments bound to the
    /// call's parameters and inputs, and the role's outputs.
    fn sub_calls(
        d: &DoStmt,
        b: &SubBinding,
        inputs: &HashMap<(String, String), TExpr>,
        outputs: &mut HashMap<String, Vec<(String, Ty)>>,
    ) -> R<Vec<SubCall>> {
        let func = b.func;
        let mut calls = vec![];
        for fr in &b.froles {
            let role = b.map[fr];
            let (imp, trait_path, method) = role_impl(func, fr, d.func.span)?;
            let mut args = vec![];
            for a in &imp.args {
                if let Some(sh) = b.pvals.get(&a.name) {
                    args.push(TExpr {
                        kind: TExprKind::Shape(sh.clone()),
                        ty: Ty::Usize,
                    });
                } else if let Some(t) = inputs.get(&(fr.clone(), a.name.clone())) {
                    args.push(t.clone());
                } else {
                    return Err(not_an_arg(func, fr, a));
                }
            }
            calls.push(SubCall {
                role,
                func_role: fr.clone(),
                trait_path: trait_path.to_string(),
                method: method.to_string(),
                args,
                outputs: outputs.remove(fr).unwrap_or_default(),
            });
        }
        Ok(calls)
    }

    /// Resolves a written type. `subst` maps signature names to shapes.
    fn ty(&self, t: &Type, subst: Subst) -> R<Ty> {
        match &t.kind {
            TypeKind::Array(elem, len) => {
                let e = self.ty(elem, subst)?;
                let n = self.shape_in(len, subst)?;
                Ok(Ty::Array(Box::new(e), n))
            }
            TypeKind::Named(name, args) => {
                let arity = |n: usize| -> R<()> {
                    if args.len() != n {
                        let form = match name.name.as_str() {
                            "Bits" => "Bits[n]",
                            "BitMatrix" => "BitMatrix[rows, cols]",
                            other => other,
                        };
                        return Err(Diagnostic::error(
                            t.span,
                            format!(
                                "type `{}` takes {n} shape argument{}, found {}",
                                name.name,
                                if n == 1 { "" } else { "s" },
                                args.len()
                            ),
                        )
                        .with_help(format!("write `{form}`")));
                    }
                    Ok(())
                };
                let simple = match name.name.as_str() {
                    "Bit" => Some(Ty::Bit),
                    "Block" => Some(Ty::Block),
                    "Seed" => Some(Ty::Seed),
                    "Point" => Some(Ty::Point),
                    "Scalar" => Some(Ty::Scalar),
                    "usize" => Some(Ty::Usize),
                    "u64" => Some(Ty::U64),
                    "u32" => Some(Ty::U32),
                    "u8" => Some(Ty::U8),
                    _ => None,
                };
                if let Some(s) = simple {
                    arity(0)?;
                    return Ok(s);
                }
                match name.name.as_str() {
                    "Bits" => {
                        arity(1)?;
                        Ok(Ty::Bits(self.shape_in(&args[0], subst)?))
                    }
                    "BitMatrix" => {
                        arity(2)?;
                        Ok(Ty::BitMatrix(
                            self.shape_in(&args[0], subst)?,
                            self.shape_in(&args[1], subst)?,
                        ))
                    }
                    other => match self.scope.extern_types.get(other) {
                        Some(e) => {
                            arity(0)?;
                            Ok(Ty::Extern(e.name.name.clone(), e.path.clone()))
                        }
                        None if self.scope.broken.contains(other) => {
                            Err(Diagnostic::error(name.span, CASCADE))
                        }
                        None => {
                            let mut names: Vec<String> =
                                BUILTIN_TYPES.iter().map(|s| s.to_string()).collect();
                            names.extend(self.scope.extern_types.keys().cloned());
                            let help = type_help::rust_type(other)
                                .unwrap_or_else(|| suggest(other, "type", &names));
                            Err(
                                Diagnostic::error(name.span, format!("unknown type `{other}`"))
                                    .with_help(help),
                            )
                        }
                    },
                }
            }
        }
    }

    fn shape(&self, e: &Expr) -> R<Shape> {
        self.shape_in(e, None)
    }

    /// A symbolic length from constants, parameters and literals.
    fn shape_in(&self, e: &Expr, subst: Subst) -> R<Shape> {
        match &e.kind {
            ExprKind::Int(v) => {
                literal_range(*v, &Ty::Usize, e.span)?;
                Ok(Shape::Lit(*v))
            }
            ExprKind::Var(n) => {
                if let Some(f) = subst {
                    if let Some(s) = f(n) {
                        return Ok(s);
                    }
                }
                if let Some((_, v)) = self.consts.get(n) {
                    return Ok(Shape::Lit(*v));
                }
                if let Some(t) = self.params.get(n) {
                    if t.is_int() {
                        return Ok(Shape::Param(n.clone()));
                    }
                }
                if subst.is_some() {
                    // A name in a signature or functionality that is not bound: keep it symbolic.
                    return Ok(Shape::Param(n.clone()));
                }
                if self.is_poisoned(usize::MAX, n) {
                    return Err(Diagnostic::error(e.span, CASCADE));
                }
                Err(self.not_a_length(n, e.span))
            }
            ExprKind::Binary(op, a, b)
                if matches!(
                    op,
                    BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem
                ) =>
            {
                self.check_divisor(*op, b, true)?;
                let c = op.symbol().chars().next().unwrap_or('+');
                Ok(Shape::bin(
                    c,
                    self.shape_in(a, subst)?,
                    self.shape_in(b, subst)?,
                ))
            }
            _ => Err(Diagnostic::error(
                e.span,
                "a length must be an arithmetic expression of constants, parameters and numbers",
            )),
        }
    }

    fn const_eval(&self, e: &Expr) -> R<u128> {
        let env: HashMap<String, u128> = self
            .consts
            .iter()
            .map(|(k, (_, v))| (k.clone(), *v))
            .collect();
        eval_with(e, &env).ok_or_else(|| {
            Diagnostic::error(
                e.span,
                "this must be a constant expression of numbers and earlier constants",
            )
        })
    }

    fn lookup(&mut self, role: usize, name: &str, span: Span) -> R<TExpr> {
        if self.party_vars.iter().any(|v| v == name) {
            return Ok(TExpr {
                kind: TExprKind::IndexVar("me".to_string()),
                ty: Ty::Usize,
            });
        }
        if self.index_vars.iter().any(|v| v == name) {
            return Ok(TExpr {
                kind: TExprKind::IndexVar(name.to_string()),
                ty: Ty::Usize,
            });
        }
        if let Some((ty, v)) = self.consts.get(name) {
            return Ok(TExpr {
                kind: TExprKind::Int(*v),
                ty: ty.clone(),
            });
        }
        if let Some(ty) = self.params.get(name) {
            return Ok(TExpr {
                kind: TExprKind::Param(name.to_string()),
                ty: ty.clone(),
            });
        }
        if role == usize::MAX {
            if self.is_poisoned(role, name) {
                return Err(Diagnostic::error(span, CASCADE));
            }
            let mut names: Vec<String> = self.params.keys().cloned().collect();
            names.extend(self.consts.keys().cloned());
            return Err(
                Diagnostic::error(span, format!("unknown constant or parameter `{name}`"))
                    .with_help(suggest(name, "constant or parameter", &names)),
            );
        }
        match self.env[role].get_mut(name) {
            Some(v) => {
                v.used = true;
                Ok(TExpr {
                    kind: TExprKind::Local(name.to_string()),
                    ty: v.ty.clone(),
                })
            }
            None => {
                let d = self.unknown_value(role, name, span, "use");
                // One error per unknown name: its later uses follow from it.
                self.poison(role, name);
                Err(d)
            }
        }
    }

    /// Types an expression evaluated by `role` (`usize::MAX`: no role, only params/consts).
    fn expr(&mut self, role: usize, e: &Expr) -> R<TExpr> {
        // Recursive once per operand of a chain: grow the stack as needed.
        crate::parse::deep(|| self.expr_at(role, e))
    }

    fn expr_at(&mut self, role: usize, e: &Expr) -> R<TExpr> {
        match &e.kind {
            ExprKind::Int(v) => {
                literal_range(*v, &Ty::Usize, e.span)?;
                Ok(TExpr {
                    kind: TExprKind::Int(*v),
                    ty: Ty::Usize,
                })
            }
            ExprKind::Cast(inner, ty) => self.cast(role, e, inner, ty),
            ExprKind::Bool(b) => Ok(TExpr {
                kind: TExprKind::Bool(*b),
                ty: Ty::Bit,
            }),
            ExprKind::Var(n) => self.lookup(role, n, e.span),
            ExprKind::Member(base, field) => match &base.kind {
                ExprKind::Var(b) => self.lookup(role, &format!("{b}.{}", field.name), e.span),
                _ => Err(Diagnostic::error(
                    e.span,
                    "`.field` applies only to the outputs of a sub-protocol call (`call.field`)",
                )),
            },
            ExprKind::Index(base, idx) => self.index_expr(role, base, idx),
            ExprKind::Call(name, args) => self.call(role, name, args, e.span),
            ExprKind::Binary(op, a, b) => self.binary_expr(role, e, *op, a, b),
            ExprKind::Unary(op, a) => self.unary_expr(role, e, *op, a),
            ExprKind::Sample(t) => self.sample_expr(role, e, t),
            ExprKind::Comprehension { body, var, lo, hi } => {
                self.comprehension_expr(role, body, var, lo, hi)
            }
            ExprKind::Array(items) => self.array_expr(role, e, items),
        }
    }

    /// Checks `base[idx]`: an integer index into `Bits[n]` or an array,
    /// in range when both are literals.
    fn index_expr(&mut self, role: usize, base: &Expr, idx: &Expr) -> R<TExpr> {
        let b = self.expr(role, base)?;
        let i = self.expr(role, idx)?;
        if !i.ty.is_int() {
            return Err(Diagnostic::error(
                idx.span,
                format!("an index must be `usize`, found `{}`", i.ty),
            ));
        }
        let (elem, len) = match &b.ty {
            Ty::Bits(n) => (Ty::Bit, n.clone()),
            Ty::Array(t, n) => ((**t).clone(), n.clone()),
            other => {
                let (message, help) = type_help::not_indexable(self.src.snippet(base.span), other);
                return Err(Diagnostic::error(base.span, message).with_help(help));
            }
        };
        if let (TExprKind::Int(k), Some(n)) = (&i.kind, len.lit()) {
            if *k >= n {
                return Err(Diagnostic::error(
                    idx.span,
                    format!("index {k} is out of range for length {n}"),
                ));
            }
        }
        Ok(TExpr {
            kind: TExprKind::Index(Box::new(b), Box::new(i)),
            ty: elem,
        })
    }

    /// Checks the binary expression `e` = `a op b`: literals take the other
    /// operand's type (except for shifts), and the operator must apply.
    fn binary_expr(&mut self, role: usize, e: &Expr, op: BinOp, a: &Expr, b: &Expr) -> R<TExpr> {
        let mut ta = self.expr(role, a)?;
        let mut tb = self.expr(role, b)?;
        if !matches!(op, BinOp::Shl | BinOp::Shr) {
            let (ya, yb) = (ta.ty.clone(), tb.ty.clone());
            self.coerce_lit(a, &mut ta, &yb)?;
            self.coerce_lit(b, &mut tb, &ya)?;
        }
        self.check_divisor(op, b, false)?;
        let ty = match op {
            BinOp::Shl | BinOp::Shr => Some(self.shift_type(e, op, &ta.ty, &tb.ty)?),
            _ => binary_type(op, &ta.ty, &tb.ty),
        };
        let Some(ty) = ty else {
            let snippets = (self.src.snippet(a.span), self.src.snippet(b.span));
            let (side, help) = type_help::binary(op, &ta.ty, &tb.ty, snippets);
            let span = match side {
                Some(true) => b.span,
                Some(false) => a.span,
                None => e.span,
            };
            let (x, y, o) = (&ta.ty, &tb.ty, op.symbol());
            return Err(Diagnostic::error(
                span,
                format!("operator `{o}` cannot combine `{x}` and `{y}`"),
            )
            .with_help(help));
        };
        Ok(TExpr {
            kind: TExprKind::Binary(op, Box::new(ta), Box::new(tb)),
            ty,
        })
    }

    /// Checks the unary expression `e` = `op a`.
    fn unary_expr(&mut self, role: usize, e: &Expr, op: UnOp, a: &Expr) -> R<TExpr> {
        let ta = self.expr(role, a)?;
        let ok = match op {
            UnOp::Not => matches!(ta.ty, Ty::Bit | Ty::Block) || ta.ty.is_int(),
            UnOp::Neg => {
                matches!(ta.ty, Ty::Point | Ty::Scalar | Ty::U64 | Ty::U32 | Ty::U8)
            }
            UnOp::Cast => true,
        };
        if !ok {
            return Err(Diagnostic::error(
                e.span,
                format!(
                    "operator `{}` does not apply to `{}`",
                    if op == UnOp::Not { "!" } else { "-" },
                    ta.ty
                ),
            )
            .with_help("`!` applies to `Bit`, `Block` and integers; `-` to `Point`, `Scalar` and the wrapping integers `u64`, `u32`, `u8`"));
        }
        let ty = ta.ty.clone();
        Ok(TExpr {
            kind: TExprKind::Unary(op, Box::new(ta)),
            ty,
        })
    }

    /// Checks `e` = `sample t`: a sampleable type, inside an `at` block.
    fn sample_expr(&mut self, role: usize, e: &Expr, t: &Type) -> R<TExpr> {
        let ty = self.ty(t, None)?;
        if !sampleable(&ty) {
            let works = "`sample` works for Bit, Block, Seed, Scalar, Point, u64, Bits[n] and arrays of these";
            let help = match type_help::makers(self.scope, &ty) {
                Some(make) => format!("{make}; {works}"),
                None => works.to_string(),
            };
            return Err(
                Diagnostic::error(t.span, format!("cannot sample a `{ty}`")).with_help(help)
            );
        }
        if role == usize::MAX {
            return Err(Diagnostic::error(
                e.span,
                "`sample` is only allowed inside `at Role { ... }`",
            ));
        }
        Ok(TExpr {
            kind: TExprKind::Sample(ty.clone()),
            ty,
        })
    }

    /// Checks the comprehension `[body for var in lo..hi]`: `var` is an
    /// index variable while `body` is checked, and must shadow nothing.
    fn comprehension_expr(
        &mut self,
        role: usize,
        body: &Expr,
        var: &Ident,
        lo: &Expr,
        hi: &Expr,
    ) -> R<TExpr> {
        let lo_s = self.shape(lo)?;
        let hi_s = self.shape(hi)?;
        let tlo = self.expr(role, lo)?;
        let thi = self.expr(role, hi)?;
        if self.index_vars.contains(&var.name)
            || (role != usize::MAX && self.env[role].contains_key(&var.name))
        {
            return Err(Diagnostic::error(
                var.span,
                format!("index `{}` shadows another value", var.name),
            ));
        }
        self.index_vars.push(var.name.clone());
        let tb = self.expr(role, body);
        self.index_vars.pop();
        let tb = tb?;
        let ty = Ty::Array(Box::new(tb.ty.clone()), Shape::bin('-', hi_s, lo_s));
        Ok(TExpr {
            kind: TExprKind::Comprehension {
                body: Box::new(tb),
                var: var.name.clone(),
                lo: Box::new(tlo),
                hi: Box::new(thi),
            },
            ty,
        })
    }

    /// Checks the array literal `e` = `[items]`: not empty, one element type.
    fn array_expr(&mut self, role: usize, e: &Expr, items: &[Expr]) -> R<TExpr> {
        if items.is_empty() {
            return Err(Diagnostic::error(
                e.span,
                "empty arrays have no element type",
            ));
        }
        let mut out = vec![];
        for it in items {
            let t = self.expr(role, it)?;
            if let Some(first) = out.first() {
                let first: &TExpr = first;
                if first.ty != t.ty {
                    return Err(Diagnostic::error(
                        it.span,
                        format!(
                            "array elements must have one type: `{}` and `{}`",
                            first.ty, t.ty
                        ),
                    ));
                }
            }
            out.push(t);
        }
        let ty = Ty::Array(Box::new(out[0].ty.clone()), Shape::Lit(out.len() as u128));
        Ok(TExpr {
            kind: TExprKind::Array(out),
            ty,
        })
    }

    /// Records the `holding` bounds of statement `st`: its value's own (an
    /// assignment whose value is a call declared with `holding`) and those
    /// of its other calls (temporaries).
    fn record_heaps(&mut self, ir: &mut Ir, st: &TStmt) {
        let mut temps = std::mem::take(&mut self.heaps_seen);
        let own = match st {
            TStmt::Assign(
                _,
                TExpr {
                    kind: TExprKind::Call(n, _),
                    ..
                },
            ) if self
                .scope
                .intrinsics
                .get(n)
                .is_some_and(|d| d.holding.is_some()) =>
            {
                temps.pop()
            }
            _ => None,
        };
        if (own.is_some() || !temps.is_empty()) && !ir.heaps.iter().any(|(s, _)| s == st) {
            ir.heaps.push((st.clone(), StmtHeap { value: own, temps }));
        }
    }

    /// Checks `holding(bytes)` of `decl` at a call: `bytes` is built from
    /// numbers, `+ - * /`, the intrinsic's `usize` parameters and the
    /// lengths its parameter types name (`N` of `[T; N]`), and every
    /// parameter it names gets an argument known from the protocol's
    /// parameters, so that `Params::new` can evaluate the bound.
    fn holding_ok(
        &self,
        decl: &IntrinsicDecl,
        h: &Expr,
        bound: &HashMap<String, Shape>,
        args: &[Expr],
    ) -> R<()> {
        let usize_param = |n: &str| {
            decl.params.iter().position(|p| {
                p.name.name == n && matches!(&p.ty.kind, TypeKind::Named(t, _) if t.name == "usize")
            })
        };
        let mut stack = vec![h];
        while let Some(e) = stack.pop() {
            match &e.kind {
                ExprKind::Int(_) => {}
                ExprKind::Var(n) => {
                    let Some(k) = usize_param(n) else {
                        if bound.contains_key(n) {
                            // A length of an argument's type (`[T; N]`).
                            continue;
                        }
                        return Err(Diagnostic::error(
                            e.span,
                            format!("`holding` may name only `usize` parameters of `{}` and the lengths its parameter types name; `{n}` is neither", decl.name.name),
                        ));
                    };
                    if !bound.contains_key(n) {
                        return Err(Diagnostic::error(
                            args[k].span,
                            format!("the memory bound `holding(..)` of `{}` needs this argument (`{n}`) to be built from constants, parameters and numbers", decl.name.name),
                        )
                        .with_help("pass the size as a parameter expression, or drop `holding` from the declaration (the budget then counts only the value's inline size)"));
                    }
                }
                ExprKind::Binary(
                    BinOp::Add | BinOp::Mul | BinOp::Div | BinOp::Sub | BinOp::Shl,
                    a,
                    b,
                ) => {
                    stack.push(a);
                    stack.push(b);
                }
                _ => return Err(Diagnostic::error(
                    e.span,
                    "`holding(bytes)` is built from numbers, `+ - * / <<` and `usize` parameters",
                )),
            }
        }
        Ok(())
    }

    fn call(&mut self, role: usize, name: &Ident, args: &[Expr], span: Span) -> R<TExpr> {
        if let Some(b) = self.builtin(role, name, args, span) {
            return b;
        }
        let decl = self.intrinsic(name)?;
        if args.len() != decl.params.len() {
            return Err(Diagnostic::error(
                span,
                format!(
                    "intrinsic `{}` takes {} argument{} but {} {} given",
                    name.name,
                    decl.params.len(),
                    if decl.params.len() == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
            )
            .with_help(self.signature(decl)));
        }
        let mut bound = self.shape_bindings(decl, args);
        let targs = self.intrinsic_args(role, name, decl, args, &mut bound)?;
        let ret = self.ty(&decl.ret, Some(&|n: &str| bound.get(n).cloned()))?;
        if let Some(h) = &decl.holding {
            self.holding_ok(decl, h, &bound, args)?;
            self.heaps_seen.push(holding_bytes(h, &bound));
        }
        Ok(TExpr {
            kind: TExprKind::Call(decl.name.name.clone(), targs),
            ty: ret,
        })
    }

    /// The intrinsic `name` calls, or the error for an unknown one.
    fn intrinsic(&self, name: &Ident) -> R<&'a IntrinsicDecl> {
        if let Some(at) = self
            .scope
            .intrinsics
            .get(&name.name)
            .and_then(|d| d.stale_chunk_path)
        {
            return Err(Diagnostic::error(
                at,
                format!("`chunked` takes no second path: intrinsic `{}` is one streamed kernel", name.name),
            )
            .with_help("write `= path chunked;` and give the Rust function the arguments, then `span: ot::runtime::Span, out: &mut Out` (the `Vec`/`BitMatrix`/`Block` it writes); see the book's \"Chunked rounds\""));
        }
        let Some(decl) = self.scope.intrinsics.get(&name.name).copied() else {
            if self.scope.broken.contains(&name.name) {
                return Err(Diagnostic::error(name.span, CASCADE));
            }
            let names: Vec<String> = self.scope.intrinsics.keys().cloned().collect();
            return Err(
                Diagnostic::error(name.span, format!("unknown intrinsic `{}`", name.name))
                    .with_help(suggest(&name.name, "intrinsic", &names)),
            );
        };
        Ok(decl)
    }

    /// The help naming an intrinsic's signature and where it is declared.
    fn signature(&self, decl: &IntrinsicDecl) -> String {
        let ps: Vec<String> = decl
            .params
            .iter()
            .map(|p| format!("{}: {}", p.name.name, self.src.snippet(p.ty.span).trim()))
            .collect();
        format!(
            "`{}({}) -> {}` is declared at {}",
            decl.name.name,
            ps.join(", "),
            self.src.snippet(decl.ret.span).trim(),
            {
                let (l, _) = self.src.line_col(decl.span.file, decl.span.start);
                format!("{}:{l}", self.src.file(decl.span.file).name)
            }
        )
    }

    /// The shapes the `usize` parameters of `decl` take from the call's
    /// arguments, where those are shapes.
    fn shape_bindings(&self, decl: &IntrinsicDecl, args: &[Expr]) -> HashMap<String, Shape> {
        let mut bound: HashMap<String, Shape> = HashMap::new();
        for (p, a) in decl.params.iter().zip(args) {
            if let TypeKind::Named(n, _) = &p.ty.kind {
                if n.name == "usize" {
                    if let Ok(s) = self.shape(a) {
                        bound.insert(p.name.name.clone(), s);
                    }
                }
            }
        }
        bound
    }

    /// Checks the arguments of a call of intrinsic `decl` against its
    /// parameters, unifying the other shape names of its signature into
    /// `bound`.
    fn intrinsic_args(
        &mut self,
        role: usize,
        name: &Ident,
        decl: &IntrinsicDecl,
        args: &[Expr],
        bound: &mut HashMap<String, Shape>,
    ) -> R<Vec<TExpr>> {
        let mut targs = vec![];
        for (k, (p, a)) in decl.params.iter().zip(args).enumerate() {
            let mut t = self.expr(role, a)?;
            let b2 = bound.clone();
            let want = self.ty(&p.ty, Some(&move |n: &str| b2.get(n).cloned()))?;
            self.coerce_lit(a, &mut t, &want)?;
            if !unify(&want, &t.ty, bound) {
                let b3 = bound.clone();
                let shown = self
                    .ty(&p.ty, Some(&move |n: &str| b3.get(n).cloned()))
                    .unwrap_or(want);
                return Err(Diagnostic::error(
                    a.span,
                    format!(
                        "argument {} of `{}` must be `{shown}`, found `{}`",
                        k + 1,
                        name.name,
                        t.ty
                    ),
                )
                .with_help(self.signature(decl)));
            }
            targs.push(t);
        }
        Ok(targs)
    }
}

/// A `do` statement's functionality with its roles mapped and its
/// parameters bound.
pub(super) struct SubBinding<'f> {
    /// The functionality.
    pub(super) func: &'f Functionality,
    /// Its role names, in declaration order.
    pub(super) froles: Vec<String>,
    /// Functionality role name -> protocol role index.
    pub(super) map: HashMap<String, usize>,
    /// Parameter name -> the shape passed.
    pub(super) pvals: HashMap<String, Shape>,
}

/// The error for a role `fr` the functionality `func` (roles `froles`) does not have.
fn no_such_role(func: &Functionality, fr: &Ident, froles: &[String]) -> Diagnostic {
    Diagnostic::error(
        fr.span,
        format!("`{}` has no role `{}`", func.name.name, fr.name),
    )
    .with_help(suggest(&fr.name, "role", froles))
}

/// Unifies a signature type (whose unbound names are shape variables) with an argument type.
fn unify(want: &Ty, have: &Ty, bound: &mut HashMap<String, Shape>) -> bool {
    fn shape(w: &Shape, h: &Shape, bound: &mut HashMap<String, Shape>) -> bool {
        match w {
            Shape::Param(n)
                if n.chars().next().map(char::is_uppercase).unwrap_or(false)
                    || !bound.contains_key(n) =>
            {
                match bound.get(n) {
                    Some(b) => b == h,
                    None => {
                        bound.insert(n.clone(), h.clone());
                        true
                    }
                }
            }
            _ => w == h,
        }
    }
    match (want, have) {
        (Ty::Bits(a), Ty::Bits(b)) => shape(a, b, bound),
        (Ty::BitMatrix(a, b), Ty::BitMatrix(c, d)) => shape(a, c, bound) && shape(b, d, bound),
        (Ty::Array(t, a), Ty::Array(u, b)) => unify(t, u, bound) && shape(a, b, bound),
        (Ty::U64, Ty::Usize) | (Ty::Usize, Ty::U64) => false,
        (a, b) => a == b,
    }
}

fn sampleable(t: &Ty) -> bool {
    match t {
        Ty::Bit
        | Ty::Block
        | Ty::Seed
        | Ty::Scalar
        | Ty::Point
        | Ty::U64
        | Ty::U32
        | Ty::U8
        | Ty::Bits(_) => true,
        Ty::Array(e, _) => sampleable(e),
        _ => false,
    }
}

fn binary_type(op: BinOp, a: &Ty, b: &Ty) -> Option<Ty> {
    use BinOp::*;
    match op {
        Or | And => (a == &Ty::Bit && b == &Ty::Bit).then_some(Ty::Bit),
        Eq | Ne => (a == b).then_some(Ty::Bit),
        Lt | Le | Gt | Ge => (a == b && a.is_int()).then_some(Ty::Bit),
        BitOr | BitXor | BitAnd => match (a, b) {
            (Ty::Bit, Ty::Bit) | (Ty::Block, Ty::Block) => Some(a.clone()),
            (x, y) if x == y && x.is_int() => Some(a.clone()),
            (Ty::Bits(x), Ty::Bits(y)) if x == y && op == BitXor => Some(a.clone()),
            (Ty::BitMatrix(..), Ty::BitMatrix(..)) if a == b && op == BitXor => Some(a.clone()),
            _ => None,
        },
        Add | Sub => match (a, b) {
            (Ty::Point, Ty::Point) | (Ty::Scalar, Ty::Scalar) => Some(a.clone()),
            (x, y) if x == y && x.is_int() => Some(a.clone()),
            _ => None,
        },
        Mul => match (a, b) {
            (Ty::Scalar, Ty::Point) | (Ty::Point, Ty::Scalar) => Some(Ty::Point),
            (Ty::Scalar, Ty::Scalar) => Some(a.clone()),
            (x, y) if x == y && x.is_int() => Some(a.clone()),
            _ => None,
        },
        Div | Rem => (a == b && a.is_int()).then_some(a.clone()),
        Shl | Shr => (a.is_int() && b.is_int()).then_some(a.clone()),
    }
}

/// Evaluates a constant expression (booleans are 0/1).
pub fn eval_with(e: &Expr, env: &HashMap<String, u128>) -> Option<u128> {
    Some(match &e.kind {
        ExprKind::Int(v) => *v,
        ExprKind::Bool(b) => u128::from(*b),
        ExprKind::Var(n) => *env.get(n)?,
        ExprKind::Unary(UnOp::Not, a) => u128::from(eval_with(a, env)? == 0),
        ExprKind::Binary(op, a, b) => {
            let x = eval_with(a, env)?;
            let y = eval_with(b, env)?;
            use BinOp::*;
            match op {
                Or => u128::from(x != 0 || y != 0),
                And => u128::from(x != 0 && y != 0),
                Eq => u128::from(x == y),
                Ne => u128::from(x != y),
                Lt => u128::from(x < y),
                Le => u128::from(x <= y),
                Gt => u128::from(x > y),
                Ge => u128::from(x >= y),
                BitOr => x | y,
                BitXor => x ^ y,
                BitAnd => x & y,
                Add => x.checked_add(y)?,
                Sub => x.checked_sub(y)?,
                Mul => x.checked_mul(y)?,
                Div => x.checked_div(y)?,
                Rem => x.checked_rem(y)?,
                Shl => u32::try_from(y).ok().and_then(|y| x.checked_shl(y))?,
                Shr => u32::try_from(y).ok().and_then(|y| x.checked_shr(y))?,
            }
        }
        // A cast keeps the low bits of the value (`Block` is 128 bits).
        ExprKind::Cast(a, t) => {
            let x = eval_with(a, env)?;
            let bits = match &t.kind {
                TypeKind::Named(n, _) => match n.name.as_str() {
                    "u8" => 8,
                    "u32" => 32,
                    "u64" | "usize" => 64,
                    _ => return None,
                },
                TypeKind::Array(..) => return None,
            };
            x & ((1u128 << bits) - 1)
        }
        _ => return None,
    })
}

/// Abort names that clash with the built-in error variants.
const RESERVED_ERRORS: &[&str] = &[
    "UnexpectedMessage",
    "Shape",
    "Channel",
    "SubProtocol",
    "Decode",
    "Length",
    "Params",
    "Equivocation",
    "Mesh",
    "Peer",
];

const RUST_KEYWORDS: &[&str] = &[
    "as", "break", "const", "continue", "crate", "else", "enum", "extern", "false", "fn", "for",
    "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return",
    "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where",
    "while", "async", "await", "dyn", "abstract", "become", "box", "do", "final", "macro",
    "override", "priv", "typeof", "unsized", "virtual", "yield", "try", "params", "rng", "st",
    "msg", "ch",
];

/// A `holding(bytes)` expression (checked by [`Checker::holding_ok`]) as a
/// shape, with a call's arguments for the names it uses.
fn holding_bytes(e: &Expr, bound: &HashMap<String, Shape>) -> Shape {
    match &e.kind {
        ExprKind::Int(v) => Shape::Lit(*v),
        ExprKind::Var(n) => bound.get(n).cloned().unwrap_or(Shape::Param(n.clone())),
        ExprKind::Binary(op, a, b) => {
            let c = match op {
                BinOp::Shl => '<',
                op => op.symbol().chars().next().unwrap_or('+'),
            };
            Shape::bin(c, holding_bytes(a, bound), holding_bytes(b, bound))
        }
        _ => Shape::Lit(0),
    }
}
