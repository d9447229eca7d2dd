//! GF(2^128): every backend against the bitwise schoolbook reference, field
//! identities, and the GCM test vector through bit reflection.

use ghash::universal_hash::{KeyInit, UniversalHash};
use ot_runtime::primitives::gf128::{self, GfBackend};
use ot_runtime::{primitives::prg, Bits, Block};
use proptest::prelude::*;

fn hex16(s: &str) -> [u8; 16] {
    let mut out = [0u8; 16];
    for (i, o) in out.iter_mut().enumerate() {
        *o = u8::from_str_radix(&s[2 * i..2 * i + 2], 16).unwrap();
    }
    out
}

/// GCM byte string -> our natural-order element (reverse all 128 bits).
fn from_gcm(s: [u8; 16]) -> Block {
    Block(u128::from_be_bytes(s).reverse_bits())
}

#[test]
fn small_known_products() {
    for be in GfBackend::available() {
        let x = Block(2);
        assert_eq!(
            gf128::mul_with(be, Block(1 << 127), x),
            Block(0x87),
            "{be:?}"
        );
        assert_eq!(gf128::mul_with(be, Block(3), Block(3)), Block(5), "{be:?}");
        assert_eq!(
            gf128::mul_with(be, Block::ONES, Block(1)),
            Block::ONES,
            "{be:?}"
        );
        // x^64 * x^64 = x^128 = x^7 + x^2 + x + 1
        assert_eq!(
            gf128::mul_with(be, Block(1 << 64), Block(1 << 64)),
            Block(0x87),
            "{be:?}"
        );
    }
}

/// McGrew–Viega GCM test case 2 (AES-128, zero key, one zero plaintext
/// block): H = 66e94bd4..., C = 0388dace..., GHASH(H, {}, C) = f38cbb1a....
/// GHASH = ((C·H) ⊕ L)·H with L = len(A) ‖ len(C) = 0 ‖ 128.
#[test]
fn gcm_test_case_2_via_reflection() {
    let h = from_gcm(hex16("66e94bd4ef8a2c3b884cfa59ca342b2e"));
    let c = from_gcm(hex16("0388dace60b6a392f328c2b971b2fe78"));
    let l = from_gcm(hex16("00000000000000000000000000000080"));
    let want = from_gcm(hex16("f38cbb1ad69223dcc3457ae5b6b0f885"));
    for be in GfBackend::available() {
        let y = gf128::mul_with(be, gf128::mul_with(be, c, h) ^ l, h);
        assert_eq!(y, want, "{be:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn backends_match_reference_and_ghash(a in any::<u128>(), b in any::<u128>(), c in any::<u128>()) {
        let (a, b, c) = (Block(a), Block(b), Block(c));
        let r = gf128::mul_reference(a, b);
        for be in GfBackend::available() {
            prop_assert_eq!(gf128::mul_with(be, a, b), r, "{:?}", be);
        }
        // Independent implementation: the `ghash` crate, one block, X·H.
        let h = u128::from(a).reverse_bits().to_be_bytes();
        let x = u128::from(b).reverse_bits().to_be_bytes();
        let mut g = ghash::GHash::new(&h.into());
        g.update_padded(&x);
        let out: [u8; 16] = g.finalize().into();
        prop_assert_eq!(from_gcm(out), r);
        // Field identities.
        prop_assert_eq!(gf128::mul(a, b), gf128::mul(b, a));
        prop_assert_eq!(gf128::mul(a, b ^ c), gf128::mul(a, b) ^ gf128::mul(a, c));
        prop_assert_eq!(gf128::mul(gf128::mul(a, b), c), gf128::mul(a, gf128::mul(b, c)));
        let (lo, hi) = gf128::clmul128(a, b);
        prop_assert_eq!(gf128::reduce(lo, hi), r);
    }

    #[test]
    fn inner_product_backends(n in 0usize..100, s in any::<u128>()) {
        let a = prg::prg(Block(s), n);
        let b = prg::prg(Block(s ^ 1), n);
        let want = a.iter().zip(&b).fold(Block::ZERO, |acc, (&x, &y)| acc ^ gf128::mul_reference(x, y));
        for be in GfBackend::available() {
            prop_assert_eq!(gf128::inner_product_with(be, &a, &b).unwrap(), want, "{:?}", be);
        }
        prop_assert_eq!(ot_runtime::primitives::parallel::inner_product(&a, &b, 2).unwrap(), want);
        let bits = Bits::from_blocks(&prg::prg(Block(s ^ 2), n.div_ceil(128)), n).unwrap();
        let ms = a.iter().enumerate().filter(|(i, _)| bits.get(*i)).fold(Block::ZERO, |acc, (_, &x)| acc ^ x);
        prop_assert_eq!(gf128::masked_sum(&bits, &a).unwrap(), ms);
    }
}

#[test]
fn inverse_and_errors() {
    let a = Block(0x1234_5678_9abc_def0_1122);
    assert_eq!(gf128::mul(a, gf128::inverse(a)), Block(1));
    assert_eq!(gf128::inverse(Block::ZERO), Block::ZERO);
    assert!(gf128::inner_product(&[Block::ZERO; 3], &[Block::ZERO; 2]).is_err());
    assert!(gf128::masked_sum(&Bits::zeros(3), &[Block::ZERO; 2]).is_err());
    let big = prg::prg(Block(9), 100_000);
    let big2 = prg::prg(Block(10), 100_000);
    assert_eq!(
        ot_runtime::primitives::parallel::inner_product(&big, &big2, 2).unwrap(),
        gf128::inner_product_with(GfBackend::Portable, &big, &big2).unwrap()
    );
    println!("gf backend: {}", gf128::backend_name());
}
