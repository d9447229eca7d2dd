//! The seed-style protocol table: OT-extension protocols (each generated
//! from its `.otp`) for n = 2^20 and 2^24 OTs, one thread per party, with
//! the AES (TCCR) hash (and on request the SHA-1 random oracle), printing
//! time, OTs/s, bytes per OT (checked against the specification's
//! `comm()`), and the ratio of OTs/s to the runtime's raw fixed-key AES
//! blocks/s measured in the same run. Below each n's table, for its
//! malicious rows: the time per OT of the consistency check's kernels
//! alone (one thread per side, on buffers of the row's shape), against
//! the GF(2^128) multiply-adds the check needs at the rate measured in the
//! same run, and as a share of the row's time (`common/checks.rs`).
//!
//! By default it runs the rows of the seed's table (libOTe's README: IKNP,
//! KOS, Delta-IKNP, Delta-KOS, KKRT, OOS) plus SoftSpokenOT with k = 2 and
//! chosen-message IKNP and KOS, best of two runs after a warm-up, AES hash
//! only: about a minute on two cores. A progress line per row goes to
//! standard error as the table is measured.
//!
//! ```text
//! cargo run --release --example ot_table                 # the seed's rows, two threads, in-memory channel
//! cargo run --release --example ot_table -- --all        # every row below (QuietOT, silent OT, RR16, ... : minutes)
//! cargo run --release --example ot_table -- --reps 4     # best of 4 runs (default 2), as the peers' best of 3-4
//! cargo run --release --example ot_table -- --sha1       # also the SHA-1 random-oracle column (about doubles the time)
//! cargo run --release --example ot_table -- --tcp        # two processes, TCP loopback
//! cargo run --release --example ot_table -- --log-n 20   # only n = 2^20
//! cargo run --release --example ot_table -- --threads 2  # kernels split over 2 cores per party
//! cargo run --release --example ot_table -- --base co15  # every row over CO15 base OTs (default: CO15 passive, MR19 malicious)
//! cargo run --release --example ot_table -- --only kos   # some protocols, comma-separated (iknp, kos, deltaiknp, deltakos, iknpchosen, koschosen,
//!                                                        # ss2/ss4/ss8, ssmal2.., deltass2.., deltassmal2..: SoftSpokenOT with k = 2, 4, 8; kkrt, oos, rr16;
//!                                                        # quietbipsw, quietgar: QuietOT's 1-out-of-6 / 1-out-of-32 bit OTs (PCF output);
//!                                                        # quietbipswrot, quietgarrot: converted to 1-out-of-2 random OTs of blocks;
//!                                                        # silentot: silent random COT (GGM trees over IKNP random OTs, EA code);
//!                                                        # iknpext, kosext: one extension of a session set up before the clock;
//!                                                        # kkrtext, oosext: the same for KKRT / OOS sessions)
//! cargo run --release --example ot_table -- --no-sha1    # no SHA-1 column (the default; wins over --sha1)
//! ```
//! Every row is measured in fresh processes (a `--measure` child runs the
//! sender; over TCP it starts the receiver as a second process), so no
//! measurement inherits the memory or threads of an earlier one. Times are
//! the sender's wall clock from `new` (base OTs included) to its output. Output buffers are allocated before the clock starts: after a
//! warm-up run, each run is handed the previous run's outputs
//! (`reuse_outputs`) and writes into them. Best of `--reps` runs (default 2).

use ot::runtime::oprf::code::LinearCode;
use ot::runtime::primitives::rng::{Rng, Sample};
use ot::runtime::silent::params::depth_for;
use ot::runtime::transport::channel::{Channel, MemoryChannel, TcpChannel};
use ot::runtime::{Bits, Block};
use ot::{
    delta_iknp, delta_kos, delta_softspoken, delta_softspoken_base, delta_softspoken_malicious,
    iknp, iknp_chosen, iknp_extend, iknp_setup, kkrt, kos, kos_chosen, kos_extend, oos,
    quiet_bipsw, quiet_bipsw_rot, quiet_gar, quiet_gar_rot, rr16, silent_ot, softspoken,
    softspoken_malicious, AboOt, BaseOt, BaseOtKind, OtExtension,
};
use std::net::TcpListener;
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

#[path = "common/rates.rs"]
mod rates;
use rates::{aes_blocks_per_second, gf128_mul_adds_per_second};

#[path = "common/checks.rs"]
mod checks;
use checks::Check;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Proto {
    Iknp,
    Kos,
    DeltaIknp,
    DeltaKos,
    IknpChosen,
    KosChosen,
    /// SoftSpokenOT random OT with depth k (`softspoken.otp`).
    Ss(usize),
    /// Malicious SoftSpokenOT random OT (`softspoken_malicious.otp`).
    SsMal(usize),
    /// SoftSpokenOT Delta-OT (`delta_softspoken.otp`).
    DeltaSs(usize),
    /// Malicious SoftSpokenOT Delta-OT (`delta_softspoken_malicious.otp`).
    DeltaSsMal(usize),
    // ---- 1-out-of-N OT (kkrt.otp, oos.otp) ----
    Kkrt,
    Oos,
    /// Approximate K-out-of-N OT (`rr16.otp`), K = N/2, over KOS.
    Rr16,
    // ---- Setup once, extend many times (iknp_setup.otp, then
    // iknp_extend.otp / kos_extend.otp): one extension timed ----
    IknpExt,
    KosExt,
    // ---- the same for KKRT / OOS sessions (kkrt_setup.otp, then
    // kkrt_extend.otp / oos_extend.otp) ----
    KkrtExt,
    OosExt,
    // ---- QuietOT (quiet_*.otp): setup over IKNP, local expansion ----
    /// Random 1-out-of-6 OTs of bits (`quiet_bipsw.otp`, no conversion).
    QuietBipsw,
    /// Random 1-out-of-32 OTs of bits (`quiet_gar.otp`, no conversion).
    QuietGar,
    /// Random 1-out-of-2 OTs of blocks (`quiet_bipsw_rot.otp`).
    QuietBipswRot,
    /// Random 1-out-of-2 OTs of blocks (`quiet_gar_rot.otp`).
    QuietGarRot,
    /// Silent random COT (`silent_ot.otp`): trees over IKNP random OTs, EA compression.
    SilentOt,
    /// Ferret silent random COT (`ferret_extend.otp`, `ot::FerretSender`):
    /// a set-up over SoftSpokenOT k = 8, then main batches of 10,198,341
    /// COTs.
    Ferret,
    /// The same with Ferret's consistency check
    /// (`ferret_extend_malicious.otp`, set-up over malicious SoftSpokenOT
    /// k = 8).
    FerretMal,
    /// Random 1-out-of-2 OTs from Ferret's COTs (`OtExtension::silent()`:
    /// a one-shot session, then `cot_random_ot.otp`, the receiver's flips
    /// and the TCCR hash).
    FerretRot,
    /// The same over the malicious variant (`OtExtension::silent_malicious()`).
    FerretRotMal,
}

const ALL: [Proto; 34] = [
    Proto::Iknp,
    Proto::Kos,
    Proto::DeltaIknp,
    Proto::DeltaKos,
    Proto::IknpChosen,
    Proto::KosChosen,
    Proto::Ss(2),
    Proto::Ss(4),
    Proto::Ss(8),
    Proto::SsMal(2),
    Proto::SsMal(4),
    Proto::SsMal(8),
    Proto::DeltaSs(2),
    Proto::DeltaSs(4),
    Proto::DeltaSs(8),
    Proto::DeltaSsMal(2),
    Proto::DeltaSsMal(4),
    Proto::DeltaSsMal(8),
    // ---- 1-out-of-N OT ----
    Proto::Kkrt,
    Proto::Oos,
    Proto::Rr16,
    // ---- setup once, extend many times ----
    Proto::IknpExt,
    Proto::KosExt,
    Proto::KkrtExt,
    Proto::OosExt,
    // ---- QuietOT ----
    Proto::QuietBipsw,
    Proto::QuietGar,
    Proto::QuietBipswRot,
    Proto::QuietGarRot,
    // ---- silent OT ----
    Proto::SilentOt,
    Proto::Ferret,
    Proto::FerretMal,
    Proto::FerretRot,
    Proto::FerretRotMal,
];

/// The rows measured without `--all` or `--only`: those of the seed's
/// table (IKNP, KOS, Delta-IKNP, Delta-KOS, KKRT, OOS) plus SoftSpokenOT
/// with k = 2, chosen-message OT and Ferret (random COT and random OT,
/// semi-honest and malicious), in [`ALL`]'s order.
const DEFAULT: [Proto; 13] = [
    Proto::Iknp,
    Proto::Kos,
    Proto::DeltaIknp,
    Proto::DeltaKos,
    Proto::IknpChosen,
    Proto::KosChosen,
    Proto::Ss(2),
    Proto::Kkrt,
    Proto::Oos,
    Proto::Ferret,
    Proto::FerretMal,
    Proto::FerretRot,
    Proto::FerretRotMal,
];

impl Proto {
    /// The row's type and protocol columns (its security column is read
    /// from the registry: [`Proto::security`]).
    fn row(self) -> (&'static str, &'static str) {
        match self {
            Proto::Iknp => ("1-out-of-2 random OT", "IKNP03"),
            Proto::Kos => ("1-out-of-2 random OT", "KOS15"),
            Proto::DeltaIknp => ("1-out-of-2 Delta-OT", "IKNP03"),
            Proto::DeltaKos => ("1-out-of-2 Delta-OT", "KOS15"),
            Proto::IknpChosen => ("1-out-of-2 chosen OT", "IKNP03"),
            Proto::KosChosen => ("1-out-of-2 chosen OT", "KOS15"),
            Proto::Ss(_) => ("1-out-of-2 random OT", "SoftSpoken"),
            Proto::SsMal(_) => ("1-out-of-2 random OT", "SoftSpoken"),
            Proto::DeltaSs(_) => ("1-out-of-2 Delta-OT", "SoftSpoken"),
            Proto::DeltaSsMal(_) => ("1-out-of-2 Delta-OT", "SoftSpoken"),
            // ---- 1-out-of-N OT ----
            Proto::Kkrt => ("1-out-of-2^128 OPRF", "KKRT16"),
            Proto::Oos => ("1-out-of-2^76 OT", "OOS17"),
            Proto::Rr16 => ("approx. N/2-out-of-N OT", "RR16"),
            // ---- one extension of a session set up before the clock ----
            Proto::IknpExt => ("extend after setup", "IKNP03"),
            Proto::KosExt => ("extend after setup", "KOS15"),
            Proto::KkrtExt => ("OPRF, extend", "KKRT16"),
            Proto::OosExt => ("1-of-2^76 OT, extend", "OOS17"),
            // ---- QuietOT: one output = one OT of the kind in the first column
            // (the bit-OT rows are the PCF output, no conversion) ----
            Proto::QuietBipsw => ("1-out-of-6 bit OT", "QuietOT-BIPSW"),
            Proto::QuietGar => ("1-out-of-32 bit OT", "QuietOT-GAR"),
            Proto::QuietBipswRot => ("1-out-of-2 random OT", "QuietOT-BIPSW"),
            Proto::QuietGarRot => ("1-out-of-2 random OT", "QuietOT-GAR"),
            Proto::SilentOt => ("1-out-of-2 random COT", "SilentOT-EA"),
            Proto::Ferret => ("1-out-of-2 random COT", "Ferret (YWLZW20)"),
            Proto::FerretMal => ("1-out-of-2 random COT", "Ferret (YWLZW20)"),
            Proto::FerretRot => ("1-out-of-2 random OT", "Ferret (YWLZW20)"),
            Proto::FerretRotMal => ("1-out-of-2 random OT", "Ferret (YWLZW20)"),
        }
    }
    /// The `.otp` file (module of `ot`) the row measures; for a row that
    /// measures a composition, the one whose security label is the row's
    /// (the Ferret random-OT rows: the COTs `cot_random_ot.otp` consumes).
    fn otp(self) -> &'static str {
        match self {
            Proto::Iknp => "iknp",
            Proto::Kos => "kos",
            Proto::DeltaIknp => "delta_iknp",
            Proto::DeltaKos => "delta_kos",
            Proto::IknpChosen => "iknp_chosen",
            Proto::KosChosen => "kos_chosen",
            Proto::Ss(_) => "softspoken",
            Proto::SsMal(_) => "softspoken_malicious",
            Proto::DeltaSs(_) => "delta_softspoken",
            Proto::DeltaSsMal(_) => "delta_softspoken_malicious",
            Proto::Kkrt => "kkrt",
            Proto::Oos => "oos",
            Proto::Rr16 => "rr16",
            Proto::IknpExt => "iknp_extend",
            Proto::KosExt => "kos_extend",
            Proto::KkrtExt => "kkrt_extend",
            Proto::OosExt => "oos_extend",
            Proto::QuietBipsw => "quiet_bipsw",
            Proto::QuietGar => "quiet_gar",
            Proto::QuietBipswRot => "quiet_bipsw_rot",
            Proto::QuietGarRot => "quiet_gar_rot",
            Proto::SilentOt => "silent_ot",
            Proto::Ferret | Proto::FerretRot => "ferret_extend",
            Proto::FerretMal | Proto::FerretRotMal => "ferret_extend_malicious",
        }
    }
    /// The security column: "malicious" if the registry's label of
    /// [`Proto::otp`] claims malicious security, else "passive".
    fn security(self) -> &'static str {
        if self.malicious() {
            "malicious"
        } else {
            "passive"
        }
    }
    /// Whether the row has a SHA-1 random-oracle variant.
    fn has_sha1(self) -> bool {
        self.hashed() && !matches!(self, Proto::Rr16) && !self.quiet() && !self.ferret()
    }
    /// Whether this is a Ferret row (its conversion hashes with the TCCR
    /// only: no SHA-1 variant).
    fn ferret(self) -> bool {
        matches!(
            self,
            Proto::Ferret | Proto::FerretMal | Proto::FerretRot | Proto::FerretRotMal
        )
    }
    /// Whether this is a QuietOT row.
    fn quiet(self) -> bool {
        matches!(
            self,
            Proto::QuietBipsw | Proto::QuietGar | Proto::QuietBipswRot | Proto::QuietGarRot
        )
    }
    /// The largest n measured: the conversion hashes every candidate (6
    /// resp. 32 per OT) besides the base bit OTs, so 2^24 OTs would take
    /// minutes per repetition of the main table (memory is not the limit:
    /// the corrections are streamed in chunks of 4096 OTs).
    fn max_log_n(self) -> usize {
        match self {
            Proto::QuietBipswRot | Proto::QuietGarRot => 20,
            _ => usize::MAX,
        }
    }
    /// The name `--only` matches (`iknp`, ..., `ss2`, `ssmal4`, `deltass8`).
    fn name(self) -> String {
        match self {
            Proto::Ss(k) => format!("ss{k}"),
            Proto::SsMal(k) => format!("ssmal{k}"),
            Proto::DeltaSs(k) => format!("deltass{k}"),
            Proto::DeltaSsMal(k) => format!("deltassmal{k}"),
            other => format!("{other:?}").to_lowercase(),
        }
    }
    /// SoftSpokenOT's depth, if this is a SoftSpokenOT row.
    fn softspoken_k(self) -> Option<usize> {
        match self {
            Proto::Ss(k) | Proto::SsMal(k) | Proto::DeltaSs(k) | Proto::DeltaSsMal(k) => Some(k),
            _ => None,
        }
    }
    /// Whether the registry labels the row's protocol malicious (it then
    /// runs over the malicious base OT).
    fn malicious(self) -> bool {
        ot::registry::find(self.otp())
            .unwrap_or_else(|| panic!("{}.otp is not in ot::registry", self.otp()))
            .malicious()
    }
    fn hashed(self) -> bool {
        !matches!(
            self,
            Proto::DeltaIknp
                | Proto::DeltaKos
                | Proto::DeltaSs(_)
                | Proto::DeltaSsMal(_)
                | Proto::SilentOt
                | Proto::Ferret
                | Proto::FerretMal
        )
    }
    fn index(self) -> usize {
        ALL.iter().position(|p| *p == self).unwrap_or(0)
    }
}

/// Environment variable through which `--base NAME` reaches the measuring
/// child processes.
const BASE_ENV: &str = "OT_TABLE_BASE";

/// The base OT of a row: `--base` if given, else the default base OT of
/// the row's security level (CO15 passive, MR19 malicious).
fn base_kind(malicious: bool) -> BaseOtKind {
    match std::env::var(BASE_ENV).as_deref() {
        Ok("co15") => BaseOtKind::Co15,
        Ok("np00") => BaseOtKind::Np00,
        Ok("mr19") => BaseOtKind::Mr19,
        _ => BaseOtKind::default_for(malicious),
    }
}

/// The base-OT party of a row.
/// The all-but-one-OT party of a SoftSpokenOT row (Fig. 14 proof when
/// malicious) over the row's base OT.
fn abo(malicious: bool) -> Box<AboOt> {
    let p = if malicious {
        AboOt::malicious()
    } else {
        AboOt::semi_honest()
    };
    Box::new(p.with_semi_honest_base_insecure(base_kind(malicious)))
}

fn base(malicious: bool) -> Box<BaseOt> {
    Box::new(BaseOt::new(base_kind(malicious)))
}

/// Runs one role of protocol module `$m` `reps + 1` times on `ch` (see
/// [`run_role`]): the sender's time runs from `new` to its output and
/// `$after(&output)` (e.g. the OPRF evaluations of a 1-out-of-N row);
/// `$sub = $party` builds each run's sub-protocol party. Evaluates to the
/// spec's bytes (Sender, Receiver).
macro_rules! timed_runs {
    ($m:ident, $params:expr, $sin:expr, $rin:expr, $sub:ident = $party:expr, $sender:expr, $reps:expr, $ch:expr, $times:expr, |$out:ident| $after:expr) => {{
        let params = $params;
        let c = $m::comm(&params);
        if $sender {
            let mut previous = None;
            for rep in 0..=$reps {
                let input = $sin;
                let subs = $m::SenderSubs { $sub: $party };
                let t = Instant::now();
                let mut role = $m::Sender::new(params, input, Rng::from_entropy(), subs)?;
                if let Some(out) = previous.take() {
                    role = role.reuse_outputs(out);
                }
                let $out = role.run($ch)?;
                std::hint::black_box($after);
                if rep > 0 {
                    $times.push(t.elapsed());
                }
                previous = Some($out);
            }
        } else {
            let mut previous = None;
            for _ in 0..=$reps {
                let input = $rin;
                let subs = $m::ReceiverSubs { $sub: $party };
                let mut role = $m::Receiver::new(params, input, Rng::from_entropy(), subs)?;
                if let Some(out) = previous.take() {
                    role = role.reuse_outputs(out);
                }
                previous = Some(role.run($ch)?);
            }
        }
        (c.sender, c.receiver)
    }};
}

/// The settings one role of a row runs with: `n` OTs, the hash (SHA-1 or
/// fixed-key AES), worker threads, which side, and the timed repetitions
/// after the warm-up.
#[derive(Clone, Copy)]
struct RoleRun {
    n: usize,
    sha1: bool,
    threads: usize,
    sender: bool,
    reps: usize,
}

/// Runs one role `reps + 1` times on the same channel: a warm-up run, then
/// `reps` timed runs, each handed the previous run's outputs so that it
/// writes into buffers allocated before its clock starts. Returns the bytes
/// the spec says Sender and Receiver send, and the timed durations (from
/// `new`, which checks the inputs, to the outputs).
fn run_role(
    p: Proto,
    n: usize,
    sha1: bool,
    threads: usize,
    sender: bool,
    reps: usize,
    ch: &mut dyn Channel,
) -> Res<((usize, usize), Vec<Duration>)> {
    let run = RoleRun {
        n,
        sha1,
        threads,
        sender,
        reps,
    };
    let mut rng = Rng::from_entropy();
    let mut times = vec![];
    macro_rules! go {
        ($m:ident, $params:expr, $sin:expr, $rin:expr) => {
            go!($m, $params, $sin, $rin, base = base(p.malicious()))
        };
        ($m:ident, $params:expr, $sin:expr, $rin:expr, $sub:ident = $party:expr) => {
            timed_runs!(
                $m,
                $params,
                $sin,
                $rin,
                $sub = $party,
                sender,
                reps,
                ch,
                times,
                |_out| ()
            )
        };
    }
    // A QuietOT row: setup over IKNP, then the expansion (and conversion).
    macro_rules! quiet {
        ($m:ident, { $($rin:tt)* }) => {
            go!(
                $m,
                $m::Params::new(n)?,
                $m::SenderInput {},
                $m::ReceiverInput { $($rin)* },
                rot = Box::new(OtExtension::iknp())
            )
        };
    }
    let r = if sender {
        Bits::zeros(0)
    } else {
        Bits::random(&mut rng, n)
    };
    let delta = Block::sample(&mut rng);
    let spec = match p {
        Proto::Iknp => go!(
            iknp,
            iknp::Params::new(n, threads, sha1)?,
            iknp::SenderInput {},
            iknp::ReceiverInput { r: r.clone() }
        ),
        Proto::Kos => go!(
            kos,
            kos::Params::new(n, threads, sha1)?,
            kos::SenderInput {},
            kos::ReceiverInput { r: r.clone() }
        ),
        Proto::DeltaIknp | Proto::DeltaKos => {
            return run_delta_role(p == Proto::DeltaKos, run, ch, r, delta)
        }
        Proto::Kkrt | Proto::Oos => {
            return run_one_of_n_role(p, n, sha1, threads, sender, reps, ch)
        }
        Proto::IknpExt | Proto::KosExt => return run_ext_role(p.malicious(), run, ch, &r),
        Proto::Ferret | Proto::FerretMal => {
            return run_ferret_role(p.malicious(), n, sender, reps, ch)
        }
        Proto::FerretRot | Proto::FerretRotMal => {
            return run_ferret_rot_role(p.malicious(), n, sender, reps, ch, &r)
        }
        Proto::KkrtExt | Proto::OosExt => {
            return run_oprf_ext_role(p.malicious(), n, sha1, threads, sender, reps, ch)
        }
        Proto::Rr16 => {
            let (params, _) = rr16_params(n)?;
            let choices = if sender {
                Bits::zeros(0)
            } else {
                let mut c = Bits::zeros(n);
                for j in (0..n).step_by(2) {
                    c.set(j, true);
                }
                c
            };
            go!(
                rr16,
                params,
                rr16::SenderInput {},
                rr16::ReceiverInput {
                    choices: choices.clone()
                },
                ots = one_of_n_base(true)
            )
        }
        Proto::QuietBipsw => quiet!(quiet_bipsw, {}),
        Proto::QuietGar => quiet!(quiet_gar, {}),
        Proto::QuietBipswRot => quiet!(quiet_bipsw_rot, { r: r.clone() }),
        Proto::QuietGarRot => quiet!(quiet_gar_rot, { r: r.clone() }),
        Proto::SilentOt => go!(
            silent_ot,
            silent_ot::Params::new(n, depth_for(n).ok_or("n too large for silent OT")?)?,
            silent_ot::SenderInput {},
            silent_ot::ReceiverInput {},
            base = Box::new(OtExtension::iknp())
        ),
        Proto::Ss(k) => go!(
            softspoken,
            softspoken::Params::new(k, n, threads, sha1)?,
            softspoken::SenderInput {},
            softspoken::ReceiverInput { r: r.clone() },
            abo = abo(false)
        ),
        Proto::SsMal(k) => go!(
            softspoken_malicious,
            softspoken_malicious::Params::new(k, n, threads, sha1)?,
            softspoken_malicious::SenderInput {},
            softspoken_malicious::ReceiverInput { r: r.clone() },
            abo = abo(true)
        ),
        Proto::DeltaSs(k) | Proto::DeltaSsMal(k) => {
            let malicious = p.malicious();
            return run_delta_ss_role(malicious, k, run, ch, r, delta);
        }
        Proto::IknpChosen | Proto::KosChosen => {
            let payload: Vec<[Block; 2]> = if sender {
                (0..n)
                    .map(|i| [Block::from(i as u128), Block::from(!(i as u128))])
                    .collect()
            } else {
                vec![]
            };
            if p == Proto::KosChosen {
                go!(
                    kos_chosen,
                    kos_chosen::Params::new(n, threads, sha1)?,
                    kos_chosen::SenderInput {
                        payload: payload.clone()
                    },
                    kos_chosen::ReceiverInput { r: r.clone() }
                )
            } else {
                go!(
                    iknp_chosen,
                    iknp_chosen::Params::new(n, threads, sha1)?,
                    iknp_chosen::SenderInput {
                        payload: payload.clone()
                    },
                    iknp_chosen::ReceiverInput { r: r.clone() }
                )
            }
        }
    };
    Ok((spec, times))
}

/// [`run_role`] for the "extend after setup" rows: one session setup
/// (`iknp_setup.otp`, the base OTs) before the clock, then `reps + 1`
/// extensions of `n` OTs from it (`iknp_extend.otp` / `kos_extend.otp`
/// through `ot::ExtSender` / `ot::ExtReceiver`, the first a warm-up), each
/// timed alone. Each extension writes into the previous one's buffers
/// (`recycle`), as the other rows do (`reuse_outputs`).
fn run_ext_role(
    malicious: bool,
    run: RoleRun,
    ch: &mut dyn Channel,
    r: &Bits,
) -> Res<((usize, usize), Vec<Duration>)> {
    let RoleRun {
        n,
        sha1,
        threads,
        sender,
        reps,
    } = run;
    let ext = if malicious {
        OtExtension::kos()
    } else {
        OtExtension::iknp()
    };
    let mut ext = ext
        .with_sha1(sha1)
        .with_threads(threads)
        .with_semi_honest_base_insecure(base_kind(malicious));
    let mut times = vec![];
    if sender {
        let mut s = ext.setup_sender(ch)?;
        for rep in 0..=reps {
            let t = Instant::now();
            let y = std::hint::black_box(s.extend(ch, n)?);
            if rep > 0 {
                times.push(t.elapsed());
            }
            s.recycle(y);
        }
    } else {
        let mut rc = ext.setup_receiver(ch)?;
        for _ in 0..=reps {
            let x = std::hint::black_box(rc.extend(ch, r)?);
            rc.recycle(x);
        }
    }
    // The extension's bytes do not depend on the counter or the session id.
    let spec = if malicious {
        let c = kos_extend::comm(&kos_extend::Params::new(n, threads, sha1, Block::ZERO, 0)?);
        (c.sender, c.receiver)
    } else {
        let c = iknp_extend::comm(&iknp_extend::Params::new(n, threads, sha1, Block::ZERO, 0)?);
        (c.sender, c.receiver)
    };
    Ok((spec, times))
}

/// The batches of a Ferret run for `n` COTs, as the parties pick them:
/// the set-up batch (the prefix of the set-up set that covers a main
/// batch's base), whole main batches while more than one is wanted, then
/// `finish`'s prefix of the main set for the rest (it keeps no base).
fn ferret_plan(malicious: bool, n: usize) -> Vec<ot::runtime::silent::ferret::Level> {
    let (setup, main) = ot::runtime::silent::ferret::levels_for(n);
    let extra = if malicious { 128 } else { 0 };
    let keep = main.reserved() + extra;
    let full = main.outputs().unwrap_or(0) - keep;
    let mut plan = vec![setup.prefix(setup.prefix_trees(0, keep, extra))];
    let mut left = n;
    while left > full {
        plan.push(main);
        left -= full;
    }
    plan.push(main.prefix(main.prefix_trees(left, 0, extra)));
    plan
}

/// A Ferret row: per run a fresh pair (its set-up, `k + t·h` SoftSpokenOT
/// COTs of Ferret's set-up set and one set-up batch, inside the clock as
/// other rows' base OTs are), then batches ([`ferret_plan`]: whole ones,
/// then `finish` for the rest) until `n` COTs are delivered. Outputs are
/// dropped at once, handing their buffers back.
fn run_ferret_role(
    malicious: bool,
    n: usize,
    sender: bool,
    reps: usize,
    ch: &mut dyn Channel,
) -> Res<((usize, usize), Vec<Duration>)> {
    let (setup, main) = ot::runtime::silent::ferret::levels_for(n);
    let mode = |s: ot::FerretSender| if malicious { s.with_check() } else { s };
    let rmode = |r: ot::FerretReceiver| if malicious { r.with_check() } else { r };
    let mut times = vec![];
    for rep in 0..=reps {
        let t = Instant::now();
        let mut left = n;
        if sender {
            let mut s = mode(ot::FerretSender::new()).with_levels(setup, main)?;
            while left > s.batch_len() {
                left -= std::hint::black_box(s.extend(ch)?).len();
            }
            std::hint::black_box(s.finish(ch, left)?);
        } else {
            let mut r = rmode(ot::FerretReceiver::new()).with_levels(setup, main)?;
            while left > r.batch_len() {
                left -= std::hint::black_box(r.extend(ch)?).1.len();
            }
            std::hint::black_box(r.finish(ch, left)?);
        }
        if rep > 0 {
            times.push(t.elapsed());
        }
    }
    Ok((ferret_comm(malicious, n)?, times))
}

/// A Ferret random-OT row: per run a fresh `OtExtension::silent()` (or
/// `silent_malicious()`) party and one `send_random` / `receive_random`
/// call of `n` OTs: the one-shot session of [`run_ferret_role`]'s plan,
/// then the conversion (`cot_random_ot.otp`).
fn run_ferret_rot_role(
    malicious: bool,
    n: usize,
    sender: bool,
    reps: usize,
    ch: &mut dyn Channel,
    choices: &Bits,
) -> Res<((usize, usize), Vec<Duration>)> {
    use ot::traits::{RandomOtReceiver, RandomOtSender};
    let make = || {
        if malicious {
            OtExtension::silent_malicious()
        } else {
            OtExtension::silent()
        }
    };
    let mut times = vec![];
    for rep in 0..=reps {
        let t = Instant::now();
        if sender {
            std::hint::black_box(make().send_random(ch, n)?);
        } else {
            std::hint::black_box(make().receive_random(ch, choices)?);
        }
        if rep > 0 {
            times.push(t.elapsed());
        }
    }
    let (s, r) = ferret_comm(malicious, n)?;
    let c = ot::cot_random_ot::comm(&ot::cot_random_ot::Params::new(n, 0)?);
    Ok(((s + c.sender, r + c.receiver), times))
}

/// The bytes (sender, receiver) of a Ferret run's batches
/// ([`ferret_plan`]), all `ferret_extend.otp` (the set-up's SoftSpokenOT
/// is in [`setup_comm`]).
fn ferret_comm(malicious: bool, n: usize) -> Res<(usize, usize)> {
    use ot::runtime::silent::ferret::Level;
    let one = |l: Level, batch: usize| -> Res<(usize, usize)> {
        let n = l.outputs().ok_or("Ferret set too large")?;
        Ok(if malicious {
            use ot::ferret_extend_malicious as m;
            let c = m::comm(&m::Params::new(l.trees, l.depth, l.k, n, batch)?);
            (c.sender, c.receiver)
        } else {
            let c = ot::ferret_extend::comm(&ot::ferret_extend::Params::new(
                l.trees, l.depth, l.k, n, batch,
            )?);
            (c.sender, c.receiver)
        })
    };
    let (mut s, mut r) = (0, 0);
    for (b, l) in ferret_plan(malicious, n).into_iter().enumerate() {
        let (bs, br) = one(l, b)?;
        s += bs;
        r += br;
    }
    Ok((s, r))
}

/// [`run_ext_role`] for KKRT / OOS sessions (`ot::Oprf`): one setup
/// (`kkrt_setup.otp`, its 512 base OTs) before the clock, then `reps + 1`
/// extensions of `n` instances (`kkrt_extend.otp` / `oos_extend.otp`),
/// each timed with the sender's one evaluation per instance on the
/// receiver's input (`OprfBatch::encode_many_into`), as the KKRT / OOS
/// rows are.
fn run_oprf_ext_role(
    malicious: bool,
    n: usize,
    sha1: bool,
    threads: usize,
    sender: bool,
    reps: usize,
    ch: &mut dyn Channel,
) -> Res<((usize, usize), Vec<Duration>)> {
    let oprf = if malicious {
        ot::Oprf::oos()
    } else {
        ot::Oprf::kkrt()
    };
    let mut oprf = oprf
        .with_sha1(sha1)
        .with_threads(threads)
        .with_semi_honest_base_insecure(base_kind(malicious));
    let inputs = one_of_n_inputs(n);
    let mut times = vec![];
    if sender {
        let mut evals = vec![Block::ZERO; n];
        let mut s = oprf.setup_sender(ch)?;
        for rep in 0..=reps {
            let t = Instant::now();
            let batch = s.extend(ch, n)?;
            std::hint::black_box(batch.encode_many_into(0, &inputs, &mut evals, threads));
            if rep > 0 {
                times.push(t.elapsed());
            }
            s.recycle(batch);
        }
    } else {
        let mut rc = oprf.setup_receiver(ch)?;
        for _ in 0..=reps {
            let x = std::hint::black_box(rc.extend(ch, &inputs)?);
            rc.recycle(x);
        }
    }
    // The extension's bytes do not depend on the counter or the session id.
    let spec = if malicious {
        let c = ot::oos_extend::comm(&ot::oos_extend::Params::new(
            n,
            threads,
            sha1,
            Block::ZERO,
            0,
        )?);
        (c.sender, c.receiver)
    } else {
        let c = ot::kkrt_extend::comm(&ot::kkrt_extend::Params::new(
            n,
            threads,
            sha1,
            Block::ZERO,
            0,
        )?);
        (c.sender, c.receiver)
    };
    Ok((spec, times))
}

/// Bytes (sent, received) a row's sender exchanges once per measurement
/// rather than per run: the session setup of the "extend after setup"
/// rows (`iknp_setup.otp` plus its 128 base OTs, roles swapped;
/// `kkrt_setup.otp` plus its 512 IKNP / KOS base OTs for KKRT / OOS).
fn once_comm(p: Proto) -> Res<(usize, usize)> {
    if matches!(p, Proto::KkrtExt | Proto::OosExt) {
        let c = ot::kkrt_setup::comm(&ot::kkrt_setup::Params::new()?);
        let (es, er) = one_of_n_base_comm(p.malicious())?;
        return Ok((c.sender + er, c.receiver + es));
    }
    if !matches!(p, Proto::IknpExt | Proto::KosExt) {
        return Ok((0, 0));
    }
    let c = iknp_setup::comm(&iknp_setup::Params::new()?);
    let (bs, br) = base_comm(base_kind(p.malicious()), 128)?;
    Ok((c.sender + br, c.receiver + bs))
}

/// The timed loop of a Delta-OT row: per run, the pair's base phase
/// `base(ch)` and its first batch `batch(ch, base_outputs, previous)`
/// (handed the previous run's outputs to reuse), both inside the clock;
/// returns the timed runs (the sender's).
fn delta_runs<B, O>(
    reps: usize,
    sender: bool,
    ch: &mut dyn Channel,
    mut base: impl FnMut(&mut dyn Channel) -> Res<B>,
    mut batch: impl FnMut(&mut dyn Channel, B, Option<O>) -> Res<O>,
) -> Res<Vec<Duration>> {
    let (mut times, mut previous) = (vec![], None);
    for rep in 0..=reps {
        let t = Instant::now();
        let b = base(ch)?;
        let out = batch(ch, b, previous.take())?;
        if sender && rep > 0 {
            times.push(t.elapsed());
        }
        previous = Some(out);
    }
    Ok(times)
}

/// Runs one role of the batch module `$mal` (malicious) or `$sh` after a
/// base phase: `$sbase` / `$rbase` map the channel to the batch's sender /
/// receiver input and `$params` its parameters, written once against the
/// module alias `m`.
macro_rules! delta_batch {
    ($malicious:expr, ($mal:ident, $sh:ident), $params:expr, $reps:expr, $sender:expr, $ch:expr, $sbase:expr, $rbase:expr) => {
        if $malicious {
            use $mal as m;
            delta_batch!(@one m, $params, $reps, $sender, $ch, $sbase, $rbase)
        } else {
            use $sh as m;
            delta_batch!(@one m, $params, $reps, $sender, $ch, $sbase, $rbase)
        }
    };
    (@one $m:ident, $params:expr, $reps:expr, $sender:expr, $ch:expr, $sbase:expr, $rbase:expr) => {{
        let params = $params;
        let c = $m::comm(&params);
        let times = if $sender {
            delta_runs($reps, true, $ch, $sbase, |ch, input, prev| {
                let mut role = $m::Sender::new(params, input, Rng::from_entropy())?;
                if let Some(out) = prev {
                    role = role.reuse_outputs(out);
                }
                Ok(role.run(ch)?)
            })?
        } else {
            delta_runs($reps, false, $ch, $rbase, |ch, input, prev| {
                let mut role = $m::Receiver::new(params, input, Rng::from_entropy())?;
                if let Some(out) = prev {
                    role = role.reuse_outputs(out);
                }
                Ok(role.run(ch)?)
            })?
        };
        ((c.sender, c.receiver), times)
    }};
}

/// [`run_role`] for the Delta-OT rows: each run is a fresh Delta-OT pair,
/// i.e. its base phase (`delta_base.otp`, the 128 base OTs) and its first
/// batch (`delta_iknp.otp` / `delta_kos.otp`), both inside the clock.
fn run_delta_role(
    malicious: bool,
    run: RoleRun,
    ch: &mut dyn Channel,
    r: Bits,
    delta: Block,
) -> Res<((usize, usize), Vec<Duration>)> {
    let RoleRun {
        n,
        threads,
        sender,
        reps,
        ..
    } = run;
    use ot::delta_base as db;
    let sbase = |ch: &mut dyn Channel| -> Res<Vec<Block>> {
        let subs = db::SenderSubs {
            base: base(malicious),
        };
        let input = db::SenderInput { delta };
        Ok(
            db::Sender::new(db::Params::new()?, input, Rng::from_entropy(), subs)?
                .run(ch)?
                .base_chosen,
        )
    };
    let rbase = |ch: &mut dyn Channel| -> Res<Vec<[Block; 2]>> {
        let subs = db::ReceiverSubs {
            base: base(malicious),
        };
        let input = db::ReceiverInput {};
        Ok(
            db::Receiver::new(db::Params::new()?, input, Rng::from_entropy(), subs)?
                .run(ch)?
                .base_keys,
        )
    };
    Ok(delta_batch!(
        malicious,
        (delta_kos, delta_iknp),
        m::Params::new(n, threads, 0)?,
        reps,
        sender,
        ch,
        |ch: &mut dyn Channel| Ok(m::SenderInput {
            delta,
            base_chosen: sbase(ch)?
        }),
        |ch: &mut dyn Channel| Ok(m::ReceiverInput {
            r: r.clone(),
            base_keys: rbase(ch)?
        })
    ))
}

/// [`run_delta_role`] for SoftSpokenOT: each run is a fresh pair, its
/// all-but-one OTs (`delta_softspoken_base.otp`) and its first batch
/// (`delta_softspoken.otp` / `delta_softspoken_malicious.otp`), both
/// inside the clock.
fn run_delta_ss_role(
    malicious: bool,
    k: usize,
    run: RoleRun,
    ch: &mut dyn Channel,
    r: Bits,
    delta: Block,
) -> Res<((usize, usize), Vec<Duration>)> {
    let RoleRun {
        n,
        threads,
        sender,
        reps,
        ..
    } = run;
    use delta_softspoken_base as db;
    let sbase = |ch: &mut dyn Channel| -> Res<ot::runtime::softspoken::abo::AboReceiverLeaves> {
        let subs = db::SenderSubs {
            abo: abo(malicious),
        };
        let input = db::SenderInput { delta };
        Ok(
            db::Sender::new(db::Params::new(k)?, input, Rng::from_entropy(), subs)?
                .run(ch)?
                .punctured,
        )
    };
    let rbase = |ch: &mut dyn Channel| -> Res<ot::runtime::softspoken::abo::AboSenderLeaves> {
        let subs = db::ReceiverSubs {
            abo: abo(malicious),
        };
        let input = db::ReceiverInput {};
        Ok(
            db::Receiver::new(db::Params::new(k)?, input, Rng::from_entropy(), subs)?
                .run(ch)?
                .leaves,
        )
    };
    Ok(delta_batch!(
        malicious,
        (delta_softspoken_malicious, delta_softspoken),
        m::Params::new(k, n, threads, 0)?,
        reps,
        sender,
        ch,
        |ch: &mut dyn Channel| Ok(m::SenderInput {
            punctured: sbase(ch)?
        }),
        |ch: &mut dyn Channel| Ok(m::ReceiverInput {
            r: r.clone(),
            leaves: rbase(ch)?
        })
    ))
}

// ---- 1-out-of-N OT rows (KKRT, OOS) ----

/// The receiver's inputs of a 1-out-of-N row: known to both processes, so
/// that the sender's clock can include one evaluation per OT on the
/// receiver's input (the seed table's convention for OPRFs), below 2^76
/// for OOS's BCH(511, 76) code.
fn one_of_n_inputs(n: usize) -> Vec<Block> {
    (0..n as u128)
        .map(|i| Block::from(i.wrapping_mul(0x9e37_79b9_7f4a_7c15) & ((1 << 76) - 1)))
        .collect()
}

/// The 512 base OTs of a 1-out-of-N row: 128 base OTs (CO15 passive, MR19
/// malicious, or `--base`) extended by IKNP / KOS, inside the clock.
fn one_of_n_base(malicious: bool) -> Box<OtExtension> {
    let ext = if malicious {
        OtExtension::kos()
    } else {
        OtExtension::iknp()
    };
    Box::new(ext.with_semi_honest_base_insecure(base_kind(malicious)))
}

/// Bytes (extension sender, extension receiver) of the 512 base OTs of a
/// 1-out-of-N row: the IKNP/KOS run's `comm()` plus its 128 base OTs.
fn one_of_n_base_comm(malicious: bool) -> Res<(usize, usize)> {
    let (base_s, base_r) = base_comm(base_kind(malicious), 128)?;
    let c = if malicious {
        let c = kos::comm(&kos::Params::new(512, 1, false)?);
        (c.sender, c.receiver)
    } else {
        let c = iknp::comm(&iknp::Params::new(512, 1, false)?);
        (c.sender, c.receiver)
    };
    Ok((c.0 + base_r, c.1 + base_s))
}

/// The RR16 row's parameters: K = N/2 (a garbled Bloom filter's share of
/// ones), statistical security 40, sizes from `rr16::sizes`.
fn rr16_params(n: usize) -> Res<(rr16::Params, ot::runtime::rr16::Sizes)> {
    let s = ot::runtime::rr16::sizes(n, n / 2, 40)?;
    Ok((
        rr16::Params::new(n, n / 2, 40, s.checked, s.threshold, s.total)?,
        s,
    ))
}

/// The consistency check a malicious row runs at `n` OTs, by the shape
/// of its kernels' input (see [`Check`]); `None` for a passive row, and
/// for a malicious one whose check has no kernel of its own to time.
/// RR16's check is that of its KOS run (`total` OTs); OOS's 512 base OTs
/// (a KOS run of 512) are left out.
fn check_of(p: Proto, n: usize) -> Res<Option<Check>> {
    if !p.malicious() {
        return Ok(None);
    }
    Ok(match p {
        Proto::Kos
        | Proto::DeltaKos
        | Proto::KosChosen
        | Proto::KosExt
        | Proto::SsMal(_)
        | Proto::DeltaSsMal(_) => Some(Check::Kos { m: n }),
        Proto::Rr16 => Some(Check::Kos {
            m: rr16_params(n)?.1.total,
        }),
        Proto::Oos | Proto::OosExt => Some(Check::Oos { m: n }),
        Proto::FerretMal | Proto::FerretRotMal => {
            let plan = ferret_plan(true, n);
            Some(Check::Ferret {
                batches: plan.iter().map(|l| (l.trees, l.depth)).collect(),
                // The set-up's malicious SoftSpokenOT COTs (see `setup_comm`).
                setup: plan[0].reserved() + 128,
            })
        }
        _ => None,
    })
}

/// Passes of a check's kernels; the best is printed.
const CHECK_PASSES: usize = 3;

/// [`run_role`] for KKRT and OOS: the sender's time runs from `new` (its
/// 512 base OTs included) to its output and one OPRF / OT evaluation per
/// instance on the receiver's input (`SenderOutput::encode_many_into`).
fn run_one_of_n_role(
    p: Proto,
    n: usize,
    sha1: bool,
    threads: usize,
    sender: bool,
    reps: usize,
    ch: &mut dyn Channel,
) -> Res<((usize, usize), Vec<Duration>)> {
    let inputs = one_of_n_inputs(n);
    // The sender's evaluations, written into one buffer for every run.
    let mut evals = vec![Block::ZERO; if sender { n } else { 0 }];
    let mut times = vec![];
    let code = LinearCode::bch_511_76();
    macro_rules! go {
        ($m:ident, $sin:expr, $rin:expr) => {
            timed_runs!(
                $m,
                $m::Params::new(n, threads, sha1)?,
                $sin,
                $rin,
                base = one_of_n_base(p.malicious()),
                sender,
                reps,
                ch,
                times,
                |out| out.encode_many_into(0, &inputs, &mut evals, threads)
            )
        };
    }
    let spec = if p == Proto::Oos {
        go!(
            oos,
            oos::SenderInput { code: code.clone() },
            oos::ReceiverInput {
                code: code.clone(),
                choices: inputs.clone()
            }
        )
    } else {
        go!(
            kkrt,
            kkrt::SenderInput {},
            kkrt::ReceiverInput {
                inputs: inputs.clone()
            }
        )
    };
    Ok((spec, times))
}

struct Measured {
    best: Duration,
    /// Median of the timed runs: on a noisy machine it shows how typical
    /// the best run is.
    median: Duration,
    spec: (usize, usize),
    sent: u64,
    received: u64,
}

impl Measured {
    /// The best timed run, and the sender's bytes per run (`runs` counts
    /// the warm-up too) after taking away `once`, what it exchanged once
    /// per measurement (see [`once_comm`]).
    fn of(
        spec: (usize, usize),
        times: Vec<Duration>,
        st: ot::runtime::transport::channel::ChannelStats,
        runs: u64,
        once: (usize, usize),
    ) -> Measured {
        let mut sorted = times;
        sorted.sort();
        Measured {
            best: sorted.first().copied().unwrap_or(Duration::MAX),
            median: sorted
                .get(sorted.len() / 2)
                .copied()
                .unwrap_or(Duration::MAX),
            spec,
            sent: st.bytes_sent.saturating_sub(once.0 as u64) / runs,
            received: st.bytes_received.saturating_sub(once.1 as u64) / runs,
        }
    }
}

fn measure(
    p: Proto,
    n: usize,
    sha1: bool,
    threads: usize,
    reps: usize,
    tcp: bool,
) -> Res<Measured> {
    let runs = (reps + 1) as u64;
    if !tcp {
        let (mut a, mut b) = MemoryChannel::pair();
        a.set_timeout(Duration::from_secs(600));
        b.set_timeout(Duration::from_secs(600));
        let (spec, times) = std::thread::scope(|s| -> Res<_> {
            let h = s.spawn(move || -> Res<()> {
                run_role(p, n, sha1, threads, false, reps, &mut b)?;
                Ok(())
            });
            let out = run_role(p, n, sha1, threads, true, reps, &mut a)?;
            h.join().map_err(|_| "receiver thread panicked")??;
            Ok(out)
        })?;
        return Ok(Measured::of(spec, times, a.stats(), runs, once_comm(p)?));
    }
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    let mut kid = Command::new(std::env::current_exe()?)
        .args([
            "--child",
            &p.index().to_string(),
            &n.to_string(),
            &u8::from(sha1).to_string(),
            &port.to_string(),
            &reps.to_string(),
            &threads.to_string(),
        ])
        .spawn()?;
    let mut ch = TcpChannel::accept(&listener, Duration::from_secs(60))?
        .with_timeout(Duration::from_secs(600));
    let (spec, times) = run_role(p, n, sha1, threads, true, reps, &mut ch)?;
    let status = kid.wait()?;
    if !status.success() {
        return Err(format!("receiver process failed: {status}").into());
    }
    Ok(Measured::of(spec, times, ch.stats(), runs, once_comm(p)?))
}

/// Quiet time before each measurement: the previous one's processes have
/// just released up to several GiB, and on this VM a measurement started
/// at once runs measurably slower (e.g. Delta-IKNP 0.17 s instead of
/// 0.13 s at 2^24 over TCP) while the kernel is still reclaiming it.
const PAUSE: Duration = Duration::from_millis(500);

/// Runs [`measure`] in a fresh process (this program with `--measure`), so
/// that no measurement is affected by the memory or threads an earlier one
/// left behind in a long-lived process; the child prints one line:
/// `best_ns median_ns spec_sender spec_receiver sent received`.
fn measure_isolated(
    p: Proto,
    n: usize,
    sha1: bool,
    threads: usize,
    reps: usize,
    tcp: bool,
) -> Res<Measured> {
    std::thread::sleep(PAUSE);
    let out = Command::new(std::env::current_exe()?)
        .args([
            "--measure",
            &p.index().to_string(),
            &n.to_string(),
            &u8::from(sha1).to_string(),
            &threads.to_string(),
            &reps.to_string(),
            &u8::from(tcp).to_string(),
        ])
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "measurement of {p:?} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )
        .into());
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Vec<u64> = text
        .split_whitespace()
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let [best, median, s, r, sent, received] = v[..] else {
        return Err(format!("unexpected measurement output: {text}").into());
    };
    Ok(Measured {
        best: Duration::from_nanos(best),
        median: Duration::from_nanos(median),
        spec: (s as usize, r as usize),
        sent,
        received,
    })
}

/// The `--measure` child: one [`measure`], printed for [`measure_isolated`].
fn measure_child(args: &[String]) -> Res<()> {
    let arg =
        |i: usize| -> Res<usize> { Ok(args.get(i).ok_or("missing argument")?.parse::<usize>()?) };
    let p = *ALL.get(arg(0)?).ok_or("bad protocol index")?;
    let m = measure(p, arg(1)?, arg(2)? == 1, arg(3)?, arg(4)?, arg(5)? == 1)?;
    println!(
        "{} {} {} {} {} {}",
        m.best.as_nanos(),
        m.median.as_nanos(),
        m.spec.0,
        m.spec.1,
        m.sent,
        m.received
    );
    Ok(())
}

fn child(args: &[String]) -> Res<()> {
    let p = ALL[args[0].parse::<usize>()?];
    let n: usize = args[1].parse()?;
    let sha1 = args[2] == "1";
    let port: u16 = args[3].parse()?;
    let reps: usize = args[4].parse()?;
    let threads: usize = args[5].parse()?;
    let mut ch = TcpChannel::connect(("127.0.0.1", port), Duration::from_secs(60))?
        .with_timeout(Duration::from_secs(600));
    run_role(p, n, sha1, threads, false, reps, &mut ch)?;
    Ok(())
}

/// Bytes (base-OT sender, base-OT receiver) of `count` base OTs of
/// `kind`, from the base OT's own `comm()`.
fn base_comm(kind: BaseOtKind, count: usize) -> Res<(usize, usize)> {
    Ok(match kind {
        BaseOtKind::Co15 => {
            let c = ot::co15::comm(&ot::co15::Params::new(count)?);
            (c.sender, c.receiver)
        }
        BaseOtKind::Np00 => {
            let c = ot::np00::comm(&ot::np00::Params::new(count)?);
            (c.sender, c.receiver)
        }
        BaseOtKind::Mr19 => {
            let c = ot::mr19::comm(&ot::mr19::Params::new(count)?);
            (c.sender, c.receiver)
        }
    })
}

/// Bytes (extension sender, extension receiver) that a row sends besides
/// its own `comm()`: 128 base OTs with the roles swapped, or for
/// SoftSpokenOT its all-but-one OTs (their `comm()`, the ABO sender being
/// the extension receiver) over `T k` base OTs.
fn setup_comm(p: Proto, n: usize) -> Res<(usize, usize)> {
    if p == Proto::Rr16 {
        // `total` KOS random OTs over 128 MR19 (or `--base`) base OTs.
        let (_, s) = rr16_params(n)?;
        let (bs, br) = base_comm(base_kind(true), 128)?;
        let c = kos::comm(&kos::Params::new(s.total, 1, false)?);
        return Ok((c.sender + br, c.receiver + bs));
    }
    if matches!(p, Proto::Kkrt | Proto::Oos) {
        let (s, r) = one_of_n_base_comm(p.malicious())?;
        return Ok((r, s));
    }
    if p.ferret() {
        // The set-up's SoftSpokenOT k = 8 Delta-OT COTs (semi-honest or
        // malicious; the Ferret sender is its sender) and that row's own
        // set-up (all-but-one OTs over base OTs).
        let mal = p.malicious();
        // (The set-up batch is the first of the plan.)
        let k = ferret_plan(mal, n)[0].reserved() + if mal { 128 } else { 0 };
        let (cs, cr) = if mal {
            let c = delta_softspoken_malicious::comm(&delta_softspoken_malicious::Params::new(
                8, k, 1, 0,
            )?);
            (c.sender, c.receiver)
        } else {
            let c = delta_softspoken::comm(&delta_softspoken::Params::new(8, k, 1, 0)?);
            (c.sender, c.receiver)
        };
        let ss = if mal {
            Proto::DeltaSsMal(8)
        } else {
            Proto::DeltaSs(8)
        };
        let (ds, dr) = setup_comm(ss, k)?;
        return Ok((cs + ds, cr + dr));
    }
    if p == Proto::SilentOt {
        // The trees' random OTs: IKNP (the silent sender is its sender)
        // over 128 CO15 base OTs with the roles swapped.
        let k = ot::runtime::silent::params::NOISE_WEIGHT * depth_for(n).ok_or("n too large")?;
        let c = iknp::comm(&iknp::Params::new(k, 1, false)?);
        let (bs, br) = base_comm(BaseOtKind::Co15, 128)?;
        return Ok((c.sender + br, c.receiver + bs));
    }
    if p.quiet() {
        // The setup's random OTs: IKNP (the QuietOT sender is its sender)
        // over 128 CO15 base OTs with the roles swapped.
        let k = match p {
            Proto::QuietBipsw | Proto::QuietBipswRot => ot::runtime::quiet::bipsw::SETUP_OTS,
            _ => ot::runtime::quiet::gar::KEY_LEN,
        };
        let c = iknp::comm(&iknp::Params::new(k, 1, false)?);
        let (bs, br) = base_comm(BaseOtKind::Co15, 128)?;
        return Ok((c.sender + br, c.receiver + bs));
    }
    if matches!(
        p,
        Proto::IknpExt | Proto::KosExt | Proto::KkrtExt | Proto::OosExt
    ) {
        // No base OTs per extension (the setup is in `once_comm`).
        return Ok((0, 0));
    }
    let kind = base_kind(p.malicious());
    // The Delta-OT rows run their set-up as a protocol of its own
    // (`delta_base.otp`, `delta_softspoken_base.otp`: its session binding
    // and messages) around the base OTs / all-but-one OTs.
    let (ds, dr) = match p {
        Proto::DeltaIknp | Proto::DeltaKos => {
            let c = ot::delta_base::comm(&ot::delta_base::Params::new()?);
            (c.sender, c.receiver)
        }
        Proto::DeltaSs(k) | Proto::DeltaSsMal(k) => {
            let c = delta_softspoken_base::comm(&delta_softspoken_base::Params::new(k)?);
            (c.sender, c.receiver)
        }
        _ => (0, 0),
    };
    let Some(k) = p.softspoken_k() else {
        let (bs, br) = base_comm(kind, 128)?;
        return Ok((br + ds, bs + dr));
    };
    let trees = 128usize.div_ceil(k);
    let (bs, br) = base_comm(kind, trees * k)?;
    let (cs, cr) = if p.malicious() {
        let c = ot::abo_ot_malicious::comm(&ot::abo_ot_malicious::Params::new(trees, k)?);
        (c.sender, c.receiver)
    } else {
        let c = ot::abo_ot::comm(&ot::abo_ot::Params::new(trees, k)?);
        (c.sender, c.receiver)
    };
    Ok((cr + br + ds, cs + bs + dr))
}

/// Raw TCP loopback stream rate (bytes/s) of the runtime's TCP channel:
/// one thread sends 256 frames of 1 MiB, another receives them; best of 3.
/// The wire limit of a row: its OT/s times bytes per OT (both directions)
/// over this rate is the share of the loopback it uses.
fn loopback_bytes_per_second() -> Res<f64> {
    const FRAME: usize = 1 << 20;
    const FRAMES: usize = 256;
    let mut best = f64::MAX;
    for _ in 0..3 {
        let (mut a, mut b) = ot::runtime::transport::channel::local_pair_tcp()?;
        let t = Instant::now();
        std::thread::scope(|sc| -> Res<()> {
            let h = sc.spawn(move || -> Result<(), ot::runtime::ChannelError> {
                for _ in 0..FRAMES {
                    let mut f = a.frame_buffer(FRAME);
                    f.resize(FRAME, 7);
                    a.send_vec(f)?;
                }
                a.flush()
            });
            let mut buf = Vec::with_capacity(FRAME);
            for _ in 0..FRAMES {
                b.recv_into(&mut buf, FRAME)?;
            }
            h.join().map_err(|_| "the sending thread panicked")??;
            Ok(())
        })?;
        best = best.min(t.elapsed().as_secs_f64());
    }
    Ok((FRAME * FRAMES) as f64 / best)
}

fn run() -> Res<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--child") {
        return child(&args[1..]);
    }
    if args.first().map(String::as_str) == Some("--measure") {
        return measure_child(&args[1..]);
    }
    let flag = |name: &str| args.iter().any(|a| a == name);
    let tcp = flag("--tcp");
    // SHA-1 is opt-in (`--sha1`); `--no-sha1`, the default before, still
    // works and wins.
    let no_sha1 = !flag("--sha1") || flag("--no-sha1");
    if let Some(i) = args.iter().position(|a| a == "--base") {
        let name = args.get(i + 1).map(String::as_str).unwrap_or("");
        if !["co15", "np00", "mr19"].contains(&name) {
            return Err(format!("--base takes co15, np00 or mr19, not {name:?}").into());
        }
        // Inherited by the measuring child processes.
        std::env::set_var(BASE_ENV, name);
    }
    let get = |flag: &str| {
        args.iter()
            .position(|a| a == flag)
            .and_then(|i| args.get(i + 1))
            .and_then(|s| s.parse::<usize>().ok())
    };
    let reps = get("--reps").unwrap_or(2).max(1);
    let threads = get("--threads").unwrap_or(1).max(1);
    let only = args
        .iter()
        .position(|a| a == "--only")
        .and_then(|i| args.get(i + 1))
        .cloned();
    // `--only` picks from every row; otherwise `--all` or the seed's rows.
    let rows: Vec<Proto> = match only.as_deref() {
        Some(o) => {
            let names: Vec<&str> = o.split(',').map(str::trim).collect();
            ALL.into_iter()
                .filter(|p| names.iter().any(|n| p.name().eq_ignore_ascii_case(n)))
                .collect()
        }
        None if flag("--all") => ALL.to_vec(),
        None => DEFAULT.to_vec(),
    };
    if rows.is_empty() {
        return Err(format!("--only {:?} names no row", only.unwrap_or_default()).into());
    }
    let log_ns: Vec<usize> = match get("--log-n") {
        Some(l) => vec![l],
        None => vec![20, 24],
    };
    let aes = aes_blocks_per_second();
    let gf = gf128_mul_adds_per_second();
    let wire = loopback_bytes_per_second()?;
    println!(
        "OT extension, {threads} thread(s) per party, {}; base OTs: {:?} (passive), {:?} (malicious); best (and median, AES rows) of {reps} after a warm-up run; output buffers allocated before the clock starts (each run reuses the previous run's outputs)",
        if tcp { "two processes over TCP loopback" } else { "two threads over the in-memory channel" },
        base_kind(false),
        base_kind(true),
    );
    println!(
        "runtime raw fixed-key AES ({}): {:.1} M blocks/s; raw TCP loopback stream of the runtime's channel: {:.2} GB/s (column `wire`: OT/s x bytes/OT both ways / this rate)",
        ot::runtime::primitives::aes::backend_name(),
        aes / 1e6,
        wire / 1e9
    );
    println!(
        "GF(2^128) multiply-adds (the runtime's carry-less inner product): {:.1} M/s, {:.2} ns each (the malicious checks of KOS and SoftSpokenOT do one per OT and party)\n",
        gf / 1e6,
        1e9 / gf
    );
    let started = Instant::now();
    for log_n in log_ns {
        let n = 1usize << log_n;
        println!("n = 2^{log_n}");
        println!(
            "{:<22} {:<10} {:<15} {:>16} {:>12} {:>10} {:>14} {:>6} {:>13} {:>10}",
            "Type",
            "Security",
            "Protocol",
            "time s (AES/SHA1)",
            "M OT/s (AES)",
            "OT/AES",
            "bytes/OT S,R",
            "wire",
            "spec",
            "median s"
        );
        // The malicious rows measured at this n and their best times, for
        // the check table below.
        let mut checked: Vec<(Proto, Duration)> = vec![];
        for (i, &p) in rows.iter().enumerate() {
            eprintln!(
                "ot_table: [{:5.1} s] n = 2^{log_n}, row {}/{}: {}",
                started.elapsed().as_secs_f64(),
                i + 1,
                rows.len(),
                p.name()
            );
            if log_n > p.max_log_n() {
                let ((ty, name), sec) = (p.row(), p.security());
                println!("{ty:<22} {sec:<10} {name:<15} skipped at this n (one unstreamed correction message)");
                continue;
            }
            let m_aes = measure_isolated(p, n, false, threads, reps, tcp)?;
            // RR16's messages are its KOS run's outputs, QuietOT hashes with
            // its own session keys: no SHA-1 variant.
            let sha_t = if p.has_sha1() && !no_sha1 {
                Some(measure_isolated(p, n, true, threads, reps, tcp)?.best)
            } else {
                None
            };
            let ots = n as f64 / m_aes.best.as_secs_f64();
            let ((ty, name), sec) = (p.row(), p.security());
            let name = match p.softspoken_k() {
                Some(k) => format!("{name} k={k}"),
                None => name.to_string(),
            };
            // The extension's own rounds (its comm()) plus its set-up: base
            // OTs with the roles swapped, or SoftSpokenOT's all-but-one OTs.
            let (setup_s, setup_r) = setup_comm(p, n)?;
            let spec_ok = m_aes.sent as usize == m_aes.spec.0 + setup_s
                && m_aes.received as usize == m_aes.spec.1 + setup_r;
            let time = match sha_t {
                Some(s) => format!("{:.3} / {:.3}", m_aes.best.as_secs_f64(), s.as_secs_f64()),
                None if p.hashed() => format!("{:.3}", m_aes.best.as_secs_f64()),
                None => format!("{:.3} (no hash)", m_aes.best.as_secs_f64()),
            };
            let bytes_per_ot = (m_aes.sent + m_aes.received) as f64 / n as f64;
            println!(
                "{:<22} {:<10} {:<15} {:>16} {:>12.1} {:>10.3} {:>14} {:>5.0}% {:>13} {:>10.3}",
                ty,
                sec,
                name,
                time,
                ots / 1e6,
                ots / aes,
                format!(
                    "{:.2},{:.2}",
                    m_aes.sent as f64 / n as f64,
                    m_aes.received as f64 / n as f64
                ),
                100.0 * ots * bytes_per_ot / wire,
                if spec_ok {
                    "= comm()+setup"
                } else {
                    "MISMATCH"
                },
                m_aes.median.as_secs_f64()
            );
            if p.malicious() {
                checked.push((p, m_aes.best));
            }
        }
        print_checks(&checked, log_n, gf, started)?;
        println!();
    }
    Ok(())
}

/// The check table of n = 2^`log_n`: for each malicious row in `rows` (with its
/// best time), its check's kernels timed alone in this process, one
/// thread per side ([`Check::measure`], best of [`CHECK_PASSES`]; rows
/// with the same check share one measurement), against the GF(2^128)
/// multiply-add floor (the check's multiply-adds by definition at `gf`
/// per second, the rate measured at the start of the run) and as a share
/// of the row's time.
fn print_checks(rows: &[(Proto, Duration)], log_n: usize, gf: f64, started: Instant) -> Res<()> {
    if rows.is_empty() {
        return Ok(());
    }
    let n = 1usize << log_n;
    println!(
        "malicious checks: their kernels alone, one thread per side, on buffers of the row's shape, best of {CHECK_PASSES}; floor: GF(2^128) multiply-adds by the check's definition at the rate above; share: of the row's time per OT (S,R: sender, receiver)"
    );
    println!(
        "{:<22} {:<15} {:>16} {:>16} {:>16} {:>12} {:>14}",
        "Type",
        "Protocol",
        "mul-adds/OT S,R",
        "check ns/OT S,R",
        "floor ns/OT S,R",
        "÷ floor S,R",
        "share S,R"
    );
    let mut measured: Vec<(Check, checks::Cost)> = vec![];
    for &(p, best) in rows {
        let (ty, name) = p.row();
        let name = match p.softspoken_k() {
            Some(k) => format!("{name} k={k}"),
            None => name.to_string(),
        };
        let Some(check) = check_of(p, n)? else {
            println!("{ty:<22} {name:<15} (no check kernel of its own timed)");
            continue;
        };
        let cost = match measured.iter().find(|(c, _)| *c == check) {
            Some((_, cost)) => *cost,
            None => {
                eprintln!(
                    "ot_table: [{:5.1} s] n = 2^{log_n}, check kernels of {}",
                    started.elapsed().as_secs_f64(),
                    p.name()
                );
                if measured.is_empty() {
                    // As before a row: let the last child's memory go first.
                    std::thread::sleep(PAUSE);
                }
                let cost = check.measure(CHECK_PASSES);
                measured.push((check, cost));
                cost
            }
        };
        let per_ot = |x: f64| x / n as f64;
        let ns = cost.time.map(|t| per_ot(t.as_secs_f64() * 1e9));
        let adds = cost.mul_adds.map(|a| per_ot(a as f64));
        let floor = adds.map(|a| a * 1e9 / gf);
        let row_ns = per_ot(best.as_secs_f64() * 1e9);
        let pair = |v: [f64; 2]| format!("{:.2},{:.2}", v[0], v[1]);
        println!(
            "{:<22} {:<15} {:>16} {:>16} {:>16} {:>12} {:>14}",
            ty,
            name,
            pair(adds),
            pair(ns),
            pair(floor),
            pair([ns[0] / floor[0], ns[1] / floor[1]]),
            format!(
                "{:.0}%,{:.0}%",
                100.0 * ns[0] / row_ns,
                100.0 * ns[1] / row_ns
            )
        );
    }
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}
