//! Diagnostics of the `.otp` compiler, checked on the rendered text without
//! rustc: message, `file:line:col`, snippet, caret and help line of every
//! error the trybuild suite pins (`tests/ui/otp/*.otp` at the workspace
//! root), plus valid protocols, warnings, `extends`/`insert`, mutations of
//! `protocols/co15.otp`, and a property test that the compiler and the
//! renderer never panic.

use ot_compiler::diag::{Diagnostic, Severity};
use ot_compiler::source::{SourceMap, Span};
use ot_compiler::{compile_path, compile_str, Compiled, Failure};
use proptest::prelude::*;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn fail_path(rel: &str) -> String {
    match compile_path(rel, &root()) {
        Ok(_) => panic!("{rel} compiled, but it should fail"),
        Err(f) => {
            assert_eq!(
                f.errors.len(),
                1,
                "{rel}: one problem, one error:\n{}",
                f.render()
            );
            f.render()
        }
    }
}

fn fail_str(text: &str) -> String {
    match compile_str("test.otp", text, &root()) {
        Ok(_) => panic!("compiled, but it should fail:\n{text}"),
        Err(f) => f.render(),
    }
}

fn ok_path(rel: &str) -> Compiled {
    match compile_path(rel, &root()) {
        Ok(c) => c,
        Err(f) => panic!("{rel} should compile:\n{}", f.render()),
    }
}

fn ok_str(text: &str) -> Compiled {
    match compile_str("test.otp", text, &root()) {
        Ok(c) => c,
        Err(f) => panic!("should compile:\n{}\n{text}", f.render()),
    }
}

/// Checks one rendered error: the message, `file:line:col`, that the caret
/// sits under column `col` of the quoted line, the note and the help.
#[track_caller]
fn assert_diag(rendered: &str, file: &str, line: usize, col: usize, message: &str, help: &str) {
    let lines: Vec<&str> = rendered.lines().collect();
    assert!(
        lines[0].starts_with("error: "),
        "first line is the message:\n{rendered}"
    );
    assert!(
        lines[0].contains(message),
        "message should contain {message:?}:\n{rendered}"
    );
    let loc = format!("--> {file}:{line}:{col}");
    assert!(
        lines[1].trim_start().starts_with(&loc),
        "location should be {loc}:\n{rendered}"
    );
    let quoted = lines
        .iter()
        .position(|l| l.starts_with(&format!("{line} | ")))
        .unwrap_or_else(|| panic!("line {line} is quoted:\n{rendered}"));
    let caret_line = lines[quoted + 1];
    let gutter = line.to_string().len() + 3;
    let first_caret = caret_line
        .find('^')
        .unwrap_or_else(|| panic!("a caret line:\n{rendered}"));
    assert_eq!(
        first_caret,
        gutter + col - 1,
        "caret under column {col}:\n{rendered}"
    );
    assert!(
        caret_line[first_caret..].chars().all(|c| c == '^'),
        "caret line is only carets:\n{rendered}"
    );
    let help_line = lines
        .iter()
        .find(|l| l.trim_start().starts_with("= help: "))
        .unwrap_or_else(|| panic!("a help line:\n{rendered}"));
    assert!(
        help_line.contains(help),
        "help should contain {help:?}:\n{rendered}"
    );
}

#[track_caller]
fn assert_note(rendered: &str, note: &str) {
    let note_line = rendered
        .lines()
        .find(|l| l.trim_start().starts_with("= note: "))
        .unwrap_or_else(|| panic!("a note line:\n{rendered}"));
    assert!(
        note_line.contains(note),
        "note should contain {note:?}:\n{rendered}"
    );
}

// ---- the errors pinned by the trybuild suite, rendered from their files ----

struct Case {
    name: &'static str,
    line: usize,
    col: usize,
    message: &'static str,
    note: &'static str,
    help: &'static str,
}

const CASES: &[Case] = &[
    Case {
        name: "realizes_mismatch",
        line: 3,
        col: 14,
        message: "`HalfOt` does not realize `RandomOt`: output `messages` of `Sender` is `[Block; n]`, but output `Sender.messages` of `RandomOt` is `[[Block; 2]; n]`",
        note: "in `realizes RandomOt`",
        help: "declare `output Sender { messages: [[Block; 2]; n] }`, or realize another functionality",
    },
    Case { name: "parse_error", line: 12, col: 25, message: "syntax error: expected `->`, found `=>`", note: "", help: "a round is written `round name: From -> To : Message" },
    Case { name: "unknown_role", line: 14, col: 8, message: "unknown role `Reciever`", note: "of protocol `Co15`", help: "did you mean `Receiver`?" },
    Case { name: "unknown_intrinsic", line: 10, col: 17, message: "unknown intrinsic `base_mult`", note: "in `at Sender` of protocol `Co15`", help: "did you mean `base_mul`?" },
    Case {
        name: "intrinsic_arity",
        line: 19,
        col: 19,
        message: "intrinsic `derive_key` takes 4 arguments but 3 were given",
        note: "in `at Receiver` of protocol `Co15`",
        help: "`derive_key(index: usize, a: Point, b: Point, shared: Point) -> Block` is declared at tests/ui/otp/intrinsic_arity.otp:2",
    },
    Case {
        name: "intrinsic_arg_type",
        line: 19,
        col: 29,
        message: "argument 2 of `key_of` must be `Point`, found `Scalar`",
        note: "in `at Receiver` of protocol `Co15`",
        help: "`key_of(index: usize, shared: Point) -> Block` is declared at tests/ui/otp/intrinsic_arg_type.otp:2",
    },
    Case {
        name: "shape_mismatch",
        line: 20,
        col: 56,
        message: "shape mismatch: field `big_b` of `Choose` is declared `[Point; m]`, but `Receiver` has `big_b: [Point; n]`",
        note: "in round `choose` (Receiver -> Sender : Choose) of protocol `Co15`",
        help: "declare the field as `big_b: [Point; n]`",
    },
    Case {
        name: "output_shape",
        line: 5,
        col: 33,
        message: "shape mismatch: output `messages` of `Sender` is declared `[Block; n]`, but is computed as `[[Block; 2]; n]`",
        note: "in protocol `Co15`",
        help: "declare it as `messages: [[Block; 2]; n]`",
    },
    Case {
        name: "not_owner",
        line: 17,
        col: 48,
        message: "`a` belongs to `Sender`; `Receiver` cannot use it because no round sends it to `Receiver`",
        note: "in `at Receiver` of protocol `Co15`",
        help: "send it in a round `Sender -> Receiver`",
    },
    Case {
        name: "use_before_receipt",
        line: 14,
        col: 59,
        message: "`Receiver` uses `big_a` before receiving it in round `setup` (line 17)",
        note: "in `at Receiver` of protocol `Co15`",
        help: "move this after round `setup`",
    },
    Case {
        name: "never_received",
        line: 26,
        col: 5,
        message: "round `confirm` sends `Confirm { tag }` to `Receiver`, but `Receiver` never uses it",
        note: "in round `confirm` (Sender -> Receiver : Confirm) of protocol `Co15`",
        help: "use `tag` at `Receiver` after this round",
    },
    Case {
        name: "self_round",
        line: 19,
        col: 5,
        message: "round `choose` sends `Choose` from `Receiver` to itself, so the message is never received",
        note: "in round `choose` (Receiver -> Receiver : Choose) of protocol `Co15`",
        help: "send it to another role",
    },
    Case {
        name: "deadlock",
        line: 21,
        col: 45,
        message: "role-order deadlock: `Sender` must send `big_b` in round `echo`, but only receives it later in round `choose` (line 22)",
        note: "in round `echo` (Sender -> Receiver : Echo) of protocol `Co15`",
        help: "move round `choose` before round `echo`",
    },
    Case {
        name: "role_mapping",
        line: 8,
        col: 64,
        message: "role mapping mismatch: both `Sender` and `Receiver` of `RandomOt` are mapped to `Receiver`",
        note: "in sub-protocol call `base` of protocol `Iknp`",
        help: "map each role of `RandomOt` (Sender, Receiver) to a different role",
    },
    Case {
        name: "role_unmapped",
        line: 8,
        col: 14,
        message: "role mapping mismatch: role `Receiver` of `RandomOt` is not mapped",
        note: "in sub-protocol call `base` of protocol `Iknp`",
        help: "add `Receiver = <role>` to the call",
    },
    Case {
        name: "const_requires",
        line: 3,
        col: 39,
        message: "`requires KAPPA % 128 == 0` does not hold for `KAPPA` = 100",
        note: "in protocol `Iknp`",
        help: "change the value of `KAPPA` or the requirement",
    },
    Case {
        name: "functionality_requires",
        line: 8,
        col: 27,
        message: "`RandomOt` requires `n >= 1`, which does not hold for `n` = 0",
        note: "in sub-protocol call `base` of protocol `Iknp`",
        help: "pass a value of `n` that satisfies the requirement",
    },
    Case {
        name: "duplicate_field",
        line: 13,
        col: 61,
        message: "duplicate field `big_r` in message `Setup` of round `setup`",
        note: "in round `setup` (Sender -> Receiver : Setup) of protocol `Np00`",
        help: "each field of a message must have a distinct name",
    },
    Case { name: "unknown_type", line: 12, col: 54, message: "unknown type `Piont`", note: "in round `setup` (Sender -> Receiver : Setup) of protocol `Co15`", help: "did you mean `Point`?" },
    Case {
        name: "output_missing",
        line: 6,
        col: 23,
        message: "output `chosen` of `Receiver` is never computed",
        note: "in protocol `Co15`",
        help: "assign it in `at Receiver { chosen = ...; }`",
    },
    // n-party protocols (`role P[n]`).
    Case {
        name: "party_index_range",
        line: 6,
        col: 10,
        message: "party index out of range: `P[3]` is not a party when there are 2 (the protocol allows 2 or more)",
        note: "in `at P` of protocol `Sum`",
        help: "parties are `P[0]` to `P[n - 1]`: use an index below 2, or require more parties (`requires n >= 4`)",
    },
    Case {
        name: "party_fixed_range",
        line: 7,
        col: 23,
        message: "party index out of range: `P[2]` is not a party when there are 2 (the protocol allows 2 or more)",
        note: "in round `announce` (P -> all : Announce) of protocol `Announce`",
        help: "use an index below 2, or require more parties (`requires n >= 3`)",
    },
    Case {
        name: "party_fixed_value",
        line: 7,
        col: 23,
        message: "`secret` is a value of `P[0]` only (its input, computed in `at P[0]`, or received by it alone); `P[i]` cannot use it because no round sends it",
        note: "in `at P` of protocol `Open`",
        help: "send it first, e.g. `round r: P[0] -> all : M { secret: u64 }`",
    },
    Case {
        name: "party_self_send",
        line: 7,
        col: 5,
        message: "round `share` sends `Share` from `P[i]` to itself, so the message is never received",
        note: "in round `share` (P -> P : Share) of protocol `Sum`",
        help: "name the receiver with another index, `P[j]`",
    },
    Case {
        name: "party_not_sent",
        line: 9,
        col: 46,
        message: "`masks` is a value of `P[i]` (computed for round `share`); `P[j]` cannot use it because the round does not send it",
        note: "in round `share` (P -> P : Share) of protocol `Sum`",
        help: "add `masks` to the fields of `Share`",
    },
    Case {
        name: "party_deadlock",
        line: 8,
        col: 42,
        message: "n-party deadlock: every party `P[i]` must send `s` in round `reveal`, but receives it only later, in round `share` (line 9)",
        note: "in round `reveal` (P -> all : Reveal) of protocol `Sum`",
        help: "move round `share` before round `reveal`",
    },
    Case {
        name: "broadcast_not_party",
        line: 8,
        col: 28,
        message: "broadcast from `Sender`, which is not a party: `-> all` needs a party array `role P[n]`",
        note: "in round `setup` (Sender -> all : Setup) of protocol `Co15`",
        help: "send to one role (`Sender -> <role>`)",
    },
    Case {
        name: "party_mapping",
        line: 5,
        col: 41,
        message: "role mapping mismatch: `P` is a party array (`role P[n]`), but role `Sender` of `RandomOt` is one party",
        note: "in sub-protocol call `base` of protocol `Pairs`",
        help: "`RandomOt` is a two-party functionality",
    },
    // `whole_columns` binds the same Rust path as the prelude's
    // `transpose_columns` but has no chunk variant: it must not borrow one.
    Case {
        name: "stream_whole_matrix",
        line: 14,
        col: 11,
        message: "`Receiver` reads the whole of `t` after chunked round `extend`, but a matrix computed chunk by chunk exists only one chunk at a time",
        note: "in round `extend` of protocol `Streamed`",
        help: "compute what you need from it chunk by chunk as well",
    },
    Case { name: "dealer_value", line: 7, col: 23, message: "`mask` is a value of `Dealer` only (its input, computed in `at Dealer`, or received by it alone); `P[i]` cannot use it because no round sends it", note: "in `at P` of protocol `Masked`", help: "send it first, e.g. `round r: Dealer -> all : M { mask: u64 }`" },
    Case { name: "dealer_reads_party", line: 6, col: 21, message: "`x` is a value of the parties `P` (their input, computed in `at P[i]`, or received by them); `Dealer` cannot use it because no round sends it", note: "in `at Dealer` of protocol `Peek`", help: "send it first, e.g. `round r: P[i] -> Dealer : M { x: u64 }`" },
    Case { name: "dealer_self_send", line: 6, col: 5, message: "round `again` sends `Again` from `Dealer` to itself, so the message is never received", note: "in round `again` (Dealer -> Dealer : Again) of protocol `Loop`", help: "`Dealer` sends to the parties: `Dealer -> P[j]`" },
    Case { name: "dealer_unknown_role", line: 6, col: 17, message: "unknown role `Dealr`", note: "in round `deal` (Dealr -> all : Deal) of protocol `Deal`", help: "did you mean `Dealer`?" },
    Case { name: "party_fixed_self_send", line: 6, col: 5, message: "round `keep` sends `Keep` from `P[0]` to itself, so the message is never received", note: "in round `keep` (P -> P : Keep) of protocol `Keep`", help: "name the receiver with another index" },
    Case { name: "literal_range", line: 5, col: 20, message: "integer literal `300` is out of range for `u8`", note: "in `at A` of protocol `Mask`", help: "`u8` holds 0 ..= 255" },
    Case { name: "div_by_param", line: 6, col: 27, message: "`/` by `n`, which may be zero", note: "in `at A` of protocol `Split`", help: "declare the parameter non-zero: `param n: usize requires n >= 1;`" },
    Case { name: "cast_non_integer", line: 6, col: 13, message: "cannot cast `Point` to `Scalar`", note: "in `at A` of protocol `Key`", help: "`as` converts between the integer types" },
    Case { name: "shift_non_integer", line: 6, col: 13, message: "operator `<<` cannot shift `Block` by `usize`", note: "in `at A` of protocol `Shift`", help: "shifts apply to an integer" },
    Case { name: "select_non_bit", line: 5, col: 23, message: "argument 1 of built-in `select` must be a `Bit` condition, found `u64`", note: "in `at A` of protocol `Choose`", help: "`select(b, x, y)`: `x` when the `Bit` `b` is true, else `y`" },
];

#[test]
fn every_ui_error_is_located_with_a_help_line() {
    for c in CASES {
        let file = format!("tests/ui/otp/{}.otp", c.name);
        let rendered = fail_path(&file);
        assert_diag(&rendered, &file, c.line, c.col, c.message, c.help);
        if !c.note.is_empty() {
            assert_note(&rendered, c.note);
        }
    }
}

#[test]
fn every_ui_otp_file_has_a_case_and_a_trybuild_test() {
    let dir = root().join("tests/ui/otp");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|n| n.strip_suffix(".otp").map(str::to_string))
        .collect();
    names.sort();
    let mut cased: Vec<String> = CASES.iter().map(|c| c.name.to_string()).collect();
    cased.sort();
    assert_eq!(
        names, cased,
        "tests/ui/otp/*.otp and CASES list the same errors"
    );
    assert!(names.len() >= 12);
}

/// Drops `//` comments and all whitespace, so a file can be compared with its
/// copy inside `ot::protocol! { ... }`.
fn normalize(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<String>()
        .split_whitespace()
        .collect()
}

/// trybuild builds each UI test in its own crate, where `CARGO_MANIFEST_DIR`
/// is not this repository, so `tests/ui/NAME.rs` uses the inline form with
/// the text of `tests/ui/otp/NAME.otp`. This keeps the two in sync.
#[test]
fn trybuild_tests_embed_the_otp_files() {
    for c in CASES {
        let otp =
            std::fs::read_to_string(root().join(format!("tests/ui/otp/{}.otp", c.name))).unwrap();
        let rs = std::fs::read_to_string(root().join(format!("tests/ui/{}.rs", c.name)))
            .unwrap_or_else(|_| panic!("tests/ui/{}.rs exists", c.name));
        assert!(
            normalize(&rs).contains(&normalize(&otp)),
            "tests/ui/{0}.rs must embed tests/ui/otp/{0}.otp verbatim",
            c.name
        );
    }
}

// ---- parse errors: the exact spot and the expected token, in words ----

const HEADER: &str = "protocol X(role A, role B) {\n";

#[test]
fn parse_errors_point_at_the_token() {
    let cases: &[(&str, usize, usize, &str, &str)] = &[
        (
            "  at A { x = sample Bit }\n}",
            2,
            25,
            "expected `;` or an operator, found `}`",
            "local computation is written `at Role {",
        ),
        (
            "  round r A -> B : M { x: Bit }\n}",
            2,
            11,
            "expected `:`, found `A`",
            "a round is written",
        ),
        (
            "  at A { x = ; }\n}",
            2,
            14,
            "expected an expression, found `;`",
            "local computation",
        ),
        (
            "  at A { x = f(a,, b); }\n}",
            2,
            18,
            "expected `)` or an expression, found `,`",
            "remove the extra `,`",
        ),
        (
            "  round r: A -> B : M { x Bit }\n}",
            2,
            27,
            "expected `:`, found `Bit`",
            "a round is written",
        ),
        (
            "  param n: usize requires;\n}",
            2,
            26,
            "expected an expression, found `;`",
            "a parameter is written",
        ),
        (
            "  do base: RandomOt[n = 1](Sender = A Receiver = B);\n}",
            2,
            39,
            "expected `)` or `,`, found `Receiver`",
            "a sub-protocol call is written",
        ),
    ];
    for (body, line, col, message, help) in cases {
        let text = format!("{HEADER}{body}");
        assert_diag(&fail_str(&text), "test.otp", *line, *col, message, help);
    }
}

#[test]
fn parse_error_at_end_of_file() {
    let r = fail_str("protocol X(role A, role B) {\n  at A { x = sample Bit; }\n");
    assert!(r.contains("expected `}` or a protocol item"), "{r}");
    assert!(r.contains("found end of file"), "{r}");
    assert!(r.contains("--> test.otp:3:1"), "{r}");
    assert!(r.contains("is a closing `}` missing?"), "{r}");
}

#[test]
fn parse_error_suggests_keyword() {
    let r = fail_str("protocl X(role A, role B) {}");
    assert_diag(
        &r,
        "test.otp",
        1,
        1,
        "found `protocl`",
        "did you mean `protocol`?",
    );
}

#[test]
fn keyword_as_name() {
    let r = fail_str(&format!("{HEADER}  at A {{ in = sample Bit; }}\n}}"));
    assert_diag(
        &r,
        "test.otp",
        2,
        10,
        "`in` is a keyword and cannot be used as a name",
        "choose another name, e.g. `in_`",
    );
}

// ---- more checker errors ----

const CO15_LIKE: &str = "protocol P(role Sender, role Receiver) {
    param n: usize requires n >= 1;
    input  Receiver { choices: Bits[n] }
    output Receiver { chosen: [Block; n] }
    at Sender { a = sample Scalar; big_a = base_mul(a); }
    round setup: Sender -> Receiver : Setup { big_a: Point }
    at Receiver { chosen = [hash_point(i, big_a) for i in 0..n]; }
}";

#[test]
fn co15_like_base_compiles() {
    let c = ok_str(CO15_LIKE);
    // `choices` and `a` are used or sent; nothing else is left over.
    let w: Vec<String> = c.warnings.iter().map(|w| w.render(&c.sources)).collect();
    assert!(
        w.iter()
            .any(|w| w.contains("value `choices` at `Receiver` is never used")),
        "{w:?}"
    );
}

#[test]
fn send_before_computing() {
    let text = CO15_LIKE.replace("    at Sender { a = sample Scalar; big_a = base_mul(a); }\n    round setup: Sender -> Receiver : Setup { big_a: Point }\n", "    round setup: Sender -> Receiver : Setup { big_a: Point }\n    at Sender { a = sample Scalar; big_a = base_mul(a); }\n");
    let r = fail_str(&text);
    assert_diag(
        &r,
        "test.otp",
        5,
        47,
        "`Sender` sends `big_a` before computing it (line 6)",
        "move the computation of `big_a` (line 6) before this point",
    );
}

#[test]
fn unknown_value_suggests() {
    let r = fail_str(&CO15_LIKE.replace("hash_point(i, big_a)", "hash_point(i, bg_a)"));
    assert_diag(
        &r,
        "test.otp",
        7,
        43,
        "unknown value `bg_a` at `Receiver`",
        "did you mean `big_a`?",
    );
}

#[test]
fn output_of_other_role() {
    let r = fail_str(&CO15_LIKE.replace(
        "output Receiver { chosen: [Block; n] }",
        "output Receiver { chosen: [Block; n] }\n    output Sender { big_b: Point }",
    ));
    assert!(
        r.contains("output `big_b` of `Sender` is never computed"),
        "{r}"
    );
}

#[test]
fn abort_names_and_checks() {
    let r = fail_str(&CO15_LIKE.replace(
        "at Receiver { chosen",
        "at Receiver { check is_identity(big_a) else abort bad; chosen",
    ));
    assert!(
        r.contains("must start with an upper-case letter: `bad`"),
        "{r}"
    );
    let r = fail_str(&CO15_LIKE.replace(
        "at Receiver { chosen",
        "at Receiver { check big_a else abort Bad; chosen",
    ));
    assert!(
        r.contains("`check` needs a condition (a `Bit`), found `Point`"),
        "{r}"
    );
}

#[test]
fn duplicate_round_and_message_names() {
    let r = fail_str(&CO15_LIKE.replace("    at Receiver {", "    at Receiver { t = sample Block; }\n    round setup: Receiver -> Sender : Again { t: Block }\n    at Receiver {"));
    assert!(
        r.contains("round `setup` is already declared at line 6"),
        "{r}"
    );
    let r = fail_str(&CO15_LIKE.replace("    at Receiver {", "    at Receiver { t = sample Block; }\n    round again: Receiver -> Sender : Setup { t: Block }\n    at Receiver {"));
    assert!(
        r.contains("message `Setup` is already used by another round (line 6)"),
        "{r}"
    );
}

#[test]
fn unknown_functionality_and_parameter() {
    let text =
        "protocol P(role S, role R) {\n    do base: RandomOT[n = 4](Sender = S, Receiver = R);\n}";
    assert_diag(
        &fail_str(text),
        "test.otp",
        2,
        14,
        "unknown functionality `RandomOT`",
        "did you mean `RandomOt`?",
    );
    let text =
        "protocol P(role S, role R) {\n    do base: RandomOt[m = 4](Sender = S, Receiver = R);\n}";
    assert_diag(
        &fail_str(text),
        "test.otp",
        2,
        23,
        "`RandomOt` has no parameter `m`",
        "`n`",
    );
}

// ---- valid protocols and warnings ----

/// Round names of a compiled file.
fn rounds_of(rel: &str) -> Vec<String> {
    ok_path(rel)
        .ir
        .unwrap()
        .rounds
        .iter()
        .map(|r| r.name.clone())
        .collect()
}

#[test]
fn shipped_protocols_compile() {
    for (file, name) in [
        ("protocols/co15.otp", "Co15"),
        ("protocols/np00.otp", "Np00"),
    ] {
        let c = ok_path(file);
        let ir = c.ir.as_ref().unwrap();
        assert_eq!(ir.name, name);
        assert_eq!(ir.roles, ["Sender", "Receiver"]);
        // The sender opens with `setup`; the receiver answers.
        assert_eq!(
            (
                ir.rounds[0].name.as_str(),
                ir.rounds[0].from,
                ir.rounds[0].to
            ),
            ("setup", 0, 1),
            "{file}"
        );
        assert!(
            ir.rounds.iter().any(|r| r.from == 1),
            "{file}: the receiver sends something"
        );
        assert!(!c.tokens.is_empty());
        for w in &c.warnings {
            assert_eq!(w.severity, Severity::Warning);
        }
    }
    // The chosen-message variants are their base plus one round.
    for (base, chosen) in [
        ("protocols/co15.otp", "protocols/co15_chosen.otp"),
        ("protocols/np00.otp", "protocols/np00_chosen.otp"),
    ] {
        let mut want = rounds_of(base);
        want.push("derandomize".into());
        assert_eq!(rounds_of(chosen), want, "{chosen}");
    }
}

/// Every `.otp` file in `protocols/` (except the prelude) and `examples/`.
fn shipped_files() -> Vec<String> {
    let mut out = vec![];
    for dir in ["protocols", "examples"] {
        for e in std::fs::read_dir(root().join(dir)).unwrap() {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            if name.ends_with(".otp") && name != "prelude.otp" {
                out.push(format!("{dir}/{name}"));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn every_shipped_otp_file_compiles() {
    let files = shipped_files();
    assert!(files.len() >= 5, "{files:?}");
    for f in files {
        let c = ok_path(&f);
        assert!(c.ir.is_some() && !c.tokens.is_empty(), "{f}");
    }
}

#[test]
fn example_protocol_compiles() {
    let c = ok_path("examples/coin_flip.otp");
    assert_eq!(c.ir.as_ref().unwrap().rounds.len(), 3);
}

#[test]
fn unused_values_are_warnings() {
    let text = CO15_LIKE.replace(
        "big_a = base_mul(a); }",
        "big_a = base_mul(a); junk = sample Block; _kept = sample Block; }",
    );
    let c = ok_str(&text);
    let w: Vec<String> = c.warnings.iter().map(|w| w.render(&c.sources)).collect();
    let junk = w
        .iter()
        .find(|w| w.contains("value `junk` at `Sender` is never used"))
        .unwrap_or_else(|| panic!("{w:?}"));
    assert!(junk.starts_with("warning: "), "{junk}");
    assert!(junk.contains("--> test.otp:5:"), "{junk}");
    assert!(
        junk.contains("= help: remove it, or prefix a deliberate leftover with `_`"),
        "{junk}"
    );
    assert!(
        !w.iter().any(|w| w.contains("value `_kept`")),
        "a leading `_` silences the warning: {w:?}"
    );
}

// ---- extends / insert ----

const CHOSEN_BASE: &str = "import \"protocols/co15.otp\";\n";

#[test]
fn extends_splices_inserted_items_in_place() {
    let text = format!(
        "{CHOSEN_BASE}protocol Pinged extends Co15 {{
    insert after setup {{
        at Receiver {{ ping = hash_point(0, big_a); }}
        round ping: Receiver -> Sender : Ping {{ ping: Block }}
        at Sender {{ _echo = ping; }}
    }}
    insert before setup {{
        at Sender {{ hello = sample Block; }}
        round hello: Sender -> Receiver : Hello {{ hello: Block }}
        at Receiver {{ _hi = hello; }}
    }}
    at Sender {{ tail = sample Block; }}
    round last: Sender -> Receiver : Last {{ tail: Block }}
    at Receiver {{ _t = tail; }}
}}"
    );
    let c = ok_str(&text);
    let ir = c.ir.unwrap();
    let rounds: Vec<&str> = ir.rounds.iter().map(|r| r.name.as_str()).collect();
    let base = rounds_of("protocols/co15.otp");
    let mut want = vec!["hello", "setup", "ping"];
    want.extend(base[1..].iter().map(String::as_str));
    want.push("last");
    assert_eq!(rounds, want);
    // Projection: the receiver of `ping` is the sender, in order.
    assert_eq!((ir.rounds[2].from, ir.rounds[2].to), (1, 0));
}

#[test]
fn extends_with_unknown_anchor() {
    let text = format!("{CHOSEN_BASE}protocol Bad extends Co15 {{\n    insert after setpu {{ at Sender {{ x = sample Block; }} }}\n}}");
    let r = fail_str(&text);
    assert_diag(
        &r,
        "test.otp",
        3,
        18,
        "`Co15` has no round, call or value named `setpu` to insert after",
        "did you mean `setup`?",
    );
    assert_note(&r, "in protocol `Bad`");
}

#[test]
fn omit_leaves_base_items_out() {
    // The receiver's output and what only it needs are gone; the sender's
    // side and every round stay.
    let text =
        format!("{CHOSEN_BASE}protocol NoChosen extends Co15 {{\n    omit chosen, dh_c;\n}}");
    let ir = ok_str(&text).ir.unwrap();
    assert!(ir.outputs[1].is_empty(), "{:?}", ir.outputs[1]);
    assert_eq!(ir.outputs[0].len(), 1);
    assert_eq!(
        ir.rounds.iter().map(|r| r.name.clone()).collect::<Vec<_>>(),
        rounds_of("protocols/co15.otp")
    );
    // The quiet conversions omit the base's bit-OT expansion.
    for rel in [
        "protocols/quiet_bipsw_rot.otp",
        "protocols/quiet_gar_rot.otp",
    ] {
        let ir = ok_path(rel).ir.unwrap();
        for outs in &ir.outputs {
            assert!(outs.iter().all(|(n, _)| n != "ots"), "{rel}: {outs:?}");
        }
    }
}

#[test]
fn omit_of_something_still_used() {
    let text = format!("{CHOSEN_BASE}protocol Bad extends Co15 {{\n    omit dh_lo;\n}}");
    assert_diag(
        &fail_str(&text),
        "test.otp",
        3,
        10,
        "`dh_lo` is omitted, but the statement assigning `dh` at `Sender` still uses it",
        "omit what uses `dh_lo` too",
    );
    // An omitted round takes its fields with it.
    let text =
        format!("{CHOSEN_BASE}protocol Bad extends Co15 {{\n    omit chosen, choose_hi;\n}}");
    assert_diag(
        &fail_str(&text),
        "test.otp",
        3,
        18,
        "`big_b_hi` (of the omitted `choose_hi`) is gone, but the statement assigning `dh` at `Sender` still uses it",
        "keep `choose_hi`",
    );
    // An output the derived protocol's `realizes` maps.
    let text = format!("{CHOSEN_BASE}protocol Bad extends Co15 realizes RandomOt(Sender = Sender, Receiver = Receiver) with {{ Sender.messages = messages, Receiver.choices = choices, Receiver.chosen = chosen }} {{\n    omit chosen;\n}}");
    assert_diag(
        &fail_str(&text),
        "test.otp",
        3,
        10,
        "`chosen` is omitted, but",
        "omit what uses `chosen` too",
    );
}

#[test]
fn omit_of_an_unknown_name() {
    let text = format!("{CHOSEN_BASE}protocol Bad extends Co15 {{\n    omit chosen, dh_x;\n}}");
    assert_diag(
        &fail_str(&text),
        "test.otp",
        3,
        18,
        "`Co15` has no round, call, value or output named `dh_x` to omit",
        "did you mean `dh_c`?",
    );
    // Parameters and inputs are not omittable.
    let text = format!("{CHOSEN_BASE}protocol Bad extends Co15 {{\n    omit n;\n}}");
    assert!(fail_str(&text).contains("no round, call, value or output named `n`"));
}

#[test]
fn omit_without_extends_or_inside_insert() {
    let text = "protocol P(role A, role B) {\n    omit x;\n}";
    assert_diag(
        &fail_str(text),
        "test.otp",
        2,
        5,
        "`omit` is only allowed in a protocol that `extends` another",
        "extends Base",
    );
    let text = format!(
        "{CHOSEN_BASE}protocol Bad extends Co15 {{\n    insert after setup {{ omit chosen; }}\n}}"
    );
    assert_diag(
        &fail_str(&text),
        "test.otp",
        3,
        26,
        "`omit` must appear directly in a protocol that `extends` another",
        "move it out of the `insert` body",
    );
}

#[test]
fn extends_unknown_base() {
    let text = format!("{CHOSEN_BASE}protocol Bad extends Co51 {{ }}");
    assert_diag(
        &fail_str(&text),
        "test.otp",
        2,
        22,
        "unknown base protocol `Co51`",
        "did you mean `Co15`?",
    );
}

#[test]
fn insert_without_extends() {
    let text = "protocol P(role A, role B) {\n    insert after x { }\n}";
    assert_diag(
        &fail_str(text),
        "test.otp",
        2,
        5,
        "`insert` is only allowed in a protocol that `extends` another",
        "extends Base",
    );
}

#[test]
fn extends_errors_point_into_the_file_that_has_them() {
    // An error in the items of the derived protocol is reported in its file...
    let text =
        format!("{CHOSEN_BASE}protocol Bad extends Co15 {{\n    at Receiver {{ y = a; }}\n}}");
    let r = fail_str(&text);
    assert_diag(
        &r,
        "test.otp",
        3,
        23,
        "`a` belongs to `Sender`",
        "send it in a round `Sender -> Receiver`",
    );
    assert_note(&r, "in `at Receiver` of protocol `Bad`");
    // ...and one in the base's items in the base file, naming the other
    // file when it refers to a line there.
    let text = format!("{CHOSEN_BASE}protocol Bad extends Co15 {{\n    insert after setup {{ at Sender {{ messages = sample Block; }} }}\n}}");
    let r = fail_str(&text);
    assert!(
        r.contains(
            "`messages` is already defined at `Sender` (test.otp:3); values are assigned once"
        ),
        "{r}"
    );
    assert!(r.contains("--> protocols/co15.otp:"), "{r}");
    assert_note(&r, "of protocol `Bad`");
}

// ---- removing or reordering a round of co15.otp breaks the build, located ----

fn co15() -> String {
    std::fs::read_to_string(root().join("protocols/co15.otp")).unwrap()
}

fn round_line(text: &str, name: &str) -> String {
    text.lines()
        .find(|l| l.trim_start().starts_with(&format!("round {name}:")))
        .unwrap_or_else(|| panic!("co15.otp has round `{name}` on one line"))
        .to_string()
}

/// The receiver's first message in co15.otp: its round and first field.
fn co15_reply() -> (String, String) {
    let ir = ok_path("protocols/co15.otp").ir.unwrap();
    let r = ir
        .rounds
        .iter()
        .find(|r| r.from == 1)
        .expect("the receiver sends a round");
    (r.name.clone(), r.fields[0].0.clone())
}

/// Compiles mutated co15 text; returns the rendered error, its line and that line's text.
fn co15_error(text: &str) -> (String, usize, String) {
    let r = fail_str(text);
    let loc = r
        .lines()
        .nth(1)
        .unwrap()
        .trim_start()
        .strip_prefix("--> test.otp:")
        .unwrap_or_else(|| panic!("located in the mutated file:\n{r}"));
    let line: usize = loc.split(':').next().unwrap().parse().unwrap();
    let src = text.lines().nth(line - 1).unwrap().to_string();
    assert!(r.contains("= help: "), "{r}");
    assert!(
        r.contains("of protocol `Co15`") || r.contains("in protocol `Co15`"),
        "{r}"
    );
    (r, line, src)
}

#[test]
fn co15_compiles_as_text_too() {
    ok_str(&co15());
}

#[test]
fn co15_without_setup_round() {
    let text = co15();
    let (r, _, src) = co15_error(&text.replace(&round_line(&text, "setup"), ""));
    assert!(
        r.contains("`big_a` belongs to `Sender`; `Receiver` cannot use it"),
        "{r}"
    );
    assert!(
        src.contains("big_a"),
        "points at a use of big_a: {src}\n{r}"
    );
}

#[test]
fn co15_without_the_receivers_round() {
    let text = co15();
    let (round, field) = co15_reply();
    let (r, _, src) = co15_error(&text.replace(&round_line(&text, &round), ""));
    assert!(
        r.contains(&format!(
            "`{field}` belongs to `Receiver`; `Sender` cannot use it"
        )),
        "{r}"
    );
    assert!(src.contains(&field), "{src}\n{r}");
}

#[test]
fn co15_with_rounds_swapped() {
    let text = co15();
    let (round, field) = co15_reply();
    let (setup, reply) = (round_line(&text, "setup"), round_line(&text, &round));
    let swapped = text
        .replace(&setup, "@SETUP@")
        .replace(&reply, &setup)
        .replace("@SETUP@", &reply);
    let (r, line, src) = co15_error(&swapped);
    assert!(
        r.contains(&format!("`Receiver` sends `{field}` before computing it")),
        "{r}"
    );
    assert!(src.contains(&format!("round {round}:")), "{src}\n{r}");
    let setup_line = text.lines().position(|l| l == setup).unwrap() + 1;
    assert_eq!(
        line, setup_line,
        "the receiver's round now sits where setup was"
    );
}

#[test]
fn co15_with_setup_moved_last() {
    let text = co15();
    let setup = round_line(&text, "setup");
    let end = text.rfind('}').unwrap();
    let moved = format!("{}{}\n}}\n", &text[..end].replace(&setup, ""), setup);
    let (r, _, src) = co15_error(&moved);
    assert!(
        r.contains("`Receiver` uses `big_a` before receiving it in round `setup`"),
        "{r}"
    );
    assert!(src.contains("big_a"), "{src}\n{r}");
}

// ---- the renderer and the compiler never panic ----

#[test]
fn renderer_survives_odd_spans() {
    let mut sources = SourceMap::default();
    let id = sources.add("odd.otp".into(), None, "héllo\n\twörld\n".into());
    for (start, end) in [
        (0, 0),
        (2, 3),
        (1, 100),
        (100, 200),
        (8, 2),
        (u32::MAX - 1, u32::MAX),
        (7, 9),
    ] {
        let d = Diagnostic::error(
            Span {
                file: id,
                start,
                end,
            },
            "odd",
        )
        .with_help("h");
        let r = d.render(&sources);
        assert!(
            r.starts_with("error: odd\n") && r.contains("= help: h"),
            "{r}"
        );
    }
    let r = Diagnostic::error(
        Span {
            file: 42,
            start: 0,
            end: 1,
        },
        "nowhere",
    )
    .render(&sources);
    assert!(r.contains("nowhere"), "{r}");
    // Tabs: the caret lines up under the expanded tab.
    let r = Diagnostic::error(
        Span {
            file: id,
            start: 8,
            end: 14,
        },
        "tab",
    )
    .render(&sources);
    assert!(r.contains("2 |     wörld\n  |     ^^^^^\n"), "{r}");
}

#[test]
fn multibyte_text_near_errors() {
    // Found by the property test: an unterminated comment ending in a
    // two-byte character put the error position inside it.
    for text in [
        "/* \u{615}",
        "protocol \u{e9}",
        "protocol X(role A, role B) { at A { x = \u{1F574}; } }",
        "\u{615}",
    ] {
        let r = fail_str(text);
        assert!(r.starts_with("error: syntax error"), "{r}");
    }
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for open in ["(", "[", "!", "-"] {
        let text = format!("{HEADER}  at A {{ x = {}1; }}\n}}", open.repeat(5000));
        let _ = compile_str("deep.otp", &text, &root()).map_err(|f: Failure| f.render());
    }
}

fn mutate(base: &str, at: usize, del: usize, insert: &str) -> String {
    let mut cut = at.min(base.len());
    while !base.is_char_boundary(cut) {
        cut -= 1;
    }
    let mut end = (cut + del).min(base.len());
    while !base.is_char_boundary(end) {
        end += 1;
    }
    format!("{}{}{}", &base[..cut], insert, &base[end..])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_text_never_panics(text in "\\PC{0,200}") {
        if let Err(f) = compile_str("fuzz.otp", &text, &root()) {
            prop_assert!(f.render().contains("error"));
        }
    }

    #[test]
    fn mutated_co15_never_panics(at in 0usize..2000, del in 0usize..40, insert in "[ -~\\n]{0,12}") {
        let text = mutate(&co15(), at, del, &insert);
        match compile_str("fuzz.otp", &text, &root()) {
            Ok(c) => { for w in &c.warnings { let _ = w.render(&c.sources); } }
            Err(f) => {
                let r = f.render();
                prop_assert!(r.starts_with("error: "), "{}", r);
                prop_assert!(r.contains("= help: ") || r.contains("-->"), "{}", r);
            }
        }
    }

    #[test]
    fn mutated_shipped_files_never_panic(file in prop::sample::select(shipped_files()), at in 0usize..4000, del in 0usize..20, insert in "[ -~\\n]{0,8}") {
        let text = std::fs::read_to_string(root().join(&file)).unwrap();
        if let Err(f) = compile_str("fuzz.otp", &mutate(&text, at, del, &insert), &root()) {
            prop_assert!(f.render().starts_with("error: "));
        }
    }

    #[test]
    fn mutated_tokens_never_panic(at in 0usize..2000, tok in prop::sample::select(vec![
        "->", "=>", ";", "}", "{", "[", "]", "(", ")", ":", ",", "round", "at", "do", "sample", "0..n", "Bits[n]", "[Point; n]", "Receiver", "Sender", "é", "\t", "//", "/*",
    ])) {
        let text = mutate(&co15(), at, 0, tok);
        if let Err(f) = compile_str("fuzz.otp", &text, &root()) {
            let _ = f.render();
        }
    }
}

/// A Delta-IKNP-like protocol whose `extend` round is chunked; `$producer`
/// and `$consumer` are the lines that compute and read `u`, `$tail` the
/// receiver's computation after the round. Two intrinsics without a chunk
/// variant are declared for the negative cases.
fn chunked_protocol(by: &str, producer: &str, consumer: &str, tail: &str) -> String {
    format!(
        "intrinsic whole_columns(t: BitMatrix[K, M]) -> [Block; M] = ::x::whole_columns;
intrinsic whole_xor(t: BitMatrix[K, M], seeds: [PrgKey; K], r: Bits[M]) -> BitMatrix[K, M] = ::x::whole_xor;
protocol P(role Sender, role Receiver) {{
    const KAPPA: usize = 128;
    param m: usize requires m >= 1;
    input  Sender   {{ delta: Block }}
    input  Receiver {{ r: Bits[m] }}
    output Sender   {{ zeros: [Block; m] }}
    output Receiver {{ chosen: [Block; m] }}
    at Sender {{ s = block_bits(delta); }}
    do base: RandomOt[n = KAPPA](Sender = Receiver, Receiver = Sender) with {{ Receiver.choices = s }};
    at Receiver {{ k0 = prg_keys([base.messages[j][0] for j in 0..KAPPA]); k1 = prg_keys([base.messages[j][1] for j in 0..KAPPA]); }}
    round extend: Receiver -> Sender : Extend {{ u: BitMatrix[KAPPA, m] }} chunked(by = {by}) {{
        at Receiver {{ {producer} }}
    }}
    at Sender {{ {consumer} }}
    at Receiver {{ {tail} }}
}}
"
    )
}

/// The stages of role `role`'s stream, as `name` or `name (whole)`.
fn stream_stages(c: &Compiled, role: usize) -> (Vec<String>, Vec<String>) {
    use ot_compiler::ir::{Event, Keep};
    let ir = c.ir.as_ref().expect("checked protocol");
    let st = ir.events[role]
        .iter()
        .find_map(|e| match e {
            Event::Stream(st) => Some(st),
            _ => None,
        })
        .expect("a stream");
    let names = |v: &[ot_compiler::ir::Stage]| {
        v.iter()
            .map(|s| match s.keep {
                Keep::Whole => format!("{} (whole)", s.name),
                Keep::Fold => format!("{} (sum)", s.name),
                Keep::Chunk => s.name.clone(),
            })
            .collect()
    };
    (names(&st.before), names(&st.after))
}

#[test]
fn chunked_round_streams_and_reports_what_cannot_stream() {
    let good_producer = "t = prg_rows(k0, m, 1); u = xor_prg_choice(t, k1, r, 1);";
    let good_consumer = "zeros = masked_columns(prg_keys(base.chosen), u, s, 1);";
    let good_tail = "chosen = transpose_columns(t, 1);";
    let c = ok_str(&chunked_protocol(
        "4096",
        good_producer,
        good_consumer,
        good_tail,
    ));
    // The receiver computes `t` and `u` per chunk, sends, then transposes
    // into its output; the sender writes each chunk's columns into `zeros`.
    assert_eq!(
        stream_stages(&c, 1),
        (
            vec!["t".to_string(), "u".to_string()],
            vec!["chosen (whole)".to_string()]
        )
    );
    assert_eq!(
        stream_stages(&c, 0),
        (vec![], vec!["zeros (whole)".to_string()])
    );

    // A `Block` reduction over a streamed value is summed chunk by chunk.
    let c = ok_str(&chunked_protocol(
        "4096",
        good_producer,
        "zeros = masked_columns(prg_keys(base.chosen), u, s, 1); sum_q = gf_inner_seeded(zeros, delta);",
        good_tail,
    ));
    assert_eq!(
        stream_stages(&c, 0).1,
        vec!["zeros (whole)".to_string(), "sum_q (sum)".to_string()]
    );

    let e = fail_str(&chunked_protocol(
        "100",
        good_producer,
        good_consumer,
        good_tail,
    ));
    assert!(
        e.contains("must be a positive constant multiple of 128"),
        "{e}"
    );
    // At the chunk size, which is what to change.
    assert!(e.contains("test.otp:13:87"), "{e}");

    let e = fail_str(&chunked_protocol(
        "4096",
        "t = prg_rows(k0, m, 1); u = whole_xor(t, k1, r);",
        good_consumer,
        good_tail,
    ));
    assert!(
        e.contains("must be computed by one call of an intrinsic with a `chunked` variant"),
        "{e}"
    );
    assert!(e.contains("`xor_prg_choice`"), "{e}");

    let e = fail_str(&chunked_protocol(
        "4096",
        good_producer,
        "zeros = whole_columns(u);",
        good_tail,
    ));
    assert!(e.contains("`Sender` uses `u` of chunked round `extend` in a computation that cannot run chunk by chunk"), "{e}");

    let e = fail_str(&chunked_protocol(
        "4096",
        good_producer,
        good_consumer,
        "chosen = whole_columns(t);",
    ));
    assert!(
        e.contains("`Receiver` reads the whole of `t` after chunked round `extend`"),
        "{e}"
    );

    let e = fail_str(&chunked_protocol(
        "4096",
        "t = prg_rows(k0, m, 1); w = whole_columns(t); u = xor_prg_choice(t, k1, r, 1);",
        good_consumer,
        good_tail,
    ));
    assert!(
        e.contains("`Receiver` reads `t`, which is computed chunk by chunk for round `extend`"),
        "{e}"
    );
}

#[test]
fn move_parameters_move_a_last_use_and_copy_otherwise() {
    let text = "protocol P(role A, role B) {
    param m: usize requires m >= 1;
    output A { first: [Block; m], again: [Block; m] }
    output B { done: Bit }
    at A {
        v = [sample Block for i in 0..m + 1];
        w = [sample Block for i in 0..m + 1];
        first = columns_first_blocks(v, m);
        again = columns_first_blocks(w, m);
        keep = w;
    }
    round r: A -> B : Keep { keep: [Block; m + 1] }
    at B { done = keep[0] == keep[0]; }
}
";
    let tokens = ok_str(text).tokens.to_string().replace(' ', "");
    // `v` is read once and dead afterwards: moved (out of the wrapper
    // that wipes the role's secrets).
    assert!(
        tokens.contains("first_blocks(::core::mem::take(&mut*v),"),
        "{tokens}"
    );
    // `w` is read again by the next statement: copied.
    assert!(
        tokens.contains("first_blocks(::core::clone::Clone::clone(&(*w)),"),
        "{tokens}"
    );
}

/// A fixed party index is out of range only against the least number of
/// parties `requires` allows; an index that always exists names that party
/// (a constant works as well as a literal).
#[test]
fn fixed_party_index_is_judged_against_requires() {
    let proto = |req: &str, ix: &str| {
        format!(
            "protocol S(role P[n]) {{\n    const ROOT: usize = 3;\n    param n: usize requires {req};\n    input P[i] {{ x: u64 }}\n    output P[i] {{ s: u64 }}\n    round r: P[{ix}] -> all : M {{ x: u64 }}\n    at P[i] {{ s = x; }}\n}}\n"
        )
    };
    ok_str(&proto("n >= 4", "3"));
    ok_str(&proto("n > 3 && n <= 9", "ROOT"));
    ok_str(&proto("n >= 2", "0"));
    let out = fail_str(&proto("n >= 3", "3"));
    assert!(
        out.contains("party index out of range: `P[3]` is not a party when there are 3"),
        "{out}"
    );
    assert!(out.contains(":6:"), "located at the index: {out}");
    let out = fail_str(&proto("n >= 3", "ROOT"));
    assert!(out.contains("party index out of range"), "{out}");
}

/// Values of one fixed party: known only to it until a round sends them.
#[test]
fn fixed_party_values_stay_with_their_party() {
    let proto = |body: &str| {
        format!(
            "protocol S(role P[n]) {{\n    param n: usize requires n >= 3;\n    input P[0] {{ k: u64 }}\n    input P[i] {{ x: u64 }}\n    output P[i] {{ s: u64 }}\n{body}\n}}\n"
        )
    };
    // P[1] may not read P[0]'s values, nor may every party send one.
    let out = fail_str(&proto("    at P[1] { y = k; }\n    at P[i] { s = x; }"));
    assert!(out.contains("`k` is a value of `P[0]` only"), "{out}");
    let out = fail_str(&proto(
        "    round r: P[i] -> all : M { k: u64 }\n    at P[i] { s = x; }",
    ));
    assert!(out.contains("`k` is a value of `P[0]` only"), "{out}");
    // What P[0] alone receives is its own too.
    let out = fail_str(&proto(
        "    round r: P[j] -> P[0] : M { x: u64 }\n    at P[i] { s = sum_u64(x); }",
    ));
    assert!(out.contains("`x` is a value of `P[0]` only"), "{out}");
    // An output of every party cannot be P[0]'s.
    let out = fail_str(&proto("    at P[0] { s = k; }"));
    assert!(out.contains("`s` is a value of `P[0]` only"), "{out}");
    // After P[0] broadcasts it, everyone knows it.
    ok_str(&proto(
        "    round r: P[0] -> all : M { k: u64 }\n    at P[i] { s = k + x; }",
    ));
    // A round from one fixed party to another: the value is then the
    // receiver's alone; to itself it is refused.
    ok_str(&proto(
        "    round r: P[0] -> P[1] : M { k: u64 }\n    at P[1] { y = k; }\n    at P[i] { s = x; }",
    ));
    let out = fail_str(&proto(
        "    round r: P[0] -> P[1] : M { k: u64 }\n    at P[2] { y = k; }\n    at P[i] { s = x; }",
    ));
    assert!(out.contains("`k` is a value of `P[1]` only"), "{out}");
    let out = fail_str(&proto(
        "    round r: P[0] -> P[0] : M { k: u64 }\n    at P[i] { s = x; }",
    ));
    assert!(out.contains("from `P[0]` to itself"), "{out}");
}

/// A named role next to the party array (the dealer): its rounds become
/// rounds of the fixed party `DEALER`, its inputs and outputs are role 1's,
/// its values stay its own, and the shipped protocol compiles to a `Dealer`
/// type next to `P`.
#[test]
fn dealer_rounds_and_knowledge() {
    use ot_compiler::ir::{PartyRound, DEALER};
    let c = ok_path("protocols/beaver_dealer.otp");
    let ir = c.ir.expect("ir");
    assert_eq!(ir.dealer.as_deref(), Some("Dealer"));
    assert_eq!(ir.roles, ["P", "Dealer"]);
    let kinds: Vec<_> = ir.rounds.iter().map(|r| r.party).collect();
    assert_eq!(
        kinds,
        [
            Some(PartyRound::FromOne { sender: DEALER }),
            Some(PartyRound::Broadcast { checked: true })
        ]
    );
    let tokens = c.tokens.to_string();
    assert!(tokens.contains("pub struct Dealer < S >"), "{tokens}");
    assert!(tokens.contains("pub fn send_deal"), "{tokens}");
    let proto = |io: &str, body: &str| {
        format!("protocol S(role Dealer, role P[n]) {{\n    param n: usize requires n >= 2;\n{io}\n{body}\n}}\n")
    };
    let io = "    input Dealer { k: u64 }\n    input P[i] { x: u64 }\n    output Dealer { t: u64 }\n    output P[i] { s: u64 }";
    // Every kind of round of the dealer; its input and output.
    let ir = ok_str(&proto(io, "    round a: Dealer -> all : A { k: u64 }\n    at P[i] { s = k + x; }\n    round b: P[i] -> Dealer : B { x: u64 }\n    at Dealer { t = sum_u64(x); }"))
        .ir
        .expect("ir");
    assert_eq!(
        ir.inputs[1],
        [("k".to_string(), ot_compiler::types::Ty::U64)]
    );
    assert_eq!(
        ir.rounds[1].party,
        Some(PartyRound::ToOne { receiver: DEALER })
    );
    // What the dealer alone receives is its own.
    let out = fail_str(&proto(io, "    round b: P[i] -> Dealer : B { x: u64 }\n    at P[i] { s = sum_u64(x); }\n    at Dealer { t = k; }"));
    assert!(out.contains("`x` is a value of `Dealer` only"), "{out}");
    // The dealer's output must be computed from its own values.
    let out = fail_str(&proto(
        io,
        "    at P[i] { s = x; }\n    at Dealer { t = s; }",
    ));
    assert!(out.contains("`Dealer` cannot use it"), "{out}");
    // A round between the dealer and one fixed party is refused.
    let out = fail_str(&proto(io, "    round a: Dealer -> P[0] : A { k: u64 }\n    at P[i] { s = x; }\n    at Dealer { t = k; }"));
    assert!(
        out.contains("goes from `Dealer` to one party, `P[0]`"),
        "{out}"
    );
    // The dealer is not an array; only one named role.
    let out = fail_str(&proto(
        io,
        "    at Dealer[0] { t = k; }\n    at P[i] { s = x; }",
    ));
    assert!(out.contains("`Dealer` is a single role"), "{out}");
    let out = fail_str(
        "protocol S(role A, role B, role P[n]) {\n    param n: usize requires n >= 2;\n}\n",
    );
    assert!(out.contains("second named role"), "{out}");
}

// ---- integers (issue 13, items 1 and 2) ----

const INT_HEADER: &str = "protocol P(role A, role B) {\n";

fn int_ok(body: &str) {
    let text = format!("{INT_HEADER}{body}\n}}\n");
    if let Err(f) = compile_str("test.otp", &text, &root()) {
        panic!("should compile:\n{text}\n{}", f.render());
    }
}

#[test]
fn integer_features_compile() {
    int_ok("  param k: usize requires k > 0 && k <= 64;\n  input A { x: u64, y: u32 }\n  output B { z: u64 }\n  at A {\n    s = [x << i for i in 0..64];\n    t = -sum(s) + xor(s) * 3 + (y as u64) / 7 + (0xffu8 as u64) % 5 + (x >> 2);\n    z = select(bit(x, 5), t, 1) + (x as Block) as u64 / (k as u64);\n  }\n  round r: A -> B : M { z: u64 }");
    int_ok("  param k: usize requires 1 <= k;\n  input A { x: usize }\n  output B { z: usize }\n  at A { z = x / k + x % 3; }\n  round r: A -> B : M { z: usize }");
    int_ok("  param k: usize requires k >= 1;\n  input A { x: Bits[64 / k] }\n  output B { z: Bits[64 / k] }\n  at A { z = x; }\n  round r: A -> B : M { z: Bits[64 / k] }");
}

#[test]
fn integer_errors_are_located() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "  input A { x: u64 }\n  output B { z: u64 }\n  at A { z = x + 99999999999999999999999999999; }\n  round r: A -> B : M { z: u64 }",
            "integer literal `99999999999999999999999999999` is out of range for `usize`",
            "`usize` holds 0 ..= 18446744073709551615",
        ),
        (
            "  const BIG: u8 = 256;\n  input A { x: u64 }\n  output B { z: u64 }\n  at A { z = x; }\n  round r: A -> B : M { z: u64 }",
            "integer literal `256` is out of range for `u8`",
            "`u8` holds 0 ..= 255",
        ),
        (
            "  input A { x: usize }\n  output B { z: usize }\n  at A { z = -x; }\n  round r: A -> B : M { z: usize }",
            "operator `-` does not apply to `usize`",
            "wrapping integers",
        ),
        (
            "  param k: usize requires k <= 8;\n  input A { x: Bits[64 / k] }\n  output B { z: Bits[64 / k] }\n  at A { z = x; }\n  round r: A -> B : M { z: Bits[64 / k] }",
            "`/` by `k`, which may be zero",
            "`param k: usize requires k <= 8 && k >= 1;`",
        ),
        (
            "  input A { x: u64, y: u64 }\n  output B { z: u64 }\n  at A { z = x % y; }\n  round r: A -> B : M { z: u64 }",
            "`%` by `y`, which may be zero",
            "divide by a non-zero constant",
        ),
        (
            "  input A { x: Scalar }\n  output B { z: Bits[64] }\n  at A { z = bits(x); }\n  round r: A -> B : M { z: Bits[64] }",
            "argument 1 of built-in `bits` must be an integer or an array of `Bit`s, found `Scalar`",
            "`bits(x)`",
        ),
        (
            "  input A { x: [Point; 4] }\n  output B { z: Point }\n  at A { z = sum(x); }\n  round r: A -> B : M { z: Point }",
            "argument 1 of built-in `sum` must be an array of integers, found `[Point; 4]`",
            "`sum(xs)`",
        ),
        (
            "  input A { x: u64 }\n  output B { z: u32 }\n  at A { z = x + 1u32; }\n  round r: A -> B : M { z: u32 }",
            "operator `+` cannot combine `u64` and `u32`",
            "two integers",
        ),
    ];
    for (body, message, help) in cases {
        let r = fail_str(&format!("{INT_HEADER}{body}\n}}\n"));
        assert!(r.contains(message), "{message}\n{r}");
        assert!(r.contains("--> test.otp:"), "{r}");
        assert!(r.contains(help), "{help}\n{r}");
    }
}

/// A protocol with other names for its inputs and outputs realizes a
/// functionality through `with { ... }`, and its extra parameters become
/// fields of the generated realization.
#[test]
fn realizes_generates_the_role_traits() {
    let src = r#"
protocol Renamed(role S, role R)
    realizes RandomOt[n = m](Sender = S, Receiver = R)
        with { Sender.messages = y, Receiver.choices = c, Receiver.chosen = x }
{
    param m: usize requires m >= 1;
    param extra: usize;
    input  R { c: Bits[m] }
    output S { y: [[Block; 2]; m] }
    output R { x: [Block; m] }
    at S { y = [[sample Block, sample Block] for i in 0..m]; }
    round send: S -> R : Msgs { y: [[Block; 2]; m] }
    at R { x = [y[i][0] for i in 0..m]; check extra == extra else abort Never; }
}
"#;
    let c = ok_str(src);
    let code = c.tokens.to_string().replace(' ', "");
    assert!(
        code.contains("impl::ot::traits::RandomOtSenderforSRealization"),
        "{code}"
    );
    assert!(code.contains("pubextra:usize"), "extra field");
    assert!(code.contains("Params::new(n,self.extra)"), "sender params");
    assert!(
        code.contains("Params::new(choices.len(),self.extra)"),
        "receiver params"
    );
}

/// An input the functionality does not give (OOS's code) is a field of
/// the realization struct, cloned into each run; the struct's own field
/// names are refused as such inputs, with the reason.
#[test]
fn realizes_takes_other_inputs_as_fields() {
    let src = |name: &str| {
        format!(
            "protocol WithCode(role S, role R)
    realizes RandomOt(Sender = S, Receiver = R)
{{
    param n: usize requires n >= 1;
    input  S {{ {name}: Block }}
    input  R {{ choices: Bits[n] }}
    output S {{ messages: [[Block; 2]; n] }}
    output R {{ chosen: [Block; n] }}
    at S {{ messages = [[{name}, sample Block] for i in 0..n]; }}
    round send: S -> R : Msgs {{ messages: [[Block; 2]; n] }}
    at R {{ chosen = [messages[i][0] for i in 0..n]; }}
}}"
        )
    };
    let code = ok_str(&src("code")).tokens.to_string().replace(' ', "");
    assert!(code.contains("pubcode:::ot::runtime::Block,"), "{code}");
    assert!(
        code.contains("code:::core::clone::Clone::clone(&self.code)"),
        "{code}"
    );
    let r = fail_str(&src("subs"));
    assert!(
        r.contains("input `subs` of `S` is not an input of `RandomOt`'s `Sender`")
            && r.contains("field `subs` is reserved"),
        "{r}"
    );
}

#[test]
fn realizes_checks_roles_params_and_io() {
    let base = |clause: &str| {
        format!(
            "protocol P(role S, role R) {clause} {{
    param n: usize requires n >= 1;
    input  R {{ choices: Bits[n] }}
    output S {{ messages: [[Block; 2]; n] }}
    output R {{ chosen: [Block; n] }}
    at S {{ messages = [[sample Block, sample Block] for i in 0..n]; }}
    round send: S -> R : Msgs {{ messages: [[Block; 2]; n] }}
    at R {{ chosen = [messages[i][0] for i in 0..n]; }}
}}"
        )
    };
    assert!(ok_str(&base("realizes RandomOt(Sender = S, Receiver = R)"))
        .tokens
        .to_string()
        .contains("SRealization"));
    let r = fail_str(&base("realizes RandomOtt(Sender = S, Receiver = R)"));
    assert!(
        r.contains("unknown functionality `RandomOtt`") && r.contains("did you mean `RandomOt`?"),
        "{r}"
    );
    let r = fail_str(&base("realizes RandomOt(Sender = S)"));
    assert!(
        r.contains("role `Receiver` of `RandomOt` is not mapped"),
        "{r}"
    );
    let r = fail_str(&base("realizes RandomOt(Sender = S, Receiver = S)"));
    assert!(r.contains("mapped onto a different role"), "{r}");
    let r = fail_str(&base("realizes RandomOt[n = k](Sender = S, Receiver = R)"));
    assert!(r.contains("`P` has no parameter `k`"), "{r}");
    let r = fail_str(&base("realizes ChosenOt(Sender = S, Receiver = R)"));
    assert!(
        r.contains("`P` does not realize `ChosenOt`: `S` has no input `messages`"),
        "{r}"
    );
}

#[test]
fn a_byte_order_mark_is_accepted() {
    let c = ok_path("tests/loading/bom.otp");
    assert_eq!(c.ir.map(|ir| ir.name), Some("Bom".to_string()));
}

#[test]
fn a_file_that_is_not_utf8_is_located() {
    let r = fail_path("tests/loading/not_utf8.otp");
    assert!(
        r.starts_with(
            "error: `tests/loading/not_utf8.otp` is not UTF-8: byte 0xE9 at byte offset 49"
        ),
        "{r}"
    );
    assert!(r.contains("tests/loading/not_utf8.otp:2:7"), "{r}");
}

#[test]
fn an_import_cycle_is_named() {
    let r = fail_path("tests/loading/cycle_a.otp");
    assert!(
        r.starts_with("error: import cycle: tests/loading/cycle_a.otp -> tests/loading/cycle_b.otp -> tests/loading/cycle_a.otp"),
        "{r}"
    );
    assert!(r.contains("tests/loading/cycle_b.otp:2:1"), "{r}");
    assert!(!r.contains("already declared"), "{r}");
}

/// The retired two-path form of a streamed kernel (`= whole chunked
/// chunk;`) is refused at its second path, saying what to write instead.
#[test]
fn a_second_path_after_chunked_is_refused_with_the_one_call_shape() {
    let text =
        "intrinsic twice(x: [Block; N]) -> [Block; N] = ::k::twice chunked ::k::twice_chunk;\n\
                protocol X(role A, role B) {\n\
                \x20   param m: usize;\n\
                \x20   input A { v: [Block; m] }\n\
                \x20   output B { w: [Block; m] }\n\
                \x20   at A { w = twice(v); }\n\
                \x20   round r: A -> B : R { w: [Block; m] }\n\
                }\n";
    assert_diag(
        &fail_str(text),
        "test.otp",
        1,
        67,
        "`chunked` takes no second path: intrinsic `twice` is one streamed kernel",
        "write `= path chunked;`",
    );
    // The one-path form compiles, and the call outside a chunked round is
    // one call over the whole width into a fresh output.
    let ok = ok_str(&text.replace(" chunked ::k::twice_chunk;", " chunked;"));
    let code = ok.tokens.to_string();
    assert!(
        code.contains(
            ":: k :: twice (& (* v) , :: ot :: runtime :: Span :: whole (__n) , & mut __out [..])"
        ) || code.contains(
            ":: k :: twice (& v , :: ot :: runtime :: Span :: whole (__n) , & mut __out [..])"
        ),
        "{code}"
    );
}

/// A `;` missing at the end of a line is reported there, not at the next
/// line's first token; a non-ASCII letter in a name says that names are
/// ASCII.
#[test]
fn a_missing_semicolon_and_a_non_ascii_name_are_located_where_the_fix_goes() {
    let text = format!("{HEADER}  at A {{ x = sample Bit\n         y = x; }}\n}}");
    assert_diag(
        &fail_str(&text),
        "test.otp",
        2,
        23,
        "expected `;` after `Bit`, at the end of the line",
        "end the statement with `;` (the next line starts with `y`",
    );
    let text = format!("{HEADER}  at A {{ α = sample Bit; }}\n}}");
    assert_diag(
        &fail_str(&text),
        "test.otp",
        2,
        10,
        "`α` is not an ASCII letter; names are ASCII letters, digits and `_`",
        "rename it in ASCII",
    );
    // On one line the error stays at the token that cannot follow.
    let text = format!("{HEADER}  at A {{ x = sample Bit }}\n}}");
    assert!(fail_str(&text).contains("expected `;` or an operator, found `}`"));
}

/// A value named like another role's output, assigned at the wrong role,
/// is reported as that mistake, not only as an unused value.
#[test]
fn assigning_another_roles_output_says_whose_output_it_is() {
    let text = "protocol X(role A, role B) {\n    input A { x: Block }\n    output B { y: Block }\n    at A { z = x; y = x; }\n    round r: A -> B : M { z: Block }\n    at B { y = z; }\n}\n";
    let c = ok_str(text);
    let w: Vec<String> = c.warnings.iter().map(|w| w.render(&c.sources)).collect();
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].contains("`y` is an output of `B`, which `A` cannot assign")
            && w[0].contains("at B { y = ...; }")
            && w[0].contains("test.otp:4:19"),
        "{}",
        w[0]
    );
}

/// An output whose element type differs from its computation gets help
/// that names both fixes, the computation first, and is reported at the
/// computation; a shape-only difference keeps the one fix of the
/// declaration, where it is reported.
#[test]
fn an_output_of_another_element_type_suggests_converting_first() {
    let text = "protocol X(role A, role B) {\n    input A { x: Block }\n    output B { y: [Point; 2] }\n    round r: A -> B : M { x: Block }\n    at B { y = [x, x]; }\n}\n";
    assert_diag(
        &fail_str(text),
        "test.otp",
        5,
        12,
        "output `y` of `B` is declared `[Point; 2]`, but is computed as `[Block; 2]`",
        "compute a `[Point; 2]` (the computation gives `Block` where `Point` is declared: convert with an intrinsic, e.g. a hash), or declare it as `y: [Block; 2]`",
    );
}

/// `requires n == K` fixes the number of parties: it is accepted (K >= 2)
/// and bounds the fixed party indices (`P[K - 1]` exists, `P[K]` does not).
#[test]
fn an_exact_party_count_is_accepted_and_bounds_fixed_indices() {
    let text = |ix: usize| {
        format!("protocol X(role P[n]) {{\n    param n: usize requires n == 3;\n    input P[i] {{ x: u64 }}\n    output P[i] {{ s: u64 }}\n    round r: P[{ix}] -> all : M {{ x: u64 }}\n    at P[i] {{ s = x; }}\n}}\n")
    };
    ok_str(&text(2));
    let r = fail_str(&text(3));
    assert!(
        r.contains("party index out of range: `P[3]` is not a party when there are 3"),
        "{r}"
    );
}

/// A two-party functionality between every pair of parties
/// (`Sender = P[i], Receiver = P[j]`) and its mapping errors.
const PAIRWISE: &str = "protocol Pairs(role P[n]) {
    param n: usize requires n >= 2;
    output P[i] { k: [[[Block; 2]; 128]; n], c: [[Block; 128]; n] }
    at P[i] { s = sample Bits[128]; }
    do base: RandomOt[n = 128](Sender = P[i], Receiver = P[j]) with { Receiver.choices = s };
    at P[i] { k = base.messages; c = base.chosen; }
}
";

#[test]
fn pairwise_call_compiles_with_peer_indexed_outputs() {
    let c = ok_str(PAIRWISE);
    let ir = c.ir.expect("an ir");
    let sub = &ir.subs[0];
    assert!(sub.pairwise);
    assert!(sub.calls.iter().all(|call| call.role == 0));
    let types: Vec<String> = sub
        .calls
        .iter()
        .flat_map(|call| call.outputs.iter().map(|(n, t)| format!("{n}: {t}")))
        .collect();
    assert_eq!(
        types,
        [
            "base.messages: [[[Block; 2]; 128]; n]",
            "base.chosen: [[Block; 128]; n]"
        ]
    );
}

#[test]
fn pairwise_call_needs_two_different_parties() {
    let r = fail_str(&PAIRWISE.replace("Receiver = P[j]", "Receiver = P[i]"));
    assert_diag(
        &r,
        "test.otp",
        5,
        60,
        "role mapping mismatch: both roles of `RandomOt` are mapped to `P[i]`, the same party",
        "map the two roles of `RandomOt` to `P[i]` and `P[j]`",
    );
    let r = fail_str(&PAIRWISE.replace("Receiver = P[j]", "Receiver = P[0]"));
    assert_diag(
        &r,
        "test.otp",
        5,
        60,
        "a sub-protocol runs between every pair of parties, not with one fixed party: `Receiver` is mapped to one party",
        "map the two roles of `RandomOt` to `P[i]` and `P[j]`",
    );
    let r = fail_str(&PAIRWISE.replace("Receiver = P[j]", "Receiver = P"));
    assert!(
        r.contains(
            "`P` is a party array (`role P[n]`), but role `Receiver` of `RandomOt` is one party"
        ),
        "{r}"
    );
    assert!(r.contains("map its roles to `P[i]` and `P[j]`"), "{r}");
}

#[test]
fn pairwise_call_refuses_a_dealer() {
    let r = fail_str(&PAIRWISE.replace("(role P[n])", "(role Dealer, role P[n])"));
    assert!(
        r.contains("a sub-protocol between every pair of parties cannot run in a protocol with the single role `Dealer`"),
        "{r}"
    );
}

#[test]
fn pairwise_outputs_are_per_peer_arrays() {
    // An output used as one value, not as the array of the runs' outputs.
    let r = fail_str(&PAIRWISE.replace(
        "output P[i] { k: [[[Block; 2]; 128]; n], c: [[Block; 128]; n] }",
        "output P[i] { k: [[Block; 2]; 128], c: [[Block; 128]; n] }",
    ));
    assert!(r.contains("[[[Block; 2]; 128]; n]"), "{r}");
}

/// A pairwise call's inputs are every party's own values: a value of one
/// fixed party is a located error.
#[test]
fn pairwise_inputs_are_every_partys_own() {
    let r = fail_str(&PAIRWISE.replace(
        "at P[i] { s = sample Bits[128]; }",
        "at P[0] { s = sample Bits[128]; }",
    ));
    assert!(
        r.contains("`s` is a value of `P[0]` only") && r.contains("`P[i]` cannot use it"),
        "{r}"
    );
}

/// A functionality whose output is an extern type cannot run between every
/// pair (the party's own element would need a default value).
#[test]
fn pairwise_outputs_of_extern_type_are_refused() {
    let r = fail_str(
        "protocol Pairs(role P[n]) {
    param n: usize requires n >= 2;
    param m: usize requires m >= 1;
    output P[i] { c: [[Block; m]; n] }
    at P[i] { xs = sample [Block; m]; }
    do prf: Oprf[m = m](Sender = P[i], Receiver = P[j]) with { Receiver.inputs = xs };
    at P[i] { c = prf.values; }
}
",
    );
    assert!(r.contains("has the extern type `OprfKey`"), "{r}");
}
