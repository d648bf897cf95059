//! Approved terms that contradict each other.

use std::collections::{BTreeMap, BTreeSet};
use std::hash::Hasher;
use std::sync::Arc;

use rayon::prelude::*;
use rustc_hash::FxHasher;

use crate::article::{Article, KeyedValue};
use crate::bank::{ArticleId, Bank};
use crate::layout::Folder;
use crate::wikilink::{fold, hash_folded};

use super::finding::Message;
use super::frontmatter::key_line;
use super::{Finding, Severity};

/// The source term and language pair of an approved term with a
/// translation: the articles that must agree on it.
pub(super) fn term_of(a: &Article) -> Option<(&str, &str, &str)> {
    if a.folder != Folder::Terminology || a.meta.status.as_deref() != Some("approved") {
        return None;
    }
    let (Some(src), Some(_), Some(sl), Some(tl)) = (
        a.meta.term_source(),
        a.meta.term_target(),
        &a.meta.source_lang,
        &a.meta.target_lang,
    ) else {
        return None;
    };
    let trim = crate::text::trim;
    Some((trim(src), trim(sl), trim(tl)))
}

/// What two articles share when they are about the same term: the source
/// term as it folds and the languages in any case.
fn same_term(a: (&str, &str, &str), b: (&str, &str, &str)) -> bool {
    a.1.eq_ignore_ascii_case(b.1) && a.2.eq_ignore_ascii_case(b.2) && fold(a.0) == fold(b.0)
}

/// A hash of the article's term (see [`same_term`]), if it has one.
/// Builds no string, so every article can be hashed cheaply.
pub(super) fn term_hash(a: &Article) -> Option<u64> {
    let (src, sl, tl) = term_of(a)?;
    let mut h = FxHasher::default();
    hash_folded(src, &mut h);
    for lang in [sl, tl] {
        // Never part of UTF-8: the fields cannot run into each other.
        h.write_u8(0xFF);
        for b in lang.bytes() {
            h.write_u8(b.to_ascii_lowercase());
        }
    }
    Some(h.finish())
}

pub(super) fn term_conflicts(bank: &Bank, out: &mut Vec<Finding>) {
    conflicts_among(bank, &hashed_terms(bank, |_| true), out);
}

/// The approved terms whose hash `wanted` accepts, by hash then bank
/// order.
pub(super) fn hashed_terms(
    bank: &Bank,
    wanted: impl Fn(u64) -> bool + Sync,
) -> Vec<(u64, ArticleId)> {
    let mut hashed: Vec<(u64, ArticleId)> = bank
        .articles()
        .par_iter()
        .enumerate()
        .filter_map(|(id, a)| term_hash(a).filter(|&h| wanted(h)).map(|h| (h, id)))
        .collect();
    hashed.par_sort_unstable();
    hashed
}

/// What the conflict pass reads of an article that has a term (see
/// [`term_of`]): the loaded bank's articles, or what a streamed check kept
/// of them.
pub(super) trait Terms: Sync {
    /// The source term and language pair, trimmed.
    fn term(&self, id: ArticleId) -> (&str, &str, &str);
    /// The translation, trimmed.
    fn target(&self, id: ArticleId) -> &str;
    /// The client names, folded.
    fn clients(&self, id: ArticleId) -> &[KeyedValue];
    fn path(&self, id: ArticleId) -> &str;
    /// The path as the findings share it: the copy kept with the article
    /// where there is one, so the report's sort finds its place by its
    /// address (a copy of its own is searched for by its text).
    fn shared_path(&self, id: ArticleId) -> Arc<str> {
        Arc::from(self.path(id))
    }
    /// The line of `term_target`.
    fn target_line(&self, id: ArticleId) -> Option<usize>;
}

impl Terms for Bank {
    fn term(&self, id: ArticleId) -> (&str, &str, &str) {
        term_of(self.article(id)).expect("only articles with a term are asked")
    }

    fn target(&self, id: ArticleId) -> &str {
        crate::text::trim(self.article(id).meta.term_target().unwrap_or(""))
    }

    fn clients(&self, id: ArticleId) -> &[KeyedValue] {
        &self.article(id).meta.clients
    }

    fn path(&self, id: ArticleId) -> &str {
        &self.article(id).rel_path
    }

    fn target_line(&self, id: ArticleId) -> Option<usize> {
        key_line(self.article(id), "term_target")
    }
}

/// The conflicts within the groups of `hashed` (as [`hashed_terms`]
/// gives them).
pub(super) fn conflicts_among(
    terms: &impl Terms,
    hashed: &[(u64, ArticleId)],
    out: &mut Vec<Finding>,
) {
    let runs: Vec<&[(u64, ArticleId)]> = hashed
        .chunk_by(|a, b| a.0 == b.0)
        .filter(|run| run.len() > 1)
        .collect();
    out.par_extend(runs.into_par_iter().flat_map_iter(|run| {
        // Equal hashes are nearly always the same term; split the rare
        // run that is not. Ids ascend, so each group is in bank order.
        let mut groups: Vec<Vec<ArticleId>> = Vec::new();
        for &(_, id) in run {
            let term = terms.term(id);
            let same = |g: &&mut Vec<ArticleId>| same_term(terms.term(g[0]), term);
            match groups.iter_mut().find(same) {
                Some(group) => group.push(id),
                None => groups.push(vec![id]),
            }
        }
        let mut found = Vec::new();
        for group in groups.iter().filter(|g| g.len() > 1) {
            group_conflicts(terms, group, &mut found);
        }
        found
    }));
}

/// The client names of an article, folded.
fn clients_of(terms: &impl Terms, id: ArticleId) -> impl Iterator<Item = &str> + Clone {
    terms.clients(id).iter().map(|c| &*c.folded)
}

/// One finding per article of a group about the same term that disagrees
/// with another article of the group it meets in a client's job (see
/// [`crate::terms::clients_meet`]): two clients may translate a term
/// differently.
fn group_conflicts(terms: &impl Terms, ids: &[ArticleId], out: &mut Vec<Finding>) {
    let target = |id: ArticleId| -> &str { terms.target(id) };
    let meet = |a: ArticleId, b: ArticleId| {
        crate::terms::clients_meet(clients_of(terms, a), clients_of(terms, b))
    };
    // When every article meets every other (the usual group: no clients,
    // or the same ones), count each translation once instead of comparing
    // every pair.
    let first_clients: BTreeSet<&str> = clients_of(terms, ids[0]).collect();
    let all_meet = ids.iter().all(|&id| {
        terms.clients(id).is_empty()
            || clients_of(terms, id).collect::<BTreeSet<_>>() == first_clients
    });
    let mut targets: BTreeMap<&str, usize> = BTreeMap::new();
    for &id in ids {
        *targets.entry(target(id)).or_default() += 1;
    }
    if targets.len() < 2 {
        return;
    }
    let group_only_case = targets
        .keys()
        .map(|t| t.to_lowercase())
        .collect::<BTreeSet<_>>()
        .len()
        == 1;
    // A finding's words follow from the group's terms, paths and clients:
    // kept once for the group and written when shown (a large bank has
    // thousands of these, each naming up to five others).
    let mut group: Option<Arc<TermGroup>> = None;
    for (at, &id) in ids.iter().enumerate() {
        let mine = target(id);
        let disagree = |&&o: &&ArticleId| target(o) != mine && (all_meet || meet(id, o));
        let others = if all_meet {
            ids.len() - targets[mine]
        } else {
            ids.iter().filter(disagree).count()
        };
        if others == 0 {
            continue;
        }
        let only_case = if all_meet {
            group_only_case
        } else {
            ids.iter()
                .filter(disagree)
                .all(|&o| target(o).to_lowercase() == mine.to_lowercase())
        };
        let severity = if only_case {
            Severity::Warning
        } else {
            Severity::Error
        };
        let group = group.get_or_insert_with(|| {
            Arc::new(TermGroup {
                members: ids
                    .iter()
                    .map(|&id| {
                        // Clients matter only when some articles do not meet.
                        let clients = if all_meet { &[][..] } else { terms.clients(id) };
                        Member::of(terms.shared_path(id), terms.term(id), target(id), clients)
                    })
                    .collect(),
                all_meet,
                only_case: group_only_case,
            })
        });
        // The finding shares the group's copy of the path.
        super::finding::share_path(&group.members[at].path);
        out.push(Finding::with_message(
            "term-conflict",
            severity,
            terms.path(id),
            terms.target_line(id),
            Message::TermConflict {
                group: Arc::clone(group),
                member: at as u32,
            },
        ));
    }
}

/// A `term-conflict` message: the term `(source, source language, target
/// language)` translated `mine` here, and the others that differ, listed
/// by `list`; each part taken from the bank passed through `from_bank`.
fn write_conflict(
    out: &mut String,
    (source, sl, tl): (&str, &str, &str),
    mine: &str,
    list: impl FnOnce(&mut String),
    only_case: bool,
    from_bank: &dyn Fn(&mut String, &str),
) {
    out.push_str("Approved term “");
    from_bank(out, source);
    out.push_str("” (");
    from_bank(out, sl);
    out.push_str(" → ");
    from_bank(out, tl);
    out.push_str(") is translated “");
    from_bank(out, mine);
    out.push_str("” here but differently in ");
    list(out);
    out.push('.');
    if only_case {
        out.push_str(" The translations differ only in upper/lower case.");
    }
    out.push_str(
        " A translator or LLM gets contradictory instructions. Decide on one translation \
         and set the other article to status: rejected, or make the source terms \
         distinguishable.",
    );
}

/// The articles about one term, in bank order, as the messages of their
/// `term-conflict` findings name them; with their clients when some of
/// them do not meet in a client's job.
#[derive(Debug)]
pub(crate) struct TermGroup {
    members: Box<[Member]>,
    /// Every article meets every other (see [`group_conflicts`]).
    all_meet: bool,
    /// With `all_meet`, the translations differ only in letter case.
    only_case: bool,
}

/// One article of a [`TermGroup`]: its path, its source term, two
/// languages and translation in one string, cut at `ends`, and its client
/// names, folded (none kept when the group's articles all meet).
#[derive(Debug)]
struct Member {
    path: Arc<str>,
    text: Box<str>,
    ends: [u32; 3],
    clients: Box<[Arc<str>]>,
}

impl Member {
    fn of(
        path: Arc<str>,
        (source, sl, tl): (&str, &str, &str),
        target: &str,
        clients: &[KeyedValue],
    ) -> Member {
        let text = [source, sl, tl, target].concat();
        let mut ends = [0; 3];
        let mut at = 0;
        for (end, part) in ends.iter_mut().zip([source, sl, tl]) {
            at += part.len();
            // A file over the reader's cap is never read: its terms fit.
            *end = u32::try_from(at).unwrap_or(u32::MAX);
        }
        Member {
            path,
            text: text.into_boxed_str(),
            ends,
            clients: clients.iter().map(|c| Arc::clone(&c.folded)).collect(),
        }
    }

    /// The source term, the two languages and the translation.
    fn parts(&self) -> [&str; 4] {
        let [a, b, c] = self.ends.map(|e| e as usize);
        let part = |r: std::ops::Range<usize>| self.text.get(r).unwrap_or("");
        [part(0..a), part(a..b), part(b..c), part(c..self.text.len())]
    }
}

impl TermGroup {
    /// The message of the finding about `member`, onto `out`, as
    /// [`group_conflicts`] finds the articles that disagree with it; each
    /// part taken from the bank (terms, paths) passed through `from_bank`.
    /// Written in place: a large bank's report has thousands of these.
    pub(crate) fn write_message(
        &self,
        member: usize,
        out: &mut String,
        from_bank: &dyn Fn(&mut String, &str),
    ) {
        const LISTED: usize = 5;
        let Some(me) = self.members.get(member) else {
            return;
        };
        let [source, sl, tl, mine] = me.parts();
        fn names(m: &Member) -> impl Iterator<Item = &str> + Clone {
            m.clients.iter().map(|c| &**c)
        }
        let disagree = |o: &&Member| {
            o.parts()[3] != mine
                && (self.all_meet || crate::terms::clients_meet(names(me), names(o)))
        };
        let only_case = if self.all_meet {
            self.only_case
        } else {
            self.members
                .iter()
                .filter(disagree)
                .all(|o| o.parts()[3].to_lowercase() == mine.to_lowercase())
        };
        let list = |out: &mut String| {
            let mut others = self.members.iter().filter(disagree);
            let mut listed = 0;
            for m in others.by_ref().take(LISTED) {
                if listed > 0 {
                    out.push_str(", ");
                }
                out.push('“');
                from_bank(out, &m.path);
                out.push_str("” (");
                from_bank(out, m.parts()[3]);
                out.push(')');
                listed += 1;
            }
            let more = others.count();
            if more > 0 {
                use std::fmt::Write;
                if listed > 0 {
                    out.push_str(", ");
                }
                let _ = write!(out, "and {more} more");
            }
        };
        write_conflict(out, (source, sl, tl), mine, list, only_case, from_bank);
    }
}
