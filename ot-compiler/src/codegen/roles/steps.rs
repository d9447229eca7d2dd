//! The step methods of a role typestate, one per communication event
//! (send, receive, streamed round, sub-protocol call), each with its part
//! of the blocking and the async driver and of the role's transcript. A
//! step that uses the channel itself (a stream, a sub-protocol call) has an
//! async twin (`send_extend_async`, `run_base_async`) generated from the
//! same template.

use super::step::Step;
use super::RoleGen;
use crate::codegen::io::{gate, has_async_twin, Io};
use crate::codegen::names::{id, path_tokens, rt};
use crate::codegen::secret::wrap_locals;
use crate::codegen::stream::{give_back, stream_loop};
use crate::codegen::wire::{check_shape, rust_ty};
use crate::ir::*;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// What every step method starts and ends with.
struct StepCtx {
    cur: Ident,
    cur_fields: Vec<TokenStream>,
    next_name: Ident,
    next_state: TokenStream,
    prologue: Vec<TokenStream>,
    body: Vec<TokenStream>,
    gives: TokenStream,
}

/// A step method's own parts (see [`RoleGen::step_method`]).
struct Method<'a> {
    /// Its doc comment.
    doc: &'a str,
    /// Its name (the async twin's is derived from it).
    name: &'a Ident,
    /// Its arguments after `self` (each with a leading comma).
    args: TokenStream,
    /// What it returns inside `Result<_, Error>`.
    ret: TokenStream,
    /// The communication, between the deferred computation and the rest.
    middle: TokenStream,
    /// The returned value (built around `next_role`).
    result: TokenStream,
    /// Whether the step uses its sub-protocol parties mutably.
    mut_subs: bool,
    /// Blocking method or async twin.
    io: Io,
}

impl RoleGen<'_> {
    /// A step method of state `c.cur`: destructures the role, runs the
    /// deferred computation, `m.middle` (the communication), the computation
    /// up to the next state, and returns `m.result`.
    fn step_method(&self, c: &StepCtx, m: Method) -> TokenStream {
        let Method {
            doc,
            name: method,
            args,
            ret,
            middle,
            result,
            mut_subs,
            io,
        } = m;
        let (role, role_mod) = (&self.role, &self.role_mod);
        let StepCtx {
            cur,
            cur_fields,
            prologue,
            body,
            gives,
            ..
        } = c;
        let subs = if mut_subs {
            quote!(mut subs)
        } else {
            quote!(subs)
        };
        let (asyncness, method) = (io.asyncness(), io.method(method));
        let doc = match io {
            Io::Blocking => doc.to_string(),
            Io::Async => {
                format!("{doc} The async twin of the blocking step (cargo feature `tokio`).")
            }
        };
        gate(
            io,
            quote! {
                impl #role<#role_mod::#cur> {
                    #[doc = #doc]
                    #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                    pub #asyncness fn #method(self #args) -> Result<#ret, Error> {
                        let #role { params, mut rng, #subs, st, mut bufs, mut scratch } = self;
                        let #role_mod::#cur { #(#cur_fields),* } = st;
                        #(#prologue)*
                        #middle
                        #(#body)*
                        #gives
                        Ok(#result)
                    }
                }
            },
        )
    }

    /// The role in the next state, and its type.
    fn next_role(&self, c: &StepCtx) -> (TokenStream, TokenStream) {
        let (role, role_mod) = (&self.role, &self.role_mod);
        let (next_name, next_state) = (&c.next_name, &c.next_state);
        (
            quote!(#role { params, rng, subs, st: #next_state, bufs, scratch }),
            quote!(#role<#role_mod::#next_name>),
        )
    }
    /// The step leaving state `si`, or None for `Done` (and for a
    /// sub-protocol call this role takes no part in).
    pub(super) fn step(&self, si: usize) -> Option<Step> {
        let s = &self.states[si];
        let ei = s.event?;
        let next = &self.states[si + 1];
        // Computation of this state that was deferred past the previous send,
        // then the computation after this event up to the next state's entry.
        let ctx = StepCtx {
            cur: format_ident!("{}", s.name),
            cur_fields: self.state_fields(s),
            next_name: format_ident!("{}", next.name),
            next_state: self.build_state(next),
            prologue: self.stmts_between(s.entry, ei),
            body: self.stmts_between(ei + 1, next.entry),
            gives: give_back(
                &self.scratch_keys,
                self.secrets,
                &s.vars,
                &next.vars,
                &self.events()[ei],
            ),
        };
        match &self.events()[ei] {
            Event::Send(r) => Some(self.send_step(&ctx, *r, ei)),
            Event::Recv(r) => Some(self.recv_step(&ctx, *r)),
            Event::Stream(st) => Some(self.stream_step(&ctx, st)),
            Event::Sub(k) => self.sub_step(&ctx, *k),
            Event::Stmt(_) => None,
        }
    }

    fn send_step(&self, c: &StepCtx, r: usize, ei: usize) -> Step {
        let (role, role_mod, rname) = (&self.role, &self.role_mod, self.rname());
        let (cur, next_name) = (&c.cur, &c.next_name);
        let rd = &self.ir.rounds[r];
        let m = format_ident!("{}", rd.msg);
        let method = format_ident!("send_{}", rd.name);
        let live = &self.live;
        let fields = rd.fields.iter().map(|(n, t)| {
            let i = id(n);
            if live.live_at(ei + 1, n) && !t.is_copy() {
                quote!(#i: ::core::clone::Clone::clone(&#i))
            } else {
                quote!(#i)
            }
        });
        let doc = format!("Round `{}` (`{}`): `{}`. Builds `{}`, then runs `{rname}`'s local computation up to its next step.", rd.name, rd.location, rd.text, rd.msg);
        let (next, next_ty) = self.next_role(c);
        let method_code = self.step_method(
            c,
            Method {
                doc: &doc,
                name: &method,
                args: quote!(),
                ret: quote!((msgs::#m, #next_ty)),
                middle: quote!(let __msg = msgs::#m { #(#fields),* };),
                result: quote!((__msg, #next)),
                mut_subs: false,
                io: Io::Blocking,
            },
        );
        let code = quote! {
            #method_code
            impl Outgoing<#role<#role_mod::#cur>> for msgs::#m {
                type Next = #role<#role_mod::#next_name>;
                fn produce(role: #role<#role_mod::#cur>) -> Result<(Self, Self::Next), Error> { role.#method() }
            }
        };
        Step {
            code,
            driver: super::driver::send(Io::Blocking, &method, &rd.name),
            async_code: quote!(),
            async_driver: Some(super::driver::send(Io::Async, &method, &rd.name)),
            transcript: transcript_step(true, r),
            reads: false,
            sends: true,
            first_frame: quote!(::core::option::Option::None),
        }
    }

    fn recv_step(&self, c: &StepCtx, r: usize) -> Step {
        let (role, role_mod, rname) = (&self.role, &self.role_mod, self.rname());
        let (cur, next_name) = (&c.cur, &c.next_name);
        let rd = &self.ir.rounds[r];
        let m = format_ident!("{}", rd.msg);
        let method = format_ident!("recv_{}", rd.name);
        let fnames: Vec<Ident> = rd.fields.iter().map(|(n, _)| id(n)).collect();
        let doc = format!("Round `{}` (`{}`): `{}`. Takes the peer's `{}`, then runs `{rname}`'s local computation (and checks) up to its next step.", rd.name, rd.location, rd.text, rd.msg);
        let (next, next_ty) = self.next_role(c);
        if !c.prologue.is_empty() {
            return self.recv_step_overlapped(c, r, &method, &doc);
        }
        let method_code = self.step_method(
            c,
            Method {
                doc: &doc,
                name: &method,
                args: quote!(, msg: msgs::#m),
                ret: next_ty,
                middle: quote!(let msgs::#m { #(#fnames),* } = msg;),
                result: next,
                mut_subs: false,
                io: Io::Blocking,
            },
        );
        let code = quote! {
            #method_code
            impl Incoming<#role<#role_mod::#cur>> for msgs::#m {
                type Next = #role<#role_mod::#next_name>;
                fn deliver(self, role: #role<#role_mod::#cur>) -> Result<Self::Next, Error> { role.#method(self) }
            }
        };
        Step {
            code,
            driver: super::driver::recv(Io::Blocking, &m, &method, &rd.name),
            async_code: quote!(),
            async_driver: Some(super::driver::recv(Io::Async, &m, &method, &rd.name)),
            transcript: transcript_step(false, r),
            reads: true,
            sends: false,
            first_frame: quote!(::core::option::Option::Some(msgs::#m::wire_len(&__s.params))),
        }
    }

    /// A receive step whose state has computation deferred past the
    /// previous send (work that does not read the message, such as the
    /// sender's half of a consistency check). Besides `recv_x(msg)` it has
    /// `recv_x_with(read)`, which runs that computation first and only then
    /// calls `read` for the message: the blocking driver passes a `read`
    /// that receives from the channel, so the computation overlaps the
    /// peer's instead of following the receive.
    fn recv_step_overlapped(&self, c: &StepCtx, r: usize, method: &Ident, doc: &str) -> Step {
        let (role, role_mod) = (&self.role, &self.role_mod);
        let (cur, next_name) = (&c.cur, &c.next_name);
        let rd = &self.ir.rounds[r];
        let m = format_ident!("{}", rd.msg);
        let with = format_ident!("{}_with", method);
        let fnames: Vec<Ident> = rd.fields.iter().map(|(n, _)| id(n)).collect();
        let (next, next_ty) = self.next_role(c);
        let with_doc = format!(
            "As [`Self::{method}`], with the message read by `read` once the computation that does not need it has run (so that, over a channel, it overlaps the peer's work rather than following the receive). `read` gets the run's `Params` (for the message's length and decoding)."
        );
        let with_code = self.step_method(
            c,
            Method {
                doc: &with_doc,
                name: &with,
                args: quote!(, read: impl ::core::ops::FnOnce(&Params) -> Result<msgs::#m, Error>),
                ret: next_ty.clone(),
                middle: quote!(let msgs::#m { #(#fnames),* } = read(&params)?;),
                result: next,
                mut_subs: false,
                io: Io::Blocking,
            },
        );
        let code = quote! {
            #with_code
            impl #role<#role_mod::#cur> {
                #[doc = #doc]
                pub fn #method(self, msg: msgs::#m) -> Result<#next_ty, Error> {
                    self.#with(move |_| Ok(msg))
                }
            }
            impl Incoming<#role<#role_mod::#cur>> for msgs::#m {
                type Next = #role<#role_mod::#next_name>;
                fn deliver(self, role: #role<#role_mod::#cur>) -> Result<Self::Next, Error> { role.#method(self) }
            }
        };
        Step {
            code,
            driver: super::driver::recv_overlapped(&m, &with, &rd.name),
            async_code: quote!(),
            async_driver: Some(super::driver::recv(Io::Async, &m, method, &rd.name)),
            transcript: transcript_step(false, r),
            reads: true,
            sends: false,
            first_frame: quote!(::core::option::Option::Some(msgs::#m::wire_len(&__s.params))),
        }
    }

    fn stream_doc(&self, st: &Stream) -> String {
        let rname = self.rname();
        let rd = &self.ir.rounds[st.round];
        if st.sending {
            format!("Round `{}` (`{}`): `{}`. Streams `{}` in chunks of `{}` columns: per chunk, computes it, sends it, then runs the computations that work chunk by chunk; afterwards runs `{rname}`'s local computation up to its next step.", rd.name, rd.location, rd.text, rd.fields[0].0, rd.chunk_by.as_ref().map(|b| b.to_string()).unwrap_or_default())
        } else {
            format!("Round `{}` (`{}`): `{}`. Receives `{}` chunk by chunk and runs the computations that read it on each chunk as it arrives, then runs `{rname}`'s local computation (and checks) up to its next step.", rd.name, rd.location, rd.text, rd.fields[0].0)
        }
    }

    fn stream_step(&self, c: &StepCtx, st: &Stream) -> Step {
        let rd = &self.ir.rounds[st.round];
        let method = format_ident!("{}_{}", if st.sending { "send" } else { "recv" }, rd.name);
        Step {
            code: self.stream_method(c, st, &method, Io::Blocking),
            driver: super::driver::on_channel(Io::Blocking, &method),
            async_code: self.stream_method(c, st, &method, Io::Async),
            async_driver: Some(super::driver::on_channel(Io::Async, &method)),
            transcript: transcript_step(st.sending, st.round),
            reads: !st.sending,
            sends: st.sending,
            first_frame: quote!(::core::option::Option::None),
        }
    }

    /// The step method of a streamed round for driver `io`.
    fn stream_method(&self, c: &StepCtx, st: &Stream, method: &Ident, io: Io) -> TokenStream {
        let rd = &self.ir.rounds[st.round];
        let rn = &rd.name;
        let (setup, chunk_step) = stream_loop(self.ir, self.eg, st, &self.claims, io);
        let aw = io.aw();
        let flush = if st.sending {
            quote!(ch.flush()#aw.map_err(|source| Error::Channel { round: #rn, source })?;)
        } else {
            quote!()
        };
        let middle = quote! {
            #setup
            let mut __off = 0usize;
            while __off < __total {
                let __len = (__total - __off).min(__by);
                #chunk_step
                __off += __len;
            }
            #flush
        };
        let (next, next_ty) = self.next_role(c);
        let chan = io.channel();
        let args = quote!(, ch: &mut dyn #chan);
        let doc = self.stream_doc(st);
        self.step_method(
            c,
            Method {
                doc: &doc,
                name: method,
                args,
                ret: next_ty,
                middle,
                result: next,
                mut_subs: false,
                io,
            },
        )
    }

    fn sub_step(&self, c: &StepCtx, k: usize) -> Option<Step> {
        let rt = rt();
        let sub = &self.ir.subs[k];
        let call = sub.calls.iter().find(|c| c.role == self.ri)?;
        let method = format_ident!("run_{}", sub.name);
        let twin = has_async_twin(&call.trait_path);
        let k16 = k as u16;
        Some(Step {
            code: self.sub_method(c, sub, call, &method, Io::Blocking),
            driver: super::driver::on_channel(Io::Blocking, &method),
            async_code: if twin {
                self.sub_method(c, sub, call, &method, Io::Async)
            } else {
                quote!()
            },
            async_driver: twin.then(|| super::driver::on_channel(Io::Async, &method)),
            transcript: quote!(#rt::transport::session::Step::Sub(#k16)),
            reads: true,
            // The sub-protocol's own driver announces its frames.
            sends: false,
            first_frame: quote!(::core::option::Option::None),
        })
    }

    /// The step method of a sub-protocol call for driver `io`: the
    /// functionality trait's method (`send_random`), or its async twin
    /// (`send_random_async`, a boxed future).
    fn sub_method(
        &self,
        c: &StepCtx,
        sub: &IrSub,
        call: &SubCall,
        method: &Ident,
        io: Io,
    ) -> TokenStream {
        let rname = self.rname();
        let field = id(&sub.name);
        let tpath: TokenStream = path_tokens(&call.trait_path, quote!(missing_trait));
        let fmethod = io.method(&format_ident!("{}", call.method));
        let aw = io.aw();
        let args: Vec<TokenStream> = call.args.iter().map(|a| self.eg.arg(a)).collect();
        let outs: Vec<Ident> = call.outputs.iter().map(|(n, _)| id(n)).collect();
        let otys: Vec<TokenStream> = call.outputs.iter().map(|(_, t)| rust_ty(t)).collect();
        let bind = if outs.len() == 1 {
            quote!(let #(#outs)*: #(#otys)* = __out;)
        } else {
            quote!(let (#(#outs),*): (#(#otys),*) = __out;)
        };
        let checks = call.outputs.iter().map(|(n, t)| {
            let i = id(n);
            check_shape(t, &quote!(#i), &sub.name, n)
        });
        let wrap = wrap_locals(self.secrets, call.outputs.iter().map(|(n, _)| n));
        let call_name = sub.name.as_str();
        let doc = format!("Sub-protocol call `{}`: runs `{}` as its role `{}` through `{}::{}` on the same channel, then `{rname}`'s local computation up to its next step.", sub.name, sub.func, call.func_role, call.trait_path, call.method);
        let middle = quote! {
            let __out = #tpath::#fmethod(&mut *subs.#field, ch, #(#args),*)
                #aw
                .map_err(|e| Error::SubProtocol { call: #call_name, source: ::core::convert::Into::into(e) })?;
            #bind
            #wrap
            #(#checks)*
        };
        let (next, next_ty) = self.next_role(c);
        let chan = io.channel();
        let chan = quote!(, ch: &mut dyn #chan);
        self.step_method(
            c,
            Method {
                doc: &doc,
                name: method,
                args: chan,
                ret: next_ty,
                middle,
                result: next,
                mut_subs: true,
                io,
            },
        )
    }
}

/// `Step::Send(round)` or `Step::Recv(round)`.
fn transcript_step(sending: bool, round: usize) -> TokenStream {
    let rt = rt();
    let k = round as u16;
    if sending {
        quote!(#rt::transport::session::Step::Send(#k))
    } else {
        quote!(#rt::transport::session::Step::Recv(#k))
    }
}
