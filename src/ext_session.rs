//! OT-extension sessions: the base OTs once, then any number of extensions.
//!
//! [`OtExtension::setup_sender`] / [`OtExtension::setup_receiver`] run
//! `protocols/iknp_setup.otp` (the 128 base OTs, roles swapped) and return
//! an [`ExtSender`] / [`ExtReceiver`] holding the session's base-OT seeds.
//! Each [`ExtSender::extend`] / [`ExtReceiver::extend`] then runs one
//! extension, `protocols/iknp_extend.otp` (semi-honest IKNP) or
//! `protocols/kos_extend.otp` (malicious KOS with the corrected check),
//! with no base OTs: the counter `first` (the OTs extended before) keys
//! the extension's PRG seeds and offsets its hash tweaks, so no PRG output
//! or tweak is used twice, and it is a bound parameter, so two parties
//! whose counters differ are refused with `PeerMismatch`.
//!
//! The message flow is the `.otp` files'; this module only keeps their
//! outputs between runs and counts. After any failed call (a failed check,
//! a channel error) a party refuses every further call with
//! [`ExtSessionPoisoned`]: its counter may no longer match the peer's, and
//! in KOS the bits of `s` a cheating receiver guesses at the risk of an
//! abort must not add up over retries. Secrets (`s`, the base-OT seeds)
//! are wiped on drop.

use zeroize::Zeroize;

use crate::runtime::primitives::rng::Rng;
use crate::runtime::transport::channel::Channel;
use crate::runtime::{Bits, Block};
use crate::traits::{
    base_party, len_param, OtError, OtExtension, RandomOtReceiver, RandomOtSender,
};

/// The error of a session party used after one of its calls failed, or of
/// a session asked of a configuration it does not support (inside
/// [`OtError`]; find it with `err.0.downcast_ref::<ExtSessionPoisoned>()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExtSessionPoisoned {
    /// An earlier setup or extension of this party failed.
    Failed,
    /// Sessions run IKNP or KOS; SoftSpokenOT configurations are refused.
    Unsupported,
}

impl std::fmt::Display for ExtSessionPoisoned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            ExtSessionPoisoned::Failed => {
                "OT-extension session refused: an earlier call of this session failed (the \
                 counters may differ, and a failed KOS check may reveal bits of s); run a new \
                 setup"
            }
            ExtSessionPoisoned::Unsupported => {
                "OT-extension sessions run IKNP or KOS, not SoftSpokenOT"
            }
        })
    }
}

impl std::error::Error for ExtSessionPoisoned {}

pub(crate) fn poisoned(kind: ExtSessionPoisoned) -> OtError {
    OtError(Box::new(kind))
}

/// What both roles keep besides their secrets: the configuration, the
/// setup's session id and the counter.
/// (Shared with the KKRT/OOS sessions of [`crate::oprf_session`].)
pub(crate) struct Session {
    pub(crate) malicious: bool,
    pub(crate) sha1: bool,
    pub(crate) threads: usize,
    pub(crate) rng: Rng,
    pub(crate) sid: Block,
    /// OTs extended so far (the next extension's `first`); `None` after a
    /// failure.
    pub(crate) next: Option<usize>,
    /// The previous extension's output struct (its intermediate buffers,
    /// and a buffer handed back by `recycle`), reused by the next one.
    pub(crate) prev: Option<Box<dyn std::any::Any + Send>>,
}

impl Session {
    /// Runs `extend` with the next counter value and advances it by `n`,
    /// or leaves the session poisoned if it fails.
    pub(crate) fn advance<R>(
        &mut self,
        n: usize,
        extend: impl FnOnce(&mut Self, usize) -> Result<R, OtError>,
    ) -> Result<R, OtError> {
        let first = self
            .next
            .take()
            .ok_or_else(|| poisoned(ExtSessionPoisoned::Failed))?;
        let out = extend(self, first)?;
        self.next = first.checked_add(n);
        Ok(out)
    }
}

/// The sender of an OT-extension session (IKNP or KOS): holds `s` and its
/// 128 base-OT seeds; one batch of random OTs per [`ExtSender::extend`].
pub struct ExtSender {
    session: Session,
    delta: Block,
    base_chosen: Vec<Block>,
}

impl Drop for ExtSender {
    fn drop(&mut self) {
        self.delta.0.zeroize();
        for b in &mut self.base_chosen {
            b.0.zeroize();
        }
    }
}

/// The receiver of an OT-extension session: holds both seeds of each of
/// the 128 base OTs; one batch per [`ExtReceiver::extend`].
pub struct ExtReceiver {
    session: Session,
    base_keys: Vec<[Block; 2]>,
}

impl Drop for ExtReceiver {
    fn drop(&mut self) {
        for [a, b] in &mut self.base_keys {
            a.0.zeroize();
            b.0.zeroize();
        }
    }
}

impl OtExtension {
    /// The session's configuration, or `Unsupported` for SoftSpokenOT.
    fn session(&mut self) -> Result<Session, OtError> {
        if self.softspoken.is_some() {
            return Err(poisoned(ExtSessionPoisoned::Unsupported));
        }
        Ok(Session {
            malicious: self.malicious,
            sha1: self.sha1,
            threads: self.threads,
            rng: self.fork(),
            sid: Block::ZERO,
            next: Some(0),
            prev: None,
        })
    }

    /// Runs a session's setup (`iknp_setup.otp`: the base OTs with this
    /// configuration's base-OT protocol) as the OT-extension sender; the
    /// result extends many times ([`ExtSender::extend`]).
    pub fn setup_sender(&mut self, ch: &mut dyn Channel) -> Result<ExtSender, OtError> {
        use crate::iknp_setup as m;
        let mut session = self.session()?;
        let base = base_party(self.base, &mut session.rng);
        let out = m::Sender::new(
            m::Params::new()?,
            m::SenderInput {},
            session.rng.fork(),
            m::SenderSubs { base },
        )?
        .run(ch)?;
        session.sid = out.sid;
        Ok(ExtSender {
            session,
            delta: out.delta,
            base_chosen: out.base_chosen,
        })
    }

    /// Runs a session's setup as the OT-extension receiver (the peer of
    /// [`OtExtension::setup_sender`], with the same configuration).
    pub fn setup_receiver(&mut self, ch: &mut dyn Channel) -> Result<ExtReceiver, OtError> {
        use crate::iknp_setup as m;
        let mut session = self.session()?;
        let base = base_party(self.base, &mut session.rng);
        let out = m::Receiver::new(
            m::Params::new()?,
            m::ReceiverInput {},
            session.rng.fork(),
            m::ReceiverSubs { base },
        )?
        .run(ch)?;
        session.sid = out.sid;
        Ok(ExtReceiver {
            session,
            base_keys: out.base_keys,
        })
    }
}

/// Runs role `$role` of one extension (`kos_extend.otp` for a malicious
/// session, else `iknp_extend.otp`) at counter `$first` with input
/// `$input { .. }`, reusing the previous extension's buffers, and
/// evaluates to its output `$out` (the rest of the output struct is kept
/// for the next extension).
macro_rules! extension {
    ($s:ident, $ch:ident, $n:ident, $first:ident, $role:ident, $input:ident { $($f:ident),* }, $output:ident . $out:ident) => {{
        let rng = $s.rng.fork();
        let prev = $s.prev.take();
        macro_rules! run {
            ($m:ident) => {{
                let params = crate::$m::Params::new($n, $s.threads, $s.sha1, $s.sid, $first)?;
                let mut role = crate::$m::$role::new(params, crate::$m::$input { $($f),* }, rng)?;
                if let Some(p) = prev.and_then(|b| b.downcast::<crate::$m::$output>().ok()) {
                    role = role.reuse_outputs(*p);
                }
                let mut out = role.run($ch)?;
                let value = std::mem::take(&mut out.$out);
                $s.prev = Some(Box::new(out));
                value
            }};
        }
        if $s.malicious {
            run!(kos_extend)
        } else {
            run!(iknp_extend)
        }
    }};
}

/// Puts `buffer` back as the `$out` of the kept output struct, so the next
/// extension writes into it.
macro_rules! recycle {
    ($s:expr, $output:ident . $out:ident, $buffer:ident) => {
        if let Some(p) = $s.prev.as_mut() {
            if let Some(o) = p.downcast_mut::<crate::kos_extend::$output>() {
                o.$out = $buffer;
            } else if let Some(o) = p.downcast_mut::<crate::iknp_extend::$output>() {
                o.$out = $buffer;
            }
        }
    };
}

impl ExtSender {
    /// One extension of `n` random OTs (`kos_extend.otp` or
    /// `iknp_extend.otp`, no base OTs): `[m0, m1]` per OT. The receiver
    /// must call [`ExtReceiver::extend`] with `n` choice bits.
    pub fn extend(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError> {
        let n = len_param(n)?;
        let (delta, base_chosen) = (self.delta, &self.base_chosen);
        self.session.advance(n, |s, first| {
            let base_chosen = base_chosen.clone();
            Ok(extension!(
                s,
                ch,
                n,
                first,
                Sender,
                SenderInput { delta, base_chosen },
                SenderOutput.y
            ))
        })
    }

    /// OTs extended so far: the next extension's first global index.
    pub fn extended(&self) -> Option<usize> {
        self.session.next
    }

    /// Whether a failed call has made this party refuse further use.
    pub fn is_poisoned(&self) -> bool {
        self.session.next.is_none()
    }
}

impl ExtSender {
    /// Hands back the output of an earlier [`ExtSender::extend`] (values no
    /// longer needed): the next extension writes into its buffer instead
    /// of allocating (the session keeps each extension's intermediate
    /// buffers for the next one anyway; they are overwritten, not wiped).
    pub fn recycle(&mut self, buffer: Vec<[Block; 2]>) {
        recycle!(self.session, SenderOutput.y, buffer);
    }
}

impl ExtReceiver {
    /// Hands back the output of an earlier [`ExtReceiver::extend`]: the
    /// next extension writes into its buffer (see [`ExtSender::recycle`]).
    pub fn recycle(&mut self, buffer: Vec<Block>) {
        recycle!(self.session, ReceiverOutput.x, buffer);
    }
}

impl ExtReceiver {
    /// One extension with these choice bits: `m_{c_i}` per OT.
    pub fn extend(&mut self, ch: &mut dyn Channel, choices: &Bits) -> Result<Vec<Block>, OtError> {
        let n = len_param(choices.len())?;
        let base_keys = &self.base_keys;
        self.session.advance(n, |s, first| {
            let (r, base_keys) = (choices.clone(), base_keys.clone());
            Ok(extension!(
                s,
                ch,
                n,
                first,
                Receiver,
                ReceiverInput { r, base_keys },
                ReceiverOutput.x
            ))
        })
    }

    /// OTs extended so far: the next extension's first global index.
    pub fn extended(&self) -> Option<usize> {
        self.session.next
    }

    /// Whether a failed call has made this party refuse further use.
    pub fn is_poisoned(&self) -> bool {
        self.session.next.is_none()
    }
}

/// A session sender is a random-OT sender: each call is one extension.
impl RandomOtSender for ExtSender {
    fn send_random(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError> {
        self.extend(ch, n)
    }
}

/// A session receiver is a random-OT receiver: each call is one extension.
impl RandomOtReceiver for ExtReceiver {
    fn receive_random(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError> {
        self.extend(ch, choices)
    }
}
