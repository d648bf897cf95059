//! Everything the reference lint and doctor report, on the same file and
//! JSONL line, under stable codes. Where the two tools check the same thing
//! differently, a finding is raised when either would report it.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasher, RandomState};
use std::sync::LazyLock;

use regex::Regex;

use std::borrow::Cow;

use rayon::prelude::*;

use super::{Sink, safety};
use crate::dejavu::js::{self, JsValue, SetKey};
use crate::dejavu::jsonl::{CHUNK, JsonlFile, JsonlLine};
use crate::dejavu::project::{Presence, Project, Record};
use crate::dejavu::recall::Impressions;
use crate::dejavu::record::RecordKind;
use crate::dejavu::stream::{LinePlace, StreamError, StreamedJsonl};
use crate::dejavu::{AGENTS_PATH, FEEDBACK_PATH, IMPRESSIONS_PATH, SUMMARY_PATH, paths};
use crate::health::Severity::{self, Error, Warning};

pub const VALID_STATUSES: [&str; 3] = ["active", "superseded", "archived"];
pub const VALID_OUTCOMES: [&str; 4] = ["helpful", "irrelevant", "missed", "overloaded"];
const GENERIC_KEYWORDS: [&str; 18] = [
    "about", "agent", "change", "context", "data", "detail", "file", "general", "info", "memory",
    "note", "project", "record", "summary", "task", "thing", "update", "work",
];
const REQUIRED_IMPRESSION_FIELDS: [&str; 5] = ["id", "scope", "title", "record_path", "updated"];
pub const REQUIRED_RECORD_FIELDS: [&str; 5] = ["id", "title", "status", "scope", "updated"];
/// The summary is injected first; the reference warns past this size.
pub const SUMMARY_MAX_UNITS: usize = 12_000;
/// Feedback queries are meant to be short cues.
pub const QUERY_MAX_UNITS: usize = 240;

static ISO_DATE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}(?:T[0-9]{2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]{3})?Z?)?$")
        .expect("date pattern")
});

/// `YYYY-MM-DD` or an ISO timestamp, by shape only (as the reference).
pub fn is_iso_date(v: Option<&JsValue>) -> bool {
    matches!(v, Some(JsValue::String(s)) if ISO_DATE.is_match(s))
}

fn is_string_array(v: Option<&JsValue>) -> bool {
    match v {
        Some(JsValue::Array(items)) => items
            .iter()
            .all(|i| matches!(i, JsValue::String(s) if !s.is_empty())),
        _ => false,
    }
}

fn is_one(v: Option<&JsValue>) -> bool {
    v.and_then(JsValue::as_number) == Some(1.0)
}

/// What reading the impressions found besides the line findings, for the
/// checks that run after.
#[derive(Default)]
pub struct ImpressionsRead {
    /// Every project path an impression routes to; `None` when there is
    /// no impressions file.
    pub routed: Option<HashSet<String>>,
    /// The safety scan of a file read in pieces (a file read whole is
    /// scanned with the other texts).
    pub hits: Vec<safety::Hit>,
    /// A file read in pieces that was not UTF-8 text.
    pub not_utf8: bool,
}

/// Is `id` the id of an active impression, as the `unresolved-matched-id`
/// check decides? A feedback line naming any other id is flagged by that
/// check the moment it is written.
pub fn is_active_impression_id(project: &Project, id: &str) -> bool {
    let Some(source) = project.impressions_source() else {
        return false;
    };
    let mut lint = ImpressionLint::new(project, source);
    let mut unused = Sink::default();
    let read = match source {
        Impressions::Loaded(file) => lint.loaded(file, &mut unused),
        Impressions::Streamed(file) => {
            lint.streamed(file, &mut unused, &mut ImpressionsRead::default())
        }
    };
    read.is_ok()
        && lint.active_ids.contains(&SetKey::of(
            Some(&JsValue::String(id.to_owned())),
            usize::MAX,
        ))
}

/// The lint and doctor checks. A file read in pieces is read again only
/// where a repeated id or keyword set must be confirmed; an error when it
/// changed meanwhile or could not be read.
pub fn run(project: &Project, out: &mut Sink) -> Result<ImpressionsRead, StreamError> {
    required_files(project, out);
    let mut read = ImpressionsRead::default();
    let active_ids = match project.impressions_source() {
        Some(source) => {
            let mut lint = ImpressionLint::new(project, source);
            match source {
                Impressions::Loaded(file) => lint.loaded(file, out)?,
                Impressions::Streamed(file) => lint.streamed(file, out, &mut read)?,
            }
            read.routed = Some(lint.routed);
            lint.active_ids
        }
        None => HashSet::new(),
    };
    if let Some(file) = &project.feedback {
        feedback(file, &active_ids, out);
    }
    if let Some(text) = project.text(SUMMARY_PATH)
        && js::utf16_len(text) > SUMMARY_MAX_UNITS
    {
        out.add(
            "large-summary",
            Warning,
            SUMMARY_PATH,
            None,
            format!(
                "{} characters (over {SUMMARY_MAX_UNITS}); the summary is read first on every weak match, keep it compact",
                js::utf16_len(text)
            ),
        );
    }
    for record in &project.records {
        let kind = record.kind;
        if matches!(
            kind,
            RecordKind::Summary | RecordKind::Decision | RecordKind::OpenLoop
        ) {
            markdown_record(record, out);
        }
    }
    Ok(read)
}

fn required_files(project: &Project, out: &mut Sink) {
    if !project.agents_present {
        out.add(
            "missing-agents-md",
            Error,
            AGENTS_PATH,
            None,
            "AGENTS.md is missing: hosts read the recall and writeback rules there".into(),
        );
    }
    // Behind a link that is not followed, a required file is not there
    // for recall either (not initialized, no summary to fall back on): an
    // error, as a file that cannot be read is, not only a `symlink` warning.
    let unfollowed = |path: &str, link: &str| {
        if link == path {
            format!("{path} is a symbolic link that is not followed")
        } else {
            format!("{path} is reached through the symbolic link `{link}`, which is not followed")
        }
    };
    match project.presence(SUMMARY_PATH) {
        Presence::Here => {}
        Presence::Missing => out.add(
            "missing-summary",
            Error,
            SUMMARY_PATH,
            None,
            "memory/summary.md is missing: it is the first record read on a weak match".into(),
        ),
        Presence::Unfollowed(link) => out.add(
            "missing-summary",
            Error,
            SUMMARY_PATH,
            None,
            format!(
                "{}: recall reads no summary on a weak match",
                unfollowed(SUMMARY_PATH, &link)
            ),
        ),
    }
    if project.impressions_source().is_some() {
        return;
    }
    match project.presence(IMPRESSIONS_PATH) {
        Presence::Here => {}
        Presence::Missing => out.add(
            "missing-impressions",
            Error,
            IMPRESSIONS_PATH,
            None,
            "memory/impressions.jsonl is missing: recall has nothing to scan (level not_initialized)"
                .into(),
        ),
        Presence::Unfollowed(link) => out.add(
            "missing-impressions",
            Error,
            IMPRESSIONS_PATH,
            None,
            format!(
                "{}: recall has nothing to scan (level not_initialized)",
                unfollowed(IMPRESSIONS_PATH, &link)
            ),
        ),
    }
}

/// What one impression line shows alone, made on the pool (where its
/// parsed value is also freed), and what is compared across lines, kept
/// as hashes: the ids and keyword sets of tens of thousands of lines would
/// take as much memory as the file. A hash that is seen again is confirmed
/// on the lines themselves, so a collision never makes a finding.
struct LineCheck {
    findings: Vec<(&'static str, Severity, String)>,
    /// `None` when nothing more is checked on the line (not JSON, `null`).
    across: Option<AcrossLines>,
}

struct AcrossLines {
    id: u64,
    /// The id, when a feedback file will look it up among the active ones.
    active_id: Option<SetKey>,
    signature: Option<u64>,
    /// `record_path`, when it is a string.
    route: Option<String>,
    /// Active by its status (absent, falsy or `active`), for a route to
    /// an inactive record.
    active_status: bool,
}

/// Where a line is, to read it again: its number in a file held whole, or
/// its place in a file read in pieces.
#[derive(Debug, Clone, Copy)]
enum Place {
    Line(usize),
    At(LinePlace),
}

impl Place {
    fn line(&self) -> usize {
        match self {
            Place::Line(n) => *n,
            Place::At(p) => p.line,
        }
    }
}

/// A route's findings, worked out once for all the lines that share it.
struct Route {
    problem: Option<(&'static str, Severity, String)>,
    /// The record it leads to, inside the project.
    target: Option<String>,
    /// The status of that record when it is not active.
    inactive: Option<String>,
}

/// The checks across impression lines, fed a chunk of lines at a time.
struct ImpressionLint<'p> {
    project: &'p Project,
    source: Impressions<'p>,
    root_abs: String,
    want_active: bool,
    hasher: RandomState,
    ids: SeenOnce<SetKey>,
    signatures: SeenOnce<String>,
    active_ids: HashSet<SetKey>,
    // Thousands of impressions share a few hundred routes; each is
    // resolved and looked up on disk once.
    routes: HashMap<String, Route>,
    routed: HashSet<String>,
}

impl<'p> ImpressionLint<'p> {
    fn new(project: &'p Project, source: Impressions<'p>) -> Self {
        ImpressionLint {
            project,
            source,
            root_abs: project.absolute_root(),
            want_active: project.feedback.is_some(),
            hasher: RandomState::new(),
            ids: SeenOnce::default(),
            signatures: SeenOnce::default(),
            active_ids: HashSet::new(),
            routes: HashMap::new(),
            routed: HashSet::new(),
        }
    }

    fn loaded(&mut self, file: &JsonlFile, out: &mut Sink) -> Result<(), StreamError> {
        let parallel = crate::parallel::pays(file.lines.len());
        for chunk in file.lines.chunks(CHUNK) {
            let lines: Vec<(usize, &str)> = chunk.iter().map(|l| (l.line, l.raw())).collect();
            self.lines(&lines, parallel, |i| Place::Line(lines[i].0), out)?;
        }
        Ok(())
    }

    /// The lines of each piece checked on the pool beside the piece's
    /// safety scan.
    fn streamed(
        &mut self,
        file: &StreamedJsonl,
        out: &mut Sink,
        read: &mut ImpressionsRead,
    ) -> Result<(), StreamError> {
        let mut safety = safety::PieceScan::default();
        let mut failed = None;
        file.for_each_piece_with_bytes(|piece| {
            if failed.is_some() {
                return;
            }
            let lines: Vec<(usize, &str)> = piece.lines.iter().map(|l| (l.line, &*l.raw)).collect();
            let place = |i: usize| Place::At(piece.lines[i].place());
            let mut scan = || {
                let text = String::from_utf8_lossy(piece.bytes);
                let not_utf8 =
                    matches!(text, Cow::Owned(_)) || memchr::memchr(0, piece.bytes).is_some();
                safety.piece(piece.first_line, &text);
                not_utf8
            };
            let parallel = crate::parallel::pays(lines.len());
            let (not_utf8, checked) = if parallel {
                rayon::join(scan, || self.lines(&lines, true, place, out))
            } else {
                (scan(), self.lines(&lines, false, place, out))
            };
            read.not_utf8 |= not_utf8;
            if let Err(e) = checked {
                failed = Some(e);
            }
        })?;
        if let Some(e) = failed {
            return Err(e);
        }
        read.hits = safety.finish();
        Ok(())
    }

    /// Check `lines` (number, text), each alone on the pool when
    /// `parallel`, then across lines in order.
    fn lines(
        &mut self,
        lines: &[(usize, &str)],
        parallel: bool,
        place: impl Fn(usize) -> Place + Sync,
        out: &mut Sink,
    ) -> Result<(), StreamError> {
        let (hasher, want_active) = (&self.hasher, self.want_active);
        let each = |i: usize| {
            let (n, raw) = lines[i];
            (check_impression(n, raw, hasher, want_active), place(i))
        };
        let checked: Vec<(LineCheck, Place)> = if parallel {
            (0..lines.len()).into_par_iter().map(each).collect()
        } else {
            (0..lines.len()).map(each).collect()
        };
        for (&(n, raw), (checked, here)) in lines.iter().zip(checked) {
            self.across(n, raw, checked, here, out)?;
        }
        Ok(())
    }

    fn across(
        &mut self,
        n: usize,
        raw: &str,
        checked: LineCheck,
        here: Place,
        out: &mut Sink,
    ) -> Result<(), StreamError> {
        let source = self.source;
        let path = source.path();
        let mut add = |code, sev, msg: String| out.add(code, sev, path, Some(n), msg);
        for (code, severity, message) in checked.findings {
            add(code, severity, message);
        }
        let Some(across) = checked.across else {
            return Ok(());
        };
        if let Some(hash) = across.signature {
            let key = |_: usize, raw: &str| js::parse(raw).ok().and_then(|v| keyword_signature(&v));
            if let Some(first) = self.signatures.earlier(hash, n, raw, here, source, key)? {
                let first_id = reread(source, &first)?
                    .and_then(|raw| js::parse(&raw).ok())
                    .map(|v| show(v.get("id")))
                    .unwrap_or_default();
                add(
                    "duplicate-keyword-set",
                    Warning,
                    format!(
                        "same keyword set as line {} ({first_id}); routes this alike cannot be told apart",
                        first.line()
                    ),
                );
            }
        }
        let id_key = |n: usize, raw: &str| js::parse(raw).ok().map(|v| SetKey::of(v.get("id"), n));
        if self
            .ids
            .earlier(across.id, n, raw, here, source, id_key)?
            .is_some()
        {
            let id = js::parse(raw)
                .ok()
                .map(|v| show(v.get("id")))
                .unwrap_or_default();
            add(
                "duplicate-id",
                Error,
                format!("impression id {id} is used by an earlier line"),
            );
        }
        self.active_ids.extend(across.active_id);
        let Some(rp) = across.route else {
            return Ok(());
        };
        if !self.routes.contains_key(&rp) {
            let target = paths::resolve_from("", &rp);
            let inactive = target
                .as_deref()
                .and_then(|t| self.project.record(t))
                .filter(|r| !r.is_active())
                .map(|r| r.status().to_owned());
            let route = Route {
                problem: route_problem(self.project, &self.root_abs, &rp),
                target,
                inactive,
            };
            self.routes.insert(rp.clone(), route);
        }
        let route = &self.routes[&rp];
        if let Some((code, severity, message)) = &route.problem {
            add(*code, *severity, message.clone());
        }
        if let Some(target) = &route.target {
            if let Some(status) = &route.inactive
                && across.active_status
            {
                add(
                    "route-to-inactive",
                    Warning,
                    format!(
                        "an active impression routes to `{target}`, whose status is `{status}`; recall will load an outdated record"
                    ),
                );
            }
            if !self.routed.contains(target) {
                self.routed.insert(target.clone());
            }
        }
        Ok(())
    }
}

/// The text of the line at `place`, as the scan read it.
fn reread<'a>(source: Impressions<'a>, place: &Place) -> Result<Option<Cow<'a, str>>, StreamError> {
    match (source, place) {
        (Impressions::Loaded(file), _) => {
            Ok(file.line(place.line()).map(|l| Cow::Borrowed(l.raw())))
        }
        (Impressions::Streamed(file), Place::At(at)) => {
            file.read_line(at).map(|t| Some(Cow::Owned(t)))
        }
        (Impressions::Streamed(_), Place::Line(_)) => Ok(None),
    }
}

/// Values met before, by hash: the first line of each hash, and the values
/// whose hash an unequal earlier value already had.
struct SeenOnce<K> {
    first: HashMap<u64, Place>,
    collided: HashMap<K, Place>,
}

impl<K> Default for SeenOnce<K> {
    fn default() -> Self {
        SeenOnce {
            first: HashMap::new(),
            collided: HashMap::new(),
        }
    }
}

impl<K: Eq + std::hash::Hash> SeenOnce<K> {
    /// Where the earlier line holding the value of line `n` (text `raw`,
    /// at `here`) whose hash is `hash` is, or `None` after noting it as
    /// seen. `key` makes a line's value again, only when its hash was seen
    /// before; the earlier line is read again for it.
    fn earlier(
        &mut self,
        hash: u64,
        n: usize,
        raw: &str,
        here: Place,
        source: Impressions<'_>,
        key: impl Fn(usize, &str) -> Option<K>,
    ) -> Result<Option<Place>, StreamError> {
        let first = *self.first.entry(hash).or_insert(here);
        if first.line() == n {
            return Ok(None);
        }
        let Some(value) = key(n, raw) else {
            return Ok(None);
        };
        let there = reread(source, &first)?.and_then(|raw| key(first.line(), &raw));
        if there.as_ref() == Some(&value) {
            return Ok(Some(first));
        }
        match self.collided.get(&value) {
            Some(&earlier) => Ok(Some(earlier)),
            None => {
                self.collided.insert(value, here);
                Ok(None)
            }
        }
    }
}

/// The `bad-weight` message: the value as the line writes it (`1e400`,
/// which a JSON writer would print as `null`), and what recall does with
/// it: a number is scored with as it is (out of range, or Infinity, as the
/// reference reads it), anything else is replaced by 0.5.
fn bad_weight(raw: &str, w: &JsValue) -> String {
    const SHOWN: usize = 40;
    let written = js::object_value_spans(raw)
        .and_then(|spans| spans.into_iter().rev().find(|(k, _)| k == "weight"))
        .map(|(_, span)| raw[span].to_owned())
        .unwrap_or_else(|| serde_json::to_string(w).unwrap_or_default());
    let written = match written.char_indices().nth(SHOWN) {
        Some((cut, _)) => format!("{}…", &written[..cut]),
        None => written,
    };
    let recall = match w.as_number() {
        Some(n) if !n.is_finite() => format!(
            "recall reads it as {} and scores with that",
            js::number_to_string(n)
        ),
        Some(_) => "recall scores with it as it is".to_owned(),
        None => "recall uses 0.5 for a weight that is not a number".to_owned(),
    };
    format!("weight {written} must be a number between 0 and 1 ({recall})")
}

/// The checks of one impression line that need no other line.
fn check_impression(n: usize, raw: &str, hasher: &RandomState, want_active: bool) -> LineCheck {
    let mut findings = Vec::new();
    let mut add = |code, sev, msg: String| findings.push((code, sev, msg));
    let Some(record) = line_value(js::parse(raw), ("impression", "an impression"), &mut add) else {
        return LineCheck {
            findings,
            across: None,
        };
    };
    let get = |k: &str| record.get(k);
    for field in REQUIRED_IMPRESSION_FIELDS {
        if !matches!(get(field), Some(JsValue::String(s)) if !js::js_trim(s).is_empty()) {
            add(
                "impression-missing-field",
                Error,
                format!("`{field}` is missing or not a non-empty string"),
            );
        }
    }
    if !is_one(get("schema_version")) {
        add(
            "schema-version",
            Warning,
            "`schema_version` should be 1 (it is missing or different)".into(),
        );
    }
    if let Some(JsValue::String(scope)) = get("scope")
        && !scope.starts_with("project:")
    {
        add(
            "scope-not-project",
            Warning,
            format!("scope `{scope}` should be `project:<project-id>`"),
        );
    }
    if let Some(status) = get("status")
        && !matches!(status.as_str(), Some(s) if VALID_STATUSES.contains(&s))
    {
        add(
            "bad-status",
            Error,
            format!(
                "status `{}` must be active, superseded or archived",
                status.join_string()
            ),
        );
    }
    if let Some(w) = get("weight")
        && !matches!(w.as_number(), Some(x) if (0.0..=1.0).contains(&x))
    {
        add("bad-weight", Error, bad_weight(raw, w));
    }
    if let Some(v @ JsValue::String(s)) = get("updated")
        && !is_iso_date(Some(v))
    {
        add(
            "bad-date",
            Warning,
            format!("updated `{s}` should be YYYY-MM-DD or an ISO timestamp"),
        );
    }
    let signature = keywords(&record, &mut add);
    if get("aliases").is_some() && !is_string_array(get("aliases")) {
        add(
            "bad-aliases",
            Error,
            "aliases must be an array of non-empty strings when present".into(),
        );
    }
    let id_key = SetKey::of(get("id"), n);
    let active_status =
        !js::truthy(get("status")) || get("status").and_then(JsValue::as_str) == Some("active");
    let active = js::truthy(get("id")) && active_status;
    let across = AcrossLines {
        id: hasher.hash_one(&id_key),
        signature: signature.map(|s| hasher.hash_one(s)),
        route: match get("record_path") {
            Some(JsValue::String(rp)) => Some(rp.clone()),
            _ => None,
        },
        active_status,
        active_id: (want_active && active).then_some(id_key),
    };
    LineCheck {
        findings,
        across: Some(across),
    }
}

fn show(v: Option<&JsValue>) -> String {
    match v {
        None => "(none)".into(),
        Some(v) => serde_json::to_string(v).unwrap_or_default(),
    }
}

/// The keyword findings of one line; returns its keyword set as one
/// text, when it has one.
fn keywords(
    record: &JsValue,
    add: &mut impl FnMut(&'static str, Severity, String),
) -> Option<String> {
    let kw = record.get("keywords");
    let lint_ok = is_string_array(kw);
    let doctor_ok = matches!(kw, Some(JsValue::Array(items)) if !items.is_empty());
    if !lint_ok || !doctor_ok {
        add(
            "bad-keywords",
            Error,
            "keywords must be a non-empty array of non-empty strings".into(),
        );
    }
    let normalized = normalized_keywords(record)?;
    let unique = distinct(&normalized);
    if normalized.len() < 3 {
        add(
            "few-keywords",
            Warning,
            format!("{} cue terms; use at least 3", normalized.len()),
        );
    }
    if normalized.len() > 12 {
        add(
            "many-keywords",
            Warning,
            format!("{} cue terms; stay at or below 12", normalized.len()),
        );
    }
    if unique.len() != normalized.len() {
        add(
            "duplicate-keywords",
            Warning,
            "keywords repeat a cue term (compared trimmed and lower-cased)".into(),
        );
    }
    let generic: Vec<&str> = normalized
        .iter()
        .map(String::as_str)
        .filter(|k| GENERIC_KEYWORDS.contains(k))
        .collect();
    if generic.len() >= 3 {
        add(
            "generic-keywords",
            Warning,
            format!("too many generic cue terms: {}", generic.join(", ")),
        );
    }
    signature(unique)
}

/// The keywords trimmed and lower-cased, without the empty ones; `None`
/// unless they are an array of non-empty strings.
fn normalized_keywords(record: &JsValue) -> Option<Vec<String>> {
    let kw = record.get("keywords");
    if !is_string_array(kw) {
        return None;
    }
    let Some(JsValue::Array(items)) = kw else {
        return None;
    };
    Some(
        items
            .iter()
            .filter_map(JsValue::as_str)
            .map(|k| js::js_trim(k).to_lowercase())
            .filter(|k| !k.is_empty())
            .collect(),
    )
}

/// Each keyword once, in first-seen order.
fn distinct(normalized: &[String]) -> Vec<&str> {
    // A set, not a scan of what was kept: one line may carry hundreds of
    // thousands of keywords.
    let mut seen: HashSet<&str> = HashSet::with_capacity(normalized.len());
    normalized
        .iter()
        .map(String::as_str)
        .filter(|k| seen.insert(k))
        .collect()
}

/// The distinct keywords sorted and joined: equal for lines whose
/// keywords differ only in order, case, spacing or repeats.
fn signature(mut unique: Vec<&str>) -> Option<String> {
    crate::shared_sort::sort_by(&mut unique, |a, b| js::cmp_utf16(a, b));
    let signature = unique.join("|");
    (!signature.is_empty()).then_some(signature)
}

/// The keyword set of a parsed line, as [`keywords`] returns it.
fn keyword_signature(record: &JsValue) -> Option<String> {
    signature(distinct(&normalized_keywords(record)?))
}

/// What is wrong with an impression's `record_path`, if anything.
fn route_problem(
    project: &Project,
    root_abs: &str,
    rp: &str,
) -> Option<(&'static str, Severity, String)> {
    // Backslashes are plain characters here, so `../proj\\x` (which the
    // reference's prefix test lets through on Unix) counts as outside:
    // nothing outside the project is looked at.
    match paths::reference_resolve(root_abs, rp) {
        None => Some((
            "record-path-outside",
            Error,
            format!("record_path `{rp}` leaves the project; it must stay inside"),
        )),
        Some(rel) => match project.presence(&rel) {
            Presence::Here => None,
            Presence::Missing => Some((
                "record-path-missing",
                Warning,
                format!("record_path `{rp}` does not exist"),
            )),
            // Recall would name a record that no membank command reads
            // (and a writeback refuses the route, as it refuses the record).
            Presence::Unfollowed(link) => Some((
                "record-path-missing",
                Warning,
                format!(
                    "record_path `{rp}` is reached through the symbolic link `{link}`, \
                     which is not followed; membank reads no record there"
                ),
            )),
        },
    }
}

/// The JSON value of one line, or `None` when nothing more can be checked
/// on it; the reason is reported. A non-object still gets the field checks
/// (as in the reference tools), except `null`, on which they stop.
fn line_value(
    value: Result<JsValue, js::ParseError>,
    (ignored, object): (&str, &str),
    add: &mut impl FnMut(&'static str, Severity, String),
) -> Option<JsValue> {
    let record = match value {
        Err(e) => {
            add(
                "invalid-jsonl",
                Error,
                format!("not valid JSON: {e}; this {ignored} is ignored"),
            );
            return None;
        }
        Ok(v) => v,
    };
    if !matches!(record, JsValue::Object(_)) {
        add(
            "not-an-object",
            Error,
            format!("the line is {}, not {object} object", record.type_name()),
        );
        if record == JsValue::Null {
            return None;
        }
    }
    Some(record)
}

fn feedback(file: &JsonlFile, active_ids: &HashSet<SetKey>, out: &mut Sink) {
    for (line, value) in file.map_in_order(JsonlLine::value) {
        let n = line.line;
        let mut add = |code, sev, msg: String| out.add(code, sev, &file.path, Some(n), msg);
        let Some(record) = line_value(value, ("feedback line", "a feedback"), &mut add) else {
            continue;
        };
        let get = |k: &str| record.get(k);
        let mut add = |code, sev, msg: String| out.add(code, sev, FEEDBACK_PATH, Some(n), msg);
        if !is_one(get("schema_version")) {
            add(
                "schema-version",
                Warning,
                "`schema_version` should be 1 (it is missing or different)".into(),
            );
        }
        if !matches!(get("outcome").and_then(JsValue::as_str), Some(o) if VALID_OUTCOMES.contains(&o))
        {
            add(
                "bad-outcome",
                Error,
                format!(
                    "outcome {} must be helpful, irrelevant, missed or overloaded",
                    show(get("outcome"))
                ),
            );
        }
        if !matches!(get("query"), Some(JsValue::String(q)) if !js::js_trim(q).is_empty()) {
            add(
                "bad-query",
                Error,
                "query must be a non-empty string".into(),
            );
        }
        if let Some(m) = get("matched_id")
            && m.as_str().is_none()
        {
            add(
                "bad-matched-id",
                Error,
                format!(
                    "matched_id must be a string when present, not {}",
                    m.type_name()
                ),
            );
        }
        if !is_iso_date(get("created")) {
            add(
                "bad-date",
                Warning,
                format!(
                    "created {} should be YYYY-MM-DD or an ISO timestamp",
                    show(get("created"))
                ),
            );
        }
        if let Some(m) = get("matched_id")
            && m.truthy()
            && m.as_str() != Some("unmatched")
            && !active_ids.contains(&SetKey::of(Some(m), usize::MAX))
        {
            add(
                "unresolved-matched-id",
                Warning,
                format!(
                    "matched_id {} is not the id of an active impression",
                    show(Some(m))
                ),
            );
        }
        if let Some(JsValue::String(q)) = get("query")
            && js::utf16_len(q) > QUERY_MAX_UNITS
        {
            add(
                "long-query",
                Warning,
                format!(
                    "query is {} characters (over {QUERY_MAX_UNITS}); store a sanitized cue, not the prompt",
                    js::utf16_len(q)
                ),
            );
        }
    }
}

/// The reference lint's checks of one Markdown record.
fn markdown_record(record: &Record, out: &mut Sink) {
    let path = &record.path;
    let Some(fm) = &record.frontmatter else {
        out.add(
            "missing-frontmatter",
            Warning,
            path,
            Some(1),
            "no YAML frontmatter: start the file with `---`, the id/title/status/scope/updated keys and a closing `---` line"
                .into(),
        );
        return;
    };
    let key_line = |key: &str| key_line(&record.text, key);
    for field in REQUIRED_RECORD_FIELDS {
        if fm.non_empty(field).is_none() {
            out.add(
                "record-missing-field",
                Warning,
                path,
                key_line(field).or(Some(1)),
                format!("frontmatter has no `{field}`"),
            );
        }
    }
    if let Some(scope) = fm.non_empty("scope")
        && !scope.starts_with("project:")
    {
        out.add(
            "scope-not-project",
            Warning,
            path,
            key_line("scope"),
            format!("scope `{scope}` should be `project:<project-id>`"),
        );
    }
    if let Some(status) = fm.non_empty("status")
        && !VALID_STATUSES.contains(&status)
    {
        out.add(
            "bad-status",
            Error,
            path,
            key_line("status"),
            format!("status `{status}` must be active, superseded or archived"),
        );
    }
    if let Some(updated) = fm.non_empty("updated")
        && !ISO_DATE.is_match(updated)
    {
        out.add(
            "bad-date",
            Warning,
            path,
            key_line("updated"),
            format!("updated `{updated}` should be YYYY-MM-DD or an ISO timestamp"),
        );
    }
    if fm.get("status") == Some("superseded") && fm.non_empty("superseded_by").is_none() {
        out.add(
            "superseded-without-successor",
            Warning,
            path,
            key_line("status"),
            "status is superseded but there is no `superseded_by` naming the newer record".into(),
        );
    }
    let headings: &[&str] = match record.kind {
        RecordKind::Decision => &["## Decision", "## Rationale", "## Consequences"],
        RecordKind::OpenLoop => &[
            "## Owner",
            "## Opened",
            "## Next trigger",
            "## Why it matters",
        ],
        _ => &[],
    };
    for h in headings {
        if !record.text.contains(h) {
            out.add(
                "missing-section",
                Warning,
                path,
                None,
                format!("no `{h}` section"),
            );
        }
    }
}

/// The line of `key:` in a file's frontmatter.
pub fn key_line(text: &str, key: &str) -> Option<usize> {
    let mut n = 0;
    for line in text.split('\n') {
        n += 1;
        if n > 1 && line.trim_end() == "---" {
            return None;
        }
        if line.strip_prefix(key).is_some_and(|r| r.starts_with(':')) {
            return Some(n);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use crate::dejavu::js::{self, SetKey};
    use crate::dejavu::jsonl::JsonlFile;
    use crate::dejavu::recall::Impressions;
    use crate::dejavu::stream::StreamedJsonl;
    use crate::dejavu::{IMPRESSIONS_PATH, Project, SUMMARY_PATH};

    /// The keyword findings (code, line) of a project whose impressions
    /// file holds `lines`.
    fn keyword_findings(lines: &[String]) -> Vec<(&'static str, usize)> {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("memory")).unwrap();
        std::fs::write(tmp.path().join(SUMMARY_PATH), "# Summary\n").unwrap();
        std::fs::write(tmp.path().join(IMPRESSIONS_PATH), lines.join("\n")).unwrap();
        let project = Project::load_root(tmp.path().to_path_buf());
        let mut found: Vec<_> = super::super::check(&project)
            .findings
            .iter()
            .filter(|f| f.code().contains("keyword"))
            .map(|f| (f.code(), f.line().unwrap_or(0)))
            .collect();
        found.sort();
        found
    }

    fn line(id: &str, keywords: &[&str]) -> String {
        serde_json::json!({ "id": id, "keywords": keywords }).to_string()
    }

    /// The weight is named as the line writes it, and the message says
    /// what recall does with it: 1e400 is Infinity to recall, not 0.5.
    #[test]
    fn a_bad_weight_is_named_as_written_with_what_recall_does() {
        let message = |raw: &str| {
            let mut found = super::check_impression(1, raw, &Default::default(), false).findings;
            found.retain(|f| f.0 == "bad-weight");
            found.pop().map(|f| f.2).unwrap_or_default()
        };
        assert_eq!(
            message(r#"{"id":"a","weight":1e400}"#),
            "weight 1e400 must be a number between 0 and 1 (recall reads it as Infinity and \
             scores with that)"
        );
        assert_eq!(
            message(r#"{"id":"a","weight": 1.50 }"#),
            "weight 1.50 must be a number between 0 and 1 (recall scores with it as it is)"
        );
        assert_eq!(
            message(r#"{"id":"a","weight":"high"}"#),
            "weight \"high\" must be a number between 0 and 1 (recall uses 0.5 for a weight \
             that is not a number)"
        );
        assert!(message(r#"{"id":"a","weight":0.5}"#).is_empty());
    }

    #[test]
    fn repeated_keywords_and_keyword_sets_are_found_as_before() {
        let found = keyword_findings(&[
            line("a", &["Sync", " sync ", "settings"]),
            line("b", &["alpha", "beta", "gamma"]),
            line("c", &["GAMMA", "alpha", "Beta"]),
            line("d", &["settings", "sync", "settings"]),
            line("e", &["one", "two", "three"]),
        ]);
        assert_eq!(
            found,
            vec![
                ("duplicate-keyword-set", 3),
                ("duplicate-keyword-set", 4),
                ("duplicate-keywords", 1),
                ("duplicate-keywords", 4),
            ]
        );
    }

    #[test]
    fn repeated_ids_are_found_by_javascript_set_equality() {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::create_dir(tmp.path().join("memory")).unwrap();
        let lines = [
            r#"{"id":"x","keywords":["a","b","c"]}"#,
            r#"{"id":1,"keywords":["c"," B","a","a"]}"#,
            r#"{"id":"1"}"#,
            r#"{"id":0}"#,
            r#"{"id":-0}"#,
            r#"{"id":[1]}"#,
            r#"{"id":[1]}"#,
            r#"{"keywords":["q","r","s"]}"#,
            r#"[]"#,
            r#"{"id":"x"}"#,
        ];
        std::fs::write(tmp.path().join(IMPRESSIONS_PATH), lines.join("\n")).unwrap();
        let project = Project::load_root(tmp.path().to_path_buf());
        let mut found: Vec<(usize, String)> = super::super::check(&project)
            .findings
            .iter()
            .filter(|f| f.code().starts_with("duplicate-") && f.code() != "duplicate-keywords")
            .map(|f| (f.line().unwrap_or(0), f.message().to_string()))
            .collect();
        found.sort();
        let lines: Vec<usize> = found.iter().map(|(l, _)| *l).collect();
        assert_eq!(lines, vec![2, 5, 9, 10]);
        assert_eq!(
            found[0].1,
            "same keyword set as line 1 (\"x\"); routes this alike cannot be told apart"
        );
        assert_eq!(found[3].1, "impression id \"x\" is used by an earlier line");
    }

    #[test]
    fn values_whose_hashes_collide_are_told_apart_on_the_lines() {
        let file = JsonlFile::parse(
            "m.jsonl",
            ["\"a\"", "\"b\"", "\"a\"", "\"b\"", "\"c\""].join("\n"),
        );
        let mut seen = super::SeenOnce::default();
        let text = |_: usize, raw: &str| {
            js::parse(raw)
                .ok()
                .and_then(|v| v.as_str().map(str::to_owned))
        };
        // Every value given the same hash.
        let earlier: Vec<Option<usize>> = file
            .lines
            .iter()
            .map(|l| {
                let here = super::Place::Line(l.line);
                let source = Impressions::Loaded(&file);
                let found = seen.earlier(0, l.line, l.raw(), here, source, text);
                found.unwrap().map(|p| p.line())
            })
            .collect();
        assert_eq!(earlier, vec![None, None, Some(1), Some(2), None]);
    }

    #[test]
    fn an_earlier_line_changed_before_it_is_read_again_is_an_error() {
        let tmp = tempfile::tempdir().unwrap();
        let path = tmp.path().join("impressions.jsonl");
        std::fs::write(&path, "{\"id\":\"a\"}\n{\"id\":\"a\"}\n").unwrap();
        let file = StreamedJsonl::new(
            IMPRESSIONS_PATH.into(),
            std::fs::File::open(&path).unwrap(),
            26,
            1 << 20,
        );
        let mut lines = Vec::new();
        file.for_each_piece(|piece| {
            lines.extend(piece.iter().map(|l| (l.line, l.raw.to_string(), l.place())));
        })
        .unwrap();
        let id = |n: usize, raw: &str| js::parse(raw).ok().map(|v| SetKey::of(v.get("id"), n));
        let source = Impressions::Streamed(&file);
        let mut seen = super::SeenOnce::default();
        let (n, raw, place) = &lines[0];
        let first = seen.earlier(7, *n, raw, super::Place::At(*place), source, id);
        assert!(first.unwrap().is_none());
        // The first line, rewritten after the scan read it.
        std::fs::write(&path, "{\"id\":\"b\"}\n{\"id\":\"a\"}\n").unwrap();
        let (n, raw, place) = &lines[1];
        let e = seen
            .earlier(7, *n, raw, super::Place::At(*place), source, id)
            .unwrap_err();
        assert_eq!(e.line, Some(1));
        assert!(e.to_string().contains("changed while it was read"), "{e}");
    }

    #[test]
    fn a_line_with_four_hundred_thousand_keywords_is_checked_quickly() {
        // Comparing each keyword with every earlier one took minutes here.
        let mut keywords: Vec<String> = (0..400_000).map(|i| format!("k{i}")).collect();
        keywords.push("K7".into());
        let refs: Vec<&str> = keywords.iter().map(String::as_str).collect();
        let found = keyword_findings(&[line("big", &refs)]);
        assert_eq!(found, vec![("duplicate-keywords", 1), ("many-keywords", 1)]);
    }
}
