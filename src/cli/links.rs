//! `membank links`: an article's outgoing links with their resolution, and
//! its backlinks.

use std::fmt::Write as _;
use std::process::ExitCode;

use membank_core::bank::{ArticleId, Bank, Resolution};
use membank_core::wikilink::LinkKind;
use schemars::JsonSchema;
use serde::Serialize;

use super::common::{open_bank, print_json, safe};

pub use membank_args::links::Args;

#[derive(Serialize, JsonSchema)]
pub struct Outgoing {
    target: String,
    raw: String,
    /// The link as it appears in the file.
    written: String,
    kind: LinkKind,
    line: usize,
    in_frontmatter: bool,
    status: &'static str,
    path: Option<String>,
    candidates: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
pub struct Report {
    path: String,
    outgoing: Vec<Outgoing>,
    backlinks: Vec<String>,
    /// How many articles link here when `backlinks` lists only some of
    /// them (an MCP answer's `limit` and `offset`); absent when it lists
    /// them all.
    #[serde(skip_serializing_if = "Option::is_none")]
    backlinks_total: Option<usize>,
}

impl Report {
    /// Keep the `limit` backlinks after the first `offset`, saying how
    /// many there are when that leaves some out.
    pub fn page_backlinks(&mut self, offset: usize, limit: usize) {
        let total = self.backlinks.len();
        if offset > 0 || total > limit {
            self.backlinks_total = Some(total);
            self.backlinks.drain(..offset.min(total));
            self.backlinks.truncate(limit);
        }
    }
}

fn find_article(bank: &Bank, wanted: &str) -> anyhow::Result<ArticleId> {
    // `./03_DOMAINS/Legal.md` and `03_DOMAINS\\Legal.md` name the same file.
    let normalised = membank_core::bank::normalize_rel_path(wanted).unwrap_or_default();
    if let Some(id) = bank.find(&normalised) {
        return Ok(id);
    }
    match bank.resolve(&normalised) {
        Resolution::One(id) => Ok(id),
        Resolution::Ambiguous(ids) => {
            let names: Vec<&str> = ids
                .iter()
                .map(|&i| bank.article(i).rel_path.as_str())
                .collect();
            anyhow::bail!(
                "`{wanted}` names several articles: {}; give a path",
                names.join(", ")
            )
        }
        Resolution::Dead | Resolution::File(_) => {
            // Inbox and index notes are not link targets but can be inspected.
            let by_stem = bank
                .articles()
                .iter()
                .position(|a| a.stem().to_lowercase() == normalised.to_lowercase());
            by_stem.ok_or_else(|| {
                if let Some(why) = super::common::why_not_read(
                    bank.root(),
                    membank_core::memory::LayoutKind::Bank.spec(),
                    &normalised,
                ) {
                    return anyhow::anyhow!("{} {}", safe(&normalised), safe(&why));
                }
                let spec = membank_core::memory::LayoutKind::Bank.spec();
                let stem = normalised.to_lowercase();
                let stem = stem.strip_suffix(".md").unwrap_or(&stem);
                if let Some((rel, why)) = super::common::unread_named(bank.root(), spec, stem) {
                    return anyhow::anyhow!("{} {}", safe(&rel), safe(&why));
                }
                let names = bank.articles().iter().map(|a| a.stem());
                let close = membank_core::suggest::closest(&normalised, names);
                anyhow::anyhow!(
                    "no article `{}` in {}{}",
                    safe(wanted),
                    bank.root().display(),
                    safe(&membank_core::suggest::did_you_mean(&close))
                )
            })
        }
    }
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let bank = open_bank(&args.bank)?;
    let report = report(bank, &args.article)?;
    if args.json {
        print_json(&report)?;
    } else {
        out!("{}", human(&report))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The article's outgoing links and backlinks, as `--json` prints them.
pub fn report(bank: &Bank, article: &str) -> anyhow::Result<Report> {
    let id = find_article(bank, article)?;
    let outgoing = bank
        .outgoing(id)
        .map(|(l, r)| {
            let path_of = |i: ArticleId| bank.article(i).rel_path.clone();
            let (status, candidates) = match &r {
                Resolution::Dead => ("dead", Vec::new()),
                Resolution::One(_) => ("resolved", Vec::new()),
                Resolution::File(_) => ("file", Vec::new()),
                Resolution::Ambiguous(ids) => {
                    ("ambiguous", ids.iter().map(|&i| path_of(i)).collect())
                }
            };
            Outgoing {
                target: l.target().to_owned(),
                raw: l.raw().to_owned(),
                written: l.written(),
                kind: l.kind,
                line: l.line,
                in_frontmatter: l.in_frontmatter,
                status,
                path: match r {
                    Resolution::File(i) => Some(bank.link_file(i).to_owned()),
                    r => r.target().map(path_of),
                },
                candidates,
            }
        })
        .collect();
    Ok(Report {
        backlinks_total: None,
        path: bank.article(id).rel_path.clone(),
        outgoing,
        backlinks: bank
            .backlinks(id)
            .iter()
            .map(|i| bank.article(i).rel_path.clone())
            .collect(),
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
            ("dead", _) => "DEAD (no such file)".to_owned(),
            ("ambiguous", Some(p)) => format!(
                "{} (ambiguous: {})",
                safe(p),
                safe(&o.candidates.join(", "))
            ),
            (_, Some(p)) => safe(p),
            _ => String::new(),
        };
        let _ = writeln!(out, "  line {:>4}  {} → {to}", o.line, safe(&o.written));
    }
    let total = report.backlinks_total.unwrap_or(report.backlinks.len());
    let _ = writeln!(out, "\nbacklinks ({total}):");
    for b in &report.backlinks {
        let _ = writeln!(out, "  {}", safe(b));
    }
    if total > report.backlinks.len() {
        let _ = writeln!(
            out,
            "  … {} more not listed (`limit` and `offset` page through them)",
            total - report.backlinks.len()
        );
    }
    out
}
