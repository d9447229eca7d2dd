//! The `protocol!` procedural macro: compiles a `.otp` protocol specification
//! into typed Rust items (see the `ot-compiler` crate for what is generated).
//!
//! ```ignore
//! mod co15 { ot::protocol!("protocols/co15.otp"); }
//! ```
//! The path is relative to the invoking crate's `CARGO_MANIFEST_DIR`. The
//! inline form `protocol! { protocol X(...) { ... } }` compiles the tokens
//! as `.otp` text. The macro never panics: every problem becomes one
//! `compile_error!` holding `file:line:col`, a snippet with a caret and a help line.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use quote::quote;
use std::path::PathBuf;

/// Compiles a `.otp` file (or inline `.otp` text) into the items of a protocol module.
#[proc_macro]
pub fn protocol(input: TokenStream) -> TokenStream {
    let input2: proc_macro2::TokenStream = input.into();
    let base = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let result = match syn::parse2::<syn::LitStr>(input2.clone()) {
        Ok(lit) => ot_compiler::compile_path(&lit.value(), &base),
        Err(_) => {
            // Inline form: the source text is the tokens' own text, recovered from the call site.
            let text = inline_text(&input2);
            ot_compiler::compile_str("<inline protocol>", &text, &base)
        }
    };
    match result {
        Ok(c) => c.tokens.into(),
        Err(f) => {
            let msg = format!("\n{}", f.render());
            quote!(::core::compile_error!(#msg);).into()
        }
    }
}

/// Reconstructs `.otp` text from tokens, keeping line structure from spans
/// where the compiler exposes it, otherwise separating tokens by spaces.
fn inline_text(ts: &proc_macro2::TokenStream) -> String {
    let mut out = String::new();
    write_tokens(ts, &mut out);
    out
}

fn write_tokens(ts: &proc_macro2::TokenStream, out: &mut String) {
    use proc_macro2::{Delimiter, Spacing, TokenTree};
    let mut prev_joint = false;
    for tt in ts.clone() {
        if !prev_joint && !out.is_empty() && !out.ends_with(' ') {
            out.push(' ');
        }
        prev_joint = false;
        match tt {
            TokenTree::Group(g) => {
                let (o, c) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{\n", "\n}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                out.push_str(o);
                write_tokens(&g.stream(), out);
                out.push_str(c);
            }
            TokenTree::Punct(p) => {
                out.push(p.as_char());
                prev_joint = p.spacing() == Spacing::Joint;
                if p.as_char() == ';' {
                    out.push('\n');
                }
            }
            other => out.push_str(&other.to_string()),
        }
    }
}
