//! MiniMac preprocessing from a trusted dealer, one file per party.
//!
//! As in the seed paper's own implementation (Damgård–Zakarias,
//! AFRICACRYPT 2016, App. A: `-prep` writes one preprocessing file per
//! player) and in MiniTrix's `genpre`, a **trusted dealer** samples the MAC
//! key `α`, random values and multiplication triples and hands every party
//! additive shares of each codeword and of its MAC `α ∘ C(x)`
//! ([`super::Shares`]). The dealer sees everything: use it for tests and
//! benchmarks, or where one trusted machine is acceptable. No actively
//! secure offline phase is implemented.
//!
//! **File format** (version 1, little-endian): a 48-byte header
//!
//! | bytes | field |
//! |---|---|
//! | 0..8 | magic `OTMMPREP` |
//! | 8..10 | version (1) |
//! | 10..12 | party index |
//! | 12..14 | party count |
//! | 14..16 | `k` (slots per value) |
//! | 16..18 | `n` (code length) |
//! | 18..24 | zero |
//! | 24..32 | batch id |
//! | 32..40 | number of random values |
//! | 40..48 | number of triples |
//!
//! then the party's share `α_i` (`n` bytes), each random value as its
//! codeword share and MAC share (`2n` bytes), each triple as `a`, `b`, `c`
//! (`6n` bytes; `c` a word of the Schur square `C*` whose slots are `a ∘ b`,
//! see [`deal`]), and a SHA-256 of
//! everything before it (32 bytes).
//!
//! **Consumption.** [`PrepStore::open`] reads the file and the record
//! `<file>.consumed` next to it (one line: batch id, random values used,
//! triples used). Every `take_*` first writes the advanced offsets to the
//! record (a temporary file renamed over it, synced) and only then moves
//! the material out of the store, so material is never handed out twice,
//! in this process or a later one. A file whose material is all used is
//! refused with [`PrepError::Consumed`].

use crate::limits::try_with_capacity;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rand_core::{CryptoRng, RngCore};
use sha2::{Digest, Sha256};

use super::shares::{Codes, Holder, Shares};
use crate::gf256::{add_assign, mul_slices};
use crate::reed_solomon::CodeError;

/// File magic.
pub const MAGIC: &[u8; 8] = b"OTMMPREP";
/// Current file version.
pub const VERSION: u16 = 1;
/// Header length in bytes.
pub const HEADER_LEN: usize = 48;
const DIGEST_LEN: usize = 32;

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
    Alloc(#[from] crate::limits::AllocError),
    /// Fewer items left than asked for.
    #[error("MiniMac preprocessing: {wanted} {kind} wanted, {left} left")]
    Exhausted {
        /// `"random values"` or `"triples"`.
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
}

/// Splits `word` into additive shares for every party and appends, for
/// each party, its codeword share and its share of `α ∘ word`.
fn deal_word<R: RngCore + CryptoRng + ?Sized>(
    word: &[u8],
    alpha: &[u8],
    out: &mut [Vec<u8>],
    rng: &mut R,
) {
    let n = word.len();
    let mut mac = vec![0u8; n];
    mul_slices(&mut mac, alpha, word);
    let (mut last_x, mut last_m) = (word.to_vec(), mac);
    let parties = out.len();
    for o in out.iter_mut().take(parties - 1) {
        let mut xs = vec![0u8; n];
        let mut ms = vec![0u8; n];
        rng.fill_bytes(&mut xs);
        rng.fill_bytes(&mut ms);
        add_assign(&mut last_x, &xs);
        add_assign(&mut last_m, &ms);
        o.extend_from_slice(&xs);
        o.extend_from_slice(&ms);
    }
    out[parties - 1].extend_from_slice(&last_x);
    out[parties - 1].extend_from_slice(&last_m);
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
    // Per party: 2n bytes per random value, 6n per triple (counts are the
    // caller's: reserved fallibly, within the memory budget).
    let mut rs = (0..p)
        .map(|_| try_with_capacity(randoms.checked_mul(2 * n), "dealt random values"))
        .collect::<Result<Vec<Vec<u8>>, _>>()?;
    let mut msg = vec![0u8; k];
    for _ in 0..randoms {
        rng.fill_bytes(&mut msg);
        deal_word(&codes.base.encode(&msg), &alpha, &mut rs, rng);
    }
    let mut ts = (0..p)
        .map(|_| try_with_capacity(triples.checked_mul(6 * n), "dealt triples"))
        .collect::<Result<Vec<Vec<u8>>, _>>()?;
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
            deal_word(w, &alpha, &mut ts, rng);
        }
    }
    Ok(alphas
        .into_iter()
        .zip(rs.into_iter().zip(ts))
        .enumerate()
        .map(|(me, (alpha, (randoms, triples)))| PartyPrep {
            me,
            params,
            batch,
            alpha,
            randoms,
            triples,
        })
        .collect())
}

impl PartyPrep {
    /// The file bytes (module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let n = self.params.n;
        let mut out = Vec::with_capacity(
            HEADER_LEN + n + self.randoms.len() + self.triples.len() + DIGEST_LEN,
        );
        out.extend_from_slice(MAGIC);
        for v in [
            VERSION as usize,
            self.me,
            self.params.parties,
            self.params.k,
            n,
        ] {
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        out.extend_from_slice(&[0u8; 6]);
        out.extend_from_slice(&self.batch.to_le_bytes());
        out.extend_from_slice(&((self.randoms.len() / (2 * n)) as u64).to_le_bytes());
        out.extend_from_slice(&((self.triples.len() / (6 * n)) as u64).to_le_bytes());
        out.extend_from_slice(&self.alpha);
        out.extend_from_slice(&self.randoms);
        out.extend_from_slice(&self.triples);
        let d = Sha256::digest(&out);
        out.extend_from_slice(&d);
        out
    }

    /// Parses a file's bytes for party `me` and parameters `params`.
    pub fn from_bytes(bytes: &[u8], me: usize, params: PrepParams) -> Result<PartyPrep, PrepError> {
        if bytes.len() < HEADER_LEN {
            if bytes.len() >= 8 && &bytes[..8] != MAGIC {
                return Err(PrepError::BadMagic);
            }
            return Err(PrepError::Truncated {
                expected: HEADER_LEN,
                got: bytes.len(),
            });
        }
        if &bytes[..8] != MAGIC {
            return Err(PrepError::BadMagic);
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
        let found = PrepParams {
            parties: u16_at(12),
            k: u16_at(14),
            n: u16_at(16),
        };
        let file_me = u16_at(10);
        if file_me != me {
            return Err(PrepError::WrongParty {
                expected: me,
                found: file_me,
            });
        }
        if found != params {
            return Err(PrepError::WrongParams {
                expected: params,
                found,
            });
        }
        let n = params.n;
        let batch = u64_at(24);
        let (nr, nt) = (u64_at(32), u64_at(40));
        let body = nr
            .checked_mul(2 * n as u64)
            .and_then(|r| nt.checked_mul(6 * n as u64).and_then(|t| r.checked_add(t)))
            .and_then(|b| b.checked_add((HEADER_LEN + n + DIGEST_LEN) as u64))
            .and_then(|b| usize::try_from(b).ok());
        let expected = body.unwrap_or(usize::MAX);
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
        let r0 = HEADER_LEN + n;
        let t0 = r0 + nr as usize * 2 * n;
        Ok(PartyPrep {
            me,
            params,
            batch,
            alpha: data[HEADER_LEN..r0].to_vec(),
            randoms: data[r0..t0].to_vec(),
            triples: data[t0..].to_vec(),
        })
    }

    /// Writes the file `dir/minimac-<batch>-p<me>.prep` and returns its path.
    pub fn write_to(&self, dir: &Path) -> Result<PathBuf, PrepError> {
        let path = dir.join(format!("minimac-{}-p{}.prep", self.batch, self.me));
        fs::write(&path, self.to_bytes()).map_err(|source| PrepError::Io {
            path: path.clone(),
            source,
        })?;
        Ok(path)
    }
}

/// A party's loaded preprocessing, handing out each item once (module
/// docs).
#[derive(Debug)]
pub struct PrepStore {
    prep: PartyPrep,
    holder: Holder,
    record: PathBuf,
    used_randoms: usize,
    used_triples: usize,
}

impl PrepStore {
    /// Loads `path` for party `me` and `params`, with the consumption
    /// record next to it.
    pub fn open(path: &Path, me: usize, params: PrepParams) -> Result<PrepStore, PrepError> {
        let io = |source| PrepError::Io {
            path: path.to_path_buf(),
            source,
        };
        let bytes = fs::read(path).map_err(io)?;
        let prep = PartyPrep::from_bytes(&bytes, me, params)?;
        let codes = Codes::get(params.k, params.n)?;
        let mut record = path.as_os_str().to_owned();
        record.push(".consumed");
        let record = PathBuf::from(record);
        let (used_randoms, used_triples) = match fs::read_to_string(&record) {
            Ok(text) => {
                let f: Vec<u64> = text
                    .split_whitespace()
                    .filter_map(|w| w.parse().ok())
                    .collect();
                match f[..] {
                    [b, r, t] if b == prep.batch => (r as usize, t as usize),
                    _ => return Err(PrepError::BadRecord { path: record }),
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (0, 0),
            Err(source) => {
                return Err(PrepError::Io {
                    path: record,
                    source,
                })
            }
        };
        let store = PrepStore {
            holder: Holder {
                me,
                parties: params.parties,
                codes,
                alpha: Arc::new(prep.alpha.clone()),
            },
            prep,
            record,
            used_randoms,
            used_triples,
        };
        if store.randoms_left() == 0 && store.triples_left() == 0 {
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

    /// Random values not yet handed out.
    pub fn randoms_left(&self) -> usize {
        (self.prep.randoms.len() / (2 * self.prep.params.n)).saturating_sub(self.used_randoms)
    }

    /// Triples not yet handed out.
    pub fn triples_left(&self) -> usize {
        (self.prep.triples.len() / (6 * self.prep.params.n)).saturating_sub(self.used_triples)
    }

    /// Persists the offsets `(randoms, triples)` before any material leaves.
    fn commit(&mut self, randoms: usize, triples: usize) -> Result<(), PrepError> {
        let tmp = self.record.with_extension("consumed.tmp");
        let io = |source| PrepError::Io {
            path: self.record.clone(),
            source,
        };
        let mut f = fs::File::create(&tmp).map_err(io)?;
        writeln!(f, "{} {} {}", self.prep.batch, randoms, triples).map_err(io)?;
        f.sync_all().map_err(io)?;
        fs::rename(&tmp, &self.record).map_err(io)?;
        self.used_randoms = randoms;
        self.used_triples = triples;
        Ok(())
    }

    /// Builds shares of `count` items of `stride` words from `src` at item
    /// `first`, word `word` of each item.
    fn shares(
        &self,
        src: &[u8],
        first: usize,
        count: usize,
        stride: usize,
        word: usize,
        square: bool,
    ) -> Result<Shares, PrepError> {
        let n = self.prep.params.n;
        let (mut x, mut mac) = (Vec::with_capacity(count * n), Vec::with_capacity(count * n));
        for item in first..first + count {
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

    /// `Exhausted` unless `m <= left`.
    fn available(kind: &'static str, m: usize, left: usize) -> Result<(), PrepError> {
        if m > left {
            return Err(PrepError::Exhausted {
                kind,
                wanted: m,
                left,
            });
        }
        Ok(())
    }

    /// Takes `m` random values `[[r]]` (never handed out again).
    pub fn take_randoms(&mut self, m: usize) -> Result<Shares, PrepError> {
        Self::available("random values", m, self.randoms_left())?;
        let first = self.used_randoms;
        self.commit(first + m, self.used_triples)?;
        let s = self.shares(&self.prep.randoms, first, m, 1, 0, false)?;
        let n = self.prep.params.n;
        self.prep.randoms[first * 2 * n..(first + m) * 2 * n].fill(0);
        Ok(s)
    }

    /// Takes `m` triples `([[a]], [[b]], [[c]]*)`, `c` in `C*` with slots `a ∘ b`.
    pub fn take_triples(&mut self, m: usize) -> Result<[Shares; 3], PrepError> {
        Self::available("triples", m, self.triples_left())?;
        let first = self.used_triples;
        self.commit(self.used_randoms, first + m)?;
        let t = &self.prep.triples;
        let out = [
            self.shares(t, first, m, 3, 0, false)?,
            self.shares(t, first, m, 3, 1, false)?,
            self.shares(t, first, m, 3, 2, true)?,
        ];
        let n = self.prep.params.n;
        self.prep.triples[first * 6 * n..(first + m) * 6 * n].fill(0);
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;

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
        let mut tag = vec![0u8; 30];
        for t in 0..3 {
            let (a, ma) = open(&preps, t, 3, 0, 30);
            let (b, _) = open(&preps, t, 3, 1, 30);
            let (c, mc) = open(&preps, t, 3, 2, 30);
            assert!(codes.base.contains(&a) && codes.base.contains(&b));
            assert!(codes.square.contains(&c));
            let mut ab = vec![0u8; 30];
            mul_slices(&mut ab, &a, &b);
            assert_eq!(c[..10], ab[..10], "slots of c are a ∘ b");
            assert_ne!(c, ab, "c is masked beyond its slots");
            for (w, m) in [(&a, &ma), (&c, &mc)] {
                mul_slices(&mut tag, &alpha, w);
                assert_eq!(&tag, m, "MAC = α ∘ word");
            }
        }
        let (r, mr) = open(&preps, 1, 1, 0, 30);
        mul_slices(&mut tag, &alpha, &r);
        assert!(codes.base.contains(&r) && tag == mr);
    }
}
