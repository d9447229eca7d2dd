//! The in-process mesh: n parties over [`MemoryChannel`] pairs.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::atomic::{self, AtomicBool};
use std::time::{Duration, Instant};

use super::{ChannelMesh, MeshChannel};
use crate::transport::channel::{Channel, ChannelError, MemoryChannel};

/// Default receive time-out of a [`MemoryMesh`] (as [`MemoryChannel`]'s).
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(30);
/// How often a reader thread waiting on a memory link looks whether the
/// mesh was dropped.
const STOP_POLL: Duration = Duration::from_millis(20);
/// Heap bytes a link's shared state takes beyond its channel ends (an
/// upper estimate: the queues' headers, locks and counters).
const LINK_OVERHEAD: usize = 1024;

/// One party's endpoint of an in-process mesh, for tests and single-process
/// benchmarks: a [`ChannelMesh`] of [`MemoryChannel`]s, one per peer.
///
/// [`MemoryMesh::new`] builds all n endpoints at once; each is `Send`, so
/// each party runs on its own thread ([`super::run_parties`]). The memory
/// bounds are those of [`MemoryChannel`] per link (64 MiB queued per
/// direction) plus the one frame a link may hold for
/// [`Mesh::recv_any`](super::Mesh::recv_any).
pub type MemoryMesh = ChannelMesh<MemoryChannel>;

impl ChannelMesh<MemoryChannel> {
    /// Creates the `n` connected endpoints of an in-memory mesh, party `i`
    /// at position `i`, with the default receive time-out (30 s).
    ///
    /// An `n` whose `n (n - 1)` links would not fit the memory budget
    /// ([`crate::transport::limits::memory_budget`]) builds no mesh: the result is
    /// empty (see [`MemoryMesh::try_new`] for the typed error), never an
    /// allocation failure.
    pub fn new(n: usize) -> Vec<MemoryMesh> {
        Self::try_new(n).unwrap_or_default()
    }

    /// As [`MemoryMesh::new`], refusing an `n` whose links would not fit
    /// the memory budget with [`super::MeshError::Setup`] naming the figure
    /// (the bytes of the links' channel ends, computed with checked
    /// arithmetic, and the budget).
    pub fn try_new(n: usize) -> Result<Vec<MemoryMesh>, super::MeshError> {
        // Per link: two channel ends and their shared queues, rounded up.
        let per_link = 2 * std::mem::size_of::<MemoryChannel>() + LINK_OVERHEAD;
        let budget = crate::transport::limits::memory_budget();
        let bytes = n
            .checked_mul(n.saturating_sub(1))
            .and_then(|l| l.checked_mul(per_link));
        match bytes {
            Some(b) if b <= budget => Ok(Self::build(n)),
            Some(b) => Err(super::MeshError::setup(
                None,
                format!("{n} parties too large: their links would take {b} bytes, more than the memory budget of {budget} bytes"),
            )),
            None => Err(super::MeshError::setup(
                None,
                format!("{n} parties too large: the size of their links overflows usize"),
            )),
        }
    }

    /// Builds the mesh (the size is checked by [`MemoryMesh::try_new`]).
    fn build(n: usize) -> Vec<MemoryMesh> {
        // Row i is party i's channels; the second end of the pair made for
        // (i, j), i < j, waits in `later` for row j.
        let mut later = HashMap::new();
        (0..n)
            .filter_map(|i| {
                let row = (0..n)
                    .map(|j| match j.cmp(&i) {
                        Ordering::Less => later.remove(&(j, i)),
                        Ordering::Equal => None,
                        Ordering::Greater => {
                            let (a, b) = MemoryChannel::pair();
                            later.insert((i, j), b);
                            Some(a)
                        }
                    })
                    .collect();
                ChannelMesh::from_channels(i, row, DEFAULT_TIMEOUT).ok()
            })
            .collect()
    }

    /// Sets how long a receive (or a send waiting for queue space) waits
    /// before failing with [`ChannelError::Timeout`], so a stuck peer is
    /// reported, not waited on forever.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.for_each_channel(|c| c.set_timeout(timeout));
        self.set_mesh_timeout(timeout);
        self
    }
}

impl MeshChannel for MemoryChannel {
    /// Waits in slices of 20 ms, checking `stop` between them (an empty
    /// in-memory receive that times out consumes nothing, so retrying is
    /// safe).
    fn recv_stoppable(
        &mut self,
        buf: &mut Vec<u8>,
        max_len: usize,
        timeout: Duration,
        stop: &AtomicBool,
    ) -> Result<(), ChannelError> {
        let start = Instant::now();
        let res = loop {
            let left = timeout.saturating_sub(start.elapsed());
            self.set_timeout(left.min(STOP_POLL));
            match self.recv_into(buf, max_len) {
                Err(ChannelError::Timeout { .. })
                    if !left.is_zero() && !stop.load(atomic::Ordering::Relaxed) => {}
                Err(ChannelError::Timeout { .. }) => {
                    break Err(ChannelError::Timeout { after: timeout })
                }
                other => break other,
            }
        };
        self.set_timeout(timeout);
        res
    }

    /// A receive with a zero time-out (which consumes nothing when it
    /// times out).
    fn try_recv_now(
        &mut self,
        buf: &mut Vec<u8>,
        max_len: usize,
        timeout: Duration,
    ) -> Option<Result<(), ChannelError>> {
        self.set_timeout(Duration::ZERO);
        let res = self.recv_into(buf, max_len);
        self.set_timeout(timeout);
        match res {
            Err(ChannelError::Timeout { .. }) => None,
            other => Some(other),
        }
    }
}
