//! The async drivers (`run_async`, cargo feature `tokio`) of n-party
//! protocols, over in-memory and TCP async meshes (`TokioMesh`): the sum of
//! private inputs (`sum_n.otp`: private and broadcast rounds with the
//! consistency check), coin flipping (`coin_flip_n.otp`: commit-then-open)
//! and a protocol with a dealer (`beaver_dealer.otp`). Every party of a run
//! is a task; all must agree and be right. Frames larger than the links'
//! buffers must not deadlock (the mesh writes from a task per link while
//! the driver reads).

use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::mesh::{
    local_tokio_tcp_mesh, memory_tokio_mesh, AsyncMesh, MeshError, TokioMesh,
};
use ot::{beaver_dealer, coin_flip_n, sum_n};
use std::future::Future;

const SESSION: [u8; 16] = *b"async-mesh-tests";

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime")
}

/// Runs `party` on every mesh as its own task; the results in index order.
async fn run_all<S, F, Fut, T>(meshes: Vec<TokioMesh<S>>, party: F) -> Vec<T>
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Send + 'static,
    F: Fn(TokioMesh<S>) -> Fut,
    Fut: Future<Output = T> + Send + 'static,
    T: Send + 'static,
{
    let tasks: Vec<_> = meshes.into_iter().map(|m| tokio::spawn(party(m))).collect();
    let mut out = vec![];
    for t in tasks {
        out.push(t.await.expect("a party task"));
    }
    out
}

async fn sum_party<M: AsyncMesh>(mut mesh: M) -> Result<u64, sum_n::Error> {
    let params = sum_n::Params::new(mesh.parties())?;
    let input = sum_n::PInput {
        x: 1000 + mesh.me() as u64,
    };
    let p = sum_n::P::new(mesh.me(), params, SESSION, input, Rng::from_entropy())?;
    Ok(p.run_async(&mut mesh).await?.sum)
}

fn expected_sum(n: usize) -> u64 {
    (0..n as u64).map(|i| 1000 + i).sum()
}

#[test]
fn sum_over_memory_and_tcp_async_meshes() {
    runtime().block_on(async {
        for n in [2usize, 3, 5] {
            let meshes = memory_tokio_mesh(n, 64).expect("memory mesh");
            let outs = run_all(meshes, sum_party).await;
            for o in outs {
                assert_eq!(o.expect("party"), expected_sum(n), "memory, n = {n}");
            }
            let meshes = local_tokio_tcp_mesh(n).await.expect("tcp mesh");
            let outs = run_all(meshes, sum_party).await;
            for o in outs {
                assert_eq!(o.expect("party"), expected_sum(n), "tcp, n = {n}");
            }
        }
    });
}

#[test]
fn coins_agree_over_the_async_mesh() {
    runtime().block_on(async {
        let meshes = memory_tokio_mesh(4, 16).expect("memory mesh");
        let outs = run_all(meshes, |mut m| async move {
            let params = coin_flip_n::Params::new(m.parties())?;
            let p = coin_flip_n::P::new(
                m.me(),
                params,
                SESSION,
                coin_flip_n::PInput {},
                Rng::from_entropy(),
            )?;
            Ok::<_, coin_flip_n::Error>(p.run_async(&mut m).await?.coin)
        })
        .await;
        let coins: Vec<_> = outs.into_iter().map(|o| o.expect("party")).collect();
        assert!(coins.windows(2).all(|w| w[0] == w[1]), "{coins:?}");
    });
}

#[test]
fn a_dealer_protocol_runs_async() {
    runtime().block_on(async {
        let n = 3;
        let meshes = local_tokio_tcp_mesh(n + 1).await.expect("tcp mesh");
        let outs = run_all(meshes, move |mut m| async move {
            let params = beaver_dealer::Params::new(n)?;
            if m.me() == n {
                let d = beaver_dealer::Dealer::new(
                    params,
                    SESSION,
                    Default::default(),
                    Rng::from_entropy(),
                )?;
                d.run_async(&mut m).await?;
                return Ok(None);
            }
            let input = beaver_dealer::PInput {
                x: 3 + m.me() as u64,
                y: 5,
            };
            let p = beaver_dealer::P::new(m.me(), params, SESSION, input, Rng::from_entropy())?;
            Ok::<_, beaver_dealer::Error>(Some(p.run_async(&mut m).await?.z))
        })
        .await;
        // z is an additive sharing of x * y with x = sum of the parties' x
        // shares and y = sum of their y shares.
        let shares: Vec<u64> = outs
            .into_iter()
            .filter_map(|o| o.expect("endpoint"))
            .collect();
        let x: u64 = (0..n as u64).map(|i| 3 + i).sum();
        let y: u64 = 5 * n as u64;
        assert_eq!(
            shares.iter().fold(0u64, |a, s| a.wrapping_add(*s)),
            x.wrapping_mul(y)
        );
    });
}

/// A party whose peers disagree on the session is refused at the hello,
/// named as the peer that differs.
#[test]
fn a_different_session_is_refused_at_the_hello() {
    runtime().block_on(async {
        let meshes = memory_tokio_mesh(3, 1 << 10).expect("memory mesh");
        let outs = run_all(meshes, |mut m| async move {
            let params = sum_n::Params::new(m.parties())?;
            let session = if m.me() == 2 { [9u8; 16] } else { SESSION };
            let input = sum_n::PInput { x: 1 };
            let p = sum_n::P::new(m.me(), params, session, input, Rng::from_entropy())?;
            p.run_async(&mut m).await.map(|o| o.sum)
        })
        .await;
        match &outs[0] {
            Err(sum_n::Error::Mesh {
                round: "hello",
                source: MeshError::Mismatch { peer: 2, .. },
            }) => {}
            other => panic!("party 0 should refuse party 2's hello: {other:?}"),
        }
    });
}

/// Building an async mesh outside a tokio runtime is a typed error, not a
/// panic.
#[test]
fn an_async_mesh_needs_a_runtime() {
    match memory_tokio_mesh(2, 64) {
        Err(MeshError::Setup { .. }) => {}
        other => panic!("expected a setup error: {other:?}"),
    }
}

mod chunked {
    ot::protocol! {
        protocol ChunkedBroadcast(role P[n]) {
            about {
                family = "MPC";
                security = "semi-honest";
                proof = "test protocol";
                summary = "Element-wise sum of every party's vector, broadcast in chunks.";
            }
            param n: usize requires n >= 2;
            param m: usize requires m >= 1;
            input P[i] { x: [u64; m] }
            output P[i] { total: [u64; m] }
            round share: P[i] -> all : Vector { x: [u64; m] } chunked(by = 256)
            at P[i] { total = [sum_u64([x[j][k] for j in 0..n]) for k in 0..m]; }
        }
    }
}

/// A chunked broadcast round run by `run_async` over the TCP async mesh:
/// 40 chunks a party, larger in total than the memory links' buffers.
#[test]
fn a_chunked_broadcast_runs_async() {
    runtime().block_on(async {
        let (n, m) = (3usize, 10_000usize);
        let meshes = local_tokio_tcp_mesh(n).await.expect("tcp mesh");
        let outs = run_all(meshes, move |mut mesh| async move {
            let params = chunked::Params::new(mesh.parties(), m)?;
            let i = mesh.me();
            let x = (0..m).map(|k| (1000 * i + k) as u64).collect();
            let p = chunked::P::new(
                i,
                params,
                SESSION,
                chunked::PInput { x },
                Rng::from_entropy(),
            )?;
            Ok::<_, chunked::Error>(p.run_async(&mut mesh).await?.total)
        })
        .await;
        let want: Vec<u64> = (0..m)
            .map(|k| (0..n).map(|i| (1000 * i + k) as u64).sum())
            .collect();
        for o in outs {
            assert_eq!(o.expect("party"), want);
        }
        // Frames: the hello, then one frame per chunk of 256 elements.
        let meshes = memory_tokio_mesh(n, 1 << 12).expect("memory mesh");
        let stats = run_all(meshes, move |mut mesh| async move {
            let params = chunked::Params::new(mesh.parties(), m).expect("params");
            let i = mesh.me();
            let x = vec![1u64; m];
            let p = chunked::P::new(
                i,
                params,
                SESSION,
                chunked::PInput { x },
                Rng::from_entropy(),
            );
            p.expect("party").run_async(&mut mesh).await.expect("run");
            mesh.stats((i + 1) % n)
        })
        .await;
        for s in stats {
            assert_eq!(s.messages_sent as usize, 1 + m.div_ceil(256) + 1, "{s:?}");
        }
    });
}

/// An async mesh that truncates one frame to one peer (a party sending a
/// malformed message).
struct Truncate<M> {
    inner: M,
    peer: usize,
    frame: u64,
    sent: Vec<u64>,
}

impl<M: AsyncMesh> AsyncMesh for Truncate<M> {
    fn me(&self) -> usize {
        self.inner.me()
    }
    fn parties(&self) -> usize {
        self.inner.parties()
    }
    fn send_to<'a>(
        &'a mut self,
        peer: usize,
        msg: &'a [u8],
    ) -> ot::runtime::transport::channel::BoxFuture<'a, Result<(), MeshError>> {
        let k = self.sent[peer];
        self.sent[peer] += 1;
        if peer == self.peer && k == self.frame {
            let mut short = msg.to_vec();
            short.pop();
            return self.inner.send_vec_to(peer, short);
        }
        self.inner.send_to(peer, msg)
    }
    fn flush(&mut self) -> ot::runtime::transport::channel::BoxFuture<'_, Result<(), MeshError>> {
        self.inner.flush()
    }
    fn recv_from<'a>(
        &'a mut self,
        peer: usize,
        buf: &'a mut Vec<u8>,
        max_len: usize,
    ) -> ot::runtime::transport::channel::BoxFuture<'a, Result<(), MeshError>> {
        self.inner.recv_from(peer, buf, max_len)
    }
    fn stats(&self, peer: usize) -> ot::runtime::ChannelStats {
        self.inner.stats(peer)
    }
    fn notify_abort<'a>(
        &'a mut self,
        notice: &'a ot::runtime::transport::mesh::AbortNotice,
    ) -> ot::runtime::transport::channel::BoxFuture<'a, ()> {
        self.inner.notify_abort(notice)
    }
}

/// Party 1 sends party 0 a share one byte short: party 0 aborts naming
/// party 1 and sends every peer an abort notice, so party 2, waiting for
/// party 0's next message, reports the notice and blames party 1 on its
/// word (without notices it would see a hang-up).
#[test]
fn a_failing_party_sends_abort_notices_over_the_async_mesh() {
    runtime().block_on(async {
        let n = 3;
        let meshes = memory_tokio_mesh(n, 1 << 12).expect("memory mesh");
        let outs = run_all(meshes, move |m| async move {
            let me = m.me();
            let mut m = Truncate {
                inner: m,
                peer: if me == 1 { 0 } else { usize::MAX },
                frame: 1, // frame 0 is the hello
                sent: vec![0; n],
            };
            let params = sum_n::Params::new(n)?;
            let input = sum_n::PInput { x: 5 };
            let p = sum_n::P::new(me, params, SESSION, input, Rng::from_entropy())?;
            p.run_async(&mut m).await.map(|o| o.sum)
        })
        .await;
        match &outs[0] {
            Err(sum_n::Error::FromPeer {
                round: "share",
                peer: 1,
                ..
            }) => {}
            other => panic!("party 0 should refuse party 1's share: {other:?}"),
        }
        match &outs[2] {
            Err(sum_n::Error::Mesh {
                source:
                    MeshError::PeerAborted {
                        peer: 0,
                        blamed: Some(1),
                        ..
                    },
                ..
            }) => {}
            other => panic!("party 2 should report party 0's notice: {other:?}"),
        }
    });
}

mod ring {
    ot::protocol! {
        protocol RingNext(role P[n]) {
            about {
                family = "MPC";
                security = "semi-honest";
                proof = "test protocol";
                summary = "Every party passes its value to the next party on the ring.";
            }
            param n: usize requires n >= 2;
            input P[i] { x: u64 }
            output P[i] { left: u64 }
            at P[i] { a = x; }
            round next: P[i] -> P[(i + 1) % n] : Next { a: u64 }
            at P[i] { left = a; }
        }
    }
}

/// A ring round by `run_async` over the TCP async mesh.
#[test]
fn a_ring_round_runs_async() {
    runtime().block_on(async {
        let n = 4;
        let meshes = local_tokio_tcp_mesh(n).await.expect("tcp mesh");
        let outs = run_all(meshes, |mut m| async move {
            let i = m.me();
            let params = ring::Params::new(m.parties())?;
            let input = ring::PInput { x: 7 * i as u64 };
            let p = ring::P::new(i, params, SESSION, input, Rng::from_entropy())?;
            Ok::<_, ring::Error>(p.run_async(&mut m).await?.left)
        })
        .await;
        for (i, o) in outs.into_iter().enumerate() {
            assert_eq!(o.expect("party"), 7 * ((i + n - 1) % n) as u64);
        }
    });
}
