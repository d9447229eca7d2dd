//! The session hello every n-party run starts with (see the module docs of
//! [`crate::transport::mesh`]).

use super::{HelloField, Mesh, MeshError};

/// Most bytes a hello frame may have; a longer one is refused (ours with a
/// [`MeshError::Setup`], a peer's as an oversized frame).
pub const MAX_HELLO: usize = 64 * 1024;

/// First bytes of a hello frame: names the format and its version.
pub(crate) const MAGIC: [u8; 8] = *b"OTPHELO1";

/// What a session binds before any protocol message: the protocol, the exact
/// version of its specification, its parameters and the session.
///
/// [`handshake`] sends it, together with the party's index and the number of
/// parties, to every peer and refuses a peer whose hello differs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Hello {
    /// Protocol name, as in the `.otp` (`protocol Name(...)`).
    pub protocol: String,
    /// Hash of the `.otp` sources (computed by the compiler), so that two
    /// builds of different versions of a spec do not talk to each other.
    pub spec_hash: [u8; 32],
    /// Canonical encoding of the run-time parameters.
    pub params: Vec<u8>,
    /// Session id chosen by the application (the same for all parties of a
    /// run, fresh for every run).
    pub session: [u8; 16],
}

/// Bytes of a hello frame whose protocol name has `name_len` bytes and whose
/// parameters encode to `params_len` bytes: magic, n, index, name length,
/// name, spec hash, parameter length, parameters, session id.
pub(crate) const fn frame_len(name_len: usize, params_len: usize) -> usize {
    8 + 4 + 4 + 2 + name_len + 32 + 4 + params_len + 16
}

/// A hello together with the party index and count it was sent with (also
/// the frame of the two-party session binding, [`crate::transport::bind`]).
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Stated {
    pub(crate) hello: Hello,
    pub(crate) parties: u32,
    pub(crate) me: u32,
}

impl Stated {
    /// Wire format: magic, n and index (`u32` LE each), protocol name
    /// (`u16` LE length + UTF-8), spec hash, parameters (`u32` LE length +
    /// bytes), session id.
    pub(crate) fn encode(&self) -> Result<Vec<u8>, &'static str> {
        let h = &self.hello;
        let name_len = u16::try_from(h.protocol.len()).map_err(|_| "protocol name too long")?;
        let params_len = u32::try_from(h.params.len()).map_err(|_| "parameters too long")?;
        let mut out = Vec::with_capacity(frame_len(h.protocol.len(), h.params.len()));
        out.extend_from_slice(&MAGIC);
        out.extend_from_slice(&self.parties.to_le_bytes());
        out.extend_from_slice(&self.me.to_le_bytes());
        out.extend_from_slice(&name_len.to_le_bytes());
        out.extend_from_slice(h.protocol.as_bytes());
        out.extend_from_slice(&h.spec_hash);
        out.extend_from_slice(&params_len.to_le_bytes());
        out.extend_from_slice(&h.params);
        out.extend_from_slice(&h.session);
        if out.len() > MAX_HELLO {
            return Err("hello longer than MAX_HELLO (parameters too long)");
        }
        Ok(out)
    }

    /// Parses a hello frame; the error says what is malformed.
    pub(crate) fn decode(frame: &[u8]) -> Result<Stated, &'static str> {
        let mut r = Reader(frame);
        if r.take(8)? != MAGIC {
            return Err("not a hello frame (bad magic or version)");
        }
        let parties = r.u32()?;
        let me = r.u32()?;
        let name_len = usize::from(u16::from_le_bytes(r.array()?));
        let protocol = std::str::from_utf8(r.take(name_len)?)
            .map_err(|_| "protocol name is not UTF-8")?
            .to_owned();
        let spec_hash = r.array()?;
        let params_len = usize::try_from(r.u32()?).map_err(|_| "parameters too long")?;
        let params = r.take(params_len)?.to_vec();
        let session = r.array()?;
        if !r.0.is_empty() {
            return Err("trailing bytes after the hello");
        }
        Ok(Stated {
            hello: Hello {
                protocol,
                spec_hash,
                params,
                session,
            },
            parties,
            me,
        })
    }

    /// The first field in which a peer's hello `other`, received on the
    /// link to party `peer`, differs from ours.
    pub(crate) fn first_difference(&self, other: &Stated, peer: usize) -> Option<HelloField> {
        let (a, b) = (&self.hello, &other.hello);
        if a.protocol != b.protocol {
            Some(HelloField::Protocol)
        } else if a.spec_hash != b.spec_hash {
            Some(HelloField::SpecHash)
        } else if a.params != b.params {
            Some(HelloField::Params)
        } else if a.session != b.session {
            Some(HelloField::Session)
        } else if self.parties != other.parties {
            Some(HelloField::PartyCount)
        } else if usize::try_from(other.me) != Ok(peer) {
            Some(HelloField::PartyIndex)
        } else {
            None
        }
    }
}

/// Bounds-checked reading of a hello frame.
struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], &'static str> {
        if self.0.len() < n {
            return Err("hello frame truncated");
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], &'static str> {
        let mut a = [0; N];
        a.copy_from_slice(self.take(N)?);
        Ok(a)
    }

    fn u32(&mut self) -> Result<u32, &'static str> {
        Ok(u32::from_le_bytes(self.array()?))
    }
}

/// Binds the session before any protocol message: sends our `hello` (plus
/// [`Mesh::me`] and [`Mesh::parties`]) to every peer, then reads every
/// peer's (in index order) and compares it with ours.
///
/// The first difference is [`MeshError::Mismatch`] naming the peer and the
/// [`HelloField`] (protocol, spec hash, parameters, session, party count, or
/// a party index other than the one we reach the peer at); a frame that is
/// not a hello is [`MeshError::Setup`] naming the peer. This costs a flight
/// of its own; generated drivers check the same hello lazily instead
/// ([`Greeting`]), with their first round. Its bytes are counted in [`Mesh::stats`] like any frame
/// (one frame each way per peer), but not in a protocol's predicted `comm`.
/// It announces our hello's length as the next frame of every link
/// ([`Mesh::expect_next_frame`]) and lifts the announcement when done.
pub fn handshake<M: Mesh + ?Sized>(mesh: &mut M, hello: &Hello) -> Result<(), MeshError> {
    let (ours, frame) = announce_hello(mesh, hello)?;
    let res = exchange(mesh, &ours, &frame);
    super::announce_end(mesh);
    res
}

/// Our hello (with [`Mesh::me`] and [`Mesh::parties`]) and its frame, after
/// announcing a hello of that length on every link: a peer of the same
/// session sends one of our hello's length (a longer one differs from ours
/// and is refused anyway).
fn announce_hello<M: Mesh + ?Sized>(
    mesh: &mut M,
    hello: &Hello,
) -> Result<(Stated, Vec<u8>), MeshError> {
    let (me, n) = (mesh.me(), mesh.parties());
    let (ours, frame) = stated(hello, me, n)?;
    for peer in (0..n).filter(|&p| p != me) {
        mesh.expect_next_frame(peer, Some(frame.len()));
    }
    Ok((ours, frame))
}

/// Our hello as party `me` of `n`, and its frame.
pub(crate) fn stated(hello: &Hello, me: usize, n: usize) -> Result<(Stated, Vec<u8>), MeshError> {
    let too_many = || MeshError::setup(None, "party count or index exceeds u32");
    let ours = Stated {
        hello: hello.clone(),
        parties: u32::try_from(n).map_err(|_| too_many())?,
        me: u32::try_from(me).map_err(|_| too_many())?,
    };
    let frame = ours.encode().map_err(|e| MeshError::setup(None, e))?;
    Ok((ours, frame))
}

/// Sends our hello frame to every peer, then reads and compares theirs.
fn exchange<M: Mesh + ?Sized>(mesh: &mut M, ours: &Stated, frame: &[u8]) -> Result<(), MeshError> {
    let (me, n) = (mesh.me(), mesh.parties());
    for peer in (0..n).filter(|&p| p != me) {
        mesh.send_to(peer, frame)?;
    }
    mesh.flush()?;
    let mut buf = Vec::new();
    for peer in (0..n).filter(|&p| p != me) {
        mesh.recv_from(peer, &mut buf, MAX_HELLO)?;
        let theirs = Stated::decode(&buf).map_err(|e| MeshError::setup(peer, e))?;
        if let Some(field) = ours.first_difference(&theirs, peer) {
            return Err(MeshError::Mismatch { peer, field });
        }
    }
    Ok(())
}

/// A session hello verified lazily: the mesh of a run that sends its hello
/// to every peer at once ([`Greeting::start`]) and goes straight on to its
/// first round, reading and checking a peer's hello just before the first
/// frame it receives from that peer.
///
/// So a run costs no flight for the hello: every party's hello travels in
/// the same flight as its first round's messages. The binding is as strict
/// as with [`handshake`]: no frame of a peer is handed to the caller before
/// that peer's hello has been read and found equal to ours (else
/// [`MeshError::Mismatch`], or [`MeshError::Setup`] for a frame that is not
/// a hello), and [`Greeting::finish`] reads the hellos of the peers nothing
/// was received from, so a generated driver calls it before returning any
/// output. Sending our own messages before the peer's hello is checked
/// gives that peer nothing it could not get by sending a hello equal to
/// ours (a peer can always lie in its hello): the hello protects *us* from
/// using a confused peer's messages, and those are never used unchecked.
///
/// Announcements ([`Mesh::expect_next_frame`]) stay exact: while a peer's
/// hello is pending its link announces the hello's length (a peer of the
/// same session sends one of our hello's length), and the caller's
/// announcement for that link is passed on once the hello is read. A send
/// to a peer whose next frame was announced longer than
/// [`READ_AHEAD_SLACK`](crate::transport::channel::READ_AHEAD_SLACK) reads that peer's
/// hello first (the peer sent it before anything else), so a transport that
/// reads ahead while the send waits may buffer the whole announced frame.
pub struct Greeting<'a, M: Mesh + ?Sized> {
    inner: &'a mut M,
    ours: Stated,
    /// Per endpoint: the peer's hello is not read yet.
    pending: Vec<bool>,
    /// Per endpoint: the caller's announcement, passed on once the hello
    /// is read.
    next: Vec<Option<usize>>,
    /// A hello check failed (or the link failed while reading a hello).
    failed: bool,
}

impl<'a, M: Mesh + ?Sized> Greeting<'a, M> {
    /// Sends our `hello` (plus [`Mesh::me`] and [`Mesh::parties`]) to every
    /// peer without waiting for theirs, and announces a hello on every link.
    pub fn start(mesh: &'a mut M, hello: &Hello) -> Result<Self, MeshError> {
        let (me, n) = (mesh.me(), mesh.parties());
        let (ours, frame) = announce_hello(mesh, hello)?;
        for peer in (0..n).filter(|&p| p != me) {
            mesh.send_to(peer, &frame)?;
        }
        mesh.flush()?;
        Ok(Greeting {
            inner: mesh,
            ours,
            pending: (0..n).map(|p| p != me).collect(),
            next: vec![None; n],
            failed: false,
        })
    }

    /// Reads and checks the hello of every peer not heard from yet (in
    /// index order): call it before using the run's result.
    pub fn finish(&mut self) -> Result<(), MeshError> {
        for peer in 0..self.pending.len() {
            self.greet(peer)?;
        }
        Ok(())
    }

    /// Whether a failure came from a peer's hello (a mismatch, a frame that
    /// is not a hello, or the link failing before the hello arrived).
    pub fn failed(&self) -> bool {
        self.failed
    }

    /// Reads and checks `peer`'s hello if it is pending, then passes on
    /// the caller's announcement for that link.
    fn greet(&mut self, peer: usize) -> Result<(), MeshError> {
        if !self.pending.get(peer).copied().unwrap_or(false) {
            return Ok(());
        }
        self.failed = true;
        let mut buf = Vec::new();
        self.inner.recv_from(peer, &mut buf, MAX_HELLO)?;
        let theirs = Stated::decode(&buf).map_err(|e| MeshError::setup(peer, e))?;
        if let Some(field) = self.ours.first_difference(&theirs, peer) {
            return Err(MeshError::Mismatch { peer, field });
        }
        self.failed = false;
        self.pending[peer] = false;
        self.inner.expect_next_frame(peer, self.next[peer]);
        Ok(())
    }

    /// Before a send to `peer`: reads its hello first if the frame
    /// announced next on that link exceeds what a waiting send reads ahead.
    fn before_send(&mut self, peer: usize) -> Result<(), MeshError> {
        let big = self.next.get(peer).copied().flatten().unwrap_or(0)
            > crate::transport::channel::READ_AHEAD_SLACK;
        if big {
            self.greet(peer)?;
        }
        Ok(())
    }
}

impl<M: Mesh + ?Sized> Mesh for Greeting<'_, M> {
    fn me(&self) -> usize {
        self.inner.me()
    }
    fn parties(&self) -> usize {
        self.inner.parties()
    }
    fn send_to(&mut self, peer: usize, msg: &[u8]) -> Result<(), MeshError> {
        self.before_send(peer)?;
        self.inner.send_to(peer, msg)
    }
    fn send_vec_to(&mut self, peer: usize, msg: Vec<u8>) -> Result<(), MeshError> {
        self.before_send(peer)?;
        self.inner.send_vec_to(peer, msg)
    }
    fn flush(&mut self) -> Result<(), MeshError> {
        self.inner.flush()
    }
    fn recv_from(
        &mut self,
        peer: usize,
        buf: &mut Vec<u8>,
        max_len: usize,
    ) -> Result<(), MeshError> {
        self.greet(peer)?;
        self.inner.recv_from(peer, buf, max_len)
    }
    fn recv_any(
        &mut self,
        from: &[usize],
        buf: &mut Vec<u8>,
        max_len: usize,
    ) -> Result<usize, MeshError> {
        for &peer in from {
            self.greet(peer)?;
        }
        self.inner.recv_any(from, buf, max_len)
    }
    fn stats(&self, peer: usize) -> crate::transport::channel::ChannelStats {
        self.inner.stats(peer)
    }
    fn expect_next_frame(&mut self, peer: usize, len: Option<usize>) {
        match self.pending.get(peer) {
            Some(true) => self.next[peer] = len,
            _ => self.inner.expect_next_frame(peer, len),
        }
    }
    fn notify_abort(&mut self, notice: &crate::transport::channel::AbortNotice) {
        self.inner.notify_abort(notice)
    }
    fn await_notices(
        &mut self,
        from: &[usize],
        wait: std::time::Duration,
    ) -> Vec<(usize, crate::transport::channel::AbortNotice)> {
        self.inner.await_notices(from, wait)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stated() -> Stated {
        Stated {
            hello: Hello {
                protocol: "CoinFlip".into(),
                spec_hash: [3; 32],
                params: vec![1, 2, 3],
                session: [9; 16],
            },
            parties: 5,
            me: 2,
        }
    }

    #[test]
    fn hello_round_trips() {
        let s = stated();
        let frame = s.encode().unwrap();
        assert_eq!(Stated::decode(&frame).unwrap(), s);
    }

    #[test]
    fn malformed_hellos_are_refused() {
        let frame = stated().encode().unwrap();
        for cut in 0..frame.len() {
            assert!(Stated::decode(&frame[..cut]).is_err(), "cut at {cut}");
        }
        let mut long = frame.clone();
        long.push(0);
        assert!(Stated::decode(&long).is_err());
        let mut bad = frame;
        bad[0] ^= 1;
        assert!(Stated::decode(&bad).is_err());
    }

    #[test]
    fn first_difference_follows_field_order() {
        let a = stated();
        let mut b = stated();
        b.me = 4;
        assert_eq!(a.first_difference(&b, 4), None);
        assert_eq!(a.first_difference(&b, 3), Some(HelloField::PartyIndex));
        b.parties = 6;
        assert_eq!(a.first_difference(&b, 4), Some(HelloField::PartyCount));
        b.hello.session[0] = 0;
        assert_eq!(a.first_difference(&b, 4), Some(HelloField::Session));
        b.hello.params.clear();
        assert_eq!(a.first_difference(&b, 4), Some(HelloField::Params));
        b.hello.spec_hash[31] = 0;
        assert_eq!(a.first_difference(&b, 4), Some(HelloField::SpecHash));
        b.hello.protocol.push('X');
        assert_eq!(a.first_difference(&b, 4), Some(HelloField::Protocol));
    }

    #[test]
    fn oversized_params_are_a_setup_error() {
        let mut s = stated();
        s.hello.params = vec![0; MAX_HELLO];
        assert!(s.encode().is_err());
    }
}
