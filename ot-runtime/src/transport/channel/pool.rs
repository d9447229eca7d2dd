//! Recycling of large frame buffers.
//!
//! Bulk protocol phases stream hundreds of MiB as frames of 256 KiB–1 MiB.
//! Allocating each frame afresh costs page faults and kernel page clearing
//! (the allocator hands such sizes back to the kernel when they are freed),
//! which shows up as a major cost next to the copy itself. A [`BufferPool`]
//! keeps a bounded number of spent frame buffers so that the next frame of
//! a similar size can be copied into one of them instead.
//! Spares that nothing takes back within two seconds are freed, so a
//! long-lived connection's memory stays flat across sessions.
//!
//! Buffers in the pool are always cleared (`len == 0`); whoever takes one
//! writes the new frame with `extend_from_slice`, so the stale bytes still
//! in its capacity are never observable and one frame cannot leak into
//! another.

use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::Block;

/// Buffers smaller than this are neither pooled nor taken from the pool:
/// small allocations are cheap (served from the allocator's free lists
/// without page faults), and keeping them would only crowd out the large
/// buffers that matter.
pub(crate) const RECYCLE_MIN: usize = 16 * 1024;

/// Most buffers a pool keeps, whatever their size; bounds the best-fit scan.
const MAX_BUFFERS: usize = 512;

/// A spare buffer not taken back within this time after it was put is
/// freed. Bulk streams reuse their buffers within milliseconds, and runs
/// of a benchmark follow each other within this time; buffers that nothing
/// reuses (frames a protocol built in fresh vectors and sent, once per
/// session) would otherwise pile up to the byte bound on a long-lived
/// connection.
const MAX_IDLE: Duration = Duration::from_secs(2);

/// The buffers kept, each with the time it was put, and the sum of their
/// capacities.
#[derive(Debug, Default)]
struct Spares {
    bufs: Vec<(Vec<u8>, Instant)>,
    bytes: usize,
}

impl Spares {
    /// Moves the buffers idle for longer than [`MAX_IDLE`] into `evicted`.
    fn expire(&mut self, now: Instant, evicted: &mut Vec<Vec<u8>>) {
        let mut i = 0;
        while i < self.bufs.len() {
            if now.duration_since(self.bufs[i].1) > MAX_IDLE {
                let (buf, _) = self.bufs.swap_remove(i);
                self.bytes -= buf.capacity();
                evicted.push(buf);
            } else {
                i += 1;
            }
        }
    }
}

/// A bounded, thread-safe set of spare frame buffers (see the module docs).
///
/// One side puts buffers it no longer needs (the writer thread after a frame
/// went out, a receiver whose buffer was replaced by the received frame),
/// the other takes them when it must copy a borrowed slice into an owned
/// frame. At most `max_bytes` of capacity (and at most a fixed number of
/// buffers) are kept; that is the memory the pool may hold on to while the
/// channel is idle.
#[derive(Debug)]
pub(crate) struct BufferPool {
    spares: Mutex<Spares>,
    max_bytes: usize,
}

impl BufferPool {
    /// An empty pool that keeps at most `max_bytes` of buffer capacity.
    pub(crate) fn new(max_bytes: usize) -> Self {
        BufferPool {
            spares: Mutex::new(Spares::default()),
            max_bytes,
        }
    }

    /// Locks the spares; a poisoned lock still holds a consistent list (every
    /// update is a single push or remove plus a counter change), so it is
    /// used as is.
    fn lock(&self) -> MutexGuard<'_, Spares> {
        self.spares.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Offers a spent buffer for reuse. Small buffers are dropped. Spares
    /// idle for longer than [`MAX_IDLE`] are freed first. When the pool is
    /// full, smaller spares are evicted to make room for a larger one
    /// (larger buffers serve more frame sizes); a buffer that still does not
    /// fit is dropped. Deallocation happens after the lock is released.
    pub(crate) fn put(&self, mut buf: Vec<u8>) {
        let cap = buf.capacity();
        if cap < RECYCLE_MIN || cap > self.max_bytes {
            return;
        }
        buf.clear();
        let now = Instant::now();
        let mut evicted = Vec::new();
        let mut sp = self.lock();
        sp.expire(now, &mut evicted);
        while sp.bytes + cap > self.max_bytes || sp.bufs.len() >= MAX_BUFFERS {
            let smallest = sp
                .bufs
                .iter()
                .enumerate()
                .min_by_key(|(_, (b, _))| b.capacity())
                .map(|(i, (b, _))| (i, b.capacity()));
            match smallest {
                Some((i, c)) if c < cap => {
                    sp.bytes -= c;
                    evicted.push(sp.bufs.swap_remove(i).0);
                }
                _ => {
                    drop(sp);
                    return;
                }
            }
        }
        sp.bytes += cap;
        sp.bufs.push((buf, now));
        drop(sp);
        drop(evicted);
    }

    /// Takes the smallest spare buffer with room for `len` bytes, if any.
    /// The buffer is empty (`len == 0`).
    pub(crate) fn take(&self, len: usize) -> Option<Vec<u8>> {
        if len < RECYCLE_MIN {
            return None;
        }
        let mut sp = self.lock();
        // Among equal fits the most recently returned one (scanning from
        // the back): it is the likeliest to still be in cache.
        let (i, _) = sp
            .bufs
            .iter()
            .enumerate()
            .rev()
            .filter(|(_, (b, _))| b.capacity() >= len)
            .min_by_key(|(_, (b, _))| b.capacity())?;
        let (buf, _) = sp.bufs.remove(i);
        sp.bytes -= buf.capacity();
        Some(buf)
    }

    /// An owned copy of `msg`, in a recycled buffer when one fits (no
    /// allocation, no page faults), else in a fresh exact-size allocation.
    pub(crate) fn copy_of(&self, msg: &[u8]) -> Vec<u8> {
        match self.take(msg.len()) {
            Some(mut buf) => {
                buf.extend_from_slice(msg);
                buf
            }
            None => msg.to_vec(),
        }
    }

    /// Frees the spares that would be idle too long at `now` (for tests).
    #[cfg(test)]
    pub(crate) fn expire_at(&self, now: Instant) {
        let mut evicted = Vec::new();
        self.lock().expire(now, &mut evicted);
    }

    /// Number of spare buffers and their total capacity (for tests).
    #[cfg(test)]
    pub(crate) fn held(&self) -> (usize, usize) {
        let sp = self.lock();
        (sp.bufs.len(), sp.bytes)
    }
}

/// A bounded, thread-safe stack of spent chunk buffers of `T` (blocks,
/// block pairs), for [`Channel::send_blocks`](super::Channel::send_blocks)
/// and [`Channel::send_pairs`](super::Channel::send_pairs): the writer thread
/// puts the storage of a chunk it wrote, the sender takes one back in
/// exchange for its next chunk.
///
/// Unlike [`BufferPool`], buffers keep their length and stale contents
/// (blocks that were already sent to the peer): the caller overwrites the
/// whole chunk anyway, and zeroing it first would be a wasted pass over
/// it. The most recently returned buffer is handed out first, the one most
/// likely still in cache.
/// Buffers idle for longer than [`MAX_IDLE`] are freed, as in
/// [`BufferPool`].
#[derive(Debug)]
pub(crate) struct ChunkPool<T> {
    /// See [`ChunkSpares`].
    spares: Mutex<ChunkSpares<T>>,
    max_bytes: usize,
}

/// The pool of block chunks ([`Channel::send_blocks`](super::Channel::send_blocks)).
pub(crate) type BlockPool = ChunkPool<Block>;
/// The pool of block-pair chunks ([`Channel::send_pairs`](super::Channel::send_pairs)).
pub(crate) type PairPool = ChunkPool<[Block; 2]>;

/// Spare chunks (oldest first) with the time each was put, and the sum of
/// their capacities in bytes.
type ChunkSpares<T> = (Vec<(Vec<T>, Instant)>, usize);

impl<T> ChunkPool<T> {
    /// Bytes of `buf`'s capacity.
    fn bytes(buf: &Vec<T>) -> usize {
        std::mem::size_of::<T>().saturating_mul(buf.capacity())
    }

    /// An empty pool that keeps at most `max_bytes` of buffer capacity.
    pub(crate) fn new(max_bytes: usize) -> Self {
        ChunkPool {
            spares: Mutex::new((Vec::new(), 0)),
            max_bytes,
        }
    }

    fn lock(&self) -> MutexGuard<'_, ChunkSpares<T>> {
        self.spares.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Keeps `buf` for reuse unless the pool is full (then it is dropped,
    /// after the lock is released); first frees the spares idle for longer
    /// than [`MAX_IDLE`] (the oldest, at the bottom of the stack).
    pub(crate) fn put(&self, buf: Vec<T>) {
        let bytes = Self::bytes(&buf);
        let now = Instant::now();
        let mut sp = self.lock();
        let stale =
            sp.0.iter()
                .take_while(|(_, put)| now.duration_since(*put) > MAX_IDLE)
                .count();
        let expired: Vec<(Vec<T>, Instant)> = sp.0.drain(..stale).collect();
        sp.1 -= expired.iter().map(|(b, _)| Self::bytes(b)).sum::<usize>();
        if sp.1 + bytes <= self.max_bytes && sp.0.len() < MAX_BUFFERS {
            sp.1 += bytes;
            sp.0.push((buf, now));
        }
        drop(sp);
        drop(expired);
    }

    /// The most recently kept buffer, if its capacity holds `len` blocks
    /// (chunks of one stream all have the same size; a mismatch leaves the
    /// pool as it is and the caller allocates).
    pub(crate) fn take(&self, len: usize) -> Option<Vec<T>> {
        let mut sp = self.lock();
        if sp.0.last()?.0.capacity() < len {
            return None;
        }
        let (buf, _) = sp.0.pop()?;
        sp.1 -= Self::bytes(&buf);
        Some(buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_buffers_are_not_pooled() {
        let pool = BufferPool::new(1 << 20);
        pool.put(Vec::with_capacity(RECYCLE_MIN - 1));
        assert_eq!(pool.held(), (0, 0));
        assert!(pool.take(10).is_none());
    }

    #[test]
    fn best_fit_and_cleared() {
        let pool = BufferPool::new(1 << 24);
        pool.put(vec![7; 1 << 20]);
        pool.put(vec![8; 100 << 10]);
        let b = pool.take(50 << 10).unwrap();
        assert!(b.is_empty());
        assert_eq!(b.capacity(), 100 << 10);
        assert!(pool.take(2 << 20).is_none());
        let c = pool.copy_of(&[1; 600 << 10]);
        assert_eq!(c, vec![1; 600 << 10]);
        assert_eq!(c.capacity(), 1 << 20);
        assert_eq!(pool.held(), (0, 0));
    }

    #[test]
    fn bounded_by_bytes_and_prefers_large() {
        let pool = BufferPool::new(3 << 20);
        for _ in 0..3 {
            pool.put(Vec::with_capacity(1 << 20));
        }
        assert_eq!(pool.held(), (3, 3 << 20));
        // Full: an equal-size buffer is dropped.
        pool.put(Vec::with_capacity(1 << 20));
        assert_eq!(pool.held(), (3, 3 << 20));
        // Larger than the whole pool: dropped.
        pool.put(Vec::with_capacity(4 << 20));
        assert_eq!(pool.held(), (3, 3 << 20));
        // A 2 MiB buffer evicts two 1 MiB ones.
        pool.put(Vec::with_capacity(2 << 20));
        assert_eq!(pool.held(), (2, 3 << 20));
        assert_eq!(pool.take(1 << 20).unwrap().capacity(), 1 << 20);
        assert_eq!(pool.take(1).map(|b| b.capacity()), None);
        assert_eq!(pool.take(RECYCLE_MIN).unwrap().capacity(), 2 << 20);
    }

    #[test]
    fn idle_spares_are_freed() {
        let pool = BufferPool::new(1 << 24);
        pool.put(Vec::with_capacity(1 << 20));
        pool.put(Vec::with_capacity(2 << 20));
        pool.expire_at(Instant::now() + MAX_IDLE / 2);
        assert_eq!(pool.held(), (2, 3 << 20));
        pool.expire_at(Instant::now() + MAX_IDLE * 2);
        assert_eq!(pool.held(), (0, 0));
    }
}
