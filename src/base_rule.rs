//! Which base OTs a malicious extension accepts.
//!
//! The proofs of the malicious extensions (KOS and Delta-KOS [KOS15,
//! eprint 2015/546, revised], malicious SoftSpokenOT and its Delta-OT
//! [Roy22, eprint 2022/192], OOS [OOS17, eprint 2016/933]) run in the
//! OT-hybrid model: the simulator extracts the corrupt party's base-OT
//! choices from the ideal OT. CO15 is not UC-secure (a malicious
//! receiver's choice cannot be extracted: Genç–Iovino–Rial 2017,
//! Hauck–Loss 2017) and NP00 has no UC proof against a malicious
//! receiver, so neither is a base for them (SECURITY.md); MR19 (endemic
//! OT [MR19, Fig. 8]) is. `with_base` of a malicious configuration refuses
//! CO15 and NP00 with [`UnfitBaseOt`]; a caller that wants the faster base
//! anyway (a benchmark, a test) says so with
//! `with_semi_honest_base_insecure`, and then gets no more than the
//! semi-honest base's security for the base OTs.

use crate::traits::{BaseOtKind, OtError};

/// A semi-honest base OT asked of a malicious extension (returned by
/// `with_base`; inside [`OtError`] find it with
/// `err.0.downcast_ref::<UnfitBaseOt>()`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnfitBaseOt {
    /// The refused base OT.
    pub base: BaseOtKind,
    /// The extension that refused it (e.g. "KOS").
    pub extension: &'static str,
}

impl std::fmt::Display for UnfitBaseOt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} is a semi-honest base OT (its receiver cannot be extracted), not a base for \
             malicious {}: use BaseOtKind::Mr19, or opt out of malicious security for the base \
             OTs with with_semi_honest_base_insecure",
            self.base, self.extension
        )
    }
}

impl std::error::Error for UnfitBaseOt {}

impl From<UnfitBaseOt> for OtError {
    fn from(e: UnfitBaseOt) -> Self {
        OtError(Box::new(e))
    }
}

impl BaseOtKind {
    /// Whether the proofs of malicious OT extension hold over this base OT
    /// (its receiver's choices can be extracted): MR19 only.
    pub fn fit_for_malicious(self) -> bool {
        matches!(self, BaseOtKind::Mr19)
    }
}

/// `base` if an extension (`malicious` or not, named `extension`) may run
/// over it, else [`UnfitBaseOt`].
pub(crate) fn checked_base(
    malicious: bool,
    extension: &'static str,
    base: BaseOtKind,
) -> Result<BaseOtKind, UnfitBaseOt> {
    if malicious && !base.fit_for_malicious() {
        return Err(UnfitBaseOt { base, extension });
    }
    Ok(base)
}
