// Every party must broadcast its partial sum before it has received the
// shares the partial sum is computed from.
// The same protocol as `tests/ui/otp/party_deadlock.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Sum(role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { sum: u64 }
            at P[i] { masks = sample [u64; n]; }
            round reveal: P[i] -> all : Reveal { s: [u64; n] }
            round share: P[i] -> P[j] : Share { s: u64 } {
                at P[i] { s = share_u64(x, masks, i); }
            }
            at P[i] { sum = sum_u64(s); }
        }
    }
}

fn main() {}
