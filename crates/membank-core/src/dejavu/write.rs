//! The one way a Deja Vu project is changed. A [`Transaction`] holds the
//! project's lock (the same lock, wait and refusal as a bank's), so two
//! runs never interleave their writes; every read it makes is of the file
//! as it is now, under that lock; and every write refuses a path on which
//! any part is a symbolic link or not what it should be (a linked
//! `memory/` folder included), so nothing outside the project is written.
//!
//! Supersede, feedback and writeback take a transaction instead of a path:
//! a write without the lock cannot be expressed.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::project::Project;
use super::writeback::check_on_disk;
use crate::atomic::{sync_dir, write_atomic};
use crate::lock::{BankLock, LockError};
use crate::safe_read::{self, ReadError};

/// A change to one project in progress; dropping it releases the lock.
#[derive(Debug)]
pub struct Transaction {
    root: PathBuf,
    _lock: BankLock,
}

impl Transaction {
    /// Take the project's lock, waiting up to `wait` for another run
    /// (`waiting` is called once if it has to wait), then refusing.
    pub fn begin(
        project_root: &Path,
        wait: Duration,
        waiting: impl FnMut(),
    ) -> Result<Transaction, String> {
        let lock = BankLock::acquire(project_root, wait, waiting).map_err(|e| match e {
            LockError::Busy { root, waited } => format!(
                "{}: another membank run is changing this project (waited {} s); nothing was \
                 changed. Run again when it has finished.",
                root.display(),
                waited.as_secs()
            ),
            LockError::Io { root, error } => {
                format!(
                    "{}: the project could not be locked: {error}",
                    root.display()
                )
            }
        })?;
        Ok(Transaction {
            root: project_root.to_path_buf(),
            _lock: lock,
        })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The project as it is on disk now, read under the lock.
    pub fn load(&self) -> Project {
        Project::load_root(self.root.clone())
    }

    /// The bytes of a project file now: `Ok(None)` when it does not exist,
    /// `Err` when it may not be written either (a link on the way, not a
    /// regular file, over the size cap).
    pub fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, String> {
        check_on_disk(&self.root, rel).map_err(|e| format!("{rel}: {e}"))?;
        let max = safe_read::user_policy().max_file_bytes;
        match safe_read::read_regular(&self.root.join(rel), max) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(ReadError::Io(e)) => Err(format!("{rel}: {e}")),
            Err(e) => Err(format!("{rel}: {e}; nothing was written")),
        }
    }

    /// Replace a project file with `bytes` atomically, creating missing
    /// folders inside the project.
    pub fn replace(&self, rel: &str, bytes: &[u8]) -> Result<(), String> {
        let fail = |e: String| format!("{rel}: {e}");
        check_on_disk(&self.root, rel).map_err(fail)?;
        let target = self.root.join(rel);
        if let Some(parent) = target.parent() {
            fs::create_dir_all(parent).map_err(|e| fail(e.to_string()))?;
            // A link swapped in while the folders were made must not
            // redirect the write.
            check_on_disk(&self.root, rel).map_err(fail)?;
        }
        write_atomic(&target, bytes).map_err(|e| fail(e.to_string()))
    }

    /// Add `line` and a newline at the end of a project file in one write,
    /// never rewriting what is there (a newline goes first when the file
    /// does not end with one). The folder must exist; the file is created.
    pub fn append_line(&self, rel: &str, line: &str) -> Result<(), String> {
        let fail = |e: String| format!("{rel}: {e}");
        check_on_disk(&self.root, rel).map_err(fail)?;
        let target = self.root.join(rel);
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
        file.write_all(&bytes).map_err(|e| fail(e.to_string()))?;
        file.sync_all().map_err(|e| fail(e.to_string()))?;
        if created && let Some(parent) = target.parent() {
            sync_dir(parent);
        }
        Ok(())
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("memory")).unwrap();
        dir
    }

    fn begin(root: &Path) -> Transaction {
        Transaction::begin(root, Duration::ZERO, || {}).unwrap()
    }

    #[test]
    fn a_second_transaction_waits_then_refuses() {
        let dir = project();
        let first = begin(dir.path());
        let e = Transaction::begin(dir.path(), Duration::from_millis(100), || {}).unwrap_err();
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
}
