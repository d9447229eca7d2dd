// A base-OT call with zero OTs, against `RandomOt`'s `requires n >= 1`.
// The same protocol as `tests/ui/otp/functionality_requires.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Iknp(role Sender, role Receiver) {
            const KAPPA: usize = 0;
            param m: usize requires m % 128 == 0;
            input  Receiver { r: Bits[m] }

            at Sender { s = sample Bits[KAPPA]; }
            do base: RandomOt[n = KAPPA](Sender = Receiver, Receiver = Sender) with { Receiver.choices = s };
        }
    }
}

fn main() {}
