//! Arithmetic in GF(2^128) for the KOS/ALSZ consistency checks.
//!
//! # Convention
//!
//! The field is GF(2)`[x]` / (x^128 + x^7 + x^2 + x + 1) in the "natural"
//! (non-reflected) bit order used by KOS and libOTe: bit `i` of
//! [`Block::as_u128`] is the coefficient of x^i. So `Block(2)` is `x`, and
//! `x^127 · x = x^7 + x^2 + x + 1 = Block(0x87)`. This is *not* the
//! bit-reflected GHASH convention; `mul(a, b)` equals
//! `reflect(ghash_mul(reflect(a), reflect(b)))` where `reflect` reverses the
//! 128 bits — the tests use that identity to check against the GCM test
//! vector, plus a bitwise schoolbook reference and field identities.
//!
//! # Backends
//!
//! `portable` (constant-time shift-and-mask carry-less multiply), `pclmul`
//! (PCLMULQDQ on 128-bit registers), `vpclmul512` (VPCLMULQDQ on 512-bit
//! registers, 4 products per instruction, used for [`inner_product`] and
//! the row accumulation of [`crate::otext::consistency::kos_row_check`]).
//! Inner products and row accumulations sum the unreduced 256-bit products
//! and reduce once at the end (lazy reduction). Selection follows `--cfg ot_backend`
//! like the other kernels (`scalar` → portable, `sse2`/`avx2` → pclmul,
//! `avx512` → vpclmul512).

use crate::primitives::backend::{self, Feature, Level};
use crate::primitives::bits::{check_len, ShapeError};
use crate::{Bits, Block};
use std::sync::OnceLock;

/// A GF(2^128) implementation strategy (see the module docs).
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum GfBackend {
    /// Constant-time portable code.
    Portable,
    /// PCLMULQDQ, one product at a time.
    Pclmul,
    /// VPCLMULQDQ + AVX-512F/BW, four products per instruction.
    Vpclmul512,
}

impl GfBackend {
    /// Short name for logs and benchmarks.
    pub fn name(self) -> &'static str {
        match self {
            GfBackend::Portable => "portable",
            GfBackend::Pclmul => "pclmul",
            GfBackend::Vpclmul512 => "vpclmul512",
        }
    }

    /// Whether this CPU can run the backend.
    pub fn is_supported(self) -> bool {
        backend::Backend::is_supported(self)
    }

    /// All backends this CPU supports, slowest first.
    pub fn available() -> Vec<GfBackend> {
        [
            GfBackend::Portable,
            GfBackend::Pclmul,
            GfBackend::Vpclmul512,
        ]
        .into_iter()
        .filter(|b| b.is_supported())
        .collect()
    }

    /// The backend used by [`mul`] and [`inner_product`]: the fastest
    /// supported one, capped by `--cfg ot_backend=...`
    /// ([`backend::select`]). Detected once and cached.
    pub fn selected() -> GfBackend {
        static SEL: OnceLock<GfBackend> = OnceLock::new();
        *SEL.get_or_init(backend::select)
    }
}

impl backend::Backend for GfBackend {
    const FASTEST_FIRST: &'static [Self] = &[
        GfBackend::Vpclmul512,
        GfBackend::Pclmul,
        GfBackend::Portable,
    ];

    fn level(self) -> Level {
        match self {
            GfBackend::Portable => Level::Scalar,
            GfBackend::Pclmul => Level::Sse2,
            GfBackend::Vpclmul512 => Level::Avx512,
        }
    }

    fn features(self) -> &'static [Feature] {
        match self {
            GfBackend::Portable => &[],
            GfBackend::Pclmul => &[Feature::Pclmulqdq],
            GfBackend::Vpclmul512 => &[
                Feature::Pclmulqdq,
                Feature::Vpclmulqdq,
                Feature::Avx512f,
                Feature::Avx512bw,
            ],
        }
    }
}

/// Name of the GF(2^128) backend selected on this machine.
pub fn backend_name() -> &'static str {
    GfBackend::selected().name()
}

/// Constant-time 64 x 64 -> 128 carry-less multiply.
#[inline]
fn clmul64_portable(a: u64, b: u64) -> u128 {
    let a = a as u128;
    let mut r = 0u128;
    for i in 0..64 {
        r ^= (a << i) & 0u128.wrapping_sub(((b >> i) & 1) as u128);
    }
    r
}

/// Unreduced 256-bit carry-less product `a · b` as `(low, high)` halves
/// (portable, constant time).
pub fn clmul128(a: Block, b: Block) -> (Block, Block) {
    let (a0, a1, b0, b1) = (a.lo(), a.hi(), b.lo(), b.hi());
    let lo = clmul64_portable(a0, b0);
    let hi = clmul64_portable(a1, b1);
    let mid = clmul64_portable(a0, b1) ^ clmul64_portable(a1, b0);
    (Block(lo ^ (mid << 64)), Block(hi ^ (mid >> 64)))
}

/// Reduces the 256-bit polynomial `hi · x^128 + lo` modulo
/// x^128 + x^7 + x^2 + x + 1.
pub fn reduce(lo: Block, hi: Block) -> Block {
    let h = hi.0;
    // h·x^128 ≡ h·(x^7 + x^2 + x + 1); the shifted-out bits (degree >= 128)
    // are folded once more, and that fold fits in 128 bits.
    let t = h ^ (h << 1) ^ (h << 2) ^ (h << 7);
    let o = (h >> 127) ^ (h >> 126) ^ (h >> 121);
    Block(lo.0 ^ t ^ o ^ (o << 1) ^ (o << 2) ^ (o << 7))
}

/// Product in GF(2^128) (fastest backend).
#[inline]
pub fn mul(a: Block, b: Block) -> Block {
    mul_with(GfBackend::selected(), a, b)
}

/// Product with a specific backend (portable if unsupported).
pub fn mul_with(backend: GfBackend, a: Block, b: Block) -> Block {
    match backend {
        #[cfg(target_arch = "x86_64")]
        GfBackend::Pclmul | GfBackend::Vpclmul512 if backend.is_supported() => pclmul::mul(a, b),
        _ => {
            let (lo, hi) = clmul128(a, b);
            reduce(lo, hi)
        }
    }
}

/// Bitwise schoolbook reference: `a · b` by shift-and-add with reduction at
/// every step (slow; for tests).
pub fn mul_reference(a: Block, b: Block) -> Block {
    let (mut a, mut r) = (a.0, 0u128);
    for i in 0..128 {
        if (b.0 >> i) & 1 == 1 {
            r ^= a;
        }
        let carry = a >> 127;
        a <<= 1;
        if carry == 1 {
            a ^= 0x87;
        }
    }
    Block(r)
}

/// `x^e` by square-and-multiply (used by tests and for inverses).
pub fn pow(mut x: Block, mut e: u128) -> Block {
    let mut r = Block(1);
    while e > 0 {
        if e & 1 == 1 {
            r = mul(r, x);
        }
        x = mul(x, x);
        e >>= 1;
    }
    r
}

/// Multiplicative inverse `a^(2^128 - 2)` (zero maps to zero).
pub fn inverse(a: Block) -> Block {
    pow(a, u128::MAX - 1)
}

/// `Σ a[i] · b[i]` in GF(2^128) with one final reduction; [`ShapeError`]
/// if the lengths differ.
pub fn inner_product(a: &[Block], b: &[Block]) -> Result<Block, ShapeError> {
    inner_product_with(GfBackend::selected(), a, b)
}

/// [`inner_product`] with a specific backend (portable if unsupported).
pub fn inner_product_with(
    backend: GfBackend,
    a: &[Block],
    b: &[Block],
) -> Result<Block, ShapeError> {
    check_len("gf128::inner_product", a.len(), b.len())?;
    let (lo, hi) = match backend {
        #[cfg(target_arch = "x86_64")]
        GfBackend::Pclmul if backend.is_supported() => pclmul::inner_pclmul(a, b),
        #[cfg(target_arch = "x86_64")]
        GfBackend::Vpclmul512 if backend.is_supported() => vpclmul512::inner_vpclmul(a, b),
        _ => a
            .iter()
            .zip(b)
            .fold((Block::ZERO, Block::ZERO), |(l, h), (&x, &y)| {
                let (pl, ph) = clmul128(x, y);
                (l ^ pl, h ^ ph)
            }),
    };
    Ok(reduce(lo, hi))
}

/// `Σ_{i : bits[i] = 1} blocks[i]` computed in constant time (the receiver
/// side of the KOS check, where one factor is a bit); [`ShapeError`] if
/// the lengths differ.
pub fn masked_sum(bits: &Bits, blocks: &[Block]) -> Result<Block, ShapeError> {
    check_len("gf128::masked_sum", bits.len(), blocks.len())?;
    let mut acc = Block::ZERO;
    for (chunk, byte) in blocks.chunks(8).zip(bits.as_bytes()) {
        for (k, &x) in chunk.iter().enumerate() {
            acc ^= x & Block::mask((byte >> k) & 1 == 1);
        }
    }
    Ok(acc)
}

/// Lazy-reduction accumulation of scaled rows, the inner loop of the
/// row-wise KOS check ([`crate::otext::consistency`]): for every group
/// `g < c.len()` and row `i < rows` (`rows = lo.len()`),
/// `(lo[i], hi[i]) ^= clmul128(c[g], x[g * rows + i])`, i.e. the unreduced
/// 256-bit sum `Σ_g c[g] · x[g·rows + i]` is added to row `i`'s accumulator
/// (`hi[i]·x^128 + lo[i]`). Nothing is reduced; callers [`reduce`] each row
/// once at the end. Total: rows are `min(lo.len(), hi.len())`, groups are
/// those `x` holds completely.
///
/// `ahead` is memory the caller reads next: the SIMD backends prefetch its
/// cache lines while the products run, so that a stream from DRAM keeps
/// flowing during the arithmetic (a hint only; it never changes the result).
pub(crate) fn mul_acc_rows_with(
    backend: GfBackend,
    c: &[Block],
    x: &[Block],
    lo: &mut [Block],
    hi: &mut [Block],
    ahead: &[Block],
) {
    let rows = lo.len().min(hi.len());
    if rows == 0 {
        return;
    }
    let groups = c.len().min(x.len() / rows);
    let (c, x) = (&c[..groups], &x[..groups * rows]);
    let (lo, hi) = (&mut lo[..rows], &mut hi[..rows]);
    match backend {
        #[cfg(target_arch = "x86_64")]
        GfBackend::Pclmul if backend.is_supported() => {
            pclmul::mul_acc_rows_pclmul(c, x, lo, hi, ahead)
        }
        #[cfg(target_arch = "x86_64")]
        GfBackend::Vpclmul512 if backend.is_supported() => {
            vpclmul512::mul_acc_rows_vpclmul(c, x, lo, hi, ahead)
        }
        _ => {
            let _ = ahead;
            for (&cg, xg) in c.iter().zip(x.chunks_exact(rows)) {
                for ((l, h), &v) in lo.iter_mut().zip(hi.iter_mut()).zip(xg) {
                    let (pl, ph) = clmul128(cg, v);
                    *l ^= pl;
                    *h ^= ph;
                }
            }
        }
    }
}

/// `pclmul` backend (and the helpers `vpclmul512` shares).
#[cfg(target_arch = "x86_64")]
mod pclmul;
/// `vpclmul512` backend.
#[cfg(target_arch = "x86_64")]
mod vpclmul512;

#[cfg(test)]
mod tests {
    use super::*;

    /// Every backend against the portable accumulation, for row counts
    /// around the 4- and 8-row SIMD passes and any number of groups, on
    /// top of non-zero accumulators.
    #[test]
    fn mul_acc_rows_backends_agree() {
        for rows in [1usize, 3, 4, 5, 8, 12, 13, 128] {
            for groups in [0usize, 1, 2, 7, 9] {
                let c = crate::primitives::prg::prg(Block(rows as u128), groups);
                let x = crate::primitives::prg::prg(Block(1000 + groups as u128), groups * rows);
                let init = crate::primitives::prg::prg(Block(7), 2 * rows);
                let (mut lo, mut hi) = (init[..rows].to_vec(), init[rows..].to_vec());
                for (g, &cg) in c.iter().enumerate() {
                    for i in 0..rows {
                        let (pl, ph) = clmul128(cg, x[g * rows + i]);
                        lo[i] ^= pl;
                        hi[i] ^= ph;
                    }
                }
                for be in GfBackend::available() {
                    let (mut l, mut h) = (init[..rows].to_vec(), init[rows..].to_vec());
                    mul_acc_rows_with(be, &c, &x, &mut l, &mut h, &x);
                    assert_eq!((&l, &h), (&lo, &hi), "{be:?} rows {rows} groups {groups}");
                }
            }
        }
    }

    /// Mismatched shapes are cut to what every slice holds.
    #[test]
    fn mul_acc_rows_is_total() {
        let c = [Block(3), Block(5)];
        let x = [Block(7); 5];
        for be in GfBackend::available() {
            let (mut l, mut h) = (vec![Block::ZERO; 4], vec![Block::ZERO; 2]);
            mul_acc_rows_with(be, &c, &x, &mut l, &mut h, &x);
            // Rows = 2, groups = min(2, 5 / 2) = 2.
            let (pl, ph) = clmul128(Block(3), Block(7));
            let (ql, qh) = clmul128(Block(5), Block(7));
            assert_eq!(l, [pl ^ ql, pl ^ ql, Block::ZERO, Block::ZERO]);
            assert_eq!(h, [ph ^ qh, ph ^ qh]);
            mul_acc_rows_with(be, &c, &x, &mut [], &mut [], &[]);
        }
    }
}
