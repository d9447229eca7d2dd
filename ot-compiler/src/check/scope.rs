//! What the checker sees and how its errors are collected: the scope of
//! declarations a protocol is checked in, the cap on reported errors and
//! the follow-on marker.

use crate::ast::{ExternType, Functionality, IntrinsicDecl, Protocol};
use crate::diag::Diagnostic;
use std::collections::{BTreeMap, BTreeSet};

/// Everything visible to a protocol: intrinsics, extern types, functionalities, protocols.
pub struct Scope<'a> {
    /// Intrinsics by name.
    pub intrinsics: BTreeMap<String, &'a IntrinsicDecl>,
    /// Extern types by name.
    pub extern_types: BTreeMap<String, &'a ExternType>,
    /// Functionalities by name.
    pub functionalities: BTreeMap<String, &'a Functionality>,
    /// Protocols by name.
    pub protocols: BTreeMap<String, &'a Protocol>,
    /// Names of top-level items that failed to parse or to be declared:
    /// a use of one is not reported again (the item's own error says it).
    pub broken: BTreeSet<String>,
}

/// The message of a follow-on error: a use of a name whose definition
/// already failed with its own error. Such errors are dropped, never shown.
pub const CASCADE: &str = "\0follow-on error";

/// At most this many errors are reported for one file.
pub const MAX_ERRORS: usize = 20;

/// Keeps the real errors in source order, at most [`MAX_ERRORS`] of them
/// (the last one then says how many more there were).
pub fn finish_errors(mut errors: Vec<Diagnostic>) -> Vec<Diagnostic> {
    errors.retain(|d| d.message != CASCADE);
    errors.sort_by_key(|d| (d.span.file, d.span.start));
    if errors.len() > MAX_ERRORS {
        let more = errors.len() - MAX_ERRORS;
        let next = errors[MAX_ERRORS].span;
        errors.truncate(MAX_ERRORS);
        errors.push(
            Diagnostic::error(
                next,
                format!(
                    "{more} more error{} not shown",
                    if more == 1 { "" } else { "s" }
                ),
            )
            .with_help(format!(
                "only the first {MAX_ERRORS} errors are reported; fix these and check again"
            )),
        );
    }
    errors
}

/// A check's result: its value or the diagnostic that stopped it.
pub(super) type R<T> = Result<T, Diagnostic>;
