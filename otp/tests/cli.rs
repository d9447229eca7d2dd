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
    // `--no-codegen` stops after the checks: the same report, the same code.
    let (code2, out2, err2) = otp(&["check", "--no-codegen", &file]);
    assert_eq!((code2, &out2, &err2), (code, &out, &err));
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
        .current_dir(common_cli::WORKSPACE_ROOT)
        .stdout(writer)
        .stderr(std::process::Stdio::piped())
        .output()
        .expect("otp runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(out.status.code(), Some(0), "{err}");
}

/// `otp rounds` of an n-party protocol: the session hello rides with the
/// first round (no exchange of its own), and a party's broadcast is checked
/// only with 3 or more parties (with `--parties 2` the checks are shown as
/// skipped; without `--parties` the condition is stated), while the
/// dealer's broadcast is checked with 2 parties too.
#[test]
fn rounds_of_n_party_protocols_show_the_hello_and_the_checks_a_run_makes() {
    let hello = "hello: protocol, spec hash, parameters, session, i and n -> every other party, in the same flight as the first round (no exchange of its own)";
    let (code, out, err) = otp(&["rounds", "protocols/coin_flip_n.otp"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains(hello), "{out}");
    assert!(!out.contains("<-> every other party\n"), "{out}");
    for round in ["commit", "open"] {
        let line = out
            .lines()
            .find(|l| l.contains(&format!("check round `{round}`")))
            .unwrap_or_else(|| panic!("no check of `{round}`: {out}"));
        assert!(line.ends_with("(only with 3 or more parties: with 2 the broadcast has one receiver and nothing is exchanged)"), "{line}");
    }

    let (code, two, err) = otp(&["rounds", "protocols/coin_flip_n.otp", "--parties", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(two.starts_with("P[i], for every party i in 0..2 "), "{two}");
    assert!(
        two.contains("session, i and 2 -> every other party"),
        "{two}"
    );
    assert_eq!(two.matches("skipped with 2 parties").count(), 2, "{two}");
    assert!(!two.contains("digests of every"), "{two}");

    let (code, three, err) = otp(&["rounds", "protocols/coin_flip_n.otp", "--parties", "3"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        three
            .matches(
                "received <-> every other party; a difference aborts naming round and sender\n"
            )
            .count(),
        2,
        "{three}"
    );
    assert!(
        !three.contains("skipped") && !three.contains("only with"),
        "{three}"
    );

    // The dealer's broadcast reaches both parties: checked with 2.
    let (code, dealer, err) = otp(&["rounds", "tests/otp/dealer_rounds.otp", "--parties", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        dealer.contains("-> every other party and Dealer, in the same flight"),
        "{dealer}"
    );
    let check = dealer
        .lines()
        .find(|l| l.contains("check round `announce`"))
        .unwrap_or_else(|| panic!("no check of `announce`: {dealer}"));
    assert!(
        check.contains("digest of the Announce received <-> every other party"),
        "{check}"
    );
    assert!(!dealer.contains("skipped"), "{dealer}");

    // A two-party protocol has no party count to give.
    let (code, _, err) = otp(&["rounds", "protocols/iknp.otp", "--parties", "3"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("`--parties` is for n-party protocols"),
        "{err}"
    );
    let (code, _, err) = otp(&["rounds", "protocols/coin_flip_n.otp", "--parties", "0"]);
    assert_eq!(code, 2, "{err}");
}
