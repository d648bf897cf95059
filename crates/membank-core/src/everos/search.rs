//! One query over a root, ranked as the root is read: each file's units
//! are counted on the thread that read it and the file is dropped, so a
//! root is never held whole. What is kept is what BM25 needs (the number
//! of units, their total length, and the lengths and query-word counts of
//! the units that match); the few best hits are read again for their
//! snippets. Ranks, scores and snippets are those of
//! [`one_pass::search`] over the loaded root.

use std::path::Path;

use super::load::LoadFilter;
use super::memory::{is_document, listing_key, units_of};
use super::{MemoryRoot, stream};
use crate::search::SearchIndex;
use crate::search::one_pass::{self, OnePass, count_words, rank};

/// What one file gave the ranking.
#[derive(Default)]
struct FileTally {
    /// Whether it is a document (read, with its frontmatter split).
    document: bool,
    /// Its units (entries of a daily log, else the body).
    units: u32,
    total_len: u64,
    /// Matching units: (unit within the file, length in words).
    matched: Vec<(u32, u32)>,
    /// Per matching unit, its count of each query word, one row each.
    tf: Vec<u32>,
}

/// Rank the units of the root at `root` for `query` and return the best
/// `limit` with their snippets, with the root (without its files).
pub fn search(root: &Path, query: &str, limit: usize) -> Result<(MemoryRoot, OnePass), String> {
    let terms = SearchIndex::query_terms(query);
    let walked = stream::walk(root, &LoadFilter::default())?;
    let mut tallies: Vec<FileTally> = Vec::with_capacity(walked.len());
    let problems = walked.read(
        |_, f| {
            let mut t = FileTally {
                document: is_document(&f),
                ..FileTally::default()
            };
            if !t.document || terms.is_empty() {
                return t;
            }
            let mut counts = vec![0u32; terms.len()];
            for (i, unit) in units_of(0, &f).iter().enumerate() {
                let len = count_words(unit.text, &terms, &mut counts);
                t.units += 1;
                t.total_len += u64::from(len);
                if counts.iter().any(|&c| c > 0) {
                    t.matched.push((i as u32, len));
                    t.tf.extend_from_slice(&counts);
                }
            }
            t
        },
        |t| {
            tallies.push(t);
            true
        },
    );
    let listing = walked.listing(problems);
    if terms.is_empty() {
        let none = OnePass {
            hits: Vec::new(),
            matches: 0,
        };
        return Ok((listing, none));
    }
    // Units are numbered as the loaded root lists them: documents in
    // listing order, each one's units in file order; ties rank by it.
    let mut docs: Vec<usize> = (0..walked.len()).filter(|&i| tallies[i].document).collect();
    docs.sort_by_cached_key(|&i| {
        let rel = walked.rel_path(i);
        let segs: Vec<&str> = rel.split('/').collect();
        listing_key(&super::paths::classify(&segs), rel)
    });
    let mut first_unit = vec![0u32; walked.len()];
    let mut n_units = 0u32;
    for &i in &docs {
        first_unit[i] = n_units;
        n_units += tallies[i].units;
    }
    let total_len: u64 = tallies.iter().map(|t| t.total_len).sum();
    // (unit, length, file, unit within the file, counts), by unit.
    let mut rows: Vec<(u32, u32, usize, u32, &[u32])> = Vec::new();
    for &i in &docs {
        let t = &tallies[i];
        for (&(within, len), counts) in t.matched.iter().zip(t.tf.chunks_exact(terms.len())) {
            rows.push((first_unit[i] + within, len, i, within, counts));
        }
    }
    let (ranked, matches) = rank(
        n_units as usize,
        total_len,
        rows.iter()
            .map(|&(unit, len, _, _, counts)| (unit, len, counts)),
        terms.len(),
        limit,
    );
    let mut hits = Vec::with_capacity(ranked.len());
    for (unit, score) in ranked {
        let Ok(at) = rows.binary_search_by_key(&unit, |r| r.0) else {
            continue;
        };
        let (_, _, file, within, _) = rows[at];
        let (f, _) = walked.read_one(file);
        let units = units_of(0, &f);
        let Some(u) = units.get(within as usize) else {
            return Err(format!(
                "{}: changed while it was searched; search again",
                f.rel_path
            ));
        };
        hits.push(one_pass::hit_of(f.rel_path.clone(), u, score, &terms));
    }
    Ok((listing, OnePass { hits, matches }))
}
