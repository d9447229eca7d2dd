//! The integer rules that need no checker state: a literal's range, the
//! facts a `requires` gives about non-zero values, the built-in function
//! names (see `ints.rs` for the rest of integer checking).

use super::scope::R;
use crate::ast::*;
use crate::diag::Diagnostic;
use crate::types::Ty;

/// Names of the built-in functions (an intrinsic of the same name, declared
/// by the user, takes precedence).
pub(super) const BUILTINS: &[&str] = &["bit", "select", "sum", "xor", "bits"];

/// The error for a literal outside its type's range.
pub(super) fn literal_range(v: u128, ty: &Ty, span: crate::source::Span) -> R<()> {
    match ty.int_max() {
        Some(max) if v > max => Err(Diagnostic::error(
            span,
            if v == u128::MAX {
                format!("integer literal is out of range for `{ty}`")
            } else {
                format!("integer literal `{v}` is out of range for `{ty}`")
            },
        )
        .with_help(format!("`{ty}` holds 0 ..= {max}"))),
        _ => Ok(()),
    }
}

/// The parameters a `requires` predicate proves non-zero: conjuncts
/// `p >= k` (k ≥ 1), `p > k`, `p != 0`, `p == k` (k ≠ 0) and their mirror
/// images, with `k` a literal.
pub(super) fn nonzero_facts(req: &Expr, out: &mut Vec<String>) {
    let ExprKind::Binary(op, a, b) = &req.kind else {
        return;
    };
    if *op == BinOp::And {
        nonzero_facts(a, out);
        nonzero_facts(b, out);
        return;
    }
    let lit = |e: &Expr| match &e.kind {
        ExprKind::Int(v) => Some(*v),
        ExprKind::Cast(x, _) => match x.kind {
            ExprKind::Int(v) => Some(v),
            _ => None,
        },
        _ => None,
    };
    let var = |e: &Expr| match &e.kind {
        ExprKind::Var(n) => Some(n.clone()),
        _ => None,
    };
    let fact = match (var(a), lit(b), lit(a), var(b)) {
        (Some(p), Some(k), _, _) => match op {
            BinOp::Ge => (k >= 1).then_some(p),
            BinOp::Gt => Some(p),
            BinOp::Ne => (k == 0).then_some(p),
            BinOp::Eq => (k != 0).then_some(p),
            _ => None,
        },
        (_, _, Some(k), Some(p)) => match op {
            BinOp::Le => (k >= 1).then_some(p),
            BinOp::Lt => Some(p),
            BinOp::Ne => (k == 0).then_some(p),
            BinOp::Eq => (k != 0).then_some(p),
            _ => None,
        },
        _ => None,
    };
    out.extend(fact);
}
