//! What a reply's `### FILE:` blocks propose, classified once against the
//! disk: new, changed (with its diff), unchanged or rejected (with the
//! reason). The command line and the interface only format this; the write
//! itself is a `commit_*` of [`crate::transaction::Transaction`], which refuses a
//! file changed since it was shown, so nobody's edit is overwritten by a
//! stale review.

use std::path::Path;

use serde::Serialize;

use crate::compile::{self, BlockResult, BlockStatus, Mode};

pub use crate::outcome::Change;

/// The change a write reported, in the words of [`Change`].
pub fn change_of_written(status: BlockStatus) -> Change {
    match status {
        BlockStatus::Created => Change::New,
        BlockStatus::Updated => Change::Changed,
        BlockStatus::Unchanged => Change::Unchanged,
        BlockStatus::Valid | BlockStatus::Rejected => Change::Rejected,
    }
}

/// One block of a reply, classified. Paths, reasons, warnings and the diff
/// are untrusted text: sanitise them before a terminal shows them.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProposedFile {
    pub path: String,
    /// Line of the reply the block's marker is on; for an impression
    /// line (each judged on its own), the line of the reply it is on.
    pub line: usize,
    #[serde(rename = "status")]
    pub change: Change,
    pub reason: Option<String>,
    pub warnings: Vec<String>,
    /// Inbox sources that would list this file in `compiled_to`.
    pub sources: Vec<String>,
    /// Unified diff against the file on disk (changed files only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub diff: Option<String>,
    /// What would be written (LF line endings).
    #[serde(skip)]
    pub content: String,
    /// The file's text when this was classified (`None`: absent).
    #[serde(skip)]
    pub on_disk: Option<String>,
}

impl ProposedFile {
    /// The line every front end prints for this file.
    pub fn outcome_line(&self) -> String {
        crate::outcome::outcome_line(self.change, &self.path, self.line, self.reason.as_deref())
    }

    /// One proposed file of any layout, classified against its text on disk
    /// (`None`: absent): `verdict` is the layout's checks, `Err` with the
    /// reason when they refuse it.
    pub fn classified(
        path: String,
        line: usize,
        content: String,
        on_disk: Option<String>,
        verdict: Result<(), String>,
    ) -> ProposedFile {
        let (change, reason) = match (&verdict, &on_disk) {
            (Err(reason), _) => (Change::Rejected, Some(reason.clone())),
            (Ok(()), None) => (Change::New, None),
            (Ok(()), Some(old)) if *old == content => (Change::Unchanged, None),
            (Ok(()), Some(_)) => (Change::Changed, None),
        };
        let diff = (change == Change::Changed)
            .then(|| crate::diff::unified_diff(&path, on_disk.as_deref().unwrap_or(""), &content));
        ProposedFile {
            path,
            line,
            change,
            reason,
            warnings: Vec::new(),
            sources: Vec::new(),
            diff,
            content,
            on_disk,
        }
    }
}

/// A reply's blocks, classified, with the reply-level warnings.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Proposal {
    pub files: Vec<ProposedFile>,
    pub warnings: Vec<String>,
}

/// Classify a reply's blocks without writing anything. With `sources`
/// (Process Inbox), blocks are attributed to them and may not overwrite
/// them; `now` names the archive copies that plan would make.
pub fn classify(
    root: &Path,
    reply: &str,
    sources: &[String],
    now: jiff::civil::DateTime,
) -> Proposal {
    let (results, warnings): (Vec<BlockResult>, Vec<String>) = if sources.is_empty() {
        let r = compile::apply_reply(root, reply, Mode::Plan);
        (r.blocks, r.warnings)
    } else {
        let r = compile::compile_reply(root, sources, reply, Mode::Plan, now);
        (r.blocks, r.warnings)
    };
    let (previews, reply_warnings) = compile::preview_reply(root, reply);
    let files = results
        .into_iter()
        .enumerate()
        .map(|(i, b)| {
            let preview = previews.get(i).filter(|p| p.result.line == b.line);
            let content = preview.map(|p| p.content.clone()).unwrap_or_default();
            let on_disk = preview.and_then(|p| p.existing.clone());
            let verdict = match b.status {
                BlockStatus::Rejected => Err(b.reason.unwrap_or_default()),
                _ => Ok(()),
            };
            let mut file = ProposedFile::classified(b.path, b.line, content, on_disk, verdict);
            file.warnings = b.warnings;
            file.sources = b.sources;
            file
        })
        .collect();
    let mut all_warnings = reply_warnings;
    for w in warnings {
        if !all_warnings.contains(&w) {
            all_warnings.push(w);
        }
    }
    Proposal {
        files,
        warnings: all_warnings,
    }
}

/// Accepted files whose text on disk is no longer what the proposal was
/// classified against (edited, created or deleted since): writing now would
/// overwrite something nobody reviewed. `declined` lists block indices the
/// user turned down; they are not checked. `current` reads a file's text
/// now (`None`: absent or unreadable). A path proposed twice is listed once.
pub fn stale_paths_by(
    proposal: &Proposal,
    declined: &[usize],
    mut current: impl FnMut(&str) -> Option<String>,
) -> Vec<String> {
    let mut stale: Vec<String> = Vec::new();
    for (i, f) in proposal.files.iter().enumerate() {
        if f.change == Change::Rejected || declined.contains(&i) || stale.contains(&f.path) {
            continue;
        }
        if current(&f.path) != f.on_disk {
            stale.push(f.path.clone());
        }
    }
    stale
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn bank() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for f in ["00_INBOX", "01_CLIENTS"] {
            fs::create_dir_all(dir.path().join(f)).unwrap();
        }
        fs::write(dir.path().join("01_CLIENTS/Old.md"), "same\n").unwrap();
        fs::write(dir.path().join("01_CLIENTS/Edit.md"), "before\n").unwrap();
        dir
    }

    const REPLY: &str = "### FILE: 01_CLIENTS/New.md\nnew\n### FILE: 01_CLIENTS/Old.md\nsame\n\
                         ### FILE: 01_CLIENTS/Edit.md\nafter\n### FILE: 06_TEMPLATES/x.md\nno\n";

    #[test]
    fn each_block_is_classified_once_with_its_diff() {
        let d = bank();
        let p = classify(
            d.path(),
            REPLY,
            &[],
            jiff::civil::date(2026, 4, 8).at(9, 0, 0, 0),
        );
        let changes: Vec<_> = p.files.iter().map(|f| f.change).collect();
        assert_eq!(
            changes,
            vec![
                Change::New,
                Change::Unchanged,
                Change::Changed,
                Change::Rejected
            ]
        );
        let diff = p.files[2].diff.as_deref().unwrap();
        assert!(
            diff.contains("-before") && diff.contains("+after"),
            "{diff}"
        );
        assert!(p.files[3].reason.is_some());
        let json = crate::json::to_string(&p.files[2]).unwrap();
        assert!(json.contains("\"status\": \"changed\""), "{json}");
    }
}
