//! The `.otp` compiler: parses protocol specifications (pest grammar in
//! `otp.pest`), checks them (names, types, shapes, knowledge, projection,
//! sub-protocol role mapping) and generates typed Rust code.
//!
//! Shared by the `protocol!` macro (`ot-macros`) and the `otp` CLI. Nothing
//! in here panics on bad input: every problem is a located [`Diagnostic`].
#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod ast;
pub mod case;
pub mod check;
pub mod codegen;
pub mod diag;
pub mod ir;
pub mod parse;
pub mod plan;
pub mod read;
pub mod scale;
pub mod source;
pub mod types;

use diag::Diagnostic;
use proc_macro2::TokenStream;
use source::{SourceMap, Span};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The standard prelude: intrinsic signatures and functionality interfaces.
pub const PRELUDE: &str = include_str!("../../protocols/prelude.otp");

/// The result of compiling one file.
pub struct Compiled {
    /// All files read, for rendering diagnostics.
    pub sources: SourceMap,
    /// Warnings (e.g. unused values); errors abort compilation instead.
    pub warnings: Vec<Diagnostic>,
    /// The checked protocol, its chunked rounds lowered by the plan.
    pub ir: Option<ir::Ir>,
    /// The plan: message layouts and the other facts computed once for
    /// code generation and the reports.
    pub plan: Option<plan::Plan>,
    /// The generated module items.
    pub tokens: TokenStream,
    /// The declaration of every intrinsic in scope, by name.
    pub intrinsic_decls: BTreeMap<String, Span>,
    /// Every intrinsic declaration in scope (the prelude's, the file's and
    /// its imports'), in source order: what `otp check` verifies against
    /// the runtime's functions.
    pub intrinsics: Vec<ast::IntrinsicDecl>,
    /// Items tied to a place of the sources, which `protocol!` appends to
    /// `tokens`: the intrinsic signature checks and the warnings as rustc
    /// warnings (see [`codegen::Located`]). Empty when only checking.
    pub located: Vec<codegen::Located>,
}

/// A failed compilation: the diagnostics and the sources to render them.
pub struct Failure {
    /// All files read.
    pub sources: SourceMap,
    /// The errors (one per problem; usually exactly one).
    pub errors: Vec<Diagnostic>,
}

impl Failure {
    /// All errors rendered as plain text.
    pub fn render(&self) -> String {
        self.errors
            .iter()
            .map(|d| d.render(&self.sources))
            .collect::<Vec<_>>()
            .join("\n")
    }
}

struct Loaded {
    sources: SourceMap,
    files: Vec<ast::File>,
    /// Index into `files` of the file that was asked for.
    main: usize,
    /// Syntax errors of the files (each file still contributes the items
    /// that parsed).
    errors: Vec<Diagnostic>,
}

/// One file to load: display name, absolute path, text, and the chain of
/// imports that led to it (absolute path and display name of each file,
/// from the file asked for down to this one).
type Pending = (String, Option<PathBuf>, String, Vec<(PathBuf, String)>);

fn load(
    main_name: String,
    main_abs: Option<PathBuf>,
    main_bytes: Vec<u8>,
) -> Result<Loaded, Failure> {
    let mut sources = SourceMap::default();
    let mut files = vec![];
    let prelude_id = sources.add("protocols/prelude.otp".into(), None, PRELUDE.to_string());
    let failed = |sources: SourceMap, d: Diagnostic| Failure {
        sources,
        errors: vec![d],
    };
    match parse::parse_file(PRELUDE, prelude_id) {
        Ok(f) => files.push(f),
        Err(e) => return Err(failed(sources, e)),
    }
    let main_text = match read::decode(main_bytes, &main_name, main_abs.as_deref(), &mut sources) {
        Ok(t) => t,
        Err(d) => return Err(failed(sources, d)),
    };
    let main_key = main_abs.as_ref().map(|p| canonical(p)).unwrap_or_default();
    let mut loader = Loader {
        sources,
        queue: vec![(
            main_name.clone(),
            main_abs,
            main_text,
            vec![(main_key.clone(), main_name)],
        )],
        seen: vec![main_key],
    };
    let mut main = usize::MAX;
    let mut errors = vec![];
    while let Some((name, abs, text, chain)) = loader.queue.pop() {
        let (parsed, mut errs) = parse::parse_file_recovering(&text, loader.sources.file_count());
        errors.append(&mut errs);
        loader.sources.add(
            name.clone(),
            abs.as_ref().map(|p| p.display().to_string()),
            text,
        );
        if main == usize::MAX {
            main = files.len();
        }
        if let Err(d) = loader.queue_imports(&parsed, &name, abs.as_deref(), &chain) {
            return Err(failed(loader.sources, d));
        }
        files.push(parsed);
    }
    Ok(Loaded {
        sources: loader.sources,
        files,
        main,
        errors,
    })
}

/// The files read so far and those still to parse, while loading.
struct Loader {
    /// Every file read.
    sources: SourceMap,
    /// Files read but not parsed yet.
    queue: Vec<Pending>,
    /// The keys (see [`canonical`]) of the files read.
    seen: Vec<PathBuf>,
}

impl Loader {
    /// Reads and queues each import of `parsed` (the file `name` at `abs`,
    /// reached through `chain`) not read before: the error of an import
    /// cycle or of a file that cannot be read.
    fn queue_imports(
        &mut self,
        parsed: &ast::File,
        name: &str,
        abs: Option<&Path>,
        chain: &[(PathBuf, String)],
    ) -> Result<(), Diagnostic> {
        for (imp, span) in &parsed.imports {
            let base = abs
                .and_then(|p| p.parent().map(Path::to_path_buf))
                .unwrap_or_default();
            let path = base.join(imp);
            let key = canonical(&path);
            let shown = Path::new(name)
                .parent()
                .map(|p| p.join(imp).display().to_string())
                .unwrap_or_else(|| imp.clone());
            if let Some(pos) = chain.iter().position(|(k, _)| *k == key) {
                let names: Vec<&str> = chain[pos..].iter().map(|(_, n)| n.as_str()).collect();
                let cycle = format!("{} -> {}", names.join(" -> "), chain[pos].1);
                let d = Diagnostic::error(*span, format!("import cycle: {cycle}"))
                .with_help("a file may not import itself, directly or through other files; move what both need into a third file that imports neither");
                return Err(d);
            }
            if self.seen.contains(&key) {
                continue;
            }
            match read::read_source(&path, &shown, &mut self.sources) {
                Ok(t) => {
                    self.seen.push(key.clone());
                    let mut next = chain.to_vec();
                    next.push((key, shown.clone()));
                    self.queue.push((shown, Some(path), t, next));
                }
                Err(read::ReadError::NotUtf8(d)) => return Err(d),
                Err(read::ReadError::Io(e)) => {
                    let at = quoted(&self.sources, *span);
                    let d =
                        Diagnostic::error(at, format!("cannot read imported file `{imp}`: {e}"))
                            .with_help(read::missing_import_help(&path));
                    return Err(d);
                }
            }
        }
        Ok(())
    }
}

/// The quoted path of the `import` item at `span`.
fn quoted(sources: &SourceMap, span: Span) -> Span {
    let text = &sources.file(span.file).text;
    let item = text
        .get(span.start as usize..span.end as usize)
        .unwrap_or("");
    match (item.find('"'), item.rfind('"')) {
        (Some(a), Some(b)) if b > a => Span {
            file: span.file,
            start: span.start + a as u32,
            end: span.start + b as u32 + 1,
        },
        _ => span,
    }
}

/// The key identifying a file: its canonical path when it exists.
fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// Parses and checks what `load` read, without generating code: the IR is
/// complete (everything `otp check` reports), `tokens` stay empty.
fn check_loaded(loaded: Loaded) -> Result<Compiled, Failure> {
    let Loaded {
        sources,
        files,
        main,
        mut errors,
    } = loaded;
    let scope = declare_scope(&files, &sources, &mut errors);
    let fail = |sources: &SourceMap, errors: Vec<Diagnostic>| Failure {
        sources: sources.clone(),
        errors: check::scope::finish_errors(errors),
    };
    let Some(proto) = main_protocol(&files[main], &mut errors) else {
        return Err(fail(&sources, errors));
    };
    let (mut ir, warnings) = match check::protocol::check_protocol(proto, &scope, &sources) {
        Ok(done) if errors.is_empty() => done,
        Ok(_) => return Err(fail(&sources, errors)),
        Err(mut errs) => {
            errors.append(&mut errs);
            return Err(fail(&sources, errors));
        }
    };
    // What `Compiled` keeps of the declarations; then the syntax trees go
    // before the plan, so that the two never peak together (memory linear
    // in the file, issue 35 item 4).
    let intrinsic_decls = scope
        .intrinsics
        .iter()
        .map(|(n, i)| (n.clone(), i.name.span))
        .collect();
    let mut intrinsics: Vec<ast::IntrinsicDecl> =
        scope.intrinsics.values().map(|i| (*i).clone()).collect();
    intrinsics.sort_by_key(|i| (i.span.file, i.span.start));
    drop(scope);
    drop(files);
    let plan = match plan::plan(&mut ir) {
        Ok(plan) => plan,
        Err(d) => {
            errors.push(d.with_context(format!("in protocol `{}`", ir.name)));
            return Err(fail(&sources, errors));
        }
    };
    if let Some((span, msg)) = ir.unsupported.take() {
        errors.push(
            Diagnostic::error(span, msg)
                .with_help("the protocol checks; it cannot be compiled to Rust by this version"),
        );
        return Err(fail(&sources, errors));
    }
    ir.files = sources
        .files
        .iter()
        .filter_map(|f| f.abs_path.clone())
        .collect();
    ir.spec_hash = spec_hash(&sources);
    Ok(Compiled {
        sources,
        warnings,
        ir: Some(ir),
        plan: Some(plan),
        tokens: TokenStream::new(),
        intrinsic_decls,
        intrinsics,
        located: vec![],
    })
}

/// Everything the loaded files declare, by name. Declaration errors
/// (duplicates, invalid Rust paths) are collected into `errors`: each is
/// independent of the others.
fn declare_scope<'f>(
    files: &'f [ast::File],
    sources: &SourceMap,
    errors: &mut Vec<Diagnostic>,
) -> check::scope::Scope<'f> {
    let mut scope = check::scope::Scope {
        intrinsics: BTreeMap::new(),
        extern_types: BTreeMap::new(),
        functionalities: BTreeMap::new(),
        protocols: BTreeMap::new(),
        broken: files
            .iter()
            .flat_map(|f| f.broken.iter().cloned())
            .collect(),
    };
    for f in files {
        declare_file(f, &mut scope, sources, errors);
    }
    scope
}

/// Adds the declarations of file `f` to `scope` (see [`declare_scope`]).
fn declare_file<'f>(
    f: &'f ast::File,
    scope: &mut check::scope::Scope<'f>,
    sources: &SourceMap,
    errors: &mut Vec<Diagnostic>,
) {
    for i in &f.intrinsics {
        if let Some(prev) = scope.intrinsics.insert(i.name.name.clone(), i) {
            let (l, _) = sources.line_col(prev.span.file, prev.span.start);
            errors.push(
                Diagnostic::error(
                    i.name.span,
                    format!(
                        "intrinsic `{}` is already declared ({}:{l})",
                        i.name.name,
                        sources.file(prev.span.file).name
                    ),
                )
                .with_help("give this one another name, or call the one declared already"),
            );
        }
        if syn::parse_str::<syn::Path>(&i.path).is_err() {
            errors.push(Diagnostic::error(
                i.span,
                format!("`{}` is not a valid Rust path", i.path),
            ));
        }
    }
    for e in &f.extern_types {
        if syn::parse_str::<syn::Path>(&e.path).is_err() {
            errors.push(Diagnostic::error(
                e.name.span,
                format!("`{}` is not a valid Rust path", e.path),
            ));
            scope.broken.insert(e.name.name.clone());
            continue;
        }
        scope.extern_types.insert(e.name.name.clone(), e);
    }
    for fu in &f.functionalities {
        scope.functionalities.insert(fu.name.name.clone(), fu);
    }
    for p in &f.protocols {
        if let Some(prev) = scope.protocols.insert(p.name.name.clone(), p) {
            let (l, _) = sources.line_col(prev.name.span.file, prev.name.span.start);
            errors.push(Diagnostic::error(
                p.name.span,
                format!(
                    "protocol `{}` is already declared ({}:{l})",
                    p.name.name,
                    sources.file(prev.name.span.file).name
                ),
            ));
        }
    }
}

/// The one protocol of the file asked for; else `None`, with the error
/// pushed onto `errors` (unless it did not parse: its syntax error says so).
fn main_protocol<'f>(
    main_file: &'f ast::File,
    errors: &mut Vec<Diagnostic>,
) -> Option<&'f ast::Protocol> {
    match main_file.protocols.as_slice() {
        [p] => Some(p),
        // The protocol did not parse: its syntax error says so.
        [] if !errors.is_empty() => None,
        [] => {
            let span = Span {
                file: MAIN_FILE,
                start: 0,
                end: 1,
            };
            errors.push(
                Diagnostic::error(span, "this file declares no protocol")
                    .with_help("add `protocol Name(role A, role B) { ... }`"),
            );
            None
        }
        [_, second, ..] => {
            errors.push(
                Diagnostic::error(
                    second.name.span,
                    "a `.otp` file compiled by `protocol!` must declare exactly one protocol",
                )
                .with_help("move it to its own file and `import` it"),
            );
            None
        }
    }
}

/// Checks, then generates the module items.
fn compile_loaded(loaded: Loaded) -> Result<Compiled, Failure> {
    let mut c = check_loaded(loaded)?;
    if let (Some(ir), Some(plan)) = (&c.ir, &c.plan) {
        c.tokens = codegen::generate(ir, plan);
        c.located = codegen::intrinsic_checks(ir, &c.intrinsic_decls, &c.sources);
        c.located
            .extend(codegen::warning_items(&c.warnings, &c.sources));
    }
    Ok(c)
}

/// SHA-256 over every source file read (prelude, the protocol, imports and
/// `extends` bases) in load order, each text prefixed by its length, so two
/// builds agree exactly when they compiled the same specification (wherever
/// the files were).
fn spec_hash(sources: &SourceMap) -> [u8; 32] {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    h.update(b"otp spec v1");
    for f in &sources.files {
        h.update((f.text.len() as u64).to_le_bytes());
        h.update(f.text.as_bytes());
    }
    h.finalize().into()
}

/// The file asked for is always the second one loaded, after the prelude.
const MAIN_FILE: source::FileId = 1;

/// Compiles a `.otp` file given by path relative to `base_dir` (the crate's
/// manifest directory for the macro).
pub fn compile_path(rel: &str, base_dir: &Path) -> Result<Compiled, Failure> {
    parse::on_compiler_stack(|| compile_loaded(load_path(rel, base_dir)?))
}

/// The `summary` of the `about` block of the protocol in a `.otp` file,
/// read without checking the file (the registry's module docs; compiling
/// the file reports its errors). `Ok(None)` if it declares no summary.
pub fn about_summary(rel: &str, base_dir: &Path) -> Result<Option<String>, Failure> {
    let loaded = parse::on_compiler_stack(|| load_path(rel, base_dir))?;
    Ok(loaded.files[loaded.main]
        .protocols
        .iter()
        .filter_map(|p| p.about.as_ref())
        .flat_map(|a| &a.entries)
        .find(|(k, _, _)| k.name == "summary")
        .map(|(_, text, _)| text.trim().to_string()))
}

/// Parses and checks a `.otp` file like [`compile_path`], without
/// generating code (`tokens` is empty): every error and warning, and the IR.
pub fn check_path(rel: &str, base_dir: &Path) -> Result<Compiled, Failure> {
    parse::on_compiler_stack(|| check_loaded(load_path(rel, base_dir)?))
}

/// Reads a `.otp` file and everything it imports.
fn load_path(rel: &str, base_dir: &Path) -> Result<Loaded, Failure> {
    let abs = base_dir.join(rel);
    let bytes = std::fs::read(&abs).map_err(|e| {
        let mut sources = SourceMap::default();
        let id = sources.add("<protocol!>".into(), None, format!("protocol!(\"{rel}\")"));
        Failure {
            sources,
            errors: vec![Diagnostic::error(
                Span {
                    file: id,
                    start: 10,
                    end: 11 + rel.len() as u32,
                },
                format!("cannot read `{rel}`: {e}"),
            )
            .with_help(format!(
                "paths are relative to the crate root; looked for {}",
                abs.display()
            ))],
        }
    })?;
    load(rel.to_string(), Some(abs), bytes)
}

/// Compiles `.otp` source text (the inline `protocol! { ... }` form).
/// Imports resolve relative to `base_dir`.
pub fn compile_str(name: &str, text: &str, base_dir: &Path) -> Result<Compiled, Failure> {
    parse::on_compiler_stack(|| compile_str_inner(name, text, base_dir))
}

fn compile_str_inner(name: &str, text: &str, base_dir: &Path) -> Result<Compiled, Failure> {
    compile_loaded(
        load(
            name.to_string(),
            Some(base_dir.join("inline.otp")),
            text.as_bytes().to_vec(),
        )
        .map(|mut l| {
            // An inline source has no file to include.
            if let Some(f) = l.sources.files.get_mut(1) {
                f.abs_path = None;
            }
            l
        })?,
    )
}
