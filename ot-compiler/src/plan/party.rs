//! The steps of a party of an n-party protocol: its projection as a list of
//! operations (local statements, sends, receives, and the consistency check
//! the compiler adds after a checked broadcast), the party's states, and the
//! values each state carries (by liveness, since a round's fields are
//! redefined as the arrays of what every party sent).

use crate::ir::*;
use crate::types::{Shape, Ty};
use std::collections::{BTreeMap, BTreeSet};

/// One operation of a party.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A local statement (index into the party's events).
    Stmt(usize),
    /// Sends its message of round `r` to every other party.
    Send(usize),
    /// Receives round `r` from every other party.
    Recv(usize),
    /// Exchanges and compares digests of checked broadcast round `r`.
    Check(usize),
    /// Runs pairwise sub-protocol call `k` (`ir.subs[k]`) with every other
    /// party, in both roles.
    Sub(usize),
}

impl Op {
    /// Whether the operation communicates (and so starts a state).
    pub fn is_comm(self) -> bool {
        !matches!(self, Op::Stmt(_))
    }
}

/// A state of the party: waiting at the communication operation `op` (None:
/// `Done`), carrying `vars`; its step starts with the statements from `entry`.
#[derive(Clone, Debug)]
pub struct PState {
    /// The state's type name.
    pub name: String,
    /// The index (into [`Plan::ops`]) of the operation it waits at.
    pub op: Option<usize>,
    /// The first operation of its step.
    pub entry: usize,
    /// The values it carries.
    pub vars: Vec<(String, Ty)>,
    /// Its doc comment.
    pub doc: String,
    /// The round whose own message the state carries (sent, not yet
    /// received from the others).
    pub own: Option<usize>,
    /// The checked round whose digests the state carries (received, not
    /// yet checked).
    pub digests: Option<usize>,
    /// Values held by one fixed party (an `Option`, `Some` only there).
    pub held: BTreeMap<String, usize>,
}

/// The party's projection, analysed.
#[derive(Clone, Debug)]
pub struct Plan {
    /// The party's operations in the order it runs them.
    pub ops: Vec<Op>,
    /// Values live after each operation.
    pub live_out: Vec<BTreeSet<String>>,
    /// Values held by one fixed party before each operation (and after the
    /// last): name -> that party.
    pub held: Vec<BTreeMap<String, usize>>,
    /// The party's states, `Done` last.
    pub states: Vec<PState>,
}

/// Whether round `r` is a broadcast the compiler checks.
pub fn checked(ir: &Ir, r: usize) -> bool {
    ir.rounds[r].party.is_some_and(PartyRound::checked)
}

/// The fixed party of round `r` (`P[0] -> all`, `P[0] -> P[j]`,
/// `P[j] -> P[0]`), if it has one.
pub fn fixed(ir: &Ir, r: usize) -> Option<usize> {
    ir.rounds[r].party.and_then(PartyRound::fixed_party)
}

/// Whether the dealer (the named role next to the party array) sends round
/// `r` (`Dealer -> P[j]`, `Dealer -> all`).
pub fn dealer_sends(ir: &Ir, r: usize) -> bool {
    matches!(
        ir.rounds[r].party,
        Some(
            PartyRound::FromOne { sender: DEALER }
                | PartyRound::FixedBroadcast { sender: DEALER, .. }
        )
    )
}

/// Whether the dealer receives round `r` (`P[j] -> Dealer`).
pub fn dealer_receives(ir: &Ir, r: usize) -> bool {
    ir.rounds[r].party == Some(PartyRound::ToOne { receiver: DEALER })
}

/// Whether event `k` is a statement of the dealer (`at Dealer`).
pub fn dealer_stmt(ir: &Ir, k: usize) -> bool {
    ir.party_fixed.stmts.get(&k) == Some(&DEALER)
}

/// The type of every value of the parties (`dealer`: of the dealer) that
/// its inputs and statements define (for the secret rule of code
/// generation, which leaves out the rounds' fields).
pub fn value_types(ir: &Ir, dealer: bool) -> BTreeMap<String, Ty> {
    let mut types: BTreeMap<String, Ty> = ir.inputs[usize::from(dealer)].iter().cloned().collect();
    for (k, e) in ir.events[0].iter().enumerate() {
        match e {
            Event::Stmt(TStmt::Assign(n, e)) if dealer_stmt(ir, k) == dealer => {
                types.insert(n.clone(), e.ty.clone());
            }
            Event::Sub(s) if !dealer => {
                for c in &ir.subs[*s].calls {
                    types.extend(c.outputs.iter().cloned());
                }
            }
            _ => {}
        }
    }
    types
}

/// Whether every party receives the array of what every party sent in
/// round `r` (all-to-all rounds, and the receiver of `P[j] -> P[0]`), rather
/// than one message of a fixed sender.
pub fn gathers(ir: &Ir, r: usize) -> bool {
    !matches!(
        ir.rounds[r].party,
        Some(
            PartyRound::FixedBroadcast { .. }
                | PartyRound::FromOne { .. }
                | PartyRound::Between { .. }
                | PartyRound::Ring { .. }
        )
    )
}

/// The number of parties as a shape.
pub fn parties(ir: &Ir) -> Shape {
    Shape::Param(ir.party_count.clone().unwrap_or_default())
}

/// The party's operations in the order it runs them: a checked broadcast's
/// digest exchange follows its round, or, when the party's next message does
/// not depend on that round (see `batch_checks`), the next send.
pub fn ops(ir: &Ir) -> Vec<Op> {
    let mut ops = projection(ir);
    batch_checks(ir, &mut ops);
    ops
}

/// Batching a broadcast check with the next round's messages: `Check(r)`
/// moves after the next `Send` when neither that message nor any statement
/// before it reads a value of round `r` (directly or through a value computed
/// from one), so every party writes its digests of round `r` and its next
/// message in one flight and reads both in the next. Sound because the moved
/// message is independent of round `r`'s values: whatever a party that
/// equivocated in round `r` receives early, it would have received in a run
/// where it broadcast consistently; nothing of round `r` is used before its
/// check. A per-party `check` statement reading round `r` before the send
/// keeps the exchange where it is.
fn batch_checks(ir: &Ir, ops: &mut Vec<Op>) {
    let mut c = 0;
    while c < ops.len() {
        if let Op::Check(r) = ops[c] {
            if let Some(s) = batchable(ir, ops, c, r) {
                ops.remove(c);
                ops.insert(s, Op::Check(r));
                c = s;
            }
        }
        c += 1;
    }
}

/// The index of the `Send` the check at `c` (of round `r`) can follow.
fn batchable(ir: &Ir, ops: &[Op], c: usize, r: usize) -> Option<usize> {
    // Rounds of one fixed party are not batched (their flights differ by party).
    if fixed(ir, r).is_some() {
        return None;
    }
    let mut tainted: BTreeSet<String> =
        ir.rounds[r].fields.iter().map(|(n, _)| n.clone()).collect();
    for (s, op) in ops.iter().enumerate().skip(c + 1) {
        let (uses, defs) = uses_defs(ir, *op);
        let reads = uses.iter().any(|u| tainted.contains(u));
        match op {
            Op::Stmt(k) => match &ir.events[0][*k] {
                Event::Stmt(TStmt::Assign(..)) if reads => tainted.extend(defs),
                Event::Stmt(TStmt::Assign(..)) => {
                    for d in &defs {
                        tainted.remove(d);
                    }
                }
                _ if reads => return None,
                _ => {}
            },
            // A chunked round's frames are its chunks: no digests ride on them.
            Op::Send(r2)
                if !reads && fixed(ir, *r2).is_none() && ir.rounds[*r2].chunk_by.is_none() =>
            {
                return Some(s)
            }
            _ => return None,
        }
    }
    None
}

/// Whether the check at operation `c` was batched with the send before it
/// (its digests go out with that send's messages).
pub fn check_batched(ops: &[Op], c: usize) -> bool {
    matches!(ops[c], Op::Check(_)) && c > 0 && matches!(ops[c - 1], Op::Send(_))
}

/// The party's projection with each check right after its round.
fn projection(ir: &Ir) -> Vec<Op> {
    let mut ops = vec![];
    for (k, e) in ir.events[0].iter().enumerate() {
        match e {
            Event::Stmt(_) if dealer_stmt(ir, k) => {}
            Event::Stmt(_) => ops.push(Op::Stmt(k)),
            Event::Send(r) => ops.push(Op::Send(*r)),
            Event::Sub(k) => ops.push(Op::Sub(*k)),
            Event::Recv(r) => {
                ops.push(Op::Recv(*r));
                if checked(ir, *r) {
                    ops.push(Op::Check(*r));
                }
            }
            _ => {}
        }
    }
    ops
}

/// Names read and defined by an operation of a party.
fn uses_defs(ir: &Ir, op: Op) -> (BTreeSet<String>, BTreeSet<String>) {
    uses_defs_of(ir, op, false)
}

/// Names read and defined by an operation of a party, or of the dealer
/// (`dealer`: the fields of the rounds it sends are its values).
pub fn uses_defs_of(ir: &Ir, op: Op, dealer: bool) -> (BTreeSet<String>, BTreeSet<String>) {
    let (mut uses, mut defs) = (BTreeSet::new(), BTreeSet::new());
    let fields = |r: usize| ir.rounds[r].fields.iter().map(|(n, _)| n.clone());
    match op {
        Op::Stmt(k) => match &ir.events[0][k] {
            Event::Stmt(TStmt::Assign(n, e)) => {
                e.locals(&mut uses);
                defs.insert(n.clone());
            }
            Event::Stmt(TStmt::Check(e, _, _)) => e.locals(&mut uses),
            _ => {}
        },
        Op::Send(r) if dealer_sends(ir, r) && !dealer => {}
        Op::Send(r) => uses.extend(fields(r)),
        Op::Recv(r) => defs.extend(fields(r)),
        Op::Check(_) => {}
        Op::Sub(k) => {
            for c in &ir.subs[k].calls {
                for a in &c.args {
                    a.locals(&mut uses);
                }
                defs.extend(c.outputs.iter().map(|(n, _)| n.clone()));
            }
        }
    }
    (uses, defs)
}

fn liveness(ir: &Ir, ops: &[Op]) -> Vec<BTreeSet<String>> {
    let mut live: BTreeSet<String> = ir.outputs[0].iter().map(|(n, _)| n.clone()).collect();
    let mut out = vec![BTreeSet::new(); ops.len()];
    for (i, op) in ops.iter().enumerate().rev() {
        out[i] = live.clone();
        let (uses, defs) = uses_defs(ir, *op);
        for d in &defs {
            live.remove(d);
        }
        live.extend(uses);
    }
    out
}

/// The state's name and doc comment.
fn state_name(ir: &Ir, op: Option<Op>) -> (String, String) {
    let p = &ir.roles[0];
    let round = |r: usize| {
        let rd = &ir.rounds[r];
        (
            rd.msg.clone(),
            format!("round `{}`, `{}`", rd.name, rd.location),
        )
    };
    match op {
        Some(Op::Send(r)) => {
            let (m, at) = round(r);
            (
                format!("Send{m}"),
                format!("`{p}[me]` is ready to send `{m}` ({at})."),
            )
        }
        Some(Op::Recv(r)) => {
            let (m, at) = round(r);
            (
                format!("Await{m}"),
                format!("`{p}[me]` waits for every other party's `{m}` ({at})."),
            )
        }
        Some(Op::Sub(k)) => {
            let sub = &ir.subs[k];
            (
                format!("Run{}", crate::case::camel(&sub.name)),
                format!(
                    "`{p}[me]` is ready to run `{}` (`{}`) with every other party, in both roles.",
                    sub.name, sub.func
                ),
            )
        }
        Some(Op::Check(r)) => {
            let (m, at) = round(r);
            (format!("Check{m}"), format!("`{p}[me]` has every `{m}` ({at}) and exchanges digests of them with every other party before using them."))
        }
        _ => (
            "Done".into(),
            format!("`{p}[me]` has finished; call `finish` for its output."),
        ),
    }
}

/// The types of the values after operations `..upto`.
fn types_upto(ir: &Ir, ops: &[Op], upto: usize) -> BTreeMap<String, Ty> {
    let mut types: BTreeMap<String, Ty> = ir.inputs[0].iter().cloned().collect();
    for op in &ops[..upto] {
        match op {
            Op::Stmt(k) => {
                if let Event::Stmt(TStmt::Assign(n, e)) = &ir.events[0][*k] {
                    types.insert(n.clone(), e.ty.clone());
                }
            }
            Op::Sub(k) => {
                for c in &ir.subs[*k].calls {
                    types.extend(c.outputs.iter().cloned());
                }
            }
            Op::Recv(r) => {
                for (n, t) in &ir.rounds[*r].fields {
                    let t = match gathers(ir, *r) {
                        true => Ty::Array(Box::new(t.clone()), parties(ir)),
                        false => t.clone(),
                    };
                    types.insert(n.clone(), t);
                }
            }
            _ => {}
        }
    }
    types
}

/// Values live before operation `i` (the outputs after the last one).
fn live_in(ir: &Ir, ops: &[Op], live_out: &[BTreeSet<String>], i: usize) -> BTreeSet<String> {
    match ops.get(i) {
        Some(op) => {
            let (uses, defs) = uses_defs(ir, *op);
            let mut l: BTreeSet<String> = live_out[i].difference(&defs).cloned().collect();
            l.extend(uses);
            l
        }
        None => ir.outputs[0].iter().map(|(n, _)| n.clone()).collect(),
    }
}

/// The values held by one fixed party before each operation (and after the
/// last one): its inputs, what `at P[0]` computes, what it alone receives.
fn holding(ir: &Ir, ops: &[Op]) -> Vec<BTreeMap<String, usize>> {
    let mut held = ir.party_fixed.inputs.clone();
    let mut out = vec![held.clone()];
    for op in ops {
        match op {
            Op::Stmt(k) => {
                if let Event::Stmt(TStmt::Assign(n, _)) = &ir.events[0][*k] {
                    match ir.party_fixed.stmts.get(k) {
                        Some(c) => held.insert(n.clone(), *c),
                        None => held.remove(n),
                    };
                }
            }
            Op::Recv(r) => {
                for (n, _) in &ir.rounds[*r].fields {
                    match ir.rounds[*r].party {
                        Some(
                            PartyRound::ToOne { receiver } | PartyRound::Between { receiver, .. },
                        ) => held.insert(n.clone(), receiver),
                        _ => held.remove(n),
                    };
                }
            }
            Op::Sub(k) => {
                for c in &ir.subs[*k].calls {
                    for (n, _) in &c.outputs {
                        held.remove(n);
                    }
                }
            }
            Op::Check(_) | Op::Send(_) => {}
        }
        out.push(held.clone());
    }
    out
}

/// The party's plan: operations, liveness, states.
pub fn plan(ir: &Ir) -> Plan {
    let ops = ops(ir);
    let live_out = liveness(ir, &ops);
    let held = holding(ir, &ops);
    let comm: Vec<usize> = (0..ops.len()).filter(|&i| ops[i].is_comm()).collect();
    let mut states = vec![];
    let mut deferred_from: Option<usize> = None;
    let (mut own, mut digests) = (None, None);
    for &c in comm.iter().chain(std::iter::once(&ops.len())) {
        let entry = deferred_from.unwrap_or(c);
        let live_in = live_in(ir, &ops, &live_out, entry);
        let types = types_upto(ir, &ops, entry);
        let vars: Vec<(String, Ty)> = live_in
            .iter()
            .filter_map(|n| types.get(n).map(|t| (n.clone(), t.clone())))
            .collect();
        let held_here = vars
            .iter()
            .filter_map(|(n, _)| held[entry].get(n).map(|c| (n.clone(), *c)))
            .collect();
        let op = ops.get(c).copied();
        let (name, doc) = state_name(ir, op);
        states.push(PState {
            name,
            op: op.map(|_| c),
            entry,
            vars,
            doc,
            own,
            digests,
            held: held_here,
        });
        match op {
            Some(Op::Send(r)) => own = Some(r),
            Some(Op::Recv(r)) => {
                own = None;
                digests = checked(ir, r).then_some(r);
            }
            Some(Op::Check(_)) => digests = None,
            _ => {}
        }
        deferred_from = match op {
            Some(Op::Send(_)) => Some(c + 1),
            Some(Op::Recv(r)) if checked(ir, r) => Some(c + 1),
            _ => None,
        };
    }
    Plan {
        ops,
        live_out,
        held,
        states,
    }
}
