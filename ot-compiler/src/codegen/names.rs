//! Names and paths in generated code: the runtime path, identifiers.

use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

pub(crate) fn rt() -> TokenStream {
    quote!(::ot::runtime)
}

pub(crate) fn id(s: &str) -> Ident {
    Ident::new(&s.replace('.', "__"), Span::call_site())
}

/// A Rust path from a `.otp` declaration as tokens (`fallback` if it does
/// not parse; the compiler has already validated declared paths).
pub(crate) fn path_tokens(path: &str, fallback: TokenStream) -> TokenStream {
    syn::parse_str::<syn::Path>(path)
        .map(|p| quote!(#p))
        .unwrap_or(fallback)
}
