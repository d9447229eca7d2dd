// Misuse of the generated n-party typestate through the generic step: a
// coin-flip party asks to send its opening while it waits for everyone's
// commitment. `Outgoing` is implemented only for the message of each
// state's round, so rustc names the protocol, the state and the message
// (`#[diagnostic::on_unimplemented]`) and lists the round order.
use ot::coin_flip_n;
use ot::runtime::primitives::rng::Rng;

fn main() -> Result<(), coin_flip_n::Error> {
    let params = coin_flip_n::Params::new(3)?;
    let party = coin_flip_n::P::new(0, params, [0; 16], coin_flip_n::PInput {}, Rng::from_entropy())?;
    let (_commitment, party) = party.send::<coin_flip_n::msgs::Commitment>()?;
    let (_opening, _party) = party.send::<coin_flip_n::msgs::Opening>()?;
    Ok(())
}
