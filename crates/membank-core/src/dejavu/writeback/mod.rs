//! Writeback: after work, a model proposes the decisions, open loops,
//! context, summary and index records to keep, as `### FILE:` blocks, and a
//! `memory/impressions.jsonl` line routing to each new durable record.
//!
//! Every proposal is checked with the project's own checks run on the
//! project as it would be after the write: a record or impression line that
//! would add an error, a record without the frontmatter the layout requires,
//! or a route to nothing is rejected with the reason; new warnings travel
//! with it. The result is a [`Proposal`] classified like any agent write
//! (new, changed with its diff, unchanged, rejected), so the command line
//! and the interface review it the same way. [`apply`] then writes only the
//! accepted entries: each record atomically, impression lines appended
//! after the file's existing bytes, which stay untouched.

mod apply;
pub(crate) mod target;
#[cfg(test)]
mod tests;
mod withheld;

use std::borrow::Cow;
use std::collections::{BTreeMap, HashSet};

pub(crate) use apply::write_accepted;
pub use apply::{ApplyError, apply};
pub use target::{RECORD_FOLDERS, Target, check_on_disk, target};

use super::IMPRESSIONS_PATH;
use super::checks;
use super::project::Project;
use crate::fileblocks;
use crate::health::{Finding, Severity};
use crate::review::{Change, Proposal, ProposedFile};

/// The bundled instructions for the writeback model.
pub const TEMPLATE: &str = include_str!("../../../templates/dejavu_writeback.md");

/// Warnings of the checks that still refuse a model's proposal: a record
/// must carry the frontmatter the layout requires, and an impression must
/// route to something.
const REFUSING_CODES: [&str; 3] = [
    "missing-frontmatter",
    "record-missing-field",
    "record-path-missing",
];

/// One entry of the reply before it becomes a [`ProposedFile`].
struct Candidate {
    path: String,
    line: usize,
    /// The record's text, or the impression line.
    content: String,
    on_disk: Option<String>,
    verdict: Result<(), String>,
    warnings: Vec<String>,
    impression: bool,
}

impl Candidate {
    fn unchanged(&self) -> bool {
        match (self.impression, &self.on_disk) {
            (true, Some(text)) => text.lines().any(|l| l.trim() == self.content),
            (false, Some(text)) => *text == self.content,
            (_, None) => false,
        }
    }

    /// Accepted and would change something.
    fn writes(&self) -> bool {
        self.verdict.is_ok() && !self.unchanged()
    }
}

/// The current text of a project file for review: `Ok(None)` when absent,
/// `Err` when it exists but must not be replaced (unreadable, not UTF-8).
fn on_disk(project: &Project, rel: &str) -> Result<Option<String>, String> {
    match project.read(rel) {
        Ok(None) => Ok(None),
        Ok(Some(bytes)) => match crate::text::decode(&bytes) {
            Ok(d) if d.utf16 && rel == IMPRESSIONS_PATH => {
                Err("the impressions file is UTF-16; lines are only appended to UTF-8".into())
            }
            Ok(d) => Ok(Some(d.text)),
            Err(e) => Err(format!(
                "the existing file is not UTF-8 text ({e}); not replaced"
            )),
        },
        Err(reason) => Err(format!("the existing file cannot be read: {reason}")),
    }
}

/// Classify a reply's proposals against the project without writing.
pub fn classify(project: &Project, reply: &str) -> Proposal {
    let parsed = fileblocks::parse_reply(reply);
    let reply_lines: Vec<&str> = reply.lines().collect();
    let mut warnings = parsed.warnings.clone();
    let mut candidates: Vec<Candidate> = Vec::new();
    for block in parsed.blocks {
        let line = block.marker_line;
        let checked = target(&block.path_raw).and_then(|t| {
            let rel = match &t {
                Target::Record(rel) => rel.as_str(),
                Target::Impressions => IMPRESSIONS_PATH,
            };
            check_on_disk(&project.root, rel)?;
            Ok(t)
        });
        match checked {
            Err(reason) => candidates.push(Candidate {
                path: block.path_raw,
                line,
                content: block.content,
                on_disk: None,
                verdict: Err(reason),
                warnings: block.warnings,
                impression: false,
            }),
            Ok(Target::Record(rel)) => {
                let (on_disk, verdict) = match on_disk(project, &rel) {
                    Ok(text) => (text, Ok(())),
                    Err(reason) => (None, Err(reason)),
                };
                let verdict = verdict.and_then(|()| {
                    if block.content.trim().is_empty() {
                        Err("the block is empty; writing it would leave an empty record".into())
                    } else {
                        Ok(())
                    }
                });
                // Lines withheld from the model go back where its markers
                // stand; a block that lost one is not written.
                let (content, verdict) = match verdict {
                    Ok(()) => match withheld::restore(project, &rel, &block.content) {
                        Ok(restored) => (restored, Ok(())),
                        Err(reason) => (block.content, Err(reason)),
                    },
                    Err(reason) => (block.content, Err(reason)),
                };
                candidates.push(Candidate {
                    path: rel,
                    line,
                    content,
                    on_disk,
                    verdict,
                    warnings: block.warnings,
                    impression: false,
                });
            }
            Ok(Target::Impressions) => {
                let (on_disk, verdict) = match on_disk(project, IMPRESSIONS_PATH) {
                    Ok(text) => (text, Ok(())),
                    Err(reason) => (None, Err(reason)),
                };
                warnings.extend(block.warnings);
                // Each line is judged on its own, so each names its own
                // line of the reply: the block's body follows its marker.
                let mut after = line;
                for l in block
                    .content
                    .lines()
                    .map(str::trim)
                    .filter(|l| !l.is_empty())
                {
                    let at = reply_lines
                        .iter()
                        .skip(after)
                        .position(|r| r.trim() == l)
                        .map_or(line, |k| after + k + 1);
                    after = after.max(at);
                    candidates.push(Candidate {
                        path: IMPRESSIONS_PATH.to_owned(),
                        line: at,
                        content: l.to_owned(),
                        on_disk: on_disk.clone(),
                        verdict: verdict.clone(),
                        warnings: Vec::new(),
                        impression: true,
                    });
                }
            }
        }
    }
    refuse_control_characters(&mut candidates);
    refuse_secrets(&mut candidates);
    refuse_private_routes(project, &mut candidates);
    reject_repeats(&mut candidates);
    let after = check_against_layout(project, &mut candidates);
    warnings.extend(after);
    Proposal {
        files: candidates.into_iter().map(into_proposed).collect(),
        warnings,
    }
}

/// A model's reply is hostile until shown otherwise: terminal escapes or
/// other control characters in a record would reach every tool and
/// terminal that later shows it, so such an entry is not written.
fn refuse_control_characters(candidates: &mut [Candidate]) {
    for c in candidates.iter_mut().filter(|c| c.verdict.is_ok()) {
        // Also escaped in a JSON line (`\u001b` in an impression's title):
        // decoded, it is the same escape to whoever reads the value.
        let found = c.content.lines().enumerate().find_map(|(n, line)| {
            line.chars()
                .find(|ch| ch.is_control() && !matches!(ch, '\t' | '\r'))
                .or_else(|| json_control(line))
                .map(|ch| (n + 1, ch))
        });
        if let Some((n, ch)) = found {
            c.verdict = Err(format!(
                "contains the control character U+{:04X} (line {n} of the block); records are \
                 plain text",
                u32::from(ch)
            ));
        }
    }
}

/// The first control character (tab aside) in the string values of `line`
/// read as JSON; `None` for a line that is not JSON.
fn json_control(line: &str) -> Option<char> {
    fn walk(v: &serde_json::Value) -> Option<char> {
        match v {
            serde_json::Value::String(s) => s.chars().find(|c| c.is_control() && *c != '\t'),
            serde_json::Value::Array(items) => items.iter().find_map(walk),
            serde_json::Value::Object(map) => map
                .iter()
                .find_map(|(k, v)| k.chars().find(|c| c.is_control()).or_else(|| walk(v))),
            _ => None,
        }
    }
    if !line.contains("\\u") {
        return None;
    }
    walk(&serde_json::from_str(line).ok()?)
}

/// The impressions file is shared memory: a line routing into private
/// memory would tell every reader what it holds and where, and recall would
/// offer it to every model.
fn refuse_private_routes(project: &Project, candidates: &mut [Candidate]) {
    for c in candidates
        .iter_mut()
        .filter(|c| c.impression && c.verdict.is_ok())
    {
        let Ok(value) = crate::dejavu::js::parse(&c.content) else {
            continue;
        };
        let Some(route) = value.get("record_path").and_then(|v| v.as_str()) else {
            continue;
        };
        let private = super::paths::is_private(route)
            || super::paths::resolve_from("", route).is_some_and(|p| project.is_private(&p));
        if private {
            c.verdict = Err(format!(
                "its record_path {route} routes into private memory; the shared impressions \
                 file never names private memory, so the line is not appended"
            ));
        }
    }
}

/// A credential in a record would be committed with the project; the
/// shared detector decides, whether or not the record held it before.
fn refuse_secrets(candidates: &mut [Candidate]) {
    for c in candidates.iter_mut().filter(|c| c.verdict.is_ok()) {
        if let Err(reason) = crate::secrets::refuse(&c.content) {
            c.verdict = Err(reason);
        }
    }
}

/// Two blocks for one record: the later one wins. An impression line given
/// twice is kept once.
fn reject_repeats(candidates: &mut [Candidate]) {
    for i in 0..candidates.len() {
        if candidates[i].verdict.is_err() {
            continue;
        }
        let later = candidates[i + 1..].iter().find(|c| {
            c.verdict.is_ok()
                && c.impression == candidates[i].impression
                && c.path == candidates[i].path
                && (!c.impression || c.content == candidates[i].content)
        });
        if let Some(later) = later {
            let reason = if later.impression {
                format!("the same line is given again at line {}", later.line)
            } else {
                format!(
                    "a later block (line {}) in this reply writes the same record; only that one is used",
                    later.line
                )
            };
            // The later candidate stays accepted; impression repeats drop the earlier copy.
            candidates[i].verdict = Err(reason);
        }
    }
}

/// What the checks say about the project with the accepted entries written:
/// entries that would add an error (or a refusing warning) are rejected,
/// until what is left is consistent (a route to a rejected record is then
/// refused too). Returns the new findings on files nobody proposed, as
/// warnings for the whole reply.
fn check_against_layout(project: &Project, candidates: &mut [Candidate]) -> Vec<String> {
    let before = checks::check(project);
    let known: HashSet<(&str, &str, Cow<str>)> = before
        .findings
        .iter()
        .map(|f| (f.code(), &*f.path, f.message()))
        .collect();
    let is_new = |f: &Finding| !known.contains(&(f.code(), &*f.path, f.message()));
    // Enough rounds for a rejected record to reject the routes to it.
    for _round in 0..4 {
        let (overlay, line_of) = overlay(project, candidates);
        let after = checks::check(&project.with_changes(&overlay));
        let mut rejected_any = false;
        let mut attributed: HashSet<usize> = HashSet::new();
        for (i, c) in candidates.iter_mut().enumerate() {
            if !c.writes() {
                continue;
            }
            let mine: Vec<(usize, &Finding)> = after
                .findings
                .iter()
                .enumerate()
                .filter(|(_, f)| match line_of.get(&i) {
                    Some(&n) => *f.path == *IMPRESSIONS_PATH && f.line() == Some(n),
                    None => *f.path == *c.path,
                })
                .filter(|(_, f)| c.impression || is_new(f))
                .collect();
            attributed.extend(mine.iter().map(|(k, _)| *k));
            let refusing: Vec<String> = mine
                .iter()
                .filter(|(_, f)| {
                    f.severity == Severity::Error || REFUSING_CODES.contains(&f.code())
                })
                .map(|(_, f)| describe(f, c.impression))
                .collect();
            if refusing.is_empty() {
                c.warnings = mine
                    .iter()
                    .map(|(_, f)| describe(f, c.impression))
                    .collect();
            } else {
                c.verdict = Err(format!(
                    "the layout's checks refuse it: {}",
                    refusing.join("; ")
                ));
                rejected_any = true;
            }
        }
        if !rejected_any {
            return after
                .findings
                .iter()
                .enumerate()
                .filter(|(k, f)| !attributed.contains(k) && is_new(f))
                .map(|(_, f)| {
                    let at = f.line().map(|l| format!(":{l}")).unwrap_or_default();
                    format!(
                        "after this writeback, {}{at}: {} ({})",
                        f.path,
                        f.message(),
                        f.code()
                    )
                })
                .collect();
        }
    }
    Vec::new()
}

fn describe(f: &Finding, impression: bool) -> String {
    match f.line() {
        Some(l) if !impression => format!("line {l}: {} ({})", f.message(), f.code()),
        _ => format!("{} ({})", f.message(), f.code()),
    }
}

/// The texts the accepted entries would write, and the line each accepted
/// impression would get in the impressions file (by candidate index).
fn overlay(
    project: &Project,
    candidates: &[Candidate],
) -> (BTreeMap<String, String>, BTreeMap<usize, usize>) {
    let mut texts = BTreeMap::new();
    let mut line_of = BTreeMap::new();
    let mut impressions = project.text(IMPRESSIONS_PATH).unwrap_or("").to_owned();
    if !impressions.is_empty() && !impressions.ends_with('\n') {
        impressions.push('\n');
    }
    let mut appended = false;
    for (i, c) in candidates.iter().enumerate() {
        if !c.writes() {
            continue;
        }
        if c.impression {
            line_of.insert(i, impressions.matches('\n').count() + 1);
            impressions.push_str(&c.content);
            impressions.push('\n');
            appended = true;
        } else {
            texts.insert(c.path.clone(), c.content.clone());
        }
    }
    if appended {
        texts.insert(IMPRESSIONS_PATH.to_owned(), impressions);
    }
    (texts, line_of)
}

/// The text an impressions file has after `line` is appended (LF form).
pub fn appended(text: &str, line: &str) -> String {
    let sep = if text.is_empty() || text.ends_with('\n') {
        ""
    } else {
        "\n"
    };
    format!("{text}{sep}{line}\n")
}

fn into_proposed(c: Candidate) -> ProposedFile {
    let mut file = if c.impression {
        let change = match (&c.verdict, &c.on_disk) {
            (Err(_), _) => Change::Rejected,
            _ if c.unchanged() => Change::Unchanged,
            (Ok(()), None) => Change::New,
            (Ok(()), Some(_)) => Change::Changed,
        };
        let old = c.on_disk.as_deref().unwrap_or("");
        ProposedFile {
            diff: (change == Change::Changed)
                .then(|| crate::diff::unified_diff(&c.path, old, &appended(old, &c.content))),
            path: c.path,
            line: c.line,
            change,
            reason: c.verdict.err(),
            warnings: Vec::new(),
            sources: Vec::new(),
            content: c.content,
            on_disk: c.on_disk,
        }
    } else {
        ProposedFile::classified(c.path, c.line, c.content, c.on_disk, c.verdict)
    };
    file.warnings = c.warnings;
    file
}

/// Whether a proposed entry is an impression line (appended) rather than a
/// whole record.
pub fn is_impression(file: &ProposedFile) -> bool {
    file.path == IMPRESSIONS_PATH
}
