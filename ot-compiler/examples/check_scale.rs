//! Scale benchmark of the `.otp` front end (parse, check, code generation:
//! exactly what `protocol!` runs at every build).
//!
//! Generates a file of many rounds and a file with one block of many
//! statements, compiles each in a fresh child process and prints the time
//! and the peak resident memory (`VmHWM`), then the time of compiling every
//! shipped `protocols/*.otp`.
//!
//! Also a flat operator chain of TERMS terms of each kind (`x ^ x ^ ...`,
//! `k + k + ...`) and an expression nested 256 parentheses deep.
//!
//! Usage: `cargo run --release -p ot-compiler --example check_scale [-- ROUNDS STMTS [TERMS]]`
//! (defaults 50000, 16000 and 20000), from the workspace root.
use std::path::Path;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() == 5 && args[1] == "--one" {
        // Child: check (or compile) one generated file and report.
        let (kind, n) = (args[2].as_str(), args[3].parse().unwrap_or(1000));
        return one(kind, n, args[4] == "codegen");
    }
    let rounds: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(50_000);
    let stmts: usize = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(16_000);
    let terms: usize = args.get(3).and_then(|a| a.parse().ok()).unwrap_or(20_000);
    let me = std::env::current_exe().expect("own path");
    // Checking (what `otp check` does), then the whole front end of
    // `protocol!` (check and code generation). The generated Rust is about
    // 4.6 KiB per round, so code generation is measured on 5000 rounds.
    let runs = [
        ("rounds", rounds, "check"),
        ("block", stmts, "check"),
        ("rounds", rounds.min(5000), "codegen"),
        ("block", stmts, "codegen"),
        ("chain", terms, "check"),
        ("chain", terms, "codegen"),
        ("nested", 256, "codegen"),
    ];
    for (kind, n, mode) in runs {
        let status = std::process::Command::new(&me)
            .args(["--one", kind, &n.to_string(), mode])
            .status()
            .expect("child runs");
        if !status.success() {
            println!("{kind} {n}: child failed ({status})");
        }
    }
    let mut files: Vec<_> = std::fs::read_dir("protocols")
        .map(|d| d.filter_map(|e| e.ok()).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let cwd = std::env::current_dir().unwrap_or_default();
    let mut total = 0.0;
    for f in files
        .iter()
        .filter(|f| f.extension().is_some_and(|e| e == "otp"))
    {
        let rel = f.display().to_string();
        let t = Instant::now();
        let ok = ot_compiler::compile_path(&rel, &cwd).is_ok();
        let ms = t.elapsed().as_secs_f64() * 1e3;
        total += ms;
        println!(
            "protocol! {rel:<32} {ms:8.2} ms{}",
            if ok { "" } else { " (not a protocol file)" }
        );
    }
    println!("protocol! all shipped files        {total:8.2} ms");
}

/// Checks (with `codegen`: compiles) one generated file of `n` rounds or
/// `n` statements and prints its size, the time and the peak memory of
/// this process.
fn one(kind: &str, n: usize, codegen: bool) {
    let text = match kind {
        "rounds" => ot_compiler::scale::many_rounds(n),
        "chain" => ot_compiler::scale::long_chain(n),
        "nested" => ot_compiler::scale::deep_parens(n),
        _ => ot_compiler::scale::long_block(n),
    };
    let dir = std::env::temp_dir().join(format!("otp-scale-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let name = format!("{kind}_{n}.otp");
    let _ = std::fs::write(dir.join(&name), &text);
    let t = Instant::now();
    let r = match codegen {
        true => ot_compiler::compile_path(&name, &dir),
        false => ot_compiler::check_path(&name, &dir),
    };
    let secs = t.elapsed().as_secs_f64();
    let _ = std::fs::remove_dir_all(&dir);
    let outcome = match &r {
        Ok(c) if codegen => format!("{} KiB of Rust", c.tokens.to_string().len() / 1024),
        Ok(c) => format!("ok, {} warnings", c.warnings.len()),
        Err(f) => format!(
            "{} errors: {}",
            f.errors.len(),
            f.render().lines().next().unwrap_or("")
        ),
    };
    println!(
        "{:<8} {kind:>6} n={n:<6} {:>6} KiB  {secs:7.3} s  peak {:>5} MiB  ({outcome})",
        if codegen { "protocol!" } else { "check" },
        text.len() / 1024,
        peak_mib(),
    );
}

/// Peak resident set size of this process (Linux `VmHWM`), in MiB.
fn peak_mib() -> u64 {
    let status = std::fs::read_to_string(Path::new("/proc/self/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb / 1024)
        .unwrap_or(0)
}
