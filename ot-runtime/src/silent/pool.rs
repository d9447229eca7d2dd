//! Recycled output buffers of silent OT's batches.
//!
//! One Ferret batch writes about 173 MB per party into a fresh vector,
//! and on this kind of machine the first touch of fresh pages costs more
//! than the batch's AES work (about 65 ms per 173 MB, against 8 ms for a
//! second pass over the same memory). A party that runs batch after batch
//! therefore hands each batch's buffer back when the caller drops its
//! outputs (`ot::FerretCots` does), and the next batch takes it from here.
//!
//! Buffers are wiped (volatile zeroing of their whole capacity) when they
//! are given back, so the pool holds no secret, and taken buffers read as
//! zero. The pool keeps at most [`MAX_BUFFERS`] buffers; [`clear`]
//! releases them.

use std::sync::Mutex;

use zeroize::Zeroize;

use crate::Block;

/// Buffers kept at most (two parties of one process, one batch each).
pub const MAX_BUFFERS: usize = 2;

/// How many times larger than asked a recycled buffer may be.
pub const MAX_SLACK: usize = 4;

/// Buffers smaller than this are not kept (fresh small ones are cheap).
const MIN_BLOCKS: usize = 1 << 16;

static POOL: Mutex<Vec<Vec<Block>>> = Mutex::new(Vec::new());

/// A zeroed vector of `n` blocks: the smallest recycled buffer of at least
/// that capacity if the pool has one no more than [`MAX_SLACK`] times too
/// large, else a fresh one (a set-up batch does not take, and then wipe
/// when it is given back, a main batch's buffer).
pub fn take(n: usize) -> Vec<Block> {
    if n >= MIN_BLOCKS {
        let found = take_from(&mut POOL.lock().unwrap_or_else(|e| e.into_inner()), n);
        if let Some(mut v) = found {
            // Kept at its full capacity, wiped: all zero.
            v.truncate(n);
            return v;
        }
    }
    Block::zeroed_vec(n)
}

/// The best-fitting kept buffer for `n` blocks, removed from `pool`.
fn take_from(pool: &mut Vec<Vec<Block>>, n: usize) -> Option<Vec<Block>> {
    let fit = (0..pool.len())
        .filter(|&i| pool[i].len() >= n && pool[i].len() / MAX_SLACK <= n)
        .min_by_key(|&i| pool[i].len())?;
    Some(pool.swap_remove(fit))
}

/// Wipes `v` over its whole capacity and keeps it for a later [`take`]
/// (or frees it, if it is small, or the pool is full of buffers at least
/// as large; a larger one replaces the smallest kept).
pub fn give(mut v: Vec<Block>) {
    v.resize(v.capacity(), Block::ZERO);
    v.iter_mut().for_each(|b| b.0.zeroize());
    if v.capacity() < MIN_BLOCKS {
        return;
    }
    keep_in(&mut POOL.lock().unwrap_or_else(|e| e.into_inner()), v);
}

/// Keeps the wiped buffer `v` in `pool` under the bound.
fn keep_in(pool: &mut Vec<Vec<Block>>, v: Vec<Block>) {
    if pool.len() < MAX_BUFFERS {
        pool.push(v);
    } else if let Some(smallest) = pool.iter_mut().min_by_key(|b| b.len()) {
        // Full: keep the larger buffers (fresh large ones cost the most).
        if smallest.len() < v.len() {
            *smallest = v;
        }
    }
}

/// Frees every kept buffer.
pub fn clear() {
    POOL.lock().unwrap_or_else(|e| e.into_inner()).clear();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_come_back_wiped_and_the_pool_is_bounded() {
        clear();
        let mut v = take(MIN_BLOCKS);
        v.iter_mut().for_each(|b| *b = Block(7));
        v.truncate(10); // the tail keeps stale contents in its capacity
        let cap = v.capacity();
        give(v);
        let w = take(MIN_BLOCKS);
        assert_eq!(w.capacity(), cap);
        assert!(w.iter().all(|b| *b == Block::ZERO));
        for _ in 0..MAX_BUFFERS + 2 {
            give(Block::zeroed_vec(MIN_BLOCKS));
        }
        assert!(POOL.lock().unwrap().len() <= MAX_BUFFERS);
        give(w);
        clear();
        assert!(POOL.lock().unwrap().is_empty());
    }

    /// On a pool of its own (the global one is shared with the tests
    /// running beside this one).
    #[test]
    fn the_best_fit_is_taken_and_large_buffers_are_kept() {
        let mut pool = vec![];
        keep_in(&mut pool, Block::zeroed_vec(8 * MIN_BLOCKS));
        keep_in(&mut pool, Block::zeroed_vec(2 * MIN_BLOCKS));
        // The smaller one that fits.
        let got = take_from(&mut pool, MIN_BLOCKS).map(|v| v.len());
        assert_eq!(got, Some(2 * MIN_BLOCKS));
        // Eight times too large: none (the caller allocates).
        assert!(take_from(&mut pool, MIN_BLOCKS).is_none());
        keep_in(&mut pool, Block::zeroed_vec(2 * MIN_BLOCKS));
        // Full: a larger buffer replaces the smallest, a smaller one is not kept.
        keep_in(&mut pool, Block::zeroed_vec(4 * MIN_BLOCKS));
        keep_in(&mut pool, Block::zeroed_vec(MIN_BLOCKS));
        let mut kept: Vec<usize> = pool.iter().map(|b| b.len()).collect();
        kept.sort();
        assert_eq!(kept, vec![4 * MIN_BLOCKS, 8 * MIN_BLOCKS]);
    }
}
