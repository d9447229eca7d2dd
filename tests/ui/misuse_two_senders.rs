// Pairing a role with itself: two CO15 senders would both send `Setup` and
// then both wait for `Choose`.
use ot::co15;
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::session::run_pair;

fn main() {
    let params = co15::Params::new(128).unwrap();
    let a = co15::Sender::new(params, co15::SenderInput {}, Rng::from_entropy()).unwrap();
    let b = co15::Sender::new(params, co15::SenderInput {}, Rng::from_entropy()).unwrap();
    let _ = run_pair(a, b);
}
