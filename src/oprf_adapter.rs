//! [`Oprf`] as the prelude's `Oprf` functionality: one run of
//! `protocols/kkrt.otp` or `protocols/oos.otp` (with its 512 base OTs,
//! IKNP- or KOS-extended as configured) per call, so that a protocol
//! calling `do oprf: Oprf[...]` takes `Box::new(ot::Oprf::kkrt())` as its
//! sub-protocol party (`protocols/kkrt_psi.otp`).
//!
//! For many batches against one peer, a session
//! ([`Oprf::setup_sender`]) runs the base OTs once instead.

use crate::oprf_session::Oprf;
use crate::runtime::oprf::OprfKey;
use crate::runtime::transport::channel::Channel;
use crate::runtime::Block;
use crate::traits::{len_param, BatchedOprfReceiver, BatchedOprfSender, OtError};
use crate::{kkrt, oos};

impl BatchedOprfSender for Oprf {
    /// Runs `kkrt.otp` (or `oos.otp` over the configured code) as the
    /// sender of `m` instances.
    fn send_oprf(&mut self, ch: &mut dyn Channel, m: usize) -> Result<OprfKey, OtError> {
        let m = len_param(m)?;
        let (threads, sha1) = (self.threads(), self.sha1());
        let base = Box::new(self.base_extension()?);
        let rng = self.fork_rng();
        match self.linear_code() {
            None => {
                let p = kkrt::Params::new(m, threads, sha1)?;
                let subs = kkrt::SenderSubs { base };
                let out = kkrt::Sender::new(p, kkrt::SenderInput {}, rng, subs)?.run(ch)?;
                Ok(out.key)
            }
            Some(code) => {
                let p = oos::Params::new(m, threads, sha1)?;
                let input = oos::SenderInput { code };
                let subs = oos::SenderSubs { base };
                let out = oos::Sender::new(p, input, rng, subs)?.run(ch)?;
                Ok(out.key)
            }
        }
    }

    crate::runtime::__if_tokio! {
        /// [`send_oprf`](BatchedOprfSender::send_oprf) through the
        /// protocols' async drivers.
        fn send_oprf_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            m: usize,
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<OprfKey, OtError>> {
            Box::pin(async move {
                let m = len_param(m)?;
                let (threads, sha1) = (self.threads(), self.sha1());
                let base = Box::new(self.base_extension()?);
                let rng = self.fork_rng();
                match self.linear_code() {
                    None => {
                        let p = kkrt::Params::new(m, threads, sha1)?;
                        let subs = kkrt::SenderSubs { base };
                        let s = kkrt::Sender::new(p, kkrt::SenderInput {}, rng, subs)?;
                        Ok(s.run_async(ch).await?.key)
                    }
                    Some(code) => {
                        let p = oos::Params::new(m, threads, sha1)?;
                        let subs = oos::SenderSubs { base };
                        let s = oos::Sender::new(p, oos::SenderInput { code }, rng, subs)?;
                        Ok(s.run_async(ch).await?.key)
                    }
                }
            })
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
        let m = len_param(inputs.len())?;
        let (threads, sha1) = (self.threads(), self.sha1());
        let base = Box::new(self.base_extension()?);
        let rng = self.fork_rng();
        match self.linear_code() {
            None => {
                let p = kkrt::Params::new(m, threads, sha1)?;
                let input = kkrt::ReceiverInput {
                    inputs: inputs.to_vec(),
                };
                let subs = kkrt::ReceiverSubs { base };
                Ok(kkrt::Receiver::new(p, input, rng, subs)?.run(ch)?.values)
            }
            Some(code) => {
                let p = oos::Params::new(m, threads, sha1)?;
                let input = oos::ReceiverInput {
                    code,
                    choices: inputs.to_vec(),
                };
                let subs = oos::ReceiverSubs { base };
                Ok(oos::Receiver::new(p, input, rng, subs)?.run(ch)?.values)
            }
        }
    }

    crate::runtime::__if_tokio! {
        /// [`receive_oprf`](BatchedOprfReceiver::receive_oprf) through the
        /// protocols' async drivers.
        fn receive_oprf_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            inputs: &'a [Block],
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<Vec<Block>, OtError>> {
            Box::pin(async move {
                let m = len_param(inputs.len())?;
                let (threads, sha1) = (self.threads(), self.sha1());
                let base = Box::new(self.base_extension()?);
                let rng = self.fork_rng();
                match self.linear_code() {
                    None => {
                        let p = kkrt::Params::new(m, threads, sha1)?;
                        let input = kkrt::ReceiverInput { inputs: inputs.to_vec() };
                        let subs = kkrt::ReceiverSubs { base };
                        let r = kkrt::Receiver::new(p, input, rng, subs)?;
                        Ok(r.run_async(ch).await?.values)
                    }
                    Some(code) => {
                        let p = oos::Params::new(m, threads, sha1)?;
                        let choices = inputs.to_vec();
                        let input = oos::ReceiverInput { code, choices };
                        let subs = oos::ReceiverSubs { base };
                        let r = oos::Receiver::new(p, input, rng, subs)?;
                        Ok(r.run_async(ch).await?.values)
                    }
                }
            })
        }
    }
}
