//! Bit-matrix transposition: the core data movement of IKNP/KOS-style OT
//! extension (128 x m after seed expansion, m x 128 for hashing, and back).
//!
//! Every routine works on [`BitMatrix`] layout (rows padded to whole
//! [`Block`]s, bit `c` of a row = bit `c % 128` of block `c / 128`) and
//! accepts **any** shape: backends process tiles of 8/16/32/64 source rows
//! by 128 source columns; leftover rows go through 8 x 8 scalar tiles and,
//! for the last `rows % 8`, a bitwise loop. Padding bits of the source are
//! never read into the result; padding bits of the result are zero.
//!
//! Backends (all built from the same 16 x 16 byte transpose followed by bit
//! extraction):
//!
//! * `scalar`: portable, 8 x 8 bit blocks in a `u64` ([`transpose8x8`]).
//! * `sse2`: 16 x 16 byte transpose with `punpck*`, bits gathered with
//!   `pmovmskb` (16 rows per tile).
//! * `avx2`: the same on 256-bit registers (32 rows per tile).
//! * `avx512`: the same on 512-bit registers (AVX-512F/BW) with
//!   `vptestmb` (64 rows per tile).
//!
//! On CPUs with AVX-512 VBMI and GFNI the `avx512` backend transposes every
//! whole 128 x 128 tile of a source whose row count is a multiple of 128
//! (the 128 x m matrices of OT extension) entirely in registers: the tile
//! is 32 zmm registers; `vgf2p8affineqb` transposes each qword as an 8 x 8
//! bit matrix, and the byte movement around it is two `vpermb` and five
//! exchanges of a register-index bit with a byte-position bit (shift and
//! masked blend, `vpunpck{l,h}qdq`, `vpermt2q`, `vshufi64x2`: one cycle or
//! less per register each, where a two-source byte permute takes two), with
//! no per-bit mask extraction at all. Other tiles use the generic backends.
//!
//! The fastest supported backend is detected once and cached; build with
//! `RUSTFLAGS='--cfg ot_backend="sse2"'` (or `scalar`, `avx2`, `avx512`)
//! to force one (it falls back to the next slower one the CPU supports).

mod scalar;
#[cfg(target_arch = "x86_64")]
mod simd;

use crate::primitives::backend::{self, Feature, Level};
use crate::primitives::bits::{check_len, ShapeError};
use crate::{BitMatrix, Block};
use std::sync::OnceLock;

pub use scalar::transpose8x8;

/// A transpose implementation (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Portable 8 x 8 bit tiles.
    Scalar,
    /// SSE2 `pmovmskb`, 16-row tiles.
    Sse2,
    /// AVX2 `vpmovmskb`, 32-row tiles.
    Avx2,
    /// AVX-512F/BW `vptestmb`, 64-row tiles.
    Avx512,
}

impl Backend {
    /// Short name (`"scalar"`, `"sse2"`, `"avx2"`, `"avx512"`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Sse2 => "sse2",
            Backend::Avx2 => "avx2",
            Backend::Avx512 => "avx512",
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        backend::Backend::is_supported(self)
    }

    /// All backends this CPU supports, slowest first.
    pub fn available() -> Vec<Backend> {
        [
            Backend::Scalar,
            Backend::Sse2,
            Backend::Avx2,
            Backend::Avx512,
        ]
        .into_iter()
        .filter(|b| b.is_supported())
        .collect()
    }

    /// The backend [`transpose`] uses: the fastest supported, capped by
    /// `--cfg ot_backend=...` ([`backend::select`]). Detected once and
    /// cached.
    pub fn selected() -> Backend {
        static SEL: OnceLock<Backend> = OnceLock::new();
        *SEL.get_or_init(backend::select)
    }

    /// Source rows per SIMD tile.
    pub(crate) fn tile_rows(self) -> usize {
        match self {
            Backend::Scalar => 8,
            Backend::Sse2 => 16,
            Backend::Avx2 => 32,
            Backend::Avx512 => 64,
        }
    }
}

impl backend::Backend for Backend {
    const FASTEST_FIRST: &'static [Self] = &[
        Backend::Avx512,
        Backend::Avx2,
        Backend::Sse2,
        Backend::Scalar,
    ];

    fn level(self) -> Level {
        match self {
            Backend::Scalar => Level::Scalar,
            Backend::Sse2 => Level::Sse2,
            Backend::Avx2 => Level::Avx2,
            Backend::Avx512 => Level::Avx512,
        }
    }

    fn features(self) -> &'static [Feature] {
        match self {
            Backend::Scalar => &[],
            Backend::Sse2 => &[Feature::Sse2],
            Backend::Avx2 => &[Feature::Avx2],
            Backend::Avx512 => &[Feature::Avx512f, Feature::Avx512bw],
        }
    }
}

/// Name of the transpose backend selected on this machine.
pub fn backend_name() -> &'static str {
    Backend::selected().name()
}

/// One transpose job on byte views: source columns `[col_begin, col_end)`
/// of a `rows`-row source become destination rows `0..col_end-col_begin`.
pub(crate) struct Job<'a> {
    pub src: &'a [u8],
    pub src_stride: usize,
    pub rows: usize,
    pub col_begin: usize,
    pub col_end: usize,
    pub dst: &'a mut [u8],
    pub dst_stride: usize,
    /// The destination is written once and not read again soon (a slice
    /// of an output far larger than the caches): the tile kernel may use
    /// non-temporal stores. The result is the same either way.
    pub stream_dst: bool,
}

impl Job<'_> {
    /// Checks every geometric invariant the backends rely on.
    fn valid(&self) -> bool {
        self.col_begin.is_multiple_of(8)
            && self.col_begin <= self.col_end
            && self.col_end <= self.src_stride * 8
            && self.src.len() == self.rows * self.src_stride
            && self.dst_stride >= self.rows.div_ceil(8)
            && self.dst.len() == (self.col_end - self.col_begin) * self.dst_stride
            && (self.col_end == self.col_begin || self.src_stride >= 16)
    }
}

/// Whether `backend` runs whole 128 x 128 tiles with the in-register
/// AVX-512 VBMI + GFNI kernel (see the module docs).
fn uses_tile_kernel(backend: Backend) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        backend == Backend::Avx512 && backend.is_supported() && simd::gfni_supported()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = backend;
        false
    }
}

/// Runs a job with `backend` (falling back to scalar if unsupported).
pub(crate) fn run_job(backend: Backend, job: &mut Job<'_>) {
    run_job_with(backend, uses_tile_kernel(backend), job);
}

/// [`run_job`], using the 128 x 128 tile kernel for whole tiles when
/// `tiles` is set (the caller checked [`uses_tile_kernel`]); tests turn it
/// off to exercise the plain AVX-512 path on CPUs with GFNI.
fn run_job_with(backend: Backend, tiles: bool, job: &mut Job<'_>) {
    assert!(
        job.valid(),
        "internal transpose job has inconsistent geometry"
    );
    let backend = if backend.is_supported() {
        backend
    } else {
        Backend::Scalar
    };
    // Whole 128 x 128 tiles of sources whose row count is a multiple of
    // 128, when destination rows are short (128 x m: 16 bytes); the
    // remaining columns go through the generic path as a sub-job.
    let ntiles = (job.col_end - job.col_begin) / 128;
    #[cfg(target_arch = "x86_64")]
    if tiles
        && ntiles > 0
        && job.rows.is_multiple_of(128)
        && job.dst_stride <= 64
        && job.src_stride >= job.col_begin / 8 + 16 * ntiles
    {
        simd::run_tiles(job, ntiles);
        let split = 128 * ntiles;
        if job.col_begin + split < job.col_end {
            let mut rest = Job {
                src: job.src,
                src_stride: job.src_stride,
                rows: job.rows,
                col_begin: job.col_begin + split,
                col_end: job.col_end,
                dst: &mut job.dst[split * job.dst_stride..],
                dst_stride: job.dst_stride,
                stream_dst: false,
            };
            run_job_with(backend, false, &mut rest);
        }
        zero_dst_padding(job);
        return;
    }
    let _ = (tiles, ntiles);
    let mut done = 0;
    if job.col_end > job.col_begin {
        let t = backend.tile_rows();
        let simd_rows = job.rows / t * t;
        #[cfg(target_arch = "x86_64")]
        if backend != Backend::Scalar && simd_rows > 0 {
            simd::run(backend, job, simd_rows);
            done = simd_rows;
        }
        let _ = simd_rows;
        scalar::run(job, done);
    }
    zero_dst_padding(job);
}

/// Zeroes the destination padding bytes (bits for rows beyond `rows`).
fn zero_dst_padding(job: &mut Job<'_>) {
    let used = job.rows.div_ceil(8);
    if job.dst_stride > used {
        for r in job.dst.chunks_exact_mut(job.dst_stride) {
            r[used..].fill(0);
        }
    }
}

/// Transposes source columns `[col_begin, col_end)` of a `rows x cols`
/// matrix stored in BitMatrix layout into `dst` (destination rows
/// `col_begin..col_end`, each `ceil(rows/128)` blocks). Building block of
/// the parallel transpose. `col_begin` must be a multiple of 8.
pub(crate) fn transpose_cols(
    backend: Backend,
    src: &[Block],
    rows: usize,
    cols: usize,
    col_range: core::ops::Range<usize>,
    dst: &mut [Block],
    stream_dst: bool,
) -> Result<(), ShapeError> {
    let (col_begin, col_end) = (col_range.start, col_range.end);
    let bpr = cols.div_ceil(128);
    check_len("transpose source", rows * bpr, src.len())?;
    let dbpr = rows.div_ceil(128);
    if !col_begin.is_multiple_of(8) || col_begin > col_end || col_end > cols {
        return Err(ShapeError::Shape {
            what: "transpose column range",
            rows: col_begin,
            cols: col_end,
        });
    }
    check_len(
        "transpose destination",
        (col_end - col_begin) * dbpr,
        dst.len(),
    )?;
    let mut job = Job {
        src: Block::slice_as_bytes(src),
        src_stride: bpr * 16,
        rows,
        col_begin,
        col_end,
        dst: Block::slice_as_bytes_mut(dst),
        dst_stride: dbpr * 16,
        stream_dst,
    };
    run_job(backend, &mut job);
    Ok(())
}

/// The transpose of `m` (a `cols x rows` matrix), fastest backend.
pub fn transpose(m: &BitMatrix) -> BitMatrix {
    transpose_with(Backend::selected(), m)
}

/// The transpose of `m` with a specific backend (scalar if unsupported).
pub fn transpose_with(backend: Backend, m: &BitMatrix) -> BitMatrix {
    let mut out = BitMatrix::new(m.cols(), m.rows());
    transpose_cols(
        backend,
        m.as_blocks(),
        m.rows(),
        m.cols(),
        0..m.cols(),
        out.as_blocks_mut(),
        false,
    )
    .expect("BitMatrix shapes are consistent");
    out
}

/// Writes the transpose of `src` into `dst`, which must be
/// `src.cols() x src.rows()`.
pub fn transpose_into(src: &BitMatrix, dst: &mut BitMatrix) -> Result<(), ShapeError> {
    if dst.rows() != src.cols() || dst.cols() != src.rows() {
        return Err(ShapeError::Shape {
            what: "transpose_into destination",
            rows: dst.rows(),
            cols: dst.cols(),
        });
    }
    transpose_cols(
        Backend::selected(),
        src.as_blocks(),
        src.rows(),
        src.cols(),
        0..src.cols(),
        dst.as_blocks_mut(),
        false,
    )
}

/// Transposes a 128 x m matrix given as 128 rows of `ceil(m/128)` blocks
/// (row-major) into m blocks: block `j` holds column `j`.
pub fn transpose_128xm(src: &[Block], m: usize) -> Result<Vec<Block>, ShapeError> {
    let mut out = Block::zeroed_vec(m);
    transpose_128xm_into(src, m, &mut out)?;
    Ok(out)
}

/// [`transpose_128xm`] into a caller buffer of exactly `m` blocks.
pub fn transpose_128xm_into(src: &[Block], m: usize, dst: &mut [Block]) -> Result<(), ShapeError> {
    transpose_cols(Backend::selected(), src, 128, m, 0..m, dst, false)
}

/// Transposes the 128-row block matrix `src` (row `j` = blocks
/// `src[j * stride..]`) column by column: `dst[i]` = column `i` (bit `j` of
/// `dst[i]` is bit `i` of row `j`), for `i < dst.len()`.
///
/// This is the transpose of one streamed chunk of OT extension (128 x
/// `len`, rows `stride` blocks apart): whole 128 x 128 tiles go through the
/// in-register AVX-512 kernel when the CPU has it (see the module docs).
/// Errors if `src` holds fewer than `128 * stride` blocks or `dst` asks for
/// more than `128 * stride` columns.
pub fn transpose_128_rows_into(
    src: &[Block],
    stride: usize,
    dst: &mut [Block],
) -> Result<(), ShapeError> {
    transpose_128_rows_with(Backend::selected(), src, stride, dst)
}

/// [`transpose_128_rows_into`] with a specific backend (scalar if
/// unsupported).
pub fn transpose_128_rows_with(
    backend: Backend,
    src: &[Block],
    stride: usize,
    dst: &mut [Block],
) -> Result<(), ShapeError> {
    let need = stride.checked_mul(128).ok_or(ShapeError::Shape {
        what: "transpose_128_rows stride",
        rows: 128,
        cols: stride,
    })?;
    if src.len() < need {
        return Err(ShapeError::Length {
            what: "transpose_128_rows source",
            expected: need,
            actual: src.len(),
        });
    }
    if dst.len() > need {
        return Err(ShapeError::Shape {
            what: "transpose_128_rows destination",
            rows: dst.len(),
            cols: 128,
        });
    }
    if dst.is_empty() {
        return Ok(());
    }
    let mut job = Job {
        src: Block::slice_as_bytes(&src[..need]),
        src_stride: stride * 16,
        rows: 128,
        col_begin: 0,
        col_end: dst.len(),
        dst: Block::slice_as_bytes_mut(dst),
        dst_stride: 16,
        stream_dst: false,
    };
    run_job(backend, &mut job);
    Ok(())
}

/// Transposes an m x 128 matrix (m blocks, block `j` = row `j`) into 128
/// rows of `ceil(m/128)` blocks each (row-major, padding bits zero).
pub fn transpose_mx128(src: &[Block]) -> Vec<Block> {
    let mut out = Block::zeroed_vec(128 * src.len().div_ceil(128));
    transpose_cols(
        Backend::selected(),
        src,
        src.len(),
        128,
        0..128,
        &mut out,
        false,
    )
    .expect("shapes are consistent");
    out
}

/// [`transpose_mx128`] into a caller buffer of `128 * ceil(src.len()/128)` blocks.
pub fn transpose_mx128_into(src: &[Block], dst: &mut [Block]) -> Result<(), ShapeError> {
    transpose_cols(Backend::selected(), src, src.len(), 128, 0..128, dst, false)
}

/// Bit-by-bit reference transpose (slow, obviously correct; for tests).
pub fn transpose_reference(m: &BitMatrix) -> BitMatrix {
    let mut out = BitMatrix::new(m.cols(), m.rows());
    for r in 0..m.rows() {
        for c in 0..m.cols() {
            if m.get(r, c) {
                out.set(c, r, true);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn random(rows: usize, cols: usize, seed: u128) -> BitMatrix {
        let mut m = BitMatrix::new(rows, cols);
        let seeds: Vec<Block> = (0..rows as u128).map(|i| Block(seed ^ (i << 64))).collect();
        crate::primitives::prg::fill_matrix(&seeds, &mut m).unwrap();
        m
    }

    /// The first (backend, tile kernel) pair whose transpose of `m` differs
    /// from the reference, over every backend with and without the tile
    /// kernel.
    fn first_mismatch(m: &BitMatrix, stream: bool) -> Option<(Backend, bool)> {
        let (r, c) = (m.rows(), m.cols());
        let want = transpose_reference(m);
        for be in Backend::available() {
            for tiles in [false, uses_tile_kernel(be)] {
                let mut out = BitMatrix::new(c, r);
                let ds = out.blocks_per_row() * 16;
                let mut job = Job {
                    src: Block::slice_as_bytes(m.as_blocks()),
                    src_stride: m.blocks_per_row() * 16,
                    rows: r,
                    col_begin: 0,
                    col_end: c,
                    dst: Block::slice_as_bytes_mut(out.as_blocks_mut()),
                    dst_stride: ds,
                    stream_dst: stream,
                };
                run_job_with(be, tiles, &mut job);
                if out != want {
                    return Some((be, tiles));
                }
            }
        }
        None
    }

    /// Every backend, with and without the tile kernel, against the
    /// reference, on shapes that have whole tiles plus leftovers.
    #[test]
    fn tile_kernel_and_generic_paths_agree() {
        for (r, c) in [
            (128, 128),
            (128, 1000),
            (256, 384),
            (128, 2048 + 8),
            (384, 130),
        ] {
            let m = random(r, c, (r * 7 + c) as u128);
            assert_eq!(first_mismatch(&m, false), None, "{r}x{c}");
        }
    }

    /// Streamed (non-temporal) destinations give the same bytes as plain
    /// stores, at every 16-byte offset from a cache line (the kernel
    /// realigns the run), for runs of 1 to 9 tiles plus leftover columns,
    /// and leave the blocks around the destination untouched.
    #[test]
    fn streamed_destination_matches_reference_at_every_alignment() {
        for cols in [128, 256, 128 * 9 + 40, 128 * 9] {
            let m = random(128, cols, cols as u128 + 5);
            let want = transpose_reference(&m);
            for lead in 0..4 {
                let mut buf = vec![Block::from(0xa5a5_u128); lead + cols + 4 + 3];
                // Start `lead` blocks past the first 64-byte boundary.
                let skew = (4 - (buf.as_ptr() as usize / 16) % 4) % 4;
                let start = skew + lead;
                let dst = &mut buf[start..start + cols];
                transpose_cols(
                    Backend::selected(),
                    m.as_blocks(),
                    128,
                    cols,
                    0..cols,
                    dst,
                    true,
                )
                .unwrap();
                assert_eq!(dst, want.as_blocks(), "cols {cols} lead {lead}");
                assert!(buf[..start]
                    .iter()
                    .chain(&buf[start + cols..])
                    .all(|b| *b == Block::from(0xa5a5_u128)));
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(24))]

        /// Random matrices of 128 or 256 rows and any width, through every
        /// backend with and without the tile kernel, with plain and
        /// streamed destinations, against the bitwise reference.
        #[test]
        fn tile_kernel_matches_reference_on_random_matrices(
            two in proptest::prelude::any::<bool>(),
            cols in 1usize..(128 * 10),
            stream in proptest::prelude::any::<bool>(),
            seed in proptest::prelude::any::<u128>(),
        ) {
            let r = if two { 256 } else { 128 };
            let m = random(r, cols, seed);
            proptest::prop_assert_eq!(first_mismatch(&m, stream), None, "{}x{}", r, cols);
        }
    }

    #[test]
    fn rows_into_matches_reference() {
        // Long rows exercise the staging path (stride > 8 tiles).
        for c in [1, 127, 128, 129, 1000, 128 * 20 + 5] {
            let m = random(128, c, c as u128);
            let want = transpose_reference(&m);
            for be in Backend::available() {
                for n in [c, c / 2, c.saturating_sub(128)] {
                    let mut dst = vec![Block(!0); n];
                    transpose_128_rows_with(be, m.as_blocks(), m.blocks_per_row(), &mut dst)
                        .unwrap();
                    let got: Vec<Block> = (0..n).map(|i| want.row(i)[0]).collect();
                    assert_eq!(dst, got, "{be:?} {c} {n}");
                }
            }
        }
        let mut big = vec![Block::ZERO; 129];
        assert!(transpose_128_rows_into(&[Block::ZERO; 128], 1, &mut big).is_err());
        assert!(transpose_128_rows_into(&[Block::ZERO; 127], 1, &mut big[..1]).is_err());
    }
}
