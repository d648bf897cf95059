//! Ranked full-text search over any memory layout: BM25 over words.
//!
//! Every layout gives its text as search units through
//! [`Memory::search_units`] (an article, a record, an everos entry), the
//! [`SearchIndex`] ranks them for a query, and each [`SearchHit`] carries the file, the line of its best match, the entry id when
//! there is one, and a snippet with the matched words marked.
//!
//! Words are runs of letters and digits, compared lowercased and without
//! accents (`café` finds `cafe` and the other way round); each Han,
//! kana or Hangul character is a word of its own, since those scripts do
//! not separate words with spaces. The index is a small inverted index
//! built on all cores over the memory's own text (it keeps no copy of
//! it); it lives in memory and is rebuilt when memory changes.

mod index;
pub mod one_pass;
mod postings;
mod snippet;
mod tokens;

pub use index::SearchIndex;
pub use tokens::{Token, tokenize};

use std::borrow::Cow;

use crate::memory::{Memory, SearchHit};

/// A unit of text for an index built apart from any memory
/// ([`SearchIndex::of_units`]): each is a document of its own.
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

/// Where a search reads a hit's path and text: the memory (or the units)
/// the index was built from.
pub trait Texts {
    fn path(&self, doc: usize) -> &str;
    /// The document's text; read again from its file when the memory
    /// keeps no bodies (empty when that fails: a hit then has no snippet).
    fn text(&self, doc: usize) -> Cow<'_, str>;
}

impl Texts for dyn Memory {
    fn path(&self, doc: usize) -> &str {
        // A memory read again since the index was built may have fewer
        // documents; its hits then have no text rather than a panic.
        if doc < self.len() {
            self.document(doc).path
        } else {
            ""
        }
    }

    fn text(&self, doc: usize) -> Cow<'_, str> {
        if doc < self.len() {
            self.full_text(doc).unwrap_or_default()
        } else {
            Cow::Borrowed("")
        }
    }
}

impl Texts for [Unit] {
    fn path(&self, doc: usize) -> &str {
        self.get(doc).map_or("", |u| u.path.as_str())
    }

    fn text(&self, doc: usize) -> Cow<'_, str> {
        Cow::Borrowed(self.get(doc).map_or("", |u| u.text.as_str()))
    }
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
