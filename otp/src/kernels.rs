//! The runtime's functions, for `otp check` to verify intrinsic
//! declarations without rustc.
//!
//! The table is generated at build time (`otp/build.rs`): the sources of
//! `ot-runtime/src` are parsed with `syn` (`kernels/scan.rs`) and every
//! function a path from outside the crate can name is recorded
//! (`kernels/resolve.rs`; both files are compiled into the build script,
//! and here for their unit tests only), with its number of parameters and
//! whether it takes `self`: each `pub fn` reached through `pub mod`s, each
//! function of an `impl` of a public type (and of a trait `impl`, and
//! `default` of a type deriving `Default`), tuple struct and variant
//! constructors, and all of these again under every name a `pub use`
//! re-exports them (braces, renames, globs, items of private modules). Paths the runtime re-exports from other crates are recorded as
//! opaque: nothing under them is checked. Functions that macros generate
//! are not seen.
//!
//! When the runtime's sources are not next to this package (an install
//! from a registry) the table is empty, and `otp check` skips the check
//! silently; the generated code is still checked by rustc when
//! `protocol!` expands.

#[cfg(test)]
mod resolve;
#[cfg(test)]
mod scan;
#[cfg(test)]
mod tests;

use ot_compiler::diag::did_you_mean;

/// One function of the runtime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kernel {
    /// Its path from the runtime's root, `::`-separated
    /// (`psi::cuckoo_table`, `HashTweaks::new`).
    pub path: &'static str,
    /// Parameters, `self` not counted.
    pub params: usize,
    /// Whether it takes `self` (a method).
    pub takes_self: bool,
}

include!(concat!(env!("OUT_DIR"), "/kernels.rs"));

/// A table of functions, sorted by path.
#[derive(Clone, Copy)]
pub struct Table {
    /// The functions, sorted by path.
    pub kernels: &'static [Kernel],
    /// Paths under which nothing is known, sorted (`m::*`: every name
    /// directly in module `m` and under it).
    pub opaque: &'static [&'static str],
}

impl Table {
    /// The runtime's table, generated at build time.
    pub const RUNTIME: Table = Table {
        kernels: KERNELS,
        opaque: OPAQUE,
    };

    /// Whether anything was recorded (the runtime's sources were found).
    pub fn is_empty(&self) -> bool {
        self.kernels.is_empty()
    }

    /// The functions recorded at `path` (several when `cfg` alternatives
    /// define it more than once).
    pub fn at(&self, path: &str) -> &'static [Kernel] {
        let k = self.kernels;
        let lo = k.partition_point(|x| x.path < path);
        let hi = lo + k[lo..].partition_point(|x| x.path == path);
        &k[lo..hi]
    }

    /// Whether `path` is at or under a path re-exported from another crate.
    pub fn is_opaque(&self, path: &str) -> bool {
        self.opaque.iter().any(|o| match o.strip_suffix("*") {
            Some(module) => path.starts_with(module),
            None => {
                path == *o
                    || path
                        .strip_prefix(*o)
                        .is_some_and(|rest| rest.starts_with("::"))
            }
        })
    }

    /// The recorded path `path` most likely meant: a close name in the
    /// same module, else the same name in another module (when only one
    /// has it), else the closest whole path.
    pub fn did_you_mean(&self, path: &str) -> Option<&'static str> {
        let (module, name) = split(path);
        let siblings: Vec<&'static str> = self
            .kernels
            .iter()
            .filter(|k| split(k.path).0 == module)
            .map(|k| split(k.path).1)
            .collect();
        if let Some(best) = did_you_mean(name, siblings.iter().copied()) {
            return self.kernels.iter().map(|k| k.path).find(|p| {
                let (m, n) = split(p);
                m == module && n == best
            });
        }
        let mut same_name = self
            .kernels
            .iter()
            .map(|k| k.path)
            .filter(|p| split(p).1 == name);
        if let Some(only) = same_name.next() {
            if same_name.all(|p| p == only) {
                return Some(only);
            }
        }
        did_you_mean(path, self.kernels.iter().map(|k| k.path))
    }

    /// The names recorded directly in `module` (a module or type path),
    /// sorted, without duplicates.
    pub fn names_in(&self, module: &str) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = self
            .kernels
            .iter()
            .filter(|k| split(k.path).0 == module)
            .map(|k| split(k.path).1)
            .collect();
        names.dedup();
        names
    }
}

/// A path's module part and last name (`("psi", "cuckoo_table")`; the
/// module is empty at the root).
pub fn split(path: &str) -> (&str, &str) {
    match path.rsplit_once("::") {
        Some((m, n)) => (m, n),
        None => ("", path),
    }
}
