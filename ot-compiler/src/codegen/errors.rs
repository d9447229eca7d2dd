//! The protocol's `Error` enum: one variant per `abort` of the
//! specification, plus parameter, shape, codec, channel and sub-protocol
//! failures, each naming the round and field.

use super::names::{id, rt};
use crate::ir::Ir;
use proc_macro2::TokenStream;
use quote::quote;

/// `Error`, its `Display` (prefixed with the protocol name) and `Error::source`.
pub(super) fn error_items(ir: &Ir) -> TokenStream {
    let rt = rt();
    let pname = &ir.name;
    let abort_variants = ir.aborts.iter().map(|(n, text)| {
        let v = id(n);
        let doc = format!("The check `{text}` failed: the peer cheated or sent inconsistent data.");
        quote!(#[doc = #doc] #v { #[doc = "The role that aborted."] role: &'static str, #[doc = "The failed check (`file:line: text`)."] check: &'static str })
    });
    let abort_display = ir.aborts.iter().map(|(n, _)| {
        let v = id(n);
        let fmt = format!("{pname}: `{{role}}` aborted with {n}: check failed at {{check}}");
        quote!(Error::#v { role, check } => write!(f, #fmt))
    });
    let common = common_variants();
    let sub_err = sub_error_ty(ir);
    let common_display = common_display(pname);
    quote! {
        /// Everything that can go wrong in a run; checks in the specification become variants.
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum Error {
            #(#abort_variants,)*
            #common
            /// The peer's session binding differs from ours: it runs another
            /// protocol or version of it, other parameters, or the same role
            /// (checked before any output is returned; see `BINDING_BYTES`).
            PeerMismatch { /// What differs.
                what: #rt::transport::bind::Mismatch },
            /// A message other than the expected one arrived.
            UnexpectedMessage { /// Round.
                round: &'static str },
            /// The channel failed (hang-up, timeout, oversized frame).
            Channel { /// Round.
                round: &'static str, /// Why.
                source: #rt::transport::channel::ChannelError },
            /// A sub-protocol (`do` call) failed: its typed error, boxed.
            SubProtocol { /// Call name.
                call: &'static str, /// The error of the functionality's role trait.
                source: #sub_err },
        }
        impl ::core::fmt::Display for Error {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {
                    #(#abort_display,)*
                    #common_display
                    Error::PeerMismatch { what } => write!(f, "{}: session binding refused: {}", #pname, what),
                    Error::UnexpectedMessage { round } => write!(f, "{}: unexpected message in round `{}`", #pname, round),
                    Error::Channel { round, source } => write!(f, "{}: round `{}`: channel error: {}", #pname, round, source),
                    Error::SubProtocol { call, source } => write!(f, "{}: sub-protocol `{}` failed: {}", #pname, call, source),
                }
            }
        }
        impl ::std::error::Error for Error {
            fn source(&self) -> Option<&(dyn ::std::error::Error + 'static)> {
                match self {
                    Error::Decode { source, .. } => Some(source),
                    Error::Channel { source, .. } => Some(source),
                    Error::Alloc { source, .. } => Some(source),
                    Error::PeerMismatch { what } => Some(what),
                    Error::SubProtocol { source, .. } => Some(&**source),
                    _ => None,
                }
            }
        }
    }
}

/// The variants every protocol's `Error` has: parameters, shapes, lengths
/// and encodings of messages.
pub(super) fn common_variants() -> TokenStream {
    let rt = rt();
    quote! {
            /// A `requires` predicate of the parameters does not hold.
            Params { /// The predicate as written.
                requirement: &'static str },
            /// With these parameters a value of the protocol would take more
            /// memory than the budget (`ot_runtime::transport::limits::memory_budget`),
            /// or its size overflows `usize` (rejected by `Params::new`,
            /// before any message or allocation).
            TooLarge { /// The value, its type and role, as in the specification.
                value: &'static str, /// The parameters its size depends on.
                params: &'static str, /// Its size in bytes (None: overflows `usize`).
                bytes: ::core::option::Option<usize>, /// The memory budget when the parameters were checked.
                limit: usize },
            /// A buffer of the run could not be allocated (within the
            /// memory budget, but refused by the allocator).
            Alloc { /// Round.
                round: &'static str, /// The buffer, its size and the budget.
                source: #rt::transport::limits::AllocError },
            /// A value's length does not match its declared shape.
            Shape { /// Round (or `input`).
                round: &'static str, /// Field.
                field: &'static str, /// Declared length.
                expected: usize, /// Actual length.
                got: usize },
            /// A received message has the wrong length.
            Length { /// Round.
                round: &'static str, /// Expected bytes.
                expected: usize, /// Received bytes.
                got: usize },
            /// A field of a received message is not a valid encoding.
            Decode { /// Round.
                round: &'static str, /// Field.
                field: &'static str, /// Why.
                source: #rt::transport::wire::WireError },
    }
}

/// The `Display` arms of [`common_variants`].
pub(super) fn common_display(pname: &str) -> TokenStream {
    quote! {
                    Error::Params { requirement } => write!(f, "{}: parameters violate `requires {}`", #pname, requirement),
                    Error::TooLarge { value, params, bytes: Some(b), limit } => write!(f, "{}: parameter {} too large: {} would take {} bytes, more than the memory budget of {} bytes", #pname, params, value, b, limit),
                    Error::TooLarge { value, params, bytes: None, .. } => write!(f, "{}: parameter {} too large: the size of {} overflows usize", #pname, params, value),
                    Error::Alloc { round, source } => write!(f, "{}: round `{}`: {}", #pname, round, source),
                    Error::Shape { round, field, expected, got } => write!(f, "{}: round `{}`, field `{}`: length {} but the specification requires {}", #pname, round, field, got, expected),
                    Error::Length { round, expected, got } => write!(f, "{}: round `{}`: message of {} bytes, expected {}", #pname, round, got, expected),
                    Error::Decode { round, field, source } => write!(f, "{}: round `{}`, field `{}`: {}", #pname, round, field, source),
    }
}

/// The type `Error::SubProtocol` carries: `Box<E>` when every `do` call's
/// functionality declares the same error type `E`, else a boxed `dyn Error`.
pub(crate) fn sub_error_ty(ir: &Ir) -> TokenStream {
    let first = ir.subs.first().and_then(|s| s.error.clone());
    match first {
        Some(p)
            if ir
                .subs
                .iter()
                .all(|s| s.error.as_deref() == Some(p.as_str())) =>
        {
            let t = super::realize::error_ty(&Some(p));
            quote!(::std::boxed::Box<#t>)
        }
        _ => super::realize::boxed_error(),
    }
}
