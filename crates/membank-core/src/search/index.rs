//! The inverted index and BM25 ranking.

use rayon::prelude::*;
use rustc_hash::FxHashMap;

use super::tokens::for_each_word;
use super::{Unit, snippet, units_of};
use crate::memory::{Memory, SearchHit};

/// BM25's usual constants: term-frequency saturation and length weight.
const K1: f32 = 1.2;
const B: f32 = 0.75;

/// Postings of one term: `(document, occurrences)`, by document.
type Postings = Vec<(u32, u32)>;

/// Units and the index over their words.
#[derive(Debug, Default)]
pub struct SearchIndex {
    docs: Vec<Unit>,
    terms: FxHashMap<Box<str>, Postings>,
    doc_len: Vec<u32>,
    avg_len: f32,
}

/// The index of one slice of the documents, built on one core.
#[derive(Default)]
struct Part {
    terms: FxHashMap<Box<str>, Postings>,
    doc_len: Vec<u32>,
}

fn index_part(first: usize, docs: &[Unit]) -> Part {
    let mut part = Part::default();
    let mut ids: FxHashMap<Box<str>, u32> = FxHashMap::default();
    let mut postings: Vec<Postings> = Vec::new();
    let mut seen: Vec<u32> = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let doc_id = (first + i) as u32;
        let mut len = 0u32;
        seen.clear();
        for_each_word(&doc.text, |term, _| {
            len += 1;
            let id = match ids.get(term) {
                Some(&id) => id,
                None => {
                    let id = postings.len() as u32;
                    ids.insert(term.into(), id);
                    postings.push(Vec::new());
                    id
                }
            };
            let p = &mut postings[id as usize];
            match p.last_mut() {
                Some((d, n)) if *d == doc_id => *n += 1,
                _ => p.push((doc_id, 1)),
            }
        });
        part.doc_len.push(len);
    }
    part.terms = ids
        .into_iter()
        .map(|(term, id)| (term, std::mem::take(&mut postings[id as usize])))
        .collect();
    part
}

impl SearchIndex {
    /// Index every search unit of a memory.
    pub fn of_memory(memory: &dyn Memory) -> SearchIndex {
        SearchIndex::new(units_of(memory))
    }

    /// Index `docs` on all cores.
    pub fn new(docs: Vec<Unit>) -> SearchIndex {
        let chunk = docs
            .len()
            .div_ceil(rayon::current_num_threads() * 4)
            .max(256);
        let parts: Vec<Part> = docs
            .par_chunks(chunk)
            .enumerate()
            .map(|(n, slice)| index_part(n * chunk, slice))
            .collect();
        let mut terms: FxHashMap<Box<str>, Postings> = FxHashMap::default();
        let mut doc_len = Vec::with_capacity(docs.len());
        // Parts are in document order, so appending keeps postings sorted.
        for part in parts {
            doc_len.extend(part.doc_len);
            for (term, postings) in part.terms {
                match terms.get_mut(&term) {
                    Some(p) => p.extend(postings),
                    None => {
                        terms.insert(term, postings);
                    }
                }
            }
        }
        let total: u64 = doc_len.iter().map(|&l| u64::from(l)).sum();
        let avg_len = if doc_len.is_empty() {
            0.0
        } else {
            total as f32 / doc_len.len() as f32
        };
        SearchIndex {
            docs,
            terms,
            doc_len,
            avg_len,
        }
    }

    pub fn len(&self) -> usize {
        self.docs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    pub fn unit(&self, doc: usize) -> &Unit {
        &self.docs[doc]
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

    /// The best `limit` documents for `query`, best first (ties in
    /// document order), each with its snippet.
    pub fn search(&self, query: &str, limit: usize) -> Vec<SearchHit> {
        let terms = Self::query_terms(query);
        let n = self.docs.len() as f32;
        let mut scores: FxHashMap<u32, f32> = FxHashMap::default();
        for term in &terms {
            let Some(postings) = self.terms.get(term.as_str()) else {
                continue;
            };
            let df = postings.len() as f32;
            let idf = (1.0 + (n - df + 0.5) / (df + 0.5)).ln();
            for &(doc, tf) in postings {
                let tf = tf as f32;
                let len = self.doc_len[doc as usize] as f32;
                let norm = K1 * (1.0 - B + B * len / self.avg_len.max(1.0));
                *scores.entry(doc).or_insert(0.0) += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut ranked: Vec<(u32, f32)> = scores.into_iter().collect();
        ranked.sort_unstable_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        ranked.truncate(limit);
        ranked
            .into_iter()
            .map(|(doc, score)| {
                let d = &self.docs[doc as usize];
                let s = snippet::best_line(&d.text, &terms);
                SearchHit {
                    path: d.path.clone(),
                    line: d.line + s.line_offset,
                    entry_id: d.entry_id.clone(),
                    score: f64::from(score),
                    snippet: s.text,
                    highlights: s.highlights,
                }
            })
            .collect()
    }

    /// How many documents match at least one word of `query`.
    pub fn count_matches(&self, query: &str) -> usize {
        let mut docs: Vec<u32> = Self::query_terms(query)
            .iter()
            .filter_map(|t| self.terms.get(t.as_str()))
            .flat_map(|p| p.iter().map(|&(d, _)| d))
            .collect();
        docs.sort_unstable();
        docs.dedup();
        docs.len()
    }
}
