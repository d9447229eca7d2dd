//! Prints the Rust code generated for a `.otp` file (or its diagnostics).
//! Usage: `cargo run -p ot-compiler --example expand -- protocols/co15.otp`
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: expand FILE.otp");
        std::process::exit(2);
    };
    let cwd = std::env::current_dir().unwrap_or_default();
    match ot_compiler::compile_path(&path, &cwd) {
        Ok(c) => {
            for w in &c.warnings {
                eprintln!("{}", w.render(&c.sources));
            }
            println!("{}", c.tokens);
        }
        Err(f) => {
            eprintln!("{}", f.render());
            std::process::exit(2);
        }
    }
}
