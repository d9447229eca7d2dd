//! Names and paths in generated code: the runtime path, identifiers, case
//! conversions.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

pub(crate) fn rt() -> TokenStream {
    quote!(::ot::runtime)
}

pub(crate) fn id(s: &str) -> Ident {
    Ident::new(&s.replace('.', "__"), Span::call_site())
}

pub(crate) fn camel(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c == '_' || c == '.' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

pub(crate) fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A Rust path from a `.otp` declaration as tokens (`fallback` if it does
/// not parse; the compiler has already validated declared paths).
pub(crate) fn path_tokens(path: &str, fallback: TokenStream) -> TokenStream {
    syn::parse_str::<syn::Path>(path)
        .map(|p| quote!(#p))
        .unwrap_or(fallback)
}
