//! Which inbox notes wait for Process Inbox: one rule for the `inbox`
//! listing, the Process Inbox agent and a saved reply applied from disk.
//! A note is pending until it carries `compiled: true`. A note that cannot
//! be read (not UTF-8, too large, a FIFO, a link out of the bank) is
//! pending too, since nothing shows it was compiled; it is listed apart
//! with the reason and never sent to a model.

use std::io;
use std::path::Path;

use serde::Serialize;

use crate::bank::{ArticleId, Bank};
use crate::safe_read::RootReader;
use crate::{archive, layout, stamp};

/// A pending note that cannot be read, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Unreadable {
    pub path: String,
    pub reason: String,
}

/// The pending notes of a loaded bank.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Pending {
    /// Readable notes, in bank order.
    pub readable: Vec<ArticleId>,
    pub unreadable: Vec<Unreadable>,
}

impl Pending {
    pub fn count(&self) -> usize {
        self.readable.len() + self.unreadable.len()
    }
}

pub fn pending(bank: &Bank) -> Pending {
    Pending {
        readable: bank.pending_inbox(),
        unreadable: bank
            .problems
            .iter()
            .filter(|p| layout::is_inbox_note(&p.path))
            .map(|p| Unreadable {
                path: p.path.clone(),
                reason: p.message.clone(),
            })
            .collect(),
    }
}

/// The pending notes read from disk without loading the bank, readable or
/// not (by the same rule as [`pending`]), sorted by path.
pub fn pending_on_disk(root: &Path) -> io::Result<Vec<String>> {
    let reader = RootReader::for_root(root)?;
    let mut out = Vec::new();
    let notes = archive::inbox_note_entries(root, true)?;
    for rel in notes.into_iter().filter(|rel| layout::is_inbox_note(rel)) {
        let compiled = reader
            .read(Path::new(&rel))
            .map(|b| stamp::is_compiled(&String::from_utf8_lossy(&b)))
            .unwrap_or(false);
        if layout::is_pending_inbox(&rel, compiled) {
            out.push(rel);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn the_loaded_bank_and_the_disk_count_the_same_notes() {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        fs::create_dir_all(r.join("00_INBOX")).unwrap();
        fs::write(r.join("00_INBOX/a.md"), "new\n").unwrap();
        fs::write(r.join("00_INBOX/b.md"), "---\ncompiled: true\n---\n").unwrap();
        fs::write(r.join("00_INBOX/c.md"), b"\xff\xfe broken").unwrap();
        #[cfg(unix)]
        {
            let outside = tempfile::tempdir().unwrap();
            fs::write(outside.path().join("x.md"), "elsewhere\n").unwrap();
            std::os::unix::fs::symlink(outside.path().join("x.md"), r.join("00_INBOX/d.md"))
                .unwrap();
        }
        let bank = Bank::load(r).unwrap();
        let loaded = pending(&bank);
        let mut paths: Vec<String> = loaded
            .readable
            .iter()
            .map(|&id| bank.article(id).rel_path.clone())
            .chain(loaded.unreadable.iter().map(|u| u.path.clone()))
            .collect();
        paths.sort();
        assert_eq!(paths, pending_on_disk(r).unwrap());
        assert!(paths.contains(&"00_INBOX/c.md".to_owned()), "{paths:?}");
        assert_eq!(loaded.readable.len(), 1);
        #[cfg(unix)]
        assert_eq!(loaded.unreadable.len(), 2, "{:?}", loaded.unreadable);
    }
}
