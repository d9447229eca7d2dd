//! The named role next to the party array (`role Dealer, role P[n]`): its
//! projection (its `at Dealer` statements and the rounds it sends or
//! receives), a typestate per step, sans-IO step methods (one message per
//! party, or the same to all; or every party's message, assembled into
//! arrays indexed by party), and a blocking driver over mesh endpoint `n`.
//! The dealer takes no part in the parties' rounds nor in the digest
//! exchange of its own checked broadcast (the parties compare what they
//! received from it).

use super::context::{io_items, open_fields, output_values, role_secrets, start, stmt_code};
use super::driver::Drive;
use crate::case::snake;
use crate::codegen::expr::ExprGen;
use crate::codegen::names::{id, rt};
use crate::codegen::secret::{held_ty, wrap_locals};
use crate::codegen::wire::{check_shape, input_checks, shape};
use crate::ir::*;
use crate::plan::party::{dealer_receives, dealer_sends, dealer_stmt, parties, uses_defs_of, Op};
use crate::types::Ty;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// One operation of the dealer.
#[derive(Clone, Copy)]
enum DOp {
    /// A statement of `at Dealer` (index into the events).
    Stmt(usize),
    /// Sends round `r` to the parties.
    Send(usize),
    /// Receives round `r` from every party.
    Recv(usize),
}

/// A state: waiting at communication operation `op` (None: `Done`), with
/// the values live there.
struct DState {
    name: String,
    op: Option<usize>,
    vars: Vec<(String, Ty)>,
}

/// The dealer's code generator.
struct DealerGen<'a> {
    ir: &'a Ir,
    eg: &'a ExprGen,
    name: String,
    role: Ident,
    role_mod: Ident,
    ops: Vec<DOp>,
    live_out: Vec<BTreeSet<String>>,
    states: Vec<DState>,
    /// The dealer's secret values (held in wiping wrappers, see `secret`).
    secrets: BTreeSet<String>,
}

fn dealer_ops(ir: &Ir) -> Vec<DOp> {
    let mut ops = vec![];
    for (k, e) in ir.events[0].iter().enumerate() {
        match e {
            Event::Stmt(_) if dealer_stmt(ir, k) => ops.push(DOp::Stmt(k)),
            Event::Send(r) if dealer_sends(ir, *r) => ops.push(DOp::Send(*r)),
            Event::Recv(r) if dealer_receives(ir, *r) => ops.push(DOp::Recv(*r)),
            _ => {}
        }
    }
    ops
}

fn uses_defs(ir: &Ir, op: DOp) -> (BTreeSet<String>, BTreeSet<String>) {
    let op = match op {
        DOp::Stmt(k) => Op::Stmt(k),
        DOp::Send(r) => Op::Send(r),
        DOp::Recv(r) => Op::Recv(r),
    };
    uses_defs_of(ir, op, true)
}

impl<'a> DealerGen<'a> {
    fn new(ir: &'a Ir, eg: &'a ExprGen, name: &str) -> Self {
        let ops = dealer_ops(ir);
        let mut live: BTreeSet<String> = ir.outputs[1].iter().map(|(n, _)| n.clone()).collect();
        let mut live_out = vec![BTreeSet::new(); ops.len()];
        let mut live_in = vec![BTreeSet::new(); ops.len()];
        for (i, op) in ops.iter().enumerate().rev() {
            live_out[i] = live.clone();
            let (uses, defs) = uses_defs(ir, *op);
            for d in &defs {
                live.remove(d);
            }
            live.extend(uses);
            live_in[i] = live.clone();
        }
        let mut types: BTreeMap<String, Ty> = ir.inputs[1].iter().cloned().collect();
        let mut states = vec![];
        let msg = |r: usize| ir.rounds[r].msg.clone();
        for (i, op) in ops.iter().enumerate() {
            let state = |prefix: &str, r: usize, types: &BTreeMap<String, Ty>| DState {
                name: format!("{prefix}{}", msg(r)),
                op: Some(i),
                vars: vars(&live_in[i], types),
            };
            match *op {
                DOp::Stmt(k) => {
                    if let Event::Stmt(TStmt::Assign(n, e)) = &ir.events[0][k] {
                        types.insert(n.clone(), e.ty.clone());
                    }
                }
                DOp::Send(r) => states.push(state("Send", r, &types)),
                DOp::Recv(r) => {
                    states.push(state("Await", r, &types));
                    for (n, t) in &ir.rounds[r].fields {
                        types.insert(n.clone(), Ty::Array(Box::new(t.clone()), parties(ir)));
                    }
                }
            }
        }
        // Every statement after the last round runs in its step, so `Done`
        // carries the outputs.
        let end: BTreeSet<String> = ir.outputs[1].iter().map(|(n, _)| n.clone()).collect();
        states.push(DState {
            name: "Done".into(),
            op: None,
            vars: vars(&end, &types),
        });
        DealerGen {
            ir,
            eg,
            name: name.to_string(),
            role: id(name),
            role_mod: format_ident!("{}_state", snake(name)),
            ops,
            live_out,
            states,
            secrets: role_secrets(ir, true),
        }
    }

    /// The operation index where state `si`'s statements start (after the
    /// previous state's communication), and where they end.
    fn span_of(&self, si: usize) -> (usize, usize) {
        let start = match si.checked_sub(1) {
            Some(p) => self.states[p].op.map_or(0, |o| o + 1),
            None => 0,
        };
        let end = self.states[si].op.unwrap_or(self.ops.len());
        (start, end)
    }

    fn stmts(&self, from: usize, to: usize) -> Vec<TokenStream> {
        (from..to)
            .filter_map(|i| match self.ops[i] {
                DOp::Stmt(k) => match &self.ir.events[0][k] {
                    Event::Stmt(s) => Some(stmt_code(self.eg, &self.name, s, &self.live_out[i])),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// State `si` built from the values in scope.
    fn state_pat(&self, si: usize) -> TokenStream {
        let (m, s) = (&self.role_mod, &self.states[si]);
        let n = format_ident!("{}", s.name);
        let f = s.vars.iter().map(|(v, _)| id(v));
        quote!(#m::#n { #(#f),* })
    }

    /// Pattern opening state `si` (its secrets bound `mut`).
    fn open_pat(&self, si: usize) -> TokenStream {
        let (m, s) = (&self.role_mod, &self.states[si]);
        let n = format_ident!("{}", s.name);
        let f = open_fields(&self.secrets, s.vars.iter().map(|(v, _)| v));
        quote!(#m::#n { #(#f),* })
    }

    fn state_ty(&self, si: usize) -> TokenStream {
        let (r, m) = (&self.role, &self.role_mod);
        let n = format_ident!("{}", self.states[si].name);
        quote!(#r<#m::#n>)
    }

    fn state_structs(&self) -> TokenStream {
        let d = &self.name;
        let structs = self.states.iter().map(|s| {
            let n = format_ident!("{}", s.name);
            let doc = match s.op.map(|o| self.ops[o]) {
                Some(DOp::Send(r)) => format!(
                    "`{d}` is ready to send `{}` (round `{}`).",
                    self.ir.rounds[r].msg, self.ir.rounds[r].name
                ),
                Some(DOp::Recv(r)) => format!(
                    "`{d}` waits for every party's `{}` (round `{}`).",
                    self.ir.rounds[r].msg, self.ir.rounds[r].name
                ),
                _ => format!("`{d}` has finished; call `finish` for its output."),
            };
            let (f, t): (Vec<Ident>, Vec<TokenStream>) = s
                .vars
                .iter()
                .map(|(v, t)| (id(v), held_ty(self.secrets.contains(v), t)))
                .unzip();
            quote!(#[doc = #doc] pub struct #n { #( pub(super) #f: #t, )* })
        });
        quote!(#(#structs)*)
    }

    /// The step leaving state `si` (not `Done`) and its driver statements.
    fn step(&self, si: usize) -> (TokenStream, Drive) {
        let at = self.states[si].op.unwrap_or_default();
        let (role, ty) = (&self.role, self.state_ty(si));
        let (open, next) = (self.open_pat(si), self.state_pat(si + 1));
        let next_ty = self.state_ty(si + 1);
        let (_, end) = self.span_of(si + 1);
        let body = self.stmts(at + 1, end);
        let n = shape(&parties(self.ir));
        let (r, send) = match self.ops[at] {
            DOp::Send(r) => (r, true),
            DOp::Recv(r) => (r, false),
            DOp::Stmt(_) => unreachable!("a state waits at a communication"),
        };
        let rd = &self.ir.rounds[r];
        let c = StepCtx {
            rd,
            m: format_ident!("{}", rd.msg),
            names: rd.fields.iter().map(|(f, _)| id(f)).collect(),
            ty,
            next_ty,
            head: quote! {
                let #role { params, mut rng, session, session_id, st } = self;
                let me: usize = #n;
                let #open = st;
            },
            rebuild: quote!(#role { params, rng, session, session_id, st: #next }),
            body,
        };
        if send {
            self.send_step(&c)
        } else {
            Self::recv_step(&c)
        }
    }

    /// The dealer's send step of a round: one message for each party.
    fn send_step(&self, c: &StepCtx) -> (TokenStream, Drive) {
        let StepCtx {
            rd,
            m,
            names,
            ty,
            next_ty,
            head,
            rebuild,
            body,
        } = c;
        let rn = &rd.name;
        let method = format_ident!("send_{rn}");
        let (build, what) = match rd.party {
            Some(PartyRound::FromOne { .. }) => {
                let checks = rd.fields.iter().map(|(f, t)| {
                    let i = id(f);
                    let arr = Ty::Array(Box::new(t.clone()), parties(self.ir));
                    check_shape(&arr, &quote!(#i), rn, f)
                });
                (
                    quote! {
                        #(#checks)*
                        (0..me).map(|__j| (__j, msgs::#m { #( #names: ::core::clone::Clone::clone(&#names[__j]) ),* })).collect()
                    },
                    format!("Builds the `{}` of each party `j` (element `j` of each field), as `(j, message)` pairs.", rd.msg),
                )
            }
            _ => (
                quote! {
                    let __msg = msgs::#m { #(#names),* };
                    (0..me).map(|__j| (__j, ::core::clone::Clone::clone(&__msg))).collect()
                },
                format!("Builds `{}`, the same for every party, as `(j, message)` pairs (the parties compare digests of it when the round is checked).", rd.msg),
            ),
        };
        let doc = c.doc(&what);
        let code = quote! {
            impl #ty {
                #[doc = #doc]
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn #method(self) -> Result<(::std::vec::Vec<(usize, msgs::#m)>, #next_ty), Error> {
                    #head
                    let __msgs: ::std::vec::Vec<(usize, msgs::#m)> = { #build };
                    #(#body)*
                    Ok((__msgs, #rebuild))
                }
            }
        };
        let drive = Drive {
            code: super::driver::send_each(&method, rn, None, None),
            sends: true,
            read: None,
        };
        (code, drive)
    }

    /// The dealer's receive step of a round: every party's message, the fields
    /// becoming arrays indexed by party.
    fn recv_step(c: &StepCtx) -> (TokenStream, Drive) {
        let StepCtx {
            rd,
            m,
            names,
            ty,
            next_ty,
            head,
            rebuild,
            body,
        } = c;
        let rn = &rd.name;
        let method = format_ident!("recv_{rn}");
        let parts: Vec<Ident> = rd
            .fields
            .iter()
            .map(|(f, _)| format_ident!("__f_{}", f))
            .collect();
        let doc = c.doc("Takes every party's message as `(sender, message)` pairs; the fields become arrays indexed by party.");
        let code = quote! {
            impl #ty {
                #[doc = #doc]
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn #method(self, received: ::std::vec::Vec<(usize, msgs::#m)>) -> Result<#next_ty, Error> {
                    #head
                    let mut __slots: ::std::vec::Vec<::core::option::Option<msgs::#m>> = (0..me).map(|_| None).collect();
                    for (__p, __m) in received {
                        if __p >= me || __slots[__p].is_some() {
                            return Err(Error::Delivery { round: #rn, peer: __p });
                        }
                        __slots[__p] = Some(__m);
                    }
                    if let Some(__p) = __slots.iter().position(|__s| __s.is_none()) {
                        return Err(Error::Delivery { round: #rn, peer: __p });
                    }
                    #( let mut #names = ::std::vec::Vec::with_capacity(me); )*
                    for __m in __slots.into_iter().flatten() {
                        let msgs::#m { #( #names: #parts ),* } = __m;
                        #( #names.push(#parts); )*
                    }
                    #(#body)*
                    Ok(#rebuild)
                }
            }
        };
        let from = quote!((0..__n).collect());
        let drive = Drive {
            code: super::driver::recv_from(m, &method, rn, from.clone()),
            sends: false,
            read: Some((from, quote!(msgs::#m::wire_len(&__s.params)))),
        };
        (code, drive)
    }

    /// `DealerInput`, `DealerOutput`.
    fn io_structs(&self) -> TokenStream {
        let (d, pname) = (&self.name, &self.ir.name);
        let fields = |list: &[(String, Ty)]| {
            let names: Vec<Ident> = list.iter().map(|(n, _)| id(n)).collect();
            let tys: Vec<TokenStream> = list.iter().map(|(_, t)| held_ty(false, t)).collect();
            let docs: Vec<String> = list.iter().map(|(n, t)| format!("`{n}: {t}`")).collect();
            (names, tys, docs)
        };
        io_items(
            d,
            &format!("`{d}` in `{pname}`"),
            fields(&self.ir.inputs[1]),
            fields(&self.ir.outputs[1]),
        )
    }

    /// Every item of the dealer.
    fn items(&self) -> TokenStream {
        let rt = rt();
        let (role, role_mod, d, pname) = (&self.role, &self.role_mod, &self.name, &self.ir.name);
        let n = shape(&parties(self.ir));
        let io = self.io_structs();
        let states = self.state_structs();
        let (input, output) = (format_ident!("{d}Input"), format_ident!("{d}Output"));
        let (in_names, in_checks) = input_checks(&self.ir.inputs[1]);
        let first = self.state_ty(0);
        let first_pat = self.state_pat(0);
        let (_, first_end) = self.span_of(0);
        let init = self.stmts(0, first_end);
        let inputs = self.ir.inputs[1].iter().map(|(n, _)| n);
        let wrap = wrap_locals(&self.secrets, inputs);
        let prologue = start(&input, (&in_names, wrap), &in_checks, &init);
        let (mut steps, mut drive) = (vec![], vec![]);
        for si in 0..self.states.len() - 1 {
            let (s, dr) = self.step(si);
            steps.push(s);
            drive.push(dr);
        }
        let run_body = run_body(drive, &output, &n);
        let finish = self.finish_impl(&output);
        let doc = format!("The dealer `{d}` of `{pname}` (`{}`), as a typestate: it runs its own steps (`at {d}` and the rounds it sends or receives), not the parties'. On a mesh it is endpoint `n`, after the parties `0..n`.", self.ir.location);
        let new_doc = format!("Starts `{d}` of session `session` (the same 16 bytes at every party, fresh for every run) with its inputs and randomness: checks the inputs and runs its computation up to its first round.");
        let run_doc = format!("Runs `{d}` to completion over its endpoint of a mesh of `n + 1` endpoints (blocking driver): refuses a mesh where it is not endpoint `n` (`Error::Party`), then its rounds behind the session hello (sent to every party with its first flight, each party's checked before the first frame read from it and all before the output; see `ot_runtime::transport::mesh::Greeting`); before each send it announces on every link the frame it reads next there (`Mesh::expect_next_frame`), and lifts the announcements when the run ends.");
        let run_fns = super::driver::both_drivers(&run_doc, &quote!(#output), &run_body);
        quote! {
            #io
            #[doc = concat!("States of `", #d, "`.")]
            pub mod #role_mod {
                #[allow(unused_imports)]
                use super::*;
                #states
            }
            #[doc = #doc]
            #[must_use = "a protocol party does nothing until its next step is called"]
            pub struct #role<S> { params: Params, rng: #rt::primitives::rng::Rng, session: #rt::Block, session_id: [u8; 16], st: S }
            impl<S> #role<S> {
                /// The agreed parameters.
                pub fn params(&self) -> &Params { &self.params }
            }
            impl #first {
                #[doc = #new_doc]
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn new(params: Params, session: [u8; 16], input: #input, rng: #rt::primitives::rng::Rng) -> Result<Self, Error> {
                    let me: usize = #n;
                    #prologue
                    Ok(#role { params, rng, session, session_id, st: #first_pat })
                }
                #run_fns
            }
            #(#steps)*
            #finish
        }
    }

    /// `finish` of the dealer's last state: its outputs.
    fn finish_impl(&self, output: &Ident) -> TokenStream {
        let role = &self.role;
        let last = self.states.len() - 1;
        let (done, done_pat) = (self.state_ty(last), self.open_pat(last));
        let outputs = &self.ir.outputs[1];
        let names = outputs.iter().map(|(o, _)| id(o));
        let vals = output_values(&self.secrets, outputs, &|_| false);
        quote! {
            impl #done {
                /// The dealer's outputs (its last computation ran in its last step).
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn finish(self) -> Result<#output, Error> {
                    let #role { st, .. } = self;
                    let #done_pat = st;
                    Ok(#output { #(#names: #vals),* })
                }
            }
        }
    }
}

/// The body of the dealer's `run`: checks that it is mesh endpoint `n` of
/// `n + 1` (`n`: the number of parties), then runs the steps' driver
/// statements `drive` behind the session hello, announcing the frames it
/// reads next, and lifts the announcements when the run ends.
fn run_body(drive: Vec<Drive>, output: &Ident, n: &TokenStream) -> TokenStream {
    let (reads, drive) = super::driver::announced(drive);
    let finish = super::driver::greeted_finish();
    let greeted = super::driver::greeted(
        &quote!(#output),
        quote! {
            let __s = self;
            let mut __buf: ::std::vec::Vec<u8> = ::std::vec::Vec::new();
            #reads
            #(#drive)*
            #finish
        },
    );
    super::driver::lifted(
        &quote!(#output),
        quote! {
            let __n = { let params = &self.params; #n };
            if mesh.me() != __n || mesh.parties() != __n.wrapping_add(1) {
                return Err(Error::Party { index: mesh.me(), parties: mesh.parties() });
            }
            #greeted
        },
    )
}

/// What the send and the receive step of one dealer round share.
struct StepCtx<'r> {
    /// The round.
    rd: &'r IrRound,
    /// Its message type.
    m: Ident,
    /// Its fields.
    names: Vec<Ident>,
    /// The state the step leaves.
    ty: TokenStream,
    /// The state it moves to.
    next_ty: TokenStream,
    /// Takes the dealer apart: its parts, `me` and the state's values.
    head: TokenStream,
    /// Puts the dealer together again in the next state.
    rebuild: TokenStream,
    /// The dealer's statements after the round, up to its next one.
    body: Vec<TokenStream>,
}

impl StepCtx<'_> {
    /// The doc of the step's method: the round, then `what` the step does.
    fn doc(&self, what: &str) -> String {
        let rd = self.rd;
        format!(
            "Round `{}` (`{}`): `{}`. {what}",
            rd.name, rd.location, rd.text
        )
    }
}

/// The variables of `live` with a known type.
fn vars(live: &BTreeSet<String>, types: &BTreeMap<String, Ty>) -> Vec<(String, Ty)> {
    live.iter()
        .filter_map(|n| types.get(n).map(|t| (n.clone(), t.clone())))
        .collect()
}

/// The dealer's items, if the protocol has one.
/// Its expressions read the dealer's secrets through their wrappers (and
/// leave `eg` with none set).
pub(super) fn dealer_items(ir: &Ir, eg: &ExprGen) -> TokenStream {
    match &ir.dealer {
        Some(name) => {
            let g = DealerGen::new(ir, eg, name);
            eg.set_secrets(Some(g.secrets.clone()));
            let items = g.items();
            eg.set_secrets(None);
            items
        }
        None => quote!(),
    }
}
