//! The shapes every layout shares: documents with frontmatter and links,
//! findings with stable codes, a ranked result with its explanation, and
//! search hits. The CLI and the interface format these; they never look at
//! a layout's own types.

use std::borrow::Cow;
use std::ops::Range;

use serde::Serialize;

pub use crate::bank::Resolution;
pub use crate::health::{Counts, Finding, HealthOptions, HealthReport, Severity};

/// A document's position in its memory's document list. Stable until the
/// memory is reloaded.
pub type DocId = usize;

/// The documents that link to one, each once, in document order; held as
/// 32-bit ids (a large bank has hundreds of thousands of backlinks, and
/// no memory that fits in memory has 2^32 documents).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Backlinks<'a>(&'a [u32]);

impl<'a> Backlinks<'a> {
    pub fn of(ids: &'a [u32]) -> Backlinks<'a> {
        Backlinks(ids)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub fn contains(&self, id: DocId) -> bool {
        self.iter().any(|from| from == id)
    }

    pub fn iter(&self) -> impl ExactSizeIterator<Item = DocId> + 'a {
        self.0.iter().map(|&id| id as DocId)
    }

    pub fn to_vec(&self) -> Vec<DocId> {
        self.iter().collect()
    }
}

impl<'a> IntoIterator for Backlinks<'a> {
    type Item = DocId;
    type IntoIter = std::iter::Map<std::slice::Iter<'a, u32>, fn(&u32) -> DocId>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter().map(|&id| id as DocId)
    }
}

/// One readable file (or one record inside a file) of a memory, borrowed
/// from the layout that loaded it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Document<'a> {
    /// Relative to the memory's root, `/`-separated: the path every output
    /// shows.
    pub path: &'a str,
    /// What the document is called on screen (first heading, `title:`, or
    /// the file name).
    pub title: Cow<'a, str>,
    /// The groups the document sits in, outermost first, as shown in the
    /// Bank pane: `["01_CLIENTS"]` for a bank article, `["decisions"]` for a
    /// Deja Vu record, `["default", "support-bot", "users", …]` for everos.
    pub groups: Vec<Cow<'a, str>>,
    /// The kind of document in the layout's words (`clients`, `decision`,
    /// `episode`); used for badges and filters.
    pub kind: Cow<'a, str>,
    /// A lifecycle word when the layout has one (`active`, `superseded`).
    pub status: Option<Cow<'a, str>>,
    /// Never shown to a model and marked on screen.
    pub private: bool,
    /// The whole text as membank reads it (LF line endings).
    pub text: &'a str,
    /// Where the body starts in `text` (after the frontmatter block).
    pub body_start: usize,
    /// The frontmatter's YAML inside `text`, when it parsed.
    pub frontmatter: Option<Range<usize>>,
}

impl<'a> Document<'a> {
    pub fn body(&self) -> &'a str {
        self.text.get(self.body_start..).unwrap_or("")
    }

    pub fn frontmatter_text(&self) -> Option<&'a str> {
        self.frontmatter.clone().and_then(|r| self.text.get(r))
    }
}

/// One outgoing link of a document and where it points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocLink<'a> {
    /// As written: `[[Legal|the legal domain]]`, `[x](../summary.md)`.
    pub raw: &'a str,
    /// The part that names the target.
    pub target: &'a str,
    /// 1-based line in the file on disk.
    pub line: usize,
    pub in_frontmatter: bool,
    pub resolution: Resolution,
}

/// One contribution to a ranked result's score, in words.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Reason {
    /// What was compared: `client`, `languages`, `keywords`, `bm25`.
    pub signal: String,
    /// What matched, as written in the document.
    pub matched: String,
    /// What it added, as the layout counts it (`+3`, `overlap 0.67`).
    pub contribution: String,
}

/// A document in a ranking (the §7 context, a Deja Vu recall, a search)
/// and why it sits where it does.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ranked {
    /// 1-based.
    pub rank: usize,
    pub path: String,
    /// The score in the layout's own scale, for display and sorting.
    pub score: f64,
    pub reasons: Vec<Reason>,
    /// Whether the result is used (kept in the context, loaded by recall).
    pub kept: bool,
    /// Why it is not used, when it is not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dropped: Option<String>,
}

/// A piece of text the full-text search indexes: a document, or an entry
/// inside one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchUnit<'a> {
    pub doc: DocId,
    /// The entry's id when the unit is an entry inside a file.
    pub entry_id: Option<&'a str>,
    /// For an entry, the 1-based line of its open marker: the line every
    /// listing names the entry by (`entries --json`'s `line`).
    pub entry_line: Option<usize>,
    /// 1-based line of the unit's first line in the file.
    pub line: usize,
    pub text: &'a str,
    /// Where `text` starts in the document's text (bytes), so an index
    /// can find it there again instead of keeping a copy.
    pub start: usize,
}

/// One full-text search result.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    pub path: String,
    /// 1-based line of the best-matching line.
    pub line: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entry_id: Option<String>,
    pub score: f64,
    /// The line (or lines) around the match, sanitised.
    pub snippet: String,
    /// Byte ranges of the matched words inside `snippet`.
    pub highlights: Vec<Range<usize>>,
}
