//! Common OT interfaces that every protocol in this crate implements, so
//! later protocols (OT extension) and users can swap base OTs freely.
//!
//! The implementations only call the generated drivers; the message flow is
//! the `.otp` file's.

use crate::runtime::channel::Channel;
use crate::runtime::rng::Rng;
use crate::runtime::{Bits, Block};

/// A failed OT run: the generated protocol's typed error, boxed.
#[derive(Debug)]
pub struct OtError(pub Box<dyn std::error::Error + Send + Sync + 'static>);

impl std::fmt::Display for OtError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for OtError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.0)
    }
}

macro_rules! from_protocol_errors {
    ($($m:ident),*) => {$(
        impl From<crate::$m::Error> for OtError {
            fn from(e: crate::$m::Error) -> Self {
                OtError(Box::new(e))
            }
        }
    )*};
}
from_protocol_errors!(
    co15,
    co15_chosen,
    mr19,
    mr19_chosen,
    np00,
    np00_chosen,
    iknp,
    iknp_chosen,
    kos,
    kos_chosen,
    delta_iknp,
    delta_kos,
    delta_base,
    abo_ot,
    abo_ot_malicious,
    softspoken,
    softspoken_malicious,
    softspoken_chosen,
    softspoken_malicious_chosen,
    delta_softspoken_base,
    delta_softspoken,
    delta_softspoken_malicious
);

/// Sender of random OTs: gets two random messages per OT.
pub trait RandomOtSender {
    /// Runs `n` random OTs; returns `[m0, m1]` for each.
    fn send_random(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError>;
}

/// Receiver of random OTs: gets the message of its choice.
pub trait RandomOtReceiver {
    /// Runs one random OT per choice bit; returns `m_{c_i}` for each.
    fn receive_random(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError>;
}

/// Sender of chosen-message OTs.
pub trait OtSender {
    /// Transfers one of `messages[i]` per OT.
    fn send(&mut self, ch: &mut dyn Channel, messages: &[[Block; 2]]) -> Result<(), OtError>;
}

/// Receiver of chosen-message OTs.
pub trait OtReceiver {
    /// Receives `messages[i][c_i]` per OT.
    fn receive(&mut self, ch: &mut dyn Channel, choices: &Bits) -> Result<Vec<Block>, OtError>;
}

/// Sender of correlated OTs (Delta-OT): holds one global `delta` for its
/// whole lifetime and gets random `z_i`; the receiver gets
/// `z_i ^ c_i * delta`.
///
/// Delta is fixed when the sender is built (see [`crate::DeltaOtSender`]),
/// not passed per call: a cheating receiver may learn a bit of Delta per
/// guess from whether a malicious run aborts, which the functionality
/// allows once, and a per-call Delta would let such guesses add up over
/// retries. An implementation refuses every call after a failed one.
pub trait CorrelatedOtSender {
    /// The sender's global Delta.
    fn delta(&self) -> Block;

    /// Runs `n` correlated OTs under [`CorrelatedOtSender::delta`]; returns
    /// the `z_i`.
    fn send_correlated(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<Block>, OtError>;
}

/// Receiver of correlated OTs.
pub trait CorrelatedOtReceiver {
    /// Runs one correlated OT per choice bit; returns `z_i ^ c_i * delta`.
    fn receive_correlated(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError>;
}

/// Sender of all-but-one OTs (the `AllButOneOt` functionality of
/// `protocols/prelude.otp`, SoftSpokenOT's punctured PRF
/// [Roy22, eprint 2022/192, Fig. 13/14]): gets every leaf of `trees` GGM
/// trees of depth `k`. Implemented by [`crate::AboOt`].
pub trait AboOtSender {
    /// Runs `trees` all-but-one OTs of `2^k` leaves each.
    fn send_abo(
        &mut self,
        ch: &mut dyn Channel,
        trees: usize,
        k: usize,
    ) -> Result<crate::runtime::abo::AboSenderLeaves, OtError>;
}

/// Receiver of all-but-one OTs: gets every leaf of tree `t` except leaf
/// `alphas[t]`. Implemented by [`crate::AboOt`].
pub trait AboOtReceiver {
    /// Runs one all-but-one OT per punctured index (each below `2^k`).
    fn receive_abo(
        &mut self,
        ch: &mut dyn Channel,
        trees: usize,
        k: usize,
        alphas: &[usize],
    ) -> Result<crate::runtime::abo::AboReceiverLeaves, OtError>;
}

/// Which base-OT protocol a [`BaseOt`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseOtKind {
    /// Chou–Orlandi 2015 (`protocols/co15.otp`): the fastest, for
    /// semi-honest use (not UC-secure: a malicious receiver's choice cannot
    /// be extracted).
    Co15,
    /// Naor–Pinkas 2001 (`protocols/np00.otp`), semi-honest as CO15.
    Np00,
    /// Masny–Rindal 2019 endemic OT (`protocols/mr19.otp`), secure against
    /// a malicious sender or receiver: the default base of
    /// [`OtExtension::kos`].
    Mr19,
}

impl BaseOtKind {
    /// The base OT that the protocols of a security level run by default:
    /// for malicious security one whose receiver can be extracted (the
    /// proofs of malicious OT extension need it), otherwise the fastest.
    pub fn default_for(malicious: bool) -> BaseOtKind {
        if malicious {
            BaseOtKind::Mr19
        } else {
            BaseOtKind::Co15
        }
    }
}

/// A base-OT party (either role) implementing all four traits.
pub struct BaseOt {
    kind: BaseOtKind,
    rng: Rng,
}

impl BaseOt {
    /// A party of the given protocol with OS randomness.
    pub fn new(kind: BaseOtKind) -> Self {
        BaseOt {
            kind,
            rng: Rng::from_entropy(),
        }
    }

    /// A party with a given RNG (reproducible tests).
    pub fn with_rng(kind: BaseOtKind, rng: Rng) -> Self {
        BaseOt { kind, rng }
    }

    fn fork(&mut self) -> Rng {
        self.rng.fork()
    }
}

pub(crate) fn len_param(n: usize) -> Result<usize, OtError> {
    if n == 0 {
        return Err(OtError("an OT batch needs at least one OT".into()));
    }
    Ok(n)
}

impl RandomOtSender for BaseOt {
    fn send_random(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError> {
        let n = len_param(n)?;
        let rng = self.fork();
        Ok(match self.kind {
            BaseOtKind::Co15 => {
                crate::co15::Sender::new(
                    crate::co15::Params::new(n)?,
                    crate::co15::SenderInput {},
                    rng,
                )?
                .run(ch)?
                .messages
            }
            BaseOtKind::Np00 => {
                crate::np00::Sender::new(
                    crate::np00::Params::new(n)?,
                    crate::np00::SenderInput {},
                    rng,
                )?
                .run(ch)?
                .messages
            }
            BaseOtKind::Mr19 => {
                crate::mr19::Sender::new(
                    crate::mr19::Params::new(n)?,
                    crate::mr19::SenderInput {},
                    rng,
                )?
                .run(ch)?
                .messages
            }
        })
    }
}

impl RandomOtReceiver for BaseOt {
    fn receive_random(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError> {
        let n = len_param(choices.len())?;
        let rng = self.fork();
        let choices = choices.clone();
        Ok(match self.kind {
            BaseOtKind::Co15 => {
                crate::co15::Receiver::new(
                    crate::co15::Params::new(n)?,
                    crate::co15::ReceiverInput { choices },
                    rng,
                )?
                .run(ch)?
                .chosen
            }
            BaseOtKind::Np00 => {
                crate::np00::Receiver::new(
                    crate::np00::Params::new(n)?,
                    crate::np00::ReceiverInput { choices },
                    rng,
                )?
                .run(ch)?
                .chosen
            }
            BaseOtKind::Mr19 => {
                crate::mr19::Receiver::new(
                    crate::mr19::Params::new(n)?,
                    crate::mr19::ReceiverInput { choices },
                    rng,
                )?
                .run(ch)?
                .chosen
            }
        })
    }
}

impl OtSender for BaseOt {
    fn send(&mut self, ch: &mut dyn Channel, messages: &[[Block; 2]]) -> Result<(), OtError> {
        let n = len_param(messages.len())?;
        let rng = self.fork();
        let payload = messages.to_vec();
        match self.kind {
            BaseOtKind::Co15 => {
                crate::co15_chosen::Sender::new(
                    crate::co15_chosen::Params::new(n)?,
                    crate::co15_chosen::SenderInput { payload },
                    rng,
                )?
                .run(ch)?;
            }
            BaseOtKind::Np00 => {
                crate::np00_chosen::Sender::new(
                    crate::np00_chosen::Params::new(n)?,
                    crate::np00_chosen::SenderInput { payload },
                    rng,
                )?
                .run(ch)?;
            }
            BaseOtKind::Mr19 => {
                crate::mr19_chosen::Sender::new(
                    crate::mr19_chosen::Params::new(n)?,
                    crate::mr19_chosen::SenderInput { payload },
                    rng,
                )?
                .run(ch)?;
            }
        }
        Ok(())
    }
}

impl OtReceiver for BaseOt {
    fn receive(&mut self, ch: &mut dyn Channel, choices: &Bits) -> Result<Vec<Block>, OtError> {
        let n = len_param(choices.len())?;
        let rng = self.fork();
        let choices = choices.clone();
        Ok(match self.kind {
            BaseOtKind::Co15 => {
                crate::co15_chosen::Receiver::new(
                    crate::co15_chosen::Params::new(n)?,
                    crate::co15_chosen::ReceiverInput { choices },
                    rng,
                )?
                .run(ch)?
                .received
            }
            BaseOtKind::Np00 => {
                crate::np00_chosen::Receiver::new(
                    crate::np00_chosen::Params::new(n)?,
                    crate::np00_chosen::ReceiverInput { choices },
                    rng,
                )?
                .run(ch)?
                .received
            }
            BaseOtKind::Mr19 => {
                crate::mr19_chosen::Receiver::new(
                    crate::mr19_chosen::Params::new(n)?,
                    crate::mr19_chosen::ReceiverInput { choices },
                    rng,
                )?
                .run(ch)?
                .received
            }
        })
    }
}

/// An OT-extension party (either role) implementing the random and chosen
/// OT traits with IKNP (semi-honest) or KOS (malicious) over base OTs run
/// on the same channel. Each call runs the protocol generated from the
/// corresponding `.otp` file (`iknp`, `kos`, `iknp_chosen`, `kos_chosen`)
/// with fresh base OTs. Correlated OT (Delta-OT) needs state across calls:
/// [`OtExtension::delta_sender`] / [`OtExtension::delta_receiver`] build the
/// stateful parties with this configuration.
pub struct OtExtension {
    pub(crate) malicious: bool,
    pub(crate) sha1: bool,
    /// `Some(k)`: SoftSpokenOT with depth `k` instead of IKNP/KOS.
    pub(crate) softspoken: Option<usize>,
    pub(crate) threads: usize,
    pub(crate) base: BaseOtKind,
    rng: Rng,
}

impl OtExtension {
    /// Semi-honest IKNP (and Delta-IKNP) over CO15 base OTs, AES hash, one thread.
    pub fn iknp() -> Self {
        OtExtension {
            malicious: false,
            sha1: false,
            softspoken: None,
            threads: 1,
            base: BaseOtKind::Co15,
            rng: Rng::from_entropy(),
        }
    }

    /// Malicious KOS (and Delta-KOS, through `delta_sender`) over MR19 base OTs (secure against a
    /// malicious peer, as the extension is), AES hash, one thread.
    pub fn kos() -> Self {
        OtExtension {
            malicious: true,
            base: BaseOtKind::default_for(true),
            ..Self::iknp()
        }
    }

    /// Uses the SHA-1 random oracle instead of the fixed-key AES hash.
    pub fn with_sha1(mut self, sha1: bool) -> Self {
        self.sha1 = sha1;
        self
    }

    /// Splits the bulk kernels over `threads` cores per party.
    pub fn with_threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Runs the base OTs with another protocol (default: CO15 for
    /// [`OtExtension::iknp`], MR19 for [`OtExtension::kos`]).
    pub fn with_base(mut self, base: BaseOtKind) -> Self {
        self.base = base;
        self
    }

    pub(crate) fn fork(&mut self) -> Rng {
        self.rng.fork()
    }

    fn base_party(&mut self) -> Box<BaseOt> {
        let rng = self.fork();
        Box::new(BaseOt::with_rng(self.base, rng))
    }
}

macro_rules! extension_call {
    ($self:ident, $ch:ident, $m:ident, $role:ident, $subs:ident, $input:expr, $params:expr) => {{
        let rng = $self.fork();
        let base = $self.base_party();
        crate::$m::$role::new($params?, $input, rng, crate::$m::$subs { base })?.run($ch)?
    }};
}

impl RandomOtSender for OtExtension {
    fn send_random(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError> {
        let n = len_param(n)?;
        if let Some(k) = self.softspoken {
            return crate::softspoken_parties::send_random(self, ch, n, k);
        }
        let (t, h) = (self.threads, self.sha1);
        Ok(if self.malicious {
            extension_call!(
                self,
                ch,
                kos,
                Sender,
                SenderSubs,
                crate::kos::SenderInput {},
                crate::kos::Params::new(n, t, h)
            )
            .y
        } else {
            extension_call!(
                self,
                ch,
                iknp,
                Sender,
                SenderSubs,
                crate::iknp::SenderInput {},
                crate::iknp::Params::new(n, t, h)
            )
            .y
        })
    }
}

impl RandomOtReceiver for OtExtension {
    fn receive_random(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError> {
        let n = len_param(choices.len())?;
        if let Some(k) = self.softspoken {
            return crate::softspoken_parties::receive_random(self, ch, choices, k);
        }
        let (t, h, r) = (self.threads, self.sha1, choices.clone());
        Ok(if self.malicious {
            extension_call!(
                self,
                ch,
                kos,
                Receiver,
                ReceiverSubs,
                crate::kos::ReceiverInput { r },
                crate::kos::Params::new(n, t, h)
            )
            .x
        } else {
            extension_call!(
                self,
                ch,
                iknp,
                Receiver,
                ReceiverSubs,
                crate::iknp::ReceiverInput { r },
                crate::iknp::Params::new(n, t, h)
            )
            .x
        })
    }
}

impl OtSender for OtExtension {
    fn send(&mut self, ch: &mut dyn Channel, messages: &[[Block; 2]]) -> Result<(), OtError> {
        let n = len_param(messages.len())?;
        if let Some(k) = self.softspoken {
            return crate::softspoken_parties::send(self, ch, messages, k);
        }
        let (t, h, payload) = (self.threads, self.sha1, messages.to_vec());
        if self.malicious {
            extension_call!(
                self,
                ch,
                kos_chosen,
                Sender,
                SenderSubs,
                crate::kos_chosen::SenderInput { payload },
                crate::kos_chosen::Params::new(n, t, h)
            );
        } else {
            extension_call!(
                self,
                ch,
                iknp_chosen,
                Sender,
                SenderSubs,
                crate::iknp_chosen::SenderInput { payload },
                crate::iknp_chosen::Params::new(n, t, h)
            );
        }
        Ok(())
    }
}

impl OtReceiver for OtExtension {
    fn receive(&mut self, ch: &mut dyn Channel, choices: &Bits) -> Result<Vec<Block>, OtError> {
        let n = len_param(choices.len())?;
        if let Some(k) = self.softspoken {
            return crate::softspoken_parties::receive(self, ch, choices, k);
        }
        let (t, h, r) = (self.threads, self.sha1, choices.clone());
        Ok(if self.malicious {
            extension_call!(
                self,
                ch,
                kos_chosen,
                Receiver,
                ReceiverSubs,
                crate::kos_chosen::ReceiverInput { r },
                crate::kos_chosen::Params::new(n, t, h)
            )
            .received
        } else {
            extension_call!(
                self,
                ch,
                iknp_chosen,
                Receiver,
                ReceiverSubs,
                crate::iknp_chosen::ReceiverInput { r },
                crate::iknp_chosen::Params::new(n, t, h)
            )
            .received
        })
    }
}
