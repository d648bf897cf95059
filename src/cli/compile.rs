//! `membank compile`: apply an LLM reply to the pending inbox files: write
//! the valid blocks, then stamp and archive each source (spec §9–§11).

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use membank_core::compile::{self, Mode, SourceStatus};
use membank_core::text::sanitize_for_terminal;

use super::blocks::{open_bank, print_blocks, print_warnings, read_reply, to_json};

#[derive(clap::Args)]
#[command(
    after_help = "Exit status: 0 everything applied, 1 a block was rejected, a source was not \
                  archived, or nothing was pending, 2 error."
)]
pub struct Args {
    /// The memory bank folder.
    pub bank: PathBuf,
    /// File holding the model's reply (`-` for standard input).
    #[arg(long, value_name = "FILE")]
    pub reply: Option<PathBuf>,
    /// Only show what would be written and archived.
    #[arg(long)]
    pub plan: bool,
    /// Print the result as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = open_bank(&args.bank)?;
    let Some(reply_path) = args.reply.as_deref() else {
        bail!(
            "give the model's reply with --reply FILE (asking a model directly is not available yet)"
        );
    };
    let reply = read_reply(Some(reply_path))?;
    let mode = if args.plan { Mode::Plan } else { Mode::Apply };
    let report = compile::compile_pending(&root, &reply, mode, compile::local_now())
        .context("cannot list 00_INBOX/")?;

    if report.sources.is_empty() {
        eprintln!("Nothing to compile: 00_INBOX/ has no pending files. The reply was not applied.");
    }
    if args.json {
        println!("{}", to_json(&report)?);
    } else {
        for r in &report.recovered {
            println!(
                "recovered {} -> {} (stamped by an interrupted run)",
                sanitize_for_terminal(&r.source, false),
                sanitize_for_terminal(&r.archived_to, false)
            );
        }
        if !report.sources.is_empty() {
            print_blocks(&report.blocks);
            print_warnings(&report.warnings);
            for s in &report.sources {
                let source = sanitize_for_terminal(&s.source, false);
                match s.status {
                    SourceStatus::Archived => println!(
                        "archived  {source} -> {} ({} file(s))",
                        sanitize_for_terminal(s.archived_to.as_deref().unwrap_or(""), false),
                        s.compiled_to.len()
                    ),
                    SourceStatus::WouldArchive => {
                        println!("would archive  {source} ({} file(s))", s.compiled_to.len())
                    }
                    SourceStatus::Kept | SourceStatus::Failed => println!(
                        "kept in inbox  {source}: {}",
                        sanitize_for_terminal(s.reason.as_deref().unwrap_or(""), false)
                    ),
                }
            }
            if args.plan {
                println!("Plan only: nothing was written or moved.");
            }
        }
    }

    let not_archived = report
        .sources
        .iter()
        .any(|s| matches!(s.status, SourceStatus::Kept | SourceStatus::Failed));
    let fine = !report.sources.is_empty() && report.rejected() == 0 && !not_archived;
    Ok(if fine {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
