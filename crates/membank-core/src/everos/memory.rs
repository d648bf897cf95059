//! The everos memory root behind the layout boundary. What only everos has
//! (entries, owners, root resolution) stays on [`MemoryRoot`] and its
//! modules; this is how the shared model sees it.

use std::borrow::Cow;
use std::path::Path;

use super::frontmatter::Head;
use super::paths::{FileKind, OwnerKind, Place};
use super::{MemFile, MemoryRoot};
use crate::memory::{
    Backlinks, DocId, DocLink, Document, HealthOptions, HealthReport, LayoutSpec, Memory,
    OpenError, SearchUnit, detect,
};

pub static LAYOUT: LayoutSpec = LayoutSpec {
    name: "everos",
    kind: crate::memory::LayoutKind::Everos,
    record: "file",
    place: "memory root",
    title: "an everos memory root",
    noun: "everos memory root",
    looked_for: "ome.toml, everos.toml, .index/ or an everos file (a daily log, user.md, SKILL.md) under <app>/<project>/users or agents/<owner>/",
    detect: detect::everos_root,
    detect_forced: Some(detect::everos_root_forced),
    open: |root| {
        super::load(root)
            .map(|r| Box::new(r) as Box<dyn Memory>)
            .map_err(|message| OpenError::Layout {
                path: root.to_path_buf(),
                message,
            })
    },
    open_counting: |root, files_read| {
        super::load::load_counting(root, files_read)
            .map(|r| Box::new(r) as Box<dyn Memory>)
            .map_err(|message| OpenError::Layout {
                path: root.to_path_buf(),
                message,
            })
    },
    open_listing: None,
    may_hold: crate::memory::changes::hidden_kept,
};

/// How membank's search over an everos root compares with everos's own.
pub const SEARCH_NOTE: &str = "keyword search like everos's `keyword` mode; its default \
hybrid/vector ranking needs embeddings that membank does not compute";

/// The order documents are listed in: by scope, owner, then kind in the
/// order everos's own documentation gives them, then by day or name.
fn kind_rank(kind: &FileKind) -> u8 {
    use super::paths::DailyKind::*;
    match kind {
        FileKind::Single(_) => 0,
        FileKind::Daily(Episode, _) => 1,
        FileKind::Daily(AtomicFact, _) => 2,
        FileKind::Daily(Foresight, _) => 3,
        FileKind::Daily(AgentCase, _) => 4,
        FileKind::Skill | FileKind::SkillReference | FileKind::SkillScript => 5,
        _ => 6,
    }
}

/// Fill `root.docs` and `root.doc_of_file`: the files that are memory and
/// were read, in listing order.
pub(crate) fn index_documents(root: &mut MemoryRoot) {
    let mut docs: Vec<usize> = (0..root.files.len())
        .filter(|&i| is_document(&root.files[i]))
        .collect();
    docs.sort_by_cached_key(|&i| listing_key(&root.files[i].place, &root.files[i].rel_path));
    root.doc_of_file = vec![None; root.files.len()];
    for (doc, &file) in docs.iter().enumerate() {
        root.doc_of_file[file] = Some(doc);
    }
    root.docs = docs;
}

/// Where a document is listed: app, project, owner, kind, skill, path.
type ListingKey = (
    Option<String>,
    Option<String>,
    Option<(OwnerKind, String)>,
    u8,
    Option<String>,
    String,
);

/// Where a file is listed among the documents: see [`kind_rank`].
pub(crate) fn listing_key(p: &Place, rel_path: &str) -> ListingKey {
    (
        p.app_dir.clone(),
        p.project_dir.clone(),
        p.owner.clone(),
        kind_rank(&p.kind),
        p.skill.clone(),
        rel_path.to_owned(),
    )
}

pub(crate) fn is_document(f: &MemFile) -> bool {
    f.head.is_some()
}

impl MemoryRoot {
    /// The file behind a document id.
    pub fn doc_file(&self, id: DocId) -> &MemFile {
        &self.files[self.docs[id]]
    }

    /// The document id of a file, when it is one.
    pub fn doc_id(&self, rel_path: &str) -> Option<DocId> {
        let i = self
            .files
            .binary_search_by(|f| f.rel_path.as_str().cmp(rel_path))
            .ok()?;
        self.doc_of_file[i]
    }
}

/// A document's title: the day of a daily log, the skill's name, the file
/// name otherwise.
fn title_of(f: &MemFile) -> Cow<'_, str> {
    let name = f.rel_path.rsplit('/').next().unwrap_or(&f.rel_path);
    match &f.place.kind {
        FileKind::Daily(_, Ok(d)) => Cow::Owned(d.to_string()),
        FileKind::Skill => Cow::Borrowed(f.place.skill.as_deref().unwrap_or(name)),
        _ => Cow::Borrowed(name),
    }
}

fn kind_of(f: &MemFile) -> &'static str {
    match &f.place.kind {
        FileKind::Daily(k, _) => k.as_str(),
        FileKind::Skill => "skill",
        FileKind::SkillReference => "skill_reference",
        FileKind::SkillScript => "skill_script",
        FileKind::Single(_) => "profile",
        FileKind::KnowledgeDocument => "knowledge_document",
        FileKind::KnowledgeTopic => "knowledge_topic",
        _ => "other",
    }
}

/// The groups shown in the tree: app, project, `users`/`agents`, owner,
/// kind folder (and skill), scope ids with `default` for the defaults.
fn groups_of(f: &MemFile) -> Vec<Cow<'_, str>> {
    let p = &f.place;
    let mut g: Vec<Cow<'_, str>> = Vec::new();
    g.extend(p.app().map(Cow::Borrowed));
    g.extend(p.project().map(Cow::Borrowed));
    if let Some((kind, owner)) = &p.owner {
        g.push(Cow::Borrowed(kind.dir_name()));
        g.push(Cow::Borrowed(owner.as_str()));
    }
    match &p.kind {
        FileKind::Daily(k, _) => g.push(Cow::Borrowed(k.dir_name())),
        FileKind::Skill | FileKind::SkillReference | FileKind::SkillScript => {
            g.push(Cow::Borrowed("skills"));
            g.extend(p.skill.as_deref().map(Cow::Borrowed));
            if p.kind == FileKind::SkillReference {
                g.push(Cow::Borrowed("references"));
            }
        }
        FileKind::KnowledgeDocument | FileKind::KnowledgeTopic => {
            let parts: Vec<&str> = f.rel_path.split('/').collect();
            g.extend(parts[2..parts.len() - 1].iter().map(|s| Cow::Borrowed(*s)));
        }
        _ => {}
    }
    g
}

impl Memory for MemoryRoot {
    fn spec(&self) -> &'static LayoutSpec {
        &LAYOUT
    }

    fn root(&self) -> &Path {
        MemoryRoot::root(self)
    }

    fn len(&self) -> usize {
        self.docs.len()
    }

    fn document(&self, id: DocId) -> Document<'_> {
        let f = self.doc_file(id);
        let (body_start, frontmatter) = match &f.head {
            Some(h) => match &h.head {
                Head::Block {
                    yaml,
                    parsed: Ok(_),
                } => (h.body_start, Some(yaml.clone())),
                _ => (h.body_start, None),
            },
            None => (0, None),
        };
        Document {
            path: &f.rel_path,
            title: title_of(f),
            groups: groups_of(f),
            kind: Cow::Borrowed(kind_of(f)),
            status: None,
            private: false,
            text: &f.text,
            body_start,
            frontmatter,
        }
    }

    fn find(&self, path: &str) -> Option<DocId> {
        self.doc_id(path)
    }

    fn links(&self, _id: DocId) -> Vec<DocLink<'_>> {
        Vec::new()
    }

    fn backlinks(&self, _id: DocId) -> Backlinks<'_> {
        Backlinks::default()
    }

    fn check(&self, _opts: &HealthOptions) -> HealthReport {
        super::check::check(self)
    }

    /// One unit per entry of a daily log; other files whole.
    fn search_units(&self) -> Vec<SearchUnit<'_>> {
        let mut out = Vec::with_capacity(self.entry_count() + self.docs.len());
        for (doc, &i) in self.docs.iter().enumerate() {
            out.extend(units_of(doc, &self.files[i]));
        }
        out
    }

    fn entries(&self, id: DocId) -> Vec<SearchUnit<'_>> {
        entry_units(id, self.doc_file(id)).collect()
    }

    fn keeps_entries(&self) -> bool {
        true
    }

    fn search_note(&self) -> Option<&'static str> {
        Some(SEARCH_NOTE)
    }
}

/// A document's search units: a daily log's entries, or else the file's
/// body whole.
pub(crate) fn units_of(doc: DocId, f: &MemFile) -> Vec<SearchUnit<'_>> {
    if f.place.daily().is_some() {
        return entry_units(doc, f).collect();
    }
    let start = f.head.as_ref().map_or(0, |h| h.body_start);
    let line = 1 + f.text.as_bytes()[..start]
        .iter()
        .filter(|&&b| b == b'\n')
        .count();
    vec![SearchUnit {
        doc,
        entry_id: None,
        entry_line: None,
        line,
        text: &f.text[start..],
        start,
    }]
}

/// A daily log's entries as units, each with the file line its text
/// starts on.
fn entry_units(doc: DocId, f: &MemFile) -> impl Iterator<Item = SearchUnit<'_>> {
    f.entries.iter().map(move |e| {
        // From the marker's line: only the lines between it and the text
        // are counted, not the file again.
        let line = e.line
            + f.text.as_bytes()[e.span.start..e.text.start]
                .iter()
                .filter(|&&b| b == b'\n')
                .count();
        SearchUnit {
            doc,
            entry_id: Some(&e.id),
            entry_line: Some(e.line),
            line,
            text: f.entry_text(e),
            start: e.text.start,
        }
    })
}
