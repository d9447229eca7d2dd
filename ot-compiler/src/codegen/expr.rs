//! Expressions and statements: typed `.otp` expressions to Rust.

use super::names::{id, path_tokens, rt};
use super::wire::{rust_ty, shape};
use crate::ast::{BinOp, UnOp};
use crate::ir::*;
use crate::types::Ty;
use proc_macro2::{Literal, TokenStream};
use quote::quote;
use std::collections::{BTreeMap, BTreeSet};

#[derive(Clone, Copy, PartialEq)]
pub(super) enum Mode {
    Place,
    Owned,
}

/// Values live after a statement, and how often the statement reads each.
type StmtCtx = (BTreeSet<String>, BTreeMap<String, usize>);

/// Generates Rust expressions and statements from typed `.otp` ones.
#[derive(Default)]
pub(super) struct ExprGen {
    /// Rust paths of intrinsics, by name.
    paths: BTreeMap<String, String>,
    /// `move` parameters of intrinsics, by name.
    moves: BTreeMap<String, Vec<bool>>,
    /// Intrinsics that are streamed kernels (`chunked`): called with a
    /// span and an output (see [`super::stream::whole_call`]).
    streamed: BTreeSet<String>,
    /// While generating a statement: the values live after it and how often
    /// the statement reads each value (a value read once and dead afterwards
    /// is moved into a `move` parameter instead of copied).
    stmt_ctx: std::cell::RefCell<Option<StmtCtx>>,
    /// Nesting depth of comprehension closures (nothing moves out of one).
    depth: std::cell::Cell<usize>,
    /// While generating a `requires` predicate: its text. `usize` `+ - *`
    /// are then checked, and an overflow returns `Error::Params` with it.
    checked: std::cell::RefCell<Option<String>>,
    /// While generating a role (of a two-party protocol, the party or the
    /// dealer of an n-party one): its secret values, held in `Wiped<T>`
    /// wrappers and read through `Deref` (see `secret`). (`None`: outside
    /// a role, e.g. in `Params::new`; nothing is wrapped.)
    secrets: std::cell::RefCell<Option<BTreeSet<String>>>,
}

impl ExprGen {
    /// The generator for a protocol's expressions.
    pub(super) fn new(ir: &Ir) -> Self {
        ExprGen {
            paths: ir.intrinsic_paths.clone(),
            moves: ir.moved_args.clone(),
            streamed: ir.chunk_paths.keys().cloned().collect(),
            ..ExprGen::default()
        }
    }

    /// Sets the secret values of the role being generated
    /// (`None`: done with it).
    pub(super) fn set_secrets(&self, secrets: Option<BTreeSet<String>>) {
        *self.secrets.borrow_mut() = secrets;
    }

    /// Whether `name` is a secret value held in a `Wiped<T>` wrapper.
    pub(super) fn is_secret(&self, name: &str) -> bool {
        self.secrets
            .borrow()
            .as_ref()
            .is_some_and(|s| s.contains(name))
    }

    /// Whether a temporary of type `ty` (an array built by a comprehension,
    /// a kernel's result lent to another kernel) is wiped when the
    /// statement ends: in a role, for non-`Copy` secret types.
    pub(super) fn wipes_temporary(&self, ty: &Ty) -> bool {
        self.secrets.borrow().is_some() && !ty.is_copy() && crate::plan::secrets::wipeable(ty)
    }

    /// A `requires` predicate (in `Params::new`): `usize` arithmetic checked.
    pub(super) fn checked(&self, e: &TExpr, text: &str) -> TokenStream {
        *self.checked.borrow_mut() = Some(text.to_string());
        let out = self.owned(e);
        *self.checked.borrow_mut() = None;
        out
    }

    /// Generates a statement knowing which values are live after it.
    /// `live` tells whether a value is read after the statement; only the
    /// statement's own locals are asked (linear in the statement's size).
    pub(super) fn stmt_live(
        &self,
        s: &TStmt,
        role: &str,
        live: &dyn Fn(&str) -> bool,
    ) -> TokenStream {
        let mut counts = BTreeMap::new();
        let (TStmt::Assign(_, e) | TStmt::Check(e, _, _)) = s;
        e.count_locals(&mut counts);
        let live: BTreeSet<String> = counts.keys().filter(|n| live(n)).cloned().collect();
        *self.stmt_ctx.borrow_mut() = Some((live, counts));
        let out = self.stmt(s, role);
        *self.stmt_ctx.borrow_mut() = None;
        out
    }

    /// An argument for a `move` parameter: the value itself when this is its
    /// last read (outside any closure), else a copy.
    pub(super) fn moved_arg(&self, a: &TExpr) -> TokenStream {
        if let TExprKind::Local(n) = &a.kind {
            let ctx = self.stmt_ctx.borrow();
            let last_use = ctx
                .as_ref()
                .map(|(live, counts)| !live.contains(n) && counts.get(n) == Some(&1))
                .unwrap_or(false);
            if last_use && self.depth.get() == 0 {
                if self.is_secret(n) {
                    // Out of its wrapper: the kernel owns it now.
                    return super::secret::take_out(n, &a.ty);
                }
                let i = id(n);
                return quote!(#i);
            }
        }
        self.owned(a)
    }

    pub(super) fn gen(&self, e: &TExpr) -> (TokenStream, Mode) {
        // Recursive once per operand of a chain: grow the stack as needed.
        crate::parse::deep(|| self.gen_at(e))
    }

    fn gen_at(&self, e: &TExpr) -> (TokenStream, Mode) {
        match &e.kind {
            TExprKind::Int(v) => (int_literal(*v, &e.ty), Mode::Owned),
            TExprKind::Bool(b) => (quote!(#b), Mode::Owned),
            TExprKind::Local(n) if self.is_secret(n) => {
                let n = id(n);
                (quote!((*#n)), Mode::Place)
            }
            TExprKind::Local(n) | TExprKind::IndexVar(n) => {
                let n = id(n);
                (quote!(#n), Mode::Place)
            }
            TExprKind::Param(p) => {
                let p = id(p);
                (quote!(params.#p), Mode::Owned)
            }
            TExprKind::Index(b, i) => {
                let i = self.owned(i);
                let (bt, _) = self.gen(b);
                match b.ty {
                    Ty::Bits(_) => (quote!(#bt.get(#i)), Mode::Owned),
                    _ => (quote!(#bt[#i]), Mode::Place),
                }
            }
            TExprKind::Call(name, args) if name.starts_with(crate::ir::BUILTIN_PREFIX) => {
                (self.builtin(name, args, &e.ty), Mode::Owned)
            }
            TExprKind::Call(name, args) => (self.intrinsic_call(name, args, &e.ty), Mode::Owned),
            TExprKind::Binary(op, a, b) => (self.binary(*op, a, b), Mode::Owned),
            TExprKind::Unary(op, a) => (self.unary(e, *op, a), Mode::Owned),
            TExprKind::Sample(t) => (self.sample(t), Mode::Owned),
            TExprKind::Shape(sh) => (shape(sh), Mode::Owned),
            TExprKind::Comprehension { body, var, lo, hi } => {
                (self.comprehension(e, body, var, lo, hi), Mode::Owned)
            }
            TExprKind::Array(items) => {
                let items: Vec<TokenStream> = items.iter().map(|i| self.owned(i)).collect();
                (quote!([#(#items),*]), Mode::Owned)
            }
        }
    }

    /// A call of the intrinsic `name` through its Rust path, moving the
    /// arguments of its `move` parameters.
    fn intrinsic_call(&self, name: &str, args: &[TExpr], ty: &Ty) -> TokenStream {
        let path = self.paths.get(name).map(String::as_str).unwrap_or_default();
        let path: TokenStream = path_tokens(path, quote!(missing_path));
        let moves = self.moves.get(name).cloned().unwrap_or_default();
        let args: Vec<TokenStream> = args
            .iter()
            .enumerate()
            .map(|(k, a)| {
                if moves.get(k).copied().unwrap_or(false) {
                    self.moved_arg(a)
                } else {
                    self.arg(a)
                }
            })
            .collect();
        if self.streamed.contains(name) {
            return super::kernel_call::whole_call(path, &args, ty);
        }
        quote!(#path(#(#args),*))
    }

    /// `a op b`: constant-time for secret equality, checked `usize`
    /// arithmetic under a parameter requirement, wrapping for integers.
    fn binary(&self, op: BinOp, a: &TExpr, b: &TExpr) -> TokenStream {
        if let Some(t) = self.secret_eq(op, a, b) {
            return t;
        }
        let copy = a.ty.is_copy() && b.ty.is_copy();
        let (x, y) = if copy || matches!(op, BinOp::Eq | BinOp::Ne) {
            if copy {
                (self.owned(a), self.owned(b))
            } else {
                (self.by_ref(a), self.by_ref(b))
            }
        } else {
            (self.by_ref(a), self.by_ref(b))
        };
        self.binary_op(op, a, x, y)
    }

    /// `a == b` or `a != b` on blocks, seeds or bit vectors, compared in
    /// constant time; `None` for any other operation.
    fn secret_eq(&self, op: BinOp, a: &TExpr, b: &TExpr) -> Option<TokenStream> {
        // Blocks (check values, seeds) and bit vectors are compared
        // in constant time: `check` on a secret must not leak
        // through timing where the values first differ.
        let secret_eq = matches!(op, BinOp::Eq | BinOp::Ne)
            && matches!(
                (&a.ty, &b.ty),
                (Ty::Block | Ty::Seed, Ty::Block | Ty::Seed) | (Ty::Bits(_), Ty::Bits(_))
            );
        if !secret_eq {
            return None;
        }
        let rt = rt();
        let (x, y) = (self.by_ref(a), self.by_ref(b));
        let eq = quote!(#rt::primitives::ops::ct_eq(#x, #y));
        Some(if op == BinOp::Eq {
            quote!((#eq))
        } else {
            quote!((!#eq))
        })
    }

    /// The operator `op` applied to the generated operands `x` and `y`
    /// (`a` is the left operand, whose type picks the arithmetic).
    fn binary_op(&self, op: BinOp, a: &TExpr, x: TokenStream, y: TokenStream) -> TokenStream {
        match op {
            BinOp::Or => quote!((#x || #y)),
            BinOp::And => quote!((#x && #y)),
            BinOp::Eq => quote!((#x == #y)),
            BinOp::Ne => quote!((#x != #y)),
            BinOp::Lt => quote!((#x < #y)),
            BinOp::Le => quote!((#x <= #y)),
            BinOp::Gt => quote!((#x > #y)),
            BinOp::Ge => quote!((#x >= #y)),
            BinOp::BitOr => quote!((#x | #y)),
            BinOp::BitXor => quote!((#x ^ #y)),
            BinOp::BitAnd => quote!((#x & #y)),
            BinOp::Add | BinOp::Sub | BinOp::Mul
                if a.ty == Ty::Usize && self.checked.borrow().is_some() =>
            {
                let text = self.checked.borrow().clone().unwrap_or_default();
                let f = match op {
                    BinOp::Add => quote!(checked_add),
                    BinOp::Sub => quote!(checked_sub),
                    _ => quote!(checked_mul),
                };
                quote!(match (#x).#f(#y) { Some(__v) => __v, None => return Err(Error::Params { requirement: #text }) })
            }
            BinOp::Add if a.ty.is_int() => quote!((#x).wrapping_add(#y)),
            BinOp::Sub if a.ty.is_int() => quote!((#x).wrapping_sub(#y)),
            BinOp::Mul if a.ty.is_int() => quote!((#x).wrapping_mul(#y)),
            BinOp::Add => quote!((#x + #y)),
            BinOp::Sub => quote!((#x - #y)),
            BinOp::Mul => quote!((#x * #y)),
            BinOp::Div => quote!((#x).checked_div(#y).unwrap_or(0)),
            BinOp::Rem => quote!((#x).checked_rem(#y).unwrap_or(0)),
            // Mathematical shifts: by the width or more gives 0.
            BinOp::Shl => {
                quote!(u32::try_from(#y).ok().and_then(|__s| (#x).checked_shl(__s)).unwrap_or(0))
            }
            BinOp::Shr => {
                quote!(u32::try_from(#y).ok().and_then(|__s| (#x).checked_shr(__s)).unwrap_or(0))
            }
        }
    }

    /// The unary expression `e` = `op a`.
    fn unary(&self, e: &TExpr, op: UnOp, a: &TExpr) -> TokenStream {
        let rt = rt();
        let x = self.owned(a);
        match (op, &a.ty) {
            (UnOp::Not, Ty::Block) => quote!((#x ^ #rt::Block::ONES)),
            (UnOp::Not, _) => quote!((!#x)),
            (UnOp::Neg, t) if t.is_int() => quote!((#x).wrapping_neg()),
            (UnOp::Neg, _) => quote!((-#x)),
            (UnOp::Cast, _) => cast(&a.ty, &e.ty, x),
        }
    }

    /// The comprehension `e` = `[body for var in lo..hi]`: an array built by
    /// `from_fn` when its length is a small literal, else a `Vec`.
    fn comprehension(
        &self,
        e: &TExpr,
        body: &TExpr,
        var: &str,
        lo: &TExpr,
        hi: &TExpr,
    ) -> TokenStream {
        let v = id(var);
        self.depth.set(self.depth.get() + 1);
        let body = self.owned(body);
        self.depth.set(self.depth.get() - 1);
        let lo_t = self.owned(lo);
        let hi_t = self.owned(hi);
        match &e.ty {
            Ty::Array(_, s) if s.small().is_some() => {
                let n = Literal::usize_unsuffixed(s.small().unwrap_or(0));
                quote!(::core::array::from_fn::<_, #n, _>(|#v: usize| { let #v: usize = #v + #lo_t; #body }))
            }
            _ => quote!((#lo_t..#hi_t).map(|#v: usize| #body).collect::<::std::vec::Vec<_>>()),
        }
    }

    pub(super) fn sample(&self, t: &Ty) -> TokenStream {
        let rt = rt();
        match t {
            Ty::U32 | Ty::U8 => {
                let ty = rust_ty(t);
                quote!((<u64 as #rt::primitives::rng::Sample>::sample(&mut rng) as #ty))
            }
            Ty::Scalar => quote!(#rt::primitives::ec::random_scalar(&mut rng)),
            Ty::Point => quote!(#rt::primitives::ec::random_point(&mut rng)),
            Ty::Bits(n) => {
                let n = shape(n);
                quote!(#rt::Bits::random(&mut rng, #n))
            }
            Ty::Array(e, s) if s.small().is_some() => {
                let n = Literal::usize_unsuffixed(s.small().unwrap_or(0));
                let s = self.sample(e);
                quote!(::core::array::from_fn::<_, #n, _>(|_| #s))
            }
            Ty::Array(e, n) => {
                let n = shape(n);
                let s = self.sample(e);
                quote!((0..#n).map(|_| #s).collect::<::std::vec::Vec<_>>())
            }
            other => {
                let ty = rust_ty(other);
                quote!(<#ty as #rt::primitives::rng::Sample>::sample(&mut rng))
            }
        }
    }

    /// An argument of an intrinsic or sub-protocol call: scalars by value,
    /// arrays, bit vectors, matrices and extern values by reference.
    pub(super) fn arg(&self, e: &TExpr) -> TokenStream {
        if e.ty.is_copy() && !matches!(e.ty, Ty::Array(..)) {
            self.owned(e)
        } else {
            self.by_ref(e)
        }
    }

    pub(super) fn owned(&self, e: &TExpr) -> TokenStream {
        let (t, m) = self.gen(e);
        if m == Mode::Place && !e.ty.is_copy() {
            quote!(::core::clone::Clone::clone(&#t))
        } else {
            t
        }
    }

    pub(super) fn by_ref(&self, e: &TExpr) -> TokenStream {
        let (t, m) = self.gen(e);
        match m {
            Mode::Place => quote!(&#t),
            Mode::Owned if self.wipes_temporary(&e.ty) => {
                let rt = rt();
                quote!(&*#rt::primitives::wipe::Wiped(#t))
            }
            Mode::Owned => quote!(&(#t)),
        }
    }

    pub(super) fn stmt(&self, s: &TStmt, role: &str) -> TokenStream {
        let rt = rt();
        match s {
            TStmt::Assign(name, e) if self.is_secret(name) => {
                let n = id(name);
                let ty = rust_ty(&e.ty);
                let v = self.owned(e);
                quote!(let mut #n = #rt::primitives::wipe::Wiped::<#ty>(#v);)
            }
            TStmt::Assign(name, e) => {
                let n = id(name);
                let ty = rust_ty(&e.ty);
                let v = self.owned(e);
                quote!(let #n: #ty = #v;)
            }
            TStmt::Check(cond, abort, text) => {
                let c = self.owned(cond);
                let a = id(abort);
                quote!(if !(#c) { return Err(Error::#a { role: #role, check: #text }); })
            }
        }
    }
}

/// `x as T` between integers, from `Bit`, and between integers and `Block`
/// (the low bits are kept when narrowing, as in Rust).
fn cast(from: &Ty, to: &Ty, x: TokenStream) -> TokenStream {
    let rt = rt();
    let t = rust_ty(to);
    match (from, to) {
        (Ty::Block, _) => quote!((#x.as_u128() as #t)),
        (_, Ty::Block) => quote!(#rt::Block((#x) as u128)),
        _ => quote!(((#x) as #t)),
    }
}

impl ExprGen {
    /// A built-in function (`bit`, `select`, `sum`, `xor`, `bits`).
    fn builtin(&self, name: &str, args: &[TExpr], ty: &Ty) -> TokenStream {
        let rt = rt();
        let name = name.trim_start_matches(crate::ir::BUILTIN_PREFIX);
        match name {
            "bit" => {
                let x = self.owned(&args[0]);
                let i = self.owned(&args[1]);
                let x = if args[0].ty == Ty::Block {
                    quote!((#x).as_u128())
                } else {
                    x
                };
                quote!((u32::try_from(#i).ok().and_then(|__s| (#x).checked_shr(__s)).unwrap_or(0) & 1 == 1))
            }
            "select" => {
                let b = self.owned(&args[0]);
                let x = self.owned(&args[1]);
                let y = self.owned(&args[2]);
                // Integers, bits and blocks are selected with a mask, in
                // constant time (the condition is often secret).
                match ty {
                    t if t.is_int() => {
                        let r = rust_ty(t);
                        quote!({ let (__x, __y): (#r, #r) = (#x, #y); __y ^ ((__x ^ __y) & (#r::from(#b)).wrapping_neg()) })
                    }
                    Ty::Bit => {
                        quote!({ let (__b, __x, __y): (bool, bool, bool) = (#b, #x, #y); (__b & __x) | (!__b & __y) })
                    }
                    Ty::Block | Ty::Seed => {
                        quote!({ let (__x, __y): (#rt::Block, #rt::Block) = (#x, #y); #rt::Block(__y.as_u128() ^ ((__x.as_u128() ^ __y.as_u128()) & (u128::from(#b)).wrapping_neg())) })
                    }
                    _ => quote!(if #b { #x } else { #y }),
                }
            }
            "sum" => {
                let xs = self.by_ref(&args[0]);
                let r = rust_ty(ty);
                quote!((#xs).iter().fold(0 as #r, |__a, __b| __a.wrapping_add(*__b)))
            }
            "xor" => {
                let xs = self.by_ref(&args[0]);
                let zero = match ty {
                    Ty::Bit => quote!(false),
                    Ty::Block => quote!(#rt::Block(0)),
                    t => {
                        let r = rust_ty(t);
                        quote!((0 as #r))
                    }
                };
                quote!((#xs).iter().fold(#zero, |__a, __b| __a ^ *__b))
            }
            _ => {
                let x = self.owned(&args[0]);
                match &args[0].ty {
                    Ty::Array(..) => {
                        let xs = self.by_ref(&args[0]);
                        quote!(#rt::Bits::from_bools(&#xs[..]))
                    }
                    t => {
                        let w = t.int_bits().unwrap_or(64) as usize;
                        quote!({ let __x = #x; #rt::Bits::from_bools(&(0..#w).map(|__i| (__x >> __i) & 1 == 1).collect::<::std::vec::Vec<bool>>()) })
                    }
                }
            }
        }
    }
}

/// A literal of integer type `ty`, suffixed with its type.
fn int_literal(v: u128, ty: &Ty) -> TokenStream {
    // The checker bounds every literal by its type's range.
    let lit = match ty {
        Ty::U64 => Literal::u64_suffixed(v as u64),
        Ty::U32 => Literal::u32_suffixed(v as u32),
        Ty::U8 => Literal::u8_suffixed(v as u8),
        _ => Literal::usize_suffixed(v as usize),
    };
    quote!(#lit)
}
