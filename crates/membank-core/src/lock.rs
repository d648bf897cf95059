//! One writer per bank at a time: an advisory lock held while a run
//! changes the bank (Process Inbox, applying blocks), so two runs never
//! archive the same source twice or interleave their writes.
//!
//! On Unix the lock is taken on the bank folder itself, so nothing is
//! created in the bank and no planted file can redirect it. Elsewhere a
//! `.membank.lock` file in the bank carries the lock. Either way the
//! operating system releases it when the process ends, even on a crash.

use std::fmt;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Held while a run changes the bank; dropping it releases the lock.
#[derive(Debug)]
pub struct BankLock {
    _file: File,
}

/// Why the lock could not be taken.
#[derive(Debug)]
pub enum LockError {
    /// Another process held the lock for the whole wait.
    Busy {
        root: PathBuf,
        waited: Duration,
    },
    Io {
        root: PathBuf,
        error: io::Error,
    },
}

impl fmt::Display for LockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            LockError::Busy { root, waited } => write!(
                f,
                "{}: another membank run is changing this bank (waited {} s); nothing was \
                 changed. Run again when it has finished.",
                root.display(),
                waited.as_secs()
            ),
            LockError::Io { root, error } => {
                write!(
                    f,
                    "{}: the bank could not be locked: {error}",
                    root.display()
                )
            }
        }
    }
}

impl std::error::Error for LockError {}

/// How long a run waits for another one before giving up.
pub const DEFAULT_WAIT: Duration = Duration::from_secs(30);

#[cfg(unix)]
fn lock_target(root: &Path) -> io::Result<File> {
    // A folder opened for reading; flock works on it like on a file.
    File::open(root)
}

#[cfg(not(unix))]
fn lock_target(root: &Path) -> io::Result<File> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(root.join(".membank.lock"))
}

impl BankLock {
    /// Take the bank's lock, waiting up to `wait` for another run; `waiting`
    /// is called once if the lock is busy, so a caller can say why it pauses.
    pub fn acquire(
        root: &Path,
        wait: Duration,
        mut waiting: impl FnMut(),
    ) -> Result<BankLock, LockError> {
        let io_err = |error| LockError::Io {
            root: root.to_path_buf(),
            error,
        };
        let file = lock_target(root).map_err(io_err)?;
        let start = Instant::now();
        let mut told = false;
        loop {
            match file.try_lock() {
                Ok(()) => return Ok(BankLock { _file: file }),
                Err(std::fs::TryLockError::WouldBlock) => {}
                Err(std::fs::TryLockError::Error(e)) => return Err(io_err(e)),
            }
            if start.elapsed() >= wait {
                return Err(LockError::Busy {
                    root: root.to_path_buf(),
                    waited: wait,
                });
            }
            if !told {
                waiting();
                told = true;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Take the lock only if it is free now.
    pub fn try_acquire(root: &Path) -> Result<BankLock, LockError> {
        BankLock::acquire(root, Duration::ZERO, || {})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_waits_then_gives_up_and_a_released_lock_is_free() {
        let d = tempfile::tempdir().unwrap();
        let first = BankLock::try_acquire(d.path()).unwrap();
        let mut told = 0;
        let e = BankLock::acquire(d.path(), Duration::from_millis(200), || told += 1).unwrap_err();
        assert!(matches!(e, LockError::Busy { .. }));
        assert!(e.to_string().contains("another membank run"), "{e}");
        assert_eq!(told, 1);
        drop(first);
        BankLock::try_acquire(d.path()).unwrap();
    }

    #[test]
    fn nothing_is_created_in_the_bank() {
        let d = tempfile::tempdir().unwrap();
        let _lock = BankLock::try_acquire(d.path()).unwrap();
        #[cfg(unix)]
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
    }
}
