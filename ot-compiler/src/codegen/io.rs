//! The two drivers of a two-party role, blocking and async, generated from
//! the same templates: [`Io`] says which one a template is instantiated
//! for (the channel trait, `.await` after each channel call, the step
//! method's name and `async`-ness), and [`gate`] wraps async items so they
//! compile only when the runtime has async channels.
//!
//! A proc macro cannot see the user crate's cargo features, so the async
//! items are wrapped in the runtime's `__if_tokio!` macro, which expands to
//! its input when `ot-runtime` is built with its `tokio` feature and to
//! nothing otherwise (the tokens are then never parsed or type-checked).

use super::names::rt;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// Which driver a template is instantiated for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Io {
    /// `run(&mut impl Channel)`: channel calls return at once.
    Blocking,
    /// `run_async(&mut impl AsyncChannel)`: channel calls are awaited.
    Async,
}

impl Io {
    /// What follows a channel call: nothing, or `.await`.
    pub(super) fn aw(self) -> TokenStream {
        match self {
            Io::Blocking => quote!(),
            Io::Async => quote!(.await),
        }
    }

    /// The channel trait (a path).
    pub(super) fn channel(self) -> TokenStream {
        let rt = rt();
        match self {
            Io::Blocking => quote!(#rt::transport::channel::Channel),
            Io::Async => quote!(#rt::transport::channel::AsyncChannel),
        }
    }

    /// The name of a step method or functionality method in this driver:
    /// `name`, or `name_async`.
    pub(super) fn method(self, name: &Ident) -> Ident {
        match self {
            Io::Blocking => name.clone(),
            Io::Async => format_ident!("{}_async", name),
        }
    }

    /// `async` for an async function, else nothing.
    pub(super) fn asyncness(self) -> TokenStream {
        match self {
            Io::Blocking => quote!(),
            Io::Async => quote!(async),
        }
    }
}

/// `items` as they are for the blocking driver; wrapped in the runtime's
/// `__if_tokio!` for the async one.
pub(super) fn gate(io: Io, items: TokenStream) -> TokenStream {
    let rt = rt();
    match io {
        Io::Blocking => items,
        Io::Async => quote!(#rt::__if_tokio! { #items }),
    }
}

/// Whether a functionality trait has async twins of its methods (the
/// traits of `ot::traits` do; a user's own trait may not, and then the
/// protocols that call it through `do` get no async driver).
pub(super) fn has_async_twin(trait_path: &str) -> bool {
    trait_path
        .trim_start_matches("::")
        .starts_with("ot::traits::")
}
