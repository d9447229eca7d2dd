//! The `vaes512` AES backend: hand-written VAES + AVX-512F, 32 blocks (8
//! zmm registers) in flight, on the key schedule of [`super::aesni`].
#![allow(unsafe_code)]
use super::Op;
use crate::Block;
use core::arch::x86_64::*;

pub(super) fn run(rk: &[Block; 11], op: Op, input: Option<&[Block]>, out: &mut [Block]) {
    let n = out.len();
    let dst = out.as_mut_ptr();
    let src = input.map_or(dst as *const Block, |i| i.as_ptr());
    // SAFETY: an `Inner::Vaes` is only built after `is_supported()`
    // checked VAES and AVX-512F; `src`/`dst` are valid for `n` blocks and
    // every access below is either in bounds or masked to in-bounds lanes;
    // `src == dst` is fine because each block is read before written.
    unsafe { run_impl(rk, op, src, dst, n) }
}

#[target_feature(enable = "vaes,avx512f")]
unsafe fn run_impl(rk: &[Block; 11], op: Op, src: *const Block, dst: *mut Block, n: usize) {
    let mut k = [_mm512_setzero_si512(); 11];
    for (kk, r) in k.iter_mut().zip(rk.iter()) {
        let x = _mm_loadu_si128((r as *const Block).cast());
        *kk = _mm512_broadcast_i32x4(x);
    }
    // Lane offsets (0,1,2,3) in the low qword of each 128-bit lane.
    let lane = _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0);
    let four = _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4);
    let pair_lane = _mm512_set_epi64(0, 1, 0, 1, 0, 0, 0, 0);
    let two = _mm512_set_epi64(0, 2, 0, 2, 0, 2, 0, 2);
    macro_rules! enc {
        ($x:expr) => {{
            for v in $x.iter_mut() {
                *v = _mm512_xor_si512(*v, k[0]);
            }
            for r in 1..10 {
                for v in $x.iter_mut() {
                    *v = _mm512_aesenc_epi128(*v, k[r]);
                }
            }
            for v in $x.iter_mut() {
                *v = _mm512_aesenclast_epi128(*v, k[10]);
            }
        }};
    }
    // `ld(j)` / `st(j, v)` access group j (4 blocks) of the current chunk.
    macro_rules! body {
        ($i:expr, $ld:expr, $st:expr) => {{
            let i: usize = $i;
            let mut x = [_mm512_setzero_si512(); 8];
            let counters = |base: u64| {
                let mut c = [_mm512_setzero_si512(); 8];
                let mut v =
                    _mm512_add_epi64(_mm512_set1_epi64(base.wrapping_add(i as u64) as i64), lane);
                v = _mm512_and_si512(v, _mm512_set_epi64(0, -1, 0, -1, 0, -1, 0, -1));
                for cc in c.iter_mut() {
                    *cc = v;
                    v = _mm512_add_epi64(v, four);
                }
                c
            };
            // Tweaks of `Op::TccrPairs`: block i + b gets base + (i + b) / 2
            // (`i` is a multiple of 32), i.e. lanes (0, 0, 1, 1) + 2 per register.
            let pair_counters = |base: u64| {
                let mut c = [_mm512_setzero_si512(); 8];
                let mut v = _mm512_add_epi64(
                    _mm512_set1_epi64(base.wrapping_add((i / 2) as u64) as i64),
                    pair_lane,
                );
                v = _mm512_and_si512(v, _mm512_set_epi64(0, -1, 0, -1, 0, -1, 0, -1));
                for cc in c.iter_mut() {
                    *cc = v;
                    v = _mm512_add_epi64(v, two);
                }
                c
            };
            match op {
                Op::Ctr(s) => {
                    x = counters(s);
                    enc!(x);
                }
                Op::Ecb => {
                    for (j, v) in x.iter_mut().enumerate() {
                        *v = $ld(j);
                    }
                    enc!(x);
                }
                Op::Mmo => {
                    for (j, v) in x.iter_mut().enumerate() {
                        *v = $ld(j);
                    }
                    let orig = x;
                    enc!(x);
                    for j in 0..8 {
                        x[j] = _mm512_xor_si512(x[j], orig[j]);
                    }
                }
                Op::Tccr(t, session) | Op::TccrPairs(t, session) => {
                    for (j, v) in x.iter_mut().enumerate() {
                        *v = $ld(j);
                    }
                    enc!(x);
                    let y = x;
                    let tw = match op {
                        Op::TccrPairs(..) => pair_counters(t),
                        _ => counters(t),
                    };
                    // The session fills the high qword of every lane.
                    let s = session as i64;
                    let sess = _mm512_set_epi64(s, 0, s, 0, s, 0, s, 0);
                    for j in 0..8 {
                        x[j] = _mm512_xor_si512(_mm512_xor_si512(x[j], tw[j]), sess);
                    }
                    enc!(x);
                    for j in 0..8 {
                        x[j] = _mm512_xor_si512(x[j], y[j]);
                    }
                }
            }
            for (j, v) in x.iter().enumerate() {
                $st(j, *v);
            }
        }};
    }
    let mut i = 0;
    while i + 32 <= n {
        body!(
            i,
            |j: usize| _mm512_loadu_si512(src.add(i + 4 * j).cast()),
            |j: usize, v| _mm512_storeu_si512(dst.add(i + 4 * j).cast(), v)
        );
        i += 32;
    }
    if i < n {
        let rem = n - i;
        // Two qwords per block: mask for group j covers blocks
        // [4j, 4j+4) of the remaining `rem`.
        let mask = |j: usize| -> __mmask8 {
            let cnt = rem.saturating_sub(4 * j).min(4);
            ((1u16 << (2 * cnt)) - 1) as u8
        };
        body!(
            i,
            |j: usize| _mm512_maskz_loadu_epi64(mask(j), src.add(i + 4 * j).cast()),
            |j: usize, v| _mm512_mask_storeu_epi64(dst.add(i + 4 * j).cast(), mask(j), v)
        );
    }
}
