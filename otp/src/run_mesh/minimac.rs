//! `otp run minimac_aes`: one party of MiniMac oblivious AES-128
//! ([`ot::oblivious_aes`]: `minimac_aes`, the key shares entered with its
//! first opening) on its own preprocessing file from `otp deal`.
//!
//! Before anything connects, the options are checked ([`prepare`]): the
//! key share and plaintexts as hex, the block count, and the file (its
//! party index and party count against `--party`/`--peers`, its integrity,
//! and enough material left for the run). After connecting, the parties
//! exchange a hello (batch id, how much of it is used, block count, code)
//! and refuse peers whose files are from another deal or at another
//! position. After the run, unless `--no-check`, every party learns the
//! key, the plaintexts and the ciphertexts and checks them against AES-128
//! (a deployment test: the check reveals the key).

use super::{exchange, hex, Endpoint, Outcome};
use crate::run::Opts;
use crate::Fail;
use ot::files::{read_header, PrepStoreFile};
use ot::oblivious_aes::{encrypt_handing_back, groups, room, Material};
use ot::runtime::minimac::prep::PrepStore;
use ot::runtime::primitives::aes::Aes128;
use ot::runtime::transport::mesh::{ChannelMesh, Mesh, MeshChannel};
use ot::runtime::Block;
use sha2::{Digest, Sha256};
use std::time::Instant;

/// A party's checked options and opened preprocessing.
pub struct Prepared {
    store: PrepStore,
    key_share: [u8; 16],
    /// Party 0's plaintexts (empty elsewhere).
    pts: Vec<[u8; 16]>,
    blocks: usize,
}

/// Parses 32 hex digits (16 bytes) given to `flag`.
fn block_hex(flag: &str, v: &str) -> Result<[u8; 16], Fail> {
    let bad = || {
        Fail(format!(
            "bad {flag} `{v}`: 32 hex digits (16 bytes) expected"
        ))
    };
    if v.len() != 32 || !v.is_ascii() {
        return Err(bad());
    }
    let mut out = [0u8; 16];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&v[2 * i..2 * i + 2], 16).map_err(|_| bad())?;
    }
    Ok(out)
}

/// Party 0's plaintexts, from `--input` or `--input-file`.
fn plaintexts(o: &Opts) -> Result<Vec<[u8; 16]>, Fail> {
    let Some(path) = &o.input_file else {
        return o.input.iter().map(|v| block_hex("--input", v)).collect();
    };
    if !o.input.is_empty() {
        return Err(Fail(
            "give the plaintexts with --input or --input-file, not both".into(),
        ));
    }
    let text = std::fs::read_to_string(path).map_err(|e| {
        Fail(format!(
            "cannot read --input-file `{}`: {e}",
            path.display()
        ))
    })?;
    let flag = format!("--input-file `{}` block", path.display());
    text.split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .map(|w| block_hex(&flag, w))
        .collect()
}

/// Checks the options of `minimac_aes` and opens the party's file, before
/// anything connects (`None` for other protocols).
pub fn prepare(o: &Opts, at: &Endpoint) -> Result<Option<Prepared>, Fail> {
    if o.protocol != "minimac_aes" {
        for (given, flag) in [
            (o.prep.is_some(), "--prep"),
            (o.input_file.is_some(), "--input-file"),
            (o.key_share.is_some(), "--key-share"),
            (o.blocks.is_some(), "--blocks"),
            (o.no_check, "--no-check"),
        ] {
            if given {
                return Err(Fail(format!("{flag} is for minimac_aes")));
            }
        }
        return Ok(None);
    }
    let key_share = block_hex(
        "--key-share",
        o.key_share.as_deref().ok_or_else(|| {
            Fail("minimac_aes needs --key-share HEX: this party's XOR share of the AES key (32 hex digits)".into())
        })?,
    )?;
    let pts = plaintexts(o)?;
    let blocks = match (at.me, o.blocks) {
        (0, _) if pts.is_empty() => return Err(Fail(
            "minimac_aes party 0 needs its plaintexts: --input HEX[,HEX...] (32 hex digits each) or --input-file FILE"
                .into(),
        )),
        (0, Some(b)) if b != pts.len() => {
            return Err(Fail(format!(
                "--blocks {b}, but {} plaintexts given with --input",
                pts.len()
            )))
        }
        (0, _) => pts.len(),
        (_, _) if !pts.is_empty() || o.input_file.is_some() => {
            return Err(Fail(
                "only party 0 gives plaintexts (--input) in minimac_aes".into(),
            ))
        }
        (_, Some(b)) if b > 0 => b,
        (_, _) => return Err(Fail(
            "minimac_aes parties other than 0 need --blocks B (the number of party 0's plaintexts)"
                .into(),
        )),
    };
    let path = o.prep.as_deref().ok_or_else(|| {
        Fail("minimac_aes needs --prep FILE: this party's file from `otp deal minimac_aes`".into())
    })?;
    let shown = path.display();
    let header = read_header(path).map_err(|e| Fail(format!("--prep `{shown}`: {e}")))?;
    if header.me != at.me {
        return Err(Fail(format!(
            "--prep `{shown}` is party {}'s file, this is party {}",
            header.me, at.me
        )));
    }
    if header.params.parties != at.parties {
        return Err(Fail(format!(
            "--prep `{shown}` was dealt for {} parties, --peers names {}",
            header.params.parties, at.parties
        )));
    }
    let store = PrepStore::open(path, at.me, header.params)
        .map_err(|e| Fail(format!("--prep `{shown}`: {e}")))?;
    let k = header.params.k;
    let left = store.left();
    let room = room(left);
    if groups(blocks, k) > room {
        return Err(Fail(format!(
            "--prep `{shown}` has material for {} more blocks ({room} groups of k = {k}), this run of {blocks} blocks needs {}",
            room.saturating_mul(k),
            groups(blocks, k)
        )));
    }
    Ok(Some(Prepared {
        store,
        key_share,
        pts,
        blocks,
    }))
}

/// What the parties must agree on before running: the batch, how much of
/// it each has used, the block count and the code.
fn hello(p: &Prepared) -> Vec<u8> {
    let (params, left) = (p.store.params(), p.store.left());
    let mut h = b"otp run minimac_aes v1".to_vec();
    for v in [
        p.store.batch(),
        left.inputs as u64,
        left.sboxes as u64,
        p.blocks as u64,
        params.k as u64,
        params.n as u64,
    ] {
        h.extend_from_slice(&v.to_le_bytes());
    }
    h
}

/// Word `i` of a hello.
fn word(h: &[u8], i: usize) -> u64 {
    let at = h.len() - 8 * (6 - i);
    let mut w = [0u8; 8];
    w.copy_from_slice(&h[at..at + 8]);
    u64::from_le_bytes(w)
}

/// Runs party `at.me` of `minimac_aes` on the connected mesh.
pub fn run<C: MeshChannel>(
    o: &Opts,
    at: &Endpoint,
    session: [u8; 16],
    mesh: &mut ChannelMesh<C>,
    mut p: Prepared,
) -> Result<Outcome, Fail> {
    let mine = hello(&p);
    for (j, theirs) in exchange(at, mesh, &mine, "hello")? {
        if theirs == mine {
            continue;
        }
        return Err(Fail(if word(&theirs, 0) != word(&mine, 0) {
            format!(
                "party {j}'s --prep is from another deal (batch {}, this party's {}): every party needs its file of the same `otp deal`",
                word(&theirs, 0),
                word(&mine, 0)
            )
        } else if word(&theirs, 3) != word(&mine, 3) {
            format!(
                "party {j} encrypts {} blocks, this party {}",
                word(&theirs, 3),
                word(&mine, 3)
            )
        } else {
            format!(
                "party {j}'s preprocessing is at another position ({} input masks and {} S-box masks left, this party {} and {}): the files were used by different runs; deal new ones",
                word(&theirs, 1),
                word(&theirs, 2),
                word(&mine, 1),
                word(&mine, 2)
            )
        }));
    }
    // A session per batch position: every run on the same files is fresh.
    let mut h = Sha256::new();
    h.update(session);
    h.update(&mine);
    let session: [u8; 16] = h.finalize()[..16].try_into().unwrap_or_default();
    let taking = Instant::now();
    let k = p.store.params().k;
    let material = Material::take(&mut p.store, groups(p.blocks, k))
        .map_err(|e| Fail(format!("preprocessing: {e}")))?;
    let taken = taking.elapsed().as_secs_f64();
    // Every party has its material before any clock starts (reading a
    // large explicit file takes seconds; no party times another's reading).
    exchange(at, mesh, b"ready", "ready")?;
    let start = Instant::now();
    let (ct, used) = encrypt_handing_back(mesh, material, &p.key_share, &p.pts, session)
        .map_err(|e| Fail(format!("minimac_aes: {e}")))?;
    let secs = start.elapsed().as_secs_f64();
    // The used one-time tables are wiped and freed after the clock.
    let wiping = Instant::now();
    drop(used);
    let wiped = wiping.elapsed().as_secs_f64();
    let ct = ct.unwrap_or_default();
    for (b, c) in ct.iter().enumerate() {
        println!("ciphertext {b}: {}", hex(c));
    }
    let b = p.blocks;
    let agreed = if o.no_check {
        None
    } else {
        Some(check(at, mesh, &p, &ct)?)
    };
    let shown = format!(
        "{b} block{}{}: latency {:.3} ms, {:.1} µs per block (key input + AES, 13 rounds; preprocessing taken in {:.3} ms, the used one-time tables wiped and freed after in {:.3} ms); all",
        crate::check::plural(b),
        if agreed.is_some() {
            ", checked against AES-128 under the combined key"
        } else {
            ", not checked (--no-check)"
        },
        secs * 1e3,
        secs * 1e6 / b as f64,
        taken * 1e3,
        wiped * 1e3
    );
    Ok(Outcome { shown, agreed })
}

/// The deployment check: the parties exchange their key shares, party 0
/// sends the others its plaintexts and ciphertexts, and every party checks
/// each ciphertext against AES-128 under the combined key. Returns the
/// bytes all parties must agree on (key, plaintexts, ciphertexts).
fn check<C: MeshChannel>(
    at: &Endpoint,
    mesh: &mut ChannelMesh<C>,
    p: &Prepared,
    ct: &[[u8; 16]],
) -> Result<Vec<u8>, Fail> {
    let mut key = p.key_share;
    for (_, s) in exchange(at, mesh, &p.key_share, "key check")? {
        key.iter_mut().zip(&s).for_each(|(a, b)| *a ^= b);
    }
    let len = 32 * p.blocks;
    let io: Vec<u8> = if at.me == 0 {
        let io: Vec<u8> = p.pts.iter().chain(ct).flatten().copied().collect();
        for j in 1..at.parties {
            mesh.send_to(j, &io)
                .map_err(|e| Fail(format!("key check: {e}")))?;
        }
        io
    } else {
        let mut buf = vec![];
        mesh.recv_from(0, &mut buf, len)
            .map_err(|e| Fail(format!("key check: {e}")))?;
        buf
    };
    if io.len() != len {
        return Err(Fail(format!(
            "key check: party 0 sent {} bytes, expected {len}",
            io.len()
        )));
    }
    let (pts, cts) = io.split_at(16 * p.blocks);
    let aes = Aes128::new(Block::from_bytes(key));
    for (b, (pt, c)) in pts.chunks(16).zip(cts.chunks(16)).enumerate() {
        let mut x = [0u8; 16];
        x.copy_from_slice(pt);
        let want = aes.encrypt_block(Block::from_bytes(x)).to_bytes();
        if want[..] != c[..] {
            return Err(Fail(format!(
                "block {b}: the MPC ciphertext {} is not AES-128 of {} under the combined key {} ({})",
                hex(c),
                hex(pt),
                hex(&key),
                hex(&want)
            )));
        }
    }
    Ok([&key[..], &io].concat())
}
