// An intrinsic whose Rust function does not take what the declaration says:
// `mix` is declared over two blocks, the function takes a block and a
// `u64`. The error is spanned at the intrinsic's declaration and names it.
mod kernels {
    use ot::runtime::Block;

    /// XORs a block with an integer.
    pub fn mix(a: Block, b: u64) -> Block {
        Block(a.as_u128() ^ u128::from(b))
    }
}

mod protocol {
    ot::protocol! {
        intrinsic mix(a: Block, b: Block) -> Block = crate::kernels::mix;

        protocol Mix(role Sender, role Receiver) {
            input  Sender   { a: Block, k: Block }
            output Receiver { z: Block }

            at Sender { b = mix(a, k); }
            round r1: Sender -> Receiver : M1 { b: Block }
            at Receiver { z = b; }
        }
    }
}

fn main() {}
