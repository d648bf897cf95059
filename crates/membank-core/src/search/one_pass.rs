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

use super::index::{B, K1};
use super::tokens::for_each_word;
use super::{SearchIndex, Texts, snippet};
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

fn tally(first: usize, units: &[SearchUnit<'_>], terms: &[String]) -> Tally {
    let mut t = Tally {
        df: vec![0; terms.len()],
        ..Tally::default()
    };
    let mut counts = vec![0u32; terms.len()];
    for (i, unit) in units.iter().enumerate() {
        counts.fill(0);
        let mut len = 0u32;
        for_each_word(unit.text, |word, _| {
            len += 1;
            if let Some(k) = terms.iter().position(|t| t == word) {
                counts[k] += 1;
            }
        });
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
    let tallies: Vec<Tally> = if crate::parallel::pays(units.len()) {
        let chunk = units
            .len()
            .div_ceil(rayon::current_num_threads() * 4)
            .max(256);
        units
            .par_chunks(chunk)
            .enumerate()
            .map(|(c, part)| tally(c * chunk, part, &terms))
            .collect()
    } else {
        vec![tally(0, &units, &terms)]
    };
    let n_units: usize = tallies.iter().map(|t| t.units).sum();
    let total_len: u64 = tallies.iter().map(|t| t.total_len).sum();
    let avg_len = if n_units == 0 {
        0.0
    } else {
        total_len as f32 / n_units as f32
    };
    let mut df = vec![0u32; terms.len()];
    for t in &tallies {
        for (d, &x) in df.iter_mut().zip(&t.df) {
            *d += x;
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
    for t in &tallies {
        for (row, &(unit, len)) in t.matched.iter().enumerate() {
            let counts = &t.tf[row * terms.len()..(row + 1) * terms.len()];
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
    }
    let matches = ranked.len();
    let order = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
    if ranked.len() > limit && limit > 0 {
        ranked.select_nth_unstable_by(limit - 1, order);
    }
    ranked.truncate(limit);
    ranked.sort_unstable_by(order);
    let hits = ranked
        .into_iter()
        .map(|(unit, score)| {
            let u = &units[unit as usize];
            let s = snippet::best_line(u.text, &terms);
            SearchHit {
                path: Texts::path(memory, u.doc).to_owned(),
                line: u.line + s.line_offset,
                entry_id: u.entry_id.map(str::to_owned),
                score: f64::from(score),
                snippet: s.text,
                highlights: s.highlights,
            }
        })
        .collect();
    OnePass { hits, matches }
}
