//! Common OT interfaces that every protocol in this crate implements, so
//! later protocols (OT extension) and users can swap base OTs freely.
//!
//! The implementations of the traits are generated from the `realizes`
//! clauses of the `.otp` files (`co15::SenderRealization`, ...); this
//! module holds the trait definitions and the adapters that choose a
//! protocol at run time ([`BaseOt`], [`OtExtension`]).

use crate::runtime::primitives::rng::Rng;
use crate::runtime::transport::channel::Channel;
use crate::runtime::{Bits, Block};

/// A failed OT run: the generated protocol's typed error, boxed (find it
/// with `err.0.downcast_ref::<ot::iknp::Error>()`).
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

/// How generated realizations (`realizes` in a `.otp`) wrap their typed error.
impl From<Box<dyn std::error::Error + Send + Sync + 'static>> for OtError {
    fn from(e: Box<dyn std::error::Error + Send + Sync + 'static>) -> Self {
        OtError(e)
    }
}

/// Declares the async twin `$name` of functionality method `$tr::$bl`
/// (cargo feature `tokio`): a boxed future over an async channel, whose
/// default fails with an [`OtError`] (see [`no_async`]).
macro_rules! async_twin {
    ($lt:lifetime, $tr:literal, $bl:literal, $name:ident($($arg:ident: $ty:ty),*) -> $ret:ty) => {
        crate::runtime::__if_tokio! {
            #[doc = concat!("The async twin of [`", $tr, "::", $bl, "`] (cargo feature `tokio`), which the async drivers (`run_async`) of protocols calling this functionality use. Generated realizations implement it; the default fails with an [`OtError`] saying the implementation has no async version.")]
            #[allow(unused_variables)]
            fn $name<$lt>(
                &$lt mut self,
                ch: &$lt mut dyn crate::runtime::transport::channel::AsyncChannel,
                $($arg: $ty),*
            ) -> crate::runtime::transport::channel::BoxFuture<$lt, Result<$ret, OtError>> {
                no_async($tr)
            }
        }
    };
}

crate::runtime::__if_tokio! {
    /// The default of the async functionality methods: `trait_name` is
    /// implemented without an async version.
    fn no_async<'a, T: 'a>(
        trait_name: &'static str,
    ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<T, OtError>> {
        Box::pin(async move {
            Err(OtError(
                format!("this {trait_name} implementation has no async version").into(),
            ))
        })
    }
}

/// Sender of random OTs: gets two random messages per OT.
pub trait RandomOtSender {
    /// Runs `n` random OTs; returns `[m0, m1]` for each.
    fn send_random(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError>;

    async_twin!('a, "RandomOtSender", "send_random", send_random_async(n: usize) -> Vec<[Block; 2]>);
}

/// Receiver of random OTs: gets the message of its choice.
pub trait RandomOtReceiver {
    /// Runs one random OT per choice bit; returns `m_{c_i}` for each.
    fn receive_random(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError>;

    async_twin!('a, "RandomOtReceiver", "receive_random", receive_random_async(choices: &'a Bits) -> Vec<Block>);
}

/// Sender of chosen-message OTs.
pub trait OtSender {
    /// Transfers one of `messages[i]` per OT.
    fn send(&mut self, ch: &mut dyn Channel, messages: &[[Block; 2]]) -> Result<(), OtError>;

    async_twin!('a, "OtSender", "send", send_async(messages: &'a [[Block; 2]]) -> ());
}

/// Receiver of chosen-message OTs.
pub trait OtReceiver {
    /// Receives `messages[i][c_i]` per OT.
    fn receive(&mut self, ch: &mut dyn Channel, choices: &Bits) -> Result<Vec<Block>, OtError>;

    async_twin!('a, "OtReceiver", "receive", receive_async(choices: &'a Bits) -> Vec<Block>);
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

    async_twin!('a, "CorrelatedOtSender", "send_correlated", send_correlated_async(n: usize) -> Vec<Block>);
}

/// Receiver of correlated OTs.
pub trait CorrelatedOtReceiver {
    /// Runs one correlated OT per choice bit; returns `z_i ^ c_i * delta`.
    fn receive_correlated(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError>;

    async_twin!('a, "CorrelatedOtReceiver", "receive_correlated", receive_correlated_async(choices: &'a Bits) -> Vec<Block>);
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
    ) -> Result<crate::runtime::softspoken::abo::AboSenderLeaves, OtError>;

    async_twin!('a, "AboOtSender", "send_abo", send_abo_async(trees: usize, k: usize) -> crate::runtime::softspoken::abo::AboSenderLeaves);
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
    ) -> Result<crate::runtime::softspoken::abo::AboReceiverLeaves, OtError>;

    async_twin!('a, "AboOtReceiver", "receive_abo", receive_abo_async(trees: usize, k: usize, alphas: &'a [usize]) -> crate::runtime::softspoken::abo::AboReceiverLeaves);
}

/// Sender of a batched OPRF / 1-out-of-N OT (the prelude's `Oprf`
/// functionality [KKRT16, eprint 2016/799]): gets the key of `m` OPRF
/// instances, which it evaluates on any input
/// ([`OprfKey::eval`](crate::runtime::oprf::OprfKey::eval)). Implemented by
/// `ot::kkrt::SenderRealization` (semi-honest) and
/// `ot::oos::SenderRealization` (malicious).
pub trait BatchedOprfSender {
    /// Runs `m` OPRF instances; returns the sender's key.
    fn send_oprf(
        &mut self,
        ch: &mut dyn Channel,
        m: usize,
    ) -> Result<crate::runtime::oprf::OprfKey, OtError>;

    async_twin!('a, "BatchedOprfSender", "send_oprf", send_oprf_async(m: usize) -> crate::runtime::oprf::OprfKey);
}

/// Receiver of a batched OPRF: gets `F(j, inputs[j])` for each of its
/// inputs. Implemented by `ot::kkrt::ReceiverRealization` and
/// `ot::oos::ReceiverRealization` (whose inputs are choices below
/// `2^k` of its linear code).
pub trait BatchedOprfReceiver {
    /// Runs one OPRF instance per input; returns the values.
    fn receive_oprf(
        &mut self,
        ch: &mut dyn Channel,
        inputs: &[Block],
    ) -> Result<Vec<Block>, OtError>;

    async_twin!('a, "BatchedOprfReceiver", "receive_oprf", receive_oprf_async(inputs: &'a [Block]) -> Vec<Block>);
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
}

pub(crate) fn len_param(n: usize) -> Result<usize, OtError> {
    if n == 0 {
        return Err(OtError("an OT batch needs at least one OT".into()));
    }
    Ok(n)
}

/// Runs `$call` on `$p`, the realization `$real` of the module of the
/// configured base OT (`$co`, `$np`, `$mr` for CO15, NP00, MR19).
macro_rules! on_base {
    ($self:ident, $real:ident, [$co:ident, $np:ident, $mr:ident], |$p:ident| $call:expr) => {{
        let rng = &mut $self.rng;
        let mut $p = match $self.kind {
            BaseOtKind::Co15 => Realization::Co15(crate::$co::$real { rng }),
            BaseOtKind::Np00 => Realization::Np00(crate::$np::$real { rng }),
            BaseOtKind::Mr19 => Realization::Mr19(crate::$mr::$real { rng }),
        };
        match &mut $p {
            Realization::Co15($p) => $call,
            Realization::Np00($p) => $call,
            Realization::Mr19($p) => $call,
        }
    }};
}

/// The realization of one base-OT protocol (see `on_base!`).
enum Realization<C, N, M> {
    Co15(C),
    Np00(N),
    Mr19(M),
}

impl RandomOtSender for BaseOt {
    fn send_random(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError> {
        let n = len_param(n)?;
        on_base!(self, SenderRealization, [co15, np00, mr19], |p| p
            .send_random(ch, n))
    }
    crate::runtime::__if_tokio! {
        fn send_random_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            n: usize,
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<Vec<[Block; 2]>, OtError>> {
            Box::pin(async move {
                let n = len_param(n)?;
                on_base!(self, SenderRealization, [co15, np00, mr19], |p| p
                    .send_random_async(ch, n)
                    .await)
            })
        }
    }
}

impl RandomOtReceiver for BaseOt {
    fn receive_random(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError> {
        len_param(choices.len())?;
        on_base!(self, ReceiverRealization, [co15, np00, mr19], |p| p
            .receive_random(ch, choices))
    }
    crate::runtime::__if_tokio! {
        fn receive_random_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            choices: &'a Bits,
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<Vec<Block>, OtError>> {
            Box::pin(async move {
                len_param(choices.len())?;
                on_base!(self, ReceiverRealization, [co15, np00, mr19], |p| p
                    .receive_random_async(ch, choices)
                    .await)
            })
        }
    }
}

impl OtSender for BaseOt {
    fn send(&mut self, ch: &mut dyn Channel, messages: &[[Block; 2]]) -> Result<(), OtError> {
        len_param(messages.len())?;
        on_base!(
            self,
            SenderRealization,
            [co15_chosen, np00_chosen, mr19_chosen],
            |p| p.send(ch, messages)
        )
    }
}

impl OtReceiver for BaseOt {
    fn receive(&mut self, ch: &mut dyn Channel, choices: &Bits) -> Result<Vec<Block>, OtError> {
        len_param(choices.len())?;
        on_base!(
            self,
            ReceiverRealization,
            [co15_chosen, np00_chosen, mr19_chosen],
            |p| p.receive(ch, choices)
        )
    }
}

/// An OT-extension party (either role) implementing the random and chosen
/// OT traits with IKNP (semi-honest) or KOS (malicious) over base OTs run
/// on the same channel. Each call runs the protocol generated from the
/// corresponding `.otp` file (`iknp`, `kos`, `iknp_chosen`, `kos_chosen`)
/// with fresh base OTs. Correlated OT (Delta-OT) needs state across calls:
/// [`OtExtension::delta_sender`] / [`OtExtension::delta_receiver`] build the
/// stateful parties with this configuration. [`OtExtension::silent`] runs
/// each call as a one-shot Ferret session instead.
pub struct OtExtension {
    pub(crate) malicious: bool,
    /// Ferret silent OT (a one-shot session per call) instead of IKNP/KOS.
    pub(crate) silent: bool,
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
            silent: false,
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
    /// [`OtExtension::iknp`], MR19 for [`OtExtension::kos`]). A malicious
    /// configuration (KOS, malicious SoftSpokenOT) refuses the semi-honest
    /// CO15 and NP00 with [`crate::UnfitBaseOt`] (`crate::base_rule`).
    pub fn with_base(self, base: BaseOtKind) -> Result<Self, crate::UnfitBaseOt> {
        let name = if self.softspoken.is_some() {
            "SoftSpokenOT"
        } else {
            "KOS"
        };
        let base = crate::base_rule::checked_base(self.malicious, name, base)?;
        Ok(self.with_base_unchecked(base))
    }

    /// Runs the base OTs with any protocol, also a semi-honest one under a
    /// malicious extension: the run is then no more secure than that base
    /// OT against a malicious peer (benchmarks, tests; `crate::base_rule`).
    pub fn with_semi_honest_base_insecure(self, base: BaseOtKind) -> Self {
        self.with_base_unchecked(base)
    }

    /// Sets the base OT (checked by the caller, or opted out of).
    pub(crate) fn with_base_unchecked(mut self, base: BaseOtKind) -> Self {
        self.base = base;
        self
    }

    /// Uses this RNG instead of OS randomness (reproducible runs).
    pub fn with_rng(mut self, rng: Rng) -> Self {
        self.rng = rng;
        self
    }

    pub(crate) fn fork(&mut self) -> Rng {
        self.rng.fork()
    }
}

/// A base-OT party of protocol `kind`, its RNG forked from `rng`.
pub(crate) fn base_party(kind: BaseOtKind, rng: &mut Rng) -> Box<BaseOt> {
    Box::new(BaseOt::with_rng(kind, rng.fork()))
}

/// Runs `$call` on `$p`, the realization `$real` (with sub-protocol
/// parties `$subs`) of the configured extension protocol: IKNP or KOS
/// (`$ik`, `$ko`, over base OTs) or SoftSpokenOT (`$ss`, `$ssm`, over
/// all-but-one OTs).
macro_rules! on_extension {
    (@run $m:ident, $real:ident, $subs:ident, [$($f:ident),*], $field:ident = $party:expr, |$p:ident| $call:expr) => {{
        let subs = &mut |r: &mut Rng| crate::$m::$subs { $field: $party(r) };
        let mut $p = crate::$m::$real { $($f,)* subs };
        $call
    }};
    ($self:ident, $real:ident, $subs:ident, [$ik:ident, $ko:ident, $ss:ident, $ssm:ident], |$p:ident| $call:expr) => {{
        let (threads, sha1, base) = ($self.threads, $self.sha1, $self.base);
        let rng = &mut $self.rng;
        let abo = |malicious| move |r: &mut Rng| crate::softspoken_parties::abo_party(malicious, base, r);
        let base_ot = |r: &mut Rng| base_party(base, r);
        match ($self.softspoken, $self.malicious) {
            (None, false) => on_extension!(@run $ik, $real, $subs, [rng, threads, sha1], base = base_ot, |$p| $call),
            (None, true) => on_extension!(@run $ko, $real, $subs, [rng, threads, sha1], base = base_ot, |$p| $call),
            (Some(k), false) => on_extension!(@run $ss, $real, $subs, [rng, k, threads, sha1], abo = abo(false), |$p| $call),
            (Some(k), true) => on_extension!(@run $ssm, $real, $subs, [rng, k, threads, sha1], abo = abo(true), |$p| $call),
        }
    }};
}

impl RandomOtSender for OtExtension {
    fn send_random(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError> {
        let n = len_param(n)?;
        if self.silent {
            return self.silent_sender(ch, n)?.send_random(ch, n);
        }
        on_extension!(
            self,
            SenderRealization,
            SenderSubs,
            [iknp, kos, softspoken, softspoken_malicious],
            |p| p.send_random(ch, n)
        )
    }

    crate::runtime::__if_tokio! {
        fn send_random_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            n: usize,
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<Vec<[Block; 2]>, OtError>> {
            Box::pin(async move {
                let n = len_param(n)?;
                if self.silent {
                    return no_async::<Vec<[Block; 2]>>("silent (Ferret) RandomOtSender").await;
                }
                on_extension!(
                    self,
                    SenderRealization,
                    SenderSubs,
                    [iknp, kos, softspoken, softspoken_malicious],
                    |p| p.send_random_async(ch, n).await
                )
            })
        }
    }
}

impl RandomOtReceiver for OtExtension {
    fn receive_random(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError> {
        len_param(choices.len())?;
        if self.silent {
            return self
                .silent_receiver(ch, choices.len())?
                .receive_random(ch, choices);
        }
        on_extension!(
            self,
            ReceiverRealization,
            ReceiverSubs,
            [iknp, kos, softspoken, softspoken_malicious],
            |p| p.receive_random(ch, choices)
        )
    }

    crate::runtime::__if_tokio! {
        fn receive_random_async<'a>(
            &'a mut self,
            ch: &'a mut dyn crate::runtime::transport::channel::AsyncChannel,
            choices: &'a Bits,
        ) -> crate::runtime::transport::channel::BoxFuture<'a, Result<Vec<Block>, OtError>> {
            Box::pin(async move {
                len_param(choices.len())?;
                if self.silent {
                    return no_async::<Vec<Block>>("silent (Ferret) RandomOtReceiver").await;
                }
                on_extension!(
                    self,
                    ReceiverRealization,
                    ReceiverSubs,
                    [iknp, kos, softspoken, softspoken_malicious],
                    |p| p.receive_random_async(ch, choices).await
                )
            })
        }
    }
}

impl OtSender for OtExtension {
    fn send(&mut self, ch: &mut dyn Channel, messages: &[[Block; 2]]) -> Result<(), OtError> {
        len_param(messages.len())?;
        if self.silent {
            return self.silent_sender(ch, messages.len())?.send(ch, messages);
        }
        on_extension!(
            self,
            SenderRealization,
            SenderSubs,
            [
                iknp_chosen,
                kos_chosen,
                softspoken_chosen,
                softspoken_malicious_chosen
            ],
            |p| p.send(ch, messages)
        )
    }
}

impl OtReceiver for OtExtension {
    fn receive(&mut self, ch: &mut dyn Channel, choices: &Bits) -> Result<Vec<Block>, OtError> {
        len_param(choices.len())?;
        if self.silent {
            return self
                .silent_receiver(ch, choices.len())?
                .receive(ch, choices);
        }
        on_extension!(
            self,
            ReceiverRealization,
            ReceiverSubs,
            [
                iknp_chosen,
                kos_chosen,
                softspoken_chosen,
                softspoken_malicious_chosen
            ],
            |p| p.receive(ch, choices)
        )
    }
}
