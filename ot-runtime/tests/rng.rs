//! The `Rng`: its documented stream (AES-256-CTR, fork keys from the tagged
//! counter range, the test-only key derivation), stream consistency across
//! request sizes, forks, reproducibility and wiping.

use aes::cipher::{BlockEncrypt, KeyInit};
use ot_runtime::primitives::rng::Sample;
use ot_runtime::{Block, Rng};
use proptest::prelude::*;
use rand_core::RngCore;
use sha2::{Digest, Sha256};

/// Independent model of the documented stream: AES-256 key and the blocks
/// `AES-256_k(i)` for `i` in `range` (128-bit little-endian inputs).
fn model_blocks(key: &[u8; 32], inputs: impl Iterator<Item = u128>) -> Vec<u8> {
    let aes = aes::Aes256::new(key.into());
    let mut out = Vec::new();
    for i in inputs {
        let mut b = aes::Block::from(i.to_le_bytes());
        aes.encrypt_block(&mut b);
        out.extend_from_slice(&b);
    }
    out
}

/// The documented key of `Rng::deterministic_for_tests(seed)`.
fn model_test_key(seed: u64) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(b"ot-runtime Rng::deterministic_for_tests v1");
    h.update(seed.to_le_bytes());
    h.finalize().into()
}

/// The documented key of the `j`-th fork of the generator with key `key`.
fn model_fork_key(key: &[u8; 32], j: u128) -> [u8; 32] {
    let tag = 1u128 << 127;
    let bytes = model_blocks(key, [tag | (2 * j), tag | (2 * j + 1)].into_iter());
    bytes.try_into().unwrap()
}

fn bytes(rng: &mut Rng, n: usize) -> Vec<u8> {
    let mut v = vec![0u8; n];
    rng.fill_bytes(&mut v);
    v
}

#[test]
fn stream_matches_documented_definition() {
    let key = model_test_key(5);
    let want = model_blocks(&key, 0..100);
    let mut rng = Rng::deterministic_for_tests(5);
    assert_eq!(bytes(&mut rng, 1600), want);

    // Fork keys come from the tagged range and do not move the output
    // stream: after two forks the parent continues at block 100.
    let mut c0 = rng.fork();
    let mut c1 = rng.fork();
    assert_eq!(bytes(&mut rng, 64), model_blocks(&key, 100..104));
    let k0 = model_fork_key(&key, 0);
    let k1 = model_fork_key(&key, 1);
    assert_eq!(bytes(&mut c0, 80), model_blocks(&k0, 0..5));
    assert_eq!(bytes(&mut c1, 80), model_blocks(&k1, 0..5));
    // Grandchildren follow the same rule from their parent's key.
    let mut g = c1.fork();
    assert_eq!(
        bytes(&mut g, 32),
        model_blocks(&model_fork_key(&k1, 0), 0..2)
    );
}

#[test]
fn deterministic_for_tests_is_reproducible() {
    let mut a = Rng::deterministic_for_tests(42);
    let mut b = Rng::deterministic_for_tests(42);
    let mut c = Rng::deterministic_for_tests(43);
    let (x, y, z) = (
        bytes(&mut a, 4096),
        bytes(&mut b, 4096),
        bytes(&mut c, 4096),
    );
    assert_eq!(x, y);
    assert_ne!(x, z);
    // Forks of equal parents are equal too (reproducible protocol tests).
    assert_eq!(bytes(&mut a.fork(), 64), bytes(&mut b.fork(), 64));
}

#[test]
fn fork_children_differ_from_each_other_and_the_parent() {
    let mut parent = Rng::deterministic_for_tests(3);
    let start = bytes(&mut Rng::deterministic_for_tests(3), 256);
    let mut c1 = parent.fork();
    let mut c2 = parent.fork();
    let mut c1_child = c1.fork();
    let streams = [
        bytes(&mut c1, 256),
        bytes(&mut c2, 256),
        bytes(&mut c1_child, 256),
        bytes(&mut parent, 256),
    ];
    for i in 0..streams.len() {
        for j in 0..i {
            assert_ne!(streams[i], streams[j], "streams {i} and {j} are equal");
        }
    }
    // Children are not the parent's stream from its start either, and the
    // parent's continued stream is its stream without the forks.
    assert_ne!(streams[0], start);
    assert_ne!(streams[1], start);
    assert_eq!(streams[3], start);
    // No child shares a 16-byte block with the parent's output.
    let parent_blocks: std::collections::HashSet<&[u8]> = start.chunks(16).collect();
    for s in &streams[..3] {
        assert!(s.chunks(16).all(|b| !parent_blocks.contains(b)));
    }
}

#[test]
fn mixed_requests_consume_one_stream_in_order() {
    let want = bytes(&mut Rng::deterministic_for_tests(9), 16 * 400);
    let mut rng = Rng::deterministic_for_tests(9);
    let mut got = Vec::new();
    got.extend_from_slice(&rng.next_u32().to_le_bytes());
    let mut blocks = [Block::ZERO; 3];
    rng.fill_blocks(&mut blocks);
    got.extend_from_slice(Block::slice_as_bytes(&blocks));
    got.extend_from_slice(&bytes(&mut rng, 5));
    got.extend_from_slice(&rng.next_u64().to_le_bytes());
    // Large unaligned block request: buffered rest, direct blocks, tail.
    let mut big = vec![Block::ZERO; 100];
    rng.fill_blocks(&mut big);
    got.extend_from_slice(Block::slice_as_bytes(&big));
    got.extend_from_slice(&bytes(&mut rng, 0));
    got.extend_from_slice(&rng.next_block().to_bytes());
    got.extend_from_slice(&bytes(&mut rng, 1000));
    let mut aligned = vec![Block::ZERO; 64];
    rng.fill_blocks(&mut aligned);
    got.extend_from_slice(Block::slice_as_bytes(&aligned));
    let mut b = [0u8; 16];
    rng.try_fill_bytes(&mut b).unwrap();
    got.extend_from_slice(&b);
    got.extend_from_slice(&Block::sample(&mut rng).to_bytes());
    assert_eq!(got, want[..got.len()]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Any split of a request into calls delivers the same bytes.
    #[test]
    fn any_split_gives_the_same_stream(sizes in prop::collection::vec(0usize..2100, 0..24), seed in any::<u64>()) {
        let total: usize = sizes.iter().sum();
        let want = bytes(&mut Rng::deterministic_for_tests(seed), total);
        let mut rng = Rng::deterministic_for_tests(seed);
        let mut got = Vec::with_capacity(total);
        for (k, &n) in sizes.iter().enumerate() {
            if k % 2 == 0 && n % 16 == 0 {
                let mut v = vec![Block::ZERO; n / 16];
                rng.fill_blocks(&mut v);
                got.extend_from_slice(Block::slice_as_bytes(&v));
            } else {
                got.extend_from_slice(&bytes(&mut rng, n));
            }
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn entropy_generators_and_samples() {
    let mut e1 = Rng::from_entropy();
    let mut e2 = Rng::try_from_entropy().unwrap();
    assert_ne!(Block::sample(&mut e1), Block::sample(&mut e2));
    assert_ne!(bytes(&mut e1, 64), bytes(&mut e2, 64));
    let _: bool = bool::sample(&mut e1);
    let _: u64 = u64::sample(&mut e1);
    let dynrng: &mut dyn RngCore = &mut e1;
    let _ = dynrng.next_u32();
    assert_eq!(format!("{e1:?}"), "Rng(..)");
}

#[test]
fn secret_state_is_wiped_on_drop() {
    fn wiped_on_drop<T: zeroize::ZeroizeOnDrop>() {}
    fn movable_between_threads<T: Send + Sync>() {}
    wiped_on_drop::<Rng>();
    // The cipher types the Rng and the PRG keys use (the `aes` crate's
    // `zeroize` feature must stay enabled).
    wiped_on_drop::<aes::Aes256Enc>();
    wiped_on_drop::<aes::Aes128>();
    movable_between_threads::<Rng>();
}
