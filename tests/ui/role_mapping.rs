// An OT extension whose base OTs map both roles of `RandomOt` to one party.
// The same protocol as `tests/ui/otp/role_mapping.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Iknp(role Sender, role Receiver) {
            const KAPPA: usize = 128;
            param m: usize requires m % 128 == 0;
            input  Receiver { r: Bits[m] }

            at Sender { s = sample Bits[KAPPA]; }
            do base: RandomOt[n = KAPPA](Sender = Receiver, Receiver = Receiver) with { Receiver.choices = s };
        }
    }
}

fn main() {}
