//! The registry of protocols: what each shipped protocol is, declared once
//! in its `.otp` file's `about` block and generated into its module as
//! `ABOUT`.
//!
//! Every list of protocols in this workspace reads it: the facade's modules
//! and their docs (one per file of `protocols/`, generated), the `otp`
//! command's lists, and the tests that keep `SECURITY.md`'s table in step.
//! Adding a protocol is adding its `.otp` file (with its `about` block), its
//! kernels and its tests.
//!
//! ```
//! let kos = ot::registry::find("Kos").expect("KOS is shipped");
//! assert!(kos.security.starts_with("malicious"));
//! assert_eq!(kos.realizes, Some("RandomOt"));
//! assert_eq!(ot::kos::ABOUT.name, "Kos");
//! ```

/// What a protocol is: one entry of the registry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct About {
    /// The protocol's name as declared (`protocol Kos ...`).
    pub name: &'static str,
    /// Where it is declared, `file:line`.
    pub location: &'static str,
    /// Its family (`"base OT"`, `"OT extension"`, `"MPC"`, ...).
    pub family: &'static str,
    /// The security label, as `SECURITY.md` states it (`semi-honest`,
    /// `malicious, with abort`, `as the COTs it consumes`, ...).
    pub security: &'static str,
    /// The published proof the label rests on (always given for a
    /// malicious label; may be empty for a semi-honest one).
    pub proof: &'static str,
    /// What it does, in a sentence or two (the module's doc).
    pub summary: &'static str,
    /// The functionality it realizes (`realizes F`), whose traits its
    /// module implements.
    pub realizes: Option<&'static str>,
    /// Who takes part.
    pub parties: Parties,
    /// The number of rounds (messages) in the specification.
    pub rounds: usize,
}

impl About {
    /// Whether the label claims malicious security (it starts with
    /// `malicious`; the compiler then requires a [`About::proof`]).
    pub fn malicious(&self) -> bool {
        self.security.starts_with("malicious")
    }

    /// The `.otp` file's name (`kos.otp`), from [`About::location`].
    pub fn file_name(&self) -> &'static str {
        let file = self
            .location
            .rsplit_once(':')
            .map_or(self.location, |(f, _)| f);
        file.rsplit('/').next().unwrap_or(file)
    }
}

/// Who takes part in a protocol.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Parties {
    /// Two named roles (`Sender`, `Receiver`).
    Two {
        /// The roles' names, in declaration order.
        roles: [&'static str; 2],
    },
    /// `n` parties `P[0..n]` (`role P[n]`), and possibly a dealer.
    Many {
        /// Whether a named dealer role takes part besides the parties.
        dealer: bool,
    },
}

/// Every protocol of `protocols/` (one module of this crate each), in
/// file-name order.
pub const PROTOCOLS: &[&About] = crate::SHIPPED;

/// The protocol named `name` (as declared, e.g. `"Kos"`), or the one
/// declared in file `name` or `name.otp` (`"kos"`).
pub fn find(name: &str) -> Option<&'static About> {
    PROTOCOLS.iter().copied().find(|a| {
        a.name == name || a.file_name() == name || a.file_name().strip_suffix(".otp") == Some(name)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_module_has_its_entry_once() {
        assert!(PROTOCOLS.len() >= 50);
        let mut names: Vec<&str> = PROTOCOLS.iter().map(|a| a.name).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), PROTOCOLS.len(), "protocol names are unique");
        assert_eq!(find("kos.otp"), Some(&crate::kos::ABOUT));
        assert_eq!(find("Iknp").map(|a| a.file_name()), Some("iknp.otp"));
    }

    #[test]
    fn malicious_labels_cite_a_proof() {
        for a in PROTOCOLS {
            assert!(!a.security.is_empty(), "{}", a.name);
            if a.malicious() {
                assert!(
                    !a.proof.is_empty(),
                    "{} is labelled malicious without a proof",
                    a.name
                );
            }
        }
    }
}
