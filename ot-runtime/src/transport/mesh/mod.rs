//! Party meshes: the transport of n-party protocols (`role P[n]`).
//!
//! # Model
//!
//! A [`Mesh`] is one party's view of an n-party session: party `P[me]`
//! (0-based) holds one reliable, ordered, framed link to every other party,
//! each with the semantics of a two-party [`Channel`](crate::transport::channel::Channel):
//! a send produces exactly one frame, a receive consumes exactly one frame of
//! at most a caller-supplied length. Code generated from a `.otp` with
//! `role P[n]` drives a party over `&mut impl Mesh`, one round at a time: it
//! writes all of its outgoing frames of a round ([`Mesh::send_to`]) before it
//! reads any ([`Mesh::recv_from`], [`Mesh::recv_any`]). Sends never wait for
//! the peer to read (the links buffer, see below), so with that discipline
//! no round can deadlock, whatever the socket buffer sizes.
//!
//! Implementations:
//! - [`MemoryMesh`]: n parties in one process over
//!   [`MemoryChannel`](crate::transport::channel::MemoryChannel) pairs, one party per
//!   thread ([`run_parties`]).
//! - [`TcpMesh`]: one party per process (or thread) over
//!   [`TcpChannel`](crate::transport::channel::TcpChannel)s; party `i` listens on its
//!   own address of a peers list, connects to every lower index and accepts
//!   every higher one ([`TcpMesh::connect`], [`local_tcp_mesh`]).
//! - [`TamperMesh`]: rewrites outgoing frames per peer, to test that a
//!   protocol catches an equivocating party.
//!
//! Both transports are a [`ChannelMesh`] of n-1 two-party channels; any
//! [`MeshChannel`] can be used the same way.
//!
//! # Handshake
//!
//! Before any protocol message a session calls [`handshake`] with a
//! [`Hello`]: protocol name, hash of the `.otp` sources, canonical
//! parameters and a session id, plus the party's index and `n`. Every party
//! sends its hello to every peer, then compares each peer's with its own; the
//! first difference is a [`MeshError::Mismatch`] naming the peer and the
//! [`HelloField`], so a peer running another protocol, another version of the
//! spec, other parameters, another session or another party count is refused
//! before it can confuse the protocol. Generated drivers check the same
//! hello lazily ([`Greeting`]): the hello goes out with the first round's
//! messages, and each peer's is checked before anything from that peer is
//! used and before the run's output, so the hello costs no flight of its
//! own. [`TcpMesh`] additionally runs a small
//! *transport* hello (magic, index, n) on each connection, which maps
//! connections to party indices and refuses a wrong `n`, an index out of
//! range or a duplicate index.
//!
//! # Memory bounds
//!
//! Every receive is bounded by its `max_len`, as for a two-party channel:
//! an oversized frame is rejected from its length header and never buffered
//! whole. [`Mesh::recv_any`] first takes a frame that is there already
//! (checked without waiting: the socket is peeked, an in-memory queue
//! polled), in the order of `from`; if there is none it reads the candidate
//! peers concurrently (one reader thread per link, started on first use)
//! and returns the frame that arrives first. A link holds at most *one*
//! frame read ahead in this way, of at most the `max_len` of the call that
//! asked for it (and checked again against the `max_len` of the call that
//! takes it). Below that, each link keeps the bounds of its channel (the
//! write queue and read-ahead limits documented on
//! [`TcpChannel`](crate::transport::channel::TcpChannel) and
//! [`MemoryChannel`](crate::transport::channel::MemoryChannel)).
//!
//! Cost: before handing links to reader threads, `recv_any` yields the
//! processor a few times and looks again (the peers it waits for are
//! likely about to send); a hand-off costs two thread wake-ups per frame.
//! Measured on a loaded 2-core machine (release build, `tests/mesh_speed.rs`:
//! one all-to-all round of 32-byte frames, median as seen by party 0), with
//! [`Mesh::recv_from`] in index order vs `recv_any`: TCP n = 3 64 µs vs
//! 122 µs, n = 9 0.97 ms vs 1.07 ms; memory n = 9 84 µs vs 79 µs. Where
//! every frame of a round is needed before any work can start, reading in
//! index order is as cheap or cheaper over TCP; `recv_any` pays off when
//! per-peer work (a check, a decommitment) can overlap slow peers.
//!
//! # Errors
//!
//! Every failure is a [`MeshError`] naming the peer: a failure of the link
//! to peer `p` (hang-up, time-out, truncated frame, oversized frame, I/O) is
//! [`MeshError::Peer`] with `p` and the [`ChannelError`]; a hello that
//! differs is [`MeshError::Mismatch`]; a setup failure (bind, connect,
//! accept, malformed or out-of-range transport hello, duplicate index, a
//! peer index that does not exist) is [`MeshError::Setup`]. After an error
//! other than a time-out, the link to that peer is out of step and the
//! session should be abandoned: drop the mesh, and the peers see a hang-up
//! ([`ChannelError::Closed`]) after the frames already sent to them.
//!
//! A send to a peer that has hung up is *not* an error: the frame is lost
//! (as when written into the socket buffer of a connection the peer
//! closed) and the hang-up is reported by the next receive from that peer.
//! Together with the graceful close of TCP links (see [`ChannelMesh`]) this
//! makes the error a party reports the one its own receives show: when one
//! honest party detects a cheater and aborts first, the others still read
//! its last messages and detect the cheater themselves, instead of failing
//! on the hang-up.
//!
//! # Example
//!
//! Three parties, each sending its index to the two others, over the
//! in-memory mesh:
//!
//! ```
//! use ot_runtime::transport::mesh::{handshake, run_parties, Hello, Mesh, MemoryMesh};
//!
//! let hello = Hello {
//!     protocol: "Example".into(),
//!     spec_hash: [0; 32],
//!     params: vec![],
//!     session: [7; 16],
//! };
//! let sums = run_parties(MemoryMesh::new(3), |mesh| {
//!     handshake(mesh, &hello)?;
//!     let (me, n) = (mesh.me(), mesh.parties());
//!     let others: Vec<usize> = (0..n).filter(|&j| j != me).collect();
//!     // Write the whole round first ...
//!     for &j in &others {
//!         mesh.send_to(j, &[me as u8])?;
//!     }
//!     // ... then read it, in arrival order.
//!     let mut sum = me;
//!     let mut buf = Vec::new();
//!     let mut left = others;
//!     while !left.is_empty() {
//!         let from = mesh.recv_any(&left, &mut buf, 1)?;
//!         left.retain(|&j| j != from);
//!         sum += buf[0] as usize;
//!     }
//!     Ok::<_, ot_runtime::transport::mesh::MeshError>(sum)
//! });
//! for s in sums {
//!     assert_eq!(s.unwrap(), 0 + 1 + 2);
//! }
//! ```

#[cfg(feature = "tokio")]
mod async_mesh;
pub(crate) mod hello;
mod links;
mod memory;
mod net;
mod peer_channel;
mod tamper;
mod tcp;
#[cfg(feature = "tls")]
mod tls;

#[cfg(feature = "tokio")]
pub use async_mesh::{
    handshake_async, local_tokio_tcp_mesh, memory_tokio_mesh, AsyncMesh, TokioMesh,
};
pub use hello::{handshake, Greeting, Hello, MAX_HELLO};
pub use links::{ChannelMesh, MeshChannel, DRAIN_MAX, NOTICE_WAIT};
pub use memory::MemoryMesh;
pub use peer_channel::{abort_notice_in, round_robin_partner, PeerChannel};
pub use tamper::{tamper_party, TamperMesh};
pub use tcp::{local_tcp_mesh, TcpMesh};
#[cfg(feature = "tls")]
pub use tls::{local_tls_mesh, local_tls_mesh_with, party_name, TlsMesh, TlsMeshError};

pub use crate::transport::channel::AbortNotice;
use crate::transport::channel::{ChannelError, ChannelStats};

/// Why a mesh operation failed; every variant names the peer where there is
/// one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MeshError {
    /// A channel failure (hang-up, time-out, truncation, oversized frame,
    /// I/O) on the link to `peer`.
    #[error("link to party {peer}: {source}")]
    Peer {
        /// Index of the peer whose link failed.
        peer: usize,
        /// What went wrong on that link.
        source: ChannelError,
    },
    /// The peer's hello differs from ours in `field`.
    #[error("party {peer} disagrees on the {field}")]
    Mismatch {
        /// Index of the peer whose hello differs.
        peer: usize,
        /// The first field (in declaration order of [`HelloField`]) that
        /// differs.
        field: HelloField,
    },
    /// `peer` aborted and sent an [`AbortNotice`] saying where, why and
    /// whom it suspects. A notice is `peer`'s claim, not evidence: a
    /// cheating party can blame an honest one.
    #[error("party {peer} reports: {notice}")]
    PeerAborted {
        /// The party that sent the notice.
        peer: usize,
        /// What it said.
        notice: AbortNotice,
        /// The party this party blames on the notice's word: its one
        /// suspect other than this party ([`AbortNotice::blamed_at`]).
        blamed: Option<usize>,
    },
    /// Setting up the mesh failed (bind/connect/accept, bad peer list, a
    /// malformed hello, an index out of range, a duplicate index, a peer
    /// index with no link).
    #[error("mesh setup{}: {reason}", match .peer { Some(p) => format!(" (party {p})"), None => String::new() })]
    Setup {
        /// The peer concerned, where one is known.
        peer: Option<usize>,
        /// What failed, in words.
        reason: String,
    },
}

impl MeshError {
    /// The peer the error names, if any.
    pub fn peer(&self) -> Option<usize> {
        match self {
            MeshError::Peer { peer, .. }
            | MeshError::Mismatch { peer, .. }
            | MeshError::PeerAborted { peer, .. } => Some(*peer),
            MeshError::Setup { peer, .. } => *peer,
        }
    }

    /// The party this failure points to: the peer whose link failed (it
    /// hung up without a notice, went silent, sent a malformed frame or
    /// notice) or whose hello differs, or the peer a setup failure names;
    /// for a received notice, the party blamed on the notice's word (its
    /// one suspect other than this party; `None` if that leaves none or
    /// two). Generated n-party errors build their `blamed()` on this.
    pub fn blamed(&self) -> Option<usize> {
        match self {
            MeshError::Peer { peer, .. } | MeshError::Mismatch { peer, .. } => Some(*peer),
            MeshError::PeerAborted { blamed, .. } => *blamed,
            MeshError::Setup { peer, .. } => *peer,
        }
    }

    /// The party whose abort notice this is, if it is one: who makes the
    /// claim [`MeshError::blamed`] reports.
    pub fn reported_by(&self) -> Option<usize> {
        match self {
            MeshError::PeerAborted { peer, .. } => Some(*peer),
            _ => None,
        }
    }

    /// The error of party `me`'s link to `peer` that failed with `source`:
    /// a received notice becomes [`MeshError::PeerAborted`], anything else
    /// [`MeshError::Peer`].
    pub fn from_link(me: usize, peer: usize, source: ChannelError) -> Self {
        match source {
            ChannelError::PeerAborted(notice) => MeshError::PeerAborted {
                peer,
                blamed: notice.blamed_at(me),
                notice,
            },
            source => MeshError::Peer { peer, source },
        }
    }

    /// A [`MeshError::Setup`] naming `peer`.
    pub(crate) fn setup(peer: impl Into<Option<usize>>, reason: impl Into<String>) -> Self {
        MeshError::Setup {
            peer: peer.into(),
            reason: reason.into(),
        }
    }
}

/// A field of a [`Hello`] (plus the party index and count the handshake
/// adds) that two parties disagree on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HelloField {
    /// The protocol name.
    Protocol,
    /// The hash of the `.otp` sources.
    SpecHash,
    /// The canonical encoding of the parameters.
    Params,
    /// The session id.
    Session,
    /// The number of parties n.
    PartyCount,
    /// The party index: the peer does not call itself by the index we reach
    /// it at (another party, or a duplicate index).
    PartyIndex,
}

impl std::fmt::Display for HelloField {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            HelloField::Protocol => "protocol name",
            HelloField::SpecHash => "protocol spec hash",
            HelloField::Params => "parameters",
            HelloField::Session => "session id",
            HelloField::PartyCount => "number of parties",
            HelloField::PartyIndex => "party index",
        })
    }
}

/// A party's connections to every other party of an n-party session:
/// reliable, ordered, framed, bounded receives (as
/// [`Channel`](crate::transport::channel::Channel)), per peer.
///
/// Peers are named by their party index `0..parties()`, other than `me()`;
/// any other index is a [`MeshError::Setup`].
pub trait Mesh {
    /// This party's index, 0-based (`P[me]`).
    fn me(&self) -> usize;

    /// Number of parties n.
    fn parties(&self) -> usize;

    /// Sends one frame to `peer` (may buffer; never waits for the peer to
    /// read it).
    fn send_to(&mut self, peer: usize, msg: &[u8]) -> Result<(), MeshError>;

    /// As [`Mesh::send_to`], taking an owned buffer (transports that queue
    /// owned frames then do not copy it).
    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> Result<(), MeshError> {
        self.send_to(peer, &msg)
    }

    /// Pushes out buffered frames to every peer. Not needed for delivery
    /// (the transports send on their own); useful to surface a write error
    /// early.
    fn flush(&mut self) -> Result<(), MeshError>;

    /// Receives the next frame from `peer` into `buf` (cleared first), at
    /// most `max_len` bytes (else [`ChannelError::Oversized`] in a
    /// [`MeshError::Peer`]).
    fn recv_from(
        &mut self,
        peer: usize,
        buf: &mut Vec<u8>,
        max_len: usize,
    ) -> Result<(), MeshError>;

    /// Receives the next frame from whichever peer of `from` has one first
    /// (arrival order where the transport can tell; otherwise in the order
    /// of `from`) and returns that peer. Each peer of `from` is read at most
    /// once per call; `from` must not be empty.
    fn recv_any(
        &mut self,
        from: &[usize],
        buf: &mut Vec<u8>,
        max_len: usize,
    ) -> Result<usize, MeshError>;

    /// Traffic counters of the link to `peer`: payload bytes, frames and
    /// rounds (flights) as [`ChannelStats`], counting what this party sent
    /// and what it received and accepted. All zero for an index with no
    /// link.
    fn stats(&self, peer: usize) -> ChannelStats;

    /// Announces the payload length of the next frame this party will
    /// receive from `peer` (`Some(0)`: nothing more comes on that link;
    /// `None`: not known, the link's configured bound applies), as
    /// [`Channel::expect_next_frame`](crate::transport::channel::Channel::expect_next_frame)
    /// on that link: a transport that reads ahead while a send waits
    /// (TCP, TLS) then buffers at most that frame plus
    /// [`READ_AHEAD_SLACK`](crate::transport::channel::READ_AHEAD_SLACK) from a peer
    /// that floods the link instead of reading.
    ///
    /// Generated n-party drivers announce, before writing each round, the
    /// frame they read next on every link (in a round every party writes
    /// before it reads, so on each link the peer sends at most that frame
    /// before reading ours), and lift the bound (`None`) when the run ends
    /// or fails. Announce the exact length or more: a larger frame is
    /// still received, but if both ends of a link announce less than what
    /// they send each other and both frames exceed the socket buffers, the
    /// sends wait for each other until the time-out. The default ignores
    /// it; an index with no link is ignored.
    fn expect_next_frame(&mut self, peer: usize, len: Option<usize>) {
        let _ = (peer, len);
    }

    /// Tells every peer, best effort, that this party aborts: sends
    /// `notice` (round, reason, the party it blames) after the frames
    /// already sent, so a peer still waiting for this party's next message
    /// reports [`MeshError::PeerAborted`] naming the culprit and this party
    /// as the reporter, rather than a hang-up. Call it once, just before
    /// dropping the mesh; generated n-party drivers do when a run fails.
    /// Never fails and never waits long ([`ChannelMesh`] waits at most
    /// [`NOTICE_WAIT`] for links busy with a receive). The default sends
    /// nothing.
    fn notify_abort(&mut self, notice: &AbortNotice) {
        let _ = notice;
    }

    /// After an abort: reads what each peer of `from` still sends
    /// (discarding it) until that peer's abort notice arrives, its link
    /// fails or `wait` has passed in all, and returns the notices received.
    /// Generated drivers use it when their own check left two suspects, to
    /// hear what the other suspect says (a claim, not evidence). The
    /// default returns none.
    fn await_notices(
        &mut self,
        from: &[usize],
        wait: std::time::Duration,
    ) -> Vec<(usize, AbortNotice)> {
        let _ = (from, wait);
        Vec::new()
    }
}

/// Announces on every link of `mesh` (endpoints `0..parties()` other than
/// `me()`) the next frame that party will read from it
/// ([`Mesh::expect_next_frame`]): `reads` lists the party's coming
/// receives in order, each as the peers it reads one frame from and that
/// frame's length; a peer in none of them gets `Some(0)` (nothing more
/// comes on that link). Generated drivers call this before each send.
pub fn announce_reads<M: Mesh + ?Sized>(mesh: &mut M, reads: &[(Vec<usize>, usize)]) {
    let me = mesh.me();
    for peer in (0..mesh.parties()).filter(|&p| p != me) {
        let next = reads
            .iter()
            .find(|(from, _)| from.contains(&peer))
            .map_or(0, |&(_, len)| len);
        mesh.expect_next_frame(peer, Some(next));
    }
}

/// After an abort whose own check left two suspects (`a`, `b`: an
/// inconsistent broadcast), hears what they say ([`Mesh::await_notices`],
/// at most [`NOTICE_WAIT`]) and returns the culprit and the party whose
/// notice named it: a suspect whose notice blames the other suspect
/// ([`AbortNotice::blamed_at`] this party). `None` if no notice names one,
/// or if the two suspects blame each other. The answer is that suspect's
/// claim, not evidence.
pub fn resolve_suspects<M: Mesh + ?Sized>(
    mesh: &mut M,
    a: usize,
    b: usize,
) -> Option<(usize, usize)> {
    let me = mesh.me();
    let mut named = None;
    for (from, notice) in mesh.await_notices(&[a, b], NOTICE_WAIT) {
        let other = if from == a { b } else { a };
        match (notice.blamed_at(me), named) {
            (Some(c), None) if c == other => named = Some((c, from)),
            (Some(c), Some((n, _))) if c != n => return None,
            _ => {}
        }
    }
    named
}

/// Lifts every link's announcement ([`Mesh::expect_next_frame`] with
/// `None`): generated drivers call this when a run ends, successfully or
/// not, so the links fall back to their configured read-ahead bound.
pub fn announce_end<M: Mesh + ?Sized>(mesh: &mut M) {
    let me = mesh.me();
    for peer in (0..mesh.parties()).filter(|&p| p != me) {
        mesh.expect_next_frame(peer, None);
    }
}

/// Implements the [`Mesh`] methods other than the two sends by forwarding
/// them to an inner mesh, written as `|s| <inner mesh of s>`.
macro_rules! forward_mesh {
    (|$s:ident| $inner:expr) => {
        fn me(&self) -> usize {
            let $s = self;
            $inner.me()
        }
        fn parties(&self) -> usize {
            let $s = self;
            $inner.parties()
        }
        fn flush(&mut self) -> Result<(), MeshError> {
            let $s = self;
            $inner.flush()
        }
        fn recv_from(
            &mut self,
            peer: usize,
            buf: &mut Vec<u8>,
            max_len: usize,
        ) -> Result<(), MeshError> {
            let $s = self;
            $inner.recv_from(peer, buf, max_len)
        }
        fn recv_any(
            &mut self,
            from: &[usize],
            buf: &mut Vec<u8>,
            max_len: usize,
        ) -> Result<usize, MeshError> {
            let $s = self;
            $inner.recv_any(from, buf, max_len)
        }
        fn stats(&self, peer: usize) -> ChannelStats {
            let $s = self;
            $inner.stats(peer)
        }
        fn expect_next_frame(&mut self, peer: usize, len: Option<usize>) {
            let $s = self;
            $inner.expect_next_frame(peer, len)
        }
        fn notify_abort(&mut self, notice: &$crate::transport::channel::AbortNotice) {
            let $s = self;
            $inner.notify_abort(notice)
        }
        fn await_notices(
            &mut self,
            from: &[usize],
            wait: std::time::Duration,
        ) -> Vec<(usize, $crate::transport::channel::AbortNotice)> {
            let $s = self;
            $inner.await_notices(from, wait)
        }
    };
}
use forward_mesh;

/// A mutable reference to a mesh (also `&mut dyn Mesh`, e.g. of a boxed
/// mesh chosen at run time) is a mesh.
impl<M: Mesh + ?Sized> Mesh for &mut M {
    fn send_to(&mut self, peer: usize, msg: &[u8]) -> Result<(), MeshError> {
        (**self).send_to(peer, msg)
    }
    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> Result<(), MeshError> {
        (**self).send_vec_to(peer, msg)
    }
    forward_mesh!(|s| (**s));
}

/// Boxed meshes (`Box<dyn Mesh + Send>`) are meshes, so a transport can be
/// chosen at run time.
impl<M: Mesh + ?Sized> Mesh for Box<M> {
    fn send_to(&mut self, peer: usize, msg: &[u8]) -> Result<(), MeshError> {
        (**self).send_to(peer, msg)
    }
    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> Result<(), MeshError> {
        (**self).send_vec_to(peer, msg)
    }
    forward_mesh!(|s| (**s));
}

/// Runs `f(mesh)` for every party on its own thread and returns the
/// results in party order (`meshes[i]` should be party `i`'s endpoint, as
/// [`MemoryMesh::new`] and [`local_tcp_mesh`] return them).
///
/// A panic on any party's thread is resumed on the caller's thread once all
/// threads have finished.
pub fn run_parties<M, R>(meshes: Vec<M>, f: impl Fn(&mut M) -> R + Sync) -> Vec<R>
where
    M: Mesh + Send,
    R: Send,
{
    let f = &f;
    std::thread::scope(|s| {
        let handles: Vec<_> = meshes
            .into_iter()
            .map(|mut mesh| s.spawn(move || f(&mut mesh)))
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    })
}

#[cfg(test)]
mod tests;
