//! A packed copy of what ranking reads, built on the first query after a
//! load or reload. Scoring then compares small integers in contiguous
//! arrays instead of chasing each article's strings, which keeps a query
//! over a very large bank within a keystroke.
//!
//! It gives exactly the `Hits` that `scoring::hits` gives (a test compares
//! them on generated banks), so it changes speed, never results.

use std::collections::HashMap;

/// Every value of every content article is looked up while the arrays are
/// built: a fast hash, seeded per process so a bank cannot make its values
/// collide.
type Words = HashMap<String, u32, foldhash::fast::RandomState>;
use std::sync::Mutex;

use super::{Hits, languages_match};
use crate::bank::{ArticleId, Bank};
use crate::layout::Folder;

/// One language code inside a language value, in document order.
#[derive(Debug, Clone, Copy)]
struct LangItem {
    value: u16,
    tag: u16,
    /// Index into `ScoringIndex::tags`.
    code: u32,
}

#[derive(Debug, Default)]
pub(crate) struct ScoringIndex {
    /// Content articles in tie-break order, their folders, and the
    /// characters each takes in the context (see
    /// [`crate::budget::in_context_chars`]).
    pub(crate) ids: Vec<ArticleId>,
    pub(crate) folders: Vec<Folder>,
    pub(crate) chars: Vec<usize>,
    /// The budget's drop tier of each article's folder (§8).
    pub(crate) tiers: Vec<u8>,
    /// Per article, where its values end in the value arrays below; they
    /// start where the article before's end (see [`span`]). One number an
    /// article, not two: 1.2 MB less at 100,000 articles.
    clients: Vec<u32>,
    domains: Vec<u32>,
    languages: Vec<u32>,
    client_values: Vec<u32>,
    domain_values: Vec<u32>,
    language_items: Vec<LangItem>,
    /// Folded client and domain values → small ids.
    words: Words,
    /// Distinct language codes as written, by id.
    tags: Vec<String>,
    /// Per client or domain word and per language code: the articles
    /// naming it.
    client_postings: Postings,
    domain_postings: Postings,
    language_postings: Postings,
    /// One byte per article that a query reuses for its signal masks, so a
    /// query over a large bank does not allocate and fault in a fresh
    /// buffer each time.
    pub(crate) scratch: Mutex<Vec<u8>>,
}

/// Bits of [`ScoringIndex::signal_masks`]: which signals an article earned.
pub(crate) const LANGUAGE_BIT: u8 = 1;
pub(crate) const DOMAIN_BIT: u8 = 2;
pub(crate) const CLIENT_BIT: u8 = 4;

fn intern(map: &mut Words, s: &str) -> u32 {
    if let Some(&id) = map.get(s) {
        return id;
    }
    let id = map.len() as u32;
    map.insert(s.to_owned(), id);
    id
}

/// `[start, end)` of the article at `pos` in a value array, from where
/// each article's values end: they start where the one before's end.
fn span(ends: &[u32], pos: usize) -> (u32, u32) {
    let start = match pos.checked_sub(1) {
        Some(before) => ends[before],
        None => 0,
    };
    (start, ends[pos])
}

/// Positions per id, packed: the positions of id `i` are
/// `positions[starts[i]..starts[i + 1]]`, in ascending order.
#[derive(Debug, Default)]
struct Postings {
    starts: Vec<u32>,
    positions: Vec<u32>,
}

impl Postings {
    /// From each article's ids (`ranges` into `ids`), for ids below `count`.
    fn build(count: usize, ranges: &[(u32, u32)], ids: impl Fn(u32) -> u32) -> Postings {
        let mut starts = vec![0u32; count + 1];
        for &(start, end) in ranges {
            for i in start..end {
                starts[ids(i) as usize + 1] += 1;
            }
        }
        for i in 1..starts.len() {
            starts[i] += starts[i - 1];
        }
        let mut next = starts.clone();
        let mut positions = vec![0u32; starts[count] as usize];
        for (pos, &(start, end)) in ranges.iter().enumerate() {
            for i in start..end {
                let slot = &mut next[ids(i) as usize];
                positions[*slot as usize] = pos as u32;
                *slot += 1;
            }
        }
        Postings { starts, positions }
    }

    fn of(&self, id: u32) -> &[u32] {
        let id = id as usize;
        match (self.starts.get(id), self.starts.get(id + 1)) {
            (Some(&start), Some(&end)) => &self.positions[start as usize..end as usize],
            _ => &[],
        }
    }
}

/// A query turned into ids for this index.
pub(crate) struct PackedQuery {
    client: Option<u32>,
    domain: Option<u32>,
    /// Per code id: 0 no match, 1 matches the source, 2 only the target.
    side: Vec<u8>,
    any_language: bool,
}

impl ScoringIndex {
    pub(crate) fn build(bank: &Bank) -> ScoringIndex {
        let order = bank.content_order();
        // Sized once: grown by doubling, the arrays of 100,000 articles
        // kept as much again in spare room for as long as the bank.
        let n = order.len();
        let mut ix = ScoringIndex {
            ids: order.to_vec(),
            folders: Vec::with_capacity(n),
            chars: Vec::with_capacity(n),
            tiers: Vec::with_capacity(n),
            clients: Vec::with_capacity(n),
            domains: Vec::with_capacity(n),
            languages: Vec::with_capacity(n),
            ..ScoringIndex::default()
        };
        let mut tag_ids = Words::default();
        for &id in order {
            let a = bank.article(id);
            ix.folders.push(a.folder);
            ix.tiers.push(a.folder.drop_tier());
            ix.chars.push(a.context_chars());
            let start = ix.client_values.len() as u32;
            for v in a.meta.clients.iter() {
                let w = intern(&mut ix.words, &v.folded);
                ix.client_values.push(w);
            }
            debug_assert_eq!(start, ix.clients.last().copied().unwrap_or(0));
            ix.clients.push(ix.client_values.len() as u32);
            let start = ix.domain_values.len() as u32;
            for v in a.meta.domains.iter() {
                let w = intern(&mut ix.words, &v.folded);
                ix.domain_values.push(w);
            }
            debug_assert_eq!(start, ix.domains.last().copied().unwrap_or(0));
            ix.domains.push(ix.domain_values.len() as u32);
            let start = ix.language_items.len() as u32;
            for (vi, lv) in a.meta.languages.iter().enumerate() {
                for (ti, tag) in lv.tags.iter().enumerate() {
                    let (Ok(value), Ok(tag_index)) = (u16::try_from(vi), u16::try_from(ti)) else {
                        continue;
                    };
                    let code = intern(&mut tag_ids, tag);
                    ix.language_items.push(LangItem {
                        value,
                        tag: tag_index,
                        code,
                    });
                }
            }
            debug_assert_eq!(start, ix.languages.last().copied().unwrap_or(0));
            ix.languages.push(ix.language_items.len() as u32);
        }
        // `hits` names only the first 65,536 values of a key; the postings
        // hold the same ones.
        let first = |ends: &[u32]| -> Vec<(u32, u32)> {
            (0..ends.len())
                .map(|pos| span(ends, pos))
                .map(|(s, e)| (s, e.min(s.saturating_add(u32::from(u16::MAX) + 1))))
                .collect()
        };
        let all = |ends: &[u32]| -> Vec<(u32, u32)> {
            (0..ends.len()).map(|pos| span(ends, pos)).collect()
        };
        let words = ix.words.len();
        ix.client_postings =
            Postings::build(words, &first(&ix.clients), |i| ix.client_values[i as usize]);
        ix.domain_postings =
            Postings::build(words, &first(&ix.domains), |i| ix.domain_values[i as usize]);
        ix.language_postings = Postings::build(tag_ids.len(), &all(&ix.languages), |i| {
            ix.language_items[i as usize].code
        });
        ix.tags = vec![String::new(); tag_ids.len()];
        for (tag, id) in tag_ids {
            ix.tags[id as usize] = tag;
        }
        ix.client_values.shrink_to_fit();
        ix.domain_values.shrink_to_fit();
        ix.language_items.shrink_to_fit();
        ix
    }

    /// `langs` are (side, code) pairs, source first, as scoring prepares them.
    pub(crate) fn prepare(
        &self,
        client: Option<&str>,
        domain: Option<&str>,
        langs: &[(u8, String)],
    ) -> PackedQuery {
        // A value no article uses gets an id no article has.
        let word = |w: Option<&str>| w.map(|w| self.words.get(w).copied().unwrap_or(u32::MAX));
        let mut side = vec![0u8; self.tags.len()];
        for (i, tag) in self.tags.iter().enumerate() {
            for (s, code) in langs {
                if languages_match(tag, code) {
                    side[i] = s + 1;
                    break;
                }
            }
        }
        PackedQuery {
            client: word(client),
            domain: word(domain),
            any_language: side.iter().any(|&s| s != 0),
            side,
        }
    }

    /// Which signals each article earns, as bits, into `masks` (one
    /// byte per article): the same answer as [`ScoringIndex::hits`],
    /// found from the articles each value names rather than by visiting
    /// every article.
    pub(crate) fn signal_masks(&self, q: &PackedQuery, masks: &mut [u8]) {
        masks.fill(0);
        let mut mark = |positions: &[u32], bit: u8| {
            for &pos in positions {
                masks[pos as usize] |= bit;
            }
        };
        if let Some(w) = q.client {
            mark(self.client_postings.of(w), CLIENT_BIT);
        }
        if let Some(w) = q.domain {
            mark(self.domain_postings.of(w), DOMAIN_BIT);
        }
        for (code, &side) in q.side.iter().enumerate() {
            if side != 0 {
                mark(self.language_postings.of(code as u32), LANGUAGE_BIT);
            }
        }
    }

    /// The hits of the article at `pos` in tie-break order.
    pub(crate) fn hits(&self, pos: usize, q: &PackedQuery) -> Hits {
        let find = |range: (u32, u32), values: &[u32], wanted: Option<u32>| {
            let wanted = wanted?;
            values[range.0 as usize..range.1 as usize]
                .iter()
                .position(|&v| v == wanted)
                .and_then(|i| u16::try_from(i).ok())
        };
        let mut hits = Hits {
            client: find(span(&self.clients, pos), &self.client_values, q.client),
            domain: find(span(&self.domains, pos), &self.domain_values, q.domain),
            language: None,
        };
        if q.any_language {
            let (start, end) = span(&self.languages, pos);
            for item in &self.language_items[start as usize..end as usize] {
                let s = q.side[item.code as usize];
                if s != 0 {
                    hits.language = Some((item.value, item.tag, s - 1));
                    break;
                }
            }
        }
        hits
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each article's values are found from where they end alone: as many
    /// as it names, in its order, for articles with none, one and several
    /// (languages counted per code).
    #[test]
    fn each_articles_values_lie_between_its_end_and_the_one_before() {
        let d = tempfile::tempdir().unwrap();
        let files = [
            ("01_CLIENTS/A.md", "client: A\nlanguages: [\"en → nl, de\"]"),
            ("02_TERMINOLOGY/none.md", "scope: x"),
            (
                "02_TERMINOLOGY/two.md",
                "clients: [A, B]\ndomains: [Tax, Law]",
            ),
            ("03_DOMAINS/Tax.md", "domain: Tax\nlanguages: [fr → nl]"),
            ("04_STYLE/s.md", "clients: [C]"),
        ];
        for (rel, fm) in files {
            let p = d.path().join(rel);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, format!("---\n{fm}\n---\nbody\n")).unwrap();
        }
        let bank = Bank::load(d.path()).unwrap();
        let ix = ScoringIndex::build(&bank);
        assert_eq!(ix.ids.len(), 5);
        let (mut clients, mut domains) = (0, 0);
        for (pos, &id) in ix.ids.iter().enumerate() {
            let meta = &bank.article(id).meta;
            let (s, e) = span(&ix.clients, pos);
            let names: Vec<&str> = ix.client_values[s as usize..e as usize]
                .iter()
                .map(|&w| ix.words.iter().find(|(_, v)| **v == w).unwrap().0.as_str())
                .collect();
            let wanted: Vec<&str> = meta.clients.iter().map(|v| &*v.folded).collect();
            assert_eq!(names, wanted, "{}", bank.article(id).rel_path);
            let (s, e) = span(&ix.domains, pos);
            assert_eq!((e - s) as usize, meta.domains.len());
            let (s, e) = span(&ix.languages, pos);
            let codes: usize = meta.languages.iter().map(|l| l.tags.len()).sum();
            assert_eq!((e - s) as usize, codes);
            clients += meta.clients.len();
            domains += meta.domains.len();
        }
        assert_eq!((clients, domains), (4, 3));
    }
}
