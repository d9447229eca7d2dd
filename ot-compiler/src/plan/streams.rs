//! Lowering of `chunked(by = C)` rounds into [`Stream`]s (DESIGN "fast by
//! construction").
//!
//! On each side, every computation that can run chunk by chunk is pulled
//! into the loop over chunks as a [`Stage`]: a call of an intrinsic with a
//! `chunked` (streamed) kernel that reads a streamed value (directly, as an argument),
//! or that produces a matrix or array of the round's width, and whose other
//! inputs are known before the round. The sender's field must be such a
//! stage; it is sent as soon as its chunk is computed, and the stages after
//! it (its own post-processing, e.g. transposing and hashing) run while the
//! peer consumes that chunk. A streamed value that is an output or is read
//! after the round is assembled in place; any other exists one chunk at a
//! time, so neither side holds the whole field or its intermediates.

use crate::diag::Diagnostic;
use crate::ir::{Event, Ir, IrRound, Keep, Stage, Stream, TExpr, TExprKind, TStmt};
use crate::types::{Shape, Ty};
use std::collections::{BTreeSet, HashMap, HashSet};

type R<T> = Result<T, Diagnostic>;

/// Rewrites, in every role's events, the send or receive of each chunked
/// round into a [`Event::Stream`] with the stages that run inside it.
pub fn lower_chunked_rounds(ir: &mut Ir) -> R<()> {
    let chunked_fields: Vec<(usize, String)> = ir
        .rounds
        .iter()
        .enumerate()
        .filter(|(_, r)| r.chunk_by.is_some() && r.fields.len() == 1)
        .map(|(k, r)| (k, r.fields[0].0.clone()))
        .collect();
    for k in 0..ir.rounds.len() {
        let Some(by) = ir.rounds[k].chunk_by.clone() else {
            continue;
        };
        // An n-party round is chunked as frames by its driver
        // (`codegen::party::driver`), not lowered into a stream.
        if ir.rounds[k].party.is_some() {
            continue;
        }
        let round = RoundCtx::new(ir, k, by)?;
        // Fields of the other chunked rounds are computed by their own streams.
        let other_fields: HashSet<&str> = chunked_fields
            .iter()
            .filter(|(j, _)| *j != k)
            .map(|(_, f)| f.as_str())
            .collect();
        for (role, sending) in [(round.round.from, true), (round.round.to, false)] {
            if let Some(events) = round.lower_side(ir, role, sending, &other_fields)? {
                ir.events[role] = events;
            }
        }
    }
    Ok(())
}

/// One chunked round being lowered: its single field and the stream's width.
struct RoundCtx {
    k: usize,
    round: IrRound,
    field: String,
    fty: Ty,
    /// The stream's width: matrix columns or array elements.
    cols: Shape,
    /// The intrinsics with a chunked variant, for help texts.
    chunkable: String,
    protocol: String,
}

/// Which events of a role's projection a stream takes over.
struct Hoisted {
    before: Vec<Stage>,
    after: Vec<Stage>,
    /// Indices of the hoisted statements in the role's events.
    indices: Vec<usize>,
    streamed: HashMap<String, Ty>,
}

impl RoundCtx {
    /// Checks the round's shape (one chunkable field, a valid chunk size).
    fn new(ir: &Ir, k: usize, by: Shape) -> R<Self> {
        let round = ir.rounds[k].clone();
        let chunkable: Vec<String> = ir.chunk_paths.keys().map(|n| format!("`{n}`")).collect();
        let mut ctx = RoundCtx {
            k,
            field: String::new(),
            fty: Ty::Bit,
            cols: Shape::Lit(0),
            chunkable: chunkable.join(", "),
            protocol: ir.name.clone(),
            round,
        };
        let [(field, fty)] = ctx.round.fields.as_slice() else {
            return Err(ctx.error(
                format!(
                    "chunked round `{}` carries {} fields; a chunked round carries exactly one",
                    ctx.round.name,
                    ctx.round.fields.len()
                ),
                "send the other values in their own round".into(),
            ));
        };
        let (field, fty) = (field.clone(), fty.clone());
        let (cols, is_matrix) = match &fty {
            Ty::BitMatrix(_, c) => (c.clone(), true),
            Ty::Array(elem, n) if n.small().is_none() && elem.is_fixed_wire() => (n.clone(), false),
            _ => {
                return Err(ctx.error(
                    format!("field `{field}: {fty}` of chunked round `{}` cannot be chunked", ctx.round.name),
                    "`BitMatrix[rows, cols]` fields are streamed by columns and arrays `[T; n]` of fixed-size elements by elements".into(),
                ))
            }
        };
        let by_ok = match by.lit() {
            Some(v) if is_matrix => v > 0 && v % 128 == 0,
            Some(v) => v > 0,
            None => false,
        };
        if !by_ok {
            return Err(ctx.error(
                format!(
                    "chunk size `{by}` of round `{}` must be a positive constant{}",
                    ctx.round.name,
                    if is_matrix { " multiple of 128" } else { "" }
                ),
                "write e.g. `chunked(by = 65536)`".into(),
            ));
        }
        (ctx.field, ctx.fty, ctx.cols) = (field, fty, cols);
        Ok(ctx)
    }

    /// An error at the round's name.
    fn error(&self, msg: String, help: String) -> Diagnostic {
        Diagnostic::error(self.round.name_span, msg)
            .with_help(help)
            .with_context(format!(
                "in round `{}` of protocol `{}`",
                self.round.name, self.protocol
            ))
    }

    /// The role's events with the round's send (or receive) replaced by its
    /// stream; `None` if the role does not take part.
    fn lower_side(
        &self,
        ir: &Ir,
        role: usize,
        sending: bool,
        other_fields: &HashSet<&str>,
    ) -> R<Option<Vec<Event>>> {
        let ev = &ir.events[role];
        let Some(pos) = ev.iter().position(|e| match e {
            Event::Send(i) => sending && *i == self.k,
            Event::Recv(i) => !sending && *i == self.k,
            _ => false,
        }) else {
            return Ok(None);
        };
        // A sender's stages start after its last non-local event before the send.
        let seg_start = if sending {
            ev[..pos]
                .iter()
                .rposition(|e| !matches!(e, Event::Stmt(_)))
                .map_or(0, |i| i + 1)
        } else {
            pos
        };
        let hoisted = self.hoist(ir, role, sending, pos, seg_start, other_fields);
        self.check_hoisted(ir, role, sending, pos, seg_start, &hoisted)?;
        let Hoisted {
            mut before,
            mut after,
            indices,
            ..
        } = hoisted;
        let mut ev = ev.clone();
        for &i in indices.iter().rev() {
            ev.remove(i);
        }
        let pos = pos - indices.iter().filter(|&&i| i < pos).count();
        self.keep_whole(ir, role, sending, &ev[pos + 1..], &mut before, &mut after)?;
        ev[pos] = Event::Stream(Stream {
            round: self.k,
            sending,
            before,
            after,
        });
        Ok(Some(ev))
    }

    /// Picks the statements around the send (or receive) that can run chunk
    /// by chunk, in order.
    fn hoist(
        &self,
        ir: &Ir,
        role: usize,
        sending: bool,
        pos: usize,
        seg_start: usize,
        other_fields: &HashSet<&str>,
    ) -> Hoisted {
        let ev = &ir.events[role];
        let mut known = defined_before(ir, role, pos);
        let mut h = Hoisted {
            before: vec![],
            after: vec![],
            indices: vec![],
            streamed: HashMap::new(),
        };
        if !sending {
            h.streamed.insert(self.field.clone(), self.fty.clone());
        }
        for (i, e) in ev.iter().enumerate() {
            if i < seg_start || i == pos {
                continue;
            }
            let Event::Stmt(TStmt::Assign(name, call)) = e else {
                continue;
            };
            if i > pos && other_fields.contains(name.as_str()) {
                continue;
            }
            if i < pos {
                known.remove(name);
            }
            let Some(fold) = stage_kind(ir, call, &self.cols, &h.streamed, &known) else {
                if i < pos {
                    known.insert(name.clone());
                }
                continue;
            };
            let stage = Stage {
                name: name.clone(),
                call: call.clone(),
                keep: if fold { Keep::Fold } else { Keep::Chunk },
            };
            if !fold {
                h.streamed.insert(name.clone(), call.ty.clone());
            }
            if i < pos {
                h.before.push(stage);
            } else {
                h.after.push(stage);
            }
            h.indices.push(i);
        }
        h
    }

    /// The sender's field is a stage, and nothing computed before the round
    /// outside the stream reads a streamed value.
    fn check_hoisted(
        &self,
        ir: &Ir,
        role: usize,
        sending: bool,
        pos: usize,
        seg_start: usize,
        h: &Hoisted,
    ) -> R<()> {
        let (ev, field, round) = (&ir.events[role], &self.field, &self.round.name);
        let role_name = &ir.roles[role];
        if sending && !h.before.iter().any(|s| &s.name == field) {
            let defined_here = ev[seg_start..pos]
                .iter()
                .any(|e| matches!(e, Event::Stmt(TStmt::Assign(n, _)) if n == field));
            return Err(if defined_here {
                self.error(
                    format!("`{field}` of chunked round `{round}` must be computed by one call of an intrinsic with a `chunked` variant (without `sample` in its arguments), from values known before the round or computed chunk by chunk"),
                    format!("intrinsics with a chunked variant: {}", self.chunkable),
                )
            } else {
                self.error(
                    format!("`{field}` of chunked round `{round}` must be computed by `{role_name}` in this protocol"),
                    "compute it with one call of an intrinsic that has a `chunked` variant".into(),
                )
            });
        }
        // What is computed before the round cannot wait for its chunks.
        for (i, e) in ev.iter().enumerate().take(pos).skip(seg_start) {
            if h.indices.contains(&i) {
                continue;
            }
            if let Some(n) = h.streamed.keys().find(|n| event_mentions(e, n)) {
                return Err(self.error(
                    format!("`{role_name}` reads `{n}`, which is computed chunk by chunk for round `{round}`, in a computation that cannot run chunk by chunk"),
                    format!("pass it directly to intrinsics with a `chunked` variant ({})", self.chunkable),
                ));
            }
        }
        Ok(())
    }

    /// Marks [`Keep::Whole`] the stages whose value is an output or read
    /// after the stream (`rest`); the field itself may not be.
    fn keep_whole(
        &self,
        ir: &Ir,
        role: usize,
        sending: bool,
        rest: &[Event],
        before: &mut [Stage],
        after: &mut [Stage],
    ) -> R<()> {
        let (field, round) = (&self.field, &self.round.name);
        let role_name = &ir.roles[role];
        let outputs: HashSet<&str> = ir.outputs[role].iter().map(|(n, _)| n.as_str()).collect();
        let read_later =
            |n: &str| outputs.contains(n) || rest.iter().any(|e| event_reads(e, n, ir, role));
        if read_later(field) {
            return Err(self.error(
                if sending {
                    format!("`{role_name}` uses `{field}` besides sending it in chunked round `{round}`")
                } else {
                    format!("`{role_name}` uses `{field}` of chunked round `{round}` in a computation that cannot run chunk by chunk")
                },
                format!("a streamed field exists only chunk by chunk: pass it directly to intrinsics with a `chunked` variant ({}) whose other arguments are known before the round", self.chunkable),
            ));
        }
        for stage in before.iter_mut().chain(after.iter_mut()) {
            if stage.keep == Keep::Fold || &stage.name == field || !read_later(&stage.name) {
                continue;
            }
            if matches!(stage.call.ty, Ty::BitMatrix(..)) {
                return Err(self.error(
                    format!("`{role_name}` reads the whole of `{}` after chunked round `{round}`, but a matrix computed chunk by chunk exists only one chunk at a time", stage.name),
                    "compute what you need from it chunk by chunk as well (e.g. its columns with `transpose_columns`)".into(),
                ));
            }
            stage.keep = Keep::Whole;
        }
        Ok(())
    }
}

/// Whether a local statement reads value `name`.
fn event_mentions(e: &Event, name: &str) -> bool {
    match e {
        Event::Stmt(TStmt::Assign(_, x)) | Event::Stmt(TStmt::Check(x, _, _)) => x.mentions(name),
        _ => false,
    }
}

/// Whether `call` can run chunk by chunk in a stream of width `cols`, given
/// the values streamed so far and those known before the stream: `Some(true)`
/// for a `Block` reduction, `Some(false)` for a chunked array or matrix.
fn stage_kind(
    ir: &Ir,
    call: &TExpr,
    cols: &Shape,
    streamed: &HashMap<String, Ty>,
    known: &HashSet<String>,
) -> Option<bool> {
    let TExprKind::Call(path, args) = &call.kind else {
        return None;
    };
    if !ir.chunk_paths.contains_key(path)
        || ir
            .moved_args
            .get(path)
            .is_some_and(|m| m.iter().any(|x| *x))
        || args.iter().any(TExpr::samples)
    {
        return None;
    }
    let mut reads_stream = false;
    for a in args {
        if let TExprKind::Local(n) = &a.kind {
            if streamed.contains_key(n) {
                reads_stream = true;
                continue;
            }
        }
        if streamed.keys().any(|n| a.mentions(n)) {
            return None;
        }
        if matches!(&a.ty, Ty::BitMatrix(_, c) if c == cols) {
            return None;
        }
        let mut locals = BTreeSet::new();
        a.locals(&mut locals);
        if !locals.iter().all(|n| known.contains(n)) {
            return None;
        }
    }
    match &call.ty {
        Ty::BitMatrix(_, c) if c == cols => Some(false),
        Ty::Array(_, n) if reads_stream || n == cols => Some(false),
        Ty::Block if reads_stream => Some(true),
        _ => None,
    }
}

/// The values a role has before event `pos`: its inputs, what it computed
/// or received, sub-protocol outputs, and what earlier streams kept whole.
fn defined_before(ir: &Ir, role: usize, pos: usize) -> HashSet<String> {
    let mut defined: HashSet<String> = ir.inputs[role].iter().map(|(n, _)| n.clone()).collect();
    for e in &ir.events[role][..pos] {
        match e {
            Event::Stmt(TStmt::Assign(n, _)) => {
                defined.insert(n.clone());
            }
            Event::Recv(r) => defined.extend(ir.rounds[*r].fields.iter().map(|(n, _)| n.clone())),
            Event::Sub(s) => {
                for c in ir.subs[*s].calls.iter().filter(|c| c.role == role) {
                    defined.extend(c.outputs.iter().map(|(n, _)| n.clone()));
                }
            }
            Event::Stream(st) => defined.extend(
                st.before
                    .iter()
                    .chain(&st.after)
                    .filter(|s| s.keep != Keep::Chunk)
                    .map(|s| s.name.clone()),
            ),
            Event::Send(_) | Event::Stmt(TStmt::Check(..)) => {}
        }
    }
    defined
}

/// Whether an event reads value `name`.
fn event_reads(e: &Event, name: &str, ir: &Ir, role: usize) -> bool {
    match e {
        Event::Stmt(_) => event_mentions(e, name),
        Event::Send(r) => ir.rounds[*r].fields.iter().any(|(n, _)| n == name),
        Event::Sub(s) => ir.subs[*s]
            .calls
            .iter()
            .filter(|c| c.role == role)
            .any(|c| c.args.iter().any(|a| a.mentions(name))),
        Event::Recv(_) => false,
        Event::Stream(st) => st
            .before
            .iter()
            .chain(&st.after)
            .any(|s| s.call.mentions(name)),
    }
}
