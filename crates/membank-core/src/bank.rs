//! Loading a bank from disk and indexing its links (spec §1–§3, §6).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use rayon::prelude::*;
use serde::Serialize;

use crate::article::{Article, VisitText};
use crate::layout::{self, Folder, SkipReason};
use crate::resolve::{FileRef, LinkIndex};
use crate::safe_read::{OpenDir, ReadError, ReadPolicy, RootReader};
use crate::text;

pub use crate::load_options::LoadOptions;
use walk::{
    BankWalk, EARLY_BATCH, EARLY_BATCHES_IN_FLIGHT, EarlyReads, Walked, WalkedPaths,
    listed_markdown, load_walked,
};

pub type ArticleId = usize;

/// What [`Bank::load_ranked`] makes of an article's path, folder and
/// decoded text.
pub(crate) type RankArticle<'a, T> =
    dyn Fn(String, Folder, text::Decoded<std::borrow::Cow<'_, str>>) -> Option<T> + Sync + 'a;

/// How a load reads one walked file: `None` for a file the bank ignores.
type ReadOne<'a, T> =
    dyn Fn(&RootReader, Option<&OpenDir>, &Path, bool) -> Option<Result<T, Kept>> + Sync + 'a;

/// A `.md` file that is deliberately not treated as an article.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: SkipReason,
}

/// A file that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LoadProblem {
    pub path: String,
    pub line: Option<usize>,
    pub message: String,
    pub kind: ProblemKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum ProblemKind {
    NotUtf8,
    Io,
    SymlinkedFolder,
    /// A FIFO, device or socket where a file was expected.
    NotRegular,
    /// Over the per-file size cap.
    TooLarge,
    /// A symbolic link to a file outside the bank.
    LinkOutside,
    /// A symbolic link to something that does not exist.
    DanglingLink,
    /// A symbolic link that leads back to itself.
    LinkLoop,
    /// A folder whose files could not be listed.
    UnreadableFolder,
}

impl LoadProblem {
    /// A file the safe reader refused, as a load problem.
    pub fn from_read_error(path: String, e: &ReadError) -> LoadProblem {
        let kind = match e {
            ReadError::NotRegular { .. } => ProblemKind::NotRegular,
            ReadError::TooLarge { .. } => ProblemKind::TooLarge,
            ReadError::LinkLeavesRoot { .. } => ProblemKind::LinkOutside,
            ReadError::DanglingLink => ProblemKind::DanglingLink,
            ReadError::LinkLoop => ProblemKind::LinkLoop,
            ReadError::Io(_) => ProblemKind::Io,
        };
        LoadProblem {
            path,
            line: None,
            message: e.to_string(),
            kind,
        }
    }
}

/// The bank could not be opened at all.
#[derive(Debug)]
pub enum BankError {
    NotFound(PathBuf),
    /// A file was given where the bank folder is expected; `bank` is the
    /// bank that holds it, if any.
    NotAFolder {
        path: PathBuf,
        bank: Option<PathBuf>,
    },
    NotABank(PathBuf),
    Io(PathBuf, std::io::Error),
}

impl fmt::Display for BankError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BankError::NotFound(p) => write!(f, "{}: no such folder", p.display()),
            BankError::NotAFolder { path, bank } => {
                write!(f, "{} is a file; pass the bank folder", path.display())?;
                match bank {
                    Some(bank) => write!(f, " ({})", bank.display()),
                    None => Ok(()),
                }
            }
            BankError::NotABank(p) => write!(
                f,
                "{} is not a memory bank: it has none of the folders 00_INBOX … 06_TEMPLATES",
                p.display()
            ),
            BankError::Io(p, e) => write!(f, "{}: {e}", p.display()),
        }
    }
}

impl std::error::Error for BankError {}

/// Where a link points.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Resolution {
    Dead,
    One(ArticleId),
    /// Several articles answer to the name; the first is the one the link
    /// opens (Obsidian's choice: the linking note's folder, else the
    /// shortest path).
    Ambiguous(Vec<ArticleId>),
    /// A file that is not an article (an image, a PDF, a skipped `_` note):
    /// an index into `Bank::link_files`.
    File(usize),
}

impl Resolution {
    pub fn target(&self) -> Option<ArticleId> {
        match self {
            Resolution::Dead | Resolution::File(_) => None,
            Resolution::One(id) => Some(*id),
            Resolution::Ambiguous(ids) => ids.first().copied(),
        }
    }
}

#[derive(Debug, Default)]
struct Index {
    /// Every file a link can reach, by name.
    links: LinkIndex,
    /// Files a link can reach that are not articles, for `Resolution::File`.
    link_files: Vec<String>,
    /// The resolution of every link, article after article, in flat
    /// arrays rather than a list per article: a few allocations, not
    /// 100,000.
    resolved: resolved::Resolved,
    /// Backlinks the same way: `backlinks[backlinks_from[id]..backlinks_from[id + 1]]`,
    /// 32-bit as [`crate::memory::Backlinks`] hands them out.
    backlinks: Vec<u32>,
    backlinks_from: Vec<u32>,
    /// Content articles in §7 tie-break order, so ranking is one stable
    /// sort; sorted on first use (the health checks never rank).
    content_order: std::sync::OnceLock<Vec<ArticleId>>,
}

/// A loaded memory bank.
#[derive(Debug)]
pub struct Bank {
    root: PathBuf,
    options: LoadOptions,
    /// Every file of the bank is read through this (regular files only,
    /// size cap, no links out unless allowed).
    reader: RootReader,
    /// Sorted by folder, then relative path.
    articles: Vec<Article>,
    pub skipped: Vec<SkippedFile>,
    pub problems: Vec<LoadProblem>,
    /// `06_TEMPLATES/*.md`, relative paths.
    pub templates: Vec<String>,
    /// Files in bank folders that are not Markdown (e.g. `*.tmp` leftovers).
    pub other_files: Vec<String>,
    pub missing_folders: Vec<Folder>,
    /// Visible top-level folders the format does not define.
    pub unknown_folders: Vec<String>,
    index: Index,
    /// Built on the first query after a load or reload.
    scoring: std::sync::OnceLock<crate::scoring::index::ScoringIndex>,
}

enum Found {
    Article(String, Folder),
    Skipped(SkippedFile),
    Template(String),
    Other(String),
    Problem(LoadProblem),
}

/// A walked file that was not kept: what it was, or an article `keep`
/// passed over.
enum Kept {
    Found(Found),
    Dropped,
}

/// A bank-relative path as a user may type it (`./03_DOMAINS/Legal.md`,
/// `03_DOMAINS\\Legal.md`) in the form `Bank::find` expects; `None` when it
/// climbs out of the bank.
pub fn normalize_rel_path(path: &str) -> Option<String> {
    let mut parts: Vec<&str> = Vec::new();
    for seg in path.split(['/', '\\']) {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// Does this folder look like a bank (has at least one numbered folder)?
pub fn is_bank(root: &Path) -> bool {
    Folder::ALL.iter().any(|f| root.join(f.dir_name()).is_dir())
}

fn rel_string(root: &Path, path: &Path) -> String {
    // A walked path starts with the root byte for byte: cut it off rather
    // than take both paths apart into components, for every file.
    if std::path::MAIN_SEPARATOR == '/' {
        let root = root.as_os_str().as_encoded_bytes();
        let rest = path
            .as_os_str()
            .as_encoded_bytes()
            .strip_prefix(root)
            .and_then(|rest| match rest.strip_prefix(b"/") {
                Some(rest) => Some(rest),
                None => root.ends_with(b"/").then_some(rest),
            });
        if let Some(rel) = rest.and_then(|rest| std::str::from_utf8(rest).ok()) {
            return rel.to_owned();
        }
    }
    let rel = path.strip_prefix(root).unwrap_or(path).to_string_lossy();
    if std::path::MAIN_SEPARATOR == '/' {
        rel.into_owned()
    } else {
        rel.replace(std::path::MAIN_SEPARATOR, "/")
    }
}

fn is_hidden(name: &str) -> bool {
    name.starts_with('.')
}

thread_local! {
    static READS_BEGUN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// How many times this thread has begun reading a bank's files: a command
/// reads its bank once, and this lets that be checked from outside.
pub fn reads_begun_on_this_thread() -> usize {
    READS_BEGUN.get()
}

impl Bank {
    /// Read every file of the bank under the user's read policy
    /// ([`crate::safe_read::user_policy`]). Files that cannot be read are
    /// reported in `problems`; only a missing or non-bank root is an error.
    pub fn load(root: impl AsRef<Path>) -> Result<Bank, BankError> {
        Bank::load_parts(
            root,
            crate::safe_read::user_policy(),
            LoadOptions::EVERYTHING,
            None,
            None,
            None,
        )
    }

    /// [`Bank::load`] with the user's read policy (size cap, links out).
    pub fn load_with(root: impl AsRef<Path>, policy: ReadPolicy) -> Result<Bank, BankError> {
        Bank::load_parts(root, policy, LoadOptions::EVERYTHING, None, None, None)
    }

    /// A bank at `root` with nothing read yet: what an interface shows while
    /// [`Bank::load_counting`] reads the real one on another thread.
    pub fn unread(root: impl AsRef<Path>) -> Result<Bank, BankError> {
        let root = root.as_ref().to_path_buf();
        let policy = crate::safe_read::user_policy();
        let reader = RootReader::new(&root, policy).map_err(|e| BankError::Io(root.clone(), e))?;
        Ok(Bank {
            root,
            options: LoadOptions::EVERYTHING,
            reader,
            articles: Vec::new(),
            skipped: Vec::new(),
            problems: Vec::new(),
            templates: Vec::new(),
            other_files: Vec::new(),
            missing_folders: Vec::new(),
            unknown_folders: Vec::new(),
            index: Index::default(),
            scoring: std::sync::OnceLock::new(),
        })
    }

    /// [`Bank::load`], adding one to `files_read` for each file read, so
    /// another thread can show how far loading has come.
    pub fn load_counting(
        root: impl AsRef<Path>,
        files_read: &AtomicUsize,
    ) -> Result<Bank, BankError> {
        let policy = crate::safe_read::user_policy();
        Bank::load_parts(
            root,
            policy,
            LoadOptions::EVERYTHING,
            Some(files_read),
            None,
            None,
        )
    }

    /// [`Bank::load_counting`], first giving `walked` the bank-relative
    /// paths of the Markdown files the walk found in the numbered folders
    /// (articles, templates, skipped files), before any of them is read:
    /// an interface can show them while they are read. Bodies are not kept
    /// ([`LoadOptions::INTERFACE`]).
    pub fn load_listing(
        root: impl AsRef<Path>,
        files_read: &AtomicUsize,
        walked: &mut dyn FnMut(Vec<String>),
    ) -> Result<Bank, BankError> {
        let policy = crate::safe_read::user_policy();
        Bank::load_parts(
            root,
            policy,
            LoadOptions::INTERFACE,
            Some(files_read),
            Some(walked),
            None,
        )
    }

    /// [`Bank::load`] keeping only what `options` asks for.
    pub fn load_only(root: impl AsRef<Path>, options: LoadOptions) -> Result<Bank, BankError> {
        Bank::load_parts(
            root,
            crate::safe_read::user_policy(),
            options,
            None,
            None,
            None,
        )
    }

    /// [`Bank::load_only`], showing `visit` each article's whole text as
    /// it is read, whatever `options` keep of it afterwards: a command that
    /// passes over every body once holds none of them.
    pub fn load_visiting(
        root: impl AsRef<Path>,
        options: LoadOptions,
        visit: &VisitText<'_>,
    ) -> Result<Bank, BankError> {
        Bank::load_parts(
            root,
            crate::safe_read::user_policy(),
            options,
            None,
            None,
            Some(visit),
        )
    }

    fn load_parts(
        root: impl AsRef<Path>,
        policy: ReadPolicy,
        options: LoadOptions,
        files_read: Option<&AtomicUsize>,
        walked: Option<&mut dyn FnMut(Vec<String>)>,
        visit: Option<&VisitText<'_>>,
    ) -> Result<Bank, BankError> {
        let (mut bank, articles) = Bank::load_kept(
            root.as_ref(),
            policy,
            options,
            files_read,
            walked,
            visit,
            &Some,
        )?;
        bank.articles = articles;
        // Collected in place from the read's results, whose slots can be
        // larger than an article or include files that were not articles:
        // the spare room would last as long as the bank.
        bank.articles.shrink_to_fit();
        // Paths are unique, so an unstable sort gives the same order, and
        // it sorts in place where a stable one copies half the array.
        let order =
            |a: &Article, b: &Article| (a.folder, &a.rel_path).cmp(&(b.folder, &b.rel_path));
        if !bank.articles.is_sorted_by(|a, b| order(a, b).is_le()) {
            if crate::parallel::pays(bank.articles.len()) {
                bank.articles.par_sort_unstable_by(order);
            } else {
                bank.articles.sort_unstable_by(order);
            }
        }
        bank.rebuild_index();
        Ok(bank)
    }

    /// Walk and read the bank as [`Bank::load_only`] does, handing each
    /// article to `keep` on the thread that read it and keeping only what
    /// that returns, in the walk's order: a command that needs a few facts
    /// per article never holds the articles themselves. The bank returned
    /// has no articles; its reader, problems and other files are the
    /// loaded bank's.
    pub(crate) fn load_kept<T: Send>(
        root: &Path,
        policy: ReadPolicy,
        options: LoadOptions,
        files_read: Option<&AtomicUsize>,
        walked: Option<&mut dyn FnMut(Vec<String>)>,
        visit: Option<&VisitText<'_>>,
        keep: &(dyn Fn(Article) -> Option<T> + Sync),
    ) -> Result<(Bank, Vec<T>), BankError> {
        // An article read and handed to `keep`; `None` for a file the bank
        // ignores.
        let read_one = |reader: &RootReader, dir: Option<&OpenDir>, path: &Path, is_link: bool| {
            load_walked(reader, dir, path, is_link, &options, visit).map(|r| match r {
                Ok(article) => keep(article).ok_or(Kept::Dropped),
                Err(found) => Err(Kept::Found(found)),
            })
        };
        Bank::load_read(root, policy, options, files_read, walked, &read_one)
    }

    /// [`Bank::load_kept`] for a reader that builds its own record from
    /// each article's decoded text (the ranking of `context`, which builds
    /// an [`Article`] only when it needs one): `rank` gets the path, the
    /// folder and the text of every article, and what it returns is kept.
    pub(crate) fn load_ranked<T: Send>(
        root: &Path,
        policy: ReadPolicy,
        options: LoadOptions,
        rank: &RankArticle<'_, T>,
    ) -> Result<(Bank, Vec<T>), BankError> {
        let read_one = |reader: &RootReader, dir: Option<&OpenDir>, path: &Path, is_link: bool| {
            Some(match walk::classify_file(reader.root(), path)? {
                Found::Article(rel, folder) => {
                    match walk::read_decoded(reader, dir, path, is_link, rel, folder, rank) {
                        Ok(kept) => kept.ok_or(Kept::Dropped),
                        Err(p) => Err(Kept::Found(Found::Problem(p))),
                    }
                }
                other => Err(Kept::Found(other)),
            })
        };
        Bank::load_read(root, policy, options, None, None, &read_one)
    }

    /// The walk and the reads of [`Bank::load_kept`], with `read_one`
    /// reading each walked file: `None` for a file the bank ignores.
    fn load_read<T: Send>(
        root: &Path,
        policy: ReadPolicy,
        options: LoadOptions,
        files_read: Option<&AtomicUsize>,
        walked: Option<&mut dyn FnMut(Vec<String>)>,
        read_one: &ReadOne<'_, T>,
    ) -> Result<(Bank, Vec<T>), BankError> {
        let root = root.to_path_buf();
        if root.is_file() {
            let folder = match root.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            let bank = folder
                .ancestors()
                .take(4)
                .find(|p| !p.as_os_str().is_empty() && p.parent().is_some() && is_bank(p))
                .map(Path::to_path_buf);
            return Err(BankError::NotAFolder { path: root, bank });
        }
        if !root.is_dir() {
            return Err(BankError::NotFound(root));
        }
        if !is_bank(&root) {
            return Err(BankError::NotABank(root));
        }
        let reader = RootReader::new(&root, policy).map_err(|e| BankError::Io(root.clone(), e))?;
        READS_BEGUN.set(READS_BEGUN.get() + 1);
        let mut unknown_folders = Vec::new();
        let entries = std::fs::read_dir(&root).map_err(|e| BankError::Io(root.clone(), e))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
            if is_dir && !is_hidden(&name) && Folder::from_dir_name(&name).is_none() {
                unknown_folders.push(name);
            }
        }
        unknown_folders.sort();
        let mut walk = BankWalk::new(&reader);
        // A small bank is walked and read on this thread alone (see
        // `parallel`); the pool is started only once the walk has met
        // enough files to pay for it.
        let early = EarlyReads::default();
        if walk.walk(crate::parallel::SEQUENTIAL_BELOW, &mut |_, _, _, _| {}) {
            // While this thread walks on, the others read what it finds (a
            // few batches at a time, so the early reads stay few): the walk
            // is a tenth of loading a large bank and one core's work.
            rayon::in_place_scope(|scope| {
                // A batch's paths are one buffer too (see `WalkedPaths`).
                let (mut batch, mut batch_paths) = (Vec::new(), WalkedPaths::default());
                let mut on_file =
                    |seq: u32, dir: Option<&Arc<OpenDir>>, path: &Path, is_link: bool| {
                        // `u32::MAX` is where numbering stops: not a file's
                        // own number, so never matched to a result.
                        if seq == u32::MAX
                            || early.in_flight.load(Ordering::Relaxed) >= EARLY_BATCHES_IN_FLIGHT
                        {
                            return;
                        }
                        batch.push((seq, dir.cloned(), batch_paths.push(path), is_link));
                        if batch.len() == EARLY_BATCH {
                            let batch = std::mem::take(&mut batch);
                            let paths = std::mem::take(&mut batch_paths);
                            early.in_flight.fetch_add(1, Ordering::Relaxed);
                            let (early, reader, read_one) = (&early, &reader, &read_one);
                            scope.spawn(move |_| {
                                let done = batch.into_iter().map(|(seq, dir, path, is_link)| {
                                    if let Some(n) = files_read {
                                        n.fetch_add(1, Ordering::Relaxed);
                                    }
                                    let path = paths.path(&path);
                                    let loaded = read_one(reader, dir.as_deref(), path, is_link);
                                    (seq, std::sync::Mutex::new(Some(loaded)))
                                });
                                let done: Vec<_> = done.collect();
                                if let Ok(mut all) = early.done.lock() {
                                    all.extend(done);
                                }
                                early.in_flight.fetch_sub(1, Ordering::Relaxed);
                            });
                        }
                    };
                walk.walk(usize::MAX, &mut on_file);
            });
        }
        let BankWalk {
            found,
            paths,
            dirs,
            missing_folders,
            ..
        } = walk;
        let mut early = early.done.into_inner().unwrap_or_default();
        early.sort_unstable_by_key(|(seq, _)| *seq);
        // Which files were read early, a bit each, and where each was
        // put: most were not, and the bit says so where a binary search
        // over the early reads took a dozen steps through scattered
        // records for every file. An early read's place among them is the
        // number of bits set before its own (the reads are in `seq` order).
        let words = early.last().map_or(0, |(seq, _)| *seq as usize / 64 + 1);
        let mut read_early = vec![(0u64, 0u32); words];
        for (seq, _) in &early {
            read_early[*seq as usize / 64].0 |= 1 << (seq % 64);
        }
        let mut set_before = 0;
        for (bits, before) in &mut read_early {
            *before = set_before;
            set_before += bits.count_ones();
        }
        if let Some(walked) = walked {
            walked(listed_markdown(reader.root(), &found, &paths));
        }
        let mut bank = Bank {
            root,
            options,
            reader,
            articles: Vec::new(),
            skipped: Vec::new(),
            problems: Vec::new(),
            templates: Vec::new(),
            other_files: Vec::new(),
            missing_folders,
            unknown_folders,
            index: Index::default(),
            scoring: std::sync::OnceLock::new(),
        };
        // Deciding what each file is and reading it both happen on all
        // cores for a large bank; the walk itself only lists paths.
        let reader = &bank.reader;
        let load = |w: Walked| {
            let (path, is_link, dir, seq) = match w {
                Walked::File {
                    path,
                    is_link,
                    dir,
                    seq,
                } => (path, is_link, dir, seq),
                Walked::Problem(p) => return Some(Err(Kept::Found(Found::Problem(*p)))),
            };
            let place = read_early
                .get(seq as usize / 64)
                .filter(|(bits, _)| bits >> (seq % 64) & 1 != 0)
                .map(|(bits, before)| {
                    let below = bits & ((1u64 << (seq % 64)) - 1);
                    *before as usize + below.count_ones() as usize
                });
            if let Some((early_seq, read)) = place.and_then(|i| early.get(i))
                && *early_seq == seq
                && let Some(loaded) = read.lock().ok().and_then(|mut l| l.take())
            {
                return loaded;
            }
            if let Some(n) = files_read {
                n.fetch_add(1, Ordering::Relaxed);
            }
            let dir = dirs.get(dir as usize).and_then(|(_, open)| open.as_deref());
            read_one(reader, dir, paths.path(&path), is_link)
        };
        // `map`, not `filter_map`: an indexed iterator is collected straight
        // into one array, where `filter_map` would gather pieces and copy
        // them all into a second one (tens of megabytes at the peak).
        let loaded: Vec<Option<Result<T, Kept>>> = if crate::parallel::pays(found.len()) {
            found
                .into_par_iter()
                .with_max_len(crate::parallel::READ_PIECE_MOST)
                .map(load)
                .collect()
        } else {
            found.into_iter().map(load).collect()
        };
        drop(paths);
        // Collected in place, reusing the buffer of `loaded` where the
        // sizes allow: on a large bank a second array of articles would add
        // tens of megabytes at the peak.
        let mut others = Vec::new();
        let kept = loaded
            .into_iter()
            .filter_map(|r| r?.map_err(|f| others.push(f)).ok())
            .collect();
        for f in others {
            match f {
                Kept::Dropped | Kept::Found(Found::Article(..)) => {}
                Kept::Found(Found::Skipped(s)) => bank.skipped.push(s),
                Kept::Found(Found::Template(t)) => bank.templates.push(t),
                Kept::Found(Found::Other(o)) => bank.other_files.push(o),
                Kept::Found(Found::Problem(p)) => bank.problems.push(p),
            }
        }
        crate::shared_sort::sort_by(&mut bank.skipped, |a, b| a.path.cmp(&b.path));
        crate::shared_sort::sort_by(&mut bank.problems, |a, b| a.path.cmp(&b.path));
        bank.templates.sort();
        bank.other_files.sort();
        Ok((bank, kept))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// What was read: a reload reads the same.
    pub fn options(&self) -> LoadOptions {
        self.options
    }

    /// The reader every file of this bank goes through; use it for any
    /// further read (a template, a file a command names) so the same
    /// limits hold.
    pub fn reader(&self) -> &RootReader {
        &self.reader
    }

    pub fn articles(&self) -> &[Article] {
        &self.articles
    }

    pub fn article(&self, id: ArticleId) -> &Article {
        &self.articles[id]
    }

    /// The article's whole text (BOM and §4.3 fence removed, LF line
    /// endings). When the bank was loaded without text, the file is read
    /// again through the bank's reader (same limits: regular files inside
    /// the root only); a file that is gone, refused, or no longer the file
    /// that was loaded (another character count) is an error naming it.
    pub fn article_text(&self, id: ArticleId) -> Result<std::borrow::Cow<'_, str>, LoadProblem> {
        let a = &self.articles[id];
        if self.options.text && self.options.body {
            return Ok(std::borrow::Cow::Borrowed(&a.text));
        }
        read_text_again(&self.reader, &a.rel_path, a.chars()).map(std::borrow::Cow::Owned)
    }

    /// The article's kept text, at least up to where its body starts (the
    /// frontmatter block a fix's preview reads). When the bank kept no
    /// block for it (see [`LoadOptions::frontmatter`]), the file is read
    /// again as [`Bank::article_text`] reads it, with the same check that
    /// it is still the file that was loaded, and cut where the body starts.
    pub fn frontmatter_text(
        &self,
        id: ArticleId,
    ) -> Result<std::borrow::Cow<'_, str>, LoadProblem> {
        let a = &self.articles[id];
        if a.kept_lines().is_none() {
            return Ok(std::borrow::Cow::Borrowed(&a.text));
        }
        let mut text = read_text_again(&self.reader, &a.rel_path, a.chars())?;
        // Same characters as loaded, so the body starts at a character.
        if text.is_char_boundary(a.body_start().min(text.len())) {
            text.truncate(a.body_start());
        }
        Ok(std::borrow::Cow::Owned(text))
    }

    pub fn find(&self, rel_path: &str) -> Option<ArticleId> {
        // Articles are sorted by (folder, path), so no map is needed.
        let folder = rel_path.split('/').next().and_then(Folder::from_dir_name)?;
        self.articles
            .binary_search_by(|a| (a.folder, a.rel_path.as_str()).cmp(&(folder, rel_path)))
            .ok()
    }

    /// Articles of 01–04, the ones scored and put in a context.
    pub fn content_ids(&self) -> impl Iterator<Item = ArticleId> + '_ {
        self.articles
            .iter()
            .enumerate()
            .filter(|(_, a)| a.folder.is_content())
            .map(|(i, _)| i)
    }

    /// Content articles in the §7 tie-break order.
    pub fn content_order(&self) -> &[ArticleId] {
        self.index
            .content_order
            .get_or_init(|| self.tie_break_order())
    }

    /// Inbox files waiting for Process Inbox: not archived, not `compiled: true`.
    pub fn pending_inbox(&self) -> Vec<ArticleId> {
        // Articles are in folder order and the inbox comes first: only its
        // part is looked at, not the whole bank.
        let inbox_end = self.articles.partition_point(|a| a.folder == Folder::Inbox);
        self.articles[..inbox_end]
            .iter()
            .enumerate()
            .filter(|(_, a)| layout::is_pending_inbox(&a.rel_path, a.meta.compiled))
            .map(|(i, _)| i)
            .collect()
    }

    /// Resolve a link target as seen from the bank root.
    pub fn resolve(&self, target: &str) -> Resolution {
        self.resolve_from(target, None)
    }

    /// Resolve a link target as written in the file at `from` (a relative
    /// path), which matters for `./` and `../` links and for names several
    /// files share.
    pub fn resolve_from(&self, target: &str, from: Option<&str>) -> Resolution {
        thread_local! {
            static FOUND: std::cell::RefCell<Vec<FileRef>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        FOUND.with_borrow_mut(|files| {
            self.index.links.resolve_into(target, from, files);
            resolution_of(files)
        })
    }

    /// The shortest link name that opens the article at `rel` and only it,
    /// wherever it is written: its name, or as many of its folders before
    /// the name as it takes when other files share the name (as Obsidian
    /// writes such a link). `None` when `rel` is not an article.
    pub fn unique_link_name(&self, rel: &str) -> Option<String> {
        let id = self.find(rel)?;
        let stem = rel.strip_suffix(".md").unwrap_or(rel);
        let parts: Vec<&str> = stem.split('/').collect();
        (1..=parts.len())
            .map(|n| parts[parts.len() - n..].join("/"))
            .find(|name| matches!(self.resolve(name), Resolution::One(found) if found == id))
            .or_else(|| Some(stem.to_owned()))
    }

    /// The path of a file a link reached that is not an article.
    pub fn link_file(&self, index: usize) -> &str {
        &self.index.link_files[index]
    }

    /// The article's links with where each points.
    pub fn outgoing(
        &self,
        id: ArticleId,
    ) -> impl Iterator<Item = (crate::article::Link<'_>, Resolution)> {
        self.articles[id]
            .links
            .iter()
            .zip(self.index.resolved.of(id))
    }

    /// Articles that link to this one, in bank order, each once.
    pub fn backlinks(&self, id: ArticleId) -> crate::memory::Backlinks<'_> {
        let from = &self.index.backlinks_from;
        let ids = match (from.get(id), from.get(id + 1)) {
            (Some(&start), Some(&end)) => self
                .index
                .backlinks
                .get(start as usize..end as usize)
                .unwrap_or(&[]),
            _ => &[],
        };
        crate::memory::Backlinks::of(ids)
    }

    /// Bytes the index of names links are looked up by holds, for
    /// measuring what a bank costs.
    pub fn link_index_bytes(&self) -> usize {
        self.index.links.heap_bytes()
    }

    /// The packed scoring arrays, built on first use.
    pub(crate) fn scoring_index(&self) -> &crate::scoring::index::ScoringIndex {
        self.scoring
            .get_or_init(|| crate::scoring::index::ScoringIndex::build(self))
    }

    fn rebuild_index(&mut self) {
        self.scoring = std::sync::OnceLock::new();
        self.index = Index::default();
        if self.options.links {
            self.index_links();
            if !self.options.resolver {
                self.index.links = LinkIndex::default();
            }
        }
    }

    fn tie_break_order(&self) -> Vec<ArticleId> {
        // The §7 tie-break as a sort key (scoring::tie_break, field by
        // field), so sorting compares compact keys instead of fetching two
        // articles per comparison. Paths are unique, so the order is total.
        let mut keys: Vec<_> = self
            .content_ids()
            .map(|id| {
                let a = &self.articles[id];
                let date = a.meta.last_updated_date;
                let newest_first = (date.is_none(), std::cmp::Reverse(date));
                (
                    a.folder,
                    newest_first,
                    a.file_name(),
                    a.rel_path.as_str(),
                    id,
                )
            })
            .collect();
        if crate::parallel::pays(keys.len()) {
            keys.par_sort_unstable();
        } else {
            keys.sort_unstable();
        }
        // A fresh vector, not collected in place: that would keep the
        // keys' buffer (several times the ids' size) for the bank's life.
        let mut order = Vec::with_capacity(keys.len());
        order.extend(keys.iter().map(|k| k.4));
        order
    }

    /// The files a link can reach that are not articles, in the order
    /// [`Resolution::File`] counts them.
    pub(crate) fn linkable_files(&self) -> Vec<String> {
        let mut link_files: Vec<String> = Vec::new();
        link_files.extend(self.skipped.iter().map(|f| f.path.clone()));
        link_files.extend(self.other_files.iter().cloned());
        link_files.extend(self.templates.iter().cloned());
        link_files.extend(
            self.problems
                .iter()
                .filter(|p| p.kind == ProblemKind::NotUtf8)
                .map(|p| p.path.clone()),
        );
        link_files
    }

    /// Names to files, each link's resolution, and backlinks.
    fn index_links(&mut self) {
        let link_files = self.linkable_files();
        let articles = self
            .articles
            .iter()
            .enumerate()
            .map(|(id, a)| (a.rel_path.as_str(), FileRef::Article(id)));
        let others = link_files
            .iter()
            .enumerate()
            .map(|(i, p)| (p.as_str(), FileRef::Other(i)));
        self.index = Index {
            links: LinkIndex::build(articles.chain(others)),
            link_files,
            ..Index::default()
        };
        // By batches of articles in order, so each article's links come
        // back in order; a batch's lookups are started together (see
        // `LinkIndex::warm`).
        let (articles, links) = (&self.articles, &self.index.links);
        let resolve_batch = |batch: usize| {
            let in_batch = &articles[link_batch(batch, articles.len())];
            let mut prepared = crate::resolve::Prepared::default();
            let targets = in_batch.iter().flat_map(|a| a.links.iter());
            links.prepare(targets.map(|l| l.target()), &mut prepared);
            links.warm(&prepared);
            let mut found = Vec::new();
            // Each link's note, by count: the links were decoded once
            // for their targets already.
            let froms = in_batch
                .iter()
                .flat_map(|a| std::iter::repeat_n(&*a.rel_path, a.links.len()));
            froms
                .enumerate()
                .map(|(i, from)| {
                    links.resolve_prepared(&prepared, i, Some(from), &mut found);
                    resolution_of(&found)
                })
                .collect::<Vec<_>>()
        };
        let n = self.articles.len();
        let batches = link_batches(n);
        let resolved: Vec<Resolution> = if crate::parallel::pays(n) {
            (0..batches)
                .into_par_iter()
                .flat_map_iter(resolve_batch)
                .collect()
        } else {
            (0..batches).flat_map(resolve_batch).collect()
        };
        let resolved =
            resolved::Resolved::pack(resolved, self.articles.iter().map(|a| a.links.len()));
        // Each linking article once per target, in bank order: count, then
        // fill. `last` remembers the latest article counted for a target.
        let n = self.articles.len();
        let targets = |from: ArticleId| resolved.targets(from).filter(move |&to| to != from);
        let mut last = vec![usize::MAX; n];
        // 32-bit: at most one backlink per link, and a bank that fits in
        // memory is far from 2^32 links.
        let mut backlinks_from = vec![0u32; n + 1];
        for from in 0..n {
            for to in targets(from) {
                if last[to] != from {
                    last[to] = from;
                    backlinks_from[to + 1] += 1;
                }
            }
        }
        for i in 0..n {
            backlinks_from[i + 1] += backlinks_from[i];
        }
        let mut next = backlinks_from.clone();
        let mut backlinks = vec![0u32; backlinks_from[n] as usize];
        last.fill(usize::MAX);
        for from in 0..n {
            for to in targets(from) {
                if last[to] != from {
                    last[to] = from;
                    backlinks[next[to] as usize] = from as u32;
                    next[to] += 1;
                }
            }
        }
        self.index.resolved = resolved;
        self.index.backlinks = backlinks;
        self.index.backlinks_from = backlinks_from;
    }
}

/// Articles whose links are resolved together: some fifty links, whose
/// reads of the link index fit the first-level cache together.
const ARTICLES_PER_LINK_BATCH: usize = 16;

/// How many batches of articles `articles` articles' links are resolved in.
pub(crate) fn link_batches(articles: usize) -> usize {
    articles.div_ceil(ARTICLES_PER_LINK_BATCH)
}

/// The ids of the articles of batch `batch` of [`link_batches`].
pub(crate) fn link_batch(batch: usize, articles: usize) -> std::ops::Range<ArticleId> {
    let start = (batch * ARTICLES_PER_LINK_BATCH).min(articles);
    start..(start + ARTICLES_PER_LINK_BATCH).min(articles)
}

/// Where a link points, from the files its name reaches (as
/// [`LinkIndex::resolve_into`] lists them, the one it opens first).
pub(crate) fn resolution_of(files: &[FileRef]) -> Resolution {
    match files {
        [] => Resolution::Dead,
        [FileRef::Other(i), ..] => Resolution::File(*i),
        [FileRef::Article(id)] => Resolution::One(*id),
        [FileRef::Article(id), rest @ ..] => {
            let ids: Vec<ArticleId> = std::iter::once(*id)
                .chain(rest.iter().filter_map(|f| match f {
                    FileRef::Article(id) => Some(*id),
                    FileRef::Other(_) => None,
                }))
                .collect();
            if ids.len() == 1 {
                Resolution::One(*id)
            } else {
                Resolution::Ambiguous(ids)
            }
        }
    }
}

/// An article's whole text read again through `reader` (BOM and §4.3
/// fence removed, LF line endings); an error naming the file when it is
/// gone, refused, or no longer `chars` characters long (not the file that
/// was loaded).
pub(crate) fn read_text_again(
    reader: &RootReader,
    rel_path: &str,
    chars: usize,
) -> Result<String, LoadProblem> {
    let mut buf = Vec::new();
    let changed = || LoadProblem {
        path: rel_path.to_owned(),
        line: None,
        message: "changed on disk since the bank was read; run the command again".into(),
        kind: ProblemKind::Io,
    };
    if let Err(e) = reader.read_into(Path::new(rel_path), &mut buf) {
        return Err(LoadProblem::from_read_error(rel_path.to_owned(), &e));
    }
    let decoded = text::decode_borrowed(&buf).map_err(|_| changed())?;
    let text = crate::frontmatter::locate_cow(decoded.text)
        .text
        .into_owned();
    if text.chars().count() != chars {
        return Err(changed());
    }
    Ok(text)
}

mod reload;
mod resolved;
#[cfg(test)]
mod tests;
mod walk;
