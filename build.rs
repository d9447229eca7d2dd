//! Rebuilds the facade when a file is added to or removed from
//! `protocols/`: the protocol modules are generated from the directory's
//! listing (`ot_macros::protocol_modules!`), which a procedural macro cannot
//! ask Cargo to watch. Edits of a file are already tracked through the
//! `include_str!` each generated module carries.
fn main() {
    println!("cargo:rerun-if-changed=protocols");
}
