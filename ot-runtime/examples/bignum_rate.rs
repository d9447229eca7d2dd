//! The two big-integer backends of Paillier (`ot_runtime::primitives::bignum`) side by
//! side in one run: modular exponentiation modulo an odd modulus of the
//! size of `n²` (4096 bits for Paillier-2048, 6144 for Paillier-3072), GMP
//! (`bignum::gmp`, feature `gmp`) next to `crypto-bigint`'s boxed
//! Montgomery arithmetic (what `bignum::pure`, the default, runs every
//! modular power on) and to `bignum::pure`'s own calls (the same power with
//! its conversions, and a plain multiplication and reduction on
//! `num-bigint`):
//!
//! * a 253-bit exponent (the Orlandi triples' `α^b` and
//!   `PublicKey::mul_plain` with a secret-size exponent): GMP `powm`
//!   (variable time), GMP `powm_sec` (side-channel silent) and
//!   `crypto-bigint`'s constant-time `pow_bounded_exp` (exponent length
//!   public, bits secret), plus the conversion into and out of Montgomery
//!   form that a call site pays unless it keeps values in that form;
//! * a full-size exponent (as long as the modulus): GMP `powm_sec` against
//!   `crypto-bigint`'s `pow`;
//! * one modular multiplication: GMP `a·b mod m`, `bignum::pure`'s, and a
//!   Montgomery multiplication (the window tables' inner step on the pure
//!   backend).
//!
//! `cargo run --release -p ot-runtime --features gmp --example bignum_rate [-- --secs 0.5]`

use std::hint::black_box;

use crypto_bigint::modular::{BoxedMontyForm, BoxedMontyParams};
use crypto_bigint::{BoxedUint, Odd};
use ot_runtime::primitives::bignum::gmp::{Integer, Order};
use ot_runtime::primitives::bignum::pure::{Integer as Pure, Order as PureOrder};
use rand_core::{OsRng, RngCore};

mod bench_args;
use bench_args::{flag, micros};

/// `bits` random bits, little-endian bytes (`bits` a multiple of 8); the
/// top bit set when `top`, the lowest bit set when `odd`.
fn random_le(bits: u32, top: bool, odd: bool) -> Vec<u8> {
    let mut b = vec![0u8; bits as usize / 8];
    OsRng.fill_bytes(&mut b);
    if let Some(last) = b.last_mut() {
        if top {
            *last |= 0x80;
        }
    }
    if let Some(first) = b.first_mut() {
        if odd {
            *first |= 1;
        }
    }
    b
}

/// The same little-endian bytes as a `crypto-bigint` integer of
/// `precision` bits (bytes beyond it are cut, none are here).
fn boxed(le: &[u8], precision: u32) -> BoxedUint {
    BoxedUint::from_le_slice_truncated(le, precision)
}

/// One row of the table: both backends at one modulus size.
fn run(mod_bits: u32, secs: f64) {
    let m_le = random_le(mod_bits, true, true);
    let base_le = random_le(mod_bits - 8, false, false);
    let e253_le = {
        let mut e = random_le(256, false, false);
        if let Some(last) = e.last_mut() {
            *last = (*last & 0x1f) | 0x10;
        }
        e
    };
    let efull_le = random_le(mod_bits, false, false);

    let m = Integer::from_digits(&m_le, Order::Lsf);
    let base = Integer::from_digits(&base_le, Order::Lsf);
    let other = Integer::from(&base + 12345u32);
    let e253 = Integer::from_digits(&e253_le, Order::Lsf);
    let efull = Integer::from_digits(&efull_le, Order::Lsf);

    let Some(odd) = Odd::new(boxed(&m_le, mod_bits)).into_option() else {
        println!("{mod_bits}: modulus not odd (cannot happen)");
        return;
    };
    let params = BoxedMontyParams::new(odd);
    let cb_base = boxed(&base_le, mod_bits);
    let cb_e253 = boxed(&e253_le, 256);
    let cb_efull = boxed(&efull_le, mod_bits);
    let mont = BoxedMontyForm::new(cb_base.clone(), &params);
    let mont_other = BoxedMontyForm::new(boxed(&base_le, mod_bits), &params);

    // Both backends compute the same power (checked once, so the table
    // compares like with like).
    let (pm, pbase, pe253) = (
        Pure::from_digits(&m_le, PureOrder::Lsf),
        Pure::from_digits(&base_le, PureOrder::Lsf),
        Pure::from_digits(&e253_le, PureOrder::Lsf),
    );
    let pother = &pbase + 12345u32;
    let gmp_pow = base.clone().pow_mod(&e253, &m).unwrap_or_default();
    let pure_pow = pbase.clone().secure_pow_mod(&pe253, &pm);
    let cb_pow = mont.pow_bounded_exp(&cb_e253, 253).retrieve();
    let cb_pow_int = Integer::from_digits(&cb_pow.to_le_bytes()[..], Order::Lsf);
    let agree = gmp_pow == cb_pow_int && gmp_pow.to_string() == pure_pow.to_string();

    let g_powm = micros(secs, || {
        black_box(base.clone().pow_mod(&e253, &m).ok());
    });
    let g_sec = micros(secs, || {
        black_box(base.clone().secure_pow_mod(&e253, &m));
    });
    let c_pow = micros(secs, || {
        black_box(mont.pow_bounded_exp(&cb_e253, 253));
    });
    let c_conv = micros(secs, || {
        let x = BoxedMontyForm::new(cb_base.clone(), &params);
        black_box(x.pow_bounded_exp(&cb_e253, 253).retrieve());
    });
    let p_sec = micros(secs, || {
        black_box(pbase.clone().secure_pow_mod(&pe253, &pm));
    });
    let g_full = micros(secs, || {
        black_box(base.clone().secure_pow_mod(&efull, &m));
    });
    let c_full = micros(secs, || {
        black_box(mont.pow(&cb_efull));
    });
    let g_mul = micros(secs.min(0.2), || {
        black_box(Integer::from(&base * &other) % &m);
    });
    let p_mul = micros(secs.min(0.2), || {
        black_box(&pbase * &pother % &pm);
    });
    let c_mul = micros(secs.min(0.2), || {
        black_box(mont.mul(&mont_other));
    });
    println!(
        "{mod_bits:>5} | {g_powm:>9.0} | {g_sec:>9.0} | {c_pow:>9.0} | {c_conv:>9.0} | {p_sec:>9.0} | {g_full:>9.0} | {c_full:>9.0} | {g_mul:>6.2} | {p_mul:>6.2} | {c_mul:>6.2} | {agree}"
    );
}

fn main() {
    let secs: f64 = flag("--secs").unwrap_or(0.5);
    println!("microseconds per operation, one thread, this run");
    println!(
        "mod bits | GMP powm e253 | GMP powm_sec e253 | crypto-bigint pow e253 | same + to/from Montgomery | pure secure_pow_mod e253 | GMP powm_sec full | crypto-bigint pow full | GMP mulmod | pure mulmod | CB montmul | results agree"
    );
    for bits in [4096u32, 6144] {
        run(bits, secs);
    }
}
