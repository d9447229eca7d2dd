//! CPU-backend selection of the SIMD primitives, in one place: run-time
//! detection of the CPU's features (once per process, cached) and the
//! build-time cap `--cfg ot_backend="scalar|sse2|avx2|avx512"`.
//!
//! Every primitive with several backends ([`aes`](super::aes),
//! [`gf128`](super::gf128), [`gf256`](super::gf256),
//! [`transpose`](super::transpose), the QuietOT BIPSW evaluation
//! ([`crate::quiet::bipsw`]) and the word loops of [`xor`](super::xor))
//! describes its backends with [`Backend`] (the [`Level`] each needs and
//! the CPU features it runs on) and picks with [`select`]: the fastest
//! backend whose level the cap allows and whose features this CPU has.
//! Each primitive caches its choice.
//!
//! The cap is how CI tests every backend on one machine (`.ci/run` builds
//! the runtime's tests once per value, each in its own target directory):
//! a build with `--cfg ot_backend="sse2"` never runs code above SSE2 in a
//! primitive that follows the cap, and falls back to a slower backend the
//! CPU has if it lacks the capped one. Without the cfg there is no cap.

use std::sync::OnceLock;

/// A SIMD level, the unit of the `--cfg ot_backend` cap, lowest first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Level {
    /// Portable code (`ot_backend="scalar"`).
    Scalar,
    /// 128-bit registers: SSE2 and the 128-bit AES-NI and PCLMULQDQ
    /// (`ot_backend="sse2"`).
    Sse2,
    /// 256-bit registers (`ot_backend="avx2"`).
    Avx2,
    /// 512-bit registers: AVX-512 and its VAES, VPCLMULQDQ, GFNI and VBMI
    /// companions (`ot_backend="avx512"`, or no cfg at all).
    Avx512,
}

/// The highest level this build may use: the `--cfg ot_backend` value, or
/// [`Level::Avx512`] (no cap) without one.
pub const CAP: Level = if cfg!(ot_backend = "scalar") {
    Level::Scalar
} else if cfg!(ot_backend = "sse2") {
    Level::Sse2
} else if cfg!(ot_backend = "avx2") {
    Level::Avx2
} else {
    Level::Avx512
};

/// Whether the `--cfg ot_backend` cap allows code of `level`.
pub const fn allows(level: Level) -> bool {
    level as u8 <= CAP as u8
}

/// An x86-64 CPU feature a backend needs, detected at run time.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Feature {
    /// SSE2 (part of the x86-64 baseline).
    Sse2,
    /// AVX2.
    Avx2,
    /// AVX-512 Foundation.
    Avx512f,
    /// AVX-512 byte and word instructions.
    Avx512bw,
    /// AVX-512 vector-length extensions (128/256-bit forms).
    Avx512vl,
    /// AVX-512 vector byte manipulation (`vpermb`, `vpermt2b`).
    Avx512vbmi,
    /// AES-NI.
    Aes,
    /// Vector AES (VAES).
    Vaes,
    /// Carry-less multiplication (PCLMULQDQ).
    Pclmulqdq,
    /// Vector carry-less multiplication (VPCLMULQDQ).
    Vpclmulqdq,
    /// Galois-field instructions (GFNI).
    Gfni,
    /// AVX-512 52-bit integer fused multiply-add (IFMA).
    Avx512ifma,
}

impl Feature {
    /// Every feature, in the order of their bits in [`detected`]'s mask.
    const ALL: [Feature; 12] = [
        Feature::Sse2,
        Feature::Avx2,
        Feature::Avx512f,
        Feature::Avx512bw,
        Feature::Avx512vl,
        Feature::Avx512vbmi,
        Feature::Aes,
        Feature::Vaes,
        Feature::Pclmulqdq,
        Feature::Vpclmulqdq,
        Feature::Gfni,
        Feature::Avx512ifma,
    ];

    fn bit(self) -> u32 {
        1 << (self as u32)
    }

    #[cfg(target_arch = "x86_64")]
    fn detect(self) -> bool {
        use std::arch::is_x86_feature_detected as has;
        match self {
            Feature::Sse2 => has!("sse2"),
            Feature::Avx2 => has!("avx2"),
            Feature::Avx512f => has!("avx512f"),
            Feature::Avx512bw => has!("avx512bw"),
            Feature::Avx512vl => has!("avx512vl"),
            Feature::Avx512vbmi => has!("avx512vbmi"),
            Feature::Aes => has!("aes"),
            Feature::Vaes => has!("vaes"),
            Feature::Pclmulqdq => has!("pclmulqdq"),
            Feature::Vpclmulqdq => has!("vpclmulqdq"),
            Feature::Gfni => has!("gfni"),
            Feature::Avx512ifma => has!("avx512ifma"),
        }
    }

    #[cfg(not(target_arch = "x86_64"))]
    fn detect(self) -> bool {
        false
    }
}

/// The features of this CPU as a bit mask (bit `f as u32` for feature
/// `f`), detected on first use and cached for the process.
fn detected() -> u32 {
    static MASK: OnceLock<u32> = OnceLock::new();
    *MASK.get_or_init(|| {
        Feature::ALL
            .iter()
            .filter(|f| f.detect())
            .fold(0, |m, f| m | f.bit())
    })
}

/// Whether this CPU has every feature of `features` (none on other
/// architectures than x86-64). Not capped: see [`allows`].
pub fn has(features: &[Feature]) -> bool {
    let mask = detected();
    features.iter().all(|f| mask & f.bit() != 0)
}

/// A primitive's set of backends, for [`select`].
pub trait Backend: Copy + 'static {
    /// The backends [`select`] may pick, fastest first; the last one must
    /// be portable ([`Level::Scalar`], no features), so a choice always
    /// exists.
    const FASTEST_FIRST: &'static [Self];

    /// The SIMD level of the backend, checked against the cap.
    fn level(self) -> Level;

    /// The CPU features the backend runs on.
    fn features(self) -> &'static [Feature];

    /// Whether this CPU can run the backend (the cap aside).
    fn is_supported(self) -> bool {
        has(self.features())
    }
}

/// The fastest backend of `B` that the cap allows and this CPU supports. Callers cache the
/// result in a `OnceLock`.
pub fn select<B: Backend>() -> B {
    let all = B::FASTEST_FIRST;
    all.iter()
        .copied()
        .find(|b| allows(b.level()) && b.is_supported())
        .unwrap_or(all[all.len() - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check<B: Backend + std::fmt::Debug>(chosen: B) {
        assert!(chosen.is_supported(), "{chosen:?} chosen but not supported");
        assert!(allows(chosen.level()), "{chosen:?} above the cap {CAP:?}");
        let faster = B::FASTEST_FIRST
            .iter()
            .take_while(|&&b| b.level() != chosen.level());
        for &b in faster {
            assert!(
                !b.is_supported() || !allows(b.level()),
                "{b:?} is allowed and supported but {chosen:?} was chosen"
            );
        }
    }

    #[test]
    fn every_primitive_picks_the_fastest_allowed_supported_backend() {
        check(crate::primitives::aes::AesBackend::selected());
        check(crate::primitives::gf128::GfBackend::selected());
        check(crate::primitives::gf256::Backend::detect());
        check(crate::primitives::transpose::Backend::selected());
        check(crate::quiet::bipsw::EvalBackend::selected());
    }

    #[test]
    fn the_last_backend_is_portable() {
        fn last<B: Backend>() -> B {
            *B::FASTEST_FIRST.last().unwrap()
        }
        use crate::primitives::{aes, gf128, gf256, transpose};
        assert_eq!(last::<aes::AesBackend>().level(), Level::Scalar);
        assert!(last::<aes::AesBackend>().features().is_empty());
        assert!(last::<gf128::GfBackend>().features().is_empty());
        assert!(last::<gf256::Backend>().features().is_empty());
        assert!(last::<transpose::Backend>().features().is_empty());
        assert!(last::<crate::quiet::bipsw::EvalBackend>()
            .features()
            .is_empty());
    }
}
