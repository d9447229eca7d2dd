//! F2-linear codes given by a generator matrix: the codes of OOS
//! [Orrù–Orsini–Scholl, CT-RSA 2017, §3], with BCH(511, 76) computed
//! from its generator polynomial and a text format for any other code.
//!
//! A `[n, k]` code (`n <= 512`, `1 <= k <= 128`) maps a message `w`
//! (the low `k` bits of a [`Block`], bit `l` = `w_l`) to
//! `C(w) = Σ_l w_l G_l`, `G_l` the rows of the generator matrix, as a
//! 512-bit [`Word`] whose coordinates `n..512` are zero. Encoding uses
//! one 256-entry table per message byte (`ceil(k/8)` lookups per word).
#![forbid(unsafe_code)]

use super::Code;
use crate::oprf::{Word, WORD_BITS};
use crate::Block;
use sha2::{Digest, Sha256};

/// Why a generator matrix was refused ([`LinearCode::parse`],
/// [`LinearCode::from_rows`]).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CodeError {
    /// No rows.
    #[error("linear code: the generator matrix has no rows")]
    Empty,
    /// More than 128 rows (messages are one block).
    #[error("linear code: {rows} rows, at most 128 are supported (messages are 128-bit blocks)")]
    TooManyRows {
        /// Rows given.
        rows: usize,
    },
    /// A row longer than 512 bits, or of length zero.
    #[error("linear code: rows of {len} bits, the length must be 1..=512")]
    BadLength {
        /// Row length.
        len: usize,
    },
    /// Rows of different lengths (`line` is 1-based in a parsed file, the
    /// row index otherwise).
    #[error("linear code: line {line} has {got} bits, the first row has {expected}")]
    RowLength {
        /// Line (1-based) or row index.
        line: usize,
        /// Length of the first row.
        expected: usize,
        /// Length of this row.
        got: usize,
    },
    /// A character other than `0`, `1`, space or tab in a row.
    #[error("linear code: line {line}, column {column}: unexpected character {ch:?} (rows are 0s and 1s)")]
    BadChar {
        /// Line (1-based).
        line: usize,
        /// Column (1-based, in characters).
        column: usize,
        /// The character.
        ch: char,
    },
    /// A generator-matrix file could not be read (`LinearCode::load` of
    /// the facade's `ot::files`).
    #[error("linear code: cannot read {path}: {message}")]
    Io {
        /// The file.
        path: String,
        /// The operating system's reason.
        message: String,
    },
    /// The rows are linearly dependent: two messages would share a
    /// codeword.
    #[error("linear code: the {rows} rows have rank {rank}; a generator matrix needs full rank")]
    RankDeficient {
        /// Rows given.
        rows: usize,
        /// Their rank.
        rank: usize,
    },
}

/// An F2-linear `[n, k]` code with 512-bit codewords (see the module docs).
#[derive(Clone, Debug)]
pub struct LinearCode {
    n: usize,
    rows: Vec<Word>,
    /// `tables[256 t + e]` = `Σ_{b < 8} e_b G_{8t + b}`.
    tables: Vec<Word>,
    digest: [u8; 32],
}

fn xor_word(a: &mut Word, b: &Word) {
    for (x, y) in a.iter_mut().zip(b) {
        *x ^= *y;
    }
}

fn word_bit(w: &Word, i: usize) -> bool {
    (w[i / 128].0 >> (i % 128)) & 1 == 1
}

fn set_word_bit(w: &mut Word, i: usize) {
    w[i / 128].0 |= 1 << (i % 128);
}

/// Rank of a set of words over F2 (Gaussian elimination).
fn rank(rows: &[Word]) -> usize {
    let mut basis: Vec<Word> = Vec::new();
    for r in rows {
        let mut v = *r;
        for b in &basis {
            let lead = leading_bit(b).unwrap_or(0);
            if word_bit(&v, lead) {
                xor_word(&mut v, b);
            }
        }
        if leading_bit(&v).is_some() {
            basis.push(v);
        }
    }
    basis.len()
}

fn leading_bit(w: &Word) -> Option<usize> {
    (0..WORD_BITS).rev().find(|&i| word_bit(w, i))
}

impl LinearCode {
    /// The code with generator rows `rows` (row `l`: bit `i` = `G[l][i]`)
    /// of length `n`. Errors: no rows, more than 128, `n` not in
    /// `1..=512`, bits set at or past `n` (reported as a row length), or
    /// dependent rows.
    pub fn from_rows(n: usize, rows: Vec<Word>) -> Result<LinearCode, CodeError> {
        if rows.is_empty() {
            return Err(CodeError::Empty);
        }
        if rows.len() > 128 {
            return Err(CodeError::TooManyRows { rows: rows.len() });
        }
        if n == 0 || n > WORD_BITS {
            return Err(CodeError::BadLength { len: n });
        }
        for (l, r) in rows.iter().enumerate() {
            if let Some(top) = leading_bit(r).filter(|&b| b >= n) {
                return Err(CodeError::RowLength {
                    line: l,
                    expected: n,
                    got: top + 1,
                });
            }
        }
        let rk = rank(&rows);
        if rk != rows.len() {
            return Err(CodeError::RankDeficient {
                rows: rows.len(),
                rank: rk,
            });
        }
        let ntab = rows.len().div_ceil(8);
        let mut tables = vec![[Block::ZERO; 4]; 256 * ntab];
        for t in 0..ntab {
            for e in 1..256usize {
                // Entry e = entry (e without its lowest bit) + that bit's row.
                let low = e.trailing_zeros() as usize;
                let mut w = tables[256 * t + (e & (e - 1))];
                if let Some(r) = rows.get(8 * t + low) {
                    xor_word(&mut w, r);
                }
                tables[256 * t + e] = w;
            }
        }
        let mut h = Sha256::new();
        h.update((n as u64).to_le_bytes());
        h.update((rows.len() as u64).to_le_bytes());
        for r in &rows {
            h.update(bytemuck::cast_slice::<Block, u8>(r));
        }
        Ok(LinearCode {
            n,
            rows,
            tables,
            digest: h.finalize().into(),
        })
    }

    /// Parses a generator matrix from text: one row per line, as `0` and
    /// `1` characters (spaces and tabs inside a row are ignored); empty
    /// lines and lines starting with `#` are skipped. All rows must have
    /// the same length `n <= 512`; at most 128 rows, of full rank.
    pub fn parse(text: &str) -> Result<LinearCode, CodeError> {
        let mut rows = Vec::new();
        let mut n = None;
        for (idx, line) in text.lines().enumerate() {
            let line_no = idx + 1;
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            let mut w = [Block::ZERO; 4];
            let mut len = 0usize;
            for (col, ch) in line.chars().enumerate() {
                match ch {
                    '0' | '1' => {
                        if len < WORD_BITS && ch == '1' {
                            set_word_bit(&mut w, len);
                        }
                        len += 1;
                    }
                    ' ' | '\t' | '\r' => {}
                    _ => {
                        return Err(CodeError::BadChar {
                            line: line_no,
                            column: col + 1,
                            ch,
                        })
                    }
                }
            }
            if len == 0 || len > WORD_BITS {
                return Err(CodeError::BadLength { len });
            }
            match n {
                None => n = Some(len),
                Some(e) if e != len => {
                    return Err(CodeError::RowLength {
                        line: line_no,
                        expected: e,
                        got: len,
                    })
                }
                _ => {}
            }
            rows.push(w);
            if rows.len() > 128 {
                return Err(CodeError::TooManyRows { rows: rows.len() });
            }
        }
        LinearCode::from_rows(n.unwrap_or(0), rows)
    }

    /// The generator matrix as text in the format of [`LinearCode::parse`].
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(self.rows.len() * (self.n + 1));
        for r in &self.rows {
            s.extend((0..self.n).map(|i| if word_bit(r, i) { '1' } else { '0' }));
            s.push('\n');
        }
        s
    }

    /// The narrow-sense primitive BCH code of length 511 and dimension 76
    /// (designed distance 171, so minimum distance at least 171): the
    /// code OOS uses for `N = 2^76` [OOS16, §5]. Its generator polynomial
    /// `g(x)` is computed here as the product of the minimal polynomials
    /// of `α^1 .. α^170` over GF(2^9) (`α` a root of the primitive
    /// `x^9 + x^4 + 1`); row `l` of the generator matrix is `x^l g(x)`.
    pub fn bch_511_76() -> LinearCode {
        let g = bch_generator(9, 0x211, 170);
        let mut base = [Block::ZERO; 4];
        for (i, &c) in g.iter().enumerate() {
            if c {
                set_word_bit(&mut base, i);
            }
        }
        let k = 511 - (g.len() - 1);
        let rows = (0..k).map(|l| shift_word(&base, l)).collect();
        LinearCode::from_rows(511, rows).expect("x^l g(x) are independent")
    }

    /// Length `n` (coordinates `n..512` of every codeword are zero).
    pub fn len(&self) -> usize {
        self.n
    }

    /// Always false (a code has at least one coordinate); with `len`.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Dimension `k` (messages are the low `k` bits of a block).
    pub fn dimension(&self) -> usize {
        self.rows.len()
    }

    /// The generator rows.
    pub fn rows(&self) -> &[Word] {
        &self.rows
    }

    /// SHA-256 of `n`, `k` and the rows: binds the code into the session
    /// id of an OOS run ([`crate::oprf::oos_session_id`]).
    pub fn digest(&self) -> [u8; 32] {
        self.digest
    }

    /// Whether every message is below `2^k` (its bits from `k` on zero).
    pub fn messages_in_range(&self, messages: &[Block]) -> bool {
        let k = self.dimension();
        let mask = if k >= 128 { 0 } else { u128::MAX << k };
        messages.iter().fold(0u128, |acc, m| acc | (m.0 & mask)) == 0
    }

    /// The low `k` bits of every message.
    pub fn reduce_messages(&self, messages: &mut [Block]) {
        let k = self.dimension();
        let mask = if k >= 128 {
            u128::MAX
        } else {
            (1u128 << k) - 1
        };
        for m in messages {
            m.0 &= mask;
        }
    }

    /// `C` applied coordinate-wise to a vector of GF(2^128) elements:
    /// `out[i] = Σ_l G[l][i] x[l]` for `i < 512` (the OOS check's
    /// `C(x̃)`, [`crate::oprf::oos_rows_consistent`]); missing `x[l]` are
    /// zero. The code is public: the loop depends on it only.
    pub fn encode_blocks(&self, x: &[Block]) -> Vec<Block> {
        let mut out = Block::zeroed_vec(WORD_BITS);
        for (r, &xl) in self.rows.iter().zip(x) {
            for (i, o) in out.iter_mut().enumerate() {
                *o ^= xl & Block::mask(word_bit(r, i));
            }
        }
        out
    }
}

impl Code for LinearCode {
    fn encode_many(&self, inputs: &[Block], out: &mut [Word]) {
        crate::primitives::xor::table_lookup_xor(
            bytemuck::cast_slice(&self.tables),
            self.tables.len() / 256,
            inputs,
            bytemuck::cast_slice_mut(out),
        );
    }
}

/// `w` shifted up by `l` coordinates (as a polynomial: `x^l w(x)`).
fn shift_word(w: &Word, l: usize) -> Word {
    let v = u128_words(w);
    let mut out = [Block::ZERO; 4];
    for i in 0..WORD_BITS - l {
        if (v[i / 128] >> (i % 128)) & 1 == 1 {
            set_word_bit(&mut out, i + l);
        }
    }
    out
}

fn u128_words(w: &Word) -> [u128; 4] {
    core::array::from_fn(|i| w[i].0)
}

/// Multiplication in GF(2^m) modulo `poly` (bit `m` set).
fn gf_mul(mut a: u32, mut b: u32, m: u32, poly: u32) -> u32 {
    let mut r = 0;
    while b != 0 {
        if b & 1 == 1 {
            r ^= a;
        }
        b >>= 1;
        a <<= 1;
        if a >> m & 1 == 1 {
            a ^= poly;
        }
    }
    r
}

/// The generator polynomial (coefficients, lowest first, over F2) of the
/// narrow-sense primitive BCH code of length `2^m - 1` with roots
/// `α^1 .. α^top` and their conjugates: the product, over the cyclotomic
/// cosets `{i, 2i, 4i, ..} mod 2^m - 1` that meet `1..=top`, of the
/// minimal polynomials `Π_{j in coset} (x - α^j)`.
fn bch_generator(m: u32, poly: u32, top: usize) -> Vec<bool> {
    let n = (1usize << m) - 1;
    let mut pow = vec![1u32; n];
    for i in 1..n {
        pow[i] = gf_mul(pow[i - 1], 2, m, poly);
    }
    let mut seen = vec![false; n];
    // g as a polynomial over GF(2^m), lowest coefficient first.
    let mut g: Vec<u32> = vec![1];
    for i in 1..=top {
        if seen[i % n] {
            continue;
        }
        let mut j = i % n;
        while !seen[j] {
            seen[j] = true;
            // g *= (x + α^j)
            let root = pow[j];
            let mut next = vec![0u32; g.len() + 1];
            for (d, &c) in g.iter().enumerate() {
                next[d + 1] ^= c;
                next[d] ^= gf_mul(c, root, m, poly);
            }
            g = next;
            j = (2 * j) % n;
        }
    }
    debug_assert!(g.iter().all(|&c| c <= 1), "minimal polynomials are binary");
    g.into_iter().map(|c| c == 1).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::primitives::prg::Prg;

    fn weight(w: &Word) -> u32 {
        w.iter().map(|b| b.0.count_ones()).sum()
    }

    #[test]
    fn bch_511_76_shape_and_distance_bound() {
        let c = LinearCode::bch_511_76();
        assert_eq!((c.len(), c.dimension()), (511, 76));
        // Each row is x^l g(x) with deg g = 435.
        assert_eq!(leading_bit(&c.rows()[0]), Some(435));
        let mut prg = Prg::new(Block(42));
        let mut min = u32::MAX;
        for _ in 0..2000 {
            let mut x = [prg.next_block()];
            c.reduce_messages(&mut x);
            if x[0] == Block::ZERO {
                continue;
            }
            let w = c.encode(x[0]);
            assert!(!word_bit(&w, 511), "coordinate 511 is padding");
            min = min.min(weight(&w));
        }
        // The BCH bound: every non-zero codeword has weight >= 171.
        assert!(min >= 171, "codeword of weight {min}");
        // Low-weight messages too (single rows and pairs).
        for l in 0..76 {
            assert!(weight(&c.encode(Block(1 << l))) >= 171);
            assert!(weight(&c.encode(Block((1 << l) | 1))) >= 171 || l == 0);
        }
    }

    #[test]
    fn encoding_is_linear_and_matches_rows() {
        let c = LinearCode::bch_511_76();
        let mut prg = Prg::new(Block(7));
        for _ in 0..50 {
            let mut xy = [prg.next_block(), prg.next_block()];
            c.reduce_messages(&mut xy);
            let [x, y] = xy;
            let mut sum = c.encode(x);
            xor_word(&mut sum, &c.encode(y));
            assert_eq!(sum, c.encode(x ^ y));
            let mut by_rows = [Block::ZERO; 4];
            for l in 0..76 {
                if (x.0 >> l) & 1 == 1 {
                    xor_word(&mut by_rows, &c.rows()[l]);
                }
            }
            assert_eq!(by_rows, c.encode(x));
            // encode_blocks on 0/1 blocks is the bitwise encoding.
            let bits: Vec<Block> = (0..76).map(|l| Block::mask((x.0 >> l) & 1 == 1)).collect();
            let e = c.encode_blocks(&bits);
            for (i, ei) in e.iter().enumerate() {
                assert_eq!(*ei == Block::ONES, word_bit(&by_rows, i));
            }
        }
        // Bits past k are ignored by the encoder and flagged by the range check.
        assert_eq!(c.encode(Block(1 << 100)), [Block::ZERO; 4]);
        assert!(!c.messages_in_range(&[Block(1), Block(1 << 76)]));
        assert!(c.messages_in_range(&[Block((1 << 76) - 1)]));
    }

    #[test]
    fn text_round_trip_and_errors() {
        let c = LinearCode::bch_511_76();
        let d = LinearCode::parse(&c.to_text()).expect("round trip");
        assert_eq!(d.digest(), c.digest());
        let small = LinearCode::parse("# [4, 2] code\n1 1 0 0\n\n0 0 1 1\n").expect("valid");
        assert_eq!((small.len(), small.dimension()), (4, 2));
        assert_eq!(small.encode(Block(3))[0], Block(0b1111));
        assert_eq!(
            LinearCode::parse("# nothing\n").unwrap_err(),
            CodeError::Empty
        );
        assert_eq!(
            LinearCode::parse("1100\n110\n").unwrap_err(),
            CodeError::RowLength {
                line: 2,
                expected: 4,
                got: 3
            }
        );
        assert_eq!(
            LinearCode::parse("1100\n1x00\n").unwrap_err(),
            CodeError::BadChar {
                line: 2,
                column: 2,
                ch: 'x'
            }
        );
        assert_eq!(
            LinearCode::parse("1100\n0011\n1111\n").unwrap_err(),
            CodeError::RankDeficient { rows: 3, rank: 2 }
        );
        let long = "1".repeat(513);
        assert_eq!(
            LinearCode::parse(&long).unwrap_err(),
            CodeError::BadLength { len: 513 }
        );
        // Reading files (`LinearCode::load`) is the facade's (`ot::files`),
        // tested there.
        let many = "1\n".repeat(129);
        assert!(matches!(
            LinearCode::parse(&many).unwrap_err(),
            CodeError::TooManyRows { .. }
        ));
    }
}
