//! Rust types of `.otp` types, symbolic lengths, and the wire codec of
//! values (lengths, shape checks, encoding and decoding).

use super::names::{id, path_tokens, rt};
use crate::types::{Shape, Ty, WireLen};
use proc_macro2::{Literal, TokenStream};
use quote::quote;

/// The Rust type of a value type.
pub fn rust_ty(t: &Ty) -> TokenStream {
    let rt = rt();
    match t {
        Ty::Bit => quote!(bool),
        Ty::Block | Ty::Seed => quote!(#rt::Block),
        Ty::Point => quote!(#rt::primitives::ec::Point),
        Ty::Scalar => quote!(#rt::primitives::ec::Scalar),
        Ty::Usize => quote!(usize),
        Ty::U64 => quote!(u64),
        Ty::U32 => quote!(u32),
        Ty::U8 => quote!(u8),
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
pub(super) fn shape(s: &Shape) -> TokenStream {
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
                '<' => quote!((#a).checked_shl((#b) as u32).unwrap_or(0)),
                _ => quote!((#a).checked_rem(#b).unwrap_or(0)),
            }
        }
    }
}

/// A length as an `Option<usize>` expression over `params`: `None` when
/// computing it overflows (or divides by zero).
pub(super) fn checked_shape(s: &Shape) -> TokenStream {
    match s {
        Shape::Lit(v) => {
            let v = Literal::u128_suffixed(*v);
            quote!(usize::try_from(#v).ok())
        }
        Shape::Param(p) => {
            let p = id(p);
            quote!(usize::try_from(params.#p).ok())
        }
        Shape::Bin('<', a, b) => {
            let a = checked_shape(a);
            let b = checked_shape(b);
            // No bit may be shifted out: that is an overflow too.
            quote!((#a).and_then(|__a| (#b).and_then(|__b| {
                let __s = u32::try_from(__b).ok()?;
                (__s < usize::BITS && __a.leading_zeros() >= __s).then(|| __a << __s)
            })))
        }
        Shape::Bin(op, a, b) => {
            let a = checked_shape(a);
            let b = checked_shape(b);
            let f = match op {
                '+' => quote!(checked_add),
                '-' => quote!(checked_sub),
                '*' => quote!(checked_mul),
                '/' => quote!(checked_div),
                _ => quote!(checked_rem),
            };
            quote!((#a).and_then(|__a| (#b).and_then(|__b| __a.#f(__b))))
        }
    }
}

/// The bytes a value of the type occupies in memory, as an `Option<usize>`
/// expression over `params` (`None` on overflow).
pub(super) fn checked_bytes(t: &Ty) -> TokenStream {
    match t {
        Ty::Bits(n) => {
            let n = checked_shape(n);
            quote!((#n).map(|__n| __n.div_ceil(8)))
        }
        Ty::BitMatrix(r, c) => {
            let r = checked_shape(r);
            let c = checked_shape(c);
            quote!((#r).and_then(|__r| (#c).and_then(|__c| __r.checked_mul(__c.div_ceil(128))?.checked_mul(16))))
        }
        Ty::Array(e, n) => {
            let n = checked_shape(n);
            let e = checked_bytes(e);
            quote!((#n).and_then(|__n| (#e).and_then(|__e| __n.checked_mul(__e))))
        }
        _ => {
            let ty = rust_ty(t);
            quote!(Some(::core::mem::size_of::<#ty>()))
        }
    }
}

/// A value's wire length as a `usize` expression over the parameters,
/// printed from its [`WireLen`].
pub(super) fn wire_len(t: &Ty) -> TokenStream {
    wire_len_tokens(&WireLen::of(t))
}

fn wire_len_tokens(w: &WireLen) -> TokenStream {
    let rt = rt();
    match w {
        WireLen::Word => quote!(8usize),
        WireLen::Fixed(t) => {
            let ty = rust_ty(t);
            quote!(<#ty as #rt::transport::wire::Wire>::SIZE)
        }
        WireLen::Bits(n) => {
            let n = shape(n);
            quote!((#n).div_ceil(8))
        }
        WireLen::Matrix(r, c) => {
            let r = shape(r);
            let c = shape(c);
            quote!((#r).wrapping_mul((#c).div_ceil(128)).wrapping_mul(16))
        }
        WireLen::Array(e, n) => {
            let n = shape(n);
            let e = wire_len_tokens(e);
            quote!((#n).wrapping_mul(#e))
        }
        WireLen::Unsendable => quote!(0usize),
    }
}

/// Checks that a value's run-time lengths match its declared shape.
pub(super) fn check_shape(t: &Ty, v: &TokenStream, round: &str, field: &str) -> TokenStream {
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
pub(super) fn write_value(t: &Ty, v: &TokenStream) -> TokenStream {
    let rt = rt();
    match t {
        Ty::Usize => {
            quote!({ let __s = out.len(); out.resize(__s + 8, 0); #rt::transport::wire::Wire::write(&(*#v as u64), &mut out[__s..]); })
        }
        _ if t.is_fixed_wire() => {
            let ty = rust_ty(t);
            quote!({ let __s = out.len(); out.resize(__s + <#ty as #rt::transport::wire::Wire>::SIZE, 0); <#ty as #rt::transport::wire::Wire>::write(#v, &mut out[__s..]); })
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
pub(super) fn read_value(t: &Ty) -> TokenStream {
    let rt = rt();
    match t {
        Ty::Usize => quote!(<u64 as #rt::transport::wire::Wire>::read(__b).map(|x| x as usize)),
        _ if t.is_fixed_wire() => {
            let ty = rust_ty(t);
            quote!(<#ty as #rt::transport::wire::Wire>::read(__b))
        }
        Ty::Bits(n) => {
            let n = shape(n);
            quote!(#rt::transport::wire::read_bits(__b, #n))
        }
        Ty::BitMatrix(r, c) => {
            let r = shape(r);
            let c = shape(c);
            quote!(#rt::transport::wire::read_bit_matrix(__b, #r, #c))
        }
        Ty::Array(e, n) => {
            let n = shape(n);
            if e.is_fixed_wire() {
                let ety = rust_ty(e);
                quote!(#rt::transport::wire::read_vec::<#ety>(__b, #n))
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
        _ => quote!(Err(#rt::transport::wire::WireError::Length { expected: 0, got: __b.len() })),
    }
}

/// The checks of input shapes, with the input names.
pub(super) fn input_checks(inputs: &[(String, Ty)]) -> (Vec<proc_macro2::Ident>, Vec<TokenStream>) {
    let names = inputs.iter().map(|(n, _)| id(n)).collect();
    let checks = inputs
        .iter()
        .map(|(n, t)| {
            let i = id(n);
            check_shape(t, &quote!(#i), "input", n)
        })
        .collect();
    (names, checks)
}
