//! Transparent huge pages for large buffers.
//!
//! A protocol run at 2^24 OTs allocates buffers of hundreds of MiB (the
//! matrix a malicious check keeps whole, outputs, payloads). Backed by
//! 4 KiB pages, every first touch of a page is a page fault, and the
//! kernel's fault handling (zeroing, accounting, page-table locks) showed
//! as about a fifth of a 2^24 malicious SoftSpokenOT run in `perf`.
//! Where the system leaves transparent huge pages to the program (`madvise`
//! mode, a common default), [`advise`] asks for 2 MiB pages on the
//! 2 MiB-aligned interior of a buffer before it is first written: one fault
//! per 2 MiB instead of per 4 KiB, and fewer TLB misses afterwards. The
//! advice changes how the kernel backs the memory, never its contents; on
//! systems without it (or outside Linux) it does nothing.

#![allow(unsafe_code)]

/// Buffers below this many bytes are left alone (one huge page).
pub const MIN_BYTES: usize = 2 << 20;

/// Asks the kernel to back the allocation of `v` (its whole capacity) with
/// huge pages where it can; a no-op for allocations below [`MIN_BYTES`].
/// Call it before the first write, as the pages already touched keep
/// their size.
pub fn advise<T>(v: &Vec<T>) {
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes >= MIN_BYTES {
        advise_range(v.as_ptr().cast::<u8>(), bytes);
    }
}

#[cfg(target_os = "linux")]
fn advise_range(start: *const u8, bytes: usize) {
    let page = MIN_BYTES;
    let first = (start as usize).div_ceil(page) * page;
    let end = (start as usize).saturating_add(bytes) / page * page;
    if end <= first {
        return;
    }
    // SAFETY: `[first, end)` lies inside one live allocation of the caller
    // (a `Vec`'s capacity), page-aligned; MADV_HUGEPAGE only changes how the
    // kernel backs those pages, not their contents or mapping, and an
    // error (e.g. no THP support) is ignored: the memory stays as it was.
    unsafe {
        libc::madvise(first as *mut libc::c_void, end - first, libc::MADV_HUGEPAGE);
    }
}

#[cfg(not(target_os = "linux"))]
fn advise_range(_start: *const u8, _bytes: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advised_buffers_keep_their_contents() {
        let mut v = vec![7u64; (MIN_BYTES / 8) * 3 + 5];
        advise(&v);
        assert!(v.iter().all(|&x| x == 7));
        v.iter_mut().for_each(|x| *x = 9);
        assert!(v.iter().all(|&x| x == 9));
        let small = vec![1u8; 10];
        advise(&small);
        assert_eq!(small, vec![1u8; 10]);
        let empty: Vec<u128> = Vec::new();
        advise(&empty);
    }
}
