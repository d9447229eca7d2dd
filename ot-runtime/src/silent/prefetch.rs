//! A software prefetch hint for the LPN step's reads of the base values
//! at public positions ([`super::lpn`]): the positions of a chunk of rows
//! are known before its sums are formed, so the reads of a row a few rows
//! ahead can be started early, which keeps more of the (L3-resident)
//! base table's cache misses in flight than the out-of-order window does.

#![allow(unsafe_code)]

/// Asks the CPU to fetch the cache line holding `x` into L1 (a hint: no
/// effect on results, and none on targets without a prefetch instruction).
#[inline(always)]
pub(super) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `_mm_prefetch` needs SSE, which every x86_64 CPU has; a
    // prefetch never faults and reads nothing into the program (the
    // pointer comes from a live reference anyway).
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (x as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}
