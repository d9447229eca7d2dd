//! Rust code generation from the checked [`Ir`], one module per kind of
//! item: parameters and `comm` ([`params`]), messages and their codec
//! ([`messages`]), the error enum ([`errors`]), role typestates with their
//! sans-IO steps and blocking driver ([`roles`]), chunked streams
//! ([`stream`]), and the duality guard ([`duality`]); expressions
//! ([`expr`]) and value types and their wire form ([`wire`]) are shared.

mod duality;
mod errors;
mod expr;
mod messages;
mod names;
mod params;
mod party;
mod roles;
mod stream;
mod wire;

pub use expr::locals_of;
pub use wire::{is_fixed_wire, rust_ty};

use crate::ir::*;
use expr::ExprGen;
use names::id;
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
    quote! {
        #(#includes)*
        #[doc = #proto_doc]
        pub const PROTOCOL: &str = #pname;
        /// Number of rounds (messages) in the specification.
        pub const ROUNDS: usize = #rounds_n;
        #(#consts)*
    }
}

/// The `Incoming`/`Outgoing` traits behind generic `recv`/`send`, with the
/// rustc diagnostics for a message the state does not expect.
fn step_traits(ir: &Ir) -> TokenStream {
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

/// Generates the items of one protocol module.
pub fn generate(ir: &Ir) -> TokenStream {
    if ir.party_count.is_some() {
        return party::generate(ir);
    }
    let eg = ExprGen::new(ir);
    let header = header_items(ir);
    let params = params::params_items(ir, &eg);
    let comm = params::comm_items(ir);
    let msgs = messages::messages_module(ir);
    let errors = errors::error_items(ir);
    let traits = step_traits(ir);
    let roles: Vec<roles::RoleItems> = (0..ir.roles.len())
        .map(|ri| roles::RoleGen::new(ir, &eg, ri).items())
        .collect();
    let transcripts = roles.iter().map(|r| &r.transcript);
    let role_items = roles.iter().map(|r| &r.items);
    let infos: Vec<&roles::RoleInfo> = roles.iter().map(|r| &r.info).collect();
    let guard = duality::duality_items(ir, &infos);
    quote! {
        #header
        #params
        #comm
        #msgs
        #errors
        #traits
        #(#transcripts)*
        #(#role_items)*
        #guard
    }
}
