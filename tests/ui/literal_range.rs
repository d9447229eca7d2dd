// A `u8` literal above 255 is an error, not a silent wrap.
// The same protocol as `tests/ui/otp/literal_range.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Mask(role A, role B) {
            input  A { x: u8 }
            output B { y: u8 }
            at A { m = x ^ 300u8; }
            round send: A -> B : Masked { m: u8 }
            at B { y = m; }
        }
    }
}

fn main() {}
