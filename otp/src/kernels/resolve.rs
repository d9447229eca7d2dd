//! Which paths of a crate, as seen from outside it, name a function: every
//! `pub fn` reached through `pub mod`s, every associated function of a
//! public type's `impl`, and the same under every name a `pub use`
//! re-exports them (`pub use a::b::{c, d as e};`, `pub use a::b::*;`),
//! including re-exports of items of private modules.
//!
//! A `pub use` of something outside the crate (`pub use rug::Integer;`)
//! cannot be followed: its path is recorded as *opaque*, and so is every
//! path under it.

use super::scan::{Crate, Func, Leaf, TypeKind, Use, UsePath};
use std::cell::Cell;
use std::collections::BTreeMap;

/// Resolution through `use` chains stops this deep (a `use` cycle).
const MAX_DEPTH: usize = 32;
/// Re-exported modules are followed this many levels deep at most.
const MAX_NESTING: usize = 24;
/// At most this many functions are recorded.
const MAX_EXPORTS: usize = 200_000;
/// At most this many name lookups per resolved path (glob imports of glob
/// imports could otherwise branch without end).
const LOOKUP_BUDGET: usize = 100_000;

/// A function the crate exports.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Export {
    /// The path from the crate root, `::`-separated (`psi::cuckoo_table`,
    /// `HashTweaks::new`).
    pub path: String,
    /// Parameters, `self` not counted.
    pub params: usize,
    /// Whether it takes `self` (a method).
    pub takes_self: bool,
}

/// What the crate exports.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exports {
    /// The functions, sorted by path.
    pub functions: Vec<Export>,
    /// Paths re-exported from outside the crate: nothing at or under them
    /// is known (`primitives::bignum::Integer`; `m::*` for a glob).
    pub opaque: Vec<String>,
}

/// What a name resolves to inside the crate.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Target {
    /// A module, by index.
    Module(usize),
    /// A free function: module and index in its `fns`.
    Fn(usize, usize),
    /// A type: its module and name.
    Type(usize, String),
    /// A constant or a static.
    Value,
}

/// The exports of `krate`.
pub fn exports(krate: &Crate) -> Exports {
    let mut r = Resolver {
        krate,
        assoc: BTreeMap::new(),
        out: Exports::default(),
        budget: Cell::new(0),
    };
    r.index_impls();
    let mut prefix = vec![];
    let mut stack = vec![];
    r.module(0, &mut prefix, &mut stack);
    r.out.functions.sort();
    r.out.functions.dedup();
    r.out.opaque.sort();
    r.out.opaque.dedup();
    r.out
}

struct Resolver<'a> {
    krate: &'a Crate,
    /// The functions of the `impl` blocks of each type (module, name).
    assoc: BTreeMap<(usize, String), Vec<&'a Func>>,
    out: Exports,
    /// Lookups left for the path being resolved (see [`LOOKUP_BUDGET`]).
    budget: Cell<usize>,
}

impl<'a> Resolver<'a> {
    /// Files every `impl` block's functions under the type it is for.
    fn index_impls(&mut self) {
        let k = self.krate;
        for (m, module) in k.modules.iter().enumerate() {
            for i in &module.impls {
                for t in self.resolve(m, &i.self_path, 0) {
                    if let Target::Type(tm, name) = t {
                        self.assoc.entry((tm, name)).or_default().extend(&i.fns);
                    }
                }
            }
        }
    }

    /// What `name` means in module `m`: its items, then its named imports,
    /// then (if nothing else) its glob imports.
    fn lookup(&self, m: usize, name: &str, depth: usize) -> Vec<Target> {
        let Some(module) = self.krate.modules.get(m) else {
            return vec![];
        };
        if depth > MAX_DEPTH || self.budget.get() == 0 {
            return vec![];
        }
        self.budget.set(self.budget.get() - 1);
        let mut out = vec![];
        if let Some((_, c)) = module.mods.get(name) {
            out.push(Target::Module(*c));
        }
        for (i, f) in module.fns.iter().enumerate() {
            if f.name == name {
                out.push(Target::Fn(m, i));
            }
        }
        if module.types.contains_key(name) {
            out.push(Target::Type(m, name.to_string()));
        }
        if module.values.contains(name) {
            out.push(Target::Value);
        }
        for u in &module.uses {
            if u.leaf == Leaf::Name(name.to_string()) {
                out.extend(self.resolve(m, &u.path, depth + 1));
            }
        }
        if out.is_empty() {
            for u in module.uses.iter().filter(|u| u.leaf == Leaf::Glob) {
                for t in self.resolve(m, &u.path, depth + 1) {
                    if let Target::Module(n) = t {
                        out.extend(self.lookup(n, name, depth + 1));
                    }
                }
            }
        }
        out
    }

    /// What `path` means in module `m` (nothing for another crate's path).
    fn resolve(&self, m: usize, path: &UsePath, depth: usize) -> Vec<Target> {
        if path.global || depth > MAX_DEPTH {
            return vec![];
        }
        if depth == 0 {
            self.budget.set(LOOKUP_BUDGET);
        }
        let mut segs = path.segments.iter().map(String::as_str).peekable();
        let mut cur = match segs.peek() {
            Some(&"crate") => vec![Target::Module(0)],
            Some(&"self") => vec![Target::Module(m)],
            Some(&"super") => vec![Target::Module(m)],
            Some(first) => {
                let found = self.lookup(m, first, depth + 1);
                segs.next();
                found
            }
            None => return vec![],
        };
        if matches!(segs.peek(), Some(&"crate" | &"self")) {
            segs.next();
        }
        while segs.peek() == Some(&"super") {
            segs.next();
            cur = cur
                .into_iter()
                .filter_map(|t| match t {
                    Target::Module(n) => self.krate.modules.get(n)?.parent.map(Target::Module),
                    _ => None,
                })
                .collect();
        }
        for seg in segs {
            cur = cur
                .into_iter()
                .flat_map(|t| match t {
                    Target::Module(n) => self.lookup(n, seg, depth + 1),
                    _ => vec![],
                })
                .collect();
        }
        cur
    }

    fn push(&mut self, path: &[String], f: &Func) {
        if self.out.functions.len() < MAX_EXPORTS {
            self.out.functions.push(Export {
                path: path.join("::"),
                params: f.params,
                takes_self: f.takes_self,
            });
        }
    }

    fn push_ctor(&mut self, path: &[String], params: usize) {
        let f = Func {
            name: String::new(),
            public: true,
            params,
            takes_self: false,
        };
        self.push(path, &f);
    }

    /// Records what module `m` exports, under `prefix`.
    fn module(&mut self, m: usize, prefix: &mut Vec<String>, stack: &mut Vec<usize>) {
        let k = self.krate;
        let Some(module) = k.modules.get(m) else {
            return;
        };
        if stack.contains(&m) || stack.len() > MAX_NESTING {
            return;
        }
        stack.push(m);
        for (name, (public, c)) in &module.mods {
            if *public {
                prefix.push(name.clone());
                self.module(*c, prefix, stack);
                prefix.pop();
            }
        }
        for f in module.fns.iter().filter(|f| f.public) {
            prefix.push(f.name.clone());
            self.push(prefix, f);
            prefix.pop();
        }
        for (name, t) in &module.types {
            if t.public {
                prefix.push(name.clone());
                self.ty(m, name, prefix, 0);
                prefix.pop();
            }
        }
        for u in module.uses.iter().filter(|u| u.public) {
            self.reexport(m, u, prefix, stack);
        }
        stack.pop();
    }

    /// Records what a `pub use` of module `m` exports, under `prefix`.
    fn reexport(&mut self, m: usize, u: &Use, prefix: &mut Vec<String>, stack: &mut Vec<usize>) {
        let targets = self.resolve(m, &u.path, 0);
        match &u.leaf {
            Leaf::Name(alias) => {
                prefix.push(alias.clone());
                if targets.is_empty() {
                    self.out.opaque.push(prefix.join("::"));
                }
                for t in targets {
                    self.target(t, prefix, stack);
                }
                prefix.pop();
            }
            Leaf::Glob => {
                let mut any = false;
                for t in targets {
                    match t {
                        Target::Module(n) => {
                            any = true;
                            self.module(n, prefix, stack);
                        }
                        Target::Type(tm, name) => {
                            any = true;
                            self.variants(tm, &name, prefix);
                        }
                        Target::Fn(..) | Target::Value => {}
                    }
                }
                if !any {
                    prefix.push("*".into());
                    self.out.opaque.push(prefix.join("::"));
                    prefix.pop();
                }
            }
        }
    }

    /// Records what a re-exported target exports, under `path`.
    fn target(&mut self, t: Target, path: &mut Vec<String>, stack: &mut Vec<usize>) {
        let k = self.krate;
        match t {
            Target::Module(n) => self.module(n, path, stack),
            Target::Fn(fm, fi) => {
                if let Some(f) = k.modules.get(fm).and_then(|x| x.fns.get(fi)) {
                    self.push(path, f);
                }
            }
            Target::Type(tm, name) => self.ty(tm, &name, path, 0),
            Target::Value => {}
        }
    }

    /// Records the functions a type's path names, under `path`: its
    /// constructor or variants, a trait's functions, the public functions
    /// of its `impl` blocks (all those of trait `impl`s).
    fn ty(&mut self, tm: usize, name: &str, path: &mut Vec<String>, depth: usize) {
        let k = self.krate;
        let Some(t) = k.modules.get(tm).and_then(|x| x.types.get(name)) else {
            return;
        };
        if depth > MAX_DEPTH {
            return;
        }
        match &t.kind {
            TypeKind::Struct(Some(n)) => self.push_ctor(path, *n),
            TypeKind::Enum(_) => self.variants(tm, name, path),
            TypeKind::Trait(fns) => {
                for f in fns {
                    path.push(f.name.clone());
                    self.push(path, f);
                    path.pop();
                }
            }
            TypeKind::Alias(None) => {}
            TypeKind::Alias(Some(target)) => {
                let targets = self.resolve(tm, target, 0);
                if targets.is_empty() {
                    self.out.opaque.push(path.join("::"));
                }
                for t in targets {
                    if let Target::Type(am, an) = t {
                        self.ty(am, &an, path, depth + 1);
                    }
                }
            }
            TypeKind::Struct(None) | TypeKind::Other => {}
        }
        let fns: Vec<&Func> = self
            .assoc
            .get(&(tm, name.to_string()))
            .map(|v| v.iter().copied().filter(|f| f.public).collect())
            .unwrap_or_default();
        for f in fns {
            path.push(f.name.clone());
            self.push(path, f);
            path.pop();
        }
    }

    /// Records the tuple variants of enum `name` of module `tm` as
    /// constructors under `path`.
    fn variants(&mut self, tm: usize, name: &str, path: &mut Vec<String>) {
        let k = self.krate;
        let Some(TypeKind::Enum(vs)) = k
            .modules
            .get(tm)
            .and_then(|x| x.types.get(name))
            .map(|t| &t.kind)
        else {
            return;
        };
        for (v, n) in vs {
            if let Some(n) = n {
                path.push(v.clone());
                self.push_ctor(path, *n);
                path.pop();
            }
        }
    }
}
