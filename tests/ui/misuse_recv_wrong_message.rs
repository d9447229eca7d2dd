// Misuse of the generic `recv`: after sending `Setup`, the CO15 sender waits
// for the receiver's `Choose`; feeding it its own `Setup` does not compile.
use ot::co15;
use ot::runtime::primitives::rng::Rng;

fn main() -> Result<(), co15::Error> {
    let params = co15::Params::new(128)?;
    let sender = co15::Sender::new(params, co15::SenderInput {}, Rng::from_entropy())?;
    let (setup, sender) = sender.send_setup()?;
    let _done = sender.recv(setup)?;
    Ok(())
}
