// Two independent mistakes in one protocol: a typo in an intrinsic name in
// the sender's block and an unknown value in the receiver's block. Both are
// reported, each as its own `compile_error!`, in source order; the values
// computed from the failed statement (`c`, and what the receiver derives
// from it) give no follow-on errors.
mod protocol {
    ot::protocol! {
        protocol Two(role Sender, role Receiver) {
            input  Sender   { a: Block }
            output Receiver { z: Block }

            at Sender {
                b = tccr2(0, a);
                c = b ^ a;
                d = a ^ a;
            }
            round r1: Sender -> Receiver : M1 { c: Block, d: Block }
            at Receiver {
                y = c ^ d;
                z = d ^ e;
            }
        }
    }
}

fn main() {}
