//! `membank mv`: rename or move a note or a folder of notes, with every
//! link that reached it rewritten. The plan is shown per file (moved or
//! changed, with the diff); only `--yes` writes it, through the bank's one
//! reviewed write. A Deja Vu record moves the same way.

use std::process::ExitCode;

use membank_core::fix::{Action, FileFix};
use membank_core::memory::LayoutKind;
use membank_core::rename::{self, RenamePlan};
use membank_core::text::sanitize_for_terminal;
use serde::Serialize;

use super::common;
use super::style;

pub use membank_args::mv::Args;

#[derive(Serialize)]
struct JsonOutput {
    bank: String,
    /// True when the plan was written.
    written: bool,
    moves: Vec<JsonMove>,
    links_rewritten: usize,
    /// Files of a moved folder that stay where they are (not notes).
    left_in_place: Vec<String>,
    /// Notes that could not be read: links in them are not rewritten.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    unread: Vec<String>,
    /// Markdown files outside the bank's folders: not read, their links
    /// are left as they are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    links_left: Vec<String>,
    /// Notes reached through a symbolic link leading out of the bank:
    /// nothing is written through it, their links are left as they are.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    through_link: Vec<String>,
    files: Vec<JsonFile>,
}

#[derive(Serialize)]
struct JsonMove {
    from: String,
    to: String,
}

#[derive(Serialize)]
struct JsonFile {
    path: String,
    /// `moved` or `changed`.
    action: &'static str,
    notes: Vec<String>,
    diff: Option<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let found = membank_core::memory::detect(&args.bank, common::forced_format())
        .map_err(|e| anyhow::anyhow!(common::safe(&e.to_string())))?;
    // With --yes the plan is made under the lock it is written under.
    let (tx, planned) = match found.spec.kind {
        LayoutKind::Bank => {
            let tx = match args.yes {
                true => Some(common::begin_bank_write(&found.root)?),
                false => None,
            };
            let bank = common::open_bank(&args.bank)?;
            (tx, rename::plan(bank, &args.from, &args.to))
        }
        LayoutKind::DejaVu => {
            let tx = match args.yes {
                true => Some(common::begin_dejavu_write(&found.root)?),
                false => None,
            };
            let project = common::open_dejavu(&args.bank)?;
            let planned =
                membank_core::dejavu::rename::plan(&project, &args.from, &args.to).map(dejavu_plan);
            (tx, planned)
        }
        LayoutKind::Everos => {
            eprintln!(
                "membank: {} is {}, which membank only reads; nothing was moved.",
                common::safe(&args.bank.display().to_string()),
                found.spec.title
            );
            return Ok(ExitCode::from(2));
        }
    };
    let plan = match planned {
        Ok(plan) => plan,
        Err(reason) => {
            eprintln!("membank: {}", common::safe(&reason));
            return Ok(ExitCode::from(2));
        }
    };
    let mut written = false;
    if let Some(tx) = &tx {
        tx.set_label("rename");
        if !common::commit_reviewed(tx, &plan.fixes, "the rename was planned")? {
            return Ok(ExitCode::from(1));
        }
        common::finish(tx);
        written = true;
    }
    let shown = args.bank.to_string_lossy();
    if args.json {
        common::print_json(&json_output(&shown, &plan, written))?;
    } else {
        print_human(&shown, &plan, written)?;
    }
    Ok(if written {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// A Deja Vu rename's fixes in the form a bank's plan has.
pub(super) fn dejavu_plan(fixes: Vec<FileFix>) -> RenamePlan {
    let moves = fixes
        .iter()
        .filter_map(|f| match &f.action {
            Action::Move { to, .. } => Some((f.path.clone(), to.clone())),
            _ => None,
        })
        .collect();
    let links_rewritten = fixes
        .iter()
        .flat_map(|f| &f.notes)
        .filter(|n| n.starts_with("line "))
        .count();
    RenamePlan {
        moves,
        fixes,
        links_rewritten,
        left_in_place: Vec::new(),
        unread: Vec::new(),
        links_left: Vec::new(),
        through_link: Vec::new(),
    }
}

fn json_output(bank: &str, plan: &RenamePlan, written: bool) -> JsonOutput {
    JsonOutput {
        bank: bank.to_owned(),
        written,
        moves: plan
            .moves
            .iter()
            .map(|(from, to)| JsonMove {
                from: from.clone(),
                to: to.clone(),
            })
            .collect(),
        links_rewritten: plan.links_rewritten,
        left_in_place: plan.left_in_place.clone(),
        unread: plan.unread.clone(),
        links_left: plan.links_left.clone(),
        through_link: plan.through_link.clone(),
        files: plan.fixes.iter().map(json_file).collect(),
    }
}

fn json_file(f: &FileFix) -> JsonFile {
    JsonFile {
        path: f.path.clone(),
        action: f.kind(),
        notes: f.notes.clone(),
        diff: f.diff(),
    }
}

fn print_human(bank: &str, plan: &RenamePlan, written: bool) -> anyhow::Result<()> {
    soutln!("{}", sanitize_for_terminal(bank, false))?;
    let heading = style::HEADING;
    let title = if written { "Renamed" } else { "Rename" };
    soutln!(
        "{heading}{title}:{heading:#} {} file(s) moved, {} link(s) rewritten",
        plan.moves.len(),
        plan.links_rewritten
    )?;
    for f in &plan.fixes {
        super::fix::print_fix(f)?;
    }
    for p in &plan.left_in_place {
        soutln!(
            "  {:<10} {} (not a note: membank moves notes only)",
            "stays",
            sanitize_for_terminal(p, false)
        )?;
    }
    for p in &plan.unread {
        soutln!(
            "  {:<10} {} (could not be read: a link in it to what moves is not rewritten)",
            "unread",
            sanitize_for_terminal(p, false)
        )?;
    }
    for p in &plan.links_left {
        soutln!(
            "  {:<10} {} (outside the bank's folders, not read: a link in it to what moves is \
             not rewritten)",
            "links left",
            sanitize_for_terminal(p, false)
        )?;
    }
    for p in &plan.through_link {
        soutln!(
            "  {:<10} {} (reached through a symbolic link, never written: a link in it to what \
             moves is not rewritten)",
            "links left",
            sanitize_for_terminal(p, false)
        )?;
    }
    if !written {
        soutln!("\nNothing was written. Run again with --yes to rename.")?;
    }
    Ok(())
}
