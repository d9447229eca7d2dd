//! The blocking two-party driver `run(&mut impl Channel)`: each step's
//! statements (encode, frame, send, flush; receive with the exact length,
//! decode) in the role's order.

use proc_macro2::{Ident, TokenStream};
use quote::quote;

/// Runs a send step and transmits its message.
pub(super) fn send(method: &Ident, rn: &str) -> TokenStream {
    quote! {
        let (__m, __s) = __s.#method()?;
        __buf.clear();
        __m.encode(&__s.params, &mut __buf)?;
        ch.send_vec(::core::mem::take(&mut __buf)).map_err(|source| Error::Channel { round: #rn, source })?;
        ch.flush().map_err(|source| Error::Channel { round: #rn, source })?;
    }
}

/// Receives a message of exactly its length, decodes it, runs the step.
pub(super) fn recv(m: &Ident, method: &Ident, rn: &str) -> TokenStream {
    quote! {
        let __len = msgs::#m::wire_len(&__s.params);
        ch.recv_into(&mut __buf, __len).map_err(|source| Error::Channel { round: #rn, source })?;
        let __m = msgs::#m::decode(&__buf, &__s.params)?;
        let __s = __s.#method(__m)?;
    }
}

/// Runs a step that uses the channel itself (a stream, a sub-protocol).
pub(super) fn on_channel(method: &Ident) -> TokenStream {
    quote! {
        let __s = __s.#method(&mut ch)?;
    }
}

/// The `run` method of the first state: the session binding, every step in
/// order (the peer's binding checked before the first step that reads),
/// then `finish`.
pub(super) fn run_fn(
    output: &Ident,
    rname: &str,
    ri: usize,
    pre: &[TokenStream],
    post: &[TokenStream],
) -> TokenStream {
    let rt = crate::codegen::names::rt();
    let run_doc = format!("Runs `{rname}` to completion over a channel (blocking driver): sends the session binding (`BINDING_BYTES`: protocol, `SPEC_HASH`, parameters, role) as its first frame, checks the peer's before its first step that reads (a different peer is `Error::PeerMismatch`), and encodes, frames, sends, receives and decodes every message with its exact length from `Params`.");
    // The binding goes out with the first message; a role that reads first
    // flushes it at once, so the peer never waits for it.
    let flush = if pre.is_empty() {
        quote!(ch.flush().map_err(|source| Error::Channel { round: "binding", source })?;)
    } else {
        quote!()
    };
    // A send before the check may fail because the peer refused our binding
    // and hung up: then its binding, still queued, names the mismatch.
    let pre = if pre.is_empty() {
        quote!()
    } else {
        quote! {
            let __pre = (|| -> Result<_, Error> {
                #(#pre)*
                Ok(__s)
            })();
            let __s = match __pre {
                Ok(__s) => __s,
                Err(__e) => {
                    return Err(match __bind.mismatch_after_error(&mut ch, &mut __buf) {
                        Some(what) => Error::PeerMismatch { what },
                        None => __e,
                    })
                }
            };
        }
    };
    quote! {
        #[doc = #run_doc]
        #[allow(unused_variables, unused_mut)]
        pub fn run<C: #rt::channel::Channel + ?Sized>(self, mut ch: &mut C) -> Result<#output, Error> {
            let __bind_err = |e: #rt::bind::BindError| match e {
                #rt::bind::BindError::Mismatch(what) => Error::PeerMismatch { what },
                #rt::bind::BindError::Channel(source) => Error::Channel { round: "binding", source },
            };
            let mut __buf: ::std::vec::Vec<u8> = ::std::vec::Vec::new();
            let __bind = #rt::bind::Binding::new(PROTOCOL, SPEC_HASH, self.params.encode(), #ri);
            __bind.send(&mut ch).map_err(__bind_err)?;
            #flush
            let __s = self;
            #pre
            __bind.check(&mut ch, &mut __buf).map_err(__bind_err)?;
            #(#post)*
            __s.finish()
        }
    }
}
