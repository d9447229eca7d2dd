//! The run-wide memory bound of `Params::new`: per role, an upper bound of
//! the bytes it holds at once, checked against the memory budget.
//!
//! Each role's projection (a two-party role, the party of an n-party
//! protocol, its dealer) is cut at its communication events (sends,
//! receives, chunked rounds, sub-protocol calls) into windows `[c_j,
//! c_{j+1}]`; every step of the generated code runs within one window. A
//! value is alive from the event that defines it to the last event that
//! reads it (outputs to the end, inputs throughout: they are borrowed for
//! the whole run). At every event `k` of a window the bound is the sum of
//! the sizes of
//! - every value whose lifetime overlaps the window (the values the state
//!   carries into the step and all the step defines, as if none were
//!   dropped before the step ends),
//! - the temporaries of event `k`: each intermediate result of the
//!   expression it computes, a clone of a value that a kernel takes by
//!   value while it is still read later, the frame of a message sent or
//!   received (counted as the fields' in-memory size; `[field; n]` in an
//!   n-party protocol: a frame from or to every party), and in a chunked
//!   round the per-chunk buffers (sized by the round's `chunked(by = ..)`,
//!   not by its whole width; values kept whole count fully).
//!
//! The bound of a role is the largest of these sums; `Params::new` computes
//! it with checked arithmetic (an overflow is `Error::TooLarge` with no
//! figure, never a wrap). Sizes are those of the per-value checks
//! (code generation's `checked_bytes`): bit vectors and matrices by their bits, arrays
//! by their length times their element, any other type (an extern type
//! included) by its `size_of`. Heap memory an extern value owns (a big
//! integer's limbs, a `Vec`'s buffer) is counted where the intrinsic that
//! makes it declares `holding(bytes)`: the value (and each clone of it)
//! also holds `bytes`, with the call's arguments for the intrinsic's
//! parameters, for as long as it lives; a value of an intrinsic without
//! `holding`, an input or a sub-protocol's output counts its `size_of`
//! only. Not counted: the working
//! memory of kernels and of sub-protocols (a sub-protocol checks its own
//! parameters), channel buffers, allocator overhead, and sizes that depend
//! on a signature's shape name rather than a parameter.

use crate::ir::*;
use crate::types::{Shape, Ty};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// The bound of every role as a table of sizes and the points to sum.
#[derive(Clone, Debug, Default)]
pub struct Footprint {
    /// Distinct sizes the points add up.
    pub terms: Vec<Term>,
    /// The points where a role's holding is summed (dominated ones removed).
    pub points: Vec<Point>,
}

/// A size: a value of type `ty`; for the chunk of a chunked round,
/// `whole` is the type of the whole value, and the size is the smaller of
/// the two (the last chunk of a round narrower than `chunked(by = ..)` is
/// the round's width).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Term {
    /// The type whose in-memory size is counted.
    pub ty: Ty,
    /// For a chunk: the whole value's type (the size is the smaller).
    pub whole: Option<Ty>,
}

/// A point of a role's run: what it holds there, as counts of [`Footprint::terms`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Point {
    /// The role (as written, e.g. `Sender`, `P[i]`).
    pub role: String,
    /// Where in the run (the event).
    pub at: String,
    /// Term index -> how many values of that size.
    pub counts: BTreeMap<usize, usize>,
}

/// One event of a role's projection, as this analysis sees it.
enum Op<'a> {
    Stmt(&'a TStmt),
    /// Send of round `r`.
    Send(usize),
    /// Receive of round `r`; `gather`: one message from every party.
    Recv(usize, bool),
    Sub(usize),
    Stream(&'a Stream),
}

impl Op<'_> {
    fn is_comm(&self) -> bool {
        !matches!(self, Op::Stmt(_))
    }
}

/// A role's projection: its inputs, outputs and events.
struct View<'a> {
    role: String,
    /// The role's index in `Ir::roles` (the party's: 0).
    ri: usize,
    inputs: Vec<(String, Ty)>,
    outputs: Vec<String>,
    ops: Vec<Op<'a>>,
    /// The number of parties (n-party protocols): frames count `[field; n]`.
    parties: Option<Shape>,
}

/// The projections whose holdings are bounded: each two-party role; or the
/// party of an n-party protocol and its dealer if it has one.
fn views(ir: &Ir) -> Vec<View<'_>> {
    let Some(count) = &ir.party_count else {
        return (0..ir.roles.len())
            .map(|ri| View {
                role: ir.roles[ri].clone(),
                ri,
                inputs: ir.inputs[ri].clone(),
                outputs: ir.outputs[ri].iter().map(|(n, _)| n.clone()).collect(),
                ops: ir.events[ri]
                    .iter()
                    .map(|e| match e {
                        Event::Stmt(s) => Op::Stmt(s),
                        Event::Send(r) => Op::Send(*r),
                        Event::Recv(r) => Op::Recv(*r, false),
                        Event::Sub(k) => Op::Sub(*k),
                        Event::Stream(st) => Op::Stream(st),
                    })
                    .collect(),
                parties: None,
            })
            .collect();
    };
    use crate::plan::party::{dealer_receives, dealer_sends, dealer_stmt, gathers};
    let fixed = &ir.party_fixed;
    // The party's (`dealer` false) or the dealer's projection.
    let view = |dealer: bool, role: String| {
        let split = |vals: &[(String, Ty)], map: &BTreeMap<String, usize>| {
            vals.iter()
                .filter(|(n, _)| (map.get(n) == Some(&DEALER)) == dealer)
                .cloned()
                .collect::<Vec<_>>()
        };
        let ops = ir.events[0]
            .iter()
            .enumerate()
            .filter_map(|(k, e)| match (dealer, e) {
                (false, Event::Stmt(_)) if dealer_stmt(ir, k) => None,
                (false, Event::Stmt(s)) => Some(Op::Stmt(s)),
                (false, Event::Send(r)) => Some(Op::Send(*r)),
                (false, Event::Recv(r)) => Some(Op::Recv(*r, gathers(ir, *r))),
                (false, Event::Sub(s)) => Some(Op::Sub(*s)),
                (false, Event::Stream(st)) => Some(Op::Stream(st)),
                (true, Event::Stmt(s)) if dealer_stmt(ir, k) => Some(Op::Stmt(s)),
                (true, Event::Recv(r)) if dealer_sends(ir, *r) => Some(Op::Send(*r)),
                (true, Event::Send(r)) if dealer_receives(ir, *r) => Some(Op::Recv(*r, true)),
                _ => None,
            });
        View {
            role,
            ri: 0,
            inputs: split(&ir.inputs[0], &fixed.inputs),
            outputs: split(&ir.outputs[0], &fixed.outputs)
                .into_iter()
                .map(|(n, _)| n)
                .collect(),
            ops: ops.collect(),
            parties: Some(Shape::Param(count.clone())),
        }
    };
    let mut views = vec![view(false, format!("{}[i]", ir.roles[0]))];
    if let Some(dealer) = &ir.dealer {
        views.push(view(true, dealer.clone()));
    }
    views
}

/// The type of one chunk of a value of a chunked round of width `width`
/// (`by` columns or elements); other types are kept whole.
fn chunk_ty(t: &Ty, width: &Shape, by: &Shape) -> Term {
    let ty = match t {
        Ty::BitMatrix(r, c) if c == width => Ty::BitMatrix(r.clone(), by.clone()),
        Ty::Array(e, n) if n == width => Ty::Array(e.clone(), by.clone()),
        Ty::Bits(n) if n == width => Ty::Bits(by.clone()),
        _ => return whole(t),
    };
    Term {
        ty,
        whole: Some(t.clone()),
    }
}

/// The size of a whole value of type `t`.
fn whole(t: &Ty) -> Term {
    Term {
        ty: t.clone(),
        whole: None,
    }
}

/// A value's lifetime: defined at event `def`, last read at event `last`.
struct Life {
    ty: Ty,
    def: usize,
    last: usize,
}

/// What one event reads, defines and allocates for itself.
type Effects = (BTreeSet<String>, Vec<(String, Ty)>, Vec<Term>);

/// The analysis of one view: lifetimes and temporaries per event.
struct Analysis {
    lives: Vec<Life>,
    temps: Vec<Vec<Term>>,
}

fn analyse(ir: &Ir, v: &View) -> Analysis {
    let mut t = Tracker::new(v);
    // The reads and definitions of every event, first.
    let events: Vec<Effects> = v.ops.iter().map(|op| effects(ir, v, op)).collect();
    for (k, e) in events.into_iter().enumerate() {
        t.event(ir, v, k, e);
    }
    t.finish(v)
}

/// What one event reads, defines and allocates for itself.
fn effects(ir: &Ir, v: &View, op: &Op) -> Effects {
    let frame = |t: &Ty| match &v.parties {
        Some(n) => Ty::Array(Box::new(t.clone()), n.clone()),
        None => t.clone(),
    };
    let (mut reads, mut defs, mut tmp) = (BTreeSet::new(), vec![], vec![]);
    match op {
        Op::Stmt(TStmt::Assign(n, e)) => {
            e.locals(&mut reads);
            expr_temps(e, false, &mut tmp);
            defs.push((n.clone(), e.ty.clone()));
        }
        Op::Stmt(TStmt::Check(e, _, _)) => {
            e.locals(&mut reads);
            expr_temps(e, true, &mut tmp);
        }
        Op::Send(r) => {
            for (n, t) in &ir.rounds[*r].fields {
                reads.insert(n.clone());
                tmp.push(whole(&frame(t)));
            }
        }
        Op::Recv(r, gather) => {
            for (n, t) in &ir.rounds[*r].fields {
                tmp.push(whole(&frame(t)));
                let t = match (&v.parties, gather) {
                    (Some(_), true) => frame(t),
                    _ => t.clone(),
                };
                defs.push((n.clone(), t));
            }
        }
        Op::Sub(k) => {
            for c in ir.subs[*k].calls.iter().filter(|c| c.role == v.ri) {
                for a in &c.args {
                    a.locals(&mut reads);
                    expr_temps(a, true, &mut tmp);
                }
                defs.extend(c.outputs.iter().cloned());
            }
        }
        Op::Stream(st) => stream(ir, st, &mut reads, &mut defs, &mut tmp),
    }
    (reads, defs, tmp)
}

/// The lifetimes and temporaries of one view, built event by event.
struct Tracker {
    lives: Vec<Life>,
    /// The current definition of each value (its index in `lives`).
    current: HashMap<String, usize>,
    temps: Vec<Vec<Term>>,
    /// (event, life) of each value a kernel takes by value.
    clones: Vec<(usize, usize)>,
    /// A value's life -> the life of the heap it owns (`holding`).
    heaps: HashMap<usize, usize>,
}

impl Tracker {
    /// Inputs live through the whole run.
    fn new(v: &View) -> Self {
        let mut t = Tracker {
            lives: vec![],
            current: HashMap::new(),
            temps: vec![],
            clones: vec![],
            heaps: HashMap::new(),
        };
        for (n, ty) in &v.inputs {
            t.current.insert(n.clone(), t.lives.len());
            t.lives.push(Life {
                ty: ty.clone(),
                def: 0,
                last: v.ops.len(),
            });
        }
        t
    }

    /// Event `k`: extends the lives of what it reads, records the values a
    /// kernel takes by value, and starts the lives of what it defines (and
    /// of the heap a statement's value owns).
    fn event(&mut self, ir: &Ir, v: &View, k: usize, (reads, defs, mut tmp): Effects) {
        for n in &reads {
            if let Some(&d) = self.current.get(n) {
                self.lives[d].last = self.lives[d].last.max(k);
            }
        }
        if let Op::Stmt(TStmt::Assign(_, e) | TStmt::Check(e, _, _)) = &v.ops[k] {
            moved_locals(ir, e, &mut |n: &str| {
                if let Some(&d) = self.current.get(n) {
                    self.clones.push((k, d));
                }
            });
        }
        let assigned = match &v.ops[k] {
            Op::Stmt(st) => {
                let (own, temps) = heap_of(ir, st);
                tmp.extend(temps);
                match st {
                    TStmt::Assign(n, _) => own.map(|h| (n.clone(), h)),
                    TStmt::Check(..) => None,
                }
            }
            _ => None,
        };
        for (n, t) in defs {
            let heap = assigned
                .as_ref()
                .filter(|(a, _)| *a == n)
                .map(|(_, h)| h.clone());
            self.current.insert(n, self.lives.len());
            self.lives.push(Life {
                ty: t,
                def: k,
                last: k,
            });
            if let Some(h) = heap {
                self.heaps.insert(self.lives.len() - 1, self.lives.len());
                self.lives.push(Life {
                    ty: h,
                    def: k,
                    last: k,
                });
            }
        }
        self.temps.push(tmp);
    }

    /// Outputs live to the end; clones of values still read later are
    /// temporaries of their event; a heap lives as long as its value.
    fn finish(mut self, v: &View) -> Analysis {
        let end = v.ops.len();
        for n in &v.outputs {
            if let Some(&d) = self.current.get(n) {
                self.lives[d].last = end;
            }
        }
        // A value a kernel takes by value while it is still read later is
        // cloned for the call.
        for &(k, d) in &self.clones {
            if self.lives[d].last > k {
                self.temps[k].push(whole(&self.lives[d].ty));
                if let Some(&h) = self.heaps.get(&d) {
                    self.temps[k].push(whole(&self.lives[h].ty));
                }
            }
        }
        // The heap a value owns lives as long as the value.
        for (&d, &h) in &self.heaps {
            self.lives[h].last = self.lives[d].last;
        }
        Analysis {
            lives: self.lives,
            temps: self.temps,
        }
    }
}

/// Whether a type is a scalar (an integer or a bit): such temporaries live
/// in registers or on the stack and are not counted.
fn scalar(t: &Ty) -> bool {
    matches!(t, Ty::Bit) || t.is_int()
}

/// The intermediate results of `e` (`root`: `e`'s own value too).
fn expr_temps(e: &TExpr, root: bool, out: &mut Vec<Term>) {
    e.visit(&mut |x: &TExpr| {
        let leaf = matches!(
            x.kind,
            TExprKind::Local(_)
                | TExprKind::Param(_)
                | TExprKind::IndexVar(_)
                | TExprKind::Int(_)
                | TExprKind::Bool(_)
                | TExprKind::Shape(_)
        );
        if !leaf && !scalar(&x.ty) && (root || !std::ptr::eq(x, e)) {
            out.push(whole(&x.ty));
        }
    });
}

/// The heap memory statement `st` holds (`holding` of the intrinsics it
/// calls): its value's, as a `[u8; bytes]`, and its temporaries'.
fn heap_of(ir: &Ir, st: &TStmt) -> (Option<Ty>, Vec<Term>) {
    let bytes = |s: &Shape| Ty::Array(Box::new(Ty::U8), s.clone());
    match ir.heaps.iter().find(|(s, _)| s == st) {
        Some((_, h)) => (
            h.value.as_ref().map(bytes),
            h.temps.iter().map(|s| whole(&bytes(s))).collect(),
        ),
        None => (None, vec![]),
    }
}

/// Calls `f` on every value `e` passes by value to a kernel (`move`
/// parameters): a clone unless it is the value's last read.
fn moved_locals(ir: &Ir, e: &TExpr, f: &mut dyn FnMut(&str)) {
    e.visit(&mut |x: &TExpr| {
        if let TExprKind::Call(name, args) = &x.kind {
            let moves = ir.moved_args.get(name);
            for (i, a) in args.iter().enumerate() {
                let moved = moves.and_then(|m| m.get(i)).copied().unwrap_or(false);
                if let (true, TExprKind::Local(n)) = (moved, &a.kind) {
                    f(n);
                }
            }
        }
    });
}

/// A chunked round as one role runs it: what it reads from outside the
/// stream, what it keeps after it (values kept whole, reductions), and its
/// per-chunk buffers (each stage's chunk, the field's chunk and its frame).
fn stream(
    ir: &Ir,
    st: &Stream,
    reads: &mut BTreeSet<String>,
    defs: &mut Vec<(String, Ty)>,
    tmp: &mut Vec<Term>,
) {
    let rd = &ir.rounds[st.round];
    let mut own: BTreeSet<String> = rd.fields.iter().map(|(n, _)| n.clone()).collect();
    own.extend(st.before.iter().chain(&st.after).map(|s| s.name.clone()));
    let Some((_, fty)) = rd.fields.first() else {
        return;
    };
    let width = match fty {
        Ty::BitMatrix(_, c) => c.clone(),
        Ty::Array(_, n) => n.clone(),
        _ => Shape::Lit(0),
    };
    let by = rd.chunk_by.clone().unwrap_or(Shape::Lit(1));
    for stage in st.before.iter().chain(&st.after) {
        let mut used = BTreeSet::new();
        stage.call.locals(&mut used);
        reads.extend(used.into_iter().filter(|n| !own.contains(n)));
        match stage.keep {
            Keep::Chunk => tmp.push(chunk_ty(&stage.call.ty, &width, &by)),
            Keep::Whole | Keep::Fold => defs.push((stage.name.clone(), stage.call.ty.clone())),
        }
    }
    // The field's chunk as a value (received) and as a frame.
    if !st.sending {
        tmp.push(chunk_ty(fty, &width, &by));
    }
    tmp.push(chunk_ty(fty, &width, &by));
}

/// Where event `op` is, for the error message.
fn describe(ir: &Ir, op: &Op) -> String {
    match op {
        Op::Stmt(TStmt::Assign(n, _)) => format!("computing `{n}`"),
        Op::Stmt(TStmt::Check(_, abort, _)) => format!("checking before abort `{abort}`"),
        Op::Send(r) => format!("sending round `{}`", ir.rounds[*r].name),
        Op::Recv(r, _) => format!("receiving round `{}`", ir.rounds[*r].name),
        Op::Sub(k) => format!("sub-protocol `{}`", ir.subs[*k].name),
        Op::Stream(st) => format!("chunked round `{}`", ir.rounds[st.round].name),
    }
}

/// The bound of every role of `ir` (see the module documentation), with
/// the points no other point dominates.
pub fn footprint(ir: &Ir) -> Footprint {
    let mut fp = Footprint::default();
    for v in views(ir) {
        let a = analyse(ir, &v);
        view_points(ir, &v, &a, &mut fp);
    }
    keep_dominant(&mut fp);
    fp
}

/// The index of size `t` in `terms`, added if new.
fn term(t: &Term, terms: &mut Vec<Term>) -> usize {
    match terms.iter().position(|u| u == t) {
        Some(i) => i,
        None => {
            terms.push(t.clone());
            terms.len() - 1
        }
    }
}

/// Adds the points of one view: at every event of every window between two
/// communication events, the values alive in the window plus the event's
/// temporaries (sizes that depend on a signature's shape name rather than
/// a parameter are left out).
fn view_points(ir: &Ir, v: &View, a: &Analysis, fp: &mut Footprint) {
    let is_param = |p: &str| ir.params.iter().any(|q| q.name == p);
    let usable = |t: &Ty| {
        let mut ps = vec![];
        t.params_into(&mut ps);
        ps.iter().all(|p| is_param(p))
    };
    let end = v.ops.len();
    let mut cuts = vec![0];
    cuts.extend((0..end).filter(|&k| v.ops[k].is_comm()));
    cuts.push(end.saturating_sub(1));
    cuts.dedup();
    let windows: Vec<(usize, usize)> = match cuts.len() {
        1 => vec![(0, 0)],
        _ => cuts.windows(2).map(|w| (w[0], w[1])).collect(),
    };
    // The values alive in a window: a sweep over the windows in order,
    // adding values as their definition is reached and dropping them after
    // their last read (linear in values and windows; `base` counts the
    // alive values by size).
    let mut by_def: Vec<&Life> = a.lives.iter().filter(|l| usable(&l.ty)).collect();
    by_def.sort_by_key(|l| l.def);
    let mut next = 0;
    let mut alive: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    let mut base: BTreeMap<usize, usize> = BTreeMap::new();
    for (lo, hi) in windows {
        while let Some(l) = by_def.get(next).filter(|l| l.def <= hi) {
            let t = term(&whole(&l.ty), &mut fp.terms);
            *base.entry(t).or_default() += 1;
            alive.entry(l.last).or_default().push(t);
            next += 1;
        }
        while let Some(entry) = alive.first_entry().filter(|e| *e.key() < lo) {
            for t in entry.remove() {
                if let Some(c) = base.get_mut(&t) {
                    *c -= 1;
                    if *c == 0 {
                        base.remove(&t);
                    }
                }
            }
        }
        for k in lo..=hi.min(end.saturating_sub(1)) {
            let mut counts = base.clone();
            for t in a
                .temps
                .get(k)
                .into_iter()
                .flatten()
                .filter(|t| usable(&t.ty) && t.whole.as_ref().is_none_or(usable))
            {
                *counts.entry(term(t, &mut fp.terms)).or_default() += 1;
            }
            let at = v
                .ops
                .get(k)
                .map_or_else(|| "at the start".into(), |op| describe(ir, op));
            fp.points.push(Point {
                role: v.role.clone(),
                at,
                counts,
            });
        }
        if end == 0 {
            fp.points.push(Point {
                role: v.role.clone(),
                at: "at the start".into(),
                counts: base.clone(),
            });
        }
    }
}

/// Keeps only the points whose sum depends on the parameters, and of those
/// only the ones no other point holds at least as much as; then only the
/// sizes the remaining points add up.
fn keep_dominant(fp: &mut Footprint) {
    let depends = |t: &Ty| {
        let mut ps = vec![];
        t.params_into(&mut ps);
        !ps.is_empty()
    };
    let terms = &fp.terms;
    fp.points
        .retain(|p| p.counts.keys().any(|&i| depends(&terms[i].ty)));
    let covers = |q: &Point, p: &Point| {
        p.counts
            .iter()
            .all(|(i, c)| q.counts.get(i).is_some_and(|d| d >= c))
    };
    // Equal points: the first stands for the others (as the tie-break
    // below would keep it), so the quadratic comparison runs over the
    // distinct ones only.
    let mut seen = BTreeSet::new();
    let all: Vec<Point> = std::mem::take(&mut fp.points)
        .into_iter()
        .filter(|p| seen.insert(p.counts.clone()))
        .collect();
    for (i, p) in all.iter().enumerate() {
        let dominated = all
            .iter()
            .enumerate()
            .any(|(j, q)| j != i && covers(q, p) && (!covers(p, q) || j < i));
        if !dominated {
            fp.points.push(p.clone());
        }
    }
    let used: BTreeSet<usize> = fp
        .points
        .iter()
        .flat_map(|p| p.counts.keys().copied())
        .collect();
    let index: BTreeMap<usize, usize> = used.iter().enumerate().map(|(j, &i)| (i, j)).collect();
    fp.terms = used.iter().map(|&i| fp.terms[i].clone()).collect();
    for p in &mut fp.points {
        p.counts = p.counts.iter().map(|(i, c)| (index[i], *c)).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    fn footprint_of(src: &str) -> Footprint {
        let c = crate::compile_str("p.otp", src, Path::new("."))
            .unwrap_or_else(|f| panic!("{}", f.render()));
        footprint(c.ir.as_ref().expect("ir"))
    }

    /// Bytes of a type with every parameter equal to `m` (checked).
    fn bytes(t: &Ty, m: u128) -> Option<u128> {
        fn len(s: &Shape, m: u128) -> Option<u128> {
            match s {
                Shape::Lit(v) => Some(*v),
                Shape::Param(_) => Some(m),
                Shape::Bin(op, a, b) => {
                    let (a, b) = (len(a, m)?, len(b, m)?);
                    match op {
                        '+' => a.checked_add(b),
                        '-' => a.checked_sub(b),
                        '*' => a.checked_mul(b),
                        '/' => a.checked_div(b),
                        '<' => a.checked_shl(u32::try_from(b).ok()?),
                        _ => a.checked_rem(b),
                    }
                }
            }
        }
        match t {
            Ty::Bits(n) => Some(len(n, m)?.div_ceil(8)),
            Ty::BitMatrix(r, c) => len(r, m)?.checked_mul(len(c, m)?.div_ceil(128) * 16),
            Ty::Array(e, n) => len(n, m)?.checked_mul(bytes(e, m)?),
            Ty::Block | Ty::Seed => Some(16),
            Ty::U8 => Some(1),
            Ty::Extern(..) => Some(0),
            _ => panic!("no size for {t}"),
        }
    }

    /// Each role's bound: the largest sum over its points.
    fn peaks(fp: &Footprint, m: u128) -> BTreeMap<String, Option<u128>> {
        let mut out: BTreeMap<String, Option<u128>> = BTreeMap::new();
        for p in &fp.points {
            let sum = p.counts.iter().try_fold(0u128, |acc, (&i, &c)| {
                let t = &fp.terms[i];
                let b = match &t.whole {
                    None => bytes(&t.ty, m)?,
                    Some(w) => bytes(&t.ty, m)?.min(bytes(w, m).unwrap_or(u128::MAX)),
                };
                acc.checked_add(b.checked_mul(c as u128)?)
            });
            let e = out.entry(p.role.clone()).or_insert(Some(0));
            *e = match (*e, sum) {
                (Some(a), Some(b)) => Some(a.max(b)),
                _ => None,
            };
        }
        out
    }

    const THREE: &str = "protocol Three(role A, role B) {\n\
        param m: usize;\n\
        input  A { x: Bits[m] }\n\
        output A { y: Bits[m] }\n\
        output B { z: [Block; m] }\n\
        round one: A -> B : One { u: Bits[m] } { at A { u = x ^ x; } }\n\
        at B { w = sample [Block; m]; }\n\
        round two: B -> A : Two { v: Bits[m] } { at B { v = u ^ u; } }\n\
        at B { z = w; }\n\
        at A { y = v ^ x; }\n\
    }\n";

    /// A three-step protocol, by hand with `b = m / 8` (a `Bits[m]`) and
    /// `B = 16 m` (a `[Block; m]`). `A` (`u = x ^ x`, send `one`, receive
    /// `two`, `y = v ^ x`): between `one` and `two` it holds `x`, `u` (its
    /// state), `v` and a frame: `4 b`. `B` (receive `one`, sample `w`,
    /// `v = u ^ u`, send `two`, `z = w`): up to the send `u`, `w`, `v` and
    /// a frame (`3 b + B`); from the send on `w`, `v`, `z` (a clone of `w`)
    /// and the frame of `two`: `2 b + 2 B`.
    #[test]
    fn three_step_bound_is_the_hand_sum() {
        let fp = footprint_of(THREE);
        for m in [8u128, 1024, 1 << 20] {
            let (b, blocks) = (m / 8, 16 * m);
            let p = peaks(&fp, m);
            assert_eq!(p["A"], Some(4 * b), "{fp:#?}");
            assert_eq!(p["B"], Some(2 * b + 2 * blocks), "{fp:#?}");
        }
    }

    /// A chunked round's per-chunk buffers are sized by the chunk, not the
    /// whole width, and the bound holds a point per step.
    #[test]
    fn chunked_rounds_count_the_chunk() {
        let src = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocols/iknp.otp"),
        )
        .expect("iknp.otp");
        let c = crate::compile_path(
            "protocols/iknp.otp",
            &Path::new(env!("CARGO_MANIFEST_DIR")).join(".."),
        )
        .unwrap_or_else(|f| panic!("{}", f.render()));
        let fp = footprint(c.ir.as_ref().expect("ir"));
        assert!(src.contains("chunked"));
        let chunk_terms: Vec<&Term> = fp.terms.iter().filter(|t| t.whole.is_some()).collect();
        assert!(!chunk_terms.is_empty(), "{:#?}", fp.terms);
        assert!(!fp.points.is_empty());
        for p in &fp.points {
            assert!(p.role == "Sender" || p.role == "Receiver", "{p:?}");
        }
    }

    const HOLDING: &str = "extern type Big = ::k::Big;\n\
        intrinsic grow(x: [Block; N], count: usize) -> Big holding(count * 100 + N) = ::k::grow;\n\
        intrinsic shrink(b: Big) -> [Block; 1] = ::k::shrink;\n\
        protocol Held(role A, role B) {\n\
        param m: usize;\n\
        input  A { x: [Block; m] }\n\
        output A { y: [Block; 1] }\n\
        output B { z: Bits[m] }\n\
        at A { big = grow(x, 3 * m); }\n\
        round one: A -> B : One { u: Bits[m] } { at A { u = sample Bits[m]; } }\n\
        at B { z = u; }\n\
        at A { y = shrink(big); }\n\
    }\n";

    /// `holding(bytes)` is counted for as long as the value lives: `A`
    /// holds `big` (`300 m + m` with `N = m`) from its call to its last
    /// read, beside everything else it holds then; without the annotation
    /// the extern value counts nothing (its `size_of` is not a parameter's).
    #[test]
    fn holding_is_counted_while_the_value_lives() {
        let held = footprint_of(HOLDING);
        let bare = footprint_of(&HOLDING.replace(" holding(count * 100 + N)", ""));
        for m in [8u128, 1024, 1 << 20] {
            let with = peaks(&held, m)["A"].expect("bounded");
            let without = peaks(&bare, m)["A"].expect("bounded");
            assert_eq!(with - without, 301 * m, "{held:#?}");
            assert!(without >= 16 * m, "{bare:#?}");
        }
    }

    /// A `holding` that names a value the parameters do not give, or
    /// something other than a size, is a located error.
    #[test]
    fn holding_must_be_known_from_the_parameters() {
        let bad_name = HOLDING.replace("count * 100 + N", "count * k");
        let e = crate::compile_str("p.otp", &bad_name, Path::new("."))
            .err()
            .expect("refused");
        assert!(
            e.render().contains("`holding` may name only"),
            "{}",
            e.render()
        );
        let runtime_arg = HOLDING
            .replace("grow(x, 3 * m)", "grow(x, shrink_len(x))")
            .replace(
                "intrinsic shrink(",
                "intrinsic shrink_len(x: [Block; N]) -> usize = ::k::len;\nintrinsic shrink(",
            );
        let e = crate::compile_str("p.otp", &runtime_arg, Path::new("."))
            .err()
            .expect("refused");
        assert!(e.render().contains("needs this argument"), "{}", e.render());
    }
}
