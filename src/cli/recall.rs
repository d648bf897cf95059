//! `membank recall`: the Deja Vu cue scan, with the reference's JSON keys
//! and values and membank's explanation of every impression.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::bail;
use membank_core::dejavu::recall::{Considered, Explanation, Level, Match, ScanDiagnostic};
use membank_core::dejavu::{self, Recall};
use schemars::JsonSchema;
use serde::Serialize;

use super::common::{open_dejavu, print_json, safe};

#[derive(clap::Args)]
pub struct Args {
    /// The project folder (holding memory/) or its memory/ folder.
    project: PathBuf,
    /// The cue: the task or question, in any number of words.
    #[arg(required = true, num_args = 1..)]
    cue: Vec<String>,
    /// Print the reference scan's JSON plus the explanation.
    #[arg(long, conflicts_with = "ask")]
    json: bool,
    /// Ask the configured model the cue as a question, with the records
    /// recall selects (never private ones) as its context.
    #[arg(long)]
    ask: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let project = open_dejavu(&args.project)?;
    let cue = cue_of(&args.cue.join(" "))?;
    let result = dejavu::recall(project.impressions.as_ref(), &cue);
    if args.ask {
        return ask(&project, &result);
    }
    if args.json {
        print_json(&ReferenceJson::new(&result))?;
    } else {
        print!("{}", human(&result));
    }
    Ok(ExitCode::SUCCESS)
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
        eprintln!("  used      {}", safe(path));
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
    impressions: &'a [Explanation],
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
    pub fn new(r: &'a Recall) -> Self {
        let initialized = r.level != Level::NotInitialized;
        let why = match r.level {
            Level::NotInitialized => "memory/impressions.jsonl was not found".to_owned(),
            Level::None => "cue scan found no match; no memory loaded".to_owned(),
            level => format!("cue scan found a {} familiarity match", level.as_str()),
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
            bootstrap_hint: (!initialized).then_some(BootstrapHint {
                required_files: ["AGENTS.md", "memory/summary.md", "memory/impressions.jsonl"],
                next_step: "copy starter-kit/. into the repo or run deja-vu init",
            }),
            explanation: ExplanationJson {
                cue_tokens: &r.cue_tokens,
                would_load: r.would_load(),
                impressions: &r.explanations,
            },
        }
    }
}

fn json_text(v: &Option<dejavu::js::JsValue>) -> String {
    match v {
        Some(dejavu::js::JsValue::String(s)) => s.clone(),
        Some(other) => serde_json::to_string(other).unwrap_or_default(),
        None => "-".into(),
    }
}

/// The level and score, then every impression with its arithmetic.
pub fn human(r: &Recall) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "cue: {}", safe(&r.cue));
    let _ = writeln!(out, "cue tokens: {}", safe(&r.cue_tokens.join(", ")));
    if r.level == Level::NotInitialized {
        let _ = writeln!(
            out,
            "level: not_initialized (memory/impressions.jsonl was not found)\n\
             create AGENTS.md, memory/summary.md and memory/impressions.jsonl to start"
        );
        return out;
    }
    let _ = writeln!(
        out,
        "level: {}   score: {}   {} of {} impressions matched",
        r.level.as_str(),
        dejavu::js::number_to_string(r.score),
        r.matches.len(),
        r.explanations.len()
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
    if !r.matches.is_empty() {
        let _ = writeln!(out, "\nrank  score   line  id → record_path");
        for (i, m) in r.matches.iter().enumerate() {
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
    let _ = writeln!(out, "\nevery impression:");
    for e in &r.explanations {
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
    for d in &r.diagnostics {
        let _ = writeln!(
            out,
            "error: {}:{}: {} ({})",
            safe(&d.path),
            d.line.unwrap_or(0),
            d.message,
            safe(d.error.as_deref().unwrap_or(""))
        );
    }
    out
}

fn round_display(x: f64) -> String {
    dejavu::js::number_to_string(dejavu::js::round4(x))
}
