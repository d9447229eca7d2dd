//! The kernel calling convention (ARCHITECTURE.md, "Invariants"), read
//! from the sources rather than from documentation:
//!
//! 1. A streamed kernel is one function taking a `Span` and its output:
//!    the runtime has no `*_chunk` (or `*_from`) families, and every
//!    `chunked` intrinsic of `protocols/` names one path.
//! 2. Context types instead of long positional lists: no
//!    `too_many_arguments` allowance anywhere in the workspace.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if path.is_dir() {
            if name != "target" && !name.starts_with('.') {
                files(&path, ext, out);
            }
        } else if path.extension().is_some_and(|e| e == ext) {
            out.push(path);
        }
    }
}

/// Every Rust source of the workspace except this file.
fn workspace_sources() -> Vec<(PathBuf, String)> {
    let mut paths = vec![];
    files(&root(), "rs", &mut paths);
    let me = root().join(file!());
    paths
        .into_iter()
        .filter(|p| p.canonicalize().ok() != me.canonicalize().ok())
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("readable source");
            (p, text)
        })
        .collect()
}

#[test]
fn no_function_is_allowed_too_many_arguments() {
    let sources = workspace_sources();
    assert!(sources.len() > 100, "the scan sees the workspace");
    let lint = ["too_many", "_arguments"].concat();
    let found: Vec<String> = sources
        .iter()
        .filter(|(_, text)| text.contains(&lint))
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(
        found.is_empty(),
        "use a context type (Span, HashTweaks, a small struct) instead: {found:?}"
    );
}

#[test]
fn the_runtime_has_no_chunk_or_from_kernel_families() {
    let mut paths = vec![];
    files(&root().join("ot-runtime/src"), "rs", &mut paths);
    let mut found = vec![];
    for p in &paths {
        let text = std::fs::read_to_string(p).expect("readable source");
        for line in text.lines() {
            let l = line.trim_start();
            let Some(rest) = l.strip_prefix("pub fn ") else {
                continue;
            };
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if name.ends_with("_chunk") || name.ends_with("_from") || name.ends_with("_at_into") {
                found.push(format!("{}: {name}", p.display()));
            }
        }
    }
    assert!(
        found.is_empty(),
        "one kernel per operation, taking a Span: {found:?}"
    );
}

#[test]
fn every_streamed_intrinsic_names_one_kernel() {
    let mut paths = vec![];
    files(&root().join("protocols"), "otp", &mut paths);
    let mut streamed = 0;
    for p in &paths {
        let text = std::fs::read_to_string(p).expect("readable protocol");
        for line in text.lines().filter(|l| l.starts_with("intrinsic ")) {
            let Some((_, path)) = line.rsplit_once(" = ") else {
                continue;
            };
            let path = path.trim_end_matches(';').trim();
            if let Some(kernel) = path.strip_suffix(" chunked") {
                streamed += 1;
                assert!(
                    !kernel.contains(' ') && !kernel.ends_with("_chunk"),
                    "{}: {line}",
                    p.display()
                );
            }
        }
    }
    assert!(
        streamed >= 20,
        "the scan sees the streamed kernels ({streamed})"
    );
}
