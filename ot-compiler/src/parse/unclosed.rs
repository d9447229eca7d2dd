//! A `{`, `/*` comment or string that is never closed. The grammar only
//! notices at the end of the file (or at the first item that cannot go
//! inside the block), far from the mistake; a scan of the text finds the
//! opening instead, and the indentation tells which `{` lost its `}`.

use crate::diag::Diagnostic;
use crate::source::{FileId, Span};

/// The error for the first thing opened and never closed in `text`, if
/// any, provided it opens at or before `stop` (where the grammar stopped:
/// an earlier syntax error is a mistake of its own). A `{` is reported
/// only when the indentation shows which one it is; otherwise its `}` is
/// missing at the end, where the grammar's own error points.
pub(super) fn find(text: &str, file: FileId, stop: usize) -> Option<Diagnostic> {
    let (at, len, message, help) = unterminated(text).or_else(|| lost_brace(text))?;
    if at > stop {
        return None;
    }
    let span = Span {
        file,
        start: at as u32,
        end: (at + len) as u32,
    };
    Some(Diagnostic::error(span, message).with_help(help))
}

/// Whether `d` is an error of [`find`] (after it, the rest of the text is
/// not worth parsing on its own: the brackets are off).
pub(super) fn is_unclosed(d: &Diagnostic) -> bool {
    d.message.ends_with(NEVER_CLOSED)
}

/// The line of the innermost `{` of `text` never closed, if any (for the
/// error at the end of the file, where its `}` is missing).
pub(super) fn open_brace_line(text: &str) -> Option<usize> {
    let braces = braces(text)?;
    braces.open.last().map(|&at| line_of(text, at))
}

const NEVER_CLOSED: &str = "is never closed";

/// What is never closed: (offset, length, message, help).
type Found = (usize, usize, String, String);

/// The braces of a text whose comments and strings are closed.
struct Braces {
    /// Offsets of the `{` never closed, outermost first.
    open: Vec<usize>,
    /// The first `{` closed by a `}` that starts a line indented less than
    /// the `{`'s own line (the block that most likely lost its `}`), and
    /// that `}`.
    suspect: Option<(usize, usize)>,
}

/// Scans the braces outside comments and strings; `None` when a `}` closes
/// nothing (that is not a missing `}`) or a comment or string is open.
fn braces(text: &str) -> Option<Braces> {
    let b = text.as_bytes();
    let mut out = Braces {
        open: vec![],
        suspect: None,
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => i = line_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => i = comment_end(text, i)?,
            b'"' => i = string_end(text, i)?,
            b'{' => out.open.push(i),
            b'}' => {
                let open = out.open.pop()?;
                if out.suspect.is_none() && closes_outer(text, i, open) {
                    out.suspect = Some((open, i));
                }
            }
            _ => {}
        }
        i += 1;
    }
    Some(out)
}

/// The `{` that lost its `}`, when some `{` is never closed and the
/// indentation tells which.
fn lost_brace(text: &str) -> Option<Found> {
    let braces = braces(text)?;
    braces.open.last()?;
    let (at, close) = braces.suspect?;
    let line = line_of(text, close);
    let message = format!("syntax error: this `{{` {NEVER_CLOSED}");
    let help = format!("add its closing `}}` after the block's last line: the `}}` on line {line}, indented like an enclosing block, closes it instead");
    Some((at, 1, message, help))
}

/// Whether the `}` at `close` starts its line indented less than the line
/// of the `{` at `open` it closes.
fn closes_outer(text: &str, close: usize, open: usize) -> bool {
    let line_start = text[..close].rfind('\n').map_or(0, |n| n + 1);
    text[line_start..close].trim().is_empty() && indent_of(text, close) < indent_of(text, open)
}

/// The indentation (spaces and tabs) of the line holding byte `at`.
fn indent_of(text: &str, at: usize) -> usize {
    let start = text[..at].rfind('\n').map_or(0, |n| n + 1);
    text[start..]
        .bytes()
        .take_while(|c| *c == b' ' || *c == b'\t')
        .count()
}

/// The 1-based line of byte `at`.
fn line_of(text: &str, at: usize) -> usize {
    text[..at].matches('\n').count() + 1
}

/// The index of the `\n` ending the line at `i` (or the end of the text).
fn line_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        i += 1;
    }
    i
}

/// The index of the `/` ending the comment opened at `i`, if it is closed.
fn comment_end(text: &str, i: usize) -> Option<usize> {
    text[i + 2..].find("*/").map(|e| i + 2 + e + 1)
}

/// The index of the `"` closing the string opened at `i`.
fn string_end(text: &str, i: usize) -> Option<usize> {
    text[i + 1..].find('"').map(|e| i + 1 + e)
}

/// A comment or string never closed.
fn unterminated(text: &str) -> Option<Found> {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => i = line_end(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => match comment_end(text, i) {
                Some(e) => i = e,
                None => {
                    let message = format!("syntax error: this `/*` comment {NEVER_CLOSED}");
                    return Some((i, 2, message, "close it with `*/` where it ends".into()));
                }
            },
            b'"' => match string_end(text, i) {
                Some(e) => i = e,
                None => {
                    let message = format!("syntax error: this string {NEVER_CLOSED}");
                    let help = "end it with a closing `\"` on the same line";
                    return Some((i, 1, message, help.into()));
                }
            },
            _ => {}
        }
        i += 1;
    }
    None
}
