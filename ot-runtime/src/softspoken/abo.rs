//! Kernels of the all-but-one OT ((N−1)-out-of-N OT, a punctured PRF) of
//! SoftSpokenOT [Roy, CRYPTO 2022, eprint 2022/192]: the GGM construction
//! from `k` 1-out-of-2 OTs per tree (eprint 2022/192, Fig. 13) and the
//! sender's proof that makes it secure against a malicious sender
//! (Fig. 14). The message flow is `protocols/abo_ot.otp` and
//! `protocols/abo_ot_malicious.otp`; the tree kernels are [`crate::softspoken::ggm`].
//!
//! Per tree `t` of depth `k`, the sender expands a random root into `N = 2^k`
//! leaves and, per level `l`, masks the XOR of the left children and the XOR
//! of the right children with the two keys of base OT `t·k + l − 1`. The
//! receiver, whose punctured index is `α_t`, chose at level `l` the
//! complement of bit `l` of `α_t` (most significant bit first) and so learns
//! the sum on the side off its path: every leaf except leaf `α_t`.
//!
//! Malicious sender (Fig. 14): a sender could send level sums that are
//! consistent with no single tree, so that the receiver's leaves depend on
//! `α_t` in a way the sender controls (a selective-failure attack on the
//! later consistency check). The sender therefore hashes every leaf into a
//! 256-bit proof value `p_x = H(label, sid, t, x, leaf_x)` and sends
//! `t̃ = ⊕_x p_x` and `ŝ = H(label', sid, t, p_0, …, p_{N−1})`. The receiver
//! recomputes `p_x` for `x ≠ α`, sets `p_α = t̃ ⊕ ⊕_{x≠α} p_x` and checks
//! `ŝ`; with `H` collision resistant, passing means one set of leaves is
//! consistent with every punctured index, so whether the check passes does
//! not depend on `α`. `H` is SHA-256 with domain labels; `sid` hashes the
//! proof round's fresh salt with the tree count and depth ([`abo_session`]).

use sha2::{Digest, Sha256};
use zeroize::Zeroize;

use crate::{softspoken::ggm, Bits, Block};

/// Largest tree depth (SoftSpokenOT's `k`): `2^8` leaves per tree.
pub const MAX_ABO_DEPTH: usize = 8;

/// The sender's outputs: every leaf of every tree (tree-major, `2^k` per
/// tree). Wiped on drop; `Debug` prints the shape only.
#[derive(Clone, Default)]
pub struct AboSenderLeaves {
    k: usize,
    leaves: Vec<Block>,
}

/// The receiver's outputs: its punctured indices and every leaf except
/// the punctured one of each tree (which is [`Block::ZERO`]). Wiped on
/// drop; `Debug` prints the shape only.
#[derive(Clone, Default)]
pub struct AboReceiverLeaves {
    k: usize,
    alphas: Vec<usize>,
    leaves: Vec<Block>,
}

impl AboSenderLeaves {
    /// The tree depth `k`.
    pub fn depth(&self) -> usize {
        self.k
    }
    /// Number of trees.
    pub fn trees(&self) -> usize {
        self.leaves.len() >> self.k
    }
    /// The leaves, tree-major (`leaves()[t · 2^k + x]`).
    pub fn leaves(&self) -> &[Block] {
        &self.leaves
    }
}

impl AboReceiverLeaves {
    /// The tree depth `k`.
    pub fn depth(&self) -> usize {
        self.k
    }
    /// Number of trees.
    pub fn trees(&self) -> usize {
        self.alphas.len()
    }
    /// The punctured index of every tree.
    pub fn alphas(&self) -> &[usize] {
        &self.alphas
    }
    /// The leaves, tree-major, zero at each tree's punctured index.
    pub fn leaves(&self) -> &[Block] {
        &self.leaves
    }
}

impl std::fmt::Debug for AboSenderLeaves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AboSenderLeaves {{ k: {}, trees: {} }}",
            self.k,
            self.trees()
        )
    }
}

impl std::fmt::Debug for AboReceiverLeaves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "AboReceiverLeaves {{ k: {}, trees: {} }}",
            self.k,
            self.trees()
        )
    }
}

impl Drop for AboSenderLeaves {
    fn drop(&mut self) {
        self.leaves.iter_mut().for_each(|b| b.0.zeroize());
    }
}

impl Drop for AboReceiverLeaves {
    fn drop(&mut self) {
        self.leaves.iter_mut().for_each(|b| b.0.zeroize());
        self.alphas.zeroize();
    }
}

/// Whether `1 <= k <= MAX_ABO_DEPTH` and every punctured index is below
/// `2^k` (the receiver refuses other inputs with a named abort).
pub fn abo_alphas_valid(alphas: &[usize], k: usize) -> bool {
    (1..=MAX_ABO_DEPTH).contains(&k) && alphas.iter().all(|&a| a >> k == 0)
}

/// The receiver's base-OT choice bits: bit `t·k + l − 1` is the complement
/// of bit `k − l` of `α_t` (level `l`, most significant bit first), so that
/// the receiver learns the level sum on the side off its path.
pub fn abo_choice_bits(alphas: &[usize], k: usize) -> Bits {
    let k = k.min(MAX_ABO_DEPTH);
    let mut out = Bits::zeros(alphas.len() * k);
    for (t, &a) in alphas.iter().enumerate() {
        for l in 1..=k {
            out.set(t * k + l - 1, (a >> (k - l)) & 1 == 0);
        }
    }
    out
}

/// The sender's level sums of every tree, masked with the base-OT keys:
/// entry `t·k + l − 1` is `[L ⊕ key_0, R ⊕ key_1]` for the XORs `L`, `R` of
/// the left and right children at level `l` of tree `t` (Fig. 13), the
/// trees expanded under the position tweaks of the tree session `tsid`
/// ([`abo_tree_session`], [`ggm::GgmTweaks`]). Missing keys mask with
/// zero; an invalid `k` gives zero sums.
pub fn abo_masked_sums(
    roots: &[Block],
    k: usize,
    base: &[[Block; 2]],
    tsid: Block,
) -> Vec<[Block; 2]> {
    let mut sums = Block::zeroed_pairs(roots.len() * k.min(MAX_ABO_DEPTH));
    if (1..=MAX_ABO_DEPTH).contains(&k) {
        let tweaks = ggm::GgmTweaks::new(tsid, roots.len(), k);
        let mut leaves = Block::zeroed_vec(roots.len() << k);
        if ggm::ggm_expand_interleaved_into(roots, k, &tweaks, &mut leaves, Some(&mut sums))
            .is_err()
        {
            sums.fill([Block::ZERO; 2]);
        }
        leaves.iter_mut().for_each(|b| b.0.zeroize());
    }
    for (s, key) in sums.iter_mut().zip(base) {
        s[0] ^= key[0];
        s[1] ^= key[1];
    }
    sums
}

/// The sender's leaves (Fig. 13): the GGM expansion of each root to depth
/// `k` under the tweaks of `tsid` (no leaves for an invalid `k`).
pub fn abo_sender_leaves(roots: &[Block], k: usize, tsid: Block) -> AboSenderLeaves {
    let leaves = if (1..=MAX_ABO_DEPTH).contains(&k) {
        let tweaks = ggm::GgmTweaks::new(tsid, roots.len(), k);
        ggm::ggm_expand(roots, k, &tweaks).unwrap_or_default()
    } else {
        Vec::new()
    };
    AboSenderLeaves { k, leaves }
}

/// The receiver's leaves (Fig. 13): unmasks, per level, the sum it chose
/// (`masked[i][c_i] ⊕ chosen[i]`, selected in constant time) and rebuilds
/// every leaf except leaf `α_t` with [`ggm::ggm_punctured`] under the
/// sender's tweaks (tree session `tsid`). Inputs that the protocol has
/// already validated (`k`, the indices, the lengths) give all-zero leaves
/// if they are wrong.
pub fn abo_receiver_leaves(
    alphas: &[usize],
    k: usize,
    masked: &[[Block; 2]],
    choices: &Bits,
    chosen: &[Block],
    tsid: Block,
) -> AboReceiverLeaves {
    let known: Vec<Block> = masked
        .iter()
        .zip(chosen)
        .enumerate()
        .map(|(i, (m, &key))| {
            let right = Block::mask(choices.try_get(i).unwrap_or(false));
            ((m[0] & !right) | (m[1] & right)) ^ key
        })
        .collect();
    let leaves = if abo_alphas_valid(alphas, k) {
        let tweaks = ggm::GgmTweaks::new(tsid, alphas.len(), k);
        ggm::ggm_punctured(alphas, &known, k, &tweaks)
            .unwrap_or_else(|_| Block::zeroed_vec(alphas.len() << k))
    } else {
        Vec::new()
    };
    AboReceiverLeaves {
        k,
        alphas: alphas.to_vec(),
        leaves,
    }
}

/// Domain labels of the proof hashes (Fig. 14) and of the tree session.
const SESSION_LABEL: &[u8] = b"ot-runtime/abo-ot/session/v1";
const TREE_SESSION_LABEL: &[u8] = b"ot-runtime/abo-ot/ggm-tweak/v1";
const LEAF_LABEL: &[u8] = b"ot-runtime/abo-ot/leaf-proof/v1";
const DIGEST_LABEL: &[u8] = b"ot-runtime/abo-ot/tree-digest/v1";

fn labelled(label: &[u8]) -> Sha256 {
    let mut h = Sha256::new();
    h.update([label.len() as u8]);
    h.update(label);
    h
}

fn pair_of(d: &[u8]) -> [Block; 2] {
    let mut a = [0u8; 16];
    let mut b = [0u8; 16];
    a.copy_from_slice(&d[..16]);
    b.copy_from_slice(&d[16..32]);
    [Block::from_bytes(a), Block::from_bytes(b)]
}

/// The session id of one all-but-one OT run: SHA-256 of a domain label,
/// the fresh salt the sender sends with its proof, the number of trees
/// and the depth, truncated to 128 bits.
pub fn abo_session(salt: Block, trees: usize, k: usize) -> Block {
    salted_shape_hash(SESSION_LABEL, salt, trees, k)
}

/// SHA-256 of `label`, `salt`, the number of trees and the depth,
/// truncated to 128 bits (the two session values of a run).
fn salted_shape_hash(label: &[u8], salt: Block, trees: usize, k: usize) -> Block {
    let mut h = labelled(label);
    h.update(salt.to_bytes());
    h.update((trees as u64).to_le_bytes());
    h.update((k as u64).to_le_bytes());
    pair_of(&h.finalize())[0]
}

/// The tree session of one all-but-one OT run, which keys the GGM position
/// tweaks ([`ggm::GgmTweaks`]; defence in depth for many instances, Guo,
/// Katz, Wang, Yu, S&P 2020, §7): SHA-256 of its own domain label, the
/// fresh salt the sender sends with its level sums, the number of trees
/// and the depth, truncated to 128 bits.
pub fn abo_tree_session(salt: Block, trees: usize, k: usize) -> Block {
    salted_shape_hash(TREE_SESSION_LABEL, salt, trees, k)
}

/// `p_x = H(label, sid, t, x, leaf)`, 256 bits as two blocks.
fn leaf_proof(sid: Block, t: usize, x: usize, leaf: Block) -> [Block; 2] {
    let mut h = labelled(LEAF_LABEL);
    h.update(sid.to_bytes());
    h.update((t as u64).to_le_bytes());
    h.update((x as u64).to_le_bytes());
    h.update(leaf.to_bytes());
    pair_of(&h.finalize())
}

/// `ŝ = H(label', sid, t, p_0, …, p_{N−1})`.
fn tree_digest(sid: Block, t: usize, proofs: &[[Block; 2]]) -> [Block; 2] {
    let mut h = labelled(DIGEST_LABEL);
    h.update(sid.to_bytes());
    h.update((t as u64).to_le_bytes());
    for p in proofs {
        h.update(p[0].to_bytes());
        h.update(p[1].to_bytes());
    }
    pair_of(&h.finalize())
}

/// The sender's proof (Fig. 14): `2 · trees` entries, first `t̃_t = ⊕_x p_x`
/// for every tree, then `ŝ_t` for every tree (`trees` is the protocol's
/// tree count; a leaf set of another shape gives a proof that fails).
pub fn abo_prove(leaves: &AboSenderLeaves, sid: Block, trees: usize) -> Vec<[Block; 2]> {
    if leaves.trees() != trees {
        return vec![[Block::ZERO; 2]; 2 * trees];
    }
    let n = 1usize << leaves.k;
    let mut sums = Vec::with_capacity(2 * trees);
    let mut digests = Vec::with_capacity(trees);
    let mut proofs = vec![[Block::ZERO; 2]; n];
    for (t, tree) in leaves.leaves.chunks_exact(n).enumerate() {
        let mut acc = [Block::ZERO; 2];
        for (x, (&leaf, p)) in tree.iter().zip(proofs.iter_mut()).enumerate() {
            *p = leaf_proof(sid, t, x, leaf);
            acc[0] ^= p[0];
            acc[1] ^= p[1];
        }
        sums.push(acc);
        digests.push(tree_digest(sid, t, &proofs));
    }
    sums.extend(digests);
    sums
}

/// The receiver's verification (Fig. 14): per tree, the proof value of the
/// punctured leaf is recovered from `t̃` (selected in constant time, so the
/// work does not depend on `α`) and the digest compared with `ŝ` in
/// constant time. True iff every tree passes and the proof has
/// `2 · trees` entries.
pub fn abo_verify(leaves: &AboReceiverLeaves, proof: &[[Block; 2]], sid: Block) -> bool {
    let trees = leaves.trees();
    if proof.len() != 2 * trees || leaves.leaves.len() != trees << leaves.k {
        return false;
    }
    let n = 1usize << leaves.k;
    let mut proofs = vec![[Block::ZERO; 2]; n];
    let mut ok = true;
    for (t, tree) in leaves.leaves.chunks_exact(n).enumerate() {
        let alpha = leaves.alphas[t];
        let mut acc = proof[t];
        for (x, (&leaf, p)) in tree.iter().zip(proofs.iter_mut()).enumerate() {
            let keep = Block::mask(x != alpha);
            let v = leaf_proof(sid, t, x, leaf);
            *p = [v[0] & keep, v[1] & keep];
            acc[0] ^= p[0];
            acc[1] ^= p[1];
        }
        for (x, p) in proofs.iter_mut().enumerate() {
            let at = Block::mask(x == alpha);
            p[0] |= acc[0] & at;
            p[1] |= acc[1] & at;
        }
        let d = tree_digest(sid, t, &proofs);
        let want = proof[trees + t];
        ok &= crate::primitives::ops::ct_eq(&(d[0] ^ want[0]).0, &0u128)
            & crate::primitives::ops::ct_eq(&(d[1] ^ want[1]).0, &0u128);
    }
    ok
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rng;

    fn run(
        k: usize,
        alphas: &[usize],
        tamper: Option<usize>,
    ) -> (AboSenderLeaves, AboReceiverLeaves) {
        let mut rng = Rng::deterministic_for_tests(k as u64);
        let trees = alphas.len();
        let roots: Vec<Block> = (0..trees).map(|_| rng.next_block()).collect();
        let base: Vec<[Block; 2]> = (0..trees * k)
            .map(|_| [rng.next_block(), rng.next_block()])
            .collect();
        let choices = abo_choice_bits(alphas, k);
        let chosen: Vec<Block> = (0..trees * k)
            .map(|i| base[i][usize::from(choices.get(i))])
            .collect();
        let tsid = abo_tree_session(Block(3), trees, k);
        let mut masked = abo_masked_sums(&roots, k, &base, tsid);
        if let Some(i) = tamper {
            masked[i][0] ^= Block(1);
            masked[i][1] ^= Block(1);
        }
        (
            abo_sender_leaves(&roots, k, tsid),
            abo_receiver_leaves(alphas, k, &masked, &choices, &chosen, tsid),
        )
    }

    #[test]
    fn receiver_gets_all_but_the_punctured_leaf() {
        for k in 1..=MAX_ABO_DEPTH {
            let n = 1 << k;
            let alphas = [0, n - 1, n / 2, 1 % n];
            let (s, r) = run(k, &alphas, None);
            for (t, &a) in alphas.iter().enumerate() {
                for x in 0..n {
                    let (sv, rv) = (s.leaves()[t * n + x], r.leaves()[t * n + x]);
                    if x == a {
                        assert_eq!(rv, Block::ZERO);
                        assert_ne!(sv, Block::ZERO);
                    } else {
                        assert_eq!(sv, rv, "k {k} tree {t} leaf {x}");
                    }
                }
            }
            let sid = abo_session(Block(7), alphas.len(), k);
            assert!(abo_verify(&r, &abo_prove(&s, sid, alphas.len()), sid));
        }
    }

    #[test]
    fn proof_catches_tampered_sums_and_wrong_sessions() {
        let k = 4;
        let alphas = [3, 9, 15];
        for i in 0..alphas.len() * k {
            let (s, r) = run(k, &alphas, Some(i));
            let sid = abo_session(Block(1), alphas.len(), k);
            assert!(
                !abo_verify(&r, &abo_prove(&s, sid, alphas.len()), sid),
                "sum {i}"
            );
        }
        let (s, r) = run(k, &alphas, None);
        let sid = abo_session(Block(1), 3, k);
        let mut proof = abo_prove(&s, sid, alphas.len());
        assert!(!abo_verify(&r, &proof, abo_session(Block(2), 3, k)));
        proof[1][0] ^= Block(4);
        assert!(!abo_verify(&r, &proof, sid));
        assert!(!abo_verify(&r, &proof[1..], sid));
    }

    #[test]
    fn invalid_inputs_are_reported_not_panics() {
        assert!(!abo_alphas_valid(&[4], 2));
        assert!(!abo_alphas_valid(&[0], 0));
        assert!(!abo_alphas_valid(&[0], 9));
        assert!(abo_alphas_valid(&[3, 0], 2));
        let r = abo_receiver_leaves(&[9], 2, &[], &Bits::zeros(0), &[], Block(0));
        assert!(r.leaves().is_empty());
        assert!(abo_sender_leaves(&[Block(1)], 9, Block(0))
            .leaves()
            .is_empty());
        assert_eq!(abo_masked_sums(&[Block(1)], 0, &[], Block(0)).len(), 0);
    }
}
