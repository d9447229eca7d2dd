//! Reading `.otp` files: UTF-8 with an optional byte-order mark (dropped);
//! a file that is not UTF-8 is a located error at the first invalid byte.

use crate::diag::Diagnostic;
use crate::source::{SourceMap, Span};
use std::path::Path;

/// Why a file could not be read.
pub enum ReadError {
    /// The file system refused (missing file, permissions).
    Io(std::io::Error),
    /// Not UTF-8: the error, located in the file (added to the source map).
    NotUtf8(Diagnostic),
}

/// Reads `path` as `.otp` source text shown as `name`. A leading UTF-8
/// byte-order mark is dropped.
pub fn read_source(path: &Path, name: &str, sources: &mut SourceMap) -> Result<String, ReadError> {
    let bytes = std::fs::read(path).map_err(ReadError::Io)?;
    decode(bytes, name, Some(path), sources).map_err(ReadError::NotUtf8)
}

/// Decodes the bytes of a `.otp` file (see [`read_source`]).
pub fn decode(
    mut bytes: Vec<u8>,
    name: &str,
    path: Option<&Path>,
    sources: &mut SourceMap,
) -> Result<String, Diagnostic> {
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        bytes.drain(..3);
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => {
            let at = e.utf8_error().valid_up_to();
            let byte = e.as_bytes()[at];
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let file = sources.add(
                name.to_string(),
                path.map(|p| p.display().to_string()),
                text,
            );
            let span = Span {
                file,
                start: at as u32,
                end: at as u32 + 1,
            };
            Err(Diagnostic::error(
                    span,
                    format!("`{name}` is not UTF-8: byte 0x{byte:02X} at byte offset {at} does not start a valid character"),
                )
            .with_help("save the file as UTF-8 (a byte-order mark is allowed)"))
        }
    }
}

/// The help for an import that cannot be read at `path`: a file of that
/// directory with a close name, and where paths start.
pub fn missing_import_help(path: &Path) -> String {
    let looked = format!(
        "paths are relative to the importing file; looked for {}",
        path.display()
    );
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return looked;
    };
    let files: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.ends_with(".otp"))
                .collect()
        })
        .unwrap_or_default();
    let name = name.to_string_lossy();
    match crate::diag::did_you_mean(&name, files.iter().map(String::as_str)) {
        Some(best) => format!("there is no `{name}` there: did you mean `{best}`? ({looked})"),
        None => looked,
    }
}
