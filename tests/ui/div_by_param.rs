// `n` may be zero: dividing by it needs `requires n >= 1`.
// The same protocol as `tests/ui/otp/div_by_param.otp`, inline: trybuild compiles
// this file in its own crate, where `CARGO_MANIFEST_DIR` is not this repository.
mod protocol {
    ot::protocol! {
        protocol Split(role A, role B) {
            param n: usize;
            input  A { total: usize }
            output B { part: usize }
            at A { part = total / n; }
            round send: A -> B : Part { part: usize }
        }
    }
}

fn main() {}
