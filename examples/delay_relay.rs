//! A TCP relay that delays every chunk by a fixed time, for simulating a
//! link's latency where the kernel has no `netem` (used by
//! `scripts/minimac_link.sh`): forwards each connection accepted on
//! `LISTEN` to `TARGET`, both directions, each chunk written `DELAY_US`
//! microseconds after it was read (order kept; waits shorter than 200 µs
//! spin, longer ones sleep). `TCP_NODELAY` on every socket.
//!
//! `cargo run --release --example delay_relay -- LISTEN TARGET DELAY_US`

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Copies `from` to `to`, each chunk due `delay` after it was read.
fn pump(mut from: TcpStream, mut to: TcpStream, delay: Duration) {
    let (tx, rx) = mpsc::channel::<(Instant, Vec<u8>)>();
    let writer = std::thread::spawn(move || {
        for (due, data) in rx {
            loop {
                let now = Instant::now();
                if now >= due {
                    break;
                }
                let left = due - now;
                if left > Duration::from_micros(200) {
                    std::thread::sleep(left - Duration::from_micros(100));
                } else {
                    std::hint::spin_loop();
                }
            }
            if data.is_empty() || to.write_all(&data).is_err() {
                let _ = to.shutdown(Shutdown::Write);
                return;
            }
        }
    });
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let got = from.read(&mut buf).unwrap_or(0);
        let due = Instant::now() + delay;
        if tx.send((due, buf[..got].to_vec())).is_err() || got == 0 {
            break;
        }
    }
    drop(tx);
    let _ = writer.join();
}

fn main() -> std::io::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let [_, listen, target, delay] = &args[..] else {
        eprintln!("usage: delay_relay LISTEN_ADDR:PORT TARGET_ADDR:PORT DELAY_US");
        std::process::exit(2);
    };
    let delay = Duration::from_micros(delay.parse().unwrap_or(0));
    let listener = TcpListener::bind(listen.as_str())?;
    println!("relay ready");
    for client in listener.incoming() {
        let client = client?;
        let target = target.clone();
        std::thread::spawn(move || {
            let Ok(server) = TcpStream::connect(target.as_str()) else {
                return;
            };
            for s in [&client, &server] {
                let _ = s.set_nodelay(true);
            }
            let (Ok(c2), Ok(s2)) = (client.try_clone(), server.try_clone()) else {
                return;
            };
            let up = std::thread::spawn(move || pump(client, server, delay));
            pump(s2, c2, delay);
            let _ = up.join();
        });
    }
    Ok(())
}
