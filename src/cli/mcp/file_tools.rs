//! `fix`, `mv` and `new`, offered only with `--allow-writes`: each plans
//! its files without writing (the fixes of health findings, a rename's
//! moves and rewritten links, a new article with its folder's keys), as
//! `membank fix`, `membank mv` and `membank new` show them, and returns a proposal_id that `apply_write` writes through
//! the bank's one reviewed write, refused whole when a file changed since.

use std::collections::HashSet;
use std::fmt::Write as _;
use std::sync::Arc;

use membank_args::tools::{
    FixParams, FixesReport, MvParams, NewParams, ProposedFix, Remaining, ToolAnswer, ToolArgs,
};
use membank_core::bank::Bank;
use membank_core::dejavu;
use membank_core::fix::{Action, FileFix};
use membank_core::new_note::{self, Known};
use membank_core::rename;
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::Kind;
use rmcp::model::{Tool, ToolAnnotations};

use super::state::{Shared, WITHHELD_WHY, diff_without};
use super::tools::Output;
use super::writes::{Owner, Pending};
use crate::cli::new::parse_folder;

/// A plan changes nothing outside the server, so it is read-only and
/// idempotent.
fn proposing() -> ToolAnnotations {
    ToolAnnotations::new()
        .read_only(true)
        .destructive(false)
        .idempotent(true)
        .open_world(false)
}

pub fn mv_tool() -> Tool {
    Tool::new(
        "mv",
        "Plan renaming or moving a note or a folder of notes (in a Deja Vu project, a \
         record), without writing: the moves and every file whose links are rewritten so \
         each link opens what it opened (aliases, headings, embeds, paths, Markdown links, \
         frontmatter; a record's supersedes/superseded_by and record_path), with diffs, as \
         `membank mv` shows them. A taken name, or one that would make links ambiguous, is \
         refused with the reason. Returns a proposal_id for apply_write.",
        MvParams::schema(),
    )
    .with_raw_output_schema(FixesReport::answer_schema())
    .with_annotations(proposing())
}

pub fn fix_tool() -> Tool {
    Tool::new(
        "fix",
        "Plan the fixes of the memory's health findings that have one right answer (in a \
         bank: encoding, fences, dates, status and language codes, link quoting, ambiguous \
         links, a dead link to the one article it names but for case, width, spacing or \
         `&`, missing keys the file gives a value for, leftovers, missing folders, old template names, compiled inbox notes; in a Deja Vu \
         project: the index's link to an active decision or open loop, the missing side of a \
         supersede, required keys the record states, status case, short dates), without \
         writing: per file, what changes and its diff, as `membank fix` shows them, and \
         every finding left with the reason it has no automatic fix. Returns a proposal_id \
         for apply_write (null when nothing would change).",
        FixParams::schema(),
    )
    .with_raw_output_schema(FixesReport::answer_schema())
    .with_annotations(proposing())
}

pub fn new_tool() -> Tool {
    Tool::new(
        "new",
        "Plan a new article in a bank folder with the keys that folder requires, filled from \
         its name and the given client, domain and languages (a key nothing fills is left \
         empty), without writing; a taken name is refused. Returns a proposal_id for \
         apply_write.",
        NewParams::schema(),
    )
    .with_raw_output_schema(FixesReport::answer_schema())
    .with_annotations(proposing())
}

fn with_bank<T>(shared: &Shared, tool: &str, f: impl FnOnce(&Bank) -> T) -> Result<T, String> {
    let memory = shared.memory();
    let bank =
        membank::layouts::bank(&**memory).ok_or_else(|| format!("{tool} works on memory banks"))?;
    Ok(f(bank))
}

pub fn mv(shared: &Arc<Shared>, owner: Owner, p: MvParams) -> Result<Output, String> {
    let (planned, withheld) = {
        let memory = shared.memory();
        let planned = if let Some(bank) = membank::layouts::bank(&**memory) {
            rename::plan(bank, &p.from, &p.to).map(|plan| (Kind::Bank, plan))
        } else if let Some(project) = membank::layouts::project(&**memory) {
            served_record(shared, project, &p.from)?;
            dejavu::rename::plan(project, &p.from, &p.to)
                .and_then(|fixes| {
                    private_untouched(shared, project, p.from.trim(), &fixes)?;
                    Ok(fixes)
                })
                .map(|fixes| (Kind::Project, crate::cli::mv::dejavu_plan(fixes)))
        } else {
            return Err("mv works on memory banks and Deja Vu projects".into());
        };
        // The rewritten lines are new text: those naming private memory
        // are withheld as the lines on disk are.
        let withheld = match &planned {
            Ok((_, plan)) => shared.withheld_with_proposed(&**memory, proposed_texts(&plan.fixes)),
            Err(_) => HashSet::new(),
        };
        (planned, withheld)
    };
    let (kind, plan) = planned.map_err(|e| format!("mv: {e}"))?;
    propose(
        shared,
        owner,
        (kind, "rename"),
        plan.fixes,
        plan.links_rewritten,
        plan.left_in_place,
        plan.unread
            .into_iter()
            .map(|path| Remaining {
                code: "rename",
                path,
                line: None,
                reason: "could not be read: a link in it to what moves is not rewritten".into(),
            })
            .chain(plan.links_left.into_iter().map(|path| {
                Remaining {
                    code: "rename",
                    path,
                    line: None,
                    reason: "outside the bank's folders, not read: a link in it to what moves is \
                         not rewritten"
                        .into(),
                }
            }))
            .chain(plan.through_link.into_iter().map(|path| {
                Remaining {
                    code: "rename",
                    path,
                    line: None,
                    reason: "reached through a symbolic link, never written: a link in it to what \
                         moves is not rewritten"
                        .into(),
                }
            }))
            .collect(),
        Withheld {
            lines: &withheld,
            findings: 0,
        },
    )
}

/// `Err` unless `from` is a record this server serves. A private record
/// and one that is not there get one answer, naming only what was asked,
/// as `read` and `supersede` answer: the planner's own refusals ("is
/// private memory", "is a symbolic link", "no record") told apart would
/// tell a model which private files exist.
fn served_record(
    shared: &Shared,
    project: &membank_core::dejavu::project::Project,
    from: &str,
) -> Result<(), String> {
    if shared.include_private {
        return Ok(());
    }
    let from = from.trim().trim_start_matches("./");
    if project.is_private(from) || !project.records.iter().any(|r| r.path == from) {
        return Err(format!(
            "mv: `{}`: no record of that path is served here (it does not exist, or it is \
             private memory: {WITHHELD_WHY})",
            s(from)
        ));
    }
    Ok(())
}

/// A rename that would move or rewrite private memory is refused unless
/// private memory is served, as `supersede` refuses a private record: its
/// diff would show the private text, and applying it unseen would change
/// the user's private memory on a model's word. Only how many files is
/// said, never which.
fn private_untouched(
    shared: &Shared,
    project: &membank_core::dejavu::project::Project,
    from: &str,
    fixes: &[FileFix],
) -> Result<(), String> {
    if shared.include_private {
        return Ok(());
    }
    let from = from.trim_start_matches("./");
    if project.is_private(from) {
        return Err(format!("{} is withheld: {WITHHELD_WHY}", s(from)));
    }
    if let Some(to) = fixes.iter().find_map(|f| match &f.action {
        Action::Move { to, .. } if project.is_private(to) => Some(to),
        _ => None,
    }) {
        return Err(format!(
            "{} is private memory, and moving a record there would name it in shared \
             memory: {WITHHELD_WHY}",
            s(to)
        ));
    }
    let private = fixes.iter().filter(|f| project.is_private(&f.path)).count();
    if private > 0 {
        return Err(format!(
            "{private} withheld file(s) link to {} and would be rewritten; nothing is \
             proposed: {WITHHELD_WHY}",
            s(from)
        ));
    }
    Ok(())
}

fn s(t: &str) -> String {
    sanitize_for_terminal(t, false)
}

pub fn fix(shared: &Arc<Shared>, owner: Owner, p: FixParams) -> Result<Output, String> {
    let today = crate::cli::common::clock().today();
    let filter = crate::cli::check::CheckArgs {
        // The same findings as the check tool's stale_days reports.
        stale_days: p.stale_days,
        code: p.code.clone(),
        path: p.path,
        limit: 0,
        offset: 0,
    };
    let mut withheld_findings = 0;
    let (kind, proposal, withheld) = {
        let memory = shared.memory();
        let withheld = shared.withheld_line_texts(&**memory);
        // Findings about private memory are neither fixed nor shown here.
        let mut checked = |memory: &dyn membank_core::memory::Memory| {
            crate::cli::check::report_withholding(
                memory,
                &filter,
                &shared.finding_withholder(memory),
            )
            .map(|(checked, withheld)| {
                withheld_findings = withheld;
                checked
            })
            .map_err(|e| format!("fix: {e:#}"))
        };
        if let Some(bank) = membank::layouts::bank(&**memory) {
            let findings = checked(&**memory)?.report.findings;
            let proposal = membank_core::fix::propose_with(
                bank,
                &findings,
                &membank_core::fix::Options {
                    tz: jiff::tz::TimeZone::system(),
                    checked_today: p.code.iter().any(|c| c == "stale").then_some(today),
                    create_missing: p.create_missing.then_some(today),
                    surface: membank_core::surface::Surface::Tool,
                },
            );
            (Kind::Bank, proposal, withheld)
        } else if let Some(project) = membank::layouts::project(&**memory) {
            if p.create_missing {
                return Err(
                    "fix: create_missing makes bank articles; a Deja Vu project's records \
                     are written by its own workflow"
                        .into(),
                );
            }
            let findings = checked(&**memory)?.report.findings;
            (
                Kind::Project,
                dejavu::fix::propose(project, &findings, membank_core::surface::Surface::Tool),
                withheld,
            )
        } else {
            return Err("fix: this memory is only read; nothing in it is fixed".into());
        }
    };
    let remaining = proposal
        .remaining
        .into_iter()
        .map(|u| Remaining {
            code: u.code,
            path: u.path,
            line: u.line,
            reason: u.reason,
        })
        .collect();
    propose(
        shared,
        owner,
        (kind, "fix"),
        proposal.fixes,
        0,
        Vec::new(),
        remaining,
        Withheld {
            lines: &withheld,
            findings: withheld_findings,
        },
    )
}

pub fn new(shared: &Arc<Shared>, owner: Owner, p: NewParams) -> Result<Output, String> {
    let folder = parse_folder(&p.folder).ok_or_else(|| {
        format!(
            "new: {} is not a folder of the bank",
            membank_core::text::quoted(&p.folder)
        )
    })?;
    let known = Known {
        client: p.client,
        domain: p.domain,
        source_lang: p.source_lang,
        target_lang: p.target_lang,
    };
    let today = crate::cli::common::clock().today();
    let fix = with_bank(shared, "new", |bank| {
        new_note::article(bank, folder, &p.name, &known, today)
    })?
    .map_err(|e| format!("new: {e}"))?;
    propose(
        shared,
        owner,
        (Kind::Bank, "new article"),
        vec![fix],
        0,
        Vec::new(),
        Vec::new(),
        Withheld {
            lines: &HashSet::new(),
            findings: 0,
        },
    )
}

/// Each file a proposal writes, with the text it would hold.
fn proposed_texts(fixes: &[FileFix]) -> Vec<(&str, &str)> {
    fixes
        .iter()
        .filter_map(|f| {
            let (path, after) = match &f.action {
                Action::Change { after, .. } | Action::Create { after } => (f.path.as_str(), after),
                Action::Move { to, after, .. } => (to.as_str(), after),
                _ => return None,
            };
            Some((path, std::str::from_utf8(after).ok()?))
        })
        .collect()
}

/// What a proposal leaves out, as it is about private memory: the text of
/// the lines its diffs may not quote, and how many findings.
struct Withheld<'a> {
    lines: &'a HashSet<String>,
    findings: usize,
}

/// `journal` is which memory's rules write the files, and what the
/// journal calls the write; the diffs shown leave out the `withheld` lines.
#[allow(clippy::too_many_arguments)]
fn propose(
    shared: &Arc<Shared>,
    owner: Owner,
    journal: (Kind, &'static str),
    fixes: Vec<FileFix>,
    links_rewritten: usize,
    left_in_place: Vec<String>,
    remaining: Vec<Remaining>,
    withheld: Withheld<'_>,
) -> Result<Output, String> {
    let files: Vec<ProposedFix> = fixes
        .iter()
        .map(|f| ProposedFix {
            path: f.path.clone(),
            action: f.kind(),
            to: match &f.action {
                Action::Move { to, .. } => Some(to.clone()),
                _ => None,
            },
            codes: f.codes.clone(),
            notes: f.notes.clone(),
            diff: f.diff().map(|d| diff_without(&d, withheld.lines)),
        })
        .collect();
    // Nothing to apply is said as such: an id would invite a write of
    // nothing (and hold a proposal slot).
    let id = if fixes.is_empty() {
        None
    } else {
        Some(
            shared
                .proposals
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .add(owner, Pending::Fixes(journal.0, journal.1, fixes))?,
        )
    };
    let report = FixesReport {
        proposal_id: id,
        files,
        links_rewritten,
        left_in_place,
        remaining,
        withheld_findings: (withheld.findings > 0).then_some(withheld.findings),
    };
    let text = describe(&report);
    Output::new(report, vec![text])
}

fn describe(r: &FixesReport) -> String {
    let s = |t: &str| sanitize_for_terminal(t, false);
    let mut out = String::new();
    if let Some(id) = &r.proposal_id {
        let _ = writeln!(out, "proposal {id}");
    }
    for f in &r.files {
        let to = f.to.as_deref().map(|t| format!(" → {}", s(t)));
        let _ = writeln!(
            out,
            "{:<9} {}{}",
            f.action,
            s(&f.path),
            to.unwrap_or_default()
        );
        for n in &f.notes {
            let _ = writeln!(out, "          {}", s(n));
        }
        if let Some(d) = &f.diff {
            out.push_str(&sanitize_for_terminal(d, true));
        }
    }
    for u in &r.remaining {
        let at = u.line.map(|l| format!(":{l}")).unwrap_or_default();
        let _ = writeln!(
            out,
            "left      {}{at} ({}): {}",
            s(&u.path),
            u.code,
            s(&u.reason)
        );
    }
    for p in &r.left_in_place {
        let _ = writeln!(out, "stays     {} (not a note)", s(p));
    }
    if let Some(n) = r.withheld_findings {
        let _ = writeln!(
            out,
            "{n} finding(s) about private memory not listed: {WITHHELD_WHY}"
        );
    }
    match &r.proposal_id {
        Some(id) => {
            let _ = writeln!(
                out,
                "Nothing written yet; apply_write with proposal_id {id} writes these {} file(s).",
                r.files.len()
            );
        }
        None => out.push_str("Nothing to change: no file would be written.\n"),
    }
    out
}
