//! The plan stage, between the checked [`Ir`] and code generation: the
//! facts about a protocol that code generation prints and the `otp`
//! command reports, computed once as values.
//!
//! - Each role's schedule: chunked rounds lowered into streams
//!   ([`streams`]), written back into the IR's projections.
//! - Every message's wire layout ([`WireLen`] per field) and the bytes of
//!   the parameters' encoding that the session binding carries, so that the
//!   generated codec, `comm()`, `otp cost` and `otp diagram` share one size
//!   rule.
//! - The memory bound of every role ([`footprint`]), which `Params::new`
//!   checks against the memory budget.
//! - Each two-party role's states with the values they carry, its value
//!   types and last reads ([`roles`]), and its secret values
//!   ([`secrets`]); the n-party party's operations and states ([`party`]).
//!
//! The plan reads the IR and the type facts only; it never names code
//! generation (ARCHITECTURE.md, "Invariants").

pub mod footprint;
pub mod party;
pub mod roles;
pub mod secrets;
pub mod streams;

use crate::diag::Diagnostic;
use crate::ir::{Ir, IrRound};
use crate::types::{Ty, WireLen};

/// What code generation and the reports read besides the IR.
#[derive(Clone, Debug)]
pub struct Plan {
    /// Per round (in order), each field's name and wire layout.
    pub messages: Vec<Vec<(String, WireLen)>>,
    /// Bytes of the generated `Params::encode()`: the parameters a session
    /// binds (all but `tuning` ones), each as in [`param_encoded_len`].
    pub params_len: usize,
    /// The memory bound of every role (`Params::peak_memory`).
    pub footprint: footprint::Footprint,
    /// Each role's schedule of a two-party protocol (empty for an n-party
    /// one).
    pub roles: Vec<roles::RolePlan>,
    /// The party schedule of an n-party protocol.
    pub party: Option<party::Plan>,
}

/// Plans a checked protocol: lowers its chunked rounds into streams (an
/// error if a round cannot stream) and lays out its messages.
pub fn plan(ir: &mut Ir) -> Result<Plan, Diagnostic> {
    // n-party protocols have no chunked rounds (the checker refuses them).
    if ir.party_count.is_none() {
        streams::lower_chunked_rounds(ir)?;
    }
    Ok(Plan {
        messages: ir.rounds.iter().map(message_layout).collect(),
        params_len: ir
            .params
            .iter()
            .filter(|p| !p.tuning)
            .map(|p| param_encoded_len(&p.ty))
            .sum(),
        footprint: footprint::footprint(ir),
        roles: match ir.party_count {
            None => (0..ir.roles.len())
                .map(|ri| roles::RolePlan::new(ir, ri))
                .collect(),
            Some(_) => vec![],
        },
        party: ir.party_count.as_ref().map(|_| party::plan(ir)),
    })
}

/// The wire layout of a round's message, field by field.
pub fn message_layout(r: &IrRound) -> Vec<(String, WireLen)> {
    r.fields
        .iter()
        .map(|(n, t)| (n.clone(), WireLen::of(t)))
        .collect()
}

/// Bytes of a parameter of type `t` in `Params::encode`: a bit as one
/// byte, a block or seed as 16, every integer as 8 (little-endian `u64`).
pub fn param_encoded_len(t: &Ty) -> usize {
    match t {
        Ty::Bit => 1,
        Ty::Block | Ty::Seed => 16,
        _ => 8,
    }
}
