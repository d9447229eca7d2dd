//! One typestate per role of a two-party protocol: input and output
//! structs, the state structs, `new`, the step methods, `finish`, the
//! blocking driver, the async driver (gated on the runtime's `tokio`
//! feature) and the role's transcript.

mod driver;
mod step;
mod steps;

use super::expr::ExprGen;
use super::io::{gate, Io};
use super::names::{id, rt};
use super::secret::{held_ty, take_out, wrap_locals};
use super::stream::{give_back, output_claims, scratch_keys};
use super::wire::rust_ty;
use crate::case::snake;
use crate::ir::*;
use crate::plan::roles::{LastRead, RolePlan, StateInfo};
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// What the rest of the module needs to know about a generated role.
pub(super) struct RoleInfo {
    /// The role type.
    pub(super) role: Ident,
    /// Its first state.
    pub(super) first: Ident,
    /// Its state module.
    pub(super) role_mod: Ident,
    /// Its transcript constant.
    pub(super) transcript: Ident,
    /// Its output struct.
    pub(super) output: Ident,
}

/// The generated items of one role.
pub(super) struct RoleItems {
    /// The transcript constant.
    pub(super) transcript: TokenStream,
    /// Everything else.
    pub(super) items: TokenStream,
    /// Names for the duality guard.
    pub(super) info: RoleInfo,
}

/// Code generation for role `ri`.
pub(super) struct RoleGen<'a> {
    ir: &'a Ir,
    eg: &'a ExprGen,
    ri: usize,
    role: Ident,
    role_mod: Ident,
    claims: BTreeMap<String, String>,
    scratch_keys: BTreeSet<String>,
    live: &'a LastRead,
    states: &'a [StateInfo],
    /// The role's secret values (held in wiping wrappers, see `secret`).
    secrets: &'a BTreeSet<String>,
}

impl<'a> RoleGen<'a> {
    /// Prepares role `ri` from its plan.
    pub(super) fn new(ir: &'a Ir, eg: &'a ExprGen, ri: usize, plan: &'a RolePlan) -> Self {
        let claims = output_claims(ir, ri);
        let scratch_keys = scratch_keys(ir, ri, &claims);
        RoleGen {
            ir,
            eg,
            ri,
            role: id(&ir.roles[ri]),
            role_mod: format_ident!("{}_state", snake(&ir.roles[ri])),
            claims,
            scratch_keys,
            live: &plan.live,
            states: &plan.states,
            secrets: &plan.secrets,
        }
    }

    /// The fields of state `s`, bound `mut` (a secret one may be moved out
    /// of its wrapper).
    fn state_fields(&self, s: &StateInfo) -> Vec<TokenStream> {
        s.vars
            .iter()
            .map(|(v, _)| {
                let i = id(v);
                quote!(mut #i)
            })
            .collect()
    }

    fn rname(&self) -> &'a str {
        &self.ir.roles[self.ri]
    }

    fn events(&self) -> &'a [Event] {
        &self.ir.events[self.ri]
    }

    /// The local statements among events `from..to`.
    fn stmts_between(&self, from: usize, to: usize) -> Vec<TokenStream> {
        let mut out = vec![];
        for (i, ev) in self.events().iter().enumerate().take(to).skip(from) {
            if let Event::Stmt(s) = ev {
                out.push(
                    self.eg
                        .stmt_live(s, self.rname(), &|n| self.live.live_at(i + 1, n)),
                );
            }
        }
        out
    }

    /// The expression building state `s` from its values.
    fn build_state(&self, s: &StateInfo) -> TokenStream {
        let role_mod = &self.role_mod;
        let n = format_ident!("{}", s.name);
        let fns: Vec<Ident> = s.vars.iter().map(|(v, _)| id(v)).collect();
        quote!(#role_mod::#n { #(#fns),* })
    }

    /// The state structs.
    fn state_structs(&self) -> TokenStream {
        let structs = self.states.iter().map(|s| {
            let n = format_ident!("{}", s.name);
            let doc = &s.doc;
            let fns: Vec<Ident> = s.vars.iter().map(|(v, _)| id(v)).collect();
            let fts: Vec<TokenStream> = s
                .vars
                .iter()
                .map(|(v, t)| held_ty(self.secrets.contains(v), t))
                .collect();
            quote!(#[doc = #doc] pub struct #n { #( pub(super) #fns: #fts, )* })
        });
        quote!(#(#structs)*)
    }

    /// `new`: checks the inputs, runs the computation before the first step.
    fn new_fn(
        &self,
        input: &Ident,
        subs_arg: &TokenStream,
        subs_init: &TokenStream,
    ) -> TokenStream {
        let (role, rname) = (&self.role, self.rname());
        let inputs = &self.ir.inputs[self.ri];
        let first = &self.states[0];
        let init_stmts = self.stmts_between(0, first.entry);
        let init_state = self.build_state(first);
        let (in_names, in_checks) = super::wire::input_checks(inputs);
        let wrap = wrap_locals(self.secrets, inputs.iter().map(|(n, _)| n));
        let rt = rt();
        let new_doc = format!("Starts `{rname}`: checks input shapes and runs its local computation up to its first communication step.");
        quote! {
            #[doc = #new_doc]
            #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
            pub fn new(params: Params, input: #input, rng: #rt::primitives::rng::Rng #subs_arg) -> Result<Self, Error> {
                let mut rng = rng;
                let #input { #(#in_names),* } = input;
                #wrap
                #(#in_checks)*
                #(#init_stmts)*
                Ok(#role { params, rng, subs: #subs_init, st: #init_state, bufs: None, scratch: ::core::default::Default::default() })
            }
        }
    }

    /// `finish`: the computation after the last step, then the outputs.
    fn finish_impl(&self, output: &Ident) -> TokenStream {
        let (role, role_mod) = (&self.role, &self.role_mod);
        let last = self.states.last();
        let done_fields = last.map(|s| self.state_fields(s)).unwrap_or_default();
        let events = self.events();
        let done_entry = last.map(|s| s.entry).unwrap_or(events.len());
        let finish_stmts = self.stmts_between(done_entry, events.len());
        let finish_gives = give_back(
            &self.scratch_keys,
            self.secrets,
            last.map(|s| s.vars.as_slice()).unwrap_or_default(),
            &[],
            &Event::Send(usize::MAX),
        );
        let out_names: Vec<Ident> = self.ir.outputs[self.ri]
            .iter()
            .map(|(n, _)| id(n))
            .collect();
        // Outputs leave their wrappers: from here they are the caller's.
        let out_vals: Vec<TokenStream> = self.ir.outputs[self.ri]
            .iter()
            .map(|(n, t)| {
                if self.secrets.contains(n) {
                    take_out(n, t)
                } else {
                    let i = id(n);
                    quote!(#i)
                }
            })
            .collect();
        quote! {
            impl #role<#role_mod::Done> {
                /// The role's outputs, after its last local computation (which
                /// runs here when the role's last step was a send, so the
                /// message goes out first); a failing check is its abort.
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn finish(self) -> Result<#output, Error> {
                    let #role { params, mut rng, subs, st, mut bufs, mut scratch } = self;
                    let #role_mod::Done { #(#done_fields),* } = st;
                    #(#finish_stmts)*
                    #finish_gives
                    Ok(#output { #(#out_names: #out_vals,)* scratch })
                }
            }
        }
    }

    /// The input and output structs.
    fn io_structs(&self, input: &Ident, output: &Ident) -> TokenStream {
        let rt = rt();
        let (rname, pname) = (self.rname(), &self.ir.name);
        let fields = |list: &[(String, crate::types::Ty)]| {
            let names: Vec<Ident> = list.iter().map(|(n, _)| id(n)).collect();
            let tys: Vec<TokenStream> = list.iter().map(|(_, t)| rust_ty(t)).collect();
            let docs: Vec<String> = list.iter().map(|(n, t)| format!("`{n}: {t}`")).collect();
            (names, tys, docs)
        };
        let (in_names, in_tys, in_docs) = fields(&self.ir.inputs[self.ri]);
        let (out_names, out_tys, out_docs) = fields(&self.ir.outputs[self.ri]);
        let input_doc = format!("Inputs of `{rname}` in `{pname}`.");
        let output_doc = format!("Outputs of `{rname}` in `{pname}`.");
        quote! {
            #[doc = #input_doc]
            #[derive(Clone, Debug)]
            pub struct #input { #( #[doc = #in_docs] pub #in_names: #in_tys, )* }
            #[doc = #output_doc]
            #[derive(Clone, Debug)]
            pub struct #output { #( #[doc = #out_docs] pub #out_names: #out_tys, )* scratch: #rt::transport::session::Scratch }
            impl #output {
                /// Number of intermediate buffers (kept whole by a stream and
                /// dead before the end) that this output carries to the next
                /// run through `reuse_outputs`.
                pub fn scratch_buffers(&self) -> usize { self.scratch.len() }
            }
        }
    }

    /// The struct of sub-protocol implementations, the `new` argument taking
    /// it, and its initializer.
    fn subs_struct(&self) -> (TokenStream, TokenStream, TokenStream) {
        let rname = self.rname();
        let subs_ty = format_ident!("{}Subs", rname);
        let my_calls: Vec<(&IrSub, &SubCall)> = self
            .ir
            .subs
            .iter()
            .filter_map(|sb| sb.calls.iter().find(|c| c.role == self.ri).map(|c| (sb, c)))
            .collect();
        let sub_fields: Vec<Ident> = my_calls.iter().map(|(sb, _)| id(&sb.name)).collect();
        let sub_traits: Vec<TokenStream> = my_calls
            .iter()
            .map(|(_, c)| super::names::path_tokens(&c.trait_path, quote!(missing_trait)))
            .collect();
        let sub_docs: Vec<String> = my_calls
            .iter()
            .map(|(sb, c)| {
                format!(
                    "Implementation of `{}` role `{}` for call `{}`.",
                    sb.func, c.func_role, sb.name
                )
            })
            .collect();
        let subs_doc =
            format!("The sub-protocol implementations `{rname}` uses (one per `do` call).");
        let (subs_arg, subs_init) = if my_calls.is_empty() {
            (quote!(), quote!(#subs_ty {}))
        } else {
            (quote!(, subs: #subs_ty), quote!(subs))
        };
        let def = quote! {
            #[doc = #subs_doc]
            pub struct #subs_ty { #( #[doc = #sub_docs] pub #sub_fields: ::std::boxed::Box<dyn #sub_traits + ::core::marker::Send>, )* }
        };
        (def, subs_arg, subs_init)
    }

    /// All items of the role.
    pub(super) fn items(&self) -> RoleItems {
        let rt = rt();
        let (role, role_mod, rname) = (&self.role, &self.role_mod, self.rname());
        let input = format_ident!("{}Input", rname);
        let output = format_ident!("{}Output", rname);
        let subs_ty = format_ident!("{}Subs", rname);
        let first_name = format_ident!("{}", self.states[0].name);
        // Expressions of this role read its secrets through their wrappers.
        self.eg.set_secrets(Some(self.secrets.clone()));
        let d = self.drivers();
        let t_const = format_ident!("{}_TRANSCRIPT", snake(rname).to_uppercase());
        let tdoc =
            format!("The sequence of steps of `{rname}` (projection of the global round list).");
        let transcript = &d.transcript;
        let transcript = quote!(#[doc = #tdoc] pub const #t_const: &[#rt::transport::session::Step] = &[#(#transcript),*];);
        let io = self.io_structs(&input, &output);
        let state_structs = self.state_structs();
        let (subs_def, subs_arg, subs_init) = self.subs_struct();
        let new_fn = self.new_fn(&input, &subs_arg, &subs_init);
        let run_fn = driver::run_fn(Io::Blocking, &output, rname, self.ri, &d.pre, &d.post);
        let run_async = self.run_async(&d, &output);
        let finish = self.finish_impl(&output);
        self.eg.set_secrets(None);
        let role_struct = self.role_struct(&subs_ty, &output);
        let any_state = any_state_impl(role);
        let steps = &d.steps;
        let items = quote! {
            #io
            #[doc = concat!("States of `", #rname, "`.")]
            pub mod #role_mod {
                #[allow(unused_imports)]
                use super::*;
                #state_structs
            }
            #role_struct
            #subs_def
            #any_state
            impl #role<#role_mod::#first_name> {
                #new_fn
                /// Hands over the outputs of an earlier run (for example the
                /// previous batch's) so that this run writes the arrays it
                /// computes chunk by chunk into their buffers instead of
                /// allocating: allocation and first-touch page faults then
                /// happen once, outside the protocol. Buffers that do not fit
                /// are resized; the values are overwritten.
                pub fn reuse_outputs(mut self, mut previous: #output) -> Self {
                    self.scratch = ::core::mem::take(&mut previous.scratch);
                    self.bufs = ::core::option::Option::Some(previous);
                    self
                }
                #run_fn
            }
            #run_async
            #(#steps)*
            #finish
        };
        RoleItems {
            transcript,
            items,
            info: RoleInfo {
                role: role.clone(),
                first: first_name.clone(),
                role_mod: role_mod.clone(),
                transcript: t_const,
                output,
            },
        }
    }

    /// The step methods of every state and the drivers' statements running
    /// them, split at the check of the peer's session binding.
    fn drivers(&self) -> Drivers {
        let mut d = Drivers {
            steps: vec![],
            transcript: vec![],
            pre: vec![],
            post: vec![],
            apre: vec![],
            apost: vec![],
            async_ok: true,
        };
        let all: Vec<_> = (0..self.states.len())
            .filter_map(|si| self.step(si))
            .collect();
        for (i, s) in all.iter().enumerate() {
            d.steps.push(s.code.clone());
            d.steps.push(s.async_code.clone());
            let before_check = !s.reads && d.post.is_empty();
            match &s.async_driver {
                Some(a) if before_check => d.apre.push(a.clone()),
                Some(a) => d.apost.push(a.clone()),
                None => d.async_ok = false,
            }
            let driver = announced_driver(s, before_check, &all[i + 1..]);
            if before_check {
                d.pre.push(driver);
            } else {
                d.post.push(driver);
            }
            d.transcript.push(s.transcript.clone());
        }
        // The announcements belong to this run: afterwards the channel's
        // configured read-ahead limit applies again (to whatever the
        // caller exchanges next, e.g. another protocol).
        let rt = rt();
        d.post.push(quote!(#rt::transport::channel::Channel::expect_next_frame(&mut *ch, ::core::option::Option::None);));
        d
    }

    /// The async driver `run` and, for a two-party protocol, the async
    /// party type (gated on the runtime's `tokio` feature); nothing when a
    /// step has no async twin.
    fn run_async(&self, d: &Drivers, output: &Ident) -> TokenStream {
        if !d.async_ok {
            return quote!();
        }
        let (role, role_mod) = (&self.role, &self.role_mod);
        let first_name = format_ident!("{}", self.states[0].name);
        let run_async = driver::run_fn(Io::Async, output, self.rname(), self.ri, &d.apre, &d.apost);
        let party = if self.ir.roles.len() == 2 {
            driver::async_party(role, role_mod, &first_name, output)
        } else {
            quote!()
        };
        gate(
            Io::Async,
            quote! {
                impl #role<#role_mod::#first_name> { #run_async }
                #party
            },
        )
    }

    /// The role's typestate struct.
    fn role_struct(&self, subs_ty: &Ident, output: &Ident) -> TokenStream {
        let rt = rt();
        let (role, rname, pname) = (&self.role, self.rname(), &self.ir.name);
        let role_doc = format!("Role `{rname}` of `{pname}` (`{}`), as a typestate: each method performs one step of the round flow and returns the role in its next state.", self.ir.location);
        quote! {
            #[doc = #role_doc]
            #[must_use = "a protocol role does nothing until its next step is called"]
            pub struct #role<S> { params: Params, rng: #rt::primitives::rng::Rng, subs: #subs_ty, st: S, bufs: ::core::option::Option<#output>, scratch: #rt::transport::session::Scratch }
        }
    }
}

/// The methods of role type `role` in every state: `params`, and the
/// generic `recv` and `send`.
fn any_state_impl(role: &Ident) -> TokenStream {
    quote! {
        impl<S> #role<S> {
            /// The agreed parameters.
            pub fn params(&self) -> &Params { &self.params }
            /// Generic receive: accepts exactly the message this state expects.
            pub fn recv<M: Incoming<Self>>(self, msg: M) -> Result<M::Next, Error> { msg.deliver(self) }
            /// Generic send: produces exactly the message this state sends.
            pub fn send<M: Outgoing<Self>>(self) -> Result<(M, M::Next), Error> { M::produce(self) }
        }
    }
}

/// The blocking driver's statements of step `s`. Before sending, they
/// announce the frame this role reads next (none left: 0), so a peer that
/// floods instead of reading makes the channel buffer at most that (issue
/// 15, item 1). Before the peer's session binding has been checked
/// (`before_check`), that is the binding (the peer reads first, so it sends
/// nothing else meanwhile). The async channel reads only when awaited, so
/// its driver needs no announcement. `rest`: the steps after `s`.
fn announced_driver(s: &step::Step, before_check: bool, rest: &[step::Step]) -> TokenStream {
    if !s.sends {
        return s.driver.clone();
    }
    let rt = rt();
    let next = if before_check {
        quote!(::core::option::Option::Some(BINDING_BYTES))
    } else {
        rest.iter().find(|t| t.reads).map_or_else(
            || quote!(::core::option::Option::Some(0)),
            |t| t.first_frame.clone(),
        )
    };
    let d = &s.driver;
    quote!(#rt::transport::channel::Channel::expect_next_frame(&mut *ch, #next); #d)
}

/// The step methods of a role and its drivers' statements.
struct Drivers {
    /// Each step method and its async twin.
    steps: Vec<TokenStream>,
    /// The transcript entry of each step.
    transcript: Vec<TokenStream>,
    /// The blocking driver's statements before the peer's session binding
    /// is checked (sends only) and from the first step that reads on.
    pre: Vec<TokenStream>,
    /// See `pre`.
    post: Vec<TokenStream>,
    /// The same for the async driver.
    apre: Vec<TokenStream>,
    /// See `apre`.
    apost: Vec<TokenStream>,
    /// Whether every step has an async twin (so the async driver exists).
    async_ok: bool,
}
