//! everos memory roots, read-only.
//!
//! An everos memory root keeps Markdown as the source of truth (SQLite and
//! LanceDB under `.index/` are rebuilt from it). This module reads that
//! Markdown exactly as everos 1.x does, lists its entries, and checks what
//! everos itself never checks. Nothing here writes into a root.
//!
//! - [`resolve`]: where the root is (`EVEROS_ROOT`, `EVEROS_MEMORY__ROOT`,
//!   `[memory] root`, `~/.everos`) and whether a folder is one.
//! - [`paths`]: scope, owner and kind from a path.
//! - [`entries`]: entry markers and ids.
//! - [`load`]: walking and reading a root into [`MemoryRoot`].
//! - [`stream`]: reading a root once, keeping only what a command needs.
//! - [`check`]: the findings.
//! - [`query`]: entry filters and lookups.
//! - [`search`]: one query over a root, ranked as it is read.
//! - [`rows_json`]: the JSON rows of `entries`, written straight from a file.
//! - [`memory`]: the root behind the shared layout boundary.

pub mod check;
pub mod entries;
pub mod frontmatter;
pub mod lax_time;
pub mod load;
pub mod memory;
pub mod paths;
pub mod query;
pub mod resolve;
pub mod rows_json;
pub mod search;
pub mod stream;
mod yaml;
mod yaml11;

use std::ops::Range;
use std::path::{Path, PathBuf};

pub use load::{LoadFilter, load, load_filtered};
pub use memory::{LAYOUT, SEARCH_NOTE};
pub use paths::{DailyKind, FileKind, OwnerKind, Place, SystemKind};

use crate::health::Finding;

/// A loaded memory root.
#[derive(Debug, Default)]
pub struct MemoryRoot {
    pub(crate) root: PathBuf,
    /// Every file found outside `.index/`, sorted by path.
    pub files: Vec<MemFile>,
    /// Skill folders (`…/skills/skill_<name>`), relative, with whether
    /// they hold a `SKILL.md`.
    pub skill_dirs: Vec<(String, bool)>,
    /// `.index/` and `.tmp/` when present: shown, never read.
    pub system_dirs: Vec<(String, SystemKind)>,
    /// Files that could not be read (links, too large, not UTF-8, …).
    pub problems: Vec<Finding>,
    /// The files that are documents (memory that was read), in listing
    /// order: indices into `files`.
    pub(crate) docs: Vec<usize>,
    pub(crate) doc_of_file: Vec<Option<usize>>,
}

impl MemoryRoot {
    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn entry_count(&self) -> usize {
        self.files.iter().map(|f| f.entries.len()).sum()
    }

    pub fn file(&self, rel_path: &str) -> Option<&MemFile> {
        self.files
            .binary_search_by(|f| f.rel_path.as_str().cmp(rel_path))
            .ok()
            .map(|i| &self.files[i])
    }
}

/// One file of the root.
#[derive(Debug, Clone)]
pub struct MemFile {
    /// Relative to the root, `/`-separated.
    pub rel_path: String,
    pub place: Place,
    /// Text as read (LF line endings); empty for files that are not read.
    pub text: String,
    /// The file started with a UTF-8 byte-order mark (everos does not strip
    /// it, so it sees no frontmatter).
    pub had_bom: bool,
    /// The frontmatter split, for the Markdown files that have one.
    pub head: Option<frontmatter::Split>,
    /// Entries of a daily log, in file order.
    pub entries: Vec<Entry>,
    /// An open marker without its close: everos stops reading entries there.
    pub unclosed: Option<Unclosed>,
}

/// An open marker without its close.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unclosed {
    pub id: String,
    /// 1-based line and byte offset of the marker.
    pub line: usize,
    pub offset: usize,
}

impl MemFile {
    pub fn entry_text(&self, e: &Entry) -> &str {
        &self.text[e.text.clone()]
    }

    /// The body after the frontmatter, for files that are read.
    pub fn body(&self) -> &str {
        let start = self.head.as_ref().map_or(0, |h| h.body_start);
        &self.text[start..]
    }
}

/// One entry of a daily log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    /// 1-based line of the open marker.
    pub line: usize,
    /// The whole entry, markers included, in the file text.
    pub span: Range<usize>,
    /// everos's body (one newline stripped each side).
    pub body: Range<usize>,
    /// The body without the blank lines around it: what membank shows.
    pub text: Range<usize>,
}
