//! Where a model may write in a Deja Vu project: the durable record
//! folders, the summary, the index, and new lines of the impressions file.
//! Never private memory, the feedback log, or anything outside `memory/`;
//! never through a symbolic link.

use std::path::Path;

use crate::dejavu::{FEEDBACK_PATH, IMPRESSIONS_PATH, INDEX_PATH, SUMMARY_PATH, paths};
use crate::pathsafe;

/// A checked target of one `### FILE:` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A Markdown record, written whole.
    Record(String),
    /// `memory/impressions.jsonl`: the block's lines are appended.
    Impressions,
}

/// Folders under `memory/` whose records a writeback may add or replace.
pub const RECORD_FOLDERS: [&str; 4] = [
    "memory/decisions/",
    "memory/open-loops/",
    "memory/context/",
    "memory/events/",
];

/// Check a block's path against the layout's write rules.
pub fn target(raw: &str) -> Result<Target, String> {
    let rel = pathsafe::relative_path(raw).map_err(|r| r.reason)?;
    for seg in rel.split('/') {
        pathsafe::check_name(seg).map_err(|r| r.reason)?;
    }
    if paths::is_private(&rel) {
        return Err("is private memory, which is never written from a model's reply".into());
    }
    if rel == IMPRESSIONS_PATH {
        return Ok(Target::Impressions);
    }
    if rel == FEEDBACK_PATH {
        return Err(
            "recall feedback is recorded with `membank feedback`, not by a writeback".into(),
        );
    }
    if !rel.starts_with("memory/") {
        return Err("is outside memory/; a writeback only writes memory records".into());
    }
    if !rel.to_ascii_lowercase().ends_with(".md") || rel.ends_with("/.md") {
        return Err("is not a Markdown record (the name must end in .md)".into());
    }
    let in_folder = RECORD_FOLDERS
        .iter()
        .any(|f| rel.strip_prefix(f).is_some_and(|rest| !rest.contains('/')));
    if rel == SUMMARY_PATH || rel == INDEX_PATH || in_folder {
        return Ok(Target::Record(rel));
    }
    Err(format!(
        "is not a record place a writeback may use (memory/summary.md, memory/index.md, or a \
         file directly in {})",
        RECORD_FOLDERS.join(", ")
    ))
}

/// Refuse a target that an existing symbolic link or special file would
/// redirect: every part of the path that exists must be a real folder, and
/// the file itself, if it exists, a regular file.
pub fn check_on_disk(root: &Path, rel: &str) -> Result<(), String> {
    let mut current = root.to_path_buf();
    let parts: Vec<&str> = rel.split('/').collect();
    for (i, part) in parts.iter().enumerate() {
        current.push(part);
        let last = i + 1 == parts.len();
        match std::fs::symlink_metadata(&current) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(e) => return Err(format!("cannot be checked: {e}")),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(crate::pathsafe::writes_through_no_link(
                    &parts[..=i].join("/"),
                ));
            }
            Ok(m) if !last && !m.is_dir() => {
                return Err(format!("{} is not a folder", parts[..=i].join("/")));
            }
            Ok(m) if last && !m.is_file() => {
                return Err("exists but is not a regular file".into());
            }
            Ok(_) => {}
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_record_places_and_the_impressions_file_are_writable() {
        let ok = |p: &str| target(p).is_ok();
        assert_eq!(
            target("memory/decisions/a.md"),
            Ok(Target::Record("memory/decisions/a.md".into()))
        );
        assert_eq!(target("memory\\impressions.jsonl"), Ok(Target::Impressions));
        assert!(ok("memory/summary.md") && ok("memory/index.md"));
        assert!(ok("memory/open-loops/x.md") && ok("memory/context/y.md"));
        for bad in [
            "memory/private/a.md",
            "memory/decisions/key.secret.md",
            "memory/transcripts/t.md",
            "memory/recall-feedback.jsonl",
            "AGENTS.md",
            "src/main.rs",
            "memory/decisions/../../x.md",
            "/etc/passwd",
            "memory/decisions/a.txt",
            "memory/decisions/nested/a.md",
            "memory/other.md",
            "memory/decisions/.hidden.md",
            "memory/decisions/.md",
        ] {
            assert!(target(bad).is_err(), "{bad}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn links_and_special_files_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        std::fs::create_dir_all(root.join("memory/real")).unwrap();
        std::os::unix::fs::symlink(root.join("memory/real"), root.join("memory/decisions"))
            .unwrap();
        assert!(check_on_disk(root, "memory/decisions/a.md").is_err());
        assert!(check_on_disk(root, "memory/real/a.md").is_ok());
        std::fs::create_dir_all(root.join("memory/summary.md")).unwrap();
        assert!(check_on_disk(root, "memory/summary.md").is_err());
    }
}
