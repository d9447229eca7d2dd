//! Secret containers of the runtime wipe their memory before it is freed
//! (issue 15, item 7). A global allocator of this test binary looks, while
//! armed, at every buffer being freed for a marker the test put into a
//! secret; each test checks a control (the same bytes in a plain `Vec`,
//! which is freed unwiped, are seen) and then the secret container (never
//! seen). (GMP allocates with C's allocator, which this one does not see:
//! Paillier keys are not covered here.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use ot::runtime::ec::Point;
use ot::runtime::ec::Scalar;
use ot::runtime::minimac::prep::{deal, PrepParams};
use ot::runtime::minimac::{Codes, Holder, MacKey, Shares as MacShares};
use ot::runtime::orlandi::Shares;
use ot::runtime::rng::Rng;

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
