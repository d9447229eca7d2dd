//! Session binding of two-party protocols: before a role returns an
//! output, it has checked that its peer runs the same protocol (name and
//! SHA-256 of the `.otp` sources), with the same parameters (all but those
//! marked `tuning`), in the dual role.
//!
//! The binding is the n-party session hello ([`crate::transport::mesh::Hello`], same
//! frame format) with two parties, the role's index as the party index and
//! an all-zero session id (a two-party run draws its fresh session salt
//! inside the protocol). Generated drivers send their binding as the first
//! frame, before any protocol message, and read the peer's just before their
//! first step that reads from the channel (a receive, a streamed receive, a
//! sub-protocol call, or the end of a role that never receives). No party
//! waits for the other's binding before sending its own, so the binding adds
//! one frame in each direction but no round trip, and both parties of a
//! mismatched pair see the other's binding and report [`Mismatch`].
//!
//! The binding is a separate frame rather than bytes prepended to the first
//! message because message lengths depend on the parameters: a peer with
//! another `n` must be refused for its parameters, not for a frame length.

#[cfg(feature = "tokio")]
use crate::transport::channel::AsyncChannel;
use crate::transport::channel::{Channel, ChannelError};
use crate::transport::mesh::hello::{Stated, MAGIC};
use crate::transport::mesh::{Hello, HelloField, MAX_HELLO};

/// What a peer's session binding disagrees on (the first difference, in
/// this order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, thiserror::Error)]
#[non_exhaustive]
pub enum Mismatch {
    /// The peer runs another protocol (another `protocol Name`, or a
    /// multiparty protocol).
    #[error("the peer runs another protocol")]
    Protocol,
    /// The peer runs another version of the protocol's `.otp` sources (the
    /// prelude, the file, its imports and `extends` bases).
    #[error("the peer runs another version of the protocol specification")]
    Spec,
    /// The peer's parameters differ (any parameter not marked `tuning`).
    #[error("the peer's parameters differ")]
    Params,
    /// The peer plays the same role, not the dual one.
    #[error("the peer plays the same role (not the dual one)")]
    Role,
    /// The peer's binding is no binding frame (tampered, or another
    /// program), or ours could not be encoded.
    #[error("the peer's session binding is malformed")]
    Malformed,
}

/// Why binding a session failed.
#[derive(Debug)]
pub enum BindError {
    /// The peer's binding differs from ours.
    Mismatch(Mismatch),
    /// Sending ours or receiving the peer's failed.
    Channel(ChannelError),
}

/// Bytes of a binding frame for a protocol name of `name_len` bytes whose
/// bound parameters encode to `params_len` bytes (what each role sends for
/// the binding; generated code exposes it as `BINDING_BYTES`).
pub const fn frame_len(name_len: usize, params_len: usize) -> usize {
    crate::transport::mesh::hello::frame_len(name_len, params_len)
}

/// Whether `frame` is a binding (or n-party hello) frame: tests that tamper
/// with protocol messages by index skip these.
pub fn is_binding(frame: &[u8]) -> bool {
    frame.starts_with(&MAGIC)
}

/// The binding frame of the dual role for a binding `frame` (the frame a
/// peer that agrees would send), or `None` if `frame` is no two-party
/// binding: for test and fuzzing peers that script the protocol's messages
/// but must get past the binding.
pub fn dual_frame(frame: &[u8]) -> Option<Vec<u8>> {
    let mut s = Stated::decode(frame).ok()?;
    if s.parties != 2 || s.me > 1 {
        return None;
    }
    s.me = 1 - s.me;
    s.encode().ok()
}

/// The [`Mismatch`] behind `err`, if any error in its source chain is one
/// (for example a sub-protocol's binding inside an OT extension's
/// `Error::SubProtocol`).
pub fn peer_mismatch(err: &(dyn std::error::Error + 'static)) -> Option<Mismatch> {
    let mut e = Some(err);
    while let Some(x) = e {
        if let Some(m) = x.downcast_ref::<Mismatch>() {
            return Some(*m);
        }
        e = x.source();
    }
    None
}

/// One role's binding of one session.
#[derive(Debug)]
pub struct Binding {
    ours: Stated,
    frame: Option<Vec<u8>>,
}

impl Binding {
    /// The binding of role `role` (0 or 1, in declaration order) of
    /// `protocol` with source hash `spec_hash` and canonical parameter
    /// encoding `params` (generated `Params::encode`).
    pub fn new(protocol: &str, spec_hash: [u8; 32], params: Vec<u8>, role: usize) -> Self {
        let ours = Stated {
            hello: Hello {
                protocol: protocol.into(),
                spec_hash,
                params,
                session: [0; 16],
            },
            parties: 2,
            me: u32::from(role != 0),
        };
        let frame = ours.encode().ok();
        Binding { ours, frame }
    }

    /// Our binding frame.
    fn frame(&self) -> Result<Vec<u8>, BindError> {
        self.frame
            .clone()
            .ok_or(BindError::Mismatch(Mismatch::Malformed))
    }

    /// Sends our binding as one frame (not flushed).
    pub fn send<C: Channel + ?Sized>(&self, ch: &mut C) -> Result<(), BindError> {
        ch.send_vec(self.frame()?).map_err(BindError::Channel)
    }

    /// Receives the peer's binding (into `buf`) and compares it with ours.
    pub fn check<C: Channel + ?Sized>(
        &self,
        ch: &mut C,
        buf: &mut Vec<u8>,
    ) -> Result<(), BindError> {
        ch.recv_into(buf, MAX_HELLO).map_err(BindError::Channel)?;
        self.check_frame(buf)
    }

    /// Compares the peer's binding frame with ours.
    fn check_frame(&self, frame: &[u8]) -> Result<(), BindError> {
        let theirs = Stated::decode(frame).map_err(|_| BindError::Mismatch(Mismatch::Malformed))?;
        let peer = 1 - self.ours.me as usize;
        match self.ours.first_difference(&theirs, peer) {
            None => Ok(()),
            Some(f) => Err(BindError::Mismatch(match f {
                HelloField::Protocol | HelloField::PartyCount => Mismatch::Protocol,
                HelloField::SpecHash => Mismatch::Spec,
                HelloField::Params => Mismatch::Params,
                HelloField::PartyIndex => Mismatch::Role,
                _ => Mismatch::Malformed,
            })),
        }
    }

    /// After a step before the check failed (typically a send to a peer
    /// that already refused us and hung up): the peer's binding, if it is
    /// still readable and differs from ours, so that this side too reports
    /// the [`Mismatch`] rather than the hang-up.
    pub fn mismatch_after_error<C: Channel + ?Sized>(
        &self,
        ch: &mut C,
        buf: &mut Vec<u8>,
    ) -> Option<Mismatch> {
        match self.check(ch, buf) {
            Err(BindError::Mismatch(m)) => Some(m),
            _ => None,
        }
    }
}

/// The async twins of [`Binding::send`], [`Binding::check`] and
/// [`Binding::mismatch_after_error`], for the generated `run_async`
/// drivers: the same frames, so an async party binds with a blocking one.
#[cfg(feature = "tokio")]
impl Binding {
    /// Sends our binding as one frame (not flushed).
    pub async fn send_async<C: AsyncChannel + ?Sized>(&self, ch: &mut C) -> Result<(), BindError> {
        ch.send_vec(self.frame()?).await.map_err(BindError::Channel)
    }

    /// Receives the peer's binding (into `buf`) and compares it with ours.
    pub async fn check_async<C: AsyncChannel + ?Sized>(
        &self,
        ch: &mut C,
        buf: &mut Vec<u8>,
    ) -> Result<(), BindError> {
        ch.recv_into(buf, MAX_HELLO)
            .await
            .map_err(BindError::Channel)?;
        self.check_frame(buf)
    }

    /// The peer's [`Mismatch`] after an earlier step failed (see
    /// [`Binding::mismatch_after_error`]).
    pub async fn mismatch_after_error_async<C: AsyncChannel + ?Sized>(
        &self,
        ch: &mut C,
        buf: &mut Vec<u8>,
    ) -> Option<Mismatch> {
        match self.check_async(ch, buf).await {
            Err(BindError::Mismatch(m)) => Some(m),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::channel::MemoryChannel;

    fn pair_check(a: &Binding, b: &Binding) -> (Result<(), BindError>, Result<(), BindError>) {
        let (mut x, mut y) = MemoryChannel::pair();
        a.send(&mut x).unwrap();
        b.send(&mut y).unwrap();
        let mut buf = vec![];
        (a.check(&mut x, &mut buf), b.check(&mut y, &mut buf))
    }

    fn mismatch(r: Result<(), BindError>) -> Option<Mismatch> {
        match r {
            Err(BindError::Mismatch(m)) => Some(m),
            _ => None,
        }
    }

    #[test]
    fn dual_roles_agree_and_differences_are_named() {
        let b = |name: &str, h: u8, p: u8, role| Binding::new(name, [h; 32], vec![p], role);
        let (x, y) = pair_check(&b("Iknp", 1, 2, 0), &b("Iknp", 1, 2, 1));
        assert!(x.is_ok() && y.is_ok());
        for (other, want) in [
            (b("Kos", 1, 2, 1), Mismatch::Protocol),
            (b("Iknp", 9, 2, 1), Mismatch::Spec),
            (b("Iknp", 1, 3, 1), Mismatch::Params),
            (b("Iknp", 1, 2, 0), Mismatch::Role),
        ] {
            let (x, y) = pair_check(&b("Iknp", 1, 2, 0), &other);
            assert_eq!(mismatch(x), Some(want));
            assert_eq!(mismatch(y), Some(want));
        }
    }

    #[test]
    fn the_dual_frame_is_accepted() {
        let a = Binding::new("Iknp", [1; 32], vec![2], 0);
        let (mut x, mut y) = MemoryChannel::pair();
        let dual = dual_frame(a.frame.as_deref().unwrap()).unwrap();
        y.send(&dual).unwrap();
        assert!(a.check(&mut x, &mut vec![]).is_ok());
        assert_eq!(dual_frame(b"not a binding"), None);
    }

    #[test]
    fn a_tampered_binding_is_a_mismatch() {
        let a = Binding::new("Iknp", [1; 32], vec![2], 0);
        let frame = a.frame.clone().unwrap();
        assert!(is_binding(&frame));
        assert_eq!(frame.len(), frame_len(4, 1));
        let b = Binding::new("Iknp", [1; 32], vec![2], 1);
        for i in 0..frame.len() {
            let (mut x, mut y) = MemoryChannel::pair();
            let mut f = frame.clone();
            f[i] ^= 0x01;
            x.send(&f).unwrap();
            assert!(mismatch(b.check(&mut y, &mut vec![])).is_some(), "byte {i}");
        }
    }
}
