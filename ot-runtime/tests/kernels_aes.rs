//! AES, PRG and hash kernels: every backend against the `aes` crate and
//! known-answer vectors.

use aes::cipher::{BlockEncrypt, KeyInit};
use ot_runtime::primitives::aes::{Aes128, AesBackend, FIXED_KEY, FIXED_KEY_AES};
use ot_runtime::primitives::hash::{self, CrHash};
use ot_runtime::primitives::prg::{self, Prg};
use ot_runtime::{BitMatrix, Block};
use proptest::prelude::*;

fn hex16(s: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

/// Single-block AES through the `aes` crate: the reference.
fn reference(key: Block, x: Block) -> Block {
    let c = aes::Aes128::new(&key.to_bytes().into());
    let mut b = aes::Block::from(x.to_bytes());
    c.encrypt_block(&mut b);
    Block::from_bytes(b.into())
}

#[test]
fn fips197_c1_every_backend() {
    let key = Block::from_bytes(hex16("000102030405060708090a0b0c0d0e0f"));
    let pt = Block::from_bytes(hex16("00112233445566778899aabbccddeeff"));
    let ct = Block::from_bytes(hex16("69c4e0d86a7b0430d8cdb78070b4c55a"));
    assert_eq!(reference(key, pt), ct);
    for be in AesBackend::available() {
        let a = Aes128::with_backend(key, be).unwrap();
        assert_eq!(a.encrypt_block(pt), ct, "{be:?}");
        let mut v = vec![pt; 77];
        a.encrypt_blocks(&mut v);
        assert!(v.iter().all(|&c| c == ct), "{be:?}");
    }
}

#[test]
fn selected_backend_is_supported() {
    assert!(AesBackend::selected().is_supported());
    assert_eq!(Aes128::new(Block::ZERO).backend(), AesBackend::selected());
    println!(
        "aes backend: {}",
        ot_runtime::primitives::aes::backend_name()
    );
}

#[test]
fn into_rejects_mismatched_lengths() {
    let a = Aes128::new(Block::ONES);
    let mut out = vec![Block::ZERO; 3];
    assert!(a.encrypt_blocks_into(&[Block::ZERO; 4], &mut out).is_err());
    assert!(hash::tccr_many_into(0, 0, &[Block::ZERO; 4], &mut out).is_err());
    assert!(hash::mmo_many_into(&[Block::ZERO; 2], &mut out).is_err());
    assert!(hash::sha1_ro_many_into(0, 0, &[Block::ZERO; 2], &mut out).is_err());
}

#[test]
fn sha1_known_answer() {
    let d = hash::sha1(b"abc");
    let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(hex, "a9993e364706816aba3e25717850c26c9cd0d89d");
    let x = Block(0x1234);
    let mut data = 99u64.to_le_bytes().to_vec();
    data.extend_from_slice(&7u64.to_le_bytes());
    data.extend_from_slice(&x.to_bytes());
    let full = hash::sha1(&data);
    let mut first = [0u8; 16];
    first.copy_from_slice(&full[..16]);
    assert_eq!(hash::sha1_ro(99, 7, x), Block::from_bytes(first));
    let mut v = vec![x, x];
    hash::sha1_ro_many(99, 6, &mut v);
    assert_eq!(v[1], hash::sha1_ro(99, 7, x));
    assert_ne!(v[0], v[1]);
}

#[test]
fn fixed_key_is_documented_constant() {
    let x = Block(42);
    assert_eq!(FIXED_KEY_AES.encrypt_block(x), reference(FIXED_KEY, x));
}

#[test]
fn hash_definitions() {
    let pi = |x| reference(FIXED_KEY, x);
    for (i, x) in [
        (0u64, Block(5)),
        (u64::MAX, Block::ONES),
        (99, Block(1 << 100)),
    ] {
        assert_eq!(hash::mmo(x), pi(x) ^ x);
        assert_eq!(hash::tccr(0, i, x), pi(pi(x) ^ Block::from_u64(i)) ^ pi(x));
        // The session fills the tweak's upper half.
        let s = 0x5e55_u64.wrapping_mul(i | 1);
        let tw = Block::from_u64s(i, s);
        assert_eq!(hash::tccr(s, i, x), pi(pi(x) ^ tw) ^ pi(x));
        assert_ne!(hash::tccr(s, i, x), hash::tccr(s ^ 1, i, x));
        assert_ne!(hash::sha1_ro(s, i, x), hash::sha1_ro(s ^ 1, i, x));
    }
    let mut v = vec![Block(3); 40];
    let mut w = v.clone();
    CrHash::Tccr.hash_many(77, 10, &mut v);
    hash::tccr_many(77, 10, &mut w);
    assert_eq!(v, w);
    assert_eq!(v[39], hash::tccr(77, 49, Block(3)));
    let mut pairs: Vec<[Block; 2]> = (0..37u128).map(|k| [Block(k), Block(!k)]).collect();
    hash::tccr_pairs_in_place(9, 5, &mut pairs);
    for (k, p) in pairs.iter().enumerate() {
        let t = 5 + k as u64;
        assert_eq!(
            *p,
            [
                hash::tccr(9, t, Block(k as u128)),
                hash::tccr(9, t, Block(!(k as u128)))
            ]
        );
    }
}

#[test]
fn prg_stream_definition() {
    let seed = Block(0xdead_beef);
    let v = prg::prg(seed, 100);
    for (i, &b) in v.iter().enumerate() {
        assert_eq!(b, reference(seed, Block::from_u64(i as u64)));
    }
    let mut p = Prg::new(seed);
    let mut a = vec![Block::ZERO; 37];
    p.fill(&mut a);
    assert_eq!(p.counter(), 37);
    assert_eq!(p.next_block(), v[37]);
    assert_eq!(&a[..], &v[..37]);
    let bits = Prg::new(seed).fill_bits(300);
    assert_eq!(bits, ot_runtime::Bits::from_blocks(&v[..3], 300).unwrap());
    let mut m = BitMatrix::new(2, 300);
    Prg::new(seed).fill_matrix_row(&mut m, 1).unwrap();
    assert_eq!(m.row_bits(1), bits);
    assert!(Prg::new(seed).fill_matrix_row(&mut m, 2).is_err());
    let mut bytes = [0u8; 20];
    Prg::new(seed).fill_bytes(&mut bytes);
    assert_eq!(&bytes[..], &Block::slice_as_bytes(&v[..2])[..20]);
    let mut m2 = BitMatrix::new(2, 300);
    prg::fill_matrix(&[Block(1), seed], &mut m2).unwrap();
    assert_eq!(m2.row_bits(1), bits);
    assert!(prg::fill_matrix(&[seed], &mut m2).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// Every backend computes the same ECB / CTR / MMO / TCCR as the
    /// block-at-a-time reference, for every length (tails included) and
    /// both in-place and input/output forms.
    #[test]
    fn backends_match_reference(key in any::<u128>(), n in 0usize..150, seed in any::<u128>(),
                                start in prop_oneof![any::<u64>(), Just(u64::MAX - 5)],
                                session in any::<u64>()) {
        let key = Block(key);
        let input: Vec<Block> = prg::prg(Block(seed), n);
        let ecb: Vec<Block> = input.iter().map(|&x| reference(key, x)).collect();
        let ctr: Vec<Block> = (0..n).map(|i| reference(key, Block::from_u64(start.wrapping_add(i as u64)))).collect();
        let mmo: Vec<Block> = input.iter().zip(&ecb).map(|(&x, &y)| x ^ y).collect();
        let tccr: Vec<Block> = ecb.iter().enumerate()
            .map(|(i, &y)| reference(key, y ^ Block::from_u64s(start.wrapping_add(i as u64), session)) ^ y).collect();
        let tccr_pairs: Vec<Block> = ecb.iter().enumerate()
            .map(|(i, &y)| reference(key, y ^ Block::from_u64s(start.wrapping_add((i / 2) as u64), session)) ^ y).collect();
        for be in AesBackend::available() {
            let a = Aes128::with_backend(key, be).unwrap();
            let mut v = input.clone();
            a.encrypt_blocks(&mut v);
            prop_assert_eq!(&v, &ecb, "ecb {:?}", be);
            let mut o = vec![Block::ZERO; n];
            a.encrypt_blocks_into(&input, &mut o).unwrap();
            prop_assert_eq!(&o, &ecb, "ecb into {:?}", be);
            a.ctr(start, &mut o);
            prop_assert_eq!(&o, &ctr, "ctr {:?}", be);
            let mut v = input.clone();
            a.mmo_blocks(&mut v);
            prop_assert_eq!(&v, &mmo, "mmo {:?}", be);
            let mut v = input.clone();
            a.tccr_blocks(session, start, &mut v);
            prop_assert_eq!(&v, &tccr, "tccr {:?}", be);
            let mut v = input.clone();
            a.tccr_pair_blocks(session, start, &mut v);
            prop_assert_eq!(&v, &tccr_pairs, "tccr pairs {:?}", be);
        }
    }
}
