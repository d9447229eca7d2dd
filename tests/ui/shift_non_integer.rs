// Shifts apply to integers; a `Block` is not one.
// The same protocol as `tests/ui/otp/shift_non_integer.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Shift(role A, role B) {
            output B { c: Block }
            at A {
                b = sample Block;
                c = b << 3;
            }
            round send: A -> B : Shifted { c: Block }
        }
    }
}

fn main() {}
