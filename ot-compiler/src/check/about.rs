//! The `about` block: what a protocol is, declared once in its `.otp` and
//! read by the registry of shipped protocols (the facade's module docs and
//! list, the CLI, the main table and the security tables).
//!
//! Keys: `family`, `security` (the label, as `SECURITY.md` states it) and
//! `summary` (required), and `proof` (the published proof the label rests
//! on, required when the label claims malicious security: a label starting
//! with `malicious`).

use crate::ast::About;
use crate::diag::{suggest, Diagnostic};
use crate::ir::IrAbout;

const KEYS: &[&str] = &["family", "security", "proof", "summary"];

/// Checks an `about` block (every independent error is returned).
pub fn check(about: &About) -> Result<IrAbout, Vec<Diagnostic>> {
    let mut out = IrAbout::default();
    let mut seen: Vec<&str> = vec![];
    // Keys meant by a misspelt key: its error says so, so their absence
    // is not reported again.
    let mut meant: Vec<&str> = vec![];
    let mut errors = vec![];
    for (key, text, at) in &about.entries {
        let k = key.name.as_str();
        let slot = match k {
            "family" => &mut out.family,
            "security" => &mut out.security,
            "proof" => &mut out.proof,
            "summary" => &mut out.summary,
            _ => {
                let keys: Vec<String> = KEYS.iter().map(|k| k.to_string()).collect();
                meant.extend(crate::diag::did_you_mean(k, KEYS.iter().copied()));
                errors.push(
                    Diagnostic::error(key.span, format!("unknown `about` key `{k}`"))
                        .with_help(suggest(k, "key", &keys)),
                );
                continue;
            }
        };
        if seen.contains(&k) {
            errors.push(
                Diagnostic::error(key.span, format!("`{k}` is given twice"))
                    .with_help("give each key once"),
            );
            continue;
        }
        seen.push(k);
        if text.trim().is_empty() {
            errors.push(
                Diagnostic::error(*at, format!("`{k}` is empty"))
                    .with_help("say it in words, or leave the key out where it is optional"),
            );
        }
        *slot = text.trim().to_string();
    }
    for k in ["family", "security", "summary"] {
        if !seen.contains(&k) && !meant.contains(&k) {
            errors.push(
                Diagnostic::error(about.span, format!("this `about` block has no `{k}`"))
                    .with_help(format!("add `{k} = \"...\";`")),
            );
        }
    }
    let label = out.security.as_str();
    if label.starts_with("malicious") && out.proof.is_empty() {
        errors.push(
            Diagnostic::error(
                about.span,
                "a `malicious` label needs the published proof of its check",
            )
            .with_help("add `proof = \"Authors, venue year, eprint, figure/theorem\";`"),
        );
    }
    match errors.is_empty() {
        true => Ok(out),
        false => Err(errors),
    }
}
