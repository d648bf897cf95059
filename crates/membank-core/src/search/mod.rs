//! Ranked full-text search over any memory layout: BM25 over words.
//!
//! Every layout turns its memory into [`Document`]s (an article, a record,
//! an everos entry), the [`SearchIndex`] ranks them for a query, and each
//! [`Hit`] carries the file, the line of its best match, the entry id when
//! there is one, and a snippet with the matched words marked.
//!
//! Words are runs of letters and digits, compared lowercased; each Han,
//! kana or Hangul character is a word of its own, since those scripts do
//! not separate words with spaces. The index is a small inverted index
//! built on all cores; it lives in memory and is rebuilt when memory
//! changes.

mod index;
mod snippet;
pub mod sources;
mod tokens;

pub use index::SearchIndex;
pub use tokens::{Token, tokenize};

use serde::Serialize;

/// One searchable unit of memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document {
    /// Relative to the memory's root, `/`-separated.
    pub file: String,
    /// The file line `text` starts on (1-based).
    pub line: usize,
    /// The entry or record id, when the document is one of several in a file.
    pub entry_id: Option<String>,
    pub text: String,
}

/// A ranked result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Hit {
    /// Index of the document in the index.
    #[serde(skip)]
    pub doc: usize,
    pub file: String,
    /// The file line of the snippet (1-based).
    pub line: usize,
    pub entry_id: Option<String>,
    /// BM25 score; higher is better.
    pub score: f32,
    /// The line with the best match, shortened around it.
    pub snippet: String,
    /// Byte ranges of matched words in `snippet`.
    #[serde(skip)]
    pub highlights: Vec<std::ops::Range<usize>>,
}

impl Hit {
    /// `highlights` as Unicode scalar offsets, for output read by programs
    /// that do not index strings by UTF-8 bytes.
    pub fn highlight_chars(&self) -> Vec<(usize, usize)> {
        let char_at = |byte: usize| self.snippet[..byte].chars().count();
        self.highlights
            .iter()
            .map(|r| (char_at(r.start), char_at(r.end)))
            .collect()
    }
}

#[cfg(test)]
mod tests;
