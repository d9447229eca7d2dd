//! `otp expand`: the Rust code `protocol!` generates, pretty-printed
//! (prettyplease) so it reads like hand-written code.

use crate::{load, Color, Fail};
use std::path::Path;

/// Prints the generated module items of `file`.
pub fn run(file: &Path, color: Color) -> Result<(), Fail> {
    let c = load::compile(file, color)?;
    match syn::parse2::<syn::File>(c.tokens.clone()) {
        Ok(f) => print!("{}", prettyplease::unparse(&f)),
        // The generated tokens always parse; if they ever do not, show them raw.
        Err(_) => println!("{}", c.tokens),
    }
    Ok(())
}
