//! The `aesni` AES backend: hand-written AES-NI on 128-bit registers, 8
//! blocks in flight, and the AES-NI key schedule shared with `vaes512`.
#![allow(unsafe_code)]
use super::Op;
use crate::Block;
use core::arch::x86_64::*;

/// Expands an AES-128 key with `aeskeygenassist` (constant time).
pub(super) fn expand(key: Block) -> [Block; 11] {
    // SAFETY: only called for backends whose `is_supported()` checked AES-NI.
    unsafe { expand_impl(key) }
}

#[target_feature(enable = "aes,sse2")]
unsafe fn expand_impl(key: Block) -> [Block; 11] {
    macro_rules! step {
        ($prev:expr, $rcon:literal) => {{
            let p = $prev;
            let t = _mm_shuffle_epi32::<0xff>(_mm_aeskeygenassist_si128::<$rcon>(p));
            let p = _mm_xor_si128(p, _mm_slli_si128::<4>(p));
            let p = _mm_xor_si128(p, _mm_slli_si128::<4>(p));
            let p = _mm_xor_si128(p, _mm_slli_si128::<4>(p));
            _mm_xor_si128(p, t)
        }};
    }
    let k0 = to_m(key);
    let k1 = step!(k0, 0x01);
    let k2 = step!(k1, 0x02);
    let k3 = step!(k2, 0x04);
    let k4 = step!(k3, 0x08);
    let k5 = step!(k4, 0x10);
    let k6 = step!(k5, 0x20);
    let k7 = step!(k6, 0x40);
    let k8 = step!(k7, 0x80);
    let k9 = step!(k8, 0x1b);
    let k10 = step!(k9, 0x36);
    [k0, k1, k2, k3, k4, k5, k6, k7, k8, k9, k10].map(from_m)
}

#[inline(always)]
fn to_m(b: Block) -> __m128i {
    // SAFETY: `Block` and `__m128i` are both 16 plain bytes; transmute of
    // plain data is a bit copy. The byte order is preserved (little-endian).
    unsafe { core::mem::transmute::<u128, __m128i>(b.0) }
}

#[inline(always)]
fn from_m(m: __m128i) -> Block {
    // SAFETY: as in `to_m`.
    Block(unsafe { core::mem::transmute::<__m128i, u128>(m) })
}

pub(super) fn run(rk: &[Block; 11], op: Op, input: Option<&[Block]>, out: &mut [Block]) {
    let n = out.len();
    let dst = out.as_mut_ptr();
    let src = input.map_or(dst as *const Block, |i| i.as_ptr());
    // SAFETY: an `Inner::Ni` is only built after `is_supported()` checked
    // AES-NI; `src` and `dst` are valid for `n` blocks (input length was
    // checked by the caller), and `src` may equal `dst` because every
    // block is read before it is written.
    unsafe { run_impl(rk, op, src, dst, n) }
}

#[target_feature(enable = "aes,sse2")]
unsafe fn run_impl(rk: &[Block; 11], op: Op, src: *const Block, dst: *mut Block, n: usize) {
    let k: [__m128i; 11] = rk.map(to_m);
    macro_rules! enc {
        ($x:expr) => {{
            for v in $x.iter_mut() {
                *v = _mm_xor_si128(*v, k[0]);
            }
            for r in 1..10 {
                for v in $x.iter_mut() {
                    *v = _mm_aesenc_si128(*v, k[r]);
                }
            }
            for v in $x.iter_mut() {
                *v = _mm_aesenclast_si128(*v, k[10]);
            }
        }};
    }
    macro_rules! body {
        ($w:literal, $i:expr) => {{
            let i = $i;
            let mut x = [_mm_setzero_si128(); $w];
            match op {
                Op::Ctr(s) => {
                    for (j, v) in x.iter_mut().enumerate() {
                        *v = _mm_set_epi64x(0, s.wrapping_add((i + j) as u64) as i64);
                    }
                    enc!(x);
                }
                Op::Ecb => {
                    for (j, v) in x.iter_mut().enumerate() {
                        *v = _mm_loadu_si128(src.add(i + j).cast());
                    }
                    enc!(x);
                }
                Op::Mmo => {
                    for (j, v) in x.iter_mut().enumerate() {
                        *v = _mm_loadu_si128(src.add(i + j).cast());
                    }
                    let orig = x;
                    enc!(x);
                    for j in 0..$w {
                        x[j] = _mm_xor_si128(x[j], orig[j]);
                    }
                }
                Op::Tccr(t, session) | Op::TccrPairs(t, session) => {
                    let shift = u32::from(matches!(op, Op::TccrPairs(..)));
                    for (j, v) in x.iter_mut().enumerate() {
                        *v = _mm_loadu_si128(src.add(i + j).cast());
                    }
                    enc!(x);
                    let y = x;
                    for (j, v) in x.iter_mut().enumerate() {
                        let tw = _mm_set_epi64x(
                            session as i64,
                            t.wrapping_add(((i + j) >> shift) as u64) as i64,
                        );
                        *v = _mm_xor_si128(*v, tw);
                    }
                    enc!(x);
                    for j in 0..$w {
                        x[j] = _mm_xor_si128(x[j], y[j]);
                    }
                }
            }
            for (j, v) in x.iter().enumerate() {
                _mm_storeu_si128(dst.add(i + j).cast(), *v);
            }
        }};
    }
    let mut i = 0;
    while i + 8 <= n {
        body!(8, i);
        i += 8;
    }
    while i < n {
        body!(1, i);
        i += 1;
    }
}
