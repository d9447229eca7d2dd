//! Stateful Ferret parties: silent random COT batch after batch, each
//! batch's base COTs reserved from the previous batch's output (Ferret,
//! eprint 2020/924, §5, bootstrapping).
//!
//! The first call of [`FerretSender::extend`] / [`FerretReceiver::extend`]
//! sets up: the smallest prefix of the set-up set ([`SETUP`]; 2,371 of its
//! 2,508 trees, 2,372 malicious) whose outputs cover a main batch's base,
//! its `k + t·h` Delta-OT COTs (38,838; SoftSpokenOT with `k = 8`,
//! semi-honest or, for the malicious variant, malicious) under the
//! sender's Delta, one batch of that prefix from them, whose first
//! [`EXTEND`]`.reserved()` outputs become the base of the first main
//! batch. Every call then runs one main batch
//! (`protocols/ferret_extend.otp`, or `ferret_extend_malicious.otp` after
//! [`FerretSender::with_check`]; 10,805,248 COTs), keeps its last 606,907
//! (607,035) outputs as the next base and returns the others
//! ([`FerretSender::batch_len`]). [`FerretSender::extend_for`] runs the
//! smallest prefix of the main set (fewer trees) that a request needs, and
//! [`FerretSender::finish`] a last batch that keeps no base (prefixes are
//! as secure as their set: [`ferret::level_ok`]).
//! [`FerretSender::with_levels`]`(SETUP, SETUP)` runs small batches
//! (602,114 COTs) instead.
//!
//! Random OT: both parties implement the crate's `RandomOtSender` /
//! `RandomOtReceiver` through `protocols/cot_random_ot.otp` (the
//! receiver's choice bits derandomized, one bit per OT), buffering the
//! rest of a batch between calls.
//!
//! The message flow is the `.otp` files'; this module only keeps their
//! outputs between runs. Batches are counted, and the counter is a
//! parameter of the batch protocol, so two parties at different batches
//! are refused by the session binding (`PeerMismatch`). After any failed
//! call a party refuses every further call (its reserved COTs may be
//! inconsistent with the peer's, and a malicious sender must not retry a
//! failed check). Reserved COTs and Delta are wiped on drop.

use zeroize::Zeroize;

use crate::delta::{DeltaOtReceiver, DeltaOtSender};
use crate::runtime::primitives::rng::Rng;
use crate::runtime::silent::ferret::{self, Level, EXTEND, SETUP};
use crate::runtime::silent::pool as ferret_pool;
use crate::runtime::transport::channel::Channel;
use crate::runtime::{Bits, Block};
use crate::traits::{
    CorrelatedOtReceiver, CorrelatedOtSender, OtError, OtExtension, OtReceiver, OtSender,
    RandomOtReceiver, RandomOtSender,
};

/// SoftSpokenOT's `k` for the set-up's base COTs: 2 bytes per COT on the
/// wire (`128 / k` bits) against Delta-IKNP's 16, which made the set-up
/// the largest message of a `2^24` run.
const SETUP_SOFTSPOKEN_K: usize = 8;

/// The error of a Ferret party used after one of its calls failed, or
/// built with a parameter set the batch protocol refuses (inside
/// [`OtError`]).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum FerretError {
    /// An earlier call failed; start a new pair of parties.
    Poisoned,
    /// The session ended with `finish` (it kept no base COTs for another
    /// batch); start a new pair of parties.
    Finished,
    /// The set-up set's outputs do not cover the main set's base COTs, or
    /// a set is not one the batch protocol accepts.
    Levels(Level, Level),
}

impl std::fmt::Display for FerretError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FerretError::Poisoned => f.write_str(
                "Ferret party refused: an earlier call failed, so its reserved COTs may not \
                 match the peer's; start a new pair of parties",
            ),
            FerretError::Finished => f.write_str(
                "Ferret party refused: its session ended with `finish`, which keeps no base \
                 COTs for another batch; start a new pair of parties",
            ),
            FerretError::Levels(s, e) => write!(
                f,
                "Ferret parameter sets refused: set-up {s:?}, main {e:?} (each must be one of \
                 Ferret's published sets, and the set-up batch must produce the main set's \
                 k + trees * depth base COTs)"
            ),
        }
    }
}

impl std::error::Error for FerretError {}

/// The COTs one batch returns: the sender's `z_i` or the receiver's `y_i`
/// (a slice through `Deref`). Dropping it wipes the buffer and hands it
/// back to `ot::runtime::silent::pool`, so the party's next batch does not
/// pay for fresh pages (about 65 ms per batch on a 2-core VM);
/// [`FerretCots::into_vec`] keeps it instead.
pub struct FerretCots {
    blocks: Vec<Block>,
}

impl FerretCots {
    /// The COTs as a vector of their own (not recycled).
    pub fn into_vec(mut self) -> Vec<Block> {
        std::mem::take(&mut self.blocks)
    }
}

impl std::ops::Deref for FerretCots {
    type Target = [Block];
    fn deref(&self) -> &[Block] {
        &self.blocks
    }
}

impl std::fmt::Debug for FerretCots {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FerretCots {{ len: {} }}", self.blocks.len())
    }
}

impl Drop for FerretCots {
    fn drop(&mut self) {
        ferret_pool::give(std::mem::take(&mut self.blocks));
    }
}

fn err(e: FerretError) -> OtError {
    OtError(Box::new(e))
}

/// Extra base COTs per batch of the malicious check
/// (`ferret_extend_malicious.otp`).
const CHECK: usize = 128;

/// Base COTs a batch at set `l` consumes.
fn reserved(l: Level, malicious: bool) -> usize {
    l.reserved() + if malicious { CHECK } else { 0 }
}

/// Checks a pair of parameter sets (set-up, main).
fn check_levels(setup: Level, extend: Level, malicious: bool) -> Result<(), OtError> {
    let ok = |l: Level| {
        ferret::level_ok(l.trees, l.depth, l.k)
            && l.outputs().is_some_and(|n| n >= reserved(l, malicious))
    };
    let covers = setup
        .outputs()
        .is_some_and(|n| n >= reserved(extend, malicious));
    if ok(setup) && ok(extend) && covers {
        Ok(())
    } else {
        Err(err(FerretError::Levels(setup, extend)))
    }
}

/// The reserved base COTs of a batch, split as the batch protocol takes
/// them: `k` LPN values, `trees · depth` tree values, then `extra` (the
/// malicious check's 128, or none). A batch of a prefix of the main set
/// leaves some unused: they are wiped here.
fn split(mut reserve: Vec<Block>, l: Level, extra: usize) -> (Vec<Block>, Vec<Block>, Vec<Block>) {
    let mut tree = reserve.split_off(l.k.min(reserve.len()));
    let mut check = tree.split_off((l.trees * l.depth).min(tree.len()));
    let mut unused = check.split_off(extra.min(check.len()));
    unused.iter_mut().for_each(|b| b.0.zeroize());
    (reserve, tree, check)
}

/// Bits `from .. from + len` of `bits`.
fn bit_range(bits: &Bits, from: usize, len: usize) -> Bits {
    let mut b = Bits::zeros(len);
    for i in 0..len {
        b.set(i, bits.get(from + i));
    }
    b
}

/// What both parties keep between calls: their configuration, the next
/// batch's base COTs, the batch counter, the poisoning flag, and the
/// unused COTs of the last batch for the conversions.
struct Session {
    rng: Rng,
    malicious: bool,
    levels: (Level, Level),
    reserve: Vec<Block>,
    batch: usize,
    poisoned: bool,
    /// Set by `finish`: no base COTs are kept, so no batch can follow.
    finished: bool,
    /// COTs of the last batch not yet used by a conversion, from `offset`.
    pending: Vec<Block>,
    offset: usize,
    /// COTs used by the conversions so far (their hash tweaks).
    consumed: usize,
}

impl Session {
    fn new(rng: Rng) -> Self {
        Session {
            rng,
            malicious: false,
            levels: (SETUP, EXTEND),
            reserve: Vec::new(),
            batch: 0,
            poisoned: false,
            finished: false,
            pending: Vec::new(),
            offset: 0,
            consumed: 0,
        }
    }

    fn with_levels(&mut self, setup: Level, extend: Level) -> Result<(), OtError> {
        check_levels(setup, extend, self.malicious)?;
        self.levels = (setup, extend);
        Ok(())
    }

    fn batch_len(&self) -> usize {
        let l = self.levels.1;
        l.outputs()
            .unwrap_or(0)
            .saturating_sub(reserved(l, self.malicious))
    }

    /// The set of the next main batch for a call that wants `wanted` COTs:
    /// the smallest prefix of the main set whose outputs cover `wanted`
    /// and, unless it is the `last`, the next batch's base
    /// ([`Level::prefix_trees`]); the whole set for `usize::MAX`.
    fn next_level(&self, wanted: usize, last: bool) -> Level {
        let main = self.levels.1;
        let keep = if last {
            0
        } else {
            reserved(main, self.malicious)
        };
        main.prefix(main.prefix_trees(wanted, keep, self.extra()))
    }

    /// The set of the set-up batch: the smallest prefix of the set-up set
    /// whose outputs cover a whole main batch's base.
    fn setup_level(&self) -> Level {
        let (setup, main) = self.levels;
        setup.prefix(setup.prefix_trees(0, reserved(main, self.malicious), self.extra()))
    }

    /// Base COTs a batch takes beyond its LPN and tree values.
    fn extra(&self) -> usize {
        if self.malicious {
            CHECK
        } else {
            0
        }
    }

    /// Refuses a poisoned party.
    fn check(&self) -> Result<(), OtError> {
        if self.poisoned {
            Err(err(FerretError::Poisoned))
        } else {
            Ok(())
        }
    }

    /// Starts a batch: as [`Session::begin`], and refuses a finished
    /// session (its pending COTs stay usable by the conversions).
    fn begin_batch(&mut self) -> Result<(), OtError> {
        if self.finished {
            self.check()?;
            return Err(err(FerretError::Finished));
        }
        self.begin()
    }

    /// Starts a call: refuses a poisoned party and poisons it until
    /// [`Session::end`] (a call that fails leaves it poisoned).
    fn begin(&mut self) -> Result<(), OtError> {
        self.check()?;
        self.poisoned = true;
        Ok(())
    }

    fn end(&mut self) {
        self.poisoned = false;
    }

    /// After the set-up batch: its first outputs become the main batch's
    /// base COTs.
    fn keep_setup(&mut self, out: Vec<Block>) {
        self.reserve = out[..reserved(self.levels.1, self.malicious)].to_vec();
        ferret_pool::give(out);
    }

    /// After a main batch: keeps its last outputs as the next base COTs and
    /// returns the others; after the `last` batch, returns them all.
    fn keep_main(&mut self, mut out: Vec<Block>, last: bool) -> Vec<Block> {
        if last {
            self.finished = true;
            return out;
        }
        let usable = out.len() - reserved(self.levels.1, self.malicious);
        self.reserve = out.split_off(usable);
        out
    }

    /// Unused COTs left from the last batch.
    fn pending_len(&self) -> usize {
        self.pending.len() - self.offset
    }

    /// Appends a new batch's COTs to the unused ones (the batch's buffer
    /// itself when none is left unused: no copy).
    fn append(&mut self, batch: Vec<Block>) {
        if self.pending_len() == 0 {
            ferret_pool::give(std::mem::replace(&mut self.pending, batch));
        } else {
            let mut rest = self.pending.split_off(self.offset);
            ferret_pool::give(std::mem::take(&mut self.pending));
            rest.reserve_exact(batch.len());
            rest.extend_from_slice(&batch);
            ferret_pool::give(batch);
            self.pending = rest;
        }
        self.offset = 0;
    }

    /// The next `n` unused COTs (at least `n` are pending) and the index of
    /// the first in the session; their copies here are wiped. When they
    /// are most of the pending buffer from its start, the buffer itself is
    /// handed over and the (shorter) rest copied instead.
    fn take(&mut self, n: usize) -> (Vec<Block>, usize) {
        let cots = if self.offset == 0 && n >= self.pending.len() / 2 {
            let rest = self.pending[n..].to_vec();
            self.pending[n..].iter_mut().for_each(|b| b.0.zeroize());
            let mut cots = std::mem::replace(&mut self.pending, rest);
            cots.truncate(n);
            cots
        } else {
            let range = self.offset..self.offset + n;
            let cots = self.pending[range.clone()].to_vec();
            self.pending[range].iter_mut().for_each(|b| b.0.zeroize());
            self.offset += n;
            cots
        };
        let first = self.consumed;
        self.consumed += n;
        (cots, first)
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.reserve.iter_mut().for_each(|b| b.0.zeroize());
        ferret_pool::give(std::mem::take(&mut self.pending));
    }
}

/// The sender of a Ferret pair: a fixed Delta (low bit set), a set-up on
/// the first call, then one batch per call.
pub struct FerretSender {
    delta: Block,
    s: Session,
}

impl FerretSender {
    /// A sender at Ferret's published sets ([`SETUP`], [`EXTEND`]) with a
    /// fresh Delta and the operating system's randomness.
    pub fn new() -> Self {
        Self::with_rng(Rng::from_entropy())
    }

    /// As [`FerretSender::new`], drawing Delta and every batch's
    /// randomness from `rng`.
    pub fn with_rng(mut rng: Rng) -> Self {
        let delta = rng.next_block() | Block(1);
        FerretSender {
            delta,
            s: Session::new(rng),
        }
    }

    /// A sender of the malicious variant ([`FerretSender::with_check`])
    /// with a fresh Delta and the operating system's randomness.
    pub fn malicious() -> Self {
        Self::new().with_check()
    }

    /// Runs the malicious variant: malicious SoftSpokenOT (`k = 8`, over
    /// MR19 base OTs) for the set-up's base COTs and
    /// `ferret_extend_malicious.otp` (Ferret's consistency check, 128 more
    /// base COTs per batch) for every batch. The receiver must do the same.
    pub fn with_check(mut self) -> Self {
        self.s.malicious = true;
        self
    }

    /// Other parameter sets (set-up, main): refused unless both are sets
    /// [`ferret::level_ok`] accepts (outside Ferret's two published sets,
    /// only in builds with `ot-runtime`'s `insecure-test-levels` feature)
    /// and the set-up batch covers the main set's base COTs. Both parties
    /// must use the same sets.
    pub fn with_levels(mut self, setup: Level, extend: Level) -> Result<Self, OtError> {
        self.s.with_levels(setup, extend)?;
        Ok(self)
    }

    /// The sender's global Delta (its low bit is 1).
    pub fn delta(&self) -> Block {
        self.delta
    }

    /// COTs one call returns: the main set's `N − (k + t·h)` (128 fewer
    /// in the malicious variant).
    pub fn batch_len(&self) -> usize {
        self.s.batch_len()
    }

    /// Runs the next batch (the set-up first, on the first call) and
    /// returns its [`FerretSender::batch_len`] COTs `z_i`; the receiver's
    /// `y_i = z_i ⊕ x_i·Δ`. Every `z_i` has a zero low bit.
    pub fn extend(&mut self, ch: &mut dyn Channel) -> Result<FerretCots, OtError> {
        self.extend_for(ch, usize::MAX)
    }

    /// As [`FerretSender::extend`], but the batch has only as many trees
    /// as it needs to return at least `wanted` COTs (at most
    /// [`FerretSender::batch_len`]): a prefix of the main set, which is as
    /// secure as the set ([`ferret::level_ok`]) and costs time and bytes
    /// in proportion to its trees. It still keeps the next full batch's
    /// base. The receiver must call [`FerretReceiver::extend_for`] with the
    /// same `wanted` (the trees are a parameter of the batch, so a
    /// mismatch is refused by the session binding).
    pub fn extend_for(
        &mut self,
        ch: &mut dyn Channel,
        wanted: usize,
    ) -> Result<FerretCots, OtError> {
        self.batch(ch, wanted, false)
    }

    /// The session's last batch: as [`FerretSender::extend_for`], but it
    /// keeps no base COTs for a next batch, so its trees need only cover
    /// `wanted` (and every output is returned). Afterwards the party
    /// refuses every call ([`FerretError::Finished`]). The receiver must
    /// call [`FerretReceiver::finish`] with the same `wanted`.
    pub fn finish(&mut self, ch: &mut dyn Channel, wanted: usize) -> Result<FerretCots, OtError> {
        self.batch(ch, wanted, true)
    }

    /// One call: the set-up on the first, then one main batch for `wanted`
    /// COTs (the session's `last` or not).
    fn batch(
        &mut self,
        ch: &mut dyn Channel,
        wanted: usize,
        last: bool,
    ) -> Result<FerretCots, OtError> {
        self.s.begin_batch()?;
        let setup = self.s.setup_level();
        let main = self.s.next_level(wanted, last);
        let malicious = self.s.malicious;
        if self.s.batch == 0 {
            let mut base = if malicious {
                DeltaOtSender::softspoken_malicious(SETUP_SOFTSPOKEN_K, self.delta)
            } else {
                DeltaOtSender::softspoken(SETUP_SOFTSPOKEN_K, self.delta)
            }
            .with_rng(self.s.rng.fork());
            let zeros = base.send_correlated(ch, reserved(setup, malicious))?;
            let out = self.run(ch, setup, zeros)?;
            self.s.keep_setup(out);
        }
        let reserve = std::mem::take(&mut self.s.reserve);
        let out = self.run(ch, main, reserve)?;
        let blocks = self.s.keep_main(out, last);
        self.s.end();
        Ok(FerretCots { blocks })
    }

    /// One batch of `ferret_extend.otp` (or `ferret_extend_malicious.otp`)
    /// at set `l` from the base COTs `base`, with the session's batch
    /// counter (then advanced).
    fn run(
        &mut self,
        ch: &mut dyn Channel,
        l: Level,
        base: Vec<Block>,
    ) -> Result<Vec<Block>, OtError> {
        let n = l.outputs().unwrap_or(0);
        let (lpn_base, tree_base, check_base) = split(base, l, self.s.extra());
        let (delta, rng, batch) = (self.delta, self.s.rng.fork(), self.s.batch);
        let zeros = if self.s.malicious {
            use crate::ferret_extend_malicious as m;
            let params = m::Params::new(l.trees, l.depth, l.k, n, batch)?;
            let input = m::SenderInput {
                delta,
                lpn_base,
                tree_base,
                check_base,
            };
            m::Sender::new(params, input, rng)?.run(ch)?.zeros
        } else {
            use crate::ferret_extend as m;
            let params = m::Params::new(l.trees, l.depth, l.k, n, batch)?;
            let input = m::SenderInput {
                delta,
                lpn_base,
                tree_base,
            };
            m::Sender::new(params, input, rng)?.run(ch)?.zeros
        };
        self.s.batch += 1;
        Ok(zeros)
    }

    /// Runs the batches that `n` COTs need beyond the pending ones (whole
    /// batches, then [`FerretSender::finish`]), keeping their outputs for
    /// the conversions: a one-shot session (`OtExtension::silent`).
    pub(crate) fn fill_and_finish(
        &mut self,
        ch: &mut dyn Channel,
        n: usize,
    ) -> Result<(), OtError> {
        while n > self.s.pending_len().saturating_add(self.s.batch_len()) {
            let batch = self.extend(ch)?.into_vec();
            self.s.append(batch);
        }
        let wanted = n.saturating_sub(self.s.pending_len());
        if wanted > 0 {
            let batch = self.finish(ch, wanted)?.into_vec();
            self.s.append(batch);
        }
        Ok(())
    }

    /// The next `n` unused COTs `z_j` and the index of the first in the
    /// session (running batches as needed; the unused rest of the last
    /// batch stays for the next call), for the conversions below.
    fn take_cots(
        &mut self,
        ch: &mut dyn Channel,
        n: usize,
    ) -> Result<(Vec<Block>, usize), OtError> {
        let n = crate::traits::len_param(n)?;
        self.s.check()?;
        while self.s.pending_len() < n {
            let wanted = n - self.s.pending_len();
            let batch = self.extend_for(ch, wanted)?.into_vec();
            self.s.append(batch);
        }
        Ok(self.s.take(n))
    }
}

impl FerretSender {
    /// Runs one conversion protocol (one of `cot_random_ot`,
    /// `cot_chosen_ot`, `cot_chosen_bits`) on the next `n` COTs, as the
    /// sender: `run` gets the channel, the COTs, the index of the first,
    /// Delta and a fresh generator.
    fn convert<T>(
        &mut self,
        ch: &mut dyn Channel,
        n: usize,
        run: impl FnOnce(&mut dyn Channel, Vec<Block>, usize, Block, Rng) -> Result<T, OtError>,
    ) -> Result<T, OtError> {
        let (zeros, first) = self.take_cots(ch, n)?;
        self.s.begin()?;
        let rng = self.s.rng.fork();
        let out = run(ch, zeros, first, self.delta, rng)?;
        self.s.end();
        Ok(out)
    }
}

/// Random OTs from the party's COTs (`protocols/cot_random_ot.otp`: the
/// receiver's flips, then the TCCR hash; one bit per OT on the wire). The
/// receiver must be a [`FerretReceiver`] making the same calls.
impl RandomOtSender for FerretSender {
    fn send_random(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError> {
        use crate::cot_random_ot as m;
        self.convert(ch, n, |ch, zeros, first, delta, rng| {
            let input = m::SenderInput { delta, zeros };
            let params = m::Params::new(n, first)?;
            Ok(m::Sender::new(params, input, rng)?.run(ch)?.messages)
        })
    }
}

/// Chosen-message OTs (`protocols/cot_chosen_ot.otp`: the random OTs as
/// pads; 1 bit and 32 bytes per OT).
impl OtSender for FerretSender {
    fn send(&mut self, ch: &mut dyn Channel, messages: &[[Block; 2]]) -> Result<(), OtError> {
        use crate::cot_chosen_ot as m;
        let n = messages.len();
        self.convert(ch, n, |ch, zeros, first, delta, rng| {
            let input = m::SenderInput {
                delta,
                zeros,
                messages: messages.to_vec(),
            };
            m::Sender::new(m::Params::new(n, first)?, input, rng)?.run(ch)?;
            Ok(())
        })
    }
}

/// Correlated OTs with the receiver's chosen bits under
/// [`FerretSender::delta`] (`protocols/cot_chosen_bits.otp`: 1 bit per OT).
impl CorrelatedOtSender for FerretSender {
    fn delta(&self) -> Block {
        self.delta
    }

    fn send_correlated(&mut self, ch: &mut dyn Channel, n: usize) -> Result<Vec<Block>, OtError> {
        use crate::cot_chosen_bits as m;
        self.convert(ch, n, |ch, zeros, _, delta, rng| {
            let input = m::SenderInput { delta, zeros };
            Ok(m::Sender::new(m::Params::new(n)?, input, rng)?
                .run(ch)?
                .shifted)
        })
    }
}

impl Default for FerretSender {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for FerretSender {
    fn drop(&mut self) {
        self.delta.0.zeroize();
    }
}

/// The receiver of a Ferret pair (the peer of [`FerretSender`], with the
/// same parameter sets). Its COTs' low bits are their choice bits.
pub struct FerretReceiver {
    s: Session,
}

impl FerretReceiver {
    /// A receiver at Ferret's published sets with the operating system's
    /// randomness.
    pub fn new() -> Self {
        Self::with_rng(Rng::from_entropy())
    }

    /// As [`FerretReceiver::new`], drawing the set-up's choice bits and
    /// every batch's randomness from `rng`.
    pub fn with_rng(rng: Rng) -> Self {
        FerretReceiver {
            s: Session::new(rng),
        }
    }

    /// A receiver of the malicious variant (the peer of
    /// [`FerretSender::malicious`]).
    pub fn malicious() -> Self {
        Self::new().with_check()
    }

    /// Runs the malicious variant, as [`FerretSender::with_check`].
    pub fn with_check(mut self) -> Self {
        self.s.malicious = true;
        self
    }

    /// Other parameter sets, as [`FerretSender::with_levels`].
    pub fn with_levels(mut self, setup: Level, extend: Level) -> Result<Self, OtError> {
        self.s.with_levels(setup, extend)?;
        Ok(self)
    }

    /// COTs one call returns (as [`FerretSender::batch_len`]).
    pub fn batch_len(&self) -> usize {
        self.s.batch_len()
    }

    /// Runs the next batch and returns its choice bits `x` and COTs `y_i
    /// = z_i ⊕ x_i·Δ` (`y_i`'s low bit is `x_i`).
    pub fn extend(&mut self, ch: &mut dyn Channel) -> Result<(Bits, FerretCots), OtError> {
        self.extend_for(ch, usize::MAX)
    }

    /// As [`FerretReceiver::extend`] with a batch of as many trees as
    /// `wanted` COTs need (see [`FerretSender::extend_for`]; the sender
    /// must pass the same `wanted`).
    pub fn extend_for(
        &mut self,
        ch: &mut dyn Channel,
        wanted: usize,
    ) -> Result<(Bits, FerretCots), OtError> {
        self.batch(ch, wanted, false)
    }

    /// The session's last batch (see [`FerretSender::finish`]; the sender
    /// must pass the same `wanted`).
    pub fn finish(
        &mut self,
        ch: &mut dyn Channel,
        wanted: usize,
    ) -> Result<(Bits, FerretCots), OtError> {
        self.batch(ch, wanted, true)
    }

    /// One call (as [`FerretSender`]'s).
    fn batch(
        &mut self,
        ch: &mut dyn Channel,
        wanted: usize,
        last: bool,
    ) -> Result<(Bits, FerretCots), OtError> {
        self.s.begin_batch()?;
        let setup = self.s.setup_level();
        let main = self.s.next_level(wanted, last);
        let malicious = self.s.malicious;
        if self.s.batch == 0 {
            let mut base = if malicious {
                DeltaOtReceiver::softspoken_malicious(SETUP_SOFTSPOKEN_K)
            } else {
                DeltaOtReceiver::softspoken(SETUP_SOFTSPOKEN_K)
            }
            .with_rng(self.s.rng.fork());
            let choices = Bits::random(&mut self.s.rng, reserved(setup, malicious));
            let chosen = base.receive_correlated(ch, &choices)?;
            let (_, out) = self.run(ch, setup, chosen, &choices)?;
            self.s.keep_setup(out);
        }
        let reserve = std::mem::take(&mut self.s.reserve);
        // The batch reads choice bits from the low bits (it sets them).
        let choices = ferret::low_bits(&reserve);
        let (mut x, out) = self.run(ch, main, reserve, &choices)?;
        let blocks = self.s.keep_main(out, last);
        x.resize(blocks.len());
        self.s.end();
        Ok((x, FerretCots { blocks }))
    }

    /// One batch at set `l` from the base COTs `base` with choice bits
    /// `choices`: its choice bits and COTs.
    fn run(
        &mut self,
        ch: &mut dyn Channel,
        l: Level,
        base: Vec<Block>,
        choices: &Bits,
    ) -> Result<(Bits, Vec<Block>), OtError> {
        let n = l.outputs().unwrap_or(0);
        let (lpn_chosen, tree_chosen, check_chosen) = split(base, l, self.s.extra());
        let th = l.trees * l.depth;
        let (lpn_choices, tree_choices) = (bit_range(choices, 0, l.k), bit_range(choices, l.k, th));
        let (rng, batch) = (self.s.rng.fork(), self.s.batch);
        let out = if self.s.malicious {
            use crate::ferret_extend_malicious as m;
            let params = m::Params::new(l.trees, l.depth, l.k, n, batch)?;
            let input = m::ReceiverInput {
                lpn_choices,
                lpn_chosen,
                tree_choices,
                tree_chosen,
                check_choices: bit_range(choices, l.k + th, CHECK),
                check_chosen,
            };
            let o = m::Receiver::new(params, input, rng)?.run(ch)?;
            (o.choices, o.chosen)
        } else {
            use crate::ferret_extend as m;
            let params = m::Params::new(l.trees, l.depth, l.k, n, batch)?;
            let input = m::ReceiverInput {
                lpn_choices,
                lpn_chosen,
                tree_choices,
                tree_chosen,
            };
            let o = m::Receiver::new(params, input, rng)?.run(ch)?;
            (o.choices, o.chosen)
        };
        self.s.batch += 1;
        Ok(out)
    }

    /// As [`FerretSender`]'s (the sender must ask for the same `n`).
    pub(crate) fn fill_and_finish(
        &mut self,
        ch: &mut dyn Channel,
        n: usize,
    ) -> Result<(), OtError> {
        while n > self.s.pending_len().saturating_add(self.s.batch_len()) {
            let batch = self.extend(ch)?.1.into_vec();
            self.s.append(batch);
        }
        let wanted = n.saturating_sub(self.s.pending_len());
        if wanted > 0 {
            let batch = self.finish(ch, wanted)?.1.into_vec();
            self.s.append(batch);
        }
        Ok(())
    }

    /// The next `n` unused COTs `y_j` with their choice bits and the index
    /// of the first in the session (as [`FerretSender`]'s).
    fn take_cots(
        &mut self,
        ch: &mut dyn Channel,
        n: usize,
    ) -> Result<(Bits, Vec<Block>, usize), OtError> {
        let n = crate::traits::len_param(n)?;
        self.s.check()?;
        while self.s.pending_len() < n {
            let wanted = n - self.s.pending_len();
            let batch = self.extend_for(ch, wanted)?.1.into_vec();
            self.s.append(batch);
        }
        let (chosen, first) = self.s.take(n);
        Ok((ferret::low_bits(&chosen), chosen, first))
    }

    /// Runs one conversion protocol (as [`FerretSender`]'s) on the next
    /// COTs, as the receiver with the wanted bits `choices`: `run` gets the
    /// channel, the COTs' choice bits, the COTs, the index of the first and
    /// a fresh generator.
    fn convert<T>(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
        run: impl FnOnce(&mut dyn Channel, Bits, Vec<Block>, usize, Rng) -> Result<T, OtError>,
    ) -> Result<T, OtError> {
        let (cot_choices, cot_chosen, first) = self.take_cots(ch, choices.len())?;
        self.s.begin()?;
        let rng = self.s.rng.fork();
        let out = run(ch, cot_choices, cot_chosen, first, rng)?;
        self.s.end();
        Ok(out)
    }
}

/// Random OTs with the caller's choice bits (the peer of
/// [`FerretSender`]'s `RandomOtSender`).
impl RandomOtReceiver for FerretReceiver {
    fn receive_random(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError> {
        use crate::cot_random_ot as m;
        self.convert(ch, choices, |ch, cot_choices, cot_chosen, first, rng| {
            let input = m::ReceiverInput {
                choices: choices.clone(),
                cot_choices,
                cot_chosen,
            };
            let params = m::Params::new(choices.len(), first)?;
            Ok(m::Receiver::new(params, input, rng)?.run(ch)?.chosen)
        })
    }
}

/// Chosen-message OTs (the peer of [`FerretSender`]'s `OtSender`).
impl OtReceiver for FerretReceiver {
    fn receive(&mut self, ch: &mut dyn Channel, choices: &Bits) -> Result<Vec<Block>, OtError> {
        use crate::cot_chosen_ot as m;
        self.convert(ch, choices, |ch, cot_choices, cot_chosen, first, rng| {
            let input = m::ReceiverInput {
                choices: choices.clone(),
                cot_choices,
                cot_chosen,
            };
            let params = m::Params::new(choices.len(), first)?;
            Ok(m::Receiver::new(params, input, rng)?.run(ch)?.chosen)
        })
    }
}

/// Correlated OTs with chosen bits (the peer of [`FerretSender`]'s
/// `CorrelatedOtSender`).
impl CorrelatedOtReceiver for FerretReceiver {
    fn receive_correlated(
        &mut self,
        ch: &mut dyn Channel,
        choices: &Bits,
    ) -> Result<Vec<Block>, OtError> {
        use crate::cot_chosen_bits as m;
        self.convert(ch, choices, |ch, cot_choices, cot_chosen, _, rng| {
            let input = m::ReceiverInput {
                choices: choices.clone(),
                cot_choices,
                cot_chosen,
            };
            Ok(
                m::Receiver::new(m::Params::new(choices.len())?, input, rng)?
                    .run(ch)?
                    .chosen,
            )
        })
    }
}

impl Default for FerretReceiver {
    fn default() -> Self {
        Self::new()
    }
}

impl OtExtension {
    /// Semi-honest Ferret silent OT (`protocols/ferret_extend.otp` and the
    /// conversions `cot_random_ot.otp`, `cot_chosen_ot.otp`): every call of
    /// the random or chosen OT traits runs a one-shot Ferret session, its
    /// set-up (SoftSpokenOT `k = 8`), the batches the call needs and
    /// [`FerretSender::finish`], then the conversion, at the sets
    /// [`ferret::levels_for`] picks for the call's size (about 0.05 bytes
    /// per OT at `2^24`, plus the conversion's one bit; chosen messages
    /// add 32 bytes). A call of a few thousand OTs costs about the set-up,
    /// 9 ms over loopback on a 2-core machine: keep a [`FerretSender`] / [`FerretReceiver`]
    /// pair for many small calls, and for Delta-OT (they implement `CorrelatedOtSender` /
    /// `CorrelatedOtReceiver`; this configuration's
    /// [`OtExtension::delta_sender`] is IKNP's). Blocking channels only:
    /// the async twins fail with an [`OtError`]. The base-OT, SHA-1 and
    /// thread settings do not apply (the set-up brings its own base OTs,
    /// the conversions hash with the TCCR, one thread).
    pub fn silent() -> Self {
        let mut e = Self::iknp();
        e.silent = true;
        e
    }

    /// [`OtExtension::silent`] with Ferret's consistency check
    /// (`ferret_extend_malicious.otp`, malicious SoftSpokenOT set-up): a
    /// malicious peer is caught with abort, as in [`FerretSender::malicious`];
    /// [`OtExtension::delta_sender`] is KOS's.
    pub fn silent_malicious() -> Self {
        let mut e = Self::kos();
        e.silent = true;
        e
    }

    /// A fresh Ferret sender that has run the batches `n` COTs need.
    pub(crate) fn silent_sender(
        &mut self,
        ch: &mut dyn Channel,
        n: usize,
    ) -> Result<FerretSender, OtError> {
        let (setup, main) = ferret::levels_for(n);
        let mut s = FerretSender::with_rng(self.fork()).with_levels(setup, main)?;
        if self.malicious {
            s = s.with_check();
        }
        s.fill_and_finish(ch, n)?;
        Ok(s)
    }

    /// A fresh Ferret receiver that has run the batches `n` COTs need.
    pub(crate) fn silent_receiver(
        &mut self,
        ch: &mut dyn Channel,
        n: usize,
    ) -> Result<FerretReceiver, OtError> {
        let (setup, main) = ferret::levels_for(n);
        let mut r = FerretReceiver::with_rng(self.fork()).with_levels(setup, main)?;
        if self.malicious {
            r = r.with_check();
        }
        r.fill_and_finish(ch, n)?;
        Ok(r)
    }
}
