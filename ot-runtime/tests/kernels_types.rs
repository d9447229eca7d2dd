//! Block, Bits, BitMatrix and the parallel PRG/hash variants (the Rng has
//! its own file, `rng.rs`).

use ot_runtime::{
    primitives::hash, primitives::parallel, primitives::prg, BitMatrix, Bits, Block, Rng,
    ShapeError,
};
use proptest::prelude::*;

#[test]
fn block_api() {
    let b = Block::from_bytes([1; 16]);
    assert_eq!(b.to_bytes(), [1; 16]);
    assert_eq!(Block::from(5u128).as_u128(), 5);
    assert_eq!(Block::from_u64(7), Block(7));
    assert_eq!(Block::ONES ^ Block::ONES, Block::ZERO);
    assert_eq!(Block(6) & Block(3), Block(2));
    assert_eq!(Block(6) | Block(3), Block(7));
    let mut x = Block(1);
    x ^= Block(3);
    x |= Block(8);
    x &= Block(0xc);
    assert_eq!(x, Block(8));
    assert!(Block(8).bit(3) && !Block(8).bit(2));
    let mut v = vec![Block(1), Block(2)];
    Block::slice_as_bytes_mut(&mut v)[16] = 9;
    assert_eq!(v[1], Block(9));
    assert_eq!(Block::slice_as_bytes(&v).len(), 32);
    assert_eq!(Block::vec_from_bytes(&[0; 17]), None);
    let _: &[u8] = bytemuck::cast_slice(&v);
}

#[test]
fn bits_api() {
    let mut b = Bits::zeros(10);
    assert_eq!((b.len(), b.is_empty()), (10, false));
    b.set(9, true);
    assert!(b.get(9) && !b.get(8));
    assert_eq!(b.as_bytes(), &[0, 2]);
    assert_eq!(b.try_get(10), None);
    assert_eq!(Bits::from_bytes(&[0, 2], 10).unwrap(), b);
    assert_eq!(
        Bits::from_bytes(&[0, 4], 10),
        Err(ShapeError::Padding {
            what: "Bits::from_bytes"
        })
    );
    assert!(Bits::from_bytes(&[0], 10).is_err());
    let mut rng = Rng::deterministic_for_tests(1);
    let r = Bits::random(&mut rng, 13);
    assert_eq!(r.as_bytes()[1] >> 5, 0);
    let x = r.xor(&b.clone().tap_resize(13)).unwrap();
    assert_eq!(x.len(), 13);
    assert!(r.xor(&b).is_err());
    // Operator: never panics, zero-extends the shorter operand.
    let y = &r ^ &b;
    assert_eq!(y.len(), 13);
    assert_eq!(y, x);
    assert_eq!(r.iter().filter(|&v| v).count(), r.count_ones());
    let collected: Bits = r.iter().collect();
    assert_eq!(collected, r);
    let _ = ShapeError::Length {
        what: "x",
        expected: 1,
        actual: 2,
    }
    .to_string();
}

trait TapResize {
    fn tap_resize(self, n: usize) -> Self;
}
impl TapResize for Bits {
    fn tap_resize(mut self, n: usize) -> Bits {
        self.resize(n);
        self
    }
}

#[test]
fn matrix_api() {
    let mut m = BitMatrix::new(3, 130);
    assert_eq!((m.rows(), m.cols(), m.blocks_per_row()), (3, 130, 2));
    m.set(2, 129, true);
    assert!(m.get(2, 129));
    assert_eq!(m.row(2)[1], Block(2));
    assert_eq!(m.as_blocks().len(), 6);
    m.row_mut(0)[0] = Block(1);
    assert!(m.get(0, 0));
    assert!(BitMatrix::from_blocks(1, 130, vec![Block::ZERO, Block(4)]).is_err());
    assert!(BitMatrix::from_blocks(1, 130, vec![Block::ZERO]).is_err());
    let rows = vec![m.row_bits(0), m.row_bits(1), m.row_bits(2)];
    assert_eq!(BitMatrix::from_rows(&rows, 130).unwrap(), m);
    assert!(m.set_row_bits(5, &rows[0]).is_err());
    assert!(m.set_row_bits(0, &Bits::zeros(3)).is_err());
    assert_eq!(m.transpose().transpose(), m);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    #[test]
    fn parallel_matches_sequential(n in 0usize..20_000, threads in 1usize..5, seed in any::<u128>(), t in any::<u64>()) {
        let seed = Block(seed);
        let want = prg::prg(seed, n);
        prop_assert_eq!(&parallel::prg(seed, n, threads), &want);
        let mut a = want.clone();
        let mut b = want.clone();
        hash::tccr_many(t ^ 5, t, &mut a);
        parallel::tccr_many(t ^ 5, t, &mut b, threads);
        prop_assert_eq!(&a, &b);
        hash::mmo_many(&mut a);
        parallel::mmo_many(&mut b, threads);
        prop_assert_eq!(&a, &b);
    }
}

#[test]
fn parallel_fill_matrix() {
    let seeds: Vec<Block> = (0..128u128).map(Block).collect();
    let mut a = BitMatrix::new(128, 1000);
    let mut b = BitMatrix::new(128, 1000);
    prg::fill_matrix(&seeds, &mut a).unwrap();
    parallel::fill_matrix(&seeds, &mut b, 2).unwrap();
    assert_eq!(a, b);
    assert!(parallel::fill_matrix(&seeds[..3], &mut b, 2).is_err());
    let big = prg::prg(Block(5), 50_000);
    let mut c = vec![Block::ZERO; 50_000];
    parallel::prg_fill(Block(5), 0, &mut c, 2);
    assert_eq!(big, c);
}

#[test]
fn constant_time_equality() {
    use subtle::ConstantTimeEq;
    let (a, b) = (Block(0x1234), Block(0x1234 | 1 << 127));
    assert!(bool::from(a.ct_eq(&a)));
    assert!(!bool::from(a.ct_eq(&b)));
    assert!(ot_runtime::primitives::ops::ct_eq(&b, &b));
    assert!(!ot_runtime::primitives::ops::ct_eq(&a, &b));
    let x = Bits::from_bytes(&[0b1011, 0b1], 9).unwrap();
    let y = Bits::from_bytes(&[0b1011, 0b1], 9).unwrap();
    let z = Bits::from_bytes(&[0b1011, 0b0], 9).unwrap();
    assert!(bool::from(x.ct_eq(&y)));
    assert!(!bool::from(x.ct_eq(&z)));
    // Equal bytes but different lengths are not equal.
    let short = Bits::from_bytes(&[0b1011, 0b1], 10).unwrap();
    assert!(!bool::from(x.ct_eq(&short)));
    assert!(!ot_runtime::primitives::ops::ct_eq(&x, &short));
    assert!(ot_runtime::primitives::ops::ct_eq(
        &Bits::zeros(0),
        &Bits::zeros(0)
    ));
    assert!(!ot_runtime::primitives::ops::ct_eq(
        &Bits::zeros(0),
        &Bits::zeros(1)
    ));
}
