//! End-to-end test of the PSI kernels without a network: the OPRF is a
//! random [`OprfKey`] whose receiver outputs are computed with the key.

#![forbid(unsafe_code)]

use super::*;
use crate::oprf::code::PrCode;
use crate::oprf::OprfKey;
use crate::primitives::prg::Prg;
use crate::{Bits, Block};
use std::collections::HashSet;

/// A random KKRT key with `m` instances.
fn random_key(prg: &mut Prg, m: usize) -> OprfKey {
    let mut q = vec![[Block::ZERO; 4]; m];
    for w in q.iter_mut() {
        prg.fill(w);
    }
    let mut s = [Block::ZERO; 4];
    prg.fill(&mut s);
    let session = prg.next_block();
    OprfKey::pseudorandom(q, &s, session, &PrCode::from_session(session), false)
}

/// Receiver set of `n_r` elements (with duplicates when `n_r >= 4`) and
/// sender set holding `overlap` of its distinct elements, fresh ones and
/// duplicates, shuffled.
fn sets(prg: &mut Prg, n_r: usize, overlap: usize, fresh: usize) -> (Vec<Block>, Vec<Block>) {
    let mut x: Vec<Block> = (0..n_r).map(|_| prg.next_block()).collect();
    if n_r >= 4 {
        x[n_r - 1] = x[1];
        x[n_r - 2] = x[1];
        x[(n_r / 2) | 1] = x[0];
    }
    let mut y: Vec<Block> = x.iter().step_by(2).take(overlap).copied().collect();
    y.extend((0..fresh).map(|_| prg.next_block()));
    if let Some(&first) = y.first() {
        y.push(first);
    }
    (x, shuffle_blocks(&y, prg.next_block()))
}

/// The receiver's side: table, inputs and OPRF values.
fn receiver(key: &OprfKey, x: &[Block], seed: Block) -> (CuckooTable, Vec<Block>) {
    let table = cuckoo_table(x, seed, psi_bins(x.len()));
    assert!(cuckoo_ok(&table));
    let inputs = cuckoo_inputs(&table, x);
    assert_eq!(inputs.len(), key.len());
    let values = inputs
        .iter()
        .enumerate()
        .map(|(j, &v)| key.eval(j, v).unwrap())
        .collect();
    (table, values)
}

fn expected(x: &[Block], y: &[Block]) -> Bits {
    let ys: HashSet<u128> = y.iter().map(|b| b.0).collect();
    Bits::from_bools(&x.iter().map(|b| ys.contains(&b.0)).collect::<Vec<_>>())
}

#[test]
fn the_kernels_compute_exactly_the_intersection() {
    let mut prg = Prg::new(Block(0x5e7));
    for (n_r, overlap, fresh) in [
        (0, 0, 3),
        (1, 1, 2),
        (1, 0, 5),
        (100, 30, 90),
        (5000, 1700, 4000),
    ] {
        let key = random_key(&mut prg, psi_bins(n_r));
        let (x, y) = sets(&mut prg, n_r, overlap, fresh);
        let (table, values) = receiver(&key, &x, prg.next_block());
        let tags = psi_sender_tags(&key, &y, cuckoo_seed(&table), 1);
        assert_eq!(tags.len(), 3 * y.len());
        let got = psi_intersect(&table, &values, &tags);
        let want = expected(&x, &y);
        assert_eq!(got, want, "n_r {n_r}");
        assert!(want.count_ones() >= overlap.min(n_r), "overlap present");
        if n_r >= 100 {
            assert!(want.count_ones() > overlap, "receiver duplicates counted");
            assert_eq!(psi_sender_tags(&key, &y, cuckoo_seed(&table), 2), tags);
            assert_eq!(psi_sender_tags(&key, &y, cuckoo_seed(&table), 7), tags);
        }
    }
}

#[test]
fn a_tag_counts_only_at_its_own_hash_index() {
    let mut prg = Prg::new(Block(0xa11));
    let n_r = 400;
    let key = random_key(&mut prg, psi_bins(n_r));
    let (x, y) = sets(&mut prg, n_r, 150, 100);
    let (table, values) = receiver(&key, &x, prg.next_block());
    let tags = psi_sender_tags(&key, &y, cuckoo_seed(&table), 1);
    let want = expected(&x, &y);
    assert_eq!(psi_intersect(&table, &values, &tags), want);
    assert!(want.count_ones() > 100);
    // Rotating each group moves every tag to another residue: nothing
    // matches any more, though every tag is still there.
    for r in 1..3 {
        let moved: Vec<PsiTag> = tags
            .chunks_exact(3)
            .flat_map(|g| [g[r % 3], g[(r + 1) % 3], g[(r + 2) % 3]])
            .collect();
        assert_eq!(psi_intersect(&table, &values, &moved).count_ones(), 0);
    }
    // Reordering whole groups keeps residues: same result; a trailing
    // partial group is ignored.
    let mut reversed: Vec<PsiTag> = tags.chunks_exact(3).rev().flatten().copied().collect();
    assert_eq!(psi_intersect(&table, &values, &reversed), want);
    reversed.extend_from_slice(&tags[..2]);
    assert_eq!(psi_intersect(&table, &values, &reversed), want);
    // One element's tags only, at the right residues.
    let k = y.iter().position(|v| x.contains(v)).unwrap();
    let e = x.iter().position(|v| *v == y[k]).unwrap();
    let one = psi_intersect(&table, &values, &tags[3 * k..3 * k + 3]);
    assert!(one.get(e));
    assert_eq!(one.count_ones(), x.iter().filter(|v| **v == y[k]).count());
    // A sender under another seed hashes elsewhere: (almost) nothing.
    let other = psi_sender_tags(&key, &y, cuckoo_seed(&table) ^ Block(1), 1);
    assert_eq!(psi_intersect(&table, &values, &other).count_ones(), 0);
}

#[test]
// The formula exactly as documented, not its `div_ceil` rewrite.
#[allow(clippy::manual_div_ceil)]
fn psi_bins_is_the_documented_formula() {
    assert_eq!(psi_bins(0), 32);
    assert_eq!(psi_bins(1), 34);
    assert_eq!(psi_bins(100), 159);
    assert_eq!(psi_bins(1 << 20), (127 * (1 << 20) + 99) / 100 + 32);
    assert_eq!(psi_bins(usize::MAX), usize::MAX);
    for n in 0..1000 {
        assert_eq!(psi_bins(n), (127 * n + 99) / 100 + 32);
    }
    assert_eq!(HASHES, 3);
}

#[test]
fn an_empty_key_gives_default_tags() {
    let key = OprfKey::pseudorandom(
        Vec::new(),
        &[Block::ZERO; 4],
        Block(1),
        &PrCode::from_session(Block(1)),
        false,
    );
    let tags = psi_sender_tags(&key, &[Block(1), Block(2)], Block(3), 1);
    assert_eq!(tags, vec![PsiTag::default(); 6]);
}
