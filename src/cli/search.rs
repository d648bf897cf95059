//! `membank search`: ranked full-text search over any memory layout.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use membank_core::memory::{LayoutKind, Memory, SearchHit};
use membank_core::search::{SearchIndex, highlight_chars, one_pass};
use membank_core::surface::Surface;
use membank_core::text::quoted;
use schemars::JsonSchema;
use serde::Serialize;

use super::common::{detect_memory, layout_error, open_memory, print_json, safe};

pub use membank_args::search::{Args, SearchArgs};

/// The most hits an MCP answer lists.
pub const MCP_MAX_LIMIT: usize = 100;

#[derive(Serialize, JsonSchema)]
pub struct JsonHit {
    file: String,
    line: usize,
    entry_id: Option<String>,
    score: f64,
    snippet: String,
    /// `[start, end)` in Unicode scalar values of `snippet`.
    highlights: Vec<(usize, usize)>,
}

/// Documents a search left out on purpose, and why. The command line
/// searches everything; the MCP server leaves out private memory.
#[derive(Serialize, JsonSchema)]
pub struct Withheld {
    pub documents: usize,
    pub reason: &'static str,
}

/// The search result as `--json` prints it.
#[derive(Serialize, JsonSchema)]
pub struct JsonReport {
    path: String,
    layout: &'static str,
    query: String,
    method: &'static str,
    note: Option<&'static str>,
    /// Documents (or entries) that match, listed or not.
    matches: usize,
    /// Hits skipped before the ones listed: the first one listed is hit
    /// `offset + 1`.
    offset: usize,
    hits: Vec<JsonHit>,
    /// Absent when nothing was left out.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub withheld: Option<Withheld>,
}

/// A query with no word in it finds nothing, whatever the memory holds:
/// said at once rather than read as "0 matches" after the whole memory.
pub fn query_has_words(query: &str) -> Result<(), String> {
    if SearchIndex::query_terms(query).is_empty() {
        Err(format!(
            "the query {} has no words to search for",
            quoted(&safe(query))
        ))
    } else {
        Ok(())
    }
}

/// Run the search; `shown_path` is the memory as the user named it. The
/// hits come back too, for the readable report.
pub fn report(
    memory: &dyn Memory,
    index: &SearchIndex,
    shown_path: &str,
    args: &SearchArgs,
) -> (JsonReport, Vec<SearchHit>) {
    let hits = index.search(memory, &args.query, args.hits_wanted());
    let matches = index.count_matches(&args.query);
    report_of(memory, shown_path, args, hits, matches)
}

/// The report of the best hits wanted, however they were found.
fn report_of(
    memory: &dyn Memory,
    shown_path: &str,
    args: &SearchArgs,
    mut hits: Vec<SearchHit>,
    matches: usize,
) -> (JsonReport, Vec<SearchHit>) {
    hits.drain(..args.offset.min(hits.len()));
    let report = JsonReport {
        path: shown_path.to_owned(),
        layout: memory.spec().name,
        query: args.query.clone(),
        method: "bm25",
        note: memory.search_note(),
        matches,
        offset: args.offset,
        hits: hits
            .iter()
            .map(|h| JsonHit {
                file: h.path.clone(),
                line: h.line,
                entry_id: h.entry_id.clone(),
                score: h.score,
                snippet: h.snippet.clone(),
                highlights: highlight_chars(h),
            })
            .collect(),
        withheld: None,
    };
    (report, hits)
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let limit = args.search.hits_wanted();
    let detected = detect_memory(&args.path)?;
    query_has_words(&args.search.query).map_err(anyhow::Error::msg)?;
    let (memory, found): (&dyn Memory, _) = if detected.spec.kind == LayoutKind::Bank {
        // A bank is ranked as it is read, one body at a time, and never
        // held whole: the query's statistics and the best hits are all
        // a command needs.
        let (bank, found) = one_pass::search_bank(&detected.root, &args.search.query, limit)
            .map_err(|e| anyhow::anyhow!(safe(&stream_error(e))))?;
        (Box::leak(Box::new(bank)), found)
    } else if detected.spec.kind == LayoutKind::Everos {
        // An everos root too: it can hold a million entries.
        let (root, found) =
            membank_core::everos::search::search(&detected.root, &args.search.query, limit)
                .map_err(|message| layout_error(&detected.root, message))?;
        super::everos::warn_unread(&root.problems, "its text is not searched");
        (Box::leak(Box::new(root)), found)
    } else {
        // One query: ranked as the units are read, with no index to keep.
        let memory = open_memory(&args.path)?;
        (memory, one_pass::search(memory, &args.search.query, limit))
    };
    let (report, hits) = report_of(
        memory,
        &args.path.to_string_lossy(),
        &args.search,
        found.hits,
        found.matches,
    );
    if args.json {
        print_json(&report)?;
    } else {
        // `--color` decides, as for every report; auto follows the
        // terminal and NO_COLOR.
        let bold = anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never;
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        out.write_all(human(&report, &hits, bold, Surface::CommandLine).as_bytes())
            .and_then(|()| out.flush())
            .map_err(super::common::stdout_error)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn stream_error(e: one_pass::StreamError) -> String {
    match e {
        one_pass::StreamError::Load(e) => e.to_string(),
        one_pass::StreamError::Reread(p) => format!("{}: {}", p.path, p.message),
    }
}

/// The readable report: how many matched, then each hit with its place and
/// its snippet, matches marked; options named as `surface` gives them.
pub fn human(report: &JsonReport, hits: &[SearchHit], bold: bool, surface: Surface) -> String {
    let mut out = String::new();
    let matches = report.matches;
    let _ = writeln!(
        out,
        "{} match{} for {}{}",
        matches,
        if matches == 1 { "" } else { "es" },
        quoted(&safe(&report.query)),
        if report.offset > 0 && !hits.is_empty() {
            format!(
                ", hits {}–{} shown",
                report.offset + 1,
                report.offset + hits.len()
            )
        } else if report.offset > 0 {
            format!(
                ", none shown: {} {} is past the last of them",
                surface.option("offset"),
                report.offset
            )
        } else if hits.len() < matches {
            format!(", best {} shown", hits.len())
        } else {
            String::new()
        }
    );
    if let Some(note) = report.note {
        let _ = writeln!(out, "({note})");
    }
    if let Some(w) = &report.withheld {
        let _ = writeln!(
            out,
            "({} document(s) not searched: {})",
            w.documents, w.reason
        );
    }
    for (rank, h) in hits.iter().enumerate() {
        let id = h
            .entry_id
            .as_deref()
            .map(|i| format!("  {}", safe(i)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "{:>3}  {}:{}{}  ({:.2})",
            report.offset + rank + 1,
            safe(&h.path),
            h.line,
            id,
            h.score
        );
        let _ = writeln!(out, "     {}", marked(h, bold));
    }
    out
}

/// The snippet with matches in bold when colours are on (`--color`), `**like this**`
/// otherwise.
fn marked(h: &SearchHit, bold: bool) -> String {
    let (on, off) = if bold {
        ("\x1b[1m", "\x1b[22m")
    } else {
        ("**", "**")
    };
    let mut out = String::new();
    let mut pos = 0;
    for r in &h.highlights {
        // The snippet is sanitised already.
        out.push_str(&h.snippet[pos..r.start]);
        out.push_str(on);
        out.push_str(&h.snippet[r.clone()]);
        out.push_str(off);
        pos = r.end;
    }
    out.push_str(&h.snippet[pos..]);
    out
}
