// `realizes RandomOt` without binding the functionality's `n` when the
// protocol's count is `m`: located at the functionality, with the binding
// to write.
mod protocol {
    ot::protocol! {
        protocol Half(role Sender, role Receiver)
            realizes RandomOt(Sender = Sender, Receiver = Receiver)
                with { Sender.messages = y, Receiver.choices = r, Receiver.chosen = x }
        {
            param m: usize requires m >= 1;
            input Receiver { r: Bits[m] }
            output Sender { y: [[Block; 2]; m] }
            output Receiver { x: [Block; m] }
            at Sender { y = [[sample Block, sample Block] for i in 0..m]; }
            round give: Sender -> Receiver : Give { y: [[Block; 2]; m] }
            at Receiver { x = [y[i][0] for i in 0..m]; }
        }
    }
}

fn main() {}
