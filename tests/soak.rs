//! Soak: 1,000 consecutive sessions of mixed protocols (base OTs, IKNP and
//! KOS random and chosen-message OT, Delta-IKNP and Delta-KOS batches) over
//! one long-lived TCP connection. Every session's outputs are checked, and
//! the process's resident memory after the last session may exceed what it
//! was after the first 100 (allocator and buffer pools warmed up) by at most
//! 4 MiB: a per-session leak of more than about 4 KiB fails the test (before
//! the buffer pools freed idle spares, 1,000 sessions grew it by 9 MiB).
//!
//! Its own test binary, so that no other test shares the process whose
//! memory it measures.

use std::sync::mpsc;

use rand_core::RngCore;

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{local_pair_tcp, Channel};
use ot::runtime::{Bits, Block};
use ot::{
    BaseOt, BaseOtKind, CorrelatedOtReceiver, CorrelatedOtSender, DeltaOtReceiver, DeltaOtSender,
    OtExtension, OtReceiver, OtSender, RandomOtReceiver, RandomOtSender,
};

const SESSIONS: usize = 1000;
const WARM_UP: usize = 100;
const MAX_GROWTH: u64 = 4 << 20;

/// The protocol of session `i` (both parties derive it from `i`).
fn kind(i: usize) -> usize {
    i % 8
}

/// OTs in session `i`: varies, so buffers of many sizes come and go.
fn size(i: usize) -> usize {
    [1, 127, 128, 1000, 4096, 20_000, 300][i % 7]
}

/// What the sender hands the checker after each session.
enum SenderOut {
    Pairs(Vec<[Block; 2]>),
    Correlated(Vec<Block>, Block),
}

/// A uniformly random block.
fn random_block(rng: &mut Rng) -> Block {
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    Block::from(bytes)
}

/// Resident memory of this process in bytes (Linux), if known.
fn rss() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

fn sender_loop(ch: &mut dyn Channel, out: mpsc::Sender<SenderOut>) {
    let mut rng = Rng::from_entropy();
    let delta_iknp_value = random_block(&mut rng);
    let delta_kos_value = random_block(&mut rng);
    let mut delta_iknp = DeltaOtSender::iknp(delta_iknp_value);
    let mut delta_kos = DeltaOtSender::kos(delta_kos_value);
    for i in 0..SESSIONS {
        let n = size(i);
        let result = match kind(i) {
            0 => BaseOt::new(BaseOtKind::Co15)
                .send_random(ch, n.min(300))
                .map(SenderOut::Pairs),
            1 => BaseOt::new(BaseOtKind::Mr19)
                .send_random(ch, n.min(300))
                .map(SenderOut::Pairs),
            2 => OtExtension::iknp().send_random(ch, n).map(SenderOut::Pairs),
            3 => OtExtension::kos().send_random(ch, n).map(SenderOut::Pairs),
            4 | 5 => {
                let messages: Vec<[Block; 2]> = (0..n)
                    .map(|_| [random_block(&mut rng), random_block(&mut rng)])
                    .collect();
                let mut ext = if kind(i) == 4 {
                    OtExtension::iknp()
                } else {
                    OtExtension::kos()
                };
                ext.send(ch, &messages).map(|()| SenderOut::Pairs(messages))
            }
            6 => delta_iknp
                .send_correlated(ch, n)
                .map(|z| SenderOut::Correlated(z, delta_iknp_value)),
            _ => delta_kos
                .send_correlated(ch, n)
                .map(|z| SenderOut::Correlated(z, delta_kos_value)),
        };
        let result = result.unwrap_or_else(|e| panic!("session {i} (sender): {e}"));
        if out.send(result).is_err() {
            return;
        }
    }
}

fn receiver_loop(ch: &mut dyn Channel, from_sender: mpsc::Receiver<SenderOut>) -> (u64, u64) {
    let mut rng = Rng::from_entropy();
    let mut delta_iknp = DeltaOtReceiver::iknp();
    let mut delta_kos = DeltaOtReceiver::kos();
    let mut rss_warm = 0;
    for i in 0..SESSIONS {
        if i == WARM_UP {
            rss_warm = rss().unwrap_or(0);
        }
        let n = match kind(i) {
            0 | 1 => size(i).min(300),
            _ => size(i),
        };
        let r = Bits::random(&mut rng, n);
        let got = match kind(i) {
            0 => BaseOt::new(BaseOtKind::Co15).receive_random(ch, &r),
            1 => BaseOt::new(BaseOtKind::Mr19).receive_random(ch, &r),
            2 => OtExtension::iknp().receive_random(ch, &r),
            3 => OtExtension::kos().receive_random(ch, &r),
            4 => OtExtension::iknp().receive(ch, &r),
            5 => OtExtension::kos().receive(ch, &r),
            6 => delta_iknp.receive_correlated(ch, &r),
            _ => delta_kos.receive_correlated(ch, &r),
        }
        .unwrap_or_else(|e| panic!("session {i} (receiver): {e}"));
        let sent = from_sender
            .recv()
            .expect("the sender reports every session");
        assert_eq!(got.len(), n, "session {i}: output length");
        for (j, x) in got.iter().enumerate() {
            let want = match &sent {
                SenderOut::Pairs(p) => p[j][usize::from(r.get(j))],
                SenderOut::Correlated(z, delta) => {
                    if r.get(j) {
                        z[j] ^ *delta
                    } else {
                        z[j]
                    }
                }
            };
            assert_eq!(*x, want, "session {i} (kind {}), OT {j}", kind(i));
        }
    }
    (rss_warm, rss().unwrap_or(0))
}

#[test]
fn thousand_mixed_sessions_over_one_connection_with_flat_memory() {
    let (mut a, mut b) = local_pair_tcp().expect("loopback pair");
    let (tx, rx) = mpsc::channel();
    let (warm, end) = std::thread::scope(|s| {
        s.spawn(move || sender_loop(&mut a, tx));
        receiver_loop(&mut b, rx)
    });
    eprintln!(
        "soak: {SESSIONS} sessions, RSS after {WARM_UP}: {:.1} MiB, after {SESSIONS}: {:.1} MiB",
        warm as f64 / 1048576.0,
        end as f64 / 1048576.0
    );
    if warm > 0 && end > 0 {
        assert!(
            end <= warm + MAX_GROWTH,
            "resident memory grew from {warm} to {end} bytes over {} sessions",
            SESSIONS - WARM_UP
        );
    }
}
