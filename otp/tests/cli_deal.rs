//! `otp deal minimac_aes` refuses codes below MiniMac's code-size floor
//! (`ot::runtime::minimac::floor`): RS[3k, k] lets a forged opening pass
//! with probability up to 2^-(7(k + 2)), so k must meet the statistical
//! security `--sec` (default 40 bits: k >= 4). Exit code 2, a message
//! naming the forging probability, and no file written.

mod common_cli;

use common_cli::otp;

/// Runs `otp deal minimac_aes` for 2 parties and 1 block with `extra`
/// options into a fresh directory: (exit code, stderr, files written).
fn deal(tag: &str, extra: &[&str]) -> (i32, String, usize) {
    let dir = std::env::temp_dir().join(format!("otp-cli-floor-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let d = dir.display().to_string();
    let mut args = vec![
        "deal",
        "minimac_aes",
        "--parties",
        "2",
        "--blocks",
        "1",
        "--out",
        &d,
    ];
    args.extend(extra);
    let (code, _, err) = otp(&args);
    let files = std::fs::read_dir(&dir).map(|d| d.count()).unwrap_or(0);
    let _ = std::fs::remove_dir_all(&dir);
    (code, err, files)
}

#[test]
fn a_code_below_the_floor_is_refused_naming_its_forging_probability() {
    for (k, msg) in [
        (
            "2",
            "--k 2: k = 2 gives forging probability 2^-28, below the statistical security 2^-40; use k >= 4",
        ),
        ("1", "k = 1 gives forging probability 2^-21"),
        ("3", "k = 3 gives forging probability 2^-35"),
    ] {
        let (code, err, files) = deal(&format!("k{k}"), &["--k", k]);
        assert_eq!(code, 2, "--k {k}: {err}");
        assert!(err.contains(msg), "--k {k}: {err}");
        assert_eq!(files, 0, "--k {k}: nothing is written");
    }
}

#[test]
fn the_floor_follows_the_statistical_security() {
    // 7 (k + 2) >= 80 needs k >= 10.
    let (code, err, _) = deal("sec80", &["--k", "8", "--sec", "80"]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("k = 8 gives forging probability 2^-70, below the statistical security 2^-80; use k >= 10"),
        "{err}"
    );
    // Below the default is refused, not a way around the floor.
    let (code, err, _) = deal("sec39", &["--k", "1", "--sec", "39"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--sec 39: at least 40 bits"), "{err}");
}

#[test]
fn codes_at_the_floor_are_dealt() {
    for (tag, extra) in [
        ("k4", vec!["--k", "4"]),
        ("k10", vec!["--k", "10", "--sec", "80"]),
    ] {
        let (code, err, files) = deal(tag, &extra);
        assert_eq!(code, 0, "{extra:?}: {err}");
        assert_eq!(files, 2, "{extra:?}: one file per party");
    }
}
