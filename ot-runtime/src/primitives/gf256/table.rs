//! Table backend: log/exp tables over the generator 0x03 (built at compile
//! time from the scalar reference) and, for a constant factor, a 256-byte
//! row of its products.
#![forbid(unsafe_code)]

use super::scalar;

/// `EXP[i] = 3^i` for i in 0..510 (doubled so `EXP[log a + log b]` needs no
/// reduction modulo 255).
static EXP: [u8; 510] = {
    let mut t = [0u8; 510];
    let mut x = 1u8;
    let mut i = 0;
    while i < 510 {
        t[i] = x;
        x = scalar::mul(x, 3);
        i += 1;
    }
    t
};

/// `LOG[a] = log_3 a` for a != 0 (`LOG[0]` is unused).
static LOG: [u16; 256] = {
    let mut t = [0u16; 256];
    let mut i = 0;
    while i < 255 {
        t[EXP[i] as usize] = i as u16;
        i += 1;
    }
    t
};

/// `a · b` through the log/exp tables.
#[inline]
pub fn mul(a: u8, b: u8) -> u8 {
    if a == 0 || b == 0 {
        0
    } else {
        EXP[(LOG[a as usize] + LOG[b as usize]) as usize]
    }
}

/// The products `c · x` for every byte `x`.
pub fn row(c: u8) -> [u8; 256] {
    let mut r = [0u8; 256];
    for (x, v) in r.iter_mut().enumerate() {
        *v = mul(c, x as u8);
    }
    r
}

/// `dst[t] = a[t] · b[t]` (equal lengths).
pub fn mul_slices(dst: &mut [u8], a: &[u8], b: &[u8]) {
    for ((d, &x), &y) in dst.iter_mut().zip(a).zip(b) {
        *d = mul(x, y);
    }
}

/// `dst[t] ^= c · src[t]` (equal lengths).
pub fn mul_add(dst: &mut [u8], c: u8, src: &[u8]) {
    if c == 0 {
        return;
    }
    if dst.len() < 256 {
        // A row costs 256 products: not worth it for short slices.
        for (d, &x) in dst.iter_mut().zip(src) {
            *d ^= mul(c, x);
        }
        return;
    }
    let r = row(c);
    for (d, &x) in dst.iter_mut().zip(src) {
        *d ^= r[x as usize];
    }
}
