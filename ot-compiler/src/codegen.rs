//! Rust code generation from the checked [`Ir`]: parameters, messages with a
//! wire codec, the error enum, one typestate per role with sans-IO step
//! methods, generic `send`/`recv` bounded by diagnostic traits, a blocking
//! driver, and the static duality guard.

use crate::ast::{BinOp, UnOp};
use crate::ir::*;
use crate::types::{Shape, Ty};
use proc_macro2::{Ident, Literal, Span, TokenStream};
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

fn rt() -> TokenStream {
    quote!(::ot::runtime)
}

fn id(s: &str) -> Ident {
    Ident::new(&s.replace('.', "__"), Span::call_site())
}

fn camel(s: &str) -> String {
    let mut out = String::new();
    let mut up = true;
    for c in s.chars() {
        if c == '_' || c == '.' {
            up = true;
        } else if up {
            out.extend(c.to_uppercase());
            up = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.extend(c.to_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// A Rust path from a `.otp` declaration as tokens (`fallback` if it does
/// not parse; the compiler has already validated declared paths).
fn path_tokens(path: &str, fallback: TokenStream) -> TokenStream {
    syn::parse_str::<syn::Path>(path)
        .map(|p| quote!(#p))
        .unwrap_or(fallback)
}

/// The chunked dimension of a streamed field and its row count
/// (`BitMatrix[rows, cols]` streams by columns, `[T; n]` by elements).
fn chunk_dims(ty: &Ty) -> (TokenStream, TokenStream) {
    match ty {
        Ty::BitMatrix(r, c) => (shape(r), shape(c)),
        Ty::Array(_, n) => (quote!(0usize), shape(n)),
        _ => (quote!(0usize), quote!(0usize)),
    }
}

/// The Rust type of a value type.
pub fn rust_ty(t: &Ty) -> TokenStream {
    let rt = rt();
    match t {
        Ty::Bit => quote!(bool),
        Ty::Block | Ty::Seed => quote!(#rt::Block),
        Ty::Point => quote!(#rt::ec::Point),
        Ty::Scalar => quote!(#rt::ec::Scalar),
        Ty::Usize => quote!(usize),
        Ty::U64 => quote!(u64),
        Ty::Bits(_) => quote!(#rt::Bits),
        Ty::BitMatrix(..) => quote!(#rt::BitMatrix),
        Ty::Array(e, s) if s.small().is_some() => {
            let e = rust_ty(e);
            let n = Literal::usize_unsuffixed(s.small().unwrap_or(0));
            quote!([#e; #n])
        }
        Ty::Array(e, _) => {
            let e = rust_ty(e);
            quote!(::std::vec::Vec<#e>)
        }
        Ty::Extern(_, path) => path_tokens(path, quote!(())),
    }
}

/// A length as a `usize` expression over `params` (wrapping, never panicking).
fn shape(s: &Shape) -> TokenStream {
    match s {
        Shape::Lit(v) => {
            let v = Literal::usize_suffixed(*v as usize);
            quote!(#v)
        }
        Shape::Param(p) => {
            let p = id(p);
            quote!((params.#p as usize))
        }
        Shape::Bin(op, a, b) => {
            let a = shape(a);
            let b = shape(b);
            match op {
                '+' => quote!((#a).wrapping_add(#b)),
                '-' => quote!((#a).wrapping_sub(#b)),
                '*' => quote!((#a).wrapping_mul(#b)),
                '/' => quote!((#a).checked_div(#b).unwrap_or(0)),
                _ => quote!((#a).checked_rem(#b).unwrap_or(0)),
            }
        }
    }
}

/// Whether a type has a fixed wire size (implements the runtime `Wire` trait).
pub fn is_fixed_wire(t: &Ty) -> bool {
    fixed_wire(t)
}

fn fixed_wire(t: &Ty) -> bool {
    match t {
        Ty::Bit | Ty::Block | Ty::Seed | Ty::Point | Ty::Scalar | Ty::U64 | Ty::Extern(..) => true,
        Ty::Array(e, n) if n.small().is_some() => fixed_wire(e),
        _ => false,
    }
}

fn wire_len(t: &Ty) -> TokenStream {
    let rt = rt();
    match t {
        Ty::Usize => quote!(8usize),
        _ if fixed_wire(t) => {
            let ty = rust_ty(t);
            quote!(<#ty as #rt::wire::Wire>::SIZE)
        }
        Ty::Bits(n) => {
            let n = shape(n);
            quote!((#n).div_ceil(8))
        }
        Ty::BitMatrix(r, c) => {
            let r = shape(r);
            let c = shape(c);
            quote!((#r).wrapping_mul((#c).div_ceil(128)).wrapping_mul(16))
        }
        Ty::Array(e, n) => {
            let n = shape(n);
            let e = wire_len(e);
            quote!((#n).wrapping_mul(#e))
        }
        _ => quote!(0usize),
    }
}

/// Checks that a value's run-time lengths match its declared shape.
fn check_shape(t: &Ty, v: &TokenStream, round: &str, field: &str) -> TokenStream {
    let err = |expected: TokenStream, got: TokenStream| quote!(return Err(Error::Shape { round: #round, field: #field, expected: #expected, got: #got }););
    match t {
        Ty::Bits(n) => {
            let n = shape(n);
            let e = err(quote!(__want), quote!(#v.len()));
            quote!({ let __want = #n; if #v.len() != __want { #e } })
        }
        Ty::BitMatrix(r, c) => {
            let r = shape(r);
            let c = shape(c);
            let e1 = err(quote!(__r), quote!(#v.rows()));
            let e2 = err(quote!(__c), quote!(#v.cols()));
            quote!({ let (__r, __c) = (#r, #c); if #v.rows() != __r { #e1 } if #v.cols() != __c { #e2 } })
        }
        Ty::Array(e, n) if n.small().is_none() => {
            let n = shape(n);
            let er = err(quote!(__want), quote!(#v.len()));
            let inner = check_shape(e, &quote!(__x), round, field);
            let inner = if inner.is_empty() {
                quote!()
            } else {
                quote!(for __x in #v.iter() { #inner })
            };
            quote!({ let __want = #n; if #v.len() != __want { #er } #inner })
        }
        Ty::Array(e, _) => {
            let inner = check_shape(e, &quote!(__x), round, field);
            if inner.is_empty() {
                quote!()
            } else {
                quote!(for __x in #v.iter() { #inner })
            }
        }
        _ => quote!(),
    }
}

/// Appends the encoding of `v` (a reference expression) to `out`.
fn write_value(t: &Ty, v: &TokenStream) -> TokenStream {
    let rt = rt();
    match t {
        Ty::Usize => {
            quote!({ let __s = out.len(); out.resize(__s + 8, 0); #rt::wire::Wire::write(&(*#v as u64), &mut out[__s..]); })
        }
        _ if fixed_wire(t) => {
            let ty = rust_ty(t);
            quote!({ let __s = out.len(); out.resize(__s + <#ty as #rt::wire::Wire>::SIZE, 0); <#ty as #rt::wire::Wire>::write(#v, &mut out[__s..]); })
        }
        Ty::Bits(_) => quote!(out.extend_from_slice(#v.as_bytes());),
        Ty::BitMatrix(..) => {
            quote!(out.extend_from_slice(#rt::Block::slice_as_bytes(#v.as_blocks()));)
        }
        Ty::Array(e, _) => {
            let inner = write_value(e, &quote!(__x));
            quote!(for __x in #v.iter() { #inner })
        }
        _ => quote!(),
    }
}

/// Decodes a value from `__b` (exactly its wire length) as `Result<T, WireError>`.
fn read_value(t: &Ty) -> TokenStream {
    let rt = rt();
    match t {
        Ty::Usize => quote!(<u64 as #rt::wire::Wire>::read(__b).map(|x| x as usize)),
        _ if fixed_wire(t) => {
            let ty = rust_ty(t);
            quote!(<#ty as #rt::wire::Wire>::read(__b))
        }
        Ty::Bits(n) => {
            let n = shape(n);
            quote!(#rt::wire::read_bits(__b, #n))
        }
        Ty::BitMatrix(r, c) => {
            let r = shape(r);
            let c = shape(c);
            quote!(#rt::wire::read_bit_matrix(__b, #r, #c))
        }
        Ty::Array(e, n) => {
            let n = shape(n);
            if fixed_wire(e) {
                let ety = rust_ty(e);
                quote!(#rt::wire::read_vec::<#ety>(__b, #n))
            } else {
                let el = wire_len(e);
                let inner = read_value(e);
                quote!((|| {
                    let __n = #n;
                    let __el = #el;
                    let mut __v = ::std::vec::Vec::with_capacity(__n);
                    for __k in 0..__n {
                        let __b = &__b[__k * __el..(__k + 1) * __el];
                        __v.push(#inner?);
                    }
                    Ok(__v)
                })())
            }
        }
        _ => quote!(Err(#rt::wire::WireError::Length { expected: 0, got: __b.len() })),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Mode {
    Place,
    Owned,
}

/// Values live after a statement, and how often the statement reads each.
type StmtCtx = (BTreeSet<String>, BTreeMap<String, usize>);

/// Generates Rust expressions and statements from typed `.otp` ones.
#[derive(Default)]
struct ExprGen {
    /// Rust paths of intrinsics, by name.
    paths: BTreeMap<String, String>,
    /// `move` parameters of intrinsics, by name.
    moves: BTreeMap<String, Vec<bool>>,
    /// While generating a statement: the values live after it and how often
    /// the statement reads each value (a value read once and dead afterwards
    /// is moved into a `move` parameter instead of copied).
    stmt_ctx: std::cell::RefCell<Option<StmtCtx>>,
    /// Nesting depth of comprehension closures (nothing moves out of one).
    depth: std::cell::Cell<usize>,
}

fn count_locals(e: &TExpr, out: &mut BTreeMap<String, usize>) {
    match &e.kind {
        TExprKind::Local(n) => *out.entry(n.clone()).or_default() += 1,
        TExprKind::Index(a, b) | TExprKind::Binary(_, a, b) => {
            count_locals(a, out);
            count_locals(b, out);
        }
        TExprKind::Call(_, args) | TExprKind::Array(args) => {
            args.iter().for_each(|a| count_locals(a, out))
        }
        TExprKind::Unary(_, a) => count_locals(a, out),
        TExprKind::Comprehension { body, lo, hi, .. } => {
            count_locals(body, out);
            count_locals(lo, out);
            count_locals(hi, out);
        }
        _ => {}
    }
}

impl ExprGen {
    /// Generates a statement knowing which values are live after it.
    fn stmt_live(&self, s: &TStmt, role: &str, live: &BTreeSet<String>) -> TokenStream {
        let mut counts = BTreeMap::new();
        let (TStmt::Assign(_, e) | TStmt::Check(e, _, _)) = s;
        count_locals(e, &mut counts);
        *self.stmt_ctx.borrow_mut() = Some((live.clone(), counts));
        let out = self.stmt(s, role);
        *self.stmt_ctx.borrow_mut() = None;
        out
    }

    /// An argument for a `move` parameter: the value itself when this is its
    /// last read (outside any closure), else a copy.
    fn moved_arg(&self, a: &TExpr) -> TokenStream {
        if let TExprKind::Local(n) = &a.kind {
            let ctx = self.stmt_ctx.borrow();
            let last_use = ctx
                .as_ref()
                .map(|(live, counts)| !live.contains(n) && counts.get(n) == Some(&1))
                .unwrap_or(false);
            if last_use && self.depth.get() == 0 {
                let i = id(n);
                return quote!(#i);
            }
        }
        self.owned(a)
    }

    fn gen(&self, e: &TExpr) -> (TokenStream, Mode) {
        let rt = rt();
        match &e.kind {
            TExprKind::Int(v) => {
                let lit = match e.ty {
                    Ty::U64 => Literal::u64_suffixed(*v as u64),
                    _ => Literal::usize_suffixed(*v as usize),
                };
                (quote!(#lit), Mode::Owned)
            }
            TExprKind::Bool(b) => (quote!(#b), Mode::Owned),
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
            TExprKind::Call(name, args) => {
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
                (quote!(#path(#(#args),*)), Mode::Owned)
            }
            TExprKind::Binary(op, a, b) => {
                // Blocks (check values, seeds) and bit vectors are compared
                // in constant time: `check` on a secret must not leak
                // through timing where the values first differ.
                let secret_eq = matches!(op, BinOp::Eq | BinOp::Ne)
                    && matches!(
                        (&a.ty, &b.ty),
                        (Ty::Block | Ty::Seed, Ty::Block | Ty::Seed) | (Ty::Bits(_), Ty::Bits(_))
                    );
                if secret_eq {
                    let (x, y) = (self.by_ref(a), self.by_ref(b));
                    let eq = quote!(#rt::ops::ct_eq(#x, #y));
                    let t = if *op == BinOp::Eq {
                        quote!((#eq))
                    } else {
                        quote!((!#eq))
                    };
                    return (t, Mode::Owned);
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
                let t = match op {
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
                    BinOp::Add if a.ty.is_int() => quote!((#x).wrapping_add(#y)),
                    BinOp::Sub if a.ty.is_int() => quote!((#x).wrapping_sub(#y)),
                    BinOp::Mul if a.ty.is_int() => quote!((#x).wrapping_mul(#y)),
                    BinOp::Add => quote!((#x + #y)),
                    BinOp::Sub => quote!((#x - #y)),
                    BinOp::Mul => quote!((#x * #y)),
                    BinOp::Div => quote!((#x).checked_div(#y).unwrap_or(0)),
                    BinOp::Rem => quote!((#x).checked_rem(#y).unwrap_or(0)),
                };
                (t, Mode::Owned)
            }
            TExprKind::Unary(op, a) => {
                let x = self.owned(a);
                let t = match (op, &a.ty) {
                    (UnOp::Not, Ty::Block) => quote!((#x ^ #rt::Block::ONES)),
                    (UnOp::Not, _) => quote!((!#x)),
                    (UnOp::Neg, _) => quote!((-#x)),
                };
                (t, Mode::Owned)
            }
            TExprKind::Sample(t) => (self.sample(t), Mode::Owned),
            TExprKind::Shape(sh) => (shape(sh), Mode::Owned),
            TExprKind::Comprehension { body, var, lo, hi } => {
                let v = id(var);
                self.depth.set(self.depth.get() + 1);
                let body = self.owned(body);
                self.depth.set(self.depth.get() - 1);
                let lo_t = self.owned(lo);
                let hi_t = self.owned(hi);
                match &e.ty {
                    Ty::Array(_, s) if s.small().is_some() => {
                        let n = Literal::usize_unsuffixed(s.small().unwrap_or(0));
                        (
                            quote!(::core::array::from_fn::<_, #n, _>(|#v: usize| { let #v: usize = #v + #lo_t; #body })),
                            Mode::Owned,
                        )
                    }
                    _ => (
                        quote!((#lo_t..#hi_t).map(|#v: usize| #body).collect::<::std::vec::Vec<_>>()),
                        Mode::Owned,
                    ),
                }
            }
            TExprKind::Array(items) => {
                let items: Vec<TokenStream> = items.iter().map(|i| self.owned(i)).collect();
                (quote!([#(#items),*]), Mode::Owned)
            }
        }
    }

    fn sample(&self, t: &Ty) -> TokenStream {
        let rt = rt();
        match t {
            Ty::Scalar => quote!(#rt::ec::random_scalar(&mut rng)),
            Ty::Point => quote!(#rt::ec::random_point(&mut rng)),
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
                quote!(<#ty as #rt::rng::Sample>::sample(&mut rng))
            }
        }
    }

    /// An argument of an intrinsic or sub-protocol call: scalars by value,
    /// arrays, bit vectors, matrices and extern values by reference.
    fn arg(&self, e: &TExpr) -> TokenStream {
        if e.ty.is_copy() && !matches!(e.ty, Ty::Array(..)) {
            self.owned(e)
        } else {
            self.by_ref(e)
        }
    }

    fn owned(&self, e: &TExpr) -> TokenStream {
        let (t, m) = self.gen(e);
        if m == Mode::Place && !e.ty.is_copy() {
            quote!(::core::clone::Clone::clone(&#t))
        } else {
            t
        }
    }

    fn by_ref(&self, e: &TExpr) -> TokenStream {
        let (t, m) = self.gen(e);
        match m {
            Mode::Place => quote!(&#t),
            Mode::Owned => quote!(&(#t)),
        }
    }

    fn stmt(&self, s: &TStmt, role: &str) -> TokenStream {
        match s {
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

/// The role values an expression reads.
pub fn locals_of(e: &TExpr, out: &mut BTreeSet<String>) {
    locals_in(e, out)
}

fn locals_in(e: &TExpr, out: &mut BTreeSet<String>) {
    let mut counts = BTreeMap::new();
    count_locals(e, &mut counts);
    out.extend(counts.into_keys());
}

fn uses_rng(e: &TExpr) -> bool {
    match &e.kind {
        TExprKind::Sample(_) => true,
        TExprKind::Index(a, b) | TExprKind::Binary(_, a, b) => uses_rng(a) || uses_rng(b),
        TExprKind::Call(_, args) | TExprKind::Array(args) => args.iter().any(uses_rng),
        TExprKind::Unary(_, a) => uses_rng(a),
        TExprKind::Comprehension { body, lo, hi, .. } => {
            uses_rng(body) || uses_rng(lo) || uses_rng(hi)
        }
        _ => false,
    }
}

/// The set-up and the per-chunk body of a [`Stream`] (see `Event::Stream`):
/// buffers for every stage, then per chunk `__off..__off + __len` the
/// stages before the send, the send or receive of the field's chunk, and
/// the stages after it. Each stage calls its intrinsic's chunk variant with
/// streamed arguments replaced by their chunk (and arrays of the round's
/// width by their slice), then `offset, len, out`.
fn stream_loop(
    ir: &Ir,
    eg: &ExprGen,
    st: &Stream,
    claims: &BTreeMap<String, String>,
) -> (TokenStream, TokenStream) {
    let rt = rt();
    let rd = &ir.rounds[st.round];
    let rn = &rd.name;
    let (field, fty) = &rd.fields[0];
    let (rows, cols) = chunk_dims(fty);
    let width = match fty {
        Ty::BitMatrix(_, c) => c.clone(),
        Ty::Array(_, n) => n.clone(),
        _ => Shape::Lit(0),
    };
    let by = rd
        .chunk_by
        .as_ref()
        .map(shape)
        .unwrap_or_else(|| quote!(1usize));
    let mut setup = vec![quote! {
        let __rows: usize = #rows;
        let __total: usize = #cols;
        let __by: usize = (#by).max(1);
    }];
    // How each streamed value is kept.
    let mut kept: BTreeMap<String, (Keep, Ty)> = BTreeMap::new();
    if !st.sending {
        kept.insert(field.clone(), (Keep::Chunk, fty.clone()));
    }
    let view = |n: &str, kept: &BTreeMap<String, (Keep, Ty)>| -> Option<TokenStream> {
        let (keep, ty) = kept.get(n)?;
        let i = id(n);
        let c = format_ident!("__c_{}", n);
        Some(match (keep, ty) {
            (Keep::Chunk, Ty::BitMatrix(..)) => quote!(&#c),
            (Keep::Chunk, _) => quote!(&#c[..]),
            _ => quote!(&#i[__off.min(#i.len())..(__off + __len).min(#i.len())]),
        })
    };
    // Values that some stage of this stream reads (chunk by chunk).
    let mut read_in_stream = BTreeSet::new();
    st.before
        .iter()
        .chain(&st.after)
        .for_each(|s| locals_in(&s.call, &mut read_in_stream));
    let stage_code = |stage: &Stage,
                      si: usize,
                      kept: &mut BTreeMap<String, (Keep, Ty)>,
                      setup: &mut Vec<TokenStream>|
     -> TokenStream {
        let (path, args) = match &stage.call.kind {
            TExprKind::Call(p, a) => (p.clone(), a.clone()),
            _ => (String::new(), vec![]),
        };
        let cpath = ir.chunk_paths.get(&path).cloned().unwrap_or_default();
        let cpath: TokenStream = path_tokens(&cpath, quote!(missing_path));
        let mut call_args = vec![];
        for (j, a) in args.iter().enumerate() {
            if let TExprKind::Local(n) = &a.kind {
                if let Some(v) = view(n, kept) {
                    call_args.push(v);
                    continue;
                }
            }
            let bound = format_ident!("__a{}_{}", si, j);
            if matches!(&a.ty, Ty::Array(_, n) if *n == width) {
                let v = eg.by_ref(a);
                setup.push(quote!(let #bound = #v;));
                call_args.push(
                    quote!(&#bound[__off.min(#bound.len())..(__off + __len).min(#bound.len())]),
                );
            } else if matches!(
                a.kind,
                TExprKind::Local(_) | TExprKind::Param(_) | TExprKind::Int(_) | TExprKind::Bool(_)
            ) {
                call_args.push(eg.arg(a));
            } else {
                let v = eg.owned(a);
                setup.push(quote!(let #bound = #v;));
                call_args.push(if a.ty.is_copy() && !matches!(a.ty, Ty::Array(..)) {
                    quote!(#bound)
                } else {
                    quote!(&#bound)
                });
            }
        }
        let name = &stage.name;
        let i = id(name);
        let c = format_ident!("__c_{}", name);
        let nlen = format_ident!("__n_{}", name);
        let code = match (&stage.keep, &stage.call.ty) {
            (Keep::Fold, ty) => {
                let t = rust_ty(ty);
                setup.push(quote!(let mut #i: #t = ::core::default::Default::default();));
                quote!(#cpath(#(#call_args,)* __off, __len, &mut #i);)
            }
            (Keep::Chunk, Ty::BitMatrix(..)) => {
                setup.push(
                    quote!(let mut #c: #rt::BitMatrix = ::core::default::Default::default();),
                );
                quote!(#cpath(#(#call_args,)* __off, __len, &mut #c);)
            }
            (Keep::Chunk, ty) => {
                let n = match ty {
                    Ty::Array(_, n) => shape(n),
                    _ => quote!(0usize),
                };
                let t = rust_ty(ty);
                setup.push(quote! {
                    let #nlen: usize = #n;
                    let mut #c: #t = ::std::vec::Vec::new();
                });
                quote! {
                    #c.resize((__off + __len).min(#nlen) - __off.min(#nlen), ::core::default::Default::default());
                    #cpath(#(#call_args,)* __off, __len, &mut #c[..]);
                }
            }
            (Keep::Whole, ty) => {
                let n = match ty {
                    Ty::Array(_, n) => shape(n),
                    _ => quote!(0usize),
                };
                let t = rust_ty(ty);
                let take = match claims.get(name) {
                    Some(f) => {
                        let f = id(f);
                        quote!(bufs.as_mut().map(|__b| ::core::mem::take(&mut __b.#f)).unwrap_or_default())
                    }
                    None => quote!(scratch.take(#name)),
                };
                setup.push(quote! {
                    let #nlen: usize = #n;
                    if #nlen > __total {
                        return Err(Error::Shape { round: #rn, field: #name, expected: __total, got: #nlen });
                    }
                    let mut #i: #t = #take;
                    #i.resize(#nlen, ::core::default::Default::default());
                });
                if read_in_stream.contains(name) {
                    // A later stage reads the chunk back at once: exactly
                    // the chunk, so the kernel keeps it in cache.
                    quote!(#cpath(#(#call_args,)* __off, __len, &mut #i[__off.min(#nlen)..(__off + __len).min(#nlen)]);)
                } else {
                    // The rest of the array from the chunk's start: the
                    // kernel writes its first `__len` entries, and the
                    // length tells it how much of the destination is still
                    // to come (see the chunk-variant convention in
                    // protocols/prelude.otp).
                    quote!(#cpath(#(#call_args,)* __off, __len, &mut #i[__off.min(#nlen)..]);)
                }
            }
        };
        if stage.keep != Keep::Fold {
            kept.insert(name.clone(), (stage.keep, stage.call.ty.clone()));
        }
        code
    };
    let mut per_chunk = vec![];
    let fc = format_ident!("__c_{}", field);
    if !st.sending {
        // Receive the chunk into a reused buffer and decode it in place.
        let (chunk_len, decode, init) = match fty {
            Ty::Array(elem, _) => {
                let ety = rust_ty(elem);
                (
                    quote!(__len.wrapping_mul(<#ety as #rt::wire::Wire>::SIZE)),
                    quote!(#rt::wire::read_vec_into::<#ety>(&__buf, __len, &mut #fc)),
                    quote!(let mut #fc: ::std::vec::Vec<#ety> = ::std::vec::Vec::new();),
                )
            }
            _ => (
                quote!(__rows.wrapping_mul(__len.div_ceil(128)).wrapping_mul(16)),
                quote!(),
                quote!(let mut #fc: #rt::BitMatrix = ::core::default::Default::default();),
            ),
        };
        if block_shaped(fty) {
            // Blocks are received straight into the chunk's storage.
            setup.push(init);
            per_chunk.push(quote! {
                let __want = #chunk_len;
                let __got = ch
                    .recv_into_slice(#rt::wire::blocks_recv_buffer(&mut #fc, __len))
                    .map_err(|source| Error::Channel { round: #rn, source })?;
                if __got != __want {
                    return Err(Error::Length { round: #rn, expected: __want, got: __got });
                }
                #rt::wire::finish_blocks_in_place(&mut #fc[..]);
            });
        } else if matches!(fty, Ty::Array(..)) {
            setup.push(quote! {
                #init
                let mut __buf: ::std::vec::Vec<u8> = ::std::vec::Vec::new();
            });
            per_chunk.push(quote! {
                let __want = #chunk_len;
                ch.recv_into(&mut __buf, __want).map_err(|source| Error::Channel { round: #rn, source })?;
                if __buf.len() != __want {
                    return Err(Error::Length { round: #rn, expected: __want, got: __buf.len() });
                }
                #decode.map_err(|source| Error::Decode { round: #rn, field: #field, source })?;
            });
        } else {
            // A matrix chunk is received straight into the matrix's storage.
            setup.push(init);
            per_chunk.push(quote! {
                let __want = #chunk_len;
                #fc.reset(__rows, __len);
                let __got = ch
                    .recv_into_slice(#rt::Block::slice_as_bytes_mut(#fc.as_blocks_mut()))
                    .map_err(|source| Error::Channel { round: #rn, source })?;
                if __got != __want {
                    return Err(Error::Length { round: #rn, expected: __want, got: __got });
                }
                #rt::wire::finish_bit_matrix_in_place(&mut #fc)
                    .map_err(|source| Error::Decode { round: #rn, field: #field, source })?;
            });
        }
    }
    let mut si = 0;
    for stage in &st.before {
        per_chunk.push(stage_code(stage, si, &mut kept, &mut setup));
        si += 1;
    }
    if st.sending {
        let send = match fty {
            Ty::Array(..) if block_shaped(fty) => quote! {
                if #fc.len() != __len {
                    return Err(Error::Shape { round: #rn, field: #field, expected: __len, got: #fc.len() });
                }
                ch.send(&#rt::wire::block_bytes(&#fc)).map_err(|source| Error::Channel { round: #rn, source })?;
            },
            Ty::Array(..) => {
                setup.push(quote!(let mut __bytes: ::std::vec::Vec<u8> = ::std::vec::Vec::new();));
                quote! {
                    if #fc.len() != __len {
                        return Err(Error::Shape { round: #rn, field: #field, expected: __len, got: #fc.len() });
                    }
                    __bytes.clear();
                    #rt::wire::write_slice(&#fc, &mut __bytes);
                    ch.send(&__bytes).map_err(|source| Error::Channel { round: #rn, source })?;
                }
            }
            _ => {
                let check = quote! {
                    if #fc.rows() != __rows || #fc.cols() != __len {
                        return Err(Error::Shape { round: #rn, field: #field, expected: __len, got: #fc.cols() });
                    }
                };
                let mut read_after = BTreeSet::new();
                st.after
                    .iter()
                    .for_each(|s| locals_in(&s.call, &mut read_after));
                if read_after.contains(field) {
                    quote! {
                        #check
                        ch.send(#rt::Block::slice_as_bytes(#fc.as_blocks())).map_err(|source| Error::Channel { round: #rn, source })?;
                    }
                } else {
                    // Nothing reads the chunk after the send: the channel may
                    // take its storage (no copy) and lend back a spent one,
                    // which the next chunk's producer overwrites.
                    quote! {
                        #check
                        #fc.lend_storage(|__v| ch.send_blocks(__v)).map_err(|source| Error::Channel { round: #rn, source })?;
                    }
                }
            }
        };
        per_chunk.push(send);
    }
    for stage in &st.after {
        per_chunk.push(stage_code(stage, si, &mut kept, &mut setup));
        si += 1;
    }
    (quote!(#(#setup)*), quote!(#(#per_chunk)*))
}

/// The whole streamed arrays of a role that no output buffer takes
/// (see [`output_claims`]) and that are never moved into a `move`
/// parameter: their buffers are taken from and given back to the role's
/// [`Scratch`](ot_runtime::session::Scratch) so that they survive to the
/// next run.
fn scratch_keys(ir: &Ir, ri: usize, claims: &BTreeMap<String, String>) -> BTreeSet<String> {
    let mut moved = BTreeSet::new();
    for e in &ir.events[ri] {
        match e {
            Event::Stmt(TStmt::Assign(_, x)) | Event::Stmt(TStmt::Check(x, _, _)) => {
                note_moved(ir, x, &mut moved)
            }
            Event::Stream(st) => st
                .before
                .iter()
                .chain(&st.after)
                .for_each(|s| note_moved(ir, &s.call, &mut moved)),
            Event::Send(r) => moved.extend(ir.rounds[*r].fields.iter().map(|(n, _)| n.clone())),
            _ => {}
        }
    }
    ir.events[ri]
        .iter()
        .filter_map(|e| match e {
            Event::Stream(st) => Some(st.before.iter().chain(&st.after)),
            _ => None,
        })
        .flatten()
        .filter(|s| {
            s.keep == Keep::Whole && !claims.contains_key(&s.name) && !moved.contains(&s.name)
        })
        .map(|s| s.name.clone())
        .collect()
}

/// Locals passed to a `move` parameter anywhere in `e`.
fn note_moved(ir: &Ir, e: &TExpr, out: &mut BTreeSet<String>) {
    match &e.kind {
        TExprKind::Call(path, args) => {
            let moves = ir.moved_args.get(path);
            for (i, a) in args.iter().enumerate() {
                if moves.and_then(|m| m.get(i)).copied().unwrap_or(false) {
                    if let TExprKind::Local(n) = &a.kind {
                        out.insert(n.clone());
                    }
                }
                note_moved(ir, a, out);
            }
        }
        TExprKind::Index(a, b) | TExprKind::Binary(_, a, b) => {
            note_moved(ir, a, out);
            note_moved(ir, b, out);
        }
        TExprKind::Unary(_, a) => note_moved(ir, a, out),
        TExprKind::Array(items) => items.iter().for_each(|a| note_moved(ir, a, out)),
        TExprKind::Comprehension { body, lo, hi, .. } => {
            note_moved(ir, body, out);
            note_moved(ir, lo, out);
            note_moved(ir, hi, out);
        }
        _ => {}
    }
}

/// The statements that give the scratch buffers dying in a step back to the
/// role's scratch: those held at the step's start or assembled by its
/// stream, and not carried into the next state.
fn give_back(
    keys: &BTreeSet<String>,
    held: &[(String, Ty)],
    next: &[(String, Ty)],
    event: &Event,
) -> TokenStream {
    let mut alive: BTreeSet<&str> = held.iter().map(|(n, _)| n.as_str()).collect();
    if let Event::Stream(st) = event {
        alive.extend(
            st.before
                .iter()
                .chain(&st.after)
                .filter(|s| s.keep == Keep::Whole)
                .map(|s| s.name.as_str()),
        );
    }
    let gives = keys
        .iter()
        .filter(|k| alive.contains(k.as_str()) && !next.iter().any(|(n, _)| n == *k))
        .map(|k| {
            let i = id(k);
            quote!(scratch.put(#k, #i);)
        });
    quote!(#(#gives)*)
}

/// Whether a streamed array field holds blocks or arrays of blocks, whose
/// wire form is their memory (`ot_runtime::wire::BlockShaped`).
fn block_shaped(fty: &Ty) -> bool {
    match fty {
        Ty::Array(elem, _) => match &**elem {
            Ty::Block => true,
            Ty::Array(inner, n) => matches!(**inner, Ty::Block) && n.small().is_some(),
            _ => false,
        },
        _ => false,
    }
}

/// Which output buffer each whole streamed array of a role writes into when
/// the caller hands over earlier outputs (`reuse_outputs`): its own output
/// of the same name, else an unclaimed output of the same Rust type.
fn output_claims(ir: &Ir, ri: usize) -> BTreeMap<String, String> {
    let whole: Vec<(String, Ty)> = ir.events[ri]
        .iter()
        .filter_map(|e| match e {
            Event::Stream(st) => Some(st.before.iter().chain(&st.after)),
            _ => None,
        })
        .flatten()
        .filter(|s| s.keep == Keep::Whole)
        .map(|s| (s.name.clone(), s.call.ty.clone()))
        .collect();
    let outputs = &ir.outputs[ri];
    let mut claims = BTreeMap::new();
    for (n, _) in &whole {
        if outputs.iter().any(|(o, _)| o == n) {
            claims.insert(n.clone(), n.clone());
        }
    }
    for (n, t) in &whole {
        if claims.contains_key(n) {
            continue;
        }
        let rt_ty = rust_ty(t).to_string();
        if let Some((o, _)) = outputs.iter().find(|(o, ot)| {
            rust_ty(ot).to_string() == rt_ty
                && !claims.values().any(|c| c == o)
                && !whole.iter().any(|(w, _)| w == o)
        }) {
            claims.insert(n.clone(), o.clone());
        }
    }
    claims
}

/// One state of a role: the communication event it waits on (None: done).
struct StateInfo {
    name: Ident,
    event: Option<usize>,
    /// Index of the first event whose computation belongs to this state's
    /// step: right after a plain send (so the message is transmitted before
    /// the sender goes on computing), else the state's own event.
    entry: usize,
    /// Values carried in this state.
    vars: Vec<(String, Ty)>,
    doc: String,
}

/// Generates the items of one protocol module.
pub fn generate(ir: &Ir) -> TokenStream {
    let rt = rt();
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

    // ---- Params ----
    let pfields: Vec<TokenStream> = ir
        .params
        .iter()
        .map(|p| {
            let n = id(&p.name);
            let t = rust_ty(&p.ty);
            quote!(#n: #t)
        })
        .collect();
    let pargs = pfields.clone();
    let pnames: Vec<Ident> = ir.params.iter().map(|p| id(&p.name)).collect();
    let pgetters = ir.params.iter().map(|p| {
        let n = id(&p.name);
        let t = rust_ty(&p.ty);
        let doc = format!("The parameter `{}`.", p.name);
        quote!(#[doc = #doc] pub fn #n(&self) -> #t { self.#n })
    });
    let eg = ExprGen {
        paths: ir.intrinsic_paths.clone(),
        moves: ir.moved_args.clone(),
        ..ExprGen::default()
    };
    let requires = ir
        .params
        .iter()
        .filter_map(|p| p.requires.as_ref())
        .map(|(e, text)| {
            let c = eg.owned(e);
            quote!(if !(#c) { return Err(Error::Params { requirement: #text }); })
        });

    // ---- Comm ----
    let comm_fields: Vec<Ident> = ir
        .roles
        .iter()
        .map(|r| format_ident!("{}", snake(r)))
        .collect();
    let comm_sums = (0..ir.roles.len()).map(|ri| {
        let parts = ir.rounds.iter().filter(|r| r.from == ri).map(|r| {
            let m = format_ident!("{}", r.msg);
            quote!(msgs::#m::wire_len(params))
        });
        quote!(0usize #(.wrapping_add(#parts))*)
    });
    let comm_docs = ir
        .roles
        .iter()
        .map(|r| format!("Bytes of protocol messages sent by `{r}` (frame headers not included)."));

    // ---- messages ----
    let msgs = ir.rounds.iter().map(|r| {
        let m = format_ident!("{}", r.msg);
        let rn = &r.name;
        let doc = format!("Message of round `{}` (`{}`): `{}`", r.name, r.location, r.text);
        let fnames: Vec<Ident> = r.fields.iter().map(|(n, _)| id(n)).collect();
        let ftys: Vec<TokenStream> = r.fields.iter().map(|(_, t)| rust_ty(t)).collect();
        let fdocs: Vec<String> = r.fields.iter().map(|(n, t)| format!("`{n}: {t}`")).collect();
        let lens: Vec<TokenStream> = r.fields.iter().map(|(_, t)| wire_len(t)).collect();
        let checks: Vec<TokenStream> = r.fields.iter().map(|(n, t)| check_shape(t, &{ let i = id(n); quote!(self.#i) }, rn, n)).collect();
        let writes: Vec<TokenStream> = r.fields.iter().map(|(n, t)| write_value(t, &{ let i = id(n); quote!((&self.#i)) })).collect();
        let reads: Vec<TokenStream> = r.fields.iter().map(|(n, t)| {
            let i = id(n);
            let len = wire_len(t);
            let read = read_value(t);
            quote!(
                let __len = #len;
                let __b = &bytes[__off..__off + __len];
                __off += __len;
                let #i = #read.map_err(|source| Error::Decode { round: #rn, field: #n, source })?;
            )
        }).collect();
        quote! {
            #[doc = #doc]
            #[derive(Clone, Debug, PartialEq)]
            pub struct #m { #( #[doc = #fdocs] pub #fnames: #ftys, )* }
            impl #m {
                /// The round this message belongs to.
                pub const ROUND: &'static str = #rn;
                /// Exact encoded length in bytes for these parameters.
                #[allow(unused_variables)]
                pub fn wire_len(params: &Params) -> usize { 0usize #(.wrapping_add(#lens))* }
                /// Appends the encoding; fails if a value's length does not match its declared shape.
                #[allow(unused_variables)]
                pub fn encode(&self, params: &Params, out: &mut ::std::vec::Vec<u8>) -> Result<(), Error> {
                    #(#checks)*
                    out.reserve(Self::wire_len(params));
                    #(#writes)*
                    Ok(())
                }
                /// Decodes and validates a message; never panics on any input.
                #[allow(unused_variables, unused_assignments)]
                pub fn decode(bytes: &[u8], params: &Params) -> Result<Self, Error> {
                    let __want = Self::wire_len(params);
                    if bytes.len() != __want {
                        return Err(Error::Length { round: #rn, expected: __want, got: bytes.len() });
                    }
                    let mut __off = 0usize;
                    #(#reads)*
                    Ok(#m { #(#fnames),* })
                }
            }
        }
    });

    // ---- errors ----
    let abort_variants = ir.aborts.iter().map(|(n, text)| {
        let v = id(n);
        let doc = format!("The check `{text}` failed: the peer cheated or sent inconsistent data.");
        quote!(#[doc = #doc] #v { #[doc = "The role that aborted."] role: &'static str, #[doc = "The failed check (`file:line: text`)."] check: &'static str })
    });
    let abort_display = ir.aborts.iter().map(|(n, _)| {
        let v = id(n);
        let fmt = format!("{pname}: `{{role}}` aborted with {n}: check failed at {{check}}");
        quote!(Error::#v { role, check } => write!(f, #fmt))
    });

    // ---- roles ----
    let mut role_items = vec![];
    let mut transcripts = vec![];
    let mut first_states = vec![];
    let mut party_impls = vec![];
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
    for (ri, rname) in ir.roles.iter().enumerate() {
        let role = id(rname);
        let input = format_ident!("{}Input", rname);
        let output = format_ident!("{}Output", rname);
        let events = &ir.events[ri];
        let claims = output_claims(ir, ri);
        let scratch_keys = scratch_keys(ir, ri, &claims);
        // Types of values.
        let mut types: BTreeMap<String, Ty> = BTreeMap::new();
        for (n, t) in &ir.inputs[ri] {
            types.insert(n.clone(), t.clone());
        }
        for ev in events {
            match ev {
                Event::Stmt(TStmt::Assign(n, e)) => {
                    types.insert(n.clone(), e.ty.clone());
                }
                Event::Recv(k) => {
                    for (n, t) in &ir.rounds[*k].fields {
                        types.insert(n.clone(), t.clone());
                    }
                }
                Event::Sub(k) => {
                    for c in ir.subs[*k].calls.iter().filter(|c| c.role == ri) {
                        for (n, t) in &c.outputs {
                            types.insert(n.clone(), t.clone());
                        }
                    }
                }
                Event::Stream(st) => {
                    for stage in st.before.iter().chain(&st.after) {
                        types.insert(stage.name.clone(), stage.call.ty.clone());
                    }
                }
                _ => {}
            }
        }
        // Uses at or after each event index.
        let mut used_after: Vec<BTreeSet<String>> = vec![BTreeSet::new(); events.len() + 1];
        let mut acc: BTreeSet<String> = ir.outputs[ri].iter().map(|(n, _)| n.clone()).collect();
        used_after[events.len()] = acc.clone();
        for (k, ev) in events.iter().enumerate().rev() {
            match ev {
                Event::Stmt(TStmt::Assign(_, e)) | Event::Stmt(TStmt::Check(e, _, _)) => {
                    locals_in(e, &mut acc)
                }
                Event::Send(r) => acc.extend(ir.rounds[*r].fields.iter().map(|(n, _)| n.clone())),
                Event::Sub(k) => {
                    for c in ir.subs[*k].calls.iter().filter(|c| c.role == ri) {
                        c.args.iter().for_each(|a| locals_in(a, &mut acc));
                    }
                }
                Event::Stream(st) => {
                    let mut used = BTreeSet::new();
                    for stage in st.before.iter().chain(&st.after) {
                        locals_in(&stage.call, &mut used);
                    }
                    for stage in st.before.iter().chain(&st.after) {
                        used.remove(&stage.name);
                    }
                    for (n, _) in &ir.rounds[st.round].fields {
                        used.remove(n);
                    }
                    acc.extend(used);
                }
                _ => {}
            }
            used_after[k] = acc.clone();
        }
        // States at each communication event.
        let comm_idx: Vec<usize> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| !matches!(e, Event::Stmt(_)))
            .map(|(i, _)| i)
            .collect();
        let mut defined: BTreeSet<String> = ir.inputs[ri].iter().map(|(n, _)| n.clone()).collect();
        let mut states: Vec<StateInfo> = vec![];
        let mut cursor = 0;
        let mut prev_send: Option<usize> = None;
        for &ci in comm_idx.iter().chain(std::iter::once(&events.len())) {
            let entry = prev_send.map(|e| e + 1).unwrap_or(ci);
            for ev in &events[cursor..entry] {
                if let Event::Stmt(TStmt::Assign(n, _)) = ev {
                    defined.insert(n.clone());
                }
            }
            let vars: Vec<(String, Ty)> = defined
                .iter()
                .filter(|n| used_after[entry].contains(*n))
                .map(|n| (n.clone(), types.get(n).cloned().unwrap_or(Ty::Bit)))
                .collect();
            let (name, doc) = match events.get(ci) {
                Some(Event::Send(r))
                | Some(Event::Stream(Stream {
                    round: r,
                    sending: true,
                    ..
                })) => {
                    let rd = &ir.rounds[*r];
                    (
                        format_ident!("Send{}", rd.msg),
                        format!(
                            "`{rname}` is ready to send `{}` (round `{}`, `{}`).",
                            rd.msg, rd.name, rd.location
                        ),
                    )
                }
                Some(Event::Recv(r))
                | Some(Event::Stream(Stream {
                    round: r,
                    sending: false,
                    ..
                })) => {
                    let rd = &ir.rounds[*r];
                    (
                        format_ident!("Await{}", rd.msg),
                        format!(
                            "`{rname}` waits for `{}` (round `{}`, `{}`).",
                            rd.msg, rd.name, rd.location
                        ),
                    )
                }
                Some(Event::Sub(s)) => (
                    format_ident!("Run{}", camel(&ir.subs[*s].name)),
                    format!("`{rname}` runs sub-protocol `{}`.", ir.subs[*s].name),
                ),
                _ => (
                    format_ident!("Done"),
                    format!("`{rname}` has finished; call `finish` for its output."),
                ),
            };
            if let Some(Event::Recv(r)) = events.get(ci) {
                for (n, _) in &ir.rounds[*r].fields {
                    defined.insert(n.clone());
                }
            }
            if let Some(Event::Sub(k)) = events.get(ci) {
                for c in ir.subs[*k].calls.iter().filter(|c| c.role == ri) {
                    defined.extend(c.outputs.iter().map(|(n, _)| n.clone()));
                }
            }
            if let Some(Event::Stream(st)) = events.get(ci) {
                defined.extend(
                    st.before
                        .iter()
                        .chain(&st.after)
                        .filter(|s| s.keep != Keep::Chunk)
                        .map(|s| s.name.clone()),
                );
            }
            for ev in &events[entry..ci] {
                if let Event::Stmt(TStmt::Assign(n, _)) = ev {
                    defined.insert(n.clone());
                }
            }
            states.push(StateInfo {
                name,
                event: events.get(ci).map(|_| ci),
                entry,
                vars,
                doc,
            });
            prev_send = match events.get(ci) {
                Some(Event::Send(_)) => Some(ci),
                _ => None,
            };
            cursor = ci + 1;
        }
        let role_mod = format_ident!("{}_state", snake(rname));
        let state_structs = states.iter().map(|s| {
            let n = &s.name;
            let doc = &s.doc;
            let fns: Vec<Ident> = s.vars.iter().map(|(v, _)| id(v)).collect();
            let fts: Vec<TokenStream> = s.vars.iter().map(|(_, t)| rust_ty(t)).collect();
            quote!(#[doc = #doc] pub struct #n { #( pub(super) #fns: #fts, )* })
        });
        let stmts_between = |from: usize, to: usize| -> (Vec<TokenStream>, bool) {
            let mut out = vec![];
            let mut rng = false;
            for (i, ev) in events.iter().enumerate().take(to).skip(from) {
                if let Event::Stmt(s) = ev {
                    let (TStmt::Assign(_, e) | TStmt::Check(e, _, _)) = s;
                    rng |= uses_rng(e);
                    out.push(eg.stmt_live(s, rname, &used_after[i + 1]));
                }
            }
            (out, rng)
        };
        let build_state = |s: &StateInfo| {
            let n = &s.name;
            let fns: Vec<Ident> = s.vars.iter().map(|(v, _)| id(v)).collect();
            quote!(#role_mod::#n { #(#fns),* })
        };
        // new()
        let first = &states[0];
        let first_name = &first.name;
        let (init_stmts, _) = stmts_between(0, first.entry);
        let init_state = build_state(first);
        let in_names: Vec<Ident> = ir.inputs[ri].iter().map(|(n, _)| id(n)).collect();
        let in_tys: Vec<TokenStream> = ir.inputs[ri].iter().map(|(_, t)| rust_ty(t)).collect();
        let in_docs: Vec<String> = ir.inputs[ri]
            .iter()
            .map(|(n, t)| format!("`{n}: {t}`"))
            .collect();
        let in_checks2: Vec<TokenStream> = ir.inputs[ri]
            .iter()
            .map(|(n, t)| {
                let i = id(n);
                check_shape(t, &quote!(#i), "input", n)
            })
            .collect();
        let out_names: Vec<Ident> = ir.outputs[ri].iter().map(|(n, _)| id(n)).collect();
        let out_tys: Vec<TokenStream> = ir.outputs[ri].iter().map(|(_, t)| rust_ty(t)).collect();
        let out_docs: Vec<String> = ir.outputs[ri]
            .iter()
            .map(|(n, t)| format!("`{n}: {t}`"))
            .collect();
        let input_doc = format!("Inputs of `{rname}` in `{pname}`.");
        let output_doc = format!("Outputs of `{rname}` in `{pname}`.");
        let role_doc = format!("Role `{rname}` of `{pname}` (`{}`), as a typestate: each method performs one step of the round flow and returns the role in its next state.", ir.location);
        let new_doc = format!("Starts `{rname}`: checks input shapes and runs its local computation up to its first communication step.");
        let mut steps = vec![];
        let mut driver = vec![];
        let mut transcript = vec![];
        for (si, s) in states.iter().enumerate() {
            let Some(ei) = s.event else { continue };
            let next = &states[si + 1];
            let next_name = &next.name;
            // Computation of this state that was deferred past the previous send,
            // then the computation after this event up to the next state's entry.
            let (prologue, _) = stmts_between(s.entry, ei);
            let (body, _) = stmts_between(ei + 1, next.entry);
            let cur = &s.name;
            let cur_fields: Vec<Ident> = s.vars.iter().map(|(v, _)| id(v)).collect();
            let next_state = build_state(next);
            let gives = give_back(&scratch_keys, &s.vars, &next.vars, &events[ei]);
            match &events[ei] {
                Event::Send(r) => {
                    let rd = &ir.rounds[*r];
                    let m = format_ident!("{}", rd.msg);
                    let method = format_ident!("send_{}", rd.name);
                    let rn = &rd.name;
                    let live_after = &used_after[ei + 1];
                    let fields = rd.fields.iter().map(|(n, t)| {
                        let i = id(n);
                        if live_after.contains(n) && !t.is_copy() {
                            quote!(#i: ::core::clone::Clone::clone(&#i))
                        } else {
                            quote!(#i)
                        }
                    });
                    let doc = format!("Round `{}` (`{}`): `{}`. Builds `{}`, then runs `{rname}`'s local computation up to its next step.", rd.name, rd.location, rd.text, rd.msg);
                    steps.push(quote! {
                        impl #role<#role_mod::#cur> {
                            #[doc = #doc]
                            #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                            pub fn #method(self) -> Result<(msgs::#m, #role<#role_mod::#next_name>), Error> {
                                let #role { params, mut rng, subs, st, mut bufs, mut scratch } = self;
                                let #role_mod::#cur { #(#cur_fields),* } = st;
                                #(#prologue)*
                                let __msg = msgs::#m { #(#fields),* };
                                #(#body)*
                                #gives
                                Ok((__msg, #role { params, rng, subs, st: #next_state, bufs, scratch }))
                            }
                        }
                        impl Outgoing<#role<#role_mod::#cur>> for msgs::#m {
                            type Next = #role<#role_mod::#next_name>;
                            fn produce(role: #role<#role_mod::#cur>) -> Result<(Self, Self::Next), Error> { role.#method() }
                        }
                    });
                    driver.push(quote! {
                        let (__m, __s) = __s.#method()?;
                        __buf.clear();
                        __m.encode(&__s.params, &mut __buf)?;
                        ch.send_vec(::core::mem::take(&mut __buf)).map_err(|source| Error::Channel { round: #rn, source })?;
                        ch.flush().map_err(|source| Error::Channel { round: #rn, source })?;
                    });
                    let k = *r as u16;
                    transcript.push(quote!(#rt::session::Step::Send(#k)));
                }
                Event::Recv(r) => {
                    let rd = &ir.rounds[*r];
                    let m = format_ident!("{}", rd.msg);
                    let method = format_ident!("recv_{}", rd.name);
                    let rn = &rd.name;
                    let fnames: Vec<Ident> = rd.fields.iter().map(|(n, _)| id(n)).collect();
                    let doc = format!("Round `{}` (`{}`): `{}`. Takes the peer's `{}`, then runs `{rname}`'s local computation (and checks) up to its next step.", rd.name, rd.location, rd.text, rd.msg);
                    steps.push(quote! {
                        impl #role<#role_mod::#cur> {
                            #[doc = #doc]
                            #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                            pub fn #method(self, msg: msgs::#m) -> Result<#role<#role_mod::#next_name>, Error> {
                                let #role { params, mut rng, subs, st, mut bufs, mut scratch } = self;
                                let #role_mod::#cur { #(#cur_fields),* } = st;
                                #(#prologue)*
                                let msgs::#m { #(#fnames),* } = msg;
                                #(#body)*
                                #gives
                                Ok(#role { params, rng, subs, st: #next_state, bufs, scratch })
                            }
                        }
                        impl Incoming<#role<#role_mod::#cur>> for msgs::#m {
                            type Next = #role<#role_mod::#next_name>;
                            fn deliver(self, role: #role<#role_mod::#cur>) -> Result<Self::Next, Error> { role.#method(self) }
                        }
                    });
                    driver.push(quote! {
                        let __len = msgs::#m::wire_len(&__s.params);
                        ch.recv_into(&mut __buf, __len).map_err(|source| Error::Channel { round: #rn, source })?;
                        let __m = msgs::#m::decode(&__buf, &__s.params)?;
                        let __s = __s.#method(__m)?;
                    });
                    let k = *r as u16;
                    transcript.push(quote!(#rt::session::Step::Recv(#k)));
                }
                Event::Stream(st) => {
                    let rd = &ir.rounds[st.round];
                    let method =
                        format_ident!("{}_{}", if st.sending { "send" } else { "recv" }, rd.name);
                    let rn = &rd.name;
                    let (setup, chunk_step) = stream_loop(ir, &eg, st, &claims);
                    let doc = if st.sending {
                        format!("Round `{}` (`{}`): `{}`. Streams `{}` in chunks of `{}` columns: per chunk, computes it, sends it, then runs the computations that work chunk by chunk; afterwards runs `{rname}`'s local computation up to its next step.", rd.name, rd.location, rd.text, rd.fields[0].0, rd.chunk_by.as_ref().map(|b| b.to_string()).unwrap_or_default())
                    } else {
                        format!("Round `{}` (`{}`): `{}`. Receives `{}` chunk by chunk and runs the computations that read it on each chunk as it arrives, then runs `{rname}`'s local computation (and checks) up to its next step.", rd.name, rd.location, rd.text, rd.fields[0].0)
                    };
                    let flush = if st.sending {
                        quote!(ch.flush().map_err(|source| Error::Channel { round: #rn, source })?;)
                    } else {
                        quote!()
                    };
                    steps.push(quote! {
                        impl #role<#role_mod::#cur> {
                            #[doc = #doc]
                            #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                            pub fn #method(self, ch: &mut dyn #rt::channel::Channel) -> Result<#role<#role_mod::#next_name>, Error> {
                                let #role { params, mut rng, subs, st, mut bufs, mut scratch } = self;
                                let #role_mod::#cur { #(#cur_fields),* } = st;
                                #(#prologue)*
                                #setup
                                let mut __off = 0usize;
                                while __off < __total {
                                    let __len = (__total - __off).min(__by);
                                    #chunk_step
                                    __off += __len;
                                }
                                #flush
                                #(#body)*
                                #gives
                                Ok(#role { params, rng, subs, st: #next_state, bufs, scratch })
                            }
                        }
                    });
                    driver.push(quote! {
                        let __s = __s.#method(&mut ch)?;
                    });
                    let k = st.round as u16;
                    if st.sending {
                        transcript.push(quote!(#rt::session::Step::Send(#k)));
                    } else {
                        transcript.push(quote!(#rt::session::Step::Recv(#k)));
                    }
                }
                Event::Sub(k) => {
                    let sub = &ir.subs[*k];
                    let Some(call) = sub.calls.iter().find(|c| c.role == ri) else {
                        continue;
                    };
                    let method = format_ident!("run_{}", sub.name);
                    let field = id(&sub.name);
                    let tpath: TokenStream = path_tokens(&call.trait_path, quote!(missing_trait));
                    let fmethod = format_ident!("{}", call.method);
                    let args: Vec<TokenStream> = call.args.iter().map(|a| eg.arg(a)).collect();
                    let outs: Vec<Ident> = call.outputs.iter().map(|(n, _)| id(n)).collect();
                    let otys: Vec<TokenStream> =
                        call.outputs.iter().map(|(_, t)| rust_ty(t)).collect();
                    let bind = if outs.len() == 1 {
                        quote!(let #(#outs)*: #(#otys)* = __out;)
                    } else {
                        quote!(let (#(#outs),*): (#(#otys),*) = __out;)
                    };
                    let checks: Vec<TokenStream> = call
                        .outputs
                        .iter()
                        .map(|(n, t)| {
                            let i = id(n);
                            check_shape(t, &quote!(#i), &sub.name, n)
                        })
                        .collect();
                    let call_name = sub.name.as_str();
                    let doc = format!("Sub-protocol call `{}`: runs `{}` as its role `{}` through `{}::{}` on the same channel, then `{rname}`'s local computation up to its next step.", sub.name, sub.func, call.func_role, call.trait_path, call.method);
                    steps.push(quote! {
                        impl #role<#role_mod::#cur> {
                            #[doc = #doc]
                            #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                            pub fn #method(self, ch: &mut dyn #rt::channel::Channel) -> Result<#role<#role_mod::#next_name>, Error> {
                                let #role { params, mut rng, mut subs, st, mut bufs, mut scratch } = self;
                                let #role_mod::#cur { #(#cur_fields),* } = st;
                                #(#prologue)*
                                let __out = #tpath::#fmethod(&mut *subs.#field, ch, #(#args),*)
                                    .map_err(|e| Error::SubProtocol { call: #call_name, message: e.to_string() })?;
                                #bind
                                #(#checks)*
                                #(#body)*
                                #gives
                                Ok(#role { params, rng, subs, st: #next_state, bufs, scratch })
                            }
                        }
                    });
                    driver.push(quote! {
                        let __s = __s.#method(&mut ch)?;
                    });
                    let k = *k as u16;
                    transcript.push(quote!(#rt::session::Step::Sub(#k)));
                }
                _ => {}
            }
        }
        let done_fields: Vec<Ident> = states
            .last()
            .map(|s| s.vars.iter().map(|(v, _)| id(v)).collect())
            .unwrap_or_default();
        let done_entry = states.last().map(|s| s.entry).unwrap_or(events.len());
        let (finish_stmts, _) = stmts_between(done_entry, events.len());
        let finish_gives = give_back(
            &scratch_keys,
            states.last().map(|s| s.vars.as_slice()).unwrap_or_default(),
            &[],
            &Event::Send(usize::MAX),
        );
        let run_doc = format!("Runs `{rname}` to completion over a channel (blocking driver): every message is encoded, framed, sent, received and decoded with its exact length from `Params`.");
        let t_const = format_ident!("{}_TRANSCRIPT", snake(rname).to_uppercase());
        let tdoc =
            format!("The sequence of steps of `{rname}` (projection of the global round list).");
        transcripts.push(
            quote!(#[doc = #tdoc] pub const #t_const: &[#rt::session::Step] = &[#(#transcript),*];),
        );
        first_states.push((
            role.clone(),
            first_name.clone(),
            role_mod.clone(),
            t_const.clone(),
            output.clone(),
        ));
        let rname_s = rname.as_str();
        let subs_ty = format_ident!("{}Subs", rname);
        let my_calls: Vec<(&IrSub, &SubCall)> = ir
            .subs
            .iter()
            .filter_map(|sb| sb.calls.iter().find(|c| c.role == ri).map(|c| (sb, c)))
            .collect();
        let sub_fields: Vec<Ident> = my_calls.iter().map(|(sb, _)| id(&sb.name)).collect();
        let sub_traits: Vec<TokenStream> = my_calls
            .iter()
            .map(|(_, c)| path_tokens(&c.trait_path, quote!(missing_trait)))
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
        role_items.push(quote! {
            #[doc = #input_doc]
            #[derive(Clone, Debug)]
            pub struct #input { #( #[doc = #in_docs] pub #in_names: #in_tys, )* }
            #[doc = #output_doc]
            #[derive(Clone, Debug)]
            pub struct #output { #( #[doc = #out_docs] pub #out_names: #out_tys, )* scratch: #rt::session::Scratch }
            impl #output {
                /// Number of intermediate buffers (kept whole by a stream and
                /// dead before the end) that this output carries to the next
                /// run through `reuse_outputs`.
                pub fn scratch_buffers(&self) -> usize { self.scratch.len() }
            }
            #[doc = concat!("States of `", #rname_s, "`.")]
            pub mod #role_mod {
                #[allow(unused_imports)]
                use super::*;
                #(#state_structs)*
            }
            #[doc = #role_doc]
            #[must_use = "a protocol role does nothing until its next step is called"]
            pub struct #role<S> { params: Params, rng: #rt::rng::Rng, subs: #subs_ty, st: S, bufs: ::core::option::Option<#output>, scratch: #rt::session::Scratch }
            #[doc = #subs_doc]
            pub struct #subs_ty { #( #[doc = #sub_docs] pub #sub_fields: ::std::boxed::Box<dyn #sub_traits + ::core::marker::Send>, )* }
            impl<S> #role<S> {
                /// The agreed parameters.
                pub fn params(&self) -> &Params { &self.params }
                /// Generic receive: accepts exactly the message this state expects.
                pub fn recv<M: Incoming<Self>>(self, msg: M) -> Result<M::Next, Error> { msg.deliver(self) }
                /// Generic send: produces exactly the message this state sends.
                pub fn send<M: Outgoing<Self>>(self) -> Result<(M, M::Next), Error> { M::produce(self) }
            }
            impl #role<#role_mod::#first_name> {
                #[doc = #new_doc]
                #[allow(unused_variables, unused_mut, non_snake_case, clippy::all)]
                pub fn new(params: Params, input: #input, rng: #rt::rng::Rng #subs_arg) -> Result<Self, Error> {
                    let mut rng = rng;
                    let #input { #(#in_names),* } = input;
                    #(#in_checks2)*
                    #(#init_stmts)*
                    Ok(#role { params, rng, subs: #subs_init, st: #init_state, bufs: None, scratch: ::core::default::Default::default() })
                }
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
                #[doc = #run_doc]
                #[allow(unused_variables, unused_mut)]
                pub fn run<C: #rt::channel::Channel + ?Sized>(self, mut ch: &mut C) -> Result<#output, Error> {
                    let mut __buf: ::std::vec::Vec<u8> = ::std::vec::Vec::new();
                    let __s = self;
                    #(#driver)*
                    __s.finish()
                }
            }
            #(#steps)*
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
                    Ok(#output { #(#out_names,)* scratch })
                }
            }
        });
    }

    // Party / DualOf / duality guard (two roles).
    if first_states.len() == 2 {
        for (a, b) in [(0usize, 1usize), (1, 0)] {
            let (role, first, rmod, tconst, output) = &first_states[a];
            let (prole, pfirst, prmod, _, _) = &first_states[b];
            let rs = ir.roles[a].as_str();
            party_impls.push(quote! {
                impl #rt::session::Party for #role<#rmod::#first> {
                    type Output = #output;
                    type Error = Error;
                    const PROTOCOL: &'static str = #pname;
                    const ROLE: &'static str = #rs;
                    const TRANSCRIPT: &'static [#rt::session::Step] = #tconst;
                    fn run_on(self, ch: &mut dyn #rt::channel::Channel) -> Result<#output, Error> { self.run(ch) }
                }
                impl #rt::session::DualOf<#prole<#prmod::#pfirst>> for #role<#rmod::#first> {}
            });
        }
        let ta = &first_states[0].3;
        let tb = &first_states[1].3;
        let msg = format!(
            "duality guard: the projections of `{pname}` onto `{}` and `{}` disagree",
            ir.roles[0], ir.roles[1]
        );
        party_impls.push(quote!(
            const _: () = assert!(#rt::session::dual(#ta, #tb), #msg);
        ));
    }

    let recv_msg = format!("protocol `{pname}`: `{{R}}` cannot receive `{{Self}}` in this state");
    let send_msg = format!("protocol `{pname}`: `{{R}}` does not send `{{Self}}` in this state");
    let proto_doc = format!("Generated from `{}`.", ir.location);

    quote! {
        #(#includes)*
        #[doc = #proto_doc]
        pub const PROTOCOL: &str = #pname;
        /// Number of rounds (messages) in the specification.
        pub const ROUNDS: usize = #rounds_n;
        #(#consts)*

        /// Run-time parameters, validated against the specification's `requires` predicates.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Params { #(#pfields),* }
        impl Params {
            /// Builds and validates the parameters.
            #[allow(clippy::all)]
            pub fn new(#(#pargs),*) -> Result<Self, Error> {
                let params = Params { #(#pnames),* };
                #(#requires)*
                Ok(params)
            }
            #(#pgetters)*
        }

        /// Bytes each role sends, derived from the specification.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct Comm { #( #[doc = #comm_docs] pub #comm_fields: usize, )* }
        /// Communication of one run with these parameters.
        pub fn comm(params: &Params) -> Comm { Comm { #( #comm_fields: #comm_sums, )* } }

        /// The typed messages, one per round, with their wire codec.
        pub mod msgs {
            #[allow(unused_imports)]
            use super::*;
            #(#msgs)*
        }

        /// Everything that can go wrong in a run; checks in the specification become variants.
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum Error {
            #(#abort_variants,)*
            /// A `requires` predicate of the parameters does not hold.
            Params { /// The predicate as written.
                requirement: &'static str },
            /// A value's length does not match its declared shape.
            Shape { /// Round (or `input`).
                round: &'static str, /// Field.
                field: &'static str, /// Declared length.
                expected: usize, /// Actual length.
                got: usize },
            /// A received message has the wrong length.
            Length { /// Round.
                round: &'static str, /// Expected bytes.
                expected: usize, /// Received bytes.
                got: usize },
            /// A field of a received message is not a valid encoding.
            Decode { /// Round.
                round: &'static str, /// Field.
                field: &'static str, /// Why.
                source: #rt::wire::WireError },
            /// A message other than the expected one arrived.
            UnexpectedMessage { /// Round.
                round: &'static str },
            /// The channel failed (hang-up, timeout, oversized frame).
            Channel { /// Round.
                round: &'static str, /// Why.
                source: #rt::channel::ChannelError },
            /// A sub-protocol failed.
            SubProtocol { /// Call name.
                call: &'static str, /// Its error.
                message: ::std::string::String },
        }
        impl ::core::fmt::Display for Error {
            fn fmt(&self, f: &mut ::core::fmt::Formatter<'_>) -> ::core::fmt::Result {
                match self {
                    #(#abort_display,)*
                    Error::Params { requirement } => write!(f, "{}: parameters violate `requires {}`", #pname, requirement),
                    Error::Shape { round, field, expected, got } => write!(f, "{}: round `{}`, field `{}`: length {} but the specification requires {}", #pname, round, field, got, expected),
                    Error::Length { round, expected, got } => write!(f, "{}: round `{}`: message of {} bytes, expected {}", #pname, round, got, expected),
                    Error::Decode { round, field, source } => write!(f, "{}: round `{}`, field `{}`: {}", #pname, round, field, source),
                    Error::UnexpectedMessage { round } => write!(f, "{}: unexpected message in round `{}`", #pname, round),
                    Error::Channel { round, source } => write!(f, "{}: round `{}`: channel error: {}", #pname, round, source),
                    Error::SubProtocol { call, message } => write!(f, "{}: sub-protocol `{}` failed: {}", #pname, call, message),
                }
            }
        }
        impl ::std::error::Error for Error {
            fn source(&self) -> Option<&(dyn ::std::error::Error + 'static)> {
                match self {
                    Error::Decode { source, .. } => Some(source),
                    Error::Channel { source, .. } => Some(source),
                    _ => None,
                }
            }
        }

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

        #(#transcripts)*
        #(#role_items)*
        #(#party_impls)*
    }
}
