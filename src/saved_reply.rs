//! Keeping a model reply the user paid for: a file of its own in the
//! temporary folder, readable by the user only, shared by the command line
//! (`compile`, `writeback`) and the interface (a reply left on quitting).

use std::io::Write;
use std::path::{Path, PathBuf};

/// Why a reply could not be kept, worded for the user.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NotSaved {
    /// The temporary folder lies inside the memory: nothing outside the
    /// memory's own files may be written there.
    TempInsideMemory,
    /// Writing failed; the folder (as printable text) and the error.
    Failed { dir: String, error: String },
}

impl std::fmt::Display for NotSaved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotSaved::TempInsideMemory => {
                f.write_str("the temporary folder is inside the memory; the reply is not saved")
            }
            NotSaved::Failed { dir, error } => {
                write!(f, "the reply could not be saved in {dir}: {error}")
            }
        }
    }
}

/// The first line of a saved reply that did not arrive whole. `--reply`
/// refuses a file that starts with it: its last block may be cut short,
/// and applied it would truncate an article. Whoever has checked the
/// reply deletes the line to apply it.
const INCOMPLETE_MARK: &str = "<!-- membank: this reply did not arrive whole (the stream was \
    cut, failed or was stopped); --reply refuses it. Delete this line to apply what you have \
    checked yourself. -->";

/// Why a reply read for `--reply` (named `name`) is not applied, when it
/// was saved from a reply that did not arrive whole.
pub fn refuse_incomplete(text: &str, name: &str) -> Result<(), String> {
    let first = text
        .trim_start_matches('\u{feff}')
        .lines()
        .next()
        .unwrap_or("");
    if first.trim_end() == INCOMPLETE_MARK {
        return Err(format!(
            "{name} was saved from a reply that did not arrive whole; it is not applied (its last \
             block may be cut short). Delete its first line to apply what you have checked \
             yourself."
        ));
    }
    Ok(())
}

/// Save `text` under a new, unpredictable name in the temporary folder
/// (`membank-KIND-reply-DATE-….md`). Nothing is saved for an empty reply.
/// A reply that is not `complete` is saved with a first line that makes
/// `--reply` refuse it.
pub fn save(
    root: &Path,
    text: &str,
    now: jiff::civil::DateTime,
    kind: &str,
    complete: bool,
) -> Result<Option<PathBuf>, NotSaved> {
    if text.is_empty() {
        return Ok(None);
    }
    let marked;
    let text = if complete {
        text
    } else {
        marked = format!("{INCOMPLETE_MARK}\n{text}");
        marked.as_str()
    };
    let dir = std::env::temp_dir();
    let inside_memory = match (dir.canonicalize(), root.canonicalize()) {
        (Ok(dir), Ok(root)) => dir.starts_with(root),
        _ => true,
    };
    if inside_memory {
        return Err(NotSaved::TempInsideMemory);
    }
    // Created exclusively, readable by the user only: the temporary folder
    // is shared on most systems.
    let prefix = format!("membank-{kind}-reply-{}-", now.strftime("%Y%m%d-%H%M%S"));
    let written = tempfile::Builder::new()
        .prefix(&prefix)
        .suffix(".md")
        .tempfile_in(&dir)
        .and_then(|mut f| {
            f.write_all(text.as_bytes())?;
            f.keep().map_err(|e| e.error)
        });
    match written {
        Ok((_, path)) => Ok(Some(path)),
        Err(e) => Err(NotSaved::Failed {
            dir: membank_core::text::sanitize_for_terminal(&dir.display().to_string(), false),
            error: e.to_string(),
        }),
    }
}

/// The notes a reply was made from, kept beside it (`REPLY.sent.json`) so
/// that applying it later with `--reply` stamps and archives only those,
/// and only while they are as they were sent.
pub fn save_sent(reply: &Path, sent: &[membank_core::compile::SentNote]) -> Result<(), NotSaved> {
    let path = sent_path(reply);
    let failed = |e: std::io::Error| NotSaved::Failed {
        dir: membank_core::text::sanitize_for_terminal(&path.display().to_string(), false),
        error: e.to_string(),
    };
    let json = serde_json::to_vec(sent).map_err(|e| failed(std::io::Error::other(e)))?;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options
        .open(&path)
        .and_then(|mut f| f.write_all(&json))
        .map_err(failed)
}

/// The notes saved beside `reply` by [`save_sent`]: `None` when there is
/// no such file (a reply from elsewhere), an error when it cannot be read.
pub fn sent_with(reply: &Path) -> Option<Result<Vec<membank_core::compile::SentNote>, String>> {
    let path = sent_path(reply);
    let bytes = match membank_core::safe_read::read_regular(
        &path,
        membank_core::safe_read::DEFAULT_MAX_FILE_BYTES,
    ) {
        Ok(bytes) => bytes,
        Err(e) if e.is_not_found() => return None,
        Err(e) => return Some(Err(format!("{} {e}", path.display()))),
    };
    Some(
        serde_json::from_slice(&bytes)
            .map_err(|e| format!("{} is not a list of the notes sent: {e}", path.display())),
    )
}

fn sent_path(reply: &Path) -> PathBuf {
    let mut name = reply.as_os_str().to_owned();
    name.push(".sent.json");
    PathBuf::from(name)
}
