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
//! The fastest supported backend is detected once and cached; build with
//! `RUSTFLAGS='--cfg ot_backend="sse2"'` (or `scalar`, `avx2`, `avx512`)
//! to force one (it falls back to the next slower one the CPU supports).

mod scalar;
#[cfg(target_arch = "x86_64")]
mod simd;

use crate::bits::{check_len, ShapeError};
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
        match self {
            Backend::Scalar => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Sse2 => std::arch::is_x86_feature_detected!("sse2"),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx2 => std::arch::is_x86_feature_detected!("avx2"),
            #[cfg(target_arch = "x86_64")]
            Backend::Avx512 => {
                std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            _ => false,
        }
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
    /// `--cfg ot_backend=...`. Detected once and cached.
    pub fn selected() -> Backend {
        static SEL: OnceLock<Backend> = OnceLock::new();
        *SEL.get_or_init(|| {
            let cap = if cfg!(ot_backend = "scalar") {
                Backend::Scalar
            } else if cfg!(ot_backend = "sse2") {
                Backend::Sse2
            } else if cfg!(ot_backend = "avx2") {
                Backend::Avx2
            } else {
                Backend::Avx512
            };
            let order = [
                Backend::Avx512,
                Backend::Avx2,
                Backend::Sse2,
                Backend::Scalar,
            ];
            let start = order.iter().position(|&b| b == cap).unwrap_or(0);
            order[start..]
                .iter()
                .copied()
                .find(|b| b.is_supported())
                .unwrap_or(Backend::Scalar)
        })
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

/// Runs a job with `backend` (falling back to scalar if unsupported).
pub(crate) fn run_job(backend: Backend, job: &mut Job<'_>) {
    assert!(
        job.valid(),
        "internal transpose job has inconsistent geometry"
    );
    let backend = if backend.is_supported() {
        backend
    } else {
        Backend::Scalar
    };
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
    // Zero the destination padding bytes (rows beyond `rows`).
    let used = job.rows.div_ceil(8);
    for r in job.dst.chunks_exact_mut(job.dst_stride.max(1)) {
        if job.dst_stride > used {
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
    col_begin: usize,
    col_end: usize,
    dst: &mut [Block],
) -> Result<(), ShapeError> {
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
        0,
        m.cols(),
        out.as_blocks_mut(),
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
        0,
        src.cols(),
        dst.as_blocks_mut(),
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
    transpose_cols(Backend::selected(), src, 128, m, 0, m, dst)
}

/// Transposes an m x 128 matrix (m blocks, block `j` = row `j`) into 128
/// rows of `ceil(m/128)` blocks each (row-major, padding bits zero).
pub fn transpose_mx128(src: &[Block]) -> Vec<Block> {
    let mut out = Block::zeroed_vec(128 * src.len().div_ceil(128));
    transpose_cols(Backend::selected(), src, src.len(), 128, 0, 128, &mut out)
        .expect("shapes are consistent");
    out
}

/// [`transpose_mx128`] into a caller buffer of `128 * ceil(src.len()/128)` blocks.
pub fn transpose_mx128_into(src: &[Block], dst: &mut [Block]) -> Result<(), ShapeError> {
    transpose_cols(Backend::selected(), src, src.len(), 128, 0, 128, dst)
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
