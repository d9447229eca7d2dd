//! `otp deal minimac_aes`: the trusted dealer of MiniMac oblivious AES
//! writes one preprocessing file per party (`ot::runtime::minimac::prep`),
//! for `otp run minimac_aes --prep FILE` on each party's machine.
//!
//! The dealer sees the MAC key and every share: whoever runs it must be
//! trusted by all parties, and each file must reach its party over a
//! private, authenticated channel (it is as secret as the party's shares).

use crate::Fail;
use ot::files::PartyPrepFile;
use ot::oblivious_aes::{counts, groups};
use ot::runtime::minimac::floor::{check_code, STAT_SEC};
use ot::runtime::minimac::prep::{deal_with, PrepParams, ShareMode};
use ot::runtime::primitives::rng::Rng;
use rand_core::RngCore;
use std::path::Path;
use std::time::Instant;

/// The protocols `otp deal` makes preprocessing for.
const DEALT: &str = "minimac_aes";

/// What `otp deal` was asked.
#[derive(clap::Args)]
pub struct Opts {
    /// The protocol to deal for: minimac_aes.
    pub protocol: String,
    /// Number of parties (at least 2).
    #[arg(long, value_name = "N")]
    pub parties: usize,
    /// Blocks the files cover: ⌈B / k⌉ groups of k blocks; a run of b
    /// blocks uses ⌈b / k⌉ groups, so several runs can share the files.
    #[arg(long, value_name = "B")]
    pub blocks: usize,
    /// Directory to write the files to (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: std::path::PathBuf,
    /// Slots per MiniMac value (blocks per group); the code is RS[3k, k],
    /// whose Schur square has distance k + 2: a forged opening passes with
    /// probability at most 2^-(7(k + 2)), so k must meet --sec (k >= 4 at
    /// 40 bits).
    #[arg(long, default_value_t = 32, value_name = "K")]
    pub k: usize,
    /// Statistical security in bits (at least 40): the smallest k follows
    /// from 7(k + 2) >= SEC.
    #[arg(long, default_value_t = STAT_SEC, value_name = "SEC")]
    pub sec: usize,
    /// Seed-expanded shares: every party but the last gets a 128-bit seed
    /// its shares are expanded from (files of a few hundred bytes), the
    /// last party explicit shares.
    #[arg(long)]
    pub seeded: bool,
}

/// Runs the dealer and writes the files.
pub fn run(o: &Opts) -> Result<(), Fail> {
    if o.protocol != DEALT {
        return Err(Fail(format!(
            "`otp deal` makes preprocessing for {DEALT}, not `{}`",
            o.protocol
        )));
    }
    if o.parties < 2 || o.parties > u16::MAX as usize {
        return Err(Fail(format!(
            "--parties {}: at least 2 (and at most {})",
            o.parties,
            u16::MAX
        )));
    }
    if o.blocks == 0 {
        return Err(Fail("--blocks must be at least 1".into()));
    }
    // RS[3k, k] over GF(2^8) needs 3k <= 256 points.
    if !(1..=85).contains(&o.k) {
        return Err(Fail(format!(
            "--k {}: 1 to 85 (the code RS[3k, k] has at most 256 coordinates)",
            o.k
        )));
    }
    if o.sec < STAT_SEC {
        return Err(Fail(format!(
            "--sec {}: at least {STAT_SEC} bits (a forged opening may pass with probability 2^-SEC)",
            o.sec
        )));
    }
    check_code(o.k, 3 * o.k, o.sec).map_err(|e| Fail(format!("--k {}: {e}", o.k)))?;
    let params = PrepParams {
        parties: o.parties,
        k: o.k,
        n: 3 * o.k,
    };
    let g = groups(o.blocks, o.k);
    let mode = if o.seeded {
        ShareMode::Seeded
    } else {
        ShareMode::Explicit
    };
    create_dir(&o.out)?;
    let mut rng = Rng::from_entropy();
    let batch = rng.next_u64();
    let start = Instant::now();
    let preps = deal_with(params, batch, counts(g), mode, &mut rng)
        .map_err(|e| Fail(format!("dealing: {e}")))?;
    let mut files = vec![];
    for p in &preps {
        let path = p.write_to(&o.out).map_err(|e| Fail(e.to_string()))?;
        private(&path)?;
        let bytes = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        files.push((path, bytes));
    }
    println!(
        "{DEALT} preprocessing for {} parties: {} blocks ({g} group{} of k = {}, RS[{}, {}]), batch {batch}, {} shares; dealt and written in {:.3} s",
        o.parties,
        g * o.k,
        crate::check::plural(g),
        o.k,
        params.n,
        params.k,
        if o.seeded { "seed-expanded" } else { "explicit" },
        start.elapsed().as_secs_f64()
    );
    for (i, (path, bytes)) in files.iter().enumerate() {
        println!("party {i}: {} ({bytes} bytes)", path.display());
    }
    println!(
        "the dealer knows every share and the MAC key: send each file to its party only, over a private channel, and delete these copies"
    );
    Ok(())
}

/// Makes `path` readable and writable by its owner only (Unix).
fn private(path: &Path) -> Result<(), Fail> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
            .map_err(|e| Fail(format!("{}: {e}", path.display())))?;
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

/// Creates `dir` (and its parents) if missing.
fn create_dir(dir: &Path) -> Result<(), Fail> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Fail(format!("cannot create --out `{}`: {e}", dir.display())))
}
