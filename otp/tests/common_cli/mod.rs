//! Helpers for the `otp` command-line tests: run the built binary from the
//! workspace root (where `protocols/` and `tests/otp/` are), and write a
//! throw-away `.otp` file.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::Command;

/// The workspace root, the directory every test runs `otp` in: the paths
/// the tests pass (`protocols/kos.otp`) are the ones the README documents.
pub const WORKSPACE_ROOT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/..");

/// Runs `otp` with `args` in the workspace root: (exit code, stdout, stderr).
pub fn otp(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_otp"))
        .args(args)
        .current_dir(WORKSPACE_ROOT)
        .output()
        .expect("otp runs");
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!err.contains("panicked"), "otp {args:?} panicked: {err}");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        err,
    )
}

/// Writes `text` to a fresh `NAME.otp` in its own temporary directory:
/// (the directory, the file path).
pub fn temp_otp(name: &str, text: &str) -> (PathBuf, String) {
    let dir = std::env::temp_dir().join(format!("otp-cli-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join(format!("{name}.otp"));
    std::fs::write(&file, text).expect("write");
    (dir, file.display().to_string())
}
