//! The span context of a streamed kernel: which entries of the whole
//! result one call computes.
//!
//! A kernel that a `chunked` round can run chunk by chunk is one function
//! with one call shape (see `protocols/prelude.otp` and the book's `.otp`
//! language chapter, "Chunked rounds"):
//!
//! ```text
//! kernel(values..., span: Span, out: &mut Out)
//! ```
//!
//! It computes entries (columns, for a `BitMatrix`) `span.offset ..
//! span.offset + span.len` of its result into `out`. The generated code
//! calls it once per chunk inside a chunked round and once with
//! [`Span::whole`] everywhere else; Rust callers do the same, or use
//! [`Span::collect`] for a `Vec` result.

/// Entries `offset..offset + len` of a kernel's whole result: the chunk one
/// call of a streamed kernel computes (a span of rows, or of columns of a
/// `BitMatrix`). Values the kernel streams are passed as their chunk;
/// everything indexed by the whole (tweaks, PRG counters, choice bits) is
/// read at `offset + i`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    /// Index in the whole of the chunk's first entry.
    pub offset: usize,
    /// The chunk's number of entries (a kernel clips it to what its
    /// inputs and `out` hold).
    pub len: usize,
}

impl Span {
    /// Entries `offset..offset + len`.
    #[inline]
    pub const fn new(offset: usize, len: usize) -> Self {
        Span { offset, len }
    }

    /// All `len` entries from the start: the call shape of a whole
    /// (unchunked) computation.
    #[inline]
    pub const fn whole(len: usize) -> Self {
        Span { offset: 0, len }
    }

    /// One past the last entry (saturating).
    #[inline]
    pub const fn end(self) -> usize {
        self.offset.saturating_add(self.len)
    }

    /// The kernel's result over this span as a `Vec` of `self.len`
    /// entries (default-initialised, then written by `kernel(self, out)`).
    ///
    /// ```
    /// use ot_runtime::primitives::span::Span;
    /// use ot_runtime::Block;
    /// use ot_runtime::otext::stream::mask_pairs;
    /// let (p, k) = (vec![[Block(1), Block(2)]; 3], vec![[Block(3), Block(3)]; 3]);
    /// let out = Span::whole(3).collect(|span, out| mask_pairs(&p, &k, span, out));
    /// assert_eq!(out, vec![[Block(2), Block(1)]; 3]);
    /// ```
    pub fn collect<T: Default + Clone>(self, kernel: impl FnOnce(Span, &mut [T])) -> Vec<T> {
        let mut out = vec![T::default(); self.len];
        kernel(self, &mut out);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_starts_at_zero_and_end_saturates() {
        assert_eq!(Span::whole(5), Span::new(0, 5));
        assert_eq!(Span::new(3, 4).end(), 7);
        assert_eq!(Span::new(usize::MAX, 4).end(), usize::MAX);
    }

    #[test]
    fn collect_passes_itself_and_a_buffer_of_its_length() {
        let v: Vec<u8> = Span::new(2, 4).collect(|s, out| {
            assert_eq!(s, Span::new(2, 4));
            out.fill(7)
        });
        assert_eq!(v, vec![7; 4]);
    }
}
