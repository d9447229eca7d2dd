//! Sizes from the caller: every `Params::new` checked here (and the public
//! constructors that allocate by a caller's size) refuses 0 where it is
//! meaningless and 2^40 and `usize::MAX` with a typed error instead of
//! accepting them and aborting the process later on allocation (issue 37
//! item 2). Each case runs in a child process (this test binary re-run with
//! the case's name), so an abort or a panic fails the test instead of
//! killing the whole harness.

use std::process::Command;

use ot::runtime::mesh::MemoryMesh;
use ot::runtime::rr16;

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
