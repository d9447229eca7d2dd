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
    /// Byte offset of the start of each line (so locating a span is a
    /// binary search, not a scan of the file).
    line_starts: Vec<u32>,
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
        let line_starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i as u32 + 1))
            .collect();
        self.files.push(SourceFile {
            name,
            abs_path,
            text,
            line_starts,
        });
        (self.files.len() - 1) as FileId
    }

    /// How many files are loaded (the id the next one gets).
    pub fn file_count(&self) -> FileId {
        self.files.len() as FileId
    }

    /// The file of a span.
    pub fn file(&self, id: FileId) -> &SourceFile {
        &self.files[id as usize]
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub fn line_col(&self, file: FileId, offset: u32) -> (usize, usize) {
        let f = self.file(file);
        let text = &f.text;
        let mut offset = (offset as usize).min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        // Index of the last line starting at or before `offset`.
        let line = f.line_starts.partition_point(|&s| s as usize <= offset);
        let line_start = f
            .line_starts
            .get(line.wrapping_sub(1))
            .copied()
            .unwrap_or(0) as usize;
        let col = text[line_start..offset].chars().count() + 1;
        (line.max(1), col)
    }

    /// The full text of the (1-based) line.
    pub fn line_text(&self, file: FileId, line: usize) -> &str {
        let f = self.file(file);
        let Some(&start) = f.line_starts.get(line.saturating_sub(1)) else {
            return "";
        };
        let rest = &f.text[start as usize..];
        let line = rest.split('\n').next().unwrap_or("");
        line.strip_suffix('\r').unwrap_or(line)
    }

    /// The source text covered by a span.
    pub fn snippet(&self, span: Span) -> &str {
        let text = &self.file(span.file).text;
        let s = (span.start as usize).min(text.len());
        let e = (span.end as usize).clamp(s, text.len());
        &text[s..e]
    }
}
