//! `chunked(by = k)` on a two-party round: the round carries one bulk
//! field (a `BitMatrix[rows, cols]`, streamed by columns, or an array
//! `[T; n]` of fixed-size elements, streamed by elements) in chunks of a
//! positive constant size (a multiple of 128 for a matrix). Checked with
//! the round, so these errors are reported with the others; the plan then
//! lowers the round into a stream.

use super::scope::R;
use super::Checker;
use crate::ast::Round;
use crate::diag::Diagnostic;
use crate::types::Ty;

impl Checker<'_> {
    /// Checks the shape of a chunked two-party round (nothing if the
    /// round is not chunked).
    pub(super) fn chunked_round(&self, r: &Round, fields: &[(String, Ty)]) -> R<()> {
        let Some(by) = &r.chunk_by else {
            return Ok(());
        };
        let clause = r.chunked.unwrap_or(by.span);
        let [(field, fty)] = fields else {
            return Err(Diagnostic::error(
                clause,
                format!(
                    "chunked round `{}` carries {} fields; a chunked round carries exactly one",
                    r.name.name,
                    fields.len()
                ),
            )
            .with_help("send the other values in their own round, or remove `chunked(by = ...)`"));
        };
        let is_matrix = match fty {
            Ty::BitMatrix(..) => true,
            Ty::Array(elem, n) if n.small().is_none() && elem.is_fixed_wire() => false,
            _ => {
                return Err(Diagnostic::error(
                    clause,
                    format!("field `{field}: {fty}` of round `{}` cannot be chunked: only a bulk matrix or array can", r.name.name),
                )
                .with_help("remove `chunked(by = ...)`: `BitMatrix[rows, cols]` fields are streamed by columns and arrays `[T; n]` of fixed-size elements by elements"));
            }
        };
        let size = self.shape(by)?.lit();
        let ok = match size {
            Some(v) if is_matrix => v > 0 && v % 128 == 0,
            Some(v) => v > 0,
            None => false,
        };
        if ok {
            return Ok(());
        }
        let (what, example) = match is_matrix {
            true => ("a positive constant multiple of 128 for a matrix", "16384"),
            false => ("a positive constant", "4096"),
        };
        Err(Diagnostic::error(
            by.span,
            format!("the chunk size of round `{}` must be {what}", r.name.name),
        )
        .with_help(format!(
            "write a constant such as `chunked(by = {example})`"
        )))
    }
}
