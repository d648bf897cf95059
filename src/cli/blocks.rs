//! `membank blocks`: check the `### FILE:` blocks of an LLM reply and
//! optionally write the valid ones.

use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use membank_core::compile::{self, BlockResult, BlockStatus, Mode};
use membank_core::review::{self, Change, ProposedFile};
use membank_core::text::{self, sanitize_for_terminal};

pub use membank_args::blocks::Args;

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let root = super::common::bank_root(&args.bank)?;
    let tx = match args.apply {
        true => Some(super::common::begin_bank_write(&root)?),
        false => None,
    };
    let reply = read_reply(args.reply.as_deref())?;
    let mode = if args.apply { Mode::Apply } else { Mode::Plan };
    let mut report = match &tx {
        Some(tx) => tx.apply_blocks(&reply),
        None => compile::apply_reply(&root, &reply, mode),
    };
    if let Some(tx) = &tx {
        super::common::finish(tx);
        super::common::clean_leftovers(tx);
    }

    if args.json {
        if !args.apply {
            add_diffs(&root, &reply, &mut report);
        }
        outln!("{}", to_json(&report)?)?;
    } else {
        print_blocks(&report.blocks)?;
        print_warnings(&report.warnings)?;
        if !args.apply {
            print_what_apply_writes(&root, &reply)?;
        }
        let total = report.blocks.len();
        let rejected = report.rejected();
        if total == 0 {
            outln!("No ### FILE: blocks found in the reply.")?;
        } else if args.apply {
            // Said in words, as every other write says what it wrote.
            let written = report
                .blocks
                .iter()
                .filter(|b| matches!(b.status, BlockStatus::Created | BlockStatus::Updated))
                .count();
            outln!(
                "{total} block(s), {rejected} rejected; {} written{}.",
                membank::plural::count(written, "file"),
                if written > 0 {
                    " (membank undo takes them back)"
                } else {
                    ""
                }
            )?;
        } else {
            outln!(
                "{total} block(s), {rejected} rejected. Nothing written; add --apply to write the valid ones."
            )?;
        }
    }
    Ok(if report.rejected() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The JSON plan carries what the readable one shows: each block that
/// would write, with its diff (a new file's lines all added).
fn add_diffs(root: &Path, reply: &str, report: &mut membank_core::compile::BlocksReport) {
    let proposal = review::classify(root, reply, &[], super::common::clock().now());
    for block in &mut report.blocks {
        let Some(file) = proposal
            .files
            .iter()
            .find(|f| f.line == block.line && f.path == block.path)
        else {
            continue;
        };
        block.diff = match file.change {
            Change::Changed => file.diff.clone(),
            Change::New => Some(membank_core::diff::unified_diff(
                &file.path,
                "",
                &file.content,
            )),
            _ => None,
        };
    }
}

/// A plan lists each file `--apply` would write with its diff, or a new
/// file's text: the table alone named the files but not what would go
/// into them.
fn print_what_apply_writes(root: &Path, reply: &str) -> anyhow::Result<()> {
    let proposal = review::classify(root, reply, &[], super::common::clock().now());
    let writes: Vec<ProposedFile> = proposal
        .files
        .into_iter()
        .filter(|f| matches!(f.change, Change::New | Change::Changed))
        .collect();
    if writes.is_empty() {
        return Ok(());
    }
    outln!()?;
    outln!("What --apply would write:")?;
    print_block_lines(&writes, Shown::Review)
}

/// Read a reply from a file, or from standard input for `None` or `-`.
pub(crate) fn read_reply(path: Option<&Path>) -> anyhow::Result<String> {
    read_text_input(path, "the reply")
}

/// [`read_reply`] of `what` (said when standard input is a terminal).
pub(crate) fn read_text_input(path: Option<&Path>, what: &str) -> anyhow::Result<String> {
    let (bytes, name) = match path {
        Some(p) if p != Path::new("-") => {
            let name = sanitize_for_terminal(&p.display().to_string(), false);
            let bytes =
                std::fs::read(p).with_context(|| format!("cannot read the reply file {name}"))?;
            (bytes, name)
        }
        _ => {
            super::common::say_reading_stdin(what);
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .with_context(|| format!("cannot read {what} from standard input"))?;
            (bytes, "standard input".to_owned())
        }
    };
    let decoded = text::decode(&bytes).map_err(|e| anyhow::anyhow!("reply from {name}: {e}"))?;
    membank::saved_reply::refuse_incomplete(&decoded.text, &name).map_err(anyhow::Error::msg)?;
    Ok(decoded.text)
}

/// The one JSON writer's text (see `membank_core::json`).
pub(crate) fn to_json(value: &impl serde::Serialize) -> anyhow::Result<String> {
    Ok(membank_core::json::to_string(value)?)
}

pub(crate) fn print_blocks(blocks: &[BlockResult]) -> anyhow::Result<()> {
    if blocks.is_empty() {
        return Ok(());
    }
    let width = blocks
        .iter()
        .map(|b| sanitize_for_terminal(&b.path, false).chars().count())
        .max()
        .unwrap_or(4)
        .clamp(4, 60);
    outln!("{:<9} {:>5}  {:<width$}  REASON", "STATUS", "LINE", "PATH")?;
    for b in blocks {
        outln!(
            "{:<9} {:>5}  {:<width$}  {}",
            b.change.as_str(),
            b.line,
            sanitize_for_terminal(&b.path, false),
            sanitize_for_terminal(b.reason.as_deref().unwrap_or(""), false),
        )?;
    }
    Ok(())
}

pub(crate) fn print_warnings(warnings: &[String]) -> anyhow::Result<()> {
    for w in warnings {
        outln!("warning: {}", sanitize_for_terminal(w, false))?;
    }
    Ok(())
}

/// How much of each proposed file a listing shows.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shown {
    /// Its outcome line only.
    Outcome,
    /// And the diff of a changed file.
    Diffs,
    /// And a new file's text too: a plan to review before it is written.
    /// A new file has no diff, and a plan that left its text out would
    /// have a later `--yes` (or `--reply`) write text nobody was shown.
    Review,
}

/// One line per proposed file in the words of `membank_core::review`
/// (new, changed, unchanged, rejected with the reason), with what `shown`
/// asks for indented below it.
pub(crate) fn print_block_lines(blocks: &[ProposedFile], shown: Shown) -> anyhow::Result<()> {
    for b in blocks {
        outln!("  {}", sanitize_for_terminal(&b.outcome_line(), false))?;
        if shown == Shown::Outcome {
            continue;
        }
        match &b.diff {
            Some(diff) => {
                for line in sanitize_for_terminal(diff, true).lines() {
                    outln!("      {line}")?;
                }
            }
            None if b.change == Change::New && shown == Shown::Review => {
                print_new_text(&b.content)?
            }
            None => {}
        }
    }
    Ok(())
}

/// Lines of a new file shown in a plan, at most: enough for any note a
/// model writes, while a runaway block does not flood the terminal.
const NEW_TEXT_LINES: usize = 2000;

fn print_new_text(content: &str) -> anyhow::Result<()> {
    let shown = sanitize_for_terminal(content, true);
    let total = shown.lines().count();
    for line in shown.lines().take(NEW_TEXT_LINES) {
        outln!("      +{line}")?;
    }
    if total > NEW_TEXT_LINES {
        outln!(
            "      … {} more lines not shown ({total} in all)",
            total - NEW_TEXT_LINES
        )?;
    }
    Ok(())
}
