//! The fused group kernel of the VOLE sums [Roy22, §4]: AES-CTR of a
//! group of `2^g` leaves (`g <= 3`) of one tree and the first `g` levels of
//! the cube sums, computed in registers, so that a leaf's PRG output is
//! never stored: per column block only the group sum `u_g = ⊕_x G(s_x)`
//! and the `g` partial rows `V_b = ⊕_{x_b = 1} G(s_x)` (`b < g`) reach
//! memory.
//!
//! Without the fusion every PRG block was stored, reloaded and XORed
//! about twice (the cube schedule of [`super::vole_sender`]), which
//! cost as much as the AES itself for `k = 2`. Here the `2^g` leaves'
//! streams run side by side, 16 AES chains in flight on VAES (8 on
//! AES-NI), with each leaf's round key broadcast once per round and reused
//! by the chain's column registers.
//!
//! Backends: VAES + AVX-512F (4 blocks a register) and AES-NI (1 block),
//! chosen by the backend of the leaves' keys ([`crate::primitives::aes::Aes128`]); the
//! portable path (keys on the software backend) expands each leaf into
//! scratch rows and sums them there. All three give the same bits; tests
//! check them against the scalar definition for every `k`.

#![allow(unsafe_code)]

use crate::otext::stream::PrgKey;
use crate::primitives::aes::AesBackend;
use crate::primitives::xor::{xor_into, xor_masked_into};
use crate::Block;

/// Largest `g`: groups of up to 8 leaves.
pub(crate) const MAX_GROUP_DEPTH: usize = 3;

/// `dst = src` when `first`, else `dst ^= src`.
#[inline]
pub(crate) fn put(dst: &mut [Block], src: &[Block], first: bool) {
    if first {
        dst.copy_from_slice(src);
    } else {
        xor_into(dst, src);
    }
}

/// One group's inputs: `keys` are the `2^g` leaves' PRG keys, the stream
/// starts at block `counter`; with `skip_first` leaf 0's row is taken as
/// zero and not expanded (the punctured leaf of a re-indexed tree);
/// `first` stores the `V_b` rows instead of adding into them; `mask`
/// (length `n`) is XORed into `u` as it is written (the receiver's
/// correction `u ⊕ r`, without another pass over `u`); `corr` (a row `c`
/// of length `n` and one all-ones-or-zero mask per `V_b`) is XORed into
/// every `V_b` as `c & mask_b` when it is written (the sender's
/// `Q = W ⊕ Δ·c`, [Roy22, Fig. 8], without another pass over `V`; the
/// work does not depend on the masks).
pub(crate) struct Group<'a> {
    pub(crate) keys: &'a [PrgKey],
    pub(crate) counter: u64,
    pub(crate) skip_first: bool,
    pub(crate) first: bool,
    pub(crate) mask: Option<&'a [Block]>,
    pub(crate) corr: Option<(&'a [Block], [u64; MAX_GROUP_DEPTH])>,
}

/// One group (`g = v.len()`, `1 <= g <= MAX_GROUP_DEPTH`, `2^g` keys):
/// stream blocks `counter..counter + n` with `n = u.len()` (every `v[b]`
/// has length `n`). Writes `u = ⊕_x G(s_x)` (⊕ the mask) and, for `b < g`,
/// `v[b] = ⊕_{x_b = 1} G(s_x)` when `first`, else `v[b] ^=` it. `scratch`
/// is reused by the portable path.
pub(crate) fn group_sums(
    grp: &Group<'_>,
    u: &mut [Block],
    v: &mut [&mut [Block]],
    scratch: &mut Vec<Block>,
) {
    let g = v.len();
    debug_assert!((1..=MAX_GROUP_DEPTH).contains(&g) && grp.keys.len() == 1 << g);
    debug_assert!(v.iter().all(|r| r.len() == u.len()));
    let mask = grp.mask.filter(|m| m.len() == u.len());
    let corr = grp.corr.filter(|(c, _)| c.len() == u.len());
    #[cfg(target_arch = "x86_64")]
    if fast::group_sums(grp, mask, corr, u, v) {
        return;
    }
    portable(grp, u, v, scratch);
    if let Some(m) = mask {
        xor_into(u, m);
    }
    if let Some((c, masks)) = corr {
        for (vb, &m) in v.iter_mut().zip(&masks) {
            xor_masked_into(vb, c, m);
        }
    }
}

/// The portable group: every leaf's row into scratch, then the cube sums
/// over rows (level `b` adds the right half of each pair into `v[b]` and
/// into the left).
fn portable(grp: &Group<'_>, u: &mut [Block], v: &mut [&mut [Block]], scratch: &mut Vec<Block>) {
    let (keys, n) = (grp.keys, u.len());
    scratch.resize(keys.len() * n, Block::ZERO);
    if n == 0 {
        return;
    }
    for (j, (key, row)) in keys.iter().zip(scratch.chunks_mut(n)).enumerate() {
        if grp.skip_first && j == 0 {
            row.fill(Block::ZERO);
        } else {
            key.fill(grp.counter, row);
        }
    }
    for (b, vb) in v.iter_mut().enumerate() {
        let step = 1usize << b;
        for i in (0..keys.len()).step_by(2 * step) {
            let (l, r) = scratch.split_at_mut((i + step) * n);
            let (l, r) = (&mut l[i * n..(i + 1) * n], &r[..n]);
            put(vb, r, grp.first && i == 0);
            xor_into(l, r);
        }
    }
    u.copy_from_slice(&scratch[..n]);
}

#[cfg(target_arch = "x86_64")]
mod fast {
    use super::*;
    use core::arch::x86_64::*;

    /// Dispatches to the backend of the keys; `false` if some key has no
    /// hand-written backend (then nothing was written).
    pub(super) fn group_sums(
        grp: &Group<'_>,
        mask: Option<&[Block]>,
        corr: Option<(&[Block], [u64; MAX_GROUP_DEPTH])>,
        u: &mut [Block],
        v: &mut [&mut [Block]],
    ) -> bool {
        let (keys, counter, first) = (grp.keys, grp.counter, grp.first);
        let m = mask.map_or(core::ptr::null(), |m| m.as_ptr());
        let (cp, cm) = corr.map_or((core::ptr::null(), [0; MAX_GROUP_DEPTH]), |(c, m)| {
            (c.as_ptr(), m)
        });
        let corr = Corr { c: cp, masks: cm };
        const NONE: [Block; 11] = [Block::ZERO; 11];
        let mut rks = [&NONE; 8];
        let mut backend = None;
        for (slot, key) in rks.iter_mut().zip(keys) {
            match key.aes().round_keys() {
                Some((b, rk)) if backend.is_none_or(|x| x == b) => {
                    backend = Some(b);
                    *slot = rk;
                }
                _ => return false,
            }
        }
        let n = u.len();
        let mut rows = [core::ptr::null_mut::<Block>(); MAX_GROUP_DEPTH];
        for (p, r) in rows.iter_mut().zip(v.iter_mut()) {
            *p = r.as_mut_ptr();
        }
        macro_rules! go {
            ($m:ident, $g:literal, $w:literal) => {{
                let Ok(rk) = <&[&[Block; 11]; 1 << $g]>::try_from(&rks[..1 << $g]) else {
                    return false;
                };
                let Ok(v) = <[*mut Block; $g]>::try_from(&rows[..$g]) else {
                    return false;
                };
                // SAFETY: the backend was detected when the keys were built
                // (an `Aes128` is only made on a supported backend); `u` and
                // every `v[b]` (and `m`, `corr.c` unless null) are valid for
                // `n` blocks (checked by the caller: `v[b].len() == u.len()`,
                // the mask and correction filtered to that length), and the kernel writes
                // whole steps in bounds and the tail through scratch.
                unsafe {
                    if grp.skip_first {
                        $m::group::<{ 1 << $g }, $g, $w, true>(
                            rk,
                            counter,
                            n,
                            Rows {
                                u: u.as_mut_ptr(),
                                v,
                            },
                            first,
                            m,
                            &corr,
                        )
                    } else {
                        $m::group::<{ 1 << $g }, $g, $w, false>(
                            rk,
                            counter,
                            n,
                            Rows {
                                u: u.as_mut_ptr(),
                                v,
                            },
                            first,
                            m,
                            &corr,
                        )
                    }
                }
            }};
        }
        match (backend, v.len()) {
            (Some(AesBackend::Vaes512), 1) => go!(vaes, 1, 8),
            (Some(AesBackend::Vaes512), 2) => go!(vaes, 2, 4),
            (Some(AesBackend::Vaes512), 3) => go!(vaes, 3, 2),
            (Some(AesBackend::AesNi), 1) => go!(ni, 1, 4),
            (Some(AesBackend::AesNi), 2) => go!(ni, 2, 2),
            (Some(AesBackend::AesNi), 3) => go!(ni, 3, 1),
            _ => return false,
        }
        true
    }

    /// The output rows of a step as the kernels take them: `u` and the `GD`
    /// rows `V_b`, each valid for the blocks the step writes.
    #[derive(Clone, Copy)]
    pub(super) struct Rows<const GD: usize> {
        pub(super) u: *mut Block,
        pub(super) v: [*mut Block; GD],
    }

    /// The correction of [`Group::corr`] as the kernels take it: `c` null
    /// for none.
    pub(super) struct Corr {
        pub(super) c: *const Block,
        pub(super) masks: [u64; MAX_GROUP_DEPTH],
    }

    /// The group kernel over one register type: `$lanes` blocks a register,
    /// `W` column registers per leaf, `G = 2^GD` leaves: `G · W` chains.
    macro_rules! backend {
        (
            $m:ident, $feat:literal, $V:ty, $lanes:literal,
            zero: $zero:expr,
            counters: |$c:ident| $ctr:expr,
            step: |$ix:ident| $inc:expr,
            bcast: |$kp:ident| $bc:expr,
            splat: |$sx:ident| $splat:expr,
            xor: $xor:path, and: $and:path, enc: $enc:path, last: $last:path,
            load: |$lp:ident| $ld:expr,
            store: |$sp:ident, $sv:ident| $st:expr
        ) => {
            pub(super) mod $m {
                use super::*;

                /// Stream blocks `c..c + n` of the group; outputs as
                /// [`super::super::group_sums`].
                ///
                /// # Safety
                /// The CPU has `$feat`; `u`, each `v[b]`, `m` and `corr.c`
                /// (unless null: then no mask, no correction) are valid for
                /// `n` blocks.
                #[target_feature(enable = $feat)]
                pub(in super::super) unsafe fn group<
                    const G: usize,
                    const GD: usize,
                    const W: usize,
                    const SKIP: bool,
                >(
                    rk: &[&[Block; 11]; G],
                    c: u64,
                    n: usize,
                    rows: Rows<GD>,
                    first: bool,
                    m: *const Block,
                    corr: &Corr,
                ) {
                    let Rows { u, v } = rows;
                    let s = $lanes * W;
                    let mut cm = [$zero; GD];
                    for (x, &w) in cm.iter_mut().zip(&corr.masks) {
                        let $sx = w;
                        *x = $splat;
                    }
                    let mut i = 0;
                    while i + s <= n {
                        let mut vi = v;
                        for p in vi.iter_mut() {
                            *p = p.add(i);
                        }
                        let mi = if m.is_null() { m } else { m.add(i) };
                        let ci = if corr.c.is_null() {
                            corr.c
                        } else {
                            corr.c.add(i)
                        };
                        step::<G, GD, W, SKIP>(
                            rk,
                            c.wrapping_add(i as u64),
                            Rows { u: u.add(i), v: vi },
                            first,
                            mi,
                            ci,
                            &cm,
                        );
                        i += s;
                    }
                    if i < n {
                        // The tail: a whole step into scratch (blocks past
                        // `n` are computed and dropped).
                        let mut tu = [Block::ZERO; 32];
                        let mut tv = [[Block::ZERO; 32]; GD];
                        let pv = {
                            let mut p = [core::ptr::null_mut::<Block>(); GD];
                            for (p, t) in p.iter_mut().zip(tv.iter_mut()) {
                                *p = t.as_mut_ptr();
                            }
                            p
                        };
                        step::<G, GD, W, SKIP>(
                            rk,
                            c.wrapping_add(i as u64),
                            Rows {
                                u: tu.as_mut_ptr(),
                                v: pv,
                            },
                            true,
                            core::ptr::null(),
                            core::ptr::null(),
                            &cm,
                        );
                        let r = n - i;
                        if !m.is_null() {
                            xor_into(&mut tu[..r], core::slice::from_raw_parts(m.add(i), r));
                        }
                        core::ptr::copy_nonoverlapping(tu.as_ptr(), u.add(i), r);
                        for (b, t) in tv.iter().enumerate() {
                            let dst = core::slice::from_raw_parts_mut(v[b].add(i), r);
                            put(dst, &t[..r], first);
                            if !corr.c.is_null() {
                                let cr = core::slice::from_raw_parts(corr.c.add(i), r);
                                xor_masked_into(dst, cr, corr.masks[b]);
                            }
                        }
                    }
                }

                /// One step of `$lanes · W` blocks at counter `c`.
                #[target_feature(enable = $feat)]
                #[inline]
                unsafe fn step<
                    const G: usize,
                    const GD: usize,
                    const W: usize,
                    const SKIP: bool,
                >(
                    rk: &[&[Block; 11]; G],
                    c: u64,
                    rows: Rows<GD>,
                    first: bool,
                    m: *const Block,
                    cp: *const Block,
                    cm: &[$V; GD],
                ) {
                    let Rows { u, v } = rows;
                    let mut ctr = [$zero; W];
                    {
                        let $c = c;
                        let mut x: $V = $ctr;
                        for w in ctr.iter_mut() {
                            *w = x;
                            let $ix = x;
                            x = $inc;
                        }
                    }
                    let mut x = [ctr; G];
                    macro_rules! key {
                        ($j:expr, $r:expr) => {{
                            let $kp: *const Block = &rk[$j][$r];
                            $bc
                        }};
                    }
                    for (j, xj) in x.iter_mut().enumerate() {
                        if SKIP && j == 0 {
                            continue;
                        }
                        let k = key!(j, 0);
                        for xw in xj.iter_mut() {
                            *xw = $xor(*xw, k);
                        }
                    }
                    for r in 1..10 {
                        for (j, xj) in x.iter_mut().enumerate() {
                            if SKIP && j == 0 {
                                continue;
                            }
                            let k = key!(j, r);
                            for xw in xj.iter_mut() {
                                *xw = $enc(*xw, k);
                            }
                        }
                    }
                    for (j, xj) in x.iter_mut().enumerate() {
                        if SKIP && j == 0 {
                            *xj = [$zero; W];
                            continue;
                        }
                        let k = key!(j, 10);
                        for xw in xj.iter_mut() {
                            *xw = $last(*xw, k);
                        }
                    }
                    // The cube, in registers: level b adds the right half of
                    // every pair into V_b and into the left.
                    let mut acc = [[$zero; W]; GD];
                    for (b, ab) in acc.iter_mut().enumerate() {
                        let step = 1usize << b;
                        let mut i = 0;
                        while i < G {
                            for w in 0..W {
                                let r = x[i + step][w];
                                ab[w] = $xor(ab[w], r);
                                x[i][w] = $xor(x[i][w], r);
                            }
                            i += 2 * step;
                        }
                    }
                    for w in 0..W {
                        let $sp = u.add($lanes * w);
                        let $sv = if m.is_null() {
                            x[0][w]
                        } else {
                            let $lp = m.add($lanes * w);
                            $xor(x[0][w], $ld)
                        };
                        $st;
                    }
                    if !cp.is_null() {
                        // The correction row, masked per V_b: Q = W ⊕ Δ_b·c.
                        for w in 0..W {
                            let $lp = cp.add($lanes * w);
                            let cw = $ld;
                            for (ab, &mb) in acc.iter_mut().zip(cm) {
                                ab[w] = $xor(ab[w], $and(cw, mb));
                            }
                        }
                    }
                    for (b, ab) in acc.iter().enumerate() {
                        for (w, &a) in ab.iter().enumerate() {
                            let $sp = v[b].add($lanes * w);
                            let $sv = if first {
                                a
                            } else {
                                let $lp = $sp as *const Block;
                                $xor($ld, a)
                            };
                            $st;
                        }
                    }
                }
            }
        };
    }

    backend!(
        vaes, "vaes,aes,avx512f", __m512i, 4,
        zero: _mm512_setzero_si512(),
        counters: |c| _mm512_and_si512(
            _mm512_add_epi64(_mm512_set1_epi64(c as i64), _mm512_set_epi64(0, 3, 0, 2, 0, 1, 0, 0)),
            _mm512_set_epi64(0, -1, 0, -1, 0, -1, 0, -1)
        ),
        step: |x| _mm512_add_epi64(x, _mm512_set_epi64(0, 4, 0, 4, 0, 4, 0, 4)),
        bcast: |p| _mm512_broadcast_i32x4(_mm_loadu_si128(p.cast())),
        splat: |w| _mm512_set1_epi64(w as i64),
        xor: _mm512_xor_si512, and: _mm512_and_si512, enc: _mm512_aesenc_epi128, last: _mm512_aesenclast_epi128,
        load: |p| _mm512_loadu_si512(p.cast()),
        store: |p, x| _mm512_storeu_si512(p.cast(), x)
    );

    backend!(
        ni, "aes,sse2", __m128i, 1,
        zero: _mm_setzero_si128(),
        counters: |c| _mm_set_epi64x(0, c as i64),
        step: |x| _mm_add_epi64(x, _mm_set_epi64x(0, 1)),
        bcast: |p| _mm_loadu_si128(p.cast()),
        splat: |w| _mm_set1_epi64x(w as i64),
        xor: _mm_xor_si128, and: _mm_and_si128, enc: _mm_aesenc_si128, last: _mm_aesenclast_si128,
        load: |p| _mm_loadu_si128(p.cast()),
        store: |p, x| _mm_storeu_si128(p.cast(), x)
    );
}
