//! `membank inbox`: the files waiting for Process Inbox.

use std::process::ExitCode;

use membank_core::inbox::Unreadable;
use serde::Serialize;

use super::common::{open_bank, print_json, safe};

pub use membank_args::inbox::Args;

#[derive(Serialize)]
struct Pending {
    path: String,
    title: String,
    chars: usize,
}

#[derive(Serialize)]
struct Report {
    pending: Vec<Pending>,
    /// Pending notes that cannot be read (Process Inbox cannot send them).
    unreadable: Vec<Unreadable>,
    /// `compiled: true` files, archived or not, which listings skip.
    compiled: usize,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank(&args.bank)?;
    let all = membank_core::inbox::pending(bank);
    let pending: Vec<Pending> = all
        .readable
        .into_iter()
        .map(|id| {
            let a = bank.article(id);
            Pending {
                path: a.rel_path.clone(),
                title: a.title().to_owned(),
                chars: a.chars(),
            }
        })
        .collect();
    let compiled = bank
        .articles()
        .iter()
        .filter(|a| a.folder == membank_core::layout::Folder::Inbox && a.meta.compiled)
        .count();
    let report = Report {
        pending,
        unreadable: all.unreadable,
        compiled,
    };
    if args.json {
        print_json(&report)?;
    } else if report.pending.is_empty() && report.unreadable.is_empty() {
        outln!(
            "inbox is empty ({} compiled files skipped)",
            report.compiled
        )?;
    } else {
        outln!(
            "{} pending ({} compiled files skipped):",
            report.pending.len() + report.unreadable.len(),
            report.compiled
        )?;
        for p in &report.pending {
            outln!(
                "  {}  ({} chars)  {}",
                safe(&p.path),
                p.chars,
                safe(&p.title)
            )?;
        }
        for u in &report.unreadable {
            outln!("  {}  cannot be read: {}", safe(&u.path), safe(&u.reason))?;
        }
    }
    Ok(ExitCode::SUCCESS)
}
