//! `membank feedback`: what `recall-feedback.jsonl` says about each recall
//! route (the reference feedback report), and appending a sanitized line.

use std::fmt::Write as _;
use std::process::ExitCode;

use anyhow::bail;
use membank_core::dejavu;
use membank_core::dejavu::feedback::{self, Report};

use super::common::{begin_dejavu_write, finish, open_dejavu, print_json, safe};

pub use membank_args::feedback::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let project = open_dejavu(&args.project)?;
    if let Some(outcome) = &args.add {
        let today = super::common::clock().today().to_string();
        let line = feedback::feedback_line(
            args.cue.as_deref().unwrap_or_default(),
            outcome,
            args.matched_id.as_deref(),
            args.note.as_deref(),
            &today,
        )
        // The message may quote the outcome as typed, escapes and all.
        .map_err(|e| anyhow::anyhow!(safe(&e)))?;
        // A line naming no active impression is flagged by `check` at once.
        if let Some(id) = args.matched_id.as_deref().filter(|id| *id != "unmatched")
            && !dejavu::checks::reference::is_active_impression_id(&project, id)
        {
            bail!(
                "--matched-id {}: no active impression has this id (recall lists the ids it \
                 matched); use --matched-id unmatched for a cue no impression answered",
                safe(id)
            );
        }
        let tx = begin_dejavu_write(&project.root)?;
        feedback::append(&tx, &line).map_err(|e| anyhow::anyhow!(safe(&e)))?;
        finish(&tx);
        if args.json {
            let appended: serde_json::Value = serde_json::from_str(&line)?;
            print_json(&serde_json::json!({
                "path": dejavu::FEEDBACK_PATH,
                "appended": appended,
            }))?;
        } else {
            outln!("appended to {}: {}", dejavu::FEEDBACK_PATH, safe(&line))?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if args.cue.is_some() {
        bail!("--cue is only used with --add OUTCOME");
    }
    let mut report = feedback::report(project.feedback.as_ref());
    // There but not read is not "not yet": say why, as recall does.
    let unread = project
        .feedback
        .is_none()
        .then(|| not_read(&project.root))
        .flatten();
    if let Some(why) = &unread {
        report.diagnostics.push(feedback::Diagnostic {
            level: "error",
            message: "Feedback file not read",
            path: dejavu::FEEDBACK_PATH.to_owned(),
            line: 0,
            error: why.clone(),
        });
    }
    if args.json {
        print_json(&report)?;
    } else if let Some(why) = &unread {
        out!("{} was not read: {}\n", dejavu::FEEDBACK_PATH, safe(why))?;
    } else {
        out!("{}", human(&report))?;
    }
    Ok(if unread.is_some() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// Why the feedback file, when something is at its path, was not read.
fn not_read(root: &std::path::Path) -> Option<String> {
    let meta = std::fs::symlink_metadata(root.join(dejavu::FEEDBACK_PATH)).ok()?;
    let kind = meta.file_type();
    Some(if kind.is_symlink() {
        "it is a symbolic link, and links are never followed".to_owned()
    } else if !kind.is_file() {
        "it is not a regular file (a folder, a pipe or a device)".to_owned()
    } else {
        "it could not be read as text within the size limit (`membank check` says why)".to_owned()
    })
}

fn human(r: &Report) -> String {
    let mut out = String::new();
    if !r.feedback_file_found {
        let _ = writeln!(out, "no {} yet", dejavu::FEEDBACK_PATH);
        return out;
    }
    let t = &r.totals;
    let _ = writeln!(
        out,
        "helpful {}  irrelevant {}  missed {}  overloaded {}",
        t.helpful, t.irrelevant, t.missed, t.overloaded
    );
    if !r.routes.is_empty() {
        let _ = writeln!(
            out,
            "\nroute (matched_id)              help  irr  miss  over"
        );
    }
    for route in &r.routes {
        let id = match &route.matched_id {
            dejavu::js::JsValue::String(s) => s.clone(),
            other => serde_json::to_string(other).unwrap_or_default(),
        };
        let t = &route.totals;
        let _ = writeln!(
            out,
            "{:<32} {:>4} {:>4} {:>5} {:>5}",
            safe(&id),
            t.helpful,
            t.irrelevant,
            t.missed,
            t.overloaded
        );
        for s in &route.suggestions {
            let _ = writeln!(out, "    → {s}");
        }
    }
    for d in &r.diagnostics {
        let _ = writeln!(
            out,
            "error: {}:{}: {} ({})",
            safe(&d.path),
            d.line,
            d.message,
            safe(&d.error)
        );
    }
    out
}
