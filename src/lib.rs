//! Oblivious transfer and secure computation protocols written as `.otp`
//! round specifications and compiled by [`protocol!`] into typed
//! sender/receiver code over the hand-optimized [`runtime`].
//!
//! Each module below is generated from the `.otp` file it names; nothing in
//! this crate hand-writes a protocol flow. The [`traits`] give every OT
//! protocol one interface.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

extern crate self as ot;

pub use ot_macros::protocol;
pub use ot_runtime as runtime;

mod base_rule;
pub mod delta;
pub mod ext_session;
pub mod ferret_session;
pub mod files;
pub mod oblivious_aes;
pub mod oprf_session;
mod orlandi_level;
mod softspoken_parties;
pub mod traits;

/// Chou–Orlandi "simplest OT" base OT, generated from `protocols/co15.otp`.
pub mod co15 {
    crate::protocol!("protocols/co15.otp");
}

/// Chosen-message OT over CO15 (derandomized), from `protocols/co15_chosen.otp`.
pub mod co15_chosen {
    crate::protocol!("protocols/co15_chosen.otp");
}

/// Masny–Rindal endemic OT (malicious-safe base OT), generated from `protocols/mr19.otp`.
pub mod mr19 {
    crate::protocol!("protocols/mr19.otp");
}

/// Chosen-message OT over MR19 (derandomized), from `protocols/mr19_chosen.otp`.
pub mod mr19_chosen {
    crate::protocol!("protocols/mr19_chosen.otp");
}

/// Naor–Pinkas base OT, generated from `protocols/np00.otp`.
pub mod np00 {
    crate::protocol!("protocols/np00.otp");
}

/// Chosen-message OT over NP00 (derandomized), from `protocols/np00_chosen.otp`.
pub mod np00_chosen {
    crate::protocol!("protocols/np00_chosen.otp");
}

/// IKNP semi-honest OT extension, generated from `protocols/iknp.otp`.
pub mod iknp {
    crate::protocol!("protocols/iknp.otp");
}

/// Chosen-message OT over IKNP (derandomized), from `protocols/iknp_chosen.otp`.
pub mod iknp_chosen {
    crate::protocol!("protocols/iknp_chosen.otp");
}

/// KOS malicious OT extension (extends IKNP), from `protocols/kos.otp`.
pub mod kos {
    crate::protocol!("protocols/kos.otp");
}

/// Chosen-message OT over KOS (derandomized), from `protocols/kos_chosen.otp`.
pub mod kos_chosen {
    crate::protocol!("protocols/kos_chosen.otp");
}

/// Setup of an OT-extension session that extends many times (the base
/// OTs, once), from `protocols/iknp_setup.otp`; see [`ext_session`].
pub mod iknp_setup {
    crate::protocol!("protocols/iknp_setup.otp");
}
/// One IKNP extension from a session's setup (no base OTs), from
/// `protocols/iknp_extend.otp`; see [`ext_session`].
pub mod iknp_extend {
    crate::protocol!("protocols/iknp_extend.otp");
}
/// One KOS extension from a session's setup (extends `IknpExtend` with the
/// corrected KOS check), from `protocols/kos_extend.otp`; see [`ext_session`].
pub mod kos_extend {
    crate::protocol!("protocols/kos_extend.otp");
}
/// Delta-OT (correlated OT) from IKNP, from `protocols/delta_iknp.otp`.
pub mod delta_iknp {
    crate::protocol!("protocols/delta_iknp.otp");
}

/// Base phase of a Delta-OT pair (the base OTs, run once per Delta), from `protocols/delta_base.otp`.
pub mod delta_base {
    crate::protocol!("protocols/delta_base.otp");
}

/// Malicious Delta-OT (extends Delta-IKNP with the corrected KOS check), from `protocols/delta_kos.otp`.
pub mod delta_kos {
    crate::protocol!("protocols/delta_kos.otp");
}

/// The OPRF / 1-out-of-N OT evaluation of a KKRT or OOS sender's output
/// (kernel calls only: `ot::runtime::oprf::oprf_eval`).
macro_rules! oprf_sender_output {
    () => {
        impl SenderOutput {
            /// Number of instances `m`.
            pub fn len(&self) -> usize {
                self.q.len()
            }

            /// Whether there are no instances (never, for a completed run).
            pub fn is_empty(&self) -> bool {
                self.q.is_empty()
            }

            /// The sender's value of instance `i` on input `x`:
            /// `H(i, q_i ⊕ (C(x) ∧ s))` [KKRT16, Fig. 2; OOS17]; equals
            /// the receiver's `values[i]` when `x` is its input `i`. `None`
            /// if `i >= m`.
            pub fn encode(
                &self,
                i: usize,
                x: ::ot::runtime::Block,
            ) -> Option<::ot::runtime::Block> {
                let q = self.q.get(i)?;
                Some(::ot::runtime::oprf::oprf_eval(
                    &self.ot_code,
                    &self.key,
                    q,
                    self.sid,
                    self.sha1_hash,
                    i,
                    x,
                ))
            }

            /// [`encode`](Self::encode) of instance `first + k` on
            /// `inputs[k]`, batched and split over `threads` cores, for the
            /// `k` with `first + k < m`.
            pub fn encode_many(
                &self,
                first: usize,
                inputs: &[::ot::runtime::Block],
                threads: usize,
            ) -> Vec<::ot::runtime::Block> {
                let n = inputs.len().min(self.q.len().saturating_sub(first));
                let mut out = vec![::ot::runtime::Block::ZERO; n];
                self.encode_many_into(first, inputs, &mut out, threads);
                out
            }

            /// [`encode_many`](Self::encode_many) into `out` (a buffer reused
            /// across calls), for the `k < out.len()` with `first + k < m`;
            /// returns how many values it wrote.
            pub fn encode_many_into(
                &self,
                first: usize,
                inputs: &[::ot::runtime::Block],
                out: &mut [::ot::runtime::Block],
                threads: usize,
            ) -> usize {
                ::ot::runtime::oprf::oprf_eval_many_into(
                    &self.ot_code,
                    &self.key,
                    &self.q,
                    self.sid,
                    self.sha1_hash,
                    first,
                    inputs,
                    threads,
                    out,
                )
            }
        }
    };
}

/// KKRT batched OPRF / 1-out-of-N OT [KKRT16, Fig. 2] (semi-honest), from
/// `protocols/kkrt.otp`. The sender's output is its OPRF key: evaluate it
/// with [`kkrt::SenderOutput::encode`]; the receiver's output `values[j]`
/// is the OPRF of its input `j`.
pub mod kkrt {
    crate::protocol!("protocols/kkrt.otp");
    oprf_sender_output!();
}

/// OOS malicious 1-out-of-N OT [OOS17, eprint 2016/933] over a linear code (BCH(511,
/// 76) or any [`runtime::oprf::code::LinearCode`]) with SoftSpokenOT's row-wise
/// consistency check, from `protocols/oos.otp`. The sender evaluates any
/// choice with [`oos::SenderOutput::encode`]; the receiver's `values[j]`
/// is the value of its choice `j`.
pub mod oos {
    crate::protocol!("protocols/oos.otp");
    oprf_sender_output!();
}

/// Setup of a KKRT or OOS session (the 512 base OTs, once), from
/// `protocols/kkrt_setup.otp`; see [`oprf_session`].
pub mod kkrt_setup {
    crate::protocol!("protocols/kkrt_setup.otp");
}

/// One extension of a KKRT session (no base OTs), from
/// `protocols/kkrt_extend.otp`; see [`oprf_session`].
pub mod kkrt_extend {
    crate::protocol!("protocols/kkrt_extend.otp");
}

/// One extension of an OOS session (no base OTs, with the consistency
/// check), from `protocols/oos_extend.otp`; see [`oprf_session`].
pub mod oos_extend {
    crate::protocol!("protocols/oos_extend.otp");
}

/// RR16 malicious approximate K-out-of-N OT [RR16, EUROCRYPT 2017, §4:
/// cut-and-choose over random OTs], from `protocols/rr16.otp`. Sizes for
/// [`rr16::Params::new`] come from [`runtime::rr16::sizes`].
pub mod rr16 {
    crate::protocol!("protocols/rr16.otp");
}

/// All-but-one OT (GGM punctured PRF, SoftSpokenOT eprint 2022/192 Fig. 13), from `protocols/abo_ot.otp`.
pub mod abo_ot {
    crate::protocol!("protocols/abo_ot.otp");
}

/// All-but-one OT with the sender's proof (eprint 2022/192 Fig. 14), from `protocols/abo_ot_malicious.otp`.
pub mod abo_ot_malicious {
    crate::protocol!("protocols/abo_ot_malicious.otp");
}

/// SoftSpokenOT semi-honest OT extension (`param k`), from `protocols/softspoken.otp`.
pub mod softspoken {
    crate::protocol!("protocols/softspoken.otp");
}

/// Malicious SoftSpokenOT (Roy's consistency check), from `protocols/softspoken_malicious.otp`.
pub mod softspoken_malicious {
    crate::protocol!("protocols/softspoken_malicious.otp");
}

/// Chosen-message OT over SoftSpokenOT, from `protocols/softspoken_chosen.otp`.
pub mod softspoken_chosen {
    crate::protocol!("protocols/softspoken_chosen.otp");
}

/// Chosen-message OT over malicious SoftSpokenOT, from `protocols/softspoken_malicious_chosen.otp`.
pub mod softspoken_malicious_chosen {
    crate::protocol!("protocols/softspoken_malicious_chosen.otp");
}

/// Base phase of a SoftSpokenOT Delta-OT pair (the all-but-one OTs, once per Delta), from `protocols/delta_softspoken_base.otp`.
pub mod delta_softspoken_base {
    crate::protocol!("protocols/delta_softspoken_base.otp");
}

/// Delta-OT (correlated OT) from SoftSpokenOT, one batch, from `protocols/delta_softspoken.otp`.
pub mod delta_softspoken {
    crate::protocol!("protocols/delta_softspoken.otp");
}

/// Malicious Delta-OT from SoftSpokenOT, from `protocols/delta_softspoken_malicious.otp`.
pub mod delta_softspoken_malicious {
    crate::protocol!("protocols/delta_softspoken_malicious.otp");
}

/// n-party coin flipping with Pedersen commitments and checked broadcasts,
/// generated from `protocols/coin_flip_n.otp` (`role P[n]`).
pub mod coin_flip_n {
    crate::protocol!("protocols/coin_flip_n.otp");
}

/// n-party sum of private `u64` inputs by additive secret sharing (private
/// rounds, then a checked broadcast), generated from `protocols/sum_n.otp`.
pub mod sum_n {
    crate::protocol!("protocols/sum_n.otp");
}

/// Opening to one party (`P[0] -> all`, `P[j] -> P[0]`, `P[0] -> P[j]`,
/// `at P[0]`): `P[0]` broadcasts its masked secret, learns the sum of every
/// input and deals everyone a share of it; generated from
/// `protocols/open_to_one.otp`.
pub mod open_to_one {
    crate::protocol!("protocols/open_to_one.otp");
}

/// Multiplication of additively shared `u64` values with a Beaver triple
/// dealt by a trusted dealer (`role Dealer, role P[n]`: `Dealer -> P[i]`,
/// then one checked all-party opening), generated from
/// `protocols/beaver_dealer.otp`.
pub mod beaver_dealer {
    crate::protocol!("protocols/beaver_dealer.otp");
}

/// Orlandi protocol, online phase: opening shared values with every
/// party's opening checked against its Pedersen commitments, generated
/// from `protocols/orlandi.otp` (shares: [`runtime::orlandi::Shares`]).
pub mod orlandi_open {
    crate::protocol!("protocols/orlandi.otp");
}

/// Orlandi protocol, online phase: every party secret-shares its inputs by
/// a random shared mask opened to it, from `protocols/orlandi_input.otp`.
pub mod orlandi_input {
    crate::protocol!("protocols/orlandi_input.otp");
}

/// Orlandi protocol, online phase: batched multiplication with one
/// preprocessed triple per product, from `protocols/orlandi_mul.otp`.
pub mod orlandi_mul {
    crate::protocol!("protocols/orlandi_mul.otp");
}

/// MiniMac, online phase: opening with the deferred, batched MAC check,
/// from `protocols/minimac.otp` (shares:
/// [`runtime::minimac::Shares`], preprocessing:
/// [`runtime::minimac::prep`]).
pub mod minimac_open {
    crate::protocol!("protocols/minimac.otp");
}

/// MiniMac, online phase: batched multiplication with one preprocessed
/// triple per product (result in the Schur-square code), from
/// `protocols/minimac_mul.otp`.
pub mod minimac_mul {
    crate::protocol!("protocols/minimac_mul.otp");
}

/// MiniMac, online phase: re-encoding products from the Schur-square code
/// `C*` back to `C` with dealt pairs `([[r]], [[r]]*)`, so they can be
/// multiplied again, from `protocols/minimac_reencode.otp`.
pub mod minimac_reencode {
    crate::protocol!("protocols/minimac_reencode.otp");
}

/// MiniMac, online phase: every party enters values by a dealt mask whose
/// slots it knows, from `protocols/minimac_input.otp`.
pub mod minimac_input {
    crate::protocol!("protocols/minimac_input.otp");
}

/// Oblivious AES-128 on MiniMac with S-box-dedicated dealer masks
/// (one-time tables; 14 rounds for any number of blocks), from
/// `protocols/minimac_aes.otp`
/// (kernels: [`runtime::minimac::aes`]).
pub mod minimac_aes {
    crate::protocol!("protocols/minimac_aes.otp");
}

/// Orlandi protocol, preprocessing: Damgård–Orlandi Random Triple, from
/// `protocols/orlandi_triple.otp` (kernels: [`runtime::orlandi::prep`],
/// [`runtime::orlandi::distill`]): Paillier Triple Generation, a
/// random-subset check, the Triple Test and distillation by leak-tolerant
/// multiplication. Input: the party's own Paillier key
/// ([`runtime::orlandi::prep::TripleKey`], 1024, 2048 (default) or 3072
/// bits), whose modulus every party proves well formed in the first round
/// (the Paillier–Blum modulus proof of Canetti, Gennaro, Goldfeder,
/// Makriyannis and Peled, eprint 2021/060, Figure 16, with 128 challenges:
/// [`runtime::orlandi::paillier::blum`]; a peer's key that fails it is the abort
/// `BadKeyProof`). `Params::new(n, m, s, d, sec)`:
/// - `n`: parties (at least 2);
/// - `m` (the papers' `M`): triples output, 1 to 100,000;
/// - `s` (VIFF's `λ`; the seed's `s`): subset-check overhead, 1 to 64:
///   `s·(2d + 1)·m` Triple Test pairs are opened and fully re-checked
///   next to the `(2d + 1)·m` kept, so a run makes `2(1 + s)(2d + 1)m` raw
///   triples;
/// - `d`: leak tolerance, 0 to 16: each output triple is distilled from a
///   random bucket of `2d + 1` tested triples and stays private if at most
///   `d` of them leaked (`d = 0` only re-randomizes);
/// - `sec`: statistical security level in bits, at least 40: `(s, d)` must
///   bound the chance that a cheater's spoiled pairs all escape the subset
///   check and more than `d` of them share a bucket by `2^-sec`
///   ([`runtime::orlandi::level`] states the bound; `Params::new` refuses
///   weaker parameters with `Error::Params` naming the `requires`).
///
/// [`params_at_level`](orlandi_triple::params_at_level)`(n, m, sec)`
/// derives the cheapest `(s, d)`: at 40 bits `(4, 14)` for `m = 1`,
/// `(1, 10)` for `m = 10`, `(1, 6)` for `m = 100`, `(1, 4)` for
/// `m = 1000`, `(1, 3)` for `m = 10000`, i.e. `(s + 1)(2d + 1)` = 145, 42,
/// 26, 18 and 14 Triple Test pairs per output triple: larger batches are
/// cheaper per triple.
///
/// Aborts end the session. A rushing cheater sees the honest coin openings
/// before it sends its own, so it knows the challenge first; when its
/// spoiled pair would be opened, it spoils its own opening and every honest
/// party aborts with `BadCoinOpening`. Any abort of the preprocessing must
/// therefore end the session with all of its parties: never retry with the
/// same parties, since retrying until the coin leaves the spoiled pairs
/// unopened lets the cheater win with certainty.
pub mod orlandi_triple {
    crate::protocol!("protocols/orlandi_triple.otp");
    pub use crate::orlandi_level::{params_at_level, AtLevelError};
}

pub use base_rule::UnfitBaseOt;
pub use delta::{DeltaOtPoisoned, DeltaOtReceiver, DeltaOtSender};
pub use ext_session::{ExtReceiver, ExtSender, ExtSessionPoisoned};
pub use ferret_session::{FerretCots, FerretError, FerretReceiver, FerretSender};
pub use oprf_session::{Oprf, OprfBatch, OprfReceiver, OprfSender};
pub use softspoken_parties::AboOt;
pub use traits::{
    AboOtReceiver, AboOtSender, BaseOt, BaseOtKind, CorrelatedOtReceiver, CorrelatedOtSender,
    OtError, OtExtension, OtReceiver, OtSender, RandomOtReceiver, RandomOtSender,
};

/// Silent random correlated OT (semi-honest) [BCGIKRS19, eprint
/// 2019/1159, §4]: GGM-tree multi-point COT with regular noise [Ferret,
/// eprint 2020/924, Fig. 6] over random OTs, compressed with an
/// Expand-Accumulate code [eprint 2022/1014]; one message. From
/// `protocols/silent_ot.otp`; kernels in `ot::runtime::silent`.
pub mod silent_ot {
    crate::protocol!("protocols/silent_ot.otp");
}

/// One batch of Ferret's silent random COT [Ferret, eprint 2020/924, Fig. 6
/// and Fig. 8]: GGM-tree multi-point COT with regular noise and the
/// primal-LPN step with a local linear code, from `k + trees · depth` base
/// COTs under the sender's Delta; one message. From
/// `protocols/ferret_extend.otp`; kernels in `ot::runtime::silent::ferret`.
/// [`FerretSender`] and [`FerretReceiver`] run batch after batch, each
/// from the previous one's reserved outputs.
pub mod ferret_extend {
    crate::protocol!("protocols/ferret_extend.otp");
}

/// [`ferret_extend`] with the consistency check of Ferret's malicious
/// multi-point COT [eprint 2020/924, Fig. 6 and Fig. 7]: 128 more base
/// COTs per batch and two more messages. From
/// `protocols/ferret_extend_malicious.otp`; run by
/// [`FerretSender::malicious`] / [`FerretReceiver::malicious`].
pub mod ferret_extend_malicious {
    crate::protocol!("protocols/ferret_extend_malicious.otp");
}

/// Random 1-out-of-2 OT from random COT: derandomized choice bits and the
/// TCCR hash, one bit per OT [Beaver 1995; GKWY20, §7]. From
/// `protocols/cot_random_ot.otp`; [`FerretSender`] and [`FerretReceiver`]
/// run it as their `RandomOtSender` / `RandomOtReceiver`.
pub mod cot_random_ot {
    crate::protocol!("protocols/cot_random_ot.otp");
}

/// Chosen-message 1-out-of-2 OT from random COT (the random OTs of
/// [`cot_random_ot`] as pads). From `protocols/cot_chosen_ot.otp`; the
/// Ferret parties' `OtSender` / `OtReceiver`.
pub mod cot_chosen_ot {
    crate::protocol!("protocols/cot_chosen_ot.otp");
}

/// Correlated OT with the receiver's chosen bits from random COT
/// (derandomized choice bits, no hash). From `protocols/cot_chosen_bits.otp`;
/// the Ferret parties' `CorrelatedOtSender` / `CorrelatedOtReceiver`.
pub mod cot_chosen_bits {
    crate::protocol!("protocols/cot_chosen_bits.otp");
}

/// QuietOT with the BIPSW weak PRF [eprint 2024/1079, §5.1]: a setup over
/// random 1-out-of-2 OTs, then random 1-out-of-6 OTs of bits with no
/// messages, from `protocols/quiet_bipsw.otp`.
pub mod quiet_bipsw {
    crate::protocol!("protocols/quiet_bipsw.otp");
}

/// QuietOT with the GAR (XOR-MAJ) weak PRF [eprint 2024/1079, §5.2]: a
/// setup over random 1-out-of-2 OTs, then random 1-out-of-32 OTs of bits
/// with no messages, from `protocols/quiet_gar.otp`.
pub mod quiet_gar {
    crate::protocol!("protocols/quiet_gar.otp");
}

/// Random 1-out-of-2 OTs of blocks from QuietOT-BIPSW: `quiet_bipsw`'s
/// setup and expansion, then one correction message (4 blocks per OT) and
/// Beaver's choice derandomization (1 bit per OT); the choice bit is the
/// BIPSW weak PRF's rounding of the 1-out-of-6 index. Realizes `RandomOt`
/// (`SenderRealization` / `ReceiverRealization`), from
/// `protocols/quiet_bipsw_rot.otp`.
pub mod quiet_bipsw_rot {
    crate::protocol!("protocols/quiet_bipsw_rot.otp");
}

/// Random 1-out-of-2 OTs of blocks from QuietOT-GAR (30 correction blocks
/// and 1 bit per OT; the choice bit is the XOR-MAJ output), realizing
/// `RandomOt`, from `protocols/quiet_gar_rot.otp`.
pub mod quiet_gar_rot {
    crate::protocol!("protocols/quiet_gar_rot.otp");
}
