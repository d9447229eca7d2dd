// Misuse of the generic `send`: a fresh CO15 receiver sends nothing until it
// has received `Setup`; asking it for `Choose` does not compile.
use ot::co15;
use ot::runtime::rng::Rng;
use ot::runtime::Bits;

fn main() -> Result<(), co15::Error> {
    let params = co15::Params::new(128)?;
    let input = co15::ReceiverInput { choices: Bits::zeros(128) };
    let receiver = co15::Receiver::new(params, input, Rng::from_entropy())?;
    let (_choose, _receiver): (co15::msgs::Choose, _) = receiver.send()?;
    Ok(())
}
