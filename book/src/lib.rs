//! Read this book with `cargo doc -p ot-book --open`, or read the markdown
//! files in `book/chapters/` directly (they render on any forge).
//!
//! The book of the `ot` workspace: one chapter per topic, each a module
//! whose documentation is the chapter's markdown file. Every ```` ```rust ````
//! block of a chapter is a doctest, so `cargo test --workspace` (or
//! `cargo test -p ot-book`) compiles every example and runs those that need
//! neither several machines nor a network; the TLS and tokio examples of the
//! deployment chapter compile with `--features tls,tokio`.
//!
//! Why rustdoc and not mdBook: a fresh machine has only Rust and a C
//! compiler, and `mdbook test` would need an install plus a way to link the
//! workspace's crates into its examples; doctests of a workspace member get
//! `ot` and its dependencies from cargo, and run under the project's one
//! test command.
//!
//! Chapters:
//!
//! 1. [`getting_started`]
//! 2. [`otp_language`]: reference and diagnostics
//! 3. [`writing_protocols`]
//! 4. [`two_party_ot`]
//! 5. [`multiparty`]
//! 6. [`orlandi`]
//! 7. [`minimac`]
//! 8. [`quietot`]
//! 9. [`silent_ot`]
//! 10. [`deployment`]: `otp run`, TLS, async
//! 11. [`performance`]: every figure with its command, date, machine and load
//! 12. [`internals`]
//!
//! The [`readme`] module holds the repository's README, whose example is
//! tested like the chapters'.
#![forbid(unsafe_code)]
#![warn(missing_docs)]

#[doc = include_str!("../../README.md")]
pub mod readme {}

#[doc = include_str!("../chapters/01-getting-started.md")]
pub mod getting_started {}

#[doc = include_str!("../chapters/02-otp-language.md")]
pub mod otp_language {}

#[doc = include_str!("../chapters/03-writing-protocols.md")]
pub mod writing_protocols {}

#[doc = include_str!("../chapters/04-two-party-ot.md")]
pub mod two_party_ot {}

#[doc = include_str!("../chapters/05-multiparty.md")]
pub mod multiparty {}

#[doc = include_str!("../chapters/06-orlandi.md")]
pub mod orlandi {}

#[doc = include_str!("../chapters/07-minimac.md")]
pub mod minimac {}

#[doc = include_str!("../chapters/08-quietot.md")]
pub mod quietot {}

#[doc = include_str!("../chapters/09-silent-ot.md")]
pub mod silent_ot {}

#[doc = include_str!("../chapters/10-deployment.md")]
pub mod deployment {}

#[doc = include_str!("../chapters/11-performance.md")]
pub mod performance {}

#[doc = include_str!("../chapters/12-internals.md")]
pub mod internals {}

#[cfg(test)]
mod tests {
    /// The README shows `readme/coin_flip.otp` as text and compiles the
    /// file itself in its example: the two must not drift apart.
    #[test]
    fn readme_shows_the_protocol_its_example_compiles() {
        let readme = include_str!("../../README.md");
        let otp = include_str!("../readme/coin_flip.otp");
        assert!(readme.contains(&format!("```text\n{otp}```")));
    }
}
