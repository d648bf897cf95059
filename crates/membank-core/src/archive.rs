//! Archiving processed inbox files (spec §11).
//!
//! The order of steps is what makes this crash-safe: the source is first
//! stamped `compiled: true` in place (atomically), and only then renamed into
//! `00_INBOX/_archive/`. A kill before the stamp leaves the file pending, so
//! a rerun processes it again; a kill after it leaves a stamped file that
//! listings skip and [`recover_inbox`] moves. A rename never copies, so no
//! step can leave the file in two places, and nothing is ever overwritten.

use crate::safe_read::{DEFAULT_MAX_FILE_BYTES, read_regular};
use std::fmt;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::atomic;
use crate::layout::{self, ARCHIVE_DIR, Folder};
use crate::stamp;

/// Where one inbox file went.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Archived {
    /// The inbox path it had, `/`-separated, relative to the bank.
    pub source: String,
    /// Its path in the archive, `/`-separated, relative to the bank.
    pub archived_to: String,
}

/// Why an inbox file could not be stamped or moved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ArchiveError {
    pub path: String,
    pub reason: String,
}

impl fmt::Display for ArchiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.reason)
    }
}

impl std::error::Error for ArchiveError {}

fn fail(path: &str, reason: impl fmt::Display) -> ArchiveError {
    ArchiveError {
        path: path.to_owned(),
        reason: reason.to_string(),
    }
}

/// Markdown files in `00_INBOX/` (any depth) that are candidates for Process
/// Inbox: not in `_archive/`, not hidden, not `_`-prefixed (§3). Returned as
/// `/`-separated paths relative to the bank, sorted. Regular files only.
pub fn inbox_markdown_files(root: &Path) -> io::Result<Vec<String>> {
    inbox_note_entries(root, false)
}

/// [`inbox_markdown_files`], with `with_special` also the links, FIFOs and
/// other non-folders so named, which the bank lists as unreadable notes.
pub fn inbox_note_entries(root: &Path, with_special: bool) -> io::Result<Vec<String>> {
    let inbox = root.join(Folder::Inbox.dir_name());
    if !inbox.is_dir() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    let walker = walkdir::WalkDir::new(&inbox)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            let name = e.file_name().to_string_lossy();
            e.depth() == 0
                || !(name.starts_with('.')
                    || (e.depth() == 1 && name == ARCHIVE_DIR && e.file_type().is_dir()))
        });
    for entry in walker {
        let entry = entry.map_err(io::Error::other)?;
        let wanted = match with_special {
            true => !entry.file_type().is_dir(),
            false => entry.file_type().is_file(),
        };
        if !wanted {
            continue;
        }
        let name = entry.file_name().to_string_lossy();
        if !layout::is_markdown(&name) || layout::skip_reason(&name).is_some() {
            continue;
        }
        let rel = entry.path().strip_prefix(root).unwrap_or(entry.path());
        let rel: Vec<String> = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        out.push(rel.join("/"));
    }
    Ok(out)
}

/// The real location of an inbox file, refusing anything outside
/// `00_INBOX/` or already in its archive.
fn inbox_file(root: &Path, rel: &str) -> Result<PathBuf, ArchiveError> {
    let segments: Vec<&str> = rel.split('/').collect();
    let well_formed = segments.len() >= 2
        && segments[0] == Folder::Inbox.dir_name()
        && segments[1] != ARCHIVE_DIR
        && segments.iter().all(|s| !matches!(*s, "" | "." | ".."));
    if !well_formed {
        return Err(fail(
            rel,
            "is not a file in 00_INBOX/ outside its _archive/",
        ));
    }
    let canonical_root = root
        .canonicalize()
        .map_err(|e| fail(rel, format!("the memory bank cannot be opened: {e}")))?;
    let mut path = canonical_root.clone();
    path.extend(&segments);
    let real = path.canonicalize().map_err(|e| fail(rel, e))?;
    let inbox = canonical_root.join(Folder::Inbox.dir_name());
    if !real.starts_with(&inbox) || real.starts_with(inbox.join(ARCHIVE_DIR)) {
        return Err(fail(rel, "leads outside 00_INBOX/ through a symbolic link"));
    }
    if !real.is_file() {
        return Err(fail(rel, "is not a file"));
    }
    Ok(real)
}

/// Step 1: stamp the source in place (atomically) with the §11 keys.
pub fn stamp_source(
    root: &Path,
    inbox_rel: &str,
    compiled_to: &[String],
    today: jiff::civil::Date,
) -> Result<(), ArchiveError> {
    let (path, text, stamped) = stamped_source(root, inbox_rel, compiled_to, today)?;
    if stamped != text {
        atomic::write_atomic(&path, stamped.as_bytes()).map_err(|e| fail(inbox_rel, e))?;
    }
    Ok(())
}

/// Whether [`stamp_source`] could stamp the note, without writing: a plan
/// says "would archive" only of a note that applying archives.
pub fn check_stampable(
    root: &Path,
    inbox_rel: &str,
    compiled_to: &[String],
    today: jiff::civil::Date,
) -> Result<(), ArchiveError> {
    stamped_source(root, inbox_rel, compiled_to, today).map(|_| ())
}

/// How long the note's frontmatter is once stamped with no `compiled_to`
/// paths, for a review to tell, as the user accepts and declines files,
/// whether the stamp still fits ([`stamp::compiled_to_bytes`],
/// [`stamp::oversized`]).
pub fn stamped_base_bytes(
    root: &Path,
    inbox_rel: &str,
    today: jiff::civil::Date,
) -> Result<usize, ArchiveError> {
    let (_, text) = stampable_text(root, inbox_rel)?;
    stamp::stamped_base_bytes(&text, today).map_err(|e| fail(inbox_rel, e))
}

/// The note's path, its text, and its text stamped.
fn stamped_source(
    root: &Path,
    inbox_rel: &str,
    compiled_to: &[String],
    today: jiff::civil::Date,
) -> Result<(PathBuf, String, String), ArchiveError> {
    let (path, text) = stampable_text(root, inbox_rel)?;
    let stamped =
        stamp::stamp_compiled(&text, today, compiled_to).map_err(|e| fail(inbox_rel, e))?;
    Ok((path, text, stamped))
}

/// The inbox note's path and text, read as a stamp reads it: a note that
/// is not UTF-8 cannot be stamped, so a review sizing its stamp is told so
/// too rather than sizing a text the write would refuse.
fn stampable_text(root: &Path, inbox_rel: &str) -> Result<(PathBuf, String), ArchiveError> {
    let path = inbox_file(root, inbox_rel)?;
    let bytes = read_regular(&path, DEFAULT_MAX_FILE_BYTES).map_err(|e| fail(inbox_rel, e))?;
    let text = String::from_utf8(bytes).map_err(|_| {
        fail(
            inbox_rel,
            "is not valid UTF-8 text, so it cannot be stamped",
        )
    })?;
    Ok((path, text))
}

/// A free name in the archive: the file's own name, else with
/// `_YYYYMMDD-HHMMSS` added to the stem, else with `-2`, `-3`, ... after that.
fn free_archive_name(archive: &Path, file_name: &str, now: jiff::civil::DateTime) -> PathBuf {
    let direct = archive.join(file_name);
    if !exists(&direct) {
        return direct;
    }
    let (stem, ext) = match file_name.rfind('.') {
        Some(i) if i > 0 => file_name.split_at(i),
        _ => (file_name, ""),
    };
    let stamp = now.strftime("%Y%m%d-%H%M%S").to_string();
    let mut n = 1u32;
    loop {
        let name = if n == 1 {
            format!("{stem}_{stamp}{ext}")
        } else {
            format!("{stem}_{stamp}-{n}{ext}")
        };
        let candidate = archive.join(name);
        if !exists(&candidate) {
            return candidate;
        }
        n += 1;
    }
}

/// Even a dangling link counts as taken: never rename over anything.
fn exists(p: &Path) -> bool {
    fs::symlink_metadata(p).is_ok()
}

/// Step 2: move a (stamped) inbox file into `00_INBOX/_archive/`, creating
/// the archive on first use. Returns the archive path relative to the bank.
pub fn move_to_archive(
    root: &Path,
    inbox_rel: &str,
    now: jiff::civil::DateTime,
) -> Result<String, ArchiveError> {
    let path = inbox_file(root, inbox_rel)?;
    let canonical_root = root.canonicalize().map_err(|e| fail(inbox_rel, e))?;
    let inbox = canonical_root.join(Folder::Inbox.dir_name());
    let archive = inbox.join(ARCHIVE_DIR);
    fs::create_dir_all(&archive)
        .map_err(|e| fail(inbox_rel, format!("cannot create 00_INBOX/_archive/: {e}")))?;
    let real_archive = archive.canonicalize().map_err(|e| fail(inbox_rel, e))?;
    if real_archive != archive {
        return Err(fail(
            inbox_rel,
            "00_INBOX/_archive/ is a symbolic link; refusing to move files through it",
        ));
    }
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| fail(inbox_rel, "has no file name"))?;
    let dest = free_archive_name(&archive, &file_name, now);
    fs::rename(&path, &dest)
        .map_err(|e| fail(inbox_rel, format!("cannot move it to the archive: {e}")))?;
    atomic::sync_dir(&archive);
    if let Some(parent) = path.parent() {
        atomic::sync_dir(parent);
    }
    let dest_name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    Ok(format!(
        "{}/{ARCHIVE_DIR}/{dest_name}",
        Folder::Inbox.dir_name()
    ))
}

/// Stamp then move one processed inbox file (§11).
pub fn archive_source(
    root: &Path,
    inbox_rel: &str,
    compiled_to: &[String],
    today: jiff::civil::Date,
    now: jiff::civil::DateTime,
) -> Result<Archived, ArchiveError> {
    stamp_source(root, inbox_rel, compiled_to, today)?;
    let archived_to = move_to_archive(root, inbox_rel, now)?;
    Ok(Archived {
        source: inbox_rel.to_owned(),
        archived_to,
    })
}

/// Finish archiving files that were stamped `compiled: true` but are still
/// in `00_INBOX/` (a run was killed between stamping and moving).
/// Returns what was moved and what could not be.
pub fn recover_inbox(
    root: &Path,
    now: jiff::civil::DateTime,
) -> (Vec<Archived>, Vec<ArchiveError>) {
    let mut moved = Vec::new();
    let mut errors = Vec::new();
    let files = match inbox_markdown_files(root) {
        Ok(f) => f,
        Err(e) => {
            errors.push(fail(Folder::Inbox.dir_name(), e));
            return (moved, errors);
        }
    };
    for rel in files {
        let mut path = root.to_path_buf();
        path.extend(rel.split('/'));
        let Ok(bytes) = read_regular(&path, DEFAULT_MAX_FILE_BYTES) else {
            continue;
        };
        if !stamp::is_compiled(&String::from_utf8_lossy(&bytes)) {
            continue;
        }
        match move_to_archive(root, &rel, now) {
            Ok(archived_to) => moved.push(Archived {
                source: rel,
                archived_to,
            }),
            Err(e) => errors.push(e),
        }
    }
    (moved, errors)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day() -> jiff::civil::Date {
        jiff::civil::date(2026, 4, 8)
    }

    fn now() -> jiff::civil::DateTime {
        jiff::civil::date(2026, 4, 8).at(17, 10, 55, 0)
    }

    fn bank() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("00_INBOX")).unwrap();
        fs::create_dir_all(dir.path().join("01_CLIENTS")).unwrap();
        dir
    }

    fn write(root: &Path, rel: &str, text: &str) {
        let p = root.join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }

    fn read(root: &Path, rel: &str) -> String {
        fs::read_to_string(root.join(rel)).unwrap()
    }

    fn all_files(root: &Path) -> Vec<String> {
        let mut v: Vec<String> = walkdir::WalkDir::new(root)
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_file())
            .map(|e| {
                e.path()
                    .strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/")
            })
            .collect();
        v.sort();
        v
    }

    #[test]
    fn listing_skips_archive_hidden_and_reserved_files() {
        let dir = bank();
        let r = dir.path();
        write(r, "00_INBOX/b.md", "b");
        write(r, "00_INBOX/a.MD", "a");
        write(r, "00_INBOX/sub/c.md", "c");
        write(r, "00_INBOX/_archive/old.md", "o");
        write(r, "00_INBOX/.obsidian/x.md", "x");
        write(r, "00_INBOX/_EXAMPLE_x.md", "x");
        write(r, "00_INBOX/_draft.md", "x");
        write(r, "00_INBOX/notes.txt", "x");
        write(r, "00_INBOX/sub/_archive/d.md", "d");
        assert_eq!(
            inbox_markdown_files(r).unwrap(),
            vec![
                "00_INBOX/a.MD",
                "00_INBOX/b.md",
                "00_INBOX/sub/_archive/d.md",
                "00_INBOX/sub/c.md"
            ]
        );
    }

    #[test]
    fn archive_stamps_then_moves() {
        let dir = bank();
        let r = dir.path();
        write(r, "00_INBOX/mail.md", "---\nfrom: x\n---\nBody\n");
        let a = archive_source(
            r,
            "00_INBOX/mail.md",
            &["01_CLIENTS/A.md".into()],
            day(),
            now(),
        )
        .unwrap();
        assert_eq!(a.archived_to, "00_INBOX/_archive/mail.md");
        assert!(!r.join("00_INBOX/mail.md").exists());
        let text = read(r, "00_INBOX/_archive/mail.md");
        assert!(
            text.starts_with("---\nfrom: x\ncompiled: true\ncompiled_date: 2026-04-08\n"),
            "{text}"
        );
    }

    #[test]
    fn collisions_get_a_timestamp_then_a_counter() {
        let dir = bank();
        let r = dir.path();
        write(r, "00_INBOX/_archive/mail.md", "first");
        write(r, "00_INBOX/mail.md", "second");
        assert_eq!(
            archive_source(r, "00_INBOX/mail.md", &[], day(), now())
                .unwrap()
                .archived_to,
            "00_INBOX/_archive/mail_20260408-171055.md"
        );
        write(r, "00_INBOX/mail.md", "third");
        assert_eq!(
            archive_source(r, "00_INBOX/mail.md", &[], day(), now())
                .unwrap()
                .archived_to,
            "00_INBOX/_archive/mail_20260408-171055-2.md"
        );
        write(r, "00_INBOX/sub/mail.md", "fourth");
        assert_eq!(
            archive_source(r, "00_INBOX/sub/mail.md", &[], day(), now())
                .unwrap()
                .archived_to,
            "00_INBOX/_archive/mail_20260408-171055-3.md"
        );
        assert_eq!(read(r, "00_INBOX/_archive/mail.md"), "first");
        assert!(read(r, "00_INBOX/_archive/mail_20260408-171055.md").contains("second"));
        assert!(read(r, "00_INBOX/_archive/mail_20260408-171055-2.md").contains("third"));
    }

    #[test]
    fn refuses_paths_outside_the_inbox() {
        let dir = bank();
        let r = dir.path();
        write(r, "01_CLIENTS/A.md", "a");
        write(r, "00_INBOX/_archive/x.md", "x");
        for bad in [
            "01_CLIENTS/A.md",
            "00_INBOX/../01_CLIENTS/A.md",
            "00_INBOX/_archive/x.md",
            "00_INBOX/missing.md",
        ] {
            assert!(archive_source(r, bad, &[], day(), now()).is_err(), "{bad}");
        }
        assert_eq!(read(r, "01_CLIENTS/A.md"), "a");
    }

    #[test]
    fn broken_frontmatter_stays_in_the_inbox_untouched() {
        let dir = bank();
        let r = dir.path();
        write(r, "00_INBOX/bad.md", "---\na: [1\n---\n");
        let e = archive_source(r, "00_INBOX/bad.md", &[], day(), now()).unwrap_err();
        assert!(e.to_string().contains("00_INBOX/bad.md"), "{e}");
        assert_eq!(read(r, "00_INBOX/bad.md"), "---\na: [1\n---\n");
    }

    /// Kill after the stamp, before the move: the file is skipped by listings
    /// that honour `compiled: true`, and recovery finishes the move once.
    #[test]
    fn crash_between_stamp_and_move_is_recovered_exactly_once() {
        let dir = bank();
        let r = dir.path();
        write(r, "00_INBOX/mail.md", "---\nfrom: x\n---\nBody\n");
        write(r, "00_INBOX/other.md", "pending\n");
        stamp_source(r, "00_INBOX/mail.md", &["01_CLIENTS/A.md".into()], day()).unwrap();
        let stamped = read(r, "00_INBOX/mail.md");
        assert!(stamp::is_compiled(&stamped));

        let (moved, errors) = recover_inbox(r, now());
        assert!(errors.is_empty(), "{errors:?}");
        assert_eq!(moved.len(), 1);
        assert_eq!(read(r, "00_INBOX/_archive/mail.md"), stamped);
        // A second recovery has nothing left to do.
        let (moved, errors) = recover_inbox(r, now());
        assert!(moved.is_empty() && errors.is_empty());
        assert_eq!(
            all_files(r),
            vec!["00_INBOX/_archive/mail.md", "00_INBOX/other.md"]
        );
    }

    /// Kill while writing the stamp: only a `.tmp` sibling exists; the source
    /// is intact and still pending.
    #[test]
    fn crash_during_stamp_write_leaves_source_pending() {
        let dir = bank();
        let r = dir.path();
        write(r, "00_INBOX/mail.md", "---\nfrom: x\n---\n");
        let tmp = r.join("00_INBOX/.membank-x7Kq2mPa.tmp");
        fs::write(&tmp, "---\nfrom: x\ncompiled: tr").unwrap();
        assert_eq!(inbox_markdown_files(r).unwrap(), vec!["00_INBOX/mail.md"]);
        assert!(!stamp::is_compiled(&read(r, "00_INBOX/mail.md")));
        let (moved, _) = recover_inbox(r, now());
        assert!(moved.is_empty());
        // The rerun archives it normally.
        archive_source(r, "00_INBOX/mail.md", &[], day(), now()).unwrap();
        assert!(r.join("00_INBOX/_archive/mail.md").is_file());
    }

    #[cfg(unix)]
    #[test]
    fn archive_through_a_symlink_is_refused() {
        let outside = tempfile::tempdir().unwrap();
        let dir = bank();
        let r = dir.path();
        write(r, "00_INBOX/mail.md", "x\n");
        std::os::unix::fs::symlink(outside.path(), r.join("00_INBOX/_archive")).unwrap();
        assert!(move_to_archive(r, "00_INBOX/mail.md", now()).is_err());
        assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 0);
        assert!(r.join("00_INBOX/mail.md").is_file());
    }
}
