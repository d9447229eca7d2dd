//! Reading and compiling a `.otp` file for a command, and rendering the
//! compiler's diagnostics rustc-style (codespan-reporting): coloured on a
//! terminal, plain otherwise.

use crate::{Color, Fail};
use codespan_reporting::diagnostic::{Diagnostic as Report, Label, Severity as Level};
use codespan_reporting::files::SimpleFiles;
use codespan_reporting::term::termcolor::{ColorChoice, StandardStream};
use codespan_reporting::term::{self, Config};
use ot_compiler::diag::{Diagnostic, Severity};
use ot_compiler::source::SourceMap;
use ot_compiler::Compiled;
use std::io::IsTerminal;
use std::path::Path;

/// Compiles `file` (relative to the current directory). A file that cannot
/// be read is a one-line error; compile errors are printed as diagnostics.
pub fn compile(file: &Path, color: Color) -> Result<Compiled, Fail> {
    try_compile(file, color)?.map_err(|_| Fail(String::new()))
}

/// Like [`compile`], but a protocol that does not compile is `Ok(Err(n))`
/// with the number of errors printed.
pub fn try_compile(file: &Path, color: Color) -> Result<Result<Compiled, usize>, Fail> {
    run_front(file, color, ot_compiler::compile_path)
}

/// Like [`try_compile`], without generating code (`tokens` empty): every
/// error and warning, in memory linear in the file (`otp check
/// --no-codegen`, which goes on after a failure; code generation adds no
/// diagnostics).
pub fn try_check(file: &Path, color: Color) -> Result<Result<Compiled, usize>, Fail> {
    run_front(file, color, ot_compiler::check_path)
}

/// Reads `file` and runs `stage` on it, printing its errors.
fn run_front(
    file: &Path,
    color: Color,
    stage: fn(&str, &Path) -> Result<Compiled, ot_compiler::Failure>,
) -> Result<Result<Compiled, usize>, Fail> {
    let shown = file.display().to_string();
    if let Err(e) = std::fs::read(file) {
        return Err(Fail(format!("cannot read `{shown}`: {e}")));
    }
    let cwd = std::env::current_dir()
        .map_err(|e| Fail(format!("cannot read the current directory: {e}")))?;
    match stage(&shown, &cwd) {
        Ok(c) => Ok(Ok(c)),
        Err(f) => {
            emit(&f.errors, &f.sources, color);
            Ok(Err(f.errors.len()))
        }
    }
}

/// Prints diagnostics to standard error.
pub fn emit(diags: &[Diagnostic], sources: &SourceMap, color: Color) {
    let choice = match color {
        Color::Always => ColorChoice::Always,
        Color::Never => ColorChoice::Never,
        Color::Auto if std::io::stderr().is_terminal() => ColorChoice::Auto,
        Color::Auto => ColorChoice::Never,
    };
    let mut files = SimpleFiles::new();
    for f in &sources.files {
        files.add(f.name.clone(), f.text.clone());
    }
    let out = StandardStream::stderr(choice);
    let mut out = out.lock();
    let config = Config::default();
    for d in diags {
        let report = to_report(d, sources);
        if term::emit(&mut out, &config, &files, &report).is_err() {
            // A span the renderer cannot place: fall back to the compiler's
            // own plain rendering, which never fails.
            eprint!("{}", d.render(sources));
        }
    }
}

/// The codespan form of a compiler diagnostic.
fn to_report(d: &Diagnostic, sources: &SourceMap) -> Report<usize> {
    let level = match d.severity {
        Severity::Error => Level::Error,
        Severity::Warning => Level::Warning,
    };
    let mut notes = vec![];
    if let Some(n) = &d.note {
        notes.push(format!("note: {n}"));
    }
    if let Some(h) = &d.help {
        notes.push(format!("help: {h}"));
    }
    let mut report = Report::new(level)
        .with_message(d.message.clone())
        .with_notes(notes);
    let file = d.span.file as usize;
    if let Some(f) = sources.files.get(file) {
        let end = (d.span.end as usize).min(f.text.len());
        let start = (d.span.start as usize).min(end);
        report = report.with_labels(vec![Label::primary(file, start..end)]);
    }
    report
}

/// How an n-party report names fixed party `c`: `P[0]`, or the named role
/// next to the party array (the dealer, recorded as index `DEALER`).
pub fn party_name(ir: &ot_compiler::ir::Ir, c: usize) -> String {
    match c {
        ot_compiler::ir::DEALER => ir.dealer.clone().unwrap_or_default(),
        _ => format!("{}[{c}]", ir.roles[0]),
    }
}
