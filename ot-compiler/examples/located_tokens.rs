//! How much the located items add to what `protocol!` generates for each
//! shipped protocol: the intrinsic signature checks and the warnings (see
//! `ot_compiler::codegen::Located`), in token trees, against the module
//! items themselves.
//!
//! Usage: `cargo run -p ot-compiler --example located_tokens`, from the
//! workspace root.
use proc_macro2::{TokenStream, TokenTree};
use std::path::Path;

/// Token trees in `t`, a group counting its two delimiters.
fn trees(t: &TokenStream) -> usize {
    t.clone()
        .into_iter()
        .map(|x| match x {
            TokenTree::Group(g) => 2 + trees(&g.stream()),
            _ => 1,
        })
        .sum()
}

fn main() {
    let root = Path::new(".");
    let mut names: Vec<String> = std::fs::read_dir(root.join("protocols"))
        .expect("run from the workspace root")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|n| n.ends_with(".otp") && n != "prelude.otp")
        .collect();
    names.sort();
    let (mut module, mut located, mut checks) = (0, 0, 0);
    for name in &names {
        let c = match ot_compiler::compile_path(&format!("protocols/{name}"), root) {
            Ok(c) => c,
            Err(f) => {
                println!("{name}: does not compile:\n{}", f.render());
                continue;
            }
        };
        let m = trees(&c.tokens);
        let l: usize = c.located.iter().map(|l| trees(&l.tokens)).sum();
        let k: usize = c
            .located
            .iter()
            .map(|l| l.tokens.to_string().matches("fn __otp_check_").count())
            .sum();
        println!("{name:34} module {m:6} tokens, located {l:5} ({k} check functions)");
        (module, located, checks) = (module + m, located + l, checks + k);
    }
    println!(
        "all {} files: module {module} tokens, located {located} (+{:.1}%), {checks} check functions",
        names.len(),
        100.0 * located as f64 / module as f64
    );
}
