//! `otp cost`: rounds, messages and bytes each way for given parameters.
//!
//! A message's size is the sum of its fields' encoded lengths, computed
//! exactly as the generated `msgs::*::wire_len` computes it (the same rules
//! as the compiler's wire codec: `Bits[n]` is `ceil(n/8)` bytes, a
//! `BitMatrix[r, c]` is `r * ceil(c/128)` blocks, ...), and the totals are
//! the sums the generated `comm()` adds up (tested against it).

use crate::check::plural;
use crate::load::party_name;
use crate::params::{self, Env};
use crate::{load, Color, Fail};
use ot_compiler::ir::{Ir, IrRound, PartyRound, DEALER};
use ot_compiler::plan::Plan;
use ot_compiler::types::{Shape, Ty, WireLen};
use serde_json::json;
use std::path::Path;

/// Bytes of a broadcast-consistency digest (the n-party driver's check).
const DIGEST_LEN: u128 = ot::runtime::transport::mpc::DIGEST_LEN as u128;

/// The value of a shape, or the missing parameter's name.
pub fn shape(s: &Shape, env: &Env) -> Result<u128, String> {
    Ok(match s {
        Shape::Lit(v) => *v,
        Shape::Param(p) => *env.get(p).ok_or_else(|| p.clone())?,
        Shape::Bin(op, a, b) => {
            let (a, b) = (shape(a, env)?, shape(b, env)?);
            match op {
                '+' => a.wrapping_add(b),
                '-' => a.wrapping_sub(b),
                '*' => a.wrapping_mul(b),
                '/' => a.checked_div(b).unwrap_or(0),
                _ => a.checked_rem(b).unwrap_or(0),
            }
        }
    })
}

/// Bytes of a fixed-size value: its Rust type's `Wire::SIZE`, the runtime
/// codec's own constant (an array of them: the element's times its length).
/// The size of an extern type is not known to the compiler.
pub fn fixed_bytes(t: &Ty) -> Result<u128, String> {
    use ot::runtime::primitives::ec::{Point, Scalar};
    use ot::runtime::{Block, Wire};
    let size = |n: usize| Ok(n as u128);
    match t {
        Ty::Bit => size(bool::SIZE),
        Ty::Block | Ty::Seed => size(Block::SIZE),
        Ty::Point => size(Point::SIZE),
        Ty::Scalar => size(Scalar::SIZE),
        Ty::U64 => size(u64::SIZE),
        Ty::U32 => size(u32::SIZE),
        Ty::U8 => size(u8::SIZE),
        Ty::Array(e, n) => Ok(shape(n, &Env::new())?.wrapping_mul(fixed_bytes(e)?)),
        Ty::Extern(name, _) => Err(format!(
            "the size of extern type `{name}` (not known to the compiler)"
        )),
        other => Err(format!("the size of `{other}`")),
    }
}

/// Encoded bytes of one message, from the plan's layout of its fields.
pub fn msg_bytes(layout: &[(String, WireLen)], env: &Env) -> Result<u128, String> {
    let shape = |s: &Shape| shape(s, env);
    layout.iter().try_fold(0u128, |acc, (_, w)| {
        Ok(acc.wrapping_add(w.bytes(&shape, &fixed_bytes)?))
    })
}

/// The size as a formula over the parameters, e.g. `16 * m`, folded where known.
pub fn msg_formula(layout: &[(String, WireLen)]) -> String {
    let known = |t: &Ty| fixed_bytes(t).ok();
    let parts: Vec<String> = layout.iter().map(|(_, w)| w.formula(&known)).collect();
    let lits: Option<u128> = layout
        .iter()
        .map(|(_, w)| {
            w.bytes(&|s: &Shape| s.lit().ok_or(()), &|t: &Ty| known(t).ok_or(()))
                .ok()
        })
        .sum();
    match lits {
        Some(v) => v.to_string(),
        None => parts.join(" + "),
    }
}

/// Runs `otp cost`.
pub fn run(
    file: &Path,
    args: &[String],
    ots: Option<&str>,
    json: bool,
    color: Color,
) -> Result<(), Fail> {
    let c = load::compile(file, color)?;
    let (Some(ir), Some(plan)) = (c.ir.as_ref(), c.plan.as_ref()) else {
        return Err(Fail("no protocol".into()));
    };
    let env = params::parse_all(args, ir)?;
    let need = |missing: String| {
        if env.contains_key(&missing) || !ir.params.iter().any(|p| p.name == missing) {
            Fail(format!("cannot size the messages: {missing}"))
        } else {
            Fail(format!(
                "the message sizes of `{}` depend on parameter `{missing}`: pass --param {missing}=VALUE",
                ir.name
            ))
        }
    };
    let sizes: Vec<u128> = plan
        .messages
        .iter()
        .map(|m| msg_bytes(m, &env))
        .collect::<Result<_, _>>()
        .map_err(need)?;
    let report = match &ir.party_count {
        Some(n) => party_report(ir, &env, &sizes, n).map_err(need)?,
        None => two_party_report(ir, plan, &env, &sizes, ots)?,
    };
    if json {
        println!("{:#}", report.json);
    } else {
        print!("{}", report.text);
    }
    Ok(())
}

struct Report {
    text: String,
    json: serde_json::Value,
}

fn header(ir: &Ir, env: &Env) -> String {
    let ps: Vec<String> = env.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    format!(
        "protocol `{}` ({}){}\n",
        ir.name,
        ir.location,
        if ps.is_empty() {
            String::new()
        } else {
            format!(", {}", ps.join(", "))
        }
    )
}

fn table(ir: &Ir, sizes: &[u128], arrow: &dyn Fn(&IrRound) -> (String, String)) -> String {
    let mut rows = vec![[
        "round".to_string(),
        "from".into(),
        "to".into(),
        "message".into(),
        "bytes".into(),
    ]];
    for (r, b) in ir.rounds.iter().zip(sizes) {
        let (from, to) = arrow(r);
        let chunk = r
            .chunk_by
            .as_ref()
            .map(|c| format!(" (chunked by {c})"))
            .unwrap_or_default();
        rows.push([
            r.name.clone(),
            from,
            to,
            r.msg.clone(),
            format!("{b}{chunk}"),
        ]);
    }
    let w: Vec<usize> = (0..5)
        .map(|i| rows.iter().map(|r| r[i].len()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for r in &rows {
        out.push_str(&format!(
            "  {:<a$}  {:<b$} -> {:<c$}  {:<d$}  {:>e$}\n",
            r[0],
            r[1],
            r[2],
            r[3],
            r[4],
            a = w[0],
            b = w[1],
            c = w[2],
            d = w[3],
            e = w[4]
        ));
    }
    out
}

fn subs_note(ir: &Ir) -> String {
    if ir.subs.is_empty() {
        return String::new();
    }
    let s: Vec<String> = ir
        .subs
        .iter()
        .map(|s| format!("`{}` ({})", s.name, s.func))
        .collect();
    format!(
        "  not counted: sub-protocol{} {} (their cost depends on the protocol plugged in)\n",
        plural(s.len()),
        s.join(", ")
    )
}

fn two_party_report(
    ir: &Ir,
    plan: &Plan,
    env: &Env,
    sizes: &[u128],
    ots: Option<&str>,
) -> Result<Report, Fail> {
    let ot_param = match ots {
        Some(p) if env.contains_key(p) => Some(p.to_string()),
        Some(p) => {
            return Err(Fail(format!(
                "--ots {p}: no value for parameter `{p}` (pass --param {p}=VALUE)"
            )))
        }
        None => ["m", "n"]
            .into_iter()
            .find(|p| env.contains_key(*p))
            .map(str::to_string),
    };
    let count = ot_param.as_ref().and_then(|p| env.get(p)).copied();
    let mut text = header(ir, env);
    text.push_str(&table(ir, sizes, &|r| {
        (ir.roles[r.from].clone(), ir.roles[r.to].clone())
    }));
    let mut sent = serde_json::Map::new();
    let mut lines = vec![];
    // The session binding each role sends first (the generated
    // `BINDING_BYTES`, included in `comm()`).
    let binding = ot::runtime::transport::bind::frame_len(ir.name.len(), plan.params_len) as u128;
    for (ri, role) in ir.roles.iter().enumerate() {
        let mine: Vec<u128> = ir
            .rounds
            .iter()
            .zip(sizes)
            .filter(|(r, _)| r.from == ri)
            .map(|(_, b)| *b)
            .collect();
        let bytes: u128 = binding + mine.iter().sum::<u128>();
        let per_ot = count.filter(|&c| c > 0).map(|c| bytes as f64 / c as f64);
        let peer = &ir.roles[1 - ri.min(1)];
        lines.push(format!(
            "  {role} -> {peer}: {} message{}, {bytes} bytes{}, of which {binding} the session binding",
            mine.len(),
            plural(mine.len()),
            per_ot
                .map(|p| format!(" ({} B/OT)", short(p)))
                .unwrap_or_default()
        ));
        sent.insert(
            role.clone(),
            json!({"messages": mine.len(), "bytes": bytes as u64, "binding_bytes": binding as u64, "bytes_per_ot": per_ot}),
        );
    }
    let summary = format!(
        "  {} round{}\n{}\n",
        ir.rounds.len(),
        plural(ir.rounds.len()),
        lines.join("\n")
    );
    Ok(finish(
        ir,
        env,
        sizes,
        text + &summary,
        json!({ "ots": ot_param, "round_count": ir.rounds.len(), "sent": sent }),
    ))
}

/// The report: the text with the note on sub-protocols appended; the JSON
/// of the protocol, parameters, rounds and sub-protocols with the fields of
/// `extra` added.
fn finish(ir: &Ir, env: &Env, sizes: &[u128], text: String, extra: serde_json::Value) -> Report {
    let mut v = json!({
        "protocol": ir.name,
        "params": env.iter().map(|(k, v)| (k.clone(), json!(*v as u64))).collect::<serde_json::Map<_, _>>(),
        "rounds": rounds_json(ir, sizes),
        "subprotocols": ir.subs.iter().map(|s| json!({"name": s.name, "functionality": s.func})).collect::<Vec<_>>(),
    });
    if let (Some(v), serde_json::Value::Object(extra)) = (v.as_object_mut(), extra) {
        v.extend(extra);
    }
    Report {
        text: text + &subs_note(ir),
        json: v,
    }
}

fn rounds_json(ir: &Ir, sizes: &[u128]) -> Vec<serde_json::Value> {
    ir.rounds
        .iter()
        .zip(sizes)
        .map(|(r, b)| {
            json!({
                "name": r.name,
                "from": ir.roles[r.from],
                "to": if r.party.is_some() { "others".to_string() } else { ir.roles[r.to].clone() },
                "message": r.msg,
                "bytes": *b as u64,
                "chunked_by": r.chunk_by.as_ref().map(|c| c.to_string()),
            })
        })
        .collect()
}

fn party_report(ir: &Ir, env: &Env, sizes: &[u128], n: &str) -> Result<Report, String> {
    let parties = *env.get(n).ok_or_else(|| n.to_string())?;
    let peers = parties.saturating_sub(1);
    // A run checks a broadcast only when it has two receivers or more: a
    // party's broadcast with two parties reaches only the other party
    // (nobody to equivocate to); the dealer's reaches all the parties.
    let needs_check = |r: &&IrRound| match r.party {
        Some(PartyRound::FixedBroadcast {
            sender: DEALER,
            checked,
        }) => checked && parties > 1,
        Some(p) => p.checked() && parties > 2,
        None => false,
    };
    let checks = ir.rounds.iter().filter(needs_check).count() as u128;
    // Digests: every party's message (n each) in an all-to-all broadcast,
    // the one sender's in a broadcast by a fixed party.
    let check_bytes = ir.rounds.iter().filter(needs_check).fold(0u128, |a, r| {
        let digests = match r.party {
            Some(PartyRound::FixedBroadcast { .. }) => 1,
            _ => parties,
        };
        a.wrapping_add(peers.wrapping_mul(digests).wrapping_mul(DIGEST_LEN))
    });
    // What party `me` sends; with fixed parties, the most any party sends.
    let sent_by = |me: u128| {
        ir.rounds.iter().zip(sizes).fold(0u128, |a, (r, b)| {
            let k = match r.party {
                Some(
                    PartyRound::FixedBroadcast { sender, .. } | PartyRound::FromOne { sender },
                ) => {
                    if me == sender as u128 {
                        peers
                    } else {
                        0
                    }
                }
                Some(PartyRound::ToOne { receiver }) => u128::from(me != receiver as u128),
                Some(PartyRound::Between { sender, .. }) => u128::from(me == sender as u128),
                // One message, to the neighbour on the ring.
                Some(PartyRound::Ring { .. }) => 1,
                _ => peers,
            };
            a.wrapping_add(k.wrapping_mul(*b))
        })
    };
    let mut candidates: Vec<u128> = ir
        .rounds
        .iter()
        .filter_map(|r| r.party.and_then(PartyRound::fixed_party))
        .filter(|&c| c != DEALER)
        .map(|c| c as u128)
        .collect();
    // The dealer sends its rounds to every party, and nothing else.
    let dealer_sent = ir
        .rounds
        .iter()
        .zip(sizes)
        .fold(0u128, |a, (r, b)| match r.party {
            Some(
                PartyRound::FixedBroadcast { sender: DEALER, .. }
                | PartyRound::FromOne { sender: DEALER },
            ) => a.wrapping_add(parties.wrapping_mul(*b)),
            _ => a,
        });
    candidates.extend((0..parties).find(|i| !candidates.contains(i)));
    let per_party = candidates
        .into_iter()
        .map(sent_by)
        .max()
        .unwrap_or(0)
        .wrapping_add(check_bytes);
    let rounds = ir.rounds.len() as u128 + checks;
    let who = match ir
        .rounds
        .iter()
        .any(|r| r.party.and_then(PartyRound::fixed_party).is_some())
    {
        true => "the party sending the most",
        false => "each party",
    };
    let role = &ir.roles[0];
    let mut text = header(ir, env);
    text.push_str(&table(ir, sizes, &|r| {
        let (from, to) = match r.party {
            Some(PartyRound::Private) => (format!("{role}[i]"), format!("{role}[j] (own)")),
            Some(PartyRound::Broadcast { checked: true }) => {
                (format!("{role}[i]"), "all (checked)".into())
            }
            Some(PartyRound::FixedBroadcast {
                sender,
                checked: true,
            }) => (party_name(ir, sender), "all (checked)".into()),
            Some(PartyRound::FixedBroadcast { sender, .. }) => {
                (party_name(ir, sender), "all".into())
            }
            Some(PartyRound::FromOne { sender }) => {
                (party_name(ir, sender), format!("{role}[j] (own)"))
            }
            Some(PartyRound::ToOne { receiver }) => {
                (format!("{role}[j]"), party_name(ir, receiver))
            }
            Some(PartyRound::Between { sender, receiver }) => {
                (party_name(ir, sender), party_name(ir, receiver))
            }
            Some(PartyRound::Ring { step, mul, .. }) => (
                format!("{role}[i]"),
                format!("{role}[{}]", crate::diagram::ring_target(step, mul)),
            ),
            _ => (format!("{role}[i]"), "all".into()),
        };
        (from, to)
    }));
    let (dealer, dealer_json) = match &ir.dealer {
        Some(d) => (
            format!("; {d} sends {dealer_sent} bytes to the {parties} parties"),
            json!({"role": d, "sent": dealer_sent as u64}),
        ),
        None => (String::new(), serde_json::Value::Null),
    };
    let summary = format!(
        "  {rounds} round{} ({checks} broadcast check{}); {who} sends {per_party} bytes to its {peers} peers ({check_bytes} of them check digests){dealer}\n",
        plural(rounds as usize),
        plural(checks as usize),
    );
    Ok(finish(
        ir,
        env,
        sizes,
        text + &summary,
        json!({
            "round_count": rounds as u64,
            "per_party": per_party as u64,
            "check_bytes": check_bytes as u64,
            "dealer": dealer_json,
        }),
    ))
}

/// A per-OT figure: two decimals, or two significant digits when smaller.
fn short(p: f64) -> String {
    if p >= 0.01 || p == 0.0 {
        format!("{p:.2}")
    } else {
        format!("{p:.1e}")
    }
}
