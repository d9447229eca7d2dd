// NP00's setup message lists `big_r` twice (meant `big_c, big_r`).
// The same protocol as `tests/ui/otp/duplicate_field.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Np00(role Sender, role Receiver) {
            param n: usize requires n >= 1;
            input  Receiver { choices: Bits[n] }
            output Sender   { messages: [[Block; 2]; n] }
            output Receiver { chosen: [Block; n] }

            at Sender {
                big_c = sample Point;
                r = sample Scalar;
                big_r = base_mul(r);
            }
            round setup: Sender -> Receiver : Setup { big_r: Point, big_r: Point }

            at Receiver {
                k = [sample Scalar for i in 0..n];
                pk_c = [base_mul(k[i]) for i in 0..n];
                pk0 = [point_select(choices[i], pk_c[i], big_c - pk_c[i]) for i in 0..n];
                chosen = [ro_point(i, big_r, pk_c[i], k[i] * big_r) for i in 0..n];
            }
            round choose: Receiver -> Sender : Choose { pk0: [Point; n] }

            at Sender {
                messages = [[ro_point(i, big_r, pk0[i], r * pk0[i]),
                             ro_point(i, big_r, big_c - pk0[i], r * (big_c - pk0[i]))] for i in 0..n];
            }
        }
    }
}

fn main() {}
