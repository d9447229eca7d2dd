//! SoftSpokenOT [Roy, CRYPTO 2022, eprint 2022/192] through the common OT
//! traits: the all-but-one-OT party [`AboOt`] (the `AllButOneOt`
//! functionality, running `protocols/abo_ot.otp` or
//! `protocols/abo_ot_malicious.otp`) and the [`OtExtension::softspoken`] /
//! [`OtExtension::softspoken_malicious`] configurations, which run
//! `protocols/softspoken*.otp`. The message flow is the `.otp` files'.

use crate::runtime::primitives::rng::Rng;
use crate::runtime::softspoken::abo::{AboReceiverLeaves, AboSenderLeaves};
use crate::runtime::transport::channel::Channel;
use crate::traits::{base_party, AboOtReceiver, AboOtSender, BaseOtKind, OtError, OtExtension};

/// An all-but-one-OT party (either role): GGM trees over base OTs run on
/// the same channel [Roy22, Fig. 13], with the sender's proof against a
/// malicious sender [Fig. 14] when built with [`AboOt::malicious`]. Both
/// parties must be built the same way.
pub struct AboOt {
    malicious: bool,
    base: BaseOtKind,
    rng: Rng,
}

impl AboOt {
    /// Semi-honest (`abo_ot.otp`) over CO15 base OTs, OS randomness.
    pub fn semi_honest() -> Self {
        AboOt {
            malicious: false,
            base: BaseOtKind::default_for(false),
            rng: Rng::from_entropy(),
        }
    }

    /// With the sender's proof (`abo_ot_malicious.otp`) over MR19 base OTs.
    pub fn malicious() -> Self {
        AboOt {
            malicious: true,
            base: BaseOtKind::default_for(true),
            rng: Rng::from_entropy(),
        }
    }

    /// Runs the base OTs with another protocol; [`AboOt::malicious`]
    /// refuses the semi-honest CO15 and NP00 with [`crate::UnfitBaseOt`].
    pub fn with_base(self, base: BaseOtKind) -> Result<Self, crate::UnfitBaseOt> {
        let name = "all-but-one OT (Fig. 14)";
        let base = crate::base_rule::checked_base(self.malicious, name, base)?;
        Ok(self.with_semi_honest_base_insecure(base))
    }

    /// Runs the base OTs with any protocol, also a semi-honest one under
    /// [`AboOt::malicious`] (then no more secure than that base OT against
    /// a malicious peer).
    pub fn with_semi_honest_base_insecure(mut self, base: BaseOtKind) -> Self {
        self.base = base;
        self
    }

    /// Uses this RNG instead of OS randomness.
    pub fn with_rng(mut self, rng: Rng) -> Self {
        self.rng = rng;
        self
    }
}

/// Runs `$call` on `$p`, the realization `$real` (sub-protocol parties
/// `$subs`) of `abo_ot_malicious` or `abo_ot` as the party is configured.
macro_rules! on_abo {
    ($self:ident, $real:ident, $subs:ident, |$p:ident| $call:expr) => {{
        let (base, rng) = ($self.base, &mut $self.rng);
        if $self.malicious {
            let subs = &mut |r: &mut Rng| crate::abo_ot_malicious::$subs {
                base: base_party(base, r),
            };
            let mut $p = crate::abo_ot_malicious::$real { rng, subs };
            $call
        } else {
            let subs = &mut |r: &mut Rng| crate::abo_ot::$subs {
                base: base_party(base, r),
            };
            let mut $p = crate::abo_ot::$real { rng, subs };
            $call
        }
    }};
}

impl AboOtSender for AboOt {
    fn send_abo(
        &mut self,
        ch: &mut dyn Channel,
        trees: usize,
        k: usize,
    ) -> Result<AboSenderLeaves, OtError> {
        on_abo!(self, SenderRealization, SenderSubs, |p| p
            .send_abo(ch, trees, k))
    }

    crate::runtime::__if_tokio! {
        fn send_abo_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            trees: usize,
            k: usize,
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<AboSenderLeaves, OtError>> {
            Box::pin(async move {
                on_abo!(self, SenderRealization, SenderSubs, |p| p
                    .send_abo_async(ch, trees, k)
                    .await)
            })
        }
    }
}

impl AboOtReceiver for AboOt {
    fn receive_abo(
        &mut self,
        ch: &mut dyn Channel,
        trees: usize,
        k: usize,
        alphas: &[usize],
    ) -> Result<AboReceiverLeaves, OtError> {
        on_abo!(self, ReceiverRealization, ReceiverSubs, |p| p
            .receive_abo(ch, trees, k, alphas))
    }

    crate::runtime::__if_tokio! {
        fn receive_abo_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            trees: usize,
            k: usize,
            alphas: &'a [usize],
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<AboReceiverLeaves, OtError>> {
            Box::pin(async move {
                on_abo!(self, ReceiverRealization, ReceiverSubs, |p| p
                    .receive_abo_async(ch, trees, k, alphas)
                    .await)
            })
        }
    }
}

/// The all-but-one-OT party of a SoftSpokenOT run (malicious or not) over
/// base OTs of protocol `base`, its RNG forked from `rng`.
pub(crate) fn abo_party(malicious: bool, base: BaseOtKind, rng: &mut Rng) -> Box<AboOt> {
    let party = if malicious {
        AboOt::malicious()
    } else {
        AboOt::semi_honest()
    };
    // `base` is the configuration's, checked (or opted out of) there.
    Box::new(
        party
            .with_semi_honest_base_insecure(base)
            .with_rng(rng.fork()),
    )
}

impl OtExtension {
    /// Semi-honest SoftSpokenOT with depth `k` (1..=8; `T = ⌈128/k⌉`
    /// bits sent per OT) over all-but-one OTs on CO15 base OTs
    /// (`protocols/softspoken.otp`, chosen messages
    /// `softspoken_chosen.otp`; Delta-OT through
    /// [`OtExtension::delta_sender`]). A `k` outside `1..=8` is the
    /// protocol's typed `Params` error on the first call.
    pub fn softspoken(k: usize) -> Self {
        let mut e = Self::iknp();
        e.softspoken = Some(k);
        e
    }

    /// Malicious SoftSpokenOT with depth `k` dividing 128 (1, 2, 4, 8;
    /// others are refused by `Params::new`): all-but-one OTs with the
    /// sender's proof over MR19 base OTs, and Roy's consistency check
    /// (`protocols/softspoken_malicious.otp`).
    pub fn softspoken_malicious(k: usize) -> Self {
        let mut e = Self::kos();
        e.softspoken = Some(k);
        e
    }
}
