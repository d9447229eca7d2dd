//! Portable transpose: 8 x 8 bit tiles in a `u64`, bitwise for the last
//! `rows % 8` rows.

use super::Job;

/// Transposes an 8 x 8 bit matrix packed in a `u64`: byte `i` is row `i`,
/// bit `j` of a byte is column `j`. In the result byte `j` is column `j`.
/// Three delta swaps (2 x 2, 4 x 4 blocks, then halves).
#[inline]
pub fn transpose8x8(mut x: u64) -> u64 {
    let t = (x ^ (x >> 7)) & 0x00aa_00aa_00aa_00aa;
    x ^= t ^ (t << 7);
    let t = (x ^ (x >> 14)) & 0x0000_cccc_0000_cccc;
    x ^= t ^ (t << 14);
    let t = (x ^ (x >> 28)) & 0x0000_0000_f0f0_f0f0;
    x ^ t ^ (t << 28)
}

/// Transposes source rows `[row_begin, rows)` of the job.
pub(super) fn run(job: &mut Job<'_>, row_begin: usize) {
    debug_assert!(row_begin.is_multiple_of(8));
    let (ss, ds) = (job.src_stride, job.dst_stride);
    let cb0 = job.col_begin / 8;
    let cb1 = job.col_end.div_ceil(8);
    let ncols = job.col_end - job.col_begin;
    let full_rows = job.rows / 8 * 8;
    for r0 in (row_begin..full_rows).step_by(8) {
        for jb in cb0..cb1 {
            let mut x = 0u64;
            for i in 0..8 {
                x |= (job.src[(r0 + i) * ss + jb] as u64) << (8 * i);
            }
            let y = transpose8x8(x).to_le_bytes();
            for (b, &byte) in y.iter().enumerate() {
                let c = 8 * (jb - cb0) + b;
                if c < ncols {
                    job.dst[c * ds + r0 / 8] = byte;
                }
            }
        }
    }
    let r8 = full_rows.max(row_begin);
    if r8 < job.rows {
        for c in 0..ncols {
            let col = job.col_begin + c;
            let mut byte = 0u8;
            for r in r8..job.rows {
                let bit = (job.src[r * ss + col / 8] >> (col % 8)) & 1;
                byte |= bit << (r - r8);
            }
            job.dst[c * ds + r8 / 8] = byte;
        }
    }
}
