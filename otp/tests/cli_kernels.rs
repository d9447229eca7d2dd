//! `otp check` verifies intrinsic paths into the runtime without rustc:
//! the path must name a function of `ot-runtime` (through its modules and
//! re-exports) taking the arguments the generated code passes. Every
//! shipped protocol passes; a misspelt path, a wrong number of parameters
//! (plain or `chunked`) and a method declared without its receiver are
//! located errors with exit code 2; paths outside the runtime are left to
//! rustc.

mod common_cli;
use common_cli::{otp, temp_otp};

/// A protocol with `decls` (intrinsic declarations) before it.
fn with_decls(decls: &str) -> String {
    format!(
        "{decls}\nprotocol W(role A, role B) {{\n    output B {{ z: Block }}\n    at A {{ x = sample Block; }}\n    round r: A -> B : M {{ x: Block }}\n    at B {{ z = x; }}\n}}\n"
    )
}

/// `otp check` of a throw-away file: (exit code, stdout, stderr).
fn check(name: &str, decls: &str) -> (i32, String, String) {
    let (dir, file) = temp_otp(name, &with_decls(decls));
    let out = otp(&["check", &file]);
    let _ = std::fs::remove_dir_all(dir);
    out
}

#[test]
fn every_shipped_protocol_passes_the_runtime_path_check() {
    let dir = std::path::Path::new(common_cli::WORKSPACE_ROOT).join("protocols");
    let mut files: Vec<String> = std::fs::read_dir(&dir)
        .expect("protocols/")
        .filter_map(|e| e.ok())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".otp") && n != "prelude.otp")
        .map(|n| format!("protocols/{n}"))
        .collect();
    files.sort();
    assert!(files.len() > 40, "{files:?}");
    // The examples and test protocols too (`crate::` paths are not checked).
    files.push("examples/coin_flip.otp".into());
    let mut args = vec!["check"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = otp(&args);
    assert_eq!(code, 0, "{err}");
    assert_eq!(out.matches(" checks (").count(), files.len(), "{out}");
    assert!(!err.contains("of the runtime"), "{err}");
    assert!(!err.contains("argument"), "{err}");
}

#[test]
fn a_misspelt_runtime_path_is_a_located_error_with_a_suggestion() {
    let (code, out, err) = check(
        "misspelt",
        "intrinsic my_mul(a: Block, b: Block) -> Block = ::ot::runtime::otext::gf_mlu;",
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.contains("misspelt.otp: 1 error"), "{out}");
    assert!(
        err.contains("error: `::ot::runtime::otext::gf_mlu` is not a function of the runtime"),
        "{err}"
    );
    // At the path: line 1, column 49, the whole path underlined.
    assert!(err.contains("misspelt.otp:1:49"), "{err}");
    let path = "::ot::runtime::otext::gf_mlu";
    assert!(
        err.contains(&format!("{}{}\n", " ".repeat(48), "^".repeat(path.len()))),
        "{err}"
    );
    assert!(
        err.contains("= help: did you mean `::ot::runtime::otext::gf_mul`?"),
        "{err}"
    );

    // A function defined in `psi/cuckoo.rs`, re-exported by `psi/mod.rs`.
    let (code, _, err) = check(
        "reexported",
        "intrinsic table(set: [Block; N], seed: Block, bins: usize) -> Block = ::ot::runtime::psi::cuckoo_tabel;",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("help: did you mean `::ot::runtime::psi::cuckoo_table`?"),
        "{err}"
    );

    // The same name in another module; the prefix as written.
    let (code, _, err) = check(
        "elsewhere",
        "intrinsic my_mul(a: Block, b: Block) -> Block = ot::runtime::primitives::gf_mul;",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("help: did you mean `ot::runtime::otext::gf_mul`?"),
        "{err}"
    );

    // Re-exports and associated functions resolve.
    let (code, _, err) = check(
        "reexport",
        "intrinsic tweaks(a: Block, b: usize, c: usize) -> Block = ::ot::runtime::HashTweaks::new;\nintrinsic code(b: Block) -> Block = ::ot::runtime::oprf::code::PrCode::from_session;",
    );
    assert_eq!(code, 0, "{err}");
}

#[test]
fn a_wrong_number_of_parameters_is_an_error() {
    let (code, out, err) = check(
        "arity",
        "intrinsic my_mul(a: Block) -> Block = ::ot::runtime::otext::gf_mul;",
    );
    assert_eq!(code, 2, "{err}");
    assert!(out.contains("arity.otp: 1 error"), "{out}");
    assert!(
        err.contains(
            "error: `::ot::runtime::otext::gf_mul` takes 2 arguments, the declaration passes 1\n"
        ),
        "{err}"
    );
    assert!(err.contains("arity.otp:1:39"), "{err}");
    assert!(err.contains("= help:"), "{err}");

    // `chunked`: the parameters, then the span and the output.
    let (code, _, err) = check(
        "chunked",
        "intrinsic rows(seeds: [PrgKey; K], cols: usize) -> BitMatrix[K, cols] = ::ot::runtime::otext::stream::prg_rows chunked;",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("error: `::ot::runtime::otext::stream::prg_rows` takes 5 arguments, the declaration passes 4 (chunked: 2 parameters + span and out)"),
        "{err}"
    );

    // A streamed kernel declared without `chunked`.
    let (code, _, err) = check(
        "unchunked",
        "intrinsic rows(seeds: [PrgKey; K], cols: usize, threads: usize) -> BitMatrix[K, cols] = ::ot::runtime::otext::stream::prg_rows;",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("takes 5 arguments, the declaration passes 3"),
        "{err}"
    );
    assert!(err.contains("is declared `chunked`"), "{err}");
}

#[test]
fn a_method_needs_its_receiver_as_the_first_parameter() {
    // The method takes `self` and one more: declared with one parameter,
    // the call would pass the messages as the receiver.
    let (code, _, err) = check(
        "method",
        "intrinsic in_range(messages: [Block; N]) -> Bit = ::ot::runtime::oprf::code::LinearCode::messages_in_range;",
    );
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains(
            "error: `::ot::runtime::oprf::code::LinearCode::messages_in_range` takes `self`"
        ),
        "{err}"
    );
    assert!(
        err.contains("the declaration passes 1 argument where the method takes `self` and 1 more"),
        "{err}"
    );
    assert!(err.contains("method.otp:1:51"), "{err}");
}

#[test]
fn paths_outside_the_runtime_are_not_checked() {
    let (code, out, err) = check(
        "outside",
        "intrinsic f(a: Block) -> Block = ::my_crate::f;\nintrinsic g(a: Block) -> Block = crate::g;",
    );
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("checks"), "{out}");
}
