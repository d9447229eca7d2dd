// A two-party protocol cannot broadcast: `Sender` is one role, not a party
// array.
// The same protocol as `tests/ui/otp/broadcast_not_party.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Co15(role Sender, role Receiver) {
            param n: usize requires n >= 1;
            input  Receiver { choices: Bits[n] }
            output Receiver { chosen: Block }
            at Sender { a = sample Scalar; big_a = base_mul(a); }
            round setup: Sender -> all : Setup { big_a: Point }
            at Receiver { chosen = hash_point(0, big_a); }
        }
    }
}

fn main() {}
