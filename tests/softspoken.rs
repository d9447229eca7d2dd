//! SoftSpokenOT end to end: the all-but-one OT (wrong index, tampered tree
//! node), random / chosen / correlated OT for every k over memory and TCP
//! channels, Roy's consistency check against receivers that cheat in one
//! row, several rows and the padding, and typed errors for bad `k`.

mod common;

use std::net::TcpListener;
use std::time::Duration;

use common::{choices, run_tampered};
use ot::runtime::primitives::rng::Rng;
use ot::runtime::transport::channel::{Channel, MemoryChannel, TcpChannel};
use ot::runtime::{Bits, Block};
use ot::{
    abo_ot, abo_ot_malicious, softspoken, softspoken_malicious, AboOt, BaseOtKind,
    CorrelatedOtReceiver, CorrelatedOtSender, DeltaOtReceiver, DeltaOtSender, OtExtension,
    OtReceiver, OtSender, RandomOtReceiver, RandomOtSender,
};

/// Runs two closures on two threads over a memory channel.
fn mem<S: Send, R: Send>(
    s: impl FnOnce(&mut dyn Channel) -> S + Send,
    r: impl FnOnce(&mut dyn Channel) -> R + Send,
) -> (S, R) {
    let (mut a, mut b) = MemoryChannel::pair();
    std::thread::scope(|sc| {
        let h = sc.spawn(move || r(&mut b));
        (s(&mut a), h.join().unwrap())
    })
}

/// Runs two closures on two threads over TCP loopback.
fn tcp<S: Send, R: Send>(
    s: impl FnOnce(&mut dyn Channel) -> S + Send,
    r: impl FnOnce(&mut dyn Channel) -> R + Send,
) -> (S, R) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    std::thread::scope(|sc| {
        let h = sc.spawn(move || {
            let mut c = TcpChannel::connect(addr, Duration::from_secs(20)).unwrap();
            r(&mut c)
        });
        let mut a = TcpChannel::accept(&listener, Duration::from_secs(20)).unwrap();
        (s(&mut a), h.join().unwrap())
    })
}

fn ext(k: usize, malicious: bool) -> OtExtension {
    let e = if malicious {
        OtExtension::softspoken_malicious(k)
    } else {
        OtExtension::softspoken(k)
    };
    e.with_semi_honest_base_insecure(BaseOtKind::Co15)
}

/// Random OT through the traits; checks `x_i == y_i[r_i]` and that the two
/// keys of an OT differ.
fn random_ot(k: usize, n: usize, malicious: bool, over_tcp: bool) {
    let r = choices(n);
    let rr = r.clone();
    let s = move |ch: &mut dyn Channel| ext(k, malicious).send_random(ch, n);
    let rc = move |ch: &mut dyn Channel| ext(k, malicious).receive_random(ch, &rr);
    let (y, x) = if over_tcp { tcp(s, rc) } else { mem(s, rc) };
    let (y, x) = (y.unwrap(), x.unwrap());
    assert_eq!((y.len(), x.len()), (n, n));
    for i in 0..n {
        assert_eq!(x[i], y[i][usize::from(r.get(i))], "k {k} n {n} OT {i}");
        assert_ne!(y[i][0], y[i][1]);
    }
}

#[test]
fn softspoken_random_ot_every_k() {
    for k in 1..=8 {
        for n in [1, 200] {
            random_ot(k, n, false, false);
        }
    }
    for k in [1, 2, 4, 8] {
        random_ot(k, 300, true, false);
    }
}

#[test]
fn softspoken_random_ot_sizes_memory() {
    for k in [2, 4, 8] {
        for n in [1, 127, 128, 129, (1 << 16) + 3] {
            random_ot(k, n, false, false);
            random_ot(k, n, true, false);
        }
    }
}

#[test]
fn softspoken_random_ot_tcp() {
    for k in [2, 4, 8] {
        for n in [1, 129, (1 << 16) + 3] {
            random_ot(k, n, false, true);
            random_ot(k, n, true, true);
        }
    }
}

#[test]
fn softspoken_chosen_ot() {
    for (k, malicious) in [(2, false), (5, false), (4, true), (8, true)] {
        let n = 333;
        let msgs: Vec<[Block; 2]> = (0..n as u128).map(|i| [Block(i), Block(!i)]).collect();
        let r = choices(n);
        let (m2, rr) = (msgs.clone(), r.clone());
        let (s, got) = mem(
            move |ch| ext(k, malicious).send(ch, &m2),
            move |ch| ext(k, malicious).receive(ch, &rr),
        );
        s.unwrap();
        let got = got.unwrap();
        for i in 0..n {
            assert_eq!(got[i], msgs[i][usize::from(r.get(i))], "k {k} OT {i}");
        }
    }
}

/// Correlated OT: two batches from one pair, `chosen_i = zeros_i ^ r_i Delta`.
fn delta_ot(k: usize, malicious: bool, sizes: &[usize], over_tcp: bool) {
    let delta = Block(0x0123_4567_89ab_cdef_fedc_ba98_7654_3210);
    let rs: Vec<Bits> = sizes.iter().map(|&n| choices(n)).collect();
    let rr = rs.clone();
    let sz = sizes.to_vec();
    let s = move |ch: &mut dyn Channel| {
        let mut p = if malicious {
            DeltaOtSender::softspoken_malicious(k, delta)
        } else {
            DeltaOtSender::softspoken(k, delta)
        }
        .with_semi_honest_base_insecure(BaseOtKind::Co15);
        sz.iter()
            .map(|&n| p.send_correlated(ch, n).unwrap())
            .collect::<Vec<_>>()
    };
    let rc = move |ch: &mut dyn Channel| {
        let mut p = if malicious {
            DeltaOtReceiver::softspoken_malicious(k)
        } else {
            DeltaOtReceiver::softspoken(k)
        }
        .with_semi_honest_base_insecure(BaseOtKind::Co15);
        rr.iter()
            .map(|r| p.receive_correlated(ch, r).unwrap())
            .collect::<Vec<_>>()
    };
    let (zs, cs) = if over_tcp { tcp(s, rc) } else { mem(s, rc) };
    for (b, r) in rs.iter().enumerate() {
        for i in 0..r.len() {
            let want = if r.get(i) { zs[b][i] ^ delta } else { zs[b][i] };
            assert_eq!(cs[b][i], want, "k {k} batch {b} OT {i}");
        }
    }
    // Different batches expand different streams.
    assert_ne!(zs[0][0], zs[1][0]);
}

#[test]
fn softspoken_correlated_ot() {
    for k in 1..=8 {
        delta_ot(k, false, &[200, 129], false);
    }
    for k in [2, 4, 8] {
        delta_ot(k, true, &[1, (1 << 16) + 3], false);
        delta_ot(k, false, &[127, 128], true);
        delta_ot(k, true, &[129, 1000], true);
    }
}

#[test]
fn bad_k_is_a_typed_error() {
    for k in [0, 9, 100] {
        assert!(matches!(
            softspoken::Params::new(k, 10, 1, false),
            Err(softspoken::Error::Params { .. })
        ));
        assert!(matches!(
            abo_ot::Params::new(4, k),
            Err(abo_ot::Error::Params { .. })
        ));
        let e = OtExtension::softspoken(k)
            .send_random(&mut MemoryChannel::pair().0, 10)
            .unwrap_err();
        assert!(e.to_string().contains("requires"), "{e}");
    }
    // Malicious SoftSpokenOT needs k | 128: `Params::new` refuses k = 3
    // (the roles' own `KDoesNotDivideKappa` check stays as a second line).
    for k in [3, 5, 6, 7] {
        assert!(matches!(
            softspoken_malicious::Params::new(k, 10, 1, false),
            Err(softspoken_malicious::Error::Params { .. })
        ));
    }
    for k in [1, 2, 4, 8] {
        assert!(softspoken_malicious::Params::new(k, 10, 1, false).is_ok());
    }
}

// ---- All-but-one OT ----

fn abo_party(malicious: bool) -> AboOt {
    let p = if malicious {
        AboOt::malicious()
    } else {
        AboOt::semi_honest()
    };
    p.with_semi_honest_base_insecure(BaseOtKind::Co15)
}

#[test]
fn abo_receiver_gets_every_leaf_but_its_index() {
    use ot::{AboOtReceiver, AboOtSender};
    for malicious in [false, true] {
        for k in [1, 3, 8] {
            let alphas: Vec<usize> = (0..5).map(|t| (t * 37 + 1) % (1 << k)).collect();
            let a2 = alphas.clone();
            let (s, r) = mem(
                move |ch| abo_party(malicious).send_abo(ch, 5, k),
                move |ch| abo_party(malicious).receive_abo(ch, 5, k, &a2),
            );
            let (s, r) = (s.unwrap(), r.unwrap());
            assert_eq!(r.alphas(), &alphas[..]);
            let n = 1 << k;
            for (t, &a) in alphas.iter().enumerate() {
                for x in 0..n {
                    let (sv, rv) = (s.leaves()[t * n + x], r.leaves()[t * n + x]);
                    assert_eq!(sv == rv, x != a, "k {k} tree {t} leaf {x}");
                }
            }
        }
    }
}

#[test]
fn abo_wrong_punctured_index_is_a_named_error() {
    let p = abo_ot::Params::new(2, 3).unwrap();
    let (s, r) = mem(
        move |ch| {
            abo_ot::Sender::new(
                p,
                abo_ot::SenderInput {},
                Rng::from_entropy(),
                abo_ot::SenderSubs {
                    base: common::co15_base(),
                },
            )?
            .run(ch)
        },
        move |ch| {
            abo_ot::Receiver::new(
                p,
                abo_ot::ReceiverInput { alphas: vec![1, 8] },
                Rng::from_entropy(),
                abo_ot::ReceiverSubs {
                    base: common::co15_base(),
                },
            )?
            .run(ch)
        },
    );
    assert!(matches!(
        r,
        Err(abo_ot::Error::PuncturedIndexOutOfRange { .. })
    ));
    assert!(s.is_err(), "the sender sees the receiver hang up");
}

/// Runs the malicious all-but-one OT with the sender's frame `frame`
/// tampered by `f` (the sender's frames: 0 = its CO15 base-OT frame,
/// 1 = the masked level sums, 2 = the proof).
fn abo_tampered(
    frame: usize,
    f: impl Fn(&mut Vec<u8>) + Send,
) -> Result<abo_ot_malicious::ReceiverOutput, abo_ot_malicious::Error> {
    let (k, trees) = (4, 3);
    let p = abo_ot_malicious::Params::new(trees, k).unwrap();
    let (r, _s) = run_tampered(
        move |ch| {
            abo_ot_malicious::Receiver::new(
                p,
                abo_ot_malicious::ReceiverInput {
                    alphas: vec![0, 7, 15],
                },
                Rng::from_entropy(),
                abo_ot_malicious::ReceiverSubs {
                    base: common::co15_base(),
                },
            )?
            .run(ch)
        },
        move |ch| {
            abo_ot_malicious::Sender::new(
                p,
                abo_ot_malicious::SenderInput {},
                Rng::from_entropy(),
                abo_ot_malicious::SenderSubs {
                    base: common::co15_base(),
                },
            )?
            .run(ch)
        },
        move |i, msg| {
            if i == frame {
                f(msg)
            }
        },
    );
    r
}

#[test]
fn abo_tampered_tree_node_is_caught_by_the_proof() {
    assert!(abo_tampered(99, |_| {}).is_ok());
    // Every level sum of every tree (both sides: the receiver reads the
    // side off its path only).
    for entry in 0..3 * 4 {
        let r = abo_tampered(1, move |m| {
            m[entry * 32 + 3] ^= 0x10;
            m[entry * 32 + 19] ^= 0x10;
        });
        assert!(
            matches!(r, Err(abo_ot_malicious::Error::AboProofFailed { .. })),
            "entry {entry}: {:?}",
            r.err()
        );
    }
    // A tampered proof (the sum t~ or the digest s^).
    for byte in [20, 16 + 32 * 3 + 5] {
        let r = abo_tampered(2, move |m| m[byte] ^= 1);
        assert!(matches!(
            r,
            Err(abo_ot_malicious::Error::AboProofFailed { .. })
        ));
    }
}

#[test]
fn abo_tampered_tree_salt_is_caught_by_the_proof() {
    // The tree salt (after the 3 · 4 level sums) keys the GGM position
    // tweaks: a receiver given another salt expands other trees, and the
    // sender's proof no longer matches its leaves.
    for byte in [0usize, 15] {
        let r = abo_tampered(1, move |m| m[3 * 4 * 32 + byte] ^= 1);
        assert!(
            matches!(r, Err(abo_ot_malicious::Error::AboProofFailed { .. })),
            "byte {byte}: {:?}",
            r.err()
        );
    }
}

// ---- Roy's consistency check against a cheating receiver ----

/// Padding columns of the malicious variant (`const EXTRA`).
const EXTRA: usize = 128;

/// Runs malicious SoftSpokenOT (k, m) with the receiver's frame `frame`
/// tampered. The receiver's frames: 0 = its CO15 base-OT frame (inside the
/// all-but-one OT), 1 = level sums, 2 = proof, 3 = the corrections.
fn ss_mal_run(
    k: usize,
    m: usize,
    r: Bits,
    tamper: impl FnMut(usize, &mut Vec<u8>) + Send,
) -> (
    Result<softspoken_malicious::SenderOutput, softspoken_malicious::Error>,
    Result<softspoken_malicious::ReceiverOutput, softspoken_malicious::Error>,
) {
    let p = softspoken_malicious::Params::new(k, m, 1, false).unwrap();
    run_tampered(
        |ch| {
            softspoken_malicious::Sender::new(
                p,
                softspoken_malicious::SenderInput {},
                Rng::from_entropy(),
                softspoken_malicious::SenderSubs {
                    abo: Box::new(abo_party(true)),
                },
            )?
            .run(ch)
        },
        |ch| {
            softspoken_malicious::Receiver::new(
                p,
                softspoken_malicious::ReceiverInput { r },
                Rng::from_entropy(),
                softspoken_malicious::ReceiverSubs {
                    abo: Box::new(abo_party(true)),
                },
            )?
            .run(ch)
        },
        tamper,
    )
}

const CORRECTIONS_FRAME: usize = 3;

/// Flips bit `col` of the corrections of each tree in `trees`: the
/// receiver then uses another choice bit for OT `col` in those trees.
fn flip(m: usize, trees: Vec<usize>, col: usize) -> impl FnMut(usize, &mut Vec<u8>) + Send {
    let row_bytes = 16 * (m + EXTRA).div_ceil(128);
    move |i, msg| {
        if i == CORRECTIONS_FRAME {
            for &t in &trees {
                msg[t * row_bytes + col / 8] ^= 1 << (col % 8);
            }
        }
    }
}

fn assert_abort(
    so: Result<softspoken_malicious::SenderOutput, softspoken_malicious::Error>,
    what: &str,
) {
    match so {
        Err(softspoken_malicious::Error::CorrelationCheckFailed { role: "Sender", .. }) => {}
        other => panic!(
            "{what}: expected CorrelationCheckFailed, got {:?}",
            other.err()
        ),
    }
}

#[test]
fn softspoken_check_catches_several_cheating_rows_in_data_and_padding() {
    for k in [2, 4, 8] {
        let trees = 128 / k;
        let m = 500;
        for col in [0usize, 7, m - 1, m, m + EXTRA - 1] {
            // Every tree: k * trees = 128 rows of Q change; the check fails
            // unless all their Delta bits are 0.
            let (so, _) = ss_mal_run(k, m, choices(m), flip(m, (0..trees).collect(), col));
            assert_abort(so, &format!("k={k} col={col}"));
        }
    }
}

/// One cheating tree (its k rows) is caught exactly when the tree's
/// `Delta_t != 0`; for k = 8 that is all but 1/256 of the runs, and a run
/// that passes must give correct outputs.
#[test]
fn softspoken_check_catches_one_cheating_row() {
    for k in [1usize, 2, 8] {
        let m = 300;
        let (mut aborted, mut passed) = (0, 0);
        for run in 0..12 {
            let r = choices(m);
            let (so, ro) = ss_mal_run(k, m, r.clone(), flip(m, vec![run % (128 / k)], 17));
            match so {
                Err(softspoken_malicious::Error::CorrelationCheckFailed { .. }) => aborted += 1,
                Ok(so) => {
                    let x = ro.unwrap().x;
                    for (i, (xi, yi)) in x.iter().zip(&so.y).enumerate() {
                        assert_eq!(*xi, yi[usize::from(r.get(i))], "k {k} run {run} OT {i}");
                    }
                    passed += 1;
                }
                Err(e) => panic!("k {k} run {run}: {e}"),
            }
        }
        assert!(aborted > 0, "k {k}: aborted {aborted}, passed {passed}");
    }
}

#[test]
fn softspoken_malicious_catches_a_tampered_abo_node() {
    let m = 256;
    // Frame 1 of the receiver is the all-but-one OT's level sums.
    let (so, _) = ss_mal_run(4, m, choices(m), |i, msg| {
        if i == 1 {
            msg[40] ^= 4;
            msg[56] ^= 4;
        }
    });
    match so {
        // The call's typed error: the all-but-one OT's own `Error`, boxed
        // in the functionality's `OtError`.
        Err(softspoken_malicious::Error::SubProtocol {
            call: "abo",
            source,
        }) => {
            assert!(
                matches!(
                    source.0.downcast_ref::<abo_ot_malicious::Error>(),
                    Some(abo_ot_malicious::Error::AboProofFailed { .. })
                ),
                "{source}"
            );
        }
        other => panic!("expected the all-but-one OT's abort, got {:?}", other.err()),
    }
}
