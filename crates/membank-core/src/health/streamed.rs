//! The health checks as a command that answers once runs them: each
//! article's own checks (encoding, credentials, frontmatter, keys and
//! values, inbox, staleness) run on the thread that read it, and what is
//! kept of the article is only what the passes over the whole bank read:
//! its path, folder and links, and for an approved term its term, clients
//! and the line of its translation. At 100,000 articles the loaded bank's
//! article records, text, titles and values were most of what `check`
//! held.
//!
//! The report is the one [`super::check`] gives on the loaded bank, finding
//! for finding (a test compares them on generated banks).

use std::collections::HashMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use rayon::prelude::*;

use crate::article::{Article, KeyedValue, Links};
use crate::bank::{ArticleId, Bank, BankError, LoadOptions, Resolution, resolution_of};
use crate::layout::Folder;
use crate::resolve::{FileRef, LinkIndex, Prepared};

use super::finding::{share_path, shared_path};
use super::frontmatter::key_line;
use super::links::LinkNames;
use super::terms::{self, Terms};
use super::{Finding, HealthOptions, HealthReport, encoding, files, links, names};

/// Findings made on the reading threads, in fixed-size parts per thread
/// and severity: no array grown by doubling (up to half of it spare at the
/// peak), no thread waiting on another's lock, and the report's severities
/// gathered apart (see [`HealthReport::about_by_severity`]).
struct Gathered {
    per_thread: Vec<Mutex<BySeverity>>,
}

/// Parts of findings, each of one severity, listed under it.
type BySeverity = [Vec<Vec<Finding>>; 3];

/// Findings per part: large enough that the parts are few.
const PART: usize = 4096;

impl Gathered {
    fn new() -> Gathered {
        // The thread that walks, and each thread of the pool.
        let threads = rayon::current_num_threads() + 1;
        Gathered {
            per_thread: (0..threads).map(|_| Mutex::default()).collect(),
        }
    }

    fn add(&self, found: &mut Vec<Finding>) {
        if found.is_empty() {
            return;
        }
        let slot = rayon::current_thread_index()
            .map_or(0, |i| i + 1)
            .min(self.per_thread.len() - 1);
        // A poisoned lock means a check panicked on another thread; the
        // panic is reported there.
        let mut parts = self.per_thread[slot]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        for f in found.drain(..) {
            let parts = &mut parts[f.severity as usize];
            match parts.last_mut() {
                Some(part) if part.len() < part.capacity() => part.push(f),
                _ => {
                    let mut part = Vec::with_capacity(PART);
                    part.push(f);
                    parts.push(part);
                }
            }
        }
    }

    /// Every finding gathered and those of `more`, in parts by severity.
    /// A group of `more` of one severity is listed whole; only the few
    /// that mix severities are split.
    fn into_by_severity(self, more: Vec<Vec<Finding>>) -> BySeverity {
        let mut all = BySeverity::default();
        for parts in self.per_thread {
            let parts = parts.into_inner().unwrap_or_else(|e| e.into_inner());
            for (all, parts) in all.iter_mut().zip(parts) {
                all.extend(parts);
            }
        }
        for group in more {
            let Some(first) = group.first().map(|f| f.severity) else {
                continue;
            };
            if group.iter().all(|f| f.severity == first) {
                all[first as usize].push(group);
                continue;
            }
            let mut split = <[Vec<Finding>; 3]>::default();
            for f in group {
                split[f.severity as usize].push(f);
            }
            for (all, part) in all.iter_mut().zip(split) {
                all.push(part);
            }
        }
        all
    }
}

/// What is kept of one article for the passes over the whole bank.
struct Kept {
    /// The copy of the path its own findings hold, shared with the
    /// findings the passes make.
    path: Arc<str>,
    folder: Folder,
    links: Links,
    /// Only for an approved term with a translation.
    term: Option<Box<Term>>,
}

/// What the term-conflict pass reads of an article (see [`Terms`]). Its
/// four texts are one string, and its clients the article's own list:
/// each was a block of its own, for each of the 55,000 approved terms of
/// 100,000 articles, all kept to the end.
struct Term {
    hash: u64,
    /// `source`, `source_lang`, `target_lang` and `target`, one after
    /// another.
    text: Box<str>,
    /// Where `source_lang`, `target_lang` and `target` start in `text`.
    at: [u32; 3],
    target_line: Option<u32>,
    clients: Arc<[KeyedValue]>,
}

impl Term {
    /// `None` past what 32-bit offsets reach (no file read is that large).
    fn new(
        parts: [&str; 4],
        hash: u64,
        target_line: Option<usize>,
        clients: Arc<[KeyedValue]>,
    ) -> Option<Term> {
        let mut text = String::with_capacity(parts.iter().map(|p| p.len()).sum());
        let mut at = [0; 3];
        for (i, part) in parts.iter().enumerate() {
            if i > 0 {
                at[i - 1] = u32::try_from(text.len()).ok()?;
            }
            text.push_str(part);
        }
        u32::try_from(text.len()).ok()?;
        Some(Term {
            hash,
            text: text.into_boxed_str(),
            at,
            target_line: target_line.and_then(|l| u32::try_from(l).ok()),
            clients,
        })
    }

    /// The `i`th of the four texts.
    fn part(&self, i: usize) -> &str {
        let start = i.checked_sub(1).map_or(0, |j| self.at[j] as usize);
        let end = self.at.get(i).map_or(self.text.len(), |&e| e as usize);
        self.text.get(start..end).unwrap_or("")
    }
}

impl Kept {
    fn of(a: Article) -> Kept {
        let term = terms::term_of(&a).and_then(|(source, source_lang, target_lang)| {
            let target = crate::text::trim(a.meta.term_target().unwrap_or(""));
            let parts = [source, source_lang, target_lang, target];
            let hash = terms::term_hash(&a).unwrap_or_default();
            let line = key_line(&a, "term_target");
            let clients = Arc::clone(&a.meta.clients);
            Term::new(parts, hash, line, clients).map(Box::new)
        });
        Kept {
            path: shared_path(&a.rel_path),
            folder: a.folder,
            links: a.links,
            term,
        }
    }
}

/// The kept articles, in bank order.
struct KeptTerms<'a>(&'a [Kept]);

impl KeptTerms<'_> {
    fn term(&self, id: ArticleId) -> &Term {
        self.0[id]
            .term
            .as_deref()
            .expect("only articles with a term are asked")
    }
}

impl Terms for KeptTerms<'_> {
    fn term(&self, id: ArticleId) -> (&str, &str, &str) {
        let t = KeptTerms::term(self, id);
        (t.part(0), t.part(1), t.part(2))
    }

    fn target(&self, id: ArticleId) -> &str {
        KeptTerms::term(self, id).part(3)
    }

    fn clients(&self, id: ArticleId) -> &[KeyedValue] {
        &KeptTerms::term(self, id).clients
    }

    fn path(&self, id: ArticleId) -> &str {
        &self.0[id].path
    }

    fn shared_path(&self, id: ArticleId) -> Arc<str> {
        Arc::clone(&self.0[id].path)
    }

    fn target_line(&self, id: ArticleId) -> Option<usize> {
        KeptTerms::term(self, id).target_line.map(|l| l as usize)
    }
}

thread_local! {
    /// One article's own findings, on the thread that read it.
    static OWN_FOUND: std::cell::RefCell<Vec<Finding>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Read the bank at `root` and check it, holding only what the passes over
/// the whole bank need. The bank returned is the bank as read, without its
/// articles: its files that are not articles, its problems and folders.
///
/// For a command that exits once it has the report: what was kept of the
/// articles for the passes is left for the exit to free.
pub fn check_streamed(
    root: &Path,
    opts: &HealthOptions,
) -> Result<(Bank, HealthReport), BankError> {
    // Each thread of the pool makes its heap on its first article, at its
    // largest size; glibc's padding is set back once every thread has, so
    // a heap still gives back the free room at its top (the peak), while
    // growing again within the size made writable once needs no call. Set
    // before anything asks for the pool: its threads, started then, make
    // their heaps at once, and a heap made before the padding grew a page
    // at a time (5,000 to 10,000 `mprotect` calls, in 3 of 11 runs timed).
    heap_growth(READING_TOP_PAD);
    large_blocks_from_heaps();
    let stale_cutoff = super::stale_cutoff(opts);
    let gathered = Gathered::new();
    let heaps = HeapsMade::new();
    let keep = |a: Article| -> Option<Kept> {
        heaps.made_on_this_thread();
        // One list per thread, emptied into `gathered` each time: one per
        // article was an allocation for most articles.
        OWN_FOUND.with_borrow_mut(|found| {
            super::own_findings(&a, stale_cutoff, opts, found);
            // In report order, so each thread's findings come in long runs
            // that the report's sort only merges (a few findings to order).
            found.sort_by(Finding::report_order);
            gathered.add(found);
        });
        Some(Kept::of(a))
    };
    let loaded = Bank::load_kept(
        root,
        crate::safe_read::user_policy(),
        // Each article is dropped once checked: shared copies save nothing,
        // no check reads its count of characters, and only what the checks
        // read of its values is built.
        LoadOptions {
            share: false,
            chars: false,
            checked: true,
            ..LoadOptions::CHECK
        },
        None,
        None,
        None,
        &keep,
    );
    heaps.all_made();
    let (bank, mut kept) = loaded?;
    sort_kept(&mut kept);
    let report = check_kept(&bank, kept, gathered);
    Ok((bank, report))
}

/// The allocator's padding when the pool's threads make their heaps: the
/// most a thread's heap holds (64 MB), so each heap is made writable in
/// one call. Grown as needed, a page or two at a time, the reading
/// threads' heaps took over 12,000 `mprotect` calls at 100,000 articles,
/// each one holding the process's memory map against the other threads'
/// page faults. Untouched, the pages cost nothing.
const READING_TOP_PAD: usize = 64 << 20;

/// glibc's own padding (`mallopt(3)`): a heap keeps as much free room at
/// its top as the padding, and 64 MB kept per heap raised the peak by 10 MB.
const DEFAULT_TOP_PAD: usize = 128 << 10;

/// Which threads of the pool have read an article (and so made their
/// heap) while the padding is large, to set it back once all have.
struct HeapsMade {
    seen: AtomicU64,
    /// Every thread's bit; 0 when there are more threads than bits, and
    /// the padding is set back once the bank is read.
    all: u64,
    done: AtomicBool,
}

impl HeapsMade {
    fn new() -> HeapsMade {
        let threads = rayon::current_num_threads();
        HeapsMade {
            seen: AtomicU64::new(0),
            all: if threads < 64 { (1 << threads) - 1 } else { 0 },
            done: AtomicBool::new(false),
        }
    }

    fn made_on_this_thread(&self) {
        if self.done.load(Ordering::Relaxed) {
            return;
        }
        let Some(i) = rayon::current_thread_index().filter(|&i| i < 64) else {
            return;
        };
        let seen = self.seen.fetch_or(1 << i, Ordering::Relaxed) | (1 << i);
        if seen == self.all {
            self.all_made();
        }
    }

    fn all_made(&self) {
        if !self.done.swap(true, Ordering::Relaxed) {
            heap_growth(DEFAULT_TOP_PAD);
        }
    }
}

/// Set the allocator's padding for heaps it grows or makes from now on.
fn heap_growth(top_pad: usize) {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's tunables under its own
    // lock; it has no memory-safety preconditions.
    unsafe {
        libc::mallopt(libc::M_TOP_PAD, top_pad as libc::c_int);
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    let _ = top_pad;
}

/// Cut blocks of up to 4 MiB from the heaps. Setting the padding stops
/// glibc raising its threshold for a block's own mapping as large blocks
/// are freed, so every block over 128 KiB was mapped, grown by moving its
/// mapping and unmapped: 120 to 150 such calls at 100,000 articles, each
/// making the other core drop its address cache (up to 7% of the CPU time
/// on a virtual machine). Up to 4 MiB, under 20 calls are left, with
/// 7,000 fewer page faults, for 11 MB more at the peak (up to glibc's own
/// ceiling, 32 MiB: 20 MB more). The check exits once it has the report,
/// so the threshold stays.
fn large_blocks_from_heaps() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only changes the allocator's tunables under its own
    // lock; it has no memory-safety preconditions.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, LARGEST_HEAP_BLOCK as libc::c_int);
    }
}

/// The largest block cut from a heap while checking.
const LARGEST_HEAP_BLOCK: usize = 4 << 20;

/// Put the kept articles in the loaded bank's order, so ids, and every list
/// in bank order, are the same. The walk lists each folder's files sorted
/// by path, folder after folder, so they nearly always arrive in that order
/// already: one look over them replaces sorting 100,000 paths. Paths are
/// unique, so an unstable sort gives the same order when one is needed.
fn sort_kept(kept: &mut [Kept]) {
    let order = |a: &Kept, b: &Kept| (a.folder, &a.path).cmp(&(b.folder, &b.path));
    let in_order = |pair: &[Kept]| order(&pair[0], &pair[1]).is_lt();
    // Looked over on both threads: on one, the other idled.
    let sorted = if crate::parallel::pays(kept.len()) {
        kept.par_windows(2).all(in_order)
    } else {
        kept.windows(2).all(in_order)
    };
    if sorted {
        return;
    }
    if crate::parallel::pays(kept.len()) {
        kept.par_sort_unstable_by(order);
    } else {
        kept.sort_unstable_by(order);
    }
}

/// What one pass over every link finds: the ambiguous links, the dead
/// ones (put into words once the names they may have meant are known), and
/// the files that are not articles that links reach.
#[derive(Default)]
struct LinkPass {
    found: Vec<Finding>,
    /// (article, link) of each dead link of an article whose links are
    /// checked.
    dead: Vec<(ArticleId, usize)>,
    /// (file, article) for each link to a file that is not an article.
    files: Vec<(usize, ArticleId)>,
    /// Where the files a name reaches are listed, reused from link to link.
    reached: Vec<FileRef>,
    /// The links being resolved, reused from batch to batch.
    batch: Prepared,
}

impl LinkPass {
    fn joined(mut self, other: LinkPass) -> LinkPass {
        self.found.extend(other.found);
        self.dead.extend(other.dead);
        self.files.extend(other.files);
        self
    }
}

/// Resolve every link of the kept articles once, marking in `linked` the
/// articles another one links to. No resolution is kept: a dead link is
/// remembered by where it is, anything else by what it adds to the report.
fn pass_links(kept: &[Kept], link_files: &[String], linked: &[AtomicBool]) -> LinkPass {
    let articles = kept
        .iter()
        .enumerate()
        .map(|(id, k)| (&*k.path, FileRef::Article(id)));
    let others = link_files
        .iter()
        .enumerate()
        .map(|(i, p)| (p.as_str(), FileRef::Other(i)));
    let index = LinkIndex::build(articles.chain(others));
    let path_of = |id: ArticleId| &*kept[id].path;
    // A few articles' links at a time: their lookups' reads are started
    // together (see `LinkIndex::warm`).
    let batch = |mut pass: LinkPass, ids: std::ops::Range<ArticleId>| {
        let links = kept[ids.clone()].iter().flat_map(|k| k.links.iter());
        index.prepare(links.map(|link| link.target()), &mut pass.batch);
        index.warm(&pass.batch);
        let mut at_in_batch = 0;
        for id in ids.clone() {
            let k = &kept[id];
            let checked = super::checks_links(k.folder);
            for (at, link) in k.links.iter().enumerate() {
                let from = Some(&*k.path);
                index.resolve_prepared(&pass.batch, at_in_batch, from, &mut pass.reached);
                at_in_batch += 1;
                let resolution = resolution_of(&pass.reached);
                if let Some(to) = resolution.target()
                    && to != id
                {
                    linked[to].store(true, Ordering::Relaxed);
                }
                match resolution {
                    Resolution::Dead if checked => pass.dead.push((id, at)),
                    Resolution::File(i) => pass.files.push((i, id)),
                    Resolution::Ambiguous(_) if checked => {
                        share_path(&k.path);
                        links::findings_of_links(
                            &k.path,
                            std::iter::once((link, resolution)),
                            &path_of,
                            &LinkNames::default(),
                            &mut pass.found,
                        )
                    }
                    _ => {}
                }
            }
        }
        pass
    };
    let batches = crate::bank::link_batches(kept.len());
    let ids = |b: usize| crate::bank::link_batch(b, kept.len());
    if crate::parallel::pays(kept.len()) {
        (0..batches)
            .into_par_iter()
            .fold(LinkPass::default, |pass, b| batch(pass, ids(b)))
            .reduce(LinkPass::default, LinkPass::joined)
    } else {
        (0..batches).fold(LinkPass::default(), |pass, b| batch(pass, ids(b)))
    }
}

/// The report of the checks that need more than one article, added to
/// `own`, the findings each article's own checks made.
fn check_kept(bank: &Bank, kept: Vec<Kept>, own: Gathered) -> HealthReport {
    let findings = kept_findings(bank, &kept, own);
    // Sorted by the kept articles' places: nearly every finding holds the
    // copy of its path kept with its article.
    let paths: Vec<&str> = kept.iter().map(|k| &*k.path).collect();
    let report = HealthReport::about_by_severity(findings, &paths);
    drop(paths);
    // Deliberately never freed: this serves a command that prints the
    // report and exits, and freeing 100,000 paths and their links one by
    // one only delayed that exit (the kernel takes the pages back at once).
    std::mem::forget(kept);
    report
}

/// The findings of `own`, of the per-article link checks and of the
/// passes over the whole bank, in no particular order but by severity.
fn kept_findings(bank: &Bank, kept: &[Kept], own: Gathered) -> BySeverity {
    let link_files = bank.linkable_files();
    let linked: Vec<AtomicBool> = kept.iter().map(|_| AtomicBool::new(false)).collect();
    let paths = || kept.iter().map(|k| &*k.path);
    // The file names' and the term conflicts' passes need no link, so they
    // run beside resolving the links: the link index's build folds every
    // path on one thread, and the other thread idled through it.
    let (mut pass, (by_name, by_term)) = rayon::join(
        || pass_links(kept, &link_files, &linked),
        || {
            rayon::join(
                || {
                    let mut found = Vec::new();
                    names::findings_of_paths(&names::paths_with(paths(), bank), &mut found);
                    found
                },
                || {
                    let mut hashed: Vec<(u64, ArticleId)> = kept
                        .iter()
                        .enumerate()
                        .filter_map(|(id, k)| Some((k.term.as_ref()?.hash, id)))
                        .collect();
                    hashed.par_sort_unstable();
                    let mut found = Vec::new();
                    terms::conflicts_among(&KeptTerms(kept), &hashed, &mut found);
                    found
                },
            )
        },
    );
    let mut whole_bank = Vec::new();
    let mut orphans = Vec::new();
    let ((), dead) = rayon::join(
        || {
            // The files some article links to, each with the first that
            // does (in bank order).
            pass.files.sort_unstable();
            pass.files.dedup_by_key(|(file, _)| *file);
            let linked_files = || -> HashMap<&str, &str> {
                pass.files
                    .iter()
                    .map(|&(file, id)| (link_files[file].as_str(), &*kept[id].path))
                    .collect()
            };
            encoding::load_problems(bank, &mut whole_bank);
            files::folder_findings(bank, &mut whole_bank);
            files::file_findings_linked(bank, &linked_files, &mut whole_bank);
            orphans = kept
                .iter()
                .enumerate()
                .filter(|&(id, k)| k.folder.is_content() && !linked[id].load(Ordering::Relaxed))
                .map(|(_, k)| {
                    share_path(&k.path);
                    links::orphan(&k.path)
                })
                .collect();
        },
        || {
            if pass.dead.is_empty() {
                return Vec::new();
            }
            // The few thousand names the dead links give are indexed and
            // every name of the bank looked up among them, rather than
            // every name of the bank indexed for them.
            let name_of = |&(id, at): &(ArticleId, usize)| {
                kept[id]
                    .links
                    .get(at)
                    .map_or("", |link| links::dead_link_name(&link))
            };
            let mut written: Vec<&str> = pass.dead.iter().map(name_of).collect();
            written.par_sort_unstable();
            written.dedup();
            let names: Vec<&str> = links::names_of(paths(), bank).collect();
            let near = crate::near_miss::find_each(&names, &written);
            let dead_link = |dead: &(ArticleId, usize)| {
                let k = &kept[dead.0];
                let link = k.links.get(dead.1)?;
                share_path(&k.path);
                let near = written
                    .binary_search(&name_of(dead))
                    .ok()
                    .and_then(|i| near[i]);
                Some(links::dead_link_finding(&k.path, &link, near))
            };
            pass.dead.par_iter().filter_map(dead_link).collect()
        },
    );
    own.into_by_severity(vec![
        pass.found, dead, orphans, whole_bank, by_name, by_term,
    ])
}

#[cfg(test)]
#[path = "streamed_tests.rs"]
pub(super) mod tests;
