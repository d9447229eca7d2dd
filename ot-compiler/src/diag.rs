//! Diagnostics: one located message with a snippet, a caret line and a help
//! line, rendered as plain text (the same text goes into `compile_error!`).

use crate::source::{SourceMap, Span};

/// How bad a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Compilation fails.
    Error,
    /// Reported by `otp check`; the macro stays silent.
    Warning,
}

/// One problem found in a `.otp` file.
#[derive(Clone, Debug)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// Where.
    pub span: Span,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where in the protocol it happened (`in round `x` of protocol `P``).
    pub note: Option<String>,
    /// What to do about it (valid alternatives, "did you mean").
    pub help: Option<String>,
}

impl Diagnostic {
    /// A new error.
    pub fn error(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Error,
            span,
            message: message.into(),
            note: None,
            help: None,
        }
    }

    /// A new warning.
    pub fn warning(span: Span, message: impl Into<String>) -> Self {
        Diagnostic {
            severity: Severity::Warning,
            span,
            message: message.into(),
            note: None,
            help: None,
        }
    }

    /// Adds a help line.
    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    /// Adds a note saying where in the protocol this is, unless one is set.
    pub fn with_context(mut self, note: impl Into<String>) -> Self {
        if self.note.is_none() {
            self.note = Some(note.into());
        }
        self
    }

    /// Renders as
    /// ```text
    /// error: message
    ///   --> protocols/x.otp:3:5
    ///    |
    ///  3 |     at Sender { y = foo(x); }
    ///    |                     ^^^
    ///    = note: in `at Sender` of protocol `P`
    ///    = help: ...
    /// ```
    pub fn render(&self, sources: &SourceMap) -> String {
        let kind = match self.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
        };
        let mut out = format!("{kind}: {}\n", self.message);
        // Never panic on a span that does not fit its file: show what is known.
        let Some(file) = sources.files.get(self.span.file as usize) else {
            out.push_str(" --> <unknown file>\n");
            self.push_footer(&mut out, " ");
            return out;
        };
        let start = char_floor(&file.text, self.span.start);
        let end = char_floor(&file.text, self.span.end.max(self.span.start));
        let (line, col) = sources.line_col(self.span.file, start);
        let (end_line, end_col) = sources.line_col(self.span.file, end);
        let text = sources.line_text(self.span.file, line);
        let width = if end_line == line {
            end_col.saturating_sub(col).max(1)
        } else {
            1
        };
        let width = width.min(text.chars().count().saturating_sub(col - 1).max(1));
        // Tabs are shown as four spaces so the caret lines up.
        let shown = text.replace('\t', "    ");
        let lead: usize = text
            .chars()
            .take(col - 1)
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum();
        let marked: usize = text
            .chars()
            .skip(col - 1)
            .take(width)
            .map(|c| if c == '\t' { 4 } else { 1 })
            .sum();
        let gutter = line.to_string().len();
        let pad = " ".repeat(gutter);
        out.push_str(&format!("{pad}--> {}:{line}:{col}\n{pad} |\n", file.name));
        out.push_str(&format!("{line} | {}\n", shown.trim_end()));
        out.push_str(&format!(
            "{pad} | {}{}\n",
            " ".repeat(lead),
            "^".repeat(marked.max(1))
        ));
        self.push_footer(&mut out, &pad);
        out
    }

    fn push_footer(&self, out: &mut String, pad: &str) {
        if let Some(note) = &self.note {
            out.push_str(&format!("{pad} = note: {note}\n"));
        }
        if let Some(help) = &self.help {
            out.push_str(&format!("{pad} = help: {help}\n"));
        }
    }
}

/// The largest char boundary of `text` at or before `offset`.
fn char_floor(text: &str, offset: u32) -> u32 {
    let mut o = (offset as usize).min(text.len());
    while !text.is_char_boundary(o) {
        o -= 1;
    }
    o as u32
}

/// Edit distance counting a swap of two neighbouring characters as one
/// edit (optimal string alignment), for "did you mean": `Piont` is one
/// edit from `Point`.
fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut v = (d[i - 1][j - 1] + cost)
                .min(d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                v = v.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = v;
        }
    }
    d[a.len()][b.len()]
}

/// The closest candidate to `name`, if it is close enough to be a typo:
/// one edit per three characters; else the only candidate that `name`
/// abbreviates (`Recv` for `Receiver`); else, for a one- or two-letter
/// name, the only candidate one edit away of the same length (`m` for `n`).
pub fn did_you_mean<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let cands: Vec<&'a str> = candidates.into_iter().collect();
    let limit = name.chars().count() / 3;
    let lower = name.to_lowercase();
    let scored: Vec<(usize, &'a str)> = cands
        .iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), *c))
        .collect();
    if let Some(best) = scored
        .iter()
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
    {
        return Some(best.1);
    }
    abbreviated(&lower, &cands).or_else(|| short_typo(name, &scored))
}

/// The only candidate that `lower` (three letters or more) abbreviates:
/// same first letter, every letter in order (`recv` for `Receiver`).
fn abbreviated<'a>(lower: &str, cands: &[&'a str]) -> Option<&'a str> {
    if lower.chars().count() < 3 {
        return None;
    }
    let abbreviates = |c: &str| {
        let c = c.to_lowercase();
        let mut rest = c.chars();
        c.len() > lower.len()
            && c.chars().next() == lower.chars().next()
            && lower.chars().all(|l| rest.any(|x| x == l))
    };
    let mut hits = cands.iter().filter(|c| abbreviates(c));
    match (hits.next(), hits.next()) {
        (Some(c), None) => Some(*c),
        _ => None,
    }
}

/// For a name of one or two letters: the only candidate of its length one
/// edit away.
fn short_typo<'a>(name: &str, scored: &[(usize, &'a str)]) -> Option<&'a str> {
    let len = name.chars().count();
    if len > 2 {
        return None;
    }
    let mut hits = scored
        .iter()
        .filter(|(d, c)| *d == 1 && c.chars().count() == len);
    match (hits.next(), hits.next()) {
        (Some((_, c)), None) => Some(*c),
        _ => None,
    }
}

/// The plural of a noun of the help lines (`functionality`, `type`).
fn plural(what: &str) -> String {
    match what.strip_suffix('y') {
        Some(stem) => format!("{stem}ies"),
        None => format!("{what}s"),
    }
}

/// A help line listing alternatives, leading with a suggestion if one is close.
pub fn suggest(name: &str, what: &str, candidates: &[String]) -> String {
    let cands: Vec<&str> = candidates.iter().map(String::as_str).collect();
    match did_you_mean(name, cands.iter().copied()) {
        Some(best) => format!("did you mean `{best}`?"),
        None if cands.is_empty() => format!("no {what} is declared here"),
        None => {
            let mut list: Vec<&str> = cands.clone();
            list.sort_unstable();
            list.dedup();
            let shown: Vec<String> = list.iter().take(12).map(|c| format!("`{c}`")).collect();
            format!("valid {} here: {}", plural(what), shown.join(", "))
        }
    }
}
