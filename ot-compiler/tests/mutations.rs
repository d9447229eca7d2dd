//! Property test of the checker: random well-formed two-party protocols
//! (at blocks, rounds in both directions, block expressions with `! ^ & |`
//! and parentheses, outputs) are accepted; a random single mutation is
//! never a panic, and a mutation that must break the protocol (an unknown
//! name, a value sent by a role that does not have it, a type error, a
//! missing `;`, a duplicate round name) is reported as an error.

use ot_compiler::compile_str;
use proptest::prelude::*;
use std::path::Path;

/// A small deterministic generator (the proptest input is its seed).
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    fn pick<'a>(&mut self, xs: &'a [String]) -> &'a str {
        &xs[self.below(xs.len())]
    }
}

/// One step of a generated protocol.
#[derive(Clone, Debug)]
enum Step {
    /// `at role { name = expr; ... }`
    At(usize, Vec<(String, String)>),
    /// `round name: from -> to : Msg { value: Block }`
    Round(String, usize, String),
}

const ROLES: [&str; 2] = ["A", "B"];

/// A well-formed protocol: every value is a `Block`, defined once, used
/// only by a role that has it (computed or received).
#[derive(Clone, Debug)]
struct Proto {
    steps: Vec<Step>,
    /// Per role: the values it computed or received (its outputs).
    outputs: [Vec<String>; 2],
}

fn expr(g: &mut Gen, known: &[String], depth: usize) -> String {
    if depth == 0 || g.below(3) == 0 {
        return g.pick(known).to_string();
    }
    match g.below(4) {
        0 => format!("!{}", expr(g, known, depth - 1)),
        1 => format!("({})", expr(g, known, depth - 1)),
        k => {
            let op = ["^", "&", "|"][(k + g.below(3)) % 3];
            let n = 2 + g.below(4);
            (0..n)
                .map(|_| expr(g, known, depth - 1))
                .collect::<Vec<_>>()
                .join(&format!(" {op} "))
        }
    }
}

fn generate(seed: u64) -> Proto {
    let mut g = Gen(seed);
    let mut known: [Vec<String>; 2] = [vec!["a0".into()], vec!["b0".into()]];
    let mut outputs: [Vec<String>; 2] = [vec![], vec![]];
    let mut steps = vec![];
    let mut fresh = 0;
    let mut rounds = 0;
    let n = 1 + g.below(6);
    for k in 0..n {
        let role = g.below(2);
        // The last step is a round if there was none.
        if g.below(2) == 0 && !(k + 1 == n && rounds == 0) {
            let stmts = (0..1 + g.below(3))
                .map(|_| {
                    let e = expr(&mut g, &known[role], 3);
                    let v = format!("v{fresh}");
                    fresh += 1;
                    known[role].push(v.clone());
                    outputs[role].push(v.clone());
                    (v, e)
                })
                .collect();
            steps.push(Step::At(role, stmts));
        } else {
            // Send a value the receiver does not have.
            let other = 1 - role;
            let sendable: Vec<String> = known[role]
                .iter()
                .filter(|v| !known[other].contains(v))
                .cloned()
                .collect();
            let value = if sendable.is_empty() {
                // Everything it has was sent: compute a fresh value first.
                let v = format!("v{fresh}");
                fresh += 1;
                let e = expr(&mut g, &known[role], 3);
                known[role].push(v.clone());
                outputs[role].push(v.clone());
                steps.push(Step::At(role, vec![(v.clone(), e)]));
                v
            } else {
                g.pick(&sendable).to_string()
            };
            known[other].push(value.clone());
            outputs[other].push(value.clone());
            steps.push(Step::Round(format!("r{rounds}"), role, value));
            rounds += 1;
        }
    }
    Proto { steps, outputs }
}

fn render(p: &Proto) -> String {
    let mut s = String::from(
        "protocol Gen(role A, role B) {\n    input A { a0: Block }\n    input B { b0: Block }\n",
    );
    for (k, step) in p.steps.iter().enumerate() {
        match step {
            Step::At(role, stmts) => {
                s.push_str(&format!("    at {} {{\n", ROLES[*role]));
                for (v, e) in stmts {
                    s.push_str(&format!("        {v} = {e};\n"));
                }
                s.push_str("    }\n");
            }
            Step::Round(name, from, value) => s.push_str(&format!(
                "    round {name}: {} -> {} : M{k} {{ {value}: Block }}\n",
                ROLES[*from],
                ROLES[1 - from]
            )),
        }
    }
    for (role, outs) in p.outputs.iter().enumerate() {
        if !outs.is_empty() {
            let fields: Vec<String> = outs.iter().map(|v| format!("{v}: Block")).collect();
            s.push_str(&format!(
                "    output {} {{ {} }}\n",
                ROLES[role],
                fields.join(", ")
            ));
        }
    }
    s.push_str("}\n");
    s
}

/// A single mutation; `true` when the result must be rejected.
fn mutate(p: &Proto, text: &str, kind: usize, pick: u64) -> (String, bool) {
    let mut g = Gen(pick);
    let stmts: Vec<(usize, usize)> = p
        .steps
        .iter()
        .enumerate()
        .flat_map(|(i, s)| match s {
            Step::At(_, st) => (0..st.len()).map(|j| (i, j)).collect(),
            Step::Round(..) => vec![],
        })
        .collect();
    let rounds: Vec<usize> = (0..p.steps.len())
        .filter(|&i| matches!(p.steps[i], Step::Round(..)))
        .collect();
    let mut q = p.clone();
    match kind {
        // An unknown name in an expression.
        0 if !stmts.is_empty() => {
            let (i, j) = stmts[g.below(stmts.len())];
            if let Step::At(_, st) = &mut q.steps[i] {
                st[j].1 = format!("{} ^ zz_unknown", st[j].1);
            }
            (render(&q), true)
        }
        // A round sent by the role that does not have the value.
        1 => {
            let i = rounds[g.below(rounds.len())];
            if let Step::Round(_, from, _) = &mut q.steps[i] {
                *from = 1 - *from;
            }
            (render(&q), true)
        }
        // A type error: `+` on blocks, or a block `^` an integer.
        2 if !stmts.is_empty() => {
            let (i, j) = stmts[g.below(stmts.len())];
            if let Step::At(_, st) = &mut q.steps[i] {
                st[j].1 = if g.below(2) == 0 {
                    format!("{} + {}", st[j].1, st[j].1)
                } else {
                    format!("({}) ^ 5", st[j].1)
                };
            }
            (render(&q), true)
        }
        // A missing `;`.
        3 if text.contains(';') => {
            let semis: Vec<usize> = text.match_indices(';').map(|(k, _)| k).collect();
            let k = semis[g.below(semis.len())];
            (format!("{}{}", &text[..k], &text[k + 1..]), true)
        }
        // A duplicate round name.
        4 if rounds.len() >= 2 => {
            let (a, b) = (rounds[0], rounds[1 + g.below(rounds.len() - 1)]);
            let Step::Round(first, ..) = &p.steps[a] else {
                unreachable!()
            };
            let first = first.clone();
            if let Step::Round(name, ..) = &mut q.steps[b] {
                *name = first;
            }
            (render(&q), true)
        }
        // A deleted statement or step, or two steps swapped: valid or not.
        5 if !stmts.is_empty() => {
            let (i, j) = stmts[g.below(stmts.len())];
            if let Step::At(_, st) = &mut q.steps[i] {
                st.remove(j);
            }
            (render(&q), false)
        }
        6 if p.steps.len() >= 2 => {
            let i = g.below(p.steps.len() - 1);
            q.steps.swap(i, i + 1);
            (render(&q), false)
        }
        // A random byte deleted: anything may happen, except a panic.
        _ => {
            let k = g.below(text.len());
            let mut t = text.as_bytes().to_vec();
            t.remove(k);
            (String::from_utf8_lossy(&t).into_owned(), false)
        }
    }
}

fn check(text: &str) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    compile_str("gen.otp", text, &root)
        .map(|_| ())
        .map_err(|f| f.render())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn generated_protocols_check_and_mutations_are_caught(
        seed in any::<u64>(),
        kind in 0usize..8,
        pick in any::<u64>(),
    ) {
        let p = generate(seed);
        let text = render(&p);
        if let Err(e) = check(&text) {
            panic!("a well-formed protocol was rejected:\n{text}\n{e}");
        }
        let (mutated, must_fail) = mutate(&p, &text, kind, pick);
        let r = check(&mutated);
        if must_fail {
            prop_assert!(r.is_err(), "mutation {kind} accepted:\n{mutated}");
        }
        if let Err(e) = r {
            // Every error is located and rendered.
            prop_assert!(e.contains("--> gen.otp:"), "{e}");
        }
    }
}
