//! Codes of the 1-out-of-N OT extensions: the receiver's input `x` becomes
//! the 512-bit codeword `C(x)` that replaces IKNP's repetition code.
//!
//! * [`PrCode`]: the pseudorandom code of KKRT [KKRT16, CCS 2016, eprint
//!   2016/799, §4]: `C(x) = (AES_{k_0}(x), .., AES_{k_3}(x))` under four
//!   keys derived from the session, so `N = 2^128`.
//! * [`LinearCode`] ([`crate::oprf::code::linear`]): an F2-linear `[n, k]` code
//!   (`n <= 512`, `k <= 128`) from its generator matrix, for OOS \[OOS16\];
//!   [`LinearCode::bch_511_76`] computes the BCH(511, 76) code from its
//!   generator polynomial, [`LinearCode::parse`] reads any code from rows
//!   of `0`/`1`.
//!
//! Both implement [`Code`], the interface of the streamed kernels in
//! [`crate::oprf`].
#![forbid(unsafe_code)]

pub mod linear;

pub use linear::{CodeError, LinearCode};

use crate::oprf::Word;
use crate::primitives::aes::Aes128;
use crate::Block;
use sha2::{Digest, Sha256};

/// Inputs encoded per batch (the AES calls then run on 128 blocks).
const BATCH: usize = 128;

/// A code with 512-bit codewords ([`Word`]), as the OT extensions see it.
pub trait Code: Sync {
    /// `out[j] = C(inputs[j])` for `j < min(inputs.len(), out.len())`.
    fn encode_many(&self, inputs: &[Block], out: &mut [Word]);

    /// `C(x)`.
    fn encode(&self, x: Block) -> Word {
        let mut out = [[Block::ZERO; 4]];
        self.encode_many(&[x], &mut out);
        out[0]
    }
}

/// Domain label of [`PrCode::from_session`].
const PR_CODE_DOMAIN: &[u8] = b"ot-runtime/kkrt16/pseudorandom-code/v1";

/// The pseudorandom code of KKRT [KKRT16, §4]: `C(x)` is the four blocks
/// `AES_{k_b}(x)`, `b < 4`, a 512-bit codeword for every 128-bit input.
///
/// In the semi-honest protocol the code is public and needs only to be a
/// random function independent of the inputs; the keys are derived from
/// the run's session id ([`PrCode::from_session`]), fresh per run. The
/// key schedules are wiped on drop ([`Aes128`]).
#[derive(Clone, Debug)]
pub struct PrCode {
    keys: [Aes128; 4],
}

impl PrCode {
    /// The code of one run: key `b` is the first 16 bytes of SHA-256 over
    /// the length-prefixed domain label
    /// `"ot-runtime/kkrt16/pseudorandom-code/v1"`, the session id and `b`.
    pub fn from_session(session: Block) -> PrCode {
        let keys = core::array::from_fn(|b| {
            let mut h = Sha256::new();
            h.update([PR_CODE_DOMAIN.len() as u8]);
            h.update(PR_CODE_DOMAIN);
            h.update(session.to_bytes());
            h.update([b as u8]);
            let d = h.finalize();
            let mut k = [0u8; 16];
            k.copy_from_slice(&d[..16]);
            Aes128::new(Block::from_bytes(k))
        });
        PrCode { keys }
    }
}

impl Code for PrCode {
    fn encode_many(&self, inputs: &[Block], out: &mut [Word]) {
        let n = inputs.len().min(out.len());
        let mut tmp = [Block::ZERO; BATCH];
        for (inp, dst) in inputs[..n].chunks(BATCH).zip(out[..n].chunks_mut(BATCH)) {
            let tmp = &mut tmp[..inp.len()];
            for (b, key) in self.keys.iter().enumerate() {
                let r = key.encrypt_blocks_into(inp, tmp);
                debug_assert!(r.is_ok(), "equal lengths");
                for (d, &c) in dst.iter_mut().zip(tmp.iter()) {
                    d[b] = c;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pr_code_is_aes_under_four_session_keys() {
        let sid = Block(0x1234);
        let c = PrCode::from_session(sid);
        let xs: Vec<Block> = (0..300u128).map(|i| Block(i * 77 + 5)).collect();
        let mut out = vec![[Block::ZERO; 4]; xs.len()];
        c.encode_many(&xs, &mut out);
        for (x, w) in xs.iter().zip(&out) {
            assert_eq!(*w, c.encode(*x));
            for (wb, key) in w.iter().zip(&c.keys) {
                assert_eq!(*wb, key.encrypt_block(*x));
            }
        }
        // Another session, another code.
        assert_ne!(PrCode::from_session(Block(1)).encode(xs[0]), out[0]);
        // Distinct keys per block.
        assert_ne!(out[0][0], out[0][1]);
    }
}
