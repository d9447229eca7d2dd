//! Common OT interfaces that every protocol in this crate implements, so
//! later protocols (OT extension) and users can swap base OTs freely.
//!
//! The implementations only call the generated drivers; the message flow is
//! the `.otp` file's.

use crate::runtime::channel::Channel;
use crate::runtime::rng::{Rng, Sample};
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
    np00,
    np00_chosen,
    iknp,
    iknp_chosen,
    kos,
    delta_iknp,
    delta_kos
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

/// Which base-OT protocol a [`BaseOt`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseOtKind {
    /// Chou–Orlandi 2015 (`protocols/co15.otp`).
    Co15,
    /// Naor–Pinkas 2001 (`protocols/np00.otp`).
    Np00,
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
        Rng::from_block(Block::sample(&mut self.rng))
    }
}

fn len_param(n: usize) -> Result<usize, OtError> {
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
        })
    }
}
