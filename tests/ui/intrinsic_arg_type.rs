// The receiver hashes its secret scalar instead of the shared point `x * A`.
// The same protocol as `tests/ui/otp/intrinsic_arg_type.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        intrinsic key_of(index: usize, shared: Point) -> Block = ::ot::runtime::primitives::ec::hash_point;

        protocol Co15(role Sender, role Receiver) {
            param n: usize requires n >= 1;
            input  Receiver { choices: Bits[n] }
            output Sender   { messages: [[Block; 2]; n] }
            output Receiver { chosen: [Block; n] }

            at Sender {
                a = sample Scalar;
                big_a = base_mul(a);
            }
            round setup: Sender -> Receiver : Setup { big_a: Point }

            at Receiver {
                x = [sample Scalar for i in 0..n];
                big_b = [point_select(choices[i], base_mul(x[i]), big_a + base_mul(x[i])) for i in 0..n];
                chosen = [key_of(i, x[i]) for i in 0..n];
            }
            round choose: Receiver -> Sender : Choose { big_b: [Point; n] }

            at Sender {
                messages = [[key_of(i, a * big_b[i]), key_of(i, a * (big_b[i] - big_a))] for i in 0..n];
            }
        }
    }
}

fn main() {}
