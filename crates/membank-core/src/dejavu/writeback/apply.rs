//! Writing an accepted writeback, under the project's lock: records first
//! (each atomically), then the impression lines appended after the file's
//! bytes as they are then, so a route never points at a record that failed
//! to be written.

use super::is_impression;
use crate::atomic::article_bytes;
use crate::dejavu::{IMPRESSIONS_PATH, paths};
use crate::review::{Change, Proposal, ProposedFile};
use crate::transaction::{Stopped, Transaction};

/// Why nothing was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApplyError {
    /// These files changed on disk since the proposal was classified.
    Stale(Vec<String>),
    /// The project folder cannot be read, or the proposal may not be
    /// written at all; the reason names the file.
    Root(String),
}

impl std::fmt::Display for ApplyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ApplyError::Stale(paths) => write!(
                f,
                "{} changed on disk after the proposal was made; nothing was written",
                paths.join(", ")
            ),
            ApplyError::Root(reason) => f.write_str(reason),
        }
    }
}

impl std::error::Error for ApplyError {}

/// Write the accepted entries of `proposal`, leaving out the `declined`
/// indices, through the one reviewed write ([`Transaction::commit_writeback`]):
/// nothing is written when any accepted file changed since the proposal
/// was made. Returns every entry with what was done to it (a declined or
/// failed one as rejected with the reason).
pub fn apply(
    tx: &Transaction,
    proposal: &Proposal,
    declined: &[usize],
) -> Result<Vec<ProposedFile>, ApplyError> {
    match tx.commit_writeback(proposal, declined) {
        Ok(done) => Ok(done.report),
        Err(Stopped::Stale(paths)) => Err(ApplyError::Stale(paths)),
        Err(Stopped::Refused(reason)) => Err(ApplyError::Root(reason)),
    }
}

/// The writeback's own step of a commit, run after its checks: records
/// first, then the impression lines.
pub(crate) fn write_accepted(
    tx: &Transaction,
    proposal: &Proposal,
    declined: &[usize],
) -> Vec<ProposedFile> {
    let mut done: Vec<ProposedFile> = proposal.files.clone();
    let mut failed_records: Vec<String> = Vec::new();
    for (i, file) in done.iter_mut().enumerate() {
        if file.change == Change::Rejected || is_impression(file) {
            continue;
        }
        if declined.contains(&i) {
            // A new record the user declined does not exist: a line routing
            // to it would route to nothing.
            if file.change == Change::New {
                failed_records.push(file.path.clone());
            }
            decline(file);
            continue;
        }
        if file.change == Change::Unchanged {
            continue;
        }
        let result = tx.read(&file.path).and_then(|existing| {
            tx.replace(
                &file.path,
                &article_bytes(&file.content, existing.as_deref()),
            )
        });
        if let Err(reason) = result {
            fail(file, reason);
            failed_records.push(file.path.clone());
        }
    }
    append_impressions(tx, &mut done, declined, &failed_records);
    done
}

fn decline(file: &mut ProposedFile) {
    file.change = Change::Rejected;
    file.reason = Some("declined by the user".into());
    file.diff = None;
}

fn fail(file: &mut ProposedFile, reason: String) {
    file.change = Change::Rejected;
    file.reason = Some(format!("could not be written: {reason}"));
    file.diff = None;
}

/// Append the accepted impression lines in one atomic replacement whose
/// first bytes are the file as it was.
fn append_impressions(
    tx: &Transaction,
    done: &mut [ProposedFile],
    declined: &[usize],
    failed_records: &[String],
) {
    let mut lines: Vec<usize> = Vec::new();
    for (i, file) in done.iter_mut().enumerate() {
        if !is_impression(file) || file.change == Change::Rejected {
            continue;
        }
        if declined.contains(&i) {
            decline(file);
        } else if routes_to_any(&file.content, failed_records) {
            fail(file, "the record it routes to was not written".into());
        } else if file.change != Change::Unchanged {
            lines.push(i);
        }
    }
    if lines.is_empty() {
        return;
    }
    // A file that cannot be read whole is not replaced: its lines would be lost.
    let existing = match tx.read(IMPRESSIONS_PATH) {
        Ok(bytes) => bytes.unwrap_or_default(),
        Err(reason) => {
            for &i in &lines {
                fail(&mut done[i], reason.clone());
            }
            return;
        }
    };
    let eol: &[u8] = if existing.windows(2).any(|w| w == b"\r\n") {
        b"\r\n"
    } else {
        b"\n"
    };
    let mut bytes = existing.clone();
    if !bytes.is_empty() && !bytes.ends_with(b"\n") {
        bytes.extend_from_slice(eol);
    }
    for &i in &lines {
        bytes.extend_from_slice(done[i].content.as_bytes());
        bytes.extend_from_slice(eol);
    }
    if let Err(reason) = tx.replace(IMPRESSIONS_PATH, &bytes) {
        for &i in &lines {
            fail(&mut done[i], reason.clone());
        }
    }
}

fn routes_to_any(line: &str, records: &[String]) -> bool {
    let Ok(value) = crate::dejavu::js::parse(line) else {
        return false;
    };
    value
        .get("record_path")
        .and_then(|v| v.as_str())
        .and_then(|p| paths::resolve_from("", p))
        .is_some_and(|p| records.contains(&p))
}
