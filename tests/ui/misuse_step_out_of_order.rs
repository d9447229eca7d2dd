// Misuse of the generated typestate: the CO15 sender finishes before the
// receiver's answer has arrived. `finish` exists only in the state after the
// last round, so skipping a step does not compile.
use ot::co15;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::Bits;

fn main() -> Result<(), co15::Error> {
    let params = co15::Params::new(128)?;
    let sender = co15::Sender::new(params, co15::SenderInput {}, Rng::from_entropy())?;
    let input = co15::ReceiverInput {
        choices: Bits::zeros(128),
    };
    let receiver = co15::Receiver::new(params, input, Rng::from_entropy())?;
    let (setup, sender) = sender.send_setup()?;
    let _receiver = receiver.recv_setup(setup)?;
    let _messages = sender.finish().messages;
    Ok(())
}
