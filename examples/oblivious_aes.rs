//! Oblivious AES-128 on MiniMac (`protocols/minimac_aes.otp`): the key is
//! XOR-split between the parties and entered (with party 0's plaintexts)
//! in the first opening, party 0 alone supplies the plaintexts
//! and alone receives the ciphertexts (the last opening is masked by its
//! own input masks; the other parties see only the masked values). Two
//! players over the TCP
//! mesh on loopback, RS[3k, k] (`--k`, default 32: k blocks per MiniMac
//! value; the S-box's table lookup costs 2(n − k) GF(2^8) products per
//! slot, its communication and preprocessing per block are the same for
//! every k with n = 3k), the dealer's S-box masks (one-time tables) from
//! preprocessing files.
//!
//! Prints the latency of one run (key input + AES, 13 rounds) for 1, 16, 256
//! and 4096 blocks and the amortised time per block, checks every
//! ciphertext against the `aes` crate, and prints the kernel rates of the
//! same run (AES-NI blocks/s and the ratio of the amortised rate to it,
//! Reed–Solomon encodings/s), the dealer's time per block and the size of
//! each party's preprocessing file. By default the dealer gives party 0 a
//! seed its shares are expanded from and party 1 explicit shares
//! (`--explicit`: explicit shares for both).
//!
//! `cargo run --release --example oblivious_aes [-- --reps 5 --max 4096 --k 32 --explicit]`

use ot::files::{PartyPrepFile, PrepStoreFile};
use std::path::PathBuf;
use std::sync::Barrier;
use std::time::{Duration, Instant};

use aes::cipher::{BlockEncrypt, KeyInit};
use ot::oblivious_aes::{self, counts, groups, Material};
use ot::runtime::minimac::aes::WORDS;
use ot::runtime::minimac::floor::{min_k, STAT_SEC};
use ot::runtime::minimac::prep::{deal_with, PrepParams, PrepStore, ShareMode};
use ot::runtime::minimac::Codes;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, Mesh};
use rand_core::RngCore;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const PARTIES: usize = 2;

/// The code: `k` slots, length `n`.
#[derive(Clone, Copy)]
struct Code {
    k: usize,
    n: usize,
}

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Party 0's ciphertexts (`None` elsewhere), the online time, and the
/// time to wipe and free the used tables after it.
type Timed = (Option<Vec<[u8; 16]>>, Duration, Duration);

/// One oblivious encryption of `pts` (party 0's) under the key whose XOR
/// share this party holds ([`ot::oblivious_aes`]: the key shares entered,
/// then AES with party 0's plaintexts). Returns the ciphertexts (party 0
/// only) and the online time (taking the material from the store is not
/// timed; both parties wait at `ready` before the clock starts, so neither
/// times the other's taking).
fn encrypt<M: Mesh + ?Sized>(
    mesh: &mut M,
    ready: &Barrier,
    store: &mut PrepStore,
    key_share: [u8; 16],
    pts: &[[u8; 16]],
    tag: u8,
) -> Res<Timed> {
    let k = store.params().k;
    let taken = Material::take(store, groups(pts.len(), k));
    // (Waited for before an error is returned, so the peer never hangs.)
    ready.wait();
    let material = taken?;
    let start = Instant::now();
    let pts = if mesh.me() == 0 { pts } else { &[] };
    let (ct, used) =
        oblivious_aes::encrypt_handing_back(mesh, material, &key_share, pts, [tag; 16])?;
    let online = start.elapsed();
    // The used one-time tables are wiped and freed after the clock (timed
    // separately).
    let wiping = Instant::now();
    drop(used);
    Ok((ct, online, wiping.elapsed()))
}

fn reference(key: &[u8; 16], pts: &[[u8; 16]]) -> Vec<[u8; 16]> {
    let c = aes::Aes128::new(key.into());
    pts.iter()
        .map(|pt| {
            let mut b = (*pt).into();
            c.encrypt_block(&mut b);
            b.into()
        })
        .collect()
}

/// What [`measure`] reports: party 0's online times, the dealer's time
/// (dealing and writing the files) and the bytes of each party's file.
struct Measured {
    times: Vec<Duration>,
    /// Party 0's time to wipe and free the used tables after each run.
    wipes: Vec<Duration>,
    dealt: Duration,
    file_bytes: Vec<u64>,
}

/// Runs `runs` encryptions of `blocks` random blocks on preprocessing
/// dealt with share mode `mode`.
fn measure(
    dir: &std::path::Path,
    code: Code,
    mode: ShareMode,
    blocks: usize,
    runs: usize,
) -> Res<Measured> {
    let Code { k: kk, n: nn } = code;
    let params = PrepParams {
        parties: PARTIES,
        k: kk,
        n: nn,
    };
    let m = blocks.div_ceil(kk);
    let counts = counts(m * runs);
    let mut rng = Rng::from_entropy();
    let dealt = Instant::now();
    let files: Vec<PathBuf> = deal_with(params, blocks as u64, counts, mode, &mut rng)?
        .iter()
        .map(|p| p.write_to(dir))
        .collect::<Result<_, _>>()?;
    let dealt = dealt.elapsed();
    let file_bytes = files
        .iter()
        .map(|f| std::fs::metadata(f).map(|m| m.len()))
        .collect::<Result<_, _>>()?;
    let mut key = [0u8; 16];
    rng.fill_bytes(&mut key);
    let mut shares = [[0u8; 16]; PARTIES];
    rng.fill_bytes(&mut shares[1]);
    shares[0] = std::array::from_fn(|i| key[i] ^ shares[1][i]);
    let plaintexts: Vec<Vec<[u8; 16]>> = (0..runs)
        .map(|_| {
            (0..blocks)
                .map(|_| {
                    let mut b = [0u8; 16];
                    rng.fill_bytes(&mut b);
                    b
                })
                .collect()
        })
        .collect();
    let ready = Barrier::new(PARTIES);
    let outs = run_parties(
        local_tcp_mesh(PARTIES)?,
        |mesh| -> Res<Vec<(Duration, Duration)>> {
            let me = mesh.me();
            let mut store = PrepStore::open(&files[me], me, params)?;
            let mut times = Vec::new();
            for (r, pts) in plaintexts.iter().enumerate() {
                let (ct, t, w) = encrypt(mesh, &ready, &mut store, shares[me], pts, r as u8)?;
                match (me, ct) {
                    (0, Some(ct)) => {
                        let want = reference(&key, pts);
                        if ct != want {
                            return Err("a ciphertext differs from the aes crate's".into());
                        }
                    }
                    (0, None) => return Err("party 0 got no ciphertext".into()),
                    (_, Some(_)) => return Err("a party other than 0 got a ciphertext".into()),
                    (_, None) => {}
                }
                times.push((t, w));
            }
            Ok(times)
        },
    );
    for f in &files {
        let _ = std::fs::remove_file(f);
        let mut r = f.as_os_str().to_owned();
        r.push(".consumed");
        let _ = std::fs::remove_file(r);
    }
    let mut outs = outs.into_iter();
    let (times, wipes) = outs.next().ok_or("no party")??.into_iter().unzip();
    for o in outs {
        o?;
    }
    Ok(Measured {
        times,
        wipes,
        dealt,
        file_bytes,
    })
}

/// Rates of the kernels in this run: AES-128 blocks/s (the `aes` crate)
/// and RS[255, 85] encodings/s.
fn kernel_rates(Code { k: kk, n: nn }: Code) -> (f64, f64) {
    let c = aes::Aes128::new(&[7u8; 16].into());
    let mut blocks = vec![aes::Block::default(); 1024];
    let t = Instant::now();
    let mut n = 0u64;
    while t.elapsed() < Duration::from_millis(200) {
        c.encrypt_blocks(&mut blocks);
        n += 1024;
    }
    let aes_rate = n as f64 / t.elapsed().as_secs_f64();
    let codes = Codes::get(kk, nn).ok();
    let (mut w, msg) = (vec![0u8; nn], vec![5u8; kk]);
    let t = Instant::now();
    let mut e = 0u64;
    while t.elapsed() < Duration::from_millis(200) {
        if let Some(c) = &codes {
            c.base.encode_into(&msg, &mut w);
        }
        e += 1;
    }
    (aes_rate, e as f64 / t.elapsed().as_secs_f64())
}

fn main() -> Res<()> {
    let args: Vec<String> = std::env::args().collect();
    let reps = arg(&args, "--reps", 5).max(1);
    let max = arg(&args, "--max", 4096);
    // The code-size floor (k >= 4 at 40 bits: ot::runtime::minimac::floor).
    let k = arg(&args, "--k", 32).clamp(min_k(STAT_SEC), 85);
    let mode = if args.iter().any(|a| a == "--explicit") {
        ShareMode::Explicit
    } else {
        ShareMode::Seeded
    };
    let code = Code { k, n: 3 * k };
    let Code { k: kk, n: nn } = code;
    let dir = std::env::temp_dir().join(format!("oblivious-aes-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    println!(
        "Oblivious AES-128, MiniMac RS[{nn}, {kk}], {PARTIES} players, TCP mesh on loopback \
         (both parties' threads in this process)"
    );
    println!(
        "online = key and plaintext input with the first of 11 openings, then the MAC check's commit and reveal: 13 rounds; preprocessing per block: \
         {:.1} KB per party ({} words of {:.1} bytes per S-box: a one-time table, 160 S-boxes, \
         plus 40 per run for the key schedule)",
        160.0 * WORDS as f64 * 2.0 * nn as f64 / kk as f64 / 1e3,
        WORDS,
        2.0 * nn as f64 / kk as f64
    );
    println!(
        "dealer: {} (--explicit: every party's shares in its file)",
        match mode {
            ShareMode::Seeded => "party 0 gets a seed its shares are expanded from (AES-CTR), party 1 explicit shares",
            _ => "explicit shares for every party",
        }
    );
    measure(&dir, code, mode, 1, 1)?; // warm-up
    let (mut amortised, mut last) = (None, 0);
    for blocks in [1usize, 16, 256, 4096].into_iter().filter(|&b| b <= max) {
        let runs = if blocks >= 4096 { 1 } else { reps };
        let Measured {
            times: mut t,
            mut wipes,
            dealt,
            file_bytes,
        } = measure(&dir, code, mode, blocks, runs)?;
        t.sort();
        wipes.sort();
        let med = t[t.len() / 2];
        let wipe = wipes[wipes.len() / 2];
        amortised = Some(med.as_secs_f64() / blocks as f64);
        last = blocks;
        println!(
            "{blocks:>5} blocks: best {:>9.3} ms  median {:>9.3} ms  {:>9.2} µs per block  ({} runs; \
             then wiping and freeing the used tables {:.2} µs per block; \
             dealer {:.1} µs per block; files {} bytes)",
            t[0].as_secs_f64() * 1e3,
            med.as_secs_f64() * 1e3,
            med.as_secs_f64() * 1e6 / blocks as f64,
            runs,
            wipe.as_secs_f64() * 1e6 / blocks as f64,
            dealt.as_secs_f64() * 1e6 / (blocks * runs) as f64,
            file_bytes
                .iter()
                .map(u64::to_string)
                .collect::<Vec<_>>()
                .join(" + ")
        );
    }
    let (aes_rate, enc_rate) = kernel_rates(code);
    println!(
        "kernels: AES-128 (aes crate) {:.1} M blocks/s; RS[{nn}, {kk}] encodings {:.0} k/s",
        aes_rate / 1e6,
        enc_rate / 1e3
    );
    if let Some(per_block) = amortised {
        println!(
            "amortised rate at {last} blocks: {:.0} blocks/s = 1/{:.0} of AES-NI's",
            1.0 / per_block,
            aes_rate * per_block
        );
    }
    println!("targets: <= 2 ms one block, <= 20 µs per block at 4096; seed (DZ16, 1 Gbit LAN): 6 ms, 400 µs");
    let _ = std::fs::remove_dir(&dir);
    Ok(())
}
