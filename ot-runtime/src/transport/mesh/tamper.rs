//! A mesh wrapper that rewrites outgoing frames, to test that n-party
//! protocols catch a cheating party (e.g. equivocation in a broadcast).

use super::{forward_mesh, Mesh, MeshError};
use crate::transport::channel::ChannelStats;

/// Wraps a mesh and passes every outgoing frame through a closure
/// `f(to_peer, index, &mut frame)` before sending it, where `index` counts
/// the frames sent to that peer through this wrapper (0-based).
///
/// The closure may modify the frame freely (flip a byte, truncate, extend,
/// clear it); sending different bytes to different peers in one broadcast
/// round is how a test makes a party equivocate. Received frames are not
/// touched. [`Mesh::stats`] reports the inner mesh's counters, i.e. what was
/// actually sent.
pub struct TamperMesh<M, F> {
    inner: M,
    tamper: F,
    /// Frames sent so far, per peer.
    sent: Vec<u64>,
}

impl<M, F> TamperMesh<M, F>
where
    M: Mesh,
    F: FnMut(usize, u64, &mut Vec<u8>),
{
    /// Wraps `inner`, applying `tamper` to each outgoing frame.
    pub fn new(inner: M, tamper: F) -> Self {
        let sent = vec![0; inner.parties()];
        TamperMesh {
            inner,
            tamper,
            sent,
        }
    }

    /// Unwraps the inner mesh.
    pub fn into_inner(self) -> M {
        self.inner
    }

    /// The inner mesh.
    pub fn inner(&self) -> &M {
        &self.inner
    }
}

impl<M: std::fmt::Debug, F> std::fmt::Debug for TamperMesh<M, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TamperMesh")
            .field("inner", &self.inner)
            .field("sent", &self.sent)
            .finish_non_exhaustive()
    }
}

impl<M, F> Mesh for TamperMesh<M, F>
where
    M: Mesh,
    F: FnMut(usize, u64, &mut Vec<u8>),
{
    fn send_to(&mut self, peer: usize, msg: &[u8]) -> Result<(), MeshError> {
        self.send_vec_to(peer, msg.to_vec())
    }

    fn send_vec_to(&mut self, peer: usize, mut msg: Vec<u8>) -> Result<(), MeshError> {
        if let Some(count) = self.sent.get_mut(peer) {
            (self.tamper)(peer, *count, &mut msg);
            *count += 1;
        }
        self.inner.send_vec_to(peer, msg)
    }

    forward_mesh!(|s| s.inner);
}

/// The meshes of a test run where party `who`'s outgoing frames pass
/// through `tamper` (see [`TamperMesh`]) and every other party's are left
/// alone.
pub fn tamper_party<M, F>(meshes: Vec<M>, who: usize, tamper: F) -> Vec<Box<dyn Mesh + Send>>
where
    M: Mesh + Send + 'static,
    F: FnMut(usize, u64, &mut Vec<u8>) + Send + Clone + 'static,
{
    meshes
        .into_iter()
        .map(|mesh| -> Box<dyn Mesh + Send> {
            if mesh.me() == who {
                Box::new(TamperMesh::new(mesh, tamper.clone()))
            } else {
                Box::new(mesh)
            }
        })
        .collect()
}
