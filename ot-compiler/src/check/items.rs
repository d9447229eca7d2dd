//! The protocol-level items of a two-party protocol as the checker sees
//! them one by one: constants, parameters, inputs and outputs, rounds.

use super::int_rules::{literal_range, nonzero_facts};
use super::scope::R;
use super::{line_ref, Checker, Var};
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::types::Ty;
use std::collections::HashSet;

impl Checker<'_> {
    /// `const NAME: T = value requires pred;`
    pub(super) fn const_item(&mut self, c: &ConstDecl, ir: &mut Ir) -> R<()> {
        self.fresh_global(&c.name)?;
        let ty = self.ty(&c.ty, None)?;
        if !ty.is_int() {
            return Err(Diagnostic::error(
                c.ty.span,
                format!("constants must be integers (`usize`, `u64`, `u32`, `u8`), not `{ty}`"),
            ));
        }
        // Typing the value locates literals out of range and bad casts.
        self.expr(usize::MAX, &c.value)?;
        let v = self.const_eval(&c.value)?;
        literal_range(v, &ty, c.value.span)?;
        self.consts.insert(c.name.name.clone(), (ty.clone(), v));
        if let Some(req) = &c.requires {
            if self.const_eval(req)? == 0 {
                return Err(Diagnostic::error(
                    req.span,
                    format!(
                        "`requires {}` does not hold for `{}` = {v}",
                        self.src.snippet(req.span),
                        c.name.name
                    ),
                )
                .with_help(format!(
                    "change the value of `{}` or the requirement",
                    c.name.name
                )));
            }
        }
        ir.consts.push((c.name.name.clone(), ty, v));
        Ok(())
    }

    /// `param NAME: T requires pred;`
    pub(super) fn param_item(&mut self, p: &ParamDecl, ir: &mut Ir) -> R<()> {
        self.fresh_global(&p.name)?;
        let ty = self.ty(&p.ty, None)?;
        if !ty.is_copy() || matches!(ty, Ty::Point | Ty::Scalar) {
            return Err(Diagnostic::error(
                p.ty.span,
                format!("parameters must be integers (`usize`, `u64`, `u32`, `u8`), `Bit` or `Block`, not `{ty}`"),
            ));
        }
        self.params.insert(p.name.name.clone(), ty.clone());
        let requires = match &p.requires {
            Some(req) => {
                let t = self.expr(usize::MAX, req)?;
                if t.ty != Ty::Bit {
                    return Err(Diagnostic::error(
                        req.span,
                        format!("`requires` needs a condition (a `Bit`), found `{}`", t.ty),
                    )
                    .with_help(format!(
                        "state what must hold, e.g. `requires {} >= 1`",
                        p.name.name
                    )));
                }
                let mut facts = vec![];
                nonzero_facts(req, &mut facts);
                if facts.contains(&p.name.name) {
                    self.nonzero_params.insert(p.name.name.clone());
                }
                let text = self.src.snippet(req.span).to_string();
                self.param_requires
                    .insert(p.name.name.clone(), text.clone());
                Some((t, text))
            }
            None => None,
        };
        ir.params.push(IrParam {
            name: p.name.name.clone(),
            ty,
            requires,
            tuning: p.tuning,
        });
        Ok(())
    }

    /// `input Role { ... }` / `output Role { ... }`
    pub(super) fn io_item(&mut self, io: &IoDecl, ir: &mut Ir) -> R<()> {
        let role = self.role(&io.role)?;
        let env = self.env_role(role);
        let mut names = HashSet::new();
        for f in &io.fields {
            if !names.insert(f.name.name.clone()) {
                return Err(Diagnostic::error(
                    f.name.span,
                    format!("duplicate field `{}`", f.name.name),
                ));
            }
            let ty = self.ty(&f.ty, None)?;
            match io.kind {
                IoKind::Input => {
                    self.define(env, &f.name, ty.clone())?;
                    self.inputs_decl.insert((env, f.name.name.clone()));
                    ir.inputs[role].push((f.name.name.clone(), ty));
                }
                IoKind::Output => {
                    self.outputs_decl.push((env, f.clone()));
                    ir.outputs[role].push((f.name.name.clone(), ty));
                }
            }
        }
        Ok(())
    }

    /// `round name: From -> To : Msg { fields } { at ... }`
    pub(super) fn round_item(&mut self, r: &Round, ir: &mut Ir) -> R<()> {
        self.round_names_fresh(r)?;
        let (from, to) = self.round_ends(r, ir)?;
        // Sender-side body runs before the send.
        for b in &r.body {
            let br = self.role(&b.role)?;
            if br == from {
                self.at_block(b, ir)?;
            }
        }
        let fields = self.sent_fields(r, from)?;
        self.chunked_round(r, &fields)?;
        let round_idx = ir.rounds.len();
        self.receive_fields(r, to, &fields)?;
        self.received_unused.push((round_idx, to, r.span));
        let round = self.ir_round(r, from, to, fields)?;
        ir.rounds.push(round);
        ir.events[from].push(Event::Send(round_idx));
        ir.events[to].push(Event::Recv(round_idx));
        for b in &r.body {
            let br = self.role(&b.role)?;
            if br != from {
                self.at_block(b, ir)?;
            }
        }
        Ok(())
    }

    /// Round and message names are unique.
    pub(super) fn round_names_fresh(&mut self, r: &Round) -> R<()> {
        if let Some(prev) = self.round_names.insert(r.name.name.clone(), r.name.span) {
            let l = line_ref(self.src, r.name.span, prev);
            return Err(Diagnostic::error(
                r.name.span,
                format!("round `{}` is already declared at {l}", r.name.name),
            )
            .with_help("give each round its own name"));
        }
        if let Some(prev) = self.msg_names.insert(r.msg.name.clone(), r.msg.span) {
            let l = line_ref(self.src, r.msg.span, prev);
            return Err(Diagnostic::error(
                r.msg.span,
                format!(
                    "message `{}` is already used by another round ({l})",
                    r.msg.name
                ),
            )
            .with_help("give each round its own message name"));
        }
        Ok(())
    }

    /// The sending and receiving role of a two-party round.
    fn round_ends(&mut self, r: &Round, ir: &mut Ir) -> R<(usize, usize)> {
        let from = self.role(&r.from)?;
        let to = match &r.to {
            Target::Role(rr) => self.role(rr)?,
            Target::All(span) => {
                let role = &self.roles[from].name.name;
                return Err(Diagnostic::error(
                    *span,
                    format!("broadcast from `{role}`, which is not a party: `-> all` needs a party array `role P[n]`"),
                )
                .with_help(format!(
                    "send to one role (`{role} -> <role>`), or write an n-party protocol `protocol {}(role P[n])` with `P[i] -> all`",
                    ir.name
                )));
            }
        };
        if to == from && !matches!(r.to, Target::All(_)) {
            return Err(Diagnostic::error(
                r.span,
                format!(
                    "round `{}` sends `{}` from `{}` to itself, so the message is never received",
                    r.name.name, r.msg.name, self.roles[from].name.name
                ),
            )
            .with_help(format!(
                "send it to another role, or compute the values in `at {} {{ ... }}`",
                self.roles[from].name.name
            )));
        }
        Ok((from, to))
    }

    /// The fields of the message `from` sends, with their declared types
    /// (each must be a value `from` holds, of that type).
    pub(super) fn sent_fields(&mut self, r: &Round, from: usize) -> R<Vec<(String, Ty)>> {
        let mut fields = vec![];
        let mut names = HashSet::new();
        for f in &r.fields {
            if !names.insert(f.name.name.clone()) {
                return Err(Diagnostic::error(
                    f.name.span,
                    format!(
                        "duplicate field `{}` in message `{}` of round `{}`",
                        f.name.name, r.msg.name, r.name.name
                    ),
                )
                .with_help("each field of a message must have a distinct name"));
            }
            let declared = self.sent_field(r, f, from)?;
            fields.push((f.name.name.clone(), declared));
        }
        Ok(fields)
    }

    /// One field of a sent message: its declared type, which the sender's
    /// value must have.
    fn sent_field(&mut self, r: &Round, f: &Field, from: usize) -> R<Ty> {
        let declared = self.ty(&f.ty, None)?;
        if !self.env[from].contains_key(&f.name.name) && self.is_poisoned(from, &f.name.name) {
            // Its definition failed with its own error: send it as declared,
            // so the receiver's uses of it give no follow-on errors.
            return Ok(declared);
        }
        let have = match self.env[from].get_mut(&f.name.name) {
            Some(v) => {
                v.exported = true;
                v.ty.clone()
            }
            None => {
                if let Some((later, lspan)) = self.future[from].get(&f.name.name).cloned() {
                    if later != r.name.name {
                        let l = line_ref(self.src, f.name.span, lspan);
                        return Err(Diagnostic::error(f.name.span, format!(
                            "role-order deadlock: `{}` must send `{}` in round `{}`, but only receives it later in round `{later}` ({l})",
                            self.roles[from].name.name, f.name.name, r.name.name))
                            .with_help(format!("`{}` would wait for round `{later}` while its peer waits for round `{}`; move round `{later}` before round `{}`", self.roles[from].name.name, r.name.name, r.name.name)));
                    }
                }
                return Err(self.unknown_value(from, &f.name.name, f.name.span, "send"));
            }
        };
        if have != declared {
            return Err(Diagnostic::error(f.ty.span, format!("shape mismatch: field `{}` of `{}` is declared `{declared}`, but `{}` has `{}: {have}`", f.name.name, r.msg.name, self.roles[from].name.name, f.name.name))
                .with_help(format!("declare the field as `{}: {have}` or change how `{}` is computed", f.name.name, f.name.name)));
        }
        Ok(declared)
    }

    /// Binds the received fields at `to`.
    fn receive_fields(&mut self, r: &Round, to: usize, fields: &[(String, Ty)]) -> R<()> {
        for (name, ty) in fields {
            let span = super::field_span(r, name);
            if let Some(prev) = self.env[to].get(name) {
                let l = line_ref(self.src, span, prev.span);
                return Err(Diagnostic::error(span, format!("`{}` already has a value named `{name}` ({l}); receiving another would shadow it", self.roles[to].name.name))
                    .with_help("rename one of them"));
            }
            self.env[to].insert(
                name.clone(),
                Var {
                    ty: ty.clone(),
                    span,
                    used: false,
                    exported: false,
                },
            );
        }
        Ok(())
    }

    /// The round as the IR records it.
    pub(super) fn ir_round(
        &self,
        r: &Round,
        from: usize,
        to: usize,
        fields: Vec<(String, Ty)>,
    ) -> R<IrRound> {
        let (l, _) = self.src.line_col(r.span.file, r.span.start);
        let chunk_by = match &r.chunk_by {
            Some(e) => Some(self.shape(e)?),
            None => None,
        };
        Ok(IrRound {
            name: r.name.name.clone(),
            name_span: r.name.span,
            from,
            to,
            msg: r.msg.name.clone(),
            fields,
            chunk_by,
            location: format!("{}:{l}", self.src.file(r.span.file).name),
            text: self.src.line_text(r.span.file, l).trim().to_string(),
            party: None,
        })
    }
}
