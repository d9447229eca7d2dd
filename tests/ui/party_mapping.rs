// A two-party functionality called with the whole party array as one role.
// The same protocol as `tests/ui/otp/party_mapping.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Pairs(role P[n]) {
            param n: usize requires n >= 2;
            output P[i] { k: [[Block; 2]; 128] }
            do base: RandomOt[n = 128](Sender = P, Receiver = P);
            at P[i] { k = base.messages; }
        }
    }
}

fn main() {}
