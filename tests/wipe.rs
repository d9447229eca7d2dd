//! Secret containers of the runtime, and the states of generated two-party
//! protocols, wipe their memory before it is freed (issue 15, item 7). A
//! global allocator of this test binary looks, while armed, at every buffer
//! being freed for a marker the test put into a secret; each test checks a
//! control (the same bytes in a plain `Vec` or `Box`, which is freed
//! unwiped, are seen) and then the secret container (never seen). (GMP
//! allocates with C's allocator, which this one does not see: Paillier
//! keys are not covered here. Values on the stack are out of its sight.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use ot::runtime::channel::{Channel, MemoryChannel};
use ot::runtime::ec::Point;
use ot::runtime::ec::Scalar;
use ot::runtime::minimac::prep::{deal, PrepParams};
use ot::runtime::minimac::{Codes, Holder, MacKey, Shares as MacShares};
use ot::runtime::orlandi::Shares;
use ot::runtime::rng::Rng;
use ot::runtime::{Bits, Block};
use ot::traits::{OtError, RandomOtReceiver, RandomOtSender};
use ot::{delta_iknp, iknp, kos};

/// The marker: 16 bytes unlikely to occur by chance.
const MARK: [u8; 16] = *b"\x9e\x37wipe-markers\x42\x01";

static ARMED: AtomicBool = AtomicBool::new(false);
static SEEN: AtomicBool = AtomicBool::new(false);
/// One test at a time (the allocator's flags are global).
static SERIAL: Mutex<()> = Mutex::new(());

struct Watch;

// SAFETY: forwards to the system allocator; `dealloc` only reads the block
// it is handed, which is still allocated and initialised by its owner
// (every block freed while armed comes from the code under test, which
// frees only buffers it wrote).
unsafe impl GlobalAlloc for Watch {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `System`.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if ARMED.load(Ordering::SeqCst) {
            // SAFETY: `ptr` points to `layout.size()` bytes of this block.
            let block = unsafe { std::slice::from_raw_parts(ptr, layout.size()) };
            if block.windows(MARK.len()).any(|w| w == MARK) {
                SEEN.store(true, Ordering::SeqCst);
            }
        }
        // SAFETY: as `System`.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        // SAFETY: as `System`.
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static GLOBAL: Watch = Watch;

/// Whether dropping `v` freed a buffer holding the marker.
fn marker_freed<T>(v: T) -> bool {
    SEEN.store(false, Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
    drop(v);
    ARMED.store(false, Ordering::SeqCst);
    SEEN.load(Ordering::SeqCst)
}

/// Whether running `f` (a protocol step) or dropping what it returns freed
/// a buffer holding the marker.
fn marker_freed_by<T>(f: impl FnOnce() -> T) -> bool {
    SEEN.store(false, Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
    drop(f());
    ARMED.store(false, Ordering::SeqCst);
    SEEN.load(Ordering::SeqCst)
}

/// The marker as a block.
fn mark_block() -> Block {
    Block(u128::from_le_bytes(MARK))
}

/// An ideal base OT whose keys are known: every key `k_0` (and the
/// receiver's key when its choice is 0) is the marker; `k_1` differs per OT.
/// It sends nothing.
struct MarkedBaseOt;

impl RandomOtSender for MarkedBaseOt {
    fn send_random(&mut self, _: &mut dyn Channel, n: usize) -> Result<Vec<[Block; 2]>, OtError> {
        Ok((0..n).map(|j| [mark_block(), Block(j as u128)]).collect())
    }
}

impl RandomOtReceiver for MarkedBaseOt {
    fn receive_random(&mut self, _: &mut dyn Channel, c: &Bits) -> Result<Vec<Block>, OtError> {
        Ok((0..c.len())
            .map(|j| {
                if c.get(j) {
                    Block(j as u128)
                } else {
                    mark_block()
                }
            })
            .collect())
    }
}

/// A role's session message and its state after the base OTs (marked
/// keys), for IKNP and KOS (same steps): `sender!(iknp)`.
macro_rules! after_base {
    ($p:ident) => {{
        let params = $p::Params::new(1000, 1, false).expect("params");
        let (mut a, mut b) = MemoryChannel::pair();
        let sender = $p::Sender::new(
            params,
            $p::SenderInput {},
            Rng::deterministic_for_tests(1),
            $p::SenderSubs {
                base: Box::new(MarkedBaseOt),
            },
        )
        .expect("sender");
        let (session, sender) = sender.send_session().expect("session");
        let sender = sender.run_base(&mut a).expect("sender base");
        let receiver = $p::Receiver::new(
            params,
            $p::ReceiverInput {
                r: Bits::from_bools(&vec![true; 1000]),
            },
            Rng::deterministic_for_tests(2),
            $p::ReceiverSubs {
                base: Box::new(MarkedBaseOt),
            },
        )
        .expect("receiver")
        .recv_session(session)
        .expect("receiver session");
        // The receiver's step consumes the base-OT keys (PRG keys derived,
        // keys dropped): watched while it runs.
        let mut receiver = Some(receiver);
        let mut after = None;
        let step_freed = marker_freed_by(|| {
            after = Some(
                receiver
                    .take()
                    .expect("once")
                    .run_base(&mut b)
                    .expect("receiver base"),
            );
        });
        (Box::new(sender), step_freed, Box::new(after.expect("ran")))
    }};
}

/// IKNP and KOS roles dropped after the base OTs and before the extension
/// (an abort, a run given up) leave no base-OT key in freed memory: the
/// sender's state holds its chosen keys (and `s`, Delta), the receiver's
/// step derives PRG keys from both keys of every base OT and drops them.
#[test]
fn generated_iknp_and_kos_states_dropped_after_the_base_ots_are_wiped() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    assert!(
        marker_freed(Box::new([mark_block(); 128])),
        "control: keys in a plain box are freed unwiped"
    );
    let (sender, step, receiver) = after_base!(iknp);
    assert!(
        !step,
        "IKNP receiver: base-OT keys freed unwiped in its step"
    );
    assert!(!marker_freed(sender), "IKNP sender state freed unwiped");
    assert!(!marker_freed(receiver), "IKNP receiver state freed unwiped");
    let (sender, step, receiver) = after_base!(kos);
    assert!(
        !step,
        "KOS receiver: base-OT keys freed unwiped in its step"
    );
    assert!(!marker_freed(sender), "KOS sender state freed unwiped");
    assert!(!marker_freed(receiver), "KOS receiver state freed unwiped");
}

/// A Delta-OT sender dropped before its extension (its state holds Delta,
/// the base-OT keys and `s` = Delta's bits) leaves none of them in freed
/// memory.
#[test]
fn generated_delta_ot_sender_state_is_wiped() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let params = delta_iknp::Params::new(1000, 1, 0).expect("params");
    let input = delta_iknp::SenderInput {
        delta: mark_block(),
        base_chosen: vec![mark_block(); 128],
    };
    assert!(marker_freed(Box::new(input.clone())), "control");
    let sender =
        delta_iknp::Sender::new(params, input, Rng::deterministic_for_tests(3)).expect("sender");
    assert!(
        !marker_freed(Box::new(sender)),
        "Delta-OT sender state freed unwiped"
    );
}

/// A scalar whose canonical bytes start with the marker.
fn marked_scalar() -> Scalar {
    let mut b = [0u8; 32];
    b[..16].copy_from_slice(&MARK);
    Scalar::from_canonical_bytes(b).expect("canonical")
}

#[test]
fn orlandi_shares_are_wiped_when_dropped() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let x = vec![marked_scalar(); 3];
    assert!(
        marker_freed(x.clone()),
        "control: a plain Vec is freed unwiped"
    );
    let coms = vec![vec![Point::default(); 3]; 2];
    let s = Shares::new(0, x.clone(), x.clone(), x, coms).expect("shares");
    assert!(!marker_freed(s), "a share batch was freed unwiped");
}

#[test]
fn minimac_shares_and_mac_keys_are_wiped_when_dropped() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let n = 40;
    let mut bytes = vec![0u8; 2 * n];
    bytes[..16].copy_from_slice(&MARK);
    assert!(marker_freed(bytes.clone()), "control");
    let mut alpha = vec![1u8; n];
    alpha[..16].copy_from_slice(&MARK);
    let holder = Holder {
        me: 0,
        parties: 2,
        codes: Codes::get(10, n).expect("codes"),
        alpha: Arc::new(MacKey(alpha)),
    };
    let s = MacShares::new(holder.clone(), false, bytes.clone(), bytes).expect("shares");
    assert!(!marker_freed(s), "a MiniMac batch was freed unwiped");
    // The MAC key share goes with its last holder.
    assert!(!marker_freed(holder), "a MAC key share was freed unwiped");
}

#[test]
fn minimac_preprocessing_is_wiped_when_dropped() {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let params = PrepParams {
        parties: 2,
        k: 10,
        n: 40,
    };
    let mut rng = Rng::deterministic_for_tests(3);
    let mut preps = deal(params, 1, 2, 2, &mut rng).expect("deal");
    let mut p = preps.swap_remove(0);
    p.randoms[..16].copy_from_slice(&MARK);
    p.alpha[..16].copy_from_slice(&MARK);
    assert!(marker_freed(p.randoms.clone()), "control");
    assert!(
        !marker_freed(p),
        "a party's preprocessing was freed unwiped"
    );
}
