// `t` is computed chunk by chunk inside the stream of round `extend`, but the
// receiver then reads all of it with an intrinsic that has no chunk variant.
// The same protocol as `tests/ui/otp/stream_whole_matrix.otp`, inline.
mod protocol {
    ot::protocol! {
        intrinsic whole_columns(t: BitMatrix[K, M]) -> [Block; M] = ::ot::runtime::otext::stream::transpose_columns;
        protocol Streamed(role Sender, role Receiver) {
            const KAPPA: usize = 128;
            param m: usize requires m >= 1;
            input  Sender   { delta: Block }
            input  Receiver { r: Bits[m] }
            output Sender   { zeros: [Block; m] }
            output Receiver { chosen: [Block; m] }

            at Sender { s = block_bits(delta); }
            do base: RandomOt[n = KAPPA](Sender = Receiver, Receiver = Sender) with { Receiver.choices = s };
            round extend: Receiver -> Sender : Extend { u: BitMatrix[KAPPA, m] } chunked(by = 1024) {
                at Receiver {
                    t = prg_rows(prg_keys([base.messages[j][0] for j in 0..KAPPA]), m, 1);
                    u = xor_prg_choice(t, prg_keys([base.messages[j][1] for j in 0..KAPPA]), r, 1);
                }
            }
            at Sender { zeros = masked_columns(prg_keys(base.chosen), u, s, 1); }
            at Receiver { chosen = whole_columns(t); }
        }
    }
}

fn main() {}
