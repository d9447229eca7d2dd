// Pairing roles of two different protocols: a CO15 sender with an NP00
// receiver. Both are base OTs with the same inputs, but their rounds differ.
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::session::run_pair;
use ot::runtime::Bits;
use ot::{co15, np00};

fn main() {
    let sender = co15::Sender::new(
        co15::Params::new(128).unwrap(),
        co15::SenderInput {},
        Rng::from_entropy(),
    )
    .unwrap();
    let input = np00::ReceiverInput {
        choices: Bits::zeros(128),
    };
    let receiver =
        np00::Receiver::new(np00::Params::new(128).unwrap(), input, Rng::from_entropy()).unwrap();
    let _ = run_pair(sender, receiver);
}
