//! The items every protocol module starts with: the `include_str!`s of its
//! sources, `PROTOCOL`, `ROUNDS`, the constants, `SPEC_HASH`, and the
//! `Incoming`/`Outgoing` traits behind a role's generic `send`/`recv`.

use super::names::id;
use super::wire::rust_ty;
use crate::ir::Ir;
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The `include_str!`s of the source files (rebuild on edits), `PROTOCOL`,
/// `ROUNDS` and the constants.
pub(super) fn header_items(ir: &Ir) -> TokenStream {
    let pname = &ir.name;
    let includes = ir.files.iter().map(|f| {
        quote!(
            const _: &str = include_str!(#f);
        )
    });
    let rounds_n = ir.rounds.len();
    let consts = ir.consts.iter().map(|(n, t, v)| {
        let n = id(n);
        let ty = rust_ty(t);
        let v = Literal::u128_unsuffixed(*v);
        quote!(#[doc = "A constant of the protocol specification."] pub const #n: #ty = #v;)
    });
    let proto_doc = format!("Generated from `{}`.", ir.location);
    let about = about_item(ir);
    quote! {
        #(#includes)*
        #[doc = #proto_doc]
        pub const PROTOCOL: &str = #pname;
        /// Number of rounds (messages) in the specification.
        pub const ROUNDS: usize = #rounds_n;
        #(#consts)*
        #about
    }
}

/// `ABOUT`, the protocol's entry in the registry of protocols, when the
/// `.otp` has an `about` block.
fn about_item(ir: &Ir) -> TokenStream {
    let Some(a) = &ir.about else {
        return quote!();
    };
    let (name, location) = (&ir.name, &ir.location);
    let (family, security, proof, summary) = (&a.family, &a.security, &a.proof, &a.summary);
    let realizes = match &ir.realizes {
        Some(r) => {
            let f = &r.func;
            quote!(::core::option::Option::Some(#f))
        }
        None => quote!(::core::option::Option::None),
    };
    let roles = &ir.roles;
    let parties = match (&ir.party_count, &ir.dealer) {
        (Some(_), dealer) => {
            let dealer = dealer.is_some();
            quote!(::ot::registry::Parties::Many { dealer: #dealer })
        }
        (None, _) => quote!(::ot::registry::Parties::Two { roles: [#(#roles),*] }),
    };
    quote! {
        /// What this protocol is (its `.otp`'s `about` block): family,
        /// security label and the proof it rests on, the functionality it
        /// realizes; one entry of `ot::registry::PROTOCOLS`.
        pub const ABOUT: ::ot::registry::About = ::ot::registry::About {
            name: #name,
            location: #location,
            family: #family,
            security: #security,
            proof: #proof,
            summary: #summary,
            realizes: #realizes,
            parties: #parties,
            rounds: ROUNDS,
        };
    }
}

/// `SPEC_HASH`: the SHA-256 of the specification's sources, which the
/// session binding (two parties) and the session hello (n parties) carry.
pub(super) fn spec_hash_item(ir: &Ir) -> TokenStream {
    let hash = ir.spec_hash.iter().map(|b| Literal::u8_suffixed(*b));
    quote! {
        /// SHA-256 of the specification's sources (the prelude, this file, its
        /// imports and `extends` bases), bound at the start of every session
        /// so that parties built from different versions of the protocol
        /// refuse each other.
        pub const SPEC_HASH: [u8; 32] = [#(#hash),*];
    }
}

/// The `Incoming`/`Outgoing` traits behind generic `recv`/`send`, with the
/// rustc diagnostics for a message the state does not expect.
pub(super) fn step_traits(ir: &Ir) -> TokenStream {
    let pname = &ir.name;
    let round_list: Vec<String> = ir
        .rounds
        .iter()
        .map(|r| {
            format!(
                "round `{}`: {} -> {} : {}",
                r.name, ir.roles[r.from], ir.roles[r.to], r.msg
            )
        })
        .collect();
    let order_note = format!("`{pname}` runs {}", round_list.join("; then "));
    let recv_msg = format!("protocol `{pname}`: `{{R}}` cannot receive `{{Self}}` in this state");
    let send_msg = format!("protocol `{pname}`: `{{R}}` does not send `{{Self}}` in this state");
    quote! {
        #[doc = "A message that role state `R` receives (implemented only for the message that state expects), so `role.recv(msg)` type-checks exactly when the round order allows it."]
        #[diagnostic::on_unimplemented(message = #recv_msg, label = "this state does not expect this message", note = #order_note)]
        pub trait Incoming<R>: Sized {
            /// The state after receiving.
            type Next;
            /// Gives the message to the role and runs its following local computation.
            fn deliver(self, role: R) -> Result<Self::Next, Error>;
        }
        #[doc = "A message that role state `R` sends (implemented only for the message that state sends)."]
        #[diagnostic::on_unimplemented(message = #send_msg, label = "this state does not send this message", note = #order_note)]
        pub trait Outgoing<R>: Sized {
            /// The state after sending.
            type Next;
            /// Builds the message from the role and runs its following local computation.
            fn produce(role: R) -> Result<(Self, Self::Next), Error>;
        }
    }
}
