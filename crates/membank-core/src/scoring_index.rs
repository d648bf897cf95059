//! A packed copy of what ranking reads, built on the first query after a
//! load or reload. Scoring then compares small integers in contiguous
//! arrays instead of chasing each article's strings, which keeps a query
//! over a very large bank within a keystroke.
//!
//! It gives exactly the `Hits` that `scoring::hits` gives (a test compares
//! them on generated banks), so it changes speed, never results.

use std::collections::HashMap;

use crate::bank::{ArticleId, Bank};
use crate::layout::Folder;
use crate::scoring::{Hits, languages_match};

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
    /// Content articles in tie-break order, and their folders and sizes.
    pub(crate) ids: Vec<ArticleId>,
    pub(crate) folders: Vec<Folder>,
    pub(crate) chars: Vec<usize>,
    /// Per article, `[start, end)` into the value arrays below.
    clients: Vec<(u32, u32)>,
    domains: Vec<(u32, u32)>,
    languages: Vec<(u32, u32)>,
    client_values: Vec<u32>,
    domain_values: Vec<u32>,
    language_items: Vec<LangItem>,
    /// Folded client and domain values → small ids.
    words: HashMap<String, u32>,
    /// Distinct language codes as written, by id.
    tags: Vec<String>,
}

fn intern(map: &mut HashMap<String, u32>, s: &str) -> u32 {
    if let Some(&id) = map.get(s) {
        return id;
    }
    let id = map.len() as u32;
    map.insert(s.to_owned(), id);
    id
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
        let mut ix = ScoringIndex {
            ids: order.to_vec(),
            ..ScoringIndex::default()
        };
        let mut tag_ids: HashMap<String, u32> = HashMap::new();
        for &id in order {
            let a = bank.article(id);
            ix.folders.push(a.folder);
            ix.chars.push(a.chars);
            let start = ix.client_values.len() as u32;
            for v in &a.meta.clients {
                let w = intern(&mut ix.words, &v.folded);
                ix.client_values.push(w);
            }
            ix.clients.push((start, ix.client_values.len() as u32));
            let start = ix.domain_values.len() as u32;
            for v in &a.meta.domains {
                let w = intern(&mut ix.words, &v.folded);
                ix.domain_values.push(w);
            }
            ix.domains.push((start, ix.domain_values.len() as u32));
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
            ix.languages.push((start, ix.language_items.len() as u32));
        }
        ix.tags = vec![String::new(); tag_ids.len()];
        for (tag, id) in tag_ids {
            ix.tags[id as usize] = tag;
        }
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
            client: find(self.clients[pos], &self.client_values, q.client),
            domain: find(self.domains[pos], &self.domain_values, q.domain),
            language: None,
        };
        if q.any_language {
            let (start, end) = self.languages[pos];
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
