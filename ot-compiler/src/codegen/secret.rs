//! How the generated code holds secret values: `Wiped<T>` wrappers, and
//! taking a value out of one. Which values are secret is the plan's rule
//! (`plan::secrets`, issue 15, item 7).

use super::names::{id, rt};
use super::wire::rust_ty;
use crate::types::Ty;
use proc_macro2::TokenStream;
use quote::quote;
use std::collections::BTreeSet;

/// The Rust type of a value held as secret or not.
pub(super) fn held_ty(secret: bool, ty: &Ty) -> TokenStream {
    let t = rust_ty(ty);
    if secret {
        let rt = rt();
        quote!(#rt::primitives::wipe::Wiped<#t>)
    } else {
        t
    }
}

/// Rebinds the plain values `names` (inputs, sub-protocol outputs) that
/// are secret as wiping wrappers.
pub(super) fn wrap_locals<'a>(
    secrets: &BTreeSet<String>,
    names: impl IntoIterator<Item = &'a String>,
) -> TokenStream {
    wrap_values(secrets, names, &|_| false)
}

/// As [`wrap_locals`], where `optional(name)` tells a value held as an
/// `Option` (by one fixed party of an n-party protocol): its content is
/// wrapped.
pub(super) fn wrap_values<'a>(
    secrets: &BTreeSet<String>,
    names: impl IntoIterator<Item = &'a String>,
    optional: &dyn Fn(&str) -> bool,
) -> TokenStream {
    let rt = rt();
    let binds = names.into_iter().filter(|n| secrets.contains(*n)).map(|n| {
        let i = id(n);
        if optional(n) {
            quote!(let mut #i = #i.map(#rt::primitives::wipe::Wiped);)
        } else {
            quote!(let mut #i = #rt::primitives::wipe::Wiped(#i);)
        }
    });
    quote!(#(#binds)*)
}

/// The value of secret local `name` moved out of its wrapper (a copy for
/// `Copy` types, else taken, leaving an empty value to be dropped).
pub(super) fn take_out(name: &str, ty: &Ty) -> TokenStream {
    let i = id(name);
    if ty.is_copy() {
        quote!((*#i))
    } else {
        quote!(::core::mem::take(&mut *#i))
    }
}

/// As [`take_out`], for a value held as an `Option<Wiped<T>>` (by one
/// fixed party of an n-party protocol): an `Option<T>`.
pub(super) fn take_out_optional(name: &str, ty: &Ty) -> TokenStream {
    let i = id(name);
    if ty.is_copy() {
        quote!(#i.as_deref().copied())
    } else {
        quote!(#i.as_deref_mut().map(::core::mem::take))
    }
}

/// Inside the code of the fixed party holding `name` (an `Option`, see
/// [`wrap_values`]): its own copy of the value, `held` being the
/// expression of a reference to what the `Option` holds; a secret's copy
/// is wrapped in turn (wiped at the end of that code).
pub(super) fn unwrap_copy(secret: bool, name: &str, held: TokenStream) -> TokenStream {
    let i = id(name);
    if secret {
        let rt = rt();
        quote!(let mut #i = #rt::primitives::wipe::Wiped(::core::clone::Clone::clone(&**#held));)
    } else {
        quote!(let #i = ::core::clone::Clone::clone(#held);)
    }
}

/// The Rust type of a value held as secret or not, and as an `Option`
/// (by one fixed party of an n-party protocol) or not.
pub(super) fn held_ty_optional(secret: bool, optional: bool, ty: &Ty) -> TokenStream {
    let t = held_ty(secret, ty);
    if optional {
        quote!(::core::option::Option<#t>)
    } else {
        t
    }
}
