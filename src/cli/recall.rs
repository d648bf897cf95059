//! `membank recall`: the Deja Vu cue scan, with the reference's JSON keys
//! and values and membank's explanation of every impression.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::ExitCode;

use anyhow::{Context as _, bail};
use membank_core::dejavu::context::withheld_lines_note;
use membank_core::dejavu::recall::{
    Considered, Explanation, Explanations, Impressions, Level, Match, ScanDiagnostic, ScanOptions,
};
use membank_core::dejavu::{self, Recall};
use schemars::JsonSchema;
use serde::Serialize;

use super::common::{open_dejavu, open_dejavu_streamed, print_json, safe};

pub use membank_args::recall::Args;

/// Matches explained in the readable report unless `--limit` or `--all`
/// says otherwise: a project of tens of thousands of impressions would
/// otherwise print megabytes of arithmetic.
pub const DEFAULT_LIMIT: usize = 20;

/// The most explanations one MCP `recall` answer lists.
pub const MCP_MAX_LIMIT: usize = 500;

pub fn run(mut args: Args) -> anyhow::Result<ExitCode> {
    let cue = cue_of(&args.cue.join(" "))?;
    if args.limit == Some(0) {
        // As in `check` and `search`, 0 lists every one.
        args.limit = None;
        args.all = true;
    }
    if args.ask {
        let project = open_dejavu(&args.project)?;
        let (result, _) = scan(&project, &cue, ScanOptions::default())?;
        return ask(&project, &result);
    }
    // The impressions are read in pieces, never held whole; the lines
    // shown are read again.
    give_back_freed_memory();
    let project = open_dejavu_streamed(&args.project)?;
    // Every impression is explained: kept from the one scan rather than
    // made again from the file.
    let every = args.limit.is_none() && (args.json || args.all);
    let options = ScanOptions {
        shared: false,
        explain_all: every,
    };
    let (mut result, mut explained) = scan(&project, &cue, options)?;
    let limit = (!args.all).then_some(args.limit.unwrap_or(DEFAULT_LIMIT));
    let mut kept_all = every;
    if !every && !args.json && shown_whole(&result, limit).is_none() {
        // A short scan is shown whole: scanned again keeping every
        // explanation (a few lines), so all shown comes from one scan.
        (result, explained) = scan(
            &project,
            &cue,
            ScanOptions {
                explain_all: true,
                ..options
            },
        )?;
        kept_all = true;
    }
    let impressions = project.impressions_source();
    if args.json && args.limit.is_none() {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        write_json_explaining_all(&mut out, &result, &explained)?;
        out.flush()?;
    } else if args.json {
        print_json(&ReferenceJson::new(&result, impressions, None).limited(args.limit))?;
    } else {
        out!(
            "{}",
            human_with(&result, impressions, limit, kept_all.then_some(&explained))?
        )?;
    }
    // Freeing tens of thousands of matches and lines one by one only
    // delays the exit.
    std::mem::forget(explained);
    std::mem::forget(result);
    std::mem::forget(project);
    Ok(ExitCode::SUCCESS)
}

/// The scan frees each piece of the file, and the report each chunk of
/// JSON, as it goes; glibc would keep up to twice the largest block freed
/// (raising its threshold as blocks grow) instead of giving it back, some
/// 5 MB more at the peak of a 50,000-line file.
pub(super) fn give_back_freed_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's tunables; it takes the
    // allocator's own lock and has no memory-safety preconditions.
    unsafe {
        libc::mallopt(libc::M_TRIM_THRESHOLD, 128 * 1024);
    }
}

/// The `--json` report explaining every impression, as [`print_json`]
/// writes it; `explained` are the explanations the scan of `r` kept. They
/// are turned into JSON on the pool; this thread only copies the text out.
fn write_json_explaining_all(
    mut out: impl std::io::Write,
    r: &Recall,
    explained: &Explanations,
) -> anyhow::Result<()> {
    // The report with no explanation listed ends with the empty list.
    let mut head = ReferenceJson::new(r, None, None).limited(Some(0));
    head.explanation.truncated = false;
    let head = membank_core::json::to_string(&head)?;
    let before = head
        .strip_suffix("[]\n  }\n}")
        .context("the explanations are the last field of the report")?;
    out.write_all(before.as_bytes())?;
    // An explanation sits three levels in: its JSON is written by hand on
    // the pool, indented as `print_json` would indent it.
    let mut written = false;
    for block in explained.json_blocks("      ", ",\n      ") {
        out.write_all(if written { b",\n      " } else { b"[\n      " })?;
        out.write_all(block.as_bytes())?;
        written = true;
    }
    out.write_all(if written {
        b"\n    ]\n  }\n}\n"
    } else {
        b"[]\n  }\n}\n"
    })?;
    Ok(())
}

/// The cue scan of a project, in one pass: `options.shared` for a reader
/// not served private memory (impressions pointing at a private record
/// are left out, as if absent), `options.explain_all` to keep every
/// impression's explanation. When the impressions file exists but was not
/// read (over the size cap, a link out), the scan's diagnostic carries the
/// reason, so no report calls the file missing.
pub fn scan(
    project: &dejavu::Project,
    cue: &str,
    options: ScanOptions,
) -> anyhow::Result<(Recall, Explanations)> {
    let (result, explained) = dejavu::recall::recall_from(
        project.impressions_source(),
        cue,
        options,
        project.private_links(),
    )
    .map_err(|e| anyhow::anyhow!("{}", safe(&e.to_string())))?;
    Ok((explain_unread(project, result), explained))
}

fn explain_unread(project: &dejavu::Project, mut result: Recall) -> Recall {
    // The file's own problem, or its folder's (`memory/` a link that is
    // not followed): either way it was not read, and was not "missing".
    let about_impressions = |path: &str| {
        let folder = path.trim_end_matches('/');
        path == dejavu::IMPRESSIONS_PATH
            || dejavu::IMPRESSIONS_PATH
                .strip_prefix(folder)
                .is_some_and(|rest| !folder.is_empty() && rest.starts_with('/'))
    };
    if project.impressions_source().is_none()
        && let Some(problem) = project.problems.iter().find(|p| about_impressions(&p.path))
    {
        for d in &mut result.diagnostics {
            if d.path == dejavu::IMPRESSIONS_PATH && d.error.is_none() {
                d.error = Some(problem.message.clone());
            }
        }
    }
    result
}

/// Why the impressions file was not read, when it exists but was not.
fn unread_reason(r: &Recall) -> Option<&str> {
    if r.level != Level::NotInitialized {
        return None;
    }
    r.diagnostics
        .iter()
        .find(|d| d.path == dejavu::IMPRESSIONS_PATH)
        .and_then(|d| d.error.as_deref())
}

/// The impressions file named with why it was not read. The layout words
/// the reason about "this file" (or, for a file that gave no size, as the
/// reason alone), and each reason already says the file is not read.
fn unread_sentence(reason: &str) -> String {
    let rest = reason
        .strip_prefix(dejavu::project::UNREAD_SUBJECT)
        .unwrap_or(reason);
    if rest.starts_with("is ") || rest.starts_with("could not be read") {
        format!("{} {rest}", dejavu::IMPRESSIONS_PATH)
    } else {
        format!("{} was not read: {rest}", dejavu::IMPRESSIONS_PATH)
    }
}

/// What to do about a file that was not read: only the size cap is the
/// user's to raise.
fn unread_advice(reason: &str) -> String {
    if reason.contains("max_file_mb") {
        let config = membank_llm::config::config_file_path()
            .map(|p| safe(&p.display().to_string()))
            .unwrap_or_else(|| "the config file".to_owned());
        format!("to read it, raise `max_file_mb` in the `[files]` table of {config}")
    } else if reason.contains("symbolic link") {
        // A memory from someone else's repository is read only inside it.
        "open the project the link leads to, or make it a folder of this project".to_owned()
    } else {
        "fix or replace the file to start".to_owned()
    }
}

/// The cue as the reference takes it: the words joined by spaces, trimmed.
pub fn cue_of(words: &str) -> anyhow::Result<String> {
    let cue = dejavu::js::js_trim(words).to_owned();
    if cue.is_empty() {
        bail!("the cue is empty: give the task or question to recall for");
    }
    Ok(cue)
}

/// Send the cue to the model with the recall-selected records.
fn ask(project: &dejavu::Project, result: &Recall) -> anyhow::Result<ExitCode> {
    let prepared = membank_llm::recall_chat::prepare_recall_chat(project, &[], &result.cue);
    let client = super::llm_common::client()?;
    eprintln!(
        "membank: recall {} ({}); asking {}",
        result.level.as_str(),
        dejavu::js::number_to_string(result.score),
        super::llm_common::describe_provider(&client)
    );
    for path in &prepared.context.used {
        eprintln!(
            "  used      {}{}",
            safe(path),
            withheld_lines_note(&prepared.context.withheld_lines, path)
        );
    }
    for (path, why) in &prepared.context.withheld {
        eprintln!("  withheld  {} ({why})", safe(path));
    }
    let reply =
        super::llm_common::run(&client, &prepared.request, super::llm_common::Echo::Stdout)?;
    Ok(super::llm_common::exit_code(&reply))
}

#[derive(Serialize, JsonSchema)]
struct Budget {
    impression_scan: u8,
    summaries_loaded: u8,
    detail_records_loaded: u8,
    why_loaded: Vec<String>,
}

#[derive(Serialize, JsonSchema)]
struct FeedbackHint {
    outcomes: [&'static str; 4],
    write_to: &'static str,
}

#[derive(Serialize, JsonSchema)]
struct WritebackHint {
    after_work: [&'static str; 5],
}

#[derive(Serialize, JsonSchema)]
struct BootstrapHint {
    required_files: [&'static str; 3],
    next_step: &'static str,
}

#[derive(Serialize, JsonSchema)]
struct ExplanationJson<'a> {
    cue_tokens: &'a [String],
    /// What a host following the protocol would read next.
    would_load: Vec<String>,
    /// The impressions scanned, each of which could be explained.
    total: usize,
    /// True when fewer impressions are explained than were scanned (only
    /// the best matches, at most the limit).
    truncated: bool,
    #[schemars(with = "Vec<Explanation>")]
    impressions: Explained<'a>,
}

/// The explanations, written as they are made rather than all made first:
/// every impression's (kept by the scan, or made again from a file held
/// whole), or the best `limit` matches', best first.
struct Explained<'a> {
    recall: &'a Recall,
    impressions: Option<Impressions<'a>>,
    kept: Option<&'a Explanations>,
    limit: Option<usize>,
}

impl Serialize for Explained<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::Error as _;
        match (self.limit, self.kept, self.impressions) {
            (Some(n), _, _) => s.collect_seq(
                self.recall
                    .best_explained(self.impressions, n)
                    .map_err(|e| S::Error::custom(safe(&e.to_string())))?,
            ),
            (None, Some(kept), _) => s.collect_seq(kept.iter()),
            (None, None, Some(Impressions::Loaded(file))) => {
                s.collect_seq(self.recall.explanations(Some(file)))
            }
            (None, None, None) => s.collect_seq(std::iter::empty::<Explanation>()),
            (None, None, Some(Impressions::Streamed(_))) => Err(S::Error::custom(
                "every explanation of a file read in pieces is kept by its scan",
            )),
        }
    }
}

/// The reference scan's output, key for key, plus `explanation`.
#[derive(Serialize, JsonSchema)]
pub struct ReferenceJson<'a> {
    matched: bool,
    level: Level,
    #[serde(serialize_with = "dejavu::js::serialize_number")]
    score: f64,
    matches: &'a [Match],
    budget: Budget,
    #[serde(skip_serializing_if = "Option::is_none")]
    feedback_hint: Option<FeedbackHint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    writeback_hint: Option<WritebackHint>,
    diagnostics: &'a [ScanDiagnostic],
    #[serde(skip_serializing_if = "Option::is_none")]
    bootstrap_hint: Option<BootstrapHint>,
    explanation: ExplanationJson<'a>,
}

impl<'a> ReferenceJson<'a> {
    /// `impressions` is the file `r` scanned; `kept`, every explanation
    /// when its scan kept them.
    pub fn new(
        r: &'a Recall,
        impressions: Option<Impressions<'a>>,
        kept: Option<&'a Explanations>,
    ) -> Self {
        let initialized = r.level != Level::NotInitialized;
        let why = match (r.level, unread_reason(r)) {
            (Level::NotInitialized, Some(reason)) => unread_sentence(reason),
            (Level::NotInitialized, None) => "memory/impressions.jsonl was not found".to_owned(),
            (Level::None, _) => "cue scan found no match; no memory loaded".to_owned(),
            (level, _) => format!("cue scan found a {} familiarity match", level.as_str()),
        };
        ReferenceJson {
            matched: r.matched(),
            level: r.level,
            score: r.score,
            matches: &r.matches[..r.matches.len().min(dejavu::recall::TOP_MATCHES)],
            budget: Budget {
                impression_scan: u8::from(initialized),
                summaries_loaded: 0,
                detail_records_loaded: 0,
                why_loaded: vec![why],
            },
            feedback_hint: initialized.then_some(FeedbackHint {
                outcomes: ["helpful", "irrelevant", "missed", "overloaded"],
                write_to: dejavu::FEEDBACK_PATH,
            }),
            writeback_hint: initialized.then_some(WritebackHint {
                after_work: [
                    "durable decision -> memory/decisions/ + memory/impressions.jsonl",
                    "unresolved follow-up -> memory/open-loops/ + memory/impressions.jsonl",
                    "project-level truth changed -> memory/summary.md + memory/impressions.jsonl",
                    "low-value one-off trace -> memory/events/ or skip",
                    "recall was wrong, missed, noisy, or overloaded -> memory/recall-feedback.jsonl",
                ],
            }),
            diagnostics: &r.diagnostics,
            bootstrap_hint: (!initialized && unread_reason(r).is_none()).then_some(BootstrapHint {
                required_files: ["AGENTS.md", "memory/summary.md", "memory/impressions.jsonl"],
                next_step: "copy starter-kit/. into the repo or run deja-vu init",
            }),
            explanation: ExplanationJson {
                cue_tokens: &r.cue_tokens,
                would_load: r.would_load(),
                total: r.scanned,
                truncated: false,
                impressions: Explained {
                    recall: r,
                    impressions,
                    kept,
                    limit: None,
                },
            },
        }
    }

    /// Only the explanations of the `limit` best matches, best first;
    /// `None` keeps every impression.
    pub fn limited(mut self, limit: Option<usize>) -> Self {
        self.explanation.impressions.limit = limit;
        let r = self.explanation.impressions.recall;
        self.explanation.truncated = limit.is_some_and(|n| n.min(r.matches.len()) < r.scanned);
        self
    }
}

fn json_text(v: &Option<dejavu::js::JsValue>) -> String {
    match v {
        Some(dejavu::js::JsValue::String(s)) => s.clone(),
        Some(other) => serde_json::to_string(other).unwrap_or_default(),
        None => "-".into(),
    }
}

/// The limit a readable report of `r` goes by: `None` when it shows every
/// impression, as a short scan is shown whole.
pub(crate) fn shown_whole(r: &Recall, limit: Option<usize>) -> Option<usize> {
    limit.filter(|&n| r.scanned.max(r.diagnostics.len()) > n)
}

/// The level and score, then the arithmetic of the `limit` best matches
/// (of every impression when there are no more than that, or with `None`).
/// `impressions` is the file `r` scanned; every impression's arithmetic is
/// taken from `kept` when the scan kept it rather than made again from the
/// file (which a file read in pieces needs).
pub fn human(
    r: &Recall,
    impressions: Option<Impressions<'_>>,
    limit: Option<usize>,
    kept: Option<&Explanations>,
) -> anyhow::Result<String> {
    human_with(r, impressions, limit, kept)
}

fn human_with(
    r: &Recall,
    impressions: Option<Impressions<'_>>,
    limit: Option<usize>,
    kept: Option<&Explanations>,
) -> anyhow::Result<String> {
    let mut out = String::new();
    let _ = writeln!(out, "cue: {}", safe(&r.cue));
    let _ = writeln!(out, "cue tokens: {}", safe(&r.cue_tokens.join(", ")));
    if r.level == Level::NotInitialized {
        match unread_reason(r) {
            Some(reason) => {
                let _ = writeln!(
                    out,
                    "level: not_initialized ({})\n{}",
                    safe(&unread_sentence(reason)),
                    unread_advice(reason)
                );
            }
            None => {
                let _ = writeln!(
                    out,
                    "level: not_initialized (memory/impressions.jsonl was not found)\n\
                     create AGENTS.md, memory/summary.md and memory/impressions.jsonl to start"
                );
            }
        }
        return Ok(out);
    }
    let _ = writeln!(
        out,
        "level: {}   score: {}   {} of {} impressions matched",
        r.level.as_str(),
        dejavu::js::number_to_string(r.score),
        r.matches.len(),
        r.scanned
    );
    let load = r.would_load();
    let _ = writeln!(
        out,
        "would load: {}",
        if load.is_empty() {
            "nothing".to_owned()
        } else {
            safe(
                &load
                    .iter()
                    .map(|p| dejavu::paths::route_for_display(p))
                    .collect::<Vec<_>>()
                    .join(", "),
            )
        }
    );
    // A short scan is shown whole, as it always was; a long one only as
    // far as the limit.
    let limit = shown_whole(r, limit);
    let shown_matches = &r.matches[..r.matches.len().min(limit.unwrap_or(usize::MAX))];
    if !shown_matches.is_empty() {
        let _ = writeln!(out, "\nrank  score   line  id → record_path");
        for (i, m) in shown_matches.iter().enumerate() {
            let _ = writeln!(
                out,
                "{:>4}  {:<6}  {:>4}  {} → {}\n                  matched: {}",
                i + 1,
                dejavu::js::number_to_string(m.score),
                m.line,
                safe(&json_text(&m.id)),
                safe(&match &m.record_path {
                    Some(dejavu::js::JsValue::String(p)) => dejavu::paths::route_for_display(p),
                    other => json_text(other),
                }),
                safe(&m.matched_keywords.join(", "))
            );
        }
    }
    let explained = match limit {
        Some(n) => {
            let best = r
                .best_explained(impressions, n)
                .map_err(|e| anyhow::anyhow!("{}", safe(&e.to_string())))?;
            if !best.is_empty() {
                let _ = writeln!(out, "\nthe best {}:", best.len());
            }
            for e in &best {
                write_explanation(&mut out, r, e);
            }
            best.len()
        }
        None => {
            let _ = writeln!(out, "\nevery impression:");
            match (kept, impressions) {
                (Some(kept), _) => kept.iter().for_each(|e| write_explanation(&mut out, r, &e)),
                (None, Some(Impressions::Loaded(file))) => r
                    .explanations(Some(file))
                    .for_each(|e| write_explanation(&mut out, r, &e)),
                (None, None) => {}
                (None, Some(Impressions::Streamed(_))) => {
                    bail!("every explanation of a file read in pieces is kept by its scan")
                }
            }
            r.scanned
        }
    };
    let shown_diagnostics = &r.diagnostics[..r.diagnostics.len().min(limit.unwrap_or(usize::MAX))];
    for d in shown_diagnostics {
        let _ = writeln!(
            out,
            "error: {}:{}: {} ({})",
            safe(&d.path),
            d.line.unwrap_or(0),
            d.message,
            safe(d.error.as_deref().unwrap_or(""))
        );
    }
    if limit.is_some() {
        let errors = if r.diagnostics.is_empty() {
            String::new()
        } else {
            format!(
                ", {} of {} errors",
                shown_diagnostics.len(),
                r.diagnostics.len()
            )
        };
        let _ = writeln!(
            out,
            "\nshown: {} of {} matches, {} of {} impressions{errors} \
             (--limit N shows the best N, --all every impression)",
            shown_matches.len(),
            r.matches.len(),
            explained,
            r.scanned,
        );
    }
    Ok(out)
}

/// One impression's line: why it was skipped, or its arithmetic.
fn write_explanation(out: &mut String, r: &Recall, e: &Explanation) {
    let id = if e.id.is_empty() { "(no id)" } else { &e.id };
    let _ = write!(out, "  line {:>3}  {}: ", e.line, safe(id));
    let _ = match &e.considered {
        Considered::Invalid { error } => writeln!(out, "skipped, invalid: {}", safe(error)),
        Considered::Inactive { status } => {
            writeln!(out, "skipped, status {}", safe(status))
        }
        Considered::Scored => writeln!(
            out,
            "{}/min({}, {}) = {} overlap × (0.75 + {}{} × 0.25) = {}{}\n              tokens: {}",
            e.matched.len(),
            r.cue_tokens.len(),
            e.tokens.len(),
            round_display(e.overlap),
            dejavu::js::number_to_string(e.weight),
            if e.weight_defaulted { " (default)" } else { "" },
            dejavu::js::number_to_string(e.score),
            if e.raw_score != e.score {
                format!(" (unrounded {})", dejavu::js::number_to_string(e.raw_score))
            } else {
                String::new()
            },
            safe(&e.tokens.join(", "))
        ),
    };
}

fn round_display(x: f64) -> String {
    dejavu::js::number_to_string(dejavu::js::round4(x))
}

#[cfg(test)]
mod tests {
    use super::*;
    use membank_core::dejavu::IMPRESSIONS_PATH;
    use membank_core::dejavu::jsonl::JsonlFile;

    /// Lines of every kind, enough of them to be explained on the pool in
    /// several chunks: not JSON, `null`, inactive, escapes a terminal would
    /// act on, weights to round.
    fn odd_lines() -> String {
        (0..5000)
            .map(|i| match i % 7 {
                0 => "{bad".to_owned(),
                1 => "null".to_owned(),
                2 => format!(r#"{{"id":"off-{i}","status":"archived","keywords":["sync"]}}"#),
                3 => String::new(),
                _ => format!(
                    r#"{{"id":"i{i}","title":"Settings \u2028 sync\u001b[31m {i}","keywords":["settings","x{}"],"weight":0.{}}}"#,
                    i % 13,
                    i % 10
                ),
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    #[test]
    fn the_report_written_as_explained_is_the_report_written_whole() {
        for text in [
            odd_lines(),
            "{\"id\":\"one\",\"keywords\":[\"sync\"]}".to_owned(),
            String::new(),
        ] {
            let file = JsonlFile::parse(IMPRESSIONS_PATH, text);
            for cue in ["settings sync x3", "nothing"] {
                let (r, kept) = dejavu::recall::recall_explained(Some(&file), cue);
                let mut streamed = Vec::new();
                write_json_explaining_all(&mut streamed, &r, &kept).unwrap();
                // Made again line by line from a scan that kept nothing.
                let r = dejavu::recall(Some(&file), cue);
                let whole = membank_core::json::to_string(&ReferenceJson::new(
                    &r,
                    Some(Impressions::Loaded(&file)),
                    None,
                ))
                .unwrap();
                assert_eq!(String::from_utf8(streamed).unwrap(), whole + "\n", "{cue}");
            }
        }
        let (r, kept) = dejavu::recall::recall_explained(None, "settings");
        let mut streamed = Vec::new();
        write_json_explaining_all(&mut streamed, &r, &kept).unwrap();
        let whole = membank_core::json::to_string(&ReferenceJson::new(&r, None, None)).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), whole + "\n");
    }
}
