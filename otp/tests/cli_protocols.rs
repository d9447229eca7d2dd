//! `otp protocols`: the registry (each `.otp`'s `about` block) as a table
//! and as JSON, one entry per file of `protocols/`.

mod common_cli;
use common_cli::{otp, WORKSPACE_ROOT};

/// The shipped files' stems (`protocols/*.otp` but the prelude), sorted.
fn shipped_modules() -> Vec<String> {
    let mut stems: Vec<String> = std::fs::read_dir(format!("{WORKSPACE_ROOT}/protocols"))
        .expect("protocols/")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".otp").map(str::to_string))
        .filter(|n| n != "prelude")
        .collect();
    stems.sort();
    stems
}

#[test]
fn protocols_lists_every_shipped_file_as_a_table() {
    let (code, out, err) = otp(&["protocols"]);
    assert_eq!(code, 0, "{err}");
    let mut lines = out.lines();
    let header = lines.next().expect("a header");
    for col in ["module", "protocol", "family", "security", "realizes"] {
        assert!(header.contains(col), "{header}");
    }
    let modules = shipped_modules();
    let rows: Vec<&str> = lines.take_while(|l| !l.is_empty()).collect();
    let firsts: Vec<&str> = rows
        .iter()
        .filter_map(|r| r.split_whitespace().next())
        .collect();
    assert_eq!(firsts, modules, "one row per file, in file-name order");
    let kos = rows.iter().find(|r| r.starts_with("kos ")).expect("kos");
    for cell in ["Kos", "OT extension", "malicious, with abort", "RandomOt"] {
        assert!(kos.contains(cell), "{kos}");
    }
    // A long label shows its first clause; an entry without `realizes`, `-`.
    let np00 = rows.iter().find(|r| r.starts_with("np00 ")).expect("np00");
    assert!(
        np00.contains("semi-honest…") && !np00.contains("keys"),
        "{np00}"
    );
    let sum_n = rows
        .iter()
        .find(|r| r.starts_with("sum_n "))
        .expect("sum_n");
    assert!(sum_n.trim_end().ends_with(" -"), "{sum_n}");
    assert!(
        out.contains(&format!("{} protocols", modules.len())),
        "{out}"
    );
}

#[test]
fn protocols_json_has_every_field() {
    let (code, out, err) = otp(&["protocols", "--json"]);
    assert_eq!(code, 0, "{err}");
    let v: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    let entries = v.as_array().expect("an array");
    let modules: Vec<&str> = entries
        .iter()
        .map(|e| e["module"].as_str().unwrap())
        .collect();
    assert_eq!(modules, shipped_modules());
    let kos = entries.iter().find(|e| e["module"] == "kos").expect("kos");
    assert_eq!(kos["name"], "Kos");
    assert_eq!(kos["file"], "kos.otp");
    assert!(kos["location"]
        .as_str()
        .unwrap()
        .starts_with("protocols/kos.otp:"));
    assert_eq!(kos["security"], "malicious, with abort");
    assert_eq!(kos["malicious"], true);
    assert!(kos["proof"].as_str().unwrap().contains("2015/546"));
    assert!(kos["summary"].as_str().unwrap().ends_with('.'));
    assert_eq!(kos["realizes"], "RandomOt");
    assert_eq!(kos["parties"]["kind"], "two");
    assert_eq!(kos["parties"]["roles"][0], "Sender");
    assert!(kos["rounds"].as_u64().unwrap() >= 2);
    // Whole labels, and the n-party shape with its dealer.
    let np00 = entries
        .iter()
        .find(|e| e["module"] == "np00")
        .expect("np00");
    assert!(np00["security"].as_str().unwrap().contains("two keys"));
    let beaver = entries
        .iter()
        .find(|e| e["module"] == "beaver_dealer")
        .expect("beaver");
    assert_eq!(beaver["parties"]["kind"], "many");
    assert_eq!(beaver["parties"]["dealer"], true);
    assert_eq!(beaver["realizes"], serde_json::Value::Null);
    assert_eq!(beaver["malicious"], false);
}
