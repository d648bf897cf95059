//! `membank supersede`: record that a newer Deja Vu record replaces an
//! older one, shown as a diff and written only on confirmation.

use std::io::{BufRead, IsTerminal, Write};
use std::process::ExitCode;

use anyhow::anyhow;
use membank::diff::unified_diff;
use membank_core::dejavu::supersede;

use schemars::JsonSchema;
use serde::Serialize;

use super::common::{begin_dejavu_write, finish, open_dejavu, print_json, safe};

pub use membank_args::supersede::Args;

/// What the plan changes and, once applied, what was written; the same for
/// `--json` and the MCP `supersede` tool.
#[derive(Serialize, JsonSchema)]
pub struct PlanJson {
    /// The record replaced and the one replacing it, as project paths.
    pub old: String,
    pub new: String,
    /// What the plan could not do.
    pub notes: Vec<String>,
    /// Every file that changes, with its unified diff.
    pub edits: Vec<EditJson>,
    /// The files written; `null` while nothing was applied.
    pub written: Option<Vec<String>>,
}

#[derive(Serialize, JsonSchema)]
pub struct EditJson {
    pub path: String,
    pub diff: String,
}

impl PlanJson {
    pub fn new(plan: &supersede::Plan, written: Option<Vec<String>>) -> PlanJson {
        PlanJson {
            old: plan.old.clone(),
            new: plan.new.clone(),
            notes: plan.notes.clone(),
            edits: plan
                .edits
                .iter()
                .map(|e| EditJson {
                    path: e.path.clone(),
                    diff: unified_diff(&e.path, &e.before, &e.after),
                })
                .collect(),
            written,
        }
    }
}

/// The readable plan: who supersedes whom, the notes and every diff.
pub fn human(plan: &supersede::Plan) -> String {
    let mut out = format!("{} supersedes {}\n", safe(&plan.new), safe(&plan.old));
    for note in &plan.notes {
        out.push_str(&format!("note: {}\n", safe(note)));
    }
    for e in &plan.edits {
        out.push_str(&membank_core::text::sanitize_for_terminal(
            &unified_diff(&e.path, &e.before, &e.after),
            true,
        ));
    }
    out
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut project = open_dejavu(&args.project)?;
    // With --yes the plan is made under the lock, from the files as they
    // are then, so a run changing the project meanwhile loses nothing.
    let held = match args.yes {
        true => {
            let tx = begin_dejavu_write(&project.root)?;
            project = tx.load();
            Some(tx)
        }
        false => None,
    };
    let plan = supersede::plan(&project, &args.old, &args.new).map_err(|e| anyhow!(safe(&e)))?;
    if args.json {
        let written = match &held {
            Some(tx) => {
                let written = supersede::apply(tx, &plan).map_err(|e| anyhow!(safe(&e)))?;
                finish(tx);
                Some(written)
            }
            None => None,
        };
        // Edits shown but not written are 1, as for mv and fix.
        let left = written.is_none() && !plan.edits.is_empty();
        print_json(&PlanJson::new(&plan, written))?;
        return Ok(if left {
            ExitCode::from(1)
        } else {
            ExitCode::SUCCESS
        });
    }
    let mut out = std::io::stdout().lock();
    write!(out, "{}", human(&plan))?;
    if plan.edits.is_empty() {
        return Ok(ExitCode::SUCCESS);
    }
    if !args.yes {
        if !std::io::stdin().is_terminal() {
            writeln!(out, "nothing written: pass --yes to apply these edits")?;
            return Ok(ExitCode::from(1));
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
            return Ok(ExitCode::from(1));
        }
    }
    let tx = match held {
        Some(tx) => tx,
        None => begin_dejavu_write(&project.root)?,
    };
    let written = supersede::apply(&tx, &plan).map_err(|e| anyhow!(safe(&e)))?;
    finish(&tx);
    writeln!(out, "written: {}", safe(&written.join(", ")))?;
    Ok(ExitCode::SUCCESS)
}
