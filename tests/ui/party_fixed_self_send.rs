// A fixed party sends a round to itself.
// The same protocol as `tests/ui/otp/party_fixed_self_send.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Keep(role P[n]) {
            param n: usize requires n >= 2;
            input P[0] { k: u64 }
            output P[0] { v: u64 }
            round keep: P[0] -> P[0] : Keep { k: u64 }
            at P[0] { v = k; }
        }
    }
}

fn main() {}
