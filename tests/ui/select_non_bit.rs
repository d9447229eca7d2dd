// `select` needs a `Bit` condition; a `u64` is not one.
// The same protocol as `tests/ui/otp/select_non_bit.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Choose(role A, role B) {
            input  A { x: u64 }
            output B { z: u64 }
            at A { z = select(x, 1u64, 2u64); }
            round send: A -> B : Chosen { z: u64 }
        }
    }
}

fn main() {}
