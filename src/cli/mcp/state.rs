//! What every MCP session of one server shares: the bank, loaded once and
//! kept current by the file watcher, and the proposals waiting to be
//! applied.

use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard};

use membank::watch::{MemoryWatcher, Watched};

use membank_core::health::Finding;
use membank_core::memory::{DocId, Memory};
use membank_core::scoring::{self, Query};
use membank_core::search::SearchIndex;
use membank_core::text::sanitize_for_terminal;
use tokio::sync::broadcast;

use super::writes::Proposals;

/// Why a document is missing from an answer, for listings and refusals.
pub const WITHHELD_WHY: &str = "private memory (memory/private/, memory/local/, memory/raw/, \
memory/transcripts/, *.secret.* files, and links to them) is not served to a model; start the \
server with --include-private to serve it";

/// What stands in a served text for a line that names private memory (a
/// link into it, an impression routing to it).
pub const WITHHELD_LINE: &str = "[line withheld: it names private memory, which this server \
does not serve; start the server with --include-private to serve it]";

/// `text` with each of its (1-based) `lines` replaced by [`WITHHELD_LINE`],
/// so the other lines keep their numbers; and how many were replaced.
pub fn without_lines(text: &str, lines: &[usize]) -> (String, usize) {
    membank_core::text::replace_lines(text, lines, WITHHELD_LINE)
}

/// `diff` (unified, or a report quoting such diffs) with each line whose
/// text after the one-character prefix is one of `withheld` replaced by
/// [`WITHHELD_LINE`] under the same prefix: a diff's context would
/// otherwise quote the lines [`without_lines`] leaves out.
pub fn diff_without(diff: &str, withheld: &std::collections::HashSet<String>) -> String {
    if withheld.is_empty() {
        return diff.to_owned();
    }
    let mut out = String::with_capacity(diff.len());
    for line in diff.split_inclusive('\n') {
        let body = line.trim_end_matches(['\n', '\r']);
        let quoted = body
            .char_indices()
            .nth(1)
            .map(|(at, _)| at)
            .filter(|&at| withheld.contains(&body[at..]));
        match quoted {
            Some(at) => {
                out.push_str(&body[..at]);
                out.push_str(WITHHELD_LINE);
                out.push_str(&line[body.len()..]);
            }
            None => out.push_str(line),
        }
    }
    out
}

pub struct Shared {
    memory: RwLock<Box<dyn Memory>>,
    /// The bank folder as the user named it (the CLI's `check --json`
    /// reports it this way).
    pub shown_bank: String,
    pub allow_writes: bool,
    /// Serve private memory too (`--include-private`).
    pub include_private: bool,
    pub proposals: Mutex<Proposals>,
    /// The full-text index, built on the first search after a load or a
    /// change.
    search_index: Mutex<Option<Arc<SearchIndex>>>,
    /// Relative paths of files that changed, for resource notifications.
    changes: broadcast::Sender<Arc<Vec<String>>>,
    /// Held while a changed memory is read, so two refreshes (the
    /// watcher's and a write's) never start from the same old memory and
    /// one undo the other.
    refreshing: Mutex<()>,
}

impl Shared {
    pub fn new(
        memory: Box<dyn Memory>,
        shown_bank: String,
        allow_writes: bool,
        include_private: bool,
    ) -> Arc<Shared> {
        let (changes, _) = broadcast::channel(64);
        Arc::new(Shared {
            memory: RwLock::new(memory),
            shown_bank,
            allow_writes,
            include_private,
            proposals: Mutex::new(Proposals::default()),
            search_index: Mutex::new(None),
            changes,
            refreshing: Mutex::new(()),
        })
    }

    /// The current memory. A panic while holding the lock cannot leave it
    /// half-updated in a way reading would notice, so a poisoned lock is
    /// simply taken over.
    pub fn memory(&self) -> RwLockReadGuard<'_, Box<dyn Memory>> {
        self.memory.read().unwrap_or_else(|e| e.into_inner())
    }

    /// The search index of the current memory, without the documents this
    /// server withholds.
    pub fn search_index(&self, memory: &dyn Memory) -> Arc<SearchIndex> {
        let mut cached = self.search_index.lock().unwrap_or_else(|e| e.into_inner());
        Arc::clone(cached.get_or_insert_with(|| {
            Arc::new(if self.include_private {
                SearchIndex::of_memory(memory)
            } else {
                SearchIndex::of_shared_memory(memory)
            })
        }))
    }

    /// True when the document is private memory this server does not serve.
    pub fn withholds(&self, memory: &dyn Memory, doc: DocId) -> bool {
        !self.include_private && memory.document(doc).private
    }

    /// Whether this server leaves out some of the memory's documents: then
    /// "there is no such document" and "it is withheld" get one answer,
    /// as telling them apart would tell a client what private memory holds.
    pub fn hides_private(&self, memory: &dyn Memory) -> bool {
        !self.include_private && memory.spec().kind == membank_core::memory::LayoutKind::DejaVu
    }

    /// The lines of a served document that this server withholds, as they
    /// name private memory.
    pub fn withheld_lines(&self, memory: &dyn Memory, doc: DocId) -> Vec<usize> {
        if self.include_private {
            return Vec::new();
        }
        memory.lines_naming_private(doc)
    }

    /// The text of every line of the memory's served documents that this
    /// server withholds (see [`Shared::withheld_lines`]), to keep them out
    /// of the diffs a proposal shows.
    pub fn withheld_line_texts(&self, memory: &dyn Memory) -> std::collections::HashSet<String> {
        let mut texts = std::collections::HashSet::new();
        if self.include_private {
            return texts;
        }
        for doc in 0..memory.len() {
            let lines = memory.lines_naming_private(doc);
            if lines.is_empty() {
                continue;
            }
            for (i, line) in memory.document(doc).text.lines().enumerate() {
                if lines.binary_search(&(i + 1)).is_ok() {
                    texts.insert(line.trim_end_matches('\r').to_owned());
                }
            }
        }
        texts
    }

    /// [`Shared::withheld_line_texts`] and the lines the proposed texts
    /// (`path`, text) would write that name private memory: a diff's new
    /// side is not on disk yet.
    pub fn withheld_with_proposed<'a>(
        &self,
        memory: &dyn Memory,
        proposed: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> std::collections::HashSet<String> {
        let mut texts = self.withheld_line_texts(memory);
        if self.include_private {
            return texts;
        }
        if let Some(project) = membank::layouts::project(memory) {
            for (path, text) in proposed {
                texts.extend(
                    project
                        .proposed_lines_naming_private(path, text)
                        .into_iter()
                        .map(str::to_owned),
                );
            }
        }
        texts
    }

    /// Whether a health finding is about private memory this server does
    /// not serve: a private file, or a line of a shared one that names it.
    /// Each file's lines naming private memory are found once, not once
    /// per finding (an impressions file's run to every line).
    pub fn finding_withholder<'a>(
        &'a self,
        memory: &'a dyn Memory,
    ) -> impl Fn(&Finding) -> bool + 'a {
        let lines_of: std::cell::RefCell<std::collections::HashMap<DocId, Vec<usize>>> =
            Default::default();
        move |f: &Finding| {
            if self.include_private {
                return false;
            }
            if membank::layouts::project(memory).is_some_and(|p| p.is_private(&f.path)) {
                return true;
            }
            memory.find(&f.path).is_some_and(|doc| {
                memory.document(doc).private
                    || f.line().is_some_and(|l| {
                        lines_of
                            .borrow_mut()
                            .entry(doc)
                            .or_insert_with(|| memory.lines_naming_private(doc))
                            .contains(&l)
                    })
            })
        }
    }

    /// Whether the file at `rel` is private memory this server does not
    /// serve, by its name or by what it is (a link into private memory).
    pub fn withholds_path(&self, memory: &dyn Memory, rel: &str) -> bool {
        self.hides_private(memory)
            && (membank::layouts::project(memory).is_some_and(|p| p.is_private(rel))
                || memory
                    .find(rel)
                    .is_some_and(|id| memory.document(id).private))
    }

    /// How many documents of the memory this server withholds.
    pub fn withheld_count(&self, memory: &dyn Memory) -> usize {
        if self.include_private {
            return 0;
        }
        (0..memory.len())
            .filter(|&doc| memory.document(doc).private)
            .count()
    }

    pub fn subscribe_changes(&self) -> broadcast::Receiver<Arc<Vec<String>>> {
        self.changes.subscribe()
    }

    /// Build what the first call would otherwise build on a spare thread,
    /// so that call answers as fast as every later one: for a bank the
    /// packed scoring arrays of `context` (a fifth of a second at 100,000
    /// articles), for the other layouts, where search is how one asks, the
    /// search index (about a second at 100,000 everos entries).
    pub fn warm_up(self: &Arc<Self>) {
        let shared = Arc::clone(self);
        let _ = std::thread::Builder::new()
            .name("membank-mcp-warm-up".into())
            .spawn(move || {
                let memory = shared.memory();
                if let Some(bank) = membank::layouts::bank(&**memory) {
                    scoring::rank(bank, &Query::default());
                } else {
                    shared.search_index(memory.as_ref());
                }
            });
    }

    /// Re-read the files that changed and tell the sessions which. Calls
    /// answer from the memory as it was until the new one is read.
    pub fn reload(self: &Arc<Self>, rels: Vec<String>) {
        if rels.is_empty() {
            return;
        }
        let _one_at_a_time = self.refreshing.lock().unwrap_or_else(|e| e.into_inner());
        let refreshed = self.memory().refreshed(&rels);
        match refreshed {
            Ok(refreshed) => {
                let mut memory = self.memory.write().unwrap_or_else(|e| e.into_inner());
                *memory = refreshed.memory;
                // Cleared while the memory is locked for writing, so no
                // search can cache an index of the old text after this point.
                *self.search_index.lock().unwrap_or_else(|e| e.into_inner()) = None;
            }
            Err(e) => {
                let e = sanitize_for_terminal(&e.to_string(), false);
                eprintln!("membank mcp: reading the memory again failed: {e}");
                return;
            }
        }
        tracing::info!(files = rels.len(), "mcp memory reloaded");
        self.warm_up();
        // No session listening is not an error.
        let _ = self.changes.send(Arc::new(rels));
    }
}

/// Watch the memory and apply every debounced batch of its changes. The
/// returned watcher must be kept alive for as long as the server runs.
pub fn watch(shared: &Arc<Shared>) -> anyhow::Result<MemoryWatcher> {
    let (spec, root) = {
        let memory = shared.memory();
        (memory.spec(), memory.root().to_path_buf())
    };
    let shared = Arc::clone(shared);
    let watcher = MemoryWatcher::spawn(spec, &root, move |watched| {
        match watched {
            Watched::Changed(rels) => shared.reload(rels),
            Watched::Failed(e) => eprintln!("membank mcp: {}", sanitize_for_terminal(&e, false)),
        }
        true
    })?;
    Ok(watcher)
}
