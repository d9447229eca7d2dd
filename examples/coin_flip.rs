//! The book's walk-through (`book/chapters/03-writing-protocols.md`): a protocol written in `examples/coin_flip.otp`
//! with one intrinsic of its own (`lowest_bit`, below), compiled by
//! `protocol!` and run over an in-memory channel.
//!
//! `cargo run --example coin_flip`

use ot::runtime::{transport::session::run_pair, Block, Rng};

/// The example's own intrinsic, declared in `coin_flip.otp` as
/// `intrinsic lowest_bit(x: Block) -> Bit = crate::lowest_bit;`.
pub fn lowest_bit(x: Block) -> bool {
    x.as_u128() & 1 == 1
}

mod coin_flip {
    ot::protocol!("examples/coin_flip.otp");
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let params = coin_flip::Params::new()?;
    let alice = coin_flip::Alice::new(params, coin_flip::AliceInput {}, Rng::from_entropy())?;
    let bob = coin_flip::Bob::new(params, coin_flip::BobInput {}, Rng::from_entropy())?;
    let (a, b) = run_pair(alice, bob);
    let (a, b) = (a?, b?);
    assert_eq!(a.coin, b.coin);
    println!(
        "coin = {} ({} rounds, {:?} bytes sent per role)",
        u8::from(a.coin),
        coin_flip::ROUNDS,
        coin_flip::comm(&params)
    );
    Ok(())
}
