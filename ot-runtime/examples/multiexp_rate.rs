//! Exponentiation methods modulo `n²` for the Orlandi preprocessing's
//! Paillier operations, measured in one run next to a single modular
//! multiplication and squaring of the same size:
//!
//! * products of `k` powers `Π c_i^{b_i}` with 253-bit secret exponents
//!   (Triple Generation's `α^b·α'^{b'}`, `k = 2`; `PublicKey::mul_plain`,
//!   `k = 1`): GMP `powm` per base (variable time, for reference), GMP's
//!   side-channel silent `powm_sec` per base, and the side-channel silent
//!   Straus multi-exponentiation with masked table selection
//!   (`paillier::multi_exp`);
//! * GMP's `powm_sec` against `powm`, for a 253-bit exponent and for the
//!   decryption's half-size exponentiation (`prime − 1` modulo `prime²`);
//! * the short randomizer `h_s^α` (exponent `⌈k/2⌉` bits): GMP `powm` and
//!   `powm_sec` against the silent fixed-base windowed table
//!   (`paillier::FixedBase`) for windows 3 to 8 (multiplications per
//!   exponentiation, table size and build time), the same for the key
//!   owner's CRT halves (half-size moduli), and the key's encryptions
//!   (`PublicKey::encrypt_with_alpha`, `SecretKey::encrypt_with_alpha`);
//! * one CRT decryption.
//!
//! `cargo run --release -p ot-runtime --example multiexp_rate [-- --bits 2048 --secs 0.3]`
//!
//! Under an instruction counter, pass `--secs 0` to run every method once.

// Written for both big-integer backends: GMP's (feature `gmp`) arithmetic
// on references yields incomplete values that `Integer::from` completes.
#![cfg_attr(not(feature = "gmp"), allow(clippy::useless_conversion))]

use std::hint::black_box;
use std::time::Instant;

use ot_runtime::orlandi::paillier::{multi_exp, FixedBase, Integer, KeySize, SecretKey};
use ot_runtime::primitives::rng::Rng;

mod bench_args;
use bench_args::{flag, micros};

fn main() {
    let secs: f64 = flag("--secs").unwrap_or(0.3);
    let size = match flag::<u32>("--bits").unwrap_or(2048) {
        1024 => KeySize::Bits1024,
        3072 => KeySize::Bits3072,
        _ => KeySize::Bits2048,
    };
    let mut rng = Rng::from_entropy();
    let sk = SecretKey::generate(size, &mut rng);
    let pk = sk.public();
    let n2 = pk.n_squared();
    let ct = |rng: &mut Rng| {
        pk.encrypt(&Integer::from(12345u32), rng)
            .map(|(c, _)| c.as_integer().clone())
            .unwrap_or_default()
    };
    let (x, y) = (ct(&mut rng), ct(&mut rng));
    let b253 = |rng: &mut Rng| ot_runtime::orlandi::paillier::random_bits(253, rng);

    println!(
        "Paillier-{}: operations modulo n² ({} bits), microseconds per operation (one thread, this run)",
        size.bits(),
        n2.significant_bits()
    );
    let mul = micros(secs, || {
        black_box(Integer::from(&x * &y) % n2);
    });
    let sqr = micros(secs, || {
        black_box(Integer::from(x.square_ref()) % n2);
    });
    let e = b253(&mut rng);
    let powm = micros(secs, || {
        black_box(x.clone().pow_mod(&e, n2).ok());
    });
    let powm_sec = micros(secs, || {
        black_box(x.clone().secure_pow_mod(&e, n2));
    });
    // The decryption's exponentiation: a half-size modulus p² and the
    // exponent p − 1 (an odd half-size stand-in here: same sizes).
    let half = n2.significant_bits() / 2;
    let p2 = ot_runtime::orlandi::paillier::random_bits(half, &mut rng) | Integer::from(1);
    let pm1 = ot_runtime::orlandi::paillier::random_bits(half / 2, &mut rng);
    let xp = Integer::from(&x % &p2);
    let dec_powm = micros(secs, || {
        black_box(xp.clone().pow_mod(&pm1, &p2).ok());
    });
    let dec_sec = micros(secs, || {
        black_box(xp.clone().secure_pow_mod(&pm1, &p2));
    });
    println!("  modular multiplication (mul + mod)   {mul:>9.2}");
    println!("  modular squaring (sqr + mod)         {sqr:>9.2}");
    println!(
        "  c^b, |b| = 253 (GMP powm)            {powm:>9.2}   = {:.0} multiplications",
        powm / mul
    );
    println!(
        "  c^b, |b| = 253 (GMP powm_sec)        {powm_sec:>9.2}   = {:.2}x powm",
        powm_sec / powm
    );
    println!(
        "  c^(p-1) mod p² (decryption half)     {dec_powm:>9.2}   powm_sec {dec_sec:.2} = {:.2}x",
        dec_sec / dec_powm
    );
    println!();
    println!("Products of k powers, 253-bit secret exponents (Triple Generation's γ: k = 2):");
    println!(
        "  k | naive powm (leaky) | k powm_sec + k-1 mul | Straus (multi_exp) | powm_sec / Straus"
    );
    for k in [1usize, 2, 3, 4] {
        let bases: Vec<Integer> = (0..k).map(|_| ct(&mut rng)).collect();
        let exps: Vec<Integer> = (0..k).map(|_| b253(&mut rng)).collect();
        let product = |sec: bool| {
            bases
                .iter()
                .zip(&exps)
                .fold(Integer::from(1), |acc, (b, e)| {
                    let p = if sec {
                        b.clone().secure_pow_mod(e, n2)
                    } else {
                        b.clone().pow_mod(e, n2).unwrap_or_default()
                    };
                    acc * p % n2
                })
        };
        let straus_f = || multi_exp(&bases, &exps, 253, n2).unwrap_or_default();
        assert_eq!(product(false), straus_f(), "methods agree");
        assert_eq!(product(true), straus_f(), "methods agree");
        let naive = micros(secs, || {
            black_box(product(false));
        });
        let sec = micros(secs, || {
            black_box(product(true));
        });
        let straus = micros(secs, || {
            black_box(straus_f());
        });
        println!(
            "  {k} | {naive:>18.1} | {sec:>20.1} | {straus:>18.1} | {:.2}",
            sec / straus
        );
    }
    println!();
    let bits = pk.randomizer_bits();
    let alpha = ot_runtime::orlandi::paillier::random_bits(bits, &mut rng);
    let h = pk.h_s();
    let powm_r = micros(secs, || {
        black_box(h.clone().pow_mod(&alpha, n2).ok());
    });
    let powm_sec_r = micros(secs, || {
        black_box(h.clone().secure_pow_mod(&alpha, n2));
    });
    println!("Short randomizer h_s^α, |α| = {bits} bits:");
    println!("  GMP powm (leaky)                     {powm_r:>9.2}");
    println!("  GMP powm_sec                         {powm_sec_r:>9.2}");
    println!("  fixed-base window | µs per exp | multiplications | table MB | table build ms");
    for w in 3..=8u32 {
        let t0 = Instant::now();
        let table = FixedBase::new(h, n2, bits, w);
        let build = t0.elapsed().as_secs_f64() * 1e3;
        assert_eq!(
            table.pow(&alpha, n2),
            h.clone().pow_mod(&alpha, n2).unwrap_or_default()
        );
        let fb = micros(secs, || {
            black_box(table.pow(&alpha, n2));
        });
        let mb = table.table_bytes() as f64 / 1e6;
        println!(
            "  {w:>17} | {fb:>10.1} | {:>15} | {mb:>8.1} | {build:>14.0}",
            bits.div_ceil(w)
        );
    }
    // The key owner's CRT halves: two tables modulo half-size moduli (p²
    // and q²; odd half-size stand-ins of the same sizes here), where a
    // multiplication is about 3x cheaper, so the scan weighs more.
    let q2 = ot_runtime::orlandi::paillier::random_bits(half, &mut rng) | Integer::from(1);
    println!("  CRT halves, window | µs per exp (both halves) | table MB (both)");
    for w in 3..=7u32 {
        let tp = FixedBase::new(h, &p2, bits, w);
        let tq = FixedBase::new(h, &q2, bits, w);
        let fb = micros(secs, || {
            black_box(tp.pow(&alpha, &p2));
            black_box(tq.pow(&alpha, &q2));
        });
        let mb = (tp.table_bytes() + tq.table_bytes()) as f64 / 1e6;
        println!("  {w:>18} | {fb:>24.1} | {mb:>15.1}");
    }
    let m = Integer::from(987_654_321u64);
    let enc_pub = micros(secs, || {
        black_box(pk.encrypt_with_alpha(&m, &alpha).ok());
    });
    let enc_crt = micros(secs, || {
        black_box(sk.encrypt_with_alpha(&m, &alpha).ok());
    });
    let c = pk
        .encrypt_with_alpha(&m, &alpha)
        .unwrap_or_else(|_| unreachable!());
    let dec = micros(secs, || {
        black_box(sk.decrypt(&c));
    });
    println!();
    println!(
        "Encryption (1 + m·n)·h_s^α with the key's table (window {}):",
        ot_runtime::orlandi::paillier::FIXED_BASE_WINDOW
    );
    println!("  public key (any party)               {enc_pub:>9.2}");
    println!("  key owner, CRT halves                {enc_crt:>9.2}");
    println!("CRT decryption                         {dec:>9.2}");
}
