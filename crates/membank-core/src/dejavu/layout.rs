//! A Deja Vu project behind the layout boundary: its files as documents
//! grouped by kind, Markdown links and `record_path` routes as links, the
//! checks as its health report.

use std::borrow::Cow;
use std::path::Path;

use super::project::{NotAProject, Project};
use super::record::RecordKind;
use super::{AGENTS_PATH, FEEDBACK_PATH, IMPRESSIONS_PATH, paths};
use crate::memory::{
    Backlinks, DocId, DocLink, Document, HealthOptions, HealthReport, LayoutSpec, Memory,
    OpenError, Resolution, detect,
};

pub static LAYOUT: LayoutSpec = LayoutSpec {
    name: "dejavu",
    kind: crate::memory::LayoutKind::DejaVu,
    record: "record",
    place: "project",
    title: "a Deja Vu project",
    noun: "Deja Vu project",
    looked_for: "memory/impressions.jsonl or memory/summary.md",
    detect: detect::dejavu_root,
    detect_forced: None,
    open: |root| Ok(Box::new(Project::load_root(root.to_path_buf()))),
    // A project is a handful of files: counted once it is read.
    open_counting: |root, files_read| {
        let project = Project::load_root(root.to_path_buf());
        files_read.fetch_add(project.len(), std::sync::atomic::Ordering::Relaxed);
        Ok(Box::new(project))
    },
    open_listing: None,
    may_hold: crate::memory::changes::hidden_kept,
};

impl From<NotAProject> for OpenError {
    fn from(e: NotAProject) -> OpenError {
        OpenError::NotThisLayout {
            path: e.path,
            spec: &LAYOUT,
        }
    }
}

/// Open `path` (the project or its `memory/` folder) as a Deja Vu project,
/// for the commands only Deja Vu has; `forced` is `--format`.
pub fn open_project(
    path: &Path,
    forced: Option<&'static LayoutSpec>,
) -> Result<Project, OpenError> {
    crate::memory::open_as::<Project>(path, forced, &LAYOUT).map(|p| *p)
}

/// [`open_project`] for a command that only scans the impressions: they
/// are read in pieces rather than held (see [`Project::load_root_streamed`]).
pub fn open_project_streamed(
    path: &Path,
    forced: Option<&'static LayoutSpec>,
) -> Result<Project, OpenError> {
    let found = crate::memory::detect(path, forced)?;
    if *found.spec != LAYOUT {
        return Err(OpenError::WrongLayout {
            path: path.to_path_buf(),
            found: found.spec,
            wanted: &LAYOUT,
        });
    }
    Ok(Project::load_root_streamed(found.root))
}

/// One entry of the document list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum DocSource {
    /// Index into `Project::records`.
    Record(usize),
    /// A text file that is not a record (`impressions.jsonl`, AGENTS.md).
    Text(String),
}

/// Where a document sits in the Bank pane, and in which order.
fn place(path: &str) -> (u8, &'static str, &'static str) {
    match RecordKind::of(path) {
        RecordKind::Summary => (0, "", "summary"),
        RecordKind::Index => (1, "", "index"),
        RecordKind::Decision => (3, "decisions", "decision"),
        RecordKind::OpenLoop => (4, "open-loops", "open-loop"),
        RecordKind::Context => (5, "context", "context"),
        RecordKind::Event => (6, "events", "event"),
        RecordKind::Other if path == IMPRESSIONS_PATH => (2, "", "impressions"),
        RecordKind::Other if path == FEEDBACK_PATH => (2, "", "feedback"),
        RecordKind::Other if path == AGENTS_PATH => (8, "", "rules"),
        RecordKind::Other => (7, "other", "other"),
    }
}

/// The documents in display order: summary, index, the JSONL files, then
/// the records by kind, then AGENTS.md.
pub(crate) fn documents(project: &Project) -> Vec<(String, DocSource)> {
    let mut docs: Vec<(String, DocSource)> = project
        .records
        .iter()
        .enumerate()
        .map(|(i, r)| (r.path.clone(), DocSource::Record(i)))
        .collect();
    for path in project.texts.keys() {
        let is_record = path.starts_with("memory/") && path.ends_with(".md");
        if !is_record {
            docs.push((path.clone(), DocSource::Text(path.clone())));
        }
    }
    crate::shared_sort::sort_by(&mut docs, |a, b| {
        (place(&a.0).0, &a.0).cmp(&(place(&b.0).0, &b.0))
    });
    docs
}

impl Memory for Project {
    fn spec(&self) -> &'static LayoutSpec {
        &LAYOUT
    }

    fn root(&self) -> &Path {
        &self.root
    }

    fn len(&self) -> usize {
        self.docs.len()
    }

    fn document(&self, id: DocId) -> Document<'_> {
        let (path, source) = &self.docs[id];
        let (_, group, kind) = place(path);
        let groups = if group.is_empty() {
            Vec::new()
        } else {
            vec![Cow::Borrowed(group)]
        };
        match source {
            DocSource::Record(i) => {
                let r = &self.records[*i];
                Document {
                    path,
                    title: Cow::Borrowed(r.title()),
                    groups,
                    kind: Cow::Borrowed(kind),
                    status: Some(Cow::Borrowed(r.status())),
                    private: r.private,
                    text: &r.text,
                    body_start: r.frontmatter.as_ref().map_or(0, |f| f.body_start),
                    frontmatter: r.frontmatter.as_ref().map(|f| f.raw.clone()),
                }
            }
            DocSource::Text(p) => {
                let text = self.text(p).unwrap_or_default();
                Document {
                    path,
                    title: Cow::Borrowed(path.rsplit('/').next().unwrap_or(path)),
                    groups,
                    kind: Cow::Borrowed(kind),
                    status: None,
                    private: self.is_private(path),
                    text,
                    body_start: 0,
                    frontmatter: None,
                }
            }
        }
    }

    fn find(&self, path: &str) -> Option<DocId> {
        let path = path.trim_start_matches("./");
        self.docs.iter().position(|(p, _)| p == path)
    }

    fn resolve(&self, name: &str) -> Resolution {
        match self.find(name) {
            Some(id) => Resolution::One(id),
            None => match self.find_record(name) {
                Some(r) => self.find(&r.path).map_or(Resolution::Dead, Resolution::One),
                None => Resolution::Dead,
            },
        }
    }

    fn links(&self, id: DocId) -> Vec<DocLink<'_>> {
        let (path, source) = &self.docs[id];
        match source {
            DocSource::Record(i) => {
                let r = &self.records[*i];
                r.links
                    .iter()
                    .filter(|l| !l.external)
                    .map(|l| DocLink {
                        raw: r.text.get(l.span.clone()).unwrap_or(&l.target),
                        target: &l.target,
                        line: l.line,
                        in_frontmatter: false,
                        resolution: self.resolution_of(l.resolved.as_deref()),
                    })
                    .collect()
            }
            // `record_path` routes are the impression file's links.
            DocSource::Text(_) if path == IMPRESSIONS_PATH => self
                .impressions
                .iter()
                .flat_map(|f| f.lines.iter().enumerate().map(move |(i, l)| (f, i, l)))
                .filter_map(|(f, i, l)| {
                    let target = self.route(i)?;
                    Some(DocLink {
                        raw: &f.text[l.span.clone()],
                        target,
                        line: l.line,
                        in_frontmatter: false,
                        resolution: self.resolution_of(paths::resolve_from("", target).as_deref()),
                    })
                })
                .collect(),
            DocSource::Text(_) => Vec::new(),
        }
    }

    fn backlinks(&self, id: DocId) -> Backlinks<'_> {
        Backlinks::of(self.doc_backlinks.get(id).map_or(&[], Vec::as_slice))
    }

    fn check(&self, _opts: &HealthOptions) -> HealthReport {
        super::checks::check(self)
    }

    fn lines_naming_private(&self, id: DocId) -> Vec<usize> {
        self.docs.get(id).map_or_else(Vec::new, |(path, _)| {
            Project::lines_naming_private(self, path)
        })
    }
}

impl Project {
    fn resolution_of(&self, path: Option<&str>) -> Resolution {
        path.and_then(|p| self.find(p))
            .map_or(Resolution::Dead, Resolution::One)
    }

    /// For each document, the documents that link or route to it.
    pub(crate) fn document_backlinks(&self) -> Vec<Vec<u32>> {
        (0..self.docs.len())
            .map(|id| {
                let mut from: Vec<u32> = self
                    .references_to(&self.docs[id].0)
                    .iter()
                    .filter_map(|r| self.find(&r.from))
                    .filter_map(|id| u32::try_from(id).ok())
                    .collect();
                from.sort_unstable();
                from.dedup();
                from
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::memory::{self, Resolution};

    fn demo() -> PathBuf {
        // The demo project ships with the binary crate, two levels up.
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../demo-dejavu")
    }

    #[test]
    fn the_boundary_opens_a_project_from_its_folder_or_its_memory_folder() {
        for path in [demo(), demo().join("memory")] {
            let m = memory::open(&path, None).unwrap();
            assert_eq!(m.spec().name, "dejavu");
            assert!(m.root().join("memory/summary.md").is_file());
        }
    }

    #[test]
    fn documents_are_grouped_by_kind_with_links_routes_and_backlinks() {
        let m = memory::open(&demo(), None).unwrap();
        let paths: Vec<&str> = (0..m.len()).map(|i| m.document(i).path).collect();
        assert_eq!(paths[0], "memory/summary.md");
        assert_eq!(paths.last(), Some(&"AGENTS.md"));
        let old = m.find("memory/decisions/local-preferences.md").unwrap();
        let d = m.document(old);
        assert_eq!(d.groups, vec!["decisions"]);
        assert_eq!(d.status.as_deref(), Some("superseded"));
        assert!(d.body().starts_with("\n# Keep preferences"));
        let newer = m.find("memory/decisions/settings-sync.md").unwrap();
        assert!(
            m.links(old)
                .iter()
                .any(|l| l.resolution == Resolution::One(newer))
        );
        // Impressions route to records; the route is a backlink.
        let imp = m.find("memory/impressions.jsonl").unwrap();
        let routes = m.links(imp);
        assert_eq!(routes.len(), 4);
        assert_eq!(routes[0].line, 1);
        assert!(m.backlinks(newer).contains(imp));
        assert!(
            m.check(&crate::health::HealthOptions::as_of(jiff::civil::date(
                2026, 4, 8
            )))
            .findings
            .is_empty()
        );
    }
}
