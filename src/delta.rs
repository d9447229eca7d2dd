//! Stateful Delta-OT (correlated OT) parties.
//!
//! A [`DeltaOtSender`] holds one global Delta for its whole life. Its first
//! call runs the base OTs once (`protocols/delta_base.otp`, the bits of
//! Delta as the base-OT choice bits); every call then extends one batch
//! from those base OTs (`protocols/delta_kos.otp` or
//! `protocols/delta_iknp.otp`, with the batch index as a parameter so each
//! batch expands its own PRG seeds). The paired [`DeltaOtReceiver`] keeps
//! the base-OT keys and counts batches the same way.
//!
//! After any failed call (a failed consistency check, a channel error, a
//! peer's bad message) a party refuses every further call with
//! [`DeltaOtPoisoned`]: a cheating receiver may learn a bit of Delta per
//! guess from whether a malicious run aborts, which the functionality
//! allows once; retrying with the same Delta would let the guesses add up.
//!
//! The message flow is the `.otp` files'; this module only keeps their
//! outputs between runs. Secrets it holds (Delta, the base-OT seeds) are
//! wiped on drop.

use zeroize::Zeroize;

use crate::runtime::primitives::rng::Rng;
use crate::runtime::softspoken::abo::{AboReceiverLeaves, AboSenderLeaves};
use crate::runtime::transport::channel::Channel;
use crate::runtime::{Bits, Block};
use crate::traits::{
    len_param, BaseOt, BaseOtKind, CorrelatedOtReceiver, CorrelatedOtSender, OtError, OtExtension,
};

/// The error of a Delta-OT party used after one of its calls failed (inside
/// [`OtError`]; find it with `err.0.downcast_ref::<DeltaOtPoisoned>()`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeltaOtPoisoned;

impl std::fmt::Display for DeltaOtPoisoned {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(
            "Delta-OT party refused: an earlier run with this Delta failed (a failed \
             consistency check may reveal bits of Delta to a cheating receiver); start a new \
             pair with a fresh Delta",
        )
    }
}

impl std::error::Error for DeltaOtPoisoned {}

/// Where a party is in its life: before the base OTs, extending, or
/// refusing after a failure.
enum Phase<T> {
    Fresh,
    Extending { base: T, next_batch: usize },
    Poisoned,
}

/// Configuration shared by both roles.
struct Config {
    malicious: bool,
    /// `Some(k)`: SoftSpokenOT with depth `k` instead of IKNP/KOS.
    softspoken: Option<usize>,
    threads: usize,
    base: BaseOtKind,
    rng: Rng,
}

impl Config {
    fn new(malicious: bool) -> Self {
        Config {
            malicious,
            softspoken: None,
            threads: 1,
            base: BaseOtKind::default_for(malicious),
            rng: Rng::from_entropy(),
        }
    }

    fn fork(&mut self) -> Rng {
        self.rng.fork()
    }

    /// `base` if this configuration may run over it (`crate::base_rule`).
    fn checked(&self, base: BaseOtKind) -> Result<BaseOtKind, crate::UnfitBaseOt> {
        let name = if self.softspoken.is_some() {
            "SoftSpokenOT Delta-OT"
        } else {
            "Delta-KOS"
        };
        crate::base_rule::checked_base(self.malicious, name, base)
    }

    fn base_party(&mut self) -> Box<BaseOt> {
        let rng = self.fork();
        Box::new(BaseOt::with_rng(self.base, rng))
    }

    fn abo_party(&mut self) -> Box<crate::AboOt> {
        let rng = self.fork();
        let party = if self.malicious {
            crate::AboOt::malicious()
        } else {
            crate::AboOt::semi_honest()
        };
        // `self.base` was checked (or opted out of) by `with_base`.
        Box::new(
            party
                .with_semi_honest_base_insecure(self.base)
                .with_rng(rng),
        )
    }
}

/// One call of a Delta-OT party: runs the base phase on the first call
/// (`setup`), then extends batch `next_batch` (`extend`), and leaves the
/// party poisoned if either fails (no half-updated state survives).
fn advance<T, R>(
    phase: &mut Phase<T>,
    config: &mut Config,
    ch: &mut dyn Channel,
    setup: impl FnOnce(&mut Config, &mut dyn Channel) -> Result<T, OtError>,
    extend: impl FnOnce(&mut Config, &mut dyn Channel, &T, usize) -> Result<R, OtError>,
) -> Result<R, OtError> {
    let mut current = std::mem::replace(phase, Phase::Poisoned);
    if matches!(current, Phase::Fresh) {
        current = Phase::Extending {
            base: setup(config, ch)?,
            next_batch: 0,
        };
    }
    let Phase::Extending { base, next_batch } = current else {
        return Err(OtError(Box::new(DeltaOtPoisoned)));
    };
    let out = extend(config, ch, &base, next_batch)?;
    *phase = Phase::Extending {
        base,
        next_batch: next_batch + 1,
    };
    Ok(out)
}

/// The sender of a Delta-OT pair: a fixed global Delta, base OTs run once,
/// then one batch of correlated OTs per [`CorrelatedOtSender::send_correlated`]
/// call. Malicious security (KOS with the corrected check, MR19 base OTs)
/// with [`DeltaOtSender::kos`], semi-honest with [`DeltaOtSender::iknp`];
/// the receiver must be built the same way.
pub struct DeltaOtSender {
    delta: Block,
    config: Config,
    phase: Phase<SenderBase>,
}

/// The sender's base: its base-OT seeds (one per row, wiped on drop), or
/// for SoftSpokenOT its punctured all-but-one-OT leaves (wiped by their
/// own drop).
enum SenderBase {
    Rows(Vec<Block>),
    Punctured(AboReceiverLeaves),
}

impl Drop for SenderBase {
    fn drop(&mut self) {
        if let SenderBase::Rows(rows) = self {
            for b in rows {
                b.0.zeroize();
            }
        }
    }
}

impl DeltaOtSender {
    /// A malicious-secure Delta-OT sender (Delta-KOS) with this Delta,
    /// one thread, OS randomness.
    pub fn kos(delta: Block) -> Self {
        DeltaOtSender {
            delta,
            config: Config::new(true),
            phase: Phase::Fresh,
        }
    }

    /// A semi-honest Delta-OT sender (Delta-IKNP) with this Delta.
    pub fn iknp(delta: Block) -> Self {
        DeltaOtSender {
            delta,
            config: Config::new(false),
            phase: Phase::Fresh,
        }
    }

    /// A semi-honest SoftSpokenOT Delta-OT sender (depth `k`, 1..=8) with
    /// this Delta: its base phase is `delta_softspoken_base.otp` (the
    /// all-but-one OTs whose punctured indices spell Delta), each batch
    /// `delta_softspoken.otp`.
    pub fn softspoken(k: usize, delta: Block) -> Self {
        let mut s = Self::iknp(delta);
        s.config.softspoken = Some(k);
        s
    }

    /// A malicious SoftSpokenOT Delta-OT sender (`k` dividing 128):
    /// all-but-one OTs with the sender's proof, MR19 base OTs, and
    /// `delta_softspoken_malicious.otp` per batch.
    pub fn softspoken_malicious(k: usize, delta: Block) -> Self {
        let mut s = Self::kos(delta);
        s.config.softspoken = Some(k);
        s
    }

    /// Splits the bulk kernels over `threads` cores.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.config.threads = threads;
        self
    }

    /// Runs the base OTs with another protocol (before the first call);
    /// [`DeltaOtSender::kos`] and [`DeltaOtSender::softspoken_malicious`]
    /// refuse the semi-honest CO15 and NP00 with [`crate::UnfitBaseOt`].
    pub fn with_base(mut self, base: BaseOtKind) -> Result<Self, crate::UnfitBaseOt> {
        self.config.base = self.config.checked(base)?;
        Ok(self)
    }

    /// Runs the base OTs with any protocol, also a semi-honest one under a
    /// malicious Delta-OT (then no more secure than that base OT against a
    /// malicious peer).
    pub fn with_semi_honest_base_insecure(mut self, base: BaseOtKind) -> Self {
        self.config.base = base;
        self
    }

    /// Uses this RNG (e.g. a fork of a parent RNG) instead of OS randomness.
    pub fn with_rng(mut self, rng: Rng) -> Self {
        self.config.rng = rng;
        self
    }

    /// Whether a failed call has made this sender refuse further use.
    pub fn is_poisoned(&self) -> bool {
        matches!(self.phase, Phase::Poisoned)
    }
}

/// The sender's base phase (`delta_base.otp`).
fn sender_base(
    config: &mut Config,
    ch: &mut dyn Channel,
    delta: Block,
) -> Result<SenderBase, OtError> {
    let rng = config.fork();
    if let Some(k) = config.softspoken {
        use crate::delta_softspoken_base as m;
        let abo = config.abo_party();
        let input = m::SenderInput { delta };
        let out = m::Sender::new(m::Params::new(k)?, input, rng, m::SenderSubs { abo })?.run(ch)?;
        return Ok(SenderBase::Punctured(out.punctured));
    }
    let base = config.base_party();
    let out = crate::delta_base::Sender::new(
        crate::delta_base::Params::new()?,
        crate::delta_base::SenderInput { delta },
        rng,
        crate::delta_base::SenderSubs { base },
    )?
    .run(ch)?;
    Ok(SenderBase::Rows(out.base_chosen))
}

/// One sender batch (`delta_kos.otp` or `delta_iknp.otp`).
fn sender_batch(
    config: &mut Config,
    ch: &mut dyn Channel,
    (n, delta): (usize, Block),
    base: &SenderBase,
    batch: usize,
) -> Result<Vec<Block>, OtError> {
    let t = config.threads;
    let rng = config.fork();
    let base_chosen = match base {
        SenderBase::Rows(rows) => rows.clone(),
        SenderBase::Punctured(p) => {
            let (k, punctured) = (config.softspoken.unwrap_or(0), p.clone());
            return Ok(if config.malicious {
                use crate::delta_softspoken_malicious as m;
                let input = m::SenderInput { punctured };
                m::Sender::new(m::Params::new(k, n, t, batch)?, input, rng)?
                    .run(ch)?
                    .zeros
            } else {
                use crate::delta_softspoken as m;
                let input = m::SenderInput { punctured };
                m::Sender::new(m::Params::new(k, n, t, batch)?, input, rng)?
                    .run(ch)?
                    .zeros
            });
        }
    };
    Ok(if config.malicious {
        crate::delta_kos::Sender::new(
            crate::delta_kos::Params::new(n, t, batch)?,
            crate::delta_kos::SenderInput { delta, base_chosen },
            rng,
        )?
        .run(ch)?
        .zeros
    } else {
        crate::delta_iknp::Sender::new(
            crate::delta_iknp::Params::new(n, t, batch)?,
            crate::delta_iknp::SenderInput { delta, base_chosen },
            rng,
        )?
        .run(ch)?
        .zeros
    })
}

impl Drop for DeltaOtSender {
    fn drop(&mut self) {
        self.delta.0.zeroize();
    }
}

impl CorrelatedOtSender for DeltaOtSender {
    fn delta(&self) -> Block {
        self.delta
    }

    fn send_correlated(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<Block>, OtError> {
        let n = len_param(n)?;
        let delta = self.delta;
        advance(
            &mut self.phase,
            &mut self.config,
            ch,
            |config, ch| sender_base(config, ch, delta),
            |config, ch, base, batch| sender_batch(config, ch, (n, delta), base, batch),
        )
    }
}

/// The receiver of a Delta-OT pair: keeps both keys of every base OT and
/// counts batches like its [`DeltaOtSender`]. Built with the same security
/// level as the sender ([`DeltaOtReceiver::kos`] or [`DeltaOtReceiver::iknp`]).
pub struct DeltaOtReceiver {
    config: Config,
    phase: Phase<ReceiverBase>,
}

/// The receiver's base: its base-OT key pairs (wiped on drop), or for
/// SoftSpokenOT its all-but-one-OT leaves (wiped by their own drop).
enum ReceiverBase {
    Keys(Vec<[Block; 2]>),
    Leaves(AboSenderLeaves),
}

impl Drop for ReceiverBase {
    fn drop(&mut self) {
        if let ReceiverBase::Keys(keys) = self {
            for [a, b] in keys {
                a.0.zeroize();
                b.0.zeroize();
            }
        }
    }
}

impl DeltaOtReceiver {
    /// The receiver for a [`DeltaOtSender::kos`] sender.
    pub fn kos() -> Self {
        DeltaOtReceiver {
            config: Config::new(true),
            phase: Phase::Fresh,
        }
    }

    /// The receiver for a [`DeltaOtSender::iknp`] sender.
    pub fn iknp() -> Self {
        DeltaOtReceiver {
            config: Config::new(false),
            phase: Phase::Fresh,
        }
    }

    /// The receiver for a [`DeltaOtSender::softspoken`] sender.
    pub fn softspoken(k: usize) -> Self {
        let mut r = Self::iknp();
        r.config.softspoken = Some(k);
        r
    }

    /// The receiver for a [`DeltaOtSender::softspoken_malicious`] sender.
    pub fn softspoken_malicious(k: usize) -> Self {
        let mut r = Self::kos();
        r.config.softspoken = Some(k);
        r
    }

    /// Splits the bulk kernels over `threads` cores.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.config.threads = threads;
        self
    }

    /// Runs the base OTs with another protocol (must match the sender's;
    /// refused as by [`DeltaOtSender::with_base`]).
    pub fn with_base(mut self, base: BaseOtKind) -> Result<Self, crate::UnfitBaseOt> {
        self.config.base = self.config.checked(base)?;
        Ok(self)
    }

    /// Runs the base OTs with any protocol (as
    /// [`DeltaOtSender::with_semi_honest_base_insecure`]).
    pub fn with_semi_honest_base_insecure(mut self, base: BaseOtKind) -> Self {
        self.config.base = base;
        self
    }

    /// Uses this RNG instead of OS randomness.
    pub fn with_rng(mut self, rng: Rng) -> Self {
        self.config.rng = rng;
        self
    }

    /// Whether a failed call has made this receiver refuse further use.
    pub fn is_poisoned(&self) -> bool {
        matches!(self.phase, Phase::Poisoned)
    }
}

/// The receiver's base phase (`delta_base.otp`).
fn receiver_base(config: &mut Config, ch: &mut dyn Channel) -> Result<ReceiverBase, OtError> {
    let rng = config.fork();
    if let Some(k) = config.softspoken {
        use crate::delta_softspoken_base as m;
        let abo = config.abo_party();
        let input = m::ReceiverInput {};
        let out =
            m::Receiver::new(m::Params::new(k)?, input, rng, m::ReceiverSubs { abo })?.run(ch)?;
        return Ok(ReceiverBase::Leaves(out.leaves));
    }
    let base = config.base_party();
    let out = crate::delta_base::Receiver::new(
        crate::delta_base::Params::new()?,
        crate::delta_base::ReceiverInput {},
        rng,
        crate::delta_base::ReceiverSubs { base },
    )?
    .run(ch)?;
    Ok(ReceiverBase::Keys(out.base_keys))
}

/// One receiver batch (`delta_kos.otp` or `delta_iknp.otp`).
fn receiver_batch(
    config: &mut Config,
    ch: &mut dyn Channel,
    choices: &Bits,
    base: &ReceiverBase,
    batch: usize,
) -> Result<Vec<Block>, OtError> {
    let (n, t, r) = (choices.len(), config.threads, choices.clone());
    let rng = config.fork();
    let base_keys = match base {
        ReceiverBase::Keys(keys) => keys.clone(),
        ReceiverBase::Leaves(l) => {
            let (k, leaves) = (config.softspoken.unwrap_or(0), l.clone());
            return Ok(if config.malicious {
                use crate::delta_softspoken_malicious as m;
                let input = m::ReceiverInput { r, leaves };
                m::Receiver::new(m::Params::new(k, n, t, batch)?, input, rng)?
                    .run(ch)?
                    .chosen
            } else {
                use crate::delta_softspoken as m;
                let input = m::ReceiverInput { r, leaves };
                m::Receiver::new(m::Params::new(k, n, t, batch)?, input, rng)?
                    .run(ch)?
                    .chosen
            });
        }
    };
    Ok(if config.malicious {
        crate::delta_kos::Receiver::new(
            crate::delta_kos::Params::new(n, t, batch)?,
            crate::delta_kos::ReceiverInput { r, base_keys },
            rng,
        )?
        .run(ch)?
        .chosen
    } else {
        crate::delta_iknp::Receiver::new(
            crate::delta_iknp::Params::new(n, t, batch)?,
            crate::delta_iknp::ReceiverInput { r, base_keys },
            rng,
        )?
        .run(ch)?
        .chosen
    })
}

impl DeltaOtReceiver {
    /// Random-choice correlated OT (RCOT): `m` choice bits drawn from this
    /// receiver's RNG, then one batch of [`CorrelatedOtReceiver::receive_correlated`]
    /// with them. Returns the bits and the blocks, `chosen[i] = zeros[i] ⊕
    /// choices[i]·Δ` against the sender's `send_correlated(ch, m)`.
    ///
    /// For applications that need no chosen bits (random OT, silent-OT
    /// seeds, MPC triples). It is the same protocol as the chosen-bit form:
    /// with IKNP, KOS or SoftSpokenOT a chosen bit costs no more than a
    /// random one, so this saves the caller the sampling only (and is what
    /// other libraries' RCOT is measured against, like for like). Errors as
    /// `receive_correlated` (`m` of 0 or above the message limit refused).
    pub fn receive_random_correlated(
        &mut self,
        ch: &mut dyn Channel,
        m: usize,
    ) -> Result<(Bits, Vec<Block>), OtError> {
        len_param(m)?;
        let choices = Bits::random(&mut self.config.fork(), m);
        let chosen = self.receive_correlated(ch, &choices)?;
        Ok((choices, chosen))
    }
}

impl CorrelatedOtReceiver for DeltaOtReceiver {
    fn receive_correlated(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError> {
        len_param(choices.len())?;
        advance(
            &mut self.phase,
            &mut self.config,
            ch,
            receiver_base,
            |config, ch, base, batch| receiver_batch(config, ch, choices, base, batch),
        )
    }
}

impl OtExtension {
    /// A Delta-OT sender with this configuration (KOS or IKNP, threads,
    /// base OT) and the given global Delta.
    pub fn delta_sender(&mut self, delta: Block) -> DeltaOtSender {
        let rng = self.fork();
        let mut s = if self.malicious {
            DeltaOtSender::kos(delta)
        } else {
            DeltaOtSender::iknp(delta)
        };
        s.config.softspoken = self.softspoken;
        // `self.base` was checked (or opted out of) by `with_base`.
        s.with_threads(self.threads)
            .with_semi_honest_base_insecure(self.base)
            .with_rng(rng)
    }

    /// The matching Delta-OT receiver.
    pub fn delta_receiver(&mut self) -> DeltaOtReceiver {
        let rng = self.fork();
        let mut r = if self.malicious {
            DeltaOtReceiver::kos()
        } else {
            DeltaOtReceiver::iknp()
        };
        r.config.softspoken = self.softspoken;
        r.with_threads(self.threads)
            .with_semi_honest_base_insecure(self.base)
            .with_rng(rng)
    }
}
