//! MiniMac representations and the kernels of `protocols/minimac_open.otp`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use sha2::{Digest, Sha256};

use crate::minimac::reed_solomon::{CodeError, ReedSolomon};
use crate::primitives::gf256::{add_assign, mul_add, mul_slices, schur_sum_add};
use crate::primitives::prg::Prg;
use crate::Block;

/// Domain label of the MAC-check coefficients ([`check_seed`]).
const CHECK_DOMAIN: &[u8] = b"ot-runtime/minimac/mac-check-coefficients/v1";
/// Domain label of the commitments to MAC differences ([`mac_commitment`]).
const COMMIT_DOMAIN: &[u8] = b"ot-runtime/minimac/mac-difference-commitment/v1";

/// Codes built so far, by `(k, n)`.
type CodeCache = HashMap<(usize, usize), Arc<Codes>>;

/// The opened values of a batch: `k` slots per value.
pub type Opened = Vec<Vec<u8>>;

/// Why representations cannot be combined.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ShareError {
    /// Batches of different lengths.
    #[error("MiniMac shares: batch lengths differ ({left} and {right})")]
    Length {
        /// Length of the left operand.
        left: usize,
        /// Length of the right operand.
        right: usize,
    },
    /// Shares of different parties, party counts, codes or MAC keys, or
    /// of the base code and the Schur square.
    #[error("MiniMac shares: operands of different parties, codes or MAC keys")]
    Mismatch,
    /// Parts of inconsistent lengths, or a holder index out of range.
    #[error("MiniMac shares: malformed batch")]
    Malformed,
    /// A public constant of the wrong slot count.
    #[error("MiniMac shares: a public constant needs {want} slots, got {got}")]
    Constant {
        /// Slots per value (`k`).
        want: usize,
        /// Slots given.
        got: usize,
    },
}

/// The code `C = RS[n, k]` and its Schur square `C*` (shared, built once
/// per `(k, n)`). The default is the trivial code `RS[1, 1]`.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Codes {
    /// `C`.
    pub base: ReedSolomon,
    /// `C* = RS[n, 2k − 1]`.
    pub square: ReedSolomon,
}

impl Codes {
    /// The codes for message length `k` and code length `n` (`2k − 1 ≤ n ≤
    /// 256`), cached.
    pub fn get(k: usize, n: usize) -> Result<Arc<Codes>, CodeError> {
        static CACHE: OnceLock<Mutex<CodeCache>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        if let Some(c) = cache.lock().ok().and_then(|m| m.get(&(k, n)).cloned()) {
            return Ok(c);
        }
        let base = ReedSolomon::new(k, n)?;
        let square = base.square()?;
        let codes = Arc::new(Codes { base, square });
        if let Ok(mut m) = cache.lock() {
            m.insert((k, n), codes.clone());
        }
        Ok(codes)
    }
}

/// Party `me`'s representations of a batch of values (module docs): for
/// value `l`, `x[l·n..(l+1)·n]` is its codeword share and `mac[..]` the
/// same range of its MAC share; `alpha` its share of the MAC key; `square`
/// whether the codewords lie in `C*` (products) rather than `C`. The
/// default is an empty batch (of no parties, which no protocol accepts).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shares {
    holder: Holder,
    square: bool,
    x: Vec<u8>,
    mac: Vec<u8>,
}

/// Who holds a batch: party `me` of `parties`, the codes, and its share
/// `alpha` (`n` bytes) of the MAC key. Operands of one operation must have
/// equal holders.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Holder {
    /// Index of the holding party.
    pub me: usize,
    /// Number of parties.
    pub parties: usize,
    /// The codes `C` and `C*`.
    pub codes: Arc<Codes>,
    /// The party's share of the MAC key `α`.
    pub alpha: Arc<MacKey>,
}

/// A party's share of the MAC key `α` (`n` bytes), wiped when dropped (a
/// [`Holder`] shares it through an `Arc`: the last holder wipes it).
/// Dereferences to its bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MacKey(pub Vec<u8>);

impl Drop for MacKey {
    fn drop(&mut self) {
        crate::primitives::wipe::Wipe::wipe(&mut self.0);
    }
}

impl core::ops::Deref for MacKey {
    type Target = Vec<u8>;
    fn deref(&self) -> &Vec<u8> {
        &self.0
    }
}

/// The codeword shares and MAC shares are wiped when a batch is dropped.
impl Drop for Shares {
    fn drop(&mut self) {
        crate::primitives::wipe::Wipe::wipe(&mut self.x);
        crate::primitives::wipe::Wipe::wipe(&mut self.mac);
    }
}

impl Shares {
    /// A batch from its parts (`x` and `mac`: `len()·n` bytes each, `alpha`:
    /// `n` bytes, `me < parties`).
    pub fn new(
        holder: Holder,
        square: bool,
        x: Vec<u8>,
        mac: Vec<u8>,
    ) -> Result<Shares, ShareError> {
        let n = holder.codes.base.n();
        let h = &holder;
        if h.me >= h.parties
            || h.alpha.len() != n
            || x.len() != mac.len()
            || !x.len().is_multiple_of(n)
        {
            return Err(ShareError::Malformed);
        }
        Ok(Shares {
            holder,
            square,
            x,
            mac,
        })
    }

    /// The holder (party, codes, MAC key share).
    pub fn holder(&self) -> &Holder {
        &self.holder
    }

    /// Number of values.
    pub fn len(&self) -> usize {
        self.x.len() / self.holder.codes.base.n()
    }

    /// Whether the batch is empty.
    pub fn is_empty(&self) -> bool {
        self.x.is_empty()
    }

    /// Index of the holder.
    pub fn me(&self) -> usize {
        self.holder.me
    }

    /// Number of parties.
    pub fn parties(&self) -> usize {
        self.holder.parties
    }

    /// The codes.
    pub fn codes(&self) -> &Arc<Codes> {
        &self.holder.codes
    }

    /// Whether the codewords lie in the Schur square `C*`.
    pub fn is_square(&self) -> bool {
        self.square
    }

    /// The codeword shares and MAC shares (`len()·n` bytes each).
    pub fn parts(&self) -> (&[u8], &[u8]) {
        (&self.x, &self.mac)
    }

    /// Mutable codeword and MAC shares: for tests that model a party
    /// which changes its share or MAC before opening.
    pub fn parts_mut(&mut self) -> (&mut [u8], &mut [u8]) {
        (&mut self.x, &mut self.mac)
    }

    fn n(&self) -> usize {
        self.holder.codes.base.n()
    }

    fn same_layout(&self, o: &Shares) -> Result<(), ShareError> {
        if self.holder != o.holder || self.square != o.square {
            return Err(ShareError::Mismatch);
        }
        if self.len() != o.len() {
            return Err(ShareError::Length {
                left: self.len(),
                right: o.len(),
            });
        }
        Ok(())
    }

    /// `[[x + y]]` (in characteristic 2 also `[[x − y]]`).
    pub fn add(&self, o: &Shares) -> Result<Shares, ShareError> {
        self.same_layout(o)?;
        let mut r = self.clone();
        add_assign(&mut r.x, &o.x);
        add_assign(&mut r.mac, &o.mac);
        Ok(r)
    }

    /// `[[c · x]]` for a public field element `c` (every slot scaled).
    pub fn scale(&self, c: u8) -> Shares {
        let mut r = self.clone();
        r.x.fill(0);
        r.mac.fill(0);
        mul_add(&mut r.x, c, &self.x);
        mul_add(&mut r.mac, c, &self.mac);
        r
    }

    /// `[[x + c_l]]` for public constants `c_l` (`k` slots each, one per
    /// value): `P_0` adds the codeword `C(c_l)` to its share, every party
    /// adds `α_i ∘ C(c_l)` to its MAC share (DZ13 §3).
    pub fn add_public(&self, c: &[Vec<u8>]) -> Result<Shares, ShareError> {
        if c.len() != self.len() {
            return Err(ShareError::Length {
                left: self.len(),
                right: c.len(),
            });
        }
        let code = if self.square {
            &self.holder.codes.square
        } else {
            &self.holder.codes.base
        };
        let k = self.holder.codes.base.k();
        let mut r = self.clone();
        let mut word = vec![0u8; self.n()];
        let mut tag = vec![0u8; self.n()];
        for (l, cl) in c.iter().enumerate() {
            if cl.len() != k {
                return Err(ShareError::Constant {
                    want: k,
                    got: cl.len(),
                });
            }
            code.encode_into(cl, &mut word);
            self.add_public_word(&mut r, l, &word, &mut tag);
        }
        Ok(r)
    }

    /// `[[x + c]]` for a public field element `c` in every slot of every
    /// value: the constant polynomial `c` is the all-`c` word, in `C` and
    /// in `C*`, so no encoding is needed (`P_0` adds it to its share,
    /// every party `α_i · c` to its MAC share; DZ13 §3).
    pub fn add_constant(&self, c: u8) -> Shares {
        let mut r = self.clone();
        let n = self.n();
        if self.holder.me == 0 {
            r.x.iter_mut().for_each(|v| *v ^= c);
        }
        let mut tag = vec![0u8; n];
        mul_add(&mut tag, c, &self.holder.alpha);
        for m in r.mac.chunks_mut(n) {
            add_assign(m, &tag);
        }
        r
    }

    /// Adds the public word `w` to value `l` of `r` (codeword share at
    /// `P_0`, `α_i ∘ w` to the MAC share everywhere).
    fn add_public_word(&self, r: &mut Shares, l: usize, w: &[u8], tag: &mut [u8]) {
        let n = self.n();
        if self.holder.me == 0 {
            add_assign(&mut r.x[l * n..(l + 1) * n], w);
        }
        mul_slices(tag, &self.holder.alpha, w);
        add_assign(&mut r.mac[l * n..(l + 1) * n], tag);
    }

    /// The batch of this one followed by `o`'s values.
    pub fn concat(&self, o: &Shares) -> Result<Shares, ShareError> {
        if self.len() != o.len() {
            // Layout check without the equal-length requirement.
            let mut probe = o.clone();
            probe.x.truncate(0);
            probe.mac.truncate(0);
            let mut me = self.clone();
            me.x.truncate(0);
            me.mac.truncate(0);
            me.same_layout(&probe)?;
        } else {
            self.same_layout(o)?;
        }
        let mut r = self.clone();
        r.x.extend_from_slice(&o.x);
        r.mac.extend_from_slice(&o.mac);
        Ok(r)
    }

    /// Values `start..start + len` (`None` if out of range).
    pub fn slice(&self, start: usize, len: usize) -> Option<Shares> {
        let n = self.n();
        let end = start.checked_add(len)?;
        if end > self.len() {
            return None;
        }
        let mut r = self.clone();
        r.x = self.x[start * n..end * n].to_vec();
        r.mac = self.mac[start * n..end * n].to_vec();
        Some(r)
    }
}

/// Whether `s` is party `me`'s batch of `m` values for `n` parties with
/// code length `len` (checked before every kernel).
pub fn shape_ok(s: &Shares, me: usize, n: usize, m: usize, len: usize) -> bool {
    s.holder.me == me && s.holder.parties == n && s.len() == m && s.n() == len
}

/// Whether the batch's code is `RS[len, k]` (so that the parameters'
/// code-size floor, [`crate::minimac::floor`], binds the shares).
pub fn code_is(s: &Shares, k: usize, len: usize) -> bool {
    s.holder.codes.base.k() == k && s.n() == len
}

/// Whether `(a, b, c)` are `me`'s shares of `m` multiplication triples
/// (`a`, `b` in `C`, `c` in `C*`, one MAC key) of the layout of `x`.
pub fn triple_ok(x: &Shares, a: &Shares, b: &Shares, c: &Shares) -> bool {
    let same = |s: &Shares| s.holder == x.holder && s.len() == x.len();
    same(a) && same(b) && same(c) && !x.square && !a.square && !b.square && c.square
}

/// This party's codeword shares of the batch (what it broadcasts to open).
/// (`count` and `len` are the protocol's shape, checked before.)
pub fn codeword_shares(s: &Shares, _count: usize, _len: usize) -> Vec<u8> {
    s.x.clone()
}

/// The opened words: the XOR of every party's broadcast shares.
pub fn open_sum(shares: &[Vec<u8>]) -> Vec<u8> {
    let mut sum = shares.first().cloned().unwrap_or_default();
    for s in shares.iter().skip(1) {
        add_assign(&mut sum, s);
    }
    sum
}

/// Whether every opened word of `y` lies in the code of `s` (`C`, or `C*`
/// for products): a non-codeword means a party changed its share by a
/// non-codeword (DZ13 §3: the opened vector must be in the code).
pub fn in_code(s: &Shares, y: &[u8]) -> bool {
    let code = if s.square {
        &s.holder.codes.square
    } else {
        &s.holder.codes.base
    };
    y.len() == s.x.len() && code.contains_all(y)
}

/// The seed of the MAC check's coefficients: SHA-256 of a domain label, the
/// session and every opened word (so the coefficients are fixed only after
/// every opening is; random-oracle model).
pub fn check_seed(session: Block, y: &[u8]) -> Block {
    check_seed_parts(session, &[y])
}

/// [`check_seed`] of the concatenation of `parts` (the same seed, hashed
/// part by part: no copy of the concatenation).
pub fn check_seed_parts(session: Block, parts: &[&[u8]]) -> Block {
    let total: usize = parts.iter().map(|p| p.len()).sum();
    let mut h = Sha256::new();
    h.update(CHECK_DOMAIN);
    h.update(session.to_bytes());
    h.update((total as u64).to_le_bytes());
    for p in parts {
        h.update(p);
    }
    let d = h.finalize();
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    Block::from_bytes(b)
}

/// This party's share of the batched MAC difference
/// `σ_i = Σ_l r_l ∘ (m_i^(l) − α_i ∘ y^(l))` (`n` bytes), with one
/// coefficient vector `r_l ∈ GF(2^8)^n` per opened word drawn from
/// `Prg(seed)`: the honest shares sum to zero (DZ13 §3, MAC check, batched
/// as in SPDZ's deferred checking).
pub fn mac_diff(s: &Shares, y: &[u8], seed: Block, _len: usize) -> Vec<u8> {
    mac_diff_parts(&[(s, y)], seed)
}

/// Words of the MAC check handled per pass of [`mac_diff_parts`].
const MAC_CHUNK: usize = 64;

/// [`mac_diff`] of the concatenation of the batches `parts` (each with its
/// opened words; all of the holder of the first), with one coefficient
/// stream over all of them: the same `σ_i` as [`mac_diff`] of the joined
/// batch, without joining. Computed as `Σ_l r_l ∘ m_l + α_i ∘ Σ_l r_l ∘
/// y_l` (the same sum, regrouped), `MAC_CHUNK` words per pass: one PRG
/// call for their coefficients (word `l` takes `⌈n/16⌉` stream blocks,
/// as `fill_bytes` of `n` bytes does) and one Schur-sum per part.
pub fn mac_diff_parts(parts: &[(&Shares, &[u8])], seed: Block) -> Vec<u8> {
    let Some((first, _)) = parts.first() else {
        return Vec::new();
    };
    let n = first.n();
    let per = n.div_ceil(16);
    let mut prg = Prg::new(seed);
    let (mut acc_m, mut acc_y) = (vec![0u8; n], vec![0u8; n]);
    let mut coef = vec![Block::ZERO; MAC_CHUNK * per];
    for (s, y) in parts {
        let words = (s.mac.len() / n.max(1)).min(y.len() / n.max(1));
        for c in (0..words).step_by(MAC_CHUNK) {
            let len = MAC_CHUNK.min(words - c);
            prg.fill(&mut coef[..len * per]);
            let r = Block::slice_as_bytes(&coef[..len * per]);
            let mut pm: Vec<(&[u8], &[u8])> = Vec::with_capacity(len);
            let mut py: Vec<(&[u8], &[u8])> = Vec::with_capacity(len);
            for l in 0..len {
                let rl = &r[l * per * 16..][..n];
                let w = (c + l) * n..(c + l + 1) * n;
                pm.push((rl, &s.mac[w.clone()]));
                py.push((rl, &y[w]));
            }
            schur_sum_add(&mut acc_m, &pm);
            schur_sum_add(&mut acc_y, &py);
        }
    }
    let mut sigma = vec![0u8; n];
    mul_slices(&mut sigma, &first.holder.alpha, &acc_y);
    add_assign(&mut sigma, &acc_m);
    sigma
}

/// A hash commitment to party `j`'s MAC difference: SHA-256 of a domain
/// label, the session, `j`, `σ_j` and a 128-bit nonce (binding: collision
/// resistance; hiding: the nonce, random oracle).
pub fn mac_commitment(session: Block, j: usize, sigma: &[u8], nonce: Block) -> [Block; 2] {
    let mut h = Sha256::new();
    h.update(COMMIT_DOMAIN);
    h.update(session.to_bytes());
    h.update((j as u64).to_le_bytes());
    h.update((sigma.len() as u64).to_le_bytes());
    h.update(sigma);
    h.update(nonce.to_bytes());
    let d = h.finalize();
    let (mut lo, mut hi) = ([0u8; 16], [0u8; 16]);
    lo.copy_from_slice(&d[..16]);
    hi.copy_from_slice(&d[16..]);
    [Block::from_bytes(lo), Block::from_bytes(hi)]
}

/// Whether `(σ_j, nonce)` opens party `j`'s commitment `com`.
pub fn mac_opening_ok(
    session: Block,
    j: usize,
    sigma: &[u8],
    nonce: Block,
    com: &[Block; 2],
) -> bool {
    mac_commitment(session, j, sigma, nonce) == *com
}

/// Whether the MAC differences of all parties sum to zero.
pub fn mac_sum_zero(sigmas: &[Vec<u8>]) -> bool {
    open_sum(sigmas).iter().all(|&b| b == 0)
}

/// The opened values: the first `k` slots of each opened word (the
/// systematic part; for `C*` words these are the slot-wise products).
pub fn opened_values(s: &Shares, y: &[u8]) -> Opened {
    let k = s.holder.codes.base.k();
    y.chunks(s.n()).map(|w| w[..k].to_vec()).collect()
}

/// `[[x − a]]` followed by `[[y − b]]`: the values a multiplication opens
/// (Beaver's circuit randomization, DZ13 §3 "multiplication").
pub fn mul_masked(x: &Shares, y: &Shares, a: &Shares, b: &Shares) -> Shares {
    let e = x.add(a).unwrap_or_else(|_| x.clone());
    let d = y.add(b).unwrap_or_else(|_| y.clone());
    e.concat(&d).unwrap_or(e)
}

/// `[[z]]* = [[c]]* + ε ∘ [[b]] + δ ∘ [[a]] + ε ∘ δ` (in `C*`) from the
/// opened `ε = x − a` (first `m` words of `opened`) and `δ = y − b`.
pub fn mul_finish(a: &Shares, b: &Shares, c: &Shares, opened: &[u8]) -> Shares {
    let n = c.n();
    let m = c.len();
    let mut z = c.clone();
    let mut t = vec![0u8; n];
    let mut ed = vec![0u8; n];
    let mut tag = vec![0u8; n];
    for l in 0..m.min(opened.len() / (2 * n)) {
        let eps = &opened[l * n..(l + 1) * n];
        let del = &opened[(m + l) * n..(m + l + 1) * n];
        let r = l * n..(l + 1) * n;
        for (src, w) in [(&b.x, eps), (&a.x, del)] {
            mul_slices(&mut t, &src[r.clone()], w);
            add_assign(&mut z.x[r.clone()], &t);
        }
        for (src, w) in [(&b.mac, eps), (&a.mac, del)] {
            mul_slices(&mut t, &src[r.clone()], w);
            add_assign(&mut z.mac[r.clone()], &t);
        }
        mul_slices(&mut ed, eps, del);
        c.add_public_word(&mut z, l, &ed, &mut tag);
    }
    z
}

/// Whether `([[r]], [[r]]*)` are `me`'s shares of re-encoding pairs for the
/// `C*` batch `x` (`r` in `C`, `r*` in `C*`, one holder, one length).
pub fn pair_ok(x: &Shares, r: &Shares, rs: &Shares) -> bool {
    let same = |s: &Shares| s.holder == x.holder && s.len() == x.len();
    same(r) && same(rs) && x.square && !r.square && rs.square
}

/// `[[x − r]]*`: what re-encoding opens (DZ13 §3; DLT14 §2: the dealt
/// `r*` is uniform in `C*` given its slots, so the opened word reveals only
/// the slots `x − r`).
pub fn reencode_masked(x: &Shares, rs: &Shares) -> Shares {
    x.add(rs).unwrap_or_else(|_| x.clone())
}

/// `[[x]] = [[r]] + C(slots of y)` in `C`, from the opened `y = x* − r*`.
pub fn reencode_finish(r: &Shares, opened: &[u8]) -> Shares {
    let slots = opened_values(r, opened);
    r.add_public(&slots).unwrap_or_else(|_| r.clone())
}

/// Whether `masks` are `me`'s shares of the `n · m` input masks (value
/// `j·m + t`: party `j`'s `t`-th) and `own` (this party's `m` masks in
/// clear) and `x` (its `m` inputs) hold `m · k` slots each, `k` the
/// slots of the code.
pub fn input_ok(
    masks: &Shares,
    own: &[u8],
    x: &[u8],
    me: usize,
    n: usize,
    m: usize,
    k: usize,
) -> bool {
    masks.holder.codes.base.k() == k
        && masks.holder.me == me
        && masks.holder.parties == n
        && !masks.square
        && masks.len() == n * m
        && own.len() == m * k
        && x.len() == m * k
}

/// The input difference `x − r` this party broadcasts (slot-wise).
pub fn input_delta(x: &[u8], own: &[u8]) -> Vec<u8> {
    let mut d = x.to_vec();
    add_assign(&mut d, own);
    d
}

/// `[[x_j]] = [[r_j]] + (x_j − r_j)` for every party's inputs, from the
/// broadcast differences (`deltas[j]`: party `j`'s `m · k` slots).
pub fn input_finish(masks: &Shares, deltas: &[Vec<u8>]) -> Shares {
    let k = masks.holder.codes.base.k();
    let c: Vec<Vec<u8>> = deltas
        .iter()
        .flat_map(|d| d.chunks(k).map(<[u8]>::to_vec))
        .collect();
    masks.add_public(&c).unwrap_or_else(|_| masks.clone())
}

impl Shares {
    /// The same values, now read as words of `C*` (`C ⊂ C*`: a
    /// polynomial of degree `< k` has degree `< 2k − 1`), so they combine
    /// with products without re-encoding.
    pub fn into_square(mut self) -> Shares {
        self.square = true;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::gf256::mul;
    use rand_core::RngCore;

    /// The MAC difference word by word, as DZ13 §3 writes it:
    /// `Σ_l r_l ∘ (m_l + α ∘ y_l)` with `r_l` the next `n` bytes of
    /// `fill_bytes` per word (scalar reference).
    fn mac_diff_reference(s: &Shares, y: &[u8], seed: Block) -> Vec<u8> {
        let n = s.n();
        let mut prg = Prg::new(seed);
        let mut sigma = vec![0u8; n];
        let mut r = vec![0u8; n];
        for (m, w) in s.mac.chunks(n).zip(y.chunks(n)) {
            prg.fill_bytes(&mut r);
            for t in 0..n {
                sigma[t] ^= mul(r[t], m[t] ^ mul(s.holder.alpha[t], w[t]));
            }
        }
        sigma
    }

    fn random_shares(
        k: usize,
        n: usize,
        len: usize,
        rng: &mut crate::primitives::rng::Rng,
    ) -> (Shares, Vec<u8>) {
        let mut random = |l: usize| {
            let mut v = vec![0u8; l];
            rng.fill_bytes(&mut v);
            v
        };
        let holder = Holder {
            me: 0,
            parties: 2,
            codes: Codes::get(k, n).unwrap(),
            alpha: Arc::new(MacKey(random(n))),
        };
        let s = Shares::new(holder, false, random(len * n), random(len * n)).unwrap();
        (s, random(len * n))
    }

    /// `mac_diff` and `mac_diff_parts` over split batches equal the
    /// word-by-word definition (also for `n` not a multiple of 16, and for
    /// batches longer than one pass).
    #[test]
    fn mac_diff_is_the_definition() {
        let mut rng = crate::primitives::rng::Rng::deterministic_for_tests(5);
        for (k, n, len) in [(8, 24, 3), (32, 96, 150), (5, 17, 70)] {
            let (s, y) = random_shares(k, n, len, &mut rng);
            let seed = Block::from_bytes([9; 16]);
            let want = mac_diff_reference(&s, &y, seed);
            assert_eq!(mac_diff(&s, &y, seed, n), want, "k {k} n {n}");
            let cut = len / 3;
            let (a, b) = (s.slice(0, cut).unwrap(), s.slice(cut, len - cut).unwrap());
            let parts = [(&a, &y[..cut * n]), (&b, &y[cut * n..])];
            assert_eq!(mac_diff_parts(&parts, seed), want, "k {k} n {n}, parts");
            let other = mac_diff(&s, &y, Block::from_bytes([8; 16]), n);
            assert_ne!(other, want, "another seed gives other coefficients");
        }
    }

    /// The seed over parts is the seed over their concatenation.
    #[test]
    fn check_seed_parts_is_the_concatenation() {
        let y: Vec<u8> = (0..200u8).collect();
        let s = Block::from_bytes([3; 16]);
        let want = check_seed(s, &y);
        assert_eq!(check_seed_parts(s, &[&y[..7], &y[7..150], &y[150..]]), want);
        assert_ne!(check_seed_parts(s, &[&y[..199]]), want);
    }
}
