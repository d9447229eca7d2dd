//! Chunked rounds (`chunked(by = ...)`): the streaming loop of a role, and
//! the buffers (outputs, scratch) its whole arrays live in.

use super::expr::ExprGen;
use super::io::Io;
use super::kernel_call::array_len;
use super::names::{id, path_tokens, rt};
use super::secret::held_ty;
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
/// the stages after it. Each stage calls its intrinsic's streamed kernel
/// with streamed arguments replaced by their chunk (and arrays of the
/// round's width by their slice), then `Span::new(offset, len), out` (the
/// one call shape of a streamed kernel, see [`streamed_out`]). The blocking and the
/// async driver's steps are this one template (`io`): they differ only in
/// awaiting each chunk's send or receive, so both keep one chunk in flight
/// per stage and the same bounded memory.
pub(super) fn stream_loop(
    ir: &Ir,
    eg: &ExprGen,
    st: &Stream,
    claims: &BTreeMap<String, String>,
    io: Io,
) -> (TokenStream, TokenStream) {
    let mut g = StreamGen::new(ir, eg, st, claims, io);
    let mut per_chunk = vec![];
    if !st.sending {
        per_chunk.push(g.recv_chunk());
    }
    let mut si = 0;
    for stage in &st.before {
        per_chunk.push(g.stage(stage, si));
        si += 1;
    }
    if st.sending {
        per_chunk.push(g.send_chunk());
    }
    for stage in &st.after {
        per_chunk.push(g.stage(stage, si));
        si += 1;
    }
    let setup = &g.setup;
    (quote!(#(#setup)*), quote!(#(#per_chunk)*))
}

/// The state of generating one stream: its round and field, the set-up
/// statements so far, and how each streamed value is kept.
struct StreamGen<'a> {
    ir: &'a Ir,
    eg: &'a ExprGen,
    st: &'a Stream,
    claims: &'a BTreeMap<String, String>,
    rn: &'a str,
    field: &'a str,
    fty: &'a Ty,
    /// The round's width (columns of a matrix, length of an array).
    width: Shape,
    setup: Vec<TokenStream>,
    kept: BTreeMap<String, (Keep, Ty)>,
    /// Values that some stage of this stream reads (chunk by chunk).
    read_in_stream: BTreeSet<String>,
    /// The driver the loop is generated for.
    io: Io,
}

impl<'a> StreamGen<'a> {
    fn new(
        ir: &'a Ir,
        eg: &'a ExprGen,
        st: &'a Stream,
        claims: &'a BTreeMap<String, String>,
        io: Io,
    ) -> Self {
        let rd = &ir.rounds[st.round];
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
        let setup = vec![quote! {
            let __rows: usize = #rows;
            let __total: usize = #cols;
            let __by: usize = (#by).max(1);
        }];
        let mut kept = BTreeMap::new();
        if !st.sending {
            kept.insert(field.clone(), (Keep::Chunk, fty.clone()));
        }
        let mut read_in_stream = BTreeSet::new();
        st.before
            .iter()
            .chain(&st.after)
            .for_each(|s| s.call.locals(&mut read_in_stream));
        StreamGen {
            ir,
            eg,
            st,
            claims,
            rn: &rd.name,
            field,
            fty,
            width,
            setup,
            kept,
            read_in_stream,
            io,
        }
    }

    /// The current chunk of a streamed value, as a call argument.
    fn view(&self, n: &str) -> Option<TokenStream> {
        let (keep, ty) = self.kept.get(n)?;
        let i = id(n);
        let c = format_ident!("__c_{}", n);
        Some(match (keep, ty) {
            (Keep::Chunk, Ty::BitMatrix(..)) if self.eg.is_secret(n) => quote!(&*#c),
            (Keep::Chunk, Ty::BitMatrix(..)) => quote!(&#c),
            (Keep::Chunk, _) => quote!(&#c[..]),
            _ => quote!(&#i[__off.min(#i.len())..(__off + __len).min(#i.len())]),
        })
    }

    /// The arguments of stage `si`'s chunk call (set-up bindings as needed).
    fn stage_args(&mut self, args: &[TExpr], si: usize) -> Vec<TokenStream> {
        let eg = self.eg;
        let mut call_args = vec![];
        for (j, a) in args.iter().enumerate() {
            if let TExprKind::Local(n) = &a.kind {
                if let Some(v) = self.view(n) {
                    call_args.push(v);
                    continue;
                }
            }
            let bound = format_ident!("__a{}_{}", si, j);
            if matches!(&a.ty, Ty::Array(_, n) if *n == self.width) {
                let v = eg.by_ref(a);
                self.setup.push(quote!(let #bound = #v;));
                call_args.push(
                    quote!(&#bound[__off.min(#bound.len())..(__off + __len).min(#bound.len())]),
                );
            } else if matches!(
                a.kind,
                TExprKind::Local(_) | TExprKind::Param(_) | TExprKind::Int(_) | TExprKind::Bool(_)
            ) {
                call_args.push(eg.arg(a));
            } else if eg.wipes_temporary(&a.ty) {
                let (rt, v) = (rt(), eg.owned(a));
                self.setup
                    .push(quote!(let #bound = #rt::primitives::wipe::Wiped(#v);));
                call_args.push(quote!(&*#bound));
            } else {
                let v = eg.owned(a);
                self.setup.push(quote!(let #bound = #v;));
                call_args.push(if a.ty.is_copy() && !matches!(a.ty, Ty::Array(..)) {
                    quote!(#bound)
                } else {
                    quote!(&#bound)
                });
            }
        }
        call_args
    }

    /// One stage: its buffer in the set-up and its chunk call.
    fn stage(&mut self, stage: &Stage, si: usize) -> TokenStream {
        let rt = rt();
        let (path, args) = match &stage.call.kind {
            TExprKind::Call(p, a) => (p.clone(), a.clone()),
            _ => (String::new(), vec![]),
        };
        let cpath = self.ir.chunk_paths.get(&path).cloned().unwrap_or_default();
        let cpath: TokenStream = path_tokens(&cpath, quote!(missing_path));
        let call_args = self.stage_args(&args, si);
        let call =
            |out: TokenStream| quote!(#cpath(#(#call_args,)* #rt::Span::new(__off, __len), #out););
        let name = &stage.name;
        let i = id(name);
        let c = format_ident!("__c_{}", name);
        let nlen = format_ident!("__n_{}", name);
        // A secret stage (and its chunk buffer) is held in a wiping
        // wrapper: `held` is its type, `place` its value (see `secret`).
        let secret = self.eg.is_secret(name);
        let held = |ty: &Ty| held_ty(secret, ty);
        let wrap = |v: TokenStream| {
            if secret {
                quote!(#rt::primitives::wipe::Wiped(#v))
            } else {
                v
            }
        };
        let place = |v: &proc_macro2::Ident| if secret { quote!((*#v)) } else { quote!(#v) };
        let code = match (&stage.keep, &stage.call.ty) {
            (Keep::Fold, ty) => {
                let (t, v, p) = (
                    held(ty),
                    wrap(quote!(::core::default::Default::default())),
                    place(&i),
                );
                self.setup.push(quote!(let mut #i: #t = #v;));
                call(quote!(&mut #p))
            }
            (Keep::Chunk, ty @ Ty::BitMatrix(..)) => {
                let (t, v, p) = (
                    held(ty),
                    wrap(quote!(::core::default::Default::default())),
                    place(&c),
                );
                self.setup.push(quote!(let mut #c: #t = #v;));
                call(quote!(&mut #p))
            }
            (Keep::Chunk, ty) => {
                let n = array_len(ty);
                let (t, v) = (held(ty), wrap(quote!(::std::vec::Vec::new())));
                self.setup.push(quote! {
                    let #nlen: usize = #n;
                    let mut #c: #t = #v;
                });
                let call = call(quote!(&mut #c[..]));
                quote! {
                    #c.resize((__off + __len).min(#nlen) - __off.min(#nlen), ::core::default::Default::default());
                    #call
                }
            }
            (Keep::Whole, ty) => self.whole_stage(name, ty, &call),
        };
        if stage.keep != Keep::Fold {
            self.kept
                .insert(name.clone(), (stage.keep, stage.call.ty.clone()));
        }
        code
    }

    /// A stage kept whole: the array (an output buffer or a scratch one)
    /// written in place, chunk by chunk.
    fn whole_stage(
        &mut self,
        name: &str,
        ty: &Ty,
        call: &dyn Fn(TokenStream) -> TokenStream,
    ) -> TokenStream {
        let rt = rt();
        let rn = self.rn;
        let i = id(name);
        let nlen = format_ident!("__n_{}", name);
        let n = array_len(ty);
        let secret = self.eg.is_secret(name);
        let t = held_ty(secret, ty);
        let p = if secret { quote!((*#i)) } else { quote!(#i) };
        let take = match self.claims.get(name) {
            Some(f) => {
                let f = id(f);
                quote!(bufs.as_mut().map(|__b| ::core::mem::take(&mut __b.#f)).unwrap_or_default())
            }
            None if secret => quote!(scratch.take_secret(#name, #nlen)),
            None => quote!(scratch.take(#name)),
        };
        let take = if secret {
            quote!(#rt::primitives::wipe::Wiped(#take))
        } else {
            take
        };
        self.setup.push(quote! {
            let #nlen: usize = #n;
            if #nlen > __total {
                return Err(Error::Shape { round: #rn, field: #name, expected: __total, got: #nlen });
            }
            let mut #i: #t = #take;
            #rt::transport::limits::try_resize(&mut #p, #nlen, #name).map_err(|source| Error::Alloc { round: #rn, source })?;
        });
        if self.read_in_stream.contains(name) {
            // A later stage reads the chunk back at once: exactly
            // the chunk, so the kernel keeps it in cache.
            call(quote!(&mut #i[__off.min(#nlen)..(__off + __len).min(#nlen)]))
        } else {
            // The rest of the array from the chunk's start: the
            // kernel writes its first `__len` entries, and the
            // length tells it how much of the destination is still
            // to come (see the chunk-variant convention in
            // protocols/prelude.otp).
            call(quote!(&mut #i[__off.min(#nlen)..]))
        }
    }

    /// Receives the field's chunk into a reused buffer, decoded in place.
    fn recv_chunk(&mut self) -> TokenStream {
        let rt = rt();
        let (rn, field, fty) = (self.rn, self.field, self.fty);
        let fc = format_ident!("__c_{}", field);
        let aw = self.io.aw();
        let (chunk_len, decode, init) = match fty {
            Ty::Array(elem, _) => {
                let ety = rust_ty(elem);
                (
                    quote!(__len.wrapping_mul(<#ety as #rt::transport::wire::Wire>::SIZE)),
                    quote!(#rt::transport::wire::read_vec_into::<#ety>(&__buf, __len, &mut #fc)),
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
            self.setup.push(init);
            quote! {
                let __want = #chunk_len;
                let __got = ch
                    .recv_into_slice(#rt::transport::wire::blocks_recv_buffer(&mut #fc, __len))
                    #aw
                    .map_err(|source| Error::Channel { round: #rn, source })?;
                if __got != __want {
                    return Err(Error::Length { round: #rn, expected: __want, got: __got });
                }
                #rt::transport::wire::finish_blocks_in_place(&mut #fc[..]);
            }
        } else if matches!(fty, Ty::Array(..)) {
            self.setup.push(quote! {
                #init
                let mut __buf: ::std::vec::Vec<u8> = ::std::vec::Vec::new();
            });
            quote! {
                let __want = #chunk_len;
                ch.recv_into(&mut __buf, __want)#aw.map_err(|source| Error::Channel { round: #rn, source })?;
                if __buf.len() != __want {
                    return Err(Error::Length { round: #rn, expected: __want, got: __buf.len() });
                }
                #decode.map_err(|source| Error::Decode { round: #rn, field: #field, source })?;
            }
        } else {
            // A matrix chunk is received straight into the matrix's storage.
            self.setup.push(init);
            quote! {
                let __want = #chunk_len;
                #fc.reset(__rows, __len);
                let __got = ch
                    .recv_into_slice(#rt::Block::slice_as_bytes_mut(#fc.as_blocks_mut()))
                    #aw
                    .map_err(|source| Error::Channel { round: #rn, source })?;
                if __got != __want {
                    return Err(Error::Length { round: #rn, expected: __want, got: __got });
                }
                #rt::transport::wire::finish_bit_matrix_in_place(&mut #fc)
                    .map_err(|source| Error::Decode { round: #rn, field: #field, source })?;
            }
        }
    }

    /// Sends the field's chunk (checking its shape first).
    fn send_chunk(&mut self) -> TokenStream {
        let rt = rt();
        let (rn, field, fty) = (self.rn, self.field, self.fty);
        let fc = format_ident!("__c_{}", field);
        let aw = self.io.aw();
        match fty {
            Ty::Array(elem, _) if block_shaped(fty) => {
                let send = match self.lent_send(elem) {
                    Some(method) => quote!(ch.#method(&mut #fc)),
                    None => quote!(ch.send(&#rt::transport::wire::block_bytes(&#fc))#aw),
                };
                quote! {
                    if #fc.len() != __len {
                        return Err(Error::Shape { round: #rn, field: #field, expected: __len, got: #fc.len() });
                    }
                    #send.map_err(|source| Error::Channel { round: #rn, source })?;
                }
            }
            Ty::Array(..) => {
                self.setup
                    .push(quote!(let mut __bytes: ::std::vec::Vec<u8> = ::std::vec::Vec::new();));
                quote! {
                    if #fc.len() != __len {
                        return Err(Error::Shape { round: #rn, field: #field, expected: __len, got: #fc.len() });
                    }
                    __bytes.clear();
                    #rt::transport::wire::write_slice(&#fc, &mut __bytes);
                    ch.send(&__bytes)#aw.map_err(|source| Error::Channel { round: #rn, source })?;
                }
            }
            _ => self.send_matrix_chunk(),
        }
    }

    /// The channel method that may take the storage of the field's chunk
    /// (`send_blocks`, `send_pairs`: no copy of a chunk the socket does not
    /// take at once), when the chunk is a plain buffer of its own (a
    /// streamed stage's, not secret), nothing reads it after the send and
    /// the driver is the blocking one (the async channel writes large
    /// frames from the caller's slice anyway).
    fn lent_send(&self, elem: &Ty) -> Option<proc_macro2::Ident> {
        let method = match elem {
            Ty::Block => format_ident!("send_blocks"),
            Ty::Array(inner, n) if **inner == Ty::Block && n.small() == Some(2) => {
                format_ident!("send_pairs")
            }
            _ => return None,
        };
        let own_chunk = matches!(self.kept.get(self.field), Some((Keep::Chunk, _)));
        let mut read_after = BTreeSet::new();
        self.st
            .after
            .iter()
            .for_each(|s| s.call.locals(&mut read_after));
        let lend = own_chunk
            && !self.eg.is_secret(self.field)
            && !read_after.contains(self.field)
            && self.io == Io::Blocking;
        lend.then_some(method)
    }

    /// Sends a matrix chunk, lending its storage to the channel when nothing
    /// reads it afterwards.
    fn send_matrix_chunk(&self) -> TokenStream {
        let rt = rt();
        let (rn, field) = (self.rn, self.field);
        let fc = format_ident!("__c_{}", field);
        let aw = self.io.aw();
        let check = quote! {
            if #fc.rows() != __rows || #fc.cols() != __len {
                return Err(Error::Shape { round: #rn, field: #field, expected: __len, got: #fc.cols() });
            }
        };
        let mut read_after = BTreeSet::new();
        self.st
            .after
            .iter()
            .for_each(|s| s.call.locals(&mut read_after));
        // The async channel writes large frames from the caller's slice
        // (no copy either), so it always sends by reference.
        if read_after.contains(field) || self.io == Io::Async {
            quote! {
                #check
                ch.send(#rt::Block::slice_as_bytes(#fc.as_blocks()))#aw.map_err(|source| Error::Channel { round: #rn, source })?;
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
}

/// The whole streamed arrays of a role that no output buffer takes
/// (see [`output_claims`]) and that are never moved into a `move`
/// parameter: their buffers are taken from and given back to the role's
/// [`Scratch`](ot_runtime::transport::session::Scratch) so that they survive to the
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
    secrets: &BTreeSet<String>,
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
            if secrets.contains(k) {
                // Kept for the next run's reuse, which overwrites it;
                // wiped when the scratch is dropped (`Scratch::put_secret`).
                let rt = rt();
                quote!(scratch.put_secret(#k, #rt::primitives::wipe::Wiped::into_unwiped(#i));)
            } else {
                quote!(scratch.put(#k, #i);)
            }
        });
    quote!(#(#gives)*)
}

/// Whether a streamed array field holds blocks or arrays of blocks, whose
/// wire form is their memory (`ot_runtime::transport::wire::BlockShaped`).
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
