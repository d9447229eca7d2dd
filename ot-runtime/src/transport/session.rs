//! Session-level glue for generated protocol roles: the step transcript used
//! by the static duality guard, the [`Party`] trait every generated role's
//! initial state implements, and [`run_pair`] to run two dual roles locally.

use crate::primitives::wipe::Wipe;
use crate::transport::channel::{Channel, MemoryChannel};

/// One communication step of a role, by round index.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// Sends the message of round `i`.
    Send(u16),
    /// Receives the message of round `i`.
    Recv(u16),
    /// Runs sub-protocol call `i`.
    Sub(u16),
}

/// Whether two transcripts are dual: same rounds in the same order, with
/// every send of one matched by a receive of the other. Evaluated in a
/// `const` item by generated code, so a mismatch fails to compile.
pub const fn dual(a: &[Step], b: &[Step]) -> bool {
    // Merge the two transcripts by round index: both must list every round
    // they take part in, in increasing order, each with opposite direction.
    let mut i = 0;
    let mut j = 0;
    while i < a.len() && j < b.len() {
        match (a[i], b[j]) {
            (Step::Send(x), Step::Recv(y)) | (Step::Recv(x), Step::Send(y)) => {
                if x != y {
                    return false;
                }
                i += 1;
                j += 1;
            }
            (Step::Sub(x), Step::Sub(y)) => {
                if x != y {
                    return false;
                }
                i += 1;
                j += 1;
            }
            _ => return false,
        }
    }
    i == a.len() && j == b.len()
}

/// A role of a generated protocol, ready to run.
pub trait Party: Sized {
    /// What the role returns.
    type Output;
    /// The protocol's error type.
    type Error;
    /// Protocol name.
    const PROTOCOL: &'static str;
    /// Role name.
    const ROLE: &'static str;
    /// Its communication steps.
    const TRANSCRIPT: &'static [Step];
    /// Runs the role to completion over a channel.
    fn run_on(self, ch: &mut dyn Channel) -> Result<Self::Output, Self::Error>;
}

/// A role of a generated protocol that also runs over an
/// [`AsyncChannel`](crate::transport::channel::AsyncChannel) (cargo feature `tokio`):
/// `run_async` of the role's first state, as a boxed future.
#[cfg(feature = "tokio")]
pub trait AsyncParty: Party {
    /// Runs the role to completion over an async channel.
    fn run_on_async<'a>(
        self,
        ch: &'a mut dyn crate::transport::channel::AsyncChannel,
    ) -> crate::transport::channel::BoxFuture<'a, Result<Self::Output, Self::Error>>
    where
        Self: 'a;
}

/// Marks `Self` as the dual of `Peer` (the other role of the same protocol).
#[diagnostic::on_unimplemented(
    message = "`{Self}` and `{Peer}` are not dual roles of one protocol",
    label = "this role cannot be paired with `{Peer}`",
    note = "pair the two roles generated from the same `.otp` file (e.g. `co15::Sender` with `co15::Receiver`)"
)]
pub trait DualOf<Peer: Party>: Party {}

/// The result of running a [`Party`].
pub type PartyResult<P> = Result<<P as Party>::Output, <P as Party>::Error>;

/// Runs two dual roles on two threads over an in-memory channel pair.
pub fn run_pair<A, B>(a: A, b: B) -> (PartyResult<A>, PartyResult<B>)
where
    A: Party + Send,
    B: DualOf<A> + Send,
    A::Output: Send,
    A::Error: Send,
    B::Output: Send,
    B::Error: Send,
{
    let (mut ca, mut cb) = MemoryChannel::pair();
    run_pair_over(a, b, &mut ca, &mut cb)
}

/// [`run_pair`] over a given channel pair (e.g. two ends of a TCP
/// connection): `a` runs on a second thread over `ca`, `b` here over `cb`.
pub fn run_pair_over<A, B, C>(
    a: A,
    b: B,
    ca: &mut C,
    cb: &mut C,
) -> (PartyResult<A>, PartyResult<B>)
where
    A: Party + Send,
    B: DualOf<A> + Send,
    A::Output: Send,
    A::Error: Send,
    C: Channel + Send,
{
    std::thread::scope(|s| {
        let ha = s.spawn(move || a.run_on(ca));
        let rb = b.run_on(cb);
        let ra = match ha.join() {
            Ok(r) => r,
            Err(p) => std::panic::resume_unwind(p),
        };
        (ra, rb)
    })
}

/// Buffers of a role's intermediate arrays, kept from one run to the next.
///
/// A generated role takes the buffer of every large intermediate it
/// assembles chunk by chunk (for example KOS's columns `q`, which the
/// correlation check needs after the stream) from here, and gives it back
/// when the value is dead; the role's output carries the scratch to the next
/// run (`reuse_outputs`). Allocation and first-touch page faults then happen
/// once per session instead of once per batch. Cloning gives an empty
/// scratch: the buffers are a cache, not data.
///
/// A buffer that still holds secrets is given back with
/// [`Scratch::put_secret`] and is not wiped on the protocol's path: the
/// next run that reuses it overwrites it ([`Scratch::take_secret`] wipes
/// first only the part that run will not overwrite; [`Scratch::take`]
/// wipes all of it), and dropping the scratch (with the output that
/// carries it) wipes what it still holds; [`Scratch::wipe_held`] wipes it
/// on demand. No secret outlives the scratch, and none is freed unwiped.
#[derive(Default)]
pub struct Scratch {
    buffers: Vec<Kept>,
}

/// One kept buffer: its key, the `Vec<T>` itself, and while it still holds
/// secrets the function that wipes it.
struct Kept {
    key: &'static str,
    buffer: Box<dyn std::any::Any + Send>,
    wipe: Option<fn(&mut (dyn std::any::Any + Send))>,
}

impl Kept {
    /// Wipes the buffer if it still holds secrets.
    fn wipe(&mut self) {
        if let Some(wipe) = self.wipe.take() {
            wipe(&mut *self.buffer);
        }
    }

    /// The kept `Vec<T>` (empty if it is of another type, which
    /// [`Scratch::remove`] rules out).
    fn into_vec<T: 'static>(self) -> Vec<T> {
        self.buffer
            .downcast::<Vec<T>>()
            .map(|v| *v)
            .unwrap_or_default()
    }
}

/// Wipes a kept `Vec<T>` in place (see [`Scratch::put_secret`]).
fn wipe_vec<T: Wipe + 'static>(buffer: &mut (dyn std::any::Any + Send)) {
    if let Some(v) = buffer.downcast_mut::<Vec<T>>() {
        v.wipe();
    }
}

impl Scratch {
    /// The buffer kept under `key` if there is one of element type `T`
    /// (its contents are stale, wiped if they were secret; callers resize
    /// and overwrite), else empty.
    pub fn take<T: Send + 'static>(&mut self, key: &'static str) -> Vec<T> {
        self.remove::<T>(key)
            .map(|mut kept| {
                kept.wipe();
                kept.into_vec()
            })
            .unwrap_or_default()
    }

    /// The buffer kept under `key` for a secret array of `len` entries
    /// that the caller overwrites entirely (a streamed array assembled
    /// chunk by chunk): secrets it still holds past `len`, which the caller
    /// will not overwrite, are wiped first; those below `len` are left for
    /// the caller to overwrite. Empty if no buffer of element type `T` is
    /// kept under `key`.
    pub fn take_secret<T: Wipe + Send + 'static>(
        &mut self,
        key: &'static str,
        len: usize,
    ) -> Vec<T> {
        let Some(mut kept) = self.remove::<T>(key) else {
            return Vec::new();
        };
        if kept.wipe.take().is_some() {
            if let Some(tail) = kept
                .buffer
                .downcast_mut::<Vec<T>>()
                .and_then(|v| v.get_mut(len..))
            {
                tail.wipe();
            }
        }
        kept.into_vec()
    }

    /// Removes the buffer kept under `key` with element type `T`, if any.
    fn remove<T: Send + 'static>(&mut self, key: &'static str) -> Option<Kept> {
        let i = self
            .buffers
            .iter()
            .position(|k| k.key == key && k.buffer.is::<Vec<T>>())?;
        Some(self.buffers.swap_remove(i))
    }

    /// Keeps `buffer` under `key` for a later [`Scratch::take`].
    pub fn put<T: Send + 'static>(&mut self, key: &'static str, buffer: Vec<T>) {
        if buffer.capacity() > 0 {
            self.buffers.push(Kept {
                key,
                buffer: Box::new(buffer),
                wipe: None,
            });
        }
    }

    /// Keeps `buffer`, which still holds secrets, under `key`: it is wiped
    /// by [`Scratch::wipe_held`], when the scratch is dropped, or (the part
    /// a reuse does not overwrite) when it is taken again, whichever comes
    /// first.
    pub fn put_secret<T: Wipe + Send + 'static>(&mut self, key: &'static str, buffer: Vec<T>) {
        if buffer.capacity() == 0 {
            return;
        }
        if buffer.is_empty() {
            return self.put(key, buffer);
        }
        self.buffers.push(Kept {
            key,
            buffer: Box::new(buffer),
            wipe: Some(wipe_vec::<T>),
        });
    }

    /// Wipes every buffer still holding secrets (see
    /// [`Scratch::put_secret`]).
    pub fn wipe_held(&mut self) {
        self.buffers.iter_mut().for_each(Kept::wipe);
    }

    /// Number of buffers kept.
    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    /// Whether no buffer is kept.
    pub fn is_empty(&self) -> bool {
        self.buffers.is_empty()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        self.wipe_held();
    }
}

impl Clone for Scratch {
    fn clone(&self) -> Self {
        Scratch::default()
    }
}

impl std::fmt::Debug for Scratch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Scratch({} buffers)", self.buffers.len())
    }
}

#[cfg(test)]
mod scratch_tests {
    use super::Scratch;
    use crate::Block;

    #[test]
    fn a_secret_buffer_taken_for_a_shorter_array_has_its_tail_wiped() {
        let mut s = Scratch::default();
        s.put_secret("q", vec![Block(5); 6]);
        let v = s.take_secret::<Block>("q", 4);
        // The entries past 4 (which the new run does not overwrite) are
        // zero; the first 4 are left for the caller to overwrite.
        assert_eq!(v[..4], [Block(5); 4]);
        assert_eq!(v[4..], [Block::ZERO; 2]);
        // Not secret any more once taken: a plain put/take keeps it.
        s.put("q", v);
        assert_eq!(s.take::<Block>("q")[..4], [Block(5); 4]);
        assert!(s.take_secret::<Block>("none", 1).is_empty());
    }

    #[test]
    fn secret_buffers_are_wiped_when_held_wiped_taken_or_dropped() {
        let mut s = Scratch::default();
        s.put_secret("q", vec![Block(5); 4]);
        // Wiped before a take hands it out again.
        assert_eq!(s.take::<Block>("q"), vec![Block::ZERO; 4]);
        s.put_secret("q", vec![Block(6); 3]);
        s.wipe_held();
        // Still kept, already zero.
        assert_eq!(s.len(), 1);
        assert_eq!(s.take::<Block>("q"), vec![Block::ZERO; 3]);
        // A plain put is handed back as it was (not secret).
        s.put("t", vec![7u64]);
        assert_eq!(s.take::<u64>("t"), vec![7]);
    }

    #[test]
    fn takes_back_what_was_put_by_key_and_type() {
        let mut s = Scratch::default();
        assert!(s.take::<u64>("q").is_empty());
        s.put("q", vec![1u64, 2, 3]);
        s.put("t", vec![7u8]);
        assert_eq!(s.len(), 2);
        // Wrong type or key: nothing.
        assert!(s.take::<u8>("q").is_empty());
        assert!(s.take::<u64>("x").is_empty());
        assert_eq!(s.take::<u64>("q"), vec![1, 2, 3]);
        assert!(s.take::<u64>("q").is_empty());
        assert_eq!(s.clone().len(), 0);
        assert_eq!(format!("{s:?}"), "Scratch(1 buffers)");
    }
}
