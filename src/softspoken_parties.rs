//! SoftSpokenOT [Roy, CRYPTO 2022, eprint 2022/192] through the common OT
//! traits: the all-but-one-OT party [`AboOt`] (the `AllButOneOt`
//! functionality, running `protocols/abo_ot.otp` or
//! `protocols/abo_ot_malicious.otp`) and the [`OtExtension::softspoken`] /
//! [`OtExtension::softspoken_malicious`] configurations, which run
//! `protocols/softspoken*.otp`. The message flow is the `.otp` files'.

use crate::runtime::abo::{AboReceiverLeaves, AboSenderLeaves};
use crate::runtime::channel::Channel;
use crate::runtime::rng::Rng;
use crate::runtime::{Bits, Block};
use crate::traits::{AboOtReceiver, AboOtSender, BaseOt, BaseOtKind, OtError, OtExtension};

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

    /// Runs the base OTs with another protocol.
    pub fn with_base(mut self, base: BaseOtKind) -> Self {
        self.base = base;
        self
    }

    /// Uses this RNG instead of OS randomness.
    pub fn with_rng(mut self, rng: Rng) -> Self {
        self.rng = rng;
        self
    }

    fn parts(&mut self) -> (Rng, Box<BaseOt>) {
        let base = Box::new(BaseOt::with_rng(self.base, self.rng.fork()));
        (self.rng.fork(), base)
    }
}

impl AboOtSender for AboOt {
    fn send_abo(
        &mut self,
        ch: &mut dyn Channel,
        trees: usize,
        k: usize,
    ) -> Result<AboSenderLeaves, OtError> {
        let (rng, base) = self.parts();
        Ok(if self.malicious {
            use crate::abo_ot_malicious as m;
            m::Sender::new(
                m::Params::new(trees, k)?,
                m::SenderInput {},
                rng,
                m::SenderSubs { base },
            )?
            .run(ch)?
            .leaves
        } else {
            use crate::abo_ot as m;
            m::Sender::new(
                m::Params::new(trees, k)?,
                m::SenderInput {},
                rng,
                m::SenderSubs { base },
            )?
            .run(ch)?
            .leaves
        })
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
        let (rng, base) = self.parts();
        let alphas = alphas.to_vec();
        Ok(if self.malicious {
            use crate::abo_ot_malicious as m;
            let input = m::ReceiverInput { alphas };
            m::Receiver::new(
                m::Params::new(trees, k)?,
                input,
                rng,
                m::ReceiverSubs { base },
            )?
            .run(ch)?
            .punctured
        } else {
            use crate::abo_ot as m;
            let input = m::ReceiverInput { alphas };
            m::Receiver::new(
                m::Params::new(trees, k)?,
                input,
                rng,
                m::ReceiverSubs { base },
            )?
            .run(ch)?
            .punctured
        })
    }
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
    /// others abort with `KDoesNotDivideKappa`): all-but-one OTs with the
    /// sender's proof over MR19 base OTs, and Roy's consistency check
    /// (`protocols/softspoken_malicious.otp`).
    pub fn softspoken_malicious(k: usize) -> Self {
        let mut e = Self::kos();
        e.softspoken = Some(k);
        e
    }

    /// The all-but-one-OT party of this configuration.
    pub(crate) fn abo_party(&mut self) -> Box<AboOt> {
        let rng = self.fork();
        let party = if self.malicious {
            AboOt::malicious()
        } else {
            AboOt::semi_honest()
        };
        Box::new(party.with_base(self.base).with_rng(rng))
    }
}

/// Runs one role of the malicious (`$mal`) or semi-honest (`$sh`)
/// SoftSpokenOT protocol module with the configuration's all-but-one-OT
/// party as its `abo` sub-protocol; `$input` and `$params` are written once
/// against the module alias `m`.
macro_rules! ss_call {
    ($ext:ident, $ch:ident, ($mal:ident, $sh:ident), $role:ident, $subs:ident, $input:expr, $params:expr) => {{
        let rng = $ext.fork();
        let abo = $ext.abo_party();
        if $ext.malicious {
            use crate::$mal as m;
            let out = m::$role::new($params?, $input, rng, m::$subs { abo })?.run($ch)?;
            Outputs::from(out)
        } else {
            use crate::$sh as m;
            let out = m::$role::new($params?, $input, rng, m::$subs { abo })?.run($ch)?;
            Outputs::from(out)
        }
    }};
}

/// The outputs of a SoftSpokenOT role that the traits return.
enum Outputs {
    Pairs(Vec<[Block; 2]>),
    Blocks(Vec<Block>),
    Nothing,
}

macro_rules! outputs_from {
    ($($m:ident :: $o:ident => $v:ident $(. $f:ident)?),* $(,)?) => {$(
        impl From<crate::$m::$o> for Outputs {
            #[allow(unused_variables)]
            fn from(o: crate::$m::$o) -> Self {
                Outputs::$v$((o.$f))?
            }
        }
    )*};
}
outputs_from!(
    softspoken::SenderOutput => Pairs.y,
    softspoken_malicious::SenderOutput => Pairs.y,
    softspoken::ReceiverOutput => Blocks.x,
    softspoken_malicious::ReceiverOutput => Blocks.x,
    softspoken_chosen::SenderOutput => Nothing,
    softspoken_malicious_chosen::SenderOutput => Nothing,
    softspoken_chosen::ReceiverOutput => Blocks.received,
    softspoken_malicious_chosen::ReceiverOutput => Blocks.received,
);

impl Outputs {
    fn pairs(self) -> Vec<[Block; 2]> {
        match self {
            Outputs::Pairs(p) => p,
            _ => Vec::new(),
        }
    }
    fn blocks(self) -> Vec<Block> {
        match self {
            Outputs::Blocks(b) => b,
            _ => Vec::new(),
        }
    }
}

/// [`crate::RandomOtSender::send_random`] of a SoftSpokenOT configuration.
pub(crate) fn send_random(
    ext: &mut OtExtension,
    ch: &mut dyn Channel,
    n: usize,
    k: usize,
) -> Result<Vec<[Block; 2]>, OtError> {
    let (t, h) = (ext.threads, ext.sha1);
    let out = ss_call!(
        ext,
        ch,
        (softspoken_malicious, softspoken),
        Sender,
        SenderSubs,
        m::SenderInput {},
        m::Params::new(k, n, t, h)
    );
    Ok(out.pairs())
}

/// [`crate::RandomOtReceiver::receive_random`] of a SoftSpokenOT configuration.
pub(crate) fn receive_random(
    ext: &mut OtExtension,
    ch: &mut dyn Channel,
    choices: &Bits,
    k: usize,
) -> Result<Vec<Block>, OtError> {
    let (n, t, h) = (choices.len(), ext.threads, ext.sha1);
    let out = ss_call!(
        ext,
        ch,
        (softspoken_malicious, softspoken),
        Receiver,
        ReceiverSubs,
        m::ReceiverInput { r: choices.clone() },
        m::Params::new(k, n, t, h)
    );
    Ok(out.blocks())
}

/// [`crate::OtSender::send`] of a SoftSpokenOT configuration.
pub(crate) fn send(
    ext: &mut OtExtension,
    ch: &mut dyn Channel,
    messages: &[[Block; 2]],
    k: usize,
) -> Result<(), OtError> {
    let (n, t, h) = (messages.len(), ext.threads, ext.sha1);
    ss_call!(
        ext,
        ch,
        (softspoken_malicious_chosen, softspoken_chosen),
        Sender,
        SenderSubs,
        m::SenderInput {
            payload: messages.to_vec()
        },
        m::Params::new(k, n, t, h)
    );
    Ok(())
}

/// [`crate::OtReceiver::receive`] of a SoftSpokenOT configuration.
pub(crate) fn receive(
    ext: &mut OtExtension,
    ch: &mut dyn Channel,
    choices: &Bits,
    k: usize,
) -> Result<Vec<Block>, OtError> {
    let (n, t, h) = (choices.len(), ext.threads, ext.sha1);
    let out = ss_call!(
        ext,
        ch,
        (softspoken_malicious_chosen, softspoken_chosen),
        Receiver,
        ReceiverSubs,
        m::ReceiverInput { r: choices.clone() },
        m::Params::new(k, n, t, h)
    );
    Ok(out.blocks())
}
