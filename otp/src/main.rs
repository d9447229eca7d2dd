//! `otp`: the command-line front end of the `.otp` compiler.
//!
//! ```text
//! otp check FILE.otp...                      errors and warnings (unused values), rustc style
//! otp expand FILE.otp                        the Rust code `protocol!` generates, pretty-printed
//! otp rounds FILE.otp [--parties N]          the projected round flow of each role
//! otp cost FILE.otp --param m=2^20 [--json]  rounds, messages and bytes each way
//! otp diagram FILE.otp [-o x.svg]            a message-sequence chart (SVG or text)
//! otp bench [PROTOCOL...] [--ots 2^20]       run both roles here: OT/s, bytes/OT, ratio to AES
//! otp run PROTOCOL --role R --listen|--connect ADDR   one party across machines (TCP or TLS)
//! otp run PROTOCOL --party I --peers A,B,C   one of n parties over the TCP mesh
//! otp deal minimac_aes --parties N --blocks B --out DIR   a trusted dealer's files, one per party
//! otp protocols [--json]                     the shipped protocols: family, security label, functionality
//! ```
//! Paths are relative to the current directory. Exit codes: 0 success, 1
//! warnings under `check --deny-warnings`, 2 errors (bad input of any kind:
//! a one-line message or a located diagnostic, never a panic).
#![forbid(unsafe_code)]

mod bench;
mod check;
mod cost;
mod deal;
mod diagram;
mod expand;
mod kernel_check;
mod kernels;
mod load;
mod params;
mod protocols;
mod rounds;
mod run;
mod run_mesh;

use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;
use std::process::ExitCode;

/// Check, inspect and measure `.otp` protocol specifications.
#[derive(Parser)]
#[command(name = "otp", version, about)]
struct Cli {
    /// When to colour diagnostics (auto: only on a terminal).
    #[arg(long, value_enum, default_value_t = Color::Auto, global = true)]
    color: Color,
    #[command(subcommand)]
    cmd: Cmd,
}

/// The `--color` choices.
#[derive(Clone, Copy, ValueEnum)]
pub enum Color {
    /// Colour when standard error is a terminal.
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

#[derive(Subcommand)]
enum Cmd {
    /// Report errors and warnings (unused values), and intrinsic paths under
    /// `::ot::runtime::` that name no function of the runtime or take
    /// another number of arguments; exit 0 clean, 1 with warnings under
    /// --deny-warnings, 2 on errors. Runs what `protocol!` runs: the checks
    /// and the code generation.
    Check {
        /// The `.otp` files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Exit with code 1 when there are warnings.
        #[arg(long)]
        deny_warnings: bool,
        /// Run the checks only, not the code generation (same diagnostics;
        /// time and memory linear in the file, for very large generated
        /// specifications).
        #[arg(long)]
        no_codegen: bool,
    },
    /// Print the Rust code `protocol!` generates for the file, pretty-printed.
    Expand {
        /// The `.otp` file.
        file: PathBuf,
    },
    /// Print the projected round flow of each role.
    Rounds {
        /// The `.otp` file.
        file: PathBuf,
        /// For an n-party protocol: the number of parties of the run, which
        /// decides whether a broadcast is checked (not with 2 parties).
        #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
        parties: Option<u64>,
    },
    /// Rounds, messages and bytes each way (total and per OT) for given
    /// parameters, from the message lengths the generated `comm()` sums.
    Cost {
        /// The `.otp` file.
        file: PathBuf,
        /// A run-time parameter, `NAME=VALUE` (`m=2^20`, `m=1<<20`, `sha1=false`).
        #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
        params: Vec<String>,
        /// The parameter counting OTs, for the per-OT figures (default: `m`, then `n`).
        #[arg(long, value_name = "NAME")]
        ots: Option<String>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Draw a message-sequence chart: roles as lifelines, rounds as arrows
    /// labelled with message type and size, local computation and checks as
    /// notes, sub-protocols as boxes.
    Diagram {
        /// The `.otp` file.
        file: PathBuf,
        /// Write here; `.svg` gives SVG, anything else text (default: text on stdout).
        #[arg(short, long, value_name = "FILE")]
        output: Option<PathBuf>,
        /// Output format (default: from the output file's extension).
        #[arg(long, value_enum)]
        format: Option<diagram::Format>,
        /// Parameters for the message sizes, `NAME=VALUE` (without: sizes as formulas).
        #[arg(long = "param", short = 'p', value_name = "NAME=VALUE")]
        params: Vec<String>,
    },
    /// Run both roles of shipped random-OT protocols in this process and
    /// print time, OT/s, bytes/OT and the ratio to AES throughput (all
    /// shipped protocols when none is named).
    Bench {
        /// Protocols: co15, np00, mr19, iknp, kos, softspoken, softspoken_malicious.
        protocols: Vec<String>,
        /// OTs per run (the base OTs run at most 2^12).
        #[arg(long, default_value = "2^20")]
        ots: String,
        /// Worker threads per party for the bulk kernels.
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Over TCP loopback instead of an in-memory channel.
        #[arg(long)]
        tcp: bool,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Run one party of a shipped random-OT protocol against a peer on
    /// another machine, or one party (or the dealer) of a shipped n-party
    /// protocol in a mesh (TCP, or TLS 1.3 with --cert/--key/--peer-ca when
    /// built with feature `tls`); the parties check at the end that their
    /// outputs agree.
    Run(Box<run::Opts>),
    /// Run the trusted dealer of MiniMac oblivious AES (`minimac_aes`):
    /// one preprocessing file per party, for `otp run minimac_aes --prep`.
    /// The dealer knows every share: it must be trusted by all parties,
    /// and each file must reach its party over a private channel.
    Deal(deal::Opts),
    /// List the shipped protocols (one per file of `protocols/`, from each
    /// file's `about` block): module, protocol, family, security label (its
    /// first clause when long) and the functionality it realizes.
    Protocols {
        /// Print every field as JSON (whole labels, proof, summary,
        /// location, parties, rounds) instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// A command's failure: the one-line message is printed as `otp: ...`
/// (empty when diagnostics were already printed) and the process exits 2.
pub struct Fail(pub String);

/// `println!` panics when stdout is a pipe whose reader has gone
/// (`otp deal ... | head -1`): end quietly then, with the status a command
/// that is done writing has (0), as tools killed by the pipe's signal do
/// in effect; every other panic keeps the default report.
fn quiet_when_stdout_closes() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        if msg.starts_with("failed printing to stdout") && msg.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info)
    }));
}

fn main() -> ExitCode {
    quiet_when_stdout_closes();
    let cli = Cli::parse();
    let color = cli.color;
    let result = match cli.cmd {
        Cmd::Check {
            files,
            deny_warnings,
            no_codegen,
        } => return check::run(&files, deny_warnings, !no_codegen, color),
        Cmd::Expand { file } => expand::run(&file, color),
        Cmd::Rounds { file, parties } => {
            load::compile(&file, color).and_then(|c| rounds::print(&c, parties))
        }
        Cmd::Cost {
            file,
            params,
            ots,
            json,
        } => cost::run(&file, &params, ots.as_deref(), json, color),
        Cmd::Diagram {
            file,
            output,
            format,
            params,
        } => diagram::run(&file, output.as_deref(), format, &params, color),
        Cmd::Bench {
            protocols,
            ots,
            threads,
            tcp,
            json,
        } => bench::run(&protocols, &ots, threads, tcp, json),
        Cmd::Run(opts) => run::run(&opts),
        Cmd::Deal(opts) => deal::run(&opts),
        Cmd::Protocols { json } => protocols::run(json),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(msg)) => {
            if !msg.is_empty() {
                eprintln!("otp: {msg}");
            }
            ExitCode::from(2)
        }
    }
}
