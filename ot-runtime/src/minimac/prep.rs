//! MiniMac preprocessing from a trusted dealer, one file per party.
//!
//! As in the seed paper's own implementation (Damgård–Zakarias,
//! AFRICACRYPT 2016, App. A: `-prep` writes one preprocessing file per
//! player) and in MiniTrix's `genpre`, a **trusted dealer** samples the MAC
//! key `α`, random values, multiplication triples, re-encoding pairs and
//! input masks and hands every party additive shares of each codeword and
//! of its MAC `α ∘ C(x)` ([`super::Shares`]). The dealer sees everything: use it for tests and
//! benchmarks, or where one trusted machine is acceptable. No actively
//! secure offline phase is implemented.
//!
//! **Seed-expanded shares** ([`ShareMode::Seeded`], [`deal_seeded`]).
//! Every party but the last receives a 128-bit seed instead of its shares:
//! its codeword and MAC shares of each section (random values, triples,
//! pairs, input masks, S-box masks) are the bytes of an AES-CTR stream
//! ([`crate::primitives::prg::Prg`]) keyed by a section key derived from the seed
//! (SHA-256 of a domain label, the seed and the section number), byte `o`
//! of the section being byte `o` of the stream, so any range is expanded
//! on its own. Only the last party gets explicit shares: the dealt word
//! minus the other parties' stream bytes. Dealer output and the other parties' file I/O shrink
//! by a factor of about `n`: a seeded file holds its header, `α_i`, the
//! seed, its own input masks' clear slots and a digest.
//!
//! *Security.* Against any set `A` of at most `n − 1` corrupt parties some
//! party `h` is honest. If `h` is not the last party, `h`'s shares are
//! `PRG(seed_h)`, and `A` never sees `seed_h`: by the PRG's security they
//! are indistinguishable from uniform bytes, and with uniform bytes in
//! their place the dealt shares are distributed exactly as explicit
//! additive shares (every proper subset of the shares of a word is
//! uniform, the last share fixes the sum). If `h` is the last party, the
//! shares `A` holds are stream bytes from seeds independent of the dealt
//! words, and the word enters only `h`'s share, which `A` does not see.
//! So a PRG-expanded share is as good as a uniform one against every party
//! that does not know the seed; the MAC key shares `α_i` stay explicit
//! and uniform, so the MAC check's soundness is unchanged. The seed is as
//! secret as the shares it replaces (keep the file private).
//!
//! **File format** (version 4, little-endian): a 72-byte header
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `OTMMPREP` |
//! | 8..10 | version (4) |
//! | 10..12 | party index |
//! | 12..14 | party count |
//! | 14..16 | `k` (slots per value) |
//! | 16..18 | `n` (code length) |
//! | 18 | share mode: 0 explicit, 1 seed-expanded |
//! | 19..24 | zero |
//! | 24..32 | batch id |
//! | 32..40 | number of random values |
//! | 40..48 | number of triples |
//! | 48..56 | number of re-encoding pairs |
//! | 56..64 | number of input masks per party |
//! | 64..72 | number of S-box masks (oblivious AES, [`super::aes`]) |
//!
//! then the party's share `α_i` (`n` bytes), for a seed-expanded file the
//! seed (16 bytes) and otherwise each random value as its
//! codeword share and MAC share (`2n` bytes), each triple as `a`, `b`, `c`
//! (`6n` bytes; `c` a word of the Schur square `C*` whose slots are `a ∘ b`,
//! see [`deal`]), each re-encoding pair as `r` in `C` and `r*` in `C*`
//! (`4n` bytes), the input masks of every party (owner-major, `2n` bytes
//! each), then (in both modes) the clear slots of the party's own input
//! masks (`k` bytes each), for an explicit file each S-box mask as its
//! [`super::aes::WORDS`] words (`ρ*` and `z*` in `C*`, then the table
//! `T_0..T_255` in `C`; `2n` bytes each), and a SHA-256 of everything
//! before it (32 bytes). Files of other versions (3: explicit shares only,
//! no share-mode byte) are refused ([`PrepError::Version`]).
//!
//! **Consumption.** A [`PrepStore`] is built from a file's bytes and a
//! [`UsageRecord`]: the record says how much of the batch earlier runs
//! used and persists the advanced offsets (one line, [`encode_record`]:
//! batch id, random values, triples, pairs, input masks and S-box masks
//! used). Every `take_*` first saves the advanced offsets to the record
//! and only then moves the material out of the store, so material is never
//! handed out twice, in this process or a later one. A file whose material
//! is all used is refused with [`PrepError::Consumed`].
//!
//! **No file I/O here.** This module encodes and decodes (bytes, `Write`,
//! the record's text); reading and writing the files, and the record
//! `<file>.consumed` next to a file (a temporary file synced and renamed
//! over it), are the facade's (`ot::files`: `PrepStore::open`,
//! `PartyPrep::write_to`, `read_header`).

use crate::transport::limits::try_with_capacity;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};

use super::aes::WORDS;
use super::shares::{Codes, Holder, Shares};
use crate::minimac::reed_solomon::CodeError;
use crate::primitives::gf256::{add_assign, mul_slices};
use crate::primitives::prg::Prg;
use crate::Block;

/// File magic.
pub const MAGIC: &[u8; 8] = b"OTMMPREP";
/// Current file version (2 added re-encoding pairs and input masks; 3
/// replaced the S-box masks' powers `r^1..r^127` by one-time tables; 4
/// added seed-expanded shares, [`ShareMode`]).
pub const VERSION: u16 = 4;
/// Header length in bytes.
pub const HEADER_LEN: usize = 72;
const DIGEST_LEN: usize = 32;
/// Length of a party's seed in a seed-expanded file.
const SEED_LEN: usize = 16;
/// Domain label of the section keys of seed-expanded shares.
const SEED_DOMAIN: &[u8] = b"ot-runtime/minimac/prep-share-stream/v1";

/// The parameter set of a preprocessing batch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrepParams {
    /// Number of parties.
    pub parties: usize,
    /// Slots per value (message length of `C`).
    pub k: usize,
    /// Code length.
    pub n: usize,
}

/// Why preprocessing cannot be written, loaded or taken.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PrepError {
    /// Reading or writing a file failed.
    #[error("MiniMac preprocessing {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// Not a preprocessing file (wrong magic).
    #[error("MiniMac preprocessing: not a preprocessing file (bad magic)")]
    BadMagic,
    /// A version this build does not read.
    #[error("MiniMac preprocessing: version {found}, this build reads {VERSION}")]
    Version {
        /// Version in the file.
        found: u16,
    },
    /// The file is shorter (or longer) than its header announces, or its
    /// checksum does not match.
    #[error(
        "MiniMac preprocessing: truncated or corrupt file ({expected} bytes expected, {got} found)"
    )]
    Truncated {
        /// Length the header announces.
        expected: usize,
        /// Actual length.
        got: usize,
    },
    /// The file belongs to another party.
    #[error("MiniMac preprocessing: file of party {found}, expected party {expected}")]
    WrongParty {
        /// The loading party.
        expected: usize,
        /// The party in the file.
        found: usize,
    },
    /// The file was made for another parameter set.
    #[error("MiniMac preprocessing: parameters {found:?}, expected {expected:?}")]
    WrongParams {
        /// The parameters asked for.
        expected: PrepParams,
        /// The parameters in the file.
        found: PrepParams,
    },
    /// Every item of the file was used already.
    #[error("MiniMac preprocessing: batch {batch} is consumed")]
    Consumed {
        /// The batch id.
        batch: u64,
    },
    /// The dealt material for the counts asked for does not fit the
    /// memory budget (or the allocator refuses it).
    #[error("MiniMac preprocessing: {0}")]
    Alloc(#[from] crate::transport::limits::AllocError),
    /// Fewer items left than asked for.
    #[error("MiniMac preprocessing: {wanted} {kind} wanted, {left} left")]
    Exhausted {
        /// `"random values"`, `"triples"`, `"pairs"` or `"input masks"`.
        kind: &'static str,
        /// Items asked for.
        wanted: usize,
        /// Items left.
        left: usize,
    },
    /// The consumption record is unreadable or belongs to another batch.
    #[error("MiniMac preprocessing: bad consumption record {path}")]
    BadRecord {
        /// The record file.
        path: PathBuf,
    },
    /// Parameters no code exists for.
    #[error("MiniMac preprocessing: {0}")]
    Code(#[from] CodeError),
}

/// One party's material from the dealer (what its file holds).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartyPrep {
    /// Party index.
    pub me: usize,
    /// Parameter set.
    pub params: PrepParams,
    /// Batch id.
    pub batch: u64,
    /// Share of the MAC key.
    pub alpha: Vec<u8>,
    /// Random values: codeword share then MAC share, `2n` bytes each.
    pub randoms: Vec<u8>,
    /// Triples: `a`, `b`, `c` each as codeword and MAC share, `6n` bytes each.
    pub triples: Vec<u8>,
    /// Re-encoding pairs: `r` in `C`, then `r*` in `C*` with the same
    /// slots, each as codeword and MAC share, `4n` bytes each.
    pub pairs: Vec<u8>,
    /// Input masks of every party, owner-major (`inputs_per_party` of party
    /// 0 first), each as codeword and MAC share, `2n` bytes each.
    pub inputs: Vec<u8>,
    /// The clear slots of this party's own input masks, `k` bytes each.
    pub own_masks: Vec<u8>,
    /// S-box masks for oblivious AES ([`super::aes`]), each as its
    /// [`WORDS`] words (codeword and MAC share), `2n · WORDS` bytes each.
    pub sboxes: Vec<u8>,
    /// For a seed-expanded file ([`ShareMode::Seeded`]): the seed and the
    /// counts its streams cover (the five share sections above are then
    /// empty; `own_masks` is explicit).
    pub seeded: Option<Seeded>,
}

/// The material (MAC key share, every share section, the own input
/// masks' slots, the seed of a seed-expanded file) is wiped when dropped.
impl Drop for PartyPrep {
    fn drop(&mut self) {
        use crate::primitives::wipe::Wipe;
        for v in [
            &mut self.alpha,
            &mut self.randoms,
            &mut self.triples,
            &mut self.pairs,
            &mut self.inputs,
            &mut self.own_masks,
            &mut self.sboxes,
        ] {
            v.wipe();
        }
        if let Some(s) = self.seeded.as_mut() {
            s.seed.wipe();
        }
    }
}

/// How the dealer hands out the parties' shares (module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ShareMode {
    /// Every party's shares in its file.
    #[default]
    Explicit,
    /// Every party but the last gets a seed its shares are expanded from;
    /// the last party gets explicit shares.
    Seeded,
}

/// A party's seed and the material it expands to ([`PartyPrep::seeded`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seeded {
    /// The party's seed (as secret as the shares it stands for).
    pub seed: Block,
    /// The material its streams cover.
    pub counts: Counts,
}

/// The share sections of a file, in file order (their numbers key the
/// section streams of seed-expanded shares).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Section {
    Randoms = 0,
    Triples = 1,
    Pairs = 2,
    Inputs = 3,
    Sboxes = 4,
}

impl Section {
    /// The section's bytes in an explicit file.
    fn bytes(self, p: &PartyPrep) -> &Vec<u8> {
        match self {
            Section::Randoms => &p.randoms,
            Section::Triples => &p.triples,
            Section::Pairs => &p.pairs,
            Section::Inputs => &p.inputs,
            Section::Sboxes => &p.sboxes,
        }
    }

    fn bytes_mut(self, p: &mut PartyPrep) -> &mut Vec<u8> {
        match self {
            Section::Randoms => &mut p.randoms,
            Section::Triples => &mut p.triples,
            Section::Pairs => &mut p.pairs,
            Section::Inputs => &mut p.inputs,
            Section::Sboxes => &mut p.sboxes,
        }
    }

    /// The counter of the section's items.
    fn count(self, c: &mut Counts) -> &mut usize {
        match self {
            Section::Randoms => &mut c.randoms,
            Section::Triples => &mut c.triples,
            Section::Pairs => &mut c.pairs,
            Section::Inputs => &mut c.inputs,
            Section::Sboxes => &mut c.sboxes,
        }
    }

    /// The key of the section's stream for a party's seed (module docs).
    fn key(self, seed: Block) -> Block {
        let mut h = Sha256::new();
        h.update(SEED_DOMAIN);
        h.update(seed.to_bytes());
        h.update([self as u8]);
        let d = h.finalize();
        let mut b = [0u8; 16];
        b.copy_from_slice(&d[..16]);
        Block::from_bytes(b)
    }
}

/// A seekable byte stream: byte `o` is byte `o mod 16` of block `o / 16`
/// of `Prg(key)` (AES-CTR), so a range of a seed-expanded section is
/// expanded without the bytes before it.
#[derive(Clone, Debug)]
pub struct ShareStream {
    prg: Prg,
    buf: [Block; 1],
    /// Bytes of `buf` already used (16: none left).
    used: usize,
}

impl ShareStream {
    /// The stream of `key` from byte `offset` on.
    pub fn at(key: Block, offset: u64) -> ShareStream {
        let mut s = ShareStream {
            prg: Prg::new_at(key, offset / 16),
            buf: [Block::ZERO],
            used: 16,
        };
        let skip = (offset % 16) as usize;
        if skip > 0 {
            s.prg.fill(&mut s.buf);
            s.used = skip;
        }
        s
    }

    /// Fills `out` with the next stream bytes.
    pub fn fill(&mut self, out: &mut [u8]) {
        let have = (16 - self.used).min(out.len());
        let buf = Block::slice_as_bytes(&self.buf);
        out[..have].copy_from_slice(&buf[self.used..self.used + have]);
        self.used += have;
        let rest = &mut out[have..];
        let whole = rest.len() / 16 * 16;
        // Whole blocks straight from the generator (`fill_bytes` of a
        // multiple of 16 bytes uses every block it consumes).
        self.prg.fill_bytes(&mut rest[..whole]);
        let tail = &mut rest[whole..];
        if !tail.is_empty() {
            self.prg.fill(&mut self.buf);
            let buf = Block::slice_as_bytes(&self.buf);
            tail.copy_from_slice(&buf[..tail.len()]);
            self.used = tail.len();
        }
    }
}

/// The dealer's output of one section for every party: the explicit bytes
/// kept, and the streams the shares of the first `parties − 1` parties
/// come from.
struct Dealing {
    out: Vec<Vec<u8>>,
    streams: Vec<ShareStream>,
    /// Whether the first `parties − 1` parties' bytes are kept.
    explicit: bool,
}

impl Dealing {
    /// Section `sec` for the parties' stream seeds `seeds` (`parties − 1`
    /// of them), `bytes` per party reserved (fallibly) where kept.
    fn new(
        sec: Section,
        seeds: &[Block],
        mode: ShareMode,
        bytes: Option<usize>,
        what: &'static str,
    ) -> Result<Dealing, PrepError> {
        let explicit = mode == ShareMode::Explicit;
        let out = (0..=seeds.len())
            .map(|j| {
                let keep = explicit || j == seeds.len();
                try_with_capacity(if keep { bytes } else { Some(0) }, what)
            })
            .collect::<Result<Vec<Vec<u8>>, _>>()?;
        let streams = seeds
            .iter()
            .map(|&s| ShareStream::at(sec.key(s), 0))
            .collect();
        Ok(Dealing {
            out,
            streams,
            explicit,
        })
    }

    /// Splits `word` into additive shares for every party and appends, for
    /// each party, its codeword share and its share of `α ∘ word` (the
    /// first `parties − 1` from their streams, the last the rest).
    fn word(&mut self, word: &[u8], alpha: &[u8]) {
        let n = word.len();
        let mut last_m = vec![0u8; n];
        mul_slices(&mut last_m, alpha, word);
        let mut last_x = word.to_vec();
        let mut xs = vec![0u8; n];
        let mut ms = vec![0u8; n];
        for (o, st) in self.out.iter_mut().zip(self.streams.iter_mut()) {
            st.fill(&mut xs);
            st.fill(&mut ms);
            add_assign(&mut last_x, &xs);
            add_assign(&mut last_m, &ms);
            if self.explicit {
                o.extend_from_slice(&xs);
                o.extend_from_slice(&ms);
            }
        }
        if let Some(o) = self.out.last_mut() {
            o.extend_from_slice(&last_x);
            o.extend_from_slice(&last_m);
        }
    }
}

/// How much material the dealer makes ([`deal_counts`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Random values `[[r]]`.
    pub randoms: usize,
    /// Multiplication triples `([[a]], [[b]], [[c]]*)`.
    pub triples: usize,
    /// Re-encoding pairs `([[r]], [[r]]*)`.
    pub pairs: usize,
    /// Input masks per party (each party knows the slots of its own).
    pub inputs: usize,
    /// S-box masks for oblivious AES ([`super::aes`]), each one k-slot
    /// vector of S-box inputs.
    pub sboxes: usize,
}

/// The trusted dealer: `randoms` random values and `triples` triples for
/// every party of `params`, in batch `batch` (module docs).
///
/// A triple's `c` is the Schur product `C(a) ∘ C(b)` **plus a uniformly
/// random word of `C*` whose first `k` coordinates are zero**: still a `C*`
/// word whose slots are `a ∘ b`, but uniform among those. A product
/// `[[z]]* = [[c]]* + ε∘[[b]] + δ∘[[a]] + ε∘δ` then opens to `C(x)∘C(y)`
/// plus that mask, which reveals only the `k` slots `x ∘ y`; the bare
/// Schur product would reveal the whole product polynomial `p_x·p_y`
/// (degree `2k − 2`) and so more about `x` and `y` than their product.
pub fn deal<R: RngCore + CryptoRng + ?Sized>(
    params: PrepParams,
    batch: u64,
    randoms: usize,
    triples: usize,
    rng: &mut R,
) -> Result<Vec<PartyPrep>, PrepError> {
    let counts = Counts {
        randoms,
        triples,
        ..Counts::default()
    };
    deal_counts(params, batch, counts, rng)
}

/// A word of `C*` with message `msg` in its first `k` coordinates and
/// uniformly random coordinates `k..2k − 1` (so that, opened after adding
/// it, a `C*` word reveals only its slots).
pub(super) fn masked_square_word<R: RngCore + CryptoRng + ?Sized>(
    codes: &Codes,
    msg: &[u8],
    rng: &mut R,
) -> Vec<u8> {
    let mut full = vec![0u8; codes.square.k()];
    full[..msg.len()].copy_from_slice(msg);
    rng.fill_bytes(&mut full[msg.len()..]);
    codes.square.encode(&full)
}

/// The trusted dealer with every kind of material: [`deal`] plus
/// `counts.pairs` re-encoding pairs `([[r]], [[r]]*)` (`r*` a uniformly
/// random `C*` word with the slots of `r`: DZ13 §3 / DLT14 §2, so the
/// opened `x* − r*` reveals only the slots `x − r`) and `counts.inputs`
/// input masks per party, whose clear slots only their owner receives.
/// Every party's shares are explicit ([`ShareMode::Explicit`]).
pub fn deal_counts<R: RngCore + CryptoRng + ?Sized>(
    params: PrepParams,
    batch: u64,
    counts: Counts,
    rng: &mut R,
) -> Result<Vec<PartyPrep>, PrepError> {
    deal_with(params, batch, counts, ShareMode::Explicit, rng)
}

/// [`deal_counts`] with seed-expanded shares ([`ShareMode::Seeded`],
/// module docs): every party but the last gets a seed, the last explicit
/// shares.
pub fn deal_seeded<R: RngCore + CryptoRng + ?Sized>(
    params: PrepParams,
    batch: u64,
    counts: Counts,
    rng: &mut R,
) -> Result<Vec<PartyPrep>, PrepError> {
    deal_with(params, batch, counts, ShareMode::Seeded, rng)
}

/// The dealer ([`deal_counts`]) with the share mode `mode`.
pub fn deal_with<R: RngCore + CryptoRng + ?Sized>(
    params: PrepParams,
    batch: u64,
    counts: Counts,
    mode: ShareMode,
    rng: &mut R,
) -> Result<Vec<PartyPrep>, PrepError> {
    let Counts {
        randoms, triples, ..
    } = counts;
    let codes = Codes::get(params.k, params.n)?;
    let (k, n, p) = (params.k, params.n, params.parties);
    if p < 2 || p > u16::MAX as usize {
        return Err(PrepError::WrongParams {
            expected: PrepParams {
                parties: 2,
                ..params
            },
            found: params,
        });
    }
    let mut alpha = vec![0u8; n];
    rng.fill_bytes(&mut alpha);
    let mut alphas = vec![vec![0u8; n]; p];
    let mut last = alpha.clone();
    for a in alphas.iter_mut().take(p - 1) {
        rng.fill_bytes(a);
        add_assign(&mut last, a);
    }
    alphas[p - 1] = last;
    // The stream seeds of the first p - 1 parties (handed out in a seeded
    // deal; a fresh explicit deal's shares are stream bytes too).
    let seeds: Vec<Block> = (0..p - 1)
        .map(|_| {
            let mut b = [0u8; 16];
            rng.fill_bytes(&mut b);
            Block::from_bytes(b)
        })
        .collect();
    // Per party: 2n bytes per random value, 6n per triple, ... (counts are
    // the caller's: reserved fallibly, within the memory budget).
    let section = |sec, per: usize, count: usize, what| {
        Dealing::new(sec, &seeds, mode, count.checked_mul(per), what)
    };
    let mut rs = section(Section::Randoms, 2 * n, randoms, "dealt random values")?;
    let mut msg = vec![0u8; k];
    for _ in 0..randoms {
        rng.fill_bytes(&mut msg);
        rs.word(&codes.base.encode(&msg), &alpha);
    }
    let mut ts = section(Section::Triples, 6 * n, triples, "dealt triples")?;
    let mut ma = vec![0u8; k];
    let mut c = vec![0u8; n];
    // The zero-message mask of `c` (see `deal`): coordinates k..2k-1 of
    // the C* message random, the first k zero.
    let mut zero_msg = vec![0u8; codes.square.k()];
    for _ in 0..triples {
        rng.fill_bytes(&mut ma);
        rng.fill_bytes(&mut msg);
        let (a, b) = (codes.base.encode(&ma), codes.base.encode(&msg));
        mul_slices(&mut c, &a, &b);
        rng.fill_bytes(&mut zero_msg[k..]);
        add_assign(&mut c, &codes.square.encode(&zero_msg));
        for w in [&a, &b, &c] {
            ts.word(w, &alpha);
        }
    }
    let mut ps = section(Section::Pairs, 4 * n, counts.pairs, "dealt pairs")?;
    for _ in 0..counts.pairs {
        rng.fill_bytes(&mut msg);
        ps.word(&codes.base.encode(&msg), &alpha);
        ps.word(&masked_square_word(&codes, &msg, rng), &alpha);
    }
    let mut ss = section(
        Section::Sboxes,
        WORDS * 2 * n,
        counts.sboxes,
        "dealt S-box masks",
    )?;
    let table = super::aes::sbox_table();
    for _ in 0..counts.sboxes {
        for word in super::aes::sbox_mask_words(&codes, &table, rng) {
            ss.word(&word, &alpha);
        }
    }
    let mut is = section(
        Section::Inputs,
        2 * n,
        counts.inputs.saturating_mul(p),
        "dealt input masks",
    )?;
    let mut own = vec![Vec::with_capacity(counts.inputs * k); p];
    for o in own.iter_mut() {
        for _ in 0..counts.inputs {
            rng.fill_bytes(&mut msg);
            is.word(&codes.base.encode(&msg), &alpha);
            o.extend_from_slice(&msg);
        }
    }
    let seeded = |me: usize| match mode {
        ShareMode::Seeded => seeds.get(me).map(|&seed| Seeded { seed, counts }),
        ShareMode::Explicit => None,
    };
    Ok(alphas
        .into_iter()
        .zip(rs.out.into_iter().zip(ts.out))
        .zip(ps.out.into_iter().zip(is.out.into_iter().zip(own)))
        .zip(ss.out)
        .enumerate()
        .map(
            |(me, (((alpha, (randoms, triples)), (pairs, (inputs, own_masks))), sboxes))| {
                PartyPrep {
                    me,
                    params,
                    batch,
                    alpha,
                    randoms,
                    triples,
                    pairs,
                    inputs,
                    own_masks,
                    sboxes,
                    seeded: seeded(me),
                }
            },
        )
        .collect())
}

impl PartyPrep {
    /// The same material with explicit shares: a seed-expanded party's
    /// sections expanded from its seed (module docs); an explicit party's
    /// unchanged.
    pub fn to_explicit(&self) -> PartyPrep {
        let mut out = self.clone();
        let Some(sd) = out.seeded.take() else {
            return out;
        };
        let (n, p, c) = (self.params.n, self.params.parties, sd.counts);
        for (sec, len) in [
            (Section::Randoms, c.randoms * 2 * n),
            (Section::Triples, c.triples * 6 * n),
            (Section::Pairs, c.pairs * 4 * n),
            (Section::Inputs, c.inputs * p * 2 * n),
            (Section::Sboxes, c.sboxes * WORDS * 2 * n),
        ] {
            let bytes = sec.bytes_mut(&mut out);
            *bytes = vec![0u8; len];
            ShareStream::at(sec.key(sd.seed), 0).fill(bytes);
        }
        out
    }

    /// The amounts of material this party holds.
    pub fn counts(&self) -> Counts {
        if let Some(sd) = &self.seeded {
            return sd.counts;
        }
        let n = self.params.n;
        Counts {
            randoms: self.randoms.len() / (2 * n),
            triples: self.triples.len() / (6 * n),
            pairs: self.pairs.len() / (4 * n),
            inputs: self.own_masks.len() / self.params.k.max(1),
            sboxes: self.sboxes.len() / (WORDS * 2 * n),
        }
    }

    /// The file's header (module docs).
    fn header(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_LEN);
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION as usize,
            self.me,
            self.params.parties,
            self.params.k,
            self.params.n,
        ] {
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        out.push(u8::from(self.seeded.is_some()));
        out.extend_from_slice(&[0u8; 5]);
        out.extend_from_slice(&self.batch.to_le_bytes());
        let c = self.counts();
        for v in [c.randoms, c.triples, c.pairs, c.inputs, c.sboxes] {
            out.extend_from_slice(&(v as u64).to_le_bytes());
        }
        out
    }

    /// The sections in file order (for a seed-expanded file the seed in
    /// place of the empty share sections).
    fn sections(&self) -> [&[u8]; 8] {
        let seed = self.seeded.as_ref().map_or(&[][..], |sd| {
            Block::slice_as_bytes(std::slice::from_ref(&sd.seed))
        });
        [
            &self.alpha,
            seed,
            &self.randoms,
            &self.triples,
            &self.pairs,
            &self.inputs,
            &self.own_masks,
            &self.sboxes,
        ]
    }

    /// Writes the file (header, sections, digest) to `w`, hashing as it
    /// goes (no copy of the material).
    pub fn write<W: Write>(&self, w: &mut W) -> std::io::Result<()> {
        let mut h = Sha256::new();
        let header = self.header();
        for part in std::iter::once(&header[..]).chain(self.sections()) {
            h.update(part);
            w.write_all(part)?;
        }
        w.write_all(&h.finalize())
    }

    /// The file bytes (module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let body: usize = self.sections().iter().map(|v| v.len()).sum();
        let mut out = Vec::with_capacity(HEADER_LEN + body + DIGEST_LEN);
        // Writing to a vector cannot fail.
        let _ = self.write(&mut out);
        out
    }

    /// Parses a file's bytes for party `me` and parameters `params`.
    pub fn from_bytes(bytes: &[u8], me: usize, params: PrepParams) -> Result<PartyPrep, PrepError> {
        let header = PrepHeader::parse(bytes)?;
        let seeded = header.mode == ShareMode::Seeded;
        let found = header.params;
        if header.me != me {
            return Err(PrepError::WrongParty {
                expected: me,
                found: header.me,
            });
        }
        if found != params {
            return Err(PrepError::WrongParams {
                expected: params,
                found,
            });
        }
        let u64_at = |o: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[o..o + 8]);
            u64::from_le_bytes(b)
        };
        let (n, k, p) = (params.n as u64, params.k as u64, params.parties as u64);
        let batch = header.batch;
        // Section lengths in bytes: alpha, randoms, triples, pairs, input
        // masks of every party, own clear masks (None on overflow).
        let ni = u64_at(56);
        // A seed-expanded file has the seed and no share sections.
        let shares = |l: Option<u64>| if seeded { Some(0) } else { l };
        let lens = [
            Some(n),
            Some(if seeded { SEED_LEN as u64 } else { 0 }),
            shares(u64_at(32).checked_mul(2 * n)),
            shares(u64_at(40).checked_mul(6 * n)),
            shares(u64_at(48).checked_mul(4 * n)),
            shares(ni.checked_mul(2 * n).and_then(|v| v.checked_mul(p))),
            ni.checked_mul(k),
            shares(u64_at(64).checked_mul(WORDS as u64 * 2 * n)),
        ];
        let mut lens_usize = [0usize; 8];
        let mut total = Some((HEADER_LEN + DIGEST_LEN) as u64);
        for (l, out) in lens.iter().zip(lens_usize.iter_mut()) {
            total = total.and_then(|t| l.and_then(|l| t.checked_add(l)));
            *out = l.and_then(|l| usize::try_from(l).ok()).unwrap_or(0);
        }
        let expected = total
            .and_then(|b| usize::try_from(b).ok())
            .unwrap_or(usize::MAX);
        let truncated = PrepError::Truncated {
            expected,
            got: bytes.len(),
        };
        if bytes.len() != expected {
            return Err(truncated);
        }
        let (data, digest) = bytes.split_at(expected - DIGEST_LEN);
        if Sha256::digest(data).as_slice() != digest {
            return Err(truncated);
        }
        let mut rest = &data[HEADER_LEN..];
        let mut parts = lens_usize.map(|l| {
            let (h, t) = rest.split_at(l);
            rest = t;
            h.to_vec()
        });
        let take = |i: usize, parts: &mut [Vec<u8>; 8]| std::mem::take(&mut parts[i]);
        let as_count = |v: u64| usize::try_from(v).unwrap_or(usize::MAX);
        let seeded = seeded.then(|| {
            let mut b = [0u8; 16];
            b.copy_from_slice(&parts[1]);
            Seeded {
                seed: Block::from_bytes(b),
                counts: Counts {
                    randoms: as_count(u64_at(32)),
                    triples: as_count(u64_at(40)),
                    pairs: as_count(u64_at(48)),
                    inputs: as_count(ni),
                    sboxes: as_count(u64_at(64)),
                },
            }
        });
        Ok(PartyPrep {
            me,
            params,
            batch,
            alpha: take(0, &mut parts),
            randoms: take(2, &mut parts),
            triples: take(3, &mut parts),
            pairs: take(4, &mut parts),
            inputs: take(5, &mut parts),
            own_masks: take(6, &mut parts),
            sboxes: take(7, &mut parts),
            seeded,
        })
    }

    /// The file name of this party's file, `minimac-<batch>-p<me>.prep`.
    pub fn file_name(&self) -> String {
        format!("minimac-{}-p{}.prep", self.batch, self.me)
    }
}

/// What a preprocessing file's header says (module docs), read without
/// loading the material (the facade's `ot::files::read_header`): enough to tell, before a run,
/// whose file it is, for which parameters and how much it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrepHeader {
    /// The party the file is for.
    pub me: usize,
    /// The parameter set it was dealt for.
    pub params: PrepParams,
    /// How the party's shares are held.
    pub mode: ShareMode,
    /// Batch id.
    pub batch: u64,
    /// The material the file holds, used or not (what is left is
    /// [`PrepStore::left`]).
    pub counts: Counts,
}

impl PrepHeader {
    /// Parses the first [`HEADER_LEN`] bytes of a file: the magic, the
    /// version and the share mode are checked (`BadMagic`, `Version`,
    /// `Truncated`); the rest is checked when the file is loaded.
    pub fn parse(bytes: &[u8]) -> Result<PrepHeader, PrepError> {
        if bytes.len() >= 8 && &bytes[..8] != MAGIC {
            return Err(PrepError::BadMagic);
        }
        let truncated = PrepError::Truncated {
            expected: HEADER_LEN,
            got: bytes.len(),
        };
        if bytes.len() < HEADER_LEN {
            return Err(truncated);
        }
        let u16_at = |o: usize| u16::from_le_bytes([bytes[o], bytes[o + 1]]) as usize;
        let u64_at = |o: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&bytes[o..o + 8]);
            u64::from_le_bytes(b)
        };
        let version = u16_at(8) as u16;
        if version != VERSION {
            return Err(PrepError::Version { found: version });
        }
        let mode = match bytes[18] {
            0 => ShareMode::Explicit,
            1 => ShareMode::Seeded,
            _ => return Err(truncated),
        };
        let count = |o: usize| usize::try_from(u64_at(o)).unwrap_or(usize::MAX);
        Ok(PrepHeader {
            me: u16_at(10),
            params: PrepParams {
                parties: u16_at(12),
                k: u16_at(14),
                n: u16_at(16),
            },
            mode,
            batch: u64_at(24),
            counts: Counts {
                randoms: count(32),
                triples: count(40),
                pairs: count(48),
                inputs: count(56),
                sboxes: count(64),
            },
        })
    }
}

/// How much of a batch earlier runs used, kept where the batch's file is:
/// a [`PrepStore`] [`load`](UsageRecord::load)s it once and
/// [`save`](UsageRecord::save)s the advanced offsets before each `take_*`
/// hands material out. The facade's file record (`ot::files`) keeps it in
/// `<file>.consumed`; [`NoRecord`] keeps nothing.
pub trait UsageRecord: std::fmt::Debug + Send + Sync {
    /// The counts used so far of batch `batch` ([`Counts::default`] if
    /// nothing is recorded).
    fn load(&mut self, batch: u64) -> Result<Counts, PrepError>;

    /// Persists `used` for batch `batch` before the material leaves the
    /// store (an error stops the `take_*`).
    fn save(&mut self, batch: u64, used: Counts) -> Result<(), PrepError>;
}

/// A [`UsageRecord`] that records nothing: every store starts unused and
/// forgets what it handed out when dropped (tests and benchmarks that
/// deal in memory).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoRecord;

impl UsageRecord for NoRecord {
    fn load(&mut self, _batch: u64) -> Result<Counts, PrepError> {
        Ok(Counts::default())
    }

    fn save(&mut self, _batch: u64, _used: Counts) -> Result<(), PrepError> {
        Ok(())
    }
}

/// The text of a usage record (one line: batch id, then the random values,
/// triples, pairs, input masks and S-box masks used).
pub fn encode_record(batch: u64, used: Counts) -> String {
    let u = used;
    format!(
        "{} {} {} {} {} {}\n",
        batch, u.randoms, u.triples, u.pairs, u.inputs, u.sboxes
    )
}

/// The counts of a usage record's text ([`encode_record`]), `None` if it
/// is malformed or belongs to another batch than `batch`.
pub fn decode_record(text: &str, batch: u64) -> Option<Counts> {
    let f: Vec<u64> = text
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    match f[..] {
        [b, r, t, p, i, x] if b == batch => Some(Counts {
            randoms: r as usize,
            triples: t as usize,
            pairs: p as usize,
            inputs: i as usize,
            sboxes: x as usize,
        }),
        _ => None,
    }
}

/// A party's loaded preprocessing, handing out each item once (module
/// docs).
#[derive(Debug)]
pub struct PrepStore {
    prep: PartyPrep,
    holder: Holder,
    record: Box<dyn UsageRecord>,
    total: Counts,
    used: Counts,
}

impl PrepStore {
    /// The store of party `me`'s file `bytes` for `params`, with the usage
    /// `record` of its batch (loaded here, saved before every `take_*`).
    /// The facade's `PrepStore::open` (`ot::files`) reads a file and
    /// its record `<file>.consumed`.
    pub fn from_bytes(
        bytes: &[u8],
        me: usize,
        params: PrepParams,
        mut record: Box<dyn UsageRecord>,
    ) -> Result<PrepStore, PrepError> {
        let prep = PartyPrep::from_bytes(bytes, me, params)?;
        let codes = Codes::get(params.k, params.n)?;
        let used = record.load(prep.batch)?;
        let store = PrepStore {
            holder: Holder {
                me,
                parties: params.parties,
                codes,
                alpha: Arc::new(super::MacKey(prep.alpha.clone())),
            },
            total: prep.counts(),
            prep,
            record,
            used,
        };
        let left = store.left();
        if left.randoms + left.triples + left.pairs + left.inputs + left.sboxes == 0 {
            return Err(PrepError::Consumed {
                batch: store.prep.batch,
            });
        }
        Ok(store)
    }

    /// Batch id.
    pub fn batch(&self) -> u64 {
        self.prep.batch
    }

    /// The parameter set the file was dealt for.
    pub fn params(&self) -> PrepParams {
        self.prep.params
    }

    /// Material not yet handed out, of every kind.
    pub fn left(&self) -> Counts {
        let (t, u) = (self.total, self.used);
        Counts {
            randoms: t.randoms.saturating_sub(u.randoms),
            triples: t.triples.saturating_sub(u.triples),
            pairs: t.pairs.saturating_sub(u.pairs),
            inputs: t.inputs.saturating_sub(u.inputs),
            sboxes: t.sboxes.saturating_sub(u.sboxes),
        }
    }

    /// Random values not yet handed out.
    pub fn randoms_left(&self) -> usize {
        self.left().randoms
    }

    /// Triples not yet handed out.
    pub fn triples_left(&self) -> usize {
        self.left().triples
    }

    /// Checks that `m` more items fit (`left` of them are left), then
    /// persists the advanced offsets `used` before any material leaves.
    fn commit(
        &mut self,
        kind: &'static str,
        m: usize,
        left: usize,
        used: Counts,
    ) -> Result<(), PrepError> {
        if m > left {
            return Err(PrepError::Exhausted {
                kind,
                wanted: m,
                left,
            });
        }
        self.record.save(self.prep.batch, used)?;
        self.used = used;
        Ok(())
    }

    /// Builds shares of the items `items` (each of `stride` words) of
    /// `src`, word `word` of each item.
    fn shares(
        &self,
        src: &[u8],
        items: impl Iterator<Item = usize>,
        stride: usize,
        word: usize,
        square: bool,
    ) -> Result<Shares, PrepError> {
        let n = self.prep.params.n;
        let (mut x, mut mac) = (Vec::new(), Vec::new());
        for item in items {
            let o = (item * stride + word) * 2 * n;
            x.extend_from_slice(&src[o..o + n]);
            mac.extend_from_slice(&src[o + n..o + 2 * n]);
        }
        // The file's length was checked against its header when loaded.
        Shares::new(self.holder.clone(), square, x, mac).map_err(|_| PrepError::Truncated {
            expected: 0,
            got: 0,
        })
    }

    /// Bytes `range` of section `sec`: borrowed from an explicit file,
    /// expanded from the seed's stream for a seed-expanded one.
    fn section_bytes(
        &self,
        sec: Section,
        range: std::ops::Range<usize>,
    ) -> std::borrow::Cow<'_, [u8]> {
        match &self.prep.seeded {
            Some(sd) => {
                let mut out = vec![0u8; range.len()];
                ShareStream::at(sec.key(sd.seed), range.start as u64).fill(&mut out);
                std::borrow::Cow::Owned(out)
            }
            None => std::borrow::Cow::Borrowed(&sec.bytes(&self.prep)[range]),
        }
    }

    /// Wipes bytes `range` of section `sec` (explicit files; a seeded
    /// section holds nothing to wipe).
    fn wipe(&mut self, sec: Section, range: std::ops::Range<usize>) {
        if let Some(b) = sec.bytes_mut(&mut self.prep).get_mut(range) {
            b.fill(0);
        }
    }

    /// Takes `m` items of `W` words (`square[w]`: word `w` lies in `C*`)
    /// from the section `sec`, never handed out again: the record is
    /// advanced first, the material wiped after.
    fn take_words<const W: usize>(
        &mut self,
        kind: &'static str,
        m: usize,
        sec: Section,
        square: [bool; W],
    ) -> Result<[Shares; W], PrepError> {
        let (mut used, mut left) = (self.used, self.left());
        let first = *sec.count(&mut used);
        *sec.count(&mut used) += m;
        self.commit(kind, m, *sec.count(&mut left), used)?;
        let item = W * 2 * self.prep.params.n;
        let range = first * item..(first + m) * item;
        let src = self.section_bytes(sec, range.clone());
        let out: Result<Vec<Shares>, PrepError> = (0..W)
            .map(|w| self.shares(&src, 0..m, W, w, square[w]))
            .collect();
        drop(src);
        self.wipe(sec, range);
        out?.try_into().map_err(|_| PrepError::Truncated {
            expected: 0,
            got: 0,
        })
    }

    /// Takes `m` random values `[[r]]` (never handed out again).
    pub fn take_randoms(&mut self, m: usize) -> Result<Shares, PrepError> {
        let [r] = self.take_words("random values", m, Section::Randoms, [false])?;
        Ok(r)
    }

    /// Takes `m` triples `([[a]], [[b]], [[c]]*)`, `c` in `C*` with slots `a ∘ b`.
    pub fn take_triples(&mut self, m: usize) -> Result<[Shares; 3], PrepError> {
        self.take_words("triples", m, Section::Triples, [false, false, true])
    }

    /// Takes `m` re-encoding pairs `([[r]], [[r]]*)`: `r` in `C`, `r*` in
    /// `C*` with the same slots and otherwise uniformly random.
    pub fn take_pairs(&mut self, m: usize) -> Result<[Shares; 2], PrepError> {
        self.take_words("pairs", m, Section::Pairs, [false, true])
    }

    /// Takes `m` S-box masks ([`super::aes`]): `ρ*` and `z*` of every mask
    /// as batches and the tables in the file's item-major order (the
    /// lookup layout, [`super::aes::SboxLayer`]: one copy per mask).
    pub fn take_sbox_masks(&mut self, m: usize) -> Result<super::aes::SboxLayer, PrepError> {
        use super::aes::{SboxLayer, FIRST_ENTRY, RHO, ZERO};
        let sec = Section::Sboxes;
        let (mut used, mut left) = (self.used, self.left());
        let first = *sec.count(&mut used);
        *sec.count(&mut used) += m;
        self.commit("S-box masks", m, *sec.count(&mut left), used)?;
        let word = 2 * self.prep.params.n;
        let item = WORDS * word;
        let range = first * item..(first + m) * item;
        let src = self.section_bytes(sec, range.clone());
        let rho = self.shares(&src, 0..m, WORDS, RHO, true);
        let zero = self.shares(&src, 0..m, WORDS, ZERO, true);
        let entries = (WORDS - FIRST_ENTRY) * word;
        let table = match src {
            // Expanded from a seed: move the tables down inside the
            // expanded buffer (no second buffer of the same size).
            std::borrow::Cow::Owned(mut v) => {
                for i in 0..m {
                    let from = i * item + FIRST_ENTRY * word;
                    v.copy_within(from..from + entries, i * entries);
                }
                v.truncate(m * entries);
                v
            }
            std::borrow::Cow::Borrowed(b) => {
                let mut table = Vec::with_capacity(m * entries);
                for it in b.chunks_exact(item) {
                    table.extend_from_slice(&it[FIRST_ENTRY * word..]);
                }
                table
            }
        };
        self.wipe(sec, range);
        SboxLayer::new(rho?, zero?, table).ok_or(PrepError::Truncated {
            expected: 0,
            got: 0,
        })
    }

    /// Takes `m` input masks of every party: the shares `[[r]]` of all
    /// `parties · m` masks (value `j·m + t` is party `j`'s `t`-th) and the
    /// clear slots of this party's own `m` masks (`k` bytes each).
    pub fn take_inputs(&mut self, m: usize) -> Result<(Shares, Vec<u8>), PrepError> {
        let first = self.used.inputs;
        let used = Counts {
            inputs: first + m,
            ..self.used
        };
        self.commit("input masks", m, self.left().inputs, used)?;
        let per = self.total.inputs;
        let (k, n) = (self.prep.params.k, self.prep.params.n);
        let ranges: Vec<std::ops::Range<usize>> = (0..self.prep.params.parties)
            .map(|j| (j * per + first) * 2 * n..(j * per + first + m) * 2 * n)
            .collect();
        let mut src = Vec::with_capacity(ranges.len() * m * 2 * n);
        for r in &ranges {
            src.extend_from_slice(&self.section_bytes(Section::Inputs, r.clone()));
        }
        let s = self.shares(&src, 0..ranges.len() * m, 1, 0, false)?;
        let own = self.prep.own_masks[first * k..(first + m) * k].to_vec();
        self.prep.own_masks[first * k..(first + m) * k].fill(0);
        for r in ranges {
            self.wipe(Section::Inputs, r);
        }
        Ok((s, own))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::rng::Rng;

    /// Sums word `w` of every party's item `t` (stride `words`): the
    /// codeword and the MAC.
    fn open(preps: &[PartyPrep], t: usize, words: usize, w: usize, n: usize) -> (Vec<u8>, Vec<u8>) {
        let (mut x, mut m) = (vec![0u8; n], vec![0u8; n]);
        for p in preps {
            let src = if words == 1 { &p.randoms } else { &p.triples };
            let o = (t * words + w) * 2 * n;
            add_assign(&mut x, &src[o..o + n]);
            add_assign(&mut m, &src[o + n..o + 2 * n]);
        }
        (x, m)
    }

    #[test]
    fn huge_counts_are_an_alloc_error_not_an_abort() {
        let params = PrepParams {
            parties: 3,
            k: 10,
            n: 30,
        };
        let mut rng = Rng::deterministic_for_tests(5);
        for (randoms, triples) in [(usize::MAX, 0), (0, usize::MAX / 7), (1 << 50, 0)] {
            match deal(params, 1, randoms, triples, &mut rng) {
                Err(PrepError::Alloc(e)) => assert!(e.bytes.is_none_or(|b| b > e.budget)),
                other => panic!("expected Alloc, got {:?}", other.map(|_| ())),
            }
        }
    }

    #[test]
    fn dealt_triples_are_masked_products_with_valid_macs() {
        let params = PrepParams {
            parties: 3,
            k: 10,
            n: 30,
        };
        let preps = deal(params, 1, 2, 3, &mut Rng::deterministic_for_tests(5)).unwrap();
        let codes = Codes::get(10, 30).unwrap();
        let mut alpha = vec![0u8; 30];
        preps.iter().for_each(|p| add_assign(&mut alpha, &p.alpha));
        check_triples(&preps, &codes, &alpha, 3);
        let mut tag = vec![0u8; 30];
        let (r, mr) = open(&preps, 1, 1, 0, 30);
        mul_slices(&mut tag, &alpha, &r);
        assert!(codes.base.contains(&r) && tag == mr);
    }

    /// The dealer's material for `parties` with `k = 10, n = 30`, the
    /// codes and the MAC key.
    fn dealt(parties: usize, counts: Counts, seed: u64) -> (Vec<PartyPrep>, Arc<Codes>, Vec<u8>) {
        dealt_with(parties, counts, seed, ShareMode::Explicit)
    }

    /// [`dealt`] with share mode `mode`, seeded parties' shares expanded.
    fn dealt_with(
        parties: usize,
        counts: Counts,
        seed: u64,
        mode: ShareMode,
    ) -> (Vec<PartyPrep>, Arc<Codes>, Vec<u8>) {
        let params = PrepParams {
            parties,
            k: 10,
            n: 30,
        };
        let mut rng = Rng::deterministic_for_tests(seed);
        let preps: Vec<PartyPrep> = deal_with(params, 2, counts, mode, &mut rng)
            .unwrap()
            .iter()
            .map(PartyPrep::to_explicit)
            .collect();
        let mut alpha = vec![0u8; 30];
        preps.iter().for_each(|p| add_assign(&mut alpha, &p.alpha));
        (preps, Codes::get(10, 30).unwrap(), alpha)
    }

    #[test]
    fn the_header_says_whose_file_it_is_and_what_it_holds() {
        let counts = Counts {
            inputs: 3,
            sboxes: 2,
            ..Counts::default()
        };
        let params = PrepParams {
            parties: 3,
            k: 10,
            n: 30,
        };
        let mut rng = Rng::deterministic_for_tests(12);
        for mode in [ShareMode::Explicit, ShareMode::Seeded] {
            for (j, p) in deal_with(params, 77, counts, mode, &mut rng)
                .unwrap()
                .iter()
                .enumerate()
            {
                let bytes = p.to_bytes();
                let h = PrepHeader::parse(&bytes).unwrap();
                // The last party's shares are explicit in both modes.
                let want = if j == 2 { ShareMode::Explicit } else { mode };
                assert_eq!(
                    h,
                    PrepHeader {
                        me: j,
                        params,
                        mode: want,
                        batch: 77,
                        counts
                    }
                );
                assert!(matches!(
                    PrepHeader::parse(&bytes[..HEADER_LEN - 1]),
                    Err(PrepError::Truncated { .. })
                ));
                let mut bad = bytes[..HEADER_LEN].to_vec();
                bad[0] ^= 1;
                assert!(matches!(PrepHeader::parse(&bad), Err(PrepError::BadMagic)));
                bad[0] ^= 1;
                bad[8] = 3;
                assert!(matches!(
                    PrepHeader::parse(&bad),
                    Err(PrepError::Version { found: 3 })
                ));
            }
        }
    }

    #[test]
    fn share_stream_ranges_equal_the_sequential_stream() {
        let key = Block::from_bytes([9u8; 16]);
        // Scalar reference: the whole stream, block by block.
        let mut prg = Prg::new(key);
        let whole: Vec<u8> = (0..40).flat_map(|_| prg.next_block().to_bytes()).collect();
        for start in [0usize, 1, 15, 16, 17, 100, 333] {
            for lens in [&[0usize, 5, 16, 40][..], &[31, 1, 2, 60], &[7; 9]] {
                let mut s = ShareStream::at(key, start as u64);
                let mut at = start;
                for &l in lens {
                    let mut out = vec![0u8; l];
                    s.fill(&mut out);
                    assert_eq!(out, whole[at..at + l], "start {start}, lens {lens:?}");
                    at += l;
                }
            }
        }
    }

    #[test]
    fn seed_expanded_files_are_small_and_expand_to_valid_material() {
        let counts = Counts {
            randoms: 3,
            triples: 2,
            pairs: 2,
            inputs: 2,
            sboxes: 2,
        };
        let params = PrepParams {
            parties: 3,
            k: 10,
            n: 30,
        };
        let mut rng = Rng::deterministic_for_tests(11);
        let seeded = deal_seeded(params, 4, counts, &mut rng).unwrap();
        let explicit = deal_counts(params, 4, counts, &mut rng).unwrap();
        for (j, (s, e)) in seeded.iter().zip(&explicit).enumerate() {
            assert_eq!(s.counts(), counts);
            let (sb, eb) = (s.to_bytes(), e.to_bytes());
            if j + 1 < 3 {
                assert!(s.seeded.is_some() && s.sboxes.is_empty());
                assert_eq!(sb.len(), HEADER_LEN + 30 + SEED_LEN + 2 * 10 + DIGEST_LEN);
                assert!(20 * sb.len() < eb.len(), "{} vs {}", sb.len(), eb.len());
            } else {
                assert!(s.seeded.is_none() && sb.len() == eb.len());
            }
            // The file round-trips, seed included.
            assert_eq!(&PartyPrep::from_bytes(&sb, j, params).unwrap(), s);
        }
        // Expanded, every item is a valid dealt item.
        let (preps, codes, alpha) = dealt_with(3, counts, 11, ShareMode::Seeded);
        check_triples(&preps, &codes, &alpha, 2);
        check_sbox_masks(&preps, &codes, &alpha, 2);
    }

    #[test]
    fn dealt_sbox_masks_are_one_time_tables_with_valid_macs() {
        let counts = Counts {
            sboxes: 2,
            ..Counts::default()
        };
        let (preps, codes, alpha) = dealt(3, counts, 7);
        check_sbox_masks(&preps, &codes, &alpha, 2);
    }

    /// Triples `0..count` of `preps` are masked products with valid MACs.
    fn check_triples(preps: &[PartyPrep], codes: &Codes, alpha: &[u8], count: usize) {
        let mut tag = vec![0u8; 30];
        for t in 0..count {
            let (a, ma) = open(preps, t, 3, 0, 30);
            let (b, _) = open(preps, t, 3, 1, 30);
            let (c, mc) = open(preps, t, 3, 2, 30);
            assert!(codes.base.contains(&a) && codes.base.contains(&b));
            assert!(codes.square.contains(&c));
            let mut ab = vec![0u8; 30];
            mul_slices(&mut ab, &a, &b);
            assert_eq!(c[..10], ab[..10], "slots of c are a ∘ b");
            assert_ne!(c, ab, "c is masked beyond its slots");
            for (w, m) in [(&a, &ma), (&c, &mc)] {
                mul_slices(&mut tag, alpha, w);
                assert_eq!(&tag, m, "MAC = α ∘ word");
            }
        }
    }

    /// S-box masks `0..count` of `preps` are one-time tables with valid
    /// MACs.
    fn check_sbox_masks(preps: &[PartyPrep], codes: &Codes, alpha: &[u8], count: usize) {
        use super::super::aes::{sbox, FIRST_ENTRY, RHO, ZERO};
        // Word w of S-box mask t: the codeword and its MAC.
        let word = |t: usize, w: usize| {
            let (mut x, mut m) = (vec![0u8; 30], vec![0u8; 30]);
            for p in preps {
                let o = (t * WORDS + w) * 60;
                add_assign(&mut x, &p.sboxes[o..o + 30]);
                add_assign(&mut m, &p.sboxes[o + 30..o + 60]);
            }
            (x, m)
        };
        let mut tag = vec![0u8; 30];
        for t in 0..count {
            let (rho, _) = word(t, RHO);
            let (z, _) = word(t, ZERO);
            assert!(codes.square.contains(&rho) && !codes.base.contains(&rho));
            assert!(codes.square.contains(&z) && z[..10] == [0u8; 10] && z != [0u8; 30]);
            for w in 0..WORDS {
                let (x, m) = word(t, w);
                mul_slices(&mut tag, alpha, &x);
                assert_eq!(tag, m, "MAC of word {w}");
                if w >= FIRST_ENTRY {
                    let v = (w - FIRST_ENTRY) as u8;
                    assert!(codes.base.contains(&x));
                    for i in 0..10 {
                        assert_eq!(x[i], sbox(v ^ rho[i]), "T_{v} slot {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn dealt_pairs_and_input_masks_are_consistent() {
        let counts = Counts {
            pairs: 2,
            inputs: 3,
            ..Counts::default()
        };
        let (preps, codes, alpha) = dealt(2, counts, 6);
        let params = preps[0].params;
        let sum = |f: &dyn Fn(&PartyPrep) -> &[u8], o: usize| {
            let mut w = vec![0u8; 30];
            preps
                .iter()
                .for_each(|p| add_assign(&mut w, &f(p)[o..o + 30]));
            w
        };
        let mut tag = vec![0u8; 30];
        for t in 0..2 {
            let r = sum(&|p| &p.pairs, t * 120);
            let rs = sum(&|p| &p.pairs, t * 120 + 60);
            assert!(codes.base.contains(&r) && codes.square.contains(&rs));
            assert!(!codes.base.contains(&rs), "r* is masked beyond its slots");
            assert_eq!(r[..10], rs[..10]);
            mul_slices(&mut tag, &alpha, &rs);
            assert_eq!(tag, sum(&|p| &p.pairs, t * 120 + 90));
        }
        for (j, p) in preps.iter().enumerate() {
            assert_eq!(p.counts(), counts);
            let bytes = p.to_bytes();
            assert_eq!(&PartyPrep::from_bytes(&bytes, j, params).unwrap(), p);
            for t in 0..3 {
                let r = sum(&|p| &p.inputs, (j * 3 + t) * 60);
                assert!(codes.base.contains(&r));
                assert_eq!(r[..10], p.own_masks[t * 10..(t + 1) * 10], "own mask slots");
            }
        }
    }
}
