//! The whole-bank snapshot the Health Check agent reviews (spec §12).

use serde::Serialize;

use crate::bank::Bank;

/// The Python standalone's cap, about 30k tokens.
pub const DEFAULT_CAP: usize = 120_000;

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Snapshot {
    pub snapshot: String,
    /// Articles included, in snapshot order.
    pub articles: Vec<String>,
    /// Articles left out because the cap was reached.
    pub omitted: Vec<String>,
    pub truncated: bool,
    /// Characters in `snapshot`.
    pub chars: usize,
    pub cap: usize,
}

/// Walk 01–04 by folder then relative path; whole articles only. The walk
/// stops at the first article that would pass the cap, so what is included
/// is always a prefix of the deterministic order.
pub fn build(bank: &Bank, cap: usize) -> Snapshot {
    let mut ids: Vec<usize> = bank.content_ids().collect();
    crate::shared_sort::sort_by(&mut ids, |&a, &b| {
        let (a, b) = (bank.article(a), bank.article(b));
        (a.folder, &a.rel_path).cmp(&(b.folder, &b.rel_path))
    });
    let mut snapshot = String::new();
    let mut chars = 0;
    let mut articles = Vec::new();
    let mut omitted = Vec::new();
    for id in ids {
        let a = bank.article(id);
        if !omitted.is_empty() {
            omitted.push(a.rel_path.clone());
            continue;
        }
        let mut piece = format!("----- {} -----\n", a.rel_path);
        // Read again when the bank keeps no bodies; a file that cannot be
        // read (or changed since) is left out, as if over the cap.
        let Ok(text) = bank.article_text(id) else {
            omitted.push(a.rel_path.clone());
            continue;
        };
        piece.push_str(&text);
        if !text.ends_with('\n') {
            piece.push('\n');
        }
        piece.push('\n');
        let n = piece.chars().count();
        if cap > 0 && chars + n > cap {
            omitted.push(a.rel_path.clone());
            continue;
        }
        chars += n;
        snapshot.push_str(&piece);
        articles.push(a.rel_path.clone());
    }
    Snapshot {
        truncated: !omitted.is_empty(),
        snapshot,
        articles,
        omitted,
        chars,
        cap,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn bank() -> (tempfile::TempDir, Bank) {
        let d = tempfile::tempdir().unwrap();
        for (rel, s) in [
            ("04_STYLE/z.md", "---\nscope: general\n---\nstyle\n"),
            ("01_CLIENTS/b.md", "---\nclient: B\n---\nb"),
            ("01_CLIENTS/a.md", "---\nclient: A\n---\na\n"),
            ("00_INBOX/raw.md", "raw\n"),
            ("05_INDICES/i.md", "index\n"),
        ] {
            let p = d.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, s).unwrap();
        }
        let b = Bank::load(d.path()).unwrap();
        (d, b)
    }

    #[test]
    fn order_headers_and_content_folders_only() {
        let (_d, b) = bank();
        let s = build(&b, DEFAULT_CAP);
        assert_eq!(
            s.articles,
            vec!["01_CLIENTS/a.md", "01_CLIENTS/b.md", "04_STYLE/z.md"]
        );
        assert!(!s.truncated);
        assert!(
            s.snapshot
                .starts_with("----- 01_CLIENTS/a.md -----\n---\nclient: A\n")
        );
        assert!(s.snapshot.contains("\nb\n\n----- 04_STYLE/z.md -----\n"));
        assert!(!s.snapshot.contains("raw"));
        assert_eq!(s.chars, s.snapshot.chars().count());
    }

    #[test]
    fn cap_truncates_by_whole_articles() {
        let (_d, b) = bank();
        let full = build(&b, DEFAULT_CAP);
        let first_two = full.snapshot.find("----- 04_STYLE").unwrap();
        let s = build(&b, first_two);
        assert!(s.truncated);
        assert_eq!(s.articles.len(), 2);
        assert_eq!(s.omitted, vec!["04_STYLE/z.md"]);
        assert_eq!(s.snapshot, full.snapshot[..first_two]);
        let s = build(&b, 5);
        assert!(s.truncated && s.articles.is_empty() && s.snapshot.is_empty());
    }
}
