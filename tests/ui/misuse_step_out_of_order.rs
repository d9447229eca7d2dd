// Misuse of the generated typestate: the CO15 receiver must receive the
// sender's `Setup` before it can send `Choose`; a fresh receiver has no
// `send_choose` step.
use ot::co15;
use ot::runtime::rng::Rng;
use ot::runtime::Bits;

fn main() -> Result<(), co15::Error> {
    let params = co15::Params::new(128)?;
    let input = co15::ReceiverInput { choices: Bits::zeros(128) };
    let receiver = co15::Receiver::new(params, input, Rng::from_entropy())?;
    let (_choose, _receiver) = receiver.send_choose()?;
    Ok(())
}
