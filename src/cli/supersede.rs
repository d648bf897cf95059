//! `membank supersede`: record that a newer Deja Vu record replaces an
//! older one, shown as a diff and written only on confirmation.

use std::io::{BufRead, IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use membank::diff::unified_diff;
use membank_core::dejavu::supersede;

use super::common::{open_dejavu, safe};

#[derive(clap::Args)]
pub struct Args {
    /// The project folder (holding memory/) or its memory/ folder.
    project: PathBuf,
    /// The record being replaced: its id or path (memory/decisions/x.md).
    old: String,
    /// The record replacing it.
    new: String,
    /// Write without asking.
    #[arg(long)]
    yes: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let project = open_dejavu(&args.project)?;
    let plan = supersede::plan(&project, &args.old, &args.new).map_err(anyhow::Error::msg)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "{} supersedes {}", safe(&plan.new), safe(&plan.old))?;
    for note in &plan.notes {
        writeln!(out, "note: {}", safe(note))?;
    }
    for e in &plan.edits {
        write!(
            out,
            "{}",
            membank_core::text::sanitize_for_terminal(
                &unified_diff(&e.path, &e.before, &e.after),
                true
            )
        )?;
    }
    if plan.edits.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            writeln!(out, "nothing written: pass --yes to apply these edits")?;
            return Ok(ExitCode::SUCCESS);
        }
        write!(
            out,
            "apply these edits to {} files? [y/N] ",
            plan.edits.len()
        )?;
        out.flush()?;
        let mut answer = String::new();
        std::io::stdin().lock().read_line(&mut answer)?;
        if !matches!(answer.trim(), "y" | "Y" | "yes") {
            writeln!(out, "nothing written")?;
            return Ok(ExitCode::SUCCESS);
        }
    }
    let written = supersede::apply(&project.root, &plan).map_err(anyhow::Error::msg)?;
    writeln!(out, "written: {}", safe(&written.join(", ")))?;
    Ok(ExitCode::SUCCESS)
}
