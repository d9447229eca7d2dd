//! Chunked rounds (`chunked(by = ...)`): the streaming loop of a role, and
//! the buffers (outputs, scratch) its whole arrays live in.

use super::expr::{locals_in, ExprGen};
use super::names::{id, path_tokens, rt};
use super::wire::{rust_ty, shape};
use crate::ir::*;
use crate::types::{Shape, Ty};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use std::collections::{BTreeMap, BTreeSet};

/// The chunked dimension of a streamed field and its row count
/// (`BitMatrix[rows, cols]` streams by columns, `[T; n]` by elements).
pub(super) fn chunk_dims(ty: &Ty) -> (TokenStream, TokenStream) {
    match ty {
        Ty::BitMatrix(r, c) => (shape(r), shape(c)),
        Ty::Array(_, n) => (quote!(0usize), shape(n)),
        _ => (quote!(0usize), quote!(0usize)),
    }
}

/// The set-up and the per-chunk body of a [`Stream`] (see `Event::Stream`):
/// buffers for every stage, then per chunk `__off..__off + __len` the
/// stages before the send, the send or receive of the field's chunk, and
/// the stages after it. Each stage calls its intrinsic's chunk variant with
/// streamed arguments replaced by their chunk (and arrays of the round's
/// width by their slice), then `offset, len, out`.
pub(super) fn stream_loop(
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
pub(super) fn scratch_keys(
    ir: &Ir,
    ri: usize,
    claims: &BTreeMap<String, String>,
) -> BTreeSet<String> {
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
pub(super) fn note_moved(ir: &Ir, e: &TExpr, out: &mut BTreeSet<String>) {
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
pub(super) fn give_back(
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
pub(super) fn block_shaped(fty: &Ty) -> bool {
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
pub(super) fn output_claims(ir: &Ir, ri: usize) -> BTreeMap<String, String> {
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
