// A block of one fixed party, P[3]: with `n >= 2` parties it may not exist.
// The same protocol as `tests/ui/otp/party_index_range.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Sum(role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { sum: u64 }
            at P[3] { y = x; }
            round reveal: P[i] -> all : Reveal { x: u64 }
            at P[i] { sum = sum_u64(x); }
        }
    }
}

fn main() {}
