// `as` converts integers (and `Bit`, `Block`), not group elements.
// The same protocol as `tests/ui/otp/cast_non_integer.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Key(role A, role B) {
            output B { s: Scalar }
            at A {
                p = sample Point;
                s = p as Scalar;
            }
            round send: A -> B : Key { s: Scalar }
        }
    }
}

fn main() {}
