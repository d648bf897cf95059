//! Ranked full-text search over any memory layout: BM25 over words.
//!
//! Every layout gives its text as search units through
//! [`Memory::search_units`] (an article, a record, an everos entry), the
//! [`SearchIndex`] ranks them for a query, and each [`SearchHit`] carries the file, the line of its best match, the entry id when
//! there is one, and a snippet with the matched words marked.
//!
//! Words are runs of letters and digits, compared lowercased; each Han,
//! kana or Hangul character is a word of its own, since those scripts do
//! not separate words with spaces. The index is a small inverted index
//! built on all cores; it lives in memory and is rebuilt when memory
//! changes.

mod index;
mod snippet;
mod tokens;

pub use index::SearchIndex;
pub use tokens::{Token, tokenize};

use crate::memory::{Memory, SearchHit};

/// A unit of text in the index, owned so the index outlives a reload.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unit {
    /// Relative to the memory's root, `/`-separated.
    pub path: String,
    /// The file line `text` starts on (1-based).
    pub line: usize,
    /// The entry or record id, when the unit is one of several in a file.
    pub entry_id: Option<String>,
    pub text: String,
}

/// Every search unit of a memory, owned.
pub fn units_of(memory: &dyn Memory) -> Vec<Unit> {
    // Units of one document come together: its path is looked up once.
    let mut path: Option<(usize, String)> = None;
    memory
        .search_units()
        .into_iter()
        .map(|u| {
            if path.as_ref().is_none_or(|(doc, _)| *doc != u.doc) {
                path = Some((u.doc, memory.document(u.doc).path.to_owned()));
            }
            Unit {
                path: path.as_ref().map(|(_, p)| p.clone()).unwrap_or_default(),
                line: u.line,
                entry_id: u.entry_id.map(str::to_owned),
                text: u.text.to_owned(),
            }
        })
        .collect()
}

/// A hit's highlights as Unicode scalar offsets into its snippet, for
/// output read by programs that do not index strings by UTF-8 bytes.
pub fn highlight_chars(hit: &SearchHit) -> Vec<(usize, usize)> {
    let char_at = |byte: usize| hit.snippet[..byte].chars().count();
    hit.highlights
        .iter()
        .map(|r| (char_at(r.start), char_at(r.end)))
        .collect()
}

#[cfg(test)]
mod tests;
