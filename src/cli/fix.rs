//! `membank fix`: the health findings that have one right answer, fixed,
//! in a bank or a Deja Vu project (an everos root is only read). The fixes
//! are shown per file (changed, deleted, new folder, with the diff); only
//! `--yes` writes them, through the memory's one reviewed write.

use std::process::ExitCode;

use membank_core::bank::LoadOptions;
use membank_core::fix::{self, FileFix, FixProposal, Unfixed};
use membank_core::memory::LayoutKind;
use membank_core::text::sanitize_for_terminal;
use serde::Serialize;

use super::check::{self, CheckArgs};
use super::common;
use super::style;

pub use membank_args::fix::Args;

/// The machine form: stable field names, one entry per path fixed.
#[derive(Serialize)]
struct JsonOutput {
    bank: String,
    /// True when the fixes were written.
    written: bool,
    fixes: Vec<JsonFix>,
    /// Findings with no automatic fix, and why.
    remaining: Vec<Unfixed>,
}

#[derive(Serialize)]
struct JsonFix {
    path: String,
    /// `changed`, `deleted`, `new folder`, `new` or `moved`.
    action: &'static str,
    /// Where a moved file goes.
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<String>,
    codes: Vec<&'static str>,
    notes: Vec<String>,
    diff: Option<String>,
}

/// The bank's fixes for `findings`, with the options the flags give.
fn bank_proposal(
    bank: &membank_core::bank::Bank,
    findings: &[membank_core::health::Finding],
    args: &Args,
) -> FixProposal {
    // A file's modification date is the user's calendar day.
    // `stale` is fixed only when asked for by name: only the user knows
    // the article is still right.
    let checked_today = args
        .code
        .iter()
        .any(|c| c == "stale")
        .then(|| common::clock().today());
    fix::propose_with(
        bank,
        findings,
        &fix::Options {
            tz: jiff::tz::TimeZone::system(),
            checked_today,
            create_missing: args.create_missing.then(|| common::clock().today()),
            surface: membank_core::surface::Surface::CommandLine,
        },
    )
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let found = membank_core::memory::detect(&args.bank, common::forced_format())
        .map_err(|e| anyhow::anyhow!(common::safe(&e.to_string())))?;
    let filter = CheckArgs {
        // The same findings as `check --stale-days N` reports.
        stale_days: args.stale_days,
        code: args.code.clone(),
        path: args.path.clone(),
        limit: 0,
        offset: 0,
    };
    if let LayoutKind::Everos = found.spec.kind {
        eprintln!(
            "membank: {} is {}, which membank only reads; nothing is fixed. \
             `membank check` lists its findings.",
            common::safe(&args.bank.display().to_string()),
            found.spec.title
        );
        return Ok(ExitCode::from(2));
    }
    if found.spec.kind == LayoutKind::DejaVu && args.create_missing {
        eprintln!(
            "membank: --create-missing makes bank articles; a Deja Vu project's \
             records are written by its own workflow. Nothing was written."
        );
        return Ok(ExitCode::from(2));
    }
    // With --yes the plan is made under the lock it is written under.
    let tx = match (args.yes, found.spec.kind) {
        (true, LayoutKind::DejaVu) => Some(common::begin_dejavu_write(&found.root)?),
        (true, _) => Some(common::begin_bank_write(&found.root)?),
        (false, _) => None,
    };
    let mut proposal = plan(found.spec.kind, &args, &filter)?;
    let mut written = false;
    if let Some(tx) = &tx
        && !proposal.fixes.is_empty()
    {
        if !common::commit_reviewed(tx, &proposal.fixes, "the fixes were made")? {
            return Ok(ExitCode::from(1));
        }
        common::finish(tx);
        written = true;
        // What is left is what a check finds now: a fix can answer a
        // finding it was not made for (an orphan a retargeted link now
        // reaches) or reveal one (a value the fixed frontmatter shows).
        proposal.remaining = left_after_writing(plan(found.spec.kind, &args, &filter)?);
    }
    let shown = args.bank.to_string_lossy();
    if args.json {
        common::print_json(&json_output(&shown, &proposal, written))?;
    } else {
        print_human(&shown, &proposal, written, args.yes)?;
    }
    let left = !proposal.remaining.is_empty() || (!proposal.fixes.is_empty() && !written);
    Ok(if left {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The fixes for what a check of the memory at `args.bank` finds now.
fn plan(kind: LayoutKind, args: &Args, filter: &CheckArgs) -> anyhow::Result<FixProposal> {
    Ok(match kind {
        LayoutKind::DejaVu => {
            let project = common::open_dejavu(&args.bank)?;
            let checked = check::report(&project, filter)?;
            membank_core::dejavu::fix::propose(
                &project,
                &checked.report.findings,
                membank_core::surface::Surface::CommandLine,
            )
        }
        _ => {
            // Owned, not kept for the process: `--yes` plans twice, and the
            // first bank is freed before the second is read.
            let bank = common::open_bank_owned(&args.bank, LoadOptions::EVERYTHING)?;
            let checked = check::report(&bank, filter)?;
            bank_proposal(&bank, &checked.report.findings, args)
        }
    })
}

/// The findings left once the fixes were written: those with no fix, and
/// those a fix would answer now that the first ones are made (a second
/// run makes it).
fn left_after_writing(again: FixProposal) -> Vec<Unfixed> {
    let mut left = again.remaining;
    for f in again.fixes {
        for code in f.codes {
            left.push(Unfixed {
                code,
                path: f.path.clone(),
                line: None,
                reason: "revealed by the fixes just made; `membank fix` again fixes it".into(),
            });
        }
    }
    membank_core::shared_sort::sort_by(&mut left, |a, b| {
        (&a.path, a.line, a.code).cmp(&(&b.path, b.line, b.code))
    });
    left
}

fn json_output(bank: &str, proposal: &FixProposal, written: bool) -> JsonOutput {
    JsonOutput {
        bank: bank.to_owned(),
        written,
        fixes: proposal
            .fixes
            .iter()
            .map(|f| JsonFix {
                path: f.path.clone(),
                action: f.kind(),
                to: match &f.action {
                    fix::Action::Move { to, .. } => Some(to.clone()),
                    _ => None,
                },
                codes: f.codes.clone(),
                notes: f.notes.clone(),
                diff: f.diff(),
            })
            .collect(),
        remaining: proposal.remaining.clone(),
    }
}

fn print_human(bank: &str, proposal: &FixProposal, written: bool, yes: bool) -> anyhow::Result<()> {
    soutln!("{}", sanitize_for_terminal(bank, false))?;
    if proposal.fixes.is_empty() {
        soutln!("No finding has an automatic fix.")?;
    } else {
        let title = if written { "Fixed" } else { "Fixes" };
        let heading = style::HEADING;
        soutln!("{heading}{title}:{heading:#}")?;
        for f in &proposal.fixes {
            print_fix(f)?;
        }
    }
    if !proposal.remaining.is_empty() {
        let heading = style::HEADING;
        soutln!(
            "\n{heading}Left ({}): no automatic fix{heading:#}",
            proposal.remaining.len()
        )?;
        for u in &proposal.remaining {
            let at = match u.line {
                Some(line) => format!("{}:{line}", u.path),
                None => u.path.clone(),
            };
            let code = style::CODE;
            soutln!(
                "  {code}{}{code:#}  {}: {}",
                u.code,
                sanitize_for_terminal(&at, false),
                sanitize_for_terminal(&u.reason, false)
            )?;
        }
    }
    if !proposal.fixes.is_empty() && !written && !yes {
        soutln!("\nNothing was written. Run again with --yes to apply these fixes.")?;
    }
    Ok(())
}

/// Characters of a diff line shown, at most: an impressions file's line
/// can be megabytes, and a preview is read on a terminal.
const DIFF_LINE_SHOWN: usize = 400;

/// `line`, cut after [`DIFF_LINE_SHOWN`] characters with how many more
/// there are.
fn cut_for_screen(line: &str) -> std::borrow::Cow<'_, str> {
    match line.char_indices().nth(DIFF_LINE_SHOWN) {
        None => line.into(),
        Some((at, _)) => {
            let more = line[at..].chars().count();
            format!("{} … ({more} more characters)", &line[..at]).into()
        }
    }
}

/// `changed    path (codes)`, what each fix does, then the diff in colour.
pub(super) fn print_fix(f: &FileFix) -> anyhow::Result<()> {
    soutln!(
        "  {:<10} {} ({})",
        f.kind(),
        sanitize_for_terminal(&f.path, false),
        f.codes.join(", ")
    )?;
    for note in &f.notes {
        soutln!("      - {}", sanitize_for_terminal(note, false))?;
    }
    let Some(diff) = f.diff() else {
        return Ok(());
    };
    for line in sanitize_for_terminal(&diff, true).lines() {
        let line = cut_for_screen(line);
        let colour = match line.as_bytes().first() {
            Some(b'+') if !line.starts_with("+++") => style::GOOD,
            Some(b'-') if !line.starts_with("---") => style::ERROR,
            Some(b'@') => style::NOTE,
            _ => anstyle::Style::new(),
        };
        soutln!("      {colour}{line}{colour:#}")?;
    }
    Ok(())
}
