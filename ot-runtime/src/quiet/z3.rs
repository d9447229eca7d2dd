//! Bit-sliced arithmetic in Z_3^128 and Z_6^128 = Z_2^128 × Z_3^128 (CRT).
//!
//! A vector of 128 values mod 3 is stored as two bit planes `(h, l)`:
//! value 0 is `(0, 0)`, 1 is `(0, 1)`, 2 is `(1, 1)`; `(1, 0)` never occurs
//! in a well-formed vector ([`Z3::is_valid`]). The encoding and the addition
//! formulas are those of the WAVE specification (Banegas et al., App. B.1),
//! which QuietOT's BIPSW instantiation uses for its Z_3 half [QuietOT,
//! eprint 2024/1079, §6 (implementation)]. One addition is six bitwise
//! operations on 128 coordinates at once.
#![forbid(unsafe_code)]

use crate::Block;
use core::ops::{Add, Neg, Sub};

/// Coordinate-wise sum mod 3.
impl Add for Z3 {
    type Output = Z3;
    #[inline(always)]
    fn add(self, b: Z3) -> Z3 {
        Z3 {
            h: (self.l ^ b.h) & (self.h ^ b.l),
            l: (self.l ^ b.l) | (self.h ^ b.l ^ b.h),
        }
    }
}

/// Coordinate-wise negation mod 3 (swaps 1 and 2).
impl Neg for Z3 {
    type Output = Z3;
    #[inline(always)]
    fn neg(self) -> Z3 {
        Z3 {
            h: self.l & !self.h,
            l: self.l,
        }
    }
}

/// Coordinate-wise difference mod 3.
impl Sub for Z3 {
    type Output = Z3;
    #[inline(always)]
    fn sub(self, b: Z3) -> Z3 {
        self + (-b)
    }
}

/// Coordinate-wise sum mod 6 (XOR on the Z_2 half).
impl Add for Z6 {
    type Output = Z6;
    #[inline(always)]
    fn add(self, b: Z6) -> Z6 {
        Z6 {
            two: self.two ^ b.two,
            three: self.three + b.three,
        }
    }
}

/// 128 values mod 3 in two bit planes (see the module docs).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Z3 {
    /// Set where the value is 2.
    pub h: u128,
    /// Set where the value is 1 or 2.
    pub l: u128,
}

impl Z3 {
    /// The zero vector.
    pub const ZERO: Z3 = Z3 { h: 0, l: 0 };

    /// `t · self` for a scalar `t` (taken mod 3).
    pub fn scale(self, t: u8) -> Z3 {
        match t % 3 {
            0 => Z3::ZERO,
            1 => self,
            _ => -self,
        }
    }

    /// Whether every coordinate is a valid encoding (no `(h, l) = (1, 0)`).
    pub fn is_valid(self) -> bool {
        self.h & !self.l == 0
    }

    /// Packs coordinate values (each taken mod 3) into planes.
    pub fn from_values(v: &[u8; 128]) -> Z3 {
        let mut z = Z3::ZERO;
        for (j, &x) in v.iter().enumerate() {
            match x % 3 {
                1 => z.l |= 1 << j,
                2 => {
                    z.l |= 1 << j;
                    z.h |= 1 << j;
                }
                _ => {}
            }
        }
        z
    }

    /// Coordinate values in 0..3 (an invalid coordinate reads as 2).
    pub fn to_values(self) -> [u8; 128] {
        let mut v = [0u8; 128];
        for (j, x) in v.iter_mut().enumerate() {
            *x = if (self.h >> j) & 1 == 1 {
                2
            } else {
                ((self.l >> j) & 1) as u8
            };
        }
        v
    }

    /// The two planes as blocks `[h, l]` (wire order).
    pub fn to_blocks(self) -> [Block; 2] {
        [Block(self.h), Block(self.l)]
    }

    /// Planes from blocks `[h, l]` (not validated: see [`Z3::is_valid`]).
    pub fn from_blocks(b: [Block; 2]) -> Z3 {
        Z3 {
            h: b[0].0,
            l: b[1].0,
        }
    }
}

/// An element of Z_6^128 in CRT form: the Z_2 half as one `u128` (bit j is
/// coordinate j mod 2) and the Z_3 half bit-sliced.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
#[repr(C, align(16))]
pub struct Z6 {
    /// Coordinates mod 2.
    pub two: u128,
    /// Coordinates mod 3.
    pub three: Z3,
}

impl Z6 {
    /// The zero vector.
    pub const ZERO: Z6 = Z6 {
        two: 0,
        three: Z3::ZERO,
    };

    /// `t · self` for a scalar `t` in Z_6.
    pub fn scale(self, t: u8) -> Z6 {
        Z6 {
            two: if t % 2 == 1 { self.two } else { 0 },
            three: self.three.scale(t % 3),
        }
    }

    /// From coordinate values (each taken mod 6).
    pub fn from_values(v: &[u8; 128]) -> Z6 {
        let mut two = 0u128;
        let mut t = [0u8; 128];
        for (j, &x) in v.iter().enumerate() {
            two |= u128::from(x % 6 % 2) << j;
            t[j] = x % 6 % 3;
        }
        Z6 {
            two,
            three: Z3::from_values(&t),
        }
    }

    /// Coordinate values in 0..6 (CRT recombination).
    pub fn to_values(self) -> [u8; 128] {
        let t = self.three.to_values();
        let mut v = [0u8; 128];
        for j in 0..128 {
            let a = ((self.two >> j) & 1) as u8;
            // The x in 0..6 with x = a mod 2 and x = t mod 3.
            v[j] = (0..6u8).find(|x| x % 2 == a && x % 3 == t[j]).unwrap_or(0);
        }
        v
    }
}
