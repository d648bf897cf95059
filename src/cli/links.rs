//! `membank links`: an article's outgoing links with their resolution, and
//! its backlinks.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::memory::{DocId, Memory, Resolution};
use serde::Serialize;

use super::common::{find_document, open_memory, print_json, safe};

#[derive(clap::Args)]
pub struct Args {
    /// The memory bank folder.
    bank: PathBuf,
    /// The article: a relative path (`03_DOMAINS/Legal.md`) or a name (`Legal`).
    article: String,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
pub struct Outgoing {
    target: String,
    raw: String,
    line: usize,
    in_frontmatter: bool,
    status: &'static str,
    path: Option<String>,
    candidates: Vec<String>,
}

#[derive(Serialize)]
pub struct Report {
    path: String,
    outgoing: Vec<Outgoing>,
    backlinks: Vec<String>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let memory = open_memory(&args.bank)?;
    let report = report(memory, &args.article)?;
    if args.json {
        print_json(&report)?;
    } else {
        print!("{}", human(&report));
    }
    Ok(ExitCode::SUCCESS)
}

/// The article's outgoing links and backlinks, as `--json` prints them.
pub fn report(memory: &dyn Memory, article: &str) -> anyhow::Result<Report> {
    let id = find_document(memory, article)?;
    let path_of = |i: DocId| memory.document(i).path.to_owned();
    let outgoing = memory
        .links(id)
        .into_iter()
        .map(|l| {
            let r = &l.resolution;
            let (status, candidates) = match r {
                Resolution::Dead => ("dead", Vec::new()),
                Resolution::One(_) => ("resolved", Vec::new()),
                Resolution::Ambiguous(ids) => {
                    ("ambiguous", ids.iter().map(|&i| path_of(i)).collect())
                }
            };
            Outgoing {
                target: l.target.to_owned(),
                raw: l.raw.to_owned(),
                line: l.line,
                in_frontmatter: l.in_frontmatter,
                status,
                path: r.target().map(path_of),
                candidates,
            }
        })
        .collect();
    Ok(Report {
        path: path_of(id),
        outgoing,
        backlinks: memory.backlinks(id).iter().map(|&i| path_of(i)).collect(),
    })
}

/// The readable report: each outgoing link with where it leads, then the
/// backlinks.
pub fn human(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", safe(&report.path));
    let _ = writeln!(out, "\noutgoing ({}):", report.outgoing.len());
    for o in &report.outgoing {
        let to = match (o.status, &o.path) {
            ("dead", _) => "DEAD (no such article)".to_owned(),
            ("ambiguous", Some(p)) => format!(
                "{} (ambiguous: {})",
                safe(p),
                safe(&o.candidates.join(", "))
            ),
            (_, Some(p)) => safe(p),
            _ => String::new(),
        };
        let _ = writeln!(out, "  line {:>4}  [[{}]] → {to}", o.line, safe(&o.raw));
    }
    let _ = writeln!(out, "\nbacklinks ({}):", report.backlinks.len());
    for b in &report.backlinks {
        let _ = writeln!(out, "  {}", safe(b));
    }
    out
}
