//! Which values of a role are secret, and how the generated code holds
//! them (issue 15, item 7: secrets wiped when dropped). The rule is the
//! same for the roles of a two-party protocol, the parties `P[i]` of an
//! n-party one and its dealer.
//!
//! The rule needs no syntax: a value of a role is *secret* when
//!
//! - it is not a field of any round's message (what a role sends, the peer
//!   learns; what it receives, the peer knew), nor a parameter (public by
//!   agreement), and
//! - its type holds data without a drop hook of its own that wipes it:
//!   `Bit`, `Block`, `Seed`, `Scalar`, `u8`/`u32`/`u64`, `BitMatrix`, extern
//!   types that name a primitive integer (MiniMac's `Gf8 = u8`), and
//!   arrays of these, and arrays of `usize`. A `usize` value alone is a
//!   size, an index or a counter (public by convention); an array of them
//!   is a set of positions such as the punctured leaves of an all-but-one
//!   OT or silent OT's noise coordinates, which are secret; `Point`s are
//!   public keys and messages in the shipped protocols; `Bits` and the runtime's extern types of secrets
//!   (PRG keys, all-but-one OT leaves, MPC shares) wipe themselves when
//!   dropped.
//!
//! Inputs count: once the caller has handed a value to a role, the role
//! owns it. A secret is held, from the statement, input, sub-protocol
//! output or stream stage that defines it, as a local and a state field of
//! type `Wiped<T>` (`ot_runtime::primitives::wipe`), so it is wiped wherever generated
//! code drops it: at the end of the step after its last read, and with the
//! role's state when a caller drops the role between steps (an abort, an
//! error, a run given up). Expressions read it through `Deref` (`(*x)`), so
//! kernels keep their signatures. Who wipes what leaves the wrapper:
//!
//! - an output is moved out (`core::mem::take`, a copy for `Copy` types)
//!   into the role's output struct: from there it is the caller's;
//! - a value one fixed party of an n-party protocol holds (`at P[0]`, an
//!   input of `P[0]`) is an `Option<Wiped<T>>`, `Some` at that party only;
//!   its code reads a wrapped copy (`unwrap_copy`);
//! - a value passed to a `move` parameter is taken out likewise: the kernel
//!   owns it, and must return it (the shipped `first_blocks` returns the
//!   same buffer as an output) or wipe it;
//! - a buffer a streamed round keeps whole and then gives to the role's
//!   scratch (reused by the next run) is wiped first.
//!
//! Stack copies of `Copy` values made by kernels and by moves are not
//! reached (see SECURITY.md, "Known gaps").

use crate::ir::Ir;
use crate::types::Ty;
use std::collections::{BTreeMap, BTreeSet};

/// Whether values of type `ty` are held in a wiping wrapper when secret.
pub fn wipeable(ty: &Ty) -> bool {
    match ty {
        Ty::Bit
        | Ty::Block
        | Ty::Seed
        | Ty::Scalar
        | Ty::U64
        | Ty::U32
        | Ty::U8
        | Ty::BitMatrix(..) => true,
        Ty::Array(e, _) => wipeable(e) || **e == Ty::Usize,
        // An extern type that names a primitive integer (MiniMac's `Gf8 =
        // u8`) is plain data like the built-in integers.
        Ty::Extern(_, path) => matches!(path.as_str(), "u8" | "u16" | "u32" | "u64" | "u128"),
        _ => false,
    }
}

/// The secret values of role `ri` (see the module docs), given the type of
/// every value it holds.
pub fn secrets(ir: &Ir, types: &BTreeMap<String, Ty>) -> BTreeSet<String> {
    let public: BTreeSet<&str> = ir
        .rounds
        .iter()
        .flat_map(|r| r.fields.iter().map(|(n, _)| n.as_str()))
        .collect();
    types
        .iter()
        .filter(|(n, t)| !public.contains(n.as_str()) && wipeable(t))
        .map(|(n, _)| n.clone())
        .collect()
}
