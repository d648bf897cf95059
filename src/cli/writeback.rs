//! `membank writeback`: after work, the model turns notes or a conversation
//! into Deja Vu records and impression lines. Each proposed file is shown as
//! new, changed (with its diff), unchanged or rejected (with the reason the
//! layout's checks give); only `--yes` writes the accepted ones.

use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, bail};
use membank_core::dejavu::{self, Project, writeback};
use membank_core::review::{Change, Proposal, ProposedFile};
use membank_core::safe_read::{DEFAULT_MAX_FILE_BYTES, read_regular};
use membank_llm::writeback::{Note, PreparedWriteback, prepare_writeback};
use serde::Serialize;

use super::blocks::{Shown, print_block_lines, print_warnings, read_reply, to_json};
use super::common::{self, open_dejavu, safe};
use super::compile::{incomplete_message, save_reply, stream_reply};
use super::llm_common;

pub use membank_args::writeback::Args;

/// The machine form of a run.
#[derive(Serialize)]
struct Output {
    reply_complete: bool,
    /// The accepted files were written (`--yes`).
    applied: bool,
    /// Where the raw reply was saved, outside the project.
    reply_file: Option<String>,
    /// Records sent to the model whole.
    sent: Vec<String>,
    /// Paths kept from the model, with why.
    withheld: Vec<Withheld>,
    /// Records sent with some lines replaced by a marker because they name
    /// private memory, and how many.
    withheld_lines: Vec<WithheldLines>,
    blocks: Vec<ProposedFile>,
    warnings: Vec<String>,
}

#[derive(Serialize)]
struct Withheld {
    path: String,
    reason: &'static str,
}

#[derive(Serialize)]
struct WithheldLines {
    path: String,
    lines: usize,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let project = open_dejavu(&args.project)?;
    let mut output = Output {
        reply_complete: true,
        applied: false,
        reply_file: None,
        sent: Vec::new(),
        withheld: Vec::new(),
        withheld_lines: Vec::new(),
        blocks: Vec::new(),
        warnings: Vec::new(),
    };
    let reply = match &args.reply {
        Some(path) => read_reply(Some(path))?,
        None => {
            let notes = read_notes(&project, &args)?;
            let client = llm_common::client()
                .context("no model can be used (a saved reply is reviewed with --reply FILE)")?;
            let today = common::clock().today().to_string();
            let prepared =
                prepare_writeback(&project, writeback::TEMPLATE, &notes, &today, args.budget);
            report_prompt(&client, &prepared, &notes);
            output.sent = prepared.records.clone();
            output.withheld = prepared
                .withheld
                .iter()
                .map(|(path, reason)| Withheld {
                    path: path.clone(),
                    reason,
                })
                .collect();
            output.withheld_lines = prepared
                .withheld_lines
                .iter()
                .filter(|(_, lines)| *lines > 0)
                .map(|(path, lines)| WithheldLines {
                    path: path.clone(),
                    lines: *lines,
                })
                .collect();
            let reply = stream_reply(&client, &prepared.request, args.show_reply)?;
            let saved = save_reply(
                &project.root,
                &reply.text,
                common::clock().now(),
                "writeback",
                reply.complete,
            );
            output.reply_file = saved.map(|p| p.display().to_string());
            if let Some(path) = &output.reply_file {
                eprintln!(
                    "membank: the raw reply is saved in {} (review it again with --reply)",
                    safe(path)
                );
            }
            output.reply_complete = reply.complete;
            reply.text
        }
    };

    // Held from the review to the last write, so nothing changes in between.
    let tx = match args.yes && output.reply_complete {
        true => Some(common::begin_dejavu_write(&project.root)?),
        false => None,
    };
    let proposal = writeback::classify(&project, &reply);
    output.warnings = proposal.warnings.clone();
    output.blocks = proposal.files.clone();
    if let Some(tx) = &tx {
        // Written at once (`--yes`): the changes; new records' text only
        // in a plan to review.
        print_review(&args, &proposal, "Plan", Shown::Diffs)?;
        match writeback::apply(tx, &proposal, &[]) {
            Ok(done) => {
                common::finish(tx);
                output.blocks = done;
                output.applied = true;
            }
            Err(writeback::ApplyError::Stale(paths)) => {
                eprintln!(
                    "membank: {} changed on disk after the review was made; nothing was \
                     written. Run again to review the new state.",
                    paths.iter().map(|p| safe(p)).collect::<Vec<_>>().join(", ")
                );
                return Ok(ExitCode::from(1));
            }
            Err(e) => bail!(safe(&e.to_string())),
        }
    }

    if args.json {
        outln!("{}", to_json(&output)?)?;
    } else if output.applied {
        outln!()?;
        outln!("Applied:")?;
        print_block_lines(&output.blocks, Shown::Outcome)?;
    } else {
        let title = if output.reply_complete {
            "Plan"
        } else {
            "Plan of the INCOMPLETE reply (what arrived)"
        };
        print_review(&args, &proposal, title, Shown::Review)?;
    }
    if !output.reply_complete {
        eprintln!("{}", incomplete_message(output.reply_file.as_deref()));
        return Ok(ExitCode::from(1));
    }
    if !output.applied && !args.json {
        if output.blocks.is_empty() {
            outln!("The reply proposes no files. Nothing was written.")?;
        } else {
            outln!("Nothing was written. Run again with --yes to write the accepted files.")?;
        }
    }
    let rejected = output.blocks.iter().any(|f| f.change == Change::Rejected);
    Ok(if output.blocks.is_empty() || rejected {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

fn print_review(args: &Args, proposal: &Proposal, title: &str, shown: Shown) -> anyhow::Result<()> {
    if args.json {
        return Ok(());
    }
    outln!("{title}:")?;
    print_block_lines(&proposal.files, shown)?;
    print_entry_warnings(&proposal.files)?;
    print_warnings(&proposal.warnings)?;
    Ok(())
}

fn print_entry_warnings(files: &[ProposedFile]) -> anyhow::Result<()> {
    for f in files {
        for w in &f.warnings {
            outln!("warning: {}: {}", safe(&f.path), safe(w))?;
        }
    }
    Ok(())
}

/// The notes named on the command line, or standard input. A file inside
/// the project's private memory is refused: it is never sent to a model.
fn read_notes(project: &Project, args: &Args) -> anyhow::Result<Vec<Note>> {
    let mut notes = Vec::new();
    let from_stdin = args.stdin || args.notes.iter().any(|p| p == Path::new("-"));
    for path in args.notes.iter().filter(|p| *p != Path::new("-")) {
        let name = safe(&path.display().to_string());
        if let Some(rel) = inside_project(project, path)
            && dejavu::paths::is_private(&rel)
        {
            bail!("{name} is private memory ({rel}); it is never sent to a model");
        }
        let bytes = read_regular(path, DEFAULT_MAX_FILE_BYTES)
            .with_context(|| format!("cannot read the notes file {name}"))?;
        let text = membank_core::text::decode(&bytes)
            .map_err(|e| anyhow::anyhow!("notes file {name}: {e}"))?
            .text;
        notes.push(Note {
            name: path.display().to_string(),
            text,
        });
    }
    if from_stdin {
        notes.push(Note {
            name: "standard input".into(),
            text: super::blocks::read_text_input(None, "the notes").context("reading the notes")?,
        });
    }
    if notes.iter().all(|n| n.text.trim().is_empty()) {
        bail!(
            "nothing to write back: give files with the notes or conversation, or --stdin \
             (a saved reply is reviewed with --reply FILE)"
        );
    }
    Ok(notes)
}

/// `path` relative to the project, `/`-separated, when it lies inside it.
fn inside_project(project: &Project, path: &Path) -> Option<String> {
    let root = project.root.canonicalize().ok()?;
    let file = path.canonicalize().ok()?;
    let rel = file.strip_prefix(&root).ok()?;
    Some(
        rel.components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
    )
}

/// Says on stderr what goes to the model and what was kept back.
fn report_prompt(client: &membank_llm::LlmClient, prepared: &PreparedWriteback, notes: &[Note]) {
    eprintln!(
        "membank: writing back with {}",
        llm_common::describe_provider(client)
    );
    for n in notes {
        eprintln!("  notes     {}", safe(&n.name));
    }
    for path in &prepared.records {
        eprintln!(
            "  record    {}{}",
            safe(path),
            membank_core::dejavu::context::withheld_lines_note(&prepared.withheld_lines, path)
        );
    }
    for path in &prepared.left_out {
        eprintln!("  left out  {} (size limit)", safe(path));
    }
    for (path, why) in &prepared.withheld {
        eprintln!("  withheld  {} ({why})", safe(path));
    }
}
