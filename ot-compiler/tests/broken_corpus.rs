//! Scores the compiler's diagnostics on a corpus of broken specifications
//! (`tests/broken/*.otp`), each one realistic mistake of a new user.
//!
//! Every corpus file starts with header comments:
//!
//! ```text
//! // expect: LINE:COL    (or `LINE:*`: any column of that line)
//! // help: <text the help line or message must contain>
//! // why: <the mistake, in one line>
//! ```
//!
//! A file scores 1 when it is checked the way `otp check` checks it
//! ([`ot_compiler::check_path`]) and fails, and its first error is at the
//! expected place and its message or help contains the expected text. A
//! file that checks (even with warnings) scores 0; a panic fails the test.
//! `cargo test -p ot-compiler --test broken_corpus -- --nocapture` prints
//! the table (with the whole first error of each file that scores 0, or of
//! every file when `BROKEN_CORPUS_SHOW` is set).

use ot_compiler::check_path;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

/// At least this many corpus files.
const MIN_FILES: usize = 80;
/// The share of files that must score 1.
const MIN_SHARE: f64 = 0.95;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Where the first error must point: a line, and a column unless any will do.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Place {
    line: usize,
    col: Option<usize>,
}

/// The header of one corpus file.
#[derive(Debug)]
struct Expect {
    place: Place,
    help: String,
    why: String,
}

/// Reads the `// expect:`, `// help:` and `// why:` header lines.
fn parse_header(text: &str) -> Result<Expect, String> {
    let field = |key: &str| {
        text.lines()
            .take_while(|l| l.starts_with("//"))
            .find_map(|l| l.strip_prefix(&format!("// {key}:")))
            .map(|v| v.trim().to_string())
            .ok_or(format!("no `// {key}:` header line"))
    };
    let at = field("expect")?;
    let (line, col) = at.split_once(':').ok_or(format!("bad expect `{at}`"))?;
    let line = line.parse().map_err(|_| format!("bad line in `{at}`"))?;
    let col = match col {
        "*" => None,
        c => Some(c.parse().map_err(|_| format!("bad column in `{at}`"))?),
    };
    Ok(Expect {
        place: Place { line, col },
        help: field("help")?,
        why: field("why")?,
    })
}

/// What checking one file gave: its first error, if it failed.
struct FirstError {
    /// `file:line:col` as the renderer shows it.
    file: String,
    place: Place,
    /// Message and help line, the text a user reads to fix it.
    text: String,
    /// The first line of the rendered error.
    head: String,
    /// The whole rendered error, shown for a file that scores 0.
    rendered: String,
}

/// Checks `rel` (relative to the workspace root) like `otp check`.
fn first_error(rel: &str) -> Option<FirstError> {
    let failure = check_path(rel, &root()).err()?;
    let d = failure.errors.first()?;
    let file = failure.sources.files.get(d.span.file as usize)?;
    let (line, col) = failure.sources.line_col(d.span.file, d.span.start);
    Some(FirstError {
        file: file.name.clone(),
        place: Place {
            line,
            col: Some(col),
        },
        text: format!("{}\n{}", d.message, d.help.as_deref().unwrap_or("")),
        head: format!("{} at {}:{line}:{col}", d.message, file.name),
        rendered: d.render(&failure.sources),
    })
}

/// 1 when the first error is at the expected place of the file itself
/// and says what fixes it.
fn score(rel: &str, want: &Expect, got: &Option<FirstError>) -> u32 {
    let Some(got) = got else { return 0 };
    let here = got.file == rel;
    let line = got.place.line == want.place.line;
    let col = want.place.col.is_none() || want.place.col == got.place.col;
    u32::from(here && line && col && got.text.contains(&want.help))
}

/// The corpus files, relative to the workspace root, sorted.
fn corpus() -> Vec<String> {
    let dir = root().join("ot-compiler/tests/broken");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".otp"))
        .map(|n| format!("ot-compiler/tests/broken/{n}"))
        .collect();
    files.sort();
    files
}

/// One row of the table: the file's score and what the compiler said (the
/// whole error when it scores 0).
fn run_one(rel: &str) -> (u32, String) {
    let text = std::fs::read_to_string(root().join(rel)).expect("readable corpus file");
    let want = parse_header(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let got = catch_unwind(AssertUnwindSafe(|| first_error(rel)))
        .unwrap_or_else(|_| panic!("the compiler panicked on {rel} ({})", want.why));
    let s = score(rel, &want, &got);
    let said = match &got {
        Some(g) if s == 1 && std::env::var_os("BROKEN_CORPUS_SHOW").is_none() => g.head.clone(),
        Some(g) => format!(
            "{}\n    expected {}:{} with {:?}\n    {}",
            g.head,
            want.place.line,
            want.place.col.map_or("*".to_string(), |c| c.to_string()),
            want.help,
            g.rendered.trim_end().replace('\n', "\n    ")
        ),
        None => "(checks: no error)".to_string(),
    };
    (s, said)
}

#[test]
fn the_compiler_explains_the_broken_corpus() {
    let files = corpus();
    assert!(
        files.len() >= MIN_FILES,
        "the corpus has {} files, fewer than {MIN_FILES}",
        files.len()
    );
    let mut total = 0;
    let mut zeros = vec![];
    for rel in &files {
        let (s, said) = run_one(rel);
        let name = rel.rsplit('/').next().unwrap_or(rel);
        println!("{name:<36} {s}  {said}");
        total += s;
        if s == 0 {
            zeros.push(name.to_string());
        }
    }
    let share = f64::from(total) / files.len() as f64;
    println!(
        "score: {total}/{} = {:.1}% (scoring 0: {})",
        files.len(),
        share * 100.0,
        zeros.join(", ")
    );
    assert!(
        share >= MIN_SHARE,
        "share {:.1}% is below {:.0}%; scoring 0: {zeros:?}",
        share * 100.0,
        MIN_SHARE * 100.0
    );
}

#[test]
fn a_file_that_checks_scores_zero() {
    let rel = "protocols/sum_n.otp";
    let want = Expect {
        place: Place { line: 1, col: None },
        help: String::new(),
        why: "a valid protocol".into(),
    };
    let got = first_error(rel);
    assert!(got.is_none(), "{rel} checks");
    assert_eq!(score(rel, &want, &got), 0);
}

#[test]
fn every_corpus_file_has_a_complete_header() {
    for rel in corpus() {
        let text = std::fs::read_to_string(root().join(&rel)).unwrap();
        let want = parse_header(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(!want.help.is_empty(), "{rel}: empty `// help:`");
        assert!(!want.why.is_empty(), "{rel}: empty `// why:`");
        assert!(want.place.line > 0, "{rel}: lines count from 1");
    }
}

#[test]
fn the_header_is_read_as_written() {
    let e = parse_header("// expect: 7:*\n// help: add `;`\n// why: x\nprotocol").unwrap();
    assert_eq!(e.place, Place { line: 7, col: None });
    assert_eq!(e.help, "add `;`");
    let e = parse_header("// expect: 3:12\n// help: h\n// why: w\n").unwrap();
    assert_eq!(
        e.place,
        Place {
            line: 3,
            col: Some(12)
        }
    );
    assert!(parse_header("// why: w\n").is_err());
}
