//! trybuild UI tests: every `.otp` diagnostic the `protocol!` macro reports,
//! and the rustc errors for misusing the generated typestate API, pinned as
//! `.stderr` snapshots (`TRYBUILD=overwrite cargo test --test ui` to refresh,
//! then review each file).

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/*.rs");
}
