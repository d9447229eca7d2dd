//! KKRT and OOS sessions: the 512 base OTs once, then any number of
//! extensions.
//!
//! [`Oprf::setup_sender`] / [`Oprf::setup_receiver`] run
//! `protocols/kkrt_setup.otp` (512 random base OTs, roles swapped, from
//! IKNP for KKRT or KOS for OOS over 128 public-key base OTs) and return
//! an [`OprfSender`] / [`OprfReceiver`] holding the session's base-OT
//! seeds. Each [`OprfSender::extend`] / [`OprfReceiver::extend`] then runs
//! one extension, `protocols/kkrt_extend.otp` (the semi-honest batched
//! OPRF of KKRT16) or `protocols/oos_extend.otp` (OOS17's malicious
//! 1-out-of-2^k OT over a linear code, with its consistency check per
//! extension), with no base OTs: the counter `first` (the instances
//! extended before) keys the extension's PRG seeds and offsets its hash
//! tweaks, so no PRG output or tweak is used twice in a session, and it
//! is a bound parameter, so two parties whose counters differ are refused
//! with `PeerMismatch`. The sender's result, an [`OprfBatch`], evaluates
//! the OPRF of instance `i` of the extension at its global index
//! `first + i` ([`OprfBatch::encode`]).
//!
//! As in [`crate::ext_session`] (which this module shares its bookkeeping
//! with), the message flow is the `.otp` files'; after any failed call a
//! party refuses every further call with
//! [`ExtSessionPoisoned::Failed`](crate::ExtSessionPoisoned::Failed),
//! and the secrets (`s`, the base-OT seeds, each batch's copy of `s`) are
//! wiped on drop.

use std::sync::Arc;

use zeroize::Zeroize;

use crate::ext_session::Session;
use crate::runtime::oprf::code::{LinearCode, PrCode};
use crate::runtime::oprf::{oprf_eval, oprf_eval_many, Word};
use crate::runtime::primitives::rng::Rng;
use crate::runtime::transport::channel::Channel;
use crate::runtime::Block;
use crate::runtime::HashTweaks;
use crate::traits::{len_param, BaseOtKind, OtError, OtExtension};

/// The code of a session: KKRT's pseudorandom code (from the session id)
/// or OOS's linear code.
#[derive(Clone, Debug)]
enum SessionCode {
    Pseudorandom(Box<PrCode>),
    Linear(Arc<LinearCode>),
}

/// Builder of a KKRT or OOS session: the protocol, its base OTs and its
/// configuration (one thread, the fixed-key AES hash by default). It is
/// also the prelude's `Oprf` functionality ([`BatchedOprfSender`](crate::BatchedOprfSender),
/// [`BatchedOprfReceiver`](crate::BatchedOprfReceiver)): one whole run of
/// `kkrt.otp` or `oos.otp`, base OTs included, per call.
pub struct Oprf {
    /// `None`: KKRT; `Some(code)`: OOS over `code`.
    code: Option<Arc<LinearCode>>,
    base: BaseOtKind,
    /// The caller opted out of the base-OT rule (`crate::base_rule`).
    insecure_base: bool,
    threads: usize,
    sha1: bool,
    rng: Rng,
}

impl Oprf {
    /// A KKRT session (semi-honest batched OPRF, N = 2^128 inputs): its
    /// 512 base OTs are IKNP-extended from 128 CO15 base OTs.
    pub fn kkrt() -> Self {
        Oprf {
            code: None,
            base: BaseOtKind::Co15,
            insecure_base: false,
            threads: 1,
            sha1: false,
            rng: Rng::from_entropy(),
        }
    }

    /// An OOS session (malicious 1-out-of-2^76 OT over BCH(511, 76)): its
    /// 512 base OTs are KOS-extended from 128 MR19 base OTs.
    pub fn oos() -> Self {
        Oprf {
            code: Some(Arc::new(LinearCode::bch_511_76())),
            base: BaseOtKind::default_for(true),
            ..Self::kkrt()
        }
    }

    /// An OOS session over another linear code (N = 2^k for a `[n, k]`
    /// code; its minimum distance should be at least 128, see `oos.otp`).
    pub fn with_code(mut self, code: LinearCode) -> Self {
        self.code = Some(Arc::new(code));
        self
    }

    /// Runs the 128 public-key base OTs under the 512 with another
    /// protocol (default: CO15 for KKRT, MR19 for OOS). OOS (malicious)
    /// refuses the semi-honest CO15 and NP00 with [`crate::UnfitBaseOt`],
    /// here and again at setup (a code set after the base).
    pub fn with_base(mut self, base: BaseOtKind) -> Result<Self, crate::UnfitBaseOt> {
        self.base = crate::base_rule::checked_base(self.code.is_some(), "OOS", base)?;
        Ok(self)
    }

    /// Runs the base OTs with any protocol, also a semi-honest one under
    /// OOS (then no more secure than that base OT against a malicious
    /// peer).
    pub fn with_semi_honest_base_insecure(mut self, base: BaseOtKind) -> Self {
        self.base = base;
        self.insecure_base = true;
        self
    }

    /// Splits the bulk kernels over `threads` cores per party.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Uses the SHA-1 random oracle instead of the fixed-key AES hash.
    pub fn with_sha1(mut self, sha1: bool) -> Self {
        self.sha1 = sha1;
        self
    }

    /// The OT extension that runs the 512 base OTs of a run (IKNP for
    /// KKRT, KOS for OOS, over the configured public-key base OT).
    pub(crate) fn base_extension(&self) -> Result<OtExtension, OtError> {
        let ext = if self.code.is_some() {
            OtExtension::kos()
        } else {
            OtExtension::iknp()
        };
        Ok(if self.insecure_base {
            ext.with_semi_honest_base_insecure(self.base)
        } else {
            ext.with_base(self.base)?
        })
    }

    /// OOS's code (`None`: KKRT).
    pub(crate) fn linear_code(&self) -> Option<LinearCode> {
        self.code.as_deref().cloned()
    }

    /// Worker threads per party.
    pub(crate) fn threads(&self) -> usize {
        self.threads
    }

    /// Whether the row hash is SHA-1.
    pub(crate) fn sha1(&self) -> bool {
        self.sha1
    }

    /// A fresh RNG for one run.
    pub(crate) fn fork_rng(&mut self) -> Rng {
        self.rng.fork()
    }

    /// The session's bookkeeping, and the OT extension that runs its 512
    /// base OTs (IKNP for KKRT, KOS for OOS).
    fn session(&mut self) -> Result<(Session, Box<OtExtension>), OtError> {
        let malicious = self.code.is_some();
        let ext = self.base_extension()?;
        let session = Session {
            malicious,
            sha1: self.sha1,
            threads: self.threads,
            rng: self.rng.fork(),
            sid: Block::ZERO,
            next: Some(0),
            prev: None,
        };
        Ok((session, Box::new(ext)))
    }

    /// Runs a session's setup (`kkrt_setup.otp`) as the OPRF / OT sender
    /// (the base-OT receiver); the result extends many times
    /// ([`OprfSender::extend`]).
    pub fn setup_sender(&mut self, ch: &mut dyn Channel) -> Result<OprfSender, OtError> {
        use crate::kkrt_setup as m;
        let (mut session, base) = self.session()?;
        let out = m::Sender::new(
            m::Params::new()?,
            m::SenderInput {},
            session.rng.fork(),
            m::SenderSubs { base },
        )?
        .run(ch)?;
        session.sid = out.sid;
        Ok(OprfSender {
            session,
            code: self.code.clone(),
            key: out.key,
            base_chosen: out.base_chosen,
        })
    }

    /// Runs a session's setup as the receiver (the peer of
    /// [`Oprf::setup_sender`], with the same configuration).
    pub fn setup_receiver(&mut self, ch: &mut dyn Channel) -> Result<OprfReceiver, OtError> {
        use crate::kkrt_setup as m;
        let (mut session, base) = self.session()?;
        let out = m::Receiver::new(
            m::Params::new()?,
            m::ReceiverInput {},
            session.rng.fork(),
            m::ReceiverSubs { base },
        )?
        .run(ch)?;
        session.sid = out.sid;
        Ok(OprfReceiver {
            session,
            code: self.code.clone(),
            base_keys: out.base_keys,
        })
    }
}

/// The sender of a KKRT / OOS session: holds `s` and its 512 base-OT
/// seeds; one [`OprfBatch`] per [`OprfSender::extend`].
pub struct OprfSender {
    session: Session,
    code: Option<Arc<LinearCode>>,
    key: Word,
    base_chosen: Vec<Block>,
}

impl Drop for OprfSender {
    fn drop(&mut self) {
        for b in self.key.iter_mut().chain(&mut self.base_chosen) {
            b.0.zeroize();
        }
    }
}

/// The receiver of a KKRT / OOS session: holds both seeds of each of the
/// 512 base OTs; one batch of values per [`OprfReceiver::extend`].
pub struct OprfReceiver {
    session: Session,
    code: Option<Arc<LinearCode>>,
    base_keys: Vec<[Block; 2]>,
}

impl Drop for OprfReceiver {
    fn drop(&mut self) {
        for [a, b] in &mut self.base_keys {
            a.0.zeroize();
            b.0.zeroize();
        }
    }
}

/// The sender's result of one extension: the OPRF (KKRT) or the OT keys
/// (OOS) of its instances, each at its global index in the session.
/// Holds a copy of the session's secret `s`, wiped on drop.
pub struct OprfBatch {
    first: usize,
    q: Vec<Word>,
    key: Word,
    sid: Block,
    sha1: bool,
    code: SessionCode,
}

impl Drop for OprfBatch {
    fn drop(&mut self) {
        for b in &mut self.key {
            b.0.zeroize();
        }
    }
}

impl OprfBatch {
    /// The global index of this batch's instance 0 (the instances the
    /// session extended before it).
    pub fn first(&self) -> usize {
        self.first
    }

    /// Number of instances of the batch.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Whether the batch has no instances (never, for a completed
    /// extension).
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// The sender's value of instance `i` of this batch on input `x`:
    /// `H(first + i, q_i ⊕ (C(x) ∧ s))` [KKRT16, Fig. 2; OOS17], the hash
    /// at the instance's global index; equals the receiver's `i`-th value
    /// of the same extension when `x` is its input `i`. `None` if
    /// `i >= len()`.
    pub fn encode(&self, i: usize, x: Block) -> Option<Block> {
        let q = self.q.get(i)?;
        let j = self.first + i;
        Some(match &self.code {
            SessionCode::Pseudorandom(c) => {
                oprf_eval(&**c, &self.key, q, self.sid, self.sha1, j, x)
            }
            SessionCode::Linear(c) => oprf_eval(&**c, &self.key, q, self.sid, self.sha1, j, x),
        })
    }

    /// [`encode`](Self::encode) of instance `start + k` on `inputs[k]`,
    /// batched and split over `threads` cores, for the `k` with
    /// `start + k < len()`.
    pub fn encode_many(&self, start: usize, inputs: &[Block], threads: usize) -> Vec<Block> {
        let n = inputs.len().min(self.q.len().saturating_sub(start));
        let mut out = vec![Block::ZERO; n];
        self.encode_many_into(start, inputs, &mut out, threads);
        out
    }

    /// [`encode_many`](Self::encode_many) into `out` (a buffer reused
    /// across calls), for the `k < out.len()` with `start + k < len()`;
    /// returns how many values it wrote.
    pub fn encode_many_into(
        &self,
        start: usize,
        inputs: &[Block],
        out: &mut [Block],
        threads: usize,
    ) -> usize {
        let key = &self.key;
        let q = self.q.get(start..).unwrap_or(&[]);
        // Instance `start + k` of this extension is instance
        // `first + start + k` of the session.
        let tweaks = HashTweaks::new(self.sid, self.sha1, self.first.wrapping_add(start));
        match &self.code {
            SessionCode::Pseudorandom(c) => {
                oprf_eval_many(&**c, key, q, &tweaks, inputs, threads, out)
            }
            SessionCode::Linear(c) => oprf_eval_many(&**c, key, q, &tweaks, inputs, threads, out),
        }
    }
}

/// Runs role `$role` of one extension of protocol module `$m` with input
/// `$input` at counter `$first`, reusing the previous extension's buffers,
/// and evaluates to `$take` on the output `$o`; the output struct (with
/// what `$take` left in it) is kept for the next extension.
macro_rules! run_extension {
    ($m:ident, $s:ident, $ch:ident, $n:ident, $first:ident, $role:ident, $input:expr,
     $output:ident, |$o:ident| $take:expr) => {{
        let params = crate::$m::Params::new($n, $s.threads, $s.sha1, $s.sid, $first)?;
        let mut role = crate::$m::$role::new(params, $input, $s.rng.fork())?;
        let prev = $s.prev.take();
        if let Some(p) = prev.and_then(|b| b.downcast::<crate::$m::$output>().ok()) {
            role = role.reuse_outputs(*p);
        }
        let mut $o = role.run($ch)?;
        let value = $take;
        $s.prev = Some(Box::new($o));
        value
    }};
}

impl OprfSender {
    /// One extension of `n` instances (`kkrt_extend.otp` or
    /// `oos_extend.otp`, no base OTs): the sender's OPRF / OT keys of
    /// instances `first..first + n` of the session. The receiver must call
    /// [`OprfReceiver::extend`] with `n` inputs.
    pub fn extend(&mut self, ch: &mut dyn Channel, n: usize) -> Result<OprfBatch, OtError> {
        let n = len_param(n)?;
        let (key, base_chosen, code) = (self.key, &self.base_chosen, &self.code);
        self.session.advance(n, |s, first| {
            let base_chosen = base_chosen.clone();
            let (q, sid, code) = match code {
                Some(c) => {
                    let input = crate::oos_extend::SenderInput {
                        code: LinearCode::clone(c),
                        key,
                        base_chosen,
                    };
                    let (q, sid) = run_extension!(
                        oos_extend,
                        s,
                        ch,
                        n,
                        first,
                        Sender,
                        input,
                        SenderOutput,
                        |o| (std::mem::take(&mut o.q), o.ot_sid)
                    );
                    (q, sid, SessionCode::Linear(c.clone()))
                }
                None => {
                    let input = crate::kkrt_extend::SenderInput { key, base_chosen };
                    let (q, code) = run_extension!(
                        kkrt_extend,
                        s,
                        ch,
                        n,
                        first,
                        Sender,
                        input,
                        SenderOutput,
                        |o| (std::mem::take(&mut o.q), o.ot_code.clone())
                    );
                    (q, s.sid, SessionCode::Pseudorandom(Box::new(code)))
                }
            };
            Ok(OprfBatch {
                first,
                q,
                key,
                sid,
                sha1: s.sha1,
                code,
            })
        })
    }

    /// Instances extended so far: the next extension's first global index
    /// (`None` once poisoned).
    pub fn extended(&self) -> Option<usize> {
        self.session.next
    }

    /// Whether a failed call has made this party refuse further use.
    pub fn is_poisoned(&self) -> bool {
        self.session.next.is_none()
    }

    /// Hands back a batch no longer needed: the next extension writes its
    /// rows into the batch's buffer instead of allocating (the session
    /// keeps each extension's intermediate buffers for the next one
    /// anyway; they are overwritten, not wiped).
    pub fn recycle(&mut self, mut batch: OprfBatch) {
        let q = std::mem::take(&mut batch.q);
        if let Some(p) = self.session.prev.as_mut() {
            if let Some(o) = p.downcast_mut::<crate::kkrt_extend::SenderOutput>() {
                o.q = q;
            } else if let Some(o) = p.downcast_mut::<crate::oos_extend::SenderOutput>() {
                o.q = q;
            }
        }
    }
}

impl OprfReceiver {
    /// One extension with these inputs (KKRT: any blocks; OOS: choices
    /// below 2^k): the value of input `i` at global index `first + i`,
    /// equal to the sender's [`OprfBatch::encode`]`(i, inputs[i])`.
    pub fn extend(
        &mut self,
        ch: &mut dyn Channel,
        inputs: &[Block],
    ) -> Result<Vec<Block>, OtError> {
        let n = len_param(inputs.len())?;
        let (base_keys, code) = (&self.base_keys, &self.code);
        self.session.advance(n, |s, first| {
            let base_keys = base_keys.clone();
            Ok(match code {
                Some(c) => {
                    let input = crate::oos_extend::ReceiverInput {
                        code: LinearCode::clone(c),
                        choices: inputs.to_vec(),
                        base_keys,
                    };
                    run_extension!(
                        oos_extend,
                        s,
                        ch,
                        n,
                        first,
                        Receiver,
                        input,
                        ReceiverOutput,
                        |o| std::mem::take(&mut o.values)
                    )
                }
                None => {
                    let input = crate::kkrt_extend::ReceiverInput {
                        inputs: inputs.to_vec(),
                        base_keys,
                    };
                    run_extension!(
                        kkrt_extend,
                        s,
                        ch,
                        n,
                        first,
                        Receiver,
                        input,
                        ReceiverOutput,
                        |o| std::mem::take(&mut o.values)
                    )
                }
            })
        })
    }

    /// Instances extended so far: the next extension's first global index
    /// (`None` once poisoned).
    pub fn extended(&self) -> Option<usize> {
        self.session.next
    }

    /// Whether a failed call has made this party refuse further use.
    pub fn is_poisoned(&self) -> bool {
        self.session.next.is_none()
    }

    /// Hands back the values of an earlier [`OprfReceiver::extend`]: the
    /// next extension writes into their buffer (see
    /// [`OprfSender::recycle`]).
    pub fn recycle(&mut self, buffer: Vec<Block>) {
        if let Some(p) = self.session.prev.as_mut() {
            if let Some(o) = p.downcast_mut::<crate::kkrt_extend::ReceiverOutput>() {
                o.values = buffer;
            } else if let Some(o) = p.downcast_mut::<crate::oos_extend::ReceiverOutput>() {
                o.values = buffer;
            }
        }
    }
}
