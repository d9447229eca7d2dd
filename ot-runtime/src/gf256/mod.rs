//! Arithmetic in GF(2^8) with the AES polynomial `x^8 + x^4 + x^3 + x + 1`
//! (0x11B, FIPS-197 §4.2): the field of MiniMac's Reed–Solomon codes
//! (Damgård–Zakarias, TCC 2013; Damgård–Lauritsen–Toft, eprint 2014/289,
//! use k = 85, n = 255 over this field) and of AES itself.
//!
//! [`mul`] and [`inv`] are the bitwise scalar reference. The slice kernels
//! ([`mul_slices`], [`mul_add`], [`scale`]) run on the fastest backend this
//! CPU supports, detected once and cached:
//!
//! * [`Backend::Scalar`]: the bitwise reference, one byte at a time.
//! * [`Backend::Table`]: log/exp tables (generator 0x03), and for a
//!   constant factor a 256-byte row of products.
//! * [`Backend::Gfni`]: `vgf2p8mulb` on 512-bit registers (GFNI with
//!   AVX-512BW), whose reduction polynomial is exactly 0x11B; the tail of
//!   a slice that is not a multiple of 64 bytes goes through the table.
//!
//! `*_with(backend, ..)` forces a backend (tests compare every backend with
//! the scalar reference; benches compare their rates). A backend the CPU
//! lacks falls back to the table.

mod scalar;
#[cfg(target_arch = "x86_64")]
mod simd;
mod table;

use std::sync::OnceLock;

pub use scalar::{inv, mul, pow};

/// A GF(2^8) slice-kernel implementation (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Backend {
    /// Bitwise shift-and-add reference.
    Scalar,
    /// Log/exp and constant-row tables.
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
        match self {
            Backend::Scalar | Backend::Table => true,
            #[cfg(target_arch = "x86_64")]
            Backend::Gfni => {
                std::arch::is_x86_feature_detected!("gfni")
                    && std::arch::is_x86_feature_detected!("avx512f")
                    && std::arch::is_x86_feature_detected!("avx512bw")
            }
            #[cfg(not(target_arch = "x86_64"))]
            Backend::Gfni => false,
        }
    }

    /// The fastest supported backend, detected once.
    pub fn detect() -> Backend {
        static BEST: OnceLock<Backend> = OnceLock::new();
        *BEST.get_or_init(|| {
            if Backend::Gfni.is_supported() {
                Backend::Gfni
            } else {
                Backend::Table
            }
        })
    }

    /// `self` if supported, else the table backend.
    fn usable(self) -> Backend {
        if self.is_supported() {
            self
        } else {
            Backend::Table
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
        Backend::Gfni => simd::mul_slices(dst, a, b),
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Gfni => table::mul_slices(dst, a, b),
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
        Backend::Gfni => simd::mul_add(dst, c, src),
        #[cfg(not(target_arch = "x86_64"))]
        Backend::Gfni => table::mul_add(dst, c, src),
    }
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
        fn table_products_equal_the_reference(a in any::<u8>(), b in any::<u8>()) {
            prop_assert_eq!(table::mul(a, b), mul(a, b));
        }
    }
}
