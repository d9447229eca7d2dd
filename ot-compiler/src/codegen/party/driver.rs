//! The drivers of a party, `run(&mut impl Mesh)` and, with the runtime's
//! `tokio` feature, `run_async(&mut impl AsyncMesh)`: the session hello
//! first, then every step; in each round the party writes all its outgoing
//! frames before it reads any (so no round can deadlock on socket buffers)
//! and reads its peers in arrival order.
//!
//! Both drivers are one template: the statements below name every mesh
//! operation through a few local macros (`__io!` around each mesh call,
//! `__announce!`, `__scope!`, `__greet!`, ...), and each driver defines
//! them for its kind of mesh ([`driver_macros`]): the blocking one calls
//! the `Mesh` and its helpers, the async one awaits the `AsyncMesh` (as the
//! two-party drivers share their templates through `codegen::io`).

use super::context::PartyGen;
use crate::codegen::io::{gate, Io};
use crate::codegen::names::rt;
use proc_macro2::{Ident, TokenStream};
use quote::{format_ident, quote};

/// One step of a driver: its statements, whether it writes frames (it is
/// then preceded by the announcement of the frames the party reads next on
/// every link), and the frame it reads, if any: the peers it reads one
/// frame from (a `Vec<usize>` expression) and that frame's exact length.
pub(super) struct Drive {
    pub(super) code: TokenStream,
    pub(super) sends: bool,
    pub(super) read: Option<(TokenStream, TokenStream)>,
}

/// The statements of a driver's steps with the announcements
/// (`ot_runtime::transport::mesh::announce_reads`) before every step that writes, and
/// the list of the driver's reads they are taken from (`__reads`, built
/// once the first state `__s` is in scope).
pub(super) fn announced(steps: Vec<Drive>) -> (TokenStream, Vec<TokenStream>) {
    let mut reads = vec![];
    let mut out = vec![];
    for d in steps {
        if d.sends {
            let k = reads.len();
            out.push(quote!(__announce!(mesh, &__reads[#k..]);));
        }
        out.push(d.code);
        if let Some((from, len)) = d.read {
            reads.push(quote!((#from, #len)));
        }
    }
    let list = quote! {
        let __reads: ::std::vec::Vec<(::std::vec::Vec<usize>, usize)> = ::std::vec![#(#reads),*];
    };
    (list, out)
}

/// The body of a `run` method (`body`, returning its result) run so that
/// every link's announcement is lifted when it ends, with or without error,
/// and a failed run tells every peer so with an abort notice
/// (`Mesh::notify_abort` with `Error::notice`: round, reason, suspects), so
/// that a peer still waiting on this party reports the culprit rather than
/// a hang-up. An inconsistent broadcast that left two suspects then waits
/// briefly for their notices (`ot_runtime::transport::mesh::resolve_suspects`): the
/// one that blames the other names the culprit (`named_by`).
pub(super) fn lifted(output: &TokenStream, body: TokenStream) -> TokenStream {
    quote! {
        let mut __res = __scope!(#output, { #body });
        __announce_end!(mesh);
        if let Err(__e) = &__res {
            __notify!(mesh, &__e.notice());
        }
        if let Err(Error::Equivocation { sender, peer, culprit: __c @ None, named_by, .. }) = &mut __res {
            if let Some((__who, __by)) = __resolve!(mesh, *sender, *peer) {
                *__c = Some(__who);
                *named_by = Some(__by);
            }
        }
        __res
    }
}

/// The digests of a batched check, taken before the send step, and the
/// statement putting them at the start of a frame `b`.
fn prefix(digests: Option<&Ident>, b: TokenStream) -> (TokenStream, TokenStream) {
    match digests {
        Some(d) => (
            quote!(let __d = __s.#d();),
            quote!(#b.extend_from_slice(&__d);),
        ),
        None => (quote!(), quote!()),
    }
}

/// Runs a broadcast send step and writes the message to every peer (after
/// the digests of a batched check, in the same frame). A chunked round
/// (`chunk`: the payload of a full chunk frame, in bytes) goes out as
/// consecutive frames of its encoding, each to every peer.
pub(super) fn send_all(
    method: &Ident,
    rn: &str,
    digests: Option<&Ident>,
    chunk: Option<&TokenStream>,
) -> TokenStream {
    let (take, put) = prefix(digests, quote!(__buf));
    let send = match chunk {
        Some(step) => quote! {
            for __c in __buf.chunks(#step) {
                for &__p in &__peers {
                    __io!(mesh.send_to(__p, __c)).map_err(|source| Error::Mesh { round: #rn, source })?;
                }
            }
        },
        None => quote! {
            for &__p in &__peers {
                __io!(mesh.send_to(__p, &__buf)).map_err(|source| Error::Mesh { round: #rn, source })?;
            }
        },
    };
    quote! {
        #take
        let (__m, __s) = __s.#method()?;
        __buf.clear();
        #put
        __m.encode(&__s.params, &mut __buf)?;
        #send
        __io!(mesh.flush()).map_err(|source| Error::Mesh { round: #rn, source })?;
    }
}

/// Runs a send step whose one message goes to one peer, `to` (a ring
/// round: the neighbour of this party).
pub(super) fn send_one(method: &Ident, rn: &str, to: TokenStream) -> TokenStream {
    quote! {
        let (__m, __s) = __s.#method()?;
        __buf.clear();
        __m.encode(&__s.params, &mut __buf)?;
        let __to: usize = #to;
        __io!(mesh.send_to(__to, &__buf)).map_err(|source| Error::Mesh { round: #rn, source })?;
        __io!(mesh.flush()).map_err(|source| Error::Mesh { round: #rn, source })?;
    }
}

/// Runs a private send step and writes each peer its message (after the
/// digests of a batched check, in the same frame); a chunked round as
/// consecutive frames of each encoding (see [`send_all`]).
pub(super) fn send_each(
    method: &Ident,
    rn: &str,
    digests: Option<&Ident>,
    chunk: Option<&TokenStream>,
) -> TokenStream {
    let (take, put) = prefix(digests, quote!(__b));
    let send = match chunk {
        Some(step) => quote! {
            for __c in __b.chunks(#step) {
                __io!(mesh.send_to(__p, __c)).map_err(|source| Error::Mesh { round: #rn, source })?;
            }
        },
        None => quote! {
            __io!(mesh.send_vec_to(__p, __b)).map_err(|source| Error::Mesh { round: #rn, source })?;
        },
    };
    quote! {
        #take
        let (__ms, __s) = __s.#method()?;
        for (__p, __m) in __ms {
            let mut __b = ::std::vec::Vec::new();
            #put
            __m.encode(&__s.params, &mut __b)?;
            #send
        }
        __io!(mesh.flush()).map_err(|source| Error::Mesh { round: #rn, source })?;
    }
}

/// Reads one frame of at most `len` bytes from every peer, in arrival
/// order, as `(peer, decoded)` pairs in `__got`.
fn gather(rn: &str, len: TokenStream, decode: TokenStream) -> TokenStream {
    gather_from(rn, len, decode, quote!(__peers))
}

/// As [`gather`], from the peers in the list `from`.
fn gather_from(rn: &str, len: TokenStream, decode: TokenStream, from: TokenStream) -> TokenStream {
    quote! {
        let mut __got = ::std::vec::Vec::with_capacity(#from.len());
        let mut __pending = #from.clone();
        while !__pending.is_empty() {
            let __p = __io!(mesh.recv_any(&__pending, &mut __buf, #len)).map_err(|source| Error::Mesh { round: #rn, source })?;
            __pending.retain(|&__q| __q != __p);
            let __v = #decode;
            __got.push((__p, __v));
        }
    }
}

/// Receives every peer's message of a round and runs the receive step; the
/// messages are the ones kept by a batched check (`stashed`), or read now,
/// for a chunked round frame by frame ([`recv_chunks`]).
pub(super) fn recv_all(
    m: &Ident,
    method: &Ident,
    rn: &str,
    stashed: bool,
    chunk: Option<&TokenStream>,
) -> TokenStream {
    let decode = |b: TokenStream| quote!(msgs::#m::decode(#b, &__s.params).map_err(|e| Error::FromPeer { round: #rn, peer: __p, source: ::std::boxed::Box::new(e) })?);
    if let Some(step) = chunk {
        let read = recv_chunks(rn, step);
        let d = decode(quote!(&__whole[__p]));
        return quote! {
            let __len = msgs::#m::wire_len(&__s.params);
            #read
            let mut __got = ::std::vec::Vec::with_capacity(__peers.len());
            for &__p in &__peers {
                __got.push((__p, #d));
            }
            let __s = __s.#method(__got)?;
        };
    }
    if stashed {
        let d = decode(quote!(&__b));
        return quote! {
            let mut __got = ::std::vec::Vec::with_capacity(__stash.len());
            for (__p, __b) in __stash {
                __got.push((__p, #d));
            }
            let __s = __s.#method(__got)?;
        };
    }
    let gather = gather(rn, quote!(__len), decode(quote!(&__buf)));
    quote! {
        let __len = msgs::#m::wire_len(&__s.params);
        #gather
        let __s = __s.#method(__got)?;
    }
}

/// Reads every peer's `__len` bytes of a chunked round as frames of `step`
/// bytes (the last one shorter), frame `k` of every peer (in arrival
/// order) before frame `k + 1`, into `__whole[peer]`. A frame of another
/// length is `Error::Length` from that peer.
fn recv_chunks(rn: &str, step: &TokenStream) -> TokenStream {
    quote! {
        let __step: usize = #step;
        let mut __whole: ::std::vec::Vec<::std::vec::Vec<u8>> = ::std::vec![::std::vec::Vec::new(); __s.me.max(__peers.iter().copied().max().unwrap_or(0)) + 1];
        let mut __done = 0usize;
        while __done < __len {
            let __want = __step.min(__len - __done);
            let mut __pending = __peers.clone();
            while !__pending.is_empty() {
                let __p = __io!(mesh.recv_any(&__pending, &mut __buf, __want)).map_err(|source| Error::Mesh { round: #rn, source })?;
                __pending.retain(|&__q| __q != __p);
                if __buf.len() != __want {
                    let __e = Error::Length { round: #rn, expected: __want, got: __buf.len() };
                    return Err(Error::FromPeer { round: #rn, peer: __p, source: ::std::boxed::Box::new(__e) });
                }
                match __whole.get_mut(__p) {
                    Some(__w) => __w.extend_from_slice(&__buf),
                    None => return Err(Error::Delivery { round: #rn, peer: __p }),
                }
            }
            __done += __want;
        }
    }
}

/// Receives the message of a round with one fixed party from the peers
/// `from` expects (the fixed sender, or every peer at the fixed receiver,
/// or nobody) and runs the receive step.
pub(super) fn recv_from(m: &Ident, method: &Ident, rn: &str, from: TokenStream) -> TokenStream {
    let decode = quote!(msgs::#m::decode(&__buf, &__s.params).map_err(|e| Error::FromPeer { round: #rn, peer: __p, source: ::std::boxed::Box::new(e) })?);
    let gather = gather_from(rn, quote!(__len), decode, quote!(__from));
    quote! {
        let __len = msgs::#m::wire_len(&__s.params);
        let __from: ::std::vec::Vec<usize> = #from;
        #gather
        let __s = __s.#method(__got)?;
    }
}

/// The driver code of a broadcast check. An unbatched check sends the
/// digests to every peer, then reads every peer's; a batched check
/// (`carried`: the message type of the round sent with it) sent its digests
/// at the start of that round's frames: it reads those frames, checks the
/// digests, and keeps the messages (`__stash`) for the round's receive
/// step. When the run needs no check (`need` false: two parties), an
/// unbatched check exchanges nothing and a batched frame carries zero
/// digest bytes (`len`, the digests' length, is then 0).
pub(super) struct Check<'a> {
    pub(super) digests: &'a Ident,
    pub(super) method: &'a Ident,
    pub(super) rn: &'a str,
    pub(super) carried: Option<&'a Ident>,
    pub(super) need: TokenStream,
    pub(super) len: TokenStream,
}

impl Check<'_> {
    pub(super) fn code(&self) -> TokenStream {
        let Check {
            digests,
            method,
            rn,
            carried,
            need,
            len,
        } = self;
        let label = format!("{rn} (broadcast check)");
        let Some(m2) = carried else {
            let gather = gather(
                &label,
                len.clone(),
                quote!(::core::clone::Clone::clone(&__buf)),
            );
            return quote! {
                let __s = if #need {
                    let __d = __s.#digests();
                    for &__p in &__peers {
                        __io!(mesh.send_to(__p, &__d)).map_err(|source| Error::Mesh { round: #label, source })?;
                    }
                    __io!(mesh.flush()).map_err(|source| Error::Mesh { round: #label, source })?;
                    #gather
                    __s.#method(__got)?
                } else {
                    __s.#method(::std::vec::Vec::new())?
                };
            };
        };
        let split = quote! {{
            if __buf.len() < __dl {
                let __e = Error::Length { round: #label, expected: __len, got: __buf.len() };
                return Err(Error::FromPeer { round: #label, peer: __p, source: ::std::boxed::Box::new(__e) });
            }
            (__buf[..__dl].to_vec(), __buf[__dl..].to_vec())
        }};
        let gather = gather(&label, quote!(__len), split);
        quote! {
            let __dl = #len;
            let __len = __dl.wrapping_add(msgs::#m2::wire_len(&__s.params));
            #gather
            let (__got, __stash): (::std::vec::Vec<_>, ::std::vec::Vec<_>) = __got
                .into_iter()
                .map(|(__p, (__d, __m))| ((__p, __d), (__p, __m)))
                .unzip();
            let __s = __s.#method(__got)?;
        }
    }
}

/// The rest of a `run` method (`inner`, ending with the first state's
/// `__s.finish()`) run behind the session hello (protocol, `SPEC_HASH`,
/// parameters, session id; `self` the endpoint's first state), verified
/// lazily (`ot_runtime::transport::mesh::Greeting`): the hello goes to every peer in the
/// first flight, a peer's is checked before the first frame read from it,
/// and the hellos of peers nothing came from are checked before the output
/// is computed. A failure of a peer's hello is reported as round `hello`.
pub(super) fn greeted(output: &TokenStream, inner: TokenStream) -> TokenStream {
    let rt = rt();
    quote! {
        let __hello = #rt::transport::mesh::Hello {
            protocol: ::std::string::String::from(PROTOCOL),
            spec_hash: SPEC_HASH,
            params: self.params.encode(),
            session: self.session_id,
        };
        let mut __greeting = __greet!(mesh, &__hello).map_err(|source| Error::Mesh { round: "hello", source })?;
        let __res = __scope!(#output, {
            __use_mesh!();
            let mesh = &mut __greeting;
            #inner
        });
        match __res {
            Err(Error::Mesh { source, .. }) if __failed!(__greeting) => Err(Error::Mesh { round: "hello", source }),
            __r => __r,
        }
    }
}

/// The end of a driver: every pending hello checked, then the output.
pub(super) fn greeted_finish() -> TokenStream {
    quote! {
        __finish!(mesh).map_err(|source| Error::Mesh { round: "hello", source })?;
        __s.finish()
    }
}

/// The `run` and `run_async` methods of the first state.
pub(super) fn run_fn(g: &PartyGen, steps: Vec<Drive>) -> TokenStream {
    let output = format_ident!("{}Output", g.pname());
    let n = crate::codegen::wire::shape(&crate::plan::party::parties(g.ir));
    let ends = super::mesh::endpoints(g.ir);
    let doc = format!("Runs party `{}[me]` to completion over a mesh (blocking driver): sends the session hello (protocol, `SPEC_HASH`, parameters, session id, index, number of parties) to every peer and goes straight on to the first round, checking a peer's hello before the first frame it reads from that peer and every remaining hello before computing the output (a peer whose hello differs is `Error::Mesh` in round `hello` with `MeshError::Mismatch`; see `ot_runtime::transport::mesh::Greeting`: sending before the peer's hello is checked gives it nothing it could not get by sending a hello equal to ours, and nothing it sends is used before its hello is checked); then every round, writing all of a round's messages before reading any and reading peers in arrival order. Before writing a round it announces on every link the frame it reads next there (`Mesh::expect_next_frame`), and lifts the announcements when the run ends. A run that fails sends every peer an abort notice (`Mesh::notify_abort` with `Error::notice`: the round, the error in words, `Error::suspects`) before returning the error, so a peer still waiting on this party reports the culprit (`MeshError::PeerAborted`, and `Error::reported_by` names this party) instead of a hang-up. With two parties the broadcast consistency checks exchange nothing (see the `check_` steps).", g.pname());
    let (reads, steps) = announced(steps);
    let finish = greeted_finish();
    let inner = quote! {
        let __peers: ::std::vec::Vec<usize> = (0..__n).filter(|&__p| __p != __s.me).collect();
        let mut __buf: ::std::vec::Vec<u8> = ::std::vec::Vec::new();
        #reads
        #(#steps)*
        #finish
    };
    let greeted = greeted(&quote!(#output), quote!(let __s = self; #inner));
    let body = lifted(
        &quote!(#output),
        quote! {
            let __n = { let params = &self.params; #n };
            if mesh.me() != self.me || mesh.parties() != #ends {
                return Err(Error::Party { index: mesh.me(), parties: mesh.parties() });
            }
            #greeted
        },
    );
    match g.has_pairwise() {
        // The sub-protocols' role traits run over a blocking `Channel`.
        true => blocking_driver(&doc, &quote!(#output), &body),
        false => both_drivers(&doc, &quote!(#output), &body),
    }
}

/// `run` alone (documented by `doc`), for a protocol whose sub-protocol
/// runs need a blocking mesh.
fn blocking_driver(doc: &str, output: &TokenStream, body: &TokenStream) -> TokenStream {
    let doc = format!("{doc} (No `run_async`: the sub-protocols between pairs of parties run over a blocking mesh.)");
    run_method(&doc, output, body)
}

/// The blocking `run` method with the driver body `body`.
fn run_method(doc: &str, output: &TokenStream, body: &TokenStream) -> TokenStream {
    let rt = rt();
    let sync = driver_macros(Io::Blocking);
    quote! {
        #[doc = #doc]
        #[allow(unused_variables, unused_mut, clippy::all)]
        pub fn run<M: #rt::transport::mesh::Mesh + ?Sized>(self, mesh: &mut M) -> Result<#output, Error> {
            #sync
            #body
        }
    }
}

/// `run` (blocking, documented by `doc`) and `run_async` (gated on the
/// runtime's `tokio` feature) of a first state, both with the driver body
/// `body`, each with the [`driver_macros`] of its kind of mesh.
pub(super) fn both_drivers(doc: &str, output: &TokenStream, body: &TokenStream) -> TokenStream {
    let rt = rt();
    let aio = driver_macros(Io::Async);
    let async_doc = "The async twin of `run` (cargo feature `tokio`): the same rounds over an `AsyncMesh` (for example `ot_runtime::transport::mesh::TokioMesh`, in memory or over TCP), awaiting every send and receive. The session hello is exchanged and checked before the first round (one flight more than `run`, which checks it lazily); a run that fails sends every peer an abort notice (`AsyncMesh::notify_abort`), so a peer still waiting on this party reports `MeshError::PeerAborted`; peers are read in the order of their indices, and the two suspects of an inconsistent broadcast are not resolved further.";
    let run_async = gate(
        Io::Async,
        quote! {
            #[doc = #async_doc]
            #[allow(unused_variables, unused_mut, clippy::all)]
            pub async fn run_async<M: #rt::transport::mesh::AsyncMesh + ?Sized>(self, mesh: &mut M) -> Result<#output, Error> {
                #aio
                #body
            }
        },
    );
    let run = run_method(doc, output, body);
    quote! {
        #run
        #run_async
    }
}

/// The local macros through which a driver body names the mesh: `__io!`
/// (a mesh call, awaited in the async driver), `__scope!` (a fallible
/// block: a closure, or an awaited async block), `__announce!` and
/// `__announce_end!` (read-ahead announcements; the async mesh reads only
/// what is asked for), `__notify!` (the abort notice), `__resolve!` (suspects of an inconsistent broadcast), and the
/// session hello: `__greet!`, `__use_mesh!`, `__failed!` and `__finish!`
/// (lazily checked by a `Greeting`, or exchanged at once by
/// `handshake_async`).
fn driver_macros(io: Io) -> TokenStream {
    let rt = rt();
    match io {
        Io::Blocking => quote! {
            macro_rules! __io { ($e:expr) => { $e }; }
            macro_rules! __scope { ($t:ty, { $($b:tt)* }) => { (|| -> Result<$t, Error> { $($b)* })() }; }
            macro_rules! __announce { ($m:expr, $r:expr) => { #rt::transport::mesh::announce_reads($m, $r) }; }
            macro_rules! __announce_end { ($m:expr) => { #rt::transport::mesh::announce_end($m) }; }
            macro_rules! __notify { ($m:expr, $n:expr) => { $m.notify_abort($n) }; }
            macro_rules! __resolve { ($m:expr, $a:expr, $b:expr) => { #rt::transport::mesh::resolve_suspects($m, $a, $b) }; }
            macro_rules! __greet { ($m:expr, $h:expr) => { #rt::transport::mesh::Greeting::start($m, $h) }; }
            macro_rules! __use_mesh { () => { #[allow(unused_imports)] use #rt::transport::mesh::Mesh as _; }; }
            macro_rules! __failed { ($g:expr) => { $g.failed() }; }
            macro_rules! __finish { ($m:expr) => { $m.finish() }; }
        },
        Io::Async => quote! {
            macro_rules! __io { ($e:expr) => { $e.await }; }
            macro_rules! __scope { ($t:ty, { $($b:tt)* }) => {{ let __f = async { $($b)* }; let __r: Result<$t, Error> = __f.await; __r }}; }
            macro_rules! __announce { ($m:expr, $r:expr) => { { let _ = (&$m, $r); } }; }
            macro_rules! __announce_end { ($m:expr) => { { let _ = &$m; } }; }
            macro_rules! __notify { ($m:expr, $n:expr) => { $m.notify_abort($n).await }; }
            macro_rules! __resolve { ($m:expr, $a:expr, $b:expr) => { { let _ = (&$m, $a, $b); ::core::option::Option::<(usize, usize)>::None } }; }
            macro_rules! __greet { ($m:expr, $h:expr) => { #rt::transport::mesh::handshake_async(&mut *$m, $h).await.map(|()| &mut *$m) }; }
            macro_rules! __use_mesh { () => { #[allow(unused_imports)] use #rt::transport::mesh::AsyncMesh as _; }; }
            macro_rules! __failed { ($g:expr) => { { let _ = &$g; false } }; }
            macro_rules! __finish { ($m:expr) => { { let _ = &$m; ::core::result::Result::<(), #rt::transport::mesh::MeshError>::Ok(()) } }; }
        },
    }
}
