//! The `otp` command line: checks, expansion and round listing of the
//! shipped protocols, exit codes, and readable errors with exit code 2 on
//! bad input (never a panic).

mod common_cli;
use common_cli::{otp, temp_otp};

#[test]
fn check_expand_and_rounds_of_shipped_protocols() {
    let files = [
        "protocols/co15.otp",
        "protocols/np00.otp",
        "protocols/iknp.otp",
        "protocols/kos.otp",
        "protocols/delta_kos.otp",
        "protocols/kkrt.otp",
        "protocols/oos.otp",
        "protocols/sum_n.otp",
        "examples/coin_flip.otp",
    ];
    let mut args = vec!["check", "--deny-warnings"];
    args.extend(files);
    let (code, out, err) = otp(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out.matches("checks (0 warnings)").count(),
        files.len(),
        "{out}"
    );
    let (code, out, _) = otp(&["expand", "protocols/co15.otp"]);
    assert_eq!(code, 0);
    assert!(out.contains("pub struct Params"), "{out}");
    // Pretty-printed: one item per line, indented, not one long line.
    assert!(out.lines().count() > 100, "{out}");
    assert!(out.contains("\n    pub fn new("), "{out}");
    let (code, out, _) = otp(&["rounds", "protocols/kos.otp"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("send Extend in chunks (round `extend`) -> Sender"),
        "{out}"
    );
}

#[test]
fn check_exit_codes_for_warnings() {
    let (dir, file) = temp_otp(
        "warn",
        "protocol W(role A, role B) {\n    output B { z: Block }\n    at A { x = sample Block; y = sample Block; }\n    round r: A -> B : M { x: Block }\n    at B { z = x; }\n}\n",
    );
    let (code, out, err) = otp(&["check", &file]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("checks (1 warning)"), "{out}");
    // Rendered like rustc: message, location arrow, the line, a caret, help.
    assert!(
        err.contains("warning: value `y` at `A` is never used"),
        "{err}"
    );
    assert!(err.contains("warn.otp:3:30"), "{err}");
    assert!(
        err.contains("3 │     at A { x = sample Block; y = sample Block; }"),
        "{err}"
    );
    assert!(err.contains("^"), "{err}");
    assert!(err.contains("= help:"), "{err}");
    // Not a terminal: no colour codes.
    assert!(!err.contains('\u{1b}'), "{err}");
    let (code, _, _) = otp(&["check", "--deny-warnings", &file]);
    assert_eq!(code, 1);
    let (_, _, err) = otp(&["--color", "always", "check", &file]);
    assert!(err.contains('\u{1b}'), "{err}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn bad_input_is_a_readable_error_with_exit_code_2() {
    let (code, _, err) = otp(&["check", "protocols/does_not_exist.otp"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read `protocols/does_not_exist.otp`"),
        "{err}"
    );
    // Every file is checked; one bad file makes the exit code 2.
    let (code, out, _) = otp(&["check", "protocols/co15.otp", "protocols/nope.otp"]);
    assert_eq!(code, 2);
    assert!(out.contains("protocol `Co15` checks"), "{out}");

    let (code, _, err) = otp(&["frobnicate", "protocols/co15.otp"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("unrecognized subcommand 'frobnicate'"),
        "{err}"
    );

    let (code, _, err) = otp(&[]);
    assert_eq!(code, 2);
    assert!(err.contains("Usage: otp"), "{err}");

    let (dir, bad) = temp_otp(
        "bad",
        "protocol X(role A, role B) {\n    round r: A -> C : M { }\n}\n",
    );
    let (code, _, err) = otp(&["check", &bad]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown role `C`"), "{err}");
    assert!(err.contains("bad.otp:2:19"), "{err}");
    assert!(err.contains("valid roles here: `A`, `B`"), "{err}");
    for cmd in ["expand", "rounds", "cost", "diagram"] {
        let (code, _, err) = otp(&[cmd, &bad]);
        assert_eq!(code, 2, "{cmd}");
        assert!(err.contains("unknown role `C`"), "{cmd}: {err}");
        let (code, _, err) = otp(&[cmd, "missing.otp"]);
        assert_eq!(code, 2, "{cmd}");
        assert!(
            err.contains("otp: cannot read `missing.otp`"),
            "{cmd}: {err}"
        );
    }
    let (dir2, parse) = temp_otp(
        "parse",
        "protocol X(role A, role B) {\n    round r: A -> \n",
    );
    let (code, _, err) = otp(&["check", &parse]);
    assert_eq!(code, 2);
    assert!(err.contains("error"), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    let _ = std::fs::remove_dir_all(dir);
    let _ = std::fs::remove_dir_all(dir2);
}

/// A reader that has gone (`otp ... | head -1`) ends `otp` quietly: no
/// panic message, status 0. The pipe's read end is closed before `otp`
/// starts, so its first write fails.
#[test]
fn a_closed_stdout_pipe_is_not_a_panic() {
    let (reader, writer) = std::io::pipe().expect("pipe");
    drop(reader);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_otp"))
        .args(["rounds", "protocols/iknp.otp"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("otp runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}
