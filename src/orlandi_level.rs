//! Parameters of the Orlandi preprocessing ([`crate::orlandi_triple`]) at
//! a statistical security level: the cheapest subset-check overhead `s` and
//! leak tolerance `d` for `m` triples
//! ([`ot_runtime::orlandi::level::params_for`], the bound of Damgård–Orlandi
//! Random Triple as stated there), built into the protocol's `Params`.

use crate::orlandi_triple::{Error, Params};
use ot_runtime::orlandi::level::{params_for, LevelError};

/// Why [`params_at_level`] built no parameters.
#[derive(Debug)]
pub enum AtLevelError {
    /// No `(s, d)` reaches the level, the level is below the floor, or
    /// `m = 0` ([`LevelError`]).
    Level(LevelError),
    /// The protocol refused the derived parameters (e.g. `n` out of range,
    /// or sizes over the memory budget).
    Params(Error),
}

impl std::fmt::Display for AtLevelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AtLevelError::Level(e) => write!(f, "OrlandiTriple: {e}"),
            AtLevelError::Params(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for AtLevelError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AtLevelError::Level(e) => Some(e),
            AtLevelError::Params(e) => Some(e),
        }
    }
}

/// `Params` for `n` parties making `m` triples at a statistical security
/// level of `sec` bits (at least 40; [`ot_runtime::orlandi::level::DEFAULT_SEC`]
/// is the usual choice): the cheapest `(s, d)` for which a cheater breaks
/// the privacy of some output of a run with probability at most `2^-sec`
/// (read them back with `Params::s` and `Params::d`).
pub fn params_at_level(n: usize, m: usize, sec: usize) -> Result<Params, AtLevelError> {
    let (s, d) = params_for(m, sec).map_err(AtLevelError::Level)?;
    Params::new(n, m, s, d, sec).map_err(AtLevelError::Params)
}
