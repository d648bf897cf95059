//! The Context pane's candidates as it keeps them: every content article
//! of a large bank is one, and the core's [`ContextEntry`] (80 bytes, its
//! rank and a budget drop's two counts as machine words) was 8 MB at
//! 100,000 articles. Here a candidate is 40 bytes; its rank is its place,
//! the budget is held once, and the whole entry is made again when it is
//! read.

use membank_core::budget::DropReason;
use membank_core::context::ContextEntry;
use membank_core::scoring::Hits;

/// What a candidate's `drop` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Dropped {
    Kept,
    Unscored,
    OverBudget,
    /// Some count did not fit the compact row: the entry is kept whole in
    /// [`Candidates::whole`], at the index `id` names.
    Whole,
}

#[derive(Debug, Clone, Copy)]
struct Row {
    id: u32,
    tokens: u32,
    score: u32,
    /// A budget drop's tokens of the context with the article in it.
    with_it: u32,
    hits: Hits,
    included: bool,
    drop: Dropped,
}

/// Candidates in rank order, as the core ranked them.
#[derive(Debug, Clone, Default)]
pub struct Candidates {
    rows: Vec<Row>,
    /// The budget every budget drop names.
    budget: usize,
    /// The few entries whose counts do not fit a row (none in any real
    /// bank; kept so that nothing is ever shown wrong).
    whole: Vec<ContextEntry>,
}

impl Candidates {
    /// `entries` in rank order (the report's `articles`).
    pub fn of(entries: Vec<ContextEntry>) -> Candidates {
        let budget = entries
            .iter()
            .find_map(|e| match e.drop {
                Some(DropReason::OverBudget { budget, .. }) => Some(budget),
                _ => None,
            })
            .unwrap_or(0);
        let mut whole = Vec::new();
        let mut rows = Vec::with_capacity(entries.len());
        for (i, e) in entries.into_iter().enumerate() {
            let row = compact(&e, i, budget).unwrap_or_else(|| {
                whole.push(e);
                Row {
                    id: u32::try_from(whole.len() - 1).unwrap_or(u32::MAX),
                    tokens: 0,
                    score: 0,
                    with_it: 0,
                    hits: Hits::default(),
                    included: false,
                    drop: Dropped::Whole,
                }
            });
            rows.push(row);
        }
        Candidates {
            rows,
            budget,
            whole,
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// The candidate at `i` (ranked `i + 1`), whole.
    pub fn get(&self, i: usize) -> Option<ContextEntry> {
        let row = self.rows.get(i)?;
        let drop = match row.drop {
            Dropped::Whole => return self.whole.get(row.id as usize).copied(),
            Dropped::Kept => None,
            Dropped::Unscored => Some(DropReason::Unscored),
            Dropped::OverBudget => Some(DropReason::OverBudget {
                with_it: row.with_it as usize,
                budget: self.budget,
            }),
        };
        Some(ContextEntry {
            id: row.id as usize,
            rank: i + 1,
            score: row.score,
            hits: row.hits,
            tokens: row.tokens as usize,
            included: row.included,
            drop,
        })
    }

    /// Every candidate whole, in rank order.
    pub fn iter(&self) -> impl Iterator<Item = ContextEntry> + '_ {
        (0..self.len()).filter_map(|i| self.get(i))
    }
}

/// `e`, ranked at place `i`, as a row, when every count fits and its
/// budget is `budget`.
fn compact(e: &ContextEntry, i: usize, budget: usize) -> Option<Row> {
    let small = |n: usize| u32::try_from(n).ok();
    if e.rank != i + 1 {
        return None;
    }
    let (drop, with_it) = match e.drop {
        None => (Dropped::Kept, 0),
        Some(DropReason::Unscored) => (Dropped::Unscored, 0),
        Some(DropReason::OverBudget { with_it, budget: b }) => {
            if b != budget {
                return None;
            }
            (Dropped::OverBudget, small(with_it)?)
        }
    };
    Some(Row {
        id: small(e.id)?,
        tokens: small(e.tokens)?,
        score: e.score,
        with_it,
        hits: e.hits,
        included: e.included,
        drop,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_candidate_is_forty_bytes() {
        assert!(size_of::<Row>() <= 40, "{}", size_of::<Row>());
    }

    fn entry(rank: usize, drop: Option<DropReason>) -> ContextEntry {
        ContextEntry {
            id: 1000 + rank,
            rank,
            score: 7 - rank as u32 % 7,
            hits: Hits {
                client: Some(rank as u16),
                domain: None,
                language: Some((1, 2, 1)),
            },
            tokens: 40 * rank,
            included: drop.is_none(),
            drop,
        }
    }

    #[test]
    fn every_candidate_reads_back_as_ranked() {
        let over = |with_it, budget| DropReason::OverBudget { with_it, budget };
        let entries = vec![
            entry(1, None),
            entry(2, Some(over(9_000, 8_000))),
            entry(3, Some(over(8_500, 8_000))),
            entry(4, Some(DropReason::Unscored)),
            // Counts too large for a row, another budget, a rank out of
            // place: kept whole, read back the same.
            entry(5, Some(over(usize::MAX, 8_000))),
            entry(6, Some(over(100, 5))),
            ContextEntry {
                rank: 99,
                ..entry(7, None)
            },
            ContextEntry {
                tokens: usize::MAX,
                ..entry(8, None)
            },
            entry(9, Some(over(7_000, 8_000))),
        ];
        let candidates = Candidates::of(entries.clone());
        assert_eq!(candidates.len(), entries.len());
        assert_eq!(candidates.whole.len(), 4);
        assert_eq!(candidates.iter().collect::<Vec<_>>(), entries);
        assert_eq!(candidates.get(entries.len()), None);
    }
}
