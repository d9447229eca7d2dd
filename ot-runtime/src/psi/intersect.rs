//! The receiver's comparison [KKRT16, §5]: which of its OPRF values (one
//! per occupied bin) appear among the sender's tags of the same hash
//! index.
//!
//! The receiver's at most `n_r` tags are indexed by their first 8 bytes,
//! which are pseudorandom (OPRF outputs), so they place a tag directly,
//! without a keyed hash:
//!
//! * three open-addressing tables, one per hash index, of 64-byte buckets
//!   holding four tags each (one cache line per lookup, linear probing
//!   over buckets, load 1/2), the home bucket of a key `k` being
//!   `k · buckets / 2^64`;
//! * in front of them a bit filter of 16 to 32 bits per receiver tag (one
//!   bit set per tag, at the key's low bits), 16 times smaller than the
//!   tables and mostly in cache: it sends at most about 1/16 of the
//!   sender's non-matching tags on to a table.
//!
//! The sender's tags are then streamed through once, the tag at position
//! `p` looked up in the table of hash index `p % 3` only. The sender only
//! queries, so it cannot lengthen the probe sequences.

#![forbid(unsafe_code)]

use super::cuckoo::{try_filled, Cell, CuckooTable};
use super::tags::PsiTag;
use super::HASHES;
use crate::{Bits, Block};

/// Tags per bucket.
const WAYS: usize = 4;
/// Filter bits per receiver tag.
const FILTER_BITS: usize = 16;
/// Candidate tags whose home buckets are loaded together.
const PROBE_BATCH: usize = 32;
/// Key bits of the receiver tags' sort before insertion
/// ([`tag_indexes`]).
const PREFIX_BITS: u32 = 8;

/// A free entry's element index (elements are `< u32::MAX`).
const FREE: u32 = u32::MAX;

/// One receiver tag: its first 8 bytes, its last 4 and the element whose
/// OPRF value it is.
#[derive(Clone, Copy)]
struct Entry {
    key: u64,
    rest: u32,
    elem: u32,
}

impl Entry {
    const FREE: Entry = Entry {
        key: 0,
        rest: 0,
        elem: FREE,
    };
}

/// Four entries in one cache line.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Bucket([Entry; WAYS]);

/// The last 4 bytes of a tag.
#[inline]
fn rest(t: &PsiTag) -> u32 {
    u32::from_le_bytes([t.0[8], t.0[9], t.0[10], t.0[11]])
}

/// The receiver's tags of one hash index, by their first 8 bytes.
struct TagIndex {
    buckets: Vec<Bucket>,
}

impl TagIndex {
    /// An empty table for `count` tags (`ceil(count / 2)` buckets, at
    /// least one, so some entry always stays free); `None` if it cannot be
    /// allocated.
    fn with_count(count: usize) -> Option<TagIndex> {
        let n = count.div_ceil(WAYS / 2).max(1);
        Some(TagIndex {
            buckets: try_filled(n, Bucket([Entry::FREE; WAYS]))?,
        })
    }

    /// The home bucket of a key: `key · buckets / 2^64`.
    #[inline]
    fn home(&self, key: u64) -> usize {
        ((u128::from(key) * self.buckets.len() as u128) >> 64) as usize
    }

    /// The bucket after `b` (wrapping around).
    #[inline]
    fn next(&self, b: usize) -> usize {
        if b + 1 == self.buckets.len() {
            0
        } else {
            b + 1
        }
    }

    /// Adds an entry in the first bucket from its home with a free entry
    /// (there is one: load <= 1/2).
    fn insert(&mut self, entry: Entry) {
        let mut b = self.home(entry.key);
        for _ in 0..self.buckets.len() {
            if let Some(s) = self.buckets[b].0.iter_mut().find(|s| s.elem == FREE) {
                *s = entry;
                return;
            }
            b = self.next(b);
        }
    }

    /// Sets `hit[e]` for every element `e` whose tag is `t`: scans the
    /// buckets from the key's home up to the first one with a free entry
    /// (a tag is never stored past it), branch-free within a bucket (a
    /// non-match writes to `hit`'s last entry, a sink).
    #[inline]
    fn mark(&self, t: &PsiTag, hit: &mut [bool]) {
        let (key, rest) = (t.key(), rest(t));
        let sink = hit.len().saturating_sub(1);
        let mut b = self.home(key);
        for _ in 0..self.buckets.len() {
            let mut free = false;
            for s in &self.buckets[b].0 {
                let m = s.key == key && s.rest == rest && s.elem != FREE;
                if let Some(h) = hit.get_mut(if m { s.elem as usize } else { sink }) {
                    *h |= m;
                }
                free |= s.elem == FREE;
            }
            if free {
                return;
            }
            b = self.next(b);
        }
    }
}

/// A one-bit-per-tag filter of the receiver's keys at their low bits: a
/// clear bit means no receiver tag has the key.
struct KeyFilter {
    words: Vec<u64>,
    mask: usize,
}

impl KeyFilter {
    /// A filter of `FILTER_BITS · count` bits (a power of two, at least 64);
    /// `None` if it cannot be allocated.
    fn with_count(count: usize) -> Option<KeyFilter> {
        let bits = count
            .checked_mul(FILTER_BITS)?
            .checked_next_power_of_two()?
            .max(64);
        Some(KeyFilter {
            words: try_filled(bits / 64, 0u64)?,
            mask: bits - 1,
        })
    }

    /// Sets the bit of `key`.
    #[inline]
    fn insert(&mut self, key: u64) {
        let p = key as usize & self.mask;
        if let Some(w) = self.words.get_mut(p / 64) {
            *w |= 1 << (p % 64);
        }
    }

    /// Whether the bit of `key` is set.
    #[inline]
    fn may_contain(&self, key: u64) -> bool {
        let p = key as usize & self.mask;
        self.words
            .get(p / 64)
            .is_some_and(|w| (w >> (p % 64)) & 1 == 1)
    }
}

/// The filter and the three tables of the receiver's tags:
/// `PsiTag::of(values[j])` of every occupied bin `j < values.len()`, in
/// the table of the hash index that placed its element. `None` if they
/// cannot be allocated.
///
/// The tags are first sorted by hash index and the top [`PREFIX_BITS`]
/// bits of their key (a counting sort), then inserted in that order: the
/// home bucket grows with the key, so each table is filled in one sweep
/// instead of one random access (and TLB miss) per tag.
fn tag_indexes(cells: &[Cell], values: &[Block]) -> Option<(KeyFilter, [TagIndex; HASHES])> {
    const PARTS: usize = 1 << PREFIX_BITS;
    let part = |i: usize, key: u64| i * PARTS + (key >> (64 - PREFIX_BITS)) as usize;
    let occupied = || {
        cells
            .iter()
            .zip(values)
            .enumerate()
            .filter_map(|(j, (c, &v))| Some((c.hash_index(j) % HASHES, c.element()?, v)))
    };
    let mut starts = vec![0usize; HASHES * PARTS + 1];
    for (i, _, v) in occupied() {
        starts[part(i, v.lo()) + 1] += 1;
    }
    for p in 0..HASHES * PARTS {
        starts[p + 1] += starts[p];
    }
    let total = starts[HASHES * PARTS];
    let mut sorted = try_filled(total, Entry::FREE)?;
    let mut filter = KeyFilter::with_count(total)?;
    let mut next = starts.clone();
    for (i, e, v) in occupied() {
        let t = PsiTag::of(v);
        filter.insert(t.key());
        if let Some(s) = sorted.get_mut(next[part(i, t.key())]) {
            *s = Entry {
                key: t.key(),
                rest: rest(&t),
                elem: e as u32,
            };
        }
        next[part(i, t.key())] += 1;
    }
    let build = |i: usize| {
        let run = sorted.get(starts[i * PARTS]..starts[(i + 1) * PARTS])?;
        let mut ix = TagIndex::with_count(run.len())?;
        run.iter().for_each(|&s| ix.insert(s));
        Some(ix)
    };
    Some((filter, [build(0)?, build(1)?, build(2)?]))
}

/// Marks the elements of the candidate tags `tags[p]` (`(p, p % 3)` in
/// `cand`): loads every home bucket first (independent loads, no branch
/// on their contents), then probes.
fn probe_batch(
    index: &[TagIndex; HASHES],
    tags: &[PsiTag],
    cand: &[(usize, usize)],
    hit: &mut [bool],
) {
    let mut touch = 0u32;
    for &(p, i) in cand {
        if let Some(t) = tags.get(p) {
            let ix = &index[i];
            touch ^= ix.buckets[ix.home(t.key())].0[0].elem;
        }
    }
    core::hint::black_box(touch);
    for &(p, i) in cand {
        if let Some(t) = tags.get(p) {
            index[i].mark(t, hit);
        }
    }
}

/// The receiver's OPRF values indexed for the comparison: built from its
/// table and values ([`psi_index`]) while the sender computes its tags,
/// then queried with them ([`psi_lookup`]). `None` inside when the table
/// failed or the index could not be allocated (every lookup is then all
/// zeros). The tags are the receiver's OPRF outputs: dropped with it.
pub struct PsiIndex {
    /// The filter and the per-hash-index tables.
    tables: Option<(KeyFilter, [TagIndex; HASHES])>,
    /// Each element's representative (`n` for none), from the table.
    reps: Vec<u32>,
}

impl Drop for PsiIndex {
    /// Wipes the receiver's tags (its OPRF outputs) and representatives.
    fn drop(&mut self) {
        use zeroize::Zeroize;
        if let Some((filter, tables)) = &mut self.tables {
            filter.words.zeroize();
            for t in tables.iter_mut() {
                for e in t.buckets.iter_mut().flat_map(|b| b.0.iter_mut()) {
                    e.key.zeroize();
                    e.rest.zeroize();
                    e.elem.zeroize();
                }
            }
        }
        self.reps.zeroize();
    }
}

impl core::fmt::Debug for PsiIndex {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("PsiIndex")
            .field("elements", &self.reps.len())
            .field("ok", &self.tables.is_some())
            .finish_non_exhaustive()
    }
}

/// The receiver's index of its OPRF values [KKRT16, §5]: the tag
/// `PsiTag::of(values[j])` of every occupied bin `j`, under the hash
/// index `i` that placed its element (`values[j]` is the receiver's OPRF
/// output of bin `j`, the OPRF of [`crate::psi::cuckoo_inputs`]).
/// `values` should have `table.bins()` entries; bins past `values.len()`
/// never match and extra values are ignored. Never panics.
pub fn psi_index(table: &CuckooTable, values: &[Block]) -> PsiIndex {
    let tables = if table.is_ok() {
        tag_indexes(table.cells(), values)
    } else {
        None
    };
    PsiIndex {
        tables,
        reps: table.reps().to_vec(),
    }
}

/// The receiver's output [KKRT16, §5]: bit `e` (of `n` bits, the length
/// of the set the index's table was built from; another `n` gives `n`
/// zeros) is set iff the representative of element `e`, placed by hash
/// function `i`, has its tag equal to some `tags[p]` with `p % 3 == i`
/// (`tags` are the sender's, [`crate::psi::psi_sender_tags`]).
///
/// The hash-index check matters: a sender tag made for hash `i'` at the
/// same bin is the value of another input (`H(i', y) != H(i, y)`), and
/// without the check a tag would match at any residue, tripling the
/// comparisons behind the false-positive bound of [`crate::psi`].
///
/// `tags` should be a multiple of 3 long; a trailing partial group is
/// ignored. An index of a failed table gives all zeros. Never panics.
pub fn psi_lookup(index: &PsiIndex, tags: &[PsiTag], n: usize) -> Bits {
    let mut out = Bits::zeros(n);
    if index.reps.len() != n {
        return out;
    }
    // One more entry than elements: the sink of non-matches.
    let (Some((filter, tables)), Some(mut hit)) = (&index.tables, try_filled(n + 1, false)) else {
        return out;
    };
    // Candidates (tags through the filter) are probed in batches whose
    // home buckets are loaded first, so that the cache misses overlap.
    let mut cand = [(0usize, 0usize); PROBE_BATCH];
    let mut k = 0;
    let whole = tags.len() / HASHES * HASHES;
    for (p, t) in tags[..whole].iter().enumerate() {
        if filter.may_contain(t.key()) {
            cand[k] = (p, p % HASHES);
            k += 1;
            if k == PROBE_BATCH {
                probe_batch(tables, tags, &cand, &mut hit);
                k = 0;
            }
        }
    }
    probe_batch(tables, tags, &cand[..k], &mut hit);
    for (e, &r) in index.reps.iter().enumerate() {
        if r as usize != n && hit.get(r as usize).copied().unwrap_or(false) {
            out.set(e, true);
        }
    }
    out
}

/// [`psi_index`] then [`psi_lookup`] (both halves of the receiver's
/// comparison at once): bit `e` of `table.len()` bits. A table that is
/// not ok gives all zeros.
pub fn psi_intersect(table: &CuckooTable, values: &[Block], tags: &[PsiTag]) -> Bits {
    psi_lookup(&psi_index(table, values), tags, table.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::psi::{cuckoo_table, psi_bins};

    #[test]
    fn the_index_finds_every_tag_including_a_zero_key_and_collisions() {
        // Values with equal and zero first halves.
        let values: Vec<Block> = (0..40u128)
            .map(|j| match j {
                3 | 4 => Block(1 << 100 | 77),
                5 => Block(9 << 64),
                6 => Block(8 << 64 | 77),
                _ => Block(j << 64 | (j * 0x9e37 + 1)),
            })
            .collect();
        // Bin j holds element j placed by hash j % 3.
        let cells: Vec<Cell> = (0..40u32)
            .map(|j| Cell::test_cell(j, j, j as usize % 3))
            .collect();
        let (filter, index) = tag_indexes(&cells, &values).unwrap();
        let find = |i: usize, t: PsiTag| {
            let mut hit = vec![false; 41];
            index[i].mark(&t, &mut hit);
            (0..40).filter(|&e| hit[e]).collect::<Vec<_>>()
        };
        for (j, v) in values.iter().enumerate() {
            assert!(filter.may_contain(v.lo()));
            let found = find(j % 3, PsiTag::of(*v));
            let want: Vec<usize> = (0..40)
                .filter(|&e| e % 3 == j % 3 && values[e] == *v)
                .collect();
            assert_eq!(found, want, "bin {j}");
            assert!(found.contains(&j));
            assert!(!find((j + 1) % 3, PsiTag::of(*v)).contains(&j));
        }
        // Equal first 8 bytes, other last 4: no match.
        assert_eq!(find(0, PsiTag::of(Block(1 << 100 | 77))), vec![3]);
        assert_eq!(
            find(0, PsiTag::of(Block(2 << 64 | 77))),
            Vec::<usize>::new()
        );
        assert_eq!(find(0, PsiTag::of(Block(8 << 64 | 77))), vec![6]);
        // Shorter values: the missing bins are not indexed.
        let (_, index) = tag_indexes(&cells, &values[..2]).unwrap();
        assert!(index.iter().all(|ix| ix
            .buckets
            .iter()
            .flat_map(|b| b.0.iter())
            .filter(|s| s.elem != FREE)
            .all(|s| s.elem < 2)));
    }

    #[test]
    fn overflowing_buckets_are_probed_past_and_the_filter_has_no_false_negatives() {
        // 64 tags with one home bucket (equal top bits) overflow into the
        // next buckets, wrapping around the end of the table.
        let values: Vec<Block> = (0..64u128)
            .map(|j| Block(u64::MAX as u128 - j * 0x1_0000))
            .collect();
        let cells: Vec<Cell> = (0..64u32).map(|j| Cell::test_cell(j, j, 0)).collect();
        let (filter, index) = tag_indexes(&cells, &values).unwrap();
        assert_eq!(index[0].buckets.len(), 32);
        assert!(values.iter().all(|v| index[0].home(v.lo()) == 31));
        for (j, v) in values.iter().enumerate() {
            assert!(filter.may_contain(v.lo()));
            let mut hit = vec![false; 65];
            index[0].mark(&PsiTag::of(*v), &mut hit);
            assert!(hit[j], "tag {j}");
            assert_eq!(hit[..64].iter().filter(|&&h| h).count(), 1);
        }
        // Random keys mostly miss the filter (16 bits per tag).
        let mut prg = crate::primitives::prg::Prg::new(Block(1));
        let passed = (0..10_000)
            .filter(|_| filter.may_contain(prg.next_block().lo()))
            .count();
        assert!(passed < 1_000, "{passed}");
    }

    #[test]
    fn a_failed_table_or_short_inputs_give_zeros_without_panicking() {
        let set: Vec<Block> = (0..10u128).map(Block).collect();
        let bad = cuckoo_table(&set, Block(1), 5);
        let out = psi_intersect(&bad, &[Block(1); 5], &[PsiTag::of(Block(1)); 6]);
        assert_eq!(out.len(), 10);
        assert_eq!(out.count_ones(), 0);
        let good = cuckoo_table(&set, Block(1), psi_bins(10));
        let out = psi_intersect(&good, &[], &[PsiTag::default(); 7]);
        assert_eq!((out.len(), out.count_ones()), (10, 0));
        assert_eq!(
            psi_intersect(&cuckoo_table(&[], Block(1), 0), &[], &[]).len(),
            0
        );
    }
}
