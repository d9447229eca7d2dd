//! Source files and byte spans, so every diagnostic can point at
//! `file:line:col` with a snippet.

/// Index of a file in a [`SourceMap`].
pub type FileId = u32;

/// A byte range in one source file.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Span {
    /// The file the span is in.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span covering `self` through `other` (same file assumed).
    pub fn to(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }
}

/// One loaded source file.
#[derive(Clone, Debug)]
pub struct SourceFile {
    /// The name shown in diagnostics (relative to the manifest dir when possible).
    pub name: String,
    /// The absolute path, if the file came from disk (used for `include_str!`).
    pub abs_path: Option<String>,
    /// The text.
    pub text: String,
}

/// All files loaded for one compilation.
#[derive(Clone, Debug, Default)]
pub struct SourceMap {
    /// Files in load order.
    pub files: Vec<SourceFile>,
}

impl SourceMap {
    /// Adds a file and returns its id.
    pub fn add(&mut self, name: String, abs_path: Option<String>, text: String) -> FileId {
        self.files.push(SourceFile {
            name,
            abs_path,
            text,
        });
        (self.files.len() - 1) as FileId
    }

    /// The file of a span.
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id as usize]
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> (usize, usize) {
        let text = &self.file(file).text;
        let offset = (offset as usize).min(text.len());
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map(|i| i + 1).unwrap_or(0);
        let col = text[line_start..offset].chars().count() + 1;
        (line, col)
    }

    /// The full text of the (1-based) line.
    pub fn line_text(&self, file: FileId, line: usize) -> &str {
        self.file(file)
            .text
            .lines()
            .nth(line.saturating_sub(1))
            .unwrap_or("")
    }

    /// The source text covered by a span.
    pub fn snippet(&self, span: Span) -> &str {
        let text = &self.file(span.file).text;
        let s = (span.start as usize).min(text.len());
        let e = (span.end as usize).clamp(s, text.len());
        &text[s..e]
    }
}
