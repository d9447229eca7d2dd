//! Reads a crate's module tree with `syn`: for every module (`lib.rs`,
//! `x.rs`, `x/mod.rs`, inline `mod x { .. }`, `#[path = ".."]`), its child
//! modules, free functions, types, `use` declarations and `impl` blocks.
//! What is public from outside the crate is worked out by `resolve.rs`.
//!
//! Shared by the build script (`otp/build.rs` includes this file) and the
//! unit tests; it reads files only through the caller's `read`, so the
//! tests give it sources as strings.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// At most this many modules are read (a `#[path]` cycle stops there).
const MAX_MODULES: usize = 10_000;

/// A function: free, associated (in an `impl`) or declared by a trait.
#[derive(Clone, Debug)]
pub struct Func {
    /// Its name.
    pub name: String,
    /// Declared `pub` (the functions of a trait or of a trait `impl` count
    /// as public).
    pub public: bool,
    /// Parameters, `self` not counted.
    pub params: usize,
    /// Whether it has a `self` receiver.
    pub takes_self: bool,
}

/// What a type declaration is, for the functions its path names.
#[derive(Clone, Debug)]
pub enum TypeKind {
    /// A struct; `Some(n)`: a tuple struct with `n` fields, all public (a
    /// constructor callable as a function).
    Struct(Option<usize>),
    /// An enum: its variants, with the field count of the tuple ones.
    Enum(Vec<(String, Option<usize>)>),
    /// `type X = path;`: the path (`None` for a type that is not a path:
    /// nothing callable).
    Alias(Option<UsePath>),
    /// A trait: the functions it declares.
    Trait(Vec<Func>),
    /// A union.
    Other,
}

/// A type declaration.
#[derive(Clone, Debug)]
pub struct TypeDef {
    /// Declared `pub`.
    pub public: bool,
    /// What it is.
    pub kind: TypeKind,
}

/// A path of a `use` declaration or of an `impl` header.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct UsePath {
    /// Written with a leading `::` (another crate).
    pub global: bool,
    /// The segments (`crate`, `self` and `super` included as written).
    pub segments: Vec<String>,
}

/// What a `use` brings in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Leaf {
    /// One name, under this name (`a::b`, `a::b as c`, `a::{self}`).
    Name(String),
    /// Every public name of the module (`a::*`).
    Glob,
}

/// One import of a `use` declaration (a braced group gives several).
#[derive(Clone, Debug)]
pub struct Use {
    /// `pub use`.
    pub public: bool,
    /// The imported path (for a glob: the module's).
    pub path: UsePath,
    /// The name it is imported as, or a glob.
    pub leaf: Leaf,
}

/// An `impl` block.
#[derive(Clone, Debug)]
pub struct Impl {
    /// The type it is for (generic arguments dropped).
    pub self_path: UsePath,
    /// Its functions.
    pub fns: Vec<Func>,
}

/// One module of the crate.
#[derive(Clone, Debug, Default)]
pub struct Module {
    /// The enclosing module (`None` for the crate root).
    pub parent: Option<usize>,
    /// Child modules by name: declared `pub`, index.
    pub mods: BTreeMap<String, (bool, usize)>,
    /// Free functions.
    pub fns: Vec<Func>,
    /// Types by name.
    pub types: BTreeMap<String, TypeDef>,
    /// Constants and statics (not functions, but known names).
    pub values: BTreeSet<String>,
    /// Imports.
    pub uses: Vec<Use>,
    /// `impl` blocks (trait implementations too).
    pub impls: Vec<Impl>,
}

/// A crate's modules; index 0 is the root.
#[derive(Clone, Debug, Default)]
pub struct Crate {
    /// Every module read.
    pub modules: Vec<Module>,
}

/// A file that could not be parsed.
#[derive(Debug)]
pub struct ScanError {
    /// The file.
    pub file: PathBuf,
    /// `syn`'s message.
    pub message: String,
}

/// Where the files of a module's `mod x;` children are.
#[derive(Clone)]
struct Dirs {
    /// The directory of the file being read (`#[path]` outside inline modules).
    file_dir: PathBuf,
    /// The directory of child module files (`x.rs`, `x/mod.rs`).
    child_dir: PathBuf,
    /// Inside an inline `mod x { .. }`.
    inline: bool,
}

/// Reads the crate whose root file is `root` (`src/lib.rs`). `read` gives
/// a file's text, or `None` when there is no such file: a module whose
/// file is missing is empty (a module for another target, left out by its
/// `cfg`).
pub fn scan(root: &Path, read: &dyn Fn(&Path) -> Option<String>) -> Result<Crate, ScanError> {
    let mut krate = Crate {
        modules: vec![Module::default()],
    };
    let text = read(root).unwrap_or_default();
    let dir = root.parent().map(Path::to_path_buf).unwrap_or_default();
    let dirs = Dirs {
        file_dir: dir.clone(),
        child_dir: dir,
        inline: false,
    };
    let mut reader = Reader {
        krate: &mut krate,
        read,
    };
    reader.file(0, root, &text, &dirs)?;
    Ok(krate)
}

struct Reader<'a> {
    krate: &'a mut Crate,
    read: &'a dyn Fn(&Path) -> Option<String>,
}

impl Reader<'_> {
    fn file(&mut self, m: usize, path: &Path, text: &str, dirs: &Dirs) -> Result<(), ScanError> {
        let parsed = syn::parse_file(text).map_err(|e| ScanError {
            file: path.to_path_buf(),
            message: e.to_string(),
        })?;
        self.items(m, path, &parsed.items, dirs)
    }

    fn items(
        &mut self,
        m: usize,
        file: &Path,
        items: &[syn::Item],
        dirs: &Dirs,
    ) -> Result<(), ScanError> {
        for item in items {
            self.item(m, file, item, dirs)?;
        }
        Ok(())
    }

    fn item(
        &mut self,
        m: usize,
        file: &Path,
        item: &syn::Item,
        dirs: &Dirs,
    ) -> Result<(), ScanError> {
        match item {
            syn::Item::Fn(f) if !test_only(&f.attrs) => {
                let f = func(&f.vis, &f.sig, false);
                self.krate.modules[m].fns.push(f);
            }
            syn::Item::Mod(md) if !test_only(&md.attrs) => self.module(m, file, md, dirs)?,
            syn::Item::Struct(s) if !test_only(&s.attrs) => {
                let ctor = match &s.fields {
                    syn::Fields::Unnamed(f) if f.unnamed.iter().all(|x| is_pub(&x.vis)) => {
                        Some(f.unnamed.len())
                    }
                    _ => None,
                };
                self.declare(m, &s.ident, &s.vis, &s.attrs, TypeKind::Struct(ctor));
            }
            syn::Item::Enum(e) if !test_only(&e.attrs) => {
                let variants = e
                    .variants
                    .iter()
                    .map(|v| {
                        let n = match &v.fields {
                            syn::Fields::Unnamed(f) => Some(f.unnamed.len()),
                            _ => None,
                        };
                        (v.ident.to_string(), n)
                    })
                    .collect();
                self.declare(m, &e.ident, &e.vis, &e.attrs, TypeKind::Enum(variants));
            }
            syn::Item::Const(c) if !test_only(&c.attrs) => {
                self.krate.modules[m].values.insert(c.ident.to_string());
            }
            syn::Item::Static(c) if !test_only(&c.attrs) => {
                self.krate.modules[m].values.insert(c.ident.to_string());
            }
            syn::Item::Union(u) if !test_only(&u.attrs) => {
                self.declare(m, &u.ident, &u.vis, &u.attrs, TypeKind::Other);
            }
            syn::Item::Type(t) if !test_only(&t.attrs) => {
                let target = match &*t.ty {
                    syn::Type::Path(p) if p.qself.is_none() => Some(path_of(&p.path)),
                    _ => None,
                };
                self.declare(m, &t.ident, &t.vis, &t.attrs, TypeKind::Alias(target));
            }
            syn::Item::Trait(t) if !test_only(&t.attrs) => {
                let fns = t
                    .items
                    .iter()
                    .filter_map(|i| match i {
                        syn::TraitItem::Fn(f) => {
                            Some(func(&syn::Visibility::Inherited, &f.sig, true))
                        }
                        _ => None,
                    })
                    .collect();
                self.declare(m, &t.ident, &t.vis, &t.attrs, TypeKind::Trait(fns));
            }
            syn::Item::Use(u) if !test_only(&u.attrs) => {
                let public = is_pub(&u.vis);
                let mut out = vec![];
                flatten(&u.tree, u.leading_colon.is_some(), vec![], &mut out);
                self.krate.modules[m]
                    .uses
                    .extend(
                        out.into_iter()
                            .map(|(path, leaf)| Use { public, path, leaf }),
                    );
            }
            syn::Item::Impl(i) if !test_only(&i.attrs) => {
                let syn::Type::Path(p) = &*i.self_ty else {
                    return Ok(());
                };
                if p.qself.is_some() {
                    return Ok(());
                }
                let by_trait = i.trait_.is_some();
                let fns = i
                    .items
                    .iter()
                    .filter_map(|x| match x {
                        syn::ImplItem::Fn(f) if !test_only(&f.attrs) => {
                            Some(func(&f.vis, &f.sig, by_trait))
                        }
                        _ => None,
                    })
                    .collect();
                self.krate.modules[m].impls.push(Impl {
                    self_path: path_of(&p.path),
                    fns,
                });
            }
            _ => {}
        }
        Ok(())
    }

    /// Records a type, and `default` for one that derives `Default`.
    fn declare(
        &mut self,
        m: usize,
        ident: &syn::Ident,
        vis: &syn::Visibility,
        attrs: &[syn::Attribute],
        kind: TypeKind,
    ) {
        let name = ident.to_string();
        let module = &mut self.krate.modules[m];
        if derives_default(attrs) {
            module.impls.push(Impl {
                self_path: UsePath {
                    global: false,
                    segments: vec![name.clone()],
                },
                fns: vec![Func {
                    name: "default".into(),
                    public: true,
                    params: 0,
                    takes_self: false,
                }],
            });
        }
        module.types.insert(
            name,
            TypeDef {
                public: is_pub(vis),
                kind,
            },
        );
    }

    /// A child module: inline, or read from its file.
    fn module(
        &mut self,
        m: usize,
        file: &Path,
        md: &syn::ItemMod,
        dirs: &Dirs,
    ) -> Result<(), ScanError> {
        if self.krate.modules.len() >= MAX_MODULES {
            return Ok(());
        }
        let name = md.ident.to_string();
        let child = self.krate.modules.len();
        self.krate.modules.push(Module {
            parent: Some(m),
            ..Module::default()
        });
        self.krate.modules[m]
            .mods
            .insert(name.clone(), (is_pub(&md.vis), child));
        let attr_path = path_attr(&md.attrs);
        if let Some((_, items)) = &md.content {
            // Inline: its children are in a directory named after it
            // (after its `#[path]`, if any).
            let sub = attr_path.unwrap_or_else(|| name.clone());
            let inner = Dirs {
                file_dir: dirs.file_dir.clone(),
                child_dir: dirs.child_dir.join(sub),
                inline: true,
            };
            return self.items(child, file, items, &inner);
        }
        let candidates = match attr_path {
            Some(p) if dirs.inline => vec![dirs.child_dir.join(p)],
            Some(p) => vec![dirs.file_dir.join(p)],
            None => vec![
                dirs.child_dir.join(format!("{name}.rs")),
                dirs.child_dir.join(&name).join("mod.rs"),
            ],
        };
        let Some((path, text)) = candidates
            .into_iter()
            .find_map(|p| (self.read)(&p).map(|t| (p, t)))
        else {
            return Ok(());
        };
        let file_dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        // `mod.rs` and `#[path]` files own their directory; `x.rs` owns `x/`.
        let child_dir = if stem == "mod" || path_attr(&md.attrs).is_some() {
            file_dir.clone()
        } else {
            file_dir.join(stem)
        };
        let inner = Dirs {
            file_dir,
            child_dir,
            inline: false,
        };
        self.file(child, &path, &text, &inner)
    }
}

/// A function's record. `always_public`: declared by a trait or in a
/// trait `impl` (public with the trait).
fn func(vis: &syn::Visibility, sig: &syn::Signature, always_public: bool) -> Func {
    let takes_self = sig
        .inputs
        .iter()
        .any(|a| matches!(a, syn::FnArg::Receiver(_)));
    Func {
        name: sig.ident.to_string(),
        public: always_public || is_pub(vis),
        params: sig
            .inputs
            .iter()
            .filter(|a| matches!(a, syn::FnArg::Typed(_)))
            .count(),
        takes_self,
    }
}

/// `pub` (not `pub(crate)` or another restricted visibility).
fn is_pub(vis: &syn::Visibility) -> bool {
    matches!(vis, syn::Visibility::Public(_))
}

/// `#[cfg(test)]`: compiled for the crate's own tests only.
fn test_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("cfg")
            && a.parse_args::<syn::Ident>()
                .map(|i| i == "test")
                .unwrap_or(false)
    })
}

/// `#[derive(.., Default, ..)]`.
fn derives_default(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("derive"))
        .any(|a| {
            a.parse_args_with(
                syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated,
            )
            .map(|ps| {
                ps.iter()
                    .any(|p| p.segments.last().is_some_and(|s| s.ident == "Default"))
            })
            .unwrap_or(false)
        })
}

/// The value of `#[path = ".."]`.
fn path_attr(attrs: &[syn::Attribute]) -> Option<String> {
    attrs.iter().find_map(|a| match &a.meta {
        syn::Meta::NameValue(nv) if nv.path.is_ident("path") => match &nv.value {
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(s),
                ..
            }) => Some(s.value()),
            _ => None,
        },
        _ => None,
    })
}

/// A path's segments, generic arguments dropped.
fn path_of(p: &syn::Path) -> UsePath {
    UsePath {
        global: p.leading_colon.is_some(),
        segments: p.segments.iter().map(|s| s.ident.to_string()).collect(),
    }
}

/// The imports of a `use` tree: each path with the name it is imported as.
fn flatten(
    tree: &syn::UseTree,
    global: bool,
    mut prefix: Vec<String>,
    out: &mut Vec<(UsePath, Leaf)>,
) {
    let path = |segments: Vec<String>| UsePath { global, segments };
    match tree {
        syn::UseTree::Path(p) => {
            prefix.push(p.ident.to_string());
            flatten(&p.tree, global, prefix, out);
        }
        syn::UseTree::Name(n) if n.ident == "self" => {
            // `a::b::{self}`: the module `a::b` under its own name.
            if let Some(last) = prefix.last().cloned() {
                out.push((path(prefix), Leaf::Name(last)));
            }
        }
        syn::UseTree::Name(n) => {
            let name = n.ident.to_string();
            prefix.push(name.clone());
            out.push((path(prefix), Leaf::Name(name)));
        }
        syn::UseTree::Rename(r) => {
            if r.ident != "self" {
                prefix.push(r.ident.to_string());
            }
            // `_`: imported for its trait methods only, under no name.
            if r.rename != "_" {
                out.push((path(prefix), Leaf::Name(r.rename.to_string())));
            }
        }
        syn::UseTree::Glob(_) => out.push((path(prefix), Leaf::Glob)),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten(t, global, prefix.clone(), out);
            }
        }
    }
}
