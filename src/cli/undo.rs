//! `membank undo`: take back the last change membank made to a memory
//! (when its files are still as that change left them), or list the
//! journalled changes.

use std::process::ExitCode;

use membank_core::journal::{self, Entry, Recorded};
use membank_core::memory::LayoutKind;
use membank_core::transaction::Kind;
use serde::Serialize;

use super::common;

pub use membank_args::undo::Args;

#[derive(Serialize)]
struct JsonEntry {
    id: String,
    time: String,
    kind: String,
    undoes: Option<String>,
    /// Whether `membank undo` would take this one back next.
    next: bool,
    /// Its run was killed before it finished: undo takes back what it
    /// wrote (an interrupted undo: the next undo finishes it).
    interrupted: bool,
    /// Why the entry's file cannot be read (its kind and files are then
    /// unknown); `None` for every readable entry.
    #[serde(skip_serializing_if = "Option::is_none")]
    damaged: Option<String>,
    files: Vec<JsonFile>,
}

#[derive(Serialize)]
struct JsonFile {
    path: String,
    /// `created`, `changed`, `deleted`, `appended`, `truncated` or `folder made`.
    change: &'static str,
}

fn change_word(r: &Recorded) -> &'static str {
    match r {
        Recorded::Replaced { before: None, .. } => "created",
        Recorded::Replaced { after: None, .. } => "deleted",
        Recorded::Replaced { .. } => "changed",
        Recorded::Appended { .. } => "appended",
        Recorded::Truncated { .. } => "truncated",
        Recorded::FolderMade => "folder made",
    }
}

fn json_entry(e: &Entry, next: Option<&str>) -> JsonEntry {
    JsonEntry {
        id: e.id.clone(),
        time: e.time.clone(),
        kind: e.kind.clone(),
        undoes: e.undoes.clone(),
        next: next == Some(e.id.as_str()),
        interrupted: e.unfinished,
        damaged: None,
        files: e
            .files
            .iter()
            .map(|f| JsonFile {
                path: f.path.clone(),
                change: change_word(&f.change),
            })
            .collect(),
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let found = membank_core::memory::detect(&args.memory, common::forced_format())
        .map_err(|e| anyhow::anyhow!(common::safe(&e.to_string())))?;
    let kind = match found.spec.kind {
        LayoutKind::Bank => Kind::Bank,
        LayoutKind::DejaVu => Kind::Project,
        LayoutKind::Everos => {
            eprintln!(
                "membank: {} is {}, which membank never writes; nothing to undo",
                common::safe(&args.memory.display().to_string()),
                found.spec.title
            );
            return Ok(ExitCode::from(2));
        }
    };
    let Some(journal) = journal::installed() else {
        anyhow::bail!("no state folder for the undo journal: nothing to undo");
    };
    if args.list {
        return list(&journal, &found.root, args.json);
    }
    let tx = common::begin_write(&found.root, kind)?;
    match membank::undo_journal::undo_last_in(&journal, &tx, None) {
        Ok(undone) => {
            common::finish(&tx);
            drop(tx);
            for w in &undone.warnings {
                eprintln!("membank: warning: {}", common::safe(w));
            }
            if args.json {
                common::print_json(&serde_json::json!({
                    "undone": json_entry(&undone.entry, None),
                    "warnings": undone.warnings,
                }))?;
            } else {
                // After a killed run, the files it never wrote were left
                // as they were: say that the list is what it meant to write.
                let interrupted = match (undone.resumed, undone.interrupted) {
                    (true, _) => " (an undo of it that was interrupted is finished)",
                    (false, true) => " (interrupted; what it had written was taken back)",
                    (false, false) => "",
                };
                outln!(
                    "Undone: {} of {}{interrupted}",
                    common::safe(&undone.entry.kind),
                    common::safe(&undone.entry.time)
                )?;
                for f in &undone.entry.files {
                    // A folder made then and not empty now stays: say so,
                    // not that it was taken back.
                    let kept = match undone.kept.contains(&f.path) {
                        true => "; kept: it is not empty",
                        false => "",
                    };
                    outln!(
                        "  {} (was {}{kept})",
                        common::safe(&f.path),
                        change_word(&f.change)
                    )?;
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("membank: {}", common::safe(&e));
            // A script reading stdout learns why too, not only the exit status.
            if args.json {
                common::print_json(&serde_json::json!({ "undone": null, "reason": e }))?;
            }
            Ok(ExitCode::from(1))
        }
    }
}

fn list(
    journal: &journal::Journal,
    root: &std::path::Path,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let (entries, corrupt) = journal.entries(root);
    for c in &corrupt {
        eprintln!(
            "membank: warning: {}: {}",
            common::safe(&c.file.display().to_string()),
            common::safe(&c.reason)
        );
    }
    // Marked by the same answer `membank undo` acts on: a damaged entry
    // that may be the last change stops it, so nothing is marked then.
    let next = membank::undo_journal::last_to_undo(journal, root)
        .ok()
        .map(|(next, _)| next);
    let next_id = next.as_ref().map(|n| n.entry.id.clone());
    let mut shown: Vec<JsonEntry> = entries
        .iter()
        .map(|e| json_entry(e, next_id.as_deref()))
        .collect();
    // A damaged entry is listed where it falls in time, said to be damaged.
    for c in &corrupt {
        let id = c
            .file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        shown.push(JsonEntry {
            time: time_of_id(&id),
            id,
            kind: "damaged".into(),
            undoes: None,
            next: false,
            interrupted: false,
            damaged: Some(c.reason.clone()),
            files: Vec::new(),
        });
    }
    shown.sort_by(|a, b| b.id.cmp(&a.id));
    if json {
        super::common::print_json(&shown)?;
        return Ok(ExitCode::SUCCESS);
    }
    if shown.is_empty() {
        outln!("No journalled change of this memory.")?;
    }
    let finishes = next.as_ref().is_some_and(|n| n.resumes.is_some());
    // A damaged entry newer than every change undo could take may be the
    // real last change: undo stops at it.
    let undoable = journal::next_undo(&entries).map(|n| n.entry.id);
    let stops = |id: &str| undoable.as_deref().is_none_or(|u| id > u);
    for e in &shown {
        let mark = match (e.next, finishes) {
            (true, false) => "  <- undo takes this back next",
            (true, true) => "  <- undo finishes taking this back next",
            (false, _) => "",
        };
        let what = match (&e.damaged, e.interrupted) {
            (Some(reason), _) if stops(&e.id) => {
                format!("damaged entry ({reason}); undo stops here until its file is removed")
            }
            (Some(reason), _) => format!("damaged entry ({reason})"),
            (None, true) => format!("{} (interrupted before it was finished)", e.kind),
            (None, false) => e.kind.clone(),
        };
        outln!("{}  {}{mark}", common::safe(&e.time), common::safe(&what))?;
        for f in &e.files {
            outln!("    {} {}", f.change, common::safe(&f.path))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// When a journal entry was written, read from its id (nanoseconds since
/// 1970 first), to the second as entries give their time; empty when the
/// name does not start so.
fn time_of_id(id: &str) -> String {
    id.split('-')
        .next()
        .and_then(|n| n.parse::<i128>().ok())
        .and_then(|n| jiff::Timestamp::from_nanosecond(n).ok())
        .and_then(|t| t.round(jiff::Unit::Second).ok())
        .map(|t| t.to_string())
        .unwrap_or_default()
}
