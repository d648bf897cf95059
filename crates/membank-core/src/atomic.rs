//! Atomic file writes (spec §10): a new temporary sibling, flushed to disk,
//! renamed over the target, then the folder flushed, so a kill at any moment
//! leaves either the old file or the new one, never half of either.
//!
//! The temporary file is created exclusively (never through an existing
//! name or link) under an unpredictable name, so a bank that plants links
//! at likely temporary names cannot redirect a write out of it.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, Write};
use std::path::Path;

use serde::Serialize;

use crate::layout::Folder;
use crate::lock::BankLock;
use crate::pathsafe::{self, Rejection, SafePath};
use crate::safe_read::{self, ReadError};

/// A temporary file's name: `.membank-<tag>.tmp`. Not derived from the
/// target's name, so it fits the file system's limit on a name (255
/// bytes) whatever the target is called; hidden, so the bank's own walk
/// and an editor's file list pass it by.
const TEMP_PREFIX: &str = ".membank-";
const TEMP_SUFFIX: &str = ".tmp";
/// How many random characters a temporary name holds.
const TEMP_TAG_LEN: usize = 8;

/// Is `name` exactly a temporary file this module creates,
/// `.membank-<tag>.tmp` with a tag of [`TEMP_TAG_LEN`] ASCII letters and
/// digits (the alphabet `tempfile` draws from)? Such a file is only ever
/// left behind by a process that was killed while writing. Nothing broader
/// matches: a user's `Style guide.md.old.tmp` is theirs, not ours.
pub fn is_temp_name(name: &str) -> bool {
    name.strip_prefix(TEMP_PREFIX)
        .and_then(|rest| rest.strip_suffix(TEMP_SUFFIX))
        .is_some_and(|tag| {
            tag.len() == TEMP_TAG_LEN && tag.bytes().all(|c| c.is_ascii_alphanumeric())
        })
}

/// How a temporary file next to a target is made: see [`is_temp_name`].
fn temp_builder<'a>() -> tempfile::Builder<'a, 'a> {
    let mut builder = tempfile::Builder::new();
    builder
        .prefix(TEMP_PREFIX)
        .suffix(TEMP_SUFFIX)
        .rand_bytes(TEMP_TAG_LEN);
    builder
}

/// Replace `target` with `bytes` atomically. The parent folder must exist.
/// An existing file keeps its permissions; a new one gets the usual ones
/// (what the user's umask allows).
pub fn write_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_as(target, bytes, Access::Usual)
}

/// [`write_atomic`] for a file only its owner may read, whatever it was
/// before: what membank keeps about a memory (the undo journal holds whole
/// articles) is not for the other users of a shared machine.
pub fn write_atomic_private(target: &Path, bytes: &[u8]) -> io::Result<()> {
    write_atomic_as(target, bytes, Access::OwnerOnly)
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Access {
    Usual,
    OwnerOnly,
}

fn write_atomic_as(target: &Path, bytes: &[u8], access: Access) -> io::Result<()> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let existing = match access {
        Access::Usual => fs::metadata(target).ok(),
        Access::OwnerOnly => None,
    };
    let mut builder = temp_builder();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = match access {
            Access::Usual => 0o666,
            Access::OwnerOnly => 0o600,
        };
        builder.permissions(fs::Permissions::from_mode(mode));
    }
    // Removed again if anything below fails (the handle is dropped).
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    if let Some(existing) = existing {
        // Owner and group first: changing them may clear set-id bits.
        give_owner(tmp.as_file(), owner_of(&existing));
        tmp.as_file().set_permissions(existing.permissions())?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(target).map_err(|e| e.error)?;
    sync_dir(dir);
    Ok(())
}

/// Write a new file at `target` atomically, never replacing one: fails
/// with `AlreadyExists` when a file (or anything else) is there. The
/// parent folder must exist.
pub fn create_atomic(target: &Path, bytes: &[u8]) -> io::Result<()> {
    create_atomic_with_mode(target, bytes, None, None)
}

/// A file's owner and group (Unix user and group ids).
pub type Owner = (u32, u32);

/// The owner and group of the file `meta` describes.
pub fn owner_of(meta: &fs::Metadata) -> Option<Owner> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Some((meta.uid(), meta.gid()))
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        None
    }
}

/// Give `file` the owner and group of the file it stands for, as far as
/// the user may: anyone may keep a file in a group they belong to (who
/// else may read it often depends on that group), only root may give a
/// file to another user. What is not allowed is left as the system made
/// it, as `cp -p` does.
fn give_owner(file: &File, owner: Option<Owner>) {
    #[cfg(unix)]
    if let Some((uid, gid)) = owner {
        use std::os::unix::fs::MetadataExt;
        let Ok(now) = file.metadata() else {
            return;
        };
        if (now.uid(), now.gid()) == (uid, gid) {
            return;
        }
        if std::os::unix::fs::fchown(file, Some(uid), Some(gid)).is_err() {
            let _ = std::os::unix::fs::fchown(file, None, Some(gid));
        }
    }
    #[cfg(not(unix))]
    let _ = (file, owner);
}

/// [`create_atomic`] with the permissions `mode` (Unix) from the start: a
/// moved or restored file keeps its old ones, and a private note is never
/// readable by others, even for a moment.
pub fn create_atomic_with_mode(
    target: &Path,
    bytes: &[u8],
    mode: Option<u32>,
    owner: Option<Owner>,
) -> io::Result<()> {
    let dir = match target.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    target
        .file_name()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "no file name"))?;
    let mut builder = temp_builder();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(fs::Permissions::from_mode(mode.unwrap_or(0o666)));
    }
    #[cfg(not(unix))]
    let _ = mode;
    let tmp = builder.tempfile_in(dir)?;
    give_owner(tmp.as_file(), owner);
    // The umask applies when the file is made: set exactly what was kept.
    #[cfg(unix)]
    if let Some(mode) = mode {
        use std::os::unix::fs::PermissionsExt;
        tmp.as_file()
            .set_permissions(fs::Permissions::from_mode(mode))?;
    }
    let mut tmp = tmp;
    tmp.write_all(bytes)?;
    tmp.as_file().sync_all()?;
    // A hard link, not a rename: the kernel refuses it when the name is
    // taken, so a file made by someone else meanwhile is never replaced.
    tmp.persist_noclobber(target).map_err(|e| e.error)?;
    sync_dir(dir);
    Ok(())
}

/// Remove the temporary files that killed runs left in the bank's folders
/// (`.membank-<tag>.tmp`, see [`is_temp_name`]); returns their paths
/// relative to the bank. Only safe while holding the bank's lock, which
/// the argument proves: no other run can be writing one right now. Links
/// are removed as links, never followed.
pub fn remove_leftover_temps(root: &Path, _held: &BankLock) -> Vec<String> {
    let mut removed = Vec::new();
    for folder in Folder::WRITABLE {
        let dir = root.join(folder.dir_name());
        if !fs::symlink_metadata(&dir).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        // Hidden folders (`.obsidian/`, `.git/`) are not entered; hidden
        // files are looked at, as the temporary names are hidden.
        let walker = walkdir::WalkDir::new(&dir)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0
                    || !(e.file_type().is_dir() && e.file_name().to_string_lossy().starts_with('.'))
            });
        for entry in walker.flatten() {
            let name = entry.file_name().to_string_lossy();
            if is_temp_name(&name)
                && !entry.file_type().is_dir()
                && fs::remove_file(entry.path()).is_ok()
            {
                let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
                removed.push(rel.to_string_lossy().replace('\\', "/"));
            }
        }
    }
    removed.sort();
    removed
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
    fn temp_names_are_recognised() {
        assert!(is_temp_name(".membank-aZ09xYq1.tmp"));
        // Only the exact form membank makes: eight letters or digits.
        assert!(!is_temp_name(".membank-aZ09xYq.tmp"));
        assert!(!is_temp_name(".membank-aZ09xYq12.tmp"));
        assert!(!is_temp_name(".membank-aZ09-Yq1.tmp"));
        assert!(!is_temp_name(".membank-aZ09xYé.tmp"));
        assert!(!is_temp_name("membank-aZ09xYq1.tmp"));
        assert!(!is_temp_name(".membank-aZ09xYq1.tmp.md"));
        assert!(!is_temp_name("Acme.md.aZ09xYq1.tmp"));
        assert!(!is_temp_name("Style guide.md.old.tmp"));
        assert!(!is_temp_name("Legal.md.backup2024.tmp"));
        assert!(!is_temp_name("Acme.md"));
        assert!(!is_temp_name("notes.tmp"));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_planted_at_a_likely_temp_name_is_not_written_through() {
        let outside = tempfile::tempdir().unwrap();
        let victim = outside.path().join("victim");
        fs::write(&victim, "precious\n").unwrap();
        let dir = bank();
        let target = dir.path().join("01_CLIENTS/Acme.md");
        // Links at every name the old scheme could have used for this run.
        let pid = std::process::id();
        for p in pid.saturating_sub(5)..=pid + 5 {
            std::os::unix::fs::symlink(
                &victim,
                dir.path().join(format!("01_CLIENTS/Acme.md.{p}.tmp")),
            )
            .unwrap();
        }
        write_article(
            dir.path(),
            &validate("01_CLIENTS/Acme.md").unwrap(),
            "reply\n",
        )
        .unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious\n");
        assert_eq!(fs::read_to_string(&target).unwrap(), "reply\n");
        assert!(
            !fs::symlink_metadata(&target)
                .unwrap()
                .file_type()
                .is_symlink()
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_new_file_gets_the_usual_permissions_not_the_temp_files() {
        use std::os::unix::fs::PermissionsExt;
        let dir = bank();
        write_article(dir.path(), &validate("01_CLIENTS/New.md").unwrap(), "x\n").unwrap();
        let mode = fs::metadata(dir.path().join("01_CLIENTS/New.md"))
            .unwrap()
            .permissions()
            .mode();
        // Group/other read unless the umask forbids it; never only 0600
        // because of the temporary file.
        let umask = unsafe {
            let m = libc::umask(0o022);
            libc::umask(m);
            m
        } as u32;
        assert_eq!(mode & 0o777, 0o666 & !umask);
    }

    /// A note's name may be as long as the file system allows (255 bytes):
    /// the temporary name must fit all the same, or the note could never
    /// be rewritten.
    #[test]
    fn a_note_with_the_longest_name_can_be_written_and_created() {
        let dir = bank();
        let name = format!("{}.md", "b".repeat(252));
        let target = dir.path().join("01_CLIENTS").join(&name);
        create_atomic(&target, b"one\n").unwrap();
        write_atomic(&target, b"two\n").unwrap();
        assert_eq!(fs::read(&target).unwrap(), b"two\n");
        no_tmp_left(dir.path());
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
    fn a_failed_write_leaves_no_temp() {
        let dir = bank();
        // A non-empty folder at the target makes the final rename fail.
        let target = dir.path().join("01_CLIENTS/Acme.md");
        fs::create_dir(&target).unwrap();
        fs::write(target.join("keep"), "old\n").unwrap();
        assert!(write_atomic(&target, b"new\n").is_err());
        assert_eq!(fs::read_to_string(target.join("keep")).unwrap(), "old\n");
        no_tmp_left(dir.path());
    }

    #[test]
    fn leftover_temps_are_removed_and_nothing_else() {
        let dir = bank();
        let r = dir.path();
        fs::create_dir_all(r.join("00_INBOX")).unwrap();
        for (rel, body) in [
            ("01_CLIENTS/.membank-aZ09xYq1.tmp", "half"),
            ("00_INBOX/.membank-17abcDEF.tmp", "half"),
            ("01_CLIENTS/Acme.md", "keep"),
            ("01_CLIENTS/notes.tmp", "keep"),
            ("01_CLIENTS/Acme.md.aZ09xYq1.tmp", "keep"),
            ("01_CLIENTS/.membank-12345.tmp", "keep"),
            // A user's own files that only look like ours.
            ("01_CLIENTS/Style guide.md.old.tmp", "keep"),
            ("01_CLIENTS/Legal.md.backup2024.tmp", "keep"),
        ] {
            fs::write(r.join(rel), body).unwrap();
        }
        let lock = BankLock::try_acquire(r).unwrap();
        assert_eq!(
            remove_leftover_temps(r, &lock),
            vec![
                "00_INBOX/.membank-17abcDEF.tmp",
                "01_CLIENTS/.membank-aZ09xYq1.tmp"
            ]
        );
        let mut left: Vec<_> = fs::read_dir(r.join("01_CLIENTS"))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(
            left,
            vec![
                ".membank-12345.tmp",
                "Acme.md",
                "Acme.md.aZ09xYq1.tmp",
                "Legal.md.backup2024.tmp",
                "Style guide.md.old.tmp",
                "notes.tmp"
            ]
        );
    }
}
