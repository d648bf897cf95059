//! The health checks again after some files changed, without checking every
//! article again.
//!
//! An article's own findings depend on the article, on where its links
//! point and on whether anything links to it. So after a change only these
//! articles are checked again: the changed and added ones, the ones whose
//! links now reach other files (only possible when files were added,
//! removed or renamed), the ones with a dead link when files came or went
//! (what it may have meant is among the names), and the ones that gained
//! their first or lost their last backlink. Everyone else keeps the findings of the report before.
//!
//! Of the passes over the whole bank, the ones about folders and the files
//! that are not articles run again (there are few such files). File names
//! are checked again only when files came or went. Term conflicts are made
//! again only for the terms of the changed articles: every approved term's
//! key is hashed (no string is built) to find the others of those terms.
//! Only the new findings are sorted, then merged into the kept ones.
//!
//! The names a dead link may have meant are kept with the report: when no
//! file came or went they are the same, so the report before's index
//! serves, and indexing the names of the whole bank (most of a re-check's
//! time at 100,000 articles) is left to changes that add, remove or rename
//! a file.

use std::collections::HashSet;

use rayon::prelude::*;

use super::{
    Finding, HealthOptions, HealthReport, LinkNames, article_findings, listed_file_findings, names,
    stale_cutoff, terms,
};
use crate::bank::{ArticleId, Bank, ProblemKind, Resolution};

type FastSet<T> = HashSet<T, foldhash::fast::RandomState>;

/// Codes of the passes over the whole bank; every other code is about one
/// article, found by looking at that article alone.
pub const BANK_WIDE: &[&str] = &[
    "not-utf8",
    "unreadable-file",
    "symlinked-folder",
    "not-a-file",
    "oversized-file",
    "link-outside-bank",
    "missing-folder",
    "unknown-folder",
    "tmp-leftover",
    "not-markdown",
    "skipped-file",
    "renamed-template",
    "unknown-template",
    FILE_NAMES,
    TERM_CONFLICT,
];

const FILE_NAMES: &str = "bad-filename";
const TERM_CONFLICT: &str = "term-conflict";

/// The report [`super::check`] would give for `after`, computed from the
/// report of `before` (made with the same `opts`). `after` must be `before`
/// with the files `changed` (bank-relative paths) read again, as
/// [`Bank::reload`] and [`Bank::reloaded`] leave it.
pub fn recheck(
    before: &Bank,
    before_report: &HealthReport,
    after: &Bank,
    changed: &[String],
    opts: &HealthOptions,
) -> HealthReport {
    let changed: FastSet<String> = changed.iter().map(|p| p.replace('\\', "/")).collect();
    let same_files = same_link_files(before, after);
    let dirty = dirty_articles(before, after, &changed, same_files);
    // Paths whose own findings are made again; a removed article's path
    // is among the changed ones.
    let again: FastSet<&str> = changed
        .iter()
        .map(String::as_str)
        .chain(dirty.iter().map(|&id| after.article(id).rel_path.as_str()))
        .collect();
    let term_hashes = changed_term_hashes(before, after, &changed);
    let term_members = if term_hashes.is_empty() {
        Vec::new()
    } else {
        terms::hashed_terms(after, |h| term_hashes.contains(&h))
    };
    let in_changed_terms: FastSet<&str> = term_members
        .iter()
        .map(|&(_, id)| after.article(id).rel_path.as_str())
        .collect();
    let keep = |f: &Finding| match f.code() {
        FILE_NAMES => same_files,
        TERM_CONFLICT => !changed.contains(&*f.path) && !in_changed_terms.contains(&*f.path),
        code if BANK_WIDE.contains(&code) => false,
        _ => !again.contains(&*f.path),
    };
    let cutoff = stale_cutoff(opts);
    // The names a dead link may have meant are the same when no file came
    // or went: the report before's index serves.
    let names = if same_files && before_report.link_names.is_indexed() {
        before_report.link_names.clone()
    } else {
        LinkNames::for_links_of(after, Some(&dirty))
    };
    let mut fresh: Vec<Finding> = dirty
        .par_iter()
        .flat_map_iter(|&id| {
            let mut out = Vec::new();
            article_findings(after, id, cutoff, opts, &names, &mut out);
            out
        })
        .collect();
    listed_file_findings(after, &mut fresh);
    if !same_files {
        names::file_name_findings(after, &mut fresh);
    }
    terms::conflicts_among(after, &term_members, &mut fresh);
    let mut report = HealthReport::merged(&before_report.findings, keep, fresh);
    report.link_names = names;
    report
}

/// The articles of `after` to check again, in bank order.
fn dirty_articles(
    before: &Bank,
    after: &Bank,
    changed: &FastSet<String>,
    same_files: bool,
) -> Vec<ArticleId> {
    if same_files {
        return dirty_among_the_same_files(before, after, changed);
    }
    let old_ids = matching_ids(before, after);
    (0..after.articles().len())
        .into_par_iter()
        .filter(|&id| match old_ids[id] {
            None => true,
            Some(old) => {
                changed.contains(after.article(id).rel_path.as_str())
                    || before.backlinks(old).is_empty() != after.backlinks(id).is_empty()
                    || !same_targets(before, old, after, id)
                    // A dead link's suggestion is one of the names, which changed.
                    || has_dead_link(after, id)
            }
        })
        .collect()
}

/// When no file came or went, an article has the same id in both banks and
/// only the changed articles' links can point elsewhere: the changed ones
/// and those their links reached, before or now, that gained their first
/// or lost their last backlink.
fn dirty_among_the_same_files(
    before: &Bank,
    after: &Bank,
    changed: &FastSet<String>,
) -> Vec<ArticleId> {
    let edited: Vec<ArticleId> = changed.iter().filter_map(|p| after.find(p)).collect();
    let reached = |bank: &Bank, id: ArticleId| -> Vec<ArticleId> {
        bank.outgoing(id).filter_map(|(_, r)| r.target()).collect()
    };
    let mut dirty: Vec<ArticleId> = edited
        .iter()
        .flat_map(|&id| [reached(before, id), reached(after, id)])
        .flatten()
        .filter(|&t| before.backlinks(t).is_empty() != after.backlinks(t).is_empty())
        .chain(edited.iter().copied())
        .collect();
    dirty.sort_unstable();
    dirty.dedup();
    dirty
}

/// For each article of `after`, the same file's article in `before`.
/// Both banks keep their articles sorted by folder and path, so one walk
/// over both pairs them.
fn matching_ids(before: &Bank, after: &Bank) -> Vec<Option<ArticleId>> {
    fn key(bank: &Bank, id: ArticleId) -> (crate::layout::Folder, &str) {
        let a = bank.article(id);
        (a.folder, a.rel_path.as_str())
    }
    let mut old = 0;
    let old_len = before.articles().len();
    (0..after.articles().len())
        .map(|id| {
            while old < old_len && key(before, old) < key(after, id) {
                old += 1;
            }
            (old < old_len && key(before, old) == key(after, id)).then_some(old)
        })
        .collect()
}

/// The hashes of the terms the changed articles had before and have now.
fn changed_term_hashes(before: &Bank, after: &Bank, changed: &FastSet<String>) -> FastSet<u64> {
    changed
        .iter()
        .flat_map(|path| {
            let then = before
                .find(path)
                .and_then(|id| terms::term_hash(before.article(id)));
            let now = after
                .find(path)
                .and_then(|id| terms::term_hash(after.article(id)));
            [then, now]
        })
        .flatten()
        .collect()
}

/// Do both banks have the same files a link can reach? Links resolve by
/// file paths alone, so then every unchanged article's links point where
/// they pointed before.
fn same_link_files(before: &Bank, after: &Bank) -> bool {
    before.articles().len() == after.articles().len()
        && article_paths(before).eq(article_paths(after))
        && other_paths(before).eq(other_paths(after))
}

fn article_paths(bank: &Bank) -> impl Iterator<Item = &str> {
    bank.articles().iter().map(|a| a.rel_path.as_str())
}

/// The files a link can reach that are not articles, as the bank's link
/// index lists them.
fn other_paths(bank: &Bank) -> impl Iterator<Item = &str> {
    let not_utf8 = bank
        .problems
        .iter()
        .filter(|p| p.kind == ProblemKind::NotUtf8)
        .map(|p| p.path.as_str());
    bank.skipped
        .iter()
        .map(|s| s.path.as_str())
        .chain(bank.other_files.iter().map(String::as_str))
        .chain(bank.templates.iter().map(String::as_str))
        .chain(not_utf8)
}

fn has_dead_link(bank: &Bank, id: ArticleId) -> bool {
    bank.outgoing(id)
        .any(|(_, r)| matches!(r, Resolution::Dead))
}

/// Does each link of the article reach the same files in both banks?
fn same_targets(before: &Bank, old: ArticleId, after: &Bank, new: ArticleId) -> bool {
    let path_b = |id: ArticleId| before.article(id).rel_path.as_str();
    let path_a = |id: ArticleId| after.article(id).rel_path.as_str();
    before
        .outgoing(old)
        .zip(after.outgoing(new))
        .all(|((_, rb), (_, ra))| match (&rb, &ra) {
            (Resolution::Dead, Resolution::Dead) => true,
            (Resolution::One(x), Resolution::One(y)) => path_b(*x) == path_a(*y),
            (Resolution::File(x), Resolution::File(y)) => {
                before.link_file(*x) == after.link_file(*y)
            }
            (Resolution::Ambiguous(xs), Resolution::Ambiguous(ys)) => {
                xs.len() == ys.len() && xs.iter().zip(ys).all(|(x, y)| path_b(*x) == path_a(*y))
            }
            _ => false,
        })
}

#[cfg(test)]
#[path = "incremental_tests.rs"]
mod tests;
