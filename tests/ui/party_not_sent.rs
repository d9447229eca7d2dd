// The receiver of the share round uses the sender's masks, which the round
// does not send.
// The same protocol as `tests/ui/otp/party_not_sent.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Sum(role P[n]) {
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { sum: u64 }
            round share: P[i] -> P[j] : Share { s: u64 } {
                at P[i] { masks = sample [u64; n]; s = share_u64(x, masks, i); }
                at P[j] { sum = sum_u64(s) + sum_u64(masks); }
            }
        }
    }
}

fn main() {}
