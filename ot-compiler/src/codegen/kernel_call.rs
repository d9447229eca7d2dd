//! The one call shape of a streamed kernel (an intrinsic declared
//! `chunked`): `kernel(arguments..., span: Span, out: &mut Out)`. A chunked
//! round's stages call it per chunk (`stream`); everything else calls it
//! once over the whole width of its result ([`whole_call`]); the
//! signature check makes the same call (`sigcheck`).

use super::names::rt;
use super::wire::{rust_ty, shape};
use crate::types::Ty;
use proc_macro2::TokenStream;
use quote::quote;

/// The Rust type of the `out` argument of a streamed kernel (an intrinsic
/// declared `chunked`) whose result has type `ty`: the matrix it resets
/// and fills, the slice of the array it writes, or the accumulator a
/// GF(2)-linear sum is XORed into.
pub(super) fn streamed_out(ty: &Ty) -> TokenStream {
    match ty {
        Ty::Array(elem, _) => {
            let e = rust_ty(elem);
            quote!([#e])
        }
        _ => rust_ty(ty),
    }
}

/// A call of the streamed kernel `path` outside a chunked round: one call
/// over the whole width of its result (`ty`), into a fresh output of that
/// width (an accumulator for a sum, over every entry of its inputs).
pub(super) fn whole_call(path: TokenStream, args: &[TokenStream], ty: &Ty) -> TokenStream {
    let rt = rt();
    match ty {
        Ty::BitMatrix(_, cols) => {
            let cols = shape(cols);
            quote!({
                let mut __out = #rt::BitMatrix::default();
                #path(#(#args,)* #rt::Span::whole(#cols), &mut __out);
                __out
            })
        }
        Ty::Array(..) => {
            let n = array_len(ty);
            let t = rust_ty(ty);
            quote!({
                let __n: usize = #n;
                let mut __out: #t = ::std::vec::Vec::new();
                __out.resize(__n, ::core::default::Default::default());
                #path(#(#args,)* #rt::Span::whole(__n), &mut __out[..]);
                __out
            })
        }
        _ => {
            let t = rust_ty(ty);
            quote!({
                let mut __out: #t = ::core::default::Default::default();
                #path(#(#args,)* #rt::Span::whole(usize::MAX), &mut __out);
                __out
            })
        }
    }
}

/// The length of an array type as an expression (0 for anything else).
pub(super) fn array_len(ty: &Ty) -> TokenStream {
    match ty {
        Ty::Array(_, n) => shape(n),
        _ => quote!(0usize),
    }
}
