// The checker's warnings reach `protocol!` users as rustc `deprecated`
// warnings that carry the `.otp` warning (here `t` is never used), spanned
// at the value. This crate denies them, so the warning is an error here;
// `#[allow(deprecated)]` on the module would silence it.
#![deny(deprecated)]

mod protocol {
    ot::protocol! {
        protocol Unused(role Sender, role Receiver) {
            input  Sender   { a: Block }
            output Receiver { z: Block }

            at Sender {
                t = sample Block;
                b = a;
            }
            round r1: Sender -> Receiver : M1 { b: Block }
            at Receiver { z = b; }
        }
    }
}

fn main() {}
