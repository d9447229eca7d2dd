// The dealer's mask is used by every party, but no round sends it.
// The same protocol as `tests/ui/otp/dealer_value.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Masked(role Dealer, role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { sum: u64 }
            at Dealer { mask = sample u64; }
            at P[i] { y = x + mask; }
            round reveal: P[i] -> all : Reveal { y: u64 }
            at P[i] { sum = sum_u64(y); }
        }
    }
}

fn main() {}
