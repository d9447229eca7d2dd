//! Oblivious AES-128 on MiniMac (`protocols/minimac_aes.otp`) end to end
//! for 2 and 3 players over the in-memory and the TCP mesh: the key split
//! between the parties and the plaintext of party 0 entered with the first
//! opening, the ciphertexts compared with the `aes`
//! crate on FIPS-197 Appendix C.1 and random blocks; a party that adds an
//! error to a share or a MAC is caught by every party with the named
//! abort, and no ciphertext is output.

use ot::files::{PartyPrepFile, PrepStoreFile};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};

use aes::cipher::{BlockEncrypt, KeyInit};
use ot::minimac_aes;
use ot::runtime::minimac::aes::{layer_sboxes, AesMasks, LAYERS, SBOXES};
use ot::runtime::minimac::floor::STAT_SEC;
use ot::runtime::minimac::prep::{deal_with, Counts, PrepParams, PrepStore, ShareMode};
use ot::runtime::minimac::{Codes, Opened, Shares};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{local_tcp_mesh, run_parties, MemoryMesh, Mesh};
use rand_core::RngCore;

const K: usize = 20;
const LEN: usize = 60;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

fn params(parties: usize) -> PrepParams {
    PrepParams {
        parties,
        k: K,
        n: LEN,
    }
}

/// The dealer's files for one AES run of `m` groups of `K` blocks.
fn files(parties: usize, m: usize) -> Vec<PathBuf> {
    files_with(parties, m, ShareMode::Explicit)
}

/// [`files`] with the dealer's share mode `mode`.
fn files_with(parties: usize, m: usize, mode: ShareMode) -> Vec<PathBuf> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "minimac-aes-test-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let counts = Counts {
        inputs: 48 * m,
        sboxes: LAYERS * SBOXES * m,
        ..Counts::default()
    };
    deal_with(params(parties), 3, counts, mode, &mut Rng::from_entropy())
        .unwrap()
        .iter()
        .map(|p| p.write_to(&dir).unwrap())
        .collect()
}

fn session(tag: u8) -> [u8; 16] {
    [tag; 16]
}

/// How a cheating party changes its material before the AES run.
#[derive(Clone, Copy, Debug)]
enum Cheat {
    Honest,
    /// A non-codeword error on its share of the plaintext mask.
    NonCodeword,
    /// A codeword error on its share of party 0's first output mask, so
    /// the ciphertext opened to party 0 would be wrong.
    OutputMask,
    /// A codeword error on its share of party 0's first key mask (stays
    /// in the code).
    Codeword,
    /// An error on every coordinate of its share of the MAC of party 0's
    /// second key mask.
    KeyMac,
    /// A party other than 0 enters a plaintext difference (it would shift
    /// party 0's plaintexts).
    OthersPlaintext,
    /// An error on every coordinate of the MAC of a layer-4 S-box mask's
    /// first `ρ*`.
    MaskMac,
    /// A codeword error on its share of every table entry of a layer-6
    /// S-box mask (so the looked-up S-box output is wrong in every slot).
    Table,
}

fn cheat(io: &mut Shares, key: &mut Shares, pt: &mut [u8], masks: &mut AesMasks, how: Cheat) {
    match how {
        Cheat::Honest => {}
        Cheat::OthersPlaintext => pt[7] ^= 0x10,
        Cheat::NonCodeword => io.parts_mut().0[5] ^= 0x21,
        Cheat::OutputMask => {
            // m = 1 here: value 16 is the first output mask.
            let e = Codes::get(K, LEN).unwrap().base.encode(&[0x04; K]);
            let x = &mut io.parts_mut().0[16 * LEN..17 * LEN];
            x.iter_mut().zip(&e).for_each(|(a, b)| *a ^= b);
        }
        Cheat::Codeword => {
            let e = Codes::get(K, LEN).unwrap().base.encode(&[7u8; K]);
            let x = key.parts_mut().0;
            x[..LEN].iter_mut().zip(&e).for_each(|(a, b)| *a ^= b);
        }
        // MAC-only errors are caught coordinate by coordinate (each one
        // passes the check's random combination with probability 2^-8), so
        // these cheats touch every coordinate of one MAC word: they pass
        // with probability 2^-(8 LEN), not 1/256 per run.
        Cheat::KeyMac => key.parts_mut().1[LEN..2 * LEN]
            .iter_mut()
            .for_each(|b| *b ^= 1),
        Cheat::MaskMac => masks[3].rho_mut().parts_mut().1[..LEN]
            .iter_mut()
            .for_each(|b| *b ^= 0x80),
        Cheat::Table => {
            let e = Codes::get(K, LEN).unwrap().base.encode(&[0x35; K]);
            for v in 0..=255u8 {
                let x = masks[5].entry_mut(0, v).0;
                x.iter_mut().zip(&e).for_each(|(a, b)| *a ^= b);
            }
        }
    }
}

/// Party `me`'s view of one run: it enters its key share (and party 0
/// its plaintexts, block `g·K + s` in slot `s` of group `g`) with the
/// first opening of the AES run; only party 0 gets ciphertexts.
fn party<M: Mesh + ?Sized>(
    mesh: &mut M,
    files: &[PathBuf],
    key_share: [u8; 16],
    pts: &[[u8; 16]],
    m: usize,
    how: (usize, Cheat),
) -> Res<Option<Opened>> {
    let (me, n) = (mesh.me(), mesh.parties());
    let mut store = PrepStore::open(&files[me], me, params(n))?;
    // Value p: key byte p in every slot.
    let mut key = vec![0u8; 16 * K];
    for p in 0..16 {
        key[p * K..(p + 1) * K].fill(key_share[p]);
    }
    let (mut kin, kown) = store.take_inputs(16)?;
    // Party 0's next 32m masks: plaintexts, then ciphertexts.
    let (all, own) = store.take_inputs(32 * m)?;
    let mut io = all.slice(0, 32 * m).unwrap();
    let mut pt = vec![0u8; 16 * m * K];
    if me == 0 {
        for (b, blk) in pts.iter().enumerate() {
            for p in 0..16 {
                pt[p * m * K + b] = blk[p];
            }
        }
    }
    let mut masks: AesMasks = (0..LAYERS)
        .map(|_| store.take_sbox_masks(layer_sboxes(m)))
        .collect::<Result<_, _>>()?;
    if me == how.0 {
        cheat(&mut io, &mut kin, &mut pt, &mut masks, how.1);
    }
    let p = minimac_aes::Params::new(n, m, K, LEN, STAT_SEC)?;
    let input = minimac_aes::PInput {
        key,
        kown,
        pt,
        own,
        kin,
        io,
        masks,
    };
    Ok(
        minimac_aes::P::new(me, p, session(2), input, Rng::from_entropy())?
            .run(mesh)?
            .ct,
    )
}

/// The key split into `n` XOR shares.
fn split_key(key: [u8; 16], n: usize, rng: &mut Rng) -> Vec<[u8; 16]> {
    let mut shares = vec![[0u8; 16]; n];
    let mut last = key;
    for s in shares.iter_mut().skip(1) {
        rng.fill_bytes(s);
        last.iter_mut().zip(s.iter()).for_each(|(a, b)| *a ^= b);
    }
    shares[0] = last;
    shares
}

fn reference(key: [u8; 16], pt: &[u8; 16]) -> [u8; 16] {
    let c = aes::Aes128::new(&key.into());
    let mut b = (*pt).into();
    c.encrypt_block(&mut b);
    b.into()
}

fn run<F>(n: usize, key: [u8; 16], pts: &[[u8; 16]], how: (usize, Cheat), tcp: bool, check: F)
where
    F: Fn(Vec<Res<Option<Opened>>>),
{
    run_with(ShareMode::Explicit, n, key, pts, how, tcp, check)
}

/// [`run`] on preprocessing dealt with share mode `mode`.
fn run_with<F>(
    mode: ShareMode,
    n: usize,
    key: [u8; 16],
    pts: &[[u8; 16]],
    how: (usize, Cheat),
    tcp: bool,
    check: F,
) where
    F: Fn(Vec<Res<Option<Opened>>>),
{
    let m = pts.len().div_ceil(K);
    let f = files_with(n, m, mode);
    let shares = split_key(key, n, &mut Rng::from_entropy());
    let body = |mesh: &mut dyn Mesh| party(mesh, &f, shares[mesh.me()], pts, m, how);
    let outs = if tcp {
        run_parties(local_tcp_mesh(n).unwrap(), |mesh| body(mesh))
    } else {
        run_parties(MemoryMesh::new(n), |mesh| body(mesh))
    };
    check(outs)
}

/// Party 0 gets the ciphertexts, every other party none.
fn expect_ciphertexts(key: [u8; 16], pts: &[[u8; 16]]) -> impl Fn(Vec<Res<Option<Opened>>>) + '_ {
    move |outs| {
        for (me, o) in outs.into_iter().enumerate() {
            let ct = o.unwrap();
            if me > 0 {
                assert!(ct.is_none(), "party {me} got a ciphertext");
                continue;
            }
            let ct = ct.expect("party 0's ciphertexts");
            for (b, pt) in pts.iter().enumerate() {
                assert_eq!(ct[b], reference(key, pt), "block {b}");
            }
        }
    }
}

const FIPS_KEY: [u8; 16] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15];
const FIPS_PT: [u8; 16] = [
    0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff,
];
const FIPS_CT: [u8; 16] = [
    0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4, 0xc5, 0x5a,
];

#[test]
fn fips_197_c1_for_2_and_3_players() {
    assert_eq!(reference(FIPS_KEY, &FIPS_PT), FIPS_CT);
    for n in [2, 3] {
        run(
            n,
            FIPS_KEY,
            &[FIPS_PT],
            (0, Cheat::Honest),
            false,
            expect_ciphertexts(FIPS_KEY, &[FIPS_PT]),
        );
    }
}

fn random_blocks(count: usize) -> ([u8; 16], Vec<[u8; 16]>) {
    let mut rng = Rng::from_entropy();
    let mut key = [0u8; 16];
    rng.fill_bytes(&mut key);
    let pts = (0..count)
        .map(|_| {
            let mut b = [0u8; 16];
            rng.fill_bytes(&mut b);
            b
        })
        .collect();
    (key, pts)
}

/// Random blocks for 2 and 3 players: over the memory mesh two groups
/// (the second partly used), over TCP one.
#[test]
fn random_blocks_over_the_memory_mesh_and_tcp() {
    for (tcp, count) in [(false, K + 7), (true, K)] {
        for n in [2, 3] {
            let (key, pts) = random_blocks(count);
            let check = expect_ciphertexts(key, &pts);
            run(n, key, &pts, (0, Cheat::Honest), tcp, check);
        }
    }
}

/// Every cheat, by the parties that matter for `n` players (each run on
/// preprocessing of share mode `mode`), ends in the named abort at every
/// party and no ciphertext.
fn cheats_are_caught(mode: ShareMode) {
    for n in [2, 3] {
        for (who, how) in [
            (0, Cheat::NonCodeword),
            (n - 1, Cheat::Codeword),
            (1, Cheat::KeyMac),
            (n - 1, Cheat::MaskMac),
            (0, Cheat::MaskMac),
            (0, Cheat::Table),
            (1, Cheat::OutputMask),
            (n - 1, Cheat::OthersPlaintext),
        ] {
            run_with(mode, n, FIPS_KEY, &[FIPS_PT], (who, how), false, |outs| {
                for o in outs {
                    let e = o.expect_err("no ciphertext after a failed check");
                    let got = e.downcast_ref::<minimac_aes::Error>();
                    let ok = match how {
                        Cheat::NonCodeword => {
                            matches!(got, Some(minimac_aes::Error::NotACodeword { .. }))
                        }
                        Cheat::OthersPlaintext => {
                            matches!(got, Some(minimac_aes::Error::BadInput { .. }))
                        }
                        _ => matches!(got, Some(minimac_aes::Error::MacCheckFailed { .. })),
                    };
                    assert!(ok, "{how:?} by party {who} of {n} ({mode:?}): got {e:?}");
                }
            });
        }
    }
}

#[test]
fn a_cheating_party_is_caught_and_no_ciphertext_is_output() {
    cheats_are_caught(ShareMode::Explicit);
}

/// Seed-expanded preprocessing (every party but the last expands its
/// shares from a seed) gives the same AES as explicit shares, over both
/// meshes, for 2 and 3 players.
#[test]
fn seed_expanded_preprocessing_gives_aes() {
    for n in [2, 3] {
        let check = expect_ciphertexts(FIPS_KEY, &[FIPS_PT]);
        run_with(
            ShareMode::Seeded,
            n,
            FIPS_KEY,
            &[FIPS_PT],
            (0, Cheat::Honest),
            false,
            check,
        );
        let (key, pts) = random_blocks(K + 3);
        let check = expect_ciphertexts(key, &pts);
        run_with(
            ShareMode::Seeded,
            n,
            key,
            &pts,
            (0, Cheat::Honest),
            true,
            check,
        );
    }
}

/// With seed-expanded preprocessing, a seeded party (0) and the explicit
/// last party cheating are caught as with explicit shares.
#[test]
fn with_seed_expanded_preprocessing_cheats_are_caught() {
    cheats_are_caught(ShareMode::Seeded);
}

#[test]
fn a_batch_of_the_wrong_shape_is_refused() {
    let f = files(2, 1);
    let outs = run_parties(MemoryMesh::new(2), |mesh| {
        let me = mesh.me();
        let mut store = PrepStore::open(&f[me], me, params(2)).unwrap();
        let (kin, kown) = store.take_inputs(16).unwrap();
        let (v, own) = store.take_inputs(32).unwrap();
        let masks: AesMasks = (0..LAYERS)
            .map(|_| store.take_sbox_masks(layer_sboxes(1)).unwrap())
            .collect();
        // Claims two groups, holds one.
        let p = minimac_aes::Params::new(2, 2, K, LEN, STAT_SEC).unwrap();
        let input = minimac_aes::PInput {
            key: vec![0u8; 16 * K],
            kown,
            pt: vec![0u8; 32 * K],
            own: [own.clone(), own].concat(),
            kin,
            io: v.slice(0, 32).unwrap(),
            masks,
        };
        minimac_aes::P::new(me, p, session(3), input, Rng::from_entropy())?.run(mesh)
    });
    for o in outs {
        assert!(
            matches!(o, Err(minimac_aes::Error::BadShares { .. })),
            "{o:?}"
        );
    }
}

/// One block with two players: one exchange per round (`ROUNDS`, 13). The
/// session hello travels with the first round, and no broadcast needs a
/// digest exchange, since its only receiver is the other player. Each
/// player writes one frame per round plus its hello.
#[test]
fn two_players_take_one_exchange_per_round() {
    let f = files(2, 1);
    let shares = split_key(FIPS_KEY, 2, &mut Rng::from_entropy());
    let outs = run_parties(MemoryMesh::new(2), |mesh| {
        let ct = party(
            mesh,
            &f,
            shares[mesh.me()],
            &[FIPS_PT],
            1,
            (0, Cheat::Honest),
        );
        (ct.map(|c| c.is_some()), mesh.stats(1 - mesh.me()))
    });
    let p = minimac_aes::Params::new(2, 1, K, LEN, STAT_SEC).unwrap();
    assert_eq!(minimac_aes::comm(&p).rounds, minimac_aes::ROUNDS);
    assert_eq!(minimac_aes::comm(&p).check_bytes, 0);
    for (ct, stats) in outs {
        ct.unwrap();
        assert_eq!(stats.messages_sent, minimac_aes::ROUNDS as u64 + 1);
        assert_eq!(stats.rounds, 2 * minimac_aes::ROUNDS as u64);
    }
}

/// The code-size floor of `minimac_aes.otp`: `Params::new` refuses
/// RS[3k, k] for k < 4 at 40 bits (and a statistical security below 40),
/// and `ot::oblivious_aes` names the forging probability of material
/// dealt with too small a code before running anything.
#[test]
fn codes_below_the_floor_are_refused() {
    for (k, len, sec) in [
        (1, 3, STAT_SEC),
        (3, 9, STAT_SEC),
        (8, 24, 80),
        (K, LEN, 39),
    ] {
        assert!(
            matches!(
                minimac_aes::Params::new(2, 1, k, len, sec),
                Err(minimac_aes::Error::Params { .. })
            ),
            "RS[{len}, {k}] at {sec} bits accepted"
        );
    }
    assert!(minimac_aes::Params::new(2, 1, 4, 12, STAT_SEC).is_ok());
    let weak = PrepParams {
        parties: 2,
        k: 2,
        n: 6,
    };
    let counts = ot::oblivious_aes::counts(1);
    let preps = deal_with(
        weak,
        4,
        counts,
        ShareMode::Explicit,
        &mut Rng::from_entropy(),
    )
    .unwrap();
    let dir = std::env::temp_dir().join(format!("minimac-aes-weak-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let files: Vec<PathBuf> = preps.iter().map(|p| p.write_to(&dir).unwrap()).collect();
    let outs = run_parties(MemoryMesh::new(2), |mesh| {
        let me = mesh.me();
        let mut store = PrepStore::open(&files[me], me, weak).unwrap();
        let material = ot::oblivious_aes::Material::take(&mut store, 1).unwrap();
        ot::oblivious_aes::encrypt(mesh, material, &[0; 16], &[[0; 16]], session(9))
    });
    for o in outs {
        let e = o.expect_err("refused");
        assert!(
            matches!(e, ot::oblivious_aes::Error::CodeTooSmall(_)),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            "k = 2 gives forging probability 2^-28, below the statistical security 2^-40; use k >= 4"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}
