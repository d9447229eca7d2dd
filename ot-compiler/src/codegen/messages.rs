//! The typed messages (`msgs::*`), one per round, with their exact wire
//! length and a codec that validates shapes and never panics.

use super::names::id;
use super::wire::{check_shape, read_value, rust_ty, wire_len, write_value};
use crate::ir::{Ir, IrRound};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// The `msgs` module.
pub(super) fn messages_module(ir: &Ir) -> TokenStream {
    let msgs = ir.rounds.iter().map(message);
    quote! {
        /// The typed messages, one per round, with their wire codec.
        pub mod msgs {
            #[allow(unused_imports)]
            use super::*;
            #(#msgs)*
        }
    }
}

/// The statements decoding field `n` of round `rn` from `bytes[__off..]`.
fn read_field(rn: &str, n: &str, t: &crate::types::Ty) -> TokenStream {
    let i = id(n);
    let len = wire_len(t);
    let read = read_value(t);
    quote!(
        let __len = #len;
        let __b = &bytes[__off..__off + __len];
        __off += __len;
        let #i = #read.map_err(|source| Error::Decode { round: #rn, field: #n, source })?;
    )
}

/// One message struct with `ROUND`, `wire_len`, `encode` and `decode`.
fn message(r: &IrRound) -> TokenStream {
    let m = format_ident!("{}", r.msg);
    let rn = &r.name;
    let doc = format!(
        "Message of round `{}` (`{}`): `{}`",
        r.name, r.location, r.text
    );
    let fnames: Vec<Ident> = r.fields.iter().map(|(n, _)| id(n)).collect();
    let ftys: Vec<TokenStream> = r.fields.iter().map(|(_, t)| rust_ty(t)).collect();
    let fdocs: Vec<String> = r
        .fields
        .iter()
        .map(|(n, t)| format!("`{n}: {t}`"))
        .collect();
    let lens: Vec<TokenStream> = r.fields.iter().map(|(_, t)| wire_len(t)).collect();
    let field = |n: &str| {
        let i = id(n);
        quote!(self.#i)
    };
    let checks = r
        .fields
        .iter()
        .map(|(n, t)| check_shape(t, &field(n), rn, n));
    let writes = r.fields.iter().map(|(n, t)| {
        let f = field(n);
        write_value(t, &quote!((&#f)))
    });
    let reads = r.fields.iter().map(|(n, t)| read_field(rn, n, t));
    quote! {
        #[doc = #doc]
        #[derive(Clone, Debug, PartialEq)]
        pub struct #m { #( #[doc = #fdocs] pub #fnames: #ftys, )* }
        impl #m {
            /// The round this message belongs to.
            pub const ROUND: &'static str = #rn;
            /// Exact encoded length in bytes for these parameters.
            #[allow(unused_variables)]
            pub fn wire_len(params: &Params) -> usize { 0usize #(.wrapping_add(#lens))* }
            /// Appends the encoding; fails if a value's length does not match its declared shape.
            #[allow(unused_variables)]
            pub fn encode(&self, params: &Params, out: &mut ::std::vec::Vec<u8>) -> Result<(), Error> {
                #(#checks)*
                out.reserve(Self::wire_len(params));
                #(#writes)*
                Ok(())
            }
            /// Decodes and validates a message; never panics on any input.
            #[allow(unused_variables, unused_assignments)]
            pub fn decode(bytes: &[u8], params: &Params) -> Result<Self, Error> {
                let __want = Self::wire_len(params);
                if bytes.len() != __want {
                    return Err(Error::Length { round: #rn, expected: __want, got: bytes.len() });
                }
                let mut __off = 0usize;
                #(#reads)*
                Ok(#m { #(#fnames),* })
            }
        }
    }
}
