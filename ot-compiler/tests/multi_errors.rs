//! Several independent errors in one file are all reported, in source
//! order, without follow-on errors about names whose definition failed;
//! and the front end stays close to linear on large generated files.

use ot_compiler::{check_path, compile_str};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The rendered errors of `text` (which must fail), and how many there are.
fn errors(text: &str) -> (usize, String) {
    match compile_str("multi.otp", text, &root()) {
        Ok(_) => panic!("compiled, but it should fail:\n{text}"),
        Err(f) => (f.errors.len(), f.render()),
    }
}

/// The first line (`error: ...`) and location of each error.
fn heads(rendered: &str) -> Vec<String> {
    let lines: Vec<&str> = rendered.lines().collect();
    lines
        .iter()
        .enumerate()
        .filter(|(_, l)| l.starts_with("error: "))
        .map(|(i, l)| {
            let at = lines.get(i + 1).map(|l| l.trim()).unwrap_or("");
            format!("{l} {at}")
        })
        .collect()
}

#[test]
fn independent_errors_in_blocks_and_rounds_are_all_reported_in_order() {
    let text = "\
protocol Two(role Sender, role Receiver) {
    input Sender { a: Block }
    output Receiver { z: Block }
    at Sender {
        b = tccr2(0, a);
        d = a ^ a;
    }
    round r1: Sender -> Receiver : M1 { d: Block }
    at Receiver {
        e = d ^ qq;
        z = d ^ d;
        check z else abort Bad;
    }
}
";
    let (n, r) = errors(text);
    assert_eq!(
        heads(&r),
        [
            "error: unknown intrinsic `tccr2` --> multi.otp:5:13",
            "error: unknown value `qq` at `Receiver` --> multi.otp:10:17",
            "error: `check` needs a condition (a `Bit`), found `Block` --> multi.otp:12:15",
        ],
        "{r}"
    );
    assert_eq!(n, 3);
    // Each error keeps its own note and help line.
    assert!(
        r.contains("= note: in `at Sender` of protocol `Two`"),
        "{r}"
    );
    assert!(
        r.contains("= note: in `at Receiver` of protocol `Two`"),
        "{r}"
    );
    assert!(r.contains("= help: valid intrinsics here:"), "{r}");
}

#[test]
fn a_failed_definition_causes_no_follow_on_errors() {
    // `b` fails, so `c` (from `b`), the round sending `c` and everything the
    // receiver computes from it are not reported again.
    let text = "\
protocol Cascade(role Sender, role Receiver) {
    input Sender { a: Block }
    output Receiver { z: Block }
    at Sender {
        b = tccr2(0, a);
        c = b ^ a;
    }
    round r1: Sender -> Receiver : M1 { c: Block }
    at Receiver {
        y = c ^ c;
        z = y ^ c;
    }
}
";
    let (n, r) = errors(text);
    assert_eq!(n, 1, "{r}");
    assert!(r.starts_with("error: unknown intrinsic `tccr2`"), "{r}");
}

#[test]
fn an_unknown_name_is_reported_once() {
    let text = "\
protocol Once(role A, role B) {
    input A { a: Block }
    output A { z: Block }
    at A {
        x = a ^ missing;
        y = missing ^ a;
        z = x ^ y;
    }
}
";
    let (n, r) = errors(text);
    assert_eq!(n, 1, "{r}");
    assert!(r.contains("unknown value `missing` at `A`"), "{r}");
}

#[test]
fn a_failed_round_does_not_hide_later_items() {
    let text = "\
protocol Rounds(role A, role B) {
    input A { a: Block }
    output B { z: Block }
    round r1: A -> A : M1 { a: Block }
    round r2: A -> B : M2 { a: Block }
    at B { z = a ^ nope; }
}
";
    let (n, r) = errors(text);
    assert_eq!(
        heads(&r),
        [
            "error: round `r1` sends `M1` from `A` to itself, so the message is never received --> multi.otp:4:5",
            "error: unknown value `nope` at `B` --> multi.otp:6:20",
        ],
        "{r}"
    );
    assert_eq!(n, 2);
}

#[test]
fn a_syntax_error_in_one_item_does_not_hide_the_others() {
    // The broken intrinsic is reported once: its use is not an "unknown
    // intrinsic"; the protocol is still checked; the second broken
    // protocol has its own syntax error.
    let text = "\
intrinsic foo(x: Block) -> Block = ;

protocol P(role A, role B) {
    input A { a: Block }
    output B { z: Block }
    round r: A -> B : M { a: Block }
    at B { y = foo(a); z = a ^ unknown1; }
}

protocol Q(role A, role B) { at A { x = ; } }
";
    let (n, r) = errors(text);
    assert_eq!(
        heads(&r),
        [
            "error: syntax error: expected `::` or a name, found `;` --> multi.otp:1:36",
            "error: unknown value `unknown1` at `B` --> multi.otp:7:32",
            "error: syntax error: expected an expression, found `;` --> multi.otp:10:41",
        ],
        "{r}"
    );
    assert_eq!(n, 3);
}

#[test]
fn syntax_errors_in_later_rounds_and_statements_of_one_protocol() {
    // One protocol (the whole file): a broken statement, a second broken
    // statement in the same block, a broken round header and a broken
    // statement inside a later round's body are all reported, in order;
    // the intact items between them produce nothing.
    let text = "\
protocol P(role A, role B) {
    input A { a: Block }
    at A { x = a ^ ; y = a; w = a ^ ^ a; }
    round r1: A -> B : M1 { x: Block }
    round r2: B -> A M2 { x: Block }
    at B { z = x; }
    round r3: B -> A : M3 { z: Block } { at B { q = z ^ z; v = !; } }
    output A { z: Block }
}
";
    let (n, r) = errors(text);
    assert_eq!(
        heads(&r),
        [
            "error: syntax error: expected an expression, found `;` --> multi.otp:3:20",
            "error: syntax error: expected an expression, found `^` --> multi.otp:3:37",
            "error: syntax error: expected `:`, found `M2` --> multi.otp:5:22",
            "error: syntax error: expected an expression, found `;` --> multi.otp:7:65",
        ],
        "{r}"
    );
    assert_eq!(n, 4);
}

#[test]
fn syntax_errors_in_a_protocol_are_capped_at_twenty() {
    let mut text = String::from("protocol Many(role A, role B) {\n    input A { a: Block }\n");
    for i in 0..30 {
        text.push_str(&format!("    at A {{ x{i} = a ^ ; }}\n"));
    }
    text.push_str("}\n");
    let (n, r) = errors(&text);
    assert_eq!(n, 21, "{r}");
    let h = heads(&r);
    assert_eq!(
        h[0],
        "error: syntax error: expected an expression, found `;` --> multi.otp:3:21"
    );
    assert_eq!(
        h[19],
        "error: syntax error: expected an expression, found `;` --> multi.otp:22:22"
    );
    assert_eq!(h[20], "error: 10 more errors not shown --> multi.otp:23:22");
}

#[test]
fn at_most_twenty_errors_are_reported() {
    let mut text =
        String::from("protocol Many(role A, role B) {\n    input A { a: Block }\n    at A {\n");
    for i in 0..25 {
        text.push_str(&format!("        _x{i} = a ^ missing{i};\n"));
    }
    text.push_str("    }\n}\n");
    let (n, r) = errors(&text);
    assert_eq!(n, 21, "{r}");
    let h = heads(&r);
    assert_eq!(
        h[0],
        "error: unknown value `missing0` at `A` --> multi.otp:4:19"
    );
    assert_eq!(
        h[19],
        "error: unknown value `missing19` at `A` --> multi.otp:23:20"
    );
    assert_eq!(h[20], "error: 5 more errors not shown --> multi.otp:24:20");
}

#[test]
fn large_generated_files_check() {
    // Size for a test run; the `check_scale` example measures 50k rounds.
    // Before the front end was made linear, 5000 rounds took over 1 GB.
    let dir = std::env::temp_dir().join(format!("otp-multi-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (name, text) in [
        ("rounds.otp", ot_compiler::scale::many_rounds(5000)),
        ("block.otp", ot_compiler::scale::long_block(5000)),
    ] {
        std::fs::write(dir.join(name), text).unwrap();
        let c = check_path(name, &dir).unwrap_or_else(|f| panic!("{}", f.render()));
        assert!(c.warnings.is_empty());
        let ir = c.ir.unwrap();
        if name == "rounds.otp" {
            assert_eq!(ir.rounds.len(), 5000);
        } else {
            assert_eq!(ir.events[1].len(), 5001);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

// ---- checks of later phases still run after an unrelated error ----

/// A matrix streamed by `chunk` columns, with an unrelated type error in
/// the sender's block (a `Block` added to a `Block`).
fn chunked_with_type_error(chunk: &str) -> String {
    format!(
        "\
protocol Ext(role Sender, role Receiver) {{
    const KAPPA: usize = 128;
    param m: usize requires m >= 1;
    input Receiver {{ r: Bits[m] }}
    output Sender {{ q: [Block; m] }}
    output Receiver {{ x: [Block; m] }}
    at Sender {{ s = sample Bits[KAPPA]; w = sample Block; _bad = w + w; }}
    do base: RandomOt[n = KAPPA](Sender = Receiver, Receiver = Sender) with {{ Receiver.choices = s }};
    round extend: Receiver -> Sender : Extend {{ u: BitMatrix[KAPPA, m] }} chunked(by = {chunk}) {{
        at Receiver {{
            t = prg_rows(prg_keys([base.messages[j][0] for j in 0..KAPPA]), m, 1);
            u = xor_prg_choice(t, prg_keys([base.messages[j][1] for j in 0..KAPPA]), r, 1);
        }}
    }}
    at Sender {{ q = masked_columns(prg_keys(base.chosen), u, s, 1); }}
    at Receiver {{ x = transpose_columns(t, 1); }}
}}
"
    )
}

#[test]
fn a_type_error_does_not_hide_a_chunk_size_error_on_another_round() {
    // Alone, the type error.
    let (n, r) = errors(&chunked_with_type_error("1024"));
    assert_eq!(n, 1, "{r}");
    // With a chunk size that is not a multiple of 128: both, in order (the
    // chunk size was checked by the plan, which a failed check never reached).
    let (n, r) = errors(&chunked_with_type_error("1000"));
    assert_eq!(
        heads(&r),
        [
            "error: operator `+` cannot combine `Block` and `Block` --> multi.otp:7:66",
            "error: the chunk size of round `extend` must be a positive constant multiple of 128 for a matrix --> multi.otp:9:87",
        ],
        "{r}"
    );
    assert_eq!(n, 2);
}

#[test]
fn a_type_error_does_not_hide_an_unread_message_or_a_realizes_mismatch() {
    // `A`'s block has a type error; `B` never reads `note` (checked once
    // every item is), and the declared outputs do not realize `RandomOt`.
    let text = "\
protocol Half(role Sender, role Receiver)
    realizes RandomOt(Sender = Sender, Receiver = Receiver)
{
    param n: usize requires n >= 1;
    input Receiver { choices: Bits[n] }
    output Sender { messages: [Block; n] }
    output Receiver { chosen: [Block; n] }
    at Sender {
        messages = [sample Block for i in 0..n];
        w = sample Block;
        _bad = w + w;
        note = sample Block;
    }
    round give: Sender -> Receiver : Give { messages: [Block; n] }
    round aside: Sender -> Receiver : Aside { note: Block }
    at Receiver { chosen = messages; }
}
";
    let (n, r) = errors(text);
    assert_eq!(
        heads(&r),
        [
            "error: `Half` does not realize `RandomOt`: output `messages` of `Sender` is `[Block; n]`, but output `Sender.messages` of `RandomOt` is `[[Block; 2]; n]` --> multi.otp:2:14",
            "error: operator `+` cannot combine `Block` and `Block` --> multi.otp:11:16",
            "error: round `aside` sends `Aside { note }` to `Receiver`, but `Receiver` never uses it: no computation receives the message --> multi.otp:15:5",
        ],
        "{r}"
    );
    assert_eq!(n, 3);
}

#[test]
fn a_failed_computation_of_the_receiver_keeps_its_unread_check_quiet() {
    // `Receiver`'s block fails, so which fields it reads is not known: no
    // "never uses it" error for its rounds (it would be a follow-on).
    let text = "\
protocol P(role A, role B) {
    output B { z: Block }
    at A { x = sample Block; }
    round r1: A -> B : M1 { x: Block }
    at B { z = x + missing; }
}
";
    let (n, r) = errors(text);
    assert_eq!(n, 1, "{r}");
    assert!(r.contains("unknown value `missing` at `B`"), "{r}");
}
