//! Recall: the cue scan over `impressions.jsonl`, exactly as the reference
//! scan computes it, with the arithmetic of every impression on request.
//!
//! Tokens are the lower-cased maximal runs of Unicode letters and digits
//! longer than one UTF-16 unit; an impression's tokens come from its
//! `keywords`, `aliases` and `title`; `overlap = |Q∩R| / min(|Q|,|R|)` and
//! `score = min(1, overlap × (0.75 + w × 0.25))`, rounded like
//! `toFixed(4)`; strong ≥ 0.70, weak ≥ 0.35.

use std::collections::{BTreeSet, HashSet};
use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

pub use super::explained::Explanations;
use rayon::prelude::*;

use super::js::{self, JsValue};
use super::jsonl::{CHUNK, JsonlFile, JsonlLine};
use super::stream::{LinePlace, StreamError, StreamedJsonl};
use super::{IMPRESSIONS_PATH, SUMMARY_PATH};

/// Runs of General Category L or N, as `/[\p{L}\p{N}]+/gu`.
static TOKEN: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"[\p{L}\p{N}]+").expect("token pattern"));

pub const STRONG: f64 = 0.7;
pub const WEAK: f64 = 0.35;
/// The weight used when an impression's `weight` is not a JSON number.
pub const DEFAULT_WEIGHT: f64 = 0.5;
/// How many matches the result lists.
pub const TOP_MATCHES: usize = 5;
/// At most this many detailed records are loaded on a strong match.
pub const MAX_DETAIL_RECORDS: usize = 3;

/// The distinct tokens of a text, in first-seen order.
pub fn tokenize(text: &str) -> Vec<String> {
    let lower = text.to_lowercase();
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    for m in TOKEN.find_iter(&lower) {
        let token = m.as_str();
        if js::utf16_len(token) > 1 && seen.insert(token) {
            out.push(token.to_owned());
        }
    }
    // Kept in every impression's explanation: no growth slack.
    out.shrink_to_fit();
    out
}

#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    NotInitialized,
    None,
    Weak,
    Strong,
}

impl Level {
    pub fn for_score(score: f64) -> Level {
        if score >= STRONG {
            Level::Strong
        } else if score >= WEAK {
            Level::Weak
        } else {
            Level::None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Level::NotInitialized => "not_initialized",
            Level::None => "none",
            Level::Weak => "weak",
            Level::Strong => "strong",
        }
    }
}

/// One ranked match, with the reference's keys.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Match {
    /// Whatever JSON the impression holds; absent when it has none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<JsValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<JsValue>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub record_path: Option<JsValue>,
    #[serde(serialize_with = "js::serialize_number")]
    pub score: f64,
    pub matched_keywords: Vec<String>,
    /// The impression's line, for explanations (not a reference key).
    #[serde(skip)]
    pub line: usize,
}

/// What happened to one impression line.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum Considered {
    /// Scored; `score` 0 means it did not match.
    Scored,
    /// Left out: its `status` is set and is not `active`.
    Inactive { status: String },
    /// The line could not be used (not JSON, or JavaScript would throw).
    Invalid { error: String },
}

/// Every number behind one impression's score.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Explanation {
    pub line: usize,
    /// The impression's id as text, for display.
    pub id: String,
    #[serde(flatten)]
    pub considered: Considered,
    pub tokens: Vec<String>,
    /// Cue tokens the impression has, in cue order.
    pub matched: Vec<String>,
    pub overlap: f64,
    pub weight: f64,
    /// True when `weight` was missing or not a number and 0.5 was used.
    pub weight_defaulted: bool,
    /// Before rounding.
    pub raw_score: f64,
    pub score: f64,
    /// 1-based place among the matches, when it matched.
    pub rank: Option<usize>,
}

/// A scan diagnostic in the reference's shape (`invalid-line-N`).
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ScanDiagnostic {
    pub id: String,
    pub level: &'static str,
    pub message: &'static str,
    pub path: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// The whole result of one cue. The explanation of every impression is
/// not kept: [`Recall::explanations`] makes them again from the file, one
/// chunk of lines at a time (a large file's would take more memory than
/// the file itself).
#[derive(Debug, Clone, PartialEq)]
pub struct Recall {
    pub cue: String,
    pub cue_tokens: Vec<String>,
    pub level: Level,
    pub score: f64,
    /// Every match, best first (the reference prints the first five).
    pub matches: Vec<Match>,
    pub diagnostics: Vec<ScanDiagnostic>,
    /// How many impression lines were scanned: every non-blank line, less
    /// those left out for the reader.
    pub scanned: usize,
    /// Impressions pointing at private records were left out: those
    /// [`super::paths::is_private`] names, and these besides (the paths
    /// that lead into private memory by a link).
    shared: Option<BTreeSet<String>>,
    /// Where each match's line is, in file order, when the file was read
    /// in pieces: the lines explained are read again from there.
    places: Vec<LinePlace>,
}

/// The impressions a scan reads: the file held whole, or opened to be
/// read in pieces.
#[derive(Debug, Clone, Copy)]
pub enum Impressions<'a> {
    Loaded(&'a JsonlFile),
    Streamed(&'a StreamedJsonl),
}

impl<'a> Impressions<'a> {
    /// The file's path in the project.
    pub fn path(&self) -> &'a str {
        match *self {
            Impressions::Loaded(f) => &f.path,
            Impressions::Streamed(s) => &s.path,
        }
    }
}

/// Scan the impressions for a cue. `None` means the file does not exist.
pub fn recall(impressions: Option<&JsonlFile>, cue: &str) -> Recall {
    recall_where(impressions, cue, false)
}

/// Scan for a cue as if the impressions that point at a private record
/// (see [`super::paths::is_private`]) were not in the file: for a reader
/// that may not learn even that such a record exists, or what its
/// keywords are.
pub fn recall_shared(impressions: Option<&JsonlFile>, cue: &str) -> Recall {
    recall_where(impressions, cue, true)
}

fn recall_where(impressions: Option<&JsonlFile>, cue: &str, shared: bool) -> Recall {
    let no_links = BTreeSet::new();
    loaded(scan(
        impressions.map(Impressions::Loaded),
        cue,
        shared.then_some(&no_links),
        false,
    ))
    .0
}

/// A file held whole is never read again, so its scan cannot fail.
fn loaded(scanned: Result<(Recall, Explanations), StreamError>) -> (Recall, Explanations) {
    scanned.unwrap_or_else(|_| unreachable!("a file held whole is not read during the scan"))
}

/// Scan the impressions for a cue, keeping every impression's explanation
/// from the same pass: for a reader of all of them, who would otherwise
/// parse and tokenize each line a second time.
pub fn recall_explained(impressions: Option<&JsonlFile>, cue: &str) -> (Recall, Explanations) {
    loaded(scan(impressions.map(Impressions::Loaded), cue, None, true))
}

/// What a scan leaves out and keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ScanOptions {
    /// Leave out the impressions pointing at a private record, as
    /// [`recall_shared`] does.
    pub shared: bool,
    /// Keep every impression's explanation, as [`recall_explained`] does.
    pub explain_all: bool,
}

/// The scan of `impressions`, held whole or read in pieces, in one pass;
/// the explanations are empty unless `options.explain_all`. An error only
/// when a file read in pieces could not be read. `linked_private` are the
/// paths that lead into private memory by a link
/// ([`super::Project::private_links`]): with `options.shared`, an
/// impression routing to one is left out too.
pub fn recall_from(
    impressions: Option<Impressions<'_>>,
    cue: &str,
    options: ScanOptions,
    linked_private: &BTreeSet<String>,
) -> Result<(Recall, Explanations), StreamError> {
    let shared = options.shared.then_some(linked_private);
    scan(impressions, cue, shared, options.explain_all)
}

/// One line's outcome, as the pool hands it back: its explanation, its
/// tokens when kept, its match and, for a match read in pieces, where
/// the line is.
type Outcome = (
    Explanation,
    Option<String>,
    Option<Match>,
    Option<LinePlace>,
);

/// The one pass over the lines: ranks them and, when `keep`, writes each
/// one's explanation into the store as it goes.
fn scan(
    impressions: Option<Impressions<'_>>,
    cue: &str,
    shared: Option<&BTreeSet<String>>,
    keep: bool,
) -> Result<(Recall, Explanations), StreamError> {
    let cue_tokens = tokenize(cue);
    let room = match impressions {
        Some(Impressions::Loaded(f)) if keep => f.lines.len(),
        _ => 0,
    };
    let mut explained = Explanations::for_cue(&cue_tokens, room);
    let Some(source) = impressions else {
        let r = Recall {
            cue: cue.to_owned(),
            cue_tokens,
            level: Level::NotInitialized,
            score: 0.0,
            matches: Vec::new(),
            diagnostics: vec![ScanDiagnostic {
                id: "missing-impressions".into(),
                level: "error",
                message: "Deja Vu memory is not initialized",
                path: IMPRESSIONS_PATH.into(),
                line: None,
                error: None,
            }],
            scanned: 0,
            shared: shared.cloned(),
            places: Vec::new(),
        };
        return Ok((r, explained));
    };
    // Of each line only what the result keeps: its match, its error and,
    // when asked for, its explanation with the tokens as one text.
    let one = |number: usize, raw: &str| {
        let mut tokens = keep.then(String::new);
        let keep = match tokens.as_mut() {
            Some(joined) => Keep::Joined(joined),
            None => Keep::Nothing,
        };
        let (exp, found) = explain(number, raw, &cue_tokens, shared, keep)?;
        Some((exp, tokens, found))
    };
    let path = source.path().to_owned();
    let mut scanned = 0;
    let mut matches: Vec<Match> = Vec::new();
    let mut places: Vec<LinePlace> = Vec::new();
    let mut diagnostics: Vec<ScanDiagnostic> = Vec::new();
    // `share`: how far into how large a file these lines reach, when the
    // file is read in pieces, to make room for the whole file at once.
    let mut absorb = |outcomes: Vec<Option<Outcome>>, share: Option<(u64, u64)>| {
        for (exp, tokens, found, place) in outcomes.into_iter().flatten() {
            scanned += 1;
            if let Considered::Invalid { error } = &exp.considered {
                diagnostics.push(ScanDiagnostic {
                    id: format!("invalid-line-{}", exp.line),
                    level: "error",
                    message: "Invalid impression record",
                    path: path.clone(),
                    line: Some(exp.line),
                    error: Some(error.clone()),
                });
            }
            if let Some(tokens) = tokens {
                explained.push(&exp, &tokens);
            }
            matches.extend(found);
            places.extend(place);
        }
        if let Some((read, size)) = share {
            explained.reserve_for_share(read, size);
            if let Some(scale) = super::explained::share_scale(read, size) {
                let more = ((matches.len() as f64 * scale) as usize).saturating_sub(matches.len());
                matches.reserve_exact(more);
                places.reserve_exact(more);
            }
        }
    };
    match source {
        Impressions::Loaded(file) => {
            let parallel = crate::parallel::pays(file.lines.len());
            let each = |l: &JsonlLine| {
                one(l.line, l.raw()).map(|(exp, tokens, found)| (exp, tokens, found, None))
            };
            for chunk in file.lines.chunks(CHUNK) {
                let outcomes = if parallel {
                    chunk.par_iter().map(each).collect()
                } else {
                    chunk.iter().map(each).collect()
                };
                absorb(outcomes, None);
            }
        }
        Impressions::Streamed(file) => {
            let mut first = true;
            file.for_each_piece(|piece| {
                let each = |l: &super::stream::ScannedLine<'_>| {
                    one(l.line, &l.raw).map(|(exp, tokens, found)| {
                        let place = found.is_some().then(|| l.place());
                        (exp, tokens, found, place)
                    })
                };
                let outcomes = if crate::parallel::pays(piece.len()) {
                    piece.par_iter().map(each).collect()
                } else {
                    piece.iter().map(each).collect()
                };
                // The first piece tells how much the whole file will keep:
                // room made once rather than doubled as it grows.
                let share = piece
                    .last()
                    .filter(|_| std::mem::take(&mut first))
                    .map(|last| (last.end(), file.size()));
                absorb(outcomes, share);
            })?;
        }
    }
    // As the reference's stable sort leaves them: equal scores in file
    // order (an unstable sort by both needs no scratch copy of them all).
    matches.sort_unstable_by(|a: &Match, b: &Match| {
        b.score.total_cmp(&a.score).then(a.line.cmp(&b.line))
    });
    explained.rank(&matches);
    let score = matches.first().map_or(0.0, |m| m.score);
    let r = Recall {
        cue: cue.to_owned(),
        cue_tokens,
        level: Level::for_score(score),
        score,
        matches,
        diagnostics,
        scanned,
        shared: shared.cloned(),
        places,
    };
    Ok((r, explained))
}

/// What the scan keeps of an impression's tokens.
enum Keep<'a> {
    Nothing,
    /// In the explanation, one string each.
    InExplanation,
    /// Space-separated in one text (tokens hold no space).
    Joined(&'a mut String),
}

/// One line's explanation and match; `None` when the line is left out for
/// the reader.
fn explain(
    number: usize,
    raw: &str,
    cue: &[String],
    shared: Option<&BTreeSet<String>>,
    keep: Keep,
) -> Option<(Explanation, Option<Match>)> {
    let value = js::parse_keeping(raw, &SCANNED_KEYS);
    if let Some(linked_private) = shared
        && let Ok(v) = &value
        && v.get("record_path")
            .and_then(JsValue::as_str)
            .is_some_and(|route| routes_to_private(route, linked_private))
    {
        return None;
    }
    let mut exp = Explanation {
        line: number,
        id: String::new(),
        considered: Considered::Scored,
        tokens: Vec::new(),
        matched: Vec::new(),
        overlap: 0.0,
        weight: DEFAULT_WEIGHT,
        weight_defaulted: true,
        raw_score: 0.0,
        score: 0.0,
        rank: None,
    };
    let found = match score_line(value.as_ref(), cue, &mut exp, keep) {
        Ok(m) => m.map(|m| Match { line: number, ..m }),
        Err(error) => {
            exp.considered = Considered::Invalid { error };
            None
        }
    };
    Some((exp, found))
}

impl Recall {
    /// The explanation of every impression scanned, in file order, made
    /// as they are read. `file` is the one this result scanned.
    /// [`recall_explained`] keeps them from the scan instead of parsing
    /// every line again.
    pub fn explanations<'a>(
        &'a self,
        file: Option<&'a JsonlFile>,
    ) -> impl Iterator<Item = Explanation> + 'a {
        // Matches by line, for each explanation's rank.
        let mut ranks: Vec<(usize, usize)> = self
            .matches
            .iter()
            .enumerate()
            .map(|(i, m)| (m.line, i + 1))
            .collect();
        ranks.sort_unstable();
        let ranked = move |line: &JsonlLine| {
            let (mut exp, _) = explain(
                line.line,
                line.raw(),
                &self.cue_tokens,
                self.shared.as_ref(),
                Keep::InExplanation,
            )?;
            if let Ok(i) = ranks.binary_search_by_key(&exp.line, |&(line, _)| line) {
                exp.rank = Some(ranks[i].1);
            }
            Some(exp)
        };
        file.map(|file| file.map_in_order(ranked))
            .into_iter()
            .flatten()
            .filter_map(|(_, made)| made)
    }

    /// The explanations of the `limit` best matches, best first.
    /// `impressions` is what this result scanned; a file read in pieces
    /// is read again at those lines, and an error says it changed since.
    pub fn best_explained(
        &self,
        impressions: Option<Impressions<'_>>,
        limit: usize,
    ) -> Result<Vec<Explanation>, StreamError> {
        let mut best = Vec::new();
        for (i, m) in self.matches.iter().take(limit).enumerate() {
            let read_again;
            let raw = match impressions {
                None => break,
                Some(Impressions::Loaded(file)) => match file.line(m.line) {
                    Some(line) => line.raw(),
                    None => continue,
                },
                Some(Impressions::Streamed(file)) => {
                    // Places are in file order, as the lines were read.
                    let Ok(at) = self.places.binary_search_by_key(&m.line, |p| p.line) else {
                        continue;
                    };
                    read_again = file.read_line(&self.places[at])?;
                    &read_again
                }
            };
            if let Some((mut exp, _)) = explain(
                m.line,
                raw,
                &self.cue_tokens,
                self.shared.as_ref(),
                Keep::InExplanation,
            ) {
                exp.rank = Some(i + 1);
                best.push(exp);
            }
        }
        Ok(best)
    }
}

/// Whether an impression's route leads into private memory: by its own
/// name, as the reference reads it, or where it leads, through one of
/// `linked_private` (as writeback and the MCP server judge it).
fn routes_to_private(route: &str, linked_private: &BTreeSet<String>) -> bool {
    super::paths::is_private(route)
        || super::paths::resolve_from("", route).is_some_and(|p| linked_private.contains(&p))
}

/// The properties the scan reads; the others are only checked.
const SCANNED_KEYS: [&str; 7] = [
    "id",
    "status",
    "keywords",
    "aliases",
    "title",
    "weight",
    "record_path",
];

/// The reference's per-line work; `Err` where JavaScript would throw.
/// The impression's tokens are kept as `keep` says.
fn score_line(
    value: Result<&JsValue, &js::ParseError>,
    cue: &[String],
    exp: &mut Explanation,
    keep: Keep,
) -> Result<Option<Match>, String> {
    let record = value.map_err(|e| e.to_string())?;
    if *record == JsValue::Null {
        return Err("Cannot read properties of null (reading 'status')".into());
    }
    exp.id = record.get("id").map(display_id).unwrap_or_default();
    if let Some(status) = record.get("status")
        && status.truthy()
        && status.as_str() != Some("active")
    {
        exp.considered = Considered::Inactive {
            status: status.join_string(),
        };
        return Ok(None);
    }
    // `[...keywords, ...aliases, title].join(" ")`, written straight into
    // one string.
    let mut joined = String::new();
    let mut parts = 0;
    spread_into(record.get("keywords"), "keywords", &mut joined, &mut parts)?;
    spread_into(record.get("aliases"), "aliases", &mut joined, &mut parts)?;
    if parts > 0 {
        joined.push(' ');
    }
    if let Some(title) = record.get("title") {
        title.write_join_string(&mut joined);
    }
    let lower = joined.to_lowercase();
    let tokens = DistinctTokens::of(&lower);
    let matched: Vec<String> = cue.iter().filter(|t| tokens.contains(t)).cloned().collect();
    let tokens = tokens.in_order;
    if let Some(w) = record.get("weight").and_then(JsValue::as_number) {
        exp.weight = w;
        exp.weight_defaulted = false;
    }
    match keep {
        Keep::Nothing => {}
        Keep::InExplanation => {
            exp.tokens = tokens.iter().map(|t| (*t).to_owned()).collect();
            exp.matched = matched.clone();
        }
        Keep::Joined(joined) => {
            for (i, t) in tokens.iter().enumerate() {
                if i > 0 {
                    joined.push(' ');
                }
                joined.push_str(t);
            }
        }
    }
    if !arithmetic(exp, matched.len(), cue.len(), tokens.len()) {
        return Ok(None);
    }
    Ok(Some(Match {
        id: record.get("id").cloned(),
        title: record.get("title").cloned(),
        record_path: record.get("record_path").cloned(),
        score: exp.score,
        matched_keywords: matched,
        line: 0,
    }))
}

/// The overlap and score of an impression with `matched` of the `cue`
/// tokens among its `tokens`, into `exp`; false when it does not match.
/// The one place the arithmetic is written, for the scan and for
/// explanations remade from what it kept.
pub(super) fn arithmetic(exp: &mut Explanation, matched: usize, cue: usize, tokens: usize) -> bool {
    if cue == 0 || tokens == 0 {
        return false;
    }
    exp.overlap = matched as f64 / cue.min(tokens) as f64;
    exp.raw_score = js::js_min(1.0, exp.overlap * (0.75 + exp.weight * 0.25));
    // `score > 0` is false for NaN too (0 × Infinity): not a match.
    if exp.raw_score.is_nan() || exp.raw_score <= 0.0 {
        return false;
    }
    exp.score = js::round4(exp.raw_score);
    true
}

/// The distinct tokens of a lower-cased text, in first-seen order.
struct DistinctTokens<'a> {
    in_order: Vec<&'a str>,
    /// Filled only once there are more than a few to look through.
    set: HashSet<&'a str>,
}

impl<'a> DistinctTokens<'a> {
    /// Up to this many, a token is looked for in the list itself.
    const LOOKUP_BELOW: usize = 32;

    fn of(lower: &'a str) -> Self {
        let mut tokens = DistinctTokens {
            in_order: Vec::new(),
            set: HashSet::new(),
        };
        if lower.is_ascii() {
            // In ASCII the letters and digits are exactly these.
            for run in lower.split(|c: char| !c.is_ascii_alphanumeric()) {
                tokens.add(run);
            }
        } else {
            for m in TOKEN.find_iter(lower) {
                tokens.add(m.as_str());
            }
        }
        tokens
    }

    fn add(&mut self, token: &'a str) {
        if js::utf16_len(token) <= 1 || self.contains(token) {
            return;
        }
        self.in_order.push(token);
        if !self.set.is_empty() {
            self.set.insert(token);
        } else if self.in_order.len() == Self::LOOKUP_BELOW {
            self.set.extend(self.in_order.iter().copied());
        }
    }

    fn contains(&self, token: &str) -> bool {
        if self.set.is_empty() {
            self.in_order.contains(&token)
        } else {
            self.set.contains(token)
        }
    }
}

/// `...(value ?? [])` into a space-joined list: arrays give their
/// elements, strings their characters; anything else throws.
fn spread_into(
    value: Option<&JsValue>,
    name: &str,
    out: &mut String,
    parts: &mut usize,
) -> Result<(), String> {
    let mut part = |out: &mut String| {
        if *parts > 0 {
            out.push(' ');
        }
        *parts += 1;
    };
    match value {
        None | Some(JsValue::Null) => {}
        Some(JsValue::Array(items)) => {
            for item in items {
                part(out);
                item.write_join_string(out);
            }
        }
        Some(JsValue::String(s)) => {
            for c in s.chars() {
                part(out);
                out.push(c);
            }
        }
        Some(_) => return Err(format!("record.{name} is not iterable")),
    }
    Ok(())
}

fn display_id(v: &JsValue) -> String {
    match v {
        JsValue::String(s) => s.clone(),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

impl Recall {
    /// Records a host following the protocol would read: nothing for no
    /// familiarity, the summary for a weak one, the strong matches' records
    /// (one to three) for a strong one.
    pub fn would_load(&self) -> Vec<String> {
        match self.level {
            Level::NotInitialized | Level::None => Vec::new(),
            Level::Weak => vec![SUMMARY_PATH.to_owned()],
            Level::Strong => {
                let mut out: Vec<String> = Vec::new();
                // One record however its routes spell it (`./memory/x.md`,
                // `memory/d/../x.md`): a host reads it, and `recall --ask`
                // sends it, once. The first spelling is the one listed.
                let mut seen: Vec<String> = Vec::new();
                for m in self.matches.iter().filter(|m| m.score >= STRONG) {
                    if let Some(JsValue::String(p)) = &m.record_path {
                        let record = super::paths::resolve_from("", p).unwrap_or_else(|| p.clone());
                        if !seen.contains(&record) {
                            seen.push(record);
                            out.push(p.clone());
                        }
                    }
                    if out.len() == MAX_DETAIL_RECORDS {
                        break;
                    }
                }
                out
            }
        }
    }

    pub fn matched(&self) -> bool {
        matches!(self.level, Level::Weak | Level::Strong)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn demo() -> JsonlFile {
        JsonlFile::parse(
            IMPRESSIONS_PATH,
            concat!(
                r#"{"schema_version":1,"id":"decision-settings-sync","scope":"project:demo","title":"Settings sync stays server-backed","keywords":["settings","sync","localstorage","preferences"],"record_path":"memory/decisions/settings-sync.md","updated":"2026-05-16","weight":0.9,"status":"active"}"#,
                "\n",
                r#"{"schema_version":1,"id":"open-loop-settings-migration","scope":"project:demo","title":"Migrate old setting names","keywords":["settings","migration","legacy","names"],"record_path":"memory/open-loops/settings-migration.md","updated":"2026-05-16","weight":0.8,"status":"active"}"#,
                "\n"
            )
            .into(),
        )
    }

    #[test]
    fn golden_values_of_the_reference_settings_example() {
        let r = recall(Some(&demo()), "Continue the settings refactor.");
        assert_eq!(r.level, Level::None);
        assert_eq!(r.score, 0.2437);
        let r = recall(Some(&demo()), "settings sync");
        assert_eq!(r.level, Level::Strong);
        assert_eq!(r.score, 0.975);
        assert_eq!(r.matches[1].score, 0.475);
        assert_eq!(r.matches[0].matched_keywords, vec!["settings", "sync"]);
        assert_eq!(r.would_load(), vec!["memory/decisions/settings-sync.md"]);
    }

    /// Three routes spelling one record three ways load it once.
    #[test]
    fn one_record_is_loaded_once_however_its_routes_spell_it() {
        let line = |id: &str, path: &str| {
            format!(
                r#"{{"id":"{id}","scope":"project:x","title":"Cache","keywords":["cache","storage"],"record_path":"{path}"}}"#
            )
        };
        let text = [
            line("a1", "memory/decisions/a.md"),
            line("a2", "./memory/decisions/a.md"),
            line("a3", "memory/decisions/../decisions/a.md"),
            line("b", "memory/decisions/b.md"),
        ]
        .join("\n");
        let r = recall(
            Some(&JsonlFile::parse(IMPRESSIONS_PATH, text)),
            "cache storage",
        );
        assert_eq!(r.level, Level::Strong);
        assert_eq!(
            r.would_load(),
            vec!["memory/decisions/a.md", "memory/decisions/b.md"]
        );
    }

    #[test]
    fn tokens_are_letter_and_digit_runs_longer_than_one_utf16_unit() {
        assert_eq!(
            tokenize("Über-cool v2 a 𝐀 x9 ÉTÉ café, ÜBER"),
            vec!["über", "cool", "v2", "𝐀", "x9", "été", "café"]
        );
        assert_eq!(tokenize("ΟΔΟΣ"), vec!["οδος"]);
    }

    #[test]
    fn javascript_quirks_are_kept() {
        let f = JsonlFile::parse(
            IMPRESSIONS_PATH,
            [
                r#"{"id":"str","keywords":"ab","title":"zz"}"#,
                r#"{"id":"num","keywords":5}"#,
                r#"null"#,
                r#"{"id":"off","status":"archived","keywords":["zz"]}"#,
                r#"{"id":"zero","status":0,"keywords":["zz"],"weight":"1"}"#,
                r#"{"id":7,"title":["zz",null,{"a":1}],"weight":1e400}"#,
            ]
            .join("\n"),
        );
        let r = recall(Some(&f), "zz object");
        let explanations: Vec<Explanation> = r.explanations(Some(&f)).collect();
        let ids: Vec<String> = explanations.iter().map(|e| e.id.clone()).collect();
        assert_eq!(ids, vec!["str", "num", "", "off", "zero", "7"]);
        // A string of keywords spreads into single letters, which are dropped.
        assert_eq!(explanations[0].tokens, vec!["zz"]);
        assert!(matches!(
            explanations[1].considered,
            Considered::Invalid { .. }
        ));
        assert!(matches!(
            explanations[2].considered,
            Considered::Invalid { .. }
        ));
        assert_eq!(r.diagnostics.len(), 2);
        assert_eq!(r.diagnostics[1].id, "invalid-line-3");
        assert!(matches!(
            explanations[3].considered,
            Considered::Inactive { .. }
        ));
        // status 0 is falsy, so the impression counts; "1" is not a number.
        assert!(explanations[4].weight_defaulted);
        // An object in the title becomes "[object Object]"; Infinity caps at 1.
        assert_eq!(explanations[5].tokens, vec!["zz", "object"]);
        assert_eq!(r.matches[0].score, 1.0);
        assert_eq!(r.matches[0].id, Some(JsValue::Number(7.0)));
    }

    /// 5,000 lines of every kind: valid, inactive, not JSON, `null`, a huge
    /// line, non-Latin text, repeated ids, blank lines.
    fn odd_impressions() -> String {
        let words = [
            "settings", "sync", "Über", "café", "οδος", "数据", "legacy", "x9",
        ];
        let mut lines = Vec::new();
        for i in 0..5000usize {
            let w = |k: usize| words[(i * 7 + k * 3) % words.len()];
            lines.push(match i % 11 {
                0 => "{not json".to_owned(),
                1 => "null".to_owned(),
                2 => String::new(),
                3 => format!(
                    r#"{{"id":"dup","title":"{}","keywords":["{}"],"weight":0.3}}"#,
                    w(0).repeat(if i < 1000 { 5000 } else { 3 }),
                    w(1)
                ),
                4 => format!(r#"{{"id":"off-{i}","status":"archived","keywords":["{}"]}}"#, w(0)),
                5 => format!(r#"{{"id":{i},"keywords":"{}","weight":-2.9999}}"#, w(2)),
                _ => format!(
                    r#"{{"id":"dup-{}","title":"{} {}","keywords":["{}","{}"],"aliases":["{}"],"weight":{}}}"#,
                    i % 50,
                    w(0),
                    w(1),
                    w(2),
                    w(3),
                    w(4),
                    (i % 10) as f64 / 10.0
                ),
            });
        }
        lines.join("\n")
    }

    #[test]
    fn a_large_file_scans_as_each_of_its_lines_would_alone() {
        let text = odd_impressions();
        let cue = "settings café οδος legacy 数据";
        let file = JsonlFile::parse(IMPRESSIONS_PATH, text.clone());
        let whole = recall(Some(&file), cue);
        let explanations: Vec<Explanation> = whole.explanations(Some(&file)).collect();
        // Lines go to the pool in chunks: several, and one cut short.
        assert!(explanations.len() > 2 * super::super::jsonl::CHUNK);
        assert_eq!(whole.scanned, explanations.len());
        let mut matches = Vec::new();
        let mut diagnostics = Vec::new();
        let mut i = 0;
        for (number, span) in super::super::jsonl::split_lines(&text) {
            let alone = JsonlFile::parse(IMPRESSIONS_PATH, text[span].to_owned());
            let r = recall(Some(&alone), cue);
            let Some(mut exp) = r.explanations(Some(&alone)).next() else {
                continue;
            };
            exp.line = number;
            let expected_rank = exp.rank.take();
            let mut got = explanations[i].clone();
            assert_eq!(got.rank.is_some(), expected_rank.is_some(), "line {number}");
            got.rank = None;
            assert_eq!(got, exp, "line {number}");
            matches.extend(r.matches.into_iter().map(|m| Match { line: number, ..m }));
            diagnostics.extend(r.diagnostics.into_iter().map(|d| ScanDiagnostic {
                id: format!("invalid-line-{number}"),
                line: Some(number),
                ..d
            }));
            i += 1;
        }
        assert_eq!(i, explanations.len());
        matches.sort_by(|a, b| b.score.total_cmp(&a.score));
        assert_eq!(whole.matches, matches);
        assert_eq!(whole.diagnostics, diagnostics);
        for (rank, m) in whole.matches.iter().enumerate() {
            let e = explanations.iter().find(|e| e.line == m.line).unwrap();
            assert_eq!(e.rank, Some(rank + 1));
        }
        // The best few, made line by line, are the ranked ones of the scan.
        let mut ranked: Vec<&Explanation> =
            explanations.iter().filter(|e| e.rank.is_some()).collect();
        ranked.sort_by_key(|e| e.rank);
        let best = whole
            .best_explained(Some(Impressions::Loaded(&file)), 7)
            .unwrap();
        assert_eq!(best.iter().collect::<Vec<_>>(), ranked[..7]);
    }

    /// The odd lines, then lines that tie, lines of JavaScript quirks and
    /// lines of more tokens than are looked through as a list.
    fn odd_and_tied_impressions() -> String {
        let many: Vec<String> = (0..80).map(|i| format!("t{i}")).collect();
        let mut text = odd_impressions();
        for i in 0..600 {
            text.push('\n');
            text.push_str(&match i % 6 {
                0 | 1 => {
                    format!(r#"{{"id":"tie-{i}","keywords":["settings","sync"],"weight":0.7}}"#)
                }
                2 => format!(
                    r#"{{"id":"many-{i}","title":"{} settings","weight":0.{}}}"#,
                    many.join(" "),
                    i % 10
                ),
                3 => r#"{"id":{"o":1},"title":["sync",null,{"a":1}],"weight":1e400}"#.to_owned(),
                4 => r#"{"id":"z","status":0,"keywords":"sync","weight":"1"}"#.to_owned(),
                _ => r#"{"id":"bad","keywords":5}"#.to_owned(),
            });
        }
        text
    }

    #[test]
    fn the_explanations_kept_by_the_scan_are_those_made_line_by_line() {
        let file = JsonlFile::parse(IMPRESSIONS_PATH, odd_and_tied_impressions());
        for cue in [
            "settings café οδος legacy 数据",
            "sync t3 t79 settings",
            "settings sync",
            "a",
            "nothing here",
        ] {
            let (kept_scan, kept) = recall_explained(Some(&file), cue);
            let plain = recall(Some(&file), cue);
            assert_eq!(kept_scan, plain, "{cue}");
            let made: Vec<Explanation> = plain.explanations(Some(&file)).collect();
            assert!(made.len() > 2 * super::super::jsonl::CHUNK);
            assert_eq!(kept.len(), made.len(), "{cue}");
            // Compared as printed: a score of 0 × Infinity is NaN, which
            // equals nothing, itself included.
            for (kept, made) in kept.iter().zip(&made) {
                assert_eq!(format!("{kept:?}"), format!("{made:?}"), "{cue}");
            }
            // On the pool, a chunk at a time, in the same order.
            let lines: Vec<usize> = kept.map_in_order(|e| e.line).collect();
            let in_order: Vec<usize> = made.iter().map(|e| e.line).collect();
            assert_eq!(lines, in_order, "{cue}");
            // The best few, by rank, are the ones a limit explains.
            let mut ranked: Vec<Explanation> = kept.iter().filter(|e| e.rank.is_some()).collect();
            ranked.sort_by_key(|e| e.rank);
            assert_eq!(ranked.len(), plain.matches.len(), "{cue}");
            for limit in [0, 1, 5, 50] {
                let n = limit.min(ranked.len());
                let best = plain
                    .best_explained(Some(Impressions::Loaded(&file)), limit)
                    .unwrap();
                assert_eq!(format!("{best:?}"), format!("{:?}", &ranked[..n]), "{cue}");
            }
        }
        // Equal scores rank in file order.
        let (r, kept) = recall_explained(Some(&file), "settings sync");
        let ties: Vec<Explanation> = kept.iter().filter(|e| e.id.starts_with("tie-")).collect();
        assert!(ties.len() > 100);
        assert!(
            ties.windows(2)
                .all(|w| w[0].rank.unwrap() + 1 == w[1].rank.unwrap())
        );
        assert_eq!(r.matches[ties[0].rank.unwrap() - 1].line, ties[0].line);
    }

    #[test]
    fn explanations_written_by_hand_are_the_json_serde_writes() {
        let mut text = odd_and_tied_impressions();
        // Strings that must be escaped, in ids, statuses and tokens.
        for line in [
            r#"{"id":"q\"b\\s\u0007\u001b[31m\u2028\u200e\u007f\u0085 é","keywords":["sync"]}"#,
            r#"{"id":"st","status":"gone\n\"x\"","keywords":["sync"]}"#,
            r#"{"id":"w","keywords":["sync","settings"],"weight":1e-9}"#,
            r#"{"id":"n","title":"sync","weight":null}"#,
            "[1,2]",
            "{\"id\":\"bad\u{1b}\", nope}",
        ] {
            text.push('\n');
            text.push_str(line);
        }
        let file = JsonlFile::parse(IMPRESSIONS_PATH, text);
        for cue in [
            "settings café οδος legacy 数据",
            "sync t3 t79 settings",
            "nothing",
        ] {
            let (_, kept) = recall_explained(Some(&file), cue);
            let mut by_hand = String::new();
            for (i, exp) in kept.iter().enumerate() {
                by_hand.clear();
                assert!(kept.push_json(i, &mut by_hand, "      "));
                let by_serde = crate::json::to_string(&exp)
                    .unwrap()
                    .replace('\n', "\n      ");
                assert_eq!(by_hand, by_serde, "{cue}: line {}", exp.line);
            }
            assert!(!kept.push_json(kept.len(), &mut by_hand, ""));
            let sep = ",\n  ";
            let blocks: Vec<String> = kept.json_blocks("  ", sep).collect();
            assert!(blocks.len() > 2);
            let each: Vec<String> = kept
                .iter()
                .map(|e| crate::json::to_string(&e).unwrap().replace('\n', "\n  "))
                .collect();
            assert_eq!(blocks.join(sep), each.join(sep), "{cue}");
        }
    }

    /// A project whose impressions are `text`, loaded whole and streamed.
    fn both_ways(
        text: &str,
    ) -> (
        tempfile::TempDir,
        super::super::Project,
        super::super::Project,
    ) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("memory")).unwrap();
        std::fs::write(dir.path().join(IMPRESSIONS_PATH), text).unwrap();
        let whole = super::super::Project::load_root(dir.path().to_path_buf());
        let streamed = super::super::Project::load_root_streamed(dir.path().to_path_buf());
        assert!(matches!(
            whole.impressions_source(),
            Some(Impressions::Loaded(_))
        ));
        assert!(streamed.impressions.is_none());
        (dir, whole, streamed)
    }

    #[test]
    fn a_file_read_in_pieces_scans_as_the_file_held_whole() {
        // Several pieces, lines cut at their edges, CRLF, non-Latin
        // letters, ties and a last line without a line feed.
        let mut text = odd_and_tied_impressions().replace("\n{\"id\":\"tie-", "\r\n{\"id\":\"tie-");
        text.push_str("\n{\"id\":\"last\",\"keywords\":[\"settings\"]}");
        assert!(text.len() > 2 * super::super::stream::PIECE);
        let (_dir, whole, streamed) = both_ways(&text);
        for cue in [
            "settings café οδος legacy 数据",
            "settings sync",
            "nothing here",
        ] {
            for (shared, explain_all) in [(false, false), (false, true), (true, true)] {
                let options = ScanOptions {
                    shared,
                    explain_all,
                };
                let none = BTreeSet::new();
                let (a, kept_a) =
                    recall_from(whole.impressions_source(), cue, options, &none).unwrap();
                let (b, kept_b) =
                    recall_from(streamed.impressions_source(), cue, options, &none).unwrap();
                assert_eq!(a.matches, b.matches, "{cue}");
                assert_eq!(a.diagnostics, b.diagnostics, "{cue}");
                assert_eq!((a.scanned, a.level, a.score), (b.scanned, b.level, b.score));
                assert_eq!(b.places.len(), b.matches.len());
                assert_eq!(format!("{kept_a:?}"), format!("{kept_b:?}"), "{cue}");
                for limit in [0, 1, 5, 50, usize::MAX] {
                    let best_a = a.best_explained(whole.impressions_source(), limit).unwrap();
                    let best_b = b
                        .best_explained(streamed.impressions_source(), limit)
                        .unwrap();
                    assert_eq!(
                        format!("{best_a:?}"),
                        format!("{best_b:?}"),
                        "{cue} {limit}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_line_changed_after_the_scan_is_reported_not_mixed_in() {
        let text = concat!(
            r#"{"id":"a","keywords":["settings","sync"],"weight":0.9}"#,
            "\n",
            r#"{"id":"b","keywords":["settings"],"weight":0.1}"#,
            "\n"
        );
        let (dir, _whole, streamed) = both_ways(text);
        let source = streamed.impressions_source();
        let (r, _) = recall_from(
            source,
            "settings sync",
            ScanOptions::default(),
            &BTreeSet::new(),
        )
        .unwrap();
        assert_eq!(r.best_explained(source, 2).unwrap().len(), 2);
        // Written over in place, same length: the open file shows it.
        std::fs::write(
            dir.path().join(IMPRESSIONS_PATH),
            text.replace("\"b\"", "\"c\""),
        )
        .unwrap();
        assert_eq!(r.best_explained(source, 1).unwrap()[0].id, "a");
        let e = r.best_explained(source, 2).unwrap_err();
        assert_eq!((e.path.as_str(), e.line), (IMPRESSIONS_PATH, Some(2)));
        assert!(e.to_string().contains("changed while it was read"), "{e}");
    }

    #[test]
    fn no_file_keeps_no_explanation() {
        let (r, kept) = recall_explained(None, "anything");
        assert_eq!(r, recall(None, "anything"));
        assert!(kept.is_empty());
    }

    #[test]
    fn long_and_non_ascii_lines_give_the_tokens_of_the_pattern() {
        let words: Vec<String> = (0..100).map(|i| format!("w{i}")).collect();
        for (extra, matched) in [
            ("", vec!["w80", "w7"]),
            (" Über", vec!["w80", "über", "w7"]),
            (" x ĳ", vec!["w80", "w7"]),
        ] {
            let title = format!("{}{extra} w7 W7", words.join("-"));
            let f = JsonlFile::parse(
                IMPRESSIONS_PATH,
                format!(r#"{{"id":"a","title":"{title}"}}"#),
            );
            let r = recall(Some(&f), "w80 über w7");
            let explained: Vec<Explanation> = r.explanations(Some(&f)).collect();
            assert_eq!(explained[0].tokens, tokenize(&title), "{extra:?}");
            assert_eq!(r.matches[0].matched_keywords, matched, "{extra:?}");
        }
    }

    #[test]
    fn missing_impressions_is_not_initialized() {
        let r = recall(None, "anything");
        assert_eq!(r.level, Level::NotInitialized);
        assert_eq!(r.diagnostics[0].id, "missing-impressions");
    }
}
