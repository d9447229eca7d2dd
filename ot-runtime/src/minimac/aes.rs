//! Oblivious AES-128 on MiniMac: the S-box masks (one-time tables), the
//! AES linear layer on shares, and the per-layer kernels of
//! `protocols/minimac_aes.otp`.
//!
//! **Layout.** A batch of `B` blocks uses `m = ⌈B / k⌉` groups: slot `s`
//! of group `g` is block `g·k + s`. Byte position `p` of the state is a
//! batch of `m` MiniMac values, stored position-major (value `p·m + g`);
//! byte `p` of the key (and of every round key) is one value, the same in
//! every slot, expanded once per run and added to every group (a layer
//! opens `16·m + 4` values, [`layer_sboxes`]). Every AES byte operation is
//! GF(2^8)-linear on these values except the S-box.
//!
//! **S-box** (our design; DZ16's exact S-box preprocessing is not public,
//! see the `.otp`): a one-time truth table (Ishai, Kushilevitz, Meldgaard,
//! Orlandi, Paskin-Cherniavsky, "On the Power of Correlated Randomness in
//! Secure Computation", TCC 2013, §3, cited by DZ16) in MiniMac's SIMD
//! representation. Per S-box input the dealer gives an **S-box mask**
//! ([`WORDS`] words): `[[ρ]]*` (uniform in `C*` given its uniform slots
//! `ρ`), `[[z]]*` (uniform in `C*` with zero slots) and the table
//! `[[T_v]] = [[S(v + ρ)]]` in `C` for every byte `v` (slot-wise). Then
//! 1. open `ε = x + ρ` (a `C*` word: reveals the slots only, uniform);
//! 2. `[[S(x)]]* = Σ_v C(1_{ε = v}) ∘ [[T_v]] + [[z]]*`, where `1_{ε = v}`
//!    is the public 0/1 slot vector of the slots where `ε` is `v`: slot
//!    `i` of the sum is `T_{ε_i}[i] = S(ε_i + ρ_i) = S(x_i)`; a public `C`
//!    word times a `C` word is a `C*` word with a valid MAC ([`lookup`]).
//!
//! No public vector needs encoding: the systematic coordinates of
//! `C(1_{ε = v})` are 0/1, so coordinate `i < k` of the sum is
//! `T_{ε_i}[i]` (a selection), and redundancy coordinate `t` is
//! `Σ_i L_i[t] · T_{ε_i}[t]` (`L_i` the code's redundancy rows), one
//! [`crate::primitives::gf256::schur_sum_add`] per value, for the codeword and the MAC
//! shares alike. The output stays in `C*` and feeds the linear layer and
//! the next opening directly (masked by the next `[[ρ]]*`), so one opening
//! per AES round suffices.
#![forbid(unsafe_code)]

use rand_core::{CryptoRng, RngCore};

use super::prep::masked_square_word;
use super::shares::{check_seed_parts, in_code, mac_diff_parts, Codes, Opened, Shares};
use crate::primitives::gf256::{
    add_assign, mul, mul_add, mul_slices, pow, prefetch, schur_sum_add,
};
use crate::Block;
use std::sync::{Arc, Mutex};

/// S-box layers of AES-128 (one per round).
pub const LAYERS: usize = 10;
/// S-boxes per layer and block if every group expanded its own key: 16
/// of the state, 4 of the key schedule (the dealer's count per group).
pub const SBOXES: usize = 20;
/// S-boxes of the state per layer and group.
pub const STATE_SBOXES: usize = 16;
/// S-boxes of the key schedule per layer and run: the key is the same in
/// every slot of every group, so it is expanded once per run (one value
/// per key byte) and each round key is added to all `m` groups.
pub const KEY_SBOXES: usize = 4;

/// S-box masks (values opened) per layer of a run of `m` groups:
/// `16·m + 4`.
pub fn layer_sboxes(m: usize) -> usize {
    STATE_SBOXES.saturating_mul(m).saturating_add(KEY_SBOXES)
}
/// Entries of an S-box table: one per byte value.
pub const TABLE: usize = 256;
/// Words of one S-box mask: `ρ*`, `z*` and the table `T_0..T_255`.
pub const WORDS: usize = TABLE + 2;
/// Word index of `[[ρ]]*` in an S-box mask.
pub const RHO: usize = 0;
/// Word index of `[[z]]*` in an S-box mask.
pub const ZERO: usize = 1;
/// Word index of `[[T_0]]` in an S-box mask (`T_v` at `FIRST_ENTRY + v`).
pub const FIRST_ENTRY: usize = 2;
/// Round constants of the key schedule (FIPS-197 §5.2).
const RCON: [u8; LAYERS] = [0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36];

/// `g(v) = A(v^2)`: the squaring followed by the linear part of the
/// S-box's affine map (FIPS-197 §5.1.1: `b ⊕ b⋘1 ⊕ b⋘2 ⊕ b⋘3 ⊕ b⋘4`).
/// GF(2)-linear; `S(x) = g(x^127) + 0x63` (as `x^254 = (x^127)^2`).
pub fn g(v: u8) -> u8 {
    let y = mul(v, v);
    y ^ y.rotate_left(1) ^ y.rotate_left(2) ^ y.rotate_left(3) ^ y.rotate_left(4)
}

/// The AES S-box, `g(x^127) + 0x63` (the reference the tables are built
/// from; tested against FIPS-197 Figure 7).
pub fn sbox(x: u8) -> u8 {
    g(pow(x, 127)) ^ 0x63
}

/// The [`WORDS`] words of one fresh S-box mask (module docs), for the
/// dealer: the 256 table rows are encoded as one matrix product.
pub(super) fn sbox_mask_words<R: RngCore + CryptoRng + ?Sized>(
    codes: &Codes,
    sbox_table: &[u8; 256],
    rng: &mut R,
) -> Vec<Vec<u8>> {
    let (k, n) = (codes.base.k(), codes.base.n());
    let mut rho = vec![0u8; k];
    rng.fill_bytes(&mut rho);
    let mut out = Vec::with_capacity(WORDS);
    out.push(masked_square_word(codes, &rho, rng));
    out.push(masked_square_word(codes, &vec![0u8; k], rng));
    let msgs: Vec<u8> = (0..TABLE)
        .flat_map(|v| rho.iter().map(move |&r| sbox_table[(v as u8 ^ r) as usize]))
        .collect();
    let mut words = vec![0u8; TABLE * n];
    codes.base.encode_many(&msgs, &mut words);
    out.extend(words.chunks(n).map(<[u8]>::to_vec));
    out
}

/// The AES S-box as a table (built once per deal).
pub(super) fn sbox_table() -> [u8; 256] {
    std::array::from_fn(|x| sbox(x as u8))
}

/// Values the AES linear layer acts on: public slot vectors and shares.
/// In place: the layer allocates one value per output (no temporaries).
trait Lin: Clone {
    /// `self += c · o` (`o` of the same layout; `c = 1`: a plain sum).
    fn add_scaled(&mut self, o: &Self, c: u8);
    /// Adds a public constant to every slot.
    fn konst(&mut self, c: u8);
    /// `self += o` for a batch `o` of one value: `o` is added to every
    /// value of `self` (a round key, expanded once, to all groups).
    fn add_bcast(&mut self, o: &Self);
}

/// `d[j] += s` for every `s.len()`-byte chunk `d[j]` of `d`.
fn add_each(d: &mut [u8], s: &[u8]) {
    for ch in d.chunks_mut(s.len().max(1)) {
        add_assign(ch, s);
    }
}

impl Lin for Vec<u8> {
    fn add_scaled(&mut self, o: &Self, c: u8) {
        match c {
            1 => add_assign(self, o),
            _ => mul_add(self, c, o),
        }
    }
    fn konst(&mut self, c: u8) {
        self.iter_mut().for_each(|v| *v ^= c);
    }
    fn add_bcast(&mut self, o: &Self) {
        add_each(self, o);
    }
}

impl Lin for Shares {
    /// Codeword and MAC shares both (linear, DZ13 §3); operands come
    /// from one run, so of one holder and code.
    fn add_scaled(&mut self, o: &Self, c: u8) {
        let (ox, om) = o.parts();
        let (x, m) = self.parts_mut();
        for (d, s) in [(x, ox), (m, om)] {
            match c {
                1 => add_assign(d, s),
                _ => mul_add(d, c, s),
            }
        }
    }
    fn konst(&mut self, c: u8) {
        *self = self.add_constant(c);
    }
    fn add_bcast(&mut self, o: &Self) {
        let (ox, om) = o.parts();
        let (x, m) = self.parts_mut();
        add_each(x, ox);
        add_each(m, om);
    }
}

/// From layer `t`'s S-box outputs `y` (16 state bytes, batches of `m`
/// groups, then the 4 bytes of `SubWord(RotWord(w_3))`, batches of one)
/// and round key `t − 1` (16 batches of one): round key `t` (FIPS-197
/// §5.2) and the S-box inputs of layer `t + 1` (the state after
/// ShiftRows, MixColumns and AddRoundKey, the round key added to every
/// group, then `RotWord` of the new key's last word), or for `t = 10` the
/// ciphertext (no MixColumns).
fn next_layer<T: Lin>(y: &[T], ks: &[T], t: usize) -> (Vec<T>, Vec<T>) {
    let mut kt: Vec<T> = Vec::with_capacity(16);
    for i in 0..16 {
        let mut w = ks[i].clone();
        if i < 4 {
            w.add_scaled(&y[16 + i], 1);
            if i == 0 {
                w.konst(RCON[t - 1]);
            }
        } else {
            w.add_scaled(&kt[i - 4], 1);
        }
        kt.push(w);
    }
    let sr: Vec<&T> = (0..16)
        .map(|i| &y[((i / 4 + i % 4) % 4) * 4 + i % 4])
        .collect();
    if t == LAYERS {
        let ct = (0..16)
            .map(|i| {
                let mut v = sr[i].clone();
                v.add_bcast(&kt[i]);
                v
            })
            .collect();
        return (ct, kt);
    }
    let mut x = Vec::with_capacity(SBOXES);
    for c in 0..4 {
        let a = &sr[c * 4..c * 4 + 4];
        for r in 0..4 {
            // MixColumns row r: 2·a_r + 3·a_{r+1} + a_{r+2} + a_{r+3}.
            let mut v = a[(r + 2) % 4].clone();
            for (d, coef) in [(3, 1), (0, 2), (1, 3)] {
                v.add_scaled(a[(r + d) % 4], coef);
            }
            v.add_bcast(&kt[c * 4 + r]);
            x.push(v);
        }
    }
    x.extend([13, 14, 15, 12].map(|i| kt[i].clone()));
    (x, kt)
}

/// One layer's S-box masks (`20·m`, position-major), as
/// [`super::prep::PrepStore::take_sbox_masks`] hands them out: `[[ρ]]*`
/// and `[[z]]*` of every mask as batches, and the tables **item-major**
/// (the lookup layout, the file's order): the 256 entries of mask `l`
/// together, entry `v` as its codeword share then its MAC share (`2n`
/// bytes at `(l·256 + v)·2n`). The lookup of mask `l` reads only inside
/// its own `256·2n` bytes, so a layer streams through its tables once,
/// in order, instead of visiting 512 separate arrays per value.
///
/// The tables are wiped when the layer is dropped (as [`Shares`] wipe
/// `ρ*` and `z*`): a party's table shares with the other parties' reveal
/// `S(v + ρ)` for every `v`, so `ρ` and the opened input.
#[derive(Clone, Debug, Default)]
pub struct SboxLayer {
    rho: Shares,
    zero: Shares,
    table: Vec<u8>,
}

impl Drop for SboxLayer {
    fn drop(&mut self) {
        wipe_bytes(&mut self.table);
    }
}

/// Overwrites `b` with zeros by volatile stores the optimizer keeps,
/// sixteen bytes per store on the aligned middle ([`crate::primitives::wipe::wipe_pod`]):
/// a layer's tables are about 100 MB at 4096 blocks, which byte-wise
/// volatile stores would take many times longer to clear.
fn wipe_bytes(b: &mut [u8]) {
    crate::primitives::wipe::wipe_pod(b);
}

impl SboxLayer {
    /// A layer from `ρ*` and `z*` (batches of `len` values in `C*`) and
    /// the tables in the layout above (`len · 256 · 2n` bytes); `None` if
    /// the lengths or holders disagree.
    pub fn new(rho: Shares, zero: Shares, table: Vec<u8>) -> Option<SboxLayer> {
        let n = rho.codes().base.n();
        let fits = rho.len() == zero.len()
            && rho.holder() == zero.holder()
            && rho.is_square()
            && zero.is_square()
            && table.len() == rho.len() * TABLE * 2 * n;
        fits.then_some(SboxLayer { rho, zero, table })
    }

    /// A layer from the [`WORDS`] words of its masks as batches (word `w`
    /// of every mask; for tests and other dealers).
    pub fn from_words(words: &[Shares; WORDS]) -> Option<SboxLayer> {
        let n = words[RHO].codes().base.n();
        let len = words[RHO].len();
        let mut table = Vec::with_capacity(len * TABLE * 2 * n);
        for l in 0..len {
            for w in &words[FIRST_ENTRY..] {
                let (x, m) = w.parts();
                table.extend_from_slice(x.get(l * n..(l + 1) * n)?);
                table.extend_from_slice(m.get(l * n..(l + 1) * n)?);
            }
        }
        SboxLayer::new(words[RHO].clone(), words[ZERO].clone(), table)
    }

    /// Number of masks.
    pub fn len(&self) -> usize {
        self.rho.len()
    }

    /// Whether the layer holds no mask.
    pub fn is_empty(&self) -> bool {
        self.rho.len() == 0
    }

    /// `[[ρ]]*` of every mask.
    pub fn rho(&self) -> &Shares {
        &self.rho
    }

    /// `[[z]]*` of every mask.
    pub fn zero(&self) -> &Shares {
        &self.zero
    }

    /// Mutable `[[ρ]]*`: for tests that model a party changing its shares.
    pub fn rho_mut(&mut self) -> &mut Shares {
        &mut self.rho
    }

    /// Codeword and MAC share of entry `v` of mask `l` (empty if out of
    /// range).
    pub fn entry(&self, l: usize, v: u8) -> (&[u8], &[u8]) {
        let n = self.rho.codes().base.n();
        let o = (l * TABLE + v as usize) * 2 * n;
        match self.table.get(o..o + 2 * n) {
            Some(e) => e.split_at(n),
            None => (&[], &[]),
        }
    }

    /// Mutable [`SboxLayer::entry`]: for tests that model a party
    /// changing its shares.
    pub fn entry_mut(&mut self, l: usize, v: u8) -> (&mut [u8], &mut [u8]) {
        let n = self.rho.codes().base.n();
        let o = (l * TABLE + v as usize) * 2 * n;
        match self.table.get_mut(o..o + 2 * n) {
            Some(e) => e.split_at_mut(n),
            None => (&mut [], &mut []),
        }
    }
}

/// The S-box masks of one AES run: one [`SboxLayer`] per layer (index
/// `t − 1` for layer `t`), and optionally where the run hands each layer
/// once it is used ([`AesMasks::hand_back_to`]). The run owns its masks
/// (the `.otp` moves them into it, [`aes_begin`]) and takes each layer
/// out when it absorbs that layer's opening, so a layer is gone from the
/// run as soon as its lookup is done.
#[derive(Clone, Debug, Default)]
pub struct AesMasks {
    layers: Vec<SboxLayer>,
    used: Option<UsedLayers>,
}

/// Where a run puts the S-box layers it has used (shared with whoever
/// gave it the masks): they are dropped, and so wiped, by the holder of
/// the last handle, e.g. after the caller has stopped its clock. Without
/// one a used layer is dropped (wiped and freed) inside the run.
#[derive(Clone, Debug, Default)]
pub struct UsedLayers(Arc<Mutex<Vec<SboxLayer>>>);

impl UsedLayers {
    /// An empty place for used layers.
    pub fn new() -> UsedLayers {
        UsedLayers::default()
    }

    /// Takes the layers handed back so far (each wiped when dropped).
    pub fn take(&self) -> Vec<SboxLayer> {
        match self.0.lock() {
            Ok(mut v) => std::mem::take(&mut *v),
            Err(p) => std::mem::take(&mut *p.into_inner()),
        }
    }

    fn put(&self, layer: SboxLayer) {
        match self.0.lock() {
            Ok(mut v) => v.push(layer),
            Err(p) => p.into_inner().push(layer),
        }
    }
}

impl AesMasks {
    /// Number of layers (used ones included).
    pub fn len(&self) -> usize {
        self.layers.len()
    }

    /// Whether there is no layer.
    pub fn is_empty(&self) -> bool {
        self.layers.is_empty()
    }

    /// The layers in order (a used one is empty).
    pub fn iter(&self) -> std::slice::Iter<'_, SboxLayer> {
        self.layers.iter()
    }

    /// The run hands every layer it has used to `used` instead of
    /// dropping it.
    pub fn hand_back_to(&mut self, used: UsedLayers) {
        self.used = Some(used);
    }

    /// Takes layer `l` out (an empty layer stays in its place).
    fn take(&mut self, l: usize) -> Option<SboxLayer> {
        self.layers.get_mut(l).map(std::mem::take)
    }

    /// Disposes of a used layer: hands it back, or drops (wipes) it.
    fn retire(&self, layer: SboxLayer) {
        match &self.used {
            Some(u) => u.put(layer),
            None => drop(layer),
        }
    }
}

impl FromIterator<SboxLayer> for AesMasks {
    fn from_iter<I: IntoIterator<Item = SboxLayer>>(it: I) -> AesMasks {
        AesMasks {
            layers: it.into_iter().collect(),
            used: None,
        }
    }
}

impl std::ops::Index<usize> for AesMasks {
    type Output = SboxLayer;
    fn index(&self, l: usize) -> &SboxLayer {
        &self.layers[l]
    }
}

impl std::ops::IndexMut<usize> for AesMasks {
    fn index_mut(&mut self, l: usize) -> &mut SboxLayer {
        &mut self.layers[l]
    }
}

/// A party's state between the openings of an AES run (module docs).
/// The `.otp` moves it from step to step (`move` parameters), so it is
/// never copied; it is deliberately not `Clone` (a clone would copy the
/// run's S-box masks).
#[derive(Debug, Default)]
pub struct AesRun {
    m: usize,
    /// The S-box masks of the layers still to come (each taken out when
    /// its opening is absorbed).
    masks: AesMasks,
    /// Shares of round key `t` (as `C*` words; 16 batches of one value).
    ks_sh: Vec<Shares>,
    /// What the next opening broadcasts.
    to_open: Shares,
    /// Every opened batch so far (as `C*` words) and the opened words,
    /// for the deferred MAC check.
    acc: Vec<Shares>,
    acc_y: Vec<Vec<u8>>,
    /// Shares of party 0's output masks (`16·m` values in `C`, slots
    /// known to party 0 only): the last opening reveals the ciphertexts
    /// plus these.
    out_mask: Shares,
    /// The masked ciphertexts, once the last opening is absorbed.
    out: Opened,
}

/// Splits a batch of `p·m` values into `p` batches of `m`.
fn split(s: &Shares, m: usize) -> Vec<Shares> {
    (0..s.len() / m.max(1))
        .filter_map(|p| s.slice(p * m, m))
        .collect()
}

/// Splits a layer's `16·m + 4` values into the 16 state positions
/// (batches of `m`) and the 4 key-schedule S-boxes (batches of one).
fn split_layer(s: &Shares, m: usize) -> Vec<Shares> {
    let mut out = split(&s.slice(0, STATE_SBOXES * m).unwrap_or_default(), m);
    out.extend((0..KEY_SBOXES).filter_map(|i| s.slice(STATE_SBOXES * m + i, 1)));
    out
}

/// Concatenates batches (all of one holder and code; a mismatched part
/// is left out, as `Shares::concat` refuses it) with one copy of each.
fn join<S: std::borrow::Borrow<Shares>>(parts: &[S]) -> Shares {
    let Some(first) = parts.first().map(|p| p.borrow()) else {
        return Shares::default();
    };
    let fits = |p: &&Shares| p.holder() == first.holder() && p.is_square() == first.is_square();
    let size: usize = parts.iter().map(|p| p.borrow().parts().0.len()).sum();
    let (mut x, mut mac) = (Vec::with_capacity(size), Vec::with_capacity(size));
    for p in parts.iter().map(|p| p.borrow()).filter(fits) {
        x.extend_from_slice(p.parts().0);
        mac.extend_from_slice(p.parts().1);
    }
    Shares::new(first.holder().clone(), first.is_square(), x, mac).unwrap_or_default()
}

/// Whether `io` (party 0's `32·m` input masks: `16·m` for the plaintexts,
/// then `16·m` for the ciphertexts) and `kin` (every party's 16 key
/// masks, party-major: value `16·j + t` is party `j`'s `t`-th) are `me`'s
/// shares of values in `C` and `masks` its S-box masks for the run
/// ([`LAYERS`] layers of [`layer_sboxes`]`(m)`).
pub fn aes_ok(
    io: &Shares,
    kin: &Shares,
    masks: &AesMasks,
    me: usize,
    n: usize,
    m: usize,
    len: usize,
) -> bool {
    let h = kin.holder();
    super::shape_ok(io, me, n, 32 * m, len)
        && super::shape_ok(kin, me, n, n * 16, len)
        && io.holder() == h
        && !io.is_square()
        && !kin.is_square()
        && masks.len() == LAYERS
        && masks
            .iter()
            .all(|layer| layer.rho.holder() == h && layer.len() == layer_sboxes(m))
}

/// Whether a party's clear inputs have the run's lengths: its key share
/// `key` (key byte `p` in every slot of value `p`: `16·k` bytes) and its
/// key masks' slots `kown` (`16·k`), the plaintexts `pt` (`16·m·k`,
/// value-major; all zero at parties other than 0) and the slots of its
/// `32·m` input masks `own` (used at party 0 only).
pub fn aes_input_ok(key: &[u8], kown: &[u8], pt: &[u8], own: &[u8], m: usize, k: usize) -> bool {
    let l = 16 * m * k;
    key.len() == 16 * k && kown.len() == 16 * k && pt.len() == l && own.len() == 2 * l
}

/// The differences party `me` broadcasts with the first opening (DZ13 §3
/// input, sent with the opening instead of a round before it): its key
/// share minus its key masks (`16·k` slots), then at party 0 its
/// plaintexts minus its first `16·m` input masks, at any other party its
/// `pt` as given (all zero when honest; [`aes_deltas_ok`] checks it).
/// (`_len`: the protocol's shape, `(16 + 16·m)·k`, checked before.)
pub fn aes_input_deltas(
    me: usize,
    key: &[u8],
    kown: &[u8],
    pt: &[u8],
    own: &[u8],
    _len: usize,
) -> Vec<u8> {
    let mut d = super::input_delta(key, kown);
    d.extend_from_slice(pt);
    if me == 0 {
        let l = d.len();
        let own = &own[..pt.len().min(own.len())];
        add_assign(&mut d[l - own.len()..], own);
    }
    d
}

/// Whether only party 0 entered plaintexts: the plaintext part (after
/// the `16·k` key slots) of every other party's broadcast differences is
/// zero (a party other than 0 must not shift party 0's plaintexts).
pub fn aes_deltas_ok(d: &[Vec<u8>], k: usize) -> bool {
    d.iter()
        .skip(1)
        .all(|dj| dj.iter().skip(16 * k).all(|&b| b == 0))
}

/// Adds the codewords `C(c)` of the public `k`-slot vectors `c` (one per
/// value, concatenated) to the codeword shares of `s` (`macs == false`:
/// only the party that knows `c` before the opening does this), or
/// `α_i ∘ C(c)` to its MAC shares (`macs == true`: every party, once `c`
/// is public). Together: `[[x]] + c` (DZ13 §3), split so that a party can
/// open `x + c` in the round that makes `c` public.
fn add_public_part(s: &mut Shares, c: &[u8], macs: bool) {
    let codes = s.codes().clone();
    let alpha = s.holder().alpha.clone();
    let (n, k) = (codes.base.n(), codes.base.k());
    let (mut word, mut tag) = (vec![0u8; n], vec![0u8; n]);
    let (x, mac) = s.parts_mut();
    let dst = if macs { mac } else { x };
    for (cl, out) in c.chunks_exact(k).zip(dst.chunks_exact_mut(n)) {
        codes.base.encode_into(cl, &mut word);
        if macs {
            mul_slices(&mut tag, &alpha, &word);
            add_assign(out, &tag);
        } else {
            add_assign(out, &word);
        }
    }
}

/// The key (16 values, one per byte) and plaintext (16 batches of `m`)
/// before the public differences are added: `key = Σ_j [[r_j]]` (every
/// party's key masks), `pt = [[r_in]]` (party 0's first `16·m` masks).
fn first_inputs(io: &Shares, kin: &Shares, m: usize) -> (Vec<Shares>, Vec<Shares>) {
    let parties = kin.len() / 16;
    let mut key = kin.slice(0, 16).unwrap_or_default();
    for j in 1..parties {
        if let Some(s) = kin.slice(j * 16, 16) {
            key.add_scaled(&s, 1);
        }
    }
    let pt = io.slice(0, 16 * m).unwrap_or_default();
    (split(&key.into_square(), 1), split(&pt.into_square(), m))
}

/// The run before the first opening, from this party's own differences
/// `d` ([`aes_input_deltas`]): the plaintexts are `[[r_in]] + d_pt`, the
/// key `Σ_j ([[r_j]] + d_j)`, the S-box inputs of layer 1 `pt + key` and
/// `RotWord(w_3)` of the key; the first opening is these plus the masks
/// `ρ*` of layer 1. This party adds the codewords of its own differences
/// to its codeword shares now (so it can open before it learns the
/// others'); every party adds `α_i ∘ C(d)` of all differences to its MAC
/// shares in [`aes_enter`].
pub fn aes_begin(io: &Shares, kin: &Shares, d: &[u8], masks: AesMasks, m: usize) -> AesRun {
    let (mut ks, pt) = first_inputs(io, kin, m);
    let k = kin.codes().base.k();
    let (dk, dp) = d.split_at((16 * k).min(d.len()));
    for (p, s) in ks.iter_mut().enumerate() {
        add_public_part(s, dk.get(p * k..(p + 1) * k).unwrap_or(&[]), false);
    }
    let mut x = pt;
    for (p, s) in x.iter_mut().enumerate() {
        add_public_part(s, dp.get(p * m * k..(p + 1) * m * k).unwrap_or(&[]), false);
    }
    x.iter_mut().zip(&ks).for_each(|(p, k)| p.add_bcast(k));
    x.extend([13, 14, 15, 12].map(|i| ks[i].clone()));
    let mut to_open = join(&x);
    if let Some(layer) = masks.layers.first() {
        to_open.add_scaled(&layer.rho, 1);
    }
    AesRun {
        m,
        masks,
        to_open,
        ks_sh: ks,
        acc: Vec::new(),
        acc_y: Vec::new(),
        out_mask: io.slice(16 * m, 16 * m).unwrap_or_default(),
        out: Vec::new(),
    }
}

/// Completes the inputs once every party's differences `d` are public
/// (received with the first opening): adds `α_i ∘ C(Δ)` to the MAC
/// shares of the key (`Δ = Σ_j` of the key halves) and of the first
/// opening (state positions `Δ + d_pt`, key positions `RotWord` of `Δ`),
/// with `d_pt` party 0's plaintext half. Afterwards the run's values are
/// `[[r]] + Δ` as in the two-round input of `minimac_input.otp`.
pub fn aes_enter(mut st: AesRun, d: &[Vec<u8>]) -> AesRun {
    let m = st.m;
    let Some(first) = d.first() else {
        return st;
    };
    let k = st.to_open.codes().base.k();
    let l = (16 * k).min(first.len());
    let mut dk = vec![0u8; l];
    for dj in d {
        add_assign(&mut dk, &dj[..l.min(dj.len())]);
    }
    let dp = &first[l..];
    for (p, s) in st.ks_sh.iter_mut().enumerate() {
        add_public_part(s, dk.get(p * k..(p + 1) * k).unwrap_or(&[]), true);
    }
    let mut c: Vec<u8> = dp.get(..16 * m * k).unwrap_or(&[]).to_vec();
    for (p, v) in c.chunks_mut(m * k).enumerate() {
        add_each(v, dk.get(p * k..(p + 1) * k).unwrap_or(&[]));
    }
    for p in [13, 14, 15, 12] {
        c.extend_from_slice(dk.get(p * k..(p + 1) * k).unwrap_or(&[]));
    }
    add_public_part(&mut st.to_open, &c, true);
    st
}

/// Party 0's ciphertexts from the masked ones: the last opening revealed
/// `ct + r_out`, and only party 0 knows the slots of `r_out` (value
/// `16·m + p·m + g` of its masks for byte `p` of block `g·k + s`).
pub fn aes_unmask(masked: &Opened, own: &[u8], m: usize, k: usize) -> Opened {
    masked
        .iter()
        .enumerate()
        .map(|(b, c)| {
            c.iter()
                .enumerate()
                .map(|(p, &v)| v ^ own.get((16 * m + p * m) * k + b).copied().unwrap_or(0))
                .collect()
        })
        .collect()
}

/// This party's codeword shares of the next opening.
pub fn aes_shares(st: &AesRun, _count: usize, _len: usize) -> Vec<u8> {
    st.to_open.parts().0.to_vec()
}

/// Whether every word of the opening lies in its code (`C*`).
pub fn aes_in_code(st: &AesRun, y: &[u8]) -> bool {
    in_code(&st.to_open, y)
}

/// Public slot vectors (`m·k` bytes per position) of `count` positions
/// starting at value `first` of the opened words `y` (`n` bytes each,
/// the slots first).
fn public_parts(
    y: &[u8],
    n: usize,
    k: usize,
    first: usize,
    count: usize,
    m: usize,
) -> Vec<Vec<u8>> {
    (0..count)
        .map(|p| {
            (first + p * m..first + (p + 1) * m)
                .flat_map(|l| y.get(l * n..l * n + k).unwrap_or(&[]))
                .copied()
                .collect()
        })
        .collect()
}

/// `[[S(x)]]* = Σ_v C(1_{ε = v}) ∘ [[T_v]] + [[z]]*` for every value
/// (module docs, step 2) from the opened words `y` (`n` bytes each; the
/// first `k`, the slots, are `ε = x + ρ`) and the layer's S-box masks.
///
/// One pass per value and part (codeword share, MAC share), fused with
/// the addition of `[[z]]*`: the output starts as `z*`'s shares,
/// coordinate `i < k` gains `T_{ε_i}[i]` and the redundancy coordinates
/// `Σ_i L_i ∘ T_{ε_i}[k..]` ([`crate::primitives::gf256::schur_sum_add`]); the table
/// words are looked up once per value (tested against the definition,
/// `lookup_is_the_definition`).
pub fn lookup(y: &[u8], layer: &SboxLayer) -> Shares {
    lookup_with(y, layer, LOOKUP_AHEAD)
}

/// Values [`lookup`] prefetches ahead: the table entries a value reads
/// are scattered over its 256 entries (memory-bound: the first touch of
/// each entry misses the caches), so their cache lines are requested
/// while an earlier value is computed.
pub const LOOKUP_AHEAD: usize = 2;

/// [`lookup`], prefetching the table entries of the value `ahead` values
/// later (`0`: no prefetch) while computing one: the same result.
pub fn lookup_with(y: &[u8], layer: &SboxLayer, ahead: usize) -> Shares {
    let z = &layer.zero;
    let codes = z.codes().clone();
    let (n, k) = (codes.base.n(), codes.base.k());
    let total = (y.len() / n.max(1)).min(z.len());
    let (zx, zm) = z.parts();
    let (mut x, mut mac) = (zx[..total * n].to_vec(), zm[..total * n].to_vec());
    let rows: Vec<&[u8]> = (0..k).map(|i| codes.base.redundancy_row(i)).collect();
    let mut px: Vec<(&[u8], &[u8])> = Vec::with_capacity(k);
    let mut pm: Vec<(&[u8], &[u8])> = Vec::with_capacity(k);
    for (l, e) in y.chunks_exact(n).take(total).enumerate() {
        let p = l + ahead;
        if ahead > 0 && p < total {
            for &v in &y[p * n..p * n + k] {
                let (tx, tm) = layer.entry(p, v);
                prefetch(tx);
                prefetch(tm);
            }
        }
        let w = l * n..(l + 1) * n;
        let (ox, om) = (&mut x[w.clone()], &mut mac[w]);
        px.clear();
        pm.clear();
        for (i, (row, &v)) in rows.iter().zip(&e[..k]).enumerate() {
            let (tx, tm) = layer.entry(l, v);
            if tx.len() < n {
                continue;
            }
            ox[i] ^= tx[i];
            om[i] ^= tm[i];
            px.push((*row, &tx[k..]));
            pm.push((*row, &tm[k..]));
        }
        schur_sum_add(&mut ox[k..], &px);
        schur_sum_add(&mut om[k..], &pm);
    }
    Shares::new(z.holder().clone(), true, x, mac).unwrap_or_default()
}

/// Absorbs opening `t` (`1..=11`, module docs): records it for the MAC
/// check; for `t ≤ 10` the S-box inputs `ε` of layer `t`, the S-box
/// outputs [`lookup`], round key `t` and the next opening (the next
/// layer's inputs plus its `ρ*`, or for `t = 10` the ciphertexts plus
/// party 0's output masks); for `t = 11` the masked ciphertexts. Layer
/// `t`'s masks are taken out of the run once looked up (handed back, or
/// dropped and so wiped: [`AesMasks`]).
pub fn aes_absorb(mut st: AesRun, y: Vec<u8>, t: usize) -> AesRun {
    let m = st.m;
    let to_open = std::mem::take(&mut st.to_open);
    let codes = to_open.codes().clone();
    let (n, k) = (codes.base.n(), codes.base.k());
    let layer = match t {
        1..=LAYERS => st.masks.take(t - 1),
        _ => None,
    };
    let y_sh = layer.as_ref().map(|layer| lookup(&y, layer));
    if t > LAYERS {
        let out = public_parts(&y, n, k, 0, 16, m);
        st.out = (0..m * k)
            .map(|b| {
                (0..16)
                    .map(|p| out[p].get(b).copied().unwrap_or(0))
                    .collect()
            })
            .collect();
    }
    st.acc.push(to_open);
    st.acc_y.push(y);
    let (Some(layer), Some(y_sh)) = (layer, y_sh) else {
        return st;
    };
    st.masks.retire(layer);
    let (x_sh, kt) = next_layer(&split_layer(&y_sh, m), &st.ks_sh, t);
    st.ks_sh = kt;
    let mut to_open = join(&x_sh);
    match st.masks.layers.get(t) {
        Some(next) if t < LAYERS => to_open.add_scaled(&next.rho, 1),
        // (`r_out` is a `C` word, so also a `C*` word: added as it is.)
        _ => to_open.add_scaled(&st.out_mask, 1),
    }
    st.to_open = to_open;
    st
}

/// The seed of the MAC check over every opening of the run.
pub fn aes_check_seed(session: Block, st: &AesRun) -> Block {
    let parts: Vec<&[u8]> = st.acc_y.iter().map(Vec::as_slice).collect();
    check_seed_parts(session, &parts)
}

/// This party's MAC difference over every opening of the run (one
/// coefficient stream over the openings in order, as over their
/// concatenation).
pub fn aes_mac_diff(st: &AesRun, seed: Block, _len: usize) -> Vec<u8> {
    let parts: Vec<(&Shares, &[u8])> = st
        .acc
        .iter()
        .zip(&st.acc_y)
        .map(|(s, y)| (s, y.as_slice()))
        .collect();
    mac_diff_parts(&parts, seed)
}

/// The masked ciphertexts `ct + r_out`, one 16-byte vector per block
/// (block `g·k + s`); only party 0 can remove the mask ([`aes_unmask`]).
pub fn aes_output(st: &AesRun) -> Opened {
    st.out.clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sbox_is_the_aes_sbox() {
        // FIPS-197 Figure 7 entries.
        for (x, s) in [
            (0x00, 0x63),
            (0x01, 0x7c),
            (0x53, 0xed),
            (0xff, 0x16),
            (0x10, 0xca),
        ] {
            assert_eq!(sbox(x), s, "S({x:#04x})");
        }
    }

    /// [`lookup`] equals its definition: `Σ_v C(1_{ε = v}) ∘ T_v + z`
    /// per value and part, with the public indicator words encoded and
    /// multiplied coordinate by coordinate (scalar reference).
    #[test]
    fn lookup_is_the_definition() {
        use crate::primitives::rng::Rng;
        let codes = super::super::Codes::get(8, 24).unwrap();
        let holder = super::super::Holder {
            me: 0,
            parties: 2,
            codes: codes.clone(),
            alpha: Arc::new(crate::minimac::MacKey(vec![3u8; 24])),
        };
        let (vals, n, k) = (3usize, 24usize, 8usize);
        let mut rng = Rng::deterministic_for_tests(17);
        let mut random = |len: usize| {
            let mut v = vec![0u8; len];
            rng.fill_bytes(&mut v);
            v
        };
        let layer: [Shares; WORDS] = std::array::from_fn(|w| {
            Shares::new(
                holder.clone(),
                w < FIRST_ENTRY,
                random(vals * n),
                random(vals * n),
            )
            .unwrap()
        });
        // Opened words: the slots ε first, then coordinates the lookup
        // must ignore.
        let y = random(vals * n);
        let eps: Vec<Vec<u8>> = y.chunks(n).map(|w| w[..k].to_vec()).collect();
        let sl = SboxLayer::from_words(&layer).unwrap();
        let got = lookup(&y, &sl);
        for ahead in [0, 1, 5] {
            assert_eq!(lookup_with(&y, &sl, ahead), got, "prefetch {ahead} ahead");
        }
        for (l, e) in eps.iter().enumerate() {
            for part in 0..2 {
                let pick = |s: &Shares| {
                    let (x, m) = s.parts();
                    (if part == 0 { x } else { m })[l * n..(l + 1) * n].to_vec()
                };
                let mut want = pick(&layer[ZERO]);
                for v in 0..=255u8 {
                    let ind: Vec<u8> = e.iter().map(|&s| u8::from(s == v)).collect();
                    let c = codes.base.encode(&ind);
                    let t = pick(&layer[FIRST_ENTRY + v as usize]);
                    for j in 0..n {
                        want[j] ^= mul(c[j], t[j]);
                    }
                }
                let (x, m) = got.parts();
                let have = &(if part == 0 { x } else { m })[l * n..(l + 1) * n];
                assert_eq!(have, &want[..], "value {l}, part {part}");
            }
        }
        assert!(got.is_square());
    }

    #[test]
    fn linear_layer_on_public_values_is_aes() {
        // FIPS-197 Appendix C.1 with the S-box applied in the clear.
        let key: Vec<u8> = (0..16).collect();
        let pt: Vec<u8> = (0..16).map(|i| i * 0x11).collect();
        let mut ks: Vec<Vec<u8>> = key.iter().map(|&b| vec![b]).collect();
        let mut x: Vec<Vec<u8>> = (0..16).map(|i| vec![pt[i] ^ key[i]]).collect();
        x.extend([13, 14, 15, 12].map(|i| vec![key[i]]));
        for t in 1..=LAYERS {
            let y: Vec<Vec<u8>> = x.iter().map(|v| vec![sbox(v[0])]).collect();
            let (nx, kt) = next_layer(&y, &ks, t);
            x = nx;
            ks = kt;
        }
        let ct: Vec<u8> = x.iter().map(|v| v[0]).collect();
        let want = [
            0x69, 0xc4, 0xe0, 0xd8, 0x6a, 0x7b, 0x04, 0x30, 0xd8, 0xcd, 0xb7, 0x80, 0x70, 0xb4,
            0xc5, 0x5a,
        ];
        assert_eq!(ct, want);
    }
}
