//! TEMPORARY reference version (replaced by the optimized module).
#![allow(missing_docs)]
use crate::prg::Prg;
use crate::{Bits, Block};
use sha2::{Digest, Sha256};

const DOMAIN: &[u8] = b"ot-runtime/kos15-fig10/challenge/v1";

pub fn kos_challenge_key(seed: Block, session: Block, m: usize) -> Block {
    let mut h = Sha256::new();
    h.update([DOMAIN.len() as u8]);
    h.update(DOMAIN);
    h.update(session.to_bytes());
    h.update(seed.to_bytes());
    h.update((m as u64).to_le_bytes());
    let d = h.finalize();
    let mut o = [0u8; 16];
    o.copy_from_slice(&d[..16]);
    Block::from_bytes(o)
}

fn piece(get: impl Fn(usize) -> bool, a: usize, end: usize) -> Block {
    let mut v = 0u128;
    for b in 0..128 {
        if a + b < end && get(a + b) {
            v |= 1 << b;
        }
    }
    Block(v)
}

pub fn kos_row_check(cols: &[Block], count: usize, chi_key: Block, _threads: usize) -> Vec<Block> {
    let d = count.div_ceil(128);
    let chi = crate::prg::prg(chi_key, d);
    let col = |k: usize| cols.get(k).copied().unwrap_or(Block::ZERO);
    (0..128)
        .map(|i| {
            let bit = |k: usize| (col(k).as_u128() >> i) & 1 == 1;
            let mut acc = piece(bit, count, count + 128);
            for (j, c) in chi.iter().enumerate() {
                acc ^= crate::gf128::mul(*c, piece(bit, 128 * j, count));
            }
            acc
        })
        .collect()
}

pub fn kos_choice_check(r: &Bits, count: usize, chi_key: Block) -> Block {
    let d = count.div_ceil(128);
    let mut prg = Prg::new(chi_key);
    let bit = |k: usize| r.try_get(k).unwrap_or(false);
    let mut acc = piece(bit, count, count + 128);
    for j in 0..d {
        acc ^= crate::gf128::mul(prg.next_block(), piece(bit, 128 * j, count));
    }
    acc
}

pub fn kos_rows_consistent(q: &[Block], t: &[Block], x: Block, delta: Block) -> bool {
    if q.len() != 128 || t.len() != 128 {
        return false;
    }
    let mut diff = 0u128;
    for i in 0..128 {
        let m = 0u128.wrapping_sub((delta.as_u128() >> i) & 1);
        diff |= q[i].as_u128() ^ t[i].as_u128() ^ (x.as_u128() & m);
    }
    diff == 0
}
