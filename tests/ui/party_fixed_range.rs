// A broadcast by the fixed party P[ROOT] = P[2]: with `n >= 2` parties it may not exist.
// The same protocol as `tests/ui/otp/party_fixed_range.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Announce(role P[n]) {
            const ROOT: usize = 2;
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { y: u64 }
            round announce: P[ROOT] -> all : Announce { x: u64 }
            at P[i] { y = x; }
        }
    }
}

fn main() {}
