//! The health checks again after some files changed, without checking every
//! article again.
//!
//! An article's own findings depend on the article, on where its links
//! point and on whether anything links to it. So after a change only these
//! articles are checked again: the changed and added ones, the ones whose
//! links now reach other files (only possible when files were added,
//! removed or renamed), and the ones that gained their first or lost their
//! last backlink. Everyone else keeps the findings of the report before.
//! The passes over the whole bank (files, folders, names, term conflicts)
//! run in full: they are cheap next to the per-article checks.

use std::collections::HashSet;

use rayon::prelude::*;

use super::{Finding, HealthOptions, HealthReport, article_findings, bank_findings, stale_cutoff};
use crate::bank::{ArticleId, Bank, ProblemKind, Resolution};

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
    "bad-filename",
    "term-conflict",
];

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
    let changed: HashSet<String> = changed.iter().map(|p| p.replace('\\', "/")).collect();
    let same_files = same_link_files(before, after);
    let dirty: Vec<bool> = (0..after.articles().len())
        .into_par_iter()
        .map(|id| must_recheck(before, after, id, &changed, same_files))
        .collect();
    let mut findings: Vec<Finding> = before_report
        .findings
        .par_iter()
        .filter(|f| {
            !BANK_WIDE.contains(&f.code) && after.find(&f.path).is_some_and(|id| !dirty[id])
        })
        .cloned()
        .collect();
    let cutoff = stale_cutoff(opts);
    let again: Vec<Finding> = dirty
        .par_iter()
        .enumerate()
        .filter(|(_, d)| **d)
        .flat_map_iter(|(id, _)| {
            let mut out = Vec::new();
            article_findings(after, id, cutoff, opts, &mut out);
            out
        })
        .collect();
    findings.extend(again);
    bank_findings(after, &mut findings);
    HealthReport::new(findings)
}

/// Must this article of `after` be checked again?
fn must_recheck(
    before: &Bank,
    after: &Bank,
    id: ArticleId,
    changed: &HashSet<String>,
    same_files: bool,
) -> bool {
    let a = after.article(id);
    if changed.contains(a.rel_path.as_str()) {
        return true;
    }
    let Some(old) = before.find(&a.rel_path) else {
        return true;
    };
    if before.backlinks(old).is_empty() != after.backlinks(id).is_empty() {
        return true;
    }
    !same_files && !same_targets(before, old, after, id)
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

/// Does each link of the article reach the same files in both banks?
fn same_targets(before: &Bank, old: ArticleId, after: &Bank, new: ArticleId) -> bool {
    let path_b = |id: ArticleId| before.article(id).rel_path.as_str();
    let path_a = |id: ArticleId| after.article(id).rel_path.as_str();
    before
        .outgoing(old)
        .zip(after.outgoing(new))
        .all(|((_, rb), (_, ra))| match (rb, ra) {
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
