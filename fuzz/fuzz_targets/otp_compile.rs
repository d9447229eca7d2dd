//! The `.otp` front end (parser, checker, projection, code generation) on
//! arbitrary text: every input compiles or yields diagnostics that render;
//! nothing panics, hangs or allocates without bound (libFuzzer's `-timeout`
//! and `-rss_limit_mb` catch the last two).
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::Path;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Imports (`import "iknp.otp"`) resolve against the shipped protocols.
    let protocols = Path::new(env!("CARGO_MANIFEST_DIR")).join("../protocols");
    match ot_compiler::compile_str("fuzz.otp", text, &protocols) {
        Ok(compiled) => {
            let _ = compiled.tokens.to_string();
        }
        Err(failure) => {
            let rendered = failure.render();
            assert!(!rendered.is_empty(), "a failure renders to some text");
        }
    }
});
