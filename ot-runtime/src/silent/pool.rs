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

/// Buffers smaller than this are not kept (fresh small ones are cheap).
const MIN_BLOCKS: usize = 1 << 16;

static POOL: Mutex<Vec<Vec<Block>>> = Mutex::new(Vec::new());

/// A zeroed vector of `n` blocks: a recycled buffer of at least that
/// capacity if the pool has one, else a fresh one.
pub fn take(n: usize) -> Vec<Block> {
    if n >= MIN_BLOCKS {
        let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = pool.iter().position(|b| b.len() >= n) {
            let mut v = pool.swap_remove(i);
            drop(pool);
            // Kept at its full capacity, wiped: all zero.
            v.truncate(n);
            return v;
        }
    }
    Block::zeroed_vec(n)
}

/// Wipes `v` over its whole capacity and keeps it for a later [`take`]
/// (or frees it, if it is small or the pool is full).
pub fn give(mut v: Vec<Block>) {
    v.resize(v.capacity(), Block::ZERO);
    v.iter_mut().for_each(|b| b.0.zeroize());
    if v.capacity() < MIN_BLOCKS {
        return;
    }
    let mut pool = POOL.lock().unwrap_or_else(|e| e.into_inner());
    if pool.len() < MAX_BUFFERS {
        pool.push(v);
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
}
