//! Where each link of a bank points, four bytes a link: a large bank holds
//! hundreds of thousands of links, and a [`Resolution`] each was 24 bytes,
//! with a list of its own for every ambiguous one.

use super::{ArticleId, Resolution};

/// The top two bits of a code say what it is, the rest which article or
/// file (or, for an ambiguous link, which of the lists of articles).
const KIND: u32 = 0b11 << 30;
const ONE: u32 = 0;
const FILE: u32 = 0b01 << 30;
const AMBIGUOUS: u32 = 0b10 << 30;
const DEAD: u32 = KIND;

/// Each article's links' resolutions, article after article.
#[derive(Debug, Default)]
pub(super) struct Resolved {
    codes: Vec<u32>,
    /// Article `id`'s are `codes[from[id]..from[id + 1]]`.
    from: Vec<u32>,
    /// The articles of each ambiguous link, one list after another: the
    /// `k`th is `ambiguous[ambiguous_from[k]..ambiguous_from[k + 1]]`.
    ambiguous: Vec<u32>,
    ambiguous_from: Vec<u32>,
}

/// `i` if a code holds it (below 2^30: no bank that fits in memory has
/// that many files).
fn small(i: usize) -> Option<u32> {
    u32::try_from(i).ok().filter(|i| i & KIND == 0)
}

impl Resolved {
    /// The resolutions of every link, article after article, where
    /// article `id` has `counts[id]` links.
    pub(super) fn pack(all: Vec<Resolution>, counts: impl Iterator<Item = usize>) -> Resolved {
        let mut packed = Resolved {
            codes: Vec::with_capacity(all.len()),
            from: Vec::new(),
            ambiguous: Vec::new(),
            ambiguous_from: vec![0],
        };
        for r in all {
            let code = match r {
                Resolution::Dead => None,
                Resolution::One(id) => small(id).map(|id| ONE | id),
                Resolution::File(i) => small(i).map(|i| FILE | i),
                Resolution::Ambiguous(ids) => packed.add_ambiguous(&ids),
            };
            // An index past what a code holds is unreachable in practice;
            // it reads as a dead link rather than as another file.
            packed.codes.push(code.unwrap_or(DEAD));
        }
        let mut at = 0u32;
        packed.from.push(at);
        for n in counts {
            at = at.saturating_add(u32::try_from(n).unwrap_or(u32::MAX));
            packed.from.push(at);
        }
        packed
    }

    fn add_ambiguous(&mut self, ids: &[ArticleId]) -> Option<u32> {
        let k = small(self.ambiguous_from.len() - 1)?;
        let ids: Option<Vec<u32>> = ids.iter().map(|&id| small(id)).collect();
        self.ambiguous.extend(ids?);
        self.ambiguous_from
            .push(u32::try_from(self.ambiguous.len()).ok()?);
        Some(AMBIGUOUS | k)
    }

    /// Article `id`'s codes; none when links were not indexed.
    fn codes_of(&self, id: ArticleId) -> &[u32] {
        match (self.from.get(id), self.from.get(id + 1)) {
            (Some(&start), Some(&end)) => {
                self.codes.get(start as usize..end as usize).unwrap_or(&[])
            }
            _ => &[],
        }
    }

    fn ambiguous_ids(&self, k: u32) -> &[u32] {
        let k = k as usize;
        match (self.ambiguous_from.get(k), self.ambiguous_from.get(k + 1)) {
            (Some(&start), Some(&end)) => self
                .ambiguous
                .get(start as usize..end as usize)
                .unwrap_or(&[]),
            _ => &[],
        }
    }

    fn unpack(&self, code: u32) -> Resolution {
        let i = code & !KIND;
        match code & KIND {
            ONE => Resolution::One(i as usize),
            FILE => Resolution::File(i as usize),
            AMBIGUOUS => Resolution::Ambiguous(
                self.ambiguous_ids(i)
                    .iter()
                    .map(|&id| id as usize)
                    .collect(),
            ),
            _ => Resolution::Dead,
        }
    }

    /// Where each of article `id`'s links points, in order.
    pub(super) fn of(&self, id: ArticleId) -> impl Iterator<Item = Resolution> + '_ {
        self.codes_of(id).iter().map(|&code| self.unpack(code))
    }

    /// The article each of article `id`'s links opens, where one does
    /// (see [`Resolution::target`]), without building the resolutions.
    pub(super) fn targets(&self, id: ArticleId) -> impl Iterator<Item = ArticleId> + '_ {
        self.codes_of(id).iter().filter_map(|&code| {
            let i = code & !KIND;
            match code & KIND {
                ONE => Some(i as usize),
                AMBIGUOUS => self.ambiguous_ids(i).first().map(|&id| id as usize),
                _ => None,
            }
        })
    }
}
