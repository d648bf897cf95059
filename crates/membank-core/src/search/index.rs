//! The inverted index and BM25 ranking.
//!
//! The index keeps no copy of the text: each unit is a place in a
//! document of the memory it was built from, and the text is read from
//! there again only for the snippets of the hits shown.

use std::borrow::Cow;
use std::ops::Range;

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::postings::{Growing, Postings};
use super::tokens::for_each_word;
use super::{Texts, Unit, snippet};
use crate::memory::{Memory, SearchHit, SearchUnit};

/// BM25's usual constants: term-frequency saturation and length weight.
pub(super) const K1: f32 = 1.2;
pub(super) const B: f32 = 0.75;

/// Where one unit is: its document, the text's byte range in the
/// document's text, the file line it starts on, its entry id.
#[derive(Debug, Clone)]
struct Place {
    doc: usize,
    text: Range<usize>,
    line: usize,
    /// Range in [`SearchIndex::entry_ids`]; empty for none.
    entry_id: Option<Range<usize>>,
}

/// The index over the words of a memory's search units.
#[derive(Debug, Default)]
pub struct SearchIndex {
    places: Vec<Place>,
    /// Every entry id, one after the other.
    entry_ids: String,
    terms: Postings,
    unit_len: Vec<u32>,
    avg_len: f32,
}

/// The index of one slice of the units, built on one core.
#[derive(Default)]
struct Part {
    terms: FxHashMap<Box<str>, Growing>,
    unit_len: Vec<u32>,
    /// Each unit's text length in bytes, as read.
    text_len: Vec<usize>,
}

/// Which words an index keeps postings for.
#[derive(Clone, Copy)]
enum Words<'q> {
    All,
    /// Only these (a query's): every unit is still read to count its
    /// words, which BM25 needs, but nothing else is kept.
    Only(&'q [String]),
}

fn index_part<'t>(
    first: usize,
    texts: impl Iterator<Item = Cow<'t, str>>,
    words: Words<'_>,
) -> Part {
    let mut part = Part::default();
    let mut ids: FxHashMap<Box<str>, u32> = FxHashMap::default();
    let mut postings: Vec<Growing> = Vec::new();
    // Per term, its count in the unit being read; the terms it has.
    let mut counts: Vec<u32> = Vec::new();
    let mut seen: Vec<u32> = Vec::new();
    for (i, text) in texts.enumerate() {
        let unit = (first + i) as u32;
        let mut len = 0u32;
        part.text_len.push(text.len());
        for_each_word(&text, |term, _| {
            len += 1;
            if let Words::Only(wanted) = words
                && !wanted.iter().any(|w| w == term)
            {
                return;
            }
            let id = match ids.get(term) {
                Some(&id) => id,
                None => {
                    let id = postings.len() as u32;
                    ids.insert(term.into(), id);
                    postings.push(Growing::default());
                    counts.push(0);
                    id
                }
            };
            let n = &mut counts[id as usize];
            if *n == 0 {
                seen.push(id);
            }
            *n += 1;
        });
        for id in seen.drain(..) {
            postings[id as usize].push(unit, std::mem::take(&mut counts[id as usize]));
        }
        part.unit_len.push(len);
    }
    part.terms = ids
        .into_iter()
        .map(|(term, id)| (term, std::mem::take(&mut postings[id as usize])))
        .collect();
    part
}

/// Index `count` texts on all cores; `text(i)` is the i-th.
fn build<'t>(
    count: usize,
    text: &(dyn Fn(usize) -> Cow<'t, str> + Sync),
    words: Words<'_>,
) -> (Postings, Vec<u32>, Vec<usize>) {
    let chunk = count.div_ceil(rayon::current_num_threads() * 4).max(256);
    let starts: Vec<usize> = (0..count).step_by(chunk).collect();
    let parts: Vec<Part> = starts
        .into_par_iter()
        .map(|first| index_part(first, (first..(first + chunk).min(count)).map(text), words))
        .collect();
    let mut terms: FxHashMap<Box<str>, Growing> = FxHashMap::default();
    let mut unit_len = Vec::with_capacity(count);
    let mut text_len = Vec::with_capacity(count);
    // Parts are in unit order, so appending keeps postings sorted.
    for part in parts {
        unit_len.extend(part.unit_len);
        text_len.extend(part.text_len);
        for (term, postings) in part.terms {
            match terms.get_mut(&term) {
                Some(p) => p.append(postings),
                None => {
                    terms.insert(term, postings);
                }
            }
        }
    }
    (Postings::pack(terms), unit_len, text_len)
}

/// `unit` without the (1-based, ascending) file lines in `withheld`: the
/// runs of lines between them, each a unit of its own.
fn cut_around<'a>(unit: SearchUnit<'a>, withheld: &[usize]) -> Vec<SearchUnit<'a>> {
    let last = unit.line + unit.text.matches('\n').count();
    if !withheld.iter().any(|l| (unit.line..=last).contains(l)) {
        return vec![unit];
    }
    let mut out = Vec::new();
    let mut run: Option<(usize, usize)> = None; // (byte offset in text, line)
    let mut at = 0;
    for (i, line) in unit.text.split_inclusive('\n').enumerate() {
        let number = unit.line + i;
        if withheld.binary_search(&number).is_ok() {
            if let Some((from, first)) = run.take() {
                out.push(SearchUnit {
                    line: first,
                    text: &unit.text[from..at],
                    start: unit.start + from,
                    ..unit
                });
            }
        } else if run.is_none() {
            run = Some((at, number));
        }
        at += line.len();
    }
    if let Some((from, first)) = run {
        out.push(SearchUnit {
            line: first,
            text: &unit.text[from..],
            start: unit.start + from,
            ..unit
        });
    }
    out
}

impl SearchIndex {
    /// Index every search unit of a memory. The index reads the memory's
    /// text again for snippets, so search it with the same memory.
    pub fn of_memory(memory: &dyn Memory) -> SearchIndex {
        SearchIndex::of_memory_with(memory, Words::All)
    }

    /// An index of only the words of `query`: all that one search for it
    /// needs, at a fraction of the cost of the whole index. It ranks and
    /// counts `query` exactly as the whole index does; other queries find
    /// only what they share with it.
    pub fn of_memory_for_query(memory: &dyn Memory, query: &str) -> SearchIndex {
        SearchIndex::of_memory_with(memory, Words::Only(&Self::query_terms(query)))
    }

    /// Index only the documents `keep` accepts (by their id in `memory`):
    /// the others are neither found nor counted, as if they were absent.
    pub fn of_memory_where(memory: &dyn Memory, keep: &dyn Fn(usize) -> bool) -> SearchIndex {
        SearchIndex::of_memory_filtered(memory, Words::All, Some(keep))
    }

    /// Index only what a reader not served private memory may see: private
    /// documents are left out, and each unit is cut around the lines that
    /// name private memory ([`Memory::lines_naming_private`]), so their
    /// words are neither found nor shown in a snippet.
    pub fn of_shared_memory(memory: &dyn Memory) -> SearchIndex {
        // Found once per document: a document of many units (an impressions
        // file, a unit a line) would otherwise walk all its lines per unit.
        let mut withheld: std::collections::HashMap<usize, Vec<usize>> = Default::default();
        let units = memory
            .search_units()
            .into_iter()
            .filter(|u| !memory.document(u.doc).private)
            .flat_map(|u| {
                let lines = withheld
                    .entry(u.doc)
                    .or_insert_with(|| memory.lines_naming_private(u.doc));
                cut_around(u, lines)
            })
            .collect();
        SearchIndex::of_units_of(memory, units, Words::All)
    }

    fn of_memory_with(memory: &dyn Memory, words: Words<'_>) -> SearchIndex {
        SearchIndex::of_memory_filtered(memory, words, None)
    }

    fn of_memory_filtered(
        memory: &dyn Memory,
        words: Words<'_>,
        keep: Option<&dyn Fn(usize) -> bool>,
    ) -> SearchIndex {
        let mut units = memory.search_units();
        if let Some(keep) = keep {
            units.retain(|u| keep(u.doc));
        }
        SearchIndex::of_units_of(memory, units, words)
    }

    fn of_units_of(
        memory: &dyn Memory,
        units: Vec<SearchUnit<'_>>,
        words: Words<'_>,
    ) -> SearchIndex {
        // A memory that keeps no bodies reads each unit's text here, on
        // the core indexing it, and lets it go once its words are counted.
        let (terms, unit_len, text_len) =
            build(units.len(), &|i| memory.unit_text(&units[i]), words);
        let mut entry_ids = String::new();
        let places = units
            .iter()
            .zip(text_len)
            .map(|(u, len): (&SearchUnit<'_>, usize)| Place {
                doc: u.doc,
                text: u.start..u.start + len,
                line: u.line,
                entry_id: u.entry_id.map(|id| {
                    entry_ids.push_str(id);
                    entry_ids.len() - id.len()..entry_ids.len()
                }),
            })
            .collect();
        SearchIndex::assemble(places, entry_ids, terms, unit_len)
    }

    /// Index units that are not part of a memory, each its own document;
    /// search with the same slice.
    pub fn of_units(units: &[Unit]) -> SearchIndex {
        SearchIndex::of_units_with(units, Words::All)
    }

    /// [`SearchIndex::of_memory_for_query`] for units apart from a memory.
    pub fn of_units_for_query(units: &[Unit], query: &str) -> SearchIndex {
        SearchIndex::of_units_with(units, Words::Only(&Self::query_terms(query)))
    }

    fn of_units_with(units: &[Unit], words: Words<'_>) -> SearchIndex {
        let (terms, unit_len, _) = build(
            units.len(),
            &|i| Cow::Borrowed(units[i].text.as_str()),
            words,
        );
        let mut entry_ids = String::new();
        let places = units
            .iter()
            .enumerate()
            .map(|(doc, u)| Place {
                doc,
                text: 0..u.text.len(),
                line: u.line,
                entry_id: u.entry_id.as_deref().map(|id| {
                    entry_ids.push_str(id);
                    entry_ids.len() - id.len()..entry_ids.len()
                }),
            })
            .collect();
        SearchIndex::assemble(places, entry_ids, terms, unit_len)
    }

    fn assemble(
        places: Vec<Place>,
        entry_ids: String,
        terms: Postings,
        unit_len: Vec<u32>,
    ) -> SearchIndex {
        let total: u64 = unit_len.iter().map(|&l| u64::from(l)).sum();
        let avg_len = if unit_len.is_empty() {
            0.0
        } else {
            total as f32 / unit_len.len() as f32
        };
        SearchIndex {
            places,
            entry_ids,
            terms,
            unit_len,
            avg_len,
        }
    }

    /// How many units are indexed.
    pub fn len(&self) -> usize {
        self.places.len()
    }

    pub fn is_empty(&self) -> bool {
        self.places.is_empty()
    }

    /// The query's distinct words, in order.
    pub fn query_terms(query: &str) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for_each_word(query, |t, _| {
            if !out.iter().any(|o| o == t) {
                out.push(t.to_owned());
            }
        });
        out
    }

    /// The best `limit` units for `query`, best first (ties in unit
    /// order), each with its snippet read from `texts`: the memory or the
    /// units the index was built from.
    pub fn search<T: Texts + ?Sized>(
        &self,
        texts: &T,
        query: &str,
        limit: usize,
    ) -> Vec<SearchHit> {
        let terms = Self::query_terms(query);
        let n = self.places.len() as f32;
        // A score per unit, and the units that have one in the order first
        // reached: sums are added in the same order as a map would.
        let mut scores = vec![0f32; self.places.len()];
        let mut matched: Vec<u32> = Vec::new();
        for term in &terms {
            let Some(postings) = self.terms.get(term) else {
                continue;
            };
            let df = postings.units() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for (unit, tf) in postings.iter() {
                let tf = tf as f32;
                let len = self.unit_len[unit as usize] as f32;
                let norm = K1 * (1.0 - B + B * len / self.avg_len.max(1.0));
                let score = &mut scores[unit as usize];
                if *score == 0.0 {
                    matched.push(unit);
                }
                *score += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        let mut ranked: Vec<(u32, f32)> = matched
            .into_iter()
            .map(|u| (u, scores[u as usize]))
            .collect();
        if ranked.len() > limit && limit > 0 {
            ranked.select_nth_unstable_by(limit - 1, order);
        }
        ranked.truncate(limit);
        ranked.sort_unstable_by(order);
        ranked
            .into_iter()
            .map(|(unit, score)| {
                let p = &self.places[unit as usize];
                let text = texts.text(p.doc);
                let s = snippet::best_line(text.get(p.text.clone()).unwrap_or(""), &terms);
                SearchHit {
                    path: texts.path(p.doc).to_owned(),
                    line: p.line + s.line_offset,
                    entry_id: p
                        .entry_id
                        .as_ref()
                        .map(|r| self.entry_ids[r.clone()].to_owned()),
                    score: f64::from(score),
                    snippet: s.text,
                    highlights: s.highlights,
                }
            })
            .collect()
    }

    /// How many units match at least one word of `query`.
    pub fn count_matches(&self, query: &str) -> usize {
        let mut seen = vec![false; self.places.len()];
        let mut count = 0;
        for term in Self::query_terms(query) {
            for (unit, _) in self.terms.get(&term).iter().flat_map(|p| p.iter()) {
                let s = &mut seen[unit as usize];
                count += usize::from(!*s);
                *s = true;
            }
        }
        count
    }
}
