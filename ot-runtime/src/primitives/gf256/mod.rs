//! Arithmetic in GF(2^8) with the AES polynomial `x^8 + x^4 + x^3 + x + 1`
//! (0x11B, FIPS-197 §4.2): the field of MiniMac's Reed–Solomon codes
//! (Damgård–Zakarias, TCC 2013; Damgård–Lauritsen–Toft, eprint 2014/289,
//! use k = 85, n = 255 over this field) and of AES itself.
//!
//! [`mul`] and [`inv`] are the bitwise scalar reference. The slice kernels
//! ([`mul_slices`], [`mul_add`], [`scale`]) run on the fastest backend this
//! CPU supports, detected once and cached:
//!
//! * [`Backend::Scalar`]: the bitwise reference, eight mask-and-shift
//!   steps per product with no branch or index on the operands (constant
//!   time); the compiler vectorizes its slice loops, which makes it faster
//!   than the tables.
//! * [`Backend::Table`]: log/exp tables (generator 0x03), and for a
//!   constant factor a 256-byte row of products. **Not constant time**:
//!   the table indices are the operands, so the cache lines touched depend
//!   on them (secret shares and MAC keys in MiniMac); only used when
//!   chosen explicitly (benchmarks, tests).
//! * [`Backend::Gfni`]: `vgf2p8mulb` on 512-bit registers (GFNI with
//!   AVX-512BW), whose reduction polynomial is exactly 0x11B; the tail of
//!   a slice that is not a multiple of 64 bytes uses masked loads and
//!   stores (constant time).
//!
//! The detected backend is GFNI where the CPU has it, else the
//! constant-time scalar backend. `*_with(backend, ..)` forces a backend
//! (tests compare every backend with the scalar reference; benches compare
//! their rates). A backend the CPU lacks falls back to the scalar one.

#[cfg(target_arch = "x86_64")]
mod gfni;
mod scalar;
mod table;

use crate::primitives::backend::{self, Feature, Level};
use std::sync::OnceLock;

pub use scalar::{inv, mul, pow};

/// A GF(2^8) slice-kernel implementation (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Bitwise shift-and-add reference (constant time).
    Scalar,
    /// Log/exp and constant-row tables (not constant time: indices are
    /// the operands).
    Table,
    /// GFNI `vgf2p8mulb` on AVX-512BW registers.
    Gfni,
}

impl Backend {
    /// Every backend, slowest first.
    pub const ALL: [Backend; 3] = [Backend::Scalar, Backend::Table, Backend::Gfni];

    /// Short name (`"scalar"`, `"table"`, `"gfni"`).
    pub fn name(self) -> &'static str {
        match self {
            Backend::Scalar => "scalar",
            Backend::Table => "table",
            Backend::Gfni => "gfni",
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        backend::Backend::is_supported(self)
    }

    /// The fastest supported backend the `--cfg ot_backend` cap allows,
    /// detected once (GFNI where the CPU has it and the cap is `avx512` or
    /// absent, else scalar).
    pub fn detect() -> Backend {
        static BEST: OnceLock<Backend> = OnceLock::new();
        *BEST.get_or_init(backend::select)
    }

    /// `self` if supported, else the constant-time scalar backend.
    fn usable(self) -> Backend {
        if self.is_supported() {
            self
        } else {
            Backend::Scalar
        }
    }
}

impl backend::Backend for Backend {
    /// The table backend is never chosen by detection (not constant time).
    const FASTEST_FIRST: &'static [Self] = &[Backend::Gfni, Backend::Scalar];

    fn level(self) -> Level {
        match self {
            Backend::Scalar | Backend::Table => Level::Scalar,
            Backend::Gfni => Level::Avx512,
        }
    }

    fn features(self) -> &'static [Feature] {
        match self {
            Backend::Scalar | Backend::Table => &[],
            Backend::Gfni => &[Feature::Gfni, Feature::Avx512f, Feature::Avx512bw],
        }
    }
}

/// `dst[t] = a[t] · b[t]` (the Schur product) over the common length of the
/// three slices, on the detected backend.
pub fn mul_slices(dst: &mut [u8], a: &[u8], b: &[u8]) {
    mul_slices_with(Backend::detect(), dst, a, b)
}

/// [`mul_slices`] on a chosen backend.
pub fn mul_slices_with(backend: Backend, dst: &mut [u8], a: &[u8], b: &[u8]) {
    let len = dst.len().min(a.len()).min(b.len());
    let (dst, a, b) = (&mut dst[..len], &a[..len], &b[..len]);
    match backend.usable() {
        Backend::Scalar => dst
            .iter_mut()
            .zip(a.iter().zip(b))
            .for_each(|(d, (&x, &y))| *d = mul(x, y)),
        Backend::Table => table::mul_slices(dst, a, b),
        #[cfg(target_arch = "x86_64")]
        Backend::Gfni => gfni::mul_slices(dst, a, b),
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Gfni => mul_slices_with(Backend::Scalar, dst, a, b),
    }
}

/// `dst[t] ^= c · src[t]` (a GF(2^8) "axpy", the inner loop of encoding)
/// over the common length, on the detected backend.
pub fn mul_add(dst: &mut [u8], c: u8, src: &[u8]) {
    mul_add_with(Backend::detect(), dst, c, src)
}

/// [`mul_add`] on a chosen backend.
pub fn mul_add_with(backend: Backend, dst: &mut [u8], c: u8, src: &[u8]) {
    let len = dst.len().min(src.len());
    let (dst, src) = (&mut dst[..len], &src[..len]);
    match backend.usable() {
        Backend::Scalar => dst.iter_mut().zip(src).for_each(|(d, &x)| *d ^= mul(c, x)),
        Backend::Table => table::mul_add(dst, c, src),
        #[cfg(target_arch = "x86_64")]
        Backend::Gfni => gfni::mul_add(dst, c, src),
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Gfni => mul_add_with(Backend::Scalar, dst, c, src),
    }
}

/// `out ^= A · B` over GF(2^8): `A` is `rows × inner` (row-major in `a`),
/// `B` is `inner × cols` (in `b`), `out` is `rows × cols`, with `rows =
/// out.len() / cols`. Many Reed–Solomon encodings at once (`A` the
/// messages, `B` the redundancy matrix) in one backend dispatch, the
/// accumulator of each 64-byte column chunk kept in a register. Rows of
/// `out` beyond `a`'s and a `b` shorter than `inner · cols` are left
/// unchanged (no panic).
pub fn mat_mul_add(out: &mut [u8], a: &[u8], b: &[u8], inner: usize, cols: usize) {
    mat_mul_add_with(Backend::detect(), out, a, b, inner, cols)
}

/// [`mat_mul_add`] on a chosen backend.
pub fn mat_mul_add_with(
    backend: Backend,
    out: &mut [u8],
    a: &[u8],
    b: &[u8],
    inner: usize,
    cols: usize,
) {
    if cols == 0 || inner == 0 || b.len() < inner * cols {
        return;
    }
    let rows = (out.len() / cols).min(a.len() / inner);
    let (out, a) = (&mut out[..rows * cols], &a[..rows * inner]);
    match backend.usable() {
        #[cfg(target_arch = "x86_64")]
        Backend::Gfni => gfni::mat_mul_add(out, a, b, inner, cols),
        other => {
            for (o, coef) in out.chunks_mut(cols).zip(a.chunks(inner)) {
                for (i, &c) in coef.iter().enumerate() {
                    mul_add_with(other, o, c, &b[i * cols..(i + 1) * cols]);
                }
            }
        }
    }
}

/// `dst[t] ^= Σ_i a_i[t] · b_i[t]`: a sum of Schur products accumulated in
/// one pass (one backend dispatch; on GFNI each 64-byte chunk of `dst`
/// stays in a register over all pairs). Pairs shorter than `dst` are
/// skipped (no panic).
pub fn schur_sum_add(dst: &mut [u8], pairs: &[(&[u8], &[u8])]) {
    schur_sum_add_with(Backend::detect(), dst, pairs)
}

/// [`schur_sum_add`] on a chosen backend.
pub fn schur_sum_add_with(backend: Backend, dst: &mut [u8], pairs: &[(&[u8], &[u8])]) {
    let len = dst.len();
    if pairs.iter().any(|(a, b)| a.len() < len || b.len() < len) {
        let ok: Vec<(&[u8], &[u8])> = pairs
            .iter()
            .copied()
            .filter(|(a, b)| a.len() >= len && b.len() >= len)
            .collect();
        return schur_sum_add_with(backend, dst, &ok);
    }
    match backend.usable() {
        #[cfg(target_arch = "x86_64")]
        Backend::Gfni => gfni::schur_sum_add(dst, pairs),
        Backend::Table => pairs.iter().for_each(|(a, b)| {
            dst.iter_mut()
                .zip(a.iter().zip(b.iter()))
                .for_each(|(d, (&x, &y))| *d ^= table::mul(x, y))
        }),
        _ => pairs.iter().for_each(|(a, b)| {
            dst.iter_mut()
                .zip(a.iter().zip(b.iter()))
                .for_each(|(d, (&x, &y))| *d ^= mul(x, y))
        }),
    }
}

/// Asks the CPU to start loading the cache lines of `b` (a hint for
/// kernels that read scattered memory, e.g. one-time tables: no effect
/// on any result; nothing on other architectures).
#[inline]
pub fn prefetch(b: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    gfni::prefetch(b);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = b;
}

/// `v[t] = c · v[t]` on the detected backend.
pub fn scale(v: &mut [u8], c: u8) {
    let src = v.to_vec();
    v.fill(0);
    mul_add(v, c, &src);
}

/// `dst[t] ^= src[t]` (addition in GF(2^8) is XOR) over the common length.
pub fn add_assign(dst: &mut [u8], src: &[u8]) {
    dst.iter_mut().zip(src).for_each(|(d, &s)| *d ^= s);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn fips197_known_products() {
        // FIPS-197 §4.2: {57} • {83} = {c1}; §4.2.1: {57} • {13} = {fe}.
        assert_eq!(mul(0x57, 0x83), 0xc1);
        assert_eq!(mul(0x57, 0x13), 0xfe);
        // §5.1.1: the S-box input {53} has inverse {ca}.
        assert_eq!(inv(0x53), 0xca);
        assert_eq!(inv(0), 0);
        for a in 1..=255u8 {
            assert_eq!(mul(a, inv(a)), 1);
            assert_eq!(pow(a, 255), 1);
        }
    }

    proptest! {
        #[test]
        fn backends_equal_the_scalar_reference(
            a in proptest::collection::vec(any::<u8>(), 0..300),
            b in proptest::collection::vec(any::<u8>(), 0..300),
            c in any::<u8>(),
        ) {
            let len = a.len().min(b.len());
            let mut want = vec![0u8; len];
            mul_slices_with(Backend::Scalar, &mut want, &a, &b);
            let mut want_axpy = b[..len].to_vec();
            mul_add_with(Backend::Scalar, &mut want_axpy, c, &a);
            for backend in Backend::ALL {
                let mut got = vec![0u8; len];
                mul_slices_with(backend, &mut got, &a, &b);
                prop_assert_eq!(&got, &want, "{}", backend.name());
                let mut got = b[..len].to_vec();
                mul_add_with(backend, &mut got, c, &a);
                prop_assert_eq!(&got, &want_axpy, "{}", backend.name());
            }
        }

        #[test]
        fn batched_kernels_equal_the_scalar_reference(
            rows in 0usize..5, inner in 1usize..40, cols in 1usize..150,
            seed in any::<u64>(),
        ) {
            let mut x = seed | 1;
            let mut bytes = |len: usize| -> Vec<u8> {
                (0..len).map(|_| { x ^= x << 13; x ^= x >> 7; x ^= x << 17; x as u8 }).collect()
            };
            let (a, b, out0) = (bytes(rows * inner), bytes(inner * cols), bytes(rows * cols));
            // Reference: plain dot products.
            let mut want = out0.clone();
            for r in 0..rows {
                for c in 0..cols {
                    for i in 0..inner {
                        want[r * cols + c] ^= mul(a[r * inner + i], b[i * cols + c]);
                    }
                }
            }
            let rows_a: Vec<Vec<u8>> = (0..inner).map(|_| bytes(cols)).collect();
            let rows_b: Vec<Vec<u8>> = (0..inner).map(|_| bytes(cols + 3)).collect();
            let pairs: Vec<(&[u8], &[u8])> =
                rows_a.iter().zip(&rows_b).map(|(p, q)| (&p[..], &q[..])).collect();
            let mut want_sum = out0[..cols.min(out0.len())].to_vec();
            for (p, q) in &pairs {
                for (t, d) in want_sum.iter_mut().enumerate() {
                    *d ^= mul(p[t], q[t]);
                }
            }
            for backend in Backend::ALL {
                let mut got = out0.clone();
                mat_mul_add_with(backend, &mut got, &a, &b, inner, cols);
                prop_assert_eq!(&got, &want, "{}", backend.name());
                let mut got = out0[..cols.min(out0.len())].to_vec();
                schur_sum_add_with(backend, &mut got, &pairs);
                prop_assert_eq!(&got, &want_sum, "{}", backend.name());
            }
        }

        #[test]
        fn table_products_equal_the_reference(a in any::<u8>(), b in any::<u8>()) {
            prop_assert_eq!(table::mul(a, b), mul(a, b));
        }
    }
}
