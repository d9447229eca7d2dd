//! The `otp` command line: checks, expansion and round listing of the
//! shipped protocols, and readable errors with exit code 2 on bad input.

use std::process::Command;

fn otp(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_otp"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("otp runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn check_expand_and_rounds_of_shipped_protocols() {
    for f in [
        "protocols/co15.otp",
        "protocols/np00.otp",
        "protocols/iknp.otp",
        "protocols/kos.otp",
        "protocols/delta_kos.otp",
        "protocols/kkrt.otp",
        "protocols/oos.otp",
        "examples/coin_flip.otp",
    ] {
        let (code, out, err) = otp(&["check", f]);
        assert_eq!(code, 0, "{f}: {err}");
        assert!(out.contains("checks"), "{out}");
    }
    let (code, out, _) = otp(&["expand", "protocols/co15.otp"]);
    assert_eq!(code, 0);
    assert!(out.contains("pub struct Params"), "{out}");
    let (code, out, _) = otp(&["rounds", "protocols/kos.otp"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("send Extend in chunks (round `extend`) -> Sender"),
        "{out}"
    );
}

#[test]
fn bad_input_is_a_readable_error_with_exit_code_2() {
    let (code, _, err) = otp(&["check", "protocols/does_not_exist.otp"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read `protocols/does_not_exist.otp`"),
        "{err}"
    );

    let (code, _, err) = otp(&["frobnicate", "protocols/co15.otp"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown command `frobnicate`"), "{err}");

    let (code, _, err) = otp(&[]);
    assert_eq!(code, 2);
    assert!(err.contains("usage: otp"), "{err}");

    let dir = std::env::temp_dir().join(format!("otp-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.otp");
    std::fs::write(
        &bad,
        "protocol X(role A, role B) {\n    round r: A -> C : M { }\n}\n",
    )
    .unwrap();
    let (code, _, err) = otp(&["check", bad.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown role `C`"), "{err}");
    assert!(err.contains("bad.otp:2:19"), "{err}");
    assert!(err.contains("valid roles here: `A`, `B`"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
