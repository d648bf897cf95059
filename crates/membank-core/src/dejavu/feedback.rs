//! `recall-feedback.jsonl`: the summary the reference feedback report gives
//! (totals per outcome, per route, with suggestions), and new lines made
//! safe to keep in the repo.

use std::collections::HashMap;

use serde::Serialize;

use super::checks::safety;
use super::js::{self, JsValue, SetKey};
use super::jsonl::JsonlFile;
use super::recall::tokenize;
use super::{FEEDBACK_PATH, MEMORY_DIR};
use crate::transaction::Transaction;

pub const OUTCOMES: [&str; 4] = ["helpful", "irrelevant", "missed", "overloaded"];
/// A stored query is cut to this many UTF-16 units.
pub const MAX_QUERY_UNITS: usize = 240;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Totals {
    pub helpful: usize,
    pub irrelevant: usize,
    pub missed: usize,
    pub overloaded: usize,
}

impl Totals {
    fn bump(&mut self, outcome: &str) {
        match outcome {
            "helpful" => self.helpful += 1,
            "irrelevant" => self.irrelevant += 1,
            "missed" => self.missed += 1,
            _ => self.overloaded += 1,
        }
    }

    /// Outcomes that say the route needs work.
    pub fn problems(&self) -> usize {
        self.missed + self.irrelevant + self.overloaded
    }
}

/// Feedback for one `matched_id` ("unmatched" when it has none).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Route {
    pub matched_id: JsValue,
    #[serde(flatten)]
    pub totals: Totals,
    pub suggestions: Vec<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diagnostic {
    pub level: &'static str,
    pub message: &'static str,
    pub path: String,
    pub line: usize,
    pub error: String,
}

/// The reference report's shape.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Report {
    pub feedback_file_found: bool,
    pub totals: Totals,
    /// Routes with the most missed + irrelevant + overloaded first; ties
    /// keep first-seen order.
    pub routes: Vec<Route>,
    pub diagnostics: Vec<Diagnostic>,
}

pub fn report(feedback: Option<&JsonlFile>) -> Report {
    let mut totals = Totals::default();
    let mut routes: Vec<Route> = Vec::new();
    let mut index: HashMap<SetKey, usize> = HashMap::new();
    let mut diagnostics = Vec::new();
    for line in feedback.map_or(&[][..], |f| &f.lines[..]) {
        let record = match line.value() {
            Ok(JsValue::Null) => {
                Err("Cannot read properties of null (reading 'outcome')".to_owned())
            }
            Ok(v) => Ok(v),
            Err(e) => Err(e.to_string()),
        };
        let record = match record {
            Ok(r) => r,
            Err(error) => {
                diagnostics.push(Diagnostic {
                    level: "error",
                    message: "Invalid recall feedback record",
                    path: FEEDBACK_PATH.into(),
                    line: line.line,
                    error,
                });
                continue;
            }
        };
        let Some(outcome) = record
            .get("outcome")
            .and_then(JsValue::as_str)
            .filter(|o| OUTCOMES.contains(o))
        else {
            continue;
        };
        totals.bump(outcome);
        // `id || "unmatched"`: every falsy id joins the unmatched route.
        let id = match record.get("matched_id") {
            Some(v) if v.truthy() => v.clone(),
            _ => JsValue::String("unmatched".into()),
        };
        let key = SetKey::of(Some(&id), line.line);
        let at = *index.entry(key).or_insert_with(|| {
            routes.push(Route {
                matched_id: id,
                totals: Totals::default(),
                suggestions: Vec::new(),
            });
            routes.len() - 1
        });
        routes[at].totals.bump(outcome);
    }
    for r in &mut routes {
        let t = &r.totals;
        let rules = [
            (t.helpful, "keep or strengthen this impression route"),
            (t.missed, "add aliases, keywords, or a new impression route"),
            (
                t.irrelevant,
                "lower weight, split generic cues, or add negative guidance",
            ),
            (
                t.overloaded,
                "compact detailed records or tighten strong-match thresholds",
            ),
        ];
        r.suggestions = rules
            .iter()
            .filter(|(n, _)| *n > 0)
            .map(|(_, s)| *s)
            .collect();
    }
    crate::shared_sort::sort_by_key(&mut routes, |r| std::cmp::Reverse(r.totals.problems()));
    Report {
        feedback_file_found: feedback.is_some(),
        totals,
        routes,
        diagnostics,
    }
}

/// A cue made fit to store: secrets and e-mail addresses removed, reduced
/// to its lower-case tokens, at most 240 UTF-16 units.
pub fn sanitize_cue(cue: &str) -> String {
    let cleaned = safety::redact(cue);
    let mut out = String::new();
    for token in tokenize(&cleaned) {
        let extra = js::utf16_len(&token) + usize::from(!out.is_empty());
        if js::utf16_len(&out) + extra > MAX_QUERY_UNITS {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(&token);
    }
    out
}

#[derive(Serialize)]
struct Line<'a> {
    schema_version: u8,
    query: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    matched_id: Option<&'a str>,
    outcome: &'a str,
    created: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

/// One feedback line (no newline) for a cue just tried. `created` is an ISO
/// date or timestamp.
pub fn feedback_line(
    cue: &str,
    outcome: &str,
    matched_id: Option<&str>,
    note: Option<&str>,
    created: &str,
) -> Result<String, String> {
    if !OUTCOMES.contains(&outcome) {
        return Err(format!(
            "outcome `{outcome}` must be one of helpful, irrelevant, missed, overloaded"
        ));
    }
    crate::secrets::refuse_each(&[("the cue", cue), ("the note", note.unwrap_or_default())])?;
    // Stored, an escape would reach every terminal that shows the file.
    if let Some(note) = note {
        crate::text::refuse_control_characters(note).map_err(|e| {
            format!(
                "the note: {}",
                e.replace("articles are plain text", "memory is plain text")
            )
        })?;
    }
    let query = sanitize_cue(cue);
    if query.is_empty() {
        return Err("the cue has no words left to store once sanitized".into());
    }
    let note = note.map(safety::redact).map(|n| n.trim().to_owned());
    let line = Line {
        schema_version: 1,
        query: &query,
        matched_id,
        outcome,
        created,
        note: note.as_deref().filter(|n| !n.is_empty()),
    };
    serde_json::to_string(&line).map_err(|e| e.to_string())
}

/// Append a line to the project's feedback file: one write at its end
/// under the project's lock, so runs at the same time each keep their
/// line and nothing already there is rewritten.
pub fn append(tx: &Transaction, line: &str) -> Result<(), String> {
    let memory = tx.root().join(MEMORY_DIR);
    match std::fs::symlink_metadata(&memory) {
        // A linked folder is refused by the write, which names it.
        Ok(m) if m.is_dir() || m.file_type().is_symlink() => {}
        _ => return Err("the project has no memory/ folder".into()),
    }
    tx.set_label("feedback");
    tx.append_line(FEEDBACK_PATH, line)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A note with a terminal escape is refused, as `note` refuses one.
    #[test]
    fn a_note_holding_a_control_character_is_refused() {
        let err = feedback_line(
            "export",
            "missed",
            None,
            Some("a\u{1b}]0;x\u{7}"),
            "2026-06-01",
        )
        .unwrap_err();
        assert!(err.contains("U+001B"), "{err}");
        assert!(feedback_line("export", "missed", None, Some("fine"), "2026-06-01").is_ok());
    }

    #[test]
    fn report_matches_the_reference_shape() {
        let f = JsonlFile::parse(
            FEEDBACK_PATH,
            [
                r#"{"query":"a","matched_id":"x","outcome":"helpful"}"#,
                r#"{"query":"b","outcome":"missed"}"#,
                r#"{"query":"c","matched_id":"","outcome":"irrelevant"}"#,
                r#"{"query":"d","matched_id":"x","outcome":"other"}"#,
                r#"null"#,
                r#"{broken"#,
                r#"{"query":"e","matched_id":5,"outcome":"overloaded"}"#,
            ]
            .join("\n"),
        );
        let r = report(Some(&f));
        assert_eq!(
            r.totals,
            Totals {
                helpful: 1,
                irrelevant: 1,
                missed: 1,
                overloaded: 1
            }
        );
        let ids: Vec<String> = r
            .routes
            .iter()
            .map(|r| serde_json::to_string(&r.matched_id).unwrap())
            .collect();
        assert_eq!(ids, vec![r#""unmatched""#, "5", r#""x""#]);
        assert_eq!(r.routes[0].suggestions.len(), 2);
        assert_eq!(
            r.diagnostics.iter().map(|d| d.line).collect::<Vec<_>>(),
            vec![5, 6]
        );
        assert!(!report(None).feedback_file_found);
    }

    #[test]
    fn stored_cues_keep_no_secrets_or_addresses() {
        let q =
            sanitize_cue("Ask ann@example.com about sk-abcdefghijklmnopqrstuvwx SETTINGS sync!");
        assert_eq!(q, "ask about settings sync");
        let long: String = (0..200).map(|i| format!("word{i} ")).collect();
        let cut = sanitize_cue(&long);
        assert!(js::utf16_len(&cut) <= MAX_QUERY_UNITS && cut.ends_with(char::is_numeric));
        let line =
            feedback_line("settings sync", "helpful", Some("d1"), None, "2026-05-01").unwrap();
        assert_eq!(
            line,
            r#"{"schema_version":1,"query":"settings sync","matched_id":"d1","outcome":"helpful","created":"2026-05-01"}"#
        );
        assert!(feedback_line("x y", "great", None, None, "2026-05-01").is_err());
    }

    #[test]
    fn feedback_holding_a_credential_is_refused_not_stored() {
        let key = format!("sk-{}", "proj-Ab3dEf6hIj9kLm2nOp5qRs8t");
        let note = format!("use {key}");
        let err = feedback_line("deploy", "helpful", None, Some(&note), "2026-05-01").unwrap_err();
        assert!(
            err.contains("the note holds what looks like an OpenAI"),
            "{err}"
        );
        assert!(!err.contains(&key), "{err}");
        let err = feedback_line(&key, "missed", None, None, "2026-05-01").unwrap_err();
        assert!(err.starts_with("the cue holds"), "{err}");
    }
}
