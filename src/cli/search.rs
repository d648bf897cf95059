//! `membank search`: ranked full-text search over any memory layout.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use membank_core::memory::SearchHit;
use membank_core::search::{SearchIndex, highlight_chars};
use serde::Serialize;

use super::common::{open_memory, print_json, safe};

#[derive(clap::Args)]
pub struct Args {
    /// A memory of any layout: a bank, a Deja Vu project, an everos memory root.
    path: PathBuf,
    /// The words to look for (ranked with BM25; case does not matter).
    query: String,
    /// At most this many hits.
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
    /// Print JSON: {"path", "layout", "query", "method", "note", "matches",
    /// "hits": [{"file", "line", "entry_id", "score", "snippet", "highlights"}]}.
    #[arg(long)]
    json: bool,
}

#[derive(Serialize)]
struct JsonHit<'a> {
    file: &'a str,
    line: usize,
    entry_id: Option<&'a str>,
    score: f64,
    snippet: &'a str,
    /// `[start, end)` in Unicode scalar values of `snippet`.
    highlights: Vec<(usize, usize)>,
}

#[derive(Serialize)]
struct JsonReport<'a> {
    path: String,
    layout: &'static str,
    query: &'a str,
    method: &'static str,
    note: Option<&'static str>,
    matches: usize,
    hits: Vec<JsonHit<'a>>,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let memory = open_memory(&args.path)?;
    let (layout, note) = (memory.spec().name, memory.search_note());
    let index = SearchIndex::of_memory(memory);
    let hits = index.search(&args.query, args.limit);
    let matches = index.count_matches(&args.query);
    if args.json {
        let report = JsonReport {
            path: args.path.to_string_lossy().into_owned(),
            layout,
            query: &args.query,
            method: "bm25",
            note,
            matches,
            hits: hits
                .iter()
                .map(|h| JsonHit {
                    file: &h.path,
                    line: h.line,
                    entry_id: h.entry_id.as_deref(),
                    score: h.score,
                    snippet: &h.snippet,
                    highlights: highlight_chars(h),
                })
                .collect(),
        };
        print_json(&report)?;
    } else {
        let bold = std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        writeln!(
            out,
            "{} match{} for {:?}{}",
            matches,
            if matches == 1 { "" } else { "es" },
            safe(&args.query),
            if hits.len() < matches {
                format!(", best {} shown", hits.len())
            } else {
                String::new()
            }
        )?;
        if let Some(note) = note {
            writeln!(out, "({note})")?;
        }
        for (rank, h) in hits.iter().enumerate() {
            let id = h
                .entry_id
                .as_deref()
                .map(|i| format!("  {}", safe(i)))
                .unwrap_or_default();
            writeln!(
                out,
                "{:>3}  {}:{}{}  ({:.2})",
                rank + 1,
                safe(&h.path),
                h.line,
                id,
                h.score
            )?;
            writeln!(out, "     {}", marked(h, bold))?;
        }
        out.flush()?;
    }
    Ok(ExitCode::SUCCESS)
}

/// The snippet with matches in bold on a terminal, `**like this**` otherwise.
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
