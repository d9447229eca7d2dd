//! The checker's warnings (e.g. a value never used) as rustc warnings.
//!
//! Stable Rust gives procedural macros no way to emit a warning, so each
//! warning becomes a `#[deprecated]` constant whose note is the rendered
//! warning (`file:line:col`, snippet, help), used once right away: rustc's
//! `deprecated` lint then prints "use of deprecated constant
//! `..::otp_warning`" followed by the warning. Users silence them with
//! `#[allow(deprecated)]` on the module holding the `protocol!` call, or
//! make them errors with `#[deny(deprecated)]`.

use super::sigcheck::Located;
use crate::diag::{Diagnostic, Severity};
use crate::source::SourceMap;
use quote::quote;

/// One `#[deprecated]` item per warning, located at the warning.
pub fn warning_items(warnings: &[Diagnostic], sources: &SourceMap) -> Vec<Located> {
    warnings
        .iter()
        .filter(|w| w.severity == Severity::Warning)
        .map(|w| {
            let note = format!("\n{}", w.render(sources));
            let tokens = quote! {
                const _: () = {
                    #[deprecated(note = #note)]
                    #[allow(non_upper_case_globals)]
                    const otp_warning: () = ();
                    otp_warning
                };
            };
            Located {
                span: w.span,
                tokens,
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    /// The shipped protocols compile without a single warning (a warning
    /// would reach every user of the `ot` crate as a rustc warning).
    #[test]
    fn shipped_protocols_have_no_warnings() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let mut checked = 0;
        for entry in std::fs::read_dir(root.join("protocols")).expect("protocols/") {
            let path = entry.expect("entry").path();
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if !name.ends_with(".otp") || name == "prelude.otp" {
                continue;
            }
            let rel = format!("protocols/{name}");
            // Files that declare no protocol of their own (shared imports)
            // are checked through the protocols that import them.
            let Ok(c) = crate::check_path(&rel, &root) else {
                continue;
            };
            let shown: Vec<String> = c.warnings.iter().map(|w| w.render(&c.sources)).collect();
            assert!(shown.is_empty(), "{rel}:\n{}", shown.join("\n"));
            checked += 1;
        }
        assert!(checked >= 10, "only {checked} protocols checked");
    }

    /// A value never used gives exactly one located `#[deprecated]` item
    /// carrying the warning text.
    #[test]
    fn unused_value_becomes_deprecated_item() {
        let src = "protocol P(role A, role B) {\n    output B { y: Block }\n    at A { t = sample Block; x = sample Block; }\n    round r: A -> B : M { x: Block }\n    at B { y = x; }\n}\n";
        let c = crate::compile_str("p.otp", src, Path::new("."))
            .unwrap_or_else(|f| panic!("{}", f.render()));
        let items = super::warning_items(&c.warnings, &c.sources);
        assert_eq!(items.len(), 1);
        let text = items[0].tokens.to_string();
        assert!(text.contains("deprecated"), "{text}");
        assert!(text.contains("p.otp:3:12"), "{text}");
        assert!(text.contains("value `t` at `A` is never used"), "{text}");
    }
}
