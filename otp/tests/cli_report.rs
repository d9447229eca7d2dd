//! `otp cost` and `otp diagram`: the costs agree with the generated
//! `comm()` of the shipped protocols; the diagrams are well-formed SVG with
//! the expected lifelines, rounds and boxes; bad parameters exit 2.

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
        // With rounds of one fixed party: the party that sends the most.
        let v = cost_json("protocols/open_to_one.otp", &[&p]);
        let c = ot::open_to_one::comm(&ot::open_to_one::Params::new(n).unwrap());
        assert_eq!(v["per_party"].as_u64(), Some(c.per_party as u64));
        assert_eq!(v["check_bytes"].as_u64(), Some(c.check_bytes as u64));
        assert_eq!(v["round_count"].as_u64(), Some(c.rounds as u64));
        assert!(v["dealer"].is_null(), "{v}");
        // With a dealer: its bytes next to the parties'.
        let v = cost_json("protocols/beaver_dealer.otp", &[&p]);
        let params = ot::beaver_dealer::Params::new(n).unwrap();
        let d = ot::beaver_dealer::comm_of(&params, n);
        assert_eq!(v["dealer"]["role"].as_str(), Some("Dealer"), "{v}");
        assert_eq!(
            v["dealer"]["sent"].as_u64(),
            Some(d.per_party as u64),
            "{v}"
        );
    }
}

#[test]
fn cost_table_and_bad_parameters() {
    let (code, out, err) = otp(&["cost", "protocols/iknp.otp", "-p", "m=2^20"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("protocol `Iknp`"), "{out}");
    assert!(out.contains("extend   Receiver -> Sender"), "{out}");
    assert!(
        out.contains("16777299 bytes (16.00 B/OT), of which 83 the session binding"),
        "{out}"
    );
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

#[test]
fn diagrams_are_well_formed_svg_with_the_protocol_flow() {
    let dir = std::env::temp_dir().join(format!("otp-cli-diagram-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let svg = dir.join("kos.svg");
    let (code, _, err) = otp(&["diagram", "protocols/kos.otp", "-o", svg.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let text = std::fs::read_to_string(&svg).unwrap();
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    assert_eq!(doc.root_element().tag_name().name(), "svg");
    let texts: Vec<&str> = doc
        .descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text())
        .collect();
    for want in [
        "Sender",
        "Receiver",
        "session: Session { salt: Block }",
        "extend: Extend { u: BitMatrix[128, m + 128] }",
        "sub-protocol base: RandomOt (Sender = Receiver, Receiver = Sender)",
        "challenge: Challenge { chi_seed: Block }",
        "check kos_rows_consistent(check_q, check_t, check_x, delta) else abort CorrelationCheckFailed",
    ] {
        assert!(texts.contains(&want), "missing {want:?} in {texts:?}");
    }
    assert!(
        texts.iter().any(|t| t.contains("chunked by 16384")),
        "{texts:?}"
    );
    let class = |c: &str| {
        doc.descendants()
            .filter(|n| n.attribute("class") == Some(c))
            .count()
    };
    assert_eq!(class("lifeline"), 2);
    assert_eq!(class("message"), 4);
    assert_eq!(class("sub"), 1);

    // n parties, with sizes for given parameters, and text output.
    let (code, out, err) = otp(&["diagram", "protocols/sum_n.otp", "-p", "n=3"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("P[i]") && out.contains("P[j], j != i"),
        "{out}"
    );
    assert!(out.contains("reveal: Partial"), "{out}");
    assert!(out.contains("broadcast to all, checked"), "{out}");
    let (code, out, _) = otp(&["diagram", "protocols/iknp.otp"]);
    assert_eq!(code, 0);
    assert!(
        out.contains("128 * ceil(m / 128) * 16 B; chunked by 16384"),
        "{out}"
    );
    assert!(out.contains("|<====="), "{out}");

    let (code, _, err) = otp(&[
        "diagram",
        "protocols/iknp.otp",
        "-o",
        "/nonexistent-dir/x.svg",
    ]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot write `/nonexistent-dir/x.svg`"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(dir);
}
