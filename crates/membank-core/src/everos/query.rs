//! Listing and finding entries. Ids are unique per file only, so an entry
//! is always named by its scope, owner and id together.

use std::path::Path;

use jiff::civil::Date;
use serde::Serialize;

use super::load::LoadFilter;
use super::paths::{DEFAULT_ID, DailyKind, OwnerKind};
use super::{Entry, MemFile, MemoryRoot};

/// Which entries to list.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryFilter {
    pub app: Option<String>,
    pub project: Option<String>,
    pub owner_kind: Option<OwnerKind>,
    pub owner: Option<String>,
    pub kind: Option<DailyKind>,
    /// Files of this day or later.
    pub since: Option<Date>,
    /// Set by [`EntryFilter::settle`]: the app given names the folder of
    /// that name alone.
    pub app_is_folder: bool,
    /// The same for the project.
    pub project_is_folder: bool,
}

impl EntryFilter {
    /// The part of the filter that narrows which folders are read.
    pub fn load_filter(&self) -> LoadFilter {
        LoadFilter {
            app: self.app.clone(),
            project: self.project.clone(),
            owner_kind: self.owner_kind,
            owner: self.owner.clone(),
            kind: self.kind,
            since: self.since,
            app_is_folder: self.app_is_folder,
            project_is_folder: self.project_is_folder,
        }
    }

    /// Settle what the app and project given name in `root`. `default` is
    /// the id everos writes to `default_app/` (`default_project/`); when a
    /// folder is named `default` too, `default` names that folder alone,
    /// so that each of the two can be named (the other as `default_app`).
    pub fn settle(&mut self, root: &Path) {
        let is_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
        let named_default = |want: &Option<String>| want.as_deref() == Some(DEFAULT_ID);
        self.app_is_folder = named_default(&self.app) && is_dir(&root.join(DEFAULT_ID));
        self.project_is_folder = named_default(&self.project)
            && std::fs::read_dir(root).is_ok_and(|apps| {
                apps.flatten()
                    .any(|app| is_dir(&app.path().join(DEFAULT_ID)))
            });
    }

    /// Are this file's entries among those asked for?
    pub fn keeps(&self, f: &MemFile) -> bool {
        let Some((kind, date)) = f.place.daily() else {
            return false;
        };
        self.keeps_owner(f)
            && self.kind.is_none_or(|k| k == kind)
            && self.since.is_none_or(|s| date.is_some_and(|d| d >= s))
    }

    /// Is this file, daily log or not (a profile such as `user.md`), in
    /// the app, project and owner asked for?
    pub fn keeps_owner(&self, f: &MemFile) -> bool {
        let scope_ok = |want: &Option<String>, dir: Option<&str>, id: Option<&str>, exact| {
            want.is_none()
                || dir.zip(id).is_some_and(|(dir, id)| {
                    super::load::scope_matches(want.as_deref(), dir, id, exact)
                })
        };
        scope_ok(
            &self.app,
            f.place.app_dir.as_deref(),
            f.place.app(),
            self.app_is_folder,
        ) && scope_ok(
            &self.project,
            f.place.project_dir.as_deref(),
            f.place.project(),
            self.project_is_folder,
        ) && self
            .owner_kind
            .is_none_or(|k| f.place.owner.as_ref().is_some_and(|o| o.0 == k))
            && self
                .owner
                .as_deref()
                .is_none_or(|o| f.place.owner.as_ref().is_some_and(|(_, id)| id == o))
    }
}

/// An entry with the file it is in.
#[derive(Debug, Clone, Copy)]
pub struct EntryRef<'a> {
    pub file: &'a MemFile,
    pub entry: &'a Entry,
}

impl<'a> EntryRef<'a> {
    pub fn text(&self) -> &'a str {
        self.file.entry_text(self.entry)
    }

    pub fn kind(&self) -> Option<DailyKind> {
        self.file.place.daily().map(|(k, _)| k)
    }

    pub fn date(&self) -> Option<Date> {
        self.file.place.daily().and_then(|(_, d)| d)
    }

    /// The line that says what the entry is about: the first line of its
    /// first section, or else its first line that is neither the `## id`
    /// header nor a `**key**: value` field.
    pub fn summary(&self) -> &'a str {
        summary_line(self.text(), &self.entry.id)
    }

    /// The entry's `**timestamp**:` field, when it has one.
    pub fn timestamp(&self) -> Option<&'a str> {
        inline_field(self.text(), "timestamp")
    }

    /// The JSON row of `membank entries`.
    pub fn to_json(&self) -> EntryJson<'a> {
        let place = &self.file.place;
        EntryJson {
            file: &self.file.rel_path,
            id: &self.entry.id,
            app: place.app(),
            project: place.project(),
            owner_kind: place.owner.as_ref().map(|o| o.0.as_str()),
            owner: place.owner.as_ref().map(|o| o.1.as_str()),
            kind: self.kind().map(DailyKind::as_str),
            date: self.date().map(|d| d.to_string()),
            line: self.entry.line,
            text: self.text(),
        }
    }
}

/// One entry as `membank entries --json` prints it.
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[derive(Debug, Clone, Serialize, PartialEq, Eq)]
pub struct EntryJson<'a> {
    pub file: &'a str,
    pub id: &'a str,
    pub app: Option<&'a str>,
    pub project: Option<&'a str>,
    pub owner_kind: Option<&'a str>,
    pub owner: Option<&'a str>,
    pub kind: Option<&'a str>,
    pub date: Option<String>,
    pub line: usize,
    pub text: &'a str,
}

/// Every entry the filter keeps, in path order and file order.
pub fn entries<'a>(root: &'a MemoryRoot, filter: &EntryFilter) -> Vec<EntryRef<'a>> {
    root.files
        .iter()
        .filter(|f| filter.keeps(f))
        .flat_map(|file| {
            file.entries
                .iter()
                .map(move |entry| EntryRef { file, entry })
        })
        .collect()
}

/// Entries with this id, narrowed by `filter` (owner, scope): the first
/// in each file, as everos's lookup finds it.
pub fn find<'a>(root: &'a MemoryRoot, id: &str, filter: &EntryFilter) -> Vec<EntryRef<'a>> {
    root.files
        .iter()
        .filter(|f| filter.keeps(f))
        .filter_map(|file| {
            let entry = file.entries.iter().find(|e| e.id == id)?;
            Some(EntryRef { file, entry })
        })
        .collect()
}

/// The root with only the files that hold an entry `id` which `filter`
/// keeps, read a window of files at a time, so a large root is never held:
/// [`find`] over it gives what it gives over the root loaded with
/// `filter.load_filter()`.
pub fn load_holding(root: &Path, id: &str, filter: &EntryFilter) -> Result<MemoryRoot, String> {
    let walked = super::stream::walk(root, &filter.load_filter())?;
    let mut files = Vec::new();
    let problems = walked.read(
        |_, file| (filter.keeps(&file) && file.entries.iter().any(|e| e.id == id)).then_some(file),
        |file| {
            files.extend(file);
            true
        },
    );
    let mut holding = walked.listing(problems);
    holding.files = files;
    Ok(holding)
}

/// See [`EntryRef::summary`].
pub fn summary_line<'t>(text: &'t str, id: &str) -> &'t str {
    let is_field = |l: &str| l.starts_with("**") && l.contains("**:");
    let mut fallback = None;
    let mut in_section = false;
    for line in text.lines() {
        let t = line.trim();
        if t.is_empty() {
            continue;
        }
        if t.starts_with("### ") {
            in_section = true;
            continue;
        }
        let header = t.strip_prefix("## ").is_some_and(|h| h.trim() == id);
        if in_section {
            return t;
        }
        if !header && !is_field(t) && fallback.is_none() {
            fallback = Some(t);
        }
    }
    fallback
        .or_else(|| text.lines().map(str::trim).find(|l| !l.is_empty()))
        .unwrap_or("")
}

/// The value of an audit-form `**key**: value` line (everos's inline fields).
pub fn inline_field<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    text.lines().find_map(|l| {
        let rest = l
            .strip_prefix("**")?
            .strip_prefix(key)?
            .strip_prefix("**:")?;
        Some(rest.trim())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_and_time_come_from_the_audit_form() {
        let text = "## ep_1\n\n**owner_id**: u\n**timestamp**: 2026-06-01T06:03:15+00:00\n\n### Subject\nAPI keys\n\n### Content\nx";
        assert_eq!(summary_line(text, "ep_1"), "API keys");
        assert_eq!(
            inline_field(text, "timestamp"),
            Some("2026-06-01T06:03:15+00:00")
        );
        assert_eq!(summary_line("plain words\nmore", "x"), "plain words");
        assert_eq!(summary_line("## x\n**a**: b", "x"), "## x");
    }
}
