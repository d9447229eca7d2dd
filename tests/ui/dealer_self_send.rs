// The dealer sends a round to itself.
// The same protocol as `tests/ui/otp/dealer_self_send.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Loop(role Dealer, role P[n]) {
            param n: usize requires n >= 2;
            output P[i] { v: u64 }
            at Dealer { r = sample u64; }
            round again: Dealer -> Dealer : Again { r: u64 }
            round deal: Dealer -> all : Deal { r: u64 }
            at P[i] { v = r; }
        }
    }
}

fn main() {}
