//! Secret containers of the runtime, and the states of generated two-party
//! and n-party protocols, wipe their memory before it is freed (issue 15,
//! item 7). A global allocator of this test binary looks, while armed, at
//! every buffer being freed for a marker the test put into a secret (or,
//! for secrets a protocol samples, their bytes replayed from the same
//! deterministic generator: a needle); each test checks a control (the
//! same bytes in a plain `Vec` or `Box`, which is freed unwiped, are seen)
//! and then the secret container (never seen). (Paillier keys are covered
//! on the pure-Rust backend; GMP, feature `gmp`, allocates with C's
//! allocator, which this one does not see. Values on the stack are out of
//! its sight.)

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use ot::runtime::minimac::prep::{deal, PrepParams};
use ot::runtime::minimac::{Codes, Holder, MacKey, Shares as MacShares};
use ot::runtime::orlandi::Shares;
use ot::runtime::primitives::ec::Point;
use ot::runtime::primitives::ec::Scalar;
use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::transport::channel::{Channel, MemoryChannel};
use ot::runtime::{Bits, Block};
use ot::traits::{OtError, RandomOtReceiver, RandomOtSender};
use ot::{beaver_dealer, delta_iknp, iknp, kos, open_to_one, sum_n};

mod common;

/// The marker: 16 bytes unlikely to occur by chance.
const MARK: [u8; 16] = *b"\x9e\x37wipe-markers\x42\x01";

static ARMED: AtomicBool = AtomicBool::new(false);
/// Needles watched for besides the marker: up to `NEEDLES` byte strings of
/// up to `NEEDLE_WORDS` little-endian words each (word `k` of needle `j` at
/// `NEEDLE[j * NEEDLE_WORDS + k]`), with their lengths in words (0: none).
const NEEDLES: usize = 4;
const NEEDLE_WORDS: usize = 2;
static NEEDLE: [AtomicU64; NEEDLES * NEEDLE_WORDS] =
    [const { AtomicU64::new(0) }; NEEDLES * NEEDLE_WORDS];
static NEEDLE_LEN: [AtomicUsize; NEEDLES] = [const { AtomicUsize::new(0) }; NEEDLES];
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
            if block.windows(MARK.len()).any(|w| w == MARK) || holds_needle(block) {
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

/// Whether `block` holds one of the needles (allocates nothing: it runs
/// inside the allocator).
fn holds_needle(block: &[u8]) -> bool {
    (0..NEEDLES).any(|j| {
        let len = NEEDLE_LEN[j].load(Ordering::SeqCst);
        let mut needle = [0u8; 8 * NEEDLE_WORDS];
        for k in 0..len {
            let w = NEEDLE[j * NEEDLE_WORDS + k].load(Ordering::SeqCst);
            needle[8 * k..8 * k + 8].copy_from_slice(&w.to_le_bytes());
        }
        len > 0 && block.windows(8 * len).any(|w| w == &needle[..8 * len])
    })
}

/// Runs `f` with `needles` (each of one or two words, as they lie in
/// memory) watched for besides the marker (until `f` returns or panics).
fn with_needles<T>(needles: &[&[u64]], f: impl FnOnce() -> T) -> T {
    struct Clear;
    impl Drop for Clear {
        fn drop(&mut self) {
            NEEDLE_LEN.iter().for_each(|l| l.store(0, Ordering::SeqCst));
        }
    }
    assert!(needles.len() <= NEEDLES);
    let _clear = Clear;
    for (j, n) in needles.iter().enumerate() {
        assert!((1..=NEEDLE_WORDS).contains(&n.len()));
        for (k, w) in n.iter().enumerate() {
            NEEDLE[j * NEEDLE_WORDS + k].store(*w, Ordering::SeqCst);
        }
        NEEDLE_LEN[j].store(n.len(), Ordering::SeqCst);
    }
    f()
}

/// Runs `f` (a protocol step) and tells whether it freed a buffer holding
/// the marker or a needle; what it returns is kept.
fn freed_during<T>(f: impl FnOnce() -> T) -> (bool, T) {
    SEEN.store(false, Ordering::SeqCst);
    ARMED.store(true, Ordering::SeqCst);
    let out = f();
    ARMED.store(false, Ordering::SeqCst);
    (SEEN.load(Ordering::SeqCst), out)
}

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

/// The session of the n-party runs below.
const SESSION: [u8; 16] = [5; 16];

/// A `u64` secret to look for (its bytes as unlikely as the marker's).
const WORD: u64 = u64::from_le_bytes(*b"\x9e\x37n-wipe");

/// The generators of the n-party tests' parties, made on a scrubbed stack
/// before any secret value is on it: a generator's state is boxed with a
/// copy of stack bytes it leaves unused (the AES key schedule's union),
/// which would otherwise hold stale bytes of whatever ran before on this
/// thread's stack (the marker or a needle of another test, whose thread's
/// stack this one may reuse), freed with the party.
fn rngs<const N: usize>(seeds: [Option<u64>; N]) -> [Rng; N] {
    #[inline(never)]
    fn scrub_stack() {
        std::hint::black_box(&mut [0u8; 1 << 16]);
    }
    scrub_stack();
    seeds.map(|s| s.map_or_else(Rng::from_entropy, Rng::deterministic_for_tests))
}

/// `count` words drawn by a generator: what a generated party given
/// `Rng::deterministic_for_tests(seed)` samples first (`sample u64` and
/// `sample [u64; n]` each draw one word per value).
fn replayed(seed: u64, count: usize) -> Vec<u64> {
    let mut rng = Rng::deterministic_for_tests(seed);
    (0..count).map(|_| u64::sample(&mut rng)).collect()
}

/// A `sum_n` party (n = 2) draws masks to split its input (`masks`, a
/// vector) and drops them once its shares are built: `new` frees them
/// wiped. Its output is held in its last state until `finish`: a party
/// given up there (dropped, say after a failed check of the caller's)
/// leaves it wiped; so does one given up before its first round (its
/// input is in no state: `new` consumed it).
#[test]
fn generated_sum_n_party_wipes_its_masks_and_its_output() -> Result<(), sum_n::Error> {
    use sum_n::msgs::{Partial, Share};
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let [ra, rb] = rngs([Some(11), None]);
    let params = sum_n::Params::new(2)?;
    let masks = replayed(11, 2);
    // masks[0] never leaves party 0 (its share is x - masks[1]); masks[1]
    // is its share for party 1, which checks the replay below.
    let needle = [masks[0], masks[1]];
    let xs = [WORD.wrapping_sub(5), 5];
    let (seen, a) = with_needles(&[&needle], || {
        let (seen, a) =
            freed_during(|| sum_n::P::new(0, params, SESSION, sum_n::PInput { x: xs[0] }, ra));
        assert!(marker_freed(masks.clone()), "control: plain masks are seen");
        (seen, a)
    });
    assert!(!seen, "sum_n: the masks were freed unwiped in `new`");
    let b = sum_n::P::new(1, params, SESSION, sum_n::PInput { x: xs[1] }, rb)?;
    let (sa, a) = a?.send::<Share>()?;
    let (sb, b) = b.send::<Share>()?;
    assert_eq!(sa[0].1.s, masks[1], "the replayed masks are party 0's");
    // Each gets the other's share for it, as `(sender, message)`.
    let (sa, sb) = (
        sa.into_iter().map(|(_, m)| (0, m)),
        sb.into_iter().map(|(_, m)| (1, m)),
    );
    let (a, b) = (a.recv(sb.collect())?, b.recv(sa.collect())?);
    let (pa, a) = a.send::<Partial>()?;
    let (pb, b) = b.send::<Partial>()?;
    let (a, b) = (a.recv(vec![(1, pb)])?, b.recv(vec![(0, pa)])?);
    // Two parties: the broadcast needs no check (empty digests).
    let (da, db) = (a.digests_reveal(), b.digests_reveal());
    let (a, b) = (
        a.check_reveal(vec![(1, db)])?,
        b.check_reveal(vec![(0, da)])?,
    );
    assert_eq!(b.finish()?.sum, WORD, "the sum is the word looked for");
    let sum = [WORD];
    with_needles(&[&sum], || {
        assert!(
            !marker_freed(Box::new(a)),
            "sum_n: the output in the last state was freed unwiped"
        );
        assert!(marker_freed(Box::new(sum)), "control: a plain sum is seen");
    });
    Ok(())
}

/// `open_to_one`: `P[0]`'s own input `secret` (held by `P[0]` only, an
/// `Option`) and every party's input `x` stay in the party's states across
/// rounds: a party given up after its first round leaves neither in freed
/// memory.
#[test]
fn generated_open_to_one_fixed_party_state_is_wiped() -> Result<(), open_to_one::Error> {
    use open_to_one::msgs::Masked;
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let [rng] = rngs([None]);
    let params = open_to_one::Params::new(2)?;
    let secret = [WORD];
    let x = [WORD ^ 0xff];
    let input = open_to_one::PInput {
        secret: Some(secret[0]),
        x: x[0],
    };
    let p0 = open_to_one::P::new(0, params, SESSION, input, rng)?;
    let (_, p0) = p0.send::<Masked>()?;
    with_needles(&[&secret, &x], || {
        assert!(
            !marker_freed(Box::new(p0)),
            "open_to_one: P[0]'s inputs were freed unwiped"
        );
        assert!(
            marker_freed(Box::new(secret)),
            "control: a plain input is seen"
        );
        assert!(marker_freed(Box::new(x)), "control: a plain input is seen");
    });
    Ok(())
}

/// `beaver_dealer`: the dealer draws the triple and the masks that share
/// it (`ma`, `mb`, `mc`, vectors) and drops the masks in `new`, once the
/// shares are dealt out: wiped. A party holds its inputs `x`, `y` until
/// the opening: one given up before the deal leaves them wiped.
#[test]
fn generated_beaver_dealer_wipes_the_triple_masks_and_the_inputs(
) -> Result<(), beaver_dealer::Error> {
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let [rd, rp] = rngs([Some(13), None]);
    let n = 2;
    let params = beaver_dealer::Params::new(n)?;
    // The dealer draws ta, tb, then ma, mb, mc (n words each).
    let words = replayed(13, 2 + 3 * n);
    let (ma, mb, mc) = (&words[2..4], &words[4..6], &words[6..8]);
    let (seen, dealer) = with_needles(&[ma, mb, mc], || {
        let (seen, d) =
            freed_during(|| beaver_dealer::Dealer::new(params, SESSION, Default::default(), rd));
        assert!(marker_freed(mc.to_vec()), "control: plain masks are seen");
        (seen, d)
    });
    assert!(
        !seen,
        "beaver_dealer: the dealer's masks were freed unwiped in `new`"
    );
    // Party 1's shares of the triple are its masks: the replay is right.
    let (deal, _) = dealer?.send_deal()?;
    let t = &deal
        .iter()
        .find(|(j, _)| *j == 1)
        .expect("party 1's triple")
        .1;
    assert_eq!((t.a, t.b, t.c), (ma[1], mb[1], mc[1]));
    let xy = [WORD, !WORD];
    let input = beaver_dealer::PInput { x: xy[0], y: xy[1] };
    let p = beaver_dealer::P::new(0, params, SESSION, input, rp)?;
    with_needles(&[&xy[..1], &xy[1..]], || {
        assert!(
            !marker_freed(Box::new(p)),
            "beaver_dealer: a party's inputs were freed unwiped"
        );
        assert!(marker_freed(Box::new(xy)), "control: plain inputs are seen");
    });
    Ok(())
}

/// An all-but-one OT receiver holds its punctured positions (`alphas`, an
/// array of `usize`: arrays of positions count as secret, unlike a lone
/// size or index) from `new` until its trees are rebuilt: one given up
/// before its base OTs leaves them wiped (SoftSpokenOT's receiver derives
/// its Delta from them, silent OT's receiver its noise).
#[test]
fn generated_abo_receiver_wipes_its_punctured_positions() -> Result<(), ot::abo_ot::Error> {
    use ot::abo_ot;
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let [rng] = rngs([None]);
    // Valid positions for k = 8 (below 2^8) that occur nowhere else.
    let alphas: [usize; 2] = [0xa7, 0x3b];
    let words: [u64; 2] = alphas.map(|a| a as u64);
    let receiver = abo_ot::Receiver::new(
        abo_ot::Params::new(2, 8)?,
        abo_ot::ReceiverInput {
            alphas: alphas.to_vec(),
        },
        rng,
        abo_ot::ReceiverSubs {
            base: Box::new(MarkedBaseOt),
        },
    )?;
    with_needles(&[&words], || {
        assert!(
            !marker_freed(Box::new(receiver)),
            "abo_ot: the receiver's punctured positions were freed unwiped"
        );
        assert!(
            marker_freed(alphas.to_vec()),
            "control: plain positions are seen"
        );
    });
    Ok(())
}

/// The low two limbs of `v`, as they lie in memory.
#[cfg(not(feature = "gmp"))]
fn low_limbs(v: &ot::runtime::orlandi::paillier::Integer) -> [u64; 2] {
    let mut w = [0u64; 2];
    v.clone()
        .keep_bits(128)
        .write_digits(&mut w, ot::runtime::primitives::bignum::Order::Lsf);
    w
}

/// A Paillier secret key wipes its factors (and everything that holds
/// them) when dropped: the low 16 bytes of `p` and of `q` are in no buffer
/// its drop frees. Pure-Rust backend only: GMP's limbs (feature `gmp`)
/// are allocated by C's allocator, which this one does not see.
#[cfg(not(feature = "gmp"))]
#[test]
fn paillier_secret_keys_are_wiped_when_dropped() {
    use ot::runtime::orlandi::paillier::SecretKey;
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let mut rng = Rng::deterministic_for_tests(31);
    let (p, q) = (
        common::blum_prime(512, &mut rng),
        common::blum_prime(512, &mut rng),
    );
    let (p_low, q_low) = (low_limbs(&p), low_limbs(&q));
    // Control: a plain vector holding p's limbs is seen when freed.
    let plain: Vec<u64> = p_low.to_vec();
    let (seen, ()) = with_needles(&[&p_low], || freed_during(|| drop(plain)));
    assert!(seen, "the control must be seen");
    let sk = SecretKey::from_primes(p, q, &mut rng).expect("Blum primes");
    let (c, _) = sk
        .public()
        .encrypt(&7u32.into(), &mut rng)
        .expect("encrypts");
    assert_eq!(sk.decrypt(&c), 7u32);
    let (seen, ()) = with_needles(&[&p_low, &q_low], || freed_during(|| drop(sk)));
    assert!(!seen, "a freed buffer of the secret key still holds p or q");
}

/// A role gives the buffers of dead secret arrays (KOS's columns `q`,
/// its receiver's transposed `t`) back to its scratch without wiping them
/// on the protocol's path (`Scratch::put_secret`): the next run overwrites
/// them, and dropping the scratch (with the output that carries it) wipes
/// them. A reuse for a shorter array wipes the tail it will not overwrite.
#[test]
fn secret_scratch_buffers_are_wiped_when_the_scratch_is_dropped() {
    use ot::runtime::transport::session::Scratch;
    let _g = SERIAL.lock().unwrap_or_else(|p| p.into_inner());
    let mut plain = Scratch::default();
    plain.put("q", vec![mark_block(); 64]);
    assert!(
        marker_freed(plain),
        "control: a plain buffer is freed as it is"
    );
    let mut secret = Scratch::default();
    secret.put_secret("q", vec![mark_block(); 64]);
    assert!(
        !marker_freed(secret),
        "a secret scratch buffer was freed unwiped"
    );
    let mut reused = Scratch::default();
    reused.put_secret("q", vec![mark_block(); 64]);
    let mut q = reused.take_secret::<Block>("q", 16);
    // The caller overwrites what it uses, then the buffer goes.
    q.iter_mut().take(16).for_each(|b| *b = Block::ZERO);
    assert!(
        !marker_freed(q),
        "the tail of a reused secret buffer was not wiped"
    );
}
