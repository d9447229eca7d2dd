//! The bitwise reference: shift-and-add multiplication modulo 0x11B.
#![forbid(unsafe_code)]

/// `a · b` in GF(2^8) modulo `x^8 + x^4 + x^3 + x + 1` (FIPS-197 §4.2),
/// bit by bit (the reference every backend is tested against). Always
/// eight steps with masks, no branch on the operands (constant time).
pub const fn mul(a: u8, b: u8) -> u8 {
    let (mut a, mut r) = (a, 0u8);
    let mut i = 0;
    while i < 8 {
        // 0xff if bit i of b is set, else 0.
        r ^= a & 0u8.wrapping_sub((b >> i) & 1);
        // xtime (FIPS-197 §4.2.1): multiply by x and reduce.
        a = (a << 1) ^ (((a >> 7) & 1) * 0x1b);
        i += 1;
    }
    r
}

/// `a^e` by square-and-multiply.
pub const fn pow(a: u8, mut e: u32) -> u8 {
    let (mut base, mut r) = (a, 1u8);
    while e != 0 {
        if e & 1 != 0 {
            r = mul(r, base);
        }
        base = mul(base, base);
        e >>= 1;
    }
    r
}

/// The multiplicative inverse `a^254` (and 0 for 0, as the AES S-box
/// defines it, FIPS-197 §5.1.1).
pub const fn inv(a: u8) -> u8 {
    pow(a, 254)
}
