//! Transpose: every backend against the bitwise reference on random shapes
//! (including sizes that are not multiples of 8, 16, 64 or 128), round
//! trips, the flat 128 x m / m x 128 forms, and the parallel variant.

use ot_runtime::primitives::transpose::{self, Backend};
use ot_runtime::{primitives::parallel, primitives::prg, BitMatrix, Block};
use proptest::prelude::*;

fn random_matrix(rows: usize, cols: usize, seed: u128) -> BitMatrix {
    let mut m = BitMatrix::new(rows, cols);
    let seeds: Vec<Block> = (0..rows as u128).map(|i| Block(seed ^ (i << 64))).collect();
    prg::fill_matrix(&seeds, &mut m).unwrap();
    m
}

#[test]
fn transpose8x8_matches_bitwise() {
    for seed in 0..200u64 {
        let x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (seed << 17);
        let y = transpose::transpose8x8(x);
        for i in 0..8 {
            for j in 0..8 {
                assert_eq!((x >> (8 * i + j)) & 1, (y >> (8 * j + i)) & 1);
            }
        }
    }
}

#[test]
fn fixed_shapes_every_backend() {
    let shapes = [
        (0, 0),
        (0, 5),
        (5, 0),
        (1, 1),
        (128, 8),
        (128, 127),
        (128, 128),
        (128, 129),
        (128, 1000),
        (128, 4104),
        (8, 128),
        (127, 128),
        (1000, 128),
        (4161, 128),
        (64, 64),
        (200, 300),
        (65, 257),
    ];
    for (r, c) in shapes {
        let m = random_matrix(r, c, (r * 1000 + c) as u128);
        let want = transpose::transpose_reference(&m);
        for be in Backend::available() {
            let t = transpose::transpose_with(be, &m);
            assert_eq!(t, want, "{be:?} {r}x{c}");
            assert_eq!(
                transpose::transpose_with(be, &t),
                m,
                "{be:?} roundtrip {r}x{c}"
            );
        }
        for threads in [1, 2, 3] {
            assert_eq!(
                parallel::transpose(&m, threads),
                want,
                "parallel {threads} {r}x{c}"
            );
        }
    }
}

#[test]
fn selected_backend() {
    assert!(Backend::selected().is_supported());
    println!("transpose backend: {}", transpose::backend_name());
    println!("available: {:?}", Backend::available());
}

#[test]
fn large_parallel_matches() {
    let m = random_matrix(128, 1 << 16, 7);
    let t = transpose::transpose(&m);
    assert_eq!(t, transpose::transpose_with(Backend::Scalar, &m));
    for threads in [2, 4] {
        assert_eq!(parallel::transpose(&m, threads), t);
        let back = parallel::transpose(&t, threads);
        assert_eq!(back, m);
    }
}

#[test]
fn flat_forms_and_errors() {
    for m_cols in [0usize, 1, 100, 128, 1000] {
        let m = random_matrix(128, m_cols, m_cols as u128);
        let cols = transpose::transpose_128xm(m.as_blocks(), m_cols).unwrap();
        assert_eq!(cols.len(), m_cols);
        let t = transpose::transpose_reference(&m);
        assert_eq!(&cols[..], t.as_blocks());
        assert_eq!(
            parallel::transpose_128xm(m.as_blocks(), m_cols, 2).unwrap(),
            cols
        );
        let back = transpose::transpose_mx128(&cols);
        assert_eq!(&back[..], m.as_blocks());
        assert_eq!(parallel::transpose_mx128(&cols, 2), back);
        let mut dst = vec![Block::ZERO; back.len()];
        transpose::transpose_mx128_into(&cols, &mut dst).unwrap();
        assert_eq!(dst, back);
    }
    // Wrong lengths are errors, not panics.
    assert!(transpose::transpose_128xm(&[Block::ZERO; 127], 128).is_err());
    assert!(transpose::transpose_128xm(&[Block::ZERO; 128], 129).is_err());
    assert!(parallel::transpose_128xm(&[Block::ZERO; 5], 1 << 20, 2).is_err());
    let mut small = vec![Block::ZERO; 3];
    assert!(transpose::transpose_128xm_into(&[Block::ZERO; 128], 128, &mut small).is_err());
    assert!(transpose::transpose_mx128_into(&[Block::ZERO; 10], &mut small).is_err());
    let mut wrong = BitMatrix::new(3, 3);
    assert!(transpose::transpose_into(&BitMatrix::new(3, 4), &mut wrong).is_err());
}

#[test]
fn padding_garbage_is_ignored() {
    // Raw writes may leave padding bits set; they must not leak.
    let mut m = random_matrix(130, 70, 3);
    for r in 0..130 {
        m.row_mut(r)[0] |= Block(!0u128 << 70);
    }
    let mut clean = m.clone();
    clean.clear_padding();
    let want = transpose::transpose_reference(&clean);
    for be in Backend::available() {
        assert_eq!(transpose::transpose_with(be, &m), want, "{be:?}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_shapes_every_backend(rows in 0usize..300, cols in 0usize..400, seed in any::<u128>()) {
        let m = random_matrix(rows, cols, seed);
        let want = transpose::transpose_reference(&m);
        for be in Backend::available() {
            let t = transpose::transpose_with(be, &m);
            prop_assert_eq!(&t, &want, "{:?}", be);
            prop_assert_eq!(&transpose::transpose_with(be, &t), &m, "{:?}", be);
        }
        prop_assert_eq!(&parallel::transpose(&m, 2), &want);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(12))]

    /// Shapes large enough to exercise the staged (long-row) paths.
    #[test]
    fn large_random_shapes_every_backend(rows in 500usize..1300, cols in 500usize..1300, seed in any::<u128>()) {
        let m = random_matrix(rows, cols, seed);
        let want = transpose::transpose_reference(&m);
        for be in Backend::available() {
            prop_assert_eq!(&transpose::transpose_with(be, &m), &want, "{:?}", be);
        }
        prop_assert_eq!(&parallel::transpose(&m, 3), &want);
    }
}
