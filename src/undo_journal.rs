//! Where membank keeps its undo journal and how much: `journal/` in the
//! state folder (never inside a memory), bounded by the `[undo]` table of
//! the config file:
//!
//! ```toml
//! [undo]
//! max_mb = 64     # the whole journal; oldest entries go first
//! max_days = 30   # entries older than this go
//! ```

use membank_core::journal::{self, Journal};
use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
struct UndoTable {
    #[serde(default)]
    undo: Undo,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Undo {
    max_mb: Option<u64>,
    max_days: Option<u32>,
}

/// The journal of this user, bounded as the config file's `text` says
/// (`None`: no config file); `None` when there is no state folder.
pub fn journal(text: Option<&str>) -> anyhow::Result<Option<Journal>> {
    let Some(state) = crate::state::state_dir() else {
        return Ok(None);
    };
    let mut journal = Journal::new(state.join("journal"));
    journal.on_error = |e| tracing::warn!("{e}");
    journal.remedy = "Make it writable, or set MEMBANK_STATE_DIR (or XDG_STATE_HOME) to a \
                      folder that is.";
    journal.raise_bound = match membank_llm::config::config_file_path() {
        Some(path) => format!(
            "To keep changes this large, raise max_mb in the [undo] table of {}.",
            path.display()
        ),
        None => "To keep changes this large, raise max_mb in the [undo] table of the config \
                 file."
            .into(),
    };
    let Some(text) = text else {
        return Ok(Some(journal));
    };
    // Told without the file's text: the offending line may hold a key.
    let table: UndoTable = toml::from_str(text).map_err(|e| {
        anyhow::anyhow!(
            "[undo] table: {}",
            membank_core::toml_error::describe(text, &e)
        )
    })?;
    if let Some(mb) = table.undo.max_mb {
        anyhow::ensure!(mb > 0, "[undo] max_mb must be at least 1");
        journal.max_bytes = mb.saturating_mul(1024 * 1024);
    }
    if let Some(days) = table.undo.max_days {
        anyhow::ensure!(days > 0, "[undo] max_days must be at least 1");
        journal.max_days = days;
    }
    Ok(Some(journal))
}

/// Make every transaction of this run record to the user's journal,
/// bounded as the config file's `text` says.
pub fn install(text: Option<&str>) -> anyhow::Result<()> {
    if let Some(j) = journal(text)? {
        journal::install(j);
    }
    Ok(())
}

/// What `undo` reverted.
#[derive(Debug, Clone)]
pub struct Undone {
    pub entry: journal::Entry,
    /// The change had been interrupted (its run was killed), or an undo of
    /// it had been and this one finished it: files that run never wrote
    /// were left as they were.
    pub interrupted: bool,
    /// It was an undo of the change a killed run had begun that this one
    /// finished.
    pub resumed: bool,
    /// Journal files that could not be read (named, with the reason), and
    /// the folders the change made that the undo kept.
    pub warnings: Vec<String>,
    /// The folders the change made that are still there: files were put
    /// in them since, and an undo never deletes what it did not write.
    pub kept: Vec<String>,
}

/// Take back the last change journalled for the memory `tx` holds the
/// lock of: nothing is written when any of its files changed since (the
/// message names the file). The one entry point for every front end.
/// `asked` is the id of the entry a front end named when it asked: when
/// another change was journalled since, nothing is reverted.
pub fn undo_last(
    tx: &membank_core::transaction::Transaction,
    asked: Option<&str>,
) -> Result<Undone, String> {
    let journal =
        journal::installed().ok_or("no state folder for the undo journal: nothing to undo")?;
    undo_last_in(&journal, tx, asked)
}

/// The change `undo` would take back for the memory at `root`, or why
/// there is none to take back: the one answer of every front end (a
/// damaged entry that may be the last change stops it, named).
pub fn last_to_undo(
    journal: &Journal,
    root: &std::path::Path,
) -> Result<(journal::Next, Vec<journal::Corrupt>), String> {
    let (entries, corrupt) = journal.entries(root);
    let Some(next) = journal::next_undo(&entries) else {
        // A damaged entry may be the change the user wants back: say so,
        // rather than that there is nothing.
        if let Some(c) = corrupt.last() {
            return Err(damaged(c));
        }
        return Err(journal::Refused::Nothing {
            listed: entries.len(),
        }
        .to_string());
    };
    // A damaged entry newer than the one found may be the real last
    // change: reverting an older one under it could undo the wrong thing.
    let newer_corrupt = corrupt.iter().find(|c| {
        c.file
            .file_stem()
            .is_some_and(|s| s.to_string_lossy().as_ref() > next.entry.id.as_str())
    });
    if let Some(c) = newer_corrupt {
        return Err(damaged(c));
    }
    Ok((next, corrupt))
}

/// What is said of a damaged entry that may be the last change: what
/// happened first, as a status line cuts the end of a long path.
fn damaged(c: &journal::Corrupt) -> String {
    format!(
        "the last journal entry cannot be read ({}); nothing was reverted: {}",
        c.reason,
        c.file.display()
    )
}

/// [`undo_last`] with an explicit journal.
pub fn undo_last_in(
    journal: &Journal,
    tx: &membank_core::transaction::Transaction,
    asked: Option<&str>,
) -> Result<Undone, String> {
    let (next, corrupt) = last_to_undo(journal, tx.root())?;
    // The user said yes to one change: another one journalled since (by
    // another run) is not taken back in its place.
    if let Some(asked) = asked
        && next.entry.id != asked
    {
        return Err(format!(
            "the last change is now another one ({} of {}), journalled since undo was asked; \
             nothing was reverted",
            next.entry.kind, next.entry.time
        ));
    }
    journal::revert_next(tx, &next).map_err(|e| e.to_string())?;
    let mut warnings: Vec<String> = corrupt
        .iter()
        .map(|c| format!("{}: {}", c.file.display(), c.reason))
        .collect();
    let interrupted = next.interrupted();
    let resumed = next.resumes.is_some();
    let entry = next.entry;
    let kept: Vec<String> = entry
        .files
        .iter()
        .filter(|f| f.change == journal::Recorded::FolderMade)
        .filter(|f| std::fs::symlink_metadata(tx.root().join(&f.path)).is_ok_and(|m| m.is_dir()))
        .map(|f| f.path.clone())
        .collect();
    for folder in &kept {
        warnings.push(format!(
            "{folder} was kept: it is not empty (files were put in it since the change); \
             remove it by hand if it should go"
        ));
    }
    Ok(Undone {
        entry,
        interrupted,
        resumed,
        warnings,
        kept,
    })
}
