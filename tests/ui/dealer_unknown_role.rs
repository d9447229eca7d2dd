// A round from a role the protocol does not declare (a misspelt dealer).
// The same protocol as `tests/ui/otp/dealer_unknown_role.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Deal(role Dealer, role P[n]) {
            param n: usize requires n >= 2;
            output P[i] { v: u64 }
            at Dealer { r = sample u64; }
            round deal: Dealr -> all : Deal { r: u64 }
            at P[i] { v = r; }
        }
    }
}

fn main() {}
