//! Byte spans and the map from byte offsets to line:column.

use std::fmt;

/// A half-open byte range `start..end` into one source file.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Span {
    pub start: u32,
    pub end: u32,
}

impl Span {
    pub const DUMMY: Span = Span { start: 0, end: 0 };

    pub fn new(start: usize, end: usize) -> Span {
        Span {
            start: start as u32,
            end: end.max(start) as u32,
        }
    }

    /// The smallest span covering both.
    pub fn to(self, other: Span) -> Span {
        Span {
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }

    pub fn len(self) -> usize {
        (self.end - self.start) as usize
    }

    pub fn is_empty(self) -> bool {
        self.start == self.end
    }
}

impl fmt::Debug for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}..{}", self.start, self.end)
    }
}

/// A 1-based line and column (column counted in characters).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineCol {
    pub line: u32,
    pub col: u32,
}

/// One source file: its name, its text and the byte offsets where its lines start.
#[derive(Clone, Debug)]
pub struct SourceFile {
    pub name: String,
    pub text: String,
    line_starts: Vec<u32>,
}

impl SourceFile {
    pub fn new(name: impl Into<String>, text: impl Into<String>) -> SourceFile {
        let text = text.into();
        let mut line_starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i as u32 + 1);
            }
        }
        SourceFile {
            name: name.into(),
            text,
            line_starts,
        }
    }

    /// Line and column of a byte offset (clamped to the text).
    pub fn line_col(&self, offset: u32) -> LineCol {
        let offset = offset.min(self.text.len() as u32);
        let line = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i - 1,
        };
        let start = self.line_starts[line] as usize;
        let mut end = offset as usize;
        while !self.text.is_char_boundary(end) {
            end -= 1;
        }
        let col = self.text[start..end].chars().count() as u32 + 1;
        LineCol {
            line: line as u32 + 1,
            col,
        }
    }

    /// The byte offset of 1-based `line:col` (col in characters; one past the line's last
    /// character is valid), if it exists. O(line length), from the line index.
    pub fn offset_of(&self, line: u32, col: u32) -> Option<u32> {
        let i = (line as usize).checked_sub(1)?;
        let start = *self.line_starts.get(i)? as usize;
        let end = self
            .line_starts
            .get(i + 1)
            .map(|&e| e as usize - 1)
            .unwrap_or(self.text.len());
        let mut off = 0usize;
        let mut chars = self.text[start..end].chars();
        for _ in 1..col {
            off += chars.next()?.len_utf8();
        }
        Some((start + off) as u32)
    }

    /// The text of 1-based line `line`, without its line ending.
    pub fn line_text(&self, line: u32) -> &str {
        let i = (line as usize)
            .saturating_sub(1)
            .min(self.line_starts.len() - 1);
        let start = self.line_starts[i] as usize;
        let end = self
            .line_starts
            .get(i + 1)
            .map(|&e| e as usize)
            .unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// `file:line:col` of a span's start.
    pub fn location(&self, span: Span) -> String {
        let lc = self.line_col(span.start);
        format!("{}:{}:{}", self.name, lc.line, lc.col)
    }

    pub fn slice(&self, span: Span) -> &str {
        self.text.get(span.range()).unwrap_or("")
    }
}
