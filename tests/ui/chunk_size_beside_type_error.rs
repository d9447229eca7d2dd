// A chunk size that is not a multiple of 128 on a matrix round, and an
// unrelated type error in another block: both are reported (the chunk size
// is checked with the rounds, not after the whole protocol checked).
mod protocol {
    ot::protocol! {
        protocol Ext(role Sender, role Receiver) {
            const KAPPA: usize = 128;
            param m: usize requires m >= 1;
            input Receiver { r: Bits[m] }
            output Sender { q: [Block; m] }
            output Receiver { x: [Block; m] }
            at Sender { s = sample Bits[KAPPA]; w = s ^ sample Block; }
            do base: RandomOt[n = KAPPA](Sender = Receiver, Receiver = Sender) with { Receiver.choices = s };
            round extend: Receiver -> Sender : Extend { u: BitMatrix[KAPPA, m] } chunked(by = 1000) {
                at Receiver {
                    t = prg_rows(prg_keys([base.messages[j][0] for j in 0..KAPPA]), m, 1);
                    u = xor_prg_choice(t, prg_keys([base.messages[j][1] for j in 0..KAPPA]), r, 1);
                }
            }
            at Sender { q = masked_columns(prg_keys(base.chosen), u, s, 1); }
            at Receiver { x = transpose_columns(t, 1); }
        }
    }
}

fn main() {}
