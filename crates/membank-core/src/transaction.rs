//! The one way a memory is changed. A [`Transaction`] holds the memory's
//! lock (one lock per folder, the same wait and refusal for a bank and a
//! Deja Vu project), so two runs never interleave their writes; every read
//! it makes is of the file as it is now, under that lock; and every write
//! refuses a path that leaves the memory or that the memory's rules forbid
//! (a bank follows a link only while it stays inside the bank; a project
//! follows none, a linked `memory/` folder included).
//!
//! A reviewed write goes through one `commit` (its `commit_*` entries name
//! the layout's writer): the proposal the user saw (each file with the
//! text shown and what the user declined) is checked against the disk
//! under the lock, refused whole when any accepted file changed since,
//! then written by the layout's step. The result lists, per file, the
//! bytes before and after, which is what an undo journal needs. Front ends
//! only show what it returns.

use std::collections::HashMap;
use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Duration;

use crate::atomic::{
    Owner, create_atomic, create_atomic_with_mode, owner_of, sync_dir, write_atomic,
};
use crate::compile::{self, BlocksReport, CompileReport, Mode};
use crate::dejavu::project::Project;
use crate::dejavu::writeback::{self, check_on_disk};
use crate::fix::{Action, FileFix};
use crate::journal::{self, Blob, FileRecord, Journal, Recorded};
use crate::lock::{BankLock, LockError};
use crate::pathsafe;
use crate::review::{self, Change, Proposal, ProposedFile};
use crate::safe_read::{self, ReadError};

/// Which memory's rules a transaction writes by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A memory bank: §10 paths, links followed only inside the bank.
    Bank,
    /// A Deja Vu project: no link anywhere on a written path.
    Project,
}

impl Kind {
    /// What a message calls this memory.
    pub fn noun(self) -> &'static str {
        match self {
            Kind::Bank => "bank",
            Kind::Project => "project",
        }
    }
}

/// A change to one memory in progress; dropping it releases the lock.
#[derive(Debug)]
pub struct Transaction {
    root: PathBuf,
    kind: Kind,
    lock: BankLock,
    /// Where what this transaction writes is recorded when it ends; every
    /// write below records itself, so no front end can skip it.
    journal: Option<Journal>,
    recorded: Mutex<Journalled>,
}

#[derive(Debug, Default)]
struct Journalled {
    kind: Option<&'static str>,
    undoes: Option<String>,
    files: Vec<FileRecord>,
    /// The id of this transaction's entry on disk while its writes are
    /// under way (marked unfinished), written before the first of them.
    pending: Option<String>,
    /// Every write the unfinished entry lists: each is added (and the
    /// entry written again) before the write is made.
    intents: Vec<FileRecord>,
    /// The unfinished entry is to stay as it is when the transaction ends
    /// (an undo that could not be completed nor changed back).
    keep_unfinished: bool,
}

/// One file the commit changed: its bytes before (`None`: it did not
/// exist) and after, so the change can be journalled and undone.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    pub path: String,
    pub before: Option<Vec<u8>>,
    pub after: Option<Vec<u8>>,
}

/// A commit that ran: what the layout's step reports, in the form its
/// front ends already print, and what changed on disk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Done<R> {
    pub report: R,
    /// The proposal's files whose bytes changed, in proposal order.
    pub changes: Vec<FileChange>,
}

impl<R> Done<R> {
    /// The paths written.
    pub fn written(&self) -> Vec<String> {
        self.changes.iter().map(|c| c.path.clone()).collect()
    }
}

/// Why a commit wrote nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stopped {
    /// These accepted files changed on disk since the proposal was shown.
    Stale(Vec<String>),
    /// The proposal may not be written at all (the reason names the file).
    Refused(String),
}

impl std::fmt::Display for Stopped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stopped::Stale(paths) => write!(
                f,
                "{} changed on disk after the proposal was made; nothing was written",
                paths.join(", ")
            ),
            Stopped::Refused(reason) => f.write_str(reason),
        }
    }
}

impl Transaction {
    /// Take the memory's lock, waiting up to `wait` for another run
    /// (`waiting` is called once if it has to wait), then refusing.
    /// Refused, before anything is touched, when the installed journal's
    /// folder cannot be written: every change is journalled.
    pub fn begin(
        root: &Path,
        kind: Kind,
        wait: Duration,
        waiting: impl FnMut(),
    ) -> Result<Transaction, String> {
        Transaction::begin_journalled(root, kind, wait, waiting, journal::installed())
    }

    /// [`Transaction::begin`] recording to `journal` (`None`: not
    /// journalled).
    pub fn begin_journalled(
        root: &Path,
        kind: Kind,
        wait: Duration,
        waiting: impl FnMut(),
        journal: Option<Journal>,
    ) -> Result<Transaction, String> {
        if let Some(journal) = &journal {
            journal.ready(root)?;
        }
        let noun = kind.noun();
        let lock = BankLock::acquire(root, wait, waiting).map_err(|e| match e {
            LockError::Busy { root, waited } => format!(
                "{}: another membank run is changing this {noun} (waited {} s); nothing was \
                 changed. Run again when it has finished.",
                root.display(),
                waited.as_secs()
            ),
            LockError::Io { root, error } => {
                format!(
                    "{}: the {noun} could not be locked: {error}",
                    root.display()
                )
            }
        })?;
        Ok(Transaction {
            root: root.to_path_buf(),
            kind,
            lock,
            journal,
            recorded: Mutex::default(),
        })
    }

    /// Record to `journal` instead of the installed one.
    pub fn journal_to(mut self, journal: Journal) -> Transaction {
        self.journal = Some(journal);
        self
    }

    /// What kind of write the journal entry names (`write` when unset).
    pub fn set_label(&self, kind: &'static str) {
        self.journalled(|j| j.kind = Some(kind));
    }

    /// The journal entry this transaction reverts.
    pub fn set_undoes(&self, id: &str) {
        self.journalled(|j| j.undoes = Some(id.to_owned()));
    }

    fn journalled(&self, f: impl FnOnce(&mut Journalled)) {
        if self.journal.is_some() {
            let mut guard = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
            f(&mut guard);
        }
    }

    /// A whole-file change: a second change of the same file keeps the
    /// first `before` and the last `after`.
    fn record_replaced(&self, rel: &str, before: Option<&[u8]>, after: Option<&[u8]>) {
        self.journalled(|j| {
            let after = after.map(Blob::of);
            for f in &mut j.files {
                if f.path == rel
                    && let Recorded::Replaced { after: a, .. } = &mut f.change
                {
                    *a = after;
                    return;
                }
            }
            j.files.push(FileRecord {
                path: rel.to_owned(),
                change: Recorded::Replaced {
                    before: before.map(Blob::of),
                    after,
                },
                mode: None,
                folder_mode: None,
                outer_folder_modes: Vec::new(),
                owner: None,
            });
        });
    }

    /// The permissions and owner `rel` had, and its folder's permissions,
    /// when the change deleted it.
    fn record_deleted_mode(
        &self,
        rel: &str,
        mode: Option<u32>,
        folder_modes: &[Option<u32>],
        owner: Option<Owner>,
    ) {
        self.journalled(|j| {
            if let Some(f) = j.files.iter_mut().rev().find(|f| f.path == rel) {
                f.mode = mode;
                f.folder_mode = folder_modes.first().copied().flatten();
                // The folders above too, as far as each is known: an undo
                // may have to make them all again.
                f.outer_folder_modes = folder_modes.iter().skip(1).map_while(|m| *m).collect();
                f.owner = owner;
            }
        });
    }

    fn journalled_has(&self, rel: &str) -> bool {
        let mut has = false;
        self.journalled(|j| has = j.files.iter().any(|f| f.path == rel));
        has
    }

    /// Add `records` to what the unfinished entry lists, and write it,
    /// before the writes they name are made: a run killed half-way leaves
    /// an entry the next undo takes back. A write already listed writes
    /// nothing more, so a writer that lists its whole plan first writes
    /// the entry once. Refused when a change a killed run left unfinished
    /// has not been taken back (an undo goes on).
    pub fn intend_all(&self, records: Vec<FileRecord>) -> Result<(), String> {
        let Some(journal) = &self.journal else {
            return Ok(());
        };
        let mut j = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
        let mut added = false;
        for rec in records {
            let listed = j.intents.iter().rposition(|f| f.path == rec.path);
            let Some(f) = listed.map(|i| &mut j.intents[i]) else {
                j.intents.push(rec);
                added = true;
                continue;
            };
            match (&mut f.change, rec.change) {
                (listed, change) if *listed == change => {
                    // Rewritten only when something it records differs:
                    // a move or a delete the plan already lists comes
                    // again with the same permissions, and rewriting the
                    // whole entry for each made a large move's cost grow
                    // with the square of its files.
                    let known = rec.mode.is_some() || rec.owner.is_some();
                    let differs = (f.mode, f.folder_mode, f.owner, &f.outer_folder_modes)
                        != (
                            rec.mode,
                            rec.folder_mode,
                            rec.owner,
                            &rec.outer_folder_modes,
                        );
                    if known && differs {
                        (f.mode, f.folder_mode, f.owner) = (rec.mode, rec.folder_mode, rec.owner);
                        f.outer_folder_modes = rec.outer_folder_modes;
                        added = true;
                    }
                }
                // A file written twice: from its first `before` to its
                // last `after`.
                (Recorded::Replaced { after, .. }, Recorded::Replaced { after: new, .. }) => {
                    *after = new;
                    added = true;
                }
                (_, change) => {
                    j.intents.push(FileRecord { change, ..rec });
                    added = true;
                }
            }
        }
        if !added {
            return Ok(());
        }
        if j.pending.is_none() && j.kind != Some(journal::UNDO_KIND) {
            self.refuse_after_interrupted(journal, j.kind)?;
        }
        let now = jiff::Timestamp::now();
        let mut entry = self.entry(
            j.pending.clone(),
            j.kind,
            j.undoes.clone(),
            j.intents.clone(),
            now,
        );
        journal.write_unfinished(&mut entry, now).map_err(|e| {
            format!("the undo journal could not be written ({e}); nothing more was changed")
        })?;
        j.pending = Some(entry.id);
        Ok(())
    }

    /// This memory's journal entry for `files`, as of `now`; the journal
    /// marks it unfinished or finished as it writes it.
    fn entry(
        &self,
        id: Option<String>,
        kind: Option<&'static str>,
        undoes: Option<String>,
        files: Vec<FileRecord>,
        now: jiff::Timestamp,
    ) -> journal::Entry {
        journal::Entry {
            id: id.unwrap_or_default(),
            time: now
                .round(jiff::Unit::Second)
                .map(|t| t.to_string())
                .unwrap_or_default(),
            root: self.root.display().to_string(),
            memory: self.kind.noun().to_owned(),
            kind: kind.unwrap_or("write").to_owned(),
            undoes,
            files,
            unfinished: false,
        }
    }

    /// [`Transaction::intend_all`] for one write.
    fn intend(&self, rel: &str, change: Recorded) -> Result<(), String> {
        self.intend_all(vec![planned(rel, change)])
            .map_err(|e| format!("{rel}: {e}"))
    }

    /// Refused when the memory's last entry is one a killed run left
    /// unfinished: a write on top of a half-done change would make it
    /// harder to take back, so it is taken back first (`membank undo`).
    ///
    /// Process Inbox is the one exception: it is made to be finished by
    /// running it again (each source is stamped once its notes are
    /// written, so a rerun sends only what is left), so an interrupted run
    /// of it does not stop the next; its entry stays, for undo.
    fn refuse_after_interrupted(
        &self,
        journal: &Journal,
        kind: Option<&'static str>,
    ) -> Result<(), String> {
        match journal.newest(&self.root) {
            Some(Ok(last)) if last.unfinished && !(last.kind == INBOX && kind == Some(INBOX)) => {
                let (what, does) = match last.kind == journal::UNDO_KIND {
                    true => (format!("an undo (begun {})", last.time), "finishes it"),
                    false => (
                        format!("a change ({} of {})", last.kind, last.time),
                        "takes back what it wrote",
                    ),
                };
                Err(format!(
                    "{what} was interrupted before it was finished: run `membank undo` on this \
                     {} first, which {does}",
                    self.kind.noun(),
                ))
            }
            _ => Ok(()),
        }
    }

    /// Go on with the undo `entry` a killed run left unfinished: this
    /// transaction's entry is written over it and lists what it did.
    pub fn adopt_unfinished(&self, entry: &journal::Entry) {
        self.journalled(|j| {
            j.pending = Some(entry.id.clone());
            j.intents = entry.files.clone();
            j.files = entry.files.clone();
        });
    }

    /// Leave the unfinished entry on disk as it is when the transaction
    /// ends: what it lists is neither done nor changed back.
    pub fn keep_unfinished(&self) {
        self.journalled(|j| j.keep_unfinished = true);
    }

    /// How many writes this transaction has journalled so far, for
    /// [`Transaction::roll_back_to`].
    pub fn journal_mark(&self) -> usize {
        let mut n = 0;
        self.journalled(|j| n = j.files.len());
        n
    }

    /// Change back every write journalled since `mark`, newest first, and
    /// forget them (and what entry they revert): an undo that failed
    /// half-way leaves the memory as it found it. Returns how many files
    /// were changed back, or the paths that could not be.
    pub fn roll_back_to(&self, mark: usize) -> Result<usize, Vec<String>> {
        let mut taken: Vec<FileRecord> = Vec::new();
        self.journalled(|j| {
            taken = j.files.split_off(mark.min(j.files.len()));
        });
        let mut failed = Vec::new();
        let mut files = 0;
        for f in taken.iter().rev() {
            let result = self.unlinked(&f.path).and_then(|target| {
                let io = |e: io::Error| format!("{}: {e}", f.path);
                match &f.change {
                    Recorded::Replaced { before: None, .. } => fs::remove_file(&target).map_err(io),
                    Recorded::Replaced {
                        before: Some(b),
                        after,
                    } => {
                        let b = b.bytes()?;
                        if after.is_some() && target.exists() {
                            write_atomic(&target, &b).map_err(io)
                        } else {
                            // Its folder may have gone with it.
                            if let Some(parent) = target.parent() {
                                fs::create_dir_all(parent).map_err(io)?;
                            }
                            create_atomic_with_mode(&target, &b, f.mode, f.owner).map_err(io)
                        }
                    }
                    Recorded::Truncated { removed, .. } => {
                        let removed = removed.bytes()?;
                        let mut file = open_for_append(&target).map_err(io)?;
                        file.write_all(&removed)
                            .and_then(|()| file.sync_all())
                            .map_err(io)
                    }
                    Recorded::Appended { len_before, .. } => fs::OpenOptions::new()
                        .write(true)
                        .open(&target)
                        .and_then(|file| file.set_len(*len_before))
                        .map_err(io),
                    Recorded::FolderMade => {
                        let _ = fs::remove_dir(&target);
                        Ok(())
                    }
                }
            });
            match result {
                Ok(()) if f.change != Recorded::FolderMade => files += 1,
                Ok(()) => {}
                Err(_) => failed.push(f.path.clone()),
            }
        }
        if !failed.is_empty() {
            // What could not be changed back stays journalled.
            self.journalled(|j| j.files.extend(taken));
            return Err(failed);
        }
        self.journalled(|j| j.undoes = None);
        Ok(files)
    }

    /// Whether `rel` can be written: the folder it is in (or the nearest
    /// one there is) lets this user make and remove files. Asked before a
    /// write that cannot be half done, such as an undo.
    pub fn writable(&self, rel: &str) -> Result<(), String> {
        let target = self.unlinked(rel)?;
        let mut folder = target.parent().map(Path::to_path_buf);
        while let Some(f) = &folder {
            if f.exists() {
                break;
            }
            folder = f.parent().map(Path::to_path_buf);
        }
        #[cfg(unix)]
        if let Some(folder) = folder {
            use std::os::unix::ffi::OsStrExt as _;
            let Ok(c) = std::ffi::CString::new(folder.as_os_str().as_bytes()) else {
                return Ok(());
            };
            // SAFETY: `c` is a valid NUL-terminated path for the call.
            if unsafe { libc::access(c.as_ptr(), libc::W_OK | libc::X_OK) } != 0 {
                let e = io::Error::last_os_error();
                let shown = folder
                    .strip_prefix(&self.root)
                    .map(|p| p.display().to_string())
                    .unwrap_or_else(|_| folder.display().to_string());
                return Err(format!("{rel}: its folder {shown} cannot be written ({e})"));
            }
        }
        #[cfg(not(unix))]
        let _ = folder;
        Ok(())
    }

    fn record(&self, rel: &str, change: Recorded) {
        self.journalled(|j| {
            // Listed already (an undo finishing one a killed run began).
            if j.files.iter().any(|f| f.path == rel && f.change == change) {
                return;
            }
            j.files.push(FileRecord {
                path: rel.to_owned(),
                change,
                mode: None,
                folder_mode: None,
                outer_folder_modes: Vec::new(),
                owner: None,
            })
        });
    }

    /// The bytes of `rel` now, only when a journal will need them.
    fn before_for_journal(&self, rel: &str) -> Option<Vec<u8>> {
        self.journal.as_ref()?;
        self.fix_read(rel).ok().flatten()
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The lock held, as proof for work only a lock holder may do.
    pub fn lock(&self) -> &BankLock {
        &self.lock
    }

    /// The project as it is on disk now, read under the lock.
    pub fn load(&self) -> Project {
        Project::load_root(self.root.clone())
    }

    /// Where `rel` lands, or why it may not be read or written there.
    fn target(&self, rel: &str) -> Result<PathBuf, String> {
        match self.kind {
            Kind::Project => {
                check_on_disk(&self.root, rel)?;
                Ok(self.root.join(rel))
            }
            Kind::Bank => {
                let path = pathsafe::validate(rel).map_err(|r| r.reason)?;
                pathsafe::resolve_in_bank(&self.root, &path).map_err(|r| r.reason)
            }
        }
    }

    fn max_bytes(&self) -> u64 {
        match self.kind {
            Kind::Project => safe_read::user_policy().max_file_bytes,
            Kind::Bank => safe_read::DEFAULT_MAX_FILE_BYTES,
        }
    }

    /// The bytes of a file now: `Ok(None)` when it does not exist, `Err`
    /// when it may not be written either (a link on the way, not a regular
    /// file, over the size cap).
    pub fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, String> {
        let target = self.target(rel).map_err(|e| format!("{rel}: {e}"))?;
        match safe_read::read_regular(&target, self.max_bytes()) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(ReadError::Io(e)) => Err(format!("{rel}: {e}")),
            Err(e) => Err(format!("{rel}: {e}; nothing was written")),
        }
    }

    /// A file's text as a review shows it (BOM dropped, LF); `None` when
    /// it is absent or cannot be read as text.
    fn shown_text(&self, rel: &str) -> Option<String> {
        let bytes = self.read(rel).ok()??;
        crate::text::decode(&bytes).ok().map(|d| d.text)
    }

    /// Where `rel` lands, its missing folders made inside the memory.
    fn target_with_folders(&self, rel: &str) -> Result<PathBuf, String> {
        let fail = |e: String| format!("{rel}: {e}");
        let target = self.target(rel).map_err(fail)?;
        if let Some(parent) = target.parent() {
            let missing = self.missing_folders(parent);
            for folder in &missing {
                self.intend(folder, Recorded::FolderMade)?;
            }
            fs::create_dir_all(parent).map_err(|e| fail(e.to_string()))?;
            // Journalled before the file, so an undo (which goes backwards)
            // removes the file first and then the folders it needed.
            for folder in missing {
                self.record(&folder, Recorded::FolderMade);
            }
            // A link swapped in while the folders were made must not
            // redirect the write.
            if self.target(rel).map_err(fail)? != target {
                return Err(fail(
                    "the target folder changed while writing; nothing was written".into(),
                ));
            }
        }
        Ok(target)
    }

    /// The folders writing `paths` would have to make, each once, outermost
    /// first: for writers that do not write through this transaction (the
    /// blocks of a reply), whose folders are journalled by
    /// [`Transaction::record_folders_made`] once they have written.
    fn folders_missing_for<'p>(&self, paths: impl Iterator<Item = &'p str>) -> Vec<String> {
        let mut folders: Vec<String> = Vec::new();
        for rel in paths {
            let Some(parent) = self
                .target(rel)
                .ok()
                .and_then(|t| t.parent().map(Path::to_owned))
            else {
                continue;
            };
            for folder in self.missing_folders(&parent) {
                if !folders.contains(&folder) {
                    folders.push(folder);
                }
            }
        }
        folders
    }

    /// Journal each of `folders` that a write made since they were found
    /// missing, unless the write journalled it itself: before the files
    /// in them, so an undo, which goes backwards, removes the files first
    /// and then the folders they needed.
    fn record_folders_made(&self, folders: &[String]) {
        for folder in folders {
            if self.root.join(folder).is_dir() && !self.journalled_has(folder) {
                self.record(folder, Recorded::FolderMade);
            }
        }
    }

    /// The folders from `dir` up that do not exist yet, as paths,
    /// innermost first.
    fn missing_folders_at(&self, dir: &Path) -> Vec<PathBuf> {
        dir.ancestors()
            .take_while(|at| !at.exists())
            .map(Path::to_path_buf)
            .collect()
    }

    /// The folders between the memory's root and `dir` that do not exist
    /// yet, outermost first, as paths relative to the root.
    fn missing_folders(&self, dir: &Path) -> Vec<String> {
        // `dir` comes from the resolved root: a bank named by a relative
        // path or through a link must still find its folders in it.
        let root = self
            .root
            .canonicalize()
            .unwrap_or_else(|_| self.root.clone());
        let mut missing = Vec::new();
        let mut at = dir;
        while at != root && !at.exists() {
            if let Ok(rel) = at.strip_prefix(&root) {
                let parts: Vec<String> = rel
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                missing.push(parts.join("/"));
            }
            match at.parent() {
                Some(up) => at = up,
                None => break,
            }
        }
        missing.reverse();
        missing
    }

    /// Replace a file with `bytes` atomically, creating missing folders
    /// inside the memory.
    pub fn replace(&self, rel: &str, bytes: &[u8]) -> Result<(), String> {
        let fail = |e: String| format!("{rel}: {e}");
        let target = match self.existing_under_any_name(rel) {
            Some(target) => target,
            None => self.target_with_folders(rel)?,
        };
        let before = self.before_for_journal(rel);
        self.intend(
            rel,
            Recorded::Replaced {
                before: before.as_deref().map(Blob::of),
                after: Some(Blob::of(bytes)),
            },
        )?;
        write_atomic(&target, bytes).map_err(|e| fail(e.to_string()))?;
        self.record_replaced(rel, before.as_deref(), Some(bytes));
        Ok(())
    }

    /// Add `line` and a newline at the end of a file in one write, never
    /// rewriting what is there (a newline goes first when the file does
    /// not end with one). The folder must exist; the file is created.
    pub fn append_line(&self, rel: &str, line: &str) -> Result<(), String> {
        let fail = |e: String| format!("{rel}: {e}");
        let target = self.target(rel).map_err(fail)?;
        let created = !target.exists();
        let mut file = open_for_append(&target).map_err(|e| fail(e.to_string()))?;
        let meta = file.metadata().map_err(|e| fail(e.to_string()))?;
        if !meta.is_file() {
            return Err(fail("exists but is not a regular file".into()));
        }
        let mut bytes = Vec::with_capacity(line.len() + 2);
        if meta.len() > 0 && !ends_with_newline(&file, meta.len()).map_err(fail)? {
            bytes.push(b'\n');
        }
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        self.intend(
            rel,
            Recorded::Appended {
                len_before: meta.len(),
                bytes: Blob::of(&bytes),
            },
        )?;
        file.write_all(&bytes).map_err(|e| fail(e.to_string()))?;
        file.sync_all().map_err(|e| fail(e.to_string()))?;
        if created && let Some(parent) = target.parent() {
            sync_dir(parent);
        }
        self.record(
            rel,
            Recorded::Appended {
                len_before: meta.len(),
                bytes: Blob::of(&bytes),
            },
        );
        Ok(())
    }

    /// Cut a file back to `len` bytes (an append taken back), in place:
    /// the file may be too large to rewrite.
    pub fn truncate(&self, rel: &str, len: u64) -> Result<(), String> {
        let fail = |e: String| format!("{rel}: {e}");
        let target = self.unlinked(rel)?;
        let file = open_for_append(&target).map_err(|e| fail(e.to_string()))?;
        let meta = file.metadata().map_err(|e| fail(e.to_string()))?;
        if !meta.is_file() || meta.len() < len {
            return Err(fail("is not the file that was appended to".into()));
        }
        let removed = {
            use std::io::{Read as _, Seek as _, SeekFrom};
            let mut f = &file;
            let mut tail = Vec::new();
            f.seek(SeekFrom::Start(len))
                .and_then(|_| f.read_to_end(&mut tail))
                .map_err(|e| fail(e.to_string()))?;
            tail
        };
        self.intend(
            rel,
            Recorded::Truncated {
                len_after: len,
                removed: Blob::of(&removed),
            },
        )?;
        file.set_len(len).map_err(|e| fail(e.to_string()))?;
        file.sync_all().map_err(|e| fail(e.to_string()))?;
        self.record(
            rel,
            Recorded::Truncated {
                len_after: len,
                removed: Blob::of(&removed),
            },
        );
        Ok(())
    }

    /// The bytes of any file of the memory reached through no link
    /// (`None`: absent), for checking a file before it is reverted.
    pub fn read_any(&self, rel: &str) -> Result<Option<Vec<u8>>, String> {
        self.fix_read(rel)
    }

    /// Delete a regular file of the memory (never a link or a folder).
    pub fn remove(&self, rel: &str) -> Result<(), String> {
        self.remove_leftover(rel)
    }

    /// Remove a folder a change made, when it is still empty (a folder
    /// that holds files now is left as it is).
    pub fn remove_empty_folder(&self, rel: &str) -> Result<(), String> {
        let target = self.unlinked(rel)?;
        match fs::remove_dir(&target) {
            Ok(()) => {
                sync_dir(&self.root);
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(_) if target.is_dir() => Ok(()),
            Err(e) => Err(format!("{rel}: {e}")),
        }
    }

    /// Bring back a file a change deleted: by the memory's rules when its
    /// name follows them, else (a leftover a fix deleted) at its old place
    /// reached through no link; never over a file that is there.
    /// `folder_modes` are the permissions of its folders when it was
    /// deleted, innermost first, for each folder this has to make again.
    pub fn restore(
        &self,
        rel: &str,
        bytes: &[u8],
        mode: Option<u32>,
        folder_modes: &[Option<u32>],
        owner: Option<Owner>,
    ) -> Result<(), String> {
        if pathsafe::validate(rel).is_ok() {
            return self.create_with_mode(rel, bytes, (mode, owner), folder_modes);
        }
        let target = self.unlinked(rel)?;
        self.intend(rel, created(bytes))?;
        create_atomic_with_mode(&target, bytes, mode, owner).map_err(|e| format!("{rel}: {e}"))?;
        self.record_replaced(rel, None, Some(bytes));
        Ok(())
    }

    /// A reviewed reply's `### FILE:` blocks written into a bank, through
    /// the one reviewed write (`commit`).
    pub fn commit_blocks(
        &self,
        proposal: &Proposal,
        declined: &[usize],
        reply: &str,
    ) -> Result<Done<BlocksReport>, Stopped> {
        // A caller that knows better (a distilled note) has named it.
        self.journalled(|j| {
            j.kind.get_or_insert("agent write");
        });
        self.commit(proposal, declined, Kind::Bank, |tx| {
            compile::apply_reply_declining(&tx.root, reply, Mode::Apply, declined)
        })
    }

    /// A model reply's `### FILE:` blocks written without a review
    /// (`membank blocks --apply`), journalled like every other write: the
    /// files the reply names are read before and after.
    pub fn apply_blocks(&self, reply: &str) -> BlocksReport {
        self.set_label("agent write");
        let mut paths: Vec<String> = Vec::new();
        for block in crate::fileblocks::parse_reply(reply).blocks {
            if let Ok(p) = pathsafe::validate(&block.path_raw)
                && !paths.iter().any(|q| q == p.as_str())
            {
                paths.push(p.as_str().to_owned());
            }
        }
        let before: Vec<Option<Vec<u8>>> =
            paths.iter().map(|p| self.read(p).ok().flatten()).collect();
        let folders = self.folders_missing_for(paths.iter().map(String::as_str));
        // Listed before anything is written, as every write is.
        let blocks = crate::fileblocks::parse_reply(reply).blocks;
        let mut plan: Vec<FileRecord> = folders
            .iter()
            .map(|folder| planned(folder, Recorded::FolderMade))
            .collect();
        for (path, before) in paths.iter().zip(&before) {
            let of_path = |b: &&crate::fileblocks::FileBlock| {
                pathsafe::validate(&b.path_raw).is_ok_and(|p| p.as_str() == path)
            };
            if let Some(block) = blocks.iter().rev().find(of_path) {
                let after = crate::atomic::article_bytes(&block.content, before.as_deref());
                plan.push(planned(
                    path,
                    Recorded::Replaced {
                        before: before.as_deref().map(Blob::of),
                        after: Some(Blob::of(&after)),
                    },
                ));
            }
        }
        if let Err(e) = self.intend_all(plan) {
            return BlocksReport {
                blocks: Vec::new(),
                warnings: vec![format!("{e}; nothing was written")],
            };
        }
        let report = compile::apply_reply(&self.root, reply, Mode::Apply);
        self.record_folders_made(&folders);
        for (path, before) in paths.iter().zip(before) {
            let after = self.read(path).ok().flatten();
            if after != before {
                self.record_replaced(path, before.as_deref(), after.as_deref());
            }
        }
        report
    }

    /// Process Inbox, reviewed: the blocks written, then each of `sources`
    /// stamped and archived with the files written for it, through
    /// the one reviewed write (`commit`). (The archive moves are in the report, not
    /// in [`Done::changes`].)
    pub fn commit_compile(
        &self,
        proposal: &Proposal,
        declined: &[usize],
        reply: &str,
        sources: &[String],
        now: jiff::civil::DateTime,
    ) -> Result<Done<CompileReport>, Stopped> {
        self.set_label(INBOX);
        let before: Vec<(&String, Option<Vec<u8>>)> = sources
            .iter()
            .map(|s| (s, self.before_for_journal(s)))
            .collect();
        // Each source leaves the inbox for the archive: listed as going
        // before anything is written.
        let plan: Vec<FileRecord> = before
            .iter()
            .filter_map(|(s, b)| {
                let b = b.as_deref()?;
                Some(planned(
                    s,
                    Recorded::Replaced {
                        before: Some(Blob::of(b)),
                        after: None,
                    },
                ))
            })
            .collect();
        self.intend_all(plan)
            .map_err(|e| Stopped::Refused(format!("{e}; nothing was written")))?;
        let done = self.commit(proposal, declined, Kind::Bank, |tx| {
            compile::compile_reply_declining(&tx.root, sources, reply, Mode::Apply, now, declined)
        })?;
        // The sources are stamped and moved by the archive's own writer;
        // each is recorded here, so an undo puts it back in the inbox as
        // it was and takes its archived copy away.
        for (source, before) in before {
            let after = self.read(source).ok().flatten();
            if before.is_some() && after != before {
                self.record_replaced(source, before.as_deref(), after.as_deref());
            }
        }
        for s in &done.report.sources {
            if let Some(to) = &s.archived_to
                && let Ok(Some(archived)) = self.read(to)
            {
                self.record_replaced(to, None, Some(&archived));
            }
        }
        Ok(done)
    }

    /// A reviewed Deja Vu writeback (records replaced, impression lines
    /// appended), through the one reviewed write (`commit`). The report lists every
    /// entry with what was done to it.
    pub fn commit_writeback(
        &self,
        proposal: &Proposal,
        declined: &[usize],
    ) -> Result<Done<Vec<ProposedFile>>, Stopped> {
        self.set_label("writeback");
        self.commit(proposal, declined, Kind::Project, |tx| {
            writeback::write_accepted(tx, proposal, declined)
        })
    }

    /// The fixes of a `membank fix` proposal (or of a rename, a new note),
    /// as shown: nothing is written when any file's bytes are no longer the
    /// ones the proposal was made from, when a path to be created is taken,
    /// or when a written file would hold a credential. Files are replaced,
    /// created and moved atomically (a create never replaces a file that
    /// appeared meanwhile), leftovers deleted and folders made; the result
    /// lists each file's bytes before and after (a move is its old path
    /// going and its new path coming), and the folders made.
    pub fn commit_fixes(&self, fixes: &[FileFix]) -> Result<Done<Vec<String>>, Stopped> {
        // A rename or a new note names itself first; the rest are fixes.
        self.journalled(|j| {
            j.kind.get_or_insert("fix");
        });
        let mut stale = Vec::new();
        for f in fixes {
            stale.extend(self.stale_paths(f).map_err(Stopped::Refused)?);
        }
        if !stale.is_empty() {
            return Err(Stopped::Stale(stale));
        }
        // Every new path is one the memory's rules allow before anything
        // is written: a name refused half-way left part of an import.
        for f in fixes {
            let new_path = match &f.action {
                Action::Create { .. } => Some(&f.path),
                Action::Move { to, .. } if !is_template_rename(&f.path, to) => Some(to),
                _ => None,
            };
            if let Some(rel) = new_path {
                self.target(rel).map_err(|reason| {
                    Stopped::Refused(format!("{rel}: {reason}; nothing was written"))
                })?;
            }
            // So is every file rewritten, deleted or moved away.
            let old_path = match &f.action {
                Action::Change { .. } => self.replaceable(&f.path),
                Action::Delete { .. } | Action::Move { .. } => self.unlinked(&f.path).map(|_| ()),
                Action::Create { .. } | Action::CreateFolder => Ok(()),
            };
            old_path.map_err(|reason| {
                Stopped::Refused(format!("{}: {reason}; nothing was written", f.path))
            })?;
        }
        for f in fixes {
            let written = match &f.action {
                Action::Change { after, .. }
                | Action::Create { after }
                | Action::Move { after, .. } => Some(after),
                Action::Delete { .. } | Action::CreateFolder => None,
            };
            if let Some(after) = written {
                crate::secrets::refuse(&String::from_utf8_lossy(after)).map_err(|reason| {
                    Stopped::Refused(format!("{}: {reason}; nothing was written", f.path))
                })?;
            }
        }
        let mut done = Done {
            report: Vec::new(),
            changes: Vec::new(),
        };
        let mut journalled_before = 0;
        self.journalled(|j| journalled_before = j.files.len());
        // The permissions and owner of each file a write takes away, for
        // putting it back should a later write fail.
        let kept_before: HashMap<String, Kept> = fixes
            .iter()
            .filter(|f| matches!(f.action, Action::Move { .. } | Action::Delete { .. }))
            .map(|f| (f.path.clone(), self.kept_of(&f.path)))
            .collect();
        // The folders the writes will make, to take back with them should
        // a write fail half-way.
        let mut folders_missing: Vec<String> = Vec::new();
        for f in fixes {
            let made = match &f.action {
                Action::Create { .. } => self.target(&f.path).ok(),
                Action::Move { to, .. } => self.target(to).ok(),
                Action::CreateFolder => self.target(&format!("{}/-", f.path)).ok(),
                Action::Change { .. } | Action::Delete { .. } => None,
            };
            for folder in made
                .as_deref()
                .and_then(Path::parent)
                .map(|parent| self.missing_folders(parent))
                .unwrap_or_default()
            {
                if !folders_missing.contains(&folder) {
                    folders_missing.push(folder);
                }
            }
        }
        // Every write listed in the journal before the first is made: a run
        // killed half-way (a signal, a crash) leaves an entry the next
        // undo takes back, never links half-rewritten with nothing said.
        let mut plan: Vec<FileRecord> = folders_missing
            .iter()
            .map(|folder| planned(folder, Recorded::FolderMade))
            .collect();
        let gone = |path: &str, before: &[u8]| {
            let (mode, owner) = kept_before.get(path).copied().unwrap_or((None, None));
            let (folder_mode, outer_folder_modes) = self.folder_modes_recorded(path);
            FileRecord {
                path: path.to_owned(),
                change: Recorded::Replaced {
                    before: Some(Blob::of(before)),
                    after: None,
                },
                mode,
                folder_mode,
                outer_folder_modes,
                owner,
            }
        };
        for f in fixes {
            match &f.action {
                Action::Change { before, after } => plan.push(planned(
                    &f.path,
                    Recorded::Replaced {
                        before: Some(Blob::of(before)),
                        after: Some(Blob::of(after)),
                    },
                )),
                Action::Delete { before } => plan.push(gone(&f.path, before)),
                Action::CreateFolder => {
                    if !self.root.join(&f.path).exists() {
                        plan.push(planned(&f.path, Recorded::FolderMade));
                    }
                }
                Action::Create { after } => plan.push(planned(&f.path, created(after))),
                Action::Move { to, before, after } => {
                    plan.push(planned(to, created(after)));
                    plan.push(gone(&f.path, before));
                }
            }
        }
        self.intend_all(plan)
            .map_err(|e| Stopped::Refused(format!("{e}; nothing was written")))?;
        for (index, f) in fixes.iter().enumerate() {
            if failing_write::killed_at(index) {
                self.keep_unfinished();
                return Err(Stopped::Refused("killed by a test".into()));
            }
            let changed =
                |path: &str, before: Option<&Vec<u8>>, after: Option<&Vec<u8>>| FileChange {
                    path: path.to_string(),
                    before: before.cloned(),
                    after: after.cloned(),
                };
            let written = match &f.action {
                _ if failing_write::at(index) => {
                    Err(format!("{}: a failure made by a test", f.path))
                }
                Action::Change { before, after } => self.replace(&f.path, after).map(|()| {
                    done.changes
                        .push(changed(&f.path, Some(before), Some(after)))
                }),
                Action::Delete { before } => self
                    .remove_leftover(&f.path)
                    .map(|()| done.changes.push(changed(&f.path, Some(before), None))),
                Action::CreateFolder => self
                    .create_folder(&f.path)
                    .map(|()| done.report.push(f.path.clone())),
                Action::Create { after } => self
                    .create(&f.path, after)
                    .map(|()| done.changes.push(changed(&f.path, None, Some(after)))),
                Action::Move { to, before, after } => match is_template_rename(&f.path, to) {
                    // A moved file keeps its permissions, as `mv` keeps them.
                    true => self.create_unlinked(to, after, self.kept_of(&f.path)),
                    false => self.create_with_mode(
                        to,
                        after,
                        self.kept_of(&f.path),
                        &self.moved_folder_modes(&f.path, to),
                    ),
                }
                .and_then(|()| {
                    done.changes.push(changed(to, None, Some(after)));
                    self.remove_moved(&f.path)
                        .map(|()| done.changes.push(changed(&f.path, Some(before), None)))
                }),
            };
            if let Err(e) = written {
                // A write that failed half-way (a folder not writable, a
                // full disk) would leave links half-rewritten: what was
                // written is put back, and the journal forgets it.
                let failed = self.roll_back(&done.changes, &kept_before);
                if failed.is_empty() {
                    // The folders it made go too, innermost first, each
                    // only while it is empty.
                    for folder in folders_missing.iter().rev() {
                        if let Ok(folder) = self.unlinked(folder) {
                            let _ = fs::remove_dir(folder);
                        }
                    }
                    self.journalled(|j| j.files.truncate(journalled_before));
                    return Err(Stopped::Refused(format!(
                        "{e}; nothing was written (the {} change(s) before it were taken back)",
                        done.changes.len()
                    )));
                }
                return Err(Stopped::Refused(format!(
                    "{e}; {} change(s) before it were written and {} of them could not be \
                     taken back ({}); `membank undo` reverts them",
                    done.changes.len(),
                    failed.len(),
                    failed.join(", ")
                )));
            }
        }
        for f in fixes {
            if let Action::Move { .. } = f.action {
                self.remove_emptied_folders(&f.path);
            }
        }
        Ok(done)
    }

    /// A folder a move left empty goes, as it does when a folder is renamed
    /// in Obsidian: the moved file's subfolders inside a bank's folder,
    /// innermost first, each only while it is empty. The format's own
    /// folders (and a project's) stay. An undo makes them again when it
    /// puts the files back.
    fn remove_emptied_folders(&self, moved_from: &str) {
        if self.kind != Kind::Bank {
            return;
        }
        let mut parts: Vec<&str> = moved_from.split('/').collect();
        parts.pop();
        while parts.len() >= 2 {
            let Ok(target) = self.unlinked(&parts.join("/")) else {
                return;
            };
            // Fails on a folder that still holds anything: it stays.
            if fs::remove_dir(&target).is_err() {
                return;
            }
            if let Some(parent) = target.parent() {
                sync_dir(parent);
            }
            parts.pop();
        }
    }

    /// New articles (path and bytes), as a review showed them: nothing is
    /// written when any of the paths exists by now, or when a file would
    /// hold a credential. No existing file is ever replaced here.
    pub fn commit_new_articles(
        &self,
        files: &[(String, Vec<u8>)],
    ) -> Result<Done<Vec<String>>, Stopped> {
        if self.kind != Kind::Bank {
            return Err(Stopped::Refused(format!(
                "{}: term articles are written to a bank only; nothing was written",
                self.root.display()
            )));
        }
        self.set_label("terms import");
        let created: Vec<FileFix> = files
            .iter()
            .map(|(path, bytes)| FileFix {
                path: path.clone(),
                codes: Vec::new(),
                notes: Vec::new(),
                action: Action::Create {
                    after: bytes.clone(),
                },
            })
            .collect();
        let mut done = self.commit_fixes(&created)?;
        done.report = done.changes.iter().map(|c| c.path.clone()).collect();
        Ok(done)
    }

    /// The paths of one fix that are no longer as its proposal saw them;
    /// `Err` when one may not be written at all (a symbolic link on its
    /// way, a FIFO there): running again could never succeed, so that is
    /// said rather than "changed meanwhile".
    fn stale_paths(&self, fix: &FileFix) -> Result<Vec<String>, String> {
        let now = |rel: &str| {
            self.fix_read(rel)
                .map_err(|reason| match reason.ends_with("nothing was written") {
                    true => reason,
                    false => format!("{reason}; nothing was written"),
                })
        };
        let mut stale = Vec::new();
        match &fix.action {
            Action::Change { before, .. } | Action::Delete { before } => {
                if now(&fix.path)?.as_ref() != Some(before) {
                    stale.push(fix.path.clone());
                }
            }
            Action::CreateFolder => {}
            Action::Create { .. } => {
                if now(&fix.path)?.is_some() {
                    stale.push(fix.path.clone());
                }
            }
            Action::Move { to, before, .. } => {
                if now(&fix.path)?.as_ref() != Some(before) {
                    stale.push(fix.path.clone());
                }
                if now(to)?.is_some() {
                    stale.push(to.clone());
                }
            }
        }
        Ok(stale)
    }

    /// Write a new file, creating missing folders inside the memory; a
    /// file already at `rel` is never replaced.
    pub fn create(&self, rel: &str, bytes: &[u8]) -> Result<(), String> {
        self.create_with_mode(rel, bytes, (None, None), &[])
    }

    /// [`Transaction::create`] with the permissions of the file it stands
    /// for (a moved or restored one); `None` for the usual ones.
    /// `folder_modes` are for the file's folders, innermost first, each
    /// when this write makes it (a moved folder keeps its permissions, as
    /// a moved file does, and so do its subfolders).
    fn create_with_mode(
        &self,
        rel: &str,
        bytes: &[u8],
        (mode, owner): (Option<u32>, Option<Owner>),
        folder_modes: &[Option<u32>],
    ) -> Result<(), String> {
        let fail = |e: String| format!("{rel}: {e}");
        let made: Vec<PathBuf> = self
            .target(rel)
            .ok()
            .and_then(|t| t.parent().map(|p| self.missing_folders_at(p)))
            .unwrap_or_default();
        let target = self.target_with_folders(rel)?;
        // Every folder made, not only the file's own: a private folder
        // holding only a subfolder must not come out open to all.
        // The owner keeps every right on it: the files that follow in the
        // same write go into it.
        // Only the permission bits: a set-group-id bit the new folder
        // inherited from its parent stays.
        #[cfg(unix)]
        for (folder, mode) in target
            .parent()
            .iter()
            .flat_map(|p| p.ancestors())
            .zip(folder_modes)
        {
            use std::os::unix::fs::PermissionsExt;
            let Some(mode) = mode else { continue };
            if !made.iter().any(|m| m == folder) {
                continue;
            }
            let now = fs::metadata(folder).map_err(|e| fail(e.to_string()))?;
            let kept = now.permissions().mode() & !0o777;
            fs::set_permissions(folder, fs::Permissions::from_mode(kept | mode | 0o700))
                .map_err(|e| fail(e.to_string()))?;
        }
        #[cfg(not(unix))]
        let _ = (made, folder_modes);
        self.intend(rel, created(bytes))?;
        create_atomic_with_mode(&target, bytes, mode, owner).map_err(|e| {
            if e.kind() == io::ErrorKind::AlreadyExists {
                fail("a file appeared there meanwhile; it was not replaced".into())
            } else {
                fail(e.to_string())
            }
        })?;
        self.record_replaced(rel, None, Some(bytes));
        Ok(())
    }

    /// Write a new file reached through no link, in a folder that exists
    /// (a prompt template the user renames: no agent's write goes there).
    fn create_unlinked(
        &self,
        rel: &str,
        bytes: &[u8],
        (mode, owner): (Option<u32>, Option<Owner>),
    ) -> Result<(), String> {
        let target = self.unlinked(rel)?;
        self.intend(rel, created(bytes))?;
        create_atomic_with_mode(&target, bytes, mode, owner).map_err(|e| format!("{rel}: {e}"))?;
        // Journalled as a created file, as every other write is: an undo
        // of the rename takes the new name away, not only restores the old.
        self.record_replaced(rel, None, Some(bytes));
        Ok(())
    }

    /// Remove the old path of a moved file (a regular file reached through
    /// no link).
    fn remove_moved(&self, rel: &str) -> Result<(), String> {
        self.remove_leftover(rel)
    }

    /// A file a fix reads: an article by the bank's rules, or a leftover
    /// (any name) reached through no link at all.
    fn fix_read(&self, rel: &str) -> Result<Option<Vec<u8>>, String> {
        if pathsafe::validate(rel).is_ok() {
            return self.read(rel);
        }
        let target = self.unlinked(rel)?;
        match safe_read::read_regular(&target, self.max_bytes()) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(format!("{rel}: {e}")),
        }
    }

    /// A regular file already in a bank under a name the bank's rules
    /// would not give a new file (`NUL.md`, a trailing dot, a bidi
    /// control), reached through no link: it is rewritten where it is, as
    /// its name is not being made here. `None` for every other path, which
    /// goes through the rules.
    fn existing_under_any_name(&self, rel: &str) -> Option<PathBuf> {
        if self.kind != Kind::Bank || pathsafe::validate(rel).is_ok() {
            return None;
        }
        let target = self.unlinked(rel).ok()?;
        fs::symlink_metadata(&target)
            .is_ok_and(|m| m.is_file())
            .then_some(target)
    }

    /// Whether `replace` may write `rel`, asked before anything is written.
    fn replaceable(&self, rel: &str) -> Result<(), String> {
        if self.existing_under_any_name(rel).is_some() {
            return Ok(());
        }
        self.target(rel).map(|_| ())
    }

    /// Put back what the first writes of a commit that failed half-way
    /// changed, newest first, so the memory is as the user saw it. Returns
    /// the paths that could not be put back.
    fn roll_back(&self, changes: &[FileChange], kept: &HashMap<String, Kept>) -> Vec<String> {
        let mut failed = Vec::new();
        for c in changes.iter().rev() {
            let Ok(target) = self.unlinked(&c.path) else {
                failed.push(c.path.clone());
                continue;
            };
            let put_back = match &c.before {
                Some(before) if target.exists() => write_atomic(&target, before),
                Some(before) => {
                    // A file moved or deleted comes back as it was.
                    let (mode, owner) = kept.get(&c.path).copied().unwrap_or((None, None));
                    create_atomic_with_mode(&target, before, mode, owner)
                }
                None => fs::remove_file(&target),
            };
            if put_back.is_err() {
                failed.push(c.path.clone());
            }
        }
        failed
    }

    /// `rel` inside the memory with no link anywhere on the way, so a
    /// deletion can only ever reach the memory's own files.
    fn unlinked(&self, rel: &str) -> Result<PathBuf, String> {
        let rel =
            pathsafe::relative_path_as_written(rel).map_err(|r| format!("{rel}: {}", r.reason))?;
        let mut at = self.root.clone();
        for (i, part) in rel.split('/').enumerate() {
            at.push(part);
            match fs::symlink_metadata(&at) {
                Ok(m) if m.file_type().is_symlink() => {
                    let link: Vec<&str> = rel.split('/').take(i + 1).collect();
                    return Err(format!(
                        "{rel}: {}",
                        pathsafe::writes_through_no_link(&link.join("/"))
                    ));
                }
                _ => {}
            }
        }
        Ok(at)
    }

    /// Delete a leftover regular file (never a link or a folder).
    fn remove_leftover(&self, rel: &str) -> Result<(), String> {
        let target = self.unlinked(rel)?;
        let meta = fs::symlink_metadata(&target).map_err(|e| format!("{rel}: {e}"))?;
        if !meta.is_file() {
            return Err(format!("{rel}: is not a regular file; not deleted"));
        }
        let before = self.before_for_journal(rel);
        let (folder_mode, outer_folder_modes) = self.folder_modes_recorded(rel);
        self.intend_all(vec![FileRecord {
            path: rel.to_owned(),
            change: Recorded::Replaced {
                before: before.as_deref().map(Blob::of),
                after: None,
            },
            mode: mode_bits(&meta),
            folder_mode,
            outer_folder_modes,
            owner: owner_of(&meta),
        }])
        .map_err(|e| format!("{rel}: {e}"))?;
        fs::remove_file(&target).map_err(|e| format!("{rel}: {e}"))?;
        if let Some(parent) = target.parent() {
            sync_dir(parent);
        }
        self.record_replaced(rel, before.as_deref(), None);
        self.record_deleted_mode(
            rel,
            mode_bits(&meta),
            &self.folder_modes_of(rel),
            owner_of(&meta),
        );
        Ok(())
    }

    /// The permissions of the folder `folder`, inside the memory.
    fn folder_mode(&self, folder: &str) -> Option<u32> {
        let meta = fs::symlink_metadata(self.unlinked(folder).ok()?).ok()?;
        meta.is_dir().then(|| mode_bits(&meta)).flatten()
    }

    /// The folder permissions a deletion of `rel` records: its own
    /// folder's, and those above it as far as each is known.
    fn folder_modes_recorded(&self, rel: &str) -> (Option<u32>, Vec<u32>) {
        let modes = self.folder_modes_of(rel);
        let outer = modes.iter().skip(1).map_while(|m| *m).collect();
        (modes.first().copied().flatten(), outer)
    }

    /// The permissions of the folders holding `rel` inside the memory,
    /// innermost first.
    fn folder_modes_of(&self, rel: &str) -> Vec<Option<u32>> {
        let mut modes = Vec::new();
        let mut at = rel;
        while let Some((folder, _)) = at.rsplit_once('/') {
            modes.push(self.folder_mode(folder));
            at = folder;
        }
        modes
    }

    /// The permissions the folders a move of `from` to `to` makes take,
    /// innermost first: the folder holding `to` takes those of the folder
    /// holding `from`, and so on upwards while the two name the same
    /// folder (a moved folder's subfolders), up to the folder moved
    /// itself, which takes those of the folder it was.
    fn moved_folder_modes(&self, from: &str, to: &str) -> Vec<Option<u32>> {
        let folders = |p: &str| -> Vec<String> {
            let parts: Vec<&str> = p.split('/').collect();
            (1..parts.len())
                .rev()
                .map(|n| parts[..n].join("/"))
                .collect()
        };
        let mut modes = Vec::new();
        for (old, new) in folders(from).iter().zip(folders(to)) {
            modes.push(self.folder_mode(old));
            if old.rsplit('/').next() != new.rsplit('/').next() {
                break;
            }
        }
        modes
    }

    /// The permissions and owner of the regular file `rel` (reached
    /// through no link), which a file standing for it keeps.
    fn kept_of(&self, rel: &str) -> Kept {
        let meta = self
            .unlinked(rel)
            .ok()
            .and_then(|at| fs::symlink_metadata(at).ok())
            .filter(fs::Metadata::is_file);
        match meta {
            Some(meta) => (mode_bits(&meta), owner_of(&meta)),
            None => (None, None),
        }
    }

    /// Lay out a new memory: each folder of `folders` (outermost first)
    /// and each file of `files`, all new, all journalled, so an undo takes
    /// the whole layout back out. Nothing already there is replaced.
    pub fn create_layout(
        &self,
        folders: &[String],
        files: &[(String, &[u8])],
    ) -> Result<(), String> {
        // The whole layout is listed in one unfinished entry first.
        let mut plan: Vec<FileRecord> = Vec::new();
        for rel in folders {
            if !self.unlinked(rel)?.exists() {
                plan.push(planned(rel, Recorded::FolderMade));
            }
        }
        for (rel, bytes) in files {
            plan.push(planned(rel, created(bytes)));
        }
        self.intend_all(plan)?;
        for rel in folders {
            let target = self.unlinked(rel)?;
            match fs::create_dir(&target) {
                Ok(()) => self.record(rel, Recorded::FolderMade),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists && target.is_dir() => {}
                Err(e) => return Err(format!("{rel}: {e}")),
            }
        }
        for (rel, bytes) in files {
            let target = self.unlinked(rel)?;
            self.intend(rel, created(bytes))?;
            create_atomic(&target, bytes).map_err(|e| {
                if e.kind() == io::ErrorKind::AlreadyExists {
                    format!("{rel}: already exists, not overwritten")
                } else {
                    format!("{rel}: {e}")
                }
            })?;
            self.record_replaced(rel, None, Some(bytes));
        }
        sync_dir(&self.root);
        Ok(())
    }

    /// Make one of the format's folders at the top of the bank.
    fn create_folder(&self, name: &str) -> Result<(), String> {
        if crate::layout::Folder::from_dir_name(name).is_none() {
            return Err(format!(
                "{name}: is not a folder of the format; not created"
            ));
        }
        let target = self.unlinked(name)?;
        if !target.exists() {
            self.intend(name, Recorded::FolderMade)?;
        }
        match fs::create_dir(&target) {
            Ok(()) => {
                sync_dir(&self.root);
                self.record(name, Recorded::FolderMade);
                Ok(())
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && target.is_dir() => Ok(()),
            Err(e) => Err(format!("{name}: {e}")),
        }
    }

    /// The one reviewed write: what the user accepted of `proposal`,
    /// leaving out the `declined` indices. Nothing is written when any
    /// accepted file's text is no longer the one shown, or when an
    /// accepted file holds a credential; otherwise `step` (the layout's
    /// writer, told the same `declined`) writes, and the result says, per
    /// file, what changed.
    fn commit<R>(
        &self,
        proposal: &Proposal,
        declined: &[usize],
        needs: Kind,
        step: impl FnOnce(&Transaction) -> R,
    ) -> Result<Done<R>, Stopped> {
        if self.kind != needs {
            return Err(Stopped::Refused(format!(
                "{}: is a {}, written by other rules; nothing was written",
                self.root.display(),
                self.kind.noun()
            )));
        }
        let stale = review::stale_paths_by(proposal, declined, |p| self.shown_text(p));
        if !stale.is_empty() {
            return Err(Stopped::Stale(stale));
        }
        let accepted = accepted_writes(proposal, declined);
        // The layouts' checks refuse these already; checked again here so
        // no way of writing can skip it.
        for file in &accepted {
            crate::secrets::refuse(&file.content).map_err(|reason| {
                Stopped::Refused(format!("{}: {reason}; nothing was written", file.path))
            })?;
        }
        let mut paths: Vec<&str> = Vec::new();
        for file in &accepted {
            if !paths.contains(&file.path.as_str()) {
                paths.push(&file.path);
            }
        }
        let before: Vec<Option<Vec<u8>>> =
            paths.iter().map(|p| self.read(p).ok().flatten()).collect();
        let folders = self.folders_missing_for(paths.iter().copied());
        // A bank's writer puts each accepted text on disk as an article:
        // listed first, so a run killed half-way leaves an entry to undo.
        // (A project's writer writes through this transaction, each write
        // listed as it is made.)
        if needs == Kind::Bank {
            let mut plan: Vec<FileRecord> = folders
                .iter()
                .map(|folder| planned(folder, Recorded::FolderMade))
                .collect();
            for (path, before) in paths.iter().zip(&before) {
                if let Some(file) = accepted.iter().rev().find(|f| f.path == *path) {
                    let after = crate::atomic::article_bytes(&file.content, before.as_deref());
                    plan.push(planned(
                        path,
                        Recorded::Replaced {
                            before: before.as_deref().map(Blob::of),
                            after: Some(Blob::of(&after)),
                        },
                    ));
                }
            }
            self.intend_all(plan)
                .map_err(|e| Stopped::Refused(format!("{e}; nothing was written")))?;
        }
        let report = step(self);
        self.record_folders_made(&folders);
        let changes: Vec<FileChange> = paths
            .into_iter()
            .zip(before)
            .filter_map(|(path, before)| {
                let after = self.read(path).ok().flatten();
                (after != before).then(|| FileChange {
                    path: path.to_owned(),
                    before,
                    after,
                })
            })
            .collect();
        // The layouts' writers do not all write through this
        // transaction; what changed is recorded here for them.
        for c in &changes {
            let recorded = self.journalled_has(&c.path);
            if !recorded {
                self.record_replaced(&c.path, c.before.as_deref(), c.after.as_deref());
            }
        }
        Ok(Done { report, changes })
    }
}

impl Transaction {
    /// Journal what this transaction wrote, as one entry, now. A front end
    /// calls this as soon as its writes are done and before it prints
    /// anything: a reader that goes away mid-report ends the process, and
    /// the change must stay undoable all the same. Returns what the user
    /// should be told about the entry (it could not be written, or it is
    /// larger than the journal's size bound). Anything written after this
    /// is journalled as a further entry when the transaction ends.
    pub fn finish(&self) -> Option<String> {
        let journal = self.journal.as_ref()?;
        let recorded = {
            let mut pending = self.recorded.lock().unwrap_or_else(|e| e.into_inner());
            // The label stays: a write after this is journalled under the
            // same kind, not as a plain "write".
            let kind = pending.kind;
            let taken = std::mem::take(&mut *pending);
            pending.kind = kind;
            taken
        };
        if recorded.keep_unfinished {
            // Neither done nor changed back: the unfinished entry stays,
            // for the next undo.
            return None;
        }
        // An undo that found nothing left to write is journalled all the
        // same: the change it took back (interrupted before any write)
        // must not come back as the next to undo.
        if recorded.files.is_empty() && recorded.undoes.is_none() {
            if let Some(id) = &recorded.pending {
                journal.discard(&self.root, id);
            }
            return None;
        }
        let entry = self.entry(
            recorded.pending.clone(),
            recorded.kind,
            recorded.undoes,
            recorded.files,
            jiff::Timestamp::now(),
        );
        let message = match journal.record(entry, jiff::Timestamp::now()) {
            Ok(written) => written.warning?,
            Err(e) => {
                format!("the undo journal could not be written: {e}; this change cannot be undone")
            }
        };
        (journal.on_error)(&message);
        Some(message)
    }
}

impl Drop for Transaction {
    /// The fallback for a front end that did not [`finish`](Transaction::finish):
    /// what is still unjournalled goes into an entry when the transaction
    /// ends (the lock is still held: fields drop after this).
    fn drop(&mut self) {
        // Told to the journal's `on_error` already; nobody is left to show it.
        let _ = self.finish();
    }
}

/// The files of a proposal that a commit may write: checked, accepted, and
/// new or changed.
fn accepted_writes<'a>(proposal: &'a Proposal, declined: &[usize]) -> Vec<&'a ProposedFile> {
    proposal
        .files
        .iter()
        .enumerate()
        .filter(|(i, f)| !declined.contains(i) && matches!(f.change, Change::New | Change::Changed))
        .map(|(_, f)| f)
        .collect()
}

/// Open for appending, creating the file: never through a link at the
/// name, and without blocking on a planted FIFO.
fn open_for_append(path: &Path) -> io::Result<fs::File> {
    let mut options = fs::OpenOptions::new();
    // Read too: the last byte says whether a newline must come first.
    options.read(true).append(true).create(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .mode(0o666);
    }
    options.open(path)
}

fn ends_with_newline(file: &fs::File, len: u64) -> Result<bool, String> {
    let mut last = [0u8];
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileExt;
        file.read_exact_at(&mut last, len - 1)
            .map_err(|e| e.to_string())?;
    }
    #[cfg(windows)]
    {
        use std::os::windows::fs::FileExt;
        file.seek_read(&mut last, len - 1)
            .map_err(|e| e.to_string())?;
    }
    Ok(last[0] == b'\n')
}

/// A prompt template moved to the name its agent looks for: the one write
/// into `06_TEMPLATES` membank makes, and only when the user accepts it.
fn is_template_rename(from: &str, to: &str) -> bool {
    let dir = crate::layout::Folder::Templates.dir_name();
    let in_templates = |p: &str| {
        p.strip_prefix(dir)
            .and_then(|r| r.strip_prefix('/'))
            .filter(|name| !name.contains('/'))
            .map(str::to_owned)
    };
    match (in_templates(from), in_templates(to)) {
        (Some(_), Some(name)) => crate::templates::Agent::ALL
            .iter()
            .any(|a| a.file_name() == name),
        _ => false,
    }
}

/// The kind of a Process Inbox run's entry.
const INBOX: &str = "inbox";

/// A write a transaction means to make, for its unfinished entry.
fn planned(rel: &str, change: Recorded) -> FileRecord {
    FileRecord {
        path: rel.to_owned(),
        change,
        mode: None,
        folder_mode: None,
        outer_folder_modes: Vec::new(),
        owner: None,
    }
}

/// A file created with `bytes`, as the journal records it.
fn created(bytes: &[u8]) -> Recorded {
    Recorded::Replaced {
        before: None,
        after: Some(Blob::of(bytes)),
    }
}

/// A file's permission bits (Unix), as a moved or restored file keeps them.
fn mode_bits(meta: &fs::Metadata) -> Option<u32> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        Some(meta.permissions().mode() & 0o777)
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// What a file standing for another keeps of it: its permissions and its
/// owner and group.
type Kept = (Option<u32>, Option<Owner>);

/// A write that fails on purpose, for the tests of taking back a commit
/// that failed half-way (running as root, no permission stops a write).
/// A run killed before its `index`th write (its entry left as a kill
/// leaves it), for the tests of taking back an interrupted change.
#[cfg(test)]
pub(crate) mod failing_write {
    use std::cell::Cell;

    thread_local! {
        static AT: Cell<Option<usize>> = const { Cell::new(None) };
        static KILLED: Cell<Option<usize>> = const { Cell::new(None) };
    }

    pub fn set(index: Option<usize>) {
        AT.with(|at| at.set(index));
    }

    pub fn at(index: usize) -> bool {
        AT.with(|at| at.get()) == Some(index)
    }

    pub fn kill_at(index: Option<usize>) {
        KILLED.with(|at| at.set(index));
    }

    pub fn killed_at(index: usize) -> bool {
        KILLED.with(|at| at.get()) == Some(index)
    }
}

#[cfg(not(test))]
pub(crate) mod failing_write {
    pub fn at(_index: usize) -> bool {
        false
    }

    pub fn killed_at(_index: usize) -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("memory")).unwrap();
        dir
    }

    fn begin(root: &Path) -> Transaction {
        Transaction::begin(root, Kind::Project, Duration::ZERO, || {}).unwrap()
    }

    fn bank() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for f in ["00_INBOX", "01_CLIENTS"] {
            fs::create_dir_all(dir.path().join(f)).unwrap();
        }
        fs::write(dir.path().join("01_CLIENTS/Edit.md"), "before\n").unwrap();
        dir
    }

    fn begin_bank(root: &Path) -> Transaction {
        Transaction::begin(root, Kind::Bank, Duration::ZERO, || {}).unwrap()
    }

    const REPLY: &str = "### FILE: 01_CLIENTS/New.md\nnew\n### FILE: 01_CLIENTS/Edit.md\nafter\n";

    fn shown(root: &Path, reply: &str) -> Proposal {
        let now = jiff::civil::date(2026, 4, 8).at(9, 0, 0, 0);
        review::classify(root, reply, &[], now)
    }

    fn text(root: &Path, rel: &str) -> Option<String> {
        fs::read_to_string(root.join(rel)).ok()
    }

    #[test]
    fn a_stale_file_refuses_the_whole_write_and_writes_nothing() {
        let dir = bank();
        let root = dir.path();
        let proposal = shown(root, REPLY);
        // Edited by hand while the review was open.
        fs::write(root.join("01_CLIENTS/Edit.md"), "edited by hand\n").unwrap();
        let tx = begin_bank(root);
        let stopped = tx.commit_blocks(&proposal, &[], REPLY).unwrap_err();
        assert_eq!(stopped, Stopped::Stale(vec!["01_CLIENTS/Edit.md".into()]));
        // Not even the file nobody touched was written.
        assert_eq!(text(root, "01_CLIENTS/New.md"), None);
        assert_eq!(
            text(root, "01_CLIENTS/Edit.md").as_deref(),
            Some("edited by hand\n")
        );
        // A file that appeared where a new one was shown is stale too, and
        // every stale file is listed.
        fs::write(root.join("01_CLIENTS/New.md"), "appeared\n").unwrap();
        let stopped = tx.commit_blocks(&proposal, &[], REPLY).unwrap_err();
        assert_eq!(
            stopped,
            Stopped::Stale(vec![
                "01_CLIENTS/New.md".into(),
                "01_CLIENTS/Edit.md".into()
            ])
        );
        assert!(stopped.to_string().contains("nothing was written"));
        assert_eq!(
            text(root, "01_CLIENTS/New.md").as_deref(),
            Some("appeared\n")
        );
    }

    #[test]
    fn declined_files_are_never_written_and_the_rest_is_reported_with_its_bytes() {
        let dir = bank();
        let root = dir.path();
        let proposal = shown(root, REPLY);
        // The declined file changed meanwhile: it is not written, so that
        // is no reason to stop.
        fs::write(root.join("01_CLIENTS/New.md"), "mine\n").unwrap();
        let tx = begin_bank(root);
        let done = tx.commit_blocks(&proposal, &[0], REPLY).unwrap();
        assert_eq!(text(root, "01_CLIENTS/New.md").as_deref(), Some("mine\n"));
        assert_eq!(text(root, "01_CLIENTS/Edit.md").as_deref(), Some("after\n"));
        assert_eq!(done.written(), vec!["01_CLIENTS/Edit.md"]);
        assert_eq!(
            done.changes,
            vec![FileChange {
                path: "01_CLIENTS/Edit.md".into(),
                before: Some(b"before\n".to_vec()),
                after: Some(b"after\n".to_vec()),
            }]
        );
        let reasons: Vec<_> = done
            .report
            .blocks
            .iter()
            .map(|b| b.reason.clone())
            .collect();
        assert_eq!(reasons, vec![Some("declined by the user".into()), None]);
    }

    #[test]
    fn a_new_file_is_reported_as_written_from_nothing() {
        let dir = bank();
        let root = dir.path();
        let proposal = shown(root, REPLY);
        let done = begin_bank(root)
            .commit_blocks(&proposal, &[], REPLY)
            .unwrap();
        assert_eq!(
            done.written(),
            vec!["01_CLIENTS/New.md", "01_CLIENTS/Edit.md"]
        );
        assert_eq!(done.changes[0].before, None);
        assert_eq!(done.changes[0].after.as_deref(), Some(&b"new\n"[..]));
    }

    #[test]
    fn a_credential_in_an_accepted_file_refuses_the_whole_write() {
        let dir = bank();
        let root = dir.path();
        let key = format!("sk-{}", "proj-Ab3dEf6hIj9kLm2nOp5qRs8t");
        let content = format!("# Acme\nKey: {key}\n");
        let reply =
            format!("### FILE: 01_CLIENTS/Edit.md\nafter\n### FILE: 01_CLIENTS/A.md\n{content}");
        // A proposal whose checks let the key through (every layout's own
        // checks refuse it; the transaction must not depend on that).
        let mut proposal = shown(root, &reply);
        proposal.files[1] =
            ProposedFile::classified("01_CLIENTS/A.md".into(), 3, content, None, Ok(()));
        let tx = begin_bank(root);
        let Err(Stopped::Refused(reason)) = tx.commit_blocks(&proposal, &[], &reply) else {
            panic!("a key was let through");
        };
        assert!(reason.starts_with("01_CLIENTS/A.md: "), "{reason}");
        assert!(!reason.contains(&key), "{reason}");
        assert_eq!(text(root, "01_CLIENTS/A.md"), None);
        assert_eq!(
            text(root, "01_CLIENTS/Edit.md").as_deref(),
            Some("before\n")
        );
    }

    #[test]
    fn the_lock_is_held_until_the_transaction_ends() {
        let dir = bank();
        let root = dir.path();
        let tx = begin_bank(root);
        let e =
            Transaction::begin(root, Kind::Bank, Duration::from_millis(100), || {}).unwrap_err();
        assert!(e.contains("changing this bank"), "{e}");
        // The same lock whatever the kind: one folder, one writer.
        let e = Transaction::begin(root, Kind::Project, Duration::ZERO, || {}).unwrap_err();
        assert!(e.contains("changing this project"), "{e}");
        // Held through a commit too.
        let proposal = shown(root, REPLY);
        tx.commit_blocks(&proposal, &[], REPLY).unwrap();
        assert!(Transaction::begin(root, Kind::Bank, Duration::ZERO, || {}).is_err());
        drop(tx);
        begin_bank(root);
    }

    #[test]
    fn a_write_of_another_layout_is_refused() {
        let dir = bank();
        let root = dir.path();
        let proposal = shown(root, REPLY);
        let e = begin_bank(root)
            .commit_writeback(&proposal, &[])
            .unwrap_err();
        assert!(matches!(e, Stopped::Refused(_)), "{e:?}");
        assert_eq!(text(root, "01_CLIENTS/New.md"), None);
    }

    #[cfg(unix)]
    #[test]
    fn a_bank_path_through_a_link_out_is_refused() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        let dir = bank();
        let root = dir.path();
        let proposal = shown(root, REPLY);
        // The folder becomes a link out of the bank after the review.
        fs::rename(root.join("01_CLIENTS"), root.join("moved")).unwrap();
        symlink(outside.path(), root.join("01_CLIENTS")).unwrap();
        let tx = begin_bank(root);
        match tx.commit_blocks(&proposal, &[], REPLY) {
            Err(Stopped::Stale(paths)) => assert!(paths.contains(&"01_CLIENTS/Edit.md".into())),
            other => panic!("written through a link: {other:?}"),
        }
        assert!(tx.replace("01_CLIENTS/New.md", b"x").is_err());
        assert!(tx.read("01_CLIENTS/New.md").is_err());
        assert!(tx.append_line("01_CLIENTS/New.md", "x").is_err());
        // A new file shown where nothing was is not stale; its write is
        // refused all the same.
        let only_new = "### FILE: 01_CLIENTS/New.md\nnew\n";
        let mut proposal = shown(root, only_new);
        proposal.files[0] =
            ProposedFile::classified("01_CLIENTS/New.md".into(), 1, "new\n".into(), None, Ok(()));
        let done = tx.commit_blocks(&proposal, &[], only_new).unwrap();
        assert!(done.changes.is_empty());
        assert_eq!(done.report.rejected(), 1);
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_second_project_transaction_waits_then_refuses() {
        let dir = project();
        let first = begin(dir.path());
        let e = Transaction::begin(dir.path(), Kind::Project, Duration::from_millis(100), || {})
            .unwrap_err();
        assert!(e.contains("changing this project"), "{e}");
        drop(first);
        begin(dir.path());
    }

    #[test]
    fn lines_are_appended_after_what_is_there() {
        let dir = project();
        let tx = begin(dir.path());
        tx.append_line("memory/log.jsonl", "{\"a\":1}").unwrap();
        tx.append_line("memory/log.jsonl", "{\"b\":2}").unwrap();
        let file = dir.path().join("memory/log.jsonl");
        assert_eq!(fs::read_to_string(&file).unwrap(), "{\"a\":1}\n{\"b\":2}\n");
        fs::write(&file, "no newline").unwrap();
        tx.append_line("memory/log.jsonl", "x").unwrap();
        assert_eq!(fs::read_to_string(&file).unwrap(), "no newline\nx\n");
    }

    #[cfg(unix)]
    #[test]
    fn nothing_is_written_through_a_link() {
        use std::os::unix::fs::symlink;
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        fs::write(&victim, "precious\n").unwrap();
        let dir = tempfile::tempdir().unwrap();
        // The memory folder itself a link out of the project.
        symlink(outside.path(), dir.path().join("memory")).unwrap();
        let tx = begin(dir.path());
        assert!(tx.append_line("memory/log.jsonl", "x").is_err());
        assert!(tx.replace("memory/a.md", b"x").is_err());
        assert!(tx.read("memory/victim").is_err());
        fs::remove_file(dir.path().join("memory")).unwrap();
        // The file a link to one outside.
        fs::create_dir(dir.path().join("memory")).unwrap();
        symlink(&victim, dir.path().join("memory/log.jsonl")).unwrap();
        let e = tx.append_line("memory/log.jsonl", "x").unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(tx.replace("memory/log.jsonl", b"x").is_err());
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
    }

    #[cfg(unix)]
    #[test]
    fn a_fifo_is_refused_without_hanging() {
        let dir = project();
        let fifo = dir.path().join("memory/log.jsonl");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let tx = begin(dir.path());
        assert!(tx.append_line("memory/log.jsonl", "x").is_err());
        assert!(tx.read("memory/log.jsonl").is_err());
    }

    fn fix(path: &str, action: Action) -> FileFix {
        FileFix {
            path: path.into(),
            codes: vec![],
            notes: vec![],
            action,
        }
    }

    #[test]
    fn a_move_creates_the_new_path_removes_the_old_and_reports_both() {
        let dir = bank();
        let root = dir.path();
        let moved = fix(
            "01_CLIENTS/Edit.md",
            Action::Move {
                to: "01_CLIENTS/Renamed.md".into(),
                before: b"before\n".to_vec(),
                after: b"after\n".to_vec(),
            },
        );
        let done = begin_bank(root).commit_fixes(&[moved]).unwrap();
        assert_eq!(text(root, "01_CLIENTS/Edit.md"), None);
        assert_eq!(
            text(root, "01_CLIENTS/Renamed.md").as_deref(),
            Some("after\n")
        );
        let summary: Vec<(&str, bool, bool)> = done
            .changes
            .iter()
            .map(|c| (c.path.as_str(), c.before.is_some(), c.after.is_some()))
            .collect();
        assert_eq!(
            summary,
            [
                ("01_CLIENTS/Renamed.md", false, true),
                ("01_CLIENTS/Edit.md", true, false)
            ]
        );
    }

    #[test]
    fn a_move_onto_a_taken_name_or_from_changed_bytes_writes_nothing() {
        let dir = bank();
        let root = dir.path();
        fs::write(root.join("01_CLIENTS/Taken.md"), "someone else's\n").unwrap();
        let onto_taken = fix(
            "01_CLIENTS/Edit.md",
            Action::Move {
                to: "01_CLIENTS/Taken.md".into(),
                before: b"before\n".to_vec(),
                after: b"before\n".to_vec(),
            },
        );
        let err = begin_bank(root).commit_fixes(&[onto_taken]).unwrap_err();
        assert_eq!(err, Stopped::Stale(vec!["01_CLIENTS/Taken.md".into()]));
        let from_changed = fix(
            "01_CLIENTS/Edit.md",
            Action::Move {
                to: "01_CLIENTS/Free.md".into(),
                before: b"what was shown\n".to_vec(),
                after: b"what was shown\n".to_vec(),
            },
        );
        let err = begin_bank(root).commit_fixes(&[from_changed]).unwrap_err();
        assert_eq!(err, Stopped::Stale(vec!["01_CLIENTS/Edit.md".into()]));
        assert_eq!(
            text(root, "01_CLIENTS/Edit.md").as_deref(),
            Some("before\n")
        );
        assert_eq!(
            text(root, "01_CLIENTS/Taken.md").as_deref(),
            Some("someone else's\n")
        );
        assert_eq!(text(root, "01_CLIENTS/Free.md"), None);
    }

    #[test]
    fn a_create_makes_its_folders_and_never_replaces_a_file() {
        let dir = bank();
        let root = dir.path();
        let new = fix(
            "02_TERMINOLOGY/Legal/New.md",
            Action::Create {
                after: b"new\n".to_vec(),
            },
        );
        begin_bank(root)
            .commit_fixes(std::slice::from_ref(&new))
            .unwrap();
        assert_eq!(
            text(root, "02_TERMINOLOGY/Legal/New.md").as_deref(),
            Some("new\n")
        );
        let again = begin_bank(root).commit_fixes(&[new]).unwrap_err();
        assert_eq!(
            again,
            Stopped::Stale(vec!["02_TERMINOLOGY/Legal/New.md".into()])
        );
        // Even when it appears after the check, under the lock, by another
        // program: the create itself refuses.
        let err = begin_bank(root)
            .create("02_TERMINOLOGY/Legal/New.md", b"other\n")
            .unwrap_err();
        assert!(err.contains("was not replaced"), "{err}");
        assert_eq!(
            text(root, "02_TERMINOLOGY/Legal/New.md").as_deref(),
            Some("new\n")
        );
    }

    /// A name the rules refuse (an invisible character, one over 255
    /// bytes) refuses the whole write before any file is made: an import
    /// stopped half-way left the terms before it.
    #[test]
    fn a_refused_new_name_refuses_the_whole_write() {
        let dir = bank();
        let root = dir.path();
        let create = |path: &str| {
            fix(
                path,
                Action::Create {
                    after: b"new\n".to_vec(),
                },
            )
        };
        let long = format!("02_TERMINOLOGY/{}.md", "術".repeat(90));
        for refused in ["02_TERMINOLOGY/\u{202E}gpj.md", long.as_str()] {
            let fixes = [create("02_TERMINOLOGY/apple.md"), create(refused)];
            let err = begin_bank(root).commit_fixes(&fixes).unwrap_err();
            match err {
                Stopped::Refused(why) => assert!(why.contains("nothing was written"), "{why}"),
                other => panic!("{other:?}"),
            }
            assert_eq!(text(root, "02_TERMINOLOGY/apple.md"), None);
        }
    }

    #[test]
    fn a_file_under_a_name_the_rules_refuse_is_rewritten_where_it_is() {
        let dir = bank();
        let root = dir.path();
        for name in [
            "01_CLIENTS/NUL.md",
            "01_CLIENTS/a\u{202E}b.md",
            "01_CLIENTS/x:y.md",
        ] {
            fs::write(root.join(name), "old\n").unwrap();
            let change = fix(
                name,
                Action::Change {
                    before: b"old\n".to_vec(),
                    after: b"new\n".to_vec(),
                },
            );
            begin_bank(root).commit_fixes(&[change]).unwrap();
            assert_eq!(text(root, name).as_deref(), Some("new\n"), "{name}");
        }
    }

    #[test]
    fn a_write_failing_half_way_takes_back_what_it_wrote() {
        let dir = bank();
        let root = dir.path();
        fs::write(root.join("01_CLIENTS/Other.md"), "other\n").unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            fs::set_permissions(
                root.join("01_CLIENTS/Other.md"),
                fs::Permissions::from_mode(0o600),
            )
            .unwrap();
        }
        let fixes = [
            fix(
                "01_CLIENTS/Edit.md",
                Action::Change {
                    before: b"before\n".to_vec(),
                    after: b"after\n".to_vec(),
                },
            ),
            fix(
                "01_CLIENTS/Moved.md",
                Action::Create {
                    after: b"made\n".to_vec(),
                },
            ),
            fix(
                "01_CLIENTS/Other.md",
                Action::Move {
                    to: "01_CLIENTS/sub/Other.md".into(),
                    before: b"other\n".to_vec(),
                    after: b"other\n".to_vec(),
                },
            ),
            fix(
                "01_CLIENTS/Last.md",
                Action::Create {
                    after: b"last\n".to_vec(),
                },
            ),
        ];
        // The fourth write fails, as a full disk would make it.
        failing_write::set(Some(3));
        let err = begin_bank(root).commit_fixes(&fixes).unwrap_err();
        failing_write::set(None);
        match err {
            Stopped::Refused(why) => assert!(
                why.contains("nothing was written (the 4 change(s) before it were taken back)"),
                "{why}"
            ),
            other => panic!("{other:?}"),
        }
        assert_eq!(
            text(root, "01_CLIENTS/Edit.md").as_deref(),
            Some("before\n")
        );
        assert_eq!(text(root, "01_CLIENTS/Moved.md"), None);
        assert_eq!(
            text(root, "01_CLIENTS/Other.md").as_deref(),
            Some("other\n")
        );
        // The folder the move made went with it, and the note moved back
        // is as private as it was.
        assert!(!root.join("01_CLIENTS/sub").exists());
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(root.join("01_CLIENTS/Other.md"))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert_eq!(text(root, "01_CLIENTS/Last.md"), None);
    }
}
