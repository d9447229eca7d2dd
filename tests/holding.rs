//! The heap an extern value owns is counted by the memory budget (issue 37
//! item 2): each `holding(bytes)` that `protocols/orlandi_triple.otp`
//! declares is an upper bound of what the runtime function really
//! allocates for its result, measured here with a counting allocator on
//! the largest key size (3072 bits), and `Params::peak_memory` counts it.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use ot::runtime::orlandi::paillier::KeySize;
use ot::runtime::orlandi::prep::{self as prep, TripleKey};
use ot::runtime::primitives::ec::{random_scalar, Scalar};
use ot::runtime::{Block, Rng};
use ot_compiler::ir::TStmt;
use ot_compiler::types::Shape;

/// The system allocator, counting the bytes currently allocated.
struct Counting;

static LIVE: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// The bytes this thread allocated minus those it freed: unlike `LIVE`,
    /// blind to the test harness's own threads (which keep the captured
    /// output of a test that finishes during a measurement).
    static HERE: std::cell::Cell<isize> = const { std::cell::Cell::new(0) };
}

/// Adds `bytes` to this thread's count (not during thread teardown).
fn count_here(bytes: isize) {
    let _ = HERE.try_with(|c| c.set(c.get() + bytes));
}

// SAFETY: every method forwards to the system allocator with the caller's
// arguments unchanged; the counter is only arithmetic on the side.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LIVE.fetch_add(layout.size(), Ordering::SeqCst);
        count_here(layout.size() as isize);
        // SAFETY: the caller's contract is passed on unchanged.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        count_here(-(layout.size() as isize));
        // SAFETY: as above.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new: usize) -> *mut u8 {
        LIVE.fetch_add(new, Ordering::SeqCst);
        LIVE.fetch_sub(layout.size(), Ordering::SeqCst);
        count_here(new as isize - layout.size() as isize);
        // SAFETY: as above.
        unsafe { System.realloc(ptr, layout, new) }
    }
}

#[global_allocator]
static ALLOC: Counting = Counting;

/// Measurements must not overlap (other tests of this binary allocate).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// `f`'s result and the heap bytes it still owns after `f` returned.
fn owned<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.load(Ordering::SeqCst);
    let v = f();
    let after = LIVE.load(Ordering::SeqCst);
    (v, after.saturating_sub(before))
}

/// Like [`owned`], counting only this thread's allocations and frees: for
/// a function that runs on the calling thread alone.
fn owned_here<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = HERE.with(|c| c.get());
    let v = f();
    let after = HERE.with(|c| c.get());
    (v, (after - before).max(0) as usize)
}

/// A shape at the given parameter values.
fn eval(s: &Shape, at: &dyn Fn(&str) -> u128) -> u128 {
    match s {
        Shape::Lit(v) => *v,
        Shape::Param(p) => at(p),
        Shape::Bin(op, a, b) => {
            let (a, b) = (eval(a, at), eval(b, at));
            match op {
                '+' => a + b,
                '-' => a - b,
                '*' => a * b,
                '/' => a / b,
                '<' => a << b,
                _ => a % b,
            }
        }
    }
}

/// The `holding` bound of the value assigned to `name` in
/// `orlandi_triple.otp`, at `(n, m, s, d)`.
fn declared(name: &str, (n, m, s, d): (u128, u128, u128, u128)) -> usize {
    declared_in("protocols/orlandi_triple.otp", name, &|p: &str| match p {
        "n" => n,
        "m" => m,
        "s" => s,
        "d" => d,
        _ => panic!("parameter {p}"),
    })
}

/// The `holding` bound of the value assigned to `name` in `file`, with the
/// parameters `at` gives.
fn declared_in(file: &str, name: &str, at: &dyn Fn(&str) -> u128) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let c = ot_compiler::compile_path(file, root).unwrap_or_else(|f| panic!("{}", f.render()));
    let ir = c.ir.expect("ir");
    let (_, h) = ir
        .heaps
        .iter()
        .find(|(st, _)| matches!(st, TStmt::Assign(x, _) if x == name))
        .unwrap_or_else(|| panic!("no `holding` for `{name}`"));
    let bytes = eval(h.value.as_ref().expect("the value's own"), at);
    usize::try_from(bytes).expect("fits")
}

#[test]
fn orlandi_triple_holdings_bound_what_the_runtime_allocates() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    // Two sizes, so that a bound whose per-triple term is too small fails
    // even when its constant covers the smaller run.
    for m in [3usize, 6] {
        orlandi_triple_holdings_at(m);
    }
}

/// The holdings at (n, m, s, d) = (2, m, 1, 0): two parties, `m`
/// triples, the smallest (s, d).
fn orlandi_triple_holdings_at(m: usize) {
    let mut rng = Rng::deterministic_for_tests(7);
    let at = (2u128, m as u128, 1, 0);
    let (n, s, d) = (2usize, 1usize, 0usize);
    let count = 2 * ((s + 1) * (2 * d + 1) * m);
    let keys: Vec<TripleKey> = (0..n)
        .map(|_| TripleKey::generate_sized(KeySize::Bits3072, &mut rng))
        .collect();
    let pks: Vec<_> = keys.iter().map(prep::public_key).collect();
    let secrets: Vec<Vec<Scalar>> = (0..n)
        .map(|_| (0..6 * count).map(|_| random_scalar(&mut rng)).collect())
        .collect();
    let (mine, heap) = owned(|| {
        (0..n)
            .map(|i| prep::generate(&keys[i], i, &secrets[i], Block::from(i as u128), count))
            .collect::<Vec<_>>()
    });
    let per_party = heap / n;
    let bound = declared("mine", at);
    println!("generate: {per_party} bytes owned, declared {bound}");
    assert!(per_party <= bound, "generate owns {per_party} > {bound}");

    let (peers, heap) = owned(|| prep::peer_keys(&pks));
    let bound = declared("keys", at);
    println!("peer_keys: {heap} bytes owned, declared {bound}");
    assert!(heap <= bound, "peer_keys owns {heap} > {bound}");

    let alphas: Vec<Vec<_>> = mine.iter().map(|g| prep::alphas(g, count)).collect();
    let pairs = (s + 1) * (2 * d + 1) * m;
    let sent: Vec<Vec<Vec<_>>> = (0..n)
        .map(|i| prep::gammas(&peers, &alphas, &mine[i], Block::from(9u128), i, pairs))
        .collect();
    let incoming: Vec<Vec<_>> = (0..n).map(|j| sent[j][0].clone()).collect();
    let rc: Vec<Scalar> = (0..2 * count).map(|_| random_scalar(&mut rng)).collect();
    let (_done, heap) =
        owned(|| prep::products(&mine[0], &keys[0], &incoming, Block::from(9u128), 0, &rc));
    let bound = declared("done", at);
    println!("products: {heap} bytes owned, declared {bound}");
    assert!(heap <= bound, "products owns {heap} > {bound}");
}

/// The budget counts the peer keys' fixed-base tables: a thousand parties'
/// keys (16 MiB each at 3072 bits) exceed it, so `Params::new` refuses the
/// run that would otherwise start and fail on allocation (it was accepted
/// before `holding`: the arrays it counted take a few hundred MB there).
#[test]
fn a_thousand_parties_keys_do_not_fit_the_budget() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (s, d) = ot::runtime::orlandi::level::params_for(1, 40).expect("level");
    if ot::runtime::transport::limits::memory_budget() >= 1024 << 24 {
        return; // a machine with 32 GiB or more holds them
    }
    let err = ot::orlandi_triple::Params::new(1024, 1, s, d, 40).unwrap_err();
    assert!(err.to_string().contains("too large"), "{err}");
    assert!(ot::orlandi_triple::Params::new(3, 1, s, d, 40).is_ok());
}

/// Silent OT's GGM trees (about five times the output) are counted: the
/// declared bound covers what the sender's expansion allocates.
#[test]
fn silent_ot_trees_are_counted() {
    let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let (n, depth) = (1000usize, 4usize);
    let trees = 400;
    let roots: Vec<Block> = (0..trees).map(|i| Block::from(i as u128 + 1)).collect();
    // The expansion runs on this thread alone: count this thread's heap, as
    // the harness's threads allocate (a finished test's captured output)
    // while it runs.
    let (_trees, heap) =
        owned_here(|| ot::runtime::silent::spcot::sender_expand(&roots, depth, Block::from(3u128)));
    let at = |p: &str| match p {
        "n" => n as u128,
        "depth" => depth as u128,
        _ => panic!("parameter {p}"),
    };
    let bound = declared_in("protocols/silent_ot.otp", "trees", &at);
    println!("silent trees: {heap} bytes owned, declared {bound}");
    assert!(heap <= bound, "sender trees own {heap} > {bound}");
    // The trees themselves are 100 KiB: the measurement sees them.
    assert!(heap + 4096 >= (16 * trees) << depth, "{heap}");
}
