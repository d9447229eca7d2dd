//! `otp rounds`: the projected round flow of each role, as text.

use ot_compiler::ir::{Event, Keep, Stage};
use ot_compiler::Compiled;

/// Prints each role's sends, receives, streams and sub-protocol calls in order.
pub fn print(compiled: &Compiled) {
    if let Some(ir) = compiled.ir.as_ref().filter(|ir| ir.party_count.is_some()) {
        print_party_rounds(ir);
    } else if let Some(ir) = &compiled.ir {
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
}

/// The round flow of an n-party protocol: every party runs the same steps.
fn print_party_rounds(ir: &ot_compiler::ir::Ir) {
    use ot_compiler::ir::{Event, PartyRound, TStmt};
    let p = &ir.roles[0];
    let n = ir.party_count.as_deref().unwrap_or("n");
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
    println!("  hello: protocol, spec hash, parameters, session, i and {n} <-> every other party");
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
                    println!(
                        "  check round `{}`: digest of the {} received <-> every other party; a difference aborts naming round and sender",
                        rd.name, rd.msg
                    );
                }
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
                    println!(
                        "  check round `{}`: digests of every {} received <-> every other party; a difference aborts naming round and sender",
                        rd.name, rd.msg
                    );
                }
            }
            Event::Stmt(TStmt::Check(_, _, text)) => println!("  {text}"),
            _ => {}
        }
    }
}
