//! `otp bench`: runs both roles in process (memory and TCP loopback),
//! checks the outputs agree, reports figures; bad input exits 2.

mod common_cli;
use common_cli::otp;

#[test]
fn bench_runs_and_reports_over_memory_and_tcp() {
    for transport in [None, Some("--tcp")] {
        let mut args = vec!["bench", "iknp", "kos", "co15", "--ots", "2^12", "--json"];
        args.extend(transport);
        let (code, out, err) = otp(&args);
        assert_eq!(code, 0, "{err}");
        let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
        assert!(v["aes_blocks_per_second"].as_f64().unwrap() > 0.0);
        let runs = v["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 3);
        for r in runs {
            assert_eq!(r["ots"], 4096, "{r}");
            assert!(r["ots_per_second"].as_f64().unwrap() > 0.0, "{r}");
            let b = r["bytes_per_ot"].as_f64().unwrap();
            // 16 bytes per extended OT plus the base OTs; 32 per CO15 OT.
            assert!((16.0..40.0).contains(&b), "{r}");
        }
        assert_eq!(runs[1]["security"], "malicious");
    }
    let (code, out, err) = otp(&["bench", "softspoken", "--ots", "1<<12", "--threads", "2"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("2 threads per party"), "{out}");
    assert!(out.lines().any(|l| l.starts_with("softspoken ")), "{out}");
}

#[test]
fn bench_bad_input_exits_2() {
    for (args, msg) in [
        (
            vec!["bench", "frob"],
            "unknown protocol `frob`; shipped: co15",
        ),
        (vec!["bench", "--ots", "2^x"], "bad --ots `2^x`"),
        (vec!["bench", "--ots", "0"], "bad --ots `0`"),
        (
            vec!["bench", "--ots", "2^40"],
            "bad --ots `2^40`: write a count from 1 to 2^30",
        ),
        (
            vec!["bench", "iknp", "--threads", "0"],
            "--threads must be at least 1",
        ),
    ] {
        let (code, _, err) = otp(&args);
        assert_eq!(code, 2, "{args:?}");
        assert!(
            err.starts_with("otp: ") && err.contains(msg),
            "{args:?}: {err}"
        );
    }
}
