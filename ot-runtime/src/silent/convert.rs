//! Random OT from silent OT's random COTs (`protocols/cot_random_ot.otp`):
//! the receiver derandomizes its choice bits (Beaver, "Precomputing
//! oblivious transfer", CRYPTO 1995: it sends `f = c ⊕ x`, `x` its COT
//! choice bits and `c` the bits it wants) and both hash under the
//! tweakable correlation-robust hash of Guo, Katz, Wang, Yu (S&P 2020,
//! §7), as IKNP's random OTs are hashed: `m_b = H(j, z_j ⊕ (b ⊕ f_j)·Δ)`
//! for the sender, `H(j, y_j) = m_{c_j}` for the receiver, with `j` the
//! COT's index in its session and the hash's session a salt the receiver
//! draws per call.

use crate::{Bits, Block};

/// The receiver's flips `f = c ⊕ x` (as long as the shorter input).
pub fn flips(wanted: &Bits, have: &Bits) -> Bits {
    wanted
        .xor(have)
        .unwrap_or_else(|_| Bits::zeros(wanted.len().min(have.len())))
}

/// The 64-bit hash session of a call, from the receiver's salt.
fn session(salt: Block) -> u64 {
    (salt.0 as u64) ^ ((salt.0 >> 64) as u64)
}

/// Sender: `[m_0, m_1]` per COT, `m_b = H(first + j, z_j ⊕ (b ⊕ f_j)·Δ)`.
pub fn sender_pairs(
    zeros: &[Block],
    flips: &Bits,
    delta: Block,
    salt: Block,
    first: usize,
) -> Vec<[Block; 2]> {
    let mut pairs: Vec<[Block; 2]> = zeros
        .iter()
        .enumerate()
        .map(|(j, &z)| {
            let z = z ^ (Block::mask(flips.try_get(j).unwrap_or(false)) & delta);
            [z, z ^ delta]
        })
        .collect();
    crate::primitives::hash::tccr_pairs_in_place(session(salt), first as u64, &mut pairs);
    pairs
}

/// Receiver: `H(first + j, y_j)` per COT.
pub fn receiver_keys(chosen: &[Block], salt: Block, first: usize) -> Vec<Block> {
    let mut keys = chosen.to_vec();
    crate::primitives::hash::tccr_many(session(salt), first as u64, &mut keys);
    keys
}

/// Chosen-message sender: `messages[j][b] ⊕ H(first + j, z_j ⊕ (b ⊕
/// f_j)·Δ)`, both pads of each OT (as long as the shortest input).
pub fn sender_masked(
    messages: &[[Block; 2]],
    zeros: &[Block],
    flips: &Bits,
    delta: Block,
    salt: Block,
    first: usize,
) -> Vec<[Block; 2]> {
    let mut pads = sender_pairs(zeros, flips, delta, salt, first);
    for (p, m) in pads.iter_mut().zip(messages) {
        p[0] ^= m[0];
        p[1] ^= m[1];
    }
    pads.truncate(messages.len().min(zeros.len()));
    pads
}

/// Chosen-message receiver: `masked[j][c_j] ⊕ H(first + j, y_j)` (the side
/// selected in constant time).
pub fn receiver_unmask(
    masked: &[[Block; 2]],
    choices: &Bits,
    chosen: &[Block],
    salt: Block,
    first: usize,
) -> Vec<Block> {
    let keys = receiver_keys(chosen, salt, first);
    masked
        .iter()
        .zip(&keys)
        .enumerate()
        .map(|(j, (m, &k))| {
            let right = Block::mask(choices.try_get(j).unwrap_or(false));
            ((m[0] & !right) | (m[1] & right)) ^ k
        })
        .collect()
}

/// Correlated OT with chosen bits, sender: `z_j ⊕ f_j·Δ` (then `y_j = z'_j
/// ⊕ c_j·Δ` for the receiver's wanted bits `c`).
pub fn sender_shift(zeros: &[Block], flips: &Bits, delta: Block) -> Vec<Block> {
    zeros
        .iter()
        .enumerate()
        .map(|(j, &z)| z ^ (Block::mask(flips.try_get(j).unwrap_or(false)) & delta))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_receiver_gets_the_message_it_wants() {
        let delta = Block(0x1357_9bdf_2468_ace1);
        let n = 200;
        let mut rng = crate::primitives::rng::Rng::deterministic_for_tests(5);
        let z: Vec<Block> = (0..n).map(|_| rng.next_block()).collect();
        let x = Bits::random(&mut rng, n);
        let c = Bits::random(&mut rng, n);
        let y: Vec<Block> = (0..n)
            .map(|j| z[j] ^ (delta & Block::mask(x.get(j))))
            .collect();
        let f = flips(&c, &x);
        let pairs = sender_pairs(&z, &f, delta, Block(9), 77);
        let keys = receiver_keys(&y, Block(9), 77);
        for j in 0..n {
            assert_eq!(keys[j], pairs[j][usize::from(c.get(j))], "OT {j}");
            assert_ne!(pairs[j][0], pairs[j][1]);
        }
        // Chosen messages and chosen-bit COTs.
        let msgs: Vec<[Block; 2]> = (0..n)
            .map(|j| [Block(j as u128), Block(!(j as u128))])
            .collect();
        let masked = sender_masked(&msgs, &z, &f, delta, Block(9), 77);
        let got = receiver_unmask(&masked, &c, &y, Block(9), 77);
        let shifted = sender_shift(&z, &f, delta);
        for j in 0..n {
            assert_eq!(got[j], msgs[j][usize::from(c.get(j))]);
            assert_eq!(y[j], shifted[j] ^ (delta & Block::mask(c.get(j))));
        }
        // Another salt or index gives other messages.
        assert_ne!(sender_pairs(&z, &f, delta, Block(10), 77)[0], pairs[0]);
        assert_ne!(sender_pairs(&z, &f, delta, Block(9), 78)[0], pairs[0]);
    }
}
