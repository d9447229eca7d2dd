//! The `about` block: what the checker accepts and refuses, and the
//! registry entry (`ABOUT`) code generation emits from it.

use std::path::Path;

const BODY: &str = "input A { x: Block } output B { y: Block } round r: A -> B : M { y: Block } { at A { y = x; } }";

fn compile(about: &str) -> Result<String, String> {
    let src = format!("protocol P(role A, role B) {{ {about} {BODY} }}");
    ot_compiler::compile_str("p.otp", &src, Path::new("."))
        .map(|c| c.tokens.to_string())
        .map_err(|f| f.render())
}

#[test]
fn a_complete_block_becomes_the_about_entry() {
    let tokens = compile(r#"about { family = "test"; security = "malicious, with abort"; proof = "A–B, CRYPTO 2000, Fig. 1"; summary = "Copies a block."; }"#)
        .expect("compiles");
    assert!(tokens.contains("pub const ABOUT"), "{tokens}");
    for text in [
        "\"malicious, with abort\"",
        "\"A–B, CRYPTO 2000, Fig. 1\"",
        "\"Copies a block.\"",
        "Two",
    ] {
        assert!(tokens.contains(text), "{text} missing from ABOUT");
    }
}

#[test]
fn no_block_no_entry() {
    let tokens = compile("").expect("compiles");
    assert!(!tokens.contains("ABOUT"));
}

#[test]
fn a_malicious_label_needs_a_proof() {
    let e =
        compile(r#"about { family = "t"; security = "malicious"; summary = "s"; }"#).unwrap_err();
    assert!(e.contains("needs the published proof"), "{e}");
    // Any other label may go without one.
    compile(r#"about { family = "t"; security = "as the COTs it consumes"; summary = "s"; }"#)
        .expect("compiles");
}

#[test]
fn keys_are_known_given_once_and_complete() {
    let e =
        compile(r#"about { famly = "t"; security = "semi-honest"; security = "x"; }"#).unwrap_err();
    assert!(
        e.contains("unknown `about` key `famly`") && e.contains("did you mean `family`?"),
        "{e}"
    );
    assert!(e.contains("`security` is given twice"), "{e}");
    // `family` is missing because it is misspelt: that error says so, and
    // its absence is not reported again (no follow-on error).
    assert!(
        e.contains("has no `summary`") && !e.contains("has no `family`"),
        "{e}"
    );
    let e =
        compile(r#"about { family = " "; security = "semi-honest"; summary = "s"; }"#).unwrap_err();
    assert!(e.contains("`family` is empty"), "{e}");
}
