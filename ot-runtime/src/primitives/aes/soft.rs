//! The `soft` AES backend: the RustCrypto `aes` crate (its own AES-NI
//! detection or its constant-time bitsliced software implementation), 8
//! blocks per call.

use super::Op;
use crate::Block;
use aes::cipher::BlockEncrypt;

/// Runs `op` through the `aes` crate, 8 blocks per call.
pub(super) fn run(c: &aes::Aes128, op: Op, input: Option<&[Block]>, out: &mut [Block]) {
    let enc = |v: &mut [Block]| {
        let mut buf = [aes::Block::default(); 8];
        for (g, b) in buf.iter_mut().zip(v.iter()) {
            g.copy_from_slice(&b.to_bytes());
        }
        c.encrypt_blocks(&mut buf[..v.len()]);
        for (g, b) in buf.iter().zip(v.iter_mut()) {
            let mut a = [0u8; 16];
            a.copy_from_slice(g);
            *b = Block::from_bytes(a);
        }
    };
    let n = out.len();
    let mut i = 0;
    while i < n {
        let k = (n - i).min(8);
        let mut x = [Block::ZERO; 8];
        match input {
            Some(inp) => x[..k].copy_from_slice(&inp[i..i + k]),
            None => x[..k].copy_from_slice(&out[i..i + k]),
        }
        let orig = x;
        let tweak = |s: u64, j: usize| Block::from_u64(s.wrapping_add((i + j) as u64));
        match op {
            Op::Ecb => enc(&mut x[..k]),
            Op::Ctr(s) => {
                for (j, v) in x[..k].iter_mut().enumerate() {
                    *v = tweak(s, j);
                }
                enc(&mut x[..k]);
            }
            Op::Mmo => {
                enc(&mut x[..k]);
                for j in 0..k {
                    x[j] ^= orig[j];
                }
            }
            Op::Tccr(t, session) | Op::TccrPairs(t, session) => {
                let shift = u32::from(matches!(op, Op::TccrPairs(..)));
                enc(&mut x[..k]);
                let y = x;
                for (j, v) in x[..k].iter_mut().enumerate() {
                    *v ^= Block::from_u64s(t.wrapping_add(((i + j) >> shift) as u64), session);
                }
                enc(&mut x[..k]);
                for j in 0..k {
                    x[j] ^= y[j];
                }
            }
        }
        out[i..i + k].copy_from_slice(&x[..k]);
        i += k;
    }
}
