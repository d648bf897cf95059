//! The undo journal: one entry per transaction that changed a memory,
//! with each file's bytes before and after (for an append, only the bytes
//! appended and the length before), so the last change can be reverted
//! when its files are still as it left them.
//!
//! The journal lives in a folder the caller chooses (the binary uses its
//! state folder, never a memory): one sub-folder per memory, one JSON file
//! per entry, named so that name order is time order. It only ever holds
//! bytes of files a transaction wrote. It is bounded by total size and by
//! age, pruned oldest first after every entry written.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::atomic::write_atomic_private;
use crate::transaction::{Kind, Transaction};

/// Default bound on the journal's total size.
pub const DEFAULT_MAX_BYTES: u64 = 64 * 1024 * 1024;
/// Default bound on an entry's age.
pub const DEFAULT_MAX_DAYS: u32 = 30;
/// An entry file larger than this is reported, not read.
const MAX_ENTRY_BYTES: u64 = 512 * 1024 * 1024;
/// The kind of the entry an undo writes.
pub const UNDO_KIND: &str = "undo";

/// Where entries go and how much is kept.
#[derive(Debug, Clone)]
pub struct Journal {
    pub dir: PathBuf,
    pub max_bytes: u64,
    pub max_days: u32,
    /// Told why an entry could not be written, or that it is larger than
    /// the size bound (the write itself stands).
    pub on_error: fn(&str),
    /// What a message about an unusable journal folder tells the user to
    /// do: the program that chose the folder knows how it is moved.
    pub remedy: &'static str,
    /// How the size bound is raised, for the message about an entry larger
    /// than it: the program that reads the bound knows where it is set.
    pub raise_bound: String,
}

/// An entry written: its id, and what the user should be told about it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Written {
    pub id: String,
    /// Set when the entry alone is larger than the size bound: it is kept
    /// (the change it records stays undoable) and the message says so.
    pub warning: Option<String>,
}

fn ignore_error(_: &str) {}

impl Journal {
    pub fn new(dir: PathBuf) -> Journal {
        Journal {
            dir,
            max_bytes: DEFAULT_MAX_BYTES,
            max_days: DEFAULT_MAX_DAYS,
            on_error: ignore_error,
            remedy: "Make that folder writable.",
            raise_bound: "Raise the bound to keep changes this large.".into(),
        }
    }
}

static DEFAULT: OnceLock<Journal> = OnceLock::new();

/// The journal every transaction records to from now on, set once at
/// start-up by the program that owns the state folder.
pub fn install(journal: Journal) {
    let _ = DEFAULT.set(journal);
}

/// The installed journal, if any.
pub fn installed() -> Option<Journal> {
    DEFAULT.get().cloned()
}

/// File bytes as stored: text when they are UTF-8, else hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Blob {
    Text(String),
    Hex(String),
}

impl Blob {
    pub fn of(bytes: &[u8]) -> Blob {
        match std::str::from_utf8(bytes) {
            Ok(text) => Blob::Text(text.to_owned()),
            Err(_) => Blob::Hex(bytes.iter().map(|b| format!("{b:02x}")).collect()),
        }
    }

    pub fn bytes(&self) -> Result<Vec<u8>, String> {
        match self {
            Blob::Text(t) => Ok(t.as_bytes().to_vec()),
            Blob::Hex(h) => {
                if h.len() % 2 != 0 || !h.is_ascii() {
                    return Err("bad hex".into());
                }
                (0..h.len())
                    .step_by(2)
                    .map(|i| u8::from_str_radix(&h[i..i + 2], 16).map_err(|e| e.to_string()))
                    .collect()
            }
        }
    }
}

/// What a transaction did to one file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Recorded {
    /// The whole file: `None` before for a created file, after for a
    /// deleted one.
    Replaced {
        before: Option<Blob>,
        after: Option<Blob>,
    },
    /// Bytes added at the end of a file that was `len_before` long.
    Appended { len_before: u64, bytes: Blob },
    /// An append taken back: the file cut to `len_after`.
    Truncated { len_after: u64, removed: Blob },
    /// A folder made (its removal, when undone, only while it is empty).
    FolderMade,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileRecord {
    pub path: String,
    pub change: Recorded,
    /// The permissions (Unix mode bits) of a file the change deleted, so
    /// an undo brings it back as it was.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<u32>,
    /// The permissions of the folder that held it, given back to that
    /// folder when the undo has to make it again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder_mode: Option<u32>,
    /// The permissions of the folders above that one, innermost first,
    /// for the undo to give each it has to make again.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outer_folder_modes: Vec<u32>,
    /// The owner and group (user and group ids) of a file the change
    /// deleted, given back as far as the user undoing may.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub owner: Option<crate::atomic::Owner>,
}

/// One transaction.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The entry's file name without `.json`; sorts by time.
    #[serde(default)]
    pub id: String,
    /// UTC, RFC 3339.
    pub time: String,
    pub root: String,
    /// `bank` or `project`.
    pub memory: String,
    /// What kind of write: `fix`, `agent write`, `writeback`, `undo`, ...
    pub kind: String,
    /// For an undo, the entry it reverted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undoes: Option<String>,
    pub files: Vec<FileRecord>,
    /// Written before the transaction's first file is touched and still
    /// set: the run ended (killed, the machine stopped) before its writes
    /// were done. `files` then lists every write it meant to make, so an
    /// undo finds each file either untouched or as the run left it.
    /// Absent in entries of older versions: those were all finished.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub unfinished: bool,
}

/// An entry file that could not be read, named with the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Corrupt {
    pub file: PathBuf,
    pub reason: String,
}

/// A stable name for a memory's folder in the journal (FNV-1a of its
/// path), so entries of different memories never mix.
fn memory_folder(root: &Path) -> String {
    let canonical = fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in canonical.to_string_lossy().as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{hash:016x}")
}

impl Journal {
    fn memory_dir(&self, root: &Path) -> PathBuf {
        self.dir.join(memory_folder(root))
    }

    /// Whether an entry for the memory at `root` can be kept: its folder
    /// made and a file created there. A change whose entry is lost cannot
    /// be undone, so a transaction does not begin without this.
    pub fn ready(&self, root: &Path) -> Result<(), String> {
        let dir = self.memory_dir(root);
        let unusable = |e: std::io::Error| {
            format!(
                "{}: the undo journal cannot be kept there ({e}); every change membank makes \
                 is journalled so it can be undone, so nothing was changed. {}",
                self.dir.display(),
                self.remedy
            )
        };
        self.create_dir(&dir).map_err(unusable)?;
        let probe = dir.join(format!(".ready-{}", std::process::id()));
        fs::OpenOptions::new()
            .write(true)
            .create(true)
            .truncate(true)
            .open(&probe)
            .map_err(unusable)?;
        let _ = fs::remove_file(&probe);
        Ok(())
    }

    /// Make `dir`, a memory's folder in the journal, and the journal's own
    /// folder open to their owner only: an entry holds the whole text of
    /// the files a change touched. A journal kept by an older version is
    /// closed up too.
    fn create_dir(&self, dir: &Path) -> std::io::Result<()> {
        #[cfg(unix)]
        {
            use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
            // Best effort: a folder someone else owns stays as it is.
            for dir in [self.dir.as_path(), dir] {
                if let Ok(meta) = fs::metadata(dir)
                    && meta.permissions().mode() & 0o077 != 0
                {
                    let _ = fs::set_permissions(dir, fs::Permissions::from_mode(0o700));
                }
            }
            Ok(())
        }
        #[cfg(not(unix))]
        fs::create_dir_all(dir)
    }

    /// A new entry id for the memory at `root`: its file does not exist.
    fn new_id(&self, dir: &Path, now: jiff::Timestamp) -> String {
        let stamp = now.as_nanosecond().max(0);
        let mut id = format!("{stamp:024}-{}", std::process::id());
        let mut n = 0;
        while dir.join(format!("{id}.json")).exists() {
            n += 1;
            id = format!("{stamp:024}-{}-{n}", std::process::id());
        }
        id
    }

    /// Write `entry` marked unfinished, before the writes it lists are
    /// made (its id is set here when it has none; written again, it
    /// replaces itself). Written atomically and synced: a run killed after
    /// this leaves an entry an undo can take back.
    pub fn write_unfinished(&self, entry: &mut Entry, now: jiff::Timestamp) -> Result<(), String> {
        let dir = self.memory_dir(Path::new(&entry.root));
        self.create_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        if entry.id.is_empty() {
            entry.id = self.new_id(&dir, now);
        }
        entry.unfinished = true;
        let json = serde_json::to_vec(&*entry).map_err(|e| e.to_string())?;
        let file = dir.join(format!("{}.json", entry.id));
        write_atomic_private(&file, &json).map_err(|e| format!("{}: {e}", file.display()))
    }

    /// Remove the unfinished entry `id` of the memory at `root`: its
    /// transaction ended having changed nothing.
    pub fn discard(&self, root: &Path, id: &str) {
        let _ = fs::remove_file(self.memory_dir(root).join(format!("{id}.json")));
    }

    /// The memory's newest entry (`None`: there is none), or why it cannot
    /// be read: only it is read, so a write can ask cheaply whether the
    /// last change was left unfinished.
    pub fn newest(&self, root: &Path) -> Option<Result<Entry, Corrupt>> {
        let dir = self.memory_dir(root);
        let file = fs::read_dir(&dir)
            .ok()?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "json"))
            .max()?;
        Some(read_entry(&file).map_err(|reason| Corrupt { file, reason }))
    }

    /// Write `entry` as finished and prune; returns the id, with a warning
    /// when the entry alone is over the size bound. An entry with an id
    /// (written unfinished before) replaces its unfinished self; one
    /// without gets one here.
    pub fn record(&self, mut entry: Entry, now: jiff::Timestamp) -> Result<Written, String> {
        let dir = self.memory_dir(Path::new(&entry.root));
        self.create_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        if entry.id.is_empty() {
            entry.id = self.new_id(&dir, now);
        }
        entry.unfinished = false;
        let id = entry.id.clone();
        let json = serde_json::to_vec(&entry).map_err(|e| e.to_string())?;
        let file = dir.join(format!("{id}.json"));
        write_atomic_private(&file, &json).map_err(|e| format!("{}: {e}", file.display()))?;
        self.prune(now, &file);
        let size = json.len() as u64;
        let warning = (size > self.max_bytes).then(|| {
            format!(
                "the undo entry of this {} is {}, more than the journal's size bound of {}; it \
                 is kept, so the change can be undone, until the next change is journalled. {}",
                entry.kind,
                megabytes(size),
                megabytes(self.max_bytes),
                self.raise_bound
            )
        });
        Ok(Written { id, warning })
    }

    /// Drop entries older than the age bound, then the oldest until the
    /// whole journal fits the size bound. The entry just written (`newest`)
    /// always stays: removing it would leave its change not undoable with
    /// nothing said. When it alone is over the bound it is set aside, so
    /// the rest of the history (other memories' too) is not emptied for a
    /// bound it could never meet; it goes first when the next entry is
    /// written, as does any older entry over the bound.
    pub fn prune(&self, now: jiff::Timestamp, newest: &Path) {
        let oldest_kept = now.as_nanosecond() - i128::from(self.max_days) * 86_400 * 1_000_000_000;
        let mut files: Vec<(String, PathBuf, u64)> = Vec::new();
        let Ok(memories) = fs::read_dir(&self.dir) else {
            return;
        };
        for memory in memories.flatten() {
            let Ok(entries) = fs::read_dir(memory.path()) else {
                continue;
            };
            for e in entries.flatten() {
                let name = e.file_name().to_string_lossy().into_owned();
                let Some(id) = name.strip_suffix(".json") else {
                    continue;
                };
                let Ok(meta) = e.metadata() else { continue };
                if meta.is_file() && e.path() != newest {
                    files.push((id.to_owned(), e.path(), meta.len()));
                }
            }
        }
        let newest_len = fs::metadata(newest).map_or(0, |m| m.len());
        let mut total: u64 = files.iter().map(|f| f.2).sum();
        if newest_len <= self.max_bytes {
            total += newest_len;
        }
        // Oldest first, except that an entry over the bound by itself can
        // never fit and goes before any that could.
        crate::shared_sort::sort_by(&mut files, |a, b| {
            (a.2 <= self.max_bytes)
                .cmp(&(b.2 <= self.max_bytes))
                .then_with(|| a.0.cmp(&b.0))
        });
        for (id, path, len) in files {
            let too_old = stamp_of(&id).is_some_and(|t| t < oldest_kept);
            let too_large = len > self.max_bytes;
            if !too_old && !too_large && total <= self.max_bytes {
                continue;
            }
            // An interrupted change is what its memory's next undo takes
            // back, and its memory refuses writes until then: pruning it
            // would leave the memory half-changed with nothing to undo.
            if ends_unfinished(&path) {
                continue;
            }
            if fs::remove_file(&path).is_ok() {
                total -= len;
            }
        }
    }

    /// The memory's entries, oldest first, and the files that could not
    /// be read.
    pub fn entries(&self, root: &Path) -> (Vec<Entry>, Vec<Corrupt>) {
        let dir = self.memory_dir(root);
        let mut names: Vec<PathBuf> = match fs::read_dir(&dir) {
            Ok(list) => list
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "json"))
                .collect(),
            Err(_) => Vec::new(),
        };
        names.sort();
        let mut entries = Vec::new();
        let mut corrupt = Vec::new();
        for file in names {
            match read_entry(&file) {
                Ok(e) => entries.push(e),
                Err(reason) => corrupt.push(Corrupt { file, reason }),
            }
        }
        (entries, corrupt)
    }
}

/// `1.5 MB`, as the `[undo]` table counts them.
fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

fn stamp_of(id: &str) -> Option<i128> {
    id.split('-').next()?.parse().ok()
}

fn read_entry(file: &Path) -> Result<Entry, String> {
    let bytes = crate::safe_read::read_regular(file, MAX_ENTRY_BYTES).map_err(|e| e.to_string())?;
    let mut entry: Entry =
        serde_json::from_slice(&bytes).map_err(|e| format!("not an entry: {e}"))?;
    if let Some(stem) = file.file_stem() {
        entry.id = stem.to_string_lossy().into_owned();
    }
    Ok(entry)
}

/// What an undo takes back next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Next {
    /// The change reverted.
    pub entry: Entry,
    /// An undo of it that a killed run left unfinished: this undo finishes
    /// it, written over it.
    pub resumes: Option<Entry>,
}

impl Next {
    /// Whether a run was killed half-way, so each file may be untouched as
    /// well as as the change left it: the change itself was interrupted,
    /// or an undo of it was.
    pub fn interrupted(&self) -> bool {
        self.entry.unfinished || self.resumes.is_some()
    }
}

/// What an undo takes back next: an undo a killed run left half done is
/// finished first (until it is, the memory is half reverted); else the
/// newest entry that is not itself an undo and that no finished undo
/// reverted.
pub fn next_undo(entries: &[Entry]) -> Option<Next> {
    let undone: Vec<&str> = entries
        .iter()
        .filter(|e| e.kind == UNDO_KIND && !e.unfinished)
        .filter_map(|e| e.undoes.as_deref())
        .collect();
    let half_undone = entries
        .iter()
        .rev()
        .filter(|e| e.kind == UNDO_KIND && e.unfinished)
        .find_map(|u| {
            let of = u.undoes.as_deref()?;
            let of = entries
                .iter()
                .find(|e| e.id == of && !undone.contains(&e.id.as_str()))?;
            Some(Next {
                entry: of.clone(),
                resumes: Some(u.clone()),
            })
        });
    if half_undone.is_some() {
        return half_undone;
    }
    entries
        .iter()
        .rev()
        .find(|e| e.kind != UNDO_KIND && !undone.contains(&e.id.as_str()))
        .map(|e| Next {
            entry: e.clone(),
            resumes: None,
        })
}

/// The newest entry an undo would revert (see [`next_undo`]).
pub fn last_undoable(entries: &[Entry]) -> Option<&Entry> {
    let next = next_undo(entries)?;
    entries.iter().find(|e| e.id == next.entry.id)
}

/// Why an undo wrote nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refused {
    /// Nothing in the journal to undo: it lists `listed` entries of the
    /// memory, every change among them undone already.
    Nothing { listed: usize },
    /// This file is no longer as the entry left it.
    Changed { path: String, how: String },
    /// The entry or the memory could not be read or written.
    Failed(String),
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refused::Nothing { listed: 0 } => {
                f.write_str("nothing to undo: the journal has no change of this memory")
            }
            // The history is not empty, so "no change" would contradict it.
            Refused::Nothing { listed } => {
                let entries = if *listed == 1 { "entry" } else { "entries" };
                write!(
                    f,
                    "nothing to undo: every journalled change of this memory has been undone \
                     already ({listed} {entries} listed, the undos among them)"
                )
            }
            Refused::Changed { path, how } => {
                write!(f, "{path}: {how} since that change; nothing was reverted")
            }
            Refused::Failed(reason) => f.write_str(reason),
        }
    }
}

/// Revert `entry` through `tx` (which holds the memory's lock): every
/// file is first checked to be as the entry left it, then each is put
/// back. The transaction journals the revert as an `undo` entry.
pub fn revert(tx: &Transaction, entry: &Entry) -> Result<(), Refused> {
    revert_next(
        tx,
        &Next {
            entry: entry.clone(),
            resumes: None,
        },
    )
    .map(|_| ())
}

/// Revert what `next` names through `tx`. Everything that can be checked
/// is checked before any file is written: each file is as the change left
/// it (or, after an interrupted run, untouched), every byte to put back
/// can be read from the entry, every folder written to can be written.
/// A write that still fails half-way has what the undo reverted changed
/// back, so the change stays whole and next to undo; when even that
/// fails, the undo's own entry stays unfinished and the next undo
/// finishes it. Returns how many files were put back.
pub fn revert_next(tx: &Transaction, next: &Next) -> Result<usize, Refused> {
    let entry = &next.entry;
    let want_kind = match tx.kind() {
        Kind::Bank => "bank",
        Kind::Project => "project",
    };
    if entry.memory != want_kind {
        return Err(Refused::Failed(format!(
            "the entry is of a {}, this memory is a {want_kind}; nothing was reverted",
            entry.memory
        )));
    }
    let mut plan: Vec<&FileRecord> = Vec::new();
    for file in &entry.files {
        if check_left_as(tx, file, next.interrupted())? {
            plan.push(file);
        }
    }
    for file in &plan {
        if file.change != Recorded::FolderMade {
            tx.writable(&file.path)
                .map_err(|e| Refused::Failed(format!("{e}; nothing was reverted")))?;
        }
    }
    tx.set_label(UNDO_KIND);
    tx.set_undoes(&entry.id);
    if let Some(half) = &next.resumes {
        tx.adopt_unfinished(half);
    }
    // The undo's own entry goes to disk before its first write, so an
    // undo killed half-way is finished by the next.
    let intents: Vec<FileRecord> = plan.iter().rev().filter_map(|f| inverse(f)).collect();
    tx.intend_all(intents)
        .map_err(|e| Refused::Failed(format!("{e}; nothing was reverted")))?;
    let mark = tx.journal_mark();
    for (index, file) in plan.iter().rev().enumerate() {
        if crate::transaction::failing_write::killed_at(index) {
            tx.keep_unfinished();
            return Err(Refused::Failed("killed by a test".into()));
        }
        let written = match crate::transaction::failing_write::at(index) {
            true => Err(format!("{}: a failure made by a test", file.path)),
            false => put_back(tx, file),
        };
        let Err(e) = written else { continue };
        if next.resumes.is_none() {
            match tx.roll_back_to(mark) {
                Ok(n) => {
                    return Err(Refused::Failed(format!(
                        "{e}; the undo stopped there and changed back the {n} file(s) it had \
                         reverted: nothing was reverted"
                    )));
                }
                Err(failed) => {
                    tx.keep_unfinished();
                    return Err(Refused::Failed(format!(
                        "{e}; the undo stopped there, and {} could not be changed back: run \
                         `membank undo` again once the cause is fixed, to finish it",
                        failed.join(", ")
                    )));
                }
            }
        }
        // Finishing an undo a killed run began: what that run reverted
        // cannot be told from what this one did, so the undo stays
        // unfinished for the next to finish.
        tx.keep_unfinished();
        return Err(Refused::Failed(format!(
            "{e}; the undo stopped there: run `membank undo` again once the cause is fixed, to \
             finish it"
        )));
    }
    Ok(plan
        .iter()
        .filter(|f| f.change != Recorded::FolderMade)
        .count())
}

/// What putting `file` back records, for the undo's unfinished entry.
fn inverse(file: &FileRecord) -> Option<FileRecord> {
    let change = match &file.change {
        Recorded::Replaced { before, after } => Recorded::Replaced {
            before: after.clone(),
            after: before.clone(),
        },
        Recorded::Appended { len_before, bytes } => Recorded::Truncated {
            len_after: *len_before,
            removed: bytes.clone(),
        },
        Recorded::Truncated { .. } | Recorded::FolderMade => return None,
    };
    Some(FileRecord {
        path: file.path.clone(),
        change,
        mode: None,
        folder_mode: None,
        outer_folder_modes: Vec::new(),
        owner: None,
    })
}

fn blob(b: &Blob, path: &str) -> Result<Vec<u8>, Refused> {
    b.bytes().map_err(|e| {
        Refused::Failed(format!(
            "{path}: the journal entry is damaged ({e}); nothing was reverted"
        ))
    })
}

/// Whether `file` is to be put back: `Ok(true)` when it is as the change
/// left it, `Ok(false)` when a run killed half-way (`interrupted`) never
/// wrote it; refused when it is in any other state (changed by someone
/// else) or when the entry's bytes for it cannot be read.
fn check_left_as(tx: &Transaction, file: &FileRecord, interrupted: bool) -> Result<bool, Refused> {
    if file.change == Recorded::FolderMade {
        return Ok(true);
    }
    let now = tx
        .read_any(&file.path)
        .map_err(|e| Refused::Failed(format!("{e}; nothing was reverted")))?;
    let changed = |how: &str| {
        Err(Refused::Changed {
            path: file.path.clone(),
            how: how.to_owned(),
        })
    };
    match &file.change {
        Recorded::Replaced { before, after } => {
            let after = after.as_ref().map(|a| blob(a, &file.path)).transpose()?;
            // Read now, not half-way through the writes.
            let before = before.as_ref().map(|b| blob(b, &file.path)).transpose()?;
            if before.is_none() && after.is_none() {
                return Ok(false);
            }
            if now == after {
                return Ok(true);
            }
            if interrupted && now == before {
                return Ok(false);
            }
            match (&now, &after) {
                (Some(_), None) => changed("was created again"),
                (None, Some(_)) => changed("was deleted"),
                _ => changed("was changed"),
            }
        }
        Recorded::Appended { len_before, bytes } => {
            let bytes = blob(bytes, &file.path)?;
            let len_before = *len_before as usize;
            let Some(now) = now else {
                if interrupted && len_before == 0 {
                    return Ok(false);
                }
                return changed("was deleted");
            };
            if now.len() == len_before + bytes.len() && now[len_before..] == bytes[..] {
                Ok(true)
            } else if interrupted && now.len() == len_before {
                Ok(false)
            } else {
                changed("was changed")
            }
        }
        Recorded::Truncated { .. } => Err(Refused::Failed(
            "an undo is not itself undone; nothing was reverted".into(),
        )),
        Recorded::FolderMade => Ok(true),
    }
}

fn put_back(tx: &Transaction, file: &FileRecord) -> Result<(), String> {
    let bytes = |b: &Blob| b.bytes().map_err(|e| format!("{}: {e}", file.path));
    match &file.change {
        Recorded::Replaced { before: None, .. } => tx.remove(&file.path),
        Recorded::Replaced {
            before: Some(b),
            after: None,
        } => tx.restore(
            &file.path,
            &bytes(b)?,
            file.mode,
            &std::iter::once(file.folder_mode)
                .chain(file.outer_folder_modes.iter().map(|m| Some(*m)))
                .collect::<Vec<_>>(),
            file.owner,
        ),
        Recorded::Replaced {
            before: Some(b),
            after: Some(_),
        } => tx.replace(&file.path, &bytes(b)?),
        Recorded::Appended { len_before, .. } => tx.truncate(&file.path, *len_before),
        Recorded::Truncated { .. } => Err(format!("{}: an undo is not undone", file.path)),
        Recorded::FolderMade => tx.remove_empty_folder(&file.path),
    }
}

/// The tail an entry written unfinished ends with: `unfinished` is the
/// entry's last field, and a finished entry ends with its list of files.
const UNFINISHED_TAIL: &[u8] = b",\"unfinished\":true}";

/// Whether the entry file at `path` was written unfinished, from its last
/// bytes alone (entries can be many megabytes).
fn ends_unfinished(path: &Path) -> bool {
    use std::io::{Read, Seek, SeekFrom};
    let Ok(mut file) = fs::File::open(path) else {
        return false;
    };
    let tail = UNFINISHED_TAIL.len() as i64;
    if file.seek(SeekFrom::End(-tail)).is_err() {
        return false;
    }
    let mut last = Vec::with_capacity(UNFINISHED_TAIL.len());
    file.read_to_end(&mut last).is_ok() && last == UNFINISHED_TAIL
}

#[cfg(test)]
mod tests;
