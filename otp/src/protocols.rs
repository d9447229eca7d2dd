//! `otp protocols`: the registry of shipped protocols (`ot::registry`, read
//! from each `.otp` file's `about` block) as a table, or every field as
//! JSON.

use crate::Fail;
use ot::registry::{About, Parties, PROTOCOLS};
use serde_json::json;

/// A label longer than this many characters is shortened in the table.
const LONG: usize = 50;

/// The facade module of an entry (its file's stem: `kos` for `kos.otp`).
fn module(a: &About) -> &'static str {
    let file = a.file_name();
    file.strip_suffix(".otp").unwrap_or(file)
}

/// The label as the table shows it: whole if short, else its first clause
/// (up to the first `; `, `: ` or ` (`, then if still long up to the first
/// `, `) and `…`.
pub fn short_label(label: &str) -> String {
    if label.chars().count() <= LONG {
        return label.to_string();
    }
    let cut = |s: &str, seps: &[&str]| -> Option<usize> {
        seps.iter()
            .filter_map(|sep| s.find(sep))
            .filter(|&i| i > 0)
            .min()
    };
    let mut short = match cut(label, &["; ", ": ", " ("]) {
        Some(i) => &label[..i],
        None => label,
    };
    if short.chars().count() > LONG {
        if let Some(i) = cut(short, &[", "]) {
            short = &short[..i];
        }
    }
    format!("{short}…")
}

/// Runs `otp protocols`.
pub fn run(json: bool) -> Result<(), Fail> {
    if json {
        let entries: Vec<_> = PROTOCOLS
            .iter()
            .map(|a| {
                let parties = match a.parties {
                    Parties::Two { roles } => json!({"kind": "two", "roles": roles}),
                    Parties::Many { dealer } => json!({"kind": "many", "dealer": dealer}),
                };
                json!({
                    "module": module(a), "name": a.name, "file": a.file_name(),
                    "location": a.location, "family": a.family, "security": a.security,
                    "malicious": a.malicious(), "proof": a.proof, "summary": a.summary,
                    "realizes": a.realizes, "parties": parties, "rounds": a.rounds,
                })
            })
            .collect();
        println!("{:#}", serde_json::Value::Array(entries));
        return Ok(());
    }
    let rows: Vec<[String; 5]> = PROTOCOLS
        .iter()
        .map(|a| {
            [
                module(a).to_string(),
                a.name.to_string(),
                a.family.to_string(),
                short_label(a.security),
                a.realizes.unwrap_or("-").to_string(),
            ]
        })
        .collect();
    let header = ["module", "protocol", "family", "security", "realizes"];
    let mut widths = header.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: [&str; 5]| {
        let mut out = String::new();
        for (i, cell) in cells.iter().enumerate() {
            out.push_str(cell);
            if i + 1 < cells.len() {
                let pad = widths[i] - cell.chars().count() + 2;
                out.extend(std::iter::repeat_n(' ', pad));
            }
        }
        out
    };
    println!("{}", line(header));
    for row in &rows {
        println!("{}", line(row.each_ref().map(String::as_str)));
    }
    println!(
        "\n{} protocols, one per file of protocols/ (module ot::<module>); shortened labels end \
         in …: `otp protocols --json` and SECURITY.md give them whole",
        rows.len()
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::short_label;

    #[test]
    fn long_labels_keep_their_first_clause() {
        assert_eq!(
            short_label("malicious, with abort"),
            "malicious, with abort"
        );
        assert_eq!(
            short_label(
                "semi-honest; a malicious receiver cannot make the two keys of an OT equal"
            ),
            "semi-honest…"
        );
        assert_eq!(
            short_label("malicious receiver or sender, with abort: the cut-and-choose of [RR16]"),
            "malicious receiver or sender, with abort…"
        );
        assert_eq!(
            short_label(
                "active with abort given a trusted dealer, up to n − 1 of n parties; not labelled malicious"
            ),
            "active with abort given a trusted dealer…"
        );
    }
}
