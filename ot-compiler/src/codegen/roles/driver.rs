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

/// The `run` method of the first state: every step in order, then `finish`.
pub(super) fn run_fn(output: &Ident, rname: &str, steps: &[TokenStream]) -> TokenStream {
    let rt = crate::codegen::names::rt();
    let run_doc = format!("Runs `{rname}` to completion over a channel (blocking driver): every message is encoded, framed, sent, received and decoded with its exact length from `Params`.");
    quote! {
        #[doc = #run_doc]
        #[allow(unused_variables, unused_mut)]
        pub fn run<C: #rt::channel::Channel + ?Sized>(self, mut ch: &mut C) -> Result<#output, Error> {
            let mut __buf: ::std::vec::Vec<u8> = ::std::vec::Vec::new();
            let __s = self;
            #(#steps)*
            __s.finish()
        }
    }
}
