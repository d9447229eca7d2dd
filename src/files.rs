//! The file I/O the runtime leaves to its callers: the runtime's kernels
//! encode and decode (bytes, `Read`/`Write`, text) and never open a file, so
//! reading and writing files lives here, as extension traits that keep the
//! calls as they were (`PrepStore::open(path, me, params)`,
//! `prep.write_to(dir)`, `LinearCode::load(path)`,
//! `TlsIdentity::from_pem_files(cert, key)`): bring the trait into scope
//! (`use ot::files::PrepStoreFile;`, or `use ot::files::*;`).
//!
//! * MiniMac preprocessing files ([`PartyPrepFile`], [`PrepStoreFile`],
//!   [`read_header`]) in the format of
//!   [`runtime::minimac::prep`](crate::runtime::minimac::prep), with the
//!   consumption record `<file>.consumed` next to each file
//!   ([`ConsumedFile`]).
//! * Generator-matrix text files of linear codes ([`LinearCodeFile`]).
//! * PEM files of TLS identities and trust anchors (`TlsIdentityFile`,
//!   `TlsTrustFile`, with the feature `tls`).

use std::fs;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use crate::runtime::minimac::prep::{
    decode_record, encode_record, Counts, PartyPrep, PrepError, PrepHeader, PrepParams, PrepStore,
    UsageRecord, HEADER_LEN,
};
use crate::runtime::oprf::code::{CodeError, LinearCode};

/// Writing a party's MiniMac preprocessing file.
pub trait PartyPrepFile {
    /// Writes the file `dir/minimac-<batch>-p<me>.prep`
    /// ([`PartyPrep::file_name`]) and returns its path.
    fn write_to(&self, dir: &Path) -> Result<PathBuf, PrepError>;
}

impl PartyPrepFile for PartyPrep {
    fn write_to(&self, dir: &Path) -> Result<PathBuf, PrepError> {
        let path = dir.join(self.file_name());
        let io = |source| PrepError::Io {
            path: path.clone(),
            source,
        };
        let mut f =
            std::io::BufWriter::with_capacity(1 << 20, fs::File::create(&path).map_err(io)?);
        self.write(&mut f).map_err(io)?;
        f.flush().map_err(io)?;
        Ok(path)
    }
}

/// Reads the header of the preprocessing file at `path` (only its first
/// [`HEADER_LEN`] bytes; [`PrepHeader::parse`]).
pub fn read_header(path: &Path) -> Result<PrepHeader, PrepError> {
    let io = |source| PrepError::Io {
        path: path.to_path_buf(),
        source,
    };
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    fs::File::open(path)
        .map_err(io)?
        .take(HEADER_LEN as u64)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    PrepHeader::parse(&bytes)
}

/// Opening a party's MiniMac preprocessing file as a [`PrepStore`].
pub trait PrepStoreFile: Sized {
    /// Loads `path` for party `me` and `params`, with the consumption
    /// record next to it ([`ConsumedFile::next_to`]).
    fn open(path: &Path, me: usize, params: PrepParams) -> Result<Self, PrepError>;
}

impl PrepStoreFile for PrepStore {
    fn open(path: &Path, me: usize, params: PrepParams) -> Result<PrepStore, PrepError> {
        let bytes = fs::read(path).map_err(|source| PrepError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        PrepStore::from_bytes(&bytes, me, params, Box::new(ConsumedFile::next_to(path)))
    }
}

/// The consumption record of a preprocessing file, `<file>.consumed`
/// ([`encode_record`]'s one line), replaced atomically on every save: the
/// new line goes to `<file>.consumed.tmp`, is synced, and the temporary
/// file is renamed over the record.
#[derive(Clone, Debug)]
pub struct ConsumedFile {
    path: PathBuf,
}

impl ConsumedFile {
    /// The record of the preprocessing file at `file`: `<file>.consumed`.
    pub fn next_to(file: &Path) -> ConsumedFile {
        let mut record = file.as_os_str().to_owned();
        record.push(".consumed");
        ConsumedFile {
            path: PathBuf::from(record),
        }
    }

    /// The record's path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl UsageRecord for ConsumedFile {
    fn load(&mut self, batch: u64) -> Result<Counts, PrepError> {
        match fs::read_to_string(&self.path) {
            Ok(text) => decode_record(&text, batch).ok_or_else(|| PrepError::BadRecord {
                path: self.path.clone(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Counts::default()),
            Err(source) => Err(PrepError::Io {
                path: self.path.clone(),
                source,
            }),
        }
    }

    fn save(&mut self, batch: u64, used: Counts) -> Result<(), PrepError> {
        let tmp = self.path.with_extension("consumed.tmp");
        let io = |source| PrepError::Io {
            path: self.path.clone(),
            source,
        };
        let mut f = fs::File::create(&tmp).map_err(io)?;
        f.write_all(encode_record(batch, used).as_bytes())
            .map_err(io)?;
        f.sync_all().map_err(io)?;
        fs::rename(&tmp, &self.path).map_err(io)?;
        Ok(())
    }
}

/// Reading a linear code's generator-matrix file.
pub trait LinearCodeFile: Sized {
    /// Reads a generator matrix file in the format of
    /// [`LinearCode::parse`] ([`CodeError::Io`] if it cannot be read).
    fn load(path: impl AsRef<Path>) -> Result<Self, CodeError>;
}

impl LinearCodeFile for LinearCode {
    fn load(path: impl AsRef<Path>) -> Result<LinearCode, CodeError> {
        let path = path.as_ref();
        let text = fs::read_to_string(path).map_err(|e| CodeError::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        LinearCode::parse(&text)
    }
}

#[cfg(feature = "tls")]
pub use tls::{TlsIdentityFile, TlsTrustFile};

#[cfg(feature = "tls")]
mod tls {
    use crate::runtime::transport::channel::{TlsIdentity, TlsSetupError, TlsTrust};
    use std::path::Path;

    fn read(path: &Path) -> Result<Vec<u8>, TlsSetupError> {
        std::fs::read(path).map_err(|e| TlsSetupError::Pem {
            what: path.display().to_string(),
            reason: e.to_string(),
        })
    }

    /// Reading a TLS identity from PEM files.
    pub trait TlsIdentityFile: Sized {
        /// From PEM files (see [`TlsIdentity::from_pem`]).
        fn from_pem_files(cert: &Path, key: &Path) -> Result<Self, TlsSetupError>;
    }

    impl TlsIdentityFile for TlsIdentity {
        fn from_pem_files(cert: &Path, key: &Path) -> Result<TlsIdentity, TlsSetupError> {
            TlsIdentity::from_pem(&read(cert)?, &read(key)?)
        }
    }

    /// Reading TLS trust anchors from a PEM file.
    pub trait TlsTrustFile: Sized {
        /// From a PEM file (see [`TlsTrust::from_pem`]).
        fn from_pem_file(ca: &Path) -> Result<Self, TlsSetupError>;
    }

    impl TlsTrustFile for TlsTrust {
        fn from_pem_file(ca: &Path) -> Result<TlsTrust, TlsSetupError> {
            TlsTrust::from_pem(&read(ca)?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::LinearCodeFile;
    use crate::runtime::oprf::code::{CodeError, LinearCode};

    /// Moved from the runtime's `oprf::code::linear` tests with
    /// `LinearCode::load`.
    #[test]
    fn linear_code_files_load_and_report_errors() {
        let c = LinearCode::bch_511_76();
        let dir = std::env::temp_dir().join(format!("ot-code-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("bch.txt");
        std::fs::write(&file, c.to_text()).unwrap();
        assert_eq!(LinearCode::load(&file).unwrap().digest(), c.digest());
        std::fs::write(&file, "10\n1\n").unwrap();
        assert!(matches!(
            LinearCode::load(&file).unwrap_err(),
            CodeError::RowLength { line: 2, .. }
        ));
        std::fs::remove_dir_all(&dir).unwrap();
        assert!(matches!(
            LinearCode::load(dir.join("missing.txt")).unwrap_err(),
            CodeError::Io { .. }
        ));
    }
}
