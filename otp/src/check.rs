//! `otp check`: errors and warnings for each file, and the exit code
//! (0 clean, 1 warnings under `--deny-warnings`, 2 errors). The errors
//! include intrinsic paths into the runtime that name no function of it or
//! take another number of arguments ([`crate::kernel_check`]). By default it
//! runs what `protocol!` runs, the checks and the code generation, so the
//! time and memory it takes are the macro's; `--no-codegen` stops after the
//! checks (the same diagnostics: code generation reports none).

use crate::kernel_check;
use crate::load::{emit, try_check, try_compile};
use crate::Color;
use std::path::PathBuf;
use std::process::ExitCode;

/// Checks every file (all of them, even after an error) and returns the
/// exit code; with `codegen`, also generates each file's code as
/// `protocol!` does.
pub fn run(files: &[PathBuf], deny_warnings: bool, codegen: bool, color: Color) -> ExitCode {
    let (mut errors, mut warnings) = (0usize, 0usize);
    let stage = if codegen { try_compile } else { try_check };
    for file in files {
        let shown = file.display();
        match stage(file, color) {
            Err(fail) => {
                eprintln!("otp: {}", fail.0);
                errors += 1;
            }
            Ok(Err(n)) => {
                println!("{shown}: {n} error{}", plural(n));
                errors += n;
            }
            Ok(Ok(c)) => {
                let mut wrong = kernel_check::check(&c.intrinsics);
                let n = wrong.len();
                if n > 0 {
                    // The errors and the warnings, in source order.
                    wrong.extend(c.warnings.iter().cloned());
                    wrong.sort_by_key(|d| (d.span.file, d.span.start));
                    emit(&wrong, &c.sources, color);
                    println!("{shown}: {n} error{}", plural(n));
                    errors += n;
                    warnings += c.warnings.len();
                    continue;
                }
                emit(&c.warnings, &c.sources, color);
                let n = c.warnings.len();
                warnings += n;
                let name = c.ir.as_ref().map(|i| i.name.as_str()).unwrap_or("?");
                println!(
                    "{shown}: protocol `{name}` checks ({n} warning{})",
                    plural(n)
                );
            }
        }
    }
    if errors > 0 {
        ExitCode::from(2)
    } else if deny_warnings && warnings > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// `"s"` unless exactly one.
pub fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
