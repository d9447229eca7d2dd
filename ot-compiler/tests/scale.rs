//! Limits of the front end: flat operator chains of any length and deep
//! nesting are checked and compiled without overflowing the stack; nesting
//! beyond the limit is a located error.

use ot_compiler::scale::{deep_parens, long_chain};
use ot_compiler::{check_path, compile_str};
use std::path::Path;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn chain_of_2000_terms_checks_and_compiles() {
    for n in [2000, 5000] {
        let text = long_chain(n);
        let c = compile_str("chain.otp", &text, root())
            .unwrap_or_else(|f| panic!("{n} terms: {}", f.render()));
        let ir = c.ir.expect("checked");
        assert_eq!(ir.rounds.len(), 1);
        // The generated code holds every term (n uses of each input).
        let code = c.tokens.to_string();
        assert!(code.matches("wrapping_add").count() >= n - 1, "{n} terms");
    }
}

#[test]
fn chain_on_a_small_stack() {
    // The macro runs on the compiler's thread; a test thread has 2 MiB.
    // Checking through a file path (the `otp check` entry point) too.
    let dir = std::env::temp_dir().join(format!("otp-chain-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("chain.otp"), long_chain(20_000)).unwrap();
    let r = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || {
            check_path("chain.otp", &dir)
                .map(|_| ())
                .map_err(|f| f.render())
        })
        .unwrap()
        .join()
        .expect("no stack overflow");
    r.unwrap();
}

#[test]
fn nesting_of_256_accepted_400_located_error() {
    let c = compile_str("deep.otp", &deep_parens(256), root())
        .unwrap_or_else(|f| panic!("{}", f.render()));
    assert!(c.ir.is_some());
    let err = match compile_str("deep.otp", &deep_parens(400), root()) {
        Ok(_) => panic!("400 levels accepted"),
        Err(f) => f.render(),
    };
    assert!(err.contains("nested too deeply"), "{err}");
    // Located at the first parenthesis beyond the limit, on line 4.
    assert!(err.contains("deep.otp:4:"), "{err}");
    assert!(err.contains("help: split the expression"), "{err}");
    // Prefix operators nest too.
    let text = format!(
        "protocol P(role A, role B) {{\n    input A {{ x: Bit }}\n    at A {{ y = {}x; }}\n    round go: A -> B : Go {{ y: Bit }}\n    output B {{ y: Bit }}\n}}\n",
        "!".repeat(400)
    );
    let err = compile_str("not.otp", &text, root())
        .err()
        .expect("rejected")
        .render();
    assert!(
        err.contains("nested too deeply") && err.contains("not.otp:3:"),
        "{err}"
    );
}
