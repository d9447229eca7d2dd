//! `otp rounds`: the projected round flow of each role, as text.

use crate::Fail;
use ot_compiler::ir::{Event, IrRound, Keep, PartyRound, Stage, DEALER};
use ot_compiler::Compiled;

/// Prints each role's sends, receives, streams and sub-protocol calls in
/// order; `parties`, the number of parties of an n-party run, decides which
/// broadcast checks the run makes (none of a party's broadcast with 2).
pub fn print(compiled: &Compiled, parties: Option<u64>) -> Result<(), Fail> {
    if let Some(ir) = compiled.ir.as_ref().filter(|ir| ir.party_count.is_some()) {
        print_party_rounds(ir, parties);
        return Ok(());
    }
    if parties.is_some() {
        return Err(Fail(
            "`--parties` is for n-party protocols (`role P[n]`); this one has two roles".into(),
        ));
    }
    if let Some(ir) = &compiled.ir {
        for (r, role) in ir.roles.iter().enumerate() {
            println!("{role}:");
            for ev in &ir.events[r] {
                match ev {
                    Event::Send(k) => println!(
                        "  send {} (round `{}`) -> {}",
                        ir.rounds[*k].msg, ir.rounds[*k].name, ir.roles[ir.rounds[*k].to]
                    ),
                    Event::Recv(k) => println!(
                        "  recv {} (round `{}`) <- {}",
                        ir.rounds[*k].msg, ir.rounds[*k].name, ir.roles[ir.rounds[*k].from]
                    ),
                    Event::Sub(k) => println!("  run sub-protocol `{}`", ir.subs[*k].name),
                    Event::Stream(st) => {
                        let rd = &ir.rounds[st.round];
                        let (dir, arrow, peer) = if st.sending {
                            ("send", "->", rd.to)
                        } else {
                            ("recv", "<-", rd.from)
                        };
                        println!(
                            "  {dir} {} in chunks (round `{}`) {arrow} {}",
                            rd.msg, rd.name, ir.roles[peer]
                        );
                        let names = |stages: &[Stage]| {
                            stages
                                .iter()
                                .map(|s| match s.keep {
                                    Keep::Chunk => s.name.clone(),
                                    Keep::Whole => format!("{} (whole)", s.name),
                                    Keep::Fold => format!("{} (sum)", s.name),
                                })
                                .collect::<Vec<_>>()
                                .join(", ")
                        };
                        if !st.before.is_empty() {
                            println!("    per chunk, before sending: {}", names(&st.before));
                        }
                        if !st.after.is_empty() {
                            println!(
                                "    per chunk, after {}: {}",
                                if st.sending { "sending" } else { "receiving" },
                                names(&st.after)
                            );
                        }
                    }
                    Event::Stmt(_) => {}
                }
            }
        }
    }
    Ok(())
}

/// The line of the broadcast check of round `rd` (`what`: whose digests),
/// as a run with `parties` parties makes it. A party's broadcast with 2
/// parties has one receiver, the other party, so there is nobody its
/// sender could equivocate to and the run exchanges no digests; the
/// dealer's broadcast reaches every party and is checked from 2 receivers
/// on (the rule of the generated drivers and of `otp cost`).
fn check_line(rd: &IrRound, what: &str, parties: Option<u64>) -> String {
    let from = match rd.party {
        Some(PartyRound::FixedBroadcast { sender: DEALER, .. }) => 1,
        _ => 2,
    };
    let check = format!("  check round `{}`: ", rd.name);
    match parties {
        Some(p) if p <= from => format!(
            "{check}skipped with {p} part{}: the broadcast has one receiver, nobody to equivocate to (no digests exchanged)",
            if p == 1 { "y" } else { "ies" }
        ),
        _ => {
            let only = match (parties, from) {
                (None, 2) => " (only with 3 or more parties: with 2 the broadcast has one receiver and nothing is exchanged)",
                _ => "",
            };
            format!("{check}{what} received <-> every other party; a difference aborts naming round and sender{only}")
        }
    }
}

/// The round flow of an n-party protocol: every party runs the same steps.
/// The session hello travels with the first round's messages (it is no
/// exchange of its own: nobody waits for it before sending), and a peer's
/// hello is checked before the first message read from that peer.
fn print_party_rounds(ir: &ot_compiler::ir::Ir, parties: Option<u64>) {
    use ot_compiler::ir::TStmt;
    let p = &ir.roles[0];
    let count = parties.map(|c| c.to_string());
    let n = count
        .as_deref()
        .or(ir.party_count.as_deref())
        .unwrap_or("n");
    let fixed = ir
        .rounds
        .iter()
        .any(|r| r.party.and_then(PartyRound::fixed_party).is_some());
    let same = match fixed {
        true => "the same steps at each, except those marked with a fixed party",
        false => "the same steps at each",
    };
    let who = |c: usize| crate::load::party_name(ir, c);
    println!("{p}[i], for every party i in 0..{n} ({same}):");
    if let Some(d) = &ir.dealer {
        println!("  ({d} is mesh endpoint {n} after the parties; it runs only the steps marked `at {d}`)");
    }
    let dealer = ir
        .dealer
        .as_ref()
        .map(|d| format!(" and {d}"))
        .unwrap_or_default();
    println!("  hello: protocol, spec hash, parameters, session, i and {n} -> every other party{dealer}, in the same flight as the first round (no exchange of its own); a peer's hello is checked before the first message read from it, every hello before the output");
    for ev in &ir.events[0] {
        match ev {
            Event::Send(k) => {
                let rd = &ir.rounds[*k];
                match rd.party {
                    Some(PartyRound::Private) => println!(
                        "  send {} (round `{}`) -> each other party P[j] its own (element j)",
                        rd.msg, rd.name
                    ),
                    Some(PartyRound::FixedBroadcast { sender: c, .. }) => println!(
                        "  at {}: send {} (round `{}`) -> every other party (broadcast)",
                        who(c), rd.msg, rd.name
                    ),
                    Some(PartyRound::FromOne { sender: c }) => println!(
                        "  at {}: send {} (round `{}`) -> each other party P[j] its own (element j)",
                        who(c), rd.msg, rd.name
                    ),
                    Some(PartyRound::ToOne { receiver: c }) => println!(
                        "  at every party but {0}: send {1} (round `{2}`) -> {0}",
                        who(c), rd.msg, rd.name
                    ),
                    Some(PartyRound::Between { sender, receiver }) => println!(
                        "  at {}: send {} (round `{}`) -> {}",
                        who(sender), rd.msg, rd.name, who(receiver)
                    ),
                    Some(PartyRound::Ring { step, mul, .. }) => println!(
                        "  send {} (round `{}`) -> its neighbour P[{}]",
                        rd.msg,
                        rd.name,
                        crate::diagram::ring_target(step, mul)
                    ),
                    _ => println!(
                        "  send {} (round `{}`) -> every other party (broadcast)",
                        rd.msg, rd.name
                    ),
                }
            }
            Event::Recv(k)
                if ir.rounds[*k]
                    .party
                    .and_then(PartyRound::fixed_party)
                    .is_some() =>
            {
                let rd = &ir.rounds[*k];
                let fields: Vec<&str> = rd.fields.iter().map(|(f, _)| f.as_str()).collect();
                match rd.party {
                    Some(PartyRound::Between { sender, receiver }) => println!(
                        "  at {}: recv {} (round `{}`) <- {}: {}",
                        who(receiver),
                        rd.msg,
                        rd.name,
                        who(sender),
                        fields.join(", ")
                    ),
                    Some(PartyRound::ToOne { receiver: c }) => println!(
                        "  at {}: recv {} (round `{}`) <- every other party P[j]: {}",
                        who(c),
                        rd.msg,
                        rd.name,
                        fields
                            .iter()
                            .map(|f| format!("{f}[j]"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                    Some(
                        PartyRound::FixedBroadcast { sender: c, .. }
                        | PartyRound::FromOne { sender: c },
                    ) => println!(
                        "  at every party but {0}: recv {1} (round `{2}`) <- {0}: {3}",
                        who(c),
                        rd.msg,
                        rd.name,
                        fields.join(", ")
                    ),
                    _ => {}
                }
                if rd.party.is_some_and(PartyRound::checked) {
                    let what = format!("digest of the {}", rd.msg);
                    println!("{}", check_line(rd, &what, parties));
                }
            }
            Event::Recv(k) if matches!(ir.rounds[*k].party, Some(PartyRound::Ring { .. })) => {
                let rd = &ir.rounds[*k];
                let Some(PartyRound::Ring { step, inv, .. }) = rd.party else {
                    continue;
                };
                let fields: Vec<&str> = rd.fields.iter().map(|(f, _)| f.as_str()).collect();
                println!(
                    "  recv {} (round `{}`) <- its neighbour P[{}]: {}",
                    rd.msg,
                    rd.name,
                    crate::diagram::ring_source(step, inv),
                    fields.join(", ")
                );
            }
            Event::Recv(k) => {
                let rd = &ir.rounds[*k];
                let fields: Vec<String> =
                    rd.fields.iter().map(|(f, _)| format!("{f}[j]")).collect();
                println!(
                    "  recv {} (round `{}`) <- every other party P[j]: {}",
                    rd.msg,
                    rd.name,
                    fields.join(", ")
                );
                if rd.party == Some(PartyRound::Broadcast { checked: true }) {
                    let what = format!("digests of every {}", rd.msg);
                    println!("{}", check_line(rd, &what, parties));
                }
            }
            Event::Stmt(TStmt::Check(_, _, text)) => println!("  {text}"),
            Event::Sub(k) if ir.subs[*k].pairwise => {
                let sub = &ir.subs[*k];
                let roles: Vec<&str> = sub.calls.iter().map(|c| c.func_role.as_str()).collect();
                println!(
                    "  run {} (call `{}`) with every other party P[j], as {} and as {} (in the rounds of a round-robin tournament, one peer per round; its own frames, not counted in comm)",
                    sub.func,
                    sub.name,
                    roles.first().copied().unwrap_or("?"),
                    roles.get(1).copied().unwrap_or("?")
                );
            }
            _ => {}
        }
    }
}
