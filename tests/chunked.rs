//! A `chunked` round written inline with a small chunk (128 columns), so a
//! few hundred OTs stream as many frames: Delta-OT correlations must still
//! hold, the frame count must match the chunking, and a bad chunk must be a
//! typed error naming the round.

use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::transport::channel::{Channel, MemoryChannel, TamperChannel};
use ot::runtime::{Bits, Block};
use ot::{BaseOt, BaseOtKind};

mod streamed {
    ot::protocol! {
        protocol SmallChunks(role Sender, role Receiver) {
            const KAPPA: usize = 128;
            param m: usize requires m >= 1;
            input  Sender   { delta: Block }
            input  Receiver { r: Bits[m] }
            output Sender   { zeros: [Block; m] }
            output Receiver { chosen: [Block; m] }

            at Sender { s = block_bits(delta); }
            do base: RandomOt[n = KAPPA](Sender = Receiver, Receiver = Sender) with { Receiver.choices = s };
            round extend: Receiver -> Sender : Extend { u: BitMatrix[KAPPA, m] } chunked(by = 128) {
                at Receiver {
                    t = prg_rows(prg_keys([base.messages[j][0] for j in 0..KAPPA]), m, 1);
                    u = xor_prg_choice(t, prg_keys([base.messages[j][1] for j in 0..KAPPA]), r, 1);
                }
            }
            at Sender { zeros = masked_columns(prg_keys(base.chosen), u, s, 1); }
            at Receiver { chosen = transpose_columns(t, 1); }
        }
    }
}

fn parties(
    m: usize,
) -> (
    streamed::Sender<streamed::sender_state::RunBase>,
    streamed::Receiver<streamed::receiver_state::RunBase>,
    Bits,
    Block,
) {
    let p = streamed::Params::new(m).unwrap();
    let delta = Block::sample(&mut Rng::from_entropy());
    let r = Bits::random(&mut Rng::from_entropy(), m);
    let s = streamed::Sender::new(
        p,
        streamed::SenderInput { delta },
        Rng::from_entropy(),
        streamed::SenderSubs {
            base: Box::new(BaseOt::new(BaseOtKind::Co15)),
        },
    )
    .unwrap();
    let rc = streamed::Receiver::new(
        p,
        streamed::ReceiverInput { r: r.clone() },
        Rng::from_entropy(),
        streamed::ReceiverSubs {
            base: Box::new(BaseOt::new(BaseOtKind::Co15)),
        },
    )
    .unwrap();
    (s, rc, r, delta)
}

#[test]
fn many_chunks_keep_the_correlation() {
    for m in [1usize, 128, 129, 1000] {
        let (s, rc, r, delta) = parties(m);
        let (mut a, mut b) = MemoryChannel::pair();
        let (so, ro) = std::thread::scope(|sc| {
            let h = sc.spawn(|| s.run(&mut a));
            let ro = rc.run(&mut b);
            (h.join().unwrap(), ro)
        });
        let (z, t) = (so.unwrap().zeros, ro.unwrap().chosen);
        for i in 0..m {
            assert_eq!(
                t[i],
                if r.get(i) { z[i] ^ delta } else { z[i] },
                "m={m} i={i}"
            );
        }
        // One frame per chunk of 128 columns, plus the CO15 base OT's one
        // frame, plus the session bindings of this protocol and of CO15.
        assert_eq!(b.stats().messages_sent as usize, m.div_ceil(128) + 1 + 2);
        assert_eq!(
            b.stats().bytes_sent as usize,
            // `comm` counts this protocol's binding; the CO15 setup frame is
            // the session salt (16 bytes) and A (32 bytes), after its binding.
            streamed::comm(&streamed::Params::new(m).unwrap()).receiver
                + ot::co15::BINDING_BYTES
                + 48
        );
    }
}

#[test]
fn a_truncated_chunk_is_a_typed_error() {
    let (s, rc, _, _) = parties(1000);
    let (mut a, b) = MemoryChannel::pair();
    // Frame 0 is the base OT; frame 3 is the third chunk of `u`.
    let mut b = TamperChannel::new(b, |i: usize, msg: &mut Vec<u8>| {
        if i == 3 {
            msg.truncate(100);
        }
    });
    let so = std::thread::scope(|sc| {
        let h = sc.spawn(move || rc.run(&mut b));
        let so = s.run(&mut a);
        drop(a);
        let _ = h.join().unwrap();
        so
    });
    assert!(
        matches!(
            so,
            Err(streamed::Error::Length {
                round: "extend",
                expected: 2048,
                got: 100
            })
        ),
        "{so:?}"
    );
}

mod folded {
    // The KOS identity sum chi_i q_i = sum chi_i t_i + (sum_{r_i} chi_i) * Delta,
    // with a seed both parties know up front, so both sums are `Block`
    // reductions computed chunk by chunk inside the stream (Keep::Fold).
    ot::protocol! {
        protocol FoldedSums(role Sender, role Receiver) {
            const KAPPA: usize = 128;
            param m: usize requires m >= 1;
            input  Sender   { delta: Block, seed: Block }
            input  Receiver { r: Bits[m], seed: Block }
            output Sender   { zeros: [Block; m], sum_q: Block }
            output Receiver { chosen: [Block; m], sum_t: Block }

            at Sender { s = block_bits(delta); }
            do base: RandomOt[n = KAPPA](Sender = Receiver, Receiver = Sender) with { Receiver.choices = s };
            round extend: Receiver -> Sender : Extend { u: BitMatrix[KAPPA, m] } chunked(by = 256) {
                at Receiver {
                    t = prg_rows(prg_keys([base.messages[j][0] for j in 0..KAPPA]), m, 1);
                    u = xor_prg_choice(t, prg_keys([base.messages[j][1] for j in 0..KAPPA]), r, 1);
                }
            }
            at Sender {
                zeros = masked_columns(prg_keys(base.chosen), u, s, 1);
                sum_q = gf_inner_seeded(zeros, seed);
            }
            at Receiver {
                chosen = transpose_columns(t, 1);
                sum_t = gf_inner_seeded(chosen, seed);
            }
        }
    }
}

#[test]
fn block_reductions_run_inside_the_stream() {
    use ot::runtime::otext::{gf_masked_sum_seeded, gf_mul};
    for m in [1usize, 300, 1000] {
        let p = folded::Params::new(m).unwrap();
        let delta = Block::sample(&mut Rng::from_entropy());
        let seed = Block::sample(&mut Rng::from_entropy());
        let r = Bits::random(&mut Rng::from_entropy(), m);
        let s = folded::Sender::new(
            p,
            folded::SenderInput { delta, seed },
            Rng::from_entropy(),
            folded::SenderSubs {
                base: Box::new(BaseOt::new(BaseOtKind::Co15)),
            },
        )
        .unwrap();
        let rc = folded::Receiver::new(
            p,
            folded::ReceiverInput { r: r.clone(), seed },
            Rng::from_entropy(),
            folded::ReceiverSubs {
                base: Box::new(BaseOt::new(BaseOtKind::Co15)),
            },
        )
        .unwrap();
        let (so, ro) = ot::runtime::transport::session::run_pair(s, rc);
        let (so, ro) = (so.unwrap(), ro.unwrap());
        // One call of the streamed kernel over the whole of `a`.
        let whole_sum = |a: &[ot::runtime::Block]| {
            let mut acc = ot::runtime::Block::ZERO;
            let span = ot::runtime::Span::whole(a.len());
            ot::runtime::otext::stream::gf_inner_seeded(a, seed, span, &mut acc);
            acc
        };
        // The chunk-by-chunk sums equal the sums over the whole outputs ...
        assert_eq!(so.sum_q, whole_sum(&so.zeros));
        assert_eq!(ro.sum_t, whole_sum(&ro.chosen));
        // ... and satisfy the KOS relation.
        let x = gf_masked_sum_seeded(&r, seed);
        assert_eq!(so.sum_q, ro.sum_t ^ gf_mul(x, delta), "m = {m}");
    }
}

mod whole_calls {
    // Streamed kernels called outside any chunked round: each is one call
    // over the whole width of its result (a matrix, an array, a sum), into
    // a fresh output.
    ot::protocol! {
        protocol WholeCalls(role Sender, role Receiver) {
            const KAPPA: usize = 128;
            param m: usize requires m >= 1;
            input  Sender   { seeds: [Block; KAPPA], seed: Block }
            output Sender   { cols: [Block; m] }
            output Receiver { sum: Block }

            at Sender {
                t = prg_rows(prg_keys(seeds), m, 1);
                cols = transpose_columns(t, 1);
                sum = gf_inner_seeded(cols, seed);
            }
            round done: Sender -> Receiver : Done { sum: Block }
        }
    }
}

/// The generated whole calls equal the kernels run chunk by chunk.
#[test]
fn streamed_kernels_called_whole_outside_a_round() {
    use ot::runtime::otext::stream::{gf_inner_seeded, prg_keys, prg_rows, transpose_columns};
    use ot::runtime::{BitMatrix, Span};
    for m in [1usize, 300, 1000] {
        let seeds: Vec<Block> = (0..128u128).map(|i| Block(i * 77 + 5)).collect();
        let seed = Block(0x5eed);
        let p = whole_calls::Params::new(m).unwrap();
        let s = whole_calls::Sender::new(
            p,
            whole_calls::SenderInput {
                seeds: seeds.clone(),
                seed,
            },
            Rng::from_entropy(),
        )
        .unwrap();
        let r = whole_calls::Receiver::new(p, whole_calls::ReceiverInput {}, Rng::from_entropy())
            .unwrap();
        let (so, ro) = ot::runtime::transport::session::run_pair(s, r);
        let (so, ro) = (so.unwrap(), ro.unwrap());
        // The same values, chunk by chunk (256 columns at a time).
        let keys = prg_keys(&seeds);
        let (mut cols, mut sum, mut t) = (Vec::new(), Block::ZERO, BitMatrix::default());
        for off in (0..m).step_by(256) {
            let span = Span::new(off, 256.min(m - off));
            prg_rows(&keys, m, 1, span, &mut t);
            let mut part = vec![Block::ZERO; span.len];
            transpose_columns(&t, 1, span, &mut part);
            gf_inner_seeded(&part, seed, span, &mut sum);
            cols.extend(part);
        }
        assert_eq!(so.cols, cols, "m = {m}");
        assert_eq!(ro.sum, sum, "m = {m}");
    }
}
