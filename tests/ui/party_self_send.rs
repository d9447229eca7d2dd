// The share round is addressed to the sending party itself.
// The same protocol as `tests/ui/otp/party_self_send.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Sum(role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { sum: u64 }
            at P[i] { s = share_u64(x, sample [u64; n], i); }
            round share: P[i] -> P[i] : Share { s: u64 }
            at P[i] { sum = sum_u64(s); }
        }
    }
}

fn main() {}
