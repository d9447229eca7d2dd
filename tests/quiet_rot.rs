//! QuietOT converted to standard random 1-out-of-2 OT (`quiet_bipsw_rot.otp`,
//! `quiet_gar_rot.otp`): the random-OT property of every OT through the
//! common traits over memory and TCP, the choice bits as the weak PRF's
//! outputs (depending on the receiver's secret, not an affine function of
//! the public input), and typed errors for malformed conversion messages.

use ot::runtime::primitives::rng::Rng;
use ot::runtime::quiet::convert::{QuietRotReceiver, QuietRotSender};
use ot::runtime::quiet::{bipsw, gar};
use ot::runtime::transport::channel::{local_pair_tcp, MemoryChannel, TamperChannel};
use ot::runtime::{Bits, Block};
use ot::{quiet_bipsw_rot, quiet_gar_rot, OtExtension, RandomOtReceiver, RandomOtSender};

fn random_bits(m: usize, rng: &mut Rng) -> Bits {
    let v: Vec<bool> = (0..m).map(|_| rng.next_block().0 & 1 == 1).collect();
    Bits::from_bools(&v)
}

/// The random-OT property of every OT: `x_n = y_n[r_n]`, `y_n[0] != y_n[1]`.
fn check_rot(y: &[[Block; 2]], x: &[Block], r: &Bits) {
    assert_eq!(y.len(), r.len());
    assert_eq!(x.len(), r.len());
    for n in 0..r.len() {
        assert_eq!(x[n], y[n][usize::from(r.get(n))], "OT {n}");
        assert_ne!(y[n][0], y[n][1], "OT {n}");
    }
}

/// Runs `m` OTs through `RandomOtSender` / `RandomOtReceiver` of protocol
/// module `$module` (its realizations, each built in its own thread, with
/// IKNP for the setup) on the channel pair `$a`, `$b`.
macro_rules! run_traits {
    ($module:ident, $a:expr, $b:expr, $m:expr) => {{
        let m: usize = $m;
        let choices = random_bits(m, &mut Rng::from_entropy());
        let (a, b) = (&mut $a, &mut $b);
        let (y, x) = std::thread::scope(|sc| {
            let h = sc.spawn(move || {
                let mut rng = Rng::from_entropy();
                let mut subs = |_: &mut Rng| $module::SenderSubs {
                    rot: Box::new(OtExtension::iknp()),
                };
                let mut s = $module::SenderRealization {
                    rng: &mut rng,
                    subs: &mut subs,
                };
                s.send_random(a, m)
            });
            let mut rng = Rng::from_entropy();
            let mut subs = |_: &mut Rng| $module::ReceiverSubs {
                rot: Box::new(OtExtension::iknp()),
            };
            let mut r = $module::ReceiverRealization {
                rng: &mut rng,
                subs: &mut subs,
            };
            let x = r.receive_random(b, &choices);
            (h.join().unwrap(), x)
        });
        check_rot(&y.unwrap(), &x.unwrap(), &choices);
    }};
}

#[test]
fn bipsw_rot_through_traits_over_memory_and_tcp() {
    let (mut a, mut b) = MemoryChannel::pair();
    // Three whole chunks of 4096 OTs and a partial one.
    run_traits!(quiet_bipsw_rot, a, b, 3 * 4096 + 5);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    run_traits!(quiet_bipsw_rot, a, b, 1000);
}

#[test]
fn gar_rot_through_traits_over_memory_and_tcp() {
    let (mut a, mut b) = MemoryChannel::pair();
    // Two whole chunks of 4096 OTs and a partial one.
    run_traits!(quiet_gar_rot, a, b, 2 * 4096 + 3);
    let (mut a, mut b) = local_pair_tcp().unwrap();
    run_traits!(quiet_gar_rot, a, b, 500);
}

/// The dealer's view of a setup of variant `$v` (`bipsw` or `gar`, with
/// `$ots` setup OTs done in the clear): the sender's conversion half and one
/// receiver's per seed of `$zseeds`, all under the same public seed and salt.
macro_rules! dealer {
    ($v:ident, $ots:expr, $m:expr, $zseeds:expr) => {{
        let mut rng = Rng::from_entropy();
        let msgs: Vec<[Block; 2]> = (0..$ots)
            .map(|_| [rng.next_block(), rng.next_block()])
            .collect();
        let delta = $v::delta_blocks(rng.next_block());
        let corr = $v::corrections(&msgs, &delta);
        let pp = $v::public(Block(1), Block(2));
        let sender = $v::sender(&$v::master_key(&msgs), &delta, &pp).rot(0, $m);
        let receivers: Vec<QuietRotReceiver> = $zseeds
            .iter()
            .map(|&zs| {
                let z = $v::choices(zs);
                let chosen: Vec<Block> = (0..msgs.len())
                    .map(|i| msgs[i][usize::from(z.get(i))])
                    .collect();
                let csk = $v::constrained_key(&chosen, &z, &corr);
                $v::receiver(&csk, &z, &pp).rot(0, $m)
            })
            .collect();
        (sender, receivers)
    }};
}

fn bipsw_dealer(m: usize, zseeds: &[Block]) -> (QuietRotSender, Vec<QuietRotReceiver>) {
    dealer!(bipsw, bipsw::SETUP_OTS, m, zseeds)
}

fn gar_dealer(m: usize, zseeds: &[Block]) -> (QuietRotSender, Vec<QuietRotReceiver>) {
    dealer!(gar, gar::KEY_LEN, m, zseeds)
}

/// Before derandomization: `m_{b_n}` of the sender's pair is what the
/// receiver decodes, for each receiver of the same sender.
fn check_random_choice(s: &QuietRotSender, rs: &[QuietRotReceiver]) {
    let (pairs, corr) = (s.messages(), s.corrections());
    for r in rs {
        let (b, x) = (r.choices(), r.chosen(&corr));
        for n in 0..r.len() {
            assert_eq!(x[n], pairs[n][usize::from(b.get(n))], "OT {n}");
        }
    }
}

fn ones(b: &Bits) -> usize {
    (0..b.len()).filter(|&i| b.get(i)).count()
}

/// Two receivers with the same public seed, salt and sender, but different
/// secret `z`, get different (and balanced) choice bits: the choices are
/// not a function of the public inputs alone.
fn check_choices_depend_on_z(rs: &[QuietRotReceiver]) {
    let m = rs[0].len();
    let (b0, b1) = (rs[0].choices(), rs[1].choices());
    let differ = (0..m).filter(|&n| b0.get(n) != b1.get(n)).count();
    for b in [&b0, &b1] {
        let w = ones(b);
        assert!(w > m * 45 / 100 && w < m * 55 / 100, "{w} ones of {m}");
    }
    assert!(
        differ > m * 40 / 100 && differ < m * 60 / 100,
        "{differ} of {m} choices differ"
    );
}

#[test]
fn bipsw_choices_are_secret_dependent() {
    let m = 4000;
    let (s, rs) = bipsw_dealer(m, &[Block(7), Block(8)]);
    check_random_choice(&s, &rs);
    check_choices_depend_on_z(&rs);
}

#[test]
fn gar_choices_are_secret_dependent() {
    let m = 4000;
    let (s, rs) = gar_dealer(m, &[Block(7), Block(8)]);
    check_random_choice(&s, &rs);
    check_choices_depend_on_z(&rs);
}

/// Whether `bits[n] = <w, x_n> + c` (over GF(2)) has a solution `(w, c)`
/// for the 768-bit BIPSW inputs `x_n` (Gaussian elimination).
fn affine_in_inputs(xs: &[[Block; bipsw::INPUT_BLOCKS]], bits: &[bool]) -> bool {
    const COLS: usize = bipsw::KEY_LEN + 1; // 768 input bits and a constant
    const WORDS: usize = COLS / 64 + 1; // ... and the right-hand side
    let mut rows: Vec<[u64; WORDS]> = xs
        .iter()
        .zip(bits)
        .map(|(x, &b)| {
            let mut r = [0u64; WORDS];
            for (i, blk) in x.iter().enumerate() {
                r[2 * i] = blk.0 as u64;
                r[2 * i + 1] = (blk.0 >> 64) as u64;
            }
            r[COLS / 64] |= 1 << (bipsw::KEY_LEN % 64); // the constant
            if b {
                r[COLS / 64] |= 1 << (COLS % 64); // right-hand side
            }
            r
        })
        .collect();
    let bit = |r: &[u64; WORDS], c: usize| r[c / 64] >> (c % 64) & 1 == 1;
    let mut top = 0;
    for col in 0..COLS {
        let Some(p) = (top..rows.len()).find(|&i| bit(&rows[i], col)) else {
            continue;
        };
        rows.swap(top, p);
        let pivot = rows[top];
        for (i, r) in rows.iter_mut().enumerate() {
            if i != top && bit(r, col) {
                for (a, b) in r.iter_mut().zip(&pivot) {
                    *a ^= b;
                }
            }
        }
        top += 1;
    }
    // Inconsistent iff a zero row has right-hand side 1.
    rows[top..].iter().all(|r| !bit(r, COLS))
}

/// The BIPSW choice bit (the weak PRF's rounding of c) is not an affine
/// function of the public input over 1500 OTs, while `c mod 2` (the unsound
/// candidate) is: the test tells the two apart.
#[test]
fn bipsw_choices_are_not_affine_in_public_inputs() {
    let m = 1500;
    let (_, rs) = bipsw_dealer(m, &[Block(9)]);
    let mut xs = vec![[Block::ZERO; bipsw::INPUT_BLOCKS]; m];
    bipsw::inputs(&bipsw::public(Block(1), Block(2)), 0, &mut xs);
    let b = rs[0].choices();
    let b: Vec<bool> = (0..m).map(|n| b.get(n)).collect();
    let parity: Vec<bool> = rs[0].index().iter().map(|c| c % 2 == 1).collect();
    assert!(affine_in_inputs(&xs, &parity), "c mod 2 should be linear");
    assert!(!affine_in_inputs(&xs, &b), "choice bits are affine in x");
}

/// A frame editor of a [`TamperChannel`].
type Edit = Box<dyn FnMut(usize, &mut Vec<u8>) + Send>;

/// Runs a converted session whose `from_sender` (or receiver) frames of
/// length in `len` are truncated by 16 bytes (4 for short frames); returns
/// the error strings of (sender, receiver).
fn truncated_run<S, R>(
    s: S,
    r: R,
    from_sender: bool,
    len: std::ops::Range<usize>,
) -> (String, String)
where
    S: ot::runtime::transport::session::Party + Send,
    R: ot::runtime::transport::session::DualOf<S> + Send,
    S::Error: std::fmt::Debug + Send,
    S::Output: Send,
    R::Error: std::fmt::Debug,
{
    let (a, b) = MemoryChannel::pair();
    let edit = move |_: usize, f: &mut Vec<u8>| {
        if len.contains(&f.len()) {
            let cut = if f.len() > 64 { 16 } else { 1 };
            f.truncate(f.len() - cut);
        }
    };
    let keep = |_: usize, _: &mut Vec<u8>| {};
    let (sa, sb): (Edit, Edit) = if from_sender {
        (Box::new(edit), Box::new(keep))
    } else {
        (Box::new(keep), Box::new(edit))
    };
    let (mut a, mut b) = (TamperChannel::new(a, sa), TamperChannel::new(b, sb));
    // Each side owns its channel, so a party that stops hangs its peer up.
    let (so, ro) = std::thread::scope(|sc| {
        let h = sc.spawn(move || s.run_on(&mut a).err().map(|e| format!("{e:?}")));
        let ro = r.run_on(&mut b).err().map(|e| format!("{e:?}"));
        drop(b);
        (h.join().unwrap(), ro)
    });
    (so.unwrap_or_default(), ro.unwrap_or_default())
}

/// A sender and a receiver (random choices) of protocol module `$module`
/// for `$m` OTs, with IKNP for the setup.
macro_rules! parties {
    ($module:ident, $m:expr) => {{
        let p = $module::Params::new($m).unwrap();
        let iknp = || Box::new(OtExtension::iknp());
        let r = random_bits($m, &mut Rng::from_entropy());
        let s = $module::Sender::new(
            p,
            $module::SenderInput {},
            Rng::from_entropy(),
            $module::SenderSubs { rot: iknp() },
        );
        let r = $module::Receiver::new(
            p,
            $module::ReceiverInput { r },
            Rng::from_entropy(),
            $module::ReceiverSubs { rot: iknp() },
        );
        (s.unwrap(), r.unwrap())
    }};
}

/// A truncated `Convert` message (sender's corrections) and a truncated
/// `Derandomize` message (receiver's flip bits) are typed errors naming the
/// round, not panics.
#[test]
fn truncated_conversion_messages_are_typed_errors() {
    // BIPSW, m = 200: Convert carries 4 · 200 · 16 = 12800 bytes.
    let (s, r) = parties!(quiet_bipsw_rot, 200);
    let (_, re) = truncated_run(s, r, true, 12800..12900);
    assert!(re.contains("onvert"), "{re}");
    // m = 8000: Derandomize carries 1000 bytes.
    let (s, r) = parties!(quiet_bipsw_rot, 8000);
    let (se, _) = truncated_run(s, r, false, 1000..1064);
    assert!(se.contains("erandomize"), "{se}");
    // GAR, m = 100: Convert carries 30 · 100 · 16 = 48000 bytes.
    let (s, r) = parties!(quiet_gar_rot, 100);
    let (_, re) = truncated_run(s, r, true, 48000..48100);
    assert!(re.contains("onvert"), "{re}");
    // BIPSW, m = 4096 + 200: Convert is streamed, its first chunk is one
    // frame of 4 · 4096 · 16 = 262144 bytes.
    let (s, r) = parties!(quiet_bipsw_rot, 4096 + 200);
    let (_, re) = truncated_run(s, r, true, 262144..262145);
    assert!(re.contains("onvert"), "{re}");
}
