//! The resolver on small crates given as strings, and the table lookups.

use super::resolve::{exports, Export, Exports};
use super::scan::scan;
use super::{Kernel, Table};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The exports of a crate made of `files` (path under `src/`, text).
fn exports_of(files: &[(&str, &str)]) -> Exports {
    let map: BTreeMap<PathBuf, String> = files
        .iter()
        .map(|(p, t)| (Path::new("src").join(p), t.to_string()))
        .collect();
    let read = |p: &Path| map.get(p).cloned();
    let krate = scan(Path::new("src/lib.rs"), &read).expect("the sources parse");
    exports(&krate)
}

/// The recorded functions as `path/params` (`path/self+params` for methods).
fn paths(e: &Exports) -> Vec<String> {
    e.functions
        .iter()
        .map(
            |Export {
                 path,
                 params,
                 takes_self,
             }| {
                if *takes_self {
                    format!("{path}/self+{params}")
                } else {
                    format!("{path}/{params}")
                }
            },
        )
        .collect()
}

fn has(e: &Exports, entry: &str) -> bool {
    paths(e).iter().any(|p| p == entry)
}

#[test]
fn modules_from_files_and_inline_blocks() {
    let e = exports_of(&[
        (
            "lib.rs",
            "pub mod a; pub mod b; mod hidden; pub mod inline { pub fn f(x: u8) {} pub mod deeper; }",
        ),
        ("a.rs", "pub fn one(x: u8) {} fn private() {} pub mod child;"),
        ("a/child.rs", "pub fn two(x: u8, y: u8) {}"),
        ("b/mod.rs", "pub fn three(a: u8, b: u8, c: u8) {} pub(crate) fn crate_only() {}"),
        ("hidden.rs", "pub fn unreachable() {}"),
        ("inline/deeper.rs", "pub fn g() {}"),
    ]);
    assert_eq!(
        paths(&e),
        [
            "a::child::two/2",
            "a::one/1",
            "b::three/3",
            "inline::deeper::g/0",
            "inline::f/1"
        ]
    );
}

#[test]
fn braced_renamed_and_nested_reexports() {
    let e = exports_of(&[
        ("lib.rs", "pub mod psi; pub use psi::{cuckoo::cuckoo_table as table, self as set};"),
        (
            "psi/mod.rs",
            "pub mod cuckoo; mod private; pub use cuckoo::{cuckoo_table, cuckoo_ok as ok}; pub use private::{inner, Thing};",
        ),
        (
            "psi/cuckoo.rs",
            "pub fn cuckoo_table(s: &[u8], seed: u8, bins: usize) {} pub fn cuckoo_ok(t: u8) -> bool { true }",
        ),
        (
            "psi/private.rs",
            "pub fn inner() {} pub struct Thing; impl Thing { pub fn new(a: u8) -> Self { Thing } fn hidden() {} }",
        ),
    ]);
    for entry in [
        "psi::cuckoo::cuckoo_table/3",
        "psi::cuckoo_table/3",
        "psi::ok/1",
        "psi::inner/0",
        "psi::Thing::new/1",
        "table/3",
        "set::cuckoo_table/3",
        "set::cuckoo::cuckoo_ok/1",
    ] {
        assert!(has(&e, entry), "{entry} in {:?}", paths(&e));
    }
    // Renamed: not under its own name; private: not at all.
    assert!(!has(&e, "psi::cuckoo_ok/1"));
    assert!(!paths(&e)
        .iter()
        .any(|p| p.contains("private") || p.contains("hidden")));
}

#[test]
fn glob_reexports_bring_the_public_names_only() {
    let e = exports_of(&[
        ("lib.rs", "mod inner; pub mod outer; pub use inner::*;"),
        (
            "inner.rs",
            "pub fn a(x: u8) {} fn b() {} pub mod sub { pub fn c() {} } pub use self::sub::c as d;",
        ),
        (
            "outer.rs",
            "pub use crate::inner::sub::*; pub use super::inner::Kind::*;",
        ),
        ("inner/sub.rs", ""),
    ]);
    for entry in ["a/1", "sub::c/0", "d/0", "outer::c/0"] {
        assert!(has(&e, entry), "{entry} in {:?}", paths(&e));
    }
    assert!(!has(&e, "b/0"));
}

#[test]
fn associated_functions_and_methods_of_public_types() {
    let e = exports_of(&[
        (
            "lib.rs",
            "pub mod primitives; pub use primitives::hash::HashTweaks;",
        ),
        ("primitives/mod.rs", "pub mod hash;"),
        (
            "primitives/hash.rs",
            "#[derive(Clone, Default)] pub struct HashTweaks { x: u8 }
             impl HashTweaks {
                 pub fn new(a: u8, b: u8, c: u8) -> Self { todo!() }
                 pub fn index(&self, i: usize) -> u8 { 0 }
                 fn private(&self) {}
             }
             mod more { impl super::HashTweaks { pub fn elsewhere(self: Box<Self>) {} } }
             pub struct Wrap(pub u8, pub u16);
             pub struct Sealed(u8);
             pub enum Shape { Lit(u8), Pair(u8, u8), Unit }
             pub trait Codec { fn decode(b: &[u8]) -> Self; fn len(&self) -> usize; }
             impl Codec for Wrap { fn decode(b: &[u8]) -> Self { todo!() } fn len(&self) -> usize { 2 } }",
        ),
    ]);
    for entry in [
        "HashTweaks::new/3",
        "HashTweaks::index/self+1",
        "HashTweaks::elsewhere/self+0",
        "HashTweaks::default/0",
        "primitives::hash::HashTweaks::new/3",
        "primitives::hash::Wrap/2",
        "primitives::hash::Wrap::decode/1",
        "primitives::hash::Shape::Pair/2",
        "primitives::hash::Codec::len/self+0",
    ] {
        assert!(has(&e, entry), "{entry} in {:?}", paths(&e));
    }
    for absent in ["private", "Sealed", "Shape::Unit"] {
        assert!(
            !paths(&e).iter().any(|p| p.contains(absent)),
            "{absent} in {:?}",
            paths(&e)
        );
    }
}

#[test]
fn path_attributes_cfg_test_and_missing_files() {
    let e = exports_of(&[
        (
            "lib.rs",
            "#[path = \"other/place.rs\"] pub mod moved; #[cfg(test)] pub mod tests; #[cfg(feature = \"x\")] pub mod absent;
             #[cfg(test)] pub fn test_only() {}",
        ),
        ("other/place.rs", "pub fn here() {} pub mod kid;"),
        ("other/kid.rs", "pub fn kid() {}"),
        ("tests.rs", "pub fn in_tests() {}"),
    ]);
    assert_eq!(paths(&e), ["moved::here/0", "moved::kid::kid/0"]);
}

#[test]
fn reexports_of_other_crates_are_opaque() {
    let e = exports_of(&[
        (
            "lib.rs",
            "pub mod ec; pub use ec::Point; pub mod big; pub type Alias = Vec<u8>; pub const N: usize = 1; pub use self::N as M;",
        ),
        ("ec.rs", "pub use curve::RistrettoPoint as Point; pub use ::other::*;"),
        ("big.rs", "pub use rug::Integer;"),
    ]);
    assert_eq!(
        e.opaque,
        ["Alias", "Point", "big::Integer", "ec::*", "ec::Point"]
    );
}

#[test]
fn use_cycles_and_self_reexports_end() {
    let e = exports_of(&[
        ("lib.rs", "pub mod a; pub mod b; pub use a::*;"),
        ("a.rs", "pub use crate::b::*; pub use crate::*; pub fn fa() {} pub use self::x as x; pub use crate::a as again;"),
        ("b.rs", "pub use crate::a::*; pub fn fb() {}"),
    ]);
    for entry in ["a::fa/0", "b::fb/0", "fa/0", "fb/0"] {
        assert!(has(&e, entry), "{entry} in {:?}", paths(&e));
    }
}

#[test]
fn a_file_that_does_not_parse_is_an_error() {
    let map: BTreeMap<PathBuf, String> = [(PathBuf::from("src/lib.rs"), "pub fn (".to_string())]
        .into_iter()
        .collect();
    let read = |p: &Path| map.get(p).cloned();
    let err = scan(Path::new("src/lib.rs"), &read).expect_err("does not parse");
    assert_eq!(err.file, PathBuf::from("src/lib.rs"));
    assert!(!err.message.is_empty());
}

static SMALL: &[Kernel] = &[
    Kernel {
        path: "otext::gf_mul",
        params: 2,
        takes_self: false,
    },
    Kernel {
        path: "otext::stream::prg_rows",
        params: 5,
        takes_self: false,
    },
    Kernel {
        path: "psi::cuckoo_table",
        params: 3,
        takes_self: false,
    },
];

#[test]
fn table_lookups_and_suggestions() {
    let t = Table {
        kernels: SMALL,
        opaque: &["ec::Point", "big::*"],
    };
    assert_eq!(t.at("otext::gf_mul").len(), 1);
    assert!(t.at("otext::gf").is_empty());
    assert!(t.at("zzz").is_empty());
    assert!(t.is_opaque("ec::Point") && t.is_opaque("ec::Point::identity"));
    assert!(!t.is_opaque("ec::Pointy") && !t.is_opaque("ec::base_mul"));
    assert!(t.is_opaque("big::Integer::from"));
    assert_eq!(
        t.did_you_mean("psi::cuckoo_tabel"),
        Some("psi::cuckoo_table")
    );
    assert_eq!(
        t.did_you_mean("otext::cuckoo_table"),
        Some("psi::cuckoo_table")
    );
    assert_eq!(
        t.did_you_mean("otxt::stream::prg_rows"),
        Some("otext::stream::prg_rows")
    );
    assert_eq!(t.did_you_mean("nothing::like::it"), None);
    assert_eq!(t.names_in("otext"), ["gf_mul"]);
}
