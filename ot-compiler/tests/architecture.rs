//! The compiler's import structure (ARCHITECTURE.md, "Invariants"): read
//! from the `use` lines and paths of `src/`, not from documentation.
//!
//! 1. No import circle between files: a file names items of another file
//!    (`crate::…`, `super::…`, `self::…` or a child module's path) only if
//!    that file, directly or through others, never names it back.
//! 2. The stages are layered: the front end (read, parse, check, ir) names
//!    neither `plan` nor `codegen`; `plan` does not name `codegen`.
//!
//! Test modules (`#[cfg(test)] mod tests`) are left out: they may use the
//! whole compiler.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module path inside the crate: `[]` is `lib.rs`, `["codegen", "wire"]`
/// is `codegen/wire.rs`.
type Module = Vec<String>;

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

fn module_of(rel: &Path) -> Module {
    let mut parts: Module = rel
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("directory entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The source without comments, string and character literals, and the
/// test module at the end of the file.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests") {
        Some(i) => &text[..i],
        None => text,
    };
    // `pub(in crate::x)` restricts visibility; it imports nothing.
    let text = text.replace("pub(in ", "pub(");
    let b = text.as_bytes();
    let mut out = String::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            i += 2;
            while i < b.len() && !b[i..].starts_with(b"*/") {
                i += 1;
            }
            i += 2;
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && (b.get(i + 2) == Some(&b'\'') || (b.get(i + 1) == Some(&b'\\')))
        {
            // A character literal ('x' or '\n'), not a lifetime.
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(b[i] as char);
            i += 1;
        }
    }
    out
}

fn is_ident(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Every path written in `code` that starts with one of `roots`, as its
/// segments; a `use a::{b, c::d}` list gives one path per member.
fn paths(code: &str, roots: &BTreeSet<String>) -> Vec<Vec<String>> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = vec![];
    let mut i = 0;
    while i < chars.len() {
        let starts_word = i == 0 || !(is_ident(chars[i - 1]) || chars[i - 1] == ':');
        if !(starts_word && is_ident(chars[i])) {
            i += 1;
            continue;
        }
        let (segs, end) = path_at(&chars, i);
        let group = chars.get(end) == Some(&'{');
        if (segs.len() > 1 || group) && roots.contains(&segs[0]) {
            if group {
                for member in group_members(&chars, end) {
                    let mut p = segs.clone();
                    p.extend(member.split("::").map(|s| s.trim().to_string()));
                    out.push(p);
                }
            } else {
                out.push(segs);
            }
        }
        i = end.max(i + 1);
    }
    out
}

/// The `a::b::c` path starting at `i` and the index after it (after a
/// trailing `::` when a `{` group follows).
fn path_at(chars: &[char], mut i: usize) -> (Vec<String>, usize) {
    let mut segs = vec![];
    loop {
        let start = i;
        while i < chars.len() && is_ident(chars[i]) {
            i += 1;
        }
        segs.push(chars[start..i].iter().collect());
        let mut j = i;
        while j < chars.len() && chars[j] == ' ' {
            j += 1;
        }
        if chars.get(j) == Some(&':') && chars.get(j + 1) == Some(&':') {
            j += 2;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            if chars.get(j).is_some_and(|c| is_ident(*c)) {
                i = j;
                continue;
            }
            return (segs, j);
        }
        return (segs, i);
    }
}

/// The members of a `{ a, b::c, d::{e, f} }` group (nested groups are
/// flattened to their prefix, which names the same file or a parent).
fn group_members(chars: &[char], open: usize) -> Vec<String> {
    let mut depth = 0;
    let mut member = String::new();
    let mut out = vec![];
    for &c in &chars[open..] {
        match c {
            '{' => {
                depth += 1;
                if depth > 1 {
                    continue;
                }
            }
            '}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
                continue;
            }
            ',' if depth == 1 => {
                out.push(std::mem::take(&mut member));
                continue;
            }
            _ if depth == 1 => member.push(c),
            _ => {}
        }
    }
    out.push(member);
    out.into_iter()
        .map(|m| {
            let m: String = m
                .split(" as ")
                .next()
                .unwrap_or("")
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect();
            m.trim_end_matches("::").to_string()
        })
        .filter(|m| !m.is_empty() && m != "self")
        .collect()
}

/// The file a path written in `from` names: the longest prefix of the
/// resolved path that is a module of the crate.
fn resolve(from: &Module, path: &[String], modules: &BTreeSet<Module>) -> Option<Module> {
    let mut segs = path.iter().peekable();
    let mut base: Module = match segs.peek().map(|s| s.as_str()) {
        Some("crate") => {
            segs.next();
            vec![]
        }
        Some("super") => {
            let mut b = from.clone();
            while segs.peek().map(|s| s.as_str()) == Some("super") {
                segs.next();
                b.pop();
            }
            b
        }
        Some("self") => {
            segs.next();
            from.clone()
        }
        // A child module of `from`, named without `self::`.
        _ => from.clone(),
    };
    let mut best = None;
    if modules.contains(&base) {
        best = Some(base.clone());
    }
    for s in segs {
        base.push(s.clone());
        if modules.contains(&base) {
            best = Some(base.clone());
        }
    }
    best
}

fn name(m: &Module) -> String {
    if m.is_empty() {
        "lib".into()
    } else {
        m.join("/")
    }
}

/// The file-level import graph of the compiler.
fn import_graph() -> BTreeMap<Module, BTreeSet<Module>> {
    let src = src_dir();
    let mut files = vec![];
    rust_files(&src, &mut files);
    let modules: BTreeMap<Module, PathBuf> = files
        .iter()
        .map(|f| {
            (
                module_of(f.strip_prefix(&src).expect("under src/")),
                f.clone(),
            )
        })
        .collect();
    let known: BTreeSet<Module> = modules.keys().cloned().collect();
    let mut graph = BTreeMap::new();
    for (m, file) in &modules {
        let code = code_of(&std::fs::read_to_string(file).expect("readable source"));
        let mut roots: BTreeSet<String> = ["crate", "super", "self"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        // Child modules are named by their bare name.
        for child in known
            .iter()
            .filter(|k| k.len() == m.len() + 1 && k.starts_with(m))
        {
            roots.insert(child[m.len()].clone());
        }
        let deps: BTreeSet<Module> = paths(&code, &roots)
            .iter()
            .filter_map(|p| resolve(m, p, &known))
            .filter(|d| d != m)
            .collect();
        graph.insert(m.clone(), deps);
    }
    graph
}

/// The import circles: every group of two or more files that reach each
/// other (strongly connected components, Tarjan's algorithm).
fn circles(graph: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Tarjan<'g> {
        graph: &'g BTreeMap<Module, BTreeSet<Module>>,
        index: BTreeMap<&'g Module, (usize, usize)>,
        stack: Vec<&'g Module>,
        next: usize,
        found: Vec<Vec<Module>>,
    }
    impl<'g> Tarjan<'g> {
        fn visit(&mut self, m: &'g Module) {
            self.index.insert(m, (self.next, self.next));
            self.next += 1;
            self.stack.push(m);
            for d in self.graph.get(m).into_iter().flatten() {
                match self.index.get(d).copied() {
                    None => {
                        self.visit(d);
                        let low = self.index[d].1.min(self.index[m].1);
                        self.index.entry(m).and_modify(|e| e.1 = low);
                    }
                    Some((di, _)) if self.stack.contains(&d) => {
                        let low = di.min(self.index[m].1);
                        self.index.entry(m).and_modify(|e| e.1 = low);
                    }
                    Some(_) => {}
                }
            }
            let (i, low) = self.index[m];
            if i == low {
                let at = self.stack.iter().rposition(|s| *s == m).unwrap_or(0);
                let group: Vec<Module> = self.stack.drain(at..).cloned().collect();
                if group.len() > 1 {
                    self.found.push(group);
                }
            }
        }
    }
    let mut t = Tarjan {
        graph,
        index: BTreeMap::new(),
        stack: vec![],
        next: 0,
        found: vec![],
    };
    for m in graph.keys() {
        if !t.index.contains_key(m) {
            t.visit(m);
        }
    }
    t.found
}

#[test]
fn no_file_imports_itself_through_others() {
    let graph = import_graph();
    assert!(graph.len() > 20, "the scan found the compiler's files");
    let found: Vec<String> = circles(&graph)
        .iter()
        .map(|c| c.iter().map(name).collect::<Vec<_>>().join(", "))
        .collect();
    assert!(found.is_empty(), "files that import each other: {found:#?}");
}

#[test]
fn the_stages_are_layered() {
    let graph = import_graph();
    let stage = |m: &Module| m.first().cloned().unwrap_or_default();
    // What each stage may not name.
    let forbidden: &[(&[&str], &[&str])] = &[
        (
            &[
                "source", "diag", "ast", "parse", "read", "types", "ir", "check", "scale",
            ],
            &["plan", "codegen"],
        ),
        (&["plan"], &["codegen"]),
    ];
    let mut wrong = vec![];
    for (m, deps) in &graph {
        for (stages, banned) in forbidden {
            if !stages.contains(&stage(m).as_str()) {
                continue;
            }
            for d in deps {
                if banned.contains(&stage(d).as_str()) {
                    wrong.push(format!("{} names {}", name(m), name(d)));
                }
            }
        }
    }
    assert!(wrong.is_empty(), "stage layering broken: {wrong:#?}");
}

#[test]
fn the_scan_sees_imports() {
    // The scanner itself: a circle written here is found.
    let code = code_of("use super::{a, b::c};\nuse crate::x::y; // crate::z\nfn f() { w::g() }\n");
    let roots: BTreeSet<String> = ["crate", "super", "w"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let found = paths(&code, &roots);
    let shown: Vec<String> = found.iter().map(|p| p.join("::")).collect();
    assert_eq!(shown, ["super::a", "super::b::c", "crate::x::y", "w::g"]);
    let mut graph = BTreeMap::new();
    let (a, b): (Module, Module) = (vec!["a".into()], vec!["b".into()]);
    graph.insert(a.clone(), BTreeSet::from([b.clone()]));
    graph.insert(b.clone(), BTreeSet::from([a.clone()]));
    assert_eq!(circles(&graph).len(), 1);
}

/// The longest functions of the compiler, as (lines, file, name): a
/// function's lines run from its `fn` to its closing brace.
fn function_lengths() -> Vec<(usize, String, String)> {
    let src = src_dir();
    let mut files = vec![];
    rust_files(&src, &mut files);
    let mut out = vec![];
    for file in files {
        let code = code_of(&std::fs::read_to_string(&file).expect("readable source"));
        let b = code.as_bytes();
        let mut i = 0;
        while let Some(at) = code[i..].find("fn ") {
            let start = i + at;
            i = start + 3;
            if start > 0 && (b[start - 1].is_ascii_alphanumeric() || b[start - 1] == b'_') {
                continue;
            }
            let name: String = code[i..].chars().take_while(|c| is_ident(*c)).collect();
            if name.is_empty() {
                continue; // a `fn(..)` pointer type
            }
            let (Some(open), semi) = (code[i..].find('{'), code[i..].find(';')) else {
                continue;
            };
            if semi.is_some_and(|s| s < open) {
                continue; // a declaration without a body
            }
            let mut depth = 0usize;
            let mut end = i + open;
            for (k, c) in code[i + open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            end = i + open + k;
                            break;
                        }
                    }
                    _ => {}
                }
            }
            let lines = code[start..=end].matches('\n').count() + 1;
            let shown = file
                .strip_prefix(&src)
                .unwrap_or(&file)
                .display()
                .to_string();
            out.push((lines, shown, name));
        }
    }
    out.sort_by(|a, b| b.cmp(a));
    out
}

#[test]
fn no_compiler_function_reaches_100_lines() {
    let lengths = function_lengths();
    assert!(
        lengths.len() > 300,
        "the scan found the compiler's functions"
    );
    let long: Vec<String> = lengths
        .iter()
        .filter(|(n, _, _)| *n >= 100)
        .map(|(n, f, name)| format!("{f}: `{name}` has {n} lines"))
        .collect();
    assert!(
        long.is_empty(),
        "split these into functions with one job each: {long:#?}"
    );
}
