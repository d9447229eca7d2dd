//! The schedule of one role of a two-party protocol: the type of every
//! value, which values are live after each event, the role's states (one
//! per communication event, plus `Done`) with the values each carries, and
//! its secret values (see [`super::secrets`]).

use crate::case::camel;
use crate::ir::*;
use crate::types::Ty;
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Everything planned for one role.
#[derive(Clone, Debug)]
pub struct RolePlan {
    /// The type of every value the role holds at some point.
    pub types: BTreeMap<String, Ty>,
    /// Where each value is read for the last time.
    pub live: LastRead,
    /// The role's states, in order, `Done` last.
    pub states: Vec<StateInfo>,
    /// The values held in wiping wrappers.
    pub secrets: BTreeSet<String>,
}

impl RolePlan {
    /// Plans role `ri`.
    pub fn new(ir: &Ir, ri: usize) -> Self {
        let types = value_types(ir, ri);
        let live = last_reads(ir, ri);
        let states = states(ir, ri, &types, &live);
        let secrets = super::secrets::secrets(ir, &types);
        RolePlan {
            types,
            live,
            states,
            secrets,
        }
    }
}

/// One state of a role: the communication event it waits on (None: done).
#[derive(Clone, Debug)]
pub struct StateInfo {
    /// The state's type name (`AwaitExtend`, `SendPayload`, `Done`).
    pub name: String,
    /// The index of the communication event it waits on.
    pub event: Option<usize>,
    /// Index of the first event whose computation belongs to this state's
    /// step: right after a plain send (so the message is transmitted before
    /// the sender goes on computing), else the state's own event.
    pub entry: usize,
    /// Values carried in this state.
    pub vars: Vec<(String, Ty)>,
    /// Its doc comment.
    pub doc: String,
}

/// The type of every value role `ri` holds at some point.
pub fn value_types(ir: &Ir, ri: usize) -> BTreeMap<String, Ty> {
    let mut types: BTreeMap<String, Ty> = BTreeMap::new();
    for (n, t) in &ir.inputs[ri] {
        types.insert(n.clone(), t.clone());
    }
    for ev in &ir.events[ri] {
        match ev {
            Event::Stmt(TStmt::Assign(n, e)) => {
                types.insert(n.clone(), e.ty.clone());
            }
            Event::Recv(k) => {
                for (n, t) in &ir.rounds[*k].fields {
                    types.insert(n.clone(), t.clone());
                }
            }
            Event::Sub(k) => {
                for c in ir.subs[*k].calls.iter().filter(|c| c.role == ri) {
                    for (n, t) in &c.outputs {
                        types.insert(n.clone(), t.clone());
                    }
                }
            }
            Event::Stream(st) => {
                for stage in st.before.iter().chain(&st.after) {
                    types.insert(stage.name.clone(), stage.call.ty.clone());
                }
            }
            _ => {}
        }
    }
    types
}

/// The values a stream reads that it does not compute or receive itself.
fn stream_reads(ir: &Ir, st: &Stream) -> BTreeSet<String> {
    let mut used = BTreeSet::new();
    for stage in st.before.iter().chain(&st.after) {
        stage.call.locals(&mut used);
    }
    for stage in st.before.iter().chain(&st.after) {
        used.remove(&stage.name);
    }
    for (n, _) in &ir.rounds[st.round].fields {
        used.remove(n);
    }
    used
}

/// Which values role `ri` still reads after a point of its projection:
/// for each value, the index of the last event that reads it (outputs
/// count as read at the end, index `events.len()`). One entry per value,
/// so the analysis stays linear in the number of events.
#[derive(Clone, Debug)]
pub struct LastRead(HashMap<String, usize>);

impl LastRead {
    /// Whether `name` is read at or after event `k`.
    pub fn live_at(&self, k: usize, name: &str) -> bool {
        self.0.get(name).is_some_and(|&last| last >= k)
    }
}

/// The last read of every value of role `ri` (see [`LastRead`]).
pub fn last_reads(ir: &Ir, ri: usize) -> LastRead {
    let events = &ir.events[ri];
    let mut last: HashMap<String, usize> = ir.outputs[ri]
        .iter()
        .map(|(n, _)| (n.clone(), events.len()))
        .collect();
    let mut read = BTreeSet::new();
    for (k, ev) in events.iter().enumerate().rev() {
        match ev {
            Event::Stmt(TStmt::Assign(_, e)) | Event::Stmt(TStmt::Check(e, _, _)) => {
                e.locals(&mut read)
            }
            Event::Send(r) => read.extend(ir.rounds[*r].fields.iter().map(|(n, _)| n.clone())),
            Event::Sub(k) => {
                for c in ir.subs[*k].calls.iter().filter(|c| c.role == ri) {
                    c.args.iter().for_each(|a| a.locals(&mut read));
                }
            }
            Event::Stream(st) => read.extend(stream_reads(ir, st)),
            _ => {}
        }
        // Walking backwards, the first read seen is the last one.
        for n in std::mem::take(&mut read) {
            last.entry(n).or_insert(k);
        }
    }
    LastRead(last)
}

/// The name and doc comment of the state waiting on `event` (None: `Done`).
fn state_name(ir: &Ir, rname: &str, event: Option<&Event>) -> (String, String) {
    let round = match event {
        Some(Event::Send(r)) => Some((*r, true)),
        Some(Event::Recv(r)) => Some((*r, false)),
        Some(Event::Stream(st)) => Some((st.round, st.sending)),
        _ => None,
    };
    if let Some((r, sending)) = round {
        let rd = &ir.rounds[r];
        let (prefix, what) = if sending {
            ("Send", "is ready to send")
        } else {
            ("Await", "waits for")
        };
        return (
            format!("{prefix}{}", rd.msg),
            format!(
                "`{rname}` {what} `{}` (round `{}`, `{}`).",
                rd.msg, rd.name, rd.location
            ),
        );
    }
    match event {
        Some(Event::Sub(s)) => (
            format!("Run{}", camel(&ir.subs[*s].name)),
            format!("`{rname}` runs sub-protocol `{}`.", ir.subs[*s].name),
        ),
        _ => (
            "Done".to_string(),
            format!("`{rname}` has finished; call `finish` for its output."),
        ),
    }
}

/// Adds the values a communication event defines to `defined`.
fn define_event(ir: &Ir, ri: usize, event: Option<&Event>, defined: &mut BTreeSet<String>) {
    match event {
        Some(Event::Recv(r)) => {
            for (n, _) in &ir.rounds[*r].fields {
                defined.insert(n.clone());
            }
        }
        Some(Event::Sub(k)) => {
            for c in ir.subs[*k].calls.iter().filter(|c| c.role == ri) {
                defined.extend(c.outputs.iter().map(|(n, _)| n.clone()));
            }
        }
        Some(Event::Stream(st)) => {
            defined.extend(
                st.before
                    .iter()
                    .chain(&st.after)
                    .filter(|s| s.keep != Keep::Chunk)
                    .map(|s| s.name.clone()),
            );
        }
        _ => {}
    }
}

/// Adds the values assigned by the statements in `events` to `defined`.
fn define_stmts(events: &[Event], defined: &mut BTreeSet<String>) {
    for ev in events {
        if let Event::Stmt(TStmt::Assign(n, _)) = ev {
            defined.insert(n.clone());
        }
    }
}

/// The states of role `ri`, one per communication event, then `Done`.
pub fn states(ir: &Ir, ri: usize, types: &BTreeMap<String, Ty>, live: &LastRead) -> Vec<StateInfo> {
    let events = &ir.events[ri];
    let rname = &ir.roles[ri];
    let comm_idx: Vec<usize> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| !matches!(e, Event::Stmt(_)))
        .map(|(i, _)| i)
        .collect();
    let mut defined: BTreeSet<String> = ir.inputs[ri].iter().map(|(n, _)| n.clone()).collect();
    let mut states: Vec<StateInfo> = vec![];
    let mut cursor = 0;
    let mut prev_send: Option<usize> = None;
    for &ci in comm_idx.iter().chain(std::iter::once(&events.len())) {
        let entry = prev_send.map(|e| e + 1).unwrap_or(ci);
        define_stmts(&events[cursor..entry], &mut defined);
        // Entries only move forward, so a value not read at or after this
        // one is dead for good: dropping it keeps this loop linear.
        defined.retain(|n| live.live_at(entry, n));
        let vars: Vec<(String, Ty)> = defined
            .iter()
            .map(|n| (n.clone(), types.get(n).cloned().unwrap_or(Ty::Bit)))
            .collect();
        let (name, doc) = state_name(ir, rname, events.get(ci));
        define_event(ir, ri, events.get(ci), &mut defined);
        define_stmts(&events[entry..ci], &mut defined);
        states.push(StateInfo {
            name,
            event: events.get(ci).map(|_| ci),
            entry,
            vars,
            doc,
        });
        prev_send = match events.get(ci) {
            Some(Event::Send(_)) => Some(ci),
            _ => None,
        };
        cursor = ci + 1;
    }
    states
}
