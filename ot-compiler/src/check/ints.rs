//! Integer arithmetic in the checker: literal ranges and their types, casts,
//! shifts, the built-in functions (`bit`, `select`, `sum`, `xor`, `bits`)
//! and the proof that a divisor is non-zero.
//!
//! Integer types are `usize`, `u64`, `u32` and `u8`. `+ - *` and unary `-`
//! on them wrap (arithmetic mod 2^width, Rust's `wrapping_*`); a shift by
//! the width or more gives 0. Sizes (shapes) and `requires` predicates use
//! checked arithmetic instead (an overflow is a `Params` error).

use super::int_rules::{literal_range, BUILTINS};
use super::scope::R;
use super::Checker;
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::ir::*;
use crate::types::{Shape, Ty};

impl Checker<'_> {
    /// Gives an unsuffixed literal the integer type its context needs
    /// (`x + 1` with `x: u64` reads `1` as `1u64`), checking its range.
    pub(super) fn coerce_lit(&self, ast: &Expr, t: &mut TExpr, want: &Ty) -> R<()> {
        if let (ExprKind::Int(v), TExprKind::Int(_)) = (&ast.kind, &t.kind) {
            if want.is_int() && t.ty != *want {
                literal_range(*v, want, ast.span)?;
                t.ty = want.clone();
            }
        }
        Ok(())
    }

    /// `e as T`: between integer types, from `Bit` (0 or 1) to an integer,
    /// and between integers and `Block` (its 128 bits as an unsigned
    /// integer). Narrowing keeps the low bits, as in Rust; a literal must fit.
    pub(super) fn cast(&mut self, role: usize, e: &Expr, inner: &Expr, ty: &Type) -> R<TExpr> {
        let to = self.ty(ty, None)?;
        // A literal must fit the type it is cast to (`5u64` is a cast):
        // said for that type, before the literal is read as a `usize`.
        if let (ExprKind::Int(v), true) = (&inner.kind, to.is_int()) {
            literal_range(*v, &to, inner.span)?;
        }
        let mut a = self.expr(role, inner)?;
        let ok = match (&a.ty, &to) {
            (x, y) if x.is_int() && y.is_int() => true,
            (Ty::Bit, y) => y.is_int(),
            (Ty::Block, y) | (y, Ty::Block) => y.is_int(),
            _ => false,
        };
        if !ok {
            return Err(Diagnostic::error(
                e.span,
                format!("cannot cast `{}` to `{to}`", a.ty),
            )
            .with_help("`as` converts between the integer types (`usize`, `u64`, `u32`, `u8`), from `Bit` to an integer, and between an integer and `Block`"));
        }
        if let ExprKind::Int(v) = &inner.kind {
            literal_range(*v, &to, inner.span)?;
            if to.is_int() {
                a.ty = to;
                return Ok(a);
            }
        }
        Ok(TExpr {
            kind: TExprKind::Unary(UnOp::Cast, Box::new(a)),
            ty: to,
        })
    }

    /// The type of `a << b` / `a >> b`: the left operand's integer type
    /// (the shift amount is any integer).
    pub(super) fn shift_type(&self, e: &Expr, op: BinOp, a: &Ty, b: &Ty) -> R<Ty> {
        if !a.is_int() || !b.is_int() {
            return Err(Diagnostic::error(
                e.span,
                format!("operator `{}` cannot shift `{a}` by `{b}`", op.symbol()),
            )
            .with_help("shifts apply to an integer (`usize`, `u64`, `u32`, `u8`), shifted by an integer amount"));
        }
        Ok(a.clone())
    }

    /// A call of a built-in function, or `None` when `name` is not one (or
    /// an intrinsic of that name is declared).
    pub(super) fn builtin(
        &mut self,
        role: usize,
        name: &Ident,
        args: &[Expr],
        span: crate::source::Span,
    ) -> Option<R<TExpr>> {
        if !BUILTINS.contains(&name.name.as_str()) || self.scope.intrinsics.contains_key(&name.name)
        {
            return None;
        }
        Some(self.builtin_call(role, name, args, span))
    }

    /// Checks a call of built-in `name`: its arity, then its arguments'
    /// types, which give the call's type.
    fn builtin_call(
        &mut self,
        role: usize,
        name: &Ident,
        args: &[Expr],
        span: crate::source::Span,
    ) -> R<TExpr> {
        let call = BuiltinCall {
            name,
            form: builtin_form(&name.name),
            args,
        };
        call.check_arity(span)?;
        let mut targs = vec![];
        for a in args {
            targs.push(self.expr(role, a)?);
        }
        let ty = self.builtin_type(&call, &mut targs)?;
        Ok(TExpr {
            kind: TExprKind::Call(format!("{BUILTIN_PREFIX}{}", name.name), targs),
            ty,
        })
    }

    /// The type of a built-in call with the checked arguments `targs`, or
    /// the error for an argument of the wrong type.
    fn builtin_type(&mut self, call: &BuiltinCall, targs: &mut [TExpr]) -> R<Ty> {
        let (name, args) = (call.name, call.args);
        Ok(match name.name.as_str() {
            "bit" => {
                if !targs[0].ty.is_int() && targs[0].ty != Ty::Block {
                    return call.bad(0, "an integer or a `Block`", &targs[0].ty);
                }
                if !targs[1].ty.is_int() {
                    return call.bad(1, "an integer bit index", &targs[1].ty);
                }
                Ty::Bit
            }
            "select" => {
                if targs[0].ty != Ty::Bit {
                    return call.bad(0, "a `Bit` condition", &targs[0].ty);
                }
                let (x, y) = (targs[1].ty.clone(), targs[2].ty.clone());
                self.coerce_lit(&args[1], &mut targs[1], &y)?;
                self.coerce_lit(&args[2], &mut targs[2], &x)?;
                if targs[1].ty != targs[2].ty {
                    return call.bad(
                        2,
                        &format!("of the same type as argument 2 (`{}`)", targs[1].ty),
                        &targs[2].ty,
                    );
                }
                targs[1].ty.clone()
            }
            "sum" | "xor" => {
                let elem = match &targs[0].ty {
                    Ty::Array(e, _) => (**e).clone(),
                    t => return call.bad(0, "an array", t),
                };
                let ok =
                    elem.is_int() || (name.name == "xor" && matches!(elem, Ty::Bit | Ty::Block));
                if !ok {
                    let what = if name.name == "sum" {
                        "an array of integers"
                    } else {
                        "an array of integers, `Bit`s or `Block`s"
                    };
                    return call.bad(0, what, &targs[0].ty);
                }
                elem
            }
            _ => match &targs[0].ty {
                t if t.is_int() => Ty::Bits(Shape::Lit(u128::from(t.int_bits().unwrap_or(64)))),
                Ty::Array(e, n) if **e == Ty::Bit => Ty::Bits(n.clone()),
                t => return call.bad(0, "an integer or an array of `Bit`s", t),
            },
        })
    }

    /// Whether `e` is provably non-zero: a non-zero literal or constant, a
    /// parameter whose `requires` excludes 0, or (in a size, where
    /// arithmetic is checked) a product of such values or a sum with one.
    pub(super) fn nonzero(&self, e: &Expr, in_shape: bool) -> bool {
        match &e.kind {
            ExprKind::Int(v) => *v != 0,
            // A literal fits its cast (checked); a widening cast of an
            // integer keeps it non-zero.
            ExprKind::Cast(a, _) if matches!(a.kind, ExprKind::Int(_)) => self.nonzero(a, in_shape),
            ExprKind::Cast(
                a,
                Type {
                    kind: TypeKind::Named(t, _),
                    ..
                },
            ) if matches!(t.name.as_str(), "u64" | "usize") => {
                let int = match &a.kind {
                    ExprKind::Var(n) => self
                        .params
                        .get(n)
                        .or(self.consts.get(n).map(|c| &c.0))
                        .is_some_and(Ty::is_int),
                    _ => false,
                };
                int && self.nonzero(a, in_shape)
            }
            ExprKind::Var(n) => match self.consts.get(n) {
                Some((_, v)) => *v != 0,
                None => self.nonzero_params.contains(n),
            },
            ExprKind::Binary(BinOp::Mul, a, b) if in_shape => {
                self.nonzero(a, true) && self.nonzero(b, true)
            }
            ExprKind::Binary(BinOp::Add, a, b) if in_shape => {
                self.nonzero(a, true) || self.nonzero(b, true)
            }
            _ => false,
        }
    }

    /// Refuses `a / b` and `a % b` unless `b` is provably non-zero.
    pub(super) fn check_divisor(&self, op: BinOp, b: &Expr, in_shape: bool) -> R<()> {
        if !matches!(op, BinOp::Div | BinOp::Rem) || self.nonzero(b, in_shape) {
            return Ok(());
        }
        let what = self.src.snippet(b.span).trim().to_string();
        let help = match &b.kind {
            ExprKind::Var(n) if self.params.contains_key(n) => {
                let ty = &self.params[n];
                match self.param_requires.get(n) {
                    Some(req) => format!("add `{n} >= 1` to the parameter's requirement: `param {n}: {ty} requires {req} && {n} >= 1;`"),
                    None => format!("declare the parameter non-zero: `param {n}: {ty} requires {n} >= 1;`"),
                }
            }
            _ => "divide by a non-zero constant, or by a `param` declared with `requires p >= 1`"
                .to_string(),
        };
        Err(Diagnostic::error(
            b.span,
            format!("`{}` by `{what}`, which may be zero", op.symbol()),
        )
        .with_help(help))
    }
}

/// A call of a built-in being checked.
struct BuiltinCall<'e> {
    /// The built-in.
    name: &'e Ident,
    /// How it is called, e.g. `bit(x, i)`.
    form: &'static str,
    /// The arguments as written.
    args: &'e [Expr],
}

impl BuiltinCall<'_> {
    /// Errors unless the call has as many arguments as the built-in takes.
    fn check_arity(&self, span: crate::source::Span) -> R<()> {
        let (name, form, args) = (self.name, self.form, self.args);
        let arity = form.matches(',').count() + 1;
        if args.len() != arity {
            return Err(Diagnostic::error(
                span,
                format!(
                    "built-in `{}` takes {arity} argument{} but {} {} given",
                    name.name,
                    if arity == 1 { "" } else { "s" },
                    args.len(),
                    if args.len() == 1 { "was" } else { "were" }
                ),
            )
            .with_help(format!("write `{form}`")));
        }
        Ok(())
    }

    /// The error for argument `k` (from 0), of type `t`, which must be `what`.
    fn bad<T>(&self, k: usize, what: &str, t: &Ty) -> R<T> {
        Err(Diagnostic::error(
            self.args[k].span,
            format!(
                "argument {} of built-in `{}` must be {what}, found `{t}`",
                k + 1,
                self.name.name
            ),
        )
        .with_help(format!("`{}`: {}", self.form, builtin_doc(&self.name.name))))
    }
}

/// How built-in `name` is called, e.g. `bit(x, i)`.
fn builtin_form(name: &str) -> &'static str {
    match name {
        "bit" => "bit(x, i)",
        "select" => "select(b, x, y)",
        "sum" => "sum(xs)",
        "xor" => "xor(xs)",
        _ => "bits(x)",
    }
}

/// What a built-in function does, for help lines.
fn builtin_doc(name: &str) -> &'static str {
    match name {
        "bit" => "bit `i` of the integer (or `Block`) `x`; false when `i` is beyond its width",
        "select" => "`x` when the `Bit` `b` is true, else `y` (constant time for integers, `Bit`s and `Block`s)",
        "sum" => "the wrapping sum of an array of integers",
        "xor" => "the XOR of an array of integers, `Bit`s or `Block`s",
        _ => "the bits of an integer (`Bits[64]` for a `u64`), or an array of `Bit`s as `Bits[n]`",
    }
}
