//! Replacing a record by a newer one, as the layout prescribes: the old
//! record becomes `status: superseded` with `superseded_by`, the new one
//! gets `supersedes`, the index and the summary point at the newer record
//! (the index lists the old one as superseded), and active
//! impressions routing to the old record stop doing so.
//!
//! Planned first (before/after text per file, for a diff and a
//! confirmation), then applied under the project's lock to the files as
//! they are then, atomically per file. Only the lines that
//! must change are touched; everything else stays byte for byte.

use super::checks::spec::{reference_values, resolve_ref};
use super::js::{self, JsValue};
use super::project::{Project, Record};
use super::record::Frontmatter;
use super::{IMPRESSIONS_PATH, INDEX_PATH, SUMMARY_PATH, paths};
use crate::transaction::Transaction;

/// One file's change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    pub path: String,
    pub before: String,
    pub after: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub old: String,
    pub new: String,
    /// Only files that change, in the order they are written.
    pub edits: Vec<Edit>,
    /// Things the plan could not do, for the user to know.
    pub notes: Vec<String>,
}

pub fn plan(project: &Project, old_key: &str, new_key: &str) -> Result<Plan, String> {
    let find = |key: &str| {
        project.find_record(key).ok_or_else(|| {
            format!("no record `{key}` (give an id or a path like memory/decisions/x.md)")
        })
    };
    let old = find(old_key)?;
    let new = find(new_key)?;
    if old.path == new.path {
        return Err("a record cannot supersede itself".into());
    }
    for r in [old, new] {
        if r.frontmatter.is_none() {
            return Err(format!(
                "{} has no frontmatter to record the supersession in; add one first",
                r.path
            ));
        }
    }
    // Shared memory (the index, a public record's frontmatter, the
    // impressions) is committed: it must not come to name private memory.
    if old.private != new.private {
        let (private, public) = if old.private { (old, new) } else { (new, old) };
        return Err(format!(
            "{} is private memory and {} is not: recording the supersession would name \
             private memory in shared memory; nothing is changed",
            private.path, public.path
        ));
    }
    let mut notes = Vec::new();
    // One successor per record: another one's `supersedes` would be left
    // naming OLD on its own (`supersession-one-sided`).
    let mut unresolved = Vec::new();
    for v in reference_values(old, "superseded_by") {
        match resolve_ref(project, old, &v) {
            Some(by) if by.path == new.path => {}
            Some(by) => {
                return Err(format!(
                    "{} is already superseded by {}; nothing is changed (to record another \
                     successor, edit its superseded_by and {}'s supersedes by hand)",
                    old.path, by.path, by.path
                ));
            }
            None => unresolved.push(v),
        }
    }
    if !unresolved.is_empty() {
        notes.push(format!(
            "{}'s superseded_by `{}` named no record; it now names {}",
            old.path,
            unresolved.join(", "),
            new.path
        ));
    }
    if let Some(chain) = chain_to(project, new, old) {
        return Err(format!(
            "{} is itself superseded by {} (superseded_by: {}); recording that it supersedes \
             {} would make a supersession cycle; nothing is changed",
            new.path,
            old.path,
            chain.join(" → "),
            old.path
        ));
    }
    let mut edits = Vec::new();
    let new_text = add_reference(new, "supersedes", &old.path, project);
    push_edit(&mut edits, &new.path, &new.text, new_text);
    let mut old_text = set_key(&old.text, old.frontmatter.as_ref(), "status", "superseded");
    let fm = super::record::parse_frontmatter(&old_text);
    old_text = set_key(&old_text, fm.as_ref(), "superseded_by", &new.path);
    push_edit(&mut edits, &old.path, &old.text, old_text);
    match project.record(INDEX_PATH) {
        Some(_) if old.private => notes.push(
            "memory/index.md is left alone: both records are private memory and the index is shared"
                .into(),
        ),
        Some(index) => push_edit(
            &mut edits,
            INDEX_PATH,
            &index.text,
            index_edit(index, old, new),
        ),
        None => notes.push("no memory/index.md; nothing to update there".into()),
    }
    // The summary links what is in force, so it moves on to NEW as well.
    if let Some(summary) = project.summary()
        && !old.private
    {
        push_edit(
            &mut edits,
            SUMMARY_PATH,
            &summary.text,
            relink(summary, old, new),
        );
    }
    match &project.impressions {
        Some(imp) => {
            let after = impressions_edit(imp, old, new);
            if !old.private {
                push_edit(&mut edits, IMPRESSIONS_PATH, &imp.text, after);
            } else if after != *imp.text {
                // Marking a route superseded names the successor's id in
                // shared memory: between private records the file is left
                // alone, like the index, and the plan says what stays.
                notes.push(format!(
                    "{IMPRESSIONS_PATH} is left alone: both records are private memory and the \
                     impressions are shared, so the lines routing to {} stay as they are \
                     (edit them by hand if they should stop)",
                    old.path
                ));
            }
        }
        // There but not read (over the size cap, not a regular file): its
        // routes are left, and the plan says so rather than nothing.
        None if std::fs::symlink_metadata(project.root.join(IMPRESSIONS_PATH)).is_ok() => {
            notes.push(format!(
                "{IMPRESSIONS_PATH} was not read (see `membank check`), so the impressions \
                 routing to {} are not marked superseded; once it can be read, run supersede \
                 again",
                old.path
            ));
        }
        None => {}
    }
    // A file the write would refuse (a link, even one leading inside the
    // project, or no regular file) is refused here, before a diff is shown
    // that could never be applied (and that, for a link into private
    // memory, would show private text).
    for e in &edits {
        if let Err(reason) = super::writeback::check_on_disk(&project.root, &e.path) {
            let reason = match reason.strip_prefix("exists but") {
                Some(rest) => format!("{} exists but{rest}", e.path),
                None => reason,
            };
            return Err(format!(
                "{reason}, so the supersession cannot be recorded in {}; nothing is changed{}",
                e.path,
                link_hint(project, &e.path)
            ));
        }
    }
    if edits.is_empty() {
        notes.push("already recorded; nothing to change".into());
    }
    Ok(Plan {
        old: old.path.clone(),
        new: new.path.clone(),
        edits,
        notes,
    })
}

/// For a record that is a link to another record of the project: the
/// record to give instead (unless it is private, which is not named).
fn link_hint(project: &Project, path: &str) -> String {
    let target = project.root.canonicalize().ok().and_then(|root| {
        let real = project.root.join(path).canonicalize().ok()?;
        let rel = real.strip_prefix(root).ok()?.to_str()?.replace('\\', "/");
        project.record(&rel).map(|r| r.path.clone())
    });
    match target {
        Some(t) if project.is_private(&t) => " (it leads into private memory)".into(),
        Some(t) => format!(" (give {t}, the record it leads to, instead)"),
        None => String::new(),
    }
}

/// The `superseded_by` chain from `from` when it reaches `to`.
fn chain_to(project: &Project, from: &Record, to: &Record) -> Option<Vec<String>> {
    let mut chain = vec![from.path.clone()];
    let mut cursor = from;
    // Each record once: a cycle elsewhere on the chain ends the walk.
    while chain.len() <= project.records.len() {
        let next = reference_values(cursor, "superseded_by")
            .iter()
            .find_map(|v| resolve_ref(project, cursor, v))?;
        if chain.contains(&next.path) {
            return None;
        }
        chain.push(next.path.clone());
        if next.path == to.path {
            return Some(chain);
        }
        cursor = next;
    }
    None
}

fn push_edit(edits: &mut Vec<Edit>, path: &str, before: &str, after: String) {
    if after != before {
        edits.push(Edit {
            path: path.to_owned(),
            before: before.to_owned(),
            after,
        });
    }
}

fn eol(text: &str) -> &'static str {
    if text.contains("\r\n") { "\r\n" } else { "\n" }
}

/// Set `key: value` in the frontmatter: the value of an existing line is
/// replaced, or a line is added before the closing fence.
pub(super) fn set_key(text: &str, fm: Option<&Frontmatter>, key: &str, value: &str) -> String {
    let Some(fm) = fm else {
        return text.to_owned();
    };
    let mut offset = fm.raw.start;
    for line in text[fm.raw.clone()].split('\n') {
        let bare = line.strip_suffix('\r').unwrap_or(line);
        if bare.strip_prefix(key).is_some_and(|r| r.starts_with(':')) {
            let value_start = offset + key.len() + 1;
            let value_end = offset + bare.len();
            return format!("{} {value}{}", &text[..value_start], &text[value_end..]);
        }
        offset += line.len() + 1;
    }
    format!(
        "{}{}{key}: {value}{}",
        &text[..fm.raw.end],
        if fm.raw.is_empty() { "" } else { eol(text) },
        if fm.raw.is_empty() {
            format!(
                "{}{}",
                eol(text),
                &text[fm.raw.end..].trim_start_matches(['\r', '\n'])
            )
        } else {
            text[fm.raw.end..].to_owned()
        }
    )
}

/// Add `target` to a reference key that may already list others.
fn add_reference(record: &Record, key: &str, target: &str, project: &Project) -> String {
    let present = reference_values(record, key)
        .iter()
        .any(|v| resolve_ref(project, record, v).is_some_and(|r| r.path == target));
    if present {
        return record.text.clone();
    }
    add_to_list(&record.text, key, target)
}

/// `text` with `target` added to the reference key's values, in the form
/// they are written: a block list gets an item line like its last one, a
/// flow list `[a]` becomes `[a, target]`, a plain value `a, target`; an
/// absent or empty key becomes `key: target`.
pub(super) fn add_to_list(text: &str, key: &str, target: &str) -> String {
    let Some(fm) = super::record::parse_frontmatter(text) else {
        return text.to_owned();
    };
    if let Some(list) = super::record::block_list(text, &fm, key) {
        let mut t = text.to_owned();
        t.insert_str(list.end, &format!("{}{}- {target}", eol(text), list.indent));
        return t;
    }
    let value = match fm.non_empty(key).map(str::trim) {
        Some(v) => match v.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
            Some(inner) if inner.trim().is_empty() => format!("[{target}]"),
            Some(inner) => format!("[{}, {target}]", inner.trim()),
            None => format!("{v}, {target}"),
        },
        None => target.to_owned(),
    };
    set_key(text, Some(&fm), key, &value)
}

/// Links to the old record become links to the new one, and the old
/// record is listed as superseded.
fn index_edit(index: &Record, old: &Record, new: &Record) -> String {
    let dir = paths::parent(&index.path);
    let new_link = format!(
        "[{}]({})",
        new.title(),
        paths::relative_link(dir, &new.path)
    );
    let old_link = format!(
        "[{}]({})",
        old.title(),
        paths::relative_link(dir, &old.path)
    );
    let text = relink(index, old, new);
    let entry = format!("- {old_link} — superseded by {new_link}");
    if text.contains(&entry) {
        return text;
    }
    let nl = eol(&text);
    match superseded_section_end(&text) {
        Some(at) => {
            let mut t = text;
            t.insert_str(at, &format!("{entry}{nl}"));
            t
        }
        None => {
            let sep = if text.ends_with('\n') { "" } else { nl };
            format!("{text}{sep}{nl}## Superseded or archived{nl}{nl}{entry}{nl}")
        }
    }
}

/// `record`'s links to OLD lead to NEW instead, except in its superseded
/// section, whose history lines keep naming what they named. When NEW is
/// linked already, a list item linking only OLD is removed instead: it
/// would list NEW twice, or, left alone, OLD as if still in force.
fn relink(record: &Record, old: &Record, new: &Record) -> String {
    let new_link = format!(
        "[{}]({})",
        new.title(),
        paths::relative_link(paths::parent(&record.path), &new.path)
    );
    let links_new = record
        .links
        .iter()
        .any(|l| l.resolved.as_deref() == Some(&new.path));
    let text = &record.text;
    let history = superseded_section(text);
    // Each change as the bytes it replaces and what replaces them.
    let mut changes: Vec<(std::ops::Range<usize>, &str)> = Vec::new();
    for link in record
        .links
        .iter()
        .filter(|l| l.resolved.as_deref() == Some(&old.path))
        .filter(|l| !history.as_ref().is_some_and(|h| h.contains(&l.span.start)))
    {
        let line = line_around(text, &link.span);
        let only_old = record
            .links
            .iter()
            .filter(|l| line.contains(&l.span.start))
            .all(|l| l.resolved.as_deref() == Some(&old.path));
        if links_new && only_old && is_list_item(&text[line.clone()]) {
            changes.push((line, ""));
        } else {
            changes.push((link.span.clone(), &new_link));
        }
    }
    crate::shared_sort::sort_by_key(&mut changes, |(r, _)| std::cmp::Reverse(r.start));
    // Two links to OLD on one removed line remove it once.
    changes.dedup_by(|a, b| a.0 == b.0);
    let mut text = text.clone();
    for (range, with) in changes {
        text.replace_range(range, with);
    }
    text
}

/// The whole line (with its line break) holding `span`.
fn line_around(text: &str, span: &std::ops::Range<usize>) -> std::ops::Range<usize> {
    let start = text[..span.start].rfind('\n').map_or(0, |i| i + 1);
    let end = text[span.end..]
        .find('\n')
        .map_or(text.len(), |i| span.end + i + 1);
    start..end
}

fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    let numbered = t.trim_start_matches(|c: char| c.is_ascii_digit());
    ["- ", "* ", "+ "].iter().any(|m| t.starts_with(m))
        || (numbered.len() < t.len() && (numbered.starts_with(". ") || numbered.starts_with(") ")))
}

/// The byte range of the index's (or summary's) superseded/archived section.
pub(crate) fn superseded_section(text: &str) -> Option<std::ops::Range<usize>> {
    let mut start = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('#') {
            if let Some(s) = start {
                return Some(s..offset);
            }
            let lower = t.to_lowercase();
            if lower.contains("superseded") || lower.contains("archived") {
                start = Some(offset);
            }
        }
        offset += line.len();
    }
    start.map(|s| s..text.len())
}

/// Where to insert a line at the end of the index's superseded/archived
/// section: after its last non-blank line.
fn superseded_section_end(text: &str) -> Option<usize> {
    let mut in_section = false;
    let mut insert_at = None;
    let mut offset = 0;
    for line in text.split_inclusive('\n') {
        let t = line.trim();
        if t.starts_with('#') {
            if in_section {
                break;
            }
            let lower = t.to_lowercase();
            in_section = lower.contains("superseded") || lower.contains("archived");
            if in_section {
                insert_at = Some(offset + line.len());
            }
        } else if in_section && !t.is_empty() {
            insert_at = Some(offset + line.len());
        }
        offset += line.len();
    }
    let at = insert_at?;
    // A section that ends the file without a newline gets one first.
    (text[..at].ends_with('\n')).then_some(at)
}

/// Active impressions routing to the old record get `status: superseded`
/// and `superseded_by` the new record's impression id (or its id).
fn impressions_edit(imp: &super::jsonl::JsonlFile, old: &Record, new: &Record) -> String {
    let routes_to = |line: &super::jsonl::JsonlLine, path: &str| {
        line.str_field("record_path")
            .and_then(|p| paths::resolve_from("", &p))
            .is_some_and(|p| p == path)
    };
    let new_id = imp
        .lines
        .iter()
        .find(|l| routes_to(l, &new.path))
        .and_then(|l| l.str_field("id").map(String::from))
        .or_else(|| new.id().map(str::to_owned));
    let mut text = String::clone(&imp.text);
    for line in imp.lines.iter().rev() {
        let Some(obj) = line.object() else { continue };
        let active = obj
            .get("status")
            .is_none_or(|s| !s.truthy() || s.as_str() == Some("active"));
        if !active || !routes_to(line, &old.path) {
            continue;
        }
        let raw = &imp.text[line.span.clone()];
        let lead = raw.len() - raw.trim_start_matches(js::is_js_space).len();
        let body = js::js_trim(raw);
        let Some(edited) = edit_object_line(body, new_id.as_deref()) else {
            continue;
        };
        let start = line.span.start + lead;
        text.replace_range(start..start + body.len(), &edited);
    }
    text
}

fn edit_object_line(body: &str, new_id: Option<&str>) -> Option<String> {
    let mut sets = vec![("status", JsValue::String("superseded".into()))];
    if let Some(id) = new_id {
        sets.push(("superseded_by", JsValue::String(id.into())));
    }
    let mut text = body.to_owned();
    for (key, value) in sets {
        let spans = js::object_value_spans(&text)?;
        let encoded = serde_json::to_string(&value).ok()?;
        // A key given twice is read by its last value (as JSON.parse and
        // recall read it): that is the one changed.
        match spans.iter().rev().find(|(k, _)| k == key) {
            Some((_, span)) => text.replace_range(span.clone(), &encoded),
            // Right after the last value, so spacing before `}` stays.
            None => match spans.last() {
                Some((_, last)) => text.insert_str(last.end, &format!(",\"{key}\":{encoded}")),
                None => {
                    let close = text.rfind('}')?;
                    text.insert_str(close, &format!("\"{key}\":{encoded}"));
                }
            },
        }
    }
    Some(text)
}

/// Write a plan under the project's lock. The plan is made again from the
/// files as they are now: the records and the index must still change
/// exactly as planned (as shown and confirmed), or nothing is written; the
/// impressions edit is made on the file as it is now, so lines another run
/// added or edited meanwhile are kept. Each file is replaced atomically.
pub fn apply(tx: &Transaction, confirmed: &Plan) -> Result<Vec<String>, String> {
    let now = plan(&tx.load(), &confirmed.old, &confirmed.new)?;
    let changed = changed_since(confirmed, &now);
    if !changed.is_empty() {
        return Err(format!(
            "{} changed since the plan was made; nothing written, run it again",
            changed.join(", ")
        ));
    }
    for e in &now.edits {
        // Text read leniently must not replace bytes that are not UTF-8.
        let bytes = tx.read(&e.path)?.unwrap_or_default();
        if std::str::from_utf8(&bytes) != Ok(e.before.as_str()) {
            return Err(format!(
                "{} is not valid UTF-8 or changed while reading; nothing written",
                e.path
            ));
        }
    }
    tx.set_label("supersede");
    let mut written = Vec::new();
    for e in &now.edits {
        tx.replace(&e.path, e.after.as_bytes())
            .map_err(|err| format!("{err} (written so far: {})", written.join(", ")))?;
        written.push(e.path.clone());
    }
    Ok(written)
}

/// The record and index files whose edit is no longer the one planned.
fn changed_since(confirmed: &Plan, now: &Plan) -> Vec<String> {
    let edit = |p: &Plan, path: &str| p.edits.iter().find(|e| e.path == path).cloned();
    let mut paths: Vec<&str> = confirmed
        .edits
        .iter()
        .chain(&now.edits)
        .map(|e| e.path.as_str())
        .filter(|p| *p != IMPRESSIONS_PATH)
        .collect();
    paths.sort_unstable();
    paths.dedup();
    paths
        .into_iter()
        .filter(|p| edit(confirmed, p) != edit(now, p))
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_set_in_place_or_added_before_the_fence() {
        let text = "---\r\nid: a\r\nstatus: active # keep\r\n---\r\nbody\r\n";
        let fm = super::super::record::parse_frontmatter(text);
        let t = set_key(text, fm.as_ref(), "status", "superseded");
        assert_eq!(t, "---\r\nid: a\r\nstatus: superseded\r\n---\r\nbody\r\n");
        let fm = super::super::record::parse_frontmatter(&t);
        let t = set_key(&t, fm.as_ref(), "superseded_by", "memory/b.md");
        assert_eq!(
            t,
            "---\r\nid: a\r\nstatus: superseded\r\nsuperseded_by: memory/b.md\r\n---\r\nbody\r\n"
        );
        let empty = "---\n---\nbody\n";
        let fm = super::super::record::parse_frontmatter(empty);
        assert_eq!(
            set_key(empty, fm.as_ref(), "k", "v"),
            "---\nk: v\n---\nbody\n"
        );
    }

    #[test]
    fn impression_lines_keep_their_formatting() {
        assert_eq!(
            edit_object_line(r#"{ "id": "a",  "status" : "active" }"#, Some("b")).unwrap(),
            r#"{ "id": "a",  "status" : "superseded","superseded_by":"b" }"#
        );
        // Readers take a repeated key's last value, so that one changes.
        assert_eq!(
            edit_object_line(
                r#"{"id":"a","status":"archived","x":1,"status":"active"}"#,
                None
            )
            .unwrap(),
            r#"{"id":"a","status":"archived","x":1,"status":"superseded"}"#
        );
        assert_eq!(
            edit_object_line(r#"{}"#, None).unwrap(),
            r#"{"status":"superseded"}"#
        );
    }

    /// An impressions file that is there but not read is said to be left
    /// as it is, not passed over in silence.
    #[cfg(unix)]
    #[test]
    fn impressions_not_read_are_named_in_the_plan() {
        let dir = project();
        let r = dir.path();
        std::fs::remove_file(r.join(IMPRESSIONS_PATH)).unwrap();
        let c = std::ffi::CString::new(
            r.join(IMPRESSIONS_PATH)
                .into_os_string()
                .into_encoded_bytes(),
        )
        .unwrap();
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
        let planned = plan(&Project::load_root(r.to_path_buf()), "a", "b").unwrap();
        assert!(
            planned
                .notes
                .iter()
                .any(|n| n.contains("impressions.jsonl was not read")),
            "{:?}",
            planned.notes
        );
    }

    /// A project with decisions a, b and c, routes to a and c, and an index.
    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let r = dir.path();
        std::fs::create_dir_all(r.join("memory/decisions")).unwrap();
        for id in ["a", "b", "c"] {
            std::fs::write(
                r.join(format!("memory/decisions/{id}.md")),
                format!("---\nid: {id}\ntitle: {id}\nstatus: active\n---\n\n# {id}\n"),
            )
            .unwrap();
        }
        std::fs::write(r.join(INDEX_PATH), "# Index\n\n- [a](./decisions/a.md)\n").unwrap();
        std::fs::write(
            r.join(IMPRESSIONS_PATH),
            "{\"id\":\"ia\",\"record_path\":\"memory/decisions/a.md\"}\n\
             {\"id\":\"ic\",\"record_path\":\"memory/decisions/c.md\"}\n",
        )
        .unwrap();
        dir
    }

    fn begin(root: &std::path::Path) -> Transaction {
        Transaction::begin(
            root,
            crate::transaction::Kind::Project,
            std::time::Duration::ZERO,
            || {},
        )
        .unwrap()
    }

    #[test]
    fn the_impressions_are_edited_as_they_are_when_the_plan_is_applied() {
        let dir = project();
        let r = dir.path();
        let confirmed = plan(&Project::load_root(r.to_path_buf()), "a", "b").unwrap();
        // Another run marks the other route meanwhile and adds a line.
        let imp = r.join(IMPRESSIONS_PATH);
        let meanwhile = std::fs::read_to_string(&imp)
            .unwrap()
            .replace("c.md\"}", "c.md\",\"status\":\"archived\"}")
            + "{\"id\":\"new\",\"record_path\":\"memory/decisions/b.md\"}\n";
        std::fs::write(&imp, &meanwhile).unwrap();
        let written = apply(&begin(r), &confirmed).unwrap();
        assert!(
            written.contains(&IMPRESSIONS_PATH.to_owned()),
            "{written:?}"
        );
        assert_eq!(
            std::fs::read_to_string(&imp).unwrap(),
            meanwhile.replace(
                "a.md\"}",
                "a.md\",\"status\":\"superseded\",\"superseded_by\":\"new\"}"
            )
        );
    }

    /// The project as it reads once `plan` is written.
    fn applied(p: &Project, plan: &Plan) -> Project {
        p.with_changes(
            &plan
                .edits
                .iter()
                .map(|e| (e.path.clone(), e.after.clone()))
                .collect(),
        )
    }

    fn codes(p: &Project) -> Vec<&'static str> {
        super::super::checks::check(p)
            .findings
            .iter()
            .map(|f| f.code())
            .filter(|c| c.starts_with("supersed"))
            .collect()
    }

    #[test]
    fn a_list_of_superseded_records_is_extended_in_its_own_form() {
        let dir = project();
        let r = dir.path();
        let b = r.join("memory/decisions/b.md");
        let c = r.join("memory/decisions/c.md");
        let c_superseded = std::fs::read_to_string(&c)
            .unwrap()
            .replace("status: active", "status: superseded\nsuperseded_by: b");
        std::fs::write(&c, c_superseded).unwrap();
        for (list, extended) in [
            (
                "supersedes:\n  - memory/decisions/c.md\n",
                "supersedes:\n  - memory/decisions/c.md\n  - memory/decisions/a.md\n",
            ),
            (
                "supersedes: [memory/decisions/c.md]\n",
                "supersedes: [memory/decisions/c.md, memory/decisions/a.md]\n",
            ),
            ("supersedes: c\n", "supersedes: c, memory/decisions/a.md\n"),
        ] {
            let text = format!("---\nid: b\ntitle: b\nstatus: active\n{list}---\n\n# b\n");
            std::fs::write(&b, &text).unwrap();
            let p = Project::load_root(r.to_path_buf());
            // The list names c already: nothing is missing before the write.
            assert_eq!(codes(&p), Vec::<&str>::new(), "{list}");
            let plan = plan(&p, "a", "b").unwrap();
            let edit = plan
                .edits
                .iter()
                .find(|e| e.path.ends_with("b.md"))
                .unwrap();
            assert_eq!(edit.after, text.replace(list, extended));
            let written = applied(&p, &plan);
            assert_eq!(codes(&written), Vec::<&str>::new(), "{list}");
        }
    }

    #[test]
    fn a_supersession_cycle_is_refused_with_its_chain() {
        let dir = project();
        let r = dir.path();
        let p = Project::load_root(r.to_path_buf());
        let ab = plan(&p, "a", "b").unwrap();
        let p = applied(&p, &ab);
        let e = plan(&p, "b", "a").unwrap_err();
        assert_eq!(
            e,
            "memory/decisions/a.md is itself superseded by memory/decisions/b.md \
             (superseded_by: memory/decisions/a.md → memory/decisions/b.md); recording that it \
             supersedes memory/decisions/b.md would make a supersession cycle; nothing is changed"
        );
        let bc = plan(&p, "b", "c").unwrap();
        let p = applied(&p, &bc);
        let e = plan(&p, "c", "a").unwrap_err();
        assert!(
            e.contains("memory/decisions/a.md → memory/decisions/b.md → memory/decisions/c.md"),
            "{e}"
        );
        assert!(codes(&p).is_empty(), "{:?}", codes(&p));
    }

    #[test]
    fn a_record_superseded_already_keeps_its_successor() {
        let dir = project();
        let r = dir.path();
        let p = Project::load_root(r.to_path_buf());
        let cb = plan(&p, "c", "b").unwrap();
        let p = applied(&p, &cb);
        let e = plan(&p, "c", "a").unwrap_err();
        assert!(
            e.starts_with("memory/decisions/c.md is already superseded by memory/decisions/b.md;"),
            "{e}"
        );
        // Asking again for what is recorded is not refused.
        assert!(plan(&p, "c", "b").unwrap().edits.is_empty());
        // A successor that names no record is replaced, and said so.
        let c = std::fs::read_to_string(r.join("memory/decisions/c.md"))
            .unwrap()
            .replace("status: active", "status: superseded\nsuperseded_by: gone");
        std::fs::write(r.join("memory/decisions/c.md"), c).unwrap();
        let p = Project::load_root(r.to_path_buf());
        let ca = plan(&p, "c", "a").unwrap();
        assert!(
            ca.notes[0].contains("superseded_by `gone` named no record"),
            "{ca:?}"
        );
    }

    #[test]
    fn private_memory_never_reaches_the_shared_index() {
        let dir = project();
        let r = dir.path();
        std::fs::create_dir_all(r.join("memory/private")).unwrap();
        for id in ["p", "q"] {
            std::fs::write(
                r.join(format!("memory/private/{id}.md")),
                format!("---\nid: {id}\ntitle: {id}\nstatus: active\n---\n\n# {id}\n"),
            )
            .unwrap();
        }
        let p = Project::load_root(r.to_path_buf());
        for (old, new) in [("p", "a"), ("a", "p")] {
            let e = plan(&p, old, new).unwrap_err();
            assert!(
                e.starts_with("memory/private/p.md is private memory and memory/decisions/a.md"),
                "{e}"
            );
        }
        let both = plan(&p, "p", "q").unwrap();
        assert!(both.edits.iter().all(|e| e.path != INDEX_PATH), "{both:?}");
        assert!(both.notes[0].contains("index.md is left alone"), "{both:?}");
        // A shared line routing to the old private record would come to
        // name the private successor's id: the impressions are left alone.
        std::fs::write(
            r.join(IMPRESSIONS_PATH),
            "{\"id\":\"plan\",\"record_path\":\"memory/private/p.md\"}\n",
        )
        .unwrap();
        let p = Project::load_root(r.to_path_buf());
        let both = plan(&p, "p", "q").unwrap();
        assert!(
            both.edits.iter().all(|e| paths::is_private(&e.path)),
            "{both:?}"
        );
        assert!(
            both.notes
                .iter()
                .any(|n| n.starts_with("memory/impressions.jsonl is left alone")),
            "{both:?}"
        );
        apply(&begin(r), &both).unwrap();
        assert_eq!(
            std::fs::read_to_string(r.join(IMPRESSIONS_PATH)).unwrap(),
            "{\"id\":\"plan\",\"record_path\":\"memory/private/p.md\"}\n"
        );
    }

    /// A record that is a link (even one leading inside the project) is
    /// refused when planned, saying why and what to give instead, never
    /// shown as a diff that the write would then refuse; a link into
    /// private memory shows none of its text.
    #[cfg(unix)]
    #[test]
    fn a_record_that_is_a_link_is_refused_before_any_plan_is_shown() {
        let dir = project();
        let r = dir.path();
        std::fs::create_dir_all(r.join("memory/context")).unwrap();
        std::fs::rename(
            r.join("memory/decisions/a.md"),
            r.join("memory/context/a.md"),
        )
        .unwrap();
        std::os::unix::fs::symlink("../context/a.md", r.join("memory/decisions/a.md")).unwrap();
        let p = Project::load_root(r.to_path_buf());
        let e = plan(&p, "memory/decisions/a.md", "b").unwrap_err();
        assert!(
            e.starts_with(
                "memory/decisions/a.md is a symbolic link; membank never writes through one"
            ),
            "{e}"
        );
        assert!(e.contains("give memory/context/a.md"), "{e}");
        assert!(!e.contains("reads no link"), "{e}");

        std::fs::create_dir_all(r.join("memory/private")).unwrap();
        for id in ["p", "q"] {
            std::fs::write(
                r.join(format!("memory/private/{id}.md")),
                format!("---\nid: {id}\ntitle: {id}\nstatus: active\n---\n\n# SECRET-{id}\n"),
            )
            .unwrap();
        }
        std::os::unix::fs::symlink("../private/p.md", r.join("memory/decisions/p.md")).unwrap();
        let p = Project::load_root(r.to_path_buf());
        let e = plan(&p, "memory/decisions/p.md", "memory/private/q.md").unwrap_err();
        assert!(e.contains("leads into private memory"), "{e}");
        assert!(!e.contains("SECRET") && !e.contains("private/p.md"), "{e}");
    }

    /// NEW linked already: OLD's entry leaves the index's active section
    /// and the summary instead of staying there as if still in force, and
    /// `check` flags such an entry when it is left.
    #[test]
    fn an_old_entry_goes_where_the_new_record_is_linked_already() {
        let dir = project();
        let r = dir.path();
        let index = "# Index\n\n## Active decisions\n\n- [a](./decisions/a.md)\n\
                     - [b](./decisions/b.md)\n- [c](./decisions/c.md)\n";
        std::fs::write(r.join(INDEX_PATH), index).unwrap();
        let summary = "---\nid: s\ntitle: s\nstatus: active\n---\n\n# s\n\n\
                       - [a](./decisions/a.md)\n- [b](./decisions/b.md)\n\
                       Why: [a](./decisions/a.md) and [c](./decisions/c.md).\n";
        std::fs::write(r.join(SUMMARY_PATH), summary).unwrap();
        let p = Project::load_root(r.to_path_buf());
        let index_codes = |p: &Project| -> Vec<&'static str> {
            super::super::checks::check(p)
                .findings
                .iter()
                .map(|f| f.code())
                .filter(|c| *c == "index-not-updated")
                .collect()
        };
        let written = applied(&p, &plan(&p, "a", "b").unwrap());
        assert_eq!(
            written.record(INDEX_PATH).unwrap().text,
            "# Index\n\n## Active decisions\n\n- [b](./decisions/b.md)\n\
             - [c](./decisions/c.md)\n\n## Superseded or archived\n\n\
             - [a](./decisions/a.md) — superseded by [b](./decisions/b.md)\n"
        );
        // A line naming another record too keeps it and leads to NEW.
        assert_eq!(
            written.summary().unwrap().text,
            "---\nid: s\ntitle: s\nstatus: active\n---\n\n# s\n\n\
             - [b](./decisions/b.md)\n\
             Why: [b](./decisions/b.md) and [c](./decisions/c.md).\n"
        );
        assert_eq!(index_codes(&written), Vec::<&str>::new());

        // The same supersession with the index left as it was.
        let left = written.with_changes(&[(INDEX_PATH.to_owned(), index.to_owned())].into());
        assert_eq!(index_codes(&left), ["index-not-updated"]);
    }

    #[test]
    fn a_record_edited_since_the_plan_stops_it() {
        let dir = project();
        let r = dir.path();
        let confirmed = plan(&Project::load_root(r.to_path_buf()), "a", "b").unwrap();
        let index = r.join(INDEX_PATH);
        std::fs::write(&index, "# Index edited\n\n- [a](./decisions/a.md)\n").unwrap();
        let imp_before = std::fs::read_to_string(r.join(IMPRESSIONS_PATH)).unwrap();
        let e = apply(&begin(r), &confirmed).unwrap_err();
        assert!(e.contains("memory/index.md changed since the plan"), "{e}");
        assert_eq!(
            std::fs::read_to_string(r.join(IMPRESSIONS_PATH)).unwrap(),
            imp_before
        );
    }
}
