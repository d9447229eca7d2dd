// A protocol claiming `RandomOt` whose sender gets one message per OT, not
// two. The same protocol as `tests/ui/otp/realizes_mismatch.otp`, inline.
mod protocol {
    ot::protocol! {
        protocol HalfOt(role Sender, role Receiver)
            realizes RandomOt(Sender = Sender, Receiver = Receiver)
        {
            param n: usize requires n >= 1;
            input  Receiver { choices: Bits[n] }
            output Sender   { messages: [Block; n] }
            output Receiver { chosen: [Block; n] }
            at Sender { messages = [sample Block for i in 0..n]; }
            round send: Sender -> Receiver : Msgs { messages: [Block; n] }
            at Receiver { chosen = messages; }
        }
    }
}

fn main() {}
