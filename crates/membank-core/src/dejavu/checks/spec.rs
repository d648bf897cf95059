//! What the storage layout asks and no reference tool checks: the index and
//! summary link the records they must, supersession holds both ways, every
//! durable record has an impression route, required sections, links
//! resolve, private memory stays out of the repo.

use std::collections::HashSet;

use super::Sink;
use crate::dejavu::paths;
use crate::dejavu::project::{Presence, Project, Record};
use crate::dejavu::record::{Frontmatter, RecordKind};
use crate::dejavu::{INDEX_PATH, SUMMARY_PATH};
use crate::health::Severity::{Error, Info, Warning};

/// `routed`: every path an impression routes to, when there is an
/// impressions file.
pub fn run(project: &Project, routed: Option<&HashSet<String>>, out: &mut Sink) {
    index_and_summary(project, out);
    supersession(project, out);
    if let Some(routed) = routed {
        unrouted(project, routed, out);
    }
    sections(project, out);
    links(project, out);
    private_not_ignored(project, out);
}

fn linked_from(record: Option<&Record>) -> HashSet<&str> {
    record
        .map(|r| {
            r.links
                .iter()
                .filter_map(|l| l.resolved.as_deref())
                .collect()
        })
        .unwrap_or_default()
}

/// The project's records but those that are links to another file: a link
/// is reported as such (`symlink`), and checked as a record of its own it
/// was a second copy missing from the index, the summary and the routes.
fn own_records(project: &Project) -> impl Iterator<Item = &Record> {
    let links: HashSet<&str> = project
        .files
        .iter()
        .filter(|f| f.symlink)
        .map(|f| f.path.as_str())
        .collect();
    project
        .records
        .iter()
        .filter(move |r| !links.contains(r.path.as_str()))
}

/// Decisions and open loops that are in force.
fn active_tracked(project: &Project) -> impl Iterator<Item = &Record> {
    own_records(project).filter(|r| {
        matches!(r.kind, RecordKind::Decision | RecordKind::OpenLoop) && r.is_active() && !r.private
    })
}

fn index_and_summary(project: &Project, out: &mut Sink) {
    let index = project.record(INDEX_PATH);
    let in_index = linked_from(index);
    let in_summary = linked_from(project.summary());
    for r in active_tracked(project) {
        if index.is_some() && !in_index.contains(r.path.as_str()) {
            out.add(
                "index-missing-link",
                Warning,
                INDEX_PATH,
                None,
                format!(
                    "does not link the active {} `{}`",
                    kind_name(r.kind),
                    r.path
                ),
            );
        }
        if project.summary().is_some() && !in_summary.contains(r.path.as_str()) {
            out.add(
                "summary-missing-link",
                Warning,
                SUMMARY_PATH,
                None,
                format!(
                    "does not link the authoritative {} `{}`",
                    kind_name(r.kind),
                    r.path
                ),
            );
        }
    }
}

fn kind_name(kind: RecordKind) -> &'static str {
    match kind {
        RecordKind::Decision => "decision",
        RecordKind::OpenLoop => "open loop",
        _ => "record",
    }
}

/// A `superseded_by` / `supersedes` value: a record id, or a path relative
/// to the project or to the record's folder.
pub fn resolve_ref<'a>(project: &'a Project, from: &Record, value: &str) -> Option<&'a Record> {
    let value = value.trim();
    project
        .records
        .iter()
        .find(|r| r.id() == Some(value))
        .or_else(|| paths::resolve_from("", value).and_then(|p| project.record(&p)))
        .or_else(|| {
            paths::resolve_from(paths::parent(&from.path), value).and_then(|p| project.record(&p))
        })
}

/// Values of a reference key, which may list several (`a, b` or `[a, b]`).
pub fn ref_values(value: &str) -> Vec<&str> {
    value
        .trim_matches(|c| c == '[' || c == ']')
        .split(',')
        .map(|v| v.trim().trim_matches(|c| c == '"' || c == '\''))
        .filter(|v| !v.is_empty())
        .collect()
}

/// Values of a reference key in a record's text: written on its line, or
/// as a block list below it.
pub fn reference_values_in(text: &str, fm: &Frontmatter, key: &str) -> Vec<String> {
    match fm.non_empty(key) {
        Some(v) => ref_values(v).into_iter().map(str::to_owned).collect(),
        None => crate::dejavu::record::block_list(text, fm, key)
            .map(|l| l.items)
            .unwrap_or_default(),
    }
}

/// [`reference_values_in`] of a loaded record.
pub fn reference_values(record: &Record, key: &str) -> Vec<String> {
    record
        .frontmatter
        .as_ref()
        .map(|fm| reference_values_in(&record.text, fm, key))
        .unwrap_or_default()
}

/// Whether `from`'s reference key names `target`.
fn points_at(project: &Project, from: &Record, key: &str, target: &Record) -> bool {
    reference_values(from, key)
        .iter()
        .any(|v| resolve_ref(project, from, v).is_some_and(|r| r.path == target.path))
}

fn supersession(project: &Project, out: &mut Sink) {
    let index = project.record(INDEX_PATH);
    let in_index = linked_from(index);
    for old in own_records(project) {
        let Some(by) = old.field("superseded_by") else {
            continue;
        };
        let line = super::reference::key_line(&old.text, "superseded_by");
        let Some(newer) = resolve_ref(project, old, by) else {
            out.add(
                "superseded-by-unresolved",
                Error,
                &old.path,
                line,
                format!("superseded_by `{by}` names no record (by id or path)"),
            );
            continue;
        };
        if old.status() != "superseded" {
            out.add(
                "supersession-one-sided",
                Warning,
                &old.path,
                super::reference::key_line(&old.text, "status"),
                format!(
                    "has superseded_by `{by}` but its status is `{}`, not superseded",
                    old.status()
                ),
            );
        }
        if !points_at(project, newer, "supersedes", old) {
            out.add(
                "supersedes-missing",
                Warning,
                &newer.path,
                super::reference::key_line(&newer.text, "supersedes"),
                format!("replaces `{}` but has no `supersedes` naming it", old.path),
            );
        }
        if index.is_some() && !in_index.contains(newer.path.as_str()) {
            out.add(
                "index-not-updated",
                Warning,
                INDEX_PATH,
                None,
                format!(
                    "`{}` is superseded by `{}`, which the index does not link",
                    old.path, newer.path
                ),
            );
        }
        // The index's active sections must not go on listing what was
        // replaced; its superseded section is where that history belongs.
        if let Some(index) = index {
            let history = crate::dejavu::supersede::superseded_section(&index.text);
            let stale = index.links.iter().find(|l| {
                l.resolved.as_deref() == Some(old.path.as_str())
                    && !history.as_ref().is_some_and(|h| h.contains(&l.span.start))
            });
            if let Some(stale) = stale {
                out.add(
                    "index-not-updated",
                    Warning,
                    INDEX_PATH,
                    Some(stale.line),
                    format!(
                        "still lists `{}`, superseded by `{}`, outside its superseded section",
                        old.path, newer.path
                    ),
                );
            }
        }
        if let Some(cycle) = cycle_from(project, old) {
            out.add(
                "supersession-cycle",
                Error,
                &old.path,
                line,
                format!("superseded_by leads back to itself: {}", cycle.join(" → ")),
            );
        }
    }
    for newer in own_records(project) {
        for value in reference_values(newer, "supersedes") {
            match resolve_ref(project, newer, &value) {
                None => out.add(
                    "supersedes-unresolved",
                    Warning,
                    &newer.path,
                    super::reference::key_line(&newer.text, "supersedes"),
                    format!("supersedes `{value}` names no record (by id or path)"),
                ),
                Some(old) if !points_at(project, old, "superseded_by", newer) => out
                    .add(
                        "supersession-one-sided",
                        Warning,
                        &old.path,
                        None,
                        format!(
                            "`{}` says it supersedes this record, but this record's superseded_by does not name it",
                            newer.path
                        ),
                    ),
                Some(_) => {}
            }
        }
    }
}

/// The chain of `superseded_by` from `start`, when it returns to `start`.
fn cycle_from(project: &Project, start: &Record) -> Option<Vec<String>> {
    let mut chain = vec![start.path.clone()];
    let mut cursor = start;
    for _ in 0..project.records.len() {
        let next = resolve_ref(project, cursor, cursor.field("superseded_by")?)?;
        chain.push(next.path.clone());
        if next.path == start.path {
            return Some(chain);
        }
        if chain[..chain.len() - 1].contains(&next.path) {
            // A cycle further along; reported from its own members.
            return None;
        }
        cursor = next;
    }
    None
}

/// Durable records no impression routes to (a route to an inactive
/// record is found as the impressions are read).
fn unrouted(project: &Project, routed: &HashSet<String>, out: &mut Sink) {
    for r in own_records(project) {
        if r.kind.is_durable() && r.is_active() && !r.private && !routed.contains(&r.path) {
            out.add(
                "no-impression-route",
                Warning,
                &r.path,
                None,
                "no impression has this record as record_path, so recall never reaches it".into(),
            );
        }
    }
}

/// Sections the spec requires and the reference lint does not look for.
fn sections(project: &Project, out: &mut Sink) {
    for r in own_records(project) {
        let required: &[&str] = match r.kind {
            RecordKind::Decision => &["Date", "Related records"],
            RecordKind::OpenLoop => &["Related records"],
            _ => continue,
        };
        for name in required {
            if *name == "Date" && r.field("date").is_some() {
                continue;
            }
            let present = r.body().lines().any(|l| {
                let l = l.trim();
                l.starts_with('#') && l.trim_start_matches('#').trim().eq_ignore_ascii_case(name)
            });
            if !present {
                out.add(
                    "missing-section",
                    Info,
                    &r.path,
                    None,
                    format!("no `## {name}` section (the layout lists it as required)"),
                );
            }
        }
    }
}

fn links(project: &Project, out: &mut Sink) {
    for r in own_records(project) {
        for l in r.links.iter().filter(|l| !l.external) {
            match &l.resolved {
                None => out.add(
                    "link-outside",
                    Warning,
                    &r.path,
                    Some(l.line),
                    format!("link `{}` leaves the project; it is not followed", l.target),
                ),
                // A link through a symbolic link membank does not follow
                // is not called dead: its target may well be there.
                Some(target) if project.presence(target) == Presence::Missing => out.add(
                    "dead-link",
                    Warning,
                    &r.path,
                    Some(l.line),
                    format!(
                        "link `{}` points at `{target}`, which does not exist",
                        l.target
                    ),
                ),
                Some(_) => {}
            }
        }
    }
}

fn private_not_ignored(project: &Project, out: &mut Sink) {
    let private: Vec<_> = project.files.iter().filter(|f| f.private).collect();
    if private.is_empty() {
        return;
    }
    let ignore = super::gitignore::Ignore::new(project);
    for f in private {
        if !ignore.is_ignored(&f.path) {
            out.add(
                "private-not-ignored",
                Error,
                &f.path,
                None,
                "private memory is not ignored by .gitignore and would be committed; add the recommended patterns (memory/private/, memory/local/, memory/raw/, memory/transcripts/, memory/**/*.secret.*)".into(),
            );
        }
    }
}
