//! [`Oprf`] as the prelude's `Oprf` functionality: one run of
//! `protocols/kkrt.otp` or `protocols/oos.otp` (with its 512 base OTs,
//! IKNP- or KOS-extended as configured) per call, so that a protocol
//! calling `do oprf: Oprf[...]` takes `Box::new(ot::Oprf::kkrt())` as its
//! sub-protocol party (`protocols/kkrt_psi.otp`).
//!
//! For many batches against one peer, a session
//! ([`Oprf::setup_sender`]) runs the base OTs once instead.

use crate::oprf_session::Oprf;
use crate::runtime::oprf::code::LinearCode;
use crate::runtime::oprf::OprfKey;
use crate::runtime::primitives::rng::Rng;
use crate::runtime::transport::channel::Channel;
use crate::runtime::Block;
use crate::traits::OtExtension;
use crate::traits::{len_param, BatchedOprfReceiver, BatchedOprfSender, OtError};
use crate::{kkrt, oos};

/// What one run of either role takes from the configuration: the batch
/// size (checked), threads, hash, the base-OT extension, a fresh RNG and
/// OOS's code (`None`: KKRT).
struct RunParts {
    m: usize,
    threads: usize,
    sha1: bool,
    base: Box<OtExtension>,
    rng: Rng,
    code: Option<LinearCode>,
}

impl Oprf {
    /// The parts of one run of `m` instances.
    fn run_parts(&mut self, m: usize) -> Result<RunParts, OtError> {
        Ok(RunParts {
            m: len_param(m)?,
            threads: self.threads(),
            sha1: self.sha1(),
            base: Box::new(self.base_extension()?),
            rng: self.fork_rng(),
            code: self.linear_code(),
        })
    }
}

/// One sender run of `kkrt.otp` or `oos.otp` as `Oprf` is configured:
/// `$run` drives the built role `$role` (`$role.run(ch)` or
/// `$role.run_async(ch).await`); evaluates to the key.
macro_rules! sender_run {
    ($self:ident, $m:expr, |$role:ident| $run:expr) => {{
        let RunParts {
            m,
            threads,
            sha1,
            base,
            rng,
            code,
        } = $self.run_parts($m)?;
        match code {
            None => {
                let p = kkrt::Params::new(m, threads, sha1)?;
                let subs = kkrt::SenderSubs { base };
                let $role = kkrt::Sender::new(p, kkrt::SenderInput {}, rng, subs)?;
                Ok($run?.key)
            }
            Some(code) => {
                let p = oos::Params::new(m, threads, sha1)?;
                let subs = oos::SenderSubs { base };
                let $role = oos::Sender::new(p, oos::SenderInput { code }, rng, subs)?;
                Ok($run?.key)
            }
        }
    }};
}

/// One receiver run on `$inputs`, as [`sender_run`]; evaluates to the
/// values.
macro_rules! receiver_run {
    ($self:ident, $inputs:expr, |$role:ident| $run:expr) => {{
        let inputs: &[Block] = $inputs;
        let RunParts {
            m,
            threads,
            sha1,
            base,
            rng,
            code,
        } = $self.run_parts(inputs.len())?;
        match code {
            None => {
                let p = kkrt::Params::new(m, threads, sha1)?;
                let input = kkrt::ReceiverInput {
                    inputs: inputs.to_vec(),
                };
                let subs = kkrt::ReceiverSubs { base };
                let $role = kkrt::Receiver::new(p, input, rng, subs)?;
                Ok($run?.values)
            }
            Some(code) => {
                let p = oos::Params::new(m, threads, sha1)?;
                let choices = inputs.to_vec();
                let input = oos::ReceiverInput { code, choices };
                let subs = oos::ReceiverSubs { base };
                let $role = oos::Receiver::new(p, input, rng, subs)?;
                Ok($run?.values)
            }
        }
    }};
}

impl BatchedOprfSender for Oprf {
    /// Runs `kkrt.otp` (or `oos.otp` over the configured code) as the
    /// sender of `m` instances.
    fn send_oprf(&mut self, ch: &mut dyn Channel, m: usize) -> Result<OprfKey, OtError> {
        sender_run!(self, m, |role| role.run(ch))
    }

    crate::runtime::__if_tokio! {
        /// [`send_oprf`](BatchedOprfSender::send_oprf) through the
        /// protocols' async drivers.
        fn send_oprf_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            m: usize,
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<OprfKey, OtError>> {
            Box::pin(async move { sender_run!(self, m, |role| role.run_async(ch).await) })
        }
    }
}

impl BatchedOprfReceiver for Oprf {
    /// Runs `kkrt.otp` (or `oos.otp`) as the receiver on `inputs` (OOS:
    /// choices below `2^k` of its code).
    fn receive_oprf(
        &mut self,
        ch: &mut dyn Channel,
        inputs: &[Block],
    ) -> Result<Vec<Block>, OtError> {
        receiver_run!(self, inputs, |role| role.run(ch))
    }

    crate::runtime::__if_tokio! {
        /// [`receive_oprf`](BatchedOprfReceiver::receive_oprf) through the
        /// protocols' async drivers.
        fn receive_oprf_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            inputs: &'a [Block],
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<Vec<Block>, OtError>> {
            Box::pin(async move { receiver_run!(self, inputs, |role| role.run_async(ch).await) })
        }
    }
}
