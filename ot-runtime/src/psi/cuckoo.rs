//! The receiver's cuckoo table [KKRT16, §5]: every element of its set in
//! one of its three bins ([`crate::psi::bin_hashes`]), at most one element
//! per bin, so that one OPRF instance per bin suffices.
//!
//! Insertion is the random walk of cuckoo hashing: an element goes into a
//! free bin among its three if there is one; otherwise it evicts the
//! occupant of one of its bins chosen at random (never the bin the element
//! was itself just evicted from, unless it has no other), which is then
//! reinserted the same way, for at most [`MAX_EVICTIONS`] evictions. There
//! is no stash: if an insertion fails, the whole table is rebuilt under a
//! fresh seed, at most [`MAX_ATTEMPTS`] times.
//!
//! A bin records its element's three bins: an evicted element's
//! other bins are then at hand without rehashing it (one dependent memory
//! access per eviction instead of two), and an element equal to a placed
//! one is recognized by its bins before the elements are compared.

#![forbid(unsafe_code)]

use super::hashing::{derive, split_bins, BinHasher};
use super::rand::Words;
use super::MAX_BINS;
use crate::Block;

/// Evictions allowed per insertion before an attempt fails.
pub const MAX_EVICTIONS: usize = 500;
/// Attempts (seeds) [`cuckoo_table`] tries before it gives up.
pub const MAX_ATTEMPTS: u64 = 8;

/// Domain label of the eviction PRG's seed.
const EVICT_DOMAIN: &[u8] = b"ot-runtime/psi/kkrt16/cuckoo-evict/v1";
/// Domain label of the retry seeds.
const RETRY_DOMAIN: &[u8] = b"ot-runtime/psi/kkrt16/cuckoo-retry/v1";

/// Elements hashed, and whose bins are loaded, together before they are
/// inserted.
const BATCH: usize = 32;

/// A bin's content: the index of the element placed there (`u32::MAX`:
/// none) and the element's three bins.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cell {
    elem: u32,
    bins: [u32; 3],
}

impl Cell {
    /// An empty bin.
    const EMPTY: Cell = Cell {
        elem: u32::MAX,
        bins: [u32::MAX; 3],
    };

    /// Element `e` placed in bin `j` by hash `i` (other bins unused).
    #[cfg(test)]
    pub(crate) fn test_cell(e: u32, j: u32, i: usize) -> Cell {
        let mut bins = [u32::MAX - 1; 3];
        bins[i] = j;
        Cell { elem: e, bins }
    }

    /// The element placed in the bin, `None` if it is empty.
    #[inline]
    pub(crate) fn element(&self) -> Option<usize> {
        (self.elem != u32::MAX).then_some(self.elem as usize)
    }

    /// The hash index that places the element in bin `j`: the first `i`
    /// with `h_i(x) == j` (if two hash functions meet in `j`, both give
    /// this bin; the receiver's input and its comparison both use the
    /// first, and the sender's tags cover every `i`).
    #[inline]
    pub(crate) fn hash_index(&self, j: usize) -> usize {
        self.bins.iter().position(|&b| b as usize == j).unwrap_or(0)
    }
}

/// The receiver's cuckoo table of one PSI run: the seed the table was
/// built under (the one the sender must use), the number of bins, the
/// element placed in each bin with the hash index that placed it, and for
/// each element its representative (the first element equal to it: equal
/// elements share one bin). Built by [`cuckoo_table`]. Where the
/// receiver's elements sit is derived from its secret set: the cells and
/// representatives are wiped on drop, and `Debug` shows only the sizes.
#[derive(Clone)]
pub struct CuckooTable {
    seed: Block,
    bins: usize,
    /// One cell per bin; empty if not ok.
    cells: Vec<Cell>,
    /// Per element: the index of its representative (`rep[e] <= e`);
    /// empty if not ok.
    rep: Vec<u32>,
    /// The set's length.
    len: usize,
    ok: bool,
}

impl core::fmt::Debug for CuckooTable {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CuckooTable")
            .field("bins", &self.bins)
            .field("elements", &self.len)
            .field("ok", &self.ok)
            .finish_non_exhaustive()
    }
}

impl Drop for CuckooTable {
    fn drop(&mut self) {
        use zeroize::Zeroize;
        for c in &mut self.cells {
            c.elem.zeroize();
            c.bins.zeroize();
        }
        self.rep.zeroize();
    }
}

impl CuckooTable {
    /// The seed the table was built under: the one the receiver sends, so
    /// the sender hashes with the same functions. It is the sampled seed
    /// when the first attempt succeeds, else a seed derived from it
    /// ([`cuckoo_table`]).
    pub fn seed(&self) -> Block {
        self.seed
    }

    /// The number of bins (OPRF instances).
    pub fn bins(&self) -> usize {
        self.bins
    }

    /// Whether every element was placed. A table that is not ok has no
    /// placements and must not be used for the protocol.
    pub fn is_ok(&self) -> bool {
        self.ok
    }

    /// The number of elements the table was built from (its set's length,
    /// duplicates included).
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table was built from an empty set.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The placement of bin `j`: `Some((e, i))` if element `e` of the set
    /// is there, placed by hash function `i` (`h_i(set[e]) == j`; the
    /// least such `i`), `None` for an empty bin, `j >= bins` or a failed
    /// table.
    pub fn slot(&self, j: usize) -> Option<(usize, usize)> {
        let c = self.cells.get(j)?;
        Some((c.element()?, c.hash_index(j)))
    }

    /// The representative of element `e` (the first element equal to it,
    /// which holds their bin), `None` if `e` is out of range or the table
    /// is not ok.
    pub fn representative(&self, e: usize) -> Option<usize> {
        self.rep.get(e).map(|&r| r as usize)
    }

    /// The cells, one per bin (for [`crate::psi::psi_intersect`]).
    pub(crate) fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// The representatives (for [`crate::psi::psi_intersect`]).
    pub(crate) fn reps(&self) -> &[u32] {
        &self.rep
    }
}

/// A vector of `n` copies of `v`, `None` if it cannot be allocated.
pub(crate) fn try_filled<T: Clone>(n: usize, v: T) -> Option<Vec<T>> {
    let mut out = Vec::new();
    out.try_reserve_exact(n).ok()?;
    out.resize(n, v);
    Some(out)
}

/// The receiver's cuckoo table of `set` in `bins` bins (use
/// [`crate::psi::psi_bins`]) under `seed` [KKRT16, §5; the parameters of
/// PSSZ15 and PSTY19, see [`crate::psi::psi_bins`]].
///
/// Elements are inserted in order; an element equal to one already placed
/// is not inserted again and shares the first one's bin (its
/// representative). Insertion is the random walk of the module docs, with
/// at most [`MAX_EVICTIONS`] = 500 evictions per insertion, the evicted
/// bin chosen by an AES-CTR stream seeded with a derivation of the seed
/// (label `"ot-runtime/psi/kkrt16/cuckoo-evict/v1"`), so the table is a
/// deterministic function of `set`, `seed` and `bins`.
///
/// If an insertion fails, the table is rebuilt from scratch under the seed
/// `derive("ot-runtime/psi/kkrt16/cuckoo-retry/v1", seed, a)` for attempt
/// `a = 1, 2, ...`, at most [`MAX_ATTEMPTS`] = 8 attempts in all (`derive`
/// is SHA-256 over the length-prefixed label, the seed and `a` as 8
/// little-endian bytes, truncated to 16 bytes). The sender sees only the
/// final seed: it does not know the sampled one, so it cannot tell
/// whether a retry happened (the seed is conditioned on the set's hashing
/// succeeding, a bias of the order of the failure probability, about
/// `2^-40` per attempt at [`crate::psi::psi_bins`]).
///
/// Never panics: if every attempt fails, or `set` has `u32::MAX` elements
/// or more, or `bins` exceeds [`MAX_BINS`], or the table cannot be
/// allocated, the result has `is_ok() == false` and the sampled seed. An
/// empty set always succeeds (also with `bins == 0`); a non-empty set in 0
/// bins, or with more distinct elements than bins, fails.
pub fn cuckoo_table(set: &[Block], seed: Block, bins: usize) -> CuckooTable {
    let failed = |bins| CuckooTable {
        seed,
        bins,
        cells: Vec::new(),
        rep: Vec::new(),
        len: set.len(),
        ok: false,
    };
    if bins > MAX_BINS || set.len() >= u32::MAX as usize {
        return failed(bins);
    }
    let (Some(mut cells), Some(mut rep)) =
        (try_filled(bins, Cell::EMPTY), try_filled(set.len(), 0u32))
    else {
        return failed(bins);
    };
    for a in 0..MAX_ATTEMPTS {
        let s = if a == 0 {
            seed
        } else {
            derive(RETRY_DOMAIN, seed, a)
        };
        if attempt(set, s, bins, &mut cells, &mut rep) {
            return CuckooTable {
                seed: s,
                bins,
                cells,
                rep,
                len: set.len(),
                ok: true,
            };
        }
    }
    failed(bins)
}

/// One attempt under `seed`: fills `cells` (`bins` long) and `rep`
/// (`set.len()` long); false if an insertion needed more than
/// [`MAX_EVICTIONS`] evictions (or `bins == 0` with a non-empty set).
fn attempt(set: &[Block], seed: Block, bins: usize, cells: &mut [Cell], rep: &mut [u32]) -> bool {
    cells.fill(Cell::EMPTY);
    if set.is_empty() {
        return true;
    }
    if bins == 0 || cells.len() < bins || rep.len() < set.len() {
        return false;
    }
    let hasher = BinHasher::new(seed);
    let mut words = Words::new(derive(EVICT_DOMAIN, seed, 0));
    let mut raw = [Block::ZERO; BATCH];
    let mut hbs = [[0u32; 3]; BATCH];
    for (c, xs) in set.chunks(BATCH).enumerate() {
        hasher.raw_many(xs, &mut raw);
        // Load the batch's bins first: independent loads whose cache
        // misses overlap, before the branchy insertions.
        let mut touch = 0u32;
        for (hb, &h) in hbs.iter_mut().zip(&raw[..xs.len()]) {
            *hb = split_bins(h, bins);
            touch ^= hb.iter().fold(0, |a, &j| a ^ cells[j as usize].elem);
        }
        core::hint::black_box(touch);
        'elements: for (k, (&x, &hb)) in xs.iter().zip(&hbs).enumerate() {
            let e = c * BATCH + k;
            for &j in &hb {
                let d = cells[j as usize];
                if d.bins == hb && d.elem != u32::MAX && set[d.elem as usize] == x {
                    rep[e] = d.elem;
                    continue 'elements;
                }
            }
            rep[e] = e as u32;
            let placed = Cell {
                elem: e as u32,
                bins: hb,
            };
            if !insert(placed, cells, &mut words) {
                return false;
            }
        }
    }
    true
}

/// The random walk inserting the element of `cur` (its index and bins).
fn insert(mut cur: Cell, cells: &mut [Cell], words: &mut Words) -> bool {
    let mut prev = u32::MAX;
    for step in 0..=MAX_EVICTIONS {
        let hb = cur.bins;
        if let Some(&j) = hb.iter().find(|&&j| cells[j as usize].elem == u32::MAX) {
            cells[j as usize] = cur;
            return true;
        }
        if step == MAX_EVICTIONS {
            break;
        }
        // Evict from a bin other than the one `cur` was just evicted from.
        let others = hb.iter().filter(|&&j| j != prev).count();
        let j = if others == 0 {
            hb[words.below(3) as usize]
        } else {
            let r = words.below(others as u64) as usize;
            hb.iter()
                .copied()
                .filter(|&j| j != prev)
                .nth(r)
                .unwrap_or(hb[0])
        };
        cur = core::mem::replace(&mut cells[j as usize], cur);
        prev = j;
    }
    false
}

/// [`CuckooTable::seed`]: the seed the receiver sends.
pub fn cuckoo_seed(table: &CuckooTable) -> Block {
    table.seed()
}

/// [`CuckooTable::is_ok`]: whether the receiver may go on with the table.
pub fn cuckoo_ok(table: &CuckooTable) -> bool {
    table.is_ok()
}

/// Receiver's OPRF inputs, one per bin [KKRT16, §5]: for bin `j` holding
/// element `x` placed by hash function `i`, `psi_input(seed, i, x)`
/// ([`crate::psi::psi_input`] under the table's seed), and
/// `Block::ZERO` for an empty bin (its OPRF value is never compared).
/// Length `table.bins()`.
///
/// `set` must be the set the table was built from (the table stores
/// indices into it); an index beyond `set` gives `Block::ZERO`. A table
/// that is not ok gives all zeros (an empty vector if even that cannot be
/// allocated, or if `bins` exceeds [`MAX_BINS`]).
pub fn cuckoo_inputs(table: &CuckooTable, set: &[Block]) -> Vec<Block> {
    const BATCH: usize = 256;
    if table.bins > MAX_BINS {
        return Vec::new();
    }
    let Some(mut out) = try_filled(table.bins, Block::ZERO) else {
        return Vec::new();
    };
    let hasher = BinHasher::new(table.seed);
    let mut js = [0usize; BATCH];
    let mut which = [0u8; BATCH];
    let mut ys = [Block::ZERO; BATCH];
    let mut vals = [Block::ZERO; BATCH];
    let mut k = 0;
    let mut flush = |k: usize, js: &[usize], which: &[u8], ys: &[Block], out: &mut [Block]| {
        hasher.inputs_many(&which[..k], &ys[..k], &mut vals[..k]);
        for (&j, &v) in js[..k].iter().zip(&vals[..k]) {
            out[j] = v;
        }
    };
    for (j, c) in table.cells.iter().enumerate() {
        let Some(&x) = c.element().and_then(|e| set.get(e)) else {
            continue;
        };
        js[k] = j;
        which[k] = c.hash_index(j) as u8;
        ys[k] = x;
        k += 1;
        if k == BATCH {
            flush(k, &js, &which, &ys, &mut out);
            k = 0;
        }
    }
    flush(k, &js, &which, &ys, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::prg::Prg;
    use crate::psi::{bin_hashes, psi_bins, psi_input};

    fn random_set(seed: u128, n: usize) -> Vec<Block> {
        let mut prg = Prg::new(Block(seed));
        (0..n).map(|_| prg.next_block()).collect()
    }

    /// Every element's representative is the first equal element, sits in
    /// one of its bins with the right hash index, and every placed
    /// element is a representative of itself.
    fn check_table(t: &CuckooTable, set: &[Block]) {
        assert!(t.is_ok());
        assert_eq!(t.len(), set.len());
        let h = BinHasher::new(t.seed());
        let mut placed = vec![None; set.len()];
        for j in 0..t.bins() {
            if let Some((e, i)) = t.slot(j) {
                assert_eq!(bin_hashes(&h, set[e], t.bins())[i] as usize, j);
                assert!(placed[e].is_none(), "element {e} in two bins");
                placed[e] = Some(j);
            }
        }
        for (e, &x) in set.iter().enumerate() {
            let r = t.representative(e).unwrap();
            assert_eq!(set[r], x);
            let first = set.iter().position(|&y| y == x).unwrap();
            assert_eq!(r, first, "the first equal element represents {e}");
            assert!(placed[r].is_some(), "representative of {e} placed");
            if r != e {
                assert!(placed[e].is_none(), "duplicate {e} placed again");
            }
        }
        assert_eq!(t.slot(t.bins()), None);
    }

    #[test]
    fn every_element_is_in_one_of_its_bins_and_duplicates_share() {
        let mut set = random_set(1, 300);
        set.extend_from_within(10..40);
        set.push(set[0]);
        set.push(set[0]);
        set.insert(5, set[200]);
        let bins = psi_bins(set.len());
        let t = cuckoo_table(&set, Block(11), bins);
        check_table(&t, &set);
        let occupied = (0..bins).filter(|&j| t.slot(j).is_some()).count();
        assert_eq!(occupied, 300, "one bin per distinct element");
        assert_eq!(cuckoo_seed(&t), t.seed());
        assert!(cuckoo_ok(&t));
        // Deterministic.
        let u = cuckoo_table(&set, Block(11), bins);
        assert_eq!(u.cells, t.cells);
        assert_eq!(u.rep, t.rep);
    }

    #[test]
    fn two_to_the_sixteen_elements_fit_in_psi_bins() {
        let set = random_set(2, 1 << 16);
        let t = cuckoo_table(&set, Block(12), psi_bins(1 << 16));
        check_table(&t, &set);
        assert_eq!(t.seed(), Block(12), "first attempt succeeds");
    }

    #[test]
    fn too_many_elements_zero_bins_and_empty_sets_fail_or_pass_cleanly() {
        let set = random_set(3, 50);
        let t = cuckoo_table(&set, Block(1), 49);
        assert!(!t.is_ok());
        assert_eq!((t.seed(), t.len(), t.bins()), (Block(1), 50, 49));
        assert_eq!(t.slot(0), None);
        assert_eq!(cuckoo_inputs(&t, &set), vec![Block::ZERO; 49]);
        assert!(!cuckoo_table(&set, Block(1), 0).is_ok());
        let huge = cuckoo_table(&set, Block(1), MAX_BINS + 1);
        assert!(!huge.is_ok());
        assert!(cuckoo_inputs(&huge, &set).is_empty());
        // Fifty copies of one element fit in one bin.
        let same = vec![Block(5); 50];
        let t = cuckoo_table(&same, Block(1), 1);
        check_table(&t, &same);
        for bins in [0, 1, 40] {
            let t = cuckoo_table(&[], Block(2), bins);
            assert!(t.is_ok() && t.is_empty());
            assert_eq!(t.bins(), bins);
            assert_eq!(cuckoo_inputs(&t, &[]), vec![Block::ZERO; bins]);
        }
        // Exactly full: 3 distinct elements in 3 bins may or may not fit,
        // never panics, and a success is a valid table.
        for s in 0..50u128 {
            let set = random_set(100 + s, 3);
            let t = cuckoo_table(&set, Block(s), 3);
            if t.is_ok() {
                check_table(&t, &set);
            }
        }
    }

    #[test]
    fn a_failed_first_attempt_is_retried_under_a_derived_seed() {
        // Sets of 5 elements in 5 bins: a single attempt fails often (no
        // perfect matching of elements to bins for some hash outcomes,
        // eviction cycles for others); find one that fails under the
        // sampled seed and check the retry.
        let mut found = 0;
        for s in 0..2000u128 {
            let set = random_set(7_000 + s, 5);
            let seed = Block(s * 31 + 1);
            let (mut cells, mut rep) = (vec![Cell::EMPTY; 5], vec![0; 5]);
            if attempt(&set, seed, 5, &mut cells, &mut rep) {
                let t = cuckoo_table(&set, seed, 5);
                assert_eq!(t.seed(), seed, "success first time keeps the seed");
                assert_eq!(t.cells, cells);
                continue;
            }
            let t = cuckoo_table(&set, seed, 5);
            if t.is_ok() {
                assert_ne!(t.seed(), seed);
                let a = (1..MAX_ATTEMPTS)
                    .find(|&a| t.seed() == derive(RETRY_DOMAIN, seed, a))
                    .expect("a retry seed");
                for b in 1..a {
                    let s = derive(RETRY_DOMAIN, seed, b);
                    assert!(!attempt(&set, s, 5, &mut cells, &mut rep));
                }
                check_table(&t, &set);
                assert_eq!(cuckoo_table(&set, seed, 5).seed(), t.seed());
                found += 1;
            }
        }
        assert!(found >= 10, "retried successes: {found}");
    }

    #[test]
    fn random_sets_always_hash() {
        for s in 0..2000u128 {
            let n = 1 + (s as usize % 64);
            let set = random_set(10_000 + s, n);
            let t = cuckoo_table(&set, Block(s), psi_bins(n));
            assert!(t.is_ok(), "set {s} of {n}");
        }
        for s in 0..200u128 {
            let set = random_set(20_000 + s, 1000);
            let t = cuckoo_table(&set, Block(s << 64), psi_bins(1000));
            assert!(t.is_ok(), "set {s} of 1000");
        }
        let set = random_set(5, 64);
        check_table(&cuckoo_table(&set, Block(6), psi_bins(64)), &set);
    }

    #[test]
    fn inputs_are_the_hashes_of_the_placed_elements() {
        let mut set = random_set(8, 500);
        set.push(set[3]);
        let t = cuckoo_table(&set, Block(9), psi_bins(set.len()));
        let inputs = cuckoo_inputs(&t, &set);
        assert_eq!(inputs.len(), t.bins());
        let h = BinHasher::new(t.seed());
        for (j, &v) in inputs.iter().enumerate() {
            match t.slot(j) {
                Some((e, i)) => assert_eq!(v, psi_input(&h, i, set[e])),
                None => assert_eq!(v, Block::ZERO),
            }
        }
        // A shorter set: bins of missing elements are zero.
        let short = cuckoo_inputs(&t, &set[..100]);
        for (j, &v) in short.iter().enumerate() {
            match t.slot(j) {
                Some((e, _)) if e < 100 => assert_eq!(v, inputs[j]),
                _ => assert_eq!(v, Block::ZERO),
            }
        }
    }
}
