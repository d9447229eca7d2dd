//! Sizes from the caller: every `Params::new` checked here (and the public
//! constructors that allocate by a caller's size) refuses 0 where it is
//! meaningless and 2^40 and `usize::MAX` with a typed error instead of
//! accepting them and aborting the process later on allocation (issue 37
//! item 2). Each case runs in a child process (this test binary re-run with
//! the case's name), so an abort or a panic fails the test instead of
//! killing the whole harness.

use std::process::Command;

use ot::runtime::rr16;
use ot::runtime::transport::mesh::MemoryMesh;

/// The environment variable that makes a re-run of this binary run one case.
const CHILD: &str = "OT_PARAM_SIZES_CASE";

const HUGE: [usize; 2] = [1 << 40, usize::MAX];

/// Runs `case` in a child process (or, in the child, runs `body`) and
/// asserts the child exited normally.
fn in_child(case: &str, body: fn()) {
    if std::env::var(CHILD).as_deref() == Ok(case) {
        body();
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = Command::new(exe)
        .env(CHILD, case)
        .args([case, "--exact", "--test-threads=1", "--nocapture"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{case}: the child {:?}\n{}{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn quiet_bipsw_sizes() {
    in_child("quiet_bipsw_sizes", || {
        assert!(ot::quiet_bipsw::Params::new(0).is_err());
        assert!(ot::quiet_bipsw::Params::new(1).is_ok());
        for m in HUGE {
            assert!(ot::quiet_bipsw::Params::new(m).is_err(), "m = {m}");
        }
    });
}

#[test]
fn quiet_gar_sizes() {
    in_child("quiet_gar_sizes", || {
        assert!(ot::quiet_gar::Params::new(0).is_err());
        assert!(ot::quiet_gar::Params::new(1).is_ok());
        for m in HUGE {
            assert!(ot::quiet_gar::Params::new(m).is_err(), "m = {m}");
        }
    });
}

#[test]
fn memory_mesh_sizes() {
    in_child("memory_mesh_sizes", || {
        assert_eq!(MemoryMesh::new(0).len(), 0);
        assert_eq!(MemoryMesh::try_new(2).unwrap().len(), 2);
        for n in HUGE {
            let err = MemoryMesh::try_new(n).unwrap_err();
            assert!(err.to_string().contains("too large"), "{err}");
            assert!(MemoryMesh::new(n).is_empty());
        }
    });
}

#[test]
fn rr16_sizes() {
    in_child("rr16_sizes", || {
        assert!(rr16::sizes(0, 1, 40).is_err());
        assert!(rr16::sizes(1, 1, 40).is_err() || rr16::sizes(1, 1, 40).is_ok());
        for n in HUGE {
            assert_eq!(rr16::sizes(n, 1, 40), Err(rr16::SizesError::TooLarge));
        }
    });
}

#[test]
fn extension_sizes() {
    in_child("extension_sizes", || {
        for m in HUGE {
            assert!(ot::iknp::Params::new(m, 1, false).is_err(), "iknp m = {m}");
            assert!(ot::kkrt::Params::new(m, 1, false).is_err(), "kkrt m = {m}");
            assert!(ot::oos::Params::new(m, 1, false).is_err(), "oos m = {m}");
            assert!(
                ot::softspoken::Params::new(4, m, 1, false).is_err(),
                "softspoken m = {m}"
            );
            assert!(
                ot::delta_iknp::Params::new(m, 1, 1).is_err(),
                "delta_iknp m = {m}"
            );
            assert!(ot::mr19::Params::new(m).is_err(), "mr19 n = {m}");
            assert!(ot::co15::Params::new(m).is_err(), "co15 n = {m}");
            assert!(ot::np00::Params::new(m).is_err(), "np00 n = {m}");
            assert!(ot::abo_ot::Params::new(m, 4).is_err(), "abo_ot trees = {m}");
            assert!(ot::abo_ot::Params::new(3, m).is_err(), "abo_ot k = {m}");
        }
        assert!(
            ot::iknp::Params::new(0, 1, false).is_err()
                || ot::iknp::Params::new(0, 1, false).is_ok()
        );
    });
}

#[test]
fn n_party_sizes() {
    in_child("n_party_sizes", || {
        for n in HUGE {
            assert!(
                ot::coin_flip_n::Params::new(n).is_err(),
                "coin_flip_n n = {n}"
            );
            assert!(ot::sum_n::Params::new(n).is_err(), "sum_n n = {n}");
        }
    });
}

#[test]
fn softspoken_malicious_k() {
    in_child("softspoken_malicious_k", || {
        assert!(ot::softspoken_malicious::Params::new(3, 10, 1, false).is_err());
        assert!(ot::softspoken_malicious::Params::new(4, 10, 1, false).is_ok());
        for m in HUGE {
            assert!(ot::softspoken_malicious::Params::new(4, m, 1, false).is_err());
        }
    });
}

/// `Ok` or the error's text (for the failure message).
fn outcome<T, E: std::fmt::Display>(r: Result<T, E>) -> Result<(), String> {
    r.map(|_| ()).map_err(|e| e.to_string())
}

/// Every shipped protocol's `Params::new`, each size parameter at 0, 1,
/// 2^40 and `usize::MAX` with the others small and valid: 2^40 and
/// `usize::MAX` are a typed error (0 and 1 either way, never a panic).
/// Index and tuning parameters (`first`, `batch`, `threads`) take any
/// value: those runs are bounded (`tests/ext_reuse.rs`
/// `huge_counters_and_batch_indices_run_bounded`, `tests/iknp.rs`).
#[test]
fn every_protocol_refuses_sizes_it_cannot_hold() {
    in_child("every_protocol_refuses_sizes_it_cannot_hold", || {
        use ot::runtime::Block;
        let sid = Block::from(1u128);
        let mut cases: Vec<(String, usize, Result<(), String>)> = vec![];
        for v in [0usize, 1, 1 << 40, usize::MAX] {
            let mut case = |name: &str, r: Result<(), String>| cases.push((name.into(), v, r));
            case("co15 n", outcome(ot::co15::Params::new(v)));
            case("co15_chosen n", outcome(ot::co15_chosen::Params::new(v)));
            case("mr19 n", outcome(ot::mr19::Params::new(v)));
            case("mr19_chosen n", outcome(ot::mr19_chosen::Params::new(v)));
            case("np00 n", outcome(ot::np00::Params::new(v)));
            case("np00_chosen n", outcome(ot::np00_chosen::Params::new(v)));
            case("abo_ot trees", outcome(ot::abo_ot::Params::new(v, 4)));
            case("abo_ot k", outcome(ot::abo_ot::Params::new(3, v)));
            case(
                "abo_ot_malicious trees",
                outcome(ot::abo_ot_malicious::Params::new(v, 4)),
            );
            case(
                "abo_ot_malicious k",
                outcome(ot::abo_ot_malicious::Params::new(3, v)),
            );
            case(
                "beaver_dealer n",
                outcome(ot::beaver_dealer::Params::new(v)),
            );
            case("coin_flip_n n", outcome(ot::coin_flip_n::Params::new(v)));
            case("sum_n n", outcome(ot::sum_n::Params::new(v)));
            case("open_to_one n", outcome(ot::open_to_one::Params::new(v)));
            case(
                "delta_iknp m",
                outcome(ot::delta_iknp::Params::new(v, 1, 1)),
            );
            case("delta_kos m", outcome(ot::delta_kos::Params::new(v, 1, 1)));
            case(
                "delta_softspoken k",
                outcome(ot::delta_softspoken::Params::new(v, 10, 1, 1)),
            );
            case(
                "delta_softspoken m",
                outcome(ot::delta_softspoken::Params::new(2, v, 1, 1)),
            );
            case(
                "delta_softspoken_malicious m",
                outcome(ot::delta_softspoken_malicious::Params::new(2, v, 1, 1)),
            );
            case(
                "delta_softspoken_base k",
                outcome(ot::delta_softspoken_base::Params::new(v)),
            );
            case("iknp m", outcome(ot::iknp::Params::new(v, 1, false)));
            case(
                "iknp_chosen m",
                outcome(ot::iknp_chosen::Params::new(v, 1, false)),
            );
            case("kos m", outcome(ot::kos::Params::new(v, 1, false)));
            case(
                "kos_chosen m",
                outcome(ot::kos_chosen::Params::new(v, 1, false)),
            );
            case(
                "iknp_extend m",
                outcome(ot::iknp_extend::Params::new(v, 1, false, sid, 0)),
            );
            case(
                "kos_extend m",
                outcome(ot::kos_extend::Params::new(v, 1, false, sid, 0)),
            );
            case("kkrt m", outcome(ot::kkrt::Params::new(v, 1, false)));
            case(
                "kkrt_extend m",
                outcome(ot::kkrt_extend::Params::new(v, 1, false, sid, 0)),
            );
            case("oos m", outcome(ot::oos::Params::new(v, 1, false)));
            case(
                "oos_extend m",
                outcome(ot::oos_extend::Params::new(v, 1, false, sid, 0)),
            );
            case(
                "softspoken k",
                outcome(ot::softspoken::Params::new(v, 10, 1, false)),
            );
            case(
                "softspoken m",
                outcome(ot::softspoken::Params::new(2, v, 1, false)),
            );
            case(
                "softspoken_chosen m",
                outcome(ot::softspoken_chosen::Params::new(2, v, 1, false)),
            );
            case(
                "softspoken_malicious m",
                outcome(ot::softspoken_malicious::Params::new(2, v, 1, false)),
            );
            case(
                "softspoken_malicious_chosen m",
                outcome(ot::softspoken_malicious_chosen::Params::new(2, v, 1, false)),
            );
            // MiniMac at a code of distance enough for 40 bits (k = 8, 24 symbols).
            let minimac = [
                ("n", [v, 10, 8, 24, 40]),
                ("m", [3, v, 8, 24, 40]),
                ("k", [3, 10, v, 24, 40]),
                ("code_n", [3, 10, 8, v, 40]),
                ("sec", [3, 10, 8, 24, v]),
            ];
            for (p, a) in minimac {
                case(
                    &format!("minimac_open {p}"),
                    outcome(ot::minimac_open::Params::new(a[0], a[1], a[2], a[3], a[4])),
                );
                case(
                    &format!("minimac_mul {p}"),
                    outcome(ot::minimac_mul::Params::new(a[0], a[1], a[2], a[3], a[4])),
                );
                case(
                    &format!("minimac_reencode {p}"),
                    outcome(ot::minimac_reencode::Params::new(
                        a[0], a[1], a[2], a[3], a[4],
                    )),
                );
                case(
                    &format!("minimac_input {p}"),
                    outcome(ot::minimac_input::Params::new(a[0], a[1], a[2], a[3], a[4])),
                );
                case(
                    &format!("minimac_aes {p}"),
                    outcome(ot::minimac_aes::Params::new(a[0], a[1], a[2], a[3], a[4])),
                );
            }
            for (p, a) in [("n", [v, 10]), ("m", [3, v])] {
                case(
                    &format!("orlandi_open {p}"),
                    outcome(ot::orlandi_open::Params::new(a[0], a[1])),
                );
                case(
                    &format!("orlandi_input {p}"),
                    outcome(ot::orlandi_input::Params::new(a[0], a[1])),
                );
                case(
                    &format!("orlandi_mul {p}"),
                    outcome(ot::orlandi_mul::Params::new(a[0], a[1])),
                );
            }
            case(
                "orlandi_triple n",
                outcome(ot::orlandi_triple::Params::new(v, 10, 1, 10, 40)),
            );
            case(
                "orlandi_triple m",
                outcome(ot::orlandi_triple::Params::new(2, v, 1, 10, 40)),
            );
            case(
                "orlandi_triple s",
                outcome(ot::orlandi_triple::Params::new(2, 10, v, 10, 40)),
            );
            case(
                "orlandi_triple d",
                outcome(ot::orlandi_triple::Params::new(2, 10, 1, v, 40)),
            );
            case(
                "orlandi_triple sec",
                outcome(ot::orlandi_triple::Params::new(2, 10, 1, 10, v)),
            );
            case("silent_ot n", outcome(ot::silent_ot::Params::new(v, 10)));
            case(
                "silent_ot depth",
                outcome(ot::silent_ot::Params::new(100, v)),
            );
            case(
                "ferret_extend trees",
                outcome(ot::ferret_extend::Params::new(
                    v,
                    6,
                    200,
                    v.saturating_mul(64),
                    0,
                )),
            );
            case(
                "ferret_extend depth",
                outcome(ot::ferret_extend::Params::new(
                    30,
                    v,
                    200,
                    30usize.checked_shl(v as u32).unwrap_or(0),
                    0,
                )),
            );
            case(
                "ferret_extend k",
                outcome(ot::ferret_extend::Params::new(30, 6, v, 1920, 0)),
            );
            case(
                "ferret_extend n",
                outcome(ot::ferret_extend::Params::new(30, 6, 200, v, 0)),
            );
            case(
                "ferret_extend_malicious trees",
                outcome(ot::ferret_extend_malicious::Params::new(
                    v,
                    6,
                    200,
                    v.saturating_mul(64),
                    0,
                )),
            );
            case(
                "cot_random_ot n",
                outcome(ot::cot_random_ot::Params::new(v, 0)),
            );
            case(
                "cot_chosen_ot n",
                outcome(ot::cot_chosen_ot::Params::new(v, 0)),
            );
            case(
                "cot_chosen_bits n",
                outcome(ot::cot_chosen_bits::Params::new(v)),
            );
            case("quiet_bipsw m", outcome(ot::quiet_bipsw::Params::new(v)));
            case(
                "quiet_bipsw_rot m",
                outcome(ot::quiet_bipsw_rot::Params::new(v)),
            );
            case("quiet_gar m", outcome(ot::quiet_gar::Params::new(v)));
            case(
                "quiet_gar_rot m",
                outcome(ot::quiet_gar_rot::Params::new(v)),
            );
            let rr = outcome(rr16::sizes(v, 1, 40).map_err(|e| format!("{e:?}")));
            case("rr16 n", rr);
        }
        let accepted: Vec<String> = cases
            .iter()
            .filter(|(_, v, r)| *v >= 1 << 40 && r.is_ok())
            .map(|(name, v, _)| format!("{name} = {v}"))
            .collect();
        assert!(accepted.is_empty(), "accepted: {accepted:#?}");
        // Every protocol's size parameters were tried at every value.
        assert_eq!(cases.len(), 4 * 86, "{}", cases.len());
        println!("{} cases, every huge size refused", cases.len());
    });
}
