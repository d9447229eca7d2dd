//! `otp cost`: the costs agree with the generated `comm()` of the shipped
//! protocols; bad parameters exit 2.

mod common_cli;
use common_cli::otp;

fn cost_json(file: &str, params: &[&str]) -> serde_json::Value {
    let mut args = vec!["cost", file, "--json"];
    for p in params {
        args.extend(["--param", p]);
    }
    let (code, out, err) = otp(&args);
    assert_eq!(code, 0, "{file}: {err}");
    serde_json::from_str(&out).expect("cost prints JSON")
}

fn sent(v: &serde_json::Value, role: &str) -> usize {
    v["sent"][role]["bytes"].as_u64().expect("bytes") as usize
}

#[test]
fn cost_agrees_with_the_generated_comm() {
    for m in [128usize, 1000, 1 << 20] {
        let p = format!("m={m}");
        let v = cost_json("protocols/iknp.otp", &[&p]);
        let c = ot::iknp::comm(&ot::iknp::Params::new(m, 1, false).unwrap());
        assert_eq!(
            (sent(&v, "Sender"), sent(&v, "Receiver")),
            (c.sender, c.receiver)
        );
        assert_eq!(v["round_count"], ot::iknp::ROUNDS);
        let v = cost_json("protocols/kos.otp", &[&p]);
        let c = ot::kos::comm(&ot::kos::Params::new(m, 1, false).unwrap());
        assert_eq!(
            (sent(&v, "Sender"), sent(&v, "Receiver")),
            (c.sender, c.receiver)
        );
        let v = cost_json("protocols/softspoken.otp", &[&p, "k=4"]);
        let c = ot::softspoken::comm(&ot::softspoken::Params::new(4, m, 1, false).unwrap());
        assert_eq!(
            (sent(&v, "Sender"), sent(&v, "Receiver")),
            (c.sender, c.receiver)
        );
    }
    let v = cost_json("protocols/co15.otp", &["n=128"]);
    let c = ot::co15::comm(&ot::co15::Params::new(128).unwrap());
    assert_eq!(
        (sent(&v, "Sender"), sent(&v, "Receiver")),
        (c.sender, c.receiver)
    );
    for n in [2usize, 3, 7] {
        let p = format!("n={n}");
        let v = cost_json("protocols/sum_n.otp", &[&p]);
        let c = ot::sum_n::comm(&ot::sum_n::Params::new(n).unwrap());
        assert_eq!(v["per_party"].as_u64(), Some(c.per_party as u64));
        assert_eq!(v["check_bytes"].as_u64(), Some(c.check_bytes as u64));
        assert_eq!(v["round_count"].as_u64(), Some(c.rounds as u64));
    }
}

#[test]
fn cost_table_and_bad_parameters() {
    let (code, out, err) = otp(&["cost", "protocols/iknp.otp", "-p", "m=2^20"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("protocol `Iknp`"), "{out}");
    assert!(out.contains("extend   Receiver -> Sender"), "{out}");
    assert!(out.contains("16777216 bytes (16.00 B/OT)"), "{out}");
    assert!(out.contains("not counted: sub-protocol `base`"), "{out}");
    for (args, msg) in [
        (
            vec!["-p", "m=2^x"],
            "bad parameter `m=2^x`: `x` is not a number",
        ),
        (vec!["-p", "m"], "bad parameter `m`: no `=`"),
        (vec!["-p", "q=3"], "protocol `Iknp` has no parameter `q`"),
        (vec![], "depend on parameter `m`: pass --param m=VALUE"),
        (
            vec!["-p", "m=4", "--ots", "threads"],
            "--ots threads: no value",
        ),
    ] {
        let mut a = vec!["cost", "protocols/iknp.otp"];
        a.extend(args);
        let (code, _, err) = otp(&a);
        assert_eq!(code, 2, "{a:?}");
        assert!(
            err.starts_with("otp: ") && err.contains(msg),
            "{a:?}: {err}"
        );
        assert_eq!(err.lines().count(), 1, "{err}");
    }
}
