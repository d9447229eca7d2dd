//! One link of a mesh as a two-party [`Channel`]: what an n-party protocol
//! hands a two-party sub-protocol it runs with one peer (a `do` call
//! between every pair of parties).

use super::{Mesh, MeshError};
use crate::transport::channel::{AbortNotice, Channel, ChannelError, ChannelStats};

/// Party `me`'s link to `peer` of a [`Mesh`], as a [`Channel`]: a send is
/// one frame to `peer` ([`Mesh::send_to`]), a receive one frame from it
/// ([`Mesh::recv_from`]); the statistics are the link's. Borrowing the
/// mesh for the run keeps the other links untouched.
pub struct PeerChannel<'a, M: Mesh + ?Sized> {
    mesh: &'a mut M,
    peer: usize,
}

impl<'a, M: Mesh + ?Sized> PeerChannel<'a, M> {
    /// The link of `mesh` to `peer` (an index with no link fails at the
    /// first send or receive, as on the mesh).
    pub fn new(mesh: &'a mut M, peer: usize) -> Self {
        PeerChannel { mesh, peer }
    }

    /// The peer at the other end.
    pub fn peer(&self) -> usize {
        self.peer
    }
}

/// A mesh failure on one link as the channel error of that link: a
/// channel failure or a peer's abort notice as it was; a hello that differs
/// or a setup failure (no channel error names it) as an I/O error in words.
fn on_link(e: MeshError) -> ChannelError {
    match e {
        MeshError::Peer { source, .. } => source,
        MeshError::PeerAborted { notice, .. } => ChannelError::PeerAborted(notice),
        other => ChannelError::Io(std::io::Error::other(other.to_string())),
    }
}

impl<M: Mesh + ?Sized> Channel for PeerChannel<'_, M> {
    fn send(&mut self, msg: &[u8]) -> Result<(), ChannelError> {
        self.mesh.send_to(self.peer, msg).map_err(on_link)
    }

    fn send_vec(&mut self, msg: Vec<u8>) -> Result<(), ChannelError> {
        self.mesh.send_vec_to(self.peer, msg).map_err(on_link)
    }

    fn recv_into(&mut self, buf: &mut Vec<u8>, max_len: usize) -> Result<(), ChannelError> {
        self.mesh
            .recv_from(self.peer, buf, max_len)
            .map_err(on_link)
    }

    fn stats(&self) -> ChannelStats {
        self.mesh.stats(self.peer)
    }

    fn flush(&mut self) -> Result<(), ChannelError> {
        self.mesh.flush().map_err(on_link)
    }

    fn expect_next_frame(&mut self, len: Option<usize>) {
        self.mesh.expect_next_frame(self.peer, len);
    }

    /// The notice goes to every peer ([`Mesh::notify_abort`]): a run with
    /// one peer that aborts ends the party's session with all of them.
    fn send_notice(&mut self, notice: &AbortNotice) -> Result<(), ChannelError> {
        self.mesh.notify_abort(notice);
        Ok(())
    }
}

/// The partner of party `me` in round `round` of a round-robin tournament
/// among `parties` parties (the circle method): `parties` or more for a
/// round in which `me` meets nobody (the dummy party of an odd count).
/// Over the rounds `0..parties - 1` (`0..parties` for an odd count) every
/// party meets every other exactly once, and the partner relation of a
/// round is symmetric. The order of the runs of two-party sub-protocols
/// between every pair of parties (generated code).
pub fn round_robin_partner(me: usize, parties: usize, round: usize) -> usize {
    // With a dummy for an odd count: an even number `big` of players, the
    // last fixed, the others on a circle of `m = big - 1` (odd) places.
    let big = parties + parties % 2;
    let m = big.saturating_sub(1).max(1);
    let r = round % m;
    if me >= m {
        // The fixed player meets the one the circle leaves alone: `p` with
        // `2r − p ≡ p (mod m)`, i.e. `p = r` (2 is invertible mod odd `m`).
        return r;
    }
    let partner = (2 * r + m - me) % m;
    if partner == me {
        m
    } else {
        partner
    }
}

/// The abort notice a peer sent, if `err` or an error in its source chain
/// is one ([`ChannelError::PeerAborted`], [`MeshError::PeerAborted`]): how
/// a party tells, inside a sub-protocol's typed error, that the run failed
/// because its peer aborted (and whom that peer blames) rather than
/// because the peer misbehaved in the run.
pub fn abort_notice_in<'e>(err: &'e (dyn std::error::Error + 'static)) -> Option<&'e AbortNotice> {
    let mut cur = Some(err);
    while let Some(e) = cur {
        if let Some(ChannelError::PeerAborted(n)) = e.downcast_ref::<ChannelError>() {
            return Some(n);
        }
        if let Some(MeshError::PeerAborted { notice, .. }) = e.downcast_ref::<MeshError>() {
            return Some(notice);
        }
        cur = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::mesh::{run_parties, MemoryMesh};

    #[test]
    fn a_link_carries_frames_both_ways_and_counts_them() {
        let out = run_parties(MemoryMesh::new(3), |m| {
            let me = m.me();
            let mut got = vec![];
            for peer in (0..3).filter(|&p| p != me) {
                let mut ch = PeerChannel::new(&mut *m, peer);
                assert_eq!(ch.peer(), peer);
                ch.send(&[me as u8, peer as u8])?;
                let back = ch.recv(16)?;
                got.push((back, ch.stats().bytes_sent));
            }
            Ok::<_, ChannelError>(got)
        });
        for (me, o) in out.into_iter().enumerate() {
            let got = o.expect("run");
            let peers: Vec<usize> = (0..3).filter(|&p| p != me).collect();
            for ((back, sent), peer) in got.into_iter().zip(peers) {
                assert_eq!(back, vec![peer as u8, me as u8]);
                assert_eq!(sent, 2);
            }
        }
    }

    /// Every pair meets exactly once, in a round where both name each
    /// other; no party meets two parties in one round.
    #[test]
    fn round_robin_meets_every_pair_once() {
        for n in 2..=9 {
            let rounds = if n % 2 == 0 { n - 1 } else { n };
            let mut met = vec![vec![0; n]; n];
            for r in 0..rounds {
                for (me, row) in met.iter_mut().enumerate() {
                    let p = round_robin_partner(me, n, r);
                    if p >= n {
                        continue;
                    }
                    assert_ne!(p, me, "n = {n}, round {r}");
                    assert_eq!(round_robin_partner(p, n, r), me, "n = {n}, round {r}");
                    row[p] += 1;
                }
            }
            for (a, row) in met.iter().enumerate() {
                for (b, &k) in row.iter().enumerate() {
                    assert_eq!(k, usize::from(a != b), "n = {n}: {a} met {b} {k} times");
                }
            }
        }
    }

    /// A notice is found at any depth of a source chain, and not in a
    /// chain without one.
    #[test]
    fn a_notice_is_found_in_the_source_chain() {
        #[derive(Debug)]
        struct Wrap(ChannelError);
        impl std::fmt::Display for Wrap {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "wrapped: {}", self.0)
            }
        }
        impl std::error::Error for Wrap {
            fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
                Some(&self.0)
            }
        }
        let notice = AbortNotice::new("r", "why", &[2]);
        let deep = Wrap(ChannelError::PeerAborted(notice.clone()));
        assert_eq!(abort_notice_in(&deep), Some(&notice));
        let other = Wrap(ChannelError::Closed);
        assert_eq!(abort_notice_in(&other), None);
        let mesh = MeshError::PeerAborted {
            peer: 1,
            notice: notice.clone(),
            blamed: Some(2),
        };
        assert_eq!(abort_notice_in(&mesh), Some(&notice));
    }

    #[test]
    fn an_oversized_frame_is_the_links_error() {
        let out = run_parties(MemoryMesh::new(2), |m| {
            let peer = 1 - m.me();
            let mut ch = PeerChannel::new(&mut *m, peer);
            ch.send(&[0u8; 32])?;
            ch.recv(8).map(|_| ())
        });
        for o in out {
            assert!(matches!(o, Err(ChannelError::Oversized { .. })), "{o:?}");
        }
    }
}
