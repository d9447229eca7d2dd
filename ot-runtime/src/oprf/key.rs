//! The sender's OPRF key of one batched-OPRF run (KKRT or OOS), as one
//! value: what the prelude's `Oprf` functionality outputs to its sender,
//! so that a protocol calling `do oprf: Oprf[...]` evaluates the key with
//! kernels ([`OprfKey::eval_at`]) whichever protocol realized it.
//!
//! The key of instance `j` is the row `q_j = t_j ⊕ (C(r_j) ∧ s)` and the
//! run's `s`, code `C`, session and hash choice; the OPRF is
//! `F(j, x) = H(j, q_j ⊕ (C(x) ∧ s))` [KKRT16, Fig. 2; OOS17] with the row
//! hash `H` of [`super::hash_words`].

#![forbid(unsafe_code)]

use super::code::{Code, LinearCode, PrCode};
use super::{mask_word, sha1_row, HashTweaks, Word};
use crate::primitives::aes::FIXED_KEY_AES;
use crate::primitives::wipe::Wipe;
use crate::Block;

/// Inputs evaluated per batch by [`OprfKey::eval_at`] (the AES calls then
/// run on 4 × 64 blocks).
const AT_BATCH: usize = 64;

/// The code an OPRF key encodes its inputs with: KKRT's pseudorandom code
/// or OOS's linear code.
#[derive(Clone, Debug)]
pub enum OprfCode {
    /// KKRT16's pseudorandom code (four AES keys from the session).
    Pseudorandom(Box<PrCode>),
    /// An F2-linear code (OOS17; BCH(511, 76) by default).
    Linear(LinearCode),
}

impl Code for OprfCode {
    fn encode_many(&self, inputs: &[Block], out: &mut [Word]) {
        match self {
            OprfCode::Pseudorandom(c) => c.encode_many(inputs, out),
            OprfCode::Linear(c) => c.encode_many(inputs, out),
        }
    }
}

/// The sender's output of a batched OPRF / 1-out-of-N OT run: one OPRF
/// instance per receiver input, evaluated on any input of the sender's
/// choice. Built by `protocols/kkrt.otp` ([`OprfKey::pseudorandom`]) and
/// `protocols/oos.otp` ([`OprfKey::linear`]); the rows and `s` are
/// wiped when the key is dropped.
#[derive(Clone)]
pub struct OprfKey {
    q: Vec<Word>,
    s: Word,
    session: Block,
    sha1: bool,
    code: OprfCode,
}

impl core::fmt::Debug for OprfKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("OprfKey")
            .field("instances", &self.q.len())
            .field("session", &self.session)
            .field("sha1", &self.sha1)
            .finish_non_exhaustive()
    }
}

impl Drop for OprfKey {
    fn drop(&mut self) {
        self.q.wipe();
        self.s.wipe();
    }
}

impl OprfKey {
    /// The key of a KKRT run (`protocols/kkrt.otp`): rows `q` (taken),
    /// `s` as a word, the session id, the run's pseudorandom code and hash
    /// choice.
    pub fn pseudorandom(q: Vec<Word>, s: &Word, session: Block, code: &PrCode, sha1: bool) -> Self {
        OprfKey {
            q,
            s: *s,
            session,
            sha1,
            code: OprfCode::Pseudorandom(Box::new(code.clone())),
        }
    }

    /// The key of an OOS run: as [`OprfKey::pseudorandom`] with the run's
    /// linear code.
    pub fn linear(q: Vec<Word>, s: &Word, session: Block, code: &LinearCode, sha1: bool) -> Self {
        OprfKey {
            q,
            s: *s,
            session,
            sha1,
            code: OprfCode::Linear(code.clone()),
        }
    }

    /// Number of instances `m`.
    pub fn len(&self) -> usize {
        self.q.len()
    }

    /// Whether there are no instances (never, for a completed run).
    pub fn is_empty(&self) -> bool {
        self.q.is_empty()
    }

    /// The run's session id (bound into every hash).
    pub fn session(&self) -> Block {
        self.session
    }

    /// Whether the row hash is SHA-1 (else fixed-key AES TCCR).
    pub fn sha1(&self) -> bool {
        self.sha1
    }

    /// The code inputs are encoded with.
    pub fn code(&self) -> &OprfCode {
        &self.code
    }

    /// Takes the rows out, leaving the key empty (a caller recycling the
    /// buffer for the next run; the rows are the caller's to wipe).
    pub fn take_rows(&mut self) -> Vec<Word> {
        core::mem::take(&mut self.q)
    }

    /// `F(i, x)`: the sender's value of instance `i` on input `x`, equal to
    /// the receiver's output `i` when `x` was its input `i`. `None` if
    /// `i >= m`.
    pub fn eval(&self, i: usize, x: Block) -> Option<Block> {
        let q = self.q.get(i)?;
        Some(super::oprf_eval(
            &self.code,
            &self.s,
            q,
            self.session,
            self.sha1,
            i,
            x,
        ))
    }

    /// `out[k] = F(first + k, inputs[k])` for every `k` with
    /// `k < min(inputs.len(), out.len())` and `first + k < m`, batched and
    /// split over `threads` cores; returns how many values it wrote.
    pub fn eval_many(
        &self,
        first: usize,
        inputs: &[Block],
        threads: usize,
        out: &mut [Block],
    ) -> usize {
        super::oprf_eval_many(
            &self.code,
            &self.s,
            self.q.get(first..).unwrap_or(&[]),
            &HashTweaks::new(self.session, self.sha1, first),
            inputs,
            threads,
            out,
        )
    }

    /// `out[k] = F(instances[k], inputs[k])` at arbitrary instances (a
    /// PSI sender evaluates each element at the bins it hashes to), for
    /// every `k < min(instances.len(), inputs.len(), out.len())`; the
    /// rest of `out` is untouched. Returns how many values it wrote, or
    /// `None`, writing nothing, if an instance is `>= m`. Batched: the
    /// codewords and hashes of 64 inputs per AES call.
    pub fn eval_at(&self, instances: &[u32], inputs: &[Block], out: &mut [Block]) -> Option<usize> {
        let n = instances.len().min(inputs.len()).min(out.len());
        if instances[..n].iter().any(|&j| j as usize >= self.q.len()) {
            return None;
        }
        let mut words = [[Block::ZERO; 4]; AT_BATCH];
        for ((idx, inp), dst) in instances[..n]
            .chunks(AT_BATCH)
            .zip(inputs[..n].chunks(AT_BATCH))
            .zip(out[..n].chunks_mut(AT_BATCH))
        {
            let words = &mut words[..idx.len()];
            self.code.encode_many(inp, words);
            for (w, &j) in words.iter_mut().zip(idx) {
                *w = mask_word(&self.q[j as usize], w, &self.s);
            }
            self.hash_at(idx, words, dst);
        }
        words.wipe();
        Some(n)
    }

    /// `out[k] = H(idx[k], w[k])`: the row hash of [`hash_words`] with a
    /// tweak per row (`(session, 4 j + b)` for block `b` of row `j`).
    fn hash_at(&self, idx: &[u32], w: &mut [Word], out: &mut [Block]) {
        if self.sha1 {
            for ((o, x), &j) in out.iter_mut().zip(w.iter()).zip(idx) {
                *o = sha1_row(self.session, u64::from(j), x);
            }
            return;
        }
        let sess = HashTweaks::new(self.session, false, 0).session_half();
        // TCCR [GKWY20]: π(π(x) ⊕ tweak) ⊕ π(x), with π the fixed-key AES.
        let flat: &mut [Block] = bytemuck::cast_slice_mut(w);
        FIXED_KEY_AES.encrypt_blocks(flat);
        let mut tmp = [Block::ZERO; 4 * AT_BATCH];
        let tmp = &mut tmp[..flat.len()];
        for (k, (t, y)) in tmp.iter_mut().zip(flat.iter()).enumerate() {
            let tweak = 4 * u64::from(idx[k / 4]) + (k % 4) as u64;
            *t = *y ^ Block::from_u64s(tweak, sess);
        }
        FIXED_KEY_AES.encrypt_blocks(tmp);
        for (o, (h, y)) in out
            .iter_mut()
            .zip(tmp.chunks_exact(4).zip(flat.chunks_exact(4)))
        {
            *o = (h[0] ^ y[0]) ^ (h[1] ^ y[1]) ^ (h[2] ^ y[2]) ^ (h[3] ^ y[3]);
        }
        tmp.wipe();
    }
}

/// `F(instances[k], inputs[k])` for every `k` (the prelude's
/// `oprf_eval_at`): [`OprfKey::eval_at`] into a new vector of
/// `min(instances.len(), inputs.len())` values, all zero when an instance
/// is `>= key.len()` (a protocol checks [`oprf_instances_valid`] first
/// where the instances come from a peer).
pub fn oprf_eval_at(key: &OprfKey, instances: &[u32], inputs: &[Block]) -> Vec<Block> {
    let mut out = vec![Block::ZERO; instances.len().min(inputs.len())];
    if key.eval_at(instances, inputs, &mut out).is_none() {
        out.fill(Block::ZERO);
    }
    out
}

/// Whether every instance is below the key's number of instances.
pub fn oprf_instances_valid(key: &OprfKey, instances: &[u32]) -> bool {
    instances.iter().all(|&j| (j as usize) < key.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::oprf::hash_words;
    use crate::primitives::span::Span;

    fn key(sha1: bool, linear: bool) -> OprfKey {
        let q: Vec<Word> = (0..300u128)
            .map(|i| core::array::from_fn(|b| Block(i * 0x9e37_79b9 + b as u128 * 77 + 3)))
            .collect();
        let s = [
            Block(0xf0f0),
            Block(u128::MAX),
            Block(0x1234_5678),
            Block(1 << 100),
        ];
        let session = Block(0xabcdef);
        if linear {
            OprfKey::linear(q, &s, session, &LinearCode::bch_511_76(), sha1)
        } else {
            OprfKey::pseudorandom(q, &s, session, &PrCode::from_session(session), sha1)
        }
    }

    #[test]
    fn eval_at_equals_eval_at_every_instance_and_hash() {
        for sha1 in [false, true] {
            for linear in [false, true] {
                let k = key(sha1, linear);
                let idx: Vec<u32> = (0..200u32).map(|i| (i * 37 + 11) % 300).collect();
                let xs: Vec<Block> = (0..200u128).map(|i| Block(i * 1_000_003 + 9)).collect();
                let mut out = vec![Block::ZERO; 201];
                assert_eq!(k.eval_at(&idx, &xs, &mut out), Some(200));
                for ((&j, &x), o) in idx.iter().zip(&xs).zip(&out) {
                    assert_eq!(
                        Some(*o),
                        k.eval(j as usize, x),
                        "sha1 {sha1} linear {linear}"
                    );
                }
                assert_eq!(out[200], Block::ZERO, "beyond the inputs: untouched");
            }
        }
    }

    #[test]
    fn eval_many_equals_eval_and_the_row_hash() {
        let k = key(false, false);
        let xs: Vec<Block> = (0..100u128).map(Block).collect();
        let mut out = vec![Block::ZERO; 100];
        assert_eq!(k.eval_many(250, &xs, 1, &mut out), 50);
        for (i, o) in out[..50].iter().enumerate() {
            assert_eq!(Some(*o), k.eval(250 + i, xs[i]));
        }
        // One instance through the streamed row hash.
        let w = [mask_word(&k.q[5], &k.code.encode(xs[0]), &k.s)];
        let mut h = [Block::ZERO];
        hash_words(
            &w,
            1,
            &HashTweaks::new(k.session, false, 5),
            1,
            Span::whole(1),
            &mut h,
        );
        assert_eq!(Some(h[0]), k.eval(5, xs[0]));
    }

    #[test]
    fn an_instance_out_of_range_is_refused_without_writing() {
        let k = key(false, true);
        let mut out = vec![Block(7); 2];
        assert_eq!(k.eval_at(&[0, 300], &[Block(1), Block(2)], &mut out), None);
        assert_eq!(out, vec![Block(7); 2]);
        assert_eq!(k.eval(300, Block(1)), None);
        assert!(format!("{k:?}").contains("instances: 300"));
        assert!(!oprf_instances_valid(&k, &[0, 300]));
        assert!(oprf_instances_valid(&k, &[0, 299]));
        assert_eq!(
            oprf_eval_at(&k, &[0, 300], &[Block(1), Block(2)]),
            vec![Block::ZERO; 2]
        );
        assert_eq!(
            oprf_eval_at(&k, &[7], &[Block(1), Block(2)]),
            vec![k.eval(7, Block(1)).unwrap_or_default()]
        );
    }
}
