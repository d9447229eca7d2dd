//! The `protocol!` procedural macro: compiles a `.otp` protocol specification
//! into typed Rust items (see the `ot-compiler` crate for what is generated).
//!
//! ```ignore
//! mod co15 { ot::protocol!("protocols/co15.otp"); }
//! ```
//! The path is relative to the invoking crate's `CARGO_MANIFEST_DIR`. The
//! inline form `protocol! { protocol X(...) { ... } }` compiles the tokens
//! as `.otp` text. The macro never panics: every problem becomes one
//! `compile_error!` holding `file:line:col`, a snippet with a caret and a
//! help line; independent problems are all reported (up to 20), each as
//! its own `compile_error!`.
//!
//! Alongside the module items come checks that each intrinsic's Rust
//! function takes what its `.otp` declaration says (a mismatch is a rustc
//! error naming the intrinsic and its declaration) and the checker's
//! warnings as `deprecated` lint warnings (silenced by
//! `#[allow(deprecated)]` on the enclosing module). In the inline form both
//! are spanned at their place in the invoking file.
#![forbid(unsafe_code)]

use proc_macro::TokenStream;
use quote::quote;
use std::path::PathBuf;

/// Compiles a `.otp` file (or inline `.otp` text) into the items of a protocol module.
#[proc_macro]
pub fn protocol(input: TokenStream) -> TokenStream {
    let input2: proc_macro2::TokenStream = input.into();
    let base = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    // For the inline form: the span of each token, by its position.
    let mut places = Places::new();
    let result = match syn::parse2::<syn::LitStr>(input2.clone()) {
        Ok(lit) => ot_compiler::compile_path(&lit.value(), &base),
        Err(_) => {
            // Inline form: the source text is the tokens' own text, laid out at
            // their positions in the invoking file, so diagnostics point there.
            let text = inline_text(&input2, &mut places);
            let name = proc_macro::Span::call_site()
                .local_file()
                .map(|p| p.display().to_string())
                .unwrap_or_else(|| "<inline protocol>".into());
            let name = name
                .strip_prefix(&format!("{}/", base.display()))
                .map(str::to_string)
                .unwrap_or(name);
            ot_compiler::compile_str(&name, &text, &base)
        }
    };
    match result {
        Ok(c) => {
            // The located items come first, so that rustc reports an
            // intrinsic's located error before the same mistake at the
            // generated call.
            let mut out = proc_macro2::TokenStream::new();
            for item in c.located {
                let span = if item.span.file == MAIN_FILE {
                    let (line, col) = c.sources.line_col(item.span.file, item.span.start);
                    places.find(line, col.saturating_sub(1))
                } else {
                    None
                };
                match span {
                    Some(span) => out.extend(respan(item.tokens, span)),
                    None => out.extend(item.tokens),
                }
            }
            out.extend(c.tokens);
            out.into()
        }
        // One `compile_error!` per independent error, in source order.
        Err(f) => f
            .errors
            .iter()
            .map(|d| {
                let msg = format!("\n{}", d.render(&f.sources));
                quote!(::core::compile_error!(#msg);)
            })
            .collect::<proc_macro2::TokenStream>()
            .into(),
    }
}

/// The facade's module of every protocol in a directory (for the `ot`
/// crate itself; hidden from users): for each `dir/x.otp` (the prelude
/// excepted), in file-name order, `pub mod x { protocol!("dir/x.otp"); }`
/// documented with its `about` block's summary, `From<x::Error>` for
/// `crate::traits::OtError`, and `SHIPPED`, the list of their `ABOUT`
/// entries. `extra x { items }` adds items to module `x`. Adding a protocol
/// is adding its file: no list to keep.
#[doc(hidden)]
#[proc_macro]
pub fn protocol_modules(input: TokenStream) -> TokenStream {
    match syn::parse::<ModulesInput>(input) {
        Ok(m) => modules(m).unwrap_or_else(|e| e.to_compile_error()).into(),
        Err(e) => e.to_compile_error().into(),
    }
}

/// `"dir" (extra name { items })*`.
struct ModulesInput {
    dir: syn::LitStr,
    extras: Vec<(syn::Ident, proc_macro2::TokenStream)>,
}

impl syn::parse::Parse for ModulesInput {
    fn parse(input: syn::parse::ParseStream) -> syn::Result<Self> {
        let dir = input.parse()?;
        let mut extras = vec![];
        while !input.is_empty() {
            let kw: syn::Ident = input.parse()?;
            if kw != "extra" {
                return Err(syn::Error::new(
                    kw.span(),
                    "expected `extra module { items }`",
                ));
            }
            let name: syn::Ident = input.parse()?;
            let body;
            syn::braced!(body in input);
            extras.push((name, body.parse()?));
        }
        Ok(ModulesInput { dir, extras })
    }
}

fn modules(m: ModulesInput) -> syn::Result<proc_macro2::TokenStream> {
    let base = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_else(|_| ".".into()));
    let dir = m.dir.value();
    let fail = |msg: String| syn::Error::new(m.dir.span(), msg);
    let mut stems: Vec<String> = std::fs::read_dir(base.join(&dir))
        .map_err(|e| fail(format!("cannot read `{dir}`: {e}")))?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter_map(|n| n.strip_suffix(".otp").map(str::to_string))
        .filter(|n| n != "prelude")
        .collect();
    stems.sort();
    for (name, _) in &m.extras {
        if !stems.iter().any(|s| name == s) {
            return Err(syn::Error::new(
                name.span(),
                format!("no `{dir}/{name}.otp` to add items to"),
            ));
        }
    }
    let mut out = proc_macro2::TokenStream::new();
    let mut entries = vec![];
    for stem in &stems {
        let rel = format!("{dir}/{stem}.otp");
        let summary = match ot_compiler::about_summary(&rel, &base) {
            Ok(Some(s)) => s,
            Ok(None) => return Err(fail(format!("`{rel}` has no `about` block with a `summary`: every shipped protocol declares one"))),
            Err(f) => return Err(fail(f.render())),
        };
        let doc = format!("{summary} From `{rel}`.");
        let name = syn::Ident::new(stem, proc_macro2::Span::call_site());
        let extra = m
            .extras
            .iter()
            .filter(|(n, _)| n == stem)
            .map(|(_, items)| items);
        out.extend(quote! {
            #[doc = #doc]
            pub mod #name {
                crate::protocol!(#rel);
                #(#extra)*
            }
            impl ::core::convert::From<#name::Error> for crate::traits::OtError {
                fn from(e: #name::Error) -> Self {
                    crate::traits::OtError(::std::boxed::Box::new(e))
                }
            }
        });
        entries.push(quote!(&#name::ABOUT));
    }
    out.extend(quote! {
        /// The `ABOUT` entry of every protocol module, in file-name order.
        pub(crate) const SHIPPED: &[&crate::registry::About] = &[#(#entries),*];
    });
    Ok(out)
}

/// The file id of the protocol's own source (the prelude is file 0).
const MAIN_FILE: u32 = 1;

/// The spans of the inline form's tokens by (line, column) in the invoking
/// file, in source order.
struct Places(Vec<((usize, usize), proc_macro2::Span)>);

impl Places {
    fn new() -> Self {
        Places(vec![])
    }

    /// The span of the token at `(line, column)` (0-based column), or of the
    /// last token before it.
    fn find(&self, line: usize, column: usize) -> Option<proc_macro2::Span> {
        let i = self.0.partition_point(|(p, _)| *p <= (line, column));
        i.checked_sub(1).map(|i| self.0[i].1)
    }
}

/// Gives every token of `ts` the span `span` (keeping groups' structure).
fn respan(ts: proc_macro2::TokenStream, span: proc_macro2::Span) -> proc_macro2::TokenStream {
    use proc_macro2::{Group, TokenTree};
    ts.into_iter()
        .map(|tt| match tt {
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), respan(g.stream(), span));
                n.set_span(span);
                TokenTree::Group(n)
            }
            mut other => {
                other.set_span(span);
                other
            }
        })
        .collect()
}

/// Reconstructs `.otp` text from tokens. Each token is placed at its own
/// line and column in the invoking Rust file (from its span), so a
/// diagnostic's `line:col` is the position in that `.rs` file; where the
/// compiler gives no location, tokens are separated by spaces. Records
/// each placed token's span in `places`.
fn inline_text(ts: &proc_macro2::TokenStream, places: &mut Places) -> String {
    let mut out = String::new();
    let mut pos = (1usize, 0usize);
    write_tokens(ts, &mut out, &mut pos, places);
    out
}

/// Moves the cursor to `(line, column)` by appending newlines and spaces;
/// returns false when the location is unknown or behind the cursor.
fn seek(out: &mut String, pos: &mut (usize, usize), at: proc_macro2::LineColumn) -> bool {
    if at.line == 0 || (at.line, at.column) < *pos {
        return false;
    }
    while pos.0 < at.line {
        out.push('\n');
        *pos = (pos.0 + 1, 0);
    }
    while pos.1 < at.column {
        out.push(' ');
        pos.1 += 1;
    }
    true
}

fn push(out: &mut String, pos: &mut (usize, usize), text: &str) {
    for c in text.chars() {
        out.push(c);
        if c == '\n' {
            *pos = (pos.0 + 1, 0);
        } else {
            pos.1 += 1;
        }
    }
}

fn write_tokens(
    ts: &proc_macro2::TokenStream,
    out: &mut String,
    pos: &mut (usize, usize),
    places: &mut Places,
) {
    use proc_macro2::{Delimiter, TokenTree};
    for tt in ts.clone() {
        let placed = seek(out, pos, tt.span().start());
        if placed {
            places.0.push((*pos, tt.span()));
        }
        if !placed && !out.is_empty() && !out.ends_with([' ', '\n']) {
            push(out, pos, " ");
        }
        match tt {
            TokenTree::Group(g) => {
                let (o, c) = match g.delimiter() {
                    Delimiter::Parenthesis => ("(", ")"),
                    Delimiter::Brace => ("{", "}"),
                    Delimiter::Bracket => ("[", "]"),
                    Delimiter::None => ("", ""),
                };
                push(out, pos, o);
                write_tokens(&g.stream(), out, pos, places);
                if !seek(out, pos, g.span_close().start()) {
                    push(out, pos, " ");
                }
                push(out, pos, c);
            }
            TokenTree::Punct(p) => push(out, pos, &p.as_char().to_string()),
            other => push(out, pos, &other.to_string()),
        }
    }
}
