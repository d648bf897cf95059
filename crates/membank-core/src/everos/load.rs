//! Walking a memory root and reading its Markdown.
//!
//! Only regular files are read, inside the root unless the user allows
//! links out (`follow_links_out`): a file link is followed while it stays
//! inside, or out with that setting; a linked folder inside the root is
//! reported and never entered (what it holds is read where it is), one
//! that leads out is entered only with that setting. `.index/` (SQLite,
//! LanceDB) and `.tmp/` are noted, never opened. Reading and parsing run
//! on all cores.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::entries;
use super::frontmatter::{self, Head, Split};
use super::paths::{self, DailyKind, FileKind, OwnerKind, SystemKind};
use super::{Entry, MemFile, MemoryRoot, Unclosed};
use crate::health::{Finding, Severity};
use crate::safe_read::{ReadError, RootReader};

/// Deeper than anything everos writes; a guard against pathological trees.
const MAX_DEPTH: usize = 24;

/// Which part of a root to load. Empty: all of it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadFilter {
    /// App id or folder name (`default` and `default_app` both work).
    pub app: Option<String>,
    pub project: Option<String>,
    pub owner_kind: Option<OwnerKind>,
    pub owner: Option<String>,
    pub kind: Option<DailyKind>,
    /// Only daily logs named for this day or later: everything else in the
    /// root is left unread, so a recent slice of a large root reads little.
    pub since: Option<jiff::civil::Date>,
    /// The app given is also the name of a folder of the root, and names
    /// that folder alone (see [`super::query::EntryFilter::settle`]).
    pub app_is_folder: bool,
    /// The same for the project.
    pub project_is_folder: bool,
}

/// Whether the scope name a filter gives (`want`, if any) names the folder
/// `dir` of scope id `id`: by the folder's name, or by its id unless the
/// name given is a folder's own (`by_name_only`).
pub(crate) fn scope_matches(want: Option<&str>, dir: &str, id: &str, by_name_only: bool) -> bool {
    want.is_none_or(|w| w == dir || (!by_name_only && w == id))
}

impl LoadFilter {
    /// May this folder (segments from the root) hold what is asked for?
    fn wants_dir(&self, segs: &[String]) -> bool {
        match segs.len() {
            1 => scope_matches(
                self.app.as_deref(),
                &segs[0],
                paths::app_id_from_dir(&segs[0]),
                self.app_is_folder,
            ),
            2 => scope_matches(
                self.project.as_deref(),
                &segs[1],
                paths::project_id_from_dir(&segs[1]),
                self.project_is_folder,
            ),
            3 => {
                let narrowed =
                    self.owner_kind.is_some() || self.owner.is_some() || self.kind.is_some();
                match segs[2].as_str() {
                    "users" | "agents" => {
                        let kind = self.kind.map(DailyKind::owner_kind).or(self.owner_kind);
                        kind.is_none_or(|k| k.dir_name() == segs[2])
                    }
                    _ => !narrowed,
                }
            }
            4 => self.owner.as_deref().is_none_or(|o| o == segs[3]),
            5 => self.kind.is_none_or(|k| k.dir_name() == segs[4]),
            _ => true,
        }
    }

    /// Files directly in an owner folder (`user.md`) are wanted only when
    /// no kind narrows the load.
    fn wants_file(&self, segs: &[String]) -> bool {
        if self.kind.is_some() && segs.len() <= 5 {
            return false;
        }
        let Some(since) = self.since else {
            return true;
        };
        // Named from the path alone, so an older log is never opened.
        let seg_refs: Vec<&str> = segs.iter().map(String::as_str).collect();
        paths::classify(&seg_refs)
            .daily()
            .is_some_and(|(_, date)| date.is_some_and(|d| d >= since))
    }
}

/// A part of the root a filter names that no folder of the root is: an
/// app, a project or an owner, with the names there are at that level.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NoSuchScope {
    /// `app`, `project`, `user`, `agent` or `owner`.
    pub what: &'static str,
    pub wanted: String,
    /// The names there are at that level within what the filter names
    /// above it, sorted, at most [`SCOPES_KEPT`].
    pub present: Vec<String>,
}

/// Names kept in [`NoSuchScope::present`], at most: a root from elsewhere
/// may hold any number of folders.
pub const SCOPES_KEPT: usize = 1000;

/// The first part `filter` names (app, then project, then owner) that no
/// folder of `root` matches, as the walk matches them; `None` when every
/// part it names is there. Only folder names are listed, never a file
/// read nor a link followed: it says why a filter found nothing.
pub fn no_such_scope(root: &Path, filter: &LoadFilter) -> Option<NoSuchScope> {
    // An owner is looked for among the owners of its own kind, whatever
    // kind of log is asked for: the agent of `--agent bot --kind episode`
    // is there, and no user is offered in its place.
    let filter = &LoadFilter {
        kind: None,
        since: None,
        ..filter.clone()
    };
    let mut branches: Vec<Vec<String>> = vec![Vec::new()];
    for depth in 1..=4 {
        let mut next = Vec::new();
        let mut present = std::collections::BTreeSet::new();
        for segs in &branches {
            let dir = segs.iter().fold(root.to_path_buf(), |d, s| d.join(s));
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                // The entry's own type: a link is not a folder here.
                if !entry.file_type().is_ok_and(|t| t.is_dir()) {
                    continue;
                }
                let Ok(name) = entry.file_name().into_string() else {
                    continue;
                };
                if name.starts_with('.') {
                    continue;
                }
                let mut child = segs.clone();
                child.push(name);
                // Depth 3 is `users` / `agents`: kinds of owner, not names
                // a filter gives, so never offered in their place.
                if filter.wants_dir(&child) {
                    next.push(child);
                } else if depth != 3 && present.len() < SCOPES_KEPT {
                    present.insert(child.pop().unwrap_or_default());
                }
            }
        }
        // An owner is missing too when no folder of its kind is there.
        let (what, wanted) = match depth {
            1 => ("app", &filter.app),
            2 => ("project", &filter.project),
            _ => (
                filter.owner_kind.map_or("owner", OwnerKind::as_str),
                &filter.owner,
            ),
        };
        if let Some(wanted) = wanted
            && next.is_empty()
        {
            return Some(NoSuchScope {
                what,
                wanted: wanted.clone(),
                present: present.into_iter().collect(),
            });
        }
        if next.is_empty() {
            return None;
        }
        branches = next;
    }
    None
}

/// Load the whole root.
pub fn load(root: impl AsRef<Path>) -> Result<MemoryRoot, String> {
    load_filtered(root, &LoadFilter::default())
}

/// [`load`], adding one to `files_read` for each file read, so another
/// thread can show how far loading has come.
pub fn load_counting(
    root: impl AsRef<Path>,
    files_read: &std::sync::atomic::AtomicUsize,
) -> Result<MemoryRoot, String> {
    load_parts(root, &LoadFilter::default(), Some(files_read))
}

/// Load the part of the root that `filter` asks for: the walk skips other
/// apps, projects, owners and kinds, so a narrow query reads little.
pub fn load_filtered(root: impl AsRef<Path>, filter: &LoadFilter) -> Result<MemoryRoot, String> {
    load_parts(root, filter, None)
}

fn load_parts(
    root: impl AsRef<Path>,
    filter: &LoadFilter,
    files_read: Option<&std::sync::atomic::AtomicUsize>,
) -> Result<MemoryRoot, String> {
    let (root, reader, mut walk) = walk_root(root.as_ref(), filter)?;
    let mut files: Vec<MemFile> = walk
        .files
        .into_par_iter()
        .map(|(abs, rel, segs, is_link)| {
            let read = read_file(&reader, &abs, is_link, rel, &segs);
            if let Some(n) = files_read {
                n.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
            read
        })
        .collect::<Vec<_>>()
        .into_iter()
        .map(|(file, problems)| {
            walk.problems.extend(problems);
            file
        })
        .collect();
    files.par_sort_by(|a, b| a.rel_path.cmp(&b.rel_path));
    walk.skill_dirs.sort();
    crate::shared_sort::sort_by(&mut walk.system_dirs, |a, b| a.0.cmp(&b.0));
    crate::shared_sort::sort_by(&mut walk.problems, |a, b| {
        (&a.path, a.line()).cmp(&(&b.path, b.line()))
    });
    let mut loaded = MemoryRoot {
        root,
        files,
        skill_dirs: walk.skill_dirs,
        system_dirs: walk.system_dirs,
        problems: walk.problems,
        docs: Vec::new(),
        doc_of_file: Vec::new(),
    };
    super::memory::index_documents(&mut loaded);
    Ok(loaded)
}

/// Check that `root` is a folder and list what `filter` wants of it,
/// without reading any file.
pub(crate) fn walk_root(
    root: &Path,
    filter: &LoadFilter,
) -> Result<(PathBuf, RootReader, Walk), String> {
    let root = root.to_path_buf();
    let meta = std::fs::metadata(&root).map_err(|e| format!("{}: {e}", root.display()))?;
    if !meta.is_dir() {
        return Err(format!("{}: not a folder", root.display()));
    }
    let reader = RootReader::for_root(&root)
        .map_err(|e| format!("{}: {e}", root.display()))?
        .named("memory root");
    let mut walk = Walk::default();
    walk_dir(&reader, &root, &mut Vec::new(), filter, &mut walk);
    Ok((root, reader, walk))
}

#[derive(Default)]
pub(crate) struct Walk {
    /// (absolute path, relative path, segments, is a link)
    pub(crate) files: Vec<WalkedFile>,
    pub(crate) skill_dirs: Vec<(String, bool)>,
    pub(crate) system_dirs: Vec<(String, SystemKind)>,
    pub(crate) problems: Vec<Finding>,
}

/// A file the walk found: (absolute path, relative path, segments, is a
/// link).
pub(crate) type WalkedFile = (PathBuf, String, Vec<String>, bool);

fn problem(code: &'static str, severity: Severity, path: &str, message: String) -> Finding {
    Finding::new(code, severity, path, None, message)
}

fn walk_dir(
    reader: &RootReader,
    dir: &Path,
    segs: &mut Vec<String>,
    filter: &LoadFilter,
    out: &mut Walk,
) {
    let rel = segs.join("/");
    let Ok(read) = std::fs::read_dir(dir) else {
        out.problems.push(problem(
            "everos-unreadable",
            Severity::Error,
            &rel,
            "this folder cannot be listed".to_owned(),
        ));
        return;
    };
    let mut children: Vec<_> = read.flatten().collect();
    children.sort_by_key(|c| c.file_name());
    for child in children {
        let Some(name) = child.file_name().to_str().map(str::to_owned) else {
            out.problems.push(problem(
                "everos-unreadable",
                Severity::Warning,
                &rel,
                format!(
                    "a name that is not UTF-8 is skipped: {}",
                    crate::text::sanitize_for_terminal(&child.file_name().to_string_lossy(), false)
                ),
            ));
            continue;
        };
        segs.push(name);
        let child_rel = segs.join("/");
        let Ok(ft) = child.file_type() else {
            segs.pop();
            continue;
        };
        let path = child.path();
        if ft.is_symlink() {
            // A linked file is read only if it stays inside (the reader
            // checks); a linked folder only if it leads out of the root and
            // the user opted in.
            match std::fs::metadata(&path) {
                Ok(m) if m.is_dir() => match link_inside(reader, &path) {
                    // Never entered, whatever the setting (which is about
                    // links that leave the root): what it holds would be
                    // read twice, under two owners or kinds.
                    Some(target) => out.problems.push(problem(
                        "everos-link",
                        Severity::Warning,
                        &child_rel,
                        format!(
                            "a folder that is a symbolic link to {target}, inside the memory \
                             root; a linked folder inside the root is not entered, so what it \
                             holds is read only at {target}"
                        ),
                    )),
                    None => match reader.may_enter(&path) {
                        // A folder that holds the root would lead back into
                        // it, and read it all again below the link.
                        Ok(()) if holds_root(reader, &path) => out.problems.push(problem(
                            "everos-link",
                            Severity::Warning,
                            &child_rel,
                            "a folder that is a symbolic link to a folder holding the memory \
                             root; it is not entered, or the root would be read again"
                                .to_owned(),
                        )),
                        Ok(()) => visit_dir(reader, &path, segs, filter, out),
                        Err(e) => out.problems.push(problem(
                            "everos-link",
                            Severity::Warning,
                            &child_rel,
                            format!("a folder that {e}"),
                        )),
                    },
                },
                // A link to nothing, or round in a loop, is a link wherever
                // it is, not a file outside the layout: there is no file.
                Err(e) if filter.wants_file(segs) && unresolvable(&e).is_some() => {
                    let why = unresolvable(&e).unwrap_or(ReadError::DanglingLink);
                    out.problems.push(problem(
                        "everos-link",
                        Severity::Warning,
                        &child_rel,
                        why.to_string(),
                    ));
                }
                _ => {
                    if filter.wants_file(segs) {
                        out.files.push((path, child_rel, segs.clone(), true));
                    }
                }
            }
        } else if ft.is_dir() {
            visit_dir(reader, &path, segs, filter, out);
        } else if ft.is_file() {
            if filter.wants_file(segs) {
                out.files.push((path, child_rel, segs.clone(), false));
            }
        } else {
            // As documented, and as a bank's `not-a-file`: a pipe, socket or
            // device where a memory file may be is an error, not a note.
            out.problems.push(problem(
                "everos-unreadable",
                Severity::Error,
                &child_rel,
                "not a regular file; skipped".to_owned(),
            ));
        }
        segs.pop();
    }
}

/// Why a link cannot be followed at all, from the error of following it:
/// it leads to nothing, or round in a loop.
fn unresolvable(e: &std::io::Error) -> Option<ReadError> {
    #[cfg(unix)]
    if e.raw_os_error() == Some(libc::ELOOP) {
        return Some(ReadError::LinkLoop);
    }
    (e.kind() == std::io::ErrorKind::NotFound).then_some(ReadError::DanglingLink)
}

/// Does the folder a link leads to hold the root (the root itself, or a
/// folder above it)?
fn holds_root(reader: &RootReader, link: &Path) -> bool {
    match (
        std::fs::canonicalize(link),
        std::fs::canonicalize(reader.root()),
    ) {
        (Ok(target), Ok(root)) => root.starts_with(target),
        _ => true,
    }
}

/// Where a linked folder points, relative to the root with `/`, when that
/// is inside the root.
fn link_inside(reader: &RootReader, link: &Path) -> Option<String> {
    let target = std::fs::canonicalize(link).ok()?;
    let root = std::fs::canonicalize(reader.root()).ok()?;
    let rel = target.strip_prefix(&root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    match parts?.join("/") {
        rel if rel.is_empty() => Some(".".to_owned()),
        rel => Some(rel),
    }
}

fn visit_dir(
    reader: &RootReader,
    path: &Path,
    segs: &mut Vec<String>,
    filter: &LoadFilter,
    out: &mut Walk,
) {
    let rel = segs.join("/");
    if segs.len() == 1 {
        match segs[0].as_str() {
            ".index" => return out.system_dirs.push((rel, SystemKind::DerivedIndex)),
            ".tmp" => return out.system_dirs.push((rel, SystemKind::Staging)),
            ".git" => return,
            _ => {}
        }
    }
    if segs.len() > MAX_DEPTH {
        out.problems.push(problem(
            "everos-unknown-file",
            Severity::Info,
            &rel,
            "nested deeper than any memory everos writes; not read".to_owned(),
        ));
        return;
    }
    if !filter.wants_dir(segs) {
        return;
    }
    if segs.len() == 6
        && segs[2] == "agents"
        && segs[4] == "skills"
        && segs[5].starts_with("skill_")
    {
        let main = path.join("SKILL.md");
        let has_main = std::fs::symlink_metadata(main).is_ok_and(|m| m.is_file());
        out.skill_dirs.push((rel, has_main));
    }
    walk_dir(reader, path, segs, filter, out);
}

pub(crate) fn read_file(
    reader: &RootReader,
    abs: &Path,
    is_link: bool,
    rel_path: String,
    segs: &[String],
) -> (MemFile, Vec<Finding>) {
    let mut problems = Vec::new();
    let seg_refs: Vec<&str> = segs.iter().map(String::as_str).collect();
    let place = paths::classify(&seg_refs);
    let mut file = MemFile {
        rel_path,
        place,
        text: String::new(),
        had_bom: false,
        head: None,
        entries: Vec::new(),
        unclosed: None,
    };
    let wanted = file.place.is_memory_markdown()
        && (file.place.kind != FileKind::SkillReference || file.rel_path.ends_with(".md"));
    if !wanted {
        return (file, problems);
    }
    let mut bytes = Vec::new();
    if let Err(e) = reader.read_walked_into(abs, is_link, &mut bytes) {
        let (code, severity) = match e {
            ReadError::LinkLeavesRoot { .. } | ReadError::DanglingLink | ReadError::LinkLoop => {
                ("everos-link", Severity::Warning)
            }
            _ => ("everos-unreadable", Severity::Error),
        };
        problems.push(problem(code, severity, &file.rel_path, e.to_string()));
        return (file, problems);
    }
    let decoded = match crate::text::decode(&bytes) {
        Ok(d) => d,
        Err(e) => {
            problems.push(Finding::new(
                "everos-not-utf8",
                Severity::Error,
                &file.rel_path,
                Some(e.line),
                e.to_string(),
            ));
            return (file, problems);
        }
    };
    file.had_bom = decoded.had_bom;
    file.text = universal_newlines(decoded.text);
    parse_text(&mut file);
    // everos's reader raises on such a file, so a listing or a search
    // without its entries must say why they are missing.
    if file.place.daily().is_some()
        && let Some(e) = file.head.as_ref().and_then(Split::unparsable)
    {
        problems.push(Finding::new(
            "everos-unparsable-yaml",
            Severity::Error,
            &file.rel_path,
            e.line.or(Some(1)),
            format!(
                "the frontmatter's YAML does not parse ({}); everos cannot read the file, so \
                 none of its entries is read",
                e.message
            ),
        ));
    }
    (file, problems)
}

/// The text as everos reads it: Python's `read_text` takes CRLF and a lone
/// CR alike for a line end and gives LF, so a file saved with CR line
/// endings has its frontmatter and its entries on the lines everos counts.
/// The decoding has turned CRLF into LF already; a CR left is a lone one.
fn universal_newlines(text: String) -> String {
    if text.contains('\r') {
        text.replace('\r', "\n")
    } else {
        text
    }
}

/// Split the frontmatter and, for daily logs, find the entries. Public to
/// the crate so tests and the generator can parse text without a disk.
pub(crate) fn parse_text(file: &mut MemFile) {
    let head = if file.had_bom {
        // everos reads with plain UTF-8, so the mark hides the `---`.
        Split {
            head: Head::Missing { unclosed: false },
            body_start: 0,
        }
    } else {
        frontmatter::split(&file.text)
    };
    let body_start = head.body_start;
    // YAML that does not parse makes everos's reader raise: it reads no
    // entry of the file.
    let unreadable = head.unparsable().is_some();
    file.head = Some(head);
    if file.place.daily().is_none() || unreadable {
        return;
    }
    let text = &file.text;
    let scan = entries::scan(&text[body_start..]);
    let mut line = 1;
    let mut counted_to = 0;
    let mut line_at = |offset: usize| {
        line += text.as_bytes()[counted_to..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        counted_to = offset;
        line
    };
    file.entries = scan
        .entries
        .into_iter()
        .map(|raw| {
            let body = raw.body.start + body_start..raw.body.end + body_start;
            let t = entries::trimmed_range(&text[body.clone()]);
            let text_range = body.start + t.start..body.start + t.end;
            Entry {
                line: line_at(raw.span.start + body_start),
                id: raw.id,
                span: raw.span.start + body_start..raw.span.end + body_start,
                body,
                text: text_range,
            }
        })
        .collect();
    if let Some((at, id)) = scan.unclosed {
        file.unclosed = Some(Unclosed {
            line: line_at(at + body_start),
            offset: at + body_start,
            id,
        });
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::everos::paths::Place;

    /// `text` parsed as the file at `rel`, as a read of the root would.
    pub(crate) fn parsed(rel: &str, text: &str) -> MemFile {
        let segs: Vec<&str> = rel.split('/').collect();
        let mut f = MemFile {
            rel_path: rel.to_owned(),
            place: paths::classify(&segs),
            text: text.to_owned(),
            had_bom: false,
            head: None,
            entries: Vec::new(),
            unclosed: None,
        };
        parse_text(&mut f);
        f
    }

    #[test]
    fn entries_get_lines_and_trimmed_text() {
        let text = "---\nid: x\n---\n<!-- entry:ep_20260601_00000001 -->\n\n  first\nsecond\n\n<!-- /entry:ep_20260601_00000001 -->\n<!-- entry:ep_20260601_00000002 -->\nb\n<!-- /entry:ep_20260601_00000002 -->\n";
        let f = parsed("a/p/users/u/episodes/episode-2026-06-01.md", text);
        assert_eq!(f.entries.len(), 2);
        assert_eq!(f.entries[0].line, 4);
        assert_eq!(f.entry_text(&f.entries[0]), "  first\nsecond");
        assert_eq!(f.entries[1].line, 10);
        assert_eq!(f.entry_text(&f.entries[1]), "b");
        let _: &Place = &f.place;
    }

    /// The part a filter names that the root lacks, found from folder
    /// names alone: the first missing level is named, with the names at
    /// that level under what the filter named above it; a link is no
    /// folder, and default_app answers to `default`.
    #[test]
    fn a_filter_naming_a_missing_app_project_or_owner_says_which() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path();
        for dir in [
            "default_app/p1/users/alice/episodes",
            "default_app/p1/agents/bot",
            "acme/p2/users/eve",
            ".index/x",
        ] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        #[cfg(unix)]
        std::os::unix::fs::symlink(
            root.join("acme/p2/users/eve"),
            root.join("acme/p2/users/mallory"),
        )
        .unwrap();
        let filter =
            |app: Option<&str>, project: Option<&str>, owner: Option<(OwnerKind, &str)>| {
                LoadFilter {
                    app: app.map(str::to_owned),
                    project: project.map(str::to_owned),
                    owner_kind: owner.map(|o| o.0),
                    owner: owner.map(|o| o.1.to_owned()),
                    ..LoadFilter::default()
                }
            };
        let missing = |f: LoadFilter| {
            no_such_scope(root, &f).map(|m| (m.what, m.wanted, m.present.join(",")))
        };
        let user = |name| Some((OwnerKind::User, name));
        assert_eq!(
            missing(filter(Some("default"), Some("p1"), user("alice"))),
            None
        );
        assert_eq!(missing(filter(None, None, user("eve"))), None);
        assert_eq!(missing(LoadFilter::default()), None);
        assert_eq!(
            missing(filter(Some("nope"), None, None)),
            Some(("app", "nope".into(), "acme,default_app".into()))
        );
        assert_eq!(
            missing(filter(Some("acme"), Some("p1"), None)),
            Some(("project", "p1".into(), "p2".into()))
        );
        assert_eq!(
            missing(filter(Some("acme"), None, user("alice"))),
            Some(("user", "alice".into(), "eve".into()))
        );
        #[cfg(unix)]
        assert_eq!(
            missing(filter(None, None, user("mallory"))),
            Some(("user", "mallory".into(), "alice,eve".into()))
        );
        // The kind of log asked for does not change which owners are
        // looked among.
        let with_kind = |kind, owner: Option<(OwnerKind, &str)>| LoadFilter {
            kind: Some(kind),
            ..filter(None, None, owner)
        };
        assert_eq!(
            missing(with_kind(
                DailyKind::Episode,
                Some((OwnerKind::Agent, "bot"))
            )),
            None
        );
        assert_eq!(
            missing(with_kind(DailyKind::AgentCase, user("alice"))),
            None
        );
        assert_eq!(
            missing(with_kind(
                DailyKind::Episode,
                Some((OwnerKind::Agent, "alice"))
            )),
            Some(("agent", "alice".into(), "bot".into()))
        );
        // No folder of the owner's kind at all.
        assert_eq!(
            missing(filter(Some("acme"), None, Some((OwnerKind::Agent, "bot")))),
            Some(("agent", "bot".into(), String::new()))
        );
    }

    #[test]
    fn a_bom_hides_the_frontmatter_from_everos() {
        let mut f = parsed("a/p/users/u/user.md", "---\nid: x\n---\nbody");
        assert!(f.head.as_ref().unwrap().mapping().is_some());
        f.had_bom = true;
        parse_text(&mut f);
        assert!(f.head.as_ref().unwrap().mapping().is_none());
    }

    #[test]
    fn a_daily_log_whose_yaml_does_not_parse_has_no_entries_and_says_so() {
        let root = tempfile::tempdir().unwrap();
        let days = root
            .path()
            .join("default_app/default_project/users/u1/episodes");
        std::fs::create_dir_all(&days).unwrap();
        let entry =
            "<!-- entry:ep_20260601_00000001 -->\nhello\n<!-- /entry:ep_20260601_00000001 -->\n";
        std::fs::write(
            days.join("episode-2026-06-01.md"),
            format!("---\nid: [broken\n---\n{entry}"),
        )
        .unwrap();
        std::fs::write(
            days.join("episode-2026-06-02.md"),
            format!("---\nid: fine\n---\n{}", entry.replace("0601", "0602")),
        )
        .unwrap();
        let loaded = load(root.path()).unwrap();
        let entries: Vec<usize> = loaded.files.iter().map(|f| f.entries.len()).collect();
        assert_eq!(entries, [0, 1]);
        let codes: Vec<(&str, &str, Option<usize>)> = loaded
            .problems
            .iter()
            .map(|f| (f.code(), f.path.rsplit('/').next().unwrap(), f.line()))
            .collect();
        assert_eq!(
            codes,
            [("everos-unparsable-yaml", "episode-2026-06-01.md", Some(3))]
        );
        assert!(
            loaded.problems[0]
                .message()
                .contains("none of its entries is read")
        );
        // Reported once: the check adds nothing of its own for it.
        let report = crate::everos::check::check(&loaded);
        let found: Vec<&str> = report
            .findings
            .iter()
            .filter(|f| f.path.ends_with("06-01.md"))
            .map(|f| f.code())
            .collect();
        assert_eq!(found, ["everos-unparsable-yaml"]);
    }

    /// CR-only and CRLF files, and a lone CR inside an entry, read as
    /// everos's universal newlines read them: the frontmatter is found and
    /// entries have the lines Python counts.
    #[test]
    fn a_lone_carriage_return_is_a_line_end_as_for_everos() {
        let root = tempfile::tempdir().unwrap();
        let days = root
            .path()
            .join("default_app/default_project/users/u1/episodes");
        std::fs::create_dir_all(&days).unwrap();
        let lf = "---\nid: e\ntype: episode_daily\nuser_id: u1\ndate: '2026-06-01'\nentry_count: 2\n---\n\
                  <!-- entry:ep_20260601_00000001 -->\nprogress 10%\rprogress 100%\n<!-- /entry:ep_20260601_00000001 -->\n\
                  <!-- entry:ep_20260601_00000002 -->\nhello\n<!-- /entry:ep_20260601_00000002 -->\n";
        std::fs::write(days.join("episode-2026-06-01.md"), lf).unwrap();
        std::fs::write(
            days.join("episode-2026-06-02.md"),
            lf.replace('\r', "\n")
                .replace("0601", "0602")
                .replace("-06-01", "-06-02")
                .replace('\n', "\r"),
        )
        .unwrap();
        std::fs::write(
            days.join("episode-2026-06-03.md"),
            lf.replace('\r', "\n")
                .replace("0601", "0603")
                .replace("-06-01", "-06-03")
                .replace('\n', "\r\n"),
        )
        .unwrap();
        let loaded = load(root.path()).unwrap();
        for f in &loaded.files {
            assert!(
                f.head.as_ref().unwrap().mapping().is_some(),
                "{}",
                f.rel_path
            );
            let got: Vec<(usize, &str)> = f
                .entries
                .iter()
                .map(|e| (e.line, f.entry_text(e)))
                .collect();
            assert_eq!(
                got,
                [(8, "progress 10%\nprogress 100%"), (12, "hello")],
                "{}",
                f.rel_path
            );
        }
        let report = crate::everos::check::check(&loaded);
        assert!(report.findings.is_empty(), "{:?}", report.findings);
    }

    #[test]
    fn unclosed_markers_have_a_line() {
        let f = parsed(
            "a/p/users/u/episodes/episode-2026-06-01.md",
            "---\nid: x\n---\n<!-- entry:ep_20260601_00000001 -->\nnever closed\n",
        );
        assert!(f.entries.is_empty());
        let u = f.unclosed.unwrap();
        assert_eq!((u.line, u.id.as_str()), (4, "ep_20260601_00000001"));
    }

    #[cfg(unix)]
    #[test]
    fn a_link_out_is_named_as_leaving_the_memory_root() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("secret.md"), "---\nid: x\n---\n").unwrap();
        let owner = root.path().join("default_app/default_project/users/u1");
        std::fs::create_dir_all(&owner).unwrap();
        std::os::unix::fs::symlink(outside.path().join("secret.md"), owner.join("user.md"))
            .unwrap();
        let loaded = load(root.path()).unwrap();
        let found = &loaded.problems[0];
        assert_eq!(found.code(), "everos-link");
        assert!(
            found.message().contains("outside the memory root;"),
            "{}",
            found.message()
        );
    }

    /// A linked folder is never entered; one that points inside the root
    /// is said to, and where, not to lead outside it.
    #[cfg(unix)]
    #[test]
    fn a_linked_folder_inside_the_root_is_said_to_be_inside() {
        let root = tempfile::tempdir().unwrap();
        let users = root.path().join("default_app/default_project/users");
        std::fs::create_dir_all(users.join("u1/episodes")).unwrap();
        std::os::unix::fs::symlink("u1", users.join("u1-alias")).unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::os::unix::fs::symlink(outside.path(), users.join("elsewhere")).unwrap();
        let loaded = load(root.path()).unwrap();
        let said: Vec<(&str, String)> = loaded
            .problems
            .iter()
            .map(|f| (f.code(), f.message().to_string()))
            .collect();
        assert_eq!(said.len(), 2, "{said:?}");
        assert_eq!(said[0].0, "everos-link");
        assert!(said[0].1.contains("outside the memory root"), "{said:?}");
        assert_eq!(said[1].0, "everos-link");
        assert!(
            said[1].1.contains(
                "a symbolic link to default_app/default_project/users/u1, inside the memory root"
            ) && !said[1].1.contains("outside"),
            "{said:?}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn a_link_to_nothing_is_named_as_a_link() {
        let root = tempfile::tempdir().unwrap();
        let owner = root.path().join("default_app/default_project/users/u1");
        std::fs::create_dir_all(&owner).unwrap();
        std::os::unix::fs::symlink("gone.md", owner.join("user.md")).unwrap();
        let loaded = load(root.path()).unwrap();
        let found = &loaded.problems[0];
        assert_eq!(found.code(), "everos-link");
        assert!(
            found
                .message()
                .contains("link to something that does not exist"),
            "{}",
            found.message()
        );
    }

    /// The files a walk lists and what it says of links, with links out
    /// of the root followed or not.
    #[cfg(unix)]
    fn walked(root: &Path, follow_links_out: bool) -> (Vec<String>, Vec<(String, String)>) {
        let policy = crate::safe_read::ReadPolicy {
            follow_links_out,
            ..crate::safe_read::ReadPolicy::default()
        };
        let reader = RootReader::new(root, policy).unwrap().named("memory root");
        let mut walk = Walk::default();
        walk_dir(
            &reader,
            root,
            &mut Vec::new(),
            &LoadFilter::default(),
            &mut walk,
        );
        let files = walk.files.into_iter().map(|f| f.1).collect();
        let said = walk
            .problems
            .into_iter()
            .map(|f| (f.path.to_string(), format!("{}: {}", f.code(), f.message())))
            .collect();
        (files, said)
    }

    /// `follow_links_out` is about links that leave the root: a linked
    /// folder inside it is never entered, so nothing under it is counted
    /// twice; one that leads out is entered only with the setting, and
    /// never one that holds the root.
    #[cfg(unix)]
    #[test]
    fn only_a_folder_link_leaving_the_root_is_entered_and_only_when_allowed() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().join("root");
        let log = "default_project/users/u/episodes/episode-2026-06-01.md";
        for app in ["root/default_app", "outside/acme"] {
            let file = tmp.path().join(app).join(log);
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(file, "---\nid: x\n---\n").unwrap();
        }
        std::os::unix::fs::symlink("default_app", root.join("app_alias")).unwrap();
        std::os::unix::fs::symlink(tmp.path().join("outside/acme"), root.join("acme")).unwrap();
        std::os::unix::fs::symlink(tmp.path(), root.join("around")).unwrap();
        let alias_said = |said: &[(String, String)]| {
            said.iter()
                .find(|(p, _)| p == "app_alias")
                .is_some_and(|(_, m)| {
                    m.starts_with(
                        "everos-link: a folder that is a symbolic link to default_app, inside",
                    )
                })
        };
        let (files, said) = walked(&root, true);
        assert_eq!(
            files,
            [format!("acme/{log}"), format!("default_app/{log}")],
            "{said:?}"
        );
        assert!(alias_said(&said), "{said:?}");
        assert!(
            said.iter()
                .any(|(p, m)| p == "around" && m.contains("holding the memory root")),
            "{said:?}"
        );
        assert_eq!(said.len(), 2, "{said:?}");
        let (files, said) = walked(&root, false);
        assert_eq!(files, [format!("default_app/{log}")]);
        assert!(alias_said(&said), "{said:?}");
        assert!(
            said.iter()
                .any(|(p, m)| p == "acme" && m.contains("outside the memory root")),
            "{said:?}"
        );
        assert_eq!(said.len(), 3, "{said:?}");
    }

    /// A link to nothing or round in a loop is named as a link wherever
    /// it is, not as a file outside the layout.
    #[cfg(unix)]
    #[test]
    fn a_broken_link_outside_a_kind_folder_is_a_link_not_an_unknown_file() {
        let root = tempfile::tempdir().unwrap();
        let users = root.path().join("default_app/default_project/users");
        std::fs::create_dir_all(users.join("u/episodes")).unwrap();
        std::os::unix::fs::symlink("/nonexistent", users.join("gone")).unwrap();
        std::os::unix::fs::symlink("nothing", users.join("u/.foresights")).unwrap();
        std::os::unix::fs::symlink("loop2", users.join("loop1")).unwrap();
        std::os::unix::fs::symlink("loop1", users.join("loop2")).unwrap();
        std::os::unix::fs::symlink("nothing.md", users.join("u/episodes/episode-2026-06-01.md"))
            .unwrap();
        let loaded = load(root.path()).unwrap();
        let report = crate::everos::check::check(&loaded);
        let found: Vec<(&str, &str, &str)> = report
            .findings
            .iter()
            .map(|f| {
                let said = f.message();
                let said = if said.contains("does not exist") {
                    "nothing"
                } else if said.contains("loop") {
                    "loop"
                } else {
                    "other"
                };
                (
                    f.path
                        .strip_prefix("default_app/default_project/users/")
                        .unwrap(),
                    f.code(),
                    said,
                )
            })
            .collect();
        let mut found = found;
        found.sort();
        assert_eq!(
            found,
            [
                ("gone", "everos-link", "nothing"),
                ("loop1", "everos-link", "loop"),
                ("loop2", "everos-link", "loop"),
                ("u/.foresights", "everos-link", "nothing"),
                ("u/episodes/episode-2026-06-01.md", "everos-link", "nothing"),
            ]
        );
    }

    #[test]
    fn filters_prune_folders() {
        let f = LoadFilter {
            app: Some("default".into()),
            owner_kind: Some(OwnerKind::User),
            owner: Some("u1".into()),
            kind: Some(DailyKind::Foresight),
            ..LoadFilter::default()
        };
        let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
        assert!(f.wants_dir(&s(&["default_app"])));
        assert!(!f.wants_dir(&s(&["acme"])));
        assert!(f.wants_dir(&s(&["default_app", "p", "users"])));
        assert!(!f.wants_dir(&s(&["default_app", "p", "agents"])));
        assert!(!f.wants_dir(&s(&["default_app", "p", "knowledge"])));
        assert!(!f.wants_dir(&s(&["default_app", "p", "users", "u2"])));
        assert!(f.wants_dir(&s(&["default_app", "p", "users", "u1", ".foresights"])));
        assert!(!f.wants_dir(&s(&["default_app", "p", "users", "u1", "episodes"])));
        assert!(!f.wants_file(&s(&["default_app", "p", "users", "u1", "user.md"])));
    }
}
