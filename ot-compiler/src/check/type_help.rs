//! Help lines for type errors that say how to get the type needed: the
//! intrinsic in scope that converts one type into another or makes a value
//! of a type, the cast between integer types, the operator that applies.

use super::scope::Scope;
use crate::ast::{BinOp, Type, TypeKind};
use crate::types::Ty;

/// The name of a type without its shape: `Bits` for `Bits[n]`, `[]` for
/// any array, the name of an extern type.
fn head(ty: &Ty) -> String {
    match ty {
        Ty::Bits(_) => "Bits".into(),
        Ty::BitMatrix(..) => "BitMatrix".into(),
        Ty::Array(..) => "[]".into(),
        Ty::Extern(name, _) => name.clone(),
        other => other.to_string(),
    }
}

/// [`head`] of a type as written in a declaration.
fn written_head(t: &Type) -> String {
    match &t.kind {
        TypeKind::Named(name, _) => name.name.clone(),
        TypeKind::Array(..) => "[]".into(),
    }
}

/// The intrinsics in scope that take one value of the kind of `from` and
/// return one of the kind of `to`, as `name(..)`.
fn converters(scope: &Scope, from: &Ty, to: &Ty) -> Vec<String> {
    let (from, to) = (head(from), head(to));
    scope
        .intrinsics
        .values()
        .filter(|i| written_head(&i.ret) == to)
        .filter(|i| matches!(i.params.as_slice(), [p] if written_head(&p.ty) == from))
        .map(|i| format!("`{}(..)`", i.name.name))
        .collect()
}

/// How to turn a value of type `from` into a `to`, if the language or an
/// intrinsic in scope can.
pub(super) fn conversion(scope: &Scope, from: &Ty, to: &Ty) -> Option<String> {
    if (from.is_int() || *from == Ty::Block) && (to.is_int() || *to == Ty::Block) {
        return Some(format!("convert it with `as {to}`"));
    }
    let found = converters(scope, from, to);
    (!found.is_empty()).then(|| format!("convert it with {}", found.join(" or ")))
}

/// The intrinsics in scope that return a value of the kind of `ty`.
pub(super) fn makers(scope: &Scope, ty: &Ty) -> Option<String> {
    let to = head(ty);
    let found: Vec<String> = scope
        .intrinsics
        .values()
        .filter(|i| written_head(&i.ret) == to)
        .map(|i| format!("`{}(..)`", i.name.name))
        .collect();
    (!found.is_empty()).then(|| format!("make one with {}", found.join(" or ")))
}

/// The operand to mark and the help for `a op b` that has no type:
/// `Some(true)` for the right operand, `Some(false)` for the left, `None`
/// for the whole expression. `snippet` is each operand's source text.
pub(super) fn binary(op: BinOp, a: &Ty, b: &Ty, snippet: (&str, &str)) -> (Option<bool>, String) {
    use BinOp::*;
    if a.is_int() && b.is_int() && a != b {
        // Cast the `usize` (a size or an index) to the other type.
        let right = *b == Ty::Usize || *a != Ty::Usize;
        let (text, to) = if right {
            (snippet.1, a)
        } else {
            (snippet.0, b)
        };
        let help = format!(
            "`{}` needs two integers of one type: convert one, e.g. `{text} as {to}`",
            op.symbol()
        );
        return (Some(right), help);
    }
    let help = match op {
        Lt | Le | Gt | Ge if a == b => format!(
            "`{}` orders integers; two `{a}`s are compared with `==` or `!=`",
            op.symbol()
        ),
        BitXor if matches!(a, Ty::Point | Ty::Scalar) => {
            format!("`{a}`s are combined with `+` and `-` (the group operation), not `^`")
        }
        _ => op_help(op).to_string(),
    };
    (None, help)
}

/// The help for a Rust type written where the language has its own.
pub(super) fn rust_type(name: &str) -> Option<String> {
    let ours = match name {
        "bool" => "Bit",
        "u128" | "i128" => "Block",
        "i64" => "u64",
        "i32" => "u32",
        "i8" => "u8",
        "isize" => "usize",
        _ => return None,
    };
    Some(format!(
        "did you mean `{ours}`? (`{name}` is Rust's; the language's type is `{ours}`)"
    ))
}

/// The help for `check` on a value of type `ty`, which is not a `Bit`.
pub(super) fn check_condition(ty: &Ty) -> String {
    format!("a condition is a `Bit`, not a `{ty}`: compare with `==` or `!=` (`check a == b else abort Name;`), or call an intrinsic that returns a `Bit`")
}

/// The message and help for indexing `what` (as written) of type `ty`.
pub(super) fn not_indexable(what: &str, ty: &Ty) -> (String, String) {
    let message = format!("cannot index `{what}`: a `{ty}` is not an array");
    let help = if ty.is_int() || *ty == Ty::Block {
        format!("bit `i` of a `{ty}` is `bit({what}, i)`; only `Bits[n]` and arrays `[T; n]` are indexed")
    } else {
        "only `Bits[n]` and arrays `[T; n]` are indexed".to_string()
    };
    (message, help)
}

/// What an operator applies to.
pub(super) fn op_help(op: BinOp) -> &'static str {
    use BinOp::*;
    match op {
        Or | And => "`&&` and `||` combine two `Bit`s",
        Eq | Ne => "both sides must have the same type",
        Lt | Le | Gt | Ge => "comparisons apply to integers of one type",
        BitOr | BitAnd => "`&` and `|` apply to two `Bit`s, two `Block`s or two integers",
        BitXor => {
            "`^` applies to two `Bit`s, `Block`s, integers, or `Bits`/`BitMatrix` of the same shape"
        }
        Add | Sub => "`+`/`-` apply to two `Point`s, two `Scalar`s or two integers",
        Mul => "`*` applies to `Scalar * Point`, `Point * Scalar`, two `Scalar`s or two integers",
        Div | Rem => "`/` and `%` apply to integers",
        Shl | Shr => "shifts apply to an integer shifted by an integer amount",
    }
}
