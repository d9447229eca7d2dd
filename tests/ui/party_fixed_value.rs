// P[0]'s secret is used by every party, but no round sends it.
// The same protocol as `tests/ui/otp/party_fixed_value.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Open(role P[n]) {
            param n: usize requires n >= 2;
            input P[0] { secret: u64 }
            input P[i] { x: u64 }
            output P[i] { sum: u64 }
            at P[i] { y = x + secret; }
            round reveal: P[i] -> all : Reveal { y: u64 }
            at P[i] { sum = sum_u64(y); }
        }
    }
}

fn main() {}
