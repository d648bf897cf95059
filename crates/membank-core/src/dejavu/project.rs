//! Loading a Deja Vu project: every file under `memory/` listed, the text
//! files read (regular files only, bounded, never through a link), records,
//! impressions and feedback parsed, links and routes resolved.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;
use serde::Serialize;

use super::jsonl::JsonlFile;
use super::layout::DocSource;
use super::paths;
use super::recall::Impressions;
use super::record::{self, Frontmatter, Link, RecordKind};
use super::stream::StreamedJsonl;
use super::{AGENTS_PATH, FEEDBACK_PATH, IMPRESSIONS_PATH, MEMORY_DIR, SUMMARY_PATH};
use crate::safe_read::{ReadError, RootReader};

/// Deeper folders than this are not walked (a hostile tree may nest).
const MAX_DEPTH: usize = 32;

/// Why a path is not a Deja Vu project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotAProject {
    pub path: PathBuf,
}

impl std::fmt::Display for NotAProject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} is not a Deja Vu project: looked for memory/impressions.jsonl or memory/summary.md in it (or impressions.jsonl / summary.md if it is the memory folder)",
            self.path.display()
        )
    }
}

impl std::error::Error for NotAProject {}

/// The project folder for `path`: the folder holding `memory/`, whether
/// `path` is that folder or `memory/` itself.
pub fn detect(path: &Path) -> Option<PathBuf> {
    crate::memory::detect::dejavu_root(path)
}

/// A file found under `memory/` (or the project's `AGENTS.md`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MemoryFile {
    pub path: String,
    pub size: u64,
    pub private: bool,
    /// A symbolic link: listed, never followed.
    pub symlink: bool,
}

/// A file that could not be read, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ReadProblem {
    pub path: String,
    pub message: String,
}

/// A Markdown file under `memory/`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Record {
    pub path: String,
    pub kind: RecordKind,
    pub private: bool,
    pub frontmatter: Option<Frontmatter>,
    #[serde(skip)]
    pub text: String,
    pub links: Vec<Link>,
}

impl Record {
    pub fn field(&self, key: &str) -> Option<&str> {
        self.frontmatter.as_ref()?.non_empty(key)
    }

    pub fn id(&self) -> Option<&str> {
        self.field("id")
    }

    pub fn title(&self) -> &str {
        self.field("title").unwrap_or(&self.path)
    }

    /// `status` from the frontmatter; absent counts as active.
    pub fn status(&self) -> &str {
        self.field("status").unwrap_or("active")
    }

    pub fn is_active(&self) -> bool {
        self.status() == "active"
    }

    /// The Markdown after the frontmatter.
    pub fn body(&self) -> &str {
        match &self.frontmatter {
            Some(fm) => self.text.get(fm.body_start..).unwrap_or(""),
            None => &self.text,
        }
    }
}

/// Where something points at a path: a Markdown link or an impression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Reference {
    /// The file the link or route is in.
    pub from: String,
    pub line: usize,
    /// `link` or `route`.
    pub via: &'static str,
}

/// A loaded project. Pure data: checks, recall and the interface read it.
#[derive(Debug, Clone, Default)]
pub struct Project {
    pub root: PathBuf,
    /// Every file under `memory/`, sorted by path.
    pub files: Vec<MemoryFile>,
    /// Text of every readable `.md`, `.jsonl` and `.txt` file under
    /// `memory/`, and of `AGENTS.md`, by path. Shared with the JSONL
    /// files parsed from them, so each text is held once.
    pub texts: BTreeMap<String, Arc<String>>,
    pub records: Vec<Record>,
    pub impressions: Option<JsonlFile>,
    pub feedback: Option<JsonlFile>,
    pub agents_present: bool,
    /// `.gitignore` files of the project root and under `memory/`: the
    /// folder they sit in and their text.
    pub gitignores: Vec<(String, String)>,
    pub problems: Vec<ReadProblem>,
    /// Text files that were not valid UTF-8 (read with U+FFFD, as Node does).
    pub not_utf8: Vec<String>,
    /// Backlinks: target path → who points at it.
    pub backlinks: BTreeMap<String, Vec<Reference>>,
    /// The documents the layout boundary lists, in display order.
    pub(crate) docs: Vec<(String, DocSource)>,
    pub(crate) doc_backlinks: Vec<Vec<u32>>,
    /// Each impression line's `record_path`, by index in
    /// `impressions.lines`: read once at load, as lines are not kept parsed.
    routes: Vec<Option<Arc<str>>>,
    /// Links whose own path is not private but whose target is: looked up
    /// for every document, so kept apart rather than searched for.
    linked_private: std::collections::BTreeSet<String>,
    reader: Option<RootReader>,
    /// `impressions.jsonl` opened to be read in pieces rather than read
    /// whole (see [`Project::load_root_streamed`]).
    streamed: Option<Arc<StreamedJsonl>>,
    stream_impressions: bool,
}

/// Whether membank finds a path in a project ([`Project::presence`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Presence {
    Here,
    Missing,
    /// Behind this symbolic link (project-relative), which is not followed.
    Unfollowed(String),
}

/// True for the files the reference doctor scans as text.
pub fn is_text_file(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".md", ".jsonl", ".txt"].iter().any(|e| lower.ends_with(e))
}

impl Project {
    /// Load the project at `path` (the project or its `memory/` folder).
    pub fn load(path: &Path) -> Result<Project, NotAProject> {
        let root = detect(path).ok_or_else(|| NotAProject {
            path: path.to_path_buf(),
        })?;
        Ok(Project::load_root(root))
    }

    /// Load a project whose root is known (a missing `memory/` gives an
    /// empty project whose checks say what is missing).
    pub fn load_root(root: PathBuf) -> Project {
        Project::load_root_with(root, false)
    }

    /// [`Project::load_root`] for a command that only scans the
    /// impressions (recall): `impressions.jsonl` is opened, under the same
    /// rules, but not read, so a large one is never held whole. It is then
    /// in [`Project::impressions_source`] only: `impressions` stays `None`
    /// and its routes are not among the backlinks.
    pub fn load_root_streamed(root: PathBuf) -> Project {
        Project::load_root_with(root, true)
    }

    fn load_root_with(root: PathBuf, stream_impressions: bool) -> Project {
        let mut p = Project {
            reader: RootReader::for_root(&root).ok().map(|r| r.named("project")),
            root,
            stream_impressions,
            ..Project::default()
        };
        p.walk_memory();
        match p.read(AGENTS_PATH) {
            Ok(Some(bytes)) => {
                p.agents_present = true;
                p.texts.insert(AGENTS_PATH.into(), Arc::new(lossy(bytes)));
            }
            Ok(None) => {}
            Err(message) => {
                p.agents_present = true;
                p.problems.push(ReadProblem {
                    path: AGENTS_PATH.into(),
                    message,
                });
            }
        }
        if let Ok(Some(bytes)) = p.read(".gitignore") {
            p.gitignores.insert(0, (String::new(), lossy(bytes)));
        }
        p.derive();
        p
    }

    /// Records, JSONL files, links and backlinks, from `texts`.
    fn derive(&mut self) {
        self.impressions = self
            .texts
            .get(IMPRESSIONS_PATH)
            .map(|t| JsonlFile::of_shared(IMPRESSIONS_PATH, Arc::clone(t)));
        self.feedback = self
            .texts
            .get(FEEDBACK_PATH)
            .map(|t| JsonlFile::of_shared(FEEDBACK_PATH, Arc::clone(t)));
        self.records = self
            .texts
            .iter()
            .filter(|(path, _)| path.starts_with("memory/") && path.ends_with(".md"))
            .map(|(path, text)| Record {
                path: path.clone(),
                kind: RecordKind::of(path),
                private: self.is_private(path),
                frontmatter: record::parse_frontmatter(text),
                text: String::clone(text),
                links: record::links(path, text),
            })
            .collect();
        self.index_backlinks();
        self.docs = super::layout::documents(self);
        self.doc_backlinks = self.document_backlinks();
    }

    /// The project as it would be with these files written (path → whole
    /// text), without touching the disk: what a proposed write would make
    /// the checks say.
    pub fn with_changes(&self, changes: &BTreeMap<String, String>) -> Project {
        let mut p = self.clone();
        for (path, text) in changes {
            p.texts.insert(path.clone(), Arc::new(text.clone()));
            p.not_utf8.retain(|x| x != path);
            p.problems.retain(|x| &x.path != path);
            match p.files.iter_mut().find(|f| &f.path == path) {
                Some(f) => f.size = text.len() as u64,
                None => p.files.push(MemoryFile {
                    path: path.clone(),
                    size: text.len() as u64,
                    private: paths::is_private(path),
                    symlink: false,
                }),
            }
        }
        crate::shared_sort::sort_by(&mut p.files, |a, b| a.path.cmp(&b.path));
        p.derive();
        p
    }

    /// Read a project-relative file through the safe reader: `Ok(None)`
    /// when it does not exist, `Err` with the reason when it may not or
    /// cannot be read.
    pub fn read(&self, rel: &str) -> Result<Option<Vec<u8>>, String> {
        let Some(reader) = &self.reader else {
            return Ok(None);
        };
        match reader.read(Path::new(rel)) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(e) if e.is_not_found() => Ok(None),
            Err(e) => Err(read_message(&e)),
        }
    }

    fn walk_memory(&mut self) {
        let memory = self.root.join(MEMORY_DIR);
        match fs::symlink_metadata(&memory) {
            Ok(m) if m.file_type().is_symlink() => {
                self.problems.push(ReadProblem {
                    path: MEMORY_DIR.into(),
                    message: "memory/ is a symbolic link; it is not followed".into(),
                });
                return;
            }
            Ok(m) if m.is_dir() => {}
            _ => return,
        }
        // Where links inside the project land, for the privacy rule.
        let canonical_root = self.root.canonicalize().ok();
        let walker = walkdir::WalkDir::new(&memory)
            .follow_links(false)
            .max_depth(MAX_DEPTH)
            .sort_by(|a, b| {
                a.file_name()
                    .as_encoded_bytes()
                    .cmp(b.file_name().as_encoded_bytes())
            });
        for entry in walker {
            let entry = match entry {
                Ok(entry) => entry,
                // A folder that cannot be listed is said, not skipped: its
                // records would otherwise be missing without a word.
                Err(e) => {
                    if let Some(rel) = e.path().and_then(|p| p.strip_prefix(&self.root).ok()) {
                        let what = match e.path().is_some_and(Path::is_dir) {
                            true => "this folder",
                            false => "this file",
                        };
                        let why = e
                            .io_error()
                            .map_or_else(|| e.to_string(), |io| io.to_string());
                        self.problems.push(ReadProblem {
                            path: rel.to_string_lossy().replace('\\', "/"),
                            message: format!("{what} could not be read: {why}"),
                        });
                    }
                    continue;
                }
            };
            let ft = entry.file_type();
            let Ok(rel) = entry.path().strip_prefix(&self.root) else {
                continue;
            };
            let rel = rel
                .components()
                .map(|c| c.as_os_str().to_string_lossy())
                .collect::<Vec<_>>()
                .join("/");
            if ft.is_dir() {
                // A folder where the layout has a file the project cannot
                // do without is a broken project, not a missing file.
                if rel == SUMMARY_PATH || rel == IMPRESSIONS_PATH {
                    self.problems.push(ReadProblem {
                        path: rel,
                        message: format!("{UNREAD_SUBJECT}is a folder, not a file; it is not read"),
                    });
                }
                continue;
            }
            let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
            let symlink = ft.is_symlink();
            let private = paths::is_private(&rel)
                || (symlink && links_to_private(entry.path(), canonical_root.as_deref()));
            if private && !paths::is_private(&rel) {
                self.linked_private.insert(rel.clone());
            }
            self.files.push(MemoryFile {
                path: rel.clone(),
                size,
                private,
                symlink,
            });
            if symlink && fs::metadata(entry.path()).is_ok_and(|m| m.is_dir()) {
                self.problems.push(ReadProblem {
                    path: rel,
                    message: "a symbolic link to a folder; not followed".into(),
                });
                continue;
            }
            let Some(reader) = &self.reader else {
                continue;
            };
            let read = |buf: &mut Vec<u8>| {
                reader
                    .read_walked_into(entry.path(), symlink, buf)
                    .map_err(|e| read_message(&e))
            };
            if entry.file_name() == ".gitignore" {
                let mut buf = Vec::new();
                if read(&mut buf).is_ok() {
                    self.gitignores
                        .push((paths::parent(&rel).to_owned(), lossy(buf)));
                }
                continue;
            }
            if !is_text_file(&rel) {
                continue;
            }
            if self.stream_impressions && rel == IMPRESSIONS_PATH {
                match reader.open_walked(entry.path(), symlink) {
                    Ok((file, size)) => {
                        let cap = reader.policy().max_file_bytes;
                        self.streamed = Some(Arc::new(StreamedJsonl::new(rel, file, size, cap)));
                    }
                    Err(e) => self.problems.push(ReadProblem {
                        path: rel,
                        message: read_message(&e),
                    }),
                }
                continue;
            }
            let mut buf = Vec::new();
            match read(&mut buf).map(|_| Some(buf)) {
                Ok(Some(bytes)) => {
                    if std::str::from_utf8(&bytes).is_err() || bytes.contains(&0) {
                        self.not_utf8.push(rel.clone());
                    }
                    self.texts.insert(rel, Arc::new(lossy(bytes)));
                }
                Ok(None) => {}
                Err(message) => self.problems.push(ReadProblem { path: rel, message }),
            }
        }
    }

    fn index_backlinks(&mut self) {
        let mut map: BTreeMap<String, Vec<Reference>> = BTreeMap::new();
        for r in &self.records {
            for l in &r.links {
                if let Some(target) = &l.resolved {
                    map.entry(target.clone()).or_default().push(Reference {
                        from: r.path.clone(),
                        line: l.line,
                        via: "link",
                    });
                }
            }
        }
        let mut routes = Vec::new();
        if let Some(imp) = &self.impressions {
            let found: Vec<Option<Cow<str>>> = if crate::parallel::pays(imp.lines.len()) {
                imp.lines
                    .par_iter()
                    .map(|l| l.str_field("record_path"))
                    .collect()
            } else {
                imp.lines
                    .iter()
                    .map(|l| l.str_field("record_path"))
                    .collect()
            };
            // Many impressions route to one record: each path is held once.
            let mut interned: HashMap<&str, Arc<str>> = HashMap::new();
            routes.reserve_exact(found.len());
            for (line, path) in imp.lines.iter().zip(&found) {
                let path = path
                    .as_deref()
                    .map(|p| Arc::clone(interned.entry(p).or_insert_with(|| Arc::from(p))));
                if let Some(target) = path.as_deref().and_then(|p| paths::resolve_from("", p)) {
                    map.entry(target).or_default().push(Reference {
                        from: IMPRESSIONS_PATH.into(),
                        line: line.line,
                        via: "route",
                    });
                }
                routes.push(path);
            }
        }
        self.backlinks = map;
        self.routes = routes;
    }

    /// The impressions to scan: the file read whole, or opened to be read
    /// in pieces; `None` when there is none to read.
    pub fn impressions_source(&self) -> Option<Impressions<'_>> {
        match (&self.impressions, &self.streamed) {
            (Some(file), _) => Some(Impressions::Loaded(file)),
            (None, Some(streamed)) => Some(Impressions::Streamed(streamed)),
            (None, None) => None,
        }
    }

    /// The `record_path` of the impression at this index of
    /// `impressions.lines`, when it is a string.
    pub fn route(&self, index: usize) -> Option<&str> {
        self.routes.get(index)?.as_deref()
    }

    /// Private memory by the rule of [`paths::is_private`], applied both to
    /// the path as written and, for a link, to where it leads: a link in
    /// `memory/decisions/` to `memory/private/plans.md` is as private as
    /// the file itself.
    /// The paths that are private because they lead into private memory
    /// by a symbolic link (besides those [`paths::is_private`] names).
    pub fn private_links(&self) -> &std::collections::BTreeSet<String> {
        &self.linked_private
    }

    pub fn is_private(&self, path: &str) -> bool {
        paths::is_private(path) || self.linked_private.contains(path)
    }

    /// The 1-based lines of the file at `path` that name private memory: a
    /// Markdown link leading into it, an impression line whose
    /// `record_path` routes to it. Whoever withholds private memory
    /// withholds these lines too, since they say what it holds and where.
    /// Empty for a file that is private itself (it is withheld whole).
    pub fn lines_naming_private(&self, path: &str) -> Vec<usize> {
        if self.is_private(path) {
            return Vec::new();
        }
        let mut lines = std::collections::BTreeSet::new();
        if let Some(r) = self.record(path) {
            for l in &r.links {
                if l.resolved.as_deref().is_some_and(|t| self.is_private(t)) {
                    lines.insert(l.line);
                }
            }
            // What is no inline link names it too: a reference definition
            // (`[f]: ./private/plans.md`), a wiki link (`[[private/plans]]`)
            // or a path written out (`see memory/private/plans.md`).
            let base = paths::parent(path);
            for (i, line) in r.text.lines().enumerate() {
                if self.line_names_private_path(base, line) {
                    lines.insert(i + 1);
                }
            }
        }
        if path == IMPRESSIONS_PATH
            && let Some(imp) = &self.impressions
        {
            for (i, line) in imp.lines.iter().enumerate() {
                // As recall reads the route (by its own name) and as
                // writeback does (where it leads).
                let private = self.route(i).is_some_and(|p| {
                    paths::is_private(p)
                        || paths::resolve_from("", p).is_some_and(|p| self.is_private(&p))
                });
                if private {
                    lines.insert(line.line);
                }
            }
        }
        lines.into_iter().collect()
    }

    /// Whether `line` of a record in the folder `base` writes a path into
    /// private memory: read from its folder, from `memory/` (where a wiki
    /// link's name is looked for) or from the project. A word like
    /// `private/public` in prose is taken for one too: withholding a line
    /// too many costs less than naming private memory.
    fn line_names_private_path(&self, base: &str, line: &str) -> bool {
        if line.contains("[[") && self.wiki_link_names_private(line) {
            return true;
        }
        let secret = |w: &[u8]| w.eq_ignore_ascii_case(b".secret.");
        if !line.contains('/') && !line.as_bytes().windows(8).any(secret) {
            return false;
        }
        let is_stop = |c: char| {
            c.is_whitespace()
                || matches!(
                    c,
                    '(' | ')' | '[' | ']' | '<' | '>' | '"' | '\'' | '`' | '|'
                )
        };
        line.split(is_stop).any(|word| {
            let word = word.split('#').next().unwrap_or("");
            let word = word.trim_end_matches(['.', ',', ';', ':', '!', '?']);
            let word = word.strip_suffix(':').unwrap_or(word);
            if word.is_empty() {
                return false;
            }
            let word = paths::percent_decode(word);
            let private = |p: &str| {
                self.is_private(p)
                    || self.is_private(&format!("{}/", p.trim_end_matches('/')))
                    || self.is_private(&format!("{p}.md"))
            };
            // From the note's folder, from `memory/`, from the project,
            // and written from the project's root (`/memory/private/x.md`).
            let rooted = word.trim_start_matches('/');
            [base, "memory", ""]
                .iter()
                .filter_map(|from| paths::resolve_from(from, &word))
                .chain(paths::resolve_from("", rooted))
                .any(|p| private(&p))
        })
    }

    /// The lines of `text`, proposed for the file at `path` and not yet
    /// written (a diff's new lines), that name private memory, as the
    /// lines of the files on disk are judged.
    pub fn proposed_lines_naming_private<'t>(&self, path: &str, text: &'t str) -> Vec<&'t str> {
        let base = paths::parent(path);
        text.lines()
            .map(|l| l.trim_end_matches('\r'))
            .filter(|l| self.line_names_private_path(base, l))
            .collect()
    }

    /// Does a `[[wiki link]]` of `line` name a private file by its name (as
    /// Obsidian resolves `[[plans]]`: any file of that name, the path's
    /// last folders matching when some are written)?
    fn wiki_link_names_private(&self, line: &str) -> bool {
        crate::wikilink::extract_plain(line).iter().any(|l| {
            let name = l.target.trim().trim_start_matches("./").to_lowercase();
            if name.is_empty() {
                return false;
            }
            let name = name.strip_suffix(".md").unwrap_or(&name).to_owned();
            self.files.iter().any(|f| {
                let path = f.path.to_lowercase();
                let stem = path.strip_suffix(".md").unwrap_or(&path);
                (stem == name || stem.ends_with(&format!("/{name}"))) && self.is_private(&f.path)
            })
        })
    }

    pub fn record(&self, path: &str) -> Option<&Record> {
        self.records.iter().find(|r| r.path == path)
    }

    /// A record by id or by project-relative path.
    pub fn find_record(&self, key: &str) -> Option<&Record> {
        let key_path = key.trim_start_matches("./");
        self.record(key_path)
            .or_else(|| self.records.iter().find(|r| r.id() == Some(key)))
    }

    pub fn summary(&self) -> Option<&Record> {
        self.record(SUMMARY_PATH)
    }

    /// True when a project-relative path names something membank finds in
    /// the project (see [`Project::presence`]).
    pub fn exists(&self, path: &str) -> bool {
        self.presence(path) == Presence::Here
    }

    /// Whether a project-relative path names something membank finds in
    /// the project: a file found under `memory/`, a folder, or a file
    /// elsewhere in the project, reached through no link it does not
    /// follow. A path behind such a link (one leaving the project, or
    /// `memory/` itself) is not there for membank, which reads nothing
    /// through it, so a route or required file there is reported rather
    /// than taken on trust.
    pub fn presence(&self, path: &str) -> Presence {
        if path.is_empty() {
            return Presence::Here;
        }
        if let Some(f) = self.files.iter().find(|f| f.path == path)
            && (!f.symlink || self.texts.contains_key(path))
        {
            return Presence::Here;
        }
        let mut current = self.root.clone();
        let mut walked: Vec<&str> = Vec::new();
        for seg in path.split('/') {
            current.push(seg);
            walked.push(seg);
            match fs::symlink_metadata(&current) {
                Ok(m) if m.file_type().is_symlink() => return self.behind_link(path, &walked),
                Ok(_) => {}
                Err(_) => return Presence::Missing,
            }
        }
        Presence::Here
    }

    /// [`Project::presence`] for a path whose walk met a link at `walked`:
    /// `memory/` is never entered through one; any other link only as the
    /// reader follows it (inside the project, or out when the user allows).
    fn behind_link(&self, path: &str, walked: &[&str]) -> Presence {
        let link = walked.join("/");
        let Some(reader) = &self.reader else {
            return Presence::Unfollowed(link);
        };
        if link == MEMORY_DIR {
            return Presence::Unfollowed(link);
        }
        match reader.check_inside(Path::new(path)) {
            Ok(full) if fs::metadata(&full).is_ok() => Presence::Here,
            Err(ReadError::LinkLeavesRoot { .. }) => Presence::Unfollowed(link),
            _ => Presence::Missing,
        }
    }

    /// Who links to or routes to `path`.
    pub fn references_to(&self, path: &str) -> &[Reference] {
        self.backlinks.get(path).map_or(&[], Vec::as_slice)
    }

    /// The text of a file, if it was read.
    pub fn text(&self, path: &str) -> Option<&str> {
        self.texts.get(path).map(|t| t.as_str())
    }

    /// The absolute path of the project, `/`-separated, as the reference
    /// resolves it (lexically, no links followed).
    pub fn absolute_root(&self) -> String {
        std::path::absolute(&self.root)
            .unwrap_or_else(|_| self.root.clone())
            .to_string_lossy()
            .replace('\\', "/")
    }
}

/// Does the link at `link` lead to private memory of the project? A link
/// that cannot be resolved leads nowhere readable; one leading out of the
/// project is private only by its own name (it is read only when the user
/// allows links out).
fn links_to_private(link: &Path, canonical_root: Option<&Path>) -> bool {
    let (Some(root), Ok(target)) = (canonical_root, link.canonicalize()) else {
        return false;
    };
    let Ok(rel) = target.strip_prefix(root) else {
        return false;
    };
    let rel = rel
        .components()
        .map(|c| c.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/");
    paths::is_private(&rel)
}

/// Node reads files as UTF-8 with replacement characters; so do we, so
/// lengths and patterns agree.
fn lossy(bytes: Vec<u8>) -> String {
    match String::from_utf8(bytes) {
        Ok(s) => s,
        Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
    }
}

/// Why a file was not read, in words that name links as links. Each error
/// already says the file is not read ("…; it is not read", "could not be
/// read: …"): it needs only its subject.
fn read_message(e: &ReadError) -> String {
    match e {
        ReadError::LinkLeavesRoot { .. } => {
            "a symbolic link leading outside the project; not followed".into()
        }
        ReadError::DanglingLink => "a symbolic link to something that does not exist".into(),
        ReadError::LinkLoop => "a symbolic link loop (it leads back to itself)".into(),
        other => format!("{UNREAD_SUBJECT}{other}"),
    }
}

/// How [`read_message`] begins for a file it could not read, so that the
/// file's own name can take its place.
pub const UNREAD_SUBJECT: &str = "this file ";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_impressions_text_is_held_once_and_routes_are_read_from_it() {
        let tmp = tempfile::tempdir().unwrap();
        fs::create_dir_all(tmp.path().join("memory/decisions")).unwrap();
        fs::write(tmp.path().join("memory/decisions/café.md"), "# Café\n").unwrap();
        fs::write(
            tmp.path().join(IMPRESSIONS_PATH),
            concat!(
                "{\"id\":\"a\",\"record_path\":\"memory/decisions/caf\\u00e9.md\"}\n",
                "{\"record_path\":7}\n",
                "not json, \"record_path\":\"memory/decisions/café.md\"\n",
                "\n",
                "{\"record_path\":\"x\",\"record_path\":\"memory/decisions/café.md\"}\n",
            ),
        )
        .unwrap();
        let p = Project::load(tmp.path()).unwrap();
        let imp = p.impressions.as_ref().unwrap();
        assert!(Arc::ptr_eq(&imp.text, &p.texts[IMPRESSIONS_PATH]));
        let routes: Vec<Option<&str>> = (0..imp.lines.len()).map(|i| p.route(i)).collect();
        assert_eq!(
            routes,
            [
                Some("memory/decisions/café.md"),
                None,
                None,
                Some("memory/decisions/café.md")
            ]
        );
        let lines: Vec<usize> = p
            .references_to("memory/decisions/café.md")
            .iter()
            .map(|r| r.line)
            .collect();
        assert_eq!(lines, [1, 5]);
    }
}
