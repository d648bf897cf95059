//! The layout boundary: every memory membank reads (a Supervertaler memory
//! bank, a Deja Vu project, an everos memory root) is one module that
//! implements [`Memory`] and registers a [`LayoutSpec`] in [`LAYOUTS`].
//!
//! Detection, `--format` and the "not a memory" message live here, so the
//! command line, the interface and the agents open every layout the same
//! way and never branch on which one they got. What only one layout can do
//! (the §7 context of a bank, the recall of a Deja Vu project) stays on that
//! layout's own type, reached with [`open_as`] or [`Memory::downcast_ref`].

mod bank;
pub mod changes;
pub mod detect;
pub mod model;

/// The file membank leaves at the root of a demo copy, so that refreshing
/// the demo only ever deletes such a folder. A layout does not report it.
pub const DEMO_MARKER: &str = ".membank-demo";

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicUsize;

pub use bank::{open_bank, open_bank_only};
pub use changes::Refreshed;
pub use model::{
    Backlinks, DocId, DocLink, Document, Finding, HealthOptions, HealthReport, Ranked, Reason,
    Resolution, SearchHit, SearchUnit, Severity,
};

/// Every layout membank knows, in the order detection tries them. Adding a
/// layout is adding its module and one line here.
pub static LAYOUTS: &[&LayoutSpec] = &[
    &bank::LAYOUT,
    &crate::dejavu::LAYOUT,
    &crate::everos::LAYOUT,
];

/// Which layout a spec is, for a front end to choose what it offers with
/// one exhaustive `match`: a layout added here and not handled there does
/// not compile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LayoutKind {
    Bank,
    DejaVu,
    Everos,
}

impl LayoutKind {
    /// Every layout, in registry order.
    pub const ALL: [LayoutKind; 3] = [LayoutKind::Bank, LayoutKind::DejaVu, LayoutKind::Everos];

    /// The registered spec of this layout.
    pub fn spec(self) -> &'static LayoutSpec {
        match self {
            LayoutKind::Bank => &bank::LAYOUT,
            LayoutKind::DejaVu => &crate::dejavu::LAYOUT,
            LayoutKind::Everos => &crate::everos::LAYOUT,
        }
    }
}

/// What the registry knows about one layout.
pub struct LayoutSpec {
    /// The `--format` value: `bank`, `dejavu`, `everos`.
    pub name: &'static str,
    pub kind: LayoutKind,
    /// What one of its documents is called on screen: "article".
    pub record: &'static str,
    /// What the memory as a whole is called in a sentence: "bank".
    pub place: &'static str,
    /// What a user calls it, with an article: "a memory bank".
    pub title: &'static str,
    /// The same without the article: "memory bank".
    pub noun: &'static str,
    /// What detection looks for, for the message when nothing matched.
    pub looked_for: &'static str,
    /// The memory's root when `path` is (or lies inside) this layout. Must
    /// only look, bounded, at a few names: detection runs on every layout
    /// for every path a user gives.
    pub detect: fn(&Path) -> Option<PathBuf>,
    /// What `--format` takes for this layout, when it takes more than
    /// [`LayoutSpec::detect`] does: the user has said what the folder is.
    pub detect_forced: Option<fn(&Path) -> Option<PathBuf>>,
    /// Read the memory at a root that `detect` returned.
    pub open: fn(&Path) -> Result<Box<dyn Memory>, OpenError>,
    /// [`LayoutSpec::open`], adding one to the counter for each file read,
    /// so another thread can show how far reading has come.
    pub open_counting: fn(&Path, &AtomicUsize) -> Opened,
    /// [`LayoutSpec::open_counting`] that first hands over the files its
    /// walk found, before reading them, for a layout whose tree can be
    /// shown from paths alone (a bank's).
    pub open_listing: Option<OpenListing>,
    /// Whether a file at this relative path (its `/`-separated parts) can
    /// be the memory's, so a watcher knows which changes to take in; see
    /// [`changes::visible_only`] and [`changes::hidden_kept`].
    pub may_hold: fn(&[&str]) -> bool,
}

/// See [`LayoutSpec::open_listing`].
pub type OpenListing = fn(&Path, &AtomicUsize, &mut dyn FnMut(Vec<String>)) -> Opened;

/// What opening a memory gives.
pub type Opened = Result<Box<dyn Memory>, OpenError>;

impl fmt::Debug for LayoutSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

impl PartialEq for LayoutSpec {
    fn eq(&self, other: &Self) -> bool {
        self.name == other.name
    }
}

/// A loaded memory of any layout, seen through the shared model.
pub trait Memory: Any + Send + Sync {
    /// The layout this memory was read as.
    fn spec(&self) -> &'static LayoutSpec;
    /// The folder every document path is relative to.
    fn root(&self) -> &Path;
    /// How many documents there are; ids run from 0 to `len() - 1` in the
    /// order the Bank pane lists them.
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    fn document(&self, id: DocId) -> Document<'_>;
    /// The document at a relative, `/`-separated path.
    fn find(&self, path: &str) -> Option<DocId>;
    /// What a name a user typed or a link names resolves to.
    fn resolve(&self, name: &str) -> Resolution {
        self.find(name).map_or(Resolution::Dead, Resolution::One)
    }
    /// The document's links with where each points, in file order.
    fn links(&self, id: DocId) -> Vec<DocLink<'_>>;
    /// Documents that link to this one, each once.
    fn backlinks(&self, id: DocId) -> Backlinks<'_>;
    /// The 1-based lines of a document that is not private itself but
    /// names private memory there (a link into it, an impression routing to
    /// it): withheld with the private memory they name. None by default.
    fn lines_naming_private(&self, _id: DocId) -> Vec<usize> {
        Vec::new()
    }
    /// Every deterministic check of the layout. Pure: no file is read again.
    fn check(&self, opts: &HealthOptions) -> HealthReport;
    /// This memory with the given relative paths read again after they
    /// changed on disk (added, edited, removed), leaving `self` as it was
    /// for whoever still uses it. By default the memory is read again
    /// whole; a layout that can read only the changed files does so.
    fn refreshed(&self, changed: &[String]) -> Result<Refreshed, OpenError> {
        let _ = changed;
        changes::read_whole(self.spec(), self.root())
    }
    /// The document's whole text (as [`Document::text`]), read again from
    /// its file when the memory keeps no bodies. The error names the file
    /// and why it could not be read, or that it changed since it was read.
    fn full_text(&self, id: DocId) -> Result<Cow<'_, str>, String> {
        Ok(Cow::Borrowed(self.document(id).text))
    }
    /// The text of one of [`Memory::search_units`]: by default the unit's
    /// own; a memory that keeps no bodies reads it again (empty if that
    /// fails).
    fn unit_text<'a>(&'a self, unit: &SearchUnit<'a>) -> Cow<'a, str> {
        Cow::Borrowed(unit.text)
    }
    /// The text the full-text search indexes: by default each document's
    /// body; a layout with entries inside files returns one unit per entry.
    fn search_units(&self) -> Vec<SearchUnit<'_>> {
        (0..self.len())
            .map(|doc| {
                let d = self.document(doc);
                let start = d.body_start.min(d.text.len());
                let line = 1 + d.text[..start].bytes().filter(|&b| b == b'\n').count();
                SearchUnit {
                    doc,
                    entry_id: None,
                    entry_line: None,
                    line,
                    text: d.body(),
                    start,
                }
            })
            .collect()
    }
    /// The entries inside a document, in file order, when the layout keeps
    /// several records in one file (an everos daily log); empty otherwise.
    fn entries(&self, _id: DocId) -> Vec<SearchUnit<'_>> {
        Vec::new()
    }
    /// Whether the layout keeps several records in one file, so that what
    /// there is to count is entries, not files, even in a memory whose
    /// files hold none yet.
    fn keeps_entries(&self) -> bool {
        false
    }
    /// What to tell a user about how search here compares with the tool
    /// that wrote the memory, when they differ.
    fn search_note(&self) -> Option<&'static str> {
        None
    }
}

impl fmt::Debug for dyn Memory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at {}", self.spec().name, self.root().display())
    }
}

impl dyn Memory {
    /// The layout's own type, for what only that layout can do.
    pub fn downcast_ref<T: Memory>(&self) -> Option<&T> {
        (self as &dyn Any).downcast_ref()
    }

    pub fn downcast_mut<T: Memory>(&mut self) -> Option<&mut T> {
        (self as &mut dyn Any).downcast_mut()
    }

    pub fn documents(&self) -> impl Iterator<Item = Document<'_>> + '_ {
        (0..self.len()).map(|id| self.document(id))
    }
}

/// The layout registered under a `--format` name.
pub fn layout_named(name: &str) -> Option<&'static LayoutSpec> {
    LAYOUTS.iter().copied().find(|l| l.name == name)
}

/// Every `--format` name, in registry order.
pub fn layout_names() -> Vec<&'static str> {
    LAYOUTS.iter().map(|l| l.name).collect()
}

/// Which layout a path is, and the memory's root (a Deja Vu project given
/// as its `memory/` folder has the project as its root).
#[derive(Debug, Clone, PartialEq)]
pub struct Detected {
    pub spec: &'static LayoutSpec,
    pub root: PathBuf,
}

/// Find the layout of `path`, or check it is the `forced` one (`--format`).
pub fn detect(path: &Path, forced: Option<&'static LayoutSpec>) -> Result<Detected, OpenError> {
    match std::fs::metadata(path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(OpenError::NotFound(path.to_path_buf()));
        }
        Err(e) => return Err(OpenError::Io(path.to_path_buf(), e)),
        Ok(m) if !m.is_dir() => {
            return Err(OpenError::NotAFolder {
                path: path.to_path_buf(),
                enclosing: enclosing_memory(path),
            });
        }
        Ok(_) => {}
    }
    if let Some(spec) = forced {
        return match (spec.detect_forced.unwrap_or(spec.detect))(path) {
            Some(root) => Ok(Detected { spec, root }),
            None => Err(OpenError::NotThisLayout {
                path: path.to_path_buf(),
                spec,
            }),
        };
    }
    let mut found: Vec<Detected> = LAYOUTS
        .iter()
        .filter_map(|&spec| (spec.detect)(path).map(|root| Detected { spec, root }))
        .collect();
    match found.len() {
        // A folder that cannot be listed looks like no layout at all: say
        // why it could not be looked at instead.
        0 if let Err(e) = std::fs::read_dir(path) => Err(OpenError::Io(path.to_path_buf(), e)),
        0 => Err(match memory_above(path) {
            Some(found) => OpenError::InsideMemory {
                path: path.to_path_buf(),
                root: found.root,
                spec: found.spec,
            },
            None => OpenError::NoLayout(path.to_path_buf()),
        }),
        1 => Ok(found.remove(0)),
        _ => Err(OpenError::Ambiguous {
            path: path.to_path_buf(),
            specs: found.into_iter().map(|d| d.spec).collect(),
        }),
    }
}

/// How many folders up a path given by mistake is looked at for the
/// memory it lies in: an everos root's deepest folder
/// (`<app>/<project>/agents/<id>/skills/skill_<name>/references`) is seven
/// below it.
const ENCLOSING_LEVELS: usize = 8;

/// The nearest folder above the file `path` that some layout recognises,
/// so a file given by mistake is answered with the folder to give instead.
fn enclosing_memory(path: &Path) -> Option<PathBuf> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    // `.` has no folders above it as written.
    let folder = folder
        .canonicalize()
        .unwrap_or_else(|_| folder.to_path_buf());
    // A few levels only, and never the filesystem root: a file is given by
    // mistake from inside the memory, not from far below it.
    folder
        .ancestors()
        .take(ENCLOSING_LEVELS)
        .filter(|p| !p.as_os_str().is_empty() && p.parent().is_some())
        .find_map(|p| LAYOUTS.iter().find_map(|spec| (spec.detect)(p)))
}

/// The nearest memory a few folders above the folder `path`, so a folder
/// inside one (a bank's `01_CLIENTS`) is answered with the one to give.
fn memory_above(path: &Path) -> Option<Detected> {
    // `.` (or `sub/..`) has no folders above it as written.
    let path = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    path.ancestors()
        .skip(1)
        .take(ENCLOSING_LEVELS)
        .filter(|p| !p.as_os_str().is_empty() && p.parent().is_some())
        .find_map(|p| {
            LAYOUTS
                .iter()
                .find_map(|&spec| (spec.detect)(p).map(|root| Detected { spec, root }))
        })
}

/// Detect and read the memory at `path`: the one way the command line and
/// the interface open anything.
pub fn open(
    path: &Path,
    forced: Option<&'static LayoutSpec>,
) -> Result<Box<dyn Memory>, OpenError> {
    let found = detect(path, forced)?;
    (found.spec.open)(&found.root)
}

/// Open `path` as one layout's own type, for commands only that layout has;
/// any other layout is refused with a message naming both.
pub fn open_as<T: Memory>(
    path: &Path,
    forced: Option<&'static LayoutSpec>,
    wanted: &'static LayoutSpec,
) -> Result<Box<T>, OpenError> {
    let found = detect(path, forced)?;
    if found.spec != wanted {
        return Err(OpenError::WrongLayout {
            path: path.to_path_buf(),
            found: found.spec,
            wanted,
        });
    }
    let memory: Box<dyn Any> = (found.spec.open)(&found.root)?;
    memory.downcast::<T>().map_err(|_| OpenError::WrongLayout {
        path: path.to_path_buf(),
        found: found.spec,
        wanted,
    })
}

/// Why a path could not be opened. Every message names the path and, when
/// no layout matched, what was looked for.
#[derive(Debug)]
pub enum OpenError {
    NotFound(PathBuf),
    /// A file was given; `enclosing` is the memory that holds it, if any.
    NotAFolder {
        path: PathBuf,
        enclosing: Option<PathBuf>,
    },
    Io(PathBuf, std::io::Error),
    /// No registered layout recognised the folder.
    NoLayout(PathBuf),
    /// The folder lies inside a memory (a bank's `01_CLIENTS`, say).
    InsideMemory {
        path: PathBuf,
        root: PathBuf,
        spec: &'static LayoutSpec,
    },
    /// Several layouts recognised it; `--format` picks one.
    Ambiguous {
        path: PathBuf,
        specs: Vec<&'static LayoutSpec>,
    },
    /// `--format` named a layout the folder is not.
    NotThisLayout {
        path: PathBuf,
        spec: &'static LayoutSpec,
    },
    /// The command works on one layout and the folder is another.
    WrongLayout {
        path: PathBuf,
        found: &'static LayoutSpec,
        wanted: &'static LayoutSpec,
    },
    /// The layout's own reader refused the memory.
    Layout {
        path: PathBuf,
        message: String,
    },
}

impl fmt::Display for OpenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OpenError::NotFound(p) => write!(
                f,
                "{}: no such folder; give the folder of {}",
                p.display(),
                or_list(&LAYOUTS.iter().map(|l| l.title).collect::<Vec<_>>())
            ),
            OpenError::NotAFolder {
                path,
                enclosing: Some(root),
            } => write!(
                f,
                "{} is a file; pass the folder of the memory that holds it: {}",
                path.display(),
                root.display()
            ),
            OpenError::NotAFolder {
                path,
                enclosing: None,
            } => write!(
                f,
                "{} is a file; pass the folder of {}",
                path.display(),
                or_list(&LAYOUTS.iter().map(|l| l.title).collect::<Vec<_>>())
            ),
            OpenError::Io(p, e) => write!(f, "{} cannot be read: {e}", p.display()),
            OpenError::NoLayout(p) => {
                let titles: Vec<&str> = LAYOUTS.iter().map(|l| l.title).collect();
                write!(
                    f,
                    "{} is not {}; looked for ",
                    p.display(),
                    or_list(&titles)
                )?;
                for (i, l) in LAYOUTS.iter().enumerate() {
                    let sep = match i {
                        0 => "",
                        i if i + 1 == LAYOUTS.len() => " and ",
                        _ => ", ",
                    };
                    write!(f, "{sep}{} ({})", l.looked_for, l.title)?;
                }
                Ok(())
            }
            OpenError::InsideMemory { path, root, spec } => write!(
                f,
                "{} is a folder inside the {} at {}; pass that folder",
                path.display(),
                spec.title
                    .trim_start_matches("a ")
                    .trim_start_matches("an "),
                root.display()
            ),
            OpenError::Ambiguous { path, specs } => {
                let titles: Vec<&str> = specs.iter().map(|l| l.title).collect();
                let names: Vec<&str> = specs.iter().map(|l| l.name).collect();
                write!(
                    f,
                    "{} looks like both {}; choose one with --format {}",
                    path.display(),
                    titles.join(" and "),
                    names.join("|")
                )
            }
            OpenError::NotThisLayout { path, spec } => write!(
                f,
                "{} is not {}: looked for {}",
                path.display(),
                spec.title,
                spec.looked_for
            ),
            OpenError::WrongLayout {
                path,
                found,
                wanted,
            } => write!(
                f,
                "{} is {}; this works on {} only",
                path.display(),
                found.title,
                wanted.title
            ),
            OpenError::Layout { path, message } => write!(f, "{}: {message}", path.display()),
        }
    }
}

impl std::error::Error for OpenError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OpenError::Io(_, e) => Some(e),
            _ => None,
        }
    }
}

/// "a, b or c"
fn or_list(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests;
