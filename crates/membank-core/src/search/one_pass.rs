//! One query, one pass: the ranking a command needs, without an index.
//!
//! A [`SearchIndex`](super::SearchIndex) pays for itself over many
//! queries. A command asks one, so it reads each unit once, counts its
//! words and the query words in it, and keeps only what BM25 needs: the
//! number of units, their total length, each query word's document
//! frequency, and the lengths and counts of the units that match.
//! Scores are summed in the query's word order, as the index sums them,
//! so both rank the same units in the same order with the same scores.

use rayon::prelude::*;

use std::path::Path;
use std::sync::Mutex;

use super::index::{B, K1};
use super::tokens::for_each_word;
use super::{SearchIndex, Texts, snippet};
use crate::bank::{Bank, BankError, LoadOptions, LoadProblem};
use crate::memory::{Memory, SearchHit, SearchUnit};

/// What one pass over a memory found for a query.
#[derive(Debug)]
pub struct OnePass {
    /// The best hits asked for, best first (ties in unit order).
    pub hits: Vec<SearchHit>,
    /// Units matching at least one query word, listed or not.
    pub matches: usize,
}

/// The statistics of a run of units, in unit order.
#[derive(Default)]
struct Tally {
    units: usize,
    total_len: u64,
    /// Per query word: units containing it.
    df: Vec<u32>,
    /// Matching units: (unit, length).
    matched: Vec<(u32, u32)>,
    /// Per matching unit, its count of each query word, one row each.
    tf: Vec<u32>,
}

fn tally<'m>(
    memory: &'m dyn Memory,
    first: usize,
    units: &[SearchUnit<'m>],
    terms: &[String],
) -> Tally {
    let mut t = Tally {
        df: vec![0; terms.len()],
        ..Tally::default()
    };
    let mut counts = vec![0u32; terms.len()];
    for (i, unit) in units.iter().enumerate() {
        // Read again here when the memory keeps no bodies.
        let len = count_words(&memory.unit_text(unit), terms, &mut counts);
        t.units += 1;
        t.total_len += u64::from(len);
        if counts.iter().any(|&c| c > 0) {
            for (df, &c) in t.df.iter_mut().zip(&counts) {
                *df += u32::from(c > 0);
            }
            t.matched.push(((first + i) as u32, len));
            t.tf.extend_from_slice(&counts);
        }
    }
    t
}

/// Rank the units of `memory` for `query` in one pass and return the
/// best `limit` with their snippets, and how many matched.
pub fn search(memory: &dyn Memory, query: &str, limit: usize) -> OnePass {
    let terms = SearchIndex::query_terms(query);
    let units = memory.search_units();
    if terms.is_empty() {
        return OnePass {
            hits: Vec::new(),
            matches: 0,
        };
    }
    let tallies: Vec<Tally> = if crate::parallel::pays(units.len()) {
        let chunk = units
            .len()
            .div_ceil(rayon::current_num_threads() * 4)
            .max(256);
        units
            .par_chunks(chunk)
            .enumerate()
            .map(|(c, part)| tally(memory, c * chunk, part, &terms))
            .collect()
    } else {
        vec![tally(memory, 0, &units, &terms)]
    };
    let n_units: usize = tallies.iter().map(|t| t.units).sum();
    let total_len: u64 = tallies.iter().map(|t| t.total_len).sum();
    let rows = tallies.iter().flat_map(|t| {
        t.matched
            .iter()
            .zip(t.tf.chunks_exact(terms.len().max(1)))
            .map(|(&(unit, len), counts)| (unit, len, counts))
    });
    let (ranked, matches) = rank(n_units, total_len, rows, terms.len(), limit);
    let hits = ranked
        .into_iter()
        .map(|(unit, score)| {
            let u = &units[unit as usize];
            let text = memory.unit_text(u);
            let u = SearchUnit {
                text: &text,
                ..u.clone()
            };
            hit_of(Texts::path(memory, u.doc).to_owned(), &u, score, &terms)
        })
        .collect();
    OnePass { hits, matches }
}

/// A unit that ranked as a hit: its best line as the snippet.
pub(crate) fn hit_of(path: String, u: &SearchUnit<'_>, score: f32, terms: &[String]) -> SearchHit {
    let s = snippet::best_line(u.text, terms);
    SearchHit {
        path,
        line: u.line + s.line_offset,
        entry_id: u.entry_id.map(str::to_owned),
        score: f64::from(score),
        snippet: s.text,
        highlights: s.highlights,
    }
}

/// BM25 over the matching units, from what one pass kept: `n_units` and
/// their `total_len` in words, and per matching unit its length and its
/// count of each query word. The best `limit` (unit, score), best first
/// with ties in unit order, and how many units matched. The same sums in
/// the same order as the index, so the scores are the index's to the bit.
pub(crate) fn rank<'a>(
    n_units: usize,
    total_len: u64,
    rows: impl Iterator<Item = (u32, u32, &'a [u32])> + Clone,
    n_terms: usize,
    limit: usize,
) -> (Vec<(u32, f32)>, usize) {
    let avg_len = if n_units == 0 {
        0.0
    } else {
        total_len as f32 / n_units as f32
    };
    let mut df = vec![0u32; n_terms];
    for (_, _, counts) in rows.clone() {
        for (d, &c) in df.iter_mut().zip(counts) {
            *d += u32::from(c > 0);
        }
    }
    let n = n_units as f32;
    let idf: Vec<f32> = df
        .iter()
        .map(|&d| {
            let d = d as f32;
            (1.0 + (n - d + 0.5) / (d + 0.5)).ln()
        })
        .collect();
    let norm_of = |len: u32| K1 * (1.0 - B + B * len as f32 / avg_len.max(1.0));
    let mut ranked: Vec<(u32, f32)> = Vec::new();
    for (unit, len, counts) in rows {
        let norm = norm_of(len);
        let mut score = 0f32;
        for (k, &tf) in counts.iter().enumerate() {
            if tf > 0 {
                let tf = tf as f32;
                score += idf[k] * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        ranked.push((unit, score));
    }
    let matches = ranked.len();
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if ranked.len() > limit && limit > 0 {
        ranked.select_nth_unstable_by(limit - 1, order);
    }
    ranked.truncate(limit);
    ranked.sort_unstable_by(order);
    (ranked, matches)
}

/// Count the words of `text` and each query word among them.
pub(crate) fn count_words(text: &str, terms: &[String], counts: &mut [u32]) -> u32 {
    counts.fill(0);
    let mut len = 0u32;
    for_each_word(text, |word, _| {
        len += 1;
        if let Some(k) = terms.iter().position(|t| t == word) {
            counts[k] += 1;
        }
    });
    len
}

/// What the reading threads keep of a bank for one query: the total
/// length, and the matching articles with their lengths and counts.
#[derive(Default)]
struct Streamed {
    total_len: u64,
    /// Matching articles: (path, length in words, where the body starts).
    matched: Vec<(String, u32, usize)>,
    /// Per matching article, its count of each query word, one row each.
    tf: Vec<u32>,
}

/// A memory bank searched as it is read: each article's body is counted
/// on the thread that read it and then dropped, so the bank is never held
/// whole; the few best hits are read again for their snippets. Ranks,
/// scores and snippets are those of [`search`] over the loaded bank.
/// Returns the bank (its paths only: no metadata is parsed) with what was
/// found.
pub fn search_bank(root: &Path, query: &str, limit: usize) -> Result<(Bank, OnePass), StreamError> {
    let terms = SearchIndex::query_terms(query);
    let streamed = Mutex::new(Streamed::default());
    let visit = |path: &str, text: &str, body_start: usize| {
        thread_local! {
            static COUNTS: std::cell::RefCell<Vec<u32>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        let start = body_start.min(text.len());
        COUNTS.with_borrow_mut(|counts| {
            counts.resize(terms.len(), 0);
            let len = count_words(&text[start..], &terms, counts);
            // A poisoned lock means another reader panicked; the load
            // reports that, so this article is simply not counted.
            let Ok(mut s) = streamed.lock() else { return };
            s.total_len += u64::from(len);
            if counts.iter().any(|&c| c > 0) {
                s.matched.push((path.to_owned(), len, start));
                s.tf.extend_from_slice(counts);
            }
        });
    };
    let bank = Bank::load_visiting(root, LoadOptions::BODIES, &visit).map_err(StreamError::Load)?;
    let streamed = streamed.into_inner().unwrap_or_default();
    if terms.is_empty() {
        return Ok((
            bank,
            OnePass {
                hits: Vec::new(),
                matches: 0,
            },
        ));
    }
    // Found by path in the sorted articles: the unit numbers are the
    // bank's article ids, as in [`search`].
    let mut rows: Vec<(u32, u32, usize, &[u32])> = streamed
        .matched
        .iter()
        .zip(streamed.tf.chunks_exact(terms.len()))
        .filter_map(|((path, len, start), counts)| {
            let id = bank.find(path)?;
            Some((id as u32, *len, *start, counts))
        })
        .collect();
    rows.sort_unstable_by_key(|r| r.0);
    let (ranked, matches) = rank(
        bank.articles().len(),
        streamed.total_len,
        rows.iter().map(|&(id, len, _, counts)| (id, len, counts)),
        terms.len(),
        limit,
    );
    let mut hits = Vec::with_capacity(ranked.len());
    for (id, score) in ranked {
        let start = rows
            .binary_search_by_key(&id, |r| r.0)
            .map_or(0, |i| rows[i].2);
        let id = id as usize;
        let text = bank.article_text(id).map_err(StreamError::Reread)?;
        let start = start.min(text.len());
        let line = 1 + text[..start].bytes().filter(|&b| b == b'\n').count();
        let s = snippet::best_line(&text[start..], &terms);
        hits.push(SearchHit {
            path: bank.article(id).rel_path.clone(),
            line: line + s.line_offset,
            entry_id: None,
            score: f64::from(score),
            snippet: s.text,
            highlights: s.highlights,
        });
    }
    Ok((bank, OnePass { hits, matches }))
}

/// Why a streamed search of a bank gave no answer.
#[derive(Debug)]
pub enum StreamError {
    /// The bank could not be opened.
    Load(BankError),
    /// A hit's file could not be read again for its snippet.
    Reread(LoadProblem),
}
