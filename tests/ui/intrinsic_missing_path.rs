// An intrinsic declared with a Rust path that does not exist (`dubble`
// for `double`). The error is spanned at the intrinsic's declaration, and
// names it (the macro it originates in carries the intrinsic's name and
// declaration line); rustc suggests the function that does exist.
mod kernels {
    use ot::runtime::Block;

    /// The kernel the declaration meant.
    pub fn double(x: Block) -> Block {
        ot::runtime::otext::gf_mul(x, Block(2))
    }
}

mod protocol {
    ot::protocol! {
        intrinsic double(x: Block) -> Block = crate::kernels::dubble;

        protocol Double(role Sender, role Receiver) {
            input  Sender   { a: Block }
            output Receiver { z: Block }

            at Sender { b = double(a); }
            round r1: Sender -> Receiver : M1 { b: Block }
            at Receiver { z = b; }
        }
    }
}

fn main() {}
