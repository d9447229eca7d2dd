//! What the n-party generators share: the party's generation context
//! ([`PartyGen`]: its IR, plan, names and secrets, the state structs, `new`
//! and `finish`), and the helpers the dealer's generator uses as well
//! (statement code, opening a state's fields, the I/O structs).

use super::super::expr::ExprGen;
use super::super::names::{id, rt};
use super::super::secret::{
    held_ty_optional, take_out, take_out_optional, unwrap_copy, wrap_values,
};
use crate::case::snake;
use crate::ir::*;
use crate::plan::party::{self as schedule, Op, PState, Plan};
use crate::types::Ty;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};
use std::collections::BTreeSet;

/// The secret values of the parties (`dealer`: of the dealer), by the rule
/// of `codegen::secret`.
pub(super) fn role_secrets(ir: &Ir, dealer: bool) -> BTreeSet<String> {
    crate::plan::secrets::secrets(ir, &schedule::value_types(ir, dealer))
}

/// A state's fields as a pattern that opens it: the secret ones bound
/// `mut` (a secret may be moved out of its wrapper).
pub(super) fn open_fields<'n>(
    secrets: &BTreeSet<String>,
    names: impl Iterator<Item = &'n String>,
) -> Vec<TokenStream> {
    names
        .map(|v| {
            let i = id(v);
            match secrets.contains(v) {
                true => quote!(mut #i),
                false => quote!(#i),
            }
        })
        .collect()
}

/// The outputs of a role, out of the wrappers of its secrets (from here
/// they are the caller's); `optional(name)`: an output held as an `Option`.
pub(super) fn output_values(
    secrets: &BTreeSet<String>,
    outputs: &[(String, Ty)],
    optional: &dyn Fn(&str) -> bool,
) -> Vec<TokenStream> {
    outputs
        .iter()
        .map(|(n, t)| match (secrets.contains(n), optional(n)) {
            (true, true) => take_out_optional(n, t),
            (true, false) => take_out(n, t),
            _ => {
                let i = id(n);
                quote!(#i)
            }
        })
        .collect()
}

/// One statement of role `role` with the values `live` after it; a check
/// names the party that aborted (`me`) and the culprit of a per-party check.
pub(super) fn stmt_code(
    eg: &ExprGen,
    role: &str,
    s: &TStmt,
    live: &std::collections::BTreeSet<String>,
) -> TokenStream {
    match s {
        TStmt::Assign(..) => eg.stmt_live(s, role, &|n| live.contains(n)),
        TStmt::Check(cond, abort, text) => {
            let c = eg.owned(cond);
            let a = id(abort);
            if matches!(cond.ty, Ty::Array(..)) {
                quote! {
                    let __ok: ::std::vec::Vec<bool> = ::core::iter::IntoIterator::into_iter(#c).collect();
                    if let Some(__j) = __ok.iter().position(|b| !*b) {
                        return Err(Error::#a { party: me, culprit: Some(__j), check: #text });
                    }
                }
            } else {
                quote!(if !(#c) { return Err(Error::#a { party: me, culprit: None, check: #text }); })
            }
        }
    }
}

/// The start of a `new` (of a party or the dealer): the session block from
/// the session id, the inputs taken apart (the secret ones wrapped, `wrap`)
/// and checked, the computation before the first round.
pub(super) fn start(
    input: &Ident,
    (names, wrap): (&[Ident], TokenStream),
    checks: &[TokenStream],
    init: &[TokenStream],
) -> TokenStream {
    let rt = rt();
    quote! {
        let mut rng = rng;
        let session_id = session;
        let session = #rt::transport::mpc::session_block(session);
        let #input { #(#names),* } = input;
        #wrap
        #(#checks)*
        #(#init)*
    }
}

/// Fields of an input or output struct: names, Rust types, doc lines.
pub(super) type IoFields = (Vec<Ident>, Vec<TokenStream>, Vec<String>);

/// `{role}Input` and `{role}Output` of `who` (for the doc lines).
pub(super) fn io_items(role: &str, who: &str, ins: IoFields, outs: IoFields) -> TokenStream {
    let input = format_ident!("{role}Input");
    let output = format_ident!("{role}Output");
    let (in_names, in_tys, in_docs) = ins;
    let (out_names, out_tys, out_docs) = outs;
    let input_doc = format!("Inputs of {who}.");
    let output_doc = format!("Outputs of {who}.");
    quote! {
        #[doc = #input_doc]
        #[derive(Clone, Debug, Default)]
        pub struct #input { #( #[doc = #in_docs] pub #in_names: #in_tys, )* }
        #[doc = #output_doc]
        #[derive(Clone, Debug, PartialEq)]
        pub struct #output { #( #[doc = #out_docs] pub #out_names: #out_tys, )* }
    }
}

/// Code generation for the party.
pub(super) struct PartyGen<'a> {
    pub(super) ir: &'a Ir,
    pub(super) eg: &'a ExprGen,
    pub(super) plan: &'a Plan,
    pub(super) role: Ident,
    pub(super) role_mod: Ident,
    /// The parties' secret values (held in wiping wrappers, see `secret`).
    pub(super) secrets: BTreeSet<String>,
}

impl<'a> PartyGen<'a> {
    pub(super) fn new(ir: &'a Ir, eg: &'a ExprGen, plan: &'a Plan) -> Self {
        PartyGen {
            ir,
            eg,
            plan,
            role: id(&ir.roles[0]),
            role_mod: format_ident!("{}_state", snake(&ir.roles[0])),
            secrets: role_secrets(ir, false),
        }
    }

    pub(super) fn pname(&self) -> &'a str {
        &self.ir.roles[0]
    }

    /// The state struct's name.
    pub(super) fn state_ident(s: &PState) -> Ident {
        format_ident!("{}", s.name)
    }

    /// Extra fields a state carries besides values: the own message while
    /// waiting for a round, the digests while checking one.
    pub(super) fn extra_fields(&self, s: &PState) -> Vec<(Ident, TokenStream)> {
        let mut out = vec![];
        if let Some(r) = s.own {
            let m = format_ident!("{}", self.ir.rounds[r].msg);
            let t = match schedule::fixed(self.ir, r) {
                Some(_) => quote!(::core::option::Option<msgs::#m>),
                None => quote!(msgs::#m),
            };
            out.push((format_ident!("__own"), t));
        }
        if s.digests.is_some() {
            let rt = rt();
            out.push((
                format_ident!("__digests"),
                quote!(::std::vec::Vec<[u8; #rt::transport::mpc::DIGEST_LEN]>),
            ));
        }
        out
    }

    /// The expression building state `s` from the values in scope.
    pub(super) fn build_state(&self, s: &PState) -> TokenStream {
        let role_mod = &self.role_mod;
        let n = Self::state_ident(s);
        let fns = s
            .vars
            .iter()
            .map(|(v, _)| id(v))
            .chain(self.extra_fields(s).into_iter().map(|(f, _)| f));
        quote!(#role_mod::#n { #(#fns),* })
    }

    /// Pattern destructuring state `s` (its secrets bound `mut`).
    pub(super) fn open_state(&self, s: &PState) -> TokenStream {
        let role_mod = &self.role_mod;
        let n = Self::state_ident(s);
        let fns = open_fields(&self.secrets, s.vars.iter().map(|(v, _)| v));
        let extra = self.extra_fields(s).into_iter().map(|(f, _)| f);
        quote!(#role_mod::#n { #(#fns,)* #(#extra),* })
    }

    pub(super) fn state_structs(&self) -> TokenStream {
        let structs = self.plan.states.iter().map(|s| {
            let n = Self::state_ident(s);
            let doc = &s.doc;
            let (mut fns, mut fts): (Vec<Ident>, Vec<TokenStream>) = s
                .vars
                .iter()
                .map(|(v, t)| {
                    let held =
                        held_ty_optional(self.secrets.contains(v), s.held.contains_key(v), t);
                    (id(v), held)
                })
                .unzip();
            for (f, t) in self.extra_fields(s) {
                fns.push(f);
                fts.push(t);
            }
            quote!(#[doc = #doc] pub struct #n { #( pub(super) #fns: #fts, )* })
        });
        quote!(#(#structs)*)
    }

    /// The statements of operations `from..to` (local computation and checks).
    pub(super) fn stmts_between(&self, from: usize, to: usize) -> Vec<TokenStream> {
        (from..to)
            .filter_map(|i| match self.plan.ops[i] {
                Op::Stmt(k) => match &self.ir.events[0][k] {
                    Event::Stmt(s) => Some(match self.ir.party_fixed.stmts.get(&k) {
                        Some(&c) => self.fixed_stmt(s, i, c),
                        None => self.stmt(s, i),
                    }),
                    _ => None,
                },
                _ => None,
            })
            .collect()
    }

    /// A statement of the fixed party `c` (`at P[c]`): run only at `c`, on
    /// its own values; the value it defines is `Some` there, `None` elsewhere.
    pub(super) fn fixed_stmt(&self, s: &TStmt, i: usize, c: usize) -> TokenStream {
        let mut reads = std::collections::BTreeSet::new();
        let (TStmt::Assign(_, e) | TStmt::Check(e, _, _)) = s;
        e.locals(&mut reads);
        let unwraps = self.unwraps(reads.iter(), i);
        let inner = self.stmt(s, i);
        match s {
            TStmt::Assign(n, e) => {
                let t = held_ty_optional(self.secrets.contains(n), true, &e.ty);
                let n = id(n);
                quote! {
                    let #n: #t = if me == #c {
                        #(#unwraps)*
                        #inner
                        ::core::option::Option::Some(#n)
                    } else {
                        ::core::option::Option::None
                    };
                }
            }
            TStmt::Check(..) => quote!(if me == #c { #(#unwraps)* #inner }),
        }
    }

    /// Inside a fixed party's code: its own copies of the values among
    /// `names` that it holds (as `Option`s) before operation `i`.
    pub(super) fn unwraps<'n>(
        &self,
        names: impl Iterator<Item = &'n String>,
        i: usize,
    ) -> Vec<TokenStream> {
        names
            .filter(|n| self.plan.held[i].contains_key(*n))
            .map(|n| {
                let v = id(n);
                let held = quote!(#v.as_ref().ok_or(Error::NotHeld { party: me, value: #n })?);
                unwrap_copy(self.secrets.contains(n), n, held)
            })
            .collect()
    }

    /// One statement; a check names the party (and the culprit of a
    /// per-party check).
    pub(super) fn stmt(&self, s: &TStmt, i: usize) -> TokenStream {
        stmt_code(self.eg, self.pname(), s, &self.plan.live_out[i])
    }

    pub(super) fn io_structs(&self) -> TokenStream {
        let (p, pname) = (self.pname(), &self.ir.name);
        let fields = |list: &[(String, Ty)], fixed: &std::collections::BTreeMap<String, usize>| {
            let names: Vec<Ident> = list.iter().map(|(n, _)| id(n)).collect();
            let tys: Vec<TokenStream> = list
                .iter()
                .map(|(n, t)| held_ty_optional(false, fixed.contains_key(n), t))
                .collect();
            let docs: Vec<String> = list
                .iter()
                .map(|(n, t)| match fixed.get(n) {
                    Some(c) => format!("`{n}: {t}` of `{p}[{c}]` only: `Some` at party {c}, `None` at every other party."),
                    None => format!("`{n}: {t}`"),
                })
                .collect();
            (names, tys, docs)
        };
        let fixed = &self.ir.party_fixed;
        io_items(
            p,
            &format!("a party `{p}[me]` in `{pname}`"),
            fields(&self.ir.inputs[0], &fixed.inputs),
            fields(&self.ir.outputs[0], &fixed.outputs),
        )
    }

    /// `new`: checks the index and inputs, runs the computation before the
    /// first communication.
    pub(super) fn new_fn(&self) -> TokenStream {
        let rt = rt();
        let (role, p) = (&self.role, self.pname());
        let input = format_ident!("{}Input", p);
        let inputs = &self.ir.inputs[0];
        let first = &self.plan.states[0];
        let init = self.stmts_between(0, first.entry);
        let state = self.build_state(first);
        let (in_names, in_checks) = self.input_checks(inputs);
        let fixed = &self.ir.party_fixed.inputs;
        let wrap = wrap_values(&self.secrets, inputs.iter().map(|(n, _)| n), &|n| {
            fixed.contains_key(n)
        });
        let n = super::super::wire::shape(&schedule::parties(self.ir));
        let prologue = start(&input, (&in_names, wrap), &in_checks, &init);
        let (_, subs_arg, subs_init) = self.subs_struct();
        let subs_doc = match self.has_pairwise() {
            true => format!(" `subs` holds, for each sub-protocol the parties run between every pair, one implementation of each of its roles per other party (`{p}Subs`); a wrong count is `Error::Subs`."),
            false => String::new(),
        };
        let doc = format!("Starts party `{p}[me]` of session `session` (the same 16 bytes at every party, fresh for every run): checks its index and inputs and runs its local computation up to its first round.{subs_doc}");
        quote! {
            #[doc = #doc]
            #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
            pub fn new(me: usize, params: Params, session: [u8; 16], input: #input, rng: #rt::primitives::rng::Rng #subs_arg) -> Result<Self, Error> {
                let __n = #n;
                if me >= __n {
                    return Err(Error::Party { index: me, parties: __n });
                }
                let subs = #subs_init;
                #prologue
                Ok(#role { me, params, rng, session, session_id, subs, st: #state })
            }
        }
    }

    /// The shape checks of the inputs; an input of one fixed party must be
    /// given (`Some`) at that party and only there.
    pub(super) fn input_checks(&self, inputs: &[(String, Ty)]) -> (Vec<Ident>, Vec<TokenStream>) {
        let (names, mut checks) = super::super::wire::input_checks(inputs);
        for (k, (n, _)) in inputs.iter().enumerate() {
            let Some(&c) = self.ir.party_fixed.inputs.get(n) else {
                continue;
            };
            let v = id(n);
            let check = std::mem::take(&mut checks[k]);
            checks[k] = quote! {
                if #v.is_some() != (me == #c) {
                    return Err(Error::FixedInput { party: me, holder: #c, input: #n });
                }
                if let ::core::option::Option::Some(#v) = &#v {
                    #check
                }
            };
        }
        (names, checks)
    }

    pub(super) fn finish_impl(&self) -> TokenStream {
        let (role, role_mod) = (&self.role, &self.role_mod);
        let output = format_ident!("{}Output", self.pname());
        let Some(last) = self.plan.states.last() else {
            return quote!();
        };
        let open = self.open_state(last);
        let stmts = self.stmts_between(last.entry, self.plan.ops.len());
        let end = &self.plan.held[self.plan.ops.len()];
        let outputs = &self.ir.outputs[0];
        let vals = output_values(&self.secrets, outputs, &|n| end.contains_key(n));
        let outs = outputs.iter().zip(vals).map(|((n, _), val)| {
            let v = id(n);
            match self.ir.party_fixed.outputs.get(n) {
                Some(c) if !end.contains_key(n) => quote!(#v: if me == #c { ::core::option::Option::Some(#val) } else { ::core::option::Option::None }),
                _ => quote!(#v: #val),
            }
        });
        quote! {
            impl #role<#role_mod::Done> {
                /// The party's outputs, after its last local computation; a
                /// failing check is its abort.
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn finish(self) -> Result<#output, Error> {
                    let #role { me, params, mut rng, session, session_id, subs: _, st } = self;
                    let #open = st;
                    #(#stmts)*
                    Ok(#output { #(#outs),* })
                }
            }
        }
    }
}
