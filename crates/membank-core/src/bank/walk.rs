//! Walking a bank's numbered folders: which files there are, read while
//! the walk goes on where that pays, each classified as an article, a file
//! the bank skips, or a problem.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;

use rayon::prelude::*;

use super::{Found, Kept, LoadOptions, LoadProblem, ProblemKind, SkippedFile, rel_string};
use crate::article::{Article, VisitText};
use crate::layout::{self, Folder};
use crate::safe_read::{OpenDir, ReadError, RootReader};
use crate::text;

/// A walked file still to be classified, or a problem met while walking.
pub(super) enum Walked {
    File {
        /// Where its path is in the walk's [`WalkedPaths`].
        path: PathAt,
        is_link: bool,
        /// Its folder, in the walk's list of folders.
        dir: u32,
        /// Its place in the order the walk met files, before sorting.
        seq: u32,
    },
    /// Boxed: problems are rare, and a walked file's entry is then 32
    /// bytes rather than 72 (the list of a 2,000-file bank stays under
    /// glibc's 128 KB threshold for a block mapped on its own).
    Problem(Box<LoadProblem>),
}

/// Walked paths one after another in one buffer. A block each would be
/// allocated on the walking thread and freed on the reading ones, whose
/// allocator (glibc keeps each thread's last freed blocks of a size for
/// its next ones) then cut the articles' own strings from those blocks:
/// the articles' strings ended up strewn among the walk's holes in the
/// walking thread's arena for the bank's life, tens of thousands of holes
/// no page of which could be given back.
#[derive(Default)]
pub(super) struct WalkedPaths {
    bytes: Vec<u8>,
}

/// Where [`WalkedPaths::push`] kept a path; made only there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PathAt {
    start: usize,
    end: usize,
}

impl WalkedPaths {
    /// Keep `path`; where it is found again.
    pub(super) fn push(&mut self, path: &Path) -> PathAt {
        let start = self.bytes.len();
        self.bytes
            .extend_from_slice(path.as_os_str().as_encoded_bytes());
        PathAt {
            start,
            end: self.bytes.len(),
        }
    }

    /// The bytes of the path kept at `at`.
    pub(super) fn bytes(&self, at: &PathAt) -> &[u8] {
        &self.bytes[at.start..at.end]
    }

    /// The path kept at `at`.
    #[cfg(unix)]
    pub(super) fn path(&self, at: &PathAt) -> &Path {
        use std::os::unix::ffi::OsStrExt as _;
        Path::new(std::ffi::OsStr::from_bytes(self.bytes(at)))
    }

    /// The path kept at `at`.
    #[cfg(not(unix))]
    pub(super) fn path(&self, at: &PathAt) -> &Path {
        // SAFETY: a `PathAt` is made only by `push` on this buffer's own
        // walk: the bytes of one whole path as `as_encoded_bytes` gave them.
        Path::new(unsafe { std::ffi::OsStr::from_encoded_bytes_unchecked(self.bytes(at)) })
    }
}

/// Files read while the walk goes on, by their `seq`.
pub(super) struct EarlyReads<T> {
    pub(super) in_flight: AtomicUsize,
    pub(super) done: std::sync::Mutex<Vec<(u32, EarlyRead<T>)>>,
}

impl<T> Default for EarlyReads<T> {
    fn default() -> Self {
        EarlyReads {
            in_flight: AtomicUsize::new(0),
            done: std::sync::Mutex::new(Vec::new()),
        }
    }
}

/// One early read, taken once when the loaded files are put in order.
pub(super) type EarlyRead<T> = std::sync::Mutex<Option<Option<Result<T, Kept>>>>;

/// Told of each file as the walk meets it: its `seq`, its folder held
/// open, its path and whether it is a link.
pub(super) type OnFile<'a> = dyn FnMut(u32, Option<&Arc<OpenDir>>, &Path, bool) + 'a;

/// Files per early batch, and batches read at a time while walking.
pub(super) const EARLY_BATCH: usize = 64;
pub(super) const EARLY_BATCHES_IN_FLIGHT: usize = 3;

/// Classify a walked file and read it if it is an article; `None` for a
/// file the bank ignores.
pub(super) fn load_walked(
    reader: &RootReader,
    dir: Option<&OpenDir>,
    path: &Path,
    is_link: bool,
    options: &LoadOptions,
    visit: Option<&VisitText<'_>>,
) -> Option<Result<Article, Found>> {
    Some(match classify_file(reader.root(), path)? {
        Found::Article(rel, folder) => {
            read_article(reader, dir, path, is_link, rel, folder, options, visit)
                .map_err(Found::Problem)
        }
        other => Err(other),
    })
}

/// Folders held open while a bank is read, at most.
pub(super) const MOST_HELD_DIRS: usize = 256;

/// The walk of a bank's numbered folders, taken a stretch at a time: a
/// large bank is read alongside its walk, and that is known only once the
/// walk has met enough files.
pub(super) struct BankWalk<'r> {
    reader: &'r RootReader,
    folders: std::array::IntoIter<Folder, 7>,
    current: Option<FolderWalk>,
    /// The files and problems met, each folder's files sorted by path once
    /// it is walked.
    pub(super) found: Vec<Walked>,
    /// The paths of the files in `found`.
    pub(super) paths: WalkedPaths,
    /// The folders met, each with its handle while few are held.
    pub(super) dirs: Vec<(PathBuf, Option<Arc<OpenDir>>)>,
    pub(super) missing_folders: Vec<Folder>,
}

/// One numbered folder being walked.
struct FolderWalk {
    entries: walkdir::FilterEntry<walkdir::IntoIter, fn(&walkdir::DirEntry) -> bool>,
    /// The folder at each depth of the current branch: a folder comes
    /// before what it holds, so a file's folder is the latest one a level up.
    branch: Vec<u32>,
    /// Where its entries start in `found`.
    first: usize,
}

impl<'r> BankWalk<'r> {
    pub(super) fn new(reader: &'r RootReader) -> Self {
        BankWalk {
            reader,
            folders: Folder::ALL.into_iter(),
            current: None,
            found: Vec::new(),
            paths: WalkedPaths::default(),
            dirs: Vec::new(),
            missing_folders: Vec::new(),
        }
    }

    /// Walk on until `found` holds `until` entries or the walk is over;
    /// true while there is more to walk.
    pub(super) fn walk(&mut self, until: usize, on_file: &mut OnFile<'_>) -> bool {
        while self.found.len() < until {
            let Some(current) = &mut self.current else {
                let Some(folder) = self.folders.next() else {
                    return false;
                };
                let dir = self.reader.root().join(folder.dir_name());
                if !dir.is_dir() {
                    self.missing_folders.push(folder);
                    continue;
                }
                // The numbered folder itself may be a link; the walk below
                // would follow it, so it is checked first.
                if let Err(e) = self.reader.may_enter(&dir) {
                    self.found.push(Walked::Problem(Box::new(symlinked_folder(
                        self.reader.root(),
                        &dir,
                        &e,
                    ))));
                    continue;
                }
                // Not sorted while walking: walkdir would take each entry's
                // name apart again for every comparison, on one core. The
                // files are sorted once the folder is walked.
                let not_hidden: fn(&walkdir::DirEntry) -> bool =
                    |e| e.depth() == 0 || !name_is_hidden(e.path());
                self.current = Some(FolderWalk {
                    entries: walkdir::WalkDir::new(dir)
                        .follow_links(self.reader.policy().follow_links_out)
                        .into_iter()
                        .filter_entry(not_hidden),
                    branch: Vec::new(),
                    first: self.found.len(),
                });
                continue;
            };
            match current.entries.next() {
                Some(entry) => walk_entry(
                    self.reader,
                    entry,
                    &mut current.branch,
                    &mut self.found,
                    &mut self.paths,
                    &mut self.dirs,
                    on_file,
                ),
                None => {
                    // By path, which is the order articles are kept in
                    // (problems sort among themselves later).
                    let files = &mut self.found[current.first..];
                    let paths = &self.paths;
                    let by_path =
                        |a: &Walked, b: &Walked| walked_path(a, paths).cmp(walked_path(b, paths));
                    if crate::parallel::sort_pays(files.len()) {
                        files.par_sort_unstable_by(by_path);
                    } else {
                        files.sort_unstable_by(by_path);
                    }
                    self.current = None;
                }
            }
        }
        true
    }
}

/// One entry of a numbered folder's walk: a folder is remembered, a file
/// goes into `found`.
fn walk_entry(
    reader: &RootReader,
    entry: walkdir::Result<walkdir::DirEntry>,
    branch: &mut Vec<u32>,
    found: &mut Vec<Walked>,
    paths: &mut WalkedPaths,
    dirs: &mut Vec<(PathBuf, Option<Arc<OpenDir>>)>,
    on_file: &mut OnFile<'_>,
) {
    let root = reader.root();
    let entry = match entry {
        Ok(e) => e,
        Err(e) => {
            let path = e.path().map(|p| rel_string(root, p)).unwrap_or_default();
            // A walk that follows links (the user's opt-in) meets a link to
            // nothing as an error of its own.
            let dangling = e
                .io_error()
                .is_some_and(|io| io.kind() == ErrorKind::NotFound)
                && e.path()
                    .and_then(|p| p.symlink_metadata().ok())
                    .is_some_and(|m| m.file_type().is_symlink());
            #[cfg(unix)]
            let io_loop = e
                .io_error()
                .is_some_and(|io| io.raw_os_error() == Some(libc::ELOOP));
            #[cfg(not(unix))]
            let io_loop = false;
            let looped = e.loop_ancestor().is_some() || io_loop;
            let problem = if dangling {
                LoadProblem::from_read_error(path, &ReadError::DanglingLink)
            } else if looped {
                LoadProblem::from_read_error(path, &ReadError::LinkLoop)
            } else {
                // The system's own words, without walkdir's absolute path
                // (the finding names the path, relative to the bank).
                let why = e
                    .io_error()
                    .map_or_else(|| e.to_string(), |io| io.to_string());
                let folder = e
                    .path()
                    .and_then(|p| p.symlink_metadata().ok())
                    .is_some_and(|m| m.is_dir());
                LoadProblem {
                    path,
                    line: None,
                    message: format!("could not be read: {why}"),
                    kind: match folder {
                        true => ProblemKind::UnreadableFolder,
                        false => ProblemKind::Io,
                    },
                }
            };
            found.push(Walked::Problem(Box::new(problem)));
            return;
        }
    };
    let ft = entry.file_type();
    if entry.depth() == 0 || ft.is_dir() {
        branch.truncate(entry.depth());
        branch.push(u32::try_from(dirs.len()).unwrap_or(u32::MAX));
        // The first folders walked are held open, to read their files by
        // name; any further ones are read by path, so a bank of thousands
        // of folders does not hold that many open.
        let open = (dirs.len() < MOST_HELD_DIRS)
            .then(|| reader.open_dir(entry.path()).map(Arc::new))
            .flatten();
        dirs.push((entry.path().to_path_buf(), open));
        return;
    }
    if ft.is_symlink() {
        // Only reached when links are not followed.
        if entry.path().is_dir() {
            found.push(Walked::Problem(Box::new(symlinked_folder(
                root,
                entry.path(),
                &ReadError::LinkLeavesRoot { root: "bank" },
            ))));
            return;
        }
    }
    let is_link = entry.path_is_symlink();
    // Checked, not assumed: a file read by name in the wrong folder would
    // be another file. Only what the walk saw as a regular file is read by
    // name (and then in one call when small); anything else, a FIFO or a
    // device, is opened by its path and refused on the open handle.
    let dir = entry
        .depth()
        .checked_sub(1)
        .and_then(|up| branch.get(up))
        .copied()
        .filter(|&d| {
            ft.is_file()
                && dirs
                    .get(d as usize)
                    .is_some_and(|(dir, _)| is_parent(dir, entry.path()))
        })
        .unwrap_or(u32::MAX);
    let seq = u32::try_from(found.len()).unwrap_or(u32::MAX);
    let open = dirs.get(dir as usize).and_then(|(_, open)| open.as_ref());
    on_file(seq, open, entry.path(), is_link);
    found.push(Walked::File {
        path: paths.push(entry.path()),
        is_link,
        dir,
        seq,
    });
}

/// Does the last part of a walked path start with a dot, as
/// `is_hidden` of its file name says? Read from the bytes after the last
/// separator: taking the path apart into components, for every entry, cost
/// more than the check.
pub(super) fn name_is_hidden(path: &Path) -> bool {
    let bytes = path.as_os_str().as_encoded_bytes();
    // A separator is ASCII: no byte of a longer character is taken for one.
    let name = bytes
        .rsplit(|&b| b.is_ascii() && std::path::is_separator(char::from(b)))
        .next()
        .unwrap_or(bytes);
    name.first() == Some(&b'.')
}

/// Is `dir` the folder `path` is in? Compared as bytes, as the walk joined
/// them: taking `path` apart into components costs more, for every file.
pub(super) fn is_parent(dir: &Path, path: &Path) -> bool {
    let (dir, path) = (
        dir.as_os_str().as_encoded_bytes(),
        path.as_os_str().as_encoded_bytes(),
    );
    let Some(rest) = path.strip_prefix(dir) else {
        return false;
    };
    let rest = match rest.strip_prefix(std::path::MAIN_SEPARATOR_STR.as_bytes()) {
        Some(rest) => rest,
        None if dir.ends_with(std::path::MAIN_SEPARATOR_STR.as_bytes()) => rest,
        None => return false,
    };
    !rest.is_empty() && !rest.contains(&(std::path::MAIN_SEPARATOR as u8))
}

/// The bytes of a walked file's path; nothing for a problem.
pub(super) fn walked_path<'p>(w: &Walked, paths: &'p WalkedPaths) -> &'p [u8] {
    match w {
        Walked::File { path, .. } => paths.bytes(path),
        Walked::Problem(_) => &[],
    }
}

pub(super) fn symlinked_folder(root: &Path, dir: &Path, e: &ReadError) -> LoadProblem {
    match e {
        ReadError::LinkLeavesRoot { .. } => LoadProblem {
            path: rel_string(root, dir),
            line: None,
            message: "is a symbolic link to a folder; membank does not follow it".into(),
            kind: ProblemKind::SymlinkedFolder,
        },
        other => LoadProblem::from_read_error(rel_string(root, dir), other),
    }
}

/// The Markdown files among `found` that a bank's tree shows, in the
/// walk's order.
pub(super) fn listed_markdown(root: &Path, found: &[Walked], paths: &WalkedPaths) -> Vec<String> {
    found
        .iter()
        .filter_map(|w| match w {
            Walked::File { path, .. } => match classify_file(root, paths.path(path))? {
                Found::Article(rel, _) | Found::Template(rel) => Some(rel),
                Found::Skipped(s) => Some(s.path),
                Found::Other(_) | Found::Problem(_) => None,
            },
            Walked::Problem(_) => None,
        })
        .collect()
}

/// Decide what a file inside a bank folder is; `None` for files membank
/// does not look at (hidden, or outside the numbered folders).
pub(super) fn classify_file(root: &Path, path: &Path) -> Option<Found> {
    let rel = rel_string(root, path);
    // The separators are found in the bytes, once each way: `/` is ASCII,
    // so it is never part of a longer character and every cut below falls
    // between characters. Splitting the string three times cost more than
    // the rest of classifying, for every file.
    let bytes = rel.as_bytes();
    let first_end = bytes.iter().position(|&b| b == b'/').unwrap_or(bytes.len());
    let folder = Folder::from_dir_name(&rel[..first_end])?;
    // A hidden part: one that starts with a dot, first or after a `/`.
    // Only the few `/` are looked past: comparing every two bytes with a
    // slice was a call to `memcmp` per byte of every path.
    if bytes.first() == Some(&b'.')
        || memchr::memchr_iter(b'/', bytes).any(|i| bytes.get(i + 1) == Some(&b'.'))
    {
        return None;
    }
    let name_at = bytes.iter().rposition(|&b| b == b'/').map_or(0, |i| i + 1);
    let name = &rel[name_at..];
    // A name that is not UTF-8 was read with U+FFFD (bytes EF BF BD) in
    // its place: the path kept could not open the file again.
    let not_unicode = || memchr::memchr(0xEF, bytes).is_some() && path.to_str().is_none();
    Some(if !layout::is_markdown(name) {
        Found::Other(rel)
    } else if not_unicode() {
        Found::Skipped(SkippedFile {
            path: rel,
            reason: layout::SkipReason::NotUnicode,
        })
    } else if folder == Folder::Templates {
        Found::Template(rel)
    } else if let Some(reason) = layout::skip_reason(name) {
        Found::Skipped(SkippedFile { path: rel, reason })
    } else {
        Found::Article(rel, folder)
    })
}

thread_local! {
    /// One read buffer per loading thread, reused for every file.
    static READ_BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

// A file's place, what to keep of it and who sees its text: each one
// needed where the file is read.
#[allow(clippy::too_many_arguments)]
pub(super) fn read_article(
    reader: &RootReader,
    dir: Option<&OpenDir>,
    path: &Path,
    is_link: bool,
    rel: String,
    folder: Folder,
    options: &LoadOptions,
    visit: Option<&VisitText<'_>>,
) -> Result<Article, LoadProblem> {
    read_decoded(
        reader,
        dir,
        path,
        is_link,
        rel,
        folder,
        |rel, folder, decoded| Article::parse_visiting(rel, folder, decoded, options, visit),
    )
}

/// A walked article's file read and decoded, handed to `f` with its path
/// and folder, for a reader that builds something other than an
/// [`Article`] from it (see `Bank::load_ranked`); the same problems as
/// [`read_article`] for a file that cannot be read or is not UTF-8.
pub(super) fn read_decoded<T>(
    reader: &RootReader,
    dir: Option<&OpenDir>,
    path: &Path,
    is_link: bool,
    rel: String,
    folder: Folder,
    f: impl FnOnce(String, Folder, text::Decoded<std::borrow::Cow<'_, str>>) -> T,
) -> Result<T, LoadProblem> {
    READ_BUFFER.with_borrow_mut(|buf| {
        let len = match reader.read_walked_in(dir, path, is_link, buf) {
            Ok(n) => n,
            Err(e) => return Err(LoadProblem::from_read_error(rel, &e)),
        };
        let out = match text::decode_borrowed(&buf[..len]) {
            Ok(decoded) => Ok(f(rel, folder, decoded)),
            Err(e) => Err(LoadProblem {
                path: rel,
                line: Some(e.line),
                message: e.to_string(),
                kind: ProblemKind::NotUtf8,
            }),
        };
        // Do not keep a huge buffer alive after one unusually large file.
        if buf.capacity() > 1 << 20 {
            *buf = Vec::new();
        }
        out
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A walked file's entry stays small: the walk's list of a bank is one
    /// entry per file, sorted by moving entries.
    #[test]
    fn a_walked_entry_is_a_file_s_size_not_a_problem_s() {
        assert!(std::mem::size_of::<Walked>() <= 32);
        assert!(std::mem::size_of::<LoadProblem>() > 32);
    }
}
