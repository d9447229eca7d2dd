//! A tokio server answering random-OT requests from many clients at once
//! (one task per connection), and the clients, in one process.
//!
//! Each client connects over TCP and asks `requests` times for `n` random
//! OTs (IKNP over CO15 base OTs: `ot::OtExtension::iknp`, through the async
//! functionality methods `send_random_async` / `receive_random_async`,
//! which run the protocols' generated `run_async` drivers). The server
//! spawns a task per connection and plays the OT sender. At the end the
//! example checks every client's OTs against the server's and prints the
//! throughput.
//!
//! ```text
//! cargo run --release --features tokio --example tokio_server -- [clients] [requests] [log2 n]
//! ```
//! (defaults: 16 clients, 4 requests each, n = 2^16).

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{AsyncChannel, TokioChannel};
use ot::runtime::{Bits, Block};
use ot::{OtExtension, RandomOtReceiver, RandomOtSender};
use std::time::Instant;

fn arg(i: usize, default: usize) -> usize {
    std::env::args()
        .nth(i)
        .and_then(|a| a.parse().ok())
        .unwrap_or(default)
}

/// One connection of the server: `requests` random-OT batches of `n` as
/// the sender; returns the messages of every batch and the bytes moved.
async fn serve(
    mut ch: TokioChannel<tokio::net::TcpStream>,
    requests: usize,
    n: usize,
) -> Result<(Vec<Vec<[Block; 2]>>, u64), ot::OtError> {
    let mut sender = OtExtension::iknp();
    let mut batches = Vec::with_capacity(requests);
    for _ in 0..requests {
        batches.push(sender.send_random_async(&mut ch, n).await?);
    }
    let st = ch.stats();
    Ok((batches, st.bytes_sent + st.bytes_received))
}

/// One client: `requests` batches of `n` random OTs with fresh choices.
async fn client(
    addr: std::net::SocketAddr,
    requests: usize,
    n: usize,
) -> Result<Vec<(Bits, Vec<Block>)>, Box<dyn std::error::Error + Send + Sync>> {
    let mut ch = TokioChannel::connect(addr).await?;
    let mut receiver = OtExtension::iknp();
    let mut rng = Rng::from_entropy();
    let mut out = Vec::with_capacity(requests);
    for _ in 0..requests {
        let choices = Bits::random(&mut rng, n);
        let chosen = receiver.receive_random_async(&mut ch, &choices).await?;
        out.push((choices, chosen));
    }
    ch.flush().await?;
    Ok(out)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
    let (clients, requests, log_n) = (arg(1, 16), arg(2, 4), arg(3, 16));
    let n = 1usize << log_n;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;

    // The server: a task per accepted connection.
    let server = tokio::spawn(async move {
        let mut handles = Vec::with_capacity(clients);
        for _ in 0..clients {
            let ch = TokioChannel::accept(&listener).await?;
            handles.push(tokio::spawn(serve(ch, requests, n)));
        }
        Ok::<_, std::io::Error>(handles)
    });

    let start = Instant::now();
    let mut client_handles = Vec::with_capacity(clients);
    for _ in 0..clients {
        client_handles.push(tokio::spawn(client(addr, requests, n)));
    }
    let mut received = Vec::with_capacity(clients);
    for h in client_handles {
        received.push(h.await??);
    }
    let mut sent = Vec::with_capacity(clients);
    for h in server.await?? {
        sent.push(h.await??);
    }
    let secs = start.elapsed().as_secs_f64();

    // Connections are accepted in the order the clients connected, which
    // need not be the order they were spawned in: match each client to the
    // server connection whose messages it holds.
    let mut bytes = 0u64;
    for (batches, b) in &sent {
        bytes += b;
        let matched = received.iter().any(|rc| {
            rc.iter().zip(batches).all(|((choices, chosen), msgs)| {
                (0..n).all(|i| chosen[i] == msgs[i][usize::from(choices.get(i))])
            })
        });
        assert!(matched, "a connection's OTs match no client's");
    }
    let ots = (clients * requests * n) as f64;
    println!(
        "{clients} concurrent clients x {requests} requests x {n} random OTs (IKNP over CO15, async over TCP loopback)"
    );
    println!(
        "{:.0} OTs/s, {:.3} s, {:.2} bytes/OT (both directions)",
        ots / secs,
        secs,
        bytes as f64 / ots
    );
    Ok(())
}
