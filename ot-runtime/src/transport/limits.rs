//! The memory budget: the most memory one value of a protocol run (an
//! input, output, message field or intermediate value) may take.
//!
//! Generated `Params::new` computes every such size from the parameters
//! with checked arithmetic and refuses parameters that overflow or exceed
//! [`memory_budget`] (`Error::TooLarge`, which carries the size and the
//! budget), before anything is sent or allocated. The default is half of the
//! machine's physical memory (on Linux `MemTotal` from `/proc/meminfo`,
//! lowered to the cgroup v2 `memory.max` limit when there is one), read once
//! at the first use; where it cannot be read, [`FALLBACK_BUDGET`].
//! [`set_memory_budget`] changes it for the whole process.
//!
//! Kernels that allocate buffers sized from user-supplied or received
//! lengths reserve them with [`try_vec`] (fallible reservation), so that
//! even a value within the budget that the allocator cannot provide is an
//! [`AllocError`] rather than an abort.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The budget where physical memory cannot be read: 16 GiB (on 64-bit
/// targets; half the address space on smaller ones).
pub const FALLBACK_BUDGET: usize = if usize::BITS >= 64 {
    16 << 30
} else {
    usize::MAX / 2
};

/// 0: not set, use the default.
static BUDGET: AtomicUsize = AtomicUsize::new(0);

/// The most bytes one value of a protocol run may take: the value set by
/// [`set_memory_budget`], else [`default_memory_budget`].
pub fn memory_budget() -> usize {
    match BUDGET.load(Ordering::Relaxed) {
        0 => default_memory_budget(),
        b => b,
    }
}

/// Sets the budget for the whole process (for example lower on a machine
/// shared with other services, or higher for a batch that needs it); 0
/// restores the default. Returns the previous budget. `Params` built
/// earlier keep the check they passed.
pub fn set_memory_budget(bytes: usize) -> usize {
    let old = memory_budget();
    BUDGET.store(bytes, Ordering::Relaxed);
    old
}

/// Half of [`physical_memory`], else [`FALLBACK_BUDGET`] (computed once).
pub fn default_memory_budget() -> usize {
    static DEFAULT: OnceLock<usize> = OnceLock::new();
    *DEFAULT.get_or_init(|| physical_memory().map_or(FALLBACK_BUDGET, |m| (m / 2).max(1)))
}

/// Physical memory available to this process in bytes, where the platform
/// tells: on Linux the smaller of `MemTotal` and the cgroup v2 limit.
pub fn physical_memory() -> Option<usize> {
    let total = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|t| meminfo_total(&t));
    let cgroup = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|t| t.trim().parse::<usize>().ok());
    match (total, cgroup) {
        (Some(t), Some(c)) => Some(t.min(c)),
        (t, c) => t.or(c),
    }
}

/// `MemTotal` of a `/proc/meminfo` text, in bytes.
fn meminfo_total(text: &str) -> Option<usize> {
    let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
    let mut words = line["MemTotal:".len()..].split_whitespace();
    let kib: usize = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") | None => kib.checked_mul(1024),
        Some(_) => None,
    }
}

/// A buffer the allocator could not provide (or whose size overflows).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AllocError {
    /// What the buffer holds.
    pub what: &'static str,
    /// Its size in bytes (None: overflows `usize`).
    pub bytes: Option<usize>,
    /// The memory budget at the time.
    pub budget: usize,
}

/// Says which of the three causes it was: a size that overflows, one over
/// the budget, or one the allocator refused (the operating system's limit).
impl core::fmt::Display for AllocError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (what, budget) = (self.what, self.budget);
        match self.bytes {
            None => write!(f, "cannot allocate {what}: its size overflows usize"),
            Some(b) if b > budget => write!(
                f,
                "cannot allocate {what}: {b} bytes, more than the memory budget of {budget} bytes"
            ),
            Some(b) => write!(
                f,
                "cannot allocate {what}: {b} bytes refused by the allocator (within the memory budget of {budget} bytes)"
            ),
        }
    }
}

impl std::error::Error for AllocError {}

/// The [`AllocError`] for `len` entries of `T` (`None`: the caller's size
/// computation overflowed) if their size overflows or exceeds
/// [`memory_budget`], else the error to report should the allocator refuse.
fn within_budget<T>(len: Option<usize>, what: &'static str) -> Result<AllocError, AllocError> {
    let budget = memory_budget();
    let bytes = len.and_then(|l| l.checked_mul(std::mem::size_of::<T>()));
    let err = AllocError {
        what,
        bytes,
        budget,
    };
    match bytes {
        Some(b) if b <= budget => Ok(err),
        _ => Err(err),
    }
}

/// An empty vector with room for `len` entries (`None`: the caller's size
/// computation overflowed), reserved fallibly: an [`AllocError`] naming
/// `what` if the size overflows, exceeds [`memory_budget`], or the
/// allocator refuses.
pub fn try_with_capacity<T>(len: Option<usize>, what: &'static str) -> Result<Vec<T>, AllocError> {
    let err = within_budget::<T>(len, what)?;
    let mut v = Vec::new();
    v.try_reserve_exact(len.unwrap_or(0)).map_err(|_| err)?;
    Ok(v)
}

/// A vector of `len` default values, reserved fallibly (as
/// [`try_with_capacity`]).
pub fn try_vec<T: Clone + Default>(len: usize, what: &'static str) -> Result<Vec<T>, AllocError> {
    let mut v = try_with_capacity(Some(len), what)?;
    v.resize(len, T::default());
    Ok(v)
}

/// Resizes `v` to `len` entries (new ones `T::default()`), reserving the
/// growth fallibly (as [`try_with_capacity`]; a buffer that already has the
/// room is not reallocated). For the buffers a streamed round writes whole
/// (outputs of `m` entries, possibly reused from an earlier run).
pub fn try_resize<T: Clone + Default>(
    v: &mut Vec<T>,
    len: usize,
    what: &'static str,
) -> Result<(), AllocError> {
    let err = within_budget::<T>(Some(len), what)?;
    v.try_reserve_exact(len.saturating_sub(v.len()))
        .map_err(|_| err)?;
    // Before the first write of the new capacity: huge pages where the
    // system allows (a kept-whole matrix at 2^24 OTs is 256 MiB).
    crate::primitives::huge_pages::advise(v);
    v.resize(len, T::default());
    Ok(())
}

/// The largest memory one role of a protocol run holds at once, as
/// generated `Params::peak_memory` bounds it: where, on what it depends, and
/// how many bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Peak {
    /// The role and the point of its run (as `Error::TooLarge`'s `value`).
    pub what: &'static str,
    /// The parameters the bound depends on (as `Error::TooLarge`'s `params`).
    pub params: &'static str,
    /// The bound in bytes (None: it overflows `usize`).
    pub bytes: Option<usize>,
}

/// One point of a role's run for [`peak`]: `(what, params, counts)`, where
/// `counts` lists `(index into the sizes, how many values of that size)`.
pub type PeakPoint<'a> = (&'static str, &'static str, &'a [(usize, usize)]);

/// The largest of the sums `points` describe over the value sizes `sizes`
/// (`None`: a size that overflows): each point is `(what, params, counts)`
/// where `counts` lists `(index into sizes, how many)`. Sums are checked:
/// one that overflows is the largest (`bytes: None`), never a wrapped
/// figure. Used by generated `Params::new` for the run-wide memory bound;
/// `None` when there are no points. The first of equal points is returned.
pub fn peak(sizes: &[Option<usize>], points: &[PeakPoint<'_>]) -> Option<Peak> {
    let mut worst: Option<Peak> = None;
    for &(what, params, counts) in points {
        let bytes = counts.iter().try_fold(0usize, |acc, &(i, n)| {
            acc.checked_add(sizes.get(i).copied().flatten()?.checked_mul(n)?)
        });
        let larger = match (worst.map(|w| w.bytes), bytes) {
            (None, _) => true,
            (Some(None), _) => false,
            (Some(Some(_)), None) => true,
            (Some(Some(w)), Some(b)) => b > w,
        };
        if larger {
            worst = Some(Peak {
                what,
                params,
                bytes,
            });
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn meminfo_is_parsed() {
        let t = "MemTotal:       16318412 kB\nMemFree:  1 kB\n";
        assert_eq!(meminfo_total(t), Some(16318412 * 1024));
        assert_eq!(meminfo_total("MemFree: 1 kB"), None);
        assert_eq!(meminfo_total("MemTotal: x kB"), None);
    }

    #[test]
    fn default_is_half_of_physical_memory_or_the_fallback() {
        let d = default_memory_budget();
        match physical_memory() {
            Some(m) => assert_eq!(d, (m / 2).max(1)),
            None => assert_eq!(d, FALLBACK_BUDGET),
        }
    }

    #[test]
    fn try_vec_refuses_overflow_and_sizes_over_the_budget() {
        assert_eq!(try_vec::<u8>(3, "x").unwrap(), vec![0, 0, 0]);
        let e = try_vec::<u64>(usize::MAX, "x").unwrap_err();
        assert_eq!(e.bytes, None);
        assert!(e.to_string().contains("overflows"), "{e}");
        let over = memory_budget() / 8 + 1;
        let e = try_vec::<u64>(over, "blocks").unwrap_err();
        assert!(e.bytes.is_some_and(|b| b > e.budget));
        assert!(e.to_string().contains("blocks"));
        assert!(e.to_string().contains("more than the memory budget"), "{e}");
        let mut v = vec![1u32; 2];
        try_resize(&mut v, 4, "x").unwrap();
        assert_eq!(v, [1, 1, 0, 0]);
        assert!(try_resize(&mut v, usize::MAX, "x").is_err());
        assert_eq!(v.len(), 4);
    }

    #[test]
    fn peak_is_the_largest_checked_sum() {
        let sizes = [Some(10), Some(usize::MAX / 2), None, Some(3)];
        let small: &[(usize, usize)] = &[(0, 2), (3, 1)];
        let big: &[(usize, usize)] = &[(0, 1), (3, 5)];
        let p = peak(&sizes, &[("a", "`m`", small), ("b", "`m`", big)]).unwrap();
        assert_eq!((p.what, p.bytes), ("b", Some(25)));
        // A sum past usize::MAX (each term fits) is an overflow, not a wrap,
        // and beats every figure.
        let wraps: &[(usize, usize)] = &[(1, 2), (0, 1)];
        let p = peak(&sizes, &[("a", "`m`", small), ("w", "`m`", wraps)]).unwrap();
        assert_eq!((p.what, p.bytes), ("w", None));
        let times: &[(usize, usize)] = &[(1, 3)];
        assert_eq!(peak(&sizes, &[("t", "", times)]).unwrap().bytes, None);
        let unknown: &[(usize, usize)] = &[(2, 1)];
        assert_eq!(peak(&sizes, &[("u", "", unknown)]).unwrap().bytes, None);
        assert_eq!(peak(&sizes, &[]), None);
    }
}
