//! The memory shown while the real one is read in the background: the
//! detected layout at its root, with nothing in it yet. The panes treat it
//! like any empty memory, so keys work from the first frame.

use std::path::{Path, PathBuf};

use membank_core::memory::{
    Backlinks, DocId, DocLink, Document, HealthOptions, HealthReport, LayoutSpec, Memory,
};

pub struct Unread {
    spec: &'static LayoutSpec,
    root: PathBuf,
}

impl Unread {
    pub fn new(spec: &'static LayoutSpec, root: PathBuf) -> Unread {
        Unread { spec, root }
    }
}

impl Memory for Unread {
    fn spec(&self) -> &'static LayoutSpec {
        self.spec
    }

    fn root(&self) -> &Path {
        &self.root
    }

    fn len(&self) -> usize {
        0
    }

    /// Never called: there are no ids below `len()`. Answers with an empty
    /// document rather than failing.
    fn document(&self, _id: DocId) -> Document<'_> {
        Document {
            path: "",
            title: "".into(),
            groups: Vec::new(),
            kind: "".into(),
            status: None,
            private: false,
            text: "",
            body_start: 0,
            frontmatter: None,
        }
    }

    fn find(&self, _path: &str) -> Option<DocId> {
        None
    }

    fn links(&self, _id: DocId) -> Vec<DocLink<'_>> {
        Vec::new()
    }

    fn backlinks(&self, _id: DocId) -> Backlinks<'_> {
        Backlinks::default()
    }

    fn check(&self, _opts: &HealthOptions) -> HealthReport {
        HealthReport::default()
    }
}
