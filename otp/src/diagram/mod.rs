//! `otp diagram`: a message-sequence chart of a protocol, merged from the
//! projections of its roles (the same `Ir::events` code generation uses):
//! lifelines per role, rounds as labelled arrows with message type and size,
//! chunked rounds marked, local computation and checks as notes,
//! sub-protocols as boxes. Rendered as SVG ([`svg`]) or text ([`text`]).

mod svg;
mod text;

use crate::cost::{msg_bytes, msg_formula};
use crate::params::{self, Env};
use crate::{load, Color, Fail};
use clap::ValueEnum;
use ot_compiler::ir::{Event, Ir, PartyRound, Stage, TStmt};
use ot_compiler::plan::message_layout;
use std::collections::BTreeSet;
use std::path::Path;

/// Output formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Format {
    /// Scalable vector graphics.
    Svg,
    /// Plain text.
    Text,
}

/// One row of the chart, top to bottom.
#[derive(Debug)]
pub enum Step {
    /// Local computation or checks of one role.
    Note {
        /// Lifeline index.
        role: usize,
        /// One line per value computed or check made.
        lines: Vec<String>,
    },
    /// A round's message.
    Arrow(Arrow),
    /// A sub-protocol call spanning all lifelines.
    Sub {
        /// `base: RandomOt (Sender = Receiver, ...)`.
        label: String,
    },
}

/// A round's message in the chart.
#[derive(Debug)]
pub struct Arrow {
    /// Sending lifeline.
    pub from: usize,
    /// Receiving lifeline.
    pub to: usize,
    /// `name: Msg { field: Type, ... }`.
    pub label: String,
    /// Size (`16 B`, `m * 16 B`) and how it travels (chunked, broadcast).
    pub detail: String,
    /// Whether it is sent in chunks (drawn dashed).
    pub chunked: bool,
}

/// The chart: lifeline names and rows.
#[derive(Debug)]
pub struct Chart {
    /// Title (protocol name).
    pub title: String,
    /// Lifeline names.
    pub roles: Vec<String>,
    /// Rows.
    pub steps: Vec<Step>,
}

/// Runs `otp diagram`.
pub fn run(
    file: &Path,
    output: Option<&Path>,
    format: Option<Format>,
    args: &[String],
    color: Color,
) -> Result<(), Fail> {
    let c = load::compile(file, color)?;
    let ir = c.ir.as_ref().ok_or_else(|| Fail("no protocol".into()))?;
    let env = params::parse_all(args, ir)?;
    let chart = chart(ir, &env);
    let format = format.unwrap_or(match output {
        Some(p) if p.extension().is_some_and(|e| e == "svg") => Format::Svg,
        _ => Format::Text,
    });
    let out = match format {
        Format::Svg => svg::render(&chart),
        Format::Text => text::render(&chart),
    };
    match output {
        Some(p) => std::fs::write(p, out)
            .map_err(|e| Fail(format!("cannot write `{}`: {e}", p.display())))?,
        None => print!("{out}"),
    }
    Ok(())
}

/// Builds the chart: each role advances through its projection until it
/// waits for a message not yet sent; a send is drawn when the sender reaches
/// it, so the rows follow the protocol's order.
pub fn chart(ir: &Ir, env: &Env) -> Chart {
    let party = ir.party_count.is_some();
    let roles: Vec<String> = if party {
        vec![
            format!("{}[i]", ir.roles[0]),
            format!("{}[j], j != i", ir.roles[0]),
        ]
    } else {
        ir.roles.clone()
    };
    let mut steps = vec![];
    let mut pos = vec![0usize; ir.events.len()];
    let mut sent = BTreeSet::new();
    let mut subs = BTreeSet::new();
    loop {
        let mut progress = false;
        for (r, (events, at)) in ir.events.iter().zip(pos.iter_mut()).enumerate() {
            let mut note = vec![];
            while let Some(ev) = events.get(*at) {
                match ev {
                    Event::Stmt(s) => {
                        // A step of one fixed party (`at P[0]`) says so.
                        let who = match ir.party_fixed.stmts.get(&*at) {
                            Some(c) => format!("at {}: ", crate::load::party_name(ir, *c)),
                            None => String::new(),
                        };
                        push_stmt(&mut note, s, &who)
                    }
                    Event::Send(k) => {
                        flush(&mut steps, r, &mut note);
                        steps.push(arrow(ir, *k, env, vec![]));
                        sent.insert(*k);
                    }
                    Event::Stream(st) if st.sending => {
                        flush(&mut steps, r, &mut note);
                        steps.push(arrow(ir, st.round, env, stages(&st.before)));
                        if !st.after.is_empty() {
                            note.push(format!("per chunk: {}", stages(&st.after).join(", ")));
                        }
                        sent.insert(st.round);
                    }
                    Event::Recv(k) | Event::Stream(ot_compiler::ir::Stream { round: k, .. })
                        if !sent.contains(k) =>
                    {
                        break
                    }
                    Event::Recv(_) => {}
                    Event::Stream(st) => {
                        if !st.after.is_empty() {
                            note.push(format!("per chunk: {}", stages(&st.after).join(", ")));
                        }
                    }
                    Event::Sub(k) => {
                        flush(&mut steps, r, &mut note);
                        if subs.insert(*k) {
                            steps.push(Step::Sub {
                                label: sub_label(ir, *k),
                            });
                        }
                    }
                }
                *at += 1;
                progress = true;
            }
            flush(&mut steps, r, &mut note);
        }
        let done = (0..ir.events.len()).all(|r| pos[r] >= ir.events[r].len());
        if done {
            break;
        }
        if !progress {
            // A projection the checker accepted always progresses; never loop.
            for (r, p) in pos.iter_mut().enumerate() {
                if *p < ir.events[r].len() {
                    *p += 1;
                    break;
                }
            }
        }
    }
    Chart {
        title: format!("protocol {}", ir.name),
        roles,
        steps,
    }
}

fn flush(steps: &mut Vec<Step>, role: usize, note: &mut Vec<String>) {
    if !note.is_empty() {
        steps.push(Step::Note {
            role,
            lines: std::mem::take(note),
        });
    }
}

/// Adds a statement to a note: consecutive values computed share a line
/// (`compute a, b, c`, at most about 40 characters), each check has its own;
/// `who` prefixes the line of one fixed party's step (`at P[0]: `).
fn push_stmt(note: &mut Vec<String>, s: &TStmt, who: &str) {
    let compute = format!("{who}compute ");
    match s {
        TStmt::Assign(name, _) => match note.last_mut() {
            Some(l) if l.starts_with(&compute) && l.len() + name.len() < 40 => {
                l.push_str(", ");
                l.push_str(name);
            }
            _ => note.push(format!("{compute}{name}")),
        },
        TStmt::Check(_, abort, text) => {
            let after = text.split_once("check ").map(|(_, c)| c).unwrap_or(text);
            let cond = after.split(" else").next().unwrap_or("").trim();
            note.push(format!("{who}check {cond} else abort {abort}"));
        }
    }
}

fn stages(s: &[Stage]) -> Vec<String> {
    s.iter().map(|s| s.name.clone()).collect()
}

fn arrow(ir: &Ir, k: usize, env: &Env, per_chunk: Vec<String>) -> Step {
    let r = &ir.rounds[k];
    let fields: Vec<String> = r.fields.iter().map(|(n, t)| format!("{n}: {t}")).collect();
    let layout = message_layout(r);
    let size = match msg_bytes(&layout, env) {
        Ok(b) => format!("{b} B"),
        Err(_) => format!("{} B", msg_formula(&layout)),
    };
    let mut detail = vec![size];
    if let Some(c) = &r.chunk_by {
        detail.push(format!("chunked by {c}"));
    }
    match r.party {
        Some(PartyRound::Broadcast { checked }) => detail.push(
            if checked {
                "broadcast to all, checked"
            } else {
                "broadcast to all"
            }
            .into(),
        ),
        Some(PartyRound::Private) => detail.push("its own to each".into()),
        Some(PartyRound::FixedBroadcast { sender, checked }) => detail.push(format!(
            "{} to all{}",
            fixed_party(ir, sender),
            if checked { ", checked" } else { "" }
        )),
        Some(PartyRound::FromOne { sender }) => {
            detail.push(format!("{} to each, its own", fixed_party(ir, sender)))
        }
        Some(PartyRound::ToOne { receiver }) => {
            detail.push(format!("each to {}", fixed_party(ir, receiver)))
        }
        Some(PartyRound::Between { sender, receiver }) => detail.push(format!(
            "{} to {}",
            fixed_party(ir, sender),
            fixed_party(ir, receiver)
        )),
        Some(PartyRound::Ring { step, mul, .. }) => {
            detail.push(format!("each to its neighbour {}", ring_target(step, mul)))
        }
        None => {}
    }
    if !per_chunk.is_empty() {
        detail.push(format!("per chunk: {}", per_chunk.join(", ")));
    }
    let (from, to) = if ir.party_count.is_some() {
        (0, 1)
    } else {
        (r.from, r.to)
    };
    Step::Arrow(Arrow {
        from,
        to,
        label: format!("{}: {} {{ {} }}", r.name, r.msg, fields.join(", ")),
        detail: detail.join("; "),
        chunked: r.chunk_by.is_some(),
    })
}

/// A fixed party in an arrow's detail: `party 0`, or the dealer's name.
fn fixed_party(ir: &Ir, c: usize) -> String {
    match c {
        ot_compiler::ir::DEALER => crate::load::party_name(ir, c),
        _ => format!("party {c}"),
    }
}

fn sub_label(ir: &Ir, k: usize) -> String {
    let s = &ir.subs[k];
    let map: Vec<String> = s
        .calls
        .iter()
        .map(|c| format!("{} = {}", c.func_role, ir.roles[c.role]))
        .collect();
    format!("sub-protocol {}: {} ({})", s.name, s.func, map.join(", "))
}

/// The receiver of a ring round, relative to the sender `i`.
pub(crate) fn ring_neighbour(step: i64) -> String {
    match step {
        s if s >= 0 => format!("(i + {s}) % n"),
        s => format!("(i + n - {}) % n", s.unsigned_abs()),
    }
}

/// The party a ring round of party `i` goes to: [`ring_neighbour`] for a
/// rotation, `(a * i + c) % n` for an affine map (`mul = a`).
pub(crate) fn ring_target(step: i64, mul: u64) -> String {
    match mul {
        1 => ring_neighbour(step),
        a => format!("({a} * i + {step}) % n"),
    }
}

/// The party a ring round of party `i` comes from: the inverse map.
pub(crate) fn ring_source(step: i64, inv: u64) -> String {
    match inv {
        1 => ring_neighbour(-step),
        b => format!("({b} * (i + n - {step})) % n"),
    }
}
