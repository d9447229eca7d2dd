//! Using `ot` from another crate: the book's getting-started chapter, "Using the OT protocols"
//! section, compiled. Two parties over TCP loopback (one per thread here;
//! in a deployment, one per machine): malicious random OT, chosen-message
//! OT, and a Delta-OT pair that extends several batches under one Delta.
//!
//! `cargo run --release --example quickstart`

use std::net::TcpListener;
use std::time::Duration;

use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::transport::channel::{Channel, TcpChannel};
use ot::runtime::{Bits, Block};
use ot::{
    CorrelatedOtReceiver, CorrelatedOtSender, DeltaOtReceiver, DeltaOtSender, OtExtension,
    OtReceiver, OtSender, RandomOtReceiver, RandomOtSender,
};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The sender's side: one TCP connection, three protocols on it in turn.
fn sender(ch: &mut dyn Channel, delta: Block) -> Res<()> {
    // Random OT (KOS over MR19 base OTs): two random keys per OT.
    let keys = OtExtension::kos().send_random(ch, 1000)?;
    println!("sender: {} random OT key pairs", keys.len());
    // Chosen-message OT: the receiver gets one of each pair.
    let messages: Vec<[Block; 2]> = (0..1000u128).map(|i| [Block(i), Block(!i)]).collect();
    OtExtension::kos().send(ch, &messages)?;
    // Delta-OT: base OTs once, then one batch per call.
    let mut delta_sender = DeltaOtSender::kos(delta);
    for batch in 0..3 {
        let zeros = delta_sender.send_correlated(ch, 4096)?;
        println!("sender: Delta-OT batch {batch}, {} OTs", zeros.len());
    }
    Ok(())
}

/// The receiver's side.
fn receiver(ch: &mut dyn Channel) -> Res<()> {
    let mut rng = Rng::from_entropy();
    let choices = Bits::random(&mut rng, 1000);
    let chosen = OtExtension::kos().receive_random(ch, &choices)?;
    let got = OtExtension::kos().receive(ch, &choices)?;
    for (i, m) in got.iter().enumerate() {
        let want = if choices.get(i) {
            !(i as u128)
        } else {
            i as u128
        };
        assert_eq!(m.as_u128(), want);
    }
    println!(
        "receiver: {} random OT keys, chosen messages checked",
        chosen.len()
    );
    let mut delta_receiver = DeltaOtReceiver::kos();
    for _ in 0..3 {
        let batch_choices = Bits::random(&mut rng, 4096);
        delta_receiver.receive_correlated(ch, &batch_choices)?;
    }
    Ok(())
}

fn main() -> Res<()> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let addr = listener.local_addr()?;
    let delta = Block::sample(&mut Rng::from_entropy());
    std::thread::scope(|s| -> Res<()> {
        let h = s.spawn(move || -> Res<()> {
            let mut ch = TcpChannel::connect(addr, Duration::from_secs(10))?;
            receiver(&mut ch)
        });
        let mut ch = TcpChannel::accept(&listener, Duration::from_secs(10))?;
        sender(&mut ch, delta)?;
        h.join().map_err(|_| "receiver thread panicked")??;
        Ok(())
    })
}
