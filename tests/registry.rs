//! The registry (`ot::registry`, read from each `.otp`'s `about` block)
//! against the documents that restate it: `SECURITY.md`'s threat-model
//! table (each shipped file in exactly one row, whose label is the file's
//! `security` word for word) and `README.md`'s protocol table (every module
//! named, directly or through a glob such as `*_chosen`), plus the shape of
//! every entry. Each failure says what to change; all failures of a test
//! are reported together.

use ot::registry::{About, PROTOCOLS};
use std::path::Path;

/// A file of the workspace root, read whole.
fn read(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

/// The module (file stem) of a registry entry: `kos` for `kos.otp`.
fn module(a: &About) -> &'static str {
    let file = a.file_name();
    file.strip_suffix(".otp").unwrap_or(file)
}

/// The backticked tokens of a table cell (`` `kos.otp`, `iknp_setup` `` ->
/// `kos.otp`, `iknp_setup`).
fn backticked(cell: &str) -> Vec<&str> {
    cell.split('`').skip(1).step_by(2).collect()
}

/// The cells of a markdown table row, trimmed (`| a | b |` -> `a`, `b`).
fn cells(row: &str) -> Vec<&str> {
    let row = row.trim();
    let row = row.strip_prefix('|').unwrap_or(row);
    let row = row.strip_suffix('|').unwrap_or(row);
    row.split('|').map(str::trim).collect()
}

/// Whether `name` matches `glob`, whose `*` stands for any run of
/// characters (`*_chosen`, `minimac_*`).
fn glob_matches(glob: &str, name: &str) -> bool {
    let mut parts = glob.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = name.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty(); // no `*`: the whole name
    };
    for part in middle {
        match rest.find(part) {
            Some(i) => rest = &rest[i + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}

/// Panics with every problem found, one per line.
fn report(what: &str, problems: Vec<String>) {
    assert!(
        problems.is_empty(),
        "{what}: {} problem(s):\n- {}",
        problems.len(),
        problems.join("\n- ")
    );
}

/// One row of `SECURITY.md`'s threat-model table: the line number, the
/// `x.otp` files its first cell names, and its label.
struct SecurityRow {
    line: usize,
    files: Vec<String>,
    label: String,
}

/// The rows of the table under `## Threat model per protocol` (the lines
/// starting with ``| ` `` up to the next heading).
fn security_rows(text: &str) -> Vec<SecurityRow> {
    let heading = "## Threat model per protocol";
    let mut lines = text.lines().enumerate();
    assert!(
        lines.by_ref().any(|(_, l)| l.trim() == heading),
        "SECURITY.md has no heading `{heading}`: the registry test reads its table under it"
    );
    let rows: Vec<SecurityRow> = lines
        .take_while(|(_, l)| !l.starts_with('#'))
        .filter(|(_, l)| l.starts_with("| `"))
        .map(|(i, l)| {
            let c = cells(l);
            SecurityRow {
                line: i + 1,
                files: backticked(c[0])
                    .into_iter()
                    .filter(|t| t.ends_with(".otp"))
                    .map(str::to_string)
                    .collect(),
                label: c.get(1).map_or("", |s| s).to_string(),
            }
        })
        .collect();
    assert!(
        !rows.is_empty(),
        "SECURITY.md has no table rows (lines starting with \"| `\") under `{heading}`"
    );
    rows
}

#[test]
fn security_md_states_every_label_once_and_word_for_word() {
    let rows = security_rows(&read("SECURITY.md"));
    let mut problems = vec![];
    for a in PROTOCOLS {
        let file = a.file_name();
        let naming: Vec<&SecurityRow> = rows
            .iter()
            .filter(|r| r.files.iter().any(|f| f == file))
            .collect();
        match naming.as_slice() {
            [] => problems.push(format!(
                "SECURITY.md has no row naming `{file}`: add one (or add `{file}` to the first \
                 cell of a row) with label `{}` (its about block's security, {})",
                a.security, a.location
            )),
            [row] if row.label != a.security => problems.push(format!(
                "SECURITY.md line {}: the label of `{file}` is `{}`, but its about block ({}) \
                 says `{}`: make them the same, word for word (fix the row, or the `security` \
                 of the about block and every file of that row)",
                row.line, row.label, a.location, a.security
            )),
            [_] => {}
            more => problems.push(format!(
                "SECURITY.md names `{file}` in {} rows (lines {}): keep it in the one whose \
                 label is `{}`",
                more.len(),
                more.iter()
                    .map(|r| r.line.to_string())
                    .collect::<Vec<_>>()
                    .join(", "),
                a.security
            )),
        }
    }
    for row in &rows {
        for f in &row.files {
            if !PROTOCOLS.iter().any(|a| a.file_name() == f) {
                problems.push(format!(
                    "SECURITY.md line {}: `{f}` is not a shipped protocol (no protocols/{f} in \
                     ot::registry::PROTOCOLS): fix the name or remove it from the row",
                    row.line
                ));
            }
        }
    }
    report(
        "SECURITY.md's threat-model table against ot::registry",
        problems,
    );
}

/// The facade's exports that `README.md`'s protocol table names beside the
/// modules.
const README_TYPES: &[&str] = &["FerretSender", "FerretReceiver"];

#[test]
fn readme_table_covers_every_module() {
    let readme = read("README.md");
    let header = "| module (`ot::…`) | security | paper, figure |";
    let mut lines = readme.lines().enumerate();
    assert!(
        lines.by_ref().any(|(_, l)| l.trim() == header),
        "README.md has no protocol table with header `{header}`: the registry test reads its \
         first column"
    );
    let rows: Vec<(usize, Vec<&str>)> = lines
        .take_while(|(_, l)| l.starts_with('|'))
        .filter(|(_, l)| !l.starts_with("|---"))
        .map(|(i, l)| (i + 1, backticked(cells(l)[0])))
        .collect();
    let mut problems = vec![];
    for a in PROTOCOLS {
        let m = module(a);
        let covered = rows.iter().flat_map(|(_, toks)| toks).any(|t| {
            if t.contains('*') {
                glob_matches(t, m)
            } else {
                *t == m
            }
        });
        if !covered {
            problems.push(format!(
                "README.md's protocol table does not mention `{m}` ({}, family `{}`, security \
                 `{}`): add `{m}` to the first column of a row of that family, or to a glob there \
                 (`*_chosen`)",
                a.location, a.family, a.security
            ));
        }
    }
    for (line, toks) in &rows {
        for t in toks.iter().filter(|t| !t.contains('*')) {
            let known = PROTOCOLS.iter().any(|a| module(a) == *t) || README_TYPES.contains(t);
            if !known {
                problems.push(format!(
                    "README.md line {line}: `{t}` is neither a module of ot::registry nor one of \
                     the facade's types {README_TYPES:?}: fix the name or remove it"
                ));
            }
        }
        for t in toks.iter().filter(|t| t.contains('*')) {
            if !PROTOCOLS.iter().any(|a| glob_matches(t, module(a))) {
                problems.push(format!(
                    "README.md line {line}: the glob `{t}` matches no module of ot::registry: \
                     fix it or remove it"
                ));
            }
        }
    }
    report("README.md's protocol table against ot::registry", problems);
}

#[test]
fn every_entry_is_well_formed_and_names_its_file() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("protocols");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("protocols/ is readable")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".otp") && n != "prelude.otp")
        .collect();
    files.sort();
    let registered: Vec<&str> = PROTOCOLS.iter().map(|a| a.file_name()).collect();
    assert_eq!(
        registered, files,
        "ot::registry::PROTOCOLS must list protocols/*.otp (prelude.otp excepted), one entry \
         per file in file-name order: rebuild `ot` after adding or renaming a file"
    );
    let mut problems = vec![];
    for a in PROTOCOLS {
        let file = a.file_name();
        if a.malicious() && a.proof.trim().is_empty() {
            problems.push(format!(
                "{}: `{}` is labelled `{}` without a proof: add `proof = \"...\";` to its about \
                 block (the published proof of its check)",
                a.location, a.name, a.security
            ));
        }
        if !a.summary.trim_end().ends_with('.') {
            problems.push(format!(
                "{}: the summary of `{}` does not end with a period: `{}`",
                a.location, a.name, a.summary
            ));
        }
        for (key, text) in [("family", a.family), ("security", a.security)] {
            if text.trim().is_empty() {
                problems.push(format!("{}: `{key}` of `{}` is empty", a.location, a.name));
            }
        }
        match a.location.strip_prefix("protocols/") {
            None => problems.push(format!(
                "`{}`'s location `{}` is not under protocols/",
                a.name, a.location
            )),
            Some(rest) => match rest.rsplit_once(':') {
                Some((f, line)) if f == file && line.parse::<usize>().is_ok() => {
                    let source = std::fs::read_to_string(dir.join(f)).unwrap_or_default();
                    let at = line.parse::<usize>().unwrap_or(0);
                    let declared = source.lines().nth(at.saturating_sub(1)).unwrap_or("");
                    if !declared.contains(&format!("protocol {}", a.name)) {
                        problems.push(format!(
                            "{}: line {at} of {f} does not declare `protocol {}` (it reads `{}`)",
                            a.location,
                            a.name,
                            declared.trim()
                        ));
                    }
                }
                _ => problems.push(format!(
                    "`{}`'s location `{}` is not `protocols/{file}:LINE`",
                    a.name, a.location
                )),
            },
        }
    }
    report("the entries of ot::registry::PROTOCOLS", problems);
    // The modules are the files' stems, and `find` reaches each by both names.
    for a in PROTOCOLS {
        assert_eq!(
            ot::registry::find(module(a)),
            Some(*a),
            "find({:?})",
            module(a)
        );
        assert_eq!(ot::registry::find(a.name), Some(*a), "find({:?})", a.name);
    }
    assert_eq!(ot::kos::ABOUT.file_name(), "kos.otp");
    assert_eq!(ot::orlandi_open::ABOUT.file_name(), "orlandi_open.otp");
    assert_eq!(
        ot::ferret_extend_malicious::ABOUT.file_name(),
        "ferret_extend_malicious.otp"
    );
}

#[test]
fn globs_match_as_the_readme_means_them() {
    assert!(glob_matches("*_chosen", "kos_chosen"));
    assert!(glob_matches("*_rot", "quiet_gar_rot"));
    assert!(glob_matches("minimac_*", "minimac_aes"));
    assert!(!glob_matches("*_chosen", "kos"));
    assert!(!glob_matches("minimac_*", "orlandi_open"));
    assert!(glob_matches("kos", "kos") && !glob_matches("kos", "kos_extend"));
}
