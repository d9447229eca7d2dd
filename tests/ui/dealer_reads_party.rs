// The dealer uses a party's input, which no round sends it.
// The same protocol as `tests/ui/otp/dealer_reads_party.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Peek(role Dealer, role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { v: u64 }
            at Dealer { r = x + 1; }
            round deal: Dealer -> all : Deal { r: u64 }
            at P[i] { v = r + x; }
        }
    }
}

fn main() {}
