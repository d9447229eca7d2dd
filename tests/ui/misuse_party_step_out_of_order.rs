// Misuse of the generated n-party typestate: a coin-flip party opens its
// commitment before it has received everyone else's. `send_open` exists
// only in the state after the commitment round and its broadcast check, so
// skipping steps does not compile.
use ot::coin_flip_n;
use ot::runtime::primitives::rng::Rng;

fn main() -> Result<(), coin_flip_n::Error> {
    let params = coin_flip_n::Params::new(3)?;
    let party = coin_flip_n::P::new(0, params, [0; 16], coin_flip_n::PInput {}, Rng::from_entropy())?;
    let (_commitment, party) = party.send_commit()?;
    let (_opening, _party) = party.send_open()?;
    Ok(())
}
