//! The two-party drivers, blocking `run(&mut impl Channel)` and async
//! `run_async(&mut impl AsyncChannel)`, from one set of templates (see
//! [`Io`]): each step's statements (encode, frame, send, flush; receive
//! with the exact length, decode) in the role's order.

use crate::codegen::io::Io;
use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// Runs a send step and transmits its message.
pub(super) fn send(io: Io, method: &Ident, rn: &str) -> TokenStream {
    let aw = io.aw();
    quote! {
        let (__m, __s) = __s.#method()?;
        __buf.clear();
        __m.encode(&__s.params, &mut __buf)?;
        ch.send_vec(::core::mem::take(&mut __buf))#aw.map_err(|source| Error::Channel { round: #rn, source })?;
        ch.flush()#aw.map_err(|source| Error::Channel { round: #rn, source })?;
    }
}

/// Receives a message of exactly its length, decodes it, runs the step.
pub(super) fn recv(io: Io, m: &Ident, method: &Ident, rn: &str) -> TokenStream {
    let aw = io.aw();
    quote! {
        let __len = msgs::#m::wire_len(&__s.params);
        ch.recv_into(&mut __buf, __len)#aw.map_err(|source| Error::Channel { round: #rn, source })?;
        let __m = msgs::#m::decode(&__buf, &__s.params)?;
        let __s = __s.#method(__m)?;
    }
}

/// Runs a receive step through its `_with` form: the step's computation
/// that does not need the message runs first, then the closure receives
/// and decodes it (blocking driver only).
pub(super) fn recv_overlapped(m: &Ident, with: &Ident, rn: &str) -> TokenStream {
    quote! {
        let __len = msgs::#m::wire_len(&__s.params);
        let __s = __s.#with(|__p: &Params| -> Result<msgs::#m, Error> {
            ch.recv_into(&mut __buf, __len).map_err(|source| Error::Channel { round: #rn, source })?;
            msgs::#m::decode(&__buf, __p)
        })?;
    }
}

/// Runs a step that uses the channel itself (a stream, a sub-protocol):
/// the step method of this driver (`method`, or `method_async`).
pub(super) fn on_channel(io: Io, method: &Ident) -> TokenStream {
    let (aw, method) = (io.aw(), io.method(method));
    quote! {
        let __s = __s.#method(&mut ch)#aw?;
    }
}

/// The driver method of the first state (`run`, or `run_async`): the
/// session binding, every step in order (the peer's binding checked before
/// the first step that reads), then `finish`.
pub(super) fn run_fn(
    io: Io,
    output: &Ident,
    rname: &str,
    ri: usize,
    pre: &[TokenStream],
    post: &[TokenStream],
) -> TokenStream {
    let rt = crate::codegen::names::rt();
    let (aw, chan, asyncness) = (io.aw(), io.channel(), io.asyncness());
    let (run, send, check) = match io {
        Io::Blocking => (quote!(run), quote!(send), quote!(check)),
        Io::Async => (quote!(run_async), quote!(send_async), quote!(check_async)),
    };
    let what = match io {
        Io::Blocking => "over a channel (blocking driver)",
        Io::Async => "over an async channel (async driver, cargo feature `tokio`: the same frames as `run`, so either party may be blocking)",
    };
    let run_doc = format!("Runs `{rname}` to completion {what}: sends the session binding (`BINDING_BYTES`: protocol, `SPEC_HASH`, parameters, role) as its first frame, checks the peer's before its first step that reads (a different peer is `Error::PeerMismatch`), and encodes, frames, sends, receives and decodes every message with its exact length from `Params`.");
    // The binding goes out with the first message; a role that reads first
    // flushes it at once, so the peer never waits for it.
    let flush = if pre.is_empty() {
        quote!(ch.flush()#aw.map_err(|source| Error::Channel { round: "binding", source })?;)
    } else {
        quote!()
    };
    let pre = pre_check(io, pre);
    quote! {
        #[doc = #run_doc]
        #[allow(unused_variables, unused_mut)]
        pub #asyncness fn #run<C: #chan + ?Sized>(self, mut ch: &mut C) -> Result<#output, Error> {
            let __bind_err = |e: #rt::transport::bind::BindError| match e {
                #rt::transport::bind::BindError::Mismatch(what) => Error::PeerMismatch { what },
                #rt::transport::bind::BindError::Channel(source) => Error::Channel { round: "binding", source },
            };
            let mut __buf: ::std::vec::Vec<u8> = ::std::vec::Vec::new();
            let __bind = #rt::transport::bind::Binding::new(PROTOCOL, SPEC_HASH, self.params.encode(), #ri);
            __bind.#send(&mut ch)#aw.map_err(__bind_err)?;
            #flush
            let __s = self;
            #pre
            __bind.#check(&mut ch, &mut __buf)#aw.map_err(__bind_err)?;
            #(#post)*
            __s.finish()
        }
    }
}

/// The driver's steps `pre` before the peer's session binding is checked
/// (sends only), if any: an error among them is reported as the peer's
/// mismatch when the peer's binding (still queued) names one.
fn pre_check(io: Io, pre: &[TokenStream]) -> TokenStream {
    let aw = io.aw();
    let mismatch = match io {
        Io::Blocking => quote!(mismatch_after_error),
        Io::Async => quote!(mismatch_after_error_async),
    };
    // A send before the check may fail because the peer refused our binding
    // and hung up: then its binding, still queued, names the mismatch.
    let pre_block = match io {
        Io::Blocking => quote!((|| -> Result<_, Error> {
            #(#pre)*
            Ok(__s)
        })()),
        Io::Async => quote!(async {
            #(#pre)*
            Ok::<_, Error>(__s)
        }.await),
    };
    if pre.is_empty() {
        quote!()
    } else {
        quote! {
            let __pre = #pre_block;
            let __s = match __pre {
                Ok(__s) => __s,
                Err(__e) => {
                    return Err(match __bind.#mismatch(&mut ch, &mut __buf)#aw {
                        Some(what) => Error::PeerMismatch { what },
                        None => __e,
                    })
                }
            };
        }
    }
}

/// The runtime's `AsyncParty` impl of a role's first state (its
/// `run_async` as a boxed future), for generic async code.
pub(super) fn async_party(
    role: &Ident,
    role_mod: &Ident,
    first: &Ident,
    output: &Ident,
) -> TokenStream {
    let rt = crate::codegen::names::rt();
    quote! {
        impl #rt::transport::session::AsyncParty for #role<#role_mod::#first> {
            fn run_on_async<'a>(self, ch: &'a mut dyn #rt::transport::channel::AsyncChannel) -> #rt::transport::channel::BoxFuture<'a, Result<#output, Error>>
            where
                Self: 'a,
            {
                ::std::boxed::Box::pin(self.run_async(ch))
            }
        }
    }
}
