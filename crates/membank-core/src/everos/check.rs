//! The checks everos itself never makes, with stable codes and file:line.
//!
//! A root that everos wrote has no errors. Errors are things everos reads
//! wrongly or not at all; warnings are inconsistencies it tolerates; info is
//! worth knowing.

use std::collections::HashMap;
use std::path::Path;

use jiff::civil::Date;
use yaml_serde::{Mapping, Value};

use super::entries::{self, EntryId};
use super::frontmatter::{self, Head, Split};
use super::lax_time;
use super::load::LoadFilter;
use super::paths::{DailyKind, FileKind, OwnerKind};
use super::{MemFile, MemoryRoot, stream};
use crate::health::{Finding, HealthReport, Severity};

/// Every code `check` can emit, with its severity.
pub const CODES: &[(&str, Severity)] = &[
    ("everos-unreadable", Severity::Error),
    ("everos-not-utf8", Severity::Error),
    ("everos-bom", Severity::Error),
    ("everos-missing-frontmatter", Severity::Error),
    ("everos-unparsable-yaml", Severity::Error),
    ("everos-missing-field", Severity::Error),
    ("everos-bad-field", Severity::Error),
    ("everos-owner-mismatch", Severity::Error),
    ("everos-bad-file-date", Severity::Error),
    ("everos-date-mismatch", Severity::Error),
    ("everos-unclosed-marker", Severity::Error),
    ("everos-nested-marker", Severity::Error),
    ("everos-bad-entry-id", Severity::Error),
    ("everos-duplicate-entry-id", Severity::Error),
    ("everos-entry-id-date", Severity::Error),
    ("everos-entry-count", Severity::Error),
    ("everos-skill-without-main", Severity::Error),
    ("everos-link", Severity::Warning),
    ("everos-sequence-gap", Severity::Warning),
    ("everos-sequence-order", Severity::Warning),
    ("everos-appended-before-day", Severity::Warning),
    ("everos-empty-entry", Severity::Warning),
    ("everos-wrong-kind-file", Severity::Warning),
    ("everos-tmp-leftover", Severity::Warning),
    ("everos-stray-close-marker", Severity::Warning),
    ("everos-skill-name-mismatch", Severity::Warning),
    ("everos-unknown-file", Severity::Info),
    ("everos-entry-id-prefix", Severity::Info),
    ("everos-short-sequence", Severity::Info),
    ("everos-text-outside-entries", Severity::Info),
];

fn severity_of(code: &str) -> Severity {
    CODES
        .iter()
        .find(|(c, _)| *c == code)
        .map_or(Severity::Error, |(_, s)| *s)
}

struct Out<'a> {
    path: &'a str,
    findings: Vec<Finding>,
}

impl Out<'_> {
    fn push(&mut self, code: &'static str, line: Option<usize>, message: String) {
        self.findings.push(Finding::new(
            code,
            severity_of(code),
            self.path,
            line,
            message,
        ));
    }
}

/// Run every check over a loaded root.
pub fn check(root: &MemoryRoot) -> HealthReport {
    check_where(root, |_| true)
}

/// [`check`] as the root is read, one window of files at a time: each
/// file's findings are made on the thread that read it and the file is
/// dropped, so only the findings and the list of paths are ever held.
/// The report is [`check`]'s, and the root comes back without its files.
pub fn check_streamed(root: &Path) -> Result<(MemoryRoot, HealthReport), String> {
    check_streamed_where(root, |_| true)
}

/// [`check_streamed`] reading only the files whose relative path `wanted`
/// accepts (a `--path`): every finding about such a file is the whole
/// root's, since a file's checks look at nothing else of the root but
/// which paths exist, and the walk lists them all. The findings of the
/// walk and of the skill folders are all kept, for the caller to filter.
pub fn check_streamed_where(
    root: &Path,
    wanted: impl Fn(&str) -> bool,
) -> Result<(MemoryRoot, HealthReport), String> {
    let walked = stream::walk(root, &LoadFilter::default())?;
    let mut findings: Vec<Finding> = Vec::new();
    let problems = walked.read_where(
        wanted,
        |_, f| {
            let mut out = Out {
                path: &f.rel_path,
                findings: Vec::new(),
            };
            file_findings(&|rel| walked.has_file(rel), &f, &mut out);
            out.findings
        },
        |found| {
            findings.extend(found);
            true
        },
    );
    whole_root_findings(walked.skill_dirs(), &mut findings);
    findings.extend(problems.iter().cloned());
    Ok((walked.listing(problems), HealthReport::new(findings)))
}

/// [`check`] over only the loaded files whose relative path `wanted`
/// accepts, for a server that holds the root and is asked about one
/// part of it: each such file's findings are the whole root's; the
/// root's problems and skill folders are all kept.
pub fn check_where(root: &MemoryRoot, wanted: impl Fn(&str) -> bool + Sync) -> HealthReport {
    use rayon::prelude::*;
    let mut findings: Vec<Finding> = root
        .files
        .par_iter()
        .filter(|f| wanted(&f.rel_path))
        .flat_map_iter(|f| {
            let mut out = Out {
                path: &f.rel_path,
                findings: Vec::new(),
            };
            file_findings(&|rel| root.file(rel).is_some(), f, &mut out);
            out.findings
        })
        .collect();
    whole_root_findings(&root.skill_dirs, &mut findings);
    findings.extend(root.problems.iter().cloned());
    HealthReport::new(findings)
}

/// What only the whole root shows: skill folders without their main file.
fn whole_root_findings(skill_dirs: &[(String, bool)], findings: &mut Vec<Finding>) {
    for (dir, has_main) in skill_dirs {
        if !has_main {
            findings.push(Finding::new(
                "everos-skill-without-main",
                severity_of("everos-skill-without-main"),
                dir.clone(),
                None,
                "a skill folder without SKILL.md; everos finds no skill here",
            ));
        }
    }
}

/// One file's findings; `has_file` says whether the root has a path.
fn file_findings(has_file: &dyn Fn(&str) -> bool, f: &MemFile, out: &mut Out) {
    match &f.place.kind {
        FileKind::TempWrite(target) => {
            let dir = f.rel_path.rsplit_once('/').map_or("", |(d, _)| d);
            let target_rel = if dir.is_empty() {
                target.clone()
            } else {
                format!("{dir}/{target}")
            };
            let exists = has_file(&target_rel);
            out.push(
                "everos-tmp-leftover",
                None,
                format!(
                    "left by a crashed atomic write meant to replace {target_rel}{}; \
                     everos never reads it",
                    if exists {
                        ""
                    } else {
                        " (which does not exist)"
                    }
                ),
            );
        }
        FileKind::WrongKind(kind) => out.push(
            "everos-wrong-kind-file",
            None,
            format!(
                "not a {} file ({}-YYYY-MM-DD.md) in {}/; everos does not read it",
                kind.as_str(),
                kind.file_prefix(),
                kind.dir_name()
            ),
        ),
        FileKind::Unknown(why) => out.push(
            "everos-unknown-file",
            None,
            format!("outside the layout everos writes: {why}"),
        ),
        FileKind::Daily(kind, date) => {
            if let Err(bad) = date {
                out.push(
                    "everos-bad-file-date",
                    None,
                    format!(
                        "the file name's date {} is not a real YYYY-MM-DD date",
                        crate::text::quoted(bad)
                    ),
                );
            }
            if let Some(map) = head_findings(f, out) {
                daily_frontmatter(f, *kind, date.as_ref().ok().copied(), map, out);
            }
            // everos reads no entry of a file it cannot parse: its markers
            // are neither entries nor strays until the YAML is mended.
            if f.head.as_ref().and_then(Split::unparsable).is_none() {
                entry_findings(f, *kind, date.as_ref().ok().copied(), out);
            }
        }
        FileKind::Skill => {
            if let Some(map) = head_findings(f, out) {
                let owner = OwnerKind::Agent;
                base_fields(f, map, owner, Some("agent_skill"), out);
                for key in ["name", "description", "confidence", "maturity_score"] {
                    required(f, map, key, out);
                }
                for key in ["name", "description"] {
                    expect_str(f, map, key, out);
                }
                if let (Some(name), Some(skill)) =
                    (frontmatter::text_of(map, "name"), f.place.skill.as_deref())
                    && name != skill
                {
                    let line = key_line(f, "name");
                    out.push(
                        "everos-skill-name-mismatch",
                        Some(line),
                        format!(
                            "name {} but the folder is skill_{skill}",
                            crate::text::quoted(&name)
                        ),
                    );
                }
            }
        }
        FileKind::Single(name) => {
            if let Some(map) = head_findings(f, out) {
                let owner = f.place.owner.as_ref().map_or(OwnerKind::User, |o| o.0);
                let ty = (*name == "user.md").then_some("user_profile");
                base_fields(f, map, owner, ty, out);
            }
        }
        FileKind::KnowledgeDocument | FileKind::KnowledgeTopic => {
            if let Some(map) = head_findings(f, out) {
                let ty = if f.place.kind == FileKind::KnowledgeDocument {
                    "knowledge_document"
                } else {
                    "knowledge_topic"
                };
                required(f, map, "id", out);
                expect_str(f, map, "id", out);
                for key in ["type", "schema_version"] {
                    not_null(f, map, key, out);
                }
                expect_text(f, map, "type", ty, out);
            }
        }
        FileKind::SkillReference | FileKind::SkillScript | FileKind::System(_) => {}
    }
}

fn key_line(f: &MemFile, key: &str) -> usize {
    match f.head.as_ref().map(|h| &h.head) {
        Some(Head::Block { yaml, .. }) => frontmatter::key_line(&f.text, yaml, key, 1),
        _ => 1,
    }
}

/// Frontmatter presence and YAML; the mapping when there is one.
fn head_findings<'a>(f: &'a MemFile, out: &mut Out) -> Option<&'a Mapping> {
    if f.had_bom {
        out.push(
            "everos-bom",
            Some(1),
            "starts with a byte-order mark; everos reads it as text and sees no frontmatter"
                .to_owned(),
        );
        return None;
    }
    let head = f.head.as_ref()?;
    match &head.head {
        Head::Missing { unclosed } => {
            let message = if *unclosed {
                "the frontmatter's opening --- is never closed by a --- line".to_owned()
            } else {
                "no frontmatter: the file must start with a --- line".to_owned()
            };
            out.push("everos-missing-frontmatter", Some(1), message);
            None
        }
        // YAML that is a list or a scalar parses; everos takes it for no
        // frontmatter and reads the whole file as the body.
        Head::Block { parsed: Err(e), .. } if e.message.contains("not a mapping") => {
            out.push(
                "everos-missing-frontmatter",
                Some(1),
                format!(
                    "{}: everos takes it for no frontmatter and reads the whole file as the body",
                    e.message
                ),
            );
            None
        }
        // A daily log's is reported where it is read, with its entries
        // left unread (see `load::read_file`).
        Head::Block { parsed: Err(_), .. } if f.place.daily().is_some() => None,
        Head::Block { parsed: Err(e), .. } => {
            out.push(
                "everos-unparsable-yaml",
                e.line.or(Some(1)),
                e.message.clone(),
            );
            None
        }
        Head::Block { parsed: Ok(m), .. } => Some(m),
    }
}

/// A field the schema defaults when it is left out, but that may not be
/// written as null.
fn not_null(f: &MemFile, map: &Mapping, key: &str, out: &mut Out) {
    if map.get(key).is_some_and(Value::is_null) {
        out.push(
            "everos-bad-field",
            Some(key_line(f, key)),
            format!("{key} is null; leave it out for everos's default, or give a value"),
        );
    }
}

fn required(f: &MemFile, map: &Mapping, key: &str, out: &mut Out) -> bool {
    if map.get(key).is_some_and(|v| !v.is_null()) {
        return true;
    }
    out.push(
        "everos-missing-field",
        Some(1),
        format!("the frontmatter has no {key}"),
    );
    let _ = f;
    false
}

fn expect_text(f: &MemFile, map: &Mapping, key: &str, want: &str, out: &mut Out) {
    if let Some(v) = map.get(key).filter(|v| !v.is_null())
        && v.as_str() != Some(want)
    {
        out.push(
            "everos-bad-field",
            Some(key_line(f, key)),
            format!("{key} is {} but must be {want:?}", shown(v)),
        );
    }
}

fn shown(v: &Value) -> String {
    match crate::frontmatter::scalar_text(v) {
        Some(s) => crate::text::quoted(&s),
        None => "not a single value".to_owned(),
    }
}

/// An `int` field's value as everos's schemas (pydantic v2, lax mode)
/// take it: a whole number, a float with no fraction (`2.0`), a boolean
/// (1 or 0), or text that is one of those as pydantic reads text (see
/// [`lax_int_text`]). `None` for anything pydantic refuses. Beyond the
/// range of `i128` it saturates: only equality and sign are asked of it.
fn int_of(v: &Value) -> Option<i128> {
    match v {
        Value::Number(n) => n
            .as_i64()
            .map(i128::from)
            .or_else(|| n.as_u64().map(i128::from))
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.is_finite() && f.fract() == 0.0)
                    .map(|f| f as i128)
            }),
        Value::Bool(b) => Some(i128::from(*b)),
        Value::String(s) => lax_int_text(s),
        Value::Tagged(t) => int_of(&t.value),
        _ => None,
    }
}

/// Text pydantic's lax `int` accepts: surrounding whitespace ignored, an
/// optional sign, ASCII digits with single underscores between them, and
/// optionally a `.` followed only by zeros (`'2'`, `' -1_000 '`, `'2.00'`;
/// not `'1.5'`, `'1.'`, `'0x10'` or `'1e3'`).
fn lax_int_text(s: &str) -> Option<i128> {
    let s = s.trim();
    let (negative, rest) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let digits = match rest.split_once('.') {
        Some((whole, zeros)) if !zeros.is_empty() && zeros.bytes().all(|b| b == b'0') => whole,
        Some(_) => return None,
        None => rest,
    };
    let well_formed = !digits.is_empty()
        && !digits.starts_with('_')
        && !digits.ends_with('_')
        && !digits.contains("__")
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'_');
    if !well_formed {
        return None;
    }
    let n = digits
        .bytes()
        .filter(u8::is_ascii_digit)
        .fold(0i128, |n, d| {
            n.saturating_mul(10).saturating_add(i128::from(d - b'0'))
        });
    Some(if negative { -n } else { n })
}

/// A `str` field that holds something else: pydantic v2 takes no number,
/// boolean, list or mapping for text, so everos cannot read the file.
fn expect_str(f: &MemFile, map: &Mapping, key: &str, out: &mut Out) {
    // A plain scalar is typed as everos's YAML 1.1 reader types it, which
    // is not always as this reader's YAML 1.2 does (`no`, `0o17`).
    let yaml = frontmatter_yaml(f);
    let scalar = matches!(
        map.get(key),
        Some(Value::String(_) | Value::Number(_) | Value::Bool(_))
    );
    if let Some(raw) = yaml
        .filter(|_| scalar)
        .and_then(|y| super::yaml11::plain_value(y, key))
    {
        if let Some(kind) = super::yaml11::not_text(raw) {
            out.push(
                "everos-bad-field",
                Some(key_line(f, key)),
                format!(
                    "{key} is {raw}, which everos's YAML reader takes for {kind}, not text, \
                     and everos takes only text there; quote it: {key}: '{raw}'"
                ),
            );
        }
        return;
    }
    let message = match map.get(key) {
        Some(v @ (Value::Number(_) | Value::Bool(_))) => {
            let written = crate::frontmatter::scalar_text(v).unwrap_or_default();
            format!(
                "{key} is {written}, not text, and everos takes only text there; \
                 quote it: {key}: '{written}'"
            )
        }
        Some(Value::Sequence(_)) => {
            format!("{key} is a list, and everos takes only text there")
        }
        Some(Value::Mapping(_)) => {
            format!("{key} is a mapping, and everos takes only text there")
        }
        _ => return,
    };
    out.push("everos-bad-field", Some(key_line(f, key)), message);
}

/// `id` and the owner id, which everos's schemas require; `type`,
/// `schema_version` and `track`, which they default (`1`, the kind's own
/// type and track) but refuse as null or as another value.
fn base_fields(f: &MemFile, map: &Mapping, owner: OwnerKind, ty: Option<&str>, out: &mut Out) {
    let id_field = owner.id_field();
    for key in ["id", id_field] {
        required(f, map, key, out);
        expect_str(f, map, key, out);
    }
    for key in ["type", "schema_version", "track"] {
        not_null(f, map, key, out);
    }
    if let Some(ty) = ty {
        expect_text(f, map, "type", ty, out);
    }
    if let Some(v) = map.get("schema_version").filter(|v| !v.is_null())
        && int_of(v).is_none()
    {
        out.push(
            "everos-bad-field",
            Some(key_line(f, "schema_version")),
            format!("schema_version is {} but must be a whole number", shown(v)),
        );
    }
    expect_text(f, map, "track", owner.as_str(), out);
    // An owner id that is not text is reported as such, not compared.
    if let (Some(v @ Value::String(_)), Some((_, folder))) = (map.get(id_field), &f.place.owner) {
        let given = crate::frontmatter::scalar_text(v);
        if given.as_deref() != Some(folder.as_str()) {
            out.push(
                "everos-owner-mismatch",
                Some(key_line(f, id_field)),
                format!(
                    "{id_field} is {} but the file is in the folder of {}",
                    shown(v),
                    folder
                ),
            );
        }
    }
}

fn daily_frontmatter(
    f: &MemFile,
    kind: DailyKind,
    file_date: Option<Date>,
    map: &Mapping,
    out: &mut Out,
) {
    base_fields(f, map, kind.owner_kind(), Some(kind.schema_type()), out);
    expect_text(f, map, "file_type", kind.schema_type(), out);
    // `entry_count` defaults to 0 and `last_appended_at` to none (null
    // is allowed); only the day is required.
    required(f, map, "date", out);
    not_null(f, map, "entry_count", out);
    if let Some(v) = map.get("date").filter(|v| !v.is_null()) {
        let line = Some(key_line(f, "date"));
        // As pydantic's lax `date` takes it, after everos's YAML reader:
        // `2026-06-01 00:00:00` and Unix time at midnight are that day.
        match lax_time::lax_date(&everos_scalar(f, v, "date")) {
            None => out.push(
                "everos-bad-field",
                line,
                format!(
                    "date is {} but must be a date (YYYY-MM-DD, or a date and time at \
                     exactly midnight)",
                    shown(v)
                ),
            ),
            Some(d) if file_date.is_some_and(|fd| fd != d) => out.push(
                "everos-date-mismatch",
                line,
                format!(
                    "date is {d} but the file name says {}",
                    file_date.map(|d| d.to_string()).unwrap_or_default()
                ),
            ),
            Some(_) => {}
        }
    }
    // Left out, it is 0 to everos: a log with entries would have its next
    // append numbered ..._00000001 again.
    if map.get("entry_count").is_none() && !f.entries.is_empty() {
        let found = f.entries.len();
        out.push(
            "everos-entry-count",
            Some(1),
            format!(
                "entry_count is left out, which everos takes for 0, but the file has {found} \
                 entries; everos's next entry here would reuse the id of the first"
            ),
        );
    }
    if let Some(v) = map.get("entry_count").filter(|v| !v.is_null()) {
        let line = Some(key_line(f, "entry_count"));
        match int_of(v) {
            Some(n) if n >= 0 => {
                let found = f.entries.len();
                if n != found as i128 {
                    out.push(
                        "everos-entry-count",
                        line,
                        format!("entry_count is {n} but the file has {found} entries"),
                    );
                }
            }
            _ => out.push(
                "everos-bad-field",
                line,
                format!("entry_count is {} but must be a whole number ≥ 0", shown(v)),
            ),
        }
    }
    if let Some(v) = map.get("last_appended_at").filter(|v| !v.is_null()) {
        let line = Some(key_line(f, "last_appended_at"));
        // As pydantic's lax `datetime` takes it: a date and time, a date,
        // or Unix time (`1780300800`).
        match lax_time::lax_datetime(&everos_scalar(f, v, "last_appended_at")).map(|m| m.0) {
            None => out.push(
                "everos-bad-field",
                line,
                format!(
                    "last_appended_at is {} but must be a date and time",
                    shown(v)
                ),
            ),
            Some(day) if file_date.is_some_and(|fd| day < fd) => out.push(
                "everos-appended-before-day",
                line,
                format!(
                    "last_appended_at is on {day}, before the file's day {}",
                    file_date.map(|d| d.to_string()).unwrap_or_default()
                ),
            ),
            Some(_) => {}
        }
    }
}

/// The calendar day of a timestamp as everos's schema reads one written
/// as text, in its own offset (Unix time in UTC).
pub fn timestamp_day(s: &str) -> Option<Date> {
    lax_time::lax_datetime(&lax_time::Scalar::Text(s.trim())).map(|m| m.0)
}

/// The frontmatter's YAML as written, for the files that have a block.
fn frontmatter_yaml(f: &MemFile) -> Option<&str> {
    match f.head.as_ref().map(|h| &h.head) {
        Some(Head::Block { yaml, .. }) => Some(&f.text[yaml.clone()]),
        _ => None,
    }
}

/// The value `v` of `key` as everos's YAML reader types it.
fn everos_scalar<'a>(f: &'a MemFile, v: &'a Value, key: &str) -> lax_time::Scalar<'a> {
    let plain = frontmatter_yaml(f).and_then(|y| super::yaml11::plain_value(y, key));
    lax_time::scalar(v, plain)
}

fn entry_findings(f: &MemFile, kind: DailyKind, file_date: Option<Date>, out: &mut Out) {
    if let Some(u) = &f.unclosed {
        let id = &u.id;
        out.push(
            "everos-unclosed-marker",
            Some(u.line),
            format!(
                "<!-- entry:{id} --> has no <!-- /entry:{id} -->; everos reads no entry from here on"
            ),
        );
    }
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut prev_seq: Option<u64> = None;
    for e in &f.entries {
        let line = Some(e.line);
        if let Some(first) = seen.get(e.id.as_str()) {
            out.push(
                "everos-duplicate-entry-id",
                line,
                format!(
                    "{} is also the id of the entry at line {first}; everos finds only the first",
                    e.id
                ),
            );
            continue;
        }
        seen.insert(&e.id, e.line);
        if e.text.is_empty() {
            out.push("everos-empty-entry", line, format!("{} has no text", e.id));
        }
        let id = match EntryId::parse(&e.id) {
            Ok(id) => id,
            Err(p) => {
                out.push(
                    "everos-bad-entry-id",
                    line,
                    format!("{} {}", e.id, p.describe()),
                );
                continue;
            }
        };
        if id.prefix != kind.id_prefix() {
            out.push(
                "everos-entry-id-prefix",
                line,
                format!(
                    "{} has prefix {:?}; everos writes {:?} in {} files",
                    e.id,
                    id.prefix,
                    kind.id_prefix(),
                    kind.as_str()
                ),
            );
        }
        if file_date.is_some_and(|d| d != id.date) {
            out.push(
                "everos-entry-id-date",
                line,
                format!(
                    "{} is dated {} but the file is for {}",
                    e.id,
                    id.date,
                    file_date.map(|d| d.to_string()).unwrap_or_default()
                ),
            );
        }
        if id.seq_digits < 8 {
            out.push(
                "everos-short-sequence",
                line,
                format!(
                    "{} has a {}-digit sequence; everos writes at least 8",
                    e.id, id.seq_digits
                ),
            );
        }
        let expected = prev_seq.map_or(1, |p| p + 1);
        if id.seq > expected {
            out.push(
                "everos-sequence-gap",
                line,
                format!(
                    "{} follows {}: sequence {} to {} skips {}",
                    e.id,
                    if prev_seq.is_some() {
                        "the previous entry"
                    } else {
                        "the start of the file"
                    },
                    expected.saturating_sub(1),
                    id.seq,
                    id.seq - expected
                ),
            );
        } else if id.seq < expected {
            out.push(
                "everos-sequence-order",
                line,
                format!(
                    "{} comes after sequence {}: entries are out of order",
                    e.id,
                    expected - 1
                ),
            );
        }
        prev_seq = Some(prev_seq.map_or(id.seq, |p| p.max(id.seq)));
    }
    marker_findings(f, out);
}

/// Marker lines everos reads differently from how they look: an open
/// marker line (outside code) inside another entry, a close marker line
/// outside any entry, and text outside entries.
fn marker_findings(f: &MemFile, out: &mut Out) {
    let body_start = f.head.as_ref().map_or(0, |h| h.body_start);
    let body = &f.text[body_start..];
    let mut spans = f.entries.iter().peekable();
    let mut line = 1 + f.text.as_bytes()[..body_start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    let mut counted = body_start;
    let mut line_at = |at: usize| {
        line += f.text.as_bytes()[counted..at]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted = at;
        line
    };
    let stop = f.unclosed.as_ref().map(|u| u.offset);
    for m in entries::marker_lines_outside_code(body) {
        let at = body_start + m.offset;
        if stop.is_some_and(|s| at >= s) {
            break;
        }
        while spans.peek().is_some_and(|e| e.span.end <= at) {
            spans.next();
        }
        let inside = spans
            .peek()
            .filter(|e| e.span.start < at && at < e.span.end);
        match (inside, m.open) {
            (Some(e), true) => {
                let l = line_at(at);
                out.push(
                    "everos-nested-marker",
                    Some(l),
                    format!(
                        "<!-- entry:{} --> inside entry {} (line {}); everos reads it as text of {}, markers do not nest",
                        m.id, e.id, e.line, e.id
                    ),
                );
            }
            (Some(e), false) if m.id != e.id => {
                let l = line_at(at);
                out.push(
                    "everos-stray-close-marker",
                    Some(l),
                    format!(
                        "<!-- /entry:{} --> inside entry {}; it closes nothing",
                        m.id, e.id
                    ),
                );
            }
            (None, false) => {
                let l = line_at(at);
                out.push(
                    "everos-stray-close-marker",
                    Some(l),
                    format!(
                        "<!-- /entry:{} --> outside any entry; it closes nothing",
                        m.id
                    ),
                );
            }
            _ => {}
        }
    }
    // Text between entries is not part of any entry; everos ignores it.
    let mut pos = body_start;
    let end = stop.unwrap_or(f.text.len());
    for e in f
        .entries
        .iter()
        .map(|e| e.span.clone())
        .chain(std::iter::once(end..end))
    {
        let gap = &f.text[pos.min(e.start)..e.start];
        if let Some(rel) = gap.find(|c: char| !c.is_whitespace()) {
            let at = pos + rel;
            let l = 1 + f.text.as_bytes()[..at]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
            out.push(
                "everos-text-outside-entries",
                Some(l),
                "text outside any entry; everos ignores it".to_owned(),
            );
            break;
        }
        pos = e.end;
    }
}

#[cfg(test)]
mod tests;
