//! The Supervertaler memory bank behind the layout boundary. The bank's own
//! features (§7 scoring, §8 budget, §9–§11 writes, §12 snapshot, §13
//! templates) stay on [`Bank`]; this is how the shared model sees it.

use std::borrow::Cow;
use std::path::Path;

use super::{
    Backlinks, DocId, DocLink, Document, HealthOptions, HealthReport, LayoutSpec, Memory,
    OpenError, Refreshed, Resolution, SearchUnit, detect, open_as,
};
use crate::bank::{Bank, BankError, LoadOptions};

pub static LAYOUT: LayoutSpec = LayoutSpec {
    name: "bank",
    kind: crate::memory::LayoutKind::Bank,
    record: "article",
    place: "bank",
    title: "a memory bank",
    noun: "memory bank",
    looked_for: "the folders 00_INBOX … 06_TEMPLATES",
    detect: detect::bank_root,
    detect_forced: None,
    open: |root| Ok(Box::new(load(root)?)),
    open_counting: |root, files_read| {
        Bank::load_counting(root, files_read)
            .map(|bank| Box::new(bank) as Box<dyn Memory>)
            .map_err(|e| bank_error(root, e))
    },
    open_listing: Some(|root, files_read, walked| {
        Bank::load_listing(root, files_read, walked)
            .map(|bank| Box::new(bank) as Box<dyn Memory>)
            .map_err(|e| bank_error(root, e))
    }),
    may_hold: super::changes::visible_only,
};

fn load(root: &Path) -> Result<Bank, OpenError> {
    load_only(root, LoadOptions::EVERYTHING)
}

fn load_only(root: &Path, options: LoadOptions) -> Result<Bank, OpenError> {
    Bank::load_only(root, options).map_err(|e| bank_error(root, e))
}

fn bank_error(_root: &Path, e: BankError) -> OpenError {
    match e {
        BankError::NotFound(p) => OpenError::NotFound(p),
        BankError::NotAFolder { path, bank } => OpenError::NotAFolder {
            path,
            enclosing: bank,
        },
        BankError::NotABank(path) => OpenError::NotThisLayout {
            path,
            spec: &LAYOUT,
        },
        BankError::Io(p, e) => OpenError::Io(p, e),
    }
}

/// Open `path` as a memory bank, for what only banks have (context,
/// compile, snapshot, templates); any other layout is refused by name.
pub fn open_bank(path: &Path, forced: Option<&'static LayoutSpec>) -> Result<Bank, OpenError> {
    open_as::<Bank>(path, forced, &LAYOUT).map(|b| *b)
}

/// [`open_bank`] reading only what a command needs (see [`LoadOptions`]).
pub fn open_bank_only(
    path: &Path,
    forced: Option<&'static LayoutSpec>,
    options: LoadOptions,
) -> Result<Bank, OpenError> {
    let found = detect(path, forced)?;
    if found.spec != &LAYOUT {
        return Err(OpenError::WrongLayout {
            path: path.to_path_buf(),
            found: found.spec,
            wanted: &LAYOUT,
        });
    }
    load_only(&found.root, options)
}

impl Memory for Bank {
    fn spec(&self) -> &'static LayoutSpec {
        &LAYOUT
    }

    fn root(&self) -> &Path {
        Bank::root(self)
    }

    fn len(&self) -> usize {
        self.articles().len()
    }

    fn document(&self, id: DocId) -> Document<'_> {
        let a = self.article(id);
        let dir = a.rel_path.rsplit_once('/').map_or("", |(dir, _)| dir);
        Document {
            path: &a.rel_path,
            title: Cow::Borrowed(a.title()),
            groups: dir.split('/').map(Cow::Borrowed).collect(),
            kind: Cow::Borrowed(a.folder.label()),
            status: a.meta.status.as_deref().map(Cow::Borrowed),
            private: false,
            text: &a.text,
            body_start: a.body_start(),
            frontmatter: a.yaml_range(),
        }
    }

    fn full_text(&self, id: DocId) -> Result<Cow<'_, str>, String> {
        self.article_text(id)
            .map_err(|p| format!("{}: {}", p.path, p.message))
    }

    fn unit_text<'a>(&'a self, unit: &SearchUnit<'a>) -> Cow<'a, str> {
        let kept = self.options();
        if kept.text && kept.body {
            return Cow::Borrowed(unit.text);
        }
        // A unit is an article's body: the text read again, from where the
        // body started when the bank was read.
        match self.article_text(unit.doc) {
            Ok(text) if text.is_char_boundary(unit.start.min(text.len())) => {
                let mut text = text.into_owned();
                text.drain(..unit.start.min(text.len()));
                Cow::Owned(text)
            }
            _ => Cow::Borrowed(""),
        }
    }

    /// Each article's body, as by default, but from the article itself:
    /// a bank that keeps no frontmatter text still knows where the body
    /// starts in the file and on which line.
    fn search_units(&self) -> Vec<SearchUnit<'_>> {
        self.articles()
            .iter()
            .enumerate()
            .map(|(doc, a)| SearchUnit {
                doc,
                entry_id: None,
                entry_line: None,
                line: a.body_line(),
                text: a.body(),
                start: match a.kept_lines() {
                    Some(_) => a.body_start(),
                    None => a.body_start().min(a.text.len()),
                },
            })
            .collect()
    }

    fn find(&self, path: &str) -> Option<DocId> {
        Bank::find(self, path)
    }

    fn resolve(&self, name: &str) -> Resolution {
        match Bank::find(self, name) {
            Some(id) => Resolution::One(id),
            None => Bank::resolve(self, name),
        }
    }

    fn links(&self, id: DocId) -> Vec<DocLink<'_>> {
        self.outgoing(id)
            .map(|(l, r)| DocLink {
                raw: l.raw(),
                target: l.target(),
                line: l.line,
                in_frontmatter: l.in_frontmatter,
                resolution: r,
            })
            .collect()
    }

    fn backlinks(&self, id: DocId) -> Backlinks<'_> {
        Bank::backlinks(self, id)
    }

    fn check(&self, opts: &HealthOptions) -> HealthReport {
        crate::health::check(self, opts)
    }

    /// Only the changed files, unless a folder changed: then files changed
    /// that the paths do not name, and the bank is read again whole.
    fn refreshed(&self, changed: &[String]) -> Result<Refreshed, OpenError> {
        if super::changes::folder_changed(Bank::root(self), changed) {
            // Read again keeping what this bank keeps: an interface's bank
            // stays without bodies, a server's keeps them.
            let root = Bank::root(self);
            return Ok(Refreshed {
                memory: Box::new(load_only(root, self.options())?),
                in_part: false,
            });
        }
        Ok(Refreshed {
            memory: Box::new(self.reloaded(changed)),
            in_part: true,
        })
    }
}
