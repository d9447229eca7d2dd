// Misuse of the generic `send`: roles mixed up. `Setup` is the CO15 sender's
// message; a receiver state never sends it.
use ot::co15;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::Bits;

fn main() -> Result<(), co15::Error> {
    let params = co15::Params::new(128)?;
    let input = co15::ReceiverInput {
        choices: Bits::zeros(128),
    };
    let receiver = co15::Receiver::new(params, input, Rng::from_entropy())?;
    let (_setup, _receiver) = receiver.send::<co15::msgs::Setup>()?;
    Ok(())
}
