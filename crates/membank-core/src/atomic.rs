//! Atomic file writes (spec §10): a sibling `.tmp` file, flushed to disk,
//! renamed over the target, then the folder flushed, so a kill at any moment
//! leaves either the old file or the new one, never half of either.

use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::pathsafe::{self, Rejection, SafePath};
use crate::safe_read::{self, ReadError};

/// The temporary sibling used while writing `target`. It ends in `.tmp` so
/// that a leftover from a crash is visible to health checks.
pub fn temp_path_for(target: &Path) -> PathBuf {
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!("{name}.{}.tmp", std::process::id()))
}

/// Replace `target` with `bytes` atomically. The parent folder must exist.
/// An existing file keeps its permissions.
pub fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = temp_path_for(target);
    let result = write_then_rename(target, &tmp, bytes);
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

fn write_then_rename(target: &Path, tmp: &Path, bytes: &[u8]) -> io::Result<()> {
    let existing_permissions = fs::metadata(target).ok().map(|m| m.permissions());
    let mut file = OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .open(tmp)?;
    file.write_all(bytes)?;
    if let Some(perms) = existing_permissions {
        file.set_permissions(perms)?;
    }
    file.sync_all()?;
    drop(file);
    fs::rename(tmp, target)?;
    if let Some(parent) = target.parent() {
        sync_dir(parent);
    }
    Ok(())
}

/// Flush a folder's entries (the rename) to disk. Best effort: not every
/// platform can open a folder as a file.
pub fn sync_dir(dir: &Path) {
    #[cfg(unix)]
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
    #[cfg(not(unix))]
    let _ = dir;
}

/// What writing an article did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum WriteOutcome {
    Created,
    Updated,
    /// The file already had exactly this content; nothing was written.
    Unchanged,
}

/// Why an article could not be written.
#[derive(Debug)]
pub enum WriteError {
    /// The target failed the bank checks (e.g. a symbolic link out of it).
    Rejected {
        path: String,
        rejection: Rejection,
    },
    Io {
        path: String,
        error: io::Error,
    },
}

impl fmt::Display for WriteError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WriteError::Rejected { path, rejection } => write!(f, "{path}: {rejection}"),
            WriteError::Io { path, error } => write!(f, "{path}: {error}"),
        }
    }
}

impl std::error::Error for WriteError {}

/// The bytes an article write would put on disk given what is there now:
/// UTF-8 without BOM, LF unless the existing file uses CRLF.
pub fn article_bytes(content: &str, existing: Option<&[u8]>) -> Vec<u8> {
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    let lf = content.replace("\r\n", "\n");
    let keep_crlf = existing.is_some_and(|b| b.windows(2).any(|w| w == b"\r\n"));
    if keep_crlf {
        lf.replace('\n', "\r\n").into_bytes()
    } else {
        lf.into_bytes()
    }
}

/// Write an article at a validated path inside the bank, creating missing
/// folders (inside the bank only).
pub fn write_article(
    root: &Path,
    path: &SafePath,
    content: &str,
) -> Result<WriteOutcome, WriteError> {
    let rejected = |rejection| WriteError::Rejected {
        path: path.as_str().to_owned(),
        rejection,
    };
    let io_err = |error| WriteError::Io {
        path: path.as_str().to_owned(),
        error,
    };
    let target = pathsafe::resolve_in_bank(root, path).map_err(rejected)?;
    // A FIFO or device planted at the target would hang or never end.
    let existing = match safe_read::read_regular(&target, safe_read::DEFAULT_MAX_FILE_BYTES) {
        Ok(b) => Some(b),
        Err(e) if e.is_not_found() => None,
        Err(ReadError::Io(e)) => return Err(io_err(e)),
        Err(e) => {
            return Err(rejected(Rejection {
                code: e.code(),
                reason: format!("the existing file {e}; nothing was written"),
            }));
        }
    };
    let bytes = article_bytes(content, existing.as_deref());
    if existing.as_deref() == Some(bytes.as_slice()) {
        return Ok(WriteOutcome::Unchanged);
    }
    if let Some(parent) = target.parent() {
        fs::create_dir_all(parent).map_err(io_err)?;
        // Re-check after creating folders: a link swapped in meanwhile must
        // not redirect the write.
        let again = pathsafe::resolve_in_bank(root, path).map_err(rejected)?;
        if again != target {
            return Err(rejected(Rejection {
                code: "changed",
                reason: "the target folder changed while writing; nothing was written".into(),
            }));
        }
    }
    write_atomic(&target, &bytes).map_err(io_err)?;
    Ok(if existing.is_some() {
        WriteOutcome::Updated
    } else {
        WriteOutcome::Created
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pathsafe::validate;

    fn bank() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir(dir.path().join("01_CLIENTS")).unwrap();
        dir
    }

    fn no_tmp_left(dir: &Path) {
        for e in walkdir::WalkDir::new(dir) {
            let e = e.unwrap();
            assert!(
                !e.file_name().to_string_lossy().ends_with(".tmp"),
                "left over: {}",
                e.path().display()
            );
        }
    }

    #[test]
    fn temp_name_is_a_visible_sibling_ending_in_tmp() {
        let t = temp_path_for(Path::new("/b/01_CLIENTS/Acme.md"));
        let name = t.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with("Acme.md.") && name.ends_with(".tmp"),
            "{name}"
        );
        assert_eq!(t.parent(), Some(Path::new("/b/01_CLIENTS")));
    }

    #[test]
    fn created_updated_unchanged() {
        let dir = bank();
        let p = validate("01_CLIENTS/Acme.md").unwrap();
        assert_eq!(
            write_article(dir.path(), &p, "a\n").unwrap(),
            WriteOutcome::Created
        );
        assert_eq!(
            write_article(dir.path(), &p, "a\n").unwrap(),
            WriteOutcome::Unchanged
        );
        assert_eq!(
            write_article(dir.path(), &p, "b\n").unwrap(),
            WriteOutcome::Updated
        );
        assert_eq!(
            fs::read_to_string(dir.path().join("01_CLIENTS/Acme.md")).unwrap(),
            "b\n"
        );
        no_tmp_left(dir.path());
    }

    #[test]
    fn bom_is_stripped_and_lf_is_the_default() {
        let dir = bank();
        let p = validate("01_CLIENTS/Acme.md").unwrap();
        write_article(dir.path(), &p, "\u{feff}a\r\nb\n").unwrap();
        assert_eq!(
            fs::read(dir.path().join("01_CLIENTS/Acme.md")).unwrap(),
            b"a\nb\n"
        );
    }

    #[test]
    fn crlf_files_stay_crlf() {
        let dir = bank();
        let file = dir.path().join("01_CLIENTS/Acme.md");
        fs::write(&file, b"\xEF\xBB\xBFold\r\n").unwrap();
        let p = validate("01_CLIENTS/Acme.md").unwrap();
        assert_eq!(
            write_article(dir.path(), &p, "a\nb\n").unwrap(),
            WriteOutcome::Updated
        );
        assert_eq!(fs::read(&file).unwrap(), b"a\r\nb\r\n");
        assert_eq!(
            write_article(dir.path(), &p, "a\nb\n").unwrap(),
            WriteOutcome::Unchanged
        );
    }

    #[test]
    fn missing_folders_are_created_inside_the_bank() {
        let dir = bank();
        let p = validate("03_DOMAINS/Legal/Contracts.md").unwrap();
        assert_eq!(
            write_article(dir.path(), &p, "x\n").unwrap(),
            WriteOutcome::Created
        );
        assert!(dir.path().join("03_DOMAINS/Legal/Contracts.md").is_file());
        no_tmp_left(dir.path());
    }

    #[cfg(unix)]
    #[test]
    fn permissions_are_kept() {
        use std::os::unix::fs::PermissionsExt;
        let dir = bank();
        let file = dir.path().join("01_CLIENTS/Acme.md");
        fs::write(&file, "old\n").unwrap();
        fs::set_permissions(&file, fs::Permissions::from_mode(0o640)).unwrap();
        write_article(
            dir.path(),
            &validate("01_CLIENTS/Acme.md").unwrap(),
            "new\n",
        )
        .unwrap();
        assert_eq!(
            fs::metadata(&file).unwrap().permissions().mode() & 0o777,
            0o640
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_folder_out_of_the_bank_gets_nothing() {
        let outside = tempfile::tempdir().unwrap();
        let dir = bank();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("01_CLIENTS/out")).unwrap();
        let err = write_article(dir.path(), &validate("01_CLIENTS/out/x.md").unwrap(), "x\n")
            .unwrap_err();
        assert!(matches!(err, WriteError::Rejected { .. }), "{err}");
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
    }

    #[test]
    fn a_failed_write_leaves_the_old_file_and_no_temp() {
        let dir = bank();
        let target = dir.path().join("01_CLIENTS/Acme.md");
        fs::write(&target, "old\n").unwrap();
        // A folder where the temp file would go makes the write fail.
        fs::create_dir(temp_path_for(&target)).unwrap();
        assert!(write_atomic(&target, b"new\n").is_err());
        assert_eq!(fs::read_to_string(&target).unwrap(), "old\n");
    }
}
