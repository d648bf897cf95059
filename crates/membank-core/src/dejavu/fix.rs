//! Fixes for the Deja Vu findings that have one right answer: the index
//! gets the link line an active decision or open loop lacks, a supersede
//! recorded on one side gets its other side, and a required key gets the
//! value the record (or the project around it) already states. What no
//! file states is left for the author, with why: nothing is filled in just
//! to quiet the check.
//!
//! The result has the shapes of the bank's fixes ([`FixProposal`]), so it
//! is shown, written and undone the same way; nothing is written here.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::dejavu::checks::reference::{REQUIRED_RECORD_FIELDS, VALID_STATUSES};
use crate::dejavu::checks::spec::{ref_values, reference_values, reference_values_in, resolve_ref};
use crate::dejavu::project::{Project, Record};
use crate::dejavu::record::{self, Frontmatter, RecordKind};
use crate::dejavu::supersede::set_key;
use crate::dejavu::{INDEX_PATH, paths};
use crate::fix::{Action, FileFix, FixProposal, Unfixed, unfixed};
use crate::health::Finding;
use crate::surface::Surface;

/// The codes some finding of which may be fixed here.
const FIXED_CODES: [&str; 7] = [
    "index-missing-link",
    "supersedes-missing",
    "supersession-one-sided",
    "superseded-without-successor",
    "record-missing-field",
    "bad-status",
    "bad-date",
];

/// Why a Deja Vu code has no automatic fix (or why this finding had none),
/// naming what to run as `surface` does.
pub fn no_fix_reason(code: &str, surface: Surface) -> Cow<'static, str> {
    if code == "route-to-inactive" {
        return format!(
            "whether the route should go or lead to the newer record is the author's choice; \
             {} moves the routes of a record it supersedes",
            surface.invocation("supersede", "", "")
        )
        .into();
    }
    Cow::Borrowed(match code {
        "summary-missing-link" => {
            "the summary is prose; where it mentions the record is the author's choice"
        }
        "missing-frontmatter" => {
            "a record without frontmatter needs its id, title and scope chosen by the author"
        }
        "missing-section" => "what the section says only the author knows",
        "superseded-by-unresolved" | "supersedes-unresolved" | "dead-link" => {
            "the name matches no record; only the author knows which one was meant"
        }
        "supersession-cycle" => "which record is the newest is the author's decision",
        "no-impression-route" => {
            "the cue words recall should find the record by are the author's choice; a \
             writeback adds its route"
        }
        "few-keywords"
        | "many-keywords"
        | "duplicate-keywords"
        | "generic-keywords"
        | "duplicate-keyword-set"
        | "bad-keywords" => "which cue words find a record is the author's choice",
        "index-not-updated" => {
            "the newer record is linked once it is active: its index-missing-link fix adds it; \
             an entry of the superseded record in an active section is the author's to move"
        }
        "private-key" | "api-key" | "credential-assignment" => {
            "remove the credential by hand, then rotate it"
        }
        "missing-agents-md" | "missing-summary" | "missing-impressions" => {
            "the file is the project's own text; `membank init` or the author writes it"
        }
        "symlink" | "unreadable-file" | "not-utf8" | "large-file" | "link-outside" => {
            "membank does not open or change such files"
        }
        _ => "no change can be made without a decision by the author",
    })
}

/// The fixes for `findings` (of `project`, as its check reported them,
/// filtered as the user asked).
pub fn propose(project: &Project, findings: &[Finding], surface: Surface) -> FixProposal {
    let mut proposal = FixProposal::default();
    let mut by_path: BTreeMap<&str, Vec<&Finding>> = BTreeMap::new();
    for f in findings {
        if FIXED_CODES.contains(&f.code()) {
            by_path.entry(&*f.path).or_default().push(f);
        } else {
            proposal
                .remaining
                .push(unfixed(f, no_fix_reason(f.code(), surface).into_owned()));
        }
    }
    for (path, found) in by_path {
        proposal.take_file(fix_file(project, path, &found), &found);
    }
    proposal.sorted()
}

/// One file's fix for its `found` findings, and those left; `Err` when
/// the file cannot be changed at all.
fn fix_file(
    project: &Project,
    path: &str,
    found: &[&Finding],
) -> Result<(Option<FileFix>, Vec<Unfixed>), String> {
    let record = project
        .record(path)
        .filter(|r| crate::layout::is_markdown(&r.path))
        .ok_or("only Markdown records are fixed; edit this file by hand")?;
    if record.private {
        return Err("private memory is never changed by membank".into());
    }
    let max = crate::safe_read::user_policy().max_file_bytes;
    let before = crate::safe_read::read_regular(&project.root.join(path), max)
        .map_err(|e| format!("cannot be read ({e})"))?;
    let mut text = String::from_utf8(before.clone())
        .map_err(|_| "the file is not UTF-8; it must be saved as UTF-8 first".to_owned())?;
    if text != record.text {
        return Err("the file changed since it was checked; run again".into());
    }
    let mut codes = Vec::new();
    let mut notes = Vec::new();
    let mut left = Vec::new();
    for f in found {
        let edited = match f.code() {
            "index-missing-link" => index_link(project, &text, f),
            "supersedes-missing" => newer_side(project, record, &text),
            "supersession-one-sided" | "superseded-without-successor" => {
                older_side(project, record, &text, f.code())
            }
            "record-missing-field" => missing_field(project, record, &text, f),
            "bad-status" => status_case(&text),
            "bad-date" => padded_updated(&text),
            _ => continue,
        };
        match edited {
            Ok((new, note)) => {
                // Two findings may ask for one change; the first makes it.
                if new != text {
                    notes.push(note);
                }
                text = new;
                if !codes.contains(&f.code()) {
                    codes.push(f.code());
                }
            }
            Err(reason) => left.push(unfixed(f, reason)),
        }
    }
    if codes.is_empty() {
        return Ok((None, left));
    }
    if text.as_bytes() == before {
        // Each finding's change was there already: the file changed since
        // the check, or two findings named one change.
        let answered = found.iter().filter(|f| codes.contains(&f.code()));
        left.extend(answered.map(|f| unfixed(f, "the file already says this; check again".into())));
        return Ok((None, left));
    }
    if record.frontmatter.is_some() && record::parse_frontmatter(&text).is_none() {
        return Err("the fixed frontmatter would not read back; nothing is proposed".into());
    }
    Ok((
        Some(FileFix {
            path: path.to_owned(),
            codes,
            notes,
            action: Action::Change {
                before,
                after: text.into_bytes(),
            },
        }),
        left,
    ))
}

type Edited = Result<(String, String), String>;

fn frontmatter(text: &str) -> Result<Frontmatter, String> {
    record::parse_frontmatter(text).ok_or_else(|| "the record has no frontmatter".to_owned())
}

/// `key: value` set in `text`'s frontmatter.
fn with_key(text: &str, key: &str, value: &str) -> Result<String, String> {
    let fm = frontmatter(text)?;
    Ok(set_key(text, Some(&fm), key, value))
}

/// The index with a link line for the record the finding names, under the
/// heading of its kind (added at the end when the index has none).
fn index_link(project: &Project, text: &str, f: &Finding) -> Edited {
    let message = f.message();
    let record = project
        .records
        .iter()
        .find(|r| message.ends_with(&format!("`{}`", r.path)))
        .ok_or("the finding names no record of the project")?;
    let linked = record::links(INDEX_PATH, text)
        .iter()
        .any(|l| l.resolved.as_deref() == Some(record.path.as_str()));
    if linked {
        return Ok((text.to_owned(), String::new()));
    }
    let link = format!(
        "[{}]({})",
        link_text(record),
        link_target(&paths::relative_link(
            paths::parent(INDEX_PATH),
            &record.path
        ))?
    );
    let (heading, words): (&str, &[&str]) = match record.kind {
        RecordKind::Decision => ("## Active decisions", &["decision"]),
        RecordKind::OpenLoop => ("## Active open loops", &["open loop", "open-loop"]),
        _ => return Err("only decisions and open loops are listed in the index".into()),
    };
    let nl = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let line = format!("- {link}{nl}");
    let new = match section_end(text, words) {
        Some((at, true)) => {
            let mut t = text.to_owned();
            t.insert_str(at, &line);
            t
        }
        // An empty section: the item goes after the blank line under the
        // heading, or gets one.
        Some((at, false)) => {
            let mut t = text.to_owned();
            match text[at..].lines().next().map(str::trim) {
                Some("") => {
                    let blank = text[at..].find('\n').map_or(text.len(), |i| at + i + 1);
                    t.insert_str(blank, &line);
                }
                _ => t.insert_str(at, &format!("{nl}{line}")),
            }
            t
        }
        None => {
            let sep = if text.is_empty() || text.ends_with('\n') {
                ""
            } else {
                nl
            };
            format!("{text}{sep}{nl}{heading}{nl}{nl}{line}")
        }
    };
    Ok((
        new,
        format!("link the active {} {link}", kind_word(record.kind)),
    ))
}

/// A link target as Markdown reads it back: in angle brackets when the
/// path has a space or a parenthesis, which would otherwise end it.
fn link_target(path: &str) -> Result<String, String> {
    if path.contains(['<', '>', '\n', '\r']) {
        return Err(format!(
            "the path {path} cannot be written as a link; link it by hand"
        ));
    }
    Ok(match path.contains([' ', '\t', '(', ')']) {
        true => format!("<{path}>"),
        false => path.to_owned(),
    })
}

fn kind_word(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::OpenLoop => "open loop",
        _ => "decision",
    }
}

/// The record's title as a link's text: `]` and `[` escaped, so the link
/// stays one link.
fn link_text(record: &Record) -> String {
    let title = record
        .field("title")
        .map(str::to_owned)
        .or_else(|| first_heading(record.body()))
        .unwrap_or_else(|| stem(&record.path).to_owned());
    title.replace('[', "\\[").replace(']', "\\]")
}

fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.strip_suffix(".md").unwrap_or(name)
}

fn first_heading(body: &str) -> Option<String> {
    body.lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|h| h.trim().to_owned())
        .filter(|h| !h.is_empty())
}

/// Where a line goes at the end of the first section whose heading names
/// one of `words` (and not what is superseded or archived): after its last
/// non-blank line, and whether the section has one (else after its
/// heading). `None` when there is no such section.
fn section_end(text: &str, words: &[&str]) -> Option<(usize, bool)> {
    let mut in_section = false;
    let mut at = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('#') {
            if in_section {
                break;
            }
            let lower = t.to_lowercase();
            in_section = words.iter().any(|w| lower.contains(w))
                && !lower.contains("superseded")
                && !lower.contains("archived");
            if in_section {
                at = Some((offset + line.len(), false));
            }
        } else if in_section && !t.is_empty() {
            at = Some((offset + line.len(), true));
        }
        offset += line.len();
    }
    let at = at?;
    // The line is inserted after a line ending; a last line without one
    // gets the section appended instead.
    text[..at.0].ends_with('\n').then_some(at)
}

/// Whether the reference key `value` names `target`, read from `from`.
fn names(project: &Project, from: &Record, value: Option<&str>, target: &Record) -> bool {
    value.is_some_and(|v| {
        ref_values(v)
            .into_iter()
            .any(|v| resolve_ref(project, from, v).is_some_and(|r| r.path == target.path))
    })
}

/// The newer record's `supersedes` naming every record whose
/// `superseded_by` names it.
fn newer_side(project: &Project, newer: &Record, text: &str) -> Edited {
    frontmatter(text)?;
    let mut text = text.to_owned();
    let mut added = Vec::new();
    for old in &project.records {
        let fm = frontmatter(&text)?;
        let current = reference_values_in(&text, &fm, "supersedes");
        let named = current
            .iter()
            .any(|v| resolve_ref(project, newer, v).is_some_and(|r| r.path == old.path));
        if old.path == newer.path
            || !names(project, old, old.field("superseded_by"), newer)
            || named
        {
            continue;
        }
        // Added in the list's own form: a block list is never cut short.
        text = crate::dejavu::supersede::add_to_list(&text, "supersedes", &old.path);
        added.push(old.path.clone());
    }
    Ok((
        text,
        format!(
            "add supersedes: {} (its superseded_by names this record)",
            added.join(", ")
        ),
    ))
}

/// The older record's side: `status: superseded` when its `superseded_by`
/// names a record, and `superseded_by` when exactly one record says it
/// supersedes it.
fn older_side(project: &Project, old: &Record, text: &str, code: &str) -> Edited {
    let fm = frontmatter(text)?;
    let by = fm.non_empty("superseded_by");
    let newers: Vec<&Record> = project
        .records
        .iter()
        .filter(|n| {
            n.path != old.path
                && reference_values(n, "supersedes")
                    .iter()
                    .any(|v| resolve_ref(project, n, v).is_some_and(|r| r.path == old.path))
        })
        .collect();
    let unnamed: Vec<&&Record> = newers
        .iter()
        .filter(|n| !names(project, old, by, n))
        .collect();
    let mut text = text.to_owned();
    let mut notes = Vec::new();
    let resolves = by.is_some_and(|v| {
        ref_values(v)
            .into_iter()
            .any(|v| resolve_ref(project, old, v).is_some())
    });
    match (by, unnamed.as_slice()) {
        (_, []) if resolves => {}
        (None, []) if code == "superseded-without-successor" => {
            return Err(
                "no record says it supersedes this one; which record replaced it \
                        is the author's choice"
                    .into(),
            );
        }
        (None, [newer]) => {
            text = with_key(&text, "superseded_by", &newer.path)?;
            notes.push(format!(
                "add superseded_by: {} (it says it supersedes this record)",
                newer.path
            ));
        }
        (Some(_), [_, ..]) => {
            return Err(
                "its superseded_by names another record than the one that says it \
                        supersedes it; which is right is the author's choice"
                    .into(),
            );
        }
        (None, [_, _, ..]) => {
            return Err(
                "several records say they supersede it; which one replaced it is \
                        the author's choice"
                    .into(),
            );
        }
        _ => return Err("the supersede is not recorded on either side".into()),
    }
    if frontmatter(&text)?.non_empty("status") != Some("superseded") {
        text = with_key(&text, "status", "superseded")?;
        notes.push("status becomes superseded".into());
    }
    Ok((text, notes.join(", ")))
}

/// The required key the finding names, with the value the record or the
/// project states.
fn missing_field(project: &Project, record: &Record, text: &str, f: &Finding) -> Edited {
    let message = f.message();
    let key = message
        .split('`')
        .nth(1)
        .filter(|k| REQUIRED_RECORD_FIELDS.contains(k))
        .ok_or("the finding names no required key")?;
    if frontmatter(text)?.non_empty(key).is_some() {
        return Ok((text.to_owned(), String::new()));
    }
    let value = inferred(project, record, key)?;
    Ok((with_key(text, key, &value)?, format!("add {key}: {value}")))
}

/// The impression line that routes to `record`, when exactly one does.
fn route<'a>(project: &'a Project, record: &Record) -> Option<&'a super::jsonl::JsonlLine> {
    let imp = project.impressions.as_ref()?;
    let mut routes = imp.lines.iter().enumerate().filter_map(|(i, l)| {
        project
            .route(i)
            .and_then(|p| paths::resolve_from("", p))
            .is_some_and(|p| p == record.path)
            .then_some(l)
    });
    let first = routes.next()?;
    routes.next().is_none().then_some(first)
}

/// A value for a required key that the project supports, or why there is
/// none.
fn inferred(project: &Project, record: &Record, key: &str) -> Result<String, String> {
    let from_route = |field: &str| {
        route(project, record)
            .and_then(|l| l.str_field(field))
            .map(|v| v.trim().to_owned())
            .filter(|v| !v.is_empty() && !v.contains(['\n', '\r']))
    };
    let value = match key {
        "id" => from_route("id").or_else(|| {
            let prefix = match record.kind {
                RecordKind::Decision => "decision",
                RecordKind::OpenLoop => "open-loop",
                _ => return None,
            };
            Some(format!("{prefix}-{}", stem(&record.path)))
        }),
        "title" => first_heading(record.body()).or_else(|| from_route("title")),
        "status" => Some(
            if record.field("superseded_by").is_some() {
                "superseded"
            } else {
                // A record without a status is read as active already.
                "active"
            }
            .to_owned(),
        ),
        "scope" => only_scope(project, record),
        "updated" => date_of(record).or_else(|| from_route("updated")),
        _ => None,
    };
    let value = value.ok_or_else(|| {
        format!("{key} needs a value: neither the record nor the project states one")
    })?;
    if key == "id" && project.records.iter().any(|r| r.id() == Some(&value)) {
        return Err(format!(
            "id needs a value: `{value}` is another record's id already"
        ));
    }
    if key == "updated" && crate::fix::edit::padded_date(&value).is_err() {
        return Err(format!("updated needs a value: `{value}` is not a date"));
    }
    Ok(value)
}

/// The scope every other record and impression of the project names,
/// when they name one.
fn only_scope(project: &Project, record: &Record) -> Option<String> {
    let mut scopes: Vec<Cow<str>> = project
        .records
        .iter()
        .filter(|r| r.path != record.path)
        .filter_map(|r| r.field("scope").map(Cow::Borrowed))
        .collect();
    if let Some(imp) = &project.impressions {
        scopes.extend(imp.lines.iter().filter_map(|l| l.str_field("scope")));
    }
    let first = scopes.first()?;
    (first.starts_with("project:") && scopes.iter().all(|s| s == first)).then(|| first.to_string())
}

/// The record's date: `YYYY-MM-DD` in its file name, else the first line
/// of its `## Date` (or, for an open loop, `## Opened`) section.
fn date_of(record: &Record) -> Option<String> {
    let name = stem(&record.path);
    let from_name = name
        .char_indices()
        .filter_map(|(i, _)| name.get(i..i + 10))
        .find(|d| is_plain_date(d));
    if let Some(d) = from_name {
        return Some(d.to_owned());
    }
    let mut lines = record.body().lines();
    lines.find(|l| matches!(l.trim(), "## Date" | "## Opened"))?;
    let first = lines.map(str::trim).find(|l| !l.is_empty())?;
    let first = first.trim_matches('`');
    is_plain_date(first).then(|| first.to_owned())
}

fn is_plain_date(s: &str) -> bool {
    s.len() == 10 && crate::fix::edit::padded_date(s).is_ok_and(|d| d == s)
}

/// `status` in another case (`Active`) written as the layout spells it.
fn status_case(text: &str) -> Edited {
    let fm = frontmatter(text)?;
    let status = fm.non_empty("status").ok_or("the record has no status")?;
    let lower = status.to_lowercase();
    if !VALID_STATUSES.contains(&lower.as_str()) {
        return Err(format!(
            "“{status}” is none of active, superseded or archived in another case; choose one"
        ));
    }
    Ok((
        with_key(text, "status", &lower)?,
        format!("status “{status}” becomes “{lower}”"),
    ))
}

/// `updated: 2026-4-8` written `2026-04-08`; a date in another order is
/// not guessed.
fn padded_updated(text: &str) -> Edited {
    let fm = frontmatter(text)?;
    let updated = fm.non_empty("updated").ok_or("the record has no updated")?;
    let padded = crate::fix::edit::padded_date(updated)?;
    Ok((
        with_key(text, "updated", &padded)?,
        format!("updated “{updated}” becomes “{padded}”"),
    ))
}

#[cfg(test)]
mod tests;
