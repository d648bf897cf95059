//! `membank compile`: Process Inbox. Without `--reply` the pending inbox
//! files are sent to the model with the Compile template, the reply's
//! blocks are shown as a plan, and only `--yes` writes them; with `--reply`
//! a reply saved earlier is applied (spec §9–§11).

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use membank_core::archive::{self, Archived};
use membank_core::compile::{self, CompileReport, Mode, SentNote, SourceResult, SourceStatus};
use membank_core::review::{self, Change, ProposedFile};
use membank_core::templates::Agent;
use membank_core::text::sanitize_for_terminal;
use membank_core::transaction::Stopped;
use membank_llm::agents::{self, PreparedCompile};
use membank_llm::{ChatRequest, LlmClient, Reply};
use serde::Serialize;

use super::blocks::{Shown, print_block_lines, print_blocks, print_warnings, read_reply, to_json};
use super::common;
use super::llm_common;

pub use membank_args::compile::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = common::bank_root(&args.bank)?;
    let Some(reply_path) = args.reply.as_deref() else {
        return run_with_model(&args, &root);
    };
    let mode = if args.plan { Mode::Plan } else { Mode::Apply };
    // Held from before the inbox is listed until the sources are archived.
    let tx = match mode {
        Mode::Apply => Some(common::begin_bank_write(&root)?),
        Mode::Plan => None,
    };
    let reply = read_reply(Some(reply_path))?;
    // A reply membank saved names the notes it was made from.
    let sent = match membank::saved_reply::sent_with(reply_path) {
        Some(Ok(sent)) => Some(sent),
        Some(Err(e)) => bail!(
            "{}; nothing was applied (remove that file to apply the reply to the whole inbox)",
            common::safe(&e)
        ),
        None => None,
    };
    let now = common::clock().now();
    let report = match &tx {
        Some(tx) => {
            let report = apply_saved_reply(tx, &reply, sent.as_deref(), now)?;
            common::clean_leftovers(tx);
            report
        }
        None => {
            let (sources, kept) = saved_reply_sources(&root, sent.as_deref())?;
            let mut report = match sources.is_empty() {
                true => CompileReport::default(),
                false => compile::compile_reply(&root, &sources, &reply, mode, now),
            };
            report.sources.extend(kept);
            report
        }
    };

    if report.sources.is_empty() {
        eprintln!("Nothing to compile: 00_INBOX/ has no pending files. The reply was not applied.");
    }
    if args.json {
        outln!("{}", to_json(&report)?)?;
    } else {
        print_recovered(&report.recovered)?;
        if !report.sources.is_empty() {
            print_blocks(&report.blocks)?;
            print_warnings(&report.warnings)?;
            print_sources(&report.sources, false)?;
            if args.plan {
                outln!("Plan only: nothing was written or moved.")?;
            }
        }
    }

    let fine = !report.sources.is_empty() && report.rejected() == 0 && all_archived(&report);
    Ok(exit(fine))
}

/// The pending notes a saved reply is applied to: all of them for a reply
/// from elsewhere; for one membank saved, only those it was made from and
/// still as they were sent. The others stay in the inbox, each with why.
fn saved_reply_sources(
    root: &Path,
    sent: Option<&[SentNote]>,
) -> anyhow::Result<(Vec<String>, Vec<SourceResult>)> {
    let pending = membank_core::inbox::pending_on_disk(root).context("cannot list 00_INBOX/")?;
    let Some(sent) = sent else {
        return Ok((pending, Vec::new()));
    };
    let (same, mut kept) = compile::still_as_sent(root, sent);
    kept.retain(|k| pending.contains(&k.source));
    let mut sources = Vec::new();
    for path in pending {
        if same.contains(&path) {
            sources.push(path);
        } else if !kept.iter().any(|k| k.source == path) {
            kept.push(SourceResult {
                source: path,
                status: SourceStatus::Kept,
                compiled_to: Vec::new(),
                archived_to: None,
                reason: Some(
                    "it was not sent with this reply; it stays in the inbox for the next run"
                        .into(),
                ),
            });
        }
    }
    Ok((sources, kept))
}

/// A saved reply applied to the inbox as it is now, through the bank's
/// one reviewed write, so the articles written and the sources archived
/// are journalled as one `inbox` entry that `membank undo` takes back.
/// Moves an interrupted run left unfinished are finished first.
fn apply_saved_reply(
    tx: &membank_core::transaction::Transaction,
    reply: &str,
    sent: Option<&[SentNote]>,
    now: jiff::civil::DateTime,
) -> anyhow::Result<CompileReport> {
    let root = tx.root();
    let (recovered, errors) = archive::recover_inbox(root, now);
    let (pending, kept) = saved_reply_sources(root, sent)?;
    let mut report = match pending.is_empty() {
        true => CompileReport::default(),
        false => {
            let proposal = review::classify(root, reply, &pending, now);
            match tx.commit_compile(&proposal, &[], reply, &pending, now) {
                Ok(done) => {
                    common::finish(tx);
                    done.report
                }
                Err(e) => bail!(common::safe(&e.to_string())),
            }
        }
    };
    report.sources.extend(kept);
    report.recovered = recovered;
    let mut warnings: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
    warnings.append(&mut report.warnings);
    report.warnings = warnings;
    Ok(report)
}

fn exit(fine: bool) -> ExitCode {
    if fine {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

/// No source is kept in the inbox or failed (plan: none would be).
fn all_archived(report: &CompileReport) -> bool {
    !report
        .sources
        .iter()
        .any(|s| matches!(s.status, SourceStatus::Kept | SourceStatus::Failed))
}

fn print_recovered(recovered: &[Archived]) -> anyhow::Result<()> {
    for r in recovered {
        outln!(
            "recovered {} -> {} (stamped by an interrupted run)",
            sanitize_for_terminal(&r.source, false),
            sanitize_for_terminal(&r.archived_to, false)
        )?;
    }
    Ok(())
}

/// One line per source; `list_paths` adds the `compiled_to` paths below it.
fn print_sources(sources: &[SourceResult], list_paths: bool) -> anyhow::Result<()> {
    for s in sources {
        outln!("{}", sanitize_for_terminal(&s.outcome_line(), false))?;
        if list_paths && s.status != SourceStatus::Kept {
            for path in &s.compiled_to {
                outln!("    compiled_to  {}", sanitize_for_terminal(path, false))?;
            }
        }
    }
    Ok(())
}

/// Process Inbox against the configured model.
fn run_with_model(args: &Args, root: &Path) -> anyhow::Result<ExitCode> {
    // Configuration problems are reported before anything in the bank moves.
    let client = llm_common::client()
        .context("no model can be used (a saved reply can be applied with --reply FILE)")?;
    // With --yes the bank is locked for the whole run, model call included,
    // so a second run cannot send or archive the same sources.
    let tx = match args.yes {
        true => Some(common::begin_bank_write(root)?),
        false => None,
    };
    let now = common::clock().now();
    let mut recovered = Vec::new();
    let mut warnings = Vec::new();
    if args.yes {
        // Finish the moves of a run that was stopped after stamping, so
        // those files are neither sent again nor left behind.
        let (moved, errors) = archive::recover_inbox(root, now);
        recovered = moved;
        warnings.extend(errors.iter().map(|e| e.to_string()));
    }
    let bank = common::open_bank(root)?;
    let template = llm_common::template(bank, Agent::Compile);
    let today = now.date().to_string();
    let Some(prepared) = agents::prepare_compile(bank, &template, &today, args.budget) else {
        let unreadable = membank_core::inbox::pending(bank).unreadable;
        if unreadable.is_empty() {
            eprintln!(
                "Nothing to compile: 00_INBOX/ has no pending files, so no model was asked. Put \
                 new notes in 00_INBOX/ first (a reply saved earlier is applied with --reply FILE)."
            );
        } else {
            eprintln!(
                "Nothing can be sent: the pending files of 00_INBOX/ cannot be read, so no model \
                 was asked."
            );
        }
        let kept = unreadable_sources(&unreadable);
        let recovered_any = !recovered.is_empty() && kept.is_empty();
        if args.json {
            let output = ModelOutput {
                reply_complete: true,
                applied: false,
                reply_file: None,
                inbox: Vec::new(),
                blocks: Vec::new(),
                sources: kept,
                warnings,
                recovered,
            };
            outln!("{}", to_json(&output)?)?;
        } else {
            print_recovered(&recovered)?;
            print_sources(&kept, false)?;
        }
        // As with --reply, an empty inbox is not success, unless this run
        // finished the moves of an interrupted one.
        return Ok(exit(recovered_any));
    };
    report_prompt(&client, &prepared);

    let reply = stream_reply(&client, &prepared.request, args.show_reply)?;
    let reply_file = save_reply(root, &reply.text, now, "compile", reply.complete);
    if let Some(path) = &reply_file
        && let Err(e) = membank::saved_reply::save_sent(path, &prepared.sent)
    {
        eprintln!(
            "membank: warning: {e}; applied later, the reply would be applied to the whole inbox"
        );
    }
    // A reply cut short is not one to apply later: where it is saved, and
    // what --reply makes of it, is said once, by the incomplete message.
    if let Some(path) = reply_file.as_ref().filter(|_| reply.complete) {
        eprintln!(
            "membank: the raw reply is saved in {} (apply it later with --reply)",
            common::safe(&path.display().to_string())
        );
    }
    let sources = prepared.inbox;

    let planned = compile::compile_reply(root, &sources, &reply.text, Mode::Plan, now);
    // Classified once in the core; printed here.
    let proposal = review::classify(root, &reply.text, &sources, now);
    let mut plan = proposal.files.clone();
    let mut source_results = planned.sources.clone();
    let unreadable = unreadable_sources(&prepared.unreadable);
    source_results.extend(unreadable.iter().cloned());
    warnings.extend(planned.warnings.iter().cloned());
    let mut applied = false;

    if !reply.complete {
        for s in &mut source_results {
            s.status = SourceStatus::Kept;
            s.compiled_to.clear();
            s.reason = Some("the reply is incomplete; nothing was applied".into());
        }
    } else if let Some(tx) = &tx {
        if !args.json {
            // Written at once (`--yes`): the changes, as the reply's new
            // files are not printed unless asked for.
            print_plan(&plan, &warnings, &source_results, "Plan", Shown::Diffs)?;
        }
        // A file edited since the plan was made is not overwritten: the new
        // plan is shown and nothing is written.
        membank_core::compile::pause_point("plan-shown");
        // Only the notes still as the model saw them are stamped and
        // archived; one edited meanwhile stays in the inbox.
        let (sources, changed_since_sent) = compile::still_as_sent(root, &prepared.sent);
        let report = match tx.commit_compile(&proposal, &[], &reply.text, &sources, now) {
            Ok(done) => {
                common::finish(tx);
                done.report
            }
            Err(Stopped::Stale(stale)) => {
                let fresh = review::classify(root, &reply.text, &sources, now);
                print_plan(
                    &fresh.files,
                    &fresh.warnings,
                    &source_results,
                    "New plan",
                    Shown::Review,
                )?;
                eprintln!(
                    "membank: {} changed on disk after the plan was made; nothing was written. \
                     Check the new plan, then apply the saved reply with --reply.",
                    stale
                        .iter()
                        .map(|p| common::safe(p))
                        .collect::<Vec<_>>()
                        .join(", ")
                );
                return Ok(ExitCode::from(1));
            }
            Err(e @ Stopped::Refused(_)) => bail!(common::safe(&e.to_string())),
        };
        common::clean_leftovers(tx);
        plan = applied_blocks(&report, plan);
        source_results = report.sources;
        source_results.extend(changed_since_sent);
        source_results.extend(unreadable);
        warnings = report.warnings;
        applied = true;
    }

    let output = ModelOutput {
        reply_complete: reply.complete,
        applied,
        reply_file: reply_file.map(|p| p.display().to_string()),
        inbox: sources,
        blocks: plan,
        sources: source_results,
        warnings,
        recovered,
    };
    if args.json {
        outln!("{}", to_json(&output)?)?;
    } else {
        print_recovered(&output.recovered)?;
        if applied {
            outln!()?;
            outln!("Applied:")?;
            print_block_lines(&output.blocks, Shown::Outcome)?;
            print_sources(&output.sources, true)?;
        } else {
            let title = if reply.complete {
                "Plan"
            } else {
                "Plan of the INCOMPLETE reply (what arrived)"
            };
            print_plan(
                &output.blocks,
                &output.warnings,
                &output.sources,
                title,
                Shown::Review,
            )?;
        }
    }

    if !reply.complete {
        eprintln!("{}", incomplete_message(output.reply_file.as_deref()));
        return Ok(ExitCode::from(1));
    }
    let rejected = output.blocks.iter().any(|b| b.change == Change::Rejected);
    let archived_all = !output
        .sources
        .iter()
        .any(|s| matches!(s.status, SourceStatus::Kept | SourceStatus::Failed));
    let fine = !output.blocks.is_empty() && !rejected && archived_all;
    if !applied && !args.json {
        if output.blocks.is_empty() {
            outln!("The reply has no ### FILE: blocks. Nothing was written.")?;
        } else {
            outln!("Nothing was written. Run again with --yes to apply this plan.")?;
        }
    }
    Ok(exit(fine))
}

/// What to do after an incomplete reply; the saved reply is offered only
/// when it really was saved.
pub(crate) fn incomplete_message(reply_file: Option<&str>) -> String {
    let next = match reply_file {
        Some(path) => format!(
            "Run again; the reply as far as it came is saved in {} for review (--reply refuses \
             it unless you delete its first line, the mark of a reply cut short).",
            common::safe(path)
        ),
        None => "Run again (the reply was not saved).".to_owned(),
    };
    format!(
        "membank: the reply is incomplete (the stream was cut, failed or cancelled); nothing \
         was written. {next}"
    )
}

/// The machine form of a model-backed run.
#[derive(Serialize)]
struct ModelOutput {
    reply_complete: bool,
    /// Files were written and sources archived (`--yes` with a complete reply).
    applied: bool,
    /// Where the raw reply was saved, outside the bank.
    reply_file: Option<String>,
    /// The inbox files sent to the model.
    inbox: Vec<String>,
    blocks: Vec<ProposedFile>,
    sources: Vec<SourceResult>,
    warnings: Vec<String>,
    recovered: Vec<Archived>,
}

/// The plan's blocks with what the write actually did.
fn applied_blocks(report: &CompileReport, plan: Vec<ProposedFile>) -> Vec<ProposedFile> {
    report
        .blocks
        .iter()
        .zip(
            plan.into_iter()
                .map(Some)
                .chain(std::iter::repeat_with(|| None)),
        )
        .map(|(b, planned)| {
            let change = review::change_of_written(b.status);
            let (diff, content, on_disk) = planned
                .map(|p| (p.diff, p.content, p.on_disk))
                .unwrap_or_default();
            ProposedFile {
                path: b.path.clone(),
                line: b.line,
                change,
                reason: b.reason.clone(),
                warnings: b.warnings.clone(),
                sources: b.sources.clone(),
                diff: diff.filter(|_| change == Change::Changed),
                content,
                on_disk,
            }
        })
        .collect()
}

fn print_plan(
    blocks: &[ProposedFile],
    warnings: &[String],
    sources: &[SourceResult],
    title: &str,
    shown: Shown,
) -> anyhow::Result<()> {
    outln!("{title}:")?;
    print_block_lines(blocks, shown)?;
    print_warnings(warnings)?;
    print_sources(sources, true)?;
    Ok(())
}

/// Says on stderr what goes to the model: the provider, the inbox files and
/// the related articles (with why each was chosen).
fn report_prompt(client: &LlmClient, prepared: &PreparedCompile) {
    eprintln!(
        "membank: processing the inbox with {}",
        llm_common::describe_provider(client)
    );
    for path in &prepared.inbox {
        eprintln!("  inbox     {}", common::safe(path));
    }
    for related in &prepared.related {
        eprintln!(
            "  related   {} ({})",
            common::safe(&related.path),
            common::safe(&related.reasons.join("; "))
        );
    }
    for path in &prepared.left_out {
        eprintln!("  left out  {} (size limit)", common::safe(path));
    }
    for u in &prepared.unreadable {
        eprintln!(
            "  unreadable  {} ({}; not sent)",
            common::safe(&u.path),
            common::safe(&u.reason)
        );
    }
}

/// Pending notes that cannot be read stay in the inbox, said as for any
/// source left there, so the run reports them as `membank inbox` lists them.
fn unreadable_sources(unreadable: &[membank_core::inbox::Unreadable]) -> Vec<SourceResult> {
    unreadable
        .iter()
        .map(|u| SourceResult {
            source: u.path.clone(),
            status: SourceStatus::Kept,
            compiled_to: Vec::new(),
            archived_to: None,
            reason: Some(format!(
                "cannot be read ({}); not sent, left in the inbox",
                u.reason
            )),
        })
        .collect()
}

/// Runs the request, showing progress on stderr (the reply itself only with
/// `show_reply`), then one line saying whether the reply is whole.
pub(crate) fn stream_reply(
    client: &LlmClient,
    request: &ChatRequest,
    show_reply: bool,
) -> anyhow::Result<Reply> {
    let echo = if show_reply {
        llm_common::Echo::Stderr
    } else if std::io::stderr().is_terminal() {
        llm_common::Echo::Counter
    } else {
        llm_common::Echo::Nothing
    };
    let reply = llm_common::run(client, request, echo)?;
    eprintln!(
        "membank: reply {} ({} characters)",
        if reply.complete {
            "received"
        } else {
            "INCOMPLETE"
        },
        reply.text.chars().count()
    );
    Ok(reply)
}

/// Keeps the raw reply in the temporary folder, never inside the bank, so
/// that it can be reviewed or applied with `--reply`. A failure only warns.
pub(crate) fn save_reply(
    root: &Path,
    text: &str,
    now: jiff::civil::DateTime,
    kind: &str,
    complete: bool,
) -> Option<PathBuf> {
    match membank::saved_reply::save(root, text, now, kind, complete) {
        Ok(path) => path,
        Err(e) => {
            eprintln!("membank: warning: {e}");
            None
        }
    }
}
